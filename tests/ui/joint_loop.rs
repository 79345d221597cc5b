use routh::prelude::*;

#[derive(Mechanics)]
#[mechanics(
    joint(name = q1, kind = revolute, parent = b, child = a, axis = [0, 0, 1], mass = 1, inertia = diag(1, 1, 1)),
    joint(name = q2, kind = revolute, parent = a, child = b, axis = [0, 0, 1], mass = 1, inertia = diag(1, 1, 1)),
    gravity = [0, 0, -g],
)]
struct Loop {
    g: f64,
}

fn main() {}
