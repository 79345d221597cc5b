use routh::prelude::*;

// The joint equality couples the swing to a joint the file does not have.
#[derive(Mechanics)]
#[mechanics(mjcf = "../../../../tests/ui/robots/coupling_unknown.xml", gravity = [0, 0, -9.81])]
struct Robot;

fn main() {}
