use routh::prelude::*;

#[derive(Mechanics)]
#[mechanics(
    coordinates(x, y),
    lagrangian = m / 2 * (dot(x).powi(2) + dot(y).powi(2)) - m * g * y,
    impact(name = floor, guard = y, law = restitution(dy: e, dx * dx: 0)),
)]
struct Ball {
    m: f64,
    g: f64,
    e: f64,
}

fn main() {}
