//! Observables: named functions of the state evaluated along a trajectory after the run.
//!
//! A model's `output(name = expr, ...)` item generates `OUTPUTS` (the names; a vector output
//! `p` gives the columns `p[0]`, `p[1]`, `p[2]`), `outputs(t, x)` and `observe(&run)` of any run's
//! [`Samples`] (a model with modes: [`ModeSamples`], each sample in its mode), which returns
//! [`Observables`]: the columns by name, CSV with named columns, serde.

use crate::invariants::{self, Invariants};
use nalgebra::SVector;

use crate::hybrid::HybridTrajectory;
use crate::input::Sampled;
use crate::ode::trajectory::Trajectory;

/// The samples of a run — its times and states: a [`Trajectory`], a [`HybridTrajectory`], a
/// sampled-data run's ([`Sampled`]).
pub trait Samples<const D: usize> {
    /// The sample times.
    fn times(&self) -> &[f64];
    /// The states at [`times`](Samples::times).
    fn states(&self) -> &[SVector<f64, D>];
}

/// The samples of a run through modes, with each sample's mode: a [`HybridTrajectory`] (or a
/// sampled-data run's).
pub trait ModeSamples<const D: usize>: Samples<D> {
    /// The mode of each sample.
    fn modes(&self) -> &[usize];
}

impl<const D: usize> Samples<D> for Trajectory<D> {
    fn times(&self) -> &[f64] {
        &self.times
    }
    fn states(&self) -> &[SVector<f64, D>] {
        &self.states
    }
}

impl<const D: usize> Samples<D> for HybridTrajectory<D> {
    fn times(&self) -> &[f64] {
        &self.times
    }
    fn states(&self) -> &[SVector<f64, D>] {
        &self.states
    }
}

impl<const D: usize> ModeSamples<D> for HybridTrajectory<D> {
    fn modes(&self) -> &[usize] {
        &self.modes
    }
}

impl<T: Samples<D>, const D: usize, const K: usize> Samples<D> for Sampled<T, K> {
    fn times(&self) -> &[f64] {
        self.trajectory.times()
    }
    fn states(&self) -> &[SVector<f64, D>] {
        self.trajectory.states()
    }
}

impl<T: ModeSamples<D>, const D: usize, const K: usize> ModeSamples<D> for Sampled<T, K> {
    fn modes(&self) -> &[usize] {
        self.trajectory.modes()
    }
}

/// Observables evaluated at the samples of a run (see the [module docs](self)).
///
/// ```
/// use routh_runtime::observables::Observables;
/// let obs = Observables::evaluate(&["x2"], &[0.0, 1.0], &[2.0f64, 3.0], |_t, x: &f64| vec![x * x]);
/// assert_eq!(obs.column("x2"), Some(vec![4.0, 9.0]));
/// let mut csv = Vec::new();
/// obs.write_csv(&mut csv)?;
/// assert_eq!(String::from_utf8(csv).unwrap().lines().next(), Some("t,x2"));
/// # Ok::<(), std::io::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize), serde(remote = "Self"))]
#[non_exhaustive]
pub struct Observables {
    /// The observables' names, in the order of [`Observables::values`]' entries.
    pub names: Vec<String>,
    /// The sample times.
    #[cfg_attr(feature = "serde", serde(with = "crate::serde_floats"))]
    pub times: Vec<f64>,
    /// The values at each time: one row per sample, one entry per name.
    #[cfg_attr(feature = "serde", serde(with = "crate::serde_floats"))]
    pub values: Vec<Vec<f64>>,
}

impl Observables {
    /// Evaluates `f(t, x)` (one value per name) at every sample `(times[k], states[k])`.
    pub fn evaluate<X, S: AsRef<str>>(names: &[S], times: &[f64], states: &[X], f: impl Fn(f64, &X) -> Vec<f64>) -> Self {
        Observables {
            names: names.iter().map(|s| s.as_ref().to_owned()).collect(),
            times: times.to_vec(),
            values: times.iter().zip(states).map(|(&t, x)| f(t, x)).collect(),
        }
    }

    /// The time series of the observable `name`; `None` if there is none of that name.
    pub fn column(&self, name: &str) -> Option<Vec<f64>> {
        let i = self.names.iter().position(|n| n == name)?;
        Some(self.values.iter().map(|row| row[i]).collect())
    }

    /// Writes `t` and every observable as CSV with a header of their names, full precision.
    ///
    /// # Errors
    /// The writer's I/O errors.
    pub fn write_csv<W: std::io::Write>(&self, mut w: W) -> std::io::Result<()> {
        write!(w, "t")?;
        for n in &self.names {
            write!(w, ",{n}")?;
        }
        writeln!(w)?;
        for (t, row) in self.times.iter().zip(&self.values) {
            write!(w, "{t:e}")?;
            for v in row {
                write!(w, ",{v:e}")?;
            }
            writeln!(w)?;
        }
        Ok(())
    }
}

crate::invariants::validated!(Observables);

impl Invariants for Observables {
    fn invariants(&self) -> Result<(), String> {
        invariants::same_length("values", self.values.len(), self.times.len())?;
        invariants::direction("times", &self.times)?;
        let names = self.names.len();
        match self.values.iter().position(|row| row.len() != names) {
            Some(k) => Err(format!("`values[{k}]` has {} entries for {names} names", self.values[k].len())),
            None => Ok(()),
        }
    }
}
