use routh::prelude::*;

/// Routh reduction over a cyclic coordinate would keep the orientation state, which reduced
/// models cannot carry yet; reducing by the orientation's rotations (`routh(r)`) is supported.
#[derive(Mechanics)]
#[mechanics(
    coordinates(phi),
    orientation(r),
    lagrangian = dot(phi).powi(2) / 2 + (omega(r)[0].powi(2) + omega(r)[1].powi(2) + omega(r)[2].powi(2)) / 2,
    reduce(routh(phi), name = PhiRouth),
)]
struct Spinner {
    m: f64,
}

fn main() {}
