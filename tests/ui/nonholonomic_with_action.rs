use routh::prelude::*;

/// A damped sleigh (contact Lagrangian): its nonholonomic reduction is not generated yet.
#[derive(Mechanics)]
#[mechanics(
    coordinates(x, y, th),
    action(z),
    lagrangian = m / 2 * (dot(x).powi(2) + dot(y).powi(2)) + i / 2 * dot(th).powi(2) - gamma * z,
    constraint(blade = dot(y) * th.cos() - dot(x) * th.sin() - a * dot(th)),
    reduce(nonholonomic(x, y), velocities(th, v = th.cos() * dot(x) + th.sin() * dot(y))),
)]
struct Sleigh {
    m: f64,
    i: f64,
    a: f64,
    gamma: f64,
}

fn main() {}
