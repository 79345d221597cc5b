use routh::prelude::*;

/// Gravity without bodies to act on.
#[derive(Mechanics)]
#[mechanics(
    coordinates(y),
    lagrangian = m / 2 * dot(y).powi(2),
    gravity = [0, -g, 0],
)]
struct Fall {
    m: f64,
    g: f64,
}

fn main() {}
