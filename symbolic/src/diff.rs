//! Differentiation by forward-mode propagation over the DAG.
//!
//! [`Arena::directional`] computes `D e = Σ_k s_k · ∂e/∂x_k` for seeds `(x_k, s_k)` in a single
//! memoised pass: every node's derivative is built once from its children's derivatives, so the
//! cost is linear in the DAG size. Sub-DAGs whose dependency mask misses every seeded symbol have
//! derivative 0 without being visited. [`Arena::diff`] is the special case of one seed `(x, 1)`.
//!
//! Rules (`u' = D u`):
//! * `(Σ uᵢ)' = Σ uᵢ'`, `(Π uᵢ)' = Σᵢ uᵢ' Π_{j≠i} uⱼ`
//! * `(u^c)' = c·u^(c−1)·u'` for constant `c`; `(u^v)' = u^v·(v'·ln u + v·u'/u)` otherwise
//! * `sin' = cos`, `cos' = −sin`, `tan' = 1 + tan²`, `exp' = exp`, `ln' u = 1/u`, `sinh' = cosh`,
//!   `cosh' = sinh`, `tanh' = 1 − tanh²`, `|u|' = u/|u|`
//! * `atan2(y, x)' = (x·y' − y·x') / (x² + y²)`

use crate::arena::{Arena, Expr, Func, Node};
use crate::rational::Rational;
use rustc_hash::FxHashMap;

/// State of one differentiation pass.
struct Pass<'s> {
    seeds: &'s [(Expr, Expr)],
    mask: u64,
    memo: FxHashMap<Expr, Expr>,
}

/// One directional derivative kept across calls ([`Arena::directional_kept`]): its seeds and the
/// memo of every node differentiated so far, so that expressions built on each other (a chain
/// of defines, each its parent's plus a term) are differentiated once in total, not once per
/// expression that contains them.
#[derive(Clone, Debug, Default)]
pub struct Directional {
    seeds: Vec<(Expr, Expr)>,
    memo: FxHashMap<Expr, Expr>,
}

impl Directional {
    /// A derivative along `seeds` (see [`Arena::directional`]) with an empty memo.
    pub fn new(seeds: Vec<(Expr, Expr)>) -> Self {
        Directional { seeds, memo: FxHashMap::default() }
    }
}

impl Arena {
    /// `∂e/∂sym`.
    pub fn diff(&mut self, e: Expr, sym: Expr) -> Expr {
        let one = self.one;
        self.directional(e, &[(sym, one)])
    }

    /// `Σ_k seed_k · ∂e/∂sym_k` in one forward pass. Seed keys should be symbols (other keys
    /// are ignored); a symbol listed twice gets the sum of its seeds.
    pub fn directional(&mut self, e: Expr, seeds: &[(Expr, Expr)]) -> Expr {
        let mask = seeds.iter().fold(0, |m, &(s, _)| m | self.masks[s.index()]);
        let mut pass = Pass { seeds, mask, memo: FxHashMap::default() };
        self.d(e, &mut pass)
    }

    /// [`Arena::directional`] of several expressions along the same seeds, in one pass whose memo
    /// is shared: a subexpression common to several outputs is differentiated once.
    pub fn directional_many(&mut self, es: &[Expr], seeds: &[(Expr, Expr)]) -> Vec<Expr> {
        let mask = seeds.iter().fold(0, |m, &(s, _)| m | self.masks[s.index()]);
        let mut pass = Pass { seeds, mask, memo: FxHashMap::default() };
        es.iter().map(|&e| self.d(e, &mut pass)).collect()
    }

    /// [`Arena::directional`] of `e` along `kept`'s seeds, reusing and extending its memo.
    pub fn directional_kept(&mut self, e: Expr, kept: &mut Directional) -> Expr {
        let Directional { seeds, memo } = kept;
        let mask = seeds.iter().fold(0, |m, &(s, _)| m | self.masks[s.index()]);
        let mut pass = Pass { seeds, mask, memo: std::mem::take(memo) };
        let r = self.d(e, &mut pass);
        *memo = pass.memo;
        r
    }

    /// `∂eᵢ/∂sym` for every `eᵢ`, sharing one memo (see [`Arena::directional_many`]).
    pub fn diff_many(&mut self, es: &[Expr], sym: Expr) -> Vec<Expr> {
        let one = self.one;
        self.directional_many(es, &[(sym, one)])
    }

    fn d(&mut self, e: Expr, p: &mut Pass<'_>) -> Expr {
        if self.masks[e.index()] & p.mask == 0 {
            return self.zero;
        }
        if let Some(&r) = p.memo.get(&e) {
            return r;
        }
        let r = match self.node(e) {
            Node::Num(_) | Node::Pi => self.zero,
            Node::Sym(_) => {
                let vals: Vec<Expr> = p.seeds.iter().filter(|s| s.0 == e).map(|s| s.1).collect();
                self.add(&vals)
            }
            Node::Add(ts) => {
                let ts = ts.to_vec();
                let ds: Vec<Expr> = ts.into_iter().map(|t| self.d(t, p)).collect();
                self.add(&ds)
            }
            Node::Mul(fs) => {
                let fs = fs.to_vec();
                let mut terms = Vec::new();
                for i in 0..fs.len() {
                    let di = self.d(fs[i], p);
                    if di == self.zero {
                        continue;
                    }
                    let mut prod: Vec<Expr> = Vec::with_capacity(fs.len());
                    prod.extend_from_slice(&fs[..i]);
                    prod.extend_from_slice(&fs[i + 1..]);
                    prod.push(di);
                    terms.push(self.mul(&prod));
                }
                self.add(&terms)
            }
            &Node::Pow(u, v) => self.d_pow(e, u, v, p),
            Node::Call(f, args) => {
                let (f, args) = (*f, args.to_vec());
                self.d_call(e, f, &args, p)
            }
        };
        p.memo.insert(e, r);
        r
    }

    fn d_pow(&mut self, e: Expr, u: Expr, v: Expr, p: &mut Pass<'_>) -> Expr {
        let du = self.d(u, p);
        if let Some(c) = self.as_num(v) {
            if du == self.zero {
                return self.zero;
            }
            let cm1 = match c.checked_sub(&Rational::one()) {
                Some(x) => self.num(x),
                None => {
                    let m = self.minus_one;
                    self.add2(v, m)
                }
            };
            let pw = self.pow(u, cm1);
            return self.mul(&[v, pw, du]);
        }
        let dv = self.d(v, p);
        let mut inner = Vec::with_capacity(2);
        if dv != self.zero {
            let ln = self.call(Func::Ln, &[u]);
            inner.push(self.mul2(dv, ln));
        }
        if du != self.zero {
            let m = self.minus_one;
            let inv = self.pow(u, m);
            inner.push(self.mul(&[v, du, inv]));
        }
        let s = self.add(&inner);
        self.mul2(e, s)
    }

    fn d_call(&mut self, e: Expr, f: Func, args: &[Expr], p: &mut Pass<'_>) -> Expr {
        if args.len() != f.arity() {
            return self.zero;
        }
        let a = args[0];
        if f == Func::Atan2 {
            let (y, x) = (a, args[1]);
            let dy = self.d(y, p);
            let dx = self.d(x, p);
            let t1 = self.mul2(x, dy);
            let t2 = self.mul2(y, dx);
            let num = self.sub(t1, t2);
            if num == self.zero {
                return self.zero;
            }
            let x2 = self.powi(x, 2);
            let y2 = self.powi(y, 2);
            let den = self.add2(x2, y2);
            return self.div(num, den);
        }
        let da = self.d(a, p);
        if da == self.zero {
            return self.zero;
        }
        let fp = match f {
            Func::Sin => self.call(Func::Cos, &[a]),
            Func::Cos => {
                let s = self.call(Func::Sin, &[a]);
                self.neg(s)
            }
            Func::Tan => {
                let t2 = self.powi(e, 2);
                let one = self.one;
                self.add2(one, t2)
            }
            Func::Exp => e,
            Func::Ln => self.powi(a, -1),
            Func::Sinh => self.call(Func::Cosh, &[a]),
            Func::Cosh => self.call(Func::Sinh, &[a]),
            Func::Tanh => {
                let t2 = self.powi(e, 2);
                let one = self.one;
                self.sub(one, t2)
            }
            Func::Abs => self.div(a, e),
            Func::Atan2 => unreachable!("handled above"),
        };
        self.mul2(fp, da)
    }
}
