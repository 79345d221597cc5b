use routh::prelude::*;

// An equality constraint couples the elbow to the shoulder: not read unless left out.
#[derive(Mechanics)]
#[mechanics(mjcf = "../../../../tests/robots/coupled.xml", gravity = [0, 0, -9.81])]
struct Robot;

fn main() {}
