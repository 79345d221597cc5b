use routh::prelude::*;

#[derive(Mechanics)]
#[mechanics(
    coordinates(x, y),
    lagrangian = m / 2 * (dot(x).powi(2) + dot(y).powi(2)),
    constraint(skate = dot(x) * dot(y) - 1),
)]
struct Particle {
    m: f64,
}

fn main() {}
