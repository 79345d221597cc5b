use routh::prelude::*;

#[derive(Mechanics)]
#[mechanics(
    coordinates(x),
    lagrangian = m / 2 * dot(x).powi(2),
    mode(left),
    mode(right),
    transition(left -> right, guard = -x, law = project),
)]
struct Particle {
    m: f64,
}

fn main() {}
