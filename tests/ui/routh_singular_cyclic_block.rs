use routh::prelude::*;

// M = [[m, b], [b, 0]] is regular, but the cyclic block ∂²L/∂φ̇² vanishes, so μ = ∂L/∂φ̇
// cannot be solved for φ̇.
#[derive(Mechanics)]
#[mechanics(
    coordinates(r, phi),
    lagrangian = m / 2 * dot(r).powi(2) + b * dot(r) * dot(phi) - k / 2 * r.powi(2),
    reduce(routh(phi)),
)]
struct Coupled {
    m: f64,
    b: f64,
    k: f64,
}

fn main() {}
