use routh::prelude::*;

#[derive(Mechanics)]
#[mechanics(
    coordinates(y),
    lagrangian = m / 2 * dot(y).powi(2) - m * g * y,
    mode(flight, impact(name = floor, guard = y, law = restitution(e))),
    mode(rest, holonomic(contact = y), output(height = y)),
    transition(rest -> flight, name = liftoff, guard = multiplier(contact), law = map()),
)]
struct Ball {
    m: f64,
    g: f64,
    e: f64,
}

fn main() {}
