use routh::prelude::*;

/// Modes of a model with orientations share its coordinates.
#[derive(Mechanics)]
#[mechanics(
    coordinates(x),
    orientation(r),
    body(name = ball, mass = m, centre = [x, 0, 0], frame = r, inertia = diag(1, 1, 1)),
    mode(rolling),
    mode(sliding, coordinates(x, y), lagrangian = m / 2 * dot(x).powi(2)),
    transition(rolling -> sliding, guard = 1 - t, law = reset(y = 0)),
)]
struct Ball {
    m: f64,
}

fn main() {}
