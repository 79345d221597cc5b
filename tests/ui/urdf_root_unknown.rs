use routh::prelude::*;

// The root link is fixed (the ground), floating or planar.
#[derive(Mechanics)]
#[mechanics(urdf(path = "../../../../tests/robots/quadrotor.urdf", root = spinning), gravity = [0, 0, -9.81])]
struct Frame;

fn main() {}
