//! Variational equations along hybrid trajectories (*Hybrid periodic orbits*, §2.2 and §2.4;
//! `docs/references.md`): the flow Jacobian Φ integrated with the state on each
//! smooth arc (Φ' = ∂F/∂x · Φ with the system's exact `mode_jacobian`), saltation matrices at every
//! reset,
//!
//! ```text
//! S = D + (f⁺ − D f⁻) de / ḣ,     D = ∂Δ/∂x,  de = ∂h/∂x,  ḣ = de·f⁻ + ∂h/∂t   (at the pre-impact state)
//! ```
//!
//! (a reset without explicit time dependence), the hybrid fundamental matrix
//! Φ(t, x₀) = Φ_m · S_m · … · S₁ · Φ₁ (the accumulated product — the paper's eq. (8c) omits it,
//! its erratum P2), the monodromy of a periodic orbit, and the Jacobian of a Poincaré map on an
//! anchor a(x) = 0, dP = (I − f da/(da·f)) Φ.
//!
//! The runtime knows nothing of symbols: everything comes through [`HybridSystem`], whose exact
//! Jacobians the derive generates (finite differences are the trait's defaults).

use nalgebra::{Const, Dyn, OMatrix, SMatrix, SVector};

use crate::error::{FieldError, SimError};
use crate::hybrid::{HybridSystem, HybridTrajectory};
use crate::ode::options::Options;
use crate::ode::state::StateField;
use crate::ode::stepper::Integrator;

/// The flow Jacobian of a hybrid run (see the [module docs](self)).
#[derive(Debug, Clone, PartialEq)]
pub struct FlowJacobian<const D: usize> {
    /// Φ(t_end, x₀): the derivative of the end state with respect to the initial state.
    pub matrix: SMatrix<f64, D, D>,
    /// The saltation matrix of every reset, in order.
    pub saltations: Vec<SMatrix<f64, D, D>>,
    /// The state at the end of the run as the variational integration reached it (it agrees with
    /// the run's last sample to the tolerances).
    pub end: SVector<f64, D>,
}

/// The saltation matrix of a reset: by `guard` of `mode` into `mode_after` (`transition`) at time
/// `t`, from the pre-impact state `pre` to `post` (`states`).
///
/// # Errors
/// [`SimError::Grazing`] naming the guard for a grazing reset (ḣ = 0: no saltation matrix
/// exists); the system's field errors.
pub fn saltation<S: HybridSystem<D> + ?Sized, const D: usize>(
    sys: &S,
    (mode, guard, mode_after): (usize, usize, usize),
    t: f64,
    (pre, post): (&SVector<f64, D>, &SVector<f64, D>),
) -> Result<SMatrix<f64, D, D>, SimError> {
    let d = sys.reset_jacobian(mode, guard, t, pre)?;
    let de = sys.guard_gradient(mode, guard, t, pre);
    let rate = sys.guard_rate(mode, guard, t, pre);
    if !(rate.is_finite() && rate != 0.0) {
        return Err(SimError::Grazing { t, guard: sys.guard_name(mode, guard).to_string(), rate });
    }
    let f_minus = sys.mode_field(mode, t, pre)?;
    let f_plus = sys.mode_field(mode_after, t, post)?;
    let s = d + (f_plus - d * f_minus) * de.transpose() / rate;
    if s.iter().all(|v| v.is_finite()) { Ok(s) } else { Err(SimError::NonFiniteState { t }) }
}

/// The state with its variational matrix, (x, Φ), as one matrix of 1 + D columns.
type Augmented<const D: usize> = OMatrix<f64, Const<D>, Dyn>;

/// x' = F(x), Φ' = ∂F/∂x · Φ in one mode.
struct Variational<'s, S: ?Sized> {
    sys: &'s S,
    mode: usize,
}

impl<S: HybridSystem<D> + ?Sized, const D: usize> StateField<Augmented<D>> for Variational<'_, S> {
    fn eval(&self, t: f64, y: &Augmented<D>) -> Result<Augmented<D>, FieldError> {
        let x: SVector<f64, D> = y.column(0).into_owned();
        let f = self.sys.mode_field(self.mode, t, &x)?;
        let j = self.sys.mode_jacobian(self.mode, t, &x)?;
        let mut out = Augmented::<D>::zeros(1 + D);
        out.set_column(0, &f);
        let phi = y.columns(1, D);
        out.columns_mut(1, D).copy_from(&(j * phi));
        Ok(out)
    }
}

/// Integrates x and Φ over `[t0, t1]` in `mode` from `x0` and `phi0`.
fn arc<S: HybridSystem<D> + ?Sized, const D: usize>(
    sys: &S,
    mode: usize,
    t0: f64,
    t1: f64,
    x0: &SVector<f64, D>,
    phi0: &SMatrix<f64, D, D>,
    options: &Options,
) -> Result<(SVector<f64, D>, SMatrix<f64, D, D>), SimError> {
    if t1 == t0 {
        return Ok((*x0, *phi0));
    }
    let mut y = Augmented::<D>::zeros(1 + D);
    y.set_column(0, x0);
    y.columns_mut(1, D).copy_from(phi0);
    let field = Variational { sys, mode };
    let mut integ = Integrator::new(&field, t0, y, t1, options)?;
    loop {
        let step = integ.step(&mut ())?;
        if step.last {
            break;
        }
    }
    let y = integ.x_new();
    Ok((y.column(0).into_owned(), SMatrix::<f64, D, D>::from_fn(|i, j| y[(i, 1 + j)])))
}

/// The flow Jacobian Φ(t_end, x₀) of the hybrid run `trajectory` of `sys` (its arcs between the
/// recorded resets, each integrated with its variational equations at `options`' tolerances,
/// joined by saltation matrices).
///
/// # Errors
/// The integration's errors; [`saltation`]'s for a grazing reset.
pub fn hybrid_flow_jacobian<S: HybridSystem<D> + ?Sized, const D: usize>(
    sys: &S,
    trajectory: &HybridTrajectory<D>,
    options: &Options,
) -> Result<FlowJacobian<D>, SimError> {
    let (Some(&t_start), Some(x_start), Some((t_end, _, _))) =
        (trajectory.times.first(), trajectory.states.first(), trajectory.last())
    else {
        return Err(SimError::InvalidInitialState);
    };
    flow_jacobian_over(sys, t_start, x_start, trajectory.initial_mode, &trajectory.impacts, t_end, options)
}

/// The flow Jacobian from `(t_start, x_start)` in `mode` through the resets `impacts` (in order)
/// to `t_end`.
pub(crate) fn flow_jacobian_over<S: HybridSystem<D> + ?Sized, const D: usize>(
    sys: &S,
    t_start: f64,
    x_start: &SVector<f64, D>,
    mode: usize,
    impacts: &[crate::hybrid::ImpactRecord<D>],
    t_end: f64,
    options: &Options,
) -> Result<FlowJacobian<D>, SimError> {
    let mut options = options.clone();
    options.output = crate::ode::options::Output::Steps;
    options.dense = false;
    let mut phi = SMatrix::<f64, D, D>::identity();
    let (mut t, mut x, mut mode) = (t_start, *x_start, mode);
    let mut saltations = Vec::with_capacity(impacts.len());
    for imp in impacts {
        let (_, phi_arc) = arc(sys, mode, t, imp.t, &x, &phi, &options)?;
        let s = saltation(sys, (imp.mode_before, imp.guard_index, imp.mode_after), imp.t, (&imp.pre, &imp.post))?;
        phi = s * phi_arc;
        saltations.push(s);
        (t, x, mode) = (imp.t, imp.post, imp.mode_after);
    }
    let (end, phi) = arc(sys, mode, t, t_end, &x, &phi, &options)?;
    Ok(FlowJacobian { matrix: phi, saltations, end })
}

/// The Jacobian of a Poincaré map on the anchor a(x) = 0 (gradient `da` at the return state,
/// where the field is `f`): dP = (I − f da/(da·f)) Φ (the paper's eq. (13)); `f` is in its
/// kernel, so dP has the eigenvalue 0.
#[must_use]
pub fn poincare_jacobian<const D: usize>(
    phi: &SMatrix<f64, D, D>,
    f: &SVector<f64, D>,
    da: &SVector<f64, D>,
) -> SMatrix<f64, D, D> {
    let projector = SMatrix::<f64, D, D>::identity() - f * da.transpose() / da.dot(f);
    projector * phi
}
