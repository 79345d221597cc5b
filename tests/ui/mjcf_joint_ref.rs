use routh::prelude::*;

// A hinge with a reference angle: its coordinate and range would be shifted from MuJoCo's.
#[derive(Mechanics)]
#[mechanics(mjcf = "../../../../tests/robots/reference.xml", gravity = [0, 0, -9.81])]
struct Robot;

fn main() {}
