use routh::prelude::*;

/// Literal nonsense: a division by zero and a negative power of an expression that cancels.
#[derive(Mechanics)]
#[mechanics(
    coordinates(x),
    lagrangian = m / 2 * dot(x).powi(2) - k * x / 0,
)]
struct DividedByZero {
    m: f64,
    k: f64,
}

#[derive(Mechanics)]
#[mechanics(
    coordinates(x),
    lagrangian = m / 2 * dot(x).powi(2) - k * (x - x).powi(-1),
)]
struct InverseOfZero {
    m: f64,
    k: f64,
}

#[derive(Mechanics)]
#[mechanics(
    coordinates(x),
    lagrangian = m / 2 * dot(x).powi(2) - k * x.powi(99999999999999999999),
)]
struct HugePower {
    m: f64,
    k: f64,
}

fn main() {}
