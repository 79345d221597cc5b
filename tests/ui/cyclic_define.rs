use routh::prelude::*;

#[derive(Mechanics)]
#[mechanics(
    coordinates(theta),
    define(px = l * theta.sin() + py, py = -l * theta.cos() - px),
    lagrangian = m / 2 * (dot(px).powi(2) + dot(py).powi(2)),
)]
struct Pendulum {
    m: f64,
    l: f64,
}

fn main() {}
