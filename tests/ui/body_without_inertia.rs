use routh::prelude::*;

/// A body without an inertia tensor.
#[derive(Mechanics)]
#[mechanics(
    coordinates(q),
    body(name = rod, mass = m, centre = [0, 0, 0], frame = rot_z(q)),
)]
struct Rod {
    m: f64,
}

fn main() {}
