//! The DOP853 pair (`Options::scheme(Scheme::Dop853)`): its order on a closed form, its economy
//! against DOPRI5 at a tight tolerance, its 7th-order dense output, and events and impacts
//! located as with DOPRI5.

mod hybrid_support;

use routh_runtime::nalgebra::{Vector2, Vector4};
use routh_runtime::{Direction, Event, FieldError, Options, Output, Scheme};
use routh_runtime::{Flow, Hybrid, ModeState, Simulate};

/// x'' = −x.
fn oscillator(_t: f64, x: &Vector2<f64>) -> Result<Vector2<f64>, FieldError> {
    Ok(Vector2::new(x[1], -x[0]))
}

/// The Kepler problem (unit μ): r'' = −r/|r|³.
fn kepler(_t: f64, s: &Vector4<f64>) -> Result<Vector4<f64>, FieldError> {
    let r3 = (s[0] * s[0] + s[1] * s[1]).powf(1.5);
    Ok(Vector4::new(s[2], s[3], -s[0] / r3, -s[1] / r3))
}

/// The orbit of eccentricity e from its pericentre at (1 − e, 0): period 2π (a = 1).
fn pericentre(e: f64) -> Vector4<f64> {
    Vector4::new(1.0 - e, 0.0, 0.0, ((1.0 + e) / (1.0 - e)).sqrt())
}

#[test]
fn eighth_order_on_fixed_steps() {
    // Steps of h and h/2 (the tolerances loose enough that every step of size max_step passes):
    // the error at t = 10 falls by 2⁸.
    let error = |h: f64| {
        let opts = Options::default().scheme(Scheme::Dop853).rtol(1.0).atol(1e3).initial_step(h).max_step(h);
        let run = Flow(&oscillator).run(Vector2::new(1.0, 0.0)).span(0.0..10.0).options(&opts).go().unwrap();
        assert_eq!(run.stats.rejected, 0);
        (run.end.1[0] - 10f64.cos()).abs()
    };
    let (e1, e2) = (error(0.5), error(0.25));
    let order = (e1 / e2).log2();
    println!("DOP853 on fixed steps: errors {e1:.2e} (h = 0.5), {e2:.2e} (h = 0.25): order {order:.2}");
    assert!((7.6..8.6).contains(&order), "order {order}");
}

#[test]
fn fewer_evaluations_than_dopri5_for_the_same_error_at_a_tight_tolerance() {
    // Two periods of an orbit of eccentricity 0.8 at rtol 1e-11: both return to the pericentre;
    // DOP853 gets there with less than half the evaluations, as accurately.
    let x0 = pericentre(0.8);
    let span = 0.0..4.0 * std::f64::consts::PI;
    let run = |scheme: Scheme| {
        let opts = Options::default().scheme(scheme).rtol(1e-11).atol(1e-13);
        let r = Flow(&kepler).run(x0).span(span.clone()).options(&opts).go().unwrap();
        ((r.end.1 - x0).amax(), r.stats.evaluations)
    };
    let ((e5, n5), (e8, n8)) = (run(Scheme::Dopri5), run(Scheme::Dop853));
    println!("Kepler e = 0.8, two periods, rtol 1e-11: DOPRI5 {n5} evaluations (error {e5:.1e}), DOP853 {n8} ({e8:.1e})");
    assert!(e5 < 1e-7 && e8 < 1e-7, "{e5:e} {e8:e}");
    assert!(e8 < 3.0 * e5, "DOP853 {e8:e} against DOPRI5 {e5:e}");
    assert!(2 * n8 < n5, "{n8} against {n5}");
}

#[test]
fn dense_output_is_seventh_order_inside_the_steps() {
    // The interpolant between the steps of an oscillator at rtol 1e-12 is as accurate as the steps.
    let opts = Options::default().scheme(Scheme::Dop853).rtol(1e-12).atol(1e-14).dense(true);
    let run = Flow(&oscillator).run(Vector2::new(1.0, 0.0)).span(0.0..20.0).options(&opts).go().unwrap();
    let worst = (0..2000).map(|k| 0.01 * k as f64 + 0.003).fold(0.0f64, |w, t| w.max((run.at(t).unwrap()[0] - t.cos()).abs()));
    let at_steps = run.iter().fold(0.0f64, |w, (t, x)| w.max((x[0] - t.cos()).abs()));
    println!("DOP853 dense output: worst {worst:.1e} inside the steps, {at_steps:.1e} at them ({} steps)", run.stats.steps);
    assert!(worst < 1e-10 && worst < 20.0 * at_steps.max(1e-13), "{worst:e} against {at_steps:e}");
    // Fewer steps than DOPRI5 needs at this tolerance: the dense output is what makes output
    // grids affordable with them.
    let dopri =
        Flow(&oscillator).run(Vector2::new(1.0, 0.0)).span(0.0..20.0).options(opts.clone().scheme(Scheme::Dopri5)).go().unwrap();
    assert!(run.stats.steps * 3 < dopri.stats.steps, "{} against {}", run.stats.steps, dopri.stats.steps);
}

#[test]
fn events_and_impacts_are_located_as_with_dopri5() {
    // The oscillator's zero crossings at (k + ½)π, and the bouncing ball's impact times.
    let zero = Event::new("x = 0", |_t, x: &Vector2<f64>| x[0]).direction(Direction::Either);
    let opts = Options::default().scheme(Scheme::Dop853).rtol(1e-10).atol(1e-12).output(Output::Times(vec![]));
    let run = Flow(&oscillator).run(Vector2::new(1.0, 0.0)).span(0.0..10.0).events(&[zero]).options(&opts).go().unwrap();
    assert_eq!(run.events.len(), 3);
    for (k, ev) in run.events.iter().enumerate() {
        let exact = (k as f64 + 0.5) * std::f64::consts::PI;
        assert!((ev.t - exact).abs() < 1e-10, "crossing {k} at {} against {exact}", ev.t);
    }
    let (g, e, h0) = (9.81, 0.8, 1.0);
    let ball = hybrid_support::ball(g, e);
    let tight = hybrid_support::tight();
    let opts = tight.clone().ode(tight.ode.clone().scheme(Scheme::Dop853));
    let sol = Hybrid(&ball).run(ModeState::new(0, Vector2::new(h0, 0.0))).span(0.0..3.0).options(&opts).go().unwrap();
    let exact = hybrid_support::ball_impacts(h0, g, e, sol.impacts.len());
    assert!(sol.impacts.len() >= 4);
    for (imp, t) in sol.impacts.iter().zip(exact) {
        assert!((imp.t - t).abs() < 1e-10, "impact at {} against {t}", imp.t);
    }
}
