//! Implementation of `#[derive(Mechanics)]`: parse (syn) → validated model → symbolic derivation →
//! emission (quote). A plain library so it can be unit-tested and benchmarked; the proc-macro crate
//! `routh-macros` is a thin wrapper around [`expand`].
//!
//! Expansion is deterministic (identical input, byte-identical output) and does no I/O.
#![forbid(unsafe_code)]

// Ground level, below every stage: errors, generated names, symbols, the model, notation.
mod diagnostics;
mod layout;
mod model;
mod names;
mod notation;
// The stages, in order.
mod derive;
mod emit;
mod lower;
mod parse;
/// The item keywords `#[mechanics(...)]` accepts (the DSL reference, `docs/dsl.md`, is checked
/// against it).
pub use parse::ITEMS;

pub mod fixtures;

use proc_macro2::TokenStream;

/// Expands `#[derive(Mechanics)]` on `input` (the struct's tokens). Errors become `compile_error!`s
/// with spans on the offending tokens, emitted together with the model's items (or, where the
/// derivation did not get that far, stubs of them: see the `fallback` module) so that the user's calls of
/// the model's API do not add errors of their own.
pub fn expand(input: TokenStream) -> TokenStream {
    on_large_stack(|| expand_here(input))
}

/// Stack reserved for one expansion: 1 GiB of address space.
const STACK: usize = 1 << 30;
/// Below this much stack left, an expansion moves to a segment of [`STACK`].
const RED_ZONE: usize = 512 << 20;

/// Runs `f` with at least [`RED_ZONE`] of stack: every pass over an expression (parsing's clone
/// and drop, lowering, the symbolic passes) recurses once per level of nesting, bounded by
/// [`parse::MAX_NESTING`] and [`symbolic::MAX_DEPTH`], which a machine-written Lagrangian (a sum of
/// 10 000 terms is a 10 000-deep tree to syn) needs more of than rustc's thread for a proc macro,
/// or a test's thread, has. A segment of the same thread, as rustc does for its own deep recursion
/// (token handles stay valid; the segment is reserved, not committed, until used).
fn on_large_stack<R>(f: impl FnOnce() -> R) -> R {
    stacker::maybe_grow(RED_ZONE, STACK, f)
}

fn expand_here(input: TokenStream) -> TokenStream {
    if let Err(e) = parse::check_nesting(&input) {
        return e.to_compile_error();
    }
    let input: syn::DeriveInput = match syn::parse2(input) {
        Ok(input) => input,
        Err(e) => return e.to_compile_error(),
    };
    let mut cx = diagnostics::Ctxt::new();
    let tokens = lower::system_from_input(&input, &mut cx).map(|s| derive_and_emit(s, &mut cx));
    match cx.check() {
        Ok(()) => tokens.unwrap_or_default(),
        Err(e) => {
            let mut out = e.to_compile_error();
            out.extend(tokens.unwrap_or_else(|| emit::fallback::stubs(&input)));
            out
        }
    }
}

/// Expands, returning the errors instead of `compile_error!` tokens.
///
/// One pipeline for every model: parse and lower into a `model::System`, derive each model's
/// equations, impacts, symmetries and reductions, emit. Every phase reports into one
/// `diagnostics::Ctxt` and goes on where it can, so independent mistakes are reported
/// together.
pub fn try_expand(input: TokenStream) -> syn::Result<TokenStream> {
    on_large_stack(|| try_expand_here(input))
}

fn try_expand_here(input: TokenStream) -> syn::Result<TokenStream> {
    parse::check_nesting(&input)?;
    let input: syn::DeriveInput = syn::parse2(input)?;
    let mut cx = diagnostics::Ctxt::new();
    let system = lower::system_from_input(&input, &mut cx);
    let tokens = system.map(|s| derive_and_emit(s, &mut cx));
    cx.check()?;
    Ok(tokens.unwrap_or_default())
}

/// Derivation and emission of a lowered system — one pipeline for every model: each mode is
/// derived ([`derive::mode`]) then emitted with its reductions ([`emit::mode`]), then the
/// system-level items (`simulate`, `HybridSystem`). Mistakes found on the way go to `cx`.
fn derive_and_emit(mut system: model::System, cx: &mut diagnostics::Ctxt) -> TokenStream {
    let hybrid = system.hybrid;
    let errors_before = cx.count();
    let derived: Vec<derive::Derived> =
        system.modes.iter().zip(&mut system.arenas).map(|(model, arena)| derive::mode(model, arena, hybrid, cx)).collect();
    // A derivation that outgrew the symbolic workspace's budget has placeholders for results:
    // what the derivation said of them (a coordinate without a kinetic term, say) is not so.
    if let Some((model, arena)) = system.modes.iter().zip(&system.arenas).find(|(_, arena)| arena.exhausted()) {
        cx.truncate(errors_before);
        cx.push(diagnostics::budget_exceeded(&model.lagrangian_tokens, arena, ""));
        return TokenStream::new();
    }
    let dims = system.mode_state_dims();
    let views = system.views();
    let door = emit::door::Door::new(system.krate.as_ref());
    let mut tokens = TokenStream::new();
    let modes: Vec<TokenStream> =
        views.iter().zip(&derived).map(|(model, derived)| emit::mode(model, derived, &dims, &system.vis)).collect();
    if system.is_single() {
        tokens.extend(modes);
    } else {
        // Each mode is emitted whole; what modes share is then emitted once (`emit::shared`).
        let idents: Vec<syn::Ident> = views
            .iter()
            .map(|m| m.mode.as_ref().map_or_else(|| system.name.clone(), |(_, mode)| names::mode_type(&system.name, mode)))
            .collect();
        let inputs = views.first().is_some_and(|m| !m.inputs.is_empty());
        tokens.extend(emit::shared::forward(modes, &idents, inputs));
    }
    tokens.extend(emit::system::items(&system, &views, &door));
    // The variational integrator's glue where its items were emitted (not where its derivation
    // failed), with its discrete reduction's cyclic coordinates.
    let discrete = derived.first().and_then(|d| d.discrete.as_ref()).map(|d| match d {
        derive::discrete::Discrete::Euclidean(de) => de.cyclic.as_slice(),
        derive::discrete::Discrete::Oriented(_) => &[],
    });
    tokens.extend(emit::erased::items(&system, &views, discrete));
    // The description files, included so that the compiler tracks them: editing one rebuilds.
    for path in &system.described {
        tokens.extend(quote::quote! { const _: &[u8] = ::core::include_bytes!(#path); });
    }
    tokens.extend(emit::model::limits(&system.name, &views[0], &system.limits));
    door.wrap(tokens)
}

/// Operation counts of the generated M-and-f code of a model (for benchmarks and reports).
pub fn dynamics_ops(input: TokenStream) -> syn::Result<symbolic::OpCount> {
    on_large_stack(|| dynamics_ops_here(input))
}

fn dynamics_ops_here(input: TokenStream) -> syn::Result<symbolic::OpCount> {
    parse::check_nesting(&input)?;
    let input: syn::DeriveInput = syn::parse2(input)?;
    let mut cx = diagnostics::Ctxt::new();
    let system = lower::system_from_input(&input, &mut cx);
    cx.check()?;
    let Some((model, mut arena)) = system.filter(model::System::is_single).and_then(|s| s.modes.into_iter().zip(s.arenas).next())
    else {
        return Err(syn::Error::new(input.ident.span(), "operation counts are reported for single-mode models"));
    };
    let equations = derive::euler_lagrange::derive(&model, &mut arena);
    Ok(emit::form::dynamics_ops(&model.view(&arena), &equations))
}

#[cfg(test)]
mod tests {
    #[test]
    fn expansion_is_deterministic() {
        let src: proc_macro2::TokenStream = crate::fixtures::pendulum_chain_struct("Chain4", 4).parse().unwrap();
        let a = crate::expand(src.clone()).to_string();
        let b = crate::expand(src).to_string();
        assert!(!a.contains("compile_error"), "{}", &a[..a.len().min(500)]);
        assert_eq!(a, b);
    }

    /// The generated code of the pendulum chain on the dense path grows no faster than n² (its M
    /// has n²/2 entries; f, derived through the link velocities, is O(n) sums of shared prefix
    /// sums), and so do the rustdoc formulas, whose blocks are capped (M's expanded entries are
    /// O(n) long).
    #[test]
    fn the_dense_expansion_of_a_chain_grows_no_faster_than_n_squared() {
        let size = |n: usize| {
            let src = crate::fixtures::pendulum_chain_struct_with(&format!("Chain{n}"), n, "dynamics = dense");
            crate::try_expand(src.parse().unwrap()).unwrap().to_string()
        };
        let (small, large) = (size(15), size(30));
        let ratio = large.len() as f64 / small.len() as f64;
        assert!(ratio < 4.0, "doubling n multiplied the expansion by {ratio:.2} ({} → {} bytes)", small.len(), large.len());
        assert!(large.contains("more entries elided"), "the 30-link chain's mass matrix documentation is capped");
        assert!(!size(5).contains("more entries elided"), "a small model's documentation is shown whole");
    }

    /// On the recursive path, with nothing that needs the dense M and f, the chain's code is linear
    /// in n: the recursion, M a, f, L, E and p each one pass along the tree
    /// (`derive::dynamics::kinetics`), and no expanded formula in the rustdoc.
    #[test]
    fn the_expansion_of_a_tree_grows_linearly() {
        let size = |n: usize| {
            let src = crate::fixtures::pendulum_chain_struct(&format!("Chain{n}"), n);
            crate::try_expand(src.parse().unwrap()).unwrap().to_string()
        };
        let (small, large) = (size(40), size(80));
        let ratio = large.len() as f64 / small.len() as f64;
        assert!(ratio < 2.2, "doubling n multiplied the expansion by {ratio:.2} ({} → {} bytes)", small.len(), large.len());
        assert!(large.contains("__routh_tree_factor") && !large.contains("fn __routh_dynamics"), "M is never formed");
    }

    /// A chain of links turning in space takes the spatial recursion by itself from 6 links on
    /// (`derive::dynamics::SPATIAL_MIN_DOF`: where it is faster than the dense field; at 3 the two are
    /// level), and from 12 with constraints (`SPATIAL_CONSTRAINED_MIN_DOF`).
    #[test]
    fn spatial_chains_take_the_recursion_from_six_links_and_twelve_with_constraints() {
        let dynamics = |n: usize| {
            let src = crate::fixtures::spatial_chain_struct_with(&format!("S{n}"), n, "");
            let out = crate::try_expand(src.parse().unwrap()).unwrap().to_string();
            let at = out.find("DYNAMICS").expect("the DYNAMICS constant");
            out[at..].split('"').nth(1).expect("its value").to_string()
        };
        assert_eq!((dynamics(5), dynamics(6)), ("dense".to_string(), "recursive".to_string()));
        // With constraints it keeps the dense M below 12 coordinates unless asked, takes M along
        // the links (factored densely) from 12 on — by the composite rigid bodies up to
        // `CRBA_MAX_PAIRS` pairs of joints one above the other, the runtime's above — and M factored
        // along the links (the runtime's `LinkFactor`) from 20 on. Unconstrained, M (for
        // `mass_matrix`) is by the composite rigid bodies up to that many pairs (n (n + 1) / 2: 17
        // links), the runtime's from the links' quantities above.
        let held = |n: usize| {
            let src = crate::fixtures::spatial_chain_struct_with(&format!("S{n}"), n, "holonomic(level = q2 - q4)");
            crate::try_expand(src.parse().unwrap()).unwrap().to_string()
        };
        let crba = "m [(0usize , 1usize)] = __e";
        let (dense, links, factor) = (held(11), held(12), held(20));
        assert!(dense.contains("__m [(1usize , 0usize)]") && !dense.contains("mass_from_products"), "the dense M at 11");
        assert!(
            links.contains(crba) && !links.contains("mass_from_products") && !links.contains("LinkFactor"),
            "M by the CRBA at 12"
        );
        assert!(!links.contains("__m [(1usize , 0usize)]"), "M never formed at 12");
        assert!(factor.contains("LinkFactor") && !factor.contains("__m [(1usize , 0usize)]"), "the links' factor at 20");
        let free = |n: usize| {
            let src = crate::fixtures::spatial_chain_struct_with(&format!("S{n}"), n, "");
            crate::try_expand(src.parse().unwrap()).unwrap().to_string()
        };
        assert_eq!(
            (crate::derive::dynamics::crba_pairs(&[None, Some(0), Some(1)]), crate::derive::dynamics::CRBA_MAX_PAIRS),
            (6, 160)
        );
        let (short, long) = (free(17), free(18));
        assert!(
            short.contains(crba) && !short.contains("mass_from_products"),
            "M by composite rigid bodies at 17 links (153 pairs)"
        );
        assert!(
            long.contains(". mass_matrix ()") && !long.contains(crba) && !long.contains("mass_from_products"),
            "M by the runtime from the links' quantities at 18 links (171 pairs)"
        );
    }

    /// The dense path of a model that is no tree the recursion reads (a chain of point masses in
    /// relative angles): its field Jacobian goes by the residual's tangent where ∂g/∂x's formulas
    /// outgrow `TANGENT_MIN_NODES` (from 16 links; at 12 by formulas), and M by columns from its
    /// product M a where M's entries outgrow `COLUMNS_MIN_NODES` (at 50 links, not 40) — or when
    /// asked with `dynamics = columns`; `dynamics = dense` keeps the entries. By columns, M's part of
    /// the code is M a (O(n²)) instead of n² entries (O(n³)).
    #[test]
    fn dense_models_take_m_by_columns_and_the_jacobian_by_tangents_where_the_formulas_outgrow_their_budget() {
        let expand = |n: usize, items: &str| {
            let src = crate::fixtures::relative_chain_struct_with(&format!("R{n}"), n, items);
            crate::try_expand(src.parse().unwrap()).unwrap().to_string()
        };
        let dynamics = |out: &str| {
            let at = out.find("DYNAMICS").expect("the DYNAMICS constant");
            out[at..].split('"').nth(1).expect("its value").to_string()
        };
        let (tangent, formulas) = ("__routh_residual_tangent", "__routh_residual_jacobian");
        let small = expand(12, "jacobian");
        assert_eq!(dynamics(&small), "dense");
        assert!(small.contains(formulas) && !small.contains(tangent), "∂g/∂x by formulas at 12 links");
        let sixteen = expand(16, "jacobian");
        assert_eq!(dynamics(&sixteen), "dense");
        assert!(sixteen.contains(tangent) && !sixteen.contains("mass_from_products"), "g's tangent, M's entries at 16");
        assert!(sixteen.len() < small.len(), "the tangent keeps the code small: {} and {} bytes", small.len(), sixteen.len());
        // (M by columns by size at 50 links, not 40: `derive::tests`.) As asked, whatever the size;
        // by columns, M's part of the code is its product's (151 kB against 379 kB).
        let (asked, entries) = (expand(12, "dynamics = columns, jacobian"), expand(12, "dynamics = dense, jacobian"));
        assert_eq!((dynamics(&asked), dynamics(&entries)), ("columns".to_string(), "dense".to_string()));
        assert!(asked.contains("mass_from_products") && asked.contains(tangent));
        assert!(!entries.contains("mass_from_products") && !entries.contains(tangent));
        assert!(2 * asked.len() < entries.len(), "{} and {} bytes", asked.len(), entries.len());
    }

    /// A chain of links turning in space derives nothing dense: its recursion, M a, f, L, E and p
    /// are passes along its links, so its code grows as n (n log n with the temporaries' longer
    /// names: 2.26 times from 20 to 40 links, 2.07 from 24 to 48).
    #[test]
    fn the_expansion_of_a_spatial_chain_grows_as_n_log_n() {
        // Both sizes' long functions in parts (above 400 statements; 3000 outside tests, between
        // the two, where the parts' own code would be the growth measured).
        crate::emit::codegen::SPLIT_AT.set(400);
        let size = |n: usize| {
            let src = crate::fixtures::spatial_chain_struct_with(&format!("S{n}"), n, "");
            crate::try_expand(src.parse().unwrap()).unwrap().to_string()
        };
        // (Both with M factored along their links: from `LINK_FACTOR_MIN_DOF` = 20 on.)
        let (small, large) = (size(20), size(40));
        let ratio = large.len() as f64 / small.len() as f64;
        let n_log_n = 2.0 * 40f64.ln() / 20f64.ln();
        assert!(
            ratio < n_log_n,
            "doubling n multiplied the expansion by {ratio:.2} > {n_log_n:.2} ({} → {} bytes)",
            small.len(),
            large.len()
        );
        // M is the runtime's from the links' quantities; no entry of it is a formula of its own.
        assert!(large.contains(". mass_matrix ()") && !large.contains("__m [(1usize , 0usize)]"), "M is never formed");
    }

    /// The chain's f is derived through the link velocities (no products that cancel)
    /// and emitted with shared factors out and prefix sums; the expanded route took 658 additions
    /// and 1041 multiplications for M and f of the 10-link chain, a hand-written O(n²) field about
    /// 750 operations in all.
    #[test]
    fn the_chain_dynamics_take_few_operations() {
        let src: proc_macro2::TokenStream = crate::fixtures::pendulum_chain_struct("Chain10", 10).parse().unwrap();
        let ops = crate::dynamics_ops(src).unwrap();
        assert!(ops.adds <= 250 && ops.muls <= 450 && ops.calls == 20, "{ops:?}");
    }

    /// The six-joint arm of `tests/robots/arm6.urdf` (two of its joints behind quarter turns of
    /// their frames): every joint's transform splits into its constant part, a permutation, and its
    /// turn about its axis, and q̈ by the recursion takes few operations: 695 additions (negations
    /// among them, where a sum's only positive term is the last ready) and 758 multiplications
    /// (662 and 839 with the sums' terms in their canonical order; 821 and 1271 with the whole
    /// transforms, the velocity products from the
    /// parents' velocities and each coefficient multiplied where it stands; 821 and 1075 with
    /// the coefficients shared; 705 and 879 with each articulated inertia's row and column along
    /// its joint's axis left to the algebra, U_y − D (U_y / D) for an exact zero).
    #[test]
    fn an_arms_recursion_turns_each_joint_apart_from_its_constant_part() {
        let (turns, recursion, mass) = arm_operations("../../tests/robots/arm6.urdf");
        assert!(turns, "every joint a turn behind a constant part");
        assert!(recursion.adds <= 700 && recursion.muls <= 770 && recursion.divs == 5, "{recursion:?}");
        // M by the composite rigid bodies: each column's force carried up through a joint's turn
        // and then its constant part, as the passes carry theirs (218 additions and 230
        // multiplications; 227 and 268 through the whole transform).
        assert!(mass.adds <= 220 && mass.muls <= 235, "{mass:?}");
    }

    /// The same arm with its quarter turns printed to eleven decimals (`tests/robots/arm6_printed.urdf`:
    /// 1.57079632679, 4.9·10⁻¹² rad short of one, as the UR5's file prints them), read as written:
    /// the origins' turns about the joints' own axes taken into their angles (`joint(...)`), so that
    /// every joint is again a turn behind a constant part (a permutation): the recursion 757
    /// additions and 839 multiplications, M 245 and 260, where the constant turns left in the
    /// frames split only two joints and took 1151 and 1552, M 390 and 599. What is left above the
    /// exact file's is the tool's fixed joint turned by 1.57079632679 about z: constants (cos and
    /// sin of it, the tool's inertia turned), which the compiler folds — with that angle written
    /// as π/2 the printed file's recursion takes 679 and 754, M 218 and 230.
    #[test]
    fn an_arms_origin_turned_about_its_joints_axis_by_no_multiple_of_pi_is_the_joints_angle() {
        let (turns, recursion, mass) = arm_operations("../../tests/robots/arm6_printed.urdf");
        assert!(turns, "every joint a turn behind a constant part");
        assert!(recursion.adds <= 760 && recursion.muls <= 840 && recursion.divs == 6, "{recursion:?}");
        assert!(mass.adds <= 248 && mass.muls <= 262, "{mass:?}");
    }

    /// The arm of the URDF file at `path`: whether every joint is a turn behind a constant part,
    /// and the operations of q̈ by the recursion (with its pivots) and of M's entries.
    fn arm_operations(path: &str) -> (bool, symbolic::OpCount, symbolic::OpCount) {
        let src = format!(r#"#[mechanics(urdf = "{path}", gravity = [0, 0, -g])] pub struct Arm {{ pub g: f64 }}"#);
        let (model, mut arena) = crate::fixtures::lowered_model(&src);
        let mut cx = crate::diagnostics::Ctxt::new();
        let form = crate::derive::dynamics::form(&model, &mut arena, false, &mut cx);
        cx.check().unwrap();
        let r = form.recursion().expect("the recursion");
        let crate::derive::dynamics::Links::Spatial(links) = &r.tree else { panic!("spatial links") };
        let turns = links.joints.iter().all(|j| j.turn.is_some());
        let view = model.view(&arena);
        let symbol = |s| crate::emit::codegen::symbol_tokens(&view, s);
        let mut outputs = r.accelerations.clone();
        outputs.extend(&r.pivots);
        let recursion = symbolic::emit_bound(&arena, &r.bindings, &outputs, &symbol, "__w").ops;
        let k = form.kinetics().expect("the kinetics along the links");
        let m = k.mass_entries.as_ref().expect("M's entries");
        (turns, recursion, symbolic::emit_bound(&arena, &m.bindings, &m.outputs, &symbol, "__w").ops)
    }

    /// The functions of a generated model's `impl`s whose names start with `prefix`, as text (the
    /// impls stand in the anonymous constant that imports the door).
    fn functions(out: proc_macro2::TokenStream, prefix: &str) -> Vec<String> {
        let file: syn::File = syn::parse2(out).unwrap();
        let mut found = Vec::new();
        let items = file.items.into_iter().flat_map(|item| match item {
            syn::Item::Const(c) => match *c.expr {
                syn::Expr::Block(b) => b
                    .block
                    .stmts
                    .into_iter()
                    .filter_map(|s| if let syn::Stmt::Item(i) = s { Some(i) } else { None })
                    .collect::<Vec<_>>(),
                _ => Vec::new(),
            },
            other => vec![other],
        });
        for item in items {
            if let syn::Item::Impl(imp) = item {
                for it in imp.items {
                    if let syn::ImplItem::Fn(f) = it
                        && f.sig.ident.to_string().starts_with(prefix)
                    {
                        found.push(quote::quote!(#f).to_string());
                    }
                }
            }
        }
        found
    }

    /// The recursion's tangent (the field Jacobian of a tree, one call per basis direction) reads
    /// the coordinates' sines and cosines from the quantities computed once per state: none is
    /// evaluated in it; the primal computes the twelve angles' together, in one call.
    #[test]
    fn the_recursions_tangent_evaluates_no_function_of_the_state() {
        let src: proc_macro2::TokenStream =
            crate::fixtures::pendulum_chain_struct_with("Chain12", 12, "jacobian").parse().unwrap();
        let out = crate::try_expand(src).unwrap();
        let (tangent, primal) = (functions(out.clone(), "__routh_recursive_tangent"), functions(out, "__routh_recursive_primal"));
        assert!(!tangent.is_empty() && !primal.is_empty());
        for f in &tangent {
            assert!(!f.contains(". sin ()") && !f.contains(". cos ()") && !f.contains("sin_cos"), "{f}");
        }
        let primal = primal.join("\n");
        assert_eq!(primal.matches("__routh :: sin_cos").count(), 1, "{primal}");
        assert!(primal.contains("[f64 ; 12usize]") && !primal.contains(". sin ()"), "{primal}");
    }

    /// A long discrete step's left map (with Newton's Jacobian) and its blocks are one computation
    /// in two phases: the left map calls only the first phase's parts, which never see the second
    /// array; the blocks call them, then the second phase's, which read the first array and write
    /// their own; where the two are short, the blocks are a function of their own with J.
    #[test]
    fn a_long_discrete_steps_blocks_read_the_left_maps_values() {
        let src = |name: &str| -> proc_macro2::TokenStream {
            format!(
                "#[mechanics(coordinates(x), orientation(b), \
                 body(name = top, mass = m, centre = [x, 0, 0] + b * [0, 0, l], frame = b, inertia = diag(a1, a2, c)), \
                 gravity = [0, 0, -g], force(x = -k * x), discrete(rule = midpoint))] \
                 struct {name} {{ m: f64, l: f64, a1: f64, a2: f64, c: f64, g: f64, k: f64 }}"
            )
            .parse()
            .unwrap()
        };
        // Short: plain functions, the blocks with J.
        let out = crate::try_expand(src("Short")).unwrap();
        assert!(functions(out.clone(), "__routh_discrete_left_part").is_empty());
        let blocks = functions(out, "__routh_discrete_blocks");
        assert!(blocks[0].contains("left_dnext") && !blocks[0].contains("__routh_discrete_left"), "{}", blocks[0]);
        // Long (parts from 100 statements here).
        crate::emit::codegen::SPLIT_AT.set(100);
        let out = crate::try_expand(src("Long")).unwrap();
        let parts = functions(out.clone(), "__routh_discrete_left_part");
        let (second, first): (Vec<&String>, Vec<&String>) = parts.iter().partition(|f| f.contains("__v"));
        assert!(!first.is_empty() && !second.is_empty(), "{} parts", parts.len());
        for part in &second {
            assert!(part.contains("__w : & [f64") && part.contains("__v : & mut [f64"), "{part}");
        }
        let call = |part: &String| {
            let name = part.split("fn ").nth(1).and_then(|rest| rest.split_whitespace().next()).unwrap();
            format!("self . {name} :: < () >")
        };
        let left = functions(out.clone(), "__routh_discrete_left");
        let left = left.iter().find(|f| f.contains("fn __routh_discrete_left (")).unwrap();
        let blocks = functions(out, "__routh_discrete_blocks");
        for part in &first {
            assert!(left.contains(&call(part)) && blocks[0].contains(&call(part)), "{}", call(part));
        }
        for part in &second {
            assert!(!left.contains(&call(part)) && blocks[0].contains(&call(part)), "{}", call(part));
        }
        // Phase one before phase two in the blocks.
        let position = |part: &String| blocks[0].find(&call(part)).unwrap();
        let last_first = first.iter().map(|p| position(p)).max().unwrap();
        assert!(second.iter().all(|p| position(p) > last_first));
    }

    /// The parts of a long body live in modules of their own beside the model, so that rustc
    /// compiles them as codegen units of their own (in parallel): each module, outside the
    /// expansion's constant, declares a unit type `__Part`, whose impl inside it holds the part as
    /// an associated function receiving the model (no `self` left in its statements), called
    /// through the model's hidden method of the same name; a second phase's part reads each slot
    /// of either array once, into a local.
    #[test]
    fn long_bodies_are_parts_in_modules_of_their_own() {
        crate::emit::codegen::SPLIT_AT.set(100);
        let src: proc_macro2::TokenStream = "#[mechanics(coordinates(x), orientation(b), \
             body(name = top, mass = m, centre = [x, 0, 0] + b * [0, 0, l], frame = b, inertia = diag(a1, a2, c)), \
             gravity = [0, 0, -g], force(x = -k * x), discrete(rule = midpoint))] \
             struct Long { m: f64, l: f64, a1: f64, a2: f64, c: f64, g: f64, k: f64 }"
            .parse()
            .unwrap();
        let out = crate::try_expand(src).unwrap();
        let file: syn::File = syn::parse2(out.clone()).unwrap();
        let mut modules = Vec::new();
        let mut inside = Vec::new();
        for item in file.items {
            match item {
                syn::Item::Mod(m) => {
                    let content = quote::quote!(#m).to_string();
                    assert!(content.contains("pub (super) struct __Part ;"), "{content}");
                    modules.push(m.ident.to_string());
                }
                syn::Item::Const(c) => {
                    if let syn::Expr::Block(b) = *c.expr {
                        inside.extend(
                            b.block.stmts.into_iter().filter_map(|s| if let syn::Stmt::Item(i) = s { Some(i) } else { None }),
                        );
                    }
                }
                _ => {}
            }
        }
        let mut homes = Vec::new();
        let mut second = 0;
        for item in inside {
            let syn::Item::Impl(imp) = item else { continue };
            assert!(!matches!(imp.items.first(), Some(syn::ImplItem::Fn(f)) if f.sig.ident == "__Part"));
            let syn::Type::Path(path) = &*imp.self_ty else { continue };
            let segments: Vec<String> = path.path.segments.iter().map(|s| s.ident.to_string()).collect();
            let [home, last] = &segments[..] else { continue };
            if last != "__Part" {
                continue;
            }
            assert!(modules.contains(home) && home.ends_with("_Long"), "{home} among {modules:?}");
            homes.push(home.clone());
            for it in imp.items {
                let syn::ImplItem::Fn(f) = it else { panic!("only the part in {home}") };
                let text = quote::quote!(#f).to_string();
                assert!(home.starts_with(&f.sig.ident.to_string()), "{home} holds {}", f.sig.ident);
                assert!(text.contains("(__this : & Long ,") && !text.contains("self"), "{text}");
                if text.contains("__v : & mut [f64") {
                    second += 1;
                    for array in ["__w", "__v"] {
                        let mut seen = std::collections::HashSet::new();
                        for (at, _) in text.match_indices(&format!("{array} [")) {
                            let slot = &text[at..at + text[at..].find(']').unwrap()];
                            assert!(seen.insert(slot.to_string()), "{slot} twice in {}", f.sig.ident);
                        }
                    }
                }
            }
        }
        homes.sort();
        let mut all = modules.clone();
        all.sort();
        assert_eq!(homes, all, "one module per part");
        assert!(second > 0 && homes.len() > second, "{} parts, {second} of the second phase", homes.len());
        // The model's hidden impl forwards each part's call to its home.
        let forwards = functions(out, "__routh_discrete_left_part");
        for home in &homes {
            assert!(forwards.iter().any(|f| f.contains(&format!("{home} :: __Part ::"))), "{home}");
        }
    }

    /// A long dense M-and-f body stores every entry of M's lower triangle and of f where the
    /// runtime factors it (no scratch slot copied into M afterwards).
    #[test]
    fn a_long_dense_body_writes_m_and_f_in_place() {
        // Split above 400 statements (3000 outside tests: this body is ~700 long).
        crate::emit::codegen::SPLIT_AT.set(400);
        let src: proc_macro2::TokenStream =
            crate::fixtures::pendulum_chain_struct_with("Chain30", 30, "dynamics = dense").parse().unwrap();
        let out = crate::try_expand(src).unwrap();
        let parts = functions(out.clone(), "__routh_dynamics_part");
        assert!(parts.len() > 1, "the body is split");
        let stores = |needle: &str| parts.iter().map(|f| f.matches(needle).count()).sum::<usize>();
        assert_eq!(stores("__m [("), 30 * 31 / 2);
        assert_eq!(stores("__f ["), 30);
        let outer = functions(out, "__routh_dynamics");
        let outer = outer.iter().find(|f| f.starts_with("# [doc") && f.contains("fn __routh_dynamics (")).unwrap();
        assert!(!outer.contains("__m [("), "{outer}");
    }

    /// A symmetry's momentum under an impact's map law is proved on J written out, on a tree as on
    /// the dense path: a cart with a pendulum, translations in x, a law that reverses the cart
    /// (J changes) and one that reverses nothing but the pendulum's swing about the hanging
    /// (J kept only if ẋ's share is untouched — it is not: p_x reads ȧ), and the identity (kept).
    #[test]
    fn map_laws_prove_the_same_momentum_claims_along_a_tree() {
        let expand = |dynamics: &str| {
            let src: proc_macro2::TokenStream = format!(
                "#[mechanics(coordinates(x, a), define(xa = x + l * a.sin(), ya = -l * a.cos()),
                    lagrangian = mx / 2 * dot(x).powi(2) + m / 2 * (dot(xa).powi(2) + dot(ya).powi(2)) - m * g * ya,
                    symmetry(cyclic(x)),
                    impact(name = wall, guard = x + w, law = map(dot(x) = -dot(x))),
                    impact(name = swing, guard = a + 1, law = map(dot(a) = -dot(a))),
                    impact(name = still, guard = a - 1, law = map(dot(a) = dot(a))),
                    dynamics = {dynamics})]
                struct Cart {{ mx: f64, m: f64, l: f64, g: f64, w: f64 }}"
            )
            .parse()
            .unwrap();
            crate::try_expand(src).unwrap().to_string()
        };
        let (tree, dense) = (expand("recursive"), expand("dense"));
        for (impact, claim) in
            [("wall", "its reset changes J"), ("swing", "its reset changes J"), ("still", "its reset preserves J")]
        {
            let needle = format!("Impact `{impact}`: its guard is");
            for out in [&tree, &dense] {
                let at = out.find(&needle).unwrap_or_else(|| panic!("no claim for `{impact}`"));
                let sentence = &out[at..at + out[at..].find('.').unwrap()];
                assert!(sentence.contains(claim), "{impact}: {sentence}");
            }
        }
        assert!(tree.contains("__routh_tree_factor") && !dense.contains("__routh_tree_factor"));
    }

    #[test]
    fn contact_models_document_their_herglotz_form() {
        let src: proc_macro2::TokenStream = "
            #[mechanics(coordinates(x), action(z), lagrangian = m / 2 * dot(x).powi(2) - k / 2 * x.powi(2) - c * z, jacobian)]
            struct Damped { m: f64, k: f64, c: f64 }"
            .parse()
            .unwrap();
        let out = crate::try_expand(src).unwrap().to_string();
        for needle in [
            "Herglotz",
            "decouples",
            "ACTION_DECOUPLED : bool = true",
            // The state (q, q̇, z), its field with ż = L and the Jacobian's row ∂L/∂x, by the state layout.
            "state_with_action",
            "Some (self . lagrangian (t , x))",
            "Some ((gz , & self . __routh_lagrangian_gradient (t , x)))",
            "E(t₀)·e^(c (t − t₀))",
        ] {
            assert!(out.contains(needle), "expansion lacks `{needle}`");
        }
    }

    /// A mode's methods that do not see its contacts forward to the first mode's (M, the forcing,
    /// the energy); those that do keep their code; a zeroed matrix gets no zero sets.
    #[test]
    fn modes_share_what_their_contacts_do_not_change() {
        let src: proc_macro2::TokenStream = "#[mechanics(
            coordinates(x, y),
            lagrangian = m / 2 * (dot(x).powi(2) + dot(y).powi(2)) - m * g * y + k * x * y,
            unilateral(name = floor, guard = y - x.powi(2), law = restitution(e)),
            unilateral(name = wall, guard = x, law = restitution(e)),
        )] struct Cup { m: f64, g: f64, k: f64, e: f64 }"
            .parse()
            .unwrap();
        let out = crate::try_expand(src).unwrap();
        let text = out.to_string();
        let method = |name: &str| -> Vec<String> {
            functions(out.clone(), name)
                .into_iter()
                .filter(|f| f.starts_with(&format!("pub fn {name} (")) || f.contains(&format!("fn {name} (")))
                .collect()
        };
        // Modes free, floor, wall, floor_wall: M in the last three forwards to free's.
        let masses = method("mass_matrix");
        assert_eq!(masses.iter().filter(|f| f.contains("CupFree (self . 0) . mass_matrix (t , x)")).count(), 3, "{masses:#?}");
        // The constrained accelerations see each mode's rows: floor_wall's are its own, not floor's.
        let rows = method("__routh_constraint_rows");
        assert_eq!(rows.len(), 3, "{rows:#?}");
        assert!(rows.iter().all(|f| !f.contains("(self . 0)")), "each mode's rows are its own: {rows:#?}");
        let accelerations = method("accelerations");
        assert!(
            accelerations.iter().all(|f| !f.contains("CupFloor (self . 0)") && !f.contains("CupWall (self . 0)")),
            "{accelerations:#?}"
        );
        // A bouncing law (e a parameter) is not the settling's projection: each keeps its own.
        let settle = method("settle_floor_reset_jacobian");
        assert!(settle.iter().all(|f| !f.contains("self . floor_reset_jacobian (t , x)")), "{settle:#?}");
        // The reset Jacobians' rows start zeroed: no zero is set into them.
        assert!(text.contains("fn floor_reset_jacobian"), "an impact's reset Jacobian");
        let zero_sets: Vec<&str> = text
            .match_indices(")] = 0.0_f64 ;")
            .map(|(at, _)| text[..at].rsplit(';').next().unwrap_or_default())
            .filter(|set| !set.trim_start().starts_with("__m ["))
            .collect();
        assert!(zero_sets.is_empty(), "zero sets into zeroed matrices: {zero_sets:?}");
    }

    /// A `project` transition's reset is the projection onto the constraints of the mode it enters,
    /// which that mode generates once (`__routh_arrival_reset`); a plastic landing projects onto
    /// the contacts held after it, the same rows as the settling into them: the derive proves the
    /// rows the same and the landing calls the settling; a landing with other rows keeps its own.
    #[test]
    fn a_plastic_landing_calls_the_projection_of_the_mode_it_enters() {
        let expand = |wall: &str| {
            let src: proc_macro2::TokenStream = format!(
                "#[mechanics(
                    coordinates(x, y),
                    lagrangian = m / 2 * (dot(x).powi(2) + dot(y).powi(2)) - m * g * y + k * x * y,
                    unilateral(name = floor, guard = y - x.powi(2), law = restitution(0)),
                    {wall}
                )] struct Cup {{ m: f64, g: f64, k: f64 }}"
            )
            .parse()
            .unwrap();
            crate::try_expand(src).unwrap()
        };
        let bodies = |out: &proc_macro2::TokenStream, name: &str| -> Vec<String> {
            functions(out.clone(), name).into_iter().filter(|f| f.contains(&format!("fn {name} ("))).collect()
        };
        let out = expand("unilateral(name = wall, guard = x, law = restitution(0)),");
        // Modes free, floor, wall, floor_wall: each settling from the two modes it leaves into the
        // mode that holds its contact, each landing the same.
        for (landing, entered) in [("floor", ["CupFloor", "CupFloorWall"]), ("wall", ["CupWall", "CupFloorWall"])] {
            let settles = bodies(&out, &format!("settle_{landing}_reset_jacobian"));
            assert_eq!(settles.len(), 2, "{settles:#?}");
            for view in entered {
                let call = format!("{view} (self . 0) . __routh_arrival_reset_jacobian (t , x)");
                assert!(settles.iter().any(|f| f.contains(&call)), "{call}: {settles:#?}");
            }
            let landings = bodies(&out, &format!("{landing}_reset_jacobian"));
            let call = format!("self . settle_{landing}_reset_jacobian (t , x)");
            assert!(landings.len() == 2 && landings.iter().all(|f| f.contains(&call)), "{landings:#?}");
            assert!(bodies(&out, &format!("__routh_{landing}_solve")).is_empty(), "no law of its own");
        }
        // The three modes with constraints generate the projection, the free mode not.
        assert_eq!(bodies(&out, "__routh_arrival_solve").len(), 3);
        // A landing on the wall that pushes along another row (a one-form) projects onto other rows.
        let out = expand("unilateral(name = wall, guard = x, law = restitution(dy: 0)),");
        let landings = bodies(&out, "wall_reset_jacobian");
        assert!(!landings.is_empty() && landings.iter().all(|f| !f.contains("self . settle_wall")), "{landings:#?}");
        // A mode with a Lagrangian of its own has another metric: the transition into it projects
        // with its source's, as its own law.
        let modes = |slide: &str| {
            let src: proc_macro2::TokenStream = format!(
                "#[mechanics(
                    coordinates(x, y),
                    lagrangian = m / 2 * (dot(x).powi(2) + dot(y).powi(2)) - m * g * y + k * dot(x) * dot(y),
                    mode(flight, impact(name = floor, guard = y - x.powi(2), law = restitution(0))),
                    mode(slide, {slide} holonomic(contact = y - x.powi(2))),
                    transition(flight -> slide, name = settle, zeno = floor, law = project),
                    transition(slide -> flight, name = liftoff, guard = multiplier(contact), law = map()),
                )] struct Bead {{ m: f64, g: f64, k: f64 }}"
            )
            .parse()
            .unwrap();
            crate::try_expand(src).unwrap()
        };
        let out = modes("");
        assert!(bodies(&out, "settle_reset_jacobian").iter().all(|f| f.contains("BeadSlide (self . 0) . __routh_arrival")));
        assert!(bodies(&out, "floor_reset_jacobian").iter().all(|f| f.contains("self . settle_reset_jacobian")));
        let out = modes("lagrangian = m * (dot(x).powi(2) + dot(y).powi(2)) - m * g * y,");
        let settles = bodies(&out, "settle_reset_jacobian");
        assert!(!settles.is_empty() && settles.iter().all(|f| !f.contains("__routh_arrival")), "{settles:#?}");
        assert!(bodies(&out, "__routh_arrival_solve").is_empty());
    }

    #[test]
    fn a_constraints_parts_are_derived_in_the_first_mode_that_holds_it() {
        let expand = |src: &str| crate::try_expand(src.parse().unwrap()).unwrap();
        let bodies = |out: &proc_macro2::TokenStream, name: &str| -> Vec<String> {
            functions(out.clone(), name).into_iter().filter(|f| f.contains(&format!("fn {name} ("))).collect()
        };
        let out = expand(
            "#[mechanics(
                coordinates(x, y),
                lagrangian = m / 2 * (dot(x).powi(2) + dot(y).powi(2)) - m * g * y + k * x * y,
                unilateral(name = floor, guard = y - x.powi(2), law = restitution(0)),
                unilateral(name = wall, guard = x, law = restitution(e)),
            )] struct Cup { m: f64, g: f64, k: f64, e: f64 }",
        );
        // Modes free, floor, wall, floor_wall: each constraint's parts (and its row of A, b, c)
        // derived in the mode that holds it alone, and called from the mode that holds both.
        for (c, owner) in [("floor", "CupFloor"), ("wall", "CupWall")] {
            for part in ["saddle_jacobian", "state_jacobian", "row"] {
                let name = format!("__routh_{c}_{part}");
                let found = bodies(&out, &name);
                assert_eq!(found.len(), 2, "{found:#?}");
                let call = format!("{owner} (self . 0) . {name} (t , x");
                let forwards = found.iter().filter(|f| f.contains(&call)).count();
                assert_eq!(forwards, 1, "{call}: {found:#?}");
            }
        }
        // Along a tree the projection that a settling solves is by constraint too: each contact's
        // part in the mode that holds it alone.
        let out = expand(
            "#[mechanics(
                coordinates(x, a),
                define(xa = x + l * a.sin(), ya = -l * a.cos()),
                lagrangian = mx / 2 * dot(x).powi(2) + m / 2 * (dot(xa).powi(2) + dot(ya).powi(2)) - m * g * ya,
                unilateral(name = wall, guard = x + w, law = restitution(0)),
                unilateral(name = floor, guard = ya + h, law = restitution(0)),
                dynamics = recursive,
            )] struct Cart { mx: f64, m: f64, l: f64, g: f64, w: f64, h: f64 }",
        );
        for (c, owner) in [("wall", "CartWall"), ("floor", "CartFloor")] {
            let name = format!("__routh_{c}_arrival_jacobian");
            let found = bodies(&out, &name);
            let call = format!("{owner} (self . 0) . {name} (t , x , vp , lam)");
            assert!(found.len() == 2 && found.iter().filter(|f| f.contains(&call)).count() == 1, "{call}: {found:#?}");
        }
        // The projection into a mode solves with the mode's own rows.
        let solves = bodies(&out, "__routh_arrival_solve");
        assert!(solves.len() == 3 && solves.iter().all(|f| f.contains("self . __routh_constraint_rows (t , x)")), "{solves:#?}");
        // A mode with a Lagrangian (or dynamics) of its own lowers the constraint in another
        // model: it derives its parts itself.
        let modes = |stick: &str| {
            expand(&format!(
                "#[mechanics(
                    coordinates(x, y),
                    lagrangian = m / 2 * (dot(x).powi(2) + dot(y).powi(2)) - m * g * y,
                    mode(slide, holonomic(contact = y - x.powi(2))),
                    mode(stick, {stick} holonomic(contact = y - x.powi(2)), holonomic(grip = x)),
                    transition(slide -> stick, name = grab, guard = x, law = map()),
                    transition(stick -> slide, name = letgo, guard = multiplier(grip), law = map()),
                )] struct Bead {{ m: f64, g: f64 }}"
            ))
        };
        // (Where its tokens come out the same, `emit::shared` may still forward them; the owned
        // forward says whose part it is.)
        let owned = "The same in every mode that holds `contact`: mode `slide`";
        let found = bodies(&modes(""), "__routh_contact_saddle_jacobian");
        assert!(found.len() == 2 && found.iter().filter(|f| f.contains(owned)).count() == 1, "{found:#?}");
        for own in ["lagrangian = m * (dot(x).powi(2) + dot(y).powi(2)) - m * g * y,", "dynamics = dense,"] {
            let found = bodies(&modes(own), "__routh_contact_saddle_jacobian");
            assert!(found.len() == 2 && found.iter().all(|f| !f.contains(owned)), "{own}: {found:#?}");
        }
    }

    #[test]
    fn the_field_jacobian_is_generated_when_asked_for_or_needed() {
        let expand = |items: &str| {
            let src: proc_macro2::TokenStream = format!(
                "#[mechanics(coordinates(x), lagrangian = m / 2 * dot(x).powi(2) - x.powi(4){items})] struct P {{ m: f64 }}"
            )
            .parse()
            .unwrap();
            crate::try_expand(src).unwrap().to_string()
        };
        let has = |out: &str| out.contains("pub fn jacobian");
        assert!(!has(&expand("")), "not asked for");
        assert!(has(&expand(", jacobian")));
        assert!(has(&expand(", sensitivity(m)")), "the sensitivities integrate it");
        assert!(
            has(&expand(", impact(name = wall, guard = x, law = restitution(1))")),
            "periodic orbits of hybrid systems need it"
        );
        assert!(has(&expand(", input(u), force(x = u)")), "the linearisation of a driven model is it");
    }
}
