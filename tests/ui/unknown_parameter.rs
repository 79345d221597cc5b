use routh::prelude::*;

#[derive(Mechanics)]
#[mechanics(coordinates(x), lagrangian = mas / 2 * dot(x).powi(2) - k / 2 * x.powi(2))]
struct Oscillator {
    mass: f64,
    k: f64,
}

fn main() {}
