use routh::prelude::*;

/// A holonomic constraint that ties a coordinate to the action variable: the action is not a
/// coordinate, so no constraint force can hold it.
#[derive(Mechanics)]
#[mechanics(
    coordinates(x, y),
    action(z),
    lagrangian = (dot(x).powi(2) + dot(y).powi(2)) / 2 - y - gamma * z,
    holonomic(c = x - z),
)]
struct Tied {
    gamma: f64,
}

fn main() {}
