//! Emission of guards, resets and the `HybridSystem` implementation for models with impacts.
//!
//! Per impact `name`: `name_guard`, `name_guard_gradient`, `name_guard_rate`, `name_reset`,
//! `name_reset_jacobian` (∂Δ/∂x), each documented with its derived formula; the impact law itself
//! is described in [`crate::derive::impact`].

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use symbolic::Expr;

use crate::derive::impact::{ImpactEquations, Reset, RowPart};
use crate::emit::codegen::{Helpers, allow_generated, matrix, square_matrix, zeroed_sets};
use crate::model::{Trigger, View};
use crate::notation::{doc_block, formula};

/// Inherent methods for every impact (appended to the model's `impl`) and the part functions
/// they need.
/// `dims[k]` is the state dimension of mode k (for a transition's target state).
pub fn methods(model: &View<'_>, impacts: &[ImpactEquations], dims: &[usize], helpers: &mut Helpers) -> TokenStream {
    let mut items = Vec::new();
    for ie in impacts {
        // The guard's functions first, then the reset's (the order of their part functions).
        let guard_items = guard_items(model, ie, helpers);
        let reset_items = match &ie.reset {
            Reset::Projection { .. } => projection_reset(model, &ie.name.to_string(), &ie.reset, helpers),
            Reset::Chart { .. } => chart_reset(model, ie, dims, helpers),
            Reset::Map { .. } => map_reset(model, ie, helpers),
            &Reset::Same { impact, .. } => {
                let of = &impacts[impact].name;
                let doc = format!(
                    " Reset of `{}`: the kinetic-metric projection onto the constraints held after it, which \
                     `{of}`'s plastic law solves with the same rows (in another order, which permutes the impulses \
                     only) — [`Self::{of}_reset`], whose rows and formula its documentation gives.",
                    ie.name
                );
                forwarded_reset(model, ie, (quote!(self), &of.to_string()), &doc)
            }
            Reset::Arrival { mode, .. } => {
                let view = crate::names::mode_type(&model.name, mode);
                let receiver = crate::emit::codegen::sibling_view(&view, !model.inputs.is_empty());
                let doc = format!(
                    " Reset of transition `{}`: the kinetic-metric projection onto the constraints of mode `{mode}`, \
                     which that mode generates once for every transition into it (`{view}::{ARRIVAL}_reset`, its \
                     rows and formula in its documentation).",
                    ie.name
                );
                forwarded_reset(model, ie, (receiver, ARRIVAL), &doc)
            }
        };
        items.push(quote! {
            #guard_items

            #reset_items
        });
    }
    quote! { #(#items)* }
}

/// The guard `h`, its gradient and its rate (or, for a release, the multiplier and its rate).
fn guard_items(model: &View<'_>, ie: &ImpactEquations, helpers: &mut Helpers) -> TokenStream {
    let Scope { p, state, name, none, .. } = Scope::of(model, ie);
    let guard_fn = format_ident!("{name}_guard");
    let grad_fn = format_ident!("{name}_guard_gradient");
    let rate_fn = format_ident!("{name}_guard_rate");
    let mut emit = |outputs: &[Expr], part: &str, params: &TokenStream, args: &TokenStream| {
        helpers.body(model, outputs, &format!("__routh_{name}_{part}"), params, args)
    };
    let (g_stmts, g_vals) = emit(&[ie.guard], "guard", &none, &none);
    let (gr_stmts, gr_vals) = emit(&ie.gradient, "gradient", &none, &none);
    let (r_stmts, r_vals) = emit(&[ie.rate], "rate", &none, &none);
    let g_doc = doc_block(
        &format!("Guard of impact `{name}`: the admissible side is h ≥ 0; the impact fires when h reaches 0 with dh/dt < 0."),
        &[("h".into(), formula(model, ie.guard))],
    );
    let mut grad_lines: Vec<(String, String)> =
        (0..p).map(|i| (format!("∂h/∂{}", model.coordinates[i]), formula(model, ie.gradient[i]))).collect();
    let contact = model.layout.z.is_some();
    if let (Some(z), Some(&g)) = (&model.action, ie.gradient.get(p)) {
        grad_lines.push((format!("∂h/∂{z}"), formula(model, g)));
    }
    let grad_doc = if contact {
        doc_block(
            &format!("Gradient of the guard of impact `{name}` over the whole state x = (q, q̇, z): ∂h/∂q, zero for q̇, ∂h/∂z."),
            &grad_lines,
        )
    } else {
        doc_block(&format!("Gradient ∇h = ∂h/∂q of the guard of impact `{name}`."), &grad_lines)
    };
    let rate_text = if contact {
        format!("Approach velocity dh/dt = ∇h·q̇ + ∂h/∂t + ∂h/∂z·L (ż = L) of impact `{name}` (negative when approaching).")
    } else {
        format!("Approach velocity dh/dt = ∇h·q̇ + ∂h/∂t of impact `{name}` (negative when approaching).")
    };
    let rate_doc = doc_block(&rate_text, &[("dh/dt".into(), formula(model, ie.rate))]);
    let grad_body = if contact {
        let sets = gr_vals.iter().enumerate().map(|(i, v)| {
            let k = if i < p { i } else { model.layout.state_dim() - 1 };
            quote! { g[#k] = #v; }
        });
        quote! {
            pub fn #grad_fn(&self, t: f64, x: &#state) -> #state {
                #(#gr_stmts)*
                let mut g = <#state>::zeros();
                #(#sets)*
                g
            }
        }
    } else {
        quote! {
            pub fn #grad_fn(&self, t: f64, x: &#state) -> __routh::Vector<#p> {
                #(#gr_stmts)*
                __routh::Vector::<#p>::from([#(#gr_vals),*])
            }
        }
    };

    match ie.trigger {
        Trigger::Guard => quote! {
            #g_doc
            #[allow(unused_variables, clippy::all, clippy::pedantic, non_snake_case)]
            #[must_use]
            pub fn #guard_fn(&self, t: f64, x: &#state) -> f64 {
                #(#g_stmts)*
                #(#g_vals)*
            }

            #grad_doc
            #[allow(unused_variables, clippy::all, clippy::pedantic, non_snake_case)]
            #[must_use]
            #grad_body

            #rate_doc
            #[allow(unused_variables, clippy::all, clippy::pedantic, non_snake_case)]
            #[must_use]
            pub fn #rate_fn(&self, t: f64, x: &#state) -> f64 {
                #(#r_stmts)*
                #(#r_vals)*
            }
        },
        Trigger::Multiplier(k) => {
            let doc = format!(
                " Guard of transition `{name}`: the multiplier λ[{k}] of constraint `{}` (the constraint holds \
                 while it pushes, λ ≥ 0, and is released when λ falls through zero). NaN if the multipliers \
                 cannot be solved for at this state.",
                model.constraints[k].name
            );
            quote! {
                #[doc = #doc]
                #[must_use]
                pub fn #guard_fn(&self, t: f64, x: &#state) -> f64 {
                    self.constraint_forces(t, x).map_or(f64::NAN, |lam| lam[#k])
                }

                /// Gradient ∂λ/∂x of this transition's multiplier guard with respect to the whole state
                /// (NaN if the multipliers cannot be solved for).
                #[must_use]
                pub fn #grad_fn(&self, t: f64, x: &#state) -> #state {
                    self.constraint_force_rates(t, x).map_or(<#state>::from_element(f64::NAN), |(g, _)| g.row(#k).transpose())
                }

                /// Rate λ̇ = ∂λ/∂x·F + ∂λ/∂t of this transition's multiplier guard along the motion.
                #[must_use]
                pub fn #rate_fn(&self, t: f64, x: &#state) -> f64 {
                    self.constraint_force_rates(t, x).map_or(f64::NAN, |(_, r)| r[#k])
                }
            }
        }
        Trigger::Zeno(_) => TokenStream::new(),
    }
}

/// A restitution law: the saddle-point solve, the reset and its Jacobian.
fn projection_reset(model: &View<'_>, name: &str, reset: &Reset, helpers: &mut Helpers) -> TokenStream {
    let Reset::Projection { a, b, e, dr_dq, dr_dv, dr_dz, metric, parts } = reset else { unreachable!("a projection reset") };
    let Scope { n, p, d, state, name, none } = Scope::named(model, name.to_string());
    // Its part functions' prefix (a generated law's name is hidden already).
    let hidden = if name.starts_with("__routh_") { name.clone() } else { format!("__routh_{name}") };
    let reset_fn = format_ident!("{name}_reset");
    let jac_fn = format_ident!("{name}_reset_jacobian");
    let solve_fn = format_ident!("{hidden}_solve");
    let mut emit = |outputs: &[Expr], part: &str, params: &TokenStream, args: &TokenStream| {
        helpers.body(model, outputs, &format!("{hidden}_{part}"), params, args)
    };
    let k = a.len();
    let nk = n + k;
    // A (row-major), b, e; M is the model's mass operator (the dynamics contract). The projection
    // into a mode is onto its own constraints' rows (`derive::impact::arrival`), which
    // `__routh_constraint_rows` computes: A and b from it, every coefficient zero.
    let (law_stmts, law_rows) = if name == ARRIVAL {
        let rows = quote! {
            let (a, b, _) = self.__routh_constraint_rows(t, x);
            let e = __routh::Vector::<#k>::zeros();
        };
        (TokenStream::new(), rows)
    } else {
        let mut outs: Vec<Expr> = a.iter().flatten().copied().collect();
        outs.extend(b.iter().copied());
        outs.extend(e.iter().copied());
        let (s_stmts, s_vals) = emit(&outs, "law", &none, &none);
        let (b_vals, e_vals) = (&s_vals[k * n..k * n + k], &s_vals[k * n + k..]);
        let a_sets = zeroed_sets(&quote!(a), (k, n), None, &s_vals[..k * n]);
        let rows = quote! {
            let mut a = __routh::Matrix::<#k, #n>::zeros();
            #a_sets
            let b = __routh::Vector::<#k>::from([#(#b_vals),*]);
            let e = __routh::Vector::<#k>::from([#(#e_vals),*]);
        };
        (quote! { #(#s_stmts)* }, rows)
    };
    // The law is solved with M factored (a tree's M assembled from its products along the tree:
    // O(n²) to form, once per impact).
    let mass = crate::emit::form::dense_factor();
    let mut jac_out: Vec<Expr> = dr_dq.iter().flatten().copied().collect();
    jac_out.extend(dr_dv.iter().flatten().copied());
    jac_out.extend(dr_dz);
    let vp_param = crate::emit::codegen::svector(n);
    let lam_param = crate::emit::codegen::svector(k);
    let jparams = quote! { vp: &#vp_param, lam: &#lam_param, };
    let jargs = quote! { vp, lam, };
    // ∂R/∂x less the metric's part: whole, or by constraint (each row's part a method of its own,
    // derived in the first mode entered the same way that holds the constraint).
    let (dr, part_fns) = match parts {
        None => {
            let (j_stmts, j_vals) = emit(&jac_out, "jacobian", &jparams, &jargs);
            let dr_sets = crate::emit::codegen::state_row_sets(
                nk,
                (p, n),
                (&j_vals[..nk * p], &j_vals[nk * p..nk * (p + n)], &j_vals[nk * (p + n)..]),
            );
            (quote! { #(#j_stmts)* let mut dr = __routh::Matrix::<#nk, #d>::zeros(); #dr_sets }, TokenStream::new())
        }
        Some(parts) => {
            // The metric's part (n rows) where the tree does not add it.
            let (j_stmts, j_vals) =
                if jac_out.is_empty() { (Vec::new(), Vec::new()) } else { emit(&jac_out, "jacobian", &jparams, &jargs) };
            let rows = if dr_dq.is_empty() { 0 } else { n };
            let sets =
                crate::emit::codegen::state_row_sets(rows, (p, n), (&j_vals[..rows * p], &j_vals[rows * p..rows * (p + n)], &[]));
            let (add_parts, fns) = arrival_parts(model, parts, metric.is_some(), helpers);
            let mutable = (!sets.is_empty()).then(|| quote!(mut));
            (quote! { #(#j_stmts)* let #mutable dr = __routh::Matrix::<#nk, #d>::zeros(); #sets #add_parts }, fns)
        }
    };
    // Along a tree: ∂(M (q̇⁺ − q̇⁻))/∂x from the product's tangent, column by column (O(n) each).
    let (metric_fns, add_metric) = match metric {
        Some(inv) => {
            let prefix = format!("{hidden}_metric");
            let functions = crate::emit::codegen::TangentFunctions {
                name: &prefix,
                bindings: &inv.bindings,
                tangent: &inv.tangent,
                extra: (quote! { vp: &#vp_param, }, quote! { vp, }),
                what: "M (q̇⁺ − q̇⁻) along the tree",
                along: "δ(M (q̇⁺ − q̇⁻)) at fixed q̇⁺",
            };
            (functions.items(model, helpers), functions.add_columns(model, nk))
        }
        None => (TokenStream::new(), TokenStream::new()),
    };
    // Rows over the coordinates' differentials, or, with orientations, over the velocities v (an
    // orientation's ω has no coordinate of its own: the rows are pulled back through q̇ = K v).
    let quasi = !model.layout.orientations.is_empty();
    let label = |j: usize| {
        if quasi { crate::notation::display_name(model, model.layout.qd[j]) } else { format!("d{}", model.coordinates[j]) }
    };
    let mut lines = Vec::new();
    for r in 0..k {
        let form: Vec<String> = (0..n)
            .filter(|&j| !model.arena.zero_test(a[r][j]).is_zero())
            .map(|j| format!("({})·{}", formula(model, a[r][j]), label(j)))
            .collect();
        let time = match (model.arena.zero_test(b[r]).is_zero(), quasi) {
            (true, _) => String::new(),
            (false, false) => format!(" + ({})·dt", formula(model, b[r])),
            (false, true) => format!(" + {}", formula(model, b[r])),
        };
        lines.push((format!("row {}", r + 1), format!("{}{time}, with eᵣ = {}", form.join(" + "), formula(model, e[r]))));
    }
    let title = if name == ARRIVAL {
        "Reset of a `project` transition into this mode: the projection onto its constraints".to_string()
    } else {
        format!("Reset of impact `{name}`")
    };
    let rows = if quasi {
        "rows A v + b over the velocities (the one-forms pulled back through q̇ = K v)"
    } else {
        "rows (one-forms A·dq + b·dt)"
    };
    let doc = doc_block(
        &format!(
            "{title} (generalized Newton law with the kinetic metric M): positions are kept \
                 and q̇⁺ solves M(q̇⁺ − q̇⁻) = Aᵀλ, A q̇⁺ + b = −E(A q̇⁻ + b), with the {rows} \
                 and coefficients below."
        ),
        &lines,
    );
    let row_names: Vec<String> = (1..=k).map(|r| format!("{name} row {r}")).collect();
    let items = quote! {
        /// The solved saddle-point system of this impact law: post-impact velocities, impulse
        /// multipliers and the factored matrix K = [M −Aᵀ; A 0] (also ∂R/∂(q̇⁺, λ), reused by the
        /// Jacobian), solved with the model's mass operator.
        #[allow(unused_variables, clippy::all, clippy::pedantic, non_snake_case)]
        fn #solve_fn(&self, t: f64, x: &#state) -> ::core::result::Result<
            __routh::mechanics::Restitution<#n, #k, #nk>,
            __routh::FieldError,
        > {
            #law_stmts
            let mass = #mass?;
            #law_rows
            __routh::mechanics::restitution(t, mass, (a, b, e), x.fixed_rows::<#n>(#p).into_owned(), &[#(#row_names),*])
        }

        #doc
        ///
        /// # Errors
        /// [`FieldError::SingularMassMatrix`](::routh::runtime::FieldError) if M is singular,
        /// [`FieldError::SingularConstraints`](::routh::runtime::FieldError) if the one-forms are
        /// linearly dependent at this state.
        pub fn #reset_fn(&self, t: f64, x: &#state) -> ::core::result::Result<#state, __routh::FieldError> {
            Ok(self.#solve_fn(t, x)?.post_state::<#p, #d>(x))
        }

        /// Jacobian ∂Δ/∂x of the reset of this impact (for saltation matrices and Poincaré maps),
        /// from the implicit function theorem: d(q̇⁺, λ)/dx = −K⁻¹ ∂R/∂x with K = [M −Aᵀ; A 0].
        ///
        /// # Errors
        /// As the reset.
        #[allow(unused_variables, clippy::all, clippy::pedantic, non_snake_case)]
        pub fn #jac_fn(&self, t: f64, x: &#state) -> ::core::result::Result<__routh::Matrix<#d, #d>, __routh::FieldError> {
            let law = self.#solve_fn(t, x)?;
            let (vp, lam) = (&law.velocities, &law.impulses);
            #dr
            #add_metric
            law.reset_jacobian::<#p, #d>(dr)
        }

        #metric_fns

        #part_fns
    };
    items
}

/// The rows' parts of the arrival projection's ∂R/∂x ([`Reset::Projection`]'s `parts`), added
/// into `dr` (the metric's part, or zero along a tree, whose metric is added after): each row k's
/// −λₖ aₖ in the first n rows and aₖ·q̇⁺ + bₖ in row n + k, a method named after the constraint
/// (`__routh_<c>_arrival_jacobian`), derived here or forwarded to the mode that first holds it
/// (`Model::arrival_owners`). The statements that add them (`metric_after`: the tree's metric
/// part is added to `dr` after them), and the methods.
fn arrival_parts(
    model: &View<'_>,
    parts: &[Option<RowPart>],
    metric_after: bool,
    helpers: &mut Helpers,
) -> (TokenStream, TokenStream) {
    let (n, p, d) = (model.dof(), model.layout.position_dim(), model.layout.state_dim());
    let nk = n + parts.len();
    let (state, vec_n) = (crate::emit::codegen::state_type(d), crate::emit::codegen::svector(n));
    let rows = n + 1;
    let allow = allow_generated();
    let (mut fns, mut calls) = (Vec::new(), Vec::new());
    for (k, part) in parts.iter().enumerate() {
        let c = &model.constraints[k].name;
        let part_fn = format_ident!("__routh_{c}_arrival_jacobian");
        let doc = format!(
            " Constraint `{c}`'s part of the arrival projection's residual Jacobian over the state: of −λ aᵀ \
             (the first n rows, λ = `lam[0]`) and of its row a·q̇⁺ + b (the last), at the post-impact \
             velocities `vp`."
        );
        let body = match (part, model.arrival_owner(k)) {
            (Some([dq, dv]), _) => {
                let mut outs: Vec<Expr> = dq.iter().flatten().copied().collect();
                outs.extend(dv.iter().flatten().copied());
                let params = quote! { vp: &#vec_n, lam: &__routh::Vector<1>, };
                let args = quote! { vp, lam, };
                let (stmts, vals) = helpers.body(model, &outs, &part_fn.to_string(), &params, &args);
                let sets = crate::emit::codegen::state_row_sets(rows, (p, n), (&vals[..rows * p], &vals[rows * p..], &[]));
                quote! { #(#stmts)* let mut dr = __routh::Matrix::<#rows, #d>::zeros(); #sets dr }
            }
            (None, Some(owner)) => {
                let receiver = crate::emit::codegen::mode_receiver(model, owner);
                quote! { #receiver.#part_fn(t, x, vp, lam) }
            }
            (None, None) => unreachable!("a row's part is derived unless another mode owns it"),
        };
        fns.push(quote! {
            #[doc = #doc]
            #allow
            fn #part_fn(&self, t: f64, x: &#state, vp: &#vec_n, lam: &__routh::Vector<1>) -> __routh::Matrix<#rows, #d> {
                #body
            }
        });
        let own = n + k;
        calls.push(quote! {
            __routh::mechanics::add_residual_part(
                &mut dr,
                ::core::option::Option::Some(#own),
                (self.#part_fn(t, x, vp, &__routh::Vector::<1>::new(lam[#k])), __routh::Vector::<#rows>::zeros()),
            );
        });
    }
    // Along a tree the metric's part is added after these.
    let mutable = metric_after.then(|| quote!(mut));
    let dr = quote! {
        let mut dr = (dr, __routh::Vector::<#nk>::zeros());
        #(#calls)*
        let #mutable dr = dr.0;
    };
    (dr, quote! { #(#fns)* })
}

/// A transition's chart change into the target mode and its Jacobian.
fn chart_reset(model: &View<'_>, ie: &ImpactEquations, dims: &[usize], helpers: &mut Helpers) -> TokenStream {
    let Reset::Chart { state: new_state, jacobian } = &ie.reset else { unreachable!("a chart reset") };
    let Scope { d, state, name, none, .. } = Scope::of(model, ie);
    let reset_fn = format_ident!("{name}_reset");
    let jac_fn = format_ident!("{name}_reset_jacobian");
    let mut emit = |outputs: &[Expr], part: &str, params: &TokenStream, args: &TokenStream| {
        helpers.body(model, outputs, &format!("__routh_{name}_{part}"), params, args)
    };
    let target = ie.target.unwrap_or(0);
    // The target's state is (q', v'[, z]): its N' velocities and N' + k positions with the k
    // orientations the modes share.
    let dm = dims.get(target).copied().unwrap_or(0);
    let k = model.layout.orientations.len();
    let m = (dm - usize::from(model.layout.z.is_some()) - k) / 2 + k;
    let velocity = if k == 0 { "q̇'" } else { "v'" };
    let (c_stmts, c_vals) = emit(new_state, "chart", &none, &none);
    let flat: Vec<Expr> = jacobian.iter().flatten().copied().collect();
    let (j_stmts, j_vals) = emit(&flat, "jacobian", &none, &none);
    let sets = (0..dm).flat_map(|r| (0..d).map(move |c| (r, c))).zip(&j_vals).map(|((r, c), v)| {
        quote! { jac[(#r, #c)] = #v; }
    });
    let lines: Vec<(String, String)> = new_state
        .iter()
        .enumerate()
        .map(|(k, &e)| {
            let lhs = if k < m { format!("q'[{}]", k + 1) } else { format!("{velocity}[{}]", k - m + 1) };
            (lhs, formula(model, e))
        })
        .collect();
    let doc = doc_block(
        &format!(
            "Reset of transition `{name}`: the state of the target mode (its coordinates, then velocities) from this mode's state."
        ),
        &lines,
    );
    quote! {
        #doc
        ///
        /// # Errors
        /// [`FieldError::NonFinite`](::routh::runtime::FieldError) if the new state is not finite.
        #[allow(unused_variables, clippy::all, clippy::pedantic, non_snake_case)]
        pub fn #reset_fn(&self, t: f64, x: &#state) -> ::core::result::Result<__routh::State<#dm>, __routh::FieldError> {
            #(#c_stmts)*
            __routh::mechanics::finite(t, __routh::Vector::<#dm>::from([#(#c_vals),*]))
        }

        /// Jacobian ∂Δ/∂x of this transition's reset (target state × source state), differentiated
        /// symbolically.
        ///
        /// # Errors
        /// Never at present; `Result` for uniformity with the other laws.
        #[allow(unused_variables, clippy::all, clippy::pedantic, non_snake_case)]
        pub fn #jac_fn(&self, t: f64, x: &#state) -> ::core::result::Result<__routh::Matrix<#dm, #d>, __routh::FieldError> {
            #(#j_stmts)*
            let mut jac = __routh::Matrix::<#dm, #d>::zeros();
            #(#sets)*
            Ok(jac)
        }
    }
}

/// An explicit velocity map and its Jacobian.
fn map_reset(model: &View<'_>, ie: &ImpactEquations, helpers: &mut Helpers) -> TokenStream {
    let Reset::Map { velocities, dv_dq, dv_dv, dv_dz } = &ie.reset else { unreachable!("a velocity-map reset") };
    let Scope { n, p, d, state, name, none } = Scope::of(model, ie);
    let reset_fn = format_ident!("{name}_reset");
    let jac_fn = format_ident!("{name}_reset_jacobian");
    let mut emit = |outputs: &[Expr], part: &str, params: &TokenStream, args: &TokenStream| {
        helpers.body(model, outputs, &format!("__routh_{name}_{part}"), params, args)
    };
    let (v_stmts, v_vals) = emit(velocities, "map", &none, &none);
    let mut jac_out: Vec<Expr> = dv_dq.iter().flatten().copied().collect();
    jac_out.extend(dv_dv.iter().flatten().copied());
    jac_out.extend(dv_dz);
    let (j_stmts, j_vals) = emit(&jac_out, "jacobian", &none, &none);
    let jq = matrix(n, p, &j_vals[..n * p]);
    let jv = square_matrix(n, &j_vals[n * p..n * (p + n)]);
    let dz_sets = j_vals[n * (p + n)..].iter().enumerate().map(|(i, v)| quote! { jac[(#p + #i, #p + #n)] = #v; });
    let lines: Vec<(String, String)> = (0..n)
        .map(|i| (format!("{}⁺", crate::notation::display_name(model, model.layout.qd[i])), formula(model, velocities[i])))
        .collect();
    let doc = doc_block(&format!("Reset of impact `{name}`: positions are kept and the velocities map as"), &lines);
    let layout = crate::emit::codegen::state_layout(model);
    let items = quote! {
        #doc
        ///
        /// # Errors
        /// [`FieldError::NonFinite`](::routh::runtime::FieldError) if the map gives a non-finite velocity.
        #[allow(unused_variables, clippy::all, clippy::pedantic, non_snake_case)]
        pub fn #reset_fn(&self, t: f64, x: &#state) -> ::core::result::Result<#state, __routh::FieldError> {
            #(#v_stmts)*
            let v = __routh::Vector::<#n>::from([#(#v_vals),*]);
            #layout::with_velocities(t, x, &v)
        }

        /// Jacobian ∂Δ/∂x of the reset of this impact, differentiated symbolically.
        ///
        /// # Errors
        /// Never at present; `Result` for uniformity with restitution laws.
        #[allow(unused_variables, clippy::all, clippy::pedantic, non_snake_case)]
        pub fn #jac_fn(&self, t: f64, x: &#state) -> ::core::result::Result<__routh::Matrix<#d, #d>, __routh::FieldError> {
            #(#j_stmts)*
            let mut jac = #layout::velocity_map_jacobian(#jq, #jv);
            #(#dz_sets)*
            Ok(jac)
        }
    };
    items
}

/// A reset that calls another's — an impact's of the same mode (`Reset::Same`) or the projection
/// the mode a transition enters generates (`Reset::Arrival`): its reset and Jacobian forward to
/// `receiver.<callee>_reset` and `receiver.<callee>_reset_jacobian`.
fn forwarded_reset(model: &View<'_>, ie: &ImpactEquations, (receiver, callee): (TokenStream, &str), doc: &str) -> TokenStream {
    let Scope { d, state, name, .. } = Scope::of(model, ie);
    let (reset_fn, jac_fn) = (format_ident!("{name}_reset"), format_ident!("{name}_reset_jacobian"));
    let (their_reset, their_jac) = (format_ident!("{callee}_reset"), format_ident!("{callee}_reset_jacobian"));
    let jac_doc = format!(" Jacobian ∂Δ/∂x of the reset of `{name}`: its callee's (`{their_jac}`).");
    quote! {
        #[doc = #doc]
        ///
        /// # Errors
        /// As the reset it calls.
        #[inline]
        pub fn #reset_fn(&self, t: f64, x: &#state) -> ::core::result::Result<#state, __routh::FieldError> {
            #receiver.#their_reset(t, x)
        }

        #[doc = #jac_doc]
        ///
        /// # Errors
        /// As the reset it calls.
        #[inline]
        pub fn #jac_fn(&self, t: f64, x: &#state) -> ::core::result::Result<__routh::Matrix<#d, #d>, __routh::FieldError> {
            #receiver.#their_jac(t, x)
        }
    }
}

/// The name of a mode's projection onto its constraints, which the `project` transitions into it
/// call (`__routh_arrival_reset`, `__routh_arrival_reset_jacobian`: hidden, like every name the
/// derive makes up, so that no impact of the model can take it).
const ARRIVAL: &str = "__routh_arrival";

/// `__routh_arrival_reset` and `__routh_arrival_reset_jacobian` of a mode that `project` transitions enter
/// (`Derived::arrival`): the kinetic-metric projection onto its constraints, which those
/// transitions call (nothing where none enters).
pub fn arrival(model: &View<'_>, arrival: Option<&Reset>, helpers: &mut Helpers) -> TokenStream {
    match arrival {
        Some(reset) => projection_reset(model, ARRIVAL, reset, helpers),
        None => TokenStream::new(),
    }
}

/// What every item of one impact starts from.
struct Scope {
    /// Degrees of freedom (velocities), positions and state dimension.
    n: usize,
    p: usize,
    d: usize,
    /// The state's type.
    state: TokenStream,
    /// The impact's name (its items and part functions are named after it).
    name: String,
    none: TokenStream,
}

impl Scope {
    fn of(model: &View<'_>, ie: &ImpactEquations) -> Scope {
        Scope::named(model, ie.name.to_string())
    }

    fn named(model: &View<'_>, name: String) -> Scope {
        let d = model.layout.state_dim();
        Scope {
            n: model.dof(),
            p: model.layout.position_dim(),
            d,
            state: crate::emit::codegen::state_type(d),
            name,
            none: TokenStream::new(),
        }
    }
}
