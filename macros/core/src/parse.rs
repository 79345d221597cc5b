//! Parsing of the `#[mechanics(...)]` attribute into a raw, unvalidated syntax tree.
//!
//! Grammar (items separated by commas, in any order, possibly spread over several attributes):
//!
//! ```text
//! item := coordinates( ident, ... )
//!       | define( ident = expr, ... )
//!       | lagrangian = expr
//!       | force( ident = expr, ... )
//! ```
//!
//! Expressions are ordinary Rust expressions parsed by syn; their meaning is given in [`crate::lower`].

use proc_macro2::Span;
use syn::parse::{Parse, ParseStream};
use syn::punctuated::Punctuated;
use syn::{Expr, Ident, Token};

use crate::diagnostics::closest;

/// The item keywords the attribute understands.
pub const ITEMS: &[&str] = &["coordinates", "define", "lagrangian", "force"];

/// `name = expr`, as in `define(...)` and `force(...)`.
pub struct Binding {
    pub name: Ident,
    pub value: Expr,
}

impl Parse for Binding {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let name: Ident = input.parse()?;
        input.parse::<Token![=]>().map_err(|e| {
            syn::Error::new(e.span(), format!("expected `{name} = <expression>`"))
        })?;
        let value: Expr = input.parse()?;
        Ok(Binding { name, value })
    }
}

/// One item of the attribute.
pub enum Item {
    Coordinates { keyword: Ident, names: Vec<Ident> },
    Define { bindings: Vec<Binding> },
    Lagrangian { keyword: Ident, value: Expr },
    Force { bindings: Vec<Binding> },
}

impl Parse for Item {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let keyword: Ident = input.parse()?;
        let key = keyword.to_string();
        match key.as_str() {
            "coordinates" => {
                let content;
                syn::parenthesized!(content in input);
                let names = Punctuated::<Ident, Token![,]>::parse_terminated(&content)?;
                Ok(Item::Coordinates { keyword, names: names.into_iter().collect() })
            }
            "define" | "force" => {
                let content;
                syn::parenthesized!(content in input);
                let bindings: Vec<Binding> =
                    Punctuated::<Binding, Token![,]>::parse_terminated(&content)?.into_iter().collect();
                Ok(if key == "define" { Item::Define { bindings } } else { Item::Force { bindings } })
            }
            "lagrangian" => {
                input.parse::<Token![=]>().map_err(|e| {
                    syn::Error::new(e.span(), "expected `lagrangian = <expression>`")
                })?;
                Ok(Item::Lagrangian { keyword, value: input.parse()? })
            }
            _ => {
                let hint = match closest(&key, ITEMS.iter().copied()) {
                    Some(c) => format!("; did you mean `{c}`?"),
                    None => String::new(),
                };
                Err(syn::Error::new(
                    keyword.span(),
                    format!(
                        "unknown item `{key}` in #[mechanics(...)]{hint} Expected one of: {}",
                        ITEMS.join(", ")
                    ),
                ))
            }
        }
    }
}

/// Everything the attributes said, still unvalidated.
pub struct RawModel {
    /// Span to blame for model-level problems (the first `mechanics` attribute, or the struct name).
    pub span: Span,
    /// The `coordinates` keyword, if present (blamed when the list is empty).
    pub coordinates_keyword: Option<Ident>,
    pub coordinates: Vec<Ident>,
    pub defines: Vec<Binding>,
    pub lagrangians: Vec<(Ident, Expr)>,
    pub forces: Vec<Binding>,
}

/// Parses every `#[mechanics(...)]` attribute of the input.
pub fn parse_attributes(attrs: &[syn::Attribute], fallback: Span) -> syn::Result<RawModel> {
    let mut raw = RawModel {
        span: fallback,
        coordinates_keyword: None,
        coordinates: Vec::new(),
        defines: Vec::new(),
        lagrangians: Vec::new(),
        forces: Vec::new(),
    };
    let mut first = true;
    for attr in attrs.iter().filter(|a| a.path().is_ident("mechanics")) {
        if first {
            raw.span = attr.path().get_ident().map_or(fallback, Ident::span);
            first = false;
        }
        let items = attr.parse_args_with(Punctuated::<Item, Token![,]>::parse_terminated)?;
        for item in items {
            match item {
                Item::Coordinates { keyword, names } => {
                    raw.coordinates_keyword.get_or_insert(keyword);
                    raw.coordinates.extend(names);
                }
                Item::Define { bindings } => raw.defines.extend(bindings),
                Item::Lagrangian { keyword, value } => raw.lagrangians.push((keyword, value)),
                Item::Force { bindings } => raw.forces.extend(bindings),
            }
        }
    }
    Ok(raw)
}
