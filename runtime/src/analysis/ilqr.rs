//! Iterative LQR: a locally optimal open-loop input sequence and its feedback gains for a system
//! with inputs over a fixed-step horizon (Li and Todorov 2004, with the regularisation and line
//! search of Tassa, Erez and Todorov 2012).
//!
//! The dynamics are a step map with the input held over each step, x_{k+1} = Φ_h(t_k, x_k, u_k),
//! and its exact Jacobians A_k, B_k ([`crate::step::StepMap`]): the classical Runge–Kutta step of
//! any system with input Jacobians ([`crate::step::rk4_step`]), or the variational integrator of a
//! discrete model with inputs over its positions and discrete momenta
//! ([`crate::step::VariationalMap`]); the
//! cost is quadratic about reference states x*_k and inputs u*_k — a goal state and a constant input
//! (gravity compensation at the goal, say), or a path to track with its feedforward torques
//! ([`IlqrProblem::path`]):
//!
//! ```text
//! J = Σ_{k<N} ½ (x_k − x*_k)ᵀ Q (x_k − x*_k) + ½ (u_k − u*_k)ᵀ R (u_k − u*_k) + ½ (x_N − x*_N)ᵀ Q_f (x_N − x*_N)
//! ```
//!
//! Each iteration linearises the step along the current trajectory and solves the time-varying LQR
//! problem of the deviations backwards (V_x = Q_f (x_N − x*), V_xx = Q_f; then per step
//! Q_x = Q (x_k − x*) + A_kᵀ V_x, Q_u = R (u_k − u_ref) + B_kᵀ V_x, Q_xx = Q + A_kᵀ V_xx A_k,
//! Q_uu = R + B_kᵀ V_xx B_k + μ 1, Q_ux = B_kᵀ V_xx A_k, the feedforward d_k = −Q_uu⁻¹ Q_u and the
//! gain K_k = −Q_uu⁻¹ Q_ux), then rolls the system out with u_k = ū_k + α d_k + K_k (x_k − x̄_k),
//! halving α until the cost falls by a fraction of the predicted decrease. μ grows where Q_uu is
//! not positive definite or no step is accepted, and shrinks after a success. The iteration stops
//! when the relative decrease of J, accepted or expected by the backward pass, falls below the
//! tolerance ([`IlqrStatus::Converged`]), or at the
//! iteration limit, or when no step decreases J even with a large μ — with the best trajectory
//! found so far either way.
//!
//! **Input limits** ([`IlqrProblem::limits`], lower ≤ u_k ≤ upper: a motor's torque range) make it
//! the control-limited iteration of Tassa, Mansard and Todorov (2014): each step's feedforward
//! solves the box-constrained quadratic program min ½ δuᵀ Q_uu δu + Q_uᵀ δu over
//! lower − ū_k ≤ δu ≤ upper − ū_k (projected Newton, [`box_qp`]), the gain acts on the inputs the
//! solution leaves free (K_k's rows of the clamped ones are zero: a saturated motor does not respond
//! to δx), and the rollouts clamp every input into the box — so every returned input lies within
//! the limits, and at a solution ∂J/∂u_k vanishes for the free inputs and points out of the box for
//! the clamped ones (the problem's KKT conditions).
//!
//! **Orientations** ([`ilqr_tangent`]): a model with quaternions plans in their tangent charts —
//! the step's Jacobians, the cost's deviations x ⊖ x*_k and the policy's x ⊖ x̄_k all in each
//! orientation's body rotation vector and its rate, the weights C × C over the charts (a free
//! body's 6 × 6 for its attitude and rates) — where [`ilqr`] in the quaternion state weighs the
//! quaternion's components.
//!
//! **Over a receding horizon**, re-planned from every state a controller meets and warm-started
//! from the last plan: [`crate::mpc`].

use nalgebra::{SMatrix, SVector};

use crate::error::SimError;
use crate::mechanics::StateLayout;
use crate::step::{InputJacobians, OrientedMap, StepMap, TangentStep, rk4_tangent_step};

/// The problem: horizon, step, cost (see the [module docs](self)). The weights act on the state's
/// deviations from its references: x − x*_k in the state itself (`C = D`, [`ilqr`]), or in the
/// orientations' tangent charts (`C` = 2N, [`ilqr_tangent`]).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct IlqrProblem<const D: usize, const K: usize, const C: usize = D> {
    /// The start time t₀.
    pub t0: f64,
    /// The step h.
    pub h: f64,
    /// The number of steps N.
    pub steps: usize,
    /// The reference states x*_0 … x*_N (N + 1; the goal repeated, or a path).
    pub states: Vec<SVector<f64, D>>,
    /// The reference inputs u*_0 … u*_{N−1} (N).
    pub inputs: Vec<SVector<f64, K>>,
    /// The running state weight Q (symmetric, positive semidefinite).
    pub q: SMatrix<f64, C, C>,
    /// The input weight R (symmetric, positive definite).
    pub r: SMatrix<f64, K, K>,
    /// The final state weight Q_f.
    pub qf: SMatrix<f64, C, C>,
    /// The relative decrease of J below which the iteration has converged (default 1e-8).
    pub tolerance: f64,
    /// The iteration limit (default 200).
    pub max_iterations: usize,
    /// Lower and upper limits of the inputs (each may be infinite), or `None` (default): see
    /// [`IlqrProblem::limits`].
    pub limits: Option<(SVector<f64, K>, SVector<f64, K>)>,
    /// Whether the steps' Jacobians along each trajectory are computed on several threads
    /// (default `false`): see [`IlqrProblem::parallel`].
    pub parallel: bool,
    /// Whether the solution carries the gains about its final trajectory (default `true`): see
    /// [`IlqrProblem::final_gains`].
    pub final_gains: bool,
}

impl<const D: usize, const K: usize, const C: usize> IlqrProblem<D, K, C> {
    /// N steps of size `h` from `t0` towards `goal` (every x*_k) with the weights Q, R and Q_f; the
    /// reference inputs zero, the tolerance 1e-8 and the iteration limit 200 (see the builders).
    #[must_use]
    pub fn new(
        (t0, h, steps): (f64, f64, usize),
        goal: SVector<f64, D>,
        q: SMatrix<f64, C, C>,
        r: SMatrix<f64, K, K>,
        qf: SMatrix<f64, C, C>,
    ) -> Self {
        IlqrProblem {
            t0,
            h,
            steps,
            states: vec![goal; steps + 1],
            inputs: vec![SVector::zeros(); steps],
            q,
            r,
            qf,
            tolerance: 1e-8,
            max_iterations: 200,
            limits: None,
            parallel: false,
            final_gains: true,
        }
    }

    /// The inputs' limits, lower ≤ u_k ≤ upper componentwise (±∞ for an input without one):
    /// the control-limited iteration (see the [module docs](self)). Limits with lower > upper, or
    /// NaN, are [`IlqrError::Malformed`].
    #[must_use]
    pub fn limits(mut self, lower: SVector<f64, K>, upper: SVector<f64, K>) -> Self {
        self.limits = Some((lower, upper));
        self
    }

    /// The steps' Jacobians along each accepted trajectory computed on rayon's current thread pool
    /// (with the `parallel` feature; without it one after another): the states rolled out first,
    /// one step after another, then the N linearisations — three quarters of an iteration on a
    /// robot arm, and independent of each other — shared among the threads. The plan is the same
    /// to the bit (each Jacobian is computed by the same code from the same state); what it saves
    /// is wall time where each step's Jacobians cost microseconds (a robot's RK4 step), and what it
    /// costs where they cost nanoseconds (a pendulum's) is the threads' coordination. Run the
    /// call inside `rayon::ThreadPool::install` to choose the threads.
    #[must_use]
    pub const fn parallel(mut self, on: bool) -> Self {
        self.parallel = on;
        self
    }

    /// Without the gains about the final trajectory (`false`; default `true`): the iteration's
    /// last step linearisations and backward pass, which give nothing else, are skipped and the
    /// solution's `gains` is empty; its states, inputs, costs and status are the same to the bit.
    /// A model-predictive controller that applies each plan's first input alone needs no more — a
    /// real-time iteration (one iteration a tick) then does half the work: one sweep of
    /// linearisations and one backward pass a tick instead of two of each.
    #[must_use]
    pub const fn final_gains(mut self, on: bool) -> Self {
        self.final_gains = on;
        self
    }

    /// t_k.
    fn time(&self, k: usize) -> f64 {
        self.t0 + self.h * k as f64
    }

    /// `u` clamped into the limits.
    fn clamped(&self, u: SVector<f64, K>) -> SVector<f64, K> {
        match &self.limits {
            Some((lower, upper)) => u.zip_zip_map(lower, upper, |v, l, h| v.max(l).min(h)),
            None => u,
        }
    }

    /// Every reference input u*_k = `u`.
    #[must_use]
    pub fn reference(mut self, u: SVector<f64, K>) -> Self {
        self.inputs = vec![u; self.steps];
        self
    }

    /// A path to track: the reference states x*_0 … x*_N (N + 1) and inputs u*_0 … u*_{N−1} (N; the
    /// inverse dynamics along the path, say). Other lengths are [`IlqrError::Malformed`].
    #[must_use]
    pub fn path(mut self, states: Vec<SVector<f64, D>>, inputs: Vec<SVector<f64, K>>) -> Self {
        (self.states, self.inputs) = (states, inputs);
        self
    }

    /// The convergence tolerance on the relative decrease of J.
    #[must_use]
    pub fn tolerance(mut self, tolerance: f64) -> Self {
        self.tolerance = tolerance;
        self
    }

    /// The iteration limit.
    #[must_use]
    pub fn max_iterations(mut self, n: usize) -> Self {
        self.max_iterations = n;
        self
    }

    /// J of a trajectory.
    fn cost(&self, space: &impl Planned<D, C, K>, xs: &[SVector<f64, D>], us: &[SVector<f64, K>]) -> f64 {
        let running: f64 = xs.iter().zip(us).enumerate().map(|(k, (x, u))| self.stage(space, k, x, u)).sum();
        let e = space.difference(&xs[self.steps], &self.states[self.steps]);
        running + 0.5 * e.dot(&(self.qf * e))
    }

    fn stage(&self, space: &impl Planned<D, C, K>, k: usize, x: &SVector<f64, D>, u: &SVector<f64, K>) -> f64 {
        let (e, v) = (space.difference(x, &self.states[k]), u - self.inputs[k]);
        0.5 * e.dot(&(self.q * e)) + 0.5 * v.dot(&(self.r * v))
    }
}

/// How an iLQR solve ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum IlqrStatus {
    /// The relative decrease of J fell below the tolerance.
    Converged,
    /// The iteration limit was reached first.
    IterationLimit,
    /// No step decreased J even with the largest regularisation.
    NoDescent,
}

/// The result: the best trajectory found, its feedback gains, and the cost at each iteration.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct IlqrSolution<const D: usize, const K: usize, const C: usize = D> {
    /// x_0 … x_N.
    pub states: Vec<SVector<f64, D>>,
    /// u_0 … u_{N−1}.
    pub inputs: Vec<SVector<f64, K>>,
    /// K_0 … K_{N−1} of a backward pass about this trajectory: the policy
    /// u_k = inputs_k + K_k (x − states_k) near it — with x ⊖ states_k in the tangent charts
    /// ([`ilqr_tangent`], [`StateLayout::chart_difference`](crate::mechanics::StateLayout::chart_difference))
    /// — (zero where no regularisation makes the pass's Q_uu positive definite; the status is then
    /// [`IlqrStatus::NoDescent`]). Empty where the problem asks for no final gains
    /// ([`IlqrProblem::final_gains`]).
    pub gains: Vec<SMatrix<f64, K, C>>,
    /// J after each accepted iteration, the initial guess's first.
    pub costs: Vec<f64>,
    /// How it ended.
    pub status: IlqrStatus,
}

impl<const D: usize, const K: usize, const C: usize> IlqrSolution<D, K, C> {
    /// The final cost.
    #[must_use]
    pub fn cost(&self) -> f64 {
        *self.costs.last().expect("at least the initial cost")
    }
}

/// Why iLQR could not start: the initial guess's rollout failed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum IlqrError {
    /// The guess or the references have not the horizon's lengths, the horizon is empty or its
    /// step not positive, or the limits, the weights, the tolerance or the references are not
    /// what the problem needs (see [`ilqr`]).
    #[error("the problem is malformed: {0}")]
    Malformed(String),
    /// The step map failed along the initial guess at step `step`.
    #[error("the initial guess's rollout failed at step {step}: {source}")]
    Rollout {
        /// The step.
        step: usize,
        /// The step map's error.
        source: SimError,
    },
}

/// A weight as the regulators' checks take it.
fn dynamic<const R: usize>(m: &SMatrix<f64, R, R>) -> nalgebra::DMatrix<f64> {
    nalgebra::DMatrix::from_column_slice(R, R, m.as_slice())
}

/// A rollout with the step Jacobians, or the step where it failed.
type Rollout<const D: usize, const K: usize, const C: usize> =
    (Vec<SVector<f64, D>>, Vec<SMatrix<f64, C, C>>, Vec<SMatrix<f64, C, K>>);

/// The states from `x0` under the inputs `us` and the steps' Jacobians along them: step by step
/// (each step's Jacobians with its state), or in parallel ([`IlqrProblem::parallel`]) the states
/// first and then the Jacobians.
fn rollout<const D: usize, const K: usize, const C: usize>(
    sys: &(impl Planned<D, C, K> + Sync),
    p: &IlqrProblem<D, K, C>,
    x0: &SVector<f64, D>,
    us: &[SVector<f64, K>],
) -> Result<Rollout<D, K, C>, (usize, SimError)> {
    let mut xs = Vec::with_capacity(p.steps + 1);
    xs.push(*x0);
    if p.parallel {
        for (k, u) in us.iter().enumerate() {
            let next = sys.advance(p.time(k), &xs[k], u, p.h).map_err(|e| (k, e))?;
            xs.push(next);
        }
        let (a, b) = jacobians(sys, p, &xs, us)?;
        return Ok((xs, a, b));
    }
    let (mut a, mut b) = (Vec::with_capacity(p.steps), Vec::with_capacity(p.steps));
    for (k, u) in us.iter().enumerate() {
        let step = sys.step(p.time(k), &xs[k], u, p.h).map_err(|e| (k, e))?;
        xs.push(step.next);
        a.push(step.a);
        b.push(step.b);
    }
    Ok((xs, a, b))
}

/// The steps' Jacobians at the states `xs` under the inputs `us`, on rayon's current pool (with
/// the `parallel` feature), or the first step where they fail.
#[allow(clippy::type_complexity)]
fn jacobians<const D: usize, const K: usize, const C: usize>(
    sys: &(impl Planned<D, C, K> + Sync),
    p: &IlqrProblem<D, K, C>,
    xs: &[SVector<f64, D>],
    us: &[SVector<f64, K>],
) -> Result<(Vec<SMatrix<f64, C, C>>, Vec<SMatrix<f64, C, K>>), (usize, SimError)> {
    let one = |k: usize| sys.step(p.time(k), &xs[k], &us[k], p.h).map(|s| (s.a, s.b)).map_err(|e| (k, e));
    #[cfg(feature = "parallel")]
    let steps: Vec<_> = {
        use rayon::prelude::*;
        (0..us.len()).into_par_iter().map(one).collect()
    };
    #[cfg(not(feature = "parallel"))]
    let steps: Vec<_> = (0..us.len()).map(one).collect();
    let (mut a, mut b) = (Vec::with_capacity(us.len()), Vec::with_capacity(us.len()));
    for step in steps {
        let (ak, bk) = step?;
        a.push(ak);
        b.push(bk);
    }
    Ok((a, b))
}

/// The backward pass: feedforwards, gains and the predicted decrease's two terms
/// (Σ d·Q_u, Σ ½ d·Q_uu d), or `None` where Q_uu is not positive definite.
#[allow(clippy::type_complexity)]
fn backward<const D: usize, const K: usize, const C: usize>(
    space: &impl Planned<D, C, K>,
    p: &IlqrProblem<D, K, C>,
    (xs, us): (&[SVector<f64, D>], &[SVector<f64, K>]),
    (a, b): (&[SMatrix<f64, C, C>], &[SMatrix<f64, C, K>]),
    mu: f64,
) -> Option<(Vec<SVector<f64, K>>, Vec<SMatrix<f64, K, C>>, (f64, f64))> {
    let n = p.steps;
    let (mut vx, mut vxx) = state_cost(space, (&xs[n], &p.states[n]), &p.qf);
    let (mut ds, mut ks) = (vec![SVector::<f64, K>::zeros(); n], vec![SMatrix::<f64, K, C>::zeros(); n]);
    let mut predicted = (0.0, 0.0);
    for k in (0..n).rev() {
        let (ak, bk) = (&a[k], &b[k]);
        let (lx, lxx) = state_cost(space, (&xs[k], &p.states[k]), &p.q);
        let qx = lx + ak.transpose() * vx;
        let qu = p.r * (us[k] - p.inputs[k]) + bk.transpose() * vx;
        let qxx = lxx + ak.transpose() * vxx * ak;
        let vb = vxx * bk;
        let quu = p.r + bk.transpose() * vb + SMatrix::<f64, K, K>::identity() * mu;
        let qux = vb.transpose() * ak;
        let (d, gain) = match &p.limits {
            None => {
                let chol = quu.cholesky()?;
                (-chol.solve(&qu), -chol.solve(&qux))
            }
            Some((lower, upper)) => {
                let qp = box_qp(&quu, &qu, &(lower - us[k]), &(upper - us[k]))?;
                // The gain on the free inputs alone (the clamped rows of Q_ux zeroed: their δu is 0).
                let mut free_qux = qux;
                for (i, &free) in qp.free.iter().enumerate() {
                    if !free {
                        free_qux.row_mut(i).fill(0.0);
                    }
                }
                (qp.solution, -qp.reduced.solve(&free_qux))
            }
        };
        let quu_plain = quu - SMatrix::<f64, K, K>::identity() * mu;
        predicted.0 += d.dot(&qu);
        predicted.1 += 0.5 * d.dot(&(quu_plain * d));
        vx = qx + gain.transpose() * (quu_plain * d) + gain.transpose() * qu + qux.transpose() * d;
        // Kᵀ Q_uu K + Kᵀ Q_ux + Q_uxᵀ K with one product by Kᵀ.
        let next = qxx + gain.transpose() * (quu_plain * gain + qux) + qux.transpose() * gain;
        vxx = (next + next.transpose()) * 0.5;
        ds[k] = d;
        ks[k] = gain;
    }
    Some((ds, ks, predicted))
}

/// The gradient and Gauss–Newton Hessian of ½ eᵀ W e, e = x ⊖ x*, in the coordinates of the
/// deviations about x: W e and W, or Gᵀ W e and Gᵀ W G with G = ∂e/∂ξ where the charts turn.
fn state_cost<const D: usize, const K: usize, const C: usize>(
    space: &impl Planned<D, C, K>,
    (x, reference): (&SVector<f64, D>, &SVector<f64, D>),
    w: &SMatrix<f64, C, C>,
) -> (SVector<f64, C>, SMatrix<f64, C, C>) {
    match space.difference_with_jacobian(x, reference) {
        (e, None) => (w * e, *w),
        (e, Some(g)) => {
            let wg = w * g;
            (g.transpose() * (w * e), g.transpose() * wg)
        }
    }
}

/// iLQR from the state `x0` and the initial input guess `guess` (N inputs; zeros or the reference
/// are usual) for the system `sys` (see the [module docs](self)).
///
/// ```
/// use routh_runtime::ilqr::{IlqrProblem, IlqrStatus, ilqr};
/// use routh_runtime::input::InputSystem;
/// use routh_runtime::nalgebra::{Matrix1, Matrix2, SMatrix, Vector1, Vector2};
/// use routh_runtime::step::InputJacobians;
/// use routh_runtime::FieldError;
///
/// // The double integrator ẍ = u, from rest at 1 to rest at 0 in one second.
/// struct Cart;
/// impl InputSystem<2, 1> for Cart {
///     fn field_with_input(&self, _t: f64, x: &Vector2<f64>, u: &Vector1<f64>) -> Result<Vector2<f64>, FieldError> {
///         Ok(Vector2::new(x[1], u[0]))
///     }
/// }
/// impl InputJacobians<2, 1> for Cart {
///     fn state_jacobian(&self, _t: f64, _x: &Vector2<f64>, _u: &Vector1<f64>) -> Result<Matrix2<f64>, FieldError> {
///         Ok(Matrix2::new(0.0, 1.0, 0.0, 0.0))
///     }
///     fn input_jacobian(&self, _t: f64, _x: &Vector2<f64>, _u: &Vector1<f64>) -> Result<SMatrix<f64, 2, 1>, FieldError> {
///         Ok(SMatrix::<f64, 2, 1>::new(0.0, 1.0))
///     }
/// }
/// let problem = IlqrProblem::new((0.0, 0.01, 100), Vector2::zeros(), Matrix2::zeros(), Matrix1::new(1e-3), Matrix2::identity() * 1e4);
/// let solution = ilqr(&Cart, &problem, &Vector2::new(1.0, 0.0), &vec![Vector1::zeros(); 100])?;
/// // A linear system and a quadratic cost: one step of iLQR is the exact optimum.
/// assert_eq!(solution.status, IlqrStatus::Converged);
/// assert!(solution.states[100].norm() < 1e-3);
/// # Ok::<(), routh_runtime::ilqr::IlqrError>(())
/// ```
///
/// # Errors
/// [`IlqrError::Malformed`] for a guess of another length than N, an empty horizon, a step that
/// is not positive, limits out of order, weights that are not what the cost needs (Q and Q_f
/// symmetric positive semidefinite, R symmetric positive definite, all finite), a tolerance below
/// zero or a non-finite reference; [`IlqrError::Rollout`] if the system fails along the guess. A failure later
/// (a trial rollout leaving the system's domain) only rejects that trial.
pub fn ilqr<S: StepMap<D, K> + Sync + ?Sized, const D: usize, const K: usize>(
    sys: &S,
    p: &IlqrProblem<D, K>,
    x0: &SVector<f64, D>,
    guess: &[SVector<f64, K>],
) -> Result<IlqrSolution<D, K>, IlqrError> {
    solve(&Flat(sys), p, x0, guess)
}

/// iLQR of a model with orientations in their tangent charts: the classical Runge–Kutta step
/// x_{k+1} = Φ_h(t_k, x_k, u_k) in the state (each orientation's quaternion, its body rates), its
/// Jacobians in the charts about x_k and x_{k+1} ([`rk4_tangent_step`], C = 2N: each orientation's
/// body rotation vector θ and θ̇ = δω − ω × θ), and the cost's deviations and the policy's in the
/// same charts — e = x ⊖ x* ([`StateLayout::chart_difference`]: the rotation from the reference's
/// attitude to x's, whatever the quaternions' signs and lengths), its gradient and Gauss–Newton
/// Hessian through ∂e/∂ξ ([`StateLayout::chart_difference_with_jacobian`]), u_k = ū_k + α d_k + K_k (x_k
/// ⊖ x̄_k). Where [`ilqr`] in the quaternion state weighs the quaternions' components — a cost that
/// is not the attitude's, different for q and −q and for the quaternion's length, and steps
/// that carry its scale — this plans on the attitude itself, as the discrete LQR of
/// [`TangentStep::lqr`](crate::step::TangentStep::lqr) does about a fixed point. The state is `P`
/// positions (the ordinary coordinates, then each orientation's quaternion) and `N` velocities
/// (`D = P + N`, no action); a generated model with orientations and inputs calls it as
/// `ilqr_tangent`.
///
/// # Errors
/// As [`ilqr`], and [`IlqrError::Malformed`] where the initial state or a reference state has an
/// orientation whose quaternion is zero (no attitude to deviate from).
pub fn ilqr_tangent<S, const P: usize, const N: usize, const D: usize, const C: usize, const K: usize>(
    sys: &S,
    p: &IlqrProblem<D, K, C>,
    x0: &SVector<f64, D>,
    guess: &[SVector<f64, K>],
) -> Result<IlqrSolution<D, K, C>, IlqrError>
where
    S: InputJacobians<D, K> + Sync + ?Sized,
{
    solve(&Charts::<S, P, N>(sys), p, x0, guess)
}

/// iLQR of a model with orientations and inputs on its Lie group variational integrator
/// ([`OrientedMap`]): the state x = (q, μ) of positions (each orientation's quaternion) and momenta
/// in the bodies' axes, the step's Jacobians, the cost's deviations and the policy's in the chart
/// (δx, η, δμ) — each orientation by its body rotation vector from the reference's attitude, the
/// momenta by their difference ([`OrientedMap::difference`]) — as [`ilqr_tangent`] plans on the
/// RK4 step. A generated model with orientations, inputs and `discrete(...)` is such a `model`
/// ([`DrivenOrientedDiscrete`](crate::discrete::DrivenOrientedDiscrete)).
///
/// # Errors
/// As [`ilqr_tangent`].
pub fn ilqr_oriented<M, const P: usize, const N: usize, const D: usize, const C: usize, const K: usize>(
    map: &OrientedMap<'_, M, P, N>,
    p: &IlqrProblem<D, K, C>,
    x0: &SVector<f64, D>,
    guess: &[SVector<f64, K>],
) -> Result<IlqrSolution<D, K, C>, IlqrError>
where
    M: crate::discrete::DrivenOrientedDiscrete<P, N, K> + Sync + ?Sized,
{
    solve(map, p, x0, guess)
}

impl<M, const P: usize, const N: usize, const D: usize, const C: usize, const K: usize> Planned<D, C, K>
    for OrientedMap<'_, M, P, N>
where
    M: crate::discrete::DrivenOrientedDiscrete<P, N, K> + ?Sized,
{
    fn advance(&self, t: f64, x: &SVector<f64, D>, u: &SVector<f64, K>, h: f64) -> Result<SVector<f64, D>, SimError> {
        OrientedMap::advance(self, t, x, u, h)
    }

    fn step(&self, t: f64, x: &SVector<f64, D>, u: &SVector<f64, K>, h: f64) -> Result<TangentStep<D, C, K>, SimError> {
        OrientedMap::step(self, t, x, u, h)
    }

    fn difference(&self, x: &SVector<f64, D>, y: &SVector<f64, D>) -> SVector<f64, C> {
        Self::difference(x, y)
    }

    fn difference_with_jacobian(
        &self,
        x: &SVector<f64, D>,
        y: &SVector<f64, D>,
    ) -> (SVector<f64, C>, Option<SMatrix<f64, C, C>>) {
        let (e, g) = Self::difference_with_jacobian(x, y);
        (e, Some(g))
    }

    fn defined(&self, x: &SVector<f64, D>) -> bool {
        StateLayout::<P, N, D>::attitudes_defined(x)
    }
}

/// What the iteration plans over: a step map, its Jacobians in the coordinates of the deviations
/// (the state's own, or the orientations' charts), and the deviations themselves.
pub(crate) trait Planned<const D: usize, const C: usize, const K: usize> {
    /// x_{k+1}.
    fn advance(&self, t: f64, x: &SVector<f64, D>, u: &SVector<f64, K>, h: f64) -> Result<SVector<f64, D>, SimError>;
    /// x_{k+1}, A_d and B_d (in the deviations' coordinates).
    fn step(&self, t: f64, x: &SVector<f64, D>, u: &SVector<f64, K>, h: f64) -> Result<TangentStep<D, C, K>, SimError>;
    /// x ⊖ y.
    fn difference(&self, x: &SVector<f64, D>, y: &SVector<f64, D>) -> SVector<f64, C>;
    /// x ⊖ y and ∂(x ⊖ y)/∂ξ over x's deviations, `None` for the identity.
    fn difference_with_jacobian(&self, x: &SVector<f64, D>, y: &SVector<f64, D>)
    -> (SVector<f64, C>, Option<SMatrix<f64, C, C>>);
    /// Whether x ⊖ y is defined with `x` on either side: in the charts, every orientation's
    /// quaternion not zero (its attitude q/|q| exists).
    fn defined(&self, _x: &SVector<f64, D>) -> bool {
        true
    }
}

/// A step map in its own state ([`ilqr`]).
pub(crate) struct Flat<'a, S: ?Sized>(pub(crate) &'a S);

impl<S: StepMap<D, K> + ?Sized, const D: usize, const K: usize> Planned<D, D, K> for Flat<'_, S> {
    fn advance(&self, t: f64, x: &SVector<f64, D>, u: &SVector<f64, K>, h: f64) -> Result<SVector<f64, D>, SimError> {
        self.0.advance(t, x, u, h)
    }

    fn step(&self, t: f64, x: &SVector<f64, D>, u: &SVector<f64, K>, h: f64) -> Result<TangentStep<D, D, K>, SimError> {
        let step = self.0.step(t, x, u, h)?;
        Ok(TangentStep { next: step.next, a: step.a, b: step.b })
    }

    fn difference(&self, x: &SVector<f64, D>, y: &SVector<f64, D>) -> SVector<f64, D> {
        x - y
    }

    fn difference_with_jacobian(
        &self,
        x: &SVector<f64, D>,
        y: &SVector<f64, D>,
    ) -> (SVector<f64, D>, Option<SMatrix<f64, D, D>>) {
        (x - y, None)
    }
}

/// The RK4 step of a model with orientations in their tangent charts ([`ilqr_tangent`]).
pub(crate) struct Charts<'a, S: ?Sized, const P: usize, const N: usize>(pub(crate) &'a S);

impl<S, const P: usize, const N: usize, const D: usize, const C: usize, const K: usize> Planned<D, C, K> for Charts<'_, S, P, N>
where
    S: InputJacobians<D, K> + ?Sized,
{
    fn advance(&self, t: f64, x: &SVector<f64, D>, u: &SVector<f64, K>, h: f64) -> Result<SVector<f64, D>, SimError> {
        self.0.advance(t, x, u, h)
    }

    fn step(&self, t: f64, x: &SVector<f64, D>, u: &SVector<f64, K>, h: f64) -> Result<TangentStep<D, C, K>, SimError> {
        Ok(rk4_tangent_step::<S, P, N, D, C, K>(self.0, t, x, u, h)?)
    }

    fn difference(&self, x: &SVector<f64, D>, y: &SVector<f64, D>) -> SVector<f64, C> {
        StateLayout::<P, N, D>::chart_difference(x, y)
    }

    fn difference_with_jacobian(
        &self,
        x: &SVector<f64, D>,
        y: &SVector<f64, D>,
    ) -> (SVector<f64, C>, Option<SMatrix<f64, C, C>>) {
        let (e, g) = StateLayout::<P, N, D>::chart_difference_with_jacobian(x, y);
        (e, Some(g))
    }

    fn defined(&self, x: &SVector<f64, D>) -> bool {
        StateLayout::<P, N, D>::attitudes_defined(x)
    }
}

/// The iteration over any [`Planned`] space (see [`ilqr`]).
pub(crate) fn solve<const D: usize, const K: usize, const C: usize>(
    sys: &(impl Planned<D, C, K> + Sync),
    p: &IlqrProblem<D, K, C>,
    x0: &SVector<f64, D>,
    guess: &[SVector<f64, K>],
) -> Result<IlqrSolution<D, K, C>, IlqrError> {
    if guess.len() != p.steps || p.steps == 0 || !(p.h > 0.0) || p.states.len() != p.steps + 1 || p.inputs.len() != p.steps {
        return Err(IlqrError::Malformed(format!(
            "{} inputs guessed, {} reference states and {} reference inputs for {} steps of size {} (a positive \
             number N of steps, N inputs guessed, N + 1 reference states, N reference inputs, a positive step)",
            guess.len(),
            p.states.len(),
            p.inputs.len(),
            p.steps,
            p.h
        )));
    }
    if let Some((lower, upper)) = &p.limits
        && lower.iter().zip(upper).any(|(l, h)| !(l <= h))
    {
        return Err(IlqrError::Malformed(format!(
            "the input limits need lower ≤ upper in every component (lower {:?}, upper {:?})",
            lower.as_slice(),
            upper.as_slice()
        )));
    }
    // A weight that is not symmetric would make the passes' gradients (Q e) those of another
    // cost than the J they decrease: rejected, as the regulators reject it.
    let malformed = |e: crate::lqr::LqrError| IlqrError::Malformed(e.to_string());
    crate::lqr::semidefinite_weight("Q", &dynamic(&p.q)).map_err(malformed)?;
    crate::lqr::definite_weight("R", &dynamic(&p.r)).map_err(malformed)?;
    crate::lqr::semidefinite_weight("Q_f", &dynamic(&p.qf)).map_err(malformed)?;
    if !(p.tolerance >= 0.0) {
        return Err(IlqrError::Malformed(format!("the tolerance {} is not a number ≥ 0", p.tolerance)));
    }
    if !(p.states.iter().all(|x| x.iter().all(|v| v.is_finite())) && p.inputs.iter().all(|u| u.iter().all(|v| v.is_finite()))) {
        return Err(IlqrError::Malformed("a reference state or input has a non-finite entry".into()));
    }
    // In the charts a reference is an attitude: a zero quaternion has none (its deviation would be
    // NaN, every cost with it).
    if let Some(k) = p.states.iter().position(|x| !sys.defined(x)) {
        return Err(IlqrError::Malformed(format!(
            "the reference state of step {k} has an orientation whose quaternion is zero: it names no attitude"
        )));
    }
    if !sys.defined(x0) {
        return Err(IlqrError::Malformed("the initial state has an orientation whose quaternion is zero or not finite".into()));
    }
    // Within the limits from the start: every input the iteration returns lies in them.
    let mut us: Vec<SVector<f64, K>> = guess.iter().map(|&u| p.clamped(u)).collect();
    let (mut xs, mut a, mut b) = rollout(sys, p, x0, &us).map_err(|(step, source)| IlqrError::Rollout { step, source })?;
    let mut cost = p.cost(sys, &xs, &us);
    let mut costs = vec![cost];
    let (mut mu, mu_max) = (0.0_f64, 1e10);
    let mut status = IlqrStatus::IterationLimit;
    let mut last = None;
    'outer: for iteration in 0..p.max_iterations {
        // Backward pass, regularised until Q_uu is positive definite.
        let (ds, ks, predicted) = loop {
            if let Some(pass) = backward(sys, p, (&xs, &us), (&a, &b), mu) {
                break pass;
            }
            mu = raised(mu);
            if mu > mu_max {
                status = IlqrStatus::NoDescent;
                break 'outer;
            }
        };
        // Converged where the pass expects no decrease worth a step (at the limits' optimum, where
        // every improving direction leaves the box, no trial could be accepted).
        if -(predicted.0 + predicted.1) <= p.tolerance * cost.abs() {
            status = IlqrStatus::Converged;
            // This pass is the final one: about the final trajectory, regularised as it is left.
            last = Some(ks);
            break;
        }
        // Forward pass with a line search.
        let mut accepted = None;
        let mut alpha = 1.0;
        while alpha > 1e-4 {
            if let Some(trial) = forward(sys, p, (x0, &xs, &us), (&ds, &ks), alpha) {
                let trial_cost = p.cost(sys, &trial.0, &trial.1);
                let expected = -(alpha * predicted.0 + alpha * alpha * predicted.1);
                if trial_cost < cost && (expected <= 0.0 || (cost - trial_cost) > 1e-4 * expected) {
                    accepted = Some((trial, trial_cost));
                    break;
                }
            }
            alpha *= 0.5;
        }
        let Some(((next_xs, next_us), next_cost)) = accepted else {
            mu = raised(mu);
            if mu > mu_max {
                status = IlqrStatus::NoDescent;
                break;
            }
            continue;
        };
        let decrease = (cost - next_cost) / cost.abs().max(f64::MIN_POSITIVE);
        // The Jacobians along the accepted trajectory — none on the last iteration without final
        // gains: in parallel about the forward pass's own states, or with the states rolled out
        // again step by step.
        if p.final_gains || !(decrease < p.tolerance || iteration + 1 == p.max_iterations) {
            let along = if p.parallel {
                jacobians(sys, p, &next_xs, &next_us).map(|(a2, b2)| (next_xs, a2, b2))
            } else {
                let again = rollout(sys, p, x0, &next_us);
                if let Ok((x2, ..)) = &again {
                    debug_assert!((x2[p.steps] - next_xs[p.steps]).norm() <= 1e-9 * (1.0 + x2[p.steps].norm()));
                }
                again
            };
            match along {
                Ok((x2, a2, b2)) => (xs, a, b) = (x2, a2, b2),
                Err(_) => {
                    mu = raised(mu);
                    continue;
                }
            }
        } else {
            xs = next_xs;
        }
        us = next_us;
        cost = next_cost;
        costs.push(cost);
        mu = if mu > MU_MIN { mu / 10.0 } else { 0.0 };
        if decrease < p.tolerance {
            status = IlqrStatus::Converged;
            break;
        }
    }
    // The gains about the final trajectory, however the iteration ended (regularised as it left
    // them, more where Q_uu needs it); zero where no regularisation makes Q_uu positive definite.
    // Converged by the pass's prediction, that pass's own (a warm-started MPC tick's usual end).
    // None where the problem asks for none.
    let gains = if !p.final_gains {
        Vec::new()
    } else {
        last.unwrap_or_else(|| {
            let mut m = mu;
            while m <= mu_max {
                if let Some((_, ks, _)) = backward(sys, p, (&xs, &us), (&a, &b), m) {
                    return ks;
                }
                m = raised(m);
            }
            vec![SMatrix::<f64, K, C>::zeros(); p.steps]
        })
    };
    Ok(IlqrSolution { states: xs, inputs: us, gains, costs, status })
}

/// The solution of a box-constrained quadratic program and the factor of its free block.
pub struct BoxQp<const K: usize> {
    /// The minimiser x*.
    pub solution: SVector<f64, K>,
    /// Which components the solution leaves free (not held at a limit by a gradient pointing out
    /// of the box).
    pub free: [bool; K],
    /// The Cholesky factor of H with each clamped row and column replaced by the identity's: its
    /// solves act on the free components alone (and return the right-hand side's clamped
    /// components, zero where those are zeroed).
    pub reduced: nalgebra::linalg::Cholesky<f64, nalgebra::Const<K>>,
}

/// min ½ xᵀ H x + gᵀ x over lower ≤ x ≤ upper for a symmetric H positive definite on the free
/// components, by projected Newton (Bertsekas 1982, as Tassa, Mansard and Todorov's control-limited
/// DDP uses it): from x = 0 clamped into the box, each iteration holds the components at a limit
/// whose gradient points out of the box, takes the Newton step of the others, and searches along
/// its projection onto the box (Armijo) — finitely many active sets, each step a decrease; it ends
/// where the free components' gradient vanishes or the search finds no decrease. `None` where H is
/// not positive definite on a free set (the caller raises its regularisation).
///
/// ```
/// use routh_runtime::ilqr::box_qp;
/// use routh_runtime::nalgebra::{Matrix2, Vector2};
///
/// // ½ |x − (2, −0.5)|² on [−1, 1]²: the unconstrained minimiser's first component is clamped.
/// let qp = box_qp(&Matrix2::identity(), &Vector2::new(-2.0, 0.5), &Vector2::new(-1.0, -1.0), &Vector2::new(1.0, 1.0)).unwrap();
/// assert!((qp.solution - Vector2::new(1.0, -0.5)).norm() < 1e-12);
/// assert_eq!(qp.free, [false, true]);
/// ```
#[must_use]
pub fn box_qp<const K: usize>(
    h: &SMatrix<f64, K, K>,
    g: &SVector<f64, K>,
    lower: &SVector<f64, K>,
    upper: &SVector<f64, K>,
) -> Option<BoxQp<K>> {
    let objective = |x: &SVector<f64, K>| 0.5 * x.dot(&(h * x)) + g.dot(x);
    let project = |x: SVector<f64, K>| x.zip_zip_map(lower, upper, |v, l, u| v.max(l).min(u));
    let mut x = project(SVector::zeros());
    let mut value = objective(&x);
    let scale = g.amax().max(h.amax()).max(f64::MIN_POSITIVE);
    for _ in 0..BOX_QP_ITERATIONS {
        let gradient = g + h * x;
        let mut free = [true; K];
        for (i, f) in free.iter_mut().enumerate() {
            *f = !((x[i] <= lower[i] && gradient[i] > 0.0) || (x[i] >= upper[i] && gradient[i] < 0.0));
        }
        let reduced = reduced_factor(h, &free)?;
        let free_gradient = SVector::<f64, K>::from_fn(|i, _| if free[i] { gradient[i] } else { 0.0 });
        if free_gradient.amax() <= 1e-13 * scale {
            return Some(BoxQp { solution: x, free, reduced });
        }
        let direction = -reduced.solve(&free_gradient);
        // Armijo along the projected path.
        let mut step = 1.0;
        let accepted = loop {
            let trial = project(x + direction * step);
            let trial_value = objective(&trial);
            if trial_value - value <= 0.1 * gradient.dot(&(trial - x)) {
                break Some((trial, trial_value));
            }
            step *= 0.5;
            if step < 1e-12 {
                break None;
            }
        };
        match accepted {
            Some((next, next_value)) => {
                let stalled = (next - x).amax() <= 1e-15 * (1.0 + x.amax());
                (x, value) = (next, next_value);
                if stalled {
                    let reduced = reduced_factor(h, &free)?;
                    return Some(BoxQp { solution: x, free, reduced });
                }
            }
            // No decrease left along the projected path (round-off at the minimiser).
            None => return Some(BoxQp { solution: x, free, reduced }),
        }
    }
    None
}

/// The most iterations of [`box_qp`] (each changes the active set or converges; a handful suffice).
const BOX_QP_ITERATIONS: usize = 100;

/// The Cholesky factor of `h` with the rows and columns of the clamped components the identity's.
fn reduced_factor<const K: usize>(
    h: &SMatrix<f64, K, K>,
    free: &[bool; K],
) -> Option<nalgebra::linalg::Cholesky<f64, nalgebra::Const<K>>> {
    let reduced = SMatrix::<f64, K, K>::from_fn(|i, j| match (free[i], free[j]) {
        (true, true) => h[(i, j)],
        _ if i == j => 1.0,
        _ => 0.0,
    });
    reduced.cholesky()
}

/// The smallest regularisation μ that is not zero.
const MU_MIN: f64 = 1e-8;

/// μ raised after a failed backward or forward pass: tenfold, and at least 10³ μ_min.
fn raised(mu: f64) -> f64 {
    (mu * 10.0).max(MU_MIN * 1e3)
}

/// The rollout of the policy u_k = ū_k + α d_k + K_k (x_k ⊖ x̄_k), or `None` if it leaves the
/// system's domain.
#[allow(clippy::type_complexity)]
fn forward<const D: usize, const K: usize, const C: usize>(
    sys: &impl Planned<D, C, K>,
    p: &IlqrProblem<D, K, C>,
    (x0, xs, us): (&SVector<f64, D>, &[SVector<f64, D>], &[SVector<f64, K>]),
    (ds, ks): (&[SVector<f64, K>], &[SMatrix<f64, K, C>]),
    alpha: f64,
) -> Option<(Vec<SVector<f64, D>>, Vec<SVector<f64, K>>)> {
    let mut x = *x0;
    let mut states = Vec::with_capacity(p.steps + 1);
    let mut inputs = Vec::with_capacity(p.steps);
    states.push(x);
    for k in 0..p.steps {
        let u = p.clamped(us[k] + ds[k] * alpha + ks[k] * sys.difference(&x, &xs[k]));
        x = sys.advance(p.time(k), &x, &u, p.h).ok()?;
        inputs.push(u);
        states.push(x);
    }
    Some((states, inputs))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::FieldError;
    use crate::input::InputSystem;
    use crate::step::{InputJacobians, rk4_step};
    use nalgebra::{DMatrix, Matrix1, Matrix2, SMatrix, Vector1, Vector2};

    use crate::analysis::fixtures::{Cart, Pendulum};

    /// On a linear system with a long horizon, the first gain is the infinite-horizon discrete
    /// LQR gain (the doubling algorithm of `lqr::dare`, an independent solver).
    #[test]
    fn the_first_gain_on_a_long_horizon_is_the_discrete_lqr_gain() {
        let (h, n) = (0.05, 400);
        let q = Matrix2::new(1.0, 0.0, 0.0, 0.5);
        let r = Matrix1::new(0.2);
        let p = IlqrProblem::new((0.0, h, n), Vector2::zeros(), q, r, q);
        let s = ilqr(&Cart, &p, &Vector2::new(1.0, -0.5), &vec![Vector1::zeros(); n]).expect("solves");
        assert_eq!(s.status, IlqrStatus::Converged);
        let step = rk4_step(&Cart, 0.0, &Vector2::zeros(), &Vector1::zeros(), h).expect("step");
        let dyn_ = |m: &[f64], rows: usize| DMatrix::from_column_slice(rows, m.len() / rows, m);
        // The running cost is summed (not integrated): the discrete problem's weights are Q and R.
        let lqr = crate::lqr::dare(
            &dyn_(step.a.as_slice(), 2),
            &dyn_(step.b.as_slice(), 2),
            &dyn_(q.as_slice(), 2),
            &dyn_(r.as_slice(), 1),
        )
        .expect("dare");
        let gain = &s.gains[0];
        // routh's K is the law u = −K x; iLQR's the deviation gain u = K_k δx.
        for c in 0..2 {
            assert!((gain[(0, c)] + lqr.gain[(0, c)]).abs() < 1e-8, "{gain} vs −{}", lqr.gain);
        }
    }

    /// The pendulum swung up from hanging to upright with a small torque budget: J decreases at
    /// every iteration, the end is near upright, and the cost is stationary in the inputs (central
    /// differences of J along single inputs, from rollouts of the step map).
    #[test]
    fn a_pendulum_swing_up_is_a_stationary_point_of_its_cost() {
        swing_up(&Pendulum);
    }

    /// The pendulum swung up over 4 s on the step map `map`, planned from zero torques: converged,
    /// J decreasing, the end near upright, and J stationary in the inputs along the map's rollouts.
    fn swing_up(map: &(impl StepMap<2, 1> + Sync)) -> IlqrSolution<2, 1> {
        let (p, goal, n) = swing_up_problem();
        let s = ilqr(map, &p, &Vector2::zeros(), &vec![Vector1::zeros(); n]).expect("solves");
        assert_eq!(s.status, IlqrStatus::Converged, "{:?}", s.costs);
        assert!(s.costs.windows(2).all(|w| w[1] < w[0]));
        assert!((s.states[n] - goal).norm() < 0.05, "{}", s.states[n]);
        // The gains are the backward pass's about the plan's own trajectory (unregularised at the
        // end), to the bit — kept from the pass that found no decrease worth a step.
        let (xs, a, b) = rollout(&Flat(map), &p, &Vector2::zeros(), &s.inputs).expect("rollout");
        assert_eq!(xs, s.states);
        let (_, gains, _) = backward(&Flat(map), &p, (&xs, &s.inputs), (&a, &b), 0.0).expect("a pass");
        assert_eq!(gains, s.gains);
        let cost = |us: &[Vector1<f64>]| {
            let (xs, _, _) = rollout(&Flat(map), &p, &Vector2::zeros(), us).expect("rollout");
            p.cost(&Flat(map), &xs, us)
        };
        let e = 1e-5;
        let scale = s.inputs.iter().map(|u| u[0].abs()).fold(0.0, f64::max) * 0.05;
        for k in [0, 37, 100, 180, n - 1] {
            let (mut up, mut down) = (s.inputs.clone(), s.inputs.clone());
            up[k][0] += e;
            down[k][0] -= e;
            let gradient = (cost(&up) - cost(&down)) / (2.0 * e);
            assert!(gradient.abs() < 1e-5 * scale.max(1.0), "∂J/∂u_{k} = {gradient}");
        }
        s
    }

    /// The pendulum's swing-up from hanging to upright: 200 steps of 0.02 s, Q = 0.01, R = 0.05,
    /// Q_f = 500, the tolerance 1e-10; with its goal and its number of steps.
    fn swing_up_problem() -> (IlqrProblem<2, 1>, Vector2<f64>, usize) {
        let (h, n) = (0.02, 200);
        let goal = Vector2::new(std::f64::consts::PI, 0.0);
        let p = IlqrProblem::new((0.0, h, n), goal, Matrix2::identity() * 0.01, Matrix1::new(0.05), Matrix2::identity() * 500.0)
            .tolerance(1e-10);
        (p, goal, n)
    }

    /// The same swing-up planned on the semi-implicit Euler map (one evaluation of the field and its
    /// Jacobians a step): converged, J decreasing, the plan's states the map's own steps from its
    /// inputs (bit for bit), and J stationary in the inputs along the map's rollouts.
    #[test]
    fn a_swing_up_on_the_semi_implicit_euler_map_is_a_stationary_point() {
        use crate::step::{SemiImplicitEuler, semi_implicit_euler};
        let s = swing_up(&SemiImplicitEuler(&Pendulum));
        let h = 0.02;
        for (k, u) in s.inputs.iter().enumerate() {
            assert_eq!(semi_implicit_euler(&Pendulum, h * k as f64, &s.states[k], u, h).expect("step"), s.states[k + 1]);
        }
    }

    /// Linearised on several threads ([`IlqrProblem::parallel`]: the states rolled out first, the
    /// steps' Jacobians then shared out) the plans are the sequential ones to the bit — the
    /// pendulum's swing-up on the RK4 and the semi-implicit Euler maps, its torque-limited pumping,
    /// and the body's three-axis slew in the charts — each over many accepted iterations.
    #[test]
    fn plans_linearised_in_parallel_are_the_sequential_plans_to_the_bit() {
        fn same<const D: usize, const K: usize, const C: usize>(planned: impl Fn(bool) -> IlqrSolution<D, K, C>, what: &str) {
            let (one, many) = (planned(false), planned(true));
            assert!(one.costs.len() > 5, "{what}: {} iterations", one.costs.len() - 1);
            assert_eq!(one.status, many.status, "{what}");
            assert_eq!(one.costs, many.costs, "{what}");
            assert_eq!(one.states, many.states, "{what}");
            assert_eq!(one.inputs, many.inputs, "{what}");
            assert_eq!(one.gains, many.gains, "{what}");
        }
        let (p, _, n) = swing_up_problem();
        let guess = vec![Vector1::zeros(); n];
        let limited = p.clone().limits(Vector1::new(-3.0), Vector1::new(3.0));
        same(|on| ilqr(&Pendulum, &p.clone().parallel(on), &Vector2::zeros(), &guess).expect("solves"), "RK4");
        let euler = crate::step::SemiImplicitEuler(&Pendulum);
        same(|on| ilqr(&euler, &p.clone().parallel(on), &Vector2::zeros(), &guess).expect("solves"), "Euler");
        same(|on| ilqr(&Pendulum, &limited.clone().parallel(on), &Vector2::zeros(), &guess).expect("solves"), "limited");
        let goal = attitude(nalgebra::Vector3::new(1.0, 2.0, -1.0), 2.1, [0.0; 3]);
        let q = SMatrix::<f64, 6, 6>::from_diagonal(&SVector::from([0.8, 0.3, 0.5, 0.2, 0.05, 0.1]));
        let (r, qf) = (nalgebra::Matrix3::identity() * 0.2, SMatrix::<f64, 6, 6>::identity() * 1e3);
        let slew = IlqrProblem::new((0.0, 0.06, 40), goal, q, r, qf).tolerance(1e-13);
        let start = attitude(nalgebra::Vector3::new(0.3, -1.0, 0.5), 0.4, [0.6, -0.4, 0.3]);
        let body = Body(nalgebra::Vector3::new(1.0, 2.0, 3.5));
        let zeros = vec![nalgebra::Vector3::zeros(); 40];
        same(|on| ilqr_tangent::<_, 4, 3, 7, 6, 3>(&body, &slew.clone().parallel(on), &start, &zeros).expect("a plan"), "slew");
    }

    /// Without final gains ([`IlqrProblem::final_gains`]) the plans are the same to the bit and
    /// carry no gains — the pendulum's swing-up converged, stopped after one and after seven
    /// iterations, and torque-limited — and so are an MPC's inputs tick after tick with one
    /// iteration a tick (the real-time iteration, whose every tick ends at the iteration limit).
    #[test]
    fn plans_without_final_gains_are_the_same_plans() {
        let (p, _, n) = swing_up_problem();
        let guess = vec![Vector1::zeros(); n];
        let limited = p.clone().limits(Vector1::new(-3.0), Vector1::new(3.0));
        for (problem, what) in [
            (p.clone(), "converged"),
            (p.clone().max_iterations(1), "one"),
            (p.clone().max_iterations(7), "seven"),
            (limited, "limited"),
        ] {
            let with = ilqr(&Pendulum, &problem, &Vector2::zeros(), &guess).expect("solves");
            let without = ilqr(&Pendulum, &problem.clone().final_gains(false), &Vector2::zeros(), &guess).expect("solves");
            assert_eq!(with.status, without.status, "{what}");
            assert_eq!(with.costs, without.costs, "{what}");
            assert_eq!(with.states, without.states, "{what}");
            assert_eq!(with.inputs, without.inputs, "{what}");
            assert!(with.gains.len() == n && without.gains.is_empty(), "{what}");
            assert!(with.costs.len() > 1, "{what}: no step accepted");
        }
        // MPC over 40 of the swing-up's steps, its goal and weights.
        let h = p.h;
        let window = IlqrProblem::new((0.0, h, 40), p.states[0], p.q, p.r, p.qf).max_iterations(1);
        let mut controllers = [crate::mpc::Mpc::new(window.clone()), crate::mpc::Mpc::new(window.final_gains(false))];
        let mut x = Vector2::new(2.5, 0.0);
        for k in 0..30 {
            let t = h * k as f64;
            let [one, other] = &mut controllers;
            let u = one.control(&Pendulum, t, &x).expect("a tick");
            assert_eq!(u, other.control(&Pendulum, t, &x).expect("a tick"), "tick {k}");
            assert!(other.plan().expect("a plan").gains.is_empty());
            x = crate::step::rk4(&Pendulum, t, &x, &u, h).expect("a step");
        }
    }

    /// Torque limited below m g l, the pendulum pumps: every input within the limits, the end near
    /// upright, and the KKT conditions of the limited problem — ∂J/∂u_k (central differences of J
    /// from rollouts of the step map) vanishes where u_k is inside the limits and points out of them
    /// where u_k is at one; the gains of the saturated steps are zero.
    #[test]
    fn a_torque_limited_swing_up_pumps_within_its_limits_and_meets_the_kkt_conditions() {
        let (h, n, limit) = (0.02, 300, 3.0);
        let goal = Vector2::new(std::f64::consts::PI, 0.0);
        let p = IlqrProblem::new((0.0, h, n), goal, Matrix2::identity() * 0.01, Matrix1::new(0.05), Matrix2::identity() * 500.0)
            .limits(Vector1::new(-limit), Vector1::new(limit))
            .tolerance(1e-10);
        let s = ilqr(&Pendulum, &p, &Vector2::zeros(), &vec![Vector1::zeros(); n]).expect("solves");
        let saturated = s.inputs.iter().filter(|u| u[0].abs() == limit).count();
        eprintln!(
            "limited swing-up: {:?}, {} iterations, {saturated} of {n} inputs at a limit, end ({:.4}, {:.4})",
            s.status,
            s.costs.len() - 1,
            s.states[n][0],
            s.states[n][1]
        );
        assert_eq!(s.status, IlqrStatus::Converged, "{:?}", s.costs);
        assert!(s.costs.windows(2).all(|w| w[1] < w[0]));
        assert!(s.inputs.iter().all(|u| u[0].abs() <= limit), "an input beyond the limits");
        assert!(saturated > 10, "{saturated} saturated steps: the limit should bind while pumping");
        assert!((s.states[n] - goal).norm() < 0.05, "{}", s.states[n]);
        let cost = |us: &[Vector1<f64>]| {
            let mut xs = vec![Vector2::zeros()];
            for (k, u) in us.iter().enumerate() {
                xs.push(crate::step::rk4(&Pendulum, h * k as f64, &xs[k], u, h).expect("step"));
            }
            p.cost(&Flat(&Pendulum), &xs, us)
        };
        let e = 1e-6;
        let scale = s.inputs.iter().map(|u| u[0].abs()).fold(0.0, f64::max) * 0.05;
        for k in (0..n).step_by(3) {
            let (mut up, mut down) = (s.inputs.clone(), s.inputs.clone());
            up[k][0] += e;
            down[k][0] -= e;
            let gradient = (cost(&up) - cost(&down)) / (2.0 * e);
            let u = s.inputs[k][0];
            if u == limit {
                assert!(gradient <= 1e-5 * scale, "∂J/∂u_{k} = {gradient} at the upper limit");
                assert_eq!(s.gains[k].amax(), 0.0, "a saturated step's gain");
            } else if u == -limit {
                assert!(gradient >= -1e-5 * scale, "∂J/∂u_{k} = {gradient} at the lower limit");
                assert_eq!(s.gains[k].amax(), 0.0, "a saturated step's gain");
            } else {
                assert!(gradient.abs() < 1e-5 * scale.max(1.0), "∂J/∂u_{k} = {gradient} inside the limits");
            }
        }
    }

    /// Limits that never bind give the unconstrained iteration's solution; limits that bind on the
    /// double integrator (a linear system and a quadratic cost: a convex problem) hold the inputs
    /// within them and leave a higher cost.
    #[test]
    fn limits_that_never_bind_change_nothing() {
        let (h, n) = (0.05, 60);
        let p =
            IlqrProblem::new((0.0, h, n), Vector2::zeros(), Matrix2::identity(), Matrix1::new(0.1), Matrix2::identity() * 100.0);
        let guess = vec![Vector1::zeros(); n];
        let free = ilqr(&Cart, &p, &Vector2::new(1.0, 0.0), &guess).expect("solves");
        let peak = free.inputs.iter().map(|u| u[0].abs()).fold(0.0, f64::max);
        let wide =
            ilqr(&Cart, &p.clone().limits(Vector1::new(-2.0 * peak), Vector1::new(2.0 * peak)), &Vector2::new(1.0, 0.0), &guess)
                .expect("solves");
        let gap = free.inputs.iter().zip(&wide.inputs).map(|(x, y)| (x - y).amax()).fold(0.0, f64::max);
        assert!(gap < 1e-9 * peak, "wide limits against none: {gap:e}");
        let tight = ilqr(&Cart, &p.limits(Vector1::new(-0.5 * peak), Vector1::new(0.5 * peak)), &Vector2::new(1.0, 0.0), &guess)
            .expect("solves");
        assert_eq!(tight.status, IlqrStatus::Converged);
        assert!(tight.inputs.iter().all(|u| u[0].abs() <= 0.5 * peak));
        assert!(tight.cost() > free.cost());
    }

    #[test]
    fn limits_out_of_order_are_malformed() {
        let p = IlqrProblem::new((0.0, 0.1, 10), Vector2::zeros(), Matrix2::identity(), Matrix1::new(1.0), Matrix2::identity())
            .limits(Vector1::new(1.0), Vector1::new(-1.0));
        assert!(matches!(ilqr(&Cart, &p, &Vector2::zeros(), &[Vector1::zeros(); 10]), Err(IlqrError::Malformed(_))));
        let nan = p.limits(Vector1::new(f64::NAN), Vector1::new(1.0));
        assert!(matches!(ilqr(&Cart, &nan, &Vector2::zeros(), &[Vector1::zeros(); 10]), Err(IlqrError::Malformed(_))));
    }

    #[test]
    fn a_malformed_problem_is_an_error() {
        let p = IlqrProblem::new((0.0, 0.1, 10), Vector2::zeros(), Matrix2::identity(), Matrix1::new(1.0), Matrix2::identity());
        assert!(matches!(ilqr(&Cart, &p, &Vector2::zeros(), &[Vector1::zeros(); 3]), Err(IlqrError::Malformed(_))));
        let flat = IlqrProblem { h: 0.0, ..p.clone() };
        assert!(matches!(ilqr(&Cart, &flat, &Vector2::zeros(), &[Vector1::zeros(); 10]), Err(IlqrError::Malformed(_))));
        let short = p.clone().path(vec![Vector2::zeros(); 10], vec![Vector1::zeros(); 10]);
        assert!(matches!(ilqr(&Cart, &short, &Vector2::zeros(), &[Vector1::zeros(); 10]), Err(IlqrError::Malformed(_))));
    }

    /// Weights that are not what the cost needs (Q and Q_f symmetric positive semidefinite, R
    /// symmetric positive definite), a tolerance below zero or NaN and a non-finite reference are
    /// malformed problems, each named; the weights at the edge (Q = 0, Q_f = 0) are not.
    #[test]
    fn weights_tolerances_and_references_are_checked() {
        let p = IlqrProblem::new((0.0, 0.1, 10), Vector2::zeros(), Matrix2::identity(), Matrix1::new(1.0), Matrix2::identity());
        let run = |p: &IlqrProblem<2, 1>| ilqr(&Cart, p, &Vector2::new(1.0, 0.0), &[Vector1::zeros(); 10]);
        let malformed = |p: &IlqrProblem<2, 1>, says: &str| match run(p) {
            Err(IlqrError::Malformed(why)) => assert!(why.contains(says), "{why}"),
            other => panic!("{other:?}"),
        };
        malformed(
            &IlqrProblem { q: Matrix2::new(1.0, 0.5, 0.0, 1.0), ..p.clone() },
            "`Q` is not symmetric positive semidefinite",
        );
        malformed(&IlqrProblem { q: -Matrix2::identity(), ..p.clone() }, "`Q` is not symmetric positive semidefinite");
        malformed(&IlqrProblem { qf: Matrix2::new(1.0, 0.0, 0.0, -1e-3), ..p.clone() }, "`Q_f` is not");
        malformed(&IlqrProblem { r: Matrix1::new(0.0), ..p.clone() }, "`R` is not symmetric positive definite");
        malformed(&IlqrProblem { r: Matrix1::new(f64::NAN), ..p.clone() }, "`R` has a non-finite entry");
        malformed(&p.clone().tolerance(-1.0), "tolerance");
        malformed(&p.clone().tolerance(f64::NAN), "tolerance");
        malformed(&p.clone().reference(Vector1::new(f64::INFINITY)), "reference");
        let edge = IlqrProblem { q: Matrix2::zeros(), qf: Matrix2::zeros(), ..p.clone() };
        assert!(run(&edge).is_ok());
        assert!(run(&p).is_ok());
    }

    /// A body turning about a fixed point, torqued about its principal axes: q̇ = ½ q ⊗ (0, ω),
    /// I ω̇ = u − ω × I ω, with its Jacobians by hand.
    struct Body(nalgebra::Vector3<f64>);
    impl InputSystem<7, 3> for Body {
        fn field_with_input(
            &self,
            _t: f64,
            x: &SVector<f64, 7>,
            u: &nalgebra::Vector3<f64>,
        ) -> Result<SVector<f64, 7>, FieldError> {
            let (q, w) = (nalgebra::Quaternion::new(x[0], x[1], x[2], x[3]), nalgebra::Vector3::new(x[4], x[5], x[6]));
            let dq = q * nalgebra::Quaternion::from_imag(w) * 0.5;
            let dw = (u - w.cross(&self.0.component_mul(&w))).component_div(&self.0);
            Ok(SVector::from([dq.w, dq.i, dq.j, dq.k, dw[0], dw[1], dw[2]]))
        }
    }
    impl InputJacobians<7, 3> for Body {
        fn state_jacobian(
            &self,
            _t: f64,
            x: &SVector<f64, 7>,
            _u: &nalgebra::Vector3<f64>,
        ) -> Result<SMatrix<f64, 7, 7>, FieldError> {
            let (q, w) = (nalgebra::Quaternion::new(x[0], x[1], x[2], x[3]), nalgebra::Vector3::new(x[4], x[5], x[6]));
            let mut j = SMatrix::<f64, 7, 7>::zeros();
            // ½ q ⊗ (0, ω) is linear in q and in ω: its columns are the products with unit vectors.
            for c in 0..4 {
                let mut e = [0.0; 4];
                e[c] = 1.0;
                let d = nalgebra::Quaternion::new(e[0], e[1], e[2], e[3]) * nalgebra::Quaternion::from_imag(w) * 0.5;
                j.fixed_view_mut::<4, 1>(0, c).copy_from(&nalgebra::Vector4::new(d.w, d.i, d.j, d.k));
            }
            for c in 0..3 {
                let d = q * nalgebra::Quaternion::from_imag(nalgebra::Vector3::ith(c, 1.0)) * 0.5;
                j.fixed_view_mut::<4, 1>(0, 4 + c).copy_from(&nalgebra::Vector4::new(d.w, d.i, d.j, d.k));
            }
            // ∂(ω × I ω)/∂ω = [ω×] I − [(I ω)×].
            let i = nalgebra::Matrix3::from_diagonal(&self.0);
            let by_w = -(w.cross_matrix() * i - (i * w).cross_matrix());
            for r in 0..3 {
                for c in 0..3 {
                    j[(4 + r, 4 + c)] = by_w[(r, c)] / self.0[r];
                }
            }
            Ok(j)
        }
        fn input_jacobian(
            &self,
            _t: f64,
            _x: &SVector<f64, 7>,
            _u: &nalgebra::Vector3<f64>,
        ) -> Result<SMatrix<f64, 7, 3>, FieldError> {
            let mut b = SMatrix::<f64, 7, 3>::zeros();
            for r in 0..3 {
                b[(4 + r, r)] = 1.0 / self.0[r];
            }
            Ok(b)
        }
    }

    /// The same body turning about its third axis alone: θ̈ = u / I₃.
    struct Spin(f64);
    impl InputSystem<2, 1> for Spin {
        fn field_with_input(&self, _t: f64, x: &Vector2<f64>, u: &Vector1<f64>) -> Result<Vector2<f64>, FieldError> {
            Ok(Vector2::new(x[1], u[0] / self.0))
        }
    }
    impl InputJacobians<2, 1> for Spin {
        fn state_jacobian(&self, _t: f64, _x: &Vector2<f64>, _u: &Vector1<f64>) -> Result<Matrix2<f64>, FieldError> {
            Ok(Matrix2::new(0.0, 1.0, 0.0, 0.0))
        }
        fn input_jacobian(&self, _t: f64, _x: &Vector2<f64>, _u: &Vector1<f64>) -> Result<SMatrix<f64, 2, 1>, FieldError> {
            Ok(SMatrix::<f64, 2, 1>::new(0.0, 1.0 / self.0))
        }
    }

    #[test]
    fn a_reference_without_an_attitude_is_malformed_in_the_charts_alone() {
        // A zero quaternion names no attitude: its deviation in the chart is NaN (nalgebra's own
        // logarithm of the normalised zero gives no rotation at all, and with it a cost of zero).
        let (steps, r) = (10, nalgebra::Matrix3::identity() * 0.2);
        let q = SMatrix::<f64, 6, 6>::identity();
        let start = attitude(nalgebra::Vector3::z(), 0.3, [0.1, 0.0, 0.0]);
        let goal = attitude(nalgebra::Vector3::x(), 1.0, [0.0; 3]);
        let guess = vec![nalgebra::Vector3::zeros(); steps];
        let body = Body(nalgebra::Vector3::new(1.0, 2.0, 3.5));
        let plan = |p: &IlqrProblem<7, 3, 6>, x0: &SVector<f64, 7>| ilqr_tangent::<_, 4, 3, 7, 6, 3>(&body, p, x0, &guess);
        let says = |out: Result<IlqrSolution<7, 3, 6>, IlqrError>, what: &str| match out {
            Err(IlqrError::Malformed(why)) => assert!(why.contains(what), "{why}"),
            other => panic!("{:?}", other.map(|s| (s.status, s.costs))),
        };
        let mut nowhere = goal;
        nowhere.fixed_rows_mut::<4>(0).fill(0.0);
        says(plan(&IlqrProblem::new((0.0, 0.02, steps), nowhere, q, r, q), &start), "step 0");
        let mut path = vec![goal; steps + 1];
        path[3] = nowhere;
        let along = IlqrProblem::new((0.0, 0.02, steps), goal, q, r, q).path(path, vec![nalgebra::Vector3::zeros(); steps]);
        says(plan(&along, &start), "step 3");
        let problem = IlqrProblem::new((0.0, 0.02, steps), goal, q, r, q);
        says(plan(&problem, &nowhere), "initial state");
        // A quaternion of any other length is an attitude.
        assert_eq!(plan(&problem, &(start * 3.0)).expect("a plan").status, IlqrStatus::Converged);
        // In the state itself the cost weighs the components, zero or not.
        let flat = IlqrProblem::new((0.0, 0.02, steps), nowhere, SMatrix::<f64, 7, 7>::identity(), r, SMatrix::identity());
        assert!(ilqr(&body, &flat, &start, &guess).is_ok());
    }

    fn attitude(axis: nalgebra::Vector3<f64>, angle: f64, rates: [f64; 3]) -> SVector<f64, 7> {
        let q = nalgebra::UnitQuaternion::from_axis_angle(&nalgebra::Unit::new_normalize(axis), angle);
        SVector::from([q.w, q.i, q.j, q.k, rates[0], rates[1], rates[2]])
    }

    /// A 150° slew about a principal axis from rest to rest, planned in the tangent charts, is
    /// the plan of the same body turning about that axis alone (θ̈ = u / I₃ in its angle, the
    /// same weights): the other torques stay zero and the third is the planar plan's, to the
    /// quaternion RK4's own error (the planar step is exact). Then a three-axis slew out of a
    /// tumble: the plan is a stationary point of J in every one of the 3N torques (central
    /// differences of J through rollouts and the charts' error) — planned with the cost's
    /// derivatives without J_r⁻¹, or without the rates' [ω×] in ∂θ̇/∂θ, it is not (∂J/∂u 0.44
    /// and 0.16 against 4e-6).
    #[test]
    fn a_slew_in_the_charts_is_the_planar_plan_and_a_stationary_point() {
        let inertia = nalgebra::Vector3::new(1.0, 2.0, 3.5);
        let (h, steps, turn) = (0.02, 150, 150_f64.to_radians());
        let z = nalgebra::Vector3::z();
        let goal = attitude(z, turn, [0.0; 3]);
        let q = SMatrix::<f64, 6, 6>::from_diagonal(&SVector::from([0.5, 0.5, 0.5, 0.1, 0.1, 0.1]));
        let qf = SMatrix::<f64, 6, 6>::identity() * 1e3;
        let r = nalgebra::Matrix3::identity() * 0.2;
        let problem = IlqrProblem::new((0.0, h, steps), goal, q, r, qf).tolerance(1e-12);
        let start = attitude(z, 0.0, [0.0; 3]);
        let guess = vec![nalgebra::Vector3::zeros(); steps];
        let body = Body(inertia);
        let plan = ilqr_tangent::<_, 4, 3, 7, 6, 3>(&body, &problem, &start, &guess).expect("a plan");
        assert_eq!(plan.status, IlqrStatus::Converged);
        let planar = IlqrProblem::new(
            (0.0, h, steps),
            Vector2::new(turn, 0.0),
            Matrix2::new(0.5, 0.0, 0.0, 0.1),
            Matrix1::new(0.2),
            Matrix2::identity() * 1e3,
        )
        .tolerance(1e-12);
        let flat = ilqr(&Spin(inertia[2]), &planar, &Vector2::zeros(), &vec![Vector1::zeros(); steps]).expect("a plan");
        assert_eq!(flat.status, IlqrStatus::Converged);
        let peak = flat.inputs.iter().map(|u| u[0].abs()).fold(0.0, f64::max);
        for (u, v) in plan.inputs.iter().zip(&flat.inputs) {
            assert!(u[0].abs() + u[1].abs() < 1e-10 * peak, "{u}");
            assert!((u[2] - v[0]).abs() < 1e-6 * peak, "{} against {}", u[2], v[0]);
        }
        assert!((plan.cost() - flat.cost()).abs() < 1e-7 * flat.cost(), "{} against {}", plan.cost(), flat.cost());
        let end: SVector<f64, 6> = Charts::<_, 4, 3>(&body).difference(&plan.states[steps], &goal);
        assert!(end.fixed_rows::<3>(0).norm() < 0.1 * turn, "turned most of the way: {end}");

        // A three-axis slew out of a tumble, every term of the chart's derivatives at work.
        let goal = attitude(nalgebra::Vector3::new(1.0, 2.0, -1.0), 2.1, [0.0; 3]);
        // Weights that differ by axis: with equal ones Gᵀ Q e = Q e (J_r⁻¹(θ)ᵀ θ = θ, [ω×]ᵀ ω = 0),
        // and the chart's derivatives would not show in the gradient.
        let q = SMatrix::<f64, 6, 6>::from_diagonal(&SVector::from([0.8, 0.3, 0.5, 0.2, 0.05, 0.1]));
        let problem = IlqrProblem::new((0.0, 0.06, 40), goal, q, r, qf).tolerance(1e-13);
        let start = attitude(nalgebra::Vector3::new(0.3, -1.0, 0.5), 0.4, [0.6, -0.4, 0.3]);
        let plan =
            ilqr_tangent::<_, 4, 3, 7, 6, 3>(&body, &problem, &start, &vec![nalgebra::Vector3::zeros(); 40]).expect("a plan");
        assert_eq!(plan.status, IlqrStatus::Converged);
        let space = Charts::<_, 4, 3>(&body);
        let cost = |us: &[nalgebra::Vector3<f64>]| {
            let (xs, _, _) = rollout(&space, &problem, &start, us).expect("rollout");
            problem.cost(&space, &xs, us)
        };
        let d = 1e-6;
        let mut gradient = 0.0_f64;
        for k in 0..40 {
            for c in 0..3 {
                let (mut up, mut down) = (plan.inputs.clone(), plan.inputs.clone());
                up[k][c] += d;
                down[k][c] -= d;
                gradient = gradient.max(((cost(&up) - cost(&down)) / (2.0 * d)).abs());
            }
        }
        // Against J's scale per unit torque at the guess.
        let at_guess = {
            let zero = vec![nalgebra::Vector3::zeros(); 40];
            let mut up = zero.clone();
            up[0][0] += d;
            ((cost(&up) - cost(&zero)) / d).abs()
        };
        assert!(gradient < 1e-6 * at_guess, "∂J/∂u up to {gradient:e} at the plan, {at_guess:e} at the guess");
    }
}
