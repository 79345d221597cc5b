use routh::prelude::*;

#[derive(Mechanics)]
#[mechanics(
    coordinates(th),
    lagrangian = m / 2 * dot(th).powi(2),
    output(attitude = rot_z(th), angle = th),
)]
struct Rotor {
    m: f64,
}

fn main() {}
