//! Observables (`output(...)`): named functions of the state evaluated along a run after it —
//! by name, as CSV with named columns, and through serde.

use routh::prelude::*;

/// The showcase's double pendulum with its lower bob's position and speed as outputs.
#[derive(Mechanics)]
#[mechanics(
    coordinates(th1, th2),
    define(
        x1 = l1 * th1.sin(),           y1 = -l1 * th1.cos(),
        x2 = x1 + l2 * th2.sin(),      y2 = y1 - l2 * th2.cos(),
    ),
    lagrangian = m1 / 2 * (dot(x1).powi(2) + dot(y1).powi(2))
               + m2 / 2 * (dot(x2).powi(2) + dot(y2).powi(2))
               - g * (m1 * y1 + m2 * y2),
    output(bob = [x2, y2, 0], speed = (dot(x2).powi(2) + dot(y2).powi(2)).sqrt(), elbow = th2 - th1),
)]
struct DoublePendulum {
    m1: f64,
    m2: f64,
    l1: f64,
    l2: f64,
    g: f64,
}

#[test]
fn outputs_are_the_state_functions_they_name_at_every_sample() {
    let p = DoublePendulum { m1: 1.0, m2: 2.0, l1: 1.0, l2: 0.7, g: 9.81 };
    let sol = p.simulate(p.state([1.0, 0.5], [0.3, -0.2]), 0.0..3.0, &Options::default().output(Output::Interval(0.1))).unwrap();
    assert_eq!(DoublePendulum::OUTPUTS, ["bob[0]", "bob[1]", "bob[2]", "speed", "elbow"]);
    let obs = p.observe(&sol.times, &sol.states);
    assert_eq!(obs.times, sol.times);
    let (bx, by, speed, elbow) = (
        obs.column("bob[0]").unwrap(),
        obs.column("bob[1]").unwrap(),
        obs.column("speed").unwrap(),
        obs.column("elbow").unwrap(),
    );
    assert!(obs.column("bob[3]").is_none() && obs.column("x2").is_none());
    for (k, x) in sol.states.iter().enumerate() {
        let (a, b, da, db) = (x[0], x[1], x[2], x[3]);
        let (px, py) = (p.l1 * a.sin() + p.l2 * b.sin(), -p.l1 * a.cos() - p.l2 * b.cos());
        let (vx, vy) = (p.l1 * a.cos() * da + p.l2 * b.cos() * db, p.l1 * a.sin() * da + p.l2 * b.sin() * db);
        assert!((bx[k] - px).abs() < 1e-14 && (by[k] - py).abs() < 1e-14, "bob at {}", sol.times[k]);
        assert!((speed[k] - vx.hypot(vy)).abs() < 1e-13 && (elbow[k] - (b - a)).abs() < 1e-15);
        assert_eq!(obs.values[k][2], 0.0);
    }
    // CSV with the outputs' names as columns.
    let mut csv = Vec::new();
    obs.write_csv(&mut csv).unwrap();
    let text = String::from_utf8(csv).unwrap();
    assert_eq!(text.lines().next(), Some("t,bob[0],bob[1],bob[2],speed,elbow"));
    assert_eq!(text.lines().count(), sol.len() + 1);
    // And serde, both ways.
    let back: routh::runtime::observables::Observables = serde_json::from_str(&serde_json::to_string(&obs).unwrap()).unwrap();
    assert_eq!(back, obs);
}

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

#[test]
fn generated_models_run_with_the_eighth_order_pair() {
    // Options::scheme(Scheme::Dop853) through the generated `simulate`: the conservative double
    // pendulum keeps its energy to the tolerance with well under half of DOPRI5's evaluations.
    use routh::runtime::Scheme;
    let p = DoublePendulum { m1: 1.0, m2: 2.0, l1: 1.0, l2: 0.7, g: 9.81 };
    let x0 = p.state([1.0, 0.5], [0.3, -0.2]);
    let e0 = p.energy(0.0, &x0);
    let run = |scheme: Scheme| {
        let sol = p.simulate(x0, 0.0..10.0, &Options::default().scheme(scheme).rtol(1e-12).atol(1e-14)).unwrap();
        let drift = sol.iter().fold(0.0f64, |d, (t, x)| d.max((p.energy(t, x) - e0).abs() / e0.abs()));
        (drift, sol.stats.evaluations)
    };
    let ((d5, n5), (d8, n8)) = (run(Scheme::Dopri5), run(Scheme::Dop853));
    println!("double pendulum, 10 s at rtol 1e-12: DOPRI5 {n5} evaluations (drift {d5:.1e}), DOP853 {n8} ({d8:.1e})");
    assert!(d8 < 1e-10 && d5 < 1e-10, "{d8:e} {d5:e}");
    assert!(2 * n8 < n5, "{n8} against {n5}");
}
