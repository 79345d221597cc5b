use routh::prelude::*;

/// A driven Kepler problem with a Routh reduction: reduced systems carry no input signal yet.
#[derive(Mechanics)]
#[mechanics(
    coordinates(r, phi),
    input(u),
    lagrangian = m / 2 * (dot(r).powi(2) + (r * dot(phi)).powi(2)) + k / r,
    force(r = u),
    reduce(routh(phi)),
)]
struct Kepler {
    m: f64,
    k: f64,
}

fn main() {}
