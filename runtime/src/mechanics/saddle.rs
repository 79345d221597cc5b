//! Saddle-point systems of mechanics: the constrained equations of motion
//! `[M −Aᵀ; A 0] [q̈; λ] = [f; −c]` ([`solve_constrained`]) and restitution laws
//! `[M −Aᵀ; A 0] [q̇⁺; λ] = [M q̇⁻; −E(A q̇⁻ + b) − b]` ([`restitution`]), each solved once and
//! reused for its Jacobian by the implicit function theorem (see the [module docs](super)).
//!
//! The solve asks the model's [`MassOperator`] for solutions with M and never for M itself, by
//! the Schur complement of M:
//!
//! ```text
//! [ M  −Aᵀ ] [ u ]   [ r₁ ]        Y = M⁻¹Aᵀ,   S = A Y,
//! [ A   0  ] [ μ ] = [ r₂ ]   ⇔    μ = S⁻¹ (r₂ − A M⁻¹ r₁),   u = M⁻¹ r₁ + Y μ.
//! ```
//!
//! S is symmetric and positive definite when M is and the rows are independent, and is factored
//! like a mass matrix (square-root-free Cholesky, LU where that fails).
//!
//! One factorisation of M (dense today, a recursive one along a kinematic tree later) and one
//! of the small `K × K` matrix S serve the solution and every sensitivity after it. M singular is
//! [`FieldError::SingularMassMatrix`] (from the operator), S singular — dependent rows — is
//! [`FieldError::SingularConstraints`].

use nalgebra::{SMatrix, SVector};

use super::linalg::{MassFactor, MassOperator};
use super::{SplitDim, StateDim, all_finite};
use crate::error::FieldError;

/// The factored saddle-point matrix `[M −Gᵀ; G D]` of the rows of `a` that are `active`: G is `a`
/// with the inactive rows replaced by zeros and D the identity on those rows (so their
/// multiplier is 0), zero on the active ones. Factored as in the [module docs](self).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Saddle<F, const N: usize, const K: usize> {
    mass: F,
    /// G: the active rows of A, zeros elsewhere.
    g: SMatrix<f64, K, N>,
    /// Y = M⁻¹Gᵀ.
    y: SMatrix<f64, N, K>,
    /// S = G M⁻¹ Gᵀ, with 1 on the diagonal of the inactive rows: symmetric positive definite
    /// for a positive definite M and independent rows, so factored like a mass matrix (Cholesky,
    /// LU where that fails).
    schur: MassFactor<K>,
    active: [bool; K],
}

impl<F: MassOperator<N>, const N: usize, const K: usize> Saddle<F, N, K> {
    /// Factor the saddle-point matrix of `mass` and the `active` rows of `a`.
    ///
    /// # Errors
    /// [`FieldError::NonFinite`] for non-finite rows, [`FieldError::SingularMassMatrix`] if the
    /// operator's solves are not finite, [`FieldError::SingularConstraints`] (naming `rows`) if
    /// the active rows are dependent.
    pub(crate) fn new(
        t: f64,
        mass: F,
        a: &SMatrix<f64, K, N>,
        active: impl Fn(usize) -> bool,
        rows: &'static [&'static str],
    ) -> Result<Self, FieldError> {
        if !all_finite(a) {
            return Err(FieldError::NonFinite { t });
        }
        let active: [bool; K] = std::array::from_fn(active);
        let g = SMatrix::<f64, K, N>::from_fn(|r, i| if active[r] { a[(r, i)] } else { 0.0 });
        let y = mass.solve(g.transpose()).map_err(|_| FieldError::SingularMassMatrix { t })?;
        let mut s = g * y;
        for (r, _) in active.iter().enumerate().filter(|(_, on)| !**on) {
            s[(r, r)] = 1.0;
        }
        let schur = MassFactor::new(s).map_err(|_| FieldError::SingularConstraints { t, rows })?;
        Ok(Saddle { mass, g, y, schur, active })
    }

    /// Solve `[M −Gᵀ; G D] [U; μ] = [R₁; R₂]` for `C` columns at once (the entries of `R₂` on
    /// inactive rows are ignored: their μ is 0).
    fn solve<const C: usize>(
        &self,
        r1: SMatrix<f64, N, C>,
        r2: &SMatrix<f64, K, C>,
    ) -> Result<(SMatrix<f64, N, C>, SMatrix<f64, K, C>), crate::error::SingularMatrix> {
        let w = self.mass.solve(r1)?;
        let mut rhs = r2 - self.g * w;
        for (r, _) in self.active.iter().enumerate().filter(|(_, on)| !**on) {
            rhs.row_mut(r).fill(0.0);
        }
        let mu = self.schur.solve(rhs)?;
        Ok((w + self.y * mu, mu))
    }

    /// The correction Δ of `[M −Gᵀ; G D] [Δ; μ] = [0; r]`: the M-orthogonal Δ with `G Δ = r` on
    /// the active rows.
    pub(crate) fn correction(&self, r: &SVector<f64, K>) -> Result<SVector<f64, N>, crate::error::SingularMatrix> {
        Ok(self.solve(SVector::<f64, N>::zeros(), r)?.0)
    }

    /// Solve with the stacked right-hand side `[R₁; R₂]` (`NK = N + K` rows) and return the
    /// stacked solution `[U; μ]`.
    fn solve_stacked<const NK: usize, const C: usize>(
        &self,
        r: &SMatrix<f64, NK, C>,
    ) -> Result<SMatrix<f64, NK, C>, crate::error::SingularMatrix> {
        let () = SaddleDim::<N, K, NK>::OK;
        let r1 = SMatrix::<f64, N, C>::from_fn(|i, c| r[(i, c)]);
        let r2 = SMatrix::<f64, K, C>::from_fn(|k, c| r[(N + k, c)]);
        let (u, mu) = self.solve(r1, &r2)?;
        Ok(SMatrix::<f64, NK, C>::from_fn(|i, c| if i < N { u[(i, c)] } else { mu[(i - N, c)] }))
    }
}

/// A solved saddle point: the top and bottom blocks of the solution, and the factorisation.
type Solved<F, const N: usize, const K: usize> = (SVector<f64, N>, SVector<f64, K>, Saddle<F, N, K>);

/// Factor `[M −Aᵀ; A 0]` and solve it for `[top; bottom]`.
///
/// # Errors
/// As [`Saddle::new`], and [`FieldError::NonFinite`] for a non-finite solution.
fn saddle_point<F: MassOperator<N>, const N: usize, const K: usize>(
    t: f64,
    mass: F,
    a: &SMatrix<f64, K, N>,
    top: SVector<f64, N>,
    bottom: &SVector<f64, K>,
    rows: &'static [&'static str],
) -> Result<Solved<F, N, K>, FieldError> {
    if !(all_finite(&top) && all_finite(bottom)) {
        return Err(FieldError::NonFinite { t });
    }
    let saddle = Saddle::new(t, mass, a, |_| true, rows)?;
    let (u, mu) = saddle.solve(top, bottom).map_err(|_| FieldError::NonFinite { t })?;
    Ok((u, mu, saddle))
}

/// The solved constrained equations of motion at one state (see [`solve_constrained`]).
#[derive(Debug, Clone, Copy)]
pub struct ConstrainedSolution<const N: usize, const M: usize, const NM: usize, F = MassFactor<N>> {
    /// Accelerations q̈.
    pub accelerations: SVector<f64, N>,
    /// Multipliers λ: the constraint force is Aᵀλ.
    pub multipliers: SVector<f64, M>,
    saddle: Saddle<F, N, M>,
    t: f64,
    rows: &'static [&'static str],
}

/// The constrained equations of motion `M q̈ = f + Aᵀλ`, `A q̈ + c = 0` (`constraints` = the rows
/// `a` and the bias `c`), as
/// the saddle-point system `[M −Aᵀ; A 0] [q̈; λ] = [f; −c]`, solved with the model's mass operator
/// by the Schur complement of M — with Y = M⁻¹Aᵀ and S = A Y (factored like a mass matrix),
/// λ = −S⁻¹(c + A M⁻¹ f) and q̈ = M⁻¹ f + Y λ, so M itself is never needed; `rows` names the
/// constraints.
///
/// ```
/// use routh_runtime::mechanics::solve_constrained;
/// use routh_runtime::nalgebra::{SMatrix, SVector};
/// use routh_runtime::MassFactor;
///
/// // A unit mass on the line y = x under gravity: q̈ = (−g/2, −g/2), the normal force λ(−1, 1)
/// // with λ = g/2.
/// let m = MassFactor::new(SMatrix::<f64, 2, 2>::identity())?;
/// let a = SMatrix::<f64, 1, 2>::new(-1.0, 1.0);
/// let f = SVector::<f64, 2>::new(0.0, -9.81);
/// let sol = solve_constrained::<2, 1, 3, _>(0.0, m, (a, SVector::zeros()), f, &["line"])?;
/// assert!((sol.accelerations - SVector::<f64, 2>::new(-4.905, -4.905)).norm() < 1e-14);
/// assert!((sol.multipliers[0] - 4.905).abs() < 1e-14);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
/// [`FieldError::SingularMassMatrix`] if the mass operator's solves fail,
/// [`FieldError::SingularConstraints`] if the rows are dependent, [`FieldError::NonFinite`] for
/// non-finite rows, forces or solution.
pub fn solve_constrained<const N: usize, const M: usize, const NM: usize, F: MassOperator<N>>(
    t: f64,
    mass: F,
    (a, bias): (SMatrix<f64, M, N>, SVector<f64, M>),
    f: SVector<f64, N>,
    rows: &'static [&'static str],
) -> Result<ConstrainedSolution<N, M, NM, F>, FieldError> {
    let () = SaddleDim::<N, M, NM>::OK;
    let (accelerations, multipliers, saddle) = saddle_point(t, mass, &a, f, &(-bias), rows)?;
    Ok(ConstrainedSolution { accelerations, multipliers, saddle, t, rows })
}

impl<const N: usize, const M: usize, const NM: usize, F: MassOperator<N>> ConstrainedSolution<N, M, NM, F> {
    /// `∂F/∂x` of the constrained first-order field from `∂R/∂x` of the saddle-point residual
    /// R = (M q̈ − Aᵀλ − f, A q̈ + c) at the solution (`dr_dx`, `(N + M) × D`):
    /// `∂(q̈, λ)/∂x = −K⁻¹ ∂R/∂x`, reusing the factorisation.
    ///
    /// # Errors
    /// [`FieldError::SingularConstraints`] if the sensitivities are not finite.
    pub fn field_jacobian<const D: usize>(&self, dr_dx: SMatrix<f64, NM, D>) -> Result<SMatrix<f64, D, D>, FieldError> {
        // ∂q/∂x of the field is [0 I]: the identity sits at column N + i of row i. The row of ż = L
        // (contact systems) is the caller's (see [`set_action_row`]).
        let () = StateDim::<N, D>::OK;
        let sens =
            self.saddle.solve_stacked(&-dr_dx).map_err(|_| FieldError::SingularConstraints { t: self.t, rows: self.rows })?;
        let mut jac = SMatrix::<f64, D, D>::zeros();
        for i in 0..N {
            jac[(i, N + i)] = 1.0;
        }
        jac.fixed_view_mut::<N, D>(N, 0).copy_from(&sens.fixed_rows::<N>(0));
        Ok(jac)
    }

    /// `∂F/∂x` of the constrained field of a system with quasi-velocities (`P` positions, then the
    /// `N` velocities; an orientation's quaternion turns at q̇ = K(q) v): the rates' Jacobians
    /// `∂q̇/∂q`, `∂q̇/∂v` on top, the velocities' rows `−(K⁻¹ ∂R/∂x)` below, as
    /// [`field_jacobian`](Self::field_jacobian) for `P = N`.
    ///
    /// # Errors
    /// [`FieldError::SingularConstraints`] if the sensitivities are not finite.
    pub fn quasi_field_jacobian<const P: usize, const D: usize>(
        &self,
        dr_dx: SMatrix<f64, NM, D>,
        rates: (SMatrix<f64, P, P>, SMatrix<f64, P, N>),
    ) -> Result<SMatrix<f64, D, D>, FieldError> {
        let () = SplitDim::<P, N, D>::OK;
        let sens =
            self.saddle.solve_stacked(&-dr_dx).map_err(|_| FieldError::SingularConstraints { t: self.t, rows: self.rows })?;
        let mut jac = SMatrix::<f64, D, D>::zeros();
        jac.fixed_view_mut::<P, P>(0, 0).copy_from(&rates.0);
        jac.fixed_view_mut::<P, N>(0, P).copy_from(&rates.1);
        jac.fixed_view_mut::<N, D>(P, 0).copy_from(&sens.fixed_rows::<N>(0));
        Ok(jac)
    }

    /// The accelerations' sensitivities ∂q̈/∂w to quantities w outside the state (inputs,
    /// parameters), from ∂R/∂w of the saddle-point residual: the first N rows of −K⁻¹ ∂R/∂w.
    ///
    /// # Errors
    /// [`FieldError::SingularConstraints`] if the sensitivities are not finite.
    pub fn acceleration_sensitivity<const W: usize>(&self, dr_dw: SMatrix<f64, NM, W>) -> Result<SMatrix<f64, N, W>, FieldError> {
        let (t, rows) = (self.t, self.rows);
        let sens = self.saddle.solve_stacked(&-dr_dw).map_err(|_| FieldError::SingularConstraints { t, rows })?;
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
        let sens = self.saddle.solve_stacked(&-dr_dx).map_err(singular)?;
        let sens_t = self.saddle.solve_stacked(&-dr_dt).map_err(singular)?;
        let grad = SMatrix::<f64, M, D>::from_fn(|k, c| sens[(N + k, c)]);
        let rates = SVector::<f64, M>::from_fn(|k, _| (0..D).map(|c| sens[(N + k, c)] * f[c]).sum::<f64>() + sens_t[N + k]);
        Ok((grad, rates))
    }
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
pub struct Restitution<const N: usize, const K: usize, const NK: usize, F = MassFactor<N>> {
    /// Post-impact velocities q̇⁺.
    pub velocities: SVector<f64, N>,
    /// Impulse multipliers λ (the impulse is `Aᵀλ`).
    pub impulses: SVector<f64, K>,
    saddle: Saddle<F, N, K>,
    t: f64,
    rows: &'static [&'static str],
}

/// Compile-time check that `NK = N + K`.
struct SaddleDim<const N: usize, const K: usize, const NK: usize>;

impl<const N: usize, const K: usize, const NK: usize> SaddleDim<N, K, NK> {
    const OK: () = assert!(NK == N + K, "the saddle-point system of N velocities and K rows has size N + K");
}

/// Solve a restitution law at the pre-impact velocities `v`: the model's mass operator `mass` at
/// the impact, the `law` — its rows `a` (`K × N`) with their `dt` parts `b` and coefficients `e` —;
/// `rows` names the rows for errors. See the [module docs](crate::mechanics).
///
/// # Errors
/// [`FieldError::SingularMassMatrix`] if the mass operator's solves fail,
/// [`FieldError::SingularConstraints`] if the rows are linearly dependent,
/// [`FieldError::NonFinite`] for a non-finite solution.
pub fn restitution<const N: usize, const K: usize, const NK: usize, F: MassOperator<N>>(
    t: f64,
    mass: F,
    (a, b, e): (SMatrix<f64, K, N>, SVector<f64, K>, SVector<f64, K>),
    v: SVector<f64, N>,
    rows: &'static [&'static str],
) -> Result<Restitution<N, K, NK, F>, FieldError> {
    let () = SaddleDim::<N, K, NK>::OK;
    let mut bottom = SVector::<f64, K>::zeros();
    for r in 0..K {
        let mut rel = b[r];
        for j in 0..N {
            rel += a[(r, j)] * v[j];
        }
        bottom[r] = -e[r] * rel - b[r];
    }
    let momentum = mass.apply(&v);
    let (velocities, impulses, saddle) = saddle_point(t, mass, &a, momentum, &bottom, rows)?;
    Ok(Restitution { velocities, impulses, saddle, t, rows })
}

impl<const N: usize, const K: usize, const NK: usize, F: MassOperator<N>> Restitution<N, K, NK, F> {
    /// The post-impact state: positions (and action) of `x`, velocities q̇⁺ — `P` positions
    /// (`P = N` for ordinary coordinates, more with orientations), then the `N` velocities.
    #[must_use]
    pub fn post_state<const P: usize, const D: usize>(&self, x: &SVector<f64, D>) -> SVector<f64, D> {
        let () = SplitDim::<P, N, D>::OK;
        let mut post = *x;
        post.fixed_rows_mut::<N>(P).copy_from(&self.velocities);
        post
    }

    /// The reset's Jacobian `∂Δ/∂x` from `∂R/∂x` of the law's residual at the solution
    /// (`dr_dx`, `(N + K) × D`, over a state of `P` positions and `N` velocities): positions (and
    /// the action) are kept, `∂v⁺/∂x` are the first `N` rows of `−K⁻¹ ∂R/∂x`.
    ///
    /// # Errors
    /// [`FieldError::SingularConstraints`] if the sensitivities are not finite.
    pub fn reset_jacobian<const P: usize, const D: usize>(
        &self,
        dr_dx: SMatrix<f64, NK, D>,
    ) -> Result<SMatrix<f64, D, D>, FieldError> {
        let () = SplitDim::<P, N, D>::OK;
        let (t, rows) = (self.t, self.rows);
        let sens = self.saddle.solve_stacked(&-dr_dx).map_err(|_| FieldError::SingularConstraints { t, rows })?;
        let mut jac = SMatrix::<f64, D, D>::identity();
        jac.fixed_view_mut::<N, D>(P, 0).copy_from(&sens.fixed_rows::<N>(0));
        Ok(jac)
    }
}

/// Adds a part of the saddle-point residual's Jacobian over the state (rows × D, and its time
/// column) into the whole's `dr` (R × D, R) — the residual R = (M a − Aᵀλ − f, A a + c) derived as
/// the forces' part M a − f and one part per constraint k, −λₖ aₖᵀ in the first n rows and
/// aₖ·a + cₖ in row n + k (each the same in every mode that holds the constraint, generated once).
/// `own_row: None` adds all P rows of the forces' part to the first P; `Some(r)` adds a
/// constraint's first P − 1 rows to the first P − 1 and its last to row `r`.
///
/// ```
/// use nalgebra::{SMatrix, SVector};
/// use routh_runtime::mechanics::add_residual_part;
///
/// // n = 2, one constraint: its part has 3 rows, its own row lands in row 2.
/// let mut dr = (SMatrix::<f64, 3, 4>::zeros(), SVector::<f64, 3>::zeros());
/// add_residual_part(&mut dr, None, (SMatrix::<f64, 2, 4>::repeat(1.0), SVector::<f64, 2>::repeat(2.0)));
/// add_residual_part(&mut dr, Some(2), (SMatrix::<f64, 3, 4>::repeat(0.5), SVector::<f64, 3>::repeat(1.0)));
/// assert_eq!(dr.0.row(0).sum(), 6.0);
/// assert_eq!(dr.0.row(2).sum(), 2.0);
/// assert_eq!(dr.1, SVector::<f64, 3>::new(3.0, 3.0, 1.0));
/// ```
pub fn add_residual_part<const R: usize, const D: usize, const P: usize>(
    dr: &mut (SMatrix<f64, R, D>, SVector<f64, R>),
    own_row: Option<usize>,
    (part, part_t): (SMatrix<f64, P, D>, SVector<f64, P>),
) {
    let shared = if own_row.is_some() { P - 1 } else { P };
    for i in 0..shared {
        for j in 0..D {
            dr.0[(i, j)] += part[(i, j)];
        }
        dr.1[i] += part_t[i];
    }
    if let Some(r) = own_row {
        for j in 0..D {
            dr.0[(r, j)] += part[(P - 1, j)];
        }
        dr.1[r] += part_t[P - 1];
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mechanics::{StateLayout, factor_mass};
    use nalgebra::Matrix2;

    #[test]
    fn restitution_is_newtons_law_and_reports_dependent_rows() {
        // Mass matrix diag(1, 4), wall normal (1, 1): q̇⁺ = q̇⁻ − (1+e) M⁻¹n (n·q̇⁻)/(nᵀM⁻¹n).
        let m = Matrix2::new(1.0, 0.0, 0.0, 4.0);
        let n = SMatrix::<f64, 1, 2>::new(1.0, 1.0);
        let x: SVector<f64, 4> = StateLayout::<2, 2, 4>::state([0.3, 0.1], [-1.0, -0.5]);
        let e = 0.7;
        let law = restitution::<2, 1, 3, _>(
            0.0,
            factor_mass(0.0, m).unwrap(),
            (n, SVector::zeros(), SVector::from([e])),
            x.fixed_rows::<2>(2).into_owned(),
            &["wall"],
        )
        .unwrap();
        let v = SVector::<f64, 2>::new(-1.0, -0.5);
        let minv_n = SVector::<f64, 2>::new(1.0, 0.25);
        let expected = v - (1.0 + e) * minv_n * (-1.5) / 1.25;
        assert!((law.velocities - expected).norm() < 1e-14);
        // Two copies of one row are dependent: a typed error naming the rows, not a NaN.
        let a = SMatrix::<f64, 2, 2>::new(1.0, 1.0, 2.0, 2.0);
        let err = restitution::<2, 2, 4, _>(
            1.5,
            factor_mass(1.5, m).unwrap(),
            (a, SVector::zeros(), SVector::zeros()),
            x.fixed_rows::<2>(2).into_owned(),
            &["a", "b"],
        )
        .unwrap_err();
        assert_eq!(err, FieldError::SingularConstraints { t: 1.5, rows: &["a", "b"] });
        // A singular mass matrix is reported as such, by the factorisation the law is given.
        assert_eq!(factor_mass(2.0, Matrix2::zeros()).unwrap_err(), FieldError::SingularMassMatrix { t: 2.0 });
    }

    /// A pseudo-random symmetric positive definite matrix and dense rows (deterministic).
    fn sample<const N: usize, const K: usize>(seed: u64) -> (SMatrix<f64, N, N>, SMatrix<f64, K, N>) {
        let mut state = seed;
        let mut next = || {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            ((state >> 11) as f64 / (1u64 << 53) as f64) - 0.5
        };
        let b = SMatrix::<f64, N, N>::from_fn(|_, _| next());
        let m = b * b.transpose() + SMatrix::<f64, N, N>::identity();
        (m, SMatrix::<f64, K, N>::from_fn(|_, _| next()))
    }

    /// The Schur-complement solve is the saddle point: the residuals of both block rows of
    /// `[M −Aᵀ; A 0] [q̈; λ] = [f; −c]` vanish to round-off, and its sensitivities solve the same
    /// matrix for other right-hand sides.
    #[test]
    fn the_schur_complement_solves_the_saddle_point() {
        let (m, a) = sample::<5, 2>(7);
        let f = SVector::<f64, 5>::new(1.0, -2.0, 0.5, 3.0, -1.0);
        let c = SVector::<f64, 2>::new(0.3, -0.7);
        let sol = solve_constrained::<5, 2, 7, _>(0.0, factor_mass(0.0, m).unwrap(), (a, c), f, &["a", "b"]).unwrap();
        let (qdd, lam) = (sol.accelerations, sol.multipliers);
        assert!((m * qdd - a.transpose() * lam - f).amax() < 1e-13);
        assert!((a * qdd + c).amax() < 1e-13);
        // ∂(q̈, λ)/∂w for R(w) = w e₀ in the first row: [M −Aᵀ; A 0] s = −e₀.
        let mut dr = SMatrix::<f64, 7, 1>::zeros();
        dr[0] = 1.0;
        let s = sol.acceleration_sensitivity(dr).unwrap();
        let (_, rates) =
            sol.multiplier_rates::<10>(SMatrix::zeros(), SVector::<f64, 7>::from_fn(|i, _| dr[i]), &SVector::zeros()).unwrap();
        let mut e0 = SVector::<f64, 5>::zeros();
        e0[0] = 1.0;
        assert!((m * s - a.transpose() * rates + e0).amax() < 1e-13, "{}", m * s - a.transpose() * rates + e0);
        assert!((a * s).amax() < 1e-13);
    }

    /// Inactive rows do not constrain: the correction of [`Saddle::correction`] satisfies the active
    /// rows only and is M-orthogonal to every direction they leave free.
    #[test]
    fn inactive_rows_are_left_out() {
        let (m, a) = sample::<4, 2>(11);
        let r = SVector::<f64, 2>::new(0.25, 5.0);
        let saddle = Saddle::new(0.0, factor_mass(0.0, m).unwrap(), &a, |row| row == 0, &["on", "off"]).unwrap();
        let dq = saddle.correction(&r).unwrap();
        assert!(((a.row(0) * dq)[0] - r[0]).abs() < 1e-14);
        // M Δ is a multiple of the active row's normal: Δ is the M-smallest correction.
        let md = m * dq;
        let mu = md.dot(&a.row(0).transpose()) / a.row(0).norm_squared();
        assert!((md - mu * a.row(0).transpose()).amax() < 1e-13);
    }

    /// A mass operator that never forms M (here a diagonal one, solved entry by entry) gives the
    /// restitution law the dense factor gives.
    #[test]
    fn a_mass_operator_that_never_forms_m() {
        struct Diagonal([f64; 2]);
        impl MassOperator<2> for Diagonal {
            fn solve<const C: usize>(&self, b: SMatrix<f64, 2, C>) -> Result<SMatrix<f64, 2, C>, crate::error::SingularMatrix> {
                Ok(SMatrix::from_fn(|i, c| b[(i, c)] / self.0[i]))
            }
            fn apply(&self, v: &SVector<f64, 2>) -> SVector<f64, 2> {
                SVector::from_fn(|i, _| self.0[i] * v[i])
            }
        }
        let x: SVector<f64, 4> = StateLayout::<2, 2, 4>::state([0.3, 0.1], [-1.0, -0.5]);
        let n = SMatrix::<f64, 1, 2>::new(1.0, 1.0);
        let e = SVector::from([0.7]);
        let v = x.fixed_rows::<2>(2).into_owned();
        let by_operator = restitution::<2, 1, 3, _>(0.0, Diagonal([1.0, 4.0]), (n, SVector::zeros(), e), v, &["wall"]).unwrap();
        let dense = factor_mass(0.0, Matrix2::new(1.0, 0.0, 0.0, 4.0)).unwrap();
        let by_factor = restitution::<2, 1, 3, _>(0.0, dense, (n, SVector::zeros(), e), v, &["wall"]).unwrap();
        assert!((by_operator.velocities - by_factor.velocities).amax() < 1e-15);
        assert!((by_operator.impulses - by_factor.impulses).amax() < 1e-15);
    }

    /// With more positions than velocities (an orientation's quaternion for its ω) the reset
    /// writes the velocities after the `P` positions and keeps the rest: positions and action.
    #[test]
    fn a_reset_over_p_positions_keeps_them_and_the_action() {
        // P = 3 positions, N = 2 velocities, then an action: D = 6.
        let x = SVector::<f64, 6>::from([0.1, 0.2, 0.3, -1.0, -0.5, 7.0]);
        let m = Matrix2::new(1.0, 0.0, 0.0, 4.0);
        let n = SMatrix::<f64, 1, 2>::new(1.0, 1.0);
        let v = x.fixed_rows::<2>(3).into_owned();
        let law = restitution::<2, 1, 3, _>(
            0.0,
            factor_mass(0.0, m).unwrap(),
            (n, SVector::zeros(), SVector::from([1.0])),
            v,
            &["wall"],
        )
        .unwrap();
        let post = law.post_state::<3, 6>(&x);
        assert_eq!(post.fixed_rows::<3>(0), x.fixed_rows::<3>(0));
        assert_eq!(post[5], 7.0);
        assert_eq!(post.fixed_rows::<2>(3), law.velocities);
        // Elastic: the kinetic energy is kept and the relative velocity reverses.
        assert!((law.velocities.dot(&(m * law.velocities)) - v.dot(&(m * v))).abs() < 1e-14);
        assert!(((n * law.velocities)[0] + (n * v)[0]).abs() < 1e-14);
        // ∂Δ/∂x: identity on the positions and the action, the velocity rows from ∂R/∂x.
        let mut dr = SMatrix::<f64, 3, 6>::zeros();
        dr[(0, 3)] = -1.0; // ∂R₁/∂v⁻ = −M: the velocities' sensitivity to themselves
        dr[(1, 4)] = -4.0;
        dr[(2, 3)] = 1.0; // ∂R₂/∂v⁻ = e n
        dr[(2, 4)] = 1.0;
        let jac = law.reset_jacobian::<3, 6>(dr).unwrap();
        for i in [0, 1, 2, 5] {
            let mut unit = SVector::<f64, 6>::zeros();
            unit[i] = 1.0;
            assert_eq!(jac.row(i).transpose(), unit, "row {i}");
        }
        // Newton's elastic law is linear in v⁻: its Jacobian is the map itself, I − 2 M⁻¹nᵀ n/(n M⁻¹ nᵀ).
        let minv_nt = SVector::<f64, 2>::new(1.0, 0.25);
        let map = Matrix2::identity() - 2.0 * minv_nt * n / 1.25;
        assert!((jac.fixed_view::<2, 2>(3, 3) - map).amax() < 1e-14, "{jac}");
        // The velocity-map reset over the same layout.
        let dv_dq = SMatrix::<f64, 2, 3>::from_fn(|i, c| (i + 3 * c) as f64);
        let jac = StateLayout::<3, 2, 6>::velocity_map_jacobian(dv_dq, map);
        assert_eq!(jac.fixed_view::<2, 3>(3, 0), dv_dq);
        assert_eq!(jac.fixed_view::<2, 2>(3, 3), map);
        assert_eq!(jac[(5, 5)], 1.0);
        let moved = StateLayout::<3, 2, 6>::with_velocities(0.0, &x, &law.velocities).unwrap();
        assert_eq!(moved, post);
    }
}
