//! Hybrid simulation: impacts, resets and switching between modes.
//!
//! A [`HybridSystem`] has *modes*, each with its own vector field on a common state
//! `x ∈ ℝᴰ` (a mode with fewer coordinates uses a prefix of `x` and returns `0` for the unused
//! entries, which therefore keep their values), and in each mode a set of *unilateral guards*
//! `h(t, x) ≥ 0`. When the trajectory crosses a guard from `h > 0` to `h < 0` — an impact, or a
//! switching surface — the guard's *reset* maps the pre-impact state to the post-impact state,
//! possibly in another mode (a chart change). [`simulate_hybrid()`] integrates such a system.
//!
//! # Within a mode
//!
//! The mode's field is integrated with the Dormand–Prince stepper and step-size controller of
//! [`crate::integrate()`] (same tolerances, [`Options`]). Every guard is a terminal event with
//! [`crate::Direction::Falling`], located on the dense output to
//! [`Options::event_tolerance`] (`~1e-12`) in `t`, with the double-crossing safeguard of
//! [`crate::events`].
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
//! `ḣ = `[`HybridSystem::guard_rate`] is checked: if `ḣ < 0` the crossing is an impact and the
//! reset is applied; if `ḣ ≥ 0` it is **grazing** (the trajectory touched `h = 0` tangentially
//! and the located point is numerically just below zero): no reset, no impact record,
//! integration simply continues from `(t, x⁻)` — an impact with a non-negative approach rate is
//! never produced. (A tangential touch can still register as an impact with a tiny negative
//! rate — of the order of the integration error — when the numerical solution dips below zero
//! by rounding; its reset is then a correspondingly tiny correction.)
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
//! rules of [`crate::events`]: a value of exactly zero has no side, a negative one must first
//! become positive). For a guard leaving contact (`h ≤ 0 < ḣ` at the restart) the first step
//! is shortened until `h` is positive at its first event sample, so that even a tiny bounce —
//! up and back down within a fraction of the step the integrator would like to take — is
//! seen (down to steps of `64 · max(event_tolerance, minimal step)`). But a state must never
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
//! Impact instants are fed to the detector of [`crate::zeno`]; when the inter-impact intervals
//! shrink geometrically (or fall below a floor) the simulation ends with [`HybridStop::Zeno`],
//! reporting the accumulation time estimated from the geometric tail.
//!
//! # Output
//!
//! Samples follow [`Options::output`]: after every accepted step ([`crate::Output::Steps`],
//! starting with the initial state), or at the requested times, interpolated with the dense
//! output of the mode active at that time ([`crate::Output::Times`],
//! [`crate::Output::Interval`]). In every output mode the pre- and post-impact states of each
//! impact are samples at the impact time (so plots show the jump; a requested time equal to an
//! impact time is represented by these two samples), and [`HybridTrajectory::modes`] gives the
//! mode of every sample. [`Options::dense`] is ignored. [`Stats`] are summed over all
//! segments, and [`Options::max_steps`] bounds the step attempts of the whole simulation.
//!
//! # Example: a bouncing ball
//!
//! ```
//! use routh_runtime::nalgebra::Vector2;
//! use routh_runtime::{simulate_hybrid, FieldError, HybridOptions, HybridStop, HybridSystem};
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
//! let traj = simulate_hybrid(&ball, 0, Vector2::new(1.0, 0.0), 0.0..10.0, &HybridOptions::default())?;
//! let t1 = (2.0 / 9.81f64).sqrt();
//! assert!((traj.impacts[0].t - t1).abs() < 1e-9);
//! // Each impact loses the fraction 1 − e² of the kinetic energy.
//! assert!((traj.impacts[0].energy_jump() + (1.0 - 0.64) * 9.81).abs() < 1e-8);
//! // The bounces accumulate at t1 (1 + e)/(1 − e).
//! let HybridStop::Zeno { t_accumulation, .. } = traj.stop else { panic!("{:?}", traj.stop) };
//! assert!((t_accumulation - t1 * 9.0).abs() < 1e-8);
//! # Ok::<(), routh_runtime::SimError>(())
//! ```

use std::ops::Range;

use nalgebra::SVector;

use crate::dopri5::{self, Attempt, DenseSegment, Stepper};
use crate::error::{FieldError, SimError};
use crate::events::{Direction, Event, Tracker};
use crate::field::VectorField;
use crate::integrate::{BETA, EXPO1, FACC1, FACC2, LN_ERR_MIN, SAFE};
use crate::options::{Options, Output, Schedule};
use crate::trajectory::Stats;
use crate::zeno::{ZenoMonitor, ZenoOptions};

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
    fn mode_field(
        &self,
        mode: usize,
        t: f64,
        x: &SVector<f64, D>,
    ) -> Result<SVector<f64, D>, FieldError>;
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
    fn reset(
        &self,
        mode: usize,
        guard: usize,
        t: f64,
        x: &SVector<f64, D>,
    ) -> Result<(usize, SVector<f64, D>), FieldError>;
    /// Energy in `mode`, used to record energy jumps at impacts.
    fn mode_energy(&self, mode: usize, t: f64, x: &SVector<f64, D>) -> f64;
}

/// Options of [`simulate_hybrid()`], built with `Default` and builder-style setters.
///
/// ```
/// use routh_runtime::{HybridOptions, Options, Output, ZenoOptions};
/// let opts = HybridOptions::default()
///     .ode(Options::default().rtol(1e-10).atol(1e-12))
///     .output(Output::Interval(0.01))
///     .max_impacts(1000)
///     .zeno(ZenoOptions::default().min_impacts(30));
/// assert_eq!(opts.ode.rtol, 1e-10);
/// assert!(opts.validate().is_ok());
/// assert!(HybridOptions::default().contact_tolerance(-1.0).validate().is_err());
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct HybridOptions {
    /// Integration options of every segment (tolerances, output, event tolerance, step
    /// limits). [`Options::dense`] is ignored; [`Options::max_steps`] bounds the whole run.
    pub ode: Options,
    /// Maximum number of resets applied. Default `100_000`.
    pub max_impacts: usize,
    /// Zeno detection.
    pub zeno: ZenoOptions,
    /// Absolute tolerance on guard values `h` (in the guard's units), finite and `> 0`.
    /// Default `1e-10`. A guard is in contact when `h ≤ contact_tolerance +
    /// 4 · event_tolerance · |ḣ|`; below minus that value it is violated; a state that sinks
    /// this far below its restart value is stuck (see the [module docs](self)).
    pub contact_tolerance: f64,
    /// Maximum number of resets applied at one instant (simultaneous impacts), `≥ 1`.
    /// Default `16`.
    pub max_resets_per_instant: usize,
    /// Relative mismatch `η > 0` allowed by the guard-resolution step control (see the
    /// [module docs](self)); `f64::INFINITY` disables it. Default `0.05`.
    pub guard_resolution: f64,
}

impl Default for HybridOptions {
    fn default() -> Self {
        HybridOptions {
            ode: Options::default(),
            max_impacts: 100_000,
            zeno: ZenoOptions::default(),
            contact_tolerance: 1e-10,
            max_resets_per_instant: 16,
            guard_resolution: 0.05,
        }
    }
}

impl HybridOptions {
    /// Set [`HybridOptions::ode`].
    #[must_use]
    pub fn ode(mut self, ode: Options) -> Self {
        self.ode = ode;
        self
    }
    /// Set `ode.rtol` ([`Options::rtol`]).
    #[must_use]
    pub fn rtol(mut self, rtol: f64) -> Self {
        self.ode.rtol = rtol;
        self
    }
    /// Set `ode.atol` ([`Options::atol`]).
    #[must_use]
    pub fn atol(mut self, atol: f64) -> Self {
        self.ode.atol = atol;
        self
    }
    /// Set `ode.output` ([`Options::output`]).
    #[must_use]
    pub fn output(mut self, output: Output) -> Self {
        self.ode.output = output;
        self
    }
    /// Set `ode.max_step` ([`Options::max_step`]).
    #[must_use]
    pub fn max_step(mut self, h: f64) -> Self {
        self.ode.max_step = h;
        self
    }
    /// Set [`HybridOptions::max_impacts`].
    #[must_use]
    pub fn max_impacts(mut self, n: usize) -> Self {
        self.max_impacts = n;
        self
    }
    /// Set [`HybridOptions::zeno`].
    #[must_use]
    pub fn zeno(mut self, zeno: ZenoOptions) -> Self {
        self.zeno = zeno;
        self
    }
    /// Set [`HybridOptions::contact_tolerance`].
    #[must_use]
    pub fn contact_tolerance(mut self, tol: f64) -> Self {
        self.contact_tolerance = tol;
        self
    }
    /// Set [`HybridOptions::max_resets_per_instant`].
    #[must_use]
    pub fn max_resets_per_instant(mut self, n: usize) -> Self {
        self.max_resets_per_instant = n;
        self
    }
    /// Set [`HybridOptions::guard_resolution`].
    #[must_use]
    pub fn guard_resolution(mut self, eta: f64) -> Self {
        self.guard_resolution = eta;
        self
    }

    /// Check the options that do not depend on the time span.
    ///
    /// # Errors
    /// [`SimError::InvalidOptions`] naming the first offending option.
    pub fn validate(&self) -> Result<(), SimError> {
        self.ode.validate()?;
        self.zeno.validate()?;
        let bad = |msg: String| Err(SimError::InvalidOptions(msg));
        if !(self.contact_tolerance.is_finite() && self.contact_tolerance > 0.0) {
            return bad(format!(
                "contact_tolerance must be finite and > 0, got {}",
                self.contact_tolerance
            ));
        }
        if self.max_resets_per_instant == 0 {
            return bad("max_resets_per_instant must be >= 1".to_owned());
        }
        if !(self.guard_resolution > 0.0) {
            return bad(format!(
                "guard_resolution must be > 0, got {}",
                self.guard_resolution
            ));
        }
        Ok(())
    }
}

/// One applied reset.
#[derive(Debug, Clone, PartialEq)]
pub struct ImpactRecord<const D: usize> {
    /// Time of the impact.
    pub t: f64,
    /// Name of the guard.
    pub guard: &'static str,
    /// Index of the guard in `mode_before`.
    pub guard_index: usize,
    /// Mode before the reset.
    pub mode_before: usize,
    /// Mode after the reset.
    pub mode_after: usize,
    /// Approach rate `dh/dt` of the guard at the pre-impact state (always negative).
    pub rate: f64,
    /// Pre-impact state.
    pub pre: SVector<f64, D>,
    /// Post-impact state.
    pub post: SVector<f64, D>,
    /// [`HybridSystem::mode_energy`] of `pre` in `mode_before`.
    pub energy_before: f64,
    /// [`HybridSystem::mode_energy`] of `post` in `mode_after`.
    pub energy_after: f64,
}

impl<const D: usize> ImpactRecord<D> {
    /// `energy_after − energy_before` (negative for a dissipative impact).
    pub fn energy_jump(&self) -> f64 {
        self.energy_after - self.energy_before
    }
}

/// Why a hybrid simulation ended.
#[derive(Debug, Clone, PartialEq)]
pub enum HybridStop {
    /// The end of the time span was reached.
    Finished,
    /// Impacts accumulate (Zeno): estimated accumulation time from the geometric tail of the
    /// inter-impact intervals (see [`crate::zeno`]). The last sample is the post-impact state
    /// of the last impact.
    Zeno {
        /// Estimated accumulation time.
        t_accumulation: f64,
        /// Number of impacts recorded.
        impacts: usize,
    },
    /// [`HybridOptions::max_impacts`] resets were applied and another impact occurred at `t`
    /// (not applied; its pre-impact state is the last sample).
    ImpactLimit {
        /// Time of the impact that was not applied.
        t: f64,
        /// Number of impacts recorded.
        impacts: usize,
    },
    /// After a reset the state is on the guard moving inward (`dh/dt < 0` and `h ≤`
    /// tolerance) — e.g. a plastic impact under a force pressing into the surface: the contact
    /// persists and a pure impact model cannot continue. Also reported when, with `dh/dt = 0`
    /// after the reset, the flow pushes the state into the guard, or when an instant needs
    /// more than [`HybridOptions::max_resets_per_instant`] resets. The last sample is the
    /// post-reset state at `t`. (A geometric impact tail that ends this way, e.g. a ball with
    /// small restitution whose bounces drop below the resolution of the tolerances, is
    /// reported as [`HybridStop::Zeno`] instead, see [`crate::zeno`].)
    Stuck {
        /// Time at which the persistent contact began: the last reset (or the initial time,
        /// or the restart after a grazing touch).
        t: f64,
        /// The guard that stays in contact.
        guard: &'static str,
    },
}

/// Output of [`simulate_hybrid()`].
///
/// ```
/// use routh_runtime::nalgebra::Vector1;
/// use routh_runtime::{simulate_hybrid, FieldError, HybridOptions, HybridStop, HybridSystem};
///
/// /// A point drifting at unit speed through x = 1, where it switches from "left" to "right".
/// struct Drift;
/// impl HybridSystem<1> for Drift {
///     fn mode_count(&self) -> usize { 2 }
///     fn mode_name(&self, mode: usize) -> &'static str { if mode == 0 { "left" } else { "right" } }
///     fn mode_field(&self, _m: usize, _t: f64, _x: &Vector1<f64>) -> Result<Vector1<f64>, FieldError> {
///         Ok(Vector1::new(1.0))
///     }
///     fn guard_count(&self, mode: usize) -> usize { usize::from(mode == 0) }
///     fn guard_name(&self, _m: usize, _g: usize) -> &'static str { "x = 1" }
///     fn guard(&self, _m: usize, _g: usize, _t: f64, x: &Vector1<f64>) -> f64 { 1.0 - x[0] }
///     fn guard_rate(&self, _m: usize, _g: usize, _t: f64, _x: &Vector1<f64>) -> f64 { -1.0 }
///     fn reset(&self, _m: usize, _g: usize, _t: f64, x: &Vector1<f64>)
///         -> Result<(usize, Vector1<f64>), FieldError> { Ok((1, *x)) }
///     fn mode_energy(&self, _m: usize, _t: f64, _x: &Vector1<f64>) -> f64 { 0.0 }
/// }
///
/// let traj = simulate_hybrid(&Drift, 0, Vector1::new(0.0), 0.0..2.0, &HybridOptions::default())?;
/// assert_eq!(traj.stop, HybridStop::Finished);
/// assert_eq!(traj.mode_sequence(), vec![0, 1]);
/// assert!((traj.impacts[0].t - 1.0).abs() < 1e-12);
/// // Every sample carries its mode; the switch appears as two samples at the switching time.
/// let k = traj.times.iter().position(|&t| t == traj.impacts[0].t).unwrap();
/// assert_eq!(traj.times[k + 1], traj.times[k]);
/// assert!(traj.modes[..=k].iter().all(|&m| m == 0));
/// assert!(traj.modes[k + 1..].iter().all(|&m| m == 1));
/// for (t, _mode, x) in traj.iter() {
///     assert!((x[0] - t).abs() < 1e-12);
/// }
/// # Ok::<(), routh_runtime::SimError>(())
/// ```
#[derive(Debug, Clone)]
pub struct HybridTrajectory<const D: usize> {
    /// Sample times (non-decreasing; an impact time appears twice, pre and post).
    pub times: Vec<f64>,
    /// States at [`HybridTrajectory::times`].
    pub states: Vec<SVector<f64, D>>,
    /// Mode of each sample.
    pub modes: Vec<usize>,
    /// Applied resets, in order.
    pub impacts: Vec<ImpactRecord<D>>,
    /// Why the simulation ended.
    pub stop: HybridStop,
    /// Work counters summed over all segments.
    pub stats: Stats,
    /// The mode at the start.
    pub initial_mode: usize,
}

impl<const D: usize> HybridTrajectory<D> {
    /// Number of samples.
    pub fn len(&self) -> usize {
        self.times.len()
    }
    /// Whether there are no samples.
    pub fn is_empty(&self) -> bool {
        self.times.is_empty()
    }
    /// The last sample `(t, mode, x)`.
    pub fn last(&self) -> Option<(f64, usize, &SVector<f64, D>)> {
        Some((
            *self.times.last()?,
            *self.modes.last()?,
            self.states.last()?,
        ))
    }
    /// Iterate over the samples `(t, mode, x)`.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (f64, usize, &SVector<f64, D>)> + '_ {
        self.times
            .iter()
            .zip(&self.modes)
            .zip(&self.states)
            .map(|((&t, &m), x)| (t, m, x))
    }
    /// Time series of component `i` of the state; empty if `i ≥ D`.
    pub fn component(&self, i: usize) -> Vec<f64> {
        if i >= D {
            return Vec::new();
        }
        self.states.iter().map(|x| x[i]).collect()
    }
    /// The modes visited, in order (the initial mode, then every change of mode by a reset).
    pub fn mode_sequence(&self) -> Vec<usize> {
        let mut seq = vec![self.initial_mode];
        for r in &self.impacts {
            if seq.last() != Some(&r.mode_after) {
                seq.push(r.mode_after);
            }
        }
        seq
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
/// * the integration errors of [`crate::integrate()`] (`NonFiniteState`,
///   `StepSizeUnderflow`, `StepLimit`).
///
/// Zeno behaviour, the impact limit and persistent contact are not errors: they end the
/// simulation with the corresponding [`HybridStop`] and the trajectory so far.
pub fn simulate_hybrid<S, const D: usize>(
    sys: &S,
    mode: usize,
    x0: SVector<f64, D>,
    t_span: Range<f64>,
    options: &HybridOptions,
) -> Result<HybridTrajectory<D>, SimError>
where
    S: HybridSystem<D> + ?Sized,
{
    options.validate()?;
    let (t0, t1) = (t_span.start, t_span.end);
    if !(t0.is_finite() && t1.is_finite() && (t1 - t0).is_finite() && t1 >= t0) {
        return Err(SimError::InvalidTimeSpan { t0, t1 });
    }
    if !x0.iter().all(|v| v.is_finite()) {
        return Err(SimError::InvalidInitialState);
    }
    check_mode(sys, mode)?;
    let schedule = Schedule::new(&options.ode.output, t0, t1, 1.0)?;
    let cap = schedule.len_hint().unwrap_or(64).min(1 << 20);
    let mut run = Run {
        sys,
        opts: options,
        t1,
        schedule,
        samples: Samples {
            times: Vec::with_capacity(cap),
            states: Vec::with_capacity(cap),
            modes: Vec::with_capacity(cap),
        },
        impacts: Vec::new(),
        stats: Stats::default(),
        attempts: 0,
        zeno: ZenoMonitor::new(&options.zeno),
    };

    let (mut t, mut x, mut mode_now) = (t0, x0, mode);
    match run.schedule {
        Schedule::Steps => run.samples.push(t, x, mode_now),
        _ => run.push_scheduled_at(t, &x, mode_now),
    }
    // The guard whose crossing ended the last segment (already known to be approaching).
    let mut crossing: Option<usize> = None;
    let stop = loop {
        let before = run.impacts.len();
        if let Some(stop) = run.resolve(t, &mut x, &mut mode_now, crossing.take())? {
            let zeno = if run.impacts.len() > before {
                run.zeno.push(&options.zeno, t, t1)
            } else {
                None
            };
            break match zeno {
                Some(t_acc) => HybridStop::Zeno {
                    t_accumulation: t_acc,
                    impacts: run.impacts.len(),
                },
                None => stop,
            };
        }
        if run.impacts.len() > before
            && let Some(t_acc) = run.zeno.push(&options.zeno, t, t1)
        {
            break HybridStop::Zeno {
                t_accumulation: t_acc,
                impacts: run.impacts.len(),
            };
        }
        if !(t < t1) {
            break HybridStop::Finished;
        }
        let restart_len = run.samples.len();
        match run.segment(t, &x, mode_now)? {
            SegmentEnd::Finished => break HybridStop::Finished,
            SegmentEnd::Penetration { guard } => {
                run.samples.truncate(restart_len);
                break HybridStop::Stuck {
                    t,
                    guard: sys.guard_name(mode_now, guard),
                };
            }
            SegmentEnd::Crossing {
                t: tc,
                x: xc,
                guard,
            } => {
                let rate = sys.guard_rate(mode_now, guard, tc, &xc);
                if !rate.is_finite() {
                    return Err(SimError::NonFiniteGuard {
                        t: tc,
                        guard: sys.guard_name(mode_now, guard),
                    });
                }
                t = tc;
                x = xc;
                if rate < 0.0 {
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
    };
    // A geometric impact tail that ran into persistent contact before the Zeno window filled.
    let stop = match stop {
        HybridStop::Stuck { t: t_stuck, guard } => match run.zeno.tail(&options.zeno) {
            Some(t_acc) => HybridStop::Zeno {
                t_accumulation: t_acc.max(t_stuck),
                impacts: run.impacts.len(),
            },
            None => HybridStop::Stuck { t: t_stuck, guard },
        },
        stop => stop,
    };
    Ok(HybridTrajectory {
        times: run.samples.times,
        states: run.samples.states,
        modes: run.samples.modes,
        impacts: run.impacts,
        stop,
        stats: run.stats,
        initial_mode: mode,
    })
}

fn check_mode<S, const D: usize>(sys: &S, mode: usize) -> Result<(), SimError>
where
    S: HybridSystem<D> + ?Sized,
{
    let modes = sys.mode_count();
    if mode < modes {
        Ok(())
    } else {
        Err(SimError::InvalidMode { mode, modes })
    }
}

/// The vector field of one mode.
struct ModeField<'s, S: ?Sized> {
    sys: &'s S,
    mode: usize,
}

impl<S, const D: usize> VectorField<D> for ModeField<'_, S>
where
    S: HybridSystem<D> + ?Sized,
{
    #[inline]
    fn field(&self, t: f64, x: &SVector<f64, D>) -> Result<SVector<f64, D>, FieldError> {
        self.sys.mode_field(self.mode, t, x)
    }
}

/// How an integration segment (one mode, no reset) ended.
enum SegmentEnd<const D: usize> {
    /// The end of the span was reached.
    Finished,
    /// Guard `guard` was crossed downward at `(t, x)`.
    Crossing {
        t: f64,
        x: SVector<f64, D>,
        guard: usize,
    },
    /// Guard `guard`, in contact at the restart, sank into the surface.
    Penetration { guard: usize },
}

/// Output buffers.
struct Samples<const D: usize> {
    times: Vec<f64>,
    states: Vec<SVector<f64, D>>,
    modes: Vec<usize>,
}

impl<const D: usize> Samples<D> {
    #[inline]
    fn push(&mut self, t: f64, x: SVector<f64, D>, mode: usize) {
        self.times.push(t);
        self.states.push(x);
        self.modes.push(mode);
    }
    fn len(&self) -> usize {
        self.times.len()
    }
    fn truncate(&mut self, n: usize) {
        self.times.truncate(n);
        self.states.truncate(n);
        self.modes.truncate(n);
    }
    /// Whether the last sample is exactly `(t, x, mode)`.
    fn last_is(&self, t: f64, x: &SVector<f64, D>, mode: usize) -> bool {
        self.times.last() == Some(&t)
            && self.modes.last() == Some(&mode)
            && self.states.last() == Some(x)
    }
}

/// Outcome of the guard-resolution check of a step.
enum GuardCheck {
    /// The mismatch ratio (≤ 1: resolved).
    Ratio(f64),
    /// A guard was NaN/∞ at `t`.
    NonFinite { t: f64, guard: &'static str },
}

/// Quartic through `g(0), g(¼), …, g(1)` evaluated at `θ = ⅛, ⅜, ⅝, ⅞` (weights × 128).
const MID_WEIGHTS: [[f64; 5]; 4] = [
    [35.0, 140.0, -70.0, 28.0, -5.0],
    [-5.0, 60.0, 90.0, -20.0, 3.0],
    [3.0, -20.0, 90.0, 60.0, -5.0],
    [-5.0, 28.0, -70.0, 140.0, 35.0],
];

/// State of a running simulation.
struct Run<'s, S: ?Sized, const D: usize> {
    sys: &'s S,
    opts: &'s HybridOptions,
    t1: f64,
    schedule: Schedule<'s>,
    samples: Samples<D>,
    impacts: Vec<ImpactRecord<D>>,
    stats: Stats,
    /// Step attempts over all segments.
    attempts: usize,
    zeno: ZenoMonitor,
}

impl<'s, S, const D: usize> Run<'s, S, D>
where
    S: HybridSystem<D> + ?Sized,
{
    /// Push `x` once for every scheduled time `≤ t` (Times/Interval output).
    fn push_scheduled_at(&mut self, t: f64, x: &SVector<f64, D>, mode: usize) {
        while let Some(tau) = self.schedule.peek()
            && tau <= t
        {
            self.samples.push(tau, *x, mode);
            self.schedule.advance();
        }
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

    /// Contact tolerance on `h` for a guard with rate `rate` at time `t`.
    fn contact_tol(&self, t: f64, rate: f64) -> f64 {
        let tol_t = self
            .opts
            .ode
            .event_tolerance
            .max(4.0 * f64::EPSILON * t.abs());
        self.opts.contact_tolerance + 4.0 * tol_t * rate.abs()
    }

    /// Check every guard of `mode` at `(t, x)`; returns the first one (in index order) in
    /// contact and approaching.
    ///
    /// `rate_scale` is the largest `|dh/dt|` seen at this instant: a state located on a
    /// crossing lies up to `rate · Δt` beyond it, and a reset (which changes the rates but
    /// usually not the position) must not turn that location error into a violation.
    fn scan(
        &self,
        t: f64,
        x: &SVector<f64, D>,
        mode: usize,
        rate_scale: &mut f64,
    ) -> Result<Option<usize>, SimError> {
        let sys = self.sys;
        let n = sys.guard_count(mode);
        for i in 0..n {
            let rate = sys.guard_rate(mode, i, t, x);
            if !rate.is_finite() {
                let guard = sys.guard_name(mode, i);
                return Err(SimError::NonFiniteGuard { t, guard });
            }
            *rate_scale = rate_scale.max(rate.abs());
        }
        let mut found = None;
        for i in 0..n {
            let h = sys.guard(mode, i, t, x);
            let rate = sys.guard_rate(mode, i, t, x);
            let guard = sys.guard_name(mode, i);
            if !h.is_finite() {
                return Err(SimError::NonFiniteGuard { t, guard });
            }
            if h < -self.contact_tol(t, *rate_scale) {
                return Err(SimError::GuardViolated { t, guard, value: h });
            }
            if found.is_none() && h <= self.contact_tol(t, rate) && rate < 0.0 {
                found = Some(i);
            }
        }
        Ok(found)
    }

    /// Apply the resets due at time `t` (starting with the crossing guard `first`, if any),
    /// updating `x` and `mode`. Returns a stop reason if the simulation cannot continue.
    fn resolve(
        &mut self,
        t: f64,
        x: &mut SVector<f64, D>,
        mode: &mut usize,
        first: Option<usize>,
    ) -> Result<Option<HybridStop>, SimError> {
        let sys = self.sys;
        let mut pending = first;
        // (mode, guard) of the previous reset at this instant.
        let mut previous: Option<(usize, usize)> = None;
        let mut resets = 0usize;
        let mut rate_scale: f64 = 0.0;
        loop {
            let g = match pending.take() {
                Some(g) => g,
                None => match self.scan(t, x, *mode, &mut rate_scale)? {
                    Some(g) => g,
                    None => return Ok(None),
                },
            };
            let guard = sys.guard_name(*mode, g);
            if previous == Some((*mode, g)) || resets >= self.opts.max_resets_per_instant {
                return Ok(Some(HybridStop::Stuck { t, guard }));
            }
            if !self.samples.last_is(t, x, *mode) {
                self.samples.push(t, *x, *mode);
            }
            if self.impacts.len() >= self.opts.max_impacts {
                return Ok(Some(HybridStop::ImpactLimit {
                    t,
                    impacts: self.impacts.len(),
                }));
            }
            let rate = sys.guard_rate(*mode, g, t, x);
            rate_scale = rate_scale.max(rate.abs());
            let (new_mode, post) = match sys.reset(*mode, g, t, x) {
                Ok(v) => v,
                Err(FieldError::NonFinite { .. }) => {
                    return Err(SimError::ResetFailed { t, guard });
                }
                Err(e) => return Err(e.into()),
            };
            check_mode(sys, new_mode)?;
            if !post.iter().all(|v| v.is_finite()) {
                return Err(SimError::ResetFailed { t, guard });
            }
            self.impacts.push(ImpactRecord {
                t,
                guard,
                guard_index: g,
                mode_before: *mode,
                mode_after: new_mode,
                rate,
                pre: *x,
                post,
                energy_before: sys.mode_energy(*mode, t, x),
                energy_after: sys.mode_energy(new_mode, t, &post),
            });
            self.samples.push(t, post, new_mode);
            previous = Some((*mode, g));
            *mode = new_mode;
            *x = post;
            resets += 1;
        }
    }

    /// The guard-resolution ratio of a step (≤ 1: resolved), see the module docs.
    #[allow(clippy::too_many_arguments)]
    fn guard_check(
        &self,
        mode: usize,
        n: usize,
        seg: &DenseSegment<D>,
        t_a: f64,
        h: f64,
        t_b: f64,
        x_b: &SVector<f64, D>,
    ) -> GuardCheck {
        let eta = self.opts.guard_resolution;
        if n == 0 || eta == f64::INFINITY {
            return GuardCheck::Ratio(0.0);
        }
        let mut ts = [t_b; 9];
        let mut xs = [*x_b; 9];
        for j in 0..8 {
            let theta = j as f64 / 8.0;
            ts[j] = t_a + theta * h;
            xs[j] = seg.eval_theta(theta);
        }
        let tol = self.opts.contact_tolerance;
        let mut worst: f64 = 0.0;
        for i in 0..n {
            let mut g = [0.0; 9];
            for j in 0..9 {
                let v = self.sys.guard(mode, i, ts[j], &xs[j]);
                if !v.is_finite() {
                    return GuardCheck::NonFinite {
                        t: ts[j],
                        guard: self.sys.guard_name(mode, i),
                    };
                }
                g[j] = v;
            }
            let (lo, hi) = g
                .iter()
                .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &v| {
                    (lo.min(v), hi.max(v))
                });
            let base = eta * (hi - lo) + tol;
            for (k, w) in MID_WEIGHTS.iter().enumerate() {
                let p =
                    (w[0] * g[0] + w[1] * g[2] + w[2] * g[4] + w[3] * g[6] + w[4] * g[8]) / 128.0;
                let (a, m, b) = (g[2 * k], g[2 * k + 1], g[2 * k + 2]);
                let mut allow = base;
                if (a > 0.0 && m > 0.0 && b > 0.0) || (a < 0.0 && m < 0.0 && b < 0.0) {
                    allow = allow.max(0.25 * a.abs().min(m.abs()).min(b.abs()));
                }
                worst = worst.max((m - p).abs() / allow);
            }
        }
        GuardCheck::Ratio(worst)
    }

    /// Integrate `mode` from `(t0, x0)` until the end of the span or a guard event.
    fn segment(
        &mut self,
        t0: f64,
        x0: &SVector<f64, D>,
        mode: usize,
    ) -> Result<SegmentEnd<D>, SimError> {
        let sys: &'s S = self.sys;
        let opts = &self.opts.ode;
        let t1 = self.t1;
        let field = ModeField { sys, mode };
        let n = sys.guard_count(mode);

        // Guards (indices 0..n, terminal), then penetration watchers of the guards with h ≤ 0.
        // The watchers are not terminal: a guard that rises and comes back crosses h = 0 and
        // its watcher level within the location tolerance of each other, possibly located in
        // the wrong order; the guard crossing takes precedence whenever the step has one.
        let mut events: Vec<Event<'s, D>> = Vec::with_capacity(n);
        let mut watched: Vec<usize> = Vec::new();
        for i in 0..n {
            events.push(
                Event::new(sys.guard_name(mode, i), move |t, x: &SVector<f64, D>| {
                    sys.guard(mode, i, t, x)
                })
                .direction(Direction::Falling)
                .terminal(true),
            );
        }
        // Guards leaving contact (h ≤ 0 < dh/dt): the first step must see them positive.
        let mut leaving: Vec<usize> = Vec::new();
        for i in 0..n {
            let h0 = sys.guard(mode, i, t0, x0);
            if h0 <= 0.0 && sys.guard_rate(mode, i, t0, x0) > 0.0 {
                leaving.push(i);
            }
            if h0 <= 0.0 {
                let floor = h0
                    - self
                        .opts
                        .contact_tolerance
                        .max(4.0 * f64::EPSILON * h0.abs());
                events.push(
                    Event::new(sys.guard_name(mode, i), move |t, x: &SVector<f64, D>| {
                        sys.guard(mode, i, t, x) - floor
                    })
                    .direction(Direction::Falling),
                );
                watched.push(i);
            }
        }

        let evals = &mut self.stats.evaluations;
        let f0 = match dopri5::eval(&field, t0, x0, evals)? {
            Some(v) if v.iter().all(|c| c.is_finite()) => v,
            _ => return Err(SimError::NonFiniteState { t: t0 }),
        };
        let (rtol, atol) = (opts.rtol, opts.atol);
        let hmax = opts.max_step.min(t1 - t0);
        let mut h = match opts.initial_step {
            Some(h) => h.min(hmax),
            None => dopri5::initial_step(&field, t0, x0, &f0, 1.0, hmax, rtol, atol, evals)?,
        };
        // Hairer's initial step scales with |x|/|F|, which vanishes for a segment starting at
        // rest on a guard (x ≈ 0): keep it clear of the step floor of the current time.
        h = h
            .max(100.0 * opts.min_step.max(10.0 * f64::EPSILON * t0.abs()))
            .min(hmax);
        let mut stepper = Stepper::new(f0);
        let mut tracker = Tracker::new(&events, t0, x0, opts.event_tolerance);
        let mut scratch = Vec::new();
        let (mut t, mut x) = (t0, *x0);
        let mut ln_errold: f64 = LN_ERR_MIN;
        let mut reject = false;
        let mut nonfinite = false;
        // A guard that was NaN/∞ on the last rejected step: (time, name).
        let mut bad_guard: Option<(f64, &'static str)> = None;

        loop {
            let mut last = false;
            if t + 1.01 * h - t1 >= 0.0 {
                h = t1 - t;
                last = true;
            }
            let floor = opts.min_step.max(10.0 * f64::EPSILON * t.abs());
            let guard_floor = 64.0 * floor.max(opts.event_tolerance);
            if !last && (h < floor || t + h == t) {
                return Err(if let Some((t, guard)) = bad_guard {
                    SimError::NonFiniteGuard { t, guard }
                } else if nonfinite {
                    SimError::NonFiniteState { t }
                } else {
                    SimError::StepSizeUnderflow { t, h }
                });
            }
            if self.attempts >= opts.max_steps {
                return Err(SimError::StepLimit {
                    t,
                    steps: opts.max_steps,
                });
            }
            self.attempts += 1;

            let attempt =
                stepper.attempt(&field, t, &x, h, rtol, atol, &mut self.stats.evaluations)?;
            let err = match attempt {
                Attempt::NonFinite => {
                    self.stats.rejected += 1;
                    reject = true;
                    nonfinite = true;
                    bad_guard = None;
                    h *= 0.5;
                    continue;
                }
                Attempt::Done { err } => err,
            };
            if err > 1.0 {
                self.stats.rejected += 1;
                reject = true;
                nonfinite = false;
                bad_guard = None;
                h /= FACC1.min((EXPO1 * err.max(1e-300).ln()).exp() / SAFE);
                continue;
            }
            let t_new = if last { t1 } else { t + h };
            let x_new = stepper.x_new;
            let seg = stepper.dense(t, &x, h, t_new);
            let err_g = match self.guard_check(mode, n, &seg, t, h, t_new, &x_new) {
                GuardCheck::NonFinite { t, guard } => {
                    // Possibly a guard undefined deep in the inadmissible region: shrink.
                    self.stats.rejected += 1;
                    reject = true;
                    nonfinite = false;
                    bad_guard = Some((t, guard));
                    h *= 0.5;
                    continue;
                }
                // Steps this short resolve any guard dip the event location could.
                GuardCheck::Ratio(r) if h <= guard_floor => r.min(1.0),
                GuardCheck::Ratio(r) => r,
            };
            if err_g > 1.0 {
                self.stats.rejected += 1;
                reject = true;
                nonfinite = false;
                bad_guard = None;
                h /= FACC1.min((EXPO1 * err_g.ln()).exp() / SAFE);
                continue;
            }
            // Arming: a guard leaving contact must be strictly positive at the first event
            // sample (θ = ¼) of the first step, or a quick excursion (a tiny bounce) could come
            // back before the event search has seen it positive.
            if t == t0 && h > guard_floor && !leaving.is_empty() {
                let (ta, xa) = (t0 + 0.25 * h, seg.eval_theta(0.25));
                if leaving
                    .iter()
                    .any(|&i| !(sys.guard(mode, i, ta, &xa) > 0.0))
                {
                    self.stats.rejected += 1;
                    reject = true;
                    nonfinite = false;
                    bad_guard = None;
                    h *= 0.25;
                    continue;
                }
            }

            // Accepted.
            self.stats.steps += 1;
            nonfinite = false;
            bad_guard = None;
            let ln_err = err.max(err_g).max(1e-300).ln();
            scratch.clear();
            let term = tracker.step(&events, &seg, t_new, &x_new, &mut scratch);
            let sunk = match term {
                Some(_) => None,
                None => scratch.iter().find(|r| r.index >= n).map(|r| r.index - n),
            };
            if let Some(w) = sunk {
                // The samples of this segment are discarded by the caller.
                return Ok(SegmentEnd::Penetration { guard: watched[w] });
            }
            let end = term.as_ref().map_or(t_new, |tm| tm.t);
            match self.schedule {
                Schedule::Steps => {
                    if term.is_none() {
                        self.samples.push(t_new, x_new, mode);
                    }
                }
                _ => {
                    while let Some(tau) = self.schedule.peek() {
                        if tau > end || (term.is_some() && tau >= end) {
                            break;
                        }
                        let xt = if tau == t_new { x_new } else { seg.eval(tau) };
                        self.samples.push(tau, xt, mode);
                        self.schedule.advance();
                    }
                }
            }
            if let Some(tm) = term {
                return Ok(SegmentEnd::Crossing {
                    t: tm.t,
                    x: tm.state,
                    guard: tm.index,
                });
            }

            let fac = ((EXPO1 * ln_err - BETA * ln_errold).exp() / SAFE).clamp(FACC2, FACC1);
            let mut h_new = (h / fac).min(hmax);
            ln_errold = ln_err.max(LN_ERR_MIN);
            if reject {
                h_new = h_new.min(h);
            }
            reject = false;
            stepper.advance();
            t = t_new;
            x = x_new;
            if last {
                return Ok(SegmentEnd::Finished);
            }
            h = h_new;
        }
    }
}

/// A jump of the reduced momenta μ at an impact, in hybrid Routh reduction (seed 000 §4.1): the
/// reduced system runs at fixed μ between impacts; at an impact the full state is reconstructed,
/// the full impact law applied, and μ recomputed from the post-impact state.
#[derive(Debug, Clone, PartialEq)]
pub struct MomentumJump<const K: usize> {
    /// Impact time.
    pub t: f64,
    /// Name of the guard that fired.
    pub guard: &'static str,
    /// μ before the impact.
    pub before: [f64; K],
    /// μ after the impact.
    pub after: [f64; K],
}
