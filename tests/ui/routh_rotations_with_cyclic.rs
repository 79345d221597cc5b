use routh::prelude::*;

/// A reduction by the rotations of an orientation takes that orientation alone.
#[derive(Mechanics)]
#[mechanics(
    coordinates(phi),
    orientation(r),
    lagrangian = dot(phi).powi(2) / 2 + (omega(r)[0].powi(2) + omega(r)[1].powi(2) + omega(r)[2].powi(2)) / 2,
    reduce(routh(r, phi), name = BothRouth),
)]
struct Both {
    m: f64,
}

fn main() {}
