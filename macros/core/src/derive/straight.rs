//! Straight-line code over bound quantities: each quantity a symbol of its own ([`Role::Temporary`],
//! emitted with `symbolic::emit_bound`), so that code stays linear in the quantities; and its
//! derivatives by forward mode ([`forward`], [`tangent_of`]: a directional derivative along a
//! tangent of the state, its functions of the state read once as inputs) and by reverse mode
//! ([`reverse`]). The recursions along kinematic trees ([`super::dynamics`]) are written in it, and so is
//! the residual's derivative of a model whose M is formed by columns ([`super::euler_lagrange`]).

use rustc_hash::{FxHashMap, FxHashSet};
use symbolic::{Arena, Expr, Node};

use crate::layout::{Layout, Role};
use crate::model::Model;

/// `s = e` bindings in dependency order (see `symbolic::emit_bound`).
pub type Bindings = Vec<(Expr, Expr)>;

/// Straight-line bindings and the outputs they give.
pub struct Bound {
    pub bindings: Bindings,
    pub outputs: Vec<Expr>,
}

/// A directional derivative of straight-line code (a recursion's δq̈, a residual's δg) from bindings
/// of its own, which read `primal` — the code's quantities and the functions of the state (sin q,
/// cos q) the derivatives evaluate, computed once per state, then passed to every direction — as
/// [`Role::Primal`] symbols.
pub struct Tangent {
    pub bound: Bound,
    pub primal: Vec<Expr>,
}

/// Reverse mode through straight-line `bindings`: the gradient of `output` over the symbols `wrt`.
/// Each quantity's adjoint (the sum of what its uses add to it) is bound by `rec` once every use has
/// been visited, walking the bindings from the last; the code is linear in theirs.
pub(crate) fn reverse(rec: &mut Builder<'_>, bindings: &Bindings, output: Expr, wrt: &[Expr]) -> Vec<Expr> {
    let wanted: FxHashSet<Expr> = bindings.iter().map(|&(s, _)| s).chain(wrt.iter().copied()).collect();
    let mut adjoint: FxHashMap<Expr, Vec<Expr>> = FxHashMap::default();
    let add = |arena: &mut Arena, adjoint: &mut FxHashMap<Expr, Vec<Expr>>, e: Expr, bar: Expr| {
        for x in arena.free_symbols(e) {
            if wanted.contains(&x) {
                let d = arena.diff(e, x);
                if d != arena.zero() {
                    let term = arena.mul2(bar, d);
                    adjoint.entry(x).or_default().push(term);
                }
            }
        }
    };
    let one = rec.arena.one();
    add(rec.arena, &mut adjoint, output, one);
    for &(s, e) in bindings.iter().rev() {
        let Some(terms) = adjoint.remove(&s) else { continue };
        let sum = rec.arena.add(&terms);
        let bar = rec.bind(sum);
        if bar != rec.arena.zero() {
            add(rec.arena, &mut adjoint, e, bar);
        }
    }
    let zero = rec.arena.zero();
    wrt.iter().map(|x| adjoint.get(x).map_or(zero, |terms| rec.arena.add(terms))).collect()
}

/// The directional derivative of `outputs` of straight-line `bindings` along a tangent δx of the
/// state (the tree recursion's `dynamics::tangent`, a residual's), its temporaries numbered from `offset`.
pub(crate) fn tangent_of(model: &Model, arena: &mut Arena, bindings: &Bindings, outputs: &[Expr], offset: usize) -> Tangent {
    tangent_hoisting(model, arena, bindings, outputs, offset, Hoist::Calls)
}

/// What a tangent computes once per state, with its primal quantities, instead of once per
/// direction.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Hoist {
    /// The functions of the state (sin q, cos q) its derivatives evaluate: enough where the primal
    /// is straight-line code whose quantities the derivatives read (a recursion).
    Calls,
    /// Every subexpression of the state alone (outermost): for expressions with no bindings (a
    /// residual), whose derivative along δx is otherwise mostly products of the state's functions
    /// recomputed per direction.
    StateParts,
}

/// [`tangent_of`] with what it computes once per state chosen by `hoist`.
pub(crate) fn tangent_hoisting(
    model: &Model,
    arena: &mut Arena,
    bindings: &Bindings,
    outputs: &[Expr],
    offset: usize,
    hoist: Hoist,
) -> Tangent {
    let syms = &model.layout;
    // δx = (δq, δv) over the state's P positions and n velocities; an orientation's held |q|²
    // moves with its quaternion, δ|q|² = 2 q·δq.
    let (p, n) = (syms.position_dim(), model.dof());
    let mut dot: FxHashMap<Expr, Expr> = FxHashMap::default();
    for i in 0..p {
        let dq = syms.symbol(arena, Role::Tangent(i));
        dot.insert(syms.q[i], dq);
    }
    for i in 0..n {
        let dv = syms.symbol(arena, Role::Tangent(p + i));
        dot.insert(syms.qd[i], dv);
    }
    let tangents: FxHashSet<Expr> = dot.values().copied().collect();
    let two = arena.int(2);
    for o in &syms.orientations {
        let terms: Vec<Expr> = (o.q_start..o.q_start + 4).map(|i| arena.mul(&[two, syms.q[i], dot[&syms.q[i]]])).collect();
        dot.insert(o.norm2, arena.add(&terms));
    }
    let mut rec = Builder { arena, syms, bindings: Vec::new(), offset };
    let outputs = forward(&mut rec, bindings, outputs, dot);
    let r_bindings = bindings;
    // The recursion's quantities the derivatives read, as inputs.
    let position: FxHashMap<Expr, usize> = r_bindings.iter().enumerate().map(|(k, &(s, _))| (s, k)).collect();
    let mut primal: Vec<Expr> = Vec::new();
    let mut seen: FxHashSet<Expr> = FxHashSet::default();
    let derivatives: Vec<Expr> = rec.bindings.iter().map(|&(_, e)| e).chain(outputs.iter().copied()).collect();
    for &e in &derivatives {
        for s in rec.arena.free_symbols(e) {
            if position.contains_key(&s) && seen.insert(s) {
                primal.push(s);
            }
        }
    }
    primal.sort_unstable_by_key(|s| position[s]);
    // Inputs too: the functions of the state the derivatives evaluate (the sines and cosines of the
    // coordinates in S'(q) dq), computed once with the quantities instead of once per direction.
    let mut memo: FxHashMap<Expr, bool> = FxHashMap::default();
    let calls_of: Vec<Vec<Expr>> = derivatives.iter().map(|&e| state_parts(rec.arena, e, &tangents, hoist, &mut memo)).collect();
    let mut seen_calls: FxHashSet<Expr> = FxHashSet::default();
    primal.extend(calls_of.iter().flatten().copied().filter(|&c| seen_calls.insert(c)).collect::<Vec<_>>());
    let input: FxHashMap<Expr, Expr> =
        primal.iter().enumerate().map(|(k, &s)| (s, syms.symbol(rec.arena, Role::Primal(k)))).collect();
    // Each expression with the inputs it reads (a substitution builds its table: per expression,
    // only its own symbols and calls, so that the whole is linear).
    let read = |arena: &mut Arena, e: Expr, calls: &[Expr]| {
        let mut own: Vec<(Expr, Expr)> =
            arena.free_symbols(e).into_iter().filter_map(|s| input.get(&s).map(|&p| (s, p))).collect();
        own.extend(calls.iter().map(|c| (*c, input[c])));
        if own.is_empty() { e } else { arena.subs(e, &own) }
    };
    let k = rec.bindings.len();
    let bindings = rec.bindings.iter().zip(&calls_of).map(|(&(s, e), calls)| (s, read(rec.arena, e, calls))).collect();
    let outputs = outputs.iter().zip(&calls_of[k..]).map(|(&e, calls)| read(rec.arena, e, calls)).collect();
    Tangent { bound: Bound { bindings, outputs }, primal }
}

/// The parts of `e` that read no symbol of `tangents` (outermost first, each once, in the order a
/// walk of `e` meets them): its function calls, or with [`Hoist::StateParts`] every such
/// subexpression but a leaf. `memo` keeps, across calls, whether a node reads a tangent.
fn state_parts(arena: &Arena, e: Expr, tangents: &FxHashSet<Expr>, hoist: Hoist, memo: &mut FxHashMap<Expr, bool>) -> Vec<Expr> {
    let mut parts = Vec::new();
    let mut seen: FxHashSet<Expr> = FxHashSet::default();
    let mut stack = vec![e];
    while let Some(x) = stack.pop() {
        if !seen.insert(x) {
            continue;
        }
        let node = arena.node(x);
        if node.is_leaf() {
            continue;
        }
        let hoisted = match hoist {
            Hoist::Calls => matches!(node, Node::Call(..)),
            Hoist::StateParts => true,
        };
        if hoisted && !reads_tangent(arena, x, tangents, memo) {
            parts.push(x);
            continue;
        }
        let mut kids = Vec::new();
        node.for_each_child(|c| kids.push(c));
        stack.extend(kids.into_iter().rev());
    }
    parts
}

/// Whether `e` reads a symbol of `tangents` (memoised per node in `memo`; one pass over `e`'s DAG,
/// children before parents).
fn reads_tangent(arena: &Arena, e: Expr, tangents: &FxHashSet<Expr>, memo: &mut FxHashMap<Expr, bool>) -> bool {
    let mut stack = vec![(e, false)];
    while let Some((x, expanded)) = stack.pop() {
        if memo.contains_key(&x) {
            continue;
        }
        let node = arena.node(x);
        if node.is_leaf() {
            memo.insert(x, tangents.contains(&x));
            continue;
        }
        if expanded {
            let mut reads = false;
            node.for_each_child(|c| reads |= memo[&c]);
            memo.insert(x, reads);
        } else {
            stack.push((x, true));
            node.for_each_child(|c| {
                if !memo.contains_key(&c) {
                    stack.push((c, false));
                }
            });
        }
    }
    memo[&e]
}

/// Forward mode through straight-line `bindings`: each quantity's derivative, given the
/// derivatives `dot` of the symbols it starts from, bound by `rec` (a temporary of its own); the
/// derivatives of `outputs`.
pub(crate) fn forward(rec: &mut Builder<'_>, bindings: &Bindings, outputs: &[Expr], mut dot: FxHashMap<Expr, Expr>) -> Vec<Expr> {
    for &(s, e) in bindings {
        let seeds: Vec<(Expr, Expr)> =
            rec.arena.free_symbols(e).into_iter().filter_map(|x| dot.get(&x).map(|&d| (x, d))).collect();
        let de = if seeds.is_empty() { rec.arena.zero() } else { rec.arena.directional(e, &seeds) };
        let ds = rec.bind(de);
        if ds != rec.arena.zero() {
            dot.insert(s, ds);
        }
    }
    outputs
        .iter()
        .map(|&a| match dot.get(&a) {
            Some(&d) => d,
            // An output that is no binding of its own (a leaf, or an expression of the state).
            None => {
                let seeds: Vec<(Expr, Expr)> =
                    rec.arena.free_symbols(a).into_iter().filter_map(|x| dot.get(&x).map(|&d| (x, d))).collect();
                if seeds.is_empty() { rec.arena.zero() } else { rec.arena.directional(a, &seeds) }
            }
        })
        .collect()
}

/// Binds the recursion's quantities to symbols of their own.
pub(crate) struct Builder<'a> {
    pub(crate) arena: &'a mut Arena,
    pub(crate) syms: &'a Layout,
    pub(crate) bindings: Bindings,
    /// Temporaries are numbered from here on (after another builder's).
    pub(crate) offset: usize,
}

impl Builder<'_> {
    /// `e` as a symbol bound to it (a leaf — a symbol or a number — as itself).
    pub(crate) fn bind(&mut self, e: Expr) -> Expr {
        if self.arena.node(e).is_leaf() {
            return e;
        }
        let s = self.syms.symbol(self.arena, Role::Temporary(self.offset + self.bindings.len()));
        self.bindings.push((s, e));
        s
    }
}
