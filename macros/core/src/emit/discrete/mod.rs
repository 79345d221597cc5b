//! Emission of a model's variational integrator (see [`crate::derive::discrete`]): the discrete
//! Lagrangian, forces and Legendre maps with their formulas in rustdoc, `run_discrete`, and
//! `impl routh::runtime::DiscreteSystem`.

pub mod oriented;

use proc_macro2::TokenStream;
use quote::quote;
use symbolic::Expr;

use crate::derive::discrete::{ContactBlocks, DiscreteEquations, DiscreteMaps};
use crate::emit::codegen::{Helpers, Owner, allow_generated, body_with_base};
use crate::model::View;
use crate::notation::{doc_block, formula};

/// Inherent methods (appended to the model's `impl`) and the trait implementation.
pub fn emit(model: &View<'_>, de: &DiscreteEquations, helpers: &mut Helpers) -> (TokenStream, TokenStream) {
    let n = model.dof();
    let sv = crate::emit::codegen::svector(n);
    let none = TokenStream::new();
    // A contact model's maps also take the action z_k of the first node.
    let (zp, za) =
        if de.contact.is_some() { (quote! { z0: f64, }, quote! { z0, }) } else { (TokenStream::new(), TokenStream::new()) };
    let base = (quote! { t0: f64, h: f64, q0: &#sv, q1: &#sv, #zp }, quote! { t0, h, q0, q1, #za });
    let mut body = |outputs: &[Expr], name: &str| helpers.add(body_with_base(model, outputs, name, &base, &none, &none));
    // The left map and the step's blocks (a contact model's with its action's column and row).
    let ((lm_stmts, lm_vals), blocks_fn) = match &de.contact {
        None => {
            let (left, blocks) = left_and_blocks(model, &de.maps, helpers, &base);
            (left, blocks_fn(n, &quote! { q0: &#sv, q1: &#sv }, &blocks))
        }
        Some(c) => (body(&left_outputs(&de.maps), "__routh_discrete_left"), contact_blocks_item(de, c, n, &mut body, &sv)),
    };
    let mut body = |outputs: &[Expr], name: &str| helpers.add(body_with_base(model, outputs, name, &base, &none, &none));
    let [(l_stmts, l_vals), (f_stmts, f_vals), (rm_stmts, rm_vals)] = map_bodies(&mut body, &de.maps);
    let factor_fn = (!de.action_factors.is_empty()).then(|| {
        let (stmts, vals) = body(&de.action_factors, "__routh_action_factor");
        let allow = allow_generated();
        quote! {
            /// The least factor by which the step carries a variation of the action.
            #allow
            fn __routh_action_factor(&self, t0: f64, h: f64, q0: &#sv, q1: &#sv, #zp) -> f64 {
                #(#stmts)*
                f64::INFINITY #( .min(#vals) )*
            }
        }
    });
    let mut grad_out = de.d1.clone();
    grad_out.extend(&de.d2);
    let (g_stmts, g_vals) = body(&grad_out, "__routh_discrete_gradients");
    let (g1, g2) = (&g_vals[..n], &g_vals[n..]);
    let (fm, fp) = (&f_vals[..n], &f_vals[n..]);
    let (lm, lj) = (&lm_vals[..n], &lm_vals[n..]);
    let j_sets = (0..n).flat_map(|i| (0..n).map(move |j| (i, j))).zip(lj).map(|((i, j), v)| quote! { jac[(#i, #j)] = #v; });
    let allow = allow_generated();
    let disc = model.discretization.as_ref().map(|d| d.rule.clone()).unwrap_or_default();
    let (l_doc, f_doc, m_doc) = docs(model, de, &disc);
    let symmetry_items = symmetry_items(
        model,
        &de.maps.symmetries,
        &mut body,
        &quote! { q0: &#sv, q1: &#sv, #zp },
        "at (q_k, q_k+1): (J⁻, J⁺) = (⟨−D₁L_d − f⁻, ξ(q_k)⟩, ⟨D₂L_d + f⁺, ξ(q_k+1)⟩)",
    );
    let reduced_item = reduced_item(model, de, &sv);
    let energies_item = energies_item(n, n, de.contact.is_some());
    let simulate_item = run_item(model, de);
    let methods = quote! {
        /// The quadrature rule of the generated variational integrator.
        pub const DISCRETE_RULE: &'static str = #disc;

        #l_doc
        #allow
        #[must_use]
        pub fn discrete_lagrangian(&self, t0: f64, h: f64, q0: &#sv, q1: &#sv, #zp) -> f64 {
            #(#l_stmts)*
            #(#l_vals)*
        }

        /// The slot derivatives (D₁L_d, D₂L_d) of the discrete Lagrangian at (q_k, q_k+1): the forced
        /// discrete Euler–Lagrange equations are D₂L_d(q_k−1, q_k) + f⁺(q_k−1, q_k) + D₁L_d(q_k, q_k+1)
        /// + f⁻(q_k, q_k+1) = 0 (see `runtime::discrete::del_residual`).
        #allow
        #[must_use]
        pub fn discrete_lagrangian_gradients(&self, t0: f64, h: f64, q0: &#sv, q1: &#sv, #zp) -> (#sv, #sv) {
            #(#g_stmts)*
            (<#sv>::from([#(#g1),*]), <#sv>::from([#(#g2),*]))
        }

        #f_doc
        #allow
        #[must_use]
        pub fn discrete_forces(&self, t0: f64, h: f64, q0: &#sv, q1: &#sv, #zp) -> (#sv, #sv) {
            #(#f_stmts)*
            (<#sv>::from([#(#fm),*]), <#sv>::from([#(#fp),*]))
        }

        #m_doc
        #allow
        #[must_use]
        pub fn discrete_momenta(&self, t0: f64, h: f64, q0: &#sv, q1: &#sv, #zp) -> (#sv, #sv) {
            (self.__routh_discrete_left(t0, h, q0, q1, #za).0, self.__routh_discrete_right(t0, h, q0, q1, #za))
        }

        #allow
        fn __routh_discrete_left(&self, t0: f64, h: f64, q0: &#sv, q1: &#sv, #zp) -> (#sv, __routh::Matrix<#n, #n>) {
            #(#lm_stmts)*
            let mut jac = __routh::Matrix::<#n, #n>::zeros();
            #(#j_sets)*
            (<#sv>::from([#(#lm),*]), jac)
        }

        #blocks_fn

        #allow
        fn __routh_discrete_right(&self, t0: f64, h: f64, q0: &#sv, q1: &#sv, #zp) -> #sv {
            #(#rm_stmts)*
            <#sv>::from([#(#rm_vals),*])
        }

        #factor_fn

        #(#symmetry_items)*

        #reduced_item

        #simulate_item

        #energies_item
    };
    let impls = trait_impl(model, de);
    let inputs_impl = input_impl(model, de, &mut body, &sv);
    let runs = run_impls(model, de);
    (methods, quote! { #impls #inputs_impl #runs })
}

/// `__routh_contact_blocks`: a contact integrator's ∂p₀/∂q₀, ∂p₁/∂q₀ and ∂p₁/∂q₁ with the action's
/// column and row (`runtime::discrete::ContactMapDerivatives`).
fn contact_blocks_item(
    de: &DiscreteEquations,
    c: &ContactBlocks,
    n: usize,
    body: &mut impl FnMut(&[Expr], &str) -> (Vec<TokenStream>, Vec<TokenStream>),
    sv: &TokenStream,
) -> TokenStream {
    let allow = allow_generated();
    let mut blocks_out = block_outputs(&de.maps);
    let square = |vals: &[proc_macro2::TokenStream]| crate::emit::codegen::square_matrix(n, vals);
    blocks_out.extend(&c.left_dz0);
    blocks_out.extend(&c.right_dz0);
    blocks_out.extend(&de.d1);
    blocks_out.extend(&de.d2);
    blocks_out.push(c.action_dz0);
    let (stmts, vals) = body(&blocks_out, "__routh_contact_blocks");
    let (ba, bb, bc) = (square(&vals[..n * n]), square(&vals[n * n..2 * n * n]), square(&vals[2 * n * n..3 * n * n]));
    let column = |k: usize| {
        let v = &vals[3 * n * n + k * n..3 * n * n + (k + 1) * n];
        quote! { <#sv>::from([#(#v),*]) }
    };
    let (lz, rz, l0, l1) = (column(0), column(1), column(2), column(3));
    let l3 = &vals[3 * n * n + 4 * n];
    quote! {
        #allow
        fn __routh_contact_blocks(&self, t0: f64, h: f64, q0: &#sv, q1: &#sv, z0: f64)
            -> __routh::discrete::ContactMapDerivatives<#n>
        {
            #(#stmts)*
            __routh::discrete::ContactMapDerivatives {
                left_dq0: #ba,
                left_dz0: #lz,
                right_dq0: #bb,
                right_dq1: #bc,
                right_dz0: #rz,
                action_dq0: #l0,
                action_dq1: #l1,
                action_dz0: #l3,
            }
        }
    }
}

/// `__routh_discrete_blocks(&self, t0, h, <nodes>)`: the step's `MapDerivatives` from
/// [`left_and_blocks`]' blocks, over the nodes' parameters `nodes` (`q0, q1` on coordinates, `q0,
/// xi` with orientations).
pub(super) fn blocks_fn(n: usize, nodes: &TokenStream, (stmts, vals): &Code) -> TokenStream {
    let allow = allow_generated();
    let value = map_derivatives_value(n, vals);
    quote! {
        #allow
        fn __routh_discrete_blocks(&self, t0: f64, h: f64, #nodes) -> __routh::discrete::MapDerivatives<#n> {
            #(#stmts)*
            #value
        }
    }
}

/// A computation's statements and its values.
pub(super) type Code = (Vec<TokenStream>, Vec<TokenStream>);

/// The left map's outputs: F^{f−} (μ⁻ with orientations) and its Jacobian in the second unknown
/// (Newton's, by rows).
pub(super) fn left_outputs(maps: &DiscreteMaps) -> Vec<Expr> {
    maps.left_momentum.iter().copied().chain(maps.left_jacobian.iter().flatten().copied()).collect()
}

/// The statements and values of the left map with Newton's Jacobian ([`left_outputs`]) and of
/// the step's four blocks (`runtime::discrete::MapDerivatives`: J, ∂left/∂q₀, ∂right/∂q₀ and
/// ∂right/∂(the second unknown), each by rows). The blocks differentiate the same gradient of L
/// at the rule's node as Newton's Jacobian (on the floating quadruped of `tests/robots` 47
/// thousand of their 88 thousand expression nodes are the left map's): where the whole is long,
/// one computation in two phases ([`Helpers::phased`]) — the left map's own code for each Newton
/// iteration, the blocks after it reading the values it leaves (the quadruped's expansion 11.3 →
/// 8.6 MB); where short, each a function of plain `let`s, the blocks with J (a step Jacobian then
/// evaluates one function, not the left map beside).
pub(super) fn left_and_blocks(
    model: &View<'_>,
    maps: &DiscreteMaps,
    helpers: &mut Helpers,
    base: &(TokenStream, TokenStream),
) -> (Code, Code) {
    let left = left_outputs(maps);
    let blocks = block_outputs(maps);
    let n = maps.left_momentum.len();
    if let Some(phased) = helpers.phased(model, &left, &blocks, "__routh_discrete_left", base) {
        let (stmts, mut vals) = phased.both;
        // Past the momentum: J, then the three blocks.
        vals.drain(..n);
        return (phased.first, (stmts, vals));
    }
    let none = TokenStream::new();
    let left = helpers.add(body_with_base(model, &left, "__routh_discrete_left", base, &none, &none));
    let with_j: Vec<Expr> = maps.left_jacobian.iter().flatten().copied().chain(blocks).collect();
    (left, helpers.add(body_with_base(model, &with_j, "__routh_discrete_blocks", base, &none, &none)))
}

/// `MapDerivatives { .. }` from the values of [`left_and_blocks`]' blocks.
fn map_derivatives_value(n: usize, vals: &[TokenStream]) -> TokenStream {
    let square = |k: usize| crate::emit::codegen::square_matrix(n, &vals[k * n * n..(k + 1) * n * n]);
    let (j, a0, b0, b1) = (square(0), square(1), square(2), square(3));
    quote! {
        __routh::discrete::MapDerivatives { left_dq0: #a0, left_dnext: #j, right_dq0: #b0, right_dnext: #b1 }
    }
}

/// With inputs (on the view at fixed inputs): `impl DiscreteInputSystem`, the discrete forces'
/// input derivatives ∂F^{f∓}L_d/∂u for the step map's input Jacobian, and `impl DrivenDiscrete` on
/// the model, its views by input value; for a contact integrator `ContactInputSystem` (with
/// ∂L_d/∂u) and `DrivenContactDiscrete`.
fn input_impl(
    model: &View<'_>,
    de: &DiscreteEquations,
    body: &mut impl FnMut(&[Expr], &str) -> (Vec<TokenStream>, Vec<TokenStream>),
    sv: &TokenStream,
) -> TokenStream {
    let (n, k) = (model.dof(), model.layout.u.len());
    if de.maps.left_du.is_empty() {
        return TokenStream::new();
    }
    let mut outs = input_outputs(&de.maps);
    if let Some(c) = &de.contact {
        outs.extend(&c.action_du);
    }
    let (stmts, vals) = body(&outs, "__routh_discrete_input_blocks");
    let sets = |name: TokenStream, rows: usize, vals: &[TokenStream]| {
        let sets =
            (0..rows).flat_map(|i| (0..k).map(move |j| (i, j))).zip(vals).map(|((i, j), v)| quote! { #name[(#i, #j)] = #v; });
        quote! { #(#sets)* }
    };
    let (left, right) = (sets(quote!(left), n, &vals[..n * k]), sets(quote!(right), n, &vals[n * k..2 * n * k]));
    let owner = Owner::of(model);
    let (ty, generics) = (&owner.ty, &owner.generics);
    let allow = allow_generated();
    if de.contact.is_some() {
        // A contact model's view: the maps' input derivatives with the action's increment's; the
        // model the family of its views (`step::ContactMap` plans over it).
        let action = sets(quote!(action), 1, &vals[2 * n * k..]);
        let items = crate::emit::codegen::lazy(quote! {
            #allow
            fn contact_input_derivatives(&self, t0: f64, h: f64, q0: &#sv, q1: &#sv, z0: f64)
                -> ::core::result::Result<(__routh::Matrix<#n, #k>, __routh::Matrix<#n, #k>, __routh::Matrix<1, #k>), __routh::FieldError>
            {
                #(#stmts)*
                let mut left = __routh::Matrix::<#n, #k>::zeros();
                let mut right = __routh::Matrix::<#n, #k>::zeros();
                let mut action = __routh::Matrix::<1, #k>::zeros();
                #left
                #right
                #action
                let finite = |m| __routh::mechanics::finite(t0, m);
                Ok((finite(left)?, finite(right)?, __routh::mechanics::finite(t0, action)?))
            }
        });
        let (name, view) = (&model.name, crate::emit::codegen::driven_type(&model.name));
        return quote! {
            #[automatically_derived]
            impl #generics __routh::discrete::ContactInputSystem<#n, #k> for #ty {
                #items
            }

            #[automatically_derived]
            impl __routh::discrete::DrivenContactDiscrete<#n, #k> for #name {
                type At<'a> = #view<'a>;
                #[inline]
                fn at(&self, u: &__routh::Vector<#k>) -> #view<'_> {
                    self.driven(::core::array::from_fn(|i| u[i]))
                }
            }
        };
    }
    let items = crate::emit::codegen::lazy(quote! {
        #allow
        fn momentum_input_derivatives(&self, t0: f64, h: f64, q0: &#sv, q1: &#sv)
            -> ::core::result::Result<(__routh::Matrix<#n, #k>, __routh::Matrix<#n, #k>), __routh::FieldError>
        {
            #(#stmts)*
            let mut left = __routh::Matrix::<#n, #k>::zeros();
            let mut right = __routh::Matrix::<#n, #k>::zeros();
            #left
            #right
            Ok((__routh::mechanics::finite(t0, left)?, __routh::mechanics::finite(t0, right)?))
        }
    });
    // The model as the family of its views, one per input value (plans over its integrator).
    let (name, view) = (&model.name, crate::emit::codegen::driven_type(&model.name));
    quote! {
        #[automatically_derived]
        impl #generics __routh::discrete::DiscreteInputSystem<#n, #k> for #ty {
            #items
        }

        #[automatically_derived]
        impl __routh::discrete::DrivenDiscrete<#n, #k> for #name {
            type At<'a> = #view<'a>;
            #[inline]
            fn at(&self, u: &__routh::Vector<#k>) -> #view<'_> {
                self.driven(::core::array::from_fn(|i| u[i]))
            }
        }
    }
}

/// `discrete_energies`: the energy at every node, with the velocities from the nodes' momenta (`p`
/// positions, `n` velocities; with orientations the momenta in the bodies' axes; a `contact`
/// integrator's nodes with their actions).
pub(super) fn energies_item(p: usize, n: usize, contact: bool) -> TokenStream {
    let (guess, energy_note) = if contact {
        (quote! { self.state(qa, [0.0; #n], trajectory.actions.get(k).copied().unwrap_or(0.0)) }, " (and the node's action z_k)")
    } else {
        (quote! { self.state(qa, [0.0; #n]) }, "")
    };
    let energy_doc = format!(
        " The energy E = q̇·∂L/∂q̇ − L at every node of a discrete trajectory of this model, with the velocities \
          recovered from the nodes' discrete momenta by the inverse Legendre transform (Newton with the mass matrix; \
          exact in one step for L quadratic in q̇){energy_note}."
    );
    let mass = crate::emit::form::dense_factor();
    let d = p + n + usize::from(contact);
    quote! {
        #[doc = #energy_doc]
        ///
        /// # Errors
        /// [`FieldError::SingularMassMatrix`](::routh::runtime::FieldError) if M is singular at a node.
        pub fn discrete_energies(&self, trajectory: &__routh::DiscreteTrajectory<#n, #p>)
            -> ::core::result::Result<::std::vec::Vec<f64>, __routh::FieldError>
        {
            let mut out = ::std::vec::Vec::with_capacity(trajectory.len());
            for k in 0..trajectory.len() {
                let (t, q, p) = (trajectory.times[k], trajectory.positions[k], trajectory.momenta[k]);
                let qa: [f64; #p] = q.into();
                let guess = #guess;
                let x = __routh::mechanics::inverse_legendre_after::<#p, #n, #d, _>(
                    t, &guess, &p, |x| self.momenta(t, x), |x| #mass,
                )?;
                out.push(self.energy(t, &x));
            }
            Ok(out)
        }
    }
}

/// The rustdoc of L_d, the discrete forces and the discrete Legendre maps.
fn docs(model: &View<'_>, de: &DiscreteEquations, disc: &str) -> (TokenStream, TokenStream, TokenStream) {
    let coords: Vec<String> = model.coordinates.iter().map(ToString::to_string).collect();
    let l_doc = doc_block(
        &format!(
            "The discrete Lagrangian L_d(t_k, h, q_k, q_k+1) of the `{disc}` rule: h·L at the rule's quadrature point with \
             the velocity (q_k+1 − q_k)/h (see the module docs of the derive's `discrete`). Nodes in the order of the \
             coordinates ({}).",
            coords.join(", ")
        ),
        &[("L_d".into(), formula(model, de.maps.lagrangian))],
    );
    let (f_lines, m_lines) = map_doc_lines(model, &de.maps, "p");
    let f_doc = doc_block(
        "The discrete forces (f⁻, f⁺), the pullback of the model's force one-form by the same rule, f_d = h (Δ_h⁻¹)*f.",
        &f_lines,
    );
    let m_doc = doc_block(
        "The forced discrete Legendre maps: p_k = −D₁L_d − f⁻ (F^{f−}L_d) and p_k+1 = D₂L_d + f⁺ (F^{f+}L_d), at (q_k, q_k+1). \
         A step solves the first for q_k+1 (Newton, exact Jacobian) and evaluates the second.",
        &m_lines,
    );
    (l_doc, f_doc, m_doc)
}

/// Per discrete symmetry: its momentum law, its discrete momentum maps (J⁻, J⁺) and their source Φ,
/// functions of the maps' arguments `params` (after t₀ and h); `maps` says what J∓ are.
pub(super) fn symmetry_items(
    model: &View<'_>,
    symmetries: &[crate::derive::discrete::DiscreteSymmetry],
    body: &mut impl FnMut(&[Expr], &str) -> (Vec<TokenStream>, Vec<TokenStream>),
    params: &TokenStream,
    maps: &str,
) -> Vec<TokenStream> {
    let allow = allow_generated();
    let mut symmetry_items = Vec::new();
    for ds in symmetries {
        let name = ds.name.to_string();
        let (s_stmts, s_vals) = body(&[ds.minus, ds.plus], &format!("__routh_{name}_discrete"));
        let (jm, jp) = (&s_vals[0], &s_vals[1]);
        let (phi_stmts, phi_vals) = body(&[ds.source], &format!("__routh_{name}_discrete_source"));
        let phi = &phi_vals[0];
        let j_fn = quote::format_ident!("{name}_discrete_momentum");
        let phi_fn = quote::format_ident!("{name}_discrete_source");
        let law_const = quote::format_ident!("{}_DISCRETE_LAW", name.to_uppercase());
        let (law, law_text) = match ds.law {
            crate::derive::discrete::MomentumLaw::Conserved => (
                quote! { __routh::discrete::MomentumLaw::Conserved },
                "Φ ≡ 0 (proved at compile time): J⁻ = J⁺ is **conserved** by the integrator (forced discrete Noether)",
            ),
            crate::derive::discrete::MomentumLaw::ConstantDrift => (
                quote! { __routh::discrete::MomentumLaw::ConstantDrift },
                "dΦ ≡ 0 (proved at compile time): Φ is a constant and J changes by the same amount every step",
            ),
            crate::derive::discrete::MomentumLaw::General => (
                quote! { __routh::discrete::MomentumLaw::General },
                "Φ depends on the nodes: J⁺(k) = J⁺(k − 1) + Φ_k with Φ_k of each step",
            ),
        };
        let doc = doc_block(
            &format!(
                "The forced discrete momentum maps of symmetry `{name}` {maps}. Along the integrator J⁻(k) = J⁺(k − 1) (momentum matching) and \
                 J⁺(k) − J⁻(k) = Φ_k (see `{name}_discrete_source`; the sign the paper prints in its Prop. 4.4 is corrected). {law_text}."
            ),
            &[("J⁻".into(), formula(model, ds.minus)), ("J⁺".into(), formula(model, ds.plus))],
        );
        let phi_doc = doc_block(
            &format!("The per-step source of `{name}`'s discrete momentum, Φ = f_d(ξ_Q×Q) = ⟨f⁻, ξ(q_k)⟩ + ⟨f⁺, ξ(q_k+1)⟩."),
            &[("Φ".into(), formula(model, ds.source))],
        );
        let law_doc = format!(" How `{name}`'s discrete momentum evolves under the integrator (decided at compile time).");
        symmetry_items.push(quote! {
            #[doc = #law_doc]
            pub const #law_const: __routh::discrete::MomentumLaw = #law;

            #doc
            #allow
            #[must_use]
            pub fn #j_fn(&self, t0: f64, h: f64, #params) -> (f64, f64) {
                #(#s_stmts)*
                (#jm, #jp)
            }

            #phi_doc
            #allow
            #[must_use]
            pub fn #phi_fn(&self, t0: f64, h: f64, #params) -> f64 {
                #(#phi_stmts)*
                #phi
            }
        });
    }
    symmetry_items
}

/// With cyclic coordinates: the reduced discrete Lagrangian and forces (the reduced run is
/// in [`run_impls`]).
fn reduced_item(model: &View<'_>, de: &DiscreteEquations, sv: &TokenStream) -> TokenStream {
    if de.cyclic.is_empty() {
        TokenStream::new()
    } else {
        let cyclic = &de.cyclic;
        let names: Vec<String> = de.cyclic.iter().map(|&i| model.coordinates[i].to_string()).collect();
        let red_doc = format!(
            " The reduced discrete Lagrangian ℓ_d(x_k, W_k, x_k+1) = L_d((x_k, 0), (x_k+1, W_k)) of the reduction by ({}) \
              (*Forced discrete reduction*, Thm. 3.11): `x0` holds the shape x_k (its cyclic entries are ignored), `xw` the shape x_k+1 and, in the \
              cyclic entries, the increments W_k.",
            names.join(", ")
        );
        let red_forces_doc = " The reduced discrete forces: f⁻ and f⁺ at ((x_k, 0), (x_k+1, W_k)) (shape components \
            f_x, group components φ∓ of the abelian reduction).";
        quote! {
            #[doc = #red_doc]
            #[must_use]
            pub fn discrete_reduced_lagrangian(&self, t0: f64, h: f64, x0: &#sv, xw: &#sv) -> f64 {
                let mut base = *x0;
                #( base[#cyclic] = 0.0; )*
                self.discrete_lagrangian(t0, h, &base, xw)
            }

            #[doc = #red_forces_doc]
            #[must_use]
            pub fn discrete_reduced_forces(&self, t0: f64, h: f64, x0: &#sv, xw: &#sv) -> (#sv, #sv) {
                let mut base = *x0;
                #( base[#cyclic] = 0.0; )*
                self.discrete_forces(t0, h, &base, xw)
            }
        }
    }
}

/// `run_discrete`, of the variational or (with an action variable) the contact integrator.
fn run_item(model: &View<'_>, de: &DiscreteEquations) -> TokenStream {
    let state = crate::emit::codegen::state_type(model.layout.state_dim());
    let (what, errors) = if de.contact.is_some() {
        (
            "the contact variational integrator (discrete Herglotz principle, Vermeeren–Bravetti–Seri): from the \
             positions, velocities and action of `start` (p₀ = ∂L/∂q̇), p_k = −(D₁L_d + f⁻)/(1 + D₃L_d) solved for q_k+1, \
             p_k+1 = D₂L_d + f⁺ and z_k+1 = z_k + L_d; the actions are in `DiscreteTrajectory::actions`",
            " [`SimError::ContactStepTooLarge`](::routh::runtime::SimError) when a step would reverse the action's \
             variations (h beyond the dissipation's time scale).",
        )
    } else {
        (
            "the variational integrator: from the positions and velocities of `start` (the initial momentum is the \
             continuous Legendre transform p₀ = ∂L/∂q̇), Newton on each step with the exact Jacobian",
            "",
        )
    };
    let reduced = if de.cyclic.is_empty() {
        String::new()
    } else {
        let names: Vec<String> = de.cyclic.iter().map(|&i| model.coordinates[i].to_string()).collect();
        format!(
            " `.reduced()` runs it on the space reduced by the cyclic coordinates ({}): discrete Routh reduction \
             (*Forced discrete reduction*, Thm. 3.11 in the abelian case; L_d and f_d were proved invariant under \
             their translations at compile time), each step solved for the shape and the increments \
             W_k = g_k+1 − g_k, g reconstructed as g_k+1 = g_k + W_k.",
            names.join(", ")
        )
    };
    let doc = format!(
        " A discrete run of {what}: `model.run_discrete(x0).step(h).steps(n).go()?` \
         ([`DiscreteRun`](::routh::runtime::DiscreteRun): the start time, Newton's options).{reduced}"
    );
    let errors = format!(
        " [`SimError::NewtonFailed`](::routh::runtime::SimError) or [`SimError::SingularStepJacobian`](::routh::runtime::SimError) \
         when a step cannot be solved (h too large), [`SimError::InvalidParameter`](::routh::runtime::SimError) for bad \
         parameters.{errors} The nodes before a failed step come with the error \
         ([`RunError::partial`](::routh::runtime::RunError))."
    );
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

/// `impl SimulateDiscrete` and `RunsDiscrete` (and, with cyclic coordinates, the reduced run).
fn run_impls(model: &View<'_>, de: &DiscreteEquations) -> TokenStream {
    let (n, d) = (model.dof(), model.layout.state_dim());
    let state = crate::emit::codegen::state_type(d);
    let owner = Owner::of(model);
    let (ty, generics) = (&owner.ty, &owner.generics);
    let check = parameter_check(model);
    let plan = quote! { __routh::DiscretePlan<#state> };
    let integrate = if de.contact.is_some() {
        quote! { plan.contact(self, p0) }
    } else {
        quote! { plan.variational(self, p0) }
    };
    let reduced = (!de.cyclic.is_empty()).then(|| {
        let cyclic = &de.cyclic;
        let red = quote! { __routh::ReducedDiscreteTrajectory<#n> };
        quote! {
            #[automatically_derived]
            impl #generics __routh::RunsDiscrete<__routh::DiscreteReduced> for #ty {
                type Output = #red;
                #[inline]
                fn run_discrete_with(&self, plan: #plan, _: __routh::DiscreteReduced) -> __routh::RunResult<#red> {
                    #check
                    let p0 = self.momenta(plan.t0(), plan.start());
                    plan.reduced(self, p0, &[#(#cyclic),*])
                }
            }
        }
    });
    let plain = plain_runs(model, &quote! { __routh::DiscreteTrajectory<#n> }, &integrate);
    quote! {
        #plain
        #reduced
    }
}

/// The parameters' check a run makes first (on the model, or through a view at fixed inputs).
fn parameter_check(model: &View<'_>) -> TokenStream {
    if Owner::of(model).generics.is_empty() {
        quote! { self.check_parameters()?; }
    } else {
        quote! { self.0.check_parameters()?; }
    }
}

/// `impl SimulateDiscrete` (from the model's state) and `RunsDiscrete<Plain>` returning `traj`:
/// the parameters checked, the initial momenta `p0` = ∂L/∂v at the start, then `integrate` (the
/// plan's integrator for them).
pub(super) fn plain_runs(model: &View<'_>, traj: &TokenStream, integrate: &TokenStream) -> TokenStream {
    let state = crate::emit::codegen::state_type(model.layout.state_dim());
    let owner = Owner::of(model);
    let (ty, generics) = (&owner.ty, &owner.generics);
    let check = parameter_check(model);
    quote! {
        #[automatically_derived]
        impl #generics __routh::SimulateDiscrete for #ty {
            type Start = #state;
        }

        #[automatically_derived]
        impl #generics __routh::RunsDiscrete<__routh::Plain> for #ty {
            type Output = #traj;
            #[inline]
            fn run_discrete_with(&self, plan: __routh::DiscretePlan<#state>, _: __routh::Plain) -> __routh::RunResult<#traj> {
                #check
                let p0 = self.momenta(plan.t0(), plan.start());
                #integrate
            }
        }
    }
}

/// `impl DiscreteSystem` (or `ContactDiscreteSystem`): the discrete Legendre maps and the step
/// map's Jacobian blocks for the runtime's integrator.
fn trait_impl(model: &View<'_>, de: &DiscreteEquations) -> TokenStream {
    let n = model.dof();
    let sv = crate::emit::codegen::svector(n);
    let owner = Owner::of(model);
    let (ty, generics) = (&owner.ty, &owner.generics);
    if de.contact.is_some() {
        let items = crate::emit::codegen::lazy(quote! {
            #[inline]
            fn contact_left_momentum(&self, t: f64, h: f64, q0: &#sv, q1: &#sv, z0: f64)
                -> ::core::result::Result<(#sv, __routh::Matrix<#n, #n>), __routh::FieldError>
            {
                let (p, jac) = self.__routh_discrete_left(t, h, q0, q1, z0);
                Ok((__routh::mechanics::finite(t, p)?, __routh::mechanics::finite(t, jac)?))
            }
            #[inline]
            fn contact_right_momentum(&self, t: f64, h: f64, q0: &#sv, q1: &#sv, z0: f64)
                -> ::core::result::Result<(#sv, f64), __routh::FieldError>
            {
                let p = __routh::mechanics::finite(t, self.__routh_discrete_right(t, h, q0, q1, z0))?;
                let l = self.discrete_lagrangian(t, h, q0, q1, z0);
                if l.is_finite() { Ok((p, l)) } else { Err(__routh::FieldError::NonFinite { t }) }
            }
            #[inline]
            fn action_factor(&self, t: f64, h: f64, q0: &#sv, q1: &#sv, z0: f64)
                -> ::core::result::Result<f64, __routh::FieldError>
            {
                let f = self.__routh_action_factor(t, h, q0, q1, z0);
                if f.is_finite() { Ok(f) } else { Err(__routh::FieldError::NonFinite { t }) }
            }
            fn contact_derivatives(&self, t: f64, h: f64, q0: &#sv, q1: &#sv, z0: f64)
                -> ::core::option::Option<::core::result::Result<__routh::discrete::ContactMapDerivatives<#n>, __routh::FieldError>>
            {
                let d = self.__routh_contact_blocks(t, h, q0, q1, z0);
                Some(if d.is_finite() { Ok(d) } else { Err(__routh::FieldError::NonFinite { t }) })
            }
        });
        quote! {
            #[automatically_derived]
            impl #generics __routh::ContactDiscreteSystem<#n> for #ty {
                #items
            }
        }
    } else {
        let items = map_items(n, &sv, &quote::format_ident!("q1"), &sv);
        quote! {
            #[automatically_derived]
            impl #generics __routh::DiscreteSystem<#n> for #ty {
                #items
            }
        }
    }
}

/// The maps' trait items — `left_momentum` (with its Jacobian), `right_momentum` and
/// `momentum_derivatives`, each the generated function's values checked finite — over the first
/// node (of type `start`) and `second` of type `arg`: the next node on coordinates, the increment ξ
/// with orientations ([`oriented`]).
pub(super) fn map_items(n: usize, start: &TokenStream, second: &syn::Ident, arg: &TokenStream) -> TokenStream {
    crate::emit::codegen::lazy(quote! {
        #[inline]
        fn left_momentum(&self, t: f64, h: f64, q0: &#start, #second: &#arg)
            -> ::core::result::Result<(#arg, __routh::Matrix<#n, #n>), __routh::FieldError>
        {
            let (p, jac) = self.__routh_discrete_left(t, h, q0, #second);
            Ok((__routh::mechanics::finite(t, p)?, __routh::mechanics::finite(t, jac)?))
        }
        #[inline]
        fn right_momentum(&self, t: f64, h: f64, q0: &#start, #second: &#arg) -> ::core::result::Result<#arg, __routh::FieldError> {
            __routh::mechanics::finite(t, self.__routh_discrete_right(t, h, q0, #second))
        }
        #[allow(clippy::type_complexity)]
        fn momentum_derivatives(&self, t: f64, h: f64, q0: &#start, #second: &#arg) -> ::core::option::Option<::core::result::Result<(
            __routh::Matrix<#n, #n>, __routh::Matrix<#n, #n>, __routh::Matrix<#n, #n>,
        ), __routh::FieldError>> {
            Some(self.map_derivatives(t, h, q0, #second)?.map(|d| (d.left_dq0, d.right_dq0, d.right_dnext)))
        }
        fn map_derivatives(&self, t: f64, h: f64, q0: &#start, #second: &#arg)
            -> ::core::option::Option<::core::result::Result<__routh::discrete::MapDerivatives<#n>, __routh::FieldError>>
        {
            let d = self.__routh_discrete_blocks(t, h, q0, #second);
            Some(if d.is_finite() { Ok(d) } else { Err(__routh::FieldError::NonFinite { t }) })
        }
    })
}

/// The parts' function bodies (statements, values) of L_d, of the forces (f⁻ then f⁺) and of the
/// right map, in that order, over the arguments of `body` (the left map's: [`left_and_blocks`]).
#[allow(clippy::type_complexity)]
pub(super) fn map_bodies(
    body: &mut impl FnMut(&[Expr], &str) -> (Vec<TokenStream>, Vec<TokenStream>),
    maps: &DiscreteMaps,
) -> [(Vec<TokenStream>, Vec<TokenStream>); 3] {
    let l = body(&[maps.lagrangian], "__routh_discrete_lagrangian");
    let forces: Vec<Expr> = maps.force_minus.iter().chain(&maps.force_plus).copied().collect();
    let f = body(&forces, "__routh_discrete_forces");
    let rm = body(&maps.right_momentum, "__routh_discrete_right");
    [l, f, rm]
}

/// The step map's blocks ∂left/∂q_k, ∂right/∂q_k and ∂right/∂(the second unknown), row by row in
/// one list (the outputs of `__routh_discrete_blocks`).
pub(super) fn block_outputs(maps: &DiscreteMaps) -> Vec<Expr> {
    [&maps.left_dq0, &maps.right_dq0, &maps.right_dnext].into_iter().flatten().flatten().copied().collect()
}

/// The maps' input derivatives ∂left/∂u and ∂right/∂u, row by row in one list.
pub(super) fn input_outputs(maps: &DiscreteMaps) -> Vec<Expr> {
    maps.left_du.iter().chain(&maps.right_du).flatten().copied().collect()
}

/// Rustdoc lines: (name, formula).
type DocLines = Vec<(String, String)>;

/// The rustdoc lines of the discrete forces (f⁻, f⁺) and of the maps, the momenta named `momentum`
/// (`p` on coordinates, `μ` in the bodies' axes) at the two nodes.
pub(super) fn map_doc_lines(model: &View<'_>, maps: &DiscreteMaps, momentum: &str) -> (DocLines, DocLines) {
    let lines = |names: [&str; 2], values: [&[Expr]; 2]| -> DocLines {
        names
            .into_iter()
            .zip(values)
            .flat_map(|(name, values)| {
                values.iter().enumerate().map(move |(i, &e)| (format!("{name}[{}]", i + 1), formula(model, e)))
            })
            .collect()
    };
    (
        lines(["f⁻", "f⁺"], [&maps.force_minus, &maps.force_plus]),
        lines([&format!("{momentum}_k"), &format!("{momentum}_k+1")], [&maps.left_momentum, &maps.right_momentum]),
    )
}
