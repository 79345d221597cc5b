//! Discrete mechanics: the variational integrator of a model, derived symbolically (*Forced discrete reduction*, §2.3–2.5;
//! `docs/references.md`).
//!
//! With the step h, the nodes q_k, q_{k+1} and the velocity V = (q_{k+1} − q_k)/h, a quadrature
//! rule turns L and the forces F into a discrete Lagrangian and discrete forces
//! (L_d = h L∘Δ_h⁻¹, f_d = h (Δ_h⁻¹)*f; the force pullback is derived):
//!
//! ```text
//! α-rule      q_α = (1 − α) q_k + α q_{k+1},  t_α = t_k + α h
//!             L_d = h L(t_α, q_α, V),   f⁻ = (1 − α) h F(t_α, q_α, V),   f⁺ = α h F(t_α, q_α, V)
//!             (midpoint α = ½; rectangle α = 0, symplectic Euler)
//! trapezoid   L_d = (h/2)[L(t_k, q_k, V) + L(t_k + h, q_{k+1}, V)]
//!             f⁻ = (h/2) F(t_k, q_k, V),   f⁺ = (h/2) F(t_k + h, q_{k+1}, V)
//! ```
//!
//! The forced discrete Euler–Lagrange equations D₂L_d(q_{k−1}, q_k) + D₁L_d(q_k, q_{k+1}) +
//! f⁺(q_{k−1}, q_k) + f⁻(q_k, q_{k+1}) = 0 are solved in position–momentum form: Newton on
//!
//! ```text
//! p_k = −D₁L_d(q_k, q_{k+1}) − f⁻(q_k, q_{k+1})          (F^{f−}L_d, for q_{k+1})
//! p_{k+1} = D₂L_d(q_k, q_{k+1}) + f⁺(q_k, q_{k+1})        (F^{f+}L_d)
//! ```
//!
//! with the exact Jacobian ∂(−D₁L_d − f⁻)/∂q_{k+1} = −D₂D₁L_d − ∂f⁻/∂q_{k+1} (the force term
//! matters for velocity-dependent forces).
//!
//! **Contact Lagrangians** (discrete Herglotz principle, Vermeeren–Bravetti–Seri 2019): the action
//! follows z_{k+1} = z_k + L_d(q_k, q_{k+1}, z_k); extremising z_N gives
//! D₁L_d(k) + f⁻(k) + (1 + D₃L_d(k))(D₂L_d(k−1) + f⁺(k−1)) = 0, so p_k = −(D₁L_d + f⁻)/(1 + D₃L_d)
//! and p_{k+1} = D₂L_d + f⁺. L is evaluated at the rule's quadrature point with the action there
//! predicted by an Euler step of ż = L from z_k (so the rule's order is kept). Through that
//! prediction, z_c = z_k + c h L(q_c, V, z_k) a fraction c of the step in, L_d carries a variation of
//! L's positions and velocities by the factor s = 1 + c h ∂L/∂z at the point where z_c is read
//! (∂L_d/∂q_k = h s (1 − α) ∂L/∂q + … for the α-rule), and the discrete forces are carried alike:
//!
//! ```text
//! α-rule      f⁻ = (1 − α) h s F,  f⁺ = α h s F,   s = 1 + α h ∂L/∂z (t_α, q_α, V, z_α)
//! trapezoid   f⁻ = (h/2) s F(t_k, q_k, V),  f⁺ = (h/2) F(t_k + h, q_{k+1}, V),   s = 1 + h ∂L/∂z (at q_{k+1}, z_{k+1})
//! ```
//!
//! so that a force that is the gradient of a potential steps exactly as the potential written in L
//! (without s, the forces and L's own gradient are weighted apart by O(h): the order falls to one
//! and a pushed spring settles a relative γh/2 off its equilibrium).

use symbolic::{Arena, Expr};

mod oriented;

pub use oriented::OrientedEquations;

use crate::diagnostics::Ctxt;
use crate::model::{Model, Quadrature, Role};

/// How a discrete momentum map evolves, decided at compile time from Φ = f_d(ξ_{Q×Q}).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MomentumLaw {
    /// Φ ≡ 0: J⁻ = J⁺ is conserved (forced discrete Noether).
    Conserved,
    /// dΦ ≡ 0: Φ is a constant, J changes by the same amount every step.
    ConstantDrift,
    /// Neither: J⁺_k = J⁺_{k−1} + Φ_k with Φ_k evaluated per step.
    General,
}

/// A declared symmetry on the discrete level (*Forced discrete reduction*, Prop. 4.4 with erratum D4): J⁻ = ⟨F^{f−}L_d, ξ(q_k)⟩,
/// J⁺ = ⟨F^{f+}L_d, ξ(q_{k+1})⟩ and the per-step source Φ = ⟨f⁻, ξ(q_k)⟩ + ⟨f⁺, ξ(q_{k+1})⟩, with the
/// law (corrected sign, erratum D4 of `docs/references.md`) J⁻(k) = J⁺(k − 1) and J⁺(k) = J⁻(k) + Φ_k.
pub struct DiscreteSymmetry {
    pub name: syn::Ident,
    pub minus: Expr,
    pub plus: Expr,
    pub source: Expr,
    pub law: MomentumLaw,
}

/// The maps both integrators generate, in the two nodes' unknowns of each: the first node q_k and
/// the second — q_k+1 on coordinates ([`DiscreteEquations`]), the increment ξ with orientations
/// ([`OrientedEquations`]).
pub struct DiscreteMaps {
    /// L_d.
    pub lagrangian: Expr,
    /// f⁻ and f⁺ (n each).
    pub force_minus: Vec<Expr>,
    pub force_plus: Vec<Expr>,
    /// The left map (F^{f−}L_d = −D₁L_d − f⁻; with orientations μ⁻ in the bodies' axes) and its
    /// Jacobian in the second unknown (n × n): Newton's.
    pub left_momentum: Vec<Expr>,
    pub left_jacobian: Vec<Vec<Expr>>,
    /// The right map (F^{f+}L_d = D₂L_d + f⁺; μ⁺).
    pub right_momentum: Vec<Expr>,
    /// ∂left/∂q_k, ∂right/∂q_k (with orientations along the start node's chart (δx, η) at fixed ξ)
    /// and ∂right/∂(the second unknown) (n × n each): the step map's Jacobian.
    pub left_dq0: Vec<Vec<Expr>>,
    pub right_dq0: Vec<Vec<Expr>>,
    pub right_dnext: Vec<Vec<Expr>>,
    /// ∂left/∂u and ∂right/∂u (n × k each, the inputs held over the step: they enter the discrete
    /// forces): the step map's input Jacobian; empty without inputs.
    pub left_du: Vec<Vec<Expr>>,
    pub right_du: Vec<Vec<Expr>>,
    /// The declared symmetries, on the discrete level.
    pub symmetries: Vec<DiscreteSymmetry>,
}

/// Everything derived for a model's variational integrator.
pub struct DiscreteEquations {
    /// L_d(t_k, h, q_k, q_{k+1}), the forces, the maps and their Jacobians.
    pub maps: DiscreteMaps,
    /// D₁L_d and D₂L_d (n each).
    pub d1: Vec<Expr>,
    pub d2: Vec<Expr>,
    /// The contact (Herglotz) integrator's blocks, `None` for the variational integrator: the maps
    /// take the action z_k, and L_d is also the action's increment z_k+1 − z_k.
    pub contact: Option<ContactBlocks>,
    /// The factors by which a contact model's step carries the action's variations — 1 + D₃L_d
    /// and ∂z_a/∂z_k of the quadrature's predicted action — which must stay positive
    /// (`runtime::discrete::ContactDiscreteSystem::action_factor` is the least); empty otherwise.
    pub action_factors: Vec<Expr>,
    /// The cyclic coordinates of a `reduce(routh(...))`, proved to be translations of L_d and f_d
    /// (discrete Routh reduction, *Forced discrete reduction*, Thm. 3.11); empty without one.
    pub cyclic: Vec<usize>,
}

/// A contact step's derivatives along the action and of its increment L_d, besides the blocks it
/// shares with the variational integrator (its maps' blocks, D₁L_d and D₂L_d):
/// the step map's action column and row (`runtime::discrete::contact_step_jacobian`).
pub struct ContactBlocks {
    /// ∂F^{f−}/∂z_k and ∂F^{f+}/∂z_k (n each).
    pub left_dz0: Vec<Expr>,
    pub right_dz0: Vec<Expr>,
    /// D₃L_d = ∂L_d/∂z_k.
    pub action_dz0: Expr,
    /// ∂L_d/∂u (k; empty without inputs).
    pub action_du: Vec<Expr>,
}

/// A model's variational integrator: on coordinates, or on configurations with orientations.
pub enum Discrete {
    /// Nodes q_k ∈ ℝⁿ ([`DiscreteEquations`]).
    Euclidean(Box<DiscreteEquations>),
    /// Nodes with orientations, the Lie group integrator ([`OrientedEquations`]).
    Oriented(Box<OrientedEquations>),
}

/// Derives the discrete Lagrangian, forces and Legendre maps of `model` (none without
/// `discrete(...)`); a declared symmetry under whose diagonal action L_d is not invariant is an
/// error on its name (the quadrature of a nonlinear action need not keep a symmetry of L).
pub fn derive(model: &Model, arena: &mut Arena, cx: &mut Ctxt) -> Option<Discrete> {
    if model.layout.orientations.is_empty() {
        cx.ok(equations(model, arena)).flatten().map(|de| Discrete::Euclidean(Box::new(de)))
    } else {
        cx.ok(oriented::equations(model, arena)).flatten().map(|oe| Discrete::Oriented(Box::new(oe)))
    }
}

fn equations(model: &Model, arena: &mut Arena) -> syn::Result<Option<DiscreteEquations>> {
    let n = model.dof();
    let q0: Vec<Expr> = (0..n).map(|i| model.symbol(arena, Role::NodeStart(i))).collect();
    let q1: Vec<Expr> = (0..n).map(|i| model.symbol(arena, Role::NodeEnd(i))).collect();
    let h = model.symbol(arena, Role::StepSize);
    let t0 = model.symbol(arena, Role::StepTime);
    let z0 = model.layout.z.map(|_| model.symbol(arena, Role::StepAction));
    let Model { discretization, symmetries, reductions, .. } = model;
    let Some(disc) = discretization.as_ref() else { return Ok(None) };
    // Routh reductions only (a nonholonomic one refuses discrete models itself).
    let reductions: Vec<&crate::model::Reduction> =
        reductions.iter().filter(|r| r.method != crate::model::ReductionMethod::Maggi).collect();
    let nodes = Nodes { q0: &q0, q1: &q1, h, t0, z0 };
    let (lagrangian_d, force_minus, force_plus, predicted_action) = quadrature(model, arena, &disc.quadrature, &nodes);
    let d1 = arena.gradient(lagrangian_d, &q0);
    let d2 = arena.gradient(lagrangian_d, &q1);
    // Contact: p_k = −(D₁L_d + f⁻)/(1 + D₃L_d) (discrete Herglotz principle, z_{k+1} = z_k + L_d).
    let one_plus_d3 = z0.map(|zk| {
        let d3 = arena.diff(lagrangian_d, zk);
        let one = arena.one();
        arena.add2(one, d3)
    });
    let scale = one_plus_d3.map(|s| arena.powi(s, -1));
    // Every factor by which the step carries a variation of the action: 1 + D₃L_d, and ∂z_a/∂z_k of
    // the action the quadrature predicts (the flow's are exponentials, positive).
    let action_factors: Vec<Expr> = match (z0, one_plus_d3) {
        (Some(zk), Some(outer)) => std::iter::once(outer).chain(predicted_action.map(|za| arena.diff(za, zk))).collect(),
        _ => Vec::new(),
    };
    let left_momentum: Vec<Expr> = (0..n)
        .map(|i| {
            let s = arena.add2(d1[i], force_minus[i]);
            let s = arena.neg(s);
            match scale {
                Some(c) => arena.mul2(s, c),
                None => s,
            }
        })
        .collect();
    let left_jacobian = arena.jacobian(&left_momentum, &q1);
    let right_momentum: Vec<Expr> = (0..n).map(|i| arena.add2(d2[i], force_plus[i])).collect();
    let left_dq0 = arena.jacobian(&left_momentum, &q0);
    let right_dq0 = arena.jacobian(&right_momentum, &q0);
    let right_dq1 = arena.jacobian(&right_momentum, &q1);
    let inputs = &model.layout.u[..];
    let (left_du, right_du) = if inputs.is_empty() {
        (Vec::new(), Vec::new())
    } else {
        (arena.jacobian(&left_momentum, inputs), arena.jacobian(&right_momentum, inputs))
    };
    // A contact step's action column and row: ∂F∓/∂z_k and L_d's derivatives (its increment).
    let contact = z0.map(|zk| {
        let action_du =
            if inputs.is_empty() { Vec::new() } else { inputs.iter().map(|&u| arena.diff(lagrangian_d, u)).collect() };
        ContactBlocks {
            left_dz0: left_momentum.iter().map(|&e| arena.diff(e, zk)).collect(),
            right_dz0: right_momentum.iter().map(|&e| arena.diff(e, zk)).collect(),
            action_dz0: arena.diff(lagrangian_d, zk),
            action_du,
        }
    });
    let mut errors = crate::diagnostics::Ctxt::new();
    // (Contact models: the discrete momenta of the Herglotz integrator carry the factor 1 + D₃L_d;
    // their discrete symmetries are not generated yet, and neither is their reduction.)
    let symmetries: &[crate::model::Symmetry] = if z0.is_some() { &[] } else { symmetries };
    if z0.is_some()
        && let Some(red) = reductions.first()
    {
        errors.push(syn::Error::new(red.keyword.span(), "discrete reduction of contact Lagrangians is not supported yet"));
    }
    let momenta = Momenta { left: &left_momentum, right: &right_momentum, minus: &force_minus, plus: &force_plus };
    let discrete_symmetries = discrete_symmetries(model, arena, &mut errors, symmetries, (&q0, &q1), (&d1, &d2), &momenta);
    // Discrete Routh reduction: the cyclic coordinates must translate L_d and f_d.
    let mut cyclic = Vec::new();
    if let Some(red) = reductions.first().filter(|_| z0.is_none()) {
        let idx: Vec<usize> = red.cyclic.iter().map(|(i, _)| *i).collect();
        let mut invariant = true;
        for target in std::iter::once(lagrangian_d).chain(force_minus.iter().copied()).chain(force_plus.iter().copied()) {
            let mut terms = Vec::new();
            for &c in &idx {
                terms.push(arena.diff(target, q0[c]));
                terms.push(arena.diff(target, q1[c]));
            }
            let shift = arena.add(&terms);
            if !arena.zero_test(shift).is_zero() {
                invariant = false;
            }
        }
        if invariant {
            cyclic = idx;
        } else {
            errors.push(syn::Error::new(
                red.keyword.span(),
                format!(
                    "the discrete Lagrangian or forces of the `{}` rule are not invariant under translations of the reduced \
                     coordinates, so the discrete system cannot be reduced by them",
                    disc.rule
                ),
            ));
        }
        for extra in &reductions[1..] {
            errors.push(syn::Error::new(
                extra.keyword.span(),
                "a discrete model has one discrete reduction; give one `reduce(...)`",
            ));
        }
    }
    errors.check()?;
    Ok(Some(DiscreteEquations {
        maps: DiscreteMaps {
            lagrangian: lagrangian_d,
            force_minus,
            force_plus,
            left_momentum,
            left_jacobian,
            right_momentum,
            left_dq0,
            right_dq0,
            right_dnext: right_dq1,
            left_du,
            right_du,
            symmetries: discrete_symmetries,
        },
        d1,
        d2,
        contact,
        action_factors,
        cyclic,
    }))
}

/// A step's nodes: q_k, q_k+1, h, t_k and, for a contact model, z_k.
struct Nodes<'a> {
    q0: &'a [Expr],
    q1: &'a [Expr],
    h: Expr,
    t0: Expr,
    z0: Option<Expr>,
}

/// L_d and the discrete forces f⁻, f⁺ of the quadrature (a raw system's as written), and the
/// action it predicts inside the step (z_a, or z_k+1 of the trapezoid) of a contact model.
#[allow(clippy::type_complexity)]
fn quadrature(
    model: &Model,
    arena: &mut Arena,
    quadrature: &Quadrature,
    nodes: &Nodes<'_>,
) -> (Expr, Vec<Expr>, Vec<Expr>, Option<Expr>) {
    let Nodes { q0, q1, h, t0, z0 } = *nodes;
    let n = model.dof();
    let (syms, l, force) = (&model.layout, model.lagrangian, &model.force);
    let inv_h = arena.powi(h, -1);
    let velocity: Vec<Expr> = (0..n)
        .map(|i| {
            let d = arena.sub(q1[i], q0[i]);
            arena.mul2(d, inv_h)
        })
        .collect();
    // L and F at a node (q, t) with velocity V (and, for a contact model, the action `zq`).
    let at = |arena: &mut symbolic::Arena, q: &[Expr], t: Expr, zq: Option<Expr>| -> (Expr, Vec<Expr>) {
        let map = node_map(syms, q, &velocity, t, zq);
        let lv = arena.subs(l, &map);
        let fv = force.iter().map(|&f| arena.subs(f, &map)).collect();
        (lv, fv)
    };
    // 1 + c h ∂L/∂z at a node: the factor by which L_d carries a variation of L's positions through
    // an action predicted a fraction c of the step before it (z_c = z_k + c h L(…, z_k)), which the
    // discrete forces then carry too; 1 without an action variable.
    let carried = |arena: &mut symbolic::Arena, q: &[Expr], t: Expr, zq: Option<Expr>, c: Expr| -> Option<Expr> {
        let z = syms.z?;
        let lz = arena.diff(l, z);
        let map = node_map(syms, q, &velocity, t, zq);
        let lz = arena.subs(lz, &map);
        let ch = arena.mul2(c, h);
        let term = arena.mul2(ch, lz);
        Some(arena.add2(arena.one(), term))
    };
    // Contact: the action at a quadrature point a fraction c of the step in, predicted by an Euler
    // step of ż = L from z_k — so that z_k+1 = z_k + L_d is an explicit midpoint (Heun, for the
    // trapezoid) step of ż = L and the integrator keeps the rule's order.
    let action_at = |arena: &mut symbolic::Arena, q: &[Expr], t: Expr, c: Expr| -> Option<Expr> {
        let zk = z0?;
        let (lk, _) = at(arena, q, t, Some(zk));
        let ch = arena.mul2(c, h);
        let step = arena.mul2(ch, lk);
        Some(arena.add2(zk, step))
    };
    // The action a quadrature predicts inside the step (z_a, or z_k+1 of the trapezoid).
    let mut predicted_action = None;
    let (lagrangian_d, force_minus, force_plus) = match quadrature {
        Quadrature::Raw { lagrangian, minus, plus } => (*lagrangian, minus.clone(), plus.clone()),
        &Quadrature::Alpha(alpha) => {
            let one = arena.one();
            let beta = arena.sub(one, alpha);
            let qa: Vec<Expr> = (0..n)
                .map(|i| {
                    let a = arena.mul2(beta, q0[i]);
                    let b = arena.mul2(alpha, q1[i]);
                    arena.add2(a, b)
                })
                .collect();
            let ah = arena.mul2(alpha, h);
            let ta = arena.add2(t0, ah);
            let za = action_at(arena, &qa, ta, alpha);
            predicted_action = za;
            let (lv, fv) = at(arena, &qa, ta, za);
            let ld = arena.mul2(h, lv);
            // Both slots' forces carried as L's positions are (see the module docs).
            let scale = carried(arena, &qa, ta, za, alpha).unwrap_or_else(|| arena.one());
            let bh = arena.mul(&[beta, h, scale]);
            let ahs = arena.mul2(ah, scale);
            let minus: Vec<Expr> = fv.iter().map(|&f| arena.mul2(bh, f)).collect();
            let plus: Vec<Expr> = fv.iter().map(|&f| arena.mul2(ahs, f)).collect();
            (ld, minus, plus)
        }
        Quadrature::Trapezoid => {
            let half_h = {
                let half = arena.num(symbolic::Rational::new(1, 2).unwrap_or_else(symbolic::Rational::one));
                arena.mul2(half, h)
            };
            let t1 = arena.add2(t0, h);
            let (l0, f0) = at(arena, q0, t0, z0);
            let one = arena.one();
            let z1 = action_at(arena, q0, t0, one);
            predicted_action = z1;
            let (l1, f1) = at(arena, q1, t1, z1);
            let sum = arena.add2(l0, l1);
            let ld = arena.mul2(half_h, sum);
            // The first node's forces carried through the predicted z_k+1 as its positions are.
            let scale = carried(arena, q1, t1, z1, one).unwrap_or_else(|| arena.one());
            let first = arena.mul2(half_h, scale);
            let minus: Vec<Expr> = f0.iter().map(|&f| arena.mul2(first, f)).collect();
            let plus: Vec<Expr> = f1.iter().map(|&f| arena.mul2(half_h, f)).collect();
            (ld, minus, plus)
        }
    };
    (lagrangian_d, force_minus, force_plus, predicted_action)
}

/// The substitution of a node: the coordinates `q`, the velocity V, the time `t` (and the action
/// `zq` of a contact model).
fn node_map(syms: &crate::layout::Layout, q: &[Expr], velocity: &[Expr], t: Expr, zq: Option<Expr>) -> Vec<(Expr, Expr)> {
    let mut map: Vec<(Expr, Expr)> = syms.q.iter().copied().zip(q.iter().copied()).collect();
    map.extend(syms.qd.iter().copied().zip(velocity.iter().copied()));
    map.push((syms.t, t));
    if let (Some(z), Some(zq)) = (syms.z, zq) {
        map.push((z, zq));
    }
    map
}

/// A step's discrete momenta p_k (left), p_k+1 (right) and forces f⁻, f⁺.
struct Momenta<'a> {
    left: &'a [Expr],
    right: &'a [Expr],
    minus: &'a [Expr],
    plus: &'a [Expr],
}

/// Each symmetry's discrete momentum map and its law, once proved that L_d is invariant under
/// the diagonal action (otherwise an error into `errors`).
fn discrete_symmetries(
    model: &Model,
    arena: &mut Arena,
    errors: &mut Ctxt,
    symmetries: &[crate::model::Symmetry],
    (q0, q1): (&[Expr], &[Expr]),
    (d1, d2): (&[Expr], &[Expr]),
    momenta: &Momenta<'_>,
) -> Vec<DiscreteSymmetry> {
    let syms = &model.layout;
    let mut out = Vec::new();
    for sym in symmetries {
        let at0: Vec<(Expr, Expr)> = syms.q.iter().copied().zip(q0.iter().copied()).collect();
        let at1: Vec<(Expr, Expr)> = syms.q.iter().copied().zip(q1.iter().copied()).collect();
        let xi0: Vec<Expr> = sym.generator.iter().map(|&g| arena.subs(g, &at0)).collect();
        let xi1: Vec<Expr> = sym.generator.iter().map(|&g| arena.subs(g, &at1)).collect();
        let nodes: Vec<Expr> = q0.iter().chain(q1).copied().collect();
        out.extend(discrete_symmetry(model, arena, errors, sym, &nodes, (&xi0, &xi1), (d1, d2), momenta));
    }
    out
}

/// One symmetry's discrete momentum maps and law from its generator at the step's two nodes
/// (`xi0`, `xi1`, in the directions of the maps' components), once the zero test proves L_d
/// invariant under the diagonal action: ⟨D₀, ξ(q_k)⟩ + ⟨D₁, ξ(q_k+1)⟩ ≡ 0 for L_d's derivatives
/// `d0`, `d1` along the nodes (otherwise an error into `errors`, on the symmetry's name); the
/// source's law decided over the step's own symbols `nodes`.
#[allow(clippy::too_many_arguments)]
fn discrete_symmetry(
    model: &Model,
    arena: &mut Arena,
    errors: &mut Ctxt,
    sym: &crate::model::Symmetry,
    nodes: &[Expr],
    (xi0, xi1): (&[Expr], &[Expr]),
    (d0, d1): (&[Expr], &[Expr]),
    momenta: &Momenta<'_>,
) -> Option<DiscreteSymmetry> {
    let disc = model.discretization.as_ref()?;
    let Momenta { left, right, minus, plus } = *momenta;
    let a = arena.dot(d0, xi0);
    let b = arena.dot(d1, xi1);
    let residual = arena.add2(a, b);
    if !arena.zero_test(residual).is_zero() {
        errors.push(syn::Error::new_spanned(
            &sym.tokens,
            format!(
                "`{}` is a symmetry of L but not of the discrete Lagrangian of the `{}` rule: the quadrature point does not \
                 move with the action (a nonlinear action); its discrete momentum would not obey Noether's law",
                sym.name, disc.rule
            ),
        ));
        return None;
    }
    let minus_j = arena.dot(left, xi0);
    let plus_j = arena.dot(right, xi1);
    let s0 = arena.dot(minus, xi0);
    let s1 = arena.dot(plus, xi1);
    let source = arena.add2(s0, s1);
    let law = if arena.zero_test(source).is_zero() {
        MomentumLaw::Conserved
    } else if nodes.iter().all(|&v| {
        let d = arena.diff(source, v);
        arena.zero_test(d).is_zero()
    }) {
        MomentumLaw::ConstantDrift
    } else {
        MomentumLaw::General
    };
    Some(DiscreteSymmetry { name: sym.name.clone(), minus: minus_j, plus: plus_j, source, law })
}
