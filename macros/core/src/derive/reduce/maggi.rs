//! FirstOrder reduction (Maggi's equations on a section): a constrained model written in
//! velocities u that parametrise its constraint distribution, with the coordinates its equations
//! do not depend on dropped (*Affine constraints reduction*, §2.5 "practical equivalent" and §3.4;
//! Chaplygin reduction when the dropped coordinates are a symmetry group's).
//!
//! The user names the reduced velocities u: a coordinate's rate, or an expression a(t, q)·q̇ +
//! b(t, q). With the constraint rows A q̇ + b = 0 they determine the motion:
//!
//! ```text
//! q̇ = S(t, q) u + s(t, q)        (the named rates directly; the other rates by solving the
//!                                  square system of the velocity definitions and constraints)
//! Sᵀ M S u̇ = Sᵀ (f − M a₀),     a₀ = d/dt (S u + s) at fixed u
//! ```
//!
//! (M q̈ = f the unconstrained equations, f with the forces). Projecting onto the columns of S,
//! which span the constraint distribution, removes the multipliers; these are Maggi's equations,
//! exactly the Lagrange–d'Alembert equations of the constrained model.
//!
//! **Dropping coordinates.** A coordinate g may be dropped when nothing of the reduced system
//! depends on it: the remaining rates ṙ, Sᵀ M S and Sᵀ(f − M a₀) are proved free of g (zero tests
//! of their derivatives, exact identities, never sampled states); otherwise the reduction is a
//! compile error showing the derivative. The reduced system on (r, u) is then evaluated on the
//! section g = 0, and g follows by quadrature of its rate ġ = (S u + s)_g, which may depend on g
//! itself (non-abelian groups: the sleigh's heading turns its velocity). For a symmetry group
//! acting by translation of cyclic coordinates this is Chaplygin's (or, with affine constraints,
//! the digest's affine) reduction; for the sleigh, whose body-frame velocities make the whole of
//! SE(2) droppable, it gives the Euler–Poincaré–Suslov system in (v, ω).

use symbolic::{Arena, Expr};
use syn::Ident;

use super::first_order::{
    Chaplygin, FirstOrder, FirstOrderJacobian, ReducedMomentum, SecondChart, Terms, by_degree, check_emitted, section_layout,
};
use crate::derive::euler_lagrange::Equations;
use crate::derive::symmetry::SymmetryEquations;
use crate::diagnostics::{Ctxt, error_at as err};
use crate::model::{Model, Reduction};

/// Derives the nonholonomic reduction `red` of `model` in its arena; a reduction that does not
/// apply is reported into `cx`.
pub fn reduce(
    model: &Model,
    arena: &mut Arena,
    cx: &mut Ctxt,
    eq: &Equations,
    red: &Reduction,
    symmetries: &[SymmetryEquations],
) -> Option<FirstOrder> {
    cx.ok(reduced(model, arena, eq, red, symmetries))
}

fn reduced(
    model: &Model,
    arena: &mut Arena,
    eq: &Equations,
    red: &Reduction,
    symmetries: &[SymmetryEquations],
) -> syn::Result<FirstOrder> {
    let kw = &red.keyword;
    let velocities = red.velocities.as_deref().unwrap_or_default();
    let syms = &model.layout;
    check_applies(model, red)?;
    let nu = velocities.len();
    let dropped = Dropped::of(model, red);
    // Shape coordinates of the user's: the quotient map proved first, the equations then pulled
    // into its chart (s, g).
    let chart = red.quotient.as_ref().map(|qm| super::quotient::derive(model, arena, qm, &dropped.positions)).transpose()?;
    let zero = arena.zero();
    // The velocity symbols u: one of the model's velocities, or a new symbol.
    let u: Vec<Expr> =
        velocities.iter().map(|v| v.rate_of.map_or_else(|| arena.symbol(&format!("v:{}", v.name)), |k| syms.qd[k])).collect();
    let vel = solve_velocities(model, arena, red, &u)?;
    let mut maggi = Maggi::project(model, arena, eq, red, (&u, vel), symmetries)?;
    let (coordinates, q, rates) = maggi.reduced_positions(model, arena, (chart.as_ref(), red), &dropped.kept);
    // The reduced system must not depend on the dropped positions.
    let invariance = check_droppable(model, arena, red, &dropped, (&coordinates, &rates), &maggi)?;
    let energy_invariant = invariance.free(model, arena, &dropped.positions, maggi.energy);
    if red.advected.is_some() {
        maggi.momenta.clear();
    }
    let mut unreduced_momenta = Vec::new();
    maggi.momenta.retain(|(i, j, moving)| {
        let keep = invariance.free(model, arena, &dropped.positions, *j)
            && moving.is_none_or(|e| invariance.free(model, arena, &dropped.positions, e));
        if !keep {
            unreduced_momenta.push(symmetries[*i].name.clone());
        }
        keep
    });
    let section = section(model, arena, red);
    // Euler–Poisson: Γ = Rᵀa joins the positions, Γ̇ = Γ × ω, and the attitude is a section
    // q(Γ) in two charts of the sphere (the second where Γ₃ < 0).
    let (mut coordinates, mut q, mut rates) = (coordinates, q, rates);
    let charts = red.advected.as_ref().map(|a| euler_poisson(model, arena, a, (&mut coordinates, &mut q, &mut rates)));
    let Maggi { mass, forcing, energy, momenta, vel, position_rates, along } = maggi;
    let rates: Vec<Expr> = rates.iter().map(|&e| arena.subs(e, &section)).collect();
    let mred: Vec<Vec<Expr>> = mass.iter().map(|row| row.iter().map(|&e| arena.subs(e, &section)).collect()).collect();
    let fred: Vec<Expr> = forcing.iter().map(|&e| arena.subs(e, &section)).collect();
    let energy = energy_invariant.then(|| arena.subs(energy, &section));
    let momenta: Vec<(usize, Expr, Option<Expr>)> =
        momenta.into_iter().map(|(i, j, moving)| (i, arena.subs(j, &section), moving.map(|e| arena.subs(e, &section)))).collect();
    // The reconstruction, read with the dropped positions (|q|² as the sum of their squares).
    let full_velocities = syms.unhold_norms(arena, &vel);
    let dropped_rates: Vec<Expr> = {
        let r: Vec<Expr> = dropped.positions.iter().map(|&d| position_rates[d]).collect();
        syms.unhold_norms(arena, &r)
    };

    // The reduced layout: kept (or shape) coordinates, velocities u, dropped positions read from g.
    let acc: Vec<Expr> = velocities.iter().map(|v| arena.symbol(&format!("a:{}", v.name))).collect();
    let names = velocities.iter().map(|v| v.name.clone()).collect();
    let layout = section_layout(
        arena,
        syms,
        (&coordinates, q),
        (u.clone(), acc, names),
        &rates,
        (&dropped.positions, dropped.names.clone()),
    );
    let mut emitted: Vec<Expr> = rates.clone();
    emitted.extend(mred.iter().flatten().copied());
    emitted.extend(fred.iter().copied());
    emitted.extend(full_velocities.iter().copied());
    emitted.extend(dropped_rates.iter().copied());
    emitted.extend(energy);
    emitted.extend(momenta.iter().flat_map(|(_, j, moving)| std::iter::once(*j).chain(*moving)));
    let kept_positions = red.quotient.as_ref().map(|qm| qm.inverse.iter().map(|(_, _, e)| *e).collect::<Vec<_>>());
    emitted.extend(kept_positions.iter().flatten().copied());
    // (Euler–Poisson: the quaternion and |q|² are bound in each chart.)
    let bound: Vec<Expr> = charts.as_ref().map_or_else(Vec::new, |(maps, _)| maps[0].iter().map(|(s, _)| *s).collect());
    check_emitted(arena, &layout, &emitted, kw, &bound)?;
    let state: Vec<Expr> = layout.q.iter().chain(&layout.qd).copied().collect();
    let jacobian = match &charts {
        Some((maps, _)) => FirstOrderJacobian::derive_bound(arena, &state, &rates, &mred, &fred, &maps[0]),
        None => FirstOrderJacobian::derive(arena, &state, &rates, &mred, &fred),
    };
    let reduce_positions = reduce_positions(model, arena, red, &dropped.kept);
    let (charts, switch) = charts.map_or((None, 0), |(maps, switch)| (Some(maps), switch));
    let second_chart = match (charts, red.advected.as_ref()) {
        (Some([first, second]), Some(a)) => {
            let jacobian = FirstOrderJacobian::derive_bound(arena, &state, &rates, &mred, &fred, &second);
            Some(SecondChart { switch, bindings: [first, second], jacobian, symmetry: a.name.clone(), axis: a.axis })
        }
        _ => None,
    };
    let forcing_by_degree = fred.iter().map(|&f| by_degree(arena, f, &u)).collect();
    let chaplygin = chaplygin_form(model, arena, (eq, red), &dropped, (&u, &along, &section), &dropped_rates);
    let momenta = momenta
        .into_iter()
        .map(|(i, value, moving)| {
            let se = &symmetries[i];
            ReducedMomentum {
                name: se.name.clone(),
                value,
                time_derivative: arena.diff(value, syms.t),
                gradient: state.iter().map(|&x| arena.diff(value, x)).collect(),
                conserved: se.conserved,
                horizontal: se.constraint_action.iter().all(|&e| arena.zero_test(e).is_zero()),
                moving_energy: moving.zip(se.moving_energy.map(|(c, _)| c)),
            }
        })
        .collect();
    let tokens = quote::quote!(#kw);
    let mut reduced =
        Model::assemble(red.name.clone(), None, coordinates, model.parameters.clone(), layout, zero, tokens, vec![zero; nu]);
    reduced.requirements = model.requirements.clone();
    Ok(FirstOrder {
        model: reduced,
        dropped: dropped.positions,
        reduce_positions,
        kept_positions,
        kept: dropped.kept,
        velocities: velocities.iter().map(|v| v.value).collect(),
        mass: mred,
        forcing: fred,
        energy,
        full_velocities,
        dropped_rates,
        jacobian,
        forcing_by_degree,
        momenta,
        unreduced_momenta,
        terms: Terms::Maggi { chaplygin, second_chart: second_chart.map(Box::new) },
    })
}

/// What a reduction of `model` cannot do yet, or a velocity count that leaves it undetermined.
fn check_applies(model: &Model, red: &Reduction) -> syn::Result<()> {
    let kw = &red.keyword;
    let syms = &model.layout;
    if model.discretization.is_some() {
        return Err(err(kw, "this reduction of a discrete (variational) model is not supported yet"));
    }
    if let Some(c) = model.constraints.iter().find(|c| c.position.is_some()) {
        let mut e = err(
            kw,
            format!(
                "nonholonomic reduction of models with holonomic constraints is not supported yet (`{}`); write the model in \
                 coordinates that solve it",
                c.name
            ),
        );
        e.combine(err(&c.name, "the holonomic constraint is declared here"));
        return Err(e);
    }
    if let Some(o) = syms.orientations.iter().enumerate().find(|(k, _)| !red.dropped_orientations.iter().any(|(d, _)| d == k)) {
        return Err(err(
            kw,
            format!(
                "the orientation `{}` is kept: a reduction keeps ordinary coordinates only for now; drop it (list it among the \
                 dropped coordinates) if the reduced equations do not depend on it",
                o.1.name
            ),
        ));
    }
    let (n, m, nu) = (model.dof(), model.constraints.len(), red.velocities.as_deref().unwrap_or_default().len());
    if nu + m != n {
        return Err(err(
            kw,
            format!(
                "the {m} constraint row(s) leave {} velocities free among the {n}, and the reduction names {nu}: name one \
                 velocity per free direction",
                n.saturating_sub(m)
            ),
        ));
    }
    Ok(())
}

/// The full model's positions a reduction drops — its dropped ordinary coordinates and every
/// component of a dropped orientation — with their names, and the positions it keeps.
struct Dropped {
    positions: Vec<usize>,
    names: Vec<Ident>,
    kept: Vec<usize>,
}

impl Dropped {
    fn of(model: &Model, red: &Reduction) -> Dropped {
        let syms = &model.layout;
        let mut positions: Vec<usize> = red.cyclic.iter().map(|(i, _)| *i).collect();
        let mut names: Vec<Ident> = red.cyclic.iter().map(|(_, id)| id.clone()).collect();
        let idents = syms.coordinate_idents();
        for (o, _) in &red.dropped_orientations {
            let start = syms.orientations[*o].q_start;
            positions.extend(start..start + 4);
            names.extend(idents[start..start + 4].iter().cloned());
        }
        let kept = (0..syms.position_dim()).filter(|i| !positions.contains(i)).collect();
        Dropped { positions, names, kept }
    }
}

/// The full model's velocities v = S(t, q) u + s(t, q) in the reduced velocities `u`: the named
/// rates directly, the others by solving the square system of the velocity definitions and the
/// constraints (by its adjugate; a compile error where it is larger than 3 or singular).
fn solve_velocities(model: &Model, arena: &mut Arena, red: &Reduction, u: &[Expr]) -> syn::Result<Vec<Expr>> {
    let kw = &red.keyword;
    let velocities = red.velocities.as_deref().unwrap_or_default();
    let syms = &model.layout;
    let n = model.dof();
    let zero = arena.zero();
    let bare: Vec<Option<usize>> = (0..n).map(|k| velocities.iter().position(|v| v.rate_of == Some(k))).collect();
    let unknowns: Vec<usize> = (0..n).filter(|&k| bare[k].is_none()).collect();
    // Rows Σ a_k v_k = rhs over the velocities: each velocity definition, then each constraint.
    let mut rows: Vec<(Vec<Expr>, Expr)> = Vec::new();
    let at_rest = syms.at_rest(arena);
    for (v, &uj) in velocities.iter().zip(u) {
        if v.rate_of.is_some() {
            continue;
        }
        let a: Vec<Expr> = syms.qd.iter().map(|&s| arena.diff(v.value, s)).collect();
        let b = arena.subs(v.value, &at_rest);
        let rhs = arena.sub(uj, b);
        rows.push((a, rhs));
    }
    for c in &model.constraints {
        // b is free of the velocities in value, not always in form (a velocity row keeps w − a·v).
        let b = arena.subs(c.b, &at_rest);
        let rhs = arena.neg(b);
        rows.push((c.a.clone(), rhs));
    }
    // Move the named velocities to the right-hand side.
    let mut z: Vec<Vec<Expr>> = Vec::new();
    let mut rhs: Vec<Expr> = Vec::new();
    for (a, r) in &rows {
        let mut terms = vec![*r];
        for k in 0..n {
            if let Some(j) = bare[k] {
                let t = arena.mul2(a[k], u[j]);
                terms.push(arena.neg(t));
            }
        }
        rhs.push(arena.add(&terms));
        z.push(unknowns.iter().map(|&k| a[k]).collect());
    }
    let mut vel: Vec<Expr> = (0..n).map(|k| bare[k].map_or(zero, |j| u[j])).collect();
    if unknowns.is_empty() {
        return Ok(vel);
    }
    let view = model.view(arena);
    let names: Vec<String> = unknowns.iter().map(|&k| crate::notation::velocity_name(&view, k)).collect();
    let Some((adj, det)) = arena.adjugate(&z) else {
        return Err(err(
            kw,
            format!(
                "{} velocities are left to solve for ({}); at most 3 are supported: name more of the model's own velocities \
                 in `velocities(...)`",
                unknowns.len(),
                names.join(", ")
            ),
        ));
    };
    if arena.zero_test(det).is_zero() {
        let shown = if det == zero { String::new() } else { format!(" ({})", crate::notation::formula(&model.view(arena), det)) };
        return Err(err(
            kw,
            format!(
                "the velocities and the constraints do not determine ({}): the determinant of their rows over these rates is \
                 identically zero{shown}; name velocities independent of each other and of the constraints",
                names.join(", "),
            ),
        ));
    }
    let inv_det = arena.powi(det, -1);
    for (i, &k) in unknowns.iter().enumerate() {
        let s = arena.dot(&adj[i], &rhs);
        vel[k] = arena.mul2(s, inv_det);
    }
    Ok(vel)
}

/// Maggi's equations Sᵀ M S u̇ = Sᵀ (f − M a₀) over the velocities v = S u + s, with the energy
/// and the momentum maps along the distribution, before the dropped positions are removed.
struct Maggi {
    mass: Vec<Vec<Expr>>,
    forcing: Vec<Expr>,
    energy: Expr,
    /// Each symmetry's index, J = ⟨p, ξ⟩ and its moving energy E − c J.
    momenta: Vec<(usize, Expr, Option<Expr>)>,
    /// v = S u + s, and the positions' rates along it.
    vel: Vec<Expr>,
    position_rates: Vec<Expr>,
    /// Each velocity symbol with its value in u.
    along: Vec<(Expr, Expr)>,
}

impl Maggi {
    /// Projects `eq` onto the columns of S = ∂v/∂u (a quotient map's constraints proved invariant
    /// first).
    fn project(
        model: &Model,
        arena: &mut Arena,
        eq: &Equations,
        red: &Reduction,
        (u, vel): (&[Expr], Vec<Expr>),
        symmetries: &[SymmetryEquations],
    ) -> syn::Result<Maggi> {
        let syms = &model.layout;
        let (n, nu) = (model.dof(), u.len());
        let zero = arena.zero();
        let s: Vec<Vec<Expr>> = vel.iter().map(|&e| u.iter().map(|&uj| arena.diff(e, uj)).collect()).collect();
        let along: Vec<(Expr, Expr)> = syms.qd.iter().zip(&vel).map(|(&v, &e)| (v, e)).collect();
        if let Some(qm) = &red.quotient {
            super::quotient::check_constraints(model, arena, qm, &along)?;
        }
        let position_rates: Vec<Expr> = syms.rates.iter().map(|&r| arena.subs(r, &along)).collect();
        let a0 = arena.total_derivative(&vel, &syms.q, &position_rates, Some(syms.t));
        let f: Vec<Expr> = eq.forcing.iter().map(|&e| arena.subs(e, &along)).collect();
        let mass: Vec<Vec<Expr>> = eq.mass.iter().map(|row| row.iter().map(|&e| arena.subs(e, &along)).collect()).collect();
        let g: Vec<Expr> = (0..n)
            .map(|k| {
                let ma = arena.dot(&mass[k], &a0);
                arena.sub(f[k], ma)
            })
            .collect();
        // (M S)[k][j].
        let mut ms = vec![vec![zero; nu]; n];
        for k in 0..n {
            for j in 0..nu {
                let col: Vec<Expr> = (0..n).map(|l| s[l][j]).collect();
                ms[k][j] = arena.dot(&mass[k], &col);
            }
        }
        let mut mred = vec![vec![zero; nu]; nu];
        for i in 0..nu {
            for j in i..nu {
                let terms: Vec<Expr> = (0..n).map(|k| arena.mul2(s[k][i], ms[k][j])).collect();
                mred[i][j] = arena.add(&terms);
                mred[j][i] = mred[i][j];
            }
        }
        let fred: Vec<Expr> = (0..nu)
            .map(|i| {
                let col: Vec<Expr> = (0..n).map(|k| s[k][i]).collect();
                arena.dot(&col, &g)
            })
            .collect();
        let energy = arena.subs(eq.energy, &along);
        // The momentum maps J = ⟨p, ξ⟩ and moving energies E − c J along the distribution.
        let momenta = symmetries
            .iter()
            .enumerate()
            .map(|(i, se)| {
                let moving = se.moving_energy.map(|(_, e)| arena.subs(e, &along));
                (i, arena.subs(se.momentum, &along), moving)
            })
            .collect();
        Ok(Maggi { mass: mred, forcing: fred, energy, momenta, vel, position_rates, along })
    }

    /// The reduced positions — the kept coordinates, or the shape coordinates of a quotient
    /// map's chart (the equations pulled into it) — their symbols and their rates.
    fn reduced_positions(
        &mut self,
        model: &Model,
        arena: &mut Arena,
        (chart, red): (Option<&super::quotient::Chart>, &Reduction),
        kept: &[usize],
    ) -> (Vec<Ident>, Vec<Expr>, Vec<Expr>) {
        let syms = &model.layout;
        if let (Some(chart), Some(qm)) = (chart, &red.quotient) {
            let rates = chart.shape_rates(arena, &self.position_rates);
            let pull = |arena: &mut Arena, es: &[Expr]| -> Vec<Expr> { es.iter().map(|&e| chart.pull(arena, e)).collect() };
            self.mass = self.mass.iter().map(|row| pull(arena, row)).collect();
            self.forcing = pull(arena, &self.forcing);
            self.energy = chart.pull(arena, self.energy);
            for (_, j, moving) in &mut self.momenta {
                *j = chart.pull(arena, *j);
                *moving = moving.map(|e| chart.pull(arena, e));
            }
            self.vel = pull(arena, &self.vel);
            self.position_rates = pull(arena, &self.position_rates);
            return (qm.names.clone(), qm.symbols.clone(), rates);
        }
        let idents = syms.coordinate_idents();
        (
            kept.iter().map(|&k| idents[k].clone()).collect(),
            kept.iter().map(|&k| syms.q[k]).collect(),
            kept.iter().map(|&k| self.position_rates[k]).collect(),
        )
    }
}

/// How the dropped positions may enter what a reduction keeps: not at all, but for an advected
/// orientation's quaternion (Euler–Poisson), which may enter through Γ = Rᵀa, the equations being
/// invariant under the rotations about a (`lift`: the symmetry's generator on the positions).
struct Invariance {
    lift: Option<Vec<(Expr, Expr)>>,
    advected: std::ops::Range<usize>,
}

impl Invariance {
    /// Whether `e` is free of the dropped positions (an orientation's held |q|² as its sum of
    /// squares, so that only the rotation itself is tested).
    fn free(&self, model: &Model, arena: &mut Arena, dropped: &[usize], e: Expr) -> bool {
        let syms = &model.layout;
        let unheld = syms.unhold_norms(arena, &[e])[0];
        let invariant = self.lift.as_ref().is_none_or(|lift| {
            let de = arena.directional(unheld, lift);
            arena.zero_test(de).is_zero()
        });
        invariant
            && dropped.iter().filter(|d| !self.advected.contains(d)).all(|&d| {
                let de = arena.diff(unheld, syms.q[d]);
                arena.zero_test(de).is_zero()
            })
    }
}

/// Proves that the reduced rates, M and f do not depend on the dropped positions (zero tests of
/// their derivatives; along the rotations about a for Euler–Poisson): otherwise a compile error
/// on the coordinate (or the symmetry) showing the derivative.
fn check_droppable(
    model: &Model,
    arena: &mut Arena,
    red: &Reduction,
    dropped: &Dropped,
    (coordinates, rates): (&[Ident], &[Expr]),
    maggi: &Maggi,
) -> syn::Result<Invariance> {
    let kw = &red.keyword;
    let syms = &model.layout;
    let velocities = red.velocities.as_deref().unwrap_or_default();
    let nu = velocities.len();
    let idents = syms.coordinate_idents();
    let show = |arena: &Arena, e: Expr| crate::notation::formula(&model.view(arena), e);
    let mut checked: Vec<(String, Expr)> = Vec::new();
    for (c, &e) in coordinates.iter().zip(rates) {
        checked.push((format!("the rate dot({c})"), e));
    }
    let vnames: Vec<String> = velocities.iter().map(|v| v.name.to_string()).collect();
    for i in 0..nu {
        for j in i..nu {
            checked.push((format!("the reduced mass entry ({}, {})", vnames[i], vnames[j]), maggi.mass[i][j]));
        }
        checked.push((format!("the reduced force along {}", vnames[i]), maggi.forcing[i]));
    }
    let unheld = syms.unhold_norms(arena, &checked.iter().map(|(_, e)| *e).collect::<Vec<_>>());
    let blame = |k: usize| -> &Ident {
        red.cyclic.iter().find(|(i, _)| *i == k).map(|(_, id)| id).unwrap_or_else(|| {
            let o = syms.orientations.iter().position(|o| (o.q_start..o.q_start + 4).contains(&k)).unwrap_or(0);
            red.dropped_orientations.iter().find(|(i, _)| *i == o).map_or(kw, |(_, id)| id)
        })
    };
    // Euler–Poisson: the advected orientation's quaternion may enter, through Γ = Rᵀa only — the
    // equations are proved invariant under the rotations about a (the symmetry's generator).
    let advected = red.advected.as_ref();
    if advected.is_some() && !model.impacts.is_empty() {
        return Err(err(kw, "this reduction by the rotations about one axis is not supported with impacts yet"));
    }
    let advected_range = advected.map_or(0..0, |a| {
        let o = &syms.orientations[a.orientation];
        o.q_start..o.q_start + 4
    });
    // The symmetry's generator on the positions, along which the equations must not change.
    let lift: Option<Vec<(Expr, Expr)>> =
        advected.map(|a| syms.q.iter().zip(&model.symmetries[a.symmetry].generator).map(|(&q, &x)| (q, x)).collect());
    if let (Some(a), Some(lift)) = (advected, &lift) {
        for ((what, _), &e) in checked.iter().zip(&unheld) {
            let de = arena.directional(e, lift);
            if !arena.zero_test(de).is_zero() {
                return Err(err(
                    &a.name,
                    format!(
                        "the reduction by `{}` needs the equations invariant under its rotations, but {what} changes along \
                         them: {} ≢ 0 (a force or a constraint that turns with the body)",
                        a.name,
                        show(arena, de)
                    ),
                ));
            }
        }
    }
    for &d in dropped.positions.iter().filter(|d| !advected_range.contains(d)) {
        let id = blame(d);
        for ((what, _), &e) in checked.iter().zip(&unheld) {
            let de = arena.diff(e, syms.q[d]);
            if !arena.zero_test(de).is_zero() {
                let wrt = &idents[d];
                let hint = if red.cyclic.iter().any(|(i, _)| *i == d) {
                    format!(
                        "keep `{id}` among the reduced coordinates, or choose velocities in which the equations do not see it"
                    )
                } else {
                    "the attitude enters the equations (a potential, a force or a constraint that is not invariant under \
                     every rotation of the body), so the orientation cannot be dropped"
                        .to_string()
                };
                return Err(err(
                    id,
                    format!("`{id}` cannot be dropped: {what} depends on it, ∂/∂{wrt} = {} ≢ 0; {hint}", show(arena, de)),
                ));
            }
        }
    }
    Ok(Invariance { lift, advected: advected_range })
}

/// The section the reduced equations are evaluated on: dropped coordinates 0, dropped orientations
/// the identity (exact: nothing there depends on them), but for an advected one (Euler–Poisson's
/// charts bind it).
fn section(model: &Model, arena: &mut Arena, red: &Reduction) -> Vec<(Expr, Expr)> {
    let syms = &model.layout;
    let (zero, one) = (arena.zero(), arena.one());
    let advected = red.advected.as_ref();
    let mut section: Vec<(Expr, Expr)> = red.cyclic.iter().map(|(d, _)| (syms.q[*d], zero)).collect();
    for (o, _) in red.dropped_orientations.iter().filter(|(o, _)| advected.is_none_or(|a| a.orientation != *o)) {
        let or = &syms.orientations[*o];
        section.push((syms.q[or.q_start], one));
        section.extend((1..4).map(|i| (syms.q[or.q_start + i], zero)));
        section.push((or.norm2, one));
    }
    section
}

/// Euler–Poisson: Γ = Rᵀa joins the reduced positions (`coordinates`, `q`) with its rate
/// Γ̇ = Γ × ω (into `rates`); returns the attitude's section q(Γ) in its two charts and the state
/// component (Γ₃) that switches between them.
fn euler_poisson(
    model: &Model,
    arena: &mut Arena,
    a: &crate::model::Advected,
    (coordinates, q, rates): (&mut Vec<Ident>, &mut Vec<Expr>, &mut Vec<Expr>),
) -> ([Vec<(Expr, Expr)>; 2], usize) {
    let or = &model.layout.orientations[a.orientation];
    let gamma: [Expr; 3] = std::array::from_fn(|i| arena.symbol(&format!("q:{}_gamma{}", or.name, i + 1)));
    let omega: [Expr; 3] = std::array::from_fn(|i| model.layout.qd[or.v_start + i]);
    coordinates.extend((1..=3usize).map(|i| quote::format_ident!("{}_gamma{}", or.name, i, span = or.name.span())));
    q.extend(gamma);
    rates.extend(arena.cross(&gamma, &omega));
    let quaternion: [Expr; 4] = std::array::from_fn(|i| model.layout.q[or.q_start + i]);
    let maps = [1, 2].map(|chart| advected_section(arena, (quaternion, or.norm2), &gamma, a.axis, chart));
    (maps, q.len() - 1)
}

/// The reduced positions as functions of the full state: the kept positions (or the quotient
/// map σ), then Euler–Poisson's Γ = Rᵀ(±e_k) = ±(row k of R).
fn reduce_positions(model: &Model, arena: &mut Arena, red: &Reduction, kept: &[usize]) -> Vec<Expr> {
    let syms = &model.layout;
    let mut positions: Vec<Expr> =
        red.quotient.as_ref().map_or_else(|| kept.iter().map(|&k| syms.q[k]).collect(), |qm| qm.values.clone());
    if let Some(a) = &red.advected {
        let or = &syms.orientations[a.orientation];
        let quaternion: [Expr; 4] = std::array::from_fn(|i| syms.q[or.q_start + i]);
        let r = arena.quaternion_rotation(&quaternion, or.norm2);
        let (k, sign) = a.axis;
        positions.extend(r[k].iter().map(|&e| if sign > 0 { e } else { arena.neg(e) }).collect::<Vec<_>>());
    }
    positions
}

/// Each symbol with the expression it stands for.
type Substitution = [(Expr, Expr)];

/// Chaplygin's form where it applies (see [`Chaplygin`]): cyclic dropped coordinates of an
/// abelian group acting by translation (ġ free of g), no quotient map or dropped orientation, and
/// the velocities the kept coordinates' own rates.
fn chaplygin_form(
    model: &Model,
    arena: &mut Arena,
    (eq, red): (&Equations, &Reduction),
    dropped: &Dropped,
    (u, along, section): (&[Expr], &Substitution, &Substitution),
    dropped_rates: &[Expr],
) -> Option<Chaplygin> {
    let syms = &model.layout;
    let velocities = red.velocities.as_deref().unwrap_or_default();
    let kept = &dropped.kept;
    let shape_rates = velocities.len() == kept.len() && velocities.iter().zip(kept).all(|(v, &k)| v.rate_of == Some(k));
    if red.quotient.is_some() || !red.dropped_orientations.is_empty() || !shape_rates || dropped.positions.is_empty() {
        return None;
    }
    let on_distribution: Vec<Expr> = dropped
        .positions
        .iter()
        .map(|&d| {
            let p = arena.subs(eq.momenta[d], along);
            arena.subs(p, section)
        })
        .collect();
    // An abelian group acting by translation: ġ free of g.
    let abelian = dropped_rates.iter().all(|&g| {
        dropped.positions.iter().all(|&d| {
            let dg = arena.diff(g, syms.q[d]);
            arena.zero_test(dg).is_zero()
        })
    });
    let rates: Vec<Expr> = dropped_rates.iter().map(|&g| arena.subs(g, section)).collect();
    let shape: Vec<Expr> = kept.iter().map(|&k| syms.q[k]).collect();
    if abelian { chaplygin(arena, &shape, u, &rates, &on_distribution) } else { None }
}

/// The attitude of an orientation reduced by the rotations about a = ±e_k, as a section q(Γ) of
/// Γ = R(q)ᵀ a over the sphere, in `chart` 1 or 2, and its |q|²: q = p ⊗ s(Γ) with p a constant
/// turn taking e_z to a and
///
/// ```text
/// chart 1:  s = (1 + Γ₃, Γ₂, −Γ₁, 0)        (R(s)ᵀ e_z = Γ on |Γ| = 1; singular at Γ = −e_z)
/// chart 2:  s = (Γ₂, 1 − Γ₃, 0, Γ₁)         (the first at (Γ₁, −Γ₂, −Γ₃), then a half turn about e_x)
/// ```
///
/// (unnormalised: R(q/|q|) is what the model reads).
pub(crate) fn advected_section(
    arena: &mut Arena,
    (quaternion, norm2): ([Expr; 4], Expr),
    gamma: &[Expr; 3],
    (k, sign): (usize, i8),
    chart: u8,
) -> Vec<(Expr, Expr)> {
    let (zero, one) = (arena.zero(), arena.one());
    let [g1, g2, g3] = *gamma;
    let s: [Expr; 4] = if chart == 1 {
        let w = arena.add2(one, g3);
        let y = arena.neg(g1);
        [w, g2, y, zero]
    } else {
        let x = arena.sub(one, g3);
        [g2, x, zero, g1]
    };
    // p: e_z to ±e_k (unnormalised integer quaternions).
    let p: [i64; 4] = match (k, sign) {
        (2, 1) => [1, 0, 0, 0],
        (2, _) => [0, 1, 0, 0],
        (0, 1) => [1, 0, 1, 0],
        (0, _) => [1, 0, -1, 0],
        (1, 1) => [1, -1, 0, 0],
        _ => [1, 1, 0, 0],
    };
    let p = p.map(|c| arena.int(c));
    let q = arena.quaternion_product(&p, &s);
    let squares: Vec<Expr> = q.iter().map(|&c| arena.powi(c, 2)).collect();
    let mut map: Vec<(Expr, Expr)> = quaternion.iter().copied().zip(q).collect();
    map.push((norm2, arena.add(&squares)));
    map
}

/// The Chaplygin form of a reduction (see [`Chaplygin`]) when it applies: `dropped_rates` are ġ
/// on the section over the velocities `u`, which must be the `shape` coordinates' own rates;
/// `momenta` p_g on the distribution.
fn chaplygin(arena: &mut Arena, shape: &[Expr], u: &[Expr], dropped_rates: &[Expr], momenta: &[Expr]) -> Option<Chaplygin> {
    let zero = arena.zero();
    let at_rest: Vec<(Expr, Expr)> = u.iter().map(|&v| (v, zero)).collect();
    // Linear constraints only: ġ(u = 0) ≡ 0.
    if dropped_rates.iter().any(|&g| {
        let affine = arena.subs(g, &at_rest);
        !arena.zero_test(affine).is_zero()
    }) {
        return None;
    }
    let connection: Vec<Vec<Expr>> = dropped_rates
        .iter()
        .map(|&g| {
            u.iter()
                .map(|&v| {
                    let d = arena.diff(g, v);
                    arena.neg(d)
                })
                .collect()
        })
        .collect();
    let nr = shape.len();
    let curvature: Vec<Vec<Vec<Expr>>> = connection
        .iter()
        .map(|a| {
            (0..nr)
                .map(|al| {
                    (0..nr)
                        .map(|be| {
                            let x = arena.diff(a[be], shape[al]);
                            let y = arena.diff(a[al], shape[be]);
                            arena.sub(x, y)
                        })
                        .collect()
                })
                .collect()
        })
        .collect();
    let gyroscopic = (0..nr)
        .map(|al| {
            let mut terms = Vec::new();
            for (b, &p) in curvature.iter().zip(momenta) {
                let bu = arena.dot(&b[al], u);
                terms.push(arena.mul2(p, bu));
            }
            arena.add(&terms)
        })
        .collect();
    Some(Chaplygin { connection, curvature, momenta: momenta.to_vec(), gyroscopic })
}
