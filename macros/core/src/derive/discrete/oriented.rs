//! The Lie group variational integrator of a model with orientations: its discrete Lagrangian over
//! the start node and the increment, and its momenta in the bodies' axes (see
//! [`OrientedEquations`]; the runtime's `discrete::oriented`).

use symbolic::{Arena, Expr};

use super::{DiscreteMaps, Momenta, discrete_symmetry};
use crate::diagnostics::Ctxt;
use crate::model::{Model, Quadrature, Role};

/// The Lie group variational integrator of a model with orientations (`runtime::discrete::oriented`):
/// the nodes q_k (P positions: the ordinary coordinates, then each quaternion) and the increment ξ
/// (N: each ordinary coordinate's Δ, each orientation's Cayley vector, q_{k+1} = q_k ⊗ cay(ξ), the
/// turn of the quaternion (1, ξ/2)). A quadrature rule's node at a fraction c of the step is
/// (x_k + c Δ, Q_k ⊗ (1, c ξ/2)) — unnormalised: the model's R(q) is R(q/|q|), |q|² carried with it —
/// with the velocities (Δ/h, ξ/h) and the time t_k + c h, so that L_d(t_k, h, q_k, ξ) and f∓ are the
/// rules of [`DiscreteEquations`](super::DiscreteEquations) on them. Varying the start node along its chart at fixed ξ (an
/// ordinary coordinate by δx, a quaternion by ½ Q ⊗ (0, η)) gives G = ∂L_d/∂(δx_k, η_k); with
/// π = ∂L_d/∂ξ and A(ξ) = 1 + ½ [ξ×] + ¼ ξ ξᵀ, the body-frame momenta are
///
/// ```text
/// μ⁻ = (π_Δ − G_x, A(ξ) π_ξ − G_η) − f⁻          μ⁺ = (π_Δ, A(ξ)ᵀ π_ξ) + f⁺
/// ```
///
/// (at fixed q_{k+1} a change of the start node moves ξ by −Aᵀ η_k and Δ by −δx_k; a change of the
/// end node moves ξ by A η_{k+1}: the runtime module's docs).
pub struct OrientedEquations {
    /// L_d(t_k, h, q_k, ξ), the forces, μ∓ and their Jacobians (in ξ and along the start node's
    /// chart), and the declared symmetries' J⁻ = ⟨μ⁻, ξ_V(q_k)⟩, J⁺ = ⟨μ⁺, ξ_V(q_k+1)⟩ with ξ_V
    /// the generator in the velocities' directions (a rotation's body axis Rᵀa).
    pub maps: DiscreteMaps,
}

/// [`OrientedEquations`] of a model with orientations and a quadrature rule (lowering refuses the
/// rest: a raw discrete system, an action, reductions); a declared symmetry whose action does not
/// leave L_d invariant is an error on its name.
pub(super) fn equations(model: &Model, arena: &mut Arena) -> syn::Result<Option<OrientedEquations>> {
    let Some(disc) = model.discretization.as_ref() else { return Ok(None) };
    let syms = &model.layout;
    let (p, n) = (syms.q.len(), syms.qd.len());
    let k = syms.orientations.len();
    let m = n - 3 * k;
    let q0: Vec<Expr> = (0..p).map(|i| model.symbol(arena, Role::NodeStart(i))).collect();
    let xi: Vec<Expr> = (0..n).map(|i| model.symbol(arena, Role::Increment(i))).collect();
    let h = model.symbol(arena, Role::StepSize);
    let t0 = model.symbol(arena, Role::StepTime);
    let inv_h = arena.powi(h, -1);
    let half = arena.num(symbolic::Rational::new(1, 2).unwrap_or_else(symbolic::Rational::one));
    let quarter = arena.num(symbolic::Rational::new(1, 4).unwrap_or_else(symbolic::Rational::one));
    let start_quaternion = |o: &crate::layout::Orientation| -> [Expr; 4] { std::array::from_fn(|c| q0[o.q_start + c]) };
    let turn = |o: &crate::layout::Orientation| -> [Expr; 3] { std::array::from_fn(|c| xi[o.v_start + c]) };
    let velocities: Vec<Expr> = xi.iter().map(|&x| arena.mul2(x, inv_h)).collect();
    // The node a fraction `c` of the step in, as a substitution of the model's symbols.
    let node = |arena: &mut Arena, c: Expr| -> Vec<(Expr, Expr)> {
        let mut map = Vec::with_capacity(p + n + k + 1);
        for i in 0..m {
            let step = arena.mul2(c, xi[i]);
            map.push((syms.q[i], arena.add2(q0[i], step)));
        }
        for o in &syms.orientations {
            let w = turn(o);
            let hc = arena.mul2(half, c);
            let by = [arena.one(), arena.mul2(hc, w[0]), arena.mul2(hc, w[1]), arena.mul2(hc, w[2])];
            let q = arena.quaternion_product(&start_quaternion(o), &by);
            let squares: Vec<Expr> = q.iter().map(|&e| arena.powi(e, 2)).collect();
            map.push((o.norm2, arena.add(&squares)));
            map.extend((0..4).map(|c| (syms.q[o.q_start + c], q[c])));
        }
        map.extend(syms.qd.iter().copied().zip(velocities.iter().copied()));
        let ch = arena.mul2(c, h);
        map.push((syms.t, arena.add2(t0, ch)));
        map
    };
    let (l, force) = (model.lagrangian, &model.force);
    let at = |arena: &mut Arena, c: Expr| -> (Expr, Vec<Expr>) {
        let map = node(arena, c);
        let lv = arena.subs(l, &map);
        (lv, force.iter().map(|&f| arena.subs(f, &map)).collect())
    };
    // The rule's nodes: (fraction c of the step, weight w) with L_d = Σ w L(node c).
    let points: Vec<(Expr, Expr)> = match &disc.quadrature {
        Quadrature::Raw { .. } => return Ok(None),
        &Quadrature::Alpha(alpha) => vec![(alpha, h)],
        Quadrature::Trapezoid => {
            let half_h = arena.mul2(half, h);
            vec![(arena.zero(), half_h), (arena.one(), half_h)]
        }
    };
    let (lagrangian, force_minus, force_plus) = match &disc.quadrature {
        Quadrature::Raw { .. } => return Ok(None),
        &Quadrature::Alpha(alpha) => {
            let one = arena.one();
            let beta = arena.sub(one, alpha);
            let (lv, fv) = at(arena, alpha);
            let (bh, ah) = (arena.mul2(beta, h), arena.mul2(alpha, h));
            let minus: Vec<Expr> = fv.iter().map(|&f| arena.mul2(bh, f)).collect();
            let plus: Vec<Expr> = fv.iter().map(|&f| arena.mul2(ah, f)).collect();
            (arena.mul2(h, lv), minus, plus)
        }
        Quadrature::Trapezoid => {
            let half_h = arena.mul2(half, h);
            let (zero, one) = (arena.zero(), arena.one());
            let (l0, f0) = at(arena, zero);
            let (l1, f1) = at(arena, one);
            let sum = arena.add2(l0, l1);
            let minus: Vec<Expr> = f0.iter().map(|&f| arena.mul2(half_h, f)).collect();
            let plus: Vec<Expr> = f1.iter().map(|&f| arena.mul2(half_h, f)).collect();
            (arena.mul2(half_h, sum), minus, plus)
        }
    };
    // Each orientation's chart directions ∂Q/∂η_a = ½ Q ⊗ (0, e_a) at the start node.
    let directions: Vec<[[Expr; 4]; 3]> = syms
        .orientations
        .iter()
        .map(|o| {
            let q = start_quaternion(o);
            std::array::from_fn(|a| {
                let unit: [Expr; 3] = std::array::from_fn(|b| if a == b { arena.one() } else { arena.zero() });
                arena.quaternion_rate(&q, &unit)
            })
        })
        .collect();
    // ∂e/∂(δx_k, η_k) at fixed ξ.
    let chart = |arena: &mut Arena, e: Expr| -> Vec<Expr> {
        let mut out: Vec<Expr> = (0..m).map(|i| arena.diff(e, q0[i])).collect();
        for (o, dirs) in syms.orientations.iter().zip(&directions) {
            let partial: Vec<Expr> = (0..4).map(|c| arena.diff(e, q0[o.q_start + c])).collect();
            for dir in dirs {
                out.push(arena.dot(&partial, dir));
            }
        }
        out
    };
    // π = ∂L_d/∂ξ and G = ∂L_d/∂(δx_k, η_k) by the chain rule through each node, from L's own
    // gradient in the model's symbols (a quaternion's through its held |q|² too) evaluated there —
    // where differentiating L_d itself would differentiate the nodes' products inside L again. The
    // gradient in one reverse sweep over L (`Arena::gradient_reverse`): a floating quadruped's L
    // has 1.4 thousand nodes and 37 such symbols, and a forward pass per symbol made a gradient of
    // 7.3 thousand nodes where the sweep makes 4.3, its left map's Newton Jacobian 47 thousand where
    // the sweep's makes 37 (docs/guide/performance.md, "Long bodies' build").
    let vars: Vec<Expr> = syms.qd.iter().chain(&syms.q).copied().chain(syms.orientations.iter().map(|o| o.norm2)).collect();
    let mut grad_v = arena.gradient_reverse(l, &vars);
    let by_norms = grad_v.split_off(syms.qd.len() + syms.q.len());
    let mut grad_q = grad_v.split_off(syms.qd.len());
    let two = arena.int(2);
    for (o, &by_norm) in syms.orientations.iter().zip(&by_norms) {
        for c in 0..4 {
            let radial = arena.mul(&[two, by_norm, syms.q[o.q_start + c]]);
            grad_q[o.q_start + c] = arena.add2(grad_q[o.q_start + c], radial);
        }
    }
    let mut pi: Vec<Vec<Expr>> = vec![Vec::new(); n];
    let mut g: Vec<Vec<Expr>> = vec![Vec::new(); n];
    for &(c, w) in &points {
        let map = node(arena, c);
        let gq: Vec<Expr> = grad_q.iter().map(|&e| arena.subs(e, &map)).collect();
        let gv: Vec<Expr> = grad_v.iter().map(|&e| arena.subs(e, &map)).collect();
        let wc = arena.mul2(w, c);
        let w_h = arena.mul2(w, inv_h);
        for i in 0..m {
            pi[i].push(arena.mul2(wc, gq[i]));
            pi[i].push(arena.mul2(w_h, gv[i]));
            g[i].push(arena.mul2(w, gq[i]));
        }
        let hc = arena.mul2(half, c);
        for (o, dirs) in syms.orientations.iter().zip(&directions) {
            let (qs, vs, turn_xi) = (o.q_start, o.v_start, turn(o));
            let gq_o: [Expr; 4] = std::array::from_fn(|k| gq[qs + k]);
            let by = [arena.one(), arena.mul2(hc, turn_xi[0]), arena.mul2(hc, turn_xi[1]), arena.mul2(hc, turn_xi[2])];
            for a in 0..3 {
                // ∂Q_c/∂ξ_a = Q_k ⊗ (0, c e_a/2), and at fixed ξ ∂Q_c/∂η_a = (½ Q_k ⊗ (0, e_a)) ⊗ (1, c ξ/2).
                let pure: [Expr; 4] = std::array::from_fn(|k| if k == a + 1 { hc } else { arena.zero() });
                let along = arena.quaternion_product(&start_quaternion(o), &pure);
                let dot = arena.dot(&gq_o, &along);
                pi[vs + a].push(arena.mul2(w, dot));
                pi[vs + a].push(arena.mul2(w_h, gv[vs + a]));
                let turned = arena.quaternion_product(&dirs[a], &by);
                let dot = arena.dot(&gq_o, &turned);
                g[vs + a].push(arena.mul2(w, dot));
            }
        }
    }
    let pi: Vec<Expr> = pi.iter().map(|terms| arena.add(terms)).collect();
    let g: Vec<Expr> = g.iter().map(|terms| arena.add(terms)).collect();
    let mut left_momentum = Vec::with_capacity(n);
    let mut right_momentum = Vec::with_capacity(n);
    for i in 0..m {
        let s = arena.sub(pi[i], g[i]);
        left_momentum.push(arena.sub(s, force_minus[i]));
        right_momentum.push(arena.add2(pi[i], force_plus[i]));
    }
    // A(ξ) π = π + ½ ξ × π + ¼ ξ (ξ·π), A(ξ)ᵀ π = π − ½ ξ × π + ¼ ξ (ξ·π).
    for o in &syms.orientations {
        let (w, vs) = (turn(o), o.v_start);
        let p3: [Expr; 3] = std::array::from_fn(|c| pi[vs + c]);
        let cross = arena.cross(&w, &p3);
        let along = arena.dot3(&w, &p3);
        for c in 0..3 {
            let turned = arena.mul2(half, cross[c]);
            let radial = arena.mul(&[quarter, w[c], along]);
            let sym = arena.add2(p3[c], radial);
            let left = arena.add2(sym, turned);
            let left = arena.sub(left, g[vs + c]);
            left_momentum.push(arena.sub(left, force_minus[vs + c]));
            let right = arena.sub(sym, turned);
            right_momentum.push(arena.add2(right, force_plus[vs + c]));
        }
    }
    let left_jacobian = arena.jacobian(&left_momentum, &xi);
    let right_dxi = arena.jacobian(&right_momentum, &xi);
    let left_dq0 = left_momentum.iter().map(|&e| chart(arena, e)).collect();
    let right_dq0 = right_momentum.iter().map(|&e| chart(arena, e)).collect();
    let inputs = &syms.u[..];
    let (left_du, right_du) = if inputs.is_empty() {
        (Vec::new(), Vec::new())
    } else {
        (arena.jacobian(&left_momentum, inputs), arena.jacobian(&right_momentum, inputs))
    };
    // The declared symmetries on the discrete level, their generators in the velocities' directions
    // (the chart's) at the two nodes: L_d's derivatives along the nodes are −(μ⁻ + f⁻) and μ⁺ − f⁺.
    let d0: Vec<Expr> = (0..n)
        .map(|i| {
            let s = arena.add2(left_momentum[i], force_minus[i]);
            arena.neg(s)
        })
        .collect();
    let d1: Vec<Expr> = (0..n).map(|i| arena.sub(right_momentum[i], force_plus[i])).collect();
    let mut at0: Vec<(Expr, Expr)> = syms.q.iter().copied().zip(q0.iter().copied()).collect();
    for o in &syms.orientations {
        let squares: Vec<Expr> = start_quaternion(o).iter().map(|&e| arena.powi(e, 2)).collect();
        at0.push((o.norm2, arena.add(&squares)));
    }
    let one = arena.one();
    let at1 = node(arena, one);
    let nodes: Vec<Expr> = q0.iter().chain(&xi).copied().collect();
    let momenta = Momenta { left: &left_momentum, right: &right_momentum, minus: &force_minus, plus: &force_plus };
    let mut errors = Ctxt::new();
    let mut symmetries = Vec::new();
    for sym in &model.symmetries {
        let generator = match &sym.velocity_generator {
            Some((in_velocities, _)) => in_velocities.clone(),
            // A symmetry of the ordinary coordinates alone (the orientations' entries zero).
            None if (m..p).all(|i| arena.zero_test(sym.generator[i]).is_zero()) => {
                (0..n).map(|i| if i < m { sym.generator[i] } else { arena.zero() }).collect()
            }
            None => {
                errors.push(syn::Error::new_spanned(
                    &sym.tokens,
                    format!(
                        "`{}` moves an orientation's quaternion but is not a `rotation(...)` of it: its discrete momentum map \
                         in the bodies' axes is not derived",
                        sym.name
                    ),
                ));
                continue;
            }
        };
        let xi0: Vec<Expr> = generator.iter().map(|&g| arena.subs(g, &at0)).collect();
        let xi1: Vec<Expr> = generator.iter().map(|&g| arena.subs(g, &at1)).collect();
        symmetries.extend(discrete_symmetry(model, arena, &mut errors, sym, &nodes, (&xi0, &xi1), (&d0, &d1), &momenta));
    }
    errors.check()?;
    Ok(Some(OrientedEquations {
        maps: DiscreteMaps {
            lagrangian,
            force_minus,
            force_plus,
            left_momentum,
            left_jacobian,
            right_momentum,
            left_dq0,
            right_dq0,
            right_dnext: right_dxi,
            left_du,
            right_du,
            symmetries,
        },
    }))
}
