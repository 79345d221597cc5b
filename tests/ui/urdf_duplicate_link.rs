use routh::prelude::*;

// Two links of one name: which one a joint moves would be a guess.
#[derive(Mechanics)]
#[mechanics(urdf = "../../../../tests/ui/robots/duplicate_link.urdf", gravity = [0, 0, -g])]
struct Robot {
    g: f64,
}

fn main() {}
