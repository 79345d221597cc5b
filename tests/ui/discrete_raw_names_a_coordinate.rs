use routh::prelude::*;

// A raw discrete Lagrangian is written in the nodes q0(x), q1(x): a bare `x` has no value there.
#[derive(Mechanics)]
#[mechanics(
    coordinates(x),
    lagrangian = dot(x).powi(2) / 2 - k / 2 * x.powi(2),
    discrete(lagrangian = (q1(x) - q0(x)).powi(2) / (2 * h) - h * k / 2 * x.powi(2)),
)]
struct Spring {
    k: f64,
}

fn main() {}
