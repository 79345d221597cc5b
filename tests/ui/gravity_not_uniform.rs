use routh::prelude::*;

/// `gravity` is a uniform field: one that varies with a coordinate is a force, not this item.
#[derive(Mechanics)]
#[mechanics(
    coordinates(x, z),
    particle(name = p, mass = m, at = [x, 0, z]),
    gravity = [0, 0, -x],
)]
struct Particle {
    m: f64,
}

fn main() {}
