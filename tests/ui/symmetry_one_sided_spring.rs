use routh::prelude::*;

/// A one-sided spring, 2k·max(0, x − 3) written as k(|x − 3| + x − 3): no force for x < 3, so a
/// zero test that samples only near the origin took x for cyclic. It is not: the symmetry is a
/// compile error.
#[derive(Mechanics)]
#[mechanics(
    coordinates(x, y),
    lagrangian = m / 2 * (dot(x).powi(2) + dot(y).powi(2)) - k * ((x - 3).powi(2).sqrt() + x - 3),
    symmetry(cyclic(x)),
    reduce(routh(x)),
)]
struct OneSided {
    m: f64,
    k: f64,
}

fn main() {}
