use routh::prelude::*;

/// An inertia tensor with a negative moment.
#[derive(Mechanics)]
#[mechanics(
    coordinates(q),
    body(name = rod, mass = m, centre = [0, 0, 0], frame = rot_z(q), inertia = diag(1, -1, 2)),
)]
struct Rod {
    m: f64,
}

fn main() {}
