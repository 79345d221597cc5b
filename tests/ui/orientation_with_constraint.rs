use routh::prelude::*;

/// Constraints on a model with an orientation state are not supported yet.
#[derive(Mechanics)]
#[mechanics(
    coordinates(x),
    orientation(r),
    body(name = ball, mass = m, centre = [x, 0, 0], frame = r, inertia = diag(1, 1, 1)),
    constraint(roll = dot(x) - omega(r)[1]),
)]
struct Ball {
    m: f64,
}

fn main() {}
