use routh::prelude::*;

// A zero quaternion turns nothing in particular: refused, as MuJoCo does.
#[derive(Mechanics)]
#[mechanics(mjcf = "../../../../tests/ui/robots/zero_quaternion.xml", gravity = [0, 0, -9.81])]
struct Robot;

fn main() {}
