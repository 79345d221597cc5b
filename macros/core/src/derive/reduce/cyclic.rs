//! Routh reduction over cyclic coordinates (*Hybrid momentum maps*, §2.3 with erratum H2 of
//! `docs/references.md`; time-dependent, cosymplectic case §5).
//!
//! Split q = (r, θ) with θ cyclic: ∂L/∂θ ≡ 0, no force on θ (Q_θ ≡ 0) and Q_r independent of θ.
//! For a Lagrangian affine in θ̇ through its momenta, p_θ = ∂L/∂θ̇ = A(t, r) θ̇ + b(t, r, ṙ) with the
//! cyclic block A = ∂²L/∂θ̇² (k×k, invertible, independent of θ̇). At fixed momenta μ:
//!
//! ```text
//! θ̇(t, r, ṙ, μ) = A⁻¹ (μ − b)                  (k ≤ 3: adjugate over determinant)
//! R^μ(t, r, ṙ)  = [L − μ·θ̇] at θ̇ = θ̇(t, r, ṙ, μ)  (the Routhian)
//! Q^μ_r         = Q_r at θ̇ = θ̇(t, r, ṙ, μ)       (the reduced force)
//! ```
//!
//! The reduced Euler–Lagrange equations of (R^μ, Q^μ) are exactly the r-equations of the full
//! system on the level set p_θ = μ, and θ is recovered by integrating θ̇(t, r, ṙ, μ). R^μ splits
//! by degree in ṙ into R₂ (kinetic) + R₁ (gyroscopic, linear in ṙ) − V_μ (the amended potential).
//! Time-dependent L and forces reduce the same way (everything may depend on t).

use quote::format_ident;
use symbolic::{Arena, Expr};
use syn::Ident;

use crate::derive::euler_lagrange::Equations;
use crate::diagnostics::{Ctxt, error_at as err};
use crate::layout::Layout;
use crate::model::{Model, Reduction};

/// A reduced system ready for derivation and emission.
pub struct Reduced {
    /// The reduced model: coordinates r, Lagrangian R^μ, force Q^μ, parameters + μ — over the full
    /// model's arena (the reduction extends the workspace; nothing is copied).
    pub model: Model,
    /// Cyclic coordinate indices in the full model.
    pub cyclic: Vec<usize>,
    /// Remaining coordinate indices in the full model (in order).
    pub kept: Vec<usize>,
    /// θ̇(t, r, ṙ, μ), in the reduced model's symbols.
    pub cyclic_velocities: Vec<Expr>,
    /// p_θ as functions of the full state (in the full model's symbols), to compute μ from a state.
    pub momenta: Vec<Expr>,
    /// −V_μ = R at ṙ = 0 and the gyroscopic part R₁ (for docs).
    pub amended: Expr,
    pub gyroscopic: Expr,
}

/// Derives the Routh-reduced system `red` of `model`, its model built in the same arena; a
/// reduction that does not apply is reported into `cx`.
pub fn reduce(model: &Model, arena: &mut Arena, cx: &mut Ctxt, eq: &Equations, red: &Reduction) -> Option<Reduced> {
    cx.ok(reduced(model, arena, eq, red))
}

fn reduced(model: &Model, arena: &mut Arena, eq: &Equations, red: &Reduction) -> syn::Result<Reduced> {
    let n = model.dof();
    let k = red.cyclic.len();
    if k > 3 {
        return Err(err(&red.keyword, "Routh reduction over more than 3 cyclic coordinates at once is not supported"));
    }
    let cyclic: Vec<usize> = red.cyclic.iter().map(|(i, _)| *i).collect();
    let kept: Vec<usize> = (0..n).filter(|i| !cyclic.contains(i)).collect();
    if kept.is_empty() {
        return Err(err(&red.keyword, "at least one coordinate must remain after the reduction"));
    }
    let syms = &model.layout;
    let zero_test = |arena: &Arena, e: Expr| arena.zero_test(e).is_zero();
    let show = |arena: &Arena, e: Expr| crate::notation::formula(&model.view(arena), e);
    // Cyclicity of L and of the forces.
    for (c, id) in &red.cyclic {
        let dl = arena.diff(model.lagrangian, syms.q[*c]);
        if !zero_test(arena, dl) {
            return Err(err(id, format!("`{id}` is not cyclic: the Lagrangian depends on it, ∂L/∂{id} = {}", show(arena, dl))));
        }
        if !zero_test(arena, model.force[*c]) {
            return Err(err(id, format!("`{id}` is not cyclic for the forced system: the force acts on it (Q_{id} ≢ 0)")));
        }
        for &r in &kept {
            let dq = arena.diff(model.force[r], syms.q[*c]);
            if !zero_test(arena, dq) {
                return Err(err(
                    id,
                    format!("`{id}` is not cyclic for the forced system: the force on `{}` depends on it", model.coordinates[r]),
                ));
            }
        }
    }
    // Cyclic block A and affine part b of the momenta.
    let momenta: Vec<Expr> = cyclic.iter().map(|&c| eq.momenta[c]).collect();
    let a: Vec<Vec<Expr>> = cyclic.iter().map(|&c| cyclic.iter().map(|&d| eq.mass[c][d]).collect()).collect();
    for (row, (_, id)) in a.iter().zip(&red.cyclic) {
        for &entry in row {
            if cyclic.iter().any(|&d| arena.depends_on(entry, syms.qd[d])) {
                return Err(err(
                    id,
                    format!(
                        "the momentum of `{id}` is not affine in the cyclic velocities, so μ = ∂L/∂θ̇ cannot be solved in closed form"
                    ),
                ));
            }
        }
    }
    let Some((adj, det)) = arena.adjugate(&a) else {
        return Err(err(&red.keyword, "Routh reduction over more than 3 cyclic coordinates at once is not supported"));
    };
    if zero_test(arena, det) {
        let names: Vec<String> = red.cyclic.iter().map(|(_, id)| id.to_string()).collect();
        return Err(err(
            &red.keyword,
            format!(
                "the cyclic block ∂²L/∂θ̇² over ({}) is singular: its determinant {} ≡ 0, so μ = ∂L/∂θ̇ cannot be solved for θ̇",
                names.join(", "),
                show(arena, det)
            ),
        ));
    }
    let zero = arena.zero();
    let to_zero: Vec<(Expr, Expr)> = cyclic.iter().map(|&c| (syms.qd[c], zero)).collect();
    let b: Vec<Expr> = momenta.iter().map(|&p| arena.subs(p, &to_zero)).collect();
    // μ symbols (new parameters).
    let mu_names: Vec<Ident> = red.cyclic.iter().map(|(_, id)| format_ident!("mu_{}", id)).collect();
    for m in &mu_names {
        if model.parameters.contains(m) {
            return Err(err(
                &red.keyword,
                format!("the reduced system's momentum field `{m}` clashes with a parameter of the same name"),
            ));
        }
    }
    let mu: Vec<Expr> = mu_names.iter().map(|m| Layout::parameter_symbol(arena, m)).collect();
    // θ̇ = adj (μ − b) / det.
    let inv_det = arena.powi(det, -1);
    let diff: Vec<Expr> = mu.iter().zip(&b).map(|(&m, &bb)| arena.sub(m, bb)).collect();
    let theta_dot: Vec<Expr> = (0..k)
        .map(|i| {
            let s = arena.dot(&adj[i], &diff);
            arena.mul2(s, inv_det)
        })
        .collect();
    let sub: Vec<(Expr, Expr)> = cyclic.iter().zip(&theta_dot).map(|(&c, &v)| (syms.qd[c], v)).collect();
    let l_sub = arena.subs(model.lagrangian, &sub);
    let mu_dot = arena.dot(&mu, &theta_dot);
    let routhian = arena.sub(l_sub, mu_dot);
    let force: Vec<Expr> = kept.iter().map(|&r| arena.subs(model.force[r], &sub)).collect();
    // Invariance was proved above (∂L/∂θ ≡ 0, forces free of θ), so every fixed section value of
    // the cyclic angles is exact; they may still appear structurally (e.g. through
    // sin²θ + cos²θ, which is not folded), and the reduced system has no symbol for them: evaluate
    // them at θ = 0.
    let section: Vec<(Expr, Expr)> = cyclic.iter().map(|&c| (syms.q[c], zero)).collect();
    let routhian = arena.subs(routhian, &section);
    let force: Vec<Expr> = force.iter().map(|&f| arena.subs(f, &section)).collect();
    let theta_dot: Vec<Expr> = theta_dot.iter().map(|&v| arena.subs(v, &section)).collect();
    // Degree split for docs.
    let vel_zero: Vec<(Expr, Expr)> = kept.iter().map(|&r| (syms.qd[r], zero)).collect();
    let amended = arena.subs(routhian, &vel_zero);
    let mut seeds_lin: Vec<(Expr, Expr)> = Vec::new();
    for &r in &kept {
        seeds_lin.push((syms.qd[r], syms.qd[r]));
    }
    let lin = arena.directional(routhian, &seeds_lin);
    let gyroscopic = arena.subs(lin, &vel_zero);

    let mut parameters = model.parameters.clone();
    parameters.extend(mu_names.iter().cloned());
    let mut params = syms.params.clone();
    params.extend(mu.iter().copied());
    let coordinates: Vec<Ident> = kept.iter().map(|&r| model.coordinates[r].clone()).collect();
    let pick = |v: &[Expr]| kept.iter().map(|&r| v[r]).collect::<Vec<Expr>>();
    let (q, qd, qdd) = (pick(&syms.q), pick(&syms.qd), pick(&syms.qdd));
    let rsyms = Layout::from_symbols(arena, &coordinates, syms.t, q, qd, qdd, params);
    let name = red.name.clone();
    let keyword = &red.keyword;
    let mut reduced = Model::assemble(name, None, coordinates, parameters, rsyms, routhian, quote::quote!(#keyword), force);
    reduced.requirements = model.requirements.clone();
    Ok(Reduced { model: reduced, cyclic, kept, cyclic_velocities: theta_dot, momenta, amended, gyroscopic })
}
