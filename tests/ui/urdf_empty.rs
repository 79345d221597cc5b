use routh::prelude::*;

#[derive(Mechanics)]
#[mechanics(urdf = "../../../../tests/ui/robots/empty.urdf", gravity = [0, 0, -g])]
struct Robot {
    g: f64,
}

fn main() {}
