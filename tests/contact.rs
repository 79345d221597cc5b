//! Contact (Herglotz) Lagrangians L(t, q, q̇, z) with an action variable z (*Contact impulsive constraints*, `docs/references.md`): the generated Herglotz equations against closed forms and
//! against an independently hand-derived right-hand side, the energy law (G1), impacts that keep
//! q and z and change only q̇ (G2, G3), and the conservative limit (G6).
//!
//! Sign convention (erratum C6 of `docs/references.md`): L ∋ −γ z with γ > 0 gives the damping term −γ p in
//! the equations; the paper's +β z with β > 0 is anti-damping (erratum C6 (E13) of `docs/references.md`).

mod common;

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

#[test]
fn damped_oscillator_matches_its_closed_form_and_the_energy_law() {
    let p = DampedOscillator { m: 2.0, k: 8.0, gamma: 0.3 };
    assert_eq!(DampedOscillator::STATE_DIM, 3);
    const { assert!(DampedOscillator::ACTION_DECOUPLED, "L = T − V − γz: z decouples") };
    let (x0, v0, z0) = (1.0, 0.5, 0.25);
    let sol = p.simulate(p.state([x0], [v0], z0), 0.0..6.0, &tight()).unwrap();
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
    let fine = p.simulate(p.state([x0], [v0], z0), 0.0..6.0, &tight().output(Output::Interval(1e-3))).unwrap();
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
    let a = c.simulate(c.state([0.7], [-0.2], 3.0), 0.0..10.0, &tight().output(Output::Interval(0.5))).unwrap();
    let b = o.simulate(o.state([0.7], [-0.2]), 0.0..10.0, &tight().output(Output::Interval(0.5))).unwrap();
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
    let a = p.simulate(x0, 0.0..5.0, &tight().output(Output::Interval(0.25))).unwrap();
    let hand =
        |t: f64, s: &Vector3<f64>| -> Result<Vector3<f64>, routh::runtime::FieldError> { Ok(action_metric_by_hand(&p, t, s)) };
    let b = routh::runtime::integrate(&hand, 0.0..5.0, x0, &[], &tight().output(Output::Interval(0.25))).unwrap();
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
    let sol = p.simulate(x0, 0.0..4.0, &tight().output(Output::Interval(1e-3))).unwrap();
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
    let sol = p.simulate(p.state([1.0], [0.0], 0.0), 0.0..2.5, &HybridOptions { ode: tight(), ..Default::default() }).unwrap();
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

/// The rolling eccentric cylinder on a spring-supported plane (*Contact impulsive constraints* §3.1 and
/// §4): q = (x, y, φ, h), the cylinder's centre of mass, its angle and the plane's displacement;
/// the external force linear in the velocities is the paper's +βz (β > 0 feeds energy in, E13).
/// Aerial phase: free; touchdown on Ψ = y − h − γ cos φ − r (erratum E5: the printed r sin ψ is
/// r cos ψ at ψ = π) projects onto the rolling constraints (Example 2, eq. 21, with ω² as the
/// paper's one-form: E8/E15 — the printed matrix row has the wrong sign); stance: rolling, the
/// plane moving with the cylinder; liftoff when the normal multiplier μ₂ falls through zero (E24:
/// only the normal force must push).
#[derive(Mechanics)]
#[mechanics(
    coordinates(x, y, phi, h),
    action(z),
    lagrangian = m / 2 * (dot(x).powi(2) + dot(y).powi(2)) + mp / 2 * dot(h).powi(2) + i / 2 * dot(phi).powi(2)
        - k / 2 * h.powi(2) - m * g * y - mp * g * h + beta * z,
    mode(aerial),
    mode(stance, constraint(roll = dx - (r + gamma * phi.cos()) * dphi, normal = dy - dh + gamma * phi.sin() * dphi)),
    transition(aerial -> stance, name = touchdown, guard = y - h - gamma * phi.cos() - r, law = project),
    transition(stance -> aerial, name = liftoff, guard = multiplier(normal), law = map()),
)]
struct Cylinder {
    m: f64,
    mp: f64,
    i: f64,
    r: f64,
    gamma: f64,
    k: f64,
    g: f64,
    beta: f64,
}

/// The same cylinder with the frictionless Newton impact of §3.2 on Ψ (eq. 13; the velocity
/// jumps of reference run R5 with erratum C5's denominator 1/m + 1/M + γ² sin²φ / I).
#[derive(Mechanics)]
#[mechanics(
    coordinates(x, y, phi, h),
    action(z),
    lagrangian = m / 2 * (dot(x).powi(2) + dot(y).powi(2)) + mp / 2 * dot(h).powi(2) + i / 2 * dot(phi).powi(2)
        - k / 2 * h.powi(2) - m * g * y - mp * g * h + beta * z,
    impact(name = ground, guard = y - h - gamma * phi.cos() - r, law = restitution(alpha)),
)]
struct NewtonCylinder {
    m: f64,
    mp: f64,
    i: f64,
    r: f64,
    gamma: f64,
    k: f64,
    g: f64,
    beta: f64,
    alpha: f64,
}

/// The parameters and initial state of reference run R5 (`docs/references.md`).
fn cylinder(beta: f64) -> Cylinder {
    Cylinder { m: 1.0, mp: 5.0, i: 0.1, r: 0.5, gamma: 0.1, k: 100.0, g: 9.81, beta }
}

fn cylinder_start(c: &Cylinder) -> ([f64; 4], [f64; 4]) {
    let h0 = -c.mp * c.g / c.k;
    let phi0: f64 = 0.3;
    ([0.0, h0 + c.r + c.gamma * phi0.cos() + 0.5, phi0, h0], [0.5, 0.0, 2.0, 0.0])
}

fn hybrid_tight() -> HybridOptions {
    HybridOptions::default().rtol(1e-12).atol(1e-13)
}

#[test]
fn cylinder_touchdown_and_projection_match_the_reference_run() {
    // (β, t₁, φ(t₁), E_L(t₁⁻), q̇⁻, dΨ(q̇⁻), q̇⁺, ΔT) from reference run R5.
    let table = [
        (
            0.05,
            0.3304925264,
            0.9664765248,
            -5.8652571871,
            [0.5083309566, -3.2690673543, 2.0333238262, 0.0],
            -3.1017474184,
            [0.9517900152, -0.6620603220, 1.7093308273, -0.5214014065],
            -4.1814679413,
        ),
        (
            -0.05,
            0.3321273431,
            0.9587696617,
            -5.6741191691,
            [0.4917653792, -3.2312651904, 1.9670615169, 0.0],
            -3.0702640919,
            [0.9255312363, -0.6517875396, 1.6602864496, -0.5158955302],
            -4.0910049271,
        ),
    ];
    for (beta, t1, phi1, e_pre, v_pre, dpsi, v_post, dt_kin) in table {
        let c = cylinder(beta);
        let (q0, v0) = cylinder_start(&c);
        let x0 = c.aerial_state(q0, v0, 0.0);
        assert!((c.aerial().energy(0.0, &x0) + 5.7691324042).abs() < 1e-9, "E_L(0)");
        let sol = c.simulate(Cylinder::AERIAL, x0, 0.0..t1 + 1e-3, &hybrid_tight()).unwrap();
        let td = &sol.impacts[0];
        assert_eq!((td.guard, td.mode_after), ("touchdown", Cylinder::STANCE));
        assert!((td.t - t1).abs() < 1e-9, "β = {beta}: t₁ = {} against {t1}", td.t);
        assert!((td.pre[2] - phi1).abs() < 1e-8, "φ(t₁)");
        assert!((td.energy_before - e_pre).abs() < 1e-8, "E_L(t₁⁻) = {}", td.energy_before);
        // G1 on the aerial arc: E_L(t₁⁻) = E_L(0) e^{βt₁}.
        assert!((td.energy_before - c.aerial().energy(0.0, &x0) * (beta * td.t).exp()).abs() < 1e-9);
        for j in 0..4 {
            assert!((td.pre[4 + j] - v_pre[j]).abs() < 1e-8, "q̇⁻[{j}] = {} against {}", td.pre[4 + j], v_pre[j]);
            assert!((td.post[4 + j] - v_post[j]).abs() < 1e-8, "q̇⁺[{j}] = {} against {}", td.post[4 + j], v_post[j]);
        }
        let (s, co) = td.pre[2].sin_cos();
        let d_psi = td.pre[5] - td.pre[7] + c.gamma * s * td.pre[6];
        assert!((d_psi - dpsi).abs() < 1e-8, "dΨ(q̇⁻) = {d_psi}");
        // G2: q and z kept; G4: the rolling constraints hold after the projection, ΔE_L = ΔT.
        for j in [0, 1, 2, 3, 8] {
            assert_eq!(td.pre[j], td.post[j]);
        }
        let roll = td.post[4] - (c.r + c.gamma * co) * td.post[6];
        let normal = td.post[5] - td.post[7] + c.gamma * s * td.post[6];
        assert!(roll.abs() < 1e-13 && normal.abs() < 1e-13, "ψ q̇⁺ = ({roll}, {normal})");
        assert!((td.energy_jump() - dt_kin).abs() < 1e-8, "ΔT = {} against {dt_kin}", td.energy_jump());
        // ΔE_L = −T(Δq̇) (Carnot for eq. 21) with T the kinetic energy of the jump.
        let dv: Vec<f64> = (0..4).map(|j| td.post[4 + j] - td.pre[4 + j]).collect();
        let t_jump = 0.5 * (c.m * (dv[0].powi(2) + dv[1].powi(2)) + c.i * dv[2].powi(2) + c.mp * dv[3].powi(2));
        assert!((td.energy_jump() + t_jump).abs() < 1e-12);
        // C3: p·v kept for v ∈ D₊: p_y + p_h and p_φ + (r + γ cos φ) p_x − γ sin φ p_y.
        let pv1 = |x: &SVector<f64, 9>| c.m * x[5] + c.mp * x[7];
        let pv2 = |x: &SVector<f64, 9>| c.i * x[6] + (c.r + c.gamma * co) * c.m * x[4] - c.gamma * s * c.m * x[5];
        assert!((pv1(&td.post) - pv1(&td.pre)).abs() < 1e-12 && (pv2(&td.post) - pv2(&td.pre)).abs() < 1e-12);
        if beta > 0.0 {
            assert!((pv1(&td.pre) + 3.2690673543).abs() < 1e-8 && (pv2(&td.pre) - 0.7553892360).abs() < 1e-8);
        }
        // Idempotent: projecting the post-impact state again changes nothing.
        let again = c.aerial().touchdown_reset(td.t, &td.post).unwrap();
        assert!((again - td.post).amax() < 1e-14);
    }
}

#[test]
fn newton_impact_on_the_cylinder_loses_carnots_energy() {
    // Newton ΔE for α = 1, 0.5, 0 (reference run R5), with ẋ and p_y + p_h kept (C2).
    let table = [(0.05, [0.0, -2.8459196649, -3.7945595532]), (-0.05, [0.0, -2.7900303179, -3.7200404239])];
    for (beta, losses) in table {
        for (alpha, loss) in [1.0, 0.5, 0.0].into_iter().zip(losses) {
            let c = cylinder(beta);
            let n = NewtonCylinder { m: c.m, mp: c.mp, i: c.i, r: c.r, gamma: c.gamma, k: c.k, g: c.g, beta, alpha };
            let (q0, v0) = cylinder_start(&c);
            let opts = HybridOptions { max_impacts: 1, ..hybrid_tight() };
            let sol = n.simulate(n.state(q0, v0, 0.0), 0.0..0.4, &opts).unwrap();
            let imp = &sol.impacts[0];
            assert!(
                (imp.energy_jump() - loss).abs() < 1e-8,
                "β = {beta}, α = {alpha}: ΔE = {} against {loss}",
                imp.energy_jump()
            );
            // G3: dΨ(q̇⁺) = −α dΨ(q̇⁻).
            let s = imp.pre[2].sin();
            let d_psi = |x: &SVector<f64, 9>| x[5] - x[7] + c.gamma * s * x[6];
            assert!((d_psi(&imp.post) + alpha * d_psi(&imp.pre)).abs() < 1e-13);
            assert_eq!(imp.post[4], imp.pre[4], "ẋ kept");
            assert!(((c.m * imp.post[5] + c.mp * imp.post[7]) - (c.m * imp.pre[5] + c.mp * imp.pre[7])).abs() < 1e-12);
            assert_eq!(imp.pre[8], imp.post[8], "z kept");
        }
    }
}

#[test]
fn cylinder_stance_energy_and_multipliers_match_the_reference_run() {
    // C4 (β = +0.05, from the Example-2 post-impact state): E_L(t₁⁺), E_L(t₁ + 0.5), μ₁ and μ₂.
    let c = cylinder(0.05);
    let (q0, v0) = cylinder_start(&c);
    let sol = c.simulate(Cylinder::AERIAL, c.aerial_state(q0, v0, 0.0), 0.0..0.3304925264 + 0.5, &hybrid_tight()).unwrap();
    assert_eq!(sol.mode_sequence(), vec![Cylinder::AERIAL, Cylinder::STANCE], "no liftoff");
    let td = &sol.impacts[0];
    let stance = c.stance();
    assert!((td.energy_after + 10.0467251288).abs() < 1e-8, "E_L(t₁⁺) = {}", td.energy_after);
    let mu = stance.constraint_forces(td.t, &td.post).unwrap();
    assert!((mu[0] - 0.8247466).abs() < 1e-6 && (mu[1] - 7.9054716).abs() < 1e-6, "μ(t₁⁺) = {mu}");
    let (t, _, x) = sol.last().unwrap();
    let e = stance.energy(t, x);
    assert!((e + 10.3010591863).abs() < 1e-8, "E_L(t₁ + 0.5) = {e}");
    assert!((e - td.energy_after * (c.beta * (t - td.t)).exp()).abs() < 1e-9, "G1 on the stance arc");
    let mu = stance.constraint_forces(t, x).unwrap();
    assert!((mu[0] - 1.1682).abs() < 1e-4 && (mu[1] - 12.7222).abs() < 1e-4, "μ(t₁ + 0.5) = {mu}");
    assert!(stance.velocity_residuals(t, x).amax() < 1e-10, "rolling residuals");
    // G5: the multipliers do not depend on the coefficient of z (same (q, q̇), β = 0).
    let c0 = cylinder(0.0);
    let mu0 = c0.stance().constraint_forces(t, x).unwrap();
    assert!((mu0 - mu).amax() < 1e-12, "μ(β = 0) = {mu0} against {mu}");
    // The closed form (derived; the printed μ's are erratum C4).
    let (s, co) = x[2].sin_cos();
    let (m, mp, i, r, g, k) = (c.m, c.mp, c.i, c.r, c.gamma, c.k);
    let (dphi, h) = (x[6], x[3]);
    let j = i + m * (r + g * co).powi(2);
    let delta = (m + mp) * j + m * mp * g * g * s * s;
    let mu2 = -m * (mp * g * dphi * dphi * (i * co + m * (r + g * co) * (g + r * co)) + k * h * j) / delta;
    let mu1 = m * (r + g * co) * g * s * (m * (r + g * co) * dphi * dphi + mu2) / j - m * g * s * dphi * dphi;
    // (Gravity cancels: it moves the cylinder and the plane alike; it enters through h.)
    assert!((mu[0] - mu1).abs() < 1e-10 && (mu[1] - mu2).abs() < 1e-10, "μ = {mu} against the closed form ({mu1}, {mu2})");
}

/// The stance phase in the coordinates (φ, h) that solve the rolling constraints (a
/// "holonomic shortcut"): x = γ sin φ + rφ + x₀ and y = h + r + γ cos φ.
#[derive(Mechanics)]
#[mechanics(
    coordinates(phi, h),
    action(z),
    define(xc = gamma * phi.sin() + r * phi, yc = h + r + gamma * phi.cos()),
    lagrangian = m / 2 * (dot(xc).powi(2) + dot(yc).powi(2)) + mp / 2 * dot(h).powi(2) + i / 2 * dot(phi).powi(2)
        - k / 2 * h.powi(2) - m * g * yc - mp * g * h + beta * z,
)]
struct RollingCylinder {
    m: f64,
    mp: f64,
    i: f64,
    r: f64,
    gamma: f64,
    k: f64,
    g: f64,
    beta: f64,
}

#[test]
fn cylinder_stance_agrees_with_the_coordinates_that_solve_the_constraints() {
    for beta in [0.05, -0.05] {
        let c = cylinder(beta);
        let (q0, v0) = cylinder_start(&c);
        let span = 0.0..0.3304925264 + 1.5;
        let sol = c.simulate(Cylinder::AERIAL, c.aerial_state(q0, v0, 0.0), span.clone(), &hybrid_tight()).unwrap();
        let td = &sol.impacts[0];
        let rc = RollingCylinder { m: c.m, mp: c.mp, i: c.i, r: c.r, gamma: c.gamma, k: c.k, g: c.g, beta };
        let x1 = rc.state([td.post[2], td.post[3]], [td.post[6], td.post[7]], td.post[8]);
        let reduced = rc.simulate(x1, td.t..span.end, &tight()).unwrap();
        let (t, _, full) = sol.last().unwrap();
        let (tr, red) = reduced.last().unwrap();
        assert_eq!(t, tr);
        let pairs = [(full[2], red[0]), (full[3], red[1]), (full[6], red[2]), (full[7], red[3]), (full[8], red[4])];
        for (k, (a, b)) in pairs.into_iter().enumerate() {
            assert!((a - b).abs() < 1e-8 * b.abs().max(1.0), "β = {beta}, component {k}: {a} against {b}");
        }
        // The energies agree too (E_L of the constrained model on the manifold is E_L of L_N).
        assert!((c.stance().energy(t, full) - rc.energy(t, red)).abs() < 1e-8);
    }
}

#[test]
fn cylinder_lifts_off_where_the_normal_multiplier_vanishes() {
    // C5 with a concentric cylinder (γ = 0) on a compressed plane: in stance the cylinder rides the
    // plane, (m + M) ḧ − (m + M) β ḣ + k h + (m + M) g = 0, and the normal force is
    // μ₂ = −m k h / (m + M) (gravity cancels, and μ₂ does not depend on β, G5): it vanishes when
    // the spring passes its natural length h = 0, where h(t) = h_eq + e^{βt/2}(A cos ω t + B sin ω t).
    for beta in [-0.05, 0.0, 0.05] {
        let c = Cylinder { gamma: 0.0, ..cylinder(beta) };
        let mass = c.m + c.mp;
        let h_eq = -mass * c.g / c.k;
        let (a, w) = (-0.8, (c.k / mass - beta * beta / 4.0).sqrt());
        let b = -beta * a / (2.0 * w);
        let h = |t: f64| h_eq + (beta * t / 2.0).exp() * (a * (w * t).cos() + b * (w * t).sin());
        // The first zero of h: bisection between the start (h < 0) and the first maximum (h > 0).
        let (mut lo, mut hi) = (0.0, std::f64::consts::PI / w);
        assert!(h(lo) < 0.0 && h(hi) > 0.0);
        for _ in 0..200 {
            let mid = 0.5 * (lo + hi);
            if h(mid) < 0.0 { lo = mid } else { hi = mid }
        }
        let h0 = h_eq + a;
        let x0 = c.stance_state([0.0, h0 + c.r, 0.0, h0], [c.r * 1.0, 0.0, 1.0, 0.0], 0.0);
        let sol = c.simulate(Cylinder::STANCE, x0, 0.0..1.5, &hybrid_tight()).unwrap();
        assert_eq!(&sol.mode_sequence()[..2], &[Cylinder::STANCE, Cylinder::AERIAL]);
        let liftoff = &sol.impacts[0];
        assert_eq!(liftoff.guard, "liftoff");
        assert!((liftoff.t - lo).abs() < 1e-9, "β = {beta}: liftoff at {} against h = 0 at {lo}", liftoff.t);
        assert_eq!(liftoff.post, liftoff.pre, "released without an impulse");
        let mu = c.stance().constraint_forces(liftoff.t, &liftoff.pre).unwrap();
        assert!(mu[1].abs() < 1e-7, "μ₂ at liftoff = {}", mu[1]);
    }
}

/// A homogeneous sphere (mass 1, radius r, radius of gyration k) with contact damping −βZ, on a
/// plane that is smooth for x < 0 and absolutely rough for x > 0 (*Contact impulsive constraints*, Example 3;
/// §3.2). Orientation in Euler angles (φ, θ, ψ), away from their singularity sin θ = 0; the
/// space-frame angular velocities are `define`s (erratum E16: the printed θ in ω_x is θ̇). On the
/// rough side the sphere rolls (ϕ¹ = ẋ − r ω_y, ϕ² = ẏ + r ω_x); crossing x = 0 projects onto the
/// rolling constraints (eq. 21), and a sphere that comes back (backspin) is released.
#[derive(Mechanics)]
#[mechanics(
    coordinates(x, y, ph, th, ps),
    action(zeta),
    define(
        wx = dot(th) * ps.cos() + dot(ph) * th.sin() * ps.sin(),
        wy = dot(th) * ps.sin() - dot(ph) * th.sin() * ps.cos(),
        wz = dot(ph) * th.cos() + dot(ps),
    ),
    lagrangian = (dot(x).powi(2) + dot(y).powi(2) + k2 * (wx.powi(2) + wy.powi(2) + wz.powi(2))) / 2 - beta * zeta,
    mode(smooth),
    mode(rough, constraint(roll_x = dot(x) - r * wy, roll_y = dot(y) + r * wx)),
    transition(smooth -> rough, name = enter, guard = -x, law = project),
    transition(rough -> smooth, name = leave, guard = x, law = map()),
)]
struct Sphere {
    r: f64,
    k2: f64,
    beta: f64,
}

/// Space-frame angular velocity of the sphere's state.
fn omega(x: &SVector<f64, 11>) -> [f64; 3] {
    let (th, ps, dph, dth, dps) = (x[3], x[4], x[7], x[8], x[9]);
    [dth * ps.cos() + dph * th.sin() * ps.sin(), dth * ps.sin() - dph * th.sin() * ps.cos(), dph * th.cos() + dps]
}

/// Reference run R6 (`docs/references.md`): r = 1, k² = 2/5, β = 0.5, x₀ = −1, ẋ₀ = 2, ẏ₀ = 0.3,
/// ω₀ = (0.5, −1, 2) (here with ω₀ given), at Euler angles (0, π/2, 0).
fn sphere_start(s: &Sphere, xdot: f64, w: [f64; 3]) -> SVector<f64, 11> {
    let (th, ps) = (std::f64::consts::FRAC_PI_2, 0.0f64);
    let dth = w[0] * ps.cos() + w[1] * ps.sin();
    let dph = (w[0] * ps.sin() - w[1] * ps.cos()) / th.sin();
    let dps = w[2] - dph * th.cos();
    s.smooth_state([-1.0, 0.0, 0.0, th, ps], [xdot, 0.3, dph, dth, dps], 0.0)
}

#[test]
fn sphere_enters_the_rough_plane_at_the_corrected_time_and_rolls_straight() {
    let s = Sphere { r: 1.0, k2: 0.4, beta: 0.5 };
    let t_bar = 2.0 * (4.0f64 / 3.0).ln();
    let sol = s.simulate(Sphere::SMOOTH, sphere_start(&s, 2.0, [0.5, -1.0, 2.0]), 0.0..t_bar + 3.0, &hybrid_tight()).unwrap();
    assert_eq!(sol.mode_sequence(), vec![Sphere::SMOOTH, Sphere::ROUGH]);
    let enter = &sol.impacts[0];
    // S1: t̄ = −(1/β) ln(1 + βx₀/ẋ₀) = 2 ln(4/3) (erratum E19: the printed −x₀/ẋ₀ = 0.5 ignores damping).
    assert!((enter.t - t_bar).abs() < 1e-9, "t̄ = {} against {t_bar}", enter.t);
    // S2: every velocity decays by e^{−βt̄} = 3/4 before the impact (erratum E18: e^{−βt}, not
    // e^{−βt/k²}); y₁, Z₋ and E₋ in closed form.
    let pre = &enter.pre;
    let w = omega(pre);
    let expect = [(pre[5], 1.5), (pre[6], 0.225), (w[0], 0.375), (w[1], -0.75), (w[2], 1.5), (pre[1], 0.15), (pre[10], 1.160625)];
    for (k, (got, want)) in expect.into_iter().enumerate() {
        assert!((got - want).abs() < 1e-9, "S2 item {k}: {got} against {want}");
    }
    assert!((enter.energy_before - 2.32125).abs() < 1e-9, "E₋ = {}", enter.energy_before);
    // S3: the projection gives ẋ₊ = ω_y₊ = 6/7, ẏ₊ = −ω_x₊ = 3/56, ω_z₊ = 1.5, residuals zero.
    let post = &enter.post;
    let w = omega(post);
    for (got, want) in [(post[5], 6.0 / 7.0), (w[1], 6.0 / 7.0), (post[6], 3.0 / 56.0), (w[0], -3.0 / 56.0), (w[2], 1.5)] {
        assert!((got - want).abs() < 1e-9, "S3: {got} against {want}");
    }
    let rough = s.rough();
    assert!(rough.velocity_residuals(enter.t, post).amax() < 1e-14);
    assert_eq!(pre[10], post[10], "Z kept");
    // S4: ΔT = −½ k²/(k² + r²) [(ẋ₋ − rω_y₋)² + (ẏ₋ + rω_x₋)²] = −0.7746428571.
    assert!((enter.energy_jump() + 0.7746428571).abs() < 1e-9, "ΔT = {}", enter.energy_jump());
    // S5: on the rough side λ ≡ 0 (uniform contact damping adds no constraint force) and every
    // velocity decays as e^{−β(t − t̄)}.
    let (t, _, x) = sol.last().unwrap();
    let lam = rough.constraint_forces(t, x).unwrap();
    assert!(lam.amax() < 1e-10, "λ = {lam}");
    assert!((x[0] - 12.0 / 7.0 * (1.0 - (-1.5f64).exp())).abs() < 1e-8, "x(t̄ + 3) = {}", x[0]);
    assert!((x[0] - 1.3317768683).abs() < 1e-8);
    assert!((omega(x)[2] - 0.3346952402).abs() < 1e-8, "ω_z(t̄ + 3) = {}", omega(x)[2]);
    let e = rough.energy(t, x);
    assert!((e - 1.5466071429 * (-s.beta * (t - enter.t)).exp()).abs() < 1e-9, "E_L(t̄ + 3) = {e}");
    // S6: the path is two straight segments: ẏ/ẋ constant on each side (G7, dissipated momenta
    // keep their ratios).
    let mut ratios = [Vec::new(), Vec::new()];
    for (_, mode, x) in sol.iter() {
        ratios[mode].push(x[6] / x[5]);
    }
    for side in ratios {
        let (lo, hi) = side.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |a, &r| (a.0.min(r), a.1.max(r)));
        assert!(hi - lo < 1e-9, "ẏ/ẋ varies by {} on one side", hi - lo);
    }
}

#[test]
fn sphere_too_slow_never_arrives_and_backspin_is_released_without_chatter() {
    let s = Sphere { r: 1.0, k2: 0.4, beta: 0.5 };
    // S1: with ẋ₀ ≤ β|x₀| the sphere stops short of x = 0 (x → x₀ + ẋ₀/β).
    let slow = s.simulate(Sphere::SMOOTH, sphere_start(&s, 0.5, [0.5, -1.0, 2.0]), 0.0..30.0, &hybrid_tight()).unwrap();
    assert!(slow.impacts.is_empty(), "no impact");
    let (_, _, x) = slow.last().unwrap();
    assert!(x[0] < 0.0 && (x[0] - (-1.0 + 0.5 / s.beta)).abs() < 1e-5, "x(30) = {}", x[0]);
    // S7: strong backspin makes ẋ₊ < 0: the sphere enters, is projected, and leaves again at once
    // without an impulse — two transitions at one instant, then the smooth side for good.
    let back = s.simulate(Sphere::SMOOTH, sphere_start(&s, 2.0, [0.5, -6.0, 2.0]), 0.0..3.0, &hybrid_tight()).unwrap();
    assert_eq!(back.stop, HybridStop::Finished);
    assert_eq!(back.mode_sequence(), vec![Sphere::SMOOTH, Sphere::ROUGH, Sphere::SMOOTH]);
    let (enter, leave) = (&back.impacts[0], &back.impacts[1]);
    assert_eq!((enter.guard, leave.guard), ("enter", "leave"));
    assert_eq!(enter.t, leave.t);
    assert!(enter.post[5] < 0.0, "ẋ₊ = {}", enter.post[5]);
    assert_eq!(leave.post, leave.pre, "released without an impulse");
    let (_, mode, x) = back.last().unwrap();
    assert_eq!(mode, Sphere::SMOOTH);
    assert!(x[0] < 0.0);
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
    let sol = p.simulate(Release::SWING, p.swing_state([-0.5], [0.0], 0.2), 0.0..2.0, &hybrid_tight()).unwrap();
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
    let sol = b.simulate(SettlingBall::FREE, b.free_state([1.0], [0.0], 0.0), 0.0..4.0, &hybrid_tight()).unwrap();
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
    let sol = p.simulate(x0, 0.0..5.0, &tight().output(Output::Interval(1e-3))).unwrap();
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

#[test]
fn cylinder_jacobians_match_finite_differences() {
    // The exact Jacobians continuation code uses (HybridSystem): the constrained contact field of
    // the stance (implicit function theorem plus the row ∂ż/∂x = ∂L/∂x), the touchdown
    // projection's reset Jacobian (z kept), the guard gradient, against central differences.
    use routh::runtime::HybridSystem;
    let c = cylinder(0.05);
    let mut rng = common::Rng::new(5);
    for _ in 0..5 {
        let mut x: SVector<f64, 9> = rng.vector(-0.5, 0.5);
        x[1] += 0.6;
        x[8] = rng.uniform(-1.0, 1.0);
        let t = rng.uniform(0.0, 1.0);
        let field = |t: f64, x: &SVector<f64, 9>| c.mode_field(Cylinder::STANCE, t, x);
        let exact = c.mode_jacobian(Cylinder::STANCE, t, &x).unwrap();
        let fd = jacobian_fd(&field, t, &x, 1e-6).unwrap();
        assert!(rel_err(&exact, &fd) < 1e-7, "stance field Jacobian: {exact} against {fd}");
        let reset = |t: f64, x: &SVector<f64, 9>| c.reset(Cylinder::AERIAL, 0, t, x).map(|(_, post)| post);
        let exact = c.reset_jacobian(Cylinder::AERIAL, 0, t, &x).unwrap();
        let fd = jacobian_fd(&reset, t, &x, 1e-6).unwrap();
        assert!(rel_err(&exact, &fd) < 1e-7, "touchdown reset Jacobian: {exact} against {fd}");
        assert_eq!(exact.row(8).transpose(), SVector::<f64, 9>::from_fn(|i, _| if i == 8 { 1.0 } else { 0.0 }));
        let g = c.guard_gradient(Cylinder::AERIAL, 0, t, &x);
        for k in 0..9 {
            let step = 1e-6;
            let (mut xp, mut xm) = (x, x);
            xp[k] += step;
            xm[k] -= step;
            let d = (c.guard(Cylinder::AERIAL, 0, t, &xp) - c.guard(Cylinder::AERIAL, 0, t, &xm)) / (2.0 * step);
            assert!((g[k] - d).abs() < 1e-8, "∂Ψ/∂x[{k}] = {} against {d}", g[k]);
        }
    }
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
    let sol = b.simulate(x0, 0.0..3.0, &hybrid_tight()).unwrap();
    let hit = &sol.impacts[0];
    assert_eq!(hit.guard, "budget");
    assert!((hit.rate + b.lagrangian(hit.t, &hit.pre)).abs() < 1e-12, "rate {} against −L", hit.rate);
    assert_eq!(hit.post[1], 0.0);
    let free = DampedOscillator { m: 1.0, k: 1.0, gamma: -b.c };
    let ev = routh::runtime::Event::new("budget", |_t, x: &Vector3<f64>| 0.2 - x[2]).terminal(true);
    let reference = free.simulate_with_events(x0, 0.0..3.0, &[ev], &tight()).unwrap();
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
    let a = cart.simulate(xc, 0.0..4.0, &tight()).unwrap();
    let b = ang.simulate(ang.state([th0], [w0], 0.1), 0.0..4.0, &tight()).unwrap();
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
    let sol = p.simulate(p.state([1.0, 0.0], [0.0, 0.7], 0.0), 0.0..3.0, &tight().output(Output::Interval(1e-3))).unwrap();
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
    let sol = p.simulate(p.state([1.0], [0.0], 0.0), 0.0..1.0, &HybridOptions::default()).unwrap();
    let mut csv = Vec::new();
    sol.write_csv(&mut csv, &DampedBall::STATE_NAMES).unwrap();
    let text = String::from_utf8(csv).unwrap();
    assert_eq!(text.lines().next(), Some("t,mode,y,dot(y),z"));
    assert_eq!(text.lines().count(), 1 + sol.len());
}
