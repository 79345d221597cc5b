use routh::prelude::*;

#[derive(Mechanics)]
#[mechanics(
    coordinates(x),
    lagrangian = m / 2 * dot(x).powi(2) - k / 2 * x.powi(2),
    output(e = energy(), excess = energy() - k),
)]
struct Spring {
    m: f64,
    k: f64,
}

fn main() {}
