use routh::prelude::*;

/// A mode with coordinates of its own inherits the top level's forces (it declares none): a force
/// on a coordinate the mode does not have is an error, not a force silently dropped.
#[derive(Mechanics)]
#[mechanics(
    coordinates(y),
    lagrangian = m / 2 * dot(y).powi(2) - m * g * y,
    force(y = -c * dot(y)),
    mode(fall),
    mode(swing, coordinates(th), lagrangian = m / 2 * dot(th).powi(2) + m * g * th.cos()),
    transition(fall -> swing, name = catch, guard = y, law = reset(th = 0, dot(th) = dot(y))),
)]
struct Catch {
    m: f64,
    g: f64,
    c: f64,
}

fn main() {}
