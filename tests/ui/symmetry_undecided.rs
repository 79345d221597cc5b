use routh::prelude::*;

/// Nine absolute values in the invariance condition: 512 branches are more than the zero test
/// splits, so the symmetry is refused with the reason, not guessed.
#[derive(Mechanics)]
#[mechanics(
    coordinates(x, y),
    lagrangian = (dot(x).powi(2) + dot(y).powi(2)) / 2
        - k * ((x - 1).powi(2).sqrt() + (x - 2).powi(2).sqrt() + (x - 3).powi(2).sqrt() + (x - 4).powi(2).sqrt()
            + (x - 5).powi(2).sqrt() + (x - 6).powi(2).sqrt() + (x - 7).powi(2).sqrt() + (x - 8).powi(2).sqrt()
            + (x - 9).powi(2).sqrt()),
    symmetry(shift = generator(x = 1)),
)]
struct Kinks {
    k: f64,
}

fn main() {}
