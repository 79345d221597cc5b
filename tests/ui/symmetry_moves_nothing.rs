use routh::prelude::*;

/// A rotation about the zero axis, and a generator that is identically zero, move nothing: every
/// Lagrangian is "invariant" under them and their momenta are 0.
#[derive(Mechanics)]
#[mechanics(
    orientation(r),
    body(name = brick, mass = m, centre = [0, 0, 0], frame = r, inertia = diag(1, 2, 3)),
    symmetry(spin = rotation(r, [0, 0, 0])),
)]
struct Brick {
    m: f64,
}

#[derive(Mechanics)]
#[mechanics(
    coordinates(x, y),
    lagrangian = m / 2 * (dot(x).powi(2) + dot(y).powi(2)),
    symmetry(still = generator(x = 0, y = x - x)),
)]
struct Free {
    m: f64,
}

fn main() {}
