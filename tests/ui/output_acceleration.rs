use routh::prelude::*;

#[derive(Mechanics)]
#[mechanics(
    coordinates(x),
    lagrangian = m / 2 * dot(x).powi(2) - k / 2 * x.powi(2),
    output(force = m * dot(dot(x))),
)]
struct Spring {
    m: f64,
    k: f64,
}

fn main() {}
