use routh::prelude::*;

/// A disk's axis must be a unit vector in its body frame.
#[derive(Mechanics)]
#[mechanics(
    coordinates(x, y, psi, theta, phi),
    frame(lean = rot_z(psi) * rot_x(theta), f = lean * rot_y(phi)),
    body(name = wheel, mass = m, centre = [x, y, 0] + lean * [0, 0, r], frame = f, inertia = diag(1, 2, 1)),
    rolling(name = ground, body = wheel, disk = r, axis = [0, 2, 0]),
)]
struct Coin {
    m: f64,
    r: f64,
}

fn main() {}
