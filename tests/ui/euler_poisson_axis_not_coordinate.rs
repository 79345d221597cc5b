use routh::prelude::*;

/// Reduction by the rotations about one axis: the axis must be a coordinate axis (its charts of
/// the sphere are written for them).
#[derive(Mechanics)]
#[mechanics(
    orientation(r),
    body(name = brick, mass = m, centre = [0, 0, 0], frame = r, inertia = diag(1, 2, 3)),
    symmetry(tilted = rotation(r, [0.6, 0.8, 0])),
    reduce(euler_poincare(r), symmetry(tilted), name = Reduced),
)]
struct Brick {
    m: f64,
}

fn main() {}
