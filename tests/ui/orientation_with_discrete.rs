use routh::prelude::*;

/// Variational integrators are for Euclidean configurations: not with an orientation state yet.
#[derive(Mechanics)]
#[mechanics(
    coordinates(x),
    orientation(r),
    body(name = ball, mass = m, centre = [x, 0, 0], frame = r, inertia = diag(1, 1, 1)),
    discrete(rule = midpoint),
)]
struct Ball {
    m: f64,
}

fn main() {}
