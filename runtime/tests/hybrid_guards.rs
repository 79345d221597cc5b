//! Hybrid simulation with demanding guards: a fast-spinning rod whose end dips between samples,
//! simultaneous impacts in a corner, a moving wall, two modes on a padded state, guards that are
//! undefined or rough, and typed errors.

mod hybrid_support;

use std::f64::consts::PI;

use routh_runtime::nalgebra::{SVector, Vector2, Vector3, Vector4};
use routh_runtime::{Completion, FieldError, HybridStop, HybridSystem, SimError};
use routh_runtime::{Hybrid, ModeState, Simulate};

use hybrid_support::{ball, ball_impacts, tight};

// ---------------------------------------------------------------------------------------------
// Bouncing rod: height y falls freely, angle α = ω t spins fast; the left end y − ½ sin α hits
// the floor. The end can dip below the floor and come back within one integration step of the
// (trivially integrable) state, so the guard itself must limit the step.

struct Rod {
    g: f64,
    omega: f64,
}

impl HybridSystem<3> for Rod {
    fn mode_count(&self) -> usize {
        2
    }
    fn mode_name(&self, mode: usize) -> &'static str {
        ["flight", "landed"][mode.min(1)]
    }
    fn mode_field(&self, m: usize, _t: f64, x: &Vector3<f64>) -> Result<Vector3<f64>, FieldError> {
        Ok(if m == 0 { Vector3::new(x[1], -self.g, self.omega) } else { Vector3::zeros() })
    }
    fn guard_count(&self, mode: usize) -> usize {
        usize::from(mode == 0)
    }
    fn guard_name(&self, _mode: usize, _guard: usize) -> &'static str {
        "left end"
    }
    fn guard(&self, _m: usize, _g: usize, _t: f64, x: &Vector3<f64>) -> f64 {
        x[0] - 0.5 * x[2].sin()
    }
    fn guard_rate(&self, _m: usize, _g: usize, _t: f64, x: &Vector3<f64>) -> f64 {
        x[1] - 0.5 * self.omega * x[2].cos()
    }
    fn reset(&self, _m: usize, _g: usize, _t: f64, x: &Vector3<f64>) -> Result<(usize, Vector3<f64>), FieldError> {
        Ok((1, *x))
    }
    fn mode_energy(&self, _m: usize, _t: f64, x: &Vector3<f64>) -> f64 {
        0.5 * x[1] * x[1] + self.g * x[0]
    }
}

/// First time the left end touches the floor, by a fine scan (with a golden-section check of
/// every sampled local minimum) and bisection.
fn rod_first_contact(y0: f64, v0: f64, g: f64, omega: f64, t_max: f64) -> f64 {
    let h = |t: f64| y0 + v0 * t - 0.5 * g * t * t - 0.5 * (omega * t).sin();
    let dt = 1e-5;
    let n = (t_max / dt) as usize;
    let bisect = |mut a: f64, mut b: f64| {
        // h(a) > 0 ≥ h(b).
        for _ in 0..200 {
            let m = 0.5 * (a + b);
            if h(m) > 0.0 {
                a = m;
            } else {
                b = m;
            }
        }
        b
    };
    for k in 1..=n {
        let (a, b) = ((k - 1) as f64 * dt, k as f64 * dt);
        if h(b) <= 0.0 {
            return bisect(a, b);
        }
        // A dip hidden between samples: minimise on [a − dt, b] if a is a sampled minimum.
        if k >= 2 && h(a) <= h(a - dt) && h(a) <= h(b) {
            let (mut lo, mut hi) = (a - dt, b);
            for _ in 0..100 {
                let m1 = lo + (hi - lo) * 0.382;
                let m2 = lo + (hi - lo) * 0.618;
                if h(m1) < h(m2) {
                    hi = m2;
                } else {
                    lo = m1;
                }
            }
            let m = 0.5 * (lo + hi);
            if h(m) <= 0.0 {
                return bisect(a - dt, m);
            }
        }
    }
    panic!("no contact");
}

#[test]
fn bouncing_rod_double_crossing_is_not_skipped() {
    let g = 9.81;
    let mut checked = 0;
    for &omega in &[20.0, 57.0, 200.0, 1000.0] {
        for &(y0, v0) in &[(1.0, 0.0), (0.8, 0.3), (2.0, -1.0), (0.62, 0.0)] {
            let rod = Rod { g, omega };
            let t_true = rod_first_contact(y0, v0, g, omega, 3.0);
            let traj = Hybrid(&rod)
                .run(ModeState::new(0, Vector3::new(y0, v0, 0.0)))
                .span(0.0..3.0)
                .options(tight())
                .go()
                .unwrap_or_else(|e| panic!("ω = {omega}, y0 = {y0}: {e}"));
            assert_eq!(traj.impacts.len(), 1);
            let imp = &traj.impacts[0];
            assert!(
                (imp.t - t_true).abs() < 1e-9,
                "ω = {omega}, y0 = {y0}, v0 = {v0}: impact at {} but first contact at {t_true}",
                imp.t
            );
            assert!(imp.rate < 0.0);
            assert_eq!(traj.mode_sequence(), vec![0, 1]);
            assert_eq!(traj.stop, HybridStop::Finished);
            checked += 1;
        }
    }
    assert_eq!(checked, 16);
}

// ---------------------------------------------------------------------------------------------
// Particle in the unit square; elastic walls. x = (x, y, vx, vy).

struct BoxParticle;

impl HybridSystem<4> for BoxParticle {
    fn mode_name(&self, _mode: usize) -> &'static str {
        "free"
    }
    fn mode_field(&self, _m: usize, _t: f64, x: &Vector4<f64>) -> Result<Vector4<f64>, FieldError> {
        Ok(Vector4::new(x[2], x[3], 0.0, 0.0))
    }
    fn guard_count(&self, _mode: usize) -> usize {
        4
    }
    fn guard_name(&self, _mode: usize, guard: usize) -> &'static str {
        ["left", "right", "bottom", "top"][guard.min(3)]
    }
    fn guard(&self, _m: usize, g: usize, _t: f64, x: &Vector4<f64>) -> f64 {
        match g {
            0 => x[0],
            1 => 1.0 - x[0],
            2 => x[1],
            _ => 1.0 - x[1],
        }
    }
    fn guard_rate(&self, _m: usize, g: usize, _t: f64, x: &Vector4<f64>) -> f64 {
        match g {
            0 => x[2],
            1 => -x[2],
            2 => x[3],
            _ => -x[3],
        }
    }
    fn reset(&self, m: usize, g: usize, _t: f64, x: &Vector4<f64>) -> Result<(usize, Vector4<f64>), FieldError> {
        let mut y = *x;
        y[2 + g / 2] = -y[2 + g / 2];
        Ok((m, y))
    }
    fn mode_energy(&self, _m: usize, _t: f64, x: &Vector4<f64>) -> f64 {
        0.5 * (x[2] * x[2] + x[3] * x[3])
    }
}

#[test]
fn corner_hit_reverses_both_components() {
    let traj = Hybrid(&BoxParticle)
        .run(ModeState::new(0, Vector4::new(0.25, 0.25, 1.0, 1.0)))
        .span(0.0..2.0)
        .options(tight())
        .go()
        .unwrap();
    assert_eq!(traj.stop, HybridStop::Finished);
    // Corner (1, 1) at t = 0.75, corner (0, 0) at t = 1.75; two resets at each.
    let names: Vec<_> = traj.impacts.iter().map(|r| r.guard).collect();
    assert_eq!(names, ["right", "top", "left", "bottom"]);
    assert!((traj.impacts[0].t - 0.75).abs() < 1e-11);
    assert_eq!(traj.impacts[1].t, traj.impacts[0].t);
    assert!((traj.impacts[2].t - 1.75).abs() < 1e-11);
    assert_eq!(traj.impacts[3].t, traj.impacts[2].t);
    assert_eq!((traj.impacts[1].post[2], traj.impacts[1].post[3]), (-1.0, -1.0));
    assert_eq!((traj.impacts[3].post[2], traj.impacts[3].post[3]), (1.0, 1.0));
    // The particle stays on the diagonal.
    for (_, _, x) in traj.iter() {
        assert!((x[0] - x[1]).abs() < 1e-12);
        assert!(x[0] > -1e-10 && x[0] < 1.0 + 1e-10);
    }
    // Samples at the corner: pre, after the first reset, after the second.
    let at: Vec<_> = traj.iter().filter(|(t, _, _)| *t == traj.impacts[0].t).collect();
    assert_eq!(at.len(), 3);
    let (_, _, end) = traj.last().unwrap();
    assert!((end[0] - 0.25).abs() < 1e-10);
}

#[test]
fn nearly_simultaneous_impacts_are_resolved_at_one_instant() {
    // Off the diagonal by 1e-14: the walls are hit 1e-14 apart, within the event tolerance.
    let traj = Hybrid(&BoxParticle)
        .run(ModeState::new(0, Vector4::new(0.25, 0.25 + 1e-14, 1.0, 1.0)))
        .span(0.0..1.0)
        .options(tight())
        .go()
        .unwrap();
    assert_eq!(traj.impacts.len(), 2);
    assert_eq!(traj.impacts[0].t, traj.impacts[1].t);
    let end = traj.states.last().unwrap();
    assert!(end[2] < 0.0 && end[3] < 0.0);
    // Clearly separate hits stay separate impacts.
    let traj = Hybrid(&BoxParticle)
        .run(ModeState::new(0, Vector4::new(0.25, 0.25 + 1e-3, 1.0, 1.0)))
        .span(0.0..1.0)
        .options(tight())
        .go()
        .unwrap();
    let names: Vec<_> = traj.impacts.iter().map(|r| r.guard).collect();
    assert_eq!(names, ["top", "right"]);
    assert!((traj.impacts[0].t - (0.75 - 1e-3)).abs() < 1e-12);
    assert!((traj.impacts[1].t - 0.75).abs() < 1e-12);
}

// ---------------------------------------------------------------------------------------------
// Moving wall: free particle between a fixed wall x ≥ −1 and a wall approaching at
// L(t) = 1 − 0.1 t; elastic in the wall's frame: v⁺ = 2 L̇ − v⁻.

struct MovingWall;

const WALL_SPEED: f64 = -0.1;

fn wall(t: f64) -> f64 {
    1.0 + WALL_SPEED * t
}

impl HybridSystem<2> for MovingWall {
    fn mode_name(&self, _mode: usize) -> &'static str {
        "free"
    }
    fn mode_field(&self, _m: usize, _t: f64, x: &Vector2<f64>) -> Result<Vector2<f64>, FieldError> {
        Ok(Vector2::new(x[1], 0.0))
    }
    fn guard_count(&self, _mode: usize) -> usize {
        2
    }
    fn guard_name(&self, _mode: usize, guard: usize) -> &'static str {
        ["moving wall", "fixed wall"][guard.min(1)]
    }
    fn guard(&self, _m: usize, g: usize, t: f64, x: &Vector2<f64>) -> f64 {
        if g == 0 { wall(t) - x[0] } else { x[0] + 1.0 }
    }
    fn guard_rate(&self, _m: usize, g: usize, _t: f64, x: &Vector2<f64>) -> f64 {
        if g == 0 { WALL_SPEED - x[1] } else { x[1] }
    }
    fn reset(&self, m: usize, g: usize, _t: f64, x: &Vector2<f64>) -> Result<(usize, Vector2<f64>), FieldError> {
        let v = if g == 0 { 2.0 * WALL_SPEED - x[1] } else { -x[1] };
        Ok((m, Vector2::new(x[0], v)))
    }
    fn mode_energy(&self, _m: usize, _t: f64, x: &Vector2<f64>) -> f64 {
        0.5 * x[1] * x[1]
    }
}

#[test]
fn moving_wall_reverses_relative_velocity() {
    let t_end = 12.0;
    let traj = Hybrid(&MovingWall).run(ModeState::new(0, Vector2::new(0.0, 1.0))).span(0.0..t_end).options(tight()).go().unwrap();
    // Closed form, impact by impact.
    let (mut t, mut x, mut v) = (0.0f64, 0.0f64, 1.0f64);
    let mut expected = Vec::new();
    loop {
        let (tn, g) = if v > 0.0 {
            // x + v (s − t) = 1 − 0.1 s
            ((1.0 - x + v * t) / (v - WALL_SPEED), 0)
        } else {
            (t + (x + 1.0) / -v, 1)
        };
        if tn > t_end {
            break;
        }
        x += v * (tn - t);
        t = tn;
        v = if g == 0 { 2.0 * WALL_SPEED - v } else { -v };
        expected.push((t, g, v));
    }
    assert!(expected.len() >= 8, "{}", expected.len());
    assert_eq!(traj.impacts.len(), expected.len());
    for (imp, &(te, g, ve)) in traj.impacts.iter().zip(&expected) {
        assert!((imp.t - te).abs() < 1e-10, "{} vs {te}", imp.t);
        assert_eq!(imp.guard_index, g);
        assert!((imp.post[1] - ve).abs() < 1e-10);
        if g == 0 {
            // The approach rate includes ∂h/∂t, and the relative velocity is reversed.
            let rel_pre = WALL_SPEED - imp.pre[1];
            let rel_post = WALL_SPEED - imp.post[1];
            assert!((imp.rate - rel_pre).abs() < 1e-15);
            assert!((rel_post + rel_pre).abs() < 1e-12);
            // Each hit on the approaching wall speeds the particle up by 0.2.
            assert!((imp.energy_jump() - 0.5 * (imp.post[1].powi(2) - imp.pre[1].powi(2))).abs() < 1e-12);
        }
    }
    for (t, _, x) in traj.iter() {
        assert!(x[0] <= wall(t) + 1e-10 && x[0] >= -1.0 - 1e-10);
    }
}

// ---------------------------------------------------------------------------------------------
// Two modes: free flight with constant restoring force a for x > 0, a linear spring for x < 0.
// Identity resets switch modes at x = 0. Period: 2 v0 / a + π √(m/k). x[2] is an unused padded
// entry that must be preserved.

struct SpringFlight {
    a: f64,
    w: f64,
}

impl HybridSystem<3> for SpringFlight {
    fn mode_count(&self) -> usize {
        2
    }
    fn mode_name(&self, mode: usize) -> &'static str {
        ["flight", "spring"][mode.min(1)]
    }
    fn mode_field(&self, m: usize, _t: f64, x: &Vector3<f64>) -> Result<Vector3<f64>, FieldError> {
        let acc = if m == 0 { -self.a } else { -self.w * self.w * x[0] };
        Ok(Vector3::new(x[1], acc, 0.0))
    }
    fn guard_count(&self, _mode: usize) -> usize {
        1
    }
    fn guard_name(&self, mode: usize, _guard: usize) -> &'static str {
        ["touch down", "lift off"][mode.min(1)]
    }
    fn guard(&self, m: usize, _g: usize, _t: f64, x: &Vector3<f64>) -> f64 {
        if m == 0 { x[0] } else { -x[0] }
    }
    fn guard_rate(&self, m: usize, _g: usize, _t: f64, x: &Vector3<f64>) -> f64 {
        if m == 0 { x[1] } else { -x[1] }
    }
    fn reset(&self, m: usize, _g: usize, _t: f64, x: &Vector3<f64>) -> Result<(usize, Vector3<f64>), FieldError> {
        Ok((1 - m.min(1), *x))
    }
    fn mode_energy(&self, m: usize, _t: f64, x: &Vector3<f64>) -> f64 {
        let pot = if m == 0 { self.a * x[0] } else { 0.5 * self.w * self.w * x[0] * x[0] };
        0.5 * x[1] * x[1] + pot
    }
}

#[test]
fn two_mode_period_matches_closed_form() {
    let (a, k_over_m, v0) = (2.0, 9.0, 1.5);
    let sys = SpringFlight { a, w: f64::sqrt(k_over_m) };
    let opts = tight();
    let traj = Hybrid(&sys).run(ModeState::new(0, Vector3::new(0.0, v0, 7.0))).span(0.0..20.0).options(&opts).go().unwrap();
    assert_eq!(traj.stop, HybridStop::Finished);
    let flight = 2.0 * v0 / a;
    let spring = PI / k_over_m.sqrt();
    let period = flight + spring;
    assert!(traj.impacts.len() >= 10);
    for (j, imp) in traj.impacts.iter().enumerate() {
        let k = (j / 2) as f64;
        let expected = if j % 2 == 0 { flight + k * period } else { period + k * period };
        assert!((imp.t - expected).abs() < 1e-9, "switch {j}: {} vs {expected}", imp.t);
        assert_eq!(imp.mode_before, j % 2);
        assert_eq!(imp.mode_after, 1 - j % 2);
        assert!(imp.energy_jump().abs() < 1e-10);
        assert_eq!(imp.pre, imp.post);
    }
    let seq = traj.mode_sequence();
    assert_eq!(seq.len(), traj.impacts.len() + 1);
    assert!(seq.iter().enumerate().all(|(i, &m)| m == i % 2));
    // Mode of each sample matches the sign of x; the padded entry is untouched.
    for (_, m, x) in traj.iter() {
        assert!(if m == 0 { x[0] >= -1e-10 } else { x[0] <= 1e-10 });
        assert_eq!(x[2], 7.0);
    }
}

// ---------------------------------------------------------------------------------------------
// Errors.

/// Ball whose guard, rate or reset misbehave on request.
struct Faulty {
    nan_guard_after: f64,
    reset_mode: usize,
    reset_nan: bool,
    reset_singular: bool,
}

impl Default for Faulty {
    fn default() -> Self {
        Faulty { nan_guard_after: f64::INFINITY, reset_mode: 0, reset_nan: false, reset_singular: false }
    }
}

impl HybridSystem<2> for Faulty {
    fn mode_name(&self, _mode: usize) -> &'static str {
        "flight"
    }
    fn mode_field(&self, _m: usize, _t: f64, x: &Vector2<f64>) -> Result<Vector2<f64>, FieldError> {
        Ok(Vector2::new(x[1], -1.0))
    }
    fn guard_count(&self, _mode: usize) -> usize {
        1
    }
    fn guard_name(&self, _mode: usize, _guard: usize) -> &'static str {
        "floor"
    }
    fn guard(&self, _m: usize, _g: usize, t: f64, x: &Vector2<f64>) -> f64 {
        if t > self.nan_guard_after { f64::NAN } else { x[0] }
    }
    fn guard_rate(&self, _m: usize, _g: usize, _t: f64, x: &Vector2<f64>) -> f64 {
        x[1]
    }
    fn reset(&self, _m: usize, _g: usize, t: f64, x: &Vector2<f64>) -> Result<(usize, Vector2<f64>), FieldError> {
        if self.reset_singular {
            return Err(FieldError::SingularMassMatrix { t });
        }
        let v = if self.reset_nan { f64::NAN } else { -x[1] };
        Ok((self.reset_mode, Vector2::new(x[0], v)))
    }
    fn mode_energy(&self, _m: usize, _t: f64, x: &Vector2<f64>) -> f64 {
        0.5 * x[1] * x[1] + x[0]
    }
}

#[test]
fn invalid_inputs_are_typed_errors() {
    let x0 = Vector2::new(0.5, 0.0);
    let opts = tight();
    let ok = Faulty::default();
    assert_eq!(
        Hybrid(&ok).run(ModeState::new(3, x0)).span(0.0..1.0).options(&opts).go().unwrap_err(),
        SimError::InvalidMode { mode: 3, modes: 1 }
    );
    assert_eq!(
        Hybrid(&ok).run(ModeState::new(0, Vector2::new(f64::NAN, 0.0))).span(0.0..1.0).options(&opts).go().unwrap_err(),
        SimError::InvalidInitialState
    );
    assert!(matches!(
        Hybrid(&ok).run(ModeState::new(0, x0)).span(1.0..0.0).options(&opts).go().map_err(SimError::from),
        Err(SimError::InvalidTimeSpan { .. })
    ));
    assert!(matches!(
        Hybrid(&ok).run(ModeState::new(0, x0)).span(0.0..f64::INFINITY).options(&opts).go().map_err(SimError::from),
        Err(SimError::InvalidTimeSpan { .. })
    ));
    assert!(matches!(
        Hybrid(&ok)
            .run(ModeState::new(0, x0))
            .span(0.0..1.0)
            .options(opts.clone().max_resets_per_instant(0))
            .go()
            .map_err(SimError::from),
        Err(SimError::InvalidOptions(_))
    ));
    assert!(matches!(
        Hybrid(&ok).run(ModeState::new(0, x0)).span(0.0..1.0).options(opts.clone().rtol(f64::NAN)).go().map_err(SimError::from),
        Err(SimError::InvalidOptions(_))
    ));
    assert!(matches!(
        Hybrid(&ok)
            .run(ModeState::new(0, x0))
            .span(0.0..1.0)
            .options(opts.clone().guard_resolution(f64::NAN))
            .go()
            .map_err(SimError::from),
        Err(SimError::InvalidOptions(_))
    ));
    // Starting below the floor.
    assert!(matches!(
        Hybrid(&ok).run(ModeState::new(0, Vector2::new(-0.1, 1.0))).span(0.0..1.0).options(&opts).go().map_err(SimError::from),
        Err(SimError::GuardViolated { guard: "floor", .. })
    ));
    // Falls at t = 1: NaN guard before that.
    let nan = Faulty { nan_guard_after: 0.3, ..Faulty::default() };
    assert!(matches!(
        Hybrid(&nan).run(ModeState::new(0, x0)).span(0.0..2.0).options(&opts).go().map_err(SimError::from),
        Err(SimError::NonFiniteGuard { guard: "floor", .. })
    ));
    let nan0 = Faulty { nan_guard_after: -1.0, ..Faulty::default() };
    assert!(matches!(
        Hybrid(&nan0).run(ModeState::new(0, x0)).span(0.0..2.0).options(&opts).go().map_err(SimError::from),
        Err(SimError::NonFiniteGuard { t: 0.0, .. })
    ));
    let bad_mode = Faulty { reset_mode: 5, ..Faulty::default() };
    assert_eq!(
        Hybrid(&bad_mode).run(ModeState::new(0, x0)).span(0.0..2.0).options(&opts).go().unwrap_err(),
        SimError::InvalidMode { mode: 5, modes: 1 }
    );
    let bad_reset = Faulty { reset_nan: true, ..Faulty::default() };
    let err = Hybrid(&bad_reset).run(ModeState::new(0, x0)).span(0.0..2.0).options(&opts).go().unwrap_err();
    let SimError::ResetFailed { t, guard: "floor" } = err.error else { panic!("{err:?}") };
    assert!((t - 1.0).abs() < 1e-9);
    let singular = Faulty { reset_singular: true, ..Faulty::default() };
    assert!(matches!(
        Hybrid(&singular).run(ModeState::new(0, x0)).span(0.0..2.0).options(&opts).go().map_err(SimError::from),
        Err(SimError::SingularMassMatrix { .. })
    ));
    // An empty span just reports the initial state.
    let traj = Hybrid(&ok).run(ModeState::new(0, x0)).span(1.0..1.0).options(&opts).go().unwrap();
    assert_eq!(traj.times, vec![1.0]);
    assert_eq!(traj.stop, HybridStop::Finished);
}

/// Works with `dyn HybridSystem` too.
#[test]
fn trait_objects() {
    let ball: &dyn HybridSystem<2> = &ball(1.0, 0.5);
    let traj =
        Hybrid(ball).run(ModeState::new(0, SVector::<f64, 2>::new(0.5, 0.0))).span(0.0..1.5).options(tight()).go().unwrap();
    assert_eq!(traj.impacts.len(), 1);
}

/// Ball with a guard that is NaN deep below the floor: h = √(y + 0.01) − 0.1.
struct SqrtGuard;

impl HybridSystem<2> for SqrtGuard {
    fn mode_name(&self, _mode: usize) -> &'static str {
        "flight"
    }
    fn mode_field(&self, _m: usize, _t: f64, x: &Vector2<f64>) -> Result<Vector2<f64>, FieldError> {
        Ok(Vector2::new(x[1], -9.81))
    }
    fn guard_count(&self, _mode: usize) -> usize {
        1
    }
    fn guard_name(&self, _mode: usize, _guard: usize) -> &'static str {
        "floor"
    }
    fn guard(&self, _m: usize, _g: usize, _t: f64, x: &Vector2<f64>) -> f64 {
        (x[0] + 0.01).sqrt() - 0.1
    }
    fn guard_rate(&self, _m: usize, _g: usize, _t: f64, x: &Vector2<f64>) -> f64 {
        0.5 * x[1] / (x[0] + 0.01).sqrt()
    }
    fn reset(&self, m: usize, _g: usize, _t: f64, x: &Vector2<f64>) -> Result<(usize, Vector2<f64>), FieldError> {
        Ok((m, Vector2::new(x[0], -0.5 * x[1])))
    }
    fn mode_energy(&self, _m: usize, _t: f64, x: &Vector2<f64>) -> f64 {
        0.5 * x[1] * x[1] + 9.81 * x[0]
    }
}

#[test]
fn guard_undefined_below_the_floor_is_handled_by_step_rejection() {
    let traj = Hybrid(&SqrtGuard).run(ModeState::new(0, Vector2::new(1.0, 0.0))).span(0.0..1.0).options(tight()).go().unwrap();
    let exact = ball_impacts(1.0, 9.81, 0.5, 2);
    assert_eq!(traj.impacts.len(), 2);
    for (imp, te) in traj.impacts.iter().zip(&exact) {
        assert!((imp.t - te).abs() < 1e-9, "{} vs {te}", imp.t);
    }
}

/// Free particle x' = 1 under a guard with jumps far from zero and a kink at its zero:
/// h = 1.5 − x + ⌊x⌋·0.3 for x < 3, then |4 − x| − 0.5 → first zero at x = 3.5.
struct Rough;

impl HybridSystem<2> for Rough {
    fn mode_name(&self, _mode: usize) -> &'static str {
        "drift"
    }
    fn mode_field(&self, _m: usize, _t: f64, _x: &Vector2<f64>) -> Result<Vector2<f64>, FieldError> {
        Ok(Vector2::new(1.0, 0.0))
    }
    fn guard_count(&self, _mode: usize) -> usize {
        1
    }
    fn guard_name(&self, _mode: usize, _guard: usize) -> &'static str {
        "rough"
    }
    fn guard(&self, _m: usize, _g: usize, _t: f64, x: &Vector2<f64>) -> f64 {
        if x[0] < 3.0 {
            // Sawtooth between 0.5 and 2.1: jumps at every integer.
            2.0 - (x[0] - x[0].floor()) + 0.1 * x[0].floor().min(1.0)
        } else {
            (x[0] - 4.0).abs() - 0.5 + if x[0] < 3.2 { 1.0 } else { 0.0 }
        }
    }
    fn guard_rate(&self, _m: usize, _g: usize, _t: f64, x: &Vector2<f64>) -> f64 {
        if x[0] < 4.0 { -1.0 } else { 1.0 }
    }
    fn reset(&self, _m: usize, _g: usize, _t: f64, x: &Vector2<f64>) -> Result<(usize, Vector2<f64>), FieldError> {
        Ok((0, Vector2::new(x[0], x[1] + 1.0)))
    }
    fn mode_energy(&self, _m: usize, _t: f64, x: &Vector2<f64>) -> f64 {
        x[1]
    }
}

#[test]
fn guard_with_jumps_and_kinks_costs_steps_not_failures() {
    let opts = tight().max_impacts(0);
    let traj = Hybrid(&Rough).run(ModeState::new(0, Vector2::new(0.0, 0.0))).span(0.0..10.0).options(&opts).go().unwrap();
    let HybridStop::ImpactLimit { t, .. } = traj.stop else { panic!("{:?}", traj.stop) };
    assert!((t - 3.5).abs() < 1e-9, "{t}");
}

// ---------------------------------------------------------------------------------------------
// A plastic landing whose reset leaves a rate of round-off size. A projection onto a contact
// computes the normal velocity it zeroes as a sum of products, so the post-impact rate comes out
// ±1e-16, not 0. Either sign must settle the same way, at the same cost; a genuine rebound,
// however small, must still be followed.

/// A ball above a floor at height 1 (so that the state is not near zero and the integrator's
/// first step is of the motion's scale), its landing's reset leaving `e·|v⁻|` upwards (mode 0),
/// and the mode that holds it on the floor (mode 1) as the landing's completion.
struct Settling {
    g: f64,
    e: f64,
}

impl HybridSystem<2> for Settling {
    fn mode_count(&self) -> usize {
        2
    }
    fn mode_name(&self, mode: usize) -> &'static str {
        ["flight", "resting"][mode.min(1)]
    }
    fn mode_field(&self, m: usize, _t: f64, x: &Vector2<f64>) -> Result<Vector2<f64>, FieldError> {
        Ok(if m == 0 { Vector2::new(x[1], -self.g) } else { Vector2::zeros() })
    }
    fn guard_count(&self, mode: usize) -> usize {
        usize::from(mode == 0)
    }
    fn guard_name(&self, _mode: usize, _guard: usize) -> &'static str {
        "floor"
    }
    fn guard(&self, _m: usize, _g: usize, _t: f64, x: &Vector2<f64>) -> f64 {
        x[0] - 1.0
    }
    fn guard_rate(&self, _m: usize, _g: usize, _t: f64, x: &Vector2<f64>) -> f64 {
        x[1]
    }
    fn reset(&self, m: usize, _g: usize, _t: f64, x: &Vector2<f64>) -> Result<(usize, Vector2<f64>), FieldError> {
        Ok((m, Vector2::new(x[0], self.e * x[1].abs())))
    }
    fn mode_energy(&self, m: usize, _t: f64, x: &Vector2<f64>) -> f64 {
        if m == 0 { 0.5 * x[1] * x[1] + self.g * x[0] } else { self.g * x[0] }
    }
    fn zeno_completion(
        &self,
        mode: usize,
        _guard: usize,
        _t: f64,
        x: &Vector2<f64>,
    ) -> Option<Result<Completion<2>, FieldError>> {
        (mode == 0).then(|| Ok(Completion::new("settle", 1, Vector2::new(x[0], 0.0))))
    }
}

#[test]
fn a_plastic_landing_settles_at_once_whatever_the_sign_of_its_round_off() {
    let (g, drop): (f64, f64) = (9.81, 1.0);
    let landing = (2.0 * drop / g).sqrt();
    let opts = tight();
    let run = |e: f64| {
        let sys = Settling { g, e };
        Hybrid(&sys).run(ModeState::new(0, Vector2::new(1.0 + drop, 0.0))).span(0.0..1.0).options(&opts).go().unwrap()
    };
    let exact = run(0.0);
    assert_eq!(exact.stop, HybridStop::Finished);
    let names: Vec<_> = exact.impacts.iter().map(|i| i.guard).collect();
    assert_eq!(names, ["floor", "settle"]);
    for imp in &exact.impacts {
        assert!((imp.t - landing).abs() < 1e-10, "{} at {} against {landing}", imp.guard, imp.t);
    }
    let end = exact.last().unwrap();
    assert_eq!(end.1, 1);
    assert!((end.2[0] - 1.0).abs() < 1e-10 && end.2[1] == 0.0, "{:?}", end.2);
    // Rates left after the landing (|v⁻| = 4.43): −2e-17, +2e-16 and +1e-15, all within the
    // round-off floor 64 ε (1 + |x|) = 2.8e-14 here. Each must settle as the exact zero does, in
    // the same steps: a positive one had been taken for a bounce to resolve, the first step after
    // the landing shortened twelve times to 2e-11 s (there a guard computed through a chain of
    // links is its own rounding, and the legged robots of the examples met the floor a second
    // time 1e-11 s later).
    for e in [-4.5e-18, 4.5e-17, 2.3e-16] {
        let traj = run(e);
        assert_eq!(traj.stop, HybridStop::Finished, "e = {e}");
        let got: Vec<_> = traj.impacts.iter().map(|i| (i.guard, i.t)).collect();
        let want: Vec<_> = exact.impacts.iter().map(|i| (i.guard, i.t)).collect();
        assert_eq!(got, want, "e = {e}");
        assert_eq!(traj.stats, exact.stats, "e = {e}");
        assert_eq!(traj.last().unwrap().2, end.2, "e = {e}");
    }
    // A genuine rebound (e = 1e-4: 0.44 mm/s, 90 µs in the air) is followed, and lands again where
    // the parabola from the located landing does.
    let traj = run(1e-4);
    assert_eq!(traj.stop, HybridStop::Finished);
    let floors: Vec<_> = traj.impacts.iter().filter(|i| i.guard == "floor").collect();
    assert!(floors.len() >= 2, "{:?}", traj.impacts.iter().map(|i| (i.guard, i.t)).collect::<Vec<_>>());
    let (y0, v0) = (floors[0].post[0] - 1.0, floors[0].post[1]);
    let flight = (v0 + (v0 * v0 + 2.0 * g * y0).sqrt()) / g;
    assert!((flight - 2.0 * 1e-4 * g * landing / g).abs() < 1e-8, "{flight}");
    assert!((floors[1].t - floors[0].t - flight).abs() < 1e-10, "{} against {}", floors[1].t - floors[0].t, flight);
    assert_eq!(traj.impacts.last().unwrap().guard, "settle");
}
