use routh::prelude::*;

// The file has no joint `swig`.
#[derive(Mechanics)]
#[mechanics(mjcf(path = "../../../../tests/robots/reference.xml", lock = [swig]), gravity = [0, 0, -9.81])]
struct Robot;

fn main() {}
