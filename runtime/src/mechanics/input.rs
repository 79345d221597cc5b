//! Systems driven by control inputs: x' = F(t, x, u).
//!
//! A model declared with `input(u1, ...)` implements [`InputSystem`]; what drives it is an
//! [`InputSignal`] — constant values (an `SVector` or an array) or a feedback law, any closure
//! `Fn(f64, &SVector<f64, D>) -> SVector<f64, K>` of (t, x). [`Driven`] pairs the two into an
//! ordinary [`VectorField`], so every integrator and event function of the runtime applies.
//!
//! ```
//! use routh_runtime::input::{Driven, InputSignal, InputSystem};
//! use routh_runtime::nalgebra::{SVector, Vector1, Vector2};
//! use routh_runtime::{FieldError, VectorField};
//!
//! /// A unit mass pushed by the force u: x'' = u.
//! struct Mass;
//! impl InputSystem<2, 1> for Mass {
//!     fn field_with_input(&self, _t: f64, x: &Vector2<f64>, u: &Vector1<f64>) -> Result<Vector2<f64>, FieldError> {
//!         Ok(Vector2::new(x[1], u[0]))
//!     }
//! }
//! // A PD feedback u = −2x − 3ẋ as a closure of (t, x), and a constant push.
//! let feedback = |_t: f64, x: &Vector2<f64>| Vector1::new(-2.0 * x[0] - 3.0 * x[1]);
//! let dx = Driven::new(&Mass, feedback).field(0.0, &Vector2::new(1.0, 0.0))?;
//! assert_eq!(dx, Vector2::new(0.0, -2.0));
//! assert_eq!(Driven::new(&Mass, [0.5]).field(0.0, &Vector2::zeros())?, Vector2::new(0.0, 0.5));
//! # Ok::<(), FieldError>(())
//! ```

use nalgebra::{SMatrix, SVector};

use crate::error::FieldError;
use crate::ode::field::VectorField;

/// A first-order system with `K` inputs, x' = F(t, x, u).
pub trait InputSystem<const D: usize, const K: usize> {
    /// Evaluate `F(t, x, u)`.
    ///
    /// # Errors
    /// A [`FieldError`] if the field cannot be evaluated at `(t, x, u)`.
    fn field_with_input(&self, t: f64, x: &SVector<f64, D>, u: &SVector<f64, K>) -> Result<SVector<f64, D>, FieldError>;
}

/// What drives an [`InputSystem`]: the input values at (t, x).
pub trait InputSignal<const D: usize, const K: usize> {
    /// The inputs u(t, x).
    fn input(&self, t: f64, x: &SVector<f64, D>) -> SVector<f64, K>;
}

/// Constant inputs.
impl<const D: usize, const K: usize> InputSignal<D, K> for SVector<f64, K> {
    fn input(&self, _t: f64, _x: &SVector<f64, D>) -> SVector<f64, K> {
        *self
    }
}

/// Constant inputs, as an array.
impl<const D: usize, const K: usize> InputSignal<D, K> for [f64; K] {
    fn input(&self, _t: f64, _x: &SVector<f64, D>) -> SVector<f64, K> {
        SVector::from(*self)
    }
}

/// A signal or feedback law u(t, x).
impl<const D: usize, const K: usize, G> InputSignal<D, K> for G
where
    G: Fn(f64, &SVector<f64, D>) -> SVector<f64, K>,
{
    fn input(&self, t: f64, x: &SVector<f64, D>) -> SVector<f64, K> {
        self(t, x)
    }
}

/// A system and the signal that drives it: the vector field x' = F(t, x, u(t, x)) (`K` inputs).
pub struct Driven<'s, S: ?Sized, I, const K: usize> {
    system: &'s S,
    signal: I,
}

impl<'s, S: ?Sized, I, const K: usize> Driven<'s, S, I, K> {
    /// `system` driven by `signal`.
    pub fn new(system: &'s S, signal: I) -> Self {
        Driven { system, signal }
    }
}

impl<S, I, const D: usize, const K: usize> VectorField<D> for Driven<'_, S, I, K>
where
    S: InputSystem<D, K> + ?Sized,
    I: InputSignal<D, K>,
{
    #[inline]
    fn field(&self, t: f64, x: &SVector<f64, D>) -> Result<SVector<f64, D>, FieldError> {
        let u = self.signal.input(t, x);
        if !u.iter().all(|v| v.is_finite()) {
            return Err(FieldError::NonFinite { t });
        }
        self.system.field_with_input(t, x, &u)
    }
}

/// The linearisation x' ≈ F(t, x₀, u₀) + A (x − x₀) + B (u − u₀) about a state and input.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Linearization<const D: usize, const K: usize> {
    /// A = ∂F/∂x.
    pub a: SMatrix<f64, D, D>,
    /// B = ∂F/∂u.
    pub b: SMatrix<f64, D, K>,
}
