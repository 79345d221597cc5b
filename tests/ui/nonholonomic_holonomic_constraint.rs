use routh::prelude::*;

/// A bead on a circle in Cartesian coordinates: its holonomic constraint is not reduced.
#[derive(Mechanics)]
#[mechanics(
    coordinates(x, y, s),
    lagrangian = m / 2 * (dot(x).powi(2) + dot(y).powi(2) + dot(s).powi(2)),
    holonomic(ring = x.powi(2) + y.powi(2) - 1),
    reduce(nonholonomic(s), velocities(x, s)),
)]
struct Bead {
    m: f64,
}

fn main() {}
