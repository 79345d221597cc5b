//! The implicit Rodas4 method (`Options::scheme(Scheme::Rodas4)`): its order on a closed form, its
//! economy on a stiff system where DOPRI5 is held to its stability limit, its dense output, the
//! exact Jacobian used when the field has one, and events and impacts located as with DOPRI5.

mod hybrid_support;

use routh_runtime::nalgebra::{Matrix2, Vector2};
use routh_runtime::{Direction, Event, FieldError, Options, Output, Scheme, VectorField};
use routh_runtime::{Flow, Hybrid, ModeState, Simulate};

/// A stiff damped oscillator x'' + (1 + λ) x' + λ x = 0, λ = 10⁴: modes e^{−t} and e^{−λt}.
struct Stiff {
    lambda: f64,
    /// Whether to offer the exact Jacobian.
    exact: bool,
}

impl VectorField<2> for Stiff {
    fn field(&self, _t: f64, x: &Vector2<f64>) -> Result<Vector2<f64>, FieldError> {
        Ok(Vector2::new(x[1], -self.lambda * x[0] - (1.0 + self.lambda) * x[1]))
    }
    fn exact_jacobian(&self, _t: f64, _x: &Vector2<f64>) -> Option<Result<Matrix2<f64>, FieldError>> {
        self.exact.then(|| Ok(Matrix2::new(0.0, 1.0, -self.lambda, -(1.0 + self.lambda))))
    }
}

/// x(0) = 2, ẋ(0) = −1 − λ: x = e^{−t} + e^{−λt}.
fn closed_form(lambda: f64, t: f64) -> f64 {
    (-t).exp() + (-lambda * t).exp()
}

/// x' = cos t − x (time-dependent: ∂F/∂t ≠ 0), x(0) = 0: x = (sin t + cos t − e^{−t})/2.
fn forced(t: f64, x: &routh_runtime::nalgebra::Vector1<f64>) -> Result<routh_runtime::nalgebra::Vector1<f64>, FieldError> {
    Ok(routh_runtime::nalgebra::Vector1::new(t.cos() - x[0]))
}

#[test]
fn fourth_order_on_fixed_steps() {
    // The forced decay on steps h and h/2 (tolerances loose enough that every step passes): the
    // error at t = 4 falls by 2⁴ — the time derivative's stage weights included.
    let error = |h: f64| {
        let opts = Options::default().scheme(Scheme::Rodas4).rtol(1.0).atol(1e3).initial_step(h).max_step(h);
        let run = Flow(&forced).run(routh_runtime::nalgebra::Vector1::new(0.0)).span(0.0..4.0).options(&opts).go().unwrap();
        assert_eq!(run.stats.rejected, 0);
        (run.end.1[0] - (4f64.sin() + 4f64.cos() - (-4f64).exp()) / 2.0).abs()
    };
    let (e1, e2) = (error(0.2), error(0.1));
    let order = (e1 / e2).log2();
    println!("Rodas4 on fixed steps: errors {e1:.2e} (h = 0.2), {e2:.2e} (h = 0.1): order {order:.2}");
    assert!((3.7..4.6).contains(&order), "order {order}");
}

#[test]
fn a_stiff_oscillator_takes_far_fewer_evaluations_than_dopri5() {
    // λ = 10⁴: DOPRI5's steps are held near its stability limit 3.3/λ for all of [0, 10];
    // Rodas4 steps with the slow mode. Both meet the tolerance against the closed form.
    let lambda = 1e4;
    let x0 = Vector2::new(2.0, -1.0 - lambda);
    let run = |scheme: Scheme, exact: bool| {
        let opts = Options::default().scheme(scheme).rtol(1e-6).atol(1e-9).output(Output::Times(vec![1.0, 5.0, 10.0]));
        let r = Flow(&Stiff { lambda, exact }).run(x0).span(0.0..10.0).options(&opts).go().unwrap();
        let err = r.times.iter().zip(&r.states).map(|(&t, x)| (x[0] - closed_form(lambda, t)).abs()).fold(0.0, f64::max);
        (err, r.stats.evaluations, r.stats.steps)
    };
    let (e5, n5, s5) = run(Scheme::Dopri5, false);
    let (ex, nx, sx) = run(Scheme::Rodas4, true);
    let (ed, nd, sd) = run(Scheme::Rodas4, false);
    println!(
        "stiff oscillator λ = 1e4 over 10 s at rtol 1e-6: DOPRI5 {n5} evaluations / {s5} steps (error {e5:.1e}); Rodas4 with the \
         exact Jacobian {nx} / {sx} ({ex:.1e}), with differences {nd} / {sd} ({ed:.1e})"
    );
    assert!(e5 < 1e-5 && ex < 1e-5 && ed < 1e-5, "{e5:e} {ex:e} {ed:e}");
    assert!(n5 > 100 * nx, "{n5} against {nx}");
    // Differences cost two evaluations a step more, and reach the same accuracy.
    assert!(nd <= nx + 2 * sd + 4 && sd <= sx + sx / 5 + 2, "{nd} / {sd} against {nx} / {sx}");
}

#[test]
fn dense_output_is_third_order_inside_the_steps() {
    let opts = Options::default().scheme(Scheme::Rodas4).rtol(1e-9).atol(1e-12).dense(true);
    let x0 = routh_runtime::nalgebra::Vector1::new(0.0);
    let run = Flow(&forced).run(x0).span(0.0..8.0).options(&opts).go().unwrap();
    let exact = |t: f64| (t.sin() + t.cos() - (-t).exp()) / 2.0;
    let worst = (0..800).map(|k| 0.01 * k as f64 + 0.003).fold(0.0f64, |w, t| w.max((run.at(t).unwrap()[0] - exact(t)).abs()));
    let at_steps = run.iter().fold(0.0f64, |w, (t, x)| w.max((x[0] - exact(t)).abs()));
    println!("Rodas4 dense output: worst {worst:.1e} inside the steps, {at_steps:.1e} at them ({} steps)", run.stats.steps);
    assert!(worst < 1e-7 && worst < 100.0 * at_steps.max(1e-12), "{worst:e} against {at_steps:e}");
}

#[test]
fn events_and_impacts_are_located_as_with_dopri5() {
    let oscillator = |_t: f64, x: &Vector2<f64>| -> Result<Vector2<f64>, FieldError> { Ok(Vector2::new(x[1], -x[0])) };
    let zero = Event::new("x = 0", |_t, x: &Vector2<f64>| x[0]).direction(Direction::Either);
    let opts = Options::default().scheme(Scheme::Rodas4).rtol(1e-10).atol(1e-12).output(Output::Times(vec![]));
    let run = Flow(&oscillator).run(Vector2::new(1.0, 0.0)).span(0.0..10.0).events(&[zero]).options(&opts).go().unwrap();
    assert_eq!(run.events.len(), 3);
    for (k, ev) in run.events.iter().enumerate() {
        let exact = (k as f64 + 0.5) * std::f64::consts::PI;
        assert!((ev.t - exact).abs() < 1e-9, "crossing {k} at {} against {exact}", ev.t);
    }
    let (g, e, h0) = (9.81, 0.8, 1.0);
    let ball = hybrid_support::ball(g, e);
    let tight = hybrid_support::tight();
    let opts = tight.clone().ode(tight.ode.clone().scheme(Scheme::Rodas4));
    let sol = Hybrid(&ball).run(ModeState::new(0, Vector2::new(h0, 0.0))).span(0.0..3.0).options(&opts).go().unwrap();
    let exact = hybrid_support::ball_impacts(h0, g, e, sol.impacts.len());
    assert!(sol.impacts.len() >= 4);
    for (imp, t) in sol.impacts.iter().zip(exact) {
        assert!((imp.t - t).abs() < 1e-10, "impact at {} against {t}", imp.t);
    }
}
