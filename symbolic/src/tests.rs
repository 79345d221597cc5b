//! Crate-level tests: canonical forms, derivatives vs finite differences, zero test, CSE/emission
//! checked by interpreting the emitted token streams.

use crate::*;
use proc_macro2::{Delimiter, TokenStream, TokenTree};
use std::collections::HashMap;

mod calculus;
mod canonical;
mod emission;
mod geometry;
mod stress;

/// Small deterministic generator for test points.
pub(crate) struct Rng(u64);

impl Rng {
    pub(crate) fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    /// Uniform in [lo, hi).
    pub(crate) fn range(&mut self, lo: f64, hi: f64) -> f64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        lo + (hi - lo) * ((self.0 >> 11) as f64 / (1u64 << 53) as f64)
    }
}

/// Relative closeness.
pub(crate) fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol * (1.0 + a.abs().max(b.abs()))
}

/// The name of a place (`name[k]`, `name[(i, j)]`, a name) as written, without spaces.
pub(crate) fn place_key(toks: &[TokenTree]) -> String {
    toks.iter().map(|t| t.to_string()).collect::<String>().replace(' ', "")
}

/// Interpreter for the subset of Rust that `emit` produces: `let n: f64 = e;` statements and
/// expressions over `+ - * /`, unary `-`, parentheses, `f64` literals, identifiers and the
/// methods `sin cos tan exp ln sinh cosh tanh abs sqrt powi powf atan2`.
pub(crate) struct Interp {
    pub(crate) env: HashMap<String, f64>,
}

impl Interp {
    pub(crate) fn run(&mut self, em: &Emitted) -> Vec<f64> {
        // Temporaries declared in a group (`let (a, b,): (f64, f64,);`) and not yet assigned.
        let mut declared = std::collections::HashSet::new();
        for st in &em.statements {
            let toks: Vec<TokenTree> = st.clone().into_iter().collect();
            if self.sines_and_cosines(&toks) {
                continue;
            }
            if let [TokenTree::Ident(kw), TokenTree::Group(names), colon, TokenTree::Group(_), end] = &toks[..]
                && kw == "let"
            {
                assert!(Self::is_punct(Some(colon), ':') && Self::is_punct(Some(end), ';'), "a group's declaration: {st}");
                for name in names.stream() {
                    if !Self::is_punct(Some(&name), ',') {
                        assert!(declared.insert(name.to_string()), "{name} declared twice");
                    }
                }
                continue;
            }
            if toks[0].to_string() != "let" {
                // `name = rhs;` of a declared temporary.
                let name = toks[0].to_string();
                assert!(declared.remove(&name), "{name} assigned but not declared, or assigned twice: {st}");
                assert!(Self::is_punct(toks.get(1), '=') && Self::is_punct(toks.last(), ';'), "an assignment: {st}");
                let v = self.eval_tokens(&toks[2..toks.len() - 1]);
                assert!(!self.env.contains_key(&name), "temporary {name} defined twice");
                self.env.insert(name, v);
                continue;
            }
            assert_eq!(toks[0].to_string(), "let");
            let name = toks[1].to_string();
            assert_eq!(toks[2].to_string(), ":");
            assert_eq!(toks[3].to_string(), "f64");
            assert_eq!(toks[4].to_string(), "=");
            assert_eq!(toks.last().unwrap().to_string(), ";");
            let rhs = &toks[5..toks.len() - 1];
            assert!(
                !(rhs.len() == 1 && matches!(&rhs[0], TokenTree::Group(g) if g.delimiter() == Delimiter::Parenthesis)),
                "parenthesised let rhs: {st}"
            );
            let v = self.eval_tokens(rhs);
            assert!(!self.env.contains_key(&name), "temporary {name} defined twice");
            self.env.insert(name, v);
        }
        em.outputs.iter().map(|o| self.eval_stream(o.clone())).collect()
    }

    /// Runs statements of the scratch-array form, `place = e;` (a place is `name[k]`,
    /// `name[(i, j)]` or a name: each one variable), then evaluates the outputs.
    pub(crate) fn run_places(&mut self, em: &Emitted) -> Vec<f64> {
        for st in &em.statements {
            let toks: Vec<TokenTree> = st.clone().into_iter().collect();
            if self.sines_and_cosines(&toks) {
                continue;
            }
            let eq = toks.iter().position(|t| Self::is_punct(Some(t), '=')).expect("an assignment");
            assert_eq!(toks.last().unwrap().to_string(), ";");
            let v = self.eval_tokens(&toks[eq + 1..toks.len() - 1]);
            self.env.insert(place_key(&toks[..eq]), v);
        }
        em.outputs.iter().map(|o| self.eval_stream(o.clone())).collect()
    }

    /// The statement of `EmitOptions::sin_cos` with the path `sin_cos`, if `toks` is one: `let
    /// ([s…], [c…]): (…) = sin_cos([x…]);` or `([s…], [c…]) = sin_cos([x…]);`, each name or place
    /// (or `_`) given the sine or the cosine of its angle.
    fn sines_and_cosines(&mut self, toks: &[TokenTree]) -> bool {
        let Some(call) = toks.iter().position(|t| t.to_string() == "sin_cos") else { return false };
        let start = usize::from(toks[0].to_string() == "let");
        let TokenTree::Group(names) = &toks[start] else { panic!("a pattern of names: {toks:?}") };
        let TokenTree::Group(args) = &toks[call + 1] else { panic!("the angles") };
        let TokenTree::Group(args) = args.stream().into_iter().next().expect("[angles]") else { panic!("[angles]") };
        let split = |g: TokenStream| -> Vec<Vec<TokenTree>> {
            let mut items = vec![Vec::new()];
            for t in g {
                if Self::is_punct(Some(&t), ',') {
                    items.push(Vec::new());
                } else {
                    items.last_mut().expect("one").push(t);
                }
            }
            items.retain(|i| !i.is_empty());
            items
        };
        let angles: Vec<f64> = split(args.stream()).iter().map(|a| self.eval_tokens(a)).collect();
        for (which, half) in split(names.stream()).into_iter().enumerate() {
            let [TokenTree::Group(half)] = &half[..] else { panic!("[names]") };
            for (name, &x) in split(half.stream()).iter().zip(&angles) {
                let key = place_key(name);
                if key != "_" {
                    self.env.insert(key, if which == 0 { x.sin() } else { x.cos() });
                }
            }
        }
        true
    }

    fn eval_stream(&self, ts: TokenStream) -> f64 {
        let toks: Vec<TokenTree> = ts.into_iter().collect();
        self.eval_tokens(&toks)
    }

    fn eval_tokens(&self, toks: &[TokenTree]) -> f64 {
        let mut pos = 0;
        let v = self.sum(toks, &mut pos);
        assert_eq!(pos, toks.len(), "trailing tokens in {:?}", toks.iter().map(|t| t.to_string()).collect::<Vec<_>>());
        v
    }

    fn is_punct(t: Option<&TokenTree>, c: char) -> bool {
        matches!(t, Some(TokenTree::Punct(p)) if p.as_char() == c)
    }

    fn sum(&self, t: &[TokenTree], pos: &mut usize) -> f64 {
        let mut v = self.product(t, pos);
        loop {
            if Self::is_punct(t.get(*pos), '+') {
                *pos += 1;
                v += self.product(t, pos);
            } else if Self::is_punct(t.get(*pos), '-') {
                *pos += 1;
                v -= self.product(t, pos);
            } else {
                return v;
            }
        }
    }

    fn product(&self, t: &[TokenTree], pos: &mut usize) -> f64 {
        let mut v = self.unary(t, pos);
        loop {
            if Self::is_punct(t.get(*pos), '*') {
                *pos += 1;
                v *= self.unary(t, pos);
            } else if Self::is_punct(t.get(*pos), '/') {
                *pos += 1;
                v /= self.unary(t, pos);
            } else {
                return v;
            }
        }
    }

    fn unary(&self, t: &[TokenTree], pos: &mut usize) -> f64 {
        if Self::is_punct(t.get(*pos), '-') {
            *pos += 1;
            return -self.unary(t, pos);
        }
        self.postfix(t, pos)
    }

    fn postfix(&self, t: &[TokenTree], pos: &mut usize) -> f64 {
        let mut v = self.primary(t, pos);
        while Self::is_punct(t.get(*pos), '.') {
            let method = t[*pos + 1].to_string();
            let TokenTree::Group(g) = &t[*pos + 2] else { panic!("method call without arguments") };
            *pos += 3;
            let args: Vec<TokenTree> = g.stream().into_iter().collect();
            let arg = if args.is_empty() { f64::NAN } else { self.eval_tokens(&args) };
            v = match method.as_str() {
                "powi" => {
                    assert!(args.len() == 1 && matches!(args[0], TokenTree::Literal(_)), "powi of non-literal");
                    v.powi(arg as i32)
                }
                "powf" => v.powf(arg),
                "sqrt" => v.sqrt(),
                "atan2" => v.atan2(arg),
                m => Func::from_name(m).unwrap_or_else(|| panic!("unknown method {m}")).eval(&[v]),
            };
        }
        v
    }

    fn primary(&self, t: &[TokenTree], pos: &mut usize) -> f64 {
        let tok = &t[*pos];
        *pos += 1;
        match tok {
            TokenTree::Literal(l) => {
                let s = l.to_string();
                let s = s.strip_suffix("_f64").unwrap_or(&s);
                s.parse::<f64>().unwrap_or_else(|_| panic!("bad literal {s}"))
            }
            TokenTree::Ident(i) => {
                let mut n = i.to_string();
                if let Some(TokenTree::Group(g)) = t.get(*pos)
                    && g.delimiter() == Delimiter::Bracket
                {
                    n = place_key(&t[*pos - 1..=*pos]);
                    *pos += 1;
                }
                *self.env.get(&n).unwrap_or_else(|| panic!("unbound {n}"))
            }
            TokenTree::Group(g) if g.delimiter() == Delimiter::Parenthesis => {
                let inner: Vec<TokenTree> = g.stream().into_iter().collect();
                self.eval_tokens(&inner)
            }
            other => panic!("unexpected token {other}"),
        }
    }
}
