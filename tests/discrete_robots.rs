//! A robot read from its description file on its variational integrator (`discrete(rule = ...)`
//! beside `urdf(...)`): the items a model written by hand gets — the midpoint rule's second order
//! against the robot's own continuous run, its step map's exact Jacobians against differences of
//! the solved step and symplectic where the torques are the only forces, its energy in a band that
//! does not widen.

use routh::nalgebra::{SMatrix, SVector};
use routh::prelude::*;
use routh::runtime::step::{StepMap, VariationalMap};

/// The six-joint arm of `tests/robots/arm6.urdf` (quarter turns between its joints, a forearm
/// whose inertial `rpy` turns its axes, a tool on a fixed joint), a torque on every joint.
#[derive(Mechanics)]
#[mechanics(urdf(path = "tests/robots/arm6.urdf", inputs = u), gravity = [0, 0, -g], discrete(rule = midpoint))]
struct Arm {
    g: f64,
}

const TORQUES: [f64; 6] = [0.5, -0.3, 0.2, 0.1, 0.0, 0.05];

#[test]
fn the_arm_from_its_file_steps_at_second_order_against_its_own_flow() {
    let arm = Arm { g: 9.81 };
    let view = arm.driven(TORQUES);
    let x = view.state([0.1, 0.4, -0.3, 0.2, 0.5, -0.1], [0.2, 0.0, -0.1, 0.0, 0.3, 0.0]);
    let exact = arm.run(x).span(0.0..1.0).rtol(1e-12).atol(1e-13).inputs(TORQUES).go().unwrap().end.1;
    let errors: Vec<f64> = [(0.01, 100), (0.005, 200), (0.0025, 400)]
        .iter()
        .map(|&(h, n)| {
            let run = view.run_discrete(x).step(h).steps(n).go().unwrap();
            (0..6).map(|i| (run.positions[n][i] - exact[i]).abs()).fold(0.0, f64::max)
        })
        .collect();
    for pair in errors.windows(2) {
        let ratio = pair[0] / pair[1];
        assert!((3.6..4.4).contains(&ratio), "order: {errors:?}");
    }
    assert!(errors[2] < 1e-4, "{errors:?}");
}

/// The step map's A_d and B_d of `$model` (its `N` joints each driven) at the state (`$q`, `$v`)
/// under the torques `$u` against central differences of `advance` (1e-7); and where the torques
/// held over the step are the only forces beside L's (`$conservative`), symplectic: A_dᵀ J A_d = J.
macro_rules! step_jacobians_are_its_steps {
    ($model:expr, $n:literal, $d:literal, $q:expr, $v:expr, $u:expr, $conservative:expr) => {{
        let model = $model;
        let map = VariationalMap::<_, $n>::new(&model);
        let torques: [f64; $n] = $u;
        let x = model.driven(torques).state($q, $v);
        let p = model.driven(torques).momenta(0.0, &x);
        let start = SVector::<f64, $d>::from_fn(|i, _| if i < $n { x[i] } else { p[i - $n] });
        let (u, h) = (SVector::from(torques), 0.01);
        let step = map.step(0.0, &start, &u, h).unwrap();
        let e = 1e-6;
        for j in 0..$d {
            let mut plus = start;
            plus[j] += e;
            let mut minus = start;
            minus[j] -= e;
            let column = (map.advance(0.0, &plus, &u, h).unwrap() - map.advance(0.0, &minus, &u, h).unwrap()) / (2.0 * e);
            assert!((column - step.a.column(j)).amax() < 1e-7 * (1.0 + step.a.column(j).amax()), "column {j}");
        }
        for j in 0..$n {
            let mut plus = u;
            plus[j] += e;
            let mut minus = u;
            minus[j] -= e;
            let column = (map.advance(0.0, &start, &plus, h).unwrap() - map.advance(0.0, &start, &minus, h).unwrap()) / (2.0 * e);
            assert!((column - step.b.column(j)).amax() < 1e-7 * (1.0 + step.b.column(j).amax()), "input {j}");
        }
        let mut j = SMatrix::<f64, $d, $d>::zeros();
        for i in 0..$n {
            (j[(i, $n + i)], j[($n + i, i)]) = (1.0, -1.0);
        }
        let defect = (step.a.transpose() * j * step.a - j).amax();
        if $conservative {
            assert!(defect < 1e-10, "symplectic defect {defect:e}");
        } else {
            assert!(defect > 1e-6, "a damped map keeps the form: {defect:e}");
        }
    }};
}

#[test]
fn the_arms_step_jacobians_are_its_steps_and_symplectic() {
    step_jacobians_are_its_steps!(
        Arm { g: 9.81 },
        6,
        12,
        [0.1, 0.4, -0.3, 0.2, 0.5, -0.1],
        [0.2, 0.0, -0.1, 0.0, 0.3, 0.0],
        TORQUES,
        true
    );
}

/// The seven-joint arm of `tests/robots/arm7.urdf` with its two fingers (nine joints, each driven)
/// on the midpoint rule: its maps are long enough that Newton's map and the step's blocks are one
/// computation in two phases (on coordinates, where the floating biped below has orientations).
#[derive(Mechanics)]
#[mechanics(urdf(path = "tests/robots/arm7.urdf", inputs = u), gravity = [0, 0, -g], discrete(rule = midpoint))]
struct Arm7 {
    g: f64,
}

#[test]
fn the_seven_joint_arms_two_phase_step_jacobians_are_its_steps() {
    use routh::runtime::DiscreteSystem;
    let arm = Arm7 { g: 9.81 };
    let (q, v) = ([0.1, -0.4, 0.2, -1.9, 0.1, 1.6, 0.7, 0.02, 0.03], [0.2, 0.0, -0.1, 0.3, 0.0, 0.1, -0.2, 0.0, 0.01]);
    let u = [0.5, -0.3, 0.2, 0.1, 0.0, 0.05, 0.02, 0.1, -0.1];
    // The blocks' J (their first phase within the whole) is the left map's own, to the bit.
    let view = arm.driven(u);
    let (q0, q1) = (SVector::<f64, 9>::from(q), SVector::<f64, 9>::from(q) + SVector::<f64, 9>::from(v) * 0.01);
    let blocks = view.map_derivatives(0.0, 0.01, &q0, &q1).unwrap().unwrap();
    assert_eq!(blocks.left_dnext, view.left_momentum(0.0, 0.01, &q0, &q1).unwrap().1);
    // Its first joint is damped (`<dynamics damping="0.1">`): the map contracts.
    step_jacobians_are_its_steps!(arm, 9, 18, q, v, u, false);
}

/// Unforced, swinging under gravity for 40 s: the energy at the nodes (`discrete_energies`, the
/// velocities by the inverse Legendre transform — which stopped at a node where the arm's M is
/// ill-conditioned until the transform accepted its rounding) in a band that does not widen, of
/// second order in the step.
#[test]
fn the_unforced_arms_energy_stays_in_a_band_of_second_order() {
    let arm = Arm { g: 9.81 };
    let view = arm.driven([0.0; 6]);
    let x = view.state([0.3, -0.8, 1.0, -0.5, 0.7, 0.2], [0.5, 0.0, -0.4, 0.3, 0.0, 0.6]);
    let band = |e: &[f64]| e.iter().fold(f64::NEG_INFINITY, |a, &b| a.max(b)) - e.iter().fold(f64::INFINITY, |a, &b| a.min(b));
    let mut bands = Vec::new();
    for (h, n) in [(0.005, 8000), (0.0025, 16000)] {
        let run = view.run_discrete(x).step(h).steps(n).go().unwrap();
        let energies = view.discrete_energies(&run).unwrap();
        let (first, last) = (band(&energies[..n / 4]), band(&energies[3 * n / 4..]));
        assert!(last < 1.5 * first, "h = {h}: energy bands {first:e}, {last:e}");
        bands.push(first.max(last) / energies[0].abs());
    }
    let ratio = bands[0] / bands[1];
    assert!((3.0..6.0).contains(&ratio) && bands[1] < 2e-3, "relative bands {bands:?}");
}

/// A floating biped written with joints: a trunk on a floating base and two legs of three
/// revolute joints (twelve velocities, the base's orientation a quaternion), on the Lie group
/// integrator. Its maps are long enough that the left map (with Newton's Jacobian) and the step's
/// blocks are one computation in two phases of part functions, the blocks reading the values the
/// left map's parts leave (`macros/core`'s `left_and_blocks`).
#[derive(Mechanics)]
#[mechanics(
    joint(name = base, kind = floating, child = trunk, mass = 2.0, centre = [0, 0, 0], inertia = diag(0.1, 0.12, 0.08)),
    joint(name = l_roll, kind = revolute, parent = trunk, child = l_pelvis, origin = [0, 0.1, -0.05], axis = [1, 0, 0],
          mass = 0.2, centre = [0, 0, -0.02], inertia = diag(0.001, 0.001, 0.001)),
    joint(name = l_hip, kind = revolute, parent = l_pelvis, child = l_thigh, origin = [0, 0, -0.05], axis = [0, 1, 0],
          mass = 0.5, centre = [0.01, 0, -0.1], inertia = diag(0.004, 0.0035, 0.0008)),
    joint(name = l_knee, kind = revolute, parent = l_thigh, child = l_shank, origin = [0, 0, -0.2], axis = [0, 1, 0],
          mass = 0.3, centre = [0, 0, -0.1], inertia = diag(0.002, 0.002, 0.0005)),
    joint(name = r_roll, kind = revolute, parent = trunk, child = r_pelvis, origin = [0, -0.1, -0.05], axis = [1, 0, 0],
          mass = 0.2, centre = [0, 0, -0.02], inertia = diag(0.001, 0.001, 0.001)),
    joint(name = r_hip, kind = revolute, parent = r_pelvis, child = r_thigh, origin = [0, 0, -0.05], axis = [0, 1, 0],
          mass = 0.5, centre = [0.01, 0, -0.1], inertia = diag(0.004, 0.0035, 0.0008)),
    joint(name = r_knee, kind = revolute, parent = r_thigh, child = r_shank, origin = [0, 0, -0.2], axis = [0, 1, 0],
          mass = 0.3, centre = [0, 0, -0.1], inertia = diag(0.002, 0.002, 0.0005)),
    gravity = [0, 0, -g],
    discrete(rule = midpoint),
)]
struct Biped {
    g: f64,
}

/// The biped's node moved along its chart: the coordinates by δx, the base's quaternion (last) to
/// Q ⊗ exp(η/2).
fn biped_moved(q: &SVector<f64, 13>, d: &SVector<f64, 12>) -> SVector<f64, 13> {
    use routh::nalgebra::{Quaternion, UnitQuaternion, Vector3};
    let turned = UnitQuaternion::from_quaternion(Quaternion::new(q[9], q[10], q[11], q[12]))
        * UnitQuaternion::from_scaled_axis(Vector3::new(d[9], d[10], d[11]));
    SVector::from_fn(|i, _| match i {
        0..9 => q[i] + d[i],
        9 => turned.w,
        10 => turned.i,
        11 => turned.j,
        _ => turned.k,
    })
}

/// The chart's coordinates of `to` about `from`: δx, and η = log(Q_from⁻¹ Q_to).
fn biped_chart(from: &SVector<f64, 13>, to: &SVector<f64, 13>) -> SVector<f64, 12> {
    use routh::nalgebra::{Quaternion, UnitQuaternion};
    let unit = |q: &SVector<f64, 13>| UnitQuaternion::from_quaternion(Quaternion::new(q[9], q[10], q[11], q[12]));
    let eta = (unit(from).inverse() * unit(to)).scaled_axis();
    SVector::from_fn(|i, _| if i < 9 { to[i] - from[i] } else { eta[i - 9] })
}

/// The step Jacobian from the two-phase blocks against central differences of the solved step
/// along the start node's chart and its momenta, and the cotangent bundle's form kept (gravity the
/// only force); the blocks' Newton Jacobian (their first phase within the whole) the left map's
/// own, to the bit.
#[test]
fn a_floating_bipeds_two_phase_step_blocks_are_its_steps_jacobian() {
    use routh::runtime::OrientedDiscreteSystem;
    use routh::runtime::discrete::{DiscreteOptions, oriented_step, oriented_step_jacobian, oriented_symplecticity_defect};
    assert_eq!(Biped::COORDINATES[9], "base_q_w", "the quaternion's four positions come last");
    let model = Biped { g: 9.81 };
    let turn = routh::nalgebra::UnitQuaternion::from_euler_angles(0.2, -0.3, 0.5);
    let q0 = SVector::<f64, 13>::from_fn(|i, _| match i {
        0..9 => [0.1, -0.2, 0.9, 0.15, -0.4, 0.7, -0.1, 0.3, 0.5][i],
        9 => turn.w,
        10 => turn.i,
        11 => turn.j,
        _ => turn.k,
    });
    let xi = SVector::<f64, 12>::from_fn(|i, _| 0.01 * ((i as f64) * 0.7).sin() + 0.004);
    let h = 0.01;
    let (mu0, _) = model.discrete_momenta(0.0, h, &q0, &xi);
    let options = DiscreteOptions::default();
    let step = |q: &SVector<f64, 13>, mu: &SVector<f64, 12>| oriented_step(&model, (0.0, h), (q, mu), xi, &options).unwrap();
    let base = step(&q0, &mu0);
    assert!((base.increment - xi).amax() < 1e-12, "the step from μ⁻(q₀, ξ) is ξ");
    let blocks = model.map_derivatives(0.0, h, &q0, &base.increment).unwrap().unwrap();
    let (_, newton) = model.left_momentum(0.0, h, &q0, &base.increment).unwrap();
    assert_eq!(blocks.left_dnext, newton, "the blocks' J is the left map's");
    let jac = oriented_step_jacobian(&model, 0.0, h, &q0, &base.increment).unwrap().unwrap();
    let eps = 1e-6;
    for i in 0..24 {
        let e = SVector::<f64, 12>::from_fn(|r, _| if r == i % 12 { eps } else { 0.0 });
        let (up, down) = if i < 12 {
            (step(&biped_moved(&q0, &e), &mu0), step(&biped_moved(&q0, &-e), &mu0))
        } else {
            (step(&q0, &(mu0 + e)), step(&q0, &(mu0 - e)))
        };
        let dq = (biped_chart(&base.position, &up.position) - biped_chart(&base.position, &down.position)) / (2.0 * eps);
        let dmu = (up.momentum - down.momentum) / (2.0 * eps);
        let (exact_q, exact_mu) = if i < 12 {
            (jac.dq_dq.column(i), jac.dp_dq.column(i))
        } else {
            (jac.dq_dp.column(i - 12), jac.dp_dp.column(i - 12))
        };
        assert!((exact_q - dq).amax() < 1e-6 * (1.0 + dq.amax()), "∂q₁ column {i}: {:e}", (exact_q - dq).amax());
        assert!((exact_mu - dmu).amax() < 1e-6 * (1.0 + dmu.amax()), "∂μ₁ column {i}: {:e}", (exact_mu - dmu).amax());
    }
    let defect = oriented_symplecticity_defect::<13, 12>(&jac, &mu0, &base.momentum);
    assert!(defect < 1e-8, "symplectic defect {defect:e}");
}
