//! First-order vector fields `x' = F(t, x)` and a finite-difference Jacobian.
//!
//! A mechanical system with generalised coordinates `q ∈ ℝⁿ` is integrated as the first-order
//! system on `x = (q, q̇) ∈ ℝ²ⁿ`:
//!
//! ```text
//! d/dt (q, q̇) = (q̇, M(q)⁻¹ f(q, q̇, t))
//! ```
//!
//! Generated code implements [`VectorField`] for its system type; closures
//! `Fn(f64, &SVector<f64, D>) -> Result<SVector<f64, D>, FieldError>` implement it too, which is
//! convenient in tests.

use nalgebra::{SMatrix, SVector};

use crate::error::FieldError;

/// A first-order system `x' = F(t, x)`. Generated mechanical systems implement it with
/// `x = (q, q̇)`.
///
/// # Example
/// ```
/// use routh_runtime::{FieldError, VectorField, nalgebra::Vector2};
///
/// /// Harmonic oscillator q̈ = −ω² q.
/// struct Oscillator { omega: f64 }
///
/// impl VectorField<2> for Oscillator {
///     fn field(&self, _t: f64, x: &Vector2<f64>) -> Result<Vector2<f64>, FieldError> {
///         Ok(Vector2::new(x[1], -self.omega * self.omega * x[0]))
///     }
/// }
///
/// let dx = Oscillator { omega: 2.0 }.field(0.0, &Vector2::new(1.0, 0.0))?;
/// assert_eq!(dx, Vector2::new(0.0, -4.0));
/// # Ok::<(), FieldError>(())
/// ```
pub trait VectorField<const D: usize> {
    /// Evaluate `F(t, x)`.
    ///
    /// # Errors
    /// A [`FieldError`] if the field cannot be evaluated at `(t, x)`.
    fn field(&self, t: f64, x: &SVector<f64, D>) -> Result<SVector<f64, D>, FieldError>;

    /// ∂F/∂x at `(t, x)` in closed form, if the field has it: generated models with their field
    /// Jacobian (`jacobian` in `#[mechanics]`) return it, and the implicit method
    /// ([`Scheme::Rodas4`](crate::method::Scheme::Rodas4)) uses it instead of differences. `None`
    /// by default.
    ///
    /// # Errors
    /// As [`VectorField::field`].
    fn exact_jacobian(&self, _t: f64, _x: &SVector<f64, D>) -> Option<Result<SMatrix<f64, D, D>, FieldError>> {
        None
    }
}

impl<const D: usize, G> VectorField<D> for G
where
    G: Fn(f64, &SVector<f64, D>) -> Result<SVector<f64, D>, FieldError>,
{
    #[inline]
    fn field(&self, t: f64, x: &SVector<f64, D>) -> Result<SVector<f64, D>, FieldError> {
        self(t, x)
    }
}

/// Gradient of a scalar function of the state by central differences with the relative step
/// [`FD_STEP`] (δⱼ = FD_STEP · max(1, |xⱼ|), divided by the representable difference of the two
/// points).
#[must_use]
pub fn gradient_fd<const D: usize>(f: impl Fn(&SVector<f64, D>) -> f64, x: &SVector<f64, D>) -> SVector<f64, D> {
    let mut grad = SVector::<f64, D>::zeros();
    let mut xp = *x;
    for j in 0..D {
        let delta = FD_STEP * x[j].abs().max(1.0);
        let (plus, minus) = (x[j] + delta, x[j] - delta);
        xp[j] = plus;
        let hp = f(&xp);
        xp[j] = minus;
        let hm = f(&xp);
        xp[j] = x[j];
        grad[j] = (hp - hm) / (plus - minus);
    }
    grad
}

/// Default relative step of [`jacobian_fd`], `ε^{1/3}`, optimal for central differences.
pub const FD_STEP: f64 = 6.055_454_452_393_343e-6;

/// Jacobian `∂F/∂x` at `(t, x)` by central differences.
///
/// Column `j` is `(F(t, x + δⱼ eⱼ) − F(t, x − δⱼ eⱼ)) / (2 δⱼ)` with
/// `δⱼ = h · max(1, |xⱼ|)`, so `h` is a relative step (absolute for components below one).
/// The truncation error is `O(δ²)` and the round-off error `O(ε/δ)`; `h ≈ ε^{1/3}`
/// ([`FD_STEP`]) balances them, giving about 10 correct digits. A non-finite or non-positive
/// `h` is replaced by [`FD_STEP`]. Costs `2·D` field evaluations.
///
/// # Errors
/// The first [`FieldError`] from an evaluation, or [`FieldError::NonFinite`] if a difference
/// quotient is not finite.
///
/// # Example
/// ```
/// use routh_runtime::{jacobian_fd, FieldError, nalgebra::{Matrix2, Vector2}};
/// let f = |_t: f64, x: &Vector2<f64>| -> Result<Vector2<f64>, FieldError> {
///     Ok(Vector2::new(x[1], -x[0].sin()))
/// };
/// let j = jacobian_fd(&f, 0.0, &Vector2::new(0.3, 0.0), 1e-5)?;
/// let exact = Matrix2::new(0.0, 1.0, -(0.3f64).cos(), 0.0);
/// assert!((j - exact).norm() < 1e-9);
/// # Ok::<(), FieldError>(())
/// ```
pub fn jacobian_fd<F, const D: usize>(f: &F, t: f64, x: &SVector<f64, D>, h: f64) -> Result<SMatrix<f64, D, D>, FieldError>
where
    F: VectorField<D> + ?Sized,
{
    let h = if h.is_finite() && h > 0.0 { h } else { FD_STEP };
    let mut jac = SMatrix::<f64, D, D>::zeros();
    let mut xp = *x;
    for j in 0..D {
        let xj = x[j];
        let delta = h * xj.abs().max(1.0);
        // Use the exactly representable spacing actually realised.
        let plus = xj + delta;
        let minus = xj - delta;
        xp[j] = plus;
        let fp = f.field(t, &xp)?;
        xp[j] = minus;
        let fm = f.field(t, &xp)?;
        xp[j] = xj;
        let width = plus - minus;
        for i in 0..D {
            let d = (fp[i] - fm[i]) / width;
            if !d.is_finite() {
                return Err(FieldError::NonFinite { t });
            }
            jac[(i, j)] = d;
        }
    }
    Ok(jac)
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::{Matrix3, Vector3};

    #[test]
    fn jacobian_of_nonlinear_field() {
        let f = |t: f64, x: &Vector3<f64>| -> Result<Vector3<f64>, FieldError> {
            Ok(Vector3::new(x[0] * x[1], x[2].exp() + t, x[0].sin() * x[2]))
        };
        let x = Vector3::new(0.4, -1.3, 0.7);
        let j = jacobian_fd(&f, 0.5, &x, FD_STEP).unwrap();
        let exact = Matrix3::new(
            x[1],
            x[0],
            0.0, //
            0.0,
            0.0,
            x[2].exp(), //
            x[0].cos() * x[2],
            0.0,
            x[0].sin(),
        );
        assert!((j - exact).norm() < 1e-9, "{j} vs {exact}");
        // Bad step falls back to the default.
        let j2 = jacobian_fd(&f, 0.5, &x, f64::NAN).unwrap();
        assert_eq!(j, j2);
    }

    #[test]
    fn jacobian_propagates_errors() {
        let f = |t: f64, _x: &Vector3<f64>| -> Result<Vector3<f64>, FieldError> { Err(FieldError::SingularMassMatrix { t }) };
        assert_eq!(jacobian_fd(&f, 1.0, &Vector3::zeros(), 1e-6), Err(FieldError::SingularMassMatrix { t: 1.0 }));
        let g = |_t: f64, x: &Vector3<f64>| -> Result<Vector3<f64>, FieldError> {
            Ok(Vector3::new(if x[0] > 0.0 { f64::NAN } else { 0.0 }, 0.0, 0.0))
        };
        assert_eq!(jacobian_fd(&g, 1.0, &Vector3::zeros(), 1e-6), Err(FieldError::NonFinite { t: 1.0 }));
    }
}
