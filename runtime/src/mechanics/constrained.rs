//! Constrained systems: projection onto the constraint manifold (drift control) and the
//! integration driver that applies it after every step.
//!
//! A generated model with constraints implements [`Constrained`], which extends the central
//! [`MechanicalSystem`] (the kinetic metric as a mass operator, the energy): its rows
//! `A q̇ + b = 0` (holonomic ones through their total derivative) and the position residuals f(t, q)
//! of its holonomic rows. Integrating `M q̈ = f + Aᵀλ, A q̈ + c = 0` keeps the constraints only up to the
//! integration error, which accumulates ("drift"). [`project`] removes it with the kinetic metric:
//!
//! ```text
//! positions  (Gauss–Newton, a few iterations):  [M −Gᵀ; G 0] [Δq; μ] = [0; −g(q)],   q ← q ⊕ Δq
//! velocities (one linear step):                  [M −Aᵀ; A 0] [Δv; μ] = [0; −(A q̇ + b)],   q̇ ← q̇ + Δv
//! ```
//!
//! with `g` the holonomic residuals and `G` their rows (q ⊕ Δq is [`displace`]: q + Δq for
//! coordinates, an orientation turned by the rotation vector Δω): the M-orthogonal projection, the smallest
//! change in the metric of the kinetic energy, solved with the system's mass operator (the Schur
//! complement of M, see [`solve_constrained`](crate::mechanics::solve_constrained)). [`Plan::integrate_constrained`](crate::Plan::integrate_constrained) projects after every
//! accepted step when [`Options::projection`] is on (the default) and reports the residuals in
//! [`Trajectory::constraints`] either way.

use std::ops::Range;

use nalgebra::{SMatrix, SVector};

use crate::error::{FieldError, RunResult, SimError};
use crate::mechanics::linalg::MassOperator;
use crate::mechanics::{MechanicalSystem, Saddle, dense_mass, displace, finite, set_velocities, velocities};
use crate::ode::events::Event;
use crate::ode::integrate::drive;
use crate::ode::options::Options;
use crate::ode::trajectory::{ConstraintReport, Trajectory};

/// A mechanical system with `M` constraint rows on `N` velocities (state dimension `D = 2N`, or
/// more positions with orientations, [`MechanicalSystem::POSITIONS`]), implemented by generated
/// models with constraints; its kinetic metric is the [`MechanicalSystem::mass`] operator. The
/// rows are over the velocities: with orientations, a holonomic row is ∂f/∂q pulled back through
/// q̇ = K v.
pub trait Constrained<const N: usize, const D: usize, const M: usize>: MechanicalSystem<N, D> {
    /// The rows A(t, q) and affine parts b(t, q) of `A q̇ + b = 0`.
    fn rows(&self, t: f64, x: &SVector<f64, D>) -> (SMatrix<f64, M, N>, SVector<f64, M>);
    /// f(t, q) of the holonomic rows, 0 for the others.
    fn position_residuals(&self, t: f64, x: &SVector<f64, D>) -> SVector<f64, M>;
    /// Which rows are holonomic (their row of A is ∇f).
    fn holonomic(&self) -> [bool; M];
    /// Names of the rows.
    fn row_names(&self) -> &'static [&'static str];
}

/// Largest Gauss–Newton iterations of a position projection. Convergence is quadratic near the
/// manifold; far from it each iteration may only halve the distance (a circle from 40 radii away
/// takes about ten), and a start that needs more is reported rather than returned unconverged.
const POSITION_ITERATIONS: usize = 60;

/// A position projection has converged when its last Gauss–Newton correction is at most this,
/// relative to the size of the coordinates (the next one is then at round-off: convergence is
/// quadratic).
const POSITION_CONVERGED: f64 = 1e-8;

/// Residuals of a state: the largest |f| over holonomic rows and |A q̇ + b| over all rows.
pub fn residuals<S, const N: usize, const D: usize, const M: usize>(sys: &S, t: f64, x: &SVector<f64, D>) -> (f64, f64)
where
    S: Constrained<N, D, M> + ?Sized,
{
    let (a, b) = sys.rows(t, x);
    let v = velocities::<S, N, D>(x);
    let g = sys.position_residuals(t, x);
    (g.amax(), (a * v + b).amax())
}

/// Project `x` onto the constraints at time `t` (see the [module docs](self)): Gauss–Newton on the
/// positions of the holonomic rows until the correction falls to round-off, then the velocities
/// onto `A q̇ + b = 0`.
///
/// # Errors
/// [`FieldError::SingularMassMatrix`] or [`FieldError::SingularConstraints`] if the projection's
/// saddle-point system is singular; [`FieldError::ProjectionDiverged`] with the remaining
/// residual if the positions do not converge (the correction stops shrinking above round-off, or
/// too many iterations); [`FieldError::NonFinite`] for a non-finite result.
pub fn project<S, const N: usize, const D: usize, const M: usize>(
    sys: &S,
    t: f64,
    x: &SVector<f64, D>,
) -> Result<SVector<f64, D>, FieldError>
where
    S: Constrained<N, D, M> + ?Sized,
{
    let holonomic = sys.holonomic();
    let rows = sys.row_names();
    let mut x = *x;
    if holonomic.iter().any(|&h| h) {
        let mut last = f64::INFINITY;
        let mut converged = false;
        for _ in 0..POSITION_ITERATIONS {
            let g = sys.position_residuals(t, &x);
            let (a, _) = sys.rows(t, &x);
            // (The rows that are not holonomic are not selected: their entries of −g are ignored.)
            let dq = masked_saddle_point(t, sys.mass(t, &x)?, &a, &holonomic, &(-g), rows)?;
            let size = dq.amax();
            displace::<S, N, D>(&mut x, &dq);
            let scale = (0..S::POSITIONS.min(D)).fold(1.0f64, |s, i| s.max(x[i].abs()));
            // At round-off, or stalled there: the correction no longer shrinks, but it (or the one
            // before, when this one is round-off noise) is within tolerance.
            if size <= 4.0 * f64::EPSILON * scale || (size >= 0.5 * last && size.min(last) <= POSITION_CONVERGED * scale) {
                converged = true;
                break;
            }
            last = size;
        }
        if !converged {
            let g = sys.position_residuals(t, &x);
            let residual = (0..M).filter(|&r| holonomic[r]).map(|r| g[r].abs()).fold(0.0, f64::max);
            return Err(FieldError::ProjectionDiverged { t, residual, rows });
        }
    }
    let (a, b) = sys.rows(t, &x);
    let v = velocities::<S, N, D>(&x);
    let dv = masked_saddle_point(t, sys.mass(t, &x)?, &a, &[true; M], &(-(a * v + b)), rows)?;
    set_velocities::<S, N, D>(&mut x, &(v + dv));
    finite(t, x)
}

/// A state on the constraints from positions and partly known velocities: the positions are
/// projected onto the holonomic constraints (Gauss–Newton, as [`project`]); the velocities marked
/// `known` are kept and the others completed so that `A q̇ + b = 0`, changing the user's values of
/// the unknown ones as little as possible in the kinetic metric:
/// min ½ Δvᵀ M Δv subject to A(v + Δv) + b = 0 and Δvᵢ = 0 for known i. (A one-off solve at
/// initialisation, on dynamic matrices.)
///
/// # Errors
/// [`FieldError::SingularConstraints`] if the known velocities leave the rest undetermined or
/// contradict the constraints (e.g. more known velocities than the constraints leave free),
/// [`FieldError::NonFinite`] for a non-finite result.
pub fn with_known_velocities<S, const N: usize, const D: usize, const M: usize>(
    sys: &S,
    t: f64,
    x: &SVector<f64, D>,
    known: &[bool; N],
) -> Result<SVector<f64, D>, FieldError>
where
    S: Constrained<N, D, M> + ?Sized,
{
    let v_user = velocities::<S, N, D>(x);
    let mut x = project::<S, N, D, M>(sys, t, x)?;
    let fixed: Vec<usize> = (0..N).filter(|&i| known[i]).collect();
    let size = N + M + fixed.len();
    let (a, b) = sys.rows(t, &x);
    let m = dense_mass(&sys.mass(t, &x)?);
    let mut k = nalgebra::DMatrix::<f64>::zeros(size, size);
    let mut rhs = nalgebra::DVector::<f64>::zeros(size);
    let r = a * v_user + b;
    for i in 0..N {
        for j in 0..N {
            k[(i, j)] = m[(i, j)];
        }
        for row in 0..M {
            k[(i, N + row)] = -a[(row, i)];
            k[(N + row, i)] = a[(row, i)];
        }
    }
    for row in 0..M {
        rhs[N + row] = -r[row];
    }
    for (c, &i) in fixed.iter().enumerate() {
        k[(i, N + M + c)] = -1.0;
        k[(N + M + c, i)] = 1.0;
    }
    let rows = sys.row_names();
    let singular = FieldError::SingularConstraints { t, rows };
    let lu = k.lu();
    let sol = lu.solve(&rhs).ok_or(singular.clone())?;
    // A least-squares-free check: the completed velocities must satisfy the constraints.
    let v = SVector::<f64, N>::from_fn(|i, _| v_user[i] + sol[i]);
    let scale = 1.0 + v.amax() * a.amax() + b.amax();
    if !((a * v + b).amax() <= 1e-9 * scale) {
        return Err(singular);
    }
    set_velocities::<S, N, D>(&mut x, &v);
    finite(t, x)
}

/// Solve `[M −Gᵀ; G D] [Δ; μ] = [0; r]` where G is `a` with the unselected rows removed (D = 1 on
/// those rows, so their μ is 0): the M-orthogonal correction Δ with `G Δ = r`, with the mass
/// operator `mass`.
fn masked_saddle_point<const N: usize, const M: usize>(
    t: f64,
    mass: impl MassOperator<N>,
    a: &SMatrix<f64, M, N>,
    selected: &[bool; M],
    r: &SVector<f64, M>,
    rows: &'static [&'static str],
) -> Result<SVector<f64, N>, FieldError> {
    let saddle = Saddle::new(t, mass, a, |row| selected[row], rows)?;
    saddle.correction(r).map_err(|_| FieldError::NonFinite { t })
}

/// Integrate a constrained system from `x0` (see [`Plan::integrate`](crate::Plan::integrate)), projecting onto the
/// constraints after every accepted step when [`Options::projection`] is on (and the initial
/// state too, if it is off the constraints), and report the residuals in
/// [`Trajectory::constraints`].
///
/// # Errors
/// As [`Plan::integrate`](crate::Plan::integrate) (a partial result carries its constraint report); a projection that
/// fails is [`SimError::SingularConstraints`], [`SimError::SingularMassMatrix`] or
/// [`SimError::ProjectionDiverged`].
pub(crate) fn integrate_constrained<S, const N: usize, const D: usize, const M: usize>(
    sys: &S,
    span: Range<f64>,
    x0: SVector<f64, D>,
    events: &[Event<'_, D>],
    options: &Options,
) -> RunResult<Trajectory<D>>
where
    S: Constrained<N, D, M> + ?Sized,
{
    let mut report = ConstraintReport::default();
    let (p0, v0) = residuals(sys, span.start, &x0);
    report.initial = (p0, v0);
    let x0 =
        if options.projection && x0.iter().all(|c| c.is_finite()) { project::<S, N, D, M>(sys, span.start, &x0)? } else { x0 };
    let mut hook = |t: f64, x: &mut SVector<f64, D>| -> Result<(), SimError> {
        report.note_drift(residuals(sys, t, x));
        if options.projection {
            *x = project::<S, N, D, M>(sys, t, x)?;
            report.projections += 1;
        }
        Ok(())
    };
    let run = drive(sys, span, x0, events, options, &mut hook);
    // The report covers the samples of a partial result too.
    let reported = |mut traj: Trajectory<D>| {
        let mut report = report;
        for (&t, x) in traj.times.iter().zip(&traj.states) {
            report.note_sample(residuals(sys, t, x));
        }
        traj.constraints = Some(report);
        traj
    };
    run.map(reported).map_err(|e| e.map_partial(reported))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mechanics::{MassFactor, factor_mass};
    use crate::ode::field::VectorField;
    use nalgebra::{Matrix1, Vector2};

    /// A unit mass on a line held by the "constraint" q² + c = 0: a circle of radius √−c for
    /// c < 0, and no point at all for c > 0.
    struct Bead {
        c: f64,
    }

    impl VectorField<2> for Bead {
        fn field(&self, _t: f64, x: &Vector2<f64>) -> Result<Vector2<f64>, FieldError> {
            Ok(Vector2::new(x[1], 0.0))
        }
    }

    impl MechanicalSystem<1, 2> for Bead {
        type Mass = MassFactor<1>;
        fn mass(&self, t: f64, _x: &Vector2<f64>) -> Result<MassFactor<1>, FieldError> {
            factor_mass(t, Matrix1::new(1.0))
        }
        fn energy(&self, _t: f64, x: &Vector2<f64>) -> f64 {
            0.5 * x[1] * x[1]
        }
    }

    impl Constrained<1, 2, 1> for Bead {
        fn rows(&self, _t: f64, x: &Vector2<f64>) -> (SMatrix<f64, 1, 1>, SVector<f64, 1>) {
            (Matrix1::new(2.0 * x[0]), SVector::zeros())
        }
        fn position_residuals(&self, _t: f64, x: &Vector2<f64>) -> SVector<f64, 1> {
            SVector::from([x[0] * x[0] + self.c])
        }
        fn holonomic(&self) -> [bool; 1] {
            [true]
        }
        fn row_names(&self) -> &'static [&'static str] {
            &["bead"]
        }
    }

    #[test]
    fn a_projection_converges_from_far_away_or_reports_its_residual() {
        // q² = 4 from q = 1e5: Newton halves q for about seventeen iterations, then converges.
        let x = project::<_, 1, 2, 1>(&Bead { c: -4.0 }, 0.0, &Vector2::new(1e5, 3.0)).unwrap();
        assert!((x[0] - 2.0).abs() < 1e-15 && x[1] == 0.0, "{x}");
        // q² = −1 has no solution: Newton wanders, and the projection says so with the residual
        // at its last iterate (at least 1, the least value of q² + 1), not a state off the manifold.
        match project::<_, 1, 2, 1>(&Bead { c: 1.0 }, 0.5, &Vector2::new(0.3, 0.0)) {
            Err(FieldError::ProjectionDiverged { t, residual, rows }) => {
                assert!(t == 0.5 && residual >= 1.0 && rows == ["bead"], "{residual}");
            }
            other => panic!("{other:?}"),
        }
    }

    /// One ordinary coordinate and one orientation: N = 1 + 3 velocities, P = 1 + 4 positions.
    struct Spinner;

    impl VectorField<9> for Spinner {
        fn field(&self, _t: f64, _x: &SVector<f64, 9>) -> Result<SVector<f64, 9>, FieldError> {
            Ok(SVector::zeros())
        }
    }

    impl MechanicalSystem<4, 9> for Spinner {
        type Mass = MassFactor<4>;
        const POSITIONS: usize = 5;
        fn mass(&self, t: f64, _x: &SVector<f64, 9>) -> Result<MassFactor<4>, FieldError> {
            factor_mass(t, SMatrix::<f64, 4, 4>::identity())
        }
        fn energy(&self, _t: f64, _x: &SVector<f64, 9>) -> f64 {
            0.0
        }
    }

    #[test]
    fn displacing_turns_an_orientation_by_its_rotation_vector() {
        let q = nalgebra::UnitQuaternion::from_euler_angles(0.3, -0.4, 1.2);
        let x = SVector::<f64, 9>::from([2.0, q.w, q.i, q.j, q.k, 0.5, 0.1, 0.2, 0.3]);
        assert_eq!(velocities::<Spinner, 4, 9>(&x), nalgebra::Vector4::new(0.5, 0.1, 0.2, 0.3));
        // A finite turn: the quaternion is q ⊗ exp(δω/2), the exact rotation by δω in the body.
        let delta = nalgebra::Vector4::new(-0.25, 0.3, -1.1, 0.7);
        let mut y = x;
        displace::<Spinner, 4, 9>(&mut y, &delta);
        assert_eq!(y[0], 1.75);
        let turned = q * nalgebra::UnitQuaternion::from_scaled_axis(nalgebra::Vector3::new(0.3, -1.1, 0.7));
        let got = nalgebra::Quaternion::new(y[1], y[2], y[3], y[4]);
        assert!((got - *turned.quaternion()).norm() < 1e-15, "{got} vs {turned}");
        assert_eq!(y.fixed_rows::<4>(5), x.fixed_rows::<4>(5), "the velocities are not moved");
        // A small one moves the quaternion along its rate ½ q ⊗ (0, δω) (and keeps its norm).
        let eps = 1e-7;
        let mut z = x;
        displace::<Spinner, 4, 9>(&mut z, &(delta * eps));
        let rate = q.quaternion() * nalgebra::Quaternion::new(0.0, 0.3, -1.1, 0.7) * 0.5;
        let moved = (nalgebra::Quaternion::new(z[1], z[2], z[3], z[4]) - *q.quaternion()) / eps;
        assert!((moved - rate).norm() < 1e-6, "{moved} vs {rate}");
        assert!((nalgebra::Quaternion::new(z[1], z[2], z[3], z[4]).norm() - 1.0).abs() < 1e-15);
        let mut w = x;
        set_velocities::<Spinner, 4, 9>(&mut w, &delta);
        assert_eq!(velocities::<Spinner, 4, 9>(&w), delta);
        assert_eq!(w.fixed_rows::<5>(0), x.fixed_rows::<5>(0));
    }
}
