use routh::prelude::*;

/// Two vectors multiplied: a dot product was meant.
#[derive(Mechanics)]
#[mechanics(
    coordinates(x, y),
    define(r = [x, y, 0]),
    lagrangian = m / 2 * dot(r) * dot(r),
)]
struct Particle {
    m: f64,
}

fn main() {}
