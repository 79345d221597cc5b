use routh::prelude::*;

#[derive(Mechanics)]
#[mechanics(coordinates(x), lagrangian = dot(x).powi(2) / 2)]
struct Particle(f64);

fn main() {}
