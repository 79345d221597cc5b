//! Options of a hybrid simulation.

use crate::error::SimError;
use crate::hybrid::zeno::ZenoOptions;
use crate::ode::options::{Options, Output};

/// Options of [`Plan::hybrid`](crate::Plan::hybrid), built with `Default` and builder-style setters.
///
/// ```
/// use routh_runtime::{HybridOptions, Options, Output, ZenoOptions};
/// let opts = HybridOptions::default()
///     .ode(Options::default().rtol(1e-10).atol(1e-12))
///     .output(Output::Interval(0.01))
///     .max_impacts(1000)
///     .zeno(ZenoOptions::default().min_impacts(30));
/// assert_eq!(opts.ode.rtol, 1e-10);
/// assert!(opts.validate().is_ok());
/// assert!(HybridOptions::default().contact_tolerance(-1.0).validate().is_err());
/// ```
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub struct HybridOptions {
    /// Integration options of every segment (tolerances, output, event tolerance, step
    /// limits, dense output); [`Options::max_steps`] bounds the whole run.
    pub ode: Options,
    /// Maximum number of resets applied. Default `100_000`.
    pub max_impacts: usize,
    /// Zeno detection.
    pub zeno: ZenoOptions,
    /// Absolute tolerance on guard values `h` (in the guard's units), finite and `> 0`.
    /// Default `1e-10`. A guard is in contact when `h ≤ contact_tolerance +
    /// 4 · event_tolerance · |ḣ|`; below minus that value it is violated; a state that sinks
    /// this far below its restart value is stuck (see the [module docs](crate::hybrid)).
    pub contact_tolerance: f64,
    /// Maximum number of resets applied at one instant (simultaneous impacts), `≥ 1`.
    /// Default `16`.
    pub max_resets_per_instant: usize,
    /// Relative mismatch `η > 0` allowed by the guard-resolution step control (see the
    /// [module docs](crate::hybrid)); `f64::INFINITY` disables it. Default `0.05`.
    pub guard_resolution: f64,
}

impl Default for HybridOptions {
    fn default() -> Self {
        HybridOptions {
            ode: Options::default(),
            max_impacts: 100_000,
            zeno: ZenoOptions::default(),
            contact_tolerance: 1e-10,
            max_resets_per_instant: 16,
            guard_resolution: 0.05,
        }
    }
}

impl HybridOptions {
    /// Set [`HybridOptions::ode`].
    #[must_use]
    pub fn ode(mut self, ode: Options) -> Self {
        self.ode = ode;
        self
    }
    /// Set `ode.rtol` ([`Options::rtol`]).
    #[must_use]
    pub fn rtol(mut self, rtol: f64) -> Self {
        self.ode.rtol = rtol;
        self
    }
    /// Set `ode.atol` ([`Options::atol`]).
    #[must_use]
    pub fn atol(mut self, atol: f64) -> Self {
        self.ode.atol = atol;
        self
    }
    /// Set `ode.output` ([`Options::output`]).
    #[must_use]
    pub fn output(mut self, output: Output) -> Self {
        self.ode.output = output;
        self
    }
    /// Set `ode.max_step` ([`Options::max_step`]).
    #[must_use]
    pub fn max_step(mut self, h: f64) -> Self {
        self.ode.max_step = h;
        self
    }
    /// Set [`HybridOptions::max_impacts`].
    #[must_use]
    pub fn max_impacts(mut self, n: usize) -> Self {
        self.max_impacts = n;
        self
    }
    /// Set [`HybridOptions::zeno`].
    #[must_use]
    pub fn zeno(mut self, zeno: ZenoOptions) -> Self {
        self.zeno = zeno;
        self
    }
    /// Set [`HybridOptions::contact_tolerance`].
    #[must_use]
    pub fn contact_tolerance(mut self, tol: f64) -> Self {
        self.contact_tolerance = tol;
        self
    }
    /// Set [`HybridOptions::max_resets_per_instant`].
    #[must_use]
    pub fn max_resets_per_instant(mut self, n: usize) -> Self {
        self.max_resets_per_instant = n;
        self
    }
    /// Set [`HybridOptions::guard_resolution`].
    #[must_use]
    pub fn guard_resolution(mut self, eta: f64) -> Self {
        self.guard_resolution = eta;
        self
    }

    /// Check the options that do not depend on the time span.
    ///
    /// # Errors
    /// [`SimError::InvalidOptions`] naming the first offending option.
    pub fn validate(&self) -> Result<(), SimError> {
        self.ode.validate()?;
        self.zeno.validate()?;
        let bad = |msg: String| Err(SimError::InvalidOptions(msg));
        if !(self.contact_tolerance.is_finite() && self.contact_tolerance > 0.0) {
            return bad(format!("contact_tolerance must be finite and > 0, got {}", self.contact_tolerance));
        }
        if self.max_resets_per_instant == 0 {
            return bad("max_resets_per_instant must be >= 1".to_owned());
        }
        if !(self.guard_resolution > 0.0) {
            return bad(format!("guard_resolution must be > 0, got {}", self.guard_resolution));
        }
        Ok(())
    }
}
