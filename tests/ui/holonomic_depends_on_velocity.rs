use routh::prelude::*;

#[derive(Mechanics)]
#[mechanics(
    coordinates(x, y),
    lagrangian = m / 2 * (dot(x).powi(2) + dot(y).powi(2)),
    holonomic(rod = x * dot(x) + y * dot(y)),
)]
struct Particle {
    m: f64,
}

fn main() {}
