use routh::prelude::*;

#[derive(Mechanics)]
#[mechanics(
    coordinates(x, y),
    lagrangian = m / 2 * (dot(x).powi(2) + dot(y).powi(2)),
    symmetry(rotation = generator(x = -y, yy = x)),
)]
struct Free {
    m: f64,
}

fn main() {}
