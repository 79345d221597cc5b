//! Non-abelian Routh reduction by the rotation group: `reduce(routh(r), name = T)` for an
//! orientation `r` whose rotations R ↦ g R (g ∈ SO(3), turning the whole body about a fixed
//! point of space) leave the model invariant (*Hybrid momentum maps*, §4 with Ex. 2; the
//! Lagrange–Routh equations of Marsden, Ratiu and Scheurle).
//!
//! The body angular velocity ω is left-invariant, so the momentum map of this action is the
//! spatial angular momentum μ = R Π with Π = ∂L/∂ω the body angular momentum. At a level μ the
//! reduced space is T(shape) × S²: the shape coordinates x with their rates, and Π = Rᵀμ on the
//! sphere |Π| = |μ| (R up to the rotations about μ, the isotropy group G_μ). With Π affine in ω,
//! Π = I(t, x) ω + c(t, x, ẋ) (I the locked inertia, invertible):
//!
//! ```text
//! ω(t, x, ẋ, Π) = I⁻¹ (Π − c)                        (adjugate over determinant)
//! R^μ(t, x, ẋ, Π) = [L − Π·ω] at ω = ω(t, x, ẋ, Π)   (the Routhian; = p_x·ẋ − E)
//! Π̇ = Π × ω                                          (μ = R Π conserved)
//! M_x ẍ = f_x − M_xω I⁻¹ f_ω                          (the shape rows with ω̇ eliminated)
//! ```
//!
//! The shape equations are the full model's shape rows with ω̇ eliminated through the ω rows,
//! evaluated at ω(t, x, ẋ, Π) — exactly d/dt ∂R/∂ẋ − ∂R/∂x = Q_x, the Routhian's Euler–Lagrange
//! equations with Π moving (M_x = ∂²R/∂ẋ², the Schur complement of I); R^μ = R₂ + R₁ − V_μ with
//! V_μ = V + ½ (Π − c₀)ᵀ I⁻¹ (Π − c₀) the amended potential.
//!
//! **What is proved** at compile time (zero tests, exact identities, never sampled states):
//! - the momentum balance: the full model's d/dt Π along its own equations equals Π × ω, i.e. the
//!   spatial angular momentum is conserved (this fails for a potential or force that depends on
//!   the attitude, or a torque on the body: the error shows the residual);
//! - invariance: the remaining equations (M_x, the right-hand side, ω) do not depend on the
//!   quaternion, so they may be evaluated on the section R = 1.
//!
//! The result is a [`FirstOrder`] reduced system (first order on (x, Π, ẋ), the
//! orientation dropped and reconstructed by q̇ = ½ q ⊗ (0, ω)), emitted by the same code, with the
//! Routhian, the amended potential and the spatial momentum map added.

use symbolic::{Arena, Expr};
use syn::Ident;

use super::first_order::{FirstOrder, FirstOrderJacobian, RouthTerms, Terms, by_degree, check_emitted, section_layout};
use crate::derive::euler_lagrange::Equations;
use crate::diagnostics::{Ctxt, error_at as err};
use crate::model::{Model, Reduction};

/// Derives the non-abelian Routh reduction `red` (by the orientation it names) of `model`; a
/// reduction that does not apply is reported into `cx`.
pub fn reduce(model: &Model, arena: &mut Arena, cx: &mut Ctxt, eq: &Equations, red: &Reduction) -> Option<FirstOrder> {
    cx.ok(reduced(model, arena, eq, red))
}

#[allow(clippy::too_many_lines)]
fn reduced(model: &Model, arena: &mut Arena, eq: &Equations, red: &Reduction) -> syn::Result<FirstOrder> {
    let kw = &red.keyword;
    let syms = &model.layout;
    let [(o, r)] = &red.dropped_orientations[..] else {
        return Err(err(kw, "a Routh reduction by rotations names one orientation: `routh(r)`"));
    };
    if let Some((_, c)) = red.cyclic.first() {
        return Err(err(
            c,
            format!(
                "a Routh reduction by the rotations of `{r}` reduces by them alone: drop `{c}` here, and reduce the cyclic \
                 coordinates in a model without orientation states"
            ),
        ));
    }
    if let Some(other) = syms.orientations.iter().enumerate().find(|(k, _)| k != o) {
        return Err(err(
            r,
            format!("the orientation `{}` would be kept: a reduced system keeps ordinary coordinates only for now", other.1.name),
        ));
    }
    if !model.constraints.is_empty() {
        return Err(err(kw, "Routh reduction of models with constraints is not supported (see the constraint's own error)"));
    }
    let or = &syms.orientations[*o];
    let (qs, vs) = (or.q_start, or.v_start);
    let n = model.dof();
    let np = syms.position_dim();
    // The shape: the ordinary coordinates (before the orientation in positions and velocities).
    let shape: Vec<usize> = (0..n).filter(|k| !(vs..vs + 3).contains(k)).collect();
    if shape.iter().any(|&k| k >= qs) {
        return Err(err(kw, "internal error: the orientation is not the last of the coordinates; please report this model"));
    }
    let omega: [Expr; 3] = std::array::from_fn(|i| syms.qd[vs + i]);
    let quaternion: [Expr; 4] = std::array::from_fn(|i| syms.q[qs + i]);
    let zero = arena.zero();
    let one = arena.one();

    // Π = ∂L/∂ω, affine in ω: Π = I ω + c, the balance of Π proved, I inverted.
    let body_momentum: [Expr; 3] = std::array::from_fn(|i| eq.momenta[vs + i]);
    let (adj, det) = locked_inertia(model, arena, eq, r, (vs, omega, body_momentum))?;
    // The reduced positions Π: symbols of their own.
    let idents = syms.coordinate_idents();
    let (pi_names, pi) = body_momentum_symbols(model, arena, r)?;
    // ω(t, x, ẋ, Π) = adj (Π − c) / det, c = Π at ω = 0.
    let at_rest: Vec<(Expr, Expr)> = omega.iter().map(|&w| (w, zero)).collect();
    let c: Vec<Expr> = body_momentum.iter().map(|&p| arena.subs(p, &at_rest)).collect();
    let inv_det = arena.powi(det, -1);
    let excess: Vec<Expr> = (0..3).map(|i| arena.sub(pi[i], c[i])).collect();
    let omega_of: Vec<Expr> = (0..3)
        .map(|i| {
            let s = arena.dot(&adj[i], &excess);
            arena.mul2(s, inv_det)
        })
        .collect();
    let along: Vec<(Expr, Expr)> = omega.iter().zip(&omega_of).map(|(&w, &e)| (w, e)).collect();

    // The shape rows with ω̇ eliminated.
    let ns = shape.len();
    let (mass, forcing) = shape_rows(arena, eq, (&shape, vs), (&adj, inv_det), &along);
    // The rates: ẋ, and Π̇ = Π × ω.
    let pi_rate = arena.cross(&pi, &[omega_of[0], omega_of[1], omega_of[2]]);
    let mut rates: Vec<Expr> = shape.iter().map(|&k| syms.qd[k]).collect();
    rates.extend(pi_rate);
    // The Routhian R = p_x·ẋ − E, the amended potential V_μ = −R at ẋ = 0, the energy.
    let xd: Vec<Expr> = shape.iter().map(|&k| syms.qd[k]).collect();
    let (routhian, amended, energy) = routhian(arena, eq, (&shape, &xd), &along);

    // Invariance: nothing kept depends on the quaternion.
    check_invariant(model, arena, r, (&omega_of, &mass, &forcing), &shape, (quaternion, qs))?;
    let energy_invariant = {
        let unheld = syms.unhold_norms(arena, &[energy])[0];
        quaternion.iter().all(|&qk| {
            let de = arena.diff(unheld, qk);
            arena.zero_test(de).is_zero()
        })
    };
    // On the section R = 1 (exact: nothing above depends on it).
    let section: Vec<(Expr, Expr)> = [(quaternion[0], one), (quaternion[1], zero), (quaternion[2], zero), (quaternion[3], zero)]
        .into_iter()
        .chain([(or.norm2, one)])
        .collect();
    let on = |arena: &mut Arena, e: Expr| arena.subs(e, &section);
    let rates: Vec<Expr> = rates.iter().map(|&e| on(arena, e)).collect();
    let mass: Vec<Vec<Expr>> = mass.iter().map(|row| row.iter().map(|&e| on(arena, e)).collect()).collect();
    let forcing: Vec<Expr> = forcing.iter().map(|&e| on(arena, e)).collect();
    let omega_on: Vec<Expr> = omega_of.iter().map(|&e| on(arena, e)).collect();
    let routhian = on(arena, routhian);
    let amended = on(arena, amended);
    let energy = energy_invariant.then(|| on(arena, energy));
    // The reconstruction: the full velocities (ẋ, ω) and the quaternion's rate ½ q ⊗ (0, ω).
    let mut full_velocities: Vec<Expr> = shape.iter().map(|&k| syms.qd[k]).collect();
    full_velocities.extend(omega_on.iter().copied());
    let omega_arr: [Expr; 3] = [omega_on[0], omega_on[1], omega_on[2]];
    let dropped_rates: Vec<Expr> = arena.quaternion_rate(&quaternion, &omega_arr).to_vec();
    // The spatial momentum μ = R(q) Π in the full model's symbols.
    let rotation = arena.quaternion_rotation(&quaternion, or.norm2);
    let spatial = arena.mat_vec(&rotation, &body_momentum);
    let momentum = syms.unhold_norms(arena, &spatial);

    // The reduced layout: positions (x, Π), velocities ẋ, the quaternion read from g.
    let dropped: Vec<usize> = (qs..qs + 4).collect();
    let kept: Vec<usize> = (0..np).filter(|i| !dropped.contains(i)).collect();
    let mut coordinates: Vec<Ident> = kept.iter().map(|&k| idents[k].clone()).collect();
    coordinates.extend(pi_names.iter().cloned());
    let mut q: Vec<Expr> = kept.iter().map(|&k| syms.q[k]).collect();
    q.extend(pi);
    let acc: Vec<Expr> = shape.iter().map(|&k| syms.qdd[k]).collect();
    let names = shape.iter().map(|&k| idents[k].clone()).collect();
    let dropped_names = dropped.iter().map(|&d| idents[d].clone()).collect();
    let layout = section_layout(arena, syms, (&coordinates, q), (xd.clone(), acc, names), &rates, (&dropped, dropped_names));
    let mut emitted: Vec<Expr> = rates.clone();
    emitted.extend(mass.iter().flatten().copied());
    emitted.extend(forcing.iter().copied());
    emitted.extend(full_velocities.iter().copied());
    emitted.extend(dropped_rates.iter().copied());
    emitted.extend([routhian, amended]);
    emitted.extend(energy);
    check_emitted(arena, &layout, &emitted, kw, &[])?;
    let mut reduce_positions: Vec<Expr> = kept.iter().map(|&k| syms.q[k]).collect();
    reduce_positions.extend(body_momentum);
    let state: Vec<Expr> = layout.q.iter().chain(&layout.qd).copied().collect();
    let jacobian = FirstOrderJacobian::derive(arena, &state, &rates, &mass, &forcing);
    let forcing_by_degree = forcing.iter().map(|&f| by_degree(arena, f, &xd)).collect();
    let tokens = quote::quote!(#kw);
    let mut reduced =
        Model::assemble(red.name.clone(), None, coordinates, model.parameters.clone(), layout, zero, tokens, vec![zero; ns]);
    reduced.requirements = model.requirements.clone();
    Ok(FirstOrder {
        kept_positions: None,
        model: reduced,
        dropped,
        kept,
        reduce_positions,
        velocities: xd,
        mass,
        forcing,
        energy,
        full_velocities,
        dropped_rates,
        terms: Terms::Rotations(RouthTerms { orientation: r.clone(), routhian, amended, momentum }),
        jacobian,
        forcing_by_degree,
        momenta: Vec::new(),
        unreduced_momenta: Vec::new(),
    })
}

/// The locked inertia I = ∂²L/∂ω² of the orientation `r` as its adjugate and determinant, once
/// proved that Π = ∂L/∂ω is affine in ω, that the full model's d/dt Π along its equations is Π × ω
/// (the spatial angular momentum conserved) and that I is regular.
fn locked_inertia(
    model: &Model,
    arena: &mut Arena,
    eq: &Equations,
    r: &Ident,
    (vs, omega, body_momentum): (usize, [Expr; 3], [Expr; 3]),
) -> syn::Result<(Vec<Vec<Expr>>, Expr)> {
    let syms = &model.layout;
    let show = |arena: &Arena, e: Expr| crate::notation::formula(&model.view(arena), e);
    let inertia: Vec<Vec<Expr>> = (0..3).map(|i| (0..3).map(|j| eq.mass[vs + i][vs + j]).collect()).collect();
    if inertia.iter().flatten().any(|&e| omega.iter().any(|&w| arena.depends_on(e, w))) {
        return Err(err(
            r,
            format!(
                "the body angular momentum ∂L/∂ω of `{r}` is not affine in ω (the Lagrangian is not quadratic in the angular \
                 velocity), so Π = ∂L/∂ω cannot be solved for ω in closed form"
            ),
        ));
    }
    // The momentum balance, in the full model: d/dt Π along its equations M v̇ = f is
    // f_ω + ∂Π/∂q·q̇ + ∂Π/∂t (the ω rows of M are ∂Π/∂v). It must be Π × ω.
    let transport = arena.total_derivative(&body_momentum, &syms.q, &syms.rates, Some(syms.t));
    let derived_rate: Vec<Expr> = (0..3).map(|i| arena.add(&[eq.forcing[vs + i], transport[i]])).collect();
    let euler = arena.cross(&body_momentum, &omega);
    let residual: Vec<Expr> = (0..3).map(|i| arena.sub(derived_rate[i], euler[i])).collect();
    let residual = syms.unhold_norms(arena, &residual);
    for (i, &e) in residual.iter().enumerate() {
        if !arena.zero_test(e).is_zero() {
            return Err(err(
                r,
                format!(
                    "the rotations of `{r}` are not a symmetry: the spatial angular momentum R ∂L/∂ω is not conserved, its body \
                     rate d/dt Π − Π × ω has component {} = {} ≢ 0 (a potential, force or torque that depends on the attitude, \
                     or a torque on the body); Routh reduction by SO(3) needs the whole model invariant under R ↦ g R — reduce \
                     it by `euler_poincare({r})` if only the equations in ω are wanted",
                    i + 1,
                    show(arena, e)
                ),
            ));
        }
    }
    let Some((adj, det)) = arena.adjugate(&inertia) else {
        return Err(err(r, "internal error: the locked inertia is not 3×3; please report this model"));
    };
    if arena.zero_test(det).is_zero() {
        return Err(err(
            r,
            format!(
                "the locked inertia ∂²L/∂ω² of `{r}` is singular (its determinant {} ≡ 0), so Π = ∂L/∂ω cannot be solved for ω",
                show(arena, det)
            ),
        ));
    }
    Ok((adj, det))
}

/// The shape rows with ω̇ eliminated, M_x = M_xx − M_xω I⁻¹ M_ωx and f_x − M_xω I⁻¹ f_ω (I⁻¹ as
/// `adj` / det), at ω = ω(t, x, ẋ, Π) (`along`).
fn shape_rows(
    arena: &mut Arena,
    eq: &Equations,
    (shape, vs): (&[usize], usize),
    (adj, inv_det): (&[Vec<Expr>], Expr),
    along: &[(Expr, Expr)],
) -> (Vec<Vec<Expr>>, Vec<Expr>) {
    let zero = arena.zero();
    let ns = shape.len();
    let m_xw: Vec<Vec<Expr>> = shape.iter().map(|&a| (0..3).map(|j| eq.mass[a][vs + j]).collect()).collect();
    let solve = |arena: &mut Arena, b: &[Expr]| -> Vec<Expr> {
        (0..3)
            .map(|i| {
                let s = arena.dot(&adj[i], b);
                arena.mul2(s, inv_det)
            })
            .collect()
    };
    let f_w: Vec<Expr> = (0..3).map(|j| eq.forcing[vs + j]).collect();
    let i_inv_fw = solve(arena, &f_w);
    let mut mass = vec![vec![zero; ns]; ns];
    let mut forcing = vec![zero; ns];
    for (i, &a) in shape.iter().enumerate() {
        let coupling = arena.dot(&m_xw[i], &i_inv_fw);
        let fi = arena.sub(eq.forcing[a], coupling);
        forcing[i] = arena.subs(fi, along);
        for (j, &b) in shape.iter().enumerate().skip(i) {
            let col: Vec<Expr> = (0..3).map(|k| eq.mass[vs + k][b]).collect();
            let i_inv_col = solve(arena, &col);
            let coupling = arena.dot(&m_xw[i], &i_inv_col);
            let e = arena.sub(eq.mass[a][b], coupling);
            mass[i][j] = arena.subs(e, along);
            mass[j][i] = mass[i][j];
        }
    }
    (mass, forcing)
}

/// Proves that ω(t, x, ẋ, Π) and the shape rows do not depend on the quaternion (|q|² as the
/// sum of squares): otherwise the rotations of `r` are not a symmetry, a compile error showing
/// the derivative.
fn check_invariant(
    model: &Model,
    arena: &mut Arena,
    r: &Ident,
    (omega_of, mass, forcing): (&[Expr], &[Vec<Expr>], &[Expr]),
    shape: &[usize],
    (quaternion, qs): ([Expr; 4], usize),
) -> syn::Result<()> {
    let syms = &model.layout;
    let idents = syms.coordinate_idents();
    let ns = shape.len();
    let show = |arena: &Arena, e: Expr| crate::notation::formula(&model.view(arena), e);
    let mut checked: Vec<(String, Expr)> = Vec::new();
    for (k, &w) in omega_of.iter().enumerate() {
        checked.push((format!("ω{} = I⁻¹(Π − c)", k + 1), w));
    }
    let snames: Vec<String> = shape.iter().map(|&k| idents[k].to_string()).collect();
    for i in 0..ns {
        for j in i..ns {
            checked.push((format!("the reduced mass entry ({}, {})", snames[i], snames[j]), mass[i][j]));
        }
        checked.push((format!("the reduced force along {}", snames[i]), forcing[i]));
    }
    let unheld = syms.unhold_norms(arena, &checked.iter().map(|(_, e)| *e).collect::<Vec<_>>());
    for (k, &qk) in quaternion.iter().enumerate() {
        for ((what, _), &e) in checked.iter().zip(&unheld) {
            let de = arena.diff(e, qk);
            if !arena.zero_test(de).is_zero() {
                return Err(err(
                    r,
                    format!(
                        "the rotations of `{r}` are not a symmetry: {what} depends on the attitude, ∂/∂{} = {} ≢ 0",
                        idents[qs + k],
                        show(arena, de)
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// The reduced positions Π of the orientation `r`: their names (`r_pi1`, …, which must not be
/// taken) and new symbols.
fn body_momentum_symbols(model: &Model, arena: &mut Arena, r: &Ident) -> syn::Result<(Vec<Ident>, [Expr; 3])> {
    let idents = model.layout.coordinate_idents();
    let pi_names: Vec<Ident> = (1..=3usize).map(|k| quote::format_ident!("{}_pi{}", r, k, span = r.span())).collect();
    for p in &pi_names {
        if idents.iter().any(|c| c == p) || model.parameters.iter().any(|c| c == p) {
            return Err(err(r, format!("the reduced state's body momentum `{p}` has the name of a coordinate or parameter")));
        }
    }
    let pi: [Expr; 3] = std::array::from_fn(|i| arena.symbol(&format!("q:{}", pi_names[i])));
    Ok((pi_names, pi))
}

/// The Routhian R = p_x·ẋ − E over the shape velocities `xd`, the amended potential V_μ = −R at
/// ẋ = 0 and the energy, at ω = ω(t, x, ẋ, Π) (`along`).
fn routhian(arena: &mut Arena, eq: &Equations, (shape, xd): (&[usize], &[Expr]), along: &[(Expr, Expr)]) -> (Expr, Expr, Expr) {
    let zero = arena.zero();
    let px: Vec<Expr> = shape.iter().map(|&k| eq.momenta[k]).collect();
    let pxx = arena.dot(&px, xd);
    let routhian = arena.sub(pxx, eq.energy);
    let routhian = arena.subs(routhian, along);
    let energy = arena.subs(eq.energy, along);
    let still: Vec<(Expr, Expr)> = xd.iter().map(|&v| (v, zero)).collect();
    let at = arena.subs(routhian, &still);
    (routhian, arena.neg(at), energy)
}
