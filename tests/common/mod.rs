//! Helpers shared by the integration tests.
#![allow(dead_code)]

use routh::nalgebra::{SMatrix, SVector};

/// Asserts max |a − b| < tol (1 + max |b|) for two vectors or matrices, showing both.
#[allow(unused_macros)]
macro_rules! assert_near {
    ($a:expr, $b:expr, $tol:expr) => {{
        let (a, b) = ($a, $b);
        assert!((a - b).amax() < $tol * (1.0 + b.amax()), "{a} against {b}");
    }};
}

/// The checks of `$r.inverse_dynamics_jacobian` at the state `$x` and the accelerations `$qdd` (n
/// coordinates, x = (q, q̇)): the same as the dense twin `$d`'s (1e-10) and as central differences
/// of `$r.inverse_dynamics` (1e-6); with `field`, also, at the field's own accelerations, −M⁻¹ ∂τ/∂x
/// = the field's Jacobian (an unconstrained model).
#[allow(unused_macros)]
macro_rules! check_inverse_dynamics_jacobian {
    ($r:expr, $d:expr, $x:expr, $qdd:expr, $n:literal) => {{
        let (r, d, x, qdd) = (&$r, &$d, &$x, &$qdd);
        let (rq, rv) = r.inverse_dynamics_jacobian(0.0, x, qdd).unwrap();
        let (dq, dv) = d.inverse_dynamics_jacobian(0.0, x, qdd).unwrap();
        assert_near!(rq, dq, 1e-10);
        assert_near!(rv, dv, 1e-10);
        let (fq, fv) = common::inverse_dynamics_fd(|x| r.inverse_dynamics(0.0, x, qdd).unwrap(), x, 1e-6);
        assert_near!(rq, fq, 1e-6);
        assert_near!(rv, fv, 1e-6);
    }};
    ($r:expr, $d:expr, $x:expr, $qdd:expr, $n:literal, field) => {{
        check_inverse_dynamics_jacobian!($r, $d, $x, $qdd, $n);
        let (r, d, x) = (&$r, &$d, &$x);
        let a = r.accelerations(0.0, x).unwrap();
        let (aq, av) = r.inverse_dynamics_jacobian(0.0, x, &a).unwrap();
        let m = d.mass_matrix(0.0, x).lu();
        let jac = r.jacobian(0.0, x).unwrap();
        assert_near!(-m.solve(&aq).unwrap(), jac.fixed_view::<$n, $n>($n, 0).into_owned(), 1e-10);
        assert_near!(-m.solve(&av).unwrap(), jac.fixed_view::<$n, $n>($n, $n).into_owned(), 1e-10);
    }};
}

/// A model twice, `$recursive` along its tree (`dynamics = recursive`) and `$dense` with the dense
/// M (`dynamics = dense`), from a macro `$model!(name, dynamics, [items], [extra fields])` with the
/// same items and extra parameters (use with `#[macro_use] mod common;`).
#[allow(unused_macros)]
macro_rules! twins_of {
    ($model:ident, $recursive:ident, $dense:ident, $items:tt, $fields:tt) => {
        $model!($recursive, recursive, $items, $fields);
        $model!($dense, dense, $items, $fields);
    };
}
use routh::runtime::{FieldError, VectorField};

/// Deterministic pseudo-random numbers in [lo, hi) (SplitMix64), so tests are reproducible.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed)
    }
    pub fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        lo + (hi - lo) * ((z >> 11) as f64 / (1u64 << 53) as f64)
    }
    pub fn vector<const D: usize>(&mut self, lo: f64, hi: f64) -> SVector<f64, D> {
        SVector::from_fn(|_, _| self.uniform(lo, hi))
    }
}

/// Central finite-difference Jacobian of a vector field, step h·max(1, |xⱼ|).
pub fn jacobian_fd<F: VectorField<D>, const D: usize>(
    f: &F,
    t: f64,
    x: &SVector<f64, D>,
    h: f64,
) -> Result<SMatrix<f64, D, D>, FieldError> {
    let mut j = SMatrix::<f64, D, D>::zeros();
    for k in 0..D {
        let step = h * x[k].abs().max(1.0);
        let mut xp = *x;
        let mut xm = *x;
        xp[k] += step;
        xm[k] -= step;
        let d = (f.field(t, &xp)? - f.field(t, &xm)?) / (2.0 * step);
        j.set_column(k, &d);
    }
    Ok(j)
}

/// Central differences (step h) of the inverse dynamics `tau(x)` at fixed accelerations over the
/// positions and the velocities of x = (q, q̇) (`D = 2N`): (∂τ/∂q, ∂τ/∂q̇).
pub fn inverse_dynamics_fd<const N: usize, const D: usize>(
    tau: impl Fn(&SVector<f64, D>) -> SVector<f64, N>,
    x: &SVector<f64, D>,
    h: f64,
) -> (SMatrix<f64, N, N>, SMatrix<f64, N, N>) {
    assert_eq!(D, 2 * N, "x = (q, q̇)");
    let mut j = SMatrix::<f64, N, D>::zeros();
    for k in 0..D {
        let (mut up, mut down) = (*x, *x);
        up[k] += h;
        down[k] -= h;
        j.set_column(k, &((tau(&up) - tau(&down)) / (2.0 * h)));
    }
    (j.fixed_columns::<N>(0).into_owned(), j.fixed_columns::<N>(N).into_owned())
}

/// max |a − b| / max(1, |b|) over all entries.
pub fn rel_err<const R: usize, const C: usize>(a: &SMatrix<f64, R, C>, b: &SMatrix<f64, R, C>) -> f64 {
    a.iter().zip(b.iter()).map(|(x, y)| (x - y).abs() / y.abs().max(1.0)).fold(0.0, f64::max)
}

/// The attitude and body angular velocity of z-x-z Euler angles (φ, θ, ψ) with rates, written
/// out independently of routh (Goldstein §4.9): R = Rz(φ) Rx(θ) Rz(ψ),
/// ω = (φ̇ sθ sψ + θ̇ cψ, φ̇ sθ cψ − θ̇ sψ, φ̇ cθ + ψ̇).
pub fn euler_zxz(
    [phi, theta, psi]: [f64; 3],
    [pd, td, sd]: [f64; 3],
) -> (routh::nalgebra::UnitQuaternion<f64>, routh::nalgebra::Vector3<f64>) {
    use routh::nalgebra::{UnitQuaternion, Vector3};
    let r = UnitQuaternion::from_axis_angle(&Vector3::z_axis(), phi)
        * UnitQuaternion::from_axis_angle(&Vector3::x_axis(), theta)
        * UnitQuaternion::from_axis_angle(&Vector3::z_axis(), psi);
    let w = Vector3::new(
        pd * theta.sin() * psi.sin() + td * psi.cos(),
        pd * theta.sin() * psi.cos() - td * psi.sin(),
        pd * theta.cos() + sd,
    );
    (r, w)
}

#[path = "../../examples/models/elliptic.rs"]
mod elliptic;
#[allow(unused_imports)]
pub use elliptic::{FreeBodySolution, complete_elliptic_k, jacobi_elliptic};

/// Two runs of one hybrid system on two routes make the same impacts, at least `at_least` of them:
/// the same guards and modes, times to 1e-8, post-impact states to 1e-7.
pub fn same_impacts<const D: usize>(
    a: &routh::runtime::HybridTrajectory<D>,
    b: &routh::runtime::HybridTrajectory<D>,
    at_least: usize,
) {
    assert!(
        a.impacts.len() >= at_least && a.impacts.len() == b.impacts.len(),
        "{} and {} impacts",
        a.impacts.len(),
        b.impacts.len()
    );
    for (p, q) in a.impacts.iter().zip(&b.impacts) {
        assert!((p.t - q.t).abs() < 1e-8 && (p.post - q.post).amax() < 1e-7 && p.guard == q.guard, "{} vs {}", p.t, q.t);
    }
    assert_eq!(a.modes, b.modes);
}
