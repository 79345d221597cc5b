//! A model's variational integrator behind a pointer: its runs ([`DynModel::discrete_run`]), its
//! step map with the exact Jacobians ([`DynModel::discrete_step`]) and iLQR over it
//! ([`IlqrScheme::Variational`](super::IlqrScheme::Variational)), on the discrete state — the
//! positions, the discrete momenta (for orientations in the bodies' axes) and, for a contact
//! integrator, the action — as flat data: the typed glue of `discrete(rule = ...)`, so that a
//! binding runs the same integrator to the bit.
//!
//! [`DynModel::discrete_run`]: super::DynModel::discrete_run
//! [`DynModel::discrete_step`]: super::DynModel::discrete_step

use nalgebra::SVector;

use super::{FlatIlqr, FlatStep, IlqrRequest, ModelInfo, flat_ilqr, inputs, state};
use crate::discrete::{
    DiscreteOptions, DiscreteTrajectory, DrivenContactDiscrete, DrivenDiscrete, DrivenOrientedDiscrete, ReducedDiscreteTrajectory,
};
use crate::error::{FieldError, RunError, RunResult, SimError};
use crate::step::{ContactMap, OrientedMap, StepMap, VariationalMap};

/// Which variational integrator a model generates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum DiscreteKind {
    /// On coordinates: the discrete state (q, p), 2n components.
    Variational,
    /// The contact (Herglotz) integrator of a model with an action: (q, p, z), 2n + 1.
    Contact,
    /// The Lie group integrator of a model with orientations: (q, μ) with each orientation's
    /// quaternion among q and its momenta in the body's axes; the step's Jacobians in the chart
    /// (δx, η, δμ) of 2n components.
    Oriented,
}

/// What a model's variational integrator is (`discrete(rule = ...)`; [`ModelInfo::discrete`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct DiscreteInfo {
    /// Which integrator.
    pub kind: DiscreteKind,
    /// Its quadrature rule as written (`midpoint`, `trapezoid`, `alpha(0.25)`, ...).
    pub rule: &'static str,
    /// The discrete state's components: the positions' names, `p_` and each velocity's, and the
    /// action's.
    pub state_names: &'static [&'static str],
    /// Whether its step map has the exact Jacobians over the state and the inputs
    /// ([`DynModel::discrete_step`](super::DynModel::discrete_step)): a model with inputs.
    pub steps: bool,
    /// The cyclic coordinates of its discrete Routh reduction (`reduce(routh(...))` beside
    /// `discrete(...)`), by which [`DiscreteRequest::reduced`] runs; empty without one.
    pub cyclic: &'static [&'static str],
}

impl DiscreteInfo {
    /// An integrator of `kind` by the rule `rule` over the components `state_names`, with the
    /// step's Jacobians or not, without a discrete reduction.
    #[must_use]
    pub const fn new(kind: DiscreteKind, rule: &'static str, state_names: &'static [&'static str], steps: bool) -> Self {
        DiscreteInfo { kind, rule, state_names, steps, cyclic: &[] }
    }

    /// The same with a discrete Routh reduction by the coordinates `cyclic`.
    #[must_use]
    pub const fn with_cyclic(mut self, cyclic: &'static [&'static str]) -> Self {
        self.cyclic = cyclic;
        self
    }
}

/// A discrete run asked for at run time: from the model's state `x0` (positions and velocities,
/// and the action; p₀ = ∂L/∂v) at `t0`, `steps` steps of size `h` with the inputs held at
/// `inputs` (empty without inputs), Newton's `options`.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct DiscreteRequest {
    /// The model's state at the start.
    pub x0: Vec<f64>,
    /// The start time t₀.
    pub t0: f64,
    /// The step h.
    pub h: f64,
    /// The number of steps.
    pub steps: usize,
    /// The inputs, held over every step (empty for a model without inputs).
    pub inputs: Vec<f64>,
    /// Newton's options.
    pub options: DiscreteOptions,
    /// Whether the run carries the energy at each node ([`FlatDiscreteRun::energies`]).
    pub energies: bool,
    /// Whether each step is solved on the reduced space of the model's discrete Routh reduction
    /// ([`DiscreteInfo::cyclic`]; the typed `run_discrete(x0)…reduced()`): the cyclic coordinates of
    /// the first node set to zero, the unknowns the shape and the increments, the cyclic
    /// coordinates reconstructed from them ([`FlatDiscreteRun::increments`]).
    pub reduced: bool,
}

impl DiscreteRequest {
    /// `steps` steps of size `h` from `x0` at t₀ = 0, no inputs, the default options, no energies,
    /// not reduced.
    #[must_use]
    pub fn new(x0: Vec<f64>, h: f64, steps: usize) -> Self {
        DiscreteRequest {
            x0,
            t0: 0.0,
            h,
            steps,
            inputs: Vec::new(),
            options: DiscreteOptions::default(),
            energies: false,
            reduced: false,
        }
    }
}

/// A discrete run as flat data: the nodes' times and discrete states (one row per node: the
/// positions, the momenta and, for a contact integrator, the action) and each step's Newton
/// iterations (the typed [`DiscreteTrajectory`]).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct FlatDiscreteRun {
    /// t_k = t₀ + k h.
    pub times: Vec<f64>,
    /// The discrete state at each node.
    pub states: Vec<Vec<f64>>,
    /// Newton iterations of each step.
    pub iterations: Vec<usize>,
    /// The energy at each node where the request asks for it (the typed `discrete_energies`: the
    /// velocities from the momenta by the inverse Legendre transform), else empty.
    pub energies: Vec<f64>,
    /// For a reduced run, each step's increments W_k = g_{k+1} − g_k of the cyclic coordinates
    /// (in the order of [`DiscreteInfo::cyclic`]): the reduced variables of the group part; else
    /// empty.
    pub increments: Vec<Vec<f64>>,
}

impl FlatDiscreteRun {
    /// From the typed trajectory.
    #[must_use]
    pub fn new<const N: usize, const P: usize>(run: &DiscreteTrajectory<N, P>) -> Self {
        let states = (0..run.times.len())
            .map(|k| {
                let mut row = Vec::with_capacity(P + N + 1);
                row.extend_from_slice(run.positions[k].as_slice());
                row.extend_from_slice(run.momenta[k].as_slice());
                row.extend(run.actions.get(k));
                row
            })
            .collect();
        FlatDiscreteRun {
            times: run.times.clone(),
            states,
            iterations: run.iterations.clone(),
            energies: Vec::new(),
            increments: Vec::new(),
        }
    }
}

/// The typed run's result flat, its partial run with it, and — if `with_energies` — the energy
/// at each node of a finished run by `energies` (the typed `discrete_energies`; generated glue
/// for [`DynModel::discrete_run`](super::DynModel::discrete_run)).
///
/// # Errors
/// The run's, its nodes before the failure flat; the energies' (the run then the partial result).
pub fn flat_discrete<const N: usize, const P: usize>(
    run: RunResult<DiscreteTrajectory<N, P>>,
    with_energies: bool,
    energies: impl FnOnce(&DiscreteTrajectory<N, P>) -> Result<Vec<f64>, FieldError>,
) -> Result<FlatDiscreteRun, RunError<FlatDiscreteRun>> {
    let run = run.map_err(|e| e.map_partial(|r| FlatDiscreteRun::new(&r)))?;
    with_energies_of(FlatDiscreteRun::new(&run), &run, with_energies, energies)
}

/// `flat` with the energy at each node of `trajectory` by `energies` where `with` asks for it
/// ([`flat_discrete`], [`flat_reduced`]).
fn with_energies_of<T>(
    mut flat: FlatDiscreteRun,
    trajectory: &T,
    with: bool,
    energies: impl FnOnce(&T) -> Result<Vec<f64>, FieldError>,
) -> Result<FlatDiscreteRun, RunError<FlatDiscreteRun>> {
    if with {
        match energies(trajectory) {
            Ok(e) => flat.energies = e,
            Err(e) => return Err(RunError::with_partial(e.into(), flat)),
        }
    }
    Ok(flat)
}

/// [`flat_discrete`] of a reduced run ([`DiscreteRequest::reduced`]): the reconstructed nodes, and
/// each step's increments of the coordinates `cyclic` (generated glue).
///
/// # Errors
/// As [`flat_discrete`], the increments of the steps before a failure kept with its nodes.
pub fn flat_reduced<const N: usize>(
    run: RunResult<ReducedDiscreteTrajectory<N>>,
    cyclic: &[usize],
    with_energies: bool,
    energies: impl FnOnce(&DiscreteTrajectory<N, N>) -> Result<Vec<f64>, FieldError>,
) -> Result<FlatDiscreteRun, RunError<FlatDiscreteRun>> {
    let flat = |r: &ReducedDiscreteTrajectory<N>| {
        let mut out = FlatDiscreteRun::new(&r.trajectory);
        out.increments = r.increments.iter().map(|w| cyclic.iter().map(|&c| w[c]).collect()).collect();
        out
    };
    let run = run.map_err(|e| e.map_partial(|r| flat(&r)))?;
    with_energies_of(flat(&run), &run.trajectory, with_energies, energies)
}

/// The error of a reduced discrete run ([`DiscreteRequest::reduced`]) of a model without a discrete
/// reduction.
#[must_use]
pub fn no_reduction(info: &ModelInfo) -> SimError {
    SimError::InvalidArgument(format!(
        "{} has no discrete reduction: declare a cyclic coordinate's `symmetry(cyclic(q))` and `reduce(routh(q))` beside \
         `discrete(rule = ...)` (a model on coordinates whose discrete Lagrangian and forces are invariant under \
         translations of q)",
        info.name
    ))
}

/// The error of the discrete API on a model without a variational integrator.
#[must_use]
pub fn no_discrete(info: &ModelInfo) -> SimError {
    SimError::InvalidArgument(format!(
        "{} has no variational integrator: add `discrete(rule = midpoint)` (or another rule) to its #[mechanics(...)]",
        info.name
    ))
}

/// The error of [`DynModel::discrete_step`](super::DynModel::discrete_step) and of iLQR on the
/// variational integrator for a model without the step's Jacobians.
#[must_use]
pub fn no_discrete_step(info: &ModelInfo) -> SimError {
    let why = if info.discrete.is_some() { "it has no inputs" } else { "it has no `discrete(rule = ...)`" };
    SimError::InvalidArgument(format!(
        "{} has no variational step map to linearize or plan on: {why} (a model with `discrete(rule = ...)` and inputs \
         has it)",
        info.name
    ))
}

/// The error of iLQR on the Lie group integrator asked for over the state: its deviations are in
/// the chart (δx, η, δμ), its weights and gains too ([`DynModel::ilqr_tangent`](super::DynModel::ilqr_tangent)).
#[must_use]
pub fn oriented_in_chart(info: &ModelInfo) -> SimError {
    SimError::InvalidArgument(format!(
        "{} plans on its Lie group variational integrator in the chart (δx, η, δμ) of its 2n components: ask for \
         `ilqr_tangent` (Python: `tangent=True`), the weights over the chart",
        info.name
    ))
}

/// The discrete state `x`, inputs `u` and step `h` of a step, checked: h finite and not zero (a
/// negative h steps back in time, the discrete Lagrangian's own reversal).
fn step_arguments<const D: usize, const K: usize>(
    info: &ModelInfo,
    x: &[f64],
    u: &[f64],
    h: f64,
) -> Result<(SVector<f64, D>, SVector<f64, K>), SimError> {
    if !(h.is_finite() && h != 0.0) {
        return Err(SimError::InvalidArgument(format!(
            "the step of {}'s variational integrator h = {h} must be finite and not zero",
            info.name
        )));
    }
    Ok((state::<D>(info, x)?, inputs::<K>(info, u)?))
}

/// x_{k+1} of a step map from the discrete state `x` with the inputs `u` held, without Jacobians
/// (`StepMap::advance` of [`VariationalMap`] or [`ContactMap`]; generated glue for
/// [`DynModel::discrete_advance`](super::DynModel::discrete_advance)).
///
/// # Errors
/// Wrong sizes, a step `h` not finite or zero; the step's own.
pub fn advance_map<S: StepMap<D, K> + ?Sized, const D: usize, const K: usize>(
    map: &S,
    info: &ModelInfo,
    (t, x, u, h): (f64, &[f64], &[f64], f64),
) -> Result<Vec<f64>, SimError> {
    let (x, u) = step_arguments::<D, K>(info, x, u, h)?;
    Ok(map.advance(t, &x, &u, h)?.as_slice().to_vec())
}

/// The Lie group integrator's x_{k+1} = (q, μ) from the discrete state `x` with the inputs `u`
/// held, without Jacobians ([`OrientedMap::advance`]; generated glue for
/// [`DynModel::discrete_advance`](super::DynModel::discrete_advance)).
///
/// # Errors
/// Wrong sizes, a step `h` not finite or zero; the step's own.
pub fn oriented_advance<M, const P: usize, const N: usize, const D: usize, const K: usize>(
    model: &M,
    info: &ModelInfo,
    (t, x, u, h): (f64, &[f64], &[f64], f64),
) -> Result<Vec<f64>, SimError>
where
    M: DrivenOrientedDiscrete<P, N, K> + ?Sized,
{
    let (x, u) = step_arguments::<D, K>(info, x, u, h)?;
    Ok(OrientedMap::<M, P, N>::new(model).advance::<D, K>(t, &x, &u, h)?.as_slice().to_vec())
}

/// The step of a model's variational integrator with inputs over (q, p) and its exact Jacobians
/// ([`VariationalMap`]; generated glue for [`DynModel::discrete_step`](super::DynModel::discrete_step)).
///
/// # Errors
/// Wrong sizes; the step's own.
pub fn variational_step<M, const N: usize, const D: usize, const K: usize>(
    model: &M,
    info: &ModelInfo,
    (t, x, u, h): (f64, &[f64], &[f64], f64),
) -> Result<FlatStep, SimError>
where
    M: DrivenDiscrete<N, K> + ?Sized,
{
    let (x, u) = step_arguments::<D, K>(info, x, u, h)?;
    Ok(FlatStep::new(&VariationalMap::<M, N>::new(model).step(t, &x, &u, h)?))
}

/// The contact integrator's step over (q, p, z) and its exact Jacobians ([`ContactMap`];
/// generated glue).
///
/// # Errors
/// Wrong sizes; the step's own.
pub fn contact_step<M, const N: usize, const D: usize, const K: usize>(
    model: &M,
    info: &ModelInfo,
    (t, x, u, h): (f64, &[f64], &[f64], f64),
) -> Result<FlatStep, SimError>
where
    M: DrivenContactDiscrete<N, K> + ?Sized,
{
    let (x, u) = step_arguments::<D, K>(info, x, u, h)?;
    Ok(FlatStep::new(&ContactMap::<M, N>::new(model).step(t, &x, &u, h)?))
}

/// The Lie group integrator's step over (q, μ) and its exact Jacobians in the chart (δx, η, δμ)
/// of `C = 2N` components ([`OrientedMap`]; generated glue).
///
/// # Errors
/// Wrong sizes; the step's own.
pub fn oriented_step<M, const P: usize, const N: usize, const D: usize, const C: usize, const K: usize>(
    model: &M,
    info: &ModelInfo,
    (t, x, u, h): (f64, &[f64], &[f64], f64),
) -> Result<FlatStep, SimError>
where
    M: DrivenOrientedDiscrete<P, N, K> + ?Sized,
{
    let (x, u) = step_arguments::<D, K>(info, x, u, h)?;
    Ok(FlatStep::from_tangent(&OrientedMap::<M, P, N>::new(model).step::<D, C, K>(t, &x, &u, h)?))
}

/// iLQR over a model's variational (or contact) integrator's step map, on a flat request over
/// its discrete state (generated glue for [`DynModel::ilqr`](super::DynModel::ilqr) with
/// [`IlqrScheme::Variational`](super::IlqrScheme::Variational)).
///
/// # Errors
/// As [`super::ilqr`].
pub fn ilqr_variational<S, const D: usize, const K: usize>(
    map: &S,
    info: &ModelInfo,
    request: &IlqrRequest,
) -> Result<FlatIlqr, SimError>
where
    S: StepMap<D, K> + Sync,
{
    flat_ilqr::<D, K, D>(info, request, |problem, x0, guess| crate::ilqr::ilqr(map, problem, x0, guess))
}

/// iLQR over the Lie group integrator's step map, the request's weights over the chart
/// (δx, η, δμ) (generated glue for [`DynModel::ilqr_tangent`](super::DynModel::ilqr_tangent)
/// with [`IlqrScheme::Variational`](super::IlqrScheme::Variational)).
///
/// # Errors
/// As [`super::ilqr`].
pub fn ilqr_oriented<M, const P: usize, const N: usize, const D: usize, const C: usize, const K: usize>(
    model: &M,
    info: &ModelInfo,
    request: &IlqrRequest,
) -> Result<FlatIlqr, SimError>
where
    M: DrivenOrientedDiscrete<P, N, K> + Sync + ?Sized,
{
    let map = OrientedMap::<M, P, N>::new(model);
    flat_ilqr::<D, K, C>(info, request, |problem, x0, guess| crate::ilqr::ilqr_oriented(&map, problem, x0, guess))
}
