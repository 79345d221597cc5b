use routh::prelude::*;

/// The ground is a fixed plane: its normal is a constant unit vector.
#[derive(Mechanics)]
#[mechanics(
    coordinates(x, y, psi, theta, phi),
    frame(lean = rot_z(psi) * rot_x(theta), f = lean * rot_y(phi)),
    body(name = wheel, mass = m, centre = [x, y, 0] + lean * [0, 0, r], frame = f, inertia = diag(1, 2, 1)),
    rolling(name = ground, body = wheel, disk = r, axis = [0, 1, 0], ground = [0, theta.sin(), 1]),
)]
struct Coin {
    m: f64,
    r: f64,
}

fn main() {}
