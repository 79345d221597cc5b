use routh::prelude::*;

/// A define with arguments that calls itself.
#[derive(Mechanics)]
#[mechanics(
    coordinates(q),
    define(chain(v) = rot_x(q) * chain(v)),
    particle(name = bob, mass = m, at = chain([0, 0, 1])),
)]
struct Pendulum {
    m: f64,
}

fn main() {}
