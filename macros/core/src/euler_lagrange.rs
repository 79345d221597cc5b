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
//! **Contact (Herglotz) Lagrangians** L(t, q, q̇, z) with an action variable z (seed 001, §2.2):
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

use symbolic::Expr;

use crate::model::Model;

/// The derived equations of one model.
pub struct Equations {
    /// pᵢ = ∂L/∂q̇ᵢ.
    pub momenta: Vec<Expr>,
    /// Mᵢⱼ (full square, the same node at (i, j) and (j, i)).
    pub mass: Vec<Vec<Expr>>,
    /// fᵢ, the right-hand side of M q̈ = f.
    pub forcing: Vec<Expr>,
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
    /// ∂L/∂w of a contact model (the row of ż = L; empty otherwise).
    pub dl_dw: Vec<Expr>,
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
pub fn derive(model: &mut Model) -> Equations {
    let n = model.dof();
    let Model { arena, layout: syms, lagrangian, force, sensitivity, field_jacobian, constraints, .. } = model;
    let qdd = &syms.qdd;
    let l = *lagrangian;

    let momenta: Vec<Expr> = arena.gradient(l, &syms.qd);

    // Column j of M is ∂p/∂q̇ⱼ (one shared pass per column); M is symmetric.
    let mut mass = vec![vec![arena.zero(); n]; n];
    for (j, &v) in syms.qd.iter().enumerate() {
        let column = arena.diff_many(&momenta[..=j], v);
        for (i, m) in column.into_iter().enumerate() {
            mass[i][j] = m;
            mass[j][i] = m;
        }
    }

    // Directional derivative along (q̇, 1) in (q, t), for all momenta in one pass; with an action
    // variable, d/dt p also has ∂p/∂z · ż = ∂p/∂z · L, and the Herglotz term p ∂L/∂z joins f.
    let mut transport = arena.total_derivative(&momenta, &syms.q, &syms.qd, Some(syms.t));
    let dl_dz = syms.z.map(|z| arena.diff(l, z));
    if let Some(z) = syms.z {
        let dp_dz = arena.diff_many(&momenta, z);
        for (tr, dp) in transport.iter_mut().zip(dp_dz) {
            let along = arena.mul2(dp, l);
            *tr = arena.add2(*tr, along);
        }
    }
    let forcing: Vec<Expr> = (0..n)
        .map(|i| {
            let dl_dq = arena.diff(l, syms.q[i]);
            let rest = arena.sub(dl_dq, transport[i]);
            let rest = match dl_dz {
                Some(c) => {
                    let herglotz = arena.mul2(momenta[i], c);
                    arena.add2(rest, herglotz)
                }
                None => rest,
            };
            arena.add2(rest, force[i])
        })
        .collect();

    let qd_p = arena.dot(&syms.qd, &momenta);
    let energy = arena.sub(qd_p, l);
    let power = arena.dot(force, &syms.qd);
    let dl_dt = arena.diff(l, syms.t);

    let residual: Vec<Expr> = (0..n)
        .map(|i| {
            let ma = arena.dot(&mass[i], qdd);
            arena.sub(forcing[i], ma)
        })
        .collect();
    // ∂g/∂qⱼ and ∂g/∂q̇ⱼ column by column, each one shared pass over all of g — when the field
    // Jacobian is wanted (O(n³) terms: most of a large model's expansion and code); a constrained
    // model derives its own from the saddle-point system.
    let [dg_dq, dg_dv] = if *field_jacobian && constraints.is_empty() {
        arena.jacobian_blocks(&residual, [&syms.q, &syms.qd])
    } else {
        [Vec::new(), Vec::new()]
    };

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
        let dl_dx = arena.gradient(l, &state[..2 * n + 1]);
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

    Equations { momenta, mass, forcing, energy, power, dl_dt, dg_dq, dg_dv, contact, dg_dw, dl_dw }
}

/// Deterministic sample points for numeric checks: parameters in [0.5, 1.5], coordinates and
/// velocities in [−1.5, 1.5], time in [0, 2]. Returns one closure-ready value table per point.
pub fn sample_points(model: &Model, count: usize) -> Vec<rustc_hash::FxHashMap<Expr, f64>> {
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = move || {
        // SplitMix64.
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        (z >> 11) as f64 / (1u64 << 53) as f64
    };
    (0..count)
        .map(|_| {
            let mut values = rustc_hash::FxHashMap::default();
            values.insert(model.layout.t, 2.0 * next());
            for &p in &model.layout.params {
                values.insert(p, 0.5 + next());
            }
            for &s in model.layout.q.iter().chain(&model.layout.qd).chain(&model.layout.qdd).chain(&model.layout.z) {
                values.insert(s, 3.0 * next() - 1.5);
            }
            values
        })
        .collect()
}

/// Checks that the mass matrix is not identically singular. A coordinate whose row of M is
/// identically zero has no kinetic term and is named in the error; otherwise M is tested for
/// singularity (relative pivot ≤ 1e-10) at several sample points.
pub fn check_regular(model: &Model, eq: &Equations) -> syn::Result<()> {
    let n = model.dof();
    let arena = &model.arena;
    let mut errors = crate::diagnostics::Ctxt::new();
    for i in 0..n {
        if eq.mass[i].iter().all(|&m| arena.zero_test(m).is_zero()) {
            let c = &model.coordinates[i];
            errors.push(syn::Error::new(
                c.span(),
                format!(
                    "coordinate `{c}` has no kinetic term: the Lagrangian is at most linear in `dot({c})`, so its row \
                     of the mass matrix ∂²L/∂q̇² is zero and the equations cannot be solved for its acceleration. \
                     Give `{c}` kinetic energy, or remove the coordinate"
                ),
            ));
        }
    }
    errors.check()?;
    let flat: Vec<Expr> = eq.mass.iter().flatten().copied().collect();
    let points = sample_points(model, 4);
    let mut singular_everywhere = true;
    for values in &points {
        let lookup = |s: Expr| values.get(&s).copied().unwrap_or(1.0);
        let m = arena.eval_many(&flat, &lookup);
        match relative_min_pivot(m, n) {
            Some(p) if p <= 1e-10 => {}
            Some(_) => singular_everywhere = false,
            None => singular_everywhere = false, // non-finite sample: no verdict
        }
    }
    if singular_everywhere {
        return Err(syn::Error::new_spanned(
            &model.lagrangian_tokens,
            "the mass matrix ∂²L/∂q̇² is singular at every sampled state: some combination of velocities has no \
             kinetic energy (check that every coordinate moves some mass independently)",
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
pub fn energy_derivatives(model: &mut Model, eq: &Equations) -> EnergyDerivatives {
    let vars = model.layout.state_symbols();
    let gradient = model.arena.gradient(eq.energy, &vars);
    let hessian = model.arena.jacobian(&gradient, &vars);
    EnergyDerivatives { gradient, hessian }
}
