//! Routh reduction: generated reduced systems against closed forms and the full system.

mod common;

use std::f64::consts::PI;

use routh::prelude::*;

/// Kepler problem in polar coordinates with the angle reduced away: R = m ṙ²/2 − μ²/(2 m r²) + k/r.
#[derive(Mechanics)]
#[mechanics(
    coordinates(r, phi),
    lagrangian = m / 2 * (dot(r).powi(2) + (r * dot(phi)).powi(2)) + k / r,
    symmetry(cyclic(phi)),
    reduce(routh(phi), name = KeplerRadial),
)]
struct Kepler {
    m: f64,
    k: f64,
}

/// Heavy symmetric top in Euler angles (precession phi, nutation theta, spin psi), fixed point at
/// the tip: two cyclic coordinates.
#[derive(Mechanics)]
#[mechanics(
    coordinates(phi, theta, psi),
    lagrangian = i1 / 2 * (dot(theta).powi(2) + (dot(phi) * theta.sin()).powi(2))
        + i3 / 2 * (dot(psi) + dot(phi) * theta.cos()).powi(2)
        - mgl * theta.cos(),
    symmetry(cyclic(phi), cyclic(psi)),
    reduce(routh(phi, psi)),
)]
struct Top {
    i1: f64,
    i3: f64,
    mgl: f64,
}

fn tight() -> Options {
    Options::default().rtol(1e-12).atol(1e-13)
}

#[test]
fn kepler_radial_routhian_is_the_amended_potential_problem() {
    let full = Kepler { m: 1.5, k: 2.0 };
    let x0 = full.state([1.0, 0.3], [0.2, 1.1]);
    let (red, xr0, theta0) = full.kepler_radial(0.0, &x0);
    let mu = full.m * 1.0 * 1.0 * 1.1;
    assert!((red.mu_phi - mu).abs() < 1e-15);
    assert_eq!((red.m, red.k), (full.m, full.k));
    // R = m ṙ²/2 − μ²/(2 m r²) + k/r at random states.
    let mut rng = common::Rng::new(61);
    for _ in 0..10 {
        let (r, rd) = (rng.uniform(0.5, 2.0), rng.uniform(-1.0, 1.0));
        let x = SVector::<f64, 2>::new(r, rd);
        let expected = full.m / 2.0 * rd * rd - mu * mu / (2.0 * full.m * r * r) + full.k / r;
        assert!((red.lagrangian(0.0, &x) - expected).abs() < 1e-13);
        // r̈ = μ²/(m² r³) − k/(m r²).
        let a = red.accelerations(0.0, &x).unwrap()[0];
        assert!((a - (mu * mu / (full.m * full.m * r.powi(3)) - full.k / (full.m * r * r))).abs() < 1e-12);
        assert!((red.cyclic_velocities(0.0, &x)[0] - mu / (full.m * r * r)).abs() < 1e-14);
    }
    // Period and apsides from the reduced energy; reconstruction equals the full run.
    let e = red.energy(0.0, &xr0);
    let a = -full.k / (2.0 * e);
    let period = 2.0 * PI * (full.m * a.powi(3) / full.k).sqrt();
    let ecc = (1.0 + 2.0 * e * mu * mu / (full.m * full.k * full.k)).sqrt();
    let sol = red.run(xr0).span(0.0..period).options(tight()).go().unwrap();
    let (rmin, rmax) = sol.iter().fold((f64::MAX, 0.0f64), |(lo, hi), (_, x)| (lo.min(x[0]), hi.max(x[0])));
    assert!((rmin - a * (1.0 - ecc)).abs() < 1e-6 && (rmax - a * (1.0 + ecc)).abs() < 1e-6, "apsides {rmin} {rmax}");
    let (_, end) = sol.last().unwrap();
    assert!((end[0] - xr0[0]).abs() < 1e-8 && (end[1] - xr0[1]).abs() < 1e-8, "radial motion has period {period}");
    let opts = tight().output(Output::Times((1..=20).map(|i| i as f64 * 0.25).collect()));
    let recon = red.run(xr0).span(0.0..5.0).reconstructed(theta0).options(&opts).go().unwrap();
    let reference = full.run(x0).span(0.0..5.0).options(&opts).go().unwrap();
    for (a, b) in recon.states.iter().zip(&reference.states) {
        assert!((a - b).norm() < 1e-9, "reconstructed {a} vs full {b}");
    }
}

/// Amended potential of the top, V(θ) = (p_φ − p_ψ cos θ)²/(2 I₁ sin²θ) + p_ψ²/(2 I₃) + mgl cos θ.
fn top_amended(t: &Top, p_phi: f64, p_psi: f64, th: f64) -> f64 {
    (p_phi - p_psi * th.cos()).powi(2) / (2.0 * t.i1 * th.sin().powi(2)) + p_psi * p_psi / (2.0 * t.i3) + t.mgl * th.cos()
}

#[test]
fn symmetric_top_nutates_between_the_roots_and_matches_the_full_system() {
    let top = Top { i1: 1.0, i3: 0.6, mgl: 1.2 };
    let x0 = top.state([0.0, 0.6, 0.0], [0.5, 0.0, 6.0]);
    let (red, xr0, angles0) = top.top_routh(0.0, &x0);
    let (p_phi, p_psi) = (red.mu_phi, red.mu_psi);
    // The generated amended potential is the textbook one: R at θ̇ = 0 equals −V(θ).
    for th in [0.3, 0.6, 1.0, 1.4] {
        let x = SVector::<f64, 2>::new(th, 0.0);
        assert!((red.lagrangian(0.0, &x) + top_amended(&top, p_phi, p_psi, th)).abs() < 1e-12);
    }
    // Turning points: V(θ) = E with θ̇ = 0 at the start, so θ₀ is one root; find the other.
    let e = red.energy(0.0, &xr0);
    assert!((e - top_amended(&top, p_phi, p_psi, 0.6)).abs() < 1e-12);
    let f = |th: f64| top_amended(&top, p_phi, p_psi, th) - e;
    // Bracket the second root on the side where the top falls (V decreases from θ₀ first).
    let dir = if f(0.6 + 1e-3) < 0.0 { 1.0 } else { -1.0 };
    let (mut lo, mut hi) = (0.6 + dir * 1e-3, 0.6 + dir * 1e-3);
    while f(hi) < 0.0 {
        hi += dir * 1e-3;
    }
    for _ in 0..60 {
        let mid = 0.5 * (lo + hi);
        if f(mid) < 0.0 { lo = mid } else { hi = mid }
    }
    let other = 0.5 * (lo + hi);
    let (th_lo, th_hi) = if other < 0.6 { (other, 0.6) } else { (0.6, other) };
    let sol = red.run(xr0).span(0.0..20.0).options(tight()).go().unwrap();
    let (mn, mx) = sol.iter().fold((f64::MAX, f64::MIN), |(a, b), (_, x)| (a.min(x[0]), b.max(x[0])));
    assert!(mn > th_lo - 1e-7 && mx < th_hi + 1e-7, "nutation [{mn}, {mx}] outside the roots [{th_lo}, {th_hi}]");
    assert!(mn < th_lo + 1e-3 && mx > th_hi - 1e-3, "nutation reaches both roots: [{mn}, {mx}] vs [{th_lo}, {th_hi}]");
    // Reduced + reconstruction equals the full simulation.
    let opts = tight().output(Output::Times((1..=40).map(|i| i as f64 * 0.25).collect()));
    let recon = red.run(xr0).span(0.0..10.0).reconstructed(angles0).options(&opts).go().unwrap();
    let full = top.run(x0).span(0.0..10.0).options(&opts).go().unwrap();
    for (a, b) in recon.states.iter().zip(&full.states) {
        assert!((a - b).norm() < 1e-8 * (1.0 + b.norm()), "reconstructed {a} vs full {b}");
    }
}

/// *Hybrid momentum maps*, Example 1 in polar coordinates (x, y) = r (cos θ, sin θ): the force pulls back to
/// Q_r = −2c r³ θ̇ (erratum H4: F^L = 2c r³ θ̇ dr is minus the applied force), θ and φ are cyclic, the
/// walls y = R and y = h − R are not rotation invariant, and the impact law is the paper's rolling map
/// with dy = sin θ dr + r cos θ dθ, dx = cos θ dr − r sin θ dθ.
#[derive(Mechanics)]
#[mechanics(
    coordinates(r, th, phi),
    lagrangian = m / 2 * (dot(r).powi(2) + (r * dot(th)).powi(2) + k.powi(2) * dot(phi).powi(2)),
    force(r = -2 * c * r.powi(3) * dot(th)),
    impact(name = floor, guard = r * th.sin() - rr,
        law = restitution(th.sin() * dr + r * th.cos() * dth: e, th.cos() * dr - r * th.sin() * dth - rr * dphi: 0)),
    impact(name = ceiling, guard = h - rr - r * th.sin(),
        law = restitution(th.sin() * dr + r * th.cos() * dth: e, th.cos() * dr - r * th.sin() * dth - rr * dphi: 0)),
    symmetry(cyclic(th), cyclic(phi)),
    reduce(routh(th, phi), name = DiskRadial),
)]
struct PolarDisk {
    m: f64,
    rr: f64,
    k: f64,
    h: f64,
    c: f64,
    e: f64,
}

fn polar_start(d: &PolarDisk, (x, y, phi, xd, yd, phid): (f64, f64, f64, f64, f64, f64)) -> SVector<f64, 6> {
    let r = (x * x + y * y).sqrt();
    d.state([r, y.atan2(x), phi], [(x * xd + y * yd) / r, (x * yd - y * xd) / (r * r), phid])
}

#[test]
fn hybrid_routh_reduction_of_the_rolling_disk_equals_the_full_system() {
    // Reduced + reconstruction against the full system: reference run R2 (c = 1, e = 1; μ₁ turns
    // negative and the disk eventually runs away sideways), a conservative many-impact
    // run, and a dissipative one.
    let opts = routh::runtime::HybridOptions::default().ode(tight());
    for (c, e, horizon, min_impacts) in [(1.0, 1.0, 6.0, 4), (0.0, 1.0, 10.0, 19), (0.3, 0.9, 8.0, 6)] {
        let d = PolarDisk { m: 1.0, rr: 0.1, k: 0.1 / 2f64.sqrt(), h: 0.6, c, e };
        let x0 = polar_start(&d, (0.5, 0.3, 0.0, 0.1, 0.8, 1.0));
        let (reduced, jumps) = d.run(x0).span(0.0..horizon).reduced::<DiskRadial>().options(&opts).go().unwrap();
        let full = d.run(x0).span(0.0..horizon).options(&opts).go().unwrap();
        assert!(jumps.len() >= min_impacts, "c = {c}: {} impacts", jumps.len());
        assert_eq!(reduced.impacts.len(), full.impacts.len());
        for ((a, b), j) in reduced.impacts.iter().zip(&full.impacts).zip(&jumps) {
            assert_eq!(a.guard, b.guard);
            assert!((a.t - b.t).abs() < 1e-9, "impact at {} (reduced) vs {} (full)", a.t, b.t);
            assert!((a.post - b.post).norm() < 1e-9, "post-impact states differ at t = {}", a.t);
            // μ before/after are the momenta of the reconstructed states: μ₁ = m r² θ̇, μ₂ = m k² φ̇.
            let mu = |x: &SVector<f64, 6>| [d.m * x[0] * x[0] * x[4], d.m * d.k * d.k * x[5]];
            for k in 0..2 {
                assert!((j.before[k] - mu(&b.pre)[k]).abs() < 1e-9 && (j.after[k] - mu(&b.post)[k]).abs() < 1e-9);
            }
        }
        let (ta, _, xa) = reduced.last().unwrap();
        let (tb, _, xb) = full.last().unwrap();
        assert!((ta - tb).abs() < 1e-12 && (xa - xb).norm() < 1e-8 * (1.0 + xb.norm()), "final states differ");
    }
    let d = PolarDisk { m: 1.0, rr: 0.1, k: 0.1 / 2f64.sqrt(), h: 0.6, c: 1.0, e: 1.0 };
    let (_, jumps) = d
        .run(polar_start(&d, (0.5, 0.3, 0.0, 0.1, 0.8, 1.0)))
        .span(0.0..2.0)
        .reduced::<DiskRadial>()
        .options(&opts)
        .go()
        .unwrap();
    // Reference run R2's impacts (c = 1, e = 1).
    let reference =
        [(0.261664, (-0.38789767, 0.00171591)), (0.892120, (0.33609974, 0.01070277)), (1.667785, (-0.26478335, -0.00071210))];
    for (j, (t, (m1, m2))) in jumps.iter().zip(reference) {
        assert!((j.t - t).abs() < 1e-6 && (j.after[0] - m1).abs() < 1e-7 && (j.after[1] - m2).abs() < 1e-7, "{j:?}");
    }
}

#[test]
fn reduced_disk_momentum_jumps_follow_the_corrected_law_on_the_switching_surface() {
    // c = 0 and a rolling start: every impact lies on the paper's S, where (erratum H7)
    // μ₁⁺ = −e μ₁⁻ − (1+e) R² μ₂/k² at y = R and −e μ₁⁻ − (1+e) R (h−R) μ₂/k² at y = h − R; μ₂ is kept.
    let d = PolarDisk { m: 1.0, rr: 0.1, k: 0.1 / 2f64.sqrt(), h: 0.6, c: 0.0, e: 0.8 };
    let x0 = polar_start(&d, (0.5, 0.3, 0.0, 0.1, 0.8, 1.0));
    let opts = routh::runtime::HybridOptions::default().ode(tight());
    let (_, jumps) = d.run(x0).span(0.0..2.7).reduced::<DiskRadial>().options(&opts).go().unwrap();
    let expected_mu1 = [0.37, -0.386, 0.2908, -0.32264, 0.240112];
    assert_eq!(jumps.len(), 4);
    for (i, j) in jumps.iter().enumerate() {
        let y_wall = if j.guard == "floor" { d.rr } else { d.h - d.rr };
        let law = -d.e * j.before[0] - (1.0 + d.e) * d.rr * y_wall * j.before[1] / (d.k * d.k);
        assert!((j.after[0] - law).abs() < 1e-9, "μ₁⁺ = {} vs {law}", j.after[0]);
        assert!((j.after[1] - j.before[1]).abs() < 1e-12);
        assert!((j.before[0] - expected_mu1[i]).abs() < 1e-9 && (j.after[0] - expected_mu1[i + 1]).abs() < 1e-9);
    }
}

/// *Hybrid momentum maps*, Example 3 in polar form: time-dependent Lagrangian (Caldirola–Kanai factor), force
/// F^L = 2c e^{ct/m} r³ θ̇ dr (so Q_r = −2c e^{ct/m} r³ θ̇), shrinking wall r² ≤ f(t) = 2 − e^{t/10}
/// (the radius is √f, erratum H12), elastic. θ is cyclic: the cosymplectic Routh reduction.
#[derive(Mechanics)]
#[mechanics(
    coordinates(r, th),
    define(decay = (c / m * t).exp()),
    lagrangian = m / 2 * decay * (dot(r).powi(2) + (r * dot(th)).powi(2)),
    force(r = -2 * c * decay * r.powi(3) * dot(th)),
    impact(name = wall, guard = 2 - (t / 10).exp() - r.powi(2), law = restitution(1)),
    symmetry(cyclic(th)),
    reduce(routh(th), name = BilliardRadial),
)]
struct PolarBilliard {
    m: f64,
    c: f64,
}

#[test]
fn time_dependent_billiard_reduces_to_the_papers_radial_equation() {
    let b = PolarBilliard { m: 1.0, c: 0.1 };
    // The paper's rounded polar initial conditions.
    let x0 = b.state([0.5590, 1.1071], [2.8621, -3.0400]);
    let (red, _, _) = b.billiard_radial(0.0, &x0);
    let mu = red.mu_th;
    assert!((mu - b.m * 0.5590f64.powi(2) * -3.04).abs() < 1e-12, "μ = m e^{{ct/m}} r² θ̇ at t = 0");
    // Reduced equation (paper, verified symbolically):
    // r̈ = μ² e^{−2ct/m}/(m² r³) − 2c r μ e^{−ct/m}/m² − (c/m) ṙ.
    let mut rng = common::Rng::new(71);
    for _ in 0..10 {
        let (t, r, rd) = (rng.uniform(0.0, 5.0), rng.uniform(0.2, 1.0), rng.uniform(-3.0, 3.0));
        let a = red.accelerations(t, &SVector::<f64, 2>::new(r, rd)).unwrap()[0];
        let (m, c) = (b.m, b.c);
        let expected = mu * mu * (-2.0 * c * t / m).exp() / (m * m * r.powi(3))
            - 2.0 * c * r * mu * (-c * t / m).exp() / (m * m)
            - c / m * rd;
        assert!((a - expected).abs() < 1e-11 * (1.0 + expected.abs()), "r̈ = {a} vs {expected}");
    }
    // Hybrid reduction: the wall is rotation invariant, so μ is a hybrid momentum map (unchanged).
    let opts = routh::runtime::HybridOptions::default().ode(tight());
    let (reduced, jumps) = b.run(x0).span(0.0..5.0).reduced::<BilliardRadial>().options(&opts).go().unwrap();
    let full = b.run(x0).span(0.0..5.0).options(&opts).go().unwrap();
    assert_eq!(jumps.len(), 10, "reference run R3: 10 impacts in [0, 5] for c = 0.1");
    let first = [0.141872, 0.711817, 1.276603, 1.831475, 2.371242, 2.890492, 3.383876, 3.846452];
    for ((j, t), (a, f)) in jumps.iter().zip(first).zip(reduced.impacts.iter().zip(&full.impacts)) {
        assert!((j.t - t).abs() < 2e-6, "impact at {} vs {t}", j.t);
        assert!((j.after[0] - j.before[0]).abs() < 1e-12 && (j.before[0] - mu).abs() < 1e-9);
        assert!((a.t - f.t).abs() < 1e-9 && (a.post - f.post).norm() < 1e-9);
    }
    let (_, _, xa) = reduced.last().unwrap();
    let (_, _, xb) = full.last().unwrap();
    assert!((xa - xb).norm() < 1e-8, "final states: reduced {xa} vs full {xb}");
}

/// *Hybrid momentum maps*, Example 4: the disk of Example 1 with a moving upper wall y = f(t) − R,
/// f(t) = 0.6 + 0.05 sin 2t (*Hybrid momentum maps*, Ex. 4). Paper-literal law: ẏ reverses as if the wall were at rest
/// (the one-form dy has no dt part).
#[derive(Mechanics)]
#[mechanics(
    coordinates(x, y, phi),
    lagrangian = m / 2 * (dot(x).powi(2) + dot(y).powi(2) + k.powi(2) * dot(phi).powi(2)),
    impact(name = floor, guard = y - rr, law = restitution(dy: e, dx - rr * dphi: 0)),
    impact(name = ceiling, guard = 0.6 + 0.05 * (2 * t).sin() - rr - y, law = restitution(dy: e, dx - rr * dphi: 0)),
    symmetry(cyclic(phi)),
)]
struct MovingWallLiteral {
    m: f64,
    rr: f64,
    k: f64,
    e: f64,
}

/// The physical variant: the normal row is the guard's own differential dh = −dy + ḟ dt, so the
/// velocity relative to the moving wall reverses (ẏ⁺ = 2ḟ − ẏ⁻ for e = 1).
#[derive(Mechanics)]
#[mechanics(
    coordinates(x, y, phi),
    lagrangian = m / 2 * (dot(x).powi(2) + dot(y).powi(2) + k.powi(2) * dot(phi).powi(2)),
    impact(name = floor, guard = y - rr, law = restitution(e, dx - rr * dphi: 0)),
    impact(name = ceiling, guard = 0.6 + 0.05 * (2 * t).sin() - rr - y, law = restitution(e, dx - rr * dphi: 0)),
    symmetry(cyclic(phi)),
)]
struct MovingWallPhysical {
    m: f64,
    rr: f64,
    k: f64,
    e: f64,
}

#[test]
fn moving_wall_paper_literal_and_physical_laws() {
    let (m, rr, k, e) = (1.0, 0.1, 0.1 / 2f64.sqrt(), 1.0);
    let literal = MovingWallLiteral { m, rr, k, e };
    let physical = MovingWallPhysical { m, rr, k, e };
    let opts = routh::runtime::HybridOptions::default().ode(tight());
    // Rolling start (ẋ = R φ̇), so impacts lie on the paper's S.
    let x0 = [0.5, 0.3, 0.0];
    let v0 = [0.1, 0.8, 1.0];
    let lit = literal.run(literal.state(x0, v0)).span(0.0..3.0).options(&opts).go().unwrap();
    let phy = physical.run(physical.state(x0, v0)).span(0.0..3.0).options(&opts).go().unwrap();
    let f_dot = |t: f64| 0.1 * (2.0 * t).cos();
    let mu1 = |x: &SVector<f64, 6>| m * (x[0] * x[4] - x[1] * x[3]);
    let mu2 = |x: &SVector<f64, 6>| m * k * k * x[5];
    let mut ceilings = 0;
    for imp in lit.impacts.iter().filter(|i| i.guard == "ceiling") {
        ceilings += 1;
        // Paper-literal: ẏ⁺ = −ẏ⁻, no energy change on S, and μ₁⁺ = −μ₁⁻ − 2R(f(τ)−R)μ₂/k².
        assert!((imp.post[4] + imp.pre[4]).abs() < 1e-12);
        assert!((imp.energy_after - imp.energy_before).abs() < 1e-12);
        let f = 0.6 + 0.05 * (2.0 * imp.t).sin();
        let law = -mu1(&imp.pre) - 2.0 * rr * (f - rr) * mu2(&imp.pre) / (k * k);
        assert!((mu1(&imp.post) - law).abs() < 1e-9, "μ₁⁺ = {} vs {law}", mu1(&imp.post));
    }
    let mut physical_ceilings = 0;
    for imp in phy.impacts.iter().filter(|i| i.guard == "ceiling") {
        physical_ceilings += 1;
        // Physical: the relative normal velocity reverses and the moving wall does work.
        assert!((imp.post[4] - (2.0 * f_dot(imp.t) - imp.pre[4])).abs() < 1e-12);
        let de = imp.energy_after - imp.energy_before;
        let expected = 0.5 * m * (imp.post[4].powi(2) - imp.pre[4].powi(2));
        assert!((de - expected).abs() < 1e-12 && de.abs() > 1e-6, "energy change {de}");
    }
    assert!(ceilings >= 2 && physical_ceilings >= 2);
}

#[test]
fn reduced_disk_flight_is_the_closed_form_oscillator() {
    // Digest, Example 1, derived insight 1: for fixed μ₁ the force is conservative and the flight is
    // the isotropic oscillator m ẍ = −(2cμ₁/m) x (κ = 2cμ₁/m² > 0 here): x(t) = x₀ cos ωt + (ẋ₀/ω) sin ωt.
    // (Energy does not decrease: the "dissipative" force has no definite power.)
    let d = PolarDisk { m: 1.0, rr: 0.1, k: 0.1 / 2f64.sqrt(), h: 0.6, c: 1.0, e: 1.0 };
    let start = (0.5, 0.3, 0.0, 0.1, 0.8, 1.0);
    let x0 = polar_start(&d, start);
    let (red, xr0, angles0) = d.disk_radial(0.0, &x0);
    let kappa = 2.0 * d.c * red.mu_th / (d.m * d.m);
    assert!(kappa > 0.0);
    let w = kappa.sqrt();
    let times: Vec<f64> = (1..=10).map(|i| 0.025 * i as f64).collect(); // before the first impact at 0.2617
    let opts = tight().output(Output::Times(times.clone()));
    let sol = red.run(xr0).span(0.0..0.25).reconstructed(angles0).options(&opts).go().unwrap();
    for (t, x) in sol.iter() {
        let (r, th, rd, thd) = (x[0], x[1], x[3], x[4]);
        let (xc, yc) = (r * th.cos(), r * th.sin());
        let (vx, vy) = (rd * th.cos() - r * thd * th.sin(), rd * th.sin() + r * thd * th.cos());
        let ex = start.0 * (w * t).cos() + start.3 / w * (w * t).sin();
        let ey = start.1 * (w * t).cos() + start.4 / w * (w * t).sin();
        assert!((xc - ex).abs() < 1e-10 && (yc - ey).abs() < 1e-10, "t = {t}: ({xc}, {yc}) vs ({ex}, {ey})");
        // The flight invariant (m/2)|v|² + (cμ₁/m)|x|² is constant.
        let ef = 0.5 * d.m * (vx * vx + vy * vy) + d.c * red.mu_th / d.m * (xc * xc + yc * yc);
        let e0 =
            0.5 * d.m * (start.3 * start.3 + start.4 * start.4) + d.c * red.mu_th / d.m * (start.0 * start.0 + start.1 * start.1);
        assert!((ef - e0).abs() < 1e-10);
    }
    assert_eq!(sol.len(), times.len());
}

/// A spherical pendulum written with Cartesian `define`s: φ is cyclic, but it survives in L
/// through sin²φ + cos²φ (not folded symbolically). Invariance is proved, so the reduced model
/// evaluates it at any fixed section value — it must not be NaN.
#[derive(Mechanics)]
#[mechanics(
    coordinates(th, ph),
    define(x = l * th.sin() * ph.cos(), y = l * th.sin() * ph.sin(), z = -l * th.cos()),
    lagrangian = m / 2 * (dot(x).powi(2) + dot(y).powi(2) + dot(z).powi(2)) - m * g * z,
    symmetry(cyclic(ph)),
    reduce(routh(ph), name = SphericalRadial),
)]
struct SphericalPendulum {
    m: f64,
    g: f64,
    l: f64,
}

#[test]
fn reduction_with_the_cyclic_angle_hidden_in_an_identity_equals_the_full_system() {
    let p = SphericalPendulum { m: 1.2, g: 9.81, l: 0.8 };
    let x0 = p.state([1.0, 0.3], [0.2, 1.5]);
    let (reduced, xr, phi) = p.spherical_radial(0.0, &x0);
    assert!(reduced.lagrangian(0.0, &xr).is_finite() && reduced.mass_matrix(0.0, &xr)[(0, 0)].is_finite());
    let opts = Options::default().rtol(1e-12).atol(1e-13).output(Output::Interval(0.5));
    let full = p.run(x0).span(0.0..10.0).options(&opts).go().unwrap();
    let rec = reduced.run(xr).span(0.0..10.0).reconstructed(phi).options(&opts).go().unwrap();
    assert_eq!(full.len(), rec.len());
    let worst = full.states.iter().zip(&rec.states).map(|(a, b)| (a - b).amax()).fold(0.0, f64::max);
    assert!(worst < 1e-9, "reduced + reconstruction vs full: {worst:e}");
}

/// A rigid body built from its particles: four masses m on a ring of radius a at height h on the
/// symmetry axis of a top with its tip fixed, placed by the rotation matrix of the Euler angles
/// (z-x-z). The precession φ and the spin ψ are cyclic only through identities (sin² + cos²
/// sums and the ring's square symmetry making I₁ = I₂); the reduction over both must still be
/// exact, and the body is the Euler-angle `Top` with I₁ = 4mh² + 2ma², I₃ = 4ma², mgl = 4mgh.
#[derive(Mechanics)]
#[mechanics(
    coordinates(phi, theta, psi),
    define(
        r11 = phi.cos() * psi.cos() - phi.sin() * theta.cos() * psi.sin(),
        r12 = -phi.cos() * psi.sin() - phi.sin() * theta.cos() * psi.cos(),
        r13 = phi.sin() * theta.sin(),
        r21 = phi.sin() * psi.cos() + phi.cos() * theta.cos() * psi.sin(),
        r22 = -phi.sin() * psi.sin() + phi.cos() * theta.cos() * psi.cos(),
        r23 = -phi.cos() * theta.sin(),
        r31 = theta.sin() * psi.sin(),
        r32 = theta.sin() * psi.cos(),
        r33 = theta.cos(),
        x1 = a * r11 + h * r13, y1 = a * r21 + h * r23, z1 = a * r31 + h * r33,
        x2 = a * r12 + h * r13, y2 = a * r22 + h * r23, z2 = a * r32 + h * r33,
        x3 = -a * r11 + h * r13, y3 = -a * r21 + h * r23, z3 = -a * r31 + h * r33,
        x4 = -a * r12 + h * r13, y4 = -a * r22 + h * r23, z4 = -a * r32 + h * r33,
    ),
    lagrangian = m / 2 * (dot(x1).powi(2) + dot(y1).powi(2) + dot(z1).powi(2)
            + dot(x2).powi(2) + dot(y2).powi(2) + dot(z2).powi(2)
            + dot(x3).powi(2) + dot(y3).powi(2) + dot(z3).powi(2)
            + dot(x4).powi(2) + dot(y4).powi(2) + dot(z4).powi(2))
        - m * g * (z1 + z2 + z3 + z4),
    symmetry(cyclic(phi), cyclic(psi)),
    reduce(routh(phi, psi), name = ParticleTopNutation),
)]
struct ParticleTop {
    m: f64,
    a: f64,
    h: f64,
    g: f64,
}

#[test]
fn a_top_built_from_particles_reduces_over_precession_and_spin_like_the_euler_angle_top() {
    let body = ParticleTop { m: 0.5, a: 0.4, h: 0.7, g: 9.81 };
    let (m, a, h) = (body.m, body.a, body.h);
    let top = Top { i1: 4.0 * m * h * h + 2.0 * m * a * a, i3: 4.0 * m * a * a, mgl: 4.0 * m * body.g * h };
    let x0 = body.state([0.2, 0.6, -0.4], [0.5, 0.3, 6.0]);
    let opts = tight().output(Output::Times((1..=40).map(|i| f64::from(i) * 0.25).collect()));
    // The particles' Lagrangian is the rigid body's: same motion as the Euler-angle top.
    let full = body.run(x0).span(0.0..10.0).options(&opts).go().unwrap();
    let euler = top.run(x0).span(0.0..10.0).options(&opts).go().unwrap();
    let worst = full.states.iter().zip(&euler.states).map(|(p, q)| (p - q).amax()).fold(0.0, f64::max);
    assert!(worst < 1e-9, "particles vs Euler-angle top: {worst:e}");
    // Reduced over both angles: the same momenta and Routhian as the Euler top's reduction, and
    // reconstruction equals the full run.
    let (reduced, xr, angles) = body.particle_top_nutation(0.0, &x0);
    let (euler_reduced, xe, _) = top.top_routh(0.0, &x0);
    assert!((reduced.mu_phi - euler_reduced.mu_phi).abs() < 1e-12 && (reduced.mu_psi - euler_reduced.mu_psi).abs() < 1e-12);
    for th in [0.3, 0.6, 1.0, 1.4] {
        let x = SVector::<f64, 2>::new(th, 0.7);
        assert!((reduced.lagrangian(0.0, &x) - euler_reduced.lagrangian(0.0, &x)).abs() < 1e-11, "Routhians at θ = {th}");
    }
    assert_eq!(xr, xe);
    // The spin angle grows to about 60 rad over the run: errors relative to the state.
    let rec = reduced.run(xr).span(0.0..10.0).reconstructed(angles).options(&opts).go().unwrap();
    let worst = full.states.iter().zip(&rec.states).map(|(p, q)| (p - q).amax() / (1.0 + q.amax())).fold(0.0, f64::max);
    assert!(worst < 1e-9, "reduced + reconstruction vs full: {worst:e}");
}

/// *Hybrid momentum maps* Ex. 2's polar variant (the metric on the fibre depends on the shape,
/// g_θθ = m r²): a free particle in a circular billiard of radius r_w, θ cyclic. The Routhian is
/// R^μ = ½ m ṙ² − μ²/(2 m r²) (the amended potential μ²/(2 m r²)); the wall is rotation invariant,
/// so μ is unchanged at every impact (a hybrid momentum map). Closed forms: between impacts the
/// particle runs on a chord, r(t)² = r_min² + v²(t − t*)² with r_min = |μ|/(m v), so the impacts
/// come every 2√(r_w² − r_min²)/v and θ advances by the chord's central angle 2 arccos(r_min/r_w)
/// from one impact to the next. (The paper states this variant without numbers; no erratum applies.)
#[derive(Mechanics)]
#[mechanics(
    coordinates(r, th),
    lagrangian = m / 2 * (dot(r).powi(2) + (r * dot(th)).powi(2)),
    impact(name = wall, guard = rw - r, law = restitution(1)),
    symmetry(cyclic(th)),
    reduce(routh(th), name = CircleRadial),
)]
struct CircularBilliard {
    m: f64,
    rw: f64,
}

#[test]
fn the_circular_billiard_reduces_to_the_amended_potential_and_keeps_mu_at_the_wall() {
    let b = CircularBilliard { m: 1.3, rw: 1.0 };
    // From r = 0.4 moving outward at 30° to the radius, |v| = 1.5.
    let (r0, v, angle) = (0.4f64, 1.5f64, 0.5f64);
    let x0 = b.state([r0, 0.2], [v * angle.cos(), v * angle.sin() / r0]);
    let (red, xr0, g0) = b.circle_radial(0.0, &x0);
    let mu = b.m * r0 * v * angle.sin();
    assert!((red.mu_th - mu).abs() < 1e-15);
    // The Routhian and its amended potential at random states.
    let mut rng = common::Rng::new(7);
    for _ in 0..10 {
        let (r, rd) = (rng.uniform(0.2, 1.0), rng.uniform(-2.0, 2.0));
        let x = SVector::<f64, 2>::new(r, rd);
        let want = b.m / 2.0 * rd * rd - mu * mu / (2.0 * b.m * r * r);
        assert!((red.lagrangian(0.0, &x) - want).abs() < 1e-14, "R^μ at r = {r}");
    }
    // Chords: r_min = |μ|/(m v); the first impact where r reaches r_w, then every 2√(r_w² − r_min²)/v.
    let r_min = mu.abs() / (b.m * v);
    let t_star = -(r0 * r0 - r_min * r_min).sqrt() / v;
    let first = t_star + (b.rw * b.rw - r_min * r_min).sqrt() / v;
    let period = 2.0 * (b.rw * b.rw - r_min * r_min).sqrt() / v;
    let opts = routh::runtime::HybridOptions::default().ode(tight());
    let (reduced, jumps) = b.run(x0).span(0.0..10.0).reduced::<CircleRadial>().options(&opts).go().unwrap();
    let full = b.run(x0).span(0.0..10.0).options(&opts).go().unwrap();
    assert!(jumps.len() >= 8, "{} impacts", jumps.len());
    let chord = 2.0 * (r_min / b.rw).acos();
    for (k, ((j, a), f)) in jumps.iter().zip(&reduced.impacts).zip(&full.impacts).enumerate() {
        let t = first + k as f64 * period;
        assert!((j.t - t).abs() < 1e-9, "impact {k} at {} vs {t}", j.t);
        assert!((j.before[0] - mu).abs() < 1e-12 && (j.after[0] - mu).abs() < 1e-12, "μ at impact {k}: {j:?}");
        assert!((a.post - f.post).norm() < 1e-9, "reduced vs full after impact {k}");
        // The reconstructed angle advances by the chord's central angle from one impact to the next.
        if k > 0 {
            let turn = a.post[1] - reduced.impacts[k - 1].post[1];
            assert!((turn - chord).abs() < 1e-9, "θ advances by {turn} vs {chord}");
        }
    }
    // The amended-potential energy ½ m ṙ² + μ²/(2 m r²) is the particle's ½ m v².
    assert!((red.energy(0.0, &xr0) - b.m * v * v / 2.0).abs() < 1e-14 && g0 == [0.2]);
}
