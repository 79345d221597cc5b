use routh::prelude::*;

/// A rotation about an axis that is not a unit vector.
#[derive(Mechanics)]
#[mechanics(
    coordinates(q),
    frame(b = axis_angle([1, 1, 0], q)),
    body(name = plate, mass = m, centre = [0, 0, 0], frame = b, inertia = diag(1, 1, 2)),
)]
struct Plate {
    m: f64,
}

fn main() {}
