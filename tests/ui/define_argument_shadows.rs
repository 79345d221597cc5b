use routh::prelude::*;

/// An argument named like a coordinate.
#[derive(Mechanics)]
#[mechanics(
    coordinates(q),
    define(tip(q) = rot_x(q) * [0, 0, l]),
    particle(name = bob, mass = m, at = tip(q)),
)]
struct Pendulum {
    m: f64,
    l: f64,
}

fn main() {}
