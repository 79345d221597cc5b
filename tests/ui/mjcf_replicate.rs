use routh::prelude::*;

// A `<replicate>` would make three pendulums of the one written: not read.
#[derive(Mechanics)]
#[mechanics(mjcf = "../../../../tests/ui/robots/replicate.xml", gravity = [0, 0, -9.81])]
struct Robot;

fn main() {}
