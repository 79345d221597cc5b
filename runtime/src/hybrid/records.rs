//! What a hybrid simulation returns: samples with their modes, impact records, the stop reason.

use crate::invariants::{self, Invariants};
use nalgebra::SVector;

use crate::error::SimError;
use crate::ode::dopri5::DenseSegment;
use crate::ode::events::EventRecord;
use crate::ode::trajectory::{ConstraintReport, Stats};

/// One applied reset.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(bound = ""))]
pub struct ImpactRecord<const D: usize> {
    /// Time of the impact.
    #[cfg_attr(feature = "serde", serde(with = "crate::serde_floats"))]
    pub t: f64,
    /// Name of the guard.
    #[cfg_attr(feature = "serde", serde(with = "crate::serde_floats::name"))]
    pub guard: &'static core::primitive::str,
    /// Index of the guard in `mode_before`.
    pub guard_index: usize,
    /// Mode before the reset.
    pub mode_before: usize,
    /// Mode after the reset.
    pub mode_after: usize,
    /// Approach rate `dh/dt` of the guard at the pre-impact state (always negative).
    #[cfg_attr(feature = "serde", serde(with = "crate::serde_floats"))]
    pub rate: f64,
    /// Pre-impact state.
    #[cfg_attr(feature = "serde", serde(with = "crate::serde_floats"))]
    pub pre: SVector<f64, D>,
    /// Post-impact state.
    #[cfg_attr(feature = "serde", serde(with = "crate::serde_floats"))]
    pub post: SVector<f64, D>,
    /// [`HybridSystem::mode_energy`](crate::hybrid::HybridSystem::mode_energy) of `pre` in `mode_before`.
    #[cfg_attr(feature = "serde", serde(with = "crate::serde_floats"))]
    pub energy_before: f64,
    /// [`HybridSystem::mode_energy`](crate::hybrid::HybridSystem::mode_energy) of `post` in `mode_after`.
    #[cfg_attr(feature = "serde", serde(with = "crate::serde_floats"))]
    pub energy_after: f64,
}

impl<const D: usize> ImpactRecord<D> {
    /// `energy_after − energy_before` (negative for a dissipative impact).
    pub fn energy_jump(&self) -> f64 {
        self.energy_after - self.energy_before
    }
}

/// Why a hybrid simulation ended.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub enum HybridStop {
    /// The end of the time span was reached.
    Finished,
    /// Impacts accumulate (Zeno): estimated accumulation time from the geometric tail of the
    /// inter-impact intervals (see [`crate::hybrid::zeno`]). The last sample is the post-impact state
    /// of the last impact.
    Zeno {
        /// Estimated accumulation time.
        #[cfg_attr(feature = "serde", serde(with = "crate::serde_floats"))]
        t_accumulation: f64,
        /// An estimate of its error (see [`crate::hybrid::zeno`]): the correction the drift of the
        /// intervals' ratios made to a plain geometric tail.
        #[cfg_attr(feature = "serde", serde(with = "crate::serde_floats"))]
        error: f64,
        /// Number of impacts recorded.
        impacts: usize,
    },
    /// [`HybridOptions::max_impacts`](crate::hybrid::HybridOptions::max_impacts) resets were applied and another impact occurred at `t`
    /// (not applied; its pre-impact state is the last sample).
    ImpactLimit {
        /// Time of the impact that was not applied.
        #[cfg_attr(feature = "serde", serde(with = "crate::serde_floats"))]
        t: f64,
        /// Number of impacts recorded.
        impacts: usize,
    },
    /// After a reset the state is on the guard moving inward (`dh/dt < 0` and `h ≤`
    /// tolerance) — e.g. a plastic impact under a force pressing into the surface: the contact
    /// persists and a pure impact model cannot continue. Also reported when, with `dh/dt = 0`
    /// after the reset, the flow pushes the state into the guard, or when an instant needs
    /// more than [`HybridOptions::max_resets_per_instant`](crate::hybrid::HybridOptions::max_resets_per_instant) resets. The last sample is the
    /// post-reset state at `t`. (A geometric impact tail that ends this way, e.g. a ball with
    /// small restitution whose bounces drop below the resolution of the tolerances, is
    /// reported as [`HybridStop::Zeno`] instead, see [`crate::hybrid::zeno`].)
    Stuck {
        /// Time at which the persistent contact began: the last reset (or the initial time,
        /// or the restart after a grazing touch).
        #[cfg_attr(feature = "serde", serde(with = "crate::serde_floats"))]
        t: f64,
        /// The guard that stays in contact.
        #[cfg_attr(feature = "serde", serde(with = "crate::serde_floats::name"))]
        guard: &'static core::primitive::str,
        /// When the run entered this mode at `t` by a transition out of a mode with constraints:
        /// that mode's constraint multipliers at the transition
        /// ([`HybridSystem::constraint_multipliers`](crate::HybridSystem::constraint_multipliers)).
        /// One that is not zero is a force the new mode does not supply — the eccentric cylinder
        /// released where its normal force μ₂ vanishes still needs its rolling force μ₁ ≠ 0, which
        /// a slip mode would have to take over. Empty otherwise.
        #[cfg_attr(feature = "serde", serde(with = "crate::serde_floats"))]
        multipliers_before: Vec<(&'static str, f64)>,
    },
    /// The run failed after work was done: the samples and impacts so far, and the error that
    /// ended the run (the partial result of a [`crate::RunError`], or the `Ok` result with
    /// [`crate::Options::keep_partial`]).
    Failed(SimError),
    /// A terminal user event fired at `t` (see [`Plan::hybrid`](crate::Plan::hybrid)); its
    /// state is the last sample.
    Event {
        /// Name of the event.
        name: String,
        /// Time of the crossing.
        #[cfg_attr(feature = "serde", serde(with = "crate::serde_floats"))]
        t: f64,
    },
}

/// Output of [`Plan::hybrid`](crate::Plan::hybrid).
///
/// ```
/// use routh_runtime::nalgebra::Vector1;
/// use routh_runtime::{FieldError, Hybrid, HybridOptions, HybridStop, HybridSystem, ModeState, Simulate};
///
/// /// A point drifting at unit speed through x = 1, where it switches from "left" to "right".
/// struct Drift;
/// impl HybridSystem<1> for Drift {
///     fn mode_count(&self) -> usize { 2 }
///     fn mode_name(&self, mode: usize) -> &'static str { if mode == 0 { "left" } else { "right" } }
///     fn mode_field(&self, _m: usize, _t: f64, _x: &Vector1<f64>) -> Result<Vector1<f64>, FieldError> {
///         Ok(Vector1::new(1.0))
///     }
///     fn guard_count(&self, mode: usize) -> usize { usize::from(mode == 0) }
///     fn guard_name(&self, _m: usize, _g: usize) -> &'static str { "x = 1" }
///     fn guard(&self, _m: usize, _g: usize, _t: f64, x: &Vector1<f64>) -> f64 { 1.0 - x[0] }
///     fn guard_rate(&self, _m: usize, _g: usize, _t: f64, _x: &Vector1<f64>) -> f64 { -1.0 }
///     fn reset(&self, _m: usize, _g: usize, _t: f64, x: &Vector1<f64>)
///         -> Result<(usize, Vector1<f64>), FieldError> { Ok((1, *x)) }
///     fn mode_energy(&self, _m: usize, _t: f64, _x: &Vector1<f64>) -> f64 { 0.0 }
/// }
///
/// let traj = Hybrid(&Drift).run(ModeState::new(0, Vector1::new(0.0))).span(0.0..2.0).go()?;
/// assert_eq!(traj.stop, HybridStop::Finished);
/// assert_eq!(traj.mode_sequence(), vec![0, 1]);
/// assert!((traj.impacts[0].t - 1.0).abs() < 1e-12);
/// // Every sample carries its mode; the switch appears as two samples at the switching time.
/// let k = traj.times.iter().position(|&t| t == traj.impacts[0].t).unwrap();
/// assert_eq!(traj.times[k + 1], traj.times[k]);
/// assert!(traj.modes[..=k].iter().all(|&m| m == 0));
/// assert!(traj.modes[k + 1..].iter().all(|&m| m == 1));
/// for (t, _mode, x) in traj.iter() {
///     assert!((x[0] - t).abs() < 1e-12);
/// }
/// # Ok::<(), routh_runtime::SimError>(())
/// ```
#[derive(Debug, Clone)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize), serde(remote = "Self"))]
#[cfg_attr(feature = "serde", serde(bound = ""))]
pub struct HybridTrajectory<const D: usize> {
    /// Sample times (non-decreasing; an impact time appears twice, pre and post).
    #[cfg_attr(feature = "serde", serde(with = "crate::serde_floats"))]
    pub times: Vec<f64>,
    /// States at [`HybridTrajectory::times`].
    #[cfg_attr(feature = "serde", serde(with = "crate::serde_floats"))]
    pub states: Vec<SVector<f64, D>>,
    /// Mode of each sample.
    pub modes: Vec<usize>,
    /// The system's modes by name ([`HybridSystem::mode_name`](super::HybridSystem::mode_name)),
    /// indexed by [`HybridTrajectory::modes`]: what [`HybridTrajectory::write_csv`] writes in its
    /// `mode` column. (Empty in files written before it was recorded.)
    #[cfg_attr(feature = "serde", serde(default, with = "crate::serde_floats"))]
    pub mode_names: Vec<&'static str>,
    /// Applied resets, in order.
    pub impacts: Vec<ImpactRecord<D>>,
    /// Why the simulation ended.
    pub stop: HybridStop,
    /// Work counters summed over all segments.
    pub stats: Stats,
    /// The mode at the start.
    pub initial_mode: usize,
    /// With [`Options::dense`](crate::Options::dense): the mode and dense output of every
    /// accepted step, in time order (a step ended by an impact is cut at the impact time).
    /// Empty otherwise, and for the full trajectory of a reduced hybrid run. Not serialized.
    #[cfg_attr(feature = "serde", serde(skip))]
    pub segments: Vec<(usize, DenseSegment<D>)>,
    /// The located user events (see [`Plan::hybrid`](crate::Plan::hybrid)), in time order.
    pub events: Vec<EventRecord<D>>,
    /// How well the constraints of the modes held ([`HybridSystem::constraint_residuals`](super::HybridSystem::constraint_residuals)): the
    /// start as given, the one-step drift before each projection, the worst sample. `None` when
    /// no mode visited has constraints.
    pub constraints: Option<ConstraintReport>,
    /// Where the run stopped — time, mode and state: the end of the span, a terminal event, the
    /// post-reset state of a Zeno or stuck stop, or the last accepted step (or applied reset) of a
    /// failed run — the state to resume from, also when the output schedule has no sample there.
    #[cfg_attr(feature = "serde", serde(with = "crate::serde_floats"))]
    pub end: (f64, usize, SVector<f64, D>),
}

impl<const D: usize> HybridTrajectory<D> {
    /// Number of samples.
    pub fn len(&self) -> usize {
        self.times.len()
    }
    /// Whether there are no samples.
    pub fn is_empty(&self) -> bool {
        self.times.is_empty()
    }
    /// The last sample `(t, mode, x)`.
    pub fn last(&self) -> Option<(f64, usize, &SVector<f64, D>)> {
        Some((*self.times.last()?, *self.modes.last()?, self.states.last()?))
    }
    /// Iterate over the samples `(t, mode, x)`.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (f64, usize, &SVector<f64, D>)> + '_ {
        self.times.iter().zip(&self.modes).zip(&self.states).map(|((&t, &m), x)| (t, m, x))
    }
    /// Time series of component `i` of the state; empty if `i ≥ D`.
    pub fn component(&self, i: usize) -> Vec<f64> {
        if i >= D {
            return Vec::new();
        }
        self.states.iter().map(|x| x[i]).collect()
    }
    /// Writes the samples as CSV: a header `t,mode,<names>` (a model without modes names its
    /// state in `STATE_NAMES`; a mode of a multi-mode model uses a prefix of the padded state),
    /// then one line per sample with its mode by name ([`HybridTrajectory::mode_names`]; its index
    /// for a trajectory read from a file that has no names). An impact time appears twice, pre and
    /// post.
    ///
    /// # Errors
    /// The writer's I/O errors; [`std::io::ErrorKind::InvalidInput`] if `names` does not name
    /// every one of the `D` components.
    pub fn write_csv<W: std::io::Write>(&self, w: W, names: &[&str]) -> std::io::Result<()> {
        if self.mode_names.is_empty() {
            return self.write_csv_with_mode_indices(w, names);
        }
        let modes = self.mode_names.clone();
        self.write_csv_with_mode_names(w, names, &modes)
    }
    /// [`HybridTrajectory::write_csv`] with the `mode` column holding each sample's mode index.
    ///
    /// # Errors
    /// As [`HybridTrajectory::write_csv`].
    pub fn write_csv_with_mode_indices<W: std::io::Write>(&self, w: W, names: &[&str]) -> std::io::Result<()> {
        self.csv(w, names, |mode, w| write!(w, "{mode}"))
    }
    /// [`HybridTrajectory::write_csv`] with the `mode` column holding each sample's mode by name:
    /// `modes[mode]` (a multi-mode model lists them in `MODES`, a one-mode model in
    /// `HybridSystem::mode_name`).
    ///
    /// # Errors
    /// As [`HybridTrajectory::write_csv`]; [`std::io::ErrorKind::InvalidInput`] if a sample's mode
    /// has no name in `modes`.
    pub fn write_csv_with_mode_names<W: std::io::Write>(&self, w: W, names: &[&str], modes: &[&str]) -> std::io::Result<()> {
        self.csv(w, names, |mode, w| match modes.get(mode) {
            Some(name) => write!(w, "{name}"),
            None => Err(std::io::Error::new(std::io::ErrorKind::InvalidInput, format!("mode {mode} has no name in {modes:?}"))),
        })
    }
    /// The CSV of the samples with the mode column written by `mode_column`.
    fn csv<W: std::io::Write>(
        &self,
        mut w: W,
        names: &[&str],
        mode_column: impl Fn(usize, &mut W) -> std::io::Result<()>,
    ) -> std::io::Result<()> {
        crate::ode::trajectory::csv_header(&mut w, names, D, true)?;
        for (t, mode, x) in self.iter() {
            write!(w, "{t:e},")?;
            mode_column(mode, &mut w)?;
            for v in x.iter() {
                write!(w, ",{v:e}")?;
            }
            writeln!(w)?;
        }
        Ok(())
    }
    /// The mode and state at any time `t` of the run, from the dense output of its steps (the
    /// method's continuous extension, error comparable to the tolerances); requires
    /// [`Options::dense`](crate::Options::dense).
    /// At an impact time it is the state after the reset (the trajectory is taken continuous from
    /// the right); `None` outside the run or without dense output.
    ///
    /// ```
    /// use routh_runtime::nalgebra::Vector2;
    /// use routh_runtime::{FieldError, Hybrid, HybridOptions, HybridSystem, ModeState, Options, Simulate};
    ///
    /// // A ball dropped from 1 m on a floor with restitution 1/2.
    /// struct Ball;
    /// impl HybridSystem<2> for Ball {
    ///     fn mode_name(&self, _m: usize) -> &'static str { "flight" }
    ///     fn guard_name(&self, _m: usize, _g: usize) -> &'static str { "floor" }
    ///     fn mode_field(&self, _m: usize, _t: f64, x: &Vector2<f64>) -> Result<Vector2<f64>, FieldError> {
    ///         Ok(Vector2::new(x[1], -9.81))
    ///     }
    ///     fn guard_count(&self, _m: usize) -> usize { 1 }
    ///     fn guard(&self, _m: usize, _g: usize, _t: f64, x: &Vector2<f64>) -> f64 { x[0] }
    ///     fn guard_rate(&self, _m: usize, _g: usize, _t: f64, x: &Vector2<f64>) -> f64 { x[1] }
    ///     fn reset(&self, m: usize, _g: usize, _t: f64, x: &Vector2<f64>)
    ///         -> Result<(usize, Vector2<f64>), FieldError> { Ok((m, Vector2::new(x[0], -0.5 * x[1]))) }
    ///     fn mode_energy(&self, _m: usize, _t: f64, x: &Vector2<f64>) -> f64 { 0.5 * x[1] * x[1] + 9.81 * x[0] }
    /// }
    ///
    /// let opts = HybridOptions::default().ode(Options::default().rtol(1e-10).atol(1e-12).dense(true));
    /// let traj = Hybrid(&Ball).run(ModeState::new(0, Vector2::new(1.0, 0.0))).span(0.0..1.0).options(&opts).go()?;
    /// let t1 = (2.0 / 9.81f64).sqrt(); // first impact
    /// let (mode, x) = traj.at(0.3).unwrap();
    /// assert_eq!(mode, 0);
    /// assert!((x[0] - (1.0 - 0.5 * 9.81 * 0.09)).abs() < 1e-9);
    /// // At the impact: the post-reset velocity, +½ √(2g).
    /// let (_, x) = traj.at(traj.impacts[0].t).unwrap();
    /// assert!((x[1] - 0.5 * (2.0 * 9.81f64).sqrt()).abs() < 1e-8);
    /// assert!((traj.impacts[0].t - t1).abs() < 1e-9);
    /// assert!(traj.at(1.5).is_none());
    /// # Ok::<(), routh_runtime::SimError>(())
    /// ```
    pub fn at(&self, t: f64) -> Option<(usize, SVector<f64, D>)> {
        // The first step ending after t (right-continuous at impacts), else the last step if it
        // ends exactly at t.
        let idx = self.segments.partition_point(|(_, s)| s.t_end() <= t);
        let (mode, seg) = match self.segments.get(idx) {
            Some(s) if s.1.contains(t) => s,
            _ => self.segments.last().filter(|(_, s)| s.t_end() == t)?,
        };
        Some((*mode, seg.eval(t)))
    }

    /// The modes visited, in order (the initial mode, then every change of mode by a reset).
    pub fn mode_sequence(&self) -> Vec<usize> {
        let mut seq = vec![self.initial_mode];
        for r in &self.impacts {
            if seq.last() != Some(&r.mode_after) {
                seq.push(r.mode_after);
            }
        }
        seq
    }
}

/// Output buffers.
pub(super) struct Samples<const D: usize> {
    pub(super) times: Vec<f64>,
    pub(super) states: Vec<SVector<f64, D>>,
    pub(super) modes: Vec<usize>,
    /// Dense output of the accepted steps, kept with [`crate::Options::dense`].
    pub(super) segments: Option<Vec<(usize, DenseSegment<D>)>>,
    /// Located user events.
    pub(super) events: Vec<EventRecord<D>>,
}

impl<const D: usize> Samples<D> {
    #[inline]
    pub(super) fn push(&mut self, t: f64, x: SVector<f64, D>, mode: usize) {
        self.times.push(t);
        self.states.push(x);
        self.modes.push(mode);
    }
    /// A mark to go back to with [`Samples::truncate`].
    pub(super) fn mark(&self) -> (usize, usize, usize) {
        (self.times.len(), self.segments.as_ref().map_or(0, Vec::len), self.events.len())
    }
    pub(super) fn truncate(&mut self, (n, k, e): (usize, usize, usize)) {
        self.events.truncate(e);
        self.times.truncate(n);
        self.states.truncate(n);
        self.modes.truncate(n);
        if let Some(s) = self.segments.as_mut() {
            s.truncate(k);
        }
    }
    /// Whether the last sample is exactly `(t, x, mode)`.
    pub(super) fn last_is(&self, t: f64, x: &SVector<f64, D>, mode: usize) -> bool {
        self.times.last() == Some(&t) && self.modes.last() == Some(&mode) && self.states.last() == Some(x)
    }
}

crate::invariants::validated!(HybridTrajectory<const D: usize>);

impl<const D: usize> Invariants for HybridTrajectory<D> {
    fn invariants(&self) -> Result<(), String> {
        invariants::same_length("states", self.states.len(), self.times.len())?;
        invariants::same_length("modes", self.modes.len(), self.times.len())?;
        invariants::forward("times", &self.times)?;
        let (end, end_mode, _) = self.end;
        if !end.is_finite() || self.times.last().is_some_and(|&last| end < last) {
            return Err(format!("`end` is at t = {end}, not a finite time at or after the last sample"));
        }
        let impacts: Vec<f64> = self.impacts.iter().map(|i| i.t).collect();
        invariants::forward("impacts' times", &impacts)?;
        let count = self.mode_names.len();
        if count > 0 {
            let modes = self.modes.iter().chain([&self.initial_mode, &end_mode]);
            let impacts = self.impacts.iter().flat_map(|i| [&i.mode_before, &i.mode_after]);
            if let Some(bad) = modes.chain(impacts).find(|&&m| m >= count) {
                return Err(format!("mode {bad} does not exist: `mode_names` holds {count} modes"));
            }
        }
        Ok(())
    }
}
