//! Integration options and their validation.
//!
//! The local error of each step is measured in the weighted RMS norm
//!
//! ```text
//! err = sqrt( (1/D) Σᵢ ( eᵢ / (atol + rtol · max(|xᵢ|, |x̂ᵢ|)) )² )
//! ```
//!
//! where `e` is the difference between the 5th- and 4th-order solutions and `x`, `x̂` the
//! states at the start and end of the step; a step is accepted when `err ≤ 1`.

use crate::error::SimError;
use crate::ode::method::Scheme;
pub use crate::ode::method::Tolerances;

/// The smallest relative tolerance a run accepts: ten times the unit round-off (Hairer's DOPRI5
/// refuses less).
pub const MIN_RTOL: f64 = 10.0 * f64::EPSILON;

/// Which states are stored in the [`crate::Trajectory`].
#[derive(Debug, Clone, PartialEq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Output {
    /// The initial state and the state after every accepted step (the default).
    #[default]
    Steps,
    /// Only at these times, interpolated with the dense output. They must be finite, inside the
    /// time span (end points included) and ordered in the direction of integration (repeats
    /// are allowed). Times after a terminal event are not produced.
    Times(Vec<f64>),
    /// Uniformly spaced times `t0, t0 ± Δ, t0 ± 2Δ, …` up to the end of the span, with the
    /// end point included when the span is a multiple of `Δ` up to a relative `1e-9` of `Δ`
    /// (that last time is then exactly `t1`). `Δ` must be positive and finite.
    Interval(f64),
}

/// Options of [`Plan::integrate`](crate::Plan::integrate), built with `Default` and builder-style setters.
///
/// Every field is public and has a setter of the same name.
///
/// ```
/// use routh_runtime::{Options, Output};
/// let opts = Options::default()
///     .rtol(1e-10)
///     .atol(1e-12)
///     .max_step(0.1)
///     .output(Output::Interval(0.01));
/// assert_eq!(opts.rtol, 1e-10);
/// assert!(opts.validate().is_ok());
/// assert!(Options::default().rtol(-1.0).validate().is_err());
/// ```
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub struct Options {
    /// Relative tolerance; finite, `> 0` and `≤ 1` (a relative error above 100 % admits any answer).
    /// Default `1e-8`.
    pub rtol: f64,
    /// Absolute tolerance; finite and `≥ 0`. Default `1e-10`.
    pub atol: f64,
    /// Size of the first step (its magnitude; the sign follows the time span). `None` (the
    /// default) selects it automatically as in Hairer's DOPRI5 (costs one field evaluation).
    pub initial_step: Option<f64>,
    /// Largest step magnitude; `> 0`, may be infinite (the default).
    #[cfg_attr(feature = "serde", serde(with = "crate::serde_floats"))]
    pub max_step: f64,
    /// Smallest step magnitude before [`SimError::StepSizeUnderflow`] is reported; finite and
    /// `≥ 0`. Default `0`: only the built-in relative floor `10·ε·|t|` applies (a step below it
    /// cannot advance `t` reliably). The effective floor is the larger of the two.
    pub min_step: f64,
    /// Maximum number of step *attempts* (accepted + rejected). Default `1_000_000`.
    pub max_steps: usize,
    /// What to store in the trajectory. Default [`Output::Steps`].
    pub output: Output,
    /// Absolute tolerance in `t` for locating events; finite and `> 0`. Default `1e-12`.
    /// (It is raised to a few ulps of `t` when `|t|` is large.)
    pub event_tolerance: f64,
    /// Keep the dense output of every step in the trajectory, enabling
    /// [`crate::Trajectory::at`]. Default `false`.
    pub dense: bool,
    /// For constrained systems: project onto the constraints after every accepted step and
    /// start from the projection of the initial state ([`crate::mechanics::constrained`]). Default `true`.
    pub projection: bool,
    /// Largest memory, in bytes, the samples of an [`Output::Interval`] may take; a grid that
    /// would need more is [`SimError::InvalidOptions`] before any work is done (instead of
    /// allocating until memory runs out). Default 4 GiB.
    pub max_output_bytes: usize,
    /// Return the work done as `Ok` when a run fails after a step was accepted (step limit,
    /// step-size underflow, a field error, cancellation): the samples up to the last accepted step
    /// with [`crate::StopReason::Failed`] (or [`crate::HybridStop::Failed`]) holding the error.
    /// Without it (the default) the same result is returned inside the `Err`
    /// ([`crate::RunError::partial`]), so a failure cannot pass for a finished run and no work
    /// is lost either way. Errors before any step (options, span, initial state) are `Err`
    /// without a partial result.
    pub keep_partial: bool,
    /// A handle to watch the run's progress and cancel it from another thread
    /// ([`crate::ode::monitor`]). Default `None`.
    #[cfg_attr(feature = "serde", serde(skip))]
    pub monitor: Option<crate::ode::monitor::Monitor>,
    /// The method: [`Scheme::Dopri5`] (the default), [`Scheme::Dop853`], which needs a few times
    /// fewer evaluations at tight tolerances, or the implicit [`Scheme::Rodas4`] for stiff models.
    pub scheme: Scheme,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            rtol: 1e-8,
            atol: 1e-10,
            initial_step: None,
            max_step: f64::INFINITY,
            min_step: 0.0,
            max_steps: 1_000_000,
            output: Output::Steps,
            event_tolerance: 1e-12,
            dense: false,
            projection: true,
            max_output_bytes: 4 << 30,
            keep_partial: false,
            monitor: None,
            scheme: Scheme::Dopri5,
        }
    }
}

/// The start of a run: `(t0, t1)` of a span with finite end points and length (and `t1 ≥ t0`
/// if `forward_only`), from a finite initial state.
///
/// # Errors
/// [`SimError::InvalidTimeSpan`], [`SimError::InvalidInitialState`].
pub(crate) fn check_start(span: &std::ops::Range<f64>, x0: &[f64], forward_only: bool) -> Result<(f64, f64), SimError> {
    let (t0, t1) = (span.start, span.end);
    if !(t0.is_finite() && t1.is_finite() && (t1 - t0).is_finite()) || (forward_only && !(t1 >= t0)) {
        return Err(SimError::InvalidTimeSpan { t0, t1 });
    }
    if !x0.iter().all(|v| v.is_finite()) {
        return Err(SimError::InvalidInitialState);
    }
    Ok((t0, t1))
}

impl Options {
    /// The tolerances [`Options::rtol`] and [`Options::atol`] as one value.
    #[must_use]
    pub fn tol(&self) -> Tolerances {
        Tolerances { rtol: self.rtol, atol: self.atol }
    }
    /// Set [`Options::max_output_bytes`].
    #[must_use]
    pub fn max_output_bytes(mut self, bytes: usize) -> Self {
        self.max_output_bytes = bytes;
        self
    }
    /// Set [`Options::projection`].
    #[must_use]
    pub fn projection(mut self, on: bool) -> Self {
        self.projection = on;
        self
    }
    /// Set [`Options::rtol`].
    #[must_use]
    pub fn rtol(mut self, rtol: f64) -> Self {
        self.rtol = rtol;
        self
    }
    /// Set [`Options::atol`].
    #[must_use]
    pub fn atol(mut self, atol: f64) -> Self {
        self.atol = atol;
        self
    }
    /// Set both tolerances.
    #[must_use]
    pub fn tolerances(self, rtol: f64, atol: f64) -> Self {
        self.rtol(rtol).atol(atol)
    }
    /// Set [`Options::initial_step`].
    #[must_use]
    pub fn initial_step(mut self, h: f64) -> Self {
        self.initial_step = Some(h);
        self
    }
    /// Set [`Options::max_step`].
    #[must_use]
    pub fn max_step(mut self, h: f64) -> Self {
        self.max_step = h;
        self
    }
    /// Set [`Options::min_step`].
    #[must_use]
    pub fn min_step(mut self, h: f64) -> Self {
        self.min_step = h;
        self
    }
    /// Set [`Options::max_steps`].
    #[must_use]
    pub fn max_steps(mut self, n: usize) -> Self {
        self.max_steps = n;
        self
    }
    /// Set [`Options::output`].
    #[must_use]
    pub fn output(mut self, output: Output) -> Self {
        self.output = output;
        self
    }
    /// Set [`Options::event_tolerance`].
    #[must_use]
    pub fn event_tolerance(mut self, tol: f64) -> Self {
        self.event_tolerance = tol;
        self
    }
    /// Set [`Options::monitor`].
    #[must_use]
    pub fn monitor(mut self, monitor: crate::ode::monitor::Monitor) -> Self {
        self.monitor = Some(monitor);
        self
    }
    /// Set [`Options::scheme`].
    #[must_use]
    pub fn scheme(mut self, scheme: Scheme) -> Self {
        self.scheme = scheme;
        self
    }
    /// Set [`Options::keep_partial`].
    #[must_use]
    pub fn keep_partial(mut self, yes: bool) -> Self {
        self.keep_partial = yes;
        self
    }
    /// Set [`Options::dense`].
    #[must_use]
    pub fn dense(mut self, yes: bool) -> Self {
        self.dense = yes;
        self
    }

    /// How a run that did `worked` (a step or an impact) ends: its stop reason, and the error to
    /// return with the work. A failure after work becomes the stop reason `failed(error)` of the
    /// result built from that work; it is returned as `Err` with that result
    /// ([`crate::RunError::partial`]) unless [`Options::keep_partial`] asks for `Ok`.
    ///
    /// # Errors
    /// A failure before any work (nothing to keep).
    pub(crate) fn keep_work<T>(
        &self,
        outcome: Result<T, SimError>,
        worked: bool,
        failed: impl FnOnce(SimError) -> T,
    ) -> Result<(T, Option<SimError>), SimError> {
        match outcome {
            Ok(stop) => Ok((stop, None)),
            Err(e) if worked => Ok((failed(e.clone()), (!self.keep_partial).then_some(e))),
            Err(e) => Err(e),
        }
    }

    /// Check the options that do not depend on the time span.
    ///
    /// # Errors
    /// [`SimError::InvalidOptions`] naming the first offending option.
    pub fn validate(&self) -> Result<(), SimError> {
        let bad = |msg: String| Err(SimError::InvalidOptions(msg));
        if !(self.rtol.is_finite() && self.rtol > 0.0) {
            return bad(format!("rtol must be finite and > 0, got {}", self.rtol));
        }
        if !(self.rtol <= 1.0) {
            return bad(format!("rtol must be <= 1, got {}: a relative error above 100 % admits any answer", self.rtol));
        }
        if self.rtol < MIN_RTOL {
            // As Hairer's DOPRI5 refuses it: an error estimate below round-off is never met, and the
            // run would only end at the step limit.
            return bad(format!(
                "rtol = {:e} is below round-off (10 ε = {MIN_RTOL:.1e}): no step can meet it; use rtol >= 1e-14",
                self.rtol
            ));
        }
        if !(self.atol.is_finite() && self.atol >= 0.0) {
            return bad(format!("atol must be finite and >= 0, got {}", self.atol));
        }
        if let Some(h) = self.initial_step
            && !(h.is_finite() && h > 0.0)
        {
            return bad(format!("initial_step must be finite and > 0, got {h}"));
        }
        if !(self.max_step > 0.0) {
            return bad(format!("max_step must be > 0, got {}", self.max_step));
        }
        if !(self.min_step.is_finite() && self.min_step >= 0.0) {
            return bad(format!("min_step must be finite and >= 0, got {}", self.min_step));
        }
        if self.min_step > self.max_step {
            return bad(format!("min_step ({}) must not exceed max_step ({})", self.min_step, self.max_step));
        }
        if !(self.event_tolerance.is_finite() && self.event_tolerance > 0.0) {
            return bad(format!("event_tolerance must be finite and > 0, got {}", self.event_tolerance));
        }
        match &self.output {
            Output::Steps => {}
            Output::Interval(dt) => {
                if !(dt.is_finite() && *dt > 0.0) {
                    return bad(format!("output interval must be finite and > 0, got {dt}"));
                }
            }
            Output::Times(ts) => {
                if let Some(t) = ts.iter().find(|t| !t.is_finite()) {
                    return bad(format!("output time {t} is not finite"));
                }
            }
        }
        Ok(())
    }
}

/// Largest number of points [`Output::Interval`] may request.
pub(crate) const MAX_INTERVAL_POINTS: f64 = 1e9;

/// The output times, consumed in order while integrating.
#[derive(Debug)]
pub(crate) enum Schedule<'o> {
    Steps,
    Times { times: &'o [f64], next: usize },
    Interval { t0: f64, t1: f64, step: f64, count: usize, next: usize },
}

impl<'o> Schedule<'o> {
    /// Build and validate the schedule for the span `t0 → t1` (`dir` = ±1).
    /// `sample_bytes` is the memory one stored sample takes, bounded by `max_bytes` in total for a
    /// uniform grid.
    pub(crate) fn new(
        output: &'o Output,
        t0: f64,
        t1: f64,
        dir: f64,
        sample_bytes: usize,
        max_bytes: usize,
    ) -> Result<Self, SimError> {
        match output {
            Output::Steps => Ok(Schedule::Steps),
            Output::Times(times) => {
                let (lo, hi) = if t0 <= t1 { (t0, t1) } else { (t1, t0) };
                for (i, &t) in times.iter().enumerate() {
                    if !(t >= lo && t <= hi) {
                        return Err(SimError::InvalidOptions(format!("output time {t} is outside the time span {t0}..{t1}")));
                    }
                    if i > 0 && (t - times[i - 1]) * dir < 0.0 {
                        return Err(SimError::InvalidOptions(format!(
                            "output times must be ordered in the direction of integration \
                             ({} then {t})",
                            times[i - 1]
                        )));
                    }
                }
                Ok(Schedule::Times { times, next: 0 })
            }
            Output::Interval(dt) => {
                let span = (t1 - t0).abs();
                let n = (span / dt * (1.0 + 1e-12) + 1e-9).floor();
                if !(n.is_finite() && n < MAX_INTERVAL_POINTS) {
                    return Err(SimError::InvalidOptions(format!(
                        "output interval {dt} gives more than {MAX_INTERVAL_POINTS} points"
                    )));
                }
                let bytes = (n + 1.0) * sample_bytes as f64;
                if bytes > max_bytes as f64 {
                    return Err(SimError::InvalidOptions(format!(
                        "output interval {dt} over {span} gives {} samples needing {:.1} GB, more than \
                         max_output_bytes ({:.1} GB): use a coarser interval or Output::Times",
                        n + 1.0,
                        bytes / 1e9,
                        max_bytes as f64 / 1e9
                    )));
                }
                Ok(Schedule::Interval { t0, t1, step: dt * dir, count: n as usize + 1, next: 0 })
            }
        }
    }

    /// Number of scheduled outputs, if known (used to reserve capacity).
    pub(crate) fn len_hint(&self) -> Option<usize> {
        match self {
            Schedule::Steps => None,
            Schedule::Times { times, .. } => Some(times.len()),
            Schedule::Interval { count, .. } => Some(*count),
        }
    }

    /// The next scheduled output time, if any (never called for `Steps`).
    #[inline]
    pub(crate) fn peek(&self) -> Option<f64> {
        match self {
            Schedule::Steps => None,
            Schedule::Times { times, next } => times.get(*next).copied(),
            Schedule::Interval { t0, t1, step, count, next } => {
                if *next >= *count {
                    None
                } else if *next + 1 == *count {
                    // The last point: snap to t1 when it is t1 up to rounding.
                    let t = t0 + step * (*next as f64);
                    if (t - t1).abs() <= 1e-9 * step.abs() { Some(*t1) } else { Some(t) }
                } else {
                    Some(t0 + step * (*next as f64))
                }
            }
        }
    }

    #[inline]
    pub(crate) fn advance(&mut self) {
        match self {
            Schedule::Steps => {}
            Schedule::Times { next, .. } | Schedule::Interval { next, .. } => *next += 1,
        }
    }
}
