use routh::prelude::*;

/// The guide's rolling disk with a Routh reduction by its rolling angle: the rolling constraints
/// change the momentum conjugate to `phi`, so reducing by it would simulate another model.
#[derive(Mechanics)]
#[mechanics(
    coordinates(x, y, th, phi),
    lagrangian = m / 2 * (dot(x).powi(2) + dot(y).powi(2)) + i / 2 * dot(phi).powi(2) + j / 2 * dot(th).powi(2),
    constraint(roll_x = dx - r * th.cos() * dphi, roll_y = dy - r * th.sin() * dphi),
    symmetry(cyclic(phi)),
    reduce(routh(phi)),
)]
struct RollingDisk {
    m: f64,
    i: f64,
    j: f64,
    r: f64,
}

fn main() {}
