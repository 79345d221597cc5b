use routh::prelude::*;

/// A spring on a ball joint, which has no one coordinate to stretch.
#[derive(Mechanics)]
#[mechanics(
    joint(name = hang, kind = ball, child = bob, mass = m, centre = [0, 0, -l], inertia = diag(1, 1, 1), stiffness = k),
    gravity = [0, 0, -g],
)]
struct Pendulum {
    m: f64,
    l: f64,
    k: f64,
    g: f64,
}

fn main() {}
