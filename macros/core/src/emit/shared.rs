//! Methods that modes share, emitted once: a mode view's method whose code is another mode's
//! forwards to it.
//!
//! Each mode of a multi-mode model is derived and emitted whole ([`super::mode`]), so modes that
//! differ only in their contacts repeat every item that does not see them: M, f, the inverse
//! dynamics, the energy and its derivatives, the momenta, the outputs (a quadruped's sixteen modes
//! of its feet in contact, sixteen copies of the robot's passes). rustc type-checks,
//! borrow-checks and optimises each copy. Here, after emission, each mode view's inherent method
//! whose code is that of an earlier mode's method of the same name — the same tokens, and every
//! method or associated item it reaches through `self` or `Self` the same in turn — becomes a
//! forward to that mode's method:
//!
//! ```text
//! impl<'a> RobotFl<'a> {
//!     #[inline(always)]
//!     pub fn mass_matrix(&self, t: f64, x: &State<37>) -> Matrix<18, 18> { RobotFree(self.0).mass_matrix(t, x) }
//! }
//! ```
//!
//! Two methods are the same when their tokens are (their `doc` attributes aside) and what they
//! call is: the classes of equal members are refined until every member of a class reaches only
//! members of one class in each of its views (partition refinement, the coarsest such
//! partition). A call `Self::name(self, …)` — a trait impl's method calling the inherent one of
//! its name — reaches `name` as `self.name(…)` does. A body that hands `self` or `Self` to
//! anything else (a function generic over the view, a trait's provided method) could reach any of
//! the view's items, and is never shared;
//! neither is a method whose signature a forward could not repeat (generics, a `where` clause, a
//! borrowed result). Only the `self`-relative names differ between views — a view named in a body
//! is the same view in every mode — so the same tokens reaching the same members run the same
//! code: a forward changes no result, only how much code rustc is given.

use std::collections::HashMap;
use std::hash::{Hash, Hasher};

use proc_macro2::{Delimiter, Group, Ident, Spacing, TokenStream, TokenTree};
use quote::quote;

use super::door::{after_attributes, items as split, keyword_at};

/// The modes' emitted items (`modes[k]` the items of the mode whose view is `views[k]`), each
/// view's methods that an earlier mode's share turned into forwards to them. `inputs`: the views
/// carry the inputs' values as a second field (`View(&model, u)`).
pub fn forward(modes: Vec<TokenStream>, views: &[Ident], inputs: bool) -> Vec<TokenStream> {
    if modes.len() < 2 || modes.len() != views.len() {
        return modes;
    }
    let mut parsed: Vec<ViewItems> = modes.into_iter().zip(views).map(|(tokens, view)| ViewItems::parse(tokens, view)).collect();
    let targets = shared_members(&parsed);
    for (k, view) in parsed.iter_mut().enumerate() {
        view.forward(&targets[k], views, inputs);
    }
    parsed.into_iter().map(ViewItems::into_tokens).collect()
}

/// A mode's items: the top-level items as token runs, the members of the impls on its view.
struct ViewItems {
    items: Vec<Item>,
}

enum Item {
    /// Any item but an impl on the view, as written.
    Other(Vec<TokenTree>),
    /// An impl on the view: its header (attributes to the self type), its members, and whether
    /// it is inherent (no trait).
    Impl { header: Vec<TokenTree>, members: Vec<Member>, inherent: bool },
}

struct Member {
    tokens: Vec<TokenTree>,
    /// The member's name (a `fn`, `const` or `type`); empty for anything else.
    name: String,
    /// Hash of the tokens less `doc` attributes.
    fingerprint: u64,
    /// The names the member reaches as `self.name` or `Self::name`.
    callees: Vec<String>,
    /// `self` (in the body) or `Self` in any other position.
    escapes: bool,
    /// The forward's parts, for a method that can have one.
    forward: Option<Forward>,
    /// The key of the impl holding the member (its header less the view's name).
    impl_key: u64,
}

struct Forward {
    /// The tokens of the method up to its body, attributes first.
    head: Vec<TokenTree>,
    /// Its arguments' names after the receiver.
    args: Vec<Ident>,
}

impl ViewItems {
    fn parse(tokens: TokenStream, view: &Ident) -> ViewItems {
        let items = split(tokens)
            .into_iter()
            .map(|item| match impl_on(&item, view) {
                Some((header, body, inherent)) => {
                    let key = fingerprint(&header_without(&header, view));
                    let members = split(body.stream()).into_iter().map(|m| Member::parse(m, key, inherent)).collect();
                    Item::Impl { header, members, inherent }
                }
                None => Item::Other(item),
            })
            .collect();
        ViewItems { items }
    }

    /// The members by name (the same name in several impls: all of them, in order).
    fn members(&self) -> HashMap<&str, Vec<&Member>> {
        let mut by_name: HashMap<&str, Vec<&Member>> = HashMap::new();
        for item in &self.items {
            if let Item::Impl { members, .. } = item {
                for m in members.iter().filter(|m| !m.name.is_empty()) {
                    by_name.entry(m.name.as_str()).or_default().push(m);
                }
            }
        }
        by_name
    }

    /// Each inherent method named in `targets` replaced by a forward to its view.
    fn forward(&mut self, targets: &HashMap<String, usize>, views: &[Ident], inputs: bool) {
        for item in &mut self.items {
            let Item::Impl { members, inherent: true, .. } = item else { continue };
            for m in members.iter_mut() {
                let (Some(&to), Some(fwd)) = (targets.get(&m.name), &m.forward) else { continue };
                let (view, name, args) = (&views[to], Ident::new(&m.name, proc_macro2::Span::call_site()), &fwd.args);
                let receiver = crate::emit::codegen::sibling_view(view, inputs);
                let head: TokenStream = fwd.head.iter().cloned().collect();
                m.tokens = quote! {
                    #[inline(always)]
                    #[allow(dead_code)]
                    #head { #receiver.#name(#(#args),*) }
                }
                .into_iter()
                .collect();
            }
        }
    }

    fn into_tokens(self) -> TokenStream {
        let mut out = TokenStream::new();
        for item in self.items {
            match item {
                Item::Other(tokens) => out.extend(tokens),
                Item::Impl { header, members, .. } => {
                    out.extend(header);
                    let body: TokenStream = members.into_iter().flat_map(|m| m.tokens).collect();
                    out.extend([TokenTree::Group(Group::new(Delimiter::Brace, body))]);
                }
            }
        }
        out
    }
}

impl Member {
    fn parse(tokens: Vec<TokenTree>, impl_key: u64, inherent: bool) -> Member {
        let start = after_attributes(&tokens);
        let name = member_name(&tokens[start..]);
        let mut callees = Vec::new();
        let mut escapes = false;
        // The body (a method's block) and, for the signature, `Self` only: its receiver is `self`.
        let body = match tokens.last() {
            Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Brace => Some(g.stream()),
            _ => None,
        };
        let head_end = if body.is_some() { tokens.len() - 1 } else { tokens.len() };
        scan(&tokens[start..head_end].iter().cloned().collect(), false, &mut callees, &mut escapes);
        if let Some(body) = &body {
            scan(body, true, &mut callees, &mut escapes);
        }
        let forward = if inherent && body.is_some() { forwardable(&tokens[..head_end], start) } else { None };
        let fingerprint = fingerprint(&tokens[start..]);
        Member { tokens, name, fingerprint, callees, escapes, forward, impl_key }
    }
}

/// For each view, the members it shares with an earlier view: name → that view's index, the
/// earliest in the member's class. Classes start as equal fingerprints (tokens compared in full)
/// and are refined until each member of a class reaches members of one class in every view.
fn shared_members(views: &[ViewItems]) -> Vec<HashMap<String, usize>> {
    let members: Vec<HashMap<&str, Vec<&Member>>> = views.iter().map(ViewItems::members).collect();
    let mut names: Vec<&str> = members.iter().flat_map(|m| m.keys().copied()).collect();
    names.sort_unstable();
    names.dedup();
    // class[name][view]: None where the view lacks the member or it escapes.
    let mut class: HashMap<&str, Vec<Option<usize>>> = HashMap::new();
    for &name in &names {
        // Each class's first view, whose members the others' are compared with.
        let mut first: Vec<usize> = Vec::new();
        let row = (0..views.len())
            .map(|v| {
                let ms = members[v].get(name)?;
                let reaches_outside = ms.iter().any(|m| m.callees.iter().any(|c| !members[v].contains_key(c.as_str())));
                if ms.iter().any(|m| m.escapes) || reaches_outside {
                    return None;
                }
                Some(first.iter().position(|&r| same_members(&members[r][name], ms)).unwrap_or_else(|| {
                    first.push(v);
                    first.len() - 1
                }))
            })
            .collect();
        class.insert(name, row);
    }
    // Refinement: a member's class and its callees' classes in its view, renumbered.
    loop {
        let mut changed = false;
        for &name in &names {
            // A member's key in each view: its class and its callees' there (the members a class
            // shares have the same tokens, so the same callees, in the same order; views of other
            // classes may reach others). A callee that cannot be shared leaves its caller none.
            let row: Vec<Option<(usize, Vec<usize>)>> = (0..views.len())
                .map(|v| {
                    let own = class[name][v]?;
                    let reached: Option<Vec<usize>> =
                        members[v][name].iter().flat_map(|m| m.callees.iter()).map(|c| class[c.as_str()][v]).collect();
                    Some((own, reached?))
                })
                .collect();
            let mut keys: Vec<&(usize, Vec<usize>)> = Vec::new();
            let renumbered: Vec<Option<usize>> = row
                .iter()
                .map(|k| {
                    let k = k.as_ref()?;
                    Some(keys.iter().position(|&x| x == k).unwrap_or_else(|| {
                        keys.push(k);
                        keys.len() - 1
                    }))
                })
                .collect();
            // Classes are numbered in order of first appearance, so an unrefined row numbers alike.
            changed |= renumbered != class[name];
            class.insert(name, renumbered);
        }
        if !changed {
            break;
        }
    }
    (0..views.len())
        .map(|v| {
            names
                .iter()
                .filter_map(|&name| {
                    let c = class[name][v]?;
                    let first = class[name].iter().position(|&x| x == Some(c))?;
                    (first < v).then(|| (name.to_string(), first))
                })
                .collect()
        })
        .collect()
}

fn same_members(a: &[&Member], b: &[&Member]) -> bool {
    a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|(x, y)| x.fingerprint == y.fingerprint && x.impl_key == y.impl_key && same_trees(&x.tokens, &y.tokens))
}

/// An impl whose self type is `view` (`impl<'a> View<'a> { … }` or `impl<'a> Trait for
/// View<'a> { … }`): its header, body and whether it is inherent.
fn impl_on(item: &[TokenTree], view: &Ident) -> Option<(Vec<TokenTree>, Group, bool)> {
    let start = after_attributes(item);
    let TokenTree::Ident(kw) = item.get(start)? else { return None };
    if kw != "impl" {
        return None;
    }
    let TokenTree::Group(body) = item.last()? else { return None };
    if body.delimiter() != Delimiter::Brace {
        return None;
    }
    let header = &item[..item.len() - 1];
    let is = |t: &TokenTree, s: &str| matches!(t, TokenTree::Ident(i) if i == s);
    let has_for = header.iter().any(|t| is(t, "for"));
    // The self type: the first ident after `for`, or after the impl's generics.
    let self_type = if has_for {
        header.iter().skip_while(|t| !is(t, "for")).skip(1).find_map(|t| match t {
            TokenTree::Ident(i) => Some(i.clone()),
            _ => None,
        })
    } else {
        let mut depth = 0i32;
        header[start + 1..].iter().find_map(|t| match t {
            TokenTree::Punct(p) if p.as_char() == '<' => {
                depth += 1;
                None
            }
            TokenTree::Punct(p) if p.as_char() == '>' => {
                depth -= 1;
                None
            }
            TokenTree::Ident(i) if depth == 0 => Some(i.clone()),
            _ => None,
        })
    };
    (self_type.as_ref() == Some(view)).then(|| (header.to_vec(), body.clone(), !has_for))
}

/// An impl's header with its own view's name taken out and its attributes left out (the same
/// trait on two views is the same key).
fn header_without(header: &[TokenTree], view: &Ident) -> Vec<TokenTree> {
    header[after_attributes(header)..].iter().filter(|t| !matches!(t, TokenTree::Ident(i) if i == view)).cloned().collect()
}

/// The name of a `fn`, `const` or `type` member (its tokens after the attributes).
fn member_name(tokens: &[TokenTree]) -> String {
    let mut it = tokens.iter();
    while let Some(t) = it.next() {
        if let TokenTree::Ident(i) = t
            && (i == "fn" || i == "const" || i == "type")
        {
            return match it.next() {
                Some(TokenTree::Ident(name)) => name.to_string(),
                _ => String::new(),
            };
        }
    }
    String::new()
}

/// The names reached as `self.name` and `Self::name` in `tokens` into `callees`; `escapes` where
/// `self` (in a body: `in_body`) or `Self` stands anywhere else.
fn scan(tokens: &TokenStream, in_body: bool, callees: &mut Vec<String>, escapes: &mut bool) {
    let trees: Vec<TokenTree> = tokens.clone().into_iter().collect();
    // The argument list of a call `Self::name(self, …)`, whose `self` is the receiver (a trait
    // impl's method calling the inherent one): its other arguments are scanned as any tokens.
    let mut receiver_call = None;
    for (i, t) in trees.iter().enumerate() {
        match t {
            TokenTree::Group(g) if receiver_call == Some(i) => {
                let args: TokenStream = g.stream().into_iter().skip(2).collect();
                scan(&args, in_body, callees, escapes);
            }
            TokenTree::Group(g) => scan(&g.stream(), in_body, callees, escapes),
            TokenTree::Ident(id) if id == "self" && in_body => match (trees.get(i + 1), trees.get(i + 2)) {
                (Some(TokenTree::Punct(dot)), Some(next)) if dot.as_char() == '.' => match next {
                    TokenTree::Ident(name) => callees.push(name.to_string()),
                    TokenTree::Literal(_) => {}
                    _ => *escapes = true,
                },
                _ => *escapes = true,
            },
            TokenTree::Ident(id) if id == "Self" => match (trees.get(i + 1), trees.get(i + 2), trees.get(i + 3)) {
                (Some(TokenTree::Punct(a)), Some(TokenTree::Punct(b)), Some(TokenTree::Ident(name)))
                    if a.as_char() == ':' && a.spacing() == Spacing::Joint && b.as_char() == ':' =>
                {
                    callees.push(name.to_string());
                    if let Some(TokenTree::Group(g)) = trees.get(i + 4)
                        && in_body
                        && g.delimiter() == Delimiter::Parenthesis
                        && receiver_first(g)
                    {
                        receiver_call = Some(i + 4);
                    }
                }
                _ => *escapes = true,
            },
            _ => {}
        }
    }
}

/// Whether an argument list starts with `self` as a whole argument (`(self)`, `(self, …)`).
fn receiver_first(args: &Group) -> bool {
    let mut it = args.stream().into_iter();
    matches!(it.next(), Some(TokenTree::Ident(id)) if id == "self")
        && it.next().is_none_or(|t| matches!(&t, TokenTree::Punct(p) if p.as_char() == ','))
}

/// The forward's parts of a method (`tokens` up to its body, its attributes ending at `start`):
/// `[pub[(…)]] fn name(self or &self, a: A, …) [-> R]`, no generics, no `where`, nothing borrowed
/// in the result.
fn forwardable(tokens: &[TokenTree], start: usize) -> Option<Forward> {
    let i = keyword_at(tokens);
    let (Some(TokenTree::Ident(kw)), Some(TokenTree::Ident(_)), Some(TokenTree::Group(params))) =
        (tokens.get(i), tokens.get(i + 1), tokens.get(i + 2))
    else {
        return None;
    };
    if kw != "fn" || params.delimiter() != Delimiter::Parenthesis {
        return None;
    }
    // The result: nothing borrowed (a lifetime or `&`), no `where`.
    let result = &tokens[i + 3..];
    let plain = result.iter().all(|t| match t {
        TokenTree::Punct(p) => p.as_char() != '&' && p.as_char() != '\'',
        TokenTree::Ident(id) => id != "where" && id != "impl",
        TokenTree::Group(g) => {
            !g.stream().into_iter().any(|t| matches!(t, TokenTree::Punct(p) if p.as_char() == '&' || p.as_char() == '\''))
        }
        TokenTree::Literal(_) => true,
    });
    if !plain {
        return None;
    }
    let parsed =
        syn::parse::Parser::parse2(syn::punctuated::Punctuated::<syn::FnArg, syn::Token![,]>::parse_terminated, params.stream())
            .ok()?;
    let mut args = Vec::new();
    for (k, arg) in parsed.iter().enumerate() {
        match arg {
            syn::FnArg::Receiver(r) if k == 0 && r.mutability.is_none() => {}
            syn::FnArg::Typed(t) if k > 0 => match &*t.pat {
                syn::Pat::Ident(p) if p.by_ref.is_none() && p.mutability.is_none() && p.subpat.is_none() => {
                    args.push(p.ident.clone())
                }
                _ => return None,
            },
            _ => return None,
        }
    }
    if args.len() + 1 != parsed.len() {
        return None;
    }
    // The head without any `#[inline…]`: the forward is inlined always.
    let mut head = Vec::new();
    let mut k = 0;
    while k < start {
        let is_inline = matches!(&tokens[k + 1], TokenTree::Group(g)
            if matches!(g.stream().into_iter().next(), Some(TokenTree::Ident(id)) if id == "inline"));
        if !is_inline {
            head.extend_from_slice(&tokens[k..k + 2]);
        }
        k += 2;
    }
    head.extend_from_slice(&tokens[start..]);
    Some(Forward { head, args })
}

/// A hash of `tokens` less their `doc` attributes.
fn fingerprint(tokens: &[TokenTree]) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    hash_trees(tokens, &mut h);
    h.finish()
}

fn hash_trees(tokens: &[TokenTree], h: &mut impl Hasher) {
    let mut i = 0;
    while i < tokens.len() {
        if is_doc(tokens, i) {
            i += 2;
            continue;
        }
        match &tokens[i] {
            TokenTree::Group(g) => {
                (g.delimiter() as u8).hash(h);
                let inner: Vec<TokenTree> = g.stream().into_iter().collect();
                hash_trees(&inner, h);
                0xffu8.hash(h);
            }
            TokenTree::Ident(id) => id.to_string().hash(h),
            TokenTree::Punct(p) => (p.as_char(), p.spacing() == Spacing::Joint).hash(h),
            TokenTree::Literal(l) => l.to_string().hash(h),
        }
        i += 1;
    }
}

/// Whether `tokens[i..]` starts with `#[doc …]`.
fn is_doc(tokens: &[TokenTree], i: usize) -> bool {
    matches!(&tokens[i], TokenTree::Punct(p) if p.as_char() == '#')
        && matches!(tokens.get(i + 1), Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Bracket
            && matches!(g.stream().into_iter().next(), Some(TokenTree::Ident(id)) if id == "doc"))
}

/// Whether two token runs are the same, `doc` attributes aside.
fn same_trees(a: &[TokenTree], b: &[TokenTree]) -> bool {
    let strip = |t: &[TokenTree]| -> Vec<TokenTree> {
        let mut out = Vec::with_capacity(t.len());
        let mut i = 0;
        while i < t.len() {
            if is_doc(t, i) {
                i += 2;
            } else {
                out.push(t[i].clone());
                i += 1;
            }
        }
        out
    };
    let (a, b) = (strip(a), strip(b));
    a.len() == b.len()
        && a.iter().zip(&b).all(|(x, y)| match (x, y) {
            (TokenTree::Group(g), TokenTree::Group(h)) => {
                g.delimiter() == h.delimiter() && {
                    let (gi, hi): (Vec<TokenTree>, Vec<TokenTree>) =
                        (g.stream().into_iter().collect(), h.stream().into_iter().collect());
                    same_trees(&gi, &hi)
                }
            }
            (TokenTree::Ident(i), TokenTree::Ident(j)) => i == j,
            (TokenTree::Punct(p), TokenTree::Punct(q)) => p.as_char() == q.as_char() && p.spacing() == q.spacing(),
            (TokenTree::Literal(l), TokenTree::Literal(m)) => l.to_string() == m.to_string(),
            _ => false,
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::format_ident;

    fn views(n: usize) -> Vec<Ident> {
        (0..n).map(|k| format_ident!("V{k}")).collect()
    }

    /// The methods of `view`'s inherent impls in `tokens`, as text.
    fn methods(tokens: &TokenStream, view: &str) -> HashMap<String, String> {
        let view = format_ident!("{view}");
        let mut out = HashMap::new();
        for item in split(tokens.clone()) {
            if let Some((_, body, true)) = impl_on(&item, &view) {
                for m in split(body.stream()) {
                    let start = after_attributes(&m);
                    let text: TokenStream = m.iter().cloned().collect();
                    out.insert(member_name(&m[start..]), text.to_string());
                }
            }
        }
        out
    }

    fn forwards_to(text: &str, view: &str, name: &str) -> bool {
        text.contains(&format!("{{ {view} (self . 0) . {name} ("))
    }

    #[test]
    fn a_method_forwards_where_its_code_and_all_it_reaches_are_an_earlier_modes() {
        let view = |k: usize, doc: &str, inline: bool, h: TokenStream| {
            let v = format_ident!("V{k}");
            let inline = if inline { quote!(#[inline]) } else { TokenStream::new() };
            quote! {
                impl<'a> #v<'a> {
                    #[doc = #doc]
                    #inline
                    pub fn g(&self, t: f64, x: &State<2>) -> f64 { self.h(t) * x[0] + Self::K }
                    fn h(&self, t: f64) -> f64 { #h }
                    const K: f64 = 1.0;
                }
            }
        };
        let (v0, v1) =
            (view(0, " g of mode 0.", true, quote!(self.0.k * t)), view(1, " g of mode 1.", true, quote!(self.0.k * t)));
        // The same g, but its h differs: neither is shared.
        let v2 = view(2, "", false, quote!(self.0.k * t * t));
        let out = forward(vec![v0, v1, v2], &views(3), false);
        let (m0, m1, m2) = (methods(&out[0], "V0"), methods(&out[1], "V1"), methods(&out[2], "V2"));
        assert!(!forwards_to(&m0["g"], "V0", "g"), "the first mode keeps its code: {}", m0["g"]);
        assert!(forwards_to(&m1["g"], "V0", "g") && forwards_to(&m1["h"], "V0", "h"), "{m1:?}");
        // The forward keeps the method's documentation and signature, inlined always.
        assert!(m1["g"].contains("g of mode 1") && m1["g"].contains("# [inline (always)]"), "{}", m1["g"]);
        assert!(m1["g"].contains("pub fn g (& self , t : f64 , x : & State < 2 >) -> f64"), "{}", m1["g"]);
        assert!(!forwards_to(&m2["g"], "V0", "g") && !forwards_to(&m2["h"], "V0", "h"), "{m2:?}");
        assert!(m2["g"].contains("self . h (t) * x [0]"), "V2's g keeps its code: {}", m2["g"]);
        // The constant is the same everywhere but is no method: never a forward.
        assert!(m2["K"].contains("= 1.0"), "{}", m2["K"]);
    }

    #[test]
    fn callees_are_compared_in_each_view_not_the_first_modes() {
        // Mode 0's g reaches nothing; modes 1 and 2 have the same g reaching an h that differs
        // between them: mode 2's g is not mode 1's.
        let v0 = quote! { impl<'a> V0<'a> { pub fn g(&self) -> f64 { 0.0 } } };
        let v1 = quote! { impl<'a> V1<'a> { pub fn g(&self) -> f64 { self.h() } fn h(&self) -> f64 { 1.0 } } };
        let v2 = quote! { impl<'a> V2<'a> { pub fn g(&self) -> f64 { self.h() } fn h(&self) -> f64 { 2.0 } } };
        let v3 = quote! { impl<'a> V3<'a> { pub fn g(&self) -> f64 { self.h() } fn h(&self) -> f64 { 2.0 } } };
        let out = forward(vec![v0, v1, v2, v3], &views(4), false);
        let (m2, m3) = (methods(&out[2], "V2"), methods(&out[3], "V3"));
        assert!(!m2["g"].contains("(self . 0)"), "{}", m2["g"]);
        assert!(forwards_to(&m3["g"], "V2", "g") && forwards_to(&m3["h"], "V2", "h"), "{m3:?}");
    }

    #[test]
    fn a_difference_deep_in_the_calls_keeps_every_caller_above_it() {
        // a → b → c, the same in modes 0 and 1 down to c: the refinement reaches a in its second
        // round (a is refined before b, b before c).
        let view = |k: usize, c: f64| {
            let v = format_ident!("V{k}");
            quote! { impl<'a> #v<'a> { pub fn a(&self) -> f64 { self.b() } fn b(&self) -> f64 { self.c() } fn c(&self) -> f64 { #c } } }
        };
        let out = forward(vec![view(0, 1.0), view(1, 2.0), view(2, 1.0)], &views(3), false);
        let (m1, m2) = (methods(&out[1], "V1"), methods(&out[2], "V2"));
        for name in ["a", "b", "c"] {
            assert!(!m1[name].contains("(self . 0)"), "{m1:?}");
            assert!(forwards_to(&m2[name], "V0", name), "{m2:?}");
        }
    }

    #[test]
    fn trait_members_count_and_a_body_handing_self_on_is_never_shared() {
        let view = |k: usize, field: f64| {
            let v = format_ident!("V{k}");
            quote! {
                impl<'a> #v<'a> {
                    pub fn g(&self, t: f64) -> f64 { self.field(t) }
                    pub fn s(&self) -> f64 { solve(self) }
                    pub fn c(&self) -> Self { Self(self.0) }
                    pub fn u(&self, u: f64) -> f64 { u * self.1 }
                }
                impl<'a> Field for #v<'a> { fn field(&self, t: f64) -> f64 { #field * t } }
            }
        };
        let out = forward(vec![view(0, 1.0), view(1, 2.0), view(2, 2.0)], &views(3), true);
        let (m1, m2) = (methods(&out[1], "V1"), methods(&out[2], "V2"));
        // g reaches the trait's field, which differs between modes 0 and 1.
        assert!(!m1["g"].contains("(self . 0"), "{}", m1["g"]);
        assert!(m2["g"].contains("{ V1 (self . 0 , self . 1) . g (t) }"), "{}", m2["g"]);
        // `self` handed to a function, `Self` as a type: kept as written.
        assert!(m2["s"].contains("solve (self)") && m2["c"].contains("Self (self . 0)"), "{m2:?}");
        // A view's field that is no method (the inputs): forwarded like the rest.
        assert!(m2["u"].contains("V0 (self . 0 , self . 1) . u (u)"), "{}", m2["u"]);
        // The trait impls stay as written.
        let text = out[2].to_string();
        assert!(text.contains("impl < 'a > Field for V2 < 'a > { fn field (& self , t : f64) -> f64 { 2f64 * t } }"), "{text}");
    }

    #[test]
    fn a_trait_method_calling_the_inherent_one_with_self_as_receiver_is_a_call() {
        // `Self::energy(self, t)` (a trait impl's method calling the inherent one) hands `self` on
        // only as the receiver: the inherent energy is shared where both are the same; a call
        // `Self::solve(self.0, self)` hands `self` on as any argument and is never shared.
        let view = |k: usize, scale: f64| {
            let v = format_ident!("V{k}");
            quote! {
                impl<'a> #v<'a> {
                    pub fn energy(&self, t: f64) -> f64 { #scale * t * self.0.m }
                    pub fn other(&self) -> f64 { Self::solve(self.0, self) }
                    fn solve(m: f64, v: &Self) -> f64 { m + v.energy(0.0) }
                }
                impl<'a> System for #v<'a> {
                    fn energy(&self, t: f64) -> f64 { Self::energy(self, t) }
                    fn scaled(&self, t: f64) -> f64 { Self::energy(self, t * self.0.m) }
                }
            }
        };
        let out = forward(vec![view(0, 1.0), view(1, 2.0), view(2, 2.0)], &views(3), false);
        let (m1, m2) = (methods(&out[1], "V1"), methods(&out[2], "V2"));
        assert!(!m1["energy"].contains("(self . 0)"), "{}", m1["energy"]);
        assert!(forwards_to(&m2["energy"], "V1", "energy"), "{}", m2["energy"]);
        assert!(m2["other"].contains("Self :: solve (self . 0 , self)"), "{}", m2["other"]);
        let text = out[2].to_string();
        assert!(text.contains("fn energy (& self , t : f64) -> f64 { Self :: energy (self , t) }"), "{text}");
    }
}
