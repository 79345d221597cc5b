// A run needs its time span before it goes: a compile error that says so, not a default span.
use routh::prelude::*;

#[derive(Mechanics)]
#[mechanics(coordinates(x), lagrangian = m / 2 * dot(x).powi(2) - k / 2 * x.powi(2))]
struct Spring {
    m: f64,
    k: f64,
}

fn main() {
    let s = Spring { m: 1.0, k: 4.0 };
    let _ = s.run(s.state([1.0], [0.0])).go();
}
