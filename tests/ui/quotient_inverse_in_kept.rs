use routh::prelude::*;

/// An inverse written in a kept coordinate instead of the shape coordinates.
#[derive(Mechanics)]
#[mechanics(
    coordinates(x, y, th, v1, v2),
    lagrangian = mass / 2 * (dot(x).powi(2) + dot(y).powi(2)) + jr / 2 * dot(th).powi(2)
        + jw / 2 * (dot(v1).powi(2) + dot(v2).powi(2)),
    constraint(
        lateral = dy * th.cos() - dx * th.sin(),
        wheel1 = dx * th.cos() + dy * th.sin() - b * dth - rw * dv1,
        wheel2 = dx * th.cos() + dy * th.sin() + b * dth - rw * dv2,
    ),
    symmetry(rotation = generator(x = -y, y = x, th = 1)),
    reduce(
        nonholonomic(th, v1, v2),
        shape(rho = (x.powi(2) + y.powi(2)).sqrt(), psi = y.atan2(x) - th),
        inverse(x = rho * (psi + th).cos(), y = x * (psi + th).tan()),
        velocities(v1, v2),
    ),
)]
struct Rover {
    mass: f64,
    jr: f64,
    jw: f64,
    rw: f64,
    b: f64,
}

fn main() {}
