use routh::prelude::*;

// The swing's range is [-60°, 90°]: 2 rad is beyond it.
#[derive(Mechanics)]
#[mechanics(mjcf(path = "../../../../tests/robots/reference.xml", lock = [swing = 2], equality = ignore), gravity = [0, 0, -9.81])]
struct Robot;

fn main() {}
