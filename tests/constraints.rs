//! Constrained systems: holonomic, nonholonomic and affine constraints with multipliers,
//! against closed forms and against models whose coordinates solve the constraints.

mod common;

use common::{Rng, jacobian_fd, rel_err};
use routh::prelude::*;
use routh::runtime::ConstraintKind;

/// Pendulum in Cartesian coordinates: a point mass on a rod of length l (holonomic).
#[derive(Mechanics)]
#[mechanics(
    coordinates(x, y),
    lagrangian = m / 2 * (dot(x).powi(2) + dot(y).powi(2)) - m * g * y,
    holonomic(rod = x.powi(2) + y.powi(2) - l.powi(2)),
    jacobian,
)]
struct CartesianPendulum {
    m: f64,
    g: f64,
    l: f64,
}

/// The same pendulum in the angle that solves the constraint.
#[derive(Mechanics)]
#[mechanics(
    coordinates(th),
    lagrangian = m / 2 * (l * dot(th)).powi(2) + m * g * l * th.cos(),
)]
struct AnglePendulum {
    m: f64,
    g: f64,
    l: f64,
}

/// Vertical disk rolling without slipping on the plane: contact point (x, y), heading th,
/// rolling angle phi; two nonholonomic rolling constraints.
#[derive(Mechanics)]
#[mechanics(
    coordinates(x, y, th, phi),
    lagrangian = m / 2 * (dot(x).powi(2) + dot(y).powi(2)) + i / 2 * dot(phi).powi(2) + j / 2 * dot(th).powi(2),
    constraint(roll_x = dx - r * th.cos() * dphi, roll_y = dy - r * th.sin() * dphi),
    jacobian,
)]
struct RollingDisk {
    m: f64,
    i: f64,
    j: f64,
    r: f64,
}

/// The rolling disk against a wall x ≤ 1 with restitution e: the impact law keeps the rolling
/// constraints (rows with coefficient 0).
#[derive(Mechanics)]
#[mechanics(
    coordinates(x, y, th, phi),
    lagrangian = m / 2 * (dot(x).powi(2) + dot(y).powi(2)) + i / 2 * dot(phi).powi(2) + j / 2 * dot(th).powi(2),
    constraint(roll_x = dx - r * th.cos() * dphi, roll_y = dy - r * th.sin() * dphi),
    impact(name = wall, guard = 1 - x, law = restitution(e)),
)]
struct DiskAndWall {
    m: f64,
    i: f64,
    j: f64,
    r: f64,
    e: f64,
}

/// The same line disk with its constraint as the one-form `dx - r * dphi`.
#[derive(Mechanics)]
#[mechanics(
    coordinates(x, phi),
    lagrangian = m / 2 * dot(x).powi(2) + i / 2 * dot(phi).powi(2),
    constraint(roll = dx - r * dphi),
)]
struct LineDiskOneForm {
    m: f64,
    i: f64,
    r: f64,
}

/// Two velocity constraints on a free particle that become dependent on the line x = 1 only.
#[derive(Mechanics)]
#[mechanics(
    coordinates(x, y, z),
    lagrangian = m / 2 * (dot(x).powi(2) + dot(y).powi(2) + dot(z).powi(2)),
    constraint(a = dx - dy, b = dot(x) - x * dot(y)),
)]
struct Kinked {
    m: f64,
}

/// A disk rolling on a line, its constraint written as a velocity expression: x − rφ = const, so
/// the constraint is secretly holonomic.
#[derive(Mechanics)]
#[mechanics(
    coordinates(x, phi),
    lagrangian = m / 2 * dot(x).powi(2) + i / 2 * dot(phi).powi(2) - k / 2 * x.powi(2),
    constraint(roll = dot(x) - r * dot(phi)),
)]
struct LineDisk {
    m: f64,
    i: f64,
    k: f64,
    r: f64,
}

/// A bead on a rod spun at the prescribed rate w: the affine constraint dth − w dt.
#[derive(Mechanics)]
#[mechanics(
    coordinates(r, th),
    lagrangian = m / 2 * (dot(r).powi(2) + (r * dot(th)).powi(2)),
    constraint(spin = dth - w * dt),
    jacobian,
)]
struct BeadOnSpinningRod {
    m: f64,
    w: f64,
}

fn tight() -> Options {
    Options::default().rtol(1e-12).atol(1e-13)
}

#[test]
fn cartesian_pendulum_matches_the_angle_model_and_its_tension() {
    let (m, g, l) = (1.3, 9.81, 0.7);
    let cart = CartesianPendulum { m, g, l };
    let ang = AnglePendulum { m, g, l };
    let (th0, w0): (f64, f64) = (1.1, 0.4);
    let xc = cart.state([l * th0.sin(), -l * th0.cos()], [l * w0 * th0.cos(), l * w0 * th0.sin()]);
    let opts = tight().output(Output::Interval(0.5));
    let sc = cart.run(xc).span(0.0..20.0).options(&opts).go().unwrap();
    let sa = ang.run(ang.state([th0], [w0])).span(0.0..20.0).options(&opts).go().unwrap();
    assert_eq!(sc.len(), sa.len());
    let mut worst = 0.0f64;
    for (zc, za) in sc.states.iter().zip(&sa.states) {
        let (th, w) = (za[0], za[1]);
        let expected = [l * th.sin(), -l * th.cos(), l * w * th.cos(), l * w * th.sin()];
        for k in 0..4 {
            worst = worst.max((zc[k] - expected[k]).abs());
        }
    }
    assert!(worst < 1e-9, "Cartesian vs angle model over 20 s: {worst:e}");
    // Without projection the constraint drifts only by the integration error.
    let drift = sc.states.iter().map(|x| cart.position_residuals(0.0, x)[0].abs()).fold(0.0, f64::max);
    let vdrift = sc.states.iter().map(|x| cart.velocity_residuals(0.0, x)[0].abs()).fold(0.0, f64::max);
    eprintln!(
        "Cartesian pendulum, 20 s, rtol 1e-12: worst state error {worst:.2e}, |x²+y²−l²| ≤ {drift:.2e}, velocity residual ≤ {vdrift:.2e}"
    );
    assert!(drift < 1e-9 && vdrift < 1e-8);
    // The multiplier is the rod tension T = m (g cos θ + l θ̇²): Aᵀλ = 2λ (x, y) = −T (x, y)/l.
    for za in sa.states.iter().step_by(7) {
        let (th, w) = (za[0], za[1]);
        let x = cart.state([l * th.sin(), -l * th.cos()], [l * w * th.cos(), l * w * th.sin()]);
        let lam = cart.constraint_forces(0.0, &x).unwrap()[0];
        let tension = m * (g * th.cos() + l * w * w);
        assert!((lam + tension / (2.0 * l)).abs() < 1e-12 * tension.abs().max(1.0), "λ = {lam}, T = {tension}");
    }
    assert_eq!(CartesianPendulum::CONSTRAINT_KINDS, [ConstraintKind::Holonomic]);
}

/// A generated constrained run that hits the step limit keeps its work (`keep_partial`): the
/// samples are the full run's, still on the constraint, with the constraint report.
#[test]
fn a_failed_constrained_run_keeps_its_samples_on_the_constraint() {
    let cart = CartesianPendulum { m: 1.3, g: 9.81, l: 0.7 };
    let x0 = cart.state([0.7 * 1.1f64.sin(), -0.7 * 1.1f64.cos()], [0.0, 0.0]);
    let full = cart.run(x0).span(0.0..20.0).options(tight()).go().unwrap();
    let part = cart.run(x0).span(0.0..20.0).options(tight().max_steps(60).keep_partial(true)).go().unwrap();
    assert!(matches!(part.stop, StopReason::Failed(SimError::StepLimit { steps: 60, .. })), "{:?}", part.stop);
    let n = part.len();
    assert!(n > 20 && n < full.len());
    assert_eq!(part.states[..], full.states[..n], "the kept samples are the full run's");
    let report = part.constraints.unwrap();
    assert!(report.worst.0 < 1e-14 && report.worst.1 < 1e-13, "{report:?}");
    assert!(cart.run(x0).span(0.0..20.0).options(tight().max_steps(60)).go().is_err());
}

#[test]
fn rolling_disk_follows_the_closed_form_circle_and_keeps_its_energy() {
    let d = RollingDisk { m: 2.0, i: 0.3, j: 0.15, r: 0.4 };
    let (th0, om, w): (f64, f64, f64) = (0.3, 0.8, 2.5); // heading rate Ω, rolling rate ω
    let v = d.r * w;
    let x0 = d.state([0.1, -0.2, th0, 0.0], [v * th0.cos(), v * th0.sin(), om, w]);
    let sol = d.run(x0).span(0.0..10.0).options(tight().output(Output::Interval(0.25))).go().unwrap();
    let e0 = d.energy(0.0, &x0);
    let rad = v / om;
    for (t, x) in sol.times.iter().zip(&sol.states) {
        let th = th0 + om * t;
        let cx = 0.1 + rad * (th.sin() - th0.sin());
        let cy = -0.2 - rad * (th.cos() - th0.cos());
        assert!((x[0] - cx).abs() < 1e-9 && (x[1] - cy).abs() < 1e-9, "t = {t}: ({}, {}) vs ({cx}, {cy})", x[0], x[1]);
        assert!((x[2] - th).abs() < 1e-9 && (x[7] - w).abs() < 1e-9);
        assert!((d.energy(*t, x) - e0).abs() < 1e-10 * e0);
        assert!(d.velocity_residuals(*t, x).norm() < 1e-9);
    }
    // Frobenius: each rolling constraint and the pair are nonholonomic.
    assert_eq!(RollingDisk::CONSTRAINT_KINDS, [ConstraintKind::Nonholonomic, ConstraintKind::Nonholonomic]);
    assert_eq!(RollingDisk::CONSTRAINTS_INTEGRABLE, Some(false));
    assert_eq!(RollingDisk::CONSTRAINTS, ["roll_x", "roll_y"]);
}

#[test]
fn rolling_on_a_line_is_reported_integrable_and_dependent_rows_are_a_typed_error() {
    assert_eq!(LineDisk::CONSTRAINT_KINDS, [ConstraintKind::Integrable]);
    assert_eq!(LineDiskOneForm::CONSTRAINT_KINDS, [ConstraintKind::Integrable]);
    let _ = LineDiskOneForm { m: 1.0, i: 1.0, r: 1.0 };
    assert_eq!(LineDisk::CONSTRAINTS_INTEGRABLE, Some(true));
    // Rows that are dependent at some states only (identically dependent ones are a compile
    // error, see tests/ui): there, a typed error naming the rows, never a NaN.
    let k = Kinked { m: 1.0 };
    assert!(k.accelerations(0.0, &k.state([0.5, 0.0, 0.0], [1.0, 1.0, 0.0])).is_ok());
    match k.accelerations(0.0, &k.state([1.0, 0.0, 0.0], [1.0, 1.0, 0.0])) {
        Err(FieldError::SingularConstraints { rows, .. }) => assert_eq!(rows, ["a", "b"]),
        other => panic!("{other:?}"),
    }
}

#[test]
fn constrained_line_disk_is_a_harmonic_oscillator_with_added_inertia() {
    // x = r φ: (m + i/r²) ẍ = −k x, so ω² = k / (m + i/r²).
    let d = LineDisk { m: 1.0, i: 0.5, k: 3.0, r: 0.5 };
    let omega = (d.k / (d.m + d.i / (d.r * d.r))).sqrt();
    let x0 = d.state([0.3, 0.6], [0.0, 0.0]);
    let sol = d.run(x0).span(0.0..10.0).options(tight()).go().unwrap();
    let (t, x) = sol.last().unwrap();
    assert!((x[0] - 0.3 * (omega * t).cos()).abs() < 1e-9);
    assert!((x[0] - d.r * x[1]).abs() < 1e-9, "x − rφ stays 0");
}

#[test]
fn bead_on_a_spinning_rod_gains_energy_as_the_affine_constraint_does_work() {
    // θ = ωt is enforced; r̈ = r ω², so from rest r = r₀ cosh ωt. The energy E = T is not conserved:
    // dE/dt = −λ·b with b = −ω (the constraint's dt part).
    let bead = BeadOnSpinningRod { m: 0.7, w: 1.3 };
    let x0 = bead.state([0.2, 0.0], [0.0, bead.w]);
    let sol = bead.run(x0).span(0.0..2.0).options(tight().output(Output::Interval(0.1))).go().unwrap();
    for (t, x) in sol.times.iter().zip(&sol.states) {
        let r = 0.2 * (bead.w * t).cosh();
        assert!((x[0] - r).abs() < 1e-9 * r.max(1.0), "t = {t}: r = {} vs {r}", x[0]);
        assert!((x[1] - bead.w * t).abs() < 1e-9);
        // Energy balance along the motion: dE/dt = ∇E·F = −λ·b = λ ω.
        let f = VectorField::field(&bead, *t, x).unwrap();
        let h = 1e-6;
        let de = (bead.energy(*t, &(x + h * f)) - bead.energy(*t, &(x - h * f))) / (2.0 * h);
        let lam = bead.constraint_forces(*t, x).unwrap()[0];
        assert!((de - lam * bead.w).abs() < 1e-6 * (1.0 + de.abs()), "dE/dt = {de}, λω = {}", lam * bead.w);
        // The generated energy balance: dE/dt = power of the forces (0) − ∂L/∂t (0) − λ·b.
        let balance = bead.power(*t, x) + bead.constraint_power(*t, x).unwrap();
        assert!((de - balance).abs() < 1e-6 * (1.0 + de.abs()), "dE/dt = {de}, balance {balance}");
    }
    assert_eq!(BeadOnSpinningRod::CONSTRAINT_KINDS, [ConstraintKind::Integrable]);
}

#[test]
fn constrained_jacobians_match_finite_differences() {
    let cart = CartesianPendulum { m: 1.3, g: 9.81, l: 0.7 };
    let disk = RollingDisk { m: 2.0, i: 0.3, j: 0.15, r: 0.4 };
    let bead = BeadOnSpinningRod { m: 0.7, w: 1.3 };
    let mut rng = Rng::new(5);
    for _ in 0..5 {
        let x = rng.vector::<4>(-1.0, 1.0);
        let err = rel_err(&cart.jacobian(0.0, &x).unwrap(), &jacobian_fd(&cart, 0.0, &x, 1e-6).unwrap());
        assert!(err < 1e-6, "pendulum: {err}");
        let x = rng.vector::<8>(-1.0, 1.0);
        let err = rel_err(&disk.jacobian(0.0, &x).unwrap(), &jacobian_fd(&disk, 0.0, &x, 1e-6).unwrap());
        assert!(err < 1e-6, "disk: {err}");
        let x = rng.vector::<4>(0.2, 1.0);
        let t = rng.uniform(0.0, 2.0);
        let err = rel_err(&bead.jacobian(t, &x).unwrap(), &jacobian_fd(&bead, t, &x, 1e-6).unwrap());
        assert!(err < 1e-6, "bead: {err}");
    }
}

#[test]
fn projection_holds_the_constraints_and_is_the_kinetic_metric_projection() {
    let (m, g, l) = (1.3, 9.81, 0.7);
    let cart = CartesianPendulum { m, g, l };
    // Off the manifold: the projection is radial for positions (M = m I, ∇f ∥ q) and removes the
    // radial velocity — the M-orthogonal projections, in closed form.
    let th: f64 = 0.8;
    let (u, w) = ([th.sin(), -th.cos()], [th.cos(), th.sin()]); // radial and tangential unit vectors
    let x = cart.state([1.1 * l * u[0], 1.1 * l * u[1]], [0.3 * u[0] + 2.0 * w[0], 0.3 * u[1] + 2.0 * w[1]]);
    let p = cart.project_state(0.0, &x).unwrap();
    for k in 0..2 {
        assert!((p[k] - l * u[k]).abs() < 1e-14, "position {k}: {} vs {}", p[k], l * u[k]);
        assert!((p[2 + k] - 2.0 * w[k]).abs() < 1e-14, "velocity {k}");
    }
    // Over 20 s at a loose tolerance: the drift of the unprojected run against the projected one.
    let loose = Options::default().rtol(1e-6).atol(1e-8);
    let x0 = cart.state([l * 1.1f64.sin(), -l * 1.1f64.cos()], [0.0, 0.0]);
    let with = cart.run(x0).span(0.0..20.0).options(&loose).go().unwrap().constraints.unwrap();
    let without = cart.run(x0).span(0.0..20.0).options(loose.clone().projection(false)).go().unwrap().constraints.unwrap();
    eprintln!(
        "pendulum, rtol 1e-6, 20 s: residuals (position, velocity) with projection {:.1e}/{:.1e} (one-step drift {:.1e}/{:.1e}, {} projections), without {:.1e}/{:.1e}",
        with.worst.0, with.worst.1, with.drift.0, with.drift.1, with.projections, without.worst.0, without.worst.1
    );
    assert!(with.worst.0 < 1e-13 && with.worst.1 < 1e-13, "{with:?}");
    assert!(without.worst.0 > 100.0 * with.worst.0.max(1e-15), "{without:?}");
    assert_eq!(without.projections, 0);
    // A start off the constraints is reported and projected.
    let off = cart.state([1.05 * l, 0.0], [0.0, 0.1]);
    let sol = cart.run(off).span(0.0..1.0).go().unwrap();
    let report = sol.constraints.unwrap();
    assert!((report.initial.0 - (1.05f64.powi(2) - 1.0) * l * l).abs() < 1e-14);
    assert!(cart.position_residuals(0.0, &sol.states[0])[0].abs() < 1e-14);
}

#[test]
fn an_impact_in_a_constrained_mode_keeps_the_constraints() {
    // Rolling straight at the wall (heading θ, no turning): the wall impulse −λ dx and the rolling
    // constraints give ẋ⁺ = −e ẋ⁻, hence φ̇⁺ = −e φ̇⁻ and ẏ⁺ = −e ẏ⁻, and θ̇ is unchanged.
    for e in [0.6, 1.0] {
        let d = DiskAndWall { m: 2.0, i: 0.3, j: 0.15, r: 0.4, e };
        let (th, w): (f64, f64) = (0.4, 3.0);
        let v = d.r * w;
        let x0 = d.state([0.0, 0.0, th, 0.0], [v * th.cos(), v * th.sin(), 0.0, w]);
        let sol = d.run(x0).span(0.0..2.0).rtol(1e-12).atol(1e-13).go().unwrap();
        assert_eq!(sol.impacts.len(), 1);
        let imp = &sol.impacts[0];
        assert!((imp.t - 1.0 / (v * th.cos())).abs() < 1e-9);
        let expected = [-e * imp.pre[4], -e * imp.pre[5], imp.pre[6], -e * imp.pre[7]];
        for (k, want) in expected.iter().enumerate() {
            assert!((imp.post[4 + k] - want).abs() < 1e-12, "e = {e}, velocity {k}: {} vs {want}", imp.post[4 + k]);
        }
        assert!(d.velocity_residuals(imp.t, &imp.post).amax() < 1e-13, "the rolling constraints hold after the impact");
        // Energy: ΔT = (e² − 1)(m v² + i φ̇²)/2, conserved for e = 1.
        let loss = (e * e - 1.0) * (d.m * v * v + d.i * w * w) / 2.0;
        assert!((imp.energy_jump() - loss).abs() < 1e-10, "e = {e}: ΔE = {} vs {loss}", imp.energy_jump());
    }
}

#[test]
fn independent_velocities_complete_a_consistent_state() {
    // The disk's heading and rolling rates are independent; ẋ and ẏ follow from rolling.
    let d = RollingDisk { m: 2.0, i: 0.3, j: 0.15, r: 0.4 };
    let th: f64 = 0.9;
    let x = d.state_with_known_velocities(0.0, [0.3, 0.1, th, 0.0], [5.0, -7.0, 0.8, 2.5], [false, false, true, true]).unwrap();
    assert_eq!((x[6], x[7]), (0.8, 2.5), "the known velocities are kept");
    assert!((x[4] - d.r * th.cos() * 2.5).abs() < 1e-14 && (x[5] - d.r * th.sin() * 2.5).abs() < 1e-14);
    // Knowing ẋ too over-determines the velocities: ẋ = 5 contradicts rolling at φ̇ = 2.5.
    let err = d.state_with_known_velocities(0.0, [0.3, 0.1, th, 0.0], [5.0, -7.0, 0.8, 2.5], [true, false, true, true]);
    assert!(matches!(err, Err(FieldError::SingularConstraints { .. })), "{err:?}");
}

/// What the runtime is given of a generated model, written against its central trait alone.
fn kinetic_energy<S: routh::runtime::MechanicalSystem<N, D>, const N: usize, const D: usize>(
    sys: &S,
    x: &SVector<f64, D>,
) -> f64 {
    use routh::runtime::MassOperator;
    let v = SVector::<f64, N>::from_fn(|i, _| x[N + i]);
    0.5 * v.dot(&sys.mass(0.0, x).unwrap().apply(&v))
}

#[test]
fn a_generated_model_is_a_mechanical_system_with_its_mass_operator_and_energy() {
    use routh::runtime::MechanicalSystem;
    // The rolling disk has no potential: its energy is the kinetic energy ½ q̇ᵀ M q̇ that the mass
    // operator gives, and the operator solves with the generated mass matrix.
    let disk = RollingDisk { m: 1.5, i: 0.4, j: 0.2, r: 0.3 };
    let x = disk.state([0.1, -0.2, 0.7, 1.1], [0.3, -0.4, 1.7, 2.2]);
    let energy = MechanicalSystem::energy(&disk, 0.0, &x);
    assert!((kinetic_energy(&disk, &x) - energy).abs() < 1e-15 * energy, "{} vs {energy}", kinetic_energy(&disk, &x));
    let b = SVector::<f64, 4>::new(1.0, 2.0, -3.0, 0.5);
    let solved = disk.mass(0.0, &x).unwrap().solve(b).unwrap();
    assert!((disk.mass_matrix(0.0, &x) * solved - b).amax() < 1e-14);
    // The pendulum in Cartesian coordinates: E = ½ m |v|² + m g y.
    let (m, g, l) = (1.3, 9.81, 0.7);
    let cart = CartesianPendulum { m, g, l };
    let x = cart.state([0.3, -0.5], [1.2, 0.7]);
    let energy = MechanicalSystem::energy(&cart, 0.0, &x);
    assert!((kinetic_energy(&cart, &x) + m * g * x[1] - energy).abs() < 1e-14, "{energy}");
}

#[test]
fn projections_from_far_off_the_constraints_converge_or_fail_with_their_residual() {
    // From (30, −30) and (1e6, −1e6) Gauss–Newton on x² + y² = l² only halves the distance per
    // iteration until it is close: the start is projected to round-off, not returned after a few
    // iterations 2e-5 or 3e7 off.
    let (m, g, l) = (1.3, 9.81, 0.7);
    let cart = CartesianPendulum { m, g, l };
    for far in [30.0, 1e6] {
        let x0 = cart.state([far, -far], [0.0, 0.0]);
        let p = cart.project_state(0.0, &x0).unwrap();
        let r = (p[0] * p[0] + p[1] * p[1]).sqrt();
        assert!((r - l).abs() < 1e-14, "from {far}: r = {r}");
        // Radial, in the kinetic metric (M = m I): the direction of the start is kept.
        assert!((p[0] / p[1] + 1.0).abs() < 1e-12, "from {far}: {p}");
        let sol = cart.run(x0).span(0.0..0.5).go().unwrap();
        let report = sol.constraints.unwrap();
        assert!(report.worst.0 < 1e-12 && report.worst.1 < 1e-12, "from {far}: {report:?}");
        assert!((report.initial.0 - (2.0 * far * far - l * l)).abs() <= 1e-12 * far * far);
    }
}

#[test]
fn the_cartesian_pendulum_linearises_on_its_circle() {
    // At the bottom, in the horizontal position x (the arc to first order): m ẍ + m g/l x = 0; the
    // 4-dimensional Jacobian's constraint directions are gone. (With a contact Lagrangian:
    // `tests/contact/main.rs`.)
    use routh::runtime::linearize::Selection;
    let selection = Selection::new().coordinates(["x"]).velocities(["x"]);
    let (m, g, l) = (1.5, 9.81, 0.8);
    let p = CartesianPendulum { m, g, l };
    let lin = p.linearize_constrained(0.0, &p.state([0.0, -l], [0.0, 0.0]), &selection).unwrap();
    assert_eq!(lin.states, ["x", "dot(x)"]);
    let mech = lin.mechanical.unwrap();
    let close = |a: f64, b: f64| (a - b).abs() < 1e-12 * b.abs().max(1.0);
    assert!(close(mech.mass[(0, 0)], m) && close(mech.stiffness[(0, 0)], m * g / l) && mech.damping[(0, 0)].abs() < 1e-12);
}

/// At a state off the constraint manifold the same formulas linearise another model —
/// the pendulum of length 1 held at (0, −3) would give K/M = g/3, a pendulum of length 3. It is an
/// error with the residual (x² + y² − l² = 8); projected first, the state gives g/l.
#[test]
fn a_linearisation_off_the_constraint_manifold_is_refused() {
    use routh::runtime::linearize::{LinearizeError, Selection};
    let selection = Selection::new().coordinates(["x"]).velocities(["x"]);
    let p = CartesianPendulum { m: 1.0, g: 9.81, l: 1.0 };
    let off = p.state([0.0, -3.0], [0.0, 0.0]);
    let err = p.linearize_constrained(0.0, &off, &selection).unwrap_err();
    assert!(matches!(err, LinearizeError::OffManifold { residual, .. } if (residual - 8.0).abs() < 1e-12), "{err}");
    assert!(err.to_string().contains("project_state"), "{err}");
    // A velocity off the manifold too: moving along the rod at (0, −1).
    let along = p.state([0.0, -1.0], [0.0, 0.5]);
    assert!(matches!(p.linearize_constrained(0.0, &along, &selection), Err(LinearizeError::OffManifold { .. })));
    let on = p.project_state(0.0, &off).unwrap();
    let mech = p.linearize_constrained(0.0, &on, &selection).unwrap().mechanical.unwrap();
    let ratio = mech.stiffness[(0, 0)] / mech.mass[(0, 0)];
    assert!((ratio - p.g / p.l).abs() < 1e-9, "K/M = {ratio}, g/l = {}", p.g / p.l);
}

#[test]
fn the_vertical_rolling_disk_linearises_to_its_closed_form_about_steady_turning() {
    // About steady turning (heading rate Ω, rolling rate ν) the rolling rows eliminate ẋ, ẏ, and
    // the equations on the constraint distribution are J θ̈ = 0, (I + m r²) φ̈ = 0: in the minimal
    // state (θ, θ̇, φ̇) — x, y, φ ignorable (proved) — A has only the kinematic row θ' = θ̇, and the
    // mechanical form is M = diag(J, I + m r²), C = K = 0 (the disk's heading perturbations neither
    // grow nor decay: a nonholonomic system with a continuum of steady motions).
    use routh::runtime::linearize::Selection;
    let d = RollingDisk { m: 1.3, i: 0.4, j: 0.25, r: 0.6 };
    let (om, nu, th) = (0.7, 2.0, 0.9);
    let x0 = d.state([0.2, -0.1, th, 0.3], [d.r * th.cos() * nu, d.r * th.sin() * nu, om, nu]);
    let selection = Selection::new().coordinates(["th"]).velocities(["th", "phi"]).ignorable(["x", "y", "phi"]);
    let lin = d.linearize_constrained(0.0, &x0, &selection).unwrap();
    assert_eq!(lin.states, ["th", "dot(th)", "dot(phi)"]);
    let a = routh::nalgebra::DMatrix::from_row_slice(3, 3, &[0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]);
    assert!((&lin.a - &a).amax() < 1e-12, "A = {}", lin.a);
    let mech = lin.mechanical.unwrap();
    let m = routh::nalgebra::DMatrix::from_row_slice(2, 2, &[d.j, 0.0, 0.0, d.i + d.m * d.r * d.r]);
    assert!((&mech.mass - &m).amax() < 1e-12, "M = {}", mech.mass);
    assert!(mech.damping.amax() < 1e-12 && mech.stiffness.amax() < 1e-12, "C = {}, K = {}", mech.damping, mech.stiffness);
    // The heading is ignorable too (its rates do not see it): then the minimal state is the two
    // rates alone, with A = 0.
    let rates = Selection::new().velocities(["th", "phi"]).ignorable(["x", "y", "th", "phi"]);
    let lin = d.linearize_constrained(0.0, &x0, &rates).unwrap();
    assert_eq!(lin.states, ["dot(th)", "dot(phi)"]);
    assert!(lin.a.amax() < 1e-12, "A = {}", lin.a);
}
