use routh::prelude::*;

/// A cart with a pendulum whose bob runs on a rail: a tree with a constraint. Its field Jacobian
/// differentiates the saddle point with the dense M, so the recursion cannot be followed.
#[derive(Mechanics)]
#[mechanics(
    coordinates(x, a),
    define(xa = x + l * a.sin(), ya = -l * a.cos()),
    lagrangian = mc / 2 * dot(x).powi(2) + m / 2 * (dot(xa).powi(2) + dot(ya).powi(2)) - m * g * ya,
    constraint(rail = dot(xa) - v * dot(x)),
    dynamics = recursive,
    jacobian,
)]
struct Cart {
    mc: f64,
    m: f64,
    l: f64,
    g: f64,
    v: f64,
}

fn main() {}
