use routh::prelude::*;

/// A vector added to a scalar.
#[derive(Mechanics)]
#[mechanics(
    coordinates(x),
    point(p = [x, 0, 0] + l),
    lagrangian = m / 2 * dot(x).powi(2),
)]
struct Slider {
    m: f64,
    l: f64,
}

fn main() {}
