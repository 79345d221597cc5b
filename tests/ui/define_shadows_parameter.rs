use routh::prelude::*;

#[derive(Mechanics)]
#[mechanics(
    coordinates(theta),
    define(l = 2 * theta),
    lagrangian = m / 2 * dot(l).powi(2),
)]
struct Pendulum {
    m: f64,
    l: f64,
}

fn main() {}
