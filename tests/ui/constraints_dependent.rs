use routh::prelude::*;

#[derive(Mechanics)]
#[mechanics(
    coordinates(x, y, th),
    lagrangian = m / 2 * (dot(x).powi(2) + dot(y).powi(2)) + j / 2 * dot(th).powi(2),
    constraint(skate = th.sin() * dx - th.cos() * dy, again = 2 * th.cos() * dy - 2 * th.sin() * dx),
)]
struct Skate {
    m: f64,
    j: f64,
}

fn main() {}
