use routh::prelude::*;

#[derive(Mechanics)]
#[mechanics(
    coordinates(x),
    lagrangian = m / 2 * dot(x).powi(2),
    force(x = -c * dot(x), x = f0 * t.cos()),
)]
struct Driven {
    m: f64,
    c: f64,
    f0: f64,
}

fn main() {}
