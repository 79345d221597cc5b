use routh::prelude::*;

// π to 42 digits: more than an exact 128-bit mantissa holds (and an f64 keeps 17).
#[derive(Mechanics)]
#[mechanics(
    coordinates(th),
    lagrangian = m / 2 * dot(th).powi(2) - k * (th - 3.14159265358979323846264338327950288419716).powi(2),
)]
struct Pendulum {
    m: f64,
    k: f64,
}

fn main() {}
