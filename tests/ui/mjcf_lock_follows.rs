use routh::prelude::*;

// Held with the swing at 0.5, the twist is where its coupling puts it, not at 0.
#[derive(Mechanics)]
#[mechanics(mjcf(path = "../../../../tests/robots/reference.xml", lock = [swing = 0.5, twist = 0]), gravity = [0, 0, -9.81])]
struct Robot;

fn main() {}
