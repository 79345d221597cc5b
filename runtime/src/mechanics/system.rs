//! The central trait of the mechanics layer: what the runtime knows of a mechanical system.
//!
//! A generated model is a [`VectorField`] on its state `x = (q, q̇)` (and `z`, see the
//! [module docs](super)); as a mechanical system it also answers for its kinetic metric — as a
//! [`MassOperator`], solved with and applied, never handed over as a dense matrix — and its
//! energy. Everything the runtime does with the metric builds on this trait: the projections and
//! completions of constrained systems ([`Constrained`](super::constrained::Constrained) extends
//! it), and each mode of a hybrid system is one (its `mode_energy` is its mode's
//! [`energy`](MechanicalSystem::energy)).
//!
//! ```
//! use routh_runtime::mechanics::{MechanicalSystem, factor_mass};
//! use routh_runtime::nalgebra::{Matrix1, Vector1, Vector2};
//! use routh_runtime::{FieldError, MassFactor, MassOperator, VectorField};
//!
//! /// A harmonic oscillator of mass 2 and stiffness 8.
//! struct Spring;
//! impl VectorField<2> for Spring {
//!     fn field(&self, _t: f64, x: &Vector2<f64>) -> Result<Vector2<f64>, FieldError> {
//!         Ok(Vector2::new(x[1], -4.0 * x[0]))
//!     }
//! }
//! impl MechanicalSystem<1, 2> for Spring {
//!     type Mass = MassFactor<1>;
//!     fn mass(&self, t: f64, _x: &Vector2<f64>) -> Result<MassFactor<1>, FieldError> {
//!         factor_mass(t, Matrix1::new(2.0))
//!     }
//!     fn energy(&self, _t: f64, x: &Vector2<f64>) -> f64 {
//!         x[1] * x[1] + 4.0 * x[0] * x[0]
//!     }
//! }
//! // The kinetic energy ½ q̇ᵀ M q̇ from the operator.
//! let x = Vector2::new(0.0, 3.0);
//! let v = Vector1::new(x[1]);
//! assert_eq!(0.5 * v.dot(&Spring.mass(0.0, &x)?.apply(&v)), Spring.energy(0.0, &x));
//! # Ok::<(), FieldError>(())
//! ```

use nalgebra::{SMatrix, SVector};

use crate::error::FieldError;
use crate::mechanics::linalg::MassOperator;
use crate::ode::field::VectorField;

/// A mechanical system with `N` velocities on the state of dimension `D` (`2N`, or `2N + 1`
/// with an action variable; with orientations, more positions than velocities, see
/// [`POSITIONS`](Self::POSITIONS)): its field, its mass operator and its energy. Generated models
/// implement it (with the dense [`MassFactor`](crate::MassFactor) today).
pub trait MechanicalSystem<const N: usize, const D: usize>: VectorField<D> {
    /// What the system's mass matrix M(t, q) is to the runtime at one state: solves and products.
    type Mass: MassOperator<N>;

    /// The number of position entries of the state, before the `N` velocities: `N` for ordinary
    /// coordinates (the default), `N + k` for a model with `k` orientations — the ordinary
    /// coordinates first, then each orientation's unit quaternion (w, x, y, z) among the positions
    /// and its body angular velocity ω among the velocities (quasi-velocities: q̇ = ½ q ⊗ (0, ω)).
    /// The runtime reads the velocities at `x[POSITIONS..POSITIONS + N]` and moves positions along
    /// velocity directions with [`displace`](crate::mechanics::displace).
    const POSITIONS: usize = N;

    /// The mass operator at `(t, x)`.
    ///
    /// # Errors
    /// [`FieldError::SingularMassMatrix`] if M is singular, [`FieldError::NonFinite`] if it cannot
    /// be evaluated.
    fn mass(&self, t: f64, x: &SVector<f64, D>) -> Result<Self::Mass, FieldError>;

    /// The energy E(t, x) (conserved when the Lagrangian does not depend on t and no forces act).
    fn energy(&self, t: f64, x: &SVector<f64, D>) -> f64;
}

/// The dense matrix of a mass operator, column by column (`M eⱼ`): for one-off solves that need
/// M's entries themselves, such as a saddle point with some velocities held fixed.
#[must_use]
pub fn dense_mass<const N: usize>(mass: &impl MassOperator<N>) -> SMatrix<f64, N, N> {
    let mut m = SMatrix::<f64, N, N>::zeros();
    for j in 0..N {
        let column = mass.apply(&SVector::<f64, N>::from_fn(|i, _| if i == j { 1.0 } else { 0.0 }));
        m.set_column(j, &column);
    }
    m
}
