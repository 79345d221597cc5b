use routh::prelude::*;

#[derive(Mechanics)]
#[mechanics(coordinates(x, y), lagrangian = m / 2 * dot(x).powi(2) - k / 2 * (x.powi(2) + y.powi(2)))]
struct HalfParticle {
    m: f64,
    k: f64,
}

fn main() {}
