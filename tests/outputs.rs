//! Observables (`output(...)`): named functions of the state evaluated along a run after it —
//! by name, as CSV with named columns, and through serde. (The double pendulum's outputs are
//! tested with the model in `tests/physics.rs`; those of a multi-mode model in
//! `tests/completion.rs`.)

use routh::prelude::*;

/// A ball over the floor: the outputs of a model with impacts, along a hybrid run.
#[derive(Mechanics)]
#[mechanics(
    coordinates(y),
    lagrangian = m / 2 * dot(y).powi(2) - m * g * y,
    impact(name = floor, guard = y, law = restitution(e)),
    output(energy = m / 2 * dot(y).powi(2) + m * g * y),
)]
struct Ball {
    m: f64,
    g: f64,
    e: f64,
}

#[test]
fn outputs_follow_a_hybrid_run_across_its_impacts() {
    // The energy output keeps its value between impacts and drops by the factor e² at each.
    let ball = Ball { m: 2.0, g: 9.81, e: 0.8 };
    let opts = HybridOptions::default().rtol(1e-11).atol(1e-12);
    let sol = ball.simulate(ball.state([1.0], [0.0]), 0.0..1.5, &opts).unwrap();
    assert!(sol.impacts.len() >= 2);
    let energy = ball.observe(&sol.times, &sol.states).column("energy").unwrap();
    let e0 = ball.m * ball.g;
    for ((t, _, _), e) in sol.iter().zip(&energy) {
        let bounces = sol.impacts.iter().filter(|i| i.t <= t).count() as i32;
        let expected = e0 * ball.e.powi(2 * bounces);
        // (At an impact's time both its samples are there: before and after.)
        let before = e0 * ball.e.powi(2 * (bounces - 1).max(0));
        assert!((e - expected).abs() < 1e-8 * e0 || (e - before).abs() < 1e-8 * e0, "t = {t}: {e} vs {expected}");
    }
}
