//! The `#[derive(Mechanics)]` proc macro of routh. All the work happens in `routh-macros-core`,
//! a plain library (so it can be unit-tested and benchmarked); this crate only adapts token types.
#![forbid(unsafe_code)]

use proc_macro::TokenStream;

/// Derives the equations of motion of a Lagrangian mechanical system. See the `routh` crate for the DSL.
#[proc_macro_derive(Mechanics, attributes(mechanics))]
pub fn derive_mechanics(input: TokenStream) -> TokenStream {
    // The expansion runs on a stack segment of its own (`routh_macros_core::expand`).
    routh_macros_core::expand(input.into()).into()
}
