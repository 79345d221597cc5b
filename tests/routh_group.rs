//! Non-abelian Routh reduction by the rotations of an orientation, `reduce(routh(r))`: the
//! reduced state (shape, body momentum Π, shape velocities) at a level of the spatial angular
//! momentum μ = R Π, the Routhian and its amended potential, reconstruction of the attitude, and
//! the hybrid case of *Hybrid momentum maps* Ex. 2 (Wong's equations on ℝ² × SO(3) with walls).
//!
//! Errata followed (`docs/references.md`): H16 — the isotropy groups G_μ of the levels before and
//! after an impact need the same orbit type (Prop. 3's equal-dimension argument is false for
//! SO(3)); here μ is unchanged at every impact (a hybrid momentum map), so one reduced system
//! serves the whole run. The paper gives no numbers for
//! Ex. 2; the digest's §4.2 checks are used (μ unchanged at impacts, amended potential |μ|²/(2I₀)
//! constant, reduced energy = full energy, reduced + reconstruction = full).

use nalgebra::{Matrix3, Quaternion, SVector, UnitQuaternion, Vector3};
use routh::prelude::*;

fn tight() -> Options {
    Options::default().rtol(1e-12).atol(1e-13)
}

/// The body's initial attitude, a unit quaternion (w, x, y, z).
fn attitude() -> [f64; 4] {
    let q = UnitQuaternion::from_euler_angles(0.3, -0.8, 1.9);
    [q.w, q.i, q.j, q.k]
}

fn rotation(x: &[f64]) -> UnitQuaternion<f64> {
    UnitQuaternion::from_quaternion(Quaternion::new(x[0], x[1], x[2], x[3]))
}

/// *Hybrid momentum maps* Ex. 2 as the digest's §4.2 makes it concrete: L = ½ m |ẋ|² + ½ I₀ |ω|²
/// on ℝ² × SO(3) (the bi-invariant metric), walls x₂ = ±w in the shape space.
#[derive(Mechanics)]
#[mechanics(
    coordinates(x1, x2),
    orientation(r),
    body(name = rotor, mass = m, centre = [x1, x2, 0], frame = r, inertia = diag(i0, i0, i0)),
    impact(name = upper, guard = w - x2, law = restitution(e)),
    impact(name = lower, guard = x2 + w, law = restitution(e)),
    symmetry(lx = rotation(r, [1, 0, 0]), ly = rotation(r, [0, 1, 0]), lz = rotation(r, [0, 0, 1])),
    reduce(routh(r), name = WongRouth),
)]
pub struct Wong {
    pub m: f64,
    pub i0: f64,
    pub w: f64,
    pub e: f64,
}

#[test]
fn wong_example_reduces_to_free_flight_with_a_constant_amended_potential_and_mu_unchanged_at_impacts() {
    let wong = Wong { m: 1.3, i0: 0.8, w: 0.5, e: 0.6 };
    assert_eq!(WongRouth::COORDINATES, ["x1", "x2", "r_pi1", "r_pi2", "r_pi3"]);
    assert_eq!(WongRouth::VELOCITIES, ["x1", "x2"]);
    assert_eq!(WongRouth::DROPPED, ["r_w", "r_x", "r_y", "r_z"]);
    let q0 = attitude();
    let x0 = wong.state([0.0, 0.1, q0[0], q0[1], q0[2], q0[3]], [0.7, 1.9, 0.4, -1.3, 0.9]);
    let (red, xr, g) = wong.wong_routh(0.0, &x0);
    assert_eq!(g, q0);
    // Π = I₀ ω, μ = R Π.
    let pi = Vector3::new(xr[2], xr[3], xr[4]);
    assert!((pi - Vector3::new(0.4, -1.3, 0.9) * 0.8).norm() < 1e-15);
    let mu = rotation(&q0) * pi;
    let mu_declared = Vector3::new(wong.lx_momentum(0.0, &x0), wong.ly_momentum(0.0, &x0), wong.lz_momentum(0.0, &x0));
    assert!((mu - mu_declared).norm() < 1e-14);
    // Wong's equations here: free flight in the shape (no cross terms, no curvature), Π̇ = Π × Π/I₀ = 0,
    // R^μ = ½ m |ẋ|² − |μ|²/(2 I₀).
    let f = VectorField::field(&red, 0.0, &xr).unwrap();
    assert!(f.fixed_rows::<5>(2).norm() < 1e-15, "{f:?}");
    assert!((f[0] - 0.7).abs() < 1e-15 && (f[1] - 1.9).abs() < 1e-15);
    let amended = pi.norm_squared() / (2.0 * wong.i0);
    assert!((red.amended_potential(0.0, &xr) - amended).abs() < 1e-15);
    let kinetic = 0.5 * wong.m * (0.7f64.powi(2) + 1.9f64.powi(2));
    assert!((red.routhian(0.0, &xr) - (kinetic - amended)).abs() < 1e-14);
    assert!((red.energy(0.0, &xr) - wong.energy(0.0, &x0)).abs() < 1e-14);

    // The hybrid run through the reduced system against the full model's.
    let opts = HybridOptions::default().ode(tight().output(Output::Interval(0.25)));
    let full = wong.run(x0).span(0.0..6.0).options(&opts).go().unwrap();
    let (rec, jumps) = wong.run(x0).span(0.0..6.0).reduced::<WongRouth>().options(&opts).go().unwrap();
    assert!(full.impacts.len() >= 4 && rec.impacts.len() == full.impacts.len(), "{} impacts", full.impacts.len());
    assert_eq!(jumps.len(), rec.impacts.len());
    let mut jump = 0.0f64;
    for ((j, a), b) in jumps.iter().zip(&rec.impacts).zip(&full.impacts) {
        assert!((j.t - b.t).abs() < 1e-10 && (a.t - b.t).abs() < 1e-10);
        let (before, after) = (Vector3::from(j.before), Vector3::from(j.after));
        jump = jump.max((after - before).norm() / mu.norm()).max((before - mu).norm() / mu.norm());
    }
    let mut gap = 0.0f64;
    let mut amended_drift = 0.0f64;
    for ((ta, a), (tb, b)) in full.iter().map(|(t, _, x)| (t, x)).zip(rec.iter().map(|(t, _, x)| (t, x))) {
        assert!((ta - tb).abs() < 1e-10, "{ta} vs {tb}");
        gap = gap.max((a - b).amax());
        let (_, xr, _) = wong.wong_routh(ta, a);
        amended_drift = amended_drift.max((red.amended_potential(ta, &xr) - amended).abs() / amended);
    }
    println!(
        "Wong Ex. 2 ({} impacts): |Δμ|/|μ| at impacts {jump:.1e}; amended potential drift {amended_drift:.1e}; \
         reduced + reconstruction against full {gap:.1e}",
        jumps.len()
    );
    assert!(jump < 1e-12, "μ unchanged at every impact: {jump:e}");
    assert!(amended_drift < 1e-12, "{amended_drift:e}");
    assert!(gap < 1e-9, "{gap:e}");
}

/// The digest's stronger variant: an asymmetric body (the metric on the fibres is left-invariant
/// only), so Π precesses by Euler's equations Π̇ = Π × I⁻¹Π on the sphere |Π| = |μ| while the
/// shape flies freely; μ = R Π is still a hybrid momentum map.
#[derive(Mechanics)]
#[mechanics(
    coordinates(x1, x2),
    orientation(r),
    body(name = rotor, mass = m, centre = [x1, x2, 0], frame = r, inertia = diag(i1, i2, i3)),
    impact(name = upper, guard = w - x2, law = restitution(e)),
    impact(name = lower, guard = x2 + w, law = restitution(e)),
    reduce(routh(r), name = AsymmetricWongRouth),
    reduce(euler_poincare(r), name = AsymmetricWongEuler),
)]
pub struct AsymmetricWong {
    pub m: f64,
    pub i1: f64,
    pub i2: f64,
    pub i3: f64,
    pub w: f64,
    pub e: f64,
}

#[test]
fn an_asymmetric_body_precesses_on_the_momentum_sphere_and_mu_survives_every_impact() {
    let body = AsymmetricWong { m: 1.3, i1: 1.0, i2: 2.0, i3: 3.0, w: 0.5, e: 0.6 };
    let inertia = Matrix3::from_diagonal(&Vector3::new(body.i1, body.i2, body.i3));
    let q0 = attitude();
    let x0 = body.state([0.0, 0.1, q0[0], q0[1], q0[2], q0[3]], [0.7, 1.9, 0.4, -1.3, 0.9]);
    let (red, _, _) = body.asymmetric_wong_routh(0.0, &x0);
    // Euler's equations for Π at random points of the reduced state.
    for p in [[0.3, -1.1, 0.8], [-2.0, 0.4, 1.5]] {
        let x = SVector::<f64, 7>::from([0.2, -0.1, p[0], p[1], p[2], 0.3, 0.5]);
        let f = VectorField::field(&red, 0.0, &x).unwrap();
        let pi = Vector3::from(p);
        let want = pi.cross(&(inertia.try_inverse().unwrap() * pi));
        assert!((f.fixed_rows::<3>(2) - want).norm() < 1e-14, "{f:?}");
        assert!(f[5].abs() < 1e-15 && f[6].abs() < 1e-15);
        let amended = 0.5 * (p[0] * p[0] / body.i1 + p[1] * p[1] / body.i2 + p[2] * p[2] / body.i3);
        assert!((red.amended_potential(0.0, &x) - amended).abs() < 1e-14);
    }
    let opts = HybridOptions::default().ode(tight().output(Output::Interval(0.25)));
    let full = body.run(x0).span(0.0..6.0).options(&opts).go().unwrap();
    let (rec, jumps) = body.run(x0).span(0.0..6.0).reduced::<AsymmetricWongRouth>().options(&opts).go().unwrap();
    assert!(jumps.len() >= 4 && jumps.len() == full.impacts.len());
    let mu0 = rotation(&q0) * (inertia * Vector3::new(0.4, -1.3, 0.9));
    let mut jump = 0.0f64;
    for j in &jumps {
        jump =
            jump.max((Vector3::from(j.after) - mu0).norm() / mu0.norm()).max((Vector3::from(j.before) - mu0).norm() / mu0.norm());
    }
    let (mut gap, mut sphere) = (0.0f64, 0.0f64);
    for ((t, a), b) in full.iter().map(|(t, _, x)| (t, x)).zip(rec.states.iter()) {
        gap = gap.max((a - b).amax());
        let (_, xr, _) = body.asymmetric_wong_routh(t, b);
        sphere = sphere.max(((xr.fixed_rows::<3>(2)).norm() - mu0.norm()).abs() / mu0.norm());
    }
    println!(
        "asymmetric Wong body: |Δμ|/|μ| at impacts {jump:.1e}; |Π| drift {sphere:.1e}; reduced + reconstruction against full {gap:.1e}"
    );
    assert!(jump < 1e-11 && sphere < 1e-11 && gap < 1e-9, "{jump:e} {sphere:e} {gap:e}");
    // The Euler–Poincaré reduction of the same model across its impacts (the reduced state keeps
    // the shape and ω; the guards see only the shape): the same run.
    let ep = body.run(x0).span(0.0..6.0).reduced::<AsymmetricWongEuler>().options(&opts).go().unwrap();
    assert_eq!(ep.impacts.len(), full.impacts.len());
    let gap = full.states.iter().zip(&ep.states).map(|(a, b)| (a - b).amax()).fold(0.0, f64::max);
    assert!(gap < 1e-9, "Euler–Poincaré across impacts: {gap:e}");
}

/// A spinning body whose shape changes its inertia: two masses mm slide on the body's first axis at
/// ±s, held by springs of stiffness k about s₀ — the amended potential
/// V_μ = ½ k (s − s₀)² + ½ Πᵀ I(s)⁻¹ Π with I(s) = diag(a, b + 2 mm s², c + 2 mm s²) pushes them
/// out as the body spins (a skater's arms).
#[derive(Mechanics)]
#[mechanics(
    coordinates(s),
    orientation(r),
    lagrangian = mm * dot(s).powi(2)
        + (a * omega(r)[0].powi(2) + (b + 2 * mm * s.powi(2)) * omega(r)[1].powi(2)
            + (c + 2 * mm * s.powi(2)) * omega(r)[2].powi(2)) / 2
        - k / 2 * (s - s0).powi(2),
    reduce(routh(r), name = SkaterRouth),
)]
pub struct Skater {
    pub mm: f64,
    pub a: f64,
    pub b: f64,
    pub c: f64,
    pub k: f64,
    pub s0: f64,
}

#[test]
fn a_skaters_arms_follow_the_closed_form_lagrange_routh_equation_and_its_relative_equilibrium() {
    let sk = Skater { mm: 0.4, a: 1.0, b: 1.5, c: 2.2, k: 3.0, s0: 0.6 };
    let (mm, a, b, c, k, s0) = (sk.mm, sk.a, sk.b, sk.c, sk.k, sk.s0);
    let red = SkaterRouth { mm, a, b, c, k, s0 };
    // The closed form: 2 mm s̈ = 2 mm s (Π₂²/(b + 2mm s²)² + Π₃²/(c + 2mm s²)²) − k (s − s₀).
    for (s, p, sd) in [(0.7, [0.3, -1.1, 0.8], 0.4), (1.3, [-2.0, 0.4, 1.5], -0.2)] {
        let x = SVector::<f64, 5>::from([s, p[0], p[1], p[2], sd]);
        let f = VectorField::field(&red, 0.0, &x).unwrap();
        let (ib, ic) = (b + 2.0 * mm * s * s, c + 2.0 * mm * s * s);
        let sdd = (2.0 * mm * s * (p[1] * p[1] / (ib * ib) + p[2] * p[2] / (ic * ic)) - k * (s - s0)) / (2.0 * mm);
        assert!((f[4] - sdd).abs() < 1e-13, "{} vs {sdd}", f[4]);
        let amended = 0.5 * k * (s - s0).powi(2) + 0.5 * (p[0] * p[0] / a + p[1] * p[1] / ib + p[2] * p[2] / ic);
        assert!((red.amended_potential(0.0, &x) - amended).abs() < 1e-14);
        assert!((red.routhian(0.0, &x) - (mm * sd * sd - amended)).abs() < 1e-14);
    }
    // A steady spin about the third axis: s* solves 2 mm s P²/(c + 2 mm s²)² = k (s − s₀).
    let p = 2.5;
    let residual = |s: f64| 2.0 * mm * s * p * p / (c + 2.0 * mm * s * s).powi(2) - k * (s - s0);
    let (mut lo, mut hi) = (s0, 5.0);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if residual(mid) > 0.0 { lo = mid } else { hi = mid }
    }
    let s_star = 0.5 * (lo + hi);
    let guess = SVector::<f64, 5>::from([s_star + 0.05, 0.0, 0.0, p, 0.01]);
    // Hold Π₃ (the Casimir |Π| makes the fixed points a family).
    let eq =
        red.relative_equilibrium(0.0, guess, &routh::runtime::equilibrium::FixedPointOptions::default().fixed(vec![3])).unwrap();
    assert!((eq.state[0] - s_star).abs() < 1e-10, "{} vs {s_star}", eq.state[0]);
    // Linearly: s oscillates about s* (a centre), Π on the sphere about the stable major axis.
    // Linearly (the exact Jacobian): the arms oscillate at ω_s² = V_μ''(s*)/(2 mm), Π precesses about
    // the major axis at ω_p² = P² (1/a − 1/I₃)(1/I₂ − 1/I₃), and |Π| is neutral (a zero eigenvalue).
    let (i2, i3) = (b + 2.0 * mm * s_star * s_star, c + 2.0 * mm * s_star * s_star);
    let v2 = k + p * p * (-2.0 * mm / (i3 * i3) + 16.0 * mm * mm * s_star * s_star / (i3 * i3 * i3));
    let (ws, wp) = ((v2 / (2.0 * mm)).sqrt(), (p * p * (1.0 / a - 1.0 / i3) * (1.0 / i2 - 1.0 / i3)).sqrt());
    let mut eigenvalues = eq.eigenvalues();
    eigenvalues.sort_by(|x, y| x.1.abs().total_cmp(&y.1.abs()));
    let mut want = [0.0, ws, ws, wp, wp];
    want.sort_by(f64::total_cmp);
    for (l, w) in eigenvalues.iter().zip(want) {
        assert!(l.0.abs() < 1e-10 && (l.1.abs() - w).abs() < 1e-10, "{eigenvalues:?} vs ±i{ws}, ±i{wp}, 0");
    }
    // The generated Jacobian against central differences of the field.
    let x = SVector::<f64, 5>::from([0.8, 0.3, -0.6, 1.4, 0.2]);
    let exact = red.exact_jacobian(0.0, &x).unwrap().unwrap();
    let fd = routh::runtime::jacobian_fd(&red, 0.0, &x, 0.0).unwrap();
    assert!((exact - fd).amax() < 1e-8, "{:e}", (exact - fd).amax());

    // The full SO(3) run against reduced + reconstruction, the spatial momentum conserved.
    let q0 = attitude();
    let x0 = sk.state([0.9, q0[0], q0[1], q0[2], q0[3]], [0.3, 0.5, -0.8, 1.7]);
    let (r, xr, g) = sk.skater_routh(0.0, &x0);
    assert!(r == red && g == q0);
    let options = tight().output(Output::Interval(0.5));
    let full = sk.run(x0).span(0.0..10.0).options(&options).go().unwrap();
    let rec = red.run(xr).span(0.0..10.0).reconstructed(g).options(&options).go().unwrap();
    let reduced = red.run(xr).span(0.0..10.0).options(&options).go().unwrap();
    let mu0 = rotation(&q0) * Vector3::new(xr[1], xr[2], xr[3]);
    let (mut gap, mut drift, mut energy) = (0.0f64, 0.0f64, 0.0f64);
    for ((f, x), z) in full.states.iter().zip(&rec.states).zip(&reduced.states) {
        gap = gap.max((f - x).amax());
        let mu = rotation(&[x[1], x[2], x[3], x[4]]) * Vector3::new(z[1], z[2], z[3]);
        drift = drift.max((mu - mu0).norm() / mu0.norm());
        energy = energy.max((red.energy(0.0, z) - sk.energy(0.0, &x0)).abs());
    }
    println!("skater over 10 s: reduced + reconstruction against full {gap:.1e}; |μ − μ₀|/|μ₀| {drift:.1e}; energy {energy:.1e}");
    assert!(gap < 1e-9 && drift < 1e-10 && energy < 1e-10, "{gap:e} {drift:e} {energy:e}");
}

/// A rotor pinned at its centre, in free space, with a slider of mass ms on a rail offset by d
/// from the rotor's axis: the shape velocity couples to the rotation (the Routhian's gyroscopic
/// term ṡ·B I⁻¹ Π and the curvature of the mechanical connection). Reduced + reconstruction is
/// checked against the full model, and the shape equation against the full model's accelerations.
#[derive(Mechanics)]
#[mechanics(
    coordinates(s),
    orientation(r),
    body(name = hub, mass = mh, centre = [0, 0, 0], frame = r, inertia = diag(a, b, c)),
    body(name = slider, mass = ms, centre = r * [s, d, 0], frame = r, inertia = diag(j, j, j)),
    lagrangian = -k / 2 * (s - s0).powi(2),
    reduce(routh(r), name = RailRouth),
)]
pub struct Rail {
    pub mh: f64,
    pub a: f64,
    pub b: f64,
    pub c: f64,
    pub ms: f64,
    pub d: f64,
    pub j: f64,
    pub k: f64,
    pub s0: f64,
}

#[test]
fn a_slider_on_an_offset_rail_couples_shape_and_rotation_and_the_reduction_keeps_it_exact() {
    let rail = Rail { mh: 2.0, a: 1.0, b: 1.4, c: 1.9, ms: 0.5, d: 0.3, j: 0.02, k: 4.0, s0: 0.2 };
    let q0 = attitude();
    let x0 = rail.state([0.4, q0[0], q0[1], q0[2], q0[3]], [0.6, 0.9, -0.7, 1.3]);
    let (red, xr, g) = rail.rail_routh(0.0, &x0);
    // The reduced shape acceleration and Π̇ are the full model's at the same state.
    let fr = VectorField::field(&red, 0.0, &xr).unwrap();
    let ff = VectorField::field(&rail, 0.0, &x0).unwrap();
    assert!((fr[4] - ff[5]).abs() < 1e-13, "s̈: {} vs {}", fr[4], ff[5]);
    // Π = ∂L/∂ω at the full state, its body rate d/dt Π = Π × ω.
    let omega = Vector3::new(x0[6], x0[7], x0[8]);
    let pi = Vector3::new(xr[1], xr[2], xr[3]);
    assert!((fr.fixed_rows::<3>(1) - pi.cross(&omega)).norm() < 1e-13);
    // The coupling is real: Π is not I ω alone.
    assert!((pi - Vector3::new(rail.a * 0.9, rail.b * -0.7, rail.c * 1.3)).norm() > 0.1);
    let options = tight().output(Output::Interval(0.5));
    let full = rail.run(x0).span(0.0..10.0).options(&options).go().unwrap();
    let rec = red.run(xr).span(0.0..10.0).reconstructed(g).options(&options).go().unwrap();
    let gap = full.states.iter().zip(&rec.states).map(|(a, b)| (a - b).amax()).fold(0.0, f64::max);
    println!("offset rail over 10 s: reduced + reconstruction against full {gap:.1e}");
    assert!(gap < 1e-9, "{gap:e}");
}
