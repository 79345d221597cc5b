use routh::prelude::*;

// The quaternion of `r` is the state's `r_w`, `r_x`, `r_y`, `r_z`: a coordinate `r_x` would be a
// second column of that name.
#[derive(Mechanics)]
#[mechanics(
    coordinates(r_x),
    orientation(r),
    body(name = brick, mass = m, centre = [r_x, 0, 0], frame = r, inertia = diag(1, 2, 3)),
)]
struct Brick {
    m: f64,
}

fn main() {}
