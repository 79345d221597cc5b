use routh::prelude::*;

// An MJCF file's joints are not locked by name: its joint elements are removed.
#[derive(Mechanics)]
#[mechanics(mjcf(path = "../../../../tests/robots/arm6.xml", lock = [elbow]), gravity = [0, 0, -9.81])]
struct Robot;

fn main() {}
