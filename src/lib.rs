//! # routh — mechanical systems compiled from their Lagrangian
//!
//! Write a model struct, its generalized coordinates and its Lagrangian; `#[derive(Mechanics)]`
//! derives the equations of motion symbolically at compile time and emits plain specialised Rust
//! (fixed-size nalgebra types) that the [`runtime`] integrates.
//!
//! ```
//! use routh::prelude::*;
//!
//! /// Planar double pendulum with viscous joint damping.
//! #[derive(Mechanics)]
//! #[mechanics(
//!     coordinates(th1, th2),
//!     define(
//!         x1 = l1 * th1.sin(),           y1 = -l1 * th1.cos(),
//!         x2 = x1 + l2 * th2.sin(),      y2 = y1 - l2 * th2.cos(),
//!     ),
//!     lagrangian = m1 / 2 * (dot(x1).powi(2) + dot(y1).powi(2))
//!                + m2 / 2 * (dot(x2).powi(2) + dot(y2).powi(2))
//!                - g * (m1 * y1 + m2 * y2),
//!     force(th1 = -b * dot(th1), th2 = -b * (dot(th2) - dot(th1))),
//! )]
//! pub struct DoublePendulum { pub m1: f64, pub m2: f64, pub l1: f64, pub l2: f64, pub g: f64, pub b: f64 }
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let p = DoublePendulum { m1: 1.0, m2: 1.0, l1: 1.0, l2: 1.0, g: 9.81, b: 0.0 };
//! let x0 = p.state([1.0, 0.5], [0.0, 0.0]);
//! let sol = p.simulate(x0, 0.0..5.0, &Options::default().rtol(1e-10).atol(1e-12))?;
//! let (t_end, x_end) = sol.last().unwrap();
//! let drift = (p.energy(t_end, x_end) - p.energy(0.0, &x0)).abs();
//! assert!(drift < 1e-7, "energy drift {drift}");
//! # Ok(())
//! # }
//! ```
//!
//! ## The DSL
//!
//! `#[mechanics(...)]` takes these items, separated by commas:
//!
//! | item | meaning |
//! |---|---|
//! | `coordinates(q1, q2, ...)` | the generalized coordinates, in state order |
//! | `define(name = expr, ...)` | named intermediate expressions, usable in any later expression (any order; cycles are errors) |
//! | `lagrangian = expr` | L(t, q, q̇) |
//! | `force(q1 = expr, ...)` | components Qᵢ of the external force one-form Σ Qᵢ dqᵢ; they enter as d/dt ∂L/∂q̇ − ∂L/∂q = Q |
//!
//! Expressions are Rust expression syntax:
//! - integer and float literals, converted to **exact** rationals (`0.1` is 1/10);
//! - `+ - * /`, unary `-`, parentheses. `^` is XOR in Rust and is rejected: write `x.powi(2)`;
//! - `powi` (integer literal exponent), `powf`, `sqrt`, `sin`, `cos`, `tan`, `exp`, `ln`, `atan2`,
//!   `sinh`, `cosh`, `tanh`, in method form `x.sin()` or function form `sin(x)`;
//! - names: coordinates, struct fields (the parameters, all `f64`), defines, and time `t`;
//! - `dot(e)`: the total time derivative of an expression of coordinates and time, by the chain rule
//!   (`dot(q)` of a coordinate is its velocity). Write positions, get velocities, as on paper.
//!
//! Bad models are compile errors pointing at the offending token, with a hint.
//!
//! ## What is generated
//!
//! For a model with n coordinates (state x = (q, q̇) of dimension 2n), inherent items:
//! `DOF`, `STATE_DIM`, `COORDINATES`, `state(q, qdot)`, `mass_matrix(t, x)` (M = ∂²L/∂q̇²),
//! `forcing(t, x)` (f with M q̈ = f), `accelerations`, `lagrangian`, `energy` (E = q̇·p − L),
//! `momenta` (p = ∂L/∂q̇), `power` (Q·q̇), `jacobian` (∂F/∂x of x' = F(t, x), from symbolic
//! derivatives), `simulate` and `simulate_with_events`; and an implementation of
//! [`runtime::VectorField`]. Each carries its derived formula in rustdoc.
#![forbid(unsafe_code)]

pub use routh_macros::Mechanics;
/// The runtime: integrator, events, trajectories, errors.
pub use routh_runtime as runtime;
/// nalgebra, as used by generated code.
pub use routh_runtime::nalgebra;

/// Everything a model file usually needs.
pub mod prelude {
    pub use crate::Mechanics;
    pub use crate::nalgebra::{SMatrix, SVector};
    pub use crate::runtime::{
        Direction, Event, EventRecord, FieldError, Options, Output, SimError, StopReason, Trajectory, VectorField,
    };
}
