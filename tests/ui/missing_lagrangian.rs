use routh::prelude::*;

#[derive(Mechanics)]
#[mechanics(coordinates(x), force(x = -k * x))]
struct Spring {
    k: f64,
}

fn main() {}
