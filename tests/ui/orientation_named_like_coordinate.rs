use routh::prelude::*;

/// An orientation with the name of a coordinate.
#[derive(Mechanics)]
#[mechanics(
    coordinates(r),
    orientation(r),
    body(name = ball, mass = m, centre = [0, 0, 0], frame = rot_z(r), inertia = diag(1, 1, 1)),
)]
struct Ball {
    m: f64,
}

fn main() {}
