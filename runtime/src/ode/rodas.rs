//! Rodas4: the stiffly accurate, L-stable Rosenbrock method of order 4(3) of Hairer and Wanner
//! (*Solving ODEs II*, §VI.4; the coefficients of RODAS, "method 1", Hairer's `rodas.f`), with its
//! third-order continuous extension — the implicit method of [`crate::Options::scheme`].
//!
//! **Why a Rosenbrock method.** Each step solves six linear systems with one matrix
//! E = I/(hγ) − J, J = ∂F/∂x at the step's start: no Newton iteration, so no convergence control,
//! and the exact Jacobian a model generates (`jacobian` in `#[mechanics]`) is used as it is (the
//! field's [`StateField::jacobian`]); other fields get J by forward differences, which the method
//! tolerates (its order conditions assume the exact J, and a difference quotient is exact to about
//! 1e-8). Stiff accuracy (the last stage is the solution) and L-stability damp the stiff
//! components at any step size, which is what stiff joint springs, compliant contacts and high-gain
//! feedback need; Radau IIA would be of higher order but needs a Newton iteration on 3n unknowns,
//! an ESDIRK several Newton iterations a step.
//!
//! One step: stages kᵢ (state increments) from
//!
//! ```text
//! E kᵢ = F(t + cᵢh, x + Σⱼ aᵢⱼ kⱼ) + Σⱼ (Cᵢⱼ/h) kⱼ + h dᵢ ∂F/∂t,   i = 1..6,
//! x₁ = x + Σ a₅ⱼ kⱼ + k₅ + k₆,
//! ```
//!
//! the error estimate is k₆ (the difference of the embedded third-order solution and x₁), and the
//! dense output x₀ + θ(x₁ − x₀ + (1 − θ)(Σ h₂ⱼ kⱼ + θ Σ h₃ⱼ kⱼ)). ∂F/∂t is a forward difference in t
//! (zero for autonomous fields). Costs per attempt: six field evaluations, one for ∂F/∂t, one for
//! F at the new state (the next step's first stage), n for a difference Jacobian (none with the
//! exact one; reused when a rejected step retries from the same state), and one LU factorisation.

use nalgebra::{DMatrix, DVector};

use crate::error::{FieldError, SimError};
use crate::ode::dopri5::{Dense, eval};
use crate::ode::method::Tolerances;
use crate::ode::method::{Attempt, Method};
use crate::ode::state::{State, StateField};

const GAMMA: f64 = 0.25;
const C2: f64 = 0.386;
const C3: f64 = 0.21;
const C4: f64 = 0.63;
const D1: f64 = 0.25;
const D2: f64 = -0.1043;
const D3: f64 = 0.1035;
const D4: f64 = -0.036_200_000_000_000_23;
const A21: f64 = 1.544;
const A31: f64 = 0.946_678_528_081_582_6;
const A32: f64 = 0.255_701_169_898_328_4;
const A41: f64 = 3.314_825_187_068_521;
const A42: f64 = 2.896_124_015_972_201;
const A43: f64 = 0.998_641_913_997_781_7;
const A51: f64 = 1.221_224_509_226_641;
const A52: f64 = 6.019_134_481_288_629;
const A53: f64 = 12.537_083_329_320_87;
const A54: f64 = -0.687_886_036_105_895;
const C21: f64 = -5.6688;
const C31: f64 = -2.430_093_356_833_875;
const C32: f64 = -0.206_359_915_709_191_5;
const C41: f64 = -0.107_352_905_815_137_5;
const C42: f64 = -9.594_562_251_023_355;
const C43: f64 = -20.470_286_148_096_16;
const C51: f64 = 7.496_443_313_967_647;
const C52: f64 = -10.246_804_314_643_52;
const C53: f64 = -33.999_903_528_199_05;
const C54: f64 = 11.708_908_932_061_6;
const C61: f64 = 8.083_246_795_921_522;
const C62: f64 = -7.981_132_988_064_893;
const C63: f64 = -31.521_594_328_743_71;
const C64: f64 = 16.319_305_431_231_36;
const C65: f64 = -6.058_818_238_834_054;
const H21: f64 = 10.126_235_083_445_86;
const H22: f64 = -7.487_995_877_610_167;
const H23: f64 = -34.800_918_615_557_47;
const H24: f64 = -7.992_771_707_568_823;
const H25: f64 = 1.025_137_723_295_662;
const H31: f64 = -0.676_280_339_280_125_3;
const H32: f64 = 6.087_714_651_680_015;
const H33: f64 = 16.430_843_208_924_78;
const H34: f64 = 24.767_225_114_183_86;
const H35: f64 = -6.594_389_125_716_872;

/// The Rodas4 method as a [`Method`]: the stages of the current step and the Jacobian they used.
pub struct Rodas4<S> {
    /// F(t, x) at the start of the step.
    f0: S,
    /// F at the end of the last attempt (the next step's `f0`).
    f_new: S,
    /// k₁ … k₅ of the last attempt (for the dense output).
    k: [S; 5],
    x_new: S,
    /// The Jacobian of the last attempt, with the point it was taken at (reused by a retry).
    jacobian: Option<(f64, Vec<f64>, DMatrix<f64>)>,
}

impl<S: State> Rodas4<S> {
    /// J = ∂F/∂x at (t, x): the field's own, or forward differences from `f0 = F(t, x)`.
    fn jacobian<F>(&mut self, f: &F, t: f64, x: &S, evals: &mut usize) -> Result<Option<DMatrix<f64>>, SimError>
    where
        F: StateField<S> + ?Sized,
    {
        if let Some((tj, xj, j)) = &self.jacobian
            && *tj == t
            && xj.as_slice() == x.entries()
        {
            return Ok(Some(j.clone()));
        }
        let j = match f.jacobian(t, x) {
            Some(Ok(j)) => j,
            Some(Err(FieldError::NonFinite { .. })) => return Ok(None),
            Some(Err(e)) => return Err(e.into()),
            None => {
                let n = x.entries().len();
                let mut j = DMatrix::<f64>::zeros(n, n);
                let mut y = x.clone();
                for c in 0..n {
                    let xc = x.entries()[c];
                    let delta = f64::EPSILON.sqrt() * xc.abs().max(1.0);
                    let moved = xc + delta;
                    y.entries_mut()[c] = moved;
                    let Some(fc) = eval(f, t, &y, evals)? else { return Ok(None) };
                    y.entries_mut()[c] = xc;
                    let step = moved - xc;
                    for (r, (a, b)) in fc.entries().iter().zip(self.f0.entries()).enumerate() {
                        j[(r, c)] = (a - b) / step;
                    }
                }
                j
            }
        };
        self.jacobian = Some((t, x.entries().to_vec(), j.clone()));
        Ok(Some(j))
    }
}

/// `y = x + Σ wᵢ kᵢ` over the entries.
fn sum_into<S: State>(y: &mut S, x: &S, terms: &[(f64, &S)]) {
    let (ys, xs) = (y.entries_mut(), x.entries());
    ys.copy_from_slice(xs);
    for (w, k) in terms {
        for (yi, ki) in ys.iter_mut().zip(k.entries()) {
            *yi += w * ki;
        }
    }
}

impl<S: State> Method<S> for Rodas4<S> {
    fn order(&self) -> f64 {
        4.0
    }

    fn new(k1: S) -> Self {
        let z = k1.zeros_like();
        Rodas4 { f_new: z.clone(), k: std::array::from_fn(|_| z.clone()), x_new: z, f0: k1, jacobian: None }
    }

    #[allow(clippy::too_many_lines, clippy::many_single_char_names)]
    fn attempt<F>(&mut self, f: &F, t: f64, x: &S, h: f64, tol: Tolerances, evals: &mut usize) -> Result<Attempt, SimError>
    where
        F: StateField<S> + ?Sized,
    {
        let n = x.entries().len();
        let Some(jac) = self.jacobian(f, t, x, evals)? else { return Ok(Attempt::NonFinite) };
        // ∂F/∂t by a forward difference.
        let dt = f64::EPSILON.sqrt() * t.abs().max(1.0);
        let Some(ft) = eval(f, t + dt, x, evals)? else { return Ok(Attempt::NonFinite) };
        let ft: Vec<f64> = ft.entries().iter().zip(self.f0.entries()).map(|(a, b)| (a - b) / dt).collect();
        let mut e = -jac;
        let diag = 1.0 / (h * GAMMA);
        for i in 0..n {
            e[(i, i)] += diag;
        }
        let lu = e.lu();
        if !lu.is_invertible() {
            return Ok(Attempt::NonFinite);
        }
        // Solve E k = F(stage) + Σ (C/h) k + h d ∂F/∂t.
        let solve = |fs: &S, d: f64, c: &[(f64, &S)]| -> Option<S> {
            let mut rhs = DVector::<f64>::from_fn(n, |i, _| fs.entries()[i] + h * d * ft[i]);
            for (w, k) in c {
                for (r, ki) in rhs.iter_mut().zip(k.entries()) {
                    *r += w / h * ki;
                }
            }
            let sol = lu.solve(&rhs)?;
            let mut k = fs.zeros_like();
            k.entries_mut().copy_from_slice(sol.as_slice());
            k.entries().iter().all(|v| v.is_finite()).then_some(k)
        };
        macro_rules! stage {
            ($t:expr, $y:expr) => {
                match eval(f, $t, $y, evals)? {
                    Some(v) => v,
                    None => return Ok(Attempt::NonFinite),
                }
            };
        }
        macro_rules! solved {
            ($e:expr) => {
                match $e {
                    Some(k) => k,
                    None => return Ok(Attempt::NonFinite),
                }
            };
        }
        let mut y = x.zeros_like();
        let k1 = solved!(solve(&self.f0, D1, &[]));
        sum_into(&mut y, x, &[(A21, &k1)]);
        let fs = stage!(t + C2 * h, &y);
        let k2 = solved!(solve(&fs, D2, &[(C21, &k1)]));
        sum_into(&mut y, x, &[(A31, &k1), (A32, &k2)]);
        let fs = stage!(t + C3 * h, &y);
        let k3 = solved!(solve(&fs, D3, &[(C31, &k1), (C32, &k2)]));
        sum_into(&mut y, x, &[(A41, &k1), (A42, &k2), (A43, &k3)]);
        let fs = stage!(t + C4 * h, &y);
        let k4 = solved!(solve(&fs, D4, &[(C41, &k1), (C42, &k2), (C43, &k3)]));
        sum_into(&mut y, x, &[(A51, &k1), (A52, &k2), (A53, &k3), (A54, &k4)]);
        let fs = stage!(t + h, &y);
        let k5 = solved!(solve(&fs, 0.0, &[(C51, &k1), (C52, &k2), (C53, &k3), (C54, &k4)]));
        let y5 = y.clone();
        sum_into(&mut y, &y5, &[(1.0, &k5)]);
        let fs = stage!(t + h, &y);
        let k6 = solved!(solve(&fs, 0.0, &[(C61, &k1), (C62, &k2), (C63, &k3), (C64, &k4), (C65, &k5)]));
        let y4 = y.clone();
        sum_into(&mut y, &y4, &[(1.0, &k6)]);
        if !y.entries().iter().all(|v| v.is_finite()) {
            return Ok(Attempt::NonFinite);
        }
        let mut sum = 0.0;
        for ((xi, yi), ei) in x.entries().iter().zip(y.entries()).zip(k6.entries()) {
            let sk = (tol.atol + tol.rtol * xi.abs().max(yi.abs())).max(f64::MIN_POSITIVE);
            sum += (ei / sk).powi(2);
        }
        let err = if n == 0 { 0.0 } else { (sum / n as f64).sqrt() };
        if err.is_nan() {
            return Ok(Attempt::NonFinite);
        }
        // F at the new state starts the next step (only an accepted step uses it).
        let f_new = stage!(t + h, &y);
        self.f_new = f_new;
        self.k = [k1, k2, k3, k4, k5];
        self.x_new = y;
        Ok(Attempt::Done { err })
    }

    fn x_new(&self) -> &S {
        &self.x_new
    }

    fn replace_x_new(&mut self, x: S) {
        self.x_new = x;
    }

    fn restart(&mut self, k1: S) {
        self.f0 = k1;
    }

    fn advance(&mut self) {
        self.f0 = self.f_new.clone();
    }

    /// x₀ + θ (x₁ − x₀ + (1 − θ)(Σ h₂ⱼ kⱼ + θ Σ h₃ⱼ kⱼ)), third order (no evaluations).
    fn dense<F>(&self, _f: &F, t: f64, x: &S, h: f64, t_end: f64, _evals: &mut usize) -> Result<Dense<S>, SimError>
    where
        F: StateField<S> + ?Sized,
    {
        let z = x.zeros_like();
        let mut r: [S; 8] = std::array::from_fn(|_| z.clone());
        r[0] = x.clone();
        let [k1, k2, k3, k4, k5] = &self.k;
        sum_into(&mut r[1], &self.x_new, &[(-1.0, x)]);
        sum_into(&mut r[2], &z, &[(H21, k1), (H22, k2), (H23, k3), (H24, k4), (H25, k5)]);
        sum_into(&mut r[3], &z, &[(H31, k1), (H32, k2), (H33, k3), (H34, k4), (H35, k5)]);
        Ok(Dense::from_coefficients(t, h, t_end, r, 4))
    }
}
