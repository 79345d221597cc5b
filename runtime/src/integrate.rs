//! The adaptive integration driver.
//!
//! Each step is a Dormand–Prince 5(4) step ([`crate::dopri5`]) whose scaled error `err`
//! (see [`crate::options`]) decides acceptance (`err ≤ 1`). The next step size follows
//! Hairer's PI ("Lund-stabilised") controller of DOPRI5:
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
//! [`FieldError::NonFinite`]: crate::FieldError::NonFinite

use std::ops::Range;

use nalgebra::SVector;

use crate::dopri5::{self, Attempt, DenseSegment, Stepper};
use crate::error::SimError;
use crate::events::{Event, Tracker};
use crate::field::VectorField;
use crate::options::{Options, Schedule};
use crate::trajectory::{Stats, StopReason, Trajectory};

pub(crate) const BETA: f64 = 0.04;
pub(crate) const EXPO1: f64 = 1.0 / dopri5::ORDER - BETA * 0.75;
pub(crate) const SAFE: f64 = 0.9;
/// `ln(1e-4)`: the previous error enters the controller as at least `1e-4`.
pub(crate) const LN_ERR_MIN: f64 = -9.210_340_371_976_182;
/// Largest shrink factor `1/facmin`.
pub(crate) const FACC1: f64 = 1.0 / 0.2;
/// Smallest shrink factor `1/facmax`.
pub(crate) const FACC2: f64 = 1.0 / 10.0;

/// Integrate `x' = F(t, x)` from `t_span.start` to `t_span.end` (backward if `end < start`),
/// locating `events` along the way.
///
/// See [`Options`] for tolerances and output control, and [`crate::events`] for the event
/// rules. The returned [`Trajectory`] always starts at `t_span.start` (for [`crate::Output::Steps`])
/// and ends at `t_span.end` or at the time of a terminal event.
///
/// # Errors
/// * [`SimError::InvalidOptions`], [`SimError::InvalidTimeSpan`] (non-finite end points or length),
///   [`SimError::InvalidInitialState`] (non-finite `x0`) before any work is done;
/// * [`SimError::NonFiniteState`] if `F(t0, x0)` is not finite, or if NaN/∞ persists as the
///   step is shrunk;
/// * [`SimError::SingularMassMatrix`] as soon as the field reports one;
/// * [`SimError::StepSizeUnderflow`], [`SimError::StepLimit`].
///
/// # Example
/// ```
/// use routh_runtime::{integrate, FieldError, Options, StopReason, nalgebra::Vector2};
///
/// // x'' = −x, x(0) = 1, x'(0) = 0  ⇒  x = cos t.
/// let osc = |_t: f64, x: &Vector2<f64>| -> Result<Vector2<f64>, FieldError> {
///     Ok(Vector2::new(x[1], -x[0]))
/// };
/// let opts = Options::default().rtol(1e-10).atol(1e-12);
/// let traj = integrate(&osc, 0.0..10.0, Vector2::new(1.0, 0.0), &[], &opts)?;
/// let (t, x) = traj.last().unwrap();
/// assert_eq!(t, 10.0);
/// assert!((x[0] - 10f64.cos()).abs() < 1e-8);
/// assert_eq!(traj.stop, StopReason::Finished);
/// # Ok::<(), routh_runtime::SimError>(())
/// ```
pub fn integrate<F, const D: usize>(
    field: &F,
    t_span: Range<f64>,
    x0: SVector<f64, D>,
    events: &[Event<'_, D>],
    options: &Options,
) -> Result<Trajectory<D>, SimError>
where
    F: VectorField<D> + ?Sized,
{
    options.validate()?;
    let (t0, t1) = (t_span.start, t_span.end);
    if !(t0.is_finite() && t1.is_finite() && (t1 - t0).is_finite()) {
        return Err(SimError::InvalidTimeSpan { t0, t1 });
    }
    if !x0.iter().all(|v| v.is_finite()) {
        return Err(SimError::InvalidInitialState);
    }
    let dir = if t1 >= t0 { 1.0 } else { -1.0 };
    let mut schedule = Schedule::new(&options.output, t0, t1, dir)?;
    let mut out = Output::new(schedule.len_hint());
    let mut stats = Stats::default();

    // Initial output.
    match schedule {
        Schedule::Steps => out.push(t0, x0),
        _ => {
            while schedule.peek() == Some(t0) {
                out.push(t0, x0);
                schedule.advance();
            }
        }
    }
    if t0 == t1 {
        return Ok(out.finish(Vec::new(), StopReason::Finished, stats, Vec::new()));
    }

    let f0 = match dopri5::eval(field, t0, &x0, &mut stats.evaluations)? {
        Some(v) if v.iter().all(|c| c.is_finite()) => v,
        _ => return Err(SimError::NonFiniteState { t: t0 }),
    };
    let (rtol, atol) = (options.rtol, options.atol);
    let hmax = options.max_step.min((t1 - t0).abs());
    let h0 = match options.initial_step {
        Some(h) => h.min(hmax),
        None => dopri5::initial_step(
            field,
            t0,
            &x0,
            &f0,
            dir,
            hmax,
            rtol,
            atol,
            &mut stats.evaluations,
        )?,
    };
    let mut h = dir * h0;

    let mut stepper = Stepper::new(f0);
    let mut tracker = Tracker::new(events, t0, &x0, options.event_tolerance);
    let mut records = Vec::new();
    let mut segments: Vec<DenseSegment<D>> = Vec::new();
    let (mut t, mut x) = (t0, x0);
    // ln of the previous accepted error (at least 1e-4), for the PI controller.
    let mut ln_errold: f64 = LN_ERR_MIN;
    let mut reject = false;
    let mut nonfinite = false;
    let mut attempts = 0usize;

    loop {
        let mut last = false;
        if (t + 1.01 * h - t1) * dir >= 0.0 {
            h = t1 - t;
            last = true;
        }
        let floor = options.min_step.max(10.0 * f64::EPSILON * t.abs());
        if !last && (h.abs() < floor || t + h == t) {
            return Err(if nonfinite {
                SimError::NonFiniteState { t }
            } else {
                SimError::StepSizeUnderflow { t, h }
            });
        }
        if attempts >= options.max_steps {
            return Err(SimError::StepLimit {
                t,
                steps: options.max_steps,
            });
        }
        attempts += 1;

        let err = match stepper.attempt(field, t, &x, h, rtol, atol, &mut stats.evaluations)? {
            Attempt::NonFinite => {
                stats.rejected += 1;
                reject = true;
                nonfinite = true;
                h *= 0.5;
                continue;
            }
            Attempt::Done { err } => err,
        };
        // err^EXPO1 etc. through one logarithm (err = +∞ gives ln = +∞, handled by min/clamp).
        let ln_err = err.max(1e-300).ln();
        if err > 1.0 {
            stats.rejected += 1;
            reject = true;
            nonfinite = false;
            h /= FACC1.min((EXPO1 * ln_err).exp() / SAFE);
            continue;
        }

        // Accepted.
        stats.steps += 1;
        nonfinite = false;
        let t_new = if last { t1 } else { t + h };
        let x_new = stepper.x_new;

        let need_dense = options.dense
            || !events.is_empty()
            || schedule.peek().is_some_and(|tau| (tau - t_new) * dir < 0.0);
        let mut seg = need_dense.then(|| stepper.dense(t, &x, h, t_new));
        let mut end = (t_new, x_new);
        let mut terminal = None;
        if let Some(s) = seg.as_mut()
            && let Some(term) = tracker.step(events, s, t_new, &x_new, &mut records)
        {
            s.truncate(term.t);
            end = (term.t, term.state);
            terminal = Some(term.index);
        }

        match schedule {
            Schedule::Steps => out.push(end.0, end.1),
            _ => {
                while let Some(tau) = schedule.peek() {
                    let beyond = (tau - end.0) * dir;
                    if beyond > 0.0 || (terminal.is_some() && beyond >= 0.0) {
                        break;
                    }
                    let xt = match (&seg, tau == t_new) {
                        (Some(s), false) => s.eval(tau),
                        _ => x_new,
                    };
                    out.push(tau, xt);
                    schedule.advance();
                }
                if terminal.is_some() {
                    out.push(end.0, end.1);
                }
            }
        }
        if options.dense
            && let Some(s) = seg
        {
            segments.push(s);
        }
        if let Some(index) = terminal {
            let name = events[index].name().to_owned();
            return Ok(out.finish(
                records,
                StopReason::Event { name, t: end.0 },
                stats,
                segments,
            ));
        }

        // fac = err^EXPO1 / errold^BETA / SAFE, clamped.
        let fac = ((EXPO1 * ln_err - BETA * ln_errold).exp() / SAFE).clamp(FACC2, FACC1);
        let mut h_new = h / fac;
        ln_errold = ln_err.max(LN_ERR_MIN);
        if h_new.abs() > hmax {
            h_new = dir * hmax;
        }
        if reject {
            h_new = dir * h_new.abs().min(h.abs());
        }
        reject = false;
        stepper.advance();
        t = t_new;
        x = x_new;
        if last {
            return Ok(out.finish(records, StopReason::Finished, stats, segments));
        }
        h = h_new;
    }
}

/// Output buffers.
struct Output<const D: usize> {
    times: Vec<f64>,
    states: Vec<SVector<f64, D>>,
}

impl<const D: usize> Output<D> {
    fn new(hint: Option<usize>) -> Self {
        let cap = hint.unwrap_or(64).min(1 << 20);
        Output {
            times: Vec::with_capacity(cap),
            states: Vec::with_capacity(cap),
        }
    }
    #[inline]
    fn push(&mut self, t: f64, x: SVector<f64, D>) {
        self.times.push(t);
        self.states.push(x);
    }
    fn finish(
        self,
        events: Vec<crate::events::EventRecord<D>>,
        stop: StopReason,
        stats: Stats,
        segments: Vec<DenseSegment<D>>,
    ) -> Trajectory<D> {
        Trajectory {
            times: self.times,
            states: self.states,
            events,
            stop,
            stats,
            segments,
        }
    }
}
