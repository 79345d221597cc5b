use routh::prelude::*;

#[derive(Mechanics)]
#[mechanics(urdf = "../../../../tests/ui/robots/mimic_unknown.urdf", gravity = [0, 0, -g])]
struct Hand {
    g: f64,
}

fn main() {}
