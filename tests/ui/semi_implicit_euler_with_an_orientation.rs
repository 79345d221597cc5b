use routh::prelude::*;
use routh::runtime::ilqr::{IlqrProblem, ilqr};
use routh::runtime::step::SemiImplicitEuler;

// A quaternion's rates are K(q) ω, not the velocities: no semi-implicit Euler step.
#[derive(Mechanics)]
#[mechanics(
    orientation(r),
    input(t1, t2, t3),
    body(name = craft, mass = m, centre = [0, 0, 0], frame = r, inertia = diag(i1, i2, i3)),
    force(r = [t1, t2, t3]),
    jacobian,
)]
struct Craft {
    m: f64,
    i1: f64,
    i2: f64,
    i3: f64,
}

fn main() {
    let craft = Craft { m: 1.0, i1: 2.0, i2: 3.0, i3: 4.0 };
    let x0 = craft.state([1.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.1]);
    let q = routh::nalgebra::SMatrix::<f64, 7, 7>::identity();
    let r = routh::nalgebra::SMatrix::<f64, 3, 3>::identity();
    let problem = IlqrProblem::new((0.0, 0.1, 10), x0, q, r, q);
    let _ = ilqr(&SemiImplicitEuler(&craft), &problem, &x0, &[Vector::<3>::zeros(); 10]);
}
