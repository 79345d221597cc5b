use routh::prelude::*;

/// Inputs drive every mode of a system: an `input(...)` written inside one mode is refused rather
/// than lost.
#[derive(Mechanics)]
#[mechanics(
    coordinates(y),
    lagrangian = m / 2 * dot(y).powi(2) - m * g * y,
    mode(flight),
    mode(stance, input(u), force(y = u)),
    transition(flight -> stance, name = touchdown, guard = y, law = map()),
)]
struct Hopper {
    m: f64,
    g: f64,
}

fn main() {}
