use routh::prelude::*;

#[derive(Mechanics)]
#[mechanics(
    coordinates(y),
    lagrangian = m / 2 * dot(y).powi(2) - m * g * y,
    mode(flight),
    mode(rest, holonomic(contact = y)),
    transition(flight -> rest, guard = y, law = project),
    transition(rest -> flight, guard = multiplier(contatc), law = map()),
)]
struct Ball {
    m: f64,
    g: f64,
}

fn main() {}
