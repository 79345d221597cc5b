//! Lowering of `discrete(rule = ...)`: which quadrature turns the model's L and forces into a
//! discrete Lagrangian and discrete forces (see [`crate::discrete`]).

use symbolic::Rational;
use syn::spanned::Spanned;

use super::expr::Lowerer;
use crate::diagnostics::{Ctxt, unknown};
use crate::model::{Discretization, Quadrature};
use crate::parse::{RULES, RawModel};

/// The model's discretization (at most one; none for mistakes, which go to `cx`).
pub fn lower_discrete(lower: &mut Lowerer<'_>, cx: &mut Ctxt, raw: &RawModel, contact: bool, inputs: bool) -> Option<Discretization> {
    let decl = raw.discrete.first()?;
    for extra in &raw.discrete[1..] {
        cx.error(extra.keyword.span(), "`discrete(...)` is given more than once; a model has one discretization");
    }
    let unsupported = if contact {
        Some("contact Lagrangians (with `action(...)`)")
    } else if inputs {
        Some("inputs")
    } else if !raw.constraints.is_empty() {
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
    let known = format!("Rules: {} (`alpha(a)` with 0 ≤ a ≤ 1)", RULES.join(", "));
    let (rule, quadrature) = match &decl.rule {
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
            let depends = lower.syms.q.iter().chain(&lower.syms.qd).chain([&lower.syms.t]).any(|&s| lower.arena.depends_on(alpha, s));
            if depends {
                cx.error(arg.span(), "the rule's α must be a constant (a literal or an expression of parameters)");
                return None;
            }
            if let Some(v) = lower.arena.as_num(alpha).map(|r| r.to_f64())
                && !(0.0..=1.0).contains(&v)
            {
                cx.error(arg.span(), format!("α = {v} is outside [0, 1]: the quadrature point q_α = (1 − α) q_k + α q_k+1 must lie between the nodes"));
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
