//! routh's computer-algebra engine.
//!
//! Expressions live in an [`Arena`] as a hash-consed DAG addressed by [`Expr`] handles. All
//! construction is canonical (flattened, sorted, like terms and powers collected, exact
//! [`Rational`] constants folded), so structurally equal expressions share one handle and there
//! is no separate `simplify` pass. On top of that the crate offers differentiation (including
//! forward-mode directional derivatives) and vector calculus (gradients, Jacobians, total time
//! derivatives, dot products), substitution, numeric evaluation, a structural +
//! randomized numeric zero test, printing, and CSE with emission of straight-line Rust code.
//!
//! Everything is deterministic: the same sequence of calls yields the same handles and the
//! same emitted tokens. The engine knows nothing of mechanics or `syn`.
//!
//! Modules: `rational` (exact numbers), `arena` (DAG and hash-consing), `construct` (canonical
//! forms), `pi` (the constant π), `diff` (derivatives), `degree` (polynomial degrees), `horner` (sums with shared factors taken out), `vector` (vector calculus), `geometry` (3-vectors, 3×3 matrices, rotations and angular velocities), `subs` (substitution), `eval` (numerics), `zero` (zero test),
//! `emit` (CSE and code generation), `print` (Unicode / LaTeX).

#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod arena;
mod construct;
mod degree;
mod diff;
mod emit;
mod eval;
mod geometry;
mod horner;
mod pi;
mod print;
mod rational;
mod subs;
mod vector;
mod zero;

pub use arena::{Arena, Expr, Func, Holding, MAX_DEPTH, Node, with_budget};
pub use diff::Directional;
pub use emit::{
    EmitOptions, Emitted, LET_GROUP, OpCount, declared_f64, emit, emit_bound, emit_bound_with, emit_slots, emit_slots_after,
    emit_slots_bound, emit_slots_placed, emit_slots_placed_with,
};
pub use geometry::{Axis, Mat3, Rotation, Turn, Vec3};
pub use rational::Rational;
pub use subs::AtZero;
pub use zero::{MAX_ABS_BRANCHES, ZeroTest};

#[cfg(test)]
mod tests;
