use routh::prelude::*;

/// A ball of radius −1 would sit below the plane it rolls on; a disk of radius 0 is no wheel.
#[derive(Mechanics)]
#[mechanics(
    coordinates(x, y),
    orientation(r),
    body(name = ball, mass = m, centre = [x, y, 1], frame = r, inertia = diag(i, i, i)),
    rolling(name = ground, body = ball, sphere = -1),
)]
struct Ball {
    m: f64,
    i: f64,
}

#[derive(Mechanics)]
#[mechanics(
    coordinates(x, y, psi, phi),
    frame(f = rot_z(psi) * rot_y(phi)),
    body(name = wheel, mass = m, centre = [x, y, 0], frame = f, inertia = diag(i, j, i)),
    rolling(name = ground, body = wheel, disk = 0, axis = [0, 1, 0]),
)]
struct Wheel {
    m: f64,
    i: f64,
    j: f64,
}

fn main() {}
