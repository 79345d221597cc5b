//! Hybrid systems driven by control inputs: a model's guards, resets and multipliers at the inputs
//! ([`HybridInputSystem`]), the hybrid system of a signal on the geometry of the model at any input
//! ([`DrivenOn`]), and sampled-data control across impacts.

use std::ops::Range;

use nalgebra::{SMatrix, SVector};

use crate::error::{FieldError, RunResult};
use crate::hybrid::{
    Completion, HybridOptions, HybridStop, HybridSystem, HybridTrajectory, ModeState, simulate_hybrid_with_events,
};
use crate::input::{Driven, DrivenOn, InputSignal, InputSystem, Joined, Sampled, ZeroOrderHold, join_reports, sampled};
use crate::ode::events::Event;
use crate::ode::options::Output;
use crate::ode::trajectory::Stats;

/// A hybrid system with `K` inputs: its modes' fields, and the guards, resets and multipliers that
/// the inputs move, at given inputs. Generated models with inputs and impacts (or modes) implement
/// it; [`DrivenOn`] reads it.
pub trait HybridInputSystem<const D: usize, const K: usize>: InputSystem<D, K> {
    /// Evaluate `mode`'s field `F_mode(t, x, u)`. Default:
    /// [`field_with_input`](InputSystem::field_with_input) in every mode (a single-mode model);
    /// generated models with modes give each mode's own.
    ///
    /// # Errors
    /// As [`field_with_input`](InputSystem::field_with_input).
    fn mode_field_with_input(
        &self,
        mode: usize,
        t: f64,
        x: &SVector<f64, D>,
        u: &SVector<f64, K>,
    ) -> Result<SVector<f64, D>, FieldError> {
        let _ = mode;
        self.field_with_input(t, x, u)
    }

    /// A guard at the inputs `u`, for the guards that the inputs move: one written with an input (a
    /// racket's height), or a contact's force (`multiplier(c)`), which depends on every force, the
    /// inputs' included. `None` (the default) for a guard that is a function of the state alone,
    /// which [`DrivenOn`] reads from its geometry. [`DrivenOn`] takes such a guard's rate and
    /// gradient by central differences of h(t, x, u(t, x)) (along the flow, and in x), so that they
    /// see how the signal moves.
    fn mode_guard_with_input(&self, mode: usize, guard: usize, t: f64, x: &SVector<f64, D>, u: &SVector<f64, K>) -> Option<f64> {
        let _ = (mode, guard, t, x, u);
        None
    }

    /// The multipliers of `mode`'s constraints at the inputs `u`, with their names (a contact's
    /// force depends on every force, the inputs' included): what [`DrivenOn`] reports when a run
    /// gets stuck right after a transition. Default: none.
    fn mode_multipliers_with_input(
        &self,
        mode: usize,
        t: f64,
        x: &SVector<f64, D>,
        u: &SVector<f64, K>,
    ) -> Vec<(&'static str, f64)> {
        let _ = (mode, t, x, u);
        Vec::new()
    }

    /// A reset at the inputs `u`, for the impact laws written with an input (a racket's velocity in
    /// the law of the ball it strikes). `None` (the default) for a law of the state alone, which
    /// [`DrivenOn`] reads from its geometry; for the others [`DrivenOn`] takes the reset's
    /// Jacobian by central differences of Δ(t, x, u(t, x)).
    ///
    /// # Errors
    /// The reset's.
    #[allow(clippy::type_complexity)]
    fn mode_reset_with_input(
        &self,
        mode: usize,
        guard: usize,
        t: f64,
        x: &SVector<f64, D>,
        u: &SVector<f64, K>,
    ) -> Option<Result<(usize, SVector<f64, D>), FieldError>> {
        let _ = (mode, guard, t, x, u);
        None
    }
}

/// `mode`'s guard at the signal's inputs where the inputs move it
/// ([`HybridInputSystem::mode_guard_with_input`]; NaN for a non-finite input), `None` otherwise.
fn driven_guard<S, I, const D: usize, const K: usize>(
    driven: &Driven<'_, S, I, K>,
    mode: usize,
    guard: usize,
    t: f64,
    x: &SVector<f64, D>,
) -> Option<f64>
where
    S: HybridInputSystem<D, K> + ?Sized,
    I: InputSignal<D, K>,
{
    match driven.input(t, x) {
        Ok(u) => driven.system.mode_guard_with_input(mode, guard, t, x, &u),
        Err(_) => driven.system.mode_guard_with_input(mode, guard, t, x, &SVector::zeros()).map(|_| f64::NAN),
    }
}

/// `mode`'s reset at the signal's inputs where the inputs enter its law
/// ([`HybridInputSystem::mode_reset_with_input`]), `None` otherwise.
#[allow(clippy::type_complexity)]
fn driven_reset<S, I, const D: usize, const K: usize>(
    driven: &Driven<'_, S, I, K>,
    mode: usize,
    guard: usize,
    t: f64,
    x: &SVector<f64, D>,
) -> Option<Result<(usize, SVector<f64, D>), FieldError>>
where
    S: HybridInputSystem<D, K> + ?Sized,
    I: InputSignal<D, K>,
{
    match driven.input(t, x) {
        Ok(u) => driven.system.mode_reset_with_input(mode, guard, t, x, &u),
        Err(e) => driven.system.mode_reset_with_input(mode, guard, t, x, &SVector::zeros()).map(|_| Err(e)),
    }
}

/// `mode`'s field at the signal's inputs.
fn mode_field<S, I, const D: usize, const K: usize>(
    driven: &Driven<'_, S, I, K>,
    mode: usize,
    t: f64,
    x: &SVector<f64, D>,
) -> Result<SVector<f64, D>, FieldError>
where
    S: HybridInputSystem<D, K> + ?Sized,
    I: InputSignal<D, K>,
{
    let u = driven.input(t, x)?;
    driven.system.mode_field_with_input(mode, t, x, &u)
}

impl<G, S, I, const D: usize, const K: usize> HybridSystem<D> for DrivenOn<'_, G, S, I, K>
where
    G: HybridSystem<D> + ?Sized,
    S: HybridInputSystem<D, K> + ?Sized,
    I: InputSignal<D, K>,
{
    fn mode_count(&self) -> usize {
        self.geometry.mode_count()
    }
    fn mode_name(&self, mode: usize) -> &'static str {
        self.geometry.mode_name(mode)
    }
    fn mode_field(&self, mode: usize, t: f64, x: &SVector<f64, D>) -> Result<SVector<f64, D>, FieldError> {
        mode_field(&self.driven, mode, t, x)
    }
    fn guard_count(&self, mode: usize) -> usize {
        self.geometry.guard_count(mode)
    }
    fn guard_name(&self, mode: usize, guard: usize) -> &'static str {
        self.geometry.guard_name(mode, guard)
    }
    fn guard(&self, mode: usize, guard: usize, t: f64, x: &SVector<f64, D>) -> f64 {
        match driven_guard(&self.driven, mode, guard, t, x) {
            Some(h) => h,
            None => self.geometry.guard(mode, guard, t, x),
        }
    }
    fn guard_rate(&self, mode: usize, guard: usize, t: f64, x: &SVector<f64, D>) -> f64 {
        if driven_guard(&self.driven, mode, guard, t, x).is_none() {
            return self.geometry.guard_rate(mode, guard, t, x);
        }
        // dh/dt of h(t, x, u(t, x)) along the driven flow, by central differences.
        let Ok(f) = mode_field(&self.driven, mode, t, x) else { return f64::NAN };
        let delta = crate::ode::field::FD_STEP * (1.0 + x.amax()) / (1.0 + f.amax());
        let at = |s: f64| driven_guard(&self.driven, mode, guard, t + s, &(x + f * s)).unwrap_or(f64::NAN);
        (at(delta) - at(-delta)) / (2.0 * delta)
    }
    fn reset(&self, mode: usize, guard: usize, t: f64, x: &SVector<f64, D>) -> Result<(usize, SVector<f64, D>), FieldError> {
        match driven_reset(&self.driven, mode, guard, t, x) {
            Some(reset) => reset,
            None => self.geometry.reset(mode, guard, t, x),
        }
    }
    fn mode_energy(&self, mode: usize, t: f64, x: &SVector<f64, D>) -> f64 {
        self.geometry.mode_energy(mode, t, x)
    }
    fn project(&self, mode: usize, t: f64, x: &SVector<f64, D>) -> Option<Result<SVector<f64, D>, FieldError>> {
        self.geometry.project(mode, t, x)
    }
    fn constraint_residuals(&self, mode: usize, t: f64, x: &SVector<f64, D>) -> Option<(f64, f64)> {
        self.geometry.constraint_residuals(mode, t, x)
    }
    fn is_autonomous(&self) -> Option<bool> {
        // A signal may depend on time whatever the model does.
        match self.geometry.is_autonomous() {
            Some(false) => Some(false),
            _ => None,
        }
    }
    fn constraint_multipliers(&self, mode: usize, t: f64, x: &SVector<f64, D>) -> Vec<(&'static str, f64)> {
        match self.driven.input(t, x) {
            Ok(u) => self.driven.system.mode_multipliers_with_input(mode, t, x, &u),
            Err(_) => Vec::new(),
        }
    }
    fn zeno_completion(
        &self,
        mode: usize,
        guard: usize,
        t: f64,
        x: &SVector<f64, D>,
    ) -> Option<Result<Completion<D>, FieldError>> {
        // The completing transition's reset is geometric (a projection onto the held contact);
        // whether the contact then holds is its multiplier guard's, read at the inputs.
        self.geometry.zeno_completion(mode, guard, t, x)
    }
    fn mode_dimension(&self, mode: usize) -> usize {
        self.geometry.mode_dimension(mode)
    }
    fn mode_energy_gradient(&self, mode: usize, t: f64, x: &SVector<f64, D>) -> SVector<f64, D> {
        self.geometry.mode_energy_gradient(mode, t, x)
    }
    fn guard_gradient(&self, mode: usize, guard: usize, t: f64, x: &SVector<f64, D>) -> SVector<f64, D> {
        if driven_guard(&self.driven, mode, guard, t, x).is_none() {
            return self.geometry.guard_gradient(mode, guard, t, x);
        }
        crate::ode::field::gradient_fd(|y| driven_guard(&self.driven, mode, guard, t, y).unwrap_or(f64::NAN), x)
    }
    fn reset_jacobian(&self, mode: usize, guard: usize, t: f64, x: &SVector<f64, D>) -> Result<SMatrix<f64, D, D>, FieldError> {
        if driven_reset(&self.driven, mode, guard, t, x).is_none() {
            return self.geometry.reset_jacobian(mode, guard, t, x);
        }
        let reset = |_t: f64, y: &SVector<f64, D>| match driven_reset(&self.driven, mode, guard, t, y) {
            Some(reset) => reset.map(|(_, post)| post),
            None => Err(FieldError::NonFinite { t }),
        };
        crate::ode::field::jacobian_fd(&reset, t, x, crate::ode::field::FD_STEP)
    }
}

impl<const D: usize> Joined<D> for HybridTrajectory<D> {
    fn first_time(&self) -> Option<f64> {
        self.times.first().copied()
    }
    fn end_state(&self) -> SVector<f64, D> {
        self.end.2
    }
    fn finished(&self) -> bool {
        matches!(self.stop, HybridStop::Finished)
    }
    fn append(&mut self, next: Self, skip: usize) {
        self.times.extend(next.times.iter().skip(skip));
        self.states.extend(next.states.iter().skip(skip));
        self.modes.extend(next.modes.iter().skip(skip));
        self.impacts.extend(next.impacts);
        self.events.extend(next.events);
        self.stats += next.stats;
        self.segments.extend(next.segments);
        self.constraints = join_reports(self.constraints, next.constraints);
        self.stop = next.stop;
        self.end = next.end;
    }
}

/// Sampled-data control of a hybrid system with impacts (`geometry`: its guards and resets at any
/// input, see [`DrivenOn`]): each hold interval is a hybrid run at the held input, starting in the
/// mode and state the last one ended in, so impacts inside an interval keep its input and a sample
/// right after an impact reads the post-impact state. The run ends early, with the interval's
/// [`HybridStop`], when an interval does not finish (Zeno, a terminal event, the impact limit).
///
/// # Errors
/// As the smooth sampled run's and the hybrid run's.
pub(crate) fn simulate_sampled_hybrid<G, S, L, const D: usize, const K: usize>(
    (geometry, sys): (&G, &S),
    (start, span): (ModeState<D>, Range<f64>),
    events: &[Event<'_, D>],
    options: &HybridOptions,
    hold: ZeroOrderHold<L, K>,
) -> RunResult<Sampled<HybridTrajectory<D>, K>>
where
    G: HybridSystem<D> + ?Sized,
    S: HybridInputSystem<D, K> + ?Sized,
    L: FnMut(f64, &SVector<f64, D>) -> SVector<f64, K>,
{
    let segment = |u: SVector<f64, K>, span: Range<f64>, before: &HybridTrajectory<D>, output: Output| {
        let mut options = options.clone();
        options.ode.output = output;
        let (_, mode, x) = before.end;
        simulate_hybrid_with_events(&DrivenOn::new(geometry, sys, u), mode, x, span, events, &options)
    };
    let first = HybridTrajectory {
        times: Vec::new(),
        states: Vec::new(),
        modes: Vec::new(),
        mode_names: (0..geometry.mode_count()).map(|m| geometry.mode_name(m)).collect(),
        impacts: Vec::new(),
        stop: HybridStop::Finished,
        stats: Stats::default(),
        initial_mode: start.mode,
        segments: Vec::new(),
        events: Vec::new(),
        constraints: None,
        end: (span.start, start.mode, start.state),
    };
    sampled(first, span, hold, &options.ode.output, segment, sys.input_names())
}
