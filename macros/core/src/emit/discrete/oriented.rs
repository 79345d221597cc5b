//! Emission of the Lie group variational integrator of a model with orientations (see
//! [`crate::derive::discrete::OrientedEquations`]): the discrete Lagrangian, forces and momenta
//! over the start node and the increment with their formulas in rustdoc, `run_discrete`, and
//! `impl routh::runtime::OrientedDiscreteSystem`.

use proc_macro2::TokenStream;
use quote::quote;
use symbolic::Expr;

use crate::derive::discrete::OrientedEquations;
use crate::emit::codegen::{Helpers, Owner, allow_generated, body_with_base, square_matrix, svector};
use crate::model::View;
use crate::notation::{doc_block, formula};

/// Inherent methods (appended to the model's `impl`) and the trait implementations.
pub fn emit(model: &View<'_>, oe: &OrientedEquations, helpers: &mut Helpers) -> (TokenStream, TokenStream) {
    let (n, p) = (model.dof(), model.layout.position_dim());
    let (sv, sp) = (svector(n), svector(p));
    let none = TokenStream::new();
    let base = (quote! { t0: f64, h: f64, q0: &#sp, xi: &#sv, }, quote! { t0, h, q0, xi, });
    let ((lm_stmts, lm_vals), blocks) = super::left_and_blocks(model, &oe.maps, helpers, &base);
    let blocks_fn = super::blocks_fn(n, &quote! { q0: &#sp, xi: &#sv }, &blocks);
    let mut body = |outputs: &[Expr], name: &str| helpers.add(body_with_base(model, outputs, name, &base, &none, &none));
    let [(l_stmts, l_vals), (f_stmts, f_vals), (rm_stmts, rm_vals)] = super::map_bodies(&mut body, &oe.maps);
    let square = |vals: &[TokenStream]| square_matrix(n, vals);
    let (fm, fp) = (&f_vals[..n], &f_vals[n..]);
    let (lm, lj) = (&lm_vals[..n], &lm_vals[n..]);
    let jac = square(lj);
    let allow = allow_generated();
    let rule = model.discretization.as_ref().map(|d| d.rule.clone()).unwrap_or_default();
    let (l_doc, f_doc, m_doc) = docs(model, oe, &rule);
    let run = run_item(model);
    let energies = super::energies_item(p, n, false);
    let symmetry_items = super::symmetry_items(
        model,
        &oe.maps.symmetries,
        &mut body,
        &quote! { q0: &#sp, xi: &#sv },
        "at (q_k, ξ) in the bodies' axes: (J⁻, J⁺) = (⟨μ_k, ξ_V(q_k)⟩, ⟨μ_k+1, ξ_V(q_k+1)⟩), ξ_V the generator in the \
         velocities' directions (a rotation's body axis Rᵀa)",
    );
    let methods = quote! {
        /// The quadrature rule of the generated variational integrator.
        pub const DISCRETE_RULE: &'static str = #rule;

        #l_doc
        #allow
        #[must_use]
        pub fn discrete_lagrangian(&self, t0: f64, h: f64, q0: &#sp, xi: &#sv) -> f64 {
            #(#l_stmts)*
            #(#l_vals)*
        }

        #f_doc
        #allow
        #[must_use]
        pub fn discrete_forces(&self, t0: f64, h: f64, q0: &#sp, xi: &#sv) -> (#sv, #sv) {
            #(#f_stmts)*
            (<#sv>::from([#(#fm),*]), <#sv>::from([#(#fp),*]))
        }

        #m_doc
        #allow
        #[must_use]
        pub fn discrete_momenta(&self, t0: f64, h: f64, q0: &#sp, xi: &#sv) -> (#sv, #sv) {
            (self.__routh_discrete_left(t0, h, q0, xi).0, self.__routh_discrete_right(t0, h, q0, xi))
        }

        #allow
        fn __routh_discrete_left(&self, t0: f64, h: f64, q0: &#sp, xi: &#sv) -> (#sv, __routh::Matrix<#n, #n>) {
            #(#lm_stmts)*
            (<#sv>::from([#(#lm),*]), #jac)
        }

        #allow
        fn __routh_discrete_right(&self, t0: f64, h: f64, q0: &#sp, xi: &#sv) -> #sv {
            #(#rm_stmts)*
            <#sv>::from([#(#rm_vals),*])
        }

        #blocks_fn

        #(#symmetry_items)*

        #run

        #energies
    };
    let inputs = input_impls(model, oe, &mut body);
    let impls = impls(model);
    (methods, quote! { #impls #inputs })
}

/// With inputs (on the view at fixed inputs): `impl OrientedInputSystem`, ∂μ∓/∂u for the step's
/// input Jacobian, and `impl DrivenOrientedDiscrete` on the model, its views by input value.
fn input_impls(
    model: &View<'_>,
    oe: &OrientedEquations,
    body: &mut impl FnMut(&[Expr], &str) -> (Vec<TokenStream>, Vec<TokenStream>),
) -> TokenStream {
    let (n, p, k) = (model.dof(), model.layout.position_dim(), model.layout.u.len());
    if oe.maps.left_du.is_empty() {
        return TokenStream::new();
    }
    let (sv, sp) = (svector(n), svector(p));
    let outs = super::input_outputs(&oe.maps);
    let (stmts, vals) = body(&outs, "__routh_discrete_input_blocks");
    let (left, right) = (crate::emit::codegen::matrix(n, k, &vals[..n * k]), crate::emit::codegen::matrix(n, k, &vals[n * k..]));
    let owner = Owner::of(model);
    let (ty, generics) = (&owner.ty, &owner.generics);
    let allow = allow_generated();
    let items = crate::emit::codegen::lazy(quote! {
        #allow
        fn momentum_input_derivatives(&self, t0: f64, h: f64, q0: &#sp, xi: &#sv)
            -> ::core::result::Result<(__routh::Matrix<#n, #k>, __routh::Matrix<#n, #k>), __routh::FieldError>
        {
            #(#stmts)*
            Ok((__routh::mechanics::finite(t0, #left)?, __routh::mechanics::finite(t0, #right)?))
        }
    });
    let (name, view) = (&model.name, crate::emit::codegen::driven_type(&model.name));
    quote! {
        #[automatically_derived]
        impl #generics __routh::discrete::OrientedInputSystem<#p, #n, #k> for #ty {
            #items
        }

        #[automatically_derived]
        impl __routh::discrete::DrivenOrientedDiscrete<#p, #n, #k> for #name {
            type At<'a> = #view<'a>;
            #[inline]
            fn at(&self, u: &__routh::Vector<#k>) -> #view<'_> {
                self.driven(::core::array::from_fn(|i| u[i]))
            }
        }
    }
}

/// The rustdoc of L_d, f∓ and μ∓ with their formulas.
fn docs(model: &View<'_>, oe: &OrientedEquations, rule: &str) -> (TokenStream, TokenStream, TokenStream) {
    let coords: Vec<String> = model.coordinates.iter().map(ToString::to_string).collect();
    let l_doc = doc_block(
        &format!(
            "The discrete Lagrangian L_d(t_k, h, q_k, ξ) of the `{rule}` rule on configurations with orientations: h·L at the \
             rule's node a fraction c of the step in, (x_k + c Δ, Q_k ⊗ (1, c ξ/2)) with the velocities (Δ, ξ)/h — the \
             next node is q_k ⊗ cay(ξ), each orientation turned by the Cayley map (see the runtime's `discrete::oriented`). \
             The start node q_k in the order of the coordinates ({}), the increment ξ in the order of the velocities.",
            coords.join(", ")
        ),
        &[("L_d".into(), formula(model, oe.maps.lagrangian))],
    );
    let (f_lines, m_lines) = super::map_doc_lines(model, &oe.maps, "μ");
    let f_doc = doc_block("The discrete forces (f⁻, f⁺) of the same rule, along the velocities' directions.", &f_lines);
    let m_doc = doc_block(
        "The forced discrete Legendre maps in each body's axes at (q_k, ξ): μ_k = −∂L_d/∂(δx_k, η_k) − f⁻ and μ_k+1 = \
         ∂L_d/∂(δx_k+1, η_k+1) + f⁺ along the nodes' charts (δx, and a quaternion turned to Q ⊗ exp(η/2)). A step solves \
         the first for ξ (Newton, exact Jacobian) and evaluates the second.",
        &m_lines,
    );
    (l_doc, f_doc, m_doc)
}

/// `run_discrete`.
fn run_item(model: &View<'_>) -> TokenStream {
    let state = crate::emit::codegen::state_type(model.layout.state_dim());
    let doc = " A discrete run of the Lie group variational integrator: from the positions and velocities of `start` \
                (the initial momenta μ₀ = ∂L/∂v, an orientation's in its body's axes), Newton on each step's increment ξ \
                with the exact Jacobian, each orientation turned by the Cayley map: \
                `model.run_discrete(x0).step(h).steps(n).go()?` ([`DiscreteRun`](::routh::runtime::DiscreteRun): the start \
                time, Newton's options). The nodes' positions hold the quaternions (unit), their momenta the μ_k.";
    let errors = " [`SimError::NewtonFailed`](::routh::runtime::SimError) or [`SimError::SingularStepJacobian`](::routh::runtime::SimError) \
                   when a step cannot be solved (h too large), [`SimError::InvalidParameter`](::routh::runtime::SimError) for \
                   bad parameters. The nodes before a failed step come with the error \
                   ([`RunError::partial`](::routh::runtime::RunError)).";
    quote! {
        #[doc = #doc]
        ///
        /// # Errors (of `go`)
        #[doc = #errors]
        #[inline]
        pub fn run_discrete(&self, start: #state) -> __routh::DiscreteRun<'_, Self> {
            __routh::DiscreteRun::new(self, start)
        }
    }
}

/// `impl OrientedDiscreteSystem`, `SimulateDiscrete` and `RunsDiscrete`.
fn impls(model: &View<'_>) -> TokenStream {
    let (n, p) = (model.dof(), model.layout.position_dim());
    let (sv, sp) = (svector(n), svector(p));
    let owner = Owner::of(model);
    let (ty, generics) = (&owner.ty, &owner.generics);
    let items = super::map_items(n, &sp, &quote::format_ident!("xi"), &sv);
    let runs = super::plain_runs(model, &quote! { __routh::DiscreteTrajectory<#n, #p> }, &quote! { plan.oriented(self, p0) });
    quote! {
        #[automatically_derived]
        impl #generics __routh::OrientedDiscreteSystem<#p, #n> for #ty {
            #items
        }

        #runs
    }
}
