//! The `#[derive(Mechanics)]` proc macro of routh. All the work happens in `routh-macros-core`,
//! a plain library (so it can be unit-tested and benchmarked); this crate only adapts token types.
#![forbid(unsafe_code)]

use proc_macro::TokenStream;

/// Derives the equations of motion of a Lagrangian mechanical system. See the `routh` crate for the DSL.
#[proc_macro_derive(Mechanics, attributes(mechanics))]
pub fn derive_mechanics(input: TokenStream) -> TokenStream {
    // Every pass over an expression (parsing's clone and drop, lowering, the symbolic passes) is
    // linear in its depth, and a machine-written Lagrangian (a flat sum of 10 000 terms is a
    // 10 000-deep tree to syn) can need far more stack than rustc's thread gives a proc macro: run
    // on a large stack segment of the same thread, as rustc does for its own deep recursion (the
    // token handles stay valid; the segment is reserved, not committed, until used).
    stacker::grow(STACK, || routh_macros_core::expand(input.into()).into())
}

/// Stack reserved for one expansion: 1 GiB of address space.
const STACK: usize = 1 << 30;
