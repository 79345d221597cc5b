use routh::prelude::*;

/// Chaplygin's sleigh in the velocities (ẋ, θ̇): its equations see the heading, which cannot be dropped.
#[derive(Mechanics)]
#[mechanics(
    coordinates(x, y, th),
    lagrangian = m / 2 * (dot(x).powi(2) + dot(y).powi(2)) + i / 2 * dot(th).powi(2),
    constraint(blade = dot(y) * th.cos() - dot(x) * th.sin() - a * dot(th)),
    reduce(nonholonomic(x, y, th), velocities(x, th)),
)]
struct Sleigh {
    m: f64,
    i: f64,
    a: f64,
}

fn main() {}
