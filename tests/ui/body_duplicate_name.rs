use routh::prelude::*;

/// Two bodies with one name.
#[derive(Mechanics)]
#[mechanics(
    coordinates(q),
    body(name = arm, mass = m, centre = [0, 0, 0], frame = rot_z(q), inertia = diag(1, 1, 2)),
    body(name = arm, mass = m, centre = rot_z(q) * [l, 0, 0], frame = rot_z(q), inertia = diag(1, 1, 2)),
)]
struct Arm {
    m: f64,
    l: f64,
}

fn main() {}
