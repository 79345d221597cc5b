use routh::prelude::*;

/// A frame that is a reflection (orthogonal, determinant -1).
#[derive(Mechanics)]
#[mechanics(
    coordinates(q),
    frame(b = rot_z(q) * diag(1, 1, -1)),
    body(name = plate, mass = m, centre = [0, 0, 0], frame = b, inertia = diag(1, 1, 2)),
)]
struct Plate {
    m: f64,
}

fn main() {}
