//! Discrete-time step maps for control: one fixed step of the classical Runge–Kutta method with
//! the input held, x_{k+1} = Φ_h(t_k, x_k, u_k), and its exact Jacobians A_d = ∂x_{k+1}/∂x_k,
//! B_d = ∂x_{k+1}/∂u_k — what iLQR, MPC and discrete LQR ([`crate::lqr::dare`]) linearise.
//!
//! The derivatives are those of the scheme itself (not of the exact flow), by the chain rule through
//! the stages with the system's ∂F/∂x and ∂F/∂u ([`InputJacobians`]; generated models with inputs
//! implement it with their symbolic Jacobians): with k₁ = F(t, x, u), k₂ = F(t + h/2, x + h/2 k₁, u),
//! k₃ = F(t + h/2, x + h/2 k₂, u), k₄ = F(t + h, x + h k₃, u),
//!
//! ```text
//! ∂k₁ = J₁ (·) + B₁,   ∂k₂ = J₂ (I + h/2 ∂k₁) (·) + B₂,   …,   A_d = I + h/6 (∂k₁ + 2∂k₂ + 2∂k₃ + ∂k₄)
//! ```
//!
//! so they agree with finite differences of the step to the differences' own error and cost four
//! evaluations of F, J and B instead of D + K + 1 steps. A second-order system (x = (q, v), q̇ = v:
//! [`SecondOrder`]) has the first-order semi-implicit Euler step too ([`SemiImplicitEuler`]: one
//! evaluation a step), and a discrete model its variational integrator ([`VariationalMap`]).
//!
//! ```
//! use routh_runtime::input::InputSystem;
//! use routh_runtime::nalgebra::{Matrix2, SMatrix, Vector1, Vector2};
//! use routh_runtime::step::{InputJacobians, rk4_step};
//! use routh_runtime::FieldError;
//!
//! // The double integrator ẍ = u: RK4 is exact on it, A_d = [1, h; 0, 1], B_d = [h²/2; h].
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
//! let h = 0.1;
//! let step = rk4_step(&Cart, 0.0, &Vector2::new(1.0, 2.0), &Vector1::new(3.0), h)?;
//! assert!((step.next - Vector2::new(1.0 + 2.0 * h + 1.5 * h * h, 2.0 + 3.0 * h)).amax() < 1e-15);
//! assert!((step.a - Matrix2::new(1.0, h, 0.0, 1.0)).amax() < 1e-15);
//! assert!((step.b - SMatrix::<f64, 2, 1>::new(h * h / 2.0, h)).amax() < 1e-15);
//! # Ok::<(), FieldError>(())
//! ```

use nalgebra::{SMatrix, SVector};

use crate::discrete::{
    DiscreteOptions, DrivenContactDiscrete, DrivenDiscrete, DrivenOrientedDiscrete, contact_discrete_step,
    contact_input_step_jacobian, discrete_step, input_step_jacobian, oriented_input_step_jacobian, oriented_step,
};
use crate::error::{FieldError, SimError};
use crate::input::InputSystem;
use crate::mechanics::StateLayout;

/// A system with inputs and the Jacobians of its field, ∂F/∂x and ∂F/∂u.
pub trait InputJacobians<const D: usize, const K: usize>: InputSystem<D, K> {
    /// ∂F/∂x at (t, x, u).
    ///
    /// # Errors
    /// A [`FieldError`] where it cannot be evaluated.
    fn state_jacobian(&self, t: f64, x: &SVector<f64, D>, u: &SVector<f64, K>) -> Result<SMatrix<f64, D, D>, FieldError>;
    /// ∂F/∂u at (t, x, u).
    ///
    /// # Errors
    /// A [`FieldError`] where it cannot be evaluated.
    fn input_jacobian(&self, t: f64, x: &SVector<f64, D>, u: &SVector<f64, K>) -> Result<SMatrix<f64, D, K>, FieldError>;
    /// Both at (t, x, u): by default each by its own method; a system whose two share their work
    /// (one factorisation of M) overrides it.
    ///
    /// # Errors
    /// A [`FieldError`] where they cannot be evaluated.
    #[allow(clippy::type_complexity)]
    fn jacobians(
        &self,
        t: f64,
        x: &SVector<f64, D>,
        u: &SVector<f64, K>,
    ) -> Result<(SMatrix<f64, D, D>, SMatrix<f64, D, K>), FieldError> {
        Ok((self.state_jacobian(t, x, u)?, self.input_jacobian(t, x, u)?))
    }
}

/// One step and its Jacobians.
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub struct StepJacobian<const D: usize, const K: usize> {
    /// x_{k+1}.
    pub next: SVector<f64, D>,
    /// A_d = ∂x_{k+1}/∂x_k.
    pub a: SMatrix<f64, D, D>,
    /// B_d = ∂x_{k+1}/∂u_k.
    pub b: SMatrix<f64, D, K>,
}

/// One classical Runge–Kutta step of size `h` from (t, x) with the input `u` held, without
/// Jacobians: [`StepJacobian::next`] of [`rk4_step`], bit for bit.
///
/// # Errors
/// The system's [`FieldError`]s at a stage; [`FieldError::NonFinite`] for a non-finite result or
/// step size.
pub fn rk4<S: InputSystem<D, K> + ?Sized, const D: usize, const K: usize>(
    sys: &S,
    t: f64,
    x: &SVector<f64, D>,
    u: &SVector<f64, K>,
    h: f64,
) -> Result<SVector<f64, D>, FieldError> {
    if !h.is_finite() {
        return Err(FieldError::NonFinite { t });
    }
    let half = 0.5 * h;
    let k1 = sys.field_with_input(t, x, u)?;
    let k2 = sys.field_with_input(t + half, &(x + k1 * half), u)?;
    let k3 = sys.field_with_input(t + half, &(x + k2 * half), u)?;
    let k4 = sys.field_with_input(t + h, &(x + k3 * h), u)?;
    let next = x + (k1 + (k2 + k3) * 2.0 + k4) * (h / 6.0);
    if next.iter().all(|v| v.is_finite()) { Ok(next) } else { Err(FieldError::NonFinite { t }) }
}

/// One classical Runge–Kutta step of size `h` from (t, x) with the input `u` held, and its exact
/// Jacobians (see the [module docs](self)).
///
/// # Errors
/// The system's [`FieldError`]s at a stage; [`FieldError::NonFinite`] for a non-finite result or
/// step size.
pub fn rk4_step<S: InputJacobians<D, K> + ?Sized, const D: usize, const K: usize>(
    sys: &S,
    t: f64,
    x: &SVector<f64, D>,
    u: &SVector<f64, K>,
    h: f64,
) -> Result<StepJacobian<D, K>, FieldError> {
    if !h.is_finite() {
        return Err(FieldError::NonFinite { t });
    }
    let identity = SMatrix::<f64, D, D>::identity();
    // A stage at (τ, y) whose state is y = x + c·h·k_prev: its slope and the slope's derivatives
    // J ∂y/∂x and J ∂y/∂u + B.
    let stage = |tau: f64, y: &SVector<f64, D>, dy_dx: &SMatrix<f64, D, D>, dy_du: &SMatrix<f64, D, K>| {
        let k = sys.field_with_input(tau, y, u)?;
        let (j, b) = sys.jacobians(tau, y, u)?;
        let top = rates_on_top(&j, &b);
        let mut dk_du = times(&j, dy_du, top);
        dk_du += b;
        Ok::<_, FieldError>((k, times(&j, dy_dx, top), dk_du))
    };
    // The first stage at x itself: ∂y/∂x = 1, ∂y/∂u = 0.
    let (k1, a1, b1) = {
        let k = sys.field_with_input(t, x, u)?;
        let (j, b) = sys.jacobians(t, x, u)?;
        (k, j, b)
    };
    let half = 0.5 * h;
    let (k2, a2, b2) = stage(t + half, &(x + k1 * half), &(identity + a1 * half), &(b1 * half))?;
    let (k3, a3, b3) = stage(t + half, &(x + k2 * half), &(identity + a2 * half), &(b2 * half))?;
    let (k4, a4, b4) = stage(t + h, &(x + k3 * h), &(identity + a3 * h), &(b3 * h))?;
    let sixth = h / 6.0;
    let step = StepJacobian {
        next: x + (k1 + (k2 + k3) * 2.0 + k4) * sixth,
        a: identity + (a1 + (a2 + a3) * 2.0 + a4) * sixth,
        b: (b1 + (b2 + b3) * 2.0 + b4) * sixth,
    };
    let finite = step.next.iter().chain(step.a.iter()).chain(step.b.iter()).all(|v| v.is_finite());
    if finite { Ok(step) } else { Err(FieldError::NonFinite { t }) }
}

/// Whether the field's first D/2 components are the state's last D/2 (a mechanical system's q̇ = v,
/// as a generated model's field without orientations): A's top rows [0 1] and B's zero, exactly.
fn rates_on_top<const D: usize, const K: usize>(j: &SMatrix<f64, D, D>, b: &SMatrix<f64, D, K>) -> bool {
    let n = D / 2;
    D.is_multiple_of(2)
        && (0..n).all(|i| (0..D).all(|c| j[(i, c)] == if c == n + i { 1.0 } else { 0.0 }) && (0..K).all(|c| b[(i, c)] == 0.0))
}

/// J M, with J's top rows [0 1] where `top` says so ([`rates_on_top`]): then J M's top rows are
/// M's bottom rows, exactly, and only its bottom rows are products.
fn times<const D: usize, const C: usize>(j: &SMatrix<f64, D, D>, m: &SMatrix<f64, D, C>, top: bool) -> SMatrix<f64, D, C> {
    if !top {
        return j * m;
    }
    let n = D / 2;
    let mut out = SMatrix::<f64, D, C>::zeros();
    let (js, ms) = (j.as_slice(), m.as_slice());
    for (c, column) in out.as_mut_slice().chunks_exact_mut(D).enumerate() {
        let mc = &ms[c * D..(c + 1) * D];
        column[..n].copy_from_slice(&mc[n..]);
        for (k, &mk) in mc.iter().enumerate() {
            for (o, &jik) in column[n..].iter_mut().zip(&js[k * D + n..(k + 1) * D]) {
                *o += jik * mk;
            }
        }
    }
    out
}

/// The discrete-time regulator of (A_d, B_d) with the weights `q` and `r` ([`crate::lqr::dare`]).
fn discrete_lqr<const C: usize, const K: usize>(
    (a, b): (&SMatrix<f64, C, C>, &SMatrix<f64, C, K>),
    q: &SMatrix<f64, C, C>,
    r: &SMatrix<f64, K, K>,
) -> Result<crate::lqr::Lqr, crate::lqr::LqrError> {
    let dynamic = |m: &[f64], rows: usize, cols: usize| nalgebra::DMatrix::from_column_slice(rows, cols, m);
    crate::lqr::dare(
        &dynamic(a.as_slice(), C, C),
        &dynamic(b.as_slice(), C, K),
        &dynamic(q.as_slice(), C, C),
        &dynamic(r.as_slice(), K, K),
    )
}

impl<const D: usize, const K: usize> StepJacobian<D, K> {
    /// The discrete-time linear-quadratic regulator of this step about a fixed point of it, with
    /// the weights `q` (D × D, ⪰ 0) and `r` (K × K, ≻ 0): u_k − u₀ = −K (x_k − x*), minimising
    /// Σ (δx_kᵀQδx_k + δu_kᵀRδu_k) ([`crate::lqr::dare`]).
    ///
    /// # Errors
    /// [`LqrError`](crate::lqr::LqrError): bad weights, or no stabilising solution (a model with
    /// orientations: see [`TangentStep::lqr`]).
    pub fn lqr(&self, q: &SMatrix<f64, D, D>, r: &SMatrix<f64, K, K>) -> Result<crate::lqr::Lqr, crate::lqr::LqrError> {
        discrete_lqr((&self.a, &self.b), q, r)
    }
}

/// One step and its Jacobians in the orientations' tangent charts ([`rk4_tangent_step`]).
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub struct TangentStep<const D: usize, const C: usize, const K: usize> {
    /// x_{k+1}, in the state.
    pub next: SVector<f64, D>,
    /// A_d = ∂ξ_{k+1}/∂ξ_k, from the chart about x_k to the chart about x_{k+1}.
    pub a: SMatrix<f64, C, C>,
    /// B_d = ∂ξ_{k+1}/∂u_k.
    pub b: SMatrix<f64, C, K>,
}

impl<const D: usize, const C: usize, const K: usize> TangentStep<D, C, K> {
    /// The discrete-time linear-quadratic regulator of this step in the charts about a fixed point
    /// of it, with the weights `q` (C × C over the charts' components, ⪰ 0) and `r` (K × K, ≻ 0):
    /// u_k − u₀ = −K ξ_k with ξ_k the state's chart coordinates about the fixed point — where
    /// [`StepJacobian::lqr`] in the quaternion state has no stabilising solution (each
    /// quaternion's scale, which no input moves: an eigenvalue 1 of A_d) ([`crate::lqr::dare`]).
    ///
    /// # Errors
    /// [`LqrError`](crate::lqr::LqrError): bad weights, or no stabilising solution.
    pub fn lqr(&self, q: &SMatrix<f64, C, C>, r: &SMatrix<f64, K, K>) -> Result<crate::lqr::Lqr, crate::lqr::LqrError> {
        discrete_lqr((&self.a, &self.b), q, r)
    }
}

/// [`rk4_step`] of a model with orientations in their tangent charts ([`StateLayout::chart`]: each
/// orientation's quaternion charted by its body rotation vector θ and its rate by θ̇ = δω − ω × θ,
/// about x_k before the step and about x_{k+1} after it): A_d = P(x_{k+1}) ∂x_{k+1}/∂x_k E(x_k)
/// and B_d = P(x_{k+1}) ∂x_{k+1}/∂u_k, the error-state model a discrete LQR
/// ([`crate::lqr::dare`]) or MPC designs on — 12 × 12 for a free body, where the quaternion
/// state's 13 × 13 carries the quaternion's scale, which no input moves. The state is `P`
/// positions (the ordinary coordinates, then each orientation's quaternion) and `N` velocities
/// (the ordinary ones, then each orientation's body rates), without action (`D = P + N`,
/// `C = 2N`); a generated model with orientations and inputs calls it as `rk4_step_tangent`.
///
/// # Errors
/// As [`rk4_step`].
pub fn rk4_tangent_step<S, const P: usize, const N: usize, const D: usize, const C: usize, const K: usize>(
    sys: &S,
    t: f64,
    x: &SVector<f64, D>,
    u: &SVector<f64, K>,
    h: f64,
) -> Result<TangentStep<D, C, K>, FieldError>
where
    S: InputJacobians<D, K> + ?Sized,
{
    let step = rk4_step(sys, t, x, u, h)?;
    let (e, p) = (StateLayout::<P, N, D>::chart_embedding::<C>(x), StateLayout::<P, N, D>::chart_inverse::<C>(&step.next));
    // By the charts' non-zero entries (a few per row and column): A_d E, then P times it and B_d.
    let ae = StateLayout::<P, N, D>::times_embedding(&step.a, &e);
    let (mut a, mut b) = (SMatrix::<f64, C, C>::zeros(), SMatrix::<f64, C, K>::zeros());
    for i in 0..C {
        for r in 0..D {
            let v = p[(i, r)];
            if v != 0.0 {
                for c in 0..C {
                    a[(i, c)] += v * ae[(r, c)];
                }
                for c in 0..K {
                    b[(i, c)] += v * step.b[(r, c)];
                }
            }
        }
    }
    // A quaternion of zero length after the step has no chart.
    let finite = a.iter().chain(b.iter()).all(|v| v.is_finite());
    if finite { Ok(TangentStep { next: step.next, a, b }) } else { Err(FieldError::NonFinite { t }) }
}

/// A step map x_{k+1} = Φ_h(t_k, x_k, u_k) with its exact Jacobians: what iLQR plans over
/// ([`crate::ilqr::ilqr`]). Every system with [`InputJacobians`] is one by the classical
/// Runge–Kutta step ([`rk4_step`]), a generated discrete model with inputs by its variational
/// integrator ([`VariationalMap`]). `step`'s x_{k+1} is `advance`'s to the bit (each map here
/// computes both by the same code): iLQR rolls a trajectory out by either — linearised in
/// parallel ([`IlqrProblem::parallel`](crate::ilqr::IlqrProblem::parallel)) its states come from
/// `advance`, one step after another from `step` — and its plans are the same either way.
pub trait StepMap<const D: usize, const K: usize> {
    /// x_{k+1}.
    ///
    /// # Errors
    /// Where the step cannot be taken.
    fn advance(&self, t: f64, x: &SVector<f64, D>, u: &SVector<f64, K>, h: f64) -> Result<SVector<f64, D>, SimError>;
    /// x_{k+1} with A_d and B_d.
    ///
    /// # Errors
    /// Where the step or its Jacobians cannot be taken.
    fn step(&self, t: f64, x: &SVector<f64, D>, u: &SVector<f64, K>, h: f64) -> Result<StepJacobian<D, K>, SimError>;
}

impl<S: InputJacobians<D, K> + ?Sized, const D: usize, const K: usize> StepMap<D, K> for S {
    fn advance(&self, t: f64, x: &SVector<f64, D>, u: &SVector<f64, K>, h: f64) -> Result<SVector<f64, D>, SimError> {
        Ok(rk4(self, t, x, u, h)?)
    }

    fn step(&self, t: f64, x: &SVector<f64, D>, u: &SVector<f64, K>, h: f64) -> Result<StepJacobian<D, K>, SimError> {
        Ok(rk4_step(self, t, x, u, h)?)
    }
}

/// A system whose state is x = (q, v) with q̇ = v: its field's first half is the state's second
/// (`D = 2N`) — a generated model with inputs and neither orientations (whose q̇ = K(q) v) nor an
/// action variable. What the semi-implicit Euler step ([`SemiImplicitEuler`]) is written for.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a second-order system x = (q, v) with q̇ = v: it has no semi-implicit Euler step",
    label = "no `step::SecondOrder`",
    note = "a model with orientations (q̇ = K(q) v) or an action variable steps by RK4: `ilqr(&model, ...)`, \
            `rk4_step`, or `ilqr_tangent` and `rk4_step_tangent` in the orientations' charts"
)]
pub trait SecondOrder {}

/// The semi-implicit Euler step of a second-order system as a step map: the velocities first, then
/// the positions with the new velocities,
///
/// ```text
/// v_{k+1} = v_k + h v̇(t_k, q_k, v_k, u_k),     q_{k+1} = q_k + h v_{k+1}
/// ```
///
/// first order (RK4 is fourth), symplectic where v̇ = f(q) (the Störmer–Verlet family's first
/// member: a separable Hamiltonian's energy error stays bounded instead of drifting) — and one
/// evaluation of the field and of its Jacobians a step where RK4 takes four, the step Jacobians
/// exact for the scheme:
///
/// ```text
/// ∂v_{k+1}/∂x = [0 1] + h ∂v̇/∂x,   ∂v_{k+1}/∂u = h ∂v̇/∂u,   ∂q_{k+1}/∂x = [1 0] + h ∂v_{k+1}/∂x,   ∂q_{k+1}/∂u = h ∂v_{k+1}/∂u
/// ```
///
/// The scheme of robotics' model-predictive control that integrates once a knot (Crocoddyl's
/// `IntegratedActionModelEuler`): `ilqr(&SemiImplicitEuler(&model), ...)`,
/// `mpc.control(&SemiImplicitEuler(&model), t, &x)`.
///
/// ```
/// use routh_runtime::input::InputSystem;
/// use routh_runtime::nalgebra::{Matrix2, SMatrix, Vector1, Vector2};
/// use routh_runtime::step::{InputJacobians, SecondOrder, SemiImplicitEuler, StepMap};
/// use routh_runtime::FieldError;
///
/// // The double integrator ẍ = u: v₁ = v₀ + h u, x₁ = x₀ + h v₁.
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
/// impl SecondOrder for Cart {}
/// let h = 0.1;
/// let step = SemiImplicitEuler(&Cart).step(0.0, &Vector2::new(1.0, 2.0), &Vector1::new(3.0), h)?;
/// assert!((step.next - Vector2::new(1.0 + h * (2.0 + 3.0 * h), 2.0 + 3.0 * h)).amax() < 1e-15);
/// assert!((step.a - Matrix2::new(1.0, h, 0.0, 1.0)).amax() < 1e-15);
/// assert!((step.b - SMatrix::<f64, 2, 1>::new(h * h, h)).amax() < 1e-15);
/// # Ok::<(), routh_runtime::SimError>(())
/// ```
///
/// A system that is not [`SecondOrder`] (a model with orientations, whose q̇ = K(q) v, or with an
/// action variable) has none — a compile error that says so, not a wrong step:
///
/// ```compile_fail
/// use routh_runtime::step::SemiImplicitEuler;
///
/// struct Turning;
/// let _ = SemiImplicitEuler(&Turning);
/// ```
#[derive(Debug, Clone, Copy)]
pub struct SemiImplicitEuler<'a, S: SecondOrder + ?Sized>(pub &'a S);

impl<S, const D: usize, const K: usize> StepMap<D, K> for SemiImplicitEuler<'_, S>
where
    S: InputJacobians<D, K> + SecondOrder + ?Sized,
{
    fn advance(&self, t: f64, x: &SVector<f64, D>, u: &SVector<f64, K>, h: f64) -> Result<SVector<f64, D>, SimError> {
        Ok(semi_implicit_euler(self.0, t, x, u, h)?)
    }

    fn step(&self, t: f64, x: &SVector<f64, D>, u: &SVector<f64, K>, h: f64) -> Result<StepJacobian<D, K>, SimError> {
        Ok(semi_implicit_euler_step(self.0, t, x, u, h)?)
    }
}

/// One semi-implicit Euler step of size `h` from (t, x) with the input `u` held
/// ([`SemiImplicitEuler`]), without Jacobians: [`StepJacobian::next`] of
/// [`semi_implicit_euler_step`], bit for bit.
///
/// # Errors
/// The system's [`FieldError`]s; [`FieldError::NonFinite`] for a non-finite result or step size.
pub fn semi_implicit_euler<S: InputSystem<D, K> + SecondOrder + ?Sized, const D: usize, const K: usize>(
    sys: &S,
    t: f64,
    x: &SVector<f64, D>,
    u: &SVector<f64, K>,
    h: f64,
) -> Result<SVector<f64, D>, FieldError> {
    const { assert!(D.is_multiple_of(2), "a second-order system's state is (q, v)") };
    if !h.is_finite() {
        return Err(FieldError::NonFinite { t });
    }
    let f = sys.field_with_input(t, x, u)?;
    let n = D / 2;
    let mut next = *x;
    for i in 0..n {
        next[n + i] = x[n + i] + h * f[n + i];
        next[i] = x[i] + h * next[n + i];
    }
    if next.iter().all(|v| v.is_finite()) { Ok(next) } else { Err(FieldError::NonFinite { t }) }
}

/// One semi-implicit Euler step with its exact Jacobians ([`SemiImplicitEuler`]): the field's
/// Jacobians at (t, x, u) once.
///
/// # Errors
/// As [`semi_implicit_euler`], and the Jacobians' errors.
pub fn semi_implicit_euler_step<S: InputJacobians<D, K> + SecondOrder + ?Sized, const D: usize, const K: usize>(
    sys: &S,
    t: f64,
    x: &SVector<f64, D>,
    u: &SVector<f64, K>,
    h: f64,
) -> Result<StepJacobian<D, K>, FieldError> {
    let next = semi_implicit_euler(sys, t, x, u, h)?;
    let (j, b) = sys.jacobians(t, x, u)?;
    let n = D / 2;
    let (mut a, mut bd) = (SMatrix::<f64, D, D>::zeros(), SMatrix::<f64, D, K>::zeros());
    for c in 0..D {
        for i in 0..n {
            let dv = h * j[(n + i, c)] + if c == n + i { 1.0 } else { 0.0 };
            a[(n + i, c)] = dv;
            a[(i, c)] = h * dv + if c == i { 1.0 } else { 0.0 };
        }
    }
    for c in 0..K {
        for i in 0..n {
            let dv = h * b[(n + i, c)];
            (bd[(n + i, c)], bd[(i, c)]) = (dv, h * dv);
        }
    }
    let step = StepJacobian { next, a, b: bd };
    if step.a.iter().chain(step.b.iter()).all(|v| v.is_finite()) { Ok(step) } else { Err(FieldError::NonFinite { t }) }
}

/// The variational integrator of a discrete model with inputs as a step map over the state
/// x = (q, p) of positions and discrete momenta (`D = 2N`): each step Newton on the discrete
/// Legendre map at the inputs held ([`discrete_step`], from q_k), its Jacobians A_d, B_d by the
/// implicit function theorem ([`input_step_jacobian`]) — so that iLQR and discrete LQR plan on
/// the structure-preserving integrator (symplectic where the inputs are the only forces).
///
/// ```
/// use routh_runtime::discrete::{DiscreteInputSystem, DiscreteSystem, DrivenDiscrete};
/// use routh_runtime::nalgebra::{Matrix1, Vector1, Vector2};
/// use routh_runtime::step::{StepMap, VariationalMap};
/// use routh_runtime::FieldError;
///
/// // A unit mass pushed by u, midpoint rule: q₁ = q₀ + h p₀ + h² u / 2, p₁ = p₀ + h u.
/// struct Mass;
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
/// impl DrivenDiscrete<1, 1> for Mass {
///     type At<'a> = Pushed;
///     fn at(&self, u: &Vector1<f64>) -> Pushed { Pushed(u[0]) }
/// }
/// let h = 0.1;
/// let step = VariationalMap::<_, 1>::new(&Mass).step(0.0, &Vector2::new(0.0, 1.0), &Vector1::new(2.0), h)?;
/// assert!((step.next - Vector2::new(h + h * h, 1.0 + 2.0 * h)).amax() < 1e-14);
/// assert!((step.b - Vector2::new(h * h / 2.0, h)).amax() < 1e-14);
/// # Ok::<(), routh_runtime::SimError>(())
/// ```
#[derive(Debug, Clone)]
pub struct VariationalMap<'a, M: ?Sized, const N: usize> {
    model: &'a M,
    options: DiscreteOptions,
}

impl<'a, M: ?Sized, const N: usize> VariationalMap<'a, M, N> {
    /// The variational integrator of `model`, Newton with the default [`DiscreteOptions`].
    #[must_use]
    pub fn new(model: &'a M) -> Self {
        VariationalMap { model, options: DiscreteOptions::default() }
    }

    /// Newton's options.
    #[must_use]
    pub fn options(mut self, options: DiscreteOptions) -> Self {
        self.options = options;
        self
    }

    /// (q, p) of a state x of 2N components.
    fn split<const D: usize>(x: &SVector<f64, D>) -> (SVector<f64, N>, SVector<f64, N>) {
        assert_eq!(D, 2 * N, "the state (q, p) of a variational integrator has 2N components");
        (x.fixed_rows::<N>(0).into_owned(), x.fixed_rows::<N>(N).into_owned())
    }

    /// (q, p) as a state of 2N components.
    fn join<const D: usize>(q: &SVector<f64, N>, p: &SVector<f64, N>) -> SVector<f64, D> {
        SVector::<f64, D>::from_fn(|i, _| if i < N { q[i] } else { p[i - N] })
    }
}

impl<M: DrivenDiscrete<N, K> + ?Sized, const N: usize, const D: usize, const K: usize> StepMap<D, K>
    for VariationalMap<'_, M, N>
{
    fn advance(&self, t: f64, x: &SVector<f64, D>, u: &SVector<f64, K>, h: f64) -> Result<SVector<f64, D>, SimError> {
        let (q, p) = Self::split(x);
        let s = discrete_step(&self.model.at(u), (t, h), (&q, &p), q, &self.options)?;
        Ok(Self::join(&s.position, &s.momentum))
    }

    fn step(&self, t: f64, x: &SVector<f64, D>, u: &SVector<f64, K>, h: f64) -> Result<StepJacobian<D, K>, SimError> {
        let (q, p) = Self::split(x);
        let at = self.model.at(u);
        let s = discrete_step(&at, (t, h), (&q, &p), q, &self.options)?;
        let j = input_step_jacobian(&at, t, h, &q, &s.position)?.ok_or_else(|| {
            SimError::InvalidArgument("the discrete system gives no momentum derivatives for the step's Jacobian".into())
        })?;
        Ok(StepJacobian { next: Self::join(&s.position, &s.momentum), a: j.state_matrix::<D>(), b: j.input_matrix::<D>() })
    }
}

/// The contact variational integrator of a contact model with inputs (`action(...)`) as a step
/// map over the state x = (q, p, z) of positions, discrete momenta and the action (`D = 2N + 1`):
/// each step Newton on the contact Legendre map at the inputs held ([`contact_discrete_step`],
/// from q_k), its Jacobians A_d, B_d by the implicit function theorem
/// ([`contact_input_step_jacobian`]) — so that iLQR and discrete LQR plan on the integrator that
/// keeps the contact structure (a contact map where the inputs are the only forces). The action
/// is a state of the map: a cost that does not weigh it leaves it free (its own mode, σ = 1 + D₃L_d
/// per step, is stable where the Lagrangian dissipates).
#[derive(Debug, Clone)]
pub struct ContactMap<'a, M: ?Sized, const N: usize> {
    model: &'a M,
    options: DiscreteOptions,
}

impl<'a, M: ?Sized, const N: usize> ContactMap<'a, M, N> {
    /// The contact integrator of `model`, Newton with the default [`DiscreteOptions`].
    #[must_use]
    pub fn new(model: &'a M) -> Self {
        ContactMap { model, options: DiscreteOptions::default() }
    }

    /// Newton's options.
    #[must_use]
    pub fn options(mut self, options: DiscreteOptions) -> Self {
        self.options = options;
        self
    }

    /// (q, p, z) of a state x of 2N + 1 components.
    fn split<const D: usize>(x: &SVector<f64, D>) -> (SVector<f64, N>, SVector<f64, N>, f64) {
        assert_eq!(D, 2 * N + 1, "the state (q, p, z) of a contact integrator has 2N + 1 components");
        (x.fixed_rows::<N>(0).into_owned(), x.fixed_rows::<N>(N).into_owned(), x[2 * N])
    }

    /// (q, p, z) as a state of 2N + 1 components.
    fn join<const D: usize>(q: &SVector<f64, N>, p: &SVector<f64, N>, z: f64) -> SVector<f64, D> {
        SVector::<f64, D>::from_fn(|i, _| {
            if i < N {
                q[i]
            } else if i < 2 * N {
                p[i - N]
            } else {
                z
            }
        })
    }
}

impl<M: DrivenContactDiscrete<N, K> + ?Sized, const N: usize, const D: usize, const K: usize> StepMap<D, K>
    for ContactMap<'_, M, N>
{
    fn advance(&self, t: f64, x: &SVector<f64, D>, u: &SVector<f64, K>, h: f64) -> Result<SVector<f64, D>, SimError> {
        let (q, p, z) = Self::split(x);
        let (s, z1) = contact_discrete_step(&self.model.at(u), (t, h), (&q, &p, z), q, &self.options)?;
        Ok(Self::join(&s.position, &s.momentum, z1))
    }

    fn step(&self, t: f64, x: &SVector<f64, D>, u: &SVector<f64, K>, h: f64) -> Result<StepJacobian<D, K>, SimError> {
        let (q, p, z) = Self::split(x);
        let at = self.model.at(u);
        let (s, z1) = contact_discrete_step(&at, (t, h), (&q, &p, z), q, &self.options)?;
        let j = contact_input_step_jacobian(&at, t, h, &q, &s.position, z)?.ok_or_else(|| {
            SimError::InvalidArgument("the contact system gives no derivatives of its maps for the step's Jacobian".into())
        })?;
        Ok(StepJacobian { next: Self::join(&s.position, &s.momentum, z1), a: j.state_matrix::<D>(), b: j.input_matrix::<D>() })
    }
}

/// The Lie group variational integrator of a model with orientations and inputs
/// ([`crate::discrete::oriented`]) as a step map over the state x = (q, μ) of its `P` positions
/// (each orientation's quaternion) and `N` momenta in the bodies' axes (`D = P + N`): each step
/// Newton on the increment at the inputs held ([`oriented_step`], from ξ = 0), its Jacobians in
/// the chart (δx, η, δμ) about x_k and x_{k+1} (`C = 2N`, [`oriented_input_step_jacobian`]) — the
/// error-state model a discrete LQR designs on ([`TangentStep::lqr`]) and iLQR plans over
/// ([`crate::ilqr::ilqr_oriented`]), 12 × 12 for a free body.
///
/// ```
/// use routh_runtime::discrete::{DrivenOrientedDiscrete, OrientedDiscreteSystem, OrientedInputSystem, cayley_factor};
/// use routh_runtime::nalgebra::{Matrix3, SVector, Vector3, Vector4};
/// use routh_runtime::step::OrientedMap;
/// use routh_runtime::FieldError;
///
/// // A unit-inertia body turned by a body torque u held over the step, f∓ = (h/2) u: its
/// // L_d = |ξ|²/(2h), μ⁻ = A(ξ) ξ/h − (h/2) u, μ⁺ = A(ξ)ᵀ ξ/h + (h/2) u.
/// struct Satellite;
/// struct Torqued(Vector3<f64>);
/// impl OrientedDiscreteSystem<4, 3> for Torqued {
///     fn left_momentum(&self, _t: f64, h: f64, _q: &Vector4<f64>, xi: &Vector3<f64>) -> Result<(Vector3<f64>, Matrix3<f64>), FieldError> {
///         let d = Matrix3::identity() * (1.0 + 0.25 * xi.norm_squared()) + xi * xi.transpose() * 0.5;
///         Ok((cayley_factor(xi) * xi / h - self.0 * (h / 2.0), d / h))
///     }
///     fn right_momentum(&self, _t: f64, h: f64, _q: &Vector4<f64>, xi: &Vector3<f64>) -> Result<Vector3<f64>, FieldError> {
///         Ok(cayley_factor(xi).transpose() * xi / h + self.0 * (h / 2.0))
///     }
///     fn momentum_derivatives(&self, _t: f64, h: f64, _q: &Vector4<f64>, xi: &Vector3<f64>)
///         -> Option<Result<(Matrix3<f64>, Matrix3<f64>, Matrix3<f64>), FieldError>> {
///         let d = Matrix3::identity() * (1.0 + 0.25 * xi.norm_squared()) + xi * xi.transpose() * 0.5;
///         Some(Ok((Matrix3::zeros(), Matrix3::zeros(), d / h)))
///     }
/// }
/// impl OrientedInputSystem<4, 3, 3> for Torqued {
///     fn momentum_input_derivatives(&self, _t: f64, h: f64, _q: &Vector4<f64>, _xi: &Vector3<f64>)
///         -> Result<(Matrix3<f64>, Matrix3<f64>), FieldError> {
///         Ok((Matrix3::identity() * (-h / 2.0), Matrix3::identity() * (h / 2.0)))
///     }
/// }
/// impl DrivenOrientedDiscrete<4, 3, 3> for Satellite {
///     type At<'a> = Torqued;
///     fn at(&self, u: &Vector3<f64>) -> Torqued { Torqued(*u) }
/// }
/// // At rest, a torque about z: the body's momentum grows by h u; A_d, B_d are in the
/// // 6-dimensional chart (η, δμ) of the 7-dimensional state (q, μ), and at rest without torque a
/// // torque turns the body by h²/2 and its momentum by h per unit.
/// let (h, x) = (0.1, SVector::<f64, 7>::from([1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]));
/// let map = OrientedMap::<_, 4, 3>::new(&Satellite);
/// let next = map.advance(0.0, &x, &Vector3::new(0.0, 0.0, 2.0), h)?;
/// assert!((next[6] - 2.0 * h).abs() < 1e-14);
/// let step = map.step::<7, 6, 3>(0.0, &x, &Vector3::zeros(), h)?;
/// assert!((step.b[(5, 2)] - h).abs() < 1e-14 && (step.b[(2, 2)] - h * h / 2.0).abs() < 1e-14);
/// # Ok::<(), routh_runtime::SimError>(())
/// ```
#[derive(Debug, Clone)]
pub struct OrientedMap<'a, M: ?Sized, const P: usize, const N: usize> {
    model: &'a M,
    options: DiscreteOptions,
}

impl<'a, M: ?Sized, const P: usize, const N: usize> OrientedMap<'a, M, P, N> {
    /// The Lie group variational integrator of `model`, Newton with the default [`DiscreteOptions`].
    #[must_use]
    pub fn new(model: &'a M) -> Self {
        OrientedMap { model, options: DiscreteOptions::default() }
    }

    /// Newton's options.
    #[must_use]
    pub fn options(mut self, options: DiscreteOptions) -> Self {
        self.options = options;
        self
    }

    /// (q, μ) of a state of P + N components.
    fn split<const D: usize>(x: &SVector<f64, D>) -> (SVector<f64, P>, SVector<f64, N>) {
        const { assert!(D == P + N, "the state (q, μ) of a Lie group variational integrator has P + N components") };
        (SVector::from_fn(|i, _| x[i]), SVector::from_fn(|i, _| x[P + i]))
    }

    /// (q, μ) as a state.
    fn join<const D: usize>(q: &SVector<f64, P>, mu: &SVector<f64, N>) -> SVector<f64, D> {
        SVector::<f64, D>::from_fn(|i, _| if i < P { q[i] } else { mu[i - P] })
    }

    /// x_{k+1} from x_k = (q_k, μ_k) with the inputs `u` held over the step of size `h` from `t`.
    ///
    /// # Errors
    /// As [`oriented_step`].
    pub fn advance<const D: usize, const K: usize>(
        &self,
        t: f64,
        x: &SVector<f64, D>,
        u: &SVector<f64, K>,
        h: f64,
    ) -> Result<SVector<f64, D>, SimError>
    where
        M: DrivenOrientedDiscrete<P, N, K>,
    {
        let (q, mu) = Self::split(x);
        let s = oriented_step(&self.model.at(u), (t, h), (&q, &mu), SVector::zeros(), &self.options)?;
        Ok(Self::join(&s.position, &s.momentum))
    }

    /// x_{k+1} (to the bit [`Self::advance`]'s) and A_d, B_d in the charts (δx, η, δμ) about x_k
    /// and x_{k+1} (`C = 2N`).
    ///
    /// # Errors
    /// As [`oriented_step`]; [`SimError::InvalidArgument`] if the system gives no momentum
    /// derivatives.
    pub fn step<const D: usize, const C: usize, const K: usize>(
        &self,
        t: f64,
        x: &SVector<f64, D>,
        u: &SVector<f64, K>,
        h: f64,
    ) -> Result<TangentStep<D, C, K>, SimError>
    where
        M: DrivenOrientedDiscrete<P, N, K>,
    {
        const { assert!(C == 2 * N, "the chart (δx, η, δμ) has 2N components") };
        let (q, mu) = Self::split(x);
        let at = self.model.at(u);
        let s = oriented_step(&at, (t, h), (&q, &mu), SVector::zeros(), &self.options)?;
        let j = oriented_input_step_jacobian(&at, t, h, &q, &s.increment)?.ok_or_else(|| {
            SimError::InvalidArgument("the discrete system gives no momentum derivatives for the step's Jacobian".into())
        })?;
        Ok(TangentStep { next: Self::join(&s.position, &s.momentum), a: j.state_matrix::<C>(), b: j.input_matrix::<C>() })
    }

    /// The chart coordinates x ⊖ y of the state `x` about `y`: the positions as
    /// [`StateLayout::chart_difference`]'s (each orientation by the body rotation vector from y's
    /// attitude to x's), the momenta by their difference — the chart of [`Self::step`]'s Jacobians.
    #[must_use]
    pub fn difference<const D: usize, const C: usize>(x: &SVector<f64, D>, y: &SVector<f64, D>) -> SVector<f64, C> {
        Self::difference_with_jacobian(x, y).0
    }

    /// [`Self::difference`] and its derivative over x moved in its own chart: each orientation's
    /// block J_r⁻¹(θ) ([`StateLayout::chart_difference_with_jacobian`]), the identity elsewhere.
    #[must_use]
    pub fn difference_with_jacobian<const D: usize, const C: usize>(
        x: &SVector<f64, D>,
        y: &SVector<f64, D>,
    ) -> (SVector<f64, C>, SMatrix<f64, C, C>) {
        // The layout's chart with the rates at zero (no turn of θ̇ by ω), the momenta's rows set apart.
        let still = |s: &SVector<f64, D>| SVector::<f64, D>::from_fn(|i, _| if i < P { s[i] } else { 0.0 });
        let (mut xi, g) = StateLayout::<P, N, D>::chart_difference_with_jacobian::<C>(&still(x), &still(y));
        for i in 0..N {
            xi[N + i] = x[P + i] - y[P + i];
        }
        (xi, g)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::{Matrix3, Vector1, Vector3};

    /// x' = A x + B u: RK4's step is the fourth-order Taylor polynomial of e^{hA}, so
    /// A_d = Σ_{j≤4} (hA)ʲ/j! and B_d = Σ_{j≤4} hʲ Aʲ⁻¹ B / j!, exactly.
    struct Linear(Matrix3<f64>, SMatrix<f64, 3, 1>);
    impl InputSystem<3, 1> for Linear {
        fn field_with_input(&self, _t: f64, x: &Vector3<f64>, u: &Vector1<f64>) -> Result<Vector3<f64>, FieldError> {
            Ok(self.0 * x + self.1 * u)
        }
    }
    impl InputJacobians<3, 1> for Linear {
        fn state_jacobian(&self, _t: f64, _x: &Vector3<f64>, _u: &Vector1<f64>) -> Result<Matrix3<f64>, FieldError> {
            Ok(self.0)
        }
        fn input_jacobian(&self, _t: f64, _x: &Vector3<f64>, _u: &Vector1<f64>) -> Result<SMatrix<f64, 3, 1>, FieldError> {
            Ok(self.1)
        }
    }

    /// A body turning about a fixed point, torqued: q̇ = ½ q ⊗ (0, ω), I ω̇ = u − ω × I ω, its
    /// Jacobians by central differences (the test's own, independent of the charts).
    struct Turning(Vector3<f64>);
    impl Turning {
        fn rates(&self, x: &SVector<f64, 7>, u: &Vector3<f64>) -> SVector<f64, 7> {
            let (q, w) = (nalgebra::Quaternion::new(x[0], x[1], x[2], x[3]), Vector3::new(x[4], x[5], x[6]));
            let dq = q * nalgebra::Quaternion::from_imag(w) * 0.5;
            let i = Matrix3::from_diagonal(&self.0);
            let dw = i.try_inverse().expect("an inertia") * (u - w.cross(&(i * w)));
            SVector::<f64, 7>::from([dq.w, dq.i, dq.j, dq.k, dw[0], dw[1], dw[2]])
        }
    }
    impl InputSystem<7, 3> for Turning {
        fn field_with_input(&self, _t: f64, x: &SVector<f64, 7>, u: &Vector3<f64>) -> Result<SVector<f64, 7>, FieldError> {
            Ok(self.rates(x, u))
        }
    }
    impl InputJacobians<7, 3> for Turning {
        fn state_jacobian(&self, _t: f64, x: &SVector<f64, 7>, u: &Vector3<f64>) -> Result<SMatrix<f64, 7, 7>, FieldError> {
            let d = 1e-6;
            Ok(SMatrix::from_fn(|r, c| {
                let e = SVector::<f64, 7>::ith(c, d);
                (self.rates(&(x + e), u)[r] - self.rates(&(x - e), u)[r]) / (2.0 * d)
            }))
        }
        fn input_jacobian(&self, _t: f64, x: &SVector<f64, 7>, u: &Vector3<f64>) -> Result<SMatrix<f64, 7, 3>, FieldError> {
            let d = 1e-6;
            Ok(SMatrix::from_fn(|r, c| {
                let e = Vector3::ith(c, d);
                (self.rates(x, &(u + e))[r] - self.rates(x, &(u - e))[r]) / (2.0 * d)
            }))
        }
    }

    /// The chart's own maps, exact: a state moved by ξ = (θ, θ̇) (q ⊗ exp(θ/2), ω + θ̇ + ω × θ),
    /// and the chart coordinates of a state y about x (θ = 2 log(q̄ ⊗ q_y / |q|²), θ̇ = δω − ω × θ).
    fn moved(x: &SVector<f64, 7>, xi: &SVector<f64, 6>) -> SVector<f64, 7> {
        let (theta, rate) = (Vector3::new(xi[0], xi[1], xi[2]), Vector3::new(xi[3], xi[4], xi[5]));
        let q = nalgebra::Quaternion::new(x[0], x[1], x[2], x[3]) * nalgebra::Quaternion::from_imag(theta * 0.5).exp();
        let w = Vector3::new(x[4], x[5], x[6]);
        let w = w + rate + w.cross(&theta);
        SVector::<f64, 7>::from([q.w, q.i, q.j, q.k, w[0], w[1], w[2]])
    }
    fn chart_of(x: &SVector<f64, 7>, y: &SVector<f64, 7>) -> SVector<f64, 6> {
        let q = nalgebra::Quaternion::new(x[0], x[1], x[2], x[3]);
        let r = q.conjugate() * nalgebra::Quaternion::new(y[0], y[1], y[2], y[3]) / q.norm_squared();
        let v = r.imag();
        let theta = if v.norm() > 0.0 { v * (2.0 * v.norm().atan2(r.w) / v.norm()) } else { v };
        let w = Vector3::new(x[4], x[5], x[6]);
        let rate = Vector3::new(y[4], y[5], y[6]) - w - w.cross(&theta);
        SVector::<f64, 6>::from([theta[0], theta[1], theta[2], rate[0], rate[1], rate[2]])
    }

    /// The step's Jacobians in the charts against central differences of the step itself moved
    /// by the charts' exact maps (exponential and logarithm) — a quaternion off the unit sphere,
    /// turning and torqued; and at rest the discrete regulator (`dare`) the charts admit and the
    /// quaternion state does not.
    #[test]
    fn a_turning_bodys_step_in_its_charts_is_the_differenced_step() {
        let body = Turning(Vector3::new(1.0, 2.0, 3.5));
        let x = SVector::<f64, 7>::from([0.6, 0.2, -0.4, 0.8, 0.7, -1.3, 2.1]);
        let (u, h) = (Vector3::new(0.2, -0.1, 0.3), 0.05);
        let step = rk4_tangent_step::<_, 4, 3, 7, 6, 3>(&body, 0.0, &x, &u, h).expect("a step");
        assert_eq!(step.next, rk4(&body, 0.0, &x, &u, h).expect("a step"));
        let d = 1e-6;
        let scale = step.a.amax();
        for j in 0..6 {
            let e = SVector::<f64, 6>::ith(j, d);
            let after = |xi: &SVector<f64, 6>| chart_of(&step.next, &rk4(&body, 0.0, &moved(&x, xi), &u, h).expect("a step"));
            let column = (after(&e) - after(&-e)) / (2.0 * d);
            assert!((step.a.column(j) - column).amax() < 1e-7 * scale, "A's column {j}: {} against {column}", step.a.column(j));
        }
        for c in 0..3 {
            let e = Vector3::ith(c, d);
            let after = |v: &Vector3<f64>| chart_of(&step.next, &rk4(&body, 0.0, &x, v, h).expect("a step"));
            let column = (after(&(u + e)) - after(&(u - e))) / (2.0 * d);
            assert!((step.b.column(c) - column).amax() < 1e-7 * step.b.amax(), "B's column {c}");
        }
        // The quaternion state's step carries the quaternion's scale along, (q_k, 0) ↦ (q_{k+1}, 0)
        // (the flow is homogeneous in q), a direction the charts leave out.
        let plain = rk4_step(&body, 0.0, &x, &u, h).expect("a step");
        let scale_k = SVector::<f64, 7>::from([x[0], x[1], x[2], x[3], 0.0, 0.0, 0.0]);
        let n = step.next;
        let scale_next = SVector::<f64, 7>::from([n[0], n[1], n[2], n[3], 0.0, 0.0, 0.0]);
        assert!((plain.a * scale_k - scale_next).amax() < 1e-8);
        // At rest that direction is a fixed one no torque moves (eigenvalue 1): the quaternion
        // state's discrete regulator has no stabilising solution, the charts' has.
        let still = SVector::<f64, 7>::from([0.6, 0.2, -0.4, 0.8, 0.0, 0.0, 0.0]);
        let zero = Vector3::zeros();
        let plain = rk4_step(&body, 0.0, &still, &zero, h).expect("a step");
        assert!(plain.lqr(&SMatrix::identity(), &Matrix3::identity()).is_err());
        let charted = rk4_tangent_step::<_, 4, 3, 7, 6, 3>(&body, 0.0, &still, &zero, h).expect("a step");
        let regulator = charted.lqr(&SMatrix::identity(), &Matrix3::identity()).expect("a stabilising gain");
        assert!(regulator.closed_loop.complex_eigenvalues().iter().all(|l| l.norm() < 1.0));
        // The gain is the Riccati equation's: K = (R + Bᵀ X B)⁻¹ Bᵀ X A.
        let (x, a, b) = (
            &regulator.cost,
            nalgebra::DMatrix::from_column_slice(6, 6, charted.a.as_slice()),
            nalgebra::DMatrix::from_column_slice(6, 3, charted.b.as_slice()),
        );
        let gain =
            (nalgebra::DMatrix::identity(3, 3) + b.transpose() * x * &b).lu().solve(&(b.transpose() * x * &a)).expect("regular");
        assert!((gain - &regulator.gain).amax() < 1e-9);
    }

    #[test]
    fn a_linear_systems_step_is_the_taylor_polynomial() {
        let a = Matrix3::new(0.0, 1.0, 0.0, -2.0, -0.3, 1.0, 0.5, 0.0, -1.0);
        let b = SMatrix::<f64, 3, 1>::new(0.0, 1.0, -0.5);
        let h = 0.2;
        let step = rk4_step(&Linear(a, b), 0.0, &Vector3::new(1.0, -1.0, 0.5), &Vector1::new(2.0), h).unwrap();
        let (mut power, mut ad, mut bd, mut factorial) =
            (Matrix3::identity(), Matrix3::identity(), SMatrix::<f64, 3, 1>::zeros(), 1.0);
        for j in 1..=4 {
            factorial *= f64::from(j);
            bd += power * b * (h.powi(j) / factorial);
            power *= a;
            ad += power * (h.powi(j) / factorial);
        }
        assert!((step.a - ad).amax() < 1e-15 && (step.b - bd).amax() < 1e-15, "{} {}", step.a - ad, step.b - bd);
    }

    /// A driven pendulum with a state-dependent input gain, θ̈ = −sin θ − c θ̇ + u cos θ: the step's
    /// Jacobians against central differences of the step itself.
    struct Pendulum;
    impl InputSystem<2, 1> for Pendulum {
        fn field_with_input(&self, t: f64, x: &SVector<f64, 2>, u: &Vector1<f64>) -> Result<SVector<f64, 2>, FieldError> {
            Ok(SVector::<f64, 2>::new(x[1], -x[0].sin() - 0.2 * x[1] + u[0] * x[0].cos() + 0.1 * t))
        }
    }
    impl InputJacobians<2, 1> for Pendulum {
        fn state_jacobian(&self, _t: f64, x: &SVector<f64, 2>, u: &Vector1<f64>) -> Result<SMatrix<f64, 2, 2>, FieldError> {
            Ok(SMatrix::<f64, 2, 2>::new(0.0, 1.0, -x[0].cos() - u[0] * x[0].sin(), -0.2))
        }
        fn input_jacobian(&self, _t: f64, x: &SVector<f64, 2>, _u: &Vector1<f64>) -> Result<SMatrix<f64, 2, 1>, FieldError> {
            Ok(SMatrix::<f64, 2, 1>::new(0.0, x[0].cos()))
        }
    }

    /// A scheme's step of the test pendulum at t = 0.4 from (1.1, −0.4) with u = 0.7, h = 0.05:
    /// its Jacobians (`with`) against central differences of the step without them (`without`),
    /// which is the same step, bit for bit; a step size that is not finite is an error.
    type WithJacobians = fn(&Pendulum, f64, &SVector<f64, 2>, &Vector1<f64>, f64) -> Result<StepJacobian<2, 1>, FieldError>;
    type Without = fn(&Pendulum, f64, &SVector<f64, 2>, &Vector1<f64>, f64) -> Result<SVector<f64, 2>, FieldError>;
    fn assert_jacobians_of_the_step(with: WithJacobians, without: Without) {
        let (t, h) = (0.4, 0.05);
        let x = SVector::<f64, 2>::new(1.1, -0.4);
        let u = Vector1::new(0.7);
        let step = with(&Pendulum, t, &x, &u, h).unwrap();
        let next = |x: SVector<f64, 2>, u: f64| without(&Pendulum, t, &x, &Vector1::new(u), h).unwrap();
        let d = 1e-6;
        for c in 0..2 {
            let e = SVector::<f64, 2>::ith(c, d);
            let fd = (next(x + e, u[0]) - next(x - e, u[0])) / (2.0 * d);
            assert!((step.a.column(c) - fd).amax() < 1e-9, "column {c}: {} vs {fd}", step.a.column(c));
        }
        let fd = (next(x, u[0] + d) - next(x, u[0] - d)) / (2.0 * d);
        assert!((step.b.column(0) - fd).amax() < 1e-9);
        assert_eq!(next(x, u[0]), step.next);
        assert!(matches!(with(&Pendulum, t, &x, &u, f64::NAN), Err(FieldError::NonFinite { .. })));
        assert!(matches!(without(&Pendulum, t, &x, &u, f64::INFINITY), Err(FieldError::NonFinite { .. })));
    }

    #[test]
    fn a_nonlinear_steps_jacobians_match_differences_of_the_step() {
        assert_jacobians_of_the_step(rk4_step, rk4);
    }

    impl SecondOrder for Pendulum {}

    #[test]
    fn a_semi_implicit_euler_steps_jacobians_match_differences_of_the_step() {
        assert_jacobians_of_the_step(semi_implicit_euler_step, semi_implicit_euler);
    }

    /// θ̈ = −sin θ, a separable Hamiltonian H = ½ θ̇² − cos θ.
    struct Swing;
    impl InputSystem<2, 1> for Swing {
        fn field_with_input(&self, _t: f64, x: &SVector<f64, 2>, _u: &Vector1<f64>) -> Result<SVector<f64, 2>, FieldError> {
            Ok(SVector::<f64, 2>::new(x[1], -x[0].sin()))
        }
    }
    impl InputJacobians<2, 1> for Swing {
        fn state_jacobian(&self, _t: f64, x: &SVector<f64, 2>, _u: &Vector1<f64>) -> Result<SMatrix<f64, 2, 2>, FieldError> {
            Ok(SMatrix::<f64, 2, 2>::new(0.0, 1.0, -x[0].cos(), 0.0))
        }
        fn input_jacobian(&self, _t: f64, _x: &SVector<f64, 2>, _u: &Vector1<f64>) -> Result<SMatrix<f64, 2, 1>, FieldError> {
            Ok(SMatrix::<f64, 2, 1>::zeros())
        }
    }
    impl SecondOrder for Swing {}

    /// The scheme is first order (halving h halves the error at t = 2 against RK4 with a thousandth
    /// of the step) and symplectic on a separable Hamiltonian: over 20 000 steps of the swinging
    /// pendulum its energy error stays within O(h) and does not grow, where explicit Euler's (the
    /// positions moved with the old velocities) grows without bound.
    #[test]
    fn semi_implicit_euler_is_first_order_and_keeps_a_swings_energy() {
        let (x0, u) = (SVector::<f64, 2>::new(1.2, 0.0), Vector1::zeros());
        let flow = |h: f64, steps: usize, step: &dyn Fn(&SVector<f64, 2>, f64) -> SVector<f64, 2>| {
            (0..steps).fold(x0, |x, _| step(&x, h))
        };
        let euler = |x: &SVector<f64, 2>, h: f64| semi_implicit_euler(&Swing, 0.0, x, &u, h).unwrap();
        let exact = flow(2e-5, 100_000, &|x, h| rk4(&Swing, 0.0, x, &u, h).unwrap());
        let (coarse, fine) = ((flow(0.02, 100, &euler) - exact).amax(), (flow(0.01, 200, &euler) - exact).amax());
        assert!((1.8..2.2).contains(&(coarse / fine)), "errors {coarse:e} and {fine:e}");
        let energy = |x: &SVector<f64, 2>| 0.5 * x[1] * x[1] - x[0].cos();
        let e0 = energy(&x0);
        let h = 0.05;
        let drift = |step: &dyn Fn(&SVector<f64, 2>) -> SVector<f64, 2>| {
            let mut x = x0;
            let mut worst = [0.0_f64; 2];
            for k in 0..20_000 {
                x = step(&x);
                worst[k / 10_000] = worst[k / 10_000].max((energy(&x) - e0).abs());
            }
            worst
        };
        let kept = drift(&|x| euler(x, h));
        assert!(kept[1] < 0.05 && kept[1] < 1.5 * kept[0], "semi-implicit Euler's energy error {kept:?}");
        let explicit = drift(&|x| x + Swing.field_with_input(0.0, x, &u).unwrap() * h);
        assert!(explicit[1] > 10.0 * kept[1] && explicit[1] > 1.5 * explicit[0], "explicit Euler's {explicit:?}");
    }

    /// A field whose first half is the state's second (q̇ = v): J M by its bottom rows alone is J M
    /// (the top rows M's bottom rows exactly), and a J or B without that structure is not taken
    /// for one.
    #[test]
    fn a_mechanical_fields_products_skip_the_rates_rows() {
        let bottom = SMatrix::<f64, 2, 4>::new(0.3, -1.2, 0.7, 2.5, -0.4, 0.9, 1.6, -0.8);
        let mut j = SMatrix::<f64, 4, 4>::zeros();
        (j[(0, 2)], j[(1, 3)]) = (1.0, 1.0);
        j.fixed_rows_mut::<2>(2).copy_from(&bottom);
        let m = SMatrix::<f64, 4, 3>::from_fn(|r, c| (r as f64 + 1.3 * c as f64).sin());
        let b = SMatrix::<f64, 4, 1>::new(0.0, 0.0, 0.5, -1.0);
        assert!(rates_on_top(&j, &b));
        let (fast, plain) = (times(&j, &m, true), j * m);
        assert_eq!(fast.fixed_rows::<2>(0), m.fixed_rows::<2>(2));
        assert!((fast - plain).amax() <= 1e-15 * plain.amax());
        let mut turned = j;
        turned[(0, 1)] = 1e-300;
        assert!(!rates_on_top(&turned, &b));
        let mut pushed = b;
        pushed[0] = 0.1;
        assert!(!rates_on_top(&j, &pushed));
        assert!(!rates_on_top(&SMatrix::<f64, 3, 3>::identity(), &SMatrix::<f64, 3, 1>::zeros()));
    }
}
