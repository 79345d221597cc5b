use routh::prelude::*;

#[derive(Mechanics)]
#[mechanics(coordinates(theta), lagrangian = m / 2 * dot(theta).powi(2) + m * g * theta.cosine())]
struct Pendulum {
    m: f64,
    g: f64,
}

fn main() {}
