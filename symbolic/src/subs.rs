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
        self.subs_many(&[e], map)[0]
    }

    /// [`Arena::subs`] of every expression of `es` with one memo: expressions that share their
    /// sub-DAGs (the poses along a chain) rebuild each shared node once.
    pub fn subs_many(&mut self, es: &[Expr], map: &[(Expr, Expr)]) -> Vec<Expr> {
        if map.is_empty() {
            return es.to_vec();
        }
        let table: FxHashMap<Expr, Expr> = map.iter().copied().collect();
        let mut mask = 0u64;
        for &(k, _) in map {
            let m = self.masks[k.index()];
            mask |= if m == 0 { !0 } else { m };
        }
        let mut memo = FxHashMap::default();
        es.iter().map(|&e| self.subs_rec(e, &table, mask, &mut memo)).collect()
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
            Node::Num(_) | Node::Pi | Node::Sym(_) => self.intern(node.clone()),
            Node::Add(_) => self.add(kids),
            Node::Mul(_) => self.mul(kids),
            Node::Pow(..) => self.pow(kids[0], kids[1]),
            Node::Call(f, _) => self.call(*f, kids),
        }
    }
}

/// Expressions with a list of symbols s₀, s₁, … set to zero — all of them, or all but one — for
/// reading many expressions that share their sub-expressions (the frames along a tree of joints,
/// each its parent's times a turn of its own), memoised across calls.
///
/// [`Arena::subs`] memoises per call and prunes by a 64-bit dependency mask, which many symbols
/// saturate: reading every link of a chain of n joints off frames that share their prefixes then
/// walks each frame whole, n²/2 nodes. Here every value with all the symbols at zero is kept for
/// every later call, and each node's *span* — the least and greatest index of the listed symbols
/// it holds — sends a node whose span misses k straight to that kept value when all but s_k are
/// zeroed. A frame F_j = F_p A(s_j) with its parent's symbols before s_j then costs the nodes
/// of A(s_j) alone.
///
/// ```
/// use symbolic::{Arena, AtZero, Func};
/// let mut a = Arena::new();
/// let (x, y) = (a.symbol("x"), a.symbol("y"));
/// let (cx, sy) = (a.call(Func::Cos, &[x]), a.call(Func::Sin, &[y]));
/// let e = a.add2(cx, sy); // cos x + sin y
/// let mut at = AtZero::new(&[x, y]);
/// let one = a.one();
/// assert_eq!(at.all(&mut a, e), one);
/// let keep_y = at.keeping(&mut a, e, 1);
/// let expected = a.add2(one, sy);
/// assert_eq!(keep_y, expected);
/// ```
pub struct AtZero {
    index: FxHashMap<Expr, u32>,
    span: FxHashMap<Expr, Option<(u32, u32)>>,
    all: FxHashMap<Expr, Expr>,
    rebuilt: usize,
}

impl AtZero {
    /// Zeroing `symbols` (their order numbers them).
    pub fn new(symbols: &[Expr]) -> Self {
        let index = symbols.iter().enumerate().map(|(i, &s)| (s, i as u32)).collect();
        Self { index, span: FxHashMap::default(), all: FxHashMap::default(), rebuilt: 0 }
    }

    /// Zeroing `symbols`, each with the number given (several symbols may share one: the
    /// components of a quaternion, kept or zeroed together by [`AtZero::keeping`]).
    ///
    /// ```
    /// use symbolic::{Arena, AtZero};
    /// let mut a = Arena::new();
    /// let (x, y, z) = (a.symbol("x"), a.symbol("y"), a.symbol("z"));
    /// let e = a.add(&[x, y, z]);
    /// let mut at = AtZero::grouped(&[(x, 0), (y, 1), (z, 1)]);
    /// let kept = at.keeping(&mut a, e, 1);
    /// assert_eq!(kept, a.add2(y, z));
    /// ```
    pub fn grouped(symbols: &[(Expr, usize)]) -> Self {
        let index = symbols.iter().map(|&(s, i)| (s, i as u32)).collect();
        Self { index, span: FxHashMap::default(), all: FxHashMap::default(), rebuilt: 0 }
    }

    /// The least and greatest index of the listed symbols in `e`, if it holds any.
    fn span(&mut self, arena: &Arena, e: Expr) -> Option<(u32, u32)> {
        if let Some(&i) = self.index.get(&e) {
            return Some((i, i));
        }
        if arena.node(e).is_leaf() {
            return None;
        }
        if let Some(&s) = self.span.get(&e) {
            return s;
        }
        let mut kids = Vec::new();
        arena.node(e).for_each_child(|c| kids.push(c));
        let mut out: Option<(u32, u32)> = None;
        for c in kids {
            if let Some((lo, hi)) = self.span(arena, c) {
                out = Some(out.map_or((lo, hi), |(l, h)| (l.min(lo), h.max(hi))));
            }
        }
        self.span.insert(e, out);
        out
    }

    /// How many nodes the calls so far have rebuilt (the measure of their work: every other node
    /// they met was answered from a memo or its span).
    pub fn rebuilt(&self) -> usize {
        self.rebuilt
    }

    /// `e` with every listed symbol at zero.
    pub fn all(&mut self, arena: &mut Arena, e: Expr) -> Expr {
        if self.index.contains_key(&e) {
            return arena.zero();
        }
        if self.span(arena, e).is_none() {
            return e;
        }
        if let Some(&v) = self.all.get(&e) {
            return v;
        }
        let node = arena.node(e).clone();
        let mut kids = Vec::new();
        node.for_each_child(|c| kids.push(c));
        self.rebuilt += 1;
        let new: Vec<Expr> = kids.iter().map(|&c| self.all(arena, c)).collect();
        let r = arena.rebuild(&node, &new);
        self.all.insert(e, r);
        r
    }

    /// `e` with every listed symbol but the `k`-th at zero.
    pub fn keeping(&mut self, arena: &mut Arena, e: Expr, k: usize) -> Expr {
        let mut memo = FxHashMap::default();
        self.keeping_rec(arena, e, k as u32, &mut memo)
    }

    fn keeping_rec(&mut self, arena: &mut Arena, e: Expr, k: u32, memo: &mut FxHashMap<Expr, Expr>) -> Expr {
        match self.span(arena, e) {
            None => return e,
            Some((lo, hi)) if k < lo || k > hi => return self.all(arena, e),
            Some(_) => {}
        }
        if let Some(&i) = self.index.get(&e) {
            return if i == k { e } else { arena.zero() };
        }
        if let Some(&v) = memo.get(&e) {
            return v;
        }
        let node = arena.node(e).clone();
        let mut kids = Vec::new();
        node.for_each_child(|c| kids.push(c));
        self.rebuilt += 1;
        let new: Vec<Expr> = kids.iter().map(|&c| self.keeping_rec(arena, c, k, memo)).collect();
        let r = if new == kids { e } else { arena.rebuild(&node, &new) };
        memo.insert(e, r);
        r
    }
}
