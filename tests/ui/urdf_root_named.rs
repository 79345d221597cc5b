use routh::prelude::*;

// `root = floating` adds a joint named `root`: the file's own joint of that name is an error.
#[derive(Mechanics)]
#[mechanics(urdf(path = "../../../../tests/ui/robots/root_named.urdf", root = floating), gravity = [0, 0, -9.81])]
struct Arm;

fn main() {}
