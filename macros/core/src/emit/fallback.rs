//! What the derive emits beside its errors (like thiserror's `fallback.rs`): when a model has a
//! mistake, the user should see that one spanned error — not a second one at every call of
//! `state`, `simulate` or `energy` in their code. So where the derivation did not get far enough
//! to emit the model's items, [`stubs`] emits the same public API with bodies that never run
//! (the build fails on the `compile_error!` anyway).

use proc_macro2::TokenStream;
use quote::quote;
use syn::DeriveInput;

use crate::layout::state_dim;
use crate::parse::{RawModel, parse_attributes};

/// The model's public items as stubs, if its attributes parse far enough to know its dimension.
pub fn stubs(input: &DeriveInput) -> TokenStream {
    let Ok(raw) = parse_attributes(&input.attrs, input.ident.span()) else { return TokenStream::new() };
    crate::emit::door::Door::new(raw.krate.as_ref()).wrap(stub_items(input, &raw))
}

/// The items of [`stubs`], naming routh through the door.
fn stub_items(input: &DeriveInput, raw: &RawModel) -> TokenStream {
    let name = &input.ident;
    if !input.generics.params.is_empty() {
        return TokenStream::new();
    }
    let distinct = |coords: &[syn::Ident]| {
        let mut seen: Vec<&syn::Ident> = Vec::new();
        for c in coords {
            if !seen.contains(&c) {
                seen.push(c);
            }
        }
        seen.len()
    };
    let stub = quote! { ::core::unreachable!("routh: this model failed to compile") };
    let sv = crate::emit::codegen::svector;
    let sm = |r: usize, c: usize| quote! { __routh::Matrix<#r, #c> };
    let fe = crate::emit::codegen::field_error();
    if !raw.modes.is_empty() {
        let dims = raw
            .modes
            .iter()
            .map(|m| if m.items.coordinates.is_empty() { distinct(&raw.coordinates) } else { distinct(&m.items.coordinates) });
        let action = !raw.actions.is_empty();
        let d = dims.map(|n| state_dim(n, action)).max().unwrap_or(0);
        let run = run_stubs(name, &crate::emit::run::Kind::modes(d));
        return quote! {
            #[allow(dead_code, unused_variables, clippy::all)]
            impl #name {
                /// Stub (the model failed to compile).
                pub const STATE_DIM: usize = #d;
            }

            #run
        };
    }
    let n = distinct(&raw.coordinates);
    if n == 0 {
        return TokenStream::new();
    }
    let d = state_dim(n, !raw.actions.is_empty());
    let (state, vec_n, mat_n, mat_d) = (crate::emit::codegen::state_type(d), sv(n), sm(n, n), sm(d, d));
    let kind = if raw.impacts.is_empty() { crate::emit::run::Kind::smooth(d) } else { crate::emit::run::Kind::hybrid(d) };
    let run = run_stubs(name, &kind);
    let action_stub = (!raw.actions.is_empty()).then(|| {
        quote! {
            /// Stub (the model failed to compile).
            pub fn inverse_dynamics_action_jacobian(&self, t: f64, x: &#state, qdd: &#vec_n)
                -> ::core::result::Result<#vec_n, #fe> { #stub }
        }
    });
    quote! {
        #[allow(dead_code, unused_variables, clippy::all)]
        impl #name {
            /// Stub (the model failed to compile).
            pub const DOF: usize = #n;
            /// Stub (the model failed to compile).
            pub const STATE_DIM: usize = #d;
            /// Stub (the model failed to compile).
            pub fn state(&self, q: [f64; #n], qdot: [f64; #n]) -> #state { #stub }
            /// Stub (the model failed to compile).
            pub fn mass_matrix(&self, t: f64, x: &#state) -> #mat_n { #stub }
            /// Stub (the model failed to compile).
            pub fn forcing(&self, t: f64, x: &#state) -> #vec_n { #stub }
            /// Stub (the model failed to compile).
            pub fn accelerations(&self, t: f64, x: &#state) -> ::core::result::Result<#vec_n, #fe> { #stub }
            /// Stub (the model failed to compile).
            pub fn inverse_dynamics(&self, t: f64, x: &#state, qdd: &#vec_n) -> ::core::result::Result<#vec_n, #fe> { #stub }
            /// Stub (the model failed to compile).
            pub fn static_forces(&self, t: f64, x: &#state) -> #vec_n { #stub }
            /// Stub (the model failed to compile).
            pub fn velocity_forces(&self, t: f64, x: &#state) -> #vec_n { #stub }
            /// Stub (the model failed to compile).
            pub fn lagrangian(&self, t: f64, x: &#state) -> f64 { #stub }
            /// Stub (the model failed to compile).
            pub fn energy(&self, t: f64, x: &#state) -> f64 { #stub }
            /// Stub (the model failed to compile).
            pub fn momenta(&self, t: f64, x: &#state) -> #vec_n { #stub }
            /// Stub (the model failed to compile).
            pub fn power(&self, t: f64, x: &#state) -> f64 { #stub }
            /// Stub (the model failed to compile).
            pub fn jacobian(&self, t: f64, x: &#state) -> ::core::result::Result<#mat_d, #fe> { #stub }
            /// Stub (the model failed to compile).
            pub fn inverse_dynamics_jacobian(&self, t: f64, x: &#state, qdd: &#vec_n)
                -> ::core::result::Result<(#mat_n, #mat_n), #fe> { #stub }
            #action_stub
        }

        #run

        #[allow(unused_variables)]
        impl __routh::VectorField<#d> for #name {
            fn field(&self, t: f64, x: &#state) -> ::core::result::Result<#state, #fe> { #stub }
        }
    }
}

/// `run` and the `Simulate` and `Runs<Plain>` implementations of a model of `kind`, as stubs.
fn run_stubs(name: &syn::Ident, kind: &crate::emit::run::Kind) -> TokenStream {
    let stub = quote! {
        let _ = plan;
        ::core::unreachable!("routh: this model failed to compile")
    };
    let doc = "Stub (the model failed to compile).";
    let (items, impls) = crate::emit::run::items(name, kind, doc, Some(stub), None);
    quote! {
        #[allow(dead_code, unused_variables, clippy::all)]
        impl #name {
            #items
        }

        #impls
    }
}
