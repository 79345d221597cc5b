use routh::prelude::*;

/// A raw discrete Lagrangian has the nodes q0 and q1 only.
#[derive(Mechanics)]
#[mechanics(
    coordinates(x),
    lagrangian = dot(x).powi(2) / 2,
    discrete(lagrangian = (q1(x) - q2(x)).powi(2) / (2 * h)),
)]
struct Raw {
    k: f64,
}

fn main() {}
