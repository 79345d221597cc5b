use routh::prelude::*;

#[derive(Mechanics)]
#[mechanics(coordinates(x), lagrangian = dot(x).powi(2) / 2 - k / 2 * x.powi(2), discrete(rule = alpha(1.5)))]
struct Spring {
    k: f64,
}

fn main() {}
