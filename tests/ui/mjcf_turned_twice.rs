use routh::prelude::*;

// The body's orientation is given twice, as a quaternion and as Euler angles.
#[derive(Mechanics)]
#[mechanics(mjcf = "../../../../tests/ui/robots/turned_twice.xml", gravity = [0, 0, -9.81])]
struct Robot;

fn main() {}
