//! Hybrid simulation: impacts, resets and switching between modes.
//!
//! A [`HybridSystem`] has *modes*, each with its own vector field on a common state
//! `x ∈ ℝᴰ` (a mode with fewer coordinates uses a prefix of `x` and returns `0` for the unused
//! entries, which therefore keep their values), and in each mode a set of *unilateral guards*
//! `h(t, x) ≥ 0`. When the trajectory crosses a guard from `h > 0` to `h < 0` — an impact, or a
//! switching surface — the guard's *reset* maps the pre-impact state to the post-impact state,
//! possibly in another mode (a chart change). [`Plan::hybrid`](crate::Plan::hybrid) integrates such a system.
//!
//! # Within a mode
//!
//! The mode's field is integrated with the Dormand–Prince stepper and step-size controller of
//! [`Plan::integrate`](crate::Plan::integrate) (same tolerances, [`Options`](crate::Options)). Every guard is a terminal event with
//! [`crate::Direction::Falling`], located on the dense output to
//! [`Options::event_tolerance`](crate::Options::event_tolerance) (`~1e-12`) in `t`, with the double-crossing safeguard of
//! [`crate::ode::events`].
//!
//! **Guard-resolution step control.** The ODE error control only looks at the state: a guard
//! with fast dynamics of its own — the end of a spinning rod, `h = y − (L/2) sin α` with
//! `α̇ ≫ ẏ`, or an explicitly time-dependent surface — can oscillate many times within one
//! step of a trivially integrable state, and dip below zero and back between the samples the
//! event search looks at. So each step is also checked against the guards: `h` is evaluated at
//! `θ = 0, ⅛, …, 1` on the dense output and the quartic through the even samples is compared
//! with the odd ones. The mismatch `d` must be at most
//! `max(η · (max h − min h) + contact_tolerance, ¼ · min |h|)` (the second term only where
//! the three samples of a quarter step are strictly of one sign, i.e. where the guard stays
//! away from zero); `η` is [`HybridOptions::guard_resolution`]. The ratio enters the step-size
//! controller like the ODE error (the larger of the two counts), so steps shrink to resolve a
//! guard only near contact and a rejected check is a rejected step in [`Stats`]. Steps shorter
//! than `64 · max(event_tolerance, minimal step)` always pass, so a guard with a kink or a jump
//! costs a few rejected steps, never a failure.
//!
//! **Non-finite guards.** A NaN or infinite guard value at one of these samples rejects the
//! step and halves it (a guard may be undefined deep on the inadmissible side, where an
//! overshooting trial step lands); if that persists down to the minimal step the result is
//! [`SimError::NonFiniteGuard`]. At the start, after a reset and at a located crossing, a
//! non-finite guard value or rate is [`SimError::NonFiniteGuard`] at once. (Inside the event
//! location itself a NaN counts as `0`, as for [`crate::Event`]s.)
//!
//! # Impacts and resets
//!
//! When a guard `g` crossing is located at `(t, x⁻)`, its approach rate
//! `ḣ = `[`HybridSystem::guard_rate`] is checked: if `ḣ < −ε_ḣ` the crossing is an impact and
//! the reset is applied; otherwise it is **grazing** (the trajectory touched `h = 0` tangentially
//! and the located point is numerically just below zero): no reset, no impact record,
//! integration simply continues from `(t, x⁻)` — an impact with a non-negative approach rate is
//! never produced. The floor `ε_ḣ = 64 ε (1 + ‖x‖∞)` (ε the machine epsilon) separates an
//! approach from the round-off of a rate that is zero: e.g. just after a release by a multiplier
//! (a liftoff), where the guard of the released contact sits at 0 with a rate that is 0 up to
//! rounding and the motion leaves it only at third order. A tangential touch whose numerical
//! solution dips below zero gets a small negative rate — a double zero located with an error δ
//! in h has the rate √δ, 4e-8 for δ = 1e-15 — so a crossing is grazing too when the guard curves
//! back up (ḧ > 0) and the parabola's deepest point ḣ²/(2ḧ) lies within
//! [`HybridOptions::contact_tolerance`] of the surface.
//!
//! After a reset — and at the initial time — the state sits on one or more guards and the
//! *contact resolution* runs at that instant. A guard is **in contact** when
//! `h ≤ contact_tolerance + 4 · event_tolerance · |ḣ|` (within the contact tolerance in `h`,
//! or within the location tolerance in `t`). The guards of the current mode are scanned in
//! index order:
//!
//! * a guard with `h` below minus that tolerance — with `|ḣ|` the largest approach rate seen
//!   at this instant, before or after a reset, since a located crossing lies up to the location
//!   tolerance beyond the surface — is [`SimError::GuardViolated`] (the initial state or a reset
//!   put the state on the wrong side); NaN values are [`SimError::NonFiniteGuard`];
//! * the first guard in contact and still approaching (`ḣ < 0`) gets its reset applied at the
//!   same time, and the scan starts again from guard 0 in the (possibly new) mode.
//!
//! So **simultaneous impacts** (guards crossing within the event tolerance of each other, e.g. a
//! ball hitting a corner) are handled deterministically: the guard located first (ties: lower
//! index) fires, then the others in index order, each only if it is still approaching after the
//! previous resets. Every reset is an [`ImpactRecord`]. The resolution stops with
//! [`HybridStop::Stuck`] when a reset leaves the state approaching the very guard it was
//! applied for (in the same mode) — e.g. a plastic reset under a force pressing into the
//! surface, where the contact persists and a pure impact model cannot continue — or when more
//! than [`HybridOptions::max_resets_per_instant`] resets would be needed at one instant.
//! [`HybridOptions::max_impacts`] bounds the total: the reset that would exceed it is not
//! applied and the simulation ends with [`HybridStop::ImpactLimit`].
//!
//! **Arming.** A guard that is in contact but not approaching is not fired again at the
//! restart time: a crossing is only reported once `h` has been strictly positive (the event
//! rules of [`crate::ode::events`]: a value of exactly zero has no side, a negative one must first
//! become positive). For a guard leaving contact (`h ≤ 0` and `ḣ > ε_ḣ` at the restart) the
//! first step is shortened until `h` is positive at its first event sample, so that even a tiny
//! bounce — up and back down within a fraction of the step the integrator would like to take —
//! is seen (down to steps of `64 · max(event_tolerance, minimal step)`). A rate within `ε_ḣ` of
//! zero is at rest, whatever its sign: a plastic reset or a projection onto the contact leaves
//! the normal velocity it zeroes as a sum of products, ±10⁻¹⁶ rather than 0, and a step shortened
//! for a "bounce" of that rate lands where `h` is its own rounding (a guard computed through a
//! chain of links changes sign there), which could report a second landing a fraction of a
//! nanosecond later where an exact zero settles at once. But a state must never
//! silently sink into `h < 0`: for every guard with `h ≤ 0` at the restart a second event
//! watches `h` falling a further `contact_tolerance` below its restart value. If it fires in a
//! step where the guard itself did not cross (e.g. `ḣ = 0` after a plastic reset and the flow
//! pushes the state into the surface, or a bounce too small for the tolerances to resolve),
//! the contact persisted: the simulation ends with [`HybridStop::Stuck`] at the restart time,
//! the post-reset state being the last sample.
//!
//! Hybrid simulation runs forward in time only (resets are not invertible).
//!
//! # Zeno behaviour
//!
//! Impact instants are fed to the detector of [`crate::hybrid::zeno`]; when the inter-impact intervals
//! shrink geometrically (or fall below a floor) the simulation ends with [`HybridStop::Zeno`],
//! reporting the accumulation time estimated from the geometric tail.
//!
//! **Completion.** A system can instead continue past the accumulation
//! ([`HybridSystem::zeno_completion`], generated from `transition(a -> b, zeno = <impact>, ...)`):
//! typically into a mode where the contact is held as a constraint, so a bouncing ball comes to
//! rest and stays until the contact force would pull. The completing reset is applied to the
//! state after the last impact, the result is carried through the completing mode over the rest
//! of the tail to the estimated accumulation time, and the run continues from there (one
//! [`ImpactRecord`] at the accumulation time, whose `pre` is the state after the last impact;
//! output times inside the unresolved tail are skipped). [`ZenoOptions::complete`](crate::hybrid::zeno::ZenoOptions::complete) turns this off.
//!
//! # Output
//!
//! Samples follow [`Options::output`](crate::Options::output): after every accepted step ([`crate::Output::Steps`],
//! starting with the initial state), or at the requested times, interpolated with the dense
//! output of the mode active at that time ([`crate::Output::Times`],
//! [`crate::Output::Interval`]). In every output mode the pre- and post-impact states of each
//! impact are samples at the impact time (so plots show the jump; a requested time equal to an
//! impact time is represented by these two samples), and [`HybridTrajectory::modes`] gives the
//! mode of every sample. With [`Options::dense`](crate::Options::dense) the dense output of every step is kept with its
//! mode, and [`HybridTrajectory::at`] evaluates the run at any time. [`Stats`] are summed over all
//! segments, and [`Options::max_steps`](crate::Options::max_steps) bounds the step attempts of the whole simulation.
//!
//! # Example: a bouncing ball
//!
//! ```
//! use routh_runtime::nalgebra::Vector2;
//! use routh_runtime::{FieldError, Hybrid, HybridOptions, HybridStop, HybridSystem, ModeState, Simulate};
//!
//! /// Height and vertical velocity; floor at y = 0 with restitution e.
//! struct Ball { g: f64, e: f64 }
//!
//! impl HybridSystem<2> for Ball {
//!     fn mode_name(&self, _mode: usize) -> &'static str { "flight" }
//!     fn mode_field(&self, _m: usize, _t: f64, x: &Vector2<f64>) -> Result<Vector2<f64>, FieldError> {
//!         Ok(Vector2::new(x[1], -self.g))
//!     }
//!     fn guard_count(&self, _mode: usize) -> usize { 1 }
//!     fn guard_name(&self, _mode: usize, _guard: usize) -> &'static str { "floor" }
//!     fn guard(&self, _m: usize, _g: usize, _t: f64, x: &Vector2<f64>) -> f64 { x[0] }
//!     fn guard_rate(&self, _m: usize, _g: usize, _t: f64, x: &Vector2<f64>) -> f64 { x[1] }
//!     fn reset(&self, m: usize, _g: usize, _t: f64, x: &Vector2<f64>)
//!         -> Result<(usize, Vector2<f64>), FieldError> {
//!         Ok((m, Vector2::new(x[0], -self.e * x[1])))
//!     }
//!     fn mode_energy(&self, _m: usize, _t: f64, x: &Vector2<f64>) -> f64 {
//!         0.5 * x[1] * x[1] + self.g * x[0]
//!     }
//! }
//!
//! let ball = Ball { g: 9.81, e: 0.8 };
//! let traj = Hybrid(&ball).run(ModeState::new(0, Vector2::new(1.0, 0.0))).span(0.0..10.0).go()?;
//! let t1 = (2.0 / 9.81f64).sqrt();
//! assert!((traj.impacts[0].t - t1).abs() < 1e-9);
//! // Each impact loses the fraction 1 − e² of the kinetic energy.
//! assert!((traj.impacts[0].energy_jump() + (1.0 - 0.64) * 9.81).abs() < 1e-8);
//! // The bounces accumulate at t1 (1 + e)/(1 − e).
//! let HybridStop::Zeno { t_accumulation, .. } = traj.stop else { panic!("{:?}", traj.stop) };
//! assert!((t_accumulation - t1 * 9.0).abs() < 1e-8);
//! # Ok::<(), routh_runtime::SimError>(())
//! ```

mod contact;
pub mod driven;
mod guard_control;
mod options;
mod records;
pub mod reduction;
mod segment;
pub mod zeno;

use std::ops::Range;

use nalgebra::{SMatrix, SVector};

use crate::error::{FieldError, RunError, RunResult, SimError};
use crate::hybrid::zeno::ZenoMonitor;
use crate::ode::events::Event;
use crate::ode::options::Schedule;
use crate::ode::trajectory::{ConstraintReport, Stats};

pub use driven::HybridInputSystem;
pub use options::HybridOptions;
use records::Samples;
pub use records::{HybridStop, HybridTrajectory, ImpactRecord};
use segment::SegmentEnd;

/// Whether a guard's rate at `x` is an approach (`ḣ < −ε_ḣ`, see the [module docs](self)) rather
/// than zero up to rounding.
pub(crate) fn approaching<const D: usize>(rate: f64, x: &SVector<f64, D>) -> bool {
    rate < -rate_floor(x)
}

/// Whether a guard's rate at `x` leaves its surface (`ḣ > ε_ḣ`) rather than being zero up to
/// rounding: the mirror of [`approaching`].
pub(crate) fn receding<const D: usize>(rate: f64, x: &SVector<f64, D>) -> bool {
    rate > rate_floor(x)
}

/// `ε_ḣ = 64 ε (1 + ‖x‖∞)`: the size of a zero rate's rounding at `x`.
fn rate_floor<const D: usize>(x: &SVector<f64, D>) -> f64 {
    64.0 * f64::EPSILON * (1.0 + x.amax())
}

/// A hybrid system: modes with their own vector fields on a common (padded) state, unilateral
/// guards `h(t, x) ≥ 0` and resets applied when a guard is crossed from `h > 0` to `h < 0`.
///
/// See the [module docs](self) for the semantics and an example. Implementations must not
/// panic; failures are reported through [`FieldError`]; non-finite guard values are treated as
/// described under *Non-finite guards* in the module docs.
pub trait HybridSystem<const D: usize> {
    /// Number of modes (default `1`); modes are `0..mode_count()`.
    fn mode_count(&self) -> usize {
        1
    }
    /// Name of `mode`.
    fn mode_name(&self, mode: usize) -> &'static str;
    /// The vector field `x' = F_mode(t, x)`. Entries of `x` the mode does not use must get a
    /// zero derivative.
    ///
    /// # Errors
    /// A [`FieldError`] if the field cannot be evaluated.
    fn mode_field(&self, mode: usize, t: f64, x: &SVector<f64, D>) -> Result<SVector<f64, D>, FieldError>;
    /// Number of guards active in `mode`.
    fn guard_count(&self, mode: usize) -> usize;
    /// Name of guard `guard` of `mode`.
    fn guard_name(&self, mode: usize, guard: usize) -> &'static str;
    /// `h(t, x)`; the admissible side is `h ≥ 0`.
    fn guard(&self, mode: usize, guard: usize, t: f64, x: &SVector<f64, D>) -> f64;
    /// `dh/dt = ∇h·q̇ + ∂h/∂t` (the approach velocity; negative when approaching).
    fn guard_rate(&self, mode: usize, guard: usize, t: f64, x: &SVector<f64, D>) -> f64;
    /// The reset of `guard` at `(t, x)`: the new mode and state.
    ///
    /// # Errors
    /// A [`FieldError`] if the post-impact state cannot be computed (e.g. a singular mass
    /// matrix).
    fn reset(&self, mode: usize, guard: usize, t: f64, x: &SVector<f64, D>) -> Result<(usize, SVector<f64, D>), FieldError>;
    /// Energy in `mode`, used to record energy jumps at impacts.
    fn mode_energy(&self, mode: usize, t: f64, x: &SVector<f64, D>) -> f64;

    /// The projection of `x` onto `mode`'s constraints, for drift control after every step when
    /// [`Options::projection`](crate::Options::projection) is on; `None` (the default) for a
    /// mode without constraints. Generated models project with the kinetic metric
    /// ([`crate::mechanics::constrained::project`]).
    ///
    /// # Errors
    /// A [`FieldError`] if the projection is singular.
    fn project(&self, mode: usize, t: f64, x: &SVector<f64, D>) -> Option<Result<SVector<f64, D>, FieldError>> {
        let _ = (mode, t, x);
        None
    }

    /// The residuals of `mode`'s constraints at `x`: the largest |f(t, q)| of its holonomic rows
    /// and the largest |A q̇ + b| of all rows, for the run's
    /// [`crate::ConstraintReport`]; `None` (the default) for a mode without
    /// constraints.
    fn constraint_residuals(&self, mode: usize, t: f64, x: &SVector<f64, D>) -> Option<(f64, f64)> {
        let _ = (mode, t, x);
        None
    }

    /// The multipliers of `mode`'s constraints at `x`, with their names (generated models: the
    /// mode's `constraint_forces` and `CONSTRAINTS`); empty (the default) for a mode without
    /// constraints or where they cannot be evaluated. Read when a run gets stuck right after a
    /// transition, to say which forces the mode it left still carried
    /// ([`HybridStop::Stuck`]).
    fn constraint_multipliers(&self, mode: usize, t: f64, x: &SVector<f64, D>) -> Vec<(&'static str, f64)> {
        let _ = (mode, t, x);
        Vec::new()
    }

    /// The completion of an accumulation (Zeno) of `guard`'s impacts in `mode`, at the state `x`
    /// after the last impact: the name of the completing transition, the mode to continue in and
    /// its state (e.g. the mode in which the contact is held, with the state projected onto it).
    /// `None` (the default) ends the simulation with [`HybridStop::Zeno`]. See *Zeno behaviour*
    /// in the module docs.
    ///
    /// # Errors
    /// A [`FieldError`] from the completing transition's reset.
    fn zeno_completion(
        &self,
        mode: usize,
        guard: usize,
        t: f64,
        x: &SVector<f64, D>,
    ) -> Option<Result<Completion<D>, FieldError>> {
        let _ = (mode, guard, t, x);
        None
    }

    /// Whether the system is autonomous — no mode's field, guard, reset or projection depends on
    /// time — when that is known: periodic-orbit problems ([`crate::analysis::periodic`]) need it
    /// and refuse `Some(false)`. Generated systems know it (the time `t` appears in their equations
    /// or not); the default is `None`, unknown.
    fn is_autonomous(&self) -> Option<bool> {
        None
    }

    /// The Jacobian `∂F/∂x` of `mode`'s field (variational equations, monodromy matrices).
    /// Generated systems return the exact, symbolically derived one; the default is central
    /// finite differences ([`crate::jacobian_fd`]).
    ///
    /// # Errors
    /// A [`FieldError`] from the field.
    fn mode_jacobian(&self, mode: usize, t: f64, x: &SVector<f64, D>) -> Result<SMatrix<f64, D, D>, FieldError> {
        crate::ode::field::jacobian_fd(&segment::ModeField { sys: self, mode }, t, x, crate::ode::field::FD_STEP)
    }

    /// The dimension of `mode`'s own state: the mode uses the prefix `x[..n]` of the padded
    /// state (default `D`; generated systems give each mode's chart dimension). Periodic-orbit
    /// problems ([`crate::analysis::periodic::MultipleShooting`]) take only these entries as unknowns.
    fn mode_dimension(&self, mode: usize) -> usize {
        let _ = mode;
        D
    }

    /// The gradient `∇H` of [`mode_energy`](Self::mode_energy) with respect to the state (the
    /// dissipative embedding f̃ = f + ξ∇H of periodic-orbit continuation). Generated systems
    /// return the exact one; the default is central finite differences.
    fn mode_energy_gradient(&self, mode: usize, t: f64, x: &SVector<f64, D>) -> SVector<f64, D> {
        crate::ode::field::gradient_fd(|y| self.mode_energy(mode, t, y), x)
    }

    /// The Hessian `∇²H` of [`mode_energy`](Self::mode_energy) (the variational equations of the
    /// embedding). Generated systems return the exact one; the default is central finite
    /// differences of [`mode_energy_gradient`](Self::mode_energy_gradient).
    fn mode_energy_hessian(&self, mode: usize, t: f64, x: &SVector<f64, D>) -> SMatrix<f64, D, D> {
        let gradient =
            |_t: f64, y: &SVector<f64, D>| -> Result<SVector<f64, D>, FieldError> { Ok(self.mode_energy_gradient(mode, t, y)) };
        crate::ode::field::jacobian_fd(&gradient, t, x, crate::ode::field::FD_STEP)
            .unwrap_or_else(|_| SMatrix::from_element(f64::NAN))
    }

    /// The gradient `∂h/∂x` of a guard with respect to the whole state (saltation matrices).
    /// Generated systems return the exact one; the default is central finite differences.
    fn guard_gradient(&self, mode: usize, guard: usize, t: f64, x: &SVector<f64, D>) -> SVector<f64, D> {
        crate::ode::field::gradient_fd(|y| self.guard(mode, guard, t, y), x)
    }

    /// The Jacobian `∂Δ/∂x` of a guard's reset (rows: the post-reset state, in the padded layout
    /// of the target mode). Generated systems return the exact one; the default is central finite
    /// differences.
    ///
    /// # Errors
    /// A [`FieldError`] from the reset.
    fn reset_jacobian(&self, mode: usize, guard: usize, t: f64, x: &SVector<f64, D>) -> Result<SMatrix<f64, D, D>, FieldError> {
        let reset = |_t: f64, y: &SVector<f64, D>| self.reset(mode, guard, t, y).map(|(_, post)| post);
        crate::ode::field::jacobian_fd(&reset, t, x, crate::ode::field::FD_STEP)
    }
}

/// The continuation of a Zeno accumulation ([`HybridSystem::zeno_completion`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Completion<const D: usize> {
    /// Name of the completing transition.
    pub transition: &'static str,
    /// The mode to continue in.
    pub mode: usize,
    /// The state to continue from.
    pub state: SVector<f64, D>,
}

impl<const D: usize> Completion<D> {
    /// A completion by `transition` into `mode` at `state`.
    pub fn new(transition: &'static str, mode: usize, state: SVector<f64, D>) -> Self {
        Completion { transition, mode, state }
    }
}

/// The start of a run in one of several modes: the mode's index (the model's mode constant, e.g.
/// `Ball::FREE`) and the state, padded to the largest mode's dimension. Generated models build it
/// with `<mode>_state(q, qdot)`, which names the mode.
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ModeState<const D: usize> {
    /// The mode.
    pub mode: usize,
    /// The state.
    #[cfg_attr(feature = "serde", serde(with = "crate::serde_floats"))]
    pub state: SVector<f64, D>,
}

impl<const D: usize> ModeState<D> {
    /// The state `state` in mode `mode`.
    #[must_use]
    pub fn new(mode: usize, state: SVector<f64, D>) -> Self {
        ModeState { mode, state }
    }
}

/// What a hybrid run starts from: a [`ModeState`], or the state of a model with one mode.
pub trait HybridStart<const D: usize>: Clone {
    /// The mode and the state.
    fn mode_state(self) -> ModeState<D>;
    /// The mode, and the state to change in place (a start's quaternions scaled to unit length).
    fn mode_state_mut(&mut self) -> (usize, &mut SVector<f64, D>);
}

impl<const D: usize> HybridStart<D> for ModeState<D> {
    fn mode_state(self) -> ModeState<D> {
        self
    }
    fn mode_state_mut(&mut self) -> (usize, &mut SVector<f64, D>) {
        (self.mode, &mut self.state)
    }
}

/// The state of a model with one mode (mode 0).
impl<const D: usize> HybridStart<D> for SVector<f64, D> {
    fn mode_state(self) -> ModeState<D> {
        ModeState { mode: 0, state: self }
    }
    fn mode_state_mut(&mut self) -> (usize, &mut SVector<f64, D>) {
        (0, self)
    }
}

/// Simulate the hybrid system `sys` from `(t_span.start, x0)` in `mode` to `t_span.end`.
///
/// See the [module docs](self) for the semantics (impacts, simultaneous impacts, grazing,
/// arming, Zeno, output) and an example.
///
/// # Errors
/// * [`SimError::InvalidOptions`]; [`SimError::InvalidTimeSpan`] for non-finite end points or
///   a backward span (resets are not invertible: hybrid simulation runs forward only);
///   [`SimError::InvalidInitialState`] for a non-finite `x0`; [`SimError::InvalidMode`] for a
///   mode out of range (initial or returned by a reset);
/// * [`SimError::GuardViolated`] if `x0` (or a post-reset state) is on the wrong side of a
///   guard, [`SimError::NonFiniteGuard`] for NaN/∞ guard values or rates;
/// * [`SimError::ResetFailed`] if a reset returns a non-finite state or
///   [`FieldError::NonFinite`]; [`SimError::SingularMassMatrix`] from a field or a reset;
/// * the integration errors of [`Plan::integrate`](crate::Plan::integrate) (`NonFiniteState`,
///   `StepSizeUnderflow`, `StepLimit`).
///
/// Zeno behaviour, the impact limit and persistent contact are not errors: they end the
/// simulation with the corresponding [`HybridStop`] and the trajectory so far. The errors above,
/// once a step was taken or an impact applied, come with the trajectory so far
/// ([`crate::RunError::partial`], its stop [`HybridStop::Failed`]); with
/// [`Options::keep_partial`](crate::Options::keep_partial) in [`HybridOptions::ode`] it is
/// returned as `Ok`.
pub(crate) fn simulate_hybrid<S, const D: usize>(
    sys: &S,
    mode: usize,
    x0: SVector<f64, D>,
    t_span: Range<f64>,
    options: &HybridOptions,
) -> RunResult<HybridTrajectory<D>>
where
    S: HybridSystem<D> + ?Sized,
{
    simulate_hybrid_with_events(sys, mode, x0, t_span, &[], options)
}

/// [`Plan::hybrid`](crate::Plan::hybrid) with user events: each `g(t, x)` (in any mode) is located on the dense
/// output of the flow as in [`Plan::integrate`](crate::Plan::integrate), recorded in [`HybridTrajectory::events`]
/// (their `index` is the position in `events`), and a terminal one ends the run with
/// [`HybridStop::Event`] and its state as the last sample. Events are crossings *during a flow*:
/// a reset that jumps across a zero of `g` is not a crossing (compare the impact records), and
/// an event at the very start of a segment is not reported.
///
/// # Errors
/// As [`Plan::hybrid`](crate::Plan::hybrid).
pub(crate) fn simulate_hybrid_with_events<S, const D: usize>(
    sys: &S,
    mode: usize,
    x0: SVector<f64, D>,
    t_span: Range<f64>,
    events: &[Event<'_, D>],
    options: &HybridOptions,
) -> RunResult<HybridTrajectory<D>>
where
    S: HybridSystem<D> + ?Sized,
{
    options.validate()?;
    let (t0, t1) = crate::ode::options::check_start(&t_span, x0.as_slice(), true)?;
    check_mode(sys, mode)?;
    let schedule = Schedule::new(&options.ode.output, t0, t1, 1.0, (D + 2) * 8, options.ode.max_output_bytes)?;
    let mut run = Run::new(sys, options, events, schedule, (t0, t1, mode, x0));

    // A start off the mode's constraints is reported and projected, as in smooth runs.
    let mut x0 = x0;
    if let Some(initial) = sys.constraint_residuals(mode, t0, &x0) {
        run.constraints = Some(ConstraintReport { initial, ..ConstraintReport::default() });
        if options.ode.projection
            && let Some(projected) = sys.project(mode, t0, &x0)
        {
            x0 = projected?;
        }
    }
    let (mut t, mut x, mut mode_now) = (t0, x0, mode);
    match run.schedule {
        Schedule::Steps => run.samples.push(t, x, mode_now),
        _ => run.push_scheduled_at(t, &x, mode_now),
    }
    // The guard whose crossing ended the last segment (already known to be approaching).
    let mut crossing: Option<usize> = None;
    let outcome = (|| -> Result<HybridStop, SimError> {
        Ok(loop {
            let before = run.impacts.len();
            let resolved = run.resolve(t, &mut x, &mut mode_now, crossing.take());
            // The last good state, also when a reset at this instant failed after others applied.
            run.end = (t, mode_now, x);
            let resolved = resolved?;
            let zeno = if run.impacts.len() > before { run.zeno.push(&options.zeno, t, t1) } else { None };
            // An accumulation of impacts, or a geometric tail that ran into persistent contact
            // before the Zeno window filled.
            let zeno = zeno.or_else(|| match resolved {
                Some(HybridStop::Stuck { .. }) => run.zeno.tail(&options.zeno),
                _ => None,
            });
            // Persistent contact — an accumulation, or a reset that leaves the state pressed into its
            // guard — continues in the completing mode where the system has one.
            let stuck = matches!(resolved, Some(HybridStop::Stuck { .. }));
            if zeno.is_some() || stuck {
                let guard = run.impacts.last().filter(|i| i.mode_after == mode_now).map(|i| i.guard_index);
                let t_acc = zeno.map_or(t, |(t_acc, _)| t_acc);
                if let Some(g) = guard
                    && run.complete(&mut t, t_acc, g, &mut x, &mut mode_now)?
                {
                    continue;
                }
            }
            if let Some((t_acc, error)) = zeno {
                break HybridStop::Zeno { t_accumulation: t_acc.max(t), error, impacts: run.impacts.len() };
            }
            if let Some(stop) = resolved {
                break stop;
            }
            if !(t < t1) {
                break HybridStop::Finished;
            }
            let restart_len = run.samples.mark();
            match run.segment(t, &x, mode_now)? {
                SegmentEnd::Finished => break HybridStop::Finished,
                SegmentEnd::Event { t: te, x: xe, name } => {
                    if !run.samples.last_is(te, &xe, mode_now) {
                        run.samples.push(te, xe, mode_now);
                    }
                    break HybridStop::Event { name, t: te };
                }
                SegmentEnd::Penetration { guard } => {
                    run.samples.truncate(restart_len);
                    run.end = (t, mode_now, x);
                    // A geometric impact tail that ran into persistent contact before the Zeno window
                    // filled: an accumulation after all.
                    let tail = run.zeno.tail(&options.zeno);
                    let t_acc = tail.map_or(t, |(t_acc, _)| t_acc);
                    if run.complete(&mut t, t_acc, guard, &mut x, &mut mode_now)? {
                        continue;
                    }
                    if let Some((t_acc, error)) = tail {
                        break HybridStop::Zeno { t_accumulation: t_acc.max(t), error, impacts: run.impacts.len() };
                    }
                    break run.stuck(t, sys.guard_name(mode_now, guard));
                }
                SegmentEnd::Crossing { t: tc, x: xc, guard } => {
                    let rate = sys.guard_rate(mode_now, guard, tc, &xc);
                    if !rate.is_finite() {
                        return Err(SimError::NonFiniteGuard { t: tc, guard: sys.guard_name(mode_now, guard) });
                    }
                    t = tc;
                    x = xc;
                    if approaching(rate, &x) && !run.skims(mode_now, guard, tc, &xc, rate) {
                        crossing = Some(guard);
                        run.skip_scheduled_at(tc);
                    } else {
                        // Grazing: continue from the located point without a reset.
                        match run.schedule {
                            Schedule::Steps => run.samples.push(tc, xc, mode_now),
                            _ => run.push_scheduled_at(tc, &xc, mode_now),
                        }
                    }
                }
            }
        })
    })();
    let worked = run.stats.steps > 0 || !run.impacts.is_empty();
    let (stop, failure) = options.ode.keep_work(outcome, worked, HybridStop::Failed)?;
    let trajectory = run.into_trajectory(mode, stop);
    match failure {
        Some(error) => Err(RunError::with_partial(error, trajectory)),
        None => Ok(trajectory),
    }
}

fn check_mode<S, const D: usize>(sys: &S, mode: usize) -> Result<(), SimError>
where
    S: HybridSystem<D> + ?Sized,
{
    let modes = sys.mode_count();
    if mode < modes { Ok(()) } else { Err(SimError::InvalidMode { mode, modes }) }
}

/// State of a running simulation.
struct Run<'s, S: ?Sized, const D: usize> {
    sys: &'s S,
    opts: &'s HybridOptions,
    /// The user's events, watched in every segment.
    events: &'s [Event<'s, D>],
    t1: f64,
    schedule: Schedule<'s>,
    samples: Samples<D>,
    impacts: Vec<ImpactRecord<D>>,
    stats: Stats,
    /// Step attempts over all segments.
    attempts: usize,
    zeno: ZenoMonitor,
    /// The constraint report, once a mode with constraints was seen.
    constraints: Option<ConstraintReport>,
    /// The last good time, mode and state: an accepted step's end, a reset's result.
    end: (f64, usize, SVector<f64, D>),
}

impl<'s, S, const D: usize> Run<'s, S, D>
where
    S: HybridSystem<D> + ?Sized,
{
    /// A run of `sys` from (`t0`, `mode`, `x0`) to `t1`, its samples on `schedule`.
    fn new(
        sys: &'s S,
        opts: &'s HybridOptions,
        events: &'s [Event<'s, D>],
        schedule: Schedule<'s>,
        (t0, t1, mode, x0): (f64, f64, usize, SVector<f64, D>),
    ) -> Self {
        let cap = schedule.len_hint().unwrap_or(64).min(1 << 20);
        Run {
            sys,
            opts,
            events,
            t1,
            schedule,
            samples: Samples {
                times: Vec::with_capacity(cap),
                states: Vec::with_capacity(cap),
                modes: Vec::with_capacity(cap),
                segments: opts.ode.dense.then(Vec::new),
                events: Vec::new(),
            },
            impacts: Vec::new(),
            stats: Stats::default(),
            attempts: 0,
            zeno: ZenoMonitor::new(&opts.zeno),
            constraints: None,
            end: (t0, mode, x0),
        }
    }

    /// The run's trajectory, started in `initial_mode` and ended by `stop`, with the constraint
    /// report over its samples.
    fn into_trajectory(self, initial_mode: usize, stop: HybridStop) -> HybridTrajectory<D> {
        let sys = self.sys;
        let samples = self.samples;
        let constraints = self.constraints.map(|mut report| {
            for ((&t, x), &m) in samples.times.iter().zip(&samples.states).zip(&samples.modes) {
                if let Some(residuals) = sys.constraint_residuals(m, t, x) {
                    report.note_sample(residuals);
                }
            }
            report
        });
        HybridTrajectory {
            times: samples.times,
            states: samples.states,
            modes: samples.modes,
            mode_names: (0..sys.mode_count()).map(|m| sys.mode_name(m)).collect(),
            impacts: self.impacts,
            stop,
            stats: self.stats,
            initial_mode,
            segments: samples.segments.unwrap_or_default(),
            events: samples.events,
            constraints,
            end: self.end,
        }
    }

    /// [`HybridStop::Stuck`] at `t` on `guard`, with the multipliers of the mode a transition at
    /// `t` just left.
    fn stuck(&self, t: f64, guard: &'static str) -> HybridStop {
        let multipliers_before = match self.impacts.last() {
            Some(i) if i.t == t && i.mode_before != i.mode_after => self.sys.constraint_multipliers(i.mode_before, t, &i.pre),
            _ => Vec::new(),
        };
        HybridStop::Stuck { t, guard, multipliers_before }
    }

    /// Whether a located crossing of `guard` with approach rate `rate < 0` only skims the surface:
    /// the guard curves back up (ḧ > 0, from a central difference of ḣ along the flow), and the
    /// deepest point of that parabola, ḣ²/(2ḧ) below the surface, is within the contact tolerance.
    /// Such a crossing is a tangential touch that the integration error (or the ill-conditioned
    /// location of a double zero, where an error δ in h moves the crossing by √δ and gives a rate
    /// of √δ) made look like an approach; it is grazing, not an impact.
    fn skims(&self, mode: usize, guard: usize, t: f64, x: &SVector<f64, D>, rate: f64) -> bool {
        let Ok(f) = self.sys.mode_field(mode, t, x) else { return false };
        let delta = 1e-5 * (1.0 + x.amax()) / (1.0 + f.amax());
        let ahead = self.sys.guard_rate(mode, guard, t + delta, &(x + f * delta));
        let behind = self.sys.guard_rate(mode, guard, t - delta, &(x - f * delta));
        let curvature = (ahead - behind) / (2.0 * delta);
        curvature > 0.0 && rate * rate / (2.0 * curvature) <= self.opts.contact_tolerance
    }

    /// Push `x` once for every scheduled time `≤ t` (Times/Interval output).
    fn push_scheduled_at(&mut self, t: f64, x: &SVector<f64, D>, mode: usize) {
        while let Some(tau) = self.schedule.peek()
            && tau <= t
        {
            self.samples.push(tau, *x, mode);
            self.schedule.advance();
        }
    }

    /// Complete persistent contact on guard `g` through the system's completing transition, if
    /// there is one and completion is on: apply its reset to the state `x` at `t` (after the last
    /// impact), carry the result through the completing mode over the rest of an accumulation's
    /// tail to `t_acc` (the limit of the tail in every direction the completing mode holds, its own
    /// motion in the others; `t_acc = t` for contact that persists at once), record it at `t_acc`,
    /// and restart Zeno detection there. Returns whether it was applied.
    fn complete(
        &mut self,
        time: &mut f64,
        t_acc: f64,
        g: usize,
        x: &mut SVector<f64, D>,
        mode: &mut usize,
    ) -> Result<bool, SimError> {
        if !self.opts.zeno.complete {
            return Ok(false);
        }
        let t = *time;
        let Some(result) = self.sys.zeno_completion(*mode, g, t, x) else { return Ok(false) };
        let Completion { transition: name, mode: new_mode, state: post } = result.map_err(|e| match e {
            FieldError::NonFinite { .. } => SimError::ResetFailed { t, guard: self.sys.guard_name(*mode, g) },
            e => e.into(),
        })?;
        check_mode(self.sys, new_mode)?;
        if !post.iter().all(|v| v.is_finite()) {
            return Err(SimError::ResetFailed { t, guard: name });
        }
        let t_end = t_acc.clamp(t, self.t1);
        let post = if t_end > t {
            let field = segment::ModeField { sys: self.sys, mode: new_mode };
            let opts = self.opts.ode.clone().output(crate::Output::Steps).dense(false);
            let tail = crate::ode::integrate::integrate(&field, t..t_end, post, &[], &opts)?;
            self.stats += tail.stats;
            tail.last().map_or(post, |(_, x)| *x)
        } else {
            post
        };
        let t = t_end;
        self.impacts.push(ImpactRecord {
            t,
            guard: name,
            guard_index: g,
            mode_before: *mode,
            mode_after: new_mode,
            rate: self.sys.guard_rate(*mode, g, t, x),
            pre: *x,
            post,
            energy_before: self.sys.mode_energy(*mode, t, x),
            energy_after: self.sys.mode_energy(new_mode, t, &post),
        });
        // The tail itself is not resolved: requested output times inside it are skipped.
        self.skip_scheduled_at(t);
        self.samples.push(t, post, new_mode);
        *mode = new_mode;
        *x = post;
        *time = t;
        self.zeno = ZenoMonitor::new(&self.opts.zeno);
        Ok(true)
    }

    /// Consume the scheduled times `≤ t` without output (they are represented by the pre- and
    /// post-impact samples).
    fn skip_scheduled_at(&mut self, t: f64) {
        while let Some(tau) = self.schedule.peek()
            && tau <= t
        {
            self.schedule.advance();
        }
    }
}
