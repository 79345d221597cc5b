use routh::prelude::*;

/// A heavy top pinned at its tip: gravity's torque depends on the attitude, so the orientation
/// cannot be dropped (Euler–Poincaré reduces the free body only; the heavy top needs the vertical
/// in the body frame, the Lie–Poisson reduction by the rotations about the vertical).
#[derive(Mechanics)]
#[mechanics(
    orientation(r),
    body(name = top, mass = m, centre = r * [0, 0, l], frame = r, inertia = diag(a, a, c)),
    gravity = [0, 0, -g],
    reduce(euler_poincare(r), name = TopEuler),
)]
struct Top {
    m: f64,
    l: f64,
    a: f64,
    c: f64,
    g: f64,
}

fn main() {}
