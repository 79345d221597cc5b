//! Emission: from the derived equations to Rust items (quote). One module per concept, each
//! reading the model and its [`Derived`] results:
//!
//! - [`model`]: a model's own items — consts, `state`, energies, momenta, the `VectorField` impl —
//!   and the assembly of the others;
//! - [`form`]: the mass operator of the mode's dynamics form — dense, or along its tree — which the
//!   dynamics, constraint and impact emitters ask for instead of M;
//! - [`dynamics`]: the dynamics contract — M and f, the accelerations, the field Jacobian and
//!   sensitivities;
//! - [`constraint`], [`impact`], [`symmetry`], [`discrete`]: the items of each concept;
//! - [`reduce`]: the reduced systems, each a type of its own;
//! - [`system`] and [`hybrid`]: how the model simulates as a whole (modes, `HybridSystem`), and
//!   [`run`]: its `run()` and the runtime's `Simulate`/`Runs` impls, [`checks`]: what a run checks
//!   before it starts (parameters, the bodies' requirements, unit quaternions); [`erased`]: the
//!   model behind a pointer (`DynModel`), for bindings and drivers that take any model;
//! - [`door`]: the one constant the impls stand in, importing the runtime's door once;
//! - [`codegen`]: the shared helpers (symbols as tokens, straight-line bodies, matrices);
//! - [`fallback`]: stubs of the API beside a model's errors.
//!
//! [`mode`] emits one mode with its reductions, [`system`]'s `items` what belongs to the system;
//! [`shared`] turns a mode view's methods that an earlier mode has word for word into forwards.

pub mod checks;
pub mod codegen;
pub mod constraint;
pub mod discrete;
pub mod door;
pub mod dynamics;
pub mod erased;
pub mod fallback;
pub mod form;
pub mod hybrid;
pub mod impact;
pub mod looped;
pub mod model;
pub mod reduce;
pub mod run;
pub mod shared;
pub mod symmetry;
pub mod system;

use proc_macro2::TokenStream;

use crate::derive::Derived;
use crate::model::View;

/// The items of one mode: its own, its energy derivatives (hybrid systems), then each reduced
/// system with its whole API. `dims[k]` is the state dimension of mode k of the system.
pub fn mode(model: &View<'_>, derived: &Derived, dims: &[usize], vis: &syn::Visibility) -> TokenStream {
    let mut tokens = model::emit(model, derived, dims);
    match &derived.energy {
        Some(crate::derive::EnergyDerivatives::Expanded(energy)) => tokens.extend(model::energy_derivatives(model, energy)),
        Some(crate::derive::EnergyDerivatives::AlongTree(energy)) => {
            tokens.extend(model::energy_derivatives_along_tree(model, energy))
        }
        None => {}
    }
    tokens.extend(reduce::emit(model, &derived.reductions, vis));
    tokens
}
