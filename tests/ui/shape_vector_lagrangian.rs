use routh::prelude::*;

/// A Lagrangian that is a vector.
#[derive(Mechanics)]
#[mechanics(
    coordinates(x),
    lagrangian = m / 2 * [dot(x), 0, 0],
)]
struct Particle {
    m: f64,
}

fn main() {}
