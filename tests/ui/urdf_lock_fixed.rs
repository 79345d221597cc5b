use routh::prelude::*;

// A fixed joint held fixed.
#[derive(Mechanics)]
#[mechanics(urdf(path = "../../../../tests/robots/arm6.urdf", lock = [tool_joint]), gravity = [0, 0, -9.81])]
struct Robot;

fn main() {}
