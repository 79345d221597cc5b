use routh::prelude::*;

/// The modes share their orientations: a chart change carries the quaternion over and may give
/// only its angular velocity.
#[derive(Mechanics)]
#[mechanics(
    orientation(r),
    mode(flight,
        coordinates(x, z),
        body(name = ball, mass = m, centre = [x, 0, z], frame = r, inertia = diag(1, 1, 1)),
    ),
    mode(rolling,
        coordinates(x),
        body(name = ball, mass = m, centre = [x, 0, 1], frame = r, inertia = diag(1, 1, 1)),
    ),
    transition(flight -> rolling, name = land, guard = z - 1, law = reset(r = rot_x(x))),
)]
struct Ball {
    m: f64,
}

fn main() {}
