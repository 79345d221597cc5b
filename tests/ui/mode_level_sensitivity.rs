use routh::prelude::*;

/// ∂F/∂p is generated for every mode: a `sensitivity(...)` written inside one mode is refused
/// rather than lost.
#[derive(Mechanics)]
#[mechanics(
    coordinates(y),
    lagrangian = m / 2 * dot(y).powi(2) - m * g * y,
    mode(flight, sensitivity(g)),
    mode(stance),
    transition(flight -> stance, name = touchdown, guard = y, law = map()),
)]
struct Hopper {
    m: f64,
    g: f64,
}

fn main() {}
