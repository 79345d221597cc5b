use routh::prelude::*;

/// Euler–Poincaré reduces by an orientation's rotations; `x` is a coordinate (its shift is Routh's).
#[derive(Mechanics)]
#[mechanics(
    coordinates(x),
    lagrangian = m / 2 * dot(x).powi(2),
    reduce(euler_poincare(x)),
)]
struct Slider {
    m: f64,
}

fn main() {}
