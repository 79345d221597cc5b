//! `orientation(R, ...)`: rotations in the state, without the singularities of Euler angles.
//!
//! An orientation R is stored as a quaternion q = (w, x, y, z) among the coordinates and its
//! body angular velocity ω among the velocities (quasi-velocities: q̇ = ½ q ⊗ (0, ω), see
//! [`crate::layout::Layout::rates`]). In expressions `R` is the rotation R(q/|q|) — a rotation for
//! every q ≠ 0, so the dynamics do not depend on |q|, which the exact flow keeps anyway — with
//! `omega(R) = ω`. The equations of motion are Hamel's (Euler–Poincaré for the rotation), see
//! [`crate::derive::euler_lagrange`], or, for bodies on a tree of joints and orientations (a
//! floating base, ball joints), the spatial articulated-body recursion
//! ([`crate::derive::dynamics::spatial`]).
//!
//! Models with orientations support, for now, bodies and Lagrangians, forces on their ordinary
//! coordinates and torques on the orientations (`force(R = [τ₁, τ₂, τ₃])`, body components: the
//! generalized force of ω), inputs and sensitivities, contact Lagrangians (`action(z)`), energies
//! and momenta, symmetries (`rotation(R, axis)` of an orientation, or
//! generators on the ordinary coordinates), reductions by Euler–Poincaré, nonholonomic and by the
//! rotations of an orientation (`routh(R)`, non-abelian), the field Jacobian, impacts (guards may depend on the
//! orientation; the law's rows are pulled back to the velocities, Kᵀ∇h) and constraints (rows over
//! the velocities: a velocity expression in ω directly, a position constraint or one-form pulled
//! back; their Frobenius test on Q = ℝⁿ × S³ⁱ, see [`crate::derive::constraint`]); the other items
//! are compile errors naming what is missing. Modes share the top level's coordinates and
//! orientations (a mode with coordinates of its own, and `reset(...)` chart changes, are errors).
//! Constrained linearisation (`linearize_constrained`) is not generated for them: it needs a
//! coordinate for every velocity.

use syn::Ident;

use crate::diagnostics::Ctxt;
use crate::parse::RawModel;

/// The declared orientations (reported: duplicates, clashes with other names, and the items that
/// do not support them yet), each with the number of coordinates declared before it.
pub fn orientations(raw: &RawModel, parameters: &[Ident], cx: &mut Ctxt) -> Vec<(Ident, usize)> {
    let placed: Vec<(Ident, usize)> = raw
        .orientations
        .iter()
        .enumerate()
        .flat_map(|(k, (_, n))| {
            let after = raw.orientation_after.get(k).copied().unwrap_or(raw.coordinates.len()).min(raw.coordinates.len());
            n.iter().map(move |r| (r.clone(), after))
        })
        .collect();
    let names: Vec<Ident> = placed.iter().map(|(r, _)| r.clone()).collect();
    if raw.orientations.is_empty() {
        return placed;
    }
    cx.repeats(&names, ToString::to_string, |r| syn::Error::new(r.span(), format!("the orientation `{r}` is declared twice")));
    let mut kept: Vec<(Ident, usize)> = Vec::new();
    for (r, after) in &placed {
        // The quaternion's components are state components named `r_w`, `r_x`, `r_y`, `r_z`.
        let component = ["w", "x", "y", "z"].into_iter().find_map(|c| raw.coordinates.iter().find(|q| **q == format!("{r}_{c}")));
        let named = |what: &str| Some(format!("the orientation `{r}` has the name of {what}; choose another name"));
        let clash = if raw.coordinates.contains(r) {
            named("a coordinate")
        } else if let Some(q) = component {
            Some(format!(
                "the orientation `{r}` names its quaternion's components `{r}_w`, `{r}_x`, `{r}_y`, `{r}_z` in the state, \
                 and `{q}` is a coordinate; choose another name"
            ))
        } else if parameters.contains(r) {
            named("a parameter (struct field)")
        } else if raw.defines.iter().any(|d| d.name == *r) {
            named("a define")
        } else if r == "t" {
            named("time")
        } else {
            None
        };
        match clash {
            // Reported once, and then not in scope (the other name keeps its meaning).
            Some(message) => cx.error(r.span(), message),
            None => kept.push((r.clone(), *after)),
        }
    }
    // (Modes share the top level's orientations, see `lower::system`; a chart change between them
    // is refused where its law is lowered.)
    // A Routh reduction by an orientation's rotations is the non-abelian one (see
    // `derive::reduce::rotations`); over cyclic coordinates alone the reduced model would keep the
    // orientation, which reduced models cannot carry yet.
    if let Some(r) =
        raw.reductions.iter().find(|r| r.keyword == "routh" && !r.cyclic.iter().any(|c| kept.iter().any(|(k, _)| k == c)))
    {
        cx.error(
            r.keyword.span(),
            format!(
                "Routh reduction over cyclic coordinates is not supported yet in models with `orientation(...)` states: the \
                 reduced model would keep the orientation `{r}`; reduce by the rotations of the orientation instead \
                 (`routh({r})`, when the whole model is invariant under them), or write the rotation with Euler angles \
                 (`frame(b = rot_z(phi) * rot_x(theta) * rot_z(psi))`)",
                r = kept.first().map(|(k, _)| k).or(names.first()).map_or_else(|| "r".to_string(), ToString::to_string),
            ),
        );
    }
    kept
}
