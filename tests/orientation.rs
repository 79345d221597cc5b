//! Orientations in the state: a rotation stored as a quaternion with the body angular velocity
//! as its velocities (Euler–Poincaré / Hamel equations), free of the singularities of Euler
//! angles. Checked against the closed forms of rigid-body motion and against Euler-angle models.

#[allow(dead_code)]
#[path = "../examples/models/chaplygin.rs"]
mod chaplygin;
mod common;

use chaplygin::ChaplyginBall;
use routh::nalgebra::{Matrix3, Quaternion, UnitQuaternion, Vector3};
use routh::prelude::*;
use routh::runtime::HybridOptions;

/// A free asymmetric rigid body: its orientation is the state.
#[derive(Mechanics)]
#[mechanics(
    orientation(r),
    body(name = brick, mass = m, centre = [0, 0, 0], frame = r, inertia = diag(i1, i2, i3)),
)]
struct FreeBody {
    m: f64,
    i1: f64,
    i2: f64,
    i3: f64,
}

fn tight() -> Options {
    Options::default().rtol(1e-13).atol(1e-14)
}

/// The attitude and body angular velocity of a state (quaternion normalised by nalgebra).
fn attitude(x: &SVector<f64, 7>) -> (UnitQuaternion<f64>, Vector3<f64>) {
    (UnitQuaternion::from_quaternion(Quaternion::new(x[0], x[1], x[2], x[3])), Vector3::new(x[4], x[5], x[6]))
}

#[test]
fn free_body_conserves_energy_and_spatial_momentum_and_follows_the_elliptic_solution() {
    let body = FreeBody { m: 1.0, i1: 1.0, i2: 2.0, i3: 3.0 };
    let inertia = Matrix3::from_diagonal(&Vector3::new(body.i1, body.i2, body.i3));
    let (w1, w3) = (0.3, 1.0);
    // Any attitude: a generic one, far from every special axis.
    let q0 = UnitQuaternion::from_euler_angles(0.4, -1.1, 2.3);
    let x0 = body.state([q0.w, q0.i, q0.j, q0.k], [w1, 0.0, w3]);
    let w0 = Vector3::new(w1, 0.0, w3);
    let energy = 0.5 * w0.dot(&(inertia * w0));
    assert!((body.energy(0.0, &x0) - energy).abs() < 1e-15);
    // Landau–Lifshitz §37 (I₁ < I₂ < I₃, L² > 2E I₂): ω = (A cn τ, B sn τ, C dn τ).
    let closed = common::FreeBodySolution::new([body.i1, body.i2, body.i3], w1, w3);
    let opts = tight().output(Output::Times((1..=200).map(|i| i as f64 * 0.5).collect()));
    let sol = body.run(x0).span(0.0..100.0).options(&opts).go().unwrap();
    let spatial0 = q0 * (inertia * w0);
    let (mut werr, mut lerr, mut eerr, mut nerr) = (0.0f64, 0.0f64, 0.0f64, 0.0f64);
    for (t, x) in sol.iter() {
        let (q, w) = attitude(x);
        werr = werr.max((w - Vector3::from(closed.omega(t))).norm());
        lerr = lerr.max((q * (inertia * w) - spatial0).norm() / spatial0.norm());
        eerr = eerr.max((body.energy(t, x) - energy).abs() / energy);
        nerr = nerr.max((Quaternion::new(x[0], x[1], x[2], x[3]).norm() - 1.0).abs());
    }
    println!(
        "quaternion free body over 100 s: |ω − ω_elliptic| ≤ {werr:.1e}, |ΔL|/|L| ≤ {lerr:.1e}, |ΔE|/E ≤ {eerr:.1e}, ||q| − 1| ≤ {nerr:.1e}"
    );
    assert!(werr < 1e-9, "body angular velocity against the elliptic solution: {werr:e}");
    assert!(lerr < 1e-11, "spatial angular momentum conserved: {lerr:e}");
    assert!(eerr < 1e-12, "energy conserved: {eerr:e}");
}

#[test]
fn tennis_racket_flips_at_the_closed_form_period() {
    // Rotation near the intermediate axis (the tennis-racket or Dzhanibekov effect): starting at
    // ω₂ = 0 with L² slightly above 2E I₂, ω₂ = B sn(τ) changes sign — the body flips — every
    // 2K(m)/rate.
    let body = FreeBody { m: 1.0, i1: 1.0, i2: 2.0, i3: 3.0 };
    let (w1, w3) = (1.0, 0.58);
    let x0 = body.state([1.0, 0.0, 0.0, 0.0], [w1, 0.0, w3]);
    let (i1, i2, i3) = (body.i1, body.i2, body.i3);
    let energy = 0.5 * (i1 * w1 * w1 + i3 * w3 * w3);
    let l2 = (i1 * w1).powi(2) + (i3 * w3).powi(2);
    assert!(l2 > 2.0 * energy * i2 && l2 < 2.0 * energy * i2 * 1.01, "near the separatrix");
    let closed = common::FreeBodySolution::new([i1, i2, i3], w1, w3);
    let half_period = closed.flip_period();
    let events = [Event::new("flip", |_t: f64, x: &SVector<f64, 7>| x[5])];
    let sol = body.run(x0).span(0.0..4.5 * half_period).events(&events).options(tight()).go().unwrap();
    let flips: Vec<f64> = sol.events.iter().map(|e| e.t).collect();
    assert_eq!(flips.len(), 4, "{flips:?}");
    for (j, t) in flips.iter().enumerate() {
        let expected = (j + 1) as f64 * half_period;
        assert!((t - expected).abs() < 1e-8 * expected, "flip {j}: t = {t}, closed form {expected}");
    }
    println!("tennis racket: flips every {half_period:.10} s (m = {:.6}); measured {flips:?}", closed.m);
}

#[test]
fn a_rotation_through_the_euler_angle_singularity_is_exact() {
    // A symmetric body spinning about its body x-axis from the identity: its figure axis e₃ turns
    // through the vertical (z-x-z Euler angles' θ = 0 and π) twice a turn. The attitude is
    // R(t) = Rx(Ω t) exactly.
    let body = FreeBody { m: 1.0, i1: 1.0, i2: 1.5, i3: 1.5 };
    let spin = 2.0;
    let x0 = body.state([1.0, 0.0, 0.0, 0.0], [spin, 0.0, 0.0]);
    let opts = tight().output(Output::Interval(0.01));
    let sol = body.run(x0).span(0.0..20.0).options(&opts).go().unwrap();
    let mut worst = 0.0f64;
    let mut vertical = 0;
    for (t, x) in sol.iter() {
        let (q, w) = attitude(x);
        let exact = UnitQuaternion::from_axis_angle(&Vector3::x_axis(), spin * t);
        worst = worst.max(q.angle_to(&exact)).max((w - Vector3::new(spin, 0.0, 0.0)).norm());
        if (q * Vector3::z()).z.abs() > 1.0 - 1e-3 {
            vertical += 1;
        }
    }
    assert!(vertical > 10, "the figure axis passes the vertical");
    assert!(worst < 1e-10, "attitude against Rx(Ωt): {worst:e}");
}

/// The heavy symmetric top with its orientation in the state; only rotations about the vertical
/// are symmetries, and it reduces by them to Euler–Poisson in (Γ, ω) (`PoissonTop`).
#[derive(Mechanics)]
#[mechanics(
    orientation(b),
    body(name = top, mass = m, centre = b * [0, 0, l], frame = b, inertia = diag(a, a, c)),
    gravity = [0, 0, -g],
    symmetry(vertical = rotation(b, [0, 0, 1])),
    reduce(euler_poincare(b), symmetry(vertical), name = PoissonTop),
    jacobian,
)]
struct QuaternionTop {
    m: f64,
    l: f64,
    a: f64,
    c: f64,
    g: f64,
}

/// The same top in z-x-z Euler angles (precession φ, nutation θ, spin ψ).
#[derive(Mechanics)]
#[mechanics(
    coordinates(phi, theta, psi),
    frame(b = rot_z(phi) * rot_x(theta) * rot_z(psi)),
    body(name = top, mass = m, centre = b * [0, 0, l], frame = b, inertia = diag(a, a, c)),
    gravity = [0, 0, -g],
)]
struct EulerTop {
    m: f64,
    l: f64,
    a: f64,
    c: f64,
    g: f64,
}

#[test]
fn heavy_top_with_a_quaternion_is_the_euler_angle_top() {
    let (m, l, a, c, g) = (0.8, 0.35, 0.021, 0.034, 9.81);
    let (quat, euler) = (QuaternionTop { m, l, a, c, g }, EulerTop { m, l, a, c, g });
    // The same initial condition: Euler angles and rates, and the attitude and body angular
    // velocity they give (Goldstein's formulas).
    let (phi, theta, psi, pd, td, sd) = (0.0f64, 0.7f64, 0.0f64, 0.4, 0.0, 40.0);
    let xe = euler.state([phi, theta, psi], [pd, td, sd]);
    let (q0, w0) = common::euler_zxz([phi, theta, psi], [pd, td, sd]);
    let xq = quat.state([q0.w, q0.i, q0.j, q0.k], w0.into());
    assert!((quat.energy(0.0, &xq) - euler.energy(0.0, &xe)).abs() < 1e-13);
    let opts = tight().output(Output::Times((1..=50).map(|i| i as f64 * 0.1).collect()));
    let (sq, se) =
        (quat.run(xq).span(0.0..5.0).options(&opts).go().unwrap(), euler.run(xe).span(0.0..5.0).options(&opts).go().unwrap());
    let mut worst = 0.0f64;
    for ((t, x), (_, y)) in sq.iter().zip(se.iter()) {
        // The figure axis in space, b e₃ = (sin φ sin θ, −cos φ sin θ, cos θ).
        let (q, _) = attitude(x);
        let axis = q * Vector3::z();
        let expected = Vector3::new(y[0].sin() * y[1].sin(), -y[0].cos() * y[1].sin(), y[1].cos());
        worst = worst.max((axis - expected).norm());
        assert!((quat.energy(t, x) - euler.energy(t, y)).abs() < 1e-10);
    }
    assert!(worst < 1e-10, "figure axis of the quaternion top against the Euler-angle top: {worst:e}");
}

#[test]
fn the_heavy_top_reduces_to_the_euler_poisson_equations_in_two_charts() {
    // Γ = Rᵀe_z and ω: A ω̇ = (A − C)... in vector form I ω̇ = Iω × ω + κ Γ × e₃ about the tip
    // (I = diag(A, A, C), A = a + m l², κ = m g l) and Γ̇ = Γ × ω — at states in both charts (Γ₃ of
    // either sign, the top hanging straight down and standing straight up included); then a run that
    // crosses the equator again and again against the full quaternion top, its energy kept.
    let (m, l, a, c, g): (f64, f64, f64, f64, f64) = (0.8, 0.35, 0.021, 0.034, 9.81);
    let full = QuaternionTop { m, l, a, c, g };
    let red = PoissonTop { m, l, a, c, g };
    assert_eq!(PoissonTop::COORDINATES, ["b_gamma1", "b_gamma2", "b_gamma3"]);
    let inertia = Vector3::new(a + m * l * l, a + m * l * l, c);
    let kappa = m * g * l;
    let mut rng = common::Rng::new(1776);
    let mut worst = 0.0f64;
    let mut states: Vec<(Vector3<f64>, Vector3<f64>)> =
        vec![(-Vector3::z(), Vector3::new(0.3, -1.2, 7.0)), (Vector3::z(), Vector3::new(0.5, 0.1, 30.0))];
    for _ in 0..20 {
        let gamma = Vector3::new(rng.uniform(-1.0, 1.0), rng.uniform(-1.0, 1.0), rng.uniform(-1.0, 1.0)).normalize();
        states.push((gamma, Vector3::new(rng.uniform(-3.0, 3.0), rng.uniform(-3.0, 3.0), rng.uniform(-20.0, 20.0))));
    }
    for (gamma, w) in &states {
        let x = red.state([gamma.x, gamma.y, gamma.z], [w.x, w.y, w.z]);
        let f = VectorField::field(&red, 0.0, &x).unwrap();
        let iw = inertia.component_mul(w);
        let wdot = (iw.cross(w) + kappa * gamma.cross(&Vector3::z())).component_div(&inertia);
        let gdot = gamma.cross(w);
        let err = (Vector3::new(f[0], f[1], f[2]) - gdot).amax().max((Vector3::new(f[3], f[4], f[5]) - wdot).amax());
        worst = worst.max(err / (1.0 + wdot.amax()));
        // The exact Jacobian against central differences (on either side of the equator).
        let jac = VectorField::exact_jacobian(&red, 0.0, &x).unwrap().unwrap();
        let fd = routh::runtime::jacobian_fd(&red, 0.0, &x, 1e-6).unwrap();
        assert!(common::rel_err(&jac, &fd) < 1e-6, "Γ₃ = {}: {:e}", gamma.z, common::rel_err(&jac, &fd));
    }
    println!("Euler–Poisson top: field against the closed form {worst:.1e} at {} states", states.len());
    assert!(worst < 1e-13, "{worst:e}");
    // The sleeping top (Γ = e_z, ω = Ω e_z) is a relative equilibrium; the reduced Jacobian's
    // eigenvalues there are those of the body-chart linearisation: ±i(σ± − Ω) with
    // σ± = (CΩ ± √(C²Ω² − 4Aκ))/(2A), and two zeros (|Γ| and ω₃ are conserved).
    let spin = 1.4 * (4.0 * inertia.x * kappa).sqrt() / c;
    let sleeping = red.state([0.0, 0.0, 1.0], [0.0, 0.0, spin]);
    assert!(VectorField::field(&red, 0.0, &sleeping).unwrap().amax() < 1e-15);
    let jac = VectorField::exact_jacobian(&red, 0.0, &sleeping).unwrap().unwrap();
    let mut im: Vec<f64> = jac.complex_eigenvalues().iter().map(|z| z.im.abs()).collect();
    im.sort_by(f64::total_cmp);
    let disc = (c * spin).powi(2) - 4.0 * inertia.x * kappa;
    let sigma = [(c * spin + disc.sqrt()) / (2.0 * inertia.x), (c * spin - disc.sqrt()) / (2.0 * inertia.x)];
    let mut want: Vec<f64> =
        vec![0.0, 0.0, (sigma[0] - spin).abs(), (sigma[0] - spin).abs(), (sigma[1] - spin).abs(), (sigma[1] - spin).abs()];
    want.sort_by(f64::total_cmp);
    let eig = im.iter().zip(&want).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max);
    assert!(
        jac.complex_eigenvalues().iter().all(|z| z.re.abs() < 1e-9 * spin),
        "the sleeping top above its critical spin is not unstable"
    );
    println!("Euler–Poisson top: the sleeping top's eigenvalues against ±i(σ± − Ω) {eig:.1e}");
    assert!(eig < 1e-10 * spin, "{im:?} against {want:?}");
    // A slowly spinning top released at θ = 80°: it falls through the horizontal and back, its Γ₃
    // crossing 0 (the charts switching) again and again.
    let (q0, w0) = common::euler_zxz([0.2, 80f64.to_radians(), 0.0], [0.0, 0.0, 1.0]);
    let x0 = full.state([q0.w, q0.i, q0.j, q0.k], w0.into());
    let (reduced, xr, g0) = full.poisson_top(0.0, &x0);
    assert!(reduced == red);
    let gamma0 = q0.inverse() * Vector3::z();
    assert!((Vector3::new(xr[0], xr[1], xr[2]) - gamma0).norm() < 1e-15 && (xr[3] - w0.x).abs() < 1e-15);
    let opts = tight().output(Output::Times((1..=50).map(|i| f64::from(i) * 0.1).collect()));
    let rec = red.run(xr).span(0.0..5.0).reconstructed(g0).options(&opts).go().unwrap();
    let reference = full.run(x0).span(0.0..5.0).options(&opts).go().unwrap();
    let (mut gap, mut drift, mut signs) = (0.0f64, 0.0f64, (0, 0));
    let sol = red.run(xr).span(0.0..5.0).options(&opts).go().unwrap();
    let e0 = red.energy(0.0, &xr);
    for ((p, q), (t, x)) in rec.states.iter().zip(&reference.states).zip(sol.iter()) {
        let (qp, _) = attitude(p);
        let (qq, _) = attitude(q);
        gap = gap.max(qp.angle_to(&qq)).max((Vector3::new(p[4], p[5], p[6]) - Vector3::new(q[4], q[5], q[6])).norm() / 10.0);
        drift = drift.max((red.energy(t, x) - e0).abs() / e0.abs());
        if x[2] >= 0.0 { signs.0 += 1 } else { signs.1 += 1 }
    }
    println!(
        "Euler–Poisson top over 5 s: reduced + reconstructed against the full top {gap:.1e}, energy {drift:.1e}, samples with Γ₃ ≥ 0 / < 0: {signs:?}"
    );
    assert!(signs.0 > 0 && signs.1 > 0, "the run stays in one chart: {signs:?}");
    assert!(gap < 1e-9 && drift < 1e-10, "{gap:e} {drift:e}");
}

/// The free body with the spatial rotations as declared symmetries.
#[derive(Mechanics)]
#[mechanics(
    orientation(r),
    body(name = brick, mass = m, centre = [0, 0, 0], frame = r, inertia = diag(i1, i2, i3)),
    symmetry(lx = rotation(r, [1, 0, 0]), ly = rotation(r, [0, 1, 0]), lz = rotation(r, [0, 0, 1])),
)]
struct SymmetricFreeBody {
    m: f64,
    i1: f64,
    i2: f64,
    i3: f64,
}

#[test]
fn spatial_rotations_give_the_spatial_angular_momentum_as_momentum_maps() {
    let body = SymmetricFreeBody { m: 1.0, i1: 1.0, i2: 2.0, i3: 3.0 };
    let inertia = Matrix3::from_diagonal(&Vector3::new(body.i1, body.i2, body.i3));
    let mut rng = common::Rng::new(17);
    for _ in 0..10 {
        let q = UnitQuaternion::from_euler_angles(rng.uniform(-3.0, 3.0), rng.uniform(-1.5, 1.5), rng.uniform(-3.0, 3.0));
        let w = Vector3::new(rng.uniform(-2.0, 2.0), rng.uniform(-2.0, 2.0), rng.uniform(-2.0, 2.0));
        let x = body.state([q.w, q.i, q.j, q.k], w.into());
        let spatial = q * (inertia * w);
        let j = Vector3::new(body.lx_momentum(0.0, &x), body.ly_momentum(0.0, &x), body.lz_momentum(0.0, &x));
        assert!((j - spatial).norm() < 1e-13 * (1.0 + spatial.norm()), "J = {j} vs R I ω = {spatial}");
    }
    assert_eq!(SymmetricFreeBody::SYMMETRIES, ["lx", "ly", "lz"]);
    // The spatial rotations' generators on the quaternion, ½ (0, a) ⊗ q, close into so(3) with
    // reversed brackets (a left action): [lx, ly] = −lz and cyclically.
    let c = SymmetricFreeBody::STRUCTURE_CONSTANTS.expect("so(3) closes");
    assert_eq!((c[0][1], c[1][2], c[2][0]), ([0.0, 0.0, -1.0], [-1.0, 0.0, 0.0], [0.0, -1.0, 0.0]));
    // Conserved along a run, by the generated momentum maps.
    let x0 = body.state([0.3f64.cos(), 0.3f64.sin(), 0.0, 0.0], [0.4, -1.1, 0.7]);
    let sol = body.run(x0).span(0.0..20.0).options(tight().output(Output::Interval(0.5))).go().unwrap();
    let j0 = [body.lx_momentum(0.0, &x0), body.ly_momentum(0.0, &x0), body.lz_momentum(0.0, &x0)];
    for (t, x) in sol.iter() {
        let j = [body.lx_momentum(t, x), body.ly_momentum(t, x), body.lz_momentum(t, x)];
        for k in 0..3 {
            assert!((j[k] - j0[k]).abs() < 1e-11, "component {k} at t = {t}");
        }
    }
    // The top: the vertical component only (gravity breaks the others; see the UI case).
    let top = QuaternionTop { m: 0.8, l: 0.35, a: 0.021, c: 0.034, g: 9.81 };
    let x0 = top.state([0.9f64.cos(), 0.9f64.sin(), 0.0, 0.0], [0.3, 0.2, 40.0]);
    let sol = top.run(x0).span(0.0..5.0).options(tight().output(Output::Interval(0.1))).go().unwrap();
    let j0 = top.vertical_momentum(0.0, &x0);
    for (t, x) in sol.iter() {
        assert!((top.vertical_momentum(t, x) - j0).abs() < 1e-11 * j0.abs().max(1.0));
    }
}

#[test]
fn field_jacobian_with_an_orientation_matches_finite_differences() {
    // Across the quaternion's norm too: the field depends on q/|q| only, and the Jacobian says so.
    let top = QuaternionTop { m: 0.8, l: 0.35, a: 0.021, c: 0.034, g: 9.81 };
    let mut rng = common::Rng::new(29);
    for _ in 0..5 {
        let q = [rng.uniform(-1.0, 1.0), rng.uniform(-1.0, 1.0), rng.uniform(-1.0, 1.0), rng.uniform(-1.0, 1.0)];
        let x = top.state(q, [rng.uniform(-2.0, 2.0), rng.uniform(-2.0, 2.0), rng.uniform(-20.0, 20.0)]);
        let exact = top.jacobian(0.0, &x).unwrap();
        let fd = common::jacobian_fd(&top, 0.0, &x, 1e-6).unwrap();
        let err = common::rel_err(&exact, &fd);
        assert!(err < 1e-6, "∂F/∂x against central differences: {err:e}");
        // The radial direction changes nothing: (∂F/∂q) q = 0 in the velocity rows.
        let radial = exact.fixed_view::<3, 4>(4, 0) * routh::nalgebra::Vector4::new(q[0], q[1], q[2], q[3]);
        assert!(radial.norm() < 1e-9 * (1.0 + exact.norm()), "{radial}");
    }
}

/// ∂τ/∂q and ∂τ/∂ω of the inverse dynamics τ = M ω̇ − f of the quaternion top, ∂τ/∂q along the
/// body rotation vector (the quaternion moved to q ⊗ exp(δθ/2)): against central differences of
/// `inverse_dynamics` in that chart and in ω, and, at the field's own accelerations, −M⁻¹ ∂τ/∂θ
/// against the field's Jacobian composed with the rates (∂ω̇/∂q · K(q), K(q) = ∂q̇/∂ω).
#[test]
fn the_inverse_dynamics_jacobian_with_an_orientation_is_in_its_tangent_chart() {
    let top = QuaternionTop { m: 0.8, l: 0.35, a: 0.021, c: 0.034, g: 9.81 };
    let mut rng = common::Rng::new(31);
    let h = 1e-6;
    for _ in 0..5 {
        let q = UnitQuaternion::from_scaled_axis(Vector3::new(
            rng.uniform(-2.0, 2.0),
            rng.uniform(-2.0, 2.0),
            rng.uniform(-2.0, 2.0),
        ));
        let w = Vector3::new(rng.uniform(-2.0, 2.0), rng.uniform(-2.0, 2.0), rng.uniform(-20.0, 20.0));
        let state = |q: &UnitQuaternion<f64>, w: &Vector3<f64>| top.state([q.w, q.i, q.j, q.k], [w[0], w[1], w[2]]);
        let x = state(&q, &w);
        let qdd = Vector::<3>::new(rng.uniform(-5.0, 5.0), rng.uniform(-5.0, 5.0), rng.uniform(-5.0, 5.0));
        let (tq, tw) = top.inverse_dynamics_jacobian(0.0, &x, &qdd).unwrap();
        let tau = |x: &State<7>| top.inverse_dynamics(0.0, x, &qdd).unwrap();
        for k in 0..3 {
            let turn = |s: f64| q * UnitQuaternion::from_scaled_axis(Vector3::ith(k, s));
            let along = (tau(&state(&turn(h), &w)) - tau(&state(&turn(-h), &w))) / (2.0 * h);
            assert!((tq.column(k) - along).amax() < 1e-6 * (1.0 + along.amax()), "∂τ/∂θ{k}: {} against {along}", tq.column(k));
            let spin = |s: f64| w + Vector3::ith(k, s);
            let along = (tau(&state(&q, &spin(h))) - tau(&state(&q, &spin(-h)))) / (2.0 * h);
            assert!((tw.column(k) - along).amax() < 1e-6 * (1.0 + along.amax()), "∂τ/∂ω{k}: {} against {along}", tw.column(k));
        }
        assert!(tq.amax() > 0.1 && tw.amax() > 0.1, "a Jacobian with something in it");
        let a = top.accelerations(0.0, &x).unwrap();
        let (aq, _) = top.inverse_dynamics_jacobian(0.0, &x, &a).unwrap();
        let j = top.jacobian(0.0, &x).unwrap();
        let chart = j.fixed_view::<3, 4>(4, 0) * j.fixed_view::<4, 3>(0, 4);
        let back = -top.mass_matrix(0.0, &x).lu().solve(&aq).unwrap();
        assert!((back - chart).amax() < 1e-10 * (1.0 + chart.amax()), "{back} against {chart}");
    }
}

// ---------------------------------------------------------------------------------------------
// Impacts with orientations: the law's rows are the guard's gradient pulled back to the
// velocities (Kᵀ∇h, with ω among them), the metric is the kinetic one over (ẋ, ω).

/// *Hybrid momentum maps* Ex. 2 (Wong's equations) on Q = ℝ² × SO(3), as the digest's §4.2 makes
/// it concrete: a rigid body whose centre moves in a plane channel between two walls x₂ = ±w (the
/// guards depend on the shape x only, so they are invariant under the rotations of the body). The
/// spatial rotations are symmetries; J = R I ω is a hybrid momentum map: conserved in flight and
/// unchanged at every impact. (The paper's bi-invariant metric I = I₀·1 is not needed for that; an
/// asymmetric body is the stronger test.)
#[derive(Mechanics)]
#[mechanics(
    coordinates(x1, x2),
    orientation(r),
    body(name = rotor, mass = m, centre = [x1, x2, 0], frame = r, inertia = diag(i1, i2, i3)),
    impact(name = upper, guard = w - x2, law = restitution(e)),
    impact(name = lower, guard = x2 + w, law = restitution(e)),
    symmetry(lx = rotation(r, [1, 0, 0]), ly = rotation(r, [0, 1, 0]), lz = rotation(r, [0, 0, 1])),
)]
struct WongBody {
    m: f64,
    i1: f64,
    i2: f64,
    i3: f64,
    w: f64,
    e: f64,
}

#[test]
fn wong_example_spatial_momentum_is_a_hybrid_momentum_map_and_only_the_wall_normal_energy_is_lost() {
    let e = 0.6;
    let body = WongBody { m: 1.3, i1: 1.0, i2: 2.0, i3: 3.0, w: 0.5, e };
    let inertia = Matrix3::from_diagonal(&Vector3::new(body.i1, body.i2, body.i3));
    let q0 = UnitQuaternion::from_euler_angles(0.3, -0.8, 1.9);
    let x0 = body.state([0.0, 0.1, q0.w, q0.i, q0.j, q0.k], [0.7, 1.9, 0.4, -1.3, 0.9]);
    let opts = HybridOptions::default().ode(tight());
    let sol = body.run(x0).span(0.0..6.0).options(&opts).go().unwrap();
    assert!(sol.impacts.len() >= 4, "the channel is crossed several times: {} impacts", sol.impacts.len());
    let momentum =
        |t: f64, x: &SVector<f64, 11>| Vector3::new(body.lx_momentum(t, x), body.ly_momentum(t, x), body.lz_momentum(t, x));
    let pi0 = momentum(0.0, &x0);
    // J = R I ω, the spatial angular momentum.
    let spatial = |x: &SVector<f64, 11>| {
        let q = UnitQuaternion::from_quaternion(Quaternion::new(x[2], x[3], x[4], x[5]));
        q * (inertia * Vector3::new(x[8], x[9], x[10]))
    };
    assert!((pi0 - spatial(&x0)).norm() < 1e-14);
    let mut flight = 0.0f64;
    for (t, _, x) in sol.iter() {
        flight = flight.max((momentum(t, x) - pi0).norm() / pi0.norm());
    }
    let (mut jump, mut normal) = (0.0f64, 0.0f64);
    for imp in &sol.impacts {
        jump = jump.max((momentum(imp.t, &imp.post) - momentum(imp.t, &imp.pre)).norm() / pi0.norm());
        // Newton's law on the wall normal; the tangential velocity and the rotation are untouched.
        assert!((imp.post[7] + e * imp.pre[7]).abs() < 1e-12, "{}: ẋ₂⁺ = −e ẋ₂⁻", imp.guard);
        assert!((imp.post.fixed_rows::<6>(0) - imp.pre.fixed_rows::<6>(0)).norm() == 0.0, "positions are kept");
        assert!(
            (imp.post[6] - imp.pre[6]).abs() < 1e-14 && (imp.post.fixed_rows::<3>(8) - imp.pre.fixed_rows::<3>(8)).norm() < 1e-13
        );
        // The energy lost is the wall-normal part: ½ m (1 − e²) ẋ₂⁻².
        let lost = 0.5 * body.m * (1.0 - e * e) * imp.pre[7].powi(2);
        normal = normal.max((imp.energy_jump() + lost).abs() / lost);
    }
    println!(
        "Wong example ({} impacts): |ΔJ|/|J| in flight {flight:.1e}, at impacts {jump:.1e}; energy loss against ½m(1−e²)ẋ₂² {normal:.1e}",
        sol.impacts.len()
    );
    assert!(flight < 1e-12, "J conserved in flight: {flight:e}");
    assert!(jump < 1e-12, "J unchanged at impacts: {jump:e}");
    assert!(normal < 1e-12, "only the wall-normal energy is lost: {normal:e}");
}

/// A brick tumbling onto a floor on one corner, ρ = (a, b, c) in the body: the guard
/// z + (R ρ)₃ ≥ 0 depends on the orientation, so the impulse turns the body. Rotations about the
/// vertical leave the guard invariant and the impulse vertical: the vertical spatial angular
/// momentum is a hybrid momentum map.
#[derive(Mechanics)]
#[mechanics(
    coordinates(x, y, z),
    orientation(r),
    point(corner = [x, y, z] + r * [a, b, c]),
    body(name = brick, mass = m, centre = [x, y, z], frame = r, inertia = diag(i1, i2, i3)),
    gravity = [0, 0, -g],
    impact(name = floor, guard = corner[2], law = restitution(e)),
    symmetry(vertical = rotation(r, [0, 0, 1])),
)]
struct QuaternionBrick {
    m: f64,
    i1: f64,
    i2: f64,
    i3: f64,
    a: f64,
    b: f64,
    c: f64,
    g: f64,
    e: f64,
}

/// The same brick in z-x-z Euler angles.
#[derive(Mechanics)]
#[mechanics(
    coordinates(x, y, z, phi, theta, psi),
    frame(f = rot_z(phi) * rot_x(theta) * rot_z(psi)),
    point(corner = [x, y, z] + f * [a, b, c]),
    body(name = brick, mass = m, centre = [x, y, z], frame = f, inertia = diag(i1, i2, i3)),
    gravity = [0, 0, -g],
    impact(name = floor, guard = corner[2], law = restitution(e)),
)]
struct EulerBrick {
    m: f64,
    i1: f64,
    i2: f64,
    i3: f64,
    a: f64,
    b: f64,
    c: f64,
    g: f64,
    e: f64,
}

#[test]
fn a_brick_bouncing_on_a_corner_is_the_same_with_a_quaternion_and_with_euler_angles() {
    for e in [1.0, 0.5] {
        let (m, i1, i2, i3, a, b, c, g) = (0.9, 0.02, 0.035, 0.045, 0.12, -0.07, -0.2, 9.81);
        let quat = QuaternionBrick { m, i1, i2, i3, a, b, c, g, e };
        let euler = EulerBrick { m, i1, i2, i3, a, b, c, g, e };
        let inertia = Matrix3::from_diagonal(&Vector3::new(i1, i2, i3));
        let (angles, rates) = ([0.3, 1.1, -0.4], [0.5, -1.2, 2.0]);
        let xe = euler.state([0.0, 0.0, 0.6, angles[0], angles[1], angles[2]], [0.3, -0.2, 0.0, rates[0], rates[1], rates[2]]);
        let (q0, w0) = common::euler_zxz(angles, rates);
        let xq = quat.state([0.0, 0.0, 0.6, q0.w, q0.i, q0.j, q0.k], [0.3, -0.2, 0.0, w0.x, w0.y, w0.z]);
        assert!((quat.energy(0.0, &xq) - euler.energy(0.0, &xe)).abs() < 1e-13);
        assert!((quat.floor_guard(0.0, &xq) - euler.floor_guard(0.0, &xe)).abs() < 1e-14);
        let opts = HybridOptions::default().ode(tight()).max_impacts(6);
        let span = 0.0..1.5;
        let (sq, se) =
            (quat.run(xq).span(span.clone()).options(&opts).go().unwrap(), euler.run(xe).span(span).options(&opts).go().unwrap());
        assert!(sq.impacts.len() >= 3, "e = {e}: {} impacts", sq.impacts.len());
        assert_eq!(sq.impacts.len(), se.impacts.len(), "e = {e}: the same impacts");
        let (mut times, mut states, mut carnot, mut vertical) = (0.0f64, 0.0f64, 0.0f64, 0.0f64);
        for (iq, ie) in sq.impacts.iter().zip(&se.impacts) {
            times = times.max((iq.t - ie.t).abs());
            // The post-impact state of the quaternion model against the Euler-angle model's.
            let (r, w) = common::euler_zxz([ie.post[3], ie.post[4], ie.post[5]], [ie.post[9], ie.post[10], ie.post[11]]);
            let rq = UnitQuaternion::from_quaternion(Quaternion::new(iq.post[3], iq.post[4], iq.post[5], iq.post[6]));
            let wq = Vector3::new(iq.post[10], iq.post[11], iq.post[12]);
            let centre = (iq.post.fixed_rows::<3>(0) - ie.post.fixed_rows::<3>(0)).norm();
            let velocity = (iq.post.fixed_rows::<3>(7) - ie.post.fixed_rows::<3>(6)).norm();
            states = states.max(centre).max(velocity).max(rq.angle_to(&r)).max((wq - w).norm());
            // Carnot: ΔE = −(1 − e)/(1 + e) · ½ (m|Δẋ|² + Δωᵀ I Δω), from the physical velocities.
            let dv = iq.post.fixed_rows::<3>(7) - iq.pre.fixed_rows::<3>(7);
            let dw = iq.post.fixed_rows::<3>(10) - iq.pre.fixed_rows::<3>(10);
            let kinetic = 0.5 * (m * dv.norm_squared() + dw.dot(&(inertia * dw)));
            carnot = carnot.max((iq.energy_jump() + (1.0 - e) / (1.0 + e) * kinetic).abs() / kinetic);
            // The impulse is vertical: the horizontal velocity and the vertical spatial momentum keep.
            assert!(dv.x.abs() < 1e-14 && dv.y.abs() < 1e-14, "{dv}");
            let jump = quat.vertical_momentum(iq.t, &iq.post) - quat.vertical_momentum(iq.t, &iq.pre);
            vertical = vertical.max(jump.abs());
            assert!(iq.post[9] > 0.0 || dv.z > 0.0, "the impulse pushes up");
        }
        let l0 = quat.vertical_momentum(0.0, &xq);
        for (t, _, x) in sq.iter() {
            vertical = vertical.max((quat.vertical_momentum(t, x) - l0).abs());
        }
        println!(
            "brick on a corner, e = {e} ({} impacts): impact times {times:.1e}, post-impact states {states:.1e}, \
             Carnot {carnot:.1e}, vertical spatial momentum {vertical:.1e}",
            sq.impacts.len()
        );
        assert!(times < 1e-9, "impact times of the two models: {times:e}");
        assert!(states < 1e-8, "post-impact states of the two models: {states:e}");
        assert!(carnot < 1e-11, "Carnot's energy loss: {carnot:e}");
        assert!(vertical < 1e-12 * (1.0 + l0.abs()), "vertical spatial angular momentum: {vertical:e}");
    }
}

#[test]
fn the_reset_jacobian_with_an_orientation_matches_finite_differences() {
    // Over the whole state, the quaternion's norm included (the reset depends on q/|q| only).
    let brick = QuaternionBrick { m: 0.9, i1: 0.02, i2: 0.035, i3: 0.045, a: 0.12, b: -0.07, c: -0.2, g: 9.81, e: 0.5 };
    let mut rng = common::Rng::new(41);
    for _ in 0..5 {
        let q = [rng.uniform(-1.0, 1.0), rng.uniform(-1.0, 1.0), rng.uniform(-1.0, 1.0), rng.uniform(-1.0, 1.0)];
        let v: [f64; 6] = std::array::from_fn(|_| rng.uniform(-2.0, 2.0));
        let x = brick.state([0.1, -0.2, 0.05, q[0], q[1], q[2], q[3]], v);
        let exact = brick.floor_reset_jacobian(0.0, &x).unwrap();
        let reset = |_t: f64, y: &SVector<f64, 13>| brick.floor_reset(0.0, y);
        let fd = routh::runtime::jacobian_fd(&reset, 0.0, &x, 1e-6).unwrap();
        let err = common::rel_err(&exact, &fd);
        assert!(err < 1e-6, "∂Δ/∂x against central differences: {err:e}");
        // And the guard's gradient over the whole state.
        let grad = brick.floor_guard_gradient(0.0, &x);
        let fd =
            routh::runtime::mechanics::take::<13, 7>(&routh::runtime::ode::field::gradient_fd(|y| brick.floor_guard(0.0, y), &x));
        assert!((grad - fd).norm() < 1e-7 * (1.0 + grad.norm()), "∇h: {grad} vs {fd}");
    }
}

/// A uniform ball (inertia i about its centre, radius a) in flight lands on a rough floor and rolls:
/// a chart change from the flight mode (x, y, z, its orientation) into the rolling mode (x, y, the
/// same orientation). Perfectly rough and plastic, the landing keeps the angular momentum about the
/// contact point, L = iΩ + m a e_z × v: with k = i + m a², Ω⁺ = ((iΩ_x − m a v_y)/k, (iΩ_y + m a v_x)/k, Ω_z)
/// and v⁺ = a Ω⁺ × e_z (the rows of `rolling(...)` hold after it); ω⁺ = Rᵀ Ω⁺ in the body.
#[derive(Mechanics)]
#[mechanics(
    orientation(r),
    mode(flight,
        coordinates(x, y, z),
        body(name = ball, mass = m, centre = [x, y, z], frame = r, inertia = diag(i, i, i)),
        define(spin = r * omega(r)),
    ),
    mode(rolling,
        coordinates(x, y),
        body(name = ball, mass = m, centre = [x, y, a], frame = r, inertia = diag(i, i, i)),
        rolling(name = contact, body = ball, sphere = a),
    ),
    gravity = [0, 0, -g],
    transition(flight -> rolling, name = land, guard = z - a, law = reset(
        dot(x) = a * (i * spin[1] + m * a * dot(x)) / (i + m * a * a),
        dot(y) = -a * (i * spin[0] - m * a * dot(y)) / (i + m * a * a),
        omega(r) = transpose(r) * [(i * spin[0] - m * a * dot(y)) / (i + m * a * a), (i * spin[1] + m * a * dot(x)) / (i + m * a * a), spin[2]],
    )),
)]
struct LandingBall {
    m: f64,
    i: f64,
    a: f64,
    g: f64,
}

#[test]
fn a_spinning_ball_lands_and_rolls_as_the_contact_momentum_says() {
    // Thrown with backspin: the landing time of the parabola, the post-landing rolling velocity from
    // the angular momentum about the contact point (for a ball without spin, 5/7 of its horizontal
    // speed), then uniform rolling in the other mode's chart: positions to the closed form, the rows
    // of the rolling contact held, E constant while rolling and the reset Jacobian (quaternion
    // included) against central differences.
    let (m, a, g) = (0.6, 0.11, 9.81);
    let i = 0.4 * m * a * a;
    let ball = LandingBall { m, i, a, g };
    let turn = UnitQuaternion::from_euler_angles(0.4, -0.3, 1.1);
    let spin0 = Vector3::new(3.0, -25.0, 4.0); // spatial; backspin about −y for motion along +x
    let (p0, v0) = (Vector3::new(0.2, -0.1, 0.8), Vector3::new(2.5, 0.7, 1.0));
    let w0 = turn.inverse() * spin0;
    let q = turn.quaternion();
    let x0 = ball.flight_state([p0.x, p0.y, p0.z, q.w, q.i, q.j, q.k], [v0.x, v0.y, v0.z, w0.x, w0.y, w0.z]);
    let opts = HybridOptions::default().ode(Options::default().rtol(1e-12).atol(1e-13));
    let sol = ball.run(x0).span(0.0..2.0).options(&opts).go().unwrap();
    assert_eq!(sol.impacts.len(), 1);
    // The landing: z = a on the parabola.
    let land = (v0.z + (v0.z * v0.z + 2.0 * g * (p0.z - a)).sqrt()) / g;
    assert!((sol.impacts[0].t - land).abs() < 1e-10, "landing at {} against {land}", sol.impacts[0].t);
    let pre = Vector3::new(v0.x, v0.y, v0.z - g * land);
    let k = i + m * a * a;
    let spin = Vector3::new((i * spin0.x - m * a * pre.y) / k, (i * spin0.y + m * a * pre.x) / k, spin0.z);
    let roll = a * spin.cross(&Vector3::z());
    let at_land = p0 + v0 * land - 0.5 * g * land * land * Vector3::z();
    // Uniform rolling: the centre moves at v⁺, the ball turns at Ω⁺ (a uniform ball's rolling is free).
    let t_end = 2.0;
    let (tf, xf) = (*sol.times.last().unwrap(), sol.states.last().unwrap());
    assert!((tf - t_end).abs() < 1e-12 && *sol.modes.last().unwrap() == LandingBall::ROLLING);
    let centre = at_land + roll * (t_end - land);
    let err_centre = (Vector3::new(xf[0], xf[1], a) - centre).norm();
    let attitude = UnitQuaternion::from_scaled_axis(spin * (t_end - land)) * turn * UnitQuaternion::from_scaled_axis(w0 * land);
    let got = UnitQuaternion::from_quaternion(Quaternion::new(xf[2], xf[3], xf[4], xf[5]));
    let err_turn = got.angle_to(&attitude);
    let err_rates = (Vector3::new(xf[6], xf[7], 0.0) - roll).norm() + (got * Vector3::new(xf[8], xf[9], xf[10]) - spin).norm();
    println!(
        "landing ball: landing time {:.1e}, centre {err_centre:.1e}, attitude {err_turn:.1e}, rates {err_rates:.1e}; v⁻ = {:.3?}, v⁺ = {:.3?}",
        (sol.impacts[0].t - land).abs(),
        pre.as_slice(),
        roll.as_slice()
    );
    assert!(err_centre < 1e-9 && err_turn < 1e-9 && err_rates < 1e-9, "{err_centre:e} {err_turn:e} {err_rates:e}");
    let x11 = routh::runtime::mechanics::take::<13, 11>(xf);
    let rolling = ball.rolling();
    assert!(rolling.velocity_residuals(t_end, &x11).amax() < 1e-10);
    let e_post = rolling.energy(0.0, &routh::runtime::mechanics::take::<13, 11>(&sol.impacts[0].post));
    assert!((rolling.energy(t_end, &x11) - e_post).abs() < 1e-10 * e_post);
    let e_expected = 0.5 * m * roll.norm_squared() + 0.5 * i * spin.norm_squared() + m * g * a;
    assert!((e_post - e_expected).abs() < 1e-10 * e_expected, "{e_post} against {e_expected}");
    // Without spin, the textbook 5/7 of the horizontal speed (i = 2/5 m a²), and the ball turns
    // at v⁺/a about the horizontal axis across its path.
    let still = ball.flight_state([0.0, 0.0, 0.5, 1.0, 0.0, 0.0, 0.0], [1.5, -0.8, 0.0, 0.0, 0.0, 0.0]);
    let sol = ball.run(still).span(0.0..1.0).options(&opts).go().unwrap();
    let post = sol.impacts[0].post;
    let ratio = Vector3::new(post[6], post[7], 0.0) - Vector3::new(1.5, -0.8, 0.0) * (5.0 / 7.0);
    let omega = Vector3::new(post[8], post[9], post[10]) - Vector3::new(0.8, 1.5, 0.0) * (5.0 / 7.0 / a);
    assert!(ratio.norm() < 1e-12 && omega.norm() < 1e-10, "{ratio} {omega}");
    // The reset's Jacobian over the whole source state (|q| included) against central differences.
    let mut rng = common::Rng::new(7);
    for _ in 0..5 {
        let qr: [f64; 4] = std::array::from_fn(|_| rng.uniform(-1.0, 1.0));
        let v: [f64; 6] = std::array::from_fn(|_| rng.uniform(-2.0, 2.0));
        let x = ball.flight_state([0.1, 0.2, a, qr[0], qr[1], qr[2], qr[3]], v).state;
        let exact = ball.flight().land_reset_jacobian(0.0, &x).unwrap();
        let h = 1e-6;
        let fd = routh::nalgebra::SMatrix::<f64, 11, 13>::from_fn(|r, c| {
            let (mut up, mut down) = (x, x);
            up[c] += h;
            down[c] -= h;
            (ball.flight().land_reset(0.0, &up).unwrap()[r] - ball.flight().land_reset(0.0, &down).unwrap()[r]) / (2.0 * h)
        });
        let err = common::rel_err(&exact, &fd);
        assert!(err < 1e-6, "∂Δ/∂x against central differences: {err:e}");
    }
}

// ---------------------------------------------------------------------------------------------
// Constraints with orientations: rows over the velocities (ω among them), the Frobenius test on
// Q = ℝⁿ × S³, projection by turning the quaternion (`runtime::mechanics::displace`).

/// The same ball in z-x-z Euler angles, its rows written by hand.
#[derive(Mechanics)]
#[mechanics(
    coordinates(x, y, phi, theta, psi),
    frame(f = rot_z(phi) * rot_x(theta) * rot_z(psi)),
    body(name = ball, mass = m, centre = [x, y, a], frame = f, inertia = diag(i1, i2, i3)),
    gravity = [0, 0, -g],
    define(spin = f * omega(f)),
    constraint(roll_x = dot(x) - a * spin[1]),
    constraint(roll_y = dot(y) + a * spin[0]),
)]
struct EulerChaplyginBall {
    m: f64,
    a: f64,
    i1: f64,
    i2: f64,
    i3: f64,
    g: f64,
}

#[test]
fn chaplygin_ball_keeps_its_integrals_and_is_the_euler_angle_ball() {
    let (m, a, i1, i2, i3, g) = (1.0, 0.5, 0.06, 0.09, 0.11, 9.81);
    let ball = ChaplyginBall { m, a, i1, i2, i3, g };
    let euler = EulerChaplyginBall { m, a, i1, i2, i3, g };
    assert_eq!(ChaplyginBall::CONSTRAINTS, ["contact_x", "contact_y"]);
    assert_eq!(ChaplyginBall::CONSTRAINT_KINDS, [ConstraintKind::Nonholonomic, ConstraintKind::Nonholonomic]);
    assert_eq!(ChaplyginBall::CONSTRAINTS_INTEGRABLE, Some(false), "rolling is nonholonomic on ℝ² × SO(3)");
    let inertia = Matrix3::from_diagonal(&Vector3::new(i1, i2, i3));
    let (angles, rates) = ([0.4, 1.0, -0.7], [0.9, -1.3, 2.1]);
    let (q0, w0) = common::euler_zxz(angles, rates);
    let spin = q0 * w0;
    // On the constraints: ẋ = a Ω_y, ẏ = −a Ω_x.
    let (vx, vy) = (a * spin.y, -a * spin.x);
    let xq = ball.state([0.1, -0.2, q0.w, q0.i, q0.j, q0.k], [vx, vy, w0.x, w0.y, w0.z]);
    let xe = euler.state([0.1, -0.2, angles[0], angles[1], angles[2]], [vx, vy, rates[0], rates[1], rates[2]]);
    assert!(ball.velocity_residuals(0.0, &xq).amax() < 1e-15);
    assert!(euler.velocity_residuals(0.0, &xe).amax() < 1e-15);
    assert!((ball.energy(0.0, &xq) - euler.energy(0.0, &xe)).abs() < 1e-14);
    // The angular momentum about the contact point, K = R I ω + m a² (Ω_x, Ω_y, 0), is conserved
    // (Chaplygin's integral), with the energy.
    let contact_momentum = |x: &SVector<f64, 11>| {
        let q = UnitQuaternion::from_quaternion(Quaternion::new(x[2], x[3], x[4], x[5]));
        let w = Vector3::new(x[8], x[9], x[10]);
        let spin = q * w;
        q * (inertia * w) + m * a * a * Vector3::new(spin.x, spin.y, 0.0)
    };
    let k0 = contact_momentum(&xq);
    let e0 = ball.energy(0.0, &xq);
    let opts = tight().output(Output::Times((1..=100).map(|i| i as f64 * 0.2).collect()));
    let sol = ball.run(xq).span(0.0..20.0).options(&opts).go().unwrap();
    let (mut kerr, mut eerr) = (0.0f64, 0.0f64);
    for (t, x) in sol.iter() {
        kerr = kerr.max((contact_momentum(x) - k0).norm() / k0.norm());
        eerr = eerr.max((ball.energy(t, x) - e0).abs() / e0);
    }
    let report = sol.constraints.unwrap();
    // Against the Euler-angle ball over 5 s (θ stays away from 0 and π).
    let opts = tight().output(Output::Times((1..=50).map(|i| i as f64 * 0.1).collect()));
    let (sq, se) =
        (ball.run(xq).span(0.0..5.0).options(&opts).go().unwrap(), euler.run(xe).span(0.0..5.0).options(&opts).go().unwrap());
    let mut route = 0.0f64;
    for ((_, x), (_, y)) in sq.iter().zip(se.iter()) {
        let (q, w) = (UnitQuaternion::from_quaternion(Quaternion::new(x[2], x[3], x[4], x[5])), Vector3::new(x[8], x[9], x[10]));
        let (qe, we) = common::euler_zxz([y[2], y[3], y[4]], [y[7], y[8], y[9]]);
        route = route.max((x[0] - y[0]).abs()).max((x[1] - y[1]).abs()).max(q.angle_to(&qe)).max((w - we).norm());
    }
    println!(
        "Chaplygin ball over 20 s: |ΔK|/|K| ≤ {kerr:.1e}, |ΔE|/E ≤ {eerr:.1e}, constraints {:.1e}; against the Euler-angle ball over 5 s: {route:.1e}",
        report.worst.1
    );
    assert!(kerr < 1e-10, "the contact-point angular momentum: {kerr:e}");
    assert!(eerr < 1e-10, "energy: {eerr:e}");
    assert!(report.worst.1 < 1e-10, "rolling constraints: {:e}", report.worst.1);
    assert!(route < 1e-8, "quaternion ball against Euler-angle ball: {route:e}");
}

#[test]
fn a_homogeneous_ball_rolls_uniformly_and_the_constrained_jacobian_matches_finite_differences() {
    // I = (2/5) m a² about every axis: Ω and the centre's velocity are constant.
    let (m, a) = (2.0, 0.3);
    let i = 0.4 * m * a * a;
    let ball = ChaplyginBall { m, a, i1: i, i2: i, i3: i, g: 9.81 };
    let q0 = UnitQuaternion::from_euler_angles(0.3, 0.2, -0.5);
    let spin = Vector3::new(1.5, -0.8, 0.6);
    let w0 = q0.inverse() * spin;
    let x0 = ball.state([0.0, 0.0, q0.w, q0.i, q0.j, q0.k], [a * spin.y, -a * spin.x, w0.x, w0.y, w0.z]);
    let sol = ball.run(x0).span(0.0..3.0).options(tight().output(Output::Interval(0.5))).go().unwrap();
    let mut worst = 0.0f64;
    for (t, x) in sol.iter() {
        let q = UnitQuaternion::from_quaternion(Quaternion::new(x[2], x[3], x[4], x[5]));
        let omega = q * Vector3::new(x[8], x[9], x[10]);
        let exact = UnitQuaternion::from_scaled_axis(spin * t) * q0;
        worst = worst.max((omega - spin).norm()).max((x[0] - a * spin.y * t).abs()).max((x[1] + a * spin.x * t).abs());
        worst = worst.max(q.angle_to(&exact));
    }
    assert!(worst < 1e-10, "uniform rolling: {worst:e}");
    // The constrained field's Jacobian over the whole state, the quaternion's norm included.
    let ball = ChaplyginBall { m: 1.0, a: 0.5, i1: 0.06, i2: 0.09, i3: 0.11, g: 9.81 };
    let mut rng = common::Rng::new(53);
    for _ in 0..4 {
        let q: [f64; 4] = std::array::from_fn(|_| rng.uniform(-1.0, 1.0));
        let v: [f64; 5] = std::array::from_fn(|_| rng.uniform(-2.0, 2.0));
        let x = ball.state([0.2, 0.1, q[0], q[1], q[2], q[3]], v);
        let exact = ball.jacobian(0.0, &x).unwrap();
        let fd = common::jacobian_fd(&ball, 0.0, &x, 1e-6).unwrap();
        let err = common::rel_err(&exact, &fd);
        assert!(err < 1e-6, "constrained ∂F/∂x against central differences: {err:e}");
    }
}

/// The heavy top as a free body whose tip is held at the origin by three holonomic constraints on
/// its centre (x, y, z) and orientation — against the top written with its tip fixed; with its
/// field Jacobian for the constrained linearisation with an orientation.
#[derive(Mechanics)]
#[mechanics(
    coordinates(x, y, z),
    orientation(b),
    point(tip = [x, y, z] - b * [0, 0, l]),
    body(name = top, mass = m, centre = [x, y, z], frame = b, inertia = diag(a, a, c)),
    gravity = [0, 0, -g],
    holonomic(tip_x = tip[0]),
    holonomic(tip_y = tip[1]),
    holonomic(tip_z = tip[2]),
    jacobian,
)]
struct PinnedTop {
    m: f64,
    l: f64,
    a: f64,
    c: f64,
    g: f64,
}

#[test]
fn a_top_pinned_by_holonomic_constraints_is_the_top_with_a_fixed_tip() {
    let (m, l, a, c, g) = (0.8, 0.35, 0.021, 0.034, 9.81);
    let pinned = PinnedTop { m, l, a, c, g };
    let top = QuaternionTop { m, l, a, c, g };
    assert_eq!(PinnedTop::CONSTRAINT_KINDS, [ConstraintKind::Holonomic; 3]);
    // The inertia about the tip is the centre's plus m l² across the axis (parallel axes).
    let (q0, w0) = common::euler_zxz([0.0, 0.7, 0.0], [0.4, 0.0, 40.0]);
    let centre = q0 * Vector3::new(0.0, 0.0, l);
    let velocity = q0 * w0.cross(&Vector3::new(0.0, 0.0, l));
    let xp = pinned
        .state([centre.x, centre.y, centre.z, q0.w, q0.i, q0.j, q0.k], [velocity.x, velocity.y, velocity.z, w0.x, w0.y, w0.z]);
    assert!(pinned.position_residuals(0.0, &xp).amax() < 1e-15 && pinned.velocity_residuals(0.0, &xp).amax() < 1e-14);
    let xt = top.state([q0.w, q0.i, q0.j, q0.k], w0.into());
    assert!((pinned.energy(0.0, &xp) - top.energy(0.0, &xt)).abs() < 1e-12);
    let opts = tight().output(Output::Times((1..=50).map(|i| i as f64 * 0.1).collect()));
    let (sp, st) =
        (pinned.run(xp).span(0.0..5.0).options(&opts).go().unwrap(), top.run(xt).span(0.0..5.0).options(&opts).go().unwrap());
    let mut worst = 0.0f64;
    for ((_, x), (_, y)) in sp.iter().zip(st.iter()) {
        let qp = UnitQuaternion::from_quaternion(Quaternion::new(x[3], x[4], x[5], x[6]));
        let qt = UnitQuaternion::from_quaternion(Quaternion::new(y[0], y[1], y[2], y[3]));
        worst =
            worst.max(qp.angle_to(&qt)).max((Vector3::new(x[10], x[11], x[12]) - Vector3::new(y[4], y[5], y[6])).norm() / 40.0);
    }
    let report = sp.constraints.unwrap();
    println!("pinned top against the top with a fixed tip over 5 s: {worst:.1e}; constraints {:?}", report.worst);
    assert!(worst < 1e-9, "pinned top: {worst:e}");
    assert!(report.worst.0 < 1e-10 && report.worst.1 < 1e-9, "{:?}", report.worst);
    // The projection turns the quaternion back onto the constraints from a disturbed state.
    let mut off = xp;
    off[0] += 0.01;
    off[4] += 0.02;
    let on = pinned.project_state(0.0, &off).unwrap();
    assert!(pinned.position_residuals(0.0, &on).amax() < 1e-12 && pinned.velocity_residuals(0.0, &on).amax() < 1e-12);
    let norm = Quaternion::new(on[3], on[4], on[5], on[6]).norm() / Quaternion::new(off[3], off[4], off[5], off[6]).norm();
    assert!((norm - 1.0).abs() < 1e-14, "the projection turns the quaternion, keeping its norm");
}

#[test]
fn the_sleeping_top_linearised_on_its_constraints_has_the_closed_form_frequencies() {
    // Upright at spin Ω — the Euler angles' singularity — in the body chart θ of the orientation
    // (`linearize::constrained_with_orientations`): the tip's three holonomic rows eliminate the
    // centre's position and velocity, θ₃ (the spin's phase) is proved ignorable, and with
    // A = a + m l² (about the tip) and κ = m g l the tilt turns in space at
    // σ± = (cΩ ± √(c²Ω² − 4Aκ))/(2A), seen from the body at ±i(σ± − Ω): stable above
    // Ω² = 4Aκ/c², a falling pair below. Two routes: the pinned top (constraints) and the top with a
    // fixed tip (`QuaternionTop`, no rows) linearised in the same chart.
    use routh::nalgebra::DMatrix;
    use routh::runtime::linearize::{Oriented, Selection, constrained_with_orientations};
    let (m, l, a, c, g): (f64, f64, f64, f64, f64) = (0.8, 0.35, 0.021, 0.034, 9.81);
    let (pinned, fixed) = (PinnedTop { m, l, a, c, g }, QuaternionTop { m, l, a, c, g });
    let (at, kappa) = (a + m * l * l, m * g * l);
    let critical = (4.0 * at * kappa).sqrt() / c;
    let selection = Selection::new()
        .coordinates(["theta1(b)", "theta2(b)"])
        .velocities(["theta1(b)", "theta2(b)", "theta3(b)"])
        .ignorable(["theta3(b)"]);
    for spin in [0.0, 0.7 * critical, 1.4 * critical, 3.0 * critical] {
        let x = pinned.state([0.0, 0.0, l, 1.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, spin]);
        assert!(pinned.position_residuals(0.0, &x).amax() < 1e-15 && pinned.velocity_residuals(0.0, &x).amax() < 1e-15);
        let lin = pinned.linearize_constrained(0.0, &x, &selection).unwrap();
        assert_eq!(lin.states, ["theta1(b)", "theta2(b)", "dot(theta1(b))", "dot(theta2(b))", "dot(theta3(b))"]);
        let got: Vec<(f64, f64)> = lin.a.complex_eigenvalues().iter().map(|z| (z.re, z.im)).collect();
        let disc = c * c * spin * spin - 4.0 * at * kappa;
        let want: Vec<(f64, f64)> = if disc >= 0.0 {
            let sigma = [(c * spin + disc.sqrt()) / (2.0 * at), (c * spin - disc.sqrt()) / (2.0 * at)];
            sigma.iter().flat_map(|&s| [(0.0, s - spin), (0.0, spin - s)]).chain([(0.0, 0.0)]).collect()
        } else {
            // σ = (cΩ ± i√(4Aκ − c²Ω²))/(2A): λ = ±i(σ − Ω), a growing and a decaying pair.
            let (re, im) = ((-disc).sqrt() / (2.0 * at), c * spin / (2.0 * at) - spin);
            vec![(re, im), (-re, im), (re, -im), (-re, -im), (0.0, 0.0)]
        };
        let nearest =
            |z: &(f64, f64), set: &[(f64, f64)]| set.iter().map(|w| (z.0 - w.0).hypot(z.1 - w.1)).fold(f64::INFINITY, f64::min);
        let worst = want.iter().map(|w| nearest(w, &got)).chain(got.iter().map(|z| nearest(z, &want))).fold(0.0, f64::max);
        let scale = (kappa / at).sqrt() + spin;
        println!(
            "sleeping top at Ω = {spin:.2} (critical {critical:.2}): eigenvalues {got:.4?}, against the closed form {worst:.1e}"
        );
        assert!(worst < 1e-10 * scale, "Ω = {spin}: {got:?} against {want:?}");
        let stable = got.iter().all(|z| z.0.abs() < 1e-9 * scale);
        assert_eq!(stable, spin > critical, "Ω = {spin}: stability");
        // The mechanical form: the inertia about the tip (A, A, c); without spin K = −κ (falling).
        let mech = lin.mechanical.as_ref().unwrap();
        let mass = DMatrix::from_diagonal(&routh::nalgebra::DVector::from_vec(vec![at, at, c]));
        assert!((&mech.mass - mass).amax() < 1e-14, "M = {}", mech.mass);
        if spin == 0.0 {
            assert!((&mech.stiffness + DMatrix::identity(3, 2) * kappa).amax() < 1e-12 && mech.damping.amax() < 1e-12);
        }
        // The top with a fixed tip, in the same chart with no constraint rows: the same matrix.
        let xf = fixed.state([1.0, 0.0, 0.0, 0.0], [0.0, 0.0, spin]);
        let jf = fixed.jacobian(0.0, &xf).unwrap();
        let field = routh::runtime::VectorField::field(&fixed, 0.0, &xf).unwrap();
        let mf = fixed.mass_matrix(0.0, &xf);
        let mf = DMatrix::from_column_slice(3, 3, mf.as_slice());
        let on = Oriented::new(&QuaternionTop::COORDINATES, &["b"], &xf, &field);
        let lf =
            constrained_with_orientations(&on, (&jf, &DMatrix::zeros(7, 0)), (&DMatrix::zeros(0, 7), &mf), &selection).unwrap();
        assert!((&lf.a - &lin.a).amax() < 1e-12 * scale * scale, "fixed tip {} against pinned {}", lf.a, lin.a);
    }
}

/// A velocity constraint that is secretly holonomic: the body's e₃ axis keeps its height, the
/// derivative of (R e₃)_z = const; the Frobenius test on S³ (× time) says so.
#[allow(dead_code)]
#[derive(Mechanics)]
#[mechanics(
    orientation(r),
    body(name = brick, mass = m, centre = [0, 0, 0], frame = r, inertia = diag(i1, i2, i3)),
    define(axis = r * [0, 0, 1]),
    constraint(level = dot(axis)[2]),
    constraint(no_yaw = omega(r)[2]),
)]
struct LevelBody {
    m: f64,
    i1: f64,
    i2: f64,
    i3: f64,
}

#[test]
fn the_frobenius_test_with_an_orientation_tells_integrable_rows() {
    // (R e₃)_z = const integrates; ω₃ = 0 alone does not (rotations about body x and y do not
    // close); the two together leave a line field (rotations about the horizontal body axis
    // (R₃₁, R₃₂, 0)), which always integrates.
    assert_eq!(LevelBody::CONSTRAINT_KINDS, [ConstraintKind::Integrable, ConstraintKind::Nonholonomic]);
    assert_eq!(LevelBody::CONSTRAINTS_INTEGRABLE, Some(true));
    assert_eq!(ChaplyginBall::CONSTRAINT_KINDS[0], ConstraintKind::Nonholonomic);
}

// ---------------------------------------------------------------------------------------------
// Modes with orientations: the modes share the top level's coordinates and orientation.

/// The brick landing plastically on a corner and pivoting on it over a frictionless floor
/// (`unilateral`: modes `free` and `floor`, the corner held with its multiplier as the release
/// guard).
#[derive(Mechanics)]
#[mechanics(
    coordinates(x, y, z),
    orientation(r),
    point(corner = [x, y, z] + r * [a, b, c]),
    body(name = brick, mass = m, centre = [x, y, z], frame = r, inertia = diag(i1, i2, i3)),
    gravity = [0, 0, -g],
    unilateral(name = floor, guard = corner[2], law = restitution(0)),
)]
struct QuaternionTipper {
    m: f64,
    i1: f64,
    i2: f64,
    i3: f64,
    a: f64,
    b: f64,
    c: f64,
    g: f64,
}

/// The same in z-x-z Euler angles.
#[derive(Mechanics)]
#[mechanics(
    coordinates(x, y, z, phi, theta, psi),
    frame(f = rot_z(phi) * rot_x(theta) * rot_z(psi)),
    point(corner = [x, y, z] + f * [a, b, c]),
    body(name = brick, mass = m, centre = [x, y, z], frame = f, inertia = diag(i1, i2, i3)),
    gravity = [0, 0, -g],
    unilateral(name = floor, guard = corner[2], law = restitution(0)),
)]
struct EulerTipper {
    m: f64,
    i1: f64,
    i2: f64,
    i3: f64,
    a: f64,
    b: f64,
    c: f64,
    g: f64,
}

#[test]
fn a_brick_pivoting_on_a_corner_is_the_same_with_a_quaternion_and_with_euler_angles() {
    let (m, i1, i2, i3, a, b, c, g) = (0.9, 0.02, 0.035, 0.045, 0.12, -0.07, -0.2, 9.81);
    let quat = QuaternionTipper { m, i1, i2, i3, a, b, c, g };
    let euler = EulerTipper { m, i1, i2, i3, a, b, c, g };
    assert_eq!(QuaternionTipper::MODES, ["free", "floor"]);
    let (angles, rates) = ([0.3, 1.1, -0.4], [0.5, -1.2, 2.0]);
    let xe = euler.free_state([0.0, 0.0, 0.3, angles[0], angles[1], angles[2]], [0.3, -0.2, 0.0, rates[0], rates[1], rates[2]]);
    let (q0, w0) = common::euler_zxz(angles, rates);
    let xq = quat.free_state([0.0, 0.0, 0.3, q0.w, q0.i, q0.j, q0.k], [0.3, -0.2, 0.0, w0.x, w0.y, w0.z]);
    let opts = HybridOptions::default().ode(tight().output(Output::Interval(0.02)));
    let (sq, se) =
        (quat.run(xq).span(0.0..1.2).options(&opts).go().unwrap(), euler.run(xe).span(0.0..1.2).options(&opts).go().unwrap());
    assert!(sq.mode_sequence().starts_with(&[QuaternionTipper::FREE, QuaternionTipper::FLOOR]), "{:?}", sq.mode_sequence());
    assert_eq!(sq.mode_sequence(), se.mode_sequence());
    // The impacts, each once: a plastic impact (restitution 0) leaves the corner's normal velocity
    // at round-off, of either sign (here +1.7e-16 with the quaternion, −1.1e-16 with the angles),
    // and a rate within its rounding is at rest (the hybrid module's *Arming*), so that neither
    // route meets the floor a second time before settling on it.
    fn records<const D: usize>(impacts: &[routh::runtime::ImpactRecord<D>]) -> Vec<(&'static str, f64)> {
        impacts.iter().map(|i| (i.guard, i.t)).collect()
    }
    let (iq, ie) = (records(&sq.impacts), records(&se.impacts));
    assert_eq!(iq.iter().map(|i| i.0).take(2).collect::<Vec<_>>(), ["floor", "settle_floor"], "{iq:?}");
    assert_eq!(iq.iter().map(|i| i.0).collect::<Vec<_>>(), ie.iter().map(|i| i.0).collect::<Vec<_>>());
    let mut times = 0.0f64;
    for (a, b) in iq.iter().zip(&ie) {
        times = times.max((a.1 - b.1).abs());
    }
    // Where both are on the floor, the same motion; there the energy and the horizontal momentum
    // are kept (a frictionless floor).
    let (mut route, mut energy, mut momentum) = (0.0f64, 0.0f64, 0.0f64);
    let on_floor: Vec<(f64, &SVector<f64, 13>)> =
        sq.iter().filter(|(_, mode, _)| *mode == QuaternionTipper::FLOOR).map(|(t, _, x)| (t, x)).collect();
    let (t0, x0) = on_floor[1];
    let e0 = quat.floor().energy(t0, x0);
    for (t, x) in &on_floor[1..] {
        let Some(k) = se.times.iter().position(|s| s == t) else { continue };
        let y = &se.states[k];
        let (r, _) = common::euler_zxz([y[3], y[4], y[5]], [y[9], y[10], y[11]]);
        let q = UnitQuaternion::from_quaternion(Quaternion::new(x[3], x[4], x[5], x[6]));
        route = route.max((x.fixed_rows::<3>(0) - y.fixed_rows::<3>(0)).norm()).max(q.angle_to(&r));
        energy = energy.max((quat.floor().energy(*t, x) - e0).abs());
        momentum = momentum.max((x[7] - x0[7]).abs()).max((x[8] - x0[8]).abs());
    }
    let report = sq.constraints.unwrap();
    println!(
        "tipping brick: transition times {times:.1e}, on the floor against Euler angles {route:.1e}, energy {energy:.1e}, \
         horizontal momentum {momentum:.1e}, corner held to {:.1e}",
        report.worst.0
    );
    assert!(times < 1e-9, "transition times: {times:e}");
    assert!(route < 1e-8, "quaternion tipper against Euler-angle tipper: {route:e}");
    assert!(energy < 1e-10 && momentum < 1e-10, "energy {energy:e}, momentum {momentum:e}");
    assert!(report.worst.0 < 1e-10, "{:?}", report.worst);
}

/// The pivoting brick's field Jacobian in its mode on the floor — the saddle point's Jacobian
/// summed from the forces' part, the corner's part (the modes generate it once) and the links'
/// kinetic part — against central differences of its field, with a quaternion and with Euler
/// angles; and the multiplier's rates (the release guard's) against differences of the multiplier.
#[test]
fn a_held_corners_mode_jacobian_is_its_fields_derivative() {
    let (m, i1, i2, i3, a, b, c, g) = (0.9, 0.02, 0.035, 0.045, 0.12, -0.07, -0.2, 9.81);
    let (quat, euler) = (QuaternionTipper { m, i1, i2, i3, a, b, c, g }, EulerTipper { m, i1, i2, i3, a, b, c, g });
    let (angles, rates) = ([0.3, 1.1, -0.4], [0.5, -1.2, 2.0]);
    let (q0, w0) = common::euler_zxz(angles, rates);
    let xq = quat.floor_state([0.1, -0.2, 0.25, q0.w, q0.i, q0.j, q0.k], [0.3, -0.2, 0.1, w0.x, w0.y, w0.z]).state;
    let xe = euler
        .floor_state([0.1, -0.2, 0.25, angles[0], angles[1], angles[2]], [0.3, -0.2, 0.1, rates[0], rates[1], rates[2]])
        .state;
    let jq = quat.floor().jacobian(0.0, &xq).unwrap();
    let fq = common::jacobian_fd(&quat.floor(), 0.0, &xq, 1e-6).unwrap();
    let je = euler.floor().jacobian(0.0, &xe).unwrap();
    let fe = common::jacobian_fd(&euler.floor(), 0.0, &xe, 1e-6).unwrap();
    let (gap_q, gap_e) = ((jq - fq).amax() / (1.0 + fq.amax()), (je - fe).amax() / (1.0 + fe.amax()));
    // ∂λ/∂x against differences of λ.
    let (grad, _) = euler.floor().constraint_force_rates(0.0, &xe).unwrap();
    let mut gap_rates = 0.0f64;
    for j in 0..12 {
        let (mut up, mut down) = (xe, xe);
        up[j] += 1e-6;
        down[j] -= 1e-6;
        let d = (euler.floor().constraint_forces(0.0, &up).unwrap()[0] - euler.floor().constraint_forces(0.0, &down).unwrap()[0])
            / 2e-6;
        gap_rates = gap_rates.max((grad[(0, j)] - d).abs() / (1.0 + d.abs()));
    }
    eprintln!("held corner: Jacobian vs differences {gap_q:.1e} (quaternion), {gap_e:.1e} (Euler); ∂λ/∂x {gap_rates:.1e}");
    assert!(gap_q < 1e-7 && gap_e < 1e-7 && gap_rates < 1e-7, "{gap_q:e} {gap_e:e} {gap_rates:e}");
}

// ---------------------------------------------------------------------------------------------
// Torques and inputs on orientations: `force(r = τ)` is a torque in body components, the
// generalized force of ω.

/// A spacecraft driven by body-frame torques (thrusters or reaction wheels, as inputs), with its
/// field's Jacobians: the step in its tangent chart and iLQR over it.
#[derive(Mechanics)]
#[mechanics(
    orientation(r),
    input(t1, t2, t3),
    body(name = craft, mass = m, centre = [0, 0, 0], frame = r, inertia = diag(i1, i2, i3)),
    force(r = [t1, t2, t3]),
    sensitivity(i3),
    jacobian,
)]
#[derive(Clone, Copy)]
struct TorquedCraft {
    m: f64,
    i1: f64,
    i2: f64,
    i3: f64,
}

#[test]
fn body_torques_on_an_orientation_follow_their_closed_forms() {
    let craft = TorquedCraft { m: 1.0, i1: 2.0, i2: 3.0, i3: 4.0 };
    // B = ∂F/∂u: the quaternion rows zero, the ω rows I⁻¹, exactly.
    let q0 = UnitQuaternion::from_euler_angles(0.2, -0.3, 0.9);
    let x = craft.state([q0.w, q0.i, q0.j, q0.k], [0.3, -0.5, 0.8]);
    let lin = craft.linearize(0.0, &x, [0.1, 0.2, -0.3]).unwrap();
    let expected = Matrix3::from_diagonal(&Vector3::new(0.5, 1.0 / 3.0, 0.25));
    assert!(lin.b.fixed_rows::<4>(0).amax() == 0.0 && (lin.b.fixed_rows::<3>(4) - expected).amax() < 1e-15, "{}", lin.b);
    // ∂F/∂I₃ against central differences of the field.
    let u = [0.1, 0.2, -0.3];
    let dp = craft.driven(u).parameter_jacobian(0.0, &x).unwrap();
    let h = 1e-6;
    let field = |i3: f64| routh::runtime::VectorField::field(&TorquedCraft { i3, ..craft }.driven(u), 0.0, &x).unwrap();
    let fd = (field(craft.i3 + h) - field(craft.i3 - h)) / (2.0 * h);
    assert!((dp.column(0) - fd).amax() < 1e-8, "{dp} vs {fd}");
    // A constant torque about a principal axis from rest: ω₃ = τt/I₃, a turn by τt²/(2I₃) about it.
    let tau = 0.6;
    let sol = craft
        .run(craft.state([1.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0]))
        .span(0.0..3.0)
        .inputs([0.0, 0.0, tau])
        .options(tight())
        .go()
        .unwrap();
    let (t, end) = sol.last().unwrap();
    let angle = tau * t * t / (2.0 * craft.i3);
    let exact = UnitQuaternion::from_axis_angle(&Vector3::z_axis(), angle);
    let attitude = UnitQuaternion::from_quaternion(Quaternion::new(end[0], end[1], end[2], end[3]));
    assert!(attitude.angle_to(&exact) < 1e-12 && (end[6] - tau * t / craft.i3).abs() < 1e-13, "{end}");
    // Detumbling a spherical body, τ = −k ω: ω(t) = ω₀ e^{−kt/I} along a fixed axis n, and
    // R(t) = R₀ exp(θ(t) n̂) with θ = |ω₀| I/k (1 − e^{−kt/I}); the power τ·ω is the energy's rate.
    let ball = TorquedCraft { m: 1.0, i1: 2.5, i2: 2.5, i3: 2.5 };
    let k = 0.8;
    let w0 = Vector3::new(0.4, -1.1, 0.7);
    let feedback = move |_t: f64, x: &SVector<f64, 7>| SVector::<f64, 3>::new(-k * x[4], -k * x[5], -k * x[6]);
    let opts = tight().output(Output::Interval(0.25));
    let sol =
        ball.run(ball.state([q0.w, q0.i, q0.j, q0.k], w0.into())).span(0.0..5.0).inputs(feedback).options(&opts).go().unwrap();
    let mut worst = 0.0f64;
    for (t, x) in sol.iter() {
        let decay = (-k * t / ball.i1).exp();
        let theta = w0.norm() * ball.i1 / k * (1.0 - decay);
        let exact = q0 * UnitQuaternion::from_scaled_axis(w0.normalize() * theta);
        let attitude = UnitQuaternion::from_quaternion(Quaternion::new(x[0], x[1], x[2], x[3]));
        worst = worst.max((Vector3::new(x[4], x[5], x[6]) - w0 * decay).norm()).max(attitude.angle_to(&exact));
        let u = feedback(t, x);
        let power = ball.driven([u[0], u[1], u[2]]).power(t, x);
        assert!((power + k * Vector3::new(x[4], x[5], x[6]).norm_squared()).abs() < 1e-14, "power τ·ω at t = {t}");
    }
    println!("detumbling: ω and attitude against ω₀e^(−kt/I), R₀ exp(θ n̂): {worst:.1e}");
    assert!(worst < 1e-10, "detumbling: {worst:e}");
}

// ---------------------------------------------------------------------------------------------
// Contact (Herglotz) Lagrangians with orientations.

/// A rigid body with linear damping written as a contact Lagrangian, L = ½ωᵀIω − γ z: Herglotz's
/// equations give I ω̇ = Iω × ω − γ I ω.
#[derive(Mechanics)]
#[mechanics(
    orientation(r),
    action(z),
    body(name = brick, mass = m, centre = [0, 0, 0], frame = r, inertia = diag(i1, i2, i3)),
    lagrangian = -gamma * z,
    jacobian,
)]
struct DampedBody {
    m: f64,
    i1: f64,
    i2: f64,
    i3: f64,
    gamma: f64,
}

/// The same in z-x-z Euler angles.
#[derive(Mechanics)]
#[mechanics(
    coordinates(phi, theta, psi),
    action(z),
    frame(f = rot_z(phi) * rot_x(theta) * rot_z(psi)),
    body(name = brick, mass = m, centre = [0, 0, 0], frame = f, inertia = diag(i1, i2, i3)),
    lagrangian = -gamma * z,
)]
struct EulerDampedBody {
    m: f64,
    i1: f64,
    i2: f64,
    i3: f64,
    gamma: f64,
}

#[test]
fn a_contact_lagrangian_damps_a_rigid_body_as_herglotz_says() {
    // A spherical body: ω = ω₀ e^{−γt} about a fixed axis n, R = R₀ exp(θ n̂) with
    // θ = |ω₀|(1 − e^{−γt})/γ, and the energy E = T + γz decays as E₀ e^{−γt} (dE/dt = ∂L/∂z · E).
    let gamma = 0.7;
    let ball = DampedBody { m: 1.0, i1: 1.5, i2: 1.5, i3: 1.5, gamma };
    let q0 = UnitQuaternion::from_euler_angles(0.5, -0.2, 1.3);
    let w0 = Vector3::new(-0.6, 1.4, 0.3);
    let x0 = ball.state([q0.w, q0.i, q0.j, q0.k], w0.into(), 0.2);
    let e0 = ball.energy(0.0, &x0);
    let sol = ball.run(x0).span(0.0..5.0).options(tight().output(Output::Interval(0.25))).go().unwrap();
    let mut worst = 0.0f64;
    for (t, x) in sol.iter() {
        let decay = (-gamma * t).exp();
        let exact = q0 * UnitQuaternion::from_scaled_axis(w0.normalize() * (w0.norm() * (1.0 - decay) / gamma));
        let attitude = UnitQuaternion::from_quaternion(Quaternion::new(x[0], x[1], x[2], x[3]));
        worst = worst.max((Vector3::new(x[4], x[5], x[6]) - w0 * decay).norm()).max(attitude.angle_to(&exact));
        worst = worst.max((ball.energy(t, x) - e0 * decay).abs() / e0.abs());
    }
    // An asymmetric body against the same body in Euler angles.
    let (body, euler) =
        (DampedBody { m: 1.0, i1: 1.0, i2: 2.0, i3: 3.0, gamma }, EulerDampedBody { m: 1.0, i1: 1.0, i2: 2.0, i3: 3.0, gamma });
    let (angles, rates) = ([0.4, 1.2, -0.3], [0.8, -0.5, 1.9]);
    let (q, w) = common::euler_zxz(angles, rates);
    let (xq, xe) = (body.state([q.w, q.i, q.j, q.k], w.into(), 0.0), euler.state(angles, rates, 0.0));
    assert!((body.energy(0.0, &xq) - euler.energy(0.0, &xe)).abs() < 1e-14);
    let opts = tight().output(Output::Times((1..=30).map(|i| i as f64 * 0.1).collect()));
    let (sq, se) =
        (body.run(xq).span(0.0..3.0).options(&opts).go().unwrap(), euler.run(xe).span(0.0..3.0).options(&opts).go().unwrap());
    let mut route = 0.0f64;
    for ((t, x), (_, y)) in sq.iter().zip(se.iter()) {
        let (r, w) = common::euler_zxz([y[0], y[1], y[2]], [y[3], y[4], y[5]]);
        let attitude = UnitQuaternion::from_quaternion(Quaternion::new(x[0], x[1], x[2], x[3]));
        route = route.max(attitude.angle_to(&r)).max((Vector3::new(x[4], x[5], x[6]) - w).norm()).max((x[7] - y[6]).abs());
        assert!((body.energy(t, x) - euler.energy(t, y)).abs() < 1e-9);
    }
    println!("damped body: spherical against its closed form {worst:.1e}; asymmetric against Euler angles {route:.1e}");
    assert!(worst < 1e-10, "spherical damped body: {worst:e}");
    assert!(route < 1e-9, "quaternion against Euler angles: {route:e}");
}

/// A damped brick (contact Lagrangian, action s) bouncing elastically on a corner: between impacts
/// dE/dt = −γE, and an elastic impact keeps E, so E(t) = E₀ e^{−γt} throughout.
#[derive(Mechanics)]
#[mechanics(
    coordinates(x, y, z),
    orientation(r),
    action(s),
    point(corner = [x, y, z] + r * [a, b, c]),
    body(name = brick, mass = m, centre = [x, y, z], frame = r, inertia = diag(i1, i2, i3)),
    gravity = [0, 0, -g],
    lagrangian = -gamma * s,
    impact(name = floor, guard = corner[2], law = restitution(1)),
)]
struct DampedBrick {
    m: f64,
    i1: f64,
    i2: f64,
    i3: f64,
    a: f64,
    b: f64,
    c: f64,
    g: f64,
    gamma: f64,
}

#[test]
fn contact_jacobians_with_orientations_match_finite_differences_and_the_energy_decays_across_impacts() {
    let body = DampedBody { m: 1.0, i1: 1.0, i2: 2.0, i3: 3.0, gamma: 0.4 };
    let brick = DampedBrick { m: 0.9, i1: 0.02, i2: 0.035, i3: 0.045, a: 0.12, b: -0.07, c: -0.2, g: 9.81, gamma: 0.3 };
    let mut rng = common::Rng::new(61);
    for _ in 0..4 {
        let q: [f64; 4] = std::array::from_fn(|_| rng.uniform(-1.0, 1.0));
        let x = body.state(q, [rng.uniform(-2.0, 2.0), rng.uniform(-2.0, 2.0), rng.uniform(-2.0, 2.0)], rng.uniform(-1.0, 1.0));
        let (exact, fd) = (body.jacobian(0.0, &x).unwrap(), common::jacobian_fd(&body, 0.0, &x, 1e-6).unwrap());
        assert!(common::rel_err(&exact, &fd) < 1e-6, "damped body ∂F/∂x: {:e}", common::rel_err(&exact, &fd));
        let v: [f64; 6] = std::array::from_fn(|_| rng.uniform(-2.0, 2.0));
        let x = brick.state([0.1, -0.2, 0.3, q[0], q[1], q[2], q[3]], v, rng.uniform(-1.0, 1.0));
        let (exact, fd) = (brick.jacobian(0.0, &x).unwrap(), common::jacobian_fd(&brick, 0.0, &x, 1e-6).unwrap());
        assert!(common::rel_err(&exact, &fd) < 1e-6, "damped brick ∂F/∂x: {:e}", common::rel_err(&exact, &fd));
        // The energy's gradient over the whole state (continuation's embedding uses it).
        let grad = routh::runtime::HybridSystem::mode_energy_gradient(&brick, 0, 0.0, &x);
        let fd = routh::runtime::ode::field::gradient_fd(|y| brick.energy(0.0, y), &x);
        assert!((grad - fd).norm() < 1e-7 * (1.0 + grad.norm()), "∇E: {grad} vs {fd}");
    }
    let q0 = UnitQuaternion::from_euler_angles(0.3, 1.1, -0.4);
    let x0 = brick.state([0.0, 0.0, 0.6, q0.w, q0.i, q0.j, q0.k], [0.3, -0.2, 0.0, 0.5, -1.2, 2.0], 0.0);
    let e0 = brick.energy(0.0, &x0);
    let sol =
        brick.run(x0).span(0.0..1.5).options(HybridOptions::default().ode(tight().output(Output::Interval(0.05)))).go().unwrap();
    assert!(sol.impacts.len() >= 2, "{} impacts", sol.impacts.len());
    let mut worst = 0.0f64;
    for (t, _, x) in sol.iter() {
        worst = worst.max((brick.energy(t, x) - e0 * (-brick.gamma * t).exp()).abs() / e0.abs());
    }
    println!("damped brick bouncing ({} impacts): E against E₀e^(−γt) {worst:.1e}", sol.impacts.len());
    assert!(worst < 1e-9, "energy decay across impacts: {worst:e}");
}

/// A uniform ball on a slope of angle α (`rolling(..., ground = n)`): its centre free, so the
/// contact adds the height row c·n = a.
#[derive(Mechanics)]
#[mechanics(
    coordinates(x, y, z),
    orientation(r),
    body(name = ball, mass = m, centre = [x, y, z], frame = r, inertia = diag(j, j, j)),
    gravity = [0, 0, -g],
    rolling(name = slope, body = ball, sphere = a, ground = [-alpha.sin(), 0, alpha.cos()]),
)]
struct BallOnSlope {
    m: f64,
    j: f64,
    a: f64,
    g: f64,
    alpha: f64,
}

#[test]
fn a_ball_rolls_down_a_slope_at_five_sevenths_of_g_sin_alpha() {
    // Rolling without slipping, s̈ = g sin α · m a² / (m a² + J) — 5/7 g sin α for J = 2/5 m a² —
    // along the slope's fall line d = −(cos α, 0, sin α), spinning about the slope's horizontal axis.
    let (m, a, g, alpha) = (1.3, 0.2, 9.81, 0.35);
    let ball = BallOnSlope { m, j: 0.4 * m * a * a, a, g, alpha };
    assert_eq!(BallOnSlope::CONSTRAINTS, ["slope_height", "slope_t1", "slope_t2"]);
    let n = Vector3::new(-alpha.sin(), 0.0, alpha.cos());
    let centre = a * n + Vector3::new(0.0, 0.3, 0.0);
    let q0 = UnitQuaternion::from_euler_angles(0.2, 0.1, -0.3);
    let x0 = ball.state([centre.x, centre.y, centre.z, q0.w, q0.i, q0.j, q0.k], [0.0; 6]);
    assert!(ball.position_residuals(0.0, &x0).amax() < 1e-15 && ball.velocity_residuals(0.0, &x0).amax() < 1e-15);
    let e0 = ball.energy(0.0, &x0);
    let sol = ball.run(x0).span(0.0..2.0).options(tight().output(Output::Interval(0.1))).go().unwrap();
    let accel = 5.0 / 7.0 * g * alpha.sin();
    let fall = -Vector3::new(alpha.cos(), 0.0, alpha.sin());
    let mut worst = 0.0f64;
    for (t, x) in sol.iter() {
        let expected = centre + fall * (0.5 * accel * t * t);
        worst = worst.max((Vector3::new(x[0], x[1], x[2]) - expected).norm());
        assert!((ball.energy(t, x) - e0).abs() < 1e-10, "energy at t = {t}");
    }
    let report = sol.constraints.unwrap();
    println!("ball on a slope over 2 s: centre against 5/7 g sin α t²/2 {worst:.1e}; constraints {:?}", report.worst);
    assert!(worst < 1e-10, "rolling down the slope: {worst:e}");
}

/// An orientation's start must be a rotation. A
/// quaternion of zero norm is none (`InvalidInitialState`); one of another norm is the rotation
/// R(q/|q|), and the run scales it to unit length at the start — |q| = 2 and |q| = 1e-200 run
/// exactly as the unit quaternion does, their samples of norm 1.
#[test]
fn an_orientation_starts_as_a_unit_quaternion_or_not_at_all() {
    let body = FreeBody { m: 1.0, i1: 1.0, i2: 2.0, i3: 3.0 };
    let w = [0.3, -0.2, 1.0];
    let zero = body.run(body.state([0.0; 4], w)).span(0.0..1.0).go().unwrap_err();
    assert!(matches!(zero.error, SimError::InvalidInitialState) && zero.partial.is_none(), "{:?}", zero.error);
    let nan = body.run(body.state([f64::NAN, 0.0, 0.0, 0.0], w)).span(0.0..1.0).go().unwrap_err();
    assert!(matches!(nan.error, SimError::InvalidInitialState));
    let q0 = UnitQuaternion::from_euler_angles(0.4, -1.1, 2.3);
    let unit = [q0.w, q0.i, q0.j, q0.k];
    let opts = tight().output(Output::Interval(0.5));
    let reference = body.run(body.state(unit, w)).span(0.0..5.0).options(&opts).go().unwrap();
    for scale in [2.0, 1e-200, 1e150] {
        let sol = body.run(body.state(unit.map(|c| c * scale), w)).span(0.0..5.0).options(&opts).go().unwrap();
        assert_eq!(sol.stop, StopReason::Finished);
        for ((_, x), (_, r)) in sol.iter().zip(reference.iter()) {
            assert!((Quaternion::new(x[0], x[1], x[2], x[3]).norm() - 1.0).abs() < 1e-12, "|q| at scale {scale:e}");
            assert!((x - r).amax() < 1e-12, "scale {scale:e}: {:e}", (x - r).amax());
        }
    }
}

/// What a body built from parameters must be is checked when a run starts, as the same
/// literals are at compile time — a mass positive, an inertia positive definite with the triangle
/// inequalities (I₃ = 5 > I₁ + I₂ = 3 is no mass distribution), a rolling radius positive.
#[test]
fn bodies_from_parameters_are_checked_when_a_run_starts() {
    let x0 = FreeBody { m: 1.0, i1: 1.0, i2: 2.0, i3: 3.0 }.state([1.0, 0.0, 0.0, 0.0], [0.1, 0.2, 0.3]);
    let refused = |body: FreeBody| body.run(x0).span(0.0..1.0).go().unwrap_err().error;
    let err = refused(FreeBody { m: 1.0, i1: 1.0, i2: 2.0, i3: 5.0 });
    assert!(
        matches!(err, SimError::InvalidParameter { name: "the inertia of `brick`", value, reason } if reason.contains("triangle") && (value + 1.0).abs() < 1e-12),
        "{err}"
    );
    let err = refused(FreeBody { m: 1.0, i1: -1.0, i2: 2.0, i3: 2.5 });
    assert!(matches!(err, SimError::InvalidParameter { reason, .. } if reason.contains("positive definite")), "{err}");
    let err = refused(FreeBody { m: -1.0, i1: 1.0, i2: 2.0, i3: 3.0 });
    assert!(matches!(err, SimError::InvalidParameter { name: "the mass of `brick`", value: -1.0, .. }), "{err}");
    // A flat plate (I₃ = I₁ + I₂) is a body.
    assert!(FreeBody { m: 1.0, i1: 1.0, i2: 2.0, i3: 3.0 }.run(x0).span(0.0..1.0).go().is_ok());

    let ball = |a: f64| BallOnSlope { m: 1.0, j: 0.4, a, g: 9.81, alpha: 0.3 };
    let x0 = ball(0.5).state([0.0, 0.0, 0.5, 1.0, 0.0, 0.0, 0.0], [0.0; 6]);
    let err = ball(-0.5).run(x0).span(0.0..1.0).go().unwrap_err().error;
    assert!(matches!(err, SimError::InvalidParameter { name: "the sphere radius of contact `slope`", value: -0.5, .. }), "{err}");
}

/// A free asymmetric body with its field Jacobian, for the tangent-space linearisation.
#[derive(Mechanics)]
#[mechanics(
    orientation(r),
    body(name = brick, mass = m, centre = [0, 0, 0], frame = r, inertia = diag(i1, i2, i3)),
    jacobian,
)]
struct Tumbling {
    m: f64,
    i1: f64,
    i2: f64,
    i3: f64,
}

/// The linearisation in the tangent space of SO(3) (`linearize_tangent`, and `linearize_chart`'s
/// fixed-size A) is 6 × 6 for a body turning about a fixed point, against the error-state model derived by hand from
/// Euler's equations: with δω = θ̇ + ω₀ × θ, I δω̇ = (I δω) × ω₀ + (I ω₀) × δω and
/// θ̈ = δω̇ − ω̇₀ × θ − ω₀ × θ̇ (ω̇₀ = I⁻¹ (I ω₀) × ω₀). Spinning about the intermediate axis it
/// grows at the tennis racket's rate s √((I₂ − I₁)(I₃ − I₂) / (I₁ I₃)); about the largest axis
/// nothing grows.
#[test]
fn the_tangent_linearisation_is_the_hand_derived_error_state_model() {
    let body = Tumbling { m: 1.0, i1: 1.0, i2: 2.0, i3: 2.75 };
    let inertia = Matrix3::from_diagonal(&Vector3::new(body.i1, body.i2, body.i3));
    let inverse = inertia.try_inverse().unwrap();
    let w0 = Vector3::new(0.3, -0.7, 1.1);
    let q0 = UnitQuaternion::from_euler_angles(0.4, -1.1, 2.3);
    let x0 = body.state([q0.w, q0.i, q0.j, q0.k], [w0.x, w0.y, w0.z]);
    let lin = body.linearize_tangent(0.0, &x0).unwrap();
    assert_eq!(lin.states, ["theta1(r)", "theta2(r)", "theta3(r)", "dot(theta1(r))", "dot(theta2(r))", "dot(theta3(r))"]);
    let w0_dot = inverse * (inertia * w0).cross(&w0);
    let dw_dot = |dw: Vector3<f64>| inverse * ((inertia * dw).cross(&w0) + (inertia * w0).cross(&dw));
    let mut a = SMatrix::<f64, 6, 6>::zeros();
    for c in 0..3 {
        let e = Vector3::ith(c, 1.0);
        a[(c, 3 + c)] = 1.0;
        let by_theta = dw_dot(w0.cross(&e)) - w0_dot.cross(&e);
        let by_rate = dw_dot(e) - w0.cross(&e);
        a.fixed_view_mut::<3, 1>(3, c).copy_from(&by_theta);
        a.fixed_view_mut::<3, 1>(3, 3 + c).copy_from(&by_rate);
    }
    let got = SMatrix::<f64, 6, 6>::from_column_slice(lin.a.as_slice());
    println!("tangent linearisation of a tumbling body: |A − A_hand| = {:.1e}", (got - a).amax());
    assert!((got - a).amax() < 1e-12, "A = {got}, by hand {a}");
    // The same A as a fixed-size matrix (`linearize_chart`: the quaternion state's J moved by the
    // layout's chart, `linearize::in_chart`).
    let chart = body.linearize_chart(0.0, &x0).unwrap();
    assert!((chart.a - a).amax() < 1e-12, "A = {}, by hand {a}", chart.a);
    // Spinning about each principal axis: only the intermediate one grows, at the racket's rate.
    let s = 1.7;
    let (i1, i2, i3) = (body.i1, body.i2, body.i3);
    let racket = s * ((i2 - i1) * (i3 - i2) / (i1 * i3)).sqrt();
    for (axis, rate) in [(1, racket), (2, 0.0), (0, 0.0)] {
        let mut w = [0.0; 3];
        w[axis] = s;
        let lin = body.linearize_tangent(0.0, &body.state([1.0, 0.0, 0.0, 0.0], w)).unwrap();
        let growth = lin.a.complex_eigenvalues().iter().map(|l| l.re).fold(f64::NEG_INFINITY, f64::max);
        assert!((growth - rate).abs() < 1e-9, "axis {axis}: growth {growth}, expected {rate}");
    }
}

/// θ̈ = u / I: the craft turning about its third principal axis alone.
struct Turntable(f64);
impl routh::runtime::InputSystem<2, 1> for Turntable {
    fn field_with_input(&self, _t: f64, x: &SVector<f64, 2>, u: &SVector<f64, 1>) -> Result<SVector<f64, 2>, FieldError> {
        Ok(SVector::<f64, 2>::new(x[1], u[0] / self.0))
    }
}
impl routh::runtime::step::InputJacobians<2, 1> for Turntable {
    fn state_jacobian(&self, _t: f64, _x: &SVector<f64, 2>, _u: &SVector<f64, 1>) -> Result<SMatrix<f64, 2, 2>, FieldError> {
        Ok(SMatrix::<f64, 2, 2>::new(0.0, 1.0, 0.0, 0.0))
    }
    fn input_jacobian(&self, _t: f64, _x: &SVector<f64, 2>, _u: &SVector<f64, 1>) -> Result<SMatrix<f64, 2, 1>, FieldError> {
        Ok(SMatrix::<f64, 2, 1>::new(0.0, 1.0 / self.0))
    }
}

/// A rest-to-rest slew by `turn` about the craft's third axis in `steps` steps of `h`: the craft's
/// problem in its tangent chart (weights 0.4 on the attitude, 0.1 on the rates, 0.3 on the
/// torques, 10³ at the end) and the turntable's over (θ, θ̇) with the same weights.
fn slew_problems(
    craft: &TorquedCraft,
    (h, steps, turn): (f64, usize, f64),
) -> (routh::runtime::ilqr::IlqrProblem<7, 3, 6>, routh::runtime::ilqr::IlqrProblem<2, 1>) {
    use routh::runtime::ilqr::IlqrProblem;
    let goal = UnitQuaternion::from_axis_angle(&Vector3::z_axis(), turn);
    let goal = craft.state([goal.w, goal.i, goal.j, goal.k], [0.0; 3]);
    let q = SMatrix::<f64, 6, 6>::from_diagonal(&SVector::<f64, 6>::from([0.4, 0.4, 0.4, 0.1, 0.1, 0.1]));
    let charted =
        IlqrProblem::new((0.0, h, steps), goal, q, Matrix3::identity() * 0.3, SMatrix::identity() * 1e3).tolerance(1e-12);
    let planar = IlqrProblem::new(
        (0.0, h, steps),
        SVector::<f64, 2>::new(turn, 0.0),
        SMatrix::<f64, 2, 2>::new(0.4, 0.0, 0.0, 0.1),
        SMatrix::<f64, 1, 1>::new(0.3),
        SMatrix::<f64, 2, 2>::identity() * 1e3,
    )
    .tolerance(1e-12);
    (charted, planar)
}

/// The generated `ilqr_tangent` plans a 120° rest-to-rest slew about a principal axis as the
/// planar turntable θ̈ = u / I₃ plans it with plain `ilqr` over (θ, θ̇) — the craft's dynamics
/// and its chart's step from the macro, the turntable's by hand: the off-axis torques stay zero,
/// the third is the turntable's to the quaternion RK4's own error (the planar step is exact),
/// and the costs agree (the chart's attitude error about the axis is the angle's).
#[test]
fn a_slew_planned_in_the_tangent_chart_is_the_turntables_plan() {
    use routh::runtime::ilqr::{IlqrStatus, ilqr};
    let craft = TorquedCraft { m: 3.0, i1: 1.5, i2: 2.5, i3: 4.0 };
    let steps = 60;
    let (problem, planar) = slew_problems(&craft, (0.05, steps, 120_f64.to_radians()));
    let start = craft.state([1.0, 0.0, 0.0, 0.0], [0.0; 3]);
    let plan = craft.ilqr_tangent(&problem, &start, &vec![SVector::zeros(); steps]).unwrap();
    assert_eq!(plan.status, IlqrStatus::Converged);
    let flat = ilqr(&Turntable(craft.i3), &planar, &SVector::zeros(), &vec![SVector::zeros(); steps]).unwrap();
    assert_eq!(flat.status, IlqrStatus::Converged);
    let peak = flat.inputs.iter().map(|u| u[0].abs()).fold(0.0, f64::max);
    let worst = plan.inputs.iter().zip(&flat.inputs).map(|(u, v)| (u[2] - v[0]).abs()).fold(0.0, f64::max);
    println!(
        "a 120° slew planned in the tangent chart against the turntable's plan: torques {:.1e} apart (peak {peak:.2}), costs {:.6} and {:.6}",
        worst,
        plan.cost(),
        flat.cost()
    );
    assert!(plan.inputs.iter().all(|u| u[0].abs() + u[1].abs() < 1e-10 * peak));
    assert!(worst < 1e-6 * peak);
    assert!((plan.cost() - flat.cost()).abs() < 1e-7 * flat.cost());
}

/// Model-predictive control in the tangent charts (`runtime::mpc::Mpc::control_tangent`, each tick
/// the generated model's `ilqr_tangent` problem from the state it meets) against the turntable's
/// (the same body turning about its third axis alone, θ̈ = u/I₃, by plain `control`): tick by tick
/// the closed loops are one — the torque about the axis the turntable's, the others zero, and the
/// attitude's angle about the axis the turntable's θ.
#[test]
fn a_slew_by_mpc_in_the_tangent_chart_is_the_turntables() {
    use routh::runtime::mpc::Mpc;
    use routh::runtime::step::StepMap;
    let craft = TorquedCraft { m: 3.0, i1: 1.5, i2: 2.5, i3: 4.0 };
    let (h, turn, limit) = (0.05, 90_f64.to_radians(), 1.5);
    let (problem, planar) = slew_problems(&craft, (h, 40, turn));
    let (problem, planar) = (
        problem.limits(SVector::repeat(-limit), SVector::repeat(limit)),
        planar.limits(SVector::repeat(-limit), SVector::repeat(limit)),
    );
    let (mut charted, mut flat) = (Mpc::new(problem), Mpc::new(planar));
    let turntable = Turntable(craft.i3);
    let (mut x, mut y) = (craft.state([1.0, 0.0, 0.0, 0.0], [0.0; 3]), SVector::<f64, 2>::zeros());
    let (mut worst, mut apart, mut peak) = (0.0_f64, 0.0_f64, 0.0_f64);
    for k in 0..100 {
        let t = k as f64 * h;
        let u = charted.control_tangent::<_, 4, 3>(&craft, t, &x).unwrap();
        let v = flat.control(&turntable, t, &y).unwrap();
        assert!(u[0].abs() + u[1].abs() < 1e-10, "tick {k}: {u}");
        worst = worst.max((u[2] - v[0]).abs());
        peak = peak.max(v[0].abs());
        x = craft.advance(t, &x, &u, h).unwrap();
        y = turntable.advance(t, &y, &v, h).unwrap();
        let angle = 2.0 * x[3].atan2(x[0]);
        apart = apart.max((angle - y[0]).abs());
    }
    println!(
        "a 90° slew by MPC in the tangent chart against the turntable's: torques {worst:.1e} apart (peak {peak:.2}, limit {limit}), \
         angles {apart:.1e} apart, {:.1e} rad from the target after 5 s",
        (turn - 2.0 * x[3].atan2(x[0])).abs()
    );
    assert!((peak - limit).abs() < 1e-12, "the limit binds: {peak}");
    assert!(worst < 1e-6 * peak && apart < 1e-6);
    // Most of the way (the weights' gentle approach: 1.3 % of the turn left after 5 s).
    assert!((turn - 2.0 * x[3].atan2(x[0])).abs() < 0.05 * turn);
}
