use routh::prelude::*;

// A `connect` equality closes a loop between the two pendulums' tips: not read unless left out.
#[derive(Mechanics)]
#[mechanics(mjcf = "../../../../tests/ui/robots/connect.xml", gravity = [0, 0, -9.81])]
struct Robot;

fn main() {}
