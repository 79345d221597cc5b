use routh::prelude::*;

#[derive(Mechanics)]
#[mechanics(
    coordinates(y),
    lagrangian = m / 2 * dot(y).powi(2) - m * g * y,
    impact(name = floor, guard = y, law = reset(dot(y) = -dot(y))),
)]
struct Ball {
    m: f64,
    g: f64,
}

fn main() {}
