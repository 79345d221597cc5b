use routh::prelude::*;

/// A coordinate `dx` beside `x` shadows the differential `dx` of the one-form.
#[derive(Mechanics)]
#[mechanics(
    coordinates(x, dx),
    lagrangian = (dot(x).powi(2) + dot(dx).powi(2)) / 2,
    constraint(c = dx - r * dt),
)]
struct Shadow {
    r: f64,
}

fn main() {}
