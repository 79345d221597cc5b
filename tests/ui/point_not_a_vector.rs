use routh::prelude::*;

/// A point that is a scalar.
#[derive(Mechanics)]
#[mechanics(
    coordinates(q),
    point(tip = l * q.sin()),
    particle(name = bob, mass = m, at = [l * q.sin(), -l * q.cos(), 0]),
)]
struct Pendulum {
    m: f64,
    l: f64,
}

fn main() {}
