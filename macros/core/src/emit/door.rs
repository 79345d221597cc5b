//! The one door between generated code and routh, built once per expansion.
//!
//! Generated code reaches routh through `__private` alone (in the manner of serde's `__private`):
//! `::routh::__private`, or `path::__private` with `#[mechanics(crate = path)]`. Emitters do not
//! spell that path: they write the local name [`ALIAS`] (`__routh::Vector<4>`,
//! `__routh::Run<'_, Self, 4>`), and [`Door::wrap`] puts every `impl` of the expansion into one
//! anonymous constant that imports the door under that name once:
//!
//! ```text
//! struct BallFree<'a>(pub &'a Ball);            // the generated types, at the model's place
//! const _: () = {
//!     use ::routh::__private as __routh;        // the door, named once
//!     impl Ball { … }                           // every impl, naming `__routh::…`
//!     impl __routh::VectorField<2> for Ball { … }
//! };
//! ```
//!
//! The types the derive declares must stay outside (users name them); the few of their fields that
//! name routh take the door's full path (a `Door` quotes as it). So do the hidden modules that
//! home the part functions of long bodies (`codegen::Helpers::into_impl`): rustc compiles a
//! module declared inside the constant with the module around it, one codegen unit for all.

use proc_macro2::{Delimiter, TokenStream, TokenTree};
use quote::{ToTokens, quote};

/// The name under which generated impls see the door.
pub const ALIAS: &str = "__routh";

/// The door's path: `::routh::__private`, or `path::__private` for `#[mechanics(crate = path)]`.
pub struct Door {
    path: TokenStream,
}

impl Door {
    /// The door of an expansion, from its `crate = path` (if any).
    pub fn new(krate: Option<&syn::Path>) -> Door {
        let path = match krate {
            Some(path) => quote! { #path::__private },
            None => quote! { ::routh::__private },
        };
        Door { path }
    }

    /// `tokens` (the expansion's items) with their `struct` and `mod` declarations first, as
    /// written, and every other item in one anonymous constant that imports the door as [`ALIAS`].
    pub fn wrap(&self, tokens: TokenStream) -> TokenStream {
        let (types, impls) = split_items(plain_dimensions(tokens));
        if impls.is_empty() {
            return types;
        }
        let path = &self.path;
        let alias = quote::format_ident!("{ALIAS}");
        quote! {
            #types
            #[doc(hidden)]
            #[allow(non_upper_case_globals, unused_imports, clippy::all)]
            const _: () = {
                use #path as #alias;
                #impls
            };
        }
    }
}

impl ToTokens for Door {
    fn to_tokens(&self, tokens: &mut TokenStream) {
        self.path.to_tokens(tokens);
    }
}

/// `tokens` with the dimensions of `State<4usize>`, `Vector<…>` and `Matrix<…, …>` written
/// `State<4>`: what rustdoc and rustc's notes show of the generated signatures. (A const generic
/// argument is a `usize` either way.) Function bodies are left as they are: the walk stays the
/// size of the signatures, not of the formulas.
fn plain_dimensions(tokens: TokenStream) -> TokenStream {
    let mut trees = tokens.into_iter().peekable();
    let mut out = Vec::new();
    let mut dims = 0; // the arguments of an alias still to read
    let mut in_signature = false; // after `fn`, before its body
    while let Some(tree) = trees.next() {
        let tree = match tree {
            TokenTree::Group(g) if in_signature && g.delimiter() == Delimiter::Brace => {
                in_signature = false;
                dims = 0;
                out.push(TokenTree::Group(g));
                continue;
            }
            TokenTree::Group(g) => {
                let (delimiter, span, stream) = (g.delimiter(), g.span(), g.stream());
                // The stream's only owner once its group is gone: walking it moves its tokens
                // rather than copying them.
                drop(g);
                let mut group = proc_macro2::Group::new(delimiter, plain_dimensions(stream));
                group.set_span(span);
                out.push(TokenTree::Group(group));
                dims = 0;
                continue;
            }
            tree => tree,
        };
        match &tree {
            TokenTree::Punct(p) if p.as_char() == ';' => {
                in_signature = false;
                dims = 0;
            }
            TokenTree::Ident(id) => {
                in_signature |= id == "fn";
                dims = match trees.peek() {
                    Some(TokenTree::Punct(p)) if p.as_char() == '<' => {
                        if id == "State" || id == "Vector" {
                            1
                        } else if id == "Matrix" {
                            2
                        } else {
                            0
                        }
                    }
                    _ => 0,
                };
            }
            TokenTree::Literal(lit) if dims > 0 => {
                if let Some(n) = lit.to_string().strip_suffix("usize").and_then(|n| n.parse::<usize>().ok()) {
                    let mut plain = proc_macro2::Literal::usize_unsuffixed(n);
                    plain.set_span(lit.span());
                    out.push(TokenTree::Literal(plain));
                    dims -= 1;
                    continue;
                }
                dims = 0;
            }
            TokenTree::Punct(p) if dims > 0 && matches!(p.as_char(), '<' | ',' | ':') => {}
            _ => dims = 0,
        }
        out.push(tree);
    }
    out.into_iter().collect()
}

/// Splits a sequence of items ([`items`]) into the `struct` and `mod` declarations and the rest.
fn split_items(tokens: TokenStream) -> (TokenStream, TokenStream) {
    let (mut types, mut impls) = (TokenStream::new(), TokenStream::new());
    for item in items(tokens) {
        let declares = matches!(item.get(keyword_at(&item)), Some(TokenTree::Ident(id)) if id == "struct" || id == "mod");
        if declares { types.extend(item) } else { impls.extend(item) }
    }
    (types, impls)
}

/// The items of `tokens` (an expansion's, or an impl's members): each its outer attributes, then
/// tokens up to its body — a brace group — or a `;` (a tuple or unit struct, a `const`); a lone `;`
/// after a brace group (a `const` whose value is a block) joins the item before it.
pub(crate) fn items(tokens: TokenStream) -> Vec<Vec<TokenTree>> {
    let mut items: Vec<Vec<TokenTree>> = Vec::new();
    let mut item = Vec::new();
    for tree in tokens {
        let ends = match &tree {
            TokenTree::Punct(p) => p.as_char() == ';',
            // The body of an item (not the bracket group of an attribute).
            TokenTree::Group(g) => g.delimiter() == Delimiter::Brace,
            _ => false,
        };
        let lone = item.is_empty() && matches!(&tree, TokenTree::Punct(p) if p.as_char() == ';');
        item.push(tree);
        if ends {
            match items.last_mut() {
                Some(last) if lone => last.append(&mut item),
                _ => items.push(std::mem::take(&mut item)),
            }
        }
    }
    debug_assert!(item.is_empty(), "a generated item without a body");
    if !item.is_empty() {
        items.push(item);
    }
    items
}

/// Where an item's outer attributes (`#[...]`) end.
pub(crate) fn after_attributes(item: &[TokenTree]) -> usize {
    let mut i = 0;
    while matches!(item.get(i), Some(TokenTree::Punct(p)) if p.as_char() == '#')
        && matches!(item.get(i + 1), Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Bracket)
    {
        i += 2;
    }
    i
}

/// Where an item's keyword stands: after its attributes and its visibility (`pub`, `pub(…)`).
pub(crate) fn keyword_at(item: &[TokenTree]) -> usize {
    let mut i = after_attributes(item);
    if matches!(item.get(i), Some(TokenTree::Ident(id)) if id == "pub") {
        i += 1;
        if matches!(item.get(i), Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Parenthesis) {
            i += 1;
        }
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn declarations_stay_outside_and_impls_see_the_door_once() {
        let items = quote! {
            #[doc = " A view."]
            #[derive(Clone, Copy)]
            pub struct View<'a>(pub &'a Model, pub ::routh::__private::Vector<2usize>);
            pub(crate) struct Reduced { pub m: f64 }
            #[automatically_derived]
            impl Model { pub fn run(&self) {} }
            impl __routh::VectorField<2> for Model { fn field(&self, x: &__routh::Matrix<2usize, 3usize>) { let x = [0usize; 2usize]; } }
        };
        let door = Door::new(Some(&syn::parse_quote!(my::routh)));
        let out = door.wrap(items).to_string();
        let (outside, inside) = out.split_once("const _").unwrap();
        assert!(outside.contains("pub struct View") && outside.contains("pub (crate) struct Reduced"), "{outside}");
        assert!(!outside.contains("impl"), "{outside}");
        assert!(inside.contains("use my :: routh :: __private as __routh ;"), "{inside}");
        assert!(inside.contains("impl Model") && inside.contains("impl __routh :: VectorField < 2 > for Model"), "{inside}");
        assert_eq!(out.matches("__private").count(), 2, "the door's path once, and a type's field: {out}");
        // The aliases' dimensions plain, other literals as they were.
        assert!(out.contains("Vector < 2 >") && out.contains("Matrix < 2 , 3 >") && out.contains("[0usize ; 2usize]"), "{out}");
    }
}
