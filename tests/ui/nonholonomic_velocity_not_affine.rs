use routh::prelude::*;

/// A reduced velocity quadratic in the velocities.
#[derive(Mechanics)]
#[mechanics(
    coordinates(x, y, th),
    lagrangian = m / 2 * (dot(x).powi(2) + dot(y).powi(2)) + i / 2 * dot(th).powi(2),
    constraint(blade = dot(y) * th.cos() - dot(x) * th.sin() - a * dot(th)),
    reduce(nonholonomic(x, y), velocities(th, w = dot(x).powi(2))),
)]
struct Sleigh {
    m: f64,
    i: f64,
    a: f64,
}

fn main() {}
