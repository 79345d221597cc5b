// A model with inputs runs driven by them: a run without `.inputs(u)` (or `.sampled(...)`) is a
// compile error that says how to drive it, not a run at zero inputs.
use routh::prelude::*;

#[derive(Mechanics)]
#[mechanics(coordinates(x), input(u), lagrangian = m / 2 * dot(x).powi(2), force(x = u))]
struct Pushed {
    m: f64,
}

fn main() {
    let p = Pushed { m: 1.0 };
    let _ = p.run(p.state([0.0], [0.0])).span(0.0..1.0).go();
}
