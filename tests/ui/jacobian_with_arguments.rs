use routh::prelude::*;

#[derive(Mechanics)]
#[mechanics(coordinates(x), lagrangian = m / 2 * dot(x).powi(2), jacobian(x))]
struct Particle {
    m: f64,
}

fn main() {}
