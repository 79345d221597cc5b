use routh::prelude::*;

#[derive(Mechanics)]
#[mechanics(
    coordinates(x, phi),
    lagrangian = m / 2 * dot(x).powi(2) + i / 2 * dot(phi).powi(2),
    constraint(roll = dx - r * dphii),
)]
struct Disk {
    m: f64,
    i: f64,
    r: f64,
}

fn main() {}
