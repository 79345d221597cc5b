//! Substitution: rebuild `e` with every occurrence of a key node replaced by its value, through
//! the canonical constructors (so the result is canonical again, e.g. substituting `x → y` in
//! `x − y` yields 0). Memoised per call; sub-DAGs whose dependency mask misses every key are
//! returned unchanged without being visited.

use crate::arena::{Arena, Expr, Node};
use rustc_hash::FxHashMap;

impl Arena {
    /// Replaces each `key` by `value` for `(key, value)` in `map` (keys are normally symbols, but
    /// any node matches structurally). If a key is listed twice the last entry wins.
    pub fn subs(&mut self, e: Expr, map: &[(Expr, Expr)]) -> Expr {
        let table: FxHashMap<Expr, Expr> = map.iter().copied().collect();
        let mut mask = 0u64;
        for &(k, _) in map {
            let m = self.masks[k.index()];
            mask |= if m == 0 { !0 } else { m };
        }
        let mut memo = FxHashMap::default();
        self.subs_rec(e, &table, mask, &mut memo)
    }

    fn subs_rec(&mut self, e: Expr, table: &FxHashMap<Expr, Expr>, mask: u64, memo: &mut FxHashMap<Expr, Expr>) -> Expr {
        if let Some(&v) = table.get(&e) {
            return v;
        }
        if self.masks[e.index()] & mask == 0 || self.node(e).is_leaf() {
            return e;
        }
        if let Some(&v) = memo.get(&e) {
            return v;
        }
        let node = self.node(e).clone();
        let mut kids = Vec::new();
        node.for_each_child(|c| kids.push(c));
        let new: Vec<Expr> = kids.iter().map(|&c| self.subs_rec(c, table, mask, memo)).collect();
        let r = if new == kids { e } else { self.rebuild(&node, &new) };
        memo.insert(e, r);
        r
    }

    /// Builds a node of the same kind as `node` over new children, canonically.
    pub(crate) fn rebuild(&mut self, node: &Node, kids: &[Expr]) -> Expr {
        match node {
            Node::Num(_) | Node::Sym(_) => self.intern(node.clone()),
            Node::Add(_) => self.add(kids),
            Node::Mul(_) => self.mul(kids),
            Node::Pow(..) => self.pow(kids[0], kids[1]),
            Node::Call(f, _) => self.call(*f, kids),
        }
    }
}
