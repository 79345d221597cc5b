use routh::prelude::*;

#[derive(Mechanics)]
#[mechanics(
    coordinates(x, y),
    lagrangian = m / 2 * (dot(x).powi(2) + dot(y).powi(2)) - m * g * y,
    holonomic(rail = y - x),
    constraint(rail = dx - dy),
)]
struct Bead {
    m: f64,
    g: f64,
}

fn main() {}
