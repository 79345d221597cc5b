use routh::prelude::*;

// Inputs drive a model through its forces, not its Lagrangian.
#[derive(Mechanics)]
#[mechanics(coordinates(x), input(u), lagrangian = m / 2 * dot(x).powi(2) - u * x)]
struct Pushed {
    m: f64,
}

fn main() {}
