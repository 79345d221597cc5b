//! The rolling eccentric cylinder on a spring-supported plane (*Contact impulsive constraints* §3.1, §4): touchdown, stance, liftoff and the Newton impact against reference run R5.

use super::*;

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
        assert!((c.aerial().energy(0.0, &x0.state) + 5.7691324042).abs() < 1e-9, "E_L(0)");
        let sol = c.run(x0).span(0.0..t1 + 1e-3).options(hybrid_tight()).go().unwrap();
        let td = &sol.impacts[0];
        assert_eq!((td.guard, td.mode_after), ("touchdown", Cylinder::STANCE));
        assert!((td.t - t1).abs() < 1e-9, "β = {beta}: t₁ = {} against {t1}", td.t);
        assert!((td.pre[2] - phi1).abs() < 1e-8, "φ(t₁)");
        assert!((td.energy_before - e_pre).abs() < 1e-8, "E_L(t₁⁻) = {}", td.energy_before);
        // G1 on the aerial arc: E_L(t₁⁻) = E_L(0) e^{βt₁}.
        assert!((td.energy_before - c.aerial().energy(0.0, &x0.state) * (beta * td.t).exp()).abs() < 1e-9);
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
            let opts = hybrid_tight().max_impacts(1);
            let sol = n.run(n.state(q0, v0, 0.0)).span(0.0..0.4).options(&opts).go().unwrap();
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
    let sol = c.run(c.aerial_state(q0, v0, 0.0)).span(0.0..0.3304925264 + 0.5).options(hybrid_tight()).go().unwrap();
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
        let sol = c.run(c.aerial_state(q0, v0, 0.0)).span(span.clone()).options(hybrid_tight()).go().unwrap();
        let td = &sol.impacts[0];
        let rc = RollingCylinder { m: c.m, mp: c.mp, i: c.i, r: c.r, gamma: c.gamma, k: c.k, g: c.g, beta };
        let x1 = rc.state([td.post[2], td.post[3]], [td.post[6], td.post[7]], td.post[8]);
        let reduced = rc.run(x1).span(td.t..span.end).options(tight()).go().unwrap();
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
        let sol = c.run(x0).span(0.0..1.5).options(hybrid_tight()).go().unwrap();
        assert_eq!(&sol.mode_sequence()[..2], &[Cylinder::STANCE, Cylinder::AERIAL]);
        let liftoff = &sol.impacts[0];
        assert_eq!(liftoff.guard, "liftoff");
        assert!((liftoff.t - lo).abs() < 1e-9, "β = {beta}: liftoff at {} against h = 0 at {lo}", liftoff.t);
        assert_eq!(liftoff.post, liftoff.pre, "released without an impulse");
        let mu = c.stance().constraint_forces(liftoff.t, &liftoff.pre).unwrap();
        assert!(mu[1].abs() < 1e-7, "μ₂ at liftoff = {}", mu[1]);
    }
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

#[test]
fn an_eccentric_cylinder_released_at_zero_normal_force_says_which_force_it_still_needed() {
    // γ = 0.1 on the compressed plane: at liftoff μ₂ = 0 but the rolling force μ₁ is not (erratum
    // E24: the stance set asks only μ₂ > 0), so the released cylinder's rim is driven into the plane
    // and the run is stuck on `touchdown`. It said only that; it now names the force the stance
    // still carried, which a slip mode would have to take over.
    let c = cylinder(0.0);
    let h0 = -(c.m + c.mp) * c.g / c.k - 0.8;
    let x0 = c.stance_state([0.0, h0 + c.r + c.gamma, 0.0, h0], [c.r + c.gamma, 0.0, 1.0, 0.0], 0.0);
    let sol = c.run(x0).span(0.0..3.0).options(hybrid_tight()).go().unwrap();
    let HybridStop::Stuck { t, guard: "touchdown", multipliers_before } = &sol.stop else { panic!("{:?}", sol.stop) };
    let liftoff = sol.impacts.last().unwrap();
    assert!(liftoff.guard == "liftoff" && liftoff.t == *t);
    // The same multipliers as the stance's own constraint forces at the release.
    let mu = c.stance().constraint_forces(*t, &liftoff.pre).unwrap();
    assert_eq!(multipliers_before, &vec![("roll", mu[0]), ("normal", mu[1])]);
    assert!(mu[1].abs() < 1e-7 && mu[0].abs() > 1e-2, "μ = {mu}");
    // The concentric cylinder releases with both forces zero: it flies, and lands again.
    let concentric = Cylinder { gamma: 0.0, ..cylinder(0.0) };
    let x0 = concentric.stance_state([0.0, h0 + c.r, 0.0, h0], [c.r, 0.0, 1.0, 0.0], 0.0);
    let sol = concentric.run(x0).span(0.0..3.0).options(hybrid_tight()).go().unwrap();
    assert!(sol.impacts.iter().any(|i| i.guard == "touchdown"), "{:?}", sol.stop);
}
