use routh::prelude::*;

/// One velocity for a sleigh whose blade leaves two free.
#[derive(Mechanics)]
#[mechanics(
    coordinates(x, y, th),
    lagrangian = m / 2 * (dot(x).powi(2) + dot(y).powi(2)) + i / 2 * dot(th).powi(2),
    constraint(blade = dot(y) * th.cos() - dot(x) * th.sin() - a * dot(th)),
    reduce(nonholonomic(x, y), velocities(th)),
)]
struct Sleigh {
    m: f64,
    i: f64,
    a: f64,
}

fn main() {}
