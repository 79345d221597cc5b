use routh::prelude::*;

#[derive(Mechanics)]
#[mechanics(
    coordinates(x),
    lagrangian = m / 2 * dot(x).powi(2),
    mode(run),
    mode(rest),
    transition(run -> rest, guard = -x, law = map()),
)]
struct Particle {
    m: f64,
}

fn main() {}
