//! Lowering of `output(name = expr, ...)`: named functions of the state (scalars, or 3-vectors
//! that give one column per component), evaluated along a run after it.

use syn::Ident;

use super::expr::Lowerer;
use super::value::Value;
use crate::diagnostics::Ctxt;
use crate::layout::Role;
use crate::parse::RawModel;
use symbolic::Expr;

/// The outputs of `raw`, one `(column name, expression)` per scalar (a vector `p` gives `p[0]`,
/// `p[1]`, `p[2]`); mistakes are reported into `cx`. Two outputs are not expressions:
/// `energy()`, the model's energy E (a symbol the derive replaces by E), and `multiplier(c)`, the
/// multiplier λ of the constraint `c` among `constraints` (the constraint force along its row,
/// from the saddle-point solve at the state) — 0 in a mode where `c` is not held (a released
/// contact pushes with no force); a name no constraint of the system has is reported by
/// [`check_output_multipliers`].
pub fn lower_outputs(lower: &mut Lowerer<'_>, cx: &mut Ctxt, raw: &RawModel, constraints: &[Ident]) -> Vec<(String, Expr)> {
    let mut out = Vec::new();
    let bindings: Vec<_> = raw.outputs.iter().flat_map(|(_, b)| b).collect();
    cx.repeats(
        &bindings,
        |b| b.name.to_string(),
        |b| syn::Error::new(b.name.span(), format!("two outputs are named `{}`; output names are column names", b.name)),
    );
    for b in bindings {
        if let Some(c) = super::impact::multiplier_guard(&b.value) {
            let value = match constraints.iter().position(|k| *k == c) {
                Some(k) => lower.syms.symbol(lower.arena, Role::Multiplier(k)),
                None => lower.arena.zero(),
            };
            out.push((b.name.to_string(), value));
            continue;
        }
        if is_energy(&b.value) {
            out.push((b.name.to_string(), lower.syms.symbol(lower.arena, Role::Energy)));
            continue;
        }
        let Some(value) = cx.ok(lower.value(&b.value)) else { continue };
        let columns: Vec<(String, Expr)> = match value {
            Value::Scalar(e) => vec![(b.name.to_string(), e)],
            Value::Vector(v) => v.iter().enumerate().map(|(i, &e)| (format!("{}[{i}]", b.name), e)).collect(),
            Value::Matrix(..) => {
                cx.push(syn::Error::new_spanned(
                    &b.value,
                    "an output is a scalar or a 3-vector, but this is a 3×3 matrix; output its entries, e.g. `r01 = m[(0, 1)]`",
                ));
                continue;
            }
            Value::Failed => continue,
        };
        let syms = lower.syms;
        let depends = |e: Expr, on: &[Expr]| on.iter().any(|&s| lower.arena.depends_on(e, s));
        if columns.iter().any(|(_, e)| depends(*e, &syms.u)) {
            cx.push(syn::Error::new_spanned(
                &b.value,
                "an output is a function of the state, and this one depends on an input, which a trajectory does not record",
            ));
            continue;
        }
        out.extend(columns);
    }
    out
}

/// `energy()`.
fn is_energy(e: &syn::Expr) -> bool {
    let syn::Expr::Call(call) = e else { return false };
    matches!(&*call.func, syn::Expr::Path(f) if f.path.is_ident("energy")) && call.args.is_empty()
}

/// Reports each `multiplier(c)` output whose `c` is a constraint of no mode (`held`: the
/// constraint names of every mode, or of the one model).
pub fn check_output_multipliers(cx: &mut Ctxt, raw: &RawModel, held: &[Ident]) {
    for b in raw.outputs.iter().flat_map(|(_, b)| b) {
        if let Some(c) = super::impact::multiplier_guard(&b.value)
            && !held.contains(&c)
        {
            let known: Vec<String> = held.iter().map(ToString::to_string).collect();
            let hint = crate::diagnostics::hint(&c.to_string(), known.iter().map(String::as_str));
            let list = if known.is_empty() { "the model has none".to_string() } else { format!("they are {}", known.join(", ")) };
            cx.push(syn::Error::new(c.span(), format!("`multiplier({c})` names no constraint ({list}){hint}")));
        }
    }
}
