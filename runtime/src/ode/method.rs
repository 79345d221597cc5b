//! The method axis of the step loop: what [`crate::Integrator`] needs of a Runge–Kutta pair.
//!
//! The step loop ([`crate::stepper`]) owns step-size control, the step floor and budget, controller
//! hooks and the drivers' protocol; a [`Method`] owns one step: its stages, its embedded error
//! estimate, its first-same-as-last stage and its continuous extension. [`Dopri5`] (Dormand–Prince
//! 5(4), [`crate::dopri5`]), [`Dop853`] (Dormand–Prince 8(5,3), [`crate::dop853`]) and the implicit
//! [`Rodas4`] (a Rosenbrock method for stiff models, [`crate::ode::rodas`]) are chosen by
//! [`crate::Options::scheme`] through [`Selected`]; a Lie-group method would be a further
//! implementation, reusing the loop and its hooks.

use crate::error::SimError;
use crate::ode::dopri5::Dense;
use crate::ode::state::{State, StateField};

pub use crate::ode::dop853::Dop853;
pub use crate::ode::dopri5::Dopri5;
pub use crate::ode::rodas::Rodas4;

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

/// The error tolerances of one step: a component `xᵢ` is accurate enough when its local error
/// is below `atol + rtol · max(|xᵢ|, |x̂ᵢ|)` in the RMS norm (see [`crate::ode::stepper`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Tolerances {
    /// Relative tolerance.
    pub rtol: f64,
    /// Absolute tolerance.
    pub atol: f64,
}

/// One step of an adaptive method, as the step loop drives it.
pub trait Method<S: State>: Sized {
    /// Order of the error estimator's lower member plus one: the step-size controller scales the
    /// step by `err^(−1/order)` (5 for Dormand–Prince 5(4), 8 for DOP853).
    fn order(&self) -> f64;

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
    /// `[t, t_end]`; a method may evaluate the field `f` for it (DOP853's three extra stages).
    ///
    /// # Errors
    /// A field error, or [`SimError::NonFiniteState`] at a non-finite extra stage.
    fn dense<F>(&self, f: &F, t: f64, x: &S, h: f64, t_end: f64, evaluations: &mut usize) -> Result<Dense<S>, SimError>
    where
        F: StateField<S> + ?Sized;
}

/// The method of a run ([`crate::Options::scheme`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub enum Scheme {
    /// Dormand–Prince 5(4) with its 4th-order dense output: six evaluations a step; the default.
    #[default]
    Dopri5,
    /// Dormand–Prince 8(5,3) (DOP853) with its 7th-order dense output: twelve evaluations a step
    /// (three more for a step whose dense output is used); fewer steps and evaluations than
    /// DOPRI5 at tight tolerances.
    Dop853,
    /// Rodas4, the L-stable Rosenbrock method of order 4(3) with its 3rd-order dense output
    /// ([`crate::ode::rodas`]), for stiff models: one LU factorisation and six solves a step, with
    /// the model's exact Jacobian when it generates one (`jacobian`), else forward differences.
    Rodas4,
}

/// The method a [`Scheme`] selects, as one [`Method`] (what [`crate::Integrator::new`] steps with).
pub enum Selected<S> {
    /// [`Scheme::Dopri5`].
    Dopri5(Dopri5<S>),
    /// [`Scheme::Dop853`].
    Dop853(Box<Dop853<S>>),
    /// [`Scheme::Rodas4`].
    Rodas4(Box<Rodas4<S>>),
}

impl<S: State> Selected<S> {
    /// The work space of `scheme` for a first step where the field is `k1`.
    pub fn of(scheme: Scheme, k1: S) -> Self {
        match scheme {
            Scheme::Dopri5 => Selected::Dopri5(Dopri5::new(k1)),
            Scheme::Dop853 => Selected::Dop853(Box::new(Dop853::new(k1))),
            Scheme::Rodas4 => Selected::Rodas4(Box::new(Rodas4::new(k1))),
        }
    }
}

macro_rules! each {
    ($self:expr, $m:ident => $e:expr) => {
        match $self {
            Selected::Dopri5($m) => $e,
            Selected::Dop853($m) => $e,
            Selected::Rodas4($m) => $e,
        }
    };
}

impl<S: State> Method<S> for Selected<S> {
    fn order(&self) -> f64 {
        each!(self, m => m.order())
    }
    fn new(k1: S) -> Self {
        Selected::of(Scheme::default(), k1)
    }
    #[inline]
    fn attempt<F>(&mut self, f: &F, t: f64, x: &S, h: f64, tol: Tolerances, evaluations: &mut usize) -> Result<Attempt, SimError>
    where
        F: StateField<S> + ?Sized,
    {
        each!(self, m => m.attempt(f, t, x, h, tol, evaluations))
    }
    #[inline]
    fn x_new(&self) -> &S {
        each!(self, m => m.x_new())
    }
    fn replace_x_new(&mut self, x: S) {
        each!(self, m => m.replace_x_new(x))
    }
    fn restart(&mut self, k1: S) {
        each!(self, m => m.restart(k1))
    }
    #[inline]
    fn advance(&mut self) {
        each!(self, m => m.advance())
    }
    fn dense<F>(&self, f: &F, t: f64, x: &S, h: f64, t_end: f64, evaluations: &mut usize) -> Result<Dense<S>, SimError>
    where
        F: StateField<S> + ?Sized,
    {
        each!(self, m => m.dense(f, t, x, h, t_end, evaluations))
    }
}
