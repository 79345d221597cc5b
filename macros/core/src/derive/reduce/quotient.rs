//! A nonholonomic reduction's quotient map onto shape coordinates of the user's
//! (`shape(s = σ(t, q), ...)`, `inverse(x = ι(t, s, g), ...)`; *Affine constraints reduction*
//! §3.4: the rover's σ = |(x, y)|, ψ = atan2(y, x) − θ).
//!
//! The reduced system lives in the chart (s, g) — the shape coordinates and the dropped
//! coordinates g — in which the kept coordinates are q = ι(t, s, g). Before anything is derived
//! in it, the derive proves (zero tests of exact identities, never sampled states):
//!
//! - **rank**: det ∂σ/∂q ≢ 0 over the kept coordinates (with g, the chart's Jacobian is then
//!   invertible where it does not vanish) and det ∂ι/∂s ≢ 0;
//! - **inverse**: ι(t, σ(t, q), g) = q for every kept coordinate, so σ with g loses nothing and a
//!   full state reduced and reconstructed is the same state;
//! - **invariance** under each symmetry the reduction names: ξ·∇σ ≡ 0 for its generator ξ, i.e. σ
//!   is constant on the group's orbits; and the constraints invariant under it
//!   ([`check_constraints`]): ξᶜ(cₖ) = 0 wherever the constraints hold, for every row
//!   cₖ = Aₖ q̇ + bₖ and the generator lifted to the velocities, ξᶜ = ξ·∂/∂q + (∂ξ/∂q q̇)·∂/∂q̇ — the
//!   symmetry maps the motions the constraints allow to motions they allow (the invariance of L
//!   under it is proved where it is declared).
//!
//! Maggi's equations need nothing else: Sᵀ M S and Sᵀ(f − M a₀) are scalars of the state and the
//! velocities u, so in the chart they are the model's at q = ι(t, s, g); the shape's rates come
//! from q̇ = ∂ι/∂s ṡ + ∂ι/∂g ġ + ∂ι/∂t, ṡ = (∂ι/∂s)⁻¹ (q̇ − ∂ι/∂g ġ − ∂ι/∂t) — rational in the
//! chart, with none of σ's roots or branch cuts. That the result does not depend on g is then
//! proved as for adapted coordinates ([`crate::derive::reduce::maggi`]).

use symbolic::{Arena, Expr, ZeroTest};

use crate::diagnostics::error_at as err;
use crate::model::{Model, QuotientMap};

/// The chart (s, g) of a proved quotient map.
pub struct Chart {
    /// (q, ι(t, s, g)) for each kept coordinate: the substitution into the chart.
    pub subs: Vec<(Expr, Expr)>,
    /// The kept coordinates (indices among the positions), in the order of `subs`.
    kept: Vec<usize>,
    /// (∂ι/∂s)⁻¹, rows over the shape coordinates.
    inverse_jacobian: Vec<Vec<Expr>>,
    /// ∂ι/∂g for each dropped coordinate (its index among the positions), and ∂ι/∂t.
    along_dropped: Vec<(usize, Vec<Expr>)>,
    along_time: Vec<Expr>,
}

impl Chart {
    /// `e` in the chart.
    pub fn pull(&self, arena: &mut Arena, e: Expr) -> Expr {
        arena.subs(e, &self.subs)
    }

    /// The shape's rates ṡ in the chart, from the positions' rates (in the model's symbols).
    pub fn shape_rates(&self, arena: &mut Arena, position_rates: &[Expr]) -> Vec<Expr> {
        let moving: Vec<Expr> = self
            .kept
            .iter()
            .enumerate()
            .map(|(i, &k)| {
                let mut terms = vec![self.pull(arena, position_rates[k])];
                for (d, column) in &self.along_dropped {
                    let gd = self.pull(arena, position_rates[*d]);
                    let t = arena.mul2(column[i], gd);
                    terms.push(arena.neg(t));
                }
                terms.push(arena.neg(self.along_time[i]));
                arena.add(&terms)
            })
            .collect();
        self.inverse_jacobian.iter().map(|row| arena.dot(row, &moving)).collect()
    }
}

/// Proves the quotient map `qm` of a reduction of `model` that drops the positions `dropped`
/// (see the module documentation) and returns its chart; a failed proof is an error on the
/// offending part of the map.
pub fn derive(model: &Model, arena: &mut Arena, qm: &QuotientMap, dropped: &[usize]) -> syn::Result<Chart> {
    let syms = &model.layout;
    let kept: Vec<usize> = qm.inverse.iter().map(|(k, _, _)| *k).collect();
    let show = |arena: &Arena, e: Expr| crate::notation::formula(&model.view(arena), e);
    let list = |names: &mut dyn Iterator<Item = String>| names.collect::<Vec<_>>().join(", ");
    let shape_names = list(&mut qm.names.iter().map(ToString::to_string));
    let kept_names = list(&mut qm.inverse.iter().map(|(_, n, _)| n.to_string()));
    let zero = arena.zero();
    if kept.len() > 3 {
        return Err(err(&qm.keyword, "at most three shape coordinates are supported for now"));
    }
    // Rank of σ over the kept coordinates.
    let jacobian: Vec<Vec<Expr>> = qm.values.iter().map(|&s| kept.iter().map(|&k| arena.diff(s, syms.q[k])).collect()).collect();
    // "= e ≡ 0", or "≡ 0" when the determinant is 0 already.
    let vanishing =
        |arena: &Arena, det: Expr| if det == zero { "≡ 0".to_string() } else { format!("= {} ≡ 0", show(arena, det)) };
    let det = arena.adjugate(&jacobian).map_or(zero, |(_, det)| det);
    if arena.zero_test(det).is_zero() {
        return Err(err(
            &qm.keyword,
            format!(
                "the shape map is not of full rank: det ∂({shape_names})/∂({kept_names}) {}; the shape coordinates must be \
                 independent functions of the kept coordinates",
                vanishing(arena, det)
            ),
        ));
    }
    // Rank of ι over the shape coordinates, and its inverse.
    let a: Vec<Vec<Expr>> = qm.inverse.iter().map(|&(_, _, e)| qm.symbols.iter().map(|&s| arena.diff(e, s)).collect()).collect();
    let (adj, det) = arena.adjugate(&a).unwrap_or((vec![], zero));
    if arena.zero_test(det).is_zero() {
        return Err(err(
            &qm.inverse_keyword,
            format!(
                "the inverse is not of full rank: det ∂({kept_names})/∂({shape_names}) {}; it must give the kept \
                 coordinates as independent functions of the shape coordinates",
                vanishing(arena, det)
            ),
        ));
    }
    // ι(t, σ(t, q), g) = q.
    let at_shape: Vec<(Expr, Expr)> = qm.symbols.iter().copied().zip(qm.values.iter().copied()).collect();
    for &(k, ref name, e) in &qm.inverse {
        let back = arena.subs(e, &at_shape);
        let gap = arena.sub(back, syms.q[k]);
        match arena.zero_test(gap) {
            t if t.is_zero() => {}
            ZeroTest::Undecided => {
                return Err(err(
                    name,
                    "could not decide whether the inverse gives this coordinate back (too many absolute values to split)",
                ));
            }
            _ => {
                return Err(err(
                    name,
                    format!(
                        "`inverse(...)` does not invert `shape(...)`: at s = σ(q) it gives {name} = {}, which differs from \
                         {name} by {} ≢ 0",
                        show(arena, back),
                        show(arena, gap)
                    ),
                ));
            }
        }
    }
    // Invariance under the named symmetries.
    for (i, id) in &qm.symmetries {
        let xi = &model.symmetries[*i].generator;
        for (name, &s) in qm.names.iter().zip(&qm.values) {
            let terms: Vec<Expr> = xi
                .iter()
                .zip(&syms.q)
                .map(|(&c, &q)| {
                    let d = arena.diff(s, q);
                    arena.mul2(c, d)
                })
                .collect();
            let along = arena.add(&terms);
            if !arena.zero_test(along).is_zero() {
                let mut e = err(
                    name,
                    format!(
                        "the shape coordinate `{name}` is not invariant under the symmetry `{id}`: its derivative along the \
                         generator is {} ≢ 0; shape coordinates are constant on the group's orbits",
                        show(arena, along)
                    ),
                );
                e.combine(err(id, "the symmetry is named here"));
                return Err(e);
            }
        }
    }
    let inv_det = arena.powi(det, -1);
    let inverse_jacobian: Vec<Vec<Expr>> = adj.iter().map(|row| row.iter().map(|&c| arena.mul2(c, inv_det)).collect()).collect();
    let along_dropped: Vec<(usize, Vec<Expr>)> =
        dropped.iter().map(|&d| (d, qm.inverse.iter().map(|&(_, _, e)| arena.diff(e, syms.q[d])).collect())).collect();
    let along_time: Vec<Expr> = qm.inverse.iter().map(|&(_, _, e)| arena.diff(e, syms.t)).collect();
    let subs: Vec<(Expr, Expr)> = qm.inverse.iter().map(|&(k, _, e)| (syms.q[k], e)).collect();
    Ok(Chart { subs, kept, inverse_jacobian, along_dropped, along_time })
}

/// That the constraints of `model` are invariant under each symmetry `qm` names: ξᶜ(cₖ) of every
/// row cₖ = Aₖ q̇ + bₖ vanishes where the constraints hold, i.e. at the velocities `along` gives
/// (q̇ = S u + s of the reduction: the constraints solved), by the zero test; otherwise an error on
/// the symmetry and the constraint with the residual.
pub fn check_constraints(model: &Model, arena: &mut Arena, qm: &QuotientMap, along: &[(Expr, Expr)]) -> syn::Result<()> {
    let syms = &model.layout;
    let n = model.dof();
    let show = |arena: &Arena, e: Expr| crate::notation::formula(&model.view(arena), e);
    for (i, id) in &qm.symmetries {
        let xi = model.symmetries[*i].generator.clone();
        // The generator lifted to the velocities: η = ∂ξ/∂q q̇.
        let eta: Vec<Expr> = (0..n)
            .map(|k| {
                let terms: Vec<Expr> = (0..n)
                    .map(|j| {
                        let d = arena.diff(xi[k], syms.q[j]);
                        arena.mul2(d, syms.qd[j])
                    })
                    .collect();
                arena.add(&terms)
            })
            .collect();
        for c in &model.constraints {
            let aq = arena.dot(&c.a, &syms.qd);
            let row = arena.add2(aq, c.b);
            let mut terms = Vec::with_capacity(2 * n);
            for k in 0..n {
                let dq = arena.diff(row, syms.q[k]);
                terms.push(arena.mul2(xi[k], dq));
                let dv = arena.diff(row, syms.qd[k]);
                terms.push(arena.mul2(eta[k], dv));
            }
            let lifted = arena.add(&terms);
            let held = arena.subs(lifted, along);
            if !arena.zero_test(held).is_zero() {
                let mut e = err(
                    id,
                    format!(
                        "the constraint `{}` is not invariant under the symmetry `{id}`: the generator lifted to the \
                         velocities changes its row where the constraints hold, ξᶜ(c) = {} ≢ 0; the reduction needs a group \
                         that maps the motions the constraints allow to motions they allow",
                        c.name,
                        show(arena, held)
                    ),
                );
                e.combine(err(&c.name, "the constraint is declared here"));
                return Err(e);
            }
        }
    }
    Ok(())
}
