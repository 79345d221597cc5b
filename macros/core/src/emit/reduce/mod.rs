//! Emission of the reduced systems ([`crate::derive::reduce`]): each a type of its own with its
//! whole API, and on the full model the items that reduce a state to it.
//!
//! - [`cyclic`]: a Routh-reduced model over cyclic coordinates — the reduced model's own items
//!   (as any model's) with the reconstruction of the cyclic coordinates;
//! - [`first_order`]: a reduced system in first-order form (Maggi's, Routh's by rotations): its
//!   field and exact Jacobian (in one chart or two), reconstruction, relative equilibria, and a
//!   hybrid run through the full model's impacts; what each reduction adds ([`terms`]) and the
//!   type's documentation of its equations ([`doc`]).

pub mod cyclic;
pub mod doc;
pub mod first_order;
pub mod terms;

use proc_macro2::TokenStream;

use crate::derive::reduce::Reductions;
use crate::model::View;

/// Every reduced system of the mode `model`.
pub fn emit(model: &View<'_>, reductions: &Reductions, vis: &syn::Visibility) -> TokenStream {
    let mut tokens = TokenStream::new();
    for r in &reductions.cyclic {
        let rm = &r.reduced.model.view(model.arena);
        let mut api = crate::emit::model::emit(rm, &r.derived, &[rm.dof()]);
        api.extend(crate::emit::system::standalone(rm));
        tokens.extend(cyclic::emit(model, &r.reduced, api, vis));
    }
    for r in &reductions.first_order {
        tokens.extend(first_order::emit(model, r, vis));
    }
    tokens
}
