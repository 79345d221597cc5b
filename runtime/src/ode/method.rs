//! The method axis of the step loop: what [`crate::Integrator`] needs of a Runge–Kutta pair.
//!
//! The step loop ([`crate::stepper`]) owns step-size control, the step floor and budget, controller
//! hooks and the drivers' protocol; a [`Method`] owns one step: its stages, its embedded error
//! estimate, its first-same-as-last stage and its continuous extension. [`Dopri5`] (Dormand–Prince
//! 5(4), [`crate::dopri5`]) is the method of every driver today; another explicit pair (DOP853) or
//! an implicit or Lie-group method is a further implementation, reusing the loop and its hooks.

use crate::error::SimError;
use crate::ode::dopri5::Dense;
use crate::ode::options::Tolerances;
use crate::ode::state::{State, StateField};

pub use crate::ode::dopri5::Dopri5;

/// Outcome of one step attempt of a [`Method`].
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub enum Attempt {
    /// Stages computed; `err` is the scaled RMS error of the embedded estimate (possibly `+∞`).
    Done {
        /// The error in units of the tolerances (`≤ 1` passes).
        err: f64,
    },
    /// A stage or the new state was NaN/∞ (or the field said so): retry with a smaller step.
    NonFinite,
}

/// One step of an adaptive method, as the step loop drives it.
pub trait Method<S: State>: Sized {
    /// Order of the error estimator's lower member plus one: the step-size controller scales the
    /// step by `err^(−1/ORDER)` (5 for Dormand–Prince 5(4)).
    const ORDER: f64;

    /// The work space of a method whose first step starts where the field is `k1`.
    fn new(k1: S) -> Self;

    /// Attempt a step of size `h` from `(t, x)`; the first stage must hold `F(t, x)`. On
    /// [`Attempt::Done`] the new state is [`Method::x_new`].
    ///
    /// # Errors
    /// A field error other than [`crate::FieldError::NonFinite`] (which is [`Attempt::NonFinite`]).
    fn attempt<F>(&mut self, f: &F, t: f64, x: &S, h: f64, tol: Tolerances, evaluations: &mut usize) -> Result<Attempt, SimError>
    where
        F: StateField<S> + ?Sized;

    /// The state at the end of the last successful attempt.
    fn x_new(&self) -> &S;

    /// Replace the state at the end of the last step (a projection); see [`Method::restart`].
    fn replace_x_new(&mut self, x: S);

    /// Set the first stage, `F(t, x)` at the start of the next step, after the state was replaced.
    fn restart(&mut self, k1: S);

    /// Move to the end of the accepted step (first same as last: its last stage is the next first).
    fn advance(&mut self);

    /// The continuous extension of the last successful attempt `(t, x) → (t + h, x_new)`, valid on
    /// `[t, t_end]`.
    fn dense(&self, t: f64, x: &S, h: f64, t_end: f64) -> Dense<S>;
}
