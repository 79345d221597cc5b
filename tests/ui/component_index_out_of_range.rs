use routh::prelude::*;

/// A component index beyond the third.
#[derive(Mechanics)]
#[mechanics(
    coordinates(q),
    define(r = rot_z(q) * [l, 0, 0]),
    lagrangian = m / 2 * dot(r[3]).powi(2),
)]
struct Pendulum {
    m: f64,
    l: f64,
}

fn main() {}
