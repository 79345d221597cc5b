use routh::prelude::*;

// M by columns is ∂p/∂q̇ along a, which a contact Lagrangian (whose equations carry ∂L/∂z) does not
// take: `dynamics = columns` is refused, not silently ignored.
#[derive(Mechanics)]
#[mechanics(
    coordinates(x),
    action(z),
    lagrangian = m / 2 * dot(x).powi(2) - k / 2 * x.powi(2) - gamma * z,
    dynamics = columns,
)]
pub struct Damped {
    pub m: f64,
    pub k: f64,
    pub gamma: f64,
}

fn main() {}
