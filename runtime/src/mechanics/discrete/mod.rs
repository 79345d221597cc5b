//! Discrete mechanics: variational integrators in position–momentum form.
//!
//! A forced discrete system (generated from `discrete(rule = ...)`, see the derive's docs) gives
//! its discrete Legendre maps F^{f−}L_d(q_k, q_{k+1}) = −D₁L_d − f⁻ (with its Jacobian in q_{k+1})
//! and F^{f+}L_d(q_k, q_{k+1}) = D₂L_d + f⁺. One step from (q_k, p_k) solves
//! F^{f−}L_d(q_k, q_{k+1}) = p_k for q_{k+1} by Newton's method with that exact Jacobian, then sets
//! p_{k+1} = F^{f+}L_d(q_k, q_{k+1}) — the forced discrete Euler–Lagrange equations as momentum
//! matching. The step h is fixed: a variable step would break the symplecticity that keeps the
//! energy of an unforced system bounded over any number of steps. Runs go through the builder
//! ([`DiscreteRun`](crate::DiscreteRun)): a generated model's `run_discrete(x0)`, or a hand-written
//! system's [`Variational`](crate::Variational) (from positions and momenta) and
//! [`TwoStep`](crate::TwoStep) (from two nodes).
//!
//! ```
//! use routh_runtime::discrete::DiscreteSystem;
//! use routh_runtime::nalgebra::{SMatrix, SVector, Vector1};
//! use routh_runtime::run::Node;
//! use routh_runtime::{FieldError, SimulateDiscrete, Variational};
//!
//! /// The midpoint rule for the harmonic oscillator L = ½v² − ½q²:
//! /// L_d = (q₁ − q₀)²/(2h) − h((q₀ + q₁)/2)²/2.
//! struct Midpoint;
//! impl DiscreteSystem<1> for Midpoint {
//!     fn left_momentum(&self, _t: f64, h: f64, q0: &Vector1<f64>, q1: &Vector1<f64>)
//!         -> Result<(Vector1<f64>, SMatrix<f64, 1, 1>), FieldError> {
//!         let p = (q1[0] - q0[0]) / h + h * (q0[0] + q1[0]) / 4.0;
//!         Ok((Vector1::new(p), SMatrix::<f64, 1, 1>::new(1.0 / h + h / 4.0)))
//!     }
//!     fn right_momentum(&self, _t: f64, h: f64, q0: &Vector1<f64>, q1: &Vector1<f64>) -> Result<Vector1<f64>, FieldError> {
//!         Ok(Vector1::new((q1[0] - q0[0]) / h - h * (q0[0] + q1[0]) / 4.0))
//!     }
//! }
//! let start = Node { q: Vector1::new(1.0), p: Vector1::new(0.0), v: Vector1::new(0.0) };
//! let traj = Variational(&Midpoint).run_discrete(start).step(0.1).steps(1000).go()?;
//! // The energy ½(p² + q²) of the (linear, symplectic) midpoint map is conserved exactly.
//! let (q, p) = (traj.positions[1000][0], traj.momenta[1000][0]);
//! assert!((0.5 * (p * p + q * q) - 0.5).abs() < 1e-12);
//! # Ok::<(), routh_runtime::SimError>(())
//! ```

use crate::invariants::{self, Invariants};
use nalgebra::{SMatrix, SVector};

pub mod oriented;

pub use oriented::{
    DrivenOrientedDiscrete, OrientedDiscreteSystem, OrientedInputSystem, OrientedStep, cayley, cayley_factor, cayley_rotation,
    compose, oriented_input_step_jacobian, oriented_step, oriented_step_jacobian, oriented_symplecticity_defect,
};

use crate::error::{FieldError, RunError, RunResult, SimError};
use crate::mechanics::linalg::LuFactor;
use crate::mechanics::newton_converged;

/// A forced discrete system: its discrete Legendre maps.
pub trait DiscreteSystem<const N: usize> {
    /// F^{f−}L_d(q₀, q₁) = −D₁L_d(q₀, q₁) − f⁻(q₀, q₁) and its Jacobian with respect to q₁, for the
    /// step of size `h` starting at time `t`.
    ///
    /// # Errors
    /// A [`FieldError`] if they cannot be evaluated.
    fn left_momentum(
        &self,
        t: f64,
        h: f64,
        q0: &SVector<f64, N>,
        q1: &SVector<f64, N>,
    ) -> Result<(SVector<f64, N>, SMatrix<f64, N, N>), FieldError>;
    /// F^{f+}L_d(q₀, q₁) = D₂L_d(q₀, q₁) + f⁺(q₀, q₁).
    ///
    /// # Errors
    /// A [`FieldError`] if it cannot be evaluated.
    fn right_momentum(&self, t: f64, h: f64, q0: &SVector<f64, N>, q1: &SVector<f64, N>) -> Result<SVector<f64, N>, FieldError>;
    /// The remaining derivatives of the Legendre maps, (∂F^{f−}/∂q₀, ∂F^{f+}/∂q₀, ∂F^{f+}/∂q₁), for
    /// the exact Jacobian of the step map ([`step_jacobian`]); `None` (the default) if not provided.
    ///
    /// # Errors
    /// A [`FieldError`] if they cannot be evaluated.
    #[allow(clippy::type_complexity)]
    fn momentum_derivatives(
        &self,
        _t: f64,
        _h: f64,
        _q0: &SVector<f64, N>,
        _q1: &SVector<f64, N>,
    ) -> Option<Result<(SMatrix<f64, N, N>, SMatrix<f64, N, N>, SMatrix<f64, N, N>), FieldError>> {
        None
    }
    /// All four blocks of the maps' derivatives at once — [`Self::momentum_derivatives`]' three
    /// and Newton's J = ∂F^{f−}/∂q₁ — as [`step_jacobian`] reads them. The default calls both
    /// methods; a generated system computes the four in one pass, the blocks reading the values
    /// its `left_momentum` computes (see [`MapDerivatives`]).
    ///
    /// # Errors
    /// A [`FieldError`] if they cannot be evaluated.
    fn map_derivatives(
        &self,
        t: f64,
        h: f64,
        q0: &SVector<f64, N>,
        q1: &SVector<f64, N>,
    ) -> Option<Result<MapDerivatives<N>, FieldError>> {
        let blocks = self.momentum_derivatives(t, h, q0, q1)?;
        Some(blocks.and_then(|(left_dq0, right_dq0, right_dnext)| {
            let (_, left_dnext) = self.left_momentum(t, h, q0, q1)?;
            Ok(MapDerivatives { left_dq0, left_dnext, right_dq0, right_dnext })
        }))
    }
}

/// The derivatives of a step's discrete Legendre maps F^{f−} (left) and F^{f+} (right) over its
/// two unknowns — the first node and the second (the next node q₁ on coordinates, the increment ξ
/// with orientations, [`OrientedDiscreteSystem::map_derivatives`]) — from which the step map's
/// exact Jacobian follows by the implicit function theorem ([`step_jacobian`]).
///
/// One type for the four because they share their work: ∂F^{f−}/∂q₁ is Newton's Jacobian, and
/// ∂F^{f+}/∂q₁ differentiates the same gradient of L at the rule's node along the same
/// directions; a generated model computes them in one pass whose first part is its
/// `left_momentum`'s (on the floating quadruped of `tests/robots` the blocks' own code is 0.58 of
/// what the three blocks alone had, and a step Jacobian evaluates a quarter fewer operations).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MapDerivatives<const N: usize> {
    /// ∂F^{f−}/∂q₀ (with orientations along the start node's chart at fixed ξ).
    pub left_dq0: SMatrix<f64, N, N>,
    /// ∂F^{f−}/∂(the second unknown): Newton's Jacobian J.
    pub left_dnext: SMatrix<f64, N, N>,
    /// ∂F^{f+}/∂q₀.
    pub right_dq0: SMatrix<f64, N, N>,
    /// ∂F^{f+}/∂(the second unknown).
    pub right_dnext: SMatrix<f64, N, N>,
}

impl<const N: usize> MapDerivatives<N> {
    /// Whether every entry is finite.
    #[must_use]
    pub fn is_finite(&self) -> bool {
        [&self.left_dq0, &self.left_dnext, &self.right_dq0, &self.right_dnext].iter().all(|m| m.iter().all(|v| v.is_finite()))
    }
}

/// The Jacobian of the step map (q_k, p_k) ↦ (q_{k+1}, p_{k+1}) in blocks.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StepJacobian<const N: usize> {
    /// ∂q_{k+1}/∂q_k.
    pub dq_dq: SMatrix<f64, N, N>,
    /// ∂q_{k+1}/∂p_k.
    pub dq_dp: SMatrix<f64, N, N>,
    /// ∂p_{k+1}/∂q_k.
    pub dp_dq: SMatrix<f64, N, N>,
    /// ∂p_{k+1}/∂p_k.
    pub dp_dp: SMatrix<f64, N, N>,
}

impl<const N: usize> StepJacobian<N> {
    /// The four blocks into the top left 2N × 2N of `out` (the (q, p) part of a step map's A_d).
    fn write_blocks<const D: usize>(&self, out: &mut SMatrix<f64, D, D>) {
        out.fixed_view_mut::<N, N>(0, 0).copy_from(&self.dq_dq);
        out.fixed_view_mut::<N, N>(0, N).copy_from(&self.dq_dp);
        out.fixed_view_mut::<N, N>(N, 0).copy_from(&self.dp_dq);
        out.fixed_view_mut::<N, N>(N, N).copy_from(&self.dp_dp);
    }

    /// The largest entry of MᵀΩM − Ω for the canonical Ω (zero for a symplectic map): in blocks,
    /// AᵀC − CᵀA, BᵀD − DᵀB and AᵀD − CᵀB − I with M = [A B; C D].
    #[must_use]
    pub fn symplecticity_defect(&self) -> f64 {
        let (a, b, c, d) = (self.dq_dq, self.dq_dp, self.dp_dq, self.dp_dp);
        let e1 = a.transpose() * c - c.transpose() * a;
        let e2 = b.transpose() * d - d.transpose() * b;
        let e3 = a.transpose() * d - c.transpose() * b - SMatrix::<f64, N, N>::identity();
        e1.amax().max(e2.amax()).max(e3.amax())
    }
}

/// The exact Jacobian of the step from (q₀, p₀) to (q₁, p₁) at a solved step (q₁ the solution),
/// by the implicit function theorem on F^{f−}L_d(q₀, q₁) = p₀: ∂q₁/∂q₀ = −J⁻¹ ∂F^{f−}/∂q₀,
/// ∂q₁/∂p₀ = J⁻¹, and p₁ = F^{f+}L_d(q₀, q₁) by the chain rule. `None` if the system does not
/// provide [`DiscreteSystem::momentum_derivatives`].
///
/// # Errors
/// [`SimError::SingularStepJacobian`] for a singular J; the system's errors.
pub fn step_jacobian<S: DiscreteSystem<N> + ?Sized, const N: usize>(
    sys: &S,
    t: f64,
    h: f64,
    q0: &SVector<f64, N>,
    q1: &SVector<f64, N>,
) -> Result<Option<StepJacobian<N>>, SimError> {
    let Some(blocks) = sys.map_derivatives(t, h, q0, q1) else { return Ok(None) };
    let MapDerivatives { left_dq0: a0, left_dnext: j, right_dq0: b0, right_dnext: b1 } = blocks?;
    let lu = LuFactor::new(j).map_err(|_| SimError::SingularStepJacobian { t })?;
    let singular = |_| SimError::SingularStepJacobian { t };
    let dq_dq = -lu.solve(a0).map_err(singular)?;
    let dq_dp = lu.solve(SMatrix::<f64, N, N>::identity()).map_err(singular)?;
    Ok(Some(StepJacobian { dq_dq, dq_dp, dp_dq: b0 + b1 * dq_dq, dp_dp: b1 * dq_dp }))
}

/// A forced discrete system whose discrete forces take inputs u, held over each step (a generated
/// model's view at fixed inputs, `model.driven(u)`): the inputs' derivatives of its Legendre maps,
/// for the step map's input Jacobian ([`input_step_jacobian`]).
pub trait DiscreteInputSystem<const N: usize, const K: usize>: DiscreteSystem<N> {
    /// (∂F^{f−}L_d/∂u, ∂F^{f+}L_d/∂u) at (q₀, q₁): the discrete forces' derivatives (the discrete
    /// Lagrangian takes no inputs).
    ///
    /// # Errors
    /// A [`FieldError`] if they cannot be evaluated.
    #[allow(clippy::type_complexity)]
    fn momentum_input_derivatives(
        &self,
        t: f64,
        h: f64,
        q0: &SVector<f64, N>,
        q1: &SVector<f64, N>,
    ) -> Result<(SMatrix<f64, N, K>, SMatrix<f64, N, K>), FieldError>;
}

/// A discrete model with inputs as a family of discrete systems, one per input value: a generated
/// model with `input(...)` and `discrete(...)`, whose view at the inputs u (`model.driven(u)`) is
/// a [`DiscreteInputSystem`] — what plans over its variational integrator
/// (`step::VariationalMap`) take.
pub trait DrivenDiscrete<const N: usize, const K: usize> {
    /// The discrete system at fixed inputs.
    type At<'a>: DiscreteInputSystem<N, K>
    where
        Self: 'a;
    /// The discrete system at the inputs `u`.
    fn at(&self, u: &SVector<f64, K>) -> Self::At<'_>;
}

/// The Jacobians of a step map with inputs, (q_k, p_k, u_k) ↦ (q_{k+1}, p_{k+1}): the state's
/// ([`StepJacobian`]) and the inputs'.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct InputStepJacobian<const N: usize, const K: usize> {
    /// ∂(q_{k+1}, p_{k+1})/∂(q_k, p_k) in blocks.
    pub state: StepJacobian<N>,
    /// ∂q_{k+1}/∂u_k.
    pub dq_du: SMatrix<f64, N, K>,
    /// ∂p_{k+1}/∂u_k.
    pub dp_du: SMatrix<f64, N, K>,
}

impl<const N: usize, const K: usize> InputStepJacobian<N, K> {
    /// A_d = ∂x_{k+1}/∂x_k over the state x = (q, p) (`D = 2N`), as discrete LQR and iLQR take it.
    #[must_use]
    pub fn state_matrix<const D: usize>(&self) -> SMatrix<f64, D, D> {
        assert_eq!(D, 2 * N, "the state (q, p) has 2N components");
        let mut out = SMatrix::<f64, D, D>::zeros();
        self.state.write_blocks(&mut out);
        out
    }

    /// B_d = ∂x_{k+1}/∂u_k over the state x = (q, p) (`D = 2N`).
    #[must_use]
    pub fn input_matrix<const D: usize>(&self) -> SMatrix<f64, D, K> {
        assert_eq!(D, 2 * N, "the state (q, p) has 2N components");
        let mut out = SMatrix::<f64, D, K>::zeros();
        out.fixed_view_mut::<N, K>(0, 0).copy_from(&self.dq_du);
        out.fixed_view_mut::<N, K>(N, 0).copy_from(&self.dp_du);
        out
    }
}

/// The exact Jacobians of a step with its inputs held, at a solved step (q₁ the solution of
/// F^{f−}L_d(q₀, q₁, u) = p₀): as [`step_jacobian`] for the state, and for the inputs by the same
/// implicit function theorem, ∂q₁/∂u = −J⁻¹ ∂F^{f−}/∂u and ∂p₁/∂u = ∂F^{f+}/∂u + ∂F^{f+}/∂q₁ ∂q₁/∂u
/// (J = ∂F^{f−}/∂q₁, factored once). `None` if the system does not provide
/// [`DiscreteSystem::momentum_derivatives`].
///
/// ```
/// use routh_runtime::discrete::{DiscreteInputSystem, DiscreteSystem, input_step_jacobian};
/// use routh_runtime::nalgebra::{Matrix1, Vector1};
/// use routh_runtime::FieldError;
///
/// // A unit mass pushed by u under the midpoint rule: L_d = (q₁ − q₀)²/(2h), f∓ = (h/2) u, so
/// // p₀ = (q₁ − q₀)/h − (h/2) u and p₁ = (q₁ − q₀)/h + (h/2) u: ∂q₁/∂u = h²/2, ∂p₁/∂u = h.
/// struct Pushed(f64);
/// impl DiscreteSystem<1> for Pushed {
///     fn left_momentum(&self, _t: f64, h: f64, q0: &Vector1<f64>, q1: &Vector1<f64>) -> Result<(Vector1<f64>, Matrix1<f64>), FieldError> {
///         Ok(((q1 - q0) / h - Vector1::new(h / 2.0 * self.0), Matrix1::new(1.0 / h)))
///     }
///     fn right_momentum(&self, _t: f64, h: f64, q0: &Vector1<f64>, q1: &Vector1<f64>) -> Result<Vector1<f64>, FieldError> {
///         Ok((q1 - q0) / h + Vector1::new(h / 2.0 * self.0))
///     }
///     fn momentum_derivatives(&self, _t: f64, h: f64, _q0: &Vector1<f64>, _q1: &Vector1<f64>)
///         -> Option<Result<(Matrix1<f64>, Matrix1<f64>, Matrix1<f64>), FieldError>> {
///         Some(Ok((Matrix1::new(1.0 / h), Matrix1::new(-1.0 / h), Matrix1::new(1.0 / h))))
///     }
/// }
/// impl DiscreteInputSystem<1, 1> for Pushed {
///     fn momentum_input_derivatives(&self, _t: f64, h: f64, _q0: &Vector1<f64>, _q1: &Vector1<f64>)
///         -> Result<(Matrix1<f64>, Matrix1<f64>), FieldError> {
///         Ok((Matrix1::new(-h / 2.0), Matrix1::new(h / 2.0)))
///     }
/// }
/// let h = 0.1;
/// let j = input_step_jacobian(&Pushed(2.0), 0.0, h, &Vector1::new(0.0), &Vector1::new(0.3))?.unwrap();
/// assert!((j.dq_du[0] - h * h / 2.0).abs() < 1e-15 && (j.dp_du[0] - h).abs() < 1e-15);
/// // The state's: q₁ = q₀ + h p₀ + …, p₁ = p₀ + h u.
/// assert!((j.state.dq_dp[0] - h).abs() < 1e-15 && (j.state.dp_dp[0] - 1.0).abs() < 1e-15);
/// # Ok::<(), routh_runtime::SimError>(())
/// ```
///
/// # Errors
/// [`SimError::SingularStepJacobian`] for a singular J; the system's errors.
pub fn input_step_jacobian<S: DiscreteInputSystem<N, K> + ?Sized, const N: usize, const K: usize>(
    sys: &S,
    t: f64,
    h: f64,
    q0: &SVector<f64, N>,
    q1: &SVector<f64, N>,
) -> Result<Option<InputStepJacobian<N, K>>, SimError> {
    let Some(blocks) = sys.map_derivatives(t, h, q0, q1) else { return Ok(None) };
    let MapDerivatives { left_dq0: a0, left_dnext: j, right_dq0: b0, right_dnext: b1 } = blocks?;
    let (au, bu) = sys.momentum_input_derivatives(t, h, q0, q1)?;
    let lu = LuFactor::new(j).map_err(|_| SimError::SingularStepJacobian { t })?;
    let singular = |_| SimError::SingularStepJacobian { t };
    let dq_dq = -lu.solve(a0).map_err(singular)?;
    let dq_dp = lu.solve(SMatrix::<f64, N, N>::identity()).map_err(singular)?;
    let dq_du = -lu.solve(au).map_err(singular)?;
    let state = StepJacobian { dq_dq, dq_dp, dp_dq: b0 + b1 * dq_dq, dp_dp: b1 * dq_dp };
    Ok(Some(InputStepJacobian { state, dq_du, dp_du: bu + b1 * dq_du }))
}

/// How a discrete momentum map evolves under a generated integrator, decided at compile time from
/// its per-step source Φ = f_d(ξ_{Q×Q}) (`<symmetry>_DISCRETE_LAW`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MomentumLaw {
    /// Φ ≡ 0: the momentum is conserved.
    Conserved,
    /// Φ is a constant: the momentum changes by the same amount every step.
    ConstantDrift,
    /// Φ depends on the nodes: J⁺(k) = J⁺(k − 1) + Φ_k.
    General,
}

/// Options of the Newton iteration of a discrete step.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub struct DiscreteOptions {
    /// Converged when the Newton correction is at most `tolerance · (1 + ‖q_{k+1}‖∞)` — or, where
    /// the step's Jacobian (≈ M/h) is so ill-conditioned that the rounding of its solve keeps the
    /// corrections above that, once they stop contracting (each above half the last) at most
    /// 10⁻⁸ · (1 + ‖q_{k+1}‖∞): the step is then as exact as double precision makes it, and
    /// [`DiscreteStep::corrections`] shows where they stalled. Default `1e-14`.
    #[cfg_attr(feature = "serde", serde(with = "crate::serde_floats"))]
    pub tolerance: f64,
    /// Largest number of Newton iterations per step. Default `30`.
    pub max_iterations: usize,
    /// Largest memory, in bytes, the nodes of a run may take; more steps than fit are
    /// [`SimError::InvalidOptions`] before any work is done (instead of an allocation that
    /// aborts). Default 4 GiB, as [`Options::max_output_bytes`](crate::Options::max_output_bytes).
    pub max_output_bytes: usize,
}

impl Default for DiscreteOptions {
    fn default() -> Self {
        DiscreteOptions { tolerance: 1e-14, max_iterations: 30, max_output_bytes: 4 << 30 }
    }
}

impl DiscreteOptions {
    setters! {
        /// Set [`DiscreteOptions::tolerance`].
        tolerance: f64,
        /// Set [`DiscreteOptions::max_iterations`].
        max_iterations: usize,
        /// Set [`DiscreteOptions::max_output_bytes`].
        max_output_bytes: usize,
    }
}

/// One step's result.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DiscreteStep<const N: usize> {
    /// q_{k+1}.
    pub position: SVector<f64, N>,
    /// p_{k+1}.
    pub momentum: SVector<f64, N>,
    /// Newton iterations used.
    pub iterations: usize,
    /// The Newton corrections' sizes (max norm), in order: quadratic convergence shows as each
    /// about the square of the one before (relative to the scale of q).
    pub corrections: [f64; 8],
}

/// One step from (q_k, p_k) (`node`) at time `t` with step `h` (`grid`), Newton started at `guess`.
///
/// # Errors
/// [`SimError::NewtonFailed`] without convergence, [`SimError::SingularStepJacobian`] for a
/// singular Jacobian, [`SimError::NonFiniteState`] for a non-finite result; the system's
/// [`FieldError`]s as [`SimError`]s.
pub fn discrete_step<S: DiscreteSystem<N> + ?Sized, const N: usize>(
    sys: &S,
    (t, h): (f64, f64),
    (q0, p0): (&SVector<f64, N>, &SVector<f64, N>),
    guess: SVector<f64, N>,
    options: &DiscreteOptions,
) -> Result<DiscreteStep<N>, SimError> {
    let mut q1 = guess;
    let mut corrections = [f64::NAN; 8];
    let mut last = f64::INFINITY;
    for it in 0..options.max_iterations {
        let previous = last;
        let (left, jac) = sys.left_momentum(t, h, q0, &q1)?;
        let residual = left - p0;
        let lu = LuFactor::new(jac).map_err(|_| SimError::SingularStepJacobian { t })?;
        let delta = lu.solve(residual).map_err(|_| SimError::SingularStepJacobian { t })?;
        q1 -= delta;
        last = delta.amax();
        if let Some(c) = corrections.get_mut(it) {
            *c = last;
        }
        if !last.is_finite() {
            return Err(SimError::NonFiniteState { t });
        }
        if newton_converged(last, previous, options.tolerance, 1.0 + q1.amax()) {
            let p1 = sys.right_momentum(t, h, q0, &q1)?;
            if !p1.iter().all(|v| v.is_finite()) {
                return Err(SimError::NonFiniteState { t });
            }
            return Ok(DiscreteStep { position: q1, momentum: p1, iterations: it + 1, corrections });
        }
    }
    Err(SimError::NewtonFailed { t, iterations: options.max_iterations, correction: last })
}

/// The nodes of a discrete trajectory: `N` momenta and `P` positions each (more positions than
/// momenta with orientations, [`oriented`]).
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize), serde(remote = "Self"))]
pub struct DiscreteTrajectory<const N: usize, const P: usize = N> {
    /// t_k = t₀ + k h.
    #[cfg_attr(feature = "serde", serde(with = "crate::serde_floats"))]
    pub times: Vec<f64>,
    /// q_k.
    #[cfg_attr(feature = "serde", serde(with = "crate::serde_floats"))]
    pub positions: Vec<SVector<f64, P>>,
    /// p_k (the forced discrete momenta, F^{f+}L_d(q_{k−1}, q_k) = F^{f−}L_d(q_k, q_{k+1}); with
    /// orientations each one's in its body's axes).
    #[cfg_attr(feature = "serde", serde(with = "crate::serde_floats"))]
    pub momenta: Vec<SVector<f64, N>>,
    /// Newton iterations of each step.
    pub iterations: Vec<usize>,
    /// z_k, the action of a contact system (empty otherwise).
    #[cfg_attr(feature = "serde", serde(with = "crate::serde_floats"))]
    pub actions: Vec<f64>,
}

impl<const N: usize, const P: usize> DiscreteTrajectory<N, P> {
    /// A trajectory with its first node (room for `steps` more).
    fn start(t0: f64, q0: SVector<f64, P>, p0: SVector<f64, N>, steps: usize) -> Self {
        let mut traj = DiscreteTrajectory {
            times: Vec::with_capacity(steps + 1),
            positions: Vec::with_capacity(steps + 1),
            momenta: Vec::with_capacity(steps + 1),
            iterations: Vec::with_capacity(steps),
            actions: Vec::new(),
        };
        traj.times.push(t0);
        traj.positions.push(q0);
        traj.momenta.push(p0);
        traj
    }
    /// Appends a node reached in `iterations` Newton iterations.
    fn push(&mut self, t: f64, q: SVector<f64, P>, p: SVector<f64, N>, iterations: usize) {
        self.times.push(t);
        self.positions.push(q);
        self.momenta.push(p);
        self.iterations.push(iterations);
    }
    /// Number of nodes.
    pub fn len(&self) -> usize {
        self.times.len()
    }
    /// Whether there are no nodes.
    pub fn is_empty(&self) -> bool {
        self.times.is_empty()
    }
    /// The times where `g(t_k, q_k, p_k)` changes sign between consecutive nodes, located by linear
    /// interpolation of g (exact when g is affine in k along the trajectory, e.g. a momentum under a
    /// constant drift; O(h²) for smooth g otherwise). A node where g is exactly zero counts once.
    ///
    /// ```
    /// use routh_runtime::discrete::DiscreteTrajectory;
    /// use routh_runtime::nalgebra::Vector1;
    /// // A momentum falling by 0.3 per step from 1: zero at t = 1/0.3 · h.
    /// let h = 0.1;
    /// let traj = DiscreteTrajectory {
    ///     times: (0..6).map(|k| k as f64 * h).collect(),
    ///     positions: vec![Vector1::zeros(); 6],
    ///     momenta: (0..6).map(|k| Vector1::new(1.0 - 0.3 * k as f64)).collect(),
    ///     iterations: vec![1; 5],
    ///     actions: Vec::new(),
    /// };
    /// let stops = traj.crossings(|_t, _q, p| p[0]);
    /// assert!((stops[0] - h / 0.3).abs() < 1e-15);
    /// ```
    pub fn crossings<G: Fn(f64, &SVector<f64, P>, &SVector<f64, N>) -> f64>(&self, g: G) -> Vec<f64> {
        let values: Vec<f64> = (0..self.len()).map(|k| g(self.times[k], &self.positions[k], &self.momenta[k])).collect();
        let mut out = Vec::new();
        for k in 1..values.len() {
            let (a, b) = (values[k - 1], values[k]);
            if a == 0.0 && k == 1 {
                out.push(self.times[0]);
            }
            if b == 0.0 {
                out.push(self.times[k]);
            } else if a != 0.0 && (a < 0.0) != (b < 0.0) {
                let s = a / (a - b);
                out.push(self.times[k - 1] + s * (self.times[k] - self.times[k - 1]));
            }
        }
        out
    }
}

/// The residual of the forced discrete Euler–Lagrange equations at the node q_k between q_{k−1}
/// and q_{k+1} (`nodes`; steps of size `h`, q_{k−1} at time `t`): D₂L_d(q_{k−1}, q_k) + f⁺(q_{k−1}, q_k) +
/// D₁L_d(q_k, q_{k+1}) + f⁻(q_k, q_{k+1}) = F^{f+}L_d(q_{k−1}, q_k) − F^{f−}L_d(q_k, q_{k+1}); zero on
/// a trajectory (momentum matching).
///
/// # Errors
/// The system's [`FieldError`]s.
pub fn del_residual<S: DiscreteSystem<N> + ?Sized, const N: usize>(
    sys: &S,
    (t, h): (f64, f64),
    [q_prev, q, q_next]: [&SVector<f64, N>; 3],
) -> Result<SVector<f64, N>, FieldError> {
    Ok(sys.right_momentum(t, h, q_prev, q)? - sys.left_momentum(t + h, h, q, q_next)?.0)
}

/// The checks every discrete driver makes before its first step: a finite positive step, usable
/// Newton options, nodes that fit in [`DiscreteOptions::max_output_bytes`], a finite start.
fn check_start<'a, const N: usize, const P: usize>(
    h: f64,
    steps: usize,
    options: &DiscreteOptions,
    start: impl IntoIterator<Item = &'a f64>,
) -> Result<(), SimError> {
    if !(h.is_finite() && h > 0.0) {
        return Err(SimError::InvalidOptions(format!("the discrete step h = {h} must be finite and > 0")));
    }
    // A node: its time, q, p, the step's iterations and (contact systems) the action.
    let bytes = (steps as f64 + 1.0) * (8 * (P + N + 3)) as f64;
    if bytes > options.max_output_bytes as f64 {
        return Err(SimError::InvalidOptions(format!(
            "{steps} discrete steps need {:.1} GB for their nodes, more than max_output_bytes ({:.1} GB): run fewer steps \
             at a time (a run continues from its last node)",
            bytes / 1e9,
            options.max_output_bytes as f64 / 1e9
        )));
    }
    if !(options.tolerance.is_finite() && options.tolerance > 0.0) || options.max_iterations == 0 {
        return Err(SimError::InvalidOptions("the Newton tolerance must be finite and > 0, with at least one iteration".into()));
    }
    if !start.into_iter().all(|v| v.is_finite()) {
        return Err(SimError::InvalidInitialState);
    }
    Ok(())
}

/// `steps` steps of size `h` from (q₀, p₀) at `t0`; the first Newton iteration starts at
/// q₀ + h v₀, later ones at the linear extrapolation 2q_k − q_{k−1}.
///
/// # Errors
/// [`SimError::InvalidOptions`] for a step that is not finite and positive; otherwise as
/// [`discrete_step`], with the nodes computed before the failing step
/// ([`RunError::partial`]).
#[allow(clippy::too_many_arguments)]
pub(crate) fn simulate_discrete<S: DiscreteSystem<N> + ?Sized, const N: usize>(
    sys: &S,
    t0: f64,
    h: f64,
    steps: usize,
    q0: SVector<f64, N>,
    p0: SVector<f64, N>,
    v0: SVector<f64, N>,
    options: &DiscreteOptions,
) -> RunResult<DiscreteTrajectory<N>> {
    drive(sys, &[], t0, h, steps, q0, p0, v0, options, None)
}

/// A discrete trajectory computed on the reduced space of cyclic (abelian) coordinates, with its
/// reconstruction (a generated model's `run_discrete(x0)…reduced()`).
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize), serde(remote = "Self"))]
pub struct ReducedDiscreteTrajectory<const N: usize> {
    /// The reconstructed trajectory: shape coordinates as computed, cyclic ones
    /// g_{k+1} = g_k + W_k.
    pub trajectory: DiscreteTrajectory<N>,
    /// The increments W_k = g_{k+1} − g_k of the cyclic coordinates (other entries 0), the
    /// reduced variables of the group part.
    #[cfg_attr(feature = "serde", serde(with = "crate::serde_floats"))]
    pub increments: Vec<SVector<f64, N>>,
}

/// Discrete Routh reduction for cyclic coordinates (*Forced discrete reduction*, Thm. 3.11 for a trivial bundle,
/// abelian case): for a discrete Lagrangian and forces invariant under translations of the
/// coordinates `cyclic` (proved by the derive before it calls this), each step is solved on the
/// reduced space — the cyclic coordinates of the first node set to 0, the unknowns the shape of
/// the next node and the increments W_k, the group equation J⁻(k) = J⁺(k − 1) carried by the
/// momenta — and the cyclic coordinates are reconstructed as g_{k+1} = g_k + W_k. Working with W
/// instead of g keeps the solve independent of how far g has run.
///
/// # Errors
/// As [`simulate_discrete`].
#[allow(clippy::too_many_arguments)]
pub(crate) fn simulate_discrete_reduced<S: DiscreteSystem<N> + ?Sized, const N: usize>(
    sys: &S,
    cyclic: &[usize],
    t0: f64,
    h: f64,
    steps: usize,
    q0: SVector<f64, N>,
    p0: SVector<f64, N>,
    v0: SVector<f64, N>,
    options: &DiscreteOptions,
) -> RunResult<ReducedDiscreteTrajectory<N>> {
    if cyclic.iter().any(|&c| c >= N) {
        return Err(SimError::InvalidArgument(format!("a cyclic coordinate index is out of range (the system has {N})")).into());
    }
    let mut increments = Vec::new();
    match drive(sys, cyclic, t0, h, steps, q0, p0, v0, options, Some(&mut increments)) {
        Ok(trajectory) => Ok(ReducedDiscreteTrajectory { trajectory, increments }),
        Err(e) => Err(e.map_partial(|trajectory| ReducedDiscreteTrajectory { trajectory, increments })),
    }
}

/// The one position–momentum loop of [`simulate_discrete`] and [`simulate_discrete_reduced`]:
/// each step solved from the first node with its `cyclic` coordinates set to 0 (none: the full
/// step), the cyclic coordinates reconstructed from the increments, which go to `increments`.
#[allow(clippy::too_many_arguments)]
fn drive<S: DiscreteSystem<N> + ?Sized, const N: usize>(
    sys: &S,
    cyclic: &[usize],
    t0: f64,
    h: f64,
    steps: usize,
    q0: SVector<f64, N>,
    p0: SVector<f64, N>,
    v0: SVector<f64, N>,
    options: &DiscreteOptions,
    mut increments: Option<&mut Vec<SVector<f64, N>>>,
) -> RunResult<DiscreteTrajectory<N>> {
    check_start::<N, N>(h, steps, options, q0.iter().chain(p0.iter()))?;
    let shape_of = |q: &SVector<f64, N>| {
        let mut s = *q;
        for &c in cyclic {
            s[c] = 0.0;
        }
        s
    };
    let mut trajectory = DiscreteTrajectory::start(t0, q0, p0, steps);
    let (mut q, mut p) = (q0, p0);
    // The predictor in reduced variables: the shape extrapolated, the increment repeated.
    let mut guess = shape_of(&q0) + v0 * h;
    for k in 0..steps {
        let t = t0 + k as f64 * h;
        let base = shape_of(&q);
        let step = match discrete_step(sys, (t, h), (&base, &p), guess, options) {
            Ok(step) => step,
            Err(e) => return Err(RunError::with_partial(e, trajectory)),
        };
        let mut w = SVector::<f64, N>::zeros();
        let mut next = step.position;
        for &c in cyclic {
            w[c] = step.position[c];
            next[c] = q[c] + w[c];
        }
        guess = step.position * 2.0 - base;
        for &c in cyclic {
            guess[c] = w[c];
        }
        q = next;
        p = step.momentum;
        trajectory.push(t0 + (k + 1) as f64 * h, q, p, step.iterations);
        if let Some(out) = increments.as_deref_mut() {
            out.push(w);
        }
    }
    Ok(trajectory)
}

/// A contact (Herglotz) discrete system with its action z: the discrete Herglotz principle
/// z_{k+1} = z_k + L_d(q_k, q_{k+1}, z_k) (Vermeeren, Bravetti, Seri 2019) with forces gives the
/// step p_k = −(D₁L_d + f⁻)/(1 + D₃L_d) for q_{k+1}, then p_{k+1} = D₂L_d + f⁺ and the new action.
pub trait ContactDiscreteSystem<const N: usize> {
    /// −(D₁L_d + f⁻)/(1 + D₃L_d) at (q₀, q₁, z₀) and its Jacobian with respect to q₁.
    ///
    /// # Errors
    /// A [`FieldError`] if they cannot be evaluated.
    fn contact_left_momentum(
        &self,
        t: f64,
        h: f64,
        q0: &SVector<f64, N>,
        q1: &SVector<f64, N>,
        z0: f64,
    ) -> Result<(SVector<f64, N>, SMatrix<f64, N, N>), FieldError>;
    /// D₂L_d + f⁺ and L_d at (q₀, q₁, z₀): the next momentum and the action's increment.
    ///
    /// # Errors
    /// A [`FieldError`] if they cannot be evaluated.
    fn contact_right_momentum(
        &self,
        t: f64,
        h: f64,
        q0: &SVector<f64, N>,
        q1: &SVector<f64, N>,
        z0: f64,
    ) -> Result<(SVector<f64, N>, f64), FieldError>;
    /// The least factor by which the step at (q₀, q₁, z₀) carries a variation of the action:
    /// 1 + D₃L_d (δz_{k+1} = (1 + D₃L_d) δz_k + …) and, for a quadrature that predicts the action
    /// inside the step, ∂z_a/∂z₀ — discrete counterparts of the positive exp(∫ ∂L/∂z dt). A step
    /// with a factor ≤ 0 reverses the action's variations and approximates no contact flow (h
    /// beyond the dissipation's time scale): the integrator stops with
    /// [`SimError::ContactStepTooLarge`].
    ///
    /// # Errors
    /// A [`FieldError`] if it cannot be evaluated.
    fn action_factor(&self, t: f64, h: f64, q0: &SVector<f64, N>, q1: &SVector<f64, N>, z0: f64) -> Result<f64, FieldError>;
    /// The remaining derivatives of the maps at (q₀, q₁, z₀), for the exact Jacobian of the step
    /// map ([`contact_step_jacobian`]); `None` (the default) if not provided.
    ///
    /// # Errors
    /// A [`FieldError`] if they cannot be evaluated.
    fn contact_derivatives(
        &self,
        _t: f64,
        _h: f64,
        _q0: &SVector<f64, N>,
        _q1: &SVector<f64, N>,
        _z0: f64,
    ) -> Option<Result<ContactMapDerivatives<N>, FieldError>> {
        None
    }
}

/// The derivatives of a contact step's maps at (q₀, q₁, z₀) besides ∂F⁻/∂q₁ (which
/// [`ContactDiscreteSystem::contact_left_momentum`] gives): with F⁻ = −(D₁L_d + f⁻)/(1 + D₃L_d),
/// F⁺ = D₂L_d + f⁺ and the action's increment L_d.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ContactMapDerivatives<const N: usize> {
    /// ∂F⁻/∂q₀.
    pub left_dq0: SMatrix<f64, N, N>,
    /// ∂F⁻/∂z₀.
    pub left_dz0: SVector<f64, N>,
    /// ∂F⁺/∂q₀.
    pub right_dq0: SMatrix<f64, N, N>,
    /// ∂F⁺/∂q₁.
    pub right_dq1: SMatrix<f64, N, N>,
    /// ∂F⁺/∂z₀.
    pub right_dz0: SVector<f64, N>,
    /// ∂L_d/∂q₀ = D₁L_d.
    pub action_dq0: SVector<f64, N>,
    /// ∂L_d/∂q₁ = D₂L_d.
    pub action_dq1: SVector<f64, N>,
    /// ∂L_d/∂z₀ = D₃L_d.
    pub action_dz0: f64,
}

impl<const N: usize> ContactMapDerivatives<N> {
    /// Whether every entry is finite.
    #[must_use]
    pub fn is_finite(&self) -> bool {
        let all = |m: &[f64]| m.iter().all(|v| v.is_finite());
        all(self.left_dq0.as_slice())
            && all(self.left_dz0.as_slice())
            && all(self.right_dq0.as_slice())
            && all(self.right_dq1.as_slice())
            && all(self.right_dz0.as_slice())
            && all(self.action_dq0.as_slice())
            && all(self.action_dq1.as_slice())
            && self.action_dz0.is_finite()
    }
}

/// The Jacobian of the contact step map (q_k, p_k, z_k) ↦ (q_{k+1}, p_{k+1}, z_{k+1}) in blocks.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ContactStepJacobian<const N: usize> {
    /// The (q, p) blocks at fixed action.
    pub state: StepJacobian<N>,
    /// ∂q_{k+1}/∂z_k.
    pub dq_dz: SVector<f64, N>,
    /// ∂p_{k+1}/∂z_k.
    pub dp_dz: SVector<f64, N>,
    /// ∂z_{k+1}/∂q_k.
    pub dz_dq: SMatrix<f64, 1, N>,
    /// ∂z_{k+1}/∂p_k.
    pub dz_dp: SMatrix<f64, 1, N>,
    /// ∂z_{k+1}/∂z_k.
    pub dz_dz: f64,
}

impl<const N: usize> ContactStepJacobian<N> {
    /// ∂x_{k+1}/∂x_k over the state x = (q, p, z) (`D = 2N + 1`).
    #[must_use]
    pub fn state_matrix<const D: usize>(&self) -> SMatrix<f64, D, D> {
        assert_eq!(D, 2 * N + 1, "the state (q, p, z) has 2N + 1 components");
        let mut out = SMatrix::<f64, D, D>::zeros();
        self.state.write_blocks(&mut out);
        out.fixed_view_mut::<N, 1>(0, 2 * N).copy_from(&self.dq_dz);
        out.fixed_view_mut::<N, 1>(N, 2 * N).copy_from(&self.dp_dz);
        out.fixed_view_mut::<1, N>(2 * N, 0).copy_from(&self.dz_dq);
        out.fixed_view_mut::<1, N>(2 * N, N).copy_from(&self.dz_dp);
        out[(2 * N, 2 * N)] = self.dz_dz;
        out
    }

    /// The conformal factor σ and the defect of the map as a contact transformation from
    /// (q₀, p₀, z₀) to (q₁, p₁, z₁): the contact form η = dz − p·dq pulled back, η₁ ∘ M = σ η₀,
    /// whose z-entry is σ and whose other entries, σ p₀ − (∂z₁/∂q₀ − p₁ᵀ ∂q₁/∂q₀) and
    /// −(∂z₁/∂p₀ − p₁ᵀ ∂q₁/∂p₀), vanish (the largest is the defect; zero for an unforced contact
    /// step, whose σ is 1 + D₃L_d — the discrete counterpart of exp(∫ ∂L/∂z dt)).
    #[must_use]
    pub fn contact_defect(&self, p0: &SVector<f64, N>, p1: &SVector<f64, N>) -> (f64, f64) {
        let s = &self.state;
        let pt = p1.transpose();
        let sigma = self.dz_dz - (pt * self.dq_dz)[0];
        let by_q = self.dz_dq - pt * s.dq_dq + p0.transpose() * sigma;
        let by_p = self.dz_dp - pt * s.dq_dp;
        (sigma, by_q.amax().max(by_p.amax()))
    }
}

/// The exact Jacobian of the contact step from (q₀, p₀, z₀) at a solved step (q₁ the solution of
/// F⁻(q₀, q₁, z₀) = p₀), by the implicit function theorem (J = ∂F⁻/∂q₁, factored once):
/// δq₁ = J⁻¹ (δp₀ − ∂F⁻/∂q₀ δq₀ − ∂F⁻/∂z₀ δz₀), δp₁ = ∂F⁺/∂q₀ δq₀ + ∂F⁺/∂q₁ δq₁ + ∂F⁺/∂z₀ δz₀,
/// δz₁ = δz₀ + D₁L_d δq₀ + D₂L_d δq₁ + D₃L_d δz₀. `None` if the system does not provide
/// [`ContactDiscreteSystem::contact_derivatives`].
///
/// ```
/// use routh_runtime::discrete::{ContactDiscreteSystem, ContactMapDerivatives, DiscreteOptions, contact_discrete_step, contact_step_jacobian};
/// use routh_runtime::nalgebra::{Matrix1, Vector1};
/// use routh_runtime::FieldError;
///
/// // A free particle damped through the action, L = ½q̇² − γz, by the rectangle rule with the
/// // action at the start: L_d = (q₁ − q₀)²/(2h) − γhz₀, so that with c = 1 − γh the step is
/// // q₁ = q₀ + h c p₀, p₁ = c p₀, z₁ = c z₀ + h c² p₀²/2 — and dz₁ − p₁dq₁ = c (dz₀ − p₀dq₀).
/// struct Damped(f64);
/// impl ContactDiscreteSystem<1> for Damped {
///     fn contact_left_momentum(&self, _t: f64, h: f64, q0: &Vector1<f64>, q1: &Vector1<f64>, _z0: f64)
///         -> Result<(Vector1<f64>, Matrix1<f64>), FieldError> {
///         let c = 1.0 - self.0 * h;
///         Ok(((q1 - q0) / (h * c), Matrix1::new(1.0 / (h * c))))
///     }
///     fn contact_right_momentum(&self, _t: f64, h: f64, q0: &Vector1<f64>, q1: &Vector1<f64>, z0: f64)
///         -> Result<(Vector1<f64>, f64), FieldError> {
///         let v = (q1[0] - q0[0]) / h;
///         Ok((Vector1::new(v), h * v * v / 2.0 - self.0 * h * z0))
///     }
///     fn action_factor(&self, _t: f64, h: f64, _q0: &Vector1<f64>, _q1: &Vector1<f64>, _z0: f64) -> Result<f64, FieldError> {
///         Ok(1.0 - self.0 * h)
///     }
///     fn contact_derivatives(&self, _t: f64, h: f64, q0: &Vector1<f64>, q1: &Vector1<f64>, _z0: f64)
///         -> Option<Result<ContactMapDerivatives<1>, FieldError>> {
///         let (c, v) = (1.0 - self.0 * h, (q1[0] - q0[0]) / h);
///         Some(Ok(ContactMapDerivatives {
///             left_dq0: Matrix1::new(-1.0 / (h * c)),
///             left_dz0: Vector1::zeros(),
///             right_dq0: Matrix1::new(-1.0 / h),
///             right_dq1: Matrix1::new(1.0 / h),
///             right_dz0: Vector1::zeros(),
///             action_dq0: Vector1::new(-v),
///             action_dq1: Vector1::new(v),
///             action_dz0: -self.0 * h,
///         }))
///     }
/// }
/// let (sys, h, p0) = (Damped(0.5), 0.1, Vector1::new(2.0));
/// let q0 = Vector1::new(0.3);
/// let (step, z1) = contact_discrete_step(&sys, (0.0, h), (&q0, &p0, 1.0), q0, &DiscreteOptions::default())?;
/// let c = 1.0 - 0.5 * h;
/// assert!((step.position[0] - (0.3 + h * c * 2.0)).abs() < 1e-14 && (z1 - (c + h * c * c * 2.0)).abs() < 1e-14);
/// let j = contact_step_jacobian(&sys, 0.0, h, &q0, &step.position, 1.0)?.unwrap();
/// assert!((j.state.dq_dp[0] - h * c).abs() < 1e-14 && (j.state.dp_dp[0] - c).abs() < 1e-14);
/// assert!((j.dz_dp[0] - h * c * c * 2.0).abs() < 1e-14 && (j.dz_dz - c).abs() < 1e-14);
/// // A contact map with σ = c.
/// let (sigma, defect) = j.contact_defect(&p0, &step.momentum);
/// assert!((sigma - c).abs() < 1e-14 && defect < 1e-14);
/// # Ok::<(), routh_runtime::SimError>(())
/// ```
///
/// # Errors
/// [`SimError::SingularStepJacobian`] for a singular J; the system's errors.
pub fn contact_step_jacobian<S: ContactDiscreteSystem<N> + ?Sized, const N: usize>(
    sys: &S,
    t: f64,
    h: f64,
    q0: &SVector<f64, N>,
    q1: &SVector<f64, N>,
    z0: f64,
) -> Result<Option<ContactStepJacobian<N>>, SimError> {
    Ok(contact_solved(sys, t, h, q0, q1, z0)?.map(|(jacobian, ..)| jacobian))
}

/// [`contact_step_jacobian`] with J's factor and the maps' derivatives, for the inputs' columns.
#[allow(clippy::type_complexity)]
fn contact_solved<S: ContactDiscreteSystem<N> + ?Sized, const N: usize>(
    sys: &S,
    t: f64,
    h: f64,
    q0: &SVector<f64, N>,
    q1: &SVector<f64, N>,
    z0: f64,
) -> Result<Option<(ContactStepJacobian<N>, LuFactor<N>, ContactMapDerivatives<N>)>, SimError> {
    let Some(d) = sys.contact_derivatives(t, h, q0, q1, z0) else { return Ok(None) };
    let d = d?;
    let (_, j) = sys.contact_left_momentum(t, h, q0, q1, z0)?;
    let lu = LuFactor::new(j).map_err(|_| SimError::SingularStepJacobian { t })?;
    let singular = |_| SimError::SingularStepJacobian { t };
    let dq_dq = -lu.solve(d.left_dq0).map_err(singular)?;
    let dq_dp = lu.solve(SMatrix::<f64, N, N>::identity()).map_err(singular)?;
    let dq_dz = -lu.solve(d.left_dz0).map_err(singular)?;
    let state = StepJacobian { dq_dq, dq_dp, dp_dq: d.right_dq0 + d.right_dq1 * dq_dq, dp_dp: d.right_dq1 * dq_dp };
    let (l0, l1) = (d.action_dq0.transpose(), d.action_dq1.transpose());
    let jacobian = ContactStepJacobian {
        state,
        dq_dz,
        dp_dz: d.right_dz0 + d.right_dq1 * dq_dz,
        dz_dq: l0 + l1 * dq_dq,
        dz_dp: l1 * dq_dp,
        dz_dz: 1.0 + d.action_dz0 + (l1 * dq_dz)[0],
    };
    Ok(Some((jacobian, lu, d)))
}

/// A contact system whose discrete forces take inputs u, held over each step (a generated contact
/// model's view at fixed inputs): the inputs' derivatives of its maps, for the step map's input
/// Jacobian ([`contact_input_step_jacobian`]).
pub trait ContactInputSystem<const N: usize, const K: usize>: ContactDiscreteSystem<N> {
    /// (∂F⁻/∂u, ∂F⁺/∂u, ∂L_d/∂u) at (q₀, q₁, z₀).
    ///
    /// # Errors
    /// A [`FieldError`] if they cannot be evaluated.
    #[allow(clippy::type_complexity)]
    fn contact_input_derivatives(
        &self,
        t: f64,
        h: f64,
        q0: &SVector<f64, N>,
        q1: &SVector<f64, N>,
        z0: f64,
    ) -> Result<(SMatrix<f64, N, K>, SMatrix<f64, N, K>, SMatrix<f64, 1, K>), FieldError>;
}

/// A contact model with inputs as a family of contact systems, one per input value: a generated
/// model with `action(...)`, `input(...)` and `discrete(...)`, whose view at the inputs u is a
/// [`ContactInputSystem`] — what plans over its contact integrator (`step::ContactMap`) take.
pub trait DrivenContactDiscrete<const N: usize, const K: usize> {
    /// The contact system at fixed inputs.
    type At<'a>: ContactInputSystem<N, K>
    where
        Self: 'a;
    /// The contact system at the inputs `u`.
    fn at(&self, u: &SVector<f64, K>) -> Self::At<'_>;
}

/// The Jacobians of a contact step map with inputs, (q_k, p_k, z_k, u_k) ↦ (q_{k+1}, p_{k+1},
/// z_{k+1}): the state's ([`ContactStepJacobian`]) and the inputs'.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ContactInputStepJacobian<const N: usize, const K: usize> {
    /// ∂(q_{k+1}, p_{k+1}, z_{k+1})/∂(q_k, p_k, z_k) in blocks.
    pub state: ContactStepJacobian<N>,
    /// ∂q_{k+1}/∂u_k.
    pub dq_du: SMatrix<f64, N, K>,
    /// ∂p_{k+1}/∂u_k.
    pub dp_du: SMatrix<f64, N, K>,
    /// ∂z_{k+1}/∂u_k.
    pub dz_du: SMatrix<f64, 1, K>,
}

impl<const N: usize, const K: usize> ContactInputStepJacobian<N, K> {
    /// A_d = ∂x_{k+1}/∂x_k over the state x = (q, p, z) (`D = 2N + 1`).
    #[must_use]
    pub fn state_matrix<const D: usize>(&self) -> SMatrix<f64, D, D> {
        self.state.state_matrix()
    }

    /// B_d = ∂x_{k+1}/∂u_k over the state x = (q, p, z) (`D = 2N + 1`).
    #[must_use]
    pub fn input_matrix<const D: usize>(&self) -> SMatrix<f64, D, K> {
        assert_eq!(D, 2 * N + 1, "the state (q, p, z) has 2N + 1 components");
        let mut out = SMatrix::<f64, D, K>::zeros();
        out.fixed_view_mut::<N, K>(0, 0).copy_from(&self.dq_du);
        out.fixed_view_mut::<N, K>(N, 0).copy_from(&self.dp_du);
        out.fixed_view_mut::<1, K>(2 * N, 0).copy_from(&self.dz_du);
        out
    }
}

/// The exact Jacobians of a contact step with its inputs held, at a solved step: as
/// [`contact_step_jacobian`] for the state, and for the inputs δq₁ = −J⁻¹ ∂F⁻/∂u δu,
/// δp₁ = (∂F⁺/∂u + ∂F⁺/∂q₁ ∂q₁/∂u) δu, δz₁ = (∂L_d/∂u + D₂L_d ∂q₁/∂u) δu. `None` if the system
/// does not provide [`ContactDiscreteSystem::contact_derivatives`].
///
/// # Errors
/// [`SimError::SingularStepJacobian`] for a singular J; the system's errors.
pub fn contact_input_step_jacobian<S: ContactInputSystem<N, K> + ?Sized, const N: usize, const K: usize>(
    sys: &S,
    t: f64,
    h: f64,
    q0: &SVector<f64, N>,
    q1: &SVector<f64, N>,
    z0: f64,
) -> Result<Option<ContactInputStepJacobian<N, K>>, SimError> {
    let Some((state, lu, d)) = contact_solved(sys, t, h, q0, q1, z0)? else { return Ok(None) };
    let (fu, gu, lu_) = sys.contact_input_derivatives(t, h, q0, q1, z0)?;
    let dq_du = -lu.solve(fu).map_err(|_| SimError::SingularStepJacobian { t })?;
    Ok(Some(ContactInputStepJacobian {
        state,
        dq_du,
        dp_du: gu + d.right_dq1 * dq_du,
        dz_du: lu_ + d.action_dq1.transpose() * dq_du,
    }))
}

/// Adapts a contact system at a fixed action z₀ to [`DiscreteSystem`] (for one step's Newton
/// solve); the action's increment L_d of the last `right_momentum` (the step's, at its solution)
/// is kept, so the step evaluates F^{f+}L_d and L_d once.
struct AtAction<'s, S: ?Sized> {
    sys: &'s S,
    z0: f64,
    increment: std::cell::Cell<f64>,
}

impl<S: ContactDiscreteSystem<N> + ?Sized, const N: usize> DiscreteSystem<N> for AtAction<'_, S> {
    fn left_momentum(
        &self,
        t: f64,
        h: f64,
        q0: &SVector<f64, N>,
        q1: &SVector<f64, N>,
    ) -> Result<(SVector<f64, N>, SMatrix<f64, N, N>), FieldError> {
        self.sys.contact_left_momentum(t, h, q0, q1, self.z0)
    }
    fn right_momentum(&self, t: f64, h: f64, q0: &SVector<f64, N>, q1: &SVector<f64, N>) -> Result<SVector<f64, N>, FieldError> {
        let (p, increment) = self.sys.contact_right_momentum(t, h, q0, q1, self.z0)?;
        self.increment.set(increment);
        Ok(p)
    }
}

/// The contact variational integrator: `steps` steps of size `h` from (q₀, p₀, z₀) at `t0` (see
/// [`ContactDiscreteSystem`]); the actions are in [`DiscreteTrajectory::actions`].
///
/// # Errors
/// As [`simulate_discrete`].
#[allow(clippy::too_many_arguments)]
pub(crate) fn simulate_discrete_contact<S: ContactDiscreteSystem<N> + ?Sized, const N: usize>(
    sys: &S,
    t0: f64,
    h: f64,
    steps: usize,
    q0: SVector<f64, N>,
    p0: SVector<f64, N>,
    z0: f64,
    v0: SVector<f64, N>,
    options: &DiscreteOptions,
) -> RunResult<DiscreteTrajectory<N>> {
    check_start::<N, N>(h, steps, options, q0.iter().chain(p0.iter()).chain([&z0]))?;
    let mut traj = DiscreteTrajectory::start(t0, q0, p0, steps);
    traj.actions.push(z0);
    let (mut q, mut p, mut z) = (q0, p0, z0);
    let mut guess = q0 + v0 * h;
    for k in 0..steps {
        let t = t0 + k as f64 * h;
        let (step, next) = match contact_discrete_step(sys, (t, h), (&q, &p, z), guess, options) {
            Ok(step) => step,
            Err(e) => return Err(RunError::with_partial(e, traj)),
        };
        guess = step.position * 2.0 - q;
        q = step.position;
        p = step.momentum;
        z = next;
        traj.push(t0 + (k + 1) as f64 * h, q, p, step.iterations);
        traj.actions.push(z);
    }
    Ok(traj)
}

/// One step of the contact variational integrator from (q_k, p_k, z_k) (`node`) at time `t` with
/// step `h` (`grid`), Newton started at `guess`: q_{k+1} solving F⁻(q_k, q_{k+1}, z_k) = p_k, then
/// p_{k+1} = F⁺ and the action z_{k+1} = z_k + L_d (see [`ContactDiscreteSystem`]) — the step map
/// that [`contact_step_jacobian`] differentiates.
///
/// # Errors
/// As [`discrete_step`]; [`SimError::ContactStepTooLarge`] where the step carries the action's
/// variations by a factor at or below zero.
pub fn contact_discrete_step<S: ContactDiscreteSystem<N> + ?Sized, const N: usize>(
    sys: &S,
    (t, h): (f64, f64),
    (q, p, z): (&SVector<f64, N>, &SVector<f64, N>, f64),
    guess: SVector<f64, N>,
    options: &DiscreteOptions,
) -> Result<(DiscreteStep<N>, f64), SimError> {
    let at = AtAction { sys, z0: z, increment: std::cell::Cell::new(f64::NAN) };
    let step = discrete_step(&at, (t, h), (q, p), guess, options)?;
    let factor = sys.action_factor(t, h, q, &step.position, z)?;
    if !(factor > 0.0) {
        return Err(SimError::ContactStepTooLarge { t, h, factor });
    }
    let next = z + at.increment.get();
    if !next.is_finite() {
        return Err(SimError::NonFiniteState { t });
    }
    Ok((step, next))
}

/// The two-step form of the forced discrete Euler–Lagrange equations: from the nodes q₀, q₁, solve
/// D₂L_d(q_{k−1}, q_k) + f⁺(q_{k−1}, q_k) + D₁L_d(q_k, q_{k+1}) + f⁻(q_k, q_{k+1}) = 0 for q_{k+1}
/// (Newton with ∂(D₁L_d + f⁻)/∂q_{k+1}), `steps` times. The momenta of the result are those the
/// nodes imply, p_k = F^{f+}L_d(q_{k−1}, q_k) (p₀ = F^{f−}L_d(q₀, q₁)).
///
/// # Errors
/// As [`simulate_discrete`].
pub(crate) fn simulate_discrete_two_step<S: DiscreteSystem<N> + ?Sized, const N: usize>(
    sys: &S,
    t0: f64,
    h: f64,
    steps: usize,
    q0: SVector<f64, N>,
    q1: SVector<f64, N>,
    options: &DiscreteOptions,
) -> RunResult<DiscreteTrajectory<N>> {
    check_start::<N, N>(h, steps, options, q0.iter().chain(q1.iter()))?;
    let p0 = sys.left_momentum(t0, h, &q0, &q1)?.0;
    let mut traj = DiscreteTrajectory::start(t0, q0, p0, steps);
    if steps == 0 {
        return Ok(traj);
    }
    let (mut prev, mut cur) = (q0, q1);
    traj.push(t0 + h, q1, sys.right_momentum(t0, h, &q0, &q1)?, 0);
    for k in 1..steps {
        let t = t0 + k as f64 * h;
        // Momentum matching: F^{f−}L_d(q_k, q_{k+1}) = F^{f+}L_d(q_{k−1}, q_k).
        let step = match sys
            .right_momentum(t - h, h, &prev, &cur)
            .map_err(SimError::from)
            .and_then(|pk| discrete_step(sys, (t, h), (&cur, &pk), cur * 2.0 - prev, options))
        {
            Ok(step) => step,
            Err(e) => return Err(RunError::with_partial(e, traj)),
        };
        prev = cur;
        cur = step.position;
        traj.push(t + h, cur, step.momentum, step.iterations);
    }
    Ok(traj)
}

crate::invariants::validated!(DiscreteTrajectory<const N: usize, const P: usize>);

impl<const N: usize, const P: usize> Invariants for DiscreteTrajectory<N, P> {
    fn invariants(&self) -> Result<(), String> {
        let nodes = self.times.len();
        invariants::same_length("positions", self.positions.len(), nodes)?;
        invariants::same_length("momenta", self.momenta.len(), nodes)?;
        if !self.actions.is_empty() {
            invariants::same_length("actions", self.actions.len(), nodes)?;
        }
        if self.iterations.len() + 1 != nodes.max(1) {
            return Err(format!("`iterations` has {} entries for {nodes} nodes (one per step)", self.iterations.len()));
        }
        invariants::direction("times", &self.times).map(|_| ())
    }
}

crate::invariants::validated!(ReducedDiscreteTrajectory<const N: usize>);

impl<const N: usize> Invariants for ReducedDiscreteTrajectory<N> {
    fn invariants(&self) -> Result<(), String> {
        self.trajectory.invariants()?;
        let steps = self.trajectory.iterations.len();
        if self.increments.len() == steps {
            Ok(())
        } else {
            Err(format!("`increments` has {} entries for {steps} steps", self.increments.len()))
        }
    }
}

#[cfg(test)]
mod tests;
