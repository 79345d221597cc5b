//! The field Jacobian along links whose joints are screws, by the runtime's analytic derivatives
//! of the inverse dynamics (`mechanics::link_jacobian`): the derive gives it the joints'
//! quantities at the state, the links' inertias, the armatures, gravity, and the other generalized
//! forces τ with their derivatives ∂τ/∂q and ∂τ/∂q̇ (symbolic: the written forces and potentials,
//! a few terms each), and the runtime the rest — q̈, M and ∂q̈/∂x = M⁻¹ (∂τ/∂x − ∂K/∂x) in O(n²) —
//! in place of the recursion's tangent along 2n directions.

use symbolic::{Arena, Expr};

use crate::derive::straight::{Bound, Builder};
use crate::model::Model;

use super::super::kinetics::prune;
use super::Links;
use super::factor::factor;

/// What generated code hands the runtime's `LinkDynamics` (see the [module docs](self)).
pub struct LinkJacobian {
    /// Per joint A_j (by rows), ℓ_j and S_j; then each link's inertia (by rows); the armatures; the
    /// gravitational field g; with the forces, τ, the entries of ∂τ/∂q at [`Self::d_positions`]
    /// and of ∂τ/∂q̇ at [`Self::d_velocities`].
    pub quantities: Bound,
    /// The (row, column) of each entry of ∂τ/∂q that is not identically zero.
    pub d_positions: Vec<(usize, usize)>,
    /// The same of ∂τ/∂q̇.
    pub d_velocities: Vec<(usize, usize)>,
}

/// The quantities of [`LinkJacobian`] for `links` (with `forces`, τ and its derivatives; without,
/// the links alone, for a constrained tree's ∂K/∂x), temporaries numbered from `offset`; `None`
/// where a joint is no screw (its S_j turns with its own coordinate, or an orientation's), or the
/// model has an action variable (its τ depends on z).
pub fn link_jacobian(model: &Model, arena: &mut Arena, links: &Links, offset: usize, forces: bool) -> Option<LinkJacobian> {
    let syms = &model.layout;
    let n = model.dof();
    let zero = arena.zero();
    let screws = links.joints.iter().all(|j| j.spin.is_none() && j.ds.iter().all(|&e| e == zero));
    if !screws || !syms.orientations.is_empty() || syms.z.is_some() || syms.q.len() != n {
        return None;
    }
    let mut b = Builder { arena, syms, bindings: Vec::new(), offset };
    let mut out = factor(&mut b, links, false);
    out.extend(&links.armature);
    out.extend(links.gravity.unwrap_or([zero; 3]));
    if !forces {
        let quantities = prune(b.arena, b.bindings, out);
        return Some(LinkJacobian { quantities, d_positions: Vec::new(), d_velocities: Vec::new() });
    }
    out.extend(&links.tau);
    let mut entries = |wrt: &[Expr], out: &mut Vec<Expr>| {
        let mut at = Vec::new();
        for (i, &tau) in links.tau.iter().enumerate() {
            for (j, &w) in wrt.iter().enumerate() {
                let d = b.arena.diff(tau, w);
                if d != zero {
                    at.push((i, j));
                    out.push(d);
                }
            }
        }
        at
    };
    let d_positions = entries(&syms.q, &mut out);
    let d_velocities = entries(&syms.qd, &mut out);
    let quantities = prune(b.arena, b.bindings, out);
    Some(LinkJacobian { quantities, d_positions, d_velocities })
}
