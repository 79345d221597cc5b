//! # routh — mechanical systems compiled from their Lagrangian
//!
//! Write a model struct, its generalized coordinates and its Lagrangian; `#[derive(Mechanics)]`
//! derives the equations of motion symbolically at compile time and emits plain specialised Rust
//! (fixed-size nalgebra types) that the [`runtime`] integrates. A model runs through one builder:
//! `model.run(x0).span(t0..t1)` with what else the run needs — options (or `.rtol`, `.atol`,
//! `.output`, `.scheme`), events, inputs or a sampled control law — then `.go()`
//! ([`runtime::Run`]); a discrete (variational) system steps with
//! `model.run_discrete(x0).step(h).steps(n).go()` ([`runtime::DiscreteRun`]).
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
//! let sol = p.run(x0).span(0.0..5.0).rtol(1e-10).atol(1e-12).go()?;
//! let (t_end, x_end) = sol.last().unwrap();
//! let drift = (p.energy(t_end, x_end) - p.energy(0.0, &x0)).abs();
//! assert!(drift < 1e-7, "energy drift {drift}");
//! # Ok(())
//! # }
//! ```
//!
//! ## The DSL
//!
//! The items of `#[mechanics(...)]` (coordinates, defines, the Lagrangian, bodies and frames,
//! forces, constraints, impacts, modes, symmetries, reductions, …), the impact laws and the
//! expressions are listed in one reference, the documentation of [`Mechanics`] (the repository's
//! `docs/dsl.md`).
//!
//! Symmetries: the lifted generator must annihilate L (else a compile error showing the residual
//! ξᶜ(L)); each gets `<name>_momentum` (J = ∂L/∂q̇·ξ) and `<name>_momentum_rate` (dJ/dt = ⟨Q, ξ⟩),
//! documented with the conservation or balance law and, per impact, whether J is preserved.
//! A reduction generates a model type whose fields are the parameters plus the momenta `mu_<q>`,
//! with the whole API (its Lagrangian is the Routhian), `cyclic_velocities` and runs
//! `.reconstructed(theta0)` that return the full model's trajectory; the full model gets
//! `<type_in_snake_case>(t, x)` to reduce a state and, if it has impacts, runs `.reduced::<Type>()`
//! for hybrid reduction.
//!
//! ```
//! use routh::prelude::*;
//!
//! /// Kepler problem in polar coordinates; the angle is cyclic.
//! #[derive(Mechanics)]
//! #[mechanics(
//!     coordinates(r, phi),
//!     lagrangian = m / 2 * (dot(r).powi(2) + (r * dot(phi)).powi(2)) + k / r,
//!     symmetry(cyclic(phi)),
//!     reduce(routh(phi), name = Radial),
//! )]
//! struct Kepler { m: f64, k: f64 }
//!
//! let kepler = Kepler { m: 1.0, k: 1.0 };
//! let x = kepler.state([1.0, 0.0], [0.0, 1.2]);
//! // The Routhian at μ = m r² φ̇: R = m ṙ²/2 − μ²/(2 m r²) + k/r.
//! let (radial, xr, phi) = kepler.radial(0.0, &x);
//! assert!((radial.mu_phi - 1.2).abs() < 1e-15);
//! let expected = -1.2f64.powi(2) / 2.0 + 1.0;
//! assert!((radial.lagrangian(0.0, &xr) - expected).abs() < 1e-15);
//! assert_eq!(kepler.phi_momentum(0.0, &x), radial.mu_phi);
//! # let _ = phi;
//! ```
//!
//! Constraints: every constraint is a row a·q̇ + b = 0 and the constrained equations
//! M q̈ = f + Aᵀλ, A q̈ + c = 0 are solved as a saddle-point system at run time; the multipliers λ
//! are `constraint_forces`. At compile time the derive proves velocity constraints affine in q̇,
//! rejects identically dependent rows, and reports by a Frobenius test which constraints are
//! integrable (`CONSTRAINT_KINDS`). A run projects onto the constraints after every step.
//!
//! ```
//! use routh::prelude::*;
//!
//! /// A pendulum in Cartesian coordinates: a point mass on a rod (holonomic).
//! #[derive(Mechanics)]
//! #[mechanics(
//!     coordinates(x, y),
//!     lagrangian = m / 2 * (dot(x).powi(2) + dot(y).powi(2)) - m * g * y,
//!     holonomic(rod = x.powi(2) + y.powi(2) - l.powi(2)),
//! )]
//! struct Pendulum { m: f64, g: f64, l: f64 }
//!
//! let p = Pendulum { m: 1.0, g: 9.81, l: 1.0 };
//! // Hanging at rest: the rod's tension balances the weight, Aᵀλ = (0, 2λ y) = (0, m g).
//! let x = p.state([0.0, -1.0], [0.0, 0.0]);
//! assert!(p.accelerations(0.0, &x)?.norm() < 1e-15);
//! assert!((p.constraint_forces(0.0, &x)?[0] + 9.81 / 2.0).abs() < 1e-14);
//! assert_eq!(Pendulum::CONSTRAINT_KINDS, [ConstraintKind::Holonomic]);
//! let sol = p.run(p.state([0.6, -0.8], [0.0, 0.0])).span(0.0..5.0).go()?;
//! assert!(sol.constraints.unwrap().worst.0 < 1e-12); // projected after every step
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Modes: a model with `mode(name, items...)` items has one *view type* per mode,
//! `<Model><Mode><'a>` (e.g. `BallRest`), reached by `model.<mode>()`, with the whole single-model
//! API of that mode (`mass_matrix`, `energy`, `jacobian`, constraint forces, the guards and resets
//! of the transitions leaving it, with their Jacobians). The model itself has `MODES`, one index
//! constant per mode (`Ball::REST`), `<mode>_state(q, qdot)` building the start of a run in that
//! mode (a [`runtime::ModeState`]: the mode and the state, padded to the largest mode's), runs
//! from such a start, and implements
//! [`runtime::HybridSystem`] (with exact Jacobians, guard gradients and reset Jacobians for
//! variational equations). `unilateral(...)` generates such modes for a contact:
//!
//! ```
//! use routh::prelude::*;
//! use routh::runtime::HybridSystem;
//!
//! /// A ball on a floor it can rest on: modes `free` and `floor` are generated.
//! #[derive(Mechanics)]
//! #[mechanics(
//!     coordinates(y),
//!     lagrangian = m / 2 * dot(y).powi(2) - m * g * y,
//!     unilateral(name = floor, guard = y, law = restitution(e)),
//! )]
//! struct Ball { m: f64, g: f64, e: f64 }
//!
//! let ball = Ball { m: 1.0, g: 9.81, e: 0.5 };
//! assert_eq!(Ball::MODES, ["free", "floor"]);
//! let sol = ball.run(ball.free_state([1.0], [0.0])).span(0.0..5.0).go()?;
//! // The bounces accumulate and the ball settles on the floor, where the contact force is m g.
//! assert_eq!(sol.mode_sequence(), vec![Ball::FREE, Ball::FLOOR]);
//! let (t, _, x) = sol.last().unwrap();
//! assert!((ball.floor().constraint_forces(t, x)?[0] - 9.81).abs() < 1e-9);
//! // The hybrid system's reset Jacobian (for saltation matrices) at an impact of the free mode.
//! let impact = &sol.impacts[0];
//! let jac = ball.reset_jacobian(Ball::FREE, impact.guard_index, impact.t, &impact.pre)?;
//! assert!((jac[(1, 1)] + 0.5).abs() < 1e-12); // ẏ⁺ = −e ẏ⁻
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Contact (Herglotz) Lagrangians: `action(z)` declares the action variable, L may depend on it,
//! and the state becomes x = (q, q̇, z) with ż = L. The derive writes the Herglotz equations
//! d/dt ∂L/∂q̇ − ∂L/∂q = ∂L/∂z · ∂L/∂q̇ + Q in full generality, the energy law
//! (`energy_rate`), `lagrangian_dz` and whether z decouples (`ACTION_DECOUPLED`); impacts keep q and
//! z and change only q̇:
//!
//! ```
//! use routh::prelude::*;
//!
//! /// m ẍ + k x = −γ m ẋ as a contact Lagrangian.
//! #[derive(Mechanics)]
//! #[mechanics(coordinates(x), action(z), lagrangian = m / 2 * dot(x).powi(2) - k / 2 * x.powi(2) - gamma * z)]
//! struct Damped { m: f64, k: f64, gamma: f64 }
//!
//! let p = Damped { m: 1.0, k: 4.0, gamma: 0.5 };
//! assert!(Damped::ACTION_DECOUPLED);
//! let sol = p.run(p.state([1.0], [0.0], 0.0)).span(0.0..3.0).options(&Options::default().rtol(1e-10)).go()?;
//! let (t, x) = sol.last().unwrap();
//! // E_L = ½mẋ² + ½kx² + γz decays exactly as e^{−γt} (dE/dt = ∂L/∂z · E).
//! let e0 = p.energy(0.0, &sol.states[0]);
//! assert!((p.energy(t, x) - e0 * (-0.5 * t).exp()).abs() < 1e-8);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Inputs: `input(u, ...)` names control inputs that forces may use. `model.driven(u)` is the model
//! at fixed inputs (a view with the whole API); `linearize(t, x, u)` gives (A, B) from symbolic
//! derivatives, and a run is driven by `.inputs(u)` — constant inputs or a feedback closure of
//! (t, x) — or `.sampled(period, law)`:
//!
//! ```
//! use routh::prelude::*;
//!
//! /// A mass on a spring pushed by the force u.
//! #[derive(Mechanics)]
//! #[mechanics(coordinates(x), input(u), lagrangian = m / 2 * dot(x).powi(2) - k / 2 * x.powi(2), force(x = u))]
//! struct Pushed { m: f64, k: f64 }
//!
//! let p = Pushed { m: 2.0, k: 8.0 };
//! let lin = p.linearize(0.0, &p.state([0.0], [0.0]), [0.0])?;
//! assert_eq!(lin.a[(1, 0)], -4.0); // −k/m
//! assert_eq!(lin.b[(1, 0)], 0.5); // 1/m
//! // A constant push settles (with damping by feedback) at x = u/k.
//! let damped = |_t: f64, x: &SVector<f64, 2>| SVector::<f64, 1>::new(4.0 - 3.0 * x[1]);
//! let sol = p.run(p.state([0.0], [0.0])).span(0.0..30.0).inputs(damped).go()?;
//! assert!((sol.last().unwrap().1[0] - 0.5).abs() < 1e-6);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Expressions are Rust expression syntax:
//! - integer and float literals, converted to **exact** rationals (`0.1` is 1/10);
//! - `+ - * /`, unary `-`, parentheses. `^` is XOR in Rust and is rejected: write `x.powi(2)`;
//! - `powi` (integer literal exponent), `powf`, `sqrt`, `sin`, `cos`, `tan`, `exp`, `ln`, `atan2`,
//!   `sinh`, `cosh`, `tanh`, in method form `x.sin()` or function form `sin(x)`;
//! - names: coordinates, struct fields (the parameters, all `f64`), defines, and time `t`;
//! - `dot(e)`: the total time derivative of an expression of coordinates and time, by the chain rule
//!   (`dot(q)` of a coordinate is its velocity). Write positions, get velocities, as on paper;
//! - vectors `[x, y, z]` and 3×3 matrices, `rot_x/rot_y/rot_z(q)`, `axis_angle(a, q)`, `diag`,
//!   `transpose`, `cross`, `a.dot(b)`, `norm`, components `v[i]`, `m[(i, j)]`, and `omega(R)`, the
//!   body angular velocity vee(RᵀṘ) of a rotation; `define(f(a, b) = ...)` takes arguments.
//!
//! A heavy symmetric top written with a body and its orientation in the state, against the
//! conservation of its vertical angular momentum, proved a symmetry at compile time:
//!
//! ```
//! use routh::prelude::*;
//!
//! #[derive(Mechanics)]
//! #[mechanics(
//!     orientation(b),
//!     body(name = top, mass = m, centre = b * [0, 0, l], frame = b, inertia = diag(a, a, c)),
//!     gravity = [0, 0, -g],
//!     symmetry(vertical = rotation(b, [0, 0, 1])),
//! )]
//! struct Top { m: f64, l: f64, a: f64, c: f64, g: f64 }
//!
//! let top = Top { m: 0.8, l: 0.35, a: 0.021, c: 0.034, g: 9.81 };
//! // Tilted by 0.6 rad about x (quaternion (cos 0.3, sin 0.3, 0, 0)), spinning at 40 rad/s.
//! let x0 = top.state([0.3f64.cos(), 0.3f64.sin(), 0.0, 0.0], [0.0, 0.0, 40.0]);
//! let sol = top.run(x0).span(0.0..2.0).options(&Options::default().rtol(1e-10).atol(1e-12)).go()?;
//! let (t, x) = sol.last().unwrap();
//! assert!((top.vertical_momentum(t, x) - top.vertical_momentum(0.0, &x0)).abs() < 1e-8);
//! assert!((top.energy(t, x) - top.energy(0.0, &x0)).abs() < 1e-8);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Bad models are compile errors pointing at the offending token, with a hint.
//!
//! ## What is generated
//!
//! For a model with n coordinates (state x = (q, q̇) of dimension 2n), inherent items:
//! `DOF`, `STATE_DIM`, `COORDINATES`, `STATE_NAMES` (CSV headers: `Trajectory::write_csv`),
//! `PARAMETERS`, `state(q, qdot)`, `parameter_jacobian` (∂F/∂p, with `sensitivity(p, ...)`), `mass_matrix(t, x)` (M = ∂²L/∂q̇²),
//! `forcing(t, x)` (f with M q̈ = f), `accelerations`, `lagrangian`, `energy` (E = q̇·p − L),
//! `momenta` (p = ∂L/∂q̇), `power` (Q·q̇), `jacobian` (∂F/∂x of x' = F(t, x), from symbolic
//! derivatives — with the `jacobian` item, or for models with modes, impacts, inputs or
//! sensitivities, which need it), `run(x0)`; and implementations of [`runtime::VectorField`] and
//! [`runtime::Simulate`]. Each carries its derived formula in rustdoc; signatures name the state
//! [`State<D>`](State), vectors [`Vector<N>`](Vector) and matrices [`Matrix<R, C>`](Matrix). The
//! guide's chapter *What is generated* (`docs/guide/generated.md`) lists every generated item with
//! its signature.
#![forbid(unsafe_code)]

#[doc = include_str!("../docs/dsl.md")]
pub use routh_macros::Mechanics;
/// The runtime: integrator, events, trajectories, errors.
pub use routh_runtime as runtime;
/// nalgebra, as used by generated code.
pub use routh_runtime::nalgebra;

/// The README's snippets, compiled (and run) by `cargo test --doc`: every `rust` block of it is a
/// doctest, so the README cannot drift from the crate; the guide's chapters below likewise.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;

/// `docs/guide/generated.md`, compiled as doctests.
#[cfg(doctest)]
#[doc = include_str!("../docs/guide/generated.md")]
pub struct GuideGenerated;

/// `docs/guide/bodies.md`, compiled as doctests.
#[cfg(doctest)]
#[doc = include_str!("../docs/guide/bodies.md")]
pub struct GuideBodies;

/// `docs/guide/robots.md`, compiled as doctests.
#[cfg(doctest)]
#[doc = include_str!("../docs/guide/robots.md")]
pub struct GuideRobots;

/// `docs/guide/constraints.md`, compiled as doctests.
#[cfg(doctest)]
#[doc = include_str!("../docs/guide/constraints.md")]
pub struct GuideConstraints;

/// `docs/guide/contact.md`, compiled as doctests.
#[cfg(doctest)]
#[doc = include_str!("../docs/guide/contact.md")]
pub struct GuideContact;

/// `docs/guide/discrete.md`, compiled as doctests.
#[cfg(doctest)]
#[doc = include_str!("../docs/guide/discrete.md")]
pub struct GuideDiscrete;

/// `docs/guide/inputs.md`, compiled as doctests.
#[cfg(doctest)]
#[doc = include_str!("../docs/guide/inputs.md")]
pub struct GuideInputs;

/// `docs/guide/impacts.md`, compiled as doctests.
#[cfg(doctest)]
#[doc = include_str!("../docs/guide/impacts.md")]
pub struct GuideImpacts;

/// `docs/guide/symmetry.md`, compiled as doctests.
#[cfg(doctest)]
#[doc = include_str!("../docs/guide/symmetry.md")]
pub struct GuideSymmetry;

/// `docs/guide/performance.md`, compiled as doctests.
#[cfg(doctest)]
#[doc = include_str!("../docs/guide/performance.md")]
pub struct GuidePerformance;

/// `docs/guide/runtime.md`, compiled as doctests.
#[cfg(doctest)]
#[doc = include_str!("../docs/guide/runtime.md")]
pub struct GuideRuntime;

/// `docs/guide/python.md`, compiled as doctests.
#[cfg(doctest)]
#[doc = include_str!("../docs/guide/python.md")]
pub struct GuidePython;

/// `docs/guide/development.md`, compiled as doctests.
#[cfg(doctest)]
#[doc = include_str!("../docs/guide/development.md")]
pub struct GuideDevelopment;

/// A model's state x = (q, q̇) (with orientations the quaternions' components among q, with an
/// action variable z last) of dimension `D`: what `state(q, qdot)` builds, runs start from and the
/// generated methods take — an nalgebra `SVector<f64, D>`.
pub type State<const D: usize> = nalgebra::SVector<f64, D>;

/// `N` values — velocities, accelerations, momenta, generalized forces, inputs: an nalgebra
/// `SVector<f64, N>`.
pub type Vector<const N: usize> = nalgebra::SVector<f64, N>;

/// An `R × C` matrix — a mass matrix, a Jacobian: an nalgebra `SMatrix<f64, R, C>`.
pub type Matrix<const R: usize, const C: usize> = nalgebra::SMatrix<f64, R, C>;

/// The one door between generated code and the runtime (in the manner of serde's `__private`):
/// the code that `#[derive(Mechanics)]` emits imports `::routh::__private` (or `<path>::__private`
/// with `#[mechanics(crate = path)]`) once, under a local name, and names nothing else of routh, so
/// the runtime's public API can be reorganised without touching the derive. It holds exactly what
/// generated code names (`tests/door.rs` checks that each item is used by an emitter). Not part of
/// the public API: no stability promise.
#[doc(hidden)]
pub mod __private {
    pub use crate::{Matrix, State, Vector};
    pub use routh_runtime::nalgebra::DMatrix;
    pub use routh_runtime::run::discrete::Reduced as DiscreteReduced;
    pub use routh_runtime::run::{Inputs, Plain, Reconstructed, ReducedBy, ZeroOrderHold};
    pub use routh_runtime::trig::sin_cos;
    pub use routh_runtime::{
        Completion, ContactDiscreteSystem, DiscretePlan, DiscreteRun, DiscreteSystem, DiscreteTrajectory, FieldError,
        HybridInputSystem, HybridOptions, HybridReduction, HybridSystem, HybridTrajectory, InputSignal, InputSystem,
        Linearization, MassFactor, MassOperator, MechanicalSystem, ModeState, MomentumJump, Options, OrientedDiscreteSystem,
        Plan, Provenance, Reconstruction, Record, ReducedDiscreteTrajectory, Run, RunError, RunResult, Runs, RunsDiscrete,
        Sampled, SimError, Simulate, SimulateDiscrete, Trajectory, VectorField,
    };

    // What generated code names of the runtime's modules.
    pub mod constrained {
        pub use routh_runtime::constrained::{Constrained, project, with_known_velocities};
    }
    pub mod continuation {
        pub use routh_runtime::continuation::{Branch, ContinuationError, ContinuationOptions, Start, continuation, equilibria};
    }
    pub mod discrete {
        pub use routh_runtime::discrete::{
            ContactInputSystem, ContactMapDerivatives, DiscreteInputSystem, DrivenContactDiscrete, DrivenDiscrete,
            DrivenOrientedDiscrete, MapDerivatives, MomentumLaw, OrientedInputSystem,
        };
    }
    pub mod erased {
        pub use routh_runtime::erased::{
            DiscreteInfo, DiscreteKind, DiscreteRequest, DynModel, FlatDiscreteRun, FlatIlqr, FlatLinearization, FlatRun,
            FlatStep, IlqrRequest, IlqrScheme, JointLimits, ModelInfo, RunRequest, Signal, accelerations, advance_map, arguments,
            contact_step, flat_discrete, flat_reduced, ilqr, ilqr_oriented, ilqr_second_order, ilqr_tangent, ilqr_variational,
            no_inverse_dynamics_jacobian, no_jacobian, no_reduction, no_step_jacobian, no_tangent_linearization, no_tangent_step,
            oriented_advance, oriented_in_chart, oriented_step, output_jacobian_rows, parameters, run, signal, tangent_error,
            variational_step,
        };
    }
    pub mod equilibrium {
        pub use routh_runtime::equilibrium::{FixedPoint, FixedPointError, FixedPointOptions, fixed_point};
    }
    pub mod ilqr {
        pub use routh_runtime::ilqr::{IlqrError, IlqrProblem, IlqrSolution, ilqr_tangent};
    }
    pub mod linearize {
        pub use routh_runtime::linearize::{
            ConstrainedLinearization, LinearizeError, Oriented, Selection, constrained_driven, constrained_with_orientations,
            in_chart, on_manifold, tangent,
        };
    }
    pub mod mechanics {
        pub use routh_runtime::mechanics::{
            ConstraintKind, JointForces, LinkDerivatives, LinkDynamics, LinkFactor, LinkJoint, LinkTopology, Restitution,
            StateLayout, TreeFactor, TreeTopology, accelerations_in_place, add_residual_part, add_tangent_columns, factor_mass,
            finite, inertia_defect, inverse_legendre_after, mass_from_products, pad, pad_matrix, recursive_accelerations,
            restitution, solve_constrained, take, tree,
        };
    }
    pub mod observables {
        pub use routh_runtime::observables::{ModeSamples, Observables, Samples};
    }
    pub mod periodic {
        pub use routh_runtime::periodic::{ModelFamily, ParametricModel};
    }
    pub mod reduction {
        pub use routh_runtime::reduction::{nonholonomic_field, nonholonomic_jacobian};
    }
    pub mod step {
        pub use routh_runtime::step::{
            ContactMap, InputJacobians, SecondOrder, TangentStep, VariationalMap, rk4_step, rk4_tangent_step,
        };
    }
}

/// Everything a model file usually needs.
pub mod prelude {
    pub use crate::nalgebra::{SMatrix, SVector};
    pub use crate::runtime::{
        ConstraintKind, Direction, DiscreteOptions, Event, EventRecord, FieldError, Flow, Hybrid, HybridOptions, HybridStop,
        HybridTrajectory, ImpactRecord, ModeState, MomentumJump, Options, Output, Provenance, Record, RunError, RunResult,
        Sampled, SimError, Simulate, SimulateDiscrete, StopReason, Trajectory, VectorField,
    };
    pub use crate::{Matrix, Mechanics, State, Vector};
}
