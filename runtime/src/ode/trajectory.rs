//! The result of an integration.

use crate::invariants::{self, Invariants};
use nalgebra::SVector;

use crate::error::SimError;
use crate::ode::dopri5::DenseSegment;
use crate::ode::events::EventRecord;

/// Why the integration ended.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub enum StopReason {
    /// The end of the time span was reached.
    Finished,
    /// A terminal event fired at time `t`.
    Event {
        /// Name of the event.
        name: String,
        /// Time of the event (also the time of the last output).
        #[cfg_attr(feature = "serde", serde(with = "crate::serde_floats"))]
        t: f64,
    },
    /// The run failed after it started: the trajectory holds every sample up to the last accepted
    /// step, and this is the error that ended it. Such a trajectory is the partial result of the
    /// [`crate::RunError`] the run returns, or its `Ok` result with [`crate::Options::keep_partial`].
    Failed(SimError),
}

/// Work counters.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Stats {
    /// Accepted steps.
    pub steps: usize,
    /// Rejected step attempts (error too large or non-finite values).
    pub rejected: usize,
    /// Evaluations of the vector field (event functions not included).
    pub evaluations: usize,
}

impl std::ops::AddAssign for Stats {
    fn add_assign(&mut self, other: Stats) {
        self.steps += other.steps;
        self.rejected += other.rejected;
        self.evaluations += other.evaluations;
    }
}

/// Output of [`Plan::integrate`](crate::Plan::integrate): sampled states, located events, and optionally the dense
/// output of every step.
///
/// ```
/// use routh_runtime::{FieldError, Flow, Options, Output, Simulate, nalgebra::Vector1};
/// let decay = |_t: f64, x: &Vector1<f64>| -> Result<Vector1<f64>, FieldError> { Ok(-x) };
/// let opts = Options::default().output(Output::Times(vec![0.0, 0.5, 1.0]));
/// let traj = Flow(&decay).run(Vector1::new(1.0)).span(0.0..1.0).options(&opts).go()?;
/// assert_eq!(traj.times, vec![0.0, 0.5, 1.0]);
/// for (t, x) in traj.iter() {
///     assert!((x[0] - (-t).exp()).abs() < 1e-8);
/// }
/// assert_eq!(traj.component(0).len(), 3);
/// # Ok::<(), routh_runtime::SimError>(())
/// ```
#[derive(Debug, Clone)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize), serde(remote = "Self"))]
#[cfg_attr(feature = "serde", serde(bound = ""))]
pub struct Trajectory<const D: usize> {
    /// Output times (see [`crate::Output`]).
    #[cfg_attr(feature = "serde", serde(with = "crate::serde_floats"))]
    pub times: Vec<f64>,
    /// States at [`Trajectory::times`].
    #[cfg_attr(feature = "serde", serde(with = "crate::serde_floats"))]
    pub states: Vec<SVector<f64, D>>,
    /// Located events, in the order they occurred.
    pub events: Vec<EventRecord<D>>,
    /// Why the integration ended.
    pub stop: StopReason,
    /// Work counters.
    pub stats: Stats,
    /// Dense output of every accepted step, in order; empty unless [`crate::Options::dense`].
    /// Not serialized.
    #[cfg_attr(feature = "serde", serde(skip))]
    pub segments: Vec<DenseSegment<D>>,
    /// For a constrained system ([`crate::mechanics::constrained`]): how well the constraints held.
    pub constraints: Option<ConstraintReport>,
    /// Where the run stopped, time and state: the end of the span, a terminal event, or the last
    /// accepted step of a failed run ([`crate::RunError::partial`]) — the state
    /// to resume from, also when the output schedule has no sample near it.
    #[cfg_attr(feature = "serde", serde(with = "crate::serde_floats"))]
    pub end: (f64, SVector<f64, D>),
}

/// How well the constraints of a constrained system held along a trajectory. Each entry is a pair
/// (position residual max |f| over holonomic rows, velocity residual max |A q̇ + b|).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ConstraintReport {
    /// Residuals of the initial state as given (before any projection).
    #[cfg_attr(feature = "serde", serde(with = "crate::serde_floats"))]
    pub initial: (f64, f64),
    /// The largest residuals at the end of a step, before its projection: the drift of one step
    /// (of the whole run, without projection).
    #[cfg_attr(feature = "serde", serde(with = "crate::serde_floats"))]
    pub drift: (f64, f64),
    /// The largest residuals of the returned samples.
    #[cfg_attr(feature = "serde", serde(with = "crate::serde_floats"))]
    pub worst: (f64, f64),
    /// Number of projections applied.
    pub projections: usize,
}

impl ConstraintReport {
    /// Records the residuals (position, velocity) at the end of a step, before its projection.
    pub(crate) fn note_drift(&mut self, (p, v): (f64, f64)) {
        self.drift = (self.drift.0.max(p), self.drift.1.max(v));
    }

    /// Records the residuals (position, velocity) of a returned sample.
    pub(crate) fn note_sample(&mut self, (p, v): (f64, f64)) {
        self.worst = (self.worst.0.max(p), self.worst.1.max(v));
    }
}

impl<const D: usize> Trajectory<D> {
    /// Number of output points.
    pub fn len(&self) -> usize {
        self.times.len()
    }
    /// Whether there are no output points (possible with an empty [`crate::Output::Times`]).
    pub fn is_empty(&self) -> bool {
        self.times.is_empty()
    }
    /// The last output point.
    pub fn last(&self) -> Option<(f64, &SVector<f64, D>)> {
        Some((*self.times.last()?, self.states.last()?))
    }
    /// Iterate over `(t, x)` output points.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (f64, &SVector<f64, D>)> + '_ {
        self.times.iter().copied().zip(self.states.iter())
    }
    /// Time series of component `i` of the state; empty if `i ≥ D`.
    pub fn component(&self, i: usize) -> Vec<f64> {
        if i >= D {
            return Vec::new();
        }
        self.states.iter().map(|x| x[i]).collect()
    }
    /// Writes the output points as CSV: a header `t,<names>` (generated models name their state
    /// components in `STATE_NAMES`), then one line per point, full precision.
    ///
    /// ```
    /// use routh_runtime::{FieldError, Flow, Options, Output, Simulate, nalgebra::Vector2};
    /// let osc = |_t: f64, x: &Vector2<f64>| -> Result<Vector2<f64>, FieldError> { Ok(Vector2::new(x[1], -x[0])) };
    /// let traj = Flow(&osc).run(Vector2::new(1.0, 0.0)).span(0.0..1.0).options(&Options::default().output(Output::Times(vec![0.0, 1.0]))).go()?;
    /// let mut csv = Vec::new();
    /// traj.write_csv(&mut csv, &["x", "dot(x)"])?;
    /// let text = String::from_utf8(csv).unwrap();
    /// assert_eq!(text.lines().next(), Some("t,x,dot(x)"));
    /// assert_eq!(text.lines().count(), 3);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// The writer's I/O errors; [`std::io::ErrorKind::InvalidInput`] if `names` does not name
    /// every one of the `D` components.
    pub fn write_csv<W: std::io::Write>(&self, mut w: W, names: &[&str]) -> std::io::Result<()> {
        csv_header(&mut w, names, D, false)?;
        for (t, x) in self.iter() {
            write!(w, "{t:e}")?;
            for v in x.iter() {
                write!(w, ",{v:e}")?;
            }
            writeln!(w)?;
        }
        Ok(())
    }
    /// The state at any time `t` covered by the integration, from the dense output.
    ///
    /// `None` if the trajectory was computed without [`crate::Options::dense`] or `t` is
    /// outside the integrated range (or NaN).
    ///
    /// ```
    /// use routh_runtime::{FieldError, Flow, Options, Simulate, nalgebra::Vector2};
    /// let osc = |_t: f64, x: &Vector2<f64>| -> Result<Vector2<f64>, FieldError> {
    ///     Ok(Vector2::new(x[1], -x[0]))
    /// };
    /// let opts = Options::default().rtol(1e-10).atol(1e-12).dense(true);
    /// let traj = Flow(&osc).run(Vector2::new(1.0, 0.0)).span(0.0..10.0).options(&opts).go()?;
    /// let x = traj.at(3.3).unwrap();
    /// assert!((x[0] - 3.3f64.cos()).abs() < 1e-8);
    /// assert!(traj.at(11.0).is_none());
    /// # Ok::<(), routh_runtime::SimError>(())
    /// ```
    pub fn at(&self, t: f64) -> Option<SVector<f64, D>> {
        let first = self.segments.first()?;
        let forward = first.step() > 0.0;
        // Segments are ordered along the direction of integration: find the first whose end
        // is not before t.
        let idx = self.segments.partition_point(|s| if forward { s.t_end() < t } else { s.t_end() > t });
        let seg = self.segments.get(idx)?;
        if !seg.contains(t) {
            return None;
        }
        Some(seg.eval(t))
    }
}

/// The header line `t[,mode],<names>` of a CSV trajectory.
pub(crate) fn csv_header<W: std::io::Write>(w: &mut W, names: &[&str], dim: usize, mode: bool) -> std::io::Result<()> {
    if names.len() != dim {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!("{} names for a state of dimension {dim}", names.len()),
        ));
    }
    write!(w, "t")?;
    if mode {
        write!(w, ",mode")?;
    }
    for n in names {
        write!(w, ",{n}")?;
    }
    writeln!(w)
}

crate::invariants::validated!(Trajectory<const D: usize>);

impl<const D: usize> Invariants for Trajectory<D> {
    fn invariants(&self) -> Result<(), String> {
        invariants::same_length("states", self.states.len(), self.times.len())?;
        let direction = invariants::direction("times", &self.times)?;
        let end = self.end.0;
        if !end.is_finite() {
            return Err(format!("`end` is at t = {end}, not a finite time"));
        }
        if let Some(&last) = self.times.last()
            && (end - last) * direction < 0.0
        {
            return Err(format!("`end` is at t = {end}, before the last sample at {last}"));
        }
        let events: Vec<f64> = self.events.iter().map(|e| e.t).collect();
        if invariants::direction("events' times", &events)? * direction < 0.0 {
            return Err("`events` run the other way from `times`".to_owned());
        }
        Ok(())
    }
}
