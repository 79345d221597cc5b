use routh::prelude::*;

/// A frame whose matrix is not orthonormal (a shear).
#[derive(Mechanics)]
#[mechanics(
    coordinates(q),
    frame(b = [[1, q, 0], [0, 1, 0], [0, 0, 1]]),
    body(name = plate, mass = m, centre = [0, 0, 0], frame = b, inertia = diag(1, 1, 2)),
)]
struct Plate {
    m: f64,
}

fn main() {}
