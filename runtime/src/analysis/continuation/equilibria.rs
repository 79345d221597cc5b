//! Equilibria of a vector field continued in one of its parameters: r(x, λ) = F(x; λ) with the
//! unknowns u = (x, λ) and dr = [∂F/∂x | ∂F/∂λ] (the generated `jacobian` and a column of
//! `parameter_jacobian`). Turning points (folds, where an equilibrium appears or disappears with
//! another) and simple bifurcations (pitchforks, transcritical) are flagged and located as for any
//! [`Problem`].

use nalgebra::{DMatrix, DVector, SMatrix, SVector};

use super::Problem;
use crate::error::SimError;

/// F(x; λ), ∂F/∂x and ∂F/∂λ at (λ, x).
pub type Linearized<const D: usize> = (SVector<f64, D>, SMatrix<f64, D, D>, SVector<f64, D>);

/// The equilibria F(x; λ) = 0 of a field with the parameter λ, as a continuation [`Problem`]:
/// u = (x, λ), the parameter the last unknown.
///
/// ```
/// use routh_runtime::continuation::{continuation, ContinuationOptions, Special, Start};
/// use routh_runtime::continuation::equilibria::{Equilibria, unknowns};
/// use routh_runtime::nalgebra::{Matrix1, Vector1};
/// // ẋ = λ − x²: the fold at λ = 0.
/// let fold = Equilibria::new(|l: f64, x: &Vector1<f64>| Ok((Vector1::new(l - x[0] * x[0]), Matrix1::new(-2.0 * x[0]), Vector1::new(1.0))));
/// let options = ContinuationOptions::default().max_points(40).progress(false);
/// let branch = continuation(&fold, &unknowns(&Vector1::new(1.0), 1.0), Start::Decreasing, &options)?;
/// let turn = branch.special(Special::TurningPoint).next().expect("the fold");
/// assert!(turn.u[1].abs() < 1e-9 && turn.u[0].abs() < 1e-4);
/// # Ok::<(), routh_runtime::continuation::ContinuationError>(())
/// ```
pub struct Equilibria<E, const D: usize> {
    eval: E,
}

impl<E, const D: usize> Equilibria<E, D>
where
    E: Fn(f64, &SVector<f64, D>) -> Result<Linearized<D>, SimError>,
{
    /// The problem of `eval(λ, x) = (F, ∂F/∂x, ∂F/∂λ)`.
    pub fn new(eval: E) -> Self {
        Equilibria { eval }
    }
}

/// The unknowns u = (x, λ) of the state `x` at the parameter value `lambda`.
#[must_use]
pub fn unknowns<const D: usize>(x: &SVector<f64, D>, lambda: f64) -> DVector<f64> {
    DVector::from_iterator(D + 1, x.iter().copied().chain([lambda]))
}

/// The state and the parameter value of the unknowns `u` (of length D + 1).
#[must_use]
pub fn split<const D: usize>(u: &DVector<f64>) -> (SVector<f64, D>, f64) {
    (SVector::from_fn(|i, _| u[i]), u[D])
}

impl<E, const D: usize> Problem for Equilibria<E, D>
where
    E: Fn(f64, &SVector<f64, D>) -> Result<Linearized<D>, SimError>,
{
    fn unknowns(&self) -> usize {
        D + 1
    }
    fn parameter(&self) -> usize {
        D
    }
    fn linearize(&self, u: &DVector<f64>) -> Result<(DVector<f64>, DMatrix<f64>), SimError> {
        let (x, lambda) = split::<D>(u);
        let (f, j, fp) = (self.eval)(lambda, &x)?;
        let mut dr = DMatrix::zeros(D, D + 1);
        dr.view_mut((0, 0), (D, D)).copy_from(&j);
        dr.set_column(D, &fp);
        Ok((DVector::from_column_slice(f.as_slice()), dr))
    }
}
