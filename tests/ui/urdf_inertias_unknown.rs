use routh::prelude::*;

// An inertia no rigid body has is balanced when asked (`inertias = balance`), and changed no other way.
#[derive(Mechanics)]
#[mechanics(urdf(path = "../../../../tests/ui/robots/inertia.urdf", inertias = nearest), gravity = [0, 0, -9.81])]
struct Repaired;

fn main() {}
