use routh::prelude::*;

/// The field Jacobian of a contact (Herglotz) Lagrangian with an orientation state is not
/// generated yet (its field is).
#[derive(Mechanics)]
#[mechanics(
    coordinates(x),
    orientation(r),
    action(z),
    body(name = ball, mass = m, centre = [x, 0, 0], frame = r, inertia = diag(1, 1, 1)),
    lagrangian = -z,
    jacobian,
)]
struct Ball {
    m: f64,
}

fn main() {}
