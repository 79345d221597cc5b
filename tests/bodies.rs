//! Rigid bodies, frames and points: models written with `body(...)` against the same models
//! written as hand-derived Lagrangians, and against the closed forms of rigid-body motion.

#[allow(dead_code)]
#[path = "../examples/models/chaplygin.rs"]
mod chaplygin;
mod common;

use std::f64::consts::FRAC_PI_2;

use chaplygin::ChaplyginSleigh;
use routh::nalgebra::{Matrix3, Vector3};
use routh::prelude::*;

/// Heavy symmetric top as a body: frame by the Euler angles (z-x-z: precession φ, nutation θ,
/// spin ψ), mass centre at distance l up the figure axis from the fixed tip, inertia about the
/// mass centre diag(a, a, c), gravity −g e_z.
#[derive(Mechanics)]
#[mechanics(
    coordinates(phi, theta, psi),
    frame(b = rot_z(phi) * rot_x(theta) * rot_z(psi)),
    point(g_centre = b * [0, 0, l]),
    body(name = top, mass = m, centre = g_centre, frame = b, inertia = diag(a, a, c)),
    gravity = [0, 0, -g],
    symmetry(cyclic(phi), cyclic(psi)),
)]
struct BodyTop {
    m: f64,
    l: f64,
    a: f64,
    c: f64,
    g: f64,
}

/// The same top with its Lagrangian derived by hand (as in `tests/routh.rs`): moments about the
/// tip i1 = a + m l², i3 = c.
#[derive(Mechanics)]
#[mechanics(
    coordinates(phi, theta, psi),
    lagrangian = i1 / 2 * (dot(theta).powi(2) + (dot(phi) * theta.sin()).powi(2))
        + i3 / 2 * (dot(psi) + dot(phi) * theta.cos()).powi(2)
        - mgl * theta.cos(),
    symmetry(cyclic(phi), cyclic(psi)),
)]
struct HandTop {
    i1: f64,
    i3: f64,
    mgl: f64,
}

/// The same top with its frame written three other ways: the precession as an explicit matrix
/// (so the frame is proved a rotation and ω = vee(RᵀṘ) is differentiated), the nutation by
/// Rodrigues' formula, the spin as a double transpose; the mass centre through components,
/// a cross product and a dot product.
#[derive(Mechanics)]
#[mechanics(
    coordinates(phi, theta, psi),
    define(precession = [[phi.cos(), -phi.sin(), 0], [phi.sin(), phi.cos(), 0], [0, 0, 1]]),
    frame(b = precession * axis_angle([1, 0, 0], theta) * rot_z(psi).transpose().transpose()),
    define(axis = b * [0, 0, 1], e3 = [0, 0, 1]),
    point(g_centre = l * [axis[0], axis[1], axis.dot(e3)] + 0 * axis.cross(e3)),
    body(name = top, mass = m, centre = g_centre, frame = b, inertia = diag(a, a, c)),
    gravity = [0, 0, -g],
)]
struct WrittenTop {
    m: f64,
    l: f64,
    a: f64,
    c: f64,
    g: f64,
}

fn tight() -> Options {
    Options::default().rtol(1e-12).atol(1e-13)
}

#[test]
fn heavy_top_as_a_body_is_the_hand_derived_top() {
    let body = BodyTop { m: 0.8, l: 0.35, a: 0.021, c: 0.034, g: 9.81 };
    let hand = HandTop { i1: body.a + body.m * body.l * body.l, i3: body.c, mgl: body.m * body.g * body.l };
    let mut rng = common::Rng::new(211);
    // The same Lagrangian: energies, momenta and accelerations at random states.
    for _ in 0..20 {
        let q: Vector3<f64> = rng.vector(0.2, 2.9);
        let v: Vector3<f64> = rng.vector(-3.0, 3.0);
        let x = body.state(q.into(), v.into());
        assert!((body.energy(0.0, &x) - hand.energy(0.0, &x)).abs() < 1e-13 * (1.0 + hand.energy(0.0, &x).abs()));
        assert!((body.phi_momentum(0.0, &x) - hand.phi_momentum(0.0, &x)).abs() < 1e-13);
        assert!((body.psi_momentum(0.0, &x) - hand.psi_momentum(0.0, &x)).abs() < 1e-13);
        let (ab, ah) = (body.accelerations(0.0, &x).unwrap(), hand.accelerations(0.0, &x).unwrap());
        assert!((ab - ah).norm() < 1e-11 * (1.0 + ah.norm()), "{ab} vs {ah}");
    }
    // The same accelerations with ω differentiated from a proved rotation.
    let written = WrittenTop { m: body.m, l: body.l, a: body.a, c: body.c, g: body.g };
    for _ in 0..10 {
        let x = body.state(rng.vector::<3>(0.2, 2.9).into(), rng.vector::<3>(-3.0, 3.0).into());
        let (ab, aw) = (body.accelerations(0.0, &x).unwrap(), written.accelerations(0.0, &x).unwrap());
        assert!((ab - aw).norm() < 1e-11 * (1.0 + ab.norm()), "{ab} vs {aw}");
    }
    // The same motion: a nutating, precessing top over 5 s.
    let x0 = body.state([0.0, 0.7, 0.0], [0.4, 0.0, 40.0]);
    let opts = tight().output(Output::Times((1..=50).map(|i| i as f64 * 0.1).collect()));
    let (sb, sh) =
        (body.run(x0).span(0.0..5.0).options(&opts).go().unwrap(), hand.run(x0).span(0.0..5.0).options(&opts).go().unwrap());
    for (a, b) in sb.states.iter().zip(&sh.states) {
        assert!((a - b).norm() < 1e-10, "body model {a} vs hand-derived {b}");
    }
}

/// A free asymmetric rigid body in z-x-z Euler angles, with its frame and inertia declared.
#[derive(Mechanics)]
#[mechanics(
    coordinates(phi, theta, psi),
    frame(r = rot_z(phi) * rot_x(theta) * rot_z(psi)),
    body(name = brick, mass = m, centre = [0, 0, 0], frame = r, inertia = diag(i1, i2, i3)),
)]
struct FreeBody {
    m: f64,
    i1: f64,
    i2: f64,
    i3: f64,
}

/// The z-x-z attitude and body angular velocity of a state, written out independently of routh
/// (Goldstein's formulas): R = Rz(φ) Rx(θ) Rz(ψ), ω = (φ̇ sθ sψ + θ̇ cψ, φ̇ sθ cψ − θ̇ sψ, φ̇ cθ + ψ̇).
fn attitude(x: &SVector<f64, 6>) -> (routh::nalgebra::UnitQuaternion<f64>, Vector3<f64>) {
    common::euler_zxz([x[0], x[1], x[2]], [x[3], x[4], x[5]])
}

#[test]
fn free_asymmetric_body_follows_the_jacobi_elliptic_solution() {
    let body = FreeBody { m: 1.0, i1: 1.0, i2: 2.0, i3: 3.0 };
    let inertia = Matrix3::from_diagonal(&Vector3::new(body.i1, body.i2, body.i3));
    // Start at θ = π/2 (body axis 3 horizontal): Euler rates (φ̇, θ̇, ψ̇) = (ω₂, ω₁, ω₃), with
    // ω₂ = 0. Rotating near the major axis, the figure axis stays near the horizontal spatial L,
    // far from the chart's singularity θ ∈ {0, π}.
    let (w1, w3) = (0.3, 1.0);
    let x0 = body.state([0.0, FRAC_PI_2, 0.0], [0.0, w1, w3]);
    let w0 = Vector3::new(w1, 0.0, w3);
    let energy = 0.5 * w0.dot(&(inertia * w0));
    assert!((body.energy(0.0, &x0) - energy).abs() < 1e-15);
    // Landau–Lifshitz §37 (I₁ < I₂ < I₃, L² > 2E I₂): ω = (A cn τ, B sn τ, C dn τ).
    let closed = common::FreeBodySolution::new([body.i1, body.i2, body.i3], w1, w3);
    let opts = tight().output(Output::Times((1..=200).map(|i| i as f64 * 0.5).collect()));
    let sol = body.run(x0).span(0.0..100.0).options(&opts).go().unwrap();
    let (r0, _) = attitude(&x0);
    let spatial0 = r0 * (inertia * w0);
    let (mut werr, mut lerr, mut eerr, mut theta_range) = (0.0f64, 0.0f64, 0.0f64, (f64::MAX, f64::MIN));
    for (t, x) in sol.iter() {
        let (r, w) = attitude(x);
        werr = werr.max((w - Vector3::from(closed.omega(t))).norm());
        lerr = lerr.max((r * (inertia * w) - spatial0).norm() / spatial0.norm());
        eerr = eerr.max((body.energy(t, x) - energy).abs() / energy);
        theta_range = (theta_range.0.min(x[1]), theta_range.1.max(x[1]));
    }
    assert!(theta_range.0 > 0.3 && theta_range.1 < std::f64::consts::PI - 0.3, "θ stays inside the chart: {theta_range:?}");
    assert!(werr < 1e-9, "body angular velocity against the elliptic solution: {werr:e}");
    assert!(lerr < 2e-11, "spatial angular momentum R I ω conserved: {lerr:e}");
    assert!(eerr < 1e-11, "energy conserved: {eerr:e}");
    println!("free body over 100 s: |ω − ω_elliptic| ≤ {werr:.1e}, |ΔL|/|L| ≤ {lerr:.1e}, |ΔE|/E ≤ {eerr:.1e}");
}

/// A thin disk (coin) rolling without slipping on the plane z = 0. Coordinates: the contact
/// point (x, y), heading ψ, lean θ (about the heading direction) and spin φ (about the axle,
/// relative to the leaned frame). The axle is the body y-axis; the no-slip conditions say the
/// material point at the contact has zero horizontal velocity, ṙ_c + ω × (p − c) = 0 (its vertical
/// velocity vanishes identically).
#[derive(Mechanics)]
#[mechanics(
    coordinates(x, y, psi, theta, phi),
    frame(lean = rot_z(psi) * rot_x(theta), disk_frame = lean * rot_y(phi)),
    point(contact = [x, y, 0], centre = contact + lean * [0, 0, r]),
    body(name = disk, mass = m, centre = centre, frame = disk_frame, inertia = diag(a, c, a)),
    gravity = [0, 0, -g],
    define(slip = dot(centre) + (disk_frame * omega(disk_frame)).cross(contact - centre)),
    constraint(slip_x = slip[0], slip_y = slip[1]),
    jacobian,
)]
struct Coin {
    m: f64,
    r: f64,
    a: f64,
    c: f64,
    g: f64,
}

/// The same coin with the rolling pattern written once as a define that takes arguments: the
/// velocity of the material point of a body (frame `f`, mass centre `o`) that is at `p`.
#[derive(Mechanics)]
#[mechanics(
    coordinates(x, y, psi, theta, phi),
    define(
        material_velocity(f, o, p) = dot(o) + (f * omega(f)).cross(p - o),
        wheel_centre(f, p, radius) = p + f * [0, 0, radius],
    ),
    frame(lean = rot_z(psi) * rot_x(theta), disk_frame = lean * rot_y(phi)),
    point(contact = [x, y, 0], centre = wheel_centre(lean, contact, r)),
    body(name = disk, mass = m, centre = centre, frame = disk_frame, inertia = diag(a, c, a)),
    gravity = [0, 0, -g],
    constraint(
        slip_x = material_velocity(disk_frame, centre, contact)[0],
        slip_y = material_velocity(disk_frame, centre, contact)[1],
    ),
)]
struct PatternCoin {
    m: f64,
    r: f64,
    a: f64,
    c: f64,
    g: f64,
}

#[test]
fn a_define_with_arguments_writes_the_rolling_pattern_once() {
    let coin = uniform_coin();
    let pattern = PatternCoin { m: coin.m, r: coin.r, a: coin.a, c: coin.c, g: coin.g };
    let mut rng = common::Rng::new(5);
    for _ in 0..10 {
        let x =
            coin_state(&coin, rng.uniform(-0.8, 0.8), [rng.uniform(-5.0, 5.0), rng.uniform(-1.0, 1.0), rng.uniform(-20.0, 20.0)]);
        let (a, b) = (coin.accelerations(0.0, &x).unwrap(), pattern.accelerations(0.0, &x).unwrap());
        assert!((a - b).norm() <= 1e-12 * (1.0 + a.norm()), "{a} vs {b}");
        assert!(pattern.velocity_residuals(0.0, &x).norm() < 1e-12);
    }
}

/// The same coin with `rolling(...)`: the item finds the contact point (the disk's lowest point),
/// proves that the chart holds its height (c_z² = r²(1 − n_z²) with c_z > 0) and writes the
/// no-slip rows.
#[derive(Mechanics)]
#[mechanics(
    coordinates(x, y, psi, theta, phi),
    frame(lean = rot_z(psi) * rot_x(theta), disk_frame = lean * rot_y(phi)),
    body(name = disk, mass = m, centre = [x, y, 0] + lean * [0, 0, r], frame = disk_frame, inertia = diag(a, c, a)),
    gravity = [0, 0, -g],
    rolling(name = ground, body = disk, disk = r, axis = [0, 1, 0]),
)]
struct RollingCoin {
    m: f64,
    r: f64,
    a: f64,
    c: f64,
    g: f64,
}

/// The coin with its orientation in the state and its centre free: `rolling(...)` adds the
/// height condition c_z = r √(1 − n_z²) as a holonomic row (the chart does not hold it).
#[derive(Mechanics)]
#[mechanics(
    coordinates(cx, cy, cz),
    orientation(q),
    body(name = disk, mass = m, centre = [cx, cy, cz], frame = q, inertia = diag(a, c, a)),
    gravity = [0, 0, -g],
    rolling(name = ground, body = disk, disk = r, axis = [0, 1, 0]),
)]
struct QuaternionCoin {
    m: f64,
    r: f64,
    a: f64,
    c: f64,
    g: f64,
}

#[test]
fn a_rolling_item_is_the_hand_written_coin_in_euler_angles_and_with_a_quaternion() {
    let coin = uniform_coin();
    let (m, r, a, c, g) = (coin.m, coin.r, coin.a, coin.c, coin.g);
    let item = RollingCoin { m, r, a, c, g };
    assert_eq!(RollingCoin::CONSTRAINTS, ["ground_x", "ground_y"], "the chart holds the height");
    assert_eq!(QuaternionCoin::CONSTRAINTS, ["ground_height", "ground_x", "ground_y"]);
    assert_eq!(QuaternionCoin::CONSTRAINT_KINDS[0], ConstraintKind::Holonomic);
    let mut rng = common::Rng::new(8);
    for _ in 0..10 {
        let x =
            coin_state(&coin, rng.uniform(-0.8, 0.8), [rng.uniform(-5.0, 5.0), rng.uniform(-1.0, 1.0), rng.uniform(-20.0, 20.0)]);
        let (hand, generated) = (coin.accelerations(0.0, &x).unwrap(), item.accelerations(0.0, &x).unwrap());
        assert!((hand - generated).norm() <= 1e-12 * (1.0 + hand.norm()), "{hand} vs {generated}");
        assert!(item.velocity_residuals(0.0, &x).norm() < 1e-12);
    }
    // The quaternion coin from the same physical state: R = R_z(ψ) R_x(θ) R_y(φ), the centre above
    // the contact, ω = Rᵀ(ψ̇ e_z + θ̇ R_z e_x + φ̇ R_z R_x e_y), ċ = ṙ_contact + Ω_lean × (c − contact).
    let quat = QuaternionCoin { m, r, a, c, g };
    let (theta, om) = (0.2f64, 3.0f64);
    let s = -((c - a + m * r * r) * om * om * (2.0 * theta).sin() + 2.0 * m * g * r * theta.sin())
        / (2.0 * (c + m * r * r) * om * theta.cos());
    let xe = coin_state(&coin, theta, [om, 0.0, s]);
    let to_quaternion = |x: &SVector<f64, 10>| {
        use routh::nalgebra::{UnitQuaternion, Vector3};
        let (psi, theta, phi) = (x[2], x[3], x[4]);
        let (rz, rx) = (
            UnitQuaternion::from_axis_angle(&Vector3::z_axis(), psi),
            UnitQuaternion::from_axis_angle(&Vector3::x_axis(), theta),
        );
        let lean = rz * rx;
        let frame = lean * UnitQuaternion::from_axis_angle(&Vector3::y_axis(), phi);
        let arm = lean * Vector3::new(0.0, 0.0, r);
        let centre = Vector3::new(x[0], x[1], 0.0) + arm;
        let lean_rate = x[7] * Vector3::z() + x[8] * (rz * Vector3::x());
        let spin = lean_rate + x[9] * (lean * Vector3::y());
        let velocity = Vector3::new(x[5], x[6], 0.0) + lean_rate.cross(&arm);
        let w = frame.inverse() * spin;
        (centre, frame, velocity, w)
    };
    let (centre, frame, velocity, w) = to_quaternion(&xe);
    let xq = quat.state(
        [centre.x, centre.y, centre.z, frame.w, frame.i, frame.j, frame.k],
        [velocity.x, velocity.y, velocity.z, w.x, w.y, w.z],
    );
    assert!(quat.position_residuals(0.0, &xq).amax() < 1e-15 && quat.velocity_residuals(0.0, &xq).amax() < 1e-14);
    assert!((quat.energy(0.0, &xq) - coin.energy(0.0, &xe)).abs() < 1e-12 * coin.energy(0.0, &xe).abs());
    let period = 2.0 * std::f64::consts::PI / om;
    let opts = tight().output(Output::Times((1..=40).map(|i| i as f64 * period / 40.0).collect()));
    let (sq, se) = (
        quat.run(xq).span(0.0..period).options(&opts).go().unwrap(),
        coin.run(xe).span(0.0..period).options(&opts).go().unwrap(),
    );
    let mut worst = 0.0f64;
    for ((_, x), (_, y)) in sq.iter().zip(se.iter()) {
        let (centre, frame, _, w) = to_quaternion(y);
        let q = routh::nalgebra::UnitQuaternion::from_quaternion(routh::nalgebra::Quaternion::new(x[3], x[4], x[5], x[6]));
        worst = worst.max((Vector3::new(x[0], x[1], x[2]) - centre).norm() / r).max(q.angle_to(&frame));
        worst = worst.max((Vector3::new(x[10], x[11], x[12]) - w).norm() / om);
    }
    let report = sq.constraints.unwrap();
    println!(
        "rolling coin with a quaternion against the Euler-angle coin over a turn: {worst:.1e}; constraints {:?}",
        report.worst
    );
    assert!(worst < 1e-8, "quaternion coin against the Euler-angle coin: {worst:e}");
    assert!(report.worst.0 < 1e-12 && report.worst.1 < 1e-10, "{:?}", report.worst);
}

#[test]
fn chaplygin_sleigh_follows_its_closed_form() {
    // With u the forward speed of the mass centre and ω the turning rate, m u̇ = m a ω² and
    // (I + m a²) ω̇ = −m a u ω: the energy ½ m u² + ½ K ω² (K = I + m a²) is kept, and
    // u = V tanh(λ t + τ₀), ω = ω₀ cosh τ₀ sech(λ t + τ₀) with V² = u₀² + K ω₀²/m, λ = a m V / K,
    // tanh τ₀ = u₀ / V: the sleigh straightens out and runs on at V.
    let sleigh = ChaplyginSleigh { m: 2.0, i: 0.3, a: 0.4 };
    assert_eq!(ChaplyginSleigh::CONSTRAINT_KINDS, [ConstraintKind::Nonholonomic]);
    let (u0, w0, th0) = (0.5, 2.0, 0.3);
    let x0 = sleigh.state([0.0, 0.0, th0], [u0 * th0.cos(), u0 * th0.sin(), w0]);
    // The blade at c − a e_x(θ) moves with ċ + ω e_z × (−a e_x): its lateral speed is 0 − aω + aω.
    assert!(sleigh.velocity_residuals(0.0, &x0).amax() > 0.1, "the start slides: the item's row is not trivial");
    let x0 = sleigh
        .state_with_known_velocities(0.0, [0.0, 0.0, th0], [u0 * th0.cos(), u0 * th0.sin(), w0], [false, false, true])
        .unwrap();
    let (m, k) = (sleigh.m, sleigh.i + sleigh.m * sleigh.a * sleigh.a);
    let forward = |x: &SVector<f64, 6>| x[3] * x[2].cos() + x[4] * x[2].sin();
    let (u0, w0) = (forward(&x0), x0[5]);
    let v = (u0 * u0 + k * w0 * w0 / m).sqrt();
    let lambda = sleigh.a * m * v / k;
    let tau0 = (u0 / v).atanh();
    let sol = sleigh.run(x0).span(0.0..10.0).options(tight().output(Output::Interval(0.25))).go().unwrap();
    let mut worst = 0.0f64;
    for (t, x) in sol.iter() {
        let tau = lambda * t + tau0;
        worst = worst.max((forward(x) - v * tau.tanh()).abs()).max((x[5] - w0 * tau0.cosh() / tau.cosh()).abs());
    }
    println!("Chaplygin sleigh over 10 s: |u − V tanh|, |ω − ω₀ cosh τ₀ sech| ≤ {worst:.1e} (V = {v:.4})");
    assert!(worst < 1e-9, "sleigh against its closed form: {worst:e}");
}

fn uniform_coin() -> Coin {
    let (m, r) = (0.05, 0.0125);
    Coin { m, r, a: m * r * r / 4.0, c: m * r * r / 2.0, g: 9.81 }
}

/// A rolling coin's state from (θ, ψ̇, θ̇, φ̇), the contact velocity completed from the constraints.
fn coin_state(coin: &Coin, theta: f64, rates: [f64; 3]) -> SVector<f64, 10> {
    let [psi_dot, theta_dot, phi_dot] = rates;
    coin.state_with_known_velocities(
        0.0,
        [0.0, 0.0, 0.0, theta, 0.0],
        [0.0, 0.0, psi_dot, theta_dot, phi_dot],
        [false, false, true, true, true],
    )
    .unwrap()
}

#[test]
fn coin_rolls_steadily_on_the_closed_form_circle() {
    let coin = uniform_coin();
    let (m, r, a, c, g) = (coin.m, coin.r, coin.a, coin.c, coin.g);
    // Steady rolling at constant lean θ, heading rate Ω and spin s (derived with the Lagrange–
    // d'Alembert equations, cross-checked in SymPy):
    //   (c − a + m r²) Ω² sin 2θ + 2 (c + m r²) Ω s cos θ + 2 m g r sin θ = 0.
    assert_eq!(Coin::CONSTRAINT_KINDS, [ConstraintKind::Nonholonomic, ConstraintKind::Nonholonomic]);
    for (theta, om) in [(0.2f64, 3.0f64), (-0.4, 5.0), (0.6, -8.0)] {
        let s = -((c - a + m * r * r) * om * om * (2.0 * theta).sin() + 2.0 * m * g * r * theta.sin())
            / (2.0 * (c + m * r * r) * om * theta.cos());
        let x0 = coin_state(&coin, theta, [om, 0.0, s]);
        let acc = coin.accelerations(0.0, &x0).unwrap();
        assert!(acc[2].abs() < 1e-9 && acc[3].abs() < 1e-9 * om * om && acc[4].abs() < 1e-9 * om * om, "steady: {acc}");
        // A spin off the relation tips the coin: the relation is the only steady one.
        let off = coin_state(&coin, theta, [om, 0.0, 1.1 * s]);
        assert!(coin.accelerations(0.0, &off).unwrap()[3].abs() > 1e-3 * om * om);
        // Over one revolution: constant lean and rates; the contact point on a circle of radius
        // v/Ω through the start, energy kept, constraints satisfied.
        let period = 2.0 * std::f64::consts::PI / om.abs();
        let sol = coin.run(x0).span(0.0..period).options(tight().output(Output::Interval(period / 40.0))).go().unwrap();
        let (v, e0) = ((x0[5] * x0[5] + x0[6] * x0[6]).sqrt(), coin.energy(0.0, &x0));
        let radius = v / om.abs();
        let centre_of_path = {
            let heading = SVector::<f64, 2>::new(x0[5], x0[6]) / v;
            SVector::<f64, 2>::new(-heading[1], heading[0]) * radius * om.signum()
        };
        for (t, x) in sol.iter() {
            assert!((x[3] - theta).abs() < 1e-9 && (x[7] - om).abs() < 1e-9 && (x[9] - s).abs() < 1e-8, "t = {t}: {x}");
            let on_circle = (SVector::<f64, 2>::new(x[0], x[1]) - centre_of_path).norm() - radius;
            assert!(on_circle.abs() < 1e-9 * radius.max(1.0), "t = {t}: off the circle by {on_circle:e}");
            assert!((coin.energy(t, x) - e0).abs() < 1e-10 * e0.abs());
            assert!(coin.velocity_residuals(t, x).norm() < 1e-10);
        }
    }
}

#[test]
fn upright_coin_is_stable_above_the_critical_spin_and_falls_below_it() {
    let coin = uniform_coin();
    let (m, r, a, c, g) = (coin.m, coin.r, coin.a, coin.c, coin.g);
    // Upright straight rolling at spin s is stable iff s² > m g r a / (c (c + m r²)) (the lean
    // and heading equations linearised about θ = 0); for a uniform disk, v² > g r / 3.
    let critical = (m * g * r * a / (c * (c + m * r * r))).sqrt();
    assert!((critical * r - (g * r / 3.0).sqrt()).abs() < 1e-12);
    let kick = 1e-3;
    let worst_lean = |spin: f64| {
        let x0 = coin_state(&coin, 0.0, [0.0, kick * spin, spin]);
        let sol = coin.run(x0).span(0.0..2.0).options(tight().output(Output::Interval(0.01))).go().unwrap();
        let e0 = coin.energy(0.0, &x0);
        for (t, x) in sol.iter() {
            assert!((coin.energy(t, x) - e0).abs() < 1e-10 * e0, "energy at t = {t}");
            assert!(coin.velocity_residuals(t, x).norm() < 1e-10);
        }
        sol.states.iter().map(|x| x[3].abs()).fold(0.0, f64::max)
    };
    let (above, below) = (worst_lean(1.1 * critical), worst_lean(0.9 * critical));
    println!(
        "coin: critical spin {critical:.4} rad/s; worst lean after a lean-rate kick: {above:.2e} at 1.1×, {below:.2e} at 0.9×"
    );
    assert!(above < 20.0 * kick / 1.1, "stable above the critical spin: lean reached {above}");
    assert!(below > 0.1 && below > 50.0 * above, "falls below the critical spin: lean reached only {below}");
}

#[test]
fn upright_coin_linearised_on_the_constraint_manifold_has_the_closed_form_lean_mode() {
    // About upright straight rolling at spin s, in the lean θ with the heading, lean and spin rates
    // independent (the contact point, heading and spin angle ignorable, the contact velocity
    // dependent): (a + m r²) θ̈ = m g r θ − (c + m r²) s Ω and a Ω̇ = c s θ̇, so the lean mode has
    // λ² = (m g r − c (c + m r²) s² / a) / (a + m r²) and the other two eigenvalues vanish (the
    // spin, and Ω − (c s / a) θ); the mass matrix of the rolling coin is diag(a, a + m r², c + m r²).
    use routh::runtime::linearize::Selection;
    let coin = uniform_coin();
    let (m, r, a, c, g) = (coin.m, coin.r, coin.a, coin.c, coin.g);
    let selection =
        Selection::new().coordinates(["theta"]).velocities(["psi", "theta", "phi"]).ignorable(["x", "y", "psi", "phi"]);
    let critical = (m * g * r * a / (c * (c + m * r * r))).sqrt();
    for spin in [0.5 * critical, 0.9 * critical, 1.1 * critical, 3.0 * critical] {
        let lin = coin.linearize_constrained(0.0, &coin_state(&coin, 0.0, [0.0, 0.0, spin]), &selection).unwrap();
        assert_eq!(lin.states, ["theta", "dot(psi)", "dot(theta)", "dot(phi)"]);
        let lambda2 = (m * g * r - c * (c + m * r * r) * spin * spin / a) / (a + m * r * r);
        let mut ev: Vec<_> = lin.a.complex_eigenvalues().iter().copied().collect();
        ev.sort_by(|x, y| y.norm().total_cmp(&x.norm()));
        for l in &ev[..2] {
            let sq = l * l;
            assert!(
                (sq.re - lambda2).abs() < 1e-9 * lambda2.abs() && sq.im.abs() < 1e-9 * lambda2.abs(),
                "s = {spin}: λ = {l}, λ² = {lambda2}"
            );
        }
        assert!(ev[2].norm() < 1e-9 * lambda2.abs().sqrt() && ev[3].norm() < 1e-9 * lambda2.abs().sqrt(), "{ev:?}");
        let mech = lin.mechanical.unwrap();
        let diag = [a, a + m * r * r, c + m * r * r];
        for i in 0..3 {
            for j in 0..3 {
                let want = if i == j { diag[i] } else { 0.0 };
                assert!((mech.mass[(i, j)] - want).abs() < 1e-14 * diag[2], "M = {}", mech.mass);
            }
        }
    }
}

/// A spacecraft (z-x-z Euler angles) with a reaction wheel on its body z-axis, driven by a motor
/// torque τ(t) = τ₀ sin(ω_m t) between the two (the generalized force on the wheel's relative
/// angle α: the reaction on the spacecraft does no further virtual work).
#[derive(Mechanics)]
#[mechanics(
    coordinates(phi, theta, psi, alpha),
    frame(hull = rot_z(phi) * rot_x(theta) * rot_z(psi), wheel = hull * rot_z(alpha)),
    body(name = craft, mass = m, centre = [0, 0, 0], frame = hull, inertia = diag(i1, i2, i3)),
    body(name = rotor, mass = mw, centre = [0, 0, 0], frame = wheel, inertia = diag(j, j, k)),
    force(alpha = tau * (wm * t).sin()),
    symmetry(cyclic(alpha)),
)]
struct Spacecraft {
    m: f64,
    mw: f64,
    i1: f64,
    i2: f64,
    i3: f64,
    j: f64,
    k: f64,
    tau: f64,
    wm: f64,
}

#[test]
fn reaction_wheel_exchanges_momentum_and_the_total_is_conserved() {
    let sc = Spacecraft { m: 50.0, mw: 2.0, i1: 4.0, i2: 5.0, i3: 6.0, j: 0.02, k: 0.04, tau: 0.3, wm: 1.3 };
    let x0 = sc.state([0.3, 1.2, -0.4, 0.0], [0.05, -0.02, 0.1, 0.0]);
    let spatial_momentum = |x: &SVector<f64, 8>| {
        let hull = SVector::<f64, 6>::new(x[0], x[1], x[2], x[4], x[5], x[6]);
        let (r, w) = attitude(&hull);
        let craft = Matrix3::from_diagonal(&Vector3::new(sc.i1, sc.i2, sc.i3)) * w;
        // The wheel turns at ω + α̇ e₃ in its own axes, which share the hull's third axis.
        let rotor = Matrix3::from_diagonal(&Vector3::new(sc.j, sc.j, sc.k)) * (w + Vector3::z() * x[7]);
        r * (craft + rotor)
    };
    let l0 = spatial_momentum(&x0);
    let opts = tight().output(Output::Interval(0.1));
    let sol = sc.run(x0).span(0.0..30.0).options(&opts).go().unwrap();
    let mut worst = 0.0f64;
    for (t, x) in sol.iter() {
        worst = worst.max((spatial_momentum(x) - l0).norm() / l0.norm());
        // The wheel's momentum p_α = k (ω₃ + α̇) changes at the motor torque: dp_α/dt = τ(t).
        assert!((sc.alpha_momentum_rate(t, x) - sc.tau * (sc.wm * t).sin()).abs() < 1e-13);
    }
    let (_, end) = sol.last().unwrap();
    assert!(end[7].abs() > 1.0, "the wheel spun up: α̇ = {}", end[7]);
    assert!(worst < 1e-12, "total angular momentum conserved: {worst:e}");
    println!("reaction wheel, 30 s: |ΔL|/|L| ≤ {worst:.1e}, final wheel rate {:.2} rad/s", end[7]);
}

/// The coin sliding without friction (its chart keeps it on the plane), then gripping at `t1`:
/// `project` onto the target mode's `rolling` contact.
#[derive(Mechanics)]
#[mechanics(
    coordinates(x, y, psi, theta, phi),
    frame(lean = rot_z(psi) * rot_x(theta), disk_frame = lean * rot_y(phi)),
    body(name = disk, mass = m, centre = [x, y, 0] + lean * [0, 0, r], frame = disk_frame, inertia = diag(a, c, a)),
    gravity = [0, 0, -g],
    mode(slide),
    mode(grip, rolling(name = ground, body = disk, disk = r, axis = [0, 1, 0])),
    transition(slide -> grip, name = bite, guard = t1 - t, law = project),
)]
struct GrippingCoin {
    m: f64,
    r: f64,
    a: f64,
    c: f64,
    g: f64,
    t1: f64,
}

#[test]
fn a_project_law_onto_a_rolling_contact_loses_carnots_energy() {
    let coin = uniform_coin();
    let grip = GrippingCoin { m: coin.m, r: coin.r, a: coin.a, c: coin.c, g: coin.g, t1: 0.05 };
    // Upright, sliding forward faster than it spins: the contact slips.
    let x0 = grip.slide_state([0.0, 0.0, 0.0, 0.1, 0.0], [0.3, 0.0, 0.5, 0.0, 5.0]);
    let opts = HybridOptions::default().ode(tight());
    let sol = grip.run(x0).span(0.0..0.3).options(&opts).go().unwrap();
    assert_eq!(sol.mode_sequence(), vec![GrippingCoin::SLIDE, GrippingCoin::GRIP]);
    let bite = &sol.impacts[0];
    assert!((bite.t - grip.t1).abs() < 1e-12);
    // After the bite the contact rolls; before it, it slipped.
    assert!(grip.grip().velocity_residuals(bite.t, &bite.pre).amax() > 1e-3);
    assert!(grip.grip().velocity_residuals(bite.t, &bite.post).amax() < 1e-13);
    // A perfectly plastic projection loses ½ Δq̇ᵀ M Δq̇ (Carnot, e = 0), the rest is kept.
    let dv = bite.post.fixed_rows::<5>(5) - bite.pre.fixed_rows::<5>(5);
    let lost = 0.5 * dv.dot(&(grip.grip().mass_matrix(bite.t, &bite.pre) * dv));
    assert!(bite.post.fixed_rows::<5>(0) == bite.pre.fixed_rows::<5>(0), "positions are kept");
    assert!((bite.energy_jump() + lost).abs() < 1e-12 * lost, "Carnot: {} vs {}", bite.energy_jump(), -lost);
    // Then it rolls, keeping its energy and its constraints.
    let (t_end, _, end) = sol.last().unwrap();
    assert!((grip.grip().energy(t_end, end) - bite.energy_after).abs() < 1e-10 * bite.energy_after.abs());
    assert!(grip.grip().velocity_residuals(t_end, end).amax() < 1e-10);
    println!("coin gripping at t = {}: Carnot loss {lost:.3e} J, energy jump {:.3e}", bite.t, bite.energy_jump());
}
