use routh::prelude::*;

#[derive(Mechanics)]
#[mechanics(
    joint(name = q, kind = revolut, child = arm, axis = [0, 0, 1], mass = 1, centre = [0, 0, 1], inertia = diag(1, 1, 1)),
    gravity = [0, 0, -g],
)]
struct Arm {
    g: f64,
}

fn main() {}
