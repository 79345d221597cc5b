use routh::prelude::*;

/// Reduction by the rotations about the vertical: a torque that turns with the heading breaks it.
#[derive(Mechanics)]
#[mechanics(
    orientation(r),
    body(name = top, mass = m, centre = r * [0, 0, l], frame = r, inertia = diag(1, 1, 2)),
    gravity = [0, 0, -g],
    force(r = [0, 0, k * r[(0, 0)]]),
    symmetry(vertical = rotation(r, [0, 0, 1])),
    reduce(euler_poincare(r), symmetry(vertical), name = Reduced),
)]
struct Top {
    m: f64,
    l: f64,
    g: f64,
    k: f64,
}

fn main() {}
