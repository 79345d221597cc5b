use routh::prelude::*;

/// A wall at the action's budget with Newton's law along the guard's normal: the normal has no
/// part in the coordinates, so there is no law for the guard's rate.
#[derive(Mechanics)]
#[mechanics(
    coordinates(x),
    action(z),
    lagrangian = dot(x).powi(2) / 2 - x.powi(2) / 2 + c * z,
    impact(name = wall, guard = zmax - z, law = restitution(e)),
)]
struct Budget {
    c: f64,
    zmax: f64,
    e: f64,
}

fn main() {}
