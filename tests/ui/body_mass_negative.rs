use routh::prelude::*;

/// A body of negative mass.
#[derive(Mechanics)]
#[mechanics(
    coordinates(q),
    body(name = arm, mass = -2, centre = rot_z(q) * [l, 0, 0], frame = rot_z(q), inertia = diag(1, 1, 2)),
)]
struct Arm {
    l: f64,
}

fn main() {}
