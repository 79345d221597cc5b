use routh::prelude::*;

/// A velocity constraint must be affine in the velocities, an orientation's ω among them.
#[derive(Mechanics)]
#[mechanics(
    coordinates(x),
    orientation(r),
    body(name = ball, mass = m, centre = [x, 0, 0], frame = r, inertia = diag(1, 1, 1)),
    constraint(roll = dot(x) - omega(r)[1] * omega(r)[2]),
)]
struct Ball {
    m: f64,
}

fn main() {}
