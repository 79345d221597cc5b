//! The six-joint arm of `tests/robots/arm6.urdf` (a UR-type arm, two of its joints behind quarter
//! turns of their frames) read from its file, with the minimum-jerk transfer in joint space it
//! tracks and the tracking weights, shared by `examples/arm_ilqr.rs` and `examples/arm_mpc.rs`.

use routh::nalgebra::SMatrix;
use routh::prelude::*;

/// The arm from its description file, a torque on every joint.
#[derive(Mechanics)]
#[mechanics(urdf(path = "../tests/robots/arm6.urdf", inputs = u), gravity = [0, 0, -g])]
pub struct Arm6 {
    pub g: f64,
}

pub const N: usize = 6;
pub const D: usize = 12;
/// The transfer's first and last joint angles [rad].
pub const START: [f64; N] = [0.0, -1.2, 1.0, -0.5, 0.3, 0.0];
pub const GOAL: [f64; N] = [1.4, -0.4, -0.8, 0.6, -0.7, 1.0];

/// The minimum-jerk transfer from `START` to `GOAL` over `total` seconds, s(τ) = 10τ³ − 15τ⁴ + 6τ⁵
/// (τ = t / total, then the goal held): the state and the joints' accelerations at `t`.
pub fn min_jerk(arm: &Arm6, total: f64, t: f64) -> (State<D>, Vector<N>) {
    let (a, b) = (START, GOAL);
    let tau = (t / total).min(1.0);
    let s = tau.powi(3) * (10.0 - 15.0 * tau + 6.0 * tau * tau);
    let ds = 30.0 * tau * tau * (1.0 - tau).powi(2) / total;
    let dds = 60.0 * tau * (1.0 - tau) * (1.0 - 2.0 * tau) / (total * total);
    let x = arm.state(std::array::from_fn(|k| a[k] + (b[k] - a[k]) * s), std::array::from_fn(|k| (b[k] - a[k]) * ds));
    (x, Vector::<N>::from_fn(|k, _| (b[k] - a[k]) * dds))
}

/// The transfer's states at the steps k h, k = 0, …, `steps`, and its inverse dynamics at the
/// first `steps` of them (`inverse_dynamics` at the path's q̈: the torques that would follow it
/// exactly if they could change continuously) — the references to track and a first guess.
///
/// # Errors
/// The inverse dynamics' (none for this arm at finite states).
pub fn transfer(arm: &Arm6, total: f64, h: f64, steps: usize) -> Result<(Vec<State<D>>, Vec<Vector<N>>), FieldError> {
    let free = arm.driven([0.0; N]);
    let states = (0..=steps).map(|k| min_jerk(arm, total, k as f64 * h).0).collect();
    let torques = (0..steps)
        .map(|k| {
            let (x, qdd) = min_jerk(arm, total, k as f64 * h);
            free.inverse_dynamics(0.0, &x, &qdd)
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok((states, torques))
}

/// The tracking weights (Q, R, Q_f): 10⁴ on each angle's deviation, 10² on each rate's, 10⁻² on
/// each torque's, and ten times Q at the end.
pub fn weights() -> (SMatrix<f64, D, D>, SMatrix<f64, N, N>, SMatrix<f64, D, D>) {
    let mut q = SMatrix::<f64, D, D>::zeros();
    for k in 0..N {
        q[(k, k)] = 1e4;
        q[(N + k, N + k)] = 1e2;
    }
    (q, SMatrix::<f64, N, N>::identity() * 1e-2, q * 10.0)
}
