use routh::prelude::*;

/// A spring's rest angle without the spring.
#[derive(Mechanics)]
#[mechanics(
    joint(name = swing, kind = revolute, child = rod, axis = [0, 1, 0], mass = m, centre = [0, 0, -l], rest = 0.2),
    gravity = [0, 0, -g],
)]
struct Pendulum {
    m: f64,
    l: f64,
    g: f64,
}

fn main() {}
