use routh::prelude::*;

#[derive(Mechanics)]
#[mechanics(coordinates(x), input(m), lagrangian = m / 2 * dot(x).powi(2), force(x = m))]
struct Pushed {
    m: f64,
}

fn main() {}
