use routh::prelude::*;

/// An inertia tensor that is not symmetric.
#[derive(Mechanics)]
#[mechanics(
    coordinates(q),
    body(name = rod, mass = m, centre = [0, 0, 0], frame = rot_z(q), inertia = [[1, 0.1, 0], [0, 1, 0], [0, 0, 2]]),
)]
struct Rod {
    m: f64,
}

fn main() {}
