use routh::prelude::*;

#[derive(Mechanics)]
#[mechanics(coordinates(x, y, x), lagrangian = m / 2 * (dot(x).powi(2) + dot(y).powi(2)))]
struct Particle {
    m: f64,
}

fn main() {}
