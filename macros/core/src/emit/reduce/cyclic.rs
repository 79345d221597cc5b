//! Emission of a Routh-reduced system (see [`crate::derive::reduce::cyclic`]): the reduced type with the full
//! single-model API, reconstruction of the cyclic coordinates, and the full model's reduction of a
//! state.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use crate::derive::reduce::cyclic::Reduced;
use crate::emit::codegen::Helpers;
use crate::model::View;
use crate::names::snake;
use crate::notation::{doc_block, formula};

/// Everything generated for one reduction; `api` is the reduced model's standard emission.
pub fn emit(full: &View<'_>, red: &Reduced, api: TokenStream, vis: &syn::Visibility) -> TokenStream {
    let rm = &red.model.view(full.arena);
    let name = &rm.name;
    let cyclic_names: Vec<String> = red.cyclic.iter().map(|&c| full.coordinates[c].to_string()).collect();
    let declaration = declaration(full, red, rm, vis, &cyclic_names);
    let mut helpers = Helpers::default();
    let (items, reconstruction_items) = reconstruction(full, red, rm, &mut helpers, &cyclic_names);
    let reduce_fn = format_ident!("{}", snake(&name.to_string()));
    let full_items = reducing_method(full, red, rm, &cyclic_names);
    let hybrid = if full.impacts.is_empty() { TokenStream::new() } else { hybrid(full, red, &reduce_fn) };
    let (dr, d, k) = (rm.layout.state_dim(), full.layout.state_dim(), red.cyclic.len());
    let hidden = helpers.into_impl(&TokenStream::new(), &quote!(#name));
    let dz = dr + k;
    let reconstructed = crate::emit::run::extra(
        name,
        &crate::emit::run::Kind::smooth(dr),
        quote! { __routh::Reconstructed<#k> },
        quote! { __routh::Trajectory<#d> },
        quote! {
            self.check_parameters()?;
            plan.reconstructed::<Self, #k, #dz, #d>(self, with.0)
        },
    );
    quote! {
        #hybrid

        #declaration

        #api

        #reconstructed

        #hidden

        #[automatically_derived]
        impl #name {
            #items
        }

        #[automatically_derived]
        impl __routh::Reconstruction<#dr, #k, #d> for #name {
            #reconstruction_items
        }

        #full_items
    }
}

/// The reduced system's struct: the full model's parameters and the momenta μ, with its Routhian
/// in the rustdoc.
fn declaration(full: &View<'_>, red: &Reduced, rm: &View<'_>, vis: &syn::Visibility, cyclic_names: &[String]) -> TokenStream {
    let (name, full_name) = (&rm.name, &full.name);
    let fields = rm.parameters.iter();
    let field_docs: Vec<String> = rm
        .parameters
        .iter()
        .enumerate()
        .map(|(i, p)| {
            if i < full.parameters.len() {
                format!(" Parameter `{p}` of [`{full_name}`].")
            } else {
                let c = &full.coordinates[red.cyclic[i - full.parameters.len()]];
                format!(" Momentum μ conjugate to the cyclic coordinate `{c}` (fixed on the reduced system).")
            }
        })
        .collect();
    let kept_names: Vec<String> = red.kept.iter().map(|&c| full.coordinates[c].to_string()).collect();
    let struct_doc = doc_block(
        &format!(
            "Routh reduction of [`{full_name}`] over the cyclic coordinate(s) {} at fixed momenta μ: a mechanical \
             system in ({}) with the Routhian R^μ = [L − μ·θ̇] at θ̇ = θ̇(t, q, q̇, μ) as its Lagrangian and the \
             reduced force. It has the same API as any model (`run`, `energy`, `jacobian`, …); \
             `cyclic_velocities` and a run `.reconstructed(theta0)` recover the cyclic motion.",
            cyclic_names.join(", "),
            kept_names.join(", ")
        ),
        &[
            ("R".into(), formula(rm, rm.lagrangian)),
            ("−V_μ (R at q̇ = 0; V_μ is the amended potential)".into(), formula(rm, red.amended)),
            ("R₁ (gyroscopic part, linear in q̇)".into(), formula(rm, red.gyroscopic)),
        ],
    );
    quote! {
        #struct_doc
        #[derive(Debug, Clone, Copy, PartialEq)]
        #vis struct #name {
            #( #[doc = #field_docs] pub #fields: f64, )*
        }
    }
}

/// The reduced system's reconstruction: `CYCLIC`, `cyclic_velocities`, `reconstruct`, and the
/// items of `impl Reconstruction`.
fn reconstruction(
    full: &View<'_>,
    red: &Reduced,
    rm: &View<'_>,
    helpers: &mut Helpers,
    cyclic_names: &[String],
) -> (TokenStream, TokenStream) {
    let name = &rm.name;
    let (n, nr, dr) = (full.dof(), rm.dof(), rm.layout.state_dim());
    let (d, k) = (full.layout.state_dim(), red.cyclic.len());
    let none = TokenStream::new();
    let (v_stmts, v_vals) =
        helpers.body(rm, &red.cyclic_velocities, &format!("__routh_{}_cyclic", snake(&name.to_string())), &none, &none);
    let v_lines: Vec<(String, String)> =
        cyclic_names.iter().zip(&red.cyclic_velocities).map(|(c, &e)| (format!("dot({c})"), formula(rm, e))).collect();
    let v_doc =
        doc_block("Velocities of the cyclic coordinates as functions of the reduced state and μ (reconstruction).", &v_lines);

    // Full state from (x_r, θ): positions and velocities in the full model's coordinate order.
    let mut pos = Vec::new();
    let mut vel = Vec::new();
    for i in 0..n {
        if let Some(j) = red.kept.iter().position(|&r| r == i) {
            let jv = nr + j;
            pos.push(quote! { x[#j] });
            vel.push(quote! { x[#jv] });
        } else {
            let c = red.cyclic.iter().position(|&r| r == i).unwrap_or(0);
            pos.push(quote! { theta[#c] });
            vel.push(quote! { w[#c] });
        }
    }
    let idx: Vec<usize> = (0..n).collect();
    let idx_v: Vec<usize> = (n..d).collect();
    let items = crate::emit::codegen::lazy(quote! {
        /// Names of the cyclic coordinates removed by the reduction.
        pub const CYCLIC: [&'static str; #k] = [#(#cyclic_names),*];

        #v_doc
        #[allow(unused_variables, clippy::all, clippy::pedantic, non_snake_case)]
        #[must_use]
        pub fn cyclic_velocities(&self, t: f64, x: &__routh::State<#dr>) -> __routh::Vector<#k> {
            #(#v_stmts)*
            __routh::Vector::<#k>::from([#(#v_vals),*])
        }

        /// The full state of the original model from a reduced state and the cyclic positions.
        #[must_use]
        pub fn reconstruct(&self, t: f64, x: &__routh::State<#dr>, theta: [f64; #k]) -> __routh::State<#d> {
            let w = self.cyclic_velocities(t, x);
            let mut full = __routh::State::<#d>::zeros();
            #( full[#idx] = #pos; )*
            #( full[#idx_v] = #vel; )*
            full
        }

    });
    let trait_items = crate::emit::codegen::lazy(quote! {
        fn cyclic_velocities(&self, t: f64, x: &__routh::State<#dr>, _theta: &[f64; #k]) -> __routh::Vector<#k> {
            #name::cyclic_velocities(self, t, x)
        }
        fn reconstruct(&self, t: f64, x: &__routh::State<#dr>, theta: [f64; #k]) -> __routh::State<#d> {
            #name::reconstruct(self, t, x, theta)
        }
    });
    (items, trait_items)
}

/// Hybrid Routh reduction for a model with impacts: the reduced state, the cyclic positions and μ
/// form an augmented state (μ̇ = 0 between impacts); guards are evaluated on the reconstructed full
/// state (they need not be invariant); at an impact the full law is applied and the post-impact
/// state reduced again, giving the new μ.
fn hybrid(full: &View<'_>, red: &Reduced, reduce_fn: &syn::Ident) -> TokenStream {
    let rm = &red.model.view(full.arena);
    let name = &rm.name;
    let full_name = &full.name;
    let dr = rm.layout.state_dim();
    let d = full.layout.state_dim();
    let k = red.cyclic.len();
    let dz = dr + 2 * k;
    let orig_params: Vec<&syn::Ident> = full.parameters.iter().collect();
    let mu_fields: Vec<&syn::Ident> = rm.parameters[full.parameters.len()..].iter().collect();
    let doc = format!(
        " Hybrid Routh reduction of [`{full_name}`] through [`{name}`]: integrates the reduced system at fixed μ \
         between impacts (reconstructing the cyclic coordinates alongside), evaluates the guards on the \
         reconstructed state, applies the full impact law at each impact and continues at the new μ \
         (*Hybrid momentum maps*, §4.1): `model.run(x0).span(t0..t1).reduced::<{name}>().go()?` returns the \
         reconstructed trajectory of the full model and the μ jumps."
    );
    let (xt, rt) = (crate::emit::codegen::state_type(d), crate::emit::codegen::state_type(dr));
    let mu_k: Vec<usize> = (0..k).collect();
    let items = crate::emit::codegen::lazy(quote! {
        type Reduced = #name;
        fn reduce(&self, t: f64, x: &#xt) -> (#name, #rt, [f64; #k]) {
            self.#reduce_fn(t, x)
        }
        fn reduced_at(&self, mu: [f64; #k]) -> #name {
            #name { #( #orig_params: self.#orig_params, )* #( #mu_fields: mu[#mu_k], )* }
        }
        fn momenta(&self, t: f64, x: &#xt) -> [f64; #k] {
            let (reduced, _, _) = self.#reduce_fn(t, x);
            [#( reduced.#mu_fields ),*]
        }
    });
    let run = crate::emit::run::extra(
        full_name,
        &crate::emit::run::Kind::hybrid(d),
        quote! { __routh::ReducedBy<#name> },
        quote! { (__routh::HybridTrajectory<#d>, ::std::vec::Vec<__routh::MomentumJump<#k>>) },
        quote! {
            self.check_parameters()?;
            plan.reduced::<Self, #dr, #k, #k, #dz>(self)
        },
    );
    let run = quote! { #[doc = #doc] #run };
    quote! {
        #[automatically_derived]
        impl __routh::HybridReduction<#dr, #k, #k, #d> for #full_name {
            #items
        }

        #run
    }
}

/// The full model's method reducing one of its states to the reduced system: μ = p_θ(x), the
/// reduced state and the cyclic positions.
fn reducing_method(full: &View<'_>, red: &Reduced, rm: &View<'_>, cyclic_names: &[String]) -> TokenStream {
    let (name, full_name) = (&rm.name, &full.name);
    let (n, nr, k) = (full.dof(), rm.dof(), red.cyclic.len());
    let (d, dr) = (full.layout.state_dim(), rm.layout.state_dim());
    let none = TokenStream::new();
    let reduce_fn = format_ident!("{}", snake(&name.to_string()));
    // The full model's reduction of a state: μ = p_θ(x).
    let mut full_helpers = Helpers::default();
    let (m_stmts, m_vals) =
        full_helpers.body(full, &red.momenta, &format!("__routh_{}_momenta", snake(&name.to_string())), &none, &none);
    let kept_q: Vec<usize> = red.kept.clone();
    let kept_v: Vec<usize> = red.kept.iter().map(|&r| n + r).collect();
    let kr: Vec<usize> = (0..nr).collect();
    let kr_v: Vec<usize> = (nr..dr).collect();
    let cyc: Vec<usize> = red.cyclic.clone();
    let orig_params = full.parameters.iter();
    let mu_fields = rm.parameters[full.parameters.len()..].iter();
    let mu_idx: Vec<usize> = (0..k).collect();
    let reduce_doc = format!(
        " Reduces a state of this model to [`{name}`]: the reduced system at μ = the cyclic momenta of `x`, \
         the reduced state, and the cyclic positions ({}).",
        cyclic_names.join(", ")
    );

    let items = crate::emit::codegen::lazy(quote! {
        #[doc = #reduce_doc]
        #[allow(unused_variables, clippy::all, clippy::pedantic, non_snake_case)]
        #[must_use]
        pub fn #reduce_fn(&self, t: f64, x: &__routh::State<#d>)
            -> (#name, __routh::State<#dr>, [f64; #k])
        {
            #(#m_stmts)*
            let mu = [#(#m_vals),*];
            let reduced = #name { #( #orig_params: self.#orig_params, )* #( #mu_fields: mu[#mu_idx], )* };
            let mut xr = __routh::State::<#dr>::zeros();
            #( xr[#kr] = x[#kept_q]; )*
            #( xr[#kr_v] = x[#kept_v]; )*
            (reduced, xr, [#( x[#cyc] ),*])
        }
    });
    let hidden = full_helpers.into_impl(&TokenStream::new(), &quote!(#full_name));
    quote! {
    #hidden

    #[automatically_derived]
    impl #full_name {
        #items
    }
    }
}
