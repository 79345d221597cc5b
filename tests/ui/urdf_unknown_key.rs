use routh::prelude::*;

#[derive(Mechanics)]
#[mechanics(urdf(path = "../../../../tests/robots/hinge.urdf", input = u), gravity = [0, 0, -9.81])]
struct Driven;

fn main() {}
