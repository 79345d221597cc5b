use routh::prelude::*;

/// The Lie group variational integrator has no contact (Herglotz) form yet.
#[derive(Mechanics)]
#[mechanics(
    orientation(r),
    action(z),
    body(name = brick, mass = m, centre = [0, 0, 0], frame = r, inertia = diag(1, 2, 3)),
    lagrangian = -gamma * z,
    discrete(rule = midpoint),
)]
struct Spinner {
    m: f64,
    gamma: f64,
}

fn main() {}
