use routh::prelude::*;

#[derive(Mechanics)]
#[mechanics(coordinates(x), lagrangian = m / 2 * dot(x).powi(2) - k * (x % 2))]
struct Particle {
    m: f64,
    k: f64,
}

fn main() {}
