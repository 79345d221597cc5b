use routh::prelude::*;

// The finger that mimics the other held, the other free (holding it would hold the other too).
#[derive(Mechanics)]
#[mechanics(urdf(path = "../../../../tests/robots/gripper.urdf", lock = [mirror = 0.05]), gravity = [0, 0, -9.81])]
struct Robot;

fn main() {}
