//! Constraints that switch on at a transition: the rolling sphere of *Contact impulsive
//! constraints*, Example 3 (§4), conservative variant (no contact damping β; the contact version
//! comes with the Herglotz dynamics). The plane is smooth for x < 0 and absolutely rough for
//! x > 0: crossing x = 0 the rolling constraints switch on, and the velocities jump to their
//! kinetic-metric projection onto the rolling distribution (the paper's eq. (21)).

use routh::prelude::*;
use routh::runtime::HybridSystem;

/// Homogeneous sphere (mass 1, radius r, k² = 2r²/5) with centre (x, y) and Euler angles
/// (φ, θ, ψ); (wx, wy, wz) is the space-frame angular velocity (the paper's formulas with its
/// typo θ → θ̇ in ω_x corrected, erratum C7 (E16) of `docs/references.md`).
#[derive(Mechanics)]
#[mechanics(
    coordinates(x, y, phi, theta, psi),
    define(
        wx = dot(theta) * psi.cos() + dot(phi) * theta.sin() * psi.sin(),
        wy = dot(theta) * psi.sin() - dot(phi) * theta.sin() * psi.cos(),
        wz = dot(phi) * theta.cos() + dot(psi),
    ),
    lagrangian = (dot(x).powi(2) + dot(y).powi(2) + k2 * (wx.powi(2) + wy.powi(2) + wz.powi(2))) / 2,
    mode(smooth),
    mode(rough, constraint(roll_x = dot(x) - r * wy, roll_y = dot(y) + r * wx)),
    transition(smooth -> rough, name = onto_rough, guard = -x, law = project),
    transition(rough -> smooth, name = onto_smooth, guard = x, law = map()),
)]
struct Sphere {
    k2: f64,
    r: f64,
}

/// Space-frame angular velocity of a state (θ = π/2, ψ = 0 at the start: ω = (θ̇, −φ̇, ψ̇)).
fn omega(x: &routh::nalgebra::SVector<f64, 10>) -> [f64; 3] {
    let (th, ps) = (x[3], x[4]);
    let (dphi, dth, dps) = (x[7], x[8], x[9]);
    [dth * ps.cos() + dphi * th.sin() * ps.sin(), dth * ps.sin() - dphi * th.sin() * ps.cos(), dphi * th.cos() + dps]
}

fn kinetic(s: &Sphere, x: &routh::nalgebra::SVector<f64, 10>) -> f64 {
    let w = omega(x);
    0.5 * (x[5] * x[5] + x[6] * x[6] + s.k2 * (w[0] * w[0] + w[1] * w[1] + w[2] * w[2]))
}

fn tight() -> HybridOptions {
    HybridOptions::default().rtol(1e-12).atol(1e-13)
}

#[test]
fn rolling_constraints_switch_on_by_the_kinetic_metric_projection() {
    let s = Sphere { k2: 0.4, r: 1.0 };
    // Rolling without slipping on the plane is nonholonomic (the Frobenius test of the derive).
    let nonholonomic = routh::runtime::ConstraintKind::Nonholonomic;
    assert_eq!(SphereRough::CONSTRAINT_KINDS, [nonholonomic, nonholonomic]);
    assert_eq!(SphereRough::CONSTRAINTS_INTEGRABLE, Some(false));
    // x₀ = −1, ẋ₀ = 2, ẏ₀ = 0.3, ω₀ = (0.5, −1, 2) (reference run R6), at θ = π/2, ψ = 0.
    let half_pi = std::f64::consts::FRAC_PI_2;
    let x0 = s.smooth_state([-1.0, 0.0, 0.0, half_pi, 0.0], [2.0, 0.3, 1.0, 0.5, 2.0]);
    let sol = s.run(x0).span(0.0..3.0).options(tight()).go().unwrap();
    assert_eq!(sol.mode_sequence(), vec![Sphere::SMOOTH, Sphere::ROUGH]);
    let imp = &sol.impacts[0];
    assert!((imp.t - 0.5).abs() < 1e-12, "impact at {}", imp.t);
    // Closed form of eq. (21) with D = k² + r²: ẋ₊ = (r²ẋ₋ + r k² ω_y⁻)/D etc. With β = 0 the
    // pre-impact state is the initial one, so run R6's 6/7 (for β = 1/2) becomes 8/7.
    let (k2, r) = (s.k2, s.r);
    let d = k2 + r * r;
    let (vx, vy, w) = (imp.pre[5], imp.pre[6], omega(&imp.pre));
    let expected = [
        (r * r * vx + r * k2 * w[1]) / d,
        (r * r * vy - r * k2 * w[0]) / d,
        (-r * vy + k2 * w[0]) / d,
        (r * vx + k2 * w[1]) / d,
        w[2],
    ];
    assert!((expected[0] - 8.0 / 7.0).abs() < 1e-12 && (expected[1] - 1.0 / 14.0).abs() < 1e-12, "{expected:?}");
    let wp = omega(&imp.post);
    let got = [imp.post[5], imp.post[6], wp[0], wp[1], wp[2]];
    for (k, (g, e)) in got.iter().zip(&expected).enumerate() {
        assert!((g - e).abs() < 1e-12, "component {k}: {g} vs {e}");
    }
    // Positions never jump; the post-impact state satisfies the new constraints exactly.
    assert!((0..5).all(|i| imp.post[i] == imp.pre[i]));
    assert!(s.rough().velocity_residuals(imp.t, &imp.post).amax() < 1e-14);
    // Carnot: ΔT = −½ k²/(k² + r²) [(ẋ − rω_y)² + (ẏ + rω_x)²] before the impact.
    let slip = (vx - r * w[1]).powi(2) + (vy + r * w[0]).powi(2);
    let carnot = -0.5 * k2 / d * slip;
    assert!((imp.energy_jump() - carnot).abs() < 1e-12, "ΔE = {} vs {carnot}", imp.energy_jump());
    assert!((kinetic(&s, &imp.post) - kinetic(&s, &imp.pre) - carnot).abs() < 1e-12);
    // The projection is idempotent: projecting the projected state changes nothing.
    let (_, again) = s.reset(Sphere::SMOOTH, 0, imp.t, &imp.post).unwrap();
    assert!((again - imp.post).amax() < 1e-14);
    // Rolling on the rough side without damping: no constraint force, constant velocities.
    let (_, last) = (sol.times.last().unwrap(), sol.states.last().unwrap());
    assert!((last[5] - 8.0 / 7.0).abs() < 1e-10 && (last[6] - 1.0 / 14.0).abs() < 1e-10);
    assert!(s.rough().constraint_forces(3.0, last).unwrap().amax() < 1e-10);
    // Drift control in the hybrid run: every rough-mode sample is on the rolling distribution.
    for ((&t, &m), x) in sol.times.iter().zip(&sol.modes).zip(&sol.states) {
        if m == Sphere::ROUGH {
            assert!(s.rough().velocity_residuals(t, x).amax() < 1e-13, "t = {t}");
        }
    }
    assert!((s.rough().energy(3.0, last) - kinetic(&s, &imp.post)).abs() < 1e-10);
}

#[test]
fn strong_backspin_releases_at_once_without_chatter() {
    // ω_y⁻ ≤ −r ẋ⁻/k² makes ẋ₊ ≤ 0: the sphere rolls back into the smooth region at the same
    // instant — released with no impulse, and no chatter.
    let s = Sphere { k2: 0.4, r: 1.0 };
    let half_pi = std::f64::consts::FRAC_PI_2;
    let x0 = s.smooth_state([-1.0, 0.0, 0.0, half_pi, 0.0], [2.0, 0.3, 7.0, 0.5, 2.0]); // ω_y = −7
    let sol = s.run(x0).span(0.0..3.0).options(tight()).go().unwrap();
    assert_eq!(sol.mode_sequence(), vec![Sphere::SMOOTH, Sphere::ROUGH, Sphere::SMOOTH]);
    assert_eq!(sol.impacts.len(), 2, "{:?}", sol.impacts.iter().map(|i| (i.t, i.guard)).collect::<Vec<_>>());
    let (on, off) = (&sol.impacts[0], &sol.impacts[1]);
    assert_eq!((on.guard, off.guard), ("onto_rough", "onto_smooth"));
    assert_eq!(on.t, off.t);
    let vx_plus = (2.0 - s.r * s.k2 * 7.0) / (s.k2 + s.r * s.r);
    assert!((on.post[5] - vx_plus).abs() < 1e-12 && vx_plus < 0.0);
    assert_eq!(off.post, off.pre, "released with no impulse");
    // Back on the smooth side it moves away freely.
    let last = sol.states.last().unwrap();
    assert!((last[5] - vx_plus).abs() < 1e-12 && last[0] < 0.0);
}
