//! Contact resolution at one instant: guards in contact, violated guards, simultaneous impacts
//! and the resets they trigger (see the module docs of [`crate::hybrid`]).

use nalgebra::SVector;

use super::{HybridStop, HybridSystem, ImpactRecord, Run, check_mode};
use crate::error::{FieldError, SimError};

impl<'s, S, const D: usize> Run<'s, S, D>
where
    S: HybridSystem<D> + ?Sized,
{
    /// Push `x` once for every scheduled time `≤ t` (Times/Interval output).
    /// Contact tolerance on `h` for a guard with rate `rate` at time `t`.
    fn contact_tol(&self, t: f64, rate: f64) -> f64 {
        let tol_t = self.opts.ode.event_tolerance.max(4.0 * f64::EPSILON * t.abs());
        self.opts.contact_tolerance + 4.0 * tol_t * rate.abs()
    }

    /// Check every guard of `mode` at `(t, x)`; returns the first one (in index order) in
    /// contact and approaching.
    ///
    /// `rate_scale` is the largest `|dh/dt|` seen at this instant: a state located on a
    /// crossing lies up to `rate · Δt` beyond it, and a reset (which changes the rates but
    /// usually not the position) must not turn that location error into a violation.
    fn scan(&self, t: f64, x: &SVector<f64, D>, mode: usize, rate_scale: &mut f64) -> Result<Option<usize>, SimError> {
        let sys = self.sys;
        let n = sys.guard_count(mode);
        for i in 0..n {
            let rate = sys.guard_rate(mode, i, t, x);
            if !rate.is_finite() {
                let guard = sys.guard_name(mode, i);
                return Err(SimError::NonFiniteGuard { t, guard });
            }
            *rate_scale = rate_scale.max(rate.abs());
        }
        let mut found = None;
        for i in 0..n {
            let h = sys.guard(mode, i, t, x);
            let rate = sys.guard_rate(mode, i, t, x);
            let guard = sys.guard_name(mode, i);
            if !h.is_finite() {
                return Err(SimError::NonFiniteGuard { t, guard });
            }
            if h < -self.contact_tol(t, *rate_scale) {
                return Err(SimError::GuardViolated { t, guard, value: h });
            }
            if found.is_none()
                && h <= self.contact_tol(t, rate)
                && super::approaching(rate, x)
                && !self.skims(mode, i, t, x, rate)
            {
                found = Some(i);
            }
        }
        Ok(found)
    }

    /// Apply the resets due at time `t` (starting with the crossing guard `first`, if any),
    /// updating `x` and `mode`. Returns a stop reason if the simulation cannot continue.
    pub(super) fn resolve(
        &mut self,
        t: f64,
        x: &mut SVector<f64, D>,
        mode: &mut usize,
        first: Option<usize>,
    ) -> Result<Option<HybridStop>, SimError> {
        let sys = self.sys;
        let mut pending = first;
        // (mode, guard) of the previous reset at this instant.
        let mut previous: Option<(usize, usize)> = None;
        let mut resets = 0usize;
        let mut rate_scale: f64 = 0.0;
        loop {
            let g = match pending.take() {
                Some(g) => g,
                None => match self.scan(t, x, *mode, &mut rate_scale)? {
                    Some(g) => g,
                    None => return Ok(None),
                },
            };
            let guard = sys.guard_name(*mode, g);
            if previous == Some((*mode, g)) || resets >= self.opts.max_resets_per_instant {
                return Ok(Some(self.stuck(t, guard)));
            }
            if !self.samples.last_is(t, x, *mode) {
                self.samples.push(t, *x, *mode);
            }
            if self.impacts.len() >= self.opts.max_impacts {
                return Ok(Some(HybridStop::ImpactLimit { t, impacts: self.impacts.len() }));
            }
            let rate = sys.guard_rate(*mode, g, t, x);
            rate_scale = rate_scale.max(rate.abs());
            let (new_mode, post) = match sys.reset(*mode, g, t, x) {
                Ok(v) => v,
                Err(FieldError::NonFinite { .. }) => {
                    return Err(SimError::ResetFailed { t, guard });
                }
                Err(e) => return Err(e.into()),
            };
            check_mode(sys, new_mode)?;
            if !post.iter().all(|v| v.is_finite()) {
                return Err(SimError::ResetFailed { t, guard });
            }
            self.impacts.push(ImpactRecord {
                t,
                guard,
                guard_index: g,
                mode_before: *mode,
                mode_after: new_mode,
                rate,
                pre: *x,
                post,
                energy_before: sys.mode_energy(*mode, t, x),
                energy_after: sys.mode_energy(new_mode, t, &post),
            });
            self.samples.push(t, post, new_mode);
            previous = Some((*mode, g));
            *mode = new_mode;
            *x = post;
            resets += 1;
        }
    }
}
