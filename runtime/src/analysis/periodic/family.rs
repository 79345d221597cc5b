//! Periodic orbits continued in a parameter of the model: the gait of a walker in the slope, a
//! limit cycle in a gain. These orbits are isolated — dissipation at the impacts or in the flow
//! selects them — so no energy embedding is needed: on a Poincaré [`Section`] the orbit is a fixed
//! point of the return map P(x₀; p), and the unknowns u = (x₀, p) solve
//!
//! ```text
//! r(u) = P(x₀; p) − x₀ = 0,      dr = [dP − I | ∂P/∂p],
//! ```
//!
//! D equations in D + 1 unknowns: a curve, continued by the generic predictor–corrector of
//! [`crate::analysis::continuation`] with its turning points (folds, where two gaits meet and
//! vanish) and bifurcations, and period doublings flagged by the monitor det(dP + I) (a Floquet
//! multiplier through −1). dP − I is regular at an isolated orbit: dP maps the field f(x₀) to zero
//! and the other multipliers differ from one. (A conservative family, whose orbits come in
//! energy levels, is [`continue_orbits`](super::continue_orbits)'s problem instead; here it ends
//! with a singular corrector.)
//!
//! ## Derivatives
//!
//! dP comes from the variational equations Φ' = ∂f/∂x Φ with saltation matrices at the resets, as
//! everywhere in [`crate::analysis::variational`]. ∂P/∂p integrates the parameter sensitivity
//! ψ' = ∂f/∂x ψ + ∂f/∂p with the state, and carries it across each reset (guard h, reset Δ, rate
//! ḣ, fields f∓ before and after) by
//!
//! ```text
//! δt = −(∇h·ψ⁻ + ∂h/∂p) / ḣ,      ψ⁺ = ∂Δ/∂x (ψ⁻ + f⁻ δt) + ∂Δ/∂p − f⁺ δt,
//! ```
//!
//! (the event moves by δt; without ∂h/∂p and ∂Δ/∂p this is the saltation matrix applied to ψ⁻),
//! and onto the section: ∂P/∂p = (I − f da/(da·f)) ψ. The field's ∂f/∂p is the generated
//! `parameter_jacobian` for models with `sensitivity(...)` ([`HybridFamily::field_derivative`]);
//! ∂h/∂p and ∂Δ/∂p are central differences of the guard and reset functions at one state
//! (pointwise closed forms: about ten digits), never differences of integrated runs.
//!
//! In a mode with constraints the runs project onto the constraint manifold after every step, so
//! the return map is the projected one: the return state is projected, and dP, ∂P/∂p and the
//! monodromy are multiplied by the projection's derivative (central differences of the pointwise
//! projection). The directions off the manifold then have multiplier zero instead of those of the
//! unprojected drift, which are not the orbit's.

use std::sync::Mutex;

use nalgebra::{Const, DMatrix, DVector, Dyn, OMatrix, SMatrix, SVector};

use super::{Embedded, Section, run_to_section};
use crate::analysis::continuation::{
    BranchStop, ContinuationError, ContinuationOptions, Problem, Special, Start, continuation, correct_at_parameter,
};
use crate::error::{FieldError, SimError};
use crate::hybrid::{HybridOptions, HybridSystem, ImpactRecord};
use crate::ode::field::{FD_STEP, VectorField};
use crate::ode::state::StateField;
use crate::ode::stepper::Integrator;

/// A one-parameter family of hybrid systems S(p).
///
/// Any closure `Fn(f64) -> S` with `S: HybridSystem<D>` is one, with every parameter derivative
/// by central differences between members; generated models with `sensitivity(...)` give
/// theirs through `family("p")`, whose field derivative is the exact ∂F/∂p.
pub trait HybridFamily<const D: usize> {
    /// The member type.
    type Member: HybridSystem<D>;
    /// The system at the parameter value `p`.
    fn member(&self, p: f64) -> Self::Member;
    /// ∂f/∂p of `mode`'s field at `(t, x)`. Default: central differences between members.
    ///
    /// # Errors
    /// The members' field errors.
    fn field_derivative(&self, p: f64, mode: usize, t: f64, x: &SVector<f64, D>) -> Result<SVector<f64, D>, FieldError> {
        field_difference(self, p, mode, t, x)
    }
    /// ∂h/∂p of a guard at `(t, x)`. Default: central differences between members.
    fn guard_derivative(&self, p: f64, mode: usize, guard: usize, t: f64, x: &SVector<f64, D>) -> f64 {
        let (lo, hi, h) = steps(p);
        (self.member(hi).guard(mode, guard, t, x) - self.member(lo).guard(mode, guard, t, x)) / h
    }
    /// ∂Δ/∂p of a guard's reset at `(t, x)`. Default: central differences between members.
    ///
    /// # Errors
    /// The members' reset errors.
    fn reset_derivative(
        &self,
        p: f64,
        mode: usize,
        guard: usize,
        t: f64,
        x: &SVector<f64, D>,
    ) -> Result<SVector<f64, D>, FieldError> {
        let (lo, hi, h) = steps(p);
        Ok((self.member(hi).reset(mode, guard, t, x)?.1 - self.member(lo).reset(mode, guard, t, x)?.1) / h)
    }
}

/// ∂f/∂p of `mode`'s field by central differences between the members at p ∓ δ.
fn field_difference<F: HybridFamily<D> + ?Sized, const D: usize>(
    family: &F,
    p: f64,
    mode: usize,
    t: f64,
    x: &SVector<f64, D>,
) -> Result<SVector<f64, D>, FieldError> {
    let (lo, hi, h) = steps(p);
    Ok((family.member(hi).mode_field(mode, t, x)? - family.member(lo).mode_field(mode, t, x)?) / h)
}

/// The central-difference points p ∓ δ (δ relative above one) and their realised spacing.
fn steps(p: f64) -> (f64, f64, f64) {
    let delta = FD_STEP * p.abs().max(1.0);
    let (lo, hi) = (p - delta, p + delta);
    (lo, hi, hi - lo)
}

impl<F, S, const D: usize> HybridFamily<D> for F
where
    F: Fn(f64) -> S,
    S: HybridSystem<D>,
{
    type Member = S;
    fn member(&self, p: f64) -> S {
        self(p)
    }
}

/// The hidden door for generated models: a model that can be rebuilt at another value of one of
/// its `sensitivity(...)` parameters and gives that parameter's column of its modes' ∂F/∂p.
#[doc(hidden)]
pub trait ParametricModel<const D: usize>: HybridSystem<D> + Sized {
    /// The model with its `k`-th sensitivity parameter set to `value`.
    fn with_parameter(&self, k: usize, value: f64) -> Self;
    /// Column `k` of ∂F/∂p of `mode`'s field (padded), or `None` where the mode has none (the
    /// family then takes central differences).
    fn mode_parameter_derivative(
        &self,
        k: usize,
        mode: usize,
        t: f64,
        x: &SVector<f64, D>,
    ) -> Option<Result<SVector<f64, D>, FieldError>>;
}

/// A generated model as the family of one of its `sensitivity(...)` parameters (built by the
/// generated `family("name")`): the exact ∂F/∂p of every mode, guards and resets by central
/// differences.
#[derive(Debug, Clone, Copy)]
pub struct ModelFamily<M> {
    model: M,
    index: usize,
    name: &'static str,
    value: f64,
}

impl<M> ModelFamily<M> {
    /// The family of `model` in its `index`-th sensitivity parameter, called `name`, whose value
    /// in `model` is `value`.
    #[doc(hidden)]
    pub fn new(model: M, index: usize, name: &'static str, value: f64) -> Self {
        ModelFamily { model, index, name, value }
    }
    /// The parameter's name.
    #[must_use]
    pub fn parameter(&self) -> &'static str {
        self.name
    }
    /// The parameter's value in the model the family was built from.
    #[must_use]
    pub fn value(&self) -> f64 {
        self.value
    }
    /// The model the family was built from.
    pub fn model(&self) -> &M {
        &self.model
    }
}

impl<M: ParametricModel<D>, const D: usize> HybridFamily<D> for ModelFamily<M> {
    type Member = M;
    fn member(&self, p: f64) -> M {
        self.model.with_parameter(self.index, p)
    }
    fn field_derivative(&self, p: f64, mode: usize, t: f64, x: &SVector<f64, D>) -> Result<SVector<f64, D>, FieldError> {
        let member = self.member(p);
        match member.mode_parameter_derivative(self.index, mode, t, x) {
            Some(column) => column,
            None => field_difference(self, p, mode, t, x),
        }
    }
}

/// A smooth system x' = F(t, x) as a hybrid system of one mode without guards, so that its limit
/// cycles are found and continued like gaits ([`find_orbit_at`] with `resets: 0`). The mode's
/// Jacobian is the field's [`exact_jacobian`](VectorField::exact_jacobian) where it has one
/// (generated models with `jacobian`, inputs or `sensitivity(...)`), central differences
/// otherwise; its energy is zero.
///
/// ```
/// use routh_runtime::continuation::{BranchStop, ContinuationOptions, Start};
/// use routh_runtime::nalgebra::Vector2;
/// use routh_runtime::periodic::{Section, Smooth, continue_orbits_in, find_orbit_at};
/// use routh_runtime::{FieldError, HybridOptions};
/// // x'' + (x² + x'²/w² − 1) x' + w² x = 0: the limit cycle x = cos(w t), of period 2π/w.
/// let family = |w: f64| {
///     Smooth(move |_t: f64, x: &Vector2<f64>| -> Result<Vector2<f64>, FieldError> {
///         Ok(Vector2::new(x[1], -(x[0] * x[0] + x[1] * x[1] / (w * w) - 1.0) * x[1] - w * w * x[0]))
///     })
/// };
/// let anchor = |x: &Vector2<f64>| x[1];
/// let gradient = |_: &Vector2<f64>| Vector2::new(0.0, 1.0);
/// let section = Section { anchor: &anchor, gradient: &gradient, mode: 0, resets: 0, max_time: 20.0 };
/// let tight = HybridOptions::default().rtol(1e-12).atol(1e-13);
/// let newton = ContinuationOptions::default().tolerance(1e-12).progress(false);
/// let orbit = find_orbit_at(&family, &section, (&Vector2::new(1.3, 0.0), 1.0), &newton, &tight)?;
/// assert!((orbit.state[0] - 1.0).abs() < 1e-9 && (orbit.period - std::f64::consts::TAU).abs() < 1e-9);
/// let up = newton.max_step(0.2).target(2.0);
/// let branch = continue_orbits_in(&family, &section, (&orbit, Start::Increasing), &up, &tight)?;
/// assert_eq!(branch.stop, BranchStop::Target);
/// for o in &branch.orbits {
///     assert!((o.period - std::f64::consts::TAU / o.parameter).abs() < 1e-8);
/// }
/// # Ok::<(), routh_runtime::SimError>(())
/// ```
#[derive(Debug, Clone, Copy)]
pub struct Smooth<V>(pub V);

impl<V: VectorField<D>, const D: usize> HybridSystem<D> for Smooth<V> {
    fn mode_name(&self, _mode: usize) -> &'static str {
        "smooth"
    }
    fn mode_field(&self, _mode: usize, t: f64, x: &SVector<f64, D>) -> Result<SVector<f64, D>, FieldError> {
        self.0.field(t, x)
    }
    fn guard_count(&self, _mode: usize) -> usize {
        0
    }
    fn guard_name(&self, _mode: usize, _guard: usize) -> &'static str {
        ""
    }
    fn guard(&self, _mode: usize, _guard: usize, _t: f64, _x: &SVector<f64, D>) -> f64 {
        f64::NAN
    }
    fn guard_rate(&self, _mode: usize, _guard: usize, _t: f64, _x: &SVector<f64, D>) -> f64 {
        f64::NAN
    }
    fn reset(&self, _mode: usize, _guard: usize, t: f64, _x: &SVector<f64, D>) -> Result<(usize, SVector<f64, D>), FieldError> {
        Err(FieldError::NonFinite { t })
    }
    fn mode_energy(&self, _mode: usize, _t: f64, _x: &SVector<f64, D>) -> f64 {
        0.0
    }
    fn mode_jacobian(&self, _mode: usize, t: f64, x: &SVector<f64, D>) -> Result<SMatrix<f64, D, D>, FieldError> {
        match self.0.exact_jacobian(t, x) {
            Some(j) => j,
            None => crate::ode::field::jacobian_fd(&self.0, t, x, FD_STEP),
        }
    }
}

/// An orbit of the family: the fixed point of the return map at one parameter value.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub struct FamilyOrbit<const D: usize> {
    /// The state x₀ on the section.
    #[cfg_attr(feature = "serde", serde(with = "crate::serde_floats"))]
    pub state: SVector<f64, D>,
    /// The parameter p.
    #[cfg_attr(feature = "serde", serde(with = "crate::serde_floats"))]
    pub parameter: f64,
    /// The period (the return time).
    #[cfg_attr(feature = "serde", serde(with = "crate::serde_floats"))]
    pub period: f64,
    /// The monodromy Φ_T (saltation matrices included).
    #[cfg_attr(feature = "serde", serde(with = "crate::serde_floats"))]
    pub monodromy: SMatrix<f64, D, D>,
    /// The return map's Jacobian dP = (I − f da/(da·f)) Φ_T: the monodromy's multipliers with the
    /// trivial one (along the flow) replaced by zero.
    #[cfg_attr(feature = "serde", serde(with = "crate::serde_floats"))]
    pub return_jacobian: SMatrix<f64, D, D>,
    /// ∂P/∂p.
    #[cfg_attr(feature = "serde", serde(with = "crate::serde_floats"))]
    pub parameter_derivative: SVector<f64, D>,
    /// Newton iterations of the corrector.
    pub iterations: usize,
    /// A located special point of the branch (turning point, bifurcation, period doubling).
    pub special: Option<Special>,
}

impl<const D: usize> FamilyOrbit<D> {
    /// The Floquet multipliers: the eigenvalues of the monodromy, as (re, im) pairs.
    #[must_use]
    pub fn multipliers(&self) -> Vec<(f64, f64)> {
        let m = DMatrix::from_iterator(D, D, self.monodromy.iter().copied());
        m.complex_eigenvalues().iter().map(|c| (c.re, c.im)).collect()
    }
    /// Whether the orbit is asymptotically stable: every eigenvalue of the return map's Jacobian
    /// inside the unit circle.
    #[must_use]
    pub fn is_stable(&self) -> bool {
        let m = DMatrix::from_iterator(D, D, self.return_jacobian.iter().copied());
        m.complex_eigenvalues().iter().all(|c| c.norm() < 1.0)
    }
}

/// A branch of orbits continued in the parameter.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub struct OrbitBranch<const D: usize> {
    /// The orbits in the order of travel, located special points included.
    pub orbits: Vec<FamilyOrbit<D>>,
    /// Why the branch ended.
    pub stop: BranchStop,
}

/// The return map with its derivatives at (x₀, p).
#[derive(Clone)]
struct ReturnWithParameter<const D: usize> {
    state: SVector<f64, D>,
    time: f64,
    flow: SMatrix<f64, D, D>,
    jacobian: SMatrix<f64, D, D>,
    parameter: SVector<f64, D>,
}

/// (x, Φ, ψ) as one matrix of 2 + D columns.
type Sensitivities<const D: usize> = OMatrix<f64, Const<D>, Dyn>;

/// x' = f, Φ' = ∂f/∂x Φ, ψ' = ∂f/∂x ψ + ∂f/∂p in one mode of the member at p.
struct ParameterVariational<'a, F: HybridFamily<D>, const D: usize> {
    family: &'a F,
    member: &'a F::Member,
    p: f64,
    mode: usize,
}

impl<F: HybridFamily<D>, const D: usize> StateField<Sensitivities<D>> for ParameterVariational<'_, F, D> {
    fn eval(&self, t: f64, y: &Sensitivities<D>) -> Result<Sensitivities<D>, FieldError> {
        let x: SVector<f64, D> = y.column(0).into_owned();
        let f = self.member.mode_field(self.mode, t, &x)?;
        let j = self.member.mode_jacobian(self.mode, t, &x)?;
        let fp = self.family.field_derivative(self.p, self.mode, t, &x)?;
        let mut out = Sensitivities::<D>::zeros(2 + D);
        out.set_column(0, &f);
        out.columns_mut(1, D).copy_from(&(j * y.columns(1, D)));
        out.set_column(1 + D, &(j * y.column(1 + D) + fp));
        if out.iter().all(|v| v.is_finite()) { Ok(out) } else { Err(FieldError::NonFinite { t }) }
    }
}

/// The state with Φ and ψ.
type Carried<const D: usize> = (SVector<f64, D>, SMatrix<f64, D, D>, SVector<f64, D>);

/// Integrates (x, Φ, ψ) over `[t0, t1]` in `mode`.
#[allow(clippy::too_many_arguments)]
fn arc<F: HybridFamily<D>, const D: usize>(
    family: &F,
    member: &F::Member,
    p: f64,
    mode: usize,
    (t0, t1): (f64, f64),
    (x, phi, psi): (&SVector<f64, D>, &SMatrix<f64, D, D>, &SVector<f64, D>),
    options: &crate::ode::options::Options,
) -> Result<Carried<D>, SimError> {
    if t1 == t0 {
        return Ok((*x, *phi, *psi));
    }
    let mut y = Sensitivities::<D>::zeros(2 + D);
    y.set_column(0, x);
    y.columns_mut(1, D).copy_from(phi);
    y.set_column(1 + D, psi);
    let field = ParameterVariational { family, member, p, mode };
    let mut integ = Integrator::new(&field, t0, y, t1, options)?;
    while !integ.step(&mut ())?.last {}
    let y = integ.x_new();
    Ok((y.column(0).into_owned(), SMatrix::<f64, D, D>::from_fn(|i, j| y[(i, 1 + j)]), y.column(1 + D).into_owned()))
}

/// ψ carried across one reset (see the [module docs](self)).
fn across<F: HybridFamily<D>, const D: usize>(
    family: &F,
    member: &F::Member,
    p: f64,
    imp: &ImpactRecord<D>,
    psi: &SVector<f64, D>,
) -> Result<SVector<f64, D>, SimError> {
    let (mode, guard, t) = (imp.mode_before, imp.guard_index, imp.t);
    let rate = member.guard_rate(mode, guard, t, &imp.pre);
    if !(rate.is_finite() && rate != 0.0) {
        return Err(SimError::Grazing { t, guard: member.guard_name(mode, guard).to_string(), rate });
    }
    let dh = member.guard_gradient(mode, guard, t, &imp.pre);
    let dt = -(dh.dot(psi) + family.guard_derivative(p, mode, guard, t, &imp.pre)) / rate;
    let d = member.reset_jacobian(mode, guard, t, &imp.pre)?;
    let f_minus = member.mode_field(mode, t, &imp.pre)?;
    let f_plus = member.mode_field(imp.mode_after, t, &imp.post)?;
    let dp = family.reset_derivative(p, mode, guard, t, &imp.pre)?;
    let out = d * (psi + f_minus * dt) + dp - f_plus * dt;
    if out.iter().all(|v| v.is_finite()) { Ok(out) } else { Err(SimError::NonFiniteState { t }) }
}

/// P(x₀; p) with dP and ∂P/∂p.
fn return_map<F: HybridFamily<D>, const D: usize>(
    family: &F,
    section: &Section<'_, D>,
    x0: &SVector<f64, D>,
    p: f64,
    options: &HybridOptions,
) -> Result<ReturnWithParameter<D>, SimError> {
    let member = family.member(p);
    let (impacts, hit) = run_to_section(&Embedded { system: &member, xi: 0.0 }, section, x0, options)?;
    let mut ode = options.ode.clone();
    ode.output = crate::ode::options::Output::Steps;
    ode.dense = false;
    let (mut t, mut x, mut mode) = (0.0, *x0, section.mode);
    let (mut phi, mut psi) = (SMatrix::<f64, D, D>::identity(), SVector::<f64, D>::zeros());
    for imp in &impacts {
        let (_, phi_arc, psi_arc) = arc(family, &member, p, mode, (t, imp.t), (&x, &phi, &psi), &ode)?;
        let s = crate::analysis::variational::saltation(
            &member,
            (imp.mode_before, imp.guard_index, imp.mode_after),
            imp.t,
            (&imp.pre, &imp.post),
        )?;
        psi = across(family, &member, p, imp, &psi_arc)?;
        phi = s * phi_arc;
        (t, x, mode) = (imp.t, imp.post, imp.mode_after);
    }
    let (_, phi, psi) = arc(family, &member, p, mode, (t, hit.t), (&x, &phi, &psi), &ode)?;
    let f = member.mode_field(section.mode, hit.t, &hit.state)?;
    let da = (section.gradient)(&hit.state);
    let rate = da.dot(&f);
    if !(rate.is_finite() && rate != 0.0) {
        return Err(SimError::Grazing { t: hit.t, guard: "anchor".into(), rate });
    }
    let projector = SMatrix::<f64, D, D>::identity() - f * da.transpose() / rate;
    let (mut state, mut flow, mut jacobian, mut parameter) = (hit.state, phi, projector * phi, projector * psi);
    if let Some((projected, tangent, moved)) = projection_derivatives(family, p, section.mode, hit.t, &hit.state)? {
        // The anchor's state comes from the dense output between projected steps: projected too.
        state = projected;
        flow = tangent * flow;
        jacobian = tangent * jacobian;
        parameter = tangent * parameter + moved;
    }
    Ok(ReturnWithParameter { state, time: hit.t, flow, jacobian, parameter })
}

/// For a mode with constraints, the projection of a state `x` near the constraint manifold with
/// ∂proj/∂x and ∂proj/∂p (where the manifold moves with p); see [`super::projection_tangent`].
/// `None` for a mode without constraints.
fn projection_derivatives<F: HybridFamily<D>, const D: usize>(
    family: &F,
    p: f64,
    mode: usize,
    t: f64,
    x: &SVector<f64, D>,
) -> Result<Option<Projected<D>>, SimError> {
    let member = family.member(p);
    let Some((projected, tangent)) = super::projection_tangent(&member, mode, t, x)? else {
        return Ok(None);
    };
    let project = |sys: &F::Member| -> Result<SVector<f64, D>, SimError> {
        match sys.project(mode, t, x) {
            Some(projected) => Ok(projected?),
            None => {
                Err(SimError::InvalidArgument(format!("mode {mode} has constraints at one parameter value and none at another")))
            }
        }
    };
    let (lo, hi, h) = steps(p);
    let moved = (project(&family.member(hi))? - project(&family.member(lo))?) / h;
    Ok(Some((projected, tangent, moved)))
}

/// A projected state with ∂proj/∂x and ∂proj/∂p.
type Projected<const D: usize> = (SVector<f64, D>, SMatrix<f64, D, D>, SVector<f64, D>);

/// The fixed-point problem u = (x₀, p), r = P(x₀; p) − x₀, as a continuation [`Problem`].
struct Gait<'a, 's, F, const D: usize> {
    family: &'a F,
    section: &'a Section<'s, D>,
    options: &'a HybridOptions,
    /// The last evaluation and its u: the continuation asks for the monitor, and the readout for
    /// the orbit, at the point it has just linearized.
    last: Mutex<Option<(DVector<f64>, ReturnWithParameter<D>)>>,
}

impl<'a, 's, F: HybridFamily<D>, const D: usize> Gait<'a, 's, F, D> {
    fn split(u: &DVector<f64>) -> (SVector<f64, D>, f64) {
        (SVector::from_fn(|i, _| u[i]), u[D])
    }
    fn new(family: &'a F, section: &'a Section<'s, D>, options: &'a HybridOptions) -> Self {
        Gait { family, section, options, last: Mutex::new(None) }
    }
    /// The return map at u, reused when u is the last one evaluated.
    fn at(&self, u: &DVector<f64>) -> Result<ReturnWithParameter<D>, SimError> {
        if let Ok(last) = self.last.lock()
            && let Some((at, ret)) = last.as_ref()
            && at == u
        {
            return Ok(ret.clone());
        }
        let (x0, p) = Self::split(u);
        let ret = return_map(self.family, self.section, &x0, p, self.options)?;
        if let Ok(mut last) = self.last.lock() {
            *last = Some((u.clone(), ret.clone()));
        }
        Ok(ret)
    }
    fn orbit(&self, u: &DVector<f64>, iterations: usize, special: Option<Special>) -> Result<FamilyOrbit<D>, SimError> {
        let (x0, p) = Self::split(u);
        let ret = self.at(u)?;
        Ok(FamilyOrbit {
            state: x0,
            parameter: p,
            period: ret.time,
            monodromy: ret.flow,
            return_jacobian: ret.jacobian,
            parameter_derivative: ret.parameter,
            iterations,
            special,
        })
    }
}

impl<F: HybridFamily<D>, const D: usize> Problem for Gait<'_, '_, F, D> {
    fn unknowns(&self) -> usize {
        D + 1
    }
    fn parameter(&self) -> usize {
        D
    }
    fn linearize(&self, u: &DVector<f64>) -> Result<(DVector<f64>, DMatrix<f64>), SimError> {
        let x0 = Self::split(u).0;
        let ret = self.at(u)?;
        let r = DVector::from_iterator(D, (ret.state - x0).iter().copied());
        let mut dr = DMatrix::zeros(D, D + 1);
        dr.view_mut((0, 0), (D, D)).copy_from(&(ret.jacobian - SMatrix::<f64, D, D>::identity()));
        dr.set_column(D, &ret.parameter);
        Ok((r, dr))
    }
    fn monitor(&self, u: &DVector<f64>) -> Result<Option<f64>, SimError> {
        let ret = self.at(u)?;
        let shifted = ret.jacobian + SMatrix::<f64, D, D>::identity();
        Ok(Some(DMatrix::from_iterator(D, D, shifted.iter().copied()).determinant()))
    }
}

/// The unknowns u = (x₀, p).
fn unknowns<const D: usize>(x: &SVector<f64, D>, p: f64) -> DVector<f64> {
    DVector::from_iterator(D + 1, x.iter().copied().chain([p]))
}

/// The orbit of the member at `p` through the section near `guess`: Newton's method on
/// P(x₀; p) = x₀ with the parameter held (tolerance and iterations from `newton`).
///
/// # Errors
/// [`SimError::ShootingFailed`] without convergence, [`SimError::SingularStepJacobian`] where
/// dP − I is singular (a conservative family, or a multiplier at one); [`SimError::NotOnePeriod`]
/// if the run from an iterate does not return to the section after `section.resets` resets; the
/// runs' errors.
pub fn find_orbit_at<F: HybridFamily<D>, const D: usize>(
    family: &F,
    section: &Section<'_, D>,
    (guess, p): (&SVector<f64, D>, f64),
    newton: &ContinuationOptions,
    options: &HybridOptions,
) -> Result<FamilyOrbit<D>, SimError> {
    if !p.is_finite() {
        return Err(SimError::InvalidArgument(format!("the parameter value must be finite, got {p}")));
    }
    let problem = Gait::new(family, section, options);
    let c = correct_at_parameter(&problem, &unknowns(guess, p), p, newton).map_err(sim_error)?;
    problem.orbit(&c.u, c.iterations, None)
}

/// The branch of orbits through `start` (a result of [`find_orbit_at`], left in the direction
/// `leave`) continued in the parameter by pseudo-arclength with the adaptive steps, targets and
/// special points of `continuation` (see the [module docs](self)).
///
/// # Errors
/// The corrector's errors at the start; [`SimError::InvalidOptions`] for invalid continuation
/// options. A failure after the start ends the branch instead ([`OrbitBranch::stop`]).
pub fn continue_orbits_in<F: HybridFamily<D>, const D: usize>(
    family: &F,
    section: &Section<'_, D>,
    (start, leave): (&FamilyOrbit<D>, Start),
    continuation_options: &ContinuationOptions,
    options: &HybridOptions,
) -> Result<OrbitBranch<D>, SimError> {
    let problem = Gait::new(family, section, options);
    let branch =
        continuation(&problem, &unknowns(&start.state, start.parameter), leave, continuation_options).map_err(sim_error)?;
    let mut orbits = Vec::with_capacity(branch.points.len());
    let mut stop = branch.stop;
    for point in &branch.points {
        match problem.orbit(&point.u, point.iterations, point.special) {
            Ok(o) => orbits.push(o),
            Err(e) => {
                // A point the continuation accepted whose rerun fails: the branch ends before it.
                stop = BranchStop::Failed { parameter: point.u[D], error: ContinuationError::Problem(e) };
                break;
            }
        }
    }
    Ok(OrbitBranch { orbits, stop })
}

/// The continuation's failures at the start, as the runs' errors.
fn sim_error(e: ContinuationError) -> SimError {
    match e {
        ContinuationError::Problem(e) => e,
        ContinuationError::NewtonFailed { iterations, residual } => SimError::ShootingFailed { iterations, residual },
        ContinuationError::Singular => SimError::SingularStepJacobian { t: 0.0 },
        ContinuationError::InvalidOptions(why) => SimError::InvalidOptions(why),
        other => SimError::ContinuationStopped { parameter: f64::NAN, reason: other.to_string() },
    }
}
