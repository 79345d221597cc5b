use routh::prelude::*;

#[derive(Mechanics)]
#[mechanics(coordinates(x, t), lagrangian = m / 2 * dot(x).powi(2))]
struct Particle {
    m: f64,
}

fn main() {}
