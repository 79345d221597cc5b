//! Lowering of frames, points, rigid bodies, particles and gravity, and the Lagrangian they
//! contribute:
//!
//! ```text
//! L_bodies = Σ_b ( ½ m_b |ṙ_b|² + ½ ω_bᵀ I_b ω_b + m_b g · r_b )
//! ```
//!
//! with r_b the mass centre (inertial components), ω_b = vee(R_bᵀṘ_b) the body angular velocity
//! of the body's frame R_b and I_b the inertia tensor about the mass centre in body components; a
//! particle has no rotational term. `gravity = g` is the gravitational acceleration (the potential
//! is −m g·r).
//!
//! Checks, each an error on the offending expression:
//! - a `frame` is a rotation: built from elementary rotations, `axis_angle`, products and
//!   transposes (a rotation by construction), or proved one (RᵀR = I and det R = 1 identically);
//! - a `point`, a mass centre and `gravity` are 3-vectors, a mass is a scalar;
//! - an inertia tensor is a symmetric 3×3 matrix (identically); where all its entries are
//!   numbers it is also positive definite and its principal moments satisfy the triangle
//!   inequalities (`tr(I)/2 · 1 − I`, the second moment of the mass distribution, is positive
//!   semidefinite); a literal mass is positive, or zero for a body with an inertia (its rotational
//!   inertia alone, ½ ωᵀ I ω: a robot file's link with an inertia and no mass).

use symbolic::{Expr, Mat3, Rational, Vec3};
use syn::spanned::Spanned;

use super::expr::Lowerer;
use super::value::Value;
use crate::diagnostics::Ctxt;
use crate::model::Body;
use crate::parse::{BodyDecl, DefineKind, RawModel};

/// Checks the declared shapes of `frame` (a rotation) and `point` (a 3-vector) names, whose
/// values the lowerer has (each define is lowered before this).
pub fn check_frames_and_points(lower: &mut Lowerer<'_>, cx: &mut Ctxt, raw: &RawModel) {
    for (i, d) in raw.defines.iter().enumerate().filter(|(_, d)| d.params.is_empty()) {
        let Some(value) = cx.ok(lower.define(i, d.name.span())) else { continue };
        match (d.kind, value) {
            (DefineKind::Frame, v) => {
                if cx.ok(lower.rotation_of(v, &d.value)).is_none() {
                    lower.mark_failed(i);
                }
            }
            (DefineKind::Point, Value::Vector(_) | Value::Failed) | (DefineKind::Define, _) => {}
            (DefineKind::Point, v) => cx.push(syn::Error::new_spanned(
                &d.value,
                format!("a point is a position, a 3-vector such as `B * [0, 0, l]`, but this is {}", v.shape()),
            )),
        }
    }
}

/// Lowers every body and particle (mistakes reported; the bodies that lowered are returned).
pub fn lower_bodies(lower: &mut Lowerer<'_>, cx: &mut Ctxt, raw: &RawModel) -> Vec<Body> {
    let bodies: Vec<Body> = raw.bodies.iter().filter_map(|decl| cx.ok(lower_body(lower, decl))).collect();
    cx.repeats(&bodies, |b| b.name.to_string(), |b| syn::Error::new(b.name.span(), format!("two bodies are named `{}`", b.name)));
    bodies
}

fn missing(decl: &BodyDecl, key: &str, example: &str) -> syn::Error {
    let what = if decl.is_particle() { "particle" } else { "body" };
    syn::Error::new(decl.keyword.span(), format!("this {what} has no `{key}`; add `{key} = {example}`"))
}

fn lower_body(lower: &mut Lowerer<'_>, decl: &BodyDecl) -> syn::Result<Body> {
    let name = decl.name.clone().ok_or_else(|| missing(decl, "name", "wheel"))?;
    let mass_expr = decl.mass.as_ref().ok_or_else(|| missing(decl, "mass", "m"))?;
    let mass = lower.scalar(mass_expr)?;
    let massless = match lower.arena.as_num(mass) {
        Some(m) if m.is_negative() => {
            return Err(syn::Error::new_spanned(mass_expr, "a mass must be positive, and this one is negative"));
        }
        Some(m) => m.is_zero(),
        None => false,
    };
    // A body of zero mass is its rotational inertia alone (½ ωᵀ I ω: what Pinocchio reads from a
    // robot's file where a link has an inertia and no mass); without one it would move nothing.
    if massless && decl.is_particle() {
        return Err(syn::Error::new_spanned(mass_expr, "a particle's mass must be positive: with none it moves nothing"));
    }
    if massless && decl.inertia.is_none() {
        return Err(syn::Error::new_spanned(
            mass_expr,
            "a mass must be positive: with no mass and no inertia this moves nothing (a body of zero mass is its \
             rotational inertia alone: give it an `inertia`)",
        ));
    }
    constant(lower, &[mass], mass_expr, "a body's mass is constant", false)?;
    let centre_key = if decl.is_particle() { "at" } else { "centre" };
    let centre_expr = decl.centre.as_ref().ok_or_else(|| missing(decl, centre_key, "[x, y, z]"))?;
    let centre = lower.vector(centre_expr)?;
    let velocity = match lower.value_derivative(Value::Vector(centre), centre_expr.span())? {
        Value::Vector(v) => v,
        _ => unreachable!("the derivative of a vector is a vector"),
    };
    let speed2 = fixed_point_speed(lower, centre_expr)?;
    if decl.is_particle() {
        return Ok(Body { name, mass, centre, velocity, speed2, rotation: None, inertia: None });
    }
    let inertia_hint = "the inertia tensor about the mass centre in body components, e.g. `diag(a, a, c)`; a point mass is a `particle(name = .., mass = .., at = ..)`";
    // A `joint(...)`'s link without inertia (`point`) is a point mass on its frame, I = 0.
    let inertia_expr = match &decl.inertia {
        None if decl.point => None,
        None => {
            return Err(syn::Error::new(
                decl.keyword.span(),
                format!("this body has no `inertia`; add `inertia = ...`, {inertia_hint}"),
            ));
        }
        Some(e) => Some(e),
    };
    let frame_expr = decl.frame.as_ref().ok_or_else(|| missing(decl, "frame", "rot_z(psi) * rot_x(phi)"))?;
    let frame = lower.value(frame_expr)?;
    let rotation = lower.rotation_of(frame, frame_expr)?;
    let inertia = match inertia_expr {
        Some(inertia_expr) => {
            let (inertia, _) = lower.matrix(inertia_expr)?;
            constant(lower, inertia.as_flattened(), inertia_expr, "an inertia tensor in body components is constant", false)?;
            check_inertia(lower, &inertia, inertia_expr)?;
            inertia
        }
        None => [[lower.arena.zero(); 3]; 3],
    };
    Ok(Body { name, mass, centre, velocity, speed2, rotation: Some(rotation), inertia: Some(inertia) })
}

/// |ṙ|² of a centre written `R * d` — a rotation (with its composed angular velocity ω) applied to a
/// vector d free of the coordinates, the velocities and time — as |ω × d|²: ṙ = R (ω × d) and R
/// keeps lengths. Written out, |ṙ|² would carry R's entries (for a quaternion, rational in it with
/// the held |q|²) that cancel only numerically. `None` for any other centre.
fn fixed_point_speed(lower: &mut Lowerer<'_>, centre: &syn::Expr) -> syn::Result<Option<Expr>> {
    let syn::Expr::Binary(b) = centre else { return Ok(None) };
    if !matches!(b.op, syn::BinOp::Mul(_)) {
        return Ok(None);
    }
    let (Value::Matrix(_, Some(spin)), Value::Vector(d)) = (lower.value(&b.left)?, lower.value(&b.right)?) else {
        return Ok(None);
    };
    let syms = &lower.syms;
    let moving: Vec<Expr> = syms.q.iter().chain(&syms.qd).chain(&syms.z).copied().chain([syms.t]).collect();
    if d.iter().any(|&c| moving.iter().any(|&s| lower.arena.depends_on(c, s))) {
        return Ok(None);
    }
    let turn = lower.arena.cross(&spin.body, &d);
    Ok(Some(lower.arena.norm_squared(&turn)))
}

/// Symmetric identically; positive definite with the triangle inequalities where literal.
fn check_inertia(lower: &mut Lowerer<'_>, inertia: &Mat3, src: &syn::Expr) -> syn::Result<()> {
    for (i, j) in [(0, 1), (0, 2), (1, 2)] {
        let d = lower.arena.sub(inertia[i][j], inertia[j][i]);
        if !lower.arena.zero_test(d).is_zero() {
            return Err(syn::Error::new_spanned(
                src,
                format!("an inertia tensor is symmetric, but entries ({i}, {j}) and ({j}, {i}) of this one differ"),
            ));
        }
    }
    // Where every entry is a number the minors below fold to exact rationals.
    if inertia.as_flattened().iter().any(|&e| lower.arena.as_num(e).is_none()) {
        return Ok(());
    }
    let undecided = || {
        syn::Error::new_spanned(
            src,
            "cannot decide whether this inertia tensor is a rigid body's: a minor of it is too close to zero for its \
             value in floating point, and its exact value overflows (entries with many digits); write the entries \
             with fewer digits",
        )
    };
    let positive = leading_minors(lower, inertia);
    let positive = signs(lower, &positive);
    if positive.iter().any(|s| s.is_some_and(|s| s != std::cmp::Ordering::Greater)) {
        return Err(syn::Error::new_spanned(
            src,
            "this inertia tensor is not positive definite (a leading principal minor is not positive): every rigid body \
             has positive moments of inertia about every axis",
        ));
    }
    if positive.contains(&None) {
        return Err(undecided());
    }
    // The second moment J = tr(I)/2 · 1 − I = ∫ρ r rᵀ is positive semidefinite: all its principal
    // minors are ≥ 0 (equivalently the principal moments satisfy I₁ ≤ I₂ + I₃ and cyclically).
    let arena = &mut *lower.arena;
    let trace = arena.add(&[inertia[0][0], inertia[1][1], inertia[2][2]]);
    let half = arena.num(Rational::new(1, 2).expect("1/2"));
    let half_trace = arena.mul2(half, trace);
    let scaled = arena.mat_scale(half_trace, &arena.identity3());
    let second = arena.mat_sub(&scaled, inertia);
    let minors = principal_minors(lower, &second);
    let minors = signs(lower, &minors);
    if minors.contains(&None) && !minors.contains(&Some(std::cmp::Ordering::Less)) {
        return Err(undecided());
    }
    if minors.contains(&Some(std::cmp::Ordering::Less)) {
        return Err(syn::Error::new_spanned(
            src,
            "this inertia tensor violates the triangle inequality of principal moments (I₁ ≤ I₂ + I₃ and cyclically): no \
             mass distribution has it",
        ));
    }
    Ok(())
}

/// The signs of constant expressions: exact where each folded to a rational, otherwise (where
/// exact arithmetic overflowed: entries with many digits, whose products' denominators outgrow
/// 128 bits) from a floating-point value with a bound on its error, where the bound decides it;
/// `None` where it does not.
fn signs(lower: &Lowerer<'_>, es: &[Expr]) -> Vec<Option<std::cmp::Ordering>> {
    let numeric = lower.arena.eval_many_bounded(es, &|_| f64::NAN);
    es.iter()
        .zip(numeric)
        .map(|(&e, (v, bound))| match lower.arena.as_num(e) {
            Some(r) => Some(r.cmp(&Rational::zero())),
            None if v.abs() > bound => Some(if v > 0.0 { std::cmp::Ordering::Greater } else { std::cmp::Ordering::Less }),
            None => None,
        })
        .collect()
}

/// The 2×2 minor of rows and columns (i, j).
fn minor2(lower: &mut Lowerer<'_>, m: &Mat3, i: usize, j: usize) -> Expr {
    let arena = &mut *lower.arena;
    let d = arena.mul2(m[i][i], m[j][j]);
    let o = arena.mul2(m[i][j], m[j][i]);
    arena.sub(d, o)
}

/// The leading principal minors of `m`.
fn leading_minors(lower: &mut Lowerer<'_>, m: &Mat3) -> [Expr; 3] {
    let second = minor2(lower, m, 0, 1);
    [m[0][0], second, lower.arena.det3(m)]
}

/// Every principal minor of `m` (3 of order 1, 3 of order 2, the determinant).
fn principal_minors(lower: &mut Lowerer<'_>, m: &Mat3) -> [Expr; 7] {
    let pairs = [(0, 1), (0, 2), (1, 2)].map(|(i, j)| minor2(lower, m, i, j));
    [m[0][0], m[1][1], m[2][2], pairs[0], pairs[1], pairs[2], lower.arena.det3(m)]
}

/// The gravitational acceleration, if declared (at most once).
pub fn lower_gravity(lower: &mut Lowerer<'_>, cx: &mut Ctxt, raw: &RawModel) -> Option<Vec3> {
    for (kw, _) in raw.gravity.iter().skip(1) {
        cx.error(kw.span(), "`gravity` is given more than once");
    }
    let (_, g) = raw.gravity.first()?;
    let field = cx.ok(lower.vector(g))?;
    cx.ok(constant(lower, &field, g, "`gravity` is a uniform field (its potential is −m g·r)", true))?;
    Some(field)
}

/// The first symbol of `values` that is not a parameter (nor, with `time`, `t`): a coordinate,
/// velocity, action or input that makes them vary; `None` when they are constant.
pub(super) fn moving_symbol(lower: &Lowerer<'_>, values: &[Expr], time: bool) -> Option<Expr> {
    use crate::layout::Role;
    lower.arena.free_symbols_of(values).into_iter().find(|&s| match lower.syms.role(s) {
        Some(Role::Parameter(_)) => false,
        Some(Role::Time) => !time,
        _ => true,
    })
}

/// Checks that `values` are constant: built from parameters and numbers (and with `time`, of `t`
/// too) — no coordinate, velocity, action or input. An error on `src` otherwise, beginning with
/// `what` and naming the symbol found.
pub(super) fn constant(lower: &Lowerer<'_>, values: &[Expr], src: &syn::Expr, what: &str, time: bool) -> syn::Result<()> {
    let Some(s) = moving_symbol(lower, values, time) else { return Ok(()) };
    let named = match lower.arena.symbol_name(s).and_then(|n| n.split_once(':')) {
        Some(("v", base)) => format!("dot({base})"),
        Some((_, base)) => base.to_string(),
        None => lower.arena.symbol_name(s).unwrap_or("a state variable").to_string(),
    };
    let allowed = if time { "parameters, numbers and `t`" } else { "parameters and numbers" };
    Err(syn::Error::new_spanned(
        src,
        format!(
            "{what}, but this depends on `{named}`: write it from {allowed} only{}",
            if time {
                " (a field that varies over the configuration is a `force(...)` one-form, or a potential in the Lagrangian)"
            } else {
                ""
            }
        ),
    ))
}

/// `Σ_b ½ m_b |ṙ_b|² + ½ ω_bᵀ I_b ω_b + m_b g · r_b`.
pub fn bodies_lagrangian(lower: &mut Lowerer<'_>, bodies: &[Body], gravity: Option<&Vec3>) -> Expr {
    energies(lower, bodies, gravity, true, |_, _, rate| rate)
}

/// [`bodies_lagrangian`] over the rates (see [`Lowerer::held_lagrangian`]): each component of a
/// mass centre's velocity ṙ and of a body's angular velocity ω held as a symbol of its own, so
/// that ½ m|ṙ|² + ½ ωᵀIω is a sum of squares of held rates where I is diagonal (a planar link in
/// absolute angles, whose ω is (0, 0, q̇)). The recursion checks what it needs of the result.
pub fn held_bodies_lagrangian(lower: &mut Lowerer<'_>, bodies: &[Body], gravity: Option<&Vec3>) -> Option<Expr> {
    Some(energies(lower, bodies, gravity, false, |lower, position, rate| lower.hold(position, rate)))
}

/// The bodies' energies with each component of ṙ and ω given by `rate(lower, position, rate)` (an
/// angular velocity component is its own position: it is the rate of none); with `fixed_points`,
/// a centre turning about a fixed point takes |ω × d|² for |ṙ|² ([`Body::speed2`]).
fn energies(
    lower: &mut Lowerer<'_>,
    bodies: &[Body],
    gravity: Option<&Vec3>,
    fixed_points: bool,
    mut rate: impl FnMut(&mut Lowerer<'_>, Expr, Expr) -> Expr,
) -> Expr {
    let half = lower.arena.num(Rational::new(1, 2).expect("1/2"));
    let mut terms = Vec::new();
    for b in bodies {
        let v: Vec3 = std::array::from_fn(|c| rate(lower, b.centre[c], b.velocity[c]));
        let rotational = match (&b.rotation, &b.inertia) {
            (Some(r), Some(i)) => {
                Some(match r.turned.and_then(|t| symmetric_about(lower.arena, i, t.axis.index()).map(|s| (t, s))) {
                    // Symmetric about body axis k and turning last about k (a wheel on its axle, a
                    // top spinning on its nodding frame): ωᵀIω = a|Eω|² + (b − a)(Eω)_k² in the
                    // carrier's axes, without the spin angle (its sines and cosines cancel otherwise
                    // only numerically).
                    Some((turn, (a, axial))) => {
                        let k = turn.axis.index();
                        let w: Vec3 = std::array::from_fn(|c| rate(lower, turn.rate[c], turn.rate[c]));
                        let arena = &mut *lower.arena;
                        let whole = arena.norm_squared(&w);
                        let whole = arena.mul2(a, whole);
                        let excess = arena.sub(axial, a);
                        let along2 = arena.powi(w[k], 2);
                        let along = arena.mul2(excess, along2);
                        arena.add2(whole, along)
                    }
                    _ => {
                        let w: Vec3 = std::array::from_fn(|c| rate(lower, r.rate[c], r.rate[c]));
                        let iw = lower.arena.mat_vec(i, &w);
                        lower.arena.dot3(&w, &iw)
                    }
                })
            }
            _ => None,
        };
        let arena = &mut *lower.arena;
        let v2 = match b.speed2 {
            Some(s) if fixed_points => s,
            _ => arena.norm_squared(&v),
        };
        let mut twice_t = arena.mul2(b.mass, v2);
        if let Some(rot) = rotational {
            twice_t = arena.add2(twice_t, rot);
        }
        terms.push(arena.mul2(half, twice_t));
        if let Some(g) = gravity {
            let gr = arena.dot3(g, &b.centre);
            terms.push(arena.mul2(b.mass, gr));
        }
    }
    lower.arena.add(&terms)
}

/// `(a, b)` when the inertia tensor is symmetric about body axis `k`: I = a on the two other axes,
/// b on axis k and no products of inertia (the expressions identical: a uniform wheel
/// `diag(ixx, iyy, ixx)` about y, a sphere about any axis).
fn symmetric_about(arena: &symbolic::Arena, i: &Mat3, k: usize) -> Option<(Expr, Expr)> {
    let zero = arena.zero();
    if (0..3).any(|r| (0..3).any(|c| r != c && i[r][c] != zero)) {
        return None;
    }
    let (p, q) = ((k + 1) % 3, (k + 2) % 3);
    (i[p][p] == i[q][q]).then_some((i[p][p], i[k][k]))
}
