//! Shared code-generation helpers of every emitter: symbols as tokens, straight-line bodies
//! (split into part functions when large), and matrix literals.

use proc_macro2::{Delimiter, TokenStream, TokenTree};
use quote::{format_ident, quote};
use symbolic::Expr;

use crate::model::{Role, View};

/// How generated code reaches a model's parameters: a model without modes (or a reduced system)
/// is its own struct; a mode of a multi-mode model is a view type `<Model><Mode><'a>(&'a Model)`;
/// a model with inputs is driven through `<Model>Driven<'a>(&'a Model, SVector<f64, k>)`, the
/// model at fixed input values.
pub(crate) struct Owner {
    /// The type in `impl` headers, e.g. `Ball` or `HopperStance<'a>`.
    pub(crate) ty: TokenStream,
    /// Generics of `impl` headers, e.g. `<'a>` (empty for a plain struct).
    pub(crate) generics: TokenStream,
}

/// The expression that has a model's parameters as fields inside its methods: `self`, or
/// `self.0` in a mode's view.
fn access(model: &View<'_>) -> TokenStream {
    if model.mode.is_some() || !model.inputs.is_empty() { quote!(self.0) } else { quote!(self) }
}

impl Owner {
    pub(crate) fn of(model: &View<'_>) -> Owner {
        let name = &model.name;
        match &model.mode {
            None if !model.inputs.is_empty() => {
                let view = driven_type(name);
                Owner { ty: quote!(#view<'a>), generics: quote!(<'a>) }
            }
            None => Owner { ty: quote!(#name), generics: TokenStream::new() },
            Some((_, mode)) => {
                let view = mode_type(name, mode);
                Owner { ty: quote!(#view<'a>), generics: quote!(<'a>) }
            }
        }
    }
}

pub(crate) use crate::names::mode_type;

/// The view type of a model with inputs at fixed input values: `<Model>Driven`.
pub(crate) fn driven_type(model: &syn::Ident) -> syn::Ident {
    quote::format_ident!("{model}Driven")
}

/// Tokens for a symbol inside generated functions: `x[i]`, `x[n+i]`, `a[i]`, `self.p`, `t`.
pub(crate) fn symbol_tokens(model: &View<'_>, sym: Expr) -> TokenStream {
    match model.role(sym) {
        Some(Role::Time) => quote!(t),
        Some(role @ (Role::Coordinate(_) | Role::Velocity(_) | Role::Action)) => {
            let k = model.layout.state_index(role).unwrap_or(usize::MAX);
            quote!(x[#k])
        }
        Some(Role::Acceleration(i)) => quote!(a[#i]),
        Some(Role::PostVelocity(i)) => quote!(vp[#i]),
        Some(Role::Multiplier(k)) => quote!(lam[#k]),
        Some(Role::Input(k)) => quote!(self.1[#k]),
        Some(Role::NodeStart(i)) => quote!(q0[#i]),
        Some(Role::NodeEnd(i)) => quote!(q1[#i]),
        Some(Role::Increment(i)) => quote!(xi[#i]),
        Some(Role::StepSize) => quote!(h),
        Some(Role::StepTime) => quote!(t0),
        Some(Role::StepAction) => quote!(z0),
        Some(Role::Dropped(i)) => quote!(g[#i]),
        Some(Role::Tangent(i)) => quote!(dx[#i]),
        Some(Role::Primal(k)) => quote!(p[#k]),
        Some(Role::Parameter(i)) => {
            let p = &model.parameters[i];
            let access = access(model);
            quote!(#access.#p)
        }
        Some(Role::QuaternionNorm(k)) => {
            let s = model.layout.orientations[k].q_start;
            let [a, b, c, d] = [s, s + 1, s + 2, s + 3];
            quote!((x[#a] * x[#a] + x[#b] * x[#b] + x[#c] * x[#c] + x[#d] * x[#d]))
        }
        Some(
            Role::Differential(_)
            | Role::TimeDifferential
            | Role::Substituted(_)
            | Role::HeldRate(_)
            | Role::Temporary(_)
            | Role::Carried(_)
            | Role::StandIn(_)
            | Role::Energy,
        )
        | None => quote!(::core::f64::NAN),
    }
}

/// The runtime's `StateLayout` of the model's state — P positions, n velocities, the state's
/// dimension D — as a qualified type path (`<…>::state(q, qdot)`).
pub(crate) fn state_layout(model: &View<'_>) -> TokenStream {
    let (p, n, d) = (model.layout.position_dim(), model.dof(), model.layout.state_dim());
    quote! { <__routh::mechanics::StateLayout<#p, #n, #d>> }
}

/// How generated constructors take a state: the parameters `q: [f64; P], qdot: [f64; n]` (and
/// `z: f64` for a contact model), and the expression building the `SVector` from them.
pub(crate) fn state_arguments(model: &View<'_>) -> (TokenStream, TokenStream) {
    let (p, n) = (model.layout.position_dim(), model.dof());
    let layout = state_layout(model);
    if model.layout.z.is_some() {
        (quote! { q: [f64; #p], qdot: [f64; #n], z: f64 }, quote! { #layout::state_with_action(q, qdot, z) })
    } else {
        (quote! { q: [f64; #p], qdot: [f64; #n] }, quote! { #layout::state(q, qdot) })
    }
}

/// `__routh_linearization(t, x)` of a view with inputs: (∂F/∂x, ∂F/∂u) together, for `linearize`
/// and the step Jacobians — from `jacobian` and `input_jacobian`, or `body` where the two share
/// their work.
pub(crate) fn linearization_item(model: &View<'_>, body: Option<TokenStream>) -> TokenStream {
    let (d, k) = (model.layout.state_dim(), model.layout.u.len());
    let body = body.unwrap_or_else(|| {
        quote! { ::core::result::Result::Ok(__routh::Linearization { a: self.jacobian(t, x)?, b: self.input_jacobian(t, x)? }) }
    });
    quote! {
        /// ∂F/∂x and ∂F/∂u at (t, x).
        #[inline]
        fn __routh_linearization(&self, t: f64, x: &__routh::State<#d>)
            -> ::core::result::Result<__routh::Linearization<#d, #k>, __routh::FieldError>
        {
            #body
        }
    }
}

/// Inside a generated linearisation: B = ∂F/∂u at (t, x) as a D × k `DMatrix` (the view's
/// `input_jacobian`), or D × 0 for a model without inputs.
pub(crate) fn input_matrix(model: &View<'_>) -> TokenStream {
    let (d, k) = (model.layout.state_dim(), model.layout.u.len());
    if k == 0 {
        return quote! { __routh::DMatrix::zeros(#d, 0) };
    }
    quote! {{
        let b = self.input_jacobian(t, x).map_err(__routh::linearize::LinearizeError::from)?;
        __routh::DMatrix::from_column_slice(#d, #k, b.as_slice())
    }}
}

/// Above this many temporaries a computation is split into part functions. A straight-line
/// function of `let`s builds faster and runs at least as fast as the same statements in parts up
/// to a few thousand statements (the spatial chain of 24 links: its field 1.7 µs against 2.2 µs
/// in parts, its crate built in 1.3 s against 2.2 s); beyond, it still builds faster (the 48-link
/// chain's field whole: 5.9 s and 285 MB against 6.6 s and 356 MB with parts from 3000
/// statements) and runs within a few percent either way (interleaved runs of the same two
/// binaries differ in sign from one hour to the next); parts keep the longest computations (a
/// dense Jacobian) within what rustc handles. Long bodies declare their temporaries in groups
/// (`symbolic`'s `grouped_lets`): with a `let` each, each opening a lexical scope inside the last,
/// LLVM's debug information walked twelve thousand nested scopes and overflowed rustc's stack
/// (`tests/floating.rs` with line tables).
const SPLIT_STATEMENTS: usize = 12000;

#[cfg(test)]
thread_local! {
    /// [`SPLIT_STATEMENTS`] for expansions on this test thread: lower, to test the parts on
    /// models of a test's size.
    pub(crate) static SPLIT_AT: std::cell::Cell<usize> = const { std::cell::Cell::new(SPLIT_STATEMENTS) };
}

/// The threshold in force ([`SPLIT_STATEMENTS`]).
fn split_statements() -> usize {
    #[cfg(test)]
    return SPLIT_AT.with(std::cell::Cell::get);
    #[cfg(not(test))]
    SPLIT_STATEMENTS
}
/// Statements per part function: long enough that most temporaries are read inside their own part
/// (locals, [`part_locals`]; the 48-link spatial chain's field 2.7 µs against 3.1 µs with parts of
/// 250 statements and every temporary in the scratch array, as fast as one whole function), short
/// enough for rustc (the workspace's largest tests build as fast as with parts of 250).
const PART_STATEMENTS: usize = 1000;

/// The part length in force: [`PART_STATEMENTS`], or half the split threshold where a test has
/// lowered it (so that its bodies still come in several parts).
fn part_statements() -> usize {
    PART_STATEMENTS.min(split_statements() / 2).max(1)
}

/// Code computing `outputs` inside one generated method: helper items for the `impl`, the
/// statements of the method body, and one expression per output.
///
/// Small computations are plain `let` temporaries. Large ones (rustc's compile time grows faster
/// than linearly with function size) are a sequence of `#[inline(never)]` part functions, each at
/// most [`PART_STATEMENTS`] statements long, passing the temporaries another part reads in a
/// scratch array `__w` (the others are locals of their part); common subexpressions are still
/// computed once.
pub(crate) struct Body {
    pub(crate) parts: Vec<Part>,
    pub(crate) statements: Vec<TokenStream>,
    pub(crate) outputs: Vec<TokenStream>,
}

/// `name` names the part functions; `extra_params` / `extra_args` declare and pass inputs beyond
/// `t` and `x` (e.g. the accelerations `a` of the Jacobian).
pub(crate) fn body(model: &View<'_>, outputs: &[Expr], name: &str, extra_params: &TokenStream, extra_args: &TokenStream) -> Body {
    body_bound(model, &[], outputs, name, &state_base(model), extra_params, extra_args)
}

/// The parameters `t, x` of a method of the state, and the arguments passing them on.
fn state_base(model: &View<'_>) -> (TokenStream, TokenStream) {
    let d = model.layout.state_dim();
    (quote! { t: f64, x: &__routh::State<#d>, }, quote! { t, x, })
}

/// [`body`] for a method whose inputs are not `(t, x)`: `base` declares and passes them (e.g. the
/// nodes `t0, h, q0, q1` of a discrete Lagrangian).
pub(crate) fn body_with_base(
    model: &View<'_>,
    outputs: &[Expr],
    name: &str,
    base: &(TokenStream, TokenStream),
    extra_params: &TokenStream,
    extra_args: &TokenStream,
) -> Body {
    body_bound(model, &[], outputs, name, base, extra_params, extra_args)
}

/// [`body_with_base`] with bindings: symbols standing for expressions, each a temporary of its own
/// (see `symbolic::emit_bound`).
pub(crate) fn body_bound(
    model: &View<'_>,
    bindings: &[(Expr, Expr)],
    outputs: &[Expr],
    name: &str,
    base: &(TokenStream, TokenStream),
    extra_params: &TokenStream,
    extra_args: &TokenStream,
) -> Body {
    let symbol = |s| symbol_tokens(model, s);
    let options = emit_options();
    let slots = symbolic::emit_slots_placed_with(model.arena, bindings, outputs, &[], &symbol, "__w", &options);
    if slots.statements.len() <= split_statements() {
        // Small: plain `let`s read better and optimise at least as well (re-emitting is cheap here).
        let plain = symbolic::emit_bound_with(model.arena, bindings, outputs, &symbol, "__w", &options);
        return Body { parts: Vec::new(), statements: plain.statements, outputs: plain.outputs };
    }
    let len = slots.temporaries;
    split(slots.statements, len, slots.outputs, name, base, extra_params, extra_args)
}

/// How generated bodies are emitted: the sines and cosines of the model's angles (and of any other
/// input symbol) by one call of the runtime's `trig::sin_cos`, which evaluates them in SIMD lanes
/// (within an ulp of `f64::sin_cos`; the Panda's field 451 → 418 ns in one script run, where six
/// libm `sincos` calls had been two fifths of `perf`'s samples of its mass matrix).
pub(crate) fn emit_options() -> symbolic::EmitOptions {
    symbolic::EmitOptions { sin_cos: Some(quote! { __routh::sin_cos }) }
}

/// A long computation's `statements` cut into part functions sharing the scratch array `__w` of
/// `len` slots (see [`body`]).
fn split(
    statements_in: Vec<TokenStream>,
    len: usize,
    outputs: Vec<TokenStream>,
    name: &str,
    base: &(TokenStream, TokenStream),
    extra_params: &TokenStream,
    extra_args: &TokenStream,
) -> Body {
    let (base_params, base_args) = base;
    let mut parts = Vec::new();
    let mut statements = vec![quote! { let mut __w = [0.0_f64; #len]; }];
    let statements_in = part_locals(statements_in, &outputs, len);
    for (k, chunk) in statements_in.chunks(part_statements()).enumerate() {
        let part = format_ident!("{name}_part{k}");
        parts.push(Part {
            name: part.clone(),
            params: quote! { #base_params #extra_params __w: &mut [f64; #len] },
            args: quote! { #base_args #extra_args __w },
            body: quote! {
                let __w: &mut [f64] = __w;
                #(#chunk)*
            },
        });
        statements.push(quote! { self.#part::<()>(#base_args #extra_args &mut __w); });
    }
    Body { parts, statements, outputs }
}

/// The scratch slot `__w[k]` a token pair names, if it is one.
fn slot_of(ident: &proc_macro2::Ident, next: Option<&TokenTree>) -> Option<usize> {
    slot_in(ident, next, "__w")
}

/// The slot `<array>[k]` a token pair names, if it is one.
fn slot_in(ident: &proc_macro2::Ident, next: Option<&TokenTree>, array: &str) -> Option<usize> {
    if ident != array {
        return None;
    }
    let Some(TokenTree::Group(g)) = next else { return None };
    if g.delimiter() != Delimiter::Bracket {
        return None;
    }
    let mut inner = g.stream().into_iter();
    let (Some(TokenTree::Literal(lit)), None) = (inner.next(), inner.next()) else { return None };
    lit.to_string().trim_end_matches("usize").parse().ok()
}

/// Every slot `__w[k]` read in `tokens` (recursively into groups).
fn slots_read(tokens: TokenStream, out: &mut Vec<usize>) {
    slots_read_in(tokens, "__w", out);
}

/// Every slot `<array>[k]` read in `tokens` (recursively into groups), in order.
fn slots_read_in(tokens: TokenStream, array: &str, out: &mut Vec<usize>) {
    let trees: Vec<TokenTree> = tokens.into_iter().collect();
    for (i, tree) in trees.iter().enumerate() {
        match tree {
            TokenTree::Ident(id) => out.extend(slot_in(id, trees.get(i + 1), array)),
            TokenTree::Group(g) => slots_read_in(g.stream(), array, out),
            _ => {}
        }
    }
}

/// `tokens` with each slot `__w[k]` for which `local[k]` holds named `__wk` instead.
fn localised(tokens: TokenStream, local: &[bool]) -> TokenStream {
    slots_replaced(tokens, "__w", &|k| {
        if local.get(k).copied().unwrap_or(false) {
            let id = format_ident!("__w{k}");
            quote! { #id }
        } else {
            quote! { __w[#k] }
        }
    })
}

/// The slot k a statement `__w[k] = rhs;` defines; `None` for any other statement (the sines and
/// cosines' destructuring assignment, which defines several).
fn defined_slot(statement: &TokenStream) -> Option<usize> {
    let mut trees = statement.clone().into_iter();
    let first = trees.next();
    let second = trees.next();
    let third = trees.next();
    match (first, &third) {
        (Some(TokenTree::Ident(id)), Some(TokenTree::Punct(p))) if p.as_char() == '=' => slot_of(&id, second.as_ref()),
        _ => None,
    }
}

/// `tokens` with each slot `<array>[k]` replaced by `to(k)` (recursively into groups).
fn slots_replaced(tokens: TokenStream, array: &str, to: &dyn Fn(usize) -> TokenStream) -> TokenStream {
    let trees: Vec<TokenTree> = tokens.into_iter().collect();
    let mut out = TokenStream::new();
    let mut i = 0;
    while i < trees.len() {
        match &trees[i] {
            TokenTree::Ident(id) => {
                if let Some(k) = slot_in(id, trees.get(i + 1), array) {
                    out.extend(to(k));
                    i += 2;
                    continue;
                }
                out.extend([trees[i].clone()]);
            }
            TokenTree::Group(g) => {
                let mut group = proc_macro2::Group::new(g.delimiter(), slots_replaced(g.stream(), array, to));
                group.set_span(g.span());
                out.extend([TokenTree::Group(group)]);
            }
            other => out.extend([other.clone()]),
        }
        i += 1;
    }
    out
}

/// A long computation in two phases ([`Helpers::phased`]): the first's outputs alone, or both's.
pub(crate) struct Phased {
    /// The first phase: its statements (declaring the scratch array `__w`) and its outputs.
    pub(crate) first: (Vec<TokenStream>, Vec<TokenStream>),
    /// Both phases: the first's statements, then the second's (declaring `__v`, reading `__w`),
    /// and every output — the first's, then the second's.
    pub(crate) both: (Vec<TokenStream>, Vec<TokenStream>),
}

/// `first` and `second` as one long computation in two phases of part functions, where the
/// second's outputs share much of the first's work (a discrete step's blocks and its Newton map):
/// the first's outputs emitted alone, as [`body_with_base`] would, in parts over the scratch
/// array `__w`; then the second's in parts of their own over a second array `__v`, reading from
/// `__w` every value the first leaves there (`symbolic::emit_slots_after`; not its parts' locals,
/// which the second computes again). So the first phase alone is its own body's code, and the
/// second computes only what the first did not leave. The part functions are returned beside;
/// `None` where the two together are short enough for plain `let`s ([`split_statements`]).
fn body_phased(
    model: &View<'_>,
    first: &[Expr],
    second: &[Expr],
    name: &str,
    base: &(TokenStream, TokenStream),
) -> Option<(Vec<Part>, Phased)> {
    let symbol = |s| symbol_tokens(model, s);
    let options = emit_options();
    let one = symbolic::emit_slots_placed_with(model.arena, &[], first, &[], &symbol, "__w", &options);
    // The first phase's temporaries in `__w` after it (not its parts' locals), named `__p[k]` in
    // the second until it is in parts: the first phase's code is its body's alone.
    let len1 = one.temporaries;
    let local = local_slots(&one.statements, &one.outputs, len1);
    let mut held = Vec::new();
    let computed: Vec<(Expr, TokenStream)> = one
        .named
        .iter()
        .filter_map(|(e, name)| {
            held.clear();
            slots_read(name.clone(), &mut held);
            let [k] = held[..] else { return None };
            (!local.get(k).copied().unwrap_or(true)).then(|| (*e, quote! { __p[#k] }))
        })
        .collect();
    let two = symbolic::emit_slots_after(model.arena, second, &computed, &symbol, "__w", &options);
    if one.statements.len() + two.statements.len() <= split_statements() {
        return None;
    }
    let len2 = two.temporaries;
    let none = TokenStream::new();
    // The first phase: the body the first's outputs have alone.
    let first_body = split(one.statements, len1, one.outputs, name, base, &none, &none);
    let statements2 = part_locals(two.statements, &two.outputs, len2);
    // The second phase's own slots in `__v`, the first's in `__w`.
    let renamed = |tokens: TokenStream| {
        let own = slots_replaced(tokens, "__w", &|k| quote! { __v[#k] });
        slots_replaced(own, "__p", &|k| quote! { __w[#k] })
    };
    let statements2: Vec<TokenStream> = statements2.into_iter().map(renamed).collect();
    let outputs2: Vec<TokenStream> = two.outputs.into_iter().map(renamed).collect();
    let (base_params, base_args) = base;
    let Body { mut parts, statements: calls1, outputs: outputs1 } = first_body;
    let parts1 = parts.len();
    let mut calls2 = calls1.clone();
    if !statements2.is_empty() {
        calls2.push(quote! { let mut __v = [0.0_f64; #len2]; });
    }
    for (k, chunk) in statements2.chunks(part_statements()).enumerate() {
        let part = format_ident!("{name}_part{}", parts1 + k);
        // The second phase's own slots (`__v`; its locals are `__wk` too) and the first's.
        let chunk = loaded_once(loaded_once(chunk.to_vec(), "__v", "__w"), "__w", "__p");
        parts.push(Part {
            name: part.clone(),
            params: quote! { #base_params __w: &[f64; #len1], __v: &mut [f64; #len2] },
            args: quote! { #base_args __w, __v },
            body: quote! {
                let __w: &[f64] = __w;
                let __v: &mut [f64] = __v;
                #(#chunk)*
            },
        });
        calls2.push(quote! { self.#part::<()>(#base_args &__w, &mut __v); });
    }
    let mut outputs = outputs1.clone();
    outputs.extend(outputs2);
    Some((parts, Phased { first: (calls1, outputs1), both: (calls2, outputs) }))
}

/// Per slot of the scratch array, whether it is read only inside the part that defines it (in
/// parts of [`part_statements`]) and not by `outputs`: a local of that part ([`part_locals`]).
fn local_slots(statements: &[TokenStream], outputs: &[TokenStream], len: usize) -> Vec<bool> {
    // The part that defines each slot, and whether another part (or the caller) reads it.
    let mut defined_in = vec![usize::MAX; len];
    let mut shared = vec![false; len];
    let mut reads = Vec::new();
    for (i, statement) in statements.iter().enumerate() {
        let part = i / part_statements();
        let own = defined_slot(statement);
        reads.clear();
        slots_read(statement.clone(), &mut reads);
        for &k in &reads {
            if Some(k) != own && k < len && defined_in[k] != part {
                shared[k] = true;
            }
        }
        if let Some(k) = own.filter(|&k| k < len) {
            defined_in[k] = part;
        }
    }
    for output in outputs {
        reads.clear();
        slots_read(output.clone(), &mut reads);
        for &k in &reads {
            if k < len {
                shared[k] = true;
            }
        }
    }
    (0..len).map(|k| defined_in[k] != usize::MAX && !shared[k]).collect()
}

/// The part functions' statements with every temporary read only inside its own part a local
/// `let` of that part (`let __wk: f64 = …;`) rather than a slot of the scratch array: only the
/// values another part or the caller reads go through memory. A statement `__w[k] = rhs;` defines
/// slot k; the outputs are read by the caller.
fn part_locals(statements: Vec<TokenStream>, outputs: &[TokenStream], len: usize) -> Vec<TokenStream> {
    let local = local_slots(&statements, outputs, len);
    let defines = defined_slot;
    statements
        .into_iter()
        .map(|statement| match defines(&statement).filter(|&k| local.get(k).copied().unwrap_or(false)) {
            Some(k) => {
                // `__w[k] = rhs;` → `let __wk: f64 = rhs;`
                let rhs: TokenStream = statement.into_iter().skip(3).collect();
                let rhs = localised(rhs, &local);
                let id = format_ident!("__w{k}");
                quote! { let #id: f64 = #rhs }
            }
            None => localised(statement, &local),
        })
        .collect()
}

/// A part's `statements` reading each slot of `array` once: the first statement that reads slot
/// k is preceded by `<prefix>k = array[k];` and every later read in the part names that local,
/// and a statement `array[k] = rhs;` becomes `<prefix>k = rhs; array[k] = <prefix>k;` (stored
/// still, for the parts after); the locals are declared first, in groups ([`grouped`]). Each slot is assigned once, before any
/// statement reads it, so the value read first is the value of every later read. The optimised
/// code is the same — LLVM merges repeated loads of a slot — but rustc type-checks each index
/// expression on its own (a selection of the `Index` trait apiece, and a bounds check in MIR): on
/// the floating quadruped's variational integrator, a fifth of its 300 thousand. A statement
/// without a plain `=` (none that the emitters write) is left as it is.
fn loaded_once(statements: Vec<TokenStream>, array: &str, prefix: &str) -> Vec<TokenStream> {
    let array_id = proc_macro2::Ident::new(array, proc_macro2::Span::call_site());
    let local = |k: usize| {
        let id = format_ident!("{prefix}{k}");
        quote! { #id }
    };
    // The locals, declared together at the top (see `grouped`).
    let mut names = Vec::new();
    let mut bound = std::collections::HashSet::new();
    let mut reads = Vec::new();
    let mut out = Vec::with_capacity(statements.len());
    for statement in statements {
        let trees: Vec<TokenTree> = statement.into_iter().collect();
        let Some(eq) = assignment(&trees) else {
            out.push(trees.into_iter().collect());
            continue;
        };
        let rhs: TokenStream = trees[eq + 1..].iter().cloned().collect();
        reads.clear();
        slots_read_in(rhs.clone(), array, &mut reads);
        for &k in &reads {
            if bound.insert(k) {
                let id = local(k);
                out.push(quote! { #id = #array_id[#k]; });
                names.push(id);
            }
        }
        let rhs = slots_replaced(rhs, array, &local);
        let defined = match &trees[..eq] {
            [TokenTree::Ident(id), next] => slot_in(id, Some(next), array),
            _ => None,
        };
        match defined {
            Some(k) => {
                bound.insert(k);
                let id = local(k);
                // `rhs` ends with the statement's `;`.
                out.push(quote! { #id = #rhs #array_id[#k] = #id; });
                names.push(id);
            }
            None => {
                let lhs: TokenStream = trees[..=eq].iter().cloned().collect();
                out.push(quote! { #lhs #rhs });
            }
        }
    }
    let mut declared = grouped(&names);
    declared.extend(out);
    declared
}

/// Declarations of the f64 locals `names`, `symbolic`'s [`symbolic::LET_GROUP`] to a `let` (each
/// assigned once later): each `let` opens a lexical scope inside the last, and LLVM's debug
/// information walks them recursively — a part with a `let` for each of its reads overflowed
/// rustc's stack with line tables on (as `symbolic`'s long bodies did).
fn grouped(names: &[TokenStream]) -> Vec<TokenStream> {
    names.chunks(symbolic::LET_GROUP).map(symbolic::declared_f64).collect()
}

/// The position of a statement's assignment `=` (not part of `==`, `<=`, `=>`, …): the first
/// `=` outside groups that stands alone and follows no operator character joined to it.
fn assignment(trees: &[TokenTree]) -> Option<usize> {
    (0..trees.len()).find(|&i| {
        let TokenTree::Punct(p) = &trees[i] else { return false };
        let joined_before = i > 0 && matches!(&trees[i - 1], TokenTree::Punct(q) if q.spacing() == proc_macro2::Spacing::Joint);
        p.as_char() == '=' && p.spacing() == proc_macro2::Spacing::Alone && !joined_before
    })
}

/// [`body`] whose outputs have places of their own (`places[o]`, assignable expressions such as
/// `__m[(3, 2)]` naming storage the caller declares and passes to the part functions through
/// `extra_params` / `extra_args`): a long computation stores each output straight into its place
/// (`symbolic::emit_slots_placed`), so the caller copies nothing. Returns the body and, per output,
/// whether it is already in its place; the caller assigns the others (all of them when the
/// computation is short enough for plain `let`s).
pub(crate) fn body_placed(
    model: &View<'_>,
    outputs: &[Expr],
    places: &[Option<TokenStream>],
    name: &str,
    extra_params: &TokenStream,
    extra_args: &TokenStream,
) -> (Body, Vec<bool>) {
    let symbol = |s| symbol_tokens(model, s);
    let options = emit_options();
    let slots = symbolic::emit_slots_placed_with(model.arena, &[], outputs, places, &symbol, "__w", &options);
    if slots.statements.len() <= split_statements() {
        let plain = symbolic::emit_bound_with(model.arena, &[], outputs, &symbol, "__w", &options);
        let body = Body { parts: Vec::new(), statements: plain.statements, outputs: plain.outputs };
        return (body, vec![false; outputs.len()]);
    }
    let len = slots.temporaries;
    let body = split(slots.statements, len, slots.outputs, name, &state_base(model), extra_params, extra_args);
    (body, slots.placed)
}

/// The two functions of a forward-mode derivative through straight-line `bindings`
/// ([`crate::derive::dynamics::Tangent`]): `<name>_primal(t, x, <extra>) -> [f64; np]`, the quantities
/// `tangent.primal` its derivative reads, computed once per state, and
/// `<name>_tangent(t, x, <extra>, p, dx) -> SVector<f64, k>`, the derivative of the k outputs along
/// the state direction `dx` from those quantities `p` (called once per direction). `extra` declares
/// and passes the inputs beyond `t` and `x` (e.g. `a: &SVector<f64, n>,`); `what` and `along` name
/// the quantities and the derivative in their rustdoc.
pub(crate) struct TangentFunctions<'a> {
    pub(crate) name: &'a str,
    pub(crate) bindings: &'a [(Expr, Expr)],
    pub(crate) tangent: &'a crate::derive::dynamics::Tangent,
    pub(crate) extra: (TokenStream, TokenStream),
    pub(crate) what: &'a str,
    pub(crate) along: &'a str,
}

impl TangentFunctions<'_> {
    /// Statements adding the derivative's k outputs along each basis direction of the state to the
    /// first k rows of the matrix `dr` (`rows` × the state's dimension), through the primal once
    /// (`mechanics::add_tangent_columns`).
    pub(crate) fn add_columns(&self, model: &View<'_>, rows: usize) -> TokenStream {
        let d = model.layout.state_dim();
        let k = self.tangent.bound.outputs.len();
        let (primal_fn, tangent_fn) = (format_ident!("{}_primal", self.name), format_ident!("{}_tangent", self.name));
        let extra_args = &self.extra.1;
        quote! {
            let p = self.#primal_fn(t, x, #extra_args);
            __routh::mechanics::add_tangent_columns::<#k, #rows, #d>(&mut dr, |dx| self.#tangent_fn(t, x, #extra_args &p, dx));
        }
    }

    /// The two functions (their part functions join `helpers`).
    pub(crate) fn items(&self, model: &View<'_>, helpers: &mut Helpers) -> TokenStream {
        let d = model.layout.state_dim();
        let state = quote! { __routh::State<#d> };
        let (extra_params, extra_args) = &self.extra;
        let tangent = self.tangent;
        let (np, k) = (tangent.primal.len(), tangent.bound.outputs.len());
        let (primal_fn, tangent_fn) = (format_ident!("{}_primal", self.name), format_ident!("{}_tangent", self.name));
        let (p_stmts, p_vals) =
            helpers.body_bound(model, self.bindings, &tangent.primal, &primal_fn.to_string(), extra_params, extra_args);
        let dx_params = quote! { #extra_params p: &[f64; #np], dx: &#state, };
        let dx_args = quote! { #extra_args p, dx, };
        let (t_stmts, t_vals) = helpers.body_bound(
            model,
            &tangent.bound.bindings,
            &tangent.bound.outputs,
            &tangent_fn.to_string(),
            &dx_params,
            &dx_args,
        );
        let (primal_doc, tangent_doc) = (
            format!(" The quantities of {} that its derivative reads, at (t, x).", self.what),
            format!(" {} along the state direction `dx`, from the quantities `p` at the same state.", self.along),
        );
        let allow = allow_generated();
        quote! {
            #[doc = #primal_doc]
            #allow
            fn #primal_fn(&self, t: f64, x: &#state, #extra_params) -> [f64; #np] {
                #(#p_stmts)*
                [#(#p_vals),*]
            }

            #[doc = #tangent_doc]
            #allow
            fn #tangent_fn(&self, t: f64, x: &#state, #dx_params) -> __routh::Vector<#k> {
                #(#t_stmts)*
                __routh::Vector::<#k>::from([#(#t_vals),*])
            }
        }
    }
}

/// The hidden helper functions of one model's `impl` — the part functions of long straight-line
/// bodies ([`body`]) — collected while the methods that call them are built, and emitted together
/// as the model's `#[doc(hidden)]` impl ([`Helpers::into_impl`]).
#[derive(Default)]
pub(crate) struct Helpers(Vec<Part>);

impl Helpers {
    /// [`body`] for `outputs`: its part functions join the helpers; returns the statements and
    /// output expressions for the calling method.
    pub(crate) fn body(
        &mut self,
        model: &View<'_>,
        outputs: &[Expr],
        name: &str,
        extra_params: &TokenStream,
        extra_args: &TokenStream,
    ) -> (Vec<TokenStream>, Vec<TokenStream>) {
        self.add(body(model, outputs, name, extra_params, extra_args))
    }

    /// [`Helpers::body`] with bindings: symbols standing for expressions, each a temporary of its
    /// own (see [`body_bound`]).
    pub(crate) fn body_bound(
        &mut self,
        model: &View<'_>,
        bindings: &[(Expr, Expr)],
        outputs: &[Expr],
        name: &str,
        extra_params: &TokenStream,
        extra_args: &TokenStream,
    ) -> (Vec<TokenStream>, Vec<TokenStream>) {
        self.add(body_bound(model, bindings, outputs, name, &state_base(model), extra_params, extra_args))
    }

    /// `first` and `second` as one computation in two phases ([`body_phased`]), its part functions
    /// joining the helpers; `None` where the whole is short enough for plain `let`s (emit each
    /// body on its own then).
    pub(crate) fn phased(
        &mut self,
        model: &View<'_>,
        first: &[Expr],
        second: &[Expr],
        name: &str,
        base: &(TokenStream, TokenStream),
    ) -> Option<Phased> {
        let (parts, phased) = body_phased(model, first, second, name, base)?;
        self.0.extend(parts);
        Some(phased)
    }

    /// The part functions of a body built otherwise ([`body_with_base`]) join the helpers; returns
    /// its statements and output expressions.
    pub(crate) fn add(&mut self, body: Body) -> (Vec<TokenStream>, Vec<TokenStream>) {
        self.0.extend(body.parts);
        (body.statements, body.outputs)
    }

    /// The helpers of `generics ty`, in the order they were built: each part function an
    /// associated function of a unit type `__Part` declared in a module of its own
    /// (`<part>_<Type>`, beside the model), called through a method of the same name in the
    /// `#[doc(hidden)]` impl of `generics ty`.
    ///
    /// rustc compiles a method with the module that declares its `Self` type — one codegen unit
    /// for every part of a model's impl, which LLVM optimises on one thread — and each
    /// module outside a function body into a codegen unit of its own: so the parts are optimised
    /// in parallel. (The module must stand outside the anonymous constant of the expansion:
    /// rustc puts what is declared inside a constant or a function body with the module around
    /// it; [`crate::emit::door::Door::wrap`] keeps `mod` items outside.)
    pub(crate) fn into_impl(self, generics: &TokenStream, ty: &TokenStream) -> TokenStream {
        if self.0.is_empty() {
            return TokenStream::new();
        }
        let owner = ty.clone().into_iter().find_map(|t| match t {
            TokenTree::Ident(id) => Some(id),
            _ => None,
        });
        let allow = allow_generated();
        let (mut homes, mut forwards) = (Vec::new(), Vec::new());
        for Part { name, params, args, body } in self.0 {
            let home = match &owner {
                Some(owner) => format_ident!("{name}_{owner}"),
                None => format_ident!("{name}_"),
            };
            let body = receiver_renamed(body);
            // Generic over an unused type so that it is compiled only where a caller is (see
            // [`lazy`]); never inlined, so that no caller grows past what LLVM handles well.
            homes.push(quote! {
                #[doc(hidden)]
                #[allow(dead_code, non_snake_case, non_camel_case_types, unreachable_pub)]
                mod #home {
                    pub(super) struct __Part;
                }
                #[automatically_derived]
                impl #generics #home::__Part {
                    #allow
                    #[inline(never)]
                    fn #name<__Lazy>(__this: &#ty, #params) {
                        #body
                    }
                }
            });
            forwards.push(quote! {
                #allow
                #[inline(always)]
                fn #name<__Lazy>(&self, #params) {
                    #home::__Part::#name::<__Lazy>(self, #args)
                }
            });
        }
        quote! {
            #(#homes)*
            #[automatically_derived]
            #[doc(hidden)]
            impl #generics #ty {
                #(#forwards)*
            }
        }
    }
}

/// A part function of a long body ([`split`]): its name, its parameters after the receiver, the
/// arguments passing them on, and its statements (reading the model's parameters from `self`).
pub(crate) struct Part {
    name: proc_macro2::Ident,
    params: TokenStream,
    args: TokenStream,
    body: TokenStream,
}

/// `tokens` with each `self` named `__this`: a part's statements as the body of an associated
/// function that receives the model (see [`Helpers::into_impl`]).
fn receiver_renamed(tokens: TokenStream) -> TokenStream {
    tokens
        .into_iter()
        .map(|tree| match tree {
            TokenTree::Ident(id) if id == "self" => TokenTree::Ident(proc_macro2::Ident::new("__this", id.span())),
            TokenTree::Group(g) => {
                let mut group = proc_macro2::Group::new(g.delimiter(), receiver_renamed(g.stream()));
                group.set_span(g.span());
                TokenTree::Group(group)
            }
            other => other,
        })
        .collect()
}

/// Lints silenced on generated numeric code.
pub(crate) fn allow_generated() -> TokenStream {
    quote! { #[allow(unused_variables, clippy::all, clippy::pedantic, non_snake_case)] }
}

/// Whether a generated value is the literal zero (`0.0_f64`, a constant emitted by `symbolic`):
/// its set into a matrix that starts zeroed is left out (a quadruped's reset Jacobians held 42
/// thousand such sets, every one an index expression for rustc to check).
pub(crate) fn is_zero_value(v: &TokenStream) -> bool {
    let mut trees = v.clone().into_iter();
    matches!((trees.next(), trees.next()), (Some(proc_macro2::TokenTree::Literal(l)), None) if l.to_string() == "0.0_f64")
}

/// `target[(r, c)] = v;` for the values `vals` row-major over `rows × cols` (the column written
/// `offset + c` where an offset is given) into a matrix that starts zeroed: the zero entries left
/// out.
pub(crate) fn zeroed_sets(
    target: &TokenStream,
    (rows, cols): (usize, usize),
    offset: Option<usize>,
    vals: &[TokenStream],
) -> TokenStream {
    let cells = (0..rows).flat_map(|r| (0..cols).map(move |c| (r, c)));
    let sets = cells.zip(vals).filter(|(_, v)| !is_zero_value(v)).map(|((r, c), v)| match offset {
        Some(o) => quote! { #target[(#r, #o + #c)] = #v; },
        None => quote! { #target[(#r, #c)] = #v; },
    });
    quote! { #(#sets)* }
}

/// The sets of a zeroed `dr`'s rows over the state (`rows` of them: `p` position columns, `n`
/// velocity columns, then the action's) from their values row-major over the positions `dq`, over
/// the velocities `dv` and down the action's column `dz`; the zero entries left out.
pub(crate) fn state_row_sets(
    rows: usize,
    (p, n): (usize, usize),
    (dq, dv, dz): (&[TokenStream], &[TokenStream], &[TokenStream]),
) -> TokenStream {
    let dr = quote!(dr);
    let (q, v) = (zeroed_sets(&dr, (rows, p), None, dq), zeroed_sets(&dr, (rows, n), Some(p), dv));
    let z = dz.iter().enumerate().filter(|(_, v)| !is_zero_value(v)).map(|(r, v)| quote! { dr[(#r, #p + #n)] = #v; });
    quote! { #q #v #(#z)* }
}

/// Builds an `SMatrix<f64, n, n>` from the upper triangle expressions `upper` (row-major).
pub(crate) fn symmetric_matrix(n: usize, upper: &[TokenStream]) -> TokenStream {
    let mut k = 0;
    let mut sets = Vec::new();
    for i in 0..n {
        for j in i..n {
            let v = &upper[k];
            k += 1;
            if is_zero_value(v) {
                continue;
            }
            if i == j {
                sets.push(quote! { m[(#i, #j)] = #v; });
            } else {
                sets.push(quote! { let __e = #v; m[(#i, #j)] = __e; m[(#j, #i)] = __e; });
            }
        }
    }
    quote! {{
        let mut m = __routh::Matrix::<#n, #n>::zeros();
        #(#sets)*
        m
    }}
}

pub(crate) fn square_matrix(n: usize, entries: &[TokenStream]) -> TokenStream {
    matrix(n, n, entries)
}

/// An `r × c` matrix from its entries in row-major order.
pub(crate) fn matrix(r: usize, c: usize, entries: &[TokenStream]) -> TokenStream {
    let sets = zeroed_sets(&quote!(m), (r, c), None, entries);
    quote! {{
        let mut m = __routh::Matrix::<#r, #c>::zeros();
        #sets
        m
    }}
}

/// The type `Vector<k>` (an `SVector<f64, k>`), named through the door.
pub(crate) fn svector(k: usize) -> TokenStream {
    quote! { __routh::Vector<#k> }
}

/// Inside a mode's view, another mode's view of the same model (and, where the views carry them,
/// the same inputs' values): `View(self.0)` or `View(self.0, self.1)`.
pub(crate) fn sibling_view(view: &syn::Ident, inputs: bool) -> TokenStream {
    if inputs { quote!(#view(self.0, self.1)) } else { quote!(#view(self.0)) }
}

/// Inside a mode's view, the view of the model's mode `mode` ([`sibling_view`]).
pub(crate) fn mode_receiver(model: &View<'_>, mode: &syn::Ident) -> TokenStream {
    sibling_view(&crate::names::mode_type(&model.name, mode), !model.inputs.is_empty())
}

/// The type `State<d>` of a state vector (an `SVector<f64, d>`), named through the door.
pub(crate) fn state_type(d: usize) -> TokenStream {
    quote! { __routh::State<#d> }
}

/// The runtime's `FieldError`, named through the door.
pub(crate) fn field_error() -> TokenStream {
    quote! { __routh::FieldError }
}

/// The inline policy of generated code, applied where an `impl` block's items are built: every
/// function among `items` without an inline attribute of its own is marked `#[inline]`, and the
/// part functions of long bodies are generic and `#[inline(never)]` (see [`body_with_base`]).
///
/// Neither kind is compiled in the crate that defines the model unless that crate calls it —
/// rustc compiles `#[inline]` and generic functions where they are used — so a model in a library
/// costs its users only the items they call (the field Jacobian, energies, momenta and resets of a
/// large model are most of its code). A binary compiles only what it reaches; small functions may
/// be inlined. An emitter that wants another policy for a function writes its attribute.
pub(crate) fn lazy(items: TokenStream) -> TokenStream {
    let mut out: Vec<TokenTree> = Vec::new();
    let (mut start, mut is_fn, mut has_inline) = (0, false, false);
    let mut previous_hash = false;
    for tree in items {
        let mut ends = false;
        match &tree {
            TokenTree::Group(g) if g.delimiter() == Delimiter::Bracket && previous_hash => {
                has_inline |= matches!(g.stream().into_iter().next(), Some(TokenTree::Ident(id)) if id == "inline");
            }
            TokenTree::Ident(id) if id == "fn" => is_fn = true,
            TokenTree::Group(g) if g.delimiter() == Delimiter::Brace => ends = true,
            TokenTree::Punct(p) if p.as_char() == ';' => ends = true,
            _ => {}
        }
        previous_hash = matches!(&tree, TokenTree::Punct(p) if p.as_char() == '#');
        out.push(tree);
        if ends {
            if is_fn && !has_inline {
                let attribute: Vec<TokenTree> = quote!(#[inline]).into_iter().collect();
                out.splice(start..start, attribute);
            }
            start = out.len();
            (is_fn, has_inline) = (false, false);
        }
    }
    out.into_iter().collect()
}

/// `Self` with the same parameters as `self` but the `k`-th of `chosen` (the `sensitivity(...)`
/// parameters) set to `value`: the body of a rebuild at another parameter value (equilibria
/// continued in a parameter, a hybrid model's parameter family). `k`, `value` are in scope.
pub(crate) fn with_parameter(fields: &[syn::Ident], chosen: &[&syn::Ident]) -> TokenStream {
    let ks: Vec<usize> = (0..chosen.len()).collect();
    quote! {
        #[allow(unused_mut)]
        let mut m = Self { #( #fields: self.#fields, )* };
        match k { #( #ks => m.#chosen = value, )* _ => {} }
        m
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn squash(t: &TokenStream) -> String {
        t.to_string().split_whitespace().collect()
    }

    #[test]
    fn every_generated_function_is_compiled_where_it_is_used() {
        let items: TokenStream = quote! {
            pub const IMPACTS: [&'static str; 1] = ["floor"];
            /// The energy.
            pub fn energy(&self, t: f64) -> f64 { t }
            #[inline]
            pub fn field(&self) -> f64 { 0.0 }
            #[inline(never)]
            fn part<__Lazy>(&self, w: &mut [f64; 2]) { w[0] = 1.0; }
            fn name(&self) -> impl Fn() -> f64 { || { 1.0 } }
            type Out = f64;
        };
        let out = squash(&lazy(items));
        // Functions without an inline attribute gain one, before their docs; the others and
        // non-functions keep theirs.
        assert!(out.contains(r#"#[inline]#[doc=r"Theenergy."]pubfnenergy"#), "{out}");
        assert!(out.contains("#[inline]fnname(&self)->implFn()->f64{||{1.0}}"), "{out}");
        assert_eq!(out.matches("#[inline]").count(), 3, "{out}");
        assert!(out.contains("#[inline(never)]fnpart<__Lazy>") && !out.contains("#[inline]#[inline(never)]"), "{out}");
        assert!(
            out.contains("pubconstIMPACTS") && !out.contains("#[inline]pubconst") && !out.contains("#[inline]typeOut"),
            "{out}"
        );
    }

    #[test]
    fn temporaries_read_only_in_their_part_are_its_locals() {
        // Slot 0 is read in its own part only, slot 1 by the next part, slot 2 by the caller.
        let mut statements = vec![quote! { __w[0usize] = x[0usize] * 2.0; }, quote! { __w[1usize] = (__w[0usize] + 1.0).sin(); }];
        statements.extend((2..part_statements()).map(|_| quote! { let _unused = 0.0; }));
        statements.push(quote! { __w[2usize] = __w[1usize] * __w[1usize]; });
        let outputs = vec![quote! { __w[2usize] }];
        let out: Vec<String> = part_locals(statements, &outputs, 3).iter().map(squash).collect();
        assert_eq!(out[0], "let__w0:f64=x[0usize]*2.0;");
        assert_eq!(out[1], "__w[1usize]=(__w0+1.0).sin();");
        assert_eq!(out[part_statements()], "__w[2usize]=__w[1usize]*__w[1usize];");
    }
}
