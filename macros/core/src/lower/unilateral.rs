//! `unilateral(name = c, guard = h, law = ...)`: a unilateral holonomic constraint h(t, q) ≥ 0
//! written once, expanded into the modes of the completed hybrid system it describes.
//!
//! For constraints c₁ … c_N (N ≤ 4) the model gets one mode per set S of constraints held with
//! equality: `free` (none held) and, e.g., `floor`, `floor_wall` (the held constraints' names in
//! declaration order). In a mode:
//!
//! - every constraint in S is `holonomic(c = h)` (held: h = 0, multiplier λ_c ≥ 0 pushing out);
//! - every other constraint is `impact(name = c, guard = h, law = ...)` (arrival with the given law);
//! - `transition(S -> S ∪ {c}, name = settle_c, zeno = c, law = project)`: when the impacts on c
//!   accumulate (Zeno) or the contact persists (a plastic landing), the state is projected onto
//!   the contact and the constraint is held from then on;
//! - `transition(S -> S ∖ {c}, name = release_c, guard = multiplier(c), law = map())`: the contact
//!   is released, with no impulse, when its multiplier falls through zero (liftoff).
//!
//! The model's other impacts and constraints hold in every mode.

use quote::format_ident;
use syn::Ident;

use crate::diagnostics::Ctxt;
use crate::parse::{ConstraintDecl, ImpactDecl, LawDecl, ModeDecl, RawModel};

/// Most unilateral constraints in one model (2^N modes are generated).
const MAX_UNILATERAL: usize = 4;

/// `raw` with its `unilateral(...)` items expanded into modes and transitions (unchanged when it
/// has none).
pub(super) fn expand(mut raw: RawModel, cx: &mut Ctxt) -> Option<RawModel> {
    let (unilateral, others): (Vec<ImpactDecl>, Vec<ImpactDecl>) = raw.impacts.drain(..).partition(|d| d.keyword == "unilateral");
    raw.impacts = others;
    if unilateral.is_empty() {
        return Some(raw);
    }
    let first = &unilateral[0].keyword;
    if !raw.modes.is_empty() {
        cx.error(first.span(), "`unilateral(...)` generates the modes of its contacts; in a model with `mode(...)` items write them as modes and transitions");
        return None;
    }
    if unilateral.len() > MAX_UNILATERAL {
        cx.error(
            unilateral[MAX_UNILATERAL].keyword.span(),
            format!("at most {MAX_UNILATERAL} unilateral constraints per model (each doubles the modes)"),
        );
        return None;
    }
    let mut parts = Vec::new();
    for u in &unilateral {
        let missing = |what: &str, example: &str| {
            syn::Error::new(u.keyword.span(), format!("this unilateral constraint has no `{what}`; add `{what} = {example}`"))
        };
        let parsed = (|| {
            let name = u.name.clone().ok_or_else(|| missing("name", "floor"))?;
            let guard = u.guard.clone().ok_or_else(|| missing("guard", "y"))?;
            let law = u.law.clone().ok_or_else(|| missing("law", "restitution(e)"))?;
            if let Some(z) = &u.zeno {
                return Err(syn::Error::new(
                    z.span(),
                    "`zeno = ...` belongs to transitions; a unilateral constraint settles by itself",
                ));
            }
            Ok((name, guard, law))
        })();
        parts.extend(cx.ok(parsed));
    }
    if parts.len() != unilateral.len() {
        return None;
    }
    let span = raw.span;
    let mode_name = |mask: usize| -> Ident {
        let held: Vec<String> =
            parts.iter().enumerate().filter(|(i, _)| mask & (1 << i) != 0).map(|(_, p)| p.0.to_string()).collect();
        if held.is_empty() { format_ident!("free", span = span) } else { format_ident!("{}", held.join("_"), span = span) }
    };
    let (shared_impacts, shared_constraints) = (std::mem::take(&mut raw.impacts), std::mem::take(&mut raw.constraints));
    let mut transitions = Vec::new();
    for mask in 0..1usize << parts.len() {
        let mut items = RawModel::empty(span);
        items.constraints = shared_constraints.clone();
        items.impacts = shared_impacts.clone();
        for (i, (name, guard, law)) in parts.iter().enumerate() {
            let bit = 1 << i;
            let keyword = |word: &str| Ident::new(word, name.span());
            if mask & bit != 0 {
                items.constraints.push(ConstraintDecl {
                    keyword: keyword("holonomic"),
                    name: name.clone(),
                    value: guard.clone(),
                });
                transitions.push(ImpactDecl {
                    keyword: keyword("transition"),
                    name: Some(format_ident!("release_{}", name, span = name.span())),
                    guard: Some(syn::parse_quote!(multiplier(#name))),
                    law: Some(LawDecl::Map { assignments: Vec::new() }),
                    modes: Some((mode_name(mask), mode_name(mask & !bit))),
                    zeno: None,
                });
            } else {
                items.impacts.push(ImpactDecl {
                    keyword: keyword("impact"),
                    name: Some(name.clone()),
                    guard: Some(guard.clone()),
                    law: Some(law.clone()),
                    modes: None,
                    zeno: None,
                });
                transitions.push(ImpactDecl {
                    keyword: keyword("transition"),
                    name: Some(format_ident!("settle_{}", name, span = name.span())),
                    guard: None,
                    law: Some(LawDecl::Project { keyword: keyword("project") }),
                    modes: Some((mode_name(mask), mode_name(mask | bit))),
                    zeno: Some(name.clone()),
                });
            }
        }
        raw.modes.push(ModeDecl { name: mode_name(mask), items });
    }
    raw.impacts = transitions;
    Some(raw)
}
