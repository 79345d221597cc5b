use routh::prelude::*;

/// The Lie group variational integrator does not derive discrete momentum maps yet.
#[derive(Mechanics)]
#[mechanics(
    orientation(b),
    body(name = top, mass = m, centre = b * [0, 0, l], frame = b, inertia = diag(a, a, c)),
    gravity = [0, 0, -g],
    symmetry(vertical = rotation(b, [0, 0, 1])),
    discrete(rule = midpoint),
)]
struct Top {
    m: f64,
    l: f64,
    a: f64,
    c: f64,
    g: f64,
}

fn main() {}
