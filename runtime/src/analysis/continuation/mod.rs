//! Pseudo-arclength continuation of the solution curve of r(u) = 0, r: ℝᴺ⁺¹ → ℝᴺ (*Hybrid
//! periodic orbits* §3.1; Allgower & Georg, *Numerical continuation methods*, ch. 2, 6, 8).
//!
//! The module knows only a [`Problem`]: the residual r and its Jacobian dr, and which unknown is
//! the reported parameter λ (the energy H̄ of a family of periodic orbits). Near a regular point
//! (rank dr = N) the solutions form a curve; along it:
//!
//! * the **oriented tangent** τ(dr) is the unit kernel vector with det([dr; τᵀ]) > 0 (the paper's
//!   eq. (22)), computed from the QR factorisation of drᵀ;
//! * the **predictor** steps along the direction t = d·τ (d = ±1 keeps the direction of travel),
//!   the **corrector** is Newton's method with the Moore–Penrose step, solving
//!   [dr; τᵀ] Δu = −[r; 0] with τ recomputed at every iterate (the foot point nearest to the
//!   prediction);
//! * the **step size** adapts: it grows after a corrector that converged in few iterations, shrinks
//!   after a slow one, and a step whose corrector fails, or whose tangent turns by more than
//!   [`ContinuationOptions::max_angle`], is retried with half the step (so closely spaced special
//!   points are not jumped over);
//! * **special points** are detected between consecutive points and located on the curve by
//!   regula falsi (Illinois) on the arclength of the predictor: a *turning point* where the λ
//!   component of the direction t changes sign, a *simple bifurcation* where the oriented tangent
//!   flips (det([dr; tᵀ]) of the continued direction changes sign; then d := −d keeps the branch);
//!   a *period doubling* where a problem-supplied [`Problem::monitor`] changes sign or touches zero;
//! * [`branch_directions`] computes the two tangents of the branches through a simple bifurcation
//!   point by Lyapunov–Schmidt reduction (kernel and cokernel from the SVD of dr, the reduced
//!   Hessian from central differences of dr, the roots of its quadratic form), so
//!   [`continuation`] can switch branches ([`Start::Along`]).
//!
//! Failures are typed ([`ContinuationError`]); a branch that cannot go on (the step fell below
//! [`ContinuationOptions::min_step`], a point budget, a target reached) ends with a
//! [`BranchStop`] and keeps every point found.

use crate::invariants::Invariants;
use nalgebra::{DMatrix, DVector};
use thiserror::Error;

use crate::error::SimError;

mod bifurcation;
pub mod equilibria;

pub use bifurcation::branch_directions;
use bifurcation::{dips_through_zero, locate, touches_zero};

/// A nonlinear system r(u) = 0 with one more unknown than equations.
pub trait Problem {
    /// The number of unknowns N + 1.
    fn unknowns(&self) -> usize;
    /// The index of the reported parameter λ in u (turning points and targets refer to it).
    fn parameter(&self) -> usize;
    /// r(u) ∈ ℝᴺ and its Jacobian dr(u) (N × (N + 1)).
    ///
    /// # Errors
    /// The evaluation's failure (e.g. an integration error).
    fn linearize(&self, u: &DVector<f64>) -> Result<(DVector<f64>, DMatrix<f64>), SimError>;
    /// An optional test function evaluated at every accepted point whose sign change or zero
    /// touch flags [`Special::PeriodDoubling`] (periodic-orbit problems: det(Φ_T + I)).
    /// `None` (the default) disables the test.
    ///
    /// # Errors
    /// The evaluation's failure.
    fn monitor(&self, u: &DVector<f64>) -> Result<Option<f64>, SimError> {
        let _ = u;
        Ok(None)
    }
    /// Whether a corrected point solves the question the problem stands for, beyond r(u) = 0 —
    /// for periodic orbits found through a dissipative embedding, that its parameter ξ is zero (the
    /// point is an orbit of the model, not only of the embedded field). `Err(reason)` ends the
    /// branch with [`BranchStop::Inadmissible`] before that point. Default: every point is.
    ///
    /// # Errors
    /// Why the point is not admissible.
    fn admissible(&self, u: &DVector<f64>) -> Result<(), String> {
        let _ = u;
        Ok(())
    }
}

/// Failure of a continuation.
#[derive(Debug, Clone, PartialEq, Error)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub enum ContinuationError {
    /// Evaluating the problem failed.
    #[error("evaluating the problem failed: {0}")]
    Problem(#[from] SimError),
    /// Newton's method did not reach the tolerance.
    #[error("the corrector did not converge in {iterations} iterations (residual {residual:e})")]
    NewtonFailed {
        /// Iterations made.
        iterations: usize,
        /// The max norm of the last residual.
        #[cfg_attr(feature = "serde", serde(with = "crate::serde_floats"))]
        residual: f64,
    },
    /// The bordered system [dr; cᵀ] was singular (a non-isolated point, or a border in the
    /// row space of dr).
    #[error("the bordered Jacobian is singular")]
    Singular,
    /// A branch point is not a simple bifurcation (the kernel is not two-dimensional, or the
    /// reduced quadratic form has no real roots).
    #[error("not a simple bifurcation point: {0}")]
    NotSimpleBifurcation(String),
    /// Invalid options or inputs.
    #[error("invalid continuation options: {0}")]
    InvalidOptions(String),
    /// A corrected point (the start of a continuation, or the point of
    /// [`correct_at_parameter`]) solves r(u) = 0 but not the problem's question
    /// ([`Problem::admissible`]).
    #[error("the corrected point is not admissible: {reason}")]
    Inadmissible {
        /// Why it is not admissible.
        reason: String,
        /// The corrected point.
        #[cfg_attr(feature = "serde", serde(with = "crate::serde_floats"))]
        u: DVector<f64>,
    },
}

/// Options of the corrector and of the continuation (builder; [`Default`] for the values below).
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub struct ContinuationOptions {
    /// The corrector converged when max |r| ≤ this. Default `1e-10`.
    #[cfg_attr(feature = "serde", serde(with = "crate::serde_floats"))]
    pub tolerance: f64,
    /// Largest number of Newton iterations per correction. Default `10`.
    pub max_iterations: usize,
    /// The first predictor step (arclength in u). Default `1e-2`.
    #[cfg_attr(feature = "serde", serde(with = "crate::serde_floats"))]
    pub initial_step: f64,
    /// The smallest step before the branch ends with [`BranchStop::StepTooSmall`]. Default `1e-8`.
    #[cfg_attr(feature = "serde", serde(with = "crate::serde_floats"))]
    pub min_step: f64,
    /// The largest step. Default `0.5`.
    #[cfg_attr(feature = "serde", serde(with = "crate::serde_floats"))]
    pub max_step: f64,
    /// The number of continuation steps before [`BranchStop::Points`]. Default `1000`.
    pub max_points: usize,
    /// The largest angle (radians) between consecutive tangents; a larger turn retries the step
    /// halved. Default `0.2`.
    #[cfg_attr(feature = "serde", serde(with = "crate::serde_floats"))]
    pub max_angle: f64,
    /// Stop when λ reaches this value (the last point is corrected with λ held there). Default
    /// none.
    #[cfg_attr(feature = "serde", serde(with = "crate::serde_floats"))]
    pub target: Option<f64>,
    /// Locate special points on the curve (else they are only flagged on the point after them).
    /// Default `true`.
    pub locate: bool,
    /// Arclength tolerance of the location. Default `1e-11`.
    #[cfg_attr(feature = "serde", serde(with = "crate::serde_floats"))]
    pub location_tolerance: f64,
    /// A zero touch of the monitor counts when its local minimum (the parabola through three
    /// consecutive values) reaches below this fraction of the values' scale. Default `1e-3`.
    #[cfg_attr(feature = "serde", serde(with = "crate::serde_floats"))]
    pub touch_tolerance: f64,
    /// Show a progress bar (points, λ, step) on standard error — drawn only when it is a
    /// terminal (indicatif). Default `true`.
    pub progress: bool,
}

impl Default for ContinuationOptions {
    fn default() -> Self {
        ContinuationOptions {
            tolerance: 1e-10,
            max_iterations: 10,
            initial_step: 1e-2,
            min_step: 1e-8,
            max_step: 0.5,
            max_points: 1000,
            max_angle: 0.2,
            target: None,
            locate: true,
            location_tolerance: 1e-11,
            touch_tolerance: 1e-3,
            progress: true,
        }
    }
}

impl ContinuationOptions {
    setters! {
        /// Sets [`ContinuationOptions::tolerance`].
        tolerance: f64,
        /// Sets [`ContinuationOptions::max_iterations`].
        max_iterations: usize,
        /// Sets [`ContinuationOptions::initial_step`].
        initial_step: f64,
        /// Sets [`ContinuationOptions::min_step`].
        min_step: f64,
        /// Sets [`ContinuationOptions::max_step`].
        max_step: f64,
        /// Sets [`ContinuationOptions::max_points`].
        max_points: usize,
        /// Sets [`ContinuationOptions::max_angle`].
        max_angle: f64,
        /// Sets [`ContinuationOptions::locate`].
        locate: bool,
        /// Sets [`ContinuationOptions::location_tolerance`].
        location_tolerance: f64,
        /// Sets [`ContinuationOptions::touch_tolerance`].
        touch_tolerance: f64,
        /// Sets [`ContinuationOptions::progress`].
        progress: bool,
    }
    /// Stop at λ = `value`.
    #[must_use]
    pub fn target(mut self, value: f64) -> Self {
        self.target = Some(value);
        self
    }

    fn validate(&self) -> Result<(), ContinuationError> {
        let positive = |v: f64| v.is_finite() && v > 0.0;
        if !(positive(self.tolerance) && positive(self.initial_step) && positive(self.min_step) && positive(self.max_step))
            || self.min_step > self.max_step
            || !(self.max_angle > 0.0 && self.max_angle < std::f64::consts::FRAC_PI_2)
            || self.max_iterations == 0
        {
            return Err(ContinuationError::InvalidOptions(format!("{self:?}")));
        }
        Ok(())
    }
}

/// A point found by the corrector.
#[derive(Debug, Clone, PartialEq)]
pub struct Corrected {
    /// The solution.
    pub u: DVector<f64>,
    /// dr at the solution.
    pub jacobian: DMatrix<f64>,
    /// Newton iterations made (0: the start already solved r = 0).
    pub iterations: usize,
    /// max |r| at the solution.
    pub residual: f64,
}

fn bordered(j: &DMatrix<f64>, row: &DVector<f64>) -> DMatrix<f64> {
    let (n, m) = j.shape();
    let mut a = DMatrix::zeros(n + 1, m);
    a.rows_mut(0, n).copy_from(j);
    a.row_mut(n).copy_from(&row.transpose());
    a
}

fn solve_bordered(j: &DMatrix<f64>, row: &DVector<f64>, r: &DVector<f64>) -> Result<DVector<f64>, ContinuationError> {
    let mut rhs = DVector::zeros(r.len() + 1);
    rhs.rows_mut(0, r.len()).copy_from(&(-r));
    let du = bordered(j, row).lu().solve(&rhs).ok_or(ContinuationError::Singular)?;
    if du.iter().all(|v| v.is_finite()) { Ok(du) } else { Err(ContinuationError::Singular) }
}

/// The oriented tangent τ(dr) of the paper's eq. (22): dr τ = 0, ‖τ‖ = 1, det([dr; τᵀ]) > 0.
///
/// # Errors
/// [`ContinuationError::Singular`] if dr is not of the expected shape N × (N + 1) or is not
/// finite.
pub fn tangent(j: &DMatrix<f64>) -> Result<DVector<f64>, ContinuationError> {
    let (n, m) = j.shape();
    if m != n + 1 || j.iter().any(|v| !v.is_finite()) {
        return Err(ContinuationError::Singular);
    }
    // The last column of Q in the QR factorisation of the square [drᵀ, 0] is orthogonal to the
    // rows of dr.
    let mut square = DMatrix::zeros(m, m);
    square.columns_mut(0, n).copy_from(&j.transpose());
    let kernel: DVector<f64> = square.qr().q().column(n).into_owned();
    let det = bordered(j, &kernel).lu().determinant();
    Ok(if det < 0.0 { -kernel } else { kernel })
}

/// det([dr; cᵀ]): with c the continued direction, its sign change marks a simple bifurcation.
fn augmented_determinant(j: &DMatrix<f64>, c: &DVector<f64>) -> f64 {
    bordered(j, c).lu().determinant()
}

/// Newton's method with the Moore–Penrose step from `u`: the solution nearest to `u`.
///
/// # Errors
/// [`ContinuationError::NewtonFailed`] without convergence (or on divergence), the problem's
/// errors.
pub fn correct<P: Problem + ?Sized>(
    problem: &P,
    u: &DVector<f64>,
    options: &ContinuationOptions,
) -> Result<Corrected, ContinuationError> {
    newton(problem, u, None, options)
}

/// Newton's method from `u` with λ held at `value` (the row e_λ borders dr): the point of the
/// curve at a given parameter, e.g. a periodic orbit of a given energy.
///
/// # Errors
/// As [`correct`].
pub fn correct_at_parameter<P: Problem + ?Sized>(
    problem: &P,
    u: &DVector<f64>,
    value: f64,
    options: &ContinuationOptions,
) -> Result<Corrected, ContinuationError> {
    if !value.is_finite() {
        return Err(ContinuationError::InvalidOptions(format!("the parameter value must be finite, got {value}")));
    }
    let mut u = u.clone();
    u[problem.parameter()] = value;
    let mut hold = DVector::zeros(u.len());
    hold[problem.parameter()] = 1.0;
    let corrected = newton(problem, &u, Some(&hold), options)?;
    match problem.admissible(&corrected.u) {
        Ok(()) => Ok(corrected),
        Err(reason) => Err(ContinuationError::Inadmissible { reason, u: corrected.u }),
    }
}

fn newton<P: Problem + ?Sized>(
    problem: &P,
    u: &DVector<f64>,
    fixed_border: Option<&DVector<f64>>,
    options: &ContinuationOptions,
) -> Result<Corrected, ContinuationError> {
    if u.len() != problem.unknowns() {
        return Err(ContinuationError::InvalidOptions(format!("u has {} entries, the problem {}", u.len(), problem.unknowns())));
    }
    let mut u = u.clone();
    let mut first = f64::INFINITY;
    for it in 0..=options.max_iterations {
        let (r, j) = problem.linearize(&u)?;
        let residual = r.amax();
        if !residual.is_finite() {
            return Err(ContinuationError::NewtonFailed { iterations: it, residual });
        }
        if residual <= options.tolerance {
            return Ok(Corrected { u, jacobian: j, iterations: it, residual });
        }
        if it == options.max_iterations || (it > 1 && residual > 1e3 * first.max(options.tolerance)) {
            return Err(ContinuationError::NewtonFailed { iterations: it, residual });
        }
        if it == 0 {
            first = residual;
        }
        let border = match fixed_border {
            Some(b) => b.clone(),
            None => tangent(&j)?,
        };
        u += solve_bordered(&j, &border, &r)?;
    }
    unreachable!("the loop returns at its last iteration")
}

/// How a continuation leaves its start.
#[derive(Debug, Clone, PartialEq)]
pub enum Start {
    /// Along the tangent, towards increasing λ.
    Increasing,
    /// Along the tangent, towards decreasing λ.
    Decreasing,
    /// The first predictor goes exactly along this vector (normalized), e.g. a branch direction
    /// from [`branch_directions`] at a bifurcation point where the tangent is not unique; later
    /// tangents are oriented to continue it.
    Along(DVector<f64>),
}

/// A special point of a branch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Special {
    /// λ is extremal: the λ component of the tangent vanishes.
    TurningPoint,
    /// Two branches cross: the oriented tangent flips (rank dr = N − 1).
    SimpleBifurcation,
    /// The problem's [`Problem::monitor`] changes sign or touches zero (for periodic orbits: a
    /// Floquet multiplier passes −1).
    PeriodDoubling,
}

/// One point of a branch.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Point {
    /// The solution u.
    #[cfg_attr(feature = "serde", serde(with = "crate::serde_floats"))]
    pub u: DVector<f64>,
    /// The unit direction of travel t = d·τ at u.
    #[cfg_attr(feature = "serde", serde(with = "crate::serde_floats"))]
    pub direction: DVector<f64>,
    /// det([dr; tᵀ]) with the direction of travel (changes sign at a simple bifurcation).
    #[cfg_attr(feature = "serde", serde(with = "crate::serde_floats"))]
    pub determinant: f64,
    /// The problem's monitor at u, if it has one.
    #[cfg_attr(feature = "serde", serde(with = "crate::serde_floats"))]
    pub monitor: Option<f64>,
    /// Newton iterations of its corrector.
    pub iterations: usize,
    /// The arclength step that reached it (0 for the start and for located points).
    #[cfg_attr(feature = "serde", serde(with = "crate::serde_floats"))]
    pub step: f64,
    /// `Some` for a located special point (inserted between the points it lies between), or —
    /// with [`ContinuationOptions::locate`] off — on the first point after one.
    pub special: Option<Special>,
}

impl Point {
    /// The point at the corrected solution `c`, travelling along `direction` (oriented by the
    /// caller), with the problem's `monitor` there.
    fn at(c: Corrected, direction: DVector<f64>, monitor: Option<f64>, step: f64, special: Option<Special>) -> Point {
        Point {
            determinant: augmented_determinant(&c.jacobian, &direction),
            monitor,
            u: c.u,
            direction,
            iterations: c.iterations,
            step,
            special,
        }
    }
}

/// Why a branch ended.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub enum BranchStop {
    /// [`ContinuationOptions::max_points`] steps were made.
    Points,
    /// λ reached [`ContinuationOptions::target`]; the last point is at the target.
    Target,
    /// The step fell below [`ContinuationOptions::min_step`]; the last error of the corrector.
    StepTooSmall {
        /// The parameter λ at the last point.
        #[cfg_attr(feature = "serde", serde(with = "crate::serde_floats"))]
        parameter: f64,
        /// Why the last retry failed.
        reason: String,
    },
    /// The user's predicate ([`continuation_until`]) asked to stop after the last point.
    Stopped,
    /// Evaluating the problem failed after the start (at a predicted point, even at the minimum
    /// step, or at a corrected one): the branch ends at the last point, which is kept with the
    /// others.
    Failed {
        /// The parameter λ at the last point.
        #[cfg_attr(feature = "serde", serde(with = "crate::serde_floats"))]
        parameter: f64,
        /// What failed.
        error: ContinuationError,
    },
    /// The next point solved r(u) = 0 but not the problem's question ([`Problem::admissible`]):
    /// the branch ends at the last admissible point.
    Inadmissible {
        /// The parameter λ at the inadmissible point.
        #[cfg_attr(feature = "serde", serde(with = "crate::serde_floats"))]
        parameter: f64,
        /// Why it is not admissible.
        reason: String,
        /// The inadmissible point u itself (a solution of r(u) = 0).
        #[cfg_attr(feature = "serde", serde(with = "crate::serde_floats"))]
        u: DVector<f64>,
    },
}

/// A continued branch.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize), serde(remote = "Self"))]
pub struct Branch {
    /// The points, in the order of travel, located special points included.
    pub points: Vec<Point>,
    /// Why it ended.
    pub stop: BranchStop,
    /// Steps rejected and retried smaller (corrector failure or a tangent turning too much).
    pub rejected: usize,
}

impl Branch {
    /// The located (or flagged) special points of one kind.
    pub fn special(&self, kind: Special) -> impl Iterator<Item = &Point> {
        self.points.iter().filter(move |p| p.special == Some(kind))
    }
}

/// Continues the branch through the solution `start` (see the [module docs](self)).
///
/// # Errors
/// [`ContinuationError::InvalidOptions`]; the corrector's errors at the start (it is corrected
/// first); [`ContinuationError::Problem`] when the problem fails to evaluate there. A failure after
/// the start ends the branch instead, keeping its points ([`BranchStop::Failed`]).
pub fn continuation<P: Problem + ?Sized>(
    problem: &P,
    start: &DVector<f64>,
    leave: Start,
    options: &ContinuationOptions,
) -> Result<Branch, ContinuationError> {
    continuation_until(problem, start, leave, options, |_| false)
}

/// [`continuation`] that also stops after the first accepted point for which `stop` is true
/// (e.g. leaving the physical region).
///
/// # Errors
/// As [`continuation`].
pub fn continuation_until<P: Problem + ?Sized>(
    problem: &P,
    start: &DVector<f64>,
    leave: Start,
    options: &ContinuationOptions,
    mut stop: impl FnMut(&Point) -> bool,
) -> Result<Branch, ContinuationError> {
    options.validate()?;
    let p = problem.parameter();
    let first = correct(problem, start, options)?;
    if let Err(reason) = problem.admissible(&first.u) {
        return Err(ContinuationError::Inadmissible { reason, u: first.u });
    }
    let (mut direction, mut regular) = start_direction(&first, &leave, p)?;
    let monitor = problem.monitor(&first.u)?;
    let mut current = Point::at(first, direction.clone(), monitor, 0.0, None);
    let mut points = vec![current.clone()];
    let mut h = options.initial_step.clamp(options.min_step, options.max_step);
    let mut rejected = 0;
    let mut steps = 0;
    let mut previous_monitor: Option<f64> = None;
    let mut doubling_just_found = false;
    let cos_max = options.max_angle.cos();
    let bar = crate::analysis::progress::Progress::new(
        options.max_points as u64,
        "continuation {bar:30} {pos}/{len} points {msg}",
        options.progress,
    );
    let outcome = (|| -> Result<BranchStop, ContinuationError> {
        loop {
            if steps == options.max_points {
                return Ok(BranchStop::Points);
            }
            let predicted = &current.u + &direction * h;
            let outcome = correct(problem, &predicted, options).and_then(|c| {
                let tau = tangent(&c.jacobian)?;
                Ok((tau, c))
            });
            let (tau, corrected) = match outcome {
                Ok(v) => v,
                Err(e @ ContinuationError::Problem(_)) if h <= options.min_step => return Err(e),
                Err(e) => {
                    rejected += 1;
                    h *= 0.5;
                    if h < options.min_step {
                        return Ok(BranchStop::StepTooSmall { parameter: current.u[p], reason: e.to_string() });
                    }
                    continue;
                }
            };
            // Continue the direction of travel; the oriented tangent flipping against it is a simple
            // bifurcation (det([dr; τᵀ]) > 0 always, so det([dr; tᵀ]) changes sign with t = d τ).
            let along = tau.dot(&direction);
            let new_direction = if along >= 0.0 { tau.clone() } else { -tau.clone() };
            let jump = (&corrected.u - &current.u).norm();
            if along.abs() < cos_max || jump > 2.0 * h {
                rejected += 1;
                h *= 0.5;
                if h < options.min_step {
                    return Ok(BranchStop::StepTooSmall { parameter: current.u[p], reason: "the tangent turns too fast".into() });
                }
                continue;
            }
            if let Err(reason) = problem.admissible(&corrected.u) {
                let stop = BranchStop::Inadmissible { parameter: corrected.u[p], reason, u: corrected.u };
                return Ok(stop);
            }
            let monitor = problem.monitor(&corrected.u)?;
            // A monitor that keeps its sign over this step but whose parabola through the last two
            // points and this one (at their arclengths) dips to the other side inside the step: a
            // pair of crossings (a multiplier passing −1 and back) that the step jumped over. Refine
            // until the steps resolve it (no smaller than the minimum step). A parabola that only
            // touches zero is left to the touch test.
            if let (Some(mp), Some(mc), Some(mn)) = (previous_monitor, current.monitor, monitor)
                && current.step > 0.0
                && mc * mn > 0.0
                && !doubling_just_found
                && h * 0.5 >= options.min_step
                && dips_through_zero((-current.step, mp), mc, (h, mn), options.touch_tolerance)
            {
                rejected += 1;
                h *= 0.5;
                continue;
            }
            steps += 1;
            let mut next = Point::at(corrected, new_direction.clone(), monitor, h, None);
            let seen = Seen { regular, previous_monitor, doubling_just_found };
            let (mut located, doubling) = special_points(problem, &current, &mut next, seen, options);
            doubling_just_found = doubling;
            // In the order of travel: by distance from the point they follow.
            located.sort_by(|a, b| (&a.u - &current.u).norm().total_cmp(&(&b.u - &current.u).norm()));
            points.extend(located);
            // Step control from the corrector's effort.
            h = match next.iterations {
                0..=2 => (h * 1.6).min(options.max_step),
                3..=4 => h,
                _ => (h * 0.6).max(options.min_step),
            };
            regular = true;
            direction = new_direction;
            // Aim at the target when it was passed.
            if let Some(target) = options.target
                && (next.u[p] - target) * (current.u[p] - target) <= 0.0
                && next.u[p] != current.u[p]
            {
                let s = (target - current.u[p]) / (next.u[p] - current.u[p]);
                let guess = &current.u + (&next.u - &current.u) * s;
                let at = correct_at_parameter(problem, &guess, target, options)?;
                let tau = tangent(&at.jacobian)?;
                let dir = if tau.dot(&direction) >= 0.0 { tau } else { -tau };
                let monitor = problem.monitor(&at.u)?;
                points.push(Point::at(at, dir, monitor, 0.0, None));
                return Ok(BranchStop::Target);
            }
            previous_monitor = current.monitor;
            bar.set(steps as u64, || format!("λ = {:.6}, step {h:.2e}", next.u[p]));
            current = next.clone();
            points.push(next);
            if stop(&current) {
                return Ok(BranchStop::Stopped);
            }
        }
    })();
    bar.finish();
    // A failure after the start ends the branch, keeping its points.
    let stop =
        outcome.unwrap_or_else(|error| BranchStop::Failed { parameter: points.last().map_or(f64::NAN, |q| q.u[p]), error });
    Ok(Branch { points, stop, rejected })
}

/// The direction a branch leaves its first point in, and whether that point is regular (its
/// tangent oriented by the parameter, not given).
fn start_direction(first: &Corrected, leave: &Start, p: usize) -> Result<(DVector<f64>, bool), ContinuationError> {
    match leave {
        Start::Along(v) => {
            let n = v.norm();
            if !(n.is_finite() && n > 0.0) || v.len() != first.u.len() {
                return Err(ContinuationError::InvalidOptions(
                    "the start direction must be a nonzero vector of the unknowns' size".into(),
                ));
            }
            Ok((v / n, false))
        }
        Start::Increasing | Start::Decreasing => {
            let tau = tangent(&first.jacobian)?;
            let up = matches!(leave, Start::Increasing);
            Ok((if (tau[p] >= 0.0) == up { tau } else { -tau }, true))
        }
    }
}

/// What the step before saw: whether the point it left is regular, the monitor there, and
/// whether it found a period doubling (not to be found twice).
#[derive(Clone, Copy)]
struct Seen {
    regular: bool,
    previous_monitor: Option<f64>,
    doubling_just_found: bool,
}

/// The special points between `current` and `next` — a simple bifurcation (the oriented
/// tangent's determinant changing sign), a turning point (the parameter's direction), a period
/// doubling (the monitor's sign, or a touch) — located where `options` asks (otherwise, or where
/// locating fails, marked on `next`); and whether a period doubling was found.
fn special_points<P: Problem + ?Sized>(
    problem: &P,
    current: &Point,
    next: &mut Point,
    seen: Seen,
    options: &ContinuationOptions,
) -> (Vec<Point>, bool) {
    let Seen { regular, previous_monitor, doubling_just_found } = seen;
    let p = problem.parameter();
    let mut found = Vec::new();
    if regular && current.determinant * next.determinant < 0.0 {
        found.push(Special::SimpleBifurcation);
    }
    if regular && current.direction[p] * next.direction[p] < 0.0 {
        found.push(Special::TurningPoint);
    }
    if let (Some(a), Some(b)) = (current.monitor, next.monitor)
        && (a * b < 0.0 || (!doubling_just_found && touches_zero(previous_monitor, a, b, options.touch_tolerance)))
    {
        found.push(Special::PeriodDoubling);
    }
    let doubling = found.contains(&Special::PeriodDoubling);
    let mut located = Vec::new();
    for kind in found {
        if options.locate {
            match locate(problem, current, next, kind, options) {
                Ok(point) => located.push(point),
                Err(_) => next.special = Some(kind),
            }
        } else {
            next.special = Some(kind);
        }
    }
    (located, doubling)
}

crate::invariants::validated!(Branch);

impl Invariants for Branch {
    fn invariants(&self) -> Result<(), String> {
        let Some(first) = self.points.first() else { return Ok(()) };
        let n = first.u.len();
        match self.points.iter().position(|p| p.u.len() != n || p.direction.len() != n) {
            Some(k) => Err(format!(
                "`points[{k}]` has {} unknowns (direction {}) where `points[0]` has {n}",
                self.points[k].u.len(),
                self.points[k].direction.len()
            )),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// r(x, y, λ) = (x² + y² − λ, x − y) … a circle family; and the pitchfork x (x² − λ) = 0.
    struct Pitchfork;

    impl Problem for Pitchfork {
        fn unknowns(&self) -> usize {
            2
        }
        fn parameter(&self) -> usize {
            1
        }
        fn linearize(&self, u: &DVector<f64>) -> Result<(DVector<f64>, DMatrix<f64>), SimError> {
            let (x, l) = (u[0], u[1]);
            Ok((DVector::from_vec(vec![x * (x * x - l)]), DMatrix::from_row_slice(1, 2, &[3.0 * x * x - l, -x])))
        }
    }

    /// x² + λ² = 1: turning points at λ = ±1 (x = 0).
    struct Circle;

    impl Problem for Circle {
        fn unknowns(&self) -> usize {
            2
        }
        fn parameter(&self) -> usize {
            1
        }
        fn linearize(&self, u: &DVector<f64>) -> Result<(DVector<f64>, DMatrix<f64>), SimError> {
            let (x, l) = (u[0], u[1]);
            Ok((DVector::from_vec(vec![x * x + l * l - 1.0]), DMatrix::from_row_slice(1, 2, &[2.0 * x, 2.0 * l])))
        }
    }

    /// The circle, of which only the points with x < 0 answer the question asked (an embedding
    /// parameter that must vanish, say).
    struct LeftHalf;

    impl Problem for LeftHalf {
        fn unknowns(&self) -> usize {
            2
        }
        fn parameter(&self) -> usize {
            1
        }
        fn linearize(&self, u: &DVector<f64>) -> Result<(DVector<f64>, DMatrix<f64>), SimError> {
            Circle.linearize(u)
        }
        fn admissible(&self, u: &DVector<f64>) -> Result<(), String> {
            if u[0] < 0.0 { Ok(()) } else { Err(format!("x = {} is not negative", u[0])) }
        }
    }

    #[test]
    fn a_branch_ends_where_its_points_stop_being_admissible() {
        let opts = ContinuationOptions::default().initial_step(0.05).max_points(100);
        let branch = continuation(&LeftHalf, &DVector::from_vec(vec![-0.6, 0.8]), Start::Increasing, &opts).unwrap();
        // Every point kept is admissible; the stop names the first that is not, and keeps it.
        assert!(branch.points.iter().all(|p| p.u[0] < 0.0));
        let BranchStop::Inadmissible { parameter, reason, u } = &branch.stop else { panic!("{:?}", branch.stop) };
        assert!(u[0] >= 0.0 && (u[0] * u[0] + parameter * parameter - 1.0).abs() < 1e-9 && reason.contains("not negative"));
        // A start (or a correction at a parameter) that is not admissible is an error with the point.
        let start = continuation(&LeftHalf, &DVector::from_vec(vec![0.6, 0.8]), Start::Increasing, &opts);
        assert!(matches!(start, Err(ContinuationError::Inadmissible { ref u, .. }) if u[0] > 0.0), "{start:?}");
        let at = correct_at_parameter(&LeftHalf, &DVector::from_vec(vec![0.5, 0.0]), 0.6, &opts);
        assert!(matches!(at, Err(ContinuationError::Inadmissible { ref u, .. }) if (u[0] - 0.8).abs() < 1e-9), "{at:?}");
    }

    /// The circle, whose evaluation fails (an integration error, say) for x > 0.5.
    struct FailsRight;

    impl Problem for FailsRight {
        fn unknowns(&self) -> usize {
            2
        }
        fn parameter(&self) -> usize {
            1
        }
        fn linearize(&self, u: &DVector<f64>) -> Result<(DVector<f64>, DMatrix<f64>), SimError> {
            if u[0] > 0.5 { Err(SimError::NonFiniteState { t: u[0] }) } else { Circle.linearize(u) }
        }
        fn monitor(&self, u: &DVector<f64>) -> Result<Option<f64>, SimError> {
            Ok(Some(u[0]))
        }
    }

    #[test]
    fn a_branch_that_fails_later_keeps_its_points() {
        // From (−0.6, 0.8) through the turning point at x = 0 towards x > 0.5, where evaluations
        // fail: with a fixed step the branch was an error and lost every point; now it ends there,
        // keeping them.
        let opts = ContinuationOptions::default().initial_step(0.05).min_step(0.05).max_step(0.05).max_points(200);
        let branch = continuation(&FailsRight, &DVector::from_vec(vec![-0.6, 0.8]), Start::Increasing, &opts).unwrap();
        let BranchStop::Failed { parameter, error: ContinuationError::Problem(SimError::NonFiniteState { .. }) } = &branch.stop
        else {
            panic!("{:?}", branch.stop)
        };
        assert!(branch.points.len() > 10);
        assert!(branch.points.iter().all(|p| p.u[0] <= 0.5 && (p.u[0].powi(2) + p.u[1].powi(2) - 1.0).abs() < 1e-9));
        let last = branch.points.last().unwrap();
        assert!(last.u[0] > 0.3 && *parameter == last.u[1], "{:?}", last.u);
        // The monitor x changed sign on the way: the flag is on the kept part.
        assert_eq!(branch.special(Special::PeriodDoubling).count(), 1);
    }

    /// The parabola test of jumped-over crossing pairs on the SLIP hopper's monitor values (a dip
    /// to −0.13 between the last two) and on the rod's (a touch, the parabola's minimum +0.018).
    #[test]
    fn a_dip_through_zero_is_told_from_a_touch() {
        assert!(dips_through_zero((-0.0486, 2.755), 0.723, (0.0904, 0.129), 1e-3));
        assert!(!dips_through_zero((-0.00181, 16.22), 3.86, (0.00181, 0.0286), 1e-3));
        // Monotone, and a vertex outside the step: no dip.
        assert!(!dips_through_zero((-1.0, 3.0), 2.0, (1.0, 1.0), 1e-3));
        assert!(!dips_through_zero((-1.0, 1.0), 2.0, (1.0, 4.0), 1e-3));
    }

    #[test]
    fn turning_point_of_a_circle_is_located() {
        let opts = ContinuationOptions::default().initial_step(0.05).max_points(30);
        let branch = continuation(&Circle, &DVector::from_vec(vec![-0.6, 0.8]), Start::Increasing, &opts).unwrap();
        let tps: Vec<&Point> = branch.special(Special::TurningPoint).collect();
        assert_eq!(tps.len(), 1, "{:?}", branch.points.iter().map(|p| p.u[1]).collect::<Vec<_>>());
        assert!((tps[0].u[1] - 1.0).abs() < 1e-9 && tps[0].u[0].abs() < 1e-6, "{}", tps[0].u);
        assert!(branch.special(Special::SimpleBifurcation).next().is_none());
    }

    #[test]
    fn pitchfork_is_located_and_its_branches_found() {
        // Along x = 0 (λ increasing) the pitchfork x² = λ crosses at λ = 0.
        let opts = ContinuationOptions::default().initial_step(0.1).max_points(8);
        let branch = continuation(&Pitchfork, &DVector::from_vec(vec![0.0, -0.35]), Start::Increasing, &opts).unwrap();
        let sb: Vec<&Point> = branch.special(Special::SimpleBifurcation).collect();
        assert_eq!(sb.len(), 1);
        assert!(sb[0].u.norm() < 1e-9, "{}", sb[0].u);
        assert!(branch.points.last().unwrap().u[1] > 0.1, "the branch continues past the bifurcation");
        let dirs = branch_directions(&Pitchfork, &sb[0].u, 1e-6).unwrap();
        // The trivial branch (0, 1) and the parabola's vertex direction (1, 0).
        let (along_l, along_x) = if dirs[0][1].abs() > dirs[1][1].abs() { (&dirs[0], &dirs[1]) } else { (&dirs[1], &dirs[0]) };
        assert!(along_l[0].abs() < 1e-6 && along_x[1].abs() < 1e-6, "{along_l} {along_x}");
        let other = continuation(&Pitchfork, &sb[0].u, Start::Along(along_x.clone()), &opts.clone().max_points(5)).unwrap();
        for p in &other.points[1..] {
            assert!(p.u[0].abs() > 1e-3 && (p.u[0] * p.u[0] - p.u[1]).abs() < 1e-9, "on x² = λ: {}", p.u);
        }
    }

    #[test]
    fn a_target_is_hit_and_bad_options_are_errors() {
        let opts = ContinuationOptions::default().initial_step(0.05).target(0.9);
        let branch = continuation(&Circle, &DVector::from_vec(vec![-0.6, 0.8]), Start::Increasing, &opts).unwrap();
        assert_eq!(branch.stop, BranchStop::Target);
        let last = branch.points.last().unwrap();
        assert!((last.u[1] - 0.9).abs() < 1e-14 && (last.u[0] + 0.19f64.sqrt()).abs() < 1e-10);
        let bad = ContinuationOptions::default().min_step(1.0).max_step(0.1);
        assert!(matches!(continuation(&Circle, &last.u, Start::Increasing, &bad), Err(ContinuationError::InvalidOptions(_))));
    }
}
