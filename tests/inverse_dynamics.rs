//! Inverse dynamics (`inverse_dynamics`, `static_forces`, `velocity_forces`): the double pendulum's
//! closed forms — gravity torques, Coriolis and centrifugal terms, the damper's forces — and the
//! inverse of the field. (The spatial recursion against the dense path: `tests/spatial.rs`.)

#[macro_use]
mod common;

use common::Rng;
use routh::nalgebra::{SMatrix, SVector};
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

/// A driven branched tree of directions: a cart `x` on a spring, pushed by `u`, carrying a pendulum
/// `a` and a link `b` whose far end carries a second pendulum `c`, the link driven by `v` against
/// the cart; a potential couples `a` and `c`, the cart and `a` are damped. The same model along the
/// tree and dense.
macro_rules! driven_tree {
    ($name:ident, $dynamics:ident) => {
        #[derive(Mechanics)]
        #[mechanics(
                            coordinates(x, a, b, c),
                            input(u, v),
                            define(
                                xa = x + la * a.sin(), ya = -la * a.cos(),
                                xm = x + lb / 2 * b.sin(), ym = -lb / 2 * b.cos(),
                                xb = x + lb * b.sin(), yb = -lb * b.cos(),
                                xc = xb + lc * c.sin(), yc = yb - lc * c.cos(),
                            ),
                            lagrangian = mx / 2 * dot(x).powi(2) + ma / 2 * (dot(xa).powi(2) + dot(ya).powi(2))
                                + mb / 2 * (dot(xm).powi(2) + dot(ym).powi(2)) + mc / 2 * (dot(xc).powi(2) + dot(yc).powi(2))
                                - g * (ma * ya + mb * ym + mc * yc) - k / 2 * x.powi(2) - kac / 2 * (a - c).powi(2),
                            force(x = u - d * dot(x) - v * b.cos(), a = -ca * dot(a) * (1 + a.powi(2)), b = v * (1 + x.powi(2))),
                            dynamics = $dynamics,
                        )]
        struct $name {
            mx: f64,
            ma: f64,
            mb: f64,
            mc: f64,
            la: f64,
            lb: f64,
            lc: f64,
            g: f64,
            k: f64,
            kac: f64,
            d: f64,
            ca: f64,
        }
    };
}
driven_tree!(DrivenTree, recursive);
driven_tree!(DrivenTreeDense, dense);

/// ∂τ/∂q and ∂τ/∂q̇ of the inverse dynamics along a tree of directions (the kinetic part's tangent
/// along the tree, less the forces' symbolic derivatives, with the inputs' terms) against the dense
/// twin's (the residual's symbolic derivatives) and central differences of `inverse_dynamics`, at
/// accelerations that are not the field's; at the field's own, −M⁻¹ ∂τ/∂x is the field's Jacobian.
#[test]
fn a_driven_trees_inverse_dynamics_jacobian_is_the_dense_one_and_its_differences() {
    macro_rules! values {
        ($name:ident) => {
            $name { mx: 1.5, ma: 0.6, mb: 0.9, mc: 0.4, la: 0.7, lb: 1.1, lc: 0.5, g: 9.81, k: 3.0, kac: 0.8, d: 0.3, ca: 0.1 }
        };
    }
    let (tree, dense) = (values!(DrivenTree), values!(DrivenTreeDense));
    let mut rng = Rng::new(91);
    for _ in 0..10 {
        let x: State<8> = rng.vector(-2.0, 2.0);
        let qdd: Vector<4> = rng.vector(-3.0, 3.0);
        let u = [rng.uniform(-2.0, 2.0), rng.uniform(-2.0, 2.0)];
        let (r, d) = (tree.driven(u), dense.driven(u));
        check_inverse_dynamics_jacobian!(r, d, x, qdd, 4, field);
    }
}

/// A cart-pole whose pole is damped through the action variable, with a damping that depends on
/// the angle and on the action itself (a Herglotz Lagrangian nonlinear in z).
#[derive(Mechanics)]
#[mechanics(
    coordinates(x, th),
    action(z),
    lagrangian = (mc + m) / 2 * dot(x).powi(2) + m * l * cos(th) * dot(x) * dot(th) + m * l.powi(2) / 2 * dot(th).powi(2)
        + m * g * l * cos(th) - gamma * (1 + cos(th) / 4) * z - k * z.powi(2) / 2,
    force(x = -b * dot(x)),
    jacobian,
)]
struct ContactCartPole {
    mc: f64,
    m: f64,
    l: f64,
    g: f64,
    gamma: f64,
    k: f64,
    b: f64,
}

/// A rigid body in its orientation damped through the action (L = ½ωᵀIω − γ z), pulled by gravity
/// at an offset pivot: the tangent chart of the orientation with an action variable.
#[derive(Mechanics)]
#[mechanics(
    orientation(r),
    action(z),
    body(name = brick, mass = m, centre = r * [0, 0, -l], frame = r, inertia = diag(i1, i2, i3)),
    gravity = [0, 0, -g],
    lagrangian = -gamma * z * (1 + z.powi(2) / 10),
    jacobian,
)]
struct DampedTop {
    m: f64,
    l: f64,
    g: f64,
    i1: f64,
    i2: f64,
    i3: f64,
    gamma: f64,
}

/// ∂τ/∂q, ∂τ/∂q̇ (`inverse_dynamics_jacobian`) and ∂τ/∂z (`inverse_dynamics_action_jacobian`) of a
/// two-coordinate contact model at (x, q̈) against central differences of `inverse_dynamics` along
/// every component of x = (q, q̇, z) (1e-7); the value of ∂τ/∂z.
macro_rules! checked_against_differences {
    ($model:expr, $x:expr, $qdd:expr) => {{
        let (model, x, qdd) = (&$model, &$x, &$qdd);
        let (tq, tv) = model.inverse_dynamics_jacobian(0.0, x, qdd).unwrap();
        let tz = model.inverse_dynamics_action_jacobian(0.0, x, qdd).unwrap();
        let fd = |k: usize| {
            let e = SVector::<f64, 5>::ith(k, 1e-6);
            (model.inverse_dynamics(0.0, &(x + e), qdd).unwrap() - model.inverse_dynamics(0.0, &(x - e), qdd).unwrap()) / 2e-6
        };
        for k in 0..2 {
            assert_near!(tq.column(k).into_owned(), fd(k), 1e-7);
            assert_near!(tv.column(k).into_owned(), fd(2 + k), 1e-7);
        }
        assert_near!(tz, fd(4), 1e-7);
        tz
    }};
}

#[test]
fn a_contact_models_inverse_dynamics_jacobian_is_its_differences_and_inverts_the_fields() {
    // τ = M q̈ − f of a Herglotz Lagrangian depends on the action z too: ∂τ/∂q and ∂τ/∂q̇ at fixed z
    // (`inverse_dynamics_jacobian`) and ∂τ/∂z (`inverse_dynamics_action_jacobian`) against central
    // differences of `inverse_dynamics` along every component of x = (q, q̇, z); at the field's own
    // accelerations −M⁻¹ ∂τ/∂x is the field Jacobian's rows of q̈, the action's column included.
    let model = ContactCartPole { mc: 1.0, m: 0.3, l: 0.6, g: 9.81, gamma: 0.4, k: 0.2, b: 0.1 };
    let mut rng = Rng::new(48);
    for _ in 0..10 {
        let x: SVector<f64, 5> = rng.vector(-1.5, 1.5);
        let qdd: SVector<f64, 2> = rng.vector(-3.0, 3.0);
        checked_against_differences!(model, x, qdd);
        let a = model.accelerations(0.0, &x).unwrap();
        let m = model.mass_matrix(0.0, &x).lu();
        let (aq, av) = model.inverse_dynamics_jacobian(0.0, &x, &a).unwrap();
        let az = model.inverse_dynamics_action_jacobian(0.0, &x, &a).unwrap();
        let jac = model.jacobian(0.0, &x).unwrap();
        assert_near!(-m.solve(&aq).unwrap(), jac.fixed_view::<2, 2>(2, 0).into_owned(), 1e-10);
        assert_near!(-m.solve(&av).unwrap(), jac.fixed_view::<2, 2>(2, 2).into_owned(), 1e-10);
        assert_near!(-m.solve(&az).unwrap(), jac.fixed_view::<2, 1>(2, 4).into_owned(), 1e-10);
    }
    // With an orientation: ∂τ/∂q along the body rotation vector, ∂τ/∂z on its own; at the field's
    // accelerations the field Jacobian's rows of ω̇ in the tangent chart (`linearize_tangent`).
    let top = DampedTop { m: 1.2, l: 0.3, g: 9.81, i1: 0.02, i2: 0.03, i3: 0.015, gamma: 0.5 };
    for _ in 0..10 {
        let axis: SVector<f64, 3> = rng.vector(-1.0, 1.0);
        let q = routh::nalgebra::UnitQuaternion::from_scaled_axis(axis);
        let (w, z) = (rng.vector::<3>(-2.0, 2.0), rng.uniform(-1.0, 1.0));
        let x = SVector::<f64, 8>::from_iterator([q.w, q.i, q.j, q.k].into_iter().chain(w.iter().copied()).chain([z]));
        let qdd: SVector<f64, 3> = rng.vector(-3.0, 3.0);
        let tz = top.inverse_dynamics_action_jacobian(0.0, &x, &qdd).unwrap();
        let e = SVector::<f64, 8>::ith(7, 1e-6);
        let fd = (top.inverse_dynamics(0.0, &(x + e), &qdd).unwrap() - top.inverse_dynamics(0.0, &(x - e), &qdd).unwrap()) / 2e-6;
        assert_near!(tz, fd, 1e-7);
        let (_, tv) = top.inverse_dynamics_jacobian(0.0, &x, &qdd).unwrap();
        for k in 0..3 {
            let e = SVector::<f64, 8>::ith(4 + k, 1e-6);
            let fd =
                (top.inverse_dynamics(0.0, &(x + e), &qdd).unwrap() - top.inverse_dynamics(0.0, &(x - e), &qdd).unwrap()) / 2e-6;
            assert_near!(tv.column(k).into_owned(), fd, 1e-7);
        }
        let a = top.accelerations(0.0, &x).unwrap();
        let (aq, av) = top.inverse_dynamics_jacobian(0.0, &x, &a).unwrap();
        let az = top.inverse_dynamics_action_jacobian(0.0, &x, &a).unwrap();
        let m = top.mass_matrix(0.0, &x).lu();
        let jac = top.jacobian(0.0, &x).unwrap();
        // ∂ω̇/∂θ_k = ∂ω̇/∂q · ½ q ⊗ (0, e_k), the quaternion's components (w, i, j, k).
        let chart = SMatrix::<f64, 4, 3>::from_fn(|r, k| {
            let e = routh::nalgebra::Quaternion::new(0.0, (k == 0) as u8 as f64, (k == 1) as u8 as f64, (k == 2) as u8 as f64);
            let d = q.into_inner() * e * 0.5;
            [d.w, d.i, d.j, d.k][r]
        });
        assert_near!(-m.solve(&aq).unwrap(), jac.fixed_view::<3, 4>(4, 0) * chart, 1e-10);
        assert_near!(-m.solve(&av).unwrap(), jac.fixed_view::<3, 3>(4, 4).into_owned(), 1e-10);
        assert_near!(-m.solve(&az).unwrap(), jac.fixed_view::<3, 1>(4, 7).into_owned(), 1e-10);
    }
}

/// A point mass on a circle held by a holonomic constraint in Cartesian coordinates, damped through
/// the action variable.
#[derive(Mechanics)]
#[mechanics(
    coordinates(x, y),
    action(z),
    lagrangian = m / 2 * (dot(x).powi(2) + dot(y).powi(2)) - m * g * y - gamma * (1 + x.powi(2)) * z,
    holonomic(circle = x.powi(2) + y.powi(2) - l.powi(2)),
    jacobian,
)]
struct HeldContactPendulum {
    m: f64,
    g: f64,
    l: f64,
    gamma: f64,
}

#[test]
fn a_constrained_contact_models_inverse_dynamics_jacobian_is_its_differences() {
    // τ = M q̈ − f in coordinates (the constraint's force not in it) of a Herglotz Lagrangian: ∂τ/∂q,
    // ∂τ/∂q̇ at fixed z and ∂τ/∂z from the saddle point's residual rows at λ = 0, against central
    // differences of `inverse_dynamics` along every component of x = (q, q̇, z).
    let model = HeldContactPendulum { m: 0.8, g: 9.81, l: 0.7, gamma: 0.3 };
    let mut rng = Rng::new(49);
    for _ in 0..10 {
        let x: SVector<f64, 5> = rng.vector(-1.5, 1.5);
        let qdd: SVector<f64, 2> = rng.vector(-3.0, 3.0);
        let tz = checked_against_differences!(model, x, qdd);
        // τ depends on z through the damping −γ(1 + x²) ∂L/∂q̇ = γ(1 + x²) m q̇ and on ∂L/∂x = −2γxz:
        // ∂τ/∂z = (2γx, 0) wherever it is evaluated.
        assert!((tz[0] - 2.0 * model.gamma * x[0]).abs() < 1e-12 && tz[1].abs() < 1e-12, "{tz}");
    }
}
