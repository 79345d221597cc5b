//! The Dormand–Prince 5(4) Runge–Kutta pair with Hairer's dense output.
//!
//! One step of size `h` from `(t, x)` computes seven stages
//!
//! ```text
//! kᵢ = F(t + cᵢ h, x + h Σ_{j<i} aᵢⱼ kⱼ),    i = 1…7,
//! x̂  = x + h Σ bᵢ kᵢ                         (5th order, propagated)
//! e  = h Σ eᵢ kᵢ,  eᵢ = bᵢ − b̃ᵢ               (embedded 4th-order error estimate)
//! ```
//!
//! The 7th stage is evaluated at `(t + h, x̂)` (`a₇ⱼ = bⱼ`), so it is the first stage of the next
//! step ("first same as last", FSAL): six field evaluations per step.
//!
//! **Dense output.** With `θ = (s − t)/h ∈ [0, 1]` the continuous extension of Hairer,
//! Nørsett & Wanner (*Solving ODEs I*, II.6; the `CONTD5` routine of `DOPRI5`) is
//!
//! ```text
//! u(θ) = r₁ + θ (r₂ + (1−θ) (r₃ + θ (r₄ + (1−θ) r₅)))
//! r₁ = x,  r₂ = x̂ − x,  r₃ = h k₁ − r₂,  r₄ = r₂ − h k₇ − r₃,  r₅ = h Σ dᵢ kᵢ
//! ```
//!
//! a quintic in `θ` that interpolates `x`, `x̂`, `k₁`, `k₇` and is 4th-order accurate
//! everywhere in the step (5th order at the end points). [`DenseSegment`] stores `r₁…r₅`.

use nalgebra::SVector;

use crate::error::{FieldError, SimError};
use crate::ode::method::Tolerances;
use crate::ode::method::{Attempt, Method};
use crate::ode::state::{State, StateField};

// Butcher tableau (Dormand & Prince 1980).
const C2: f64 = 1.0 / 5.0;
const C3: f64 = 3.0 / 10.0;
const C4: f64 = 4.0 / 5.0;
const C5: f64 = 8.0 / 9.0;
const A21: f64 = 1.0 / 5.0;
const A31: f64 = 3.0 / 40.0;
const A32: f64 = 9.0 / 40.0;
const A41: f64 = 44.0 / 45.0;
const A42: f64 = -56.0 / 15.0;
const A43: f64 = 32.0 / 9.0;
const A51: f64 = 19372.0 / 6561.0;
const A52: f64 = -25360.0 / 2187.0;
const A53: f64 = 64448.0 / 6561.0;
const A54: f64 = -212.0 / 729.0;
const A61: f64 = 9017.0 / 3168.0;
const A62: f64 = -355.0 / 33.0;
const A63: f64 = 46732.0 / 5247.0;
const A64: f64 = 49.0 / 176.0;
const A65: f64 = -5103.0 / 18656.0;
// 5th-order weights b (= a7j); b2 = b7 = 0.
const B1: f64 = 35.0 / 384.0;
const B3: f64 = 500.0 / 1113.0;
const B4: f64 = 125.0 / 192.0;
const B5: f64 = -2187.0 / 6784.0;
const B6: f64 = 11.0 / 84.0;
// Error weights e = b − b̃.
const E1: f64 = 71.0 / 57600.0;
const E3: f64 = -71.0 / 16695.0;
const E4: f64 = 71.0 / 1920.0;
const E5: f64 = -17253.0 / 339200.0;
const E6: f64 = 22.0 / 525.0;
const E7: f64 = -1.0 / 40.0;
// Dense output weights (Hairer's DOPRI5).
const D1: f64 = -12715105075.0 / 11282082432.0;
const D3: f64 = 87487479700.0 / 32700410799.0;
const D4: f64 = -10690763975.0 / 1880347072.0;
const D5: f64 = 701980252875.0 / 199316789632.0;
const D6: f64 = -1453857185.0 / 822651844.0;
const D7: f64 = 69997945.0 / 29380423.0;

/// The dense output of one accepted step: `u(θ)` on `[t_start, t_end]`, for any [`State`].
///
/// [`DenseSegment<D>`] is the fixed-size case the trajectories store; obtained from
/// [`crate::Trajectory::segments`] when [`crate::Options::dense`] is set.
///
/// ```
/// use routh_runtime::{FieldError, Flow, Options, Simulate, nalgebra::Vector1};
/// let decay = |_t: f64, x: &Vector1<f64>| -> Result<Vector1<f64>, FieldError> { Ok(-x) };
/// let traj = Flow(&decay).run(Vector1::new(1.0)).span(0.0..1.0).options(&Options::default().dense(true)).go()?;
/// let seg = &traj.segments[0];
/// let mid = 0.5 * (seg.t_start() + seg.t_end());
/// assert!((seg.eval(mid)[0] - (-mid).exp()).abs() < 1e-8);
/// # Ok::<(), routh_runtime::SimError>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Dense<S> {
    t0: f64,
    h: f64,
    t_end: f64,
    /// The coefficients r₀…r_{len−1} of the nested form (five for DOPRI5, eight for DOP853).
    r: [S; 8],
    len: usize,
}

/// The dense output of one step of a fixed-size state `SVector<f64, D>`.
pub type DenseSegment<const D: usize> = Dense<SVector<f64, D>>;

impl<S: State> Dense<S> {
    /// Start time of the step.
    #[inline]
    pub fn t_start(&self) -> f64 {
        self.t0
    }
    /// End of the valid range: the step end, or the event time if a terminal event cut it.
    #[inline]
    pub fn t_end(&self) -> f64 {
        self.t_end
    }
    /// Signed step size `h` of the underlying step (`θ = (t − t_start)/h`).
    #[inline]
    pub fn step(&self) -> f64 {
        self.h
    }
    /// Whether `t` lies in the segment (end points included, either direction).
    #[inline]
    pub fn contains(&self, t: f64) -> bool {
        let (lo, hi) = if self.t0 <= self.t_end { (self.t0, self.t_end) } else { (self.t_end, self.t0) };
        t >= lo && t <= hi
    }
    /// Evaluate the interpolant at time `t`. Outside [`contains`](Self::contains) it
    /// extrapolates the polynomial (accurate only slightly beyond the ends).
    #[inline]
    pub fn eval(&self, t: f64) -> S {
        self.eval_theta((t - self.t0) / self.h)
    }
    /// Evaluate at the normalised position `θ = (t − t_start)/h`: the nested form
    /// `r₀ + θ (r₁ + (1−θ) (r₂ + θ (r₃ + (1−θ) (r₄ + …))))` of the method's coefficients.
    #[inline]
    pub fn eval_theta(&self, theta: f64) -> S {
        let t1 = 1.0 - theta;
        let n = self.len;
        let mut out = self.r[n - 1].clone();
        {
            let o = out.entries_mut();
            for m in (1..n - 1).rev() {
                // The factor in front of r_{m+1}: θ after an odd index, 1 − θ after an even one.
                let w = if (m + 1) % 2 == 1 { theta } else { t1 };
                let rm = self.r[m].entries();
                for i in 0..o.len() {
                    o[i] = rm[i] + w * o[i];
                }
            }
            let r0 = self.r[0].entries();
            for i in 0..o.len() {
                o[i] = r0[i] + theta * o[i];
            }
        }
        out
    }

    /// The dense output with the nested-form coefficients `r[..len]` (see [`Dense::eval_theta`]).
    pub(crate) fn from_coefficients(t0: f64, h: f64, t_end: f64, r: [S; 8], len: usize) -> Dense<S> {
        Dense { t0, h, t_end, r, len: len.clamp(2, 8) }
    }

    /// The constant `x` at `t` (the dense output of a step of size zero).
    pub(crate) fn constant(t: f64, x: &S) -> Dense<S> {
        let z = x.zeros_like();
        let mut r: [S; 8] = std::array::from_fn(|_| z.clone());
        r[0] = x.clone();
        Dense { t0: t, h: 0.0, t_end: t, r, len: 2 }
    }
    /// The cubic Hermite interpolant of a step `(t0, x0) → (t0 + h, x1)` with the derivatives
    /// `f0`, `f1` at its ends (`start` = (x0, f0), `end` = (x1, f1)) — a continuous extension for any method that has them (third-order
    /// accurate), in the same form: `r₁ = x0`, `r₂ = x1 − x0`, `r₃ = h f0 − r₂`,
    /// `r₄ = r₂ − h f1 − r₃`, `r₅ = 0`. Valid on `[t0, t_end]`.
    ///
    /// ```
    /// use routh_runtime::{Dense, nalgebra::Vector1};
    /// // x = t³ on [0, 1]: the cubic is reproduced exactly.
    /// let (start, end) = ((&Vector1::new(0.0), &Vector1::new(0.0)), (&Vector1::new(1.0), &Vector1::new(3.0)));
    /// let d = Dense::cubic_hermite(0.0, 1.0, start, end, 1.0);
    /// assert!((d.eval(0.5)[0] - 0.125).abs() < 1e-15);
    /// ```
    pub fn cubic_hermite(t0: f64, h: f64, (x0, f0): (&S, &S), (x1, f1): (&S, &S), t_end: f64) -> Dense<S> {
        let z = x0.zeros_like();
        let mut r: [S; 8] = std::array::from_fn(|_| z.clone());
        r[0] = x0.clone();
        let [_, r2, r3, r4, ..] = &mut r;
        let (r2, r3, r4) = (r2.entries_mut(), r3.entries_mut(), r4.entries_mut());
        let (a, b, fa, fb) = (x0.entries(), x1.entries(), f0.entries(), f1.entries());
        for i in 0..a.len() {
            let dx = b[i] - a[i];
            r2[i] = dx;
            r3[i] = h * fa[i] - dx;
            r4[i] = dx - h * fb[i] - r3[i];
        }
        Dense { t0, h, t_end, r, len: 4 }
    }

    pub(crate) fn truncate(&mut self, t_end: f64) {
        self.t_end = t_end;
    }
}

/// The Dormand–Prince 5(4) pair as a [`Method`]: the stages of the current step.
pub struct Dopri5<S> {
    /// `k[0]` is `F(t, x)` at the start of the step (FSAL), `k[6]` at its end.
    k: [S; 7],
    /// The 5th-order solution at the end of the last attempted step.
    x_new: S,
}

#[inline]
fn all_finite(v: &[f64]) -> bool {
    v.iter().all(|x| x.is_finite())
}

/// Evaluate the field; `Ok(None)` for a non-finite result (retryable with a smaller step).
#[inline]
pub(crate) fn eval<F, S>(f: &F, t: f64, x: &S, evals: &mut usize) -> Result<Option<S>, SimError>
where
    F: StateField<S> + ?Sized,
{
    *evals += 1;
    match f.eval(t, x) {
        Ok(v) => Ok(Some(v)),
        Err(FieldError::NonFinite { .. }) => Ok(None),
        Err(e) => Err(e.into()),
    }
}

macro_rules! stage {
    ($f:expr, $t:expr, $x:expr, $evals:expr) => {
        match eval($f, $t, $x, $evals)? {
            Some(v) => v,
            None => return Ok(Attempt::NonFinite),
        }
    };
}

/// `y = x + h Σ wᵢ kᵢ` over the entries (the stage sums of the tableau).
macro_rules! combine {
    ($y:expr, $x:expr, $h:expr; $w0:expr, $k0:ident $(; $w:expr, $k:ident)*) => {{
        let y = $y.entries_mut();
        let x = $x.entries();
        let $k0 = $k0.entries();
        $( let $k = $k.entries(); )*
        for i in 0..y.len() {
            y[i] = x[i] + $h * ($w0 * $k0[i] $( + $w * $k[i] )*);
        }
    }};
}

impl<S: State> Method<S> for Dopri5<S> {
    fn order(&self) -> f64 {
        5.0
    }

    fn new(k1: S) -> Self {
        let z = k1.zeros_like();
        Dopri5 { k: [k1, z.clone(), z.clone(), z.clone(), z.clone(), z.clone(), z.clone()], x_new: z }
    }

    /// Attempt a step of size `h` from `(t, x)`; `self.k[0]` must hold `F(t, x)`.
    #[inline]
    fn attempt<F>(&mut self, f: &F, t: f64, x: &S, h: f64, tol: Tolerances, evals: &mut usize) -> Result<Attempt, SimError>
    where
        F: StateField<S> + ?Sized,
    {
        let k1 = &self.k[0];
        let mut y = x.zeros_like();

        combine!(y, x, h; A21, k1);
        let k2 = stage!(f, t + C2 * h, &y, evals);
        combine!(y, x, h; A31, k1; A32, k2);
        let k3 = stage!(f, t + C3 * h, &y, evals);
        combine!(y, x, h; A41, k1; A42, k2; A43, k3);
        let k4 = stage!(f, t + C4 * h, &y, evals);
        combine!(y, x, h; A51, k1; A52, k2; A53, k3; A54, k4);
        let k5 = stage!(f, t + C5 * h, &y, evals);
        combine!(y, x, h; A61, k1; A62, k2; A63, k3; A64, k4; A65, k5);
        let k6 = stage!(f, t + h, &y, evals);
        combine!(y, x, h; B1, k1; B3, k3; B4, k4; B5, k5; B6, k6);
        if !all_finite(y.entries()) {
            return Ok(Attempt::NonFinite);
        }
        let k7 = stage!(f, t + h, &y, evals);
        if !all_finite(k7.entries()) {
            return Ok(Attempt::NonFinite);
        }

        let mut sum = 0.0;
        {
            let (xs, ys) = (x.entries(), y.entries());
            let (k1, k3, k4, k5, k6, k7) = (k1.entries(), k3.entries(), k4.entries(), k5.entries(), k6.entries(), k7.entries());
            for i in 0..xs.len() {
                let e = h * (E1 * k1[i] + E3 * k3[i] + E4 * k4[i] + E5 * k5[i] + E6 * k6[i] + E7 * k7[i]);
                let sk = (tol.atol + tol.rtol * xs[i].abs().max(ys[i].abs())).max(f64::MIN_POSITIVE);
                let r = e / sk;
                sum += r * r;
            }
        }
        let n = x.entries().len();
        let err = if n == 0 { 0.0 } else { (sum / n as f64).sqrt() };
        if err.is_nan() {
            return Ok(Attempt::NonFinite);
        }
        self.k[1] = k2;
        self.k[2] = k3;
        self.k[3] = k4;
        self.k[4] = k5;
        self.k[5] = k6;
        self.k[6] = k7;
        self.x_new = y;
        Ok(Attempt::Done { err })
    }

    #[inline]
    fn x_new(&self) -> &S {
        &self.x_new
    }

    fn replace_x_new(&mut self, x: S) {
        self.x_new = x;
    }

    fn restart(&mut self, k1: S) {
        self.k[0] = k1;
    }

    /// Dense output of the last successful attempt `(t, x) → (t + h, x_new)` (no evaluations).
    fn dense<F>(&self, _f: &F, t: f64, x: &S, h: f64, t_end: f64, _evals: &mut usize) -> Result<Dense<S>, SimError>
    where
        F: StateField<S> + ?Sized,
    {
        let k = &self.k;
        let z = x.zeros_like();
        let mut r: [S; 8] = std::array::from_fn(|_| z.clone());
        r[0] = x.clone();
        let [_, r2, r3, r4, r5, ..] = &mut r;
        let (r2, r3, r4, r5) = (r2.entries_mut(), r3.entries_mut(), r4.entries_mut(), r5.entries_mut());
        let (xs, xn) = (x.entries(), self.x_new.entries());
        let (k1, k3, k4, k5, k6, k7) =
            (k[0].entries(), k[2].entries(), k[3].entries(), k[4].entries(), k[5].entries(), k[6].entries());
        for i in 0..xs.len() {
            let dx = xn[i] - xs[i];
            let bspl = h * k1[i] - dx;
            r2[i] = dx;
            r3[i] = bspl;
            r4[i] = dx - h * k7[i] - bspl;
            r5[i] = h * (D1 * k1[i] + D3 * k3[i] + D4 * k4[i] + D5 * k5[i] + D6 * k6[i] + D7 * k7[i]);
        }
        Ok(Dense { t0: t, h, t_end, r, len: 5 })
    }

    /// Make the end-of-step derivative the first stage of the next step (FSAL).
    #[inline]
    fn advance(&mut self) {
        self.k[0] = self.k[6].clone();
    }
}

/// Hairer's automatic initial step (`HINIT` of DOPRI5).
///
/// With `sk = atol + rtol |x₀|`, `d₀ = ‖x₀/sk‖`, `d₁ = ‖f₀/sk‖`: a trial `h₀ = 0.01 d₀/d₁`
/// (or `1e-6` if either is tiny), an explicit Euler step to estimate the second derivative
/// `d₂ = ‖(f(t₀+h₀, x₀+h₀f₀) − f₀)/sk‖ / h₀`, and finally
/// `h = min(100 h₀, (0.01 / max(d₁, d₂))^{1/5}, h_max)`.
/// `order` is the method's [`Method::order`].
#[allow(clippy::too_many_arguments)]
pub(crate) fn initial_step<F, S>(
    order: f64,
    f: &F,
    t0: f64,
    x0: &S,
    f0: &S,
    dir: f64,
    hmax: f64,
    tol: Tolerances,
    evals: &mut usize,
) -> Result<f64, SimError>
where
    F: StateField<S> + ?Sized,
    S: State,
{
    let (x0s, f0s) = (x0.entries(), f0.entries());
    let scale = |i: usize| (tol.atol + tol.rtol * x0s[i].abs()).max(f64::MIN_POSITIVE);
    let mut dnf = 0.0;
    let mut dny = 0.0;
    for i in 0..x0s.len() {
        let sk = scale(i);
        dnf += (f0s[i] / sk).powi(2);
        dny += (x0s[i] / sk).powi(2);
    }
    let mut h = if dnf <= 1e-10 || dny <= 1e-10 { 1e-6 } else { (dny / dnf).sqrt() * 0.01 };
    if !h.is_finite() {
        h = 1e-6;
    }
    h = h.min(hmax);
    let mut x1 = x0.clone();
    for (i, v) in x1.entries_mut().iter_mut().enumerate() {
        *v += dir * h * f0s[i];
    }
    let Some(f1) = eval(f, t0 + dir * h, &x1, evals)? else {
        // The trial point is already bad: let the step-size control shrink from here.
        return Ok(h);
    };
    let mut der2 = 0.0;
    for (i, v) in f1.entries().iter().enumerate() {
        der2 += ((v - f0s[i]) / scale(i)).powi(2);
    }
    let der2 = der2.sqrt() / h;
    let der12 = der2.max(dnf.sqrt());
    let h1 = if !(der12 > 1e-15) || !der12.is_finite() {
        if der12.is_finite() { (h * 1e-3).max(1e-6) } else { h * 1e-3 }
    } else {
        (0.01 / der12).powf(1.0 / order)
    };
    let h = (100.0 * h).min(h1).min(hmax);
    Ok(if h.is_finite() && h > 0.0 { h } else { 1e-6f64.min(hmax) })
}
