//! Time-based multiple shooting for periodic orbits of conservative hybrid systems (*Hybrid
//! periodic orbits*, §3.3, eqs. (28)–(31)).
//!
//! A period is a fixed cyclic sequence of m [`Phase`]s: phase k flows in its mode from x̄_k for a
//! time t_k and ends on its guard, whose reset leads to x̄_{k+1}; phase m + 1 flows in the first
//! phase's mode again and returns to x̄₁ on the [`Anchor`] a(x) = 0. The unknowns, in the paper's
//! order, are
//!
//! ```text
//! u = [t_{m+1}, x̄_{m+1}, t_m, x̄_m, …, t₁, x̄₁, ξ, H̄]        (x̄_k ∈ ℝ^{n_k}, n_k the mode's dimension)
//! ```
//!
//! and the residual r(u) (N = Σ n_k + m + 2 rows) stacks, with φ_k the flow of the embedded field
//! f̃ = f + ξ∇H over t_k:
//!
//! ```text
//! φ_{m+1}(t_{m+1}, x̄_{m+1}) − x̄₁,   a(φ_{m+1}(…)),                            (periodicity, anchor)
//! Δ_k(φ_k(t_k, x̄_k)) − x̄_{k+1},     e_k(φ_k(t_k, x̄_k))     for k = m, …, 1,  (shooting, event)
//! H(x̄₁) − H̄.
//! ```
//!
//! Its Jacobian is assembled from the sensitivities of each phase, Φ̇ = ∂f̃/∂x Φ and
//! Ψ̇ = ∂f̃/∂x Ψ + ∇H (∂f̃/∂x = ∂f/∂x + ξ∇²H), integrated with the state — the block form (31):
//! columns ∂/∂t_k = D f̃ (resp. de·f̃, da·f̃) at the phase end, ∂/∂x̄_k = D Φ (de Φ, da Φ),
//! ∂/∂ξ = D Ψ (de·Ψ, da·Ψ), and −I for the x̄ subtracted. No saltation matrix is needed; phases of
//! zero or negative duration are allowed (a zero duration is the identity, a negative one is
//! integrated backward), which is what lets a branch start from a degenerate orbit and pass
//! through grazing. Every derivative comes from the system ([`HybridSystem::mode_jacobian`],
//! [`HybridSystem::reset_jacobian`], [`HybridSystem::guard_gradient`],
//! [`HybridSystem::mode_energy_gradient`], [`HybridSystem::mode_energy_hessian`]), exact when
//! generated. The system must be autonomous (its functions are evaluated at t = 0).
//!
//! Solutions of r = 0 need not be physical orbits (Remark 12 of the paper):
//! [`MultipleShooting::realizability`] runs the event-driven simulation from x̄₁ and checks that it
//! meets the same guards in the same order at the same times and returns to x̄₁ on the anchor
//! (erratum P4 of `docs/references.md`: positive phase times, no earlier crossing, transversal events, ξ ≈ 0).

use std::sync::Mutex;

use nalgebra::{Const, DMatrix, DVector, Dyn, OMatrix, SMatrix, SVector};

use super::Embedded;
use crate::analysis::continuation::Problem;
use crate::error::{FieldError, SimError};
use crate::hybrid::{HybridOptions, HybridSystem, ImpactRecord, simulate_hybrid_with_events};
use crate::ode::events::{Direction, Event};
use crate::ode::options::Options;
use crate::ode::state::StateField;
use crate::ode::stepper::Integrator;

/// One phase of a period: the flow in `mode`, ended by `guard` of that mode and its reset.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Phase {
    /// The mode of the flow.
    pub mode: usize,
    /// The guard (index in `mode`) whose crossing ends the phase.
    pub guard: usize,
}

/// The Poincaré section of the returning phase: a(x) = 0 crossed downward, with its gradient.
pub struct Anchor<'a, const D: usize> {
    /// a(x).
    pub value: &'a dyn Fn(&SVector<f64, D>) -> f64,
    /// ∂a/∂x.
    pub gradient: &'a dyn Fn(&SVector<f64, D>) -> SVector<f64, D>,
}

/// The time-based multiple-shooting problem of a phase sequence (see the [module docs](crate::analysis::periodic)); a
/// [`Problem`] for [`crate::analysis::continuation`], whose parameter is H̄.
pub struct MultipleShooting<'a, S: ?Sized, const D: usize> {
    system: &'a S,
    phases: Vec<Phase>,
    anchor: Anchor<'a, D>,
    ode: Options,
    /// n_k for k = 1, …, m + 1 (entry k − 1).
    dims: Vec<usize>,
    /// The index of t_k in u (entry k − 1).
    offsets: Vec<usize>,
    /// The phase ends of the last evaluation and its u: continuation asks for the monitor
    /// (the monodromy) at the point it has just linearized, and the readout follows.
    last: Mutex<Option<(DVector<f64>, Vec<PhaseEnd<D>>)>>,
    /// The largest |ξ| of an orbit of the model ([`MultipleShooting::xi_tolerance`]).
    xi_tolerance: f64,
}

/// One phase of a solution.
#[derive(Debug, Clone, PartialEq)]
pub struct PhaseSolution<const D: usize> {
    /// The mode of the flow.
    pub mode: usize,
    /// The guard that ends it (`None` for the returning phase, which ends on the anchor).
    pub guard: Option<usize>,
    /// The duration t_k.
    pub duration: f64,
    /// x̄_k (padded).
    pub start: SVector<f64, D>,
    /// φ_k(t_k, x̄_k), before the reset.
    pub end: SVector<f64, D>,
}

/// A solution u of the multiple-shooting problem, read out.
#[derive(Debug, Clone, PartialEq)]
pub struct PeriodicSolution<const D: usize> {
    /// The m + 1 phases in the order of time (the last one returns to the anchor).
    pub phases: Vec<PhaseSolution<D>>,
    /// T = Σ t_k.
    pub period: f64,
    /// The embedding parameter (≈ 0 on a physical orbit, Thm 3.1).
    pub xi: f64,
    /// H̄.
    pub energy: f64,
    /// The monodromy Φ_T = Φ_{m+1} S_m Φ_m ⋯ S₁ Φ₁ on the first mode's n₁ coordinates (saltation
    /// matrices of the embedded field).
    pub monodromy: DMatrix<f64>,
}

impl<const D: usize> PeriodicSolution<D> {
    /// The Floquet multipliers (eigenvalues of the monodromy) as (re, im) pairs.
    #[must_use]
    pub fn multipliers(&self) -> Vec<(f64, f64)> {
        self.monodromy.complex_eigenvalues().iter().map(|c| (c.re, c.im)).collect()
    }
    /// The phase durations t₁, …, t_{m+1}.
    #[must_use]
    pub fn durations(&self) -> Vec<f64> {
        self.phases.iter().map(|p| p.duration).collect()
    }
}

/// The physical-realizability test of a solution (see [`MultipleShooting::realizability`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Realizability {
    /// Every phase duration is positive.
    pub positive_times: bool,
    /// Every event is crossed downward (de·f̃ < 0 at the phase ends, da·f̃ < 0 at the return).
    pub transversal: bool,
    /// The event-driven simulation from x̄₁ meets the phases' guards, and no other, in order,
    /// and then the anchor.
    pub same_events: bool,
    /// The largest difference between the simulated event times (and return time) and the
    /// solution's.
    pub time_error: f64,
    /// |x(T) − x̄₁|∞ / (1 + |x̄₁|∞) of the simulation (relative: a fast spin amplifies the event
    /// location error of the re-simulation through the monodromy).
    pub return_error: f64,
    /// |ξ|.
    pub xi: f64,
}

impl Realizability {
    /// Whether the solution is a physical periodic orbit: positive times, transversal events, the
    /// same events in simulation with times and return within `tolerance`, and |ξ| ≤ `tolerance`.
    #[must_use]
    pub fn is_physical(&self, tolerance: f64) -> bool {
        self.positive_times
            && self.transversal
            && self.same_events
            && self.time_error <= tolerance
            && self.return_error <= tolerance
            && self.xi.abs() <= tolerance
    }
}

/// The state with its sensitivities (x, Φ, Ψ) as one matrix of 2 + D columns.
type Sensitivities<const D: usize> = OMatrix<f64, Const<D>, Dyn>;

/// x' = f̃, Φ' = ∂f̃/∂x Φ, Ψ' = ∂f̃/∂x Ψ + ∇H in one mode.
struct EmbeddedVariational<'s, S: ?Sized> {
    system: &'s S,
    mode: usize,
    xi: f64,
}

impl<S: HybridSystem<D> + ?Sized, const D: usize> StateField<Sensitivities<D>> for EmbeddedVariational<'_, S> {
    fn eval(&self, t: f64, y: &Sensitivities<D>) -> Result<Sensitivities<D>, FieldError> {
        let x: SVector<f64, D> = y.column(0).into_owned();
        let grad = self.system.mode_energy_gradient(self.mode, t, &x);
        let mut f = self.system.mode_field(self.mode, t, &x)?;
        let mut j = self.system.mode_jacobian(self.mode, t, &x)?;
        if self.xi != 0.0 {
            f += grad * self.xi;
            j += self.system.mode_energy_hessian(self.mode, t, &x) * self.xi;
        }
        let mut out = Sensitivities::<D>::zeros(2 + D);
        out.set_column(0, &f);
        out.columns_mut(1, D).copy_from(&(j * y.columns(1, D)));
        let psi = j * y.column(1 + D) + grad;
        out.set_column(1 + D, &psi);
        if out.iter().all(|v| v.is_finite()) { Ok(out) } else { Err(FieldError::NonFinite { t }) }
    }
}

/// Writes one phase's residual rows and Jacobian entries from its end (state, Φ, Ψ) and field,
/// starting at a row; returns the number of rows written.
type PhaseRows<'r, const D: usize> =
    dyn FnMut(&PhaseEnd<D>, &SVector<f64, D>, &mut DVector<f64>, &mut DMatrix<f64>, usize) -> Result<usize, SimError> + 'r;

/// The end of one phase: the state, Φ and Ψ.
#[derive(Clone)]
struct PhaseEnd<const D: usize> {
    x: SVector<f64, D>,
    phi: SMatrix<f64, D, D>,
    psi: SVector<f64, D>,
}

impl<'a, S: HybridSystem<D> + ?Sized, const D: usize> MultipleShooting<'a, S, D> {
    /// The problem of `phases` (at least one) returning on `anchor`, integrated with `ode`'s
    /// tolerances.
    ///
    /// # Errors
    /// [`SimError::InvalidArgument`] for a system known to depend on time, an empty sequence, a
    /// mode or guard out of range, a mode with constraints, or a mode dimension above `D`; invalid
    /// ODE options as [`SimError::InvalidOptions`].
    pub fn new(system: &'a S, phases: &[Phase], anchor: Anchor<'a, D>, ode: &Options) -> Result<Self, SimError> {
        ode.validate()?;
        super::autonomous(system)?;
        if phases.is_empty() {
            return Err(SimError::InvalidArgument("a period needs at least one phase".into()));
        }
        for (k, p) in phases.iter().enumerate() {
            if p.mode >= system.mode_count() || p.guard >= system.guard_count(p.mode) {
                return Err(SimError::InvalidArgument(format!(
                    "phase {}: mode {} / guard {} does not exist in the system",
                    k + 1,
                    p.mode,
                    p.guard
                )));
            }
        }
        // The phases' flows are integrated without projection: in a mode with constraints they
        // would drift off the constraint manifold, the drift's directions would enter the unknowns
        // and the monodromy, and a solution need not be an orbit of the model.
        if let Some(p) = phases.iter().find(|p| system.constraint_residuals(p.mode, 0.0, &SVector::zeros()).is_some()) {
            return Err(SimError::InvalidArgument(format!(
                "mode `{}` has constraints, which multiple shooting does not hold yet (its flows are not projected); \
                 find the orbit by single shooting (`find_periodic_orbit`), whose runs project onto them",
                system.mode_name(p.mode)
            )));
        }
        let m = phases.len();
        let mode_of = |k: usize| phases[(k - 1) % m].mode;
        let dims: Vec<usize> = (1..=m + 1).map(|k| system.mode_dimension(mode_of(k))).collect();
        if dims.iter().any(|&n| n == 0 || n > D) {
            return Err(SimError::InvalidArgument(format!("mode dimensions {dims:?} must lie in 1..={D}")));
        }
        // Blocks in u: k = m + 1 first, k = 1 last, then ξ and H̄.
        let mut offsets = vec![0; m + 1];
        let mut at = 0;
        for k in (1..=m + 1).rev() {
            offsets[k - 1] = at;
            at += 1 + dims[k - 1];
        }
        Ok(MultipleShooting {
            system,
            phases: phases.to_vec(),
            anchor,
            ode: ode.clone(),
            dims,
            offsets,
            last: Mutex::new(None),
            xi_tolerance: 1e-8,
        })
    }

    /// The largest |ξ| of a solution that is a periodic orbit of the model (default `1e-8`); a
    /// continuation ends with [`BranchStop::Inadmissible`](crate::analysis::continuation::BranchStop)
    /// where ξ leaves zero (the embedded field's orbits are not the model's).
    #[must_use]
    pub fn xi_tolerance(mut self, tolerance: f64) -> Self {
        self.xi_tolerance = tolerance;
        self
    }

    /// m, the number of phases ended by a guard.
    #[must_use]
    pub fn phase_count(&self) -> usize {
        self.phases.len()
    }
    /// The index of t_k in u (k = 1, …, m + 1).
    #[must_use]
    pub fn time_index(&self, k: usize) -> usize {
        self.offsets[k - 1]
    }
    /// The index of the i-th entry of x̄_k in u.
    #[must_use]
    pub fn state_index(&self, k: usize, i: usize) -> usize {
        self.offsets[k - 1] + 1 + i
    }
    /// The index of ξ in u.
    #[must_use]
    pub fn xi_index(&self) -> usize {
        self.unknowns() - 2
    }
    /// The index of H̄ in u.
    #[must_use]
    pub fn energy_index(&self) -> usize {
        self.unknowns() - 1
    }
    fn mode(&self, k: usize) -> usize {
        self.phases[(k - 1) % self.phases.len()].mode
    }
    /// x̄_k, padded with zeros.
    fn start(&self, u: &DVector<f64>, k: usize) -> SVector<f64, D> {
        let mut x = SVector::<f64, D>::zeros();
        for i in 0..self.dims[k - 1] {
            x[i] = u[self.state_index(k, i)];
        }
        x
    }

    /// The ends of phases 1, …, m + 1 at u (entry k − 1), reused when u is the last one asked for.
    fn phase_ends(&self, u: &DVector<f64>) -> Result<Vec<PhaseEnd<D>>, SimError> {
        if let Ok(last) = self.last.lock()
            && let Some((at, ends)) = last.as_ref()
            && at == u
        {
            return Ok(ends.clone());
        }
        let xi = u[self.xi_index()];
        let ends = (1..=self.phases.len() + 1)
            .map(|k| self.flow(k, &self.start(u, k), u[self.time_index(k)], xi))
            .collect::<Result<Vec<_>, _>>()?;
        if let Ok(mut last) = self.last.lock() {
            *last = Some((u.clone(), ends.clone()));
        }
        Ok(ends)
    }

    /// The flow of phase k over t_k with its sensitivities.
    fn flow(&self, k: usize, x: &SVector<f64, D>, duration: f64, xi: f64) -> Result<PhaseEnd<D>, SimError> {
        if duration == 0.0 {
            return Ok(PhaseEnd { x: *x, phi: SMatrix::identity(), psi: SVector::zeros() });
        }
        if !duration.is_finite() {
            return Err(SimError::InvalidTimeSpan { t0: 0.0, t1: duration });
        }
        let mut y = Sensitivities::<D>::zeros(2 + D);
        y.set_column(0, x);
        y.columns_mut(1, D).copy_from(&SMatrix::<f64, D, D>::identity());
        let field = EmbeddedVariational { system: self.system, mode: self.mode(k), xi };
        let mut options = self.ode.clone();
        options.output = crate::ode::options::Output::Steps;
        options.dense = false;
        let mut integ = Integrator::new(&field, 0.0, y, duration, &options)?;
        while !integ.step(&mut ())?.last {}
        let y = integ.x_new();
        Ok(PhaseEnd {
            x: y.column(0).into_owned(),
            phi: SMatrix::<f64, D, D>::from_fn(|i, j| y[(i, 1 + j)]),
            psi: y.column(1 + D).into_owned(),
        })
    }

    /// A starting point from a simulation: the event-driven run of the embedded system from
    /// `x0` (in the first phase's mode) through the m resets of the sequence to the first anchor
    /// crossing after them, within `max_time`; H̄ = H(x0). Correct it with
    /// [`crate::analysis::continuation::correct_at_parameter`] (or [`crate::analysis::continuation::correct`]).
    ///
    /// # Errors
    /// [`SimError::NotOnePeriod`] if the run does not follow the phase sequence or does not
    /// reach the anchor; the run's errors.
    pub fn guess(&self, x0: &SVector<f64, D>, xi: f64, max_time: f64) -> Result<DVector<f64>, SimError> {
        let (impacts, t_return, _) = self.event_run(x0, xi, max_time)?;
        let m = self.phases.len();
        if let Some(why) = self.sequence_mismatch(&impacts) {
            return Err(SimError::NotOnePeriod { reason: format!("the run from x0 does not follow the phase sequence: {why}") });
        }
        let t_return =
            t_return.ok_or_else(|| SimError::NotOnePeriod { reason: "the run from x0 does not return to the anchor".into() })?;
        let mut u = DVector::zeros(self.unknowns());
        let mut t_prev = 0.0;
        for k in 1..=m + 1 {
            let (t_end, start) = if k == 1 {
                (impacts[0].t, *x0)
            } else {
                (if k <= m { impacts[k - 1].t } else { t_return }, impacts[k - 2].post)
            };
            u[self.time_index(k)] = t_end - t_prev;
            for i in 0..self.dims[k - 1] {
                u[self.state_index(k, i)] = start[i];
            }
            t_prev = t_end;
        }
        u[self.xi_index()] = xi;
        u[self.energy_index()] = self.system.mode_energy(self.mode(1), 0.0, x0);
        Ok(u)
    }

    /// The event-driven run from `x0`: the first m resets and the time and state of the first
    /// anchor crossing after them (`None` if none within `max_time`).
    #[allow(clippy::type_complexity)]
    fn event_run(
        &self,
        x0: &SVector<f64, D>,
        xi: f64,
        max_time: f64,
    ) -> Result<(Vec<ImpactRecord<D>>, Option<f64>, SVector<f64, D>), SimError> {
        let embedded = Embedded { system: self.system, xi };
        let value = self.anchor.value;
        let event = Event::new("anchor", move |_t, x: &SVector<f64, D>| value(x)).direction(Direction::Falling);
        let mut options = HybridOptions { ode: self.ode.clone(), ..HybridOptions::default() };
        options.ode.output = crate::ode::options::Output::Steps;
        options.max_impacts = self.phases.len();
        let run = simulate_hybrid_with_events(&embedded, self.mode(1), *x0, 0.0..max_time, &[event], &options)?;
        let after = run.impacts.get(self.phases.len().wrapping_sub(1)).map_or(0.0, |i| i.t);
        let full = run.impacts.len() >= self.phases.len();
        let hit = run.events.iter().find(|e| full && e.t > after);
        let (t, x) = hit.map_or((None, SVector::zeros()), |e| (Some(e.t), e.state));
        Ok((run.impacts, t, x))
    }

    fn sequence_mismatch(&self, impacts: &[ImpactRecord<D>]) -> Option<String> {
        if impacts.len() < self.phases.len() {
            return Some(format!("{} resets before the run ended, {} expected", impacts.len(), self.phases.len()));
        }
        for (k, (imp, phase)) in impacts.iter().zip(&self.phases).enumerate() {
            if imp.mode_before != phase.mode || imp.guard_index != phase.guard {
                return Some(format!(
                    "reset {} is guard `{}` of mode `{}`, the sequence has guard `{}` of mode `{}`",
                    k + 1,
                    self.system.guard_name(imp.mode_before, imp.guard_index),
                    self.system.mode_name(imp.mode_before),
                    self.system.guard_name(phase.mode, phase.guard),
                    self.system.mode_name(phase.mode)
                ));
            }
        }
        None
    }

    /// Reads out a solution: phases, period, monodromy (see [`PeriodicSolution`]).
    ///
    /// # Errors
    /// The phase integrations' errors; [`SimError::Grazing`] for a grazing event (no saltation
    /// matrix).
    pub fn solution(&self, u: &DVector<f64>) -> Result<PeriodicSolution<D>, SimError> {
        let m = self.phases.len();
        let xi = u[self.xi_index()];
        let embedded = Embedded { system: self.system, xi };
        let mut phases = Vec::with_capacity(m + 1);
        let mut monodromy = SMatrix::<f64, D, D>::identity();
        let ends = self.phase_ends(u)?;
        for (k, end) in (1..=m + 1).zip(ends) {
            let start = self.start(u, k);
            let duration = u[self.time_index(k)];
            monodromy = end.phi * monodromy;
            let guard = (k <= m).then(|| self.phases[k - 1].guard);
            if let Some(g) = guard {
                let (after, post) = embedded.reset(self.mode(k), g, 0.0, &end.x)?;
                let s = crate::analysis::variational::saltation(&embedded, (self.mode(k), g, after), 0.0, (&end.x, &post))?;
                monodromy = s * monodromy;
            }
            phases.push(PhaseSolution { mode: self.mode(k), guard, duration, start, end: end.x });
        }
        let n1 = self.dims[0];
        Ok(PeriodicSolution {
            period: phases.iter().map(|p| p.duration).sum(),
            phases,
            xi,
            energy: u[self.energy_index()],
            monodromy: DMatrix::from_fn(n1, n1, |i, j| monodromy[(i, j)]),
        })
    }

    /// A continuation point as plain data ([`super::BranchPoint`]: serde, CSV), with its phase
    /// durations, multipliers and special-point flags.
    ///
    /// # Errors
    /// As [`Self::solution`].
    pub fn branch_point(&self, point: &crate::analysis::continuation::Point) -> Result<super::BranchPoint, SimError> {
        use crate::analysis::continuation::Special;
        let s = self.solution(&point.u)?;
        Ok(super::BranchPoint {
            state: (0..self.dims[0]).map(|i| s.phases[0].start[i]).collect(),
            period: s.period,
            energy: s.energy,
            xi: s.xi,
            multipliers: s.multipliers(),
            turning_point: point.special == Some(Special::TurningPoint),
            bifurcation: point.special == Some(Special::SimpleBifurcation),
            iterations: point.iterations,
            period_doubling: point.special == Some(Special::PeriodDoubling),
            durations: s.durations(),
        })
    }

    /// The physical-realizability test of a solution (erratum P4 of `docs/references.md`; Remark 12 of the
    /// paper): the event-driven simulation of the embedded system from x̄₁ (the robust event
    /// engine of [`crate::hybrid`], which resolves fast guards) must meet exactly the phases'
    /// guards in order, at the solution's times, and then return to x̄₁ on the anchor.
    ///
    /// # Errors
    /// The readout's and the simulation's errors.
    pub fn realizability(&self, u: &DVector<f64>) -> Result<Realizability, SimError> {
        let solution = self.solution(u)?;
        let m = self.phases.len();
        let xi = solution.xi;
        let positive_times = solution.phases.iter().all(|p| p.duration > 0.0);
        let embedded = Embedded { system: self.system, xi };
        let mut transversal = true;
        for phase in &solution.phases {
            let f = embedded.mode_field(phase.mode, 0.0, &phase.end)?;
            let rate = match phase.guard {
                Some(g) => self.system.guard_gradient(phase.mode, g, 0.0, &phase.end).dot(&f),
                None => (self.anchor.gradient)(&phase.end).dot(&f),
            };
            transversal &= rate < 0.0;
        }
        let x1 = solution.phases[0].start;
        let horizon = 1.5 * solution.period.abs() + 1.0;
        let (impacts, t_return, x_return) = self.event_run(&x1, xi, horizon)?;
        let same_events = self.sequence_mismatch(&impacts).is_none() && t_return.is_some();
        let (mut time_error, mut return_error) = (f64::INFINITY, f64::INFINITY);
        if same_events && let Some(t_return) = t_return {
            let mut t = 0.0;
            time_error = 0.0;
            for (k, phase) in solution.phases.iter().enumerate() {
                t += phase.duration;
                let simulated = if k < m { impacts[k].t } else { t_return };
                time_error = time_error.max((simulated - t).abs());
            }
            let scale = 1.0 + (0..self.dims[0]).map(|i| x1[i].abs()).fold(0.0, f64::max);
            return_error = (0..self.dims[0]).map(|i| (x_return[i] - x1[i]).abs()).fold(0.0, f64::max) / scale;
        }
        Ok(Realizability { positive_times, transversal, same_events, time_error, return_error, xi })
    }
}

impl<S: HybridSystem<D> + ?Sized, const D: usize> Problem for MultipleShooting<'_, S, D> {
    fn unknowns(&self) -> usize {
        self.offsets[0] + 1 + self.dims[0] + 2
    }
    fn parameter(&self) -> usize {
        self.energy_index()
    }
    fn linearize(&self, u: &DVector<f64>) -> Result<(DVector<f64>, DMatrix<f64>), SimError> {
        let unknowns = self.unknowns();
        if u.len() != unknowns {
            return Err(SimError::InvalidArgument(format!("u has {} entries, the problem {unknowns}", u.len())));
        }
        let m = self.phases.len();
        let xi = u[self.xi_index()];
        let (ix, ih) = (self.xi_index(), self.energy_index());
        let mut r = DVector::zeros(unknowns - 1);
        let mut jac = DMatrix::zeros(unknowns - 1, unknowns);
        let mut row = 0;
        // One phase's rows: `value` and `gradient` map its end state (a reset's rows, an event,
        // the identity of periodicity or the anchor).
        let ends = self.phase_ends(u)?;
        let mut phase_rows = |k: usize, rows: &mut PhaseRows<'_, D>| -> Result<(), SimError> {
            let end = &ends[k - 1];
            let f = Embedded { system: self.system, xi }.mode_field(self.mode(k), 0.0, &end.x)?;
            row += rows(end, &f, &mut r, &mut jac, row)?;
            Ok(())
        };
        let n1 = self.dims[0];
        // Periodicity and anchor, from the returning phase m + 1.
        let (tk, xk) = (self.time_index(m + 1), self.state_index(m + 1, 0));
        let nk = self.dims[m];
        let (x1, anchor) = (self.state_index(1, 0), &self.anchor);
        phase_rows(m + 1, &mut |end, f, r, jac, row| {
            for i in 0..n1 {
                r[row + i] = end.x[i] - u[x1 + i];
                jac[(row + i, tk)] = f[i];
                for j in 0..nk {
                    jac[(row + i, xk + j)] = end.phi[(i, j)];
                }
                jac[(row + i, ix)] = end.psi[i];
                jac[(row + i, x1 + i)] -= 1.0;
            }
            let da = (anchor.gradient)(&end.x);
            let a = row + n1;
            r[a] = (anchor.value)(&end.x);
            jac[(a, tk)] = da.dot(f);
            let da_phi = da.transpose() * end.phi;
            for j in 0..nk {
                jac[(a, xk + j)] = da_phi[j];
            }
            jac[(a, ix)] = da.dot(&end.psi);
            Ok(n1 + 1)
        })?;
        // Shooting and event rows, k = m, …, 1.
        for k in (1..=m).rev() {
            let (mode, guard) = (self.phases[k - 1].mode, self.phases[k - 1].guard);
            let (tk, xk, nk) = (self.time_index(k), self.state_index(k, 0), self.dims[k - 1]);
            let (xn, nn, mode_next) = (self.state_index(k + 1, 0), self.dims[k], self.mode(k + 1));
            let system = self.system;
            phase_rows(k, &mut |end, f, r, jac, row| {
                let (after, post) = system.reset(mode, guard, 0.0, &end.x)?;
                if after != mode_next {
                    return Err(SimError::NotOnePeriod {
                        reason: format!(
                            "phase {k}: the reset of guard `{}` leads to mode `{}`, the sequence continues in `{}`",
                            system.guard_name(mode, guard),
                            system.mode_name(after),
                            system.mode_name(mode_next)
                        ),
                    });
                }
                let d = system.reset_jacobian(mode, guard, 0.0, &end.x)?;
                let (df, dphi, dpsi) = (d * f, d * end.phi, d * end.psi);
                for i in 0..nn {
                    r[row + i] = post[i] - u[xn + i];
                    jac[(row + i, tk)] = df[i];
                    for j in 0..nk {
                        jac[(row + i, xk + j)] = dphi[(i, j)];
                    }
                    jac[(row + i, ix)] = dpsi[i];
                    jac[(row + i, xn + i)] -= 1.0;
                }
                let de = system.guard_gradient(mode, guard, 0.0, &end.x);
                let e = row + nn;
                r[e] = system.guard(mode, guard, 0.0, &end.x);
                jac[(e, tk)] = de.dot(f);
                let de_phi = de.transpose() * end.phi;
                for j in 0..nk {
                    jac[(e, xk + j)] = de_phi[j];
                }
                jac[(e, ix)] = de.dot(&end.psi);
                Ok(nn + 1)
            })?;
        }
        // The energy.
        let x = self.start(u, 1);
        r[row] = self.system.mode_energy(self.mode(1), 0.0, &x) - u[ih];
        let grad = self.system.mode_energy_gradient(self.mode(1), 0.0, &x);
        for j in 0..n1 {
            jac[(row, x1 + j)] = grad[j];
        }
        jac[(row, ih)] = -1.0;
        debug_assert_eq!(row + 1, unknowns - 1);
        if r.iter().chain(jac.iter()).all(|v| v.is_finite()) { Ok((r, jac)) } else { Err(SimError::NonFiniteState { t: 0.0 }) }
    }

    /// The solution is an orbit of the model, not only of the embedded field: |ξ| within the
    /// tolerance.
    fn admissible(&self, u: &DVector<f64>) -> Result<(), String> {
        super::periodic(u[self.parameter()], u[self.xi_index()], self.xi_tolerance).map_err(|e| e.to_string())
    }

    /// det(Φ_T + I): its sign changes where a real multiplier passes −1, and it touches zero
    /// where a pair of multipliers meets at −1 on the unit circle (a period doubling).
    fn monitor(&self, u: &DVector<f64>) -> Result<Option<f64>, SimError> {
        // Undefined (None) where an event is grazing: no saltation matrix exists there.
        Ok(self.solution(u).ok().map(|s| {
            let n = s.monodromy.nrows();
            (s.monodromy + DMatrix::<f64>::identity(n, n)).determinant()
        }))
    }
}
