use routh::prelude::*;

// Held outside its limits [-0.5, 0.5].
#[derive(Mechanics)]
#[mechanics(urdf(path = "../../../../tests/robots/hinge.urdf", lock = [swing = 1.2]), gravity = [0, 0, -9.81])]
struct Robot;

fn main() {}
