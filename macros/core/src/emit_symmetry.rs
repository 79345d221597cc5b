//! Emission of momentum maps and their balance laws (see [`crate::symmetry`]).

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use crate::codegen::body_into;
use crate::notation::{doc_block, formula};
use crate::model::Model;
use crate::symmetry::SymmetryEquations;

/// Methods `<name>_momentum` and `<name>_momentum_rate` for every symmetry, and `SYMMETRIES`.
pub fn methods(model: &Model, symmetries: &[SymmetryEquations], parts: &mut Vec<TokenStream>) -> TokenStream {
    if symmetries.is_empty() {
        return TokenStream::new();
    }
    let d = model.layout.state_dim();
    let none = TokenStream::new();
    let state = quote! { ::routh::nalgebra::SVector<f64, #d> };
    let mut items = Vec::new();
    let mut names = Vec::new();
    for se in symmetries {
        let name = se.name.to_string();
        names.push(name.clone());
        let j_fn = format_ident!("{name}_momentum");
        let r_fn = format_ident!("{name}_momentum_rate");
        let (j_stmts, j_vals) = body_into(model, parts, &[se.momentum], &format!("__routh_{name}_momentum"), &none, &none);
        let (r_stmts, r_vals) = body_into(model, parts, &[se.rate], &format!("__routh_{name}_rate"), &none, &none);
        let generator: Vec<String> = model
            .coordinates
            .iter()
            .zip(&se.generator)
            .filter(|(_, g)| !model.arena.zero_test(**g).is_zero())
            .map(|(c, &g)| format!("({})·∂/∂{c}", formula(model, g)))
            .collect();
        let status = if se.conserved {
            "⟨Q, ξ⟩ ≡ 0: J is **conserved** along solutions".to_string()
        } else {
            format!("the forces break this symmetry: J obeys the balance law dJ/dt = ⟨Q, ξ⟩ = {}", formula(model, se.rate))
        };
        let algebra = if se.in_forced_algebra {
            "ξ belongs to g_F (the forced system is invariant: ⟨Q, ξ⟩ ≡ 0 and L_ξᶜQ ≡ 0)"
        } else {
            "ξ is not in g_F (the forced system is not invariant)"
        };
        let mut heading = format!(
            "Momentum map of symmetry `{name}`, J = ∂L/∂q̇ · ξ_Q, with generator ξ_Q = {}. Invariance ξᶜ(L) ≡ 0 \
             was verified at compile time. Forces: {status}; {algebra}.",
            generator.join(" + ")
        );
        for is in &se.impacts {
            let guard = if is.guard_invariant { "its guard is invariant" } else { "its guard is not invariant" };
            let reset = match is.preserves {
                Some(true) => "its reset preserves J (hybrid momentum map)",
                Some(false) => "its reset changes J (μ⁺ = J(Δ(x)), evaluated at run time)",
                None => "it changes chart",
            };
            heading.push_str(&format!(" Impact `{}`: {guard}; {reset}.", is.impact));
        }
        let doc = doc_block(&heading, &[("J".into(), formula(model, se.momentum))]);
        let rate_doc = format!(
            " Balance law of the momentum map of `{name}`: dJ/dt = ⟨Q, ξ_Q⟩ (identically zero when J is conserved)."
        );
        items.push(quote! {
            #doc
            #[allow(unused_variables, clippy::all, clippy::pedantic, non_snake_case)]
            #[must_use]
            pub fn #j_fn(&self, t: f64, x: &#state) -> f64 {
                #(#j_stmts)*
                #(#j_vals)*
            }

            #[doc = #rate_doc]
            #[allow(unused_variables, clippy::all, clippy::pedantic, non_snake_case)]
            #[must_use]
            pub fn #r_fn(&self, t: f64, x: &#state) -> f64 {
                #(#r_stmts)*
                #(#r_vals)*
            }
        });
    }
    let count = names.len();
    quote! {
        /// Names of the declared symmetries, in declaration order.
        pub const SYMMETRIES: [&'static str; #count] = [#(#names),*];
        #(#items)*
    }
}
