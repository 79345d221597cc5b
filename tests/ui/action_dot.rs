use routh::prelude::*;

// ż is L by Herglotz's principle, not a free velocity.
#[derive(Mechanics)]
#[mechanics(coordinates(x), action(z), lagrangian = m / 2 * dot(x).powi(2) - gamma * dot(z))]
struct Damped {
    m: f64,
    gamma: f64,
}

fn main() {}
