use routh::prelude::*;

// Two pendulums hang from the same point, and a spring mass is moved by both angles at once:
// a and b are not ancestors of one another, so no tree holds them.
#[derive(Mechanics)]
#[mechanics(
    coordinates(x, a, b, c),
    define(
        xa = x + l * a.sin(), ya = -l * a.cos(),
        xb = x + l * b.sin(), yb = -l * b.cos(),
        xc = l * a.sin() + l * b.sin() + l * c.sin(),
    ),
    lagrangian = m / 2 * (dot(x).powi(2) + dot(xa).powi(2) + dot(ya).powi(2) + dot(xb).powi(2) + dot(yb).powi(2) + dot(xc).powi(2)),
    dynamics = recursive,
)]
pub struct Crossed {
    pub m: f64,
    pub l: f64,
}

fn main() {}
