use routh::prelude::*;

// Only the sum x + y carries kinetic energy: M = m [[1, 1], [1, 1]] is singular everywhere.
#[derive(Mechanics)]
#[mechanics(coordinates(x, y), lagrangian = m / 2 * (dot(x) + dot(y)).powi(2) - k / 2 * x.powi(2))]
struct Degenerate {
    m: f64,
    k: f64,
}

fn main() {}
