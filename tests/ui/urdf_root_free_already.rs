use routh::prelude::*;

// A file with its own floating joint from a world link moves freely already: a second free joint
// above it would leave M singular.
#[derive(Mechanics)]
#[mechanics(urdf(path = "../../../../tests/ui/robots/world_floating.urdf", root = floating), gravity = [0, 0, -9.81])]
struct Trunk;

fn main() {}
