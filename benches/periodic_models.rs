// The hybrid models of *Hybrid periodic orbits* shared by the continuation benchmark and the
// tests (`tests/periodic.rs`, `tests/modes.rs`, `tests/ensembles.rs`): included, not a benchmark of
// its own.

/// The bouncing ball of the paper's §4.1 (m = g = 1 in most checks; e = 1 elastic).
#[derive(Mechanics)]
#[mechanics(
    coordinates(y),
    lagrangian = m / 2 * dot(y).powi(2) - m * g * y,
    impact(name = floor, guard = y, law = restitution(e)),
)]
pub struct Ball {
    pub m: f64,
    pub g: f64,
    pub e: f64,
}

/// The rocking block of the paper's §4.2 (Housner): rotation α about a corner, slenderness β,
/// normalized so that p = 3g/(4l) = 3/4 (l = g = m = 1); the impact on the other corner is folded
/// back by symmetry, α̇ → −α̇ at α = 0.
#[derive(Mechanics)]
#[mechanics(
    coordinates(alpha),
    lagrangian = 2 * m * l.powi(2) / 3 * dot(alpha).powi(2) - m * g * l * ((alpha - beta).cos() - beta.cos()),
    impact(name = corner, guard = alpha, law = map(dot(alpha) = -dot(alpha))),
)]
pub struct RockingBlock {
    pub m: f64,
    pub l: f64,
    pub g: f64,
    pub beta: f64,
}

/// The bouncing rod of the paper's §4.3: height y of the centre, rotation α, radius of gyration
/// r, length l; elastic impacts of the left (y − (l/2) sin α = 0) and right end (erratum P1: the
/// standard elastic law).
#[derive(Mechanics)]
#[mechanics(
    coordinates(y, alpha),
    lagrangian = m / 2 * (dot(y).powi(2) + r.powi(2) * dot(alpha).powi(2)) - m * g * y,
    impact(name = left, guard = y - l / 2 * alpha.sin(), law = restitution(e)),
    impact(name = right, guard = y + l / 2 * alpha.sin(), law = restitution(e)),
)]
pub struct Rod {
    pub m: f64,
    pub g: f64,
    pub l: f64,
    pub r: f64,
    pub e: f64,
}

/// SLIP-like hopper with a swing leg (*Hybrid periodic orbits*, §4.4). Stance: point mass on a
/// massless spring leg, (α, l) about the foot, mass at (−l sin α, l cos α). Flight: (x, y) of the
/// mass and the leg angle α swinging harmonically with ω; the leg's inertia `eps` → 0 (the paper's
/// massless-leg limit: α̈ = −ω²α does not depend on it), so it carries no energy. Resets are the
/// chart changes of the paper (x is kept in flight, relative to the last foot position).
#[derive(Mechanics)]
#[mechanics(
    mode(stance,
        coordinates(alpha, l),
        lagrangian = m / 2 * (dot(l).powi(2) + (l * dot(alpha)).powi(2)) - m * g * l * alpha.cos()
            - k / 2 * (l - l0).powi(2),
    ),
    mode(flight,
        coordinates(x, y, alpha),
        lagrangian = m / 2 * (dot(x).powi(2) + dot(y).powi(2)) - m * g * y
            + eps / 2 * (dot(alpha).powi(2) - (w * alpha).powi(2)),
    ),
    transition(stance -> flight, name = liftoff, guard = l0 - l, law = reset(
        x = -l * alpha.sin(),
        y = l * alpha.cos(),
        dot(x) = -dot(l) * alpha.sin() - l * dot(alpha) * alpha.cos(),
        dot(y) = dot(l) * alpha.cos() - l * dot(alpha) * alpha.sin(),
    )),
    transition(flight -> stance, name = touchdown, guard = y - l0 * alpha.cos(), law = reset(
        l = l0,
        dot(alpha) = -(alpha.cos() * dot(x) + alpha.sin() * dot(y)) / l0,
        dot(l) = alpha.cos() * dot(y) - alpha.sin() * dot(x),
    )),
)]
pub struct Hopper {
    pub m: f64,
    pub g: f64,
    pub k: f64,
    pub l0: f64,
    pub w: f64,
    pub eps: f64,
}
