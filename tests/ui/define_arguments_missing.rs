use routh::prelude::*;

/// A define with arguments used as a value.
#[derive(Mechanics)]
#[mechanics(
    coordinates(q),
    define(tip(d) = rot_x(q) * [0, 0, d]),
    particle(name = bob, mass = m, at = tip),
)]
struct Pendulum {
    m: f64,
}

fn main() {}
