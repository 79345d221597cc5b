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
    let sol = ball.run(ball.state([1.0], [0.0])).span(0.0..1.5).options(&opts).go().unwrap();
    assert!(sol.impacts.len() >= 2);
    let energy = ball.observe(&sol).column("energy").unwrap();
    let e0 = ball.m * ball.g;
    for ((t, _, _), e) in sol.iter().zip(&energy) {
        let bounces = sol.impacts.iter().filter(|i| i.t <= t).count() as i32;
        let expected = e0 * ball.e.powi(2 * bounces);
        // (At an impact's time both its samples are there: before and after.)
        let before = e0 * ball.e.powi(2 * (bounces - 1).max(0));
        assert!((e - expected).abs() < 1e-8 * e0 || (e - before).abs() < 1e-8 * e0, "t = {t}: {e} vs {expected}");
    }
}

/// A pendulum in Cartesian coordinates with its rod as a holonomic constraint: the rod's
/// multiplier and the energy as outputs.
#[derive(Mechanics)]
#[mechanics(
    coordinates(x, y),
    lagrangian = m / 2 * (dot(x).powi(2) + dot(y).powi(2)) - m * g * y,
    holonomic(rod = x.powi(2) + y.powi(2) - l.powi(2)),
    output(lam = multiplier(rod), e = energy()),
)]
struct RodPendulum {
    m: f64,
    g: f64,
    l: f64,
}

/// The guide's pushed ball on a unilateral floor: the floor's normal force as an output, in the
/// mode where the floor holds and (0) in flight.
#[derive(Mechanics)]
#[mechanics(
    coordinates(y),
    lagrangian = m / 2 * dot(y).powi(2) - m * g * y,
    force(y = c * t),
    unilateral(name = floor, guard = y, law = restitution(0)),
    output(normal = multiplier(floor), e = energy()),
)]
struct PushedBall {
    m: f64,
    g: f64,
    c: f64,
}

#[test]
fn constraint_forces_and_the_energy_are_outputs() {
    // The rod's multiplier is the tension T = m (g cos θ + l θ̇²) through Aᵀλ = 2λ(x, y) = −T(x, y)/l
    // (θ from the downward vertical), and E = ½ m |v|² + m g y is constant.
    let p = RodPendulum { m: 1.3, g: 9.81, l: 0.7 };
    let (th0, w0): (f64, f64) = (1.1, 0.4);
    let x0 = p.state([p.l * th0.sin(), -p.l * th0.cos()], [p.l * w0 * th0.cos(), p.l * w0 * th0.sin()]);
    let sol = p.run(x0).span(0.0..3.0).rtol(1e-12).atol(1e-13).output(Output::Interval(0.1)).go().unwrap();
    let obs = p.observe(&sol);
    let (lam, e) = (obs.column("lam").unwrap(), obs.column("e").unwrap());
    let e0 = p.energy(0.0, &x0);
    for ((x, l), e) in sol.states.iter().zip(lam).zip(e) {
        let th = x[0].atan2(-x[1]);
        let w = (x[0] * x[3] - x[1] * x[2]) / (p.l * p.l);
        let tension = p.m * (p.g * th.cos() + p.l * w * w);
        assert!((l + tension / (2.0 * p.l)).abs() < 1e-9 * tension.abs().max(1.0), "λ = {l}, T = {tension}");
        assert!((e - e0).abs() < 1e-9 * e0.abs(), "E = {e} vs {e0}");
    }
    // Resting on the floor the normal force is m g − c t until the push lifts the ball at
    // t* = m g / c; in flight the floor does not push (0).
    let b = PushedBall { m: 2.0, g: 9.81, c: 4.0 };
    let opts = HybridOptions::default().ode(Options::default().rtol(1e-12).atol(1e-13).output(Output::Interval(0.25)));
    let sol = b.run(b.floor_state([0.0], [0.0])).span(0.0..6.0).options(&opts).go().unwrap();
    assert_eq!(sol.mode_sequence(), vec![PushedBall::FLOOR, PushedBall::FREE]);
    let obs = b.observe(&sol);
    let (normal, e) = (obs.column("normal").unwrap(), obs.column("e").unwrap());
    let t_star = b.m * b.g / b.c;
    for (((t, mode, x), n), e) in sol.iter().zip(normal).zip(e) {
        let want = if mode == PushedBall::FLOOR { b.m * b.g - b.c * t } else { 0.0 };
        assert!((n - want).abs() < 1e-9, "t = {t}: normal {n} vs {want}");
        assert!((e - (0.5 * b.m * x[1] * x[1] + b.m * b.g * x[0])).abs() < 1e-12);
        assert!(mode == PushedBall::FLOOR || t >= t_star - 1e-9);
    }
}
