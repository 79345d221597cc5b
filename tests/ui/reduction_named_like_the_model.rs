use routh::prelude::*;

#[derive(Mechanics)]
#[mechanics(
    coordinates(r, phi),
    lagrangian = m / 2 * (dot(r).powi(2) + (r * dot(phi)).powi(2)) + k / r,
    reduce(routh(phi), name = Kepler),
)]
struct Kepler {
    m: f64,
    k: f64,
}

fn main() {}
