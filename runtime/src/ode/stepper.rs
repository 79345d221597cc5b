//! The one adaptive step loop: Dormand–Prince 5(4) steps under PI step-size control.
//!
//! [`Integrator`] owns everything about stepping — the stages, the controller, the tolerances,
//! the step floor and the step budget — and exposes it one accepted step at a time:
//! [`Integrator::step`] attempts steps until one is accepted and returns it; the *driver* decides
//! what to do with it (store output, locate events, stop at a guard, project onto constraints,
//! shoot) and asks for its dense output ([`Integrator::dense`]) only if it needs it. Plain
//! integration ([`Plan::integrate`](crate::Plan::integrate)) and every segment of a hybrid run
//! ([`Plan::hybrid`](crate::Plan::hybrid)) are such drivers. The integrator is generic over its
//! [`State`], so a flow with its variational matrix integrates with the same code.
//!
//! # Step-size control
//!
//! Each attempt's scaled error `err` ([`crate::ode::method::Tolerances`], RMS norm) decides
//! acceptance (`err ≤ 1`). The next step size follows Hairer's PI ("Lund-stabilised")
//! controller of DOPRI5:
//!
//! ```text
//! fac  = clamp( err^{1/5 − 0.75 β} / (err_prev^β · 0.9),  1/10,  5 ),    β = 0.04
//! h_new = h / fac
//! ```
//!
//! i.e. the step grows at most ×10 and shrinks at most ×5 (`err_prev` is the error of the last
//! accepted step, at least `1e-4`). After a rejection the step is not allowed to grow. A step
//! that produces NaN/∞ (in a stage, the new state, or as [`FieldError::NonFinite`] from the
//! field) is rejected and halved; if that drives the step below its floor,
//! [`SimError::NonFiniteState`] is reported instead of [`SimError::StepSizeUnderflow`].
//! The last step is stretched by up to 1 % to land exactly on the end of the span.
//!
//! # Controller hooks
//!
//! A driver may judge an attempt beyond its error estimate through [`StepControl`]: after the
//! error test passes, [`StepControl::check`] sees the attempt (with its dense output if
//! [`StepControl::wants_dense`]) and returns a [`Verdict`] — a ratio that enters the controller
//! like the error (the hybrid engine's guard-resolution control), or a forced shrink with the
//! error to report if shrinking cannot help (a guard that is NaN deep in the inadmissible
//! region).
//!
//! ```
//! use routh_runtime::nalgebra::Vector2;
//! use routh_runtime::{FieldError, Integrator, Options};
//!
//! // x'' = −x from (1, 0): step to t = 1 by hand and compare with cos t.
//! let osc = |_t: f64, x: &Vector2<f64>| -> Result<Vector2<f64>, FieldError> { Ok(Vector2::new(x[1], -x[0])) };
//! let opts = Options::default().rtol(1e-10).atol(1e-12);
//! let mut integ = Integrator::new(&osc, 0.0, Vector2::new(1.0, 0.0), 1.0, &opts)?;
//! loop {
//!     let step = integ.step(&mut ())?;
//!     // The dense output of this step, on demand.
//!     let mid = integ.dense()?.eval(0.5 * (step.t + step.t_new));
//!     assert!((mid[0] - (0.5 * (step.t + step.t_new)).cos()).abs() < 1e-8);
//!     if step.last { break; }
//! }
//! let (t, x) = integ.current();
//! assert_eq!(t, 1.0);
//! assert!((x[0] - 1f64.cos()).abs() < 1e-9);
//! # Ok::<(), routh_runtime::SimError>(())
//! ```
//!
//! [`FieldError::NonFinite`]: crate::FieldError::NonFinite

use crate::error::SimError;
use crate::ode::dopri5::{self, Dense};
use crate::ode::method::Tolerances;
use crate::ode::method::{Attempt, Method, Selected};
use crate::ode::options::Options;
use crate::ode::state::{State, StateField};
use crate::ode::trajectory::Stats;

const BETA: f64 = 0.04;
const SAFE: f64 = 0.9;
/// `ln(1e-4)`: the previous error enters the controller as at least `1e-4`.
const LN_ERR_MIN: f64 = -9.210_340_371_976_182;
/// Largest shrink factor `1/facmin`.
const FACC1: f64 = 1.0 / 0.2;
/// Smallest shrink factor `1/facmax`.
const FACC2: f64 = 1.0 / 10.0;

/// An attempted step whose error estimate passed, as a [`StepControl`] sees it.
pub struct Trial<'a, S> {
    /// Start of the step.
    pub t: f64,
    /// Signed step size.
    pub h: f64,
    /// End of the step (`t + h`, or exactly the end of the span for the last step).
    pub t_new: f64,
    /// The state at `t_new`.
    pub x_new: &'a S,
    /// The step floor at `t` (the larger of [`Options::min_step`] and `10·ε·|t|`).
    pub floor: f64,
    /// The dense output of the step, if [`StepControl::wants_dense`].
    pub dense: Option<&'a Dense<S>>,
}

/// What a [`StepControl`] says of a [`Trial`].
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    /// A mismatch ratio like the scaled error: `≤ 1` accepts the step and enters the step-size
    /// controller (the larger of error and ratio counts); `> 1` rejects it and shrinks the step
    /// as the controller would for that error.
    Ratio(f64),
    /// Reject the step and multiply its size by `factor ∈ (0, 1)`. If the step then falls
    /// below its floor, `cause` (if any) is the error reported instead of
    /// [`SimError::StepSizeUnderflow`].
    Shrink {
        /// The factor applied to the step size.
        factor: f64,
        /// The error to report if shrinking reaches the step floor.
        cause: Option<SimError>,
    },
}

/// A driver's judgement of an attempted step beyond its error estimate.
///
/// `()` is the control that accepts every step the error estimate accepts.
pub trait StepControl<S> {
    /// Whether [`Trial::dense`] is needed by [`StepControl::check`] (it is then computed for
    /// every trial and kept for [`Integrator::dense`]).
    fn wants_dense(&self) -> bool {
        false
    }
    /// Judge a trial step that passed the error test.
    fn check(&mut self, trial: &Trial<'_, S>) -> Verdict;
}

impl<S> StepControl<S> for () {
    #[inline]
    fn check(&mut self, _trial: &Trial<'_, S>) -> Verdict {
        Verdict::Ratio(0.0)
    }
}

/// An accepted step, returned by [`Integrator::step`]; its end state is
/// [`Integrator::x_new`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Step {
    /// Start of the step.
    pub t: f64,
    /// Signed step size.
    pub h: f64,
    /// End of the step.
    pub t_new: f64,
    /// Whether the step ends the span.
    pub last: bool,
}

/// Why the last rejection happened, for the error reported at the step floor.
enum Cause {
    None,
    NonFinite,
    Control(SimError),
}

/// The adaptive integrator from `t0` towards `t_end`, one accepted step at a time (see the
/// [module docs](self)), with the [`Method`] `M` — the pair [`Options::scheme`] selects unless
/// another is given ([`Integrator::with_method`]).
pub struct Integrator<'f, F: ?Sized, S, M = Selected<S>> {
    field: &'f F,
    tol: Tolerances,
    min_step: f64,
    max_steps: usize,
    hmax: f64,
    dir: f64,
    t_end: f64,
    /// Start of the next step.
    t: f64,
    x: S,
    /// Size of the next attempt (signed).
    h: f64,
    method: M,
    /// The controller's exponent `1/ORDER − 0.75 β` of the method.
    expo1: f64,
    ln_errold: f64,
    reject: bool,
    cause: Cause,
    /// The accepted step not yet moved to: `(step, h_next)`.
    pending: Option<(Step, f64)>,
    /// Dense output of the pending step, if a control asked for it.
    dense: Option<Dense<S>>,
    /// The state was replaced after the last step: the first stage must be evaluated anew.
    restart: bool,
    attempts: usize,
    stats: Stats,
    monitor: Option<crate::ode::monitor::Monitor>,
}

impl<'f, F, S> Integrator<'f, F, S>
where
    F: StateField<S> + ?Sized,
    S: State,
{
    /// Start at `(t0, x0)` towards `t_end` (backward if `t_end < t0`) with the tolerances,
    /// step limits and first step of `options`, stepping with the pair of
    /// [`Options::scheme`] (Dormand–Prince 5(4) by default). Evaluates `F(t0, x0)` and, unless
    /// [`Options::initial_step`] is given, chooses the first step as Hairer's codes do.
    ///
    /// # Errors
    /// [`SimError::NonFiniteState`] if `F(t0, x0)` is not finite; a field error.
    pub fn new(field: &'f F, t0: f64, x0: S, t_end: f64, options: &Options) -> Result<Self, SimError> {
        Integrator::build(field, t0, x0, t_end, options, |k1| Selected::of(options.scheme, k1))
    }
}

impl<'f, F, S, M> Integrator<'f, F, S, M>
where
    F: StateField<S> + ?Sized,
    S: State,
    M: Method<S>,
{
    /// [`Integrator::new`] with the method `M`.
    ///
    /// # Errors
    /// As [`Integrator::new`].
    pub fn with_method(field: &'f F, t0: f64, x0: S, t_end: f64, options: &Options) -> Result<Self, SimError> {
        Integrator::build(field, t0, x0, t_end, options, M::new)
    }

    /// The integrator with the method `make(F(t0, x0))`.
    fn build(field: &'f F, t0: f64, x0: S, t_end: f64, options: &Options, make: impl FnOnce(S) -> M) -> Result<Self, SimError> {
        let mut stats = Stats::default();
        let f0 = first_stage(field, t0, &x0, &mut stats.evaluations)?;
        let method = make(f0.clone());
        let order = method.order();
        let dir = if t_end >= t0 { 1.0 } else { -1.0 };
        let tol = options.tol();
        let hmax = options.max_step.min((t_end - t0).abs());
        let h0 = match options.initial_step {
            Some(h) => h.min(hmax),
            None => dopri5::initial_step(order, field, t0, &x0, &f0, dir, hmax, tol, &mut stats.evaluations)?,
        };
        Ok(Integrator {
            field,
            tol,
            min_step: options.min_step,
            max_steps: options.max_steps,
            hmax,
            dir,
            t_end,
            t: t0,
            x: x0,
            h: dir * h0,
            method,
            expo1: 1.0 / order - BETA * 0.75,
            ln_errold: LN_ERR_MIN,
            reject: false,
            cause: Cause::None,
            pending: None,
            dense: None,
            restart: false,
            attempts: 0,
            stats,
            monitor: options.monitor.clone(),
        })
    }

    /// Count `used` step attempts as already spent against [`Options::max_steps`] (a hybrid
    /// run bounds the attempts of all its segments together).
    #[must_use]
    pub fn attempts_used(mut self, used: usize) -> Self {
        self.attempts = used;
        self
    }

    /// Raise the magnitude of the first step to at least `h_min` (still at most the largest
    /// step). Hairer's estimate scales with `|x|/|F|`, which vanishes for a segment starting at
    /// rest at the origin; a driver that restarts there keeps it clear of the step floor.
    #[must_use]
    pub fn first_step_at_least(mut self, h_min: f64) -> Self {
        self.h = self.dir * self.h.abs().max(h_min).min(self.hmax);
        self
    }

    /// The step floor at time `t`: the larger of [`Options::min_step`] and `10·ε·|t|`.
    #[inline]
    pub fn floor(&self, t: f64) -> f64 {
        self.min_step.max(10.0 * f64::EPSILON * t.abs())
    }

    /// The current time and state: the start of the next step (after [`Integrator::step`], the
    /// end of the step it returned).
    pub fn current(&self) -> (f64, &S) {
        match &self.pending {
            Some((s, _)) => (s.t_new, self.method.x_new()),
            None => (self.t, &self.x),
        }
    }

    /// The state at the end of the last accepted step.
    #[inline]
    pub fn x_new(&self) -> &S {
        self.method.x_new()
    }

    /// Step attempts so far (accepted and rejected, including [`Integrator::attempts_used`]).
    pub fn attempts(&self) -> usize {
        self.attempts
    }

    /// Work counters of this integrator.
    pub fn stats(&self) -> Stats {
        self.stats
    }

    /// The dense output of the last accepted step (valid on `[step.t, step.t_new]`).
    ///
    /// Computed on demand (or kept from the [`StepControl`] that asked for it); call it before
    /// the next [`Integrator::step`]. DOP853 evaluates the field three more times for it.
    ///
    /// # Errors
    /// A field error at an extra stage of the method's continuous extension.
    pub fn dense(&mut self) -> Result<Dense<S>, SimError> {
        if let Some(d) = &self.dense {
            return Ok(d.clone());
        }
        let evaluations = &mut self.stats.evaluations;
        match &self.pending {
            Some((s, _)) => self.method.dense(self.field, s.t, &self.x, s.h, s.t_new, evaluations),
            None => self.method.dense(self.field, self.t, &self.x, 0.0, self.t, evaluations),
        }
    }

    /// Replace the end state of the last accepted step (e.g. by its projection onto a constraint
    /// manifold); the next step starts from it, with the field evaluated anew there (the
    /// first-same-as-last stage no longer applies). The dense output of the last step is unchanged.
    pub fn replace_state(&mut self, x: S) {
        self.method.replace_x_new(x);
        self.restart = true;
    }

    /// Attempt steps until one is accepted by the error test and by `control`, and return it.
    /// Its end state is [`Integrator::x_new`]; the integrator moves to it at the next call.
    ///
    /// # Errors
    /// [`SimError::StepSizeUnderflow`] (or the cause of the last rejection: a persistent NaN is
    /// [`SimError::NonFiniteState`], a control's [`Verdict::Shrink::cause`]) when the step falls
    /// below its floor; [`SimError::StepLimit`] after [`Options::max_steps`] attempts;
    /// [`SimError::Cancelled`] once [`Options::monitor`] is cancelled; a field error.
    pub fn step<C>(&mut self, control: &mut C) -> Result<Step, SimError>
    where
        C: StepControl<S> + ?Sized,
    {
        if let Some((s, h_next)) = self.pending.take() {
            // Move to the end of the accepted step (FSAL: its last stage is the next first).
            self.method.advance();
            self.t = s.t_new;
            self.x = self.method.x_new().clone();
            self.h = h_next;
        }
        if let Some(m) = &self.monitor
            && m.is_cancelled()
        {
            return Err(SimError::Cancelled { t: self.t });
        }
        if std::mem::take(&mut self.restart) {
            let k1 = first_stage(self.field, self.t, &self.x, &mut self.stats.evaluations)?;
            self.method.restart(k1);
        }
        self.dense = None;
        let (t, dir, t1) = (self.t, self.dir, self.t_end);
        loop {
            let mut h = self.h;
            let mut last = false;
            if (t + 1.01 * h - t1) * dir >= 0.0 {
                h = t1 - t;
                last = true;
            }
            self.h = h;
            let floor = self.floor(t);
            if !last && (h.abs() < floor || t + h == t) {
                return Err(match std::mem::replace(&mut self.cause, Cause::None) {
                    Cause::Control(e) => e,
                    Cause::NonFinite => SimError::NonFiniteState { t },
                    Cause::None => SimError::StepSizeUnderflow { t, h },
                });
            }
            if self.attempts >= self.max_steps {
                return Err(SimError::StepLimit { t, steps: self.max_steps });
            }
            self.attempts += 1;

            let err = match self.method.attempt(self.field, t, &self.x, h, self.tol, &mut self.stats.evaluations)? {
                Attempt::NonFinite => {
                    self.rejected(Cause::NonFinite);
                    self.h *= 0.5;
                    continue;
                }
                Attempt::Done { err } => err,
            };
            if err > 1.0 {
                self.rejected(Cause::None);
                self.h /= FACC1.min((self.expo1 * err.max(1e-300).ln()).exp() / SAFE);
                continue;
            }
            let t_new = if last { t1 } else { t + h };
            let dense = match control.wants_dense() {
                true => Some(self.method.dense(self.field, t, &self.x, h, t_new, &mut self.stats.evaluations)?),
                false => None,
            };
            let trial = Trial { t, h, t_new, x_new: self.method.x_new(), floor, dense: dense.as_ref() };
            let ratio = match control.check(&trial) {
                Verdict::Shrink { factor, cause } => {
                    self.rejected(cause.map_or(Cause::None, Cause::Control));
                    self.h *= factor;
                    continue;
                }
                Verdict::Ratio(r) if r > 1.0 => {
                    self.rejected(Cause::None);
                    self.h /= FACC1.min((self.expo1 * r.ln()).exp() / SAFE);
                    continue;
                }
                Verdict::Ratio(r) => r,
            };

            // Accepted: choose the next step (err^expo1 etc. through one logarithm).
            self.stats.steps += 1;
            self.cause = Cause::None;
            let ln_err = err.max(ratio).max(1e-300).ln();
            let fac = ((self.expo1 * ln_err - BETA * self.ln_errold).exp() / SAFE).clamp(FACC2, FACC1);
            let mut h_new = h / fac;
            self.ln_errold = ln_err.max(LN_ERR_MIN);
            if h_new.abs() > self.hmax {
                h_new = dir * self.hmax;
            }
            if self.reject {
                h_new = dir * h_new.abs().min(h.abs());
            }
            self.reject = false;
            let step = Step { t, h, t_new, last };
            if let Some(m) = &self.monitor {
                m.record(t_new, self.attempts);
            }
            self.pending = Some((step, h_new));
            self.dense = dense;
            return Ok(step);
        }
    }

    #[inline]
    fn rejected(&mut self, cause: Cause) {
        self.stats.rejected += 1;
        self.reject = true;
        self.cause = cause;
    }
}

/// `F(t, x)` at the start of a step that has no FSAL stage (the first, or after the state was
/// replaced); a non-finite value there cannot be retried with a smaller step.
fn first_stage<F, S>(field: &F, t: f64, x: &S, evaluations: &mut usize) -> Result<S, SimError>
where
    F: StateField<S> + ?Sized,
    S: State,
{
    match dopri5::eval(field, t, x, evaluations)? {
        Some(v) if v.entries().iter().all(|c| c.is_finite()) => Ok(v),
        _ => Err(SimError::NonFiniteState { t }),
    }
}
