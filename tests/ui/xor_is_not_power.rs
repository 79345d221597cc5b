use routh::prelude::*;

#[derive(Mechanics)]
#[mechanics(coordinates(x), lagrangian = m / 2 * dot(x) ^ 2 - k / 2 * x.powi(2))]
struct Oscillator {
    m: f64,
    k: f64,
}

fn main() {}
