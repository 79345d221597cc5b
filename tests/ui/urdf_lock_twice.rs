use routh::prelude::*;

// One joint locked twice.
#[derive(Mechanics)]
#[mechanics(urdf(path = "../../../../tests/robots/arm6.urdf", lock = [elbow, elbow = 0.3]), gravity = [0, 0, -9.81])]
struct Robot;

fn main() {}
