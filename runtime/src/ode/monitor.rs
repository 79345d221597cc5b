//! Watching and stopping a long run from another thread.
//!
//! A [`Monitor`] is a shared handle (atomics behind an `Arc`): put a clone in
//! [`Options::monitor`](crate::Options::monitor), start the run on a worker thread, and read the
//! time and step count reached — e.g. to drive a progress bar — or [`Monitor::cancel`] it. A
//! cancelled run ends at its next step with [`SimError::Cancelled`](crate::SimError::Cancelled);
//! with [`Options::keep_partial`](crate::Options::keep_partial) it returns the samples so far.
//! Nothing is called back on the integrating thread, so a slow observer cannot slow the run.
//!
//! ```
//! use routh_runtime::{FieldError, Flow, Monitor, Options, SimError, Simulate, StopReason};
//! use routh_runtime::nalgebra::Vector2;
//!
//! let osc = |_t: f64, x: &Vector2<f64>| -> Result<Vector2<f64>, FieldError> {
//!     Ok(Vector2::new(x[1], -x[0]))
//! };
//! let monitor = Monitor::new();
//! let opts = Options::default().monitor(monitor.clone()).keep_partial(true);
//! let run = std::thread::scope(|s| {
//!     let worker = s.spawn(|| Flow(&osc).run(Vector2::new(1.0, 0.0)).span(0.0..1e9).options(&opts).go());
//!     while monitor.time().unwrap_or(0.0) < 100.0 && !worker.is_finished() {
//!         std::thread::yield_now(); // a progress bar would read monitor.time() here
//!     }
//!     monitor.cancel();
//!     worker.join().unwrap()
//! })?;
//! assert!(matches!(run.stop, StopReason::Failed(SimError::Cancelled { .. })));
//! assert!(run.last().unwrap().0 >= 100.0);
//! # Ok::<(), SimError>(())
//! ```

use std::fmt;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};

/// A shared handle to watch and cancel runs (see the [module docs](self)). Clones share the
/// same state; two monitors are equal when they are clones of each other.
#[derive(Clone, Default)]
pub struct Monitor {
    inner: Arc<Inner>,
}

struct Inner {
    cancelled: AtomicBool,
    /// Bits of the time of the last accepted step; a NaN before the first.
    time: AtomicU64,
    attempts: AtomicUsize,
}

impl Default for Inner {
    fn default() -> Self {
        Inner { cancelled: AtomicBool::new(false), time: AtomicU64::new(f64::NAN.to_bits()), attempts: AtomicUsize::new(0) }
    }
}

impl Monitor {
    /// A fresh monitor: not cancelled, no step taken.
    #[must_use]
    pub fn new() -> Self {
        Monitor::default()
    }
    /// Ask every run watched by this monitor to stop at its next step.
    pub fn cancel(&self) {
        self.inner.cancelled.store(true, Ordering::Relaxed);
    }
    /// Whether [`Monitor::cancel`] was called.
    #[must_use]
    pub fn is_cancelled(&self) -> bool {
        self.inner.cancelled.load(Ordering::Relaxed)
    }
    /// Time reached by the last accepted step, `None` before the first.
    #[must_use]
    pub fn time(&self) -> Option<f64> {
        let t = f64::from_bits(self.inner.time.load(Ordering::Relaxed));
        (!t.is_nan()).then_some(t)
    }
    /// Step attempts spent so far (accepted and rejected, the count [`crate::Options::max_steps`]
    /// bounds; a hybrid run counts all its segments).
    #[must_use]
    pub fn attempts(&self) -> usize {
        self.inner.attempts.load(Ordering::Relaxed)
    }
    /// Record an accepted step (called by the integrator).
    pub(crate) fn record(&self, t: f64, attempts: usize) {
        self.inner.time.store(t.to_bits(), Ordering::Relaxed);
        self.inner.attempts.store(attempts, Ordering::Relaxed);
    }
}

impl PartialEq for Monitor {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
    }
}

impl fmt::Debug for Monitor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Monitor")
            .field("time", &self.time())
            .field("attempts", &self.attempts())
            .field("cancelled", &self.is_cancelled())
            .finish()
    }
}
