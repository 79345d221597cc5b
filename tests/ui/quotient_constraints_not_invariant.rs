use routh::prelude::*;

/// The rover on a floor that drifts sideways at a rate growing with x (not with the distance from
/// the centre): its lateral constraint is not invariant under the rotations the reduction names.
#[derive(Mechanics)]
#[mechanics(
    coordinates(x, y, th, v1, v2),
    lagrangian = mass / 2 * (dot(x).powi(2) + dot(y).powi(2)) + jr / 2 * dot(th).powi(2)
        + jw / 2 * (dot(v1).powi(2) + dot(v2).powi(2)),
    constraint(
        lateral = dy * th.cos() - dx * th.sin() - drift * x * dt,
        wheel1 = dx * th.cos() + dy * th.sin() - b * dth - rw * dv1,
        wheel2 = dx * th.cos() + dy * th.sin() + b * dth - rw * dv2,
    ),
    symmetry(rotation = generator(x = -y, y = x, th = 1)),
    reduce(
        nonholonomic(th, v1, v2),
        shape(rho = (x.powi(2) + y.powi(2)).sqrt(), psi = y.atan2(x) - th),
        inverse(x = rho * (psi + th).cos(), y = rho * (psi + th).sin()),
        symmetry(rotation),
        velocities(v1, v2),
    ),
)]
struct Rover {
    mass: f64,
    jr: f64,
    jw: f64,
    rw: f64,
    b: f64,
    drift: f64,
}

fn main() {}
