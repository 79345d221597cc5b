use routh::prelude::*;

// Rigid bodies are not part of the recursion yet.
#[derive(Mechanics)]
#[mechanics(
    coordinates(phi, theta, psi),
    frame(b = rot_z(phi) * rot_x(theta) * rot_z(psi)),
    body(name = top, mass = m, centre = b * [0, 0, l], frame = b, inertia = diag(a, a, c)),
    gravity = [0, 0, -g],
    dynamics = recursive,
)]
pub struct Top {
    pub m: f64,
    pub l: f64,
    pub a: f64,
    pub c: f64,
    pub g: f64,
}

fn main() {}
