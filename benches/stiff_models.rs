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

/// A chain of three links (point masses m at their ends, lengths l, absolute angles a, b, c from
/// the downward vertical, a free pivot) whose two inner joints are torsional spring–dampers of
/// stiffness k and damping d on the relative angles: a flexible arm. Its slow motion is the
/// nearly rigid chain swinging under gravity; the joints' flexing modes are the fast ones.
#[derive(Mechanics)]
#[mechanics(
    coordinates(a, b, c),
    define(
        x1 = l * a.sin(), y1 = -l * a.cos(),
        x2 = x1 + l * b.sin(), y2 = y1 - l * b.cos(),
        x3 = x2 + l * c.sin(), y3 = y2 - l * c.cos(),
    ),
    lagrangian = m / 2 * (dot(x1).powi(2) + dot(y1).powi(2) + dot(x2).powi(2) + dot(y2).powi(2) + dot(x3).powi(2) + dot(y3).powi(2))
        - m * g * (y1 + y2 + y3) - k / 2 * ((b - a).powi(2) + (c - b).powi(2)),
    force(
        a = d * (dot(b) - dot(a)),
        b = -d * (dot(b) - dot(a)) + d * (dot(c) - dot(b)),
        c = -d * (dot(c) - dot(b)),
    ),
    jacobian,
)]
pub struct FlexibleArm {
    pub m: f64,
    pub l: f64,
    pub g: f64,
    pub k: f64,
    pub d: f64,
}

impl FlexibleArm {
    /// m = l = 1, g = 9.81, the joints' stiffness `ratio` times the gravity stiffness m g l and
    /// their dampers at `zeta` times the critical damping 2√(k m l²) of one joint.
    #[must_use]
    pub fn with_ratio(ratio: f64, zeta: f64) -> FlexibleArm {
        let (m, l, g) = (1.0, 1.0, 9.81);
        let k = ratio * m * g * l;
        FlexibleArm { m, l, g, k, d: 2.0 * zeta * (k * m * l * l).sqrt() }
    }

    /// Released from rest, straight, at angle `th` (on the slow motion: straight is the joints'
    /// rest shape and the chain starts at rest).
    #[must_use]
    pub fn released(&self, th: f64) -> routh::nalgebra::SVector<f64, 6> {
        self.state([th, th, th], [0.0, 0.0, 0.0])
    }
}
