use routh::prelude::*;

#[derive(Mechanics)]
#[mechanics(coordinates(x), lagrangian = m / 2 * dot(x).powi(2) - k * x.abs())]
struct VShaped {
    m: f64,
    k: f64,
}

fn main() {}
