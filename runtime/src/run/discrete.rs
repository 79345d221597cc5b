//! Discrete runs: a variational integrator stepping on a grid, `steps` steps of size `h` from a
//! start time (default 0).
//!
//! ```text
//! model.run_discrete(x0)          the start: the state (q, q̇) (or (q, q̇, z)); p₀ = ∂L/∂q̇ at it
//!      .step(h)                   required: the step size
//!      .steps(n)                  required: how many steps
//!      .start(t0)                 the start time (default 0)
//!      .options(DiscreteOptions)  Newton's tolerance and iterations
//!      .reduced()                 discrete Routh reduction by the model's cyclic coordinates
//!      .go()?                     DiscreteTrajectory (ReducedDiscreteTrajectory)
//! ```
//!
//! A model says how it steps by implementing [`RunsDiscrete`] (generated for `discrete(...)`); a
//! hand-written [`DiscreteSystem`] runs from a [`Node`] (positions, momenta, a first guess of the
//! velocities) through [`Variational`], and its two-step form from two nodes through [`TwoStep`]; a
//! hand-written [`OrientedDiscreteSystem`] (configurations with orientations) from an
//! [`OrientedNode`] through [`Oriented`].

use nalgebra::SVector;

use crate::discrete::oriented::simulate_oriented;
use crate::discrete::{
    ContactDiscreteSystem, DiscreteOptions, DiscreteSystem, DiscreteTrajectory, OrientedDiscreteSystem,
    ReducedDiscreteTrajectory, simulate_discrete, simulate_discrete_contact, simulate_discrete_reduced,
    simulate_discrete_two_step,
};
use crate::error::RunResult;

use super::Plain;

/// A model with a discrete system: the start of its discrete runs.
pub trait SimulateDiscrete {
    /// What a discrete run starts from: a model's state `SVector<f64, D>` (positions, velocities,
    /// and an action), or the first two nodes of a two-step run ([`Nodes`]).
    type Start: Clone;

    /// A discrete run of this model from `start`; give it a [`step`](DiscreteRun::step) and a number
    /// of [`steps`](DiscreteRun::steps) and [`go`](DiscreteRun::go).
    fn run_discrete(&self, start: Self::Start) -> DiscreteRun<'_, Self>
    where
        Self: Sized,
    {
        DiscreteRun::new(self, start)
    }
}

/// How a model's discrete system runs when driven by `W` ([`Plain`], or [`Reduced`]): what it
/// returns, and the run itself, given its [`DiscretePlan`].
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no discrete run driven by `{W}`",
    note = "a model has discrete runs with the `discrete(...)` item, and reduced ones with `reduce(routh(...))` beside it"
)]
pub trait RunsDiscrete<W>: SimulateDiscrete {
    /// The result of a run.
    type Output;
    /// Runs `plan` driven by `with`.
    ///
    /// # Errors
    /// The run's (see [`crate::discrete`]).
    fn run_discrete_with(&self, plan: DiscretePlan<Self::Start>, with: W) -> RunResult<Self::Output>;
}

/// A discrete run reduced by the model's cyclic coordinates (discrete Routh reduction).
#[derive(Debug, Clone, Copy, Default)]
pub struct Reduced;

/// The step size is not given yet.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoStep;

/// The number of steps is not given yet.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoSteps;

/// The step size of a discrete run, required before [`DiscreteRun::go`].
#[diagnostic::on_unimplemented(
    message = "a discrete run needs its step size",
    label = "no `.step(h)` before `.go()`",
    note = "add `.step(h)` to the run"
)]
pub trait StepGiven {
    /// The step size.
    fn h(&self) -> f64;
}

/// The number of steps of a discrete run, required before [`DiscreteRun::go`].
#[diagnostic::on_unimplemented(
    message = "a discrete run needs its number of steps",
    label = "no `.steps(n)` before `.go()`",
    note = "add `.steps(n)` to the run"
)]
pub trait StepsGiven {
    /// The number of steps.
    fn n(&self) -> usize;
}

/// A given step size.
#[derive(Debug, Clone, Copy)]
pub struct Step(f64);

/// A given number of steps.
#[derive(Debug, Clone, Copy)]
pub struct Steps(usize);

impl StepGiven for Step {
    fn h(&self) -> f64 {
        self.0
    }
}

impl StepsGiven for Steps {
    fn n(&self) -> usize {
        self.0
    }
}

/// A discrete run of `S`, driven by `W`, once its step (`H`) and number of steps (`N`) are given:
/// the builder [`SimulateDiscrete::run_discrete`] opens. See the [module docs](self).
#[must_use = "a run does nothing until `.go()`"]
pub struct DiscreteRun<'a, S: SimulateDiscrete + ?Sized, W = Plain, H = NoStep, N = NoSteps> {
    system: &'a S,
    start: S::Start,
    t0: f64,
    h: H,
    steps: N,
    options: DiscreteOptions,
    with: W,
}

impl<'a, S: SimulateDiscrete + ?Sized> DiscreteRun<'a, S> {
    /// A discrete run of `system` from `start` at t = 0, with default options.
    pub fn new(system: &'a S, start: S::Start) -> Self {
        DiscreteRun { system, start, t0: 0.0, h: NoStep, steps: NoSteps, options: DiscreteOptions::default(), with: Plain }
    }
}

impl<'a, S: SimulateDiscrete + ?Sized, W, H, N> DiscreteRun<'a, S, W, H, N> {
    /// The step size h (finite and positive).
    pub fn step(self, h: f64) -> DiscreteRun<'a, S, W, Step, N> {
        let DiscreteRun { system, start, t0, steps, options, with, .. } = self;
        DiscreteRun { system, start, t0, h: Step(h), steps, options, with }
    }

    /// The number of steps.
    pub fn steps(self, n: usize) -> DiscreteRun<'a, S, W, H, Steps> {
        let DiscreteRun { system, start, t0, h, options, with, .. } = self;
        DiscreteRun { system, start, t0, h, steps: Steps(n), options, with }
    }

    /// The time of the start (default 0).
    pub fn start(mut self, t0: f64) -> Self {
        self.t0 = t0;
        self
    }

    /// Newton's tolerance and iterations on each step, by value or by reference.
    pub fn options(mut self, options: impl std::borrow::Borrow<DiscreteOptions>) -> Self {
        self.options = options.borrow().clone();
        self
    }

    /// Driven by `with` (any way the model [`RunsDiscrete`]).
    pub fn with<V>(self, with: V) -> DiscreteRun<'a, S, V, H, N> {
        let DiscreteRun { system, start, t0, h, steps, options, .. } = self;
        DiscreteRun { system, start, t0, h, steps, options, with }
    }

    /// Runs it.
    ///
    /// # Errors
    /// The model's: [`SimError::InvalidOptions`](crate::SimError) for a step that is not finite
    /// and positive or nodes that would not fit in memory, invalid parameters or start before any
    /// work; a step that cannot be solved after, with the nodes before it
    /// ([`RunError::partial`](crate::RunError)).
    pub fn go<O>(self) -> RunResult<O>
    where
        S: RunsDiscrete<W, Output = O>,
        H: StepGiven,
        N: StepsGiven,
    {
        let plan = DiscretePlan { start: self.start, t0: self.t0, h: self.h.h(), steps: self.steps.n(), options: self.options };
        self.system.run_discrete_with(plan, self.with)
    }
}

impl<'a, S: SimulateDiscrete + ?Sized, H, N> DiscreteRun<'a, S, Plain, H, N> {
    /// Discrete Routh reduction by the model's cyclic coordinates: each step solved on the reduced
    /// space, the cyclic coordinates reconstructed from their increments.
    pub fn reduced(self) -> DiscreteRun<'a, S, Reduced, H, N> {
        self.with(Reduced)
    }
}

/// What a discrete run was asked for — its start, grid and options — handed to the model's
/// [`RunsDiscrete::run_discrete_with`], whose methods are the runtime's integrators.
#[derive(Debug, Clone)]
pub struct DiscretePlan<X> {
    start: X,
    t0: f64,
    h: f64,
    steps: usize,
    options: DiscreteOptions,
}

impl<X> DiscretePlan<X> {
    /// A plan: `steps` steps of size `h` from `start` at `t0`.
    pub fn new(start: X, t0: f64, h: f64, steps: usize) -> Self {
        DiscretePlan { start, t0, h, steps, options: DiscreteOptions::default() }
    }
    /// The plan with `options`.
    #[must_use]
    pub fn with_options(mut self, options: DiscreteOptions) -> Self {
        self.options = options;
        self
    }
    /// The start.
    pub fn start(&self) -> &X {
        &self.start
    }
    /// The start time.
    pub fn t0(&self) -> f64 {
        self.t0
    }
    /// The step size.
    pub fn h(&self) -> f64 {
        self.h
    }
    /// The number of steps.
    pub fn steps(&self) -> usize {
        self.steps
    }
}

/// The positions and velocities of a state x = (q, q̇[, z]) of `N` coordinates.
fn split<const N: usize, const D: usize>(x: &SVector<f64, D>) -> (SVector<f64, N>, SVector<f64, N>) {
    let () = crate::mechanics::StateDim::<N, D>::OK;
    (SVector::from_fn(|i, _| x[i]), SVector::from_fn(|i, _| x[N + i]))
}

impl<const D: usize> DiscretePlan<SVector<f64, D>> {
    /// The variational integrator of `sys` from the start's positions and momenta `p0` (the
    /// continuous Legendre transform at the start, which the model computes), the start's velocities
    /// giving Newton's first guess ([`crate::discrete`]).
    ///
    /// # Errors
    /// See [`crate::discrete`]: a step that is not finite and positive, too many nodes for
    /// memory, a non-finite start; a step Newton cannot solve, with the nodes before it.
    pub fn variational<S: DiscreteSystem<N> + ?Sized, const N: usize>(
        self,
        sys: &S,
        p0: SVector<f64, N>,
    ) -> RunResult<DiscreteTrajectory<N>> {
        let (q, v) = split::<N, D>(&self.start);
        simulate_discrete(sys, self.t0, self.h, self.steps, q, p0, v, &self.options)
    }

    /// Discrete Routh reduction of `sys` by its coordinates `cyclic` ([`crate::discrete`]).
    ///
    /// # Errors
    /// As [`variational`](Self::variational); a cyclic index out of range is
    /// [`SimError::InvalidArgument`](crate::SimError).
    pub fn reduced<S: DiscreteSystem<N> + ?Sized, const N: usize>(
        self,
        sys: &S,
        p0: SVector<f64, N>,
        cyclic: &[usize],
    ) -> RunResult<ReducedDiscreteTrajectory<N>> {
        let (q, v) = split::<N, D>(&self.start);
        simulate_discrete_reduced(sys, cyclic, self.t0, self.h, self.steps, q, p0, v, &self.options)
    }

    /// The Lie group variational integrator of `sys` ([`crate::discrete::oriented`]) from the
    /// start's `P` positions (each orientation's quaternion) and momenta `mu0` (in the bodies'
    /// axes: the continuous Legendre transform ∂L/∂v, which the model computes), the start's `N`
    /// velocities giving Newton's first guess.
    ///
    /// # Errors
    /// As [`variational`](Self::variational).
    pub fn oriented<S: OrientedDiscreteSystem<P, N> + ?Sized, const P: usize, const N: usize>(
        self,
        sys: &S,
        mu0: SVector<f64, N>,
    ) -> RunResult<DiscreteTrajectory<N, P>> {
        const { assert!(D == P + N, "the state (q, v) of a model with orientations") };
        let q = SVector::<f64, P>::from_fn(|i, _| self.start[i]);
        let v = SVector::<f64, N>::from_fn(|i, _| self.start[P + i]);
        simulate_oriented(sys, self.t0, self.h, self.steps, q, mu0, v, &self.options)
    }

    /// The contact variational integrator of `sys` from the start's positions, momenta `p0` and
    /// action (the state's last entry).
    ///
    /// # Errors
    /// As [`variational`](Self::variational), and [`SimError::ContactStepTooLarge`](crate::SimError)
    /// for a step beyond the dissipation's time scale.
    pub fn contact<S: ContactDiscreteSystem<N> + ?Sized, const N: usize>(
        self,
        sys: &S,
        p0: SVector<f64, N>,
    ) -> RunResult<DiscreteTrajectory<N>> {
        let (q, v) = split::<N, D>(&self.start);
        let z = self.start[D - 1];
        simulate_discrete_contact(sys, self.t0, self.h, self.steps, q, p0, z, v, &self.options)
    }
}

/// The start of a position–momentum run of a hand-written [`DiscreteSystem`]: the positions q₀,
/// the momenta p₀ and the velocities v₀ whose step q₀ + h v₀ is Newton's first guess.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Node<const N: usize> {
    /// The positions q₀.
    pub q: SVector<f64, N>,
    /// The momenta p₀.
    pub p: SVector<f64, N>,
    /// The velocities v₀ of Newton's first guess.
    pub v: SVector<f64, N>,
}

/// A [`DiscreteSystem`] run in position–momentum form from a [`Node`]:
/// `Variational(&system).run_discrete(Node { q, p, v })`.
#[derive(Debug, Clone, Copy)]
pub struct Variational<'s, S: ?Sized, const N: usize>(pub &'s S);

impl<S: ?Sized, const N: usize> SimulateDiscrete for Variational<'_, S, N> {
    type Start = Node<N>;
}

impl<S: DiscreteSystem<N> + ?Sized, const N: usize> RunsDiscrete<Plain> for Variational<'_, S, N> {
    type Output = DiscreteTrajectory<N>;
    fn run_discrete_with(&self, plan: DiscretePlan<Node<N>>, _: Plain) -> RunResult<DiscreteTrajectory<N>> {
        let Node { q, p, v } = plan.start;
        simulate_discrete(self.0, plan.t0, plan.h, plan.steps, q, p, v, &plan.options)
    }
}

/// The first two nodes q₀, q₁ of a two-step run.
pub type Nodes<const N: usize> = [SVector<f64, N>; 2];

/// A [`DiscreteSystem`] run in its two-step form from two nodes:
/// `TwoStep(&system).run_discrete([q0, q1])`.
#[derive(Debug, Clone, Copy)]
pub struct TwoStep<'s, S: ?Sized, const N: usize>(pub &'s S);

impl<S: ?Sized, const N: usize> SimulateDiscrete for TwoStep<'_, S, N> {
    type Start = Nodes<N>;
}

impl<S: DiscreteSystem<N> + ?Sized, const N: usize> RunsDiscrete<Plain> for TwoStep<'_, S, N> {
    type Output = DiscreteTrajectory<N>;
    fn run_discrete_with(&self, plan: DiscretePlan<Nodes<N>>, _: Plain) -> RunResult<DiscreteTrajectory<N>> {
        simulate_discrete_two_step(self.0, plan.t0, plan.h, plan.steps, plan.start[0], plan.start[1], &plan.options)
    }
}

/// The start of a run of a hand-written [`OrientedDiscreteSystem`] with `P` positions and `N`
/// momenta: the positions q₀ (each orientation's quaternion), the momenta μ₀ in the bodies' axes
/// and the velocities v₀ (each orientation's body angular velocity) whose increment h v₀ is
/// Newton's first guess.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct OrientedNode<const P: usize, const N: usize> {
    /// The positions q₀.
    pub q: SVector<f64, P>,
    /// The momenta μ₀.
    pub mu: SVector<f64, N>,
    /// The velocities v₀ of Newton's first guess.
    pub v: SVector<f64, N>,
}

/// An [`OrientedDiscreteSystem`] run in position–momentum form from an [`OrientedNode`]:
/// `Oriented(&system).run_discrete(OrientedNode { q, mu, v })`, the Lie group variational
/// integrator of [`crate::discrete::oriented`].
#[derive(Debug, Clone, Copy)]
pub struct Oriented<'s, S: ?Sized, const P: usize, const N: usize>(pub &'s S);

impl<S: ?Sized, const P: usize, const N: usize> SimulateDiscrete for Oriented<'_, S, P, N> {
    type Start = OrientedNode<P, N>;
}

impl<S: OrientedDiscreteSystem<P, N> + ?Sized, const P: usize, const N: usize> RunsDiscrete<Plain> for Oriented<'_, S, P, N> {
    type Output = DiscreteTrajectory<N, P>;
    fn run_discrete_with(&self, plan: DiscretePlan<OrientedNode<P, N>>, _: Plain) -> RunResult<DiscreteTrajectory<N, P>> {
        let OrientedNode { q, mu, v } = plan.start;
        simulate_oriented(self.0, plan.t0, plan.h, plan.steps, q, mu, v, &plan.options)
    }
}
