//! Records of reduced simulations.

/// A jump of the reduced momenta μ at an impact, in hybrid Routh reduction (*Hybrid momentum maps*, §4.1; see `docs/references.md`): the
/// reduced system runs at fixed μ between impacts; at an impact the full state is reconstructed,
/// the full impact law applied, and μ recomputed from the post-impact state.
#[derive(Debug, Clone, PartialEq)]
pub struct MomentumJump<const K: usize> {
    /// Impact time.
    pub t: f64,
    /// Name of the guard that fired.
    pub guard: &'static str,
    /// μ before the impact.
    pub before: [f64; K],
    /// μ after the impact.
    pub after: [f64; K],
}
