//! The hash-consed expression DAG.
//!
//! Every node lives once in a `Vec` arena and is addressed by a `u32` handle ([`Expr`]). A hash
//! map from node to handle guarantees *structural sharing*: building the same node twice returns
//! the same handle, so structural equality of canonical expressions is handle equality.
//!
//! Because a node can only be interned after its children, **a child's id is always smaller
//! than its parent's**: ascending id order is a topological order (used by evaluation and CSE).
//!
//! Each node also carries a 64-bit *dependency mask*: bit `i mod 64` is set when symbol `i`
//! occurs below it. A clear bit proves independence, which lets differentiation and substitution
//! skip whole sub-DAGs in O(1).

use crate::rational::Rational;
use rustc_hash::FxHashMap;

/// Handle of a node in an [`Arena`]. Only meaningful together with the arena that created it.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct Expr(pub(crate) u32);

impl Expr {
    /// Position of the node in its arena (ids are dense, in creation order).
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// Elementary functions.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub enum Func {
    /// sine
    Sin,
    /// cosine
    Cos,
    /// tangent
    Tan,
    /// natural exponential
    Exp,
    /// natural logarithm
    Ln,
    /// hyperbolic sine
    Sinh,
    /// hyperbolic cosine
    Cosh,
    /// hyperbolic tangent
    Tanh,
    /// two-argument arctangent `atan2(y, x)` (arguments in that order)
    Atan2,
    /// absolute value
    Abs,
}

impl Func {
    /// Every function, in declaration order.
    pub const ALL: [Func; 10] =
        [Func::Sin, Func::Cos, Func::Tan, Func::Exp, Func::Ln, Func::Sinh, Func::Cosh, Func::Tanh, Func::Atan2, Func::Abs];

    /// The name of the corresponding `f64` method (`"sin"`, `"ln"`, `"atan2"`, …).
    pub fn name(self) -> &'static str {
        match self {
            Func::Sin => "sin",
            Func::Cos => "cos",
            Func::Tan => "tan",
            Func::Exp => "exp",
            Func::Ln => "ln",
            Func::Sinh => "sinh",
            Func::Cosh => "cosh",
            Func::Tanh => "tanh",
            Func::Atan2 => "atan2",
            Func::Abs => "abs",
        }
    }

    /// Inverse of [`Func::name`].
    pub fn from_name(name: &str) -> Option<Func> {
        Func::ALL.into_iter().find(|f| f.name() == name)
    }

    /// Whether the function is smooth where it is defined (every one but `abs`): only smooth
    /// functions may enter a Lagrangian, whose equations need derivatives.
    pub fn is_smooth(self) -> bool {
        self != Func::Abs
    }

    /// Number of arguments (2 for `atan2`, 1 otherwise).
    pub fn arity(self) -> usize {
        if self == Func::Atan2 { 2 } else { 1 }
    }

    /// Numeric value; NaN on an arity mismatch.
    pub fn eval(self, args: &[f64]) -> f64 {
        if args.len() != self.arity() {
            return f64::NAN;
        }
        let a = args[0];
        match self {
            Func::Sin => a.sin(),
            Func::Cos => a.cos(),
            Func::Tan => a.tan(),
            Func::Exp => a.exp(),
            Func::Ln => a.ln(),
            Func::Sinh => a.sinh(),
            Func::Cosh => a.cosh(),
            Func::Tanh => a.tanh(),
            Func::Atan2 => a.atan2(args[1]),
            Func::Abs => a.abs(),
        }
    }
}

/// A node of the DAG. Nodes built through [`Arena`]'s constructors are canonical (see `construct`).
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum Node {
    /// Exact rational constant.
    Num(Rational),
    /// The constant π (exact: sines and cosines of its rational multiples with denominator 1, 2,
    /// 3, 4 or 6 fold to their exact values).
    Pi,
    /// Symbol, by index into the arena's symbol table.
    Sym(u32),
    /// Sum of at least two terms, sorted by id.
    Add(Box<[Expr]>),
    /// Product: optional leading numeric coefficient, then at least one factor, sorted by id.
    Mul(Box<[Expr]>),
    /// `base ^ exponent`.
    Pow(Expr, Expr),
    /// Function application.
    Call(Func, Box<[Expr]>),
}

impl Node {
    /// Calls `f` on each child, in order.
    pub fn for_each_child(&self, mut f: impl FnMut(Expr)) {
        match self {
            Node::Num(_) | Node::Pi | Node::Sym(_) => {}
            Node::Add(xs) | Node::Mul(xs) | Node::Call(_, xs) => xs.iter().for_each(|&x| f(x)),
            Node::Pow(b, e) => {
                f(*b);
                f(*e);
            }
        }
    }

    /// True for `Num`, `Pi` and `Sym`.
    pub fn is_leaf(&self) -> bool {
        matches!(self, Node::Num(_) | Node::Pi | Node::Sym(_))
    }
}

/// Owner of all nodes and symbols.
#[derive(Debug, Clone)]
pub struct Arena {
    pub(crate) nodes: Vec<Node>,
    pub(crate) masks: Vec<u64>,
    /// Each node's depth: 0 for a leaf, one more than its deepest child otherwise. Every pass
    /// over an expression recurses at most this deep, so [`MAX_DEPTH`] bounds their stack.
    depths: Vec<u32>,
    map: FxHashMap<Node, Expr>,
    sym_names: Vec<String>,
    sym_index: FxHashMap<String, Expr>,
    pub(crate) zero: Expr,
    pub(crate) one: Expr,
    pub(crate) minus_one: Expr,
    /// Operands (children) of every compound node built so far: the arena's size.
    operands: usize,
    /// The most operands the arena may hold (see [`Arena::set_budget`]).
    budget: usize,
    /// Set once the budget is exceeded: the symbol every further new node is replaced by.
    exhausted: Option<Expr>,
    /// Whether it was [`MAX_DEPTH`] that was exceeded (else the operands' budget).
    too_deep: bool,
    /// Each sum's content and primitive part, once computed (a sum multiplied by many factors
    /// is made primitive once).
    pub(crate) primitive: FxHashMap<Expr, Option<(Rational, Expr)>>,
}

/// The default [`Arena::set_budget`]: 40 million operands, a few hundred MB of nodes.
pub const DEFAULT_BUDGET: usize = 40_000_000;

/// The deepest expression an arena builds: a node nested deeper exhausts it like the budget
/// ([`Arena::exhausted`], [`Arena::too_deep`]). The passes over expressions (derivatives,
/// substitution, the zero test, emission) recurse once per level, a few kB of stack each in a
/// debug build, so 10 000 levels stay well inside the derive's 1 GiB stack segment; a machine-
/// written model nests far less (a sum or product of any length is one level: they are n-ary).
pub const MAX_DEPTH: u32 = 10_000;

thread_local! {
    /// The budget of arenas made on this thread ([`with_budget`]).
    static THREAD_BUDGET: std::cell::Cell<usize> = const { std::cell::Cell::new(DEFAULT_BUDGET) };
}

/// Runs `f` with every [`Arena`] made on this thread during it bounded by `operands` instead of
/// the default budget (40 million operands): how a test reaches a pipeline's budget without a model that takes minutes
/// to exceed the real one.
pub fn with_budget<R>(operands: usize, f: impl FnOnce() -> R) -> R {
    let before = THREAD_BUDGET.with(|b| b.replace(operands));
    let out = f();
    THREAD_BUDGET.with(|b| b.set(before));
    out
}

impl Default for Arena {
    fn default() -> Self {
        Arena::new()
    }
}

/// The nodes holding given symbols ([`Arena::holding`]).
#[derive(Clone, Debug)]
pub struct Holding(Vec<bool>);

impl Holding {
    /// Whether `e` holds one of the symbols; `e` must be a node of the DAG the marks were made
    /// for (a later node reads as not holding them).
    pub fn holds(&self, e: Expr) -> bool {
        debug_assert!(e.index() < self.0.len(), "a node made after the marks");
        self.0.get(e.index()).copied().unwrap_or(false)
    }
}

impl Arena {
    /// An arena holding just the constants 0, 1 and −1.
    pub fn new() -> Arena {
        let mut a = Arena {
            nodes: Vec::new(),
            masks: Vec::new(),
            depths: Vec::new(),
            map: FxHashMap::default(),
            sym_names: Vec::new(),
            sym_index: FxHashMap::default(),
            zero: Expr(0),
            one: Expr(0),
            minus_one: Expr(0),
            operands: 0,
            budget: THREAD_BUDGET.with(std::cell::Cell::get),
            exhausted: None,
            too_deep: false,
            primitive: FxHashMap::default(),
        };
        a.zero = a.intern(Node::Num(Rational::zero()));
        a.one = a.intern(Node::Num(Rational::one()));
        a.minus_one = a.intern(Node::Num(Rational::integer(-1)));
        a
    }

    /// Bounds the arena: once its compound nodes hold more than `operands` operands in all, every
    /// new compound node is replaced by one placeholder symbol and [`Arena::exhausted`] reports
    /// it, so that a derivation whose expressions swell (nested rational `define`s whose
    /// derivatives share nothing) stops in bounded time and memory; the caller reports the error
    /// and discards the results.
    pub fn set_budget(&mut self, operands: usize) {
        self.budget = operands;
    }

    /// Whether the budget of [`Arena::set_budget`] or [`MAX_DEPTH`] was exceeded (the results are
    /// not valid).
    #[must_use]
    pub fn exhausted(&self) -> bool {
        self.exhausted.is_some()
    }

    /// Whether it was [`MAX_DEPTH`] that [`Arena::exhausted`] the arena: an expression nested
    /// deeper than that.
    #[must_use]
    pub fn too_deep(&self) -> bool {
        self.too_deep
    }

    /// The number of operands of the arena's compound nodes (its size, against the budget).
    #[must_use]
    pub fn operands(&self) -> usize {
        self.operands
    }

    /// Returns the handle of `node`, creating it if it is new. Does **not** canonicalise.
    pub(crate) fn intern(&mut self, node: Node) -> Expr {
        if let Some(&e) = self.map.get(&node) {
            return e;
        }
        let mut depth = 0;
        if !node.is_leaf() {
            if let Some(placeholder) = self.exhausted {
                return placeholder;
            }
            let (mut k, mut deepest) = (0, 0);
            node.for_each_child(|c| {
                k += 1;
                deepest = deepest.max(self.depths[c.index()]);
            });
            self.operands += k;
            depth = deepest + 1;
            let too_deep = depth > MAX_DEPTH;
            if self.operands > self.budget || too_deep {
                let placeholder = self.symbol("\u{2026}expansion budget exceeded");
                self.exhausted = Some(placeholder);
                self.too_deep = too_deep;
                return placeholder;
            }
        }
        let mask = match &node {
            Node::Num(_) | Node::Pi => 0,
            Node::Sym(i) => 1u64 << (i % 64),
            _ => {
                let mut m = 0;
                node.for_each_child(|c| m |= self.masks[c.index()]);
                m
            }
        };
        // More than 2^32 nodes cannot be addressed; that is far beyond any realistic use.
        let id = Expr(u32::try_from(self.nodes.len()).expect("symbolic arena exceeded 2^32 nodes"));
        self.nodes.push(node.clone());
        self.masks.push(mask);
        self.depths.push(depth);
        self.map.insert(node, id);
        id
    }

    /// The node behind a handle.
    pub fn node(&self, e: Expr) -> &Node {
        &self.nodes[e.index()]
    }

    /// Number of nodes ever created.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Never true (the constants 0, 1, −1 always exist); provided for API completeness.
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// The symbol called `name` (created on first use; same name → same handle).
    pub fn symbol(&mut self, name: &str) -> Expr {
        if let Some(&e) = self.sym_index.get(name) {
            return e;
        }
        let idx = self.sym_names.len() as u32;
        self.sym_names.push(name.to_owned());
        let e = self.intern(Node::Sym(idx));
        self.sym_index.insert(name.to_owned(), e);
        e
    }

    /// Name of a symbol node, `None` for any other node.
    pub fn symbol_name(&self, e: Expr) -> Option<&str> {
        match self.node(e) {
            Node::Sym(i) => Some(&self.sym_names[*i as usize]),
            _ => None,
        }
    }

    /// The constant's value if `e` is a number.
    pub fn as_num(&self, e: Expr) -> Option<Rational> {
        match self.node(e) {
            Node::Num(r) => Some(*r),
            _ => None,
        }
    }

    /// The exact constant `r`.
    pub fn num(&mut self, r: Rational) -> Expr {
        self.intern(Node::Num(r))
    }

    /// The integer constant `n`.
    pub fn int(&mut self, n: i64) -> Expr {
        self.num(Rational::integer(i128::from(n)))
    }

    /// The constant 0.
    pub fn zero(&self) -> Expr {
        self.zero
    }

    /// The constant 1.
    pub fn one(&self) -> Expr {
        self.one
    }

    /// Which nodes of `root`'s DAG hold one of `syms`, for many queries about its parts (a test
    /// per part would walk each part again): one pass over the arena's nodes up to `root` in id
    /// order, children before parents.
    pub fn holding(&self, syms: &[Expr], root: Expr) -> Holding {
        let mut held = vec![false; root.index() + 1];
        for &s in syms {
            if let Some(h) = held.get_mut(s.index()) {
                *h = true;
            }
        }
        for i in 0..held.len() {
            if !held[i] {
                let mut any = false;
                self.nodes[i].for_each_child(|c| any |= held[c.index()]);
                held[i] = any;
            }
        }
        Holding(held)
    }

    /// Marks every node reachable from `roots`; the vector is indexed by id and has length
    /// `max(root id) + 1` (children have smaller ids than parents).
    pub(crate) fn reach_marks(&self, roots: &[Expr]) -> Vec<bool> {
        let n = roots.iter().map(|r| r.index() + 1).max().unwrap_or(0);
        let mut mark = vec![false; n];
        for &r in roots {
            self.mark_reachable(r, &mut mark);
        }
        mark
    }

    /// Marks `root` and every node it reaches that `mark` (long enough for `root`'s index: children
    /// have smaller ones) does not mark yet.
    pub(crate) fn mark_reachable(&self, root: Expr, mark: &mut [bool]) {
        if mark[root.index()] {
            return;
        }
        mark[root.index()] = true;
        let mut stack = vec![root];
        while let Some(e) = stack.pop() {
            self.nodes[e.index()].for_each_child(|c| {
                if !mark[c.index()] {
                    mark[c.index()] = true;
                    stack.push(c);
                }
            });
        }
    }

    /// Number of distinct nodes reachable from `outputs` (leaves included).
    pub fn count_nodes(&self, outputs: &[Expr]) -> usize {
        self.reach_marks(outputs).into_iter().filter(|&m| m).count()
    }

    /// The arguments of the sines and cosines reachable from `roots`, each once, in the order of
    /// their nodes.
    ///
    /// ```
    /// use symbolic::{Arena, Func};
    /// let mut a = Arena::new();
    /// let (x, y) = (a.symbol("x"), a.symbol("y"));
    /// let xy = a.add2(x, y);
    /// let (s, c, cy) = (a.call(Func::Sin, &[xy]), a.call(Func::Cos, &[xy]), a.call(Func::Cos, &[y]));
    /// let e = a.add(&[s, c, cy]);
    /// let mut expected = vec![xy, y];
    /// expected.sort_by_key(|e| e.index());
    /// assert_eq!(a.sine_cosine_arguments(&[e]), expected);
    /// ```
    pub fn sine_cosine_arguments(&self, roots: &[Expr]) -> Vec<Expr> {
        let marks = self.reach_marks(roots);
        let mut args: Vec<Expr> = (0..marks.len())
            .filter(|&i| marks[i])
            .filter_map(|i| match &self.nodes[i] {
                Node::Call(Func::Sin | Func::Cos, xs) if xs.len() == 1 => Some(xs[0]),
                _ => None,
            })
            .collect();
        args.sort_by_key(|x| x.index());
        args.dedup();
        args
    }

    /// Whether `sym` occurs in `e` (exact: the dependency mask only prunes).
    pub fn depends_on(&self, e: Expr, sym: Expr) -> bool {
        let m = self.masks[sym.index()];
        if e == sym {
            return true;
        }
        if m != 0 && self.masks[e.index()] & m == 0 || sym.index() > e.index() {
            return false;
        }
        // A walk of e's DAG only (not a mark per node of the arena: this is called in loops).
        let mut seen = rustc_hash::FxHashSet::default();
        let mut stack = vec![e];
        seen.insert(e);
        while let Some(x) = stack.pop() {
            if x == sym {
                return true;
            }
            self.nodes[x.index()].for_each_child(|c| {
                if (m == 0 || self.masks[c.index()] & m != 0) && seen.insert(c) {
                    stack.push(c);
                }
            });
        }
        false
    }

    /// The symbols that divide somewhere in `roots`: those occurring as a base `s^e` with a
    /// negative numeric exponent (`k / s`, `s^-2`, `1/√s`), sorted by id. A value 0 of such a
    /// symbol makes the expression infinite.
    pub fn divisor_symbols(&self, roots: &[Expr]) -> Vec<Expr> {
        let marks = self.reach_marks(roots);
        let mut out: Vec<Expr> = (0..marks.len())
            .filter(|&i| marks[i])
            .filter_map(|i| match &self.nodes[i] {
                Node::Pow(b, e)
                    if matches!(self.nodes[b.index()], Node::Sym(_)) && self.as_num(*e).is_some_and(|r| r.is_negative()) =>
                {
                    Some(*b)
                }
                _ => None,
            })
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }

    /// The symbols occurring in `e`, sorted by id.
    pub fn free_symbols(&self, e: Expr) -> Vec<Expr> {
        self.free_symbols_of(&[e])
    }

    /// The symbols occurring in any of `roots`, sorted by id: one walk of their DAGs together.
    pub fn free_symbols_of(&self, roots: &[Expr]) -> Vec<Expr> {
        // A walk of the roots' DAGs only (linear in their size, not in the arena's).
        let mut seen = rustc_hash::FxHashSet::default();
        let mut stack = roots.to_vec();
        let mut out = Vec::new();
        while let Some(x) = stack.pop() {
            if !seen.insert(x) {
                continue;
            }
            match &self.nodes[x.index()] {
                Node::Sym(_) => out.push(x),
                node => node.for_each_child(|c| stack.push(c)),
            }
        }
        out.sort_unstable();
        out
    }

    /// For each root, which of `symbols` it holds (their positions in `symbols`, ascending) — for
    /// many roots that share sub-expressions (the poses along a chain of joints), where
    /// [`Arena::free_symbols`] of each would walk the shared part again (quadratic along a chain).
    /// One pass over the union of the roots' DAGs in the arena's order (children before parents),
    /// each node's set the union of its children's, as ⌈n/64⌉ words.
    pub fn symbols_held(&self, roots: &[Expr], symbols: &[Expr]) -> Vec<Vec<usize>> {
        let words = symbols.len().div_ceil(64).max(1);
        let position: rustc_hash::FxHashMap<Expr, usize> = symbols.iter().enumerate().map(|(i, &s)| (s, i)).collect();
        let mut seen = rustc_hash::FxHashSet::default();
        let mut stack = roots.to_vec();
        let mut reached = Vec::new();
        while let Some(x) = stack.pop() {
            if seen.insert(x) {
                reached.push(x);
                self.nodes[x.index()].for_each_child(|c| stack.push(c));
            }
        }
        reached.sort_unstable();
        let slot: rustc_hash::FxHashMap<Expr, usize> = reached.iter().enumerate().map(|(k, &x)| (x, k)).collect();
        let mut bits = vec![0u64; reached.len() * words];
        for (k, &x) in reached.iter().enumerate() {
            if let Some(&i) = position.get(&x) {
                bits[k * words + i / 64] |= 1 << (i % 64);
            }
            let mut kids = Vec::new();
            self.nodes[x.index()].for_each_child(|c| kids.push(slot[&c]));
            for c in kids {
                debug_assert!(c < k, "a node's children come before it in the arena");
                for w in 0..words {
                    bits[k * words + w] |= bits[c * words + w];
                }
            }
        }
        roots
            .iter()
            .map(|r| {
                let k = slot[r];
                (0..symbols.len()).filter(|&i| bits[k * words + i / 64] >> (i % 64) & 1 == 1).collect()
            })
            .collect()
    }
}
