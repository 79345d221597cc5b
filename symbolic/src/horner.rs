//! Horner form of sums: factors shared by several terms taken out, greedily.
//!
//! The canonical form keeps sums expanded (`a·b + a·c`, never `a·(b + c)`), which is what makes
//! equal expressions one node; code that evaluates them wants the opposite. [`Arena::horner`]
//! rewrites an expression for evaluation: in every sum, the factor that occurs in most terms (at
//! least two; ties to the smallest id, so the result is deterministic) is taken out,
//! `Σ f·rᵢ + Σ sⱼ → f·(Σ rᵢ) + Σ sⱼ`, and both parts are treated again. The result is equal to
//! the input as a function and canonical node by node, so it can be differentiated, substituted
//! and emitted like any expression; its sums are often shared where the expanded ones were not
//! (the grouped Σ_{k≥i} mₖ aₖ of a chain's i-th force is the (i+1)-th's plus one term).

use crate::arena::{Arena, Expr, Node};
use crate::rational::Rational;
use rustc_hash::FxHashMap;

/// A term as its coefficient and its non-numeric factors (sorted by id).
type Term = (Rational, Vec<Expr>);

impl Arena {
    /// `e` with every sum in Horner form (see the module documentation).
    pub fn horner(&mut self, e: Expr) -> Expr {
        let mut memo = FxHashMap::default();
        self.horner_rec(e, &mut memo)
    }

    /// [`Arena::horner`] of several expressions, sharing the work on common subexpressions.
    pub fn horner_many(&mut self, es: &[Expr]) -> Vec<Expr> {
        let mut memo = FxHashMap::default();
        es.iter().map(|&e| self.horner_rec(e, &mut memo)).collect()
    }

    fn horner_rec(&mut self, e: Expr, memo: &mut FxHashMap<Expr, Expr>) -> Expr {
        if self.node(e).is_leaf() {
            return e;
        }
        if let Some(&r) = memo.get(&e) {
            return r;
        }
        let node = self.node(e).clone();
        let mut kids = Vec::new();
        node.for_each_child(|c| kids.push(c));
        let kids: Vec<Expr> = kids.into_iter().map(|c| self.horner_rec(c, memo)).collect();
        let r = match node {
            Node::Add(_) => {
                let terms: Vec<Term> = kids.iter().map(|t| self.term_of(*t)).collect();
                self.group(terms)
            }
            _ => self.rebuild(&node, &kids),
        };
        memo.insert(e, r);
        r
    }

    /// A term's coefficient and factors.
    fn term_of(&self, t: Expr) -> Term {
        match self.node(t) {
            Node::Num(r) => (*r, Vec::new()),
            Node::Mul(fs) => match self.node(fs[0]) {
                Node::Num(r) => (*r, fs[1..].to_vec()),
                _ => (Rational::one(), fs.to_vec()),
            },
            _ => (Rational::one(), vec![t]),
        }
    }

    fn build(&mut self, (c, fs): &Term) -> Expr {
        let mut factors = Vec::with_capacity(fs.len() + 1);
        factors.push(self.num(*c));
        factors.extend_from_slice(fs);
        self.mul(&factors)
    }

    /// The sum of `terms` with the most shared factor taken out, recursively.
    fn group(&mut self, terms: Vec<Term>) -> Expr {
        let mut counts: FxHashMap<Expr, usize> = FxHashMap::default();
        for (_, fs) in &terms {
            for &f in fs {
                *counts.entry(f).or_insert(0) += 1;
            }
        }
        let best = counts.into_iter().filter(|&(_, c)| c >= 2).max_by(|a, b| a.1.cmp(&b.1).then(b.0.cmp(&a.0)));
        let Some((f, _)) = best else {
            let built: Vec<Expr> = terms.iter().map(|t| self.build(t)).collect();
            return self.add(&built);
        };
        let (with, without): (Vec<Term>, Vec<Term>) = terms.into_iter().partition(|(_, fs)| fs.contains(&f));
        let quotients: Vec<Term> = with
            .into_iter()
            .map(|(c, mut fs)| {
                if let Some(k) = fs.iter().position(|&x| x == f) {
                    fs.remove(k);
                }
                (c, fs)
            })
            .collect();
        let inner = self.group(quotients);
        let taken = self.mul2(f, inner);
        if without.is_empty() {
            return taken;
        }
        let rest = self.group(without);
        self.add2(taken, rest)
    }
}
