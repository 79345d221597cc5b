use routh::prelude::*;

#[derive(Mechanics)]
#[mechanics(crate = routh, crate = routh, coordinates(x), lagrangian = m / 2 * dot(x).powi(2))]
struct Free {
    m: f64,
}

fn main() {}
