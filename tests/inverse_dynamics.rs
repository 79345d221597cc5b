//! Inverse dynamics (`inverse_dynamics`, `static_forces`, `velocity_forces`): the double pendulum's
//! closed forms — gravity torques, Coriolis and centrifugal terms, the damper's forces — and the
//! inverse of the field. (The spatial recursion against the dense path: `tests/spatial.rs`.)

mod common;

use common::Rng;
use routh::prelude::*;

/// The README's double pendulum in absolute angles.
#[derive(Mechanics)]
#[mechanics(
    coordinates(th1, th2),
    define(
        x1 = l1 * th1.sin(),           y1 = -l1 * th1.cos(),
        x2 = x1 + l2 * th2.sin(),      y2 = y1 - l2 * th2.cos(),
    ),
    lagrangian = m1 / 2 * (dot(x1).powi(2) + dot(y1).powi(2))
               + m2 / 2 * (dot(x2).powi(2) + dot(y2).powi(2))
               - g * (m1 * y1 + m2 * y2),
    force(th1 = -b * dot(th1), th2 = -b * (dot(th2) - dot(th1))),
)]
struct DoublePendulum {
    m1: f64,
    m2: f64,
    l1: f64,
    l2: f64,
    g: f64,
    b: f64,
}

#[test]
fn the_double_pendulums_forces_are_the_textbooks() {
    let p = DoublePendulum { m1: 1.3, m2: 0.7, l1: 0.9, l2: 0.6, g: 9.81, b: 0.2 };
    let (m1, m2, l1, l2, g, b) = (p.m1, p.m2, p.l1, p.l2, p.g, p.b);
    let mut rng = Rng::new(5);
    for _ in 0..20 {
        let x: State<4> = rng.vector(-2.0, 2.0);
        let (t1, t2, w1, w2) = (x[0], x[1], x[2], x[3]);
        let (s, c) = ((t1 - t2).sin(), (t1 - t2).cos());
        // Gravity: τ_g = ((m1 + m2) g l1 sin θ1, m2 g l2 sin θ2).
        let gravity = Vector::<2>::new((m1 + m2) * g * l1 * t1.sin(), m2 * g * l2 * t2.sin());
        assert!((p.static_forces(0.0, &x) - gravity).norm() < 1e-12);
        // Coriolis and centrifugal: C q̇ = (m2 l1 l2 sin(θ1 − θ2) θ̇2², −m2 l1 l2 sin(θ1 − θ2) θ̇1²),
        // less the forces as written, Q = (−b θ̇1, −b (θ̇2 − θ̇1)).
        let coriolis = Vector::<2>::new(m2 * l1 * l2 * s * w2 * w2, -m2 * l1 * l2 * s * w1 * w1);
        let damper = Vector::<2>::new(-b * w1, -b * (w2 - w1));
        assert!((p.velocity_forces(0.0, &x) - (coriolis - damper)).norm() < 1e-12);
        // τ = M q̈ + τ_g + C q̇ − Q, with M = [(m1 + m2) l1², m2 l1 l2 cos; m2 l1 l2 cos, m2 l2²].
        let qdd: Vector<2> = rng.vector(-3.0, 3.0);
        let m = Matrix::<2, 2>::new((m1 + m2) * l1 * l1, m2 * l1 * l2 * c, m2 * l1 * l2 * c, m2 * l2 * l2);
        let tau = p.inverse_dynamics(0.0, &x, &qdd).unwrap();
        assert!((tau - (m * qdd + gravity + coriolis - damper)).norm() < 1e-12);
        // At the field's own accelerations no force is needed.
        assert!(p.inverse_dynamics(0.0, &x, &p.accelerations(0.0, &x).unwrap()).unwrap().norm() < 1e-12);
    }
}
