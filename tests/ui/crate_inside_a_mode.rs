use routh::prelude::*;

#[derive(Mechanics)]
#[mechanics(
    coordinates(y),
    lagrangian = m / 2 * dot(y).powi(2) - m * g * y,
    mode(up, crate = routh),
    mode(down),
    transition(up -> down, guard = y, law = restitution(1)),
)]
struct Ball {
    m: f64,
    g: f64,
}

fn main() {}
