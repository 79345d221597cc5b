//! Numeric evaluation in `f64`. Nodes reachable from the outputs are evaluated once each, in
//! ascending id order (a topological order, see `arena`), so shared subexpressions cost once.
//! Powers are evaluated exactly like the emitted code computes them (`powi` for integer
//! exponents, `sqrt` for ±1/2, `powf` otherwise), so interpreter and generated code agree.

use crate::arena::{Arena, Expr, Node};
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

    /// Values of every node reachable from `outputs`, indexed by id (unreached entries are 0).
    pub(crate) fn eval_all(&self, outputs: &[Expr], value_of: &dyn Fn(Expr) -> f64) -> Vec<f64> {
        let marks = self.reach_marks(outputs);
        let mut v = vec![0.0f64; marks.len()];
        let mut args = Vec::new();
        for i in 0..marks.len() {
            if !marks[i] {
                continue;
            }
            v[i] = match &self.nodes[i] {
                Node::Num(r) => r.to_f64(),
                Node::Sym(_) => value_of(Expr(i as u32)),
                Node::Add(ts) => ts.iter().map(|t| v[t.index()]).sum(),
                Node::Mul(fs) => fs.iter().map(|f| v[f.index()]).product(),
                Node::Pow(b, e) => pow_f64(v[b.index()], self.as_num(*e), v[e.index()]),
                Node::Call(f, xs) => {
                    args.clear();
                    args.extend(xs.iter().map(|x| v[x.index()]));
                    f.eval(&args)
                }
            };
        }
        v
    }
}
