//! Models behind a pointer: a generated model as a [`DynModel`], its sizes and names known at run
//! time, its states as slices, its runs asked for by a [`RunRequest`] and returned as a
//! [`FlatRun`] (one row per sample).
//!
//! A generated model is a type of its own, with its state's dimension in its types (`State<4>`,
//! `Trajectory<4>`). Code that handles models it does not know at compile time — a Python module
//! exporting several models, a sweep driver reading a model's name from a file — needs one type for
//! all of them: every generated model implements [`DynModel`], object-safe, whose methods are the
//! typed ones' glue (the same code paths, so the same numbers to the bit: a run through
//! [`DynModel::run`] is the typed run, its samples copied out).
//!
//! ```text
//! let model: Box<dyn DynModel> = Box::new(DoublePendulum::from_parameters(&[1.0, 1.0, 1.0, 1.0, 9.81, 0.0])?);
//! model.info().parameters                                  ["m1", "m2", "l1", "l2", "g", "b"]
//! model.run(&RunRequest::new(x0, 0.0..10.0).rtol(1e-10))?  a FlatRun: times, states row by row, …
//! ```
//!
//! A model with a variational integrator (`discrete(rule = ...)`) runs it, steps it with the step
//! map's Jacobians and plans over it the same way ([`DynModel::discrete_run`],
//! [`DynModel::discrete_step`], [`IlqrScheme::Variational`]; the module `discrete`).
//!
//! (The facade's `tests/erased.rs` and `tests/erased_discrete.rs` run generated models both ways
//! and compare them bit for bit.)

use std::ops::Range;

use nalgebra::{DMatrix, SMatrix, SVector};

use crate::error::{RunError, SimError};
use crate::hybrid::{HybridOptions, HybridStop, HybridTrajectory, ModeState};
use crate::input::Sampled;
use crate::linearize::{ConstrainedLinearization, LinearizeError};
use crate::ode::events::{Direction, Event};
use crate::ode::options::Options;
use crate::ode::trajectory::{Stats, StopReason, Trajectory};
use crate::run::{Plan, Runs, Simulate};

mod discrete;

pub use discrete::{
    DiscreteInfo, DiscreteKind, DiscreteRequest, FlatDiscreteRun, advance_map, contact_step, flat_discrete, flat_reduced,
    ilqr_oriented, ilqr_variational, no_discrete, no_discrete_step, no_reduction, oriented_advance, oriented_in_chart,
    oriented_step, variational_step,
};

/// What a model is, known at run time: its name, sizes and the names of its parameters,
/// coordinates, state components, inputs, outputs, modes and impacts, and a robot's joint limits.
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub struct ModelInfo {
    /// The model's name (its struct's).
    pub name: &'static str,
    /// Its parameters (the struct's fields), in declaration order.
    pub parameters: &'static [&'static str],
    /// Its generalized coordinates (the first mode's, for a model with modes).
    pub coordinates: &'static [&'static str],
    /// Its state's components (the first mode's; the padded state's dimension is
    /// [`state_dim`](Self::state_dim)).
    pub state_names: &'static [&'static str],
    /// Its state's dimension (the padded state's, for a model with modes).
    pub state_dim: usize,
    /// Its inputs, in the order of u (empty without inputs).
    pub inputs: &'static [&'static str],
    /// Its outputs (`output(...)`; empty without).
    pub outputs: &'static [&'static str],
    /// Its modes (empty for a model with one).
    pub modes: &'static [&'static str],
    /// Its impacts (a model with one mode; empty otherwise).
    pub impacts: &'static [&'static str],
    /// Whether it generates the field Jacobian, which [`DynModel::linearize`] returns.
    pub linearizes: bool,
    /// Its variational integrator (`discrete(rule = ...)`), or none.
    pub discrete: Option<DiscreteInfo>,
    /// The joints' limits and friction its description files give (a model read by `urdf(...)` or
    /// `mjcf(...)`: its `POSITION_LIMITS`, `EFFORT_LIMITS`, `VELOCITY_LIMITS` and `FRICTION`), or
    /// none.
    pub limits: Option<JointLimits>,
}

/// The joints' limits and dry friction a model's description files give, by velocity (an
/// ordinary coordinate's velocity has its index): the generated constants `POSITION_LIMITS`,
/// `EFFORT_LIMITS`, `VELOCITY_LIMITS` and `FRICTION` of a model read from a file, behind a
/// pointer ([`ModelInfo::limits`]). Unbounded (±∞) where a file gives no limit, 0 where it gives
/// no friction; none of them is applied to the dynamics.
///
/// ```
/// use routh_runtime::erased::JointLimits;
///
/// static POSITION: [[f64; 2]; 2] = [[-1.5, 1.5], [f64::NEG_INFINITY, f64::INFINITY]];
/// let limits = JointLimits::new(&POSITION, &[40.0, 12.0], &[2.0, f64::INFINITY], &[0.1, 0.0]);
/// assert_eq!(limits.len(), 2);
/// assert!(limits.velocity[1].is_infinite() && limits.position[1][0] == f64::NEG_INFINITY);
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub struct JointLimits {
    /// Each velocity's position limits [lower, upper].
    pub position: &'static [[f64; 2]],
    /// Each velocity's effort limit (the largest |torque| or |force| of its actuator).
    pub effort: &'static [f64],
    /// Each velocity's speed limit.
    pub velocity: &'static [f64],
    /// Each velocity's dry (Coulomb) friction.
    pub friction: &'static [f64],
}

impl JointLimits {
    /// The four constants (each as long as the model's velocities).
    #[must_use]
    pub const fn new(
        position: &'static [[f64; 2]],
        effort: &'static [f64],
        velocity: &'static [f64],
        friction: &'static [f64],
    ) -> Self {
        debug_assert!(position.len() == effort.len() && effort.len() == velocity.len() && velocity.len() == friction.len());
        JointLimits { position, effort, velocity, friction }
    }

    /// The number of velocities they cover.
    #[must_use]
    pub const fn len(&self) -> usize {
        self.effort.len()
    }

    /// Whether they cover no velocity.
    #[must_use]
    pub const fn is_empty(&self) -> bool {
        self.effort.is_empty()
    }
}

impl ModelInfo {
    /// A model called `name` with these parameters, coordinates and state components, and a state
    /// of dimension `state_dim`; no inputs, outputs, modes or impacts, no Jacobian.
    #[must_use]
    pub const fn new(
        name: &'static str,
        parameters: &'static [&'static str],
        coordinates: &'static [&'static str],
        state_names: &'static [&'static str],
        state_dim: usize,
    ) -> Self {
        ModelInfo {
            name,
            parameters,
            coordinates,
            state_names,
            state_dim,
            inputs: &[],
            outputs: &[],
            modes: &[],
            impacts: &[],
            linearizes: false,
            discrete: None,
            limits: None,
        }
    }
    /// With these inputs.
    #[must_use]
    pub const fn inputs(mut self, inputs: &'static [&'static str]) -> Self {
        self.inputs = inputs;
        self
    }
    /// With these outputs.
    #[must_use]
    pub const fn outputs(mut self, outputs: &'static [&'static str]) -> Self {
        self.outputs = outputs;
        self
    }
    /// With these modes.
    #[must_use]
    pub const fn modes(mut self, modes: &'static [&'static str]) -> Self {
        self.modes = modes;
        self
    }
    /// With these impacts.
    #[must_use]
    pub const fn impacts(mut self, impacts: &'static [&'static str]) -> Self {
        self.impacts = impacts;
        self
    }
    /// Generating the field Jacobian (or not).
    #[must_use]
    pub const fn linearizes(mut self, linearizes: bool) -> Self {
        self.linearizes = linearizes;
        self
    }
    /// With a variational integrator ([`DynModel::discrete_run`]).
    #[must_use]
    pub const fn discrete(mut self, discrete: DiscreteInfo) -> Self {
        self.discrete = Some(discrete);
        self
    }
    /// With the joints' limits and friction of its description files.
    #[must_use]
    pub const fn limits(mut self, limits: JointLimits) -> Self {
        self.limits = Some(limits);
        self
    }
    /// The number of modes (1 for a model without `mode(...)` items).
    #[must_use]
    pub fn mode_count(&self) -> usize {
        self.modes.len().max(1)
    }
}

/// A run asked for at run time: the start (a state, in a mode for a model with modes), the span,
/// the options and constant inputs.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct RunRequest {
    /// The start state (the padded state for a model with modes).
    pub start: Vec<f64>,
    /// The start's mode (0 for a model with one).
    pub mode: usize,
    /// The time span.
    pub span: Range<f64>,
    /// The options: their [`ode`](HybridOptions::ode) part for a model without impacts or modes.
    pub options: HybridOptions,
    /// Constant values of the model's inputs (empty for a model without): the inputs, or with a
    /// [`law`](Self::law) its u₀.
    pub inputs: Vec<f64>,
    /// A feedback law for the inputs instead of constant values.
    pub law: Option<InputLaw>,
    /// Events to locate (zero crossings of linear functions of the state).
    pub events: Vec<LinearEvent>,
    /// Whether the result carries the outputs at every sample (default `true`; a caller that
    /// evaluates them later, or never, saves the work).
    pub outputs: bool,
}

/// A feedback law u = f(t, x) as a shared function.
pub type LawFn = std::sync::Arc<dyn Fn(f64, &[f64]) -> Vec<f64> + Send + Sync>;

/// A feedback law of a [`RunRequest`]: its inputs as a function of the time and state.
#[derive(Clone)]
#[non_exhaustive]
pub enum InputLaw {
    /// u = u₀ − K (x − x*) (a linear-quadratic regulator about the state x* and inputs u₀, the
    /// request's [`inputs`](RunRequest::inputs)): `gain` is K row by row (inputs × state), `at` is x*.
    Linear {
        /// K, row by row.
        gain: Vec<f64>,
        /// x*.
        at: Vec<f64>,
    },
    /// u = f(t, x), any function (a wrong number of values counts as non-finite inputs).
    Function(LawFn),
}

impl std::fmt::Debug for InputLaw {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            InputLaw::Linear { gain, at } => f.debug_struct("Linear").field("gain", gain).field("at", at).finish(),
            InputLaw::Function(_) => f.write_str("Function(..)"),
        }
    }
}

/// The inputs of a [`RunRequest`] as the signal of a typed run (generated glue): its constant
/// values, or its law about them.
pub struct Signal<const D: usize, const K: usize> {
    u0: SVector<f64, K>,
    linear: Option<(SMatrix<f64, K, D>, SVector<f64, D>)>,
    function: Option<LawFn>,
}

impl<const D: usize, const K: usize> crate::input::InputSignal<D, K> for Signal<D, K> {
    fn input(&self, t: f64, x: &SVector<f64, D>) -> SVector<f64, K> {
        if let Some(f) = &self.function {
            let u = f(t, x.as_slice());
            return if u.len() == K { SVector::from_column_slice(&u) } else { SVector::repeat(f64::NAN) };
        }
        match &self.linear {
            Some((gain, at)) => self.u0 - gain * (x - at),
            None => self.u0,
        }
    }
}

/// The signal of `request` for a model with `K` inputs on a state of dimension `D` (generated
/// glue).
///
/// # Errors
/// [`SimError::InvalidArgument`] for inputs, a gain or a state x* of the wrong size.
pub fn signal<const D: usize, const K: usize>(info: &ModelInfo, request: &RunRequest) -> Result<Signal<D, K>, SimError> {
    let u0 = inputs::<K>(info, &request.inputs)?;
    let (linear, function) = match &request.law {
        None => (None, None),
        Some(InputLaw::Linear { gain, at }) => {
            if gain.len() != K * D {
                return Err(SimError::InvalidArgument(format!(
                    "a gain of {} for its {K} inputs and {D} state components is {K} × {D}, not {} values",
                    info.name,
                    gain.len()
                )));
            }
            (Some((SMatrix::<f64, K, D>::from_row_slice(gain), state::<D>(info, at)?)), None)
        }
        Some(InputLaw::Function(f)) => (None, Some(std::sync::Arc::clone(f))),
    };
    Ok(Signal { u0, linear, function })
}

/// An event of a [`RunRequest`]: the zero crossing of g(t, x) = w·x + c, a linear function of the
/// state — a component reaching a value is `w = eᵢ`, `c = −value` ([`LinearEvent::component`]).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct LinearEvent {
    /// Its name in the run's records.
    pub name: String,
    /// w, one weight per component of the (padded) state.
    pub weights: Vec<f64>,
    /// c.
    pub offset: f64,
    /// Which crossings count.
    pub direction: Direction,
    /// Whether it ends the run.
    pub terminal: bool,
}

impl LinearEvent {
    /// The event w·x + c = 0, both directions, not terminal.
    #[must_use]
    pub fn new(name: impl Into<String>, weights: Vec<f64>, offset: f64) -> Self {
        LinearEvent { name: name.into(), weights, offset, direction: Direction::Either, terminal: false }
    }
    /// Component `index` of a state of dimension `dim` reaching `value`.
    #[must_use]
    pub fn component(name: impl Into<String>, dim: usize, index: usize, value: f64) -> Self {
        let weights = (0..dim).map(|i| if i == index { 1.0 } else { 0.0 }).collect();
        LinearEvent::new(name, weights, -value)
    }
    /// Counting only crossings in `direction`.
    #[must_use]
    pub fn direction(mut self, direction: Direction) -> Self {
        self.direction = direction;
        self
    }
    /// Ending the run (or not).
    #[must_use]
    pub fn terminal(mut self, terminal: bool) -> Self {
        self.terminal = terminal;
        self
    }
}

impl RunRequest {
    /// A run from `start` over `span` with default options, in mode 0, with no inputs.
    #[must_use]
    pub fn new(start: Vec<f64>, span: Range<f64>) -> Self {
        RunRequest {
            start,
            mode: 0,
            span,
            options: HybridOptions::default(),
            inputs: Vec::new(),
            law: None,
            events: Vec::new(),
            outputs: true,
        }
    }
    /// Starting in `mode`.
    #[must_use]
    pub fn mode(mut self, mode: usize) -> Self {
        self.mode = mode;
        self
    }
    /// With these options (plain [`Options`] convert, the hybrid ones at their defaults).
    #[must_use]
    pub fn options(mut self, options: impl Into<HybridOptions>) -> Self {
        self.options = options.into();
        self
    }
    /// The relative tolerance.
    #[must_use]
    pub fn rtol(mut self, rtol: f64) -> Self {
        self.options.ode.rtol = rtol;
        self
    }
    /// The absolute tolerance.
    #[must_use]
    pub fn atol(mut self, atol: f64) -> Self {
        self.options.ode.atol = atol;
        self
    }
    /// Driven by these constant inputs.
    #[must_use]
    pub fn inputs(mut self, inputs: Vec<f64>) -> Self {
        self.inputs = inputs;
        self
    }
    /// Driven by the feedback law `law` (about the [`inputs`](Self::inputs) u₀).
    #[must_use]
    pub fn law(mut self, law: InputLaw) -> Self {
        self.law = Some(law);
        self
    }
    /// The inputs the request drives the model with at `(t, x)`.
    #[must_use]
    pub fn inputs_at(&self, t: f64, x: &[f64]) -> Vec<f64> {
        match &self.law {
            None => self.inputs.clone(),
            Some(InputLaw::Linear { gain, at }) => {
                let d = at.len();
                self.inputs
                    .iter()
                    .enumerate()
                    .map(|(i, u0)| u0 - (0..d).map(|j| gain[i * d + j] * (x[j] - at[j])).sum::<f64>())
                    .collect()
            }
            Some(InputLaw::Function(f)) => f(t, x),
        }
    }
    /// Locating these events.
    #[must_use]
    pub fn events(mut self, events: Vec<LinearEvent>) -> Self {
        self.events = events;
        self
    }
    /// With the outputs at every sample in the result (or not).
    #[must_use]
    pub fn with_outputs(mut self, outputs: bool) -> Self {
        self.outputs = outputs;
        self
    }
}

/// An event located during a run, flat.
#[derive(Debug, Clone, PartialEq)]
pub struct FlatEvent {
    /// The event's name.
    pub name: String,
    /// Its time.
    pub t: f64,
    /// The state there.
    pub state: Vec<f64>,
}

/// An impact of a hybrid run, flat.
#[derive(Debug, Clone, PartialEq)]
pub struct FlatImpact {
    /// Its time.
    pub t: f64,
    /// The guard that fired.
    pub guard: &'static str,
    /// The mode before and after.
    pub modes: (usize, usize),
    /// The state before and after the reset (padded).
    pub pre: Vec<f64>,
    /// See [`pre`](Self::pre).
    pub post: Vec<f64>,
}

/// A run's samples, one row per sample (the states row-major), with its mode per sample, its
/// events and impacts, and how it ended.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct FlatRun {
    /// The state's dimension (the row length of [`states`](Self::states)).
    pub dim: usize,
    /// The sample times.
    pub times: Vec<f64>,
    /// The states, `times.len()` rows of `dim`.
    pub states: Vec<f64>,
    /// The mode of each sample (all 0 for a model with one mode).
    pub modes: Vec<usize>,
    /// The outputs at each sample, `times.len()` rows of the model's outputs (empty without, or
    /// when the request asked for none: [`RunRequest::with_outputs`]).
    pub outputs: Vec<f64>,
    /// The events located.
    pub events: Vec<FlatEvent>,
    /// The impacts (empty for a smooth model).
    pub impacts: Vec<FlatImpact>,
    /// Whether the run reached the end of its span.
    pub finished: bool,
    /// How it ended, in words (`Finished`, a terminal event, Zeno, a failure, …).
    pub stop: String,
    /// Work counters.
    pub stats: Stats,
}

impl FlatRun {
    /// The number of samples.
    #[must_use]
    pub fn len(&self) -> usize {
        self.times.len()
    }
    /// Whether it has no samples.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.times.is_empty()
    }
    /// The state of sample `k`.
    ///
    /// # Panics
    /// If `k` is out of range.
    #[must_use]
    pub fn state(&self, k: usize) -> &[f64] {
        &self.states[k * self.dim..(k + 1) * self.dim]
    }
}

fn rows<const D: usize>(states: &[SVector<f64, D>]) -> Vec<f64> {
    states.iter().flat_map(|x| x.iter().copied()).collect()
}

fn events<const D: usize>(events: &[crate::ode::events::EventRecord<D>]) -> Vec<FlatEvent> {
    events.iter().map(|e| FlatEvent { name: e.name.clone(), t: e.t, state: e.state.as_slice().to_vec() }).collect()
}

impl<const D: usize> From<Trajectory<D>> for FlatRun {
    fn from(run: Trajectory<D>) -> Self {
        FlatRun {
            dim: D,
            modes: vec![0; run.times.len()],
            states: rows(&run.states),
            outputs: Vec::new(),
            events: events(&run.events),
            impacts: Vec::new(),
            finished: matches!(run.stop, StopReason::Finished),
            stop: format!("{:?}", run.stop),
            stats: run.stats,
            times: run.times,
        }
    }
}

impl<const D: usize> From<HybridTrajectory<D>> for FlatRun {
    fn from(run: HybridTrajectory<D>) -> Self {
        FlatRun {
            dim: D,
            states: rows(&run.states),
            outputs: Vec::new(),
            events: events(&run.events),
            impacts: run
                .impacts
                .iter()
                .map(|i| FlatImpact {
                    t: i.t,
                    guard: i.guard,
                    modes: (i.mode_before, i.mode_after),
                    pre: i.pre.as_slice().to_vec(),
                    post: i.post.as_slice().to_vec(),
                })
                .collect(),
            finished: matches!(run.stop, HybridStop::Finished),
            stop: format!("{:?}", run.stop),
            stats: run.stats,
            modes: run.modes,
            times: run.times,
        }
    }
}

impl<T: Into<FlatRun>, const K: usize> From<Sampled<T, K>> for FlatRun {
    fn from(run: Sampled<T, K>) -> Self {
        run.trajectory.into()
    }
}

/// The linearisation δẋ = A δx + B δu at a state, as dense matrices (B has no columns for a model
/// without inputs).
#[derive(Debug, Clone, PartialEq)]
pub struct FlatLinearization {
    /// A = ∂F/∂x.
    pub a: DMatrix<f64>,
    /// B = ∂F/∂u.
    pub b: DMatrix<f64>,
}

impl FlatLinearization {
    /// From the typed matrices.
    #[must_use]
    pub fn new<const D: usize, const K: usize>(a: &SMatrix<f64, D, D>, b: &SMatrix<f64, D, K>) -> Self {
        FlatLinearization { a: DMatrix::from_column_slice(D, D, a.as_slice()), b: DMatrix::from_column_slice(D, K, b.as_slice()) }
    }
}

/// One step of a fixed-step scheme and its exact Jacobians, as a flat state and dense matrices:
/// x_{k+1}, A_d = ∂x_{k+1}/∂x_k and B_d = ∂x_{k+1}/∂u_k ([`DynModel::rk4_step`]).
#[derive(Debug, Clone, PartialEq)]
pub struct FlatStep {
    /// x_{k+1}.
    pub next: Vec<f64>,
    /// A_d = ∂x_{k+1}/∂x_k (in the charts: ∂ξ_{k+1}/∂ξ_k).
    pub a: DMatrix<f64>,
    /// B_d = ∂x_{k+1}/∂u_k (in the charts: ∂ξ_{k+1}/∂u_k).
    pub b: DMatrix<f64>,
}

impl FlatStep {
    /// From the typed step ([`crate::step::rk4_step`]).
    #[must_use]
    pub fn new<const D: usize, const K: usize>(step: &crate::step::StepJacobian<D, K>) -> Self {
        Self::of(step.next.as_slice(), &step.a, &step.b)
    }

    /// `next` with A_d and B_d over `C` components.
    fn of<const C: usize, const K: usize>(next: &[f64], a: &SMatrix<f64, C, C>, b: &SMatrix<f64, C, K>) -> Self {
        FlatStep {
            next: next.to_vec(),
            a: DMatrix::from_column_slice(C, C, a.as_slice()),
            b: DMatrix::from_column_slice(C, K, b.as_slice()),
        }
    }

    /// From the typed step in the tangent charts ([`crate::step::rk4_tangent_step`]): A_d and
    /// B_d over the charts' `C` components.
    #[must_use]
    pub fn from_tangent<const D: usize, const C: usize, const K: usize>(step: &crate::step::TangentStep<D, C, K>) -> Self {
        Self::of(step.next.as_slice(), &step.a, &step.b)
    }
}

/// Vectors on flat data, one per row (a path's states or inputs).
pub type FlatRows = Vec<Vec<f64>>;

/// An iLQR problem on flat data ([`DynModel::ilqr`]; the typed [`IlqrProblem`](crate::ilqr::IlqrProblem)
/// and its guess): N = `guess.len()` steps of size `h` from `x0` at `t0`, the quadratic cost about
/// `goal` (every reference state) and the reference inputs `reference` — or along the `path` of
/// reference states and inputs — with the weights Q, R and Q_f (dense, state × state and inputs ×
/// inputs — Q and Q_f over the charts' 2n components for [`DynModel::ilqr_tangent`]), and
/// optionally the inputs' limits.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct IlqrRequest {
    /// The start x₀.
    pub x0: Vec<f64>,
    /// The start time t₀.
    pub t0: f64,
    /// The step h.
    pub h: f64,
    /// The inputs guessed, u₀ … u_{N−1}.
    pub guess: Vec<Vec<f64>>,
    /// The goal x* (every reference state).
    pub goal: Vec<f64>,
    /// The reference input u* (every step's; empty: zero).
    pub reference: Vec<f64>,
    /// A path to track in place of `goal` and `reference`: the reference states x*_0 … x*_N
    /// (N + 1) and inputs u*_0 … u*_{N−1} (N), or none.
    pub path: Option<(FlatRows, FlatRows)>,
    /// The running state weight Q.
    pub q: DMatrix<f64>,
    /// The input weight R.
    pub r: DMatrix<f64>,
    /// The final state weight Q_f.
    pub qf: DMatrix<f64>,
    /// Lower and upper limits of the inputs, or none.
    pub limits: Option<(Vec<f64>, Vec<f64>)>,
    /// The relative decrease of J below which the iteration has converged.
    pub tolerance: f64,
    /// The iteration limit.
    pub max_iterations: usize,
    /// The step map planned on.
    pub scheme: IlqrScheme,
    /// Whether the steps' Jacobians are computed on several threads
    /// ([`IlqrProblem::parallel`](crate::ilqr::IlqrProblem::parallel)).
    pub parallel: bool,
    /// Whether the solution carries the gains about its final trajectory
    /// ([`IlqrProblem::final_gains`](crate::ilqr::IlqrProblem::final_gains); `gains` empty without).
    pub final_gains: bool,
}

/// The step map an erased iLQR plans on ([`IlqrRequest::scheme`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum IlqrScheme {
    /// The classical Runge–Kutta step ([`crate::step::rk4_step`]; a discrete model's own
    /// integrator).
    #[default]
    Rk4,
    /// The semi-implicit Euler step of a second-order model ([`crate::step::SemiImplicitEuler`]:
    /// one evaluation of the field's Jacobians a step).
    SemiImplicitEuler,
    /// The model's variational integrator (`discrete(rule = ...)` with inputs): its step map over
    /// the discrete state ([`DynModel::discrete_step`]) — with orientations through
    /// [`DynModel::ilqr_tangent`], the weights over the chart (δx, η, δμ).
    Variational,
}

impl IlqrRequest {
    /// From `x0` with the inputs `guess` (one per step) towards `goal`, steps of size `h` from
    /// t₀ = 0, the weights Q, R, Q_f; no reference input, no limits, the typed problem's
    /// tolerance (10⁻⁸) and iteration limit (200).
    #[must_use]
    pub fn new(
        x0: Vec<f64>,
        guess: Vec<Vec<f64>>,
        h: f64,
        goal: Vec<f64>,
        (q, r, qf): (DMatrix<f64>, DMatrix<f64>, DMatrix<f64>),
    ) -> Self {
        IlqrRequest {
            x0,
            t0: 0.0,
            h,
            guess,
            goal,
            reference: Vec::new(),
            path: None,
            q,
            r,
            qf,
            limits: None,
            tolerance: 1e-8,
            max_iterations: 200,
            scheme: IlqrScheme::Rk4,
            parallel: false,
            final_gains: true,
        }
    }
}

/// An iLQR solution as flat data ([`DynModel::ilqr`]; the typed
/// [`IlqrSolution`](crate::ilqr::IlqrSolution)).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct FlatIlqr {
    /// x₀ … x_N.
    pub states: Vec<Vec<f64>>,
    /// u₀ … u_{N−1}.
    pub inputs: Vec<Vec<f64>>,
    /// The feedback gains K₀ … K_{N−1} (inputs × state; inputs × the charts' 2n components from
    /// [`DynModel::ilqr_tangent`]); none where the request asks for no final gains
    /// ([`IlqrRequest::final_gains`]).
    pub gains: Vec<DMatrix<f64>>,
    /// J after each accepted iteration, the guess's first.
    pub costs: Vec<f64>,
    /// How it ended.
    pub status: crate::ilqr::IlqrStatus,
}

/// The typed iLQR ([`crate::ilqr::ilqr`]) of a model's step map on a flat request (generated
/// glue for [`DynModel::ilqr`]).
///
/// # Errors
/// [`SimError::InvalidArgument`] for vectors or weights of the wrong sizes or a malformed
/// problem (see [`crate::ilqr::IlqrError::Malformed`]); the step map's own error where the
/// guess's rollout fails.
pub fn ilqr<S: crate::step::StepMap<D, K> + Sync + ?Sized, const D: usize, const K: usize>(
    sys: &S,
    info: &ModelInfo,
    request: &IlqrRequest,
) -> Result<FlatIlqr, SimError> {
    rk4_only(info, request)?;
    flat_ilqr::<D, K, D>(info, request, |problem, x0, guess| crate::ilqr::ilqr(sys, problem, x0, guess))
}

/// [`ilqr`] of a second-order model ([`crate::step::SecondOrder`]) on the step map the request
/// names: its RK4 step, or its semi-implicit Euler step (generated glue for [`DynModel::ilqr`]).
///
/// # Errors
/// As [`ilqr`].
pub fn ilqr_second_order<S, const D: usize, const K: usize>(
    sys: &S,
    info: &ModelInfo,
    request: &IlqrRequest,
) -> Result<FlatIlqr, SimError>
where
    S: crate::step::InputJacobians<D, K> + crate::step::SecondOrder + Sync + ?Sized,
{
    match request.scheme {
        IlqrScheme::SemiImplicitEuler => flat_ilqr::<D, K, D>(info, request, |problem, x0, guess| {
            crate::ilqr::ilqr(&crate::step::SemiImplicitEuler(sys), problem, x0, guess)
        }),
        IlqrScheme::Rk4 | IlqrScheme::Variational => ilqr(sys, info, request),
    }
}

/// A request for another scheme than RK4 where the model has no other: an error that says which
/// models have one.
fn rk4_only(info: &ModelInfo, request: &IlqrRequest) -> Result<(), SimError> {
    match request.scheme {
        IlqrScheme::Rk4 => Ok(()),
        IlqrScheme::Variational => Err(no_discrete_step(info)),
        IlqrScheme::SemiImplicitEuler => Err(SimError::InvalidArgument(format!(
            "{} has no semi-implicit Euler step: it needs x = (q, v) with q̇ = v (a model without orientations or an \
             action variable); plan on its RK4 step",
            info.name
        ))),
    }
}

/// The typed iLQR in the orientations' tangent charts ([`crate::ilqr::ilqr_tangent`]) on a flat
/// request, its weights C × C over the charts (generated glue for [`DynModel::ilqr_tangent`]).
///
/// # Errors
/// As [`ilqr`].
pub fn ilqr_tangent<S, const P: usize, const N: usize, const D: usize, const C: usize, const K: usize>(
    sys: &S,
    info: &ModelInfo,
    request: &IlqrRequest,
) -> Result<FlatIlqr, SimError>
where
    S: crate::step::InputJacobians<D, K> + Sync + ?Sized,
{
    rk4_only(info, request)?;
    flat_ilqr::<D, K, C>(info, request, |problem, x0, guess| {
        crate::ilqr::ilqr_tangent::<S, P, N, D, C, K>(sys, problem, x0, guess)
    })
}

/// The request as a typed problem over deviations of `C` components, solved by `solve`, flat.
pub(crate) fn flat_ilqr<const D: usize, const K: usize, const C: usize>(
    info: &ModelInfo,
    request: &IlqrRequest,
    solve: impl FnOnce(
        &crate::ilqr::IlqrProblem<D, K, C>,
        &SVector<f64, D>,
        &[SVector<f64, K>],
    ) -> Result<crate::ilqr::IlqrSolution<D, K, C>, crate::ilqr::IlqrError>,
) -> Result<FlatIlqr, SimError> {
    use crate::ilqr::{IlqrError, IlqrProblem};
    let square = |m: &DMatrix<f64>, n: usize, what: &str| {
        if m.shape() == (n, n) {
            Ok(())
        } else {
            Err(SimError::InvalidArgument(format!(
                "{what} of {} must be {n} × {n}, not {} × {}",
                info.name,
                m.nrows(),
                m.ncols()
            )))
        }
    };
    square(&request.q, C, "Q")?;
    square(&request.r, K, "R")?;
    square(&request.qf, C, "Q_f")?;
    let x0 = state::<D>(info, &request.x0)?;
    let goal = state::<D>(info, &request.goal)?;
    let guess = request.guess.iter().map(|u| inputs::<K>(info, u)).collect::<Result<Vec<_>, _>>()?;
    let mut problem = IlqrProblem::new(
        (request.t0, request.h, guess.len()),
        goal,
        SMatrix::<f64, C, C>::from_iterator(request.q.iter().copied()),
        SMatrix::<f64, K, K>::from_iterator(request.r.iter().copied()),
        SMatrix::<f64, C, C>::from_iterator(request.qf.iter().copied()),
    )
    .tolerance(request.tolerance)
    .max_iterations(request.max_iterations)
    .parallel(request.parallel)
    .final_gains(request.final_gains);
    if !request.reference.is_empty() {
        problem = problem.reference(inputs::<K>(info, &request.reference)?);
    }
    if let Some((states, references)) = &request.path {
        let states = states.iter().map(|x| state::<D>(info, x)).collect::<Result<Vec<_>, _>>()?;
        let references = references.iter().map(|u| inputs::<K>(info, u)).collect::<Result<Vec<_>, _>>()?;
        problem = problem.path(states, references);
    }
    if let Some((lower, upper)) = &request.limits {
        problem = problem.limits(inputs::<K>(info, lower)?, inputs::<K>(info, upper)?);
    }
    let solution = solve(&problem, &x0, &guess).map_err(|e| match e {
        IlqrError::Malformed(why) => SimError::InvalidArgument(format!("the iLQR problem of {}: {why}", info.name)),
        IlqrError::Rollout { source, .. } => source,
    })?;
    Ok(FlatIlqr {
        states: solution.states.iter().map(|x| x.as_slice().to_vec()).collect(),
        inputs: solution.inputs.iter().map(|u| u.as_slice().to_vec()).collect(),
        gains: solution.gains.iter().map(|k| DMatrix::from_column_slice(K, C, k.as_slice())).collect(),
        costs: solution.costs,
        status: solution.status,
    })
}

/// A generated model behind a pointer (every model `#[derive(Mechanics)]` makes implements it):
/// its [`ModelInfo`], its parameters' values, and its field, energy, momenta, outputs, mass
/// matrix, inverse dynamics, linearisation, RK4 step with its Jacobians and runs on states given as slices. Each method is the typed API's, so its
/// numbers are the typed ones to the bit.
///
/// `mode` selects the mode of a model with modes (0 otherwise); `u` gives the inputs of a model
/// with inputs (empty otherwise). A slice of the wrong length, a mode out of range or an item the
/// model does not generate is an error ([`SimError::InvalidArgument`], [`SimError::InvalidMode`]),
/// never a panic.
pub trait DynModel: Send + Sync + 'static {
    /// What the model is, without an instance.
    fn describe() -> &'static ModelInfo
    where
        Self: Sized;

    /// The model with these parameter values (in the order of [`ModelInfo::parameters`]),
    /// checked as a run checks them.
    ///
    /// # Errors
    /// [`SimError::InvalidArgument`] for the wrong number of values,
    /// [`SimError::InvalidParameter`] for a value the model cannot take.
    fn from_parameters(values: &[f64]) -> Result<Self, SimError>
    where
        Self: Sized;

    /// What the model is.
    fn info(&self) -> &'static ModelInfo;

    /// Its parameters' values, in the order of [`ModelInfo::parameters`].
    fn parameter_values(&self) -> Vec<f64>;

    /// The same model with other parameter values ([`from_parameters`](Self::from_parameters)).
    ///
    /// # Errors
    /// As [`from_parameters`](Self::from_parameters).
    fn with_parameters(&self, values: &[f64]) -> Result<Box<dyn DynModel>, SimError>;

    /// The field F(t, x) (in `mode`, at the inputs `u`).
    ///
    /// # Errors
    /// Wrong sizes or mode; the field's own ([`FieldError`](crate::FieldError) as a [`SimError`]).
    fn field(&self, mode: usize, t: f64, x: &[f64], u: &[f64]) -> Result<Vec<f64>, SimError>;

    /// The energy E(t, x).
    ///
    /// # Errors
    /// Wrong sizes or mode.
    fn energy(&self, mode: usize, t: f64, x: &[f64]) -> Result<f64, SimError>;

    /// The momenta p = ∂L/∂q̇ (one per velocity of `mode`).
    ///
    /// # Errors
    /// Wrong sizes or mode.
    fn momenta(&self, mode: usize, t: f64, x: &[f64]) -> Result<Vec<f64>, SimError>;

    /// The outputs (`output(...)`; empty without).
    ///
    /// # Errors
    /// Wrong sizes or mode.
    fn outputs(&self, mode: usize, t: f64, x: &[f64], u: &[f64]) -> Result<Vec<f64>, SimError>;

    /// The outputs' Jacobian C = ∂y/∂x (`output_jacobian`), row by row: one row per output, one
    /// entry per component of the (padded) state; empty without outputs. No inputs: outputs never
    /// read them.
    ///
    /// # Errors
    /// Wrong sizes or mode; [`SimError::InvalidArgument`] where the model does not generate it
    /// (the message says why: an output of a multiplier, say).
    fn output_jacobian(&self, mode: usize, t: f64, x: &[f64]) -> Result<Vec<f64>, SimError>;

    /// The mass matrix M(t, q) of `mode`, row by row (n × n, n its velocities).
    ///
    /// # Errors
    /// Wrong sizes or mode.
    fn mass_matrix(&self, mode: usize, t: f64, x: &[f64]) -> Result<Vec<f64>, SimError>;

    /// The inverse dynamics τ = M q̈ − f at `(t, x, u)`: the generalized forces that, added to the
    /// model's own, give the accelerations `qdd` (one per velocity of `mode`; the unconstrained
    /// model's).
    ///
    /// # Errors
    /// Wrong sizes or mode; the typed method's own ([`FieldError`](crate::FieldError) as a
    /// [`SimError`]).
    fn inverse_dynamics(&self, mode: usize, t: f64, x: &[f64], u: &[f64], qdd: &[f64]) -> Result<Vec<f64>, SimError>;

    /// The static generalized forces −f(t, q, 0) at `(t, x, u)` (the typed `static_forces`: what
    /// holds `mode`'s model still at its positions — gravity compensation's torques), one per
    /// velocity.
    ///
    /// # Errors
    /// Wrong sizes or mode.
    fn static_forces(&self, mode: usize, t: f64, x: &[f64], u: &[f64]) -> Result<Vec<f64>, SimError>;

    /// ∂τ/∂q and ∂τ/∂q̇ of the inverse dynamics τ = M q̈ − f at the accelerations `qdd`, in mode
    /// `mode` at `(t, x, u)`, each n × n by rows (the typed `inverse_dynamics_jacobian`).
    ///
    /// # Errors
    /// Wrong sizes or mode; [`SimError::InvalidArgument`] where the model generates none (see
    /// the table of generated items: the dense path with `jacobian`, or spatial links of screw
    /// joints); the typed method's own.
    #[allow(clippy::type_complexity)]
    fn inverse_dynamics_jacobian(
        &self,
        mode: usize,
        t: f64,
        x: &[f64],
        u: &[f64],
        qdd: &[f64],
    ) -> Result<(Vec<f64>, Vec<f64>), SimError>;

    /// The linearisation A = ∂F/∂x, B = ∂F/∂u at `(t, x, u)` from the generated Jacobians.
    ///
    /// # Errors
    /// Wrong sizes or mode; [`SimError::InvalidArgument`] for a model that generates no field
    /// Jacobian (ask for it with `jacobian`); the Jacobian's own.
    fn linearize(&self, mode: usize, t: f64, x: &[f64], u: &[f64]) -> Result<FlatLinearization, SimError>;

    /// The linearisation in the tangent chart of the orientations (the typed `linearize_tangent`:
    /// each orientation charted by its body rotation vector, A and B over the chart's state, its
    /// embedding in the state and the mechanical form; [`crate::linearize::tangent`]) at
    /// `(t, x, u)`.
    ///
    /// # Errors
    /// Wrong sizes or mode; [`SimError::InvalidArgument`] for a model (or mode) that generates none
    /// ([`no_tangent_linearization`]); the field's own.
    fn linearize_tangent(&self, mode: usize, t: f64, x: &[f64], u: &[f64]) -> Result<ConstrainedLinearization, SimError>;

    /// One classical Runge–Kutta step of size `h` from `(t, x)` with the inputs `u` held, without
    /// Jacobians: x_{k+1} alone, four evaluations of [`Self::field`] — the typed
    /// [`step::rk4`](crate::step::rk4), and [`Self::rk4_step`]'s `next`, to the bit — for any model
    /// (a mode's field; impacts and mode changes are not looked for inside the step), where the
    /// step with its Jacobians integrates their variational equations too: stepping a plant, a
    /// simulator's tick.
    ///
    /// # Errors
    /// Wrong sizes or mode; a step `h` that is not finite ([`SimError::InvalidArgument`]), a
    /// non-finite result ([`SimError::NonFiniteState`]); the field's own.
    fn rk4_advance(&self, mode: usize, t: f64, x: &[f64], u: &[f64], h: f64) -> Result<Vec<f64>, SimError> {
        if !h.is_finite() {
            return Err(SimError::InvalidArgument(format!("{}'s RK4 step h = {h} must be finite", self.info().name)));
        }
        let half = 0.5 * h;
        let stage = |k: &[f64], by: f64| -> Vec<f64> { x.iter().zip(k).map(|(x, k)| x + k * by).collect() };
        let k1 = self.field(mode, t, x, u)?;
        let k2 = self.field(mode, t + half, &stage(&k1, half), u)?;
        let k3 = self.field(mode, t + half, &stage(&k2, half), u)?;
        let k4 = self.field(mode, t + h, &stage(&k3, h), u)?;
        let sixth = h / 6.0;
        let next: Vec<f64> = (0..x.len()).map(|i| x[i] + (k1[i] + (k2[i] + k3[i]) * 2.0 + k4[i]) * sixth).collect();
        if next.iter().all(|v| v.is_finite()) { Ok(next) } else { Err(SimError::NonFiniteState { t }) }
    }

    /// One classical Runge–Kutta step of size `h` from `(t, x)` with the inputs `u` held, and its
    /// exact Jacobians A_d = ∂x_{k+1}/∂x_k, B_d = ∂x_{k+1}/∂u_k (the typed
    /// [`step::rk4_step`](crate::step::rk4_step)): the discrete-time model of LQR and iLQR.
    ///
    /// # Errors
    /// Wrong sizes or mode; [`SimError::InvalidArgument`] for a model without the step's
    /// Jacobians ([`no_step_jacobian`]); the step's own.
    fn rk4_step(&self, mode: usize, t: f64, x: &[f64], u: &[f64], h: f64) -> Result<FlatStep, SimError>;

    /// The same step with its Jacobians in the orientations' tangent charts about x_k and x_{k+1}
    /// (the typed `rk4_step_tangent`, [`step::rk4_tangent_step`](crate::step::rk4_tangent_step)):
    /// A_d and B_d over the charts' 2n components, `next` in the state — the error-state model
    /// of a discrete LQR where the quaternion state's carries each quaternion's scale. By default
    /// none ([`no_tangent_step`]); generated models with orientations, inputs and the step's
    /// Jacobians have it.
    ///
    /// # Errors
    /// Wrong sizes or mode; [`SimError::InvalidArgument`] for a model without it; the step's own.
    fn rk4_step_tangent(&self, mode: usize, t: f64, x: &[f64], u: &[f64], h: f64) -> Result<FlatStep, SimError> {
        let _ = (mode, t, x, u, h);
        Err(no_tangent_step(self.info()))
    }

    /// Iterative LQR over the model's RK4 step map ([`crate::ilqr::ilqr`], [`crate::step::rk4_step`]):
    /// a locally optimal input sequence and its feedback gains for the request's horizon and
    /// quadratic cost.
    ///
    /// # Errors
    /// As [`ilqr`]; [`SimError::InvalidArgument`] for a model without the step's Jacobians
    /// ([`no_step_jacobian`]).
    fn ilqr(&self, request: &IlqrRequest) -> Result<FlatIlqr, SimError>;

    /// Iterative LQR in the orientations' tangent charts (the typed `ilqr_tangent`,
    /// [`crate::ilqr::ilqr_tangent`]): the request's weights Q and Q_f over the charts' 2n
    /// components, the gains inputs × 2n. By default none ([`no_tangent_step`]); the models with
    /// [`Self::rk4_step_tangent`] have it. With [`IlqrScheme::Variational`] a model with
    /// orientations, `discrete(rule = ...)` and inputs plans on its Lie group variational
    /// integrator ([`crate::ilqr::ilqr_oriented`]), the weights over the chart (δx, η, δμ).
    ///
    /// # Errors
    /// As [`ilqr`]; [`SimError::InvalidArgument`] for a model without it.
    fn ilqr_tangent(&self, request: &IlqrRequest) -> Result<FlatIlqr, SimError> {
        if request.scheme == IlqrScheme::Variational {
            return Err(no_discrete_step(self.info()));
        }
        Err(no_tangent_step(self.info()))
    }

    /// The start of a discrete run from the model's state `x` at `t` ([`DynModel::discrete_run`]):
    /// its positions, the momenta p₀ = ∂L/∂v (for orientations in the bodies' axes) and, for a
    /// contact integrator, the action — the discrete state its step maps act on
    /// ([`DiscreteInfo::state_names`]). By default none ([`no_discrete`]).
    ///
    /// # Errors
    /// A state of the wrong size; [`SimError::InvalidArgument`] for a model without a variational
    /// integrator.
    fn discrete_state(&self, t: f64, x: &[f64]) -> Result<Vec<f64>, SimError> {
        let _ = (t, x);
        Err(no_discrete(self.info()))
    }

    /// A run of the model's variational integrator (`discrete(rule = ...)`, the typed
    /// `run_discrete`; with inputs `driven(u).run_discrete`) from the request's state, its nodes
    /// flat in the discrete state ([`Self::discrete_state`]). By default none ([`no_discrete`]).
    ///
    /// # Errors
    /// The typed run's, with the nodes before a failed step; [`SimError::InvalidArgument`] for a
    /// model without a variational integrator or arguments of the wrong sizes.
    fn discrete_run(&self, request: &DiscreteRequest) -> Result<FlatDiscreteRun, RunError<FlatDiscreteRun>> {
        let _ = request;
        Err(no_discrete(self.info()).into())
    }

    /// One step of the model's variational integrator from the discrete state `x` at `t` with the
    /// inputs `u` held, and its exact Jacobians A_d and B_d (the typed
    /// [`VariationalMap`](crate::step::VariationalMap), [`ContactMap`](crate::step::ContactMap) or,
    /// with orientations, [`OrientedMap`](crate::step::OrientedMap), whose A_d and B_d are in the
    /// chart (δx, η, δμ) about x and x_next). By default none ([`no_discrete_step`]): a model with
    /// `discrete(rule = ...)` and inputs has it.
    ///
    /// # Errors
    /// Wrong sizes; the step's own; [`SimError::InvalidArgument`] for a model without it.
    fn discrete_step(&self, t: f64, x: &[f64], u: &[f64], h: f64) -> Result<FlatStep, SimError> {
        let _ = (t, x, u, h);
        Err(no_discrete_step(self.info()))
    }

    /// The same step's x_{k+1} alone, without its Jacobians (the step maps' `advance`; to the bit
    /// [`Self::discrete_step`]'s `next`): a plant's tick on the integrator. By default none; the
    /// models with [`Self::discrete_step`] have it.
    ///
    /// # Errors
    /// As [`Self::discrete_step`].
    fn discrete_advance(&self, t: f64, x: &[f64], u: &[f64], h: f64) -> Result<Vec<f64>, SimError> {
        let _ = (t, x, u, h);
        Err(no_discrete_step(self.info()))
    }

    /// A run: the typed run of [`Simulate::run`] from the request's start, over its span, with its
    /// options and constant inputs, its samples (and the outputs at each) flat.
    ///
    /// # Errors
    /// The typed run's, with its partial result flat.
    fn run(&self, request: &RunRequest) -> Result<FlatRun, RunError<FlatRun>>;
}

/// The state of dimension `D` from `x` (generated glue).
///
/// # Errors
/// [`SimError::InvalidArgument`] if `x` has another length.
pub fn state<const D: usize>(info: &ModelInfo, x: &[f64]) -> Result<SVector<f64, D>, SimError> {
    if x.len() == D {
        Ok(SVector::from_column_slice(x))
    } else {
        Err(SimError::InvalidArgument(format!("a state of {} has {D} components, not {}", info.name, x.len())))
    }
}

/// The inputs `u` of a model with `K` of them (generated glue).
///
/// # Errors
/// [`SimError::InvalidArgument`] if `u` has another length.
pub fn inputs<const K: usize>(info: &ModelInfo, u: &[f64]) -> Result<SVector<f64, K>, SimError> {
    if u.len() == K {
        Ok(SVector::from_column_slice(u))
    } else {
        Err(SimError::InvalidArgument(format!("{} has {K} inputs ({}), not {}", info.name, info.inputs.join(", "), u.len())))
    }
}

/// The accelerations `qdd` of a mode with `N` velocities (generated glue).
///
/// # Errors
/// [`SimError::InvalidArgument`] if `qdd` has another length.
pub fn accelerations<const N: usize>(info: &ModelInfo, qdd: &[f64]) -> Result<SVector<f64, N>, SimError> {
    if qdd.len() == N {
        Ok(SVector::from_column_slice(qdd))
    } else {
        Err(SimError::InvalidArgument(format!("{} takes {N} accelerations here, not {}", info.name, qdd.len())))
    }
}

/// The parameter values as an array of the model's `P` (generated glue).
///
/// # Errors
/// [`SimError::InvalidArgument`] if `values` has another length.
pub fn parameters<const P: usize>(info: &ModelInfo, values: &[f64]) -> Result<[f64; P], SimError> {
    <[f64; P]>::try_from(values).map_err(|_| {
        SimError::InvalidArgument(format!(
            "{} has {P} parameters ({}), not {}",
            info.name,
            info.parameters.join(", "),
            values.len()
        ))
    })
}

/// `Ok` if `mode` is one of the model's (generated glue).
///
/// # Errors
/// [`SimError::InvalidMode`] otherwise.
pub fn mode(info: &ModelInfo, mode: usize) -> Result<(), SimError> {
    let modes = info.mode_count();
    if mode < modes { Ok(()) } else { Err(SimError::InvalidMode { mode, modes }) }
}

/// The state and inputs of a call in `mode` (generated glue: [`mode`], [`state`] and [`inputs`]
/// in one).
///
/// # Errors
/// As those.
pub fn arguments<const D: usize, const K: usize>(
    info: &ModelInfo,
    mode_index: usize,
    x: &[f64],
    u: &[f64],
) -> Result<(SVector<f64, D>, SVector<f64, K>), SimError> {
    mode(info, mode_index)?;
    Ok((state::<D>(info, x)?, inputs::<K>(info, u)?))
}

/// The error of [`DynModel::linearize`] on a model without a field Jacobian.
#[must_use]
pub fn no_jacobian(info: &ModelInfo) -> SimError {
    SimError::InvalidArgument(format!(
        "{} generates no field Jacobian to linearize with: add `jacobian` to its #[mechanics(...)]",
        info.name
    ))
}

/// The error of [`DynModel::linearize_tangent`] on a model (or mode) that generates none.
#[must_use]
pub fn no_tangent_linearization(info: &ModelInfo) -> SimError {
    SimError::InvalidArgument(format!(
        "{} generates no linearize_tangent: a model with orientations and `jacobian`, without constraints or modes, \
         has it (`linearize` is in the quaternion state)",
        info.name
    ))
}

/// The error of [`DynModel::rk4_step_tangent`] and [`DynModel::ilqr_tangent`] on a model without
/// them.
#[must_use]
pub fn no_tangent_step(info: &ModelInfo) -> SimError {
    SimError::InvalidArgument(format!(
        "{} has no step in the tangent charts: a model with orientations, inputs and `jacobian`, without constraints, \
         impacts, modes or an action, has it (`rk4_step` is in the quaternion state)",
        info.name
    ))
}

/// A tangent linearisation's error as the erased API's: the field's as it is, a chart that does not
/// fit as [`SimError::InvalidArgument`] (generated glue).
#[must_use]
pub fn tangent_error(error: LinearizeError) -> SimError {
    match error {
        LinearizeError::Field(e) => e.into(),
        other => SimError::InvalidArgument(other.to_string()),
    }
}

/// A mode's C row by row (`rows`, each `width` long) padded with zeros to `padded` columns, or
/// the error saying why the mode generates none (generated glue).
///
/// # Errors
/// [`SimError::InvalidArgument`] naming the model and the reason.
pub fn output_jacobian_rows(
    info: &ModelInfo,
    rows: Result<Vec<f64>, &'static str>,
    width: usize,
    padded: usize,
) -> Result<Vec<f64>, SimError> {
    let rows = rows.map_err(|why| SimError::InvalidArgument(format!("{} generates no output_jacobian: {why}", info.name)))?;
    if width == padded || width == 0 {
        return Ok(rows);
    }
    Ok(rows.chunks(width).flat_map(|row| row.iter().copied().chain(std::iter::repeat_n(0.0, padded - width))).collect())
}

/// The error of `inverse_dynamics_jacobian` on a model (or mode) that generates none (generated
/// glue).
#[must_use]
pub fn no_inverse_dynamics_jacobian(info: &ModelInfo) -> SimError {
    SimError::InvalidArgument(format!(
        "{} generates no inverse_dynamics_jacobian here (models with `jacobian` have it, but not along a tree's \
         tangent without inputs)",
        info.name
    ))
}

/// The error of [`DynModel::rk4_step`] on a model without the step's Jacobians: one with inputs
/// and `jacobian`, without constraints, modes or impacts has them (`step::InputJacobians`).
#[must_use]
pub fn no_step_jacobian(info: &ModelInfo) -> SimError {
    SimError::InvalidArgument(format!(
        "{} has no step Jacobians: a model with inputs and `jacobian`, without constraints, modes or impacts, has \
         them (add `inputs = ...` and `jacobian` to its #[mechanics(...)])",
        info.name
    ))
}

/// What a run starts from, built from a mode and a state: the state itself (mode 0 only) or a
/// [`ModeState`].
pub trait FromModeState<const D: usize>: Sized {
    /// The start.
    ///
    /// # Errors
    /// [`SimError::InvalidMode`] for a mode other than 0 of a model with one.
    fn from_mode_state(mode: usize, state: SVector<f64, D>) -> Result<Self, SimError>;
}

impl<const D: usize> FromModeState<D> for SVector<f64, D> {
    fn from_mode_state(mode: usize, state: SVector<f64, D>) -> Result<Self, SimError> {
        if mode == 0 { Ok(state) } else { Err(SimError::InvalidMode { mode, modes: 1 }) }
    }
}

impl<const D: usize> FromModeState<D> for ModeState<D> {
    fn from_mode_state(mode: usize, state: SVector<f64, D>) -> Result<Self, SimError> {
        Ok(ModeState::new(mode, state))
    }
}

/// The options of a run from a request's: the integration options of a smooth run, all of them
/// for a hybrid one.
pub trait FromRequest {
    /// The options.
    fn from_request(options: &HybridOptions) -> Self;
}

impl FromRequest for Options {
    fn from_request(options: &HybridOptions) -> Self {
        options.ode.clone()
    }
}

impl FromRequest for HybridOptions {
    fn from_request(options: &HybridOptions) -> Self {
        options.clone()
    }
}

/// The run `request` of `model` driven by `with`, its result flat with the outputs at every sample
/// from `outputs(mode, t, x)` (generated glue: the typed run itself).
///
/// # Errors
/// The typed run's, with its partial result flat (outputs included).
pub fn run<S, W, const D: usize>(
    model: &S,
    request: &RunRequest,
    with: W,
    outputs: impl Fn(usize, f64, &[f64]) -> Result<Vec<f64>, SimError>,
) -> Result<FlatRun, RunError<FlatRun>>
where
    S: Runs<W, D>,
    <S as Simulate<D>>::Start: FromModeState<D>,
    <S as Simulate<D>>::Options: FromRequest,
    S::Output: Into<FlatRun>,
{
    let info_state = SVector::<f64, D>::from_column_slice;
    if request.start.len() != D {
        return Err(SimError::InvalidArgument(format!("a start state has {D} components, not {}", request.start.len())).into());
    }
    let start = <S as Simulate<D>>::Start::from_mode_state(request.mode, info_state(&request.start))?;
    let mut events = Vec::with_capacity(request.events.len());
    for e in &request.events {
        if e.weights.len() != D {
            return Err(SimError::InvalidArgument(format!(
                "event `{}` has {} weights for a state of {D} components",
                e.name,
                e.weights.len()
            ))
            .into());
        }
        let (w, c) = (SVector::<f64, D>::from_column_slice(&e.weights), e.offset);
        events.push(
            Event::new(e.name.clone(), move |_t, x: &SVector<f64, D>| w.dot(x) + c).direction(e.direction).terminal(e.terminal),
        );
    }
    let plan =
        Plan::new(start, request.span.clone(), <S as Simulate<D>>::Options::from_request(&request.options)).with_events(&events);
    let with_outputs = |run: S::Output| -> Result<FlatRun, SimError> {
        let mut flat: FlatRun = run.into();
        if !request.outputs {
            return Ok(flat);
        }
        for k in 0..flat.len() {
            let row = outputs(flat.modes[k], flat.times[k], flat.state(k))?;
            flat.outputs.extend(row);
        }
        Ok(flat)
    };
    match model.run_with(plan, with) {
        Ok(run) => with_outputs(run).map_err(RunError::from),
        Err(RunError { error, partial }) => {
            let partial = match partial.map(|p| with_outputs(*p)) {
                Some(Ok(flat)) => Some(Box::new(flat)),
                _ => None,
            };
            Err(RunError { error, partial })
        }
    }
}
