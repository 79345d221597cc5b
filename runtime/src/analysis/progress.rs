//! Progress bars on standard error for long analyses (ensembles, continuations): indicatif's with
//! the `progress` feature, nothing without it.

/// A progress bar of `len` steps, drawn only when asked for (and then only on a terminal).
pub(crate) struct Progress {
    #[cfg(feature = "progress")]
    bar: indicatif::ProgressBar,
}

impl Progress {
    /// A bar with the indicatif `template` (e.g. `"runs {bar:30} {pos}/{len}"`), hidden unless `shown`.
    pub(crate) fn new(len: u64, template: &str, shown: bool) -> Self {
        #[cfg(feature = "progress")]
        {
            let bar = if shown {
                indicatif::ProgressBar::with_draw_target(Some(len), indicatif::ProgressDrawTarget::stderr())
            } else {
                indicatif::ProgressBar::hidden()
            };
            bar.set_style(
                indicatif::ProgressStyle::with_template(template).unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
            );
            Progress { bar }
        }
        #[cfg(not(feature = "progress"))]
        {
            let _ = (len, template, shown);
            Progress {}
        }
    }

    /// One more step done.
    pub(crate) fn inc(&self) {
        #[cfg(feature = "progress")]
        self.bar.inc(1);
    }

    /// The position and the message shown after the bar.
    pub(crate) fn set(&self, position: u64, message: impl FnOnce() -> String) {
        #[cfg(feature = "progress")]
        {
            self.bar.set_position(position);
            self.bar.set_message(message());
        }
        #[cfg(not(feature = "progress"))]
        let _ = (position, message);
    }

    /// Remove the bar.
    pub(crate) fn finish(&self) {
        #[cfg(feature = "progress")]
        self.bar.finish_and_clear();
    }
}
