use routh::prelude::*;

/// Symmetries, reductions and discrete integrators of multi-mode models are refused inside a mode
/// as at the top level, rather than lost.
#[derive(Mechanics)]
#[mechanics(
    coordinates(x, y),
    lagrangian = m / 2 * (dot(x).powi(2) + dot(y).powi(2)) - m * g * y,
    mode(flight, symmetry(slide = generator(x = 1)), reduce(routh(x))),
    mode(stance, discrete(rule = midpoint)),
    transition(flight -> stance, name = touchdown, guard = y, law = map()),
)]
struct Hopper {
    m: f64,
    g: f64,
}

fn main() {}
