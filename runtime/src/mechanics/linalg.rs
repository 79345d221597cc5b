//! Small dense linear solves for mass matrices.
//!
//! Equations of motion of a Lagrangian system have the form `M(q) q̈ = f(q, q̇, t)` with a
//! symmetric, (normally) positive definite mass matrix `M`. Each right-hand-side evaluation
//! solves this system, so the solver here is a fixed-size, allocation-free routine:
//!
//! 1. **Cholesky** in its square-root-free form `M = Uᵀ D U` (`U` unit upper triangular; only
//!    the diagonal and the lower triangle of `M` are read: the matrix is assumed symmetric), then the solves
//!    `Uᵀ z = b`, `D U a = z`. A pivot `d_j = M_jj − Σ_{k<j} d_k U_kj²` is accepted only
//!    if `d_j > 16·n·ε·M_jj`, i.e. if the elimination did not cancel the diagonal entry down
//!    to round-off. Badly *scaled* but well conditioned matrices (e.g. `diag(1e8, 1e-8)`) therefore pass.
//! 2. If Cholesky fails (indefinite or nearly singular `M`), **LU with partial pivoting**
//!    `P M = L U` on the full matrix. A pivot `u_jj` is rejected when
//!    `|u_jj| ≤ 16·n·ε·max_k |M_rk|`, with `r` the original row it came from.
//!
//! Either way a non-finite input or result is reported as [`SingularMatrix`], so callers
//! can rely on a finite answer. [`MassFactor`] keeps the factors for several solves with one
//! matrix, [`LuFactor`] does the same for general (e.g. saddle-point) matrices.

use nalgebra::{SMatrix, SVector};

use crate::error::{FieldError, SingularMatrix};

/// Pivots are compared against `PIVOT_TOL · n · ε` times their reference magnitude: round-off
/// left over from the elimination of a rank-deficient matrix is a few `n·ε`, while a genuine
/// pivot this small means fewer than ~2 significant digits in the solution.
const PIVOT_TOL: f64 = 16.0;

/// Solve `M a = f` for a symmetric mass matrix `M`.
///
/// Cholesky first, LU with partial pivoting as fallback (see the [module docs](self)).
/// `M` is assumed symmetric: the Cholesky path reads only its diagonal and lower triangle.
///
/// # Errors
/// [`SingularMatrix`] if `M` is (numerically) singular or if any input or output value is
/// not finite.
///
/// # Example
/// ```
/// use routh_runtime::{nalgebra::{Matrix2, Vector2}, solve_mass};
/// let m = Matrix2::new(2.0, 1.0,
///                      1.0, 3.0);
/// let a = solve_mass(m, Vector2::new(3.0, 4.0))?;
/// assert!((m * a - Vector2::new(3.0, 4.0)).norm() < 1e-14);
/// assert!(solve_mass(Matrix2::new(1.0, 1.0, 1.0, 1.0), Vector2::new(1.0, 0.0)).is_err());
/// # Ok::<(), routh_runtime::SingularMatrix>(())
/// ```
#[inline]
pub fn solve_mass<const N: usize>(m: SMatrix<f64, N, N>, f: SVector<f64, N>) -> Result<SVector<f64, N>, SingularMatrix> {
    solve_mass_columns::<N, 1>(m, f)
}

/// Solve `M A = B` for `C` right-hand sides at once (e.g. `M⁻¹ ∂g/∂x` for Jacobians).
///
/// Same algorithm and guarantees as [`solve_mass`]; the factorisation is done once.
///
/// # Errors
/// [`SingularMatrix`] if `M` is (numerically) singular or any value is not finite.
///
/// # Example
/// ```
/// use routh_runtime::{nalgebra::Matrix2, solve_mass_columns};
/// let m = Matrix2::new(4.0, 1.0,
///                      1.0, 2.0);
/// let inverse = solve_mass_columns(m, Matrix2::identity())?;
/// assert!((m * inverse - Matrix2::identity()).norm() < 1e-15);
/// # Ok::<(), routh_runtime::SingularMatrix>(())
/// ```
pub fn solve_mass_columns<const N: usize, const C: usize>(
    m: SMatrix<f64, N, N>,
    b: SMatrix<f64, N, C>,
) -> Result<SMatrix<f64, N, C>, SingularMatrix> {
    // One copy of M to factor in place (M itself stays for LU, which takes any square matrix).
    let mut u = m;
    let x = match factor_in_place(&mut u) {
        Some(inv_d) => solve_factored(&u, &inv_d, b),
        None => lu_solve(m, b).ok_or(SingularMatrix)?,
    };
    if super::all_finite(&x) { Ok(x) } else { Err(SingularMatrix) }
}

/// [`solve_mass`] telling a singular M ([`FieldError::SingularMassMatrix`]) from non-finite values
/// ([`FieldError::NonFinite`]), with M factored where it lies (the
/// hot path of a dense model's field: no copy of M). Only M's diagonal and lower triangle are read
/// (generated code gives no more), by Cholesky and, where it fails, by LU.
#[inline]
pub(crate) fn solve_mass_classified<const N: usize>(
    t: f64,
    m: &mut SMatrix<f64, N, N>,
    f: SVector<f64, N>,
) -> Result<SVector<f64, N>, FieldError> {
    let x = match factor_in_place(m) {
        Some(inv_d) => solve_factored(m, &inv_d, f),
        None => {
            let full = restored(m);
            if !super::all_finite(&full) {
                return Err(FieldError::NonFinite { t });
            }
            lu_solve(full, f).ok_or(FieldError::SingularMassMatrix { t })?
        }
    };
    if super::all_finite(&x) { Ok(x) } else { Err(FieldError::NonFinite { t }) }
}

/// The symmetric M from what an in-place factorisation ([`factor_in_place`]) left of it: its
/// diagonal and lower triangle.
#[inline]
fn restored<const N: usize>(u: &SMatrix<f64, N, N>) -> SMatrix<f64, N, N> {
    SMatrix::from_fn(|i, j| u[(i.max(j), i.min(j))])
}

/// The square-root-free Cholesky factors `M = Uᵀ D U` (`U` unit upper triangular, stored above
/// the diagonal of `u`; `inv_d` = D⁻¹).
#[derive(Debug, Clone, Copy)]
struct Cholesky<const N: usize> {
    u: SMatrix<f64, N, N>,
    inv_d: [f64; N],
}

/// Square-root-free Cholesky (`LDLᵀ`) factorisation `M = Uᵀ D U` in place: M is read from the
/// diagonal and the lower triangle of `u` (left as they are), `U` is written to its strict upper
/// triangle (never read before it is written: it may hold anything) and D⁻¹ is returned; `None` if
/// a pivot is not safely positive.
///
/// Works on the upper triangle so that every inner loop runs down a column, which is
/// contiguous in nalgebra's column-major storage.
#[inline]
fn factor_in_place<const N: usize>(u: &mut SMatrix<f64, N, N>) -> Option<[f64; N]> {
    let tol = PIVOT_TOL * N as f64 * f64::EPSILON;
    let mut inv_d = [0.0f64; N];
    // With w_kj = d_k u_kj (what row k leaves in column j above the diagonal):
    //   d_j = m_jj − Σ_{k<j} w_kj u_kj,   w_ji = m_ji − Σ_{k<j} u_kj w_ki   (i > j).
    // Rows j and j + 1 are made together: every column i > j + 1 is read once for both, four
    // columns at a time (their running sums independent chains). Each sum runs in the order
    // k = 0, 1, … as alone — row j + 1's last term, k = j, is u_{j,j+1} w_ji once w_ji is known —
    // so the factors are the textbook loop's to the bit (see its test). m_ji is read from the
    // lower triangle (mᵢⱼ, column j below the diagonal): M's strict upper triangle is output only.
    let mut j = 0;
    while j < N {
        let column = &mut u.as_mut_slice()[j * N..(j + 1) * N];
        inv_d[j] = pivot(column, j, &inv_d, tol)?;
        if j + 1 == N {
            break;
        }
        // w_{j,j+1} (column j + 1's entry in row j), then pivot j + 1.
        let (head, tail) = u.as_mut_slice().split_at_mut((j + 1) * N);
        let (cj, next) = (&head[j * N..(j + 1) * N], &mut tail[..N]);
        let mut w = cj[j + 1];
        for (&x, a) in cj[..j].iter().zip(&next[..j]) {
            w -= x * a;
        }
        next[j] = w;
        inv_d[j + 1] = pivot(next, j + 1, &inv_d, tol)?;
        // Rows j and j + 1 of every column i > j + 1.
        let (head, tail) = u.as_mut_slice().split_at_mut((j + 2) * N);
        let (c0, c1) = head[j * N..].split_at(N);
        let (x0, x1, u01) = (&c0[..j], &c1[..j], c1[j]);
        let (seeds0, seeds1) = (&c0[j + 2..], &c1[j + 2..]);
        let mut blocks = tail.chunks_exact_mut(4 * N);
        for (block, (s0, s1)) in blocks.by_ref().zip(seeds0.chunks_exact(4).zip(seeds1.chunks_exact(4))) {
            let (a, rest) = block.split_at_mut(N);
            let (b, rest) = rest.split_at_mut(N);
            let (c, d) = rest.split_at_mut(N);
            let mut s = [[s0[0], s1[0]], [s0[1], s1[1]], [s0[2], s1[2]], [s0[3], s1[3]]];
            for (((((&y0, &y1), &ak), &bk), &ck), &dk) in x0.iter().zip(x1).zip(&a[..j]).zip(&b[..j]).zip(&c[..j]).zip(&d[..j]) {
                s[0][0] -= y0 * ak;
                s[0][1] -= y1 * ak;
                s[1][0] -= y0 * bk;
                s[1][1] -= y1 * bk;
                s[2][0] -= y0 * ck;
                s[2][1] -= y1 * ck;
                s[3][0] -= y0 * dk;
                s[3][1] -= y1 * dk;
            }
            for (col, [w0, w1]) in [a, b, c, d].into_iter().zip(s) {
                col[j] = w0;
                col[j + 1] = w1 - u01 * w0;
            }
        }
        let rest0 = seeds0.chunks_exact(4).remainder();
        let rest1 = seeds1.chunks_exact(4).remainder();
        for ((col, &s0), &s1) in blocks.into_remainder().chunks_exact_mut(N).zip(rest0).zip(rest1) {
            let (mut w0, mut w1) = (s0, s1);
            for ((&y0, &y1), &ak) in x0.iter().zip(x1).zip(&col[..j]) {
                w0 -= y0 * ak;
                w1 -= y1 * ak;
            }
            col[j] = w0;
            col[j + 1] = w1 - u01 * w0;
        }
        j += 2;
    }
    Some(inv_d)
}

/// Pivot j of [`factor_in_place`] from column j of `u` (the w_kj above its diagonal, turned into
/// u_kj = w_kj / d_k in place): D⁻¹'s entry 1 / d_j, or `None` if d_j is not safely positive.
#[inline]
fn pivot(column: &mut [f64], j: usize, inv_d: &[f64], tol: f64) -> Option<f64> {
    let mjj = column[j];
    let mut d = mjj;
    for (w, &inv) in column[..j].iter_mut().zip(&inv_d[..j]) {
        let ukj = *w * inv;
        d -= *w * ukj;
        *w = ukj;
    }
    // `!(…)` also rejects NaN. (The diagonal is never written: it is still M's.)
    if !(d > tol * mjj.abs()) || !d.is_finite() {
        return None;
    }
    Some(1.0 / d)
}

impl<const N: usize> Cholesky<N> {
    #[inline]
    fn solve<const C: usize>(&self, b: SMatrix<f64, N, C>) -> SMatrix<f64, N, C> {
        solve_factored(&self.u, &self.inv_d, b)
    }
}

/// `M X = B` from the factors `M = Uᵀ D U` ([`factor_in_place`]).
#[inline]
fn solve_factored<const N: usize, const C: usize>(
    u: &SMatrix<f64, N, N>,
    inv_d: &[f64; N],
    mut b: SMatrix<f64, N, C>,
) -> SMatrix<f64, N, C> {
    let us = u.as_slice();
    for c in 0..C {
        let x = &mut b.as_mut_slice()[c * N..(c + 1) * N];
        // Uᵀ z = b (unit diagonal; dot products down columns i and i + 1 of U together, each z_k
        // read once for both; each sum in the order k = 0, 1, … as alone).
        let mut i = 0;
        while i + 1 < N {
            let (c0, c1) = (&us[i * N..i * N + i], &us[(i + 1) * N..(i + 1) * N + i]);
            let (mut s0, mut s1) = (x[i], x[i + 1]);
            for ((&z, &p), &q) in x[..i].iter().zip(c0).zip(c1) {
                s0 -= p * z;
                s1 -= q * z;
            }
            x[i] = s0;
            x[i + 1] = s1 - us[(i + 1) * N + i] * s0;
            i += 2;
        }
        if i < N {
            let mut s = x[i];
            for (&z, &p) in x[..i].iter().zip(&us[i * N..i * N + i]) {
                s -= p * z;
            }
            x[i] = s;
        }
        // D y = z, then U a = y (unit diagonal; column-oriented back substitution, columns i and
        // i − 1 together: each entry updated by column i, then by column i − 1, as alone).
        for (v, &inv) in x.iter_mut().zip(inv_d) {
            *v *= inv;
        }
        let mut i = N;
        while i >= 2 {
            let (a1, c1) = (x[i - 1], &us[(i - 1) * N..(i - 1) * N + i - 2]);
            let a0 = x[i - 2] - us[(i - 1) * N + i - 2] * a1;
            x[i - 2] = a0;
            let c0 = &us[(i - 2) * N..(i - 2) * N + i - 2];
            for ((v, &p), &q) in x[..i - 2].iter_mut().zip(c1).zip(c0) {
                *v = (*v - p * a1) - q * a0;
            }
            i -= 2;
        }
    }
    b
}

/// Solve `A X = B` for a general square `A` (not necessarily symmetric or definite) by LU with
/// partial pivoting — e.g. the saddle-point (KKT) systems of impact laws,
/// `[M −Aᵀ; A 0] [v⁺; λ] = [M v⁻; c]`.
///
/// # Errors
/// [`SingularMatrix`] if `A` is (numerically) singular or any value is not finite.
///
/// # Example
/// ```
/// use routh_runtime::{nalgebra::{Matrix2, Vector2}, solve_general};
/// let a = Matrix2::new(0.0, 1.0,
///                      1.0, 0.0);
/// let x = solve_general(a, Vector2::new(2.0, 3.0))?;
/// assert_eq!(x, Vector2::new(3.0, 2.0));
/// # Ok::<(), routh_runtime::SingularMatrix>(())
/// ```
pub fn solve_general<const N: usize, const C: usize>(
    a: SMatrix<f64, N, N>,
    b: SMatrix<f64, N, C>,
) -> Result<SMatrix<f64, N, C>, SingularMatrix> {
    match lu_solve(a, b) {
        Some(x) if x.iter().all(|v| v.is_finite()) => Ok(x),
        _ => Err(SingularMatrix),
    }
}

/// LU factors with partial pivoting, `P A = L U` (L unit lower triangular below the diagonal of
/// `lu`, U on and above it; `perm[j]` is the row swapped into place j at step j).
#[derive(Debug, Clone, Copy)]
struct Lu<const N: usize> {
    lu: SMatrix<f64, N, N>,
    perm: [usize; N],
}

/// LU with partial pivoting; `None` if a pivot is negligible relative to its row.
fn lu<const N: usize>(mut a: SMatrix<f64, N, N>) -> Option<Lu<N>> {
    let tol = PIVOT_TOL * N as f64 * f64::EPSILON;
    // Row scales of the original matrix, permuted along with the rows.
    let mut scale = [0.0f64; N];
    for (i, s) in scale.iter_mut().enumerate() {
        for j in 0..N {
            let v = a[(i, j)].abs();
            if !v.is_finite() {
                return None;
            }
            *s = s.max(v);
        }
    }
    let mut perm = [0usize; N];
    for j in 0..N {
        let mut p = j;
        let mut best = a[(j, j)].abs();
        for i in (j + 1)..N {
            let v = a[(i, j)].abs();
            if v > best {
                best = v;
                p = i;
            }
        }
        if !(best > tol * scale[p]) {
            return None;
        }
        perm[j] = p;
        if p != j {
            // The multipliers already stored in the rows move with them.
            a.swap_rows(p, j);
            scale.swap(p, j);
        }
        let inv = 1.0 / a[(j, j)];
        for i in (j + 1)..N {
            let factor = a[(i, j)] * inv;
            a[(i, j)] = factor;
            if factor != 0.0 {
                for k in (j + 1)..N {
                    a[(i, k)] -= factor * a[(j, k)];
                }
            }
        }
    }
    Some(Lu { lu: a, perm })
}

impl<const N: usize> Lu<N> {
    fn solve<const C: usize>(&self, mut b: SMatrix<f64, N, C>) -> SMatrix<f64, N, C> {
        let a = &self.lu;
        // P b (the swaps in the order of the factorisation), then L z = P b column by column:
        // the same operations, in the same order, as eliminating b alongside A.
        for j in 0..N {
            let p = self.perm[j];
            if p != j {
                b.swap_rows(p, j);
            }
        }
        for j in 0..N {
            for i in (j + 1)..N {
                let factor = a[(i, j)];
                if factor != 0.0 {
                    for c in 0..C {
                        b[(i, c)] -= factor * b[(j, c)];
                    }
                }
            }
        }
        for c in 0..C {
            for i in (0..N).rev() {
                let mut s = b[(i, c)];
                for k in (i + 1)..N {
                    s -= a[(i, k)] * b[(k, c)];
                }
                b[(i, c)] = s / a[(i, i)];
            }
        }
        b
    }
}

fn lu_solve<const N: usize, const C: usize>(a: SMatrix<f64, N, N>, b: SMatrix<f64, N, C>) -> Option<SMatrix<f64, N, C>> {
    lu(a).map(|f| f.solve(b))
}

#[inline]
fn finite<const R: usize, const C: usize>(x: SMatrix<f64, R, C>) -> Result<SMatrix<f64, R, C>, SingularMatrix> {
    if super::all_finite(&x) { Ok(x) } else { Err(SingularMatrix) }
}

/// What the runtime needs of a model's mass matrix M at one state: solutions of `M X = B` for one
/// or several right-hand sides (a vector is one column), and the product `M v`. The field, its
/// Jacobian and its sensitivities are written against this trait, never against a dense M.
///
/// [`MassFactor`] (dense, factored once per state) implements it; a factorisation that never forms
/// M — an O(n) recursive (articulated-body) one along a kinematic tree — implements it as well.
///
/// ```
/// use routh_runtime::{MassFactor, MassOperator, nalgebra::{Matrix2, Vector2}};
/// fn kinetic_energy<M: MassOperator<2>>(m: &M, v: &Vector2<f64>) -> f64 {
///     0.5 * v.dot(&m.apply(v))
/// }
/// let m = Matrix2::new(2.0, 1.0,
///                      1.0, 3.0);
/// let factor = MassFactor::new(m)?;
/// let v = Vector2::new(1.0, -1.0);
/// assert_eq!(kinetic_energy(&factor, &v), 0.5 * v.dot(&(m * v)));
/// let a = MassOperator::solve(&factor, Vector2::new(3.0, 4.0))?;
/// assert!((m * a - Vector2::new(3.0, 4.0)).norm() < 1e-14);
/// # Ok::<(), routh_runtime::SingularMatrix>(())
/// ```
pub trait MassOperator<const N: usize> {
    /// Solve `M X = B` (`C` columns at once).
    ///
    /// # Errors
    /// [`SingularMatrix`] if the solution is not finite.
    fn solve<const C: usize>(&self, b: SMatrix<f64, N, C>) -> Result<SMatrix<f64, N, C>, SingularMatrix>;
    /// The product `M v`.
    fn apply(&self, v: &SVector<f64, N>) -> SVector<f64, N>;
}

impl<const N: usize> MassOperator<N> for MassFactor<N> {
    #[inline]
    fn solve<const C: usize>(&self, b: SMatrix<f64, N, C>) -> Result<SMatrix<f64, N, C>, SingularMatrix> {
        MassFactor::solve(self, b)
    }

    /// `M v` from what the factorisation kept: the Cholesky path leaves M's diagonal and lower
    /// triangle in place (it reads and writes only above the diagonal), so the product is M's own,
    /// symmetric; the LU path multiplies its factors back, `Pᵀ L U v`.
    fn apply(&self, v: &SVector<f64, N>) -> SVector<f64, N> {
        match &self.0 {
            Factor::Cholesky(c) => SVector::from_fn(|i, _| (0..N).map(|j| c.u[(i.max(j), i.min(j))] * v[j]).sum::<f64>()),
            Factor::Lu(l) => {
                let a = &l.lu;
                let w = SVector::<f64, N>::from_fn(|i, _| (i..N).map(|k| a[(i, k)] * v[k]).sum::<f64>());
                let mut y = SVector::<f64, N>::from_fn(|i, _| w[i] + (0..i).map(|k| a[(i, k)] * w[k]).sum::<f64>());
                // P M = L U: undo the row swaps, last first.
                for j in (0..N).rev() {
                    let p = l.perm[j];
                    if p != j {
                        y.swap_rows(p, j);
                    }
                }
                y
            }
        }
    }
}

/// A factored mass matrix: square-root-free Cholesky, or LU with partial pivoting where
/// Cholesky fails (see the [module docs](self)). Factor once, solve for many right-hand sides —
/// the accelerations and both blocks of the field Jacobian share one factorisation.
///
/// ```
/// use routh_runtime::{MassFactor, nalgebra::{Matrix2, Vector2}};
/// let m = Matrix2::new(2.0, 1.0,
///                      1.0, 3.0);
/// let factor = MassFactor::new(m)?;
/// let a = factor.solve(Vector2::new(3.0, 4.0))?;
/// assert!((m * a - Vector2::new(3.0, 4.0)).norm() < 1e-14);
/// let inverse = factor.solve(Matrix2::identity())?;
/// assert!((m * inverse - Matrix2::identity()).norm() < 1e-14);
/// assert!(MassFactor::new(Matrix2::new(1.0, 1.0, 1.0, 1.0)).is_err());
/// # Ok::<(), routh_runtime::SingularMatrix>(())
/// ```
#[derive(Debug, Clone, Copy)]
pub struct MassFactor<const N: usize>(Factor<N>);

#[derive(Debug, Clone, Copy)]
enum Factor<const N: usize> {
    Cholesky(Cholesky<N>),
    Lu(Lu<N>),
}

impl<const N: usize> MassFactor<N> {
    /// Factor `M` (assumed symmetric: only its diagonal and lower triangle are read).
    ///
    /// # Errors
    /// [`SingularMatrix`] if `M` is (numerically) singular or not finite.
    #[inline]
    pub fn new(mut m: SMatrix<f64, N, N>) -> Result<Self, SingularMatrix> {
        // Factored where it lies; LU, where Cholesky fails, gets M back from the untouched lower
        // triangle.
        match factor_in_place(&mut m) {
            Some(inv_d) => Ok(MassFactor(Factor::Cholesky(Cholesky { u: m, inv_d }))),
            None => lu(restored(&m)).map(|l| MassFactor(Factor::Lu(l))).ok_or(SingularMatrix),
        }
    }

    /// Solve `M X = B`.
    ///
    /// # Errors
    /// [`SingularMatrix`] if the solution is not finite (a non-finite `B`).
    #[inline]
    pub fn solve<const C: usize>(&self, b: SMatrix<f64, N, C>) -> Result<SMatrix<f64, N, C>, SingularMatrix> {
        finite(match &self.0 {
            Factor::Cholesky(c) => c.solve(b),
            Factor::Lu(l) => l.solve(b),
        })
    }

    /// The Cholesky factors M = Uᵀ D U — `U` unit upper triangular above the diagonal of the
    /// matrix (its diagonal and lower triangle are M's), and D⁻¹ — or `None` where M was factored
    /// by LU.
    #[inline]
    pub(crate) fn unit_factors(&self) -> Option<(&SMatrix<f64, N, N>, &[f64; N])> {
        match &self.0 {
            Factor::Cholesky(c) => Some((&c.u, &c.inv_d)),
            Factor::Lu(_) => None,
        }
    }
}

/// A factored general square matrix (LU with partial pivoting), e.g. the saddle-point matrix
/// `[M −Aᵀ; A 0]` of an impact law, solved once for the post-impact velocities and again for the
/// reset Jacobian's sensitivities.
#[derive(Debug, Clone, Copy)]
pub struct LuFactor<const N: usize>(Lu<N>);

impl<const N: usize> LuFactor<N> {
    /// Factor `A`.
    ///
    /// # Errors
    /// [`SingularMatrix`] if `A` is (numerically) singular or not finite.
    pub fn new(a: SMatrix<f64, N, N>) -> Result<Self, SingularMatrix> {
        lu(a).map(LuFactor).ok_or(SingularMatrix)
    }

    /// Solve `A X = B`.
    ///
    /// # Errors
    /// [`SingularMatrix`] if the solution is not finite.
    pub fn solve<const C: usize>(&self, b: SMatrix<f64, N, C>) -> Result<SMatrix<f64, N, C>, SingularMatrix> {
        finite(self.0.solve(b))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::{Matrix2, Matrix3, Vector2, Vector3};

    /// `MassOperator::apply` is `M v` on both paths: M's own entries on the Cholesky path (exact
    /// for a symmetric M), the factors multiplied back on the LU path (an indefinite M, where
    /// Cholesky fails), to round-off; and `solve` then `apply` gives the right-hand side back.
    #[test]
    fn the_mass_operator_applies_and_solves_with_m() {
        let spd = Matrix3::new(4.0, 1.0, 0.5, 1.0, 3.0, -0.25, 0.5, -0.25, 2.0);
        let indefinite = Matrix3::new(0.0, 2.0, 1.0, 2.0, -1.0, 0.5, 1.0, 0.5, 3.0);
        let v = Vector3::new(0.3, -1.7, 2.2);
        for (m, exact) in [(spd, true), (indefinite, false)] {
            let factor = MassFactor::new(m).unwrap();
            assert_eq!(matches!(factor.0, Factor::Cholesky(_)), exact);
            let mv = MassOperator::apply(&factor, &v);
            if exact {
                assert_eq!(mv, m * v);
            } else {
                assert!((mv - m * v).amax() < 1e-14, "{mv} vs {}", m * v);
            }
            let back = MassOperator::apply(&factor, &MassOperator::solve(&factor, v).unwrap());
            assert!((back - v).amax() < 1e-13);
        }
    }

    /// The textbook column-by-column LDLᵀ the blocked factorization replaced (one running sum per
    /// entry, in the order k = 0, 1, …).
    fn reference_ldlt<const N: usize>(m: SMatrix<f64, N, N>) -> (SMatrix<f64, N, N>, [f64; N]) {
        let mut u = m;
        let mut inv_d = [0.0; N];
        for j in 0..N {
            let mut d = u[(j, j)];
            for k in 0..j {
                let wkj = u[(k, j)];
                let ukj = wkj * inv_d[k];
                u[(k, j)] = ukj;
                d -= wkj * ukj;
            }
            inv_d[j] = 1.0 / d;
            for i in (j + 1)..N {
                let mut s = u[(j, i)];
                for k in 0..j {
                    s -= u[(k, j)] * u[(k, i)];
                }
                u[(j, i)] = s;
            }
        }
        (u, inv_d)
    }

    fn blocked_equals_reference<const N: usize>(seed: u64) {
        let mut state = seed;
        let mut next = move || {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (state >> 11) as f64 / (1u64 << 53) as f64 - 0.5
        };
        let a = SMatrix::<f64, N, N>::from_fn(|_, _| next());
        let m = a * a.transpose() + SMatrix::<f64, N, N>::identity() * 0.1;
        let (u, inv_d) = reference_ldlt(m);
        let mut f = m;
        let f_inv_d = factor_in_place(&mut f).expect("positive definite");
        assert_eq!(f_inv_d, inv_d, "n = {N}");
        for j in 0..N {
            for i in j..N {
                assert_eq!(f[(j, i)].to_bits(), u[(j, i)].to_bits(), "n = {N}, entry ({j}, {i})");
            }
        }
        // The substitutions, two columns at a time, are the textbook ones to the bit too.
        let b = SMatrix::<f64, N, 2>::from_fn(|_, _| next());
        let mut x = b;
        for c in 0..2 {
            for i in 0..N {
                for k in 0..i {
                    x[(i, c)] -= u[(k, i)] * x[(k, c)];
                }
            }
            for i in 0..N {
                x[(i, c)] *= inv_d[i];
            }
            for i in (0..N).rev() {
                for k in 0..i {
                    x[(k, c)] -= u[(k, i)] * x[(i, c)];
                }
            }
        }
        let y = solve_factored(&f, &f_inv_d, b);
        assert!(x.iter().zip(y.iter()).all(|(p, q)| p.to_bits() == q.to_bits()), "n = {N}: {x} vs {y}");
    }

    /// The factorization that makes two rows at a time and updates four columns at a time gives
    /// the textbook one's factors bit for bit, for every remainder of n modulo 2 and 4, and so do
    /// the substitutions.
    #[test]
    fn blocked_factorization_is_the_textbook_one_to_the_bit() {
        blocked_equals_reference::<1>(1);
        blocked_equals_reference::<2>(2);
        blocked_equals_reference::<3>(3);
        blocked_equals_reference::<4>(4);
        blocked_equals_reference::<5>(5);
        blocked_equals_reference::<7>(7);
        blocked_equals_reference::<9>(9);
        blocked_equals_reference::<13>(13);
        blocked_equals_reference::<6>(6);
        blocked_equals_reference::<8>(8);
        blocked_equals_reference::<30>(30);
        blocked_equals_reference::<31>(31);
    }

    /// [`solve_mass_classified`] on a copy of `m`.
    fn classified<const N: usize>(t: f64, mut m: SMatrix<f64, N, N>, f: SVector<f64, N>) -> Result<SVector<f64, N>, FieldError> {
        solve_mass_classified(t, &mut m, f)
    }

    /// Only M's diagonal and lower triangle are read (generated code gives no more): whatever its
    /// strict upper triangle holds, the solve is the same to the bit, on the Cholesky path and, for
    /// an indefinite M, on the LU path.
    #[test]
    fn only_the_lower_triangle_is_read() {
        let f = Vector3::new(1.0, -2.0, 0.5);
        let spd = Matrix3::new(4.0, 1.0, 0.5, 1.0, 3.0, 0.2, 0.5, 0.2, 2.0);
        let indefinite = Matrix3::new(4.0, 4.0, 1.0, 4.0, 1.0, 2.0, 1.0, 2.0, -3.0);
        for m in [spd, indefinite] {
            let lower = Matrix3::from_fn(|i, j| if i >= j { m[(i, j)] } else { 0.0 });
            let garbage = Matrix3::from_fn(|i, j| if i >= j { m[(i, j)] } else { 1e300 });
            let a = classified(0.0, m, f).unwrap();
            assert!((m * a - f).amax() < 1e-13);
            assert_eq!(classified(0.0, lower, f), Ok(a));
            assert_eq!(classified(0.0, garbage, f), Ok(a));
            let factor = MassFactor::new(lower).unwrap();
            assert_eq!(factor.solve(f), Ok(a));
            assert_eq!(MassOperator::apply(&factor, &f), m * f);
        }
    }

    #[test]
    fn spd_solve() {
        let m = Matrix3::new(4.0, 1.0, 0.5, 1.0, 3.0, 0.2, 0.5, 0.2, 2.0);
        let f = Vector3::new(1.0, -2.0, 0.5);
        let a = solve_mass(m, f).unwrap();
        assert!((m * a - f).norm() < 1e-14);
    }

    #[test]
    fn indefinite_falls_back_to_lu() {
        let m = Matrix2::new(0.0, 1.0, 1.0, 0.0);
        let a = solve_mass(m, Vector2::new(2.0, 3.0)).unwrap();
        assert_eq!(a, Vector2::new(3.0, 2.0));
        let m = Matrix2::new(-2.0, 0.0, 0.0, 1.0);
        let a = solve_mass(m, Vector2::new(2.0, 3.0)).unwrap();
        assert_eq!(a, Vector2::new(-1.0, 3.0));
    }

    #[test]
    fn badly_scaled_diagonal_is_fine() {
        let m = Matrix2::new(1e8, 0.0, 0.0, 1e-8);
        let a = solve_mass(m, Vector2::new(1e8, 1e-8)).unwrap();
        assert!((a - Vector2::new(1.0, 1.0)).norm() < 1e-14);
    }

    #[test]
    fn singular_and_non_finite() {
        assert_eq!(solve_mass(Matrix2::zeros(), Vector2::new(1.0, 1.0)), Err(SingularMatrix));
        assert_eq!(solve_mass(Matrix2::new(1.0, 2.0, 2.0, 4.0), Vector2::new(1.0, 1.0)), Err(SingularMatrix));
        assert_eq!(solve_mass(Matrix2::new(f64::NAN, 0.0, 0.0, 1.0), Vector2::new(1.0, 1.0)), Err(SingularMatrix));
        assert_eq!(solve_mass(Matrix2::identity(), Vector2::new(f64::INFINITY, 1.0)), Err(SingularMatrix));
        // Rank-deficient 3×3 whose cancellation leaves round-off, not an exact zero.
        let u = Vector3::new(0.1, 0.7, 0.3);
        let v = Vector3::new(0.2, 0.9, 1.3);
        let m = u * u.transpose() + v * v.transpose();
        assert_eq!(solve_mass(m, Vector3::new(1.0, 2.0, 3.0)), Err(SingularMatrix));
    }

    /// The in-place solve of the field's hot path: Cholesky, LU from the untouched lower triangle
    /// where Cholesky fails (a symmetric indefinite M: the factorisation has already overwritten
    /// part of the upper triangle when it gives up), and the failures told apart.
    #[test]
    fn the_in_place_solve_restores_m_for_lu_and_classifies_failures() {
        let f = Vector3::new(1.0, -2.0, 0.5);
        let spd = Matrix3::new(4.0, 1.0, 0.5, 1.0, 3.0, 0.2, 0.5, 0.2, 2.0);
        let a = classified(0.0, spd, f).unwrap();
        assert!((spd * a - f).amax() < 1e-14);
        // Cholesky passes the first pivot (4) and fails at the second (1 − 4·4/4 < 0).
        let indefinite = Matrix3::new(4.0, 4.0, 1.0, 4.0, 1.0, 2.0, 1.0, 2.0, -3.0);
        let a = classified(0.0, indefinite, f).unwrap();
        assert!((indefinite * a - f).amax() < 1e-13, "{}", indefinite * a - f);
        let u = Vector3::new(0.1, 0.7, 0.3);
        let singular = u * u.transpose();
        assert_eq!(classified(1.5, singular, f), Err(FieldError::SingularMassMatrix { t: 1.5 }));
        let mut nan = spd;
        nan[(2, 1)] = f64::NAN;
        nan[(1, 2)] = f64::NAN;
        assert_eq!(classified(2.0, nan, f), Err(FieldError::NonFinite { t: 2.0 }));
        let inf = Vector3::new(f64::INFINITY, 0.0, 0.0);
        assert_eq!(classified(3.0, spd, inf), Err(FieldError::NonFinite { t: 3.0 }));
        // MassFactor: the same restored M on its LU path.
        let factor = MassFactor::new(indefinite).unwrap();
        assert!(matches!(factor.0, Factor::Lu(_)));
        assert!((indefinite * factor.solve(f).unwrap() - f).amax() < 1e-13);
    }

    #[test]
    fn many_columns() {
        let m = Matrix3::new(4.0, 1.0, 0.5, 1.0, 3.0, 0.2, 0.5, 0.2, 2.0);
        let inv = solve_mass_columns(m, Matrix3::identity()).unwrap();
        assert!((m * inv - Matrix3::identity()).norm() < 1e-14);
        // Non-symmetric matrix through the LU path still solves.
        let m = Matrix3::new(0.0, 2.0, 1.0, 1.0, 0.0, 3.0, 2.0, 1.0, 0.0);
        let inv = solve_mass_columns(m, Matrix3::identity()).unwrap();
        assert!((m * inv - Matrix3::identity()).norm() < 1e-14);
    }

    #[test]
    fn ill_conditioned_spd() {
        // Hilbert matrix, condition number ≈ 1.5e7: solvable, with a proportional error.
        let h = SMatrix::<f64, 6, 6>::from_fn(|i, j| 1.0 / (i + j + 1) as f64);
        let x = SVector::<f64, 6>::from_fn(|i, _| (i as f64 - 2.5).sin());
        let a = solve_mass(h, h * x).unwrap();
        assert!((a - x).norm() < 1e-7 * x.norm(), "{}", (a - x).norm());
        let lu = h.lu().solve(&(h * x)).unwrap();
        assert!((a - lu).norm() < 1e-7);
    }

    #[test]
    fn agrees_with_nalgebra() {
        for seed in 0..50u32 {
            let a = SMatrix::<f64, 5, 5>::from_fn(|i, j| (((i * 31 + j * 17) as u32 * (seed + 3)) % 97) as f64 / 97.0 - 0.5);
            let m = a * a.transpose() + SMatrix::<f64, 5, 5>::identity() * 0.1;
            let b = SMatrix::<f64, 5, 3>::from_fn(|i, j| (i + 2 * j) as f64 - 3.0);
            let ours = solve_mass_columns(m, b).unwrap();
            let reference = m.cholesky().unwrap().solve(&b);
            assert!((ours - reference).norm() < 1e-10 * reference.norm().max(1.0));
        }
    }

    #[test]
    fn zero_size() {
        let m = SMatrix::<f64, 0, 0>::zeros();
        assert!(solve_mass(m, SVector::<f64, 0>::zeros()).is_ok());
    }
}
