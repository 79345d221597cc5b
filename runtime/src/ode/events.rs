//! Event functions and their location on the dense output.
//!
//! An [`Event`] is a scalar function `g(t, x)`; the integrator reports the times at which
//! `g(t, x(t))` crosses zero in the requested [`Direction`].
//!
//! # What counts as a crossing
//!
//! For each event the integrator remembers the *side* `s ∈ {−1, +1}` of zero that `g` was last
//! strictly on. A crossing happens when `g` becomes strictly of sign `−s`; its direction is
//! [`Direction::Rising`] for `− → +` and [`Direction::Falling`] for `+ → −`. Consequences:
//!
//! * an event whose `g` is exactly `0` at the start has no side yet: it does **not** fire at
//!   `t0`, and the first strictly signed value only sets the side (so a projectile starting on
//!   the ground fires its `y = 0` event when it lands, not at launch);
//! * touching zero and returning to the same side is not a crossing;
//! * leaving an exact zero to the other side is a crossing, located where `g` becomes
//!   strictly signed.
//!
//! A NaN value of `g` is treated like `0` (no information).
//!
//! # Detection within a step
//!
//! After every accepted step `[tₐ, t_b]` of size `h`, each `g` is sampled at
//! `θ = 0, ¼, ½, ¾, 1` on the dense output (the value at `θ = 0` is the previous step's end).
//! Sign changes between consecutive samples bracket crossings. Two crossings between the same
//! pair of samples leave no sign change, so each same-sign sub-interval is also checked for a
//! minimum of `|g|` inside it: the derivatives `g'(θₖ)` of the quartic through the five samples
//! tell whether `|g|` decreases at the left end and increases at the right; if so, and the
//! cubic Hermite model from those values and slopes dips below half of the smaller end value,
//! `s·g` is minimised on the real interpolant (the model's minimiser first, then golden-section
//! search down to the event tolerance). A strictly negative `s·g` found there splits the
//! sub-interval into two brackets. This catches pairs of crossings such as
//! `g = (t − 1)(t − 1.001)` inside one long step; it is a safeguard, not a guarantee (a
//! dip narrower than the tolerance, or one the five samples cannot see, can still be missed).
//!
//! # Location and ordering
//!
//! Each bracket with the wanted direction is narrowed with the Illinois variant of regula falsi
//! (bisection after 60 iterations) on `g(t, u(t))`, `u` the dense output, until it is shorter than
//! `max(event_tolerance, 4 ε |t|)`. The reported time is the end of the final bracket on the
//! *new* side, so the recorded state already has `g` of the new sign (or zero).
//!
//! Events found in one step are reported in time order, ties by their index in the slice. A
//! terminal event ends the integration at its time: later events of that step (including
//! events with a larger index at the identical time) are not reported.

use std::fmt;

use nalgebra::SVector;

use crate::ode::dopri5::DenseSegment;

/// Which zero crossings of an event function count.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Direction {
    /// From negative to positive.
    Rising,
    /// From positive to negative.
    Falling,
    /// Both (the default).
    #[default]
    Either,
}

impl Direction {
    /// Whether a crossing leaving side `from` (−1 or +1) matches.
    #[inline]
    fn matches(self, from: f64) -> bool {
        match self {
            Direction::Either => true,
            Direction::Rising => from < 0.0,
            Direction::Falling => from > 0.0,
        }
    }
}

/// Boxed event function `g(t, x)`.
type EventFn<'a, const D: usize> = Box<dyn Fn(f64, &SVector<f64, D>) -> f64 + 'a>;

/// An event function `g(t, x)`; crossings of zero in the given direction are located on the
/// dense output (see the [module docs](self) for the exact rules).
///
/// ```
/// use routh_runtime::{Direction, Event, FieldError, Flow, Options, Simulate, StopReason};
/// use routh_runtime::nalgebra::Vector2;
///
/// // Projectile (height, vertical velocity) thrown up at 10 m/s; stop when it lands.
/// let g = 9.81;
/// let field = |_t: f64, x: &Vector2<f64>| -> Result<Vector2<f64>, FieldError> {
///     Ok(Vector2::new(x[1], -g))
/// };
/// let ground = Event::new("ground", |_t, x: &Vector2<f64>| x[0])
///     .direction(Direction::Falling)
///     .terminal(true);
/// let traj = Flow(&field).run(Vector2::new(0.0, 10.0)).span(0.0..10.0).events(&[ground]).go()?;
/// let (t, _) = traj.last().unwrap();
/// assert!((t - 2.0 * 10.0 / g).abs() < 1e-12);
/// assert!(matches!(traj.stop, StopReason::Event { .. }));
/// # Ok::<(), routh_runtime::SimError>(())
/// ```
pub struct Event<'a, const D: usize> {
    name: String,
    g: EventFn<'a, D>,
    direction: Direction,
    terminal: bool,
}

impl<'a, const D: usize> Event<'a, D> {
    /// A non-terminal event reacting to crossings in either direction.
    pub fn new(name: impl Into<String>, g: impl Fn(f64, &SVector<f64, D>) -> f64 + 'a) -> Self {
        Event { name: name.into(), g: Box::new(g), direction: Direction::Either, terminal: false }
    }
    /// Only report crossings in direction `d`.
    #[must_use]
    pub fn direction(mut self, d: Direction) -> Self {
        self.direction = d;
        self
    }
    /// Whether a reported crossing ends the integration.
    #[must_use]
    pub fn terminal(mut self, yes: bool) -> Self {
        self.terminal = yes;
        self
    }
    /// The event's name.
    pub fn name(&self) -> &str {
        &self.name
    }
    /// The direction filter.
    pub fn crossing_direction(&self) -> Direction {
        self.direction
    }
    /// Whether the event is terminal.
    pub fn is_terminal(&self) -> bool {
        self.terminal
    }
    /// Evaluate `g(t, x)`.
    #[inline]
    pub fn value(&self, t: f64, x: &SVector<f64, D>) -> f64 {
        (self.g)(t, x)
    }
}

impl<const D: usize> fmt::Debug for Event<'_, D> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Event")
            .field("name", &self.name)
            .field("direction", &self.direction)
            .field("terminal", &self.terminal)
            .finish_non_exhaustive()
    }
}

/// A located event.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(bound = ""))]
pub struct EventRecord<const D: usize> {
    /// Name of the event.
    pub name: String,
    /// Index of the event in the slice passed to [`Plan::integrate`](crate::Plan::integrate).
    pub index: usize,
    /// Time of the crossing.
    #[cfg_attr(feature = "serde", serde(with = "crate::serde_floats"))]
    pub t: f64,
    /// State at `t` (from the dense output).
    #[cfg_attr(feature = "serde", serde(with = "crate::serde_floats"))]
    pub state: SVector<f64, D>,
}

/// Sub-intervals sampled per step.
const NS: usize = 4;

#[inline]
fn sgn(v: f64) -> f64 {
    if v > 0.0 {
        1.0
    } else if v < 0.0 {
        -1.0
    } else {
        0.0
    }
}

/// A located crossing, not yet reported.
#[derive(Debug, Clone, Copy)]
struct Found {
    t: f64,
    index: usize,
}

/// A terminal event that ended a step.
#[derive(Debug, Clone)]
pub(crate) struct Terminal<const D: usize> {
    pub(crate) index: usize,
    pub(crate) t: f64,
    pub(crate) state: SVector<f64, D>,
}

/// Per-event state carried from step to step (allocated once per integration).
#[derive(Debug)]
pub(crate) struct Tracker {
    /// Last strict sign of each `g` (`0` = none yet).
    side: Vec<f64>,
    /// `g` at the start of the current step.
    g_start: Vec<f64>,
    found: Vec<Found>,
    tol: f64,
}

impl Tracker {
    pub(crate) fn new<const D: usize>(events: &[Event<'_, D>], t0: f64, x0: &SVector<f64, D>, tol: f64) -> Self {
        let g_start: Vec<f64> = events.iter().map(|e| e.value(t0, x0)).collect();
        let side = g_start.iter().map(|&g| sgn(g)).collect();
        Tracker { side, g_start, found: Vec::with_capacity(events.len() * 2 * NS), tol }
    }

    /// Detect, locate and record the events of the accepted step described by `seg`, whose end
    /// is `(t_b, x_b)`. Returns the terminal event that cuts the step, if any.
    pub(crate) fn step<const D: usize>(
        &mut self,
        events: &[Event<'_, D>],
        seg: &DenseSegment<D>,
        t_b: f64,
        x_b: &SVector<f64, D>,
        records: &mut Vec<EventRecord<D>>,
    ) -> Option<Terminal<D>> {
        if events.is_empty() {
            return None;
        }
        let h = seg.step();
        let t_a = seg.t_start();
        let mut ts = [t_a; NS + 1];
        // xs[0] is never used: g at the step start is carried over from the previous step.
        let mut xs = [*x_b; NS + 1];
        for k in 1..NS {
            let theta = k as f64 / NS as f64;
            ts[k] = t_a + theta * h;
            xs[k] = seg.eval_theta(theta);
        }
        ts[NS] = t_b;
        self.found.clear();
        let interp = Interp { seg, t_b, x_b };

        for (i, ev) in events.iter().enumerate() {
            let mut gs = [0.0; NS + 1];
            gs[0] = self.g_start[i];
            for k in 1..=NS {
                gs[k] = ev.value(ts[k], &xs[k]);
            }
            let ds = quartic_slopes(&gs);
            let mut side = self.side[i];
            for k in 1..=NS {
                let sb = sgn(gs[k]);
                if sb == 0.0 {
                    continue;
                }
                if side == 0.0 {
                    side = sb;
                    continue;
                }
                let (ta, ga, tb, gb) = (ts[k - 1], gs[k - 1], ts[k], gs[k]);
                if sb != side {
                    self.crossing(ev, i, &interp, side, (ta, ga), (tb, gb));
                    side = sb;
                } else if sgn(ga) == side {
                    let (da, db) = (ds[k - 1], ds[k]);
                    if let Some(m) = hidden_dip(ev, &interp, side, (ta, ga, da), (tb, gb, db), self.tol) {
                        self.crossing(ev, i, &interp, side, (ta, ga), m);
                        self.crossing(ev, i, &interp, -side, m, (tb, gb));
                    }
                }
            }
            self.side[i] = side;
            self.g_start[i] = gs[NS];
        }

        if self.found.is_empty() {
            return None;
        }
        // Order along the direction of integration (backward: largest t first), ties by index.
        let dir = if h < 0.0 { -1.0 } else { 1.0 };
        self.found.sort_unstable_by(|a, b| (dir * a.t).total_cmp(&(dir * b.t)).then(a.index.cmp(&b.index)));
        for f in &self.found {
            let ev = &events[f.index];
            let state = interp.state(f.t);
            records.push(EventRecord { name: ev.name.clone(), index: f.index, t: f.t, state });
            if ev.terminal {
                return Some(Terminal { index: f.index, t: f.t, state });
            }
        }
        None
    }

    /// A crossing leaving side `side` inside `[a, b]`: record it if its direction matches.
    fn crossing<const D: usize>(
        &mut self,
        ev: &Event<'_, D>,
        index: usize,
        interp: &Interp<'_, D>,
        side: f64,
        a: (f64, f64),
        b: (f64, f64),
    ) {
        if ev.direction.matches(side) {
            let t = locate(ev, interp, side, a, b, self.tol);
            self.found.push(Found { t, index });
        }
    }
}

/// State along the current step: dense output inside, the exact end state at `t_b`.
struct Interp<'s, const D: usize> {
    seg: &'s DenseSegment<D>,
    t_b: f64,
    x_b: &'s SVector<f64, D>,
}

impl<const D: usize> Interp<'_, D> {
    #[inline]
    fn state(&self, t: f64) -> SVector<f64, D> {
        if t == self.t_b { *self.x_b } else { self.seg.eval(t) }
    }
    #[inline]
    fn g(&self, ev: &Event<'_, D>, t: f64) -> f64 {
        ev.value(t, &self.state(t))
    }
}

/// Slopes `dg/dθ` at the five equispaced samples of the interpolating quartic.
#[inline]
fn quartic_slopes(g: &[f64; NS + 1]) -> [f64; NS + 1] {
    // Spacing w = 1/4 in θ, so 1/(12 w) = 1/3.
    const S: f64 = 1.0 / 3.0;
    [
        S * (-25.0 * g[0] + 48.0 * g[1] - 36.0 * g[2] + 16.0 * g[3] - 3.0 * g[4]),
        S * (-3.0 * g[0] - 10.0 * g[1] + 18.0 * g[2] - 6.0 * g[3] + g[4]),
        S * (g[0] - 8.0 * g[1] + 8.0 * g[3] - g[4]),
        S * (-g[0] + 6.0 * g[1] - 18.0 * g[2] + 10.0 * g[3] + 3.0 * g[4]),
        S * (3.0 * g[0] - 16.0 * g[1] + 36.0 * g[2] - 48.0 * g[3] + 25.0 * g[4]),
    ]
}

/// Look for a point strictly on the other side of zero between two same-side samples
/// `(t, g, dg/dθ)`; returns `(t, g)` there.
fn hidden_dip<const D: usize>(
    ev: &Event<'_, D>,
    interp: &Interp<'_, D>,
    side: f64,
    (ta, ga, da): (f64, f64, f64),
    (tb, gb, db): (f64, f64, f64),
    tol: f64,
) -> Option<(f64, f64)> {
    // |g| must decrease at the left end and increase at the right end.
    if !(side * da < 0.0 && side * db > 0.0) {
        return None;
    }
    // Cubic Hermite model on u ∈ [0, 1] (slopes scaled to the sub-interval width ¼).
    let (ma, mb) = (da / NS as f64, db / NS as f64);
    let mut best_u = 0.5;
    let mut best = f64::INFINITY;
    for j in 1..32 {
        let u = j as f64 / 32.0;
        let (u2, u3) = (u * u, u * u * u);
        let p = (2.0 * u3 - 3.0 * u2 + 1.0) * ga + (u3 - 2.0 * u2 + u) * ma + (-2.0 * u3 + 3.0 * u2) * gb + (u3 - u2) * mb;
        let v = side * p;
        if v < best {
            best = v;
            best_u = u;
        }
    }
    if !(best < 0.5 * (side * ga).min(side * gb)) {
        return None;
    }
    let phi = |t: f64| side * interp.g(ev, t);
    let tu = ta + best_u * (tb - ta);
    let v = phi(tu);
    if v < 0.0 {
        return Some((tu, side * v));
    }
    // Golden-section search for the minimum of s·g, stopping at the first negative value.
    const R: f64 = 0.618_033_988_749_894_8;
    let (mut a, mut b) = (ta, tb);
    let mut c = b - R * (b - a);
    let mut d = a + R * (b - a);
    let mut fc = phi(c);
    if fc < 0.0 {
        return Some((c, side * fc));
    }
    let mut fd = phi(d);
    if fd < 0.0 {
        return Some((d, side * fd));
    }
    for _ in 0..200 {
        if (b - a).abs() <= tol.max(4.0 * f64::EPSILON * a.abs().max(b.abs())) {
            break;
        }
        if fc < fd {
            b = d;
            d = c;
            fd = fc;
            c = b - R * (b - a);
            fc = phi(c);
            if fc < 0.0 {
                return Some((c, side * fc));
            }
        } else {
            a = c;
            c = d;
            fc = fd;
            d = a + R * (b - a);
            fd = phi(d);
            if fd < 0.0 {
                return Some((d, side * fd));
            }
        }
    }
    None
}

/// Narrow a bracket `[a, b]` of a crossing leaving side `side` (`side·g(a) ≥ 0`,
/// `side·g(b) < 0`) with the Illinois method; returns the final end on the new side.
fn locate<const D: usize>(
    ev: &Event<'_, D>,
    interp: &Interp<'_, D>,
    side: f64,
    (ta, ga): (f64, f64),
    (tb, gb): (f64, f64),
    tol: f64,
) -> f64 {
    // φ = −s·g: φ(a) ≤ 0 < φ(b).
    let (mut a, mut fa, mut b, mut fb) = (ta, -side * ga, tb, -side * gb);
    let mut last = 0i8;
    for it in 0..200 {
        let width = b - a;
        let tol_t = tol.max(4.0 * f64::EPSILON * a.abs().max(b.abs()));
        if !(width.abs() > tol_t) {
            break;
        }
        let mut c = if it < 60 { b - fb * width / (fb - fa) } else { a + 0.5 * width };
        if !((c - a) * (b - c) > 0.0) {
            c = a + 0.5 * width;
        }
        // Keep a margin from both ends so the bracket always shrinks below the tolerance.
        let margin = 0.5 * tol_t;
        if (c - a).abs() < margin {
            c = a + margin.copysign(width);
        } else if (b - c).abs() < margin {
            c = b - margin.copysign(width);
        }
        let fc = -side * interp.g(ev, c);
        if fc > 0.0 {
            b = c;
            fb = fc;
            if last == 1 {
                fa *= 0.5;
            }
            last = 1;
        } else {
            a = c;
            fa = fc;
            if last == -1 {
                fb *= 0.5;
            }
            last = -1;
        }
    }
    b
}
