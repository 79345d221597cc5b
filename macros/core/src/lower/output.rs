//! Lowering of `output(name = expr, ...)`: named functions of the state (scalars, or 3-vectors
//! that give one column per component), evaluated along a run after it.

use super::expr::Lowerer;
use super::value::Value;
use crate::diagnostics::Ctxt;
use crate::parse::RawModel;
use symbolic::Expr;

/// The outputs of `raw`, one `(column name, expression)` per scalar (a vector `p` gives `p[0]`,
/// `p[1]`, `p[2]`); mistakes are reported into `cx`.
pub fn lower_outputs(lower: &mut Lowerer<'_>, cx: &mut Ctxt, raw: &RawModel) -> Vec<(String, Expr)> {
    let mut out = Vec::new();
    let bindings: Vec<_> = raw.outputs.iter().flat_map(|(_, b)| b).collect();
    cx.repeats(
        &bindings,
        |b| b.name.to_string(),
        |b| syn::Error::new(b.name.span(), format!("two outputs are named `{}`; output names are column names", b.name)),
    );
    for b in bindings {
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
