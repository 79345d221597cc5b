//! The outputs (`output(...)`) and their Jacobian over the state, C = ∂y/∂x: with the field's
//! linearisation (A, B) the linear model δẋ = A δx + B δu, δy = C δx of a control design or an
//! observer (outputs never read the inputs, so that ∂y/∂u = 0), and for an output that is a point
//! of a robot, its Jacobian — the task-space Jacobian ∂p/∂q in C's first columns.
//!
//! C is the outputs' symbolic derivatives along every component of the state (q, q̇ and, for a
//! contact model, z), each orientation's held |q|² replaced by its quaternion's squares first (as
//! for the field Jacobian: the derivative along a quaternion's components is then that of
//! R(q/|q|)). On the recursive path, where `energy()` is E's pass along the kinematic tree and
//! not a formula, an output φ(x, E) that reads it has the row ∂φ/∂x + ∂φ/∂E ∇E, with ∇E by
//! reverse mode through E's pass (O(n) code, [`crate::derive::dynamics::energy_gradient`]). It is
//! not derived — a documented absence, said in the outputs' rustdoc — where an output reads
//! `multiplier(c)` (the constraint forces' derivatives along the state are not derived), or where
//! C would outgrow [`MAX_NODES`] expression nodes.

use symbolic::{Arena, Expr};

use crate::derive::straight::Bound;
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
    /// One row per output, one entry per component of the state, over `bindings` (E's pass and
    /// its gradient's adjoints where an output reads `energy()` along the tree; empty otherwise);
    /// `shown` the same rows for the rustdoc, with E and ∂E/∂xⱼ named where they stand for the
    /// pass (the rows themselves otherwise).
    Rows { bindings: Vec<(Expr, Expr)>, rows: Vec<Vec<Expr>>, shown: Vec<Vec<Expr>> },
    /// Why not (a sentence for the rustdoc).
    Absent(String),
}

impl Default for Jacobian {
    fn default() -> Self {
        Jacobian::Absent("the model has no outputs".into())
    }
}

/// The outputs of `model` with `energy()` as `energy` (E), or `along_tree`: E's pass along the
/// kinematic tree (its one output E) and the number its gradient's temporaries start from; and C.
pub fn derive(model: &Model, arena: &mut Arena, energy: Expr, along_tree: Option<(&Bound, usize)>) -> Outputs {
    if model.outputs.is_empty() {
        return Outputs::default();
    }
    let symbol = model.symbol(arena, Role::Energy);
    let energy = along_tree.map_or(energy, |(pass, _)| pass.outputs[0]);
    let map = [(symbol, energy)];
    let values: Vec<Expr> = model.outputs.iter().map(|(_, e)| arena.subs(*e, &map)).collect();
    let reads_energy = model.outputs.iter().any(|(_, e)| arena.depends_on(*e, symbol));
    let (bindings, jacobian) = match along_tree {
        Some((pass, offset)) if reads_energy => {
            let held: Vec<Expr> = model.outputs.iter().map(|(_, e)| *e).collect();
            (pass.bindings.clone(), jacobian_along_tree(model, arena, &held, pass, offset))
        }
        _ => (Vec::new(), jacobian(model, arena, &values)),
    };
    Outputs { values, bindings, jacobian }
}

/// Why C is not derived for the outputs `values`, if it is not (see the [module docs](self)).
fn absent(model: &Model, arena: &mut Arena, values: &[Expr]) -> Option<Jacobian> {
    let layout = &model.layout;
    let reads_multipliers =
        values.iter().any(|&e| arena.free_symbols(e).into_iter().any(|s| matches!(layout.role(s), Some(Role::Multiplier(_)))));
    if reads_multipliers {
        return Some(Jacobian::Absent(
            "an output reads `multiplier(...)`, whose derivatives along the state are not derived".into(),
        ));
    }
    let nodes = arena.count_nodes(values);
    let states = layout.state_dim();
    (nodes.saturating_mul(states) > MAX_NODES).then(|| {
        Jacobian::Absent(format!(
            "the outputs' {nodes} expression nodes times the state's {states} components outgrow {MAX_NODES}"
        ))
    })
}

/// C of the outputs `values` (see the [module docs](self)).
pub(crate) fn jacobian(model: &Model, arena: &mut Arena, values: &[Expr]) -> Jacobian {
    let layout = &model.layout;
    let values = layout.unhold_norms(arena, values);
    if let Some(why) = absent(model, arena, &values) {
        return why;
    }
    let rows = arena.jacobian(&values, &layout.state_symbols());
    Jacobian::Rows { bindings: Vec::new(), shown: rows.clone(), rows }
}

/// C of the outputs `held` (E as its symbol) with E the output of `pass` along the tree: row i
/// ∂φᵢ/∂x + ∂φᵢ/∂E ∇E, ∇E's adjoints numbered from `offset`, then E's value in place of its
/// symbol.
fn jacobian_along_tree(model: &Model, arena: &mut Arena, held: &[Expr], pass: &Bound, offset: usize) -> Jacobian {
    let layout = &model.layout;
    let held = layout.unhold_norms(arena, held);
    if let Some(why) = absent(model, arena, &held) {
        return why;
    }
    let symbol = model.symbol(arena, Role::Energy);
    let states = layout.state_symbols();
    let direct = arena.jacobian(&held, &states);
    let gradient = crate::derive::dynamics::energy_gradient(model, arena, pass, offset);
    let map = [(symbol, pass.outputs[0])];
    // For the rustdoc, ∂E/∂xⱼ as a symbol of that name.
    let names: Vec<String> = {
        let view = model.view(arena);
        states.iter().map(|&x| format!("∂E/∂{}", crate::notation::display_name(&view, x))).collect()
    };
    let named: Vec<Expr> = names.iter().map(|name| arena.symbol(name)).collect();
    let mut rows = Vec::with_capacity(held.len());
    let mut shown = Vec::with_capacity(held.len());
    for (&phi, direct) in held.iter().zip(direct) {
        let by_energy = arena.diff(phi, symbol);
        let mut row = Vec::with_capacity(states.len());
        let mut show = Vec::with_capacity(states.len());
        for ((&d, &g), &named) in direct.iter().zip(&gradient.outputs).zip(&named) {
            let through = arena.mul2(by_energy, g);
            let entry = arena.add2(d, through);
            row.push(arena.subs(entry, &map));
            let through = arena.mul2(by_energy, named);
            show.push(arena.add2(d, through));
        }
        rows.push(row);
        shown.push(show);
    }
    Jacobian::Rows { bindings: gradient.bindings, rows, shown }
}
