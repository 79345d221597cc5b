use routh::prelude::*;

/// A body on a frame that was never declared.
#[derive(Mechanics)]
#[mechanics(
    coordinates(q),
    frame(upper = rot_z(q)),
    body(name = arm, mass = m, centre = [0, 0, 0], frame = uper, inertia = diag(1, 1, 2)),
)]
struct Arm {
    m: f64,
}

fn main() {}
