// A discrete run needs its step and its number of steps: a compile error for each that is missing.
use routh::prelude::*;

#[derive(Mechanics)]
#[mechanics(
    coordinates(x),
    lagrangian = m / 2 * dot(x).powi(2) - k / 2 * x.powi(2),
    discrete(rule = midpoint),
)]
struct Oscillator {
    m: f64,
    k: f64,
}

fn main() {
    let o = Oscillator { m: 1.0, k: 1.0 };
    let _ = o.run_discrete(o.state([1.0], [0.0])).step(0.1).go();
    let _ = o.run_discrete(o.state([1.0], [0.0])).steps(10).go();
}
