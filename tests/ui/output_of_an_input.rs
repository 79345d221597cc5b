use routh::prelude::*;

#[derive(Mechanics)]
#[mechanics(
    coordinates(x),
    input(u),
    lagrangian = m / 2 * dot(x).powi(2),
    force(x = u),
    output(power = u * dot(x)),
)]
struct Pushed {
    m: f64,
}

fn main() {}
