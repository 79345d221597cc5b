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
use crate::ode::events::Event;
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

    /// The inputs' names, in order (generated models: `INPUTS`), for the errors that name one.
    /// Default: none.
    fn input_names(&self) -> &'static [&'static str] {
        &[]
    }
}

/// `Ok` when every input of `u` is finite, else [`SimError::NonFiniteInput`] naming the first that
/// is not (from `names`).
pub(crate) fn finite_inputs<const K: usize>(t: f64, u: &SVector<f64, K>, names: &[&'static str]) -> Result<(), SimError> {
    match u.iter().position(|v| !v.is_finite()) {
        None => Ok(()),
        Some(index) => {
            Err(SimError::NonFiniteInput { t, index, name: names.get(index).copied().unwrap_or("?"), value: u[index] })
        }
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
    pub(crate) system: &'s S,
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
    pub(crate) fn input<const D: usize>(&self, t: f64, x: &SVector<f64, D>) -> Result<SVector<f64, K>, FieldError>
    where
        I: InputSignal<D, K>,
    {
        let u = self.signal.input(t, x);
        if super::all_finite(&u) { Ok(u) } else { Err(FieldError::NonFinite { t }) }
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

impl<const D: usize, const K: usize> Linearization<D, K> {
    /// The continuous-time linear-quadratic regulator of this linearisation with the weights
    /// `q` (D × D, ⪰ 0) and `r` (K × K, ≻ 0): u − u₀ = −K (x − x₀), minimising
    /// ∫ (δxᵀQδx + δuᵀRδu) dt ([`crate::lqr::care`]).
    ///
    /// # Errors
    /// [`LqrError`](crate::lqr::LqrError): bad weights, or no stabilising solution.
    pub fn lqr(&self, q: &SMatrix<f64, D, D>, r: &SMatrix<f64, K, K>) -> Result<crate::lqr::Lqr, crate::lqr::LqrError> {
        let dynamic = |m: &[f64], rows: usize, cols: usize| nalgebra::DMatrix::from_column_slice(rows, cols, m);
        crate::lqr::care(
            &dynamic(self.a.as_slice(), D, D),
            &dynamic(self.b.as_slice(), D, K),
            &dynamic(q.as_slice(), D, D),
            &dynamic(r.as_slice(), K, K),
        )
    }
}

/// Sampled-data control with a zero-order hold: at t_k = t₀ + k·`period` the `law` reads the state
/// x(t_k) and returns u_k, held on [t_k, t_{k+1}) — a digital controller in the loop. The law may
/// keep state of its own (an integrator, an observer). A run under it returns a [`Sampled`]
/// (`Run::sampled`).
#[derive(Debug, Clone, Copy)]
pub struct ZeroOrderHold<L, const K: usize> {
    /// The sampling period.
    pub period: f64,
    /// The control law u_k = law(t_k, x(t_k)).
    pub law: L,
}

/// A run under sampled-data control: the trajectory and the inputs the law chose, each held from
/// its sample time to the next.
#[derive(Debug, Clone)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize), serde(remote = "Self"))]
#[cfg_attr(feature = "serde", serde(bound(serialize = "T: serde::Serialize", deserialize = "T: serde::Deserialize<'de>")))]
#[non_exhaustive]
pub struct Sampled<T, const K: usize> {
    /// The trajectory, as one run (the samples of every hold interval in order).
    pub trajectory: T,
    /// `(t_k, u_k)`: the sample times and the inputs held from them.
    #[cfg_attr(feature = "serde", serde(with = "crate::serde_floats"))]
    pub inputs: Vec<(f64, SVector<f64, K>)>,
}

/// Sampled-data control with a zero-order hold ([`ZeroOrderHold`]): each hold interval is
/// integrated on its own (the input jumps at the samples, so no step straddles one), events located
/// in every interval, and the pieces are joined into one trajectory. Output times ([`Output`])
/// refer to the whole span.
///
/// # Errors
/// [`SimError::InvalidOptions`] for a period that is not positive and finite,
/// [`SimError::InvalidTimeSpan`] for a backward span, [`SimError::NonFiniteState`] at a sample time
/// where the law returns a non-finite input, and the integrator's errors; a failure after the
/// first sample keeps the trajectory and inputs up to it ([`crate::RunError::partial`]).
pub(crate) fn simulate_sampled<S, L, const D: usize, const K: usize>(
    sys: &S,
    (x0, span): (SVector<f64, D>, Range<f64>),
    events: &[Event<'_, D>],
    options: &Options,
    hold: ZeroOrderHold<L, K>,
) -> RunResult<Sampled<Trajectory<D>, K>>
where
    S: InputSystem<D, K> + ?Sized,
    L: FnMut(f64, &SVector<f64, D>) -> SVector<f64, K>,
{
    let segment = |u: SVector<f64, K>, span: Range<f64>, before: &Trajectory<D>, output: Output| {
        let options = Options { output, ..options.clone() };
        crate::ode::integrate::integrate(&Driven::new(sys, u), span, before.end.1, events, &options)
    };
    sampled(empty_segment(span.start, x0), span, hold, &options.output, segment, sys.input_names())
}

/// [`simulate_sampled`] for a constrained system: each hold interval is integrated with the
/// constraints projected after every step
/// ([`integrate_constrained`](crate::constrained::integrate_constrained), the metric and rows of
/// `geometry`, the system at any fixed input), and the constraint reports of the intervals are
/// joined.
///
/// # Errors
/// As [`simulate_sampled`], and the projection's.
pub(crate) fn simulate_sampled_constrained<G, S, L, const N: usize, const D: usize, const M: usize, const K: usize>(
    (geometry, sys): (&G, &S),
    (x0, span): (SVector<f64, D>, Range<f64>),
    events: &[Event<'_, D>],
    options: &Options,
    hold: ZeroOrderHold<L, K>,
) -> RunResult<Sampled<Trajectory<D>, K>>
where
    G: crate::constrained::Constrained<N, D, M> + ?Sized,
    S: InputSystem<D, K> + ?Sized,
    L: FnMut(f64, &SVector<f64, D>) -> SVector<f64, K>,
{
    let segment = |u: SVector<f64, K>, span: Range<f64>, before: &Trajectory<D>, output: Output| {
        let options = Options { output, ..options.clone() };
        let x = before.end.1;
        crate::constrained::integrate_constrained::<_, N, D, M>(&DrivenOn::new(geometry, sys, u), span, x, events, &options)
    };
    sampled(empty_segment(span.start, x0), span, hold, &options.output, segment, sys.input_names())
}

/// A run that the hold intervals of [`sampled`] join into one.
pub(crate) trait Joined<const D: usize>: Sized {
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

/// The constraint report of two joined runs.
pub(crate) fn join_reports(a: Option<ConstraintReport>, b: Option<ConstraintReport>) -> Option<ConstraintReport> {
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
pub(crate) fn sampled<T, L, R, const D: usize, const K: usize>(
    start: T,
    span: Range<f64>,
    hold: ZeroOrderHold<L, K>,
    output: &Output,
    mut segment: R,
    names: &[&'static str],
) -> RunResult<Sampled<T, K>>
where
    T: Joined<D>,
    L: FnMut(f64, &SVector<f64, D>) -> SVector<f64, K>,
    R: FnMut(SVector<f64, K>, Range<f64>, &T, Output) -> RunResult<T>,
{
    let ZeroOrderHold { period, mut law } = hold;
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
    let mut run = Sampled { trajectory: start, inputs: Vec::new() };
    let mut k = 0usize;
    loop {
        let tk = t0 + k as f64 * period;
        let next = (t0 + (k + 1) as f64 * period).min(t1);
        let x = run.trajectory.end_state();
        let u = law(tk, &x);
        if let Err(error) = finite_inputs(tk, &u, names) {
            return Err(if k == 0 { error.into() } else { crate::RunError { error, partial: Some(Box::new(run)) } });
        }
        run.inputs.push((tk, u));
        let last = next >= t1;
        let own = match &times {
            Some(ts) => Output::Times(ts.iter().copied().filter(|&t| t >= tk && (t < next || (last && t <= t1))).collect()),
            None => Output::Steps,
        };
        let (segment, failed) = match segment(u, tk..next, &run.trajectory, own) {
            Ok(s) => (s, None),
            Err(e) => match e.partial {
                Some(p) => (*p, Some(e.error)),
                None => return Err(crate::RunError { error: e.error, partial: Some(Box::new(run)) }),
            },
        };
        // A later interval starts where the last one ended: drop its repeated first step sample.
        let skip = usize::from(times.is_none() && k > 0 && segment.first_time() == Some(tk));
        let finished = segment.finished();
        run.trajectory.append(segment, skip);
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
/// u(t, x) (`HybridInputSystem` in [`crate::hybrid`]). For a constrained system (projected after
/// every step) that is the mass, energy and constraint rows; for a hybrid one the guards, impact
/// laws, energies and projections, so constant inputs are held across resets and a feedback law
/// reads the state after each.
pub struct DrivenOn<'s, G: ?Sized, S: ?Sized, I, const K: usize> {
    pub(crate) geometry: &'s G,
    pub(crate) driven: Driven<'s, S, I, K>,
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

#[cfg(feature = "serde")]
impl<T: serde::Serialize, const K: usize> serde::Serialize for Sampled<T, K> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        Sampled::serialize(self, serializer)
    }
}

/// The inputs' sample times are finite and never decrease (the trajectory checks its own).
#[cfg(feature = "serde")]
impl<'de, T: serde::Deserialize<'de>, const K: usize> serde::Deserialize<'de> for Sampled<T, K> {
    fn deserialize<De: serde::Deserializer<'de>>(deserializer: De) -> Result<Self, De::Error> {
        let value = Sampled::deserialize(deserializer)?;
        let times: Vec<f64> = value.inputs.iter().map(|(t, _)| *t).collect();
        crate::invariants::forward("inputs' times", &times).map_err(<De::Error as serde::de::Error>::custom)?;
        Ok(value)
    }
}
