//! `symmetry(...)` and `reduce(...)` declarations.

use syn::parse::ParseStream;
use syn::punctuated::Punctuated;
use syn::{Expr, Ident, Token};

use super::{Binding, ReduceDecl, SymmetryDecl, VelocityDecl};

impl SymmetryDecl {
    /// `symmetry(...)`'s body: `cyclic(q)`, `name = generator(q = ..., ...)` or
    /// `name = rotation(R, [ax, ay, az])`, comma-separated.
    pub(super) fn parse_list(input: ParseStream) -> syn::Result<Vec<SymmetryDecl>> {
        let mut decls = Vec::new();
        while !input.is_empty() {
            let head: Ident = input.parse()?;
            if head == "cyclic" {
                let inner;
                syn::parenthesized!(inner in input);
                let q: Ident = inner.parse()?;
                decls.push(SymmetryDecl { name: q.clone(), cyclic: Some(q), components: Vec::new(), rotation: None });
            } else {
                input
                    .parse::<Token![=]>()
                    .map_err(|e| syn::Error::new(e.span(), "expected `cyclic(q)` or `name = generator(q = ..., ...)`"))?;
                let g: Ident = input.parse()?;
                let inner;
                if g == "rotation" {
                    syn::parenthesized!(inner in input);
                    let orientation: Ident = inner.parse()?;
                    inner.parse::<Token![,]>()?;
                    let axis: Expr = inner.parse()?;
                    decls.push(SymmetryDecl {
                        name: head,
                        cyclic: None,
                        components: Vec::new(),
                        rotation: Some((orientation, axis)),
                    });
                } else if g == "generator" {
                    syn::parenthesized!(inner in input);
                    let components: Vec<Binding> =
                        Punctuated::<Binding, Token![,]>::parse_terminated(&inner)?.into_iter().collect();
                    decls.push(SymmetryDecl { name: head, cyclic: None, components, rotation: None });
                } else {
                    return Err(syn::Error::new(
                        g.span(),
                        "expected `generator(q = ..., ...)` or, for an orientation, `rotation(R, [ax, ay, az])`",
                    ));
                }
            }
            if input.is_empty() {
                break;
            }
            input.parse::<Token![,]>()?;
        }
        Ok(decls)
    }
}

impl ReduceDecl {
    /// `reduce(...)`'s body: `routh(q, ...)`, `nonholonomic(q, ...)` or `euler_poincare(r, ...)`,
    /// then its keys (`name`, `velocities`, `shape`, `inverse`, `symmetry`, by kind).
    pub(super) fn parse_body(input: ParseStream) -> syn::Result<ReduceDecl> {
        let kind: Ident = input.parse()?;
        if kind != "routh" && kind != "nonholonomic" && kind != "euler_poincare" {
            return Err(syn::Error::new(
                kind.span(),
                "expected `routh(q, ...)` (Routh reduction over cyclic coordinates), `nonholonomic(q, ...)` \
                 (reduction of a constrained model by the coordinates its equations do not depend on) or \
                 `euler_poincare(r, ...)` (a body's equations in its angular velocity, its orientation dropped)",
            ));
        }
        let inner;
        syn::parenthesized!(inner in input);
        let cyclic: Vec<Ident> = Punctuated::<Ident, Token![,]>::parse_terminated(&inner)?.into_iter().collect();
        let mut name = None;
        let mut velocities = None;
        let (mut shape, mut inverse, mut symmetries) = (None, None, Vec::new());
        while !input.is_empty() {
            input.parse::<Token![,]>()?;
            if input.is_empty() {
                break;
            }
            let key: Ident = input.parse()?;
            if key == "name" {
                input.parse::<Token![=]>()?;
                name = Some(input.parse()?);
            } else if key == "velocities" && kind != "routh" {
                let list;
                syn::parenthesized!(list in input);
                let mut decls = Vec::new();
                while !list.is_empty() {
                    let name: Ident = list.parse()?;
                    let value = if list.peek(Token![=]) {
                        list.parse::<Token![=]>()?;
                        Some(list.parse()?)
                    } else {
                        None
                    };
                    decls.push(VelocityDecl { name, value });
                    if !list.is_empty() {
                        list.parse::<Token![,]>()?;
                    }
                }
                velocities = Some((key, decls));
            } else if (key == "shape" || key == "inverse") && kind == "nonholonomic" {
                let list;
                syn::parenthesized!(list in input);
                let bindings: Vec<Binding> = Punctuated::<Binding, Token![,]>::parse_terminated(&list)?.into_iter().collect();
                if let Some(b) = bindings.iter().find(|b| !b.params.is_empty()) {
                    return Err(syn::Error::new(b.name.span(), format!("expected `{} = expr`", b.name)));
                }
                if key == "shape" { shape = Some((key, bindings)) } else { inverse = Some((key, bindings)) }
            } else if key == "symmetry" && (kind == "nonholonomic" || kind == "euler_poincare") {
                let list;
                syn::parenthesized!(list in input);
                symmetries.extend(Punctuated::<Ident, Token![,]>::parse_terminated(&list)?);
            } else if kind == "nonholonomic" {
                return Err(syn::Error::new(
                    key.span(),
                    "expected `velocities(...)`, `shape(s = expr, ...)`, `inverse(q = expr, ...)`, `symmetry(name, ...)` \
                     or `name = TypeName`",
                ));
            } else if kind == "euler_poincare" {
                return Err(syn::Error::new(
                    key.span(),
                    "expected `velocities(...)`, `symmetry(name)` (reduce by the rotations about one axis only) or \
                     `name = TypeName`",
                ));
            } else if kind != "routh" {
                return Err(syn::Error::new(key.span(), "expected `velocities(...)` or `name = TypeName`"));
            } else {
                return Err(syn::Error::new(key.span(), "expected `name = TypeName`"));
            }
        }
        Ok(ReduceDecl { keyword: kind, cyclic, name, velocities, shape, inverse, symmetries })
    }
}
