use routh::prelude::*;

// The joint's class `leg` is not among the file's default classes (`main`, `arm`).
#[derive(Mechanics)]
#[mechanics(mjcf = "../../../../tests/ui/robots/default_joint.xml", gravity = [0, 0, -g])]
struct Robot {
    g: f64,
}

fn main() {}
