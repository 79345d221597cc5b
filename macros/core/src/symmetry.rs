//! Symmetries, momentum maps and their conservation laws, verified at compile time.
//!
//! For an infinitesimal generator ξ_Q(q) = ξⁱ(q) ∂/∂qⁱ (*Hybrid momentum maps*, §2.3 and §4; see `docs/references.md`):
//!
//! ```text
//! complete lift   ξᶜ = ξⁱ ∂/∂qⁱ + (∂ξⁱ/∂qʲ q̇ʲ) ∂/∂q̇ⁱ
//! invariance      ξᶜ(L) ≡ 0                         (proved by the zero test, else a compile error)
//! momentum map    J_ξ = ∂L/∂q̇ⁱ ξⁱ
//! balance law     dJ_ξ/dt = ⟨Q, ξ_Q⟩ = Qᵢ ξⁱ        (Noether with forces: conserved iff ⟨Q, ξ⟩ ≡ 0)
//! forced symmetry ξ ∈ g_F  ⇔  ⟨Q, ξ⟩ ≡ 0 and (L_ξᶜ Q)ᵢ = ξᶜ(Qᵢ) + Qⱼ ∂ξʲ/∂qⁱ ≡ 0
//! ```
//!
//! For each impact: the guard is invariant when ξ(h) = ∇h·ξ ≡ 0; the reset preserves J (a hybrid
//! momentum map) when every one-form of a restitution law annihilates ξ (the impulse Aᵀλ then does no
//! work along ξ), or, for a map law, when J(Δ(x)) − J(x) ≡ 0. Otherwise J jumps (a generalized hybrid
//! momentum map at best), and μ⁺ = J(Δ(x)) is evaluated at run time.

use symbolic::Expr;

use crate::euler_lagrange::Equations;
use crate::impact::{ImpactEquations, Reset};
use crate::model::Model;

/// What an impact does to a momentum map.
pub struct ImpactSymmetry {
    /// The impact's name.
    pub impact: syn::Ident,
    pub guard_invariant: bool,
    /// `Some(true)`: J preserved; `Some(false)`: J jumps; `None`: a chart change (not analysed).
    pub preserves: Option<bool>,
}

/// Everything derived for one symmetry.
pub struct SymmetryEquations {
    /// The symmetry's name and generator ξ_Q (its declaration's).
    pub name: syn::Ident,
    pub generator: Vec<Expr>,
    pub momentum: Expr,
    /// ⟨Q, ξ⟩ = dJ/dt.
    pub rate: Expr,
    pub conserved: bool,
    pub in_forced_algebra: bool,
    pub impacts: Vec<ImpactSymmetry>,
}

fn is_zero(model: &Model, e: Expr) -> bool {
    model.arena.zero_test(e).is_zero()
}

/// Checks invariance and derives momentum maps for every symmetry of `model`.
pub fn derive(model: &mut Model, eq: &Equations, impacts: &[ImpactEquations]) -> syn::Result<Vec<SymmetryEquations>> {
    let n = model.dof();
    let mut out = Vec::new();
    let mut errors = crate::diagnostics::Ctxt::new();
    for s in 0..model.symmetries.len() {
        let xi = model.symmetries[s].generator.clone();
        let Model { arena, layout: syms, lagrangian, force, .. } = model;
        // η = ∂ξ/∂q q̇, the velocity part of the lift.
        let eta: Vec<Expr> = xi.iter().map(|&x| arena.total_derivative(&[x], &syms.q, &syms.qd, None)[0]).collect();
        let mut lift: Vec<(Expr, Expr)> = syms.q.iter().zip(&xi).map(|(&q, &x)| (q, x)).collect();
        lift.extend(syms.qd.iter().zip(&eta).map(|(&v, &e)| (v, e)));
        let residual = arena.directional(*lagrangian, &lift);
        let momentum = arena.dot(&eq.momenta, &xi);
        let rate = arena.dot(force, &xi);
        // (L_ξᶜ Q)ᵢ = ξᶜ(Qᵢ) + Qⱼ ∂ξʲ/∂qⁱ.
        let mut lie = Vec::with_capacity(n);
        for i in 0..n {
            let along = arena.directional(force[i], &lift);
            let mut terms = vec![along];
            for j in 0..n {
                let d = arena.diff(xi[j], syms.q[i]);
                terms.push(arena.mul2(force[j], d));
            }
            lie.push(arena.add(&terms));
        }
        let sym = &model.symmetries[s];
        if !is_zero(model, residual) {
            let shown = crate::notation::formula(model, residual);
            errors.push(syn::Error::new_spanned(
                &sym.tokens,
                format!("`{}` is not a symmetry of the Lagrangian: its lifted generator gives ξᶜ(L) = {shown} ≢ 0", sym.name),
            ));
            continue;
        }
        let conserved = is_zero(model, rate);
        let in_forced_algebra = conserved && lie.iter().all(|&l| is_zero(model, l));
        let mut per_impact = Vec::new();
        for ie in impacts {
            let dxi: Vec<Expr> = ie.gradient.clone();
            let g = model.arena.dot(&dxi, &xi);
            let guard_invariant = is_zero(model, g);
            let preserves = match &ie.reset {
                Reset::Projection { a, .. } => Some(a.iter().all(|row| {
                    let t = model.arena.dot(row, &xi);
                    is_zero(model, t)
                })),
                Reset::Map { velocities, .. } => {
                    let map: Vec<(Expr, Expr)> = model.layout.qd.iter().zip(velocities).map(|(&v, &w)| (v, w)).collect();
                    let after = model.arena.subs(momentum, &map);
                    let jump = model.arena.sub(after, momentum);
                    Some(is_zero(model, jump))
                }
                Reset::Chart { .. } => None,
            };
            per_impact.push(ImpactSymmetry { impact: ie.name.clone(), guard_invariant, preserves });
        }
        let name = model.symmetries[s].name.clone();
        out.push(SymmetryEquations { name, generator: xi, momentum, rate, conserved, in_forced_algebra, impacts: per_impact });
    }
    errors.check()?;
    Ok(out)
}
