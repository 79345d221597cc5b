use routh::prelude::*;

/// The Lie group variational integrator (orientations with `discrete(...)`) takes no inputs yet.
#[derive(Mechanics)]
#[mechanics(
    coordinates(x),
    orientation(r),
    input(u),
    body(name = ball, mass = m, centre = [x, 0, 0], frame = r, inertia = diag(1, 1, 1)),
    force(x = u),
    discrete(rule = midpoint),
)]
struct Ball {
    m: f64,
}

fn main() {}
