use routh::prelude::*;

// An anisotropic potential is not invariant under rotations about the origin.
#[derive(Mechanics)]
#[mechanics(
    coordinates(x, y),
    lagrangian = m / 2 * (dot(x).powi(2) + dot(y).powi(2)) - (kx * x.powi(2) + ky * y.powi(2)) / 2,
    symmetry(rotation = generator(x = -y, y = x)),
)]
struct Anisotropic {
    m: f64,
    kx: f64,
    ky: f64,
}

fn main() {}
