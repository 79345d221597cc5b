//! The dynamics contract of generated code: how a model's accelerations are obtained and what the
//! runtime is given of its mass matrix. One straight-line function gives M and f together
//! (`__routh_dynamics`); everything else asks this module for the model's *mass operator* — M
//! factored once per state, solved with through the runtime's `MassOperator` trait (the dense factor
//! today; a recursive factorisation along a kinematic tree can take its place) — never for M:
//!
//! - the accelerations, the field Jacobian and the sensitivities (here);
//! - the constrained saddle point and its sensitivities ([`crate::emit::constraint`], through
//!   [`bind_mass_operator_and_forcing`]);
//! - the restitution laws of impacts ([`crate::emit::impact`]) and the inverse Legendre transform
//!   of discrete trajectories ([`crate::emit::discrete`]), through [`mass_operator`];
//! - the runtime's projections and completions, through `impl MechanicalSystem`
//!   ([`mechanical_system_impl`]), the runtime's central trait.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use symbolic::Expr;

use crate::derive::constraint::ConstraintEquations;
use crate::derive::euler_lagrange::Equations;
use crate::derive::tree::kinetics::FactorAlongLinks;
use crate::derive::tree::spatial::Links;
use crate::derive::tree::{Bound, Dynamics, Recursive, Tree};
use crate::emit::codegen::{Helpers, TangentFunctions, allow_generated, body_placed, lazy, square_matrix, symbol_tokens};
use crate::model::View;

/// The name of the generated M-and-f function.
pub(crate) fn function_name() -> syn::Ident {
    format_ident!("__routh_dynamics")
}

/// `__routh_dynamics(t, x, m, f)`: M and f in one straight-line function, the hot path of the
/// vector field; its part functions, if any, join `helpers`. It writes M's diagonal and lower
/// triangle (the strict upper triangle is left as the caller had it), which is all that the
/// runtime's dense factor reads (`mechanics::accelerations_in_place`, `mechanics::factor_mass`),
/// and f, into storage the caller owns ([`call_dynamics`]); a long computation stores each entry
/// where it belongs (`codegen::body_placed`), so nothing is copied.
pub(crate) fn mass_and_forcing(model: &View<'_>, eq: &Equations, helpers: &mut Helpers) -> TokenStream {
    let n = model.dof();
    let d = model.layout.state_dim();
    let outputs = outputs(eq);
    // The outputs are M's upper triangle row by row (Mᵢⱼ, j ≥ i), then f: Mᵢⱼ goes to (j, i).
    let entries: Vec<(usize, usize)> = (0..n).flat_map(|i| (i..n).map(move |j| (j, i))).collect();
    let mut places: Vec<Option<TokenStream>> = entries.iter().map(|&(r, c)| Some(quote! { __m[(#r, #c)] })).collect();
    places.extend((0..n).map(|i| Some(quote! { __f[#i] })));
    let (matrix, vector) = (matrix_type(n), vector_type(n));
    let params = quote! { __m: &mut #matrix, __f: &mut #vector, };
    let args = quote! { __m, __f, };
    let (body, placed) = body_placed(model, &outputs, &places, "__routh_dynamics", &params, &args);
    let (stmts, vals) = helpers.add(body);
    let rest = places.iter().zip(&vals).zip(&placed).filter(|(_, p)| !**p).map(|((place, v), _)| quote! { #place = #v; });
    let (dyn_fn, allow) = (function_name(), allow_generated());
    quote! {
        /// M (its diagonal and lower triangle) and f together, into `__m` and `__f` (the hot path of
        /// the vector field).
        #allow
        #[inline]
        fn #dyn_fn(&self, t: f64, x: &__routh::State<#d>, __m: &mut #matrix, __f: &mut #vector) {
            #(#stmts)*
            #(#rest)*
        }
    }
}

fn matrix_type(n: usize) -> TokenStream {
    quote! { __routh::Matrix<#n, #n> }
}

fn vector_type(n: usize) -> TokenStream {
    quote! { __routh::Vector<#n> }
}

/// Statements binding `m` (M's diagonal and lower triangle, zero above) and `f` at `(t, x)` from
/// the M-and-f function ([`mass_and_forcing`]) of a model with `n` coordinates.
pub(crate) fn call_dynamics(n: usize) -> TokenStream {
    let (matrix, vector, dyn_fn) = (matrix_type(n), vector_type(n), function_name());
    quote! {
        let mut m = <#matrix>::zeros();
        let mut f = <#vector>::zeros();
        self.#dyn_fn(t, x, &mut m, &mut f);
    }
}

/// The statement binding the model's mass operator `mass` and forcing `f` at `(t, x)`: from the one
/// M-and-f function, or (`tree`) M factored along the kinematic tree with f along it; `?` on a
/// singular or non-finite M (the enclosing function returns a `Result<_, FieldError>`).
pub(crate) fn bind_mass_operator_and_forcing(model: &View<'_>, tree: bool) -> TokenStream {
    if tree {
        let both = format_ident!("{}_and_forcing", tree_factor_name());
        return quote! { let (mass, f) = self.#both(t, x)?; };
    }
    let call = call_dynamics(model.dof());
    quote! {
        let (mass, f) = {
            #call
            (__routh::mechanics::factor_mass(t, m)?, f)
        };
    }
}

/// The model's mass operator at `(t, x)`, an expression of type `Result<MassFactor, FieldError>`.
pub(crate) fn mass_operator() -> TokenStream {
    quote! { __routh::mechanics::factor_mass(t, self.mass_matrix(t, x)) }
}

/// `__routh_dynamics(t, x, m, f)` of a model whose M comes from products along its links and f
/// from a pass along them (the spatial recursion's kinetics): the M-and-f function that the
/// sensitivities and the dense Jacobians call ([`call_dynamics`]), here a call of the two.
pub(crate) fn products_as_dynamics(model: &View<'_>) -> TokenStream {
    let n = model.dof();
    let (matrix, vector, dyn_fn, allow) = (matrix_type(n), vector_type(n), function_name(), allow_generated());
    let d = model.layout.state_dim();
    quote! {
        /// M (from its products along the links) and f (along them), into `__m` and `__f`.
        #allow
        #[inline]
        fn #dyn_fn(&self, t: f64, x: &__routh::State<#d>, __m: &mut #matrix, __f: &mut #vector) {
            *__m = self.mass_matrix(t, x);
            *__f = self.__routh_forcing(t, x);
        }
    }
}

/// The name of a tree model's factor function ([`tree_factor_item`]).
fn tree_factor_name() -> syn::Ident {
    format_ident!("__routh_tree_factor")
}

/// The functions of a model whose M is the runtime's along its kinematic tree of directions `tree`:
/// `__routh_tree()` (the tree's structure, a static), `__routh_tree_coefficients(t, x)` (the
/// directions' coefficients S_d and masses), `__routh_tree_factor(t, x)` (M factored along the
/// tree, the runtime's `TreeFactor`: O(n) to factor and per solve; the model's
/// `MechanicalSystem::Mass`) and, with `forcing` (f along the tree), `__routh_tree_factor_and_forcing`
/// — the two from one body (the coordinates' sines and cosines once), for the saddle point of its
/// constraints.
pub(crate) fn tree_factor_item(model: &View<'_>, tree: &Tree, forcing: Option<&Bound>, helpers: &mut Helpers) -> TokenStream {
    let (n, d) = (model.dof(), model.layout.state_dim());
    let k = tree.dirs.len();
    let mut outputs: Vec<Expr> = tree.dirs.iter().map(|&(_, _, s)| s).collect();
    outputs.extend(&tree.masses);
    let none = TokenStream::new();
    let (stmts, vals) = helpers.body(model, &outputs, "__routh_tree_coefficients", &none, &none);
    let (s_vals, m_vals) = vals.split_at(k);
    let name = tree_factor_name();
    let both = forcing.map(|f| {
        let mut all = outputs.clone();
        all.extend(&f.outputs);
        let both = format_ident!("{name}_and_forcing");
        let (stmts, vals) = helpers.body_bound(model, &f.bindings, &all, &both.to_string(), &none, &none);
        let (s_vals, rest) = vals.split_at(k);
        let (m_vals, f_vals) = rest.split_at(k);
        (both, stmts, s_vals.to_vec(), m_vals.to_vec(), f_vals.to_vec())
    });
    // The structure: joints, parents, slots (a direction's place at its joint), directions by joint,
    // joints parents first.
    let mut slot = vec![0usize; k];
    for dirs in &tree.at_joint {
        for (place, &dir) in dirs.iter().enumerate() {
            slot[dir] = place;
        }
    }
    let order = &tree.order;
    let joint = tree.dirs.iter().map(|&(j, _, _)| j);
    let parent = parents_tokens(tree.dirs.iter().map(|&(_, p, _)| p));
    let at_joint = tree.at_joint.iter().map(|dirs| quote! { &[#(#dirs),*] });
    let allow = allow_generated();
    let sv = quote! { __routh::Vector };
    let factor_ty = quote! { __routh::mechanics::TreeFactor<#n, #k> };
    let topology_ty = quote! { __routh::mechanics::TreeTopology };
    let fe = quote! { __routh::FieldError };
    let both = both.map(|(both, b_stmts, b_s, b_m, b_f)| {
        quote! {
            /// M factored along the kinematic tree and f along it, at (t, x) (one body: the
            /// coordinates' sines and cosines once).
            #allow
            fn #both(&self, t: f64, x: &#sv<#d>) -> ::core::result::Result<(#factor_ty, #sv<#n>), #fe> {
                #(#b_stmts)*
                let factor = __routh::mechanics::TreeFactor::new(t, Self::__routh_tree(), [#(#b_s),*], [#(#b_m),*])?;
                ::core::result::Result::Ok((factor, #sv::<#n>::from([#(#b_f),*])))
            }
        }
    });
    quote! {
        /// The structure of the model's kinematic tree: its directions of motion (a static: `'static`
        /// in generic impls too).
        fn __routh_tree() -> &'static #topology_ty {
            static TREE: #topology_ty = __routh::mechanics::TreeTopology {
                joint: &[#(#joint),*],
                parent: &[#(#parent),*],
                slot: &[#(#slot),*],
                at_joint: &[#(#at_joint),*],
                order: &[#(#order),*],
            };
            &TREE
        }

        /// The coefficients S_d and the masses of the tree's directions at (t, x).
        #allow
        fn __routh_tree_coefficients(&self, t: f64, x: &#sv<#d>) -> ([f64; #k], [f64; #k]) {
            #(#stmts)*
            ([#(#s_vals),*], [#(#m_vals),*])
        }

        /// M factored along the kinematic tree at (t, x) (O(n); M never formed).
        #allow
        fn #name(&self, t: f64, x: &#sv<#d>) -> ::core::result::Result<#factor_ty, #fe> {
            let (s, m) = self.__routh_tree_coefficients(t, x);
            __routh::mechanics::TreeFactor::new(t, Self::__routh_tree(), s, m)
        }

        #both
    }
}

/// The functions of a model whose M is the runtime's along its tree of rigid links `links` (the
/// spatial recursion's): `__routh_links()` (the tree's structure, a static), `__routh_tree_factor(t, x)`
/// (the quantities of M factored along the links, `link_factor`: each joint's A_j, ℓ_j, S_j and
/// the links' inertias, and with its parts U_j, D_j and M_jj, straight-line code; the runtime's
/// `LinkFactor` from them, O(n) per solve; the model's `MechanicalSystem::Mass`) and, `with_forcing`,
/// `__routh_tree_factor_and_forcing` — the factor and f by their own functions, for the saddle
/// point of its constraints. The same names as a tree of directions' ([`tree_factor_item`]), so that every caller
/// of the factor serves both.
pub(crate) fn link_factor_item(
    model: &View<'_>,
    links: &Links,
    link_factor: &FactorAlongLinks,
    with_forcing: bool,
    helpers: &mut Helpers,
) -> TokenStream {
    let (n, d) = (model.dof(), model.layout.state_dim());
    let factor = &link_factor.quantities;
    // Per joint: A (9, by rows), ℓ (3), S (6), and with the parts U (6), D, M_jj; then the links'
    // inertias (36 each).
    let per_joint = if link_factor.parts { 26 } else { 18 };
    debug_assert_eq!(factor.outputs.len(), n * (per_joint + 36));
    let name = tree_factor_name();
    let sv = quote! { __routh::Vector };
    let factor_ty = quote! { __routh::mechanics::LinkFactor<#n> };
    let fe = quote! { __routh::FieldError };
    let allow = allow_generated();
    // The factor from the values of the outputs.
    let make = |vals: &[TokenStream]| {
        let (joint_vals, inertia_vals) = vals.split_at(n * per_joint);
        let joints = joint_vals.chunks(per_joint).map(|v| {
            let rows = v[..9].chunks(3).map(|r| quote! { [#(#r),*] });
            let (l, s) = (&v[9..12], &v[12..18]);
            quote! { __routh::mechanics::LinkJoint::new([#(#rows),*], [#(#l),*], [#(#s),*]) }
        });
        let inertias = inertia_vals.chunks(36).map(|v| {
            let rows = v.chunks(6).map(|r| quote! { [#(#r),*] });
            quote! { [#(#rows),*] }
        });
        if !link_factor.parts {
            return quote! {
                __routh::mechanics::LinkFactor::new(t, Self::__routh_links(), [#(#joints),*], [#(#inertias),*])
            };
        }
        let u = joint_vals.chunks(per_joint).map(|v| {
            let u = &v[18..24];
            quote! { [#(#u),*] }
        });
        let pivots = joint_vals.chunks(per_joint).map(|v| &v[24]);
        let diagonal = joint_vals.chunks(per_joint).map(|v| &v[25]);
        quote! {
            __routh::mechanics::LinkFactor::from_parts(t, Self::__routh_links(), [#(#joints),*], [#(#inertias),*], ([#(#u),*], [#(#pivots),*], [#(#diagonal),*]))
        }
    };
    let none = TokenStream::new();
    let (stmts, vals) = helpers.body_bound(model, &factor.bindings, &factor.outputs, "__routh_link_factor", &none, &none);
    let made = make(&vals);
    // With constraints: the factor and f by their own functions (one body for both would repeat
    // the factor's code, the larger part, for the joints' sines and cosines once).
    let both = with_forcing.then(|| {
        let both = format_ident!("{name}_and_forcing");
        quote! {
            /// M factored along the links and f along them, at (t, x).
            #allow
            fn #both(&self, t: f64, x: &#sv<#d>) -> ::core::result::Result<(#factor_ty, #sv<#n>), #fe> {
                ::core::result::Result::Ok((self.#name(t, x)?, self.forcing(t, x)))
            }
        }
    });
    let order = &links.order;
    let parent = parents_tokens(links.parents.iter().copied());
    let topology_ty = quote! { __routh::mechanics::LinkTopology };
    quote! {
        /// The structure of the model's tree of links (a static: `'static` in generic impls too).
        fn __routh_links() -> &'static #topology_ty {
            static LINKS: #topology_ty = __routh::mechanics::LinkTopology {
                parent: &[#(#parent),*],
                order: &[#(#order),*],
            };
            &LINKS
        }

        /// M factored along the links at (t, x): each joint's A_j, ℓ_j and S_j, the articulated
        /// inertias' U_j and pivots D_j, M's diagonal from the composite inertias, and the links'
        /// inertias (O(n); M never formed).
        #allow
        fn #name(&self, t: f64, x: &#sv<#d>) -> ::core::result::Result<#factor_ty, #fe> {
            #(#stmts)*
            #made
        }

        #both
    }
}

/// A tree's parents as `Option<usize>` literals (of its directions, or of its links).
fn parents_tokens(parents: impl Iterator<Item = Option<usize>>) -> impl Iterator<Item = TokenStream> {
    parents.map(|p| match p {
        Some(p) => quote! { ::core::option::Option::Some(#p) },
        None => quote! { ::core::option::Option::None },
    })
}

/// `impl MechanicalSystem<N, D>`: the runtime's central trait — the mass operator (dense, or the
/// type `factor` of `__routh_tree_factor`: along a kinematic tree of directions or of links) and
/// the energy.
pub(crate) fn mechanical_system_impl(model: &View<'_>, factor: Option<&TokenStream>) -> TokenStream {
    let (n, d) = (model.dof(), model.layout.state_dim());
    let owner = crate::emit::codegen::Owner::of(model);
    let (ty, generics) = (&owner.ty, &owner.generics);
    let state = crate::emit::codegen::state_type(d);
    let fe = crate::emit::codegen::field_error();
    let (mass_ty, mass) = match factor {
        Some(factor_ty) => {
            let factor = tree_factor_name();
            (factor_ty.clone(), quote! { self.#factor(t, x) })
        }
        None => (quote! { __routh::MassFactor<#n> }, mass_operator()),
    };
    let p = model.layout.position_dim();
    let positions = if p == n {
        TokenStream::new()
    } else {
        quote! { const POSITIONS: usize = #p; }
    };
    let items = lazy(quote! {
        type Mass = #mass_ty;
        #positions
        fn mass(&self, t: f64, x: &#state) -> ::core::result::Result<Self::Mass, #fe> {
            #mass
        }
        fn energy(&self, t: f64, x: &#state) -> f64 {
            Self::energy(self, t, x)
        }
    });
    quote! {
        #[automatically_derived]
        impl #generics __routh::MechanicalSystem<#n, #d> for #ty {
            #items
        }
    }
}

/// Operation counts of the hot path (M and f together), for benchmarks and docs.
pub fn dynamics_ops(model: &View<'_>, eq: &Equations) -> symbolic::OpCount {
    let outputs = outputs(eq);
    symbolic::emit(model.arena, &outputs, &|s| symbol_tokens(model, s), "__w").ops
}

/// Upper triangle of M (row-major), then f.
pub(crate) fn outputs(eq: &Equations) -> Vec<Expr> {
    let n = eq.forcing.len();
    let mut out = Vec::with_capacity(n * (n + 1) / 2 + n);
    for i in 0..n {
        for j in i..n {
            out.push(eq.mass[i][j]);
        }
    }
    out.extend(&eq.forcing);
    out
}

/// How the model's accelerations and field Jacobian are obtained (the dynamics contract of the
/// generated code): the unconstrained system M q̈ = f solved through the runtime's mass factor, or
/// the constrained one (the saddle-point system of [`crate::emit::constraint`]). Returns the
/// `accelerations` and `jacobian` methods, the constraint or sensitivity methods, and the
/// constrained system's trait impl.
pub(crate) fn accelerations_and_jacobian(
    model: &View<'_>,
    eq: &Equations,
    constraints: Option<&ConstraintEquations>,
    helpers: &mut Helpers,
    dynamics: &Dynamics,
    tree: bool,
) -> (TokenStream, TokenStream, TokenStream, TokenStream) {
    let n = model.dof();
    let d = model.layout.state_dim();
    let jac_doc = if eq.contact.is_some() {
        " Jacobian ∂F/∂x of the first-order field x' = F(t, x) = (q̇, M⁻¹f, L) over x = (q, q̇, z), from symbolic \
          derivatives: with g = f − M a, ∂q̈/∂x = M⁻¹ ∂g/∂x at a = q̈ (M factored once), and the row of ż = L is ∂L/∂x \
          (see [`routh::runtime::mechanics`](::routh::runtime::mechanics))."
    } else {
        " Jacobian ∂F/∂x of the first-order field x' = F(t, x) = (q̇, M⁻¹f), from symbolic derivatives: with \
          g = f − M a, ∂q̈/∂x = M⁻¹ ∂g/∂x at a = q̈ (M factored once, see \
          [`routh::runtime::mechanics`](::routh::runtime::mechanics))."
    };
    let jac_doc = if eq.residual_tangent.is_some() {
        " Jacobian ∂F/∂x of the first-order field x' = F(t, x) = (q̇, M⁻¹f): with g = f − M a, ∂q̈/∂x = M⁻¹ ∂g/∂x at \
          a = q̈ (M factored once), ∂g/∂x column by column from g's symbolic derivative along each direction of the \
          state (code the size of g, not of its 2n² derivatives; see \
          [`routh::runtime::mechanics`](::routh::runtime::mechanics))."
    } else {
        jac_doc
    };
    let jac_fn = format_ident!("__routh_residual_jacobian");
    let allow = allow_generated();
    // Accelerations and the field Jacobian: of the unconstrained system (M q̈ = f), or of the
    // constrained one (the saddle-point system of `emit::constraint`).
    match constraints {
        Some(ce) => {
            // The saddle point's Jacobian along the tree (or the links), whichever factor solves it.
            let inverse = match dynamics {
                Dynamics::Recursive(r) => r.inverse.as_deref(),
                Dynamics::Dense(_) => None,
            };
            let items = crate::emit::constraint::emit(model, ce, eq, helpers, tree, inverse);
            (items.accelerations, items.jacobian, items.methods, items.trait_impl)
        }
        None if !model.field_jacobian => {
            let acc = accelerations_item(model, eq, dynamics, helpers);
            let sensitivities = sensitivity_items(model, eq, helpers, tree);
            (acc, TokenStream::new(), sensitivities, TokenStream::new())
        }
        None if eq.rate_jacobians.is_some() => {
            let jac = quasi_jacobian_items(model, eq, helpers);
            let sensitivities = sensitivity_items(model, eq, helpers, tree);
            (accelerations_item(model, eq, dynamics, helpers), jac, sensitivities, TokenStream::new())
        }
        None if matches!(dynamics, Dynamics::Recursive(Recursive { tangent: Some(_), .. })) => {
            let Dynamics::Recursive(r) = dynamics else { unreachable!("matched above") };
            let jac = recursive_jacobian(model, r, helpers);
            let sensitivities = sensitivity_items(model, eq, helpers, tree);
            (accelerations_item(model, eq, dynamics, helpers), jac, sensitivities, TokenStream::new())
        }
        None => {
            // Residual Jacobians ∂g/∂q, ∂g/∂q̇ (row-major), and ∂g/∂z of a contact model.
            let mut jac_out: Vec<Expr> = eq.dg_dq.iter().flatten().copied().collect();
            jac_out.extend(eq.dg_dv.iter().flatten().copied());
            if let Some(c) = &eq.contact {
                jac_out.extend(&c.dg_dz);
            }
            let a_param = quote! { a: &__routh::Vector<#n>, };
            let a_arg = quote! { a, };
            // ∂g/∂x from its formulas, or (by size, or with M by columns) from g's tangent along each
            // direction of the state.
            let (mut jac_stmts, mut tangent_items) = (Vec::new(), TokenStream::new());
            let (gq, gv, gz) = match &eq.residual_tangent {
                None => {
                    let (stmts, jac_vals) = helpers.body(model, &jac_out, "__routh_residual_jacobian", &a_param, &a_arg);
                    jac_stmts = stmts;
                    let gz: Vec<TokenStream> = jac_vals[2 * n * n..].to_vec();
                    (square_matrix(n, &jac_vals[..n * n]), square_matrix(n, &jac_vals[n * n..2 * n * n]), gz)
                }
                Some(tangent) => {
                    let functions = TangentFunctions {
                        name: "__routh_residual",
                        bindings: &[],
                        tangent,
                        extra: (a_param.clone(), a_arg.clone()),
                        what: "the residual g = f − M a",
                        along: "The residual's derivative δg = (∂g/∂x) dx at fixed a",
                    };
                    tangent_items = functions.items(model, helpers);
                    let add = functions.add_columns(model, n);
                    jac_stmts.push(quote! {
                        let mut dr = __routh::Matrix::<#n, #d>::zeros();
                        #add
                    });
                    (
                        quote! { dr.fixed_columns::<#n>(0).into_owned() },
                        quote! { dr.fixed_columns::<#n>(#n).into_owned() },
                        Vec::new(),
                    )
                }
            };
            let gz = &gz[..];
            let layout = crate::emit::codegen::state_layout(model);
            let (jac_ret_ty, jac_ret, jac_bind, jac_finish) = if eq.contact.is_some() {
                (
                    quote! { (__routh::Matrix<#n, #n>, __routh::Matrix<#n, #n>, __routh::Vector<#n>) },
                    quote! { (#gq, #gv, __routh::Vector::<#n>::from([#(#gz),*])) },
                    quote! { let (gq, gv, gz) = self.#jac_fn(t, x, &a); },
                    quote! {
                        #layout::jacobian(t, &mass, ::core::option::Option::None, (gq, gv),
                            ::core::option::Option::Some((gz, &self.__routh_lagrangian_gradient(t, x))))
                    },
                )
            } else {
                (
                    quote! { (__routh::Matrix<#n, #n>, __routh::Matrix<#n, #n>) },
                    quote! { (#gq, #gv) },
                    quote! { let (gq, gv) = self.#jac_fn(t, x, &a); },
                    quote! { #layout::jacobian(t, &mass, ::core::option::Option::None, (gq, gv), ::core::option::Option::None) },
                )
            };
            let acc = accelerations_item(model, eq, dynamics, helpers);
            let bind = bind_mass_operator_and_forcing(model, false);
            let jac = quote! {
                #tangent_items

                /// ∂g/∂q and ∂g/∂q̇ (and ∂g/∂z of a contact model) for the residual g = f − M a (used by
                /// [`Self::jacobian`]).
                #allow
                fn #jac_fn(&self, t: f64, x: &__routh::State<#d>, a: &__routh::Vector<#n>)
                    -> #jac_ret_ty
                {
                    #(#jac_stmts)*
                    #jac_ret
                }

                #[doc = #jac_doc]
                ///
                /// # Errors
                /// [`FieldError::SingularMassMatrix`](::routh::runtime::FieldError) if M is singular at this state.
                pub fn jacobian(&self, t: f64, x: &__routh::State<#d>)
                    -> ::core::result::Result<__routh::Matrix<#d, #d>, __routh::FieldError>
                {
                    #bind
                    let a = mass.solve(f).map_err(|_| __routh::FieldError::NonFinite { t })?;
                    #jac_bind
                    #jac_finish
                }
            };
            let sensitivities = sensitivity_items(model, eq, helpers, tree);
            (acc, jac, sensitivities, TokenStream::new())
        }
    }
}

/// `jacobian` of a model with orientations: x = (q, v), F = (K(q) v, M⁻¹f), from the rates'
/// Jacobians and those of the residual g = f − M a (see `runtime::mechanics::StateLayout::jacobian`).
fn quasi_jacobian_items(model: &View<'_>, eq: &Equations, helpers: &mut Helpers) -> TokenStream {
    let (n, d, nq) = (model.dof(), model.layout.state_dim(), model.layout.position_dim());
    let Some((rq, rv)) = &eq.rate_jacobians else { return TokenStream::new() };
    let mut outputs: Vec<Expr> = rq.iter().flatten().copied().collect();
    outputs.extend(rv.iter().flatten().copied());
    outputs.extend(eq.dg_dq.iter().flatten().copied());
    outputs.extend(eq.dg_dv.iter().flatten().copied());
    if let Some(c) = &eq.contact {
        outputs.extend(&c.dg_dz);
    }
    let a_param = quote! { a: &__routh::Vector<#n>, };
    let a_arg = quote! { a, };
    let (stmts, vals) = helpers.body(model, &outputs, "__routh_quasi_jacobian", &a_param, &a_arg);
    let (v_rq, rest) = vals.split_at(nq * nq);
    let (v_rv, rest) = rest.split_at(nq * n);
    let (v_gq, rest) = rest.split_at(n * nq);
    let (v_gv, v_gz) = rest.split_at(n * n);
    let m = |r: usize, c: usize, v: &[TokenStream]| {
        quote! { __routh::Matrix::<#r, #c>::from_row_slice(&[#(#v),*]) }
    };
    let (rq_m, rv_m, gq_m, gv_m) = (m(nq, nq, v_rq), m(nq, n, v_rv), m(n, nq, v_gq), m(n, n, v_gv));
    let layout = crate::emit::codegen::state_layout(model);
    let finish = if eq.contact.is_some() {
        // The action's column and the row of ż = L.
        let gz = quote! { __routh::Vector::<#n>::from([#(#v_gz),*]) };
        quote! {
            #layout::jacobian(t, &mass, ::core::option::Option::Some((#rq_m, #rv_m)), (#gq_m, #gv_m),
                ::core::option::Option::Some((#gz, &self.__routh_lagrangian_gradient(t, x))))
        }
    } else {
        quote! { #layout::jacobian(t, &mass, ::core::option::Option::Some((#rq_m, #rv_m)), (#gq_m, #gv_m), ::core::option::Option::None) }
    };
    let bind = bind_mass_operator_and_forcing(model, false);
    let allow = allow_generated();
    quote! {
        /// Jacobian ∂F/∂x of the first-order field x' = F(t, x) = (K(q) v, M⁻¹f) over x = (q, v) — the
        /// quaternions' rates q̇ = ½ q ⊗ (0, ω) on top — from symbolic derivatives: with g = f − M a,
        /// ∂v̇/∂x = M⁻¹ ∂g/∂x at a = v̇ (M factored once). Derivatives along q include the directions
        /// that change |q| (the field depends on q/|q| only).
        ///
        /// # Errors
        /// [`FieldError::SingularMassMatrix`](::routh::runtime::FieldError) if M is singular at this state.
        #allow
        pub fn jacobian(&self, t: f64, x: &__routh::State<#d>)
            -> ::core::result::Result<__routh::Matrix<#d, #d>, __routh::FieldError>
        {
            #bind
            let a = mass.solve(f).map_err(|_| __routh::FieldError::NonFinite { t })?;
            let a = &a;
            #(#stmts)*
            #finish
        }
    }
}

/// `continue_equilibria`: the equilibria of a plain model (no inputs, constraints, action or
/// orientation, whose equilibria are not isolated or need more) continued in one of its
/// `sensitivity(...)` parameters, with the generated `jacobian` and `parameter_jacobian`.
fn equilibria_item(model: &View<'_>) -> TokenStream {
    // A mode of a system with modes is a view of the system's struct: its equilibria are the
    // mode's, not the system's (and the view cannot be rebuilt at another parameter value).
    let plain = model.mode.is_none()
        && model.layout.u.is_empty()
        && model.constraints.is_empty()
        && model.layout.z.is_none()
        && model.layout.position_dim() == model.dof();
    if !plain {
        return TokenStream::new();
    }
    let d = model.layout.state_dim();
    let fields = &model.parameters;
    let chosen: Vec<&syn::Ident> = model.sensitivity.iter().map(|&i| &model.parameters[i]).collect();
    let rebuild = crate::emit::codegen::with_parameter(fields, &chosen);
    let sv = quote! { __routh::State<#d> };
    let cont = quote! { __routh::continuation };
    quote! {
        /// The equilibria F(x; p) = 0 continued in the parameter `parameter` (one of [`Self::SENSITIVITY`]) from
        /// the state `x0` at the model's own parameter values (corrected first): pseudo-arclength continuation
        /// with the exact ∂F/∂x and ∂F/∂p, turning points (folds) and simple bifurcations located
        /// ([`routh::runtime::continuation`](::routh::runtime::continuation)). Each point's `u` is (x, p)
        /// (`continuation::equilibria::split`); its stability is that of [`Self::jacobian`] there. The field is
        /// taken at t = 0.
        ///
        /// # Errors
        /// [`ContinuationError::InvalidOptions`](::routh::runtime::continuation::ContinuationError) for a parameter
        /// not in `SENSITIVITY` or bad options; the corrector's errors at the start.
        pub fn continue_equilibria(&self, parameter: &str, x0: &#sv, leave: #cont::Start, options: &#cont::ContinuationOptions)
            -> ::core::result::Result<#cont::Branch, #cont::ContinuationError>
        {
            let Some(k) = Self::SENSITIVITY.iter().position(|p| *p == parameter) else {
                return Err(#cont::ContinuationError::InvalidOptions(::std::format!(
                    "`{parameter}` is not a parameter of `sensitivity(...)`: {:?}", Self::SENSITIVITY
                )));
            };
            let at = |value: f64| -> Self { #rebuild };
            let value = [#( self.#chosen ),*][k];
            let problem = #cont::equilibria::Equilibria::new(|p: f64, x: &#sv| {
                let m = at(p);
                let f = __routh::VectorField::field(&m, 0.0, x)?;
                let j = m.jacobian(0.0, x)?;
                let fp = m.parameter_jacobian(0.0, x)?.column(k).into_owned();
                Ok((f, j, fp))
            });
            #cont::continuation(&problem, &#cont::equilibria::unknowns(x0, value), leave, options)
        }
    }
}

/// `parameter_jacobian` (∂F/∂p) and, with inputs, `input_jacobian` (∂F/∂u) of the unconstrained
/// field, from ∂g/∂w with w = (u, p) (see [`crate::derive::euler_lagrange`]).
fn sensitivity_items(model: &View<'_>, eq: &Equations, helpers: &mut Helpers, tree: bool) -> TokenStream {
    let (n, d) = (model.dof(), model.layout.state_dim());
    let (nu, np) = (model.layout.u.len(), model.sensitivity.len());
    let nw = nu + np;
    if nw == 0 {
        return TokenStream::new();
    }
    let mut outs: Vec<Expr> = eq.dg_dw.iter().flatten().copied().collect();
    outs.extend(&eq.dl_dw);
    let a_param = quote! { a: &__routh::Vector<#n>, };
    let a_arg = quote! { a, };
    let (stmts, vals) = helpers.body_bound(model, &eq.dg_dw_bindings, &outs, "__routh_sensitivity", &a_param, &a_arg);
    let g_sets =
        (0..n).flat_map(|i| (0..nw).map(move |j| (i, j))).zip(&vals[..n * nw]).map(|((i, j), v)| quote! { gw[(#i, #j)] = #v; });
    let l_sets = vals[n * nw..].iter().enumerate().map(|(j, v)| quote! { lw[(0, #j)] = #v; });
    let allow = allow_generated();
    let fe = crate::emit::codegen::field_error();
    // The mass operator and the accelerations: along the tree (its factor; ∂g/∂w = ∂τ/∂w, less ∂K/∂p
    // at a = q̈ for a parameter of its masses or directions), or M factored and solved once.
    let mass_and_accelerations = if tree {
        let factor = tree_factor_name();
        quote! {
            let mass = self.#factor(t, x)?;
            let a = self.accelerations(t, x)?;
        }
    } else {
        let bind = bind_mass_operator_and_forcing(model, false);
        quote! {
            #bind
            let a = mass.solve(f).map_err(|_| __routh::FieldError::NonFinite { t })?;
        }
    };
    let names: Vec<String> = model.sensitivity.iter().map(|&i| model.parameters[i].to_string()).collect();
    let p_doc = format!(
        " Sensitivity ∂F/∂p of the first-order field to the parameters named in `sensitivity(...)`, columns in \
          the order of `SENSITIVITY` ({}): ∂q̈/∂p = M⁻¹ ∂g/∂p at a = q̈ with g = f − M a, from symbolic \
          derivatives and the one factorisation of M.",
        names.join(", ")
    );
    let equilibria_item = equilibria_item(model);
    let layout = crate::emit::codegen::state_layout(model);
    // The action's row ∂L/∂w of a contact model; the positions' rows are zero.
    let sensitivity = if model.layout.z.is_some() {
        quote! { #layout::sensitivity(t, &mass, gw, ::core::option::Option::Some(&lw)) }
    } else {
        quote! {
            let _ = lw;
            #layout::sensitivity::<#nw>(t, &mass, gw, ::core::option::Option::None)
        }
    };
    let param_item = if np > 0 {
        quote! {
            #equilibria_item

            #[doc = #p_doc]
            ///
            /// # Errors
            /// [`FieldError::SingularMassMatrix`](::routh::runtime::FieldError) if M is singular at this state.
            pub fn parameter_jacobian(&self, t: f64, x: &__routh::State<#d>)
                -> ::core::result::Result<__routh::Matrix<#d, #np>, #fe>
            {
                Ok(self.__routh_sensitivities(t, x)?.fixed_columns::<#np>(#nu).into_owned())
            }
        }
    } else {
        TokenStream::new()
    };
    let inputs: Vec<String> = model.inputs.iter().map(ToString::to_string).collect();
    let u_doc = format!(
        " The input matrix B = ∂F/∂u of the first-order field, columns in the order of the inputs ({}): \
          ∂q̈/∂u = M⁻¹ ∂Q/∂u, from symbolic derivatives.",
        inputs.join(", ")
    );
    let input_item = if nu > 0 {
        quote! {
            #[doc = #u_doc]
            ///
            /// # Errors
            /// [`FieldError::SingularMassMatrix`](::routh::runtime::FieldError) if M is singular at this state.
            pub fn input_jacobian(&self, t: f64, x: &__routh::State<#d>)
                -> ::core::result::Result<__routh::Matrix<#d, #nu>, #fe>
            {
                Ok(self.__routh_sensitivities(t, x)?.fixed_columns::<#nu>(0).into_owned())
            }
        }
    } else {
        TokenStream::new()
    };
    quote! {
        #allow
        fn __routh_sensitivity(&self, t: f64, x: &__routh::State<#d>, a: &__routh::Vector<#n>)
            -> (__routh::Matrix<#n, #nw>, __routh::Matrix<1, #nw>)
        {
            #(#stmts)*
            let mut gw = __routh::Matrix::<#n, #nw>::zeros();
            let mut lw = __routh::Matrix::<1, #nw>::zeros();
            #(#g_sets)*
            #(#l_sets)*
            (gw, lw)
        }

        /// ∂F/∂(u, p), inputs then parameters.
        fn __routh_sensitivities(&self, t: f64, x: &__routh::State<#d>)
            -> ::core::result::Result<__routh::Matrix<#d, #nw>, #fe>
        {
            #mass_and_accelerations
            let (gw, lw) = self.__routh_sensitivity(t, x, &a);
            #sensitivity
        }

        #param_item
        #input_item
    }
}

/// `accelerations` by the model's dynamics: the recursion along its kinematic tree, or q̈ = M⁻¹ f
/// from the dynamics function.
fn accelerations_item(model: &View<'_>, eq: &Equations, dynamics: &Dynamics, helpers: &mut Helpers) -> TokenStream {
    let (n, d) = (model.dof(), model.layout.state_dim());
    match dynamics {
        Dynamics::Recursive(r) => recursive_accelerations(model, r, helpers),
        Dynamics::Dense(why) if eq.mass_product.is_some() => {
            let why = if why.is_empty() { "its M's entries outgrow their product M a".into() } else { why.clone() };
            accelerations_method(n, d, &format!("{why}; M is formed column by column from its products M eⱼ"))
        }
        Dynamics::Dense(why) => accelerations_method(n, d, why),
    }
}

/// `accelerations` by the articulated-body recursion ([`crate::derive::tree`]): q̈ and the pivots
/// of M's factorisation along the tree in one straight-line function, checked by the runtime.
fn recursive_accelerations(model: &View<'_>, r: &Recursive, helpers: &mut Helpers) -> TokenStream {
    let (n, d) = (model.dof(), model.layout.state_dim());
    let mut outputs = r.accelerations.clone();
    outputs.extend(&r.pivots);
    let sv = quote! { __routh::State<#d> };
    let none = TokenStream::new();
    let (stmts, vals) = helpers.body_bound(model, &r.bindings, &outputs, "__routh_recursive", &none, &none);
    let (qdd, pivots) = vals.split_at(n);
    let name = |i: usize| model.coordinates[i].to_string();
    let tree: Vec<String> = (0..n)
        .map(|j| match r.parents[j] {
            Some(p) => format!("{} → {}", name(p), name(j)),
            None => format!("ground → {}", name(j)),
        })
        .collect();
    let links = match &r.tree {
        crate::derive::tree::Links::Directions(t) => format!("{} directions of motion in all", t.dirs.len()),
        crate::derive::tree::Links::Spatial(_) => "each joint's link a rigid body in space (6-D spatial vectors)".into(),
    };
    let doc = format!(
        " Accelerations q̈ by the articulated-body recursion along the model's kinematic tree (O(n): M is \
          never formed), the same q̈ as M⁻¹ f. Tree: {}; {links}. Chosen {}; \
          `dynamics = dense` solves M q̈ = f instead.",
        tree.join(", "),
        if model.dynamics.is_some() { "by `dynamics = recursive`" } else { "for this model's size" },
    );
    let allow = allow_generated();
    quote! {
        #[doc = #doc]
        ///
        /// # Errors
        /// [`FieldError::SingularMassMatrix`](::routh::runtime::FieldError) if a pivot of the recursion
        /// vanishes (M is singular at this state), [`FieldError::NonFinite`](::routh::runtime::FieldError)
        /// if the result is not finite.
        #allow
        #[inline]
        pub fn accelerations(&self, t: f64, x: &#sv)
            -> ::core::result::Result<__routh::Vector<#n>, __routh::FieldError>
        {
            #(#stmts)*
            __routh::mechanics::recursive_accelerations(t, [#(#qdd),*], [#(#pivots),*])
        }
    }
}

/// `jacobian` of a model with the recursive dynamics: the recursion's directional derivative along
/// each of the 2n basis directions of the state ([`crate::derive::tree::tangent`]), O(n) code called
/// 2n times by the runtime — exact, and M is never formed.
fn recursive_jacobian(model: &View<'_>, r: &Recursive, helpers: &mut Helpers) -> TokenStream {
    let (n, d) = (model.dof(), model.layout.state_dim());
    let Some(tangent) = &r.tangent else { return TokenStream::new() };
    let sv = quote! { __routh::State<#d> };
    let functions = TangentFunctions {
        name: "__routh_recursive",
        bindings: &r.bindings,
        tangent,
        extra: (TokenStream::new(), TokenStream::new()),
        what: "the recursion",
        along: "The recursion's derivative δq̈ = (∂q̈/∂x) dx",
    }
    .items(model, helpers);
    quote! {
        #functions

        /// Jacobian ∂F/∂x of the first-order field x' = F(t, x) = (q̇, q̈) over x = (q, q̇): each column the
        /// articulated-body recursion differentiated along a basis direction of the state (forward mode through
        /// the recursion, exact; O(n²) in all, M never formed).
        ///
        /// # Errors
        /// As [`Self::accelerations`]; [`FieldError::NonFinite`](::routh::runtime::FieldError) if a derivative is
        /// not finite.
        pub fn jacobian(&self, t: f64, x: &#sv)
            -> ::core::result::Result<__routh::Matrix<#d, #d>, __routh::FieldError>
        {
            self.accelerations(t, x)?;
            let p = self.__routh_recursive_primal(t, x);
            __routh::mechanics::tangent_jacobian::<#n, #d>(t, |dx| self.__routh_recursive_tangent(t, x, &p, dx))
        }
    }
}

/// `accelerations`: q̈ = M⁻¹ f from the dynamics function.
fn accelerations_method(n: usize, d: usize, why: &str) -> TokenStream {
    let why = if why.is_empty() { String::new() } else { format!(" Dense path: {why}.") };
    let call = call_dynamics(n);
    quote! {
        /// Accelerations q̈ = M⁻¹ f, solved numerically (Cholesky, LU fallback; M is never inverted
        /// symbolically).
        #[doc = #why]
        ///
        /// # Errors
        /// [`FieldError::SingularMassMatrix`](::routh::runtime::FieldError) if M is singular at this state,
        /// [`FieldError::NonFinite`](::routh::runtime::FieldError) if M or f is not finite (the integrator
        /// then retries with a smaller step).
        #[inline]
        pub fn accelerations(&self, t: f64, x: &__routh::State<#d>)
            -> ::core::result::Result<__routh::Vector<#n>, __routh::FieldError>
        {
            #call
            __routh::mechanics::accelerations_in_place(t, &mut m, f)
        }
    }
}
