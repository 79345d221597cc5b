use routh::prelude::*;

/// A particle of zero mass: it moves nothing (a body of zero mass has a rotational inertia).
#[derive(Mechanics)]
#[mechanics(
    coordinates(q),
    particle(name = bob, mass = 0, at = [l * q.sin(), 0, -l * q.cos()]),
    gravity = [0, 0, -g],
)]
struct Pendulum {
    l: f64,
    g: f64,
}

fn main() {}
