//! What the stepper integrates: any owned nalgebra matrix of `f64`, and fields on it.
//!
//! The Dormand–Prince stepper ([`crate::ode::stepper`]) only needs a state it can clone, zero and read
//! and write as one contiguous slice. Every owned nalgebra matrix is such a state: the usual
//! `SVector<f64, D>` of a mechanical system, but also a state whose size Rust's const generics
//! cannot compute — the flow together with its variational matrix `(x, Φ)` stored as an
//! `OMatrix<f64, Const<D>, Dyn>` with `1 + D` columns, or a `DVector<f64>`.
//!
//! [`StateField`] is the field on such a state. Every [`VectorField<D>`] is a
//! `StateField<SVector<f64, D>>`, so generated models and closures drive the stepper unchanged.
//!
//! ```
//! use routh_runtime::nalgebra::{DVector, SVector};
//! use routh_runtime::{FieldError, State, StateField};
//!
//! // Linear decay x' = −x on a state whose size is known only at run time.
//! struct Decay;
//! impl StateField<DVector<f64>> for Decay {
//!     fn eval(&self, _t: f64, x: &DVector<f64>) -> Result<DVector<f64>, FieldError> {
//!         Ok(-x)
//!     }
//! }
//! let x = DVector::from_vec(vec![1.0, 2.0, 3.0]);
//! assert_eq!(x.zeros_like().len(), 3);
//! assert_eq!(Decay.eval(0.0, &x)?.as_slice(), &[-1.0, -2.0, -3.0]);
//! // A closure over fixed-size vectors is a field on SVector through `VectorField`.
//! let osc = |_t: f64, x: &SVector<f64, 2>| -> Result<SVector<f64, 2>, FieldError> {
//!     Ok(SVector::<f64, 2>::new(x[1], -x[0]))
//! };
//! assert_eq!(StateField::eval(&osc, 0.0, &SVector::<f64, 2>::new(1.0, 0.0))?[1], -1.0);
//! # Ok::<(), FieldError>(())
//! ```

use nalgebra::allocator::Allocator;
use nalgebra::{DMatrix, DefaultAllocator, Dim, OMatrix, SVector};

use crate::error::FieldError;
use crate::ode::field::VectorField;

/// A state the stepper can integrate: cloned, zeroed, and read and written as one contiguous
/// slice of `f64` (the error norm and the stage sums run over that slice).
pub trait State: Clone {
    /// A state of the same shape with every entry zero.
    #[must_use]
    fn zeros_like(&self) -> Self;
    /// The entries, in storage order.
    fn entries(&self) -> &[f64];
    /// The entries, mutably, in storage order.
    fn entries_mut(&mut self) -> &mut [f64];
}

impl<R: Dim, C: Dim> State for OMatrix<f64, R, C>
where
    DefaultAllocator: Allocator<R, C>,
{
    #[inline]
    fn zeros_like(&self) -> Self {
        let (r, c) = self.shape_generic();
        OMatrix::<f64, R, C>::zeros_generic(r, c)
    }
    #[inline]
    fn entries(&self) -> &[f64] {
        self.as_slice()
    }
    #[inline]
    fn entries_mut(&mut self) -> &mut [f64] {
        self.as_mut_slice()
    }
}

/// A first-order system `x' = F(t, x)` on a [`State`] `S`.
///
/// Implemented for every [`VectorField<D>`] on `SVector<f64, D>`; implement it directly for
/// other states (a flow with its variational matrix, a state of run-time size).
pub trait StateField<S> {
    /// Evaluate `F(t, x)`.
    ///
    /// # Errors
    /// A [`FieldError`] if the field cannot be evaluated at `(t, x)`;
    /// [`FieldError::NonFinite`] makes the stepper retry with a smaller step.
    fn eval(&self, t: f64, x: &S) -> Result<S, FieldError>;

    /// The Jacobian ∂F/∂x at `(t, x)` over the state's entries, if the field has it in closed form
    /// (the implicit method uses it; `None`, the default, makes it take differences).
    ///
    /// # Errors
    /// As [`StateField::eval`].
    fn jacobian(&self, _t: f64, _x: &S) -> Option<Result<DMatrix<f64>, FieldError>> {
        None
    }
}

impl<F, const D: usize> StateField<SVector<f64, D>> for F
where
    F: VectorField<D> + ?Sized,
{
    #[inline]
    fn eval(&self, t: f64, x: &SVector<f64, D>) -> Result<SVector<f64, D>, FieldError> {
        self.field(t, x)
    }
    fn jacobian(&self, t: f64, x: &SVector<f64, D>) -> Option<Result<DMatrix<f64>, FieldError>> {
        self.exact_jacobian(t, x).map(|j| j.map(|j| DMatrix::from_column_slice(D, D, j.as_slice())))
    }
}
