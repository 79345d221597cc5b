use routh::prelude::*;

/// The Lie group variational integrator has no discrete reduction yet (a free body reduced by
/// Euler–Poincaré is reduced only in continuous time).
#[derive(Mechanics)]
#[mechanics(
    orientation(r),
    body(name = brick, mass = m, centre = [0, 0, 0], frame = r, inertia = diag(i1, i2, i3)),
    reduce(euler_poincare(r), name = BrickEuler),
    discrete(rule = midpoint),
)]
struct Brick {
    m: f64,
    i1: f64,
    i2: f64,
    i3: f64,
}

fn main() {}
