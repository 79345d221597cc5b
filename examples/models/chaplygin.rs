//! Chaplygin's sleigh and Chaplygin's ball written with contact items, shared by
//! `examples/rolling.rs` and the tests (`tests/bodies.rs`, `tests/orientation.rs`,
//! `tests/nonholonomic.rs`).

use routh::prelude::*;

/// Chaplygin's sleigh: a planar body on a knife edge a behind its mass centre, which cannot slide
/// sideways (`no_slip`). Its nonholonomic reduction `SleighReduced` drops the whole of SE(2): in the
/// body-frame velocities (v, ω) — the mass centre's forward speed and the turning rate — nothing
/// depends on (x, y, θ), and the reduced system is Chaplygin's v̇ = a ω², ω̇ = −m a v ω/(I + m a²).
#[derive(Mechanics)]
#[mechanics(
    coordinates(x, y, th),
    frame(f = rot_z(th)),
    body(name = sleigh, mass = m, centre = [x, y, 0], frame = f, inertia = diag(i, i, i)),
    no_slip(name = blade, body = sleigh, at = [x, y, 0] + f * [-a, 0, 0], along = f * [0, 1, 0]),
    reduce(nonholonomic(x, y, th), velocities(v = th.cos() * dot(x) + th.sin() * dot(y), w = dot(th)), name = SleighReduced),
)]
pub struct ChaplyginSleigh {
    pub m: f64,
    pub i: f64,
    pub a: f64,
}

/// Chaplygin's ball: a sphere of radius a with its mass centre at its centre and any inertia,
/// rolling without slipping on z = 0 (`rolling(...)`: the contact point's velocity
/// ẋ + Ω × (−a e_z) vanishes, Ω = R ω the spatial angular velocity; the chart holds the height),
/// its orientation a quaternion state.
#[derive(Mechanics)]
#[mechanics(
    coordinates(x, y),
    orientation(r),
    body(name = ball, mass = m, centre = [x, y, a], frame = r, inertia = diag(i1, i2, i3)),
    gravity = [0, 0, -g],
    rolling(name = contact, body = ball, sphere = a),
    jacobian,
)]
pub struct ChaplyginBall {
    pub m: f64,
    pub a: f64,
    pub i1: f64,
    pub i2: f64,
    pub i3: f64,
    pub g: f64,
}
