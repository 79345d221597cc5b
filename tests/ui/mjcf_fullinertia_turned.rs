use routh::prelude::*;

// A `fullinertia` is in the body's axes: an orientation beside it is refused, as MuJoCo does.
#[derive(Mechanics)]
#[mechanics(mjcf = "../../../../tests/ui/robots/fullinertia_turned.xml", gravity = [0, 0, -9.81])]
struct Robot;

fn main() {}
