use routh::prelude::*;

/// `euler_poincare(r)` with `symmetry(s)`: `s` must be a rotation of the orientation.
#[derive(Mechanics)]
#[mechanics(
    coordinates(x),
    orientation(r),
    body(name = top, mass = m, centre = [x, 0, 0], frame = r, inertia = diag(1, 1, 2)),
    symmetry(slide = generator(x = 1)),
    reduce(euler_poincare(r), symmetry(slide), name = Reduced),
)]
struct Top {
    m: f64,
}

fn main() {}
