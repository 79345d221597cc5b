use routh::prelude::*;

#[derive(Mechanics)]
#[mechanics(urdf = "robots/no_such_robot.urdf", gravity = [0, 0, -g])]
struct Robot {
    g: f64,
}

fn main() {}
