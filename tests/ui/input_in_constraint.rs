use routh::prelude::*;

/// Inputs drive the forces, guards and impact laws: a driven run projects onto the constraints of
/// the model at any input, so an input in a constraint row is refused rather than projected away.
#[derive(Mechanics)]
#[mechanics(
    coordinates(x, y),
    input(u),
    lagrangian = m / 2 * (dot(x).powi(2) + dot(y).powi(2)),
    constraint(slide = dx - u * dt),
)]
struct Slider {
    m: f64,
}

fn main() {}
