use routh::prelude::*;

/// A joint's link of zero mass and no inertia (a point mass of nothing).
#[derive(Mechanics)]
#[mechanics(
    joint(name = swing, kind = revolute, child = rod, axis = [0, 1, 0], mass = 0, centre = [0, 0, -l]),
    gravity = [0, 0, -g],
)]
struct Pendulum {
    l: f64,
    g: f64,
}

fn main() {}
