//! Detection of Zeno behaviour: infinitely many impacts accumulating before a finite time.
//!
//! A bouncing ball with restitution `e < 1` dropped from rest hits the floor at
//! `t₁ = √(2h₀/g)`, then after intervals `Δₖ = 2 eᵏ v₁ / g`: the intervals shrink geometrically
//! with ratio `e` and the impact times converge to `t∞ = t₁ (1 + e)/(1 − e)`. A pure impact
//! simulation would never get there — it would spend ever more work on ever shorter flights.
//!
//! [`Plan::hybrid`](crate::Plan::hybrid) feeds the time of every *impact instant* (simultaneous impacts
//! count once) to a monitor that looks at the last [`ZenoOptions::min_impacts`] instants
//! `t₀ < t₁ < … < tₙ` — the inter-impact intervals `Δⱼ = tⱼ₊₁ − tⱼ` and their ratios
//! `ρⱼ = Δⱼ₊₁ / Δⱼ` — and declares Zeno when either
//!
//! * **geometric tail**: the ratios have a median `r` of at most [`ZenoOptions::max_ratio`],
//!   every ratio is within [`ZenoOptions::ratio_spread`]` · (1 − r)` of it (the intervals
//!   shrink by a consistent factor, unlike e.g. `Δₖ ∝ 1/k` whose ratios creep towards 1 and
//!   whose sum diverges), and the accumulation time estimated from the geometric series
//!
//!   ```text
//!   t∞ ≈ tₙ + Δₙ₋₁ · r / (1 − r)
//!   ```
//!
//!   lies within the time span (otherwise the accumulation is not reached and the simulation
//!   simply continues); the median makes the test robust to the noise of event location
//!   (`~1e-12` in `t`) once the intervals become short. The reported accumulation time refines
//!   this: forces besides the impulses make the ratios drift with the bounce (with drag they grow
//!   towards e as the bounces shrink, and the median's series ends 1e-3 early), so the last ratios
//!   are fitted as an affine function of the interval and the tail is summed with it;
//!   [`HybridStop::Zeno`](crate::HybridStop)'s `error` is that correction's size, a bound of the
//!   estimate's error in practice; or
//! * **interval floor**: every interval of the window is at most [`ZenoOptions::min_interval`]
//!   (raised to `1024 ε |t|` for large `|t|`, the resolution of `t` itself). Intervals that
//!   short are dominated by location noise, so the ratio test is unreliable; the estimate above
//!   is still reported when `r < 1`, else `t∞ = tₙ`.
//!
//! A periodic impact sequence (elastic ball: all ratios `≈ 1`) is never Zeno; neither is a
//! sequence with growing intervals.
//!
//! A fast-converging tail (small restitution) can run into persistent contact — flights below
//! what the tolerances resolve, [`crate::HybridStop::Stuck`] — before `min_impacts` instants
//! are collected, or while the early intervals of a nonlinear system are not yet geometric.
//! Then the geometric-tail test (without the span condition) is applied to the last instants —
//! the longest run of at least 4 within the window that passes — and Zeno is reported instead
//! of `Stuck` if one does.

use std::collections::VecDeque;

use crate::error::SimError;

/// Zeno detection settings of [`crate::HybridOptions`] (see the [module docs](self)).
///
/// ```
/// use routh_runtime::ZenoOptions;
/// let z = ZenoOptions::default().min_impacts(30).max_ratio(0.9);
/// assert!(z.enabled);
/// assert!(z.validate().is_ok());
/// assert!(ZenoOptions::default().min_impacts(2).validate().is_err());
/// ```
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub struct ZenoOptions {
    /// Whether to detect Zeno behaviour at all. Default `true`. When disabled, an accumulation
    /// of impacts ends with [`crate::HybridStop::ImpactLimit`] (or
    /// [`crate::HybridStop::Stuck`] once the flights become shorter than the contact
    /// tolerance can resolve).
    pub enabled: bool,
    /// Number of most recent impact instants examined, `≥ 4` (so at least two ratios).
    /// Default `20`.
    pub min_impacts: usize,
    /// Largest median ratio of successive intervals accepted as a geometric tail, in `(0, 1)`.
    /// Default `0.95`; a ball with restitution above `0.95` is caught by the interval floor
    /// instead.
    pub max_ratio: f64,
    /// Largest deviation of any ratio from the median `r`, relative to `1 − r`; finite and
    /// `> 0`. Default `0.25`.
    pub ratio_spread: f64,
    /// Interval floor (absolute, in units of `t`), finite and `≥ 0`. Default `1e-9`.
    pub min_interval: f64,
    /// Continue past an accumulation when the system completes it
    /// ([`crate::HybridSystem::zeno_completion`], e.g. a transition into the mode where the
    /// contact is held); when `false`, or without a completion, the run ends with
    /// [`crate::HybridStop::Zeno`]. Default `true`.
    pub complete: bool,
}

impl Default for ZenoOptions {
    fn default() -> Self {
        ZenoOptions { enabled: true, min_impacts: 20, max_ratio: 0.95, ratio_spread: 0.25, min_interval: 1e-9, complete: true }
    }
}

impl ZenoOptions {
    /// Set [`ZenoOptions::enabled`].
    #[must_use]
    pub fn enabled(mut self, yes: bool) -> Self {
        self.enabled = yes;
        self
    }
    /// Set [`ZenoOptions::complete`].
    #[must_use]
    pub fn complete(mut self, on: bool) -> Self {
        self.complete = on;
        self
    }
    /// Set [`ZenoOptions::min_impacts`].
    #[must_use]
    pub fn min_impacts(mut self, n: usize) -> Self {
        self.min_impacts = n;
        self
    }
    /// Set [`ZenoOptions::max_ratio`].
    #[must_use]
    pub fn max_ratio(mut self, r: f64) -> Self {
        self.max_ratio = r;
        self
    }
    /// Set [`ZenoOptions::ratio_spread`].
    #[must_use]
    pub fn ratio_spread(mut self, s: f64) -> Self {
        self.ratio_spread = s;
        self
    }
    /// Set [`ZenoOptions::min_interval`].
    #[must_use]
    pub fn min_interval(mut self, dt: f64) -> Self {
        self.min_interval = dt;
        self
    }

    /// Check the settings (also when detection is disabled).
    ///
    /// # Errors
    /// [`SimError::InvalidOptions`] naming the first offending setting.
    pub fn validate(&self) -> Result<(), SimError> {
        let bad = |msg: String| Err(SimError::InvalidOptions(msg));
        if self.min_impacts < 4 {
            return bad(format!("zeno.min_impacts must be >= 4, got {}", self.min_impacts));
        }
        if !(self.max_ratio > 0.0 && self.max_ratio < 1.0) {
            return bad(format!("zeno.max_ratio must be in (0, 1), got {}", self.max_ratio));
        }
        if !(self.ratio_spread.is_finite() && self.ratio_spread > 0.0) {
            return bad(format!("zeno.ratio_spread must be finite and > 0, got {}", self.ratio_spread));
        }
        if !(self.min_interval.is_finite() && self.min_interval >= 0.0) {
            return bad(format!("zeno.min_interval must be finite and >= 0, got {}", self.min_interval));
        }
        Ok(())
    }
}

/// The sliding window of impact instants.
#[derive(Debug)]
pub(crate) struct ZenoMonitor {
    times: VecDeque<f64>,
    ratios: Vec<f64>,
}

impl ZenoMonitor {
    pub(crate) fn new(options: &ZenoOptions) -> Self {
        let n = if options.enabled { options.min_impacts } else { 0 };
        ZenoMonitor { times: VecDeque::with_capacity(n + 1), ratios: Vec::with_capacity(n) }
    }

    /// Record the impact instant `t` (increasing); returns the estimated accumulation time and
    /// its error estimate if the window now shows Zeno behaviour before `t_end`.
    pub(crate) fn push(&mut self, options: &ZenoOptions, t: f64, t_end: f64) -> Option<(f64, f64)> {
        if !options.enabled {
            return None;
        }
        let n = options.min_impacts.max(4);
        if self.times.len() == n {
            self.times.pop_front();
        }
        self.times.push_back(t);
        if self.times.len() < n {
            return None;
        }
        self.evaluate(options, Some(t_end))
    }

    /// For a simulation that ran into persistent contact: whether the last impact instants
    /// (the longest run of at least 4 of the window) form a geometric tail; returns the
    /// estimated accumulation time and its error estimate.
    pub(crate) fn tail(&mut self, options: &ZenoOptions) -> Option<(f64, f64)> {
        if !options.enabled {
            return None;
        }
        while self.times.len() >= 4 {
            if let Some(t_acc) = self.evaluate(options, None) {
                return Some(t_acc);
            }
            self.times.pop_front();
        }
        None
    }

    /// The tests of the module docs on the current window; the interval floor and the span
    /// condition only apply with `t_end`.
    fn evaluate(&mut self, options: &ZenoOptions, t_end: Option<f64>) -> Option<(f64, f64)> {
        let t = *self.times.back()?;
        let floor = options.min_interval.max(1024.0 * f64::EPSILON * t.abs());
        let mut all_short = true;
        let mut shrinking = true;
        self.ratios.clear();
        let mut prev: Option<f64> = None;
        let mut last_dt = 0.0;
        let intervals: Vec<f64> = self.times.iter().zip(self.times.iter().skip(1)).map(|(a, b)| b - a).collect();
        for &dt in &intervals {
            if !(dt <= floor) {
                all_short = false;
            }
            if let Some(p) = prev {
                let rho = dt / p;
                if !(0.0..1.0).contains(&rho) {
                    shrinking = false;
                }
                self.ratios.push(rho);
            }
            prev = Some(dt);
            last_dt = dt;
        }
        if !(shrinking || all_short) {
            return None;
        }
        // Median of the ratios (NaN-free: intervals are positive, ratios finite or ∞).
        self.ratios.sort_unstable_by(f64::total_cmp);
        let m = self.ratios.len();
        let r = if m % 2 == 1 { self.ratios[m / 2] } else { 0.5 * (self.ratios[m / 2 - 1] + self.ratios[m / 2]) };
        let t_acc = if (0.0..1.0).contains(&r) { t + last_dt * r / (1.0 - r) } else { t };
        if all_short && t_end.is_some() {
            // Intervals at the floor: the accumulation is here, to within the last interval.
            return Some((if t_acc.is_finite() { t_acc } else { t }, last_dt));
        }
        let (t_acc, error) = if shrinking { tail_estimate(t, &intervals) } else { (t_acc, f64::INFINITY) };
        let spread = options.ratio_spread * (1.0 - r);
        let consistent = self.ratios.iter().all(|rho| (rho - r).abs() <= spread);
        let in_span = t_end.is_none_or(|te| t_acc <= te);
        (shrinking && consistent && r <= options.max_ratio && in_span).then_some((t_acc, error))
    }
}

/// The accumulation time after the last instant `t` of a shrinking sequence with the intervals `d`
/// (oldest first), and an estimate of its error.
///
/// The ratios ρₖ = dₖ₊₁/dₖ of a pure impact sequence are constant (the geometric series), but
/// other forces make them drift with the size of the bounce: with drag they grow towards the
/// restitution coefficient as the bounces shrink, and a series summed with one ratio (the median,
/// or the last) ends early. So the ratios are fitted as an affine function of the interval,
/// ρ ≈ a + b·Δ, over the last (up to six) of them, and the intervals are continued by that law until
/// they vanish. The error estimate is the difference from the geometric tail of the last ratio
/// alone (Aitken's extrapolation), which the fit corrects; where the fit is degenerate or predicts
/// a ratio outside [0, 1), that geometric tail is the estimate.
fn tail_estimate(t: f64, d: &[f64]) -> (f64, f64) {
    let m = d.len();
    let last = d[m - 1];
    let rho = last / d[m - 2];
    let aitken = t + last * rho / (1.0 - rho);
    let k = (m - 1).min(6);
    let xs = &d[m - 1 - k..m - 1];
    let ys: Vec<f64> = (m - k..m).map(|i| d[i] / d[i - 1]).collect();
    let (mx, my) = (xs.iter().sum::<f64>() / k as f64, ys.iter().sum::<f64>() / k as f64);
    let sxx: f64 = xs.iter().map(|x| (x - mx).powi(2)).sum();
    if k < 2 || !(sxx > 0.0) {
        return (aitken, 0.0);
    }
    let b = xs.iter().zip(&ys).map(|(x, y)| (x - mx) * (y - my)).sum::<f64>() / sxx;
    let a = my - b * mx;
    let (mut tt, mut dt) = (t, last);
    for _ in 0..100_000 {
        let r = a + b * dt;
        if !(0.0..1.0).contains(&r) {
            return (aitken, f64::INFINITY);
        }
        dt *= r;
        tt += dt;
        if dt <= f64::EPSILON * tt.abs().max(1.0) * 1e-3 {
            return (tt, (tt - aitken).abs());
        }
    }
    (aitken, f64::INFINITY)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn feed(times: &[f64], opts: &ZenoOptions, t_end: f64) -> Option<(usize, f64)> {
        let mut m = ZenoMonitor::new(opts);
        times.iter().enumerate().find_map(|(k, &t)| m.push(opts, t, t_end).map(|(acc, _)| (k, acc)))
    }

    #[test]
    fn geometric_sequence_is_detected_exactly() {
        let (e, t1) = (0.7, 1.0);
        let mut times = vec![t1];
        let mut dt = 2.0 * t1;
        for _ in 0..40 {
            dt *= e;
            times.push(times.last().unwrap() + dt);
        }
        // t∞ = t1 + Σ 2 t1 e^k (k ≥ 1) = t1 (1 + e)/(1 − e).
        let exact = t1 * (1.0 + e) / (1.0 - e);
        let opts = ZenoOptions::default();
        let (k, acc) = feed(&times, &opts, 100.0).unwrap();
        assert_eq!(k, opts.min_impacts - 1);
        assert!((acc - exact).abs() < 1e-12 * exact, "{acc} vs {exact}");
        // Beyond the span: not yet Zeno.
        assert!(feed(&times, &opts, exact - 0.5).is_none());
        // Disabled.
        assert!(feed(&times, &opts.clone().enabled(false), 100.0).is_none());
    }

    #[test]
    fn periodic_and_growing_sequences_are_not_zeno() {
        let periodic: Vec<f64> = (0..100).map(|k| 0.5 + k as f64).collect();
        assert!(feed(&periodic, &ZenoOptions::default(), 1e9).is_none());
        let growing: Vec<f64> = (0..100).map(|k| (k as f64).powi(2)).collect();
        assert!(feed(&growing, &ZenoOptions::default(), 1e9).is_none());
        // Harmonic intervals: shrinking but not geometric.
        let mut t = 0.0;
        let harmonic: Vec<f64> = (1..200)
            .map(|k| {
                t += 1.0 / k as f64;
                t
            })
            .collect();
        assert!(feed(&harmonic, &ZenoOptions::default(), 1e9).is_none());
    }

    #[test]
    fn noisy_tiny_intervals_hit_the_floor() {
        // Chattering with intervals ~1e-11 and noise: ratios straddle 1.
        let times: Vec<f64> = (0..50).map(|k| 3.0 + 1e-11 * k as f64 + if k % 3 == 0 { 2e-12 } else { 0.0 }).collect();
        let (_, acc) = feed(&times, &ZenoOptions::default(), 10.0).unwrap();
        assert!((acc - 3.0).abs() < 1e-9);
    }

    #[test]
    fn short_tail_for_stuck_runs() {
        let opts = ZenoOptions::default();
        let mut m = ZenoMonitor::new(&opts);
        let times = [1.0, 2.0, 2.5, 2.75, 2.875];
        for &t in &times[..3] {
            assert!(m.push(&opts, t, 10.0).is_none());
        }
        assert!(m.tail(&opts).is_none());
        m.push(&opts, times[3], 10.0);
        m.push(&opts, times[4], 10.0);
        assert!((m.tail(&opts).unwrap().0 - 3.0).abs() < 1e-12);
        assert!(m.tail(&opts.clone().enabled(false)).is_none());
        // Not geometric: no tail.
        let mut m = ZenoMonitor::new(&opts);
        for t in [1.0, 2.0, 3.0, 4.0, 5.0] {
            m.push(&opts, t, 10.0);
        }
        assert!(m.tail(&opts).is_none());
    }

    #[test]
    fn median_resists_one_outlier() {
        let e = 0.5;
        let mut times = vec![0.0];
        let mut dt = 1.0;
        for k in 0..19 {
            // One interval perturbed by 5 %.
            let d = if k == 10 { dt * 1.05 } else { dt };
            times.push(times.last().unwrap() + d);
            dt *= e;
        }
        let opts = ZenoOptions::default();
        let (_, acc) = feed(&times, &opts, 10.0).unwrap();
        let last = *times.last().unwrap();
        let exact_tail = dt / e * e / (1.0 - e);
        assert!((acc - (last + exact_tail)).abs() < 1e-9);
    }

    /// A ball with drag, ÿ = −g − γẏ, e = 0.8: the ratios of its intervals drift towards e as
    /// the bounces shrink. The median ratio put the accumulation 1.2e-3 early (3.426182 against
    /// 3.427392); the fitted drift gets it to 1e-6, and the error estimate covers the error.
    #[test]
    fn a_drifting_ratio_is_extrapolated_with_its_error() {
        let (g, gam, e) = (9.81_f64, 0.3_f64, 0.8_f64);
        // y(t) = [v (1 − e^(−s)) + (g/γ)(1 − e^(−s) − s)]/γ with s = γt, the second bracket by its
        // series for small s (it cancels to O(s²)), so that bounces down to 1e-12 s stay accurate.
        let h = |s: f64| {
            if s < 0.1 {
                -s * s / 2.0 + s.powi(3) / 6.0 - s.powi(4) / 24.0 + s.powi(5) / 120.0 - s.powi(6) / 720.0
            } else {
                -(-s).exp_m1() - s
            }
        };
        let y = |v: f64, t: f64| (v * -(-gam * t).exp_m1() + g / gam * h(gam * t)) / gam;
        let vel = |v: f64, t: f64| v * (-gam * t).exp() + g / gam * (-gam * t).exp_m1();
        // Newton on the flight time from the floor with upward speed v (from 2v/g, drag-free).
        let flight = |v: f64| {
            let mut t = 2.0 * v / g;
            for _ in 0..60 {
                t -= y(v, t) / vel(v, t);
            }
            t
        };
        // Dropped from rest at height 1: t₀ solves 1 − g t/γ + g/γ² (1 − e^(−γt)) = 0.
        let mut t0 = (2.0 / g).sqrt();
        for _ in 0..60 {
            let f = 1.0 - g * t0 / gam + g / (gam * gam) * (1.0 - (-gam * t0).exp());
            t0 -= f / (-g / gam + g / gam * (-gam * t0).exp());
        }
        let mut times = vec![t0];
        let mut v = -e * vel(0.0, t0);
        while times.len() < 90 {
            let dt = flight(v);
            v = -e * vel(v, dt);
            times.push(times.last().unwrap() + dt);
        }
        // The limit: after 90 impacts the bounces are so small that drag no longer matters and
        // the ratio is e: the rest is the geometric tail of the last interval (below 1e-8).
        let last = times[89] - times[88];
        assert!(times.windows(2).all(|w| w[1] > w[0]) && last < 3e-9, "{last:e}");
        let exact = times[89] + last * e / (1.0 - e);
        let opts = ZenoOptions::default();
        let mut m = ZenoMonitor::new(&opts);
        let (k, (acc, error)) = times.iter().enumerate().find_map(|(k, &t)| m.push(&opts, t, 100.0).map(|a| (k, a))).unwrap();
        assert_eq!(k, opts.min_impacts - 1);
        eprintln!(
            "drag ball: accumulation {acc:.9} against {exact:.9} (error {:.1e}, estimate {error:.1e})",
            (acc - exact).abs()
        );
        assert!((acc - exact).abs() < 1e-6, "{acc} against {exact}");
        assert!((acc - exact).abs() <= error && error < 1e-3, "error {error:e} for {:e}", (acc - exact).abs());
    }
}
