//! Nonholonomic reduction (`reduce(nonholonomic(...), velocities(...))`): Maggi's equations on a
//! section, the dropped coordinates proved absent (*Affine constraints reduction*, §2.5 and §3.4).

#[path = "../examples/models/chaplygin.rs"]
#[allow(dead_code)]
mod chaplygin;

use chaplygin::{ChaplyginSleigh as Sleigh, SleighReduced};
use routh::prelude::*;

#[test]
fn the_reduced_sleigh_is_chaplygins_system() {
    let s = Sleigh { m: 2.0, i: 0.3, a: 0.4 };
    let red = SleighReduced { m: s.m, i: s.i, a: s.a };
    for (v, w) in [(1.0, 0.5), (-0.3, 2.0), (0.7, -1.1)] {
        let x = red.state([], [v, w]);
        let f = VectorField::field(&red, 0.0, &x).unwrap();
        let want = [s.a * w * w, -s.m * s.a * v * w / (s.i + s.m * s.a * s.a)];
        assert!((f[0] - want[0]).abs() < 1e-12 && (f[1] - want[1]).abs() < 1e-12, "{f:?} vs {want:?}");
    }
}

#[test]
fn reduced_and_reconstructed_is_the_full_sleigh() {
    let s = Sleigh { m: 2.0, i: 0.3, a: 0.4 };
    let (th, v, w) = (0.3, 1.0, 0.8);
    let x0 = s.state([0.1, -0.2, th], [v * th.cos() - s.a * w * th.sin(), v * th.sin() + s.a * w * th.cos(), w]);
    let (red, xr, g) = s.sleigh_reduced(0.0, &x0);
    assert!((xr[0] - v).abs() < 1e-15 && (xr[1] - w).abs() < 1e-15 && g == [0.1, -0.2, th]);
    let options = Options::default().rtol(1e-12).atol(1e-12).output(Output::Times(vec![2.0, 5.0, 10.0]));
    let full = s.run(x0).span(0.0..10.0).options(&options).go().unwrap();
    let rec = red.run(xr).span(0.0..10.0).reconstructed(g).options(&options).go().unwrap();
    let mut worst = 0.0f64;
    for (a, b) in full.states.iter().zip(&rec.states) {
        worst = worst.max((a - b).amax());
    }
    eprintln!("sleigh: reduced + reconstructed vs full over 10 s: {worst:.1e}");
    assert!(worst < 1e-9, "{worst:e}");
}

/// The guide's rolling disk (`tests/ui/reduction_with_constraints.rs` refuses its Routh
/// reduction): reduced nonholonomically, by its rolling and heading rates, with every coordinate
/// dropped.
#[derive(Mechanics)]
#[mechanics(
    coordinates(x, y, th, phi),
    lagrangian = m / 2 * (dot(x).powi(2) + dot(y).powi(2)) + i / 2 * dot(phi).powi(2) + j / 2 * dot(th).powi(2),
    constraint(roll_x = dx - r * th.cos() * dphi, roll_y = dy - r * th.sin() * dphi),
    reduce(nonholonomic(x, y, th, phi), velocities(phi, th), name = DiskReduced),
)]
pub struct RollingDisk {
    pub m: f64,
    pub i: f64,
    pub j: f64,
    pub r: f64,
}

#[test]
fn the_rolling_disk_reduces_to_its_nonholonomic_momenta() {
    let d = RollingDisk { m: 1.0, i: 0.5, j: 0.25, r: 1.0 };
    let x0 = d.state([0.0, 0.0, 0.0, 0.0], [1.0, 0.0, 1.0, 1.0]);
    let (red, xr, g) = d.disk_reduced(0.0, &x0);
    // The nonholonomic momentum equations: (I + m r²) φ̈ = 0 and J θ̈ = 0, so u̇ ≡ 0; the reduced
    // matrix is diag(I + m r², J).
    let m = red.mass(0.0, &xr);
    assert_eq!((m[(0, 0)], m[(0, 1)], m[(1, 1)]), (d.i + d.m * d.r * d.r, 0.0, d.j));
    assert_eq!(VectorField::field(&red, 0.0, &red.state([], [0.7, -1.3])).unwrap().amax(), 0.0);
    let options = Options::default().rtol(1e-12).atol(1e-12).output(Output::Times(vec![1.0, 3.0]));
    let full = d.run(x0).span(0.0..3.0).options(&options).go().unwrap();
    let rec = red.run(xr).span(0.0..3.0).reconstructed(g).options(&options).go().unwrap();
    // After 1 s the disk is at (sin 1, 1 − cos 1) on its circle (the guide's (0.8415, 0.4597)).
    let at1 = &rec.states[0];
    assert!((at1[0] - 1f64.sin()).abs() < 1e-10 && (at1[1] - (1.0 - 1f64.cos())).abs() < 1e-10, "{at1:?}");
    for (a, b) in full.states.iter().zip(&rec.states) {
        assert!((a - b).amax() < 1e-10, "{:e}", (a - b).amax());
    }
    // The energy is the reduced one, ½ uᵀ M u.
    let e = red.energy(0.0, &xr);
    assert!((e - d.energy(0.0, &x0)).abs() < 1e-15 && (e - 0.5 * (1.5 + 0.25)).abs() < 1e-15);
}

/// A free asymmetric rigid body, its orientation a quaternion state, reduced by Euler–Poincaré:
/// the orientation dropped, the state is the body angular velocity.
#[derive(Mechanics)]
#[mechanics(
    orientation(r),
    body(name = brick, mass = m, centre = [0, 0, 0], frame = r, inertia = diag(i1, i2, i3)),
    reduce(euler_poincare(r), name = EulerBody),
)]
pub struct FreeBody {
    pub m: f64,
    pub i1: f64,
    pub i2: f64,
    pub i3: f64,
}

#[test]
fn euler_poincare_gives_eulers_equations_and_the_attitude_back() {
    let body = FreeBody { m: 1.0, i1: 1.0, i2: 2.0, i3: 2.75 };
    let red = EulerBody { m: 1.0, i1: 1.0, i2: 2.0, i3: 2.75 };
    assert_eq!(EulerBody::VELOCITIES, ["r_omega1", "r_omega2", "r_omega3"]);
    assert_eq!(EulerBody::DROPPED, ["r_w", "r_x", "r_y", "r_z"]);
    // Euler's equations I₁ω̇₁ = (I₂ − I₃)ω₂ω₃ and cyclically.
    let (i1, i2, i3) = (body.i1, body.i2, body.i3);
    for w in [[0.3, -1.2, 0.7], [2.0, 0.1, -0.4]] {
        let f = VectorField::field(&red, 0.0, &red.state([], w)).unwrap();
        let want = [(i2 - i3) * w[1] * w[2] / i1, (i3 - i1) * w[2] * w[0] / i2, (i1 - i2) * w[0] * w[1] / i3];
        for k in 0..3 {
            assert!((f[k] - want[k]).abs() < 1e-14, "{f:?} vs {want:?}");
        }
    }
    // Near the unstable middle axis: the full SO(3) run against reduced + reconstruction.
    let q0 = [0.9f64, 0.1, -0.3, 0.2];
    let n = q0.iter().map(|c| c * c).sum::<f64>().sqrt();
    let q0 = q0.map(|c| c / n);
    let x0 = body.state(q0, [0.05, 1.5, -0.02]);
    let (r, xr, g) = body.euler_body(0.0, &x0);
    assert!(r == red && (xr[1] - 1.5).abs() < 1e-15 && g == q0);
    let options = Options::default().rtol(1e-13).atol(1e-14).output(Output::Interval(0.5));
    let full = body.run(x0).span(0.0..10.0).options(&options).go().unwrap();
    let reduced = red.run(xr).span(0.0..10.0).options(&options).go().unwrap();
    let rec = red.run(xr).span(0.0..10.0).reconstructed(g).options(&options).go().unwrap();
    let (mut dw, mut dq) = (0.0f64, 0.0f64);
    for ((f, w), x) in full.states.iter().zip(&reduced.states).zip(&rec.states) {
        dw = dw.max((0..3).map(|k| (f[4 + k] - w[k]).abs()).fold(0.0, f64::max));
        dq = dq.max((0..4).map(|k| (f[k] - x[k]).abs()).fold(0.0, f64::max));
        let de = red.energy(0.0, w) - body.energy(0.0, &x0);
        assert!(de.abs() < 1e-11, "energy {de:e}");
    }
    eprintln!("free body over 10 s: |ω_full − ω_reduced| ≤ {dw:.1e}, |q_full − q_reconstructed| ≤ {dq:.1e}");
    assert!(dw < 1e-12 && dq < 1e-10, "{dw:e}, {dq:e}");
}

/// The rolling disk between walls x = ±1 (restitution e, the rolling rows kept at the impact): a
/// nonholonomic reduction of a model with impacts. The guards see the dropped x, so they are
/// evaluated on the reconstructed state; each impact maps the reduced velocities by the closed
/// form (φ̇, θ̇) ↦ (−e φ̇, θ̇) — the wall's impulse and the rolling rows' impulses have no θ
/// component, and ẋ = r cos θ φ̇ must reverse by −e.
#[derive(Mechanics)]
#[mechanics(
    coordinates(x, y, th, phi),
    lagrangian = m / 2 * (dot(x).powi(2) + dot(y).powi(2)) + i / 2 * dot(phi).powi(2) + j / 2 * dot(th).powi(2),
    constraint(roll_x = dx - r * th.cos() * dphi, roll_y = dy - r * th.sin() * dphi),
    impact(name = right, guard = 1 - x, law = restitution(e)),
    impact(name = left, guard = x + 1, law = restitution(e)),
    reduce(nonholonomic(x, y, th, phi), velocities(phi, th), name = DiskBetweenWallsReduced),
)]
pub struct DiskBetweenWalls {
    pub m: f64,
    pub i: f64,
    pub j: f64,
    pub r: f64,
    pub e: f64,
}

#[test]
fn a_nonholonomic_reduction_runs_across_impacts_and_each_impact_is_the_closed_form_map() {
    let d = DiskBetweenWalls { m: 1.0, i: 0.5, j: 0.25, r: 0.5, e: 0.8 };
    let (phid, thd) = (3.0, 0.2);
    let x0 = d.state([0.0, 0.0, 0.1, 0.0], [d.r * 0.1f64.cos() * phid, d.r * 0.1f64.sin() * phid, thd, phid]);
    let opts = HybridOptions::default().ode(Options::default().rtol(1e-12).atol(1e-13).output(Output::Interval(0.5)));
    let full = d.run(x0).span(0.0..12.0).options(&opts).go().unwrap();
    let rec = d.run(x0).span(0.0..12.0).reduced::<DiskBetweenWallsReduced>().options(&opts).go().unwrap();
    assert!(full.impacts.len() >= 4 && rec.impacts.len() == full.impacts.len(), "{} impacts", full.impacts.len());
    let mut map = 0.0f64;
    for (a, b) in rec.impacts.iter().zip(&full.impacts) {
        assert!(a.guard == b.guard && (a.t - b.t).abs() < 1e-10, "{} at {} vs {} at {}", a.guard, a.t, b.guard, b.t);
        let (_, before, _) = d.disk_between_walls_reduced(a.t, &a.pre);
        let (_, after, _) = d.disk_between_walls_reduced(a.t, &a.post);
        map = map.max((after[0] + d.e * before[0]).abs()).max((after[1] - before[1]).abs());
    }
    let gap = full.states.iter().zip(&rec.states).map(|(a, b)| (a - b).amax()).fold(0.0, f64::max);
    eprintln!(
        "disk between walls ({} impacts): impact map against (−eφ̇, θ̇) {map:.1e}; reduced against full {gap:.1e}",
        rec.impacts.len()
    );
    assert!(map < 1e-12 && gap < 1e-9, "{map:e} {gap:e}");
}

/// Bloch's nonholonomic particle (*Nonholonomic Mechanics and Control*, §1.4) in a harmonic well:
/// ż = y ẋ, a connection ż = −A(x, y)·(ẋ, ẏ) with A = (−y, 0) on the shape (x, y) of the
/// translations in z.
#[derive(Mechanics)]
#[mechanics(
    coordinates(x, y, z),
    lagrangian = m / 2 * (dot(x).powi(2) + dot(y).powi(2) + dot(z).powi(2)) - k / 2 * (x.powi(2) + y.powi(2)),
    constraint(lift = dz - y * dx),
    reduce(nonholonomic(z), velocities(x, y), name = ParticleReduced),
)]
pub struct NonholonomicParticle {
    pub m: f64,
    pub k: f64,
}

#[test]
fn the_nonholonomic_particle_is_a_chaplygin_system_with_its_curvature() {
    // Derived for this test (Lagrange–d'Alembert with λ(−y, 0, 1)): m(1 + y²) ẍ = −k x − m y ẋ ẏ,
    // m ÿ = −k y. The constrained reduced Lagrangian l_c = ½m((1 + y²)ẋ² + ẏ²) − ½k(x² + y²) gives
    // d/dt ∂l_c/∂ṙ − ∂l_c/∂r = (m(1 + y²)ẍ + 2m y ẋ ẏ + k x, m ÿ − m y ẋ² + k y), so Chaplygin's
    // gyroscopic force is G = (m y ẋ ẏ, −m y ẋ²) = p_z B ṙ with p_z = m y ẋ and the curvature
    // B_xy = ∂A_y/∂x − ∂A_x/∂y = 1.
    let (m, k) = (1.3, 0.7);
    let red = ParticleReduced { m, k };
    let mut worst = 0.0f64;
    for (x, y, xd, yd) in [(0.3, -0.8, 1.1, 0.4), (-1.2, 0.5, -0.3, 2.0), (0.0, 1.7, 0.9, -1.4)] {
        let s = red.state([x, y], [xd, yd]);
        let b = red.curvature(0.0, &s);
        assert_eq!(b.len(), 1);
        worst = worst.max((b[0] - routh::nalgebra::Matrix2::new(0.0, 1.0, -1.0, 0.0)).amax());
        let g = red.gyroscopic_force(0.0, &s);
        worst = worst.max((g[0] - m * y * xd * yd).abs()).max((g[1] + m * y * xd * xd).abs());
        let f = VectorField::field(&red, 0.0, &s).unwrap();
        worst = worst.max((f[2] - (-k * x - m * y * xd * yd) / (m * (1.0 + y * y))).abs()).max((f[3] + k * y / m).abs());
        // The rest of Maggi's right-hand side is the Euler–Lagrange part of l_c.
        let rest = red.forcing(0.0, &s) - g;
        worst = worst.max((rest[0] - (-k * x - 2.0 * m * y * xd * yd)).abs()).max((rest[1] - (-k * y + m * y * xd * xd)).abs());
    }
    println!("nonholonomic particle: curvature, gyroscopic force and field against the closed forms {worst:.1e}");
    assert!(worst < 1e-14, "{worst:e}");
}

/// A reduced type checks what its full model's bodies must be when a run starts — the
/// Euler body of principal moments 1, 2, 3.5 is no rigid body (3.5 > 1 + 2), reduced or not.
#[test]
fn a_reduced_body_is_checked_like_its_full_model() {
    let red = EulerBody { m: 1.0, i1: 1.0, i2: 2.0, i3: 3.5 };
    let err = red.run(red.state([], [0.1, 0.2, 0.3])).span(0.0..1.0).go().unwrap_err().error;
    assert!(matches!(err, SimError::InvalidParameter { name: "the inertia of `brick`", .. }), "{err}");
    let full = FreeBody { m: 1.0, i1: 1.0, i2: 2.0, i3: 3.5 };
    let err = full.run(full.state([1.0, 0.0, 0.0, 0.0], [0.1, 0.2, 0.3])).span(0.0..1.0).go().unwrap_err().error;
    assert!(matches!(err, SimError::InvalidParameter { name: "the inertia of `brick`", .. }), "{err}");
    let fine = EulerBody { m: 1.0, i1: 1.0, i2: 2.0, i3: 2.75 };
    assert!(fine.run(fine.state([], [0.1, 0.2, 0.3])).span(0.0..1.0).go().is_ok());
}
