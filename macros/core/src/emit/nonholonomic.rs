//! Emission of a nonholonomic reduced system (see [`crate::derive::nonholonomic`]): the reduced
//! type on x = (r, u) with its field (Maggi's equations, solved by the runtime), energy,
//! simulation, relative equilibria and reconstruction, and the full model's reduction of a state.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use crate::derive::nonholonomic::Nonholonomic;
use crate::emit::codegen::{Helpers, allow_generated, field_error, svector, symmetric_matrix};
use crate::model::View;
use crate::names::snake;
use crate::notation::{doc_block, formula};

/// Everything generated for one nonholonomic reduction of the model `full`.
#[allow(clippy::too_many_lines)]
pub fn emit(full: &View<'_>, red: &Nonholonomic, vis: &syn::Visibility) -> TokenStream {
    let rm = &red.model.view(full.arena);
    let (name, full_name) = (&rm.name, &full.name);
    let (nr, nu, k) = (rm.layout.position_dim(), rm.dof(), red.dropped.len());
    let (dr, d) = (nr + nu, full.layout.state_dim());
    let dz = dr + k;
    let coordinate_names: Vec<String> = rm.coordinates.iter().map(ToString::to_string).collect();
    let velocity_names: Vec<String> = rm.layout.velocity_names.iter().map(ToString::to_string).collect();
    let dropped_names: Vec<String> = rm.layout.dropped.iter().map(ToString::to_string).collect();
    let none = TokenStream::new();
    let mut helpers = Helpers::default();
    let base = snake(&name.to_string());

    // The documentation: the reduced equations and the reconstruction.
    let mut lines: Vec<(String, String)> = Vec::new();
    let rates = &rm.layout.rates;
    for (c, &e) in coordinate_names.iter().zip(rates) {
        lines.push((format!("dot({c})"), formula(rm, e)));
    }
    for i in 0..nu {
        for j in i..nu {
            lines.push((format!("M[{}, {}]", velocity_names[i], velocity_names[j]), formula(rm, red.mass[i][j])));
        }
    }
    for (u, &e) in velocity_names.iter().zip(&red.forcing) {
        lines.push((format!("f[{u}]"), formula(rm, e)));
    }
    for (g, &e) in dropped_names.iter().zip(&red.dropped_rates) {
        lines.push((format!("dot({g})"), formula(rm, e)));
    }
    if let Some(e) = red.energy {
        lines.push(("E".into(), formula(rm, e)));
    }
    let struct_doc = doc_block(
        &format!(
            "Nonholonomic reduction of [`{full_name}`]: the constrained motion in the velocities ({}) with the \
             coordinates ({}) dropped — Maggi's equations M u̇ = f, M = Sᵀ M_full S and f = Sᵀ (f_full − M_full a₀) \
             for q̇ = S u + s, evaluated where the dropped coordinates are 0 (the derive proved that nothing here depends on \
             them). The state is x = ({}). The dropped coordinates follow by quadrature of their rates \
             (`cyclic_velocities`, `simulate_reconstructed`); `relative_equilibrium` finds steady motions.{}",
            velocity_names.join(", "),
            dropped_names.join(", "),
            coordinate_names.iter().chain(&velocity_names).cloned().collect::<Vec<_>>().join(", "),
            if red.energy.is_some() {
                ""
            } else {
                " The full model's energy depends on the dropped coordinates, so the reduced type has no `energy`."
            }
        ),
        &lines,
    );
    let fields = rm.parameters.iter();
    let field_docs: Vec<String> = rm.parameters.iter().map(|p| format!(" Parameter `{p}` of [`{full_name}`].")).collect();

    // The field.
    let mut outputs: Vec<symbolic::Expr> = rates.clone();
    for i in 0..nu {
        for j in i..nu {
            outputs.push(red.mass[i][j]);
        }
    }
    outputs.extend(red.forcing.iter().copied());
    let (f_stmts, f_vals) = helpers.body(rm, &outputs, &format!("__routh_{base}_field"), &none, &none);
    let (rates, rest) = f_vals.split_at(nr);
    let (upper, forcing) = rest.split_at(nu * (nu + 1) / 2);
    let mass = symmetric_matrix(nu, upper);
    let (m_stmts, m_vals) = helpers.body(rm, &outputs[nr..nr + nu * (nu + 1) / 2], &format!("__routh_{base}_mass"), &none, &none);
    let mass_only = symmetric_matrix(nu, &m_vals);
    let (fo_stmts, fo_vals) = helpers.body(rm, &red.forcing, &format!("__routh_{base}_forcing"), &none, &none);
    let energy = red.energy.map(|e| {
        let (stmts, vals) = helpers.body(rm, &[e], &format!("__routh_{base}_energy"), &none, &none);
        let v = &vals[0];
        quote! {
            /// The full model's energy at the reduced state (see the type's documentation).
            #[must_use]
            pub fn energy(&self, t: f64, x: &::routh::__private::nalgebra::SVector<f64, #dr>) -> f64 {
                #(#stmts)*
                #v
            }
        }
    });
    // Reconstruction: the dropped rates, and every rate for the full state.
    let gk = quote! { g: &[f64; #k], };
    let gk_arg = quote! { g, };
    let (w_stmts, w_vals) = helpers.body(rm, &red.dropped_rates, &format!("__routh_{base}_dropped"), &gk, &gk_arg);
    let (v_stmts, v_vals) = helpers.body(rm, &red.full_velocities, &format!("__routh_{base}_rates"), &gk, &gk_arg);
    let (np, n) = (full.layout.position_dim(), full.dof());
    let positions: Vec<TokenStream> = (0..np)
        .map(|c| match red.kept.iter().position(|&r| r == c) {
            Some(j) => quote! { x[#j] },
            None => {
                let i = red.dropped.iter().position(|&r| r == c).unwrap_or(0);
                quote! { g[#i] }
            }
        })
        .collect();
    let idx: Vec<usize> = (0..np).collect();
    let vel_idx: Vec<usize> = (0..n).collect();
    let idx_v: Vec<usize> = (np..np + n).collect();
    let (xt, rt, kt) = (svector(d), svector(dr), svector(k));
    let fe = field_error();
    let allow = allow_generated();
    let r_idx: Vec<usize> = (0..nr).collect();
    let u_idx: Vec<usize> = (nr..dr).collect();
    let items = crate::emit::codegen::lazy(quote! {
        /// The kept coordinates, in the order of the state's positions.
        pub const COORDINATES: [&'static str; #nr] = [#(#coordinate_names),*];
        /// The velocities u, in the order of the state's velocities.
        pub const VELOCITIES: [&'static str; #nu] = [#(#velocity_names),*];
        /// The dropped coordinates, in the order of `cyclic_velocities` and `reconstruct`.
        pub const DROPPED: [&'static str; #k] = [#(#dropped_names),*];

        /// The reduced state x = (r, u).
        #[must_use]
        pub fn state(&self, r: [f64; #nr], u: [f64; #nu]) -> #rt {
            let mut x = <#rt>::zeros();
            #( x[#r_idx] = r[#r_idx]; )*
            #( x[#u_idx] = u[#u_idx - #nr]; )*
            x
        }

        /// Sᵀ M S, the reduced equations' matrix (see the type's documentation).
        #allow
        #[must_use]
        pub fn mass(&self, t: f64, x: &#rt) -> ::routh::__private::nalgebra::SMatrix<f64, #nu, #nu> {
            #(#m_stmts)*
            #mass_only
        }

        /// Sᵀ (f − M a₀), the reduced equations' right-hand side (see the type's documentation).
        #allow
        #[must_use]
        pub fn forcing(&self, t: f64, x: &#rt) -> ::routh::__private::nalgebra::SVector<f64, #nu> {
            #(#fo_stmts)*
            ::routh::__private::nalgebra::SVector::<f64, #nu>::from([#(#fo_vals),*])
        }

        #energy

        /// Integrates the reduced system from `x0` over `span`.
        ///
        /// # Errors
        /// A [`SimError`](::routh::__private::SimError) with the partial trajectory if the field
        /// fails or the step size underflows.
        pub fn simulate(&self, x0: #rt, span: ::core::ops::Range<f64>, options: &::routh::__private::Options)
            -> ::routh::__private::RunResult<::routh::__private::Trajectory<#dr>>
        {
            ::routh::__private::integrate::integrate(self, span, x0, &[], options)
        }

        /// The dropped coordinates' rates at the reduced state `x` and the dropped positions `g`
        /// (the reconstruction equations; see the type's documentation).
        #allow
        #[must_use]
        pub fn cyclic_velocities(&self, t: f64, x: &#rt, g: &[f64; #k]) -> #kt {
            #(#w_stmts)*
            <#kt>::from([#(#w_vals),*])
        }

        /// The full model's state from the reduced state `x` and the dropped positions `g`.
        #allow
        #[must_use]
        pub fn reconstruct(&self, t: f64, x: &#rt, g: [f64; #k]) -> #xt {
            let g = &g;
            #(#v_stmts)*
            let v = [#(#v_vals),*];
            let mut full = <#xt>::zeros();
            #( full[#idx] = #positions; )*
            #( full[#idx_v] = v[#vel_idx]; )*
            full
        }

        /// Integrates the reduced system from `x0` with the dropped coordinates from `g0`, and
        /// returns the trajectory of the full model
        /// ([`simulate_reconstructed`](::routh::runtime::reduction::simulate_reconstructed)).
        ///
        /// # Errors
        /// As [`Self::simulate`].
        pub fn simulate_reconstructed(&self, x0: #rt, g0: [f64; #k], span: ::core::ops::Range<f64>, options: &::routh::__private::Options)
            -> ::routh::__private::RunResult<::routh::__private::Trajectory<#d>>
        {
            ::routh::__private::reduction::simulate_reconstructed::<Self, #dr, #k, #dz, #d>(self, x0, g0, span, options)
        }

        /// A relative equilibrium — a fixed point of the reduced system, a steady motion of the full
        /// model — from `guess` at time `t`, with the Jacobian's eigenvalues for its stability
        /// ([`fixed_point`](::routh::runtime::equilibrium::fixed_point)).
        ///
        /// # Errors
        /// A failed evaluation, or no convergence (with the last iterate).
        pub fn relative_equilibrium(&self, t: f64, guess: #rt, options: &::routh::__private::equilibrium::FixedPointOptions)
            -> ::core::result::Result<::routh::__private::equilibrium::FixedPoint<#dr>, ::routh::__private::equilibrium::FixedPointError>
        {
            ::routh::__private::equilibrium::fixed_point(self, t, guess, options)
        }
    });
    let hidden = helpers.into_impl(&TokenStream::new(), &quote!(#name));

    // The full model's reduction of a state.
    let mut full_helpers = Helpers::default();
    let mut reduce_out: Vec<symbolic::Expr> = red.kept.iter().map(|&c| full.layout.q[c]).collect();
    reduce_out.extend(red.velocities.iter().copied());
    let (r_stmts, r_vals) = full_helpers.body(full, &reduce_out, &format!("__routh_{base}_reduce"), &none, &none);
    let dropped_idx = red.dropped.clone();
    let params = full.parameters.iter();
    let reduce_fn = format_ident!("{}", base);
    let reduce_doc = format!(
        " Reduces a state of this model to [`{name}`]: the reduced system, the reduced state (r, u) and the dropped \
         positions ({}).",
        dropped_names.join(", ")
    );
    let full_items = crate::emit::codegen::lazy(quote! {
        #[doc = #reduce_doc]
        #allow
        #[must_use]
        pub fn #reduce_fn(&self, t: f64, x: &#xt) -> (#name, #rt, [f64; #k]) {
            #(#r_stmts)*
            let reduced = #name { #( #params: self.#params, )* };
            (reduced, <#rt>::from([#(#r_vals),*]), [#( x[#dropped_idx] ),*])
        }
    });
    let full_hidden = full_helpers.into_impl(&TokenStream::new(), &quote!(#full_name));
    quote! {
        #struct_doc
        #[derive(Debug, Clone, Copy, PartialEq)]
        #vis struct #name {
            #( #[doc = #field_docs] pub #fields: f64, )*
        }

        #hidden

        #[automatically_derived]
        impl #name {
            #items
        }

        #[automatically_derived]
        impl ::routh::__private::VectorField<#dr> for #name {
            #allow
            fn field(&self, t: f64, x: &#rt) -> ::core::result::Result<#rt, #fe> {
                #(#f_stmts)*
                let rates = ::routh::__private::nalgebra::SVector::<f64, #nr>::from([#(#rates),*]);
                let forcing = ::routh::__private::nalgebra::SVector::<f64, #nu>::from([#(#forcing),*]);
                ::routh::__private::reduction::nonholonomic_field::<#nr, #nu, #dr>(t, rates, #mass, forcing)
            }
        }

        #[automatically_derived]
        impl ::routh::__private::Reconstruction<#dr, #k, #d> for #name {
            fn cyclic_velocities(&self, t: f64, x: &#rt, g: &[f64; #k]) -> #kt {
                #name::cyclic_velocities(self, t, x, g)
            }
            fn reconstruct(&self, t: f64, x: &#rt, g: [f64; #k]) -> #xt {
                #name::reconstruct(self, t, x, g)
            }
        }

        #full_hidden

        #[automatically_derived]
        impl #full_name {
            #full_items
        }
    }
}
