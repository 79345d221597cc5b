use routh::prelude::*;

/// Two shape coordinates that are functions of one another: the shape map is not of full rank.
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
        shape(r2 = x.powi(2) + y.powi(2), s2 = 2 * (x.powi(2) + y.powi(2))),
        inverse(x = r2.sqrt(), y = s2),
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
