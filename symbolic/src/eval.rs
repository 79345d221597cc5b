//! Numeric evaluation in `f64`. Nodes reachable from the outputs are evaluated once each, in
//! ascending id order (a topological order, see `arena`), so shared subexpressions cost once.
//! Powers are evaluated exactly like the emitted code computes them (`powi` for integer
//! exponents, `sqrt` for ±1/2, `powf` otherwise), so interpreter and generated code agree.

use crate::arena::{Arena, Expr, Func, Node};
use crate::rational::Rational;

/// `b^e` the way emitted code computes it; `exact` is the exponent when it is a constant.
pub(crate) fn pow_f64(b: f64, exact: Option<Rational>, e: f64) -> f64 {
    if let Some(r) = exact {
        if r.is_integer() {
            if let Ok(n) = i32::try_from(r.num()) {
                return b.powi(n);
            }
        } else if r.den() == 2 && r.num() == 1 {
            return b.sqrt();
        } else if r.den() == 2 && r.num() == -1 {
            return 1.0 / b.sqrt();
        }
    }
    b.powf(e)
}

impl Arena {
    /// Value of `e`; `value_of` supplies the value of each symbol node.
    pub fn eval(&self, e: Expr, value_of: &dyn Fn(Expr) -> f64) -> f64 {
        self.eval_many(&[e], value_of)[0]
    }

    /// Values of all `outputs`, evaluating shared subexpressions once.
    pub fn eval_many(&self, outputs: &[Expr], value_of: &dyn Fn(Expr) -> f64) -> Vec<f64> {
        let vals = self.eval_all(outputs, &|e| value_of(e));
        outputs.iter().map(|o| vals[o.index()]).collect()
    }

    /// Values of `outputs` under `bindings` (`(s, e)`: the symbol s stands for e, as for
    /// `emit_bound`), every other symbol from `value_of`. Only what the outputs reach is evaluated,
    /// each node once (a walk of their DAG, not of the arena), so a recursion's bindings evaluate
    /// in time linear in their size.
    pub fn eval_bound(&self, bindings: &[(Expr, Expr)], outputs: &[Expr], value_of: &dyn Fn(Expr) -> f64) -> Vec<f64> {
        let bound: rustc_hash::FxHashMap<Expr, Expr> = bindings.iter().copied().collect();
        let mut memo: rustc_hash::FxHashMap<Expr, f64> = rustc_hash::FxHashMap::default();
        let mut args = Vec::new();
        outputs
            .iter()
            .map(|&o| {
                // Post-order over o's DAG (a bound symbol's children: its expression).
                let mut stack = vec![(o, false)];
                while let Some((e, expanded)) = stack.pop() {
                    if memo.contains_key(&e) {
                        continue;
                    }
                    let children: Vec<Expr> = match (&self.nodes[e.index()], bound.get(&e)) {
                        (Node::Sym(_), Some(&b)) => vec![b],
                        (node, _) => {
                            let mut cs = Vec::new();
                            node.for_each_child(|c| cs.push(c));
                            cs
                        }
                    };
                    if !expanded && children.iter().any(|c| !memo.contains_key(c)) {
                        stack.push((e, true));
                        stack.extend(children.into_iter().filter(|c| !memo.contains_key(c)).map(|c| (c, false)));
                        continue;
                    }
                    let value = match (&self.nodes[e.index()], bound.get(&e)) {
                        (Node::Sym(_), Some(b)) => memo[b],
                        (Node::Sym(_), None) => value_of(e),
                        (node, _) => self.combine(node, |x| memo[&x], &mut args),
                    };
                    memo.insert(e, value);
                }
                memo[&o]
            })
            .collect()
    }

    /// Values of all `outputs` with a bound on their error: `(v, e)` with the exact value of the
    /// expression at the given symbol values (taken as exact) within `e` of `v` (`e = ∞` where no
    /// bound is known, e.g. a reciprocal of a value within its own error of zero). For deciding that
    /// an expression is *certainly* nonzero at a point (`|v| > e`) when cancellation may leave a
    /// rounding residue of an identically zero one (a sum of terms that cancel evaluates to about
    /// 10⁻¹⁷, and no relative threshold on that value alone can tell it from a small nonzero).
    ///
    /// The bounds propagate node by node: a sum adds its terms' bounds and the rounding of its
    /// additions, (n − 1)·u·Σ|tᵢ|; a product Π(|fᵢ| + eᵢ) − Π|fᵢ| plus its rounding; an integer
    /// power likewise (a negative one from |b| − e_b > 0); the functions by their Lipschitz bounds
    /// on the interval (u the unit roundoff; rational constants carry their conversion error).
    pub fn eval_many_bounded(&self, outputs: &[Expr], value_of: &dyn Fn(Expr) -> f64) -> Vec<(f64, f64)> {
        const U: f64 = f64::EPSILON;
        let marks = self.reach_marks(outputs);
        let mut v = vec![0.0f64; marks.len()];
        let mut err = vec![0.0f64; marks.len()];
        let mut args = Vec::new();
        for i in 0..marks.len() {
            if !marks[i] {
                continue;
            }
            let (value, bound) = match &self.nodes[i] {
                Node::Num(r) => {
                    let x = r.to_f64();
                    let exact = r.is_integer() && x.abs() < 9.0e15;
                    (x, if exact { 0.0 } else { U * x.abs() })
                }
                Node::Sym(_) => (value_of(Expr(i as u32)), 0.0),
                Node::Pi => (std::f64::consts::PI, U * std::f64::consts::PI),
                Node::Add(ts) => {
                    let value: f64 = ts.iter().map(|t| v[t.index()]).sum();
                    let inherited: f64 = ts.iter().map(|t| err[t.index()]).sum();
                    let size: f64 = ts.iter().map(|t| v[t.index()].abs()).sum();
                    (value, inherited + (ts.len() as f64) * U * (size + inherited))
                }
                Node::Mul(fs) => {
                    let value: f64 = fs.iter().map(|f| v[f.index()]).product();
                    let wide: f64 = fs.iter().map(|f| v[f.index()].abs() + err[f.index()]).product();
                    let tight: f64 = fs.iter().map(|f| v[f.index()].abs()).product();
                    (value, (wide - tight).max(0.0) * (1.0 + 4.0 * U) + (fs.len() as f64) * U * wide)
                }
                Node::Pow(b, e) => {
                    let (bv, be) = (v[b.index()], err[b.index()]);
                    let value = pow_f64(bv, self.as_num(*e), v[e.index()]);
                    let bound = match self.as_num(*e) {
                        // (A constant exponent is used exactly: pow_f64 takes the rational.)
                        Some(r) if r.is_integer() && r.num().unsigned_abs() <= 64 => {
                            let k = r.num().unsigned_abs() as i32;
                            let a = bv.abs();
                            if r.num() >= 0 {
                                ((a + be).powi(k) - a.powi(k)).max(0.0) + f64::from(k) * U * (a + be).powi(k)
                            } else if be < a {
                                ((a - be).powi(-k) - a.powi(-k)).max(0.0) + f64::from(k + 1) * U * (a - be).powi(-k)
                            } else {
                                f64::INFINITY
                            }
                        }
                        Some(r) if r.den() == 2 && r.num().abs() == 1 && bv >= 0.0 => {
                            let (low, high) = ((bv - be).max(0.0), bv + be);
                            if r.num() == 1 {
                                high.sqrt() - low.sqrt() + 2.0 * U * value.abs()
                            } else if low > 0.0 {
                                1.0 / low.sqrt() - 1.0 / high.sqrt() + 3.0 * U * value.abs()
                            } else {
                                f64::INFINITY
                            }
                        }
                        // Any constant exponent p on a positive interval [b − e_b, b + e_b]: the
                        // mean value theorem, |p| max |x^(p−1)| e_b.
                        Some(r) if bv > be => {
                            let p = r.to_f64();
                            let slope = (bv - be).powf(p - 1.0).max((bv + be).powf(p - 1.0));
                            p.abs() * slope * be + 4.0 * U * value.abs()
                        }
                        _ if be == 0.0 && err[e.index()] == 0.0 => 4.0 * U * value.abs(),
                        _ => f64::INFINITY,
                    };
                    (value, bound)
                }
                Node::Call(f, xs) => {
                    args.clear();
                    args.extend(xs.iter().map(|x| v[x.index()]));
                    let value = f.eval(&args);
                    let (x, ex) = (args.first().copied().unwrap_or(f64::NAN), xs.first().map_or(0.0, |x| err[x.index()]));
                    let round = 4.0 * U * (1.0 + value.abs());
                    let bound = match f {
                        Func::Sin | Func::Cos | Func::Tanh | Func::Abs => ex + round,
                        Func::Exp => value.abs() * ex.exp_m1() + round,
                        Func::Sinh | Func::Cosh => (x.abs() + ex).cosh() * ex + round,
                        Func::Ln if ex < x.abs() => (x.abs() / (x.abs() - ex)).ln() + round,
                        Func::Atan2 => {
                            let ey = ex;
                            let ex2 = xs.get(1).map_or(0.0, |x| err[x.index()]);
                            let r = args[0].hypot(args.get(1).copied().unwrap_or(f64::NAN)) - (ey + ex2);
                            if r > 0.0 { (ey + ex2) / r + round } else { f64::INFINITY }
                        }
                        _ if ex == 0.0 => round,
                        _ => f64::INFINITY,
                    };
                    (value, bound)
                }
            };
            v[i] = value;
            err[i] = if bound.is_nan() { f64::INFINITY } else { bound };
        }
        outputs.iter().map(|o| (v[o.index()], err[o.index()])).collect()
    }

    /// Values of every node reachable from `outputs`, indexed by id (unreached entries are 0).
    pub(crate) fn eval_all(&self, outputs: &[Expr], value_of: &dyn Fn(Expr) -> f64) -> Vec<f64> {
        let marks = self.reach_marks(outputs);
        let mut v = vec![0.0f64; marks.len()];
        let mut args = Vec::new();
        for i in 0..marks.len() {
            if !marks[i] {
                continue;
            }
            let value = match &self.nodes[i] {
                Node::Sym(_) => value_of(Expr(i as u32)),
                node => self.combine(node, |x| v[x.index()], &mut args),
            };
            v[i] = value;
        }
        v
    }

    /// The value of a node that is not a symbol from its children's values `v` (`args`: scratch
    /// for a call's arguments).
    fn combine(&self, node: &Node, v: impl Fn(Expr) -> f64, args: &mut Vec<f64>) -> f64 {
        match node {
            Node::Num(r) => r.to_f64(),
            Node::Pi => std::f64::consts::PI,
            Node::Sym(_) => f64::NAN,
            Node::Add(ts) => ts.iter().map(|&t| v(t)).sum(),
            Node::Mul(fs) => fs.iter().map(|&f| v(f)).product(),
            Node::Pow(b, e) => pow_f64(v(*b), self.as_num(*e), v(*e)),
            Node::Call(f, xs) => {
                args.clear();
                args.extend(xs.iter().map(|&x| v(x)));
                f.eval(args)
            }
        }
    }
}
