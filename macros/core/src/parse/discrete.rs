//! `discrete(...)` declarations.

use syn::parse::ParseStream;
use syn::punctuated::Punctuated;
use syn::{Expr, Ident, Token};

use super::{Binding, DiscreteDecl};
use crate::diagnostics::unknown;

impl DiscreteDecl {
    /// `discrete(...)`'s body: `rule = <quadrature>`, or a raw discrete system (`lagrangian = ...`,
    /// `force_minus(...)`, `force_plus(...)`).
    pub(super) fn parse_body(keyword: Ident, input: ParseStream) -> syn::Result<DiscreteDecl> {
        let mut decl = DiscreteDecl { keyword, rule: None, lagrangian: None, force_minus: Vec::new(), force_plus: Vec::new() };
        while !input.is_empty() {
            let key: Ident = input.parse()?;
            match key.to_string().as_str() {
                "rule" | "lagrangian" => {
                    input.parse::<Token![=]>()?;
                    let value: Expr = input.parse()?;
                    let slot = if key == "rule" { &mut decl.rule } else { &mut decl.lagrangian };
                    if slot.replace(value).is_some() {
                        return Err(syn::Error::new(key.span(), format!("`{key}` is given twice")));
                    }
                }
                "force_minus" | "force_plus" => {
                    let inner;
                    syn::parenthesized!(inner in input);
                    let bindings = Punctuated::<Binding, Token![,]>::parse_terminated(&inner)?;
                    let slot = if key == "force_minus" { &mut decl.force_minus } else { &mut decl.force_plus };
                    slot.extend(bindings);
                }
                other => {
                    let keys = ["rule", "lagrangian", "force_minus", "force_plus"];
                    let known = "Expected `rule = <quadrature>`, or a raw discrete system: `lagrangian = ...`, `force_minus(...)`, `force_plus(...)`";
                    return Err(unknown(
                        key.span(),
                        format_args!("unknown key `{other}` in `discrete(...)`"),
                        other,
                        &keys,
                        known,
                    ));
                }
            }
            if input.is_empty() {
                break;
            }
            input.parse::<Token![,]>()?;
        }
        Ok(decl)
    }
}
