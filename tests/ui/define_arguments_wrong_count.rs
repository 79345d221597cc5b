use routh::prelude::*;

/// A define with arguments called with too few.
#[derive(Mechanics)]
#[mechanics(
    coordinates(q),
    define(tip(f, d) = f * [0, 0, d]),
    particle(name = bob, mass = m, at = tip(rot_x(q))),
)]
struct Pendulum {
    m: f64,
}

fn main() {}
