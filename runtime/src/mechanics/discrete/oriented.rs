//! Variational integrators on configurations with orientations, ℝᵐ × (S³)ᵏ — a Lie group
//! variational integrator in position–momentum form with the Cayley map (Lee, Leok and
//! McClamroch 2005 for the rigid body; Kobilarov and Marsden 2011, *Discrete geometric optimal
//! control on Lie groups*, for the Cayley map).
//!
//! **The layout.** `P` positions: the `m` ordinary coordinates, then each orientation's quaternion
//! (w, x, y, z); `N` = m + 3k momenta and increments: the ordinary ones, then three per orientation
//! — the layout of a model's state x = (q, v) with its body angular velocities
//! ([`StateLayout`](crate::mechanics::StateLayout)).
//!
//! **The step.** Its unknown is the increment ξ ∈ ℝᴺ: the ordinary coordinates' Δ = x_{k+1} − x_k
//! and, per orientation, the vector ξ of its turn Q_{k+1} = Q_k ⊗ cay(ξ), the unit quaternion of
//! (1, ξ/2) — a turn by 2 atan(|ξ|/2) about ξ, rational in ξ (no sine; ξ = 2 v / w back from a turn
//! (w, v)), the map q_k ∘ ξ of [`compose`]. A discrete Lagrangian L_d(q_k, ξ) and discrete forces
//! f^± give the momenta at the step's two nodes in each body's axes, by varying one node at the
//! other fixed — an ordinary coordinate by δx, an orientation by Q ⊗ exp(η/2) (its body rotation
//! vector η):
//!
//! ```text
//! μ⁻(q_k, ξ) = −∂L_d/∂(δx_k, η_k) − f⁻          μ⁺(q_k, ξ) = ∂L_d/∂(δx_{k+1}, η_{k+1}) + f⁺
//! ```
//!
//! One step from (q_k, μ_k) solves μ⁻(q_k, ξ) = μ_k for ξ by Newton's method with the exact
//! ∂μ⁻/∂ξ, then sets q_{k+1} = q_k ∘ ξ and μ_{k+1} = μ⁺(q_k, ξ): the forced discrete
//! Euler–Poincaré equations as momentum matching. Through the increment, (1, ξ'/2) ∝ (1, −η_k/2) ⊗
//! (1, ξ/2) ⊗ (1, η_{k+1}/2) gives
//!
//! ```text
//! ∂ξ/∂η_{k+1} = A(ξ),   ∂ξ/∂η_k = −A(ξ)ᵀ,   A(ξ) = 1 + ½ [ξ×] + ¼ ξ ξᵀ,   C(ξ) Aᵀ = A
//! ```
//!
//! (C(ξ) = 1 + ([ξ×] + [ξ×]²/2)/(1 + |ξ|²/4) the turn's rotation matrix), so that a free body's
//! L_d = h ℓ(ξ/h) has μ⁻ = A π and μ⁺ = Aᵀ π with π = ∂L_d/∂ξ, and μ_{k+1} = C(ξ)ᵀ μ_k: the body's
//! momentum turns with it, its spatial R μ is kept (the discrete Noether theorem for L_d invariant
//! under rotations of the ground), and so is |μ|. The step is fixed, as for every variational
//! integrator here ([`crate::discrete`]); the nodes are a [`DiscreteTrajectory`] whose positions
//! hold the quaternions (unit: each turn's product is normalised).
//!
//! **Inputs** held over a step enter the discrete forces ([`OrientedInputSystem`]: ∂μ∓/∂u), and a
//! model with inputs is a family of such systems ([`DrivenOrientedDiscrete`]) that
//! [`OrientedMap`](crate::step::OrientedMap) steps for discrete LQR and iLQR
//! ([`crate::ilqr::ilqr_oriented`]).
//!
//! **Step Jacobians** are in the chart of the body rotation vectors (the tangent space, as
//! [`linearize_chart`](crate::linearize) and [`TangentStep`](crate::step::TangentStep)'s charts): δq =
//! (δx, η), and at fixed ξ a turn carries its η to C(ξ)ᵀ η while a change of ξ turns the next node by
//! A(ξ)⁻¹ δξ ([`oriented_step_jacobian`]). The map preserves the symplectic form of the cotangent
//! bundle in body axes, ω_μ((η₁, ν₁), (η₂, ν₂)) = ⟨ν₂, η₁⟩ − ⟨ν₁, η₂⟩ + ⟨μ, η₁ × η₂⟩ — not the
//! canonical form of [`StepJacobian::symplecticity_defect`]; [`oriented_symplecticity_defect`]
//! measures it.
//!
//! ```
//! use routh_runtime::discrete::{OrientedDiscreteSystem, cayley_factor};
//! use routh_runtime::nalgebra::{Matrix3, Vector3, Vector4};
//! use routh_runtime::run::OrientedNode;
//! use routh_runtime::{FieldError, Oriented, SimulateDiscrete};
//!
//! /// A free rigid body with principal moments J: L_d = ξᵀ J ξ / (2h), π = J ξ / h.
//! struct Free(Matrix3<f64>);
//! impl OrientedDiscreteSystem<4, 3> for Free {
//!     fn left_momentum(&self, _t: f64, h: f64, _q0: &Vector4<f64>, xi: &Vector3<f64>)
//!         -> Result<(Vector3<f64>, Matrix3<f64>), FieldError> {
//!         let (a, pi) = (cayley_factor(xi), self.0 * xi / h);
//!         // A J ξ = J ξ + ½ ξ × J ξ + ¼ ξ (ξ·J ξ), differentiated in ξ.
//!         let jxi = self.0 * xi;
//!         let d = self.0 + (xi.cross_matrix() * self.0 - jxi.cross_matrix()) * 0.5
//!             + (Matrix3::identity() * xi.dot(&jxi) + xi * jxi.transpose() * 2.0) * 0.25;
//!         Ok((a * pi, d / h))
//!     }
//!     fn right_momentum(&self, _t: f64, h: f64, _q0: &Vector4<f64>, xi: &Vector3<f64>) -> Result<Vector3<f64>, FieldError> {
//!         Ok(cayley_factor(xi).transpose() * (self.0 * xi / h))
//!     }
//! }
//! let body = Free(Matrix3::from_diagonal(&Vector3::new(1.0, 2.0, 3.0)));
//! let omega = Vector3::new(0.3, 1.0, -0.2);
//! let start = OrientedNode { q: Vector4::new(1.0, 0.0, 0.0, 0.0), mu: body.0 * omega, v: omega };
//! let traj = Oriented(&body).run_discrete(start).step(0.1).steps(500).go()?;
//! // |μ| is kept, and the spatial momentum R μ (Noether).
//! let (mu0, mu) = (traj.momenta[0], traj.momenta[500]);
//! assert!((mu.norm() - mu0.norm()).abs() < 1e-12);
//! let q = traj.positions[500];
//! let r = routh_runtime::nalgebra::UnitQuaternion::from_quaternion(
//!     routh_runtime::nalgebra::Quaternion::new(q[0], q[1], q[2], q[3]));
//! assert!((r * mu - mu0).norm() < 1e-12);
//! # Ok::<(), routh_runtime::SimError>(())
//! ```

use nalgebra::{Matrix3, Quaternion, SMatrix, SVector, Vector3};

use super::{DiscreteOptions, DiscreteTrajectory, InputStepJacobian, MapDerivatives, StepJacobian, check_start};
use crate::error::{FieldError, RunError, RunResult, SimError};
use crate::mechanics::linalg::LuFactor;
use crate::mechanics::newton_converged;

/// A forced discrete system on ℝᵐ × (S³)ᵏ with `P` = m + 4k positions and `N` = m + 3k momenta
/// (see the [module docs](self)): its discrete Legendre maps as functions of the first node and the
/// increment.
pub trait OrientedDiscreteSystem<const P: usize, const N: usize> {
    /// μ⁻(q₀, ξ) = −∂L_d/∂(δx₀, η₀) − f⁻ and its Jacobian with respect to ξ, for the step of size
    /// `h` starting at time `t`.
    ///
    /// # Errors
    /// A [`FieldError`] if they cannot be evaluated.
    fn left_momentum(
        &self,
        t: f64,
        h: f64,
        q0: &SVector<f64, P>,
        xi: &SVector<f64, N>,
    ) -> Result<(SVector<f64, N>, SMatrix<f64, N, N>), FieldError>;

    /// μ⁺(q₀, ξ) = ∂L_d/∂(δx₁, η₁) + f⁺.
    ///
    /// # Errors
    /// A [`FieldError`] if it cannot be evaluated.
    fn right_momentum(&self, t: f64, h: f64, q0: &SVector<f64, P>, xi: &SVector<f64, N>) -> Result<SVector<f64, N>, FieldError>;

    /// The remaining derivatives of the maps for the step's exact Jacobian
    /// ([`oriented_step_jacobian`]): (∂μ⁻/∂q₀, ∂μ⁺/∂q₀, ∂μ⁺/∂ξ), those over q₀ along its chart
    /// (δx₀, η₀) at fixed ξ; `None` (the default) if not provided.
    ///
    /// # Errors
    /// A [`FieldError`] if they cannot be evaluated.
    #[allow(clippy::type_complexity)]
    fn momentum_derivatives(
        &self,
        _t: f64,
        _h: f64,
        _q0: &SVector<f64, P>,
        _xi: &SVector<f64, N>,
    ) -> Option<Result<(SMatrix<f64, N, N>, SMatrix<f64, N, N>, SMatrix<f64, N, N>), FieldError>> {
        None
    }

    /// All four blocks at once — [`Self::momentum_derivatives`]' three and Newton's J = ∂μ⁻/∂ξ —
    /// as [`oriented_step_jacobian`] reads them. The default calls both methods; a generated
    /// system computes the four in one pass, the blocks reading the values its `left_momentum`
    /// computes (see [`MapDerivatives`]).
    ///
    /// # Errors
    /// A [`FieldError`] if they cannot be evaluated.
    fn map_derivatives(
        &self,
        t: f64,
        h: f64,
        q0: &SVector<f64, P>,
        xi: &SVector<f64, N>,
    ) -> Option<Result<MapDerivatives<N>, FieldError>> {
        let blocks = self.momentum_derivatives(t, h, q0, xi)?;
        Some(blocks.and_then(|(left_dq0, right_dq0, right_dnext)| {
            let (_, left_dnext) = self.left_momentum(t, h, q0, xi)?;
            Ok(MapDerivatives { left_dq0, left_dnext, right_dq0, right_dnext })
        }))
    }
}

/// An [`OrientedDiscreteSystem`] whose discrete forces take inputs u, held over each step (a
/// generated model's view at fixed inputs, `model.driven(u)`): the inputs' derivatives of its maps,
/// for the step's input Jacobian ([`oriented_input_step_jacobian`]).
pub trait OrientedInputSystem<const P: usize, const N: usize, const K: usize>: OrientedDiscreteSystem<P, N> {
    /// (∂μ⁻/∂u, ∂μ⁺/∂u) at (q₀, ξ): the discrete forces' derivatives (the discrete Lagrangian takes
    /// no inputs).
    ///
    /// # Errors
    /// A [`FieldError`] if they cannot be evaluated.
    #[allow(clippy::type_complexity)]
    fn momentum_input_derivatives(
        &self,
        t: f64,
        h: f64,
        q0: &SVector<f64, P>,
        xi: &SVector<f64, N>,
    ) -> Result<(SMatrix<f64, N, K>, SMatrix<f64, N, K>), FieldError>;
}

/// A discrete model with orientations and inputs as a family of systems, one per input value: a
/// generated model with `orientation(...)`, `input(...)` and `discrete(...)`, whose view at the
/// inputs u (`model.driven(u)`) is an [`OrientedInputSystem`] — what
/// [`OrientedMap`](crate::step::OrientedMap) steps.
pub trait DrivenOrientedDiscrete<const P: usize, const N: usize, const K: usize> {
    /// The discrete system at fixed inputs.
    type At<'a>: OrientedInputSystem<P, N, K>
    where
        Self: 'a;
    /// The discrete system at the inputs `u`.
    fn at(&self, u: &SVector<f64, K>) -> Self::At<'_>;
}

/// The layout's ordinary coordinates m and orientations k, checked at compile time.
struct Layout<const P: usize, const N: usize>;

impl<const P: usize, const N: usize> Layout<P, N> {
    const OK: (usize, usize) = {
        assert!(P >= N && 3 * (P - N) <= N, "P = m + 4k positions and N = m + 3k momenta");
        (N - 3 * (P - N), P - N)
    };
}

/// The turn by the increment ξ of the Cayley map, cay(ξ): the unit quaternion of (1, ξ/2).
#[must_use]
pub fn cayley(xi: &Vector3<f64>) -> Quaternion<f64> {
    let q = Quaternion::new(1.0, 0.5 * xi.x, 0.5 * xi.y, 0.5 * xi.z);
    q / q.norm()
}

/// A(ξ) = 1 + ½ [ξ×] + ¼ ξ ξᵀ, the derivative of the increment along the next node's body rotation
/// vector (see the [module docs](self)); A(ξ)ᵀ along the first node's, negated.
#[must_use]
pub fn cayley_factor(xi: &Vector3<f64>) -> Matrix3<f64> {
    Matrix3::identity() + xi.cross_matrix() * 0.5 + xi * xi.transpose() * 0.25
}

/// C(ξ), the rotation matrix of [`cayley`]: 1 + ([ξ×] + [ξ×]²/2)/(1 + |ξ|²/4).
#[must_use]
pub fn cayley_rotation(xi: &Vector3<f64>) -> Matrix3<f64> {
    let x = xi.cross_matrix();
    Matrix3::identity() + (x + x * x * 0.5) / (1.0 + 0.25 * xi.norm_squared())
}

/// The node q₀ moved by the increment ξ: the ordinary coordinates by their Δ, each orientation
/// turned to Q₀ ⊗ cay(ξ) and normalised.
#[must_use]
pub fn compose<const P: usize, const N: usize>(q0: &SVector<f64, P>, xi: &SVector<f64, N>) -> SVector<f64, P> {
    let (m, k) = Layout::<P, N>::OK;
    let mut q1 = *q0;
    for i in 0..m {
        q1[i] += xi[i];
    }
    for o in 0..k {
        let (qs, vs) = (m + 4 * o, m + 3 * o);
        let turn = Quaternion::new(1.0, 0.5 * xi[vs], 0.5 * xi[vs + 1], 0.5 * xi[vs + 2]);
        let q = Quaternion::new(q0[qs], q0[qs + 1], q0[qs + 2], q0[qs + 3]) * turn;
        let q = q / q.norm();
        q1[qs] = q.w;
        q1[qs + 1] = q.i;
        q1[qs + 2] = q.j;
        q1[qs + 3] = q.k;
    }
    q1
}

/// One step's result.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct OrientedStep<const P: usize, const N: usize> {
    /// q_{k+1} = q_k ∘ ξ.
    pub position: SVector<f64, P>,
    /// μ_{k+1}.
    pub momentum: SVector<f64, N>,
    /// The increment ξ.
    pub increment: SVector<f64, N>,
    /// Newton iterations used.
    pub iterations: usize,
}

/// One step from (q_k, μ_k) (`node`) at time `t` with step `h`, Newton started at the increment
/// `guess`; converged when a correction of ξ is at most `tolerance · (1 + ‖ξ‖∞ + ‖x_k‖∞)` (x_k the
/// ordinary coordinates, as [`DiscreteOptions::tolerance`] scales with the positions), or at the
/// rounding floor of an ill-conditioned ∂μ⁻/∂ξ as there.
///
/// # Errors
/// [`SimError::NewtonFailed`] without convergence, [`SimError::SingularStepJacobian`] for a
/// singular ∂μ⁻/∂ξ, [`SimError::NonFiniteState`] for a non-finite result; the system's
/// [`FieldError`]s as [`SimError`]s.
pub fn oriented_step<S: OrientedDiscreteSystem<P, N> + ?Sized, const P: usize, const N: usize>(
    sys: &S,
    (t, h): (f64, f64),
    (q0, mu0): (&SVector<f64, P>, &SVector<f64, N>),
    guess: SVector<f64, N>,
    options: &DiscreteOptions,
) -> Result<OrientedStep<P, N>, SimError> {
    let (m, _) = Layout::<P, N>::OK;
    let scale = 1.0 + q0.iter().take(m).fold(0.0_f64, |a, x| a.max(x.abs()));
    let mut xi = guess;
    let mut last = f64::INFINITY;
    for it in 0..options.max_iterations {
        let previous = last;
        let (left, jac) = sys.left_momentum(t, h, q0, &xi)?;
        let lu = LuFactor::new(jac).map_err(|_| SimError::SingularStepJacobian { t })?;
        let delta = lu.solve(left - mu0).map_err(|_| SimError::SingularStepJacobian { t })?;
        xi -= delta;
        last = delta.amax();
        if !last.is_finite() {
            return Err(SimError::NonFiniteState { t });
        }
        if newton_converged(last, previous, options.tolerance, scale + xi.amax()) {
            let momentum = sys.right_momentum(t, h, q0, &xi)?;
            let position = compose(q0, &xi);
            if !(momentum.iter().all(|v| v.is_finite()) && position.iter().all(|v| v.is_finite())) {
                return Err(SimError::NonFiniteState { t });
            }
            return Ok(OrientedStep { position, momentum, increment: xi, iterations: it + 1 });
        }
    }
    Err(SimError::NewtonFailed { t, iterations: options.max_iterations, correction: last })
}

/// The exact Jacobian of the step from (q₀, μ₀) with the solved increment ξ, in the chart (δx, η)
/// of the positions (see the [module docs](self)): by the implicit function theorem on
/// μ⁻(q₀, ξ) = μ₀, δξ = J⁻¹ (δμ₀ − ∂μ⁻/∂q₀ δq₀) with J = ∂μ⁻/∂ξ; the next node moves by δx₀ + δΔ
/// and by η₁ = C(ξ)ᵀ η₀ + A(ξ)⁻¹ δξ, and μ₁ = μ⁺(q₀, ξ) by the chain rule. `None` if the system does
/// not provide [`OrientedDiscreteSystem::momentum_derivatives`].
///
/// # Errors
/// [`SimError::SingularStepJacobian`] for a singular J or A(ξ); the system's errors.
pub fn oriented_step_jacobian<S: OrientedDiscreteSystem<P, N> + ?Sized, const P: usize, const N: usize>(
    sys: &S,
    t: f64,
    h: f64,
    q0: &SVector<f64, P>,
    xi: &SVector<f64, N>,
) -> Result<Option<StepJacobian<N>>, SimError> {
    Ok(chart_blocks(sys, t, h, q0, xi)?.map(|blocks| blocks.state))
}

/// [`oriented_step_jacobian`] with the inputs' columns: the inputs held over the step move ξ by
/// −J⁻¹ ∂μ⁻/∂u, the next node by A(ξ)⁻¹ of that, and μ₁ by ∂μ⁺/∂u + ∂μ⁺/∂ξ of it.
///
/// # Errors
/// As [`oriented_step_jacobian`].
pub fn oriented_input_step_jacobian<S: OrientedInputSystem<P, N, K> + ?Sized, const P: usize, const N: usize, const K: usize>(
    sys: &S,
    t: f64,
    h: f64,
    q0: &SVector<f64, P>,
    xi: &SVector<f64, N>,
) -> Result<Option<InputStepJacobian<N, K>>, SimError> {
    let Some(ChartBlocks { state, lu, turned, by_xi }) = chart_blocks(sys, t, h, q0, xi)? else { return Ok(None) };
    let (left_u, right_u) = sys.momentum_input_derivatives(t, h, q0, xi)?;
    let dxi_du = -lu.solve(left_u).map_err(|_| SimError::SingularStepJacobian { t })?;
    let (dq_du, dp_du) = (turned * dxi_du, right_u + by_xi * dxi_du);
    if dq_du.iter().chain(dp_du.iter()).all(|v| v.is_finite()) {
        Ok(Some(InputStepJacobian { state, dq_du, dp_du }))
    } else {
        Err(SimError::SingularStepJacobian { t })
    }
}

/// What [`oriented_step_jacobian`] and [`oriented_input_step_jacobian`] share: the state's blocks,
/// J = ∂μ⁻/∂ξ factored, the increment's turn of the next node A(ξ)⁻¹ (by blocks) and ∂μ⁺/∂ξ.
struct ChartBlocks<const N: usize> {
    state: StepJacobian<N>,
    lu: LuFactor<N>,
    turned: SMatrix<f64, N, N>,
    by_xi: SMatrix<f64, N, N>,
}

fn chart_blocks<S: OrientedDiscreteSystem<P, N> + ?Sized, const P: usize, const N: usize>(
    sys: &S,
    t: f64,
    h: f64,
    q0: &SVector<f64, P>,
    xi: &SVector<f64, N>,
) -> Result<Option<ChartBlocks<N>>, SimError> {
    let (m, k) = Layout::<P, N>::OK;
    let Some(blocks) = sys.map_derivatives(t, h, q0, xi) else { return Ok(None) };
    let MapDerivatives { left_dq0: d0, left_dnext: j, right_dq0: e0, right_dnext: e1 } = blocks?;
    let singular = |_| SimError::SingularStepJacobian { t };
    let lu = LuFactor::new(j).map_err(singular)?;
    // ∂ξ/∂q₀ and ∂ξ/∂μ₀.
    let dxi_dq = -lu.solve(d0).map_err(singular)?;
    let dxi_dmu = lu.solve(SMatrix::<f64, N, N>::identity()).map_err(singular)?;
    // The next node's chart: T₀ δq₀ + T_ξ δξ, by blocks.
    let mut t0 = SMatrix::<f64, N, N>::identity();
    let mut txi = SMatrix::<f64, N, N>::identity();
    for o in 0..k {
        let vs = m + 3 * o;
        let w = Vector3::new(xi[vs], xi[vs + 1], xi[vs + 2]);
        // A(ξ)⁻¹ = (1 − ½ [ξ×]) / (1 + |ξ|²/4).
        let a_inv = (Matrix3::identity() - w.cross_matrix() * 0.5) / (1.0 + 0.25 * w.norm_squared());
        t0.fixed_view_mut::<3, 3>(vs, vs).copy_from(&cayley_rotation(&w).transpose());
        txi.fixed_view_mut::<3, 3>(vs, vs).copy_from(&a_inv);
    }
    let state = StepJacobian { dq_dq: t0 + txi * dxi_dq, dq_dp: txi * dxi_dmu, dp_dq: e0 + e1 * dxi_dq, dp_dp: e1 * dxi_dmu };
    let finite = |x: &SMatrix<f64, N, N>| x.iter().all(|v| v.is_finite());
    if finite(&state.dq_dq) && finite(&state.dq_dp) && finite(&state.dp_dq) && finite(&state.dp_dp) {
        Ok(Some(ChartBlocks { state, lu, turned: txi, by_xi: e1 }))
    } else {
        Err(SimError::SingularStepJacobian { t })
    }
}

/// The largest entry of Mᵀ Ω(μ₁) M − Ω(μ₀) for a step's Jacobian M in the chart from (q₀, μ₀) to
/// (q₁, μ₁) (zero for a map that preserves the symplectic form of the cotangent bundle in body
/// axes, see the [module docs](self)): Ω(μ) = [W(μ), −1; 1, 0] with W's block [μ×] per
/// orientation (−ω_μ(a, b) = aᵀ Ω(μ) b: ⟨μ, η₁ × η₂⟩ = −η₁ᵀ [μ×] η₂).
#[must_use]
pub fn oriented_symplecticity_defect<const P: usize, const N: usize>(
    jac: &StepJacobian<N>,
    mu0: &SVector<f64, N>,
    mu1: &SVector<f64, N>,
) -> f64 {
    let (m, k) = Layout::<P, N>::OK;
    let w = |mu: &SVector<f64, N>| {
        let mut w = SMatrix::<f64, N, N>::zeros();
        for o in 0..k {
            let vs = m + 3 * o;
            let x = Vector3::new(mu[vs], mu[vs + 1], mu[vs + 2]).cross_matrix();
            w.fixed_view_mut::<3, 3>(vs, vs).copy_from(&x);
        }
        w
    };
    let (a, b, c, d) = (jac.dq_dq, jac.dq_dp, jac.dp_dq, jac.dp_dp);
    let (w0, w1) = (w(mu0), w(mu1));
    // [A B; C D]ᵀ [W₁ −1; 1 0] [A B; C D] against [W₀ −1; 1 0], by blocks.
    let e1 = a.transpose() * w1 * a - a.transpose() * c + c.transpose() * a - w0;
    let e2 = a.transpose() * w1 * b - a.transpose() * d + c.transpose() * b + SMatrix::<f64, N, N>::identity();
    let e3 = b.transpose() * w1 * b - b.transpose() * d + d.transpose() * b;
    e1.amax().max(e2.amax()).max(e3.amax())
}

/// `steps` steps of size `h` from (q₀, μ₀) at `t0`; Newton's first guess h v₀ (the velocities v₀:
/// each orientation's body angular velocity), later ones the increment before.
///
/// # Errors
/// As [`super::simulate_discrete`]: a step that is not finite and positive, too many nodes for
/// memory, a non-finite start; a step Newton cannot solve, with the nodes before it
/// ([`RunError::partial`]).
#[allow(clippy::too_many_arguments)]
pub(crate) fn simulate_oriented<S: OrientedDiscreteSystem<P, N> + ?Sized, const P: usize, const N: usize>(
    sys: &S,
    t0: f64,
    h: f64,
    steps: usize,
    q0: SVector<f64, P>,
    mu0: SVector<f64, N>,
    v0: SVector<f64, N>,
    options: &DiscreteOptions,
) -> RunResult<DiscreteTrajectory<N, P>> {
    let _ = Layout::<P, N>::OK;
    check_start::<N, P>(h, steps, options, q0.iter().chain(mu0.iter()).chain(v0.iter()))?;
    let mut trajectory = DiscreteTrajectory::start(t0, q0, mu0, steps);
    let (mut q, mut mu, mut guess) = (q0, mu0, v0 * h);
    for k in 0..steps {
        let t = t0 + k as f64 * h;
        let step = match oriented_step(sys, (t, h), (&q, &mu), guess, options) {
            Ok(step) => step,
            Err(e) => return Err(RunError::with_partial(e, trajectory)),
        };
        (q, mu, guess) = (step.position, step.momentum, step.increment);
        trajectory.push(t0 + (k + 1) as f64 * h, q, mu, step.iterations);
    }
    Ok(trajectory)
}

#[cfg(test)]
mod tests;
