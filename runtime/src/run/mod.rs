//! The one way to run a model: a builder per kind of run.
//!
//! A model (generated, or any type implementing [`Simulate`]) starts a run with
//! [`run`](Simulate::run); the builder collects what the run needs and [`go`](Run::go) runs it:
//!
//! ```text
//! model.run(x0)                       the start: a state, or a mode and a state (ModeState)
//!      .span(0.0..10.0)               required: the time span
//!      .options(opts)                 Options or HybridOptions (or .rtol/.atol/.output/.scheme)
//!      .events(&[event])              zero crossings located on the dense output
//!      .inputs(u)                     a model with inputs: constant values or a feedback law u(t, x)
//!      .sampled(period, law)          … or a digital controller with a zero-order hold
//!      .go()?                         Trajectory, HybridTrajectory, Sampled<…>, …
//! ```
//!
//! What a run returns and how it is integrated is the model's: a smooth model integrates its field
//! (projecting onto its constraints after every step if it has any) into a [`Trajectory`], a model
//! with impacts or modes runs through its resets into a [`HybridTrajectory`]. The model says so by
//! implementing [`Runs`] for each way it can be driven — [`Plain`] (by nothing but itself),
//! [`Inputs`] (a signal), [`ZeroOrderHold`] (sampled-data control), [`Reconstructed`] (a reduced
//! system lifted back to its full model) and [`ReducedBy`] (a full model through one of its
//! reductions, across impacts) — with the [`Plan`] of the run, whose methods are the runtime's
//! drivers. Generated models implement all of that; a plain vector field runs through [`Flow`], a
//! hand-written hybrid system through [`Hybrid`]. Discrete (variational) systems, which step on a
//! grid instead of a span, have their own builder, [`DiscreteRun`].
//!
//! ```
//! use routh_runtime::nalgebra::Vector2;
//! use routh_runtime::{Direction, Event, FieldError, Flow, Output, Simulate};
//!
//! // Pendulum θ'' = −sin θ released from θ = 1 rad; record when it passes the bottom.
//! let pendulum = |_t: f64, x: &Vector2<f64>| -> Result<Vector2<f64>, FieldError> {
//!     Ok(Vector2::new(x[1], -x[0].sin()))
//! };
//! let bottom = [Event::new("bottom", |_t, x: &Vector2<f64>| x[0]).direction(Direction::Falling)];
//! let traj = Flow(&pendulum)
//!     .run(Vector2::new(1.0, 0.0))
//!     .span(0.0..10.0)
//!     .rtol(1e-10)
//!     .atol(1e-12)
//!     .output(Output::Interval(0.1))
//!     .events(&bottom)
//!     .go()?;
//! assert_eq!(traj.len(), 101);
//! // θ falls through 0 a quarter period after the release and once more a period later: T/4 = K(sin ½),
//! // the complete elliptic integral (π / 2 AGM(1, cos ½)).
//! let (mut a, mut b) = (1.0f64, 0.5f64.cos());
//! while (a - b).abs() > 1e-15 {
//!     (a, b) = ((a + b) / 2.0, (a * b).sqrt());
//! }
//! let quarter = std::f64::consts::PI / (2.0 * a);
//! assert_eq!(traj.events.len(), 2);
//! assert!((traj.events[0].t - quarter).abs() < 1e-8 && (traj.events[1].t - 5.0 * quarter).abs() < 1e-8);
//! # Ok::<(), routh_runtime::RunError<routh_runtime::Trajectory<2>>>(())
//! ```

pub mod discrete;
pub mod erased;

use std::marker::PhantomData;
use std::ops::Range;

use nalgebra::SVector;

use crate::constrained::{Constrained, integrate_constrained};
use crate::error::{RunResult, SimError};
use crate::hybrid::reduction::{HybridReduction, MomentumJump, simulate_hybrid_reduced};
use crate::hybrid::{HybridInputSystem, HybridOptions, HybridSystem, HybridTrajectory, simulate_hybrid_with_events};
pub use crate::hybrid::{HybridStart, ModeState};
use crate::input::{Driven, InputSignal, InputSystem};
pub use crate::input::{Sampled, ZeroOrderHold};
use crate::mechanics::reduction::{Reconstruction, simulate_reconstructed};
use crate::ode::events::Event;
use crate::ode::field::VectorField;
use crate::ode::integrate::integrate;
use crate::ode::method::Scheme;
use crate::ode::options::{Options, Output};
use crate::ode::trajectory::Trajectory;

pub use discrete::{
    DiscretePlan, DiscreteRun, Node, Nodes, Oriented, OrientedNode, RunsDiscrete, SimulateDiscrete, TwoStep, Variational,
};

/// A model that runs: the start of its runs and their options. [`run`](Simulate::run) opens the
/// builder; what the run returns is the model's [`Runs`] implementation for the way it is driven.
pub trait Simulate<const D: usize> {
    /// What a run starts from: the state `SVector<f64, D>`, or for a model with several modes a
    /// [`ModeState`] (the mode and the state).
    type Start: Clone;
    /// The options of a run: [`Options`], or [`HybridOptions`] for a model with impacts or modes.
    type Options: RunOptions;

    /// A run of this model from `start`; give it a [`span`](Run::span) and [`go`](Run::go).
    fn run(&self, start: Self::Start) -> Run<'_, Self, D>
    where
        Self: Sized,
    {
        Run::new(self, start)
    }
}

/// How a model runs when driven by `W` ([`Plain`], [`Inputs`], [`ZeroOrderHold`],
/// [`Reconstructed`], [`ReducedBy`]): what the run returns, and the run itself, given its
/// [`Plan`]. Generated models implement it for each way they can be driven.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be run driven by `{W}`",
    label = "this model does not run this way",
    note = "a model with inputs runs with `.inputs(u)` (constant values or a feedback law u(t, x)) or \
            `.sampled(period, law)`; a model without inputs takes neither",
    note = "`.reconstructed(theta0)` runs a Routh-reduced system, `.reduced::<R>()` a model with impacts through \
            its reduction `R`"
)]
pub trait Runs<W, const D: usize>: Simulate<D> {
    /// The result of a run.
    type Output;
    /// Runs `plan` driven by `with`.
    ///
    /// # Errors
    /// The run's: typed errors (invalid options, span, state or parameters before any work; the
    /// integration's failures after, with the partial result in [`RunError::partial`](crate::RunError)).
    fn run_with(&self, plan: Plan<'_, Self::Start, Self::Options, D>, with: W) -> RunResult<Self::Output>;
}

/// The options type of a run ([`Options`] or [`HybridOptions`]): the builder's
/// [`rtol`](Run::rtol), [`atol`](Run::atol), [`output`](Run::output) and [`scheme`](Run::scheme)
/// set its integration options.
pub trait RunOptions: Clone + Default + sealed::Sealed {
    /// The integration options.
    fn ode_mut(&mut self) -> &mut Options;
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for crate::Options {}
    impl Sealed for crate::HybridOptions {}
}

impl RunOptions for Options {
    fn ode_mut(&mut self) -> &mut Options {
        self
    }
}

impl RunOptions for HybridOptions {
    fn ode_mut(&mut self) -> &mut Options {
        &mut self.ode
    }
}

impl From<&Options> for Options {
    fn from(options: &Options) -> Self {
        options.clone()
    }
}

impl From<&HybridOptions> for HybridOptions {
    fn from(options: &HybridOptions) -> Self {
        options.clone()
    }
}

/// Integration options for a hybrid run: the other hybrid options at their defaults.
impl From<Options> for HybridOptions {
    fn from(ode: Options) -> Self {
        HybridOptions::default().ode(ode)
    }
}

impl From<&Options> for HybridOptions {
    fn from(ode: &Options) -> Self {
        HybridOptions::default().ode(ode.clone())
    }
}

/// Driven by nothing but the model itself.
#[derive(Debug, Clone, Copy, Default)]
pub struct Plain;

/// Driven by the signal `G` through `K` inputs: constant values (`[f64; K]` or an `SVector`) or
/// a feedback law, any closure of (t, x) returning the inputs ([`InputSignal`]).
#[derive(Debug, Clone, Copy)]
pub struct Inputs<G, const K: usize>(pub G);

/// A Routh-reduced system run together with its reconstruction equations θ̇ = θ̇(t, x_r, μ) from
/// the cyclic positions θ₀: the run returns the trajectory of the full model.
#[derive(Debug, Clone, Copy)]
pub struct Reconstructed<const K: usize>(pub [f64; K]);

/// A model with impacts run through its reduction `R` (the reduced model's type): the reduced
/// system between impacts, the full impact law at each (hybrid Routh reduction).
pub struct ReducedBy<R>(PhantomData<fn() -> R>);

impl<R> Default for ReducedBy<R> {
    fn default() -> Self {
        ReducedBy(PhantomData)
    }
}

/// The span of a run is not given yet.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoSpan;

/// A run's time span, required before [`Run::go`].
#[diagnostic::on_unimplemented(
    message = "a run needs its time span",
    label = "no `.span(t0..t1)` before `.go()`",
    note = "add `.span(t0..t1)` to the run"
)]
pub trait SpanGiven {
    /// The span.
    fn span(self) -> Range<f64>;
}

impl SpanGiven for Range<f64> {
    fn span(self) -> Range<f64> {
        self
    }
}

/// A run of the model `S` (state dimension `D`), driven by `W`, over the span `T` once given: the
/// builder that [`Simulate::run`] opens and [`go`](Run::go) runs. See the [module docs](self).
#[must_use = "a run does nothing until `.go()`"]
pub struct Run<'a, S: Simulate<D> + ?Sized, const D: usize, W = Plain, T = NoSpan> {
    system: &'a S,
    start: S::Start,
    span: T,
    options: S::Options,
    events: &'a [Event<'a, D>],
    with: W,
}

impl<'a, S: Simulate<D> + ?Sized, const D: usize> Run<'a, S, D> {
    /// A run of `system` from `start`, with default options, no events, driven by nothing else.
    pub fn new(system: &'a S, start: S::Start) -> Self {
        Run { system, start, span: NoSpan, options: S::Options::default(), events: &[], with: Plain }
    }
}

impl<'a, S: Simulate<D> + ?Sized, const D: usize, W, T> Run<'a, S, D, W, T> {
    /// The time span: from its start (the start's time) to its end (backward if `end < start`,
    /// for runs without resets).
    pub fn span(self, span: Range<f64>) -> Run<'a, S, D, W, Range<f64>> {
        Run { system: self.system, start: self.start, span, options: self.options, events: self.events, with: self.with }
    }

    /// The options: [`Options`] for a smooth model, [`HybridOptions`] for a model with impacts or
    /// modes (which also take plain [`Options`], the hybrid ones at their defaults); by value or by
    /// reference.
    pub fn options(mut self, options: impl Into<S::Options>) -> Self {
        self.options = options.into();
        self
    }

    /// The relative tolerance ([`Options::rtol`]).
    pub fn rtol(mut self, rtol: f64) -> Self {
        self.options.ode_mut().rtol = rtol;
        self
    }

    /// The absolute tolerance ([`Options::atol`]).
    pub fn atol(mut self, atol: f64) -> Self {
        self.options.ode_mut().atol = atol;
        self
    }

    /// Where the run records its samples ([`Options::output`]).
    pub fn output(mut self, output: Output) -> Self {
        self.options.ode_mut().output = output;
        self
    }

    /// The integration scheme ([`Options::scheme`]).
    pub fn scheme(mut self, scheme: Scheme) -> Self {
        self.options.ode_mut().scheme = scheme;
        self
    }

    /// Zero crossings to locate on the dense output ([`Event`]); a terminal one ends the run.
    pub fn events(mut self, events: &'a [Event<'a, D>]) -> Self {
        self.events = events;
        self
    }

    /// The builder's options as they stand.
    pub fn current_options(&self) -> &S::Options {
        &self.options
    }

    /// Runs it.
    ///
    /// # Errors
    /// The model's: typed errors before any work (invalid options, span, start or parameters),
    /// and the integration's after, carrying the result up to the failure
    /// ([`RunError::partial`](crate::RunError)).
    pub fn go<O>(self) -> RunResult<O>
    where
        S: Runs<W, D, Output = O>,
        T: SpanGiven,
    {
        let plan = Plan { start: self.start, span: self.span.span(), options: self.options, events: self.events };
        self.system.run_with(plan, self.with)
    }
}

impl<'a, S: Simulate<D> + ?Sized, const D: usize, T> Run<'a, S, D, Plain, T> {
    /// Driven by `signal` through the model's `K` inputs: constant values (`[f64; K]` or an
    /// `SVector`) or a feedback law, any closure of (t, x) returning the inputs.
    pub fn inputs<G: InputSignal<D, K>, const K: usize>(self, signal: G) -> Run<'a, S, D, Inputs<G, K>, T> {
        self.with(Inputs(signal))
    }

    /// Under sampled-data control: every `period` from the start the `law` reads the state and
    /// returns the inputs, held until the next sample. The run returns a [`Sampled`] (the
    /// trajectory and the inputs chosen).
    pub fn sampled<L, const K: usize>(self, period: f64, law: L) -> Run<'a, S, D, ZeroOrderHold<L, K>, T>
    where
        L: FnMut(f64, &SVector<f64, D>) -> SVector<f64, K>,
    {
        self.with(ZeroOrderHold { period, law })
    }

    /// A Routh-reduced system with its reconstruction: the cyclic positions θ₀ at the start, and
    /// the trajectory of the full model as the result.
    pub fn reconstructed<const K: usize>(self, theta0: [f64; K]) -> Run<'a, S, D, Reconstructed<K>, T> {
        self.with(Reconstructed(theta0))
    }

    /// A model with impacts through its reduction `R` (the reduced model's type): the
    /// reconstructed trajectory of the full model and the momenta's jumps at the impacts.
    pub fn reduced<R>(self) -> Run<'a, S, D, ReducedBy<R>, T> {
        self.with(ReducedBy::default())
    }

    /// Driven by `with` (any way the model [`Runs`]).
    pub fn with<V>(self, with: V) -> Run<'a, S, D, V, T> {
        Run { system: self.system, start: self.start, span: self.span, options: self.options, events: self.events, with }
    }
}

/// What a run was asked for — its start, span, options and events — handed to the model's
/// [`Runs::run_with`], whose methods are the runtime's drivers: [`integrate`](Plan::integrate),
/// [`integrate_constrained`](Plan::integrate_constrained), [`hybrid`](Plan::hybrid), the sampled
/// and reduced runs.
pub struct Plan<'a, X, O, const D: usize> {
    start: X,
    span: Range<f64>,
    options: O,
    events: &'a [Event<'a, D>],
}

impl<'a, X, O, const D: usize> Plan<'a, X, O, D> {
    /// A plan: `start` over `span` with `options` and no events.
    pub fn new(start: X, span: Range<f64>, options: O) -> Self {
        Plan { start, span, options, events: &[] }
    }
    /// The plan with `events` to locate.
    #[must_use]
    pub fn with_events(mut self, events: &'a [Event<'a, D>]) -> Self {
        self.events = events;
        self
    }
    /// The start.
    pub fn start(&self) -> &X {
        &self.start
    }
    /// The time span.
    pub fn span(&self) -> Range<f64> {
        self.span.clone()
    }
    /// The options.
    pub fn options(&self) -> &O {
        &self.options
    }
    /// The events to locate.
    pub fn events(&self) -> &'a [Event<'a, D>] {
        self.events
    }

    /// [`SimError::InvalidArgument`] if events were asked for on a run that does not locate them.
    fn no_events(&self, run: &str) -> Result<(), SimError> {
        if self.events.is_empty() {
            Ok(())
        } else {
            Err(SimError::InvalidArgument(format!("{run} does not locate events: run it without `.events(...)`")))
        }
    }
}

impl<X: HybridStart<D>, O, const D: usize> Plan<'_, X, O, D> {
    /// `Ok` when `signal` is finite at the start, else [`SimError::NonFiniteInput`] naming the input
    /// (a NaN input would otherwise surface as a non-finite state).
    fn finite_start_inputs<I: InputSignal<D, K>, const K: usize>(
        &self,
        signal: &I,
        names: &[&'static str],
    ) -> Result<(), SimError> {
        let ModeState { state, .. } = self.start.clone().mode_state();
        crate::input::finite_inputs(self.span.start, &signal.input(self.span.start, &state), names)
    }

    /// The plan with the start's orientations scaled to unit quaternions: in mode `m` (0 for a
    /// model without modes) each of `starts[m]` is where four positions of the state hold one
    /// orientation's quaternion. The rotation a quaternion stands for is R(q/|q|), and the flow keeps
    /// |q|, so a start of |q| = 2 is the same rotation, kept at unit length from here on.
    ///
    /// # Errors
    /// [`SimError::InvalidInitialState`] for a quaternion of zero or non-finite norm: it is no
    /// rotation.
    pub fn unit_quaternions(mut self, starts: &[&[usize]]) -> Result<Self, SimError> {
        let (mode, x) = self.start.mode_state_mut();
        // A mode out of range is reported by the run itself (`InvalidMode`).
        for &s in starts.get(mode).copied().unwrap_or(&[]) {
            crate::mechanics::unit_quaternion(x.as_mut_slice().get_mut(s..s + 4).ok_or(SimError::InvalidInitialState)?)?;
        }
        Ok(self)
    }
}

impl<const D: usize> Plan<'_, SVector<f64, D>, Options, D> {
    /// Integrates `field`: output at every step, at given times or on a grid ([`Output`]), events
    /// located on the dense output ([`crate::ode::events`]), backward if the span's end is before its
    /// start.
    ///
    /// # Errors
    /// [`SimError::InvalidOptions`], [`SimError::InvalidTimeSpan`],
    /// [`SimError::InvalidInitialState`] before any work; [`SimError::NonFiniteState`],
    /// [`SimError::SingularMassMatrix`], [`SimError::StepSizeUnderflow`], [`SimError::StepLimit`],
    /// [`SimError::Cancelled`] after, with the trajectory so far.
    pub fn integrate<F: VectorField<D> + ?Sized>(self, field: &F) -> RunResult<Trajectory<D>> {
        integrate(field, self.span, self.start, self.events, &self.options)
    }

    /// Integrates a constrained system, projecting onto its `M` constraints after every accepted
    /// step when [`Options::projection`] is on (and the start, if it is off them), and reporting
    /// the residuals in [`Trajectory::constraints`] ([`crate::constrained`]).
    ///
    /// # Errors
    /// As [`integrate`](Self::integrate), and the projection's.
    pub fn integrate_constrained<S, const N: usize, const M: usize>(self, sys: &S) -> RunResult<Trajectory<D>>
    where
        S: Constrained<N, D, M> + ?Sized,
    {
        integrate_constrained::<S, N, D, M>(sys, self.span, self.start, self.events, &self.options)
    }

    /// Integrates `sys` driven by `signal` ([`Driven`]).
    ///
    /// # Errors
    /// [`SimError::NonFiniteInput`] for a signal not finite at the start; as
    /// [`integrate`](Self::integrate) (a signal that turns non-finite later is a non-finite state).
    pub fn driven<S, G, const K: usize>(self, sys: &S, signal: G) -> RunResult<Trajectory<D>>
    where
        S: InputSystem<D, K> + ?Sized,
        G: InputSignal<D, K>,
    {
        self.finite_start_inputs(&signal, sys.input_names())?;
        self.integrate(&Driven::new(sys, signal))
    }

    /// Integrates the constrained system `sys` driven by `signal` on the geometry of `geometry`
    /// (the system at any fixed input: its mass, energy and constraint rows, projected onto after
    /// every step; inputs enter the forces only).
    ///
    /// # Errors
    /// As [`integrate_constrained`](Self::integrate_constrained).
    pub fn driven_constrained<G, S, I, const N: usize, const M: usize, const K: usize>(
        self,
        geometry: &G,
        sys: &S,
        signal: I,
    ) -> RunResult<Trajectory<D>>
    where
        G: Constrained<N, D, M> + ?Sized,
        S: InputSystem<D, K> + ?Sized,
        I: InputSignal<D, K>,
    {
        self.finite_start_inputs(&signal, sys.input_names())?;
        self.integrate_constrained::<_, N, M>(&crate::input::DrivenOn::new(geometry, sys, signal))
    }

    /// Sampled-data control of `sys` (each hold interval integrated on its own, the pieces joined
    /// into one trajectory; events located in every interval).
    ///
    /// # Errors
    /// [`SimError::InvalidOptions`] for a period that is not positive and finite,
    /// [`SimError::InvalidTimeSpan`] for a backward span, [`SimError::NonFiniteState`] at a sample
    /// time where the law returns a non-finite input, and the integrator's errors; a failure after
    /// the first sample keeps the trajectory and inputs up to it.
    pub fn sampled<S, L, const K: usize>(self, sys: &S, hold: ZeroOrderHold<L, K>) -> RunResult<Sampled<Trajectory<D>, K>>
    where
        S: InputSystem<D, K> + ?Sized,
        L: FnMut(f64, &SVector<f64, D>) -> SVector<f64, K>,
    {
        crate::input::simulate_sampled(sys, (self.start, self.span), self.events, &self.options, hold)
    }

    /// Sampled-data control of a constrained system: each hold interval integrated with the
    /// constraints of `geometry` (the system at any fixed input) projected after every step.
    ///
    /// # Errors
    /// As [`sampled`](Self::sampled), and the projection's.
    pub fn sampled_constrained<G, S, L, const N: usize, const M: usize, const K: usize>(
        self,
        geometry: &G,
        sys: &S,
        hold: ZeroOrderHold<L, K>,
    ) -> RunResult<Sampled<Trajectory<D>, K>>
    where
        G: Constrained<N, D, M> + ?Sized,
        S: InputSystem<D, K> + ?Sized,
        L: FnMut(f64, &SVector<f64, D>) -> SVector<f64, K>,
    {
        crate::input::simulate_sampled_constrained::<G, S, L, N, D, M, K>(
            (geometry, sys),
            (self.start, self.span),
            self.events,
            &self.options,
            hold,
        )
    }

    /// A reduced system (state `x_r`, this plan's start) integrated together with its
    /// reconstruction equations from the removed coordinates θ₀ (on the augmented state of
    /// dimension `DZ = D + K`): the trajectory of the full model (state dimension `DF`).
    ///
    /// # Errors
    /// As [`integrate`](Self::integrate), the partial result reconstructed too; events are not
    /// located on a reconstructed run ([`SimError::InvalidArgument`]).
    pub fn reconstructed<S, const K: usize, const DZ: usize, const DF: usize>(
        self,
        sys: &S,
        theta0: [f64; K],
    ) -> RunResult<Trajectory<DF>>
    where
        S: Reconstruction<D, K, DF> + ?Sized,
    {
        self.no_events("a reconstructed run")?;
        simulate_reconstructed::<S, D, K, DZ, DF>(sys, self.start, theta0, self.span, &self.options)
    }
}

impl<X: HybridStart<D>, const D: usize> Plan<'_, X, HybridOptions, D> {
    /// Runs the hybrid system `sys` from the start's mode ([`crate::hybrid`]: impacts, resets,
    /// modes, Zeno, events located in every mode).
    ///
    /// # Errors
    /// See [`crate::hybrid`]: invalid options, span, state or mode before any work; a guard
    /// violated, a reset that fails and the integration's errors after, with the trajectory so
    /// far.
    pub fn hybrid<S: HybridSystem<D> + ?Sized>(self, sys: &S) -> RunResult<HybridTrajectory<D>> {
        let ModeState { mode, state } = self.start.mode_state();
        simulate_hybrid_with_events(sys, mode, state, self.span, self.events, &self.options)
    }

    /// Runs `sys` driven by `signal` on the geometry of `geometry` (the system at any fixed input:
    /// its guards, resets, energies and projections; [`DrivenOn`](crate::input::DrivenOn)).
    ///
    /// # Errors
    /// As [`hybrid`](Self::hybrid).
    pub fn hybrid_driven<G, S, I, const K: usize>(self, geometry: &G, sys: &S, signal: I) -> RunResult<HybridTrajectory<D>>
    where
        G: HybridSystem<D> + ?Sized,
        S: HybridInputSystem<D, K> + ?Sized,
        I: InputSignal<D, K>,
    {
        self.finite_start_inputs(&signal, sys.input_names())?;
        self.hybrid(&crate::input::DrivenOn::new(geometry, sys, signal))
    }

    /// Sampled-data control of a hybrid system: each hold interval a hybrid run at the held input,
    /// from the mode and state the last one ended in, so impacts inside an interval keep its input
    /// and a sample right after an impact reads the post-impact state. The run ends early, with the
    /// interval's stop, when an interval does not finish (Zeno, a terminal event, the impact limit).
    ///
    /// # Errors
    /// As [`Plan::sampled`] and [`hybrid`](Self::hybrid).
    pub fn sampled_hybrid<G, S, L, const K: usize>(
        self,
        geometry: &G,
        sys: &S,
        hold: ZeroOrderHold<L, K>,
    ) -> RunResult<Sampled<HybridTrajectory<D>, K>>
    where
        G: HybridSystem<D> + ?Sized,
        S: HybridInputSystem<D, K> + ?Sized,
        L: FnMut(f64, &SVector<f64, D>) -> SVector<f64, K>,
    {
        crate::hybrid::driven::simulate_sampled_hybrid(
            (geometry, sys),
            (self.start.mode_state(), self.span),
            self.events,
            &self.options,
            hold,
        )
    }
}

impl<const D: usize> Plan<'_, SVector<f64, D>, HybridOptions, D> {
    /// Hybrid Routh reduction of `sys` (a model with one mode) from its full state: the reduced
    /// system at fixed μ between impacts with the cyclic coordinates reconstructed alongside (on the
    /// augmented state of dimension `DZ = DR + K + M`), the guards on the reconstructed state, the
    /// full law at each impact and μ recomputed ([`crate::hybrid::reduction`]). Returns the
    /// reconstructed trajectory and the jumps of μ.
    ///
    /// # Errors
    /// As [`hybrid`](Self::hybrid); events are not located on a reduced run
    /// ([`SimError::InvalidArgument`]).
    pub fn reduced<S, const DR: usize, const K: usize, const M: usize, const DZ: usize>(
        self,
        sys: &S,
    ) -> RunResult<(HybridTrajectory<D>, Vec<MomentumJump<M>>)>
    where
        S: HybridReduction<DR, K, M, D> + ?Sized,
    {
        self.no_events("a reduced hybrid run")?;
        simulate_hybrid_reduced::<S, DR, K, M, DZ, D>(sys, self.start, self.span, &self.options)
    }

    /// [`reduced`](Self::reduced) for a reduction that carries no momenta (`M = 0`: a
    /// nonholonomic reduction, whose reduced system does not depend on a momentum level): the
    /// reconstructed trajectory of the full model.
    ///
    /// # Errors
    /// As [`reduced`](Self::reduced).
    pub fn reduced_without_momenta<S, const DR: usize, const K: usize, const DZ: usize>(
        self,
        sys: &S,
    ) -> RunResult<HybridTrajectory<D>>
    where
        S: HybridReduction<DR, K, 0, D> + ?Sized,
    {
        self.no_events("a reduced hybrid run")?;
        crate::hybrid::reduction::simulate_hybrid_reconstructed::<S, DR, K, DZ, D>(sys, self.start, self.span, &self.options)
    }
}

/// A vector field as a model: `Flow(&field).run(x0)` integrates any [`VectorField`] — a closure
/// `Fn(f64, &SVector<f64, D>) -> Result<SVector<f64, D>, FieldError>`, a hand-written system —
/// and, for an [`InputSystem`], driven by inputs or a sampled law.
#[derive(Debug, Clone, Copy)]
pub struct Flow<'f, F: ?Sized>(pub &'f F);

impl<F: ?Sized, const D: usize> Simulate<D> for Flow<'_, F> {
    type Start = SVector<f64, D>;
    type Options = Options;
}

impl<F: VectorField<D> + ?Sized, const D: usize> Runs<Plain, D> for Flow<'_, F> {
    type Output = Trajectory<D>;
    fn run_with(&self, plan: Plan<'_, SVector<f64, D>, Options, D>, _: Plain) -> RunResult<Trajectory<D>> {
        plan.integrate(self.0)
    }
}

impl<F, G, const D: usize, const K: usize> Runs<Inputs<G, K>, D> for Flow<'_, F>
where
    F: InputSystem<D, K> + ?Sized,
    G: InputSignal<D, K>,
{
    type Output = Trajectory<D>;
    fn run_with(&self, plan: Plan<'_, SVector<f64, D>, Options, D>, inputs: Inputs<G, K>) -> RunResult<Trajectory<D>> {
        plan.driven(self.0, inputs.0)
    }
}

impl<F, L, const D: usize, const K: usize> Runs<ZeroOrderHold<L, K>, D> for Flow<'_, F>
where
    F: InputSystem<D, K> + ?Sized,
    L: FnMut(f64, &SVector<f64, D>) -> SVector<f64, K>,
{
    type Output = Sampled<Trajectory<D>, K>;
    fn run_with(&self, plan: Plan<'_, SVector<f64, D>, Options, D>, hold: ZeroOrderHold<L, K>) -> RunResult<Self::Output> {
        plan.sampled(self.0, hold)
    }
}

/// A [`HybridSystem`] as a model: `Hybrid(&system).run(ModeState::new(mode, x0))` runs it through
/// its modes, guards and resets.
#[derive(Debug, Clone, Copy)]
pub struct Hybrid<'s, S: ?Sized>(pub &'s S);

impl<S: ?Sized, const D: usize> Simulate<D> for Hybrid<'_, S> {
    type Start = ModeState<D>;
    type Options = HybridOptions;
}

impl<S: HybridSystem<D> + ?Sized, const D: usize> Runs<Plain, D> for Hybrid<'_, S> {
    type Output = HybridTrajectory<D>;
    fn run_with(&self, plan: Plan<'_, ModeState<D>, HybridOptions, D>, _: Plain) -> RunResult<HybridTrajectory<D>> {
        plan.hybrid(self.0)
    }
}
