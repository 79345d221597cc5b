// The stiff models shared by the `stiff` benchmark group of `benches/chain.rs` and `tests/stiff.rs`:
// included, not a benchmark of its own.

/// A pendulum on a stiff, damped elastic rod: (r, θ), rest length l, stiffness k and damping c on
/// the stretch. The rod's axial mode rings at √(k/m) against the swing's √(g/l) and decays at
/// c/2m: a stiff mechanical system whose slow motion is the rigid pendulum's.
#[derive(Mechanics)]
#[mechanics(
    coordinates(r, th),
    lagrangian = m / 2 * (dot(r).powi(2) + (r * dot(th)).powi(2)) + m * g * r * th.cos() - k / 2 * (r - l).powi(2),
    force(r = -c * dot(r)),
    jacobian,
)]
pub struct StiffPendulum {
    pub m: f64,
    pub g: f64,
    pub l: f64,
    pub k: f64,
    pub c: f64,
}

impl StiffPendulum {
    /// m = l = 1, g = 9.81, the axial mode `ratio` times faster than the swing
    /// (√(k/m) = ratio · √(g/l)), damped at ζ = 0.3.
    #[must_use]
    pub fn with_ratio(ratio: f64) -> StiffPendulum {
        let (m, g, l) = (1.0, 9.81, 1.0);
        let k = ratio * ratio * m * g / l;
        StiffPendulum { m, g, l, k, c: 0.6 * (k * m).sqrt() }
    }

    /// Released from rest at angle `th` with the rod at its static stretch (on the slow motion).
    #[must_use]
    pub fn released(&self, th: f64) -> routh::nalgebra::SVector<f64, 4> {
        self.state([self.l + self.m * self.g * th.cos() / self.k, th], [0.0, 0.0])
    }
}
