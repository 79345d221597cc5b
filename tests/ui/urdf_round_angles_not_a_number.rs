use routh::prelude::*;

#[derive(Mechanics)]
#[mechanics(urdf(path = "../../../../tests/robots/hinge.urdf", round_angles = tolerance), gravity = [0, 0, -9.81])]
struct Rounded;

fn main() {}
