//! Reductions: each `reduce(...)` of a mode, by its [`ReductionMethod`] (decided once in
//! lowering), into a reduced system of its own:
//!
//! - [`cyclic`]: Routh reduction over cyclic coordinates — the Routhian R^μ as the Lagrangian of
//!   a new model of second order, derived as any other ([`CyclicSystem`]);
//! - [`maggi`]: nonholonomic and Euler–Poincaré reduction — Maggi's equations on a section, the
//!   dropped coordinates proved absent, in shape coordinates of the user's through a proved
//!   [`quotient`] map;
//! - [`rotations`]: Routh reduction by the rotations of an orientation (non-abelian);
//! - [`first_order`]: the form the last two share ([`FirstOrder`]: ṙ = K u, M u̇ = f on x = (r, u),
//!   the dropped positions by quadrature), with what each adds ([`first_order::Terms`]).

pub mod cyclic;
pub mod first_order;
pub mod maggi;
pub mod quotient;
pub mod rotations;

use symbolic::Arena;

pub use first_order::FirstOrder;

use crate::derive::Derived;
use crate::derive::euler_lagrange::{self, Equations};
use crate::derive::symmetry::SymmetryEquations;
use crate::diagnostics::Ctxt;
use crate::model::{Model, ReductionMethod};

/// A Routh-reduced system over cyclic coordinates and what was derived for its model.
pub struct CyclicSystem {
    pub reduced: cyclic::Reduced,
    pub derived: Derived,
}

/// Every reduced system of one mode.
#[derive(Default)]
pub struct Reductions {
    /// Routh's over cyclic coordinates (none for a discrete model: its `routh(...)` reduces the
    /// discrete system, see [`crate::derive::discrete`]).
    pub cyclic: Vec<CyclicSystem>,
    /// The reductions in first-order form on a section: Maggi's and Routh's by rotations.
    pub first_order: Vec<FirstOrder>,
}

/// Derives every reduction of `model` from its equations `eq` and proved `symmetries`; one that
/// does not apply is reported into `cx`.
pub fn derive(model: &Model, arena: &mut Arena, cx: &mut Ctxt, eq: &Equations, symmetries: &[SymmetryEquations]) -> Reductions {
    let mut reductions = Reductions::default();
    // The first-order ones first, then the cyclic ones' models, in one growing arena.
    for red in &model.reductions {
        match red.method {
            ReductionMethod::Maggi => reductions.first_order.extend(maggi::reduce(model, arena, cx, eq, red, symmetries)),
            ReductionMethod::Rotations => reductions.first_order.extend(rotations::reduce(model, arena, cx, eq, red)),
            ReductionMethod::Cyclic => {}
        }
    }
    // In a model with `discrete(...)`, `reduce(routh(...))` reduces the discrete system (forces
    // allowed: the forced discrete reduction).
    if model.discretization.is_some() {
        return reductions;
    }
    for red in model.reductions.iter().filter(|r| r.method == ReductionMethod::Cyclic) {
        // The reduced model is built in the same arena (the workspace grows; nothing is cloned).
        let Some(reduced) = cyclic::reduce(model, arena, cx, eq, red) else { continue };
        let equations = euler_lagrange::derive(&reduced.model, arena);
        reductions.cyclic.push(CyclicSystem { reduced, derived: Derived::equations_only(equations) });
    }
    reductions
}
