//! The first-order form every reduction on a section shares: a reduced system on x = (r, u) —
//! positions r (kept or shape coordinates), velocities u — with ṙ = K(t, r, u) and M(t, r) u̇ =
//! f(t, r, u), M symmetric, solved numerically by the runtime (`reduction::nonholonomic_field`),
//! and the dropped positions g following by quadrature of ġ(t, r, g, u).
//!
//! [`super::maggi`] (nonholonomic and Euler–Poincaré reduction: Maggi's equations, with a
//! Chaplygin system's connection and Euler–Poisson's second chart where they apply) and
//! [`super::rotations`] (Routh's by the rotations of an orientation, with its Routhian) build a
//! [`FirstOrder`]; what each adds is its [`Terms`]. Here too: the exact Jacobian in the parts the
//! runtime assembles ([`FirstOrderJacobian`]), the full model's momentum maps on the reduced state
//! ([`ReducedMomentum`]), a right-hand side split by degree ([`by_degree`]), the reduced layout
//! ([`section_layout`]) and the check that nothing stray is emitted ([`check_emitted`]).

use symbolic::{Arena, Expr};
use syn::Ident;

use crate::diagnostics::error_at as err;
use crate::layout::{Layout, Role};
use crate::model::Model;

/// A reduced system in first-order form, ready for emission; its expressions are over the full
/// model's arena, read through `model`'s layout (the kept coordinates, the velocities u, the dropped
/// coordinates as [`Role::Dropped`]).
pub struct FirstOrder {
    /// The reduced system as a model: its coordinates are the kept ones, its velocities u, and its
    /// layout's rates the kept coordinates' ṙ(t, r, u) on the section.
    pub model: Model,
    /// Indices of the dropped and of the kept positions in the full model's state (a dropped
    /// orientation's four quaternion components among the dropped).
    pub dropped: Vec<usize>,
    pub kept: Vec<usize>,
    /// The reduced positions as functions of the full state, in the full model's symbols: the
    /// kept positions themselves (or the shape map σ), then (non-abelian Routh reduction) the
    /// body momentum Π.
    pub reduce_positions: Vec<Expr>,
    /// With a quotient map: the full model's kept positions (`kept`) in the reduced positions and
    /// the dropped ones, ι(t, s, g); `None`: they are the reduced positions themselves.
    pub kept_positions: Option<Vec<Expr>>,
    /// u(t, q, q̇) in the full model's symbols (to reduce a full state).
    pub velocities: Vec<Expr>,
    /// Sᵀ M S (row-major, nu × nu) and Sᵀ (f − M a₀), on the section.
    pub mass: Vec<Vec<Expr>>,
    pub forcing: Vec<Expr>,
    /// The full model's energy in (t, r, u), when it does not depend on the dropped coordinates.
    pub energy: Option<Expr>,
    /// The full model's velocities v = S u + s in (t, r, g, u): the reconstruction.
    pub full_velocities: Vec<Expr>,
    /// The dropped positions' rates ġ in (t, r, g, u) (a quaternion's ½ q ⊗ (0, ω)).
    pub dropped_rates: Vec<Expr>,
    /// The field's exact Jacobian, in parts (see [`FirstOrderJacobian`]).
    pub jacobian: FirstOrderJacobian,
    /// Each right-hand side by degree in the velocities u, for the rustdoc: f₀ (forces at rest,
    /// the potential's), f₁ (linear: gyroscopic, damping), and the rest f₂ (quadratic for
    /// mechanical forces: the curvature of the constraint distribution and the metric's terms).
    pub forcing_by_degree: Vec<[Expr; 3]>,
    /// The full model's momentum maps that are functions of the reduced state (the others are
    /// named in `unreduced_momenta`).
    pub momenta: Vec<ReducedMomentum>,
    pub unreduced_momenta: Vec<Ident>,
    /// What the reduction adds: Maggi's Chaplygin form and second chart, or a Routhian.
    pub terms: Terms,
}

/// What a reduction adds to its first-order system.
pub enum Terms {
    /// Maggi's equations (`nonholonomic`, `euler_poincare`): a Chaplygin system's connection and
    /// curvature where its form applies, and Euler–Poisson's second chart where an orientation is
    /// reduced by the rotations about one axis.
    Maggi { chaplygin: Option<Chaplygin>, second_chart: Option<Box<SecondChart>> },
    /// Routh's reduction by the rotations of an orientation ([`super::rotations`]): its Routhian,
    /// amended potential and momentum map.
    Rotations(RouthTerms),
}

impl FirstOrder {
    /// The Routhian of a reduction by rotations.
    pub fn routh(&self) -> Option<&RouthTerms> {
        match &self.terms {
            Terms::Rotations(r) => Some(r),
            Terms::Maggi { .. } => None,
        }
    }

    /// A Chaplygin system's connection and curvature.
    pub fn chaplygin(&self) -> Option<&Chaplygin> {
        match &self.terms {
            Terms::Maggi { chaplygin, .. } => chaplygin.as_ref(),
            Terms::Rotations(_) => None,
        }
    }

    /// Euler–Poisson's second chart.
    pub fn second_chart(&self) -> Option<&SecondChart> {
        match &self.terms {
            Terms::Maggi { second_chart, .. } => second_chart.as_deref(),
            Terms::Rotations(_) => None,
        }
    }
}

/// Euler–Poisson's two charts (see [`super::maggi::advected_section`]): the reduced equations read the
/// orientation's quaternion and |q|², bound to their values at q(Γ) in chart 1 where the state
/// component `switch` (Γ₃) is ≥ 0 and in chart 2 where it is negative. The main fields hold the
/// equations (over those bound symbols) and chart 1's Jacobian; `jacobian` is chart 2's.
pub struct SecondChart {
    pub switch: usize,
    pub bindings: [Vec<(Expr, Expr)>; 2],
    pub jacobian: FirstOrderJacobian,
    /// The reduction's symmetry and the axis a, for the rustdoc.
    pub symmetry: Ident,
    pub axis: (usize, i8),
}

/// A Chaplygin system: the dropped coordinates g are cyclic (an abelian group acting by
/// translation), the velocities are the shape coordinates' own rates ṙ, and the constraints are a
/// connection, ġ = −A(r) ṙ (the distribution complementary to the group's orbits, D ⊕ V = TQ;
/// linear: no affine part). Then the reduced equations are Chaplygin's,
///
/// ```text
/// d/dt ∂l_c/∂ṙ − ∂l_c/∂r = G,   G_α = p_a B^a_αβ ṙ^β,   B^a_αβ = ∂A^a_β/∂r^α − ∂A^a_α/∂r^β
/// ```
///
/// with l_c the constrained reduced Lagrangian, p_a = ∂L/∂ġ^a on the distribution and B the
/// connection's curvature: the gyroscopic force G is the part of Maggi's right-hand side that the
/// constraints add to the Euler–Lagrange equations of l_c.
pub struct Chaplygin {
    /// A^a_α (dropped × shape).
    pub connection: Vec<Vec<Expr>>,
    /// B^a_αβ (dropped × shape × shape).
    pub curvature: Vec<Vec<Vec<Expr>>>,
    /// p_a on the distribution.
    pub momenta: Vec<Expr>,
    /// G_α.
    pub gyroscopic: Vec<Expr>,
}

/// A momentum map J = ⟨p, ξ⟩ of the full model on the reduced state: the nonholonomic momentum
/// equation as an item of the reduced system.
pub struct ReducedMomentum {
    /// The symmetry's name.
    pub name: Ident,
    /// J(t, r, u) on the section, and its derivatives ∂J/∂t and ∂J/∂x over the reduced state (its
    /// rate along the reduced flow is ∂J/∂t + ∂J/∂x · F).
    pub value: Expr,
    pub time_derivative: Expr,
    pub gradient: Vec<Expr>,
    /// What the full model proved: J conserved (no force along ξ and, with constraints, Aξ ≡ 0).
    pub conserved: bool,
    /// Whether ξ lies in the constraint distribution (Aξ ≡ 0: a horizontal symmetry, whose
    /// momentum the constraint forces do not change).
    pub horizontal: bool,
    /// The moving energy E − c J on the reduced state, and c, when the full model has one.
    pub moving_energy: Option<(Expr, Expr)>,
}

/// What a Routh reduction by rotations adds to a first-order reduced system.
pub struct RouthTerms {
    /// The orientation reduced by.
    pub orientation: Ident,
    /// R^μ = [L − Π·ω] at ω(t, x, ẋ, Π), and the amended potential V_μ = −R^μ at ẋ = 0, on the
    /// reduced system's symbols.
    pub routhian: Expr,
    pub amended: Expr,
    /// The spatial angular momentum μ = R Π, in the full model's symbols (the momentum map).
    pub momentum: Vec<Expr>,
}

/// ∂F/∂x of a reduced system in first-order form, F = (ṙ, M⁻¹ f) on x = (r, u), in the parts the
/// runtime assembles (`reduction::first_order_jacobian`): ∂ṙ/∂x (row-major, nr × dr), ∂M/∂xₖ
/// (for each state component k, M's upper triangle) and ∂f/∂x (row-major, nu × dr).
pub struct FirstOrderJacobian {
    pub rates: Vec<Expr>,
    pub mass: Vec<Vec<Expr>>,
    pub forcing: Vec<Expr>,
}

impl FirstOrderJacobian {
    /// The derivatives of `rates`, `mass` and `forcing` by the reduced state's symbols `state`.
    pub fn derive(arena: &mut Arena, state: &[Expr], rates: &[Expr], mass: &[Vec<Expr>], forcing: &[Expr]) -> Self {
        Self::derive_bound(arena, state, rates, mass, forcing, &[])
    }

    /// [`Self::derive`] where the expressions also read bound symbols s = S(state) (`bound`: each
    /// symbol and its value): d/dxₖ = ∂/∂xₖ + Σ ∂/∂s ∂S/∂xₖ.
    pub fn derive_bound(
        arena: &mut Arena,
        state: &[Expr],
        rates: &[Expr],
        mass: &[Vec<Expr>],
        forcing: &[Expr],
        bound: &[(Expr, Expr)],
    ) -> Self {
        let nu = forcing.len();
        let chain: Vec<(Expr, Vec<Expr>)> =
            bound.iter().map(|&(s, value)| (s, state.iter().map(|&x| arena.diff(value, x)).collect())).collect();
        let total = |arena: &mut Arena, e: Expr, k: usize| -> Expr {
            let mut terms = vec![arena.diff(e, state[k])];
            for (s, ds) in &chain {
                let de = arena.diff(e, *s);
                terms.push(arena.mul2(de, ds[k]));
            }
            arena.add(&terms)
        };
        let d = |arena: &mut Arena, es: &[Expr]| -> Vec<Expr> {
            es.iter().flat_map(|&e| (0..state.len()).map(move |k| (e, k))).map(|(e, k)| total(arena, e, k)).collect()
        };
        let upper: Vec<Expr> = (0..nu).flat_map(|i| (i..nu).map(move |j| (i, j))).map(|(i, j)| mass[i][j]).collect();
        let mass = (0..state.len()).map(|k| upper.iter().map(|&e| total(arena, e, k)).collect()).collect();
        FirstOrderJacobian { rates: d(arena, rates), mass, forcing: d(arena, forcing) }
    }
}

/// `e` split by degree in the symbols `u`: the part at u = 0, the linear part, and the rest.
pub(crate) fn by_degree(arena: &mut Arena, e: Expr, u: &[Expr]) -> [Expr; 3] {
    let zero = arena.zero();
    let rest: Vec<(Expr, Expr)> = u.iter().map(|&v| (v, zero)).collect();
    // Σ ∂e/∂uᵢ(0) uᵢ: the derivative along seeds of their own, taken at u = 0, the seeds then u.
    let seed: Vec<Expr> = (0..u.len()).map(|i| arena.symbol(&format!("degree-seed:{i}"))).collect();
    let seeds: Vec<(Expr, Expr)> = u.iter().zip(&seed).map(|(&v, &s)| (v, s)).collect();
    let back: Vec<(Expr, Expr)> = seed.iter().zip(u).map(|(&s, &v)| (s, v)).collect();
    let f0 = arena.subs(e, &rest);
    let along = arena.directional(e, &seeds);
    let at_rest = arena.subs(along, &rest);
    let f1 = arena.subs(at_rest, &back);
    let low = arena.add2(f0, f1);
    let f2 = arena.sub(e, low);
    [f0, f1, f2]
}

/// The layout of a reduced system on a section: positions (`coordinates`, their symbols `q`),
/// velocities (symbols, accelerations and names), the positions' `rates`, and the full model's
/// `dropped` positions read from `g[i]` in the reconstruction (named `names`).
pub(crate) fn section_layout(
    arena: &mut Arena,
    syms: &Layout,
    (coordinates, q): (&[Ident], Vec<Expr>),
    (u, acc, velocity_names): (Vec<Expr>, Vec<Expr>, Vec<Ident>),
    rates: &[Expr],
    (dropped, names): (&[usize], Vec<Ident>),
) -> Layout {
    let mut layout = Layout::from_symbols(arena, coordinates, syms.t, q, u, acc, syms.params.clone());
    layout.rates = rates.to_vec();
    layout.velocity_names = velocity_names;
    layout.dropped = names;
    for (i, &d) in dropped.iter().enumerate() {
        layout.assign(syms.q[d], Role::Dropped(i));
    }
    layout
}

/// Every symbol left in what a reduced system emits must be one it reads (a stray one would be
/// emitted as NaN): otherwise an internal error on `kw`.
pub(crate) fn check_emitted(arena: &Arena, layout: &Layout, emitted: &[Expr], kw: &Ident, bound: &[Expr]) -> syn::Result<()> {
    for &e in emitted {
        if let Some(stray) = arena.free_symbols(e).into_iter().find(|&s| layout.role(s).is_none() && !bound.contains(&s)) {
            let name = arena.symbol_name(stray).unwrap_or("?").to_string();
            return Err(err(
                kw,
                format!("internal error: the reduced equations still contain `{name}`; please report this model"),
            ));
        }
    }
    Ok(())
}
