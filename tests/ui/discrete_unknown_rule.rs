use routh::prelude::*;

#[derive(Mechanics)]
#[mechanics(coordinates(x), lagrangian = dot(x).powi(2) / 2 - k / 2 * x.powi(2), discrete(rule = midpont))]
struct Spring {
    k: f64,
}

fn main() {}
