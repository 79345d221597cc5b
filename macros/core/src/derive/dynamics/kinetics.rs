//! The rest of a tree model's API along its tree, in code linear in the number of directions: the
//! forcing f, the Lagrangian, the energy and the momenta. A model on the recursive path whose other
//! items need no dense M and f (see `derive::mode`) gets these instead of the expanded ∂²L/∂q̇² and
//! f, which grow as n³ for a chain; M itself is the runtime's, from the directions' coefficients
//! and masses (`mechanics::tree`: n products M eⱼ, O(n²) time, or factored along the tree).
//! Spatial links ([`super::spatial`]) give the same quantities by Newton–Euler passes, M by the
//! composite rigid bodies (`Kinetics::mass_entries`, or the runtime's from `Kinetics::mass_links`);
//! below, the tree of directions.
//!
//! With the tree's directions d (joint j(d), parent π(d), coefficient S_d) and its mass components
//! c (direction d(c), mass m_c), every rate of the Lagrangian is vᶜ = Σ S_d q̇_{j(d)} over the path of
//! d(c), and with acc_d = acc_{π(d)} + C_d + S_d q̈_{j(d)} (C_d = ∂S_d/∂q_{j(d)} q̇²) its acceleration:
//!
//! ```text
//! F_d  = Σ_{c at d} m_c acc_d + Σ_{children e of d} F_e        (leaves → root)
//! (d/dt ∂T/∂q̇ − ∂T/∂q)_j = Σ_{d at j} S_d F_d                 (Kane's form: ṡ = ∂S/∂q q̇ cancels)
//! ```
//!
//! so M a is that sum with C = 0 and q̈ = a (the runtime's product), and f = τ − that sum at q̈ = 0. Likewise
//! vel_d = vel_{π(d)} + S_d q̇_{j(d)}, T = Σ_c ½ m_c vel²_{d(c)}, P_d = Σ_{c at d} m_c vel_d + Σ_e P_e,
//! p_j = Σ_{d at j} S_d P_d, and with the velocity-free part L̃₀ = L̃(v = 0): L = T + L̃₀ and
//! E = T − L̃₀ (T is quadratic in q̇: no position moves with time).

use rustc_hash::FxHashSet;
use symbolic::{Arena, Expr};

use super::Recursive;
use super::directions::{along, generalized, velocity_products};
use crate::derive::straight::{Bindings, Bound, Builder};
use crate::model::Model;

/// A tree model's quantities along its tree (each a function of its own).
pub struct Kinetics {
    /// f of M q̈ = f.
    pub forcing: Forcing,
    /// f(t, q, 0), f at rest (the velocities zero): the gravity pass alone along spatial links,
    /// τ at rest along a tree of directions (whose velocity products then vanish).
    pub static_forcing: Bound,
    /// L.
    pub lagrangian: Bound,
    /// E = q̇·p − L.
    pub energy: Bound,
    /// p = ∂L/∂q̇.
    pub momenta: Bound,
    /// Past [`super::CRBA_MAX_PAIRS`] along spatial links, each joint's A_j, ℓ_j and S_j (by rows,
    /// 18 values), the links' inertias (36 each, by rows) and the joints' armatures, for the
    /// runtime's M by the composite rigid bodies in the ground's axes (`LinkDynamics::mass_matrix`:
    /// O(n) code, a dot product per pair of joints one above the other); `None` otherwise (M's
    /// entries, or a tree of directions', the runtime's `mechanics::tree`).
    pub mass_links: Option<Bound>,
    /// The quantities of M factored along spatial links (`spatial::factor`, for the runtime's
    /// `LinkFactor`), from [`super::LINK_FACTOR_MIN_DOF`] coordinates on; `None` otherwise.
    pub link_factor: Option<FactorAlongLinks>,
    /// M's upper triangle by rows, by the composite rigid bodies along spatial links
    /// (`spatial::mass_entries`), up to [`super::CRBA_MAX_PAIRS`] pairs of joints; `None` otherwise (M from
    /// [`Self::mass_links`], or a tree of directions').
    pub mass_entries: Option<Bound>,
    /// The inverse dynamics τ(q, q̇, a) = M a − f in one Newton–Euler pass along spatial links (the
    /// kinetic part K less the other forces), the accelerations a as `Role::Acceleration` symbols;
    /// `None` for a tree of directions.
    pub inverse_dynamics: Option<Bound>,
    /// The same as loops over a long chain's repeated joints
    /// ([`super::spatial::looped::looped_inverse`]), which `inverse_dynamics` then runs; `None`
    /// where the chain does not loop (or for a tree of directions).
    pub inverse_looped: Option<Box<super::spatial::looped::Looped>>,
    /// The number after the last of these quantities' temporaries (where more may start).
    pub end: usize,
}

/// Where a tree model's f comes from.
pub enum Forcing {
    /// Its own bindings (a pass along the tree at q̈ = 0).
    Bound(Bound),
    /// The inverse dynamics' loops at zero accelerations, f = τ − K(q, q̇, 0) = −τ_id(t, x, 0): a
    /// chain whose inverse dynamics loops ([`Kinetics::inverse_looped`]).
    ByInverse,
}

/// The quantities of M factored along spatial links ([`super::spatial::factor`]).
pub struct FactorAlongLinks {
    /// Per joint A_j, ℓ_j, S_j (and with the parts U_j, D_j, M_jj), then the links' inertias.
    pub quantities: Bound,
    /// Whether they are the factor's parts (U_j, D_j and M_jj besides each joint's A_j, ℓ_j and
    /// S_j: `LinkFactor::from_parts`) or the joints alone (`LinkFactor::new`).
    pub parts: bool,
}

/// The quantities of `r`'s tree, their temporaries numbered after the recursion's (and its
/// tangent's).
pub fn kinetics(model: &Model, arena: &mut Arena, r: &Recursive) -> Kinetics {
    let syms = &model.layout;
    let n = model.dof();
    let mut offset = r.bindings.len()
        + r.jacobian.as_ref().map_or(0, super::RecursiveJacobian::bindings)
        + r.inverse.as_ref().map_or(0, |i| i.bindings());
    let mut next = |arena: &mut Arena, build: &dyn Fn(&mut Builder<'_>) -> Vec<Expr>| {
        let mut b = Builder { arena, syms, bindings: Vec::new(), offset };
        let outputs = build(&mut b);
        offset += b.bindings.len();
        prune(b.arena, b.bindings, outputs)
    };
    let tree = match &r.tree {
        super::Links::Directions(tree) => tree,
        super::Links::Spatial(links) => {
            let crba = super::crba_pairs(&links.parents) <= super::CRBA_MAX_PAIRS;
            let inverse_looped = super::spatial::looped::looped_inverse(model, arena, links).map(Box::new);
            return Kinetics {
                // Where the inverse dynamics loops, f is −τ_id(t, x, 0) from its loops: none of its own.
                forcing: if inverse_looped.is_some() {
                    Forcing::ByInverse
                } else {
                    Forcing::Bound(next(arena, &|b| super::spatial::forcing(b, links)))
                },
                static_forcing: next(arena, &|b| super::spatial::static_forcing(b, links)),
                lagrangian: next(arena, &|b| super::spatial::lagrangian(b, links)),
                energy: next(arena, &|b| super::spatial::energy(b, links)),
                momenta: next(arena, &|b| super::spatial::momenta(b, links)),
                // M by its entries (the CRBA, a transform per pair of joints on a path) up to
                // CRBA_MAX_PAIRS such pairs, by the runtime from the links' quantities above.
                mass_entries: crba.then(|| next(arena, &|b| super::spatial::mass_entries(b, links))),
                mass_links: (!crba).then(|| {
                    next(arena, &|b| {
                        let mut out = super::spatial::factor(b, links, false);
                        out.extend(&links.armature);
                        out
                    })
                }),
                link_factor: (n >= super::LINK_FACTOR_MIN_DOF).then(|| {
                    // Its parts specialised to the joints where the saddle point of constraints
                    // solves with it on the hot path; its joints alone otherwise.
                    // (The runtime's general factor knows no armature: with one, the parts.)
                    let parts = !model.constraints.is_empty() || links.has_armature(arena);
                    FactorAlongLinks { quantities: next(arena, &|b| super::spatial::factor(b, links, parts)), parts }
                }),
                inverse_dynamics: Some(next(arena, &|b| {
                    let k = super::spatial::kinetic_part(b, links);
                    (0..n)
                        .map(|j| {
                            let e = b.arena.sub(k[j], links.tau[j]);
                            b.bind(e)
                        })
                        .collect()
                })),
                inverse_looped,
                end: offset,
            };
        }
    };
    let zero = arena.zero();
    // f = τ − (the same at q̈ = 0 with the velocity products).
    let forcing = next(arena, &|b| {
        let c = velocity_products(b.arena, syms, tree);
        let zeros = vec![zero; n];
        let acc = along(b, tree, &zeros, Some(&c));
        let inertial = generalized(b, tree, n, &acc);
        (0..n)
            .map(|j| {
                let e = b.arena.sub(tree.tau[j], inertial[j]);
                b.bind(e)
            })
            .collect()
    });
    // f at rest: τ with the velocities zero (the velocity products vanish with them).
    let static_forcing = next(arena, &|b| {
        let rest = syms.at_rest(b.arena);
        let tau = b.arena.subs_many(&tree.tau, &rest);
        tau.into_iter().map(|e| b.bind(e)).collect()
    });
    // Velocities, T, and L, E, p from them.
    let kinetic = |b: &mut Builder<'_>| -> (Vec<Expr>, Expr) {
        let v: Vec<Expr> = (0..n).map(|j| syms.qd[j]).collect();
        let vel = along(b, tree, &v, None);
        let half = b.arena.num(symbolic::Rational::new(1, 2).expect("1/2"));
        let terms: Vec<Expr> = tree
            .comps
            .iter()
            .map(|&(d, m)| {
                let v2 = b.arena.powi(vel[d], 2);
                b.arena.mul(&[half, m, v2])
            })
            .collect();
        let t = b.arena.add(&terms);
        let t = b.bind(t);
        (vel, t)
    };
    let lagrangian = next(arena, &|b| {
        let (_, t) = kinetic(b);
        let l = b.arena.add2(t, tree.rest);
        vec![l]
    });
    let energy = next(arena, &|b| {
        let (_, t) = kinetic(b);
        let e = b.arena.sub(t, tree.rest);
        vec![e]
    });
    let momenta = next(arena, &|b| {
        let (vel, _) = kinetic(b);
        generalized(b, tree, n, &vel)
    });
    Kinetics {
        forcing: Forcing::Bound(forcing),
        static_forcing,
        lagrangian,
        energy,
        momenta,
        mass_links: None,
        mass_entries: None,
        link_factor: None,
        inverse_dynamics: None,
        inverse_looped: None,
        end: offset,
    }
}

/// The bindings the outputs reach, in their order.
pub(super) fn prune(arena: &Arena, bindings: Bindings, outputs: Vec<Expr>) -> Bound {
    let mut needed: FxHashSet<Expr> = FxHashSet::default();
    for &o in &outputs {
        needed.extend(arena.free_symbols(o));
    }
    let mut kept = Vec::with_capacity(bindings.len());
    for &(s, e) in bindings.iter().rev() {
        if needed.contains(&s) {
            needed.extend(arena.free_symbols(e));
            kept.push((s, e));
        }
    }
    kept.reverse();
    Bound { bindings: kept, outputs }
}
