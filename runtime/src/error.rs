//! Error types.
//!
//! Three layers of failure are distinguished:
//!
//! * [`SingularMatrix`] — a dense linear solve ([`crate::solve_mass`]) found no usable pivot;
//! * [`FieldError`] — evaluating a vector field `F(t, x)` failed (generated code maps a
//!   [`SingularMatrix`] to [`FieldError::SingularMassMatrix`] with [`SingularMatrix::at`]);
//! * [`SimError`] — the integration as a whole failed; a [`FieldError`] converts into it with `?`.

use thiserror::Error;

/// Failure to evaluate a vector field `x' = F(t, x)`.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum FieldError {
    /// The mass matrix `M(q)` could not be factorised at time `t`.
    #[error("mass matrix is singular at t = {t}")]
    SingularMassMatrix {
        /// Time of the failed evaluation.
        t: f64,
    },
    /// The field produced a NaN or an infinity at time `t`.
    #[error("non-finite value in the vector field at t = {t}")]
    NonFinite {
        /// Time of the failed evaluation.
        t: f64,
    },
    /// The constraint rows of a saddle-point (KKT) system `[M −Aᵀ; A 0]` are linearly dependent
    /// at time `t` (M itself is regular): e.g. the one-forms of a restitution law.
    #[error("the constraint rows {rows:?} are linearly dependent at t = {t}")]
    SingularConstraints {
        /// Time of the failed evaluation.
        t: f64,
        /// Names of the rows (constraints or one-forms) of the system.
        rows: &'static [&'static str],
    },
    /// The projection onto the position constraints did not converge: after its Gauss–Newton
    /// iterations the largest holonomic residual |f(t, q)| is still `residual` (a state too far
    /// from the constraint manifold, or a manifold with no nearby point).
    #[error("the projection onto the constraints {rows:?} did not converge at t = {t}: residual {residual:e}")]
    ProjectionDiverged {
        /// Time of the projection.
        t: f64,
        /// The largest |f(t, q)| of the holonomic rows at the last iterate.
        residual: f64,
        /// Names of the constraint rows.
        rows: &'static [&'static str],
    },
}

/// A linear system had no unique, finite solution.
///
/// Returned by [`crate::solve_mass`] and [`crate::solve_mass_columns`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Error)]
#[error("singular matrix")]
pub struct SingularMatrix;

impl SingularMatrix {
    /// Attach the time of the evaluation, giving [`FieldError::SingularMassMatrix`].
    ///
    /// ```
    /// use routh_runtime::{FieldError, SingularMatrix};
    /// assert_eq!(SingularMatrix.at(2.0), FieldError::SingularMassMatrix { t: 2.0 });
    /// ```
    #[must_use]
    pub fn at(self, t: f64) -> FieldError {
        FieldError::SingularMassMatrix { t }
    }
}

/// Failure of [`crate::integrate()`] or [`crate::simulate_hybrid()`].
#[derive(Debug, Clone, PartialEq, Error, serde::Serialize)]
pub enum SimError {
    /// The step size fell below the allowed minimum (see [`crate::Options::min_step`]):
    /// the problem is probably stiff or has a singularity near `t`.
    #[error("step size underflow at t = {t} (h = {h})")]
    StepSizeUnderflow {
        /// Time at which the integration stopped.
        t: f64,
        /// The rejected step size.
        h: f64,
    },
    /// The solution became NaN or infinite and shrinking the step did not help.
    #[error("non-finite state at t = {t}")]
    NonFiniteState {
        /// Time at which the integration stopped.
        t: f64,
    },
    /// The vector field reported a singular mass matrix.
    #[error("mass matrix is singular at t = {t}")]
    SingularMassMatrix {
        /// Time of the failed evaluation.
        t: f64,
    },
    /// A saddle-point system had linearly dependent constraint rows (see
    /// [`FieldError::SingularConstraints`]).
    #[error("the constraint rows {rows:?} are linearly dependent at t = {t}")]
    SingularConstraints {
        /// Time of the failed evaluation.
        t: f64,
        /// Names of the rows of the system.
        rows: &'static [&'static str],
    },
    /// The projection onto the position constraints did not converge (see
    /// [`FieldError::ProjectionDiverged`]).
    #[error("the projection onto the constraints {rows:?} did not converge at t = {t}: residual {residual:e}")]
    ProjectionDiverged {
        /// Time of the projection.
        t: f64,
        /// The largest |f(t, q)| of the holonomic rows at the last iterate.
        residual: f64,
        /// Names of the constraint rows.
        rows: &'static [&'static str],
    },
    /// More than [`crate::Options::max_steps`] step attempts were needed.
    #[error("step limit of {steps} reached at t = {t}")]
    StepLimit {
        /// Time reached.
        t: f64,
        /// The limit that was hit.
        steps: usize,
    },
    /// The run was cancelled through its [`crate::Monitor`]; `t` is the time reached.
    #[error("cancelled at t = {t}")]
    Cancelled {
        /// Time reached (the end of the last accepted step).
        t: f64,
    },
    /// An option was out of range; the message names it.
    #[error("invalid options: {0}")]
    InvalidOptions(String),
    /// The initial state contains NaN or infinite components.
    #[error("initial state contains non-finite values")]
    InvalidInitialState,
    /// The time span has a non-finite end point (or its length overflows), or it runs backward
    /// for a hybrid simulation (which runs forward in time only).
    #[error("invalid time span {t0}..{t1}{}", backward_note(*.t0, *.t1))]
    InvalidTimeSpan {
        /// Start of the span.
        t0: f64,
        /// End of the span.
        t1: f64,
    },
    /// A mode index is out of range: the initial mode of [`crate::simulate_hybrid`] or the
    /// mode returned by a reset.
    #[error("mode {mode} does not exist (the system has {modes} modes)")]
    InvalidMode {
        /// The offending mode index.
        mode: usize,
        /// [`crate::HybridSystem::mode_count`].
        modes: usize,
    },
    /// A model parameter is unusable: not finite, or a restitution coefficient below zero.
    #[error("parameter `{name}` = {value} is invalid: {reason}")]
    InvalidParameter {
        /// The parameter (struct field).
        name: &'static str,
        /// Its value.
        value: f64,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// A reset returned a non-finite state or [`FieldError::NonFinite`].
    #[error("reset of guard `{guard}` failed at t = {t}")]
    ResetFailed {
        /// Time of the impact.
        t: f64,
        /// Name of the guard whose reset failed.
        guard: &'static str,
    },
    /// A guard function or its rate returned NaN or an infinity.
    #[error("guard `{guard}` is not finite at t = {t}")]
    NonFiniteGuard {
        /// Time of the evaluation.
        t: f64,
        /// Name of the guard.
        guard: &'static str,
    },
    /// The state is on the inadmissible side of a guard (`h` below minus the contact
    /// tolerance) where it must not be: the initial state, or the state a reset produced.
    #[error("guard `{guard}` is violated at t = {t} (h = {value})")]
    GuardViolated {
        /// Time of the check.
        t: f64,
        /// Name of the guard.
        guard: &'static str,
        /// The guard value `h`.
        value: f64,
    },
    /// The Newton iteration of a discrete (variational) step did not converge: the step h is
    /// probably too large for the motion, or the discrete Legendre map is not invertible there.
    #[error(
        "the Newton iteration of the discrete step at t = {t} did not converge in {iterations} iterations (last correction {correction:e})"
    )]
    NewtonFailed {
        /// Time at the start of the step.
        t: f64,
        /// Iterations done.
        iterations: usize,
        /// Size (max norm) of the last Newton correction.
        correction: f64,
    },
    /// The Newton iteration of a shooting problem (a periodic orbit at a given energy) did not
    /// converge: the guess is too far from an orbit, or the section is not crossed as expected.
    #[error(
        "the shooting Newton iteration did not converge in {iterations} iterations (residual {residual:e}): start closer to an orbit"
    )]
    ShootingFailed {
        /// Iterations done.
        iterations: usize,
        /// The max norm of the last residual.
        residual: f64,
    },
    /// A run of an ensemble panicked (in the caller's code: the runtime does not panic); the other
    /// runs' results are kept.
    #[error("run {run} of the ensemble panicked: {message}")]
    Panicked {
        /// The index of the run in the ensemble's inputs.
        run: usize,
        /// The panic's message.
        message: String,
    },
    /// A periodic orbit was found only for the dissipative embedding f + ξ∇H with ξ beyond the
    /// tolerance: it is an orbit of the embedded field, not of the model (a model that loses or
    /// gains energy along the orbit has none at this energy).
    #[error(
        "no periodic orbit of the model at H̄ = {energy}: the solution needs the embedding parameter ξ = {xi:e} (|ξ| > {tolerance:e}), so it is an orbit of the embedded field f + ξ∇H, not of the model"
    )]
    NotPeriodic {
        /// The energy H̄ of the solution.
        energy: f64,
        /// The embedding parameter ξ of the solution.
        xi: f64,
        /// The tolerance on |ξ| (`ShootingOptions::xi_tolerance`).
        tolerance: f64,
    },
    /// The Jacobian of a discrete step, ∂(−D₁L_d − f⁻)/∂q_{k+1}, is singular: the discrete
    /// Lagrangian is not regular there (e.g. a step h far too large).
    #[error("the Jacobian of the discrete step at t = {t} is singular")]
    SingularStepJacobian {
        /// Time at the start of the step.
        t: f64,
    },
}

impl From<FieldError> for SimError {
    fn from(e: FieldError) -> Self {
        match e {
            FieldError::SingularMassMatrix { t } => SimError::SingularMassMatrix { t },
            FieldError::NonFinite { t } => SimError::NonFiniteState { t },
            FieldError::SingularConstraints { t, rows } => SimError::SingularConstraints { t, rows },
            FieldError::ProjectionDiverged { t, residual, rows } => SimError::ProjectionDiverged { t, residual, rows },
        }
    }
}

/// The explanation of a backward span (only hybrid runs reject those: resets are not invertible).
fn backward_note(t0: f64, t1: f64) -> &'static str {
    if t1 < t0 { " (hybrid simulation runs forward in time only: resets are not invertible)" } else { "" }
}
