use routh::prelude::*;

#[derive(Mechanics)]
#[mechanics(
    coordinates(x),
    lagrangian = m / 2 * dot(x).powi(2),
    impact(name = wall, guard = x, law = restitution(1)),
    impact(name = wall, guard = 1 - x, law = restitution(1)),
)]
struct Box1 {
    m: f64,
}

fn main() {}
