use routh::prelude::*;

/// A torque on an orientation is a 3-vector in body components.
#[derive(Mechanics)]
#[mechanics(
    orientation(r),
    input(u),
    body(name = craft, mass = m, centre = [0, 0, 0], frame = r, inertia = diag(1, 2, 3)),
    force(r = u),
)]
struct Craft {
    m: f64,
}

fn main() {}
