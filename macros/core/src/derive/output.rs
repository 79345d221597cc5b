//! The outputs (`output(...)`) and their Jacobian over the state, C = ∂y/∂x: with the field's
//! linearisation (A, B) the linear model δẋ = A δx + B δu, δy = C δx of a control design or an
//! observer (outputs never read the inputs, so that ∂y/∂u = 0), and for an output that is a point
//! of a robot, its Jacobian — the task-space Jacobian ∂p/∂q in C's first columns.
//!
//! C is the outputs' symbolic derivatives along every component of the state (q, q̇ and, for a
//! contact model, z), each orientation's held |q|² replaced by its quaternion's squares first (as
//! for the field Jacobian: the derivative along a quaternion's components is then that of
//! R(q/|q|)). It is not derived — a documented absence, said in the outputs' rustdoc — where an
//! output reads `multiplier(c)` (the constraint forces' derivatives along the state are not
//! derived), reads `energy()` on the recursive path (E is computed along the tree there, not as a
//! formula), or where C would outgrow [`MAX_NODES`] expression nodes.

use symbolic::{Arena, Expr};

use crate::layout::Role;
use crate::model::Model;

/// The most expression nodes the outputs may have times the state's dimension: C is derived by
/// one pass over the outputs per component of the state, each building at most about as many
/// nodes as the outputs have.
pub const MAX_NODES: usize = 2_000_000;

/// The outputs' expressions (`energy()` replaced by the derived E, over `bindings` when E is
/// computed along a kinematic tree, which are empty otherwise) and their Jacobian.
#[derive(Debug, Default)]
pub struct Outputs {
    pub values: Vec<Expr>,
    pub bindings: Vec<(Expr, Expr)>,
    pub jacobian: Jacobian,
}

/// C = ∂y/∂x, or why it is not derived.
#[derive(Debug)]
pub enum Jacobian {
    /// One row per output, one entry per component of the state.
    Rows(Vec<Vec<Expr>>),
    /// Why not (a sentence for the rustdoc).
    Absent(String),
}

impl Default for Jacobian {
    fn default() -> Self {
        Jacobian::Absent("the model has no outputs".into())
    }
}

/// The outputs of `model` with `energy()` as `energy` (E, or along the tree the output of
/// `bindings`), and C.
pub fn derive(model: &Model, arena: &mut Arena, energy: Expr, bindings: &[(Expr, Expr)]) -> Outputs {
    if model.outputs.is_empty() {
        return Outputs::default();
    }
    let symbol = model.symbol(arena, Role::Energy);
    let map = [(symbol, energy)];
    let values: Vec<Expr> = model.outputs.iter().map(|(_, e)| arena.subs(*e, &map)).collect();
    let reads_energy = model.outputs.iter().any(|(_, e)| arena.depends_on(*e, symbol));
    let bindings = if reads_energy { bindings.to_vec() } else { Vec::new() };
    let jacobian = jacobian(model, arena, &values, &bindings);
    Outputs { values, bindings, jacobian }
}

/// C of the outputs `values` (see the [module docs](self)).
pub(crate) fn jacobian(model: &Model, arena: &mut Arena, values: &[Expr], bindings: &[(Expr, Expr)]) -> Jacobian {
    let layout = &model.layout;
    let reads_multipliers =
        values.iter().any(|&e| arena.free_symbols(e).into_iter().any(|s| matches!(layout.role(s), Some(Role::Multiplier(_)))));
    if reads_multipliers {
        return Jacobian::Absent("an output reads `multiplier(...)`, whose derivatives along the state are not derived".into());
    }
    if !bindings.is_empty() {
        return Jacobian::Absent(
            "an output reads `energy()`, which the recursive path computes along the kinematic tree rather than as a formula"
                .into(),
        );
    }
    let vars = layout.state_symbols();
    let values = layout.unhold_norms(arena, values);
    let nodes = arena.count_nodes(&values);
    if nodes.saturating_mul(vars.len()) > MAX_NODES {
        return Jacobian::Absent(format!(
            "the outputs' {nodes} expression nodes times the state's {} components outgrow {MAX_NODES}",
            vars.len()
        ));
    }
    Jacobian::Rows(arena.jacobian(&values, &vars))
}
