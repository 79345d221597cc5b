//! Common-subexpression elimination and emission of straight-line Rust (`f64`) code.
//!
//! CSE is free thanks to hash-consing: equal subexpressions already are one node. A node is
//! *used* once per parent edge among the nodes reachable from the outputs, plus once per
//! appearance in the output list. Every non-leaf node used more than once becomes a temporary
//! `let <prefix><k>: f64 = …;`; single-use nodes are inlined. Temporaries are created in
//! post-order of a depth-first walk over the outputs (in order), so each is defined before use
//! and the numbering depends only on the DAG — never on hash-map iteration or addresses.
//!
//! Expression shapes emitted:
//! * sums with negative-coefficient terms as subtraction: `a - 2.0_f64 * b`;
//! * products gather negative powers into one division: `a * b / (c * d)`; coefficients ±1
//!   are not multiplied;
//! * `x^n` → `x.powi(n)` (`x * x` for `n = 2` when `x` is a symbol or temporary), `x^−n` →
//!   `1.0_f64 / …`, `x^(1/2)` → `x.sqrt()`, other exponents → `x.powf(y)`;
//! * functions as methods: `x.sin()`, `y.atan2(x)`;
//! * rationals as `f64` literals (`{:?}` of the value with an `_f64` suffix).
//! * sums whose terms share factors as `c * (a + b)` (the content taken out of the canonical,
//!   expanded sum), and a cofactor sum that occurs in several places as one more temporary;
//! * a sum that is another computed sum plus one term as that sum's temporary plus the term: the
//!   canonical form flattens nested sums, so the velocities Σ_{j≤k} lⱼ cos qⱼ q̇ⱼ of a chain's links
//!   would cost O(k) additions each; as prefix sums they cost one.
//!
//! Parentheses are inserted only where precedence requires them (never around a whole `let`
//! right-hand side, which would trigger `unused_parens`).

use crate::arena::{Arena, Expr, Func, Node};
use crate::rational::Rational;
use proc_macro2::{Delimiter, Group, Ident, Literal, Punct, Spacing, Span, TokenStream, TokenTree};
use quote::quote;
use rustc_hash::FxHashMap;

/// Straight-line code computing a list of outputs.
#[derive(Clone, Debug)]
pub struct Emitted {
    /// `let` statements defining the temporaries, in dependency order.
    pub statements: Vec<TokenStream>,
    /// One expression per requested output (may refer to the temporaries).
    pub outputs: Vec<TokenStream>,
    /// Arithmetic operations in the emitted code.
    pub ops: OpCount,
    /// Per output, whether the statements already store its value in the place asked for it
    /// ([`emit_slots_placed`]); always `false` elsewhere.
    pub placed: Vec<bool>,
    /// The temporaries the statements define (the slots of a scratch array: `<array>[k]` for
    /// k below this), one per statement except where a statement defines several (the sines and
    /// cosines of [`EmitOptions::sin_cos`]) or stores an output in its place (none).
    pub temporaries: usize,
    /// Every expression whose value a temporary holds once the statements have run, with that
    /// temporary's name (in the order of the expressions' nodes): what later code may read
    /// instead of computing it again ([`emit_slots_after`]).
    pub named: Vec<(Expr, TokenStream)>,
}

/// Operation counts of emitted code.
#[derive(Default, Clone, Copy, Debug, PartialEq, Eq)]
pub struct OpCount {
    /// Additions, subtractions and negations.
    pub adds: usize,
    /// Multiplications.
    pub muls: usize,
    /// Divisions.
    pub divs: usize,
    /// Method calls: `sin`, `cos`, `powi`, `sqrt`, `powf`, …
    pub calls: usize,
}

impl OpCount {
    /// Total number of operations.
    pub fn total(&self) -> usize {
        self.adds + self.muls + self.divs + self.calls
    }
}

/// Binding strength of an emitted fragment's top-level operator.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
enum Prec {
    /// `a + b`, `a - b`
    Add,
    /// `a * b`, `a / b`
    Mul,
    /// `-a`
    Unary,
    /// identifiers, literals, method calls, parenthesised groups
    Atom,
}

struct Frag {
    ts: TokenStream,
    prec: Prec,
}

impl Frag {
    fn atom(ts: TokenStream) -> Frag {
        Frag { ts, prec: Prec::Atom }
    }

    /// The tokens, parenthesised if they bind looser than `min`.
    fn at_least(self, min: Prec) -> TokenStream {
        if self.prec < min { TokenStream::from(TokenTree::Group(Group::new(Delimiter::Parenthesis, self.ts))) } else { self.ts }
    }
}

fn punct(c: char) -> TokenTree {
    TokenTree::Punct(Punct::new(c, Spacing::Alone))
}

/// `v` (≥ 0) as an `f64` literal, e.g. `0.5_f64`.
fn f64_lit(v: f64) -> TokenStream {
    let lit = format!("{v:?}_f64").parse::<Literal>().unwrap_or_else(|_| Literal::f64_suffixed(v));
    TokenStream::from(TokenTree::Literal(lit))
}

/// Emits straight-line code for `outputs` (see the module documentation). `symbol` gives the
/// tokens of a symbol; temporaries are named `<prefix>0`, `<prefix>1`, … (`prefix` must start an
/// identifier; an empty prefix is replaced by `__cse`).
pub fn emit(arena: &Arena, outputs: &[Expr], symbol: &dyn Fn(Expr) -> TokenStream, prefix: &str) -> Emitted {
    emit_bound(arena, &[], outputs, symbol, prefix)
}

/// Like [`emit`], with `bindings`: symbols that stand for expressions, `(s, e)` meaning s = e, each
/// `e` in symbols of earlier bindings only (dependency order). Each binding becomes a temporary,
/// defined in the order given before the outputs, and its symbol reads it. A recursion whose
/// quantities build on one another (an articulated-body pass) stays linear in size this way: its
/// expressions are never substituted into each other, where the canonical form would flatten the
/// nested sums.
pub fn emit_bound(
    arena: &Arena,
    bindings: &[(Expr, Expr)],
    outputs: &[Expr],
    symbol: &dyn Fn(Expr) -> TokenStream,
    prefix: &str,
) -> Emitted {
    emit_bound_with(arena, bindings, outputs, symbol, prefix, &EmitOptions::default())
}

/// Like [`emit`], but temporaries live in a scratch array: statement k is `<array>[k] = …;` and
/// uses read `<array>[k]`. The caller declares `let mut <array> = [0.0_f64; N]` with
/// `N = statements.len()`. This lets a very long computation be cut into several functions that
/// share one array — each function small enough for rustc, with no common subexpression lost.
/// Every output that is not a symbol or a number is computed into a slot of its own, so the outputs
/// are plain reads.
pub fn emit_slots(arena: &Arena, outputs: &[Expr], symbol: &dyn Fn(Expr) -> TokenStream, array: &str) -> Emitted {
    emit_slots_bound(arena, &[], outputs, symbol, array)
}

/// [`emit_slots`] with bindings (see [`emit_bound`]).
pub fn emit_slots_bound(
    arena: &Arena,
    bindings: &[(Expr, Expr)],
    outputs: &[Expr],
    symbol: &dyn Fn(Expr) -> TokenStream,
    array: &str,
) -> Emitted {
    emit_slots_placed_with(arena, bindings, outputs, &[], symbol, array, &EmitOptions::default())
}

/// [`emit_slots_bound`] where outputs may have a *place* of their own, an assignable expression
/// (`places[o]`, e.g. `m[(3, 2)]` for an entry of a matrix the caller passes to the statements):
/// an output computed by the statements is stored there instead of in a slot of the array, and
/// later statements that need it read it there. The caller then has no copy to make: `placed[o]`
/// says which outputs are in their place; the others (a symbol, a number, or the same expression
/// as an earlier output with a place) are left to the caller, as `outputs[o]`.
pub fn emit_slots_placed(
    arena: &Arena,
    bindings: &[(Expr, Expr)],
    outputs: &[Expr],
    places: &[Option<TokenStream>],
    symbol: &dyn Fn(Expr) -> TokenStream,
    array: &str,
) -> Emitted {
    emit_slots_placed_with(arena, bindings, outputs, places, symbol, array, &EmitOptions::default())
}

/// Options of [`emit_bound_with`] and [`emit_slots_placed_with`].
#[derive(Clone, Debug, Default)]
pub struct EmitOptions {
    /// The path of a function `fn([f64; K]) -> ([f64; K], [f64; K])` returning the sines and the
    /// cosines of K angles: where set, the sines and cosines of symbols (the unbound ones: a
    /// model's angles) are computed together by one call of it, the first statement, for every
    /// symbol whose sine or cosine the outputs need (when there are two such symbols or more);
    /// other sines and cosines stay `x.sin()` and `x.cos()`.
    pub sin_cos: Option<TokenStream>,
}

/// [`emit_bound`] with `options`.
pub fn emit_bound_with(
    arena: &Arena,
    bindings: &[(Expr, Expr)],
    outputs: &[Expr],
    symbol: &dyn Fn(Expr) -> TokenStream,
    prefix: &str,
    options: &EmitOptions,
) -> Emitted {
    let prefix = if prefix.is_empty() { "__cse" } else { prefix };
    emit_with(arena, bindings, outputs, symbol, Temps::Let(prefix), &[], options, &[])
}

/// [`emit_slots_placed`] with bindings (see [`emit_bound`]) and `options`.
pub fn emit_slots_placed_with(
    arena: &Arena,
    bindings: &[(Expr, Expr)],
    outputs: &[Expr],
    places: &[Option<TokenStream>],
    symbol: &dyn Fn(Expr) -> TokenStream,
    array: &str,
    options: &EmitOptions,
) -> Emitted {
    emit_with(arena, bindings, outputs, symbol, Temps::Slots(Ident::new(array, Span::call_site())), places, options, &[])
}

/// [`emit_slots_placed_with`] (no bindings, no places) after earlier statements: each expression of
/// `computed` is read through the name beside it (an earlier computation's temporary, from its
/// [`Emitted::named`]) rather than computed — what it alone reaches is not emitted, and it counts as
/// ready at once in the order of sums. The rest is emitted as `emit_slots_placed_with` would,
/// its own temporaries `<array>[k]` from k = 0.
pub fn emit_slots_after(
    arena: &Arena,
    outputs: &[Expr],
    computed: &[(Expr, TokenStream)],
    symbol: &dyn Fn(Expr) -> TokenStream,
    array: &str,
    options: &EmitOptions,
) -> Emitted {
    let temps = Temps::Slots(Ident::new(array, Span::call_site()));
    emit_with(arena, &[], outputs, symbol, temps, &[], options, computed)
}

/// Where temporaries are stored.
enum Temps<'a> {
    /// `let <prefix><k>: f64 = …;`
    Let(&'a str),
    /// `<array>[k] = …;`
    Slots(Ident),
}

/// The emission of `outputs`, after statements that computed `computed` (see
/// [`emit_slots_after`]; empty everywhere else).
#[allow(clippy::too_many_arguments)]
fn emit_with(
    arena: &Arena,
    bindings: &[(Expr, Expr)],
    outputs: &[Expr],
    symbol: &dyn Fn(Expr) -> TokenStream,
    temps_style: Temps<'_>,
    places: &[Option<TokenStream>],
    options: &EmitOptions,
    computed: &[(Expr, TokenStream)],
) -> Emitted {
    let bindings = &live_bindings(arena, bindings, outputs);
    let roots: Vec<Expr> = outputs.iter().copied().chain(bindings.iter().map(|b| b.1)).collect();
    // The nodes computed here: those the roots reach without passing through a computed one (a
    // computed node is read, not emitted: unmarked, its uses still counted by its parents).
    let marks = if computed.is_empty() {
        arena.reach_marks(&roots)
    } else {
        let known: rustc_hash::FxHashSet<Expr> = computed.iter().map(|c| c.0).collect();
        let n = roots.iter().map(|r| r.index() + 1).max().unwrap_or(0);
        let mut marks = vec![false; n];
        let mut stack: Vec<Expr> = roots.iter().copied().filter(|r| !known.contains(r)).collect();
        for &r in &stack {
            marks[r.index()] = true;
        }
        while let Some(e) = stack.pop() {
            arena.nodes[e.index()].for_each_child(|c| {
                if !marks[c.index()] && !known.contains(&c) {
                    marks[c.index()] = true;
                    stack.push(c);
                }
            });
        }
        marks
    };
    let mut uses = vec![0u32; marks.len()];
    for (i, _) in marks.iter().enumerate().filter(|m| *m.1) {
        arena.nodes[i].for_each_child(|c| uses[c.index()] += 1);
    }
    // Every binding is a temporary of its own.
    for &(_, e) in bindings {
        uses[e.index()] += 2;
    }
    // In a scratch array every computed output is a slot too (counted as used twice), so that the
    // long computation is all in the statements and the caller only reads the slots.
    let output_uses = if matches!(temps_style, Temps::Slots(_)) { 2 } else { 1 };
    for o in outputs {
        uses[o.index()] += output_uses;
    }
    // Sums that are a reachable sum plus one term: A = B + t. The edge A → B replaces A's edges to
    // B's terms (so B becomes a temporary, and those terms lose a use). Each reachable sum is
    // indexed by the XOR of its terms' hashes, so that B = A − t is looked up for each t of A in
    // constant time (a chain's flat sums would otherwise cost their size squared each).
    let mix = |e: Expr| {
        let mut z = u64::from(e.0).wrapping_add(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    };
    let mut sums_by_hash: FxHashMap<u64, Vec<Expr>> = FxHashMap::default();
    let mut hash_of: FxHashMap<Expr, u64> = FxHashMap::default();
    for (i, _) in marks.iter().enumerate().filter(|m| *m.1) {
        let Node::Add(terms) = &arena.nodes[i] else { continue };
        let h = terms.iter().fold(0, |h, &t| h ^ mix(t));
        sums_by_hash.entry(h).or_default().push(Expr(i as u32));
        hash_of.insert(Expr(i as u32), h);
    }
    let mut extensions: FxHashMap<Expr, (Expr, Expr)> = FxHashMap::default();
    for (i, _) in marks.iter().enumerate().filter(|m| *m.1) {
        let Node::Add(terms) = &arena.nodes[i] else { continue };
        if terms.len() < 3 {
            continue;
        }
        let h = hash_of[&Expr(i as u32)];
        for (k, &t) in terms.iter().enumerate() {
            let Some(candidates) = sums_by_hash.get(&(h ^ mix(t))) else { continue };
            let is_rest = |b: &Expr| match &arena.nodes[b.index()] {
                Node::Add(bs) => {
                    bs.len() + 1 == terms.len()
                        && bs.iter().zip(terms.iter().enumerate().filter(|&(j, _)| j != k)).all(|(x, (_, y))| x == y)
                }
                _ => false,
            };
            let Some(&b) = candidates.iter().find(|b| is_rest(b)) else { continue };
            for (j, &x) in terms.iter().enumerate() {
                if j != k {
                    uses[x.index()] = uses[x.index()].saturating_sub(1);
                }
            }
            uses[b.index()] += 1;
            extensions.insert(Expr(i as u32), (b, t));
            break;
        }
    }
    let mut em = Emitter {
        arena,
        symbol,
        style: temps_style,
        uses,
        temps: FxHashMap::default(),
        statements: Vec::new(),
        ops: OpCount::default(),
        splits: FxHashMap::default(),
        cofactors: FxHashMap::default(),
        extensions,
        next_temp: 0,
        bound: bindings.iter().copied().collect(),
        places: FxHashMap::default(),
        scaled: FxHashMap::default(),
        absorbed: FxHashMap::default(),
        batched: FxHashMap::default(),
        computed: computed.iter().map(|c| c.0).collect(),
        ready: vec![u32::MAX; marks.len()],
    };
    for &(sym, e) in bindings {
        let r = em.readiness(e);
        if let Some(slot) = em.ready.get_mut(sym.index()) {
            *slot = r;
        }
    }
    // Each computed node read by its name, ready at once.
    for (e, name) in computed {
        em.batched.insert(*e, name.clone());
        if let Some(slot) = em.ready.get_mut(e.index()) {
            *slot = 0;
        }
    }
    // How often each factor appears beside each coefficient (see `Emitter::scaled_factor`).
    for (i, _) in marks.iter().enumerate().filter(|m| *m.1) {
        let Node::Mul(fs) = &arena.nodes[i] else { continue };
        let Some(c) = arena.as_num(fs[0]).and_then(|r| r.checked_abs()).filter(|c| !c.is_one()) else { continue };
        for &f in &fs[1..] {
            if em.pairable(f) {
                em.scaled.entry((c, f)).or_insert((0, None)).0 += 1;
            }
        }
    }
    // Each computed output with a place owns it (the first such output, if several are equal).
    let mut owner: FxHashMap<Expr, usize> = FxHashMap::default();
    for (o, (&e, place)) in outputs.iter().zip(places).enumerate() {
        if let Some(place) = place
            && em.is_temp(e)
            && !owner.contains_key(&e)
        {
            owner.insert(e, o);
            em.places.insert(e, place.clone());
        }
    }
    // Every sum's common factors, found once; the cofactor sums that occur more than once become
    // temporaries too (see `Emitter::factored_sum`): Σ_{k≥j} mₖ of a chain's mass matrix is
    // computed once per j.
    for (i, _) in marks.iter().enumerate().filter(|m| *m.1) {
        if let Node::Add(terms) = &arena.nodes[i]
            && !em.extensions.contains_key(&Expr(i as u32))
            && let Some((common, cofactor)) = em.split_common(terms)
        {
            em.cofactors.entry(cofactor.clone()).or_insert((0, None)).0 += 1;
            em.splits.insert(Expr(i as u32), (common, cofactor));
        }
    }
    em.absorbed = absorbed_contents(&em, &marks);
    if let Some(path) = &options.sin_cos {
        em.sines_and_cosines(path, &marks);
    }
    // The bindings in their order (each needs only earlier ones), then the outputs.
    for &(_, e) in bindings {
        em.expr(e);
    }
    let placed = (0..outputs.len()).map(|o| owner.get(&outputs[o]) == Some(&o)).collect();
    let outputs = outputs.iter().map(|&o| em.expr(o).ts).collect();
    // (A sum emitted times a coefficient of its own holds that multiple, not its value.)
    let mut named: Vec<(Expr, TokenStream)> =
        em.temps.iter().filter(|(e, _)| !em.absorbed.contains_key(e)).map(|(&e, name)| (e, name.clone())).collect();
    named.extend(em.batched.iter().filter(|(e, _)| !em.computed.contains(e)).map(|(&e, name)| (e, name.clone())));
    named.sort_by_key(|(e, _)| e.index());
    let statements = match em.style {
        Temps::Let(_) if em.statements.len() > GROUPED_ABOVE => grouped_lets(em.statements),
        _ => em.statements.into_iter().map(Statement::tokens).collect(),
    };
    Emitted { statements, outputs, ops: em.ops, placed, temporaries: em.next_temp, named }
}

/// The angles the runtime's `sin_cos` reduces together, a block of SIMD lanes: the batch takes an
/// angle that is not an input symbol (q + c) only where its last block has room.
const SIN_COS_LANES: usize = 4;

/// Above this many `let` statements a body's temporaries are declared in groups
/// ([`grouped_lets`]).
const GROUPED_ABOVE: usize = 512;

/// Temporaries declared together, at most this many to a `let` ([`declared_f64`]).
pub const LET_GROUP: usize = 128;

/// `let (a, b, …): (f64, f64, …);` — the f64 temporaries `names` declared in one `let`, each
/// assigned later (at most [`LET_GROUP`] of them to a declaration, as long bodies declare theirs).
pub fn declared_f64<T: quote::ToTokens>(names: &[T]) -> TokenStream {
    let types = names.iter().map(|_| quote!(f64));
    quote! { let (#(#names,)*): (#(#types,)*); }
}

/// Long straight-line code with its temporaries declared [`LET_GROUP`] to a `let` and assigned
/// where they were defined: `let (t0, t1, …): (f64, f64, …);` then `t0 = …; t1 = …;`. Each `let`
/// opens a lexical scope inside the previous one, and LLVM's debug information walks those scopes
/// recursively: a function of twelve thousand `let`s overflowed rustc's stack with line tables
/// on, where one of a hundred grouped declarations builds as a short one does (the same code
/// once optimised: each temporary is still assigned once).
fn grouped_lets(statements: Vec<Statement>) -> Vec<TokenStream> {
    let mut out = Vec::with_capacity(statements.len() + statements.len() / LET_GROUP + 1);
    for chunk in statements.chunks(LET_GROUP) {
        let names: Vec<&TokenStream> = chunk
            .iter()
            .filter_map(|s| match s {
                Statement::Let(name, _) => Some(name),
                Statement::Raw(_) => None,
            })
            .collect();
        if !names.is_empty() {
            out.push(declared_f64(&names));
        }
        out.extend(chunk.iter().map(|s| match s {
            Statement::Let(name, rhs) => quote! { #name = #rhs; },
            Statement::Raw(statement) => statement.clone(),
        }));
    }
    out
}

/// An emitted statement: a temporary's `let` (its name and value), or any other as it is.
enum Statement {
    Let(TokenStream, TokenStream),
    Raw(TokenStream),
}

impl Statement {
    /// The statement as written where its temporaries are not grouped.
    fn tokens(self) -> TokenStream {
        match self {
            Statement::Let(name, rhs) => quote! { let #name: f64 = #rhs; },
            Statement::Raw(statement) => statement,
        }
    }
}

struct Emitter<'a> {
    arena: &'a Arena,
    symbol: &'a dyn Fn(Expr) -> TokenStream,
    style: Temps<'a>,
    uses: Vec<u32>,
    temps: FxHashMap<Expr, TokenStream>,
    statements: Vec<Statement>,
    ops: OpCount,
    /// The sums with factors common to all their terms: those factors and the cofactor sum.
    splits: FxHashMap<Expr, (Vec<Expr>, Cofactor)>,
    /// Cofactor sums of factored sums: how often each occurs, and its temporary once emitted.
    cofactors: FxHashMap<Cofactor, (u32, Option<TokenStream>)>,
    /// Sums emitted as another sum plus one term: (that sum, the term).
    extensions: FxHashMap<Expr, (Expr, Expr)>,
    /// The number of the next temporary.
    next_temp: usize,
    /// Symbols standing for expressions (see [`emit_bound`]).
    bound: FxHashMap<Expr, Expr>,
    /// Outputs stored in places of their own (see [`emit_slots_placed`]).
    places: FxHashMap<Expr, TokenStream>,
    /// Products of a coefficient and one factor, `c * a`, shared by the products they occur in:
    /// how many products hold them, and the temporary once emitted.
    scaled: FxHashMap<(Rational, Expr), (u32, Option<TokenStream>)>,
    /// Sums emitted times a coefficient k of theirs (see [`absorbed_contents`]).
    absorbed: FxHashMap<Expr, Rational>,
    /// Sines and cosines computed together (see [`EmitOptions::sin_cos`]): their names; and the
    /// nodes computed before ([`emit_slots_after`]), theirs.
    batched: FxHashMap<Expr, TokenStream>,
    /// The nodes computed before ([`emit_slots_after`]): a name each, never looked into.
    computed: rustc_hash::FxHashSet<Expr>,
    /// Each reachable node's readiness (see [`Emitter::readiness`]), `u32::MAX` until known.
    ready: Vec<u32>,
}

/// The bindings the outputs need, directly or through later bindings, in their order: a pass
/// that binds more than a caller reads (the velocities of a recursion whose caller wants only the
/// pivots) costs no statement, and its unread temporaries do not count as uses of what they read.
fn live_bindings(arena: &Arena, bindings: &[(Expr, Expr)], outputs: &[Expr]) -> Vec<(Expr, Expr)> {
    let n = outputs.iter().chain(bindings.iter().flat_map(|(s, e)| [s, e])).map(|e| e.index() + 1).max().unwrap_or(0);
    let mut mark = vec![false; n];
    for &o in outputs {
        arena.mark_reachable(o, &mut mark);
    }
    // Each binding's value reads earlier bindings only: from the last back, a binding is live
    // once a live value or an output reads its symbol.
    let mut live = vec![false; bindings.len()];
    for (k, &(s, e)) in bindings.iter().enumerate().rev() {
        if mark[s.index()] {
            live[k] = true;
            arena.mark_reachable(e, &mut mark);
        }
    }
    bindings.iter().zip(live).filter_map(|(&b, l)| l.then_some(b)).collect()
}

/// The sums whose every use is as a factor of a product with the same coefficient magnitude
/// k ≠ 1: each is emitted as k times itself (its terms' coefficients multiplied by k), and its
/// products with coefficient ±1. The canonical form keeps a sum's rational content outside it
/// (`1e-6 * (1000000 * a - 3495 * b)` for `a - 0.003495 * b` under a product), which would cost
/// a multiplication per term and per use; this gives the sum back as written. A sum that is a
/// factor common to a factored sum's terms, the base of a prefix sum or one itself, or one of
/// two such sums in one product (their k would both divide its coefficient) is left as it is.
fn absorbed_contents(em: &Emitter<'_>, marks: &[bool]) -> FxHashMap<Expr, Rational> {
    let arena = em.arena;
    // A factor's sum: itself, or the value of the binding it names.
    let sum_of = |f: Expr| match arena.node(f) {
        Node::Add(_) => Some(f),
        Node::Sym(_) => em.bound.get(&f).copied().filter(|&v| matches!(arena.node(v), Node::Add(_))),
        _ => None,
    };
    // Each such factor's coefficient magnitudes, with how many products.
    let mut seen: FxHashMap<Expr, (Option<Rational>, u32)> = FxHashMap::default();
    let mut products: Vec<&[Expr]> = Vec::new();
    for (i, _) in marks.iter().enumerate().filter(|m| *m.1) {
        let Node::Mul(fs) = &arena.nodes[i] else { continue };
        let c = arena.as_num(fs[0]).and_then(|r| r.checked_abs()).unwrap_or(Rational::one());
        products.push(fs);
        for &f in fs.iter().filter(|&&f| sum_of(f).is_some()) {
            let entry = seen.entry(f).or_insert((Some(c), 0));
            if entry.0 != Some(c) {
                entry.0 = None;
            }
            entry.1 += 1;
        }
    }
    let common: rustc_hash::FxHashSet<Expr> = em.splits.values().flat_map(|(c, _)| c.iter().copied()).collect();
    let bases: rustc_hash::FxHashSet<Expr> = em.extensions.values().map(|&(b, _)| b).collect();
    let mut out: FxHashMap<Expr, Rational> = FxHashMap::default();
    for (f, (k, count)) in seen {
        // A sum computed before is read as it is ([`emit_slots_after`]).
        if em.computed.contains(&f) {
            continue;
        }
        let (Some(k), Some(v)) = (k.filter(|k| !k.is_one()), sum_of(f)) else { continue };
        let Node::Add(terms) = arena.node(v) else { continue };
        // Its only uses are these products (a binding's value: its symbol's, and the binding).
        let only = count == em.uses[f.index()] && (v == f || em.uses[v.index()] == 2);
        let plain = [f, v].iter().all(|e| {
            !common.contains(e)
                && !bases.contains(e)
                && !em.extensions.contains_key(e)
                && !em.splits.contains_key(e)
                && !em.places.contains_key(e)
        });
        // The terms' coefficients as they are and times k; fewer multiplications or as many
        // (the uses' k, multiplied at least once, is saved).
        let coefficients: Vec<(Rational, Option<Rational>)> = terms
            .iter()
            .map(|&t| match arena.node(t) {
                // A number: k times it, at no cost.
                Node::Num(r) => (Rational::one(), r.checked_mul(&k).map(|_| Rational::one())),
                Node::Mul(fs) => {
                    let c = arena.as_num(fs[0]).unwrap_or(Rational::one());
                    (c, c.checked_mul(&k))
                }
                _ => (Rational::one(), Some(k)),
            })
            .collect();
        let exact = coefficients.iter().all(|c| c.1.is_some());
        let scaled = |c: Rational| !c.is_one() && !c.is_minus_one();
        let before = coefficients.iter().filter(|c| scaled(c.0)).count();
        let after = coefficients.iter().filter(|c| c.1.is_some_and(scaled)).count();
        if only && plain && exact && after <= before {
            out.insert(f, k);
            out.insert(v, k);
        }
    }
    let drop = |out: &mut FxHashMap<Expr, Rational>, f: Expr| {
        out.remove(&f);
        if let Some(v) = sum_of(f) {
            out.remove(&v);
        }
    };
    for fs in products {
        let inside: Vec<Expr> = fs.iter().copied().filter(|f| out.contains_key(f)).collect();
        if inside.len() > 1 {
            for f in inside {
                drop(&mut out, f);
            }
        }
    }
    // Nor is a sum one of whose terms is a product with such a factor: its term's coefficient,
    // times the sum's k, is no longer that factor's.
    loop {
        let nested: Vec<Expr> = out
            .keys()
            .copied()
            .filter(|&v| match arena.node(v) {
                Node::Add(terms) => terms.iter().any(|&t| match arena.node(t) {
                    Node::Mul(fs) => fs.iter().any(|f| out.contains_key(f)),
                    _ => false,
                }),
                _ => false,
            })
            .collect();
        if nested.is_empty() {
            return out;
        }
        for v in nested {
            // The sum, and the factor that names it (its own node, or a bound symbol).
            let names: Vec<Expr> = out.keys().copied().filter(|&f| sum_of(f) == Some(v)).collect();
            for f in names {
                drop(&mut out, f);
            }
            out.remove(&v);
        }
    }
}

/// The terms (coefficient, factors) left in a sum once its common factors are taken out.
type Cofactor = Vec<(Rational, Vec<Expr>)>;

impl Emitter<'_> {
    fn is_temp(&self, e: Expr) -> bool {
        self.uses[e.index()] > 1 && !self.arena.node(e).is_leaf() || self.computed.contains(&e)
    }

    /// Emitted as a bare name (`x * x` is then cheap and clear).
    fn is_name(&self, e: Expr) -> bool {
        matches!(self.arena.node(e), Node::Sym(_)) || self.is_temp(e)
    }

    /// The one statement computing the sines and cosines of the reachable symbols together
    /// (`marks`; see [`EmitOptions::sin_cos`]), its values named as temporaries: in a scratch
    /// array a destructuring assignment `([a[k], _], [a[k + 1], a[k + 2]]) = path([x, y]);`, else
    /// `let ([t, _], [u, v]): ([f64; 2], [f64; 2]) = path([x, y]);` (`_` where a value is not
    /// needed). Symbols in order of their nodes, deterministic.
    fn sines_and_cosines(&mut self, path: &TokenStream, marks: &[bool]) {
        let arena = self.arena;
        // Per angle: its sine's node and its cosine's, where reachable, and the argument as written
        // with the additions it takes.
        type Angle = (Expr, [Option<Expr>; 2], (TokenStream, usize));
        let mut angles: Vec<Angle> = Vec::new();
        for (i, _) in marks.iter().enumerate().filter(|m| *m.1) {
            let Node::Call(f @ (Func::Sin | Func::Cos), xs) = &arena.nodes[i] else { continue };
            let [x] = xs[..] else { continue };
            let which = usize::from(*f == Func::Cos);
            match angles.iter_mut().find(|(y, ..)| *y == x) {
                Some((_, calls, _)) => calls[which] = Some(Expr(i as u32)),
                None => {
                    let Some(argument) = self.angle_argument(x) else { continue };
                    let mut calls = [None, None];
                    calls[which] = Some(Expr(i as u32));
                    angles.push((x, calls, argument));
                }
            }
        }
        // An angle q + c only into the last block's free lanes: a block more costs more than the
        // standard library's calls for the one or two it would take.
        let symbols = angles.iter().filter(|(.., (_, adds))| *adds == 0).count();
        let mut free = (SIN_COS_LANES - symbols % SIN_COS_LANES) % SIN_COS_LANES;
        angles.retain(|(.., (_, adds))| {
            *adds == 0 || {
                let fits = free > 0;
                free = free.saturating_sub(1);
                fits
            }
        });
        if angles.len() < 2 {
            return;
        }
        angles.sort_by_key(|(x, ..)| x.index());
        let k = angles.len();
        let mut halves: [Vec<TokenStream>; 2] = [Vec::new(), Vec::new()];
        for which in 0..2 {
            for (_, calls, _) in &angles {
                let name = match calls[which] {
                    Some(call) => {
                        let name = self.new_temp();
                        self.batched.insert(call, name.clone());
                        name
                    }
                    None => quote!(_),
                };
                halves[which].push(name);
            }
        }
        self.ops.adds += angles.iter().map(|(.., (_, adds))| adds).sum::<usize>();
        let args: Vec<TokenStream> = angles.iter().map(|(.., (argument, _))| argument.clone()).collect();
        let [sines, cosines] = halves;
        self.ops.calls += 1;
        self.statements.push(Statement::Raw(match &self.style {
            Temps::Let(_) => quote! { let ([#(#sines),*], [#(#cosines),*]): ([f64; #k], [f64; #k]) = #path([#(#args),*]); },
            Temps::Slots(_) => quote! { ([#(#sines),*], [#(#cosines),*]) = #path([#(#args),*]); },
        }));
    }

    /// The argument of a sine or cosine that [`Self::sines_and_cosines`] batches, as written there
    /// (before any statement), and the additions it takes: an input symbol, or one plus constants
    /// (a joint's angle q + c).
    fn angle_argument(&self, x: Expr) -> Option<(TokenStream, usize)> {
        let arena = self.arena;
        let input = |e: Expr| matches!(arena.node(e), Node::Sym(_)) && !self.bound.contains_key(&e);
        if input(x) {
            return Some(((self.symbol)(x), 0));
        }
        let Node::Add(terms) = arena.node(x) else { return None };
        let (symbols, constants): (Vec<Expr>, Vec<Expr>) = terms.iter().partition(|&&t| input(t));
        if symbols.len() != 1 || !constants.iter().all(|&c| matches!(arena.node(c), Node::Num(_))) {
            return None;
        }
        let symbol = (self.symbol)(symbols[0]);
        let mut ts = quote!(#symbol);
        for &c in &constants {
            let Node::Num(r) = arena.node(c) else { unreachable!("a constant") };
            let v = r.to_f64();
            let lit = f64_lit(v.abs());
            ts = if v < 0.0 { quote!(#ts - #lit) } else { quote!(#ts + #lit) };
        }
        Some((ts, constants.len()))
    }

    /// When `e`'s value is ready, counted in operations along its longest chain of dependent
    /// operations from the inputs (through the bindings: a bound symbol is ready when its value
    /// is; a call counts four, a power two). Sums add their terms least ready first, so that
    /// the last computed enters last: `a + b + late` waits for `late` one addition, where
    /// `late + a + b` waits two — along a recursion whose every link adds to the last link's
    /// quantities (a tree's composite inertias), the chain of dependent operations is what the
    /// processor waits on, and floating-point sums are not reassociated by the compiler.
    fn readiness(&mut self, e: Expr) -> u32 {
        let i = e.index();
        if let Some(&r) = self.ready.get(i).filter(|&&r| r != u32::MAX) {
            return r;
        }
        let node = self.arena.node(e);
        let r = match node {
            Node::Num(_) | Node::Pi => 0,
            // A bound symbol's readiness was set with its binding; an input is ready at once.
            Node::Sym(_) => 0,
            _ => {
                let mut deepest = 0;
                let mut children = Vec::new();
                node.for_each_child(|c| children.push(c));
                for c in children {
                    deepest = deepest.max(self.readiness(c));
                }
                deepest
                    + match node {
                        Node::Call(..) => 4,
                        Node::Pow(..) => 2,
                        _ => 1,
                    }
            }
        };
        if let Some(slot) = self.ready.get_mut(i) {
            *slot = r;
        }
        r
    }

    /// `terms` least ready first (stable: ties keep their order).
    fn by_readiness(&mut self, terms: &[Expr]) -> Vec<Expr> {
        let mut keyed: Vec<(u32, Expr)> = terms.iter().map(|&t| (self.readiness(t), t)).collect();
        keyed.sort_by_key(|&(r, _)| r);
        keyed.into_iter().map(|(_, t)| t).collect()
    }

    /// Fragment for `e`: a temporary's name (defining it on first need) or the inlined code.
    fn expr(&mut self, e: Expr) -> Frag {
        if let Some(name) = self.batched.get(&e) {
            return Frag::atom(name.clone());
        }
        if !self.is_temp(e) {
            return self.raw(e);
        }
        if let Some(name) = self.temps.get(&e) {
            return Frag::atom(name.clone());
        }
        let rhs = self.raw(e).ts;
        let name = match self.places.remove(&e) {
            Some(place) => {
                self.statements.push(Statement::Raw(quote! { #place = #rhs; }));
                place
            }
            None => self.define(rhs),
        };
        self.temps.insert(e, name.clone());
        Frag::atom(name)
    }

    /// The name of a new temporary: `<prefix>k` or `<array>[k]`.
    fn new_temp(&mut self) -> TokenStream {
        let k = self.next_temp;
        self.next_temp += 1;
        match &self.style {
            Temps::Let(prefix) => {
                let id = Ident::new(&format!("{prefix}{k}"), Span::call_site());
                quote!(#id)
            }
            Temps::Slots(array) => quote!(#array[#k]),
        }
    }

    /// A new temporary holding `rhs`; its name.
    fn define(&mut self, rhs: TokenStream) -> TokenStream {
        let name = self.new_temp();
        self.statements.push(match &self.style {
            Temps::Let(_) => Statement::Let(name.clone(), rhs),
            Temps::Slots(_) => Statement::Raw(quote! { #name = #rhs; }),
        });
        name
    }

    fn raw(&mut self, e: Expr) -> Frag {
        let arena = self.arena;
        match arena.node(e) {
            Node::Num(r) => {
                let v = r.to_f64();
                if v < 0.0 {
                    let mut ts = TokenStream::from(punct('-'));
                    ts.extend(f64_lit(-v));
                    Frag { ts, prec: Prec::Unary }
                } else {
                    Frag::atom(f64_lit(v))
                }
            }
            Node::Pi => Frag::atom(quote!(::core::f64::consts::PI)),
            Node::Sym(_) => match self.bound.get(&e) {
                Some(&value) => self.expr(value),
                None => Frag::atom((self.symbol)(e)),
            },
            Node::Add(ts) => self.sum(e, ts),
            Node::Mul(fs) => {
                let (neg, mag) = self.product(fs);
                if neg { self.negate(mag) } else { mag }
            }
            &Node::Pow(b, x) => self.power(b, x),
            Node::Call(f, xs) => self.call(*f, xs),
        }
    }

    /// `-mag`.
    fn negate(&mut self, mag: Frag) -> Frag {
        self.ops.adds += 1;
        let prec = if mag.prec == Prec::Mul { Prec::Mul } else { Prec::Unary };
        let mut ts = TokenStream::from(punct('-'));
        ts.extend(mag.at_least(Prec::Mul));
        Frag { ts, prec }
    }

    /// A term of a sum as (is negative, magnitude), so sums can use `-`.
    fn signed(&mut self, t: Expr) -> (bool, Frag) {
        if !self.is_temp(t) {
            match self.arena.node(t) {
                Node::Num(r) if r.is_negative() => return (true, Frag::atom(f64_lit(-r.to_f64()))),
                Node::Mul(fs) => return self.product(fs),
                _ => {}
            }
        }
        (false, self.expr(t))
    }

    fn sum(&mut self, e: Expr, terms: &[Expr]) -> Frag {
        if let Some(&(base, extra)) = self.extensions.get(&e) {
            let items = self.by_readiness(&[base, extra]).into_iter().map(|t| self.signed(t)).collect();
            return self.join_sum(items);
        }
        if let Some((common, cofactor)) = self.splits.get(&e).cloned() {
            return self.factored_sum(&common, &cofactor);
        }
        if let Some(&k) = self.absorbed.get(&e) {
            // k times the sum (see `absorbed_contents`), the coefficients multiplied exactly.
            let items: Vec<(bool, Frag)> = self
                .by_readiness(terms)
                .into_iter()
                .map(|t| {
                    let (c, fs) = self.term_factors(t);
                    let c = c.checked_mul(&k).expect("checked when the sum was chosen");
                    if fs.is_empty() {
                        let v = c.to_f64();
                        return (v < 0.0, Frag::atom(f64_lit(v.abs())));
                    }
                    self.product_of(c, &fs)
                })
                .collect();
            return self.join_sum(items);
        }
        let items: Vec<(bool, Frag)> = self.by_readiness(terms).into_iter().map(|t| self.signed(t)).collect();
        self.join_sum(items)
    }

    /// The coefficient and factors of a term as written inline: an inlined product's own, else
    /// the term itself (a temporary is one factor).
    fn term_factors(&self, t: Expr) -> (Rational, Vec<Expr>) {
        if !self.is_temp(t) {
            match self.arena.node(t) {
                Node::Num(r) => return (*r, Vec::new()),
                Node::Mul(fs) => {
                    return match self.arena.node(fs[0]) {
                        Node::Num(r) => (*r, fs[1..].to_vec()),
                        _ => (Rational::one(), fs.to_vec()),
                    };
                }
                _ => {}
            }
        }
        (Rational::one(), vec![t])
    }

    /// `c * (a + b)` for `c*a + c*b`: the factors common to every term are multiplied once. The
    /// canonical form is expanded (a mass matrix entry of a chain is Σₖ mₖ·w, n products where
    /// one does); this takes the content out at emission, exactly and deterministically.
    fn factored_sum(&mut self, common: &[Expr], cofactor: &Cofactor) -> Frag {
        let (count, name) = self.cofactors.get(cofactor).cloned().unwrap_or((1, None));
        let inner = match name {
            Some(name) => Frag::atom(name),
            None => {
                let items: Vec<(bool, Frag)> = cofactor.iter().map(|(c, r)| self.product_of(*c, r)).collect();
                let inner = self.join_sum(items);
                if count > 1 {
                    let name = self.define(inner.ts);
                    if let Some(entry) = self.cofactors.get_mut(cofactor) {
                        entry.1 = Some(name.clone());
                    }
                    Frag::atom(name)
                } else {
                    inner
                }
            }
        };
        let (_, outer) = self.product_of(Rational::one(), common);
        self.join_product(vec![outer, inner])
    }

    /// The factors common to every term of a sum (in the first term's order) and what is left of
    /// each term; `None` when nothing is common.
    fn split_common(&self, terms: &[Expr]) -> Option<(Vec<Expr>, Cofactor)> {
        if terms.len() < 2 {
            return None;
        }
        let lists: Vec<(Rational, Vec<Expr>)> = terms.iter().map(|&t| self.term_factors(t)).collect();
        let mut rests: Vec<Vec<Expr>> = lists.iter().map(|(_, f)| f.clone()).collect();
        let mut common = Vec::new();
        for &f in &lists[0].1 {
            if rests.iter().all(|r| r.contains(&f)) {
                for r in &mut rests {
                    if let Some(k) = r.iter().position(|&x| x == f) {
                        r.remove(k);
                    }
                }
                common.push(f);
            }
        }
        if common.is_empty() {
            return None;
        }
        Some((common, lists.iter().map(|(c, _)| *c).zip(rests).collect()))
    }

    /// Terms (sign, magnitude) joined with `+` and `-`, a positive term first where there is one.
    fn join_sum(&mut self, items: Vec<(bool, Frag)>) -> Frag {
        // A positive term first (no negation), unless the only one is the last, the latest ready.
        let first = match items.iter().position(|(neg, _)| !neg) {
            Some(p) if p + 1 < items.len() || items.len() == 1 => p,
            _ => 0,
        };
        let mut ts = TokenStream::new();
        let mut rest = Vec::with_capacity(items.len());
        for (i, item) in items.into_iter().enumerate() {
            if i == first {
                let (neg, f) = item;
                ts.extend(if neg { self.negate(f).ts } else { f.ts });
            } else {
                rest.push(item);
            }
        }
        for (neg, f) in rest {
            self.ops.adds += 1;
            ts.extend([punct(if neg { '-' } else { '+' })]);
            ts.extend(f.at_least(Prec::Mul));
        }
        Frag { ts, prec: Prec::Add }
    }

    /// `a * b * …` from at least one fragment.
    fn join_product(&mut self, items: Vec<Frag>) -> Frag {
        if items.len() == 1 {
            return items.into_iter().next().expect("one item");
        }
        let mut ts = TokenStream::new();
        for (i, f) in items.into_iter().enumerate() {
            if i == 0 {
                ts.extend(f.at_least(Prec::Mul));
            } else {
                self.ops.muls += 1;
                ts.extend([punct('*')]);
                ts.extend(f.at_least(Prec::Unary));
            }
        }
        Frag { ts, prec: Prec::Mul }
    }

    /// A product as (coefficient is negative, magnitude), negative powers gathered as a divisor.
    fn product(&mut self, fs: &[Expr]) -> (bool, Frag) {
        let (coef, rest) = match self.arena.node(fs[0]) {
            Node::Num(r) => (*r, &fs[1..]),
            _ => (Rational::one(), fs),
        };
        self.product_of(coef, rest)
    }

    /// Whether a factor of a product can be paired with its coefficient ([`Self::scaled_factor`]):
    /// not a number, and not a power written as such (`x * x`, a divisor).
    fn pairable(&self, f: Expr) -> bool {
        match self.arena.node(f) {
            Node::Num(_) => false,
            Node::Pow(..) => self.is_temp(f),
            _ => true,
        }
    }

    /// `c * a` as a temporary of its own where the coefficient c (≠ ±1) and the factor a occur
    /// together in several products: a link's offset times a cosine, `0.0825 * c * x`, multiplies
    /// once for all the products it is in rather than once in each (`(c * a) * x` is what
    /// `c * a * x` computes, so the values are the same). `None` where no factor of `rest` is so
    /// shared; else the pair's name and the factor's position.
    fn scaled_factor(&mut self, c: Rational, rest: &[Expr]) -> Option<(Frag, usize)> {
        if c.is_one() {
            return None;
        }
        let (k, _) = rest
            .iter()
            .enumerate()
            .filter(|&(_, &f)| self.pairable(f))
            .map(|(k, &f)| (k, self.scaled.get(&(c, f)).map_or(0, |e| e.0)))
            .filter(|&(_, count)| count >= 2)
            .fold(None, |best: Option<(usize, u32)>, (k, count)| match best {
                Some((_, b)) if b >= count => best,
                _ => Some((k, count)),
            })?;
        let key = (c, rest[k]);
        if let Some(Some(name)) = self.scaled.get(&key).map(|e| e.1.clone()) {
            return Some((Frag::atom(name), k));
        }
        let factor = self.expr(rest[k]).at_least(Prec::Unary);
        let lit = f64_lit(c.to_f64());
        self.ops.muls += 1;
        let name = self.define(quote! { #lit * #factor });
        if let Some(entry) = self.scaled.get_mut(&key) {
            entry.1 = Some(name.clone());
        }
        Some((Frag::atom(name), k))
    }

    /// [`Self::product`] of a coefficient and factors (none: the coefficient alone).
    fn product_of(&mut self, coef: Rational, rest: &[Expr]) -> (bool, Frag) {
        // A factor emitted as k times itself takes the coefficient's magnitude, k.
        let coef = if rest.iter().any(|f| self.absorbed.contains_key(f)) {
            if coef.is_negative() { Rational::integer(-1) } else { Rational::one() }
        } else {
            coef
        };
        let mut nums: Vec<Frag> = Vec::new();
        let mut dens: Vec<Frag> = Vec::new();
        let paired = coef.checked_abs().and_then(|m| self.scaled_factor(m, rest));
        let c = coef.to_f64().abs();
        let skip = match paired {
            Some((name, k)) => {
                nums.push(name);
                Some(k)
            }
            None => {
                if c != 1.0 {
                    nums.push(Frag::atom(f64_lit(c)));
                }
                None
            }
        };
        for (k, &f) in rest.iter().enumerate() {
            if Some(k) == skip {
                continue;
            }
            match self.arena.node(f) {
                &Node::Pow(b, x) if !self.is_temp(f) => match self.arena.as_num(x) {
                    Some(r) if r.is_negative() => match r.checked_neg() {
                        Some(p) => self.push_power(&mut dens, b, p),
                        None => nums.push(self.expr(f)),
                    },
                    Some(r) => self.push_power(&mut nums, b, r),
                    None => nums.push(self.expr(f)),
                },
                _ => nums.push(self.expr(f)),
            }
        }
        let numer = if nums.is_empty() { Frag::atom(f64_lit(1.0)) } else { self.join_product(nums) };
        if dens.is_empty() {
            return (coef.is_negative(), numer);
        }
        let denom = self.join_product(dens);
        self.ops.divs += 1;
        let mut ts = numer.at_least(Prec::Mul);
        ts.extend([punct('/')]);
        ts.extend(denom.at_least(Prec::Unary));
        (coef.is_negative(), Frag { ts, prec: Prec::Mul })
    }

    /// Pushes the factor(s) for `b^r`, `r > 0`, onto a product list (`b^2` of a name as `b, b`).
    fn push_power(&mut self, list: &mut Vec<Frag>, b: Expr, r: Rational) {
        if r == Rational::integer(2) && self.is_name(b) {
            list.push(self.expr(b));
            list.push(self.expr(b));
        } else {
            list.push(self.positive_power(b, r));
        }
    }

    /// `b^r` for `r > 0`.
    fn positive_power(&mut self, b: Expr, r: Rational) -> Frag {
        if r.is_one() {
            return self.expr(b);
        }
        if r == Rational::integer(2) && self.is_name(b) {
            let x = self.expr(b);
            let y = self.expr(b);
            return self.join_product(vec![x, y]);
        }
        let recv = self.expr(b).at_least(Prec::Atom);
        self.ops.calls += 1;
        let arg = if r.is_integer() {
            match i32::try_from(r.num()) {
                Ok(n) => {
                    let n = Literal::i32_unsuffixed(n);
                    return Frag::atom(quote! { #recv.powi(#n) });
                }
                Err(_) => f64_lit(r.to_f64()),
            }
        } else if r.num() == 1 && r.den() == 2 {
            return Frag::atom(quote! { #recv.sqrt() });
        } else {
            f64_lit(r.to_f64())
        };
        Frag::atom(quote! { #recv.powf(#arg) })
    }

    fn power(&mut self, b: Expr, x: Expr) -> Frag {
        match self.arena.as_num(x) {
            Some(r) if r.is_negative() => {
                let Some(p) = r.checked_neg() else {
                    let recv = self.expr(b).at_least(Prec::Atom);
                    let mut arg = TokenStream::from(punct('-'));
                    arg.extend(f64_lit(-r.to_f64()));
                    self.ops.calls += 1;
                    return Frag::atom(quote! { #recv.powf(#arg) });
                };
                let den = self.positive_power(b, p).at_least(Prec::Unary);
                let one = f64_lit(1.0);
                self.ops.divs += 1;
                Frag { ts: quote! { #one / #den }, prec: Prec::Mul }
            }
            Some(r) => self.positive_power(b, r),
            None => {
                let recv = self.expr(b).at_least(Prec::Atom);
                let arg = self.expr(x).ts;
                self.ops.calls += 1;
                Frag::atom(quote! { #recv.powf(#arg) })
            }
        }
    }

    fn call(&mut self, f: Func, xs: &[Expr]) -> Frag {
        if xs.len() != f.arity() {
            return Frag::atom(quote! { f64::NAN });
        }
        let recv = self.expr(xs[0]).at_least(Prec::Atom);
        let name = Ident::new(f.name(), Span::call_site());
        self.ops.calls += 1;
        if f == Func::Atan2 {
            let x = self.expr(xs[1]).ts;
            Frag::atom(quote! { #recv.#name(#x) })
        } else {
            Frag::atom(quote! { #recv.#name() })
        }
    }
}
