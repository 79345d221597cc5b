//! The dynamics contract's second half: a model's accelerations, field Jacobian and sensitivities,
//! built on its form's M and f and mass operator ([`crate::emit::form`]) — M factored once per
//! state and solved with through the runtime's `MassOperator` trait, densely or along the tree,
//! never inverted — or, with constraints, the saddle point of [`crate::emit::constraint`]. The
//! runtime's projections and completions reach the same operator through `impl MechanicalSystem`
//! ([`crate::emit::form::mechanical_system_impl`]).

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use symbolic::Expr;

use crate::derive::constraint::ConstraintEquations;
use crate::derive::dynamics::spatial::{LinkJacobian, Links};
use crate::derive::dynamics::{Form, InverseJacobian, Recursive, RecursiveJacobian};
use crate::derive::euler_lagrange::Equations;
use crate::emit::codegen::{Helpers, TangentFunctions, allow_generated, square_matrix};
use crate::emit::form::{MassOperator, call_dynamics, tree_factor_name};
use crate::model::View;

/// A model's accelerations, field Jacobian, and the methods and impls that come with them.
pub struct Dynamics {
    /// `accelerations`.
    pub accelerations: TokenStream,
    /// `jacobian` (empty where the model has none).
    pub jacobian: TokenStream,
    /// The constraint or sensitivity methods.
    pub methods: TokenStream,
    /// A constrained model's trait impl.
    pub impls: TokenStream,
    /// Whether `inverse_dynamics_jacobian` is generated: with `jacobian` and without an action
    /// variable — dense, along spatial links of screw joints and orientations, along a tree's
    /// tangent (directions, joints turning with their coordinates) with inputs, with constraints,
    /// with orientations.
    pub inverse_dynamics_jacobian: bool,
    /// Whether `linearize_tangent` is generated: with orientations and `jacobian`, without
    /// constraints or modes.
    pub tangent: bool,
}

/// How the model's accelerations and field Jacobian are obtained in its `form` with its mass
/// `operator`: the unconstrained system M q̈ = f solved with the operator, or along the tree, or the
/// constrained one (the saddle-point system of [`crate::emit::constraint`]).
pub(crate) fn accelerations_and_jacobian(
    model: &View<'_>,
    (eq, constraints): (&Equations, Option<&ConstraintEquations>),
    (form, operator): (&Form, &MassOperator),
    helpers: &mut Helpers,
) -> Dynamics {
    // Accelerations and the field Jacobian: of the unconstrained system (M q̈ = f), or of the
    // constrained one (the saddle-point system of `emit::constraint`).
    match constraints {
        Some(ce) => {
            // The saddle point's Jacobian along the tree (or the links), whichever factor solves it.
            let inverse = form.recursion().and_then(|r| {
                let links = match &r.tree {
                    crate::derive::dynamics::Links::Spatial(links) => Some(links.as_ref()),
                    crate::derive::dynamics::Links::Directions(_) => None,
                };
                r.inverse.as_deref().map(|k| (k, links))
            });
            let items = crate::emit::constraint::emit(model, (ce, eq), (operator, inverse), helpers);
            // τ = M q̈ − f is the saddle-point residual's first rows at λ = 0, where ∂(Aᵀλ)/∂x
            // vanishes too: its Jacobian's (with an action variable at fixed z, and ∂τ/∂z).
            let id_jacobian = model.field_jacobian.then(|| constrained_inverse_dynamics_jacobian(model, ce.a.len()));
            let methods = items.methods;
            Dynamics {
                accelerations: items.accelerations,
                jacobian: items.jacobian,
                inverse_dynamics_jacobian: id_jacobian.is_some(),
                methods: quote! { #methods #id_jacobian },
                impls: items.trait_impl,
                tangent: false,
            }
        }
        None if !model.field_jacobian => Dynamics {
            accelerations: accelerations_item(model, form, helpers),
            jacobian: TokenStream::new(),
            methods: sensitivity_items(model, eq, helpers, operator, false),
            impls: TokenStream::new(),
            inverse_dynamics_jacobian: false,
            tangent: false,
        },
        None if form.recursion().is_some_and(|r| r.jacobian.is_some()) => {
            let Some(r) = form.recursion() else { unreachable!("matched above") };
            let along_links = matches!(r.jacobian, Some(RecursiveJacobian::Links(_)));
            let along_tree = r.inverse_jacobian.as_deref().map(|ij| tree_inverse_dynamics_jacobian(model, ij, helpers));
            let tangent = tangent_linearization(model, along_links);
            Dynamics {
                tangent: !tangent.is_empty(),
                jacobian: {
                    let jacobian = recursive_jacobian(model, r, eq, helpers);
                    quote! { #jacobian #tangent #along_tree }
                },
                methods: sensitivity_items(model, eq, helpers, operator, along_links),
                accelerations: accelerations_item(model, form, helpers),
                impls: TokenStream::new(),
                inverse_dynamics_jacobian: along_links || r.inverse_jacobian.is_some(),
            }
        }
        None if eq.rate_jacobians.is_some() => {
            let tangent = tangent_linearization(model, false);
            Dynamics {
                tangent: !tangent.is_empty(),
                jacobian: {
                    let jacobian = quasi_jacobian_items(model, eq, helpers);
                    quote! { #jacobian #tangent }
                },
                methods: sensitivity_items(model, eq, helpers, operator, false),
                accelerations: accelerations_item(model, form, helpers),
                impls: TokenStream::new(),
                // With orientations (in their tangent chart), with an action variable at fixed z.
                inverse_dynamics_jacobian: true,
            }
        }
        None => {
            let jacobian = residual_jacobian(model, eq, helpers);
            Dynamics {
                accelerations: accelerations_item(model, form, helpers),
                jacobian,
                methods: sensitivity_items(model, eq, helpers, operator, false),
                impls: TokenStream::new(),
                // τ = −g (a contact model's at fixed z).
                inverse_dynamics_jacobian: true,
                tangent: false,
            }
        }
    }
}

/// `jacobian` of an unconstrained model in coordinates, dense: ∂q̈/∂x = M⁻¹ ∂g/∂x at a = q̈ with the
/// residual g = f − M a, its derivatives from their formulas or (by size, or with M by columns)
/// from g's tangent along each direction of the state.
fn residual_jacobian(model: &View<'_>, eq: &Equations, helpers: &mut Helpers) -> TokenStream {
    let (n, d) = (model.dof(), model.layout.state_dim());
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
            (quote! { dr.fixed_columns::<#n>(0).into_owned() }, quote! { dr.fixed_columns::<#n>(#n).into_owned() }, Vec::new())
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
    let bind = MassOperator::Dense.bind_with_forcing(model);
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
    // τ = −g: its derivatives are the residual's, negated (a contact model's at fixed action, with
    // ∂τ/∂z on its own).
    let pattern = if eq.contact.is_some() {
        quote! { (gq, gv, _) }
    } else {
        quote! { (gq, gv) }
    };
    let pair = inverse_dynamics_jacobian_item(
        n,
        d,
        &format!(
            "from the symbolic derivatives of the residual g = f − M a at a = q̈ (τ = −g), as the field's Jacobian \
             takes them{}",
            at_fixed_action(model)
        ),
        quote! {
            let #pattern = self.#jac_fn(t, x, qdd);
            (-gq, -gv)
        },
    );
    let action = eq.contact.as_ref().map(|_| action_jacobian_item(n, d, quote! { -self.#jac_fn(t, x, qdd).2 }));
    quote! { #jac #pair #action }
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
    // ∂g/∂z of a contact model; `()` without an action (its binding `_`).
    let (gz_ty, gz, gz_pat) = match eq.contact {
        Some(_) => (quote! { __routh::Vector<#n> }, quote! { __routh::Vector::<#n>::from([#(#v_gz),*]) }, quote! { gz }),
        None => (quote! { () }, quote! { () }, quote! { _ }),
    };
    let finish = if eq.contact.is_some() {
        // The action's column and the row of ż = L.
        quote! {
            #layout::jacobian(t, &mass, ::core::option::Option::Some((rq, rv)), (gq, gv),
                ::core::option::Option::Some((gz, &self.__routh_lagrangian_gradient(t, x))))
        }
    } else {
        quote! { #layout::jacobian(t, &mass, ::core::option::Option::Some((rq, rv)), (gq, gv), ::core::option::Option::None) }
    };
    let bind = MassOperator::Dense.bind_with_forcing(model);
    let allow = allow_generated();
    // τ = −g: ∂τ/∂q along each orientation's body rotation vector (q ⊗ exp(δθ/2), whose rate is
    // K(q) = ∂q̇/∂v: the chart `linearize_tangent` uses), so that ∂τ/∂q is n × n; a contact
    // model's at fixed action, with ∂τ/∂z on its own.
    let id_jacobian = {
        let pair = inverse_dynamics_jacobian_item(
            n,
            d,
            &format!(
                "from the symbolic derivatives of the residual g = f − M a at a = `qdd` (τ = −g); with \
                 orientations, ∂τ/∂q is taken along each orientation's body rotation vector δθ (the quaternion \
                 moved to q ⊗ exp(δθ/2), at rate K(q) = ∂q̇/∂v: (∂τ/∂q) K(q), n × n), the chart of \
                 `linearize_tangent`{}",
                at_fixed_action(model)
            ),
            quote! {
                let (_, rv, gq, gv, _) = self.__routh_quasi_parts(t, x, qdd);
                (-(gq * rv), -gv)
            },
        );
        let action = eq.contact.as_ref().map(|_| action_jacobian_item(n, d, quote! { -self.__routh_quasi_parts(t, x, qdd).4 }));
        quote! { #pair #action }
    };
    quote! {
        /// The parts of the field's Jacobian with orientations at (t, x) and the accelerations `a`:
        /// ∂q̇/∂q and ∂q̇/∂v = K(q) of the rates q̇ = K(q) v, and ∂g/∂q, ∂g/∂v (and ∂g/∂z) of the
        /// residual g = f − M a.
        #allow
        #[allow(clippy::type_complexity)]
        #[inline]
        fn __routh_quasi_parts(&self, t: f64, x: &__routh::State<#d>, a: &__routh::Vector<#n>)
            -> (__routh::Matrix<#nq, #nq>, __routh::Matrix<#nq, #n>, __routh::Matrix<#n, #nq>, __routh::Matrix<#n, #n>, #gz_ty)
        {
            #(#stmts)*
            (#rq_m, #rv_m, #gq_m, #gv_m, #gz)
        }

        #id_jacobian

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
            let (rq, rv, gq, gv, #gz_pat) = self.__routh_quasi_parts(t, x, &a);
            #finish
        }
    }
}

/// `linearize_tangent` of an unconstrained model with orientations (not a mode's view): its
/// linearisation with each orientation charted by its body rotation vector about the reference
/// motion — 12 × 12 for a free body instead of the quaternion state's 13 × 13 with its redundant
/// direction (the runtime's `linearize::constrained_with_orientations`, with no constraint rows);
/// along links, from their derivatives over the velocities in the chart itself
/// (`LinkDynamics::velocity_blocks`, `linearize::tangent`), without the field's Jacobian in the
/// quaternion state.
fn tangent_linearization(model: &View<'_>, along_links: bool) -> TokenStream {
    let orientations = &model.layout.orientations;
    if orientations.is_empty() || model.mode.is_some() {
        return TokenStream::new();
    }
    let (n, d, p) = (model.dof(), model.layout.state_dim(), model.layout.position_dim());
    let names: Vec<String> = orientations.iter().map(|o| o.name.to_string()).collect();
    let ordinary = p - 4 * orientations.len();
    let mut chart: Vec<String> = model.coordinates[..ordinary].iter().map(ToString::to_string).collect();
    chart.extend(names.iter().flat_map(|r| (1..=3).map(move |a| format!("theta{a}({r})"))));
    let inputs = crate::emit::codegen::input_matrix(model);
    let example = &names[0];
    let doc = format!(
        " The linearisation at `x` in the tangent space of the orientations: each orientation charted by its body \
          rotation vector θ about the reference motion through `x` (`theta1({example})`, `theta2({example})`, \
          `theta3({example})`, their velocities θ̇ = δω − ω₀ × θ), so a free body's is 12 × 12 (6 × 6 turning \
          about a fixed point) where [`Self::jacobian`] in the quaternion state has a redundant direction. The \
          state is every coordinate and chart coordinate and their velocities; `embedding` maps it to the full \
          state; `mechanical` is M, C, K of M δq̈ + C δq̇ + K δq = B δu. See \
          [`constrained_with_orientations`](::routh::runtime::linearize::constrained_with_orientations) (here \
          with no constraint rows)."
    );
    let (two_n, nu) = (2 * n, model.layout.u.len());
    let chart_doc = |how: &str| {
        format!(
            " A and B of [`Self::linearize_tangent`] as fixed-size matrices, {two_n} × {two_n} and {two_n} × {nu} (the \
              state {}, then their velocities), without its names, embedding and mechanical form: what a \
              controller's design reads at every step ([`Linearization::lqr`](::routh::runtime::Linearization::lqr) \
              gives the regulator in the chart). {how}",
            chart.join(", ")
        )
    };
    if along_links && model.layout.z.is_none() {
        let doc = format!(
            "{doc} Along the links, from their derivatives over the velocities in the chart itself (each \
             orientation's columns along θ at fixed ω), the mechanical form from the inverse dynamics' \
             derivatives: [`tangent`](::routh::runtime::linearize::tangent)."
        );
        // B over the inputs alone: the parameters' columns of ∂g/∂w left out before the solves.
        let sensitivity = if nu == 0 {
            quote! { |_| __routh::Matrix::<#n, 0>::zeros() }
        } else {
            quote! { |acc| self.__routh_sensitivity(t, x, acc).0.fixed_columns::<#nu>(0).into_owned() }
        };
        let chart_doc = chart_doc(
            "Along the links in one go \
             ([`LinkDynamics::tangent_linearization`](::routh::runtime::mechanics::LinkDynamics::tangent_linearization)).",
        );
        return quote! {
            #[doc = #doc]
            ///
            /// # Errors
            /// [`LinearizeError`](::routh::runtime::linearize::LinearizeError): the field's errors at `x`.
            pub fn linearize_tangent(&self, t: f64, x: &__routh::State<#d>)
                -> ::core::result::Result<__routh::linearize::ConstrainedLinearization, __routh::linearize::LinearizeError>
            {
                let (dynamics, forces) = self.__routh_link_model(t, x);
                let qd = x.fixed_rows::<#n>(#p).into_owned();
                let blocks = dynamics.velocity_blocks::<#nu>(t, &qd, &forces, #sensitivity)?;
                __routh::linearize::tangent(&Self::COORDINATES, &[#(#names),*], x, &blocks)
            }

            #[doc = #chart_doc]
            ///
            /// # Errors
            /// [`FieldError`](::routh::runtime::FieldError): the field's errors at `x`.
            pub fn linearize_chart(&self, t: f64, x: &__routh::State<#d>)
                -> ::core::result::Result<__routh::Linearization<#two_n, #nu>, __routh::FieldError>
            {
                let (dynamics, forces) = self.__routh_link_model(t, x);
                let qd = x.fixed_rows::<#n>(#p).into_owned();
                dynamics.tangent_linearization::<#two_n, #nu>(t, &qd, &forces, #sensitivity)
            }
        };
    }
    // A and B alone in the chart from `jacobian` and B in the state (without an action: the
    // chart's embedding is the layout's).
    let chart_item = if model.layout.z.is_none() {
        let chart_doc = chart_doc(
            "From `jacobian` and `input_jacobian` in the state, moved into the chart \
             ([`linearize::in_chart`](::routh::runtime::linearize::in_chart)).",
        );
        let b = if nu == 0 {
            quote! { __routh::Matrix::<#d, 0>::zeros() }
        } else {
            quote! { self.input_jacobian(t, x)? }
        };
        quote! {
            #[doc = #chart_doc]
            ///
            /// # Errors
            /// [`FieldError`](::routh::runtime::FieldError): the field's errors at `x`.
            pub fn linearize_chart(&self, t: f64, x: &__routh::State<#d>)
                -> ::core::result::Result<__routh::Linearization<#two_n, #nu>, __routh::FieldError>
            {
                let lin = __routh::Linearization { a: self.jacobian(t, x)?, b: #b };
                let field = __routh::VectorField::field(self, t, x)?;
                Ok(__routh::linearize::in_chart::<#p, #n, #d, #two_n, #nu>(x, &field, &lin))
            }
        }
    } else {
        TokenStream::new()
    };
    quote! {
        #chart_item

        #[doc = #doc]
        ///
        /// # Errors
        /// [`LinearizeError`](::routh::runtime::linearize::LinearizeError): the field's errors at `x`.
        pub fn linearize_tangent(&self, t: f64, x: &__routh::State<#d>)
            -> ::core::result::Result<__routh::linearize::ConstrainedLinearization, __routh::linearize::LinearizeError>
        {
            let jacobian = self.jacobian(t, x).map_err(__routh::linearize::LinearizeError::from)?;
            let m = self.mass_matrix(t, x);
            let mass = __routh::DMatrix::from_column_slice(#n, #n, m.as_slice());
            let inputs = #inputs;
            let field = __routh::VectorField::field(self, t, x).map_err(__routh::linearize::LinearizeError::from)?;
            let at = __routh::linearize::Oriented::new(&Self::COORDINATES, &[#(#names),*], x, &field);
            let chart = [#(#chart),*];
            let selection = __routh::linearize::Selection::new().coordinates(chart).velocities(chart);
            __routh::linearize::constrained_with_orientations(
                &at,
                (&jacobian, &inputs),
                (&__routh::DMatrix::zeros(0, #d), &mass),
                &selection,
            )
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
fn sensitivity_items(
    model: &View<'_>,
    eq: &Equations,
    helpers: &mut Helpers,
    operator: &MassOperator,
    along_links: bool,
) -> TokenStream {
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
    // Into zeroed matrices: the zero entries need no set (a driven robot's ∂g/∂u is mostly zeros).
    let g_sets = crate::emit::codegen::zeroed_sets(&quote!(gw), (n, nw), None, &vals[..n * nw]);
    let l_sets = crate::emit::codegen::zeroed_sets(&quote!(lw), (1, nw), None, &vals[n * nw..]);
    let (g_mut, l_mut) = ((!g_sets.is_empty()).then(|| quote!(mut)), (!l_sets.is_empty()).then(|| quote!(mut)));
    let allow = allow_generated();
    let fe = crate::emit::codegen::field_error();
    // The mass operator and the accelerations: along the tree (its factor; ∂g/∂w = ∂τ/∂w, less ∂K/∂p
    // at a = q̈ for a parameter of its masses or directions), or M factored and solved once.
    let mass_and_accelerations = if operator.along_tree() {
        let factor = tree_factor_name();
        quote! {
            let mass = self.#factor(t, x)?;
            let a = self.accelerations(t, x)?;
        }
    } else {
        let bind = MassOperator::Dense.bind_with_forcing(model);
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
    // Along links, A and B share the derivatives' factorisation of M and their q̈.
    let shared = along_links.then(|| {
        let p = model.layout.position_dim();
        // B is the sensitivities' first columns: the whole of them without parameters.
        let call = if model.layout.orientations.is_empty() {
            quote! {{
                let qd = x.fixed_rows::<#n>(#p).into_owned();
                dynamics.linearization::<#d, #nw>(t, &qd, &forces, |acc| self.__routh_sensitivity(t, x, acc).0)
            }}
        } else {
            quote! {{
                let (rq, rv) = self.__routh_rate_jacobians(t, x);
                dynamics.linearization_with_rates::<#p, #d, #nw>(t, x, &forces, |acc| self.__routh_sensitivity(t, x, acc).0, (&rq, &rv))
            }}
        };
        let call = if nw == nu {
            call
        } else {
            quote! {
                let all = #call?;
                ::core::result::Result::Ok(__routh::Linearization { a: all.a, b: all.b.fixed_columns::<#nu>(0).into_owned() })
            }
        };
        quote! {
            let (dynamics, forces) = self.__routh_link_model(t, x);
            #call
        }
    });
    let input_item = if nu > 0 {
        let linearization = crate::emit::codegen::linearization_item(model, shared);
        quote! {
            #linearization

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
            let #g_mut gw = __routh::Matrix::<#n, #nw>::zeros();
            let #l_mut lw = __routh::Matrix::<1, #nw>::zeros();
            #g_sets
            #l_sets
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
fn accelerations_item(model: &View<'_>, form: &Form, helpers: &mut Helpers) -> TokenStream {
    let (n, d) = (model.dof(), model.layout.state_dim());
    match form {
        Form::Recursive { recursion, .. } => recursive_accelerations(model, recursion, helpers),
        Form::Columns(why) => {
            let why = if why.is_empty() { "its M's entries outgrow their product M a".into() } else { why.clone() };
            accelerations_method(n, d, &format!("{why}; M is formed column by column from its products M eⱼ"))
        }
        Form::Entries(why) => accelerations_method(n, d, why),
    }
}

/// `accelerations` by the articulated-body recursion ([`crate::derive::dynamics`]): q̈ and the pivots
/// of M's factorisation along the tree in one straight-line function, checked by the runtime.
fn recursive_accelerations(model: &View<'_>, r: &Recursive, helpers: &mut Helpers) -> TokenStream {
    let (n, d) = (model.dof(), model.layout.state_dim());
    let sv = quote! { __routh::State<#d> };
    // A joint by its velocity: a coordinate, or an orientation's rate about a body axis.
    let name = |i: usize| match model.layout.orientation_of_velocity(i) {
        Some((o, k)) => format!("{}.ω{}", o.name, k + 1),
        None => model.coordinates[i].to_string(),
    };
    let tree: Vec<String> = (0..n)
        .map(|j| match r.parents[j] {
            Some(p) => format!("{} → {}", name(p), name(j)),
            None => format!("ground → {}", name(j)),
        })
        .collect();
    let links = match &r.tree {
        crate::derive::dynamics::Links::Directions(t) => format!("{} directions of motion in all", t.dirs.len()),
        crate::derive::dynamics::Links::Spatial(_) => "each joint's link a rigid body in space (6-D spatial vectors)".into(),
    };
    let doc = format!(
        " Accelerations q̈ by the articulated-body recursion along the model's kinematic tree (O(n): M is \
          never formed), the same q̈ as M⁻¹ f. Tree: {}; {links}. Chosen {}; \
          `dynamics = dense` solves M q̈ = f instead.",
        tree.join(", "),
        if model.dynamics.is_some() { "by `dynamics = recursive`" } else { "for this model's size" },
    );
    let allow = allow_generated();
    let (body, doc) = match &r.looped {
        Some(looped) => {
            let statements = crate::emit::looped::statements(model, looped);
            let kinds: usize = looped.segments.iter().map(|s| s.period).sum();
            let doc = format!(
                "{doc} Run as loops over the chain's repeated joints: {} segments of blocks, {kinds} joints' code in all.",
                looped.segments.len()
            );
            (
                quote! {
                    #statements
                    __routh::mechanics::recursive_accelerations(t, __qdd, __d)
                },
                doc,
            )
        }
        None => {
            let mut outputs = r.accelerations.clone();
            outputs.extend(&r.pivots);
            let none = TokenStream::new();
            let (stmts, vals) = helpers.body_bound(model, &r.bindings, &outputs, "__routh_recursive", &none, &none);
            let (qdd, pivots) = vals.split_at(n);
            let body = quote! {
                #(#stmts)*
                __routh::mechanics::recursive_accelerations(t, [#(#qdd),*], [#(#pivots),*])
            };
            (body, doc)
        }
    };
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
            #body
        }
    }
}

/// `jacobian` of a model with the recursive dynamics: the recursion's directional derivative along
/// each of the 2n basis directions of the state ([`crate::derive::dynamics::tangent`]), O(n) code called
/// 2n times by the runtime — exact, and M is never formed.
fn recursive_jacobian(model: &View<'_>, r: &Recursive, eq: &Equations, helpers: &mut Helpers) -> TokenStream {
    let d = model.layout.state_dim();
    let tangent = match (&r.jacobian, &r.tree) {
        (Some(RecursiveJacobian::Tangent(tangent)), _) => tangent,
        (Some(RecursiveJacobian::Links(quantities)), crate::derive::dynamics::Links::Spatial(links)) => {
            return links_jacobian(model, links, quantities, eq, helpers);
        }
        _ => return TokenStream::new(),
    };
    let layout = crate::emit::codegen::state_layout(model);
    // With orientations, the rates' Jacobians ∂q̇/∂q, ∂q̇/∂v of q̇ = K(q) v head the field's.
    let rate_item = rate_jacobians_item(model, eq, helpers);
    let rates = if eq.rate_jacobians.is_some() {
        quote!(::core::option::Option::Some(self.__routh_rate_jacobians(t, x)))
    } else {
        quote!(::core::option::Option::None)
    };
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

        #rate_item

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
            #layout::tangent_jacobian(t, #rates, |dx| self.__routh_recursive_tangent(t, x, &p, dx))
        }
    }
}

/// `jacobian` of a model on spatial links of screw joints and orientations: the runtime's analytic
/// derivatives of the inverse dynamics (`LinkDynamics`) from the joints' quantities at the state,
/// the links' inertias, the armatures, gravity, and τ with its nonzero derivatives
/// (`derive::dynamics::spatial::LinkJacobian`); with orientations along their body rotation
/// vectors, over the quaternions' components by the runtime's `StateLayout::jacobian_from_chart`.
fn links_jacobian(model: &View<'_>, links: &Links, lj: &LinkJacobian, eq: &Equations, helpers: &mut Helpers) -> TokenStream {
    let (n, d, p) = (model.dof(), model.layout.state_dim(), model.layout.position_dim());
    // With orientations, A's rows of q̇ = K(q) v from the rates' Jacobians, and ∂q̈/∂q over the
    // quaternions' components from the derivatives along their body rotation vectors.
    let rate_item = rate_jacobians_item(model, eq, helpers);
    let layout = crate::emit::codegen::state_layout(model);
    let orientation_doc = (!model.layout.orientations.is_empty()).then(|| {
        quote! {
            ///
            /// With orientations x = (q, v), v holding each one's body angular velocity: the rows of q̇ = K(q) v
            /// from their symbolic Jacobians, and ∂q̈/∂q over a quaternion's components from the derivatives
            /// along its body rotation vector θ (the quaternion moved to q ⊗ exp(θ/2) at fixed v) times
            /// ∂θ/∂q = 2 vec(q* ⊗ δq)/|q|² (q̈ does not change with the quaternion's norm).
        }
    });
    let field_jacobian = if model.layout.orientations.is_empty() {
        quote! { ::core::result::Result::Ok(self.__routh_link_dynamics(t, x)?.field_jacobian::<#d>()) }
    } else {
        quote! {
            let derivatives = self.__routh_link_dynamics(t, x)?;
            let (rq, rv) = self.__routh_rate_jacobians(t, x);
            ::core::result::Result::Ok(#layout::jacobian_from_chart(x, (&rq, &rv), &derivatives.d_positions, &derivatives.d_velocities))
        }
    };
    let (stmts, dynamics, rest) = link_dynamics(model, links, lj, "__routh_link_dynamics", helpers);
    let (tau, rest) = rest.split_at(n);
    let (dq_vals, dv_vals) = rest.split_at(lj.d_positions.len());
    let sets = |name: TokenStream, at: &[(usize, usize)], vals: &[TokenStream]| {
        let sets = at.iter().zip(vals).map(|((i, j), v)| quote! { #name[(#i, #j)] = #v; });
        quote! { #(#sets)* }
    };
    let dq_sets = sets(quote!(forces.d_positions), &lj.d_positions, dq_vals);
    let dv_sets = sets(quote!(forces.d_velocities), &lj.d_velocities, dv_vals);
    let mech = quote! { __routh::mechanics };
    let allow = allow_generated();
    let sv = quote! { __routh::State<#d> };
    let id_jacobian = inverse_dynamics_jacobian_item(
        n,
        d,
        &format!(
            "along the links by the runtime's analytic derivatives (`LinkDynamics::inverse_dynamics_derivatives`, O(n²)): \
             ∂K/∂x of the kinetic part K = M q̈ + (velocity products and gravity) in the ground's axes, less the \
             derivatives of the other forces{}",
            if model.layout.orientations.is_empty() {
                ""
            } else {
                "; ∂τ/∂q along each orientation's body rotation vector δθ (the quaternion moved to q ⊗ exp(δθ/2), \
                 at fixed body rates: n × n), the chart of `linearize_tangent`"
            }
        ),
        quote! {
            let (dynamics, forces) = self.__routh_link_model(t, x);
            let qd = x.fixed_rows::<#n>(#p).into_owned();
            dynamics.inverse_dynamics_derivatives(&qd, qdd, &forces)
        },
    );
    quote! {
        /// The links' dynamics at (t, x) for the runtime's analytic derivatives of the inverse dynamics
        /// (`LinkDynamics`, O(n²)): the joints' quantities, the links' inertias, the armatures,
        /// gravity, and τ with its derivatives.
        #allow
        fn __routh_link_model(&self, t: f64, x: &#sv) -> (#mech::LinkDynamics<#n>, #mech::JointForces<#n>) {
            #(#stmts)*
            let mut forces = #mech::JointForces {
                value: __routh::Vector::<#n>::from([#(#tau),*]),
                d_positions: __routh::Matrix::<#n, #n>::zeros(),
                d_velocities: __routh::Matrix::<#n, #n>::zeros(),
            };
            #dq_sets
            #dv_sets
            (#dynamics, forces)
        }

        /// q̈, M and ∂q̈/∂(q, q̇) at (t, x) by the runtime's analytic derivatives of the inverse dynamics
        /// along the links.
        #[inline]
        fn __routh_link_dynamics(&self, t: f64, x: &#sv)
            -> ::core::result::Result<#mech::LinkDerivatives<#n>, __routh::FieldError>
        {
            let (dynamics, forces) = self.__routh_link_model(t, x);
            let qd = x.fixed_rows::<#n>(#p).into_owned();
            dynamics.derivatives(t, &qd, &forces)
        }

        #id_jacobian

        #rate_item

        /// Jacobian ∂F/∂x of the first-order field x' = F(t, x) = (q̇, q̈) over x = (q, q̇): analytic derivatives of
        /// the inverse dynamics along the links, ∂q̈/∂x = M⁻¹ (∂τ/∂x − ∂K/∂x) at a = q̈ with K = M a + (velocity
        /// products and gravity) differentiated in the ground's axes (O(n²); the runtime's `LinkDynamics`).
        #orientation_doc
        ///
        /// # Errors
        /// [`FieldError::SingularMassMatrix`](::routh::runtime::FieldError) if M is singular at `x`,
        /// [`FieldError::NonFinite`](::routh::runtime::FieldError) if a derivative is not finite.
        pub fn jacobian(&self, t: f64, x: &#sv)
            -> ::core::result::Result<__routh::Matrix<#d, #d>, __routh::FieldError>
        {
            #field_jacobian
        }
    }
}

/// ∂τ/∂q of `inverse_dynamics_jacobian` from `dq` (n × P over the positions): as it is, or with
/// orientations along each position direction's rates, `dq` K(q) with K(q) = ∂q̇/∂v (a
/// quaternion's body rotation vector: n × n).
fn along_rates(model: &View<'_>, dq: TokenStream) -> TokenStream {
    if model.layout.orientations.is_empty() {
        dq
    } else {
        quote! { #dq * self.__routh_rate_jacobians(t, x).1 }
    }
}

/// `inverse_dynamics_jacobian` of a constrained model: the first n rows of the saddle-point
/// residual's Jacobian (`__routh_constraint_jacobian`, R = (M a − Aᵀλ − f, A a + c)) at a = `qdd`
/// and λ = 0, where they are ∂(M a − f)/∂x — with orientations, its position columns along the
/// rates K(q) = ∂q̇/∂v (each quaternion's body rotation vector).
fn constrained_inverse_dynamics_jacobian(model: &View<'_>, m: usize) -> TokenStream {
    let (n, d, p) = (model.dof(), model.layout.state_dim(), model.layout.position_dim());
    let positions = along_rates(model, quote! { dr.fixed_view::<#n, #p>(0, 0).into_owned() });
    // A contact model's ∂τ/∂z: the residual's first rows along the action (the state's last entry).
    let action = model.layout.z.is_some().then(|| {
        let z = d - 1;
        action_jacobian_item(
            n,
            d,
            quote! {
                self.__routh_constraint_jacobian(t, x, qdd, &__routh::Vector::<#m>::zeros()).0.fixed_view::<#n, 1>(0, #z).into_owned()
            },
        )
    });
    let pair = inverse_dynamics_jacobian_item(
        n,
        d,
        &format!(
            "from the derivatives of the constraints' saddle-point residual R = (M a − Aᵀλ − f, A a + c) at a = `qdd` \
             and λ = 0, whose first rows are then those of τ = M a − f (along a tree with the kinetic part's \
             derivatives, as the field's Jacobian takes them); with orientations, ∂τ/∂q along each orientation's \
             body rotation vector δθ (the quaternion moved to q ⊗ exp(δθ/2), at rate K(q) = ∂q̇/∂v: n × n){}",
            at_fixed_action(model)
        ),
        quote! {
            let (dr, _) = self.__routh_constraint_jacobian(t, x, qdd, &__routh::Vector::<#m>::zeros());
            (#positions, dr.fixed_view::<#n, #n>(0, #p).into_owned())
        },
    );
    quote! { #pair #action }
}

/// `inverse_dynamics_jacobian` along a tree's tangent: ∂K/∂x from K's tangent at the accelerations
/// `qdd` (its quantities once) along the basis directions of the state, less the generalized
/// forces' symbolic ∂τ/∂q and ∂τ/∂q̇ — with orientations, the positions' columns then along the
/// rates ([`along_rates`]), as a constrained model's.
fn tree_inverse_dynamics_jacobian(model: &View<'_>, ij: &InverseJacobian, helpers: &mut Helpers) -> TokenStream {
    let (n, d, p) = (model.dof(), model.layout.state_dim(), model.layout.position_dim());
    let functions = TangentFunctions {
        name: "__routh_inverse_kinetic",
        bindings: &ij.kinetic.bindings,
        tangent: &ij.kinetic.tangent,
        extra: (quote! { a: &__routh::Vector<#n>, }, quote! { a, }),
        what: "the inverse dynamics' kinetic part K = M a + (velocity products) along the tree, at the accelerations `a`",
        along: "δK = (∂K/∂x) dx at fixed accelerations `a`",
    };
    let items = functions.items(model, helpers);
    let outputs: Vec<Expr> = ij.forces_dq.iter().chain(&ij.forces_dv).flatten().copied().collect();
    let none = TokenStream::new();
    let (stmts, vals) = helpers.body(model, &outputs, "__routh_tree_forces_jacobian", &none, &none);
    let (dq_vals, dv_vals) = vals.split_at(n * p);
    let add_columns = functions.add_columns(model, n);
    let positions = along_rates(model, quote! { (dr.fixed_columns::<#p>(0) - forces_dq) });
    let pair = quote! {
        let a = qdd;
        let mut dr = __routh::Matrix::<#n, #d>::zeros();
        #add_columns
        #(#stmts)*
        let forces_dq = __routh::Matrix::<#n, #p>::from_row_slice(&[#(#dq_vals),*]);
        let forces_dv = __routh::Matrix::<#n, #n>::from_row_slice(&[#(#dv_vals),*]);
        (#positions, dr.fixed_columns::<#n>(#p) - forces_dv)
    };
    let id_jacobian = inverse_dynamics_jacobian_item(
        n,
        d,
        "along the tree: ∂K/∂x of the kinetic part K = M q̈ + (velocity products) by its tangent along each \
         direction of the state (forward mode through the tree's passes, O(n) code; M never formed), less \
         the symbolic derivatives of the generalized forces τ; with orientations, ∂τ/∂q along each \
         orientation's body rotation vector δθ (the quaternion moved to q ⊗ exp(δθ/2), at rate \
         K(q) = ∂q̇/∂v: n × n), the chart of `linearize_tangent`",
        pair,
    );
    quote! { #items #id_jacobian }
}

/// The note `inverse_dynamics_jacobian`'s rustdoc ends on for a contact model (nothing otherwise).
fn at_fixed_action(model: &View<'_>) -> &'static str {
    if model.layout.z.is_some() { "; at fixed action z ([`Self::inverse_dynamics_action_jacobian`] is ∂τ/∂z)" } else { "" }
}

/// `inverse_dynamics_action_jacobian` of a contact model: ∂τ/∂z from `tz` (an expression of it,
/// with `t`, `x` and `qdd` in scope: −∂g/∂z of the residual, or the saddle point's residual rows).
fn action_jacobian_item(n: usize, d: usize, tz: TokenStream) -> TokenStream {
    quote! {
        /// Derivative ∂τ/∂z of the inverse dynamics τ = M q̈ − f at (t, x) and the accelerations `qdd`
        /// along the action variable z ([`Self::inverse_dynamics`]; [`Self::inverse_dynamics_jacobian`]
        /// has ∂τ/∂q and ∂τ/∂q̇ at fixed z): −∂g/∂z of the residual g = f − M a from its symbolic
        /// derivative. At q̈ = `accelerations(t, x)`, −M⁻¹ ∂τ/∂z is the field's column ∂q̈/∂z.
        ///
        /// # Errors
        /// [`FieldError::NonFinite`](::routh::runtime::FieldError) if a derivative is not finite.
        pub fn inverse_dynamics_action_jacobian(&self, t: f64, x: &__routh::State<#d>, qdd: &__routh::Vector<#n>)
            -> ::core::result::Result<__routh::Vector<#n>, __routh::FieldError>
        {
            __routh::mechanics::finite(t, #tz)
        }
    }
}

/// `inverse_dynamics_jacobian`: ∂τ/∂q and ∂τ/∂q̇ of τ = `inverse_dynamics(t, x, qdd)`, from `pair`
/// (statements ending in the two matrices, with `t`, `x` and `qdd` in scope), computed as `how`.
fn inverse_dynamics_jacobian_item(n: usize, d: usize, how: &str, pair: TokenStream) -> TokenStream {
    let doc = format!(
        " Derivatives ∂τ/∂q and ∂τ/∂q̇ of the inverse dynamics τ = M q̈ − f at (t, x) and the accelerations \
          `qdd` ([`Self::inverse_dynamics`]; ∂τ/∂q̈ = M, [`Self::mass_matrix`]), {how}. The linearisation of \
          computed-torque and model-predictive controllers; at q̈ = `accelerations(t, x)` of a model \
          without constraints, −M⁻¹ ∂τ/∂x is the field's Jacobian ∂q̈/∂x (with orientations, ∂q̈/∂q \
          composed with the rates K(q))."
    );
    quote! {
        #[doc = #doc]
        ///
        /// # Errors
        /// [`FieldError::NonFinite`](::routh::runtime::FieldError) if a derivative is not finite.
        pub fn inverse_dynamics_jacobian(&self, t: f64, x: &__routh::State<#d>, qdd: &__routh::Vector<#n>)
            -> ::core::result::Result<(__routh::Matrix<#n, #n>, __routh::Matrix<#n, #n>), __routh::FieldError>
        {
            let (tq, tv) = { #pair };
            ::core::result::Result::Ok((__routh::mechanics::finite(t, tq)?, __routh::mechanics::finite(t, tv)?))
        }
    }
}

/// The body of a function evaluating the links' quantities of `lj` at (t, x) (named `name`): its
/// statements, the runtime's `LinkDynamics` built from their values, and the values after the links'
/// (τ and its derivatives, where `lj` has them).
pub(crate) fn link_dynamics(
    model: &View<'_>,
    links: &Links,
    lj: &LinkJacobian,
    name: &str,
    helpers: &mut Helpers,
) -> (Vec<TokenStream>, TokenStream, Vec<TokenStream>) {
    let n = model.dof();
    let none = TokenStream::new();
    let q = &lj.quantities;
    let (mut stmts, vals) = helpers.body_bound(model, &q.bindings, &q.outputs, name, &none, &none);
    let (joint_vals, rest) = vals.split_at(18 * n);
    let (inertia_vals, rest) = rest.split_at(36 * n);
    let (armature, rest) = rest.split_at(n);
    let (gravity, rest) = rest.split_at(3);
    let (joints, inertias) = crate::emit::form::link_joints_and_inertias(joint_vals, 18, inertia_vals);
    let mech = quote! { __routh::mechanics };
    stmts.insert(0, crate::emit::form::links_static(links));
    let orientations = (!lj.orientations.is_empty()).then(|| {
        let groups = lj.orientations.iter().map(|[a, b, c]| quote! { [#a, #b, #c] });
        quote! { .with_orientations(&[#(#groups),*]) }
    });
    let dynamics = quote! {
        #mech::LinkDynamics::<#n>::new(&LINKS, [#(#joints),*], [#(#inertias),*], [#(#gravity),*]).with_armature([#(#armature),*])
            #orientations
    };
    (stmts, dynamics, rest.to_vec())
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

/// `__routh_rate_jacobians(t, x)` of a model with orientations: the rates' Jacobians ∂q̇/∂q and
/// ∂q̇/∂v of q̇ = K(q) v, the top rows of the field's Jacobian (nothing without orientations).
pub(crate) fn rate_jacobians_item(model: &View<'_>, eq: &Equations, helpers: &mut Helpers) -> TokenStream {
    let Some((rq, rv)) = &eq.rate_jacobians else { return TokenStream::new() };
    let (p, n, d) = (model.layout.position_dim(), model.dof(), model.layout.state_dim());
    let outputs: Vec<Expr> = rq.iter().chain(rv).flatten().copied().collect();
    let none = TokenStream::new();
    let (stmts, vals) = helpers.body(model, &outputs, "__routh_rate_jacobians", &none, &none);
    let (rq_m, rv_m) = (crate::emit::codegen::matrix(p, p, &vals[..p * p]), crate::emit::codegen::matrix(p, n, &vals[p * p..]));
    let (allow, state) = (allow_generated(), crate::emit::codegen::state_type(d));
    quote! {
        /// The rates' Jacobians ∂q̇/∂q and ∂q̇/∂v of q̇ = K(q) v (an orientation's quaternion turns at
        /// ½ q ⊗ (0, ω)), the top rows of the field's Jacobian.
        #allow
        fn __routh_rate_jacobians(&self, t: f64, x: &#state)
            -> (__routh::Matrix<#p, #p>, __routh::Matrix<#p, #n>)
        {
            #(#stmts)*
            (#rq_m, #rv_m)
        }
    }
}
