//! Hybrid simulation of a particle on a line against closed-form impact sequences: the bouncing
//! ball (impact times, Zeno, energy), stuck contact, grazing, an oscillator against a stop, output
//! across impacts, and the trait's default Jacobians.

mod hybrid_support;

use routh_runtime::nalgebra::{Matrix2, Vector2};
use routh_runtime::{Direction, Event, HybridStop, HybridSystem, Output, ZenoOptions};
use routh_runtime::{Hybrid, ModeState, Simulate};

use hybrid_support::{Bounce, ball, ball_impacts, stop, tight};

#[test]
fn bouncing_ball_zeno() {
    let (g, e, h0) = (9.81, 0.8, 1.0);
    let ball = ball(g, e);
    let traj = Hybrid(&ball).run(ModeState::new(0, Vector2::new(h0, 0.0))).span(0.0..10.0).options(tight()).go().unwrap();
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
    let HybridStop::Zeno { t_accumulation, impacts, .. } = traj.stop else {
        panic!("expected Zeno, got {:?}", traj.stop);
    };
    assert_eq!(impacts, traj.impacts.len());
    assert_eq!(impacts, ZenoOptions::default().min_impacts);
    let t_inf = t1 * (1.0 + e) / (1.0 - e);
    assert!((t_accumulation - t_inf).abs() < 1e-6 * t_inf, "{t_accumulation} vs {t_inf}");
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
    let traj = Hybrid(&ball).run(ModeState::new(0, Vector2::new(h0, 0.0))).span(0.0..t_end).options(tight()).go().unwrap();
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
    let traj = Hybrid(&ball).run(ModeState::new(0, Vector2::new(h0, 0.0))).span(0.0..2.0).options(&opts).go().unwrap();
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
        assert!((x[0] - y).abs() < 1e-8 && (x[1] - v).abs() < 1e-8, "sample {i} at t = {t}: {x:?} vs ({y}, {v})");
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
    let opts = tight().max_impacts(5).zeno(ZenoOptions::default().enabled(false));
    let traj = Hybrid(&ball).run(ModeState::new(0, Vector2::new(1.0, 0.0))).span(0.0..100.0).options(&opts).go().unwrap();
    let exact = ball_impacts(1.0, 9.81, 0.9, 6);
    let HybridStop::ImpactLimit { t, impacts } = traj.stop else { panic!("{:?}", traj.stop) };
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
    let opts = tight().max_impacts(10_000).zeno(ZenoOptions::default().enabled(false));
    let traj = Hybrid(&ball).run(ModeState::new(0, Vector2::new(1.0, 0.0))).span(0.0..10.0).options(&opts).go().unwrap();
    assert!(matches!(traj.stop, HybridStop::Stuck { .. } | HybridStop::ImpactLimit { .. }), "{:?}", traj.stop);
    let t_inf = (2.0 / 9.81f64).sqrt() * 3.0;
    let (t_last, _, _) = traj.last().unwrap();
    assert!((t_last - t_inf).abs() < 1e-6, "{t_last} vs {t_inf}");
    assert!(traj.states.iter().all(|x| x[0] > -1e-9));
}

#[test]
fn plastic_impact_under_gravity_is_stuck() {
    let ball = ball(9.81, 0.0);
    let traj = Hybrid(&ball).run(ModeState::new(0, Vector2::new(1.0, 0.0))).span(0.0..5.0).options(tight()).go().unwrap();
    let t1 = (2.0 / 9.81f64).sqrt();
    let HybridStop::Stuck { t, guard, .. } = traj.stop else { panic!("{:?}", traj.stop) };
    assert_eq!(guard, "floor");
    assert!((t - t1).abs() < 1e-9);
    assert_eq!(traj.impacts.len(), 1);
    let (tl, _, xl) = traj.last().unwrap();
    assert_eq!(tl, t);
    assert!(xl[0].abs() < 1e-10 && xl[1] == 0.0);
    // Resting on the floor at the start: the contact persists from t = 0.
    let traj = Hybrid(&ball).run(ModeState::new(0, Vector2::new(0.0, 0.0))).span(0.0..5.0).options(tight()).go().unwrap();
    assert_eq!(traj.stop, HybridStop::Stuck { t: 0.0, guard: "floor", multipliers_before: vec![] });
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
            .zeno(ZenoOptions::default().enabled(rnd() < 0.8).min_impacts(4 + (rnd() * 30.0) as usize));
        let t_end = 20.0 * rnd();
        match Hybrid(&ball).run(ModeState::new(0, Vector2::new(y0, v0))).span(0.0..t_end).options(&opts).go() {
            Ok(traj) => {
                assert!(traj.states.iter().all(|x| x[0] > -1e-6), "{traj:?}");
                assert!(traj.impacts.iter().all(|r| r.rate < 0.0));
                assert!(traj.times.windows(2).all(|w| w[1] >= w[0]));
                assert_eq!(traj.modes.len(), traj.len());
            }
            Err(err) => panic!("t_end = {t_end}, e = {e}, g = {}, y0 = {y0}, v0 = {v0}, {opts:?}: {err}", -ball.a0),
        }
    }
}

/// A reset that does not change the state (in the same mode) leaves the guard approaching.
#[test]
fn reset_that_keeps_approaching_is_stuck() {
    let traj = Hybrid(&Bounce { a0: -1.0, factor: 1.0, ..ball(1.0, 0.0) })
        .run(ModeState::new(0, Vector2::new(0.5, 0.0)))
        .span(0.0..5.0)
        .options(tight())
        .go()
        .unwrap();
    let HybridStop::Stuck { t, guard, .. } = traj.stop else { panic!("{:?}", traj.stop) };
    assert_eq!(guard, "floor");
    assert!((t - 1.0).abs() < 1e-9);
    assert_eq!(traj.impacts.len(), 1);
}

#[test]
fn initial_contact_approaching_is_an_impact_at_t0() {
    let ball = ball(9.81, 0.5);
    let traj = Hybrid(&ball).run(ModeState::new(0, Vector2::new(0.0, -2.0))).span(0.0..0.1).options(tight()).go().unwrap();
    assert_eq!(traj.impacts[0].t, 0.0);
    assert_eq!(traj.impacts[0].post, Vector2::new(0.0, 1.0));
    assert_eq!(traj.times[..2], [0.0, 0.0]);
    assert_eq!(traj.stop, HybridStop::Finished);
    // Starting on the floor moving up is not an impact.
    let traj = Hybrid(&ball).run(ModeState::new(0, Vector2::new(0.0, 2.0))).span(0.0..0.1).options(tight()).go().unwrap();
    assert!(traj.impacts.is_empty());
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
    let cases = [(graze(-10.0, 1.25, -1.0), Vector2::new(0.0, 5.0)), (graze(2.0, 0.0, 1.0), Vector2::new(1.0, -2.0))];
    for (sys, x0) in &cases {
        for output in [Output::Steps, Output::Interval(0.125)] {
            let opts = tight().output(output);
            let traj = Hybrid(sys).run(ModeState::new(0, *x0)).span(0.0..2.0).options(&opts).go().unwrap();
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
    let traj = Hybrid(&sys).run(ModeState::new(0, Vector2::new(0.0, 5.0))).span(0.0..1.0).options(tight()).go().unwrap();
    assert_eq!(traj.impacts.len(), 1);
    let imp = &traj.impacts[0];
    let dv = (2.0 * 10.0 * 1e-9f64).sqrt();
    let t_hit = 0.5 - dv / 10.0;
    assert!((imp.t - t_hit).abs() < 1e-9, "{} vs {t_hit}", imp.t);
    assert!((imp.rate + dv).abs() < 1e-8);
}

// ---------------------------------------------------------------------------------------------
// Harmonic oscillator x'' = −ω² x against a rigid elastic stop at x = −s: with amplitude A > s
// the motion is the arc of A cos ω(t − t₀) between two hits, so the impacts come every
// T = 2 arccos(−s/A)/ω, the first at arccos(−s/A)/ω.

#[test]
fn oscillator_against_a_stop() {
    let (w, s, amp) = (3.0, 0.4, 1.0);
    let sys = stop(w, s);
    let traj = Hybrid(&sys).run(ModeState::new(0, Vector2::new(amp, 0.0))).span(0.0..50.0).options(tight()).go().unwrap();
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
    let traj = Hybrid(&sys).run(ModeState::new(0, Vector2::new(amp, 0.0))).span(0.0..4.0).options(&opts).go().unwrap();
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
        assert!((x[0] - exact(t)).abs() < 1e-9, "t = {t}: {} vs {}", x[0], exact(t));
    }
    assert_eq!(k, times.len());
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

/// Dense output of a hybrid run (`Options::dense`, `HybridTrajectory::at`): the bouncing ball's
/// piecewise parabola at any time, the post-impact state at an impact time, and the same values
/// as a grid output (two routes).
#[test]
fn dense_output_follows_the_piecewise_parabola() {
    let (g, e, h0) = (9.81, 0.8, 1.0);
    let ball = ball(g, e);
    let mut opts = tight();
    opts.ode = opts.ode.clone().dense(true);
    let traj = Hybrid(&ball).run(ModeState::new(0, Vector2::new(h0, 0.0))).span(0.0..3.0).options(&opts).go().unwrap();
    let impacts = ball_impacts(h0, g, e, 12);
    assert!(traj.impacts.len() >= 5);
    // Closed form: before t₁ a fall from rest; after impact k at τ_k with speed v_k = eᵏ √(2 g h0).
    let exact = |t: f64| -> Vector2<f64> {
        let t1 = impacts[0];
        if t < t1 {
            return Vector2::new(h0 - 0.5 * g * t * t, -g * t);
        }
        let k = impacts.iter().rposition(|&tk| tk <= t).unwrap();
        let v = e.powi(k as i32 + 1) * (2.0 * g * h0).sqrt();
        let s = t - impacts[k];
        Vector2::new(v * s - 0.5 * g * s * s, v - g * s)
    };
    let mut worst = 0.0f64;
    for i in 0..=3000 {
        let t = i as f64 * 1e-3;
        if impacts.iter().any(|&tk| (t - tk).abs() < 1e-7) {
            continue;
        }
        let (mode, x) = traj.at(t).unwrap();
        assert_eq!(mode, 0);
        worst = worst.max((x - exact(t)).amax());
    }
    assert!(worst < 1e-8, "dense output vs closed form: {worst:e}");
    // At an impact time: the state after the reset.
    for imp in &traj.impacts {
        let (_, x) = traj.at(imp.t).unwrap();
        assert!((x - imp.post).amax() < 1e-12, "{x} vs {}", imp.post);
    }
    assert!(traj.at(-0.1).is_none() && traj.at(3.1).is_none());
    // A grid output of the same run agrees with the dense output at its times.
    let mut grid = opts.clone().output(Output::Interval(0.01));
    grid.ode.dense = false;
    let gridded = Hybrid(&ball).run(ModeState::new(0, Vector2::new(h0, 0.0))).span(0.0..3.0).options(&grid).go().unwrap();
    assert!(gridded.segments.is_empty());
    for (t, _, x) in gridded.iter().filter(|(t, _, _)| traj.impacts.iter().all(|i| i.t != *t)) {
        let (_, y) = traj.at(t).unwrap();
        assert!((x - y).amax() < 1e-9, "t = {t}: {x} vs {y}");
    }
}

/// User events in a hybrid run: the apexes of the bouncing ball are located at their closed-form
/// times and heights; the velocity's sign flip at an impact is a reset, not a crossing; a terminal
/// event ends the run with its state as the last sample.
#[test]
fn user_events_locate_the_apexes_and_a_terminal_one_stops_the_run() {
    let (g, e, h0) = (9.81, 0.8, 1.0);
    let ball = ball(g, e);
    let impacts = ball_impacts(h0, g, e, 12);
    let apex = [Event::new("apex", |_t, x: &Vector2<f64>| x[1]).direction(Direction::Falling)];
    let traj =
        Hybrid(&ball).run(ModeState::new(0, Vector2::new(h0, 0.0))).span(0.0..3.0).events(&apex).options(tight()).go().unwrap();
    assert_eq!(traj.stop, HybridStop::Finished);
    let n = traj.impacts.len();
    assert!(n >= 5);
    // One apex per flight after an impact (the start at rest is not a crossing).
    let expected: Vec<usize> = (0..n).filter(|&k| impacts[k] + e.powi(k as i32 + 1) * (2.0 * g * h0).sqrt() / g < 3.0).collect();
    assert_eq!(traj.events.len(), expected.len(), "{:?}", traj.events.iter().map(|r| r.t).collect::<Vec<_>>());
    for (r, &k) in traj.events.iter().zip(&expected) {
        let v = e.powi(k as i32 + 1) * (2.0 * g * h0).sqrt();
        assert_eq!((r.name.as_str(), r.index), ("apex", 0));
        assert!((r.t - (impacts[k] + v / g)).abs() < 1e-9, "apex {k} at {}", r.t);
        assert!((r.state[0] - v * v / (2.0 * g)).abs() < 1e-9, "apex height {}", r.state[0]);
    }
    // Rising through 0.3 m is terminal: the first time after the first impact.
    let rise = [Event::new("rise", |_t, x: &Vector2<f64>| x[0] - 0.3).direction(Direction::Rising).terminal(true)];
    let traj =
        Hybrid(&ball).run(ModeState::new(0, Vector2::new(h0, 0.0))).span(0.0..3.0).events(&rise).options(tight()).go().unwrap();
    let v1 = e * (2.0 * g * h0).sqrt();
    let t_rise = impacts[0] + (v1 - (v1 * v1 - 2.0 * g * 0.3).sqrt()) / g;
    let HybridStop::Event { ref name, t } = traj.stop else { panic!("{:?}", traj.stop) };
    assert_eq!(name, "rise");
    assert!((t - t_rise).abs() < 1e-9, "{t} vs {t_rise}");
    let (t_last, _, x_last) = traj.last().unwrap();
    assert_eq!(t_last, t);
    assert!((x_last[0] - 0.3).abs() < 1e-9);
    assert_eq!(traj.impacts.len(), 1);
}

#[test]
fn a_grazing_reset_has_no_saltation_matrix_and_says_so() {
    // At the apex under the ceiling the guard's rate is zero: the impact time does not depend
    // smoothly on the state, and the saltation matrix is a typed error naming the guard.
    let sys = graze(-10.0, 1.25, -1.0);
    let apex = Vector2::new(1.25, 0.0);
    let post = Vector2::new(1.25, 0.0);
    match routh_runtime::saltation(&sys, (0, 0, 0), 0.5, (&apex, &post)) {
        Err(routh_runtime::SimError::Grazing { t, guard, rate }) => assert!(t == 0.5 && guard == "surface" && rate == 0.0),
        other => panic!("{other:?}"),
    }
    // A transversal crossing has one: −e on the velocity plus the field's jump term.
    let ball = ball(9.81, 0.5);
    let pre = Vector2::new(0.0, -2.0);
    let post = Vector2::new(0.0, 1.0);
    let s = routh_runtime::saltation(&ball, (0, 0, 0), 0.3, (&pre, &post)).unwrap();
    assert!(s.iter().all(|v| v.is_finite()) && (s[(1, 1)] + 0.5).abs() < 1e-15);
}
