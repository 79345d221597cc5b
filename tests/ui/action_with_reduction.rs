use routh::prelude::*;

#[derive(Mechanics)]
#[mechanics(
    coordinates(r, phi),
    action(z),
    lagrangian = m / 2 * (dot(r).powi(2) + (r * dot(phi)).powi(2)) - k / 2 * r.powi(2) - gamma * z,
    symmetry(cyclic(phi)),
    reduce(routh(phi)),
)]
struct Planar {
    m: f64,
    k: f64,
    gamma: f64,
}

fn main() {}
