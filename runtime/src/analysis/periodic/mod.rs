//! Periodic orbits of conservative hybrid systems (*Hybrid periodic orbits*, §2.4–2.7; `docs/references.md`): the Poincaré map on an anchor with its Jacobian, the
//! dissipative embedding f̃ = f + ξ ∇H that makes the fixed-point problem regular, state-based
//! single shooting (the paper's eq. (27)) solved by Newton's method, and pseudo-arclength
//! continuation of the family of orbits in the energy H̄.
//!
//! The residual of single shooting, for u = (x₀, ξ, H̄), is r(u) = (P̃(x₀, ξ) − x₀, H(x₀) − H̄):
//! n + 1 equations in n + 2 unknowns, whose solutions near a normal orbit form a curve along which
//! ξ = 0 (Thm 3.1). Its Jacobian is [dP̃ − I, ∂P̃/∂ξ, 0; dH, 0, −1]; dP̃ comes from the variational
//! equations ([`crate::analysis::variational`]), ∂P̃/∂ξ from central differences of the run, ∇H and ∇²H from
//! the system ([`HybridSystem::mode_energy_gradient`], exact when generated).
//!
//! Time-based multiple shooting (the paper's eq. (28)) with its analytic Jacobian (31) is
//! [`MultipleShooting`]: a [`crate::analysis::continuation::Problem`], continued with the generic
//! predictor–corrector of [`crate::analysis::continuation`].
//!
//! Isolated orbits of dissipative systems (a walker's gait), continued in a parameter of the model
//! rather than in the energy, are [`find_orbit_at`] and [`continue_orbits_in`] over a
//! [`HybridFamily`].
//!
//! The first integral H is the system's [`HybridSystem::mode_energy`] (generated: the model's
//! energy).

use nalgebra::{SMatrix, SVector};

use crate::analysis::continuation::{
    BranchStop, ContinuationError, ContinuationOptions, Problem, Special, Start, continuation, correct_at_parameter,
};
use crate::error::{FieldError, RunError, RunResult, SimError};
use crate::hybrid::{HybridOptions, HybridStop, HybridSystem, simulate_hybrid_with_events};
use crate::ode::events::{Direction, Event};

pub mod family;
mod shooting;

pub use family::{
    FamilyOrbit, HybridFamily, ModelFamily, OrbitBranch, ParametricModel, Smooth, continue_orbits_in, find_orbit_at,
};
pub use shooting::{Anchor, MultipleShooting, PeriodicSolution, Phase, PhaseSolution, Realizability};

/// The dissipative embedding of a hybrid system: every mode's field f̃ = f + ξ ∇H (the paper's
/// eq. (26)); guards and resets unchanged. ξ > 0 feeds energy in, ξ < 0 removes it, so periodic
/// orbits exist only at ξ = 0.
pub struct Embedded<'s, S: ?Sized> {
    /// The system.
    pub system: &'s S,
    /// The embedding parameter ξ.
    pub xi: f64,
}

impl<S: HybridSystem<D> + ?Sized, const D: usize> HybridSystem<D> for Embedded<'_, S> {
    fn mode_count(&self) -> usize {
        self.system.mode_count()
    }
    fn mode_name(&self, mode: usize) -> &'static str {
        self.system.mode_name(mode)
    }
    fn mode_field(&self, mode: usize, t: f64, x: &SVector<f64, D>) -> Result<SVector<f64, D>, FieldError> {
        let f = self.system.mode_field(mode, t, x)?;
        if self.xi == 0.0 {
            return Ok(f);
        }
        Ok(f + self.system.mode_energy_gradient(mode, t, x) * self.xi)
    }
    fn guard_count(&self, mode: usize) -> usize {
        self.system.guard_count(mode)
    }
    fn guard_name(&self, mode: usize, guard: usize) -> &'static str {
        self.system.guard_name(mode, guard)
    }
    fn guard(&self, mode: usize, guard: usize, t: f64, x: &SVector<f64, D>) -> f64 {
        self.system.guard(mode, guard, t, x)
    }
    fn guard_rate(&self, mode: usize, guard: usize, t: f64, x: &SVector<f64, D>) -> f64 {
        let rate = self.system.guard_rate(mode, guard, t, x);
        if self.xi == 0.0 {
            return rate;
        }
        rate + self.xi * self.system.guard_gradient(mode, guard, t, x).dot(&self.system.mode_energy_gradient(mode, t, x))
    }
    fn reset(&self, mode: usize, guard: usize, t: f64, x: &SVector<f64, D>) -> Result<(usize, SVector<f64, D>), FieldError> {
        self.system.reset(mode, guard, t, x)
    }
    fn mode_energy(&self, mode: usize, t: f64, x: &SVector<f64, D>) -> f64 {
        self.system.mode_energy(mode, t, x)
    }
    fn mode_energy_gradient(&self, mode: usize, t: f64, x: &SVector<f64, D>) -> SVector<f64, D> {
        self.system.mode_energy_gradient(mode, t, x)
    }
    fn mode_energy_hessian(&self, mode: usize, t: f64, x: &SVector<f64, D>) -> SMatrix<f64, D, D> {
        self.system.mode_energy_hessian(mode, t, x)
    }
    fn mode_dimension(&self, mode: usize) -> usize {
        self.system.mode_dimension(mode)
    }
    fn mode_jacobian(&self, mode: usize, t: f64, x: &SVector<f64, D>) -> Result<SMatrix<f64, D, D>, FieldError> {
        let j = self.system.mode_jacobian(mode, t, x)?;
        if self.xi == 0.0 {
            return Ok(j);
        }
        let hess = self.system.mode_energy_hessian(mode, t, x);
        Ok(j + hess * self.xi)
    }
    fn guard_gradient(&self, mode: usize, guard: usize, t: f64, x: &SVector<f64, D>) -> SVector<f64, D> {
        self.system.guard_gradient(mode, guard, t, x)
    }
    fn reset_jacobian(&self, mode: usize, guard: usize, t: f64, x: &SVector<f64, D>) -> Result<SMatrix<f64, D, D>, FieldError> {
        self.system.reset_jacobian(mode, guard, t, x)
    }
    fn project(&self, mode: usize, t: f64, x: &SVector<f64, D>) -> Option<Result<SVector<f64, D>, FieldError>> {
        self.system.project(mode, t, x)
    }
    fn is_autonomous(&self) -> Option<bool> {
        self.system.is_autonomous()
    }
    fn constraint_residuals(&self, mode: usize, t: f64, x: &SVector<f64, D>) -> Option<(f64, f64)> {
        self.system.constraint_residuals(mode, t, x)
    }
    fn constraint_multipliers(&self, mode: usize, t: f64, x: &SVector<f64, D>) -> Vec<(&'static str, f64)> {
        self.system.constraint_multipliers(mode, t, x)
    }
    fn zeno_completion(
        &self,
        mode: usize,
        guard: usize,
        t: f64,
        x: &SVector<f64, D>,
    ) -> Option<Result<crate::hybrid::Completion<D>, FieldError>> {
        self.system.zeno_completion(mode, guard, t, x)
    }
}

/// A Poincaré section: the anchor a(x) = 0 crossed downward (ȧ < 0) in `mode`, after `resets`
/// resets since the start (the paper's returning phase: the anchor lies in phase 1, after the m
/// events of a period).
pub struct Section<'a, const D: usize> {
    /// The anchor a(x).
    pub anchor: &'a dyn Fn(&SVector<f64, D>) -> f64,
    /// Its gradient da.
    pub gradient: &'a dyn Fn(&SVector<f64, D>) -> SVector<f64, D>,
    /// The mode the orbit starts and returns in.
    pub mode: usize,
    /// The number of resets in one period.
    pub resets: usize,
    /// The longest time a return may take.
    pub max_time: f64,
}

/// One evaluation of the Poincaré map.
#[derive(Debug, Clone, PartialEq)]
pub struct Return<const D: usize> {
    /// P(x₀).
    pub state: SVector<f64, D>,
    /// The return time t^A.
    pub time: f64,
    /// The flow Jacobian Φ(t^A, x₀) (the monodromy at a periodic orbit).
    pub flow: SMatrix<f64, D, D>,
    /// dP = (I − f da/(da·f)) Φ.
    pub jacobian: SMatrix<f64, D, D>,
}

/// [`SimError::InvalidArgument`] for a system known to depend on time: a return to a section from
/// t = 0 is not a period of a non-autonomous system (a forced oscillator's periodic response is a
/// fixed point of its stroboscopic map at the forcing's period instead).
pub(crate) fn autonomous<S: HybridSystem<D> + ?Sized, const D: usize>(sys: &S) -> Result<(), SimError> {
    match sys.is_autonomous() {
        Some(false) => Err(SimError::InvalidArgument(
            "the system depends on time: its periodic orbits are not fixed points of a return map from t = 0 (sample it \
             stroboscopically at the forcing's period instead)"
                .into(),
        )),
        _ => Ok(()),
    }
}

/// The run from `x0` to its return to the section: the resets of one period and the anchor
/// crossing after them.
fn run_to_section<S: HybridSystem<D> + ?Sized, const D: usize>(
    embedded: &Embedded<'_, S>,
    section: &Section<'_, D>,
    x0: &SVector<f64, D>,
    options: &HybridOptions,
) -> Result<(Vec<crate::hybrid::ImpactRecord<D>>, crate::ode::events::EventRecord<D>), SimError> {
    autonomous(embedded)?;
    let anchor = section.anchor;
    let event = Event::new("anchor", move |_t, x: &SVector<f64, D>| anchor(x)).direction(Direction::Falling);
    let mut opts = options.clone();
    opts.max_impacts = section.resets;
    let run = simulate_hybrid_with_events(embedded, section.mode, *x0, 0.0..section.max_time, &[event], &opts)?;
    // The first anchor crossing after the period's resets.
    let after = run.impacts.get(section.resets.wrapping_sub(1)).map_or(0.0, |i| i.t);
    let hit = run.events.into_iter().find(|e| e.t > after && (section.resets == 0 || run.impacts.len() >= section.resets));
    let Some(hit) = hit else {
        let why = match run.stop {
            HybridStop::ImpactLimit { .. } => "an extra reset came before the anchor".to_string(),
            other => format!("{other:?}"),
        };
        return Err(SimError::NotOnePeriod { reason: format!("no return to the Poincaré section ({why})") });
    };
    let mut impacts = run.impacts;
    impacts.truncate(section.resets);
    Ok((impacts, hit))
}

/// The Poincaré map of the embedded system at ξ and its Jacobian.
///
/// # Errors
/// [`SimError::NotOnePeriod`] if the run does not return to the section within
/// `section.max_time` after `section.resets` resets; [`SimError::InvalidArgument`] for a target
/// energy that is not finite; the runs' errors.
pub fn poincare<S: HybridSystem<D> + ?Sized, const D: usize>(
    sys: &S,
    section: &Section<'_, D>,
    x0: &SVector<f64, D>,
    xi: f64,
    options: &HybridOptions,
) -> Result<Return<D>, SimError> {
    let embedded = Embedded { system: sys, xi };
    let (impacts, hit) = run_to_section(&embedded, section, x0, options)?;
    let flow = crate::analysis::variational::flow_jacobian_over(&embedded, 0.0, x0, section.mode, &impacts, hit.t, &options.ode)?;
    let f = embedded.mode_field(section.mode, hit.t, &hit.state)?;
    let jacobian = crate::analysis::variational::poincare_jacobian(&flow.matrix, &f, &(section.gradient)(&hit.state));
    match projection_tangent(sys, section.mode, hit.t, &hit.state)? {
        // The runs project onto the mode's constraints after every step: the map is the
        // projected one.
        Some((state, tangent)) => Ok(Return { state, time: hit.t, flow: tangent * flow.matrix, jacobian: tangent * jacobian }),
        None => Ok(Return { state: hit.state, time: hit.t, flow: flow.matrix, jacobian }),
    }
}

/// A projected state and the projection's derivative there.
pub(crate) type ProjectedState<const D: usize> = (SVector<f64, D>, SMatrix<f64, D, D>);

/// For a mode with constraints, the projection of a state `x` near its constraint manifold and
/// ∂proj/∂x there (the projector onto the manifold's tangent space), by central differences of
/// the pointwise projection; `None` for a mode without constraints.
///
/// The runs project onto the constraints after every step, so a return map of a constrained mode
/// is the projected one: its state is projected and its Jacobians carry this factor. Without it,
/// the directions off the manifold bring the multipliers of the unprojected drift (c̈ = 0, joined
/// by the resets) into the monodromy and the stability verdict — multipliers that are not the
/// orbit's (a rimless wheel on a spoke constraint showed 1.19 beside its gait's 0.68).
///
/// # Errors
/// The projection's errors.
pub(crate) fn projection_tangent<S: HybridSystem<D> + ?Sized, const D: usize>(
    sys: &S,
    mode: usize,
    t: f64,
    x: &SVector<f64, D>,
) -> Result<Option<ProjectedState<D>>, SimError> {
    let Some(projected) = sys.project(mode, t, x) else {
        return Ok(None);
    };
    let projected = projected?;
    let project = |y: &SVector<f64, D>| -> Result<SVector<f64, D>, SimError> {
        match sys.project(mode, t, y) {
            Some(projected) => Ok(projected?),
            None => Err(SimError::InvalidArgument(format!("mode {mode} has constraints at one state and none at another"))),
        }
    };
    let mut tangent = SMatrix::<f64, D, D>::zeros();
    let mut y = *x;
    for j in 0..D {
        let delta = crate::ode::field::FD_STEP * x[j].abs().max(1.0);
        let (hi, lo) = (x[j] + delta, x[j] - delta);
        y[j] = hi;
        let plus = project(&y)?;
        y[j] = lo;
        let minus = project(&y)?;
        y[j] = x[j];
        tangent.set_column(j, &((plus - minus) / (hi - lo)));
    }
    Ok(Some((projected, tangent)))
}

/// P̃(x₀, ξ) alone (no variational equations).
fn poincare_state<S: HybridSystem<D> + ?Sized, const D: usize>(
    sys: &S,
    section: &Section<'_, D>,
    x0: &SVector<f64, D>,
    xi: f64,
    options: &HybridOptions,
) -> Result<SVector<f64, D>, SimError> {
    let hit = run_to_section(&Embedded { system: sys, xi }, section, x0, options)?.1;
    match sys.project(section.mode, hit.t, &hit.state) {
        Some(projected) => Ok(projected?),
        None => Ok(hit.state),
    }
}

/// A periodic orbit found by single shooting.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct PeriodicOrbit<const D: usize> {
    /// The initial state on the section.
    #[cfg_attr(feature = "serde", serde(with = "crate::serde_floats"))]
    pub state: SVector<f64, D>,
    /// The period.
    #[cfg_attr(feature = "serde", serde(with = "crate::serde_floats"))]
    pub period: f64,
    /// The embedding parameter at the solution (zero up to the tolerance for a genuine orbit).
    #[cfg_attr(feature = "serde", serde(with = "crate::serde_floats"))]
    pub xi: f64,
    /// The energy H̄.
    #[cfg_attr(feature = "serde", serde(with = "crate::serde_floats"))]
    pub energy: f64,
    /// The monodromy matrix Φ_T.
    #[cfg_attr(feature = "serde", serde(with = "crate::serde_floats"))]
    pub monodromy: SMatrix<f64, D, D>,
    /// Newton iterations used.
    pub iterations: usize,
    /// Continuation: the energy component of the tangent changed sign since the previous point
    /// (a turning point in H̄: the orbit there is not normal).
    pub turning_point: bool,
    /// Continuation: the oriented tangent flipped (τ_new·τ_old < 0) since the previous point — a
    /// simple bifurcation was passed.
    pub bifurcation: bool,
}

/// One point of a branch as plain data (serde: JSON, CSV through [`write_branch_csv`]).
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct BranchPoint {
    /// The initial state on the section.
    #[cfg_attr(feature = "serde", serde(with = "crate::serde_floats"))]
    pub state: Vec<f64>,
    /// The period T.
    #[cfg_attr(feature = "serde", serde(with = "crate::serde_floats"))]
    pub period: f64,
    /// The energy H̄.
    #[cfg_attr(feature = "serde", serde(with = "crate::serde_floats"))]
    pub energy: f64,
    /// The embedding parameter ξ (≈ 0 on a physical branch).
    #[cfg_attr(feature = "serde", serde(with = "crate::serde_floats"))]
    pub xi: f64,
    /// The Floquet multipliers as (re, im).
    #[cfg_attr(feature = "serde", serde(with = "crate::serde_floats"))]
    pub multipliers: Vec<(f64, f64)>,
    /// A turning point in H̄ was passed since the previous point (state-based continuation), or
    /// the point is a located turning point (multiple shooting).
    pub turning_point: bool,
    /// A simple bifurcation was passed since the previous point.
    pub bifurcation: bool,
    /// Newton iterations of the corrector.
    pub iterations: usize,
    /// The point is a located period doubling (a multiplier at −1).
    #[cfg_attr(feature = "serde", serde(default))]
    pub period_doubling: bool,
    /// The phase durations t₁, …, t_{m+1} (multiple shooting; empty for single shooting).
    #[cfg_attr(feature = "serde", serde(default))]
    pub durations: Vec<f64>,
}

impl<const D: usize> From<&PeriodicOrbit<D>> for BranchPoint {
    fn from(o: &PeriodicOrbit<D>) -> Self {
        BranchPoint {
            state: o.state.iter().copied().collect(),
            period: o.period,
            energy: o.energy,
            xi: o.xi,
            multipliers: o.multipliers(),
            turning_point: o.turning_point,
            bifurcation: o.bifurcation,
            iterations: o.iterations,
            period_doubling: false,
            durations: Vec::new(),
        }
    }
}

/// Writes a branch as CSV: `energy,period,xi,x0_1..,multipliers (re:im;…),turning_point,bifurcation,
/// period_doubling,durations (t₁;…)`.
///
/// # Errors
/// The writer's I/O errors.
pub fn write_branch_csv<W: std::io::Write>(mut w: W, points: &[BranchPoint]) -> std::io::Result<()> {
    let n = points.first().map_or(0, |p| p.state.len());
    write!(w, "energy,period,xi")?;
    for i in 1..=n {
        write!(w, ",x0_{i}")?;
    }
    writeln!(w, ",multipliers,turning_point,bifurcation,period_doubling,durations")?;
    for p in points {
        write!(w, "{:e},{:e},{:e}", p.energy, p.period, p.xi)?;
        for v in &p.state {
            write!(w, ",{v:e}")?;
        }
        let m: Vec<String> = p.multipliers.iter().map(|(re, im)| format!("{re:e}:{im:e}")).collect();
        let t: Vec<String> = p.durations.iter().map(|t| format!("{t:e}")).collect();
        writeln!(w, ",{},{},{},{},{}", m.join(";"), p.turning_point, p.bifurcation, p.period_doubling, t.join(";"))?;
    }
    Ok(())
}

impl<const D: usize> PeriodicOrbit<D> {
    /// The Floquet multipliers (eigenvalues of the monodromy), as (re, im) pairs.
    #[must_use]
    pub fn multipliers(&self) -> Vec<(f64, f64)> {
        let m = nalgebra::DMatrix::from_iterator(D, D, self.monodromy.iter().copied());
        m.complex_eigenvalues().iter().map(|c| (c.re, c.im)).collect()
    }
}

/// Options of the shooting Newton iteration and of the continuation.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub struct ShootingOptions {
    /// The integration options of every run.
    pub hybrid: HybridOptions,
    /// Converged when the residual's max norm is below this. Default `1e-10`.
    #[cfg_attr(feature = "serde", serde(with = "crate::serde_floats"))]
    pub tolerance: f64,
    /// Largest number of Newton iterations. Default `20`.
    pub max_iterations: usize,
    /// Relative step of the finite difference in ξ. Default `1e-6`.
    #[cfg_attr(feature = "serde", serde(with = "crate::serde_floats"))]
    pub xi_step: f64,
    /// A solution is a periodic orbit of the model when its embedding parameter |ξ| is at most
    /// this; beyond it, [`SimError::NotPeriodic`]. Default `1e-8`.
    #[cfg_attr(feature = "serde", serde(with = "crate::serde_floats"))]
    pub xi_tolerance: f64,
}

impl Default for ShootingOptions {
    fn default() -> Self {
        ShootingOptions {
            hybrid: HybridOptions::default().rtol(1e-11).atol(1e-12),
            tolerance: 1e-10,
            max_iterations: 20,
            xi_step: 1e-6,
            xi_tolerance: 1e-8,
        }
    }
}

impl ShootingOptions {
    setters! {
        /// Set [`ShootingOptions::hybrid`].
        hybrid: HybridOptions,
        /// Set [`ShootingOptions::tolerance`].
        tolerance: f64,
        /// Set [`ShootingOptions::max_iterations`].
        max_iterations: usize,
        /// Set [`ShootingOptions::xi_step`].
        xi_step: f64,
        /// Set [`ShootingOptions::xi_tolerance`].
        xi_tolerance: f64,
    }
}

/// r(u) and dr(u) for u = (x₀, ξ, H̄), as dynamic matrices ((n + 1) and (n + 1) × (n + 2)).
fn residual<S: HybridSystem<D> + ?Sized, const D: usize>(
    sys: &S,
    section: &Section<'_, D>,
    u: &nalgebra::DVector<f64>,
    options: &ShootingOptions,
) -> Result<(nalgebra::DVector<f64>, nalgebra::DMatrix<f64>, Return<D>), SimError> {
    let x0 = SVector::<f64, D>::from_fn(|i, _| u[i]);
    let (xi, hbar) = (u[D], u[D + 1]);
    let ret = poincare(sys, section, &x0, xi, &options.hybrid)?;
    let dxi = options.xi_step;
    let plus = poincare_state(sys, section, &x0, xi + dxi, &options.hybrid)?;
    let minus = poincare_state(sys, section, &x0, xi - dxi, &options.hybrid)?;
    let dp_dxi = (plus - minus) / (2.0 * dxi);
    let dh = sys.mode_energy_gradient(section.mode, 0.0, &x0);
    let mut r = nalgebra::DVector::zeros(D + 1);
    let mut j = nalgebra::DMatrix::zeros(D + 1, D + 2);
    for i in 0..D {
        r[i] = ret.state[i] - x0[i];
        for k in 0..D {
            j[(i, k)] = ret.jacobian[(i, k)] - if i == k { 1.0 } else { 0.0 };
        }
        j[(i, D)] = dp_dxi[i];
    }
    r[D] = sys.mode_energy(section.mode, 0.0, &x0) - hbar;
    for k in 0..D {
        j[(D, k)] = dh[k];
    }
    j[(D, D + 1)] = -1.0;
    Ok((r, j, ret))
}

/// State-based single shooting as a [`Problem`] for [`crate::analysis::continuation`]: u = (x₀, ξ, H̄),
/// r(u) = (P̃(x₀, ξ) − x₀, H(x₀) − H̄), the parameter H̄.
struct SingleShooting<'a, 's, S: ?Sized, const D: usize> {
    sys: &'a S,
    section: &'a Section<'s, D>,
    options: &'a ShootingOptions,
}

impl<S: HybridSystem<D> + ?Sized, const D: usize> Problem for SingleShooting<'_, '_, S, D> {
    fn unknowns(&self) -> usize {
        D + 2
    }
    fn parameter(&self) -> usize {
        D + 1
    }
    fn linearize(&self, u: &nalgebra::DVector<f64>) -> Result<(nalgebra::DVector<f64>, nalgebra::DMatrix<f64>), SimError> {
        let (r, j, _) = residual(self.sys, self.section, u, self.options)?;
        Ok((r, j))
    }
    fn admissible(&self, u: &nalgebra::DVector<f64>) -> Result<(), String> {
        periodic(u[D + 1], u[D], self.options.xi_tolerance).map_err(|e| e.to_string())
    }
}

/// `Ok` if the solution at energy `energy` with embedding parameter `xi` is a periodic orbit of
/// the model, |ξ| ≤ `tolerance`; [`SimError::NotPeriodic`] otherwise.
pub(crate) fn periodic(energy: f64, xi: f64, tolerance: f64) -> Result<(), SimError> {
    if xi.abs() <= tolerance { Ok(()) } else { Err(SimError::NotPeriodic { energy, xi, tolerance }) }
}

/// [`SimError::NotPeriodic`] for the single-shooting unknowns u = (x₀, ξ, H̄) that
/// [`Problem::admissible`] rejected.
fn not_periodic(u: &nalgebra::DVector<f64>, options: &ShootingOptions) -> SimError {
    let n = u.len();
    SimError::NotPeriodic { energy: u[n - 1], xi: u[n - 2], tolerance: options.xi_tolerance }
}

/// The continuation's failures in the terms of [`find_periodic_orbit`] (for the single-shooting
/// unknowns u = (x₀, ξ, H̄)).
fn sim_error(e: ContinuationError, options: &ShootingOptions) -> SimError {
    match e {
        ContinuationError::Problem(e) => e,
        ContinuationError::NewtonFailed { iterations, residual } => SimError::ShootingFailed { iterations, residual },
        ContinuationError::Singular => SimError::SingularStepJacobian { t: 0.0 },
        ContinuationError::Inadmissible { u, .. } => not_periodic(&u, options),
        other => SimError::InvalidOptions(other.to_string()),
    }
}

/// The orbit through the solution `u` (one more Poincaré map for its period and monodromy).
fn orbit<S: HybridSystem<D> + ?Sized, const D: usize>(
    sys: &S,
    section: &Section<'_, D>,
    u: &nalgebra::DVector<f64>,
    iterations: usize,
    options: &ShootingOptions,
) -> Result<PeriodicOrbit<D>, SimError> {
    let state = SVector::from_fn(|i, _| u[i]);
    let ret = poincare(sys, section, &state, u[D], &options.hybrid)?;
    Ok(PeriodicOrbit {
        state,
        period: ret.time,
        xi: u[D],
        energy: u[D + 1],
        monodromy: ret.flow,
        iterations,
        turning_point: false,
        bifurcation: false,
    })
}

/// The periodic orbit of energy `energy` near `guess` (single shooting with the embedding,
/// Newton with H̄ held fixed).
///
/// # Errors
/// [`SimError::NewtonFailed`] without convergence; [`SimError::NotPeriodic`] if the solution
/// needs the embedding (|ξ| beyond [`ShootingOptions::xi_tolerance`]: no orbit of the model);
/// the runs' errors.
pub fn find_periodic_orbit<S: HybridSystem<D> + ?Sized, const D: usize>(
    sys: &S,
    section: &Section<'_, D>,
    guess: &SVector<f64, D>,
    energy: f64,
    options: &ShootingOptions,
) -> Result<PeriodicOrbit<D>, SimError> {
    if !energy.is_finite() {
        return Err(SimError::InvalidArgument(format!("the target energy must be finite, got {energy}")));
    }
    let problem = SingleShooting { sys, section, options };
    let mut u = nalgebra::DVector::zeros(D + 2);
    u.rows_mut(0, D).copy_from(guess);
    let newton = ContinuationOptions::default().tolerance(options.tolerance).max_iterations(options.max_iterations);
    let c = correct_at_parameter(&problem, &u, energy, &newton).map_err(|e| sim_error(e, options))?;
    orbit(sys, section, &c.u, c.iterations, options)
}

/// Pseudo-arclength continuation of a family of periodic orbits from `start` (a solution of
/// [`find_periodic_orbit`]): `steps` = (`step`, `points`, `increasing`), `points` predictor steps of
/// the fixed arclength `step` (initially towards increasing energy when `increasing`), each corrected by the Moore–Penrose Newton
/// iteration — the generic [`crate::analysis::continuation`] on the single-shooting problem, with its
/// turning-point and simple-bifurcation flags on the point after one (the paper's eqs. (24)–(25),
/// §2.6).
///
/// # Errors
/// As [`find_periodic_orbit`]; [`SimError::ContinuationStopped`] if a step's corrector fails (the
/// fixed step is too large); [`SimError::NotPeriodic`] where the family leaves the model's orbits (ξ
/// leaves zero). Once the start is corrected, the error comes with the orbits found before it
/// ([`RunError::partial`]).
pub fn continue_orbits<S: HybridSystem<D> + ?Sized, const D: usize>(
    sys: &S,
    section: &Section<'_, D>,
    start: &PeriodicOrbit<D>,
    (step, points, increasing): (f64, usize, bool),
    options: &ShootingOptions,
) -> RunResult<Vec<PeriodicOrbit<D>>> {
    let problem = SingleShooting { sys, section, options };
    let mut u = nalgebra::DVector::zeros(D + 2);
    u.rows_mut(0, D).copy_from(&start.state);
    u[D] = start.xi;
    u[D + 1] = start.energy;
    let fixed = ContinuationOptions::default()
        .tolerance(options.tolerance)
        .max_iterations(options.max_iterations)
        .initial_step(step)
        .min_step(step)
        .max_step(step)
        .max_points(points)
        .max_angle(1.5)
        .locate(false);
    let leave = if increasing { Start::Increasing } else { Start::Decreasing };
    let branch = continuation(&problem, &u, leave, &fixed).map_err(|e| sim_error(e, options))?;
    // The orbits up to where the family was left are kept, with the error, when it ends early.
    let failure = match &branch.stop {
        BranchStop::Inadmissible { u, .. } => Some(not_periodic(u, options)),
        // A fixed step that the corrector cannot follow: the step is the option to change.
        BranchStop::StepTooSmall { parameter, reason } => {
            Some(SimError::ContinuationStopped { parameter: *parameter, reason: format!("H̄: {reason}") })
        }
        // A run that fails after the start failed at a predicted point.
        BranchStop::Failed { parameter, error } => Some(SimError::ContinuationStopped {
            parameter: *parameter,
            reason: format!("H̄: a step of arclength {step} left the family ({error})"),
        }),
        BranchStop::Points | BranchStop::Target | BranchStop::Stopped => None,
    };
    let mut out = vec![start.clone()];
    for p in &branch.points[1..] {
        let mut o = match orbit(sys, section, &p.u, p.iterations, options) {
            Ok(o) => o,
            Err(e) => return Err(RunError::with_partial(e, out)),
        };
        o.turning_point = p.special == Some(Special::TurningPoint);
        o.bifurcation = p.special == Some(Special::SimpleBifurcation);
        out.push(o);
    }
    match failure {
        Some(error) => Err(RunError::with_partial(error, out)),
        None => Ok(out),
    }
}
