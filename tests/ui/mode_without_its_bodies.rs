use routh::prelude::*;

/// A mode with its own coordinates does not take the top-level bodies: it declares its own.
#[derive(Mechanics)]
#[mechanics(
    coordinates(th),
    frame(f = rot_y(th)),
    body(name = rod, mass = m, centre = f * [0, 0, -l], frame = f, inertia = diag(1, 1, 1)),
    mode(pinned),
    mode(flying, coordinates(x, z, th)),
    transition(pinned -> flying, guard = 1 - t, law = reset(x = -l * th.sin(), z = -l * th.cos())),
)]
struct Rod {
    m: f64,
    l: f64,
}

fn main() {}
