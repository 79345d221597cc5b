use routh::prelude::*;

#[derive(Mechanics)]
#[mechanics(
    coordinates(r, phi),
    lagrangian = m / 2 * (dot(r).powi(2) + (r * dot(phi)).powi(2)) + k / r - e * phi.cos(),
    reduce(routh(phi)),
)]
struct Tilted {
    m: f64,
    k: f64,
    e: f64,
}

fn main() {}
