//! Linear-quadratic regulators: the stabilising solutions of the continuous and discrete
//! algebraic Riccati equations, and the optimal gains.
//!
//! For ẋ = A x + B u with the cost ∫ (xᵀQx + uᵀRu) dt (Q ⪰ 0, R ≻ 0) the optimal control is
//! u = −K x, K = R⁻¹BᵀX, with X the stabilising solution of the **continuous** algebraic Riccati
//! equation (CARE)
//!
//! ```text
//! AᵀX + XA − X G X + Q = 0,    G = B R⁻¹ Bᵀ,    A − G X stable,
//! ```
//!
//! and x₀ᵀ X x₀ the optimal cost from x₀. [`care`] computes it from the matrix sign function of the
//! Hamiltonian H = [A, −G; −Q, −Aᵀ] (Newton's iteration Z ← (cZ + (cZ)⁻¹)/2 with determinant
//! scaling c): the stable invariant subspace of H is span [I; X], and sign(H) [I; X] = −[I; X],
//! so X solves [W₁₂; W₂₂ + I] X = −[W₁₁ + I; W₂₁] (least squares).
//!
//! For x_{k+1} = A x_k + B u_k with the cost Σ (xᵀQx + uᵀRu), u_k = −K x_k with
//! K = (R + BᵀXB)⁻¹BᵀXA and X the stabilising solution of the **discrete** equation (DARE)
//!
//! ```text
//! X = AᵀXA − AᵀXB (R + BᵀXB)⁻¹ BᵀXA + Q  =  Aᵀ X (I + G X)⁻¹ A + Q.
//! ```
//!
//! [`dare`] computes it by the structure-preserving doubling algorithm (Chu, Fan, Lin and Wang
//! 2004), quadratically convergent: A₀ = A, G₀ = G, H₀ = Q and, with W = I + G_k H_k,
//! A_{k+1} = A_k W⁻¹ A_k, G_{k+1} = G_k + A_k W⁻¹ G_k A_kᵀ, H_{k+1} = H_k + A_kᵀ H_k W⁻¹ A_k → X.
//!
//! Both check what they return: the residual of the equation (relative to its terms), X symmetric,
//! and the closed loop stable (eigenvalues of A − BK in the open left half-plane, or inside the unit
//! circle); a pair (A, B) that cannot be stabilised, or (Q, A) with an undetectable mode on the
//! boundary, is [`LqrError::NoStabilizingSolution`], never a gain that does not stabilise.
//! nalgebra has no Riccati solver; these are written here on its LU, SVD and Schur decompositions.
//!
//! ```
//! use routh_runtime::lqr::care;
//! use routh_runtime::nalgebra::DMatrix;
//!
//! // The double integrator ẍ = u with Q = I, R = 1: K = [1, √3], X = [√3, 1; 1, √3].
//! let a = DMatrix::from_row_slice(2, 2, &[0.0, 1.0, 0.0, 0.0]);
//! let b = DMatrix::from_row_slice(2, 1, &[0.0, 1.0]);
//! let lqr = care(&a, &b, &DMatrix::identity(2, 2), &DMatrix::identity(1, 1))?;
//! let s = 3f64.sqrt();
//! assert!((&lqr.gain - DMatrix::from_row_slice(1, 2, &[1.0, s])).amax() < 1e-12);
//! assert!((&lqr.cost - DMatrix::from_row_slice(2, 2, &[s, 1.0, 1.0, s])).amax() < 1e-12);
//! # Ok::<(), routh_runtime::lqr::LqrError>(())
//! ```

use nalgebra::DMatrix;

/// Why no regulator was computed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum LqrError {
    /// The matrices do not fit: A n × n, B n × m, Q n × n, R m × m.
    #[error("the matrices do not fit: {0}")]
    Shape(String),
    /// An entry is NaN or infinite.
    #[error("`{0}` has a non-finite entry")]
    NonFinite(&'static str),
    /// A weight is not what the cost needs: R symmetric positive definite, Q symmetric positive
    /// semidefinite.
    #[error("the weight `{weight}` is not {needs}")]
    Weight {
        /// `"Q"` or `"R"`.
        weight: &'static str,
        /// What it must be.
        needs: &'static str,
    },
    /// No stabilising solution: (A, B) not stabilisable, a mode on the stability boundary that Q
    /// does not see, or an iteration that did not converge. The message says which check failed.
    #[error("no stabilising solution of the Riccati equation: {0}")]
    NoStabilizingSolution(String),
}

/// A linear-quadratic regulator: u = −K x.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Lqr {
    /// The gain K (m × n).
    pub gain: DMatrix<f64>,
    /// The Riccati solution X (n × n, symmetric positive semidefinite): x₀ᵀ X x₀ is the optimal
    /// cost from x₀.
    pub cost: DMatrix<f64>,
    /// The closed loop A − B K.
    pub closed_loop: DMatrix<f64>,
    /// The equation's residual at X, relative to the size of its terms.
    pub residual: f64,
}

/// The continuous-time regulator of ẋ = A x + B u with the cost ∫ (xᵀQx + uᵀRu) dt (see the
/// [module docs](self)).
///
/// # Errors
/// [`LqrError`]: shapes, non-finite entries, weights, or no stabilising solution.
pub fn care(a: &DMatrix<f64>, b: &DMatrix<f64>, q: &DMatrix<f64>, r: &DMatrix<f64>) -> Result<Lqr, LqrError> {
    let (n, g, r_chol) = prepare(a, b, q, r)?;
    let mut h = DMatrix::zeros(2 * n, 2 * n);
    h.view_mut((0, 0), (n, n)).copy_from(a);
    h.view_mut((0, n), (n, n)).copy_from(&(-&g));
    h.view_mut((n, 0), (n, n)).copy_from(&(-q));
    h.view_mut((n, n), (n, n)).copy_from(&(-a.transpose()));
    let w = matrix_sign(h)?;
    let identity = DMatrix::<f64>::identity(n, n);
    let mut lhs = DMatrix::zeros(2 * n, n);
    lhs.view_mut((0, 0), (n, n)).copy_from(&w.view((0, n), (n, n)));
    lhs.view_mut((n, 0), (n, n)).copy_from(&(w.view((n, n), (n, n)) + &identity));
    let mut rhs = DMatrix::zeros(2 * n, n);
    rhs.view_mut((0, 0), (n, n)).copy_from(&(-(w.view((0, 0), (n, n)) + &identity)));
    rhs.view_mut((n, 0), (n, n)).copy_from(&(-w.view((n, 0), (n, n))));
    let x = lhs.svd(true, true).solve(&rhs, 1e-14).map_err(|e| LqrError::NoStabilizingSolution(e.to_string()))?;
    let x = (&x + x.transpose()) * 0.5;
    // The residual AᵀX + XA − XGX + Q against the size of its terms.
    let ax = a.transpose() * &x;
    let xgx = &x * &g * &x;
    let equation = &ax + ax.transpose() - &xgx + q;
    let scale = ax.amax() * 2.0 + xgx.amax() + q.amax();
    let gain = r_chol.solve(&(b.transpose() * &x));
    let closed_loop = a - b * &gain;
    let stable = closed_loop.complex_eigenvalues().iter().all(|l| l.re < 0.0);
    finish(
        Lqr { gain, cost: x, closed_loop, residual: equation.amax() / scale.max(f64::MIN_POSITIVE) },
        stable,
        "left half-plane",
    )
}

/// The discrete-time regulator of x_{k+1} = A x_k + B u_k with the cost Σ (xᵀQx + uᵀRu) (see
/// the [module docs](self)).
///
/// # Errors
/// [`LqrError`]: shapes, non-finite entries, weights, or no stabilising solution.
pub fn dare(a: &DMatrix<f64>, b: &DMatrix<f64>, q: &DMatrix<f64>, r: &DMatrix<f64>) -> Result<Lqr, LqrError> {
    let (n, g, _) = prepare(a, b, q, r)?;
    let identity = DMatrix::<f64>::identity(n, n);
    let (mut ak, mut gk, mut hk) = (a.clone(), g, q.clone());
    let mut converged = false;
    for _ in 0..MAX_ITERATIONS {
        let w = (&identity + &gk * &hk).lu();
        let (Some(w_a), Some(w_g)) = (w.solve(&ak), w.solve(&gk)) else {
            return Err(LqrError::NoStabilizingSolution("I + G H became singular in the doubling".into()));
        };
        let next_h = &hk + ak.transpose() * &hk * &w_a;
        gk = &gk + &ak * &w_g * ak.transpose();
        ak = &ak * &w_a;
        let change = (&next_h - &hk).amax();
        hk = next_h;
        if !hk.iter().all(|v| v.is_finite()) {
            return Err(LqrError::NoStabilizingSolution("the doubling diverged".into()));
        }
        if change <= 1e-14 * hk.amax().max(f64::MIN_POSITIVE) {
            converged = true;
            break;
        }
    }
    if !converged {
        return Err(LqrError::NoStabilizingSolution(format!("the doubling did not converge in {MAX_ITERATIONS} steps")));
    }
    let x = (&hk + hk.transpose()) * 0.5;
    let btx = b.transpose() * &x;
    let Some(gain) = (r + &btx * b).cholesky().map(|c| c.solve(&(&btx * a))) else {
        return Err(LqrError::NoStabilizingSolution("R + BᵀXB is not positive definite".into()));
    };
    let closed_loop = a - b * &gain;
    // X − AᵀX(A − BK) − Q = 0 is the DARE with its gain.
    let axa = a.transpose() * &x * &closed_loop;
    let equation = &x - &axa - q;
    let scale = x.amax() + axa.amax() + q.amax();
    let stable = closed_loop.complex_eigenvalues().iter().all(|l| l.norm() < 1.0);
    finish(Lqr { gain, cost: x, closed_loop, residual: equation.amax() / scale.max(f64::MIN_POSITIVE) }, stable, "unit disk")
}

/// The most iterations of the sign function or the doubling (each converges quadratically once
/// close; 100 is far beyond what a solvable problem takes).
const MAX_ITERATIONS: usize = 100;

/// R's Cholesky factor.
type RFactor = nalgebra::Cholesky<f64, nalgebra::Dyn>;

/// The dimension n, G = B R⁻¹ Bᵀ and R's Cholesky factor, after checking shapes, finiteness and
/// weights.
fn prepare(
    a: &DMatrix<f64>,
    b: &DMatrix<f64>,
    q: &DMatrix<f64>,
    r: &DMatrix<f64>,
) -> Result<(usize, DMatrix<f64>, RFactor), LqrError> {
    let (n, m) = (a.nrows(), b.ncols());
    let shapes = [("A", a, (n, n)), ("B", b, (n, m)), ("Q", q, (n, n)), ("R", r, (m, m))];
    for (name, x, want) in shapes {
        if x.shape() != want {
            return Err(LqrError::Shape(format!("`{name}` is {:?}, expected {want:?} (A n × n, B n × m)", x.shape())));
        }
        if x.iter().any(|v| !v.is_finite()) {
            return Err(LqrError::NonFinite(name));
        }
    }
    let r_chol = definite_weight("R", r)?;
    semidefinite_weight("Q", q)?;
    let g = b * r_chol.solve(&b.transpose());
    Ok((n, (&g + g.transpose()) * 0.5, r_chol))
}

/// A quadratic cost's weight `m` that must be symmetric positive definite (R), and its Cholesky
/// factor — the regulators' and [`crate::ilqr::ilqr`]'s weights alike.
pub(crate) fn definite_weight(weight: &'static str, m: &DMatrix<f64>) -> Result<RFactor, LqrError> {
    const NEEDS: &str = "symmetric positive definite";
    finite_symmetric(weight, m, NEEDS)?;
    m.clone().cholesky().ok_or(LqrError::Weight { weight, needs: NEEDS })
}

/// A quadratic cost's weight `m` that must be symmetric positive semidefinite (Q): no eigenvalue
/// below −10⁻¹² of its largest entry.
pub(crate) fn semidefinite_weight(weight: &'static str, m: &DMatrix<f64>) -> Result<(), LqrError> {
    const NEEDS: &str = "symmetric positive semidefinite";
    finite_symmetric(weight, m, NEEDS)?;
    if m.clone().symmetric_eigenvalues().min() >= -1e-12 * m.amax() {
        Ok(())
    } else {
        Err(LqrError::Weight { weight, needs: NEEDS })
    }
}

/// `m` finite and symmetric to round-off, or the error naming `weight` and what it `needs`.
fn finite_symmetric(weight: &'static str, m: &DMatrix<f64>, needs: &'static str) -> Result<(), LqrError> {
    if m.iter().any(|v| !v.is_finite()) {
        return Err(LqrError::NonFinite(weight));
    }
    if (m - m.transpose()).amax() <= 1e-12 * m.amax() { Ok(()) } else { Err(LqrError::Weight { weight, needs }) }
}

/// sign(H) by Newton's iteration with determinant scaling; an eigenvalue on the imaginary axis
/// (no stabilising solution) makes it singular or stall.
fn matrix_sign(mut z: DMatrix<f64>) -> Result<DMatrix<f64>, LqrError> {
    let dim = z.nrows() as f64;
    for _ in 0..MAX_ITERATIONS {
        let lu = z.clone().lu();
        let Some(inverse) = lu.try_inverse() else {
            return Err(LqrError::NoStabilizingSolution(
                "the Hamiltonian has an eigenvalue on the imaginary axis: (A, B) is not stabilisable or (Q, A) not \
                 detectable on it"
                    .into(),
            ));
        };
        // c = |det Z|^(−1/2n), from the LU factor's diagonal (no overflow).
        let log_det: f64 = lu.u().diagonal().iter().map(|d| d.abs().ln()).sum();
        let c = (-log_det / dim).exp();
        let c = if c.is_finite() && c > 0.0 { c } else { 1.0 };
        let next = (&z * c + inverse / c) * 0.5;
        let change = (&next - &z).amax();
        z = next;
        if !z.iter().all(|v| v.is_finite()) {
            return Err(LqrError::NoStabilizingSolution("the sign iteration diverged".into()));
        }
        if change <= 1e-13 * z.amax() {
            return Ok(z);
        }
    }
    Err(LqrError::NoStabilizingSolution(format!(
        "the sign iteration did not converge in {MAX_ITERATIONS} steps: an eigenvalue of the Hamiltonian is (nearly) on the imaginary axis"
    )))
}

/// `lqr` if its closed loop is `stable` and its residual small, else the error saying which.
fn finish(lqr: Lqr, stable: bool, region: &str) -> Result<Lqr, LqrError> {
    if !lqr.cost.iter().chain(lqr.gain.iter()).all(|v| v.is_finite()) {
        return Err(LqrError::NoStabilizingSolution("the solution is not finite".into()));
    }
    if !stable {
        return Err(LqrError::NoStabilizingSolution(format!(
            "the closed loop A − BK has an eigenvalue outside the open {region}: (A, B) is not stabilisable"
        )));
    }
    if !(lqr.residual <= 1e-8) {
        return Err(LqrError::NoStabilizingSolution(format!("the equation's relative residual is {:e}", lqr.residual)));
    }
    Ok(lqr)
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::DVector;

    /// A matrix from its rows.
    fn rows<const C: usize>(rows: &[[f64; C]]) -> DMatrix<f64> {
        DMatrix::from_row_slice(rows.len(), C, rows.as_flattened())
    }

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol * b.abs().max(1.0)
    }

    /// Scalar closed forms: the CARE 2ax − b²x²/r + q = 0 has x = r (a + √(a² + b²q/r)) / b²; the
    /// DARE's x solves b²x² + (r − a²r − qb²) x − qr = 0 (positive root). Unstable a included.
    #[test]
    fn scalar_riccati_equations_have_their_closed_forms() {
        for (a, b, q, r) in [(1.0f64, 1.0f64, 1.0f64, 1.0f64), (-0.5, 2.0, 3.0, 0.1), (2.5, 0.3, 0.7, 4.0)] {
            let m = |v: f64| rows(&[[v]]);
            let c = care(&m(a), &m(b), &m(q), &m(r)).unwrap();
            let x = r * (a + (a * a + b * b * q / r).sqrt()) / (b * b);
            assert!(close(c.cost[(0, 0)], x, 1e-12), "CARE {:?} vs {x}", c.cost);
            assert!(close(c.gain[(0, 0)], b * x / r, 1e-12));
            let d = dare(&m(a), &m(b), &m(q), &m(r)).unwrap();
            let p = r - a * a * r - q * b * b;
            let x = (-p + (p * p + 4.0 * b * b * q * r).sqrt()) / (2.0 * b * b);
            assert!(close(d.cost[(0, 0)], x, 1e-12), "DARE {:?} vs {x}", d.cost);
            assert!(close(d.gain[(0, 0)], a * b * x / (r + b * b * x), 1e-12));
        }
    }

    /// The optimal cost x₀ᵀXx₀ is what the closed loop spends: ∫ xᵀ(Q + KᵀRK)x dt along
    /// ẋ = (A − BK)x, integrated by the Lyapunov route (an independent solve: the cost matrix P of
    /// the closed loop, (A−BK)ᵀP + P(A−BK) = −(Q + KᵀRK), by Kronecker products), equals X; and for
    /// the discrete loop the sum Σ xₖᵀ(Q + KᵀRK)xₖ, summed step by step, equals x₀ᵀXx₀.
    #[test]
    fn the_optimal_cost_is_what_the_closed_loop_spends() {
        // A cart with a pendulum linearised upright (unstable), two inputs.
        let a = rows(&[[0.0, 1.0, 0.0, 0.0], [0.0, -0.1, 2.0, 0.0], [0.0, 0.0, 0.0, 1.0], [0.0, 0.05, 15.0, 0.0]]);
        let b = rows(&[[0.0, 0.0], [1.0, 0.2], [0.0, 0.0], [-1.0, 0.5]]);
        let q = DMatrix::from_diagonal(&DVector::from_vec(vec![10.0, 1.0, 5.0, 0.5]));
        let r = rows(&[[0.5, 0.1], [0.1, 2.0]]);
        let c = care(&a, &b, &q, &r).unwrap();
        let acl = &c.closed_loop;
        let weight = &q + c.gain.transpose() * &r * &c.gain;
        let n = 4;
        let eye = DMatrix::<f64>::identity(n, n);
        let kron = eye.kronecker(&acl.transpose()) + acl.transpose().kronecker(&eye);
        let vec_p = kron.lu().solve(&(-DMatrix::from_column_slice(n * n, 1, weight.as_slice()))).unwrap();
        let p = DMatrix::from_column_slice(n, n, vec_p.as_slice());
        assert!((&p - &c.cost).amax() < 1e-9 * c.cost.amax(), "{p} vs {}", c.cost);
        assert!(c.residual < 1e-12, "{}", c.residual);

        // Discrete: the same plant stepped by Euler with h = 0.01 (any A, B will do).
        let h = 0.01;
        let ad = &eye + &a * h;
        let bd = &b * h;
        let d = dare(&ad, &bd, &(&q * h), &(&r * h)).unwrap();
        let x0 = DVector::from_vec(vec![0.1, 0.0, -0.05, 0.2]);
        let weight = &q * h + d.gain.transpose() * (&r * h) * &d.gain;
        let (mut x, mut sum) = (x0.clone(), 0.0);
        for _ in 0..20_000 {
            sum += x.dot(&(&weight * &x));
            x = &d.closed_loop * x;
        }
        let predicted = x0.dot(&(&d.cost * &x0));
        assert!(close(sum, predicted, 1e-10), "{sum} vs {predicted}");
        // The discrete regulator tends to the continuous one as h → 0 (X_d ≈ X_c).
        assert!((&d.cost - &c.cost).amax() < 0.05 * c.cost.amax());
    }

    #[test]
    fn what_cannot_be_stabilised_is_refused() {
        // An unstable mode the input does not reach.
        let a = rows(&[[1.0, 0.0], [0.0, -1.0]]);
        let b = rows(&[[0.0], [1.0]]);
        let q = DMatrix::identity(2, 2);
        let r = rows(&[[1.0]]);
        assert!(matches!(care(&a, &b, &q, &r), Err(LqrError::NoStabilizingSolution(_))));
        let ad = rows(&[[1.5, 0.0], [0.0, 0.5]]);
        assert!(matches!(dare(&ad, &b, &q, &r), Err(LqrError::NoStabilizingSolution(_))));
        // Weights and shapes.
        assert!(matches!(care(&a, &b, &q, &rows(&[[-1.0]])), Err(LqrError::Weight { weight: "R", .. })));
        assert!(matches!(care(&a, &b, &rows(&[[1.0, 0.0], [0.0, -1.0]]), &r), Err(LqrError::Weight { weight: "Q", .. })));
        assert!(matches!(care(&a, &rows(&[[1.0]]), &q, &r), Err(LqrError::Shape(_))));
        assert!(matches!(care(&a, &b, &q, &rows(&[[f64::NAN]])), Err(LqrError::NonFinite("R"))));
    }
}
