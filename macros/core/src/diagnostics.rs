//! Compile errors: one context that every phase reports into ([`Ctxt`]), and the helpers for
//! "unknown name, did you mean" and "given twice" messages.
//!
//! Every phase (parsing the items, checking names, lowering expressions, deriving) reports its
//! mistakes into a [`Ctxt`] and continues where the rest of the model still makes sense, so a
//! model with three independent mistakes gets three spanned errors in one build.

use std::fmt::Display;

use proc_macro2::Span;

/// The errors of one expansion, collected across phases (like serde_derive's `Ctxt`). It must be
/// consumed by [`Ctxt::check`]: a context dropped unchecked would lose its errors and turn a bad
/// model into a silently different one, so dropping one panics (outside of an unwinding panic).
pub struct Ctxt {
    errors: Vec<syn::Error>,
    checked: bool,
}

impl Drop for Ctxt {
    fn drop(&mut self) {
        if !self.checked && !std::thread::panicking() {
            panic!("routh: an error context was dropped without being checked");
        }
    }
}

impl Ctxt {
    /// An empty context.
    pub fn new() -> Self {
        Ctxt { errors: Vec::new(), checked: false }
    }
    /// Record an error.
    pub fn push(&mut self, e: syn::Error) {
        self.errors.push(e);
    }
    /// Record `msg` at `span`.
    pub fn error(&mut self, span: Span, msg: impl Display) {
        self.errors.push(syn::Error::new(span, msg));
    }
    /// The value of `r`, recording its error (then `None`).
    pub fn ok<T>(&mut self, r: syn::Result<T>) -> Option<T> {
        match r {
            Ok(v) => Some(v),
            Err(e) => {
                self.errors.push(e);
                None
            }
        }
    }
    /// Forgets the errors recorded after the first `count`: those of a phase whose results turned
    /// out to be placeholders (an exhausted expansion budget), which would name false causes.
    pub fn truncate(&mut self, count: usize) {
        self.errors.truncate(count);
    }
    /// Number of errors recorded so far.
    pub fn count(&self) -> usize {
        self.errors.len()
    }
    /// Whether any error was recorded.
    pub fn has_errors(&self) -> bool {
        !self.errors.is_empty()
    }
    /// Report every item whose key repeats an earlier item's, with `report(item)` (at the repeat).
    pub fn repeats<T, K: PartialEq>(&mut self, items: &[T], key: impl Fn(&T) -> K, report: impl Fn(&T) -> syn::Error) {
        for (i, item) in items.iter().enumerate() {
            let k = key(item);
            if items[..i].iter().any(|o| key(o) == k) {
                self.errors.push(report(item));
            }
        }
    }
    /// All recorded errors as one (each keeps its span), or `Ok` if there are none; consumes the
    /// context.
    pub fn check(mut self) -> syn::Result<()> {
        self.checked = true;
        let mut it = std::mem::take(&mut self.errors).into_iter();
        match it.next() {
            None => Ok(()),
            Some(mut first) => {
                for e in it {
                    first.combine(e);
                }
                Err(first)
            }
        }
    }
}

/// The error of a derivation that exhausted the symbolic workspace (`arena`): its budget of
/// operands, or [`symbolic::MAX_DEPTH`] levels of nesting. Blamed on `tokens` — the define at which
/// lowering hit it (`at` says so), or the model's Lagrangian — it is the only error then reported
/// for the model, as the results after it are placeholders.
pub fn budget_exceeded(tokens: impl quote::ToTokens, arena: &symbolic::Arena, at: &str) -> syn::Error {
    let message = if arena.too_deep() {
        format!(
            "this model's expressions nest deeper than {} levels{at}: the derive stops there rather than overflow \
             the compiler's stack; write the nested part as a chain of `define`s that are not nested in one \
             another, or as a `force` computed in plain Rust",
            symbolic::MAX_DEPTH
        )
    } else {
        format!(
            "the derivation of this model outgrew the expansion budget ({} million operands in its expressions){at}: \
             its equations of motion swell beyond what can be compiled (nested rational `define`s, each used \
             several times in the next, make derivatives that share nothing); split the model, or write such \
             a chain as a `force` computed from fewer, simpler defines",
            arena.operands() / 1_000_000
        )
    };
    syn::Error::new_spanned(tokens, message)
}

/// An error on the token `id` (a name as written: a coordinate, a keyword).
pub fn error_at(id: &syn::Ident, msg: impl Display) -> syn::Error {
    syn::Error::new(id.span(), msg.to_string())
}

/// `"; did you mean `x`?"` for the candidate closest to `name`, or nothing.
pub fn hint<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> String {
    match closest(name, candidates) {
        Some(c) => format!("; did you mean `{c}`?"),
        None => String::new(),
    }
}

/// An error for a name that is not known: `{what}{hint} {known}`, where the hint proposes the
/// closest of `candidates` and `known` lists what is (e.g. "Coordinates: x, y").
pub fn unknown<'a, S: AsRef<str> + 'a>(
    span: Span,
    what: impl Display,
    name: &str,
    candidates: impl IntoIterator<Item = &'a S>,
    known: impl Display,
) -> syn::Error {
    let hint = hint(name, candidates.into_iter().map(AsRef::as_ref));
    if hint.is_empty() {
        syn::Error::new(span, format!("{what}. {known}"))
    } else {
        syn::Error::new(span, format!("{what}{hint} {known}"))
    }
}

/// Edit distance counting insertions, deletions, substitutions and transpositions of adjacent
/// characters as one edit each (optimal string alignment), by `char`.
pub fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let w = b.len() + 1;
    let mut d = vec![0usize; (a.len() + 1) * w];
    for i in 0..=a.len() {
        d[i * w] = i;
    }
    for (j, cell) in d.iter_mut().enumerate().take(w) {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut v = (d[(i - 1) * w + j] + 1).min(d[i * w + j - 1] + 1).min(d[(i - 1) * w + j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                v = v.min(d[(i - 2) * w + j - 2] + 1);
            }
            d[i * w + j] = v;
        }
    }
    d[a.len() * w + b.len()]
}

/// The candidate closest to `name`, if it is close enough to be a plausible typo: edit distance at
/// most a third of the longer name (at least 1), or one name a prefix of the other (`cosine` →
/// `cos`, at least 2 shared characters); never a full rewrite of `name`. Ties go to the first
/// candidate.
pub fn closest<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let mut best: Option<(usize, &str)> = None;
    for c in candidates {
        let d = edit_distance(name, c);
        let limit = (name.chars().count().max(c.chars().count()) / 3).max(1);
        let prefix = c.len().min(name.len()) >= 2 && (name.starts_with(c) || c.starts_with(name));
        // A one-letter name is one edit from every other one-letter name: no hint is better than noise.
        let plausible = d < name.chars().count() && (d <= limit || prefix);
        if plausible && best.is_none_or(|(bd, _)| d < bd) {
            best = Some((d, c));
        }
    }
    best.map(|(_, c)| c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distances() {
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("th1", "th1"), 0);
        assert_eq!(edit_distance("gaurd", "guard"), 1);
    }

    #[test]
    fn suggestions() {
        assert_eq!(closest("th3", ["th1", "th2", "m1"]), Some("th1"));
        assert_eq!(closest("lenght", ["length", "mass"]), Some("length"));
        assert_eq!(closest("zzzzzz", ["length", "mass"]), None);
        assert_eq!(closest("cosine", ["sin", "cos", "cosh"]), Some("cos"));
        assert_eq!(closest("lagrangain", ["coordinates", "lagrangian"]), Some("lagrangian"));
        assert_eq!(closest("gaurd", ["name", "guard", "law"]), Some("guard"));
        assert_eq!(closest("z", ["x", "y"]), None);
    }
}
