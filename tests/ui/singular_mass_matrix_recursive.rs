use routh::prelude::*;

// The same degenerate model on the recursive path (M never formed): its factorisation along the
// tree y below x has the pivot m − m·m/m = 0 at x, at every state.
#[derive(Mechanics)]
#[mechanics(
    coordinates(x, y),
    define(s = x + y),
    lagrangian = m / 2 * dot(s).powi(2) - k / 2 * x.powi(2),
    dynamics = recursive,
)]
struct Degenerate {
    m: f64,
    k: f64,
}

fn main() {}
