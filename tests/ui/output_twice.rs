use routh::prelude::*;

#[derive(Mechanics)]
#[mechanics(
    coordinates(x),
    lagrangian = m / 2 * dot(x).powi(2),
    output(p = m * dot(x)),
    output(p = x),
)]
struct Free {
    m: f64,
}

fn main() {}
