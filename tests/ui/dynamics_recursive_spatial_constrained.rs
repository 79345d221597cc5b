use routh::prelude::*;

// Bodies turning in space with a constraint: their saddle point is solved with the dense M.
#[derive(Mechanics)]
#[mechanics(
    coordinates(phi, theta),
    frame(b = rot_z(phi) * rot_x(theta)),
    body(name = dish, mass = m, centre = b * [0, 0, l], frame = b, inertia = diag(a, a, c)),
    holonomic(level = theta - phi / 2),
    gravity = [0, 0, -g],
    dynamics = recursive,
)]
pub struct Dish {
    pub m: f64,
    pub l: f64,
    pub a: f64,
    pub c: f64,
    pub g: f64,
}

fn main() {}
