use routh::prelude::*;

/// `omega(...)` on the left of a reset names an orientation, not an ordinary coordinate.
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
    transition(flight -> rolling, name = land, guard = z - 1, law = reset(omega(x) = [0, 0, 0])),
)]
struct Ball {
    m: f64,
}

fn main() {}
