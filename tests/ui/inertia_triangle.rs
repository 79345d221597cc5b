use routh::prelude::*;

/// Principal moments 1, 1, 3: no mass distribution has them (3 > 1 + 1).
#[derive(Mechanics)]
#[mechanics(
    coordinates(q),
    body(name = rod, mass = m, centre = [0, 0, 0], frame = rot_z(q), inertia = diag(1, 1, 3)),
)]
struct Rod {
    m: f64,
}

fn main() {}
