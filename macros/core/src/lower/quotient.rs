//! Lowering of a nonholonomic reduction's quotient map: `shape(s = σ(t, q), ...)`,
//! `inverse(x = ι(t, s, g), ...)` and `symmetry(name, ...)` (the proofs are the derive's,
//! [`crate::derive::reduce::quotient`]).

use symbolic::Expr;
use syn::Ident;

use super::expr::Lowerer;
use crate::diagnostics::{Ctxt, unknown};
use crate::model::{QuotientMap, Symmetry};
use crate::parse::ReduceDecl;

/// The quotient map of `decl`, if it gives one: σ over the model's symbols, ι over new shape
/// symbols and the dropped coordinates (`dropped`, indices among `coordinates`), the symmetries
/// resolved among `symmetries`. Every mistake is reported into `cx` (then `None`).
pub(super) fn lower_quotient(
    lower: &mut Lowerer<'_>,
    cx: &mut Ctxt,
    decl: &ReduceDecl,
    coordinates: &[Ident],
    symmetries: &[Symmetry],
    dropped: &[(usize, Ident)],
) -> Option<QuotientMap> {
    let ((keyword, shape), (inverse_keyword, inverse)) = match (&decl.shape, &decl.inverse) {
        (None, None) => {
            if let Some(s) = decl.symmetries.first() {
                cx.error(
                    s.span(),
                    "`symmetry(...)` names the symmetries a quotient map `shape(...)` must be invariant under; give the \
                     shape map with its `inverse(...)`, or leave it out",
                );
            }
            return None;
        }
        (Some(s), Some(i)) => (s, i),
        (Some((kw, _)), None) => {
            cx.error(
                kw.span(),
                "a quotient map needs its inverse: `inverse(x = ..., ...)`, each kept coordinate in the shape coordinates and \
                 the dropped ones",
            );
            return None;
        }
        (None, Some((kw, _))) => {
            cx.error(kw.span(), "`inverse(...)` inverts a quotient map: give the shape coordinates too, `shape(s = ..., ...)`");
            return None;
        }
    };
    if let Some(o) = lower.syms.orientations.first() {
        cx.error(keyword.span(), format!("a quotient map in a model with an orientation (`{}`) is not supported yet", o.name));
        return None;
    }
    let errors = cx.count();
    let kept: Vec<usize> = (0..coordinates.len()).filter(|k| !dropped.iter().any(|(d, _)| d == k)).collect();
    let kept_names = || kept.iter().map(|&k| coordinates[k].to_string()).collect::<Vec<_>>().join(", ");
    let dropped_names = || dropped.iter().map(|(_, d)| d.to_string()).collect::<Vec<_>>().join(", ");
    if shape.is_empty() {
        cx.error(keyword.span(), "name the shape coordinates: `shape(s = expr, ...)`");
    } else if shape.len() != kept.len() {
        cx.error(
            keyword.span(),
            format!(
                "the shape map gives {} coordinate(s) and the reduction keeps {} ({}): name one shape coordinate per kept \
                 coordinate",
                shape.len(),
                kept.len(),
                kept_names()
            ),
        );
    }
    // The shape coordinates: new names, functions of (t, q).
    let (names, values) = shape_coordinates(lower, cx, shape);
    let symbols: Vec<Expr> = names.iter().map(|n| lower.arena.symbol(&n.to_string())).collect();
    let frame: Vec<(String, Expr)> = names.iter().map(ToString::to_string).zip(symbols.iter().copied()).collect();
    // The inverse: every kept coordinate once, in the shape and dropped coordinates.
    let mut lowered: Vec<(usize, Ident, Expr)> = Vec::new();
    for b in inverse {
        let Some(k) = coordinates.iter().position(|c| *c == b.name) else {
            let names: Vec<String> = kept.iter().map(|&k| coordinates[k].to_string()).collect();
            let what = format!("`{}` is not a kept coordinate of the model", b.name);
            cx.push(unknown(b.name.span(), what, &b.name.to_string(), &names, format!("Kept coordinates: {}", kept_names())));
            continue;
        };
        if dropped.iter().any(|(d, _)| *d == k) {
            cx.error(
                b.name.span(),
                format!(
                    "`{}` is dropped: the inverse gives the kept coordinates ({}) in the shape coordinates and the dropped ones",
                    b.name,
                    kept_names()
                ),
            );
            continue;
        }
        if lowered.iter().any(|(j, _, _)| *j == k) {
            cx.error(b.name.span(), format!("`{}` is given twice", b.name));
            continue;
        }
        let Some(e) = cx.ok(lower.lower_with(&frame, &b.value)) else { continue };
        if let Some(&j) = kept.iter().find(|&&j| lower.arena.depends_on(e, lower.syms.q[j])) {
            cx.push(syn::Error::new_spanned(
                &b.value,
                format!(
                    "the inverse is written in the shape coordinates ({}), the dropped coordinates ({}), `t` and the \
                     parameters, but this depends on the kept coordinate `{}`",
                    names.iter().map(ToString::to_string).collect::<Vec<_>>().join(", "),
                    dropped_names(),
                    coordinates[j]
                ),
            ));
            continue;
        }
        if moves(lower, e) {
            cx.push(syn::Error::new_spanned(&b.value, "the inverse is a function of the positions only"));
            continue;
        }
        lowered.push((k, b.name.clone(), e));
    }
    let missing: Vec<String> = kept
        .iter()
        .filter(|k| !inverse.iter().any(|b| b.name == coordinates[**k]))
        .map(|&k| coordinates[k].to_string())
        .collect();
    if !missing.is_empty() {
        cx.error(
            inverse_keyword.span(),
            format!(
                "the inverse must give every kept coordinate in the shape and dropped ones: {} is missing",
                missing.join(", ")
            ),
        );
    }
    lowered.sort_by_key(|(k, _, _)| *k);
    let invariant = invariant_under(cx, decl, symmetries);
    (cx.count() == errors).then(|| QuotientMap {
        keyword: keyword.clone(),
        inverse_keyword: inverse_keyword.clone(),
        names,
        symbols,
        values,
        inverse: lowered,
        symmetries: invariant,
    })
}

/// The symmetries a quotient map must be invariant under (`symmetry(...)`), resolved among the
/// model's (an unknown one reported into `cx`).
fn invariant_under(cx: &mut Ctxt, decl: &ReduceDecl, symmetries: &[Symmetry]) -> Vec<(usize, Ident)> {
    let mut invariant: Vec<(usize, Ident)> = Vec::new();
    for s in &decl.symmetries {
        match symmetries.iter().position(|d| d.name == *s) {
            Some(i) => invariant.push((i, s.clone())),
            None => {
                let names: Vec<String> = symmetries.iter().map(|d| d.name.to_string()).collect();
                let known = if names.is_empty() {
                    "The model declares no symmetry: `symmetry(name = generator(q = ..., ...))`".to_string()
                } else {
                    format!("Declared symmetries: {}", names.join(", "))
                };
                cx.push(unknown(s.span(), format_args!("unknown symmetry `{s}`"), &s.to_string(), &names, known));
            }
        }
    }
    invariant
}

/// Whether `e` reads a velocity, an input or the action.
fn moves(lower: &Lowerer<'_>, e: Expr) -> bool {
    lower.syms.qd.iter().chain(&lower.syms.u).chain(&lower.syms.z).any(|&v| lower.arena.depends_on(e, v))
}

/// The shape coordinates' names (new to the model, each once) and values σ(t, q).
fn shape_coordinates(lower: &mut Lowerer<'_>, cx: &mut Ctxt, shape: &[crate::parse::Binding]) -> (Vec<Ident>, Vec<Expr>) {
    let mut names: Vec<Ident> = Vec::new();
    let mut values: Vec<Expr> = Vec::new();
    for b in shape {
        let name = b.name.to_string();
        if lower.is_name(&name) || lower.syms.orientations.iter().any(|o| o.name == b.name) {
            cx.error(
                b.name.span(),
                format!("`{name}` already names something of the model: a shape coordinate needs a name of its own"),
            );
        } else if names.contains(&b.name) {
            cx.error(b.name.span(), format!("the shape coordinate `{name}` is named twice"));
        }
        names.push(b.name.clone());
        let Some(e) = cx.ok(lower.lower(&b.value)) else { continue };
        if moves(lower, e) {
            cx.push(syn::Error::new_spanned(&b.value, "a shape coordinate is a function of the time and the coordinates only"));
        }
        values.push(e);
    }
    (names, values)
}
