// Inputs given to a model that has none: a compile error naming the model, not inputs ignored.
use routh::prelude::*;

#[derive(Mechanics)]
#[mechanics(coordinates(x), lagrangian = m / 2 * dot(x).powi(2) - k / 2 * x.powi(2))]
struct Spring {
    m: f64,
    k: f64,
}

fn main() {
    let s = Spring { m: 1.0, k: 4.0 };
    let _ = s.run(s.state([1.0], [0.0])).span(0.0..1.0).inputs([2.0]).go();
}
