use routh::prelude::*;

/// Inputs on a model with an orientation state are not supported yet.
#[derive(Mechanics)]
#[mechanics(
    coordinates(x),
    orientation(r),
    input(u),
    body(name = ball, mass = m, centre = [x, 0, 0], frame = r, inertia = diag(1, 1, 1)),
    force(x = u),
)]
struct Ball {
    m: f64,
}

fn main() {}
