//! Lowering of `holonomic(...)` and `constraint(...)` into velocity-level rows `a·q̇ + b = 0`.
//!
//! - `holonomic(name = f)`: f(t, q) = 0; it must not depend on velocities. Its row is the total
//!   derivative: a = ∇f, b = ∂f/∂t.
//!
//! Rows are over the velocities. With orientations (whose velocities are the body angular
//! velocity ω, not a coordinate's rate) a gradient or a one-form over the coordinates is pulled
//! back through q̇ = K v ([`crate::layout::Layout::pull_back`]); a velocity expression may use
//! `omega(R)` directly.
//! - `constraint(name = ω)`: either a one-form in the differentials `d<coordinate>` and `dt`
//!   (`dx - r * phi.cos() * dth`, as in impact laws), or a velocity expression that must be affine
//!   in q̇ (`dot(x) - r * omega_y` with `omega_y` a `define` of angles and their rates). For the
//!   latter, a = ∂c/∂q̇ must not depend on q̇ and b = c − a·q̇; this is proved symbolically (the
//!   offending velocity is named otherwise).

use symbolic::Expr;

use super::expr::Lowerer;
use super::oneform::check_linear_oneform;
use crate::model::Constraint;
use crate::parse::ConstraintDecl;

pub(super) fn lower_constraint(lower: &mut Lowerer<'_>, decl: &ConstraintDecl, dq: &[Expr], dt: Expr) -> syn::Result<Constraint> {
    let c = lower_constraint_expr(lower, decl, dq, dt)?;
    check_action_free(lower, decl, &c)?;
    Ok(c)
}

/// A constraint may not involve the action variable z of a contact model: z is not a coordinate
/// (its rate ż = L is fixed by the Lagrangian, no constraint force acts on it), so a row in z would
/// be enforced on q alone — its velocity row leaves out ż — and the projection would drag q after z.
fn check_action_free(lower: &Lowerer<'_>, decl: &ConstraintDecl, c: &Constraint) -> syn::Result<()> {
    let Some(z) = lower.syms.z else { return Ok(()) };
    let depends = c.position.iter().chain(&c.a).chain([&c.b]).any(|&e| lower.arena.depends_on(e, z));
    if !depends {
        return Ok(());
    }
    let action = lower.action_name().unwrap_or("z");
    Err(syn::Error::new_spanned(
        &decl.value,
        format!(
            "the constraint `{}` involves the action variable `{action}`: constraints act on the coordinates through \
             their forces, but `{action}` is not a coordinate (its rate is fixed, d{action}/dt = L, and no constraint force \
             acts on it), so the constraint could not hold; constrain the coordinates only",
            decl.name
        ),
    ))
}

fn lower_constraint_expr(lower: &mut Lowerer<'_>, decl: &ConstraintDecl, dq: &[Expr], dt: Expr) -> syn::Result<Constraint> {
    let name = decl.name.clone();
    let src = &decl.value;
    if decl.keyword == "holonomic" {
        let f = lower.lower(src)?;
        if let Some(v) = lower.velocity_in(f) {
            return Err(syn::Error::new_spanned(
                src,
                format!(
                    "a holonomic constraint f(t, q) = 0 is a function of the coordinates and time, but this depends on \
                     the velocity `{v}`; write a velocity constraint as `constraint({name} = ...)`"
                ),
            ));
        }
        return position_row(lower, name, f, src);
    }
    let w = lower.lower_oneform(src, dq, dt)?;
    let uses_differentials = dq.iter().chain([&dt]).any(|&d| lower.arena.depends_on(w, d));
    let velocity = lower.velocity_in(w);
    let (a, b) = match (uses_differentials, velocity) {
        (true, Some(v)) => {
            return Err(syn::Error::new_spanned(
                src,
                format!(
                    "write a constraint either as a one-form in `d<coordinate>` and `dt` or as a velocity expression; \
                     this mixes differentials with `{v}`"
                ),
            ));
        }
        (true, None) => {
            check_linear_oneform(lower, w, dq, dt, src)?;
            let over_q = lower.arena.gradient(w, dq);
            let a = lower.syms.pull_back(lower.arena, &over_q);
            let b = lower.arena.diff(w, dt);
            (a, b)
        }
        (false, Some(_)) => return velocity_row(lower, name, w, src),
        (false, None) => {
            return Err(syn::Error::new_spanned(
                src,
                format!(
                    "this constraint involves no velocity and no differential: a constraint on positions is written \
                     `holonomic({name} = ...)`"
                ),
            ));
        }
    };
    if a.iter().all(|&ak| lower.arena.zero_test(ak).is_zero()) {
        return Err(syn::Error::new_spanned(src, "this constraint does not restrict any velocity"));
    }
    Ok(Constraint { name, position: None, a, b })
}

/// The row of a position constraint f(t, q) = 0 (free of velocities): a = ∂f/∂q pulled back to
/// the velocities (∇f itself without orientations), b = ∂f/∂t.
pub(super) fn position_row(
    lower: &mut Lowerer<'_>,
    name: syn::Ident,
    f: Expr,
    src: &dyn quote::ToTokens,
) -> syn::Result<Constraint> {
    let (q, t) = (lower.syms.q.clone(), lower.syms.t);
    let gradient = lower.arena.gradient(f, &q);
    let a = lower.syms.pull_back(lower.arena, &gradient);
    let b = lower.arena.diff(f, t);
    if a.iter().all(|&ak| lower.arena.zero_test(ak).is_zero()) {
        return Err(syn::Error::new_spanned(src, "this holonomic constraint does not depend on the coordinates"));
    }
    Ok(Constraint { name, position: Some(f), a, b })
}

/// The row of a velocity expression w = a·v + b, which must be affine in the velocities: a = ∂w/∂v
/// free of velocities (proved structurally; the offending velocity is named otherwise).
pub(super) fn velocity_row(
    lower: &mut Lowerer<'_>,
    name: syn::Ident,
    w: Expr,
    src: &dyn quote::ToTokens,
) -> syn::Result<Constraint> {
    let qd = lower.syms.qd.clone();
    let a = lower.arena.gradient(w, &qd);
    for (k, &ak) in a.iter().enumerate() {
        if let Some(j) = qd.iter().position(|&v| lower.arena.depends_on(ak, v)) {
            let (ck, cj) = (lower.velocity_name(k), lower.velocity_name(j));
            return Err(syn::Error::new_spanned(
                src,
                format!(
                    "a velocity constraint must be affine in the velocities, but the coefficient of `{ck}` depends on `{cj}`"
                ),
            ));
        }
    }
    let aqd = lower.arena.dot(&a, &qd);
    let b = lower.arena.sub(w, aqd);
    if a.iter().all(|&ak| lower.arena.zero_test(ak).is_zero()) {
        return Err(syn::Error::new_spanned(src, "this constraint does not restrict any velocity"));
    }
    Ok(Constraint { name, position: None, a, b })
}
