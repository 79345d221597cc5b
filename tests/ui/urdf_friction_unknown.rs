use routh::prelude::*;

// Dry friction is left out when asked (`friction = ignore`), and read no other way.
#[derive(Mechanics)]
#[mechanics(urdf(path = "../../../../tests/ui/robots/friction.urdf", friction = smooth), gravity = [0, 0, -9.81])]
struct Smoothed;

fn main() {}
