//! Lowering: from the parsed items (syn) to the validated [`crate::model`].
//!
//! - [`expr`]: DSL expressions to symbolic expressions (the [`expr::Lowerer`]), with [`value`] for
//!   vectors, matrices and rotations;
//! - [`system`]: the derive input as a whole — parameters, name checks, modes — into a
//!   [`crate::model::System`];
//! - one module per item kind: [`body`] (frames, points, rigid bodies, gravity), [`constraint`] (holonomic and velocity constraints), [`impact`]
//!   (impacts and transitions), [`output`] (observables), [`symmetry`] (symmetries and reductions) with [`quotient`] (a
//!   reduction's quotient map), [`unilateral`]
//!   (unilateral constraints, expanded into the modes of their completed hybrid system).
//!
//! Every function reports into one [`crate::diagnostics::Ctxt`] and continues where it can.

mod body;
mod constraint;
mod contact;
mod discrete;
pub mod expr;
mod impact;
mod oneform;
mod orientation;
mod output;
mod quotient;
mod symmetry;
mod system;
mod unilateral;
pub mod value;

pub use system::system_from_input;
