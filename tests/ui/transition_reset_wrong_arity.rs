use routh::prelude::*;

#[derive(Mechanics)]
#[mechanics(
    mode(stance,
        coordinates(alpha, l),
        lagrangian = m / 2 * (dot(l).powi(2) + (l * dot(alpha)).powi(2)) - m * g * l * alpha.cos() - k / 2 * (l - l0).powi(2),
    ),
    mode(flight,
        coordinates(x, y),
        lagrangian = m / 2 * (dot(x).powi(2) + dot(y).powi(2)) - m * g * y,
    ),
    transition(stance -> flight, guard = l0 - l, law = reset(
        x = -l * alpha.sin(),
        y = l * alpha.cos(),
        dot(y) = dot(l) * alpha.cos() - l * dot(alpha) * alpha.sin(),
    )),
)]
struct Hopper {
    m: f64,
    g: f64,
    k: f64,
    l0: f64,
}

fn main() {}
