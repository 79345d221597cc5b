//! Differentiation by forward-mode propagation over the DAG, and a scalar's gradient by one
//! reverse sweep ([`Arena::gradient_reverse`]).
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
            let pw = self.power_below(u, v, &c);
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
        let fp = self.unary_derivative(f, a, e);
        self.mul2(fp, da)
    }

    /// u^(c − 1) for the constant exponent `v` = c (`c − 1` as a sum where it overflows).
    fn power_below(&mut self, u: Expr, v: Expr, c: &Rational) -> Expr {
        let cm1 = match c.checked_sub(&Rational::one()) {
            Some(x) => self.num(x),
            None => {
                let m = self.minus_one;
                self.add2(v, m)
            }
        };
        self.pow(u, cm1)
    }

    /// f′(a) of a function of one argument, `e` = f(a) the node itself (`tan′ = 1 + tan²`, …).
    fn unary_derivative(&mut self, f: Func, a: Expr, e: Expr) -> Expr {
        match f {
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
            Func::Atan2 => unreachable!("atan2 has two arguments"),
        }
    }

    /// `∇e = (∂e/∂x₁, …, ∂e/∂x_n)` by reverse-mode propagation: one sweep over `e`'s DAG from the
    /// root down (descending ids: a child's id is below its parent's), each node's adjoint the sum
    /// of its parents' contributions, so that the cost is linear in the DAG whatever the number of
    /// variables, where [`Arena::gradient`] makes a forward pass per variable. `vars` should be
    /// symbols; the values agree with [`Arena::gradient`]'s, their form may differ.
    pub fn gradient_reverse(&mut self, e: Expr, vars: &[Expr]) -> Vec<Expr> {
        let mask = vars.iter().fold(0, |m, &s| m | self.masks[s.index()]);
        let zero = self.zero;
        if self.masks[e.index()] & mask == 0 {
            return vec![zero; vars.len()];
        }
        let marks = self.reach_marks(&[e]);
        let mut contributions: FxHashMap<Expr, Vec<Expr>> = FxHashMap::default();
        contributions.insert(e, vec![self.one]);
        let mut adjoints: FxHashMap<Expr, Expr> = FxHashMap::default();
        for index in (0..marks.len()).rev() {
            let node = Expr(index as u32);
            if !marks[index] || self.masks[index] & mask == 0 {
                continue;
            }
            let Some(terms) = contributions.remove(&node) else { continue };
            let adjoint = self.add(&terms);
            if adjoint == zero {
                continue;
            }
            let push = |arena: &Arena, child: Expr, c: Expr, contributions: &mut FxHashMap<Expr, Vec<Expr>>| {
                if arena.masks[child.index()] & mask != 0 {
                    contributions.entry(child).or_default().push(c);
                }
            };
            match self.node(node) {
                Node::Num(_) | Node::Pi => {}
                Node::Sym(_) => {
                    adjoints.insert(node, adjoint);
                }
                Node::Add(ts) => {
                    for &t in ts.iter() {
                        push(self, t, adjoint, &mut contributions);
                    }
                }
                Node::Mul(fs) => {
                    let fs = fs.to_vec();
                    for i in 0..fs.len() {
                        if self.masks[fs[i].index()] & mask == 0 {
                            continue;
                        }
                        let mut prod: Vec<Expr> = Vec::with_capacity(fs.len());
                        prod.extend_from_slice(&fs[..i]);
                        prod.extend_from_slice(&fs[i + 1..]);
                        prod.push(adjoint);
                        let c = self.mul(&prod);
                        push(self, fs[i], c, &mut contributions);
                    }
                }
                &Node::Pow(u, v) => {
                    if let Some(c) = self.as_num(v) {
                        let pw = self.power_below(u, v, &c);
                        let c = self.mul(&[v, pw, adjoint]);
                        push(self, u, c, &mut contributions);
                    } else {
                        // e (v u'/u + v' ln u)
                        let m = self.minus_one;
                        let inv = self.pow(u, m);
                        let by_u = self.mul(&[node, v, inv, adjoint]);
                        push(self, u, by_u, &mut contributions);
                        let ln = self.call(Func::Ln, &[u]);
                        let by_v = self.mul(&[node, ln, adjoint]);
                        push(self, v, by_v, &mut contributions);
                    }
                }
                Node::Call(f, args) => {
                    let (f, args) = (*f, args.to_vec());
                    if args.len() != f.arity() {
                        continue;
                    }
                    let a = args[0];
                    if f == Func::Atan2 {
                        let (y, x) = (a, args[1]);
                        let x2 = self.powi(x, 2);
                        let y2 = self.powi(y, 2);
                        let den = self.add2(x2, y2);
                        let inv = self.powi(den, -1);
                        let by_y = self.mul(&[x, inv, adjoint]);
                        push(self, y, by_y, &mut contributions);
                        let m = self.minus_one;
                        let by_x = self.mul(&[m, y, inv, adjoint]);
                        push(self, x, by_x, &mut contributions);
                        continue;
                    }
                    let fp = self.unary_derivative(f, a, node);
                    let c = self.mul2(fp, adjoint);
                    push(self, a, c, &mut contributions);
                }
            }
        }
        vars.iter()
            .map(|v| {
                // A variable listed twice, or a symbol whose adjoint was never reached, as the forward pass.
                adjoints.get(v).copied().unwrap_or(zero)
            })
            .collect()
    }
}
