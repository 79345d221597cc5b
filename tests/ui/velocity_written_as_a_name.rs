use routh::prelude::*;

#[derive(Mechanics)]
#[mechanics(coordinates(x), lagrangian = m / 2 * xdot.powi(2))]
struct Particle {
    m: f64,
}

fn main() {}
