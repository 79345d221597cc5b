use routh::prelude::*;

// A file of one link and no joint has nothing to move unless its root link is moved.
#[derive(Mechanics)]
#[mechanics(urdf = "../../../../tests/robots/quadrotor.urdf", gravity = [0, 0, -9.81])]
struct Frame;

fn main() {}
