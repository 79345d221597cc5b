//! The field Jacobian along links whose joints are screws or orientations' (a floating base, ball
//! joints), by the runtime's analytic derivatives of the inverse dynamics
//! (`mechanics::link_jacobian`): the derive gives it the joints' quantities at the state, the
//! links' inertias, the armatures, gravity, the orientations' joints, and the other generalized
//! forces τ with their derivatives ∂τ/∂q and ∂τ/∂q̇ (symbolic: the written forces and potentials,
//! a few terms each; with orientations ∂τ/∂q along each one's body rotation vector, ∂τ/∂q K(q)),
//! and the runtime the rest — q̈, M and ∂q̈/∂x = M⁻¹ (∂τ/∂x − ∂K/∂x) in O(n²) — in place of the
//! recursion's tangent along 2n directions.

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
    /// Each orientation's three joints (its body rates' velocities), for `with_orientations`: the
    /// positions' derivatives are then along the tangent chart (each orientation's body rotation
    /// vector), ∂τ/∂q too.
    pub orientations: Vec<[usize; 3]>,
}

/// The quantities of [`LinkJacobian`] for `links` (with `forces`, τ and its derivatives; without,
/// the links alone, for a constrained tree's ∂K/∂x), temporaries numbered from `offset`; `None`
/// where a joint is no screw (its S_j turns with its own coordinate), or the model has an action
/// variable (its τ depends on z). Orientations (a floating base, ball joints: three joints of
/// constant axes chained, the first turning by the whole rotation) take the derivatives along
/// their body rotation vectors (a constrained tree's generated code takes ∂K/∂q over the
/// quaternions' components from them).
pub fn link_jacobian(model: &Model, arena: &mut Arena, links: &Links, offset: usize, forces: bool) -> Option<LinkJacobian> {
    let syms = &model.layout;
    let n = model.dof();
    let zero = arena.zero();
    let orientations: Vec<[usize; 3]> = syms.orientations.iter().map(|o| [o.v_start, o.v_start + 1, o.v_start + 2]).collect();
    let chained = orientations.iter().all(|&[a, b, c]| links.parents[b] == Some(a) && links.parents[c] == Some(b));
    let turning = |j: usize| orientations.iter().any(|o| o.contains(&j));
    let screws = links
        .joints
        .iter()
        .enumerate()
        .all(|(j, joint)| (joint.spin.is_none() || turning(j)) && joint.ds.iter().all(|&e| e == zero));
    if !screws || !chained || syms.z.is_some() || syms.qd.len() != n {
        return None;
    }
    let mut b = Builder { arena, syms, bindings: Vec::new(), offset };
    let mut out = factor(&mut b, links, false);
    out.extend(&links.armature);
    out.extend(links.gravity.unwrap_or([zero; 3]));
    if !forces {
        let quantities = prune(b.arena, b.bindings, out);
        return Some(LinkJacobian { quantities, d_positions: Vec::new(), d_velocities: Vec::new(), orientations });
    }
    out.extend(&links.tau);
    let d_positions = if orientations.is_empty() {
        entries(b.arena, &links.tau, &syms.q, &mut out)
    } else {
        // Along the chart: ∂τ/∂ξ_j = Σ_c ∂τ/∂q_c ∂q̇_c/∂v_j — a coordinate's own column, an
        // orientation's ω_k along ½ q ⊗ (0, e_k) (with |q|² held: it does not change along them).
        let rates = b.arena.jacobian(&syms.rates, &syms.qd);
        let columns: Vec<Vec<Expr>> = (0..n).map(|j| rates.iter().map(|row| row[j]).collect()).collect();
        let mut at = Vec::new();
        for (i, &tau) in links.tau.iter().enumerate() {
            let grad: Vec<Expr> = syms.q.iter().map(|&q| b.arena.diff(tau, q)).collect();
            for (j, column) in columns.iter().enumerate() {
                let terms: Vec<Expr> = grad
                    .iter()
                    .zip(column)
                    .filter(|&(&g, &k)| g != zero && k != zero)
                    .map(|(&g, &k)| b.arena.mul2(g, k))
                    .collect();
                let d = b.arena.add(&terms);
                if d != zero {
                    at.push((i, j));
                    out.push(d);
                }
            }
        }
        at
    };
    let d_velocities = entries(b.arena, &links.tau, &syms.qd, &mut out);
    let quantities = prune(b.arena, b.bindings, out);
    Some(LinkJacobian { quantities, d_positions, d_velocities, orientations })
}

/// The entries of ∂τ/∂w that are not identically zero, pushed to `out`, and their (row, column).
fn entries(arena: &mut Arena, tau: &[Expr], wrt: &[Expr], out: &mut Vec<Expr>) -> Vec<(usize, usize)> {
    let zero = arena.zero();
    let mut at = Vec::new();
    for (i, &tau) in tau.iter().enumerate() {
        for (j, &w) in wrt.iter().enumerate() {
            let d = arena.diff(tau, w);
            if d != zero {
                at.push((i, j));
                out.push(d);
            }
        }
    }
    at
}
