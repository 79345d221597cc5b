//! Polynomial degree of expressions in a set of variables, read off the DAG's structure.
//!
//! [`Arena::degrees`] gives every node reachable from the roots its degree as a polynomial in the
//! variables — `Some(0)` for a node free of them, `None` where a variable sits under a function, a
//! non-integer or symbolic power, or a negative power — in one bottom-up pass (ascending ids are a
//! topological order). The degree is structural: `x·y − y·x` cancels canonically, but a hidden
//! identity such as `(x + 1)² − x² − 2x` keeps degree 2. It is an upper bound, and exact for
//! expressions whose top coefficients do not cancel through identities.

use crate::arena::{Arena, Expr, Node};

impl Arena {
    /// The polynomial degree in `vars` of each node reachable from `roots`, indexed by node id
    /// (see the module documentation); unreachable nodes get `None`.
    pub fn degrees(&self, roots: &[Expr], vars: &[Expr]) -> Vec<Option<u32>> {
        let marks = self.reach_marks(roots);
        let mut deg: Vec<Option<u32>> = vec![None; marks.len()];
        for i in (0..marks.len()).filter(|&i| marks[i]) {
            let of = |e: &Expr| deg[e.index()];
            deg[i] = match &self.nodes[i] {
                Node::Num(_) | Node::Pi => Some(0),
                Node::Sym(_) => Some(u32::from(vars.contains(&Expr(i as u32)))),
                Node::Add(ts) => ts.iter().try_fold(0, |m, t| of(t).map(|d| m.max(d))),
                Node::Mul(fs) => fs.iter().try_fold(0u32, |s, f| of(f).and_then(|d| s.checked_add(d))),
                Node::Pow(b, x) => match (of(b), of(x), self.as_num(*x)) {
                    (Some(0), Some(0), _) => Some(0),
                    (Some(d), _, Some(r)) if r.is_integer() && !r.is_negative() => {
                        u32::try_from(r.num()).ok().and_then(|k| d.checked_mul(k))
                    }
                    _ => None,
                },
                Node::Call(_, xs) => xs.iter().all(|x| of(x) == Some(0)).then_some(0),
            };
        }
        deg
    }
}
