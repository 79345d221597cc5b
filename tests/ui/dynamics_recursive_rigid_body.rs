use routh::prelude::*;

// Two bodies moved by the same joints that do not turn together: no rigid link per joint.
#[derive(Mechanics)]
#[mechanics(
    coordinates(phi, theta),
    frame(b = rot_z(phi) * rot_x(theta), e = rot_x(theta) * rot_z(phi)),
    body(name = top, mass = m, centre = b * [0, 0, l], frame = b, inertia = diag(a, a, c)),
    body(name = vane, mass = m, centre = e * [0, 0, l], frame = e, inertia = diag(a, a, c)),
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
