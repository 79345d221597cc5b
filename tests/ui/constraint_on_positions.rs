use routh::prelude::*;

#[derive(Mechanics)]
#[mechanics(
    coordinates(x, y),
    lagrangian = m / 2 * (dot(x).powi(2) + dot(y).powi(2)),
    constraint(circle = x.powi(2) + y.powi(2) - 1),
)]
struct Bead {
    m: f64,
}

fn main() {}
