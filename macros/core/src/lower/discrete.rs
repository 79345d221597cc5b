//! Lowering of `discrete(rule = ...)`: which quadrature turns the model's L and forces into a
//! discrete Lagrangian and discrete forces (see [`crate::derive::discrete`]).

use symbolic::Rational;
use syn::spanned::Spanned;

use super::expr::{Lowerer, Nodes};
use crate::diagnostics::{Ctxt, unknown};
use crate::model::{Discretization, Quadrature};
use crate::parse::{RULES, RawModel};

/// The model's discretization (at most one; none for mistakes, which go to `cx`).
pub fn lower_discrete(lower: &mut Lowerer<'_>, cx: &mut Ctxt, raw: &RawModel, nodes: Option<&Nodes>) -> Option<Discretization> {
    let decl = raw.discrete.first()?;
    for extra in &raw.discrete[1..] {
        cx.error(extra.keyword.span(), "`discrete(...)` is given more than once; a model has one discretization");
    }
    let unsupported = if !raw.constraints.is_empty() {
        Some("constraints")
    } else if !raw.impacts.is_empty() {
        Some("impacts")
    } else {
        None
    };
    if let Some(what) = unsupported {
        cx.error(decl.keyword.span(), format!("discrete (variational) integrators of models with {what} are not supported yet"));
        return None;
    }
    // With orientations: the Lie group integrator of a rule (`derive::discrete::OrientedEquations`),
    // without what it does not carry yet.
    if !raw.orientations.is_empty() {
        let euler = "; to discretize the model with them, write the rotation with Euler angles \
                     (`frame(b = rot_z(phi) * rot_x(theta) * rot_z(psi))`)";
        let unsupported = if decl.rule.is_none() {
            Some((
                "a raw discrete system (L_d over the nodes)",
                "; give `rule = ...` (midpoint, trapezoid, rectangle or alpha(a)): the model's L discretized",
                decl.keyword.span(),
            ))
        } else if let Some((kw, _)) = raw.actions.first() {
            Some(("an action variable (a contact Lagrangian)", euler, kw.span()))
        } else {
            raw.reductions.first().map(|r| ("reductions", euler, r.keyword.span()))
        };
        if let Some((what, hint, at)) = unsupported {
            cx.error(
                at,
                format!(
                    "the variational integrator of a model with `orientation(...)` states (the Lie group integrator) does not \
                     take {what} yet{hint}"
                ),
            );
            return None;
        }
    }
    let known = format!("Rules: {} (`alpha(a)` with 0 ≤ a ≤ 1)", RULES.join(", "));
    let Some(rule_expr) = &decl.rule else {
        return lower_raw(lower, cx, raw, nodes?);
    };
    if decl.lagrangian.is_some() || !decl.force_minus.is_empty() || !decl.force_plus.is_empty() {
        cx.error(decl.keyword.span(), "give either `rule = ...` (the model's L discretized) or a raw discrete system, not both");
        return None;
    }
    // (A rule passed through a `macro_rules!` fragment arrives wrapped in an invisible group.)
    let mut rule_expr = rule_expr;
    while let syn::Expr::Group(g) = rule_expr {
        rule_expr = &g.expr;
    }
    let (rule, quadrature) = match rule_expr {
        syn::Expr::Path(p) if p.path.get_ident().is_some() => {
            let id = p.path.get_ident()?;
            let half = lower.arena.num(Rational::new(1, 2)?);
            let zero = lower.arena.zero();
            match id.to_string().as_str() {
                "midpoint" => ("midpoint".to_string(), Quadrature::Alpha(half)),
                "rectangle" => ("rectangle".to_string(), Quadrature::Alpha(zero)),
                "trapezoid" => ("trapezoid".to_string(), Quadrature::Trapezoid),
                other => {
                    cx.push(unknown(id.span(), format_args!("unknown quadrature rule `{other}`"), other, RULES, known));
                    return None;
                }
            }
        }
        syn::Expr::Call(c) if matches!(&*c.func, syn::Expr::Path(p) if p.path.is_ident("alpha")) && c.args.len() == 1 => {
            let arg = &c.args[0];
            let alpha = cx.ok(lower.lower(arg))?;
            // α must be a constant: a literal in [0, 1], or a parameter expression (checked at run time).
            let depends =
                lower.syms.q.iter().chain(&lower.syms.qd).chain([&lower.syms.t]).any(|&s| lower.arena.depends_on(alpha, s));
            if depends {
                cx.error(arg.span(), "the rule's α must be a constant (a literal or an expression of parameters)");
                return None;
            }
            if let Some(v) = lower.arena.as_num(alpha).map(|r| r.to_f64())
                && !(0.0..=1.0).contains(&v)
            {
                cx.error(
                    arg.span(),
                    format!(
                        "α = {v} is outside [0, 1]: the quadrature point q_α = (1 − α) q_k + α q_k+1 must lie between the nodes"
                    ),
                );
                return None;
            }
            ("alpha".to_string(), Quadrature::Alpha(alpha))
        }
        other => {
            cx.push(syn::Error::new(other.span(), format!("expected a quadrature rule. {known}")));
            return None;
        }
    };
    Some(Discretization { rule, quadrature })
}

/// A raw discrete system: L_d and f∓ written in the nodes.
fn lower_raw(lower: &mut Lowerer<'_>, cx: &mut Ctxt, raw: &RawModel, nodes: &Nodes) -> Option<Discretization> {
    let decl = raw.discrete.first()?;
    let Some(l) = &decl.lagrangian else {
        cx.error(
            decl.keyword.span(),
            "`discrete(...)` needs `rule = <quadrature>` (midpoint, trapezoid, rectangle, alpha(a)), or a raw `lagrangian = ...` in q0(x), q1(x) and h",
        );
        return None;
    };
    let lagrangian = cx.ok(lower.lower_discrete(l, nodes).and_then(|e| continuous_free(lower, e, l)));
    let n = raw.coordinates.len();
    let mut sides = [vec![None; n], vec![None; n]];
    for (side, bindings) in [&decl.force_minus, &decl.force_plus].into_iter().enumerate() {
        for b in bindings {
            let value = cx.ok(lower.lower_discrete(&b.value, nodes).and_then(|e| continuous_free(lower, e, &b.value)));
            match raw.coordinates.iter().position(|c| *c == b.name) {
                Some(i) if sides[side][i].is_some() => {
                    cx.error(b.name.span(), format!("the force on `{}` is given twice", b.name))
                }
                Some(i) => sides[side][i] = value,
                None => {
                    let coords: Vec<String> = raw.coordinates.iter().map(ToString::to_string).collect();
                    let known = format!("Coordinates: {}", coords.join(", "));
                    cx.push(unknown(
                        b.name.span(),
                        format_args!("discrete force on unknown coordinate `{}`", b.name),
                        &b.name.to_string(),
                        &coords,
                        known,
                    ));
                }
            }
        }
    }
    let lagrangian = lagrangian?;
    let zero = lower.arena.zero();
    let [minus, plus] = sides.map(|v| v.into_iter().map(|e| e.unwrap_or(zero)).collect::<Vec<_>>());
    Some(Discretization { rule: "raw".into(), quadrature: Quadrature::Raw { lagrangian, minus, plus } })
}

/// A raw expression must not reach the continuous coordinates or velocities (through a `define`
/// of them, lowered in the continuous model).
fn continuous_free(lower: &Lowerer<'_>, e: symbolic::Expr, at: &syn::Expr) -> syn::Result<symbolic::Expr> {
    let syms = lower.syms;
    if syms.q.iter().chain(&syms.qd).chain([&syms.t]).any(|&s| lower.arena.depends_on(e, s)) {
        return Err(syn::Error::new(
            at.span(),
            "this raw discrete expression uses a `define` of the model's coordinates, velocities or time; write it in the \
             nodes q0(x), q1(x), the step h and t",
        ));
    }
    Ok(e)
}
