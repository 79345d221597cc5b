//! Hybrid simulation against closed-form impact sequences.

use std::f64::consts::PI;

use routh_runtime::nalgebra::{Matrix2, SVector, Vector2, Vector3, Vector4};
use routh_runtime::{
    FieldError, HybridOptions, HybridStop, HybridSystem, Output, SimError, ZenoOptions,
    simulate_hybrid,
};

// ---------------------------------------------------------------------------------------------
// A particle on a line, x = (position, velocity), with acceleration a₀ − k·position, one guard
// sign·(position − at) ≥ 0 and a reset that multiplies the velocity by `factor`: the bouncing ball,
// an oscillator against a stop, a grazing approach, and a reset that does nothing.

struct Bounce {
    a0: f64,
    k: f64,
    sign: f64,
    at: f64,
    factor: f64,
    guard: &'static str,
}

/// Bouncing ball: floor y ≥ 0, gravity g, restitution e.
fn ball(g: f64, e: f64) -> Bounce {
    Bounce { a0: -g, k: 0.0, sign: 1.0, at: 0.0, factor: -e, guard: "floor" }
}

impl HybridSystem<2> for Bounce {
    fn mode_name(&self, _mode: usize) -> &'static str {
        "line"
    }
    fn mode_field(&self, _m: usize, _t: f64, x: &Vector2<f64>) -> Result<Vector2<f64>, FieldError> {
        Ok(Vector2::new(x[1], self.a0 - self.k * x[0]))
    }
    fn guard_count(&self, _mode: usize) -> usize {
        1
    }
    fn guard_name(&self, _mode: usize, _guard: usize) -> &'static str {
        self.guard
    }
    fn guard(&self, _m: usize, _g: usize, _t: f64, x: &Vector2<f64>) -> f64 {
        self.sign * (x[0] - self.at)
    }
    fn guard_rate(&self, _m: usize, _g: usize, _t: f64, x: &Vector2<f64>) -> f64 {
        self.sign * x[1]
    }
    fn reset(
        &self,
        m: usize,
        _g: usize,
        _t: f64,
        x: &Vector2<f64>,
    ) -> Result<(usize, Vector2<f64>), FieldError> {
        Ok((m, Vector2::new(x[0], self.factor * x[1])))
    }
    fn mode_energy(&self, _m: usize, _t: f64, x: &Vector2<f64>) -> f64 {
        0.5 * x[1] * x[1] - self.a0 * x[0] + 0.5 * self.k * x[0] * x[0]
    }
}

fn tight() -> HybridOptions {
    HybridOptions::default().rtol(1e-12).atol(1e-14)
}

/// Impact times of a ball dropped from rest at height h0: t1 = √(2h0/g), then intervals
/// 2 eᵏ v1/g = 2 eᵏ t1.
fn ball_impacts(h0: f64, g: f64, e: f64, n: usize) -> Vec<f64> {
    let t1 = (2.0 * h0 / g).sqrt();
    let mut out = vec![t1];
    for k in 1..n {
        out.push(out[k - 1] + 2.0 * e.powi(k as i32) * t1);
    }
    out
}

#[test]
fn bouncing_ball_zeno() {
    let (g, e, h0) = (9.81, 0.8, 1.0);
    let ball = ball(g, e);
    let traj = simulate_hybrid(&ball, 0, Vector2::new(h0, 0.0), 0.0..10.0, &tight()).unwrap();
    let t1 = (2.0 * h0 / g).sqrt();
    let exact = ball_impacts(h0, g, e, traj.impacts.len());
    let v1 = g * t1;
    for (k, (imp, te)) in traj.impacts.iter().zip(&exact).enumerate() {
        assert!((imp.t - te).abs() < 1e-9, "impact {k}: {} vs {te}", imp.t);
        assert_eq!(imp.guard, "floor");
        assert!(imp.rate < 0.0);
        // Pre-impact speed e^k v1, energy loss (1 − e²) of the kinetic energy.
        let vk = e.powi(k as i32) * v1;
        assert!((imp.pre[1] + vk).abs() < 1e-8, "{k}");
        assert!((imp.post[1] - e * vk).abs() < 1e-8, "{k}");
        assert!(imp.pre[0].abs() < 1e-10);
        assert!((imp.energy_jump() + 0.5 * (1.0 - e * e) * vk * vk).abs() < 1e-8);
    }
    let HybridStop::Zeno {
        t_accumulation,
        impacts,
    } = traj.stop
    else {
        panic!("expected Zeno, got {:?}", traj.stop);
    };
    assert_eq!(impacts, traj.impacts.len());
    assert_eq!(impacts, ZenoOptions::default().min_impacts);
    let t_inf = t1 * (1.0 + e) / (1.0 - e);
    assert!(
        (t_accumulation - t_inf).abs() < 1e-6 * t_inf,
        "{t_accumulation} vs {t_inf}"
    );
    // The trajectory ends with the post-impact state of the last impact.
    let (t_end, _, x_end) = traj.last().unwrap();
    assert_eq!(t_end, traj.impacts.last().unwrap().t);
    assert!(x_end[1] > 0.0);
    // Never below the floor.
    assert!(traj.states.iter().all(|x| x[0] > -1e-10));
    // Stats: per segment one evaluation at the start and one for the initial step.
    let s = &traj.stats;
    // The Zeno stop comes right after the last impact: one segment per impact.
    let segments = traj.impacts.len();
    assert_eq!(s.evaluations, 6 * (s.steps + s.rejected) + 2 * segments);
}

#[test]
fn elastic_ball_keeps_energy_over_1000_bounces() {
    let (g, h0) = (9.81, 1.0);
    let ball = ball(g, 1.0);
    let t1 = (2.0 * h0 / g).sqrt();
    let t_end = 1999.5 * t1;
    let traj = simulate_hybrid(&ball, 0, Vector2::new(h0, 0.0), 0.0..t_end, &tight()).unwrap();
    assert_eq!(traj.stop, HybridStop::Finished);
    assert_eq!(traj.impacts.len(), 1000);
    let mut worst_t: f64 = 0.0;
    for (k, imp) in traj.impacts.iter().enumerate() {
        worst_t = worst_t.max((imp.t - (2 * k + 1) as f64 * t1).abs());
    }
    assert!(worst_t < 1e-7, "impact times drift by {worst_t}");
    let mut worst_e: f64 = 0.0;
    for (t, _, x) in traj.iter() {
        worst_e = worst_e.max((ball.mode_energy(0, t, x) - g * h0).abs());
    }
    assert!(worst_e < 1e-8, "energy drift {worst_e}");
    assert_eq!(traj.last().unwrap().0, t_end);
}

#[test]
fn interval_output_spans_impacts() {
    let (g, e, h0) = (9.81, 0.8, 1.0);
    let ball = ball(g, e);
    let opts = tight().output(Output::Interval(0.01));
    let traj = simulate_hybrid(&ball, 0, Vector2::new(h0, 0.0), 0.0..2.0, &opts).unwrap();
    assert_eq!(traj.stop, HybridStop::Finished);
    let exact = ball_impacts(h0, g, e, 10);
    let n_imp = exact.iter().filter(|&&t| t <= 2.0).count();
    assert_eq!(n_imp, 3);
    assert_eq!(traj.impacts.len(), n_imp);
    assert_eq!(traj.len(), 201 + 2 * n_imp);
    assert!(traj.times.windows(2).all(|w| w[1] >= w[0]));
    assert_eq!(traj.times[0], 0.0);
    assert_eq!(*traj.times.last().unwrap(), 2.0);
    let t1 = exact[0];
    // Closed form: between impacts k−1 and k the ball leaves the floor with e^k v1.
    let closed = |t: f64, after: usize| -> (f64, f64) {
        if after == 0 {
            return (h0 - 0.5 * g * t * t, -g * t);
        }
        let v = e.powi(after as i32) * g * t1;
        let s = t - exact[after - 1];
        (v * s - 0.5 * g * s * s, v - g * s)
    };
    for (i, (t, mode, x)) in traj.iter().enumerate() {
        assert_eq!(mode, 0);
        // Impacts before t (a sample at an impact time is pre if its velocity is negative).
        let mut after = exact.iter().filter(|&&ti| ti < t - 1e-9).count();
        if exact.iter().any(|&ti| (ti - t).abs() < 1e-9) && x[1] > 0.0 {
            after += 1;
        }
        let (y, v) = closed(t, after);
        assert!(
            (x[0] - y).abs() < 1e-8 && (x[1] - v).abs() < 1e-8,
            "sample {i} at t = {t}: {x:?} vs ({y}, {v})"
        );
    }
    // Both the pre- and the post-impact state are samples at the impact time.
    for imp in &traj.impacts {
        let at: Vec<_> = traj.iter().filter(|(t, _, _)| *t == imp.t).collect();
        assert_eq!(at.len(), 2);
        assert_eq!(*at[0].2, imp.pre);
        assert_eq!(*at[1].2, imp.post);
    }
}

#[test]
fn impact_limit() {
    let ball = ball(9.81, 0.9);
    let opts = tight()
        .max_impacts(5)
        .zeno(ZenoOptions::default().enabled(false));
    let traj = simulate_hybrid(&ball, 0, Vector2::new(1.0, 0.0), 0.0..100.0, &opts).unwrap();
    let exact = ball_impacts(1.0, 9.81, 0.9, 6);
    let HybridStop::ImpactLimit { t, impacts } = traj.stop else {
        panic!("{:?}", traj.stop)
    };
    assert_eq!(impacts, 5);
    assert_eq!(traj.impacts.len(), 5);
    assert!((t - exact[5]).abs() < 1e-9);
    // The last sample is the pre-impact state of the impact that was not applied.
    let (tl, _, xl) = traj.last().unwrap();
    assert_eq!(tl, t);
    assert!(xl[1] < 0.0);
}

#[test]
fn zeno_without_detection_does_not_hang() {
    // With detection off, the accumulation ends by the impact limit or as a persistent
    // contact — never by hanging or falling through the floor.
    let ball = ball(9.81, 0.5);
    let opts = tight()
        .max_impacts(10_000)
        .zeno(ZenoOptions::default().enabled(false));
    let traj = simulate_hybrid(&ball, 0, Vector2::new(1.0, 0.0), 0.0..10.0, &opts).unwrap();
    assert!(
        matches!(
            traj.stop,
            HybridStop::Stuck { .. } | HybridStop::ImpactLimit { .. }
        ),
        "{:?}",
        traj.stop
    );
    let t_inf = (2.0 / 9.81f64).sqrt() * 3.0;
    let (t_last, _, _) = traj.last().unwrap();
    assert!((t_last - t_inf).abs() < 1e-6, "{t_last} vs {t_inf}");
    assert!(traj.states.iter().all(|x| x[0] > -1e-9));
}

#[test]
fn plastic_impact_under_gravity_is_stuck() {
    let ball = ball(9.81, 0.0);
    let traj = simulate_hybrid(&ball, 0, Vector2::new(1.0, 0.0), 0.0..5.0, &tight()).unwrap();
    let t1 = (2.0 / 9.81f64).sqrt();
    let HybridStop::Stuck { t, guard } = traj.stop else {
        panic!("{:?}", traj.stop)
    };
    assert_eq!(guard, "floor");
    assert!((t - t1).abs() < 1e-9);
    assert_eq!(traj.impacts.len(), 1);
    let (tl, _, xl) = traj.last().unwrap();
    assert_eq!(tl, t);
    assert!(xl[0].abs() < 1e-10 && xl[1] == 0.0);
    // Resting on the floor at the start: the contact persists from t = 0.
    let traj = simulate_hybrid(&ball, 0, Vector2::new(0.0, 0.0), 0.0..5.0, &tight()).unwrap();
    assert_eq!(
        traj.stop,
        HybridStop::Stuck {
            t: 0.0,
            guard: "floor"
        }
    );
    assert_eq!(traj.times, vec![0.0]);
    assert!(traj.impacts.is_empty());
}

#[test]
fn randomized_balls_never_panic_or_fall_through() {
    let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
    let mut rnd = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed >> 11) as f64 / (1u64 << 53) as f64
    };
    for _ in 0..200 {
        let e = [0.0, 1.0, rnd(), 1e-3 * rnd(), 1.0 - 1e-3 * rnd()][(rnd() * 5.0) as usize];
        let ball = ball(0.1 + 20.0 * rnd(), e);
        let y0 = [0.0, 1e-13, rnd(), 100.0 * rnd()][(rnd() * 4.0) as usize];
        let v0 = (rnd() - 0.5) * 20.0;
        let opts = tight()
            .max_impacts((rnd() * 300.0) as usize)
            .contact_tolerance([1e-10, 1e-6, 1e-14][(rnd() * 3.0) as usize])
            .zeno(
                ZenoOptions::default()
                    .enabled(rnd() < 0.8)
                    .min_impacts(4 + (rnd() * 30.0) as usize),
            );
        let t_end = 20.0 * rnd();
        match simulate_hybrid(&ball, 0, Vector2::new(y0, v0), 0.0..t_end, &opts) {
            Ok(traj) => {
                assert!(traj.states.iter().all(|x| x[0] > -1e-6), "{traj:?}");
                assert!(traj.impacts.iter().all(|r| r.rate < 0.0));
                assert!(traj.times.windows(2).all(|w| w[1] >= w[0]));
                assert_eq!(traj.modes.len(), traj.len());
            }
            Err(err) => panic!(
                "t_end = {t_end}, e = {e}, g = {}, y0 = {y0}, v0 = {v0}, {opts:?}: {err}",
                -ball.a0
            ),
        }
    }
}

/// A reset that does not change the state (in the same mode) leaves the guard approaching.
#[test]
fn reset_that_keeps_approaching_is_stuck() {
    let traj = simulate_hybrid(&Bounce { a0: -1.0, factor: 1.0, ..ball(1.0, 0.0) }, 0, Vector2::new(0.5, 0.0), 0.0..5.0, &tight()).unwrap();
    let HybridStop::Stuck { t, guard } = traj.stop else {
        panic!("{:?}", traj.stop)
    };
    assert_eq!(guard, "floor");
    assert!((t - 1.0).abs() < 1e-9);
    assert_eq!(traj.impacts.len(), 1);
}

#[test]
fn initial_contact_approaching_is_an_impact_at_t0() {
    let ball = ball(9.81, 0.5);
    let traj = simulate_hybrid(&ball, 0, Vector2::new(0.0, -2.0), 0.0..0.1, &tight()).unwrap();
    assert_eq!(traj.impacts[0].t, 0.0);
    assert_eq!(traj.impacts[0].post, Vector2::new(0.0, 1.0));
    assert_eq!(traj.times[..2], [0.0, 0.0]);
    assert_eq!(traj.stop, HybridStop::Finished);
    // Starting on the floor moving up is not an impact.
    let traj = simulate_hybrid(&ball, 0, Vector2::new(0.0, 2.0), 0.0..0.1, &tight()).unwrap();
    assert!(traj.impacts.is_empty());
}

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
        Ok(if m == 0 {
            Vector3::new(x[1], -self.g, self.omega)
        } else {
            Vector3::zeros()
        })
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
    fn reset(
        &self,
        _m: usize,
        _g: usize,
        _t: f64,
        x: &Vector3<f64>,
    ) -> Result<(usize, Vector3<f64>), FieldError> {
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
            let traj = simulate_hybrid(&rod, 0, Vector3::new(y0, v0, 0.0), 0.0..3.0, &tight())
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
    fn reset(
        &self,
        m: usize,
        g: usize,
        _t: f64,
        x: &Vector4<f64>,
    ) -> Result<(usize, Vector4<f64>), FieldError> {
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
    let traj = simulate_hybrid(
        &BoxParticle,
        0,
        Vector4::new(0.25, 0.25, 1.0, 1.0),
        0.0..2.0,
        &tight(),
    )
    .unwrap();
    assert_eq!(traj.stop, HybridStop::Finished);
    // Corner (1, 1) at t = 0.75, corner (0, 0) at t = 1.75; two resets at each.
    let names: Vec<_> = traj.impacts.iter().map(|r| r.guard).collect();
    assert_eq!(names, ["right", "top", "left", "bottom"]);
    assert!((traj.impacts[0].t - 0.75).abs() < 1e-11);
    assert_eq!(traj.impacts[1].t, traj.impacts[0].t);
    assert!((traj.impacts[2].t - 1.75).abs() < 1e-11);
    assert_eq!(traj.impacts[3].t, traj.impacts[2].t);
    assert_eq!(
        (traj.impacts[1].post[2], traj.impacts[1].post[3]),
        (-1.0, -1.0)
    );
    assert_eq!(
        (traj.impacts[3].post[2], traj.impacts[3].post[3]),
        (1.0, 1.0)
    );
    // The particle stays on the diagonal.
    for (_, _, x) in traj.iter() {
        assert!((x[0] - x[1]).abs() < 1e-12);
        assert!(x[0] > -1e-10 && x[0] < 1.0 + 1e-10);
    }
    // Samples at the corner: pre, after the first reset, after the second.
    let at: Vec<_> = traj
        .iter()
        .filter(|(t, _, _)| *t == traj.impacts[0].t)
        .collect();
    assert_eq!(at.len(), 3);
    let (_, _, end) = traj.last().unwrap();
    assert!((end[0] - 0.25).abs() < 1e-10);
}

#[test]
fn nearly_simultaneous_impacts_are_resolved_at_one_instant() {
    // Off the diagonal by 1e-14: the walls are hit 1e-14 apart, within the event tolerance.
    let traj = simulate_hybrid(
        &BoxParticle,
        0,
        Vector4::new(0.25, 0.25 + 1e-14, 1.0, 1.0),
        0.0..1.0,
        &tight(),
    )
    .unwrap();
    assert_eq!(traj.impacts.len(), 2);
    assert_eq!(traj.impacts[0].t, traj.impacts[1].t);
    let end = traj.states.last().unwrap();
    assert!(end[2] < 0.0 && end[3] < 0.0);
    // Clearly separate hits stay separate impacts.
    let traj = simulate_hybrid(
        &BoxParticle,
        0,
        Vector4::new(0.25, 0.25 + 1e-3, 1.0, 1.0),
        0.0..1.0,
        &tight(),
    )
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
    fn reset(
        &self,
        m: usize,
        g: usize,
        _t: f64,
        x: &Vector2<f64>,
    ) -> Result<(usize, Vector2<f64>), FieldError> {
        let v = if g == 0 {
            2.0 * WALL_SPEED - x[1]
        } else {
            -x[1]
        };
        Ok((m, Vector2::new(x[0], v)))
    }
    fn mode_energy(&self, _m: usize, _t: f64, x: &Vector2<f64>) -> f64 {
        0.5 * x[1] * x[1]
    }
}

#[test]
fn moving_wall_reverses_relative_velocity() {
    let t_end = 12.0;
    let traj =
        simulate_hybrid(&MovingWall, 0, Vector2::new(0.0, 1.0), 0.0..t_end, &tight()).unwrap();
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
            assert!(
                (imp.energy_jump() - 0.5 * (imp.post[1].powi(2) - imp.pre[1].powi(2))).abs()
                    < 1e-12
            );
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
        let acc = if m == 0 {
            -self.a
        } else {
            -self.w * self.w * x[0]
        };
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
    fn reset(
        &self,
        m: usize,
        _g: usize,
        _t: f64,
        x: &Vector3<f64>,
    ) -> Result<(usize, Vector3<f64>), FieldError> {
        Ok((1 - m.min(1), *x))
    }
    fn mode_energy(&self, m: usize, _t: f64, x: &Vector3<f64>) -> f64 {
        let pot = if m == 0 {
            self.a * x[0]
        } else {
            0.5 * self.w * self.w * x[0] * x[0]
        };
        0.5 * x[1] * x[1] + pot
    }
}

#[test]
fn two_mode_period_matches_closed_form() {
    let (a, k_over_m, v0) = (2.0, 9.0, 1.5);
    let sys = SpringFlight {
        a,
        w: f64::sqrt(k_over_m),
    };
    let opts = tight();
    let traj = simulate_hybrid(&sys, 0, Vector3::new(0.0, v0, 7.0), 0.0..20.0, &opts).unwrap();
    assert_eq!(traj.stop, HybridStop::Finished);
    let flight = 2.0 * v0 / a;
    let spring = PI / k_over_m.sqrt();
    let period = flight + spring;
    assert!(traj.impacts.len() >= 10);
    for (j, imp) in traj.impacts.iter().enumerate() {
        let k = (j / 2) as f64;
        let expected = if j % 2 == 0 {
            flight + k * period
        } else {
            period + k * period
        };
        assert!(
            (imp.t - expected).abs() < 1e-9,
            "switch {j}: {} vs {expected}",
            imp.t
        );
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
        assert!(if m == 0 {
            x[0] >= -1e-10
        } else {
            x[0] <= 1e-10
        });
        assert_eq!(x[2], 7.0);
    }
}

// ---------------------------------------------------------------------------------------------
// Grazing: the trajectory touches h = 0 tangentially.

/// Vertical motion with constant acceleration `acc` and one guard `sign·(y − c) ≥ 0`.
/// A particle accelerated by `acc` towards or along the surface sign·(x − c) = 0; resets halve and
/// reverse the velocity.
fn graze(acc: f64, c: f64, sign: f64) -> Bounce {
    Bounce { a0: acc, k: 0.0, sign, at: c, factor: -0.5, guard: "surface" }
}

#[test]
fn grazing_touch_is_harmless() {
    // Thrown up to an apex exactly at the ceiling (y = 5t − 5t², apex 1.25 at t = 0.5), and
    // decelerated down onto a floor (y = (t − 1)², touching 0 at t = 1).
    let cases = [
        (
            graze(-10.0, 1.25, -1.0),
            Vector2::new(0.0, 5.0),
        ),
        (
            graze(2.0, 0.0, 1.0),
            Vector2::new(1.0, -2.0),
        ),
    ];
    for (sys, x0) in &cases {
        for output in [Output::Steps, Output::Interval(0.125)] {
            let opts = tight().output(output);
            let traj = simulate_hybrid(sys, 0, *x0, 0.0..2.0, &opts).unwrap();
            assert_eq!(traj.stop, HybridStop::Finished);
            for imp in &traj.impacts {
                assert!(imp.rate < 0.0);
                assert!(imp.energy_jump().abs() < 1e-10, "{imp:?}");
            }
            // The motion is unaffected: compare with the free parabola at the end.
            let (t, _, x) = traj.last().unwrap();
            assert_eq!(t, 2.0);
            let y = x0[0] + x0[1] * t + 0.5 * sys.a0 * t * t;
            assert!((x[0] - y).abs() < 1e-6, "{} vs {y}", x[0]);
            assert!(traj.times.windows(2).all(|w| w[1] >= w[0]));
        }
    }
}

#[test]
fn shallow_crossing_is_an_impact() {
    // The apex overshoots the ceiling by 1e-9: a dip of 2.8e-5 s, well inside one step.
    let sys = graze(-10.0, 1.25 - 1e-9, -1.0);
    let traj = simulate_hybrid(&sys, 0, Vector2::new(0.0, 5.0), 0.0..1.0, &tight()).unwrap();
    assert_eq!(traj.impacts.len(), 1);
    let imp = &traj.impacts[0];
    let dv = (2.0 * 10.0 * 1e-9f64).sqrt();
    let t_hit = 0.5 - dv / 10.0;
    assert!((imp.t - t_hit).abs() < 1e-9, "{} vs {t_hit}", imp.t);
    assert!((imp.rate + dv).abs() < 1e-8);
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
        Faulty {
            nan_guard_after: f64::INFINITY,
            reset_mode: 0,
            reset_nan: false,
            reset_singular: false,
        }
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
        if t > self.nan_guard_after {
            f64::NAN
        } else {
            x[0]
        }
    }
    fn guard_rate(&self, _m: usize, _g: usize, _t: f64, x: &Vector2<f64>) -> f64 {
        x[1]
    }
    fn reset(
        &self,
        _m: usize,
        _g: usize,
        t: f64,
        x: &Vector2<f64>,
    ) -> Result<(usize, Vector2<f64>), FieldError> {
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
        simulate_hybrid(&ok, 3, x0, 0.0..1.0, &opts).unwrap_err(),
        SimError::InvalidMode { mode: 3, modes: 1 }
    );
    assert_eq!(
        simulate_hybrid(&ok, 0, Vector2::new(f64::NAN, 0.0), 0.0..1.0, &opts).unwrap_err(),
        SimError::InvalidInitialState
    );
    assert!(matches!(
        simulate_hybrid(&ok, 0, x0, 1.0..0.0, &opts),
        Err(SimError::InvalidTimeSpan { .. })
    ));
    assert!(matches!(
        simulate_hybrid(&ok, 0, x0, 0.0..f64::INFINITY, &opts),
        Err(SimError::InvalidTimeSpan { .. })
    ));
    assert!(matches!(
        simulate_hybrid(
            &ok,
            0,
            x0,
            0.0..1.0,
            &opts.clone().max_resets_per_instant(0)
        ),
        Err(SimError::InvalidOptions(_))
    ));
    assert!(matches!(
        simulate_hybrid(&ok, 0, x0, 0.0..1.0, &opts.clone().rtol(f64::NAN)),
        Err(SimError::InvalidOptions(_))
    ));
    assert!(matches!(
        simulate_hybrid(
            &ok,
            0,
            x0,
            0.0..1.0,
            &opts.clone().guard_resolution(f64::NAN)
        ),
        Err(SimError::InvalidOptions(_))
    ));
    // Starting below the floor.
    assert!(matches!(
        simulate_hybrid(&ok, 0, Vector2::new(-0.1, 1.0), 0.0..1.0, &opts),
        Err(SimError::GuardViolated { guard: "floor", .. })
    ));
    // Falls at t = 1: NaN guard before that.
    let nan = Faulty {
        nan_guard_after: 0.3,
        ..Faulty::default()
    };
    assert!(matches!(
        simulate_hybrid(&nan, 0, x0, 0.0..2.0, &opts),
        Err(SimError::NonFiniteGuard { guard: "floor", .. })
    ));
    let nan0 = Faulty {
        nan_guard_after: -1.0,
        ..Faulty::default()
    };
    assert!(matches!(
        simulate_hybrid(&nan0, 0, x0, 0.0..2.0, &opts),
        Err(SimError::NonFiniteGuard { t: 0.0, .. })
    ));
    let bad_mode = Faulty {
        reset_mode: 5,
        ..Faulty::default()
    };
    assert_eq!(
        simulate_hybrid(&bad_mode, 0, x0, 0.0..2.0, &opts).unwrap_err(),
        SimError::InvalidMode { mode: 5, modes: 1 }
    );
    let bad_reset = Faulty {
        reset_nan: true,
        ..Faulty::default()
    };
    let err = simulate_hybrid(&bad_reset, 0, x0, 0.0..2.0, &opts).unwrap_err();
    let SimError::ResetFailed { t, guard: "floor" } = err else {
        panic!("{err:?}")
    };
    assert!((t - 1.0).abs() < 1e-9);
    let singular = Faulty {
        reset_singular: true,
        ..Faulty::default()
    };
    assert!(matches!(
        simulate_hybrid(&singular, 0, x0, 0.0..2.0, &opts),
        Err(SimError::SingularMassMatrix { .. })
    ));
    // An empty span just reports the initial state.
    let traj = simulate_hybrid(&ok, 0, x0, 1.0..1.0, &opts).unwrap();
    assert_eq!(traj.times, vec![1.0]);
    assert_eq!(traj.stop, HybridStop::Finished);
}

/// Works with `dyn HybridSystem` too.
#[test]
fn trait_objects() {
    let ball: &dyn HybridSystem<2> = &ball(1.0, 0.5);
    let traj = simulate_hybrid(
        ball,
        0,
        SVector::<f64, 2>::new(0.5, 0.0),
        0.0..1.5,
        &tight(),
    )
    .unwrap();
    assert_eq!(traj.impacts.len(), 1);
}

// ---------------------------------------------------------------------------------------------
// Harmonic oscillator x'' = −ω² x against a rigid elastic stop at x = −s: with amplitude A > s
// the motion is the arc of A cos ω(t − t₀) between two hits, so the impacts come every
// T = 2 arccos(−s/A)/ω, the first at arccos(−s/A)/ω.

/// Harmonic oscillator ẍ = −ω² x against an elastic stop at x = −s.
fn stop(w: f64, s: f64) -> Bounce {
    Bounce { a0: 0.0, k: w * w, sign: 1.0, at: -s, factor: -1.0, guard: "stop" }
}

#[test]
fn oscillator_against_a_stop() {
    let (w, s, amp) = (3.0, 0.4, 1.0);
    let sys = stop(w, s);
    let traj = simulate_hybrid(&sys, 0, Vector2::new(amp, 0.0), 0.0..50.0, &tight()).unwrap();
    assert_eq!(traj.stop, HybridStop::Finished);
    let first = (-s / amp).acos() / w;
    let period = 2.0 * first;
    assert_eq!(traj.impacts.len(), ((50.0 - first) / period) as usize + 1);
    for (k, imp) in traj.impacts.iter().enumerate() {
        let te = first + k as f64 * period;
        assert!((imp.t - te).abs() < 1e-9, "impact {k}: {} vs {te}", imp.t);
        assert!(imp.energy_jump().abs() < 1e-12);
    }
    let e0 = sys.mode_energy(0, 0.0, &Vector2::new(amp, 0.0));
    for (t, _, x) in traj.iter() {
        assert!((sys.mode_energy(0, t, x) - e0).abs() < 1e-9);
        assert!(x[0] >= -s - 1e-10);
    }
    // Output::Steps: the pre- and post-impact states are consecutive samples at each impact.
    for imp in &traj.impacts {
        let i = traj.times.iter().position(|&t| t == imp.t).unwrap();
        assert_eq!(traj.states[i], imp.pre);
        assert_eq!(traj.states[i + 1], imp.post);
        assert_eq!(traj.times[i + 1], imp.t);
    }
}

#[test]
fn output_times_across_impacts() {
    let (w, s, amp) = (3.0, 0.4, 1.0);
    let sys = stop(w, s);
    let first = (-s / amp).acos() / w;
    let period = 2.0 * first;
    let times: Vec<f64> = (0..=40).map(|k| 0.1 * k as f64).collect();
    let opts = tight().output(Output::Times(times.clone()));
    let traj = simulate_hybrid(&sys, 0, Vector2::new(amp, 0.0), 0.0..4.0, &opts).unwrap();
    let n_imp = traj.impacts.len();
    assert_eq!(n_imp, ((4.0 - first) / period) as usize + 1);
    assert_eq!(traj.len(), times.len() + 2 * n_imp);
    // Closed form: reflect the phase at every hit.
    let exact = |t: f64| -> f64 {
        if t < first {
            return amp * (w * t).cos();
        }
        let tau = (t - first) % period; // time since the last hit
        // After a hit at x = −s the motion is A cos(ω(τ − first)) run backwards from the stop.
        amp * (w * (tau - first)).cos()
    };
    let mut k = 0;
    for (t, _, x) in traj.iter() {
        if traj.impacts.iter().any(|imp| imp.t == t) {
            continue;
        }
        assert_eq!(t, times[k]);
        k += 1;
        assert!(
            (x[0] - exact(t)).abs() < 1e-9,
            "t = {t}: {} vs {}",
            x[0],
            exact(t)
        );
    }
    assert_eq!(k, times.len());
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
    fn reset(
        &self,
        m: usize,
        _g: usize,
        _t: f64,
        x: &Vector2<f64>,
    ) -> Result<(usize, Vector2<f64>), FieldError> {
        Ok((m, Vector2::new(x[0], -0.5 * x[1])))
    }
    fn mode_energy(&self, _m: usize, _t: f64, x: &Vector2<f64>) -> f64 {
        0.5 * x[1] * x[1] + 9.81 * x[0]
    }
}

#[test]
fn guard_undefined_below_the_floor_is_handled_by_step_rejection() {
    let traj = simulate_hybrid(&SqrtGuard, 0, Vector2::new(1.0, 0.0), 0.0..1.0, &tight()).unwrap();
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
    fn mode_field(
        &self,
        _m: usize,
        _t: f64,
        _x: &Vector2<f64>,
    ) -> Result<Vector2<f64>, FieldError> {
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
    fn reset(
        &self,
        _m: usize,
        _g: usize,
        _t: f64,
        x: &Vector2<f64>,
    ) -> Result<(usize, Vector2<f64>), FieldError> {
        Ok((0, Vector2::new(x[0], x[1] + 1.0)))
    }
    fn mode_energy(&self, _m: usize, _t: f64, x: &Vector2<f64>) -> f64 {
        x[1]
    }
}

#[test]
fn guard_with_jumps_and_kinks_costs_steps_not_failures() {
    let opts = tight().max_impacts(0);
    let traj = simulate_hybrid(&Rough, 0, Vector2::new(0.0, 0.0), 0.0..10.0, &opts).unwrap();
    let HybridStop::ImpactLimit { t, .. } = traj.stop else {
        panic!("{:?}", traj.stop)
    };
    assert!((t - 3.5).abs() < 1e-9, "{t}");
}

#[test]
fn default_jacobians_of_a_hand_written_system_are_finite_differences() {
    // A hand-written system gets the Jacobians the periodic-orbit code needs from the trait's
    // finite-difference defaults: oscillator against a stop, x'' = a0 − k x, guard sign·(x − at),
    // reset ẋ ↦ factor·ẋ, whose exact Jacobians are constant.
    let sys = Bounce { a0: -1.0, k: 4.0, sign: -1.0, at: 0.5, factor: -0.7, guard: "stop" };
    let x = Vector2::new(0.3, -1.2);
    let jac = sys.mode_jacobian(0, 0.0, &x).unwrap();
    assert!((jac - Matrix2::new(0.0, 1.0, -4.0, 0.0)).norm() < 1e-9, "{jac}");
    let grad = sys.guard_gradient(0, 0, 0.0, &x);
    assert!((grad - Vector2::new(-1.0, 0.0)).norm() < 1e-9, "{grad}");
    let reset = sys.reset_jacobian(0, 0, 0.0, &x).unwrap();
    assert!((reset - Matrix2::new(1.0, 0.0, 0.0, -0.7)).norm() < 1e-9, "{reset}");
}
