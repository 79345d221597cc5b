//! Impacts and transitions as written: `impact(name = .., guard = .., law = ..)`,
//! `transition(a -> b, ..)` and their laws.

use syn::parse::{Parse, ParseStream};
use syn::punctuated::Punctuated;
use syn::{Expr, Ident, Token};

use crate::diagnostics::unknown;

/// The keys of `impact(...)`.
pub const IMPACT_KEYS: &[&str] = &["name", "guard", "law", "zeno"];

/// The impact laws.
pub const LAWS: &[&str] = &["restitution", "map", "reset", "project"];

/// An impact law as written.
#[derive(Clone)]
pub enum LawDecl {
    /// `restitution(e)` (row `None`: the guard's own differential) or `restitution(form: e, ...)`.
    Restitution { rows: Vec<(Option<Expr>, Expr)> },
    /// `map(dot(q) = expr, ...)`.
    Map { assignments: Vec<(Expr, Expr)> },
    /// `reset(q = expr, dot(q) = expr, ...)`: a transition's chart change to the target mode.
    Reset { keyword: Ident, assignments: Vec<(Expr, Expr)> },
    /// `project` (or `project()`): a transition into a mode with constraints; the velocities are
    /// projected onto them with the kinetic metric.
    Project { keyword: Ident },
}

impl Parse for LawDecl {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let keyword: Ident = input.parse()?;
        if keyword == "project" {
            if input.peek(syn::token::Paren) {
                let content;
                syn::parenthesized!(content in input);
                if !content.is_empty() {
                    return Err(content.error("`project` takes no arguments: it projects onto the target mode's constraints"));
                }
            }
            return Ok(LawDecl::Project { keyword });
        }
        let content;
        syn::parenthesized!(content in input);
        match keyword.to_string().as_str() {
            "restitution" => {
                let mut rows = Vec::new();
                while !content.is_empty() {
                    let first: Expr = content.parse()?;
                    if content.peek(Token![:]) {
                        content.parse::<Token![:]>()?;
                        let coefficient: Expr = content.parse()?;
                        rows.push((Some(first), coefficient));
                    } else {
                        rows.push((None, first));
                    }
                    if content.is_empty() {
                        break;
                    }
                    content.parse::<Token![,]>()?;
                }
                if rows.is_empty() {
                    return Err(syn::Error::new(
                        keyword.span(),
                        "`restitution` needs a coefficient, e.g. `restitution(e)`, or one-forms with coefficients, \
                         e.g. `restitution(dy: e, dx - r * dphi: 0)`",
                    ));
                }
                Ok(LawDecl::Restitution { rows })
            }
            "map" | "reset" => {
                let items = Punctuated::<Expr, Token![,]>::parse_terminated(&content)?;
                let mut assignments = Vec::new();
                let is_map = keyword == "map";
                for item in items {
                    match item {
                        Expr::Assign(a) => assignments.push((*a.left, *a.right)),
                        other => {
                            let what = if is_map {
                                "expected `dot(q) = <post-impact velocity>` in `map(...)`"
                            } else {
                                "expected `q = <expression>` or `dot(q) = <expression>` in `reset(...)`"
                            };
                            return Err(syn::Error::new_spanned(other, what));
                        }
                    }
                }
                Ok(if is_map { LawDecl::Map { assignments } } else { LawDecl::Reset { keyword, assignments } })
            }
            other => {
                let known = "Expected `restitution(...)`, `map(...)` or (transitions) `reset(...)`, `project`";
                Err(unknown(keyword.span(), format_args!("unknown impact law `{other}`"), other, LAWS, known))
            }
        }
    }
}

/// `impact(name = ..., guard = ..., law = ...)` or `transition(a -> b, ...)` as written.
#[derive(Clone)]
pub struct ImpactDecl {
    pub keyword: Ident,
    pub name: Option<Ident>,
    pub guard: Option<Expr>,
    pub law: Option<LawDecl>,
    /// For transitions: source and target mode names.
    pub modes: Option<(Ident, Ident)>,
    /// For transitions taken when the impacts of this (source-mode) impact accumulate.
    pub zeno: Option<Ident>,
}

impl ImpactDecl {
    pub(super) fn parse_body(keyword: Ident, content: ParseStream) -> syn::Result<Self> {
        let mut decl = ImpactDecl { keyword, name: None, guard: None, law: None, modes: None, zeno: None };
        if decl.keyword == "transition" {
            let from: Ident = content.parse()?;
            content.parse::<Token![->]>().map_err(|e| {
                syn::Error::new(e.span(), "expected `source -> target` mode names at the start of `transition(...)`")
            })?;
            let to: Ident = content.parse()?;
            decl.modes = Some((from, to));
            if !content.is_empty() {
                content.parse::<Token![,]>()?;
            }
        }
        while !content.is_empty() {
            let key: Ident = content.parse()?;
            content.parse::<Token![=]>()?;
            let duplicate = || syn::Error::new(key.span(), format!("`{key}` is given twice in this impact"));
            match key.to_string().as_str() {
                "name" => {
                    if decl.name.is_some() {
                        return Err(duplicate());
                    }
                    decl.name = Some(content.parse()?);
                }
                "guard" => {
                    if decl.guard.is_some() {
                        return Err(duplicate());
                    }
                    decl.guard = Some(content.parse()?);
                }
                "law" => {
                    if decl.law.is_some() {
                        return Err(duplicate());
                    }
                    decl.law = Some(content.parse()?);
                }
                "zeno" => {
                    if decl.zeno.is_some() {
                        return Err(duplicate());
                    }
                    decl.zeno = Some(content.parse()?);
                }
                other => {
                    let what = format_args!("unknown key `{other}` in `impact(...)`");
                    let known = "Expected: name, guard, law (and, in a transition, zeno = <impact>)";
                    return Err(unknown(key.span(), what, other, IMPACT_KEYS, known));
                }
            }
            if content.is_empty() {
                break;
            }
            content.parse::<Token![,]>()?;
        }
        Ok(decl)
    }
}
