use routh::prelude::*;

#[derive(Mechanics)]
#[mechanics(coordinates(x), action(gamma), lagrangian = m / 2 * dot(x).powi(2) - gamma * x)]
struct Damped {
    m: f64,
    gamma: f64,
}

fn main() {}
