use routh::prelude::*;

/// A rotation symmetry of an orientation that is not declared.
#[derive(Mechanics)]
#[mechanics(
    orientation(b),
    body(name = top, mass = m, centre = [0, 0, 0], frame = b, inertia = diag(1, 1, 1.5)),
    symmetry(spin = rotation(c, [0, 0, 1])),
)]
struct Top {
    m: f64,
}

fn main() {}
