//! Integration tests against closed-form solutions.

use std::cell::Cell;
use std::f64::consts::PI;

use approx::assert_abs_diff_eq;
use routh_runtime::nalgebra::{Matrix2, Vector1, Vector2, Vector3};
use routh_runtime::{Direction, Event, FieldError, Options, Output, SimError, StopReason, VectorField, solve_mass};
use routh_runtime::{Flow, Simulate};

/// x'' = −ω² x.
struct Oscillator {
    omega: f64,
}

impl VectorField<2> for Oscillator {
    fn field(&self, _t: f64, x: &Vector2<f64>) -> Result<Vector2<f64>, FieldError> {
        Ok(Vector2::new(x[1], -self.omega * self.omega * x[0]))
    }
}

fn tight() -> Options {
    Options::default().rtol(1e-12).atol(1e-14)
}

#[test]
fn harmonic_oscillator_matches_cos_sin() {
    let w = 2.0;
    let opts = Options::default().rtol(1e-10).atol(1e-12);
    let traj = Flow(&Oscillator { omega: w }).run(Vector2::new(1.0, 0.0)).span(0.0..20.0).options(&opts).go().unwrap();
    assert_eq!(traj.stop, StopReason::Finished);
    assert_eq!(traj.times[0], 0.0);
    assert_eq!(*traj.times.last().unwrap(), 20.0);
    let mut max_err: f64 = 0.0;
    for (t, x) in traj.iter() {
        max_err = max_err.max((x[0] - (w * t).cos()).abs());
        max_err = max_err.max((x[1] + w * (w * t).sin()).abs());
    }
    assert!(max_err < 1e-8, "max error {max_err}");
    // Times strictly increase.
    assert!(traj.times.windows(2).all(|w| w[1] > w[0]));
    // FSAL: six evaluations per attempt, plus F(t0) and one for the initial step.
    let s = &traj.stats;
    assert_eq!(s.evaluations, 6 * (s.steps + s.rejected) + 2);
    assert_eq!(traj.len(), s.steps + 1);
}

#[test]
fn error_decreases_with_tolerance() {
    let run = |rtol: f64| {
        let opts = Options::default().rtol(rtol).atol(rtol * 1e-2);
        let traj = Flow(&Oscillator { omega: 1.0 }).run(Vector2::new(1.0, 0.0)).span(0.0..10.0).options(&opts).go().unwrap();
        let (t, x) = traj.last().unwrap();
        ((x[0] - t.cos()).abs(), traj.stats.steps)
    };
    let (e6, n6) = run(1e-6);
    let (e10, n10) = run(1e-10);
    assert!(e10 < e6 * 1e-2, "{e6} {e10}");
    assert!(n10 > n6);
}

#[test]
fn exponential_decay() {
    let f = |_t: f64, x: &Vector1<f64>| -> Result<Vector1<f64>, FieldError> { Ok(-0.5 * x) };
    let opts = Options::default().rtol(1e-10).atol(1e-14);
    let traj = Flow(&f).run(Vector1::new(3.0)).span(0.0..10.0).options(&opts).go().unwrap();
    for (t, x) in traj.iter() {
        let exact = 3.0 * (-0.5 * t).exp();
        assert!((x[0] - exact).abs() <= 1e-9 * exact, "t = {t}: {} vs {exact}", x[0]);
    }
}

#[test]
fn backward_integration() {
    let f = |_t: f64, x: &Vector1<f64>| -> Result<Vector1<f64>, FieldError> { Ok(-x) };
    let opts = Options::default().rtol(1e-10).atol(1e-14);
    let traj = Flow(&f).run(Vector1::new(1.0)).span(2.0..0.0).options(&opts).go().unwrap();
    let (t, x) = traj.last().unwrap();
    assert_eq!(t, 0.0);
    assert_abs_diff_eq!(x[0], 2f64.exp(), epsilon = 1e-8);
    assert!(traj.times.windows(2).all(|w| w[1] < w[0]));
}

#[test]
fn output_times_are_exact() {
    let ts = vec![0.0, 0.1, 0.25, 0.25, 1.0, PI, 4.9, 5.0];
    let opts = tight().output(Output::Times(ts.clone()));
    let traj = Flow(&Oscillator { omega: 1.0 }).run(Vector2::new(1.0, 0.0)).span(0.0..5.0).options(&opts).go().unwrap();
    assert_eq!(traj.times, ts);
    for (t, x) in traj.iter() {
        assert_abs_diff_eq!(x[0], t.cos(), epsilon = 1e-10);
        assert_abs_diff_eq!(x[1], -t.sin(), epsilon = 1e-10);
    }
}

#[test]
fn output_interval() {
    let opts = tight().output(Output::Interval(0.1));
    let traj = Flow(&Oscillator { omega: 1.0 }).run(Vector2::new(1.0, 0.0)).span(0.0..1.0).options(&opts).go().unwrap();
    assert_eq!(traj.len(), 11);
    assert_eq!(traj.times[10], 1.0);
    for (k, (t, x)) in traj.iter().enumerate() {
        assert_abs_diff_eq!(t, 0.1 * k as f64, epsilon = 1e-15);
        assert_abs_diff_eq!(x[0], t.cos(), epsilon = 1e-10);
    }
    // A span that is not a multiple of the interval stops before the end.
    let opts = tight().output(Output::Interval(0.3));
    let traj = Flow(&Oscillator { omega: 1.0 }).run(Vector2::new(1.0, 0.0)).span(0.0..1.0).options(&opts).go().unwrap();
    assert_eq!(traj.len(), 4);
}

#[test]
fn dense_trajectory() {
    let opts = Options::default().rtol(1e-10).atol(1e-12).dense(true).output(Output::Times(vec![]));
    let traj = Flow(&Oscillator { omega: 1.0 }).run(Vector2::new(1.0, 0.0)).span(0.0..10.0).options(&opts).go().unwrap();
    assert!(traj.is_empty());
    assert_eq!(traj.segments.len(), traj.stats.steps);
    for k in 0..=1000 {
        let t = k as f64 * 0.01;
        let x = traj.at(t).unwrap();
        assert_abs_diff_eq!(x[0], t.cos(), epsilon = 1e-8);
    }
    assert!(traj.at(-0.1).is_none());
    assert!(traj.at(f64::NAN).is_none());
    let plain = Flow(&Oscillator { omega: 1.0 }).run(Vector2::new(1.0, 0.0)).span(0.0..10.0).go().unwrap();
    assert!(plain.at(1.0).is_none());
}

#[test]
fn dense_backward() {
    let f = |_t: f64, x: &Vector1<f64>| -> Result<Vector1<f64>, FieldError> { Ok(-x) };
    let opts = Options::default().rtol(1e-10).atol(1e-14).dense(true);
    let traj = Flow(&f).run(Vector1::new(1.0)).span(2.0..0.0).options(&opts).go().unwrap();
    for k in 0..=200 {
        let t = k as f64 * 0.01;
        let x = traj.at(t).unwrap();
        assert!((x[0] - (2.0 - t).exp()).abs() < 1e-8 * (2.0 - t).exp(), "t = {t}");
    }
    assert!(traj.at(2.1).is_none() && traj.at(-0.1).is_none());
}

#[test]
fn non_terminal_events_leave_outputs_alone() {
    let ev = Event::new("x=0", |_t, x: &Vector2<f64>| x[0]);
    let ts = vec![0.0, 1.0, 2.0, 3.0, 4.0, 5.0];
    let opts = tight().output(Output::Times(ts.clone()));
    let osc = Oscillator { omega: 1.0 };
    let traj = Flow(&osc).run(Vector2::new(1.0, 0.0)).span(0.0..5.0).events(&[ev]).options(&opts).go().unwrap();
    assert_eq!(traj.times, ts);
    assert_eq!(traj.events.len(), 2);
    assert_eq!(traj.stop, StopReason::Finished);
    for (k, e) in traj.events.iter().enumerate() {
        assert!((e.t - (k as f64 + 0.5) * PI).abs() < 1e-11);
    }
}

#[test]
fn dense_output_is_fourth_order() {
    // Interpolation error at mid-step on a single step of size h scales like h^5.
    let f = |_t: f64, x: &Vector1<f64>| -> Result<Vector1<f64>, FieldError> { Ok(*x) };
    let err = |h: f64| {
        let opts = Options::default().initial_step(h).rtol(1.0).atol(1.0).dense(true);
        let traj = Flow(&f).run(Vector1::new(1.0)).span(0.0..h).options(&opts).go().unwrap();
        assert_eq!(traj.stats.steps, 1);
        (traj.at(0.5 * h).unwrap()[0] - (0.5 * h).exp()).abs()
    };
    let (e1, e2) = (err(0.2), err(0.1));
    let order = (e1 / e2).log2();
    assert!(order > 4.5, "observed order {order} ({e1}, {e2})");
}

// ---------------------------------------------------------------- events

#[test]
fn event_cos_crossing_at_half_pi() {
    let ev = Event::new("zero", |_t, x: &Vector2<f64>| x[0]).direction(Direction::Falling);
    let opts = Options::default().rtol(1e-13).atol(1e-15);
    let traj =
        Flow(&Oscillator { omega: 1.0 }).run(Vector2::new(1.0, 0.0)).span(0.0..3.0).events(&[ev]).options(&opts).go().unwrap();
    assert_eq!(traj.events.len(), 1);
    let e = &traj.events[0];
    assert_eq!(e.name, "zero");
    assert_eq!(e.index, 0);
    assert!((e.t - PI / 2.0).abs() < 1e-12, "t = {}, err {}", e.t, e.t - PI / 2.0);
    assert!(e.state[0].abs() < 1e-12);
    assert_abs_diff_eq!(e.state[1], -1.0, epsilon = 1e-12);
}

#[test]
fn projectile_lands_at_2v_over_g() {
    let (v, g) = (7.0, 9.81);
    let f = move |_t: f64, x: &Vector2<f64>| -> Result<Vector2<f64>, FieldError> { Ok(Vector2::new(x[1], -g)) };
    // Starts exactly on the ground: must not fire at t = 0.
    let ground = Event::new("ground", |_t, x: &Vector2<f64>| x[0]).terminal(true);
    let traj = Flow(&f).run(Vector2::new(0.0, v)).span(0.0..100.0).events(&[ground]).go().unwrap();
    assert_eq!(traj.events.len(), 1);
    let t_land = 2.0 * v / g;
    assert!((traj.events[0].t - t_land).abs() < 1e-12, "{}", traj.events[0].t - t_land);
    assert_eq!(traj.stop, StopReason::Event { name: "ground".into(), t: traj.events[0].t });
    let (t, x) = traj.last().unwrap();
    assert_eq!(t, traj.events[0].t);
    assert!(x[0] <= 0.0 && x[0] > -1e-10, "landed state {}", x[0]);
    assert_abs_diff_eq!(x[1], -v, epsilon = 1e-9);
}

/// x' = 1 from x = 0: the state is the time, and steps grow ×10 per step.
fn clock(_t: f64, _x: &Vector1<f64>) -> Result<Vector1<f64>, FieldError> {
    Ok(Vector1::new(1.0))
}

#[test]
fn double_crossing_inside_one_step() {
    let calls = Cell::new(0usize);
    let ev = Event::new("dip", |_t, x: &Vector1<f64>| {
        calls.set(calls.get() + 1);
        (x[0] - 1.0) * (x[0] - 1.001)
    });
    let traj = Flow(&clock).run(Vector1::new(0.0)).span(0.0..10.0).events(&[ev]).go().unwrap();
    // Make sure the scenario really is two crossings in one step.
    let steps_over_dip = traj.times.windows(2).filter(|w| w[0] < 1.0 && w[1] > 1.001).count();
    assert_eq!(steps_over_dip, 1, "times {:?}", traj.times);
    assert_eq!(traj.events.len(), 2, "{:?}", traj.events);
    assert!((traj.events[0].t - 1.0).abs() < 1e-12);
    assert!((traj.events[1].t - 1.001).abs() < 1e-12);
    assert!(traj.events[0].t < traj.events[1].t);
    assert!(calls.get() < 500, "{} event evaluations", calls.get());
}

#[test]
fn double_crossing_with_direction_filter() {
    let rising = Event::new("up", |_t, x: &Vector1<f64>| (x[0] - 1.0) * (x[0] - 1.001)).direction(Direction::Rising);
    let falling = Event::new("down", |_t, x: &Vector1<f64>| (x[0] - 1.0) * (x[0] - 1.001)).direction(Direction::Falling);
    let traj = Flow(&clock).run(Vector1::new(0.0)).span(0.0..10.0).events(&[rising, falling]).go().unwrap();
    let names: Vec<_> = traj.events.iter().map(|e| (e.name.as_str(), e.index)).collect();
    assert_eq!(names, vec![("down", 1), ("up", 0)]);
}

#[test]
fn direction_filtering() {
    let opts = tight();
    let osc = Oscillator { omega: 1.0 };
    let x0 = Vector2::new(1.0, 0.0);
    let g = |_t: f64, x: &Vector2<f64>| x[0];
    // cos t crosses 0 falling at π/2, 5π/2 and rising at 3π/2 within [0, 10].
    let count = |d: Direction| {
        let traj = Flow(&osc).run(x0).span(0.0..10.0).events(&[Event::new("x", g).direction(d)]).options(&opts).go().unwrap();
        traj.events.iter().map(|e| e.t).collect::<Vec<_>>()
    };
    let falling = count(Direction::Falling);
    let rising = count(Direction::Rising);
    let either = count(Direction::Either);
    assert_eq!(falling.len(), 2);
    assert_eq!(rising.len(), 1);
    assert_eq!(either.len(), 3);
    assert!((falling[1] - 2.5 * PI).abs() < 1e-10);
    assert!((rising[0] - 1.5 * PI).abs() < 1e-10);
}

#[test]
fn terminal_event_truncates_every_output_mode() {
    let osc = Oscillator { omega: 1.0 };
    let x0 = Vector2::new(1.0, 0.0);
    for output in [Output::Steps, Output::Interval(0.5), Output::Times(vec![0.0, 1.0, 2.0, 3.0])] {
        let ev = Event::new("x=0", |_t, x: &Vector2<f64>| x[0]).terminal(true);
        let opts = tight().output(output.clone());
        let traj = Flow(&osc).run(x0).span(0.0..10.0).events(&[ev]).options(&opts).go().unwrap();
        let (t, x) = traj.last().unwrap();
        assert!((t - PI / 2.0).abs() < 1e-12, "{output:?}: {t}");
        assert!(x[0].abs() < 1e-12);
        assert!(traj.times.iter().all(|&s| s <= t));
        assert!(matches!(traj.stop, StopReason::Event { ref name, .. } if name == "x=0"));
        if let Output::Times(_) = output {
            assert_eq!(traj.times[..2], [0.0, 1.0]);
            assert_eq!(traj.len(), 3);
        }
    }
}

#[test]
fn simultaneous_events_ordered_by_index() {
    let osc = Oscillator { omega: 1.0 };
    let a = Event::new("a", |_t, x: &Vector2<f64>| x[0]);
    let b = Event::new("b", |_t, x: &Vector2<f64>| 2.0 * x[0]);
    let c = Event::new("c", |t: f64, _x: &Vector2<f64>| t - 1.0);
    let traj = Flow(&osc).run(Vector2::new(1.0, 0.0)).span(0.0..2.0).events(&[b, c, a]).options(tight()).go().unwrap();
    let names: Vec<_> = traj.events.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(names, ["c", "b", "a"]);
}

#[test]
fn touching_zero_is_not_a_crossing() {
    // g = (t − 1)² touches zero at t = 1 but never changes sign.
    let ev = Event::new("touch", |t: f64, _x: &Vector1<f64>| (t - 1.0) * (t - 1.0));
    let opts = Options::default().max_step(0.25);
    let traj = Flow(&clock).run(Vector1::new(0.0)).span(0.0..3.0).events(&[ev]).options(&opts).go().unwrap();
    assert!(traj.events.is_empty(), "{:?}", traj.events);
}

#[test]
fn zero_at_start_does_not_fire() {
    // g = sin t is 0 at t0; crossings at π, 2π.
    let ev = Event::new("sin", |t: f64, _x: &Vector1<f64>| t.sin());
    let traj = Flow(&clock).run(Vector1::new(0.0)).span(0.0..7.0).events(&[ev]).options(tight()).go().unwrap();
    let ts: Vec<f64> = traj.events.iter().map(|e| e.t).collect();
    assert_eq!(ts.len(), 2, "{ts:?}");
    assert!((ts[0] - PI).abs() < 1e-12 && (ts[1] - 2.0 * PI).abs() < 1e-12);
}

#[test]
fn backward_events() {
    let ev = Event::new("t=1", |t: f64, _x: &Vector1<f64>| t - 1.0).direction(Direction::Falling);
    let ev2 = Event::new("t=0.5", |t: f64, _x: &Vector1<f64>| t - 0.5).terminal(true);
    let traj = Flow(&clock).run(Vector1::new(3.0)).span(3.0..0.0).events(&[ev, ev2]).go().unwrap();
    assert_eq!(traj.events.len(), 2);
    assert!((traj.events[0].t - 1.0).abs() < 1e-12);
    assert!((traj.events[1].t - 0.5).abs() < 1e-12);
    assert_abs_diff_eq!(traj.events[1].state[0], 0.5, epsilon = 1e-12);
    assert_eq!(traj.last().unwrap().0, traj.events[1].t);
}

// ---------------------------------------------------------------- errors

#[test]
fn singular_mass_matrix_is_a_typed_error() {
    // A "mass matrix" that becomes singular for q ≥ 0.5 (q = t here); the error carries the time
    // of the stage evaluation that failed.
    let f = |t: f64, x: &Vector2<f64>| -> Result<Vector2<f64>, FieldError> {
        let m = Matrix2::new(1.0, 0.0, 0.0, if x[0] >= 0.5 { 0.0 } else { 1.0 });
        let a = solve_mass(m, Vector2::new(1.0, 1.0)).map_err(|e| e.at(t))?;
        Ok(Vector2::new(1.0, a[1]))
    };
    let err = Flow(&f).run(Vector2::zeros()).span(0.0..1.0).go().unwrap_err();
    assert!(matches!(err.error, SimError::SingularMassMatrix { t } if (0.5..=1.0).contains(&t)), "{err:?}");
}

#[test]
fn nan_field_is_non_finite_state() {
    // Blows up at t = 1 (x = 1/(1 − t) solves x' = x²).
    let f = |_t: f64, x: &Vector1<f64>| -> Result<Vector1<f64>, FieldError> {
        Ok(Vector1::new(if x[0] > 1e6 { f64::NAN } else { x[0] * x[0] }))
    };
    let err = Flow(&f).run(Vector1::new(1.0)).span(0.0..2.0).go().unwrap_err();
    assert!(matches!(err.error, SimError::NonFiniteState { .. }), "{err:?}");
    // NaN at the initial point.
    let g = |_t: f64, _x: &Vector1<f64>| -> Result<Vector1<f64>, FieldError> { Ok(Vector1::new(f64::NAN)) };
    assert_eq!(Flow(&g).run(Vector1::new(1.0)).span(0.0..1.0).go().unwrap_err(), SimError::NonFiniteState { t: 0.0 });
}

#[test]
fn transient_nan_is_retried() {
    // The field is NaN for states beyond 1.5, which a too-long first step reaches: the step
    // is halved and the integration succeeds.
    let f = |_t: f64, x: &Vector1<f64>| -> Result<Vector1<f64>, FieldError> {
        if x[0] > 1.5 { Err(FieldError::NonFinite { t: 0.0 }) } else { Ok(Vector1::new(1.0 - x[0])) }
    };
    let opts = Options::default().initial_step(100.0);
    let traj = Flow(&f).run(Vector1::new(0.0)).span(0.0..5.0).options(&opts).go().unwrap();
    assert!(traj.stats.rejected > 0);
    assert_abs_diff_eq!(traj.last().unwrap().1[0], 1.0 - (-5.0f64).exp(), epsilon = 1e-7);
}

#[test]
fn blow_up_is_underflow_or_non_finite() {
    // x' = x², x(0) = 1 blows up at t = 1 with finite values up to overflow.
    let f = |_t: f64, x: &Vector1<f64>| -> Result<Vector1<f64>, FieldError> { Ok(Vector1::new(x[0] * x[0])) };
    let err = Flow(&f).run(Vector1::new(1.0)).span(0.0..2.0).go().unwrap_err();
    match err.error {
        SimError::StepSizeUnderflow { t, .. } | SimError::NonFiniteState { t } => {
            assert!((t - 1.0).abs() < 1e-3, "{t}")
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn step_limit() {
    let opts = Options::default().max_steps(10);
    let err = Flow(&Oscillator { omega: 1.0 }).run(Vector2::new(1.0, 0.0)).span(0.0..100.0).options(&opts).go().unwrap_err();
    assert!(matches!(err.error, SimError::StepLimit { steps: 10, t } if t > 0.0 && t < 100.0), "{err:?}");
}

#[test]
fn min_step_underflow() {
    let opts = Options::default().min_step(0.5);
    let err = Flow(&Oscillator { omega: 1.0 }).run(Vector2::new(1.0, 0.0)).span(0.0..100.0).options(&opts).go().unwrap_err();
    assert!(matches!(err.error, SimError::StepSizeUnderflow { .. }), "{err:?}");
}

#[test]
fn invalid_inputs() {
    let osc = Oscillator { omega: 1.0 };
    let x0 = Vector2::new(1.0, 0.0);
    let bad = [
        Options::default().rtol(0.0),
        Options::default().rtol(f64::NAN),
        Options::default().atol(-1.0),
        Options::default().atol(f64::INFINITY),
        Options::default().max_step(0.0),
        Options::default().max_step(f64::NAN),
        Options::default().min_step(-1.0),
        Options::default().min_step(1.0).max_step(0.5),
        Options::default().initial_step(0.0),
        Options::default().initial_step(f64::NAN),
        Options::default().event_tolerance(0.0),
        Options::default().output(Output::Interval(0.0)),
        Options::default().output(Output::Interval(f64::NAN)),
        Options::default().output(Output::Interval(1e-300)),
        Options::default().output(Output::Times(vec![0.5, 0.2])),
        Options::default().output(Output::Times(vec![2.0])),
        Options::default().output(Output::Times(vec![f64::NAN])),
    ];
    for o in &bad {
        let r = Flow(&osc).run(x0).span(0.0..1.0).options(o).go().map_err(SimError::from);
        assert!(matches!(r, Err(SimError::InvalidOptions(_))), "{o:?} gave {r:?}");
    }
    assert_eq!(
        Flow(&osc).run(x0).span(0.0..f64::INFINITY).go().unwrap_err(),
        SimError::InvalidTimeSpan { t0: 0.0, t1: f64::INFINITY }
    );
    assert!(matches!(Flow(&osc).run(x0).span(f64::NAN..1.0).go().map_err(SimError::from), Err(SimError::InvalidTimeSpan { .. })));
    assert!(matches!(
        Flow(&osc).run(x0).span(-f64::MAX..f64::MAX).go().map_err(SimError::from),
        Err(SimError::InvalidTimeSpan { .. })
    ));
    assert_eq!(Flow(&osc).run(Vector2::new(f64::NAN, 0.0)).span(0.0..1.0).go().unwrap_err(), SimError::InvalidInitialState);
}

#[test]
fn empty_span() {
    let traj = Flow(&Oscillator { omega: 1.0 }).run(Vector2::new(1.0, 0.0)).span(1.0..1.0).go().unwrap();
    assert_eq!(traj.times, vec![1.0]);
    assert_eq!(traj.stop, StopReason::Finished);
}

#[test]
fn zero_atol_with_zero_component() {
    // Pure relative tolerance and a component that stays exactly 0.
    let f = |_t: f64, x: &Vector3<f64>| -> Result<Vector3<f64>, FieldError> { Ok(Vector3::new(x[1], -x[0], 0.0)) };
    let opts = Options::default().atol(0.0).rtol(1e-9);
    let traj = Flow(&f).run(Vector3::new(1.0, 0.0, 0.0)).span(0.0..1.0).options(&opts).go().unwrap();
    assert_abs_diff_eq!(traj.last().unwrap().1[0], 1f64.cos(), epsilon = 1e-7);
}

#[test]
fn works_with_trait_objects() {
    let osc: &dyn VectorField<2> = &Oscillator { omega: 1.0 };
    let traj = Flow(osc).run(Vector2::new(1.0, 0.0)).span(0.0..1.0).go().unwrap();
    assert_abs_diff_eq!(traj.last().unwrap().1[0], 1f64.cos(), epsilon = 1e-7);
}

#[test]
fn hostile_inputs_never_panic() {
    let osc = Oscillator { omega: 1.0 };
    let x0 = Vector2::new(1.0, 0.0);
    let nan_event = || Event::new("nan", |_t, _x: &Vector2<f64>| f64::NAN).terminal(true);
    let inf_event = || Event::new("inf", |t: f64, _x: &Vector2<f64>| if t > 1.0 { f64::INFINITY } else { -1.0 });
    let step_event = || Event::new("step", |t: f64, _x: &Vector2<f64>| if t > 0.3 { 1.0 } else { -1.0 });
    let options = [
        Options::default().max_steps(0),
        Options::default().max_steps(1),
        Options::default().event_tolerance(1e300),
        Options::default().event_tolerance(f64::MIN_POSITIVE),
        Options::default().rtol(1e-300).atol(0.0),
        Options::default().rtol(1e300).atol(1e300),
        Options::default().initial_step(1e-300),
        Options::default().initial_step(1e300),
        Options::default().max_step(1e-300).max_steps(100),
        Options::default().output(Output::Times(vec![])),
        Options::default().output(Output::Interval(1e300)),
        Options::default().dense(true).output(Output::Interval(0.25)),
    ];
    for opts in &options {
        for span in [0.0..3.0, 3.0..0.0, 0.0..1e-300, -1e300..1e300, 1e300..1e300] {
            let events = [nan_event(), inf_event(), step_event()];
            let r = Flow(&osc).run(x0).span(span.clone()).events(&events).options(opts).go();
            if let Ok(traj) = &r {
                assert_eq!(traj.times.len(), traj.states.len());
                assert!(traj.states.iter().all(|x| x.iter().all(|v| v.is_finite())));
                let _ = traj.at(1.0);
            }
        }
    }
    // The discontinuous event is located at its jump.
    let traj = Flow(&osc).run(x0).span(0.0..1.0).events(&[step_event()]).go().unwrap();
    assert_eq!(traj.events.len(), 1);
    assert!((traj.events[0].t - 0.3).abs() < 1e-12);
}

#[test]
fn tolerances_that_admit_any_answer_are_rejected() {
    // rtol = atol = 1e6 would "succeed" with garbage (issue: x(10) = −406 against −0.58).
    let osc = |_t: f64, x: &Vector2<f64>| -> Result<Vector2<f64>, FieldError> { Ok(Vector2::new(x[1], -x[0])) };
    let opts = Options::default().rtol(1e6).atol(1e6);
    match Flow(&osc).run(Vector2::new(1.0, 0.0)).span(0.0..10.0).options(&opts).go().map_err(SimError::from) {
        Err(SimError::InvalidOptions(msg)) => assert!(msg.contains("rtol"), "{msg}"),
        other => panic!("{other:?}"),
    }
    assert!(Options::default().rtol(0.5).validate().is_ok());
    // Nor can a tolerance below round-off be met: rtol = 1e-30 ran into the step limit after 10⁶
    // steps; it is refused up front, and the smallest one a step can meet is accepted.
    match Flow(&osc).run(Vector2::new(1.0, 0.0)).span(0.0..10.0).rtol(1e-30).go().map_err(SimError::from) {
        Err(SimError::InvalidOptions(msg)) => assert!(msg.contains("round-off"), "{msg}"),
        other => panic!("{other:?}"),
    }
    assert!(Options::default().rtol(routh_runtime::options::MIN_RTOL).validate().is_ok());
    // A backward hybrid span says why it is rejected.
    let msg = SimError::InvalidTimeSpan { t0: 10.0, t1: 0.0 }.to_string();
    assert!(msg.contains("forward in time"), "{msg}");
}

#[test]
fn an_output_grid_too_large_for_memory_is_rejected_up_front() {
    // 1e8 samples of a 2-state are 2.4 GB: fine by default (4 GiB) only if asked for less.
    let osc = |_t: f64, x: &Vector2<f64>| -> Result<Vector2<f64>, FieldError> { Ok(Vector2::new(x[1], -x[0])) };
    let opts = Options::default().output(Output::Interval(1e-7)).max_output_bytes(1 << 30);
    match Flow(&osc).run(Vector2::new(1.0, 0.0)).span(0.0..10.0).options(&opts).go().map_err(SimError::from) {
        Err(SimError::InvalidOptions(msg)) => assert!(msg.contains("max_output_bytes"), "{msg}"),
        other => panic!("{:?}", other.map(|t| t.len())),
    }
}
