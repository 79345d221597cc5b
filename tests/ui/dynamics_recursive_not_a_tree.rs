use routh::prelude::*;

// A double pendulum in relative angles: the second bob's velocity along dot(q1) depends on q2, so
// a position is not its parent's plus terms of one coordinate.
#[derive(Mechanics)]
#[mechanics(
    coordinates(q1, q2),
    define(x1 = l * q1.sin(), y1 = -l * q1.cos(), x2 = x1 + l * (q1 + q2).sin(), y2 = y1 - l * (q1 + q2).cos()),
    lagrangian = m / 2 * (dot(x1).powi(2) + dot(y1).powi(2) + dot(x2).powi(2) + dot(y2).powi(2)) - m * g * (y1 + y2),
    dynamics = recursive,
)]
pub struct Relative {
    pub m: f64,
    pub l: f64,
    pub g: f64,
}

fn main() {}
