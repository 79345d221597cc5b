//! Contact (Herglotz) Lagrangians L(t, q, q̇, z) with an action variable z (*Contact impulsive constraints*, `docs/references.md`): the generated Herglotz equations against closed forms and
//! against an independently hand-derived right-hand side, the energy law (G1), impacts that keep
//! q and z and change only q̇ (G2, G3), and the conservative limit (G6).
//!
//! Sign convention (erratum C6 of `docs/references.md`): L ∋ −γ z with γ > 0 gives the damping term −γ p in
//! the equations; the paper's +β z with β > 0 is anti-damping (erratum C6 (E13) of `docs/references.md`).

#[path = "../common/mod.rs"]
mod common;
mod cylinder;
mod sphere;

use common::{jacobian_fd, rel_err};
use routh::nalgebra::{SMatrix, Vector3};
use routh::prelude::*;
use routh::runtime::VectorField;

/// Linearly damped oscillator written as a contact Lagrangian: m ẍ + k x = −γ m ẋ.
#[derive(Mechanics)]
#[mechanics(
    coordinates(x),
    action(z),
    lagrangian = m / 2 * dot(x).powi(2) - k / 2 * x.powi(2) - gamma * z,
)]
struct DampedOscillator {
    m: f64,
    k: f64,
    gamma: f64,
}

/// The same oscillator as an ordinary Lagrangian (the conservative limit, G6).
#[derive(Mechanics)]
#[mechanics(coordinates(x), lagrangian = m / 2 * dot(x).powi(2) - k / 2 * x.powi(2))]
struct Oscillator {
    m: f64,
    k: f64,
}

/// A Lagrangian whose kinetic metric depends on the action, w(z) = 1 + z²/4, with a pendulum
/// potential and a forcing term: z does not decouple and every term of the general Herglotz
/// right-hand side (∂p/∂z · L included) is exercised.
#[derive(Mechanics)]
#[mechanics(
    coordinates(x),
    action(z),
    define(w = 1 + z.powi(2) / 4),
    lagrangian = w / 2 * dot(x).powi(2) + x.cos() - c * z,
    force(x = a * (t).sin()),
    jacobian,
)]
struct ActionMetric {
    c: f64,
    a: f64,
}

/// A contact planar pendulum with a z-dependent potential and a velocity force: z couples through
/// ∂L/∂z = −γ − κ x (non-constant) and the Jacobian has every block.
#[derive(Mechanics)]
#[mechanics(
    coordinates(th, r),
    action(s),
    lagrangian = m / 2 * (dot(r).powi(2) + (r * dot(th)).powi(2)) + m * g * r * th.cos() - k / 2 * (r - l).powi(2)
        - gamma * s - kappa * th * s,
    force(th = -b * dot(th)),
    sensitivity(m, g, k, l, gamma, kappa, b),
)]
struct SpringPendulum {
    m: f64,
    g: f64,
    k: f64,
    l: f64,
    gamma: f64,
    kappa: f64,
    b: f64,
}

/// A bouncing ball with contact damping: ÿ = −g − γ ẏ in flight, Newton's law at the floor.
#[derive(Mechanics)]
#[mechanics(
    coordinates(y),
    action(z),
    lagrangian = m / 2 * dot(y).powi(2) - m * g * y - gamma * z,
    impact(name = floor, guard = y, law = restitution(e)),
)]
struct DampedBall {
    m: f64,
    g: f64,
    gamma: f64,
    e: f64,
}

fn tight() -> Options {
    Options::default().rtol(1e-11).atol(1e-12)
}

fn hybrid_tight() -> HybridOptions {
    HybridOptions::default().rtol(1e-12).atol(1e-13)
}

#[test]
fn damped_oscillator_matches_its_closed_form_and_the_energy_law() {
    let p = DampedOscillator { m: 2.0, k: 8.0, gamma: 0.3 };
    assert_eq!(DampedOscillator::STATE_DIM, 3);
    const { assert!(DampedOscillator::ACTION_DECOUPLED, "L = T − V − γz: z decouples") };
    let (x0, v0, z0) = (1.0, 0.5, 0.25);
    let sol = p.run(p.state([x0], [v0], z0)).span(0.0..6.0).options(tight()).go().unwrap();
    // ẍ + γẋ + (k/m)x = 0: underdamped with ω_d = √(k/m − γ²/4).
    let (g, w0) = (p.gamma, (p.k / p.m).sqrt());
    let wd = (w0 * w0 - g * g / 4.0).sqrt();
    let (a, b) = (x0, (v0 + g / 2.0 * x0) / wd);
    let e0 = p.energy(0.0, &sol.states[0]);
    for (t, x) in sol.iter() {
        let exact = (-g * t / 2.0).exp() * (a * (wd * t).cos() + b * (wd * t).sin());
        assert!((x[0] - exact).abs() < 1e-9, "x({t}) = {} against {exact}", x[0]);
        // G1: E_L(t) = E_L(0) e^{−γt}, E_L = ½mẋ² + ½kx² + γz.
        let e = p.energy(t, x);
        assert!((e - e0 * (-g * t).exp()).abs() < 1e-9 * e0.abs().max(1.0), "E({t}) = {e}");
        assert!((p.lagrangian_dz(t, x) + g).abs() < 1e-15);
        let rate = p.energy_rate(t, x);
        assert!((rate + g * e).abs() < 1e-12 * e.abs().max(1.0));
    }
    // ż = L along the motion: z(t) − z(0) = ∫ L dt (trapezoid on a fine grid of the dense solution).
    let fine = p.run(p.state([x0], [v0], z0)).span(0.0..6.0).options(tight().output(Output::Interval(1e-3))).go().unwrap();
    let mut integral = 0.0;
    for k in 1..fine.len() {
        let (t0, t1) = (fine.times[k - 1], fine.times[k]);
        integral += 0.5 * (t1 - t0) * (p.lagrangian(t0, &fine.states[k - 1]) + p.lagrangian(t1, &fine.states[k]));
    }
    let (_, last) = fine.last().unwrap();
    assert!((last[2] - z0 - integral).abs() < 1e-6, "z − z₀ = {} against ∫L = {integral}", last[2] - z0);
}

#[test]
fn conservative_limit_reproduces_the_ordinary_lagrangian() {
    // G6: γ = 0 gives the same (q, q̇) as the Lagrangian without z, and a conserved energy.
    let c = DampedOscillator { m: 1.5, k: 3.0, gamma: 0.0 };
    let o = Oscillator { m: 1.5, k: 3.0 };
    let a = c.run(c.state([0.7], [-0.2], 3.0)).span(0.0..10.0).options(tight().output(Output::Interval(0.5))).go().unwrap();
    let b = o.run(o.state([0.7], [-0.2])).span(0.0..10.0).options(tight().output(Output::Interval(0.5))).go().unwrap();
    assert_eq!(a.len(), b.len());
    for ((t, xa), xb) in a.iter().zip(&b.states) {
        assert!((xa[0] - xb[0]).abs() < 1e-9 && (xa[1] - xb[1]).abs() < 1e-9, "t = {t}");
        // With γ = 0, E_L = E of the ordinary Lagrangian (the z term has coefficient 0).
        assert!((c.energy(t, xa) - o.energy(t, xb)).abs() < 1e-9);
    }
}

/// The Herglotz equations of `ActionMetric` derived by hand: with w = 1 + z²/4, p = w ẋ,
/// d/dt p = w′ ż ẋ + w ẍ, ∂L/∂x = −sin x, ∂L/∂z = w′ ẋ²/2 − c, ż = L:
/// w ẍ = −sin x − w′ L ẋ + w ẋ ∂L/∂z + a sin t.
fn action_metric_by_hand(p: &ActionMetric, t: f64, s: &Vector3<f64>) -> Vector3<f64> {
    let (x, v, z) = (s[0], s[1], s[2]);
    let w = 1.0 + z * z / 4.0;
    let dw = z / 2.0;
    let l = w / 2.0 * v * v + x.cos() - p.c * z;
    let dl_dz = dw * v * v / 2.0 - p.c;
    let acc = (-x.sin() - dw * l * v + w * v * dl_dz + p.a * t.sin()) / w;
    Vector3::new(v, acc, l)
}

#[test]
fn general_z_dependence_matches_a_hand_derivation() {
    let p = ActionMetric { c: 0.4, a: 0.3 };
    const { assert!(!ActionMetric::ACTION_DECOUPLED) };
    let mut rng = common::Rng::new(7);
    for _ in 0..20 {
        let x: Vector3<f64> = rng.vector(-1.5, 1.5);
        let t = rng.uniform(0.0, 3.0);
        let generated = p.field(t, &x).unwrap();
        let by_hand = action_metric_by_hand(&p, t, &x);
        assert!((generated - by_hand).norm() < 1e-13 * by_hand.norm().max(1.0), "{generated} against {by_hand}");
    }
    // Trajectories agree too (the closure is integrated by the same runtime).
    let x0 = p.state([0.4], [0.9], -0.5);
    let a = p.run(x0).span(0.0..5.0).options(tight().output(Output::Interval(0.25))).go().unwrap();
    let hand =
        |t: f64, s: &Vector3<f64>| -> Result<Vector3<f64>, routh::runtime::FieldError> { Ok(action_metric_by_hand(&p, t, s)) };
    let b = Flow(&hand).run(x0).span(0.0..5.0).options(tight().output(Output::Interval(0.25))).go().unwrap();
    for (xa, xb) in a.states.iter().zip(&b.states) {
        assert!((xa - xb).norm() < 1e-8);
    }
}

#[test]
fn energy_law_holds_with_state_dependent_rate_and_forces() {
    // G1 in general: d/dt E = ∂L/∂z · E + Q·q̇ − ∂L/∂t, integrated along the motion, against the
    // energy the solver reaches.
    let p = SpringPendulum { m: 1.0, g: 9.81, k: 40.0, l: 1.0, gamma: 0.2, kappa: 0.5, b: 0.1 };
    const { assert!(!SpringPendulum::ACTION_DECOUPLED, "∂L/∂s = −γ − κθ: s couples") };
    let x0 = p.state([0.8, 1.1], [0.0, 0.3], 0.0);
    let sol = p.run(x0).span(0.0..4.0).options(tight().output(Output::Interval(1e-3))).go().unwrap();
    let mut predicted = p.energy(0.0, &sol.states[0]);
    for k in 1..sol.len() {
        let (t0, t1) = (sol.times[k - 1], sol.times[k]);
        predicted += 0.5 * (t1 - t0) * (p.energy_rate(t0, &sol.states[k - 1]) + p.energy_rate(t1, &sol.states[k]));
        let e = p.energy(t1, &sol.states[k]);
        assert!((e - predicted).abs() < 1e-5 * predicted.abs().max(1.0), "E({t1}) = {e} against {predicted}");
    }
    // The rate is the Herglotz law: ∂L/∂s · E + Q·q̇.
    let (t, x) = sol.last().unwrap();
    let law = p.lagrangian_dz(t, x) * p.energy(t, x) + p.power(t, x);
    assert!((p.energy_rate(t, x) - law).abs() < 1e-12 * law.abs().max(1.0));
}

#[test]
fn contact_jacobian_matches_finite_differences() {
    let p = SpringPendulum { m: 1.3, g: 9.81, k: 20.0, l: 0.9, gamma: 0.2, kappa: 0.7, b: 0.3 };
    let q = ActionMetric { c: 0.4, a: 0.3 };
    let mut rng = common::Rng::new(11);
    for _ in 0..10 {
        let x: SVector<f64, 5> = rng.vector(-1.0, 1.0) + SVector::<f64, 5>::from([0.0, 1.5, 0.0, 0.0, 0.0]);
        let t = rng.uniform(0.0, 2.0);
        let exact = p.jacobian(t, &x).unwrap();
        let fd = jacobian_fd(&p, t, &x, 1e-6).unwrap();
        assert!(rel_err(&exact, &fd) < 1e-7, "{exact} against {fd}");
        let y: Vector3<f64> = rng.vector(-1.0, 1.0);
        let exact = q.jacobian(t, &y).unwrap();
        let fd = jacobian_fd(&q, t, &y, 1e-6).unwrap();
        assert!(rel_err(&exact, &fd) < 1e-7, "{exact} against {fd}");
    }
}

#[test]
fn impacts_keep_position_and_action_and_lose_carnots_energy() {
    let p = DampedBall { m: 0.5, g: 9.81, gamma: 0.1, e: 0.6 };
    let sol = p.run(p.state([1.0], [0.0], 0.0)).span(0.0..2.5).options(HybridOptions::default().ode(tight())).go().unwrap();
    assert!(sol.impacts.len() >= 2, "{} impacts", sol.impacts.len());
    for imp in &sol.impacts {
        // G2: q and z continuous, only q̇ jumps.
        assert_eq!(imp.pre[0], imp.post[0]);
        assert_eq!(imp.pre[2], imp.post[2], "the action jumps at an impact");
        // G3: Newton's law and the Carnot loss ΔE_L = −½(1 − e²) m ẏ⁻² (one row, fixed wall).
        assert!((imp.post[1] + p.e * imp.pre[1]).abs() < 1e-14);
        let loss = -0.5 * (1.0 - p.e * p.e) * p.m * imp.pre[1].powi(2);
        assert!(
            (imp.energy_jump() - loss).abs() < 1e-12 * loss.abs().max(imp.energy_before.abs()),
            "ΔE = {} against {loss}",
            imp.energy_jump()
        );
    }
    // G1 between impacts: E_L(t) = E_L(t_a) e^{−γ(t − t_a)} on each flight.
    let mut start = (sol.times[0], p.energy(sol.times[0], &sol.states[0]));
    for k in 1..sol.len() {
        let (t, x) = (sol.times[k], &sol.states[k]);
        if sol.times[k] == sol.times[k - 1] {
            start = (t, p.energy(t, x)); // the post-impact sample opens the next arc
            continue;
        }
        let expected = start.1 * (-p.gamma * (t - start.0)).exp();
        assert!((p.energy(t, x) - expected).abs() < 1e-8 * expected.abs().max(1.0), "E({t})");
    }
    // The first touchdown from rest at height 1 solves y(t) = 1 − (g/γ)t + (g/γ²)(1 − e^{−γt}) = 0.
    let y = |t: f64| 1.0 - p.g / p.gamma * t + p.g / p.gamma.powi(2) * (1.0 - (-p.gamma * t).exp());
    let t1 = sol.impacts[0].t;
    assert!(y(t1).abs() < 1e-9, "y(t₁) = {}", y(t1));
    // Reset Jacobian keeps z: ∂z⁺/∂x = (0, 0, 1).
    let jac = p.floor_reset_jacobian(t1, &sol.impacts[0].pre).unwrap();
    assert_eq!(jac.row(2).transpose(), Vector3::new(0.0, 0.0, 1.0));
    assert!((jac[(1, 1)] + p.e).abs() < 1e-14);
}

/// A damped pendulum released into free flight: the modes have different coordinates (θ, then
/// (x, y)), so the action sits at index 2 in one and 4 in the other; the chart change carries it.
#[derive(Mechanics)]
#[mechanics(
    action(z),
    mode(swing, coordinates(th), lagrangian = m / 2 * (l * dot(th)).powi(2) + m * g * l * th.cos() - gamma * z),
    mode(flight, coordinates(x, y), lagrangian = m / 2 * (dot(x).powi(2) + dot(y).powi(2)) - m * g * y - gamma * z),
    transition(swing -> flight, name = release, guard = th0 - th, law = reset(
        x = l * th.sin(),
        y = -l * th.cos(),
        dot(x) = l * th.cos() * dot(th),
        dot(y) = l * th.sin() * dot(th),
    )),
)]
struct Release {
    m: f64,
    g: f64,
    l: f64,
    gamma: f64,
    th0: f64,
}

#[test]
fn a_chart_change_carries_the_action_between_modes_of_different_dimension() {
    let p = Release { m: 0.7, g: 9.81, l: 1.2, gamma: 0.3, th0: 0.4 };
    assert_eq!(Release::STATE_DIM, 5);
    let sol = p.run(p.swing_state([-0.5], [0.0], 0.2)).span(0.0..2.0).options(hybrid_tight()).go().unwrap();
    assert_eq!(sol.mode_sequence(), vec![Release::SWING, Release::FLIGHT]);
    let rel = &sol.impacts[0];
    // The action moves from index 2 (θ, θ̇, z) to index 4 (x, y, ẋ, ẏ, z), unchanged; so does E_L.
    assert_eq!(rel.post[4], rel.pre[2]);
    assert!((rel.energy_after - rel.energy_before).abs() < 1e-12, "E_L jumps by {}", rel.energy_after - rel.energy_before);
    // The chart's Jacobian has the row ∂z⁺/∂x = e_z of the source state.
    let jac = p.swing().release_reset_jacobian(rel.t, &SVector::<f64, 3>::from([rel.pre[0], rel.pre[1], rel.pre[2]])).unwrap();
    assert_eq!(jac.row(4).transpose(), SVector::<f64, 3>::from([0.0, 0.0, 1.0]));
    // In flight the velocities decay as e^{−γt} toward the terminal velocity: ẋ(t) = ẋ₊ e^{−γ(t − t₁)},
    // ẏ(t) = (ẏ₊ + g/γ) e^{−γ(t − t₁)} − g/γ; and G1 holds with c = −γ.
    let (t, _, x) = sol.last().unwrap();
    let decay = (-p.gamma * (t - rel.t)).exp();
    assert!((x[2] - rel.post[2] * decay).abs() < 1e-9);
    assert!((x[3] - ((rel.post[3] + p.g / p.gamma) * decay - p.g / p.gamma)).abs() < 1e-9);
    assert!((p.flight().energy(t, x) - rel.energy_after * decay).abs() < 1e-9);
}

/// The damped ball with its floor written once as a unilateral constraint: bounces, settles by
/// Zeno completion, then rests while its action keeps integrating ż = L = −γz.
#[derive(Mechanics)]
#[mechanics(
    coordinates(y),
    action(z),
    lagrangian = m / 2 * dot(y).powi(2) - m * g * y - gamma * z,
    unilateral(name = floor, guard = y, law = restitution(e)),
)]
struct SettlingBall {
    m: f64,
    g: f64,
    gamma: f64,
    e: f64,
}

#[test]
fn a_contact_ball_settles_and_its_action_decays_at_rest() {
    let b = SettlingBall { m: 1.0, g: 9.81, gamma: 0.2, e: 0.5 };
    let sol = b.run(b.free_state([1.0], [0.0], 0.0)).span(0.0..4.0).options(hybrid_tight()).go().unwrap();
    assert_eq!(sol.stop, HybridStop::Finished);
    assert_eq!(sol.mode_sequence(), vec![SettlingBall::FREE, SettlingBall::FLOOR]);
    let settle = sol.impacts.last().unwrap();
    assert_eq!(settle.guard, "settle_floor");
    // At rest: y = ẏ = 0, the normal force is m g (the contact damping adds none), and
    // z(t) = z_s e^{−γ(t − t_s)}, so E_L = γz decays at the same rate (G1).
    let (t, _, x) = sol.last().unwrap();
    assert!(x[0].abs() < 1e-10 && x[1].abs() < 1e-10);
    let lam = b.floor().constraint_forces(t, x).unwrap()[0];
    assert!((lam - b.m * b.g).abs() < 1e-9, "λ = {lam}");
    let zs = settle.post[2];
    assert!((x[2] - zs * (-b.gamma * (t - settle.t)).exp()).abs() < 1e-9 * zs.abs().max(1.0), "z({t}) = {}", x[2]);
}

/// A planar contact oscillator with a cyclic angle and an action-dependent rate ∂L/∂z = −γ − κr.
#[derive(Mechanics)]
#[mechanics(
    coordinates(r, phi),
    action(z),
    lagrangian = m / 2 * (dot(r).powi(2) + (r * dot(phi)).powi(2)) - k / 2 * (r - l).powi(2) - gamma * z - kappa * r * z,
    symmetry(cyclic(phi)),
)]
struct DissipatedPlanar {
    m: f64,
    k: f64,
    l: f64,
    gamma: f64,
    kappa: f64,
}

#[test]
fn a_cyclic_momentum_of_a_contact_lagrangian_is_dissipated() {
    // G7: J = ∂L/∂φ̇ obeys dJ/dt = ∂L/∂z · J, so J(t) = J(0)·exp(∫ ∂L/∂z dt) — integrated here by the
    // trapezoid rule on a fine output, against the generated momentum and its rate.
    let p = DissipatedPlanar { m: 1.0, k: 20.0, l: 1.0, gamma: 0.1, kappa: 0.3 };
    let x0 = p.state([1.2, 0.0], [0.0, 1.5], 0.0);
    let sol = p.run(x0).span(0.0..5.0).options(tight().output(Output::Interval(1e-3))).go().unwrap();
    let j0 = p.phi_momentum(0.0, &sol.states[0]);
    let mut exponent = 0.0;
    for k in 1..sol.len() {
        let (t0, t1) = (sol.times[k - 1], sol.times[k]);
        exponent += 0.5 * (t1 - t0) * (p.lagrangian_dz(t0, &sol.states[k - 1]) + p.lagrangian_dz(t1, &sol.states[k]));
        let j = p.phi_momentum(t1, &sol.states[k]);
        assert!((j - j0 * exponent.exp()).abs() < 1e-6 * j0.abs(), "J({t1}) = {j} against {}", j0 * exponent.exp());
        let rate = p.phi_momentum_rate(t1, &sol.states[k]);
        assert!((rate - p.lagrangian_dz(t1, &sol.states[k]) * j).abs() < 1e-12 * j.abs().max(1.0));
    }
    assert!(exponent < -0.5, "a visible decay: ∫∂L/∂z = {exponent}");
}

/// An oscillator whose velocity is stopped when its action reaches a budget: a guard on z.
#[derive(Mechanics)]
#[mechanics(
    coordinates(x),
    action(z),
    lagrangian = dot(x).powi(2) / 2 - x.powi(2) / 2 + c * z,
    impact(name = budget, guard = zmax - z, law = map(dot(x) = 0)),
)]
struct Budget {
    c: f64,
    zmax: f64,
}

#[test]
fn a_guard_on_the_action_fires_when_the_action_reaches_it() {
    // dh/dt = −∂h/∂z · ż = −L: the guard's rate is generated with ż = L, and the impact happens where
    // an event on z located on a run without the guard says z reaches the budget.
    let b = Budget { c: 0.1, zmax: 0.2 };
    let x0 = b.state([0.0], [1.0], 0.0);
    let sol = b.run(x0).span(0.0..3.0).options(hybrid_tight()).go().unwrap();
    let hit = &sol.impacts[0];
    assert_eq!(hit.guard, "budget");
    assert!((hit.rate + b.lagrangian(hit.t, &hit.pre)).abs() < 1e-12, "rate {} against −L", hit.rate);
    assert_eq!(hit.post[1], 0.0);
    let free = DampedOscillator { m: 1.0, k: 1.0, gamma: -b.c };
    let ev = routh::runtime::Event::new("budget", |_t, x: &Vector3<f64>| 0.2 - x[2]).terminal(true);
    let reference = free.run(x0).span(0.0..3.0).events(&[ev]).options(tight()).go().unwrap();
    let (t_ref, _) = reference.last().unwrap();
    assert!((hit.t - t_ref).abs() < 1e-9, "impact at {} against z = z_max at {t_ref}", hit.t);
}

/// A contact pendulum in Cartesian coordinates (holonomic rod) and the same in its angle.
#[derive(Mechanics)]
#[mechanics(
    coordinates(x, y),
    action(z),
    lagrangian = m / 2 * (dot(x).powi(2) + dot(y).powi(2)) - m * g * y - gamma * z,
    holonomic(rod = x.powi(2) + y.powi(2) - l.powi(2)),
    sensitivity(m, g, l, gamma),
)]
struct CartesianContactPendulum {
    m: f64,
    g: f64,
    l: f64,
    gamma: f64,
}

#[derive(Mechanics)]
#[mechanics(coordinates(th), action(z), lagrangian = m / 2 * (l * dot(th)).powi(2) + m * g * l * th.cos() - gamma * z)]
struct AngleContactPendulum {
    m: f64,
    g: f64,
    l: f64,
    gamma: f64,
}

/// A particle whose height is driven at the speed v (an affine constraint dy − v dt), with contact
/// damping: the constraint does work, −λ·b.
#[derive(Mechanics)]
#[mechanics(
    coordinates(x, y),
    action(z),
    lagrangian = m / 2 * (dot(x).powi(2) + dot(y).powi(2)) - k / 2 * (x.powi(2) + y.powi(2)) - gamma * z,
    constraint(lift = dy - v * dt),
)]
struct Lifted {
    m: f64,
    k: f64,
    v: f64,
    gamma: f64,
}

#[test]
fn holonomic_and_affine_constraints_work_with_contact_lagrangians() {
    // Holonomic: the Cartesian contact pendulum follows the angle model (constrained vs the
    // coordinates that solve the constraint), its action included.
    let (m, g, l, gamma) = (1.3, 9.81, 0.8, 0.25);
    let cart = CartesianContactPendulum { m, g, l, gamma };
    let ang = AngleContactPendulum { m, g, l, gamma };
    let (th0, w0) = (1.0f64, 0.5);
    let xc = cart.state([l * th0.sin(), -l * th0.cos()], [l * th0.cos() * w0, l * th0.sin() * w0], 0.1);
    let a = cart.run(xc).span(0.0..4.0).options(tight()).go().unwrap();
    let b = ang.run(ang.state([th0], [w0], 0.1)).span(0.0..4.0).options(tight()).go().unwrap();
    let ((_, xa), (_, xb)) = (a.last().unwrap(), b.last().unwrap());
    assert!((xa[0].atan2(-xa[1]) - xb[0]).abs() < 1e-8, "θ: {} against {}", xa[0].atan2(-xa[1]), xb[0]);
    assert!((xa[4] - xb[2]).abs() < 1e-8, "z: {} against {}", xa[4], xb[2]);
    assert!(cart.position_residuals(4.0, xa).amax() < 1e-10);
    // G5: the rod's tension does not depend on γ at a given (q, q̇).
    let undamped = CartesianContactPendulum { gamma: 0.0, ..cart };
    let (la, lb) = (cart.constraint_forces(4.0, xa).unwrap(), undamped.constraint_forces(4.0, xa).unwrap());
    assert!((la - lb).amax() < 1e-12, "λ = {la} against {lb} at γ = 0");

    // Affine: dE/dt = ∂L/∂z · E + Q·q̇ − λ·b, checked by quadrature along the motion.
    let p = Lifted { m: 1.0, k: 4.0, v: 0.7, gamma: 0.3 };
    let sol =
        p.run(p.state([1.0, 0.0], [0.0, 0.7], 0.0)).span(0.0..3.0).options(tight().output(Output::Interval(1e-3))).go().unwrap();
    let rate = |k: usize| p.energy_rate(sol.times[k], &sol.states[k]) + p.constraint_power(sol.times[k], &sol.states[k]).unwrap();
    let mut predicted = p.energy(0.0, &sol.states[0]);
    for k in 1..sol.len() {
        predicted += 0.5 * (sol.times[k] - sol.times[k - 1]) * (rate(k - 1) + rate(k));
    }
    let (t, x) = sol.last().unwrap();
    assert!((p.energy(t, x) - predicted).abs() < 1e-6, "E({t}) = {} against {predicted}", p.energy(t, x));
    assert!((x[1] - 0.7 * t).abs() < 1e-9, "y = v t");
    assert!(p.constraint_power(t, x).unwrap().abs() > 0.1, "the moving constraint does work");
}

#[test]
fn parameter_jacobian_of_a_contact_model_matches_finite_differences() {
    // ∂F/∂p including the row of ż = L (∂L/∂p), against perturbed struct fields.
    let p = SpringPendulum { m: 1.3, g: 9.81, k: 20.0, l: 0.9, gamma: 0.2, kappa: 0.7, b: 0.3 };
    assert_eq!(SpringPendulum::SENSITIVITY, ["m", "g", "k", "l", "gamma", "kappa", "b"]);
    let x = SVector::<f64, 5>::from([0.4, 1.1, -0.3, 0.2, 0.6]);
    let exact = p.parameter_jacobian(0.5, &x).unwrap();
    let h = 1e-6;
    let field = |k: usize, d: f64| {
        let mut q = SpringPendulum { ..p };
        let f = [&mut q.m, &mut q.g, &mut q.k, &mut q.l, &mut q.gamma, &mut q.kappa, &mut q.b];
        *f.into_iter().nth(k).unwrap() += d;
        q.field(0.5, &x).unwrap()
    };
    let fd = SMatrix::<f64, 5, 7>::from_fn(|r, c| (field(c, h)[r] - field(c, -h)[r]) / (2.0 * h));
    assert!(rel_err(&exact, &fd) < 1e-7, "{exact} against {fd}");
    assert!(exact.row(4).amax() > 0.1, "the action's row ∂L/∂p is there");
}

#[test]
fn parameter_jacobian_of_a_constrained_contact_model_matches_finite_differences() {
    // The implicit function theorem on the saddle-point residual, plus the action's row.
    let p = CartesianContactPendulum { m: 1.3, g: 9.81, l: 0.8, gamma: 0.25 };
    let x = p.state([0.5, -0.6245], [0.3, 0.2], 0.4);
    let exact = p.parameter_jacobian(0.0, &x).unwrap();
    let h = 1e-6;
    let field = |k: usize, d: f64| {
        let mut q = CartesianContactPendulum { ..p };
        let f = [&mut q.m, &mut q.g, &mut q.l, &mut q.gamma];
        *f.into_iter().nth(k).unwrap() += d;
        q.field(0.0, &x).unwrap()
    };
    let fd = SMatrix::<f64, 5, 4>::from_fn(|r, c| (field(c, h)[r] - field(c, -h)[r]) / (2.0 * h));
    assert!(rel_err(&exact, &fd) < 1e-7, "{exact} against {fd}");
}

#[test]
fn a_contact_hybrid_run_writes_csv_with_its_state_names() {
    let p = DampedBall { m: 0.5, g: 9.81, gamma: 0.1, e: 0.6 };
    assert_eq!(DampedBall::STATE_NAMES, ["y", "dot(y)", "z"]);
    let sol = p.run(p.state([1.0], [0.0], 0.0)).span(0.0..1.0).go().unwrap();
    let mut csv = Vec::new();
    sol.write_csv(&mut csv, &DampedBall::STATE_NAMES).unwrap();
    let text = String::from_utf8(csv).unwrap();
    assert_eq!(text.lines().next(), Some("t,mode,y,dot(y),z"));
    assert_eq!(text.lines().count(), 1 + sol.len());
}

#[test]
fn the_contact_pendulum_linearises_on_its_circle_with_herglotz_damping() {
    // At the bottom, in the horizontal position x: m ẍ + m γ ẋ + m g/l x = 0 — the contact
    // Lagrangian's −γ z is the damping m γ; the action is kept as a state and does not act back.
    use routh::runtime::linearize::Selection;
    let (m, g, l, gamma) = (1.5, 9.81, 0.8, 0.3);
    let d = CartesianContactPendulum { m, g, l, gamma };
    let selection = Selection::new().coordinates(["x"]).velocities(["x"]);
    let lin = d.linearize_constrained(0.0, &d.state([0.0, -l], [0.0, 0.0], 0.0), &selection).unwrap();
    assert_eq!(lin.states, ["x", "dot(x)", "z"]);
    let mech = lin.mechanical.unwrap();
    let close = |a: f64, b: f64| (a - b).abs() < 1e-12 * b.abs().max(1.0);
    assert!(
        close(mech.mass[(0, 0)], m) && close(mech.stiffness[(0, 0)], m * g / l) && close(mech.damping[(0, 0)], m * gamma),
        "{mech:?}"
    );
    // ẍ does not depend on z; the (x, ẋ) block has the damped oscillator's eigenvalues.
    assert!(lin.a[(1, 2)].abs() < 1e-12, "{}", lin.a);
    let w2 = g / l - gamma * gamma / 4.0;
    let block = lin.a.view((0, 0), (2, 2)).into_owned();
    for ev in block.complex_eigenvalues().iter() {
        assert!((ev.re + gamma / 2.0).abs() < 1e-12 && (ev.im.abs() - w2.sqrt()).abs() < 1e-12, "{ev}");
    }
}
