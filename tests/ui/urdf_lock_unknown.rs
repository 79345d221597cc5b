use routh::prelude::*;

// A joint the file does not have.
#[derive(Mechanics)]
#[mechanics(urdf(path = "../../../../tests/robots/arm6.urdf", lock = [elbo]), gravity = [0, 0, -9.81])]
struct Robot;

fn main() {}
