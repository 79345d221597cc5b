//! Human-readable printing: Unicode infix ([`Arena::display`]) and LaTeX ([`Arena::latex`]).
//!
//! Both printers share the layout decisions of the emitter: sums put a positive term first and
//! write negative terms with `-`; products write the coefficient first and gather negative powers
//! (and the coefficient's denominator) into a divisor; parentheses only where precedence needs
//! them. Printing walks the expression as a tree (no sharing), which is fine for display sizes.

use crate::arena::{Arena, Expr, Func, Node};
use crate::rational::Rational;

#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Prec {
    Add,
    Mul,
    Unary,
    Atom,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Style {
    Unicode,
    Latex,
}

struct Printer<'a> {
    arena: &'a Arena,
    name: &'a dyn Fn(Expr) -> String,
    style: Style,
}

/// Unicode superscript of an integer (`-12` → `⁻¹²`).
fn superscript(n: i128) -> String {
    const DIGITS: [char; 10] = ['⁰', '¹', '²', '³', '⁴', '⁵', '⁶', '⁷', '⁸', '⁹'];
    let mut s = String::new();
    if n < 0 {
        s.push('⁻');
    }
    for c in n.unsigned_abs().to_string().bytes() {
        s.push(DIGITS[usize::from(c - b'0')]);
    }
    s
}

impl Printer<'_> {
    fn paren(&self, (s, p): (String, Prec), min: Prec) -> String {
        if p >= min {
            s
        } else if self.style == Style::Latex {
            format!("\\left({s}\\right)")
        } else {
            format!("({s})")
        }
    }

    fn frac(&self, num: String, den: String) -> String {
        match self.style {
            Style::Unicode => format!("{num}/{den}"),
            Style::Latex => format!("\\frac{{{num}}}{{{den}}}"),
        }
    }

    fn rational(&self, r: Rational) -> (String, Prec) {
        let mag = r.checked_abs().unwrap_or(r);
        let (s, p) = if mag.is_integer() {
            (mag.num().to_string(), Prec::Atom)
        } else {
            let p = if self.style == Style::Latex { Prec::Atom } else { Prec::Mul };
            (self.frac(mag.num().to_string(), mag.den().to_string()), p)
        };
        if r.is_negative() { (format!("-{s}"), Prec::Unary) } else { (s, p) }
    }

    fn expr(&self, e: Expr) -> (String, Prec) {
        match self.arena.node(e) {
            Node::Num(r) => self.rational(*r),
            Node::Pi => ("π".to_string(), Prec::Atom),
            Node::Sym(_) => ((self.name)(e), Prec::Atom),
            Node::Add(ts) => self.sum(ts),
            Node::Mul(fs) => {
                let (neg, (s, p)) = self.product(fs);
                if neg {
                    (format!("-{}", self.paren((s, p), Prec::Mul)), if p == Prec::Mul { Prec::Mul } else { Prec::Unary })
                } else {
                    (s, p)
                }
            }
            &Node::Pow(b, x) => self.power(b, x),
            Node::Call(f, xs) => self.call(*f, xs),
        }
    }

    fn signed(&self, t: Expr) -> (bool, (String, Prec)) {
        match self.arena.node(t) {
            Node::Num(r) if r.is_negative() => (true, self.rational(r.checked_abs().unwrap_or(*r))),
            Node::Mul(fs) => self.product(fs),
            _ => (false, self.expr(t)),
        }
    }

    fn sum(&self, terms: &[Expr]) -> (String, Prec) {
        let items: Vec<(bool, (String, Prec))> = terms.iter().map(|&t| self.signed(t)).collect();
        let first = items.iter().position(|(neg, _)| !neg).unwrap_or(0);
        let mut s = String::new();
        let (neg, f) = &items[first];
        if *neg {
            s.push('-');
            s.push_str(&self.paren(f.clone(), Prec::Mul));
        } else {
            s.push_str(&f.0);
        }
        for (i, (neg, f)) in items.iter().enumerate() {
            if i != first {
                s.push_str(if *neg { " - " } else { " + " });
                s.push_str(&self.paren(f.clone(), Prec::Mul));
            }
        }
        (s, Prec::Add)
    }

    fn join(&self, items: Vec<(String, Prec)>) -> (String, Prec) {
        if items.len() == 1 {
            return items.into_iter().next().expect("one item");
        }
        let sep = if self.style == Style::Latex { " " } else { "·" };
        let parts: Vec<String> = items.into_iter().map(|f| self.paren(f, Prec::Unary)).collect();
        (parts.join(sep), Prec::Mul)
    }

    fn product(&self, fs: &[Expr]) -> (bool, (String, Prec)) {
        let (coef, rest) = match self.arena.node(fs[0]) {
            Node::Num(r) => (*r, &fs[1..]),
            _ => (Rational::one(), fs),
        };
        let mut nums = Vec::new();
        let mut dens = Vec::new();
        let c = coef.checked_abs().unwrap_or(coef);
        if c.num() != 1 {
            nums.push((c.num().to_string(), Prec::Atom));
        }
        if c.den() != 1 {
            dens.push((c.den().to_string(), Prec::Atom));
        }
        for &f in rest {
            if let &Node::Pow(b, x) = self.arena.node(f)
                && let Some(p) = self.arena.as_num(x).filter(|r| r.is_negative()).and_then(|r| r.checked_neg())
            {
                dens.push(self.positive_power(b, p));
                continue;
            }
            nums.push(self.expr(f));
        }
        let numer = if nums.is_empty() { ("1".to_owned(), Prec::Atom) } else { self.join(nums) };
        if dens.is_empty() {
            return (coef.is_negative(), numer);
        }
        let denom = self.join(dens);
        let r = match self.style {
            Style::Unicode => (format!("{}/{}", self.paren(numer, Prec::Mul), self.paren(denom, Prec::Unary)), Prec::Mul),
            Style::Latex => (self.frac(numer.0, denom.0), Prec::Mul),
        };
        (coef.is_negative(), r)
    }

    fn positive_power(&self, b: Expr, r: Rational) -> (String, Prec) {
        if r.is_one() {
            return self.expr(b);
        }
        let base = self.expr(b);
        if r.num() == 1 && r.den() == 2 {
            return match self.style {
                Style::Unicode => (format!("√{}", self.paren(base, Prec::Atom)), Prec::Atom),
                Style::Latex => (format!("\\sqrt{{{}}}", base.0), Prec::Atom),
            };
        }
        let base = self.paren(base, Prec::Atom);
        match self.style {
            Style::Unicode if r.is_integer() => (format!("{base}{}", superscript(r.num())), Prec::Atom),
            Style::Unicode => (format!("{base}^({r})"), Prec::Atom),
            Style::Latex => {
                let (e, _) = self.rational(r);
                (format!("{base}^{{{e}}}"), Prec::Atom)
            }
        }
    }

    fn power(&self, b: Expr, x: Expr) -> (String, Prec) {
        match self.arena.as_num(x) {
            Some(r) if r.is_negative() && r.checked_neg().is_some() => {
                let den = self.positive_power(b, r.checked_neg().unwrap_or(r));
                match self.style {
                    Style::Unicode => (format!("1/{}", self.paren(den, Prec::Unary)), Prec::Mul),
                    Style::Latex => (self.frac("1".into(), den.0), Prec::Atom),
                }
            }
            Some(r) => self.positive_power(b, r),
            None => {
                let base = self.paren(self.expr(b), Prec::Atom);
                match self.style {
                    Style::Unicode => (format!("{base}^{}", self.paren(self.expr(x), Prec::Atom)), Prec::Atom),
                    Style::Latex => (format!("{base}^{{{}}}", self.expr(x).0), Prec::Atom),
                }
            }
        }
    }

    fn call(&self, f: Func, xs: &[Expr]) -> (String, Prec) {
        let args: Vec<String> = xs.iter().map(|&x| self.expr(x).0).collect();
        let args = args.join(", ");
        let s = match (self.style, f) {
            (Style::Unicode, Func::Abs) => format!("|{args}|"),
            (Style::Unicode, _) => format!("{}({args})", f.name()),
            (Style::Latex, Func::Abs) => format!("\\left|{args}\\right|"),
            (Style::Latex, Func::Atan2) => format!("\\operatorname{{atan2}}\\left({args}\\right)"),
            (Style::Latex, _) => format!("\\{}\\left({args}\\right)", f.name()),
        };
        (s, Prec::Atom)
    }
}

impl Arena {
    /// Unicode infix rendering, e.g. `m·l²·cos(θ) - 1/2·k`; `name` gives each symbol's text.
    pub fn display(&self, e: Expr, name: &dyn Fn(Expr) -> String) -> String {
        Printer { arena: self, name, style: Style::Unicode }.expr(e).0
    }

    /// LaTeX rendering (`\frac`, `\sqrt`, `\sin\left(…\right)`, …); `name` gives each symbol's LaTeX.
    pub fn latex(&self, e: Expr, name: &dyn Fn(Expr) -> String) -> String {
        Printer { arena: self, name, style: Style::Latex }.expr(e).0
    }

    /// Number of nodes of `e` written out as a tree (shared subexpressions counted at every
    /// use), saturating at `u64::MAX`. Printed text is at least this long, so callers can decline
    /// to print expressions whose tree form is huge even when their DAG is small.
    pub fn tree_size(&self, e: Expr) -> u64 {
        let mut memo: rustc_hash::FxHashMap<Expr, u64> = rustc_hash::FxHashMap::default();
        self.tree_size_rec(e, &mut memo)
    }

    fn tree_size_rec(&self, e: Expr, memo: &mut rustc_hash::FxHashMap<Expr, u64>) -> u64 {
        if let Some(&n) = memo.get(&e) {
            return n;
        }
        let mut n = 1u64;
        let mut children = Vec::new();
        self.node(e).for_each_child(|c| children.push(c));
        for c in children {
            n = n.saturating_add(self.tree_size_rec(c, memo));
        }
        memo.insert(e, n);
        n
    }

    /// [`Arena::display`] with the symbols' own names.
    pub fn display_named(&self, e: Expr) -> String {
        self.display(e, &|s| self.symbol_name(s).unwrap_or("?").to_owned())
    }
}
