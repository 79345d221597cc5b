//! The Lie group variational integrator on a body coupled to a sliding coordinate: L = ½ m ẋ² +
//! ½ ωᵀ J ω − V(x, Q), V = ½ k x² + (a + b x) e₃·R(Q) χ (b = 0: a heavy top beside an oscillator;
//! a = b = 0: a free body), its discrete Lagrangian L_d = ½ m Δ²/h + ξᵀ J ξ/(2h) − (h/2)(V(node 0) +
//! V(node 1)) with node 1 = (x + Δ, Q ⊗ cay(ξ)), and its maps derived by hand from the module's
//! A(ξ) — which the first test checks against differences of L_d along the nodes' own variations,
//! by quaternion products alone.

use nalgebra::{Matrix3, Quaternion, SMatrix, SVector, UnitQuaternion, Vector3};

use super::*;
use crate::{Flow, Options, Scheme, Simulate, SimulateDiscrete};

type Q5 = SVector<f64, 5>;
type V4 = SVector<f64, 4>;
type M4 = SMatrix<f64, 4, 4>;

/// The body and its coordinate (see the module docs).
#[derive(Debug, Clone)]
struct Coupled {
    m: f64,
    j: Matrix3<f64>,
    k: f64,
    a: f64,
    b: f64,
    chi: Vector3<f64>,
    /// The maps fail from this time on (a step that cannot be solved).
    fail_from: f64,
}

fn rotation(q: &Q5) -> Matrix3<f64> {
    UnitQuaternion::from_quaternion(Quaternion::new(q[1], q[2], q[3], q[4])).to_rotation_matrix().into_inner()
}

fn split(xi: &V4) -> (f64, Vector3<f64>) {
    (xi[0], Vector3::new(xi[1], xi[2], xi[3]))
}

impl Coupled {
    fn top(b: f64) -> Self {
        let j = Matrix3::new(1.2, 0.1, -0.05, 0.1, 0.9, 0.08, -0.05, 0.08, 0.6);
        Coupled { m: 1.5, j, k: 2.0, a: 3.0, b, chi: Vector3::new(0.05, -0.1, 0.4), fail_from: f64::INFINITY }
    }

    /// V at a node.
    fn potential(&self, q: &Q5) -> f64 {
        let s = self.chi.dot(&(rotation(q).transpose() * Vector3::z()));
        0.5 * self.k * q[0] * q[0] + (self.a + self.b * q[0]) * s
    }

    /// V's gradient in the chart (δx, η): (V_x, (a + b x) χ × g), g = Rᵀ e₃.
    fn gradient(&self, q: &Q5) -> V4 {
        let g = rotation(q).transpose() * Vector3::z();
        let ds = self.chi.cross(&g);
        let dq = ds * (self.a + self.b * q[0]);
        V4::new(self.k * q[0] + self.b * self.chi.dot(&g), dq[0], dq[1], dq[2])
    }

    /// The gradient's derivative in the chart: [[k, b dSᵀ], [b dS, (a + b x) [χ×][g×]]].
    fn hessian(&self, q: &Q5) -> M4 {
        let g = rotation(q).transpose() * Vector3::z();
        let ds = self.chi.cross(&g);
        let mut h = M4::zeros();
        h[(0, 0)] = self.k;
        for i in 0..3 {
            h[(0, 1 + i)] = self.b * ds[i];
            h[(1 + i, 0)] = self.b * ds[i];
        }
        let turn = self.chi.cross_matrix() * g.cross_matrix() * (self.a + self.b * q[0]);
        h.fixed_view_mut::<3, 3>(1, 1).copy_from(&turn);
        h
    }

    /// d(A J ξ)/dξ (`sign` 1) and d(Aᵀ J ξ)/dξ (−1).
    fn kinetic_jacobian(&self, w: &Vector3<f64>, sign: f64) -> Matrix3<f64> {
        let jw = self.j * w;
        self.j
            + (w.cross_matrix() * self.j - jw.cross_matrix()) * (0.5 * sign)
            + (Matrix3::identity() * w.dot(&jw) + w * jw.transpose() * 2.0) * 0.25
    }

    fn check(&self, t: f64) -> Result<(), FieldError> {
        if t >= self.fail_from { Err(FieldError::NonFinite { t }) } else { Ok(()) }
    }

    /// The continuous field of x = (x, Q, ẋ, ω): m ẍ = −V_x, Q̇ = ½ Q ⊗ (0, ω),
    /// J ω̇ = J ω × ω − (a + b x) χ × g.
    fn continuous(&self, x: &SVector<f64, 9>) -> SVector<f64, 9> {
        let q = Q5::from_fn(|i, _| x[i]);
        let grad = self.gradient(&q);
        let w = Vector3::new(x[6], x[7], x[8]);
        let dq = Quaternion::new(x[1], x[2], x[3], x[4]) * Quaternion::new(0.0, w.x, w.y, w.z) * 0.5;
        let wd = self.j.try_inverse().unwrap() * ((self.j * w).cross(&w) - Vector3::new(grad[1], grad[2], grad[3]));
        SVector::<f64, 9>::from([x[5], dq.w, dq.i, dq.j, dq.k, -grad[0] / self.m, wd.x, wd.y, wd.z])
    }

    /// The energy ½ m ẋ² + ½ ωᵀ J ω + V from the momenta μ = (m ẋ, J ω).
    fn energy(&self, q: &Q5, mu: &V4) -> f64 {
        let (px, l) = split(mu);
        0.5 * px * px / self.m + 0.5 * l.dot(&(self.j.try_inverse().unwrap() * l)) + self.potential(q)
    }
}

impl OrientedDiscreteSystem<5, 4> for Coupled {
    fn left_momentum(&self, t: f64, h: f64, q0: &Q5, xi: &V4) -> Result<(V4, M4), FieldError> {
        self.check(t)?;
        let (d, w) = split(xi);
        let grad = self.gradient(q0);
        let l = cayley_factor(&w) * (self.j * w) / h;
        let mu = V4::new(
            self.m * d / h + 0.5 * h * grad[0],
            l.x + 0.5 * h * grad[1],
            l.y + 0.5 * h * grad[2],
            l.z + 0.5 * h * grad[3],
        );
        let mut jac = M4::zeros();
        jac[(0, 0)] = self.m / h;
        jac.fixed_view_mut::<3, 3>(1, 1).copy_from(&(self.kinetic_jacobian(&w, 1.0) / h));
        Ok((mu, jac))
    }

    fn right_momentum(&self, t: f64, h: f64, q0: &Q5, xi: &V4) -> Result<V4, FieldError> {
        self.check(t)?;
        let (d, w) = split(xi);
        let grad = self.gradient(&compose(q0, xi));
        let l = cayley_factor(&w).transpose() * (self.j * w) / h;
        Ok(V4::new(self.m * d / h - 0.5 * h * grad[0], l.x - 0.5 * h * grad[1], l.y - 0.5 * h * grad[2], l.z - 0.5 * h * grad[3]))
    }

    fn momentum_derivatives(&self, t: f64, h: f64, q0: &Q5, xi: &V4) -> Option<Result<(M4, M4, M4), FieldError>> {
        if let Err(e) = self.check(t) {
            return Some(Err(e));
        }
        let (_, w) = split(xi);
        let q1 = compose(q0, xi);
        let h1 = self.hessian(&q1);
        let (mut carried, mut turned) = (M4::identity(), M4::identity());
        let a_inv = cayley_factor(&w).try_inverse().unwrap();
        carried.fixed_view_mut::<3, 3>(1, 1).copy_from(&cayley_rotation(&w).transpose());
        turned.fixed_view_mut::<3, 3>(1, 1).copy_from(&a_inv);
        let mut kinetic = M4::zeros();
        kinetic[(0, 0)] = self.m / h;
        kinetic.fixed_view_mut::<3, 3>(1, 1).copy_from(&(self.kinetic_jacobian(&w, -1.0) / h));
        Some(Ok((self.hessian(q0) * (0.5 * h), -h1 * carried * (0.5 * h), kinetic - h1 * turned * (0.5 * h))))
    }
}

/// q ⊗ exp(η/2), x + δx: a node moved along its chart.
fn moved(q: &Q5, d: &V4) -> Q5 {
    let turn = UnitQuaternion::from_scaled_axis(Vector3::new(d[1], d[2], d[3]));
    let r = Quaternion::new(q[1], q[2], q[3], q[4]) * turn.quaternion();
    Q5::new(q[0] + d[0], r.w, r.i, r.j, r.k)
}

/// The chart's coordinates of `to` about `from`: (x − x₀, the body rotation vector of Q₀⁻¹ Q).
fn chart(from: &Q5, to: &Q5) -> V4 {
    let unit = |q: &Q5| UnitQuaternion::from_quaternion(Quaternion::new(q[1], q[2], q[3], q[4]));
    let eta = (unit(from).inverse() * unit(to)).scaled_axis();
    V4::new(to[0] - from[0], eta.x, eta.y, eta.z)
}

/// L_d between two nodes, the increment read back by quaternions alone: ξ = 2 v / w of Q₀⁻¹ Q₁.
fn discrete_lagrangian(sys: &Coupled, h: f64, q0: &Q5, q1: &Q5) -> f64 {
    let r = Quaternion::new(q0[1], q0[2], q0[3], q0[4]).conjugate() * Quaternion::new(q1[1], q1[2], q1[3], q1[4]);
    let w = Vector3::new(r.i, r.j, r.k) * (2.0 / r.w);
    let d = q1[0] - q0[0];
    0.5 * sys.m * d * d / h + 0.5 * w.dot(&(sys.j * w)) / h - 0.5 * h * (sys.potential(q0) + sys.potential(q1))
}

fn start() -> (Q5, V4, V4) {
    let r = UnitQuaternion::from_euler_angles(0.4, -0.3, 0.9);
    let q = Q5::new(0.3, r.w, r.i, r.j, r.k);
    let v = V4::new(-0.2, 0.7, -1.1, 2.3);
    (q, v, v)
}

/// The hand-derived maps are the derivatives of L_d along each node's chart (δx, η) at the other
/// node fixed — which checks A(ξ), −A(ξ)ᵀ, C(ξ) and A(ξ)⁻¹ of the module docs by quaternion
/// products and central differences alone — and their Jacobians those of the maps.
#[test]
fn the_maps_are_the_derivatives_of_the_discrete_lagrangian() {
    let (sys, h) = (Coupled::top(0.8), 0.1);
    let (q0, _, _) = start();
    let xi = V4::new(0.05, 0.12, -0.2, 0.31);
    let q1 = compose(&q0, &xi);
    let eps = 1e-6;
    let (left, jac) = sys.left_momentum(0.0, h, &q0, &xi).unwrap();
    let right = sys.right_momentum(0.0, h, &q0, &xi).unwrap();
    for i in 0..4 {
        let e = V4::from_fn(|r, _| if r == i { eps } else { 0.0 });
        let d0 = (discrete_lagrangian(&sys, h, &moved(&q0, &e), &q1) - discrete_lagrangian(&sys, h, &moved(&q0, &-e), &q1))
            / (2.0 * eps);
        let d1 = (discrete_lagrangian(&sys, h, &q0, &moved(&q1, &e)) - discrete_lagrangian(&sys, h, &q0, &moved(&q1, &-e)))
            / (2.0 * eps);
        assert!((left[i] + d0).abs() < 1e-7 * (1.0 + left[i].abs()), "μ⁻ {i}: {} against {}", left[i], -d0);
        assert!((right[i] - d1).abs() < 1e-7 * (1.0 + right[i].abs()), "μ⁺ {i}: {} against {d1}", right[i]);
    }
    // The Jacobians against differences of the maps: over ξ, and over q₀ along its chart at fixed ξ.
    let (d0, e0, e1) = sys.momentum_derivatives(0.0, h, &q0, &xi).unwrap().unwrap();
    for i in 0..4 {
        let e = V4::from_fn(|r, _| if r == i { eps } else { 0.0 });
        let by_xi = (sys.left_momentum(0.0, h, &q0, &(xi + e)).unwrap().0 - sys.left_momentum(0.0, h, &q0, &(xi - e)).unwrap().0)
            / (2.0 * eps);
        let right_xi = (sys.right_momentum(0.0, h, &q0, &(xi + e)).unwrap()
            - sys.right_momentum(0.0, h, &q0, &(xi - e)).unwrap())
            / (2.0 * eps);
        let (up, down) = (moved(&q0, &e), moved(&q0, &-e));
        let left_q =
            (sys.left_momentum(0.0, h, &up, &xi).unwrap().0 - sys.left_momentum(0.0, h, &down, &xi).unwrap().0) / (2.0 * eps);
        let right_q =
            (sys.right_momentum(0.0, h, &up, &xi).unwrap() - sys.right_momentum(0.0, h, &down, &xi).unwrap()) / (2.0 * eps);
        for (name, exact, diff) in
            [("∂μ⁻/∂ξ", &jac, by_xi), ("∂μ⁺/∂ξ", &e1, right_xi), ("∂μ⁻/∂q", &d0, left_q), ("∂μ⁺/∂q", &e0, right_q)]
        {
            let gap = (exact.column(i) - diff).amax();
            assert!(gap < 1e-7 * (1.0 + diff.amax()), "{name} column {i}: gap {gap:e}");
        }
    }
    // The turn's rotation matrix and C Aᵀ = A.
    let w = Vector3::new(0.12, -0.2, 0.31);
    let c = cayley_rotation(&w);
    let unit = UnitQuaternion::from_quaternion(cayley(&w)).to_rotation_matrix().into_inner();
    assert!((c - unit).amax() < 1e-15);
    assert!((c * cayley_factor(&w).transpose() - cayley_factor(&w)).amax() < 1e-15);
}

/// A free body (a = b = 0, the coordinate a free oscillator) keeps |μ| and its spatial momentum
/// R μ to rounding over two thousand steps (discrete Noether), and its energy stays within a
/// band of 10⁻³ that does not widen in the second thousand steps (symplectic: no drift).
#[test]
fn a_free_body_keeps_its_spatial_momentum_and_its_magnitude() {
    let sys = Coupled { a: 0.0, b: 0.0, ..Coupled::top(0.0) };
    let (q0, v0, _) = start();
    let mu0 = V4::new(sys.m * v0[0], 0.0, 0.0, 0.0) + {
        let l = sys.j * Vector3::new(v0[1], v0[2], v0[3]);
        V4::new(0.0, l.x, l.y, l.z)
    };
    let traj = crate::Oriented(&sys)
        .run_discrete(crate::run::OrientedNode { q: q0, mu: mu0, v: v0 })
        .step(0.05)
        .steps(2000)
        .go()
        .unwrap();
    let spatial = |k: usize| rotation(&traj.positions[k]) * split(&traj.momenta[k]).1;
    let (l0, s0) = (split(&mu0).1.norm(), spatial(0));
    let energies: Vec<f64> = (0..traj.len()).map(|k| sys.energy(&traj.positions[k], &traj.momenta[k])).collect();
    for k in 0..traj.len() {
        assert!((split(&traj.momenta[k]).1.norm() - l0).abs() < 1e-12 * l0, "|μ| at {k}");
        assert!((spatial(k) - s0).norm() < 1e-12 * l0, "R μ at {k}");
        let q = &traj.positions[k];
        assert!((Quaternion::new(q[1], q[2], q[3], q[4]).norm() - 1.0).abs() < 1e-14);
    }
    let e0 = energies[0];
    let band = |r: std::ops::Range<usize>| energies[r].iter().fold(0.0_f64, |m, e| m.max((e - e0).abs())) / e0;
    let (first, second) = (band(0..1000), band(1000..2001));
    assert!(first < 1e-3, "energy band {first:e}");
    assert!(second < 1.5 * first, "energy drifts: band {first:e} then {second:e}");
}

/// The heavy top (b = 0) against the continuous equations integrated by DOP853: second order —
/// the error at h/2 a quarter of that at h — and the vertical spatial momentum e₃·R μ (the
/// ground's rotations about e₃ leave L_d unchanged) kept to rounding.
#[test]
fn the_heavy_top_converges_at_second_order_and_keeps_its_vertical_momentum() {
    let sys = Coupled::top(0.0);
    let (q0, v0, _) = start();
    let l0 = sys.j * Vector3::new(v0[1], v0[2], v0[3]);
    let mu0 = V4::new(sys.m * v0[0], l0.x, l0.y, l0.z);
    let span = 2.0;
    let field = |_t: f64, x: &SVector<f64, 9>| -> Result<SVector<f64, 9>, FieldError> { Ok(sys.continuous(x)) };
    let x0 = SVector::<f64, 9>::from_fn(|i, _| if i < 5 { q0[i] } else { v0[i - 5] });
    let options = Options::default().rtol(1e-13).atol(1e-13).scheme(Scheme::Dop853);
    let reference = Flow(&field).run(x0).span(0.0..span).options(&options).go().unwrap();
    let end = reference.last().unwrap().1;
    let exact_q = Q5::from_fn(|i, _| end[i]);
    let w = Vector3::new(end[6], end[7], end[8]);
    let l = sys.j * w;
    let exact_mu = V4::new(sys.m * end[5], l.x, l.y, l.z);
    let error = |steps: usize| {
        let node = crate::run::OrientedNode { q: q0, mu: mu0, v: v0 };
        let traj = crate::Oriented(&sys).run_discrete(node).step(span / steps as f64).steps(steps).go().unwrap();
        let vertical = |k: usize| (rotation(&traj.positions[k]) * split(&traj.momenta[k]).1).z;
        for k in 0..traj.len() {
            assert!((vertical(k) - vertical(0)).abs() < 1e-13 * l0.norm(), "e₃·R μ at {k}");
        }
        chart(&exact_q, &traj.positions[steps]).amax() + (traj.momenta[steps] - exact_mu).amax() / exact_mu.amax()
    };
    let (coarse, fine) = (error(100), error(200));
    assert!(coarse < 1e-2, "error {coarse:e} at h = 0.02");
    let ratio = coarse / fine;
    assert!((3.6..4.4).contains(&ratio), "error ratio {ratio} ({coarse:e} → {fine:e})");
}

/// The step's Jacobian in the chart (δx, η, δμ) against central differences of the step, and the
/// map keeps the cotangent bundle's symplectic form in body axes — which its μ-term is needed
/// for: the canonical form's defect is not small.
#[test]
fn step_jacobians_are_those_of_the_step_and_keep_the_symplectic_form() {
    let (sys, h) = (Coupled::top(0.8), 0.05);
    let options = DiscreteOptions::default();
    let (q0, v0, _) = start();
    let l = sys.j * Vector3::new(v0[1], v0[2], v0[3]);
    let mu0 = V4::new(sys.m * v0[0], l.x, l.y, l.z);
    let step = |q: &Q5, mu: &V4| oriented_step(&sys, (0.0, h), (q, mu), v0 * h, &options).unwrap();
    let base = step(&q0, &mu0);
    let jac = oriented_step_jacobian(&sys, 0.0, h, &q0, &base.increment).unwrap().unwrap();
    let eps = 1e-6;
    for i in 0..8 {
        let e = V4::from_fn(|r, _| if r == i % 4 { eps } else { 0.0 });
        let (up, down) = if i < 4 {
            (step(&moved(&q0, &e), &mu0), step(&moved(&q0, &-e), &mu0))
        } else {
            (step(&q0, &(mu0 + e)), step(&q0, &(mu0 - e)))
        };
        let dq = (chart(&base.position, &up.position) - chart(&base.position, &down.position)) / (2.0 * eps);
        let dmu = (up.momentum - down.momentum) / (2.0 * eps);
        let (exact_q, exact_mu) =
            if i < 4 { (jac.dq_dq.column(i), jac.dp_dq.column(i)) } else { (jac.dq_dp.column(i - 4), jac.dp_dp.column(i - 4)) };
        assert!((exact_q - dq).amax() < 1e-7 * (1.0 + dq.amax()), "∂q₁ column {i}: {:e}", (exact_q - dq).amax());
        assert!((exact_mu - dmu).amax() < 1e-7 * (1.0 + dmu.amax()), "∂μ₁ column {i}: {:e}", (exact_mu - dmu).amax());
    }
    let defect = oriented_symplecticity_defect::<5, 4>(&jac, &mu0, &base.momentum);
    assert!(defect < 1e-12, "symplectic defect {defect:e}");
    assert!(jac.symplecticity_defect() > 1e-3, "the canonical form is not the one kept");
}

/// A step the maps cannot evaluate ends the run with the nodes before it; a bad start or step is
/// an error before any work.
#[test]
fn a_failed_step_keeps_the_nodes_before_it() {
    let sys = Coupled { fail_from: 0.28, ..Coupled::top(0.8) };
    let (q0, v0, _) = start();
    let node = crate::run::OrientedNode { q: q0, mu: v0, v: v0 };
    let failure = crate::Oriented(&sys).run_discrete(node).step(0.05).steps(20).go().unwrap_err();
    assert!(matches!(failure.error, SimError::NonFiniteState { t } if (t - 0.3).abs() < 1e-12), "{:?}", failure.error);
    let partial = failure.partial.expect("six steps were made");
    assert_eq!(partial.len(), 7);
    assert!((partial.times[6] - 0.3).abs() < 1e-15);
    let bad = crate::run::OrientedNode { q: Q5::from_element(f64::NAN), ..node };
    let err = crate::Oriented(&sys).run_discrete(bad).step(0.05).steps(3).go().unwrap_err();
    assert_eq!(err.error, SimError::InvalidInitialState);
    assert!(err.partial.is_none());
    let err = crate::Oriented(&sys).run_discrete(node).step(-0.05).steps(3).go().unwrap_err();
    assert!(matches!(err.error, SimError::InvalidOptions(_)));
}
