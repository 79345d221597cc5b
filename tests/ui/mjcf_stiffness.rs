use routh::prelude::*;

// The path is relative to the manifest directory of the crate the test compiles in, trybuild's
// project under target/tests/trybuild/routh.
#[derive(Mechanics)]
#[mechanics(mjcf = "../../../../tests/ui/robots/stiffness.xml", gravity = [0, 0, -g])]
struct Robot {
    g: f64,
}

fn main() {}
