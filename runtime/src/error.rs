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
#[non_exhaustive]
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

/// Failure of [`Plan::integrate`](crate::Plan::integrate) or [`Plan::hybrid`](crate::Plan::hybrid).
#[derive(Debug, Clone, PartialEq, Error)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub enum SimError {
    /// The step size fell below the allowed minimum (see [`crate::Options::min_step`]):
    /// the problem is probably stiff or has a singularity near `t`.
    #[error("step size underflow at t = {t} (h = {h})")]
    StepSizeUnderflow {
        /// Time at which the integration stopped.
        #[cfg_attr(feature = "serde", serde(with = "crate::serde_floats"))]
        t: f64,
        /// The rejected step size.
        #[cfg_attr(feature = "serde", serde(with = "crate::serde_floats"))]
        h: f64,
    },
    /// The solution became NaN or infinite and shrinking the step did not help.
    #[error("non-finite state at t = {t}")]
    NonFiniteState {
        /// Time at which the integration stopped.
        #[cfg_attr(feature = "serde", serde(with = "crate::serde_floats"))]
        t: f64,
    },
    /// A signal or control law returned a non-finite input (checked at the start of a driven run
    /// and at every sample of a sampled one).
    #[error("input `{name}` is {value} at t = {t}: a signal or control law must return finite inputs")]
    NonFiniteInput {
        /// Time of the evaluation.
        #[cfg_attr(feature = "serde", serde(with = "crate::serde_floats"))]
        t: f64,
        /// The input's index in the model's inputs.
        index: usize,
        /// Its name ([`InputSystem::input_names`](crate::InputSystem::input_names); `"?"` if the
        /// system names none).
        #[cfg_attr(feature = "serde", serde(with = "crate::serde_floats::name"))]
        name: &'static core::primitive::str,
        /// Its value.
        #[cfg_attr(feature = "serde", serde(with = "crate::serde_floats"))]
        value: f64,
    },
    /// The vector field reported a singular mass matrix.
    #[error("mass matrix is singular at t = {t}")]
    SingularMassMatrix {
        /// Time of the failed evaluation.
        #[cfg_attr(feature = "serde", serde(with = "crate::serde_floats"))]
        t: f64,
    },
    /// A saddle-point system had linearly dependent constraint rows (see
    /// [`FieldError::SingularConstraints`]).
    #[error("the constraint rows {rows:?} are linearly dependent at t = {t}")]
    SingularConstraints {
        /// Time of the failed evaluation.
        #[cfg_attr(feature = "serde", serde(with = "crate::serde_floats"))]
        t: f64,
        /// Names of the rows of the system.
        #[cfg_attr(feature = "serde", serde(with = "crate::serde_floats::names"))]
        rows: &'static [&'static str],
    },
    /// The projection onto the position constraints did not converge (see
    /// [`FieldError::ProjectionDiverged`]).
    #[error("the projection onto the constraints {rows:?} did not converge at t = {t}: residual {residual:e}")]
    ProjectionDiverged {
        /// Time of the projection.
        #[cfg_attr(feature = "serde", serde(with = "crate::serde_floats"))]
        t: f64,
        /// The largest |f(t, q)| of the holonomic rows at the last iterate.
        #[cfg_attr(feature = "serde", serde(with = "crate::serde_floats"))]
        residual: f64,
        /// Names of the constraint rows.
        #[cfg_attr(feature = "serde", serde(with = "crate::serde_floats::names"))]
        rows: &'static [&'static str],
    },
    /// More than [`crate::Options::max_steps`] step attempts were needed.
    #[error("step limit of {steps} reached at t = {t}")]
    StepLimit {
        /// Time reached.
        #[cfg_attr(feature = "serde", serde(with = "crate::serde_floats"))]
        t: f64,
        /// The limit that was hit.
        steps: usize,
    },
    /// The run was cancelled through its [`crate::Monitor`]; `t` is the time reached.
    #[error("cancelled at t = {t}")]
    Cancelled {
        /// Time reached (the end of the last accepted step).
        #[cfg_attr(feature = "serde", serde(with = "crate::serde_floats"))]
        t: f64,
    },
    /// An option was out of range; the message names it.
    #[error("invalid options: {0}")]
    InvalidOptions(String),
    /// The initial state contains NaN or infinite components, or an orientation whose quaternion
    /// has zero norm (no rotation; a nonzero one is scaled to unit length when a run starts).
    #[error("initial state contains non-finite values, or an orientation's quaternion of zero norm")]
    InvalidInitialState,
    /// The time span has a non-finite end point (or its length overflows), or it runs backward
    /// for a hybrid simulation (which runs forward in time only).
    #[error("invalid time span {t0}..{t1}{}", backward_note(*.t0, *.t1))]
    InvalidTimeSpan {
        /// Start of the span.
        #[cfg_attr(feature = "serde", serde(with = "crate::serde_floats"))]
        t0: f64,
        /// End of the span.
        #[cfg_attr(feature = "serde", serde(with = "crate::serde_floats"))]
        t1: f64,
    },
    /// A mode index is out of range: the initial mode of [`Plan::hybrid`](crate::Plan::hybrid) or the
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
        #[cfg_attr(feature = "serde", serde(with = "crate::serde_floats::name"))]
        name: &'static core::primitive::str,
        /// Its value.
        #[cfg_attr(feature = "serde", serde(with = "crate::serde_floats"))]
        value: f64,
        /// What is wrong with it.
        #[cfg_attr(feature = "serde", serde(with = "crate::serde_floats::name"))]
        reason: &'static core::primitive::str,
    },
    /// A reset returned a non-finite state or [`FieldError::NonFinite`].
    #[error("reset of guard `{guard}` failed at t = {t}")]
    ResetFailed {
        /// Time of the impact.
        #[cfg_attr(feature = "serde", serde(with = "crate::serde_floats"))]
        t: f64,
        /// Name of the guard whose reset failed.
        #[cfg_attr(feature = "serde", serde(with = "crate::serde_floats::name"))]
        guard: &'static core::primitive::str,
    },
    /// A guard function or its rate returned NaN or an infinity.
    #[error("guard `{guard}` is not finite at t = {t}")]
    NonFiniteGuard {
        /// Time of the evaluation.
        #[cfg_attr(feature = "serde", serde(with = "crate::serde_floats"))]
        t: f64,
        /// Name of the guard.
        #[cfg_attr(feature = "serde", serde(with = "crate::serde_floats::name"))]
        guard: &'static core::primitive::str,
    },
    /// The state is on the inadmissible side of a guard (`h` below minus the contact
    /// tolerance) where it must not be: the initial state, or the state a reset produced.
    #[error("guard `{guard}` is violated at t = {t} (h = {value})")]
    GuardViolated {
        /// Time of the check.
        #[cfg_attr(feature = "serde", serde(with = "crate::serde_floats"))]
        t: f64,
        /// Name of the guard.
        #[cfg_attr(feature = "serde", serde(with = "crate::serde_floats::name"))]
        guard: &'static core::primitive::str,
        /// The guard value `h`.
        #[cfg_attr(feature = "serde", serde(with = "crate::serde_floats"))]
        value: f64,
    },
    /// The Newton iteration of a discrete (variational) step did not converge: the step h is
    /// probably too large for the motion, or the discrete Legendre map is not invertible there.
    #[error(
        "the Newton iteration of the discrete step at t = {t} did not converge in {iterations} iterations (last correction {correction:e})"
    )]
    NewtonFailed {
        /// Time at the start of the step.
        #[cfg_attr(feature = "serde", serde(with = "crate::serde_floats"))]
        t: f64,
        /// Iterations done.
        iterations: usize,
        /// Size (max norm) of the last Newton correction.
        #[cfg_attr(feature = "serde", serde(with = "crate::serde_floats"))]
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
        #[cfg_attr(feature = "serde", serde(with = "crate::serde_floats"))]
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
        #[cfg_attr(feature = "serde", serde(with = "crate::serde_floats"))]
        energy: f64,
        /// The embedding parameter ξ of the solution.
        #[cfg_attr(feature = "serde", serde(with = "crate::serde_floats"))]
        xi: f64,
        /// The tolerance on |ξ| (`ShootingOptions::xi_tolerance`).
        #[cfg_attr(feature = "serde", serde(with = "crate::serde_floats"))]
        tolerance: f64,
    },
    /// A step of the contact variational integrator carries the variations of the action by a
    /// factor ≤ 0 (1 + D₃L_d, or ∂z_a/∂z_k of the action its quadrature predicts; see
    /// [`crate::discrete::ContactDiscreteSystem::action_factor`]): it reverses them where the flow
    /// scales them by the positive exp(∫ ∂L/∂z dt), so it approximates no contact flow — h is
    /// beyond the time scale of the dissipation (for L = … − γz at the midpoint, 1 − γh/2).
    #[error(
        "the contact step at t = {t} carries the action's variations by the factor {factor:e} ≤ 0 (h = {h}): a step this long reverses them and follows no contact flow; take h well below the dissipation's time scale"
    )]
    ContactStepTooLarge {
        /// Time at the start of the step.
        #[cfg_attr(feature = "serde", serde(with = "crate::serde_floats"))]
        t: f64,
        /// The step.
        #[cfg_attr(feature = "serde", serde(with = "crate::serde_floats"))]
        h: f64,
        /// The least action-update factor at the step's nodes.
        #[cfg_attr(feature = "serde", serde(with = "crate::serde_floats"))]
        factor: f64,
    },
    /// The Jacobian of a discrete step, ∂(−D₁L_d − f⁻)/∂q_{k+1}, is singular: the discrete
    /// Lagrangian is not regular there (e.g. a step h far too large).
    #[error("the Jacobian of the discrete step at t = {t} is singular")]
    SingularStepJacobian {
        /// Time at the start of the step.
        #[cfg_attr(feature = "serde", serde(with = "crate::serde_floats"))]
        t: f64,
    },
    /// The run from a periodic-orbit guess is not one period of the problem: it does not return
    /// to the Poincaré section or anchor, or its impacts do not follow the phase sequence (a
    /// guess too far from the orbit, or a sequence that does not describe it).
    #[error("the run is not one period of the problem: {reason}")]
    NotOnePeriod {
        /// What the run did instead.
        reason: String,
    },
    /// A continuation with a fixed step stopped before its end: the corrector could not follow
    /// the family from the parameter value reached (the step is the option to change).
    #[error("the continuation stopped at the parameter value {parameter} ({reason}); try a smaller step")]
    ContinuationStopped {
        /// The last parameter value on the family.
        #[cfg_attr(feature = "serde", serde(with = "crate::serde_floats"))]
        parameter: f64,
        /// Why the next step failed.
        reason: String,
    },
    /// A reset whose guard is crossed tangentially (dh/dt = 0 or not finite at the impact): the
    /// impact time does not depend smoothly on the state there, so the reset has no saltation
    /// matrix (variational equations and Poincaré-map Jacobians stop at it).
    #[error("the reset of guard `{guard}` at t = {t} is grazing (dh/dt = {rate}): it has no saltation matrix")]
    Grazing {
        /// Time of the impact.
        #[cfg_attr(feature = "serde", serde(with = "crate::serde_floats"))]
        t: f64,
        /// The guard's name.
        guard: String,
        /// Its rate dh/dt there.
        #[cfg_attr(feature = "serde", serde(with = "crate::serde_floats"))]
        rate: f64,
    },
    /// An argument that is not an option is out of range (a vector of the wrong size, a
    /// non-finite target value); the message names it.
    #[error("invalid argument: {0}")]
    InvalidArgument(String),
    /// A result that ran to its end cannot be written (serde refused it, e.g. a map with keys
    /// that are not strings); the message is serde's. A sweep records it as that member's failure.
    #[error("the result does not serialize: {0}")]
    NotSerializable(String),
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

/// A run that failed: the error, and the work it had done — kept by default.
///
/// The runs that accumulate work ([`Plan::integrate`](crate::Plan::integrate), [`Plan::hybrid`](crate::Plan::hybrid), the
/// discrete integrators, the reduced runs, [`crate::periodic::continue_orbits`]) return
/// `Result<T, RunError<T>>` ([`RunResult`]). When the failure comes after the first step (a step
/// limit, a step-size underflow, a field or reset error, a Newton failure, a cancellation),
/// [`RunError::partial`] holds the result up to the last good step — samples, events, impacts,
/// nodes, the state to resume from — exactly what the run would have returned had it been asked
/// to stop there, its stop reason being the failure. Errors before any work (options, time span,
/// initial state, parameters) have no partial result.
///
/// `?` turns it into its [`SimError`] where only the error is wanted; with
/// [`crate::Options::keep_partial`] the plain integrators return the partial result as `Ok`
/// instead, with the failure as its stop reason.
///
/// ```
/// use routh_runtime::{FieldError, Flow, Options, SimError, Simulate, StopReason, nalgebra::Vector2};
/// let osc = |_t: f64, x: &Vector2<f64>| -> Result<Vector2<f64>, FieldError> { Ok(Vector2::new(x[1], -x[0])) };
/// let failure = Flow(&osc).run(Vector2::new(1.0, 0.0)).span(0.0..100.0).options(&Options::default().max_steps(20)).go()
///     .unwrap_err();
/// assert!(matches!(failure.error, SimError::StepLimit { steps: 20, .. }));
/// let partial = failure.partial.expect("twenty steps were made");
/// assert!(matches!(partial.stop, StopReason::Failed(SimError::StepLimit { .. })));
/// let (t, x) = partial.end; // resume from here
/// assert!(t > 0.0 && (x[0] - t.cos()).abs() < 1e-6);
/// ```
#[derive(Debug, Clone, PartialEq, Error)]
#[error("{error}")]
pub struct RunError<T> {
    /// Why the run failed.
    pub error: SimError,
    /// The work done up to the failure; `None` for a failure before any work.
    pub partial: Option<Box<T>>,
}

/// The result of a run that keeps its work on failure (see [`RunError`]).
pub type RunResult<T> = Result<T, RunError<T>>;

impl<T> RunError<T> {
    /// A failure with the work done before it.
    #[must_use]
    pub fn with_partial(error: SimError, partial: T) -> Self {
        RunError { error, partial: Some(Box::new(partial)) }
    }

    /// The same failure with its partial result converted (`None` stays `None`).
    #[must_use]
    pub fn map_partial<U>(self, f: impl FnOnce(T) -> U) -> RunError<U> {
        RunError { error: self.error, partial: self.partial.map(|p| Box::new(f(*p))) }
    }
}

impl<T> From<SimError> for RunError<T> {
    /// A failure before any work: no partial result.
    fn from(error: SimError) -> Self {
        RunError { error, partial: None }
    }
}

impl<T> From<FieldError> for RunError<T> {
    fn from(error: FieldError) -> Self {
        SimError::from(error).into()
    }
}

impl<T> From<RunError<T>> for SimError {
    /// The error alone, the partial result dropped.
    fn from(e: RunError<T>) -> Self {
        e.error
    }
}

impl<T> PartialEq<SimError> for RunError<T> {
    /// Whether the run failed with this error (whatever work it kept).
    fn eq(&self, other: &SimError) -> bool {
        self.error == *other
    }
}
