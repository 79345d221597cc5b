use routh::prelude::*;

#[derive(Mechanics)]
#[mechanics(
    coordinates(y, alpha),
    lagrangian = m / 2 * (dot(y).powi(2) + (r * dot(alpha)).powi(2)) - m * g * y,
    mode(left),
    mode(right),
    transition(left -> rihgt, guard = y - alpha.sin() / 2, law = restitution(1)),
)]
struct Rod {
    m: f64,
    r: f64,
    g: f64,
}

fn main() {}
