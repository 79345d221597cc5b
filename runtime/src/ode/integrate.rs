//! Plain integration: the [`Integrator`] driven to the end of a span, with
//! output, events and dense segments.
//!
//! The step loop and its controller live in [`crate::ode::stepper`]; this driver stores the samples
//! ([`crate::Output`]), feeds each accepted step's dense output to the event tracker
//! ([`crate::ode::events`]) and stops at a terminal event.

use std::ops::Range;

use nalgebra::SVector;

use crate::error::{RunError, RunResult, SimError};
use crate::ode::dopri5::DenseSegment;
use crate::ode::events::{Event, Tracker};
use crate::ode::field::VectorField;
use crate::ode::options::{Options, Schedule};
use crate::ode::stepper::Integrator;
use crate::ode::trajectory::{Stats, StopReason, Trajectory};

/// Integrate `x' = F(t, x)` from `t_span.start` to `t_span.end` (backward if `end < start`),
/// locating `events` along the way.
///
/// See [`Options`] for tolerances and output control, and [`crate::ode::events`] for the event
/// rules. The returned [`Trajectory`] always starts at `t_span.start` (for [`crate::Output::Steps`])
/// and ends at `t_span.end` or at the time of a terminal event.
///
/// # Errors
/// * [`SimError::InvalidOptions`], [`SimError::InvalidTimeSpan`] (non-finite end points or length),
///   [`SimError::InvalidInitialState`] (non-finite `x0`) before any work is done;
/// * [`SimError::NonFiniteState`] if `F(t0, x0)` is not finite, or if NaN/∞ persists as the
///   step is shrunk;
/// * [`SimError::SingularMassMatrix`] as soon as the field reports one;
/// * [`SimError::StepSizeUnderflow`], [`SimError::StepLimit`], [`SimError::Cancelled`].
///
/// Once a step was accepted, the error comes with the trajectory up to the last accepted step
/// ([`RunError::partial`], its stop reason [`StopReason::Failed`]); with [`Options::keep_partial`]
/// that trajectory is returned as `Ok`.
///
/// # Example
/// ```
/// use routh_runtime::{FieldError, Flow, Options, Simulate, StopReason, nalgebra::Vector2};
///
/// // x'' = −x, x(0) = 1, x'(0) = 0  ⇒  x = cos t.
/// let osc = |_t: f64, x: &Vector2<f64>| -> Result<Vector2<f64>, FieldError> {
///     Ok(Vector2::new(x[1], -x[0]))
/// };
/// let opts = Options::default().rtol(1e-10).atol(1e-12);
/// let traj = Flow(&osc).run(Vector2::new(1.0, 0.0)).span(0.0..10.0).options(&opts).go()?;
/// let (t, x) = traj.last().unwrap();
/// assert_eq!(t, 10.0);
/// assert!((x[0] - 10f64.cos()).abs() < 1e-8);
/// assert_eq!(traj.stop, StopReason::Finished);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub(crate) fn integrate<F, const D: usize>(
    field: &F,
    t_span: Range<f64>,
    x0: SVector<f64, D>,
    events: &[Event<'_, D>],
    options: &Options,
) -> RunResult<Trajectory<D>>
where
    F: VectorField<D> + ?Sized,
{
    drive(field, t_span, x0, events, options, &mut |_, _| Ok(()))
}

/// A hook run on the end state of every accepted step (after the step's dense output was taken
/// for events and output): it may replace the state, e.g. by a projection onto the constraints.
pub(crate) type PostStep<'h, const D: usize> = dyn FnMut(f64, &mut SVector<f64, D>) -> Result<(), SimError> + 'h;

/// [`integrate`] with a hook on the end state of every accepted step; a state the hook changes
/// is the sample at the step's end and the start of the next step.
pub(crate) fn drive<F, const D: usize>(
    field: &F,
    t_span: Range<f64>,
    x0: SVector<f64, D>,
    events: &[Event<'_, D>],
    options: &Options,
    post: &mut PostStep<'_, D>,
) -> RunResult<Trajectory<D>>
where
    F: VectorField<D> + ?Sized,
{
    options.validate()?;
    let (t0, t1) = crate::ode::options::check_start(&t_span, x0.as_slice(), false)?;
    let dir = if t1 >= t0 { 1.0 } else { -1.0 };
    let mut schedule = Schedule::new(&options.output, t0, t1, dir, (D + 1) * 8, options.max_output_bytes)?;
    let mut out = Output::new(schedule.len_hint());

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
        return Ok(out.finish(Vec::new(), StopReason::Finished, Stats::default(), Vec::new(), (t0, x0)));
    }

    let mut integ = Integrator::new(field, t0, x0, t1, options)?;
    let mut tracker = Tracker::new(events, t0, &x0, options.event_tolerance);
    let mut records = Vec::new();
    let mut segments: Vec<DenseSegment<D>> = Vec::new();

    let outcome = (|| -> Result<StopReason, SimError> {
        loop {
            let step = integ.step(&mut ())?;
            let t_new = step.t_new;
            let mut x_new = *integ.x_new();

            let need_dense = options.dense || !events.is_empty() || schedule.peek().is_some_and(|tau| (tau - t_new) * dir < 0.0);
            let mut seg = if need_dense { Some(integ.dense()?) } else { None };
            let unprojected = x_new;
            post(t_new, &mut x_new)?;
            if x_new != unprojected {
                integ.replace_state(x_new);
            }
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
                return Ok(StopReason::Event { name, t: end.0 });
            }
            if step.last {
                return Ok(StopReason::Finished);
            }
        }
    })();
    let stats = integ.stats();
    let (stop, failure) = options.keep_work(outcome, stats.steps > 0, StopReason::Failed)?;
    let end = match (&stop, out.times.last(), out.states.last()) {
        // A terminal event's state is the last sample; the integrator stands at the step's end.
        (StopReason::Event { .. }, Some(&t), Some(x)) => (t, *x),
        _ => {
            let (t, x) = integ.current();
            (t, *x)
        }
    };
    let trajectory = out.finish(records, stop, stats, segments, end);
    match failure {
        Some(error) => Err(RunError::with_partial(error, trajectory)),
        None => Ok(trajectory),
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
        Output { times: Vec::with_capacity(cap), states: Vec::with_capacity(cap) }
    }
    #[inline]
    fn push(&mut self, t: f64, x: SVector<f64, D>) {
        self.times.push(t);
        self.states.push(x);
    }
    fn finish(
        self,
        events: Vec<crate::ode::events::EventRecord<D>>,
        stop: StopReason,
        stats: Stats,
        segments: Vec<DenseSegment<D>>,
        end: (f64, SVector<f64, D>),
    ) -> Trajectory<D> {
        Trajectory { times: self.times, states: self.states, events, stop, stats, segments, constraints: None, end }
    }
}
