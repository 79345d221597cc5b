//! Emission for models with constraints: the constrained `accelerations` and `jacobian` (the
//! saddle-point solve of [`crate::derive::constraint`] in `routh::runtime::mechanics`), the multipliers,
//! the rows and residuals, and the integrability report — each with its formulas in rustdoc.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use symbolic::Expr;

use crate::derive::constraint::{ConstraintEquations, Kind, ResidualJacobian, SaddleJacobian};
use crate::derive::dynamics::KineticJacobian;
use crate::derive::dynamics::spatial::Links;
use crate::derive::euler_lagrange::Equations;
use crate::emit::codegen::{Helpers, allow_generated, is_zero_value, zeroed_sets};
use crate::emit::form::MassOperator;
use crate::model::View;
use crate::notation::{display_name, doc_block, formula};

/// The constrained versions of `accelerations` and `jacobian`, the constraint methods, and
/// `impl routh::runtime::constrained::Constrained` (projection).
pub struct ConstraintItems {
    pub accelerations: TokenStream,
    pub jacobian: TokenStream,
    pub methods: TokenStream,
    pub trait_impl: TokenStream,
}

/// The constrained dynamics: the saddle point solved with the model's mass `operator` (from
/// [`crate::emit::form`]; along the tree, its Jacobian by the tangent of K or the links' analytic
/// ∂K/∂x, `inverse`), its
/// Jacobian and sensitivities, the constraint methods and `impl Constrained`.
pub fn emit(
    model: &View<'_>,
    (ce, eq): (&ConstraintEquations, &Equations),
    (operator, inverse): (&MassOperator, Option<(&KineticJacobian, Option<&Links>)>),
    helpers: &mut Helpers,
) -> ConstraintItems {
    let (n, m, d) = (model.dof(), ce.a.len(), model.layout.state_dim());
    let p = model.layout.position_dim();
    let nm = n + m;
    let sv = crate::emit::codegen::svector;
    let (state, vec_n, vec_m) = (crate::emit::codegen::state_type(d), sv(n), sv(m));
    let fe = crate::emit::codegen::field_error();
    let names: Vec<String> = ce.names.iter().map(ToString::to_string).collect();
    let Rows { rows_fn, position } = rows(model, ce, helpers);
    // The field Jacobian and the multipliers' rates (release guards) are derived where the model
    // asks for the Jacobian (`jacobian`, hybrid systems, sensitivities): O(n³) terms otherwise
    // spent on nothing.
    let with_jacobian = model.field_jacobian;
    let saddle_jacobian = if with_jacobian { saddle_jacobian(model, ce, eq, helpers, inverse) } else { TokenStream::new() };
    let quasi = !model.layout.orientations.is_empty();
    let manifold = if with_jacobian { manifold_linearization(model, ce, helpers) } else { TokenStream::new() };
    let ConstraintDocs { rows: rows_doc, bias: bias_doc, kinds: kinds_doc, set: set_doc } = docs(model, ce, &names);
    let consts = constants(ce, &names, &kinds_doc, &set_doc);

    let rows_fn_name = format_ident!("__routh_constraint_rows");
    let jac_fn = format_ident!("__routh_constraint_jacobian");
    let bind = operator.bind_with_forcing(model);
    let solve = quote! {
        #bind
        let (amat, _, c) = self.#rows_fn_name(t, x);
        __routh::mechanics::solve_constrained::<#n, #m, #nm, _>(t, mass, (amat, c), f, &Self::CONSTRAINTS)
    };
    let (accelerations, jacobian) = accelerations_and_jacobian(model, &solve, quasi, operator);
    let jacobian = if with_jacobian { jacobian } else { TokenStream::new() };
    let force_rates = if with_jacobian {
        quote! {
        /// The gradients ∂λ/∂x of the multipliers and their rates λ̇ = ∂λ/∂x·F + ∂λ/∂t along the motion
        /// (implicit function theorem on the saddle-point residual): what a release guard on a multiplier
        /// needs.
        ///
        /// # Errors
        /// As [`Self::accelerations`].
        pub fn constraint_force_rates(&self, t: f64, x: &#state)
            -> ::core::result::Result<(__routh::Matrix<#m, #d>, #vec_m), #fe>
        {
            let sol = { #solve }?;
            let (a, lam) = (&sol.accelerations, &sol.multipliers);
            let (dr, dr_dt) = self.#jac_fn(t, x, a, lam);
            let f = self.__routh_field_from(t, x, a);
            sol.multiplier_rates(dr, dr_dt, &f)
        }
        }
    } else {
        TokenStream::new()
    };
    let methods = quote! {
        #consts

        #rows_fn

        #saddle_jacobian

        #manifold

        #force_rates

        #rows_doc
        #[must_use]
        pub fn constraint_rows(&self, t: f64, x: &#state) -> (__routh::Matrix<#m, #n>, #vec_m) {
            let (amat, b, _) = self.#rows_fn_name(t, x);
            (amat, b)
        }

        #bias_doc
        #[must_use]
        pub fn constraint_bias(&self, t: f64, x: &#state) -> #vec_m {
            self.#rows_fn_name(t, x).2
        }

        /// The multipliers λ of the constraints (in the order of [`Self::CONSTRAINTS`]): the constraint
        /// force is Aᵀλ in M q̈ = f + Aᵀλ. The constraints do the work λ·(A q̇) = −λ·b, so with b ≡ 0 the
        /// energy balance is unchanged and dE/dt = Q·q̇ − ∂L/∂t − λ·b in general.
        ///
        /// # Errors
        /// As [`Self::accelerations`].
        pub fn constraint_forces(&self, t: f64, x: &#state) -> ::core::result::Result<#vec_m, #fe> {
            Ok({ #solve }?.multipliers)
        }

        /// The power of the constraint forces, λ·(A q̇) = −λ·b: the constraints' share of the energy balance
        /// dE/dt = Q·q̇ − ∂L/∂t − λ·b (zero for linear constraints, b ≡ 0).
        ///
        /// # Errors
        /// As [`Self::accelerations`].
        pub fn constraint_power(&self, t: f64, x: &#state) -> ::core::result::Result<f64, #fe> {
            let lam = { #solve }?.multipliers;
            let (_, b, _) = self.#rows_fn_name(t, x);
            Ok(-lam.dot(&b))
        }

        /// Velocity-level residuals A q̇ + b (zero on the constraint manifold).
        #[must_use]
        pub fn velocity_residuals(&self, t: f64, x: &#state) -> #vec_m {
            let (amat, b, _) = self.#rows_fn_name(t, x);
            let qd = <#vec_n>::from_fn(|i, _| x[#p + i]);
            amat * qd + b
        }

        #position
    };
    let trait_impl = trait_impl(model, ce);
    let sensitivity = sensitivity_item(model, ce, helpers, &solve);
    let projection = projection_items(model, ce);
    let methods = quote! {
        #methods

        #sensitivity

        #projection
    };
    ConstraintItems { accelerations, jacobian, methods, trait_impl }
}

/// The straight-line functions of the rows: `__routh_constraint_rows` (A, b and the bias c in one)
/// and `position_residuals` (f(t, q) of the holonomic rows, 0 for velocity constraints).
struct Rows {
    rows_fn: TokenStream,
    position: TokenStream,
}

fn rows(model: &View<'_>, ce: &ConstraintEquations, helpers: &mut Helpers) -> Rows {
    let (n, m, d) = (model.dof(), ce.a.len(), model.layout.state_dim());
    let sv = crate::emit::codegen::svector;
    let (state, vec_m) = (crate::emit::codegen::state_type(d), sv(m));
    let none = TokenStream::new();
    let allow = allow_generated();
    // A (row-major), b, c in one straight-line function; in a mode whose constraints' parts other
    // modes share (`Model::part_owners`), each constraint's row a method of its own, generated in
    // the first mode that holds it and called by the others.
    let (rows_body, row_fns) = if model.part_owners.is_empty() {
        let mut outs: Vec<Expr> = ce.a.iter().flatten().copied().collect();
        outs.extend(&ce.b);
        outs.extend(&ce.bias);
        let (r_stmts, r_vals) = helpers.body(model, &outs, "__routh_constraint_rows", &none, &none);
        let a_sets = zeroed_sets(&quote!(amat), (m, n), None, &r_vals[..m * n]);
        let b_vals = &r_vals[m * n..m * n + m];
        let c_vals = &r_vals[m * n + m..];
        let body = quote! {
            #(#r_stmts)*
            let mut amat = __routh::Matrix::<#m, #n>::zeros();
            #a_sets
            (amat, <#vec_m>::from([#(#b_vals),*]), <#vec_m>::from([#(#c_vals),*]))
        };
        (body, TokenStream::new())
    } else {
        let (mut fns, mut copies) = (Vec::new(), Vec::new());
        for (k, name) in ce.names.iter().enumerate() {
            let row_fn = format_ident!("__routh_{name}_row");
            let doc = format!(" Constraint `{name}`'s row a, its time part b and its bias c (row {k} of A, b and c).");
            let body = match model.part_owner(k) {
                Some(owner) => {
                    let receiver = crate::emit::codegen::mode_receiver(model, owner);
                    quote! { #receiver.#row_fn(t, x) }
                }
                None => {
                    let mut outs = ce.a[k].clone();
                    outs.extend([ce.b[k], ce.bias[k]]);
                    let (stmts, vals) = helpers.body(model, &outs, &row_fn.to_string(), &none, &none);
                    let a_sets = zeroed_sets(&quote!(a), (1, n), None, &vals[..n]);
                    let (b, c) = (&vals[n], &vals[n + 1]);
                    quote! {
                        #(#stmts)*
                        let mut a = __routh::Matrix::<1, #n>::zeros();
                        #a_sets
                        (a, #b, #c)
                    }
                }
            };
            fns.push(quote! {
                #[doc = #doc]
                #allow
                #[inline]
                fn #row_fn(&self, t: f64, x: &#state) -> (__routh::Matrix<1, #n>, f64, f64) {
                    #body
                }
            });
            copies.push(quote! {
                let (a, bk, ck) = self.#row_fn(t, x);
                amat.row_mut(#k).copy_from(&a);
                (b[#k], c[#k]) = (bk, ck);
            });
        }
        let body = quote! {
            let (mut amat, mut b, mut c) = (__routh::Matrix::<#m, #n>::zeros(), <#vec_m>::zeros(), <#vec_m>::zeros());
            #(#copies)*
            (amat, b, c)
        };
        (body, quote! { #(#fns)* })
    };
    // Position residuals (holonomic rows; 0 for velocity constraints).
    let zero = model.arena.zero();
    let pos: Vec<Expr> = ce.position.iter().map(|p| p.unwrap_or(zero)).collect();
    let (p_stmts, p_vals) = helpers.body(model, &pos, "__routh_position_residuals", &none, &none);
    let rows_fn = format_ident!("__routh_constraint_rows");
    Rows {
        rows_fn: quote! {
            #allow
            #[inline]
            fn #rows_fn(&self, t: f64, x: &#state) -> (__routh::Matrix<#m, #n>, #vec_m, #vec_m) {
                #rows_body
            }

            #row_fns
        },
        position: quote! {
            /// Position-level residuals f(t, q) of the holonomic constraints (0 for velocity constraints).
            #allow
            #[must_use]
            pub fn position_residuals(&self, t: f64, x: &#state) -> #vec_m {
                #(#p_stmts)*
                <#vec_m>::from([#(#p_vals),*])
            }
        },
    }
}

/// `__routh_constraint_jacobian`: ∂R/∂q, ∂R/∂q̇, ∂R/∂t (and ∂R/∂z) of the saddle-point residual
/// R = (M q̈ − Aᵀλ − f, A q̈ + c), with a = q̈ and λ as inputs. For a constrained tree (`inverse`),
/// the symbolic part is that of R without the kinetic part K of M a − f, whose Jacobian the
/// runtime adds column by column from K's tangent along the tree.
fn saddle_jacobian(
    model: &View<'_>,
    ce: &ConstraintEquations,
    eq: &Equations,
    helpers: &mut Helpers,
    inverse: Option<(&KineticJacobian, Option<&Links>)>,
) -> TokenStream {
    let (n, m, d) = (model.dof(), ce.a.len(), model.layout.state_dim());
    // A residual derived without the kinetic part (a tree's, `derive::constraint`) is completed
    // only by that part's tangent: the two come together, or the Jacobian would be wrong.
    assert!(inverse.is_some() == (eq.mass.len() != n), "a tree's saddle-point Jacobian and its kinetic tangent come together");
    let (p, nm) = (model.layout.position_dim(), n + m);
    let sv = crate::emit::codegen::svector;
    let (state, vec_n, vec_m) = (crate::emit::codegen::state_type(d), sv(n), sv(m));
    // The symbolic part: R's Jacobian as one function, or the forces' part and each constraint's,
    // summed by the runtime (the constraints' parts named after them, the same in every mode).
    let (parts, symbolic) = match &ce.saddle {
        SaddleJacobian::Absent => unreachable!("the saddle-point Jacobian is emitted with the field Jacobian"),
        SaddleJacobian::Whole(jac) => {
            let (stmts, sets, dt) = residual_jacobian(model, jac, helpers, "__routh_constraint_jacobian", Some(vec_m.clone()));
            (
                TokenStream::new(),
                quote! {
                    #(#stmts)*
                    let mut dr = __routh::Matrix::<#nm, #d>::zeros();
                    #sets
                    let dr_t = __routh::Vector::<#nm>::from([#(#dt),*]);
                },
            )
        }
        SaddleJacobian::ByConstraint { forces, rows } => {
            let allow = allow_generated();
            // A part of `rows` rows: its Jacobian's sets into a zeroed `dr` and its time column.
            let mut part = |name: &syn::Ident, doc: &str, jac: &ResidualJacobian, lam: Option<TokenStream>| {
                let rows = jac.dt.len();
                let lam_param = lam.as_ref().map(|ty| quote! { lam: &#ty, });
                let (stmts, sets, dt) = residual_jacobian(model, jac, helpers, &name.to_string(), lam);
                quote! {
                    #[doc = #doc]
                    #allow
                    fn #name(&self, t: f64, x: &#state, a: &#vec_n, #lam_param)
                        -> (__routh::Matrix<#rows, #d>, __routh::Vector<#rows>)
                    {
                        #(#stmts)*
                        let mut dr = __routh::Matrix::<#rows, #d>::zeros();
                        #sets
                        (dr, __routh::Vector::<#rows>::from([#(#dt),*]))
                    }
                }
            };
            let forces_fn = format_ident!("__routh_saddle_forces_jacobian");
            let mut parts = vec![part(
                &forces_fn,
                " The forces' part M a − f of the saddle-point residual's Jacobian over the state (n rows; along \
                 a tree the runtime adds the kinetic part), and its time column.",
                forces,
                None,
            )];
            let mut calls = vec![quote! { __routh::mechanics::add_residual_part(&mut dr, None, self.#forces_fn(t, x, a)); }];
            for (k, (jac, name)) in rows.iter().zip(&ce.names).enumerate() {
                let part_fn = format_ident!("__routh_{name}_saddle_jacobian");
                let doc = format!(
                    " Constraint `{name}`'s part of the saddle-point residual's Jacobian over the state: of −λ aᵀ (the \
                     first n rows, λ = `lam[0]`) and of its row a·q̈ + c (the last), and their time column."
                );
                let lam_ty = quote! { __routh::Vector<1> };
                match (jac, model.part_owner(k)) {
                    (Some(jac), _) => parts.push(part(&part_fn, &doc, jac, Some(lam_ty))),
                    // Derived once, in the first mode that holds the constraint (`Model::part_owners`).
                    (None, Some(owner)) => {
                        let receiver = crate::emit::codegen::mode_receiver(model, owner);
                        let rows = n + 1;
                        let doc = format!("{doc} The same in every mode that holds `{name}`: mode `{owner}`'s.");
                        parts.push(quote! {
                            #[doc = #doc]
                            #allow
                            #[inline(always)]
                            fn #part_fn(&self, t: f64, x: &#state, a: &#vec_n, lam: &#lam_ty)
                                -> (__routh::Matrix<#rows, #d>, __routh::Vector<#rows>)
                            {
                                #receiver.#part_fn(t, x, a, lam)
                            }
                        });
                    }
                    (None, None) => unreachable!("a constraint's part is derived unless another mode owns it"),
                }
                let row = n + k;
                calls.push(quote! {
                    __routh::mechanics::add_residual_part(&mut dr, ::core::option::Option::Some(#row), self.#part_fn(t, x, a, &__routh::Vector::<1>::new(lam[#k])));
                });
            }
            // Along a tree the runtime adds the kinetic part into `dr` after the parts.
            let mutable = inverse.is_some().then(|| quote!(mut));
            (
                quote! { #(#parts)* },
                quote! {
                    let mut dr = (__routh::Matrix::<#nm, #d>::zeros(), __routh::Vector::<#nm>::zeros());
                    #(#calls)*
                    let (#mutable dr, dr_t) = dr;
                },
            )
        }
    };
    let (jac_fn, allow) = (format_ident!("__routh_constraint_jacobian"), allow_generated());
    // With orientations, the rates' Jacobians ∂q̇/∂q, ∂q̇/∂v of q̇ = K(q) v head the field's Jacobian.
    let rates = crate::emit::dynamics::rate_jacobians_item(model, eq, helpers);
    // A constrained tree: K's quantities at (x, a) once, then its tangent along each basis
    // direction of the state added to the first n rows.
    let (kinetic_fns, add_kinetic) = match inverse {
        Some((KineticJacobian::Links(_), None)) => unreachable!("the links' derivatives come with spatial links"),
        Some((KineticJacobian::Links(lj), Some(links))) => {
            let (stmts, dynamics, _) = crate::emit::dynamics::link_dynamics(model, links, lj, "__routh_link_state", helpers);
            let allow = allow_generated();
            let mech = quote! { __routh::mechanics };
            let function = quote! {
                /// The links at (t, x) for the runtime's analytic ∂K/∂x (`LinkDynamics`): the joints' quantities,
                /// the links' inertias, the armatures and gravity.
                #allow
                fn __routh_link_state(&self, t: f64, x: &#state) -> #mech::LinkDynamics<#n> {
                    #(#stmts)*
                    #dynamics
                }
            };
            // With orientations ∂K/∂q along their body rotation vectors, over the quaternions'
            // components by ∂θ/∂q (K does not change with a quaternion's norm).
            let layout = crate::emit::codegen::state_layout(model);
            let positions = if model.layout.orientations.is_empty() {
                quote! { dkq }
            } else {
                quote! { #layout::positions_from_chart(x, &dkq) }
            };
            let add = quote! {
                let qd = x.fixed_rows::<#n>(#p).into_owned();
                let (dkq, dkv) = self.__routh_link_state(t, x).kinetic_derivatives(&qd, a);
                let dkq = #positions;
                for i in 0..#n {
                    for j in 0..#p {
                        dr[(i, j)] += dkq[(i, j)];
                    }
                    for j in 0..#n {
                        dr[(i, #p + j)] += dkv[(i, j)];
                    }
                }
            };
            (function, add)
        }
        Some((KineticJacobian::Tangent(inv), _)) => {
            let functions = crate::emit::codegen::TangentFunctions {
                name: "__routh_kinetic",
                bindings: &inv.bindings,
                tangent: &inv.tangent,
                extra: (quote! { a: &#vec_n, }, quote! { a, }),
                what: "the inverse dynamics' kinetic part K = M a + (velocity products) along the tree, at the accelerations `a`",
                along: "δK = (∂K/∂x) dx at fixed accelerations `a`",
            };
            (functions.items(model, helpers), functions.add_columns(model, nm))
        }
        None => (TokenStream::new(), TokenStream::new()),
    };
    quote! {
        #rates

        #kinetic_fns

        #allow
        fn #jac_fn(&self, t: f64, x: &#state, a: &#vec_n, lam: &#vec_m)
            -> (__routh::Matrix<#nm, #d>, __routh::Vector<#nm>)
        {
            #symbolic
            #add_kinetic
            (dr, dr_t)
        }

        #parts
    }
}

/// The statements, the sets into a zeroed `dr` and the time column of `jac`, a Jacobian over the
/// state of some of the saddle-point residual's rows, emitted as the body `name` (with the
/// accelerations `a` and, where they read multipliers, `lam` of type `lam`).
fn residual_jacobian(
    model: &View<'_>,
    jac: &ResidualJacobian,
    helpers: &mut Helpers,
    name: &str,
    lam: Option<TokenStream>,
) -> (Vec<TokenStream>, TokenStream, Vec<TokenStream>) {
    let (n, p) = (model.dof(), model.layout.position_dim());
    let rows = jac.dt.len();
    let vec_n = crate::emit::codegen::svector(n);
    let mut out: Vec<Expr> = jac.dq.iter().flatten().copied().collect();
    out.extend(jac.dv.iter().flatten().copied());
    out.extend(&jac.dt);
    out.extend(&jac.dz);
    let (params, args) = match lam {
        Some(ty) => (quote! { a: &#vec_n, lam: &#ty, }, quote! { a, lam, }),
        None => (quote! { a: &#vec_n, }, quote! { a, }),
    };
    let (stmts, vals) = helpers.body(model, &out, name, &params, &args);
    let sets = crate::emit::codegen::state_row_sets(
        rows,
        (p, n),
        (&vals[..rows * p], &vals[rows * p..rows * (p + n)], &vals[rows * (p + n) + rows..]),
    );
    (stmts, sets, vals[rows * (p + n)..rows * (p + n) + rows].to_vec())
}

/// `constraint_jacobian` (∂c/∂x of the holonomic position rows and the velocity rows) and
/// `linearize_constrained` (the runtime's `linearize::constrained_driven` on the field's and the
/// constraints' Jacobians, in a chart of each orientation with `constrained_with_orientations`).
fn manifold_linearization(model: &View<'_>, ce: &ConstraintEquations, helpers: &mut Helpers) -> TokenStream {
    let (n, m, d) = (model.dof(), ce.a.len(), model.layout.state_dim());
    let holonomic: Vec<usize> = (0..m).filter(|&k| ce.position[k].is_some()).collect();
    let h = holonomic.len();
    let rows = h + m;
    let state = crate::emit::codegen::state_type(d);
    // In a mode whose constraints' parts other modes share (`Model::part_owners`), each
    // constraint's rows are a method named after it, derived once in the first mode that holds
    // it and forwarded elsewhere; the Jacobian copies them into place.
    let (parts, body) = if model.part_owners.is_empty() {
        let (stmts, sets) = state_rows(model, ce, &(0..m).collect::<Vec<_>>(), "__routh_constraint_state_jacobian", helpers);
        (TokenStream::new(), quote! { #(#stmts)* let mut j = __routh::Matrix::<#rows, #d>::zeros(); #(#sets)* })
    } else {
        let allow = allow_generated();
        let mut parts = Vec::new();
        let mut copies = Vec::new();
        for (k, name) in ce.names.iter().enumerate() {
            let part_fn = format_ident!("__routh_{name}_state_jacobian");
            let position = holonomic.iter().position(|&c| c == k);
            let own = usize::from(position.is_some()) + 1;
            let doc = format!(
                " Constraint `{name}`'s rows of [`Self::constraint_jacobian`]: {}its velocity row, (∂(a·v + b)/∂q, a).",
                if position.is_some() { "its position row (∇f, 0), then " } else { "" }
            );
            let body = match model.part_owner(k) {
                Some(owner) => {
                    let receiver = crate::emit::codegen::mode_receiver(model, owner);
                    quote! { #receiver.#part_fn(t, x) }
                }
                None => {
                    let (stmts, sets) = state_rows(model, ce, &[k], &part_fn.to_string(), helpers);
                    quote! { #(#stmts)* let mut j = __routh::Matrix::<#own, #d>::zeros(); #(#sets)* j }
                }
            };
            parts.push(quote! {
                #[doc = #doc]
                #allow
                fn #part_fn(&self, t: f64, x: &#state) -> __routh::Matrix<#own, #d> {
                    #body
                }
            });
            let (velocity, last) = (h + k, own - 1);
            let copy_position = position.map(|r| quote! { j.row_mut(#r).copy_from(&part.row(0)); });
            copies.push(quote! {
                let part = self.#part_fn(t, x);
                #copy_position
                j.row_mut(#velocity).copy_from(&part.row(#last));
            });
        }
        (quote! { #(#parts)* }, quote! { let mut j = __routh::Matrix::<#rows, #d>::zeros(); #(#copies)* })
    };
    let allow = allow_generated();
    let inputs = crate::emit::codegen::input_matrix(model);
    let (call, chart_doc) = if model.layout.orientations.is_empty() {
        (
            quote! {
                __routh::linearize::constrained_driven((&jacobian, &inputs), (&constraints, &mass), &Self::COORDINATES, selection)
            },
            TokenStream::new(),
        )
    } else {
        let names: Vec<String> = model.layout.orientations.iter().map(|o| o.name.to_string()).collect();
        let example = &names[0];
        let doc = format!(
            " An orientation is charted by its body rotation vector about the reference motion: select \
             `theta1({example})`, `theta2({example})`, `theta3({example})` like coordinates (their velocities \
             θ̇ = δω − ω₀ × θ); see [`constrained_with_orientations`](::routh::runtime::linearize::constrained_with_orientations)."
        );
        (
            quote! {
                let a = self.accelerations(t, x).map_err(__routh::linearize::LinearizeError::from)?;
                let field = self.__routh_field_from(t, x, &a);
                let at = __routh::linearize::Oriented::new(&Self::COORDINATES, &[#(#names),*], x, &field);
                __routh::linearize::constrained_with_orientations(&at, (&jacobian, &inputs), (&constraints, &mass), selection)
            },
            quote! {
                ///
                #[doc = #doc]
            },
        )
    };
    quote! {
        /// The Jacobian ∂c/∂x of the constraints on the state: first the position rows f(t, q) of the
        /// holonomic constraints, (∇f, 0), then the velocity rows A v + b of every constraint,
        /// (∂(A v + b)/∂q, A) (the action's column, if any, is zero). Its kernel is the tangent space of the
        /// constraint manifold (`runtime::linearize`).
        #allow
        #[must_use]
        pub fn constraint_jacobian(&self, t: f64, x: &#state) -> __routh::Matrix<#rows, #d> {
            #body
            j
        }

        #parts

        /// The linearisation on the constraint manifold at `x` (an equilibrium or a steady motion) in the
        /// minimal state the selection names — independent coordinates and velocities, ignorable coordinates
        /// dropped and proved ignorable — with, for a mechanical selection, M, C, K of
        /// M δq̈ + C δq̇ + K δq = 0: exact, from [`Self::jacobian`] and [`Self::constraint_jacobian`] by the
        /// implicit function theorem (see
        /// [`routh::runtime::linearize`](::routh::runtime::linearize)).
        #chart_doc
        ///
        /// # Errors
        /// [`LinearizeError`](::routh::runtime::linearize::LinearizeError): a state off the constraint manifold
        /// (`OffManifold`, with the largest residual: project it first with `project_state`), a selection that
        /// does not fit, dependent components the constraints do not determine, a coordinate that is not
        /// ignorable, or the field's errors.
        pub fn linearize_constrained(&self, t: f64, x: &#state, selection: &__routh::linearize::Selection)
            -> ::core::result::Result<__routh::linearize::ConstrainedLinearization, __routh::linearize::LinearizeError>
        {
            let (positions, velocities) = (self.position_residuals(t, x), self.velocity_residuals(t, x));
            __routh::linearize::on_manifold(&[positions.as_slice(), velocities.as_slice()].concat(), x.as_slice())?;
            let jacobian = self.jacobian(t, x).map_err(__routh::linearize::LinearizeError::from)?;
            let c = self.constraint_jacobian(t, x);
            let constraints = __routh::DMatrix::from_column_slice(#rows, #d, c.as_slice());
            let m = self.mass_matrix(t, x);
            let mass = __routh::DMatrix::from_column_slice(#n, #n, m.as_slice());
            let inputs = #inputs;
            #call
        }
    }
}

/// The statements and the sets into a zeroed `j` of the rows of [`manifold_linearization`]'s
/// Jacobian for the constraints `ks` (in order; their holonomic position rows first, then their
/// velocity rows), emitted as the body `name`.
fn state_rows(
    model: &View<'_>,
    ce: &ConstraintEquations,
    ks: &[usize],
    name: &str,
    helpers: &mut Helpers,
) -> (Vec<TokenStream>, Vec<TokenStream>) {
    let n = model.dof();
    let p = model.layout.position_dim();
    let m = ks.len();
    // The holonomic rows among `ks`, each with its index among all the holonomic rows (of
    // `position_dq`).
    let all_holonomic: Vec<usize> = (0..ce.a.len()).filter(|&k| ce.position[k].is_some()).collect();
    let holonomic: Vec<(usize, usize)> =
        ks.iter().enumerate().filter_map(|(i, k)| all_holonomic.iter().position(|c| c == k).map(|r| (i, r))).collect();
    let h = holonomic.len();
    // ∂(A v + b)/∂q (m × p), A (m × n), and with orientations the holonomic rows' ∂f/∂q (h × p).
    let mut out: Vec<Expr> = ks.iter().flat_map(|&k| ce.rows_dq[k].iter().copied()).collect();
    out.extend(ks.iter().flat_map(|&k| ce.a[k].iter().copied()));
    out.extend(holonomic.iter().flat_map(|&(_, r)| ce.position_dq.get(r).into_iter().flatten().copied()));
    let (stmts, vals) = helpers.body(model, &out, name, &TokenStream::new(), &TokenStream::new());
    let a_of = |i: usize, c: usize| &vals[m * p + i * n + c];
    // Position rows: (∇f, 0) — where q̇ = v, ∇f is the row of A; velocity rows:
    // (∂(A v + b)/∂q, A); the action's column is zero.
    let quasi = !model.layout.orientations.is_empty();
    let position_sets = holonomic.iter().enumerate().flat_map(|(r, &(i, _))| (0..p).map(move |c| (r, i, c))).map(|(r, i, c)| {
        let v = if quasi { &vals[m * p + m * n + r * p + c] } else { a_of(i, c) };
        // Into `j`, zeroed: its zero entries need no set.
        (!is_zero_value(v)).then(|| quote! { j[(#r, #c)] = #v; })
    });
    let velocity_sets = (0..m).flat_map(|i| (0..p).map(move |c| (i, c))).map(|(i, c)| {
        let dq = &vals[i * p + c];
        let r = h + i;
        let a = (c < n).then(|| a_of(i, c)).filter(|a| !is_zero_value(a)).map(|a| quote! { j[(#r, #p + #c)] = #a; });
        let dq = (!is_zero_value(dq)).then(|| quote! { j[(#r, #c)] = #dq; });
        quote! { #dq #a }
    });
    let sets = position_sets.map(|s| quote! { #s }).chain(velocity_sets).collect();
    (stmts, sets)
}

/// `CONSTRAINTS`, `CONSTRAINT_KINDS` (the Frobenius test's verdict per row) and
/// `CONSTRAINTS_INTEGRABLE` (the verdict on the whole set).
fn constants(ce: &ConstraintEquations, names: &[String], kinds_doc: &str, set_doc: &str) -> TokenStream {
    let m = ce.a.len();
    let kinds: Vec<TokenStream> = ce
        .kinds
        .iter()
        .map(|k| match k {
            Kind::Holonomic => quote! { __routh::mechanics::ConstraintKind::Holonomic },
            Kind::Integrable => quote! { __routh::mechanics::ConstraintKind::Integrable },
            Kind::Nonholonomic => quote! { __routh::mechanics::ConstraintKind::Nonholonomic },
        })
        .collect();
    let set = match ce.set_integrable {
        Some(true) => quote! { ::core::option::Option::Some(true) },
        Some(false) => quote! { ::core::option::Option::Some(false) },
        None => quote! { ::core::option::Option::None },
    };
    let names_doc = " Names of the constraints, in the order of their rows and multipliers.";
    quote! {
        #[doc = #names_doc]
        pub const CONSTRAINTS: [&'static str; #m] = [#(#names),*];
        #[doc = #kinds_doc]
        pub const CONSTRAINT_KINDS: [__routh::mechanics::ConstraintKind; #m] = [#(#kinds),*];
        #[doc = #set_doc]
        pub const CONSTRAINTS_INTEGRABLE: ::core::option::Option<bool> = #set;
    }
}

/// `accelerations` and `jacobian` of the constrained system, from the saddle-point solve `solve`
/// with the mass `operator`.
fn accelerations_and_jacobian(
    model: &View<'_>,
    solve: &TokenStream,
    quasi: bool,
    operator: &MassOperator,
) -> (TokenStream, TokenStream) {
    let (n, d) = (model.dof(), model.layout.state_dim());
    let p = model.layout.position_dim();
    let sv = crate::emit::codegen::svector;
    let (state, vec_n) = (crate::emit::codegen::state_type(d), sv(n));
    let fe = crate::emit::codegen::field_error();
    let jac_fn = format_ident!("__routh_constraint_jacobian");
    let how = operator.along_tree().then(|| {
        quote! {
            ///
            /// M is factored along the model's kinematic tree (O(n) per solve, never formed): the Schur
            /// complement needs one solve per constraint row.
        }
    });
    let accelerations = quote! {
        /// Accelerations q̈ of the constrained system: the saddle-point system [M −Aᵀ; A 0] [q̈; λ] = [f; −c]
        /// solved numerically (see [`Self::constraint_rows`], [`Self::constraint_bias`]).
        #how
        ///
        /// # Errors
        /// [`FieldError::SingularMassMatrix`](::routh::runtime::FieldError) if M is singular,
        /// [`FieldError::SingularConstraints`](::routh::runtime::FieldError) if the constraint rows are
        /// dependent at this state.
        #[inline]
        pub fn accelerations(&self, t: f64, x: &#state) -> ::core::result::Result<#vec_n, #fe> {
            Ok({ #solve }?.accelerations)
        }
    };
    let layout = crate::emit::codegen::state_layout(model);
    let action_row = if model.layout.z.is_some() {
        quote! { #layout::set_action_row(&mut j, &self.__routh_lagrangian_gradient(t, x)); }
    } else {
        TokenStream::new()
    };
    let field_jacobian = if quasi {
        quote! { sol.quasi_field_jacobian::<#p, #d>(dr, self.__routh_rate_jacobians(t, x)) }
    } else {
        quote! { sol.field_jacobian(dr) }
    };
    let jac_how = operator.along_tree().then(|| {
        quote! {
            ///
            /// Along the kinematic tree, M is never formed: with M a − f = 𝒦(q, q̇, a) − τ, the kinetic part 𝒦 (M a and
            /// the velocity products, Kane's form) is differentiated by its directional derivative along the tree (O(n)
            /// code, once per basis direction of the state: O(n²) in all), τ, Aᵀλ and the rows symbolically; the
            /// solves with M are the tree factor's.
        }
    });
    let jacobian = quote! {
        /// Jacobian ∂F/∂x of the constrained first-order field, from symbolic derivatives of the saddle-point
        /// residual R = (M q̈ − Aᵀλ − f, A q̈ + c): ∂(q̈, λ)/∂x = −K⁻¹ ∂R/∂x with K = [M −Aᵀ; A 0] factored once.
        #jac_how
        ///
        /// # Errors
        /// As [`Self::accelerations`].
        pub fn jacobian(&self, t: f64, x: &#state) -> ::core::result::Result<__routh::Matrix<#d, #d>, #fe> {
            let sol = { #solve }?;
            let (a, lam) = (&sol.accelerations, &sol.multipliers);
            let (dr, _) = self.#jac_fn(t, x, a, lam);
            #[allow(unused_mut)]
            let mut j = #field_jacobian?;
            #action_row
            Ok(j)
        }
    };
    (accelerations, jacobian)
}

/// The rustdoc of the constraints: their rows, the bias, how each integrates and the set.
struct ConstraintDocs {
    rows: TokenStream,
    bias: TokenStream,
    kinds: String,
    set: String,
}

fn docs(model: &View<'_>, ce: &ConstraintEquations, names: &[String]) -> ConstraintDocs {
    let n = model.dof();
    let mut row_lines = Vec::new();
    for (i, name) in names.iter().enumerate() {
        let form: Vec<String> = (0..n)
            .filter(|&j| !model.arena.zero_test(ce.a[i][j]).is_zero())
            .map(|j| format!("({})·{}", formula(model, ce.a[i][j]), display_name(model, model.layout.qd[j])))
            .collect();
        let affine =
            if model.arena.zero_test(ce.b[i]).is_zero() { String::new() } else { format!(" + ({})", formula(model, ce.b[i])) };
        row_lines.push((format!("{name}: 0"), format!("{}{affine}", form.join(" + "))));
        if let Some(f) = ce.position[i] {
            row_lines.push((format!("{name} (position): 0"), formula(model, f)));
        }
    }
    let rows_doc = doc_block(
        "The constraints as velocity-level rows A q̇ + b = 0 (holonomic ones through their total derivative, \
         also shown at position level).",
        &row_lines,
    );
    let bias_lines: Vec<(String, String)> =
        names.iter().zip(&ce.bias).map(|(name, &c)| (format!("c[{name}]"), formula(model, c))).collect();
    let bias_doc = doc_block(
        "The acceleration-level bias c = d/dt(A q̇ + b) − A q̈ = Σⱼ ∂(A q̇ + b)/∂qⱼ q̇ⱼ + ∂(A q̇ + b)/∂t, so that \
         A q̈ + c = 0.",
        &bias_lines,
    );
    let kind_text: Vec<String> = names
        .iter()
        .zip(&ce.kinds)
        .map(|(name, k)| match k {
            Kind::Holonomic => format!("`{name}`: holonomic (declared)"),
            Kind::Integrable => format!(
                "`{name}`: **integrable** — its one-form α satisfies α ∧ dα = 0, so it is the derivative of a \
                 position constraint; consider writing it as `holonomic({name} = ...)`"
            ),
            Kind::Nonholonomic => format!("`{name}`: nonholonomic (α ∧ dα ≢ 0)"),
        })
        .collect();
    let set_text = match ce.set_integrable {
        Some(true) => "the set is integrable (dαᵢ ∧ α₁ ∧ … ∧ α_m ≡ 0): the motion stays on a submanifold of positions",
        Some(false) => "the set is not integrable: the constraints are nonholonomic together",
        None => "the set was too large for the symbolic Frobenius test",
    };
    let kinds_doc = format!(
        " How each constraint integrates, from the Frobenius test on the extended space (q, t) done at compile \
         time: {}; {set_text}.",
        kind_text.join("; ")
    );
    let set_doc = format!(" Whether the constraint set as a whole is integrable: {set_text}.");
    ConstraintDocs { rows: rows_doc, bias: bias_doc, kinds: kinds_doc, set: set_doc }
}

/// With `sensitivity(...)`: `parameter_jacobian`, ∂F/∂p of the constrained field through the
/// saddle point (`solve` gives its solution at (t, x)); with inputs, `input_jacobian`, ∂F/∂u, the
/// same way (w = (u, p)).
fn sensitivity_item(model: &View<'_>, ce: &ConstraintEquations, helpers: &mut Helpers, solve: &TokenStream) -> TokenStream {
    let (n, m, d) = (model.dof(), ce.a.len(), model.layout.state_dim());
    let nm = n + m;
    let sv = crate::emit::codegen::svector;
    let (state, vec_n, vec_m) = (crate::emit::codegen::state_type(d), sv(n), sv(m));
    let fe = crate::emit::codegen::field_error();
    let allow = quote! { #[allow(unused_variables, clippy::all, clippy::pedantic, non_snake_case)] };
    let jparams = quote! { a: &#vec_n, lam: &#vec_m, };
    let jargs = quote! { a, lam, };
    let (nu, np) = (model.layout.u.len(), model.sensitivity.len());
    let nw = nu + np;
    if nw == 0 {
        return TokenStream::new();
    }
    let mut outs: Vec<Expr> = ce.dr_dp.iter().flatten().copied().collect();
    outs.extend(&ce.dl_dp);
    let (s_stmts, s_vals) =
        helpers.body_bound(model, &ce.dr_dp_bindings, &outs, "__routh_constraint_sensitivity", &jparams, &jargs);
    let r_sets = zeroed_sets(&quote!(dr), (nm, nw), None, &s_vals[..nm * nw]);
    let l_sets = s_vals[nm * nw..].iter().enumerate().map(|(c, v)| quote! { lw[(0, #c)] = #v; });
    let layout = crate::emit::codegen::state_layout(model);
    let rows = if model.layout.z.is_some() {
        quote! { Ok(#layout::sensitivity_rows(&da, ::core::option::Option::Some(&lw))) }
    } else {
        quote! {
            let _ = lw;
            Ok(#layout::sensitivity_rows::<#nw>(&da, ::core::option::Option::None))
        }
    };
    let names: Vec<String> = model.sensitivity.iter().map(|&i| model.parameters[i].to_string()).collect();
    let p_doc = format!(
        " Sensitivity ∂F/∂p of the constrained first-order field to the parameters named in `sensitivity(...)`, \
          columns in that order ({}): ∂(q̈, λ)/∂p = −K⁻¹ ∂R/∂p on the saddle-point residual (implicit function theorem, \
          the factorisation reused).",
        names.join(", ")
    );
    let inputs: Vec<String> = model.inputs.iter().map(ToString::to_string).collect();
    let u_doc = format!(
        " The input matrix B = ∂F/∂u of the constrained first-order field, columns in the order of the inputs ({}): \
          ∂(q̈, λ)/∂u = −K⁻¹ ∂R/∂u on the saddle-point residual (the constraint forces respond to the inputs).",
        inputs.join(", ")
    );
    let param_item = (np > 0).then(|| {
        quote! {
            #[doc = #p_doc]
            ///
            /// # Errors
            /// As [`Self::accelerations`].
            pub fn parameter_jacobian(&self, t: f64, x: &#state)
                -> ::core::result::Result<__routh::Matrix<#d, #np>, #fe>
            {
                Ok(self.__routh_constraint_sensitivities(t, x)?.fixed_columns::<#np>(#nu).into_owned())
            }
        }
    });
    let input_item = (nu > 0).then(|| {
        let linearization = crate::emit::codegen::linearization_item(model, None);
        quote! {
            #linearization

            #[doc = #u_doc]
            ///
            /// # Errors
            /// As [`Self::accelerations`].
            pub fn input_jacobian(&self, t: f64, x: &#state)
                -> ::core::result::Result<__routh::Matrix<#d, #nu>, #fe>
            {
                Ok(self.__routh_constraint_sensitivities(t, x)?.fixed_columns::<#nu>(0).into_owned())
            }
        }
    });
    quote! {
        #allow
        fn __routh_constraint_sensitivities(&self, t: f64, x: &#state)
            -> ::core::result::Result<__routh::Matrix<#d, #nw>, #fe>
        {
            let sol = { #solve }?;
            let (a, lam) = (&sol.accelerations, &sol.multipliers);
            #(#s_stmts)*
            let mut dr = __routh::Matrix::<#nm, #nw>::zeros();
            let mut lw = __routh::Matrix::<1, #nw>::zeros();
            #r_sets
            #(#l_sets)*
            let da = sol.acceleration_sensitivity(dr)?;
            #rows
        }

        #param_item

        #input_item
    }
}

/// `impl Constrained` for the runtime's projection: M, the rows, the position residuals and which
/// rows are holonomic.
fn trait_impl(model: &View<'_>, ce: &ConstraintEquations) -> TokenStream {
    let (n, m, d) = (model.dof(), ce.a.len(), model.layout.state_dim());
    let state = crate::emit::codegen::state_type(d);
    let vec_m = crate::emit::codegen::svector(m);
    let holonomic: Vec<bool> = ce.position.iter().map(Option::is_some).collect();
    let owner = crate::emit::codegen::Owner::of(model);
    let (ty, generics) = (&owner.ty, &owner.generics);
    let items = crate::emit::codegen::lazy(quote! {
        fn rows(&self, t: f64, x: &#state) -> (__routh::Matrix<#m, #n>, #vec_m) {
            self.constraint_rows(t, x)
        }
        fn position_residuals(&self, t: f64, x: &#state) -> #vec_m {
            <#ty>::position_residuals(self, t, x)
        }
        fn holonomic(&self) -> [bool; #m] {
            [#(#holonomic),*]
        }
        fn row_names(&self) -> &'static [&'static str] {
            &Self::CONSTRAINTS
        }
    });
    quote! {
        #[automatically_derived]
        impl #generics __routh::constrained::Constrained<#n, #d, #m> for #ty {
            #items
        }
    }
}

/// `project_state` and `state_with_known_velocities`: consistent states through the runtime's
/// projection.
fn projection_items(model: &View<'_>, ce: &ConstraintEquations) -> TokenStream {
    let (n, m, d) = (model.dof(), ce.a.len(), model.layout.state_dim());
    let state = crate::emit::codegen::state_type(d);
    let fe = crate::emit::codegen::field_error();
    let (state_params, state_new) = crate::emit::codegen::state_arguments(model);
    let project_doc = " The state projected onto the constraints with the kinetic metric: Gauss–Newton on the positions of \
        the holonomic constraints, then the velocities onto A q̇ + b = 0 (see \
        [`routh::runtime::constrained`](::routh::runtime::constrained)). Use it for consistent initial conditions.";
    quote! {
        #[doc = #project_doc]
        ///
        /// # Errors
        /// [`FieldError::SingularConstraints`](::routh::runtime::FieldError) or
        /// [`FieldError::SingularMassMatrix`](::routh::runtime::FieldError) if the projection is singular.
        pub fn project_state(&self, t: f64, x: &#state) -> ::core::result::Result<#state, #fe> {
            __routh::constrained::project::<Self, #n, #d, #m>(self, t, x)
        }

        /// A consistent state from positions `q` and velocities `qdot` of which those marked `known` are
        /// independent (kept): the positions are projected onto the holonomic constraints and the other
        /// velocities completed from A q̇ + b = 0 (the values given for them are only a guess, changed as
        /// little as possible in the kinetic metric).
        ///
        /// # Errors
        /// [`FieldError::SingularConstraints`](::routh::runtime::FieldError) if the known velocities do not
        /// determine the others or contradict the constraints.
        pub fn state_with_known_velocities(&self, t: f64, #state_params, known: [bool; #n])
            -> ::core::result::Result<#state, #fe>
        {
            let x = #state_new;
            __routh::constrained::with_known_velocities::<Self, #n, #d, #m>(self, t, &x, &known)
        }
    }
}
