use routh::prelude::*;

#[derive(Mechanics)]
#[mechanics(
    joint(name = q1, kind = revolute, child = a, axis = [0, 1, 0], mass = 1, centre = [0, 0, -1], inertia = diag(1, 1, 1)),
    joint(name = q2, kind = revolute, child = b, origin = [1, 0, 0], axis = [0, 1, 0], mass = 1, centre = [0, 0, -1],
          inertia = diag(1, 1, 1)),
    closure(name = k, a = a, at = [0, 0, -1], b = b, to = [0, 0, -1], axes = [x, y, z], rotations = [y, y]),
    gravity = [0, 0, -g],
)]
struct Loop {
    g: f64,
}

fn main() {}
