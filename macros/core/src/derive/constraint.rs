//! Constrained equations of motion: multipliers, the acceleration-level bias, the field Jacobian,
//! and the integrability (Frobenius) test of the constraint one-forms.
//!
//! Every constraint is a row `aᵢ(t, q)·q̇ + bᵢ(t, q) = 0` (holonomic ones through their total
//! derivative, see [`crate::lower`]). With A = (aᵢ) and b = (bᵢ) the Lagrange–d'Alembert
//! equations are
//!
//! ```text
//! M q̈ = f + Aᵀλ,      A q̈ + c = 0,      c = d/dt(A q̇ + b) − A q̈ = Σⱼ ∂(A q̇ + b)/∂qⱼ q̇ⱼ + ∂(A q̇ + b)/∂t
//! ```
//!
//! i.e. the saddle-point system `[M −Aᵀ; A 0] [q̈; λ] = [f; −c]`, solved numerically at run time
//! (`routh::runtime::mechanics::solve_constrained`) — never by a symbolic inverse. λᵢ is the
//! multiplier of row i: the constraint force is Aᵀλ (for a unilateral h ≥ 0, λ > 0 pushes
//! outward). The bias c is one directional derivative of the rows along (q̇, 1) in (q, t), with
//! q̇ held fixed. The constraint forces do the work λ·(A q̇) = −λ·b: linear constraints (b ≡ 0)
//! conserve E, affine ones change it by dE/dt = Q·q̇ − ∂L/∂t − λ·b.
//!
//! **Field Jacobian.** With the residual R(x; a, λ) = (M a − Aᵀλ − f, A a + c), whose matrix
//! K = ∂R/∂(a, λ) is the saddle-point matrix, the implicit function theorem gives
//! ∂(q̈, λ)/∂x = −K⁻¹ ∂R/∂x at the solution; ∂R/∂q and ∂R/∂q̇ are derived here symbolically —
//! in a mode of a multi-mode system by parts ([`SaddleJacobian::ByConstraint`]): R is the forces'
//! part M a − f plus one part per constraint (−λₖ aₖᵀ, aₖ·a + cₖ), each the same in every mode
//! that holds the constraint: derived once, in the first mode that holds it where the modes take
//! what it is lowered from from the top level ([`Model::part_owners`]), and called by the others.
//!
//! **Integrability (Frobenius).** On the extended space z = (q, t), each row is the one-form
//! αᵢ = Σₖ aᵢₖ dqₖ + bᵢ dt. Its components and those of dαᵢ ((dα)ⱼₖ = ∂ⱼαₖ − ∂ₖαⱼ) are exact
//! symbolic expressions, and the tests are identities among them, decided by the zero test:
//!
//! - a single velocity constraint is integrable (secretly holonomic, e.g. `dx - r * dphi`) iff
//!   α ∧ dα = 0, i.e. αⱼ(dα)ₖₗ − αₖ(dα)ⱼₗ + αₗ(dα)ⱼₖ = 0 for all j < k < l;
//! - the whole set is integrable iff dαᵢ ∧ α₁ ∧ … ∧ α_m = 0 for every i; the component of that
//!   (m + 2)-form on an index set K is Σ over pairs j < k in K of ±(dαᵢ)ⱼₖ · det A_z[:, K ∖ {j, k}]
//!   (A_z the rows on the extended space), the sign that of sorting (j, k, K ∖ {j, k}) into K.
//!
//! Declared `holonomic` rows are integrable by construction.

use symbolic::{Arena, Expr};

use crate::derive::dynamics::Form;
use crate::derive::euler_lagrange::{Equations, relative_min_pivot, sample_points};
use crate::diagnostics::Ctxt;
use crate::layout::Role;
use crate::model::{Model, View};

/// How a constraint integrates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Declared with `holonomic(...)`.
    Holonomic,
    /// A velocity constraint that is the derivative of a position constraint (α ∧ dα = 0).
    Integrable,
    /// A genuinely nonholonomic constraint.
    Nonholonomic,
}

/// Everything derived for a model's constraint set.
pub struct ConstraintEquations {
    pub names: Vec<syn::Ident>,
    /// Rows aᵢ (m × n) and their affine parts bᵢ.
    pub a: Vec<Vec<Expr>>,
    pub b: Vec<Expr>,
    /// f(t, q) of holonomic rows.
    pub position: Vec<Option<Expr>>,
    /// c = d/dt(A q̇ + b) − A q̈.
    pub bias: Vec<Expr>,
    pub kinds: Vec<Kind>,
    /// Whether the set as a whole is integrable (`None`: too large to check).
    pub set_integrable: Option<bool>,
    /// The Jacobian of the saddle-point residual over the state (with the field Jacobian).
    pub saddle: SaddleJacobian,
    /// ∂(A q̇ + b)/∂q (m × positions): with the rows themselves (∂/∂q̇) and the holonomic rows' gradients,
    /// the constraints' Jacobian on the state, for linearising on the manifold (only with the
    /// field Jacobian, empty otherwise).
    pub rows_dq: Vec<Vec<Expr>>,
    /// ∂f/∂q of the holonomic rows (in their order × the positions) of a model with orientations,
    /// with the field Jacobian (empty otherwise: where q̇ = v the rows aᵢ are these gradients).
    pub position_dq: Vec<Vec<Expr>>,
    /// ∂R/∂w ((n + m) × (the inputs, then the parameters of `sensitivity(...)`)) and a contact
    /// model's ∂L/∂w (empty otherwise).
    pub dr_dp: Vec<Vec<Expr>>,
    pub dl_dp: Vec<Expr>,
    /// Symbols that `dr_dp` reads, bound in dependency order (a tree model's ∂K/∂p along the tree,
    /// as `Equations::dg_dw_bindings`; empty otherwise).
    pub dr_dp_bindings: Vec<(Expr, Expr)>,
}

/// ∂R/∂q, ∂R/∂q̇ (rows × the positions, rows × n), ∂R/∂t and, for a contact model, ∂R/∂z of
/// some rows of a residual.
pub struct ResidualJacobian {
    pub dq: Vec<Vec<Expr>>,
    pub dv: Vec<Vec<Expr>>,
    pub dt: Vec<Expr>,
    /// Empty without the action variable.
    pub dz: Vec<Expr>,
}

/// How the Jacobian of the saddle-point residual R = (M a − Aᵀλ − f, A a + c) is derived.
pub enum SaddleJacobian {
    /// Not derived: the model does not ask for the field Jacobian.
    Absent,
    /// R's as one computation ((n + m) rows).
    Whole(ResidualJacobian),
    /// R's as a sum of parts, for a mode of a multi-mode system, whose modes hold different sets
    /// of the same constraints: the forces' part M a − f (n rows) and each constraint's own,
    /// −λₖ aₖᵀ in the first n rows and aₖ·a + cₖ in its row (n + 1 rows, with λₖ the symbol of
    /// the first multiplier) — the same in every mode that holds the constraint, so that the
    /// modes share its code — derived once, in the first mode that holds the constraint
    /// ([`Model::part_owners`]; `None` here where another mode's is this one's), or, where the
    /// modes do not share what the part is lowered from, compared by `emit::shared`.
    ByConstraint { forces: ResidualJacobian, rows: Vec<Option<ResidualJacobian>> },
}

impl ResidualJacobian {
    /// Of `residual` over the state: with orientations ∂/∂q over every direction of the
    /// quaternions (|q|² as the sum of its squares again).
    fn of(model: &Model, arena: &mut Arena, residual: &[Expr]) -> ResidualJacobian {
        let layout = &model.layout;
        let [dq, dv] = if layout.orientations.is_empty() {
            arena.jacobian_blocks(residual, [&layout.q, &layout.qd])
        } else {
            let unheld = layout.unhold_norms(arena, residual);
            [arena.jacobian(&unheld, &layout.q), arena.jacobian(&unheld, &layout.qd)]
        };
        let dt = arena.diff_many(residual, layout.t);
        let dz = layout.z.map(|z| arena.diff_many(residual, z)).unwrap_or_default();
        ResidualJacobian { dq, dv, dt, dz }
    }
}

/// A row a's part of a saddle-point residual, multiplier `l`: −l a in the first n rows, then
/// a·w + `tail` (the constrained dynamics' a·q̈ + c, a projection's a·q̇⁺ + b).
pub(crate) fn row_part(arena: &mut Arena, (a, l): (&[Expr], Expr), (w, tail): (&[Expr], Expr)) -> Vec<Expr> {
    let mut rows: Vec<Expr> = a
        .iter()
        .map(|&ai| {
            let t = arena.mul2(ai, l);
            arena.neg(t)
        })
        .collect();
    let aw = arena.dot(a, w);
    rows.push(arena.add2(aw, tail));
    rows
}

/// Largest number of terms the set's Frobenius test may expand to before it is skipped.
const FROBENIUS_TERMS: usize = 200_000;

/// Derives the constrained equations of `model` (none if it has no constraints); rows that are
/// dependent everywhere are reported into `cx` ([`check_rank`]).
///
/// Along the tree of a [`Form`] whose M is never formed, the residual's Jacobian is derived
/// from the generalized forces τ without M a − f's kinetic part K (see
/// [`crate::derive::dynamics::Inverse`]), which the generated code adds from K's tangent.
pub fn derive(model: &Model, arena: &mut Arena, cx: &mut Ctxt, eq: &Equations, form: &Form) -> Option<ConstraintEquations> {
    let tree_forces = form.along_tree().map(|(r, _)| r.tau());
    let ce = equations(model, arena, eq, tree_forces)?;
    cx.ok(check_rank(&model.view(arena), &ce));
    Some(ce)
}

fn equations(model: &Model, arena: &mut Arena, eq: &Equations, tree_forces: Option<&[Expr]>) -> Option<ConstraintEquations> {
    if model.constraints.is_empty() {
        return None;
    }
    let (n, m) = (model.dof(), model.constraints.len());
    let lam: Vec<Expr> = (0..m).map(|k| model.symbol(arena, Role::Multiplier(k))).collect();
    let names = model.constraints.iter().map(|c| c.name.clone()).collect();
    let a: Vec<Vec<Expr>> = model.constraints.iter().map(|c| c.a.clone()).collect();
    let b: Vec<Expr> = model.constraints.iter().map(|c| c.b).collect();
    let position: Vec<Option<Expr>> = model.constraints.iter().map(|c| c.position).collect();
    let declared: Vec<bool> = model.constraints.iter().map(|c| c.position.is_some()).collect();
    let model_sensitivity = model.sensitivity.clone();
    let layout = &model.layout;

    // Velocity-level residuals A q̇ + b, and their derivative along (q̇, 1) with q̇ fixed.
    let rows: Vec<Expr> = a
        .iter()
        .zip(&b)
        .map(|(ai, &bi)| {
            let aq = arena.dot(ai, &layout.qd);
            arena.add2(aq, bi)
        })
        .collect();
    let bias = layout.total_derivative(arena, &rows, true);

    // Saddle-point residual R = (M a − Aᵀλ − f, A a + c) and its Jacobians. A tree model that
    // derives no dense M has them only with the field Jacobian, without the kinetic part K of
    // M a − f = K − τ (the generated code adds ∂K/∂x from K's tangent along the tree).
    let along_tree = tree_forces.is_some() && model.field_jacobian && eq.mass.len() != n;
    let forces: Vec<Expr> = match (tree_forces, along_tree) {
        (Some(tau), true) => tau.iter().map(|&t| arena.neg(t)).collect(),
        _ if eq.mass.len() == n => (0..n)
            .map(|i| {
                // M a from its product where M goes by columns (a smaller formula than its entries').
                let ma = match &eq.mass_product {
                    Some(product) => product[i],
                    None => arena.dot(&eq.mass[i], &layout.qdd),
                };
                arena.sub(ma, eq.forcing[i])
            })
            .collect(),
        _ => Vec::new(),
    };
    // Constraint k's part: −λ aₖᵀ in the first n rows, aₖ·a + cₖ in its own.
    let part = |arena: &mut Arena, k: usize, l: Expr| row_part(arena, (&a[k], l), (&layout.qdd, bias[k]));
    let residual: Vec<Expr> = if forces.is_empty() {
        Vec::new()
    } else {
        let mut residual = forces.clone();
        let mut own = Vec::with_capacity(m);
        for (k, &l) in lam.iter().enumerate() {
            let rows = part(arena, k, l);
            for (r, &e) in residual.iter_mut().zip(&rows[..n]) {
                *r = arena.add2(*r, e);
            }
            own.push(rows[n]);
        }
        residual.extend(own);
        residual
    };
    // The field Jacobian only where the model asks for it (see `Model::field_jacobian`); by
    // constraint in a mode of a multi-mode system.
    let saddle = match (model.field_jacobian && !forces.is_empty(), &model.mode) {
        (false, _) => SaddleJacobian::Absent,
        (true, None) => SaddleJacobian::Whole(ResidualJacobian::of(model, arena, &residual)),
        (true, Some(_)) => {
            let first = model.symbol(arena, Role::Multiplier(0));
            let rows = (0..m)
                .map(|k| {
                    let owned = model.part_owner(k).is_some();
                    (!owned).then(|| {
                        let rows = part(arena, k, first);
                        ResidualJacobian::of(model, arena, &rows)
                    })
                })
                .collect();
            SaddleJacobian::ByConstraint { forces: ResidualJacobian::of(model, arena, &forces), rows }
        }
    };
    let quasi = !layout.orientations.is_empty();
    // The constraints' Jacobian on the state, for constrained linearisation: with orientations the
    // holonomic rows' gradients too (their velocity rows are pulled back through the quaternion's
    // rates), both over every direction of the quaternion (|q|² unheld).
    let (rows_dq, position_dq) = match (model.field_jacobian, quasi) {
        (false, _) => (Vec::new(), Vec::new()),
        (true, false) => (arena.jacobian(&rows, &layout.q), Vec::new()),
        (true, true) => {
            let unheld = layout.unhold_norms(arena, &rows);
            let fs: Vec<Expr> = position.iter().flatten().copied().collect();
            let unheld_fs = layout.unhold_norms(arena, &fs);
            (arena.jacobian(&unheld, &layout.q), arena.jacobian(&unheld_fs, &layout.q))
        }
    };
    // w = (u, p): the inputs, then the parameters of `sensitivity(...)` (as eq.dl_dw).
    let chosen: Vec<Expr> = layout.u.iter().copied().chain(model_sensitivity.iter().map(|&i| layout.params[i])).collect();
    let mut dr_dp = arena.jacobian(&residual, &chosen);
    let dl_dp = eq.dl_dw.clone();
    // Along the tree, R's first rows −(Aᵀλ + τ) + K differentiate as −∂(Aᵀλ)/∂w − ∂g/∂w with
    // g = τ − K: ∂K/∂p (a parameter of the tree's masses or directions) comes from the equations,
    // read from their bindings. Their ∂τ/∂w replaces the residual's own.
    let mut dr_dp_bindings = Vec::new();
    if along_tree && !chosen.is_empty() {
        let tau = tree_forces.unwrap_or_default();
        let dtau = arena.jacobian(tau, &chosen);
        for (i, row) in dr_dp.iter_mut().take(n).enumerate() {
            for (c, entry) in row.iter_mut().enumerate() {
                let without_tau = arena.add2(*entry, dtau[i][c]);
                *entry = arena.sub(without_tau, eq.dg_dw[i][c]);
            }
        }
        dr_dp_bindings = eq.dg_dw_bindings.clone();
    }

    let (kinds, set_integrable) = integrability(model, arena, (&a, &b), &declared);
    Some(ConstraintEquations {
        names,
        a,
        b,
        position,
        bias,
        kinds,
        set_integrable,
        saddle,
        rows_dq,
        position_dq,
        dr_dp,
        dr_dp_bindings,
        dl_dp,
    })
}

/// How each row integrates, and whether the set does (`None`: too large to check) — Frobenius, on
/// the extended coordinates z = (q, t) (see the module's documentation).
fn integrability(
    model: &Model,
    arena: &mut Arena,
    (a, b): (&[Vec<Expr>], &[Expr]),
    declared: &[bool],
) -> (Vec<Kind>, Option<bool>) {
    let layout = &model.layout;
    // Frobenius, on the extended coordinates z = (q, t): each row as a one-form on them, and, with
    // orientations, the spheres' forms q·dq that the distribution lives on (see `coordinate_forms`).
    let z: Vec<Expr> = layout.q.iter().copied().chain([layout.t]).collect();
    let (forms, spheres) = coordinate_forms(arena, layout, a, b);
    let d_forms: Vec<Vec<Vec<Expr>>> = forms.iter().map(|w| exterior_derivative(arena, w, &z)).collect();
    let kinds = forms
        .iter()
        .zip(&d_forms)
        .zip(declared)
        .map(|((w, dw), &holonomic)| {
            let with_spheres: Vec<Vec<Expr>> = std::iter::once(w.clone()).chain(spheres.iter().cloned()).collect();
            if holonomic {
                Kind::Holonomic
            } else if wedge_with_one_form_is_zero(arena, dw, &with_spheres) {
                Kind::Integrable
            } else {
                Kind::Nonholonomic
            }
        })
        .collect::<Vec<_>>();
    let all_forms: Vec<Vec<Expr>> = forms.iter().chain(&spheres).cloned().collect();
    let set_integrable = if kinds.iter().all(|k| *k == Kind::Holonomic) {
        Some(true)
    } else if frobenius_terms(z.len(), all_forms.len()) > FROBENIUS_TERMS {
        None
    } else if wedge_is_nonzero_somewhere(arena, model, &d_forms, &all_forms) {
        // A component that is certainly nonzero at a sample point: not integrable, without the
        // symbolic expansion (whose exact zero test is needed only to prove the identities).
        Some(false)
    } else {
        Some(d_forms.iter().all(|dw| wedge_with_one_form_is_zero(arena, dw, &all_forms)))
    };
    (kinds, set_integrable)
}

/// The constraint rows as one-forms on the extended coordinates z = (q, t), and the forms of the
/// spheres the orientations' quaternions live on.
///
/// A row is a ⋅ v + b over the velocities. Where q̇ = v this is the one-form Σₖ aₖ dqₖ + b dt. With
/// orientations the velocities are not the coordinates' rates: an orientation's ω is
/// 2 Im(q̄ ⊗ q̇)/|q|² (the left inverse of q̇ = ½ q ⊗ (0, ω) on the tangent space), so its three
/// entries of the row become the one-form (2/|q|²) Σ_c a_c (w dq_v − q_v dw − (q_v × dq_v))_c over
/// the quaternion's four coordinates. The distribution then lives on Q = ℝⁿ × S³ × …, the level
/// sets of the quaternions' norms, and is integrable there iff the rows together with the forms
/// q·dq of the spheres (closed, d(q·dq) = 0) are integrable on the whole space: those forms are
/// returned as the second list and join every Frobenius test. Every coefficient has each
/// orientation's held |q|² replaced by its sum of squares, since d differentiates along every
/// direction.
fn coordinate_forms(
    arena: &mut Arena,
    layout: &crate::layout::Layout,
    a: &[Vec<Expr>],
    b: &[Expr],
) -> (Vec<Vec<Expr>>, Vec<Vec<Expr>>) {
    if layout.orientations.is_empty() {
        let forms = a.iter().zip(b).map(|(ai, &bi)| ai.iter().copied().chain([bi]).collect()).collect();
        return (forms, Vec::new());
    }
    let nq = layout.position_dim();
    let zero = arena.zero();
    let mut forms = Vec::with_capacity(a.len());
    for (ai, &bi) in a.iter().zip(b) {
        let mut w = vec![zero; nq + 1];
        for (k, &ak) in ai.iter().enumerate() {
            match layout.orientation_of_velocity(k) {
                None => w[k] = arena.add2(w[k], ak),
                Some((o, c)) => {
                    // ω_c = (2/|q|²) (w q̇_v − q̇_w q_v − q_v × q̇_v)_c.
                    let q: [Expr; 4] = std::array::from_fn(|i| layout.q[o.q_start + i]);
                    let squares: Vec<Expr> = q.iter().map(|&qi| arena.powi(qi, 2)).collect();
                    let norm2 = arena.add(&squares);
                    let two = arena.int(2);
                    let scale = arena.div(two, norm2);
                    let coefficient = arena.mul2(scale, ak);
                    // Coefficients of (dq_w, dq_x, dq_y, dq_z) in component c.
                    let (u1, u2) = ((c + 1) % 3, (c + 2) % 3);
                    let mut row = [zero; 4];
                    row[0] = arena.neg(q[1 + c]);
                    row[1 + c] = q[0];
                    // −(q_v × dq_v)_c = −(q_{u1} dq_{u2} − q_{u2} dq_{u1}).
                    row[1 + u2] = arena.neg(q[1 + u1]);
                    row[1 + u1] = q[1 + u2];
                    for (i, &r) in row.iter().enumerate() {
                        let t = arena.mul2(coefficient, r);
                        let slot = o.q_start + i;
                        w[slot] = arena.add2(w[slot], t);
                    }
                }
            }
        }
        w[nq] = bi;
        forms.push(layout.unhold_norms(arena, &w));
    }
    let spheres = layout
        .orientations
        .iter()
        .map(|o| {
            let mut w = vec![zero; nq + 1];
            for i in 0..4 {
                w[o.q_start + i] = layout.q[o.q_start + i];
            }
            w
        })
        .collect();
    (forms, spheres)
}

/// (dα)ⱼₖ = ∂ⱼαₖ − ∂ₖαⱼ (antisymmetric, full square).
fn exterior_derivative(arena: &mut Arena, w: &[Expr], z: &[Expr]) -> Vec<Vec<Expr>> {
    let jac = arena.jacobian(w, z); // jac[k][j] = ∂ⱼ αₖ
    let zero = arena.zero();
    let mut d = vec![vec![zero; z.len()]; z.len()];
    for j in 0..z.len() {
        for k in j + 1..z.len() {
            let v = arena.sub(jac[k][j], jac[j][k]);
            d[j][k] = v;
            d[k][j] = arena.neg(v);
        }
    }
    d
}

/// Number of terms of the set test: C(N, m + 2) index sets × C(m + 2, 2) pairs × m forms.
fn frobenius_terms(dim: usize, m: usize) -> usize {
    let choose = |n: usize, k: usize| -> usize {
        if k > n {
            return 0;
        }
        (0..k).fold(1usize, |acc, i| acc.saturating_mul(n - i) / (i + 1))
    };
    choose(dim, m + 2).saturating_mul(choose(m + 2, 2)).saturating_mul(m)
}

/// Whether the (m + 2)-form dα ∧ α₁ ∧ … ∧ α_m vanishes identically (`forms` are the αᵢ's
/// components on the extended coordinates, `d_alpha` the components of dα).
fn wedge_with_one_form_is_zero(arena: &mut Arena, d_alpha: &[Vec<Expr>], forms: &[Vec<Expr>]) -> bool {
    let dim = d_alpha.len();
    let m = forms.len();
    if m + 2 > dim {
        return true;
    }
    let mut set: Vec<usize> = (0..m + 2).collect();
    loop {
        // Component on `set`.
        let mut terms = Vec::new();
        for (j, k, rest, positive) in wedge_terms(&set) {
            let minor = determinant(arena, forms, &rest);
            let t = arena.mul2(d_alpha[j][k], minor);
            terms.push(if positive { t } else { arena.neg(t) });
        }
        let component = arena.add(&terms);
        if !arena.zero_test(component).is_zero() {
            return false;
        }
        if !next_combination(&mut set, dim) {
            return true;
        }
    }
}

/// Whether some component of some dαᵢ ∧ α₁ ∧ … ∧ α_m is certainly nonzero at one of a few
/// sample points, evaluated in `f64` with the same expansion as [`wedge_with_one_form_is_zero`].
/// Every entry comes with a bound on its error ([`Arena::eval_many_bounded`]): an entry that is
/// identically zero but not structurally so (a b = w − a·v that cancels) evaluates to a rounding
/// residue of about 10⁻¹⁷ within its bound, and a component built on such residues is within the
/// bound its entries' errors give it. The component's error bound is that propagated bound — the
/// expansion's magnitude with every entry widened by its error, less the magnitude itself — plus
/// 10⁻⁶ of the widened magnitude for the rounding of the expansion; a component above it is not
/// zero there, hence not identically. `false` says nothing (the exact test decides).
fn wedge_is_nonzero_somewhere(arena: &Arena, model: &Model, d_forms: &[Vec<Vec<Expr>>], forms: &[Vec<Expr>]) -> bool {
    let dim = forms.first().map_or(0, Vec::len);
    let m = forms.len();
    if m + 2 > dim {
        return false;
    }
    for values in sample_points(model, 3) {
        let lookup = |s: Expr| values.get(&s).copied().unwrap_or(1.0);
        let flat: Vec<Expr> = forms.iter().flatten().copied().collect();
        let a = arena.eval_many_bounded(&flat, &lookup);
        let value: Vec<f64> = a.iter().map(|&(v, _)| v).collect();
        let wide: Vec<f64> = a.iter().map(|&(v, e)| v.abs() + e).collect();
        let rows: Vec<&[f64]> = value.chunks(dim).collect();
        let wide_rows: Vec<&[f64]> = wide.chunks(dim).collect();
        for dw in d_forms {
            let flat_dw: Vec<Expr> = dw.iter().flatten().copied().collect();
            let d = arena.eval_many_bounded(&flat_dw, &lookup);
            let mut set: Vec<usize> = (0..m + 2).collect();
            loop {
                let (mut component, mut magnitude, mut widened) = (0.0f64, 0.0f64, 0.0f64);
                for (j, k, rest, positive) in wedge_terms(&set) {
                    let (minor, minor_magnitude) = numeric_determinant(&rows, &rest);
                    let (_, minor_widened) = numeric_determinant(&wide_rows, &rest);
                    let (coefficient, error) = d[j * dim + k];
                    component += if positive { coefficient * minor } else { -coefficient * minor };
                    magnitude += coefficient.abs() * minor_magnitude;
                    widened += (coefficient.abs() + error) * minor_widened;
                }
                let bound = (widened - magnitude).max(0.0) + 1e-6 * widened;
                if component.is_finite() && bound.is_finite() && component.abs() > bound {
                    return true;
                }
                if !next_combination(&mut set, dim) {
                    break;
                }
            }
        }
    }
    false
}

/// The terms of the component of dα ∧ α₁ ∧ … ∧ α_m on the index set `set`: for each pair j < k in
/// it, (j, k, the rest of `set`, whether the sign of sorting (j, k, rest) into `set` is +); the
/// term is ± (dα)ⱼₖ · det A[:, rest].
fn wedge_terms(set: &[usize]) -> Vec<(usize, usize, Vec<usize>, bool)> {
    let mut out = Vec::new();
    for p in 0..set.len() {
        for q in p + 1..set.len() {
            let rest: Vec<usize> = set.iter().enumerate().filter(|(i, _)| *i != p && *i != q).map(|(_, &c)| c).collect();
            out.push((set[p], set[q], rest, (p + q - 1) % 2 == 0));
        }
    }
    out
}

/// The next `set.len()`-subset of 0..dim in lexicographic order (`false` after the last).
fn next_combination(set: &mut [usize], dim: usize) -> bool {
    let mut i = set.len();
    while i > 0 {
        i -= 1;
        if set[i] < dim - (set.len() - i) {
            set[i] += 1;
            for j in i + 1..set.len() {
                set[j] = set[j - 1] + 1;
            }
            return true;
        }
    }
    false
}

/// det of rows × `cols` in `f64` by the Laplace expansion of [`determinant`], with its magnitude
/// (the same expansion with every term's absolute value).
fn numeric_determinant(rows: &[&[f64]], cols: &[usize]) -> (f64, f64) {
    match rows.len() {
        0 => (1.0, 1.0),
        1 => (rows[0][cols[0]], rows[0][cols[0]].abs()),
        _ => {
            let (mut value, mut magnitude) = (0.0, 0.0);
            for (k, &c) in cols.iter().enumerate() {
                let sub_cols: Vec<usize> = cols.iter().enumerate().filter(|(i, _)| *i != k).map(|(_, &x)| x).collect();
                let (minor, minor_magnitude) = numeric_determinant(&rows[1..], &sub_cols);
                let sign = if k % 2 == 0 { 1.0 } else { -1.0 };
                value += sign * rows[0][c] * minor;
                magnitude += rows[0][c].abs() * minor_magnitude;
            }
            (value, magnitude)
        }
    }
}

/// det of the square matrix rows × `cols` (Laplace expansion along the first row).
fn determinant(arena: &mut Arena, rows: &[Vec<Expr>], cols: &[usize]) -> Expr {
    match rows.len() {
        0 => arena.one(),
        1 => rows[0][cols[0]],
        _ => {
            let mut terms = Vec::new();
            for (k, &c) in cols.iter().enumerate() {
                let sub_cols: Vec<usize> = cols.iter().enumerate().filter(|(i, _)| *i != k).map(|(_, &x)| x).collect();
                let minor = determinant(arena, &rows[1..], &sub_cols);
                let t = arena.mul2(rows[0][c], minor);
                terms.push(if k % 2 == 0 { t } else { arena.neg(t) });
            }
            arena.add(&terms)
        }
    }
}

/// The rows must be independent somewhere: the first row that depends on the rows before it at
/// every sampled state is a compile error on its name.
fn check_rank(model: &View<'_>, ce: &ConstraintEquations) -> syn::Result<()> {
    let n = model.dof();
    let points = sample_points(model, 4);
    for k in 1..ce.a.len() {
        let m = k + 1;
        let flat: Vec<Expr> = ce.a[..m].iter().flatten().copied().collect();
        let dependent_everywhere = points.iter().all(|values| {
            let lookup = |s: Expr| values.get(&s).copied().unwrap_or(1.0);
            let a = model.arena.eval_many(&flat, &lookup);
            // Gram matrix A Aᵀ: singular exactly where the rows are dependent.
            let gram: Vec<f64> = (0..m * m).map(|ij| (0..n).map(|c| a[(ij / m) * n + c] * a[(ij % m) * n + c]).sum()).collect();
            matches!(relative_min_pivot(gram, m), Some(p) if p <= 1e-10)
        });
        if dependent_everywhere {
            let before: Vec<String> = ce.names[..k].iter().map(|c| format!("`{c}`")).collect();
            let name = &ce.names[k];
            return Err(syn::Error::new(
                name.span(),
                format!(
                    "constraint `{name}` is linearly dependent on {} at every sampled state: it adds no restriction \
                     (and would make the multipliers undetermined); remove it",
                    before.join(", ")
                ),
            ));
        }
    }
    Ok(())
}
