use routh::prelude::*;

/// Reduction by the rotations about one axis is not available with impacts yet.
#[derive(Mechanics)]
#[mechanics(
    orientation(r),
    body(name = top, mass = m, centre = r * [0, 0, l], frame = r, inertia = diag(1, 1, 2)),
    gravity = [0, 0, -g],
    symmetry(vertical = rotation(r, [0, 0, 1])),
    impact(name = floor, guard = (r * [0, 0, l])[2] + l / 2, law = restitution(0.5)),
    reduce(euler_poincare(r), symmetry(vertical), name = Reduced),
)]
struct Top {
    m: f64,
    l: f64,
    g: f64,
}

fn main() {}
