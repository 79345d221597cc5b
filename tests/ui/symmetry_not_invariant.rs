use routh::prelude::*;

// A translation along x is not a symmetry of a potential that depends on x.
#[derive(Mechanics)]
#[mechanics(
    coordinates(x, y),
    lagrangian = m / 2 * (dot(x).powi(2) + dot(y).powi(2)) - k / 2 * x.powi(2),
    symmetry(shift = generator(x = 1)),
)]
struct Trap {
    m: f64,
    k: f64,
}

fn main() {}
