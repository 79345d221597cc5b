//! Saddle-point systems of mechanics: the constrained equations of motion
//! `[M −Aᵀ; A 0] [q̈; λ] = [f; −c]` ([`solve_constrained`]) and restitution laws
//! `[M −Aᵀ; A 0] [q̇⁺; λ] = [M q̇⁻; −E(A q̇⁻ + b) − b]` ([`restitution`]), each solved once and
//! reused for its Jacobian by the implicit function theorem (see the [module docs](super)).

use nalgebra::{SMatrix, SVector};

use super::linalg::{LuFactor, MassFactor};
use super::{StateDim, all_finite, has_action};
use crate::error::FieldError;

/// The saddle-point matrix `[M −Gᵀ; G D]` of the rows of `a` that are `active`: G is `a` with the
/// inactive rows replaced by zeros and D the identity on those rows (so their multiplier is 0),
/// zero on the active ones.
pub(crate) fn saddle_matrix<const N: usize, const K: usize, const NK: usize>(
    m: &SMatrix<f64, N, N>,
    a: &SMatrix<f64, K, N>,
    active: impl Fn(usize) -> bool,
) -> SMatrix<f64, NK, NK> {
    let () = SaddleDim::<N, K, NK>::OK;
    let mut kkt = SMatrix::<f64, NK, NK>::zeros();
    kkt.fixed_view_mut::<N, N>(0, 0).copy_from(m);
    for r in 0..K {
        if active(r) {
            for i in 0..N {
                kkt[(i, N + r)] = -a[(r, i)];
                kkt[(N + r, i)] = a[(r, i)];
            }
        } else {
            kkt[(N + r, N + r)] = 1.0;
        }
    }
    kkt
}

/// Factor `[M −Aᵀ; A 0]` and solve it for `[top; bottom]`.
///
/// # Errors
/// [`FieldError::SingularMassMatrix`] if `m` is singular, [`FieldError::SingularConstraints`] if
/// the rows of `a` are dependent, [`FieldError::NonFinite`] for a non-finite solution.
fn saddle_point<const N: usize, const K: usize, const NK: usize>(
    t: f64,
    m: &SMatrix<f64, N, N>,
    a: &SMatrix<f64, K, N>,
    top: &SVector<f64, N>,
    bottom: &SVector<f64, K>,
    rows: &'static [&'static str],
) -> Result<(SVector<f64, NK>, LuFactor<NK>), FieldError> {
    if !(all_finite(m) && all_finite(a) && all_finite(top) && all_finite(bottom)) {
        return Err(FieldError::NonFinite { t });
    }
    let kkt = saddle_matrix::<N, K, NK>(m, a, |_| true);
    let rhs = SVector::<f64, NK>::from_fn(|i, _| if i < N { top[i] } else { bottom[i - N] });
    let kkt = match LuFactor::new(kkt) {
        Ok(f) => f,
        Err(_) if MassFactor::new(*m).is_err() => return Err(FieldError::SingularMassMatrix { t }),
        Err(_) => return Err(FieldError::SingularConstraints { t, rows }),
    };
    let sol = kkt.solve(rhs).map_err(|_| FieldError::NonFinite { t })?;
    Ok((sol, kkt))
}

/// The solved constrained equations of motion at one state (see [`solve_constrained`]).
#[derive(Debug, Clone, Copy)]
pub struct ConstrainedSolution<const N: usize, const M: usize, const NM: usize> {
    /// Accelerations q̈.
    pub accelerations: SVector<f64, N>,
    /// Multipliers λ: the constraint force is Aᵀλ.
    pub multipliers: SVector<f64, M>,
    kkt: LuFactor<NM>,
    t: f64,
    rows: &'static [&'static str],
}

/// The constrained equations of motion `M q̈ = f + Aᵀλ`, `A q̈ + c = 0` (rows `a`, bias `c`), as
/// the saddle-point system `[M −Aᵀ; A 0] [q̈; λ] = [f; −c]`; `rows` names the constraints.
///
/// ```
/// use routh_runtime::mechanics::solve_constrained;
/// use routh_runtime::nalgebra::{SMatrix, SVector};
///
/// // A unit mass on the line y = x under gravity: q̈ = (−g/2, −g/2), the normal force λ(−1, 1)
/// // with λ = g/2.
/// let m = SMatrix::<f64, 2, 2>::identity();
/// let a = SMatrix::<f64, 1, 2>::new(-1.0, 1.0);
/// let f = SVector::<f64, 2>::new(0.0, -9.81);
/// let sol = solve_constrained::<2, 1, 3>(0.0, m, a, f, SVector::zeros(), &["line"])?;
/// assert!((sol.accelerations - SVector::<f64, 2>::new(-4.905, -4.905)).norm() < 1e-14);
/// assert!((sol.multipliers[0] - 4.905).abs() < 1e-14);
/// # Ok::<(), routh_runtime::FieldError>(())
/// ```
///
/// # Errors
/// [`FieldError::SingularMassMatrix`] if `m` is singular, [`FieldError::SingularConstraints`] if
/// the rows are dependent, [`FieldError::NonFinite`] for a non-finite solution.
pub fn solve_constrained<const N: usize, const M: usize, const NM: usize>(
    t: f64,
    m: SMatrix<f64, N, N>,
    a: SMatrix<f64, M, N>,
    f: SVector<f64, N>,
    bias: SVector<f64, M>,
    rows: &'static [&'static str],
) -> Result<ConstrainedSolution<N, M, NM>, FieldError> {
    let (sol, kkt) = saddle_point::<N, M, NM>(t, &m, &a, &f, &(-bias), rows)?;
    Ok(ConstrainedSolution {
        accelerations: SVector::from_fn(|i, _| sol[i]),
        multipliers: SVector::from_fn(|r, _| sol[N + r]),
        kkt,
        t,
        rows,
    })
}

impl<const N: usize, const M: usize, const NM: usize> ConstrainedSolution<N, M, NM> {
    /// `∂F/∂x` of the constrained first-order field from `∂R/∂x` of the saddle-point residual
    /// R = (M q̈ − Aᵀλ − f, A q̈ + c) at the solution (`dr_dx`, `(N + M) × D`):
    /// `∂(q̈, λ)/∂x = −K⁻¹ ∂R/∂x`, reusing the factorisation.
    ///
    /// # Errors
    /// [`FieldError::SingularConstraints`] if the sensitivities are not finite.
    pub fn field_jacobian<const D: usize>(&self, dr_dx: SMatrix<f64, NM, D>) -> Result<SMatrix<f64, D, D>, FieldError> {
        // ∂q/∂x of the field is [0 I]: the identity sits at column N + i of row i. The row of ż = L
        // (contact systems) is the caller's (see [`set_action_row`]).
        velocity_rows_jacobian::<N, NM, D>(&self.kkt, dr_dx, self.t, self.rows, N)
    }
}

impl<const N: usize, const M: usize, const NM: usize> ConstrainedSolution<N, M, NM> {
    /// The accelerations' sensitivities ∂q̈/∂w to quantities w outside the state (inputs,
    /// parameters), from ∂R/∂w of the saddle-point residual: the first N rows of −K⁻¹ ∂R/∂w.
    ///
    /// # Errors
    /// [`FieldError::SingularConstraints`] if the sensitivities are not finite.
    pub fn acceleration_sensitivity<const W: usize>(&self, dr_dw: SMatrix<f64, NM, W>) -> Result<SMatrix<f64, N, W>, FieldError> {
        let (t, rows) = (self.t, self.rows);
        let sens = self.kkt.solve(-dr_dw).map_err(|_| FieldError::SingularConstraints { t, rows })?;
        Ok(SMatrix::<f64, N, W>::from_fn(|i, c| sens[(i, c)]))
    }

    /// The multipliers' gradients ∂λ/∂x and their rates λ̇ = ∂λ/∂x·F + ∂λ/∂t along the motion,
    /// from ∂R/∂x and ∂R/∂t of the saddle-point residual (implicit function theorem), at the state
    /// `x` whose field is `f`.
    ///
    /// # Errors
    /// [`FieldError::SingularConstraints`] if the sensitivities are not finite.
    pub fn multiplier_rates<const D: usize>(
        &self,
        dr_dx: SMatrix<f64, NM, D>,
        dr_dt: SVector<f64, NM>,
        f: &SVector<f64, D>,
    ) -> Result<(SMatrix<f64, M, D>, SVector<f64, M>), FieldError> {
        let () = StateDim::<N, D>::OK;
        let (t, rows) = (self.t, self.rows);
        let singular = |_| FieldError::SingularConstraints { t, rows };
        let sens = self.kkt.solve(-dr_dx).map_err(singular)?;
        let sens_t = self.kkt.solve(-dr_dt).map_err(singular)?;
        let grad = SMatrix::<f64, M, D>::from_fn(|k, c| sens[(N + k, c)]);
        let rates = SVector::<f64, M>::from_fn(|k, _| (0..D).map(|c| sens[(N + k, c)] * f[c]).sum::<f64>() + sens_t[N + k]);
        Ok((grad, rates))
    }
}

/// A D × D Jacobian whose rows i < N are the unit rows e_{offset + i} and whose rows N + i are
/// the velocity sensitivities −(K⁻¹ ∂R/∂x)ᵢ of a saddle-point solution (implicit function
/// theorem, reusing the factorisation of K). For a reset (`offset` 0) the action z of a contact
/// system is kept (unit row); for a field (`offset` N) its row is left zero.
fn velocity_rows_jacobian<const N: usize, const NM: usize, const D: usize>(
    kkt: &LuFactor<NM>,
    dr_dx: SMatrix<f64, NM, D>,
    t: f64,
    rows: &'static [&'static str],
    offset: usize,
) -> Result<SMatrix<f64, D, D>, FieldError> {
    let () = StateDim::<N, D>::OK;
    let sens = kkt.solve(-dr_dx).map_err(|_| FieldError::SingularConstraints { t, rows })?;
    let mut jac = SMatrix::<f64, D, D>::zeros();
    for i in 0..N {
        jac[(i, offset + i)] = 1.0;
        for c in 0..D {
            jac[(N + i, c)] = sens[(i, c)];
        }
    }
    if offset == 0 && has_action::<N, D>() {
        jac[(2 * N, 2 * N)] = 1.0;
    }
    Ok(jac)
}

/// How a declared constraint integrates (reported by the derive's Frobenius test).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ConstraintKind {
    /// Declared `holonomic(...)`: a position constraint f(t, q) = 0.
    Holonomic,
    /// A velocity constraint that is secretly holonomic: its one-form α satisfies α ∧ dα = 0, so
    /// it is the derivative of a position constraint (write it as `holonomic(...)`).
    Integrable,
    /// A genuinely nonholonomic velocity constraint (α ∧ dα ≢ 0).
    Nonholonomic,
}

/// The solved saddle-point system of a restitution law (see [`restitution`]).
#[derive(Debug, Clone, Copy)]
pub struct Restitution<const N: usize, const K: usize, const NK: usize> {
    /// Post-impact velocities q̇⁺.
    pub velocities: SVector<f64, N>,
    /// Impulse multipliers λ (the impulse is `Aᵀλ`).
    pub impulses: SVector<f64, K>,
    kkt: LuFactor<NK>,
    t: f64,
    rows: &'static [&'static str],
}

/// Compile-time check that `NK = N + K`.
struct SaddleDim<const N: usize, const K: usize, const NK: usize>;

impl<const N: usize, const K: usize, const NK: usize> SaddleDim<N, K, NK> {
    const OK: () = assert!(NK == N + K, "the saddle-point system of N velocities and K rows has size N + K");
}

/// Solve a restitution law at `(t, x)`: mass matrix `m`, rows `a` (`K × N`) with `dt` parts `b`,
/// coefficients `e`; `rows` names the rows for errors. See the [module docs](crate::mechanics).
///
/// # Errors
/// [`FieldError::SingularMassMatrix`] if `m` is singular, [`FieldError::SingularConstraints`]
/// if the rows are linearly dependent, [`FieldError::NonFinite`] for a non-finite solution.
pub fn restitution<const N: usize, const K: usize, const NK: usize, const D: usize>(
    t: f64,
    m: SMatrix<f64, N, N>,
    a: SMatrix<f64, K, N>,
    b: SVector<f64, K>,
    e: SVector<f64, K>,
    x: &SVector<f64, D>,
    rows: &'static [&'static str],
) -> Result<Restitution<N, K, NK>, FieldError> {
    let () = StateDim::<N, D>::OK;
    let () = SaddleDim::<N, K, NK>::OK;
    let v = SVector::<f64, N>::from_fn(|i, _| x[N + i]);
    let mut bottom = SVector::<f64, K>::zeros();
    for r in 0..K {
        let mut rel = b[r];
        for j in 0..N {
            rel += a[(r, j)] * v[j];
        }
        bottom[r] = -e[r] * rel - b[r];
    }
    let (sol, kkt) = saddle_point::<N, K, NK>(t, &m, &a, &(m * v), &bottom, rows)?;
    Ok(Restitution { velocities: SVector::from_fn(|i, _| sol[i]), impulses: SVector::from_fn(|r, _| sol[N + r]), kkt, t, rows })
}

impl<const N: usize, const K: usize, const NK: usize> Restitution<N, K, NK> {
    /// The post-impact state: positions (and action) of `x`, velocities q̇⁺.
    #[must_use]
    pub fn post_state<const D: usize>(&self, x: &SVector<f64, D>) -> SVector<f64, D> {
        let () = StateDim::<N, D>::OK;
        let mut post = *x;
        for i in 0..N {
            post[N + i] = self.velocities[i];
        }
        post
    }

    /// The reset's Jacobian `∂Δ/∂x` from `∂R/∂x` of the law's residual at the solution
    /// (`dr_dx`, `(N + K) × D`): positions are kept, `∂q̇⁺/∂x` are the first `N` rows of
    /// `−K⁻¹ ∂R/∂x`.
    ///
    /// # Errors
    /// [`FieldError::SingularConstraints`] if the sensitivities are not finite.
    pub fn reset_jacobian<const D: usize>(&self, dr_dx: SMatrix<f64, NK, D>) -> Result<SMatrix<f64, D, D>, FieldError> {
        // Positions are kept: the identity sits at column i of row i.
        velocity_rows_jacobian::<N, NK, D>(&self.kkt, dr_dx, self.t, self.rows, 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mechanics::state;
    use nalgebra::Matrix2;

    #[test]
    fn restitution_is_newtons_law_and_reports_dependent_rows() {
        // Mass matrix diag(1, 4), wall normal (1, 1): q̇⁺ = q̇⁻ − (1+e) M⁻¹n (n·q̇⁻)/(nᵀM⁻¹n).
        let m = Matrix2::new(1.0, 0.0, 0.0, 4.0);
        let n = SMatrix::<f64, 1, 2>::new(1.0, 1.0);
        let x: SVector<f64, 4> = state([0.3, 0.1], [-1.0, -0.5]);
        let e = 0.7;
        let law = restitution::<2, 1, 3, 4>(0.0, m, n, SVector::zeros(), SVector::from([e]), &x, &["wall"]).unwrap();
        let v = SVector::<f64, 2>::new(-1.0, -0.5);
        let minv_n = SVector::<f64, 2>::new(1.0, 0.25);
        let expected = v - (1.0 + e) * minv_n * (-1.5) / 1.25;
        assert!((law.velocities - expected).norm() < 1e-14);
        // Two copies of one row are dependent: a typed error naming the rows, not a NaN.
        let a = SMatrix::<f64, 2, 2>::new(1.0, 1.0, 2.0, 2.0);
        let err = restitution::<2, 2, 4, 4>(1.5, m, a, SVector::zeros(), SVector::zeros(), &x, &["a", "b"]).unwrap_err();
        assert_eq!(err, FieldError::SingularConstraints { t: 1.5, rows: &["a", "b"] });
        // A singular mass matrix is reported as such.
        let err =
            restitution::<2, 1, 3, 4>(2.0, Matrix2::zeros(), n, SVector::zeros(), SVector::from([e]), &x, &["wall"]).unwrap_err();
        assert_eq!(err, FieldError::SingularMassMatrix { t: 2.0 });
    }
}
