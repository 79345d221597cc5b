use routh::prelude::*;

#[derive(Mechanics)]
#[mechanics(coordinates(), lagrangian = m * g)]
struct Nothing {
    m: f64,
    g: f64,
}

fn main() {}
