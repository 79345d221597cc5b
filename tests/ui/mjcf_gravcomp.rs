use routh::prelude::*;

// A body compensated for gravity (`gravcomp`): not read.
#[derive(Mechanics)]
#[mechanics(mjcf = "../../../../tests/ui/robots/gravcomp.xml", gravity = [0, 0, -9.81])]
struct Robot;

fn main() {}
