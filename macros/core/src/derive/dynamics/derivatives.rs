//! The derivatives of a recursion and of its passes, by forward and reverse mode through their
//! quantities (so that no M is formed): the recursion's tangent (the field Jacobian of a tree),
//! the kinetic part K = M a + … and its tangent (a constrained tree's saddle point), M w and its
//! tangent (a restitution law's reset Jacobian), ∇E and ∇²E (a hybrid system's first integral),
//! ∂K/∂p (sensitivities to the tree's masses and lengths); and the check of the recursion's pivots.

use rustc_hash::FxHashMap;
use symbolic::{Arena, Expr};

use super::{Inverse, Links, Recursive, directions, spatial};
use crate::derive::straight::{Bindings, Bound, Builder, Tangent, forward, reverse, tangent_of};
use crate::model::Model;

/// That M is not singular everywhere, from the recursion's pivots at sample states (for a model
/// whose M is never formed; the dense path's `check_regular` tests M itself): a pivot at or below
/// 1e-10 of the largest at every sampled state is an error.
pub fn check_pivots(model: &crate::model::View<'_>, r: &Recursive) -> syn::Result<()> {
    let how = " (a pivot of its factorisation along the kinematic tree vanishes)";
    crate::derive::euler_lagrange::require_regular(model, how, |values| {
        let lookup = |s: Expr| values.get(&s).copied().unwrap_or(1.0);
        let d = model.arena.eval_bound(&r.bindings, &r.pivots, &lookup);
        let largest = d.iter().fold(0.0_f64, |m, x| m.max(x.abs()));
        let smallest = d.iter().fold(f64::INFINITY, |m, &x| m.min(x));
        d.iter().all(|x| x.is_finite()).then(|| if largest > 0.0 { smallest / largest } else { 0.0 })
    })
}

/// The recursion's directional derivative along a tangent δx of the state: δq̈ and its bindings
/// (each quantity's derivative a temporary of its own, by forward mode through the recursion:
/// δsₖ = Σ ∂eₖ/∂σ δσ over the symbols σ of its expression). δx is read from [`crate::layout::Role::Tangent`]
/// symbols and the recursion's quantities from [`crate::layout::Role::Primal`] ones, so that the recursion runs
/// once per state and only the derivatives once per direction; the code is linear in the
/// recursion's, and the runtime builds the field Jacobian from 2n such directions (O(n²), no M).
pub fn tangent(model: &Model, arena: &mut Arena, r: &Recursive) -> Tangent {
    tangent_of(model, arena, &r.bindings, &r.accelerations, r.bindings.len())
}

/// [`Recursive::inverse`]: K = M a + the velocity products along the tree (the accelerations a
/// as [`crate::layout::Role::Acceleration`] symbols), its temporaries numbered after the recursion's, and its
/// tangent after those.
pub fn inverse(model: &Model, arena: &mut Arena, r: &Recursive) -> Inverse {
    let (bindings, k) = kinetic_part(model, arena, r);
    let tangent = tangent_of(model, arena, &bindings, &k, r.bindings.len() + bindings.len());
    Inverse { bindings, tangent }
}

/// M w along the tree for the velocities `w` (expressions: an impact's q̇⁺ − q̇⁻, the post-impact
/// velocities as [`crate::layout::Role::PostVelocity`] symbols), as [`Inverse`] holds K: its bindings, numbered
/// from `offset`, and its tangent along δx of the state (q̇⁺ fixed: through w, δq̇ gives −M δq̇),
/// so that a restitution law's reset Jacobian never forms M.
pub fn metric_product(model: &Model, arena: &mut Arena, r: &Recursive, w: &[Expr], offset: usize) -> Inverse {
    let syms = &model.layout;
    let mut b = Builder { arena: &mut *arena, syms, bindings: Vec::new(), offset };
    let mw = match &r.tree {
        Links::Directions(tree) => {
            let x = directions::along(&mut b, tree, w, None);
            directions::generalized(&mut b, tree, model.dof(), &x)
        }
        Links::Spatial(links) => spatial::product(&mut b, links, w),
    };
    let bindings = b.bindings;
    let tangent = tangent_of(model, arena, &bindings, &mw, offset + bindings.len());
    Inverse { bindings, tangent }
}

/// ∇E and ∇²E over the state of a tree model whose E is a pass along its tree (a hybrid system's
/// first integral, for periodic-orbit continuation), never expanded: the gradient by reverse mode
/// through E's quantities (O(n) code), the Hessian's columns by forward mode through that
/// gradient (O(n) code, called for the 2n basis directions).
pub struct EnergyAlongTree {
    /// E's quantities and their adjoints; outputs ∂E/∂xᵢ.
    pub gradient: Bound,
    /// δ(∇E) along δx, from the quantities of `gradient` that it reads.
    pub hessian: Tangent,
}

/// [`EnergyAlongTree`] of E's quantities `energy` (one output), temporaries numbered from `offset`.
pub fn energy_derivatives(model: &Model, arena: &mut Arena, energy: &Bound, offset: usize) -> EnergyAlongTree {
    let gradient = energy_gradient(model, arena, energy, offset);
    let end = offset + gradient.bindings.len() - energy.bindings.len();
    let hessian = tangent_of(model, arena, &gradient.bindings, &gradient.outputs, end);
    EnergyAlongTree { gradient, hessian }
}

/// ∇E over the state of E's quantities `energy` (one output) by reverse mode through them:
/// E's bindings followed by the adjoints' (numbered from `offset`), and ∂E/∂xᵢ.
pub fn energy_gradient(model: &Model, arena: &mut Arena, energy: &Bound, offset: usize) -> Bound {
    let syms = &model.layout;
    let state = syms.state_symbols();
    // Over the state and each orientation's held |q|², which moves with its quaternion:
    // ∂E/∂q += ∂E/∂|q|² 2q.
    let mut wrt = state.clone();
    wrt.extend(syms.orientations.iter().map(|o| o.norm2));
    let mut rec = Builder { arena: &mut *arena, syms, bindings: Vec::new(), offset };
    let mut gradient = reverse(&mut rec, &energy.bindings, energy.outputs[0], &wrt);
    let norms = gradient.split_off(state.len());
    let two = rec.arena.int(2);
    for (o, &bar) in syms.orientations.iter().zip(&norms) {
        let range = o.q_start..o.q_start + 4;
        for (g, &q) in gradient[range.clone()].iter_mut().zip(&syms.q[range]) {
            let radial = rec.arena.mul(&[two, bar, q]);
            *g = rec.arena.add2(*g, radial);
        }
    }
    let mut bindings = energy.bindings.clone();
    bindings.extend(rec.bindings);
    Bound { bindings, outputs: gradient }
}

/// K = M a + the velocity products along the tree at (x, a) (the accelerations a as
/// [`crate::layout::Role::Acceleration`] symbols): its bindings, numbered after the recursion's, and K.
pub(super) fn kinetic_part(model: &Model, arena: &mut Arena, r: &Recursive) -> (Bindings, Vec<Expr>) {
    let syms = &model.layout;
    let mut b = Builder { arena, syms, bindings: Vec::new(), offset: r.bindings.len() };
    let k = match &r.tree {
        Links::Directions(tree) => {
            let c = directions::velocity_products(b.arena, syms, tree);
            let acc = directions::along(&mut b, tree, &syms.qdd, Some(&c));
            directions::generalized(&mut b, tree, model.dof(), &acc)
        }
        Links::Spatial(links) => spatial::kinetic_part(&mut b, links),
    };
    (b.bindings, k)
}

/// ∂K/∂p for parameters `params` of the tree's directions or masses (a mass, a length), K = M a +
/// the velocity products along the tree at (x, a) as in [`inverse`]: K's quantities, then their
/// derivatives along each p by forward mode through them (O(n) code per parameter; M is never
/// formed). Outputs row by row (coordinate i, then parameter j). With g = f − M a = τ − K, the
/// sensitivity of the accelerations is ∂q̈/∂p = M⁻¹ (∂τ/∂p − ∂K/∂p) at a = q̈.
pub fn parameter_derivatives(model: &Model, arena: &mut Arena, r: &Recursive, params: &[Expr]) -> Bound {
    let syms = &model.layout;
    let n = model.dof();
    let offset = r.bindings.len();
    let (kinetic, k) = kinetic_part(model, arena, r);
    let mut bindings = kinetic.clone();
    let mut columns = Vec::with_capacity(params.len());
    for &p in params {
        let one = arena.one();
        let dot: FxHashMap<Expr, Expr> = [(p, one)].into_iter().collect();
        let mut rec = Builder { arena: &mut *arena, syms, bindings: Vec::new(), offset: offset + bindings.len() };
        columns.push(forward(&mut rec, &kinetic, &k, dot));
        bindings.extend(rec.bindings);
    }
    let outputs = (0..n).flat_map(|i| columns.iter().map(move |col| col[i])).collect();
    Bound { bindings, outputs }
}
