use routh::prelude::*;

#[derive(Mechanics)]
#[mechanics(coordinates(x), action(z), action(s), lagrangian = m / 2 * dot(x).powi(2) - gamma * z)]
struct Damped {
    m: f64,
    gamma: f64,
}

fn main() {}
