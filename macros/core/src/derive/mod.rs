//! Derivation: from the validated [`crate::model`] to the equations the emitters print, one
//! module per concept, each of the same shape — `derive(model, arena, cx, inputs…) -> T`: it reads
//! the (immutable) model, borrows the symbolic workspace (the mode's arena, where it builds
//! expressions and the further symbols its layout registers), reports mistakes into the one
//! [`Ctxt`] and returns its result type (empty where a mistake leaves nothing to derive). The
//! passes that cannot fail (`euler_lagrange::derive`, `impact::derive`) take no context:
//!
//! - [`euler_lagrange`]: M, f, momenta, energy, power, Jacobians (every model);
//! - [`constraint`]: multipliers, the acceleration-level bias, the Frobenius test;
//! - [`impact`]: guards and impact laws;
//! - [`symmetry`]: invariance proofs, momentum maps and their balance laws;
//! - [`discrete`]: discrete Lagrangians, forces and Legendre maps;
//! - [`output`]: the outputs and their Jacobian over the state;
//! - [`reduce`]: the reductions — Routh's over cyclic coordinates into a new model, Maggi's
//!   equations on a section (nonholonomic, Euler–Poincaré, through a proved quotient map) and
//!   Routh's by the rotations of an orientation, the last two in one first-order form;
//! - [`dynamics`]: the form of the dynamics — dense (M's entries or columns), or the articulated-body
//!   recursion along a tree of directions or of spatial links — chosen once per mode.
//!
//! [`mode`] is the sequence of passes, written once; its result, one [`Derived`] per mode, is what
//! emission consumes.

pub mod constraint;
pub mod discrete;
pub mod dynamics;
pub mod euler_lagrange;
pub mod impact;
pub mod output;
pub mod reduce;
pub mod straight;
pub mod symmetry;
#[cfg(test)]
mod tests;

use symbolic::Arena;

use crate::diagnostics::Ctxt;
use crate::model::Model;

/// ∇E and ∇²E over the state: symbolic from the expanded E, or along a kinematic tree.
pub enum EnergyDerivatives {
    Expanded(euler_lagrange::EnergyDerivatives),
    AlongTree(dynamics::EnergyAlongTree),
}

/// Everything derived for one model (a mode, or a reduced system).
pub struct Derived {
    pub equations: euler_lagrange::Equations,
    /// How the dynamics is computed: dense (M's entries or columns) or along a kinematic tree (of
    /// directions or spatial links), with the tree's passes where nothing dense is needed —
    /// `equations` then holds only the power and ∂L/∂t ([`euler_lagrange::derive_along_tree`]).
    pub form: dynamics::Form,
    /// ∇E and ∇²E, for models that implement `HybridSystem` (periodic-orbit continuation).
    pub energy: Option<EnergyDerivatives>,
    pub constraints: Option<constraint::ConstraintEquations>,
    pub impacts: Vec<impact::ImpactEquations>,
    /// The projection onto the constraints that `project` transitions into this mode call
    /// (`__routh_arrival_reset`; [`impact::arrival`]).
    pub arrival: Option<impact::Reset>,
    pub symmetries: Vec<symmetry::SymmetryEquations>,
    /// The brackets of the declared symmetries (two or more).
    pub algebra: Option<symmetry::Algebra>,
    /// The outputs (`output(...)`) and their Jacobian.
    pub outputs: output::Outputs,
    pub discrete: Option<discrete::Discrete>,
    /// The reduced systems.
    pub reductions: reduce::Reductions,
}

impl Derived {
    /// A model's equations of motion and nothing else (a reduced system).
    fn equations_only(equations: euler_lagrange::Equations) -> Derived {
        Derived {
            equations,
            form: dynamics::Form::Entries("a reduced system takes the dense path".into()),
            energy: None,
            constraints: None,
            impacts: Vec::new(),
            arrival: None,
            symmetries: Vec::new(),
            algebra: None,
            outputs: output::Outputs::default(),
            discrete: None,
            reductions: reduce::Reductions::default(),
        }
    }
}

/// Every pass for one mode, in order: equations of motion (and, for a hybrid system, the energy's
/// derivatives), regularity, constraints and their rank, impacts, symmetries, the discrete system,
/// the continuous reductions. Mistakes go to `cx`; the passes go on where they can.
pub fn mode(model: &Model, arena: &mut Arena, hybrid: bool, cx: &mut Ctxt) -> Derived {
    // The form first: with a recursion, the field Jacobian comes from its tangent, not from the
    // dense residual's O(n³) derivatives; along its tree, nothing dense is derived.
    let form = dynamics::form(model, arena, hybrid, cx);
    let along_tree = form.along_tree();
    let equations = match along_tree {
        Some((r, _)) => {
            cx.ok(dynamics::check_pivots(&model.view(arena), r));
            let which: Vec<usize> = (0..model.sensitivity.len())
                .filter(|&j| r.reads_parameter(arena, model.layout.params[model.sensitivity[j]]))
                .collect();
            let params: Vec<symbolic::Expr> = which.iter().map(|&j| model.layout.params[model.sensitivity[j]]).collect();
            let dk = (!which.is_empty()).then(|| dynamics::parameter_derivatives(model, arena, r, &params));
            let kinetic = dk.as_ref().map(|dk| euler_lagrange::KineticDerivatives {
                which: &which,
                bindings: &dk.bindings,
                outputs: &dk.outputs,
            });
            euler_lagrange::derive_along_tree(model, arena, r.tau(), kinetic)
        }
        _ => {
            let equations = euler_lagrange::derive_with(model, arena, !form.is_recursive());
            cx.ok(euler_lagrange::check_regular(&model.view(arena), &equations));
            equations
        }
    };
    let form = form.by_columns(equations.mass_product.is_some());
    let along_tree = form.along_tree();
    let energy = hybrid.then(|| match along_tree {
        Some((_, k)) => EnergyDerivatives::AlongTree(dynamics::energy_derivatives(model, arena, &k.energy, k.end)),
        None => EnergyDerivatives::Expanded(euler_lagrange::energy_derivatives(model, arena, &equations)),
    });
    let constraints = constraint::derive(model, arena, cx, &equations, &form);
    let impacts = impact::derive(model, arena, &equations, &form);
    let arrival = impact::arrival(model, arena, &equations, &form);
    let symmetries = symmetry::derive(model, arena, cx, &equations, &impacts, &form);
    let algebra = symmetry::algebra(model, arena, &symmetries);
    // E itself, or along the tree (one output of its bindings).
    let outputs = match form.kinetics() {
        Some(k) => output::derive(model, arena, equations.energy, Some((&k.energy, k.end))),
        None => output::derive(model, arena, equations.energy, None),
    };
    let discrete = discrete::derive(model, arena, cx);
    let reductions = reduce::derive(model, arena, cx, &equations, &symmetries);
    Derived { equations, form, energy, constraints, impacts, arrival, symmetries, algebra, outputs, discrete, reductions }
}
