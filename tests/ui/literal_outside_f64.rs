use routh::prelude::*;

// 1e-400 is below the smallest f64: the generated code would compute with 0.
#[derive(Mechanics)]
#[mechanics(
    coordinates(x),
    lagrangian = m / 2 * dot(x).powi(2) - 1e-400 * k * x.powi(2),
)]
struct Tiny {
    m: f64,
    k: f64,
}

fn main() {}
