use routh::prelude::*;

/// The force on the slider depends on the attitude (the height of the body's third axis): the
/// momentum balance holds, but the shape equation would see the attitude, so the rotations are not
/// a symmetry of the forced system.
#[derive(Mechanics)]
#[mechanics(
    coordinates(s),
    orientation(r),
    define(up = r * [0, 0, 1]),
    lagrangian = m * dot(s).powi(2) / 2
        + (omega(r)[0].powi(2) + omega(r)[1].powi(2) + omega(r)[2].powi(2)) / 2,
    force(s = -k * up[2]),
    reduce(routh(r), name = SliderRouth),
)]
struct Slider {
    m: f64,
    k: f64,
}

fn main() {}
