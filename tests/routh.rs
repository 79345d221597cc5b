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
    let sol = red.simulate(xr0, 0.0..period, &tight()).unwrap();
    let (rmin, rmax) = sol.iter().fold((f64::MAX, 0.0f64), |(lo, hi), (_, x)| (lo.min(x[0]), hi.max(x[0])));
    assert!((rmin - a * (1.0 - ecc)).abs() < 1e-6 && (rmax - a * (1.0 + ecc)).abs() < 1e-6, "apsides {rmin} {rmax}");
    let (_, end) = sol.last().unwrap();
    assert!((end[0] - xr0[0]).abs() < 1e-8 && (end[1] - xr0[1]).abs() < 1e-8, "radial motion has period {period}");
    let opts = tight().output(Output::Times((1..=20).map(|i| i as f64 * 0.25).collect()));
    let recon = red.simulate_reconstructed(xr0, theta0, 0.0..5.0, &opts).unwrap();
    let reference = full.simulate(x0, 0.0..5.0, &opts).unwrap();
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
    let sol = red.simulate(xr0, 0.0..20.0, &tight()).unwrap();
    let (mn, mx) = sol.iter().fold((f64::MAX, f64::MIN), |(a, b), (_, x)| (a.min(x[0]), b.max(x[0])));
    assert!(mn > th_lo - 1e-7 && mx < th_hi + 1e-7, "nutation [{mn}, {mx}] outside the roots [{th_lo}, {th_hi}]");
    assert!(mn < th_lo + 1e-3 && mx > th_hi - 1e-3, "nutation reaches both roots: [{mn}, {mx}] vs [{th_lo}, {th_hi}]");
    // Reduced + reconstruction equals the full simulation.
    let opts = tight().output(Output::Times((1..=40).map(|i| i as f64 * 0.25).collect()));
    let recon = red.simulate_reconstructed(xr0, angles0, 0.0..10.0, &opts).unwrap();
    let full = top.simulate(x0, 0.0..10.0, &opts).unwrap();
    for (a, b) in recon.states.iter().zip(&full.states) {
        assert!((a - b).norm() < 1e-8 * (1.0 + b.norm()), "reconstructed {a} vs full {b}");
    }
}
