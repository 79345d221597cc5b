use routh::prelude::*;

// Entries with 17 digits: the minors' exact values overflow 128-bit rationals, and their signs are
// decided in floating point with an error bound — this one's second leading minor is negative.
#[derive(Mechanics)]
#[mechanics(
    coordinates(q),
    frame(b = rot_z(q)),
    body(name = rod, mass = 1, centre = [0, 0, 0], frame = b,
         inertia = [[2.3749999999999997e-06, 2.4e-06, 0], [2.4e-06, 2.3749999999999997e-06, 0],
                    [0, 0, 7.5e-07]]),
)]
struct Rod;

fn main() {}
