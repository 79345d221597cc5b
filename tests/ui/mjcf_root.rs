use routh::prelude::*;

// An MJCF body moves freely by its own `<freejoint/>`.
#[derive(Mechanics)]
#[mechanics(mjcf(path = "../../../../tests/robots/arm6.xml", root = floating), gravity = [0, 0, -9.81])]
struct Arm;

fn main() {}
