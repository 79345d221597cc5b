use routh::prelude::*;

#[derive(Mechanics)]
#[mechanics(coordinates(x, z), action(z), lagrangian = m / 2 * (dot(x).powi(2) + dot(z).powi(2)) - gamma * z)]
struct Damped {
    m: f64,
    gamma: f64,
}

fn main() {}
