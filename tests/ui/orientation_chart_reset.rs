use routh::prelude::*;

/// Chart changes are not available with orientations: the modes share the coordinates.
#[derive(Mechanics)]
#[mechanics(
    coordinates(x),
    orientation(r),
    body(name = ball, mass = m, centre = [x, 0, 0], frame = r, inertia = diag(1, 1, 1)),
    mode(left),
    mode(right),
    transition(left -> right, guard = 1 - t, law = reset(x = 0)),
)]
struct Ball {
    m: f64,
}

fn main() {}
