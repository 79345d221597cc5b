use routh::prelude::*;

// The action variable `z` is used without `action(z)`.
#[derive(Mechanics)]
#[mechanics(coordinates(x), lagrangian = m / 2 * dot(x).powi(2) - k / 2 * x.powi(2) - gamma * z)]
struct Damped {
    m: f64,
    k: f64,
    gamma: f64,
}

fn main() {}
