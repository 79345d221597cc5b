//! Systems driven by control inputs: x' = F(t, x, u).
//!
//! A model declared with `input(u1, ...)` implements [`InputSystem`]; what drives it is an
//! [`InputSignal`] — constant values (an `SVector` or an array) or a feedback law, any closure
//! `Fn(f64, &SVector<f64, D>) -> SVector<f64, K>` of (t, x). [`Driven`] pairs the two into an
//! ordinary [`VectorField`], so every integrator and event function of the runtime applies.
//!
//! ```
//! use routh_runtime::input::{Driven, InputSignal, InputSystem};
//! use routh_runtime::nalgebra::{SVector, Vector1, Vector2};
//! use routh_runtime::{FieldError, VectorField};
//!
//! /// A unit mass pushed by the force u: x'' = u.
//! struct Mass;
//! impl InputSystem<2, 1> for Mass {
//!     fn field_with_input(&self, _t: f64, x: &Vector2<f64>, u: &Vector1<f64>) -> Result<Vector2<f64>, FieldError> {
//!         Ok(Vector2::new(x[1], u[0]))
//!     }
//! }
//! // A PD feedback u = −2x − 3ẋ as a closure of (t, x), and a constant push.
//! let feedback = |_t: f64, x: &Vector2<f64>| Vector1::new(-2.0 * x[0] - 3.0 * x[1]);
//! let dx = Driven::new(&Mass, feedback).field(0.0, &Vector2::new(1.0, 0.0))?;
//! assert_eq!(dx, Vector2::new(0.0, -2.0));
//! assert_eq!(Driven::new(&Mass, [0.5]).field(0.0, &Vector2::zeros())?, Vector2::new(0.0, 0.5));
//! # Ok::<(), FieldError>(())
//! ```

use std::ops::Range;

use nalgebra::{SMatrix, SVector};

use crate::error::{FieldError, RunResult, SimError};
use crate::ode::field::VectorField;
use crate::ode::options::{Options, Output};
use crate::ode::trajectory::{ConstraintReport, Stats, StopReason, Trajectory};

/// A first-order system with `K` inputs, x' = F(t, x, u).
pub trait InputSystem<const D: usize, const K: usize> {
    /// Evaluate `F(t, x, u)`.
    ///
    /// # Errors
    /// A [`FieldError`] if the field cannot be evaluated at `(t, x, u)`.
    fn field_with_input(&self, t: f64, x: &SVector<f64, D>, u: &SVector<f64, K>) -> Result<SVector<f64, D>, FieldError>;

    /// Evaluate `mode`'s field `F_mode(t, x, u)` of a hybrid system with inputs (the driven run of
    /// [`DrivenOn`] in each mode). Default: [`field_with_input`](Self::field_with_input) in every
    /// mode (a single-mode model); generated models with modes give each mode's own.
    ///
    /// # Errors
    /// As [`field_with_input`](Self::field_with_input).
    fn mode_field_with_input(
        &self,
        mode: usize,
        t: f64,
        x: &SVector<f64, D>,
        u: &SVector<f64, K>,
    ) -> Result<SVector<f64, D>, FieldError> {
        let _ = mode;
        self.field_with_input(t, x, u)
    }

    /// A hybrid system's guard at the inputs `u`, for the guards that the inputs move: one written
    /// with an input (a racket's height), or a contact's force (`multiplier(c)`), which depends on
    /// every force, the inputs' included. `None` (the default) for a guard that is a function of
    /// the state alone, which [`DrivenOn`] reads from its geometry. Generated models with impacts
    /// and inputs give those guards here. [`DrivenOn`] takes such a guard's rate and gradient by
    /// central differences of h(t, x, u(t, x)) (along the flow, and in x), so that they see how
    /// the signal moves.
    fn mode_guard_with_input(&self, mode: usize, guard: usize, t: f64, x: &SVector<f64, D>, u: &SVector<f64, K>) -> Option<f64> {
        let _ = (mode, guard, t, x, u);
        None
    }

    /// The multipliers of `mode`'s constraints at the inputs `u`, with their names (a contact's
    /// force depends on every force, the inputs' included): what [`DrivenOn`] reports when a run
    /// gets stuck right after a transition. Default: none.
    fn mode_multipliers_with_input(
        &self,
        mode: usize,
        t: f64,
        x: &SVector<f64, D>,
        u: &SVector<f64, K>,
    ) -> Vec<(&'static str, f64)> {
        let _ = (mode, t, x, u);
        Vec::new()
    }

    /// A hybrid system's reset at the inputs `u`, for the impact laws written with an input (a
    /// racket's velocity in the law of the ball it strikes). `None` (the default) for a law of the
    /// state alone, which [`DrivenOn`] reads from its geometry; for the others [`DrivenOn`] takes
    /// the reset's Jacobian by central differences of Δ(t, x, u(t, x)).
    ///
    /// # Errors
    /// The reset's.
    #[allow(clippy::type_complexity)]
    fn mode_reset_with_input(
        &self,
        mode: usize,
        guard: usize,
        t: f64,
        x: &SVector<f64, D>,
        u: &SVector<f64, K>,
    ) -> Option<Result<(usize, SVector<f64, D>), FieldError>> {
        let _ = (mode, guard, t, x, u);
        None
    }
}

/// What drives an [`InputSystem`]: the input values at (t, x).
pub trait InputSignal<const D: usize, const K: usize> {
    /// The inputs u(t, x).
    fn input(&self, t: f64, x: &SVector<f64, D>) -> SVector<f64, K>;
}

/// Constant inputs.
impl<const D: usize, const K: usize> InputSignal<D, K> for SVector<f64, K> {
    fn input(&self, _t: f64, _x: &SVector<f64, D>) -> SVector<f64, K> {
        *self
    }
}

/// Constant inputs, as an array.
impl<const D: usize, const K: usize> InputSignal<D, K> for [f64; K] {
    fn input(&self, _t: f64, _x: &SVector<f64, D>) -> SVector<f64, K> {
        SVector::from(*self)
    }
}

/// A signal or feedback law u(t, x).
impl<const D: usize, const K: usize, G> InputSignal<D, K> for G
where
    G: Fn(f64, &SVector<f64, D>) -> SVector<f64, K>,
{
    fn input(&self, t: f64, x: &SVector<f64, D>) -> SVector<f64, K> {
        self(t, x)
    }
}

/// A system and the signal that drives it: the vector field x' = F(t, x, u(t, x)) (`K` inputs).
pub struct Driven<'s, S: ?Sized, I, const K: usize> {
    system: &'s S,
    signal: I,
}

impl<'s, S: ?Sized, I, const K: usize> Driven<'s, S, I, K> {
    /// `system` driven by `signal`.
    pub fn new(system: &'s S, signal: I) -> Self {
        Driven { system, signal }
    }
}

impl<S, I, const D: usize, const K: usize> VectorField<D> for Driven<'_, S, I, K>
where
    S: InputSystem<D, K> + ?Sized,
    I: InputSignal<D, K>,
{
    #[inline]
    fn field(&self, t: f64, x: &SVector<f64, D>) -> Result<SVector<f64, D>, FieldError> {
        let u = self.input(t, x)?;
        self.system.field_with_input(t, x, &u)
    }
}

impl<S: ?Sized, I, const K: usize> Driven<'_, S, I, K> {
    /// The signal's inputs at (t, x), which must be finite.
    fn input<const D: usize>(&self, t: f64, x: &SVector<f64, D>) -> Result<SVector<f64, K>, FieldError>
    where
        I: InputSignal<D, K>,
    {
        let u = self.signal.input(t, x);
        if u.iter().all(|v| v.is_finite()) { Ok(u) } else { Err(FieldError::NonFinite { t }) }
    }
    /// `mode`'s guard at the signal's inputs where the inputs move it
    /// ([`InputSystem::mode_guard_with_input`]; NaN for a non-finite input), `None` otherwise.
    fn guard<const D: usize>(&self, mode: usize, guard: usize, t: f64, x: &SVector<f64, D>) -> Option<f64>
    where
        S: InputSystem<D, K>,
        I: InputSignal<D, K>,
    {
        match self.input(t, x) {
            Ok(u) => self.system.mode_guard_with_input(mode, guard, t, x, &u),
            Err(_) => self.system.mode_guard_with_input(mode, guard, t, x, &SVector::zeros()).map(|_| f64::NAN),
        }
    }
    /// `mode`'s reset at the signal's inputs where the inputs enter its law
    /// ([`InputSystem::mode_reset_with_input`]), `None` otherwise.
    #[allow(clippy::type_complexity)]
    fn reset<const D: usize>(
        &self,
        mode: usize,
        guard: usize,
        t: f64,
        x: &SVector<f64, D>,
    ) -> Option<Result<(usize, SVector<f64, D>), FieldError>>
    where
        S: InputSystem<D, K>,
        I: InputSignal<D, K>,
    {
        match self.input(t, x) {
            Ok(u) => self.system.mode_reset_with_input(mode, guard, t, x, &u),
            Err(e) => self.system.mode_reset_with_input(mode, guard, t, x, &SVector::zeros()).map(|_| Err(e)),
        }
    }
    /// `mode`'s field at the signal's inputs.
    fn mode_field<const D: usize>(&self, mode: usize, t: f64, x: &SVector<f64, D>) -> Result<SVector<f64, D>, FieldError>
    where
        S: InputSystem<D, K>,
        I: InputSignal<D, K>,
    {
        let u = self.input(t, x)?;
        self.system.mode_field_with_input(mode, t, x, &u)
    }
}

/// The linearisation x' ≈ F(t, x₀, u₀) + A (x − x₀) + B (u − u₀) about a state and input.
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Linearization<const D: usize, const K: usize> {
    /// A = ∂F/∂x.
    #[cfg_attr(feature = "serde", serde(with = "crate::serde_floats"))]
    pub a: SMatrix<f64, D, D>,
    /// B = ∂F/∂u.
    #[cfg_attr(feature = "serde", serde(with = "crate::serde_floats"))]
    pub b: SMatrix<f64, D, K>,
}

/// A run under sampled-data control ([`simulate_sampled`]): the trajectory and the inputs the law
/// chose, each held from its sample time to the next.
#[derive(Debug, Clone)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(bound = ""))]
#[non_exhaustive]
pub struct SampledRun<const D: usize, const K: usize> {
    /// The trajectory, as one run (the samples of every hold interval in order).
    pub trajectory: Trajectory<D>,
    /// `(t_k, u_k)`: the sample times and the inputs held from them.
    #[cfg_attr(feature = "serde", serde(with = "crate::serde_floats"))]
    pub inputs: Vec<(f64, SVector<f64, K>)>,
}

/// Sampled-data control with a zero-order hold: at t_k = t₀ + k·`period` the `law` reads the state
/// x(t_k) and returns u_k, held constant on [t_k, t_{k+1}) — a digital controller in the loop. Each
/// hold interval is integrated on its own (the input jumps at the samples, so no step straddles
/// one) and the pieces are joined into one trajectory; the law may keep state of its own (an
/// integrator, an observer). Output times ([`Output`]) refer to the whole span.
///
/// # Errors
/// [`SimError::InvalidOptions`] for a period that is not positive and finite,
/// [`SimError::InvalidTimeSpan`] for a backward span, [`SimError::NonFiniteState`] at a sample time
/// where the law returns a non-finite input, and the integrator's errors; a failure after the
/// first sample keeps the trajectory and inputs up to it ([`crate::RunError::partial`]).
///
/// ```
/// use routh_runtime::input::{InputSystem, simulate_sampled};
/// use routh_runtime::nalgebra::{Vector1, Vector2};
/// use routh_runtime::{FieldError, Options};
/// struct Mass;
/// impl InputSystem<2, 1> for Mass {
///     fn field_with_input(&self, _t: f64, x: &Vector2<f64>, u: &Vector1<f64>) -> Result<Vector2<f64>, FieldError> {
///         Ok(Vector2::new(x[1], u[0]))
///     }
/// }
/// // A PD law sampled every 0.1 s.
/// let run = simulate_sampled(&Mass, Vector2::new(1.0, 0.0), 0.0..5.0, 0.1, |_t, x: &Vector2<f64>| {
///     Vector1::new(-4.0 * x[0] - 3.0 * x[1])
/// }, &Options::default())?;
/// assert_eq!(run.inputs.len(), 50);
/// assert!(run.trajectory.end.1.amax() < 0.05);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn simulate_sampled<S, L, const D: usize, const K: usize>(
    sys: &S,
    x0: SVector<f64, D>,
    span: Range<f64>,
    period: f64,
    law: L,
    options: &Options,
) -> RunResult<SampledRun<D, K>>
where
    S: InputSystem<D, K> + ?Sized,
    L: FnMut(f64, &SVector<f64, D>) -> SVector<f64, K>,
{
    let segment = |u: SVector<f64, K>, span: Range<f64>, before: &Trajectory<D>, output: Output| {
        let options = Options { output, ..options.clone() };
        crate::ode::integrate::integrate(&Driven::new(sys, u), span, before.end.1, &[], &options)
    };
    sampled(empty_segment(span.start, x0), span, period, law, &options.output, segment)
        .map(SampledRun::from)
        .map_err(|e| e.map_partial(SampledRun::from))
}

/// [`simulate_sampled`] for a constrained system: each hold interval is integrated with the
/// constraints projected after every step
/// ([`integrate_constrained`](crate::constrained::integrate_constrained), the metric and rows of
/// `geometry`, the system at any fixed input), and the constraint reports of the intervals are
/// joined.
///
/// # Errors
/// As [`simulate_sampled`], and the projection's.
pub fn simulate_sampled_constrained<G, S, L, const N: usize, const D: usize, const M: usize, const K: usize>(
    geometry: &G,
    sys: &S,
    x0: SVector<f64, D>,
    span: Range<f64>,
    period: f64,
    law: L,
    options: &Options,
) -> RunResult<SampledRun<D, K>>
where
    G: crate::constrained::Constrained<N, D, M> + ?Sized,
    S: InputSystem<D, K> + ?Sized,
    L: FnMut(f64, &SVector<f64, D>) -> SVector<f64, K>,
{
    let segment = |u: SVector<f64, K>, span: Range<f64>, before: &Trajectory<D>, output: Output| {
        let options = Options { output, ..options.clone() };
        let x = before.end.1;
        crate::constrained::integrate_constrained::<_, N, D, M>(&DrivenOn::new(geometry, sys, u), span, x, &[], &options)
    };
    sampled(empty_segment(span.start, x0), span, period, law, &options.output, segment)
        .map(SampledRun::from)
        .map_err(|e| e.map_partial(SampledRun::from))
}

/// A sampled-data run of a hybrid system ([`simulate_sampled_hybrid`]): the hybrid trajectory of
/// the whole span, its impacts included, and the inputs the law chose.
#[derive(Debug, Clone)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(bound = ""))]
#[non_exhaustive]
pub struct SampledHybridRun<const D: usize, const K: usize> {
    /// The hybrid trajectory, as one run (the samples and impacts of every hold interval in order).
    pub trajectory: crate::hybrid::HybridTrajectory<D>,
    /// `(t_k, u_k)`: the sample times and the inputs held from them.
    #[cfg_attr(feature = "serde", serde(with = "crate::serde_floats"))]
    pub inputs: Vec<(f64, SVector<f64, K>)>,
}

impl<const D: usize, const K: usize> From<(crate::hybrid::HybridTrajectory<D>, Vec<(f64, SVector<f64, K>)>)>
    for SampledHybridRun<D, K>
{
    fn from((trajectory, inputs): (crate::hybrid::HybridTrajectory<D>, Vec<(f64, SVector<f64, K>)>)) -> Self {
        SampledHybridRun { trajectory, inputs }
    }
}

impl<const D: usize, const K: usize> From<(Trajectory<D>, Held<K>)> for SampledRun<D, K> {
    fn from((trajectory, inputs): (Trajectory<D>, Held<K>)) -> Self {
        SampledRun { trajectory, inputs }
    }
}

/// [`simulate_sampled`] for a hybrid system with impacts (`geometry`: its guards and resets at any
/// input, see [`DrivenOn`]), from `x0` in `mode`: each hold interval is a hybrid run at the
/// held input, starting in the mode and state the last one ended in, so impacts inside an interval
/// keep its input and a sample right after an impact reads the post-impact state. The run ends
/// early, with the interval's [`HybridStop`](crate::hybrid::HybridStop), when an interval does
/// not finish (Zeno, a terminal event, the impact limit).
///
/// # Errors
/// As [`simulate_sampled`], and [`simulate_hybrid`](crate::hybrid::simulate_hybrid)'s.
#[allow(clippy::too_many_arguments)] // the system, its geometry, the start (mode and state), the span, the law, the options
pub fn simulate_sampled_hybrid<G, S, L, const D: usize, const K: usize>(
    geometry: &G,
    sys: &S,
    mode: usize,
    x0: SVector<f64, D>,
    span: Range<f64>,
    period: f64,
    law: L,
    options: &crate::hybrid::HybridOptions,
) -> RunResult<SampledHybridRun<D, K>>
where
    G: crate::hybrid::HybridSystem<D> + ?Sized,
    S: InputSystem<D, K> + ?Sized,
    L: FnMut(f64, &SVector<f64, D>) -> SVector<f64, K>,
{
    let segment = |u: SVector<f64, K>, span: Range<f64>, before: &crate::hybrid::HybridTrajectory<D>, output: Output| {
        let mut options = options.clone();
        options.ode.output = output;
        let (_, mode, x) = before.end;
        crate::hybrid::simulate_hybrid(&DrivenOn::new(geometry, sys, u), mode, x, span, &options)
    };
    let start = crate::hybrid::HybridTrajectory {
        times: Vec::new(),
        states: Vec::new(),
        modes: Vec::new(),
        mode_names: (0..geometry.mode_count()).map(|m| geometry.mode_name(m)).collect(),
        impacts: Vec::new(),
        stop: crate::hybrid::HybridStop::Finished,
        stats: Stats::default(),
        initial_mode: mode,
        segments: Vec::new(),
        events: Vec::new(),
        constraints: None,
        end: (span.start, mode, x0),
    };
    sampled(start, span, period, law, &options.ode.output, segment)
        .map(SampledHybridRun::from)
        .map_err(|e| e.map_partial(SampledHybridRun::from))
}

/// The inputs a sampled run held: `(t_k, u_k)`.
type Held<const K: usize> = Vec<(f64, SVector<f64, K>)>;

/// A run that the hold intervals of [`sampled`] join into one.
trait Joined<const D: usize>: Sized {
    /// The time of the first sample.
    fn first_time(&self) -> Option<f64>;
    /// The state the run ended in.
    fn end_state(&self) -> SVector<f64, D>;
    /// Whether the run reached the end of its span.
    fn finished(&self) -> bool;
    /// Appends `next`, the run of the following interval, dropping its first `skip` samples.
    fn append(&mut self, next: Self, skip: usize);
}

impl<const D: usize> Joined<D> for Trajectory<D> {
    fn first_time(&self) -> Option<f64> {
        self.times.first().copied()
    }
    fn end_state(&self) -> SVector<f64, D> {
        self.end.1
    }
    fn finished(&self) -> bool {
        matches!(self.stop, StopReason::Finished)
    }
    fn append(&mut self, next: Self, skip: usize) {
        self.times.extend(next.times.iter().skip(skip));
        self.states.extend(next.states.iter().skip(skip));
        self.events.extend(next.events);
        self.stats += next.stats;
        self.segments.extend(next.segments);
        self.constraints = join_reports(self.constraints, next.constraints);
        self.stop = next.stop;
        self.end = next.end;
    }
}

impl<const D: usize> Joined<D> for crate::hybrid::HybridTrajectory<D> {
    fn first_time(&self) -> Option<f64> {
        self.times.first().copied()
    }
    fn end_state(&self) -> SVector<f64, D> {
        self.end.2
    }
    fn finished(&self) -> bool {
        matches!(self.stop, crate::hybrid::HybridStop::Finished)
    }
    fn append(&mut self, next: Self, skip: usize) {
        self.times.extend(next.times.iter().skip(skip));
        self.states.extend(next.states.iter().skip(skip));
        self.modes.extend(next.modes.iter().skip(skip));
        self.impacts.extend(next.impacts);
        self.events.extend(next.events);
        self.stats += next.stats;
        self.segments.extend(next.segments);
        self.constraints = join_reports(self.constraints, next.constraints);
        self.stop = next.stop;
        self.end = next.end;
    }
}

/// The constraint report of two joined runs.
fn join_reports(a: Option<ConstraintReport>, b: Option<ConstraintReport>) -> Option<ConstraintReport> {
    match (a, b) {
        (None, c) => c,
        (Some(a), Some(b)) => Some(ConstraintReport {
            initial: a.initial,
            drift: (a.drift.0.max(b.drift.0), a.drift.1.max(b.drift.1)),
            worst: (a.worst.0.max(b.worst.0), a.worst.1.max(b.worst.1)),
            projections: a.projections + b.projections,
        }),
        (a, None) => a,
    }
}

/// The hold-interval loop of the sampled runs: from `start` (a run with no samples, standing at
/// the initial state), each interval run by `segment(u, span, run so far, output)` and appended.
fn sampled<T, L, R, const D: usize, const K: usize>(
    start: T,
    span: Range<f64>,
    period: f64,
    mut law: L,
    output: &Output,
    mut segment: R,
) -> RunResult<(T, Held<K>)>
where
    T: Joined<D>,
    L: FnMut(f64, &SVector<f64, D>) -> SVector<f64, K>,
    R: FnMut(SVector<f64, K>, Range<f64>, &T, Output) -> RunResult<T>,
{
    let (t0, t1) = (span.start, span.end);
    if !(period > 0.0 && period.is_finite()) {
        return Err(SimError::InvalidOptions(format!("the sampling period must be positive and finite, not {period}")).into());
    }
    if !(t1 >= t0 && t0.is_finite() && t1.is_finite()) {
        return Err(SimError::InvalidTimeSpan { t0, t1 }.into());
    }
    // The requested output times over the whole span (None: every step).
    let times: Option<Vec<f64>> = match output {
        Output::Steps => None,
        Output::Times(ts) => {
            // As `integrate` requires: inside the span, in order (repeats allowed).
            if let Some(bad) = ts.iter().find(|&&t| !(t >= t0 && t <= t1)) {
                return Err(SimError::InvalidOptions(format!("output time {bad} is outside the span {t0}..{t1}")).into());
            }
            if ts.windows(2).any(|w| w[1] < w[0]) {
                return Err(SimError::InvalidOptions("output times must be in increasing order".into()).into());
            }
            Some(ts.clone())
        }
        Output::Interval(dt) => {
            if !(*dt > 0.0 && dt.is_finite()) {
                return Err(SimError::InvalidOptions(format!("the output interval must be positive and finite, not {dt}")).into());
            }
            let mut ts = Vec::new();
            let mut k = 0.0;
            while t0 + k * dt <= t1 + 1e-9 * dt {
                ts.push((t0 + k * dt).min(t1));
                k += 1.0;
            }
            Some(ts)
        }
    };
    let mut run = (start, Vec::new());
    let mut k = 0usize;
    loop {
        let tk = t0 + k as f64 * period;
        let next = (t0 + (k + 1) as f64 * period).min(t1);
        let x = run.0.end_state();
        let u = law(tk, &x);
        if !u.iter().all(|v| v.is_finite()) {
            let error = SimError::NonFiniteState { t: tk };
            return Err(if k == 0 { error.into() } else { crate::RunError { error, partial: Some(Box::new(run)) } });
        }
        run.1.push((tk, u));
        let last = next >= t1;
        let own = match &times {
            Some(ts) => Output::Times(ts.iter().copied().filter(|&t| t >= tk && (t < next || (last && t <= t1))).collect()),
            None => Output::Steps,
        };
        let (segment, failed) = match segment(u, tk..next, &run.0, own) {
            Ok(s) => (s, None),
            Err(e) => match e.partial {
                Some(p) => (*p, Some(e.error)),
                None => return Err(crate::RunError { error: e.error, partial: Some(Box::new(run)) }),
            },
        };
        // A later interval starts where the last one ended: drop its repeated first step sample.
        let skip = usize::from(times.is_none() && k > 0 && segment.first_time() == Some(tk));
        let finished = segment.finished();
        run.0.append(segment, skip);
        if let Some(error) = failed {
            return Err(crate::RunError { error, partial: Some(Box::new(run)) });
        }
        if last || !finished {
            return Ok(run);
        }
        k += 1;
    }
}

/// A trajectory with no samples, standing at (t, x): the start of the joined run, and an interval
/// that failed before any work.
fn empty_segment<const D: usize>(t: f64, x: SVector<f64, D>) -> Trajectory<D> {
    Trajectory {
        times: Vec::new(),
        states: Vec::new(),
        events: Vec::new(),
        stop: StopReason::Finished,
        stats: Stats::default(),
        segments: Vec::new(),
        constraints: None,
        end: (t, x),
    }
}

/// A system driven by a signal on the geometry of another: the field F(t, x, u(t, x)) of
/// `system`, and everything else from `geometry` — the system at any fixed input, since inputs
/// enter the forces only — except the guards and impact laws written with an input, and the
/// guards that the forces move (a contact force's `multiplier(c)`), which `system` gives at
/// u(t, x) ([`InputSystem::mode_guard_with_input`], [`InputSystem::mode_reset_with_input`]). For
/// a constrained system (the projection of
/// [`integrate_constrained`](crate::constrained::integrate_constrained)) that is the mass, energy
/// and constraint rows; for a hybrid one ([`simulate_hybrid`](crate::hybrid::simulate_hybrid)) the
/// guards, impact laws, energies and projections, so constant inputs are held across resets and a
/// feedback law reads the state after each.
pub struct DrivenOn<'s, G: ?Sized, S: ?Sized, I, const K: usize> {
    geometry: &'s G,
    driven: Driven<'s, S, I, K>,
}

impl<'s, G: ?Sized, S: ?Sized, I, const K: usize> DrivenOn<'s, G, S, I, K> {
    /// `system` driven by `signal`, on the geometry of `geometry`.
    pub fn new(geometry: &'s G, system: &'s S, signal: I) -> Self {
        DrivenOn { geometry, driven: Driven::new(system, signal) }
    }
}

impl<G, S, I, const D: usize, const K: usize> VectorField<D> for DrivenOn<'_, G, S, I, K>
where
    G: ?Sized,
    S: InputSystem<D, K> + ?Sized,
    I: InputSignal<D, K>,
{
    #[inline]
    fn field(&self, t: f64, x: &SVector<f64, D>) -> Result<SVector<f64, D>, FieldError> {
        self.driven.field(t, x)
    }
}

impl<G, S, I, const N: usize, const D: usize, const K: usize> crate::mechanics::MechanicalSystem<N, D>
    for DrivenOn<'_, G, S, I, K>
where
    G: crate::mechanics::MechanicalSystem<N, D> + ?Sized,
    S: InputSystem<D, K> + ?Sized,
    I: InputSignal<D, K>,
{
    type Mass = G::Mass;
    const POSITIONS: usize = G::POSITIONS;
    fn mass(&self, t: f64, x: &SVector<f64, D>) -> Result<G::Mass, FieldError> {
        self.geometry.mass(t, x)
    }
    fn energy(&self, t: f64, x: &SVector<f64, D>) -> f64 {
        self.geometry.energy(t, x)
    }
}

impl<G, S, I, const N: usize, const D: usize, const M: usize, const K: usize> crate::constrained::Constrained<N, D, M>
    for DrivenOn<'_, G, S, I, K>
where
    G: crate::constrained::Constrained<N, D, M> + ?Sized,
    S: InputSystem<D, K> + ?Sized,
    I: InputSignal<D, K>,
{
    fn rows(&self, t: f64, x: &SVector<f64, D>) -> (SMatrix<f64, M, N>, SVector<f64, M>) {
        self.geometry.rows(t, x)
    }
    fn position_residuals(&self, t: f64, x: &SVector<f64, D>) -> SVector<f64, M> {
        self.geometry.position_residuals(t, x)
    }
    fn holonomic(&self) -> [bool; M] {
        self.geometry.holonomic()
    }
    fn row_names(&self) -> &'static [&'static str] {
        self.geometry.row_names()
    }
}

impl<G, S, I, const D: usize, const K: usize> crate::hybrid::HybridSystem<D> for DrivenOn<'_, G, S, I, K>
where
    G: crate::hybrid::HybridSystem<D> + ?Sized,
    S: InputSystem<D, K> + ?Sized,
    I: InputSignal<D, K>,
{
    fn mode_count(&self) -> usize {
        self.geometry.mode_count()
    }
    fn mode_name(&self, mode: usize) -> &'static str {
        self.geometry.mode_name(mode)
    }
    fn mode_field(&self, mode: usize, t: f64, x: &SVector<f64, D>) -> Result<SVector<f64, D>, FieldError> {
        self.driven.mode_field(mode, t, x)
    }
    fn guard_count(&self, mode: usize) -> usize {
        self.geometry.guard_count(mode)
    }
    fn guard_name(&self, mode: usize, guard: usize) -> &'static str {
        self.geometry.guard_name(mode, guard)
    }
    fn guard(&self, mode: usize, guard: usize, t: f64, x: &SVector<f64, D>) -> f64 {
        match self.driven.guard(mode, guard, t, x) {
            Some(h) => h,
            None => self.geometry.guard(mode, guard, t, x),
        }
    }
    fn guard_rate(&self, mode: usize, guard: usize, t: f64, x: &SVector<f64, D>) -> f64 {
        if self.driven.guard(mode, guard, t, x).is_none() {
            return self.geometry.guard_rate(mode, guard, t, x);
        }
        // dh/dt of h(t, x, u(t, x)) along the driven flow, by central differences.
        let Ok(f) = self.driven.mode_field(mode, t, x) else { return f64::NAN };
        let delta = crate::ode::field::FD_STEP * (1.0 + x.amax()) / (1.0 + f.amax());
        let at = |s: f64| self.driven.guard(mode, guard, t + s, &(x + f * s)).unwrap_or(f64::NAN);
        (at(delta) - at(-delta)) / (2.0 * delta)
    }
    fn reset(&self, mode: usize, guard: usize, t: f64, x: &SVector<f64, D>) -> Result<(usize, SVector<f64, D>), FieldError> {
        match self.driven.reset(mode, guard, t, x) {
            Some(reset) => reset,
            None => self.geometry.reset(mode, guard, t, x),
        }
    }
    fn mode_energy(&self, mode: usize, t: f64, x: &SVector<f64, D>) -> f64 {
        self.geometry.mode_energy(mode, t, x)
    }
    fn project(&self, mode: usize, t: f64, x: &SVector<f64, D>) -> Option<Result<SVector<f64, D>, FieldError>> {
        self.geometry.project(mode, t, x)
    }
    fn constraint_residuals(&self, mode: usize, t: f64, x: &SVector<f64, D>) -> Option<(f64, f64)> {
        self.geometry.constraint_residuals(mode, t, x)
    }
    fn is_autonomous(&self) -> Option<bool> {
        // A signal may depend on time whatever the model does.
        match self.geometry.is_autonomous() {
            Some(false) => Some(false),
            _ => None,
        }
    }
    fn constraint_multipliers(&self, mode: usize, t: f64, x: &SVector<f64, D>) -> Vec<(&'static str, f64)> {
        match self.driven.input(t, x) {
            Ok(u) => self.driven.system.mode_multipliers_with_input(mode, t, x, &u),
            Err(_) => Vec::new(),
        }
    }
    fn zeno_completion(
        &self,
        mode: usize,
        guard: usize,
        t: f64,
        x: &SVector<f64, D>,
    ) -> Option<Result<crate::hybrid::Completion<D>, FieldError>> {
        // The completing transition's reset is geometric (a projection onto the held contact);
        // whether the contact then holds is its multiplier guard's, read at the inputs.
        self.geometry.zeno_completion(mode, guard, t, x)
    }
    fn mode_dimension(&self, mode: usize) -> usize {
        self.geometry.mode_dimension(mode)
    }
    fn mode_energy_gradient(&self, mode: usize, t: f64, x: &SVector<f64, D>) -> SVector<f64, D> {
        self.geometry.mode_energy_gradient(mode, t, x)
    }
    fn guard_gradient(&self, mode: usize, guard: usize, t: f64, x: &SVector<f64, D>) -> SVector<f64, D> {
        if self.driven.guard(mode, guard, t, x).is_none() {
            return self.geometry.guard_gradient(mode, guard, t, x);
        }
        crate::ode::field::gradient_fd(|y| self.driven.guard(mode, guard, t, y).unwrap_or(f64::NAN), x)
    }
    fn reset_jacobian(&self, mode: usize, guard: usize, t: f64, x: &SVector<f64, D>) -> Result<SMatrix<f64, D, D>, FieldError> {
        if self.driven.reset(mode, guard, t, x).is_none() {
            return self.geometry.reset_jacobian(mode, guard, t, x);
        }
        let reset = |_t: f64, y: &SVector<f64, D>| match self.driven.reset(mode, guard, t, y) {
            Some(reset) => reset.map(|(_, post)| post),
            None => Err(FieldError::NonFinite { t }),
        };
        crate::ode::field::jacobian_fd(&reset, t, x, crate::ode::field::FD_STEP)
    }
}
