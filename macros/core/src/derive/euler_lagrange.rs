//! Forced Euler–Lagrange equations, derived symbolically.
//!
//! For L(t, q, q̇) and a generalized force Q(t, q, q̇) (the one-form Qᵢ dqⁱ, entering with a plus sign):
//!
//! ```text
//! d/dt ∂L/∂q̇ − ∂L/∂q = Q
//! pᵢ   = ∂L/∂q̇ᵢ                                   (momenta)
//! Mᵢⱼ  = ∂²L/∂q̇ᵢ∂q̇ⱼ = ∂pᵢ/∂q̇ⱼ                      (mass matrix, symmetric)
//! fᵢ   = ∂L/∂qᵢ − Σⱼ ∂pᵢ/∂qⱼ q̇ⱼ − ∂pᵢ/∂t + Qᵢ        (so that M q̈ = f)
//! E    = Σᵢ q̇ᵢ pᵢ − L                               (energy; dE/dt = Q·q̇ − ∂L/∂t)
//! ```
//!
//! The term Σⱼ ∂pᵢ/∂qⱼ q̇ⱼ + ∂pᵢ/∂t is one forward-mode directional derivative of pᵢ along
//! (q̇, 1) in (q, t), not n separate derivatives.
//!
//! **f through the velocity expressions.** Differentiating the expanded L makes f carry velocity
//! products that cancel between ∂L/∂q and d/dt ∂L/∂q̇ without the canonical form seeing it (they
//! sit inside products such as mₖ·(…)). Where L has sums affine in q̇ — ẋ of a `define`d position,
//! a body angular velocity — f is derived through them instead (`forcing_through_velocities`):
//! each such vₖ = Jₖ(t, q)·q̇ + bₖ(t, q) is held as a symbol, and with L̃(t, q, q̇, w) = L,
//! πₖ = ∂L̃/∂wₖ and the convective aₖ = Σⱼ ∂vₖ/∂qⱼ q̇ⱼ + ∂vₖ/∂t,
//!
//! ```text
//! fᵢ = Qᵢ + ∂L̃/∂qᵢ − (d/dt ∂L̃/∂q̇ᵢ)⁰ − Σₖ Jₖᵢ π̇ₖ⁰ − Σₖ πₖ (d/dt Jₖᵢ − ∂vₖ/∂qᵢ)
//! ```
//!
//! (⁰: at q̈ = 0, where ẇₖ = aₖ; the last sum, Hamel's, vanishes when vₖ is the time derivative of
//! a function of (t, q) and is kept where it does not) — for particles, fᵢ = −Σₖ mₖ Jₖᵢ·aₖ − ∂V/∂qᵢ
//! + Qᵢ, the Gauss–Kane form. It is put in Horner form for evaluation (`symbolic::Arena::horner`).
//!
//! For the Jacobian of the first-order field x' = F(t, x), x = (q, q̇), F = (q̇, M⁻¹f), write the
//! residual g(t, q, q̇, a) = f − M a. At a = q̈ (the solved accelerations) g = 0, so
//! ∂q̈/∂x = M⁻¹ ∂g/∂x evaluated at a = q̈, and
//!
//! ```text
//! J = [ 0              I            ]
//!     [ M⁻¹ ∂g/∂q      M⁻¹ ∂g/∂q̇    ]
//! ```
//!
//! M is never inverted symbolically: the runtime solves with Cholesky (LU fallback). The same
//! argument gives the sensitivities to the inputs u and parameters p, ∂q̈/∂w = M⁻¹ ∂g/∂w at a = q̈.
//!
//! **Contact (Herglotz) Lagrangians** L(t, q, q̇, z) with an action variable z (*Contact impulsive constraints*, §2.2):
//! Herglotz's principle gives
//!
//! ```text
//! d/dt ∂L/∂q̇ − ∂L/∂q = ∂L/∂z · ∂L/∂q̇ + Q,        ż = L
//! fᵢ = ∂L/∂qᵢ − Σⱼ ∂pᵢ/∂qⱼ q̇ⱼ − ∂pᵢ/∂t − ∂pᵢ/∂z · L + pᵢ ∂L/∂z + Qᵢ     (so that M q̈ = f)
//! E  = q̇·p − L,     dE/dt = ∂L/∂z · E + Q·q̇ − ∂L/∂t
//! ```
//!
//! in full generality (p, M and ∂L/∂z may depend on z; the d/dt of p carries ∂p/∂z · ż with
//! ż = L). The state is x = (q, q̇, z); the field (q̇, M⁻¹f, L) has the extra Jacobian column
//! ∂q̈/∂z = M⁻¹ ∂g/∂z and row ∂ż/∂x = ∂L/∂x. When ∂g/∂z ≡ 0 (e.g. L = T − V + c z with c
//! constant) z *decouples*: (q, q̇) evolve without it and z is a quadrature of L along them.

use rustc_hash::FxHashSet;
use symbolic::{Arena, Expr, Node};

use super::straight::{Hoist, Tangent, tangent_hoisting};
use crate::layout::{Layout, Role};
use crate::model::{Model, View};

/// A matrix of expressions, by rows.
pub type Matrix = Vec<Vec<Expr>>;

/// The derived equations of one model.
pub struct Equations {
    /// pᵢ = ∂L/∂q̇ᵢ.
    pub momenta: Vec<Expr>,
    /// Mᵢⱼ (full square, the same node at (i, j) and (j, i)).
    pub mass: Vec<Vec<Expr>>,
    /// fᵢ, the right-hand side of M q̈ = f.
    pub forcing: Vec<Expr>,
    /// f(t, q, 0), the forcing at rest (the velocities zero), for `static_forces`; empty along a
    /// tree, whose kinetics carry their own pass.
    pub static_forcing: Vec<Expr>,
    /// E = q̇·p − L.
    pub energy: Expr,
    /// Power of the generalized forces, Q·q̇.
    pub power: Expr,
    /// ∂L/∂t (zero for autonomous Lagrangians).
    pub dl_dt: Expr,
    /// ∂gᵢ/∂qⱼ for g = f − M a.
    pub dg_dq: Vec<Vec<Expr>>,
    /// ∂gᵢ/∂q̇ⱼ for g = f − M a.
    pub dg_dv: Vec<Vec<Expr>>,
    /// Contact models: what the action variable adds (None for an ordinary Lagrangian).
    pub contact: Option<Contact>,
    /// ∂gᵢ/∂wⱼ for g = f − M a and w = (u, p), the inputs then the parameters named by
    /// `sensitivity(...)` (the sensitivities ∂F/∂u and ∂F/∂p).
    pub dg_dw: Vec<Vec<Expr>>,
    /// Symbols that `dg_dw` reads, bound to their expressions in dependency order (a tree model's
    /// ∂K/∂p along the tree for a parameter of its masses or directions; empty otherwise).
    pub dg_dw_bindings: Vec<(Expr, Expr)>,
    /// ∂L/∂w of a contact model (the row of ż = L; empty otherwise).
    pub dl_dw: Vec<Expr>,
    /// With orientations and the field Jacobian: ∂q̇/∂q (NQ × NQ) and ∂q̇/∂v (NQ × NV) of the rates.
    pub rate_jacobians: Option<(Matrix, Matrix)>,
    /// M a over the accelerations a ([`Role::Acceleration`] symbols) where M is formed column by
    /// column from its products M eⱼ ([`Columns`]); `None` where it is formed from its entries.
    pub mass_product: Option<Vec<Expr>>,
    /// Where the field Jacobian goes by g's tangent ([`Columns`]): the residual g = f − M a (M a
    /// from its product) differentiated along a tangent δx of the state at fixed a (O(|f| + |M a|)
    /// code, called for each basis direction of the state; `dg_dq` and `dg_dv` are then empty).
    pub residual_tangent: Option<Tangent>,
}

/// How a dense model's M and its field Jacobian reach its code. M: its n(n + 1)/2 entries as
/// straight-line formulas, or its columns M eⱼ from one product function M a called in a loop (the
/// runtime's `mechanics::mass_from_products`). M a is ∂p/∂q̇ along a — one directional derivative of
/// the momenta, about as large as f — where the entries ∂pᵢ/∂q̇ⱼ are n² of them: a chain of point
/// masses in relative angles has M's entries in 0.8 n³ operations and M a in 3.5 n² (20 links: 6 749
/// and 1 394; 50 links: 92 124 and 7 994), a chain in absolute angles both in O(n²) (100 links:
/// 30 001 and 20 896). The Jacobian: ∂g/∂x of the residual g = f − M a as 2n² formulas, or g's
/// tangent along a direction δx (the size of g) called for each of the 2n directions of the state.
///
/// Measured on the chain in relative angles (one-off harness, release, 2026-11-27): by columns the
/// field takes 1.8 times its time from the entries at 10 links, 5.2 at 20, 6.1 at 30 and 6.4 at 40
/// (n products of 3.5 n² operations against 0.8 n³ once: a constant factor at large n), while the
/// 40-link model builds in 4.3 s and 386 MB instead of 19 s and 1.1 GB; the Jacobian by tangents
/// takes 1.14 times the formulas' time at 10 links and 1.16 at 20 (its parts of the state alone
/// computed once per state: `Hoist::StateParts`), where the formulas build in 11.5 s
/// and 893 MB instead of 1.7 s and 310 MB, and at 30 links they crash rustc (SIGSEGV after 2.5
/// minutes) where the tangent builds in 3.5 s. Hence M by columns only where its entries outgrow a
/// budget of code, and the Jacobian by tangents from a smaller one (its cost at run time is 1.1–1.2
/// times, its code a third or less).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Columns {
    /// As the model's size decides ([`COLUMNS_MIN_NODES`], [`TANGENT_MIN_NODES`]).
    BySize,
    /// Always (`dynamics = columns`).
    Always,
    /// M from its entries (`dynamics = dense`); the Jacobian by size.
    Entries,
}

/// M goes by columns where its entries have at least this many expression nodes (a chain of point
/// masses in relative angles: 26 243 at 40 links, 49 303 at 50) and [`COLUMNS_RATIO`] times as many
/// as M a.
pub const COLUMNS_MIN_NODES: usize = 30_000;

/// … and at least this many times M a's nodes (a chain in absolute angles never: its ratio is 1.4
/// to 1.8).
pub const COLUMNS_RATIO: usize = 4;

/// The field Jacobian goes by g's tangent where 2n times g's nodes — about the size of ∂g/∂x's
/// formulas — reach this (the chain in relative angles from 16 links, 39 136: its formulas would be
/// 1.26 MB of tokens, the tangent's model at 20 links is 0.59 MB; in absolute angles, with
/// `dynamics = dense`, from 20 links, 51 840).
pub const TANGENT_MIN_NODES: usize = 30_000;

impl Columns {
    /// As `model` asks (`dynamics = columns | dense`), or by size; `None` for a model with
    /// orientations (Hamel's M v̇ = f) or an action variable, which keep the entries and formulas.
    pub fn of(model: &Model) -> Option<Columns> {
        if !model.layout.orientations.is_empty() || model.layout.z.is_some() {
            return None;
        }
        Some(match model.dynamics.as_ref().map(ToString::to_string).as_deref() {
            Some("columns") => Columns::Always,
            Some("dense") => Columns::Entries,
            _ => Columns::BySize,
        })
    }

    /// Whether M goes by columns, its entries having `entries` nodes (counted where the size
    /// decides) and its product `product`.
    fn mass(self, arena: &Arena, entries: Option<usize>, product: &[Expr]) -> bool {
        match (self, entries) {
            (Columns::Always, _) => true,
            (Columns::BySize, Some(entries)) => {
                entries >= COLUMNS_MIN_NODES && entries >= COLUMNS_RATIO * arena.count_nodes(product)
            }
            _ => false,
        }
    }

    /// Whether the field Jacobian goes by g's tangent, for `n` coordinates and the residual `g`.
    fn tangent(self, arena: &Arena, n: usize, g: &[Expr]) -> bool {
        self == Columns::Always || 2 * n * arena.count_nodes(g) >= TANGENT_MIN_NODES
    }
}

/// The derived quantities of a contact (Herglotz) Lagrangian L(t, q, q̇, z).
pub struct Contact {
    /// ∂L/∂z, the rate in the energy law dE/dt = ∂L/∂z · E + Q·q̇ − ∂L/∂t.
    pub dl_dz: Expr,
    /// ∂gᵢ/∂z for g = f − M a.
    pub dg_dz: Vec<Expr>,
    /// ∂L/∂x over the state x = (q, q̇, z) (the row of ż = L in the field Jacobian).
    pub dl_dx: Vec<Expr>,
    /// dE/dt = ∂L/∂z · E + Q·q̇ − ∂L/∂t along the unconstrained motion.
    pub energy_rate: Expr,
    /// Whether z decouples: the equations of (q, q̇) do not involve it (∂g/∂z ≡ 0).
    pub decoupled: bool,
    /// Whether ∂L/∂z is a constant c (a function of the parameters only): then E(t) = E(t₀) e^{c (t − t₀)}
    /// without forces.
    pub constant_rate: bool,
}

/// Derives the equations of motion of `model`.
pub fn derive(model: &Model, arena: &mut Arena) -> Equations {
    derive_with(model, arena, true)
}

/// [`derive()`], with the residual's Jacobians ∂g/∂q, ∂g/∂q̇ (of the field Jacobian, as formulas or
/// by g's tangent) and M by columns ([`Columns`]) only if `residual_jacobian` — the dense path's
/// (a model with the recursive dynamics has its own Jacobian, from the recursion's tangent, and its
/// own M).
pub fn derive_with(model: &Model, arena: &mut Arena, residual_jacobian: bool) -> Equations {
    let n = model.dof();
    let Model { layout: syms, lagrangian, force, sensitivity, field_jacobian, constraints, .. } = model;
    let l = *lagrangian;

    let momenta: Vec<Expr> = arena.gradient(l, &syms.qd);

    // Column j of M is ∂p/∂q̇ⱼ (one shared pass per column); M is symmetric. Each entry in Horner
    // form: a chain's Σₖ mₖ lᵢlⱼ(cos qᵢ cos qⱼ + sin qᵢ sin qⱼ) as lᵢlⱼ(…)(Σₖ mₖ), for its code and
    // its rustdoc alike.
    let mut upper = Vec::with_capacity(n * (n + 1) / 2);
    for (j, &v) in syms.qd.iter().enumerate() {
        upper.extend(arena.diff_many(&momenta[..=j], v));
    }
    let upper = arena.horner_many(&upper);
    // Column j holds rows 0..=j, from offset j(j + 1)/2.
    let mass: Vec<Vec<Expr>> =
        (0..n).map(|i| (0..n).map(|j| upper[i.max(j) * (i.max(j) + 1) / 2 + i.min(j)]).collect()).collect();

    let dl_dz = syms.z.map(|z| arena.diff(l, z));
    let forcing = match dl_dz {
        _ if !syms.orientations.is_empty() => forcing_quasi(arena, syms, l, &momenta, dl_dz, force),
        None => forcing_through_velocities(arena, syms, l, force, &model.exact_rates)
            .unwrap_or_else(|| forcing_direct(arena, syms, l, &momenta, None, force)),
        Some(c) => forcing_direct(arena, syms, l, &momenta, Some(c), force),
    };

    let qd_p = arena.dot(&syms.qd, &momenta);
    let energy = arena.sub(qd_p, l);
    let power = arena.dot(force, &syms.qd);
    let dl_dt = arena.diff(l, syms.t);

    // M a: ∂p/∂q̇ along a (exact for any L: Mᵢⱼ = ∂pᵢ/∂q̇ⱼ), for M by columns or g's tangent (on the
    // dense path only: `residual_jacobian`).
    // (Derived only where it may be taken: the tangent of an unconstrained model's Jacobian, or M
    // whose entries reach the budget.)
    let columns = Columns::of(model).filter(|_| residual_jacobian);
    let tangent_wanted = *field_jacobian && constraints.is_empty();
    let entries = (columns == Some(Columns::BySize)).then(|| arena.count_nodes(&upper));
    let product = columns
        .filter(|c| match c {
            Columns::Always => true,
            Columns::Entries => tangent_wanted,
            Columns::BySize => tangent_wanted || entries.is_some_and(|e| e >= COLUMNS_MIN_NODES),
        })
        .map(|_| {
            let along: Vec<(Expr, Expr)> = syms.qd.iter().copied().zip(syms.qdd.iter().copied()).collect();
            let product = arena.directional_many(&momenta, &along);
            arena.horner_many(&product)
        });
    let by_columns = columns.zip(product.as_deref()).is_some_and(|(c, p)| c.mass(arena, entries, p));
    let tangent_residual: Option<Vec<Expr>> = match (columns, &product) {
        (Some(c), Some(product)) if tangent_wanted => {
            let g: Vec<Expr> = (0..n).map(|i| arena.sub(forcing[i], product[i])).collect();
            c.tangent(arena, n, &g).then_some(g)
        }
        _ => None,
    };
    // (Its state-only parts computed once per state, not per direction.)
    let residual_tangent =
        tangent_residual.as_ref().map(|g| tangent_hoisting(model, arena, &Vec::new(), g, 0, Hoist::StateParts));
    let mass_product = product.filter(|_| by_columns);
    let residual: Vec<Expr> = match tangent_residual {
        Some(g) => g,
        None => (0..n)
            .map(|i| {
                let ma = match &mass_product {
                    Some(product) => product[i],
                    None => arena.dot(&mass[i], &syms.qdd),
                };
                arena.sub(forcing[i], ma)
            })
            .collect(),
    };
    // ∂g/∂qⱼ and ∂g/∂q̇ⱼ column by column, each one shared pass over all of g — when the field
    // Jacobian is wanted (O(n³) terms: most of a large model's expansion and code); a constrained
    // model derives its own from the saddle-point system.
    let [dg_dq, dg_dv] = if *field_jacobian && constraints.is_empty() && residual_jacobian && residual_tangent.is_none() {
        // With orientations, ∂/∂q leaves the tangent directions: |q|² is its sum of squares again.
        if syms.orientations.is_empty() {
            arena.jacobian_blocks(&residual, [&syms.q, &syms.qd])
        } else {
            let residual = syms.unhold_norms(arena, &residual);
            [arena.jacobian(&residual, &syms.q), arena.jacobian(&residual, &syms.qd)]
        }
    } else {
        [Vec::new(), Vec::new()]
    };
    // The rates' Jacobians ∂q̇/∂q and ∂q̇/∂v of a model with orientations (q̇ = v otherwise).
    let rate_jacobians = (*field_jacobian && !syms.orientations.is_empty())
        .then(|| (arena.jacobian(&syms.rates, &syms.q), arena.jacobian(&syms.rates, &syms.qd)));

    let contact = syms.z.zip(dl_dz).map(|(z, dl_dz)| {
        let dg_dz = arena.diff_many(&residual, z);
        let decoupled = dg_dz.iter().all(|&g| arena.zero_test(g).is_zero());
        let mut state: Vec<Expr> = syms.q.iter().chain(&syms.qd).copied().collect();
        state.push(z);
        state.push(syms.t);
        let constant_rate = state.iter().all(|&s| {
            let d = arena.diff(dl_dz, s);
            arena.zero_test(d).is_zero()
        });
        // ∂L/∂x over the whole state: with orientations, ∂/∂q of L with |q|² as its sum of squares.
        let dl_dx = if syms.orientations.is_empty() {
            arena.gradient(l, &state[..2 * n + 1])
        } else {
            let unheld = syms.unhold_norms(arena, &[l])[0];
            arena.gradient(unheld, &state[..syms.position_dim() + n + 1])
        };
        let scaled = arena.mul2(dl_dz, energy);
        let gained = arena.add2(scaled, power);
        let energy_rate = arena.sub(gained, dl_dt);
        Contact { dl_dz, dg_dz, dl_dx, energy_rate, decoupled, constant_rate }
    });

    // Only the parameters asked for with `sensitivity(...)`: ∂g/∂p touches the whole model (half
    // again the expansion time of a 20-link chain for its three parameters).
    let w: Vec<Expr> = syms.u.iter().copied().chain(sensitivity.iter().map(|&i| syms.params[i])).collect();
    let dg_dw = arena.jacobian(&residual, &w);
    let dl_dw = if syms.z.is_some() { arena.gradient(l, &w) } else { Vec::new() };

    let rest = syms.at_rest(arena);
    let static_forcing = arena.subs_many(&forcing, &rest);
    Equations {
        momenta,
        mass,
        forcing,
        static_forcing,
        energy,
        power,
        dl_dt,
        dg_dq,
        dg_dv,
        contact,
        dg_dw,
        dg_dw_bindings: Vec::new(),
        dl_dw,
        rate_jacobians,
        mass_product,
        residual_tangent,
    }
}

/// ∂K/∂p of a tree model's kinetic part for the sensitivity parameters that enter its masses or
/// directions (see [`derive_along_tree`]).
pub struct KineticDerivatives<'a> {
    /// Those parameters, by their place in `sensitivity(...)`.
    pub which: &'a [usize],
    /// The symbols `outputs` read, bound in dependency order.
    pub bindings: &'a [(Expr, Expr)],
    /// ∂Kᵢ/∂pⱼ row by row (coordinate i, then parameter j of `which`).
    pub outputs: &'a [Expr],
}

/// The equations of a model whose M, f, E and p come from its kinematic tree instead
/// ([`crate::derive::dynamics::kinetics()`]): only the power Q·q̇ and ∂L/∂t. `momenta`, `mass` and
/// `forcing` are empty and `energy` is zero — `derive::mode` takes this path only for models none
/// of whose other items reads them.
///
/// `kinetic`: for the sensitivity parameters (by their place in `sensitivity(...)`) that enter the
/// tree's masses or directions, ∂K/∂p along the tree ([`crate::derive::dynamics::parameter_derivatives`],
/// outputs row by row over those parameters); the others, and the inputs, enter τ only.
pub fn derive_along_tree(model: &Model, arena: &mut Arena, tau: &[Expr], kinetic: Option<KineticDerivatives<'_>>) -> Equations {
    let syms = &model.layout;
    let power = arena.dot(&model.force, &syms.qd);
    let dl_dt = arena.diff(model.lagrangian, syms.t);
    // ∂g/∂w (g = f − M a = τ − K(q, q̇, a)) for the inputs and sensitivity parameters: ∂τ/∂w, less
    // ∂K/∂p for a parameter of the tree's masses or directions.
    let w: Vec<Expr> = syms.u.iter().copied().chain(model.sensitivity.iter().map(|&i| syms.params[i])).collect();
    let mut dg_dw = if w.is_empty() { Vec::new() } else { arena.jacobian(tau, &w) };
    let mut dg_dw_bindings = Vec::new();
    if let Some(KineticDerivatives { which, bindings, outputs }) = kinetic {
        let nu = syms.u.len();
        for (i, row) in dg_dw.iter_mut().enumerate() {
            for (j, &s) in which.iter().enumerate() {
                row[nu + s] = arena.sub(row[nu + s], outputs[i * which.len() + j]);
            }
        }
        dg_dw_bindings = bindings.to_vec();
    }
    Equations {
        momenta: Vec::new(),
        mass: Vec::new(),
        forcing: Vec::new(),
        static_forcing: Vec::new(),
        energy: arena.zero(),
        power,
        dl_dt,
        dg_dq: Vec::new(),
        dg_dv: Vec::new(),
        contact: None,
        dg_dw,
        dg_dw_bindings,
        dl_dw: Vec::new(),
        rate_jacobians: (model.field_jacobian && !syms.orientations.is_empty())
            .then(|| (arena.jacobian(&syms.rates, &syms.q), arena.jacobian(&syms.rates, &syms.qd))),
        mass_product: None,
        residual_tangent: None,
    }
}

/// fᵢ = ∂L/∂qᵢ − Σⱼ ∂pᵢ/∂qⱼ q̇ⱼ − ∂pᵢ/∂t + Qᵢ from the momenta of the expanded L (∂L/∂q pulled
/// back to the velocities, Kᵀ∂L/∂q, with quasi-velocities; with an action
/// variable, `dl_dz` = ∂L/∂z adds −∂pᵢ/∂z · L + pᵢ ∂L/∂z). The term Σⱼ ∂pᵢ/∂qⱼ q̇ⱼ + ∂pᵢ/∂t is one
/// forward-mode directional derivative of pᵢ along (q̇, 1) in (q, t), not n separate derivatives.
fn forcing_direct(arena: &mut Arena, syms: &Layout, l: Expr, momenta: &[Expr], dl_dz: Option<Expr>, force: &[Expr]) -> Vec<Expr> {
    let mut transport = syms.total_derivative(arena, momenta, true);
    if let Some(z) = syms.z {
        let dp_dz = arena.diff_many(momenta, z);
        for (tr, dp) in transport.iter_mut().zip(dp_dz) {
            let along = arena.mul2(dp, l);
            *tr = arena.add2(*tr, along);
        }
    }
    // ∂L/∂q pulled back to the velocities (Kᵀ∂L/∂q; ∂L/∂q itself when q̇ = v).
    let dl_dq = arena.gradient(l, &syms.q);
    let generalized = syms.pull_back(arena, &dl_dq);
    (0..syms.dof())
        .map(|i| {
            let rest = arena.sub(generalized[i], transport[i]);
            let rest = match dl_dz {
                Some(c) => {
                    let herglotz = arena.mul2(momenta[i], c);
                    arena.add2(rest, herglotz)
                }
                None => rest,
            };
            arena.add2(rest, force[i])
        })
        .collect()
}

/// Hamel's equations, for models whose velocities v are not all the coordinates' rates: an
/// orientation's quaternion q turns at q̇ = ½ q ⊗ (0, ω) with the body angular velocity ω as its
/// velocities, so q̇ = K(q) v ([`Layout::rates`]). With pₐ = ∂L/∂vₐ,
///
/// ```text
/// fₐ = Σᵢ Kᵢₐ ∂L/∂qᵢ − (Σᵢ ∂pₐ/∂qᵢ q̇ᵢ + ∂pₐ/∂t) + (p_ω × ω)ₐ + Qₐ        (so that M v̇ = f)
/// ```
///
/// the last term on an orientation's three rows only: its body velocities do not commute
/// ([eₐ, e_b] = ε_abc e_c), which gives the Euler–Poincaré equations d/dt ∂L/∂ω = ∂L/∂ω × ω + τ
/// (τ = Kᵀ∂L/∂q, the torque of the configuration's dependence, e.g. gravity). For a free body,
/// I ω̇ = Iω × ω: Euler's equations. With an action variable z (a contact Lagrangian), the Herglotz
/// terms −∂pₐ/∂z · L + pₐ ∂L/∂z join as for coordinates ([`forcing_direct`]).
fn forcing_quasi(arena: &mut Arena, syms: &Layout, l: Expr, momenta: &[Expr], dl_dz: Option<Expr>, force: &[Expr]) -> Vec<Expr> {
    let mut forcing = forcing_direct(arena, syms, l, momenta, dl_dz, force);
    for o in &syms.orientations {
        let p: [Expr; 3] = std::array::from_fn(|c| momenta[o.v_start + c]);
        let w: [Expr; 3] = std::array::from_fn(|c| syms.qd[o.v_start + c]);
        let gyroscopic = arena.cross(&p, &w);
        for (c, g) in gyroscopic.into_iter().enumerate() {
            forcing[o.v_start + c] = arena.add2(forcing[o.v_start + c], g);
        }
    }
    arena.horner_many(&forcing)
}

/// fᵢ derived through the Lagrangian's velocity expressions — the largest sums in L that are
/// affine in q̇, vₖ = Jₖ(t, q)·q̇ + bₖ(t, q) (ẋ of a `define`d position x = x(t, q), an angular
/// velocity) — held as symbols wₖ: with L̃(t, q, q̇, w) = L and πₖ = ∂L̃/∂wₖ,
///
/// ```text
/// Eᵢ = d/dt ∂L̃/∂q̇ᵢ − ∂L̃/∂qᵢ + Σₖ Jₖᵢ π̇ₖ + Σₖ πₖ (d/dt Jₖᵢ − ∂vₖ/∂qᵢ)
/// fᵢ = Qᵢ − Eᵢ at q̈ = 0,   where then ẇₖ = aₖ = Σⱼ ∂vₖ/∂qⱼ q̇ⱼ + ∂vₖ/∂t
/// ```
///
/// (the last sum, Hamel's, vanishes for vₖ = d/dt xₖ(t, q), and is kept only where it does not).
/// It is the same fᵢ as [`forcing_direct`]'s, but the velocity products that cancel between ∂L/∂q
/// and d/dt ∂L/∂q̇ never appear: for L = Σ mₖ|ẋₖ|²/2 − V, fᵢ = −Σₖ mₖ Jₖᵢ·aₖ − ∂V/∂qᵢ + Qᵢ, a third
/// of the operations of the expanded route on a pendulum chain. `None` when L has no such sum.
fn forcing_through_velocities(
    arena: &mut Arena,
    syms: &Layout,
    l: Expr,
    force: &[Expr],
    exact_rates: &FxHashSet<Expr>,
) -> Option<Vec<Expr>> {
    let deg = arena.degrees(&[l], &syms.qd);
    let mut velocities = Vec::new();
    let mut seen = FxHashSet::default();
    let mut stack = vec![l];
    while let Some(e) = stack.pop() {
        if !seen.insert(e) || deg[e.index()] == Some(0) {
            continue;
        }
        match arena.node(e) {
            Node::Add(_) if deg[e.index()] == Some(1) => velocities.push(e),
            node => node.for_each_child(|c| stack.push(c)),
        }
    }
    if velocities.is_empty() {
        return None;
    }
    velocities.sort_unstable();
    let (n, m) = (syms.q.len(), velocities.len());
    let w: Vec<Expr> = (0..m).map(|k| syms.symbol(arena, Role::Substituted(k))).collect();
    let held: Vec<(Expr, Expr)> = velocities.iter().copied().zip(w.iter().copied()).collect();
    let lt = arena.subs(l, &held);

    // Kinematics of vₖ: Jₖᵢ, the convective aₖ, and Hamel's d/dt Jₖᵢ − ∂vₖ/∂qᵢ.
    let jac = arena.jacobian(&velocities, &syms.qd);
    let conv = syms.total_derivative(arena, &velocities, true);
    let flat: Vec<Expr> = jac.iter().flatten().copied().collect();
    let jac_rate = syms.total_derivative(arena, &flat, true);
    let dv_dq = arena.jacobian(&velocities, &syms.q);
    let mut hamel = vec![vec![arena.zero(); n]; m];
    // (A velocity made as d/dt f(t, q) has none: d/dt ∂f/∂qᵢ − ∂/∂qᵢ df/dt ≡ 0.)
    for k in (0..m).filter(|&k| !exact_rates.contains(&velocities[k])) {
        for i in 0..n {
            let h = arena.sub(jac_rate[k * n + i], dv_dq[k][i]);
            if !arena.zero_test(h).is_zero() {
                hamel[k][i] = h;
            }
        }
    }

    // d/dt at q̈ = 0 of functions of (t, q, q̇, w): seeds q̇ on q, 1 on t, aₖ on wₖ.
    let mut seeds: Vec<(Expr, Expr)> = syms.q.iter().copied().zip(syms.qd.iter().copied()).collect();
    seeds.push((syms.t, arena.one()));
    seeds.extend(w.iter().copied().zip(conv));
    let explicit = arena.gradient(lt, &syms.qd);
    let pi = arena.gradient(lt, &w);
    let rates = arena.directional_many(&[&explicit[..], &pi[..]].concat(), &seeds);
    let (explicit_rate, pi_rate) = rates.split_at(n);
    let released: Vec<(Expr, Expr)> = held.iter().map(|&(v, s)| (s, v)).collect();
    let forcing = (0..n)
        .map(|i| {
            let dl_dq = arena.diff(lt, syms.q[i]);
            let column: Vec<Expr> = jac.iter().map(|row| row[i]).collect();
            let inertial = arena.dot(&column, pi_rate);
            let hamel_column: Vec<Expr> = hamel.iter().map(|row| row[i]).collect();
            let gyroscopic = arena.dot(&pi, &hamel_column);
            let lhs = arena.add(&[explicit_rate[i], inertial, gyroscopic]);
            let rest = arena.sub(dl_dq, lhs);
            let f = arena.add2(rest, force[i]);
            arena.subs(f, &released)
        })
        .collect::<Vec<_>>();
    // For evaluation: shared factors out of the sums (Σₖ Jₖᵢ π̇ₖ groups by the factors of Jₖᵢ).
    Some(arena.horner_many(&forcing))
}

/// Deterministic sample points for numeric checks ([`Layout::sample_points`]).
pub fn sample_points(model: &Model, count: usize) -> Vec<rustc_hash::FxHashMap<Expr, f64>> {
    model.layout.sample_points(count)
}

/// Checks that the mass matrix is not identically singular. A coordinate whose row of M is
/// identically zero has no kinetic term and is named in the error; otherwise M is tested for
/// singularity (relative pivot ≤ 1e-10) at several sample points.
pub fn check_regular(model: &View<'_>, eq: &Equations) -> syn::Result<()> {
    let n = model.dof();
    let arena = &model.arena;
    let mut errors = crate::diagnostics::Ctxt::new();
    for i in 0..n {
        if eq.mass[i].iter().all(|&m| arena.zero_test(m).is_zero()) {
            let c = match model.layout.orientation_of_velocity(i) {
                Some((o, _)) => &o.name,
                None => &model.coordinates[i],
            };
            errors.push(syn::Error::new(
                c.span(),
                format!(
                    "coordinate `{c}` has no kinetic term: the Lagrangian is at most linear in `dot({c})`, so its row \
                     of the mass matrix ∂²L/∂q̇² is zero and the equations cannot be solved for its acceleration. \
                     Give `{c}` kinetic energy, or remove the coordinate (a joint of a URDF file that moves no mass: \
                     hold it fixed with `urdf(path = ..., lock = [{c}])`)"
                ),
            ));
        }
    }
    errors.check()?;
    let flat: Vec<Expr> = eq.mass.iter().flatten().copied().collect();
    require_regular(model, "", |values| {
        let lookup = |s: Expr| values.get(&s).copied().unwrap_or(1.0);
        relative_min_pivot(arena.eval_many(&flat, &lookup), n)
    })
}

/// That M is not singular at every sampled state: `relative_pivot` gives M's smallest pivot
/// relative to its scale at a sample (`None`: not finite, no verdict); at or below 1e-10 at every
/// sample is an error, `how` saying how M was factored.
pub(crate) fn require_regular(
    model: &View<'_>,
    how: &str,
    relative_pivot: impl Fn(&rustc_hash::FxHashMap<Expr, f64>) -> Option<f64>,
) -> syn::Result<()> {
    let singular_everywhere = sample_points(model, 4).iter().all(|values| relative_pivot(values).is_some_and(|p| p <= 1e-10));
    if singular_everywhere {
        return Err(syn::Error::new_spanned(
            &model.lagrangian_tokens,
            format!(
                "the mass matrix ∂²L/∂q̇² is singular at every sampled state{how}: some combination of velocities has no \
                 kinetic energy (check that every coordinate moves some mass independently)"
            ),
        ));
    }
    Ok(())
}

/// Gaussian elimination with partial pivoting on an n×n row-major matrix; returns the smallest
/// pivot relative to the largest entry (None if not finite).
pub(crate) fn relative_min_pivot(mut a: Vec<f64>, n: usize) -> Option<f64> {
    let scale = a.iter().fold(0.0f64, |m, x| m.max(x.abs()));
    if !scale.is_finite() {
        return None;
    }
    if scale == 0.0 {
        return Some(0.0);
    }
    let mut min_pivot = f64::INFINITY;
    for k in 0..n {
        let (p, _) = (k..n).map(|r| (r, a[r * n + k].abs())).fold((k, -1.0), |b, c| if c.1 > b.1 { c } else { b });
        for c in 0..n {
            a.swap(k * n + c, p * n + c);
        }
        let pivot = a[k * n + k];
        min_pivot = min_pivot.min(pivot.abs() / scale);
        if pivot == 0.0 {
            return Some(0.0);
        }
        for r in k + 1..n {
            let factor = a[r * n + k] / pivot;
            for c in k..n {
                a[r * n + c] -= factor * a[k * n + c];
            }
        }
    }
    Some(min_pivot)
}

/// ∇E and ∇²E over the state x = (q, q̇[, z]) — the first integral of periodic-orbit continuation
/// and its dissipative embedding f̃ = f + ξ∇E (derived only for models that are hybrid systems).
pub struct EnergyDerivatives {
    /// ∂E/∂xᵢ.
    pub gradient: Vec<Expr>,
    /// ∂²E/∂xᵢ∂xⱼ (full square).
    pub hessian: Vec<Vec<Expr>>,
}

/// The energy's gradient and Hessian over the state.
pub fn energy_derivatives(model: &Model, arena: &mut Arena, eq: &Equations) -> EnergyDerivatives {
    let vars = model.layout.state_symbols();
    // Over every direction of the state: an orientation's |q|² as its sum of squares.
    let energy = model.layout.unhold_norms(arena, &[eq.energy])[0];
    let gradient = arena.gradient(energy, &vars);
    let hessian = arena.jacobian(&gradient, &vars);
    EnergyDerivatives { gradient, hessian }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// f through the velocity expressions is the f of the expanded route (identity test at random
    /// points): sums of particles, a moving support (∂/∂t), forces, explicit velocities beside the
    /// sums, a Lagrangian not quadratic in them, and the angular velocities of a rigid body — not
    /// time derivatives of anything, so Hamel's term is needed (without it the top's f differs).
    #[test]
    fn forcing_through_velocities_is_the_expanded_forcing() {
        let chain = crate::fixtures::pendulum_chain_struct("Chain3", 3);
        let sources = [
            chain.as_str(),
            "#[mechanics(coordinates(th, s), define(x = a * (w * t).cos() + s * th.sin(), y = -s * th.cos()),
               lagrangian = m / 2 * (dot(x).powi(2) + dot(y).powi(2)) + j / 2 * dot(th).powi(2) + c * dot(s) * dot(th) * th.cos() - k / 2 * s.powi(2) - m * g * y,
               force(th = -b * dot(th), s = u * t.sin()))]
             struct Support { a: f64, w: f64, m: f64, j: f64, c: f64, k: f64, g: f64, b: f64, u: f64 }",
            "#[mechanics(coordinates(x, y), define(vx = dot(x) + e * y.sin() * dot(y), vy = dot(y) * x.cos()),
               lagrangian = -m * (1 - vx.powi(2) - vy.powi(2)).sqrt() - k * (x.powi(2) + y.powi(2)))]
             struct Relativistic { e: f64, m: f64, k: f64 }",
            "#[mechanics(coordinates(ph, th, ps),
               define(w1 = dot(ph) * th.sin() * ps.sin() + dot(th) * ps.cos(),
                      w2 = dot(ph) * th.sin() * ps.cos() - dot(th) * ps.sin(),
                      w3 = dot(ph) * th.cos() + dot(ps)),
               lagrangian = a / 2 * w1.powi(2) + b / 2 * w2.powi(2) + c / 2 * w3.powi(2) - m * g * l * th.cos())]
             struct Top { a: f64, b: f64, c: f64, m: f64, g: f64, l: f64 }",
        ];
        for src in sources {
            let (model, mut arena) = crate::fixtures::lowered_model(src);
            let eq = derive(&model, &mut arena);
            let Model { layout, lagrangian, force, .. } = &model;
            let arena = &mut arena;
            let direct = forcing_direct(arena, layout, *lagrangian, &eq.momenta, None, force);
            for (i, (&structured, &expanded)) in eq.forcing.iter().zip(&direct).enumerate() {
                let difference = arena.sub(structured, expanded);
                assert!(arena.zero_test(difference).is_zero(), "f[{i}] differs between the routes in {src}");
                let held =
                    arena.free_symbols(structured).into_iter().any(|s| matches!(layout.role(s), Some(Role::Substituted(_))));
                assert!(!held, "f[{i}] still holds a velocity symbol in {src}");
            }
        }
    }
}
