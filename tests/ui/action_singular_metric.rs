use routh::prelude::*;

// The kinetic metric W = ∂²L/∂q̇² of this contact Lagrangian is singular: L is only linear in
// dot(y) (through the action term z·ẏ).
#[derive(Mechanics)]
#[mechanics(
    coordinates(x, y),
    action(z),
    lagrangian = m / 2 * dot(x).powi(2) + z * dot(y) - k / 2 * y.powi(2) - gamma * z,
)]
struct Degenerate {
    m: f64,
    k: f64,
    gamma: f64,
}

fn main() {}
