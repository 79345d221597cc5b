//! Errors keep the work done: a run that fails after it started returns its samples up to the last
//! accepted step with the error — inside the `Err` by default (`RunError::partial`), as the `Ok`
//! result's stop reason with `Options::keep_partial`.

mod hybrid_support;

use routh_runtime::nalgebra::{Matrix1, SMatrix};
use routh_runtime::nalgebra::{Vector1, Vector2};
use routh_runtime::{DiscreteOptions, DiscreteSystem, FieldError, HybridStop, Monitor, Options, Output, SimError, StopReason};
use routh_runtime::{Flow, Hybrid, ModeState, Simulate, SimulateDiscrete, Variational, run::Node};

/// x'' = −x.
fn oscillator(_t: f64, x: &Vector2<f64>) -> Result<Vector2<f64>, FieldError> {
    Ok(Vector2::new(x[1], -x[0]))
}

#[test]
fn a_step_limit_keeps_the_exact_prefix_of_the_full_run() {
    let x0 = Vector2::new(1.0, 0.0);
    let full = Flow(&oscillator).run(x0).span(0.0..100.0).go().unwrap();
    let opts = Options::default().max_steps(40).keep_partial(true);
    let part = Flow(&oscillator).run(x0).span(0.0..100.0).options(&opts).go().unwrap();
    let StopReason::Failed(SimError::StepLimit { steps: 40, t }) = part.stop else { panic!("{:?}", part.stop) };
    // The same step sequence: every kept sample is the full run's sample, bit for bit.
    let n = part.times.len();
    assert!(n > 10 && n < full.times.len());
    assert_eq!(part.times[..], full.times[..n]);
    assert_eq!(part.states[..], full.states[..n]);
    assert_eq!(part.last().unwrap().0, t, "the error's time is the last sample");
    // And the samples are the physics: x = cos t.
    for (t, x) in part.iter() {
        assert!((x[0] - t.cos()).abs() < 1e-6, "{t}");
    }
    // Without the option (the default) the same failure is an error, which carries the same
    // trajectory: nothing is lost either way.
    let err = Flow(&oscillator).run(x0).span(0.0..100.0).options(opts.clone().keep_partial(false)).go().unwrap_err();
    assert!(matches!(err.error, SimError::StepLimit { steps: 40, .. }), "{err:?}");
    assert_eq!(err.partial.map(|p| p.times), Some(part.times));
    // `?` gives the bare error where only that is wanted.
    let bare = || -> Result<(), SimError> {
        Flow(&oscillator).run(x0).span(0.0..100.0).options(Options::default().max_steps(40)).go()?;
        Ok(())
    };
    assert!(matches!(bare(), Err(SimError::StepLimit { steps: 40, .. })));
}

#[test]
fn a_blow_up_keeps_the_solution_up_to_the_singularity() {
    // x' = x², x(0) = 1: x = 1/(1 − t), blowing up at t = 1.
    let f = |_t: f64, x: &Vector1<f64>| -> Result<Vector1<f64>, FieldError> { Ok(Vector1::new(x[0] * x[0])) };
    let opts = Options::default().rtol(1e-10).atol(1e-12).keep_partial(true).dense(true);
    let part = Flow(&f).run(Vector1::new(1.0)).span(0.0..2.0).options(&opts).go().unwrap();
    assert!(
        matches!(part.stop, StopReason::Failed(SimError::StepSizeUnderflow { .. } | SimError::NonFiniteState { .. })),
        "{:?}",
        part.stop
    );
    let (t_last, _) = part.last().unwrap();
    assert!(t_last < 1.0 && t_last > 1.0 - 1e-3, "{t_last}");
    for (t, x) in part.iter().filter(|(t, _)| *t < 0.99) {
        let exact = 1.0 / (1.0 - t);
        assert!((x[0] - exact).abs() < 1e-7 * exact, "t = {t}: {} vs {exact}", x[0]);
    }
    // The dense output of the kept steps is usable too.
    let mid = part.at(0.5).unwrap();
    assert!((mid[0] - 2.0).abs() < 1e-8, "{}", mid[0]);
}

#[test]
fn a_field_error_keeps_the_grid_samples_before_it() {
    // The field refuses to go past t = 3 (a model leaving its domain): a grid output keeps the
    // samples at 0, 0.5, …, up to the failure.
    let f = |t: f64, x: &Vector2<f64>| -> Result<Vector2<f64>, FieldError> {
        if t > 3.0 { Err(FieldError::SingularMassMatrix { t }) } else { oscillator(t, x) }
    };
    let opts = Options::default().rtol(1e-10).atol(1e-12).output(Output::Interval(0.5)).keep_partial(true);
    let part = Flow(&f).run(Vector2::new(1.0, 0.0)).span(0.0..10.0).options(&opts).go().unwrap();
    assert!(matches!(part.stop, StopReason::Failed(SimError::SingularMassMatrix { t }) if t > 3.0), "{:?}", part.stop);
    assert!(part.times.len() >= 6 && *part.times.last().unwrap() <= 3.0, "{:?}", part.times);
    for (k, (t, x)) in part.iter().enumerate() {
        assert_eq!(t, 0.5 * k as f64);
        assert!((x[0] - t.cos()).abs() < 1e-8);
    }
}

#[test]
fn errors_before_the_start_stay_errors() {
    let opts = Options::default().keep_partial(true);
    let err = Flow(&oscillator).run(Vector2::new(f64::NAN, 0.0)).span(0.0..1.0).options(&opts).go().unwrap_err();
    assert_eq!(err, SimError::InvalidInitialState);
    let err = Flow(&oscillator).run(Vector2::new(1.0, 0.0)).span(0.0..1.0).options(opts.rtol(2.0)).go().unwrap_err();
    assert!(matches!(err.error, SimError::InvalidOptions(_)), "{err:?}");
}

#[test]
fn a_monitor_reports_the_time_reached_and_the_attempts_spent() {
    let monitor = Monitor::new();
    assert_eq!(monitor.time(), None);
    let opts = Options::default().monitor(monitor.clone());
    let run = Flow(&oscillator).run(Vector2::new(1.0, 0.0)).span(0.0..10.0).options(&opts).go().unwrap();
    assert_eq!(monitor.time(), Some(10.0));
    assert_eq!(monitor.attempts(), run.stats.steps + run.stats.rejected);
    assert!(!monitor.is_cancelled());
    // Clones are the same monitor; a fresh one is another.
    assert_eq!(monitor.clone(), monitor);
    assert_ne!(Monitor::new(), monitor);
}

/// The oscillator over a span it cannot finish, run on another thread with `opts` (watched by
/// `monitor`) and cancelled once it passes t = 50.
fn cancelled_oscillator(opts: &Options, monitor: &Monitor) -> routh_runtime::Trajectory<2> {
    std::thread::scope(|s| {
        let worker = s.spawn(|| Flow(&oscillator).run(Vector2::new(1.0, 0.0)).span(0.0..1e12).options(opts).go());
        while monitor.time().is_none_or(|t| t < 50.0) && !worker.is_finished() {
            std::thread::yield_now();
        }
        monitor.cancel();
        worker.join().unwrap()
    })
    .unwrap()
}

#[test]
fn a_cancelled_run_stops_at_its_next_step_and_keeps_its_samples() {
    let monitor = Monitor::new();
    let opts = Options::default().rtol(1e-10).atol(1e-12).monitor(monitor.clone()).keep_partial(true);
    let run = cancelled_oscillator(&opts, &monitor);
    let StopReason::Failed(SimError::Cancelled { t }) = run.stop else { panic!("{:?}", run.stop) };
    assert!((50.0..1e12).contains(&t));
    assert_eq!(run.last().unwrap().0, t);
    for (t, x) in run.iter() {
        assert!((x[0] - t.cos()).abs() < 1e-6, "{t}");
    }
    // On given times the run never reaches it kept no sample at all, but it keeps where it
    // stopped: the state to resume from.
    let fresh = Monitor::new();
    let run = cancelled_oscillator(&opts.clone().monitor(fresh.clone()).output(Output::Times(vec![1e11])), &fresh);
    let StopReason::Failed(SimError::Cancelled { t }) = run.stop else { panic!("{:?}", run.stop) };
    assert!(run.is_empty());
    let (t_end, x_end) = run.end;
    assert!(t_end == t && (x_end[0] - t.cos()).abs() < 1e-6, "{t_end} {t}");
    // Resuming from it continues the same motion.
    let rest = Flow(&oscillator).run(x_end).span(t_end..t_end + 1.0).rtol(1e-10).atol(1e-12).go().unwrap();
    assert!((rest.end.1[0] - (t_end + 1.0).cos()).abs() < 1e-6);
    // A cancelled monitor stops every run that uses it, at its start; without keep_partial that
    // is an error.
    let err =
        Flow(&oscillator).run(Vector2::new(1.0, 0.0)).span(0.0..1.0).options(opts.clone().keep_partial(false)).go().unwrap_err();
    assert_eq!(err, SimError::Cancelled { t: 0.0 });
}

#[test]
fn a_failed_hybrid_run_keeps_its_impacts() {
    // Elastic ball from h = 1: impacts at t₁ (2k + 1), t₁ = √(2/g).
    let (g, h) = (9.81, 1.0);
    let ball = hybrid_support::ball(g, 1.0);
    let opts = hybrid_support::tight();
    let full = Hybrid(&ball).run(ModeState::new(0, Vector2::new(h, 0.0))).span(0.0..20.0).options(&opts).go().unwrap();
    // Half the step attempts the full run needs.
    let limit = (full.stats.steps + full.stats.rejected) / 2;
    let mut ode = opts.ode.clone().max_steps(limit).keep_partial(true);
    let part = Hybrid(&ball)
        .run(ModeState::new(0, Vector2::new(h, 0.0)))
        .span(0.0..20.0)
        .options(opts.clone().ode(ode.clone()))
        .go()
        .unwrap();
    assert!(matches!(part.stop, HybridStop::Failed(SimError::StepLimit { steps, .. }) if steps == limit), "{:?}", part.stop);
    let k = part.impacts.len();
    assert!(k >= 3 && k < full.impacts.len(), "{k} of {}", full.impacts.len());
    assert_eq!(part.impacts[..], full.impacts[..k]);
    assert_eq!(part.states[..], full.states[..part.states.len()]);
    let t1 = (2.0 * h / g).sqrt();
    for (i, imp) in part.impacts.iter().enumerate() {
        assert!((imp.t - t1 * (2 * i + 1) as f64).abs() < 1e-9, "impact {i} at {}", imp.t);
    }
    // Where it stopped, to resume from: the last sample of a step output.
    let (t_end, mode_end, x_end) = part.end;
    let (t_last, mode_last, x_last) = part.last().unwrap();
    assert!(t_end == t_last && mode_end == mode_last && x_end == *x_last);
    // By default the error carries the same partial run.
    ode.keep_partial = false;
    let err = Hybrid(&ball).run(ModeState::new(0, Vector2::new(h, 0.0))).span(0.0..20.0).options(opts.ode(ode)).go().unwrap_err();
    assert!(matches!(err.error, SimError::StepLimit { steps, .. } if steps == limit), "{err:?}");
    let kept = err.partial.expect("the run had started");
    assert_eq!(kept.impacts, part.impacts);
    assert_eq!(kept.states, part.states);
}

/// The harmonic oscillator's midpoint variational integrator, L_d = h/2 ((q₁ − q₀)/h)² − h/2 ((q₀ +
/// q₁)/2)², on a domain t < `edge`: beyond it the maps cannot be evaluated.
struct MidpointOscillator {
    edge: f64,
}

impl DiscreteSystem<1> for MidpointOscillator {
    fn left_momentum(
        &self,
        t: f64,
        h: f64,
        q0: &Vector1<f64>,
        q1: &Vector1<f64>,
    ) -> Result<(Vector1<f64>, Matrix1<f64>), FieldError> {
        if t >= self.edge {
            return Err(FieldError::NonFinite { t });
        }
        // −D₁L_d = (q₁ − q₀)/h + h/4 (q₀ + q₁).
        Ok((Vector1::new((q1[0] - q0[0]) / h + 0.25 * h * (q0[0] + q1[0])), SMatrix::from([[1.0 / h + 0.25 * h]])))
    }
    fn right_momentum(&self, _t: f64, h: f64, q0: &Vector1<f64>, q1: &Vector1<f64>) -> Result<Vector1<f64>, FieldError> {
        // D₂L_d = (q₁ − q₀)/h − h/4 (q₀ + q₁).
        Ok(Vector1::new((q1[0] - q0[0]) / h - 0.25 * h * (q0[0] + q1[0])))
    }
}

#[test]
fn a_failed_discrete_run_keeps_its_nodes() {
    // Step 21 (from t = 2) cannot be evaluated: the 20 steps before it were thrown away; now they
    // come with the error, node for node those of a run of 20 steps, and they are the motion
    // (q = cos t to the midpoint rule's O(h²)).
    let (h, q0, p0) = (0.1, Vector1::new(1.0), Vector1::new(0.0));
    let opts = DiscreteOptions::default();
    let sys = MidpointOscillator { edge: 2.0 - 1e-9 };
    let start = Node { q: q0, p: p0, v: p0 };
    let failure = Variational(&sys).run_discrete(start).step(h).steps(100).options(&opts).go().unwrap_err();
    assert!(matches!(failure.error, SimError::NonFiniteState { t } if (t - 2.0).abs() < 1e-9), "{:?}", failure.error);
    let kept = failure.partial.expect("twenty steps were made");
    let short = Variational(&sys).run_discrete(start).step(h).steps(20).options(&opts).go().unwrap();
    assert_eq!(kept.positions.len(), 21);
    assert_eq!(*kept, short);
    for (t, q) in kept.times.iter().zip(&kept.positions) {
        assert!((q[0] - t.cos()).abs() < 5e-3, "t = {t}: {}", q[0]);
    }
}
