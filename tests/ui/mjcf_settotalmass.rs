use routh::prelude::*;

// The compiler scales the masses to a total (`settotalmass`): not read.
#[derive(Mechanics)]
#[mechanics(mjcf = "../../../../tests/ui/robots/settotalmass.xml", gravity = [0, 0, -9.81])]
struct Robot;

fn main() {}
