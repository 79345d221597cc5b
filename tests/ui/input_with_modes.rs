use routh::prelude::*;

/// Inputs drive single-mode models (with impacts too); a model with modes cannot carry them yet.
#[derive(Mechanics)]
#[mechanics(
    coordinates(y),
    input(u),
    lagrangian = m / 2 * dot(y).powi(2) - m * g * y,
    force(y = u),
    unilateral(name = floor, guard = y, law = restitution(e)),
)]
struct Juggled {
    m: f64,
    g: f64,
    e: f64,
}

fn main() {}
