use routh::prelude::*;

#[derive(Mechanics)]
#[mechanics(
    joint(name = q, kind = revolute, child = rod, axis = [0, 1, 0], limits = [-0.5, 0.5],
          mass = 1, centre = [0, 0, -0.25], inertia = diag(0.0052, 0.0052, 0.0001)),
    gravity = [0, 0, -g],
)]
struct Stopped {
    g: f64,
}

fn main() {}
