use routh::prelude::*;

#[derive(Mechanics)]
#[mechanics(
    coordinates(x),
    lagrangian = m / 2 * dot(x).powi(2),
    dynamics = dense,
    dynamics = recursive,
)]
pub struct Free {
    pub m: f64,
}

fn main() {}
