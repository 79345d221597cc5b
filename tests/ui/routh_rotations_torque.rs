use routh::prelude::*;

/// A torque on the body changes its spatial angular momentum: no Routh reduction by rotations
/// (the equations in ω are still reducible with `euler_poincare(r)`).
#[derive(Mechanics)]
#[mechanics(
    orientation(r),
    body(name = craft, mass = m, centre = [0, 0, 0], frame = r, inertia = diag(1, 2, 3)),
    force(r = [0, 0, tau]),
    reduce(routh(r), name = CraftRouth),
)]
struct Craft {
    m: f64,
    tau: f64,
}

fn main() {}
