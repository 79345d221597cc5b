//! The two-wheeled rover on a rotating disk (*Affine constraints*, §4; reference run R4 of
//! `docs/references.md`), shared by `examples/rover.rs` and `tests/rover.rs`: the full model in
//! Cartesian coordinates, and the same rover in the polar coordinates of its reduction with the
//! reduced system `RoverReduced`.

use routh::nalgebra::SVector;
use routh::prelude::*;

/// q = (x, y, θ, ϑ₁, ϑ₂): axle midpoint C, heading, wheel angles; the centre of mass lies l₀ ahead
/// of C, J_r is the inertia about C and J_w a wheel's about its axle; the wheels are b from C. The
/// wheels roll without slipping relative to the disk turning at Σ: three affine constraints,
/// written as the paper's one-forms with their `dt` parts.
#[derive(Mechanics)]
#[mechanics(
    coordinates(x, y, th, v1, v2),
    lagrangian = mass / 2 * (dot(x).powi(2) + dot(y).powi(2))
        + mass * l0 * dot(th) * (dot(y) * th.cos() - dot(x) * th.sin())
        + jr / 2 * dot(th).powi(2) + jw / 2 * (dot(v1).powi(2) + dot(v2).powi(2)),
    constraint(
        lateral = dy * th.cos() - dx * th.sin() - sigma * (x * th.cos() + y * th.sin()) * dt,
        wheel1 = dx * th.cos() + dy * th.sin() - b * dth - rw * dv1 - sigma * (x * th.sin() - y * th.cos() - b) * dt,
        wheel2 = dx * th.cos() + dy * th.sin() + b * dth - rw * dv2 - sigma * (x * th.sin() - y * th.cos() + b) * dt,
    ),
    symmetry(rotation = generator(x = -y, y = x, th = 1)),
    reduce(
        nonholonomic(th, v1, v2),
        shape(rho = (x.powi(2) + y.powi(2)).sqrt(), psi = y.atan2(x) - th),
        inverse(x = rho * (psi + th).cos(), y = rho * (psi + th).sin()),
        symmetry(rotation),
        velocities(v1, v2),
        name = RoverShape,
    ),
)]
pub struct Rover {
    pub mass: f64,
    pub l0: f64,
    pub jr: f64,
    pub jw: f64,
    pub rw: f64,
    pub b: f64,
    pub sigma: f64,
}

/// The same rover in the polar coordinates of its reduction (*Affine constraints*, §3.4, erratum
/// E9: ψ = atan2(y, x) − θ): C = ρ (cos(ψ + θ), sin(ψ + θ)). The disk's rotation E = SO(2) turns
/// θ with ψ fixed, so θ and the wheel angles drop out of the reduced system `RoverReduced`, whose
/// state is (ρ, ψ, ω₁, ω₂): the paper's four dynamical equations (4.32) with the reconstruction
/// (4.33) of ρ and ψ, and θ, ϑ₁, ϑ₂ by quadrature. The derive proves at compile time that nothing
/// of it depends on θ, ϑ₁ or ϑ₂.
#[derive(Mechanics)]
#[mechanics(
    coordinates(rho, psi, th, v1, v2),
    define(x = rho * (psi + th).cos(), y = rho * (psi + th).sin()),
    lagrangian = mass / 2 * (dot(x).powi(2) + dot(y).powi(2))
        + mass * l0 * dot(th) * (dot(y) * th.cos() - dot(x) * th.sin())
        + jr / 2 * dot(th).powi(2) + jw / 2 * (dot(v1).powi(2) + dot(v2).powi(2)),
    constraint(
        lateral = dot(y) * th.cos() - dot(x) * th.sin() - sigma * (x * th.cos() + y * th.sin()),
        wheel1 = dot(x) * th.cos() + dot(y) * th.sin() - b * dot(th) - rw * dot(v1) - sigma * (x * th.sin() - y * th.cos() - b),
        wheel2 = dot(x) * th.cos() + dot(y) * th.sin() + b * dot(th) - rw * dot(v2) - sigma * (x * th.sin() - y * th.cos() + b),
    ),
    reduce(nonholonomic(th, v1, v2), velocities(v1, v2), name = RoverReduced),
)]
pub struct PolarRover {
    pub mass: f64,
    pub l0: f64,
    pub jr: f64,
    pub jw: f64,
    pub rw: f64,
    pub b: f64,
    pub sigma: f64,
}

/// The digest's parameters (§4.1) at the disk rate Σ.
#[must_use]
pub fn nominal(sigma: f64) -> Rover {
    Rover { mass: 10.0, l0: 0.1, jr: 1.0, jw: 0.01, rw: 0.1, b: 0.25, sigma }
}

/// The reduced rover with the parameters of `r`.
#[must_use]
pub fn reduced(r: &Rover) -> RoverReduced {
    RoverReduced { mass: r.mass, l0: r.l0, jr: r.jr, jw: r.jw, rw: r.rw, b: r.b, sigma: r.sigma }
}

/// q̇ = C_q ω + Y: the wheel rates ω and the disk's co-rotation Y = Σ(−y, x, 1, 0, 0).
#[must_use]
pub fn start(r: &Rover, q: [f64; 5], w: [f64; 2]) -> SVector<f64, 10> {
    let (x, y, th) = (q[0], q[1], q[2]);
    let v = r.rw * (w[0] + w[1]) / 2.0;
    r.state(q, [v * th.cos() - r.sigma * y, v * th.sin() + r.sigma * x, r.rw * (w[1] - w[0]) / (2.0 * r.b) + r.sigma, w[0], w[1]])
}

/// (σ, ψ) of a Cartesian state: the distance of C from the disk's centre and its bearing relative to
/// the heading, in [0, 2π).
#[must_use]
pub fn polar(x: &SVector<f64, 10>) -> (f64, f64) {
    (x[0].hypot(x[1]), (x[1].atan2(x[0]) - x[2]).rem_euclid(std::f64::consts::TAU))
}

/// The Cartesian rover's state from the polar rover's.
#[must_use]
pub fn cartesian(r: &Rover, p: &SVector<f64, 10>) -> SVector<f64, 10> {
    let (rho, psi, th) = (p[0], p[1], p[2]);
    let (rd, pd, td) = (p[5], p[6], p[7]);
    let a = psi + th;
    let (x, y) = (rho * a.cos(), rho * a.sin());
    let (xd, yd) = (rd * a.cos() - rho * a.sin() * (pd + td), rd * a.sin() + rho * a.cos() * (pd + td));
    r.state([x, y, th, p[3], p[4]], [xd, yd, td, p[8], p[9]])
}
