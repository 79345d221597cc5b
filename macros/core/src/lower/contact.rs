//! Contacts of bodies with a ground plane, lowered into constraint rows. The plane is z = 0, or with
//! `ground = n` the plane through the origin with the constant unit normal n (then "height" is
//! c·n below and the no-slip rows are along t₁ = n × e_k, t₂ = n × t₁).
//!
//! For a body with mass centre c, frame R and body angular velocity ω (spatial Ω = R ω), the
//! velocity of its material point at P is ċ + Ω × (P − c). A contact generates its contact point
//! P, the no-slip rows of that velocity and, where the chart does not already hold it, the
//! holonomic condition P_z = 0:
//!
//! - `rolling(name = k, body = b, sphere = r)`: P = c − r e_z; rows `k_x`, `k_y` (the velocity's x
//!   and y components); `k_height`: c_z − r = 0 unless identically so.
//! - `rolling(name = k, body = b, disk = r, axis = a)`: a thin disk (a wheel) of radius r about
//!   its body-frame unit axis a, n = R a in space. Its lowest point is P = c − r u with
//!   u = (e_z − n_z n)/s, s = |e_z − n_z n| = √(1 − n_z²) (the disk not lying flat). Rows `k_x`,
//!   `k_y`; the height condition c_z = r s is already held by the chart when
//!   c_z² − r²(1 − n_z²) ≡ 0 (proved by the zero test; a rolling coin in Euler angles, the
//!   bicycle's rear wheel) and c_z > 0 at sampled states — then s = c_z / r exactly and no square
//!   root appears — and is the holonomic row `k_height`, c_z − r √(1 − n_z²) = 0, otherwise (the
//!   bicycle's front wheel, whose height the pitch sets).
//! - `no_slip(name = k, body = b, at = P, along = d)`: the material point at P does not slide
//!   along the direction d (a knife edge, a skate, a wheel's lateral grip): one row
//!   d · (ċ + Ω × (P − c)).
//!
//! The rows go through the same checks as written constraints (affine in the velocities; the
//! Frobenius test, multipliers and projection apply), named as above.

use symbolic::{Expr, Vec3};

use super::constraint::{position_row, velocity_row};
use super::expr::Lowerer;
use crate::diagnostics::{Ctxt, unknown};
use crate::model::{Body, Constraint};
use crate::parse::{ContactDecl, RawModel};

/// The rows of every contact (mistakes reported).
pub fn lower_contacts(lower: &mut Lowerer<'_>, cx: &mut Ctxt, raw: &RawModel, bodies: &[Body]) -> Vec<Constraint> {
    let declared: Vec<String> = raw.bodies.iter().filter_map(|b| b.name.as_ref().map(ToString::to_string)).collect();
    let mut rows = Vec::new();
    for decl in &raw.contacts {
        if let Some(r) = cx.ok(lower_contact(lower, decl, &declared, bodies)) {
            rows.extend(r);
        }
    }
    rows
}

fn missing(decl: &ContactDecl, key: &str, example: &str) -> syn::Error {
    syn::Error::new(decl.keyword.span(), format!("this contact has no `{key}`; add `{key} = {example}`"))
}

/// The rows of one contact; `declared` names the model's bodies (those that failed to lower
/// included, whose mistakes are reported where they are declared).
pub(super) fn lower_contact(
    lower: &mut Lowerer<'_>,
    decl: &ContactDecl,
    declared: &[String],
    bodies: &[Body],
) -> syn::Result<Vec<Constraint>> {
    let name = decl.name.clone().ok_or_else(|| missing(decl, "name", "contact"))?;
    let body_name = decl.body.as_ref().ok_or_else(|| missing(decl, "body", "wheel"))?;
    let Some(body) = bodies.iter().find(|b| b.name == *body_name) else {
        let names = declared.to_vec();
        if declared.iter().any(|d| body_name == d) {
            // The body itself failed to lower (reported there).
            return Ok(Vec::new());
        }
        let known = if names.is_empty() {
            "This model declares no bodies: declare one with `body(name = .., mass = .., centre = .., frame = .., inertia = ..)`"
                .to_string()
        } else {
            format!("Bodies: {}", names.join(", "))
        };
        return Err(unknown(body_name.span(), format_args!("unknown body `{body_name}`"), &body_name.to_string(), &names, known));
    };
    let Some(rotation) = &body.rotation else {
        return Err(syn::Error::new(
            body_name.span(),
            format!(
                "`{body_name}` is a particle: it has no frame to roll or grip with; declare it as a `body(...)` with a frame"
            ),
        ));
    };
    let spin = rotation.spatial;
    let c = body.centre;
    let suffix = |s: &str| quote::format_ident!("{}_{}", name, s, span = name.span());
    let decl_keyword = &decl.keyword;
    if !decl.is_rolling() {
        let at_expr = decl.at.as_ref().ok_or_else(|| missing(decl, "at", "centre + frame * [l, 0, 0]"))?;
        let along_expr = decl.along.as_ref().ok_or_else(|| missing(decl, "along", "frame * [0, 1, 0]"))?;
        let at = lower.vector(at_expr)?;
        let along = lower.vector(along_expr)?;
        let velocity = material_velocity(lower, body, &spin, &at);
        let w = lower.arena.dot3(&along, &velocity);
        return Ok(vec![velocity_row(lower, name.clone(), w, decl_keyword)?]);
    }
    // The ground plane through the origin, its unit normal `up` (e_z by default).
    let one = lower.arena.one();
    let zero = lower.arena.zero();
    let up = match &decl.ground {
        None => [zero, zero, one],
        Some(g) => ground_normal(lower, g)?,
    };
    let cz = lower.arena.dot3(&c, &up);
    let (offset, height) = match (&decl.disk, &decl.sphere) {
        (Some(_), Some(sphere)) => {
            return Err(syn::Error::new_spanned(
                sphere,
                "a contact rolls a disk or a sphere, not both: give `disk = r` or `sphere = r`",
            ));
        }
        (None, None) => return Err(missing(decl, "disk", "r, axis = [0, 1, 0]` or `sphere = r")),
        (None, Some(sphere)) => {
            if let Some(axis) = &decl.axis {
                return Err(syn::Error::new_spanned(axis, "a sphere has no axis; `axis` belongs to a rolling `disk`"));
            }
            let r = radius(lower, sphere, "sphere")?;
            let minus_r = lower.arena.neg(r);
            let height = lower.arena.sub(cz, r);
            (lower.arena.vec_scale(minus_r, &up), (!lower.arena.zero_test(height).is_zero()).then_some(height))
        }
        (Some(disk), None) => {
            let axis_expr = decl.axis.as_ref().ok_or_else(|| missing(decl, "axis", "[0, 1, 0]"))?;
            let r = radius(lower, disk, "disk")?;
            let axis = lower.vector(axis_expr)?;
            let norm2 = lower.arena.norm_squared(&axis);
            let off = lower.arena.sub(norm2, one);
            if !lower.arena.zero_test(off).is_zero() {
                return Err(syn::Error::new_spanned(
                    axis_expr,
                    "a disk's axis is a unit vector in its body frame, e.g. `[0, 1, 0]`",
                ));
            }
            let n = lower.arena.mat_vec(&rotation.matrix, &axis);
            let nz = lower.arena.dot3(&n, &up);
            let nz2 = lower.arena.powi(nz, 2);
            let tilt = lower.arena.sub(one, nz2); // 1 − (n·up)² = s²
            let (r2, cz2) = (lower.arena.powi(r, 2), lower.arena.powi(cz, 2));
            let r2_tilt = lower.arena.mul2(r2, tilt);
            let held = lower.arena.sub(cz2, r2_tilt);
            let (s, height) = if lower.arena.zero_test(held).is_zero() && positive_at_samples(lower, cz, r) {
                (lower.arena.div(cz, r), None)
            } else {
                let s = lower.arena.sqrt(tilt);
                let rs = lower.arena.mul2(r, s);
                (s, Some(lower.arena.sub(cz, rs)))
            };
            // P − c = −r u, u = (up − (n·up) n)/s.
            let nz_n = lower.arena.vec_scale(nz, &n);
            let plane = lower.arena.vec_sub(&up, &nz_n);
            let minus_r = lower.arena.neg(r);
            let scale = lower.arena.div(minus_r, s);
            (lower.arena.vec_scale(scale, &plane), height)
        }
    };
    let contact = lower.arena.vec_add(&c, &offset);
    let velocity = material_velocity(lower, body, &spin, &contact);
    let mut rows = Vec::with_capacity(3);
    if let Some(h) = height {
        rows.push(position_row(lower, suffix("height"), h, decl_keyword)?);
    }
    // The velocity's components along two directions of the plane: x and y on z = 0; on another
    // plane t₁ = up × e_k (e_k the axis least aligned with up at sampled parameters) and
    // t₂ = up × t₁, neither normalised (a row's scale changes its multiplier only).
    if decl.ground.is_none() {
        rows.push(velocity_row(lower, suffix("x"), velocity[0], decl_keyword)?);
        rows.push(velocity_row(lower, suffix("y"), velocity[1], decl_keyword)?);
    } else {
        let k = least_aligned_axis(lower, &up);
        let mut axis = [zero; 3];
        axis[k] = one;
        let t1 = lower.arena.cross(&up, &axis);
        let t2 = lower.arena.cross(&up, &t1);
        for (label, t) in [("t1", t1), ("t2", t2)] {
            let w = lower.arena.dot3(&t, &velocity);
            rows.push(velocity_row(lower, suffix(label), w, decl_keyword)?);
        }
    }
    Ok(rows)
}

/// A rolling sphere's or disk's radius: constant (parameters and numbers), and positive where it is
/// a number; one given by parameters is checked when a run starts ([`radii`]).
fn radius(lower: &mut Lowerer<'_>, src: &syn::Expr, shape: &str) -> syn::Result<Expr> {
    let r = lower.scalar(src)?;
    if lower.arena.as_num(r).is_some_and(|r| r.is_negative() || r.is_zero()) {
        return Err(syn::Error::new_spanned(
            src,
            format!("a rolling {shape}'s radius must be positive: its centre sits at that height above the ground it rolls on"),
        ));
    }
    super::body::constant(lower, &[r], src, &format!("a rolling {shape}'s radius is constant"), false)?;
    Ok(r)
}

/// The radius of every rolling contact that lowered, by what it is ("the sphere radius of contact
/// `k`"), for the checks a run makes when it starts (a radius given by parameters must be > 0).
pub fn radii(lower: &mut Lowerer<'_>, raw: &RawModel) -> Vec<(String, Expr)> {
    let mut out = Vec::new();
    for decl in raw.contacts.iter().filter(|d| d.is_rolling()) {
        let (Some(name), Some((shape, src))) =
            (&decl.name, decl.sphere.as_ref().map(|s| ("sphere", s)).or(decl.disk.as_ref().map(|d| ("disk", d))))
        else {
            continue;
        };
        if let Ok(r) = lower.scalar(src) {
            out.push((format!("the {shape} radius of contact `{name}`"), r));
        }
    }
    out
}

/// The ground's unit normal: a 3-vector of unit length (the zero test) that does not move — free of
/// coordinates, velocities and time.
fn ground_normal(lower: &mut Lowerer<'_>, g: &syn::Expr) -> syn::Result<Vec3> {
    let up = lower.vector(g)?;
    let norm2 = lower.arena.norm_squared(&up);
    let one = lower.arena.one();
    let off = lower.arena.sub(norm2, one);
    let moving = lower
        .syms
        .q
        .iter()
        .chain(&lower.syms.qd)
        .chain([&lower.syms.t])
        .any(|&s| up.iter().any(|&e| lower.arena.depends_on(e, s)));
    if moving || !lower.arena.zero_test(off).is_zero() {
        return Err(syn::Error::new_spanned(
            g,
            "the ground is a fixed plane through the origin: `ground` is its constant unit normal, e.g. \
             `[-alpha.sin(), 0, alpha.cos()]` for a slope of angle alpha",
        ));
    }
    Ok(up)
}

/// The coordinate axis least aligned with `up` at sampled parameter values.
fn least_aligned_axis(lower: &Lowerer<'_>, up: &Vec3) -> usize {
    let values = lower.syms.sample_points(1).pop().unwrap_or_default();
    let lookup = |s: Expr| values.get(&s).copied().unwrap_or(1.0);
    let values: Vec<f64> = up.iter().map(|&e| lower.arena.eval(e, &lookup).abs()).collect();
    (0..3).min_by(|&a, &b| values[a].total_cmp(&values[b])).unwrap_or(0)
}

/// ċ + Ω × (P − c): the velocity of the body's material point at P.
fn material_velocity(lower: &mut Lowerer<'_>, body: &Body, spin: &Vec3, p: &Vec3) -> Vec3 {
    let arm = lower.arena.vec_sub(p, &body.centre);
    let turn = lower.arena.cross(spin, &arm);
    lower.arena.vec_add(&body.velocity, &turn)
}

/// Whether c_z / r > 0 at a few sampled states ([`crate::layout::Layout::sample_points`]; c_z the
/// centre's height above the plane): the centre above the plane, so that s = c_z / r is the
/// positive root.
fn positive_at_samples(lower: &Lowerer<'_>, cz: Expr, r: Expr) -> bool {
    lower.syms.sample_points(6).iter().all(|values| {
        let lookup = |s: Expr| values.get(&s).copied().unwrap_or(1.0);
        lower.arena.eval(cz, &lookup) / lower.arena.eval(r, &lookup) > 0.0
    })
}
