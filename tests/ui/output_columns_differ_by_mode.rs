use routh::prelude::*;

#[derive(Mechanics)]
#[mechanics(
    coordinates(y),
    lagrangian = m / 2 * dot(y).powi(2) - m * g * y,
    mode(flight, define(p = y), impact(name = floor, guard = y, law = restitution(e))),
    mode(rest, define(p = [y, 0, 0]), holonomic(contact = y)),
    transition(rest -> flight, name = liftoff, guard = multiplier(contact), law = map()),
    output(position = p),
)]
struct Ball {
    m: f64,
    g: f64,
    e: f64,
}

fn main() {}
