use routh::prelude::*;

/// A particle has no frame: it cannot roll.
#[derive(Mechanics)]
#[mechanics(
    coordinates(x, y, psi, theta, phi),
    frame(lean = rot_z(psi) * rot_x(theta), f = lean * rot_y(phi)),
    particle(name = wheel, mass = m, at = [x, y, r]),
    rolling(name = ground, body = wheel, sphere = r),
)]
struct Coin {
    m: f64,
    r: f64,
}

fn main() {}
