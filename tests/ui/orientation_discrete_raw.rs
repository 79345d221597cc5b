use routh::prelude::*;

/// With orientations the discrete system is a rule's: a raw L_d over the nodes is not taken.
#[derive(Mechanics)]
#[mechanics(
    coordinates(x),
    orientation(r),
    body(name = ball, mass = m, centre = [x, 0, 0], frame = r, inertia = diag(1, 1, 1)),
    discrete(lagrangian = (q1(x) - q0(x)).powi(2) / (2 * h)),
)]
struct Ball {
    m: f64,
}

fn main() {}
