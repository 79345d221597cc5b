use routh::prelude::*;

/// A body's inertia in its own frame, and its mass, are constants: neither may depend on the state.
#[derive(Mechanics)]
#[mechanics(
    coordinates(x, q),
    body(name = rod, mass = m, centre = [x, 0, 0], frame = rot_z(q), inertia = diag(1 + x.powi(2), 2, 3)),
)]
struct Rod {
    m: f64,
}

#[derive(Mechanics)]
#[mechanics(
    coordinates(x),
    particle(name = bead, mass = m * dot(x), at = [x, 0, 0]),
)]
struct Bead {
    m: f64,
}

fn main() {}
