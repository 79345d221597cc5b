use routh::prelude::*;

/// `multiplier(c)` in an output names a constraint of the model.
#[derive(Mechanics)]
#[mechanics(
    coordinates(x, y),
    lagrangian = m / 2 * (dot(x).powi(2) + dot(y).powi(2)) - m * g * y,
    holonomic(rod = x.powi(2) + y.powi(2) - 1),
    output(tension = multiplier(rdo)),
)]
struct Pendulum {
    m: f64,
    g: f64,
}

fn main() {}
