use routh::prelude::*;

/// A heavy top pinned at its tip: gravity turns the spatial angular momentum about every
/// horizontal axis, so the rotations of the top are not a symmetry and there is no Routh
/// reduction by all of them (the rotations about the vertical alone are abelian: Euler angles and
/// `routh(phi)`).
#[derive(Mechanics)]
#[mechanics(
    orientation(r),
    body(name = top, mass = m, centre = r * [0, 0, l], frame = r, inertia = diag(a, a, c)),
    gravity = [0, 0, -g],
    reduce(routh(r), name = TopRouth),
)]
struct Top {
    m: f64,
    l: f64,
    a: f64,
    c: f64,
    g: f64,
}

fn main() {}
