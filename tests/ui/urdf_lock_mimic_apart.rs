use routh::prelude::*;

// Both fingers held, the mimic where its leader does not put it (2 · 0.02 + 0.01 = 0.05).
#[derive(Mechanics)]
#[mechanics(urdf(path = "../../../../tests/robots/gripper.urdf", lock = [open = 0.02, mirror = 0.04]), gravity = [0, 0, -9.81])]
struct Robot;

fn main() {}
