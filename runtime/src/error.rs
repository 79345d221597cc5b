//! Error types.
//!
//! Three layers of failure are distinguished:
//!
//! * [`SingularMatrix`] — a dense linear solve ([`crate::solve_mass`]) found no usable pivot;
//! * [`FieldError`] — evaluating a vector field `F(t, x)` failed (generated code maps a
//!   [`SingularMatrix`] to [`FieldError::SingularMassMatrix`] with [`SingularMatrix::at`]);
//! * [`SimError`] — the integration as a whole failed; a [`FieldError`] converts into it with `?`.

use thiserror::Error;

/// Failure to evaluate a vector field `x' = F(t, x)`.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum FieldError {
    /// The mass matrix `M(q)` could not be factorised at time `t`.
    #[error("mass matrix is singular at t = {t}")]
    SingularMassMatrix {
        /// Time of the failed evaluation.
        t: f64,
    },
    /// The field produced a NaN or an infinity at time `t`.
    #[error("non-finite value in the vector field at t = {t}")]
    NonFinite {
        /// Time of the failed evaluation.
        t: f64,
    },
}

/// A linear system had no unique, finite solution.
///
/// Returned by [`crate::solve_mass`] and [`crate::solve_mass_columns`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Error)]
#[error("singular matrix")]
pub struct SingularMatrix;

impl SingularMatrix {
    /// Attach the time of the evaluation, giving [`FieldError::SingularMassMatrix`].
    ///
    /// ```
    /// use routh_runtime::{FieldError, SingularMatrix};
    /// assert_eq!(SingularMatrix.at(2.0), FieldError::SingularMassMatrix { t: 2.0 });
    /// ```
    #[must_use]
    pub fn at(self, t: f64) -> FieldError {
        FieldError::SingularMassMatrix { t }
    }
}

/// Failure of [`crate::integrate()`].
#[derive(Debug, Clone, PartialEq, Error)]
pub enum SimError {
    /// The step size fell below the allowed minimum (see [`crate::Options::min_step`]):
    /// the problem is probably stiff or has a singularity near `t`.
    #[error("step size underflow at t = {t} (h = {h})")]
    StepSizeUnderflow {
        /// Time at which the integration stopped.
        t: f64,
        /// The rejected step size.
        h: f64,
    },
    /// The solution became NaN or infinite and shrinking the step did not help.
    #[error("non-finite state at t = {t}")]
    NonFiniteState {
        /// Time at which the integration stopped.
        t: f64,
    },
    /// The vector field reported a singular mass matrix.
    #[error("mass matrix is singular at t = {t}")]
    SingularMassMatrix {
        /// Time of the failed evaluation.
        t: f64,
    },
    /// More than [`crate::Options::max_steps`] step attempts were needed.
    #[error("step limit of {steps} reached at t = {t}")]
    StepLimit {
        /// Time reached.
        t: f64,
        /// The limit that was hit.
        steps: usize,
    },
    /// An option was out of range; the message names it.
    #[error("invalid options: {0}")]
    InvalidOptions(String),
    /// The initial state contains NaN or infinite components.
    #[error("initial state contains non-finite values")]
    InvalidInitialState,
    /// The time span has a non-finite end point (or its length overflows).
    #[error("invalid time span {t0}..{t1}")]
    InvalidTimeSpan {
        /// Start of the span.
        t0: f64,
        /// End of the span.
        t1: f64,
    },
}

impl From<FieldError> for SimError {
    fn from(e: FieldError) -> Self {
        match e {
            FieldError::SingularMassMatrix { t } => SimError::SingularMassMatrix { t },
            FieldError::NonFinite { t } => SimError::NonFiniteState { t },
        }
    }
}
