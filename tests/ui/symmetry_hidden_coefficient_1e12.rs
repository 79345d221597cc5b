// A near-symmetry hidden behind a trigonometric identity: sin 2φ − 2 sin φ cos φ ≡ 0, but φ/1000000000000.0
// is an ordinary (if small) term — with k = 1e12 an O(1) torque. It must not pass as a symmetry.
use routh::prelude::*;

#[derive(Mechanics)]
#[mechanics(
    coordinates(r, phi),
    lagrangian = m / 2 * (dot(r).powi(2) + (r * dot(phi)).powi(2))
        - k * ((2 * phi).sin() - 2 * phi.sin() * phi.cos() + phi / 1000000000000.0),
    symmetry(cyclic(phi)),
)]
struct Hidden {
    m: f64,
    k: f64,
}

fn main() {}
