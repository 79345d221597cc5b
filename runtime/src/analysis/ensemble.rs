//! Ensembles: many runs on all cores (rayon, with the `parallel` feature; one after another, with
//! the same results, without it), with a progress bar on long batches (the `progress` feature).
//!
//! [`ensemble`] maps a closure over a slice of inputs in parallel and returns the results in the
//! inputs' order — initial states, parameter sets, whatever the closure turns into a run (a
//! generated model is plain data, `Sync`, and every member builds its own [`Run`](crate::Run)).
//!
//! The progress bar (indicatif: runs done, rate, time left) is drawn on standard error only when
//! it is a terminal and [`EnsembleOptions::progress`] is on; nothing is written otherwise.
//!
//! ```
//! use routh_runtime::ensemble::{EnsembleOptions, ensemble};
//! use routh_runtime::{FieldError, Flow, Simulate, nalgebra::Vector2};
//!
//! // x'' = −x from 100 amplitudes: x(t) = a cos t.
//! let osc = |_t: f64, x: &Vector2<f64>| -> Result<Vector2<f64>, FieldError> { Ok(Vector2::new(x[1], -x[0])) };
//! let starts: Vec<_> = (0..100).map(|k| Vector2::new(0.01 * k as f64, 0.0)).collect();
//! let run = |_, x0: &Vector2<f64>| Flow(&osc).run(*x0).span(0.0..2.0).rtol(1e-10).atol(1e-12).go();
//! let runs = ensemble(&starts, run, &EnsembleOptions::default())?;
//! for (x0, run) in starts.iter().zip(&runs) {
//!     // Each entry: the run's result, or its panic as `SimError::Panicked`.
//!     let (_, end) = run.as_ref().unwrap().as_ref().unwrap().last().unwrap();
//!     assert!((end[0] - x0[0] * 2f64.cos()).abs() < 1e-9);
//! }
//! # Ok::<(), routh_runtime::SimError>(())
//! ```

#[cfg(feature = "parallel")]
use rayon::prelude::*;

use crate::error::SimError;

/// How a batch runs.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub struct EnsembleOptions {
    /// The number of worker threads; `None` (the default) uses rayon's global pool, one thread
    /// per core (or `RAYON_NUM_THREADS`).
    pub threads: Option<usize>,
    /// Show a progress bar on standard error — drawn only when it is a terminal. Default `true`.
    pub progress: bool,
}

impl Default for EnsembleOptions {
    fn default() -> Self {
        EnsembleOptions { threads: None, progress: true }
    }
}

impl EnsembleOptions {
    /// Sets [`EnsembleOptions::threads`] (`Some(1)` runs the batch sequentially on one worker).
    #[must_use]
    pub fn threads(mut self, threads: Option<usize>) -> Self {
        self.threads = threads;
        self
    }
    /// Sets [`EnsembleOptions::progress`].
    #[must_use]
    pub fn progress(mut self, progress: bool) -> Self {
        self.progress = progress;
        self
    }
}

/// `f()`, or its panic as [`SimError::Panicked`] of run `i` (with the panic's message).
pub(crate) fn caught<R>(i: usize, f: impl FnOnce() -> R) -> Result<R, SimError> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).map_err(|payload| {
        let message = payload
            .downcast_ref::<&str>()
            .map(|s| (*s).to_owned())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "(a non-string panic payload)".to_owned());
        SimError::Panicked { run: i, message }
    })
}

/// Runs `run(i, &inputs[i])` for every input on the worker threads and returns the results in
/// the inputs' order. A run that panics (the caller's code) is [`SimError::Panicked`] in its own
/// entry; the other runs are kept. Each run's own failures belong in its result (e.g. a `Result`
/// per run).
///
/// # Errors
/// [`SimError::InvalidOptions`] for `threads = Some(0)` or a thread pool that cannot be built.
pub fn ensemble<T, R, F>(inputs: &[T], run: F, options: &EnsembleOptions) -> Result<Vec<Result<R, SimError>>, SimError>
where
    T: Sync,
    R: Send,
    F: Fn(usize, &T) -> R + Sync + Send,
{
    let bar = crate::analysis::progress::Progress::new(
        inputs.len() as u64,
        "ensemble {bar:30} {pos}/{len} runs, {per_sec}, {eta} left",
        options.progress,
    );
    let one = |(i, x): (usize, &T)| {
        let r = caught(i, || run(i, x));
        bar.inc();
        r
    };
    #[cfg(feature = "parallel")]
    let work = || -> Vec<Result<R, SimError>> { inputs.par_iter().enumerate().map(one).collect() };
    #[cfg(not(feature = "parallel"))]
    let work = || -> Vec<Result<R, SimError>> { inputs.iter().enumerate().map(one).collect() };
    let out = match options.threads {
        None => work(),
        Some(0) => return Err(SimError::InvalidOptions("an ensemble needs at least one thread".into())),
        #[cfg(feature = "parallel")]
        Some(n) => rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build()
            .map_err(|e| SimError::InvalidOptions(format!("the ensemble's thread pool: {e}")))?
            .install(work),
        #[cfg(not(feature = "parallel"))]
        Some(_) => work(),
    };
    bar.finish();
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_keep_the_inputs_order_and_zero_threads_is_an_error() {
        let inputs: Vec<u64> = (0..1000).collect();
        let out = ensemble(&inputs, |i, &x| (i as u64, x * x), &EnsembleOptions::default().progress(false)).unwrap();
        assert!(out.iter().enumerate().all(|(i, r)| matches!(r, Ok((j, sq)) if *j == i as u64 && *sq == (i as u64).pow(2))));
        let one = ensemble(&inputs, |_, &x| x + 1, &EnsembleOptions::default().threads(Some(1)).progress(false)).unwrap();
        assert_eq!(one, (1..=1000).map(Ok).collect::<Vec<Result<u64, SimError>>>());
        let bad = ensemble(&inputs, |_, &x| x, &EnsembleOptions::default().threads(Some(0)));
        assert!(matches!(bad, Err(SimError::InvalidOptions(_))));
    }

    #[test]
    fn a_run_that_panics_loses_only_itself() {
        // One member of a thousand panics in the caller's code: the batch was lost; now that entry
        // says so and every other result is kept.
        let inputs: Vec<u64> = (0..1000).collect();
        let out = ensemble(
            &inputs,
            |_, &x| {
                assert!(x != 417, "bad input {x}");
                x * 2
            },
            &EnsembleOptions::default().progress(false),
        )
        .unwrap();
        for (i, r) in out.iter().enumerate() {
            match r {
                Ok(v) => assert!(i != 417 && *v == 2 * i as u64),
                Err(SimError::Panicked { run, message }) => assert!(*run == 417 && i == 417 && message.contains("bad input 417")),
                other => panic!("{other:?}"),
            }
        }
    }
}
