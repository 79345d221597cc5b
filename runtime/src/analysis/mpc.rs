//! Model-predictive control: iLQR ([`crate::ilqr`]) over a horizon that recedes with the state.
//!
//! At every tick (t, x) the controller plans the problem's N steps from x at t, applies the plan's
//! first input and keeps the rest: the next tick's guess is that plan shifted by one step, its last
//! input repeated — called every h (the problem's step), the warm start is the previous plan's own
//! continuation, so that a tick costs an iteration or two once the plan has settled, and an
//! iteration limit of one or two ([`IlqrProblem::max_iterations`]) makes each tick's work bounded
//! (the real-time iteration). The references are the problem's, relative to the horizon's start
//! (a goal, or a window of a path to track that [`Mpc::references`] moves along at every tick);
//! limits, weights and tolerance are the problem's too, and so are [`IlqrProblem::parallel`] (each
//! tick's step linearisations on all cores) and [`IlqrProblem::final_gains`] (without them a
//! real-time tick does half the work; the plan then has no gains), the inputs the same to the bit. The plan of the last
//! tick, with its gains and status, is [`Mpc::plan`].
//!
//! For a linear system with a quadratic cost the first input is the finite-horizon LQR's feedback
//! −K₀ (x − x*) of the Riccati recursion over the horizon, at every tick (see the tests); for a
//! nonlinear one it is the first input of a locally optimal plan. A model with orientations plans
//! in their tangent charts by [`Mpc::control_tangent`] ([`crate::ilqr::ilqr_tangent`]'s).
//!
//! ```
//! use routh_runtime::ilqr::IlqrProblem;
//! use routh_runtime::input::InputSystem;
//! use routh_runtime::mpc::Mpc;
//! use routh_runtime::nalgebra::{Matrix1, Matrix2, SMatrix, Vector1, Vector2};
//! use routh_runtime::step::{InputJacobians, StepMap};
//! use routh_runtime::FieldError;
//!
//! // The double integrator ẍ = u, brought to rest at the origin with |u| ≤ 1.
//! struct Cart;
//! impl InputSystem<2, 1> for Cart {
//!     fn field_with_input(&self, _t: f64, x: &Vector2<f64>, u: &Vector1<f64>) -> Result<Vector2<f64>, FieldError> {
//!         Ok(Vector2::new(x[1], u[0]))
//!     }
//! }
//! impl InputJacobians<2, 1> for Cart {
//!     fn state_jacobian(&self, _t: f64, _x: &Vector2<f64>, _u: &Vector1<f64>) -> Result<Matrix2<f64>, FieldError> {
//!         Ok(Matrix2::new(0.0, 1.0, 0.0, 0.0))
//!     }
//!     fn input_jacobian(&self, _t: f64, _x: &Vector2<f64>, _u: &Vector1<f64>) -> Result<SMatrix<f64, 2, 1>, FieldError> {
//!         Ok(SMatrix::<f64, 2, 1>::new(0.0, 1.0))
//!     }
//! }
//! let h = 0.05;
//! let problem = IlqrProblem::new((0.0, h, 40), Vector2::zeros(), Matrix2::identity(), Matrix1::new(0.1), Matrix2::identity() * 10.0)
//!     .limits(Vector1::new(-1.0), Vector1::new(1.0));
//! let mut mpc = Mpc::new(problem);
//! let mut x = Vector2::new(1.0, 0.0);
//! for k in 0..200 {
//!     let u = mpc.control(&Cart, k as f64 * h, &x)?;
//!     assert!(u[0].abs() <= 1.0);
//!     x = Cart.advance(k as f64 * h, &x, &u, h)?;
//! }
//! assert!(x.norm() < 1e-3);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use nalgebra::SVector;

use crate::ilqr::{Charts, Flat, IlqrError, IlqrProblem, IlqrSolution, Planned, solve};
use crate::step::{InputJacobians, StepMap};

/// A model-predictive controller: the problem over the receding horizon, the next tick's guess and
/// the last tick's plan (see the [module docs](self)).
#[derive(Debug, Clone)]
pub struct Mpc<const D: usize, const K: usize, const C: usize = D> {
    problem: IlqrProblem<D, K, C>,
    guess: Vec<SVector<f64, K>>,
    plan: Option<IlqrSolution<D, K, C>>,
}

impl<const D: usize, const K: usize, const C: usize> Mpc<D, K, C> {
    /// The controller of `problem` (its start time is each tick's), whose first guess is the
    /// problem's reference inputs.
    #[must_use]
    pub fn new(problem: IlqrProblem<D, K, C>) -> Self {
        let guess = problem.inputs.clone();
        Mpc { problem, guess, plan: None }
    }

    /// The first tick's guess (N inputs; another length is [`IlqrError::Malformed`] at that tick).
    #[must_use]
    pub fn guess(mut self, guess: Vec<SVector<f64, K>>) -> Self {
        self.guess = guess;
        self
    }

    /// The problem planned at every tick.
    #[must_use]
    pub const fn problem(&self) -> &IlqrProblem<D, K, C> {
        &self.problem
    }

    /// The references of the next ticks' horizon: the states x*_0 … x*_N (N + 1) and inputs
    /// u*_0 … u*_{N−1} (N) from its start — a path's window, moved along it before each tick.
    /// Other lengths are [`IlqrError::Malformed`] at the next tick.
    pub fn references(&mut self, states: Vec<SVector<f64, D>>, inputs: Vec<SVector<f64, K>>) {
        (self.problem.states, self.problem.inputs) = (states, inputs);
    }

    /// The next tick's guess: the last plan shifted by one step (its last input repeated), or the
    /// first guess before the first tick.
    #[must_use]
    pub fn next_guess(&self) -> &[SVector<f64, K>] {
        &self.guess
    }

    /// The last tick's plan (states, inputs, gains, costs, status), `None` before the first.
    #[must_use]
    pub const fn plan(&self) -> Option<&IlqrSolution<D, K, C>> {
        self.plan.as_ref()
    }

    /// One tick in `space`: the plan from `x` at `t`, its first input; the guess shifted.
    fn tick(
        &mut self,
        space: &(impl Planned<D, C, K> + Sync),
        t: f64,
        x: &SVector<f64, D>,
    ) -> Result<SVector<f64, K>, IlqrError> {
        self.problem.t0 = t;
        let plan = solve(space, &self.problem, x, &self.guess)?;
        let first = plan.inputs[0];
        let last = plan.inputs[plan.inputs.len() - 1];
        self.guess = plan.inputs[1..].iter().copied().chain(std::iter::once(last)).collect();
        self.plan = Some(plan);
        Ok(first)
    }
}

impl<const D: usize, const K: usize> Mpc<D, K> {
    /// The input at the state `x` at time `t`: the first of the plan over the horizon from (t, x)
    /// by [`crate::ilqr::ilqr`] on the step map `sys` (the classical Runge–Kutta step of a model
    /// with input Jacobians, a variational integrator), warm-started from the last tick's plan.
    /// Within the problem's limits, whatever the plan's status (an iteration limit still gives the
    /// best plan found).
    ///
    /// # Errors
    /// As [`crate::ilqr::ilqr`]: [`IlqrError::Malformed`] for a problem or guess that is not what
    /// the plan needs, [`IlqrError::Rollout`] if the system fails along the guess. The controller
    /// then keeps its guess and its last plan (whose next input a law may hold instead).
    pub fn control<S: StepMap<D, K> + Sync + ?Sized>(
        &mut self,
        sys: &S,
        t: f64,
        x: &SVector<f64, D>,
    ) -> Result<SVector<f64, K>, IlqrError> {
        self.tick(&Flat(sys), t, x)
    }
}

impl<const D: usize, const K: usize, const C: usize> Mpc<D, K, C> {
    /// [`Self::control`] of a model with orientations, planned in their tangent charts
    /// ([`crate::ilqr::ilqr_tangent`]: `P` positions, `N` velocities, the weights C × C with
    /// C = 2N).
    ///
    /// # Errors
    /// As [`crate::ilqr::ilqr_tangent`].
    pub fn control_tangent<S, const P: usize, const N: usize>(
        &mut self,
        sys: &S,
        t: f64,
        x: &SVector<f64, D>,
    ) -> Result<SVector<f64, K>, IlqrError>
    where
        S: InputJacobians<D, K> + Sync + ?Sized,
    {
        self.tick(&Charts::<S, P, N>(sys), t, x)
    }

    /// [`Self::control`] of a model with orientations on its Lie group variational integrator
    /// ([`crate::ilqr::ilqr_oriented`]: the state (q, μ), the weights C × C over the chart
    /// (δx, η, δμ) with C = 2N).
    ///
    /// # Errors
    /// As [`crate::ilqr::ilqr_oriented`].
    pub fn control_oriented<M, const P: usize, const N: usize>(
        &mut self,
        map: &crate::step::OrientedMap<'_, M, P, N>,
        t: f64,
        x: &SVector<f64, D>,
    ) -> Result<SVector<f64, K>, IlqrError>
    where
        M: crate::discrete::DrivenOrientedDiscrete<P, N, K> + Sync + ?Sized,
    {
        self.tick(map, t, x)
    }
}

#[cfg(test)]
mod tests {
    use nalgebra::{Matrix1, Matrix2, SMatrix, Vector1, Vector2};

    use super::*;
    use crate::analysis::fixtures::{Cart, Pendulum};
    use crate::ilqr::IlqrStatus;

    #[test]
    fn on_a_linear_system_each_tick_is_the_finite_horizon_lqr_feedback() {
        // The double integrator's RK4 step is exact: A_d = [1 h; 0 1], B_d = (h²/2, h). The LQR of
        // the horizon by its Riccati recursion from P_N = Q_f, written here apart from iLQR's
        // backward pass: K_k = (R + BᵀPB)⁻¹ BᵀPA, P ← Q + AᵀPA − AᵀPB K_k.
        let (h, steps) = (0.05, 30);
        let (q, r, qf) = (Matrix2::new(2.0, 0.3, 0.3, 0.5), Matrix1::new(0.2), Matrix2::identity() * 20.0);
        let (a, b) = (Matrix2::new(1.0, h, 0.0, 1.0), SMatrix::<f64, 2, 1>::new(0.5 * h * h, h));
        let mut p = qf;
        let mut gain = SMatrix::<f64, 1, 2>::zeros();
        for _ in 0..steps {
            gain = (r + b.transpose() * p * b).try_inverse().expect("R + BᵀPB ≻ 0") * b.transpose() * p * a;
            p = q + a.transpose() * p * a - a.transpose() * p * b * gain;
        }
        let goal = Vector2::new(0.4, 0.0);
        let problem = IlqrProblem::new((0.0, h, steps), goal, q, r, qf).tolerance(1e-14);
        let mut mpc = Mpc::new(problem);
        let mut x = Vector2::new(-1.0, 0.7);
        for k in 0..200 {
            let t = k as f64 * h;
            let u = mpc.control(&Cart, t, &x).expect("a tick");
            let lqr = -(gain * (x - goal))[0];
            assert!((u[0] - lqr).abs() < 1e-9 * (1.0 + lqr.abs()), "tick {k}: {} against {lqr}", u[0]);
            let plan = mpc.plan().expect("a plan");
            assert_eq!(plan.status, IlqrStatus::Converged);
            // The horizon starts at the tick.
            assert_eq!((plan.states[0], mpc.problem().t0), (x, t));
            x = Cart.advance(t, &x, &u, h).expect("a step");
        }
        assert!((x - goal).norm() < 1e-3, "{x}");
    }

    #[test]
    fn a_limited_pendulum_is_held_upright_with_one_iteration_a_tick() {
        // From 0.6 rad off the top with |u| ≤ 6 (the torque that holds it at 0.6 rad is
        // g sin 0.6 = 5.5): each tick may take a single iteration of iLQR from the last plan
        // shifted, and the pendulum comes up and stays within its limits.
        let (h, steps, ticks) = (0.02, 40, 250);
        let upright = Vector2::new(std::f64::consts::PI, 0.0);
        let problem = IlqrProblem::new(
            (0.0, h, steps),
            upright,
            Matrix2::new(10.0, 0.0, 0.0, 1.0),
            Matrix1::new(0.05),
            Matrix2::identity() * 100.0,
        )
        .limits(Vector1::new(-6.0), Vector1::new(6.0));
        // A closed loop of `ticks` ticks, each from the last plan shifted (warm) or from the
        // reference's zero torques (cold): where it ends, the largest torque, the iterations.
        let fly = |iterations: usize, warm: bool| {
            let mut mpc = Mpc::new(problem.clone().max_iterations(iterations));
            let mut x = Vector2::new(std::f64::consts::PI - 0.6, 0.0);
            let (mut peak, mut count) = (0.0_f64, 0);
            for k in 0..ticks {
                let t = k as f64 * h;
                if !warm {
                    mpc = Mpc::new(mpc.problem().clone());
                }
                let u = mpc.control(&Pendulum, t, &x).expect("a tick");
                peak = peak.max(u[0].abs());
                count += mpc.plan().expect("a plan").costs.len() - 1;
                x = Pendulum.advance(t, &x, &u, h).expect("a step");
            }
            (x, peak, count)
        };
        let (x, peak, _) = fly(1, true);
        assert!((x - upright).norm() < 1e-3, "one iteration a tick: {x}");
        assert!(peak <= 6.0 && peak > 5.0, "the limit binds at first: {peak}");
        // Iterations unlimited: the warm start settles at about one a tick, where planning from
        // zero torques at every tick takes more.
        let (x, _, warm) = fly(200, true);
        assert!((x - upright).norm() < 1e-3, "{x}");
        let (_, _, cold) = fly(200, false);
        assert!(warm <= ticks + ticks / 10 && cold > warm + ticks / 2, "{warm} warm, {cold} cold over {ticks} ticks");
    }

    #[test]
    fn the_next_tick_starts_from_the_plan_shifted() {
        // A torque-limited swing-up from hanging at rest (the plan pumps: far from stationary).
        // Planned in full at the first tick; the second, at the state the plan reached after one
        // step, starts from the rest of that plan — nearly the new horizon's optimum (the horizon
        // now ends a step later), so that it takes an iteration or two and its first input is
        // the old plan's second.
        let (h, steps) = (0.02, 200);
        let goal = Vector2::new(std::f64::consts::PI, 0.0);
        let problem =
            IlqrProblem::new((0.0, h, steps), goal, Matrix2::identity() * 0.01, Matrix1::new(0.05), Matrix2::identity() * 500.0)
                .limits(Vector1::new(-3.0), Vector1::new(3.0))
                .tolerance(1e-10);
        let mut mpc = Mpc::new(problem);
        mpc.control(&Pendulum, 0.0, &Vector2::zeros()).expect("a tick");
        let first = mpc.plan().expect("a plan").clone();
        assert!(first.costs.len() > 5, "{} iterations from rest", first.costs.len() - 1);
        // The guess rolled out from the plan's second state is the rest of the plan.
        let mut x = first.states[1];
        for (k, u) in mpc.next_guess().iter().enumerate().take(steps - 1) {
            x = Pendulum.advance((k + 1) as f64 * h, &x, u, h).expect("a step");
            assert!((x - first.states[k + 2]).norm() < 1e-12, "step {k}: {x} against {}", first.states[k + 2]);
        }
        let u = mpc.control(&Pendulum, h, &first.states[1]).expect("a tick");
        let second = mpc.plan().expect("a plan");
        // It starts within 5 % of the new horizon's optimum (from zero torques: 30 times it).
        assert!(second.costs[0] < 1.05 * second.cost(), "{} against {}", second.costs[0], second.cost());
        assert!((u[0] - first.inputs[1][0]).abs() < 1e-3 * 3.0, "{} against {}", u[0], first.inputs[1][0]);
    }

    #[test]
    fn a_wrong_guess_or_reference_is_malformed_at_the_tick() {
        let problem =
            IlqrProblem::new((0.0, 0.1, 10), Vector2::zeros(), Matrix2::identity(), Matrix1::new(1.0), Matrix2::identity());
        let mut mpc = Mpc::new(problem.clone()).guess(vec![Vector1::zeros(); 3]);
        assert!(matches!(mpc.control(&Cart, 0.0, &Vector2::new(1.0, 0.0)), Err(IlqrError::Malformed(_))));
        assert!(mpc.plan().is_none());
        let mut mpc = Mpc::new(problem);
        mpc.references(vec![Vector2::zeros(); 4], vec![Vector1::zeros(); 10]);
        assert!(matches!(mpc.control(&Cart, 0.0, &Vector2::new(1.0, 0.0)), Err(IlqrError::Malformed(_))));
    }
}
