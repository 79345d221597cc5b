// Three independent mistakes in one model: each is reported, with its own span, in one build.
use routh::prelude::*;

#[derive(Mechanics)]
#[mechanics(
    coordinates(x, y),
    lagrangian = m / 2 * (dot(x).powi(2) + dot(y).powi(2)) - k * y,
    force(z = -b * dot(x)),
    impact(name = floor, guard = y, law = restitution(e)),
    impact(name = floor, guard = x + 1, law = restitution(e)),
)]
struct Particle {
    m: f64,
    g: f64,
    b: f64,
    e: f64,
}

fn main() {}
