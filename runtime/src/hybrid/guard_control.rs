//! The hybrid engine's step-control hook: guard resolution and arming (see *Guard-resolution
//! step control* and *Arming* in the module docs of [`crate::hybrid`]).

use nalgebra::SVector;

use super::{HybridOptions, HybridSystem};
use crate::error::SimError;
use crate::ode::stepper::{StepControl, Trial, Verdict};

/// Quartic through `g(0), g(¼), …, g(1)` evaluated at `θ = ⅛, ⅜, ⅝, ⅞` (weights × 128).
const MID_WEIGHTS: [[f64; 5]; 4] = [
    [35.0, 140.0, -70.0, 28.0, -5.0],
    [-5.0, 60.0, 90.0, -20.0, 3.0],
    [3.0, -20.0, 90.0, 60.0, -5.0],
    [-5.0, 28.0, -70.0, 140.0, 35.0],
];

/// Judges each step of a segment in `mode` against the mode's guards.
pub(super) struct GuardControl<'s, S: ?Sized> {
    pub(super) sys: &'s S,
    pub(super) opts: &'s HybridOptions,
    pub(super) mode: usize,
    /// Start of the segment (the arming test applies to its first step only).
    pub(super) t0: f64,
    /// Guards leaving contact at the restart (`h ≤ 0`, `dh/dt > ε_ḣ`).
    pub(super) leaving: Vec<usize>,
}

impl<S, const D: usize> StepControl<SVector<f64, D>> for GuardControl<'_, S>
where
    S: HybridSystem<D> + ?Sized,
{
    fn wants_dense(&self) -> bool {
        // Events are located on the dense output of every accepted step anyway.
        true
    }

    fn check(&mut self, trial: &Trial<'_, SVector<f64, D>>) -> Verdict {
        let Some(seg) = trial.dense else { return Verdict::Ratio(0.0) };
        let (sys, mode) = (self.sys, self.mode);
        let guard_floor = 64.0 * trial.floor.max(self.opts.ode.event_tolerance);
        let ratio = match self.resolution(trial, seg) {
            Err((t, guard)) => {
                // Possibly a guard undefined deep in the inadmissible region: shrink.
                let cause = Some(SimError::NonFiniteGuard { t, guard });
                return Verdict::Shrink { factor: 0.5, cause };
            }
            // Steps this short resolve any guard dip the event location could.
            Ok(r) if trial.h <= guard_floor => r.min(1.0),
            Ok(r) => r,
        };
        if ratio > 1.0 {
            return Verdict::Ratio(ratio);
        }
        // Arming: a guard leaving contact must be strictly positive at the first event sample
        // (θ = ¼) of the first step, or a quick excursion (a tiny bounce) could come back
        // before the event search has seen it positive.
        if trial.t == self.t0 && trial.h > guard_floor && !self.leaving.is_empty() {
            let (ta, xa) = (self.t0 + 0.25 * trial.h, seg.eval_theta(0.25));
            if self.leaving.iter().any(|&i| !(sys.guard(mode, i, ta, &xa) > 0.0)) {
                return Verdict::Shrink { factor: 0.25, cause: None };
            }
        }
        Verdict::Ratio(ratio)
    }
}

impl<S: ?Sized> GuardControl<'_, S> {
    /// The guard-resolution ratio of a step (≤ 1: resolved), or the first non-finite guard
    /// sample `(t, guard)`.
    fn resolution<const D: usize>(
        &self,
        trial: &Trial<'_, SVector<f64, D>>,
        seg: &crate::DenseSegment<D>,
    ) -> Result<f64, (f64, &'static str)>
    where
        S: HybridSystem<D>,
    {
        let (sys, mode) = (self.sys, self.mode);
        let n = sys.guard_count(mode);
        let eta = self.opts.guard_resolution;
        if n == 0 || eta == f64::INFINITY {
            return Ok(0.0);
        }
        let mut ts = [trial.t_new; 9];
        let mut xs = [*trial.x_new; 9];
        for j in 0..8 {
            let theta = j as f64 / 8.0;
            ts[j] = trial.t + theta * trial.h;
            xs[j] = seg.eval_theta(theta);
        }
        let tol = self.opts.contact_tolerance;
        let mut worst: f64 = 0.0;
        for i in 0..n {
            let mut g = [0.0; 9];
            for j in 0..9 {
                let v = sys.guard(mode, i, ts[j], &xs[j]);
                if !v.is_finite() {
                    return Err((ts[j], sys.guard_name(mode, i)));
                }
                g[j] = v;
            }
            let (lo, hi) = g.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &v| (lo.min(v), hi.max(v)));
            let base = eta * (hi - lo) + tol;
            for (k, w) in MID_WEIGHTS.iter().enumerate() {
                let p = (w[0] * g[0] + w[1] * g[2] + w[2] * g[4] + w[3] * g[6] + w[4] * g[8]) / 128.0;
                let (a, m, b) = (g[2 * k], g[2 * k + 1], g[2 * k + 2]);
                let mut allow = base;
                if (a > 0.0 && m > 0.0 && b > 0.0) || (a < 0.0 && m < 0.0 && b < 0.0) {
                    allow = allow.max(0.25 * a.abs().min(m.abs()).min(b.abs()));
                }
                worst = worst.max((m - p).abs() / allow);
            }
        }
        Ok(worst)
    }
}
