//! One-forms of the DSL (`dx - r * dphi`, `dy + v * dt`): the check that a lowered expression is one.

use symbolic::Expr;

use super::expr::Lowerer;

/// A one-form must be linear in the differentials, with no part free of them.
pub(super) fn check_linear_oneform(lower: &mut Lowerer<'_>, w: Expr, dq: &[Expr], dt: Expr, src: &syn::Expr) -> syn::Result<()> {
    let mut rebuilt = Vec::new();
    let mut all: Vec<Expr> = dq.to_vec();
    all.push(dt);
    for &d in &all {
        let c = lower.arena.diff(w, d);
        if all.iter().any(|&d2| lower.arena.depends_on(c, d2)) {
            return Err(syn::Error::new_spanned(src, "a one-form must be linear in the differentials `dq` and `dt`"));
        }
        let term = lower.arena.mul2(c, d);
        rebuilt.push(term);
    }
    let sum = lower.arena.add(&rebuilt);
    let rest = lower.arena.sub(w, sum);
    if !lower.arena.zero_test(rest).is_zero() {
        return Err(syn::Error::new_spanned(
            src,
            "a one-form is a combination of differentials such as `dx - r * dphi`; this has a part without any `d<coordinate>` or `dt`",
        ));
    }
    if rebuilt.iter().all(|&t| lower.arena.zero_test(t).is_zero()) {
        return Err(syn::Error::new_spanned(src, "this one-form is zero"));
    }
    Ok(())
}
