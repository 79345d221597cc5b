//! Fixed points of a vector field — equilibria of a model, relative equilibria of a reduced
//! system (steady motions: a rover circling at constant wheel rates is a fixed point of its
//! nonholonomic reduction) — located by Gauss–Newton from a guess, with their linear stability.
//!
//! Relative equilibria often come in families (a circle of any radius), where the Jacobian is
//! singular along the family. Components named in [`FixedPointOptions::fixed`] are held at the
//! guess's values (the family's parameter), and each step solves the remaining least-squares
//! problem by the SVD (minimum-norm steps), so an overdetermined or rank-deficient system still
//! converges quadratically to a zero residual. Steps are halved while they do not decrease the
//! residual. The Jacobian is the field's exact one when it offers it
//! ([`VectorField::exact_jacobian`]: generated models with `jacobian`, and every reduced system in
//! first-order form), else central differences ([`jacobian_fd`]); the stability eigenvalues are
//! those of the whole Jacobian at the point found.
//!
//! ```
//! use routh_runtime::equilibrium::{FixedPointOptions, fixed_point};
//! use routh_runtime::nalgebra::Vector2;
//! use routh_runtime::FieldError;
//! // A pendulum: equilibria at θ = kπ; from 3 Newton finds π, a saddle.
//! let pendulum = |_t: f64, x: &Vector2<f64>| -> Result<Vector2<f64>, FieldError> { Ok(Vector2::new(x[1], -x[0].sin())) };
//! let p = fixed_point(&pendulum, 0.0, Vector2::new(3.0, 0.1), &FixedPointOptions::default()).unwrap();
//! assert!((p.state[0] - std::f64::consts::PI).abs() < 1e-12);
//! let lambda = p.eigenvalues();
//! assert!(lambda.iter().any(|&(re, _)| (re - 1.0).abs() < 1e-6));
//! assert!(!p.is_stable());
//! ```

use nalgebra::{DMatrix, DVector, SMatrix, SVector};

use crate::error::FieldError;
use crate::ode::field::{VectorField, jacobian_fd};

/// Options of [`fixed_point`].
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub struct FixedPointOptions {
    /// Converged when the largest |Fᵢ| is at most this (default 1e-12).
    #[cfg_attr(feature = "serde", serde(with = "crate::serde_floats"))]
    pub tolerance: f64,
    /// The most Gauss–Newton steps (default 50).
    pub max_iterations: usize,
    /// State components held at the guess's values (default none).
    pub fixed: Vec<usize>,
}

impl Default for FixedPointOptions {
    fn default() -> Self {
        FixedPointOptions { tolerance: 1e-12, max_iterations: 50, fixed: Vec::new() }
    }
}

impl FixedPointOptions {
    setters! {
        /// Converged when the largest |Fᵢ| is at most this.
        tolerance: f64,
        /// The most Gauss–Newton steps.
        max_iterations: usize,
        /// State components held at the guess's values (a family's parameter).
        fixed: Vec<usize>,
    }
}

/// A fixed point F(t, x) = 0 found by [`fixed_point`].
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub struct FixedPoint<const D: usize> {
    /// The point.
    #[cfg_attr(feature = "serde", serde(with = "crate::serde_floats"))]
    pub state: SVector<f64, D>,
    /// The largest |Fᵢ| there.
    #[cfg_attr(feature = "serde", serde(with = "crate::serde_floats"))]
    pub residual: f64,
    /// Gauss–Newton steps taken.
    pub iterations: usize,
    /// ∂F/∂x there (central differences).
    #[cfg_attr(feature = "serde", serde(with = "crate::serde_floats"))]
    pub jacobian: SMatrix<f64, D, D>,
}

impl<const D: usize> FixedPoint<D> {
    /// The eigenvalues of ∂F/∂x as (re, im) pairs.
    #[must_use]
    pub fn eigenvalues(&self) -> Vec<(f64, f64)> {
        DMatrix::from_column_slice(D, D, self.jacobian.as_slice()).complex_eigenvalues().iter().map(|c| (c.re, c.im)).collect()
    }

    /// Whether every eigenvalue has a negative real part (asymptotically stable). A relative
    /// equilibrium of a conservative system is at best neutrally stable: read the eigenvalues.
    #[must_use]
    pub fn is_stable(&self) -> bool {
        self.eigenvalues().iter().all(|&(re, _)| re < 0.0)
    }
}

/// Why [`fixed_point`] found no point.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum FixedPointError {
    /// The field could not be evaluated.
    #[error("the field could not be evaluated: {0}")]
    Field(#[from] FieldError),
    /// No convergence within the iterations; the last iterate is kept.
    #[error("no fixed point within {iterations} iterations: residual {residual:e}")]
    NotConverged {
        /// The last iterate.
        state: Vec<f64>,
        /// The largest |Fᵢ| there.
        residual: f64,
        /// Steps taken.
        iterations: usize,
    },
    /// A component of `fixed` is out of range.
    #[error("component {0} is out of the state's range")]
    BadComponent(usize),
}

/// Locates a fixed point of `field` at time `t` from `guess` (see the [module docs](self)).
///
/// # Errors
/// [`FixedPointError`]: a failed evaluation, or no convergence (with the last iterate).
pub fn fixed_point<F, const D: usize>(
    field: &F,
    t: f64,
    guess: SVector<f64, D>,
    options: &FixedPointOptions,
) -> Result<FixedPoint<D>, FixedPointError>
where
    F: VectorField<D> + ?Sized,
{
    if let Some(&bad) = options.fixed.iter().find(|&&i| i >= D) {
        return Err(FixedPointError::BadComponent(bad));
    }
    let free: Vec<usize> = (0..D).filter(|i| !options.fixed.contains(i)).collect();
    let norm = |f: &SVector<f64, D>| f.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    let mut x = guess;
    let mut f = field.field(t, &x)?;
    let mut residual = norm(&f);
    let mut iterations = 0;
    while residual > options.tolerance || !residual.is_finite() {
        if iterations == options.max_iterations || !residual.is_finite() {
            return Err(FixedPointError::NotConverged { state: x.iter().copied().collect(), residual, iterations });
        }
        iterations += 1;
        let jac = jacobian(field, t, &x)?;
        let a = DMatrix::from_fn(D, free.len(), |i, j| jac[(i, free[j])]);
        let b = DVector::from_fn(D, |i, _| -f[i]);
        let svd = a.svd(true, true);
        let eps = 1e-12 * svd.singular_values.max();
        let step = svd.solve(&b, eps).map_err(|_| FixedPointError::NotConverged {
            state: x.iter().copied().collect(),
            residual,
            iterations,
        })?;
        // Halve the step while the residual does not decrease.
        let mut scale = 1.0;
        loop {
            let mut trial = x;
            for (j, &i) in free.iter().enumerate() {
                trial[i] += scale * step[j];
            }
            let ft = field.field(t, &trial);
            if let Ok(ft) = ft {
                let r = norm(&ft);
                if r < residual || scale < 1e-3 {
                    x = trial;
                    f = ft;
                    residual = r;
                    break;
                }
            } else if scale < 1e-3 {
                ft?;
            }
            scale *= 0.5;
        }
    }
    let jacobian = jacobian(field, t, &x)?;
    Ok(FixedPoint { state: x, residual, iterations, jacobian })
}

/// The field's exact Jacobian if it has one, else central differences.
fn jacobian<F, const D: usize>(field: &F, t: f64, x: &SVector<f64, D>) -> Result<SMatrix<f64, D, D>, FieldError>
where
    F: VectorField<D> + ?Sized,
{
    match field.exact_jacobian(t, x) {
        Some(j) => j,
        None => jacobian_fd(field, t, x, 0.0),
    }
}

#[cfg(test)]
mod tests {
    use nalgebra::Vector3;

    use super::*;

    #[test]
    fn a_family_of_circles_is_found_at_the_held_radius() {
        // ẋ = (1 − r²)·x-ish: the unit circle is a family of fixed points of
        // F = ((x² + y² − ρ²) x, (x² + y² − ρ²) y, ρ − 1): holding x finds y on the circle.
        let field = |_t: f64, s: &Vector3<f64>| -> Result<Vector3<f64>, FieldError> {
            let c = s[0] * s[0] + s[1] * s[1] - s[2] * s[2];
            Ok(Vector3::new(c * s[0], c * s[1], s[2] - 1.0))
        };
        let options = FixedPointOptions::default().fixed(vec![0]);
        let p = fixed_point(&field, 0.0, Vector3::new(0.6, 0.9, 1.2), &options).unwrap();
        assert_eq!(p.state[0], 0.6);
        assert!((p.state[1] - 0.8).abs() < 1e-10 && (p.state[2] - 1.0).abs() < 1e-12, "{:?}", p.state);
        assert!(p.residual <= 1e-12);
    }

    #[test]
    fn no_fixed_point_keeps_the_last_iterate() {
        let field =
            |_t: f64, s: &Vector3<f64>| -> Result<Vector3<f64>, FieldError> { Ok(Vector3::new(1.0 + s[0] * s[0], 0.0, 0.0)) };
        let err = fixed_point(&field, 0.0, Vector3::zeros(), &FixedPointOptions::default().max_iterations(5)).unwrap_err();
        assert!(matches!(err, FixedPointError::NotConverged { ref state, .. } if state.len() == 3), "{err:?}");
        assert!(matches!(
            fixed_point(&field, 0.0, Vector3::zeros(), &FixedPointOptions::default().fixed(vec![3])),
            Err(FixedPointError::BadComponent(3))
        ));
    }
}
