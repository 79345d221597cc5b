use routh::prelude::*;

// The twist is coupled to the swing, which moves: holding the twist would hold the swing too.
#[derive(Mechanics)]
#[mechanics(mjcf(path = "../../../../tests/robots/reference.xml", lock = [twist]), gravity = [0, 0, -9.81])]
struct Robot;

fn main() {}
