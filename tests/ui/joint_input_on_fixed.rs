use routh::prelude::*;

#[derive(Mechanics)]
#[mechanics(
    joint(name = q, kind = revolute, child = arm, axis = [0, 1, 0], input = u,
          mass = 1, centre = [0, 0, -0.25], inertia = diag(0.0052, 0.0052, 0.0001)),
    joint(kind = fixed, parent = arm, child = tool, origin = [0, 0, -0.5], input = v,
          mass = 0.1, inertia = diag(0.0001, 0.0001, 0.0001)),
    gravity = [0, 0, -9.81],
)]
struct Driven;

fn main() {}
