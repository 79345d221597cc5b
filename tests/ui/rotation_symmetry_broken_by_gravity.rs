use routh::prelude::*;

/// Gravity breaks the rotations about horizontal axes: not a symmetry.
#[derive(Mechanics)]
#[mechanics(
    orientation(b),
    body(name = top, mass = m, centre = b * [0, 0, l], frame = b, inertia = diag(a, a, c)),
    gravity = [0, 0, -g],
    symmetry(horizontal = rotation(b, [1, 0, 0])),
)]
struct Top {
    m: f64,
    l: f64,
    a: f64,
    c: f64,
    g: f64,
}

fn main() {}
