use routh::prelude::*;

#[derive(Mechanics)]
#[mechanics(
    joint(name = q1, kind = revolute, child = upper, axis = [0, 0, 1], mass = 1, centre = [0, 0, 1], inertia = diag(1, 1, 1)),
    joint(name = q2, kind = revolute, parent = uper, child = fore, origin = [0, 0, 1], axis = [0, 1, 0]),
    gravity = [0, 0, -g],
)]
struct Arm {
    g: f64,
}

fn main() {}
