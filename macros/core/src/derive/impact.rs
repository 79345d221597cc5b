//! Guards and impact laws, derived symbolically.
//!
//! A guard is a unilateral constraint h(t, q) ≥ 0. The generated code gets
//!
//! ```text
//! h,   ∇h = ∂h/∂q,   dh/dt = ∇h·q̇ + ∂h/∂t   (the approach velocity; an impact needs dh/dt < 0)
//! ```
//!
//! **Restitution laws** (generalized Newton law with the kinetic metric M = ∂²L/∂q̇²). With one-forms
//! as rows of A (k×n) plus their time parts b (the dt-coefficients; for the guard's own normal
//! A = dh, b = ∂h/∂t) and coefficients E = diag(e₁..e_k), the post-impact velocity q̇⁺ satisfies
//!
//! ```text
//! M (q̇⁺ − q̇⁻) = Aᵀ λ                     (an impulse in the span of the one-forms)
//! A q̇⁺ + b = −E (A q̇⁻ + b)               (each relative velocity reverses, scaled by eᵣ)
//! ```
//!
//! i.e. the saddle-point system `[M −Aᵀ; A 0] [q̇⁺; λ] = [M q̇⁻; −E(A q̇⁻ + b) − b]`, solved
//! numerically at the impact (never a symbolic inverse). Equivalently
//! q̇⁺ = q̇⁻ − M⁻¹Aᵀ(AM⁻¹Aᵀ)⁻¹(I + E)(A q̇⁻ + b) (*Hybrid momentum maps*, §3 and Ex. 1); for one row this is Newton's
//! law q̇⁺ = q̇⁻ − (1+e) M⁻¹∇h (∇h·q̇⁻ + ∂h/∂t)/(∇hᵀM⁻¹∇h). Positions do not jump. Carnot: for a
//! single-row law with a fixed wall, ΔE = −(1−e)/(1+e) · ½ Δq̇ᵀ M Δq̇.
//!
//! **Reset Jacobian.** Write the system as a residual R(x⁻, q̇⁺, λ) = 0 with
//! R₁ = M(q̇⁺ − q̇⁻) − Aᵀλ and R₂ = A q̇⁺ + b + E(A q̇⁻ + b). Its Jacobian in (q̇⁺, λ) is the same
//! matrix K = [M −Aᵀ; A 0], so d(q̇⁺, λ)/dx⁻ = −K⁻¹ ∂R/∂x⁻ (implicit function theorem), with
//! ∂R/∂x⁻ derived symbolically in terms of the symbols q̇⁺ and λ, evaluated at the solution.
//!
//! **Map laws** give q̇⁺ explicitly; their Jacobian is differentiated directly.
//!
//! **Chart changes** (transitions between modes with different coordinates) give the whole target
//! state (q', q̇') as functions of the source state; their Jacobian ∂(q', q̇')/∂(q, q̇) is
//! rectangular (2m × 2n).
//!
//! **Projections derived once.** A `project` transition is the restitution law with E = 0 on the
//! rows of the constraints of the mode it enters. Where the two modes share the kinetic metric
//! and those rows by construction ([`Law::Project`]), the entered mode derives the projection
//! onto its own constraints once ([`arrival`]) and every transition into it calls that
//! ([`Reset::Arrival`]). A plastic impact (E = 0) whose rows and time parts are a `project`
//! transition's of the same mode, in any order — the landing of a plastic `unilateral` contact and
//! its settling — solves the same system up to a permutation of λ, so the same q̇⁺: it calls the
//! transition's reset ([`Reset::Same`], [`same_projection`]; the rows compared as expressions of
//! the mode's arena, exactly). The entered mode's ∂R/∂x is then the metric's part M (q̇⁺ − q̇⁻)
//! (along a tree added from its tangent) plus one part per row, −λₖ aₖ and aₖ·q̇⁺ + bₖ, each
//! derived once in the first mode entered the same way that holds the constraint
//! ([`Model::arrival_owners`]) and called by the others.

use symbolic::{Arena, Expr};

use crate::derive::dynamics::{Form, Inverse};
use crate::derive::euler_lagrange::Equations;
use crate::model::{Law, LawRow, Model, Role};

/// One row's part of a projection's residual Jacobian: ∂/∂q and ∂/∂q̇⁻ (n + 1 rows each).
pub type RowPart = [Vec<Vec<Expr>>; 2];

/// How the post-impact velocity is computed.
pub enum Reset {
    /// Saddle-point projection with k rows.
    Projection {
        /// Rows of A (k×n).
        a: Vec<Vec<Expr>>,
        /// Time parts b (k).
        b: Vec<Expr>,
        /// Coefficients e (k).
        e: Vec<Expr>,
        /// ∂R/∂q ((n+k) × the positions) and ∂R/∂q̇⁻ ((n+k)×n), in terms of the symbols q̇⁺ and λ.
        dr_dq: Vec<Vec<Expr>>,
        dr_dv: Vec<Vec<Expr>>,
        /// ∂R/∂z of a contact model (n+k; empty otherwise).
        dr_dz: Vec<Expr>,
        /// A tree model's M (q̇⁺ − q̇⁻) along its tree and that product's tangent: R₁ and its
        /// derivatives above are then without it (−Aᵀλ), and the generated code adds it.
        metric: Option<Box<Inverse>>,
        /// The arrival projection of a mode of a multi-mode system, by constraint (without an
        /// action): ∂/∂q and ∂/∂q̇⁻ of each row k's part (−λ aₖ in the first n rows, aₖ·q̇⁺ + bₖ
        /// in the last, λ the first multiplier's symbol), `None` where the mode that first holds
        /// the constraint derives it ([`Model::arrival_owners`]); `dr_dq` and `dr_dv` then hold
        /// the metric's part M (q̇⁺ − q̇⁻) alone (n rows; empty along a tree), `dr_dz` nothing.
        parts: Option<Vec<Option<RowPart>>>,
    },
    /// Explicit post-impact velocities and their derivatives (n × the positions and n×n; ∂v/∂z
    /// of a contact model, n, empty otherwise).
    Map { velocities: Vec<Expr>, dv_dq: Vec<Vec<Expr>>, dv_dv: Vec<Vec<Expr>>, dv_dz: Vec<Expr> },
    /// The reset of impact `impact` of the same mode (an index into the mode's impacts), whose
    /// plastic law projects onto the same rows (a plastic landing and the settling after it, see
    /// [`same_projection`]), with those rows (A, k×n).
    Same { impact: usize, a: Vec<Vec<Expr>> },
    /// A `project` transition's: the projection onto the constraints of the mode it enters, which
    /// that mode generates once (`__routh_arrival_reset`, [`arrival`]), with the rows (A, k×n).
    Arrival { mode: syn::Ident, a: Vec<Vec<Expr>> },
    /// A transition's chart change: the target state (positions, then velocities; 2m entries for a
    /// target with m coordinates) and its Jacobian (2m × 2n) with respect to the source state.
    Chart { state: Vec<Expr>, jacobian: Vec<Vec<Expr>> },
}

/// Everything derived for one impact.
pub struct ImpactEquations {
    /// The impact's name (its declaration's).
    pub name: syn::Ident,
    /// The mode its reset leads to (`None`: the same mode).
    pub target: Option<usize>,
    /// What fires it.
    pub trigger: crate::model::Trigger,
    pub guard: Expr,
    /// ∂h/∂q (over the positions), then ∂h/∂z for a contact model.
    pub gradient: Vec<Expr>,
    pub rate: Expr,
    pub reset: Reset,
}

/// Derives guard data and reset equations for every impact of `model`. Along the tree of a
/// [`Form`] whose M is never formed, the restitution laws take M (q̇⁺ − q̇⁻) along the tree, their
/// temporaries numbered after its kinetics'.
pub fn derive(model: &Model, arena: &mut Arena, eq: &Equations, form: &Form) -> Vec<ImpactEquations> {
    let tree = form.along_tree().map(|(r, k)| (r, k.end));
    let n = model.dof();
    let max_rows = model
        .impacts
        .iter()
        .map(|i| match &i.law {
            Law::Restitution(rows) => rows.len(),
            Law::Project { rows, .. } => rows.len(),
            Law::Map(_) | Law::Chart { .. } => 0,
        })
        .max()
        .unwrap_or(0);
    let vp: Vec<Expr> = (0..n).map(|i| model.symbol(arena, Role::PostVelocity(i))).collect();
    let lam: Vec<Expr> = (0..max_rows).map(|k| model.symbol(arena, Role::Multiplier(k))).collect();

    // Every restitution law's rows first: a transition's projection may be an impact's reset.
    let laws: Vec<Option<Rows>> = model.impacts.iter().map(|imp| law_rows(model, arena, imp)).collect();
    let plastic: Vec<Option<PlasticKey>> = laws.iter().map(|law| law.as_ref().and_then(|r| plastic_key(arena, r))).collect();
    let mut out = Vec::new();
    for idx in 0..model.impacts.len() {
        let Model { layout: syms, impacts, lagrangian, .. } = model;
        let imp = &impacts[idx];
        let h = imp.guard;
        // ∂h/∂q over the whole state (an orientation's |q|² as the sum of its squares, so that this
        // is the gradient of the emitted h); the rows of the law over the velocities are ∂h/∂q
        // pulled back through q̇ = K v (Kᵀ∂h/∂q: a tangent direction, along which |q|² is constant).
        let mut gradient: Vec<Expr> = if syms.orientations.is_empty() {
            arena.gradient(h, &syms.q)
        } else {
            let unheld = syms.unhold_norms(arena, &[h])[0];
            arena.gradient(unheld, &syms.q)
        };
        let mut rate = syms.total_derivative(arena, &[h], true)[0];
        if let Some(z) = syms.z {
            // A guard h(t, q, z) of a contact model: ż = L.
            let dh_dz = arena.diff(h, z);
            let along = arena.mul2(dh_dz, *lagrangian);
            rate = arena.add2(rate, along);
            gradient.push(dh_dz);
        }
        let reset = match &imp.law {
            Law::Restitution(_) | Law::Project { .. } => {
                let (a, b, e) = laws[idx].clone().expect("a restitution law's rows");
                match (same_projection(model, &plastic, idx), &imp.law) {
                    (Some(impact), _) => Reset::Same { impact, a },
                    (None, Law::Project { mode, rows }) if !rows.is_empty() => Reset::Arrival { mode: mode.clone(), a },
                    (None, _) => projection(model, arena, eq, (tree, &vp, &lam), (a, b, e), false),
                }
            }
            Law::Map(velocities) => {
                let velocities = velocities.clone();
                let [dv_dq, dv_dv] = state_jacobian(arena, syms, &velocities);
                let dv_dz = syms.z.map(|z| arena.diff_many(&velocities, z)).unwrap_or_default();
                Reset::Map { velocities, dv_dq, dv_dv, dv_dz }
            }
            Law::Chart { positions, velocities } => {
                // The action of a contact model is kept (it sits last in every mode's state).
                let mut state = positions.clone();
                state.extend(velocities.iter().copied());
                state.extend(syms.z);
                let source = syms.state_symbols();
                // Over every perturbation of the source state: with orientations, |q|² unheld.
                let unheld = syms.unhold_norms(arena, &state);
                let jacobian = arena.jacobian(&unheld, &source);
                Reset::Chart { state, jacobian }
            }
        };
        out.push(ImpactEquations {
            name: imp.name.clone(),
            target: imp.target,
            trigger: imp.trigger,
            guard: h,
            gradient,
            rate,
            reset,
        });
    }
    out
}

/// The saddle-point system of a restitution law with rows (A, b) and coefficients e, and the
/// Jacobian of its residual over the state (in terms of the symbols q̇⁺ and λ). Along a tree
/// (`tree`: its root and the end of its kinetics' temporaries) R₁ leaves out M (q̇⁺ − q̇⁻), whose
/// product and tangent along the tree the law carries as `metric`.
#[allow(clippy::type_complexity)]
fn projection(
    model: &Model,
    arena: &mut Arena,
    eq: &Equations,
    (tree, vp, lam): (Option<(&crate::derive::dynamics::Recursive, usize)>, &[Expr], &[Expr]),
    (a, b, e): Rows,
    by_constraint: bool,
) -> Reset {
    let (syms, n, k) = (&model.layout, model.dof(), a.len());
    // Residual R = (R₁, R₂) of the saddle-point system; along a tree, R₁ without
    // M (q̇⁺ − q̇⁻), which the generated code adds from the tree.
    let mut residual = Vec::with_capacity(n + k);
    let metric = match tree {
        Some((r, offset)) if eq.mass.is_empty() => {
            let w: Vec<Expr> = vp.iter().zip(&syms.qd).map(|(&post, &pre)| arena.sub(post, pre)).collect();
            Some(Box::new(crate::derive::dynamics::metric_product(model, arena, r, &w, offset)))
        }
        _ => None,
    };
    // By constraint (the rows' parts filled in by the caller), without an action: here the
    // metric's part M (q̇⁺ − q̇⁻) alone (n rows; along a tree, none: the tree adds it).
    if by_constraint && syms.z.is_none() {
        let [dr_dq, dr_dv] = if metric.is_none() {
            let w: Vec<Expr> = vp.iter().zip(&syms.qd).map(|(&post, &pre)| arena.sub(post, pre)).collect();
            let product: Vec<Expr> = eq.mass.iter().map(|row| arena.dot(row, &w)).collect();
            state_jacobian(arena, syms, &product)
        } else {
            [Vec::new(), Vec::new()]
        };
        let parts = Some(vec![None; a.len()]);
        return Reset::Projection { a, b, e, dr_dq, dr_dv, dr_dz: Vec::new(), metric, parts };
    }
    for i in 0..n {
        let mut terms = Vec::new();
        if metric.is_none() {
            for ((&m_ij, &post), &pre) in eq.mass[i].iter().zip(vp).zip(&syms.qd) {
                let dv = arena.sub(post, pre);
                terms.push(arena.mul2(m_ij, dv));
            }
        }
        for (row, &l) in a.iter().zip(lam) {
            let t = arena.mul2(row[i], l);
            terms.push(arena.neg(t));
        }
        residual.push(arena.add(&terms));
    }
    for r in 0..k {
        let post: Vec<Expr> = (0..n).map(|j| arena.mul2(a[r][j], vp[j])).collect();
        let mut pre_rel = arena.dot(&a[r], &syms.qd);
        pre_rel = arena.add2(pre_rel, b[r]);
        let scaled = arena.mul2(e[r], pre_rel);
        let mut terms = post;
        terms.push(b[r]);
        terms.push(scaled);
        residual.push(arena.add(&terms));
    }
    let [dr_dq, dr_dv] = state_jacobian(arena, syms, &residual);
    let dr_dz = syms.z.map(|z| arena.diff_many(&residual, z)).unwrap_or_default();
    Reset::Projection { a, b, e, dr_dq, dr_dv, dr_dz, metric, parts: None }
}

/// A restitution law's rows over the velocities A, their time parts b and their coefficients e.
type Rows = (Vec<Vec<Expr>>, Vec<Expr>, Vec<Expr>);

/// The rows of `imp`'s law if it is a restitution law: the guard's normal ∂h/∂q pulled back to
/// the velocities with b = ∂h/∂t, a one-form's coefficients likewise, a held constraint's row
/// as it is.
fn law_rows(model: &Model, arena: &mut Arena, imp: &crate::model::Impact) -> Option<Rows> {
    let syms = &model.layout;
    let rows = match &imp.law {
        Law::Restitution(rows) => rows,
        Law::Project { rows, .. } => {
            let zero = arena.zero();
            let (a, b) = rows.iter().cloned().unzip();
            return Some((a, b, vec![zero; rows.len()]));
        }
        Law::Map(_) | Law::Chart { .. } => return None,
    };
    let (mut a, mut b, mut e) = (Vec::with_capacity(rows.len()), Vec::with_capacity(rows.len()), Vec::with_capacity(rows.len()));
    for (form, coefficient) in rows {
        match form {
            LawRow::Normal => {
                let held = arena.gradient(imp.guard, &syms.q);
                a.push(syms.pull_back(arena, &held));
                b.push(arena.diff(imp.guard, syms.t));
            }
            LawRow::Form(w) => {
                let over_q = arena.gradient(*w, &syms.dq);
                a.push(syms.pull_back(arena, &over_q));
                b.push(arena.diff(*w, syms.dt));
            }
            LawRow::Velocities(row, affine) => {
                a.push(row.clone());
                b.push(*affine);
            }
        }
        e.push(*coefficient);
    }
    Some((a, b, e))
}

/// The impact of the same mode whose reset impact `idx`'s is, where both are plastic (every
/// coefficient zero) with the same rows and time parts in any order: both then solve
/// M (q̇⁺ − q̇⁻) = Aᵀλ, A q̇⁺ + b = 0 for the same constraint set — the same q̇⁺ (the row order
/// only permutes λ). An impact that stays in its mode takes a `project` transition's (a plastic
/// landing, the settling into the mode that holds the contact after it: generated once in that
/// mode); another plastic transition takes an impact's; a `project` transition keeps its own
/// (the mode it enters generates it). Exact: the rows are compared as expressions of one arena.
fn same_projection(model: &Model, plastic: &[Option<PlasticKey>], idx: usize) -> Option<usize> {
    let mine = plastic[idx].as_ref()?;
    let projects = |j: usize| matches!(model.impacts[j].law, Law::Project { .. });
    let takes = |j: usize| match model.impacts[idx].target {
        None => projects(j),
        Some(_) => !projects(idx) && model.impacts[j].target.is_none(),
    };
    (0..plastic.len()).filter(|&j| j != idx && takes(j)).find(|&j| plastic[j].as_ref() == Some(mine))
}

/// A plastic law's rows with their time parts, sorted: equal keys are the same constraint set.
type PlasticKey = Vec<(Vec<Expr>, Expr)>;

/// The key of a law whose coefficients are all zero (`None` for any other).
fn plastic_key(arena: &Arena, (a, b, e): &Rows) -> Option<PlasticKey> {
    if !e.iter().all(|&c| arena.zero_test(c).is_zero()) {
        return None;
    }
    let mut key: PlasticKey = a.iter().cloned().zip(b.iter().copied()).collect();
    key.sort_unstable();
    Some(key)
}

/// The reset of a `project` transition into `model` ([`Model::arrival`]): the kinetic-metric
/// projection onto its constraints and contacts — the rows the transitions lowered from its
/// declarations, here its own (`model.constraints`, in their order).
pub fn arrival(model: &Model, arena: &mut Arena, eq: &Equations, form: &Form) -> Option<Reset> {
    if !model.arrival || model.constraints.is_empty() {
        return None;
    }
    let tree = form.along_tree().map(|(r, k)| (r, k.end));
    let n = model.dof();
    let vp: Vec<Expr> = (0..n).map(|i| model.symbol(arena, Role::PostVelocity(i))).collect();
    let lam: Vec<Expr> = (0..model.constraints.len()).map(|k| model.symbol(arena, Role::Multiplier(k))).collect();
    let zero = arena.zero();
    let (a, b): (Vec<Vec<Expr>>, Vec<Expr>) = model.constraints.iter().map(|c| (c.a.clone(), c.b)).unzip();
    let e = vec![zero; a.len()];
    let mut reset = projection(model, arena, eq, (tree, &vp, &lam), (a, b, e), !model.arrival_owners.is_empty());
    // By constraint: each row's part, where no earlier mode derives it.
    if let Reset::Projection { a, b, parts: Some(parts), .. } = &mut reset {
        for (k, part) in parts.iter_mut().enumerate() {
            if model.arrival_owner(k).is_some() {
                continue;
            }
            let rows = crate::derive::constraint::row_part(arena, (&a[k], lam[0]), (&vp, b[k]));
            *part = Some(state_jacobian(arena, &model.layout, &rows));
        }
    }
    Some(reset)
}

/// ∂e/∂q and ∂e/∂v over the whole state: with orientations, their |q|² as the sum of the squares
/// first (a reset's Jacobian acts on every perturbation of the state, not only tangent ones).
fn state_jacobian(arena: &mut Arena, syms: &crate::layout::Layout, es: &[Expr]) -> [Vec<Vec<Expr>>; 2] {
    if syms.orientations.is_empty() {
        arena.jacobian_blocks(es, [&syms.q, &syms.qd])
    } else {
        let es = syms.unhold_norms(arena, es);
        [arena.jacobian(&es, &syms.q), arena.jacobian(&es, &syms.qd)]
    }
}
