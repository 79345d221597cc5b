//! One segment of a hybrid run: a mode's field integrated by the shared
//! [`Integrator`] until a guard is crossed or the span ends.

use nalgebra::SVector;

use super::guard_control::GuardControl;
use super::{HybridOptions, HybridSystem, Run};
use crate::error::{FieldError, SimError};
use crate::ode::events::{Direction, Event, Tracker};
use crate::ode::field::VectorField;
use crate::ode::options::Schedule;
use crate::ode::stepper::Integrator;
use crate::ode::trajectory::ConstraintReport;

/// The vector field of one mode.
pub(super) struct ModeField<'s, S: ?Sized> {
    pub(super) sys: &'s S,
    pub(super) mode: usize,
}

impl<S, const D: usize> VectorField<D> for ModeField<'_, S>
where
    S: HybridSystem<D> + ?Sized,
{
    #[inline]
    fn field(&self, t: f64, x: &SVector<f64, D>) -> Result<SVector<f64, D>, FieldError> {
        self.sys.mode_field(self.mode, t, x)
    }
}

/// How an integration segment (one mode, no reset) ended.
pub(super) enum SegmentEnd<const D: usize> {
    /// The end of the span was reached.
    Finished,
    /// Guard `guard` was crossed downward at `(t, x)`.
    Crossing { t: f64, x: SVector<f64, D>, guard: usize },
    /// Guard `guard`, in contact at the restart, sank into the surface.
    Penetration { guard: usize },
    /// A terminal user event fired at `(t, x)`.
    Event { t: f64, x: SVector<f64, D>, name: String },
}

impl<'s, S, const D: usize> Run<'s, S, D>
where
    S: HybridSystem<D> + ?Sized,
{
    /// Integrate `mode` from `(t0, x0)` until the end of the span or a guard event.
    pub(super) fn segment(&mut self, t0: f64, x0: &SVector<f64, D>, mode: usize) -> Result<SegmentEnd<D>, SimError> {
        let sys: &'s S = self.sys;
        let opts = &self.opts.ode;
        let hybrid_opts: &'s HybridOptions = self.opts;
        let t1 = self.t1;
        let field = ModeField { sys, mode };
        let n = sys.guard_count(mode);

        // Guards (indices 0..n, terminal), then penetration watchers of the guards with h ≤ 0.
        // The watchers are not terminal: a guard that rises and comes back crosses h = 0 and
        // its watcher level within the location tolerance of each other, possibly located in
        // the wrong order; the guard crossing takes precedence whenever the step has one.
        let mut events: Vec<Event<'s, D>> = Vec::with_capacity(n);
        let mut watched: Vec<usize> = Vec::new();
        for i in 0..n {
            events.push(
                Event::new(sys.guard_name(mode, i), move |t, x: &SVector<f64, D>| sys.guard(mode, i, t, x))
                    .direction(Direction::Falling)
                    .terminal(true),
            );
        }
        // Guards leaving contact (h ≤ 0, dh/dt > ε_ḣ): the first step must see them positive. A
        // rate within rounding of zero is at rest, of either sign (the module docs' *Arming*).
        let mut leaving: Vec<usize> = Vec::new();
        for i in 0..n {
            let h0 = sys.guard(mode, i, t0, x0);
            if h0 <= 0.0 && super::receding(sys.guard_rate(mode, i, t0, x0), x0) {
                leaving.push(i);
            }
            if h0 <= 0.0 {
                let floor = h0 - self.opts.contact_tolerance.max(4.0 * f64::EPSILON * h0.abs());
                events.push(
                    Event::new(sys.guard_name(mode, i), move |t, x: &SVector<f64, D>| sys.guard(mode, i, t, x) - floor)
                        .direction(Direction::Falling),
                );
                watched.push(i);
            }
        }

        // The user's events, after the guards and watchers.
        let base = events.len();
        let user: &'s [Event<'s, D>] = self.events;
        for ev in user {
            events.push(
                Event::new(ev.name(), move |t, x: &SVector<f64, D>| ev.value(t, x))
                    .direction(ev.crossing_direction())
                    .terminal(ev.is_terminal()),
            );
        }

        // Hairer's initial step scales with |x|/|F|, which vanishes for a segment starting at
        // rest on a guard (x ≈ 0): keep it clear of the step floor of the current time.
        let mut integ = Integrator::new(&field, t0, *x0, t1, opts)?.attempts_used(self.attempts);
        let floor0 = integ.floor(t0);
        integ = integ.first_step_at_least(100.0 * floor0);
        let mut control = GuardControl { sys, opts: hybrid_opts, mode, t0, leaving };
        let mut tracker = Tracker::new(&events, t0, x0, opts.event_tolerance);
        let mut scratch = Vec::new();
        let result = loop {
            let step = match integ.step(&mut control) {
                Ok(s) => s,
                Err(e) => break Err(e),
            };
            let t_new = step.t_new;
            let seg = match integ.dense() {
                Ok(seg) => seg,
                Err(e) => break Err(e),
            };
            // Drift control for a mode with constraints: the end of the step projected onto them.
            let mut x_new = *integ.x_new();
            if let Some(residuals) = sys.constraint_residuals(mode, t_new, &x_new) {
                let report = self.constraints.get_or_insert_with(ConstraintReport::default);
                report.note_drift(residuals);
                if opts.projection {
                    report.projections += 1;
                }
            }
            if opts.projection
                && let Some(projected) = sys.project(mode, t_new, &x_new)
            {
                match projected {
                    Ok(p) => {
                        x_new = p;
                        integ.replace_state(p);
                    }
                    Err(e) => break Err(e.into()),
                }
            }
            self.end = (t_new, mode, x_new);
            scratch.clear();
            let term = tracker.step(&events, &seg, t_new, &x_new, &mut scratch);
            if let Some(tm) = &term {
                self.end = (tm.t, mode, tm.state);
            }
            let sunk = match term {
                Some(_) => None,
                None => scratch.iter().find(|r| r.index >= n && r.index < base).map(|r| r.index - n),
            };
            if let Some(w) = sunk {
                // The samples of this segment are discarded by the caller.
                break Ok(SegmentEnd::Penetration { guard: watched[w] });
            }
            let end = term.as_ref().map_or(t_new, |tm| tm.t);
            match self.schedule {
                Schedule::Steps => {
                    if term.is_none() {
                        self.samples.push(t_new, x_new, mode);
                    }
                }
                _ => {
                    while let Some(tau) = self.schedule.peek() {
                        if tau > end || (term.is_some() && tau >= end) {
                            break;
                        }
                        let xt = if tau == t_new { x_new } else { seg.eval(tau) };
                        self.samples.push(tau, xt, mode);
                        self.schedule.advance();
                    }
                }
            }
            if let Some(kept) = self.samples.segments.as_mut() {
                let mut seg = seg;
                if let Some(tm) = &term {
                    seg.truncate(tm.t);
                }
                kept.push((mode, seg));
            }
            for r in scratch.drain(..).filter(|r| r.index >= base) {
                self.samples.events.push(crate::ode::events::EventRecord { index: r.index - base, ..r });
            }
            if let Some(tm) = term {
                if tm.index >= base {
                    let name = user[tm.index - base].name().to_owned();
                    break Ok(SegmentEnd::Event { t: tm.t, x: tm.state, name });
                }
                break Ok(SegmentEnd::Crossing { t: tm.t, x: tm.state, guard: tm.index });
            }
            if step.last {
                break Ok(SegmentEnd::Finished);
            }
        };
        self.attempts = integ.attempts();
        self.stats += integ.stats();
        result
    }
}
