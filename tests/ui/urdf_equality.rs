use routh::prelude::*;

// A URDF file has no equality constraints to leave out.
#[derive(Mechanics)]
#[mechanics(urdf(path = "../../../../tests/robots/hinge.urdf", equality = ignore), gravity = [0, 0, -9.81])]
struct Robot;

fn main() {}
