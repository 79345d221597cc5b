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

#[test]
fn the_arms_step_jacobians_are_its_steps_and_symplectic() {
    let arm = Arm { g: 9.81 };
    let map = VariationalMap::<_, 6>::new(&arm);
    let x = arm.driven(TORQUES).state([0.1, 0.4, -0.3, 0.2, 0.5, -0.1], [0.2, 0.0, -0.1, 0.0, 0.3, 0.0]);
    let p = arm.driven(TORQUES).momenta(0.0, &x);
    let start = SVector::<f64, 12>::from_fn(|i, _| if i < 6 { x[i] } else { p[i - 6] });
    let (u, h) = (SVector::from(TORQUES), 0.01);
    let step = map.step(0.0, &start, &u, h).unwrap();
    let e = 1e-6;
    for j in 0..12 {
        let mut plus = start;
        plus[j] += e;
        let mut minus = start;
        minus[j] -= e;
        let column = (map.advance(0.0, &plus, &u, h).unwrap() - map.advance(0.0, &minus, &u, h).unwrap()) / (2.0 * e);
        assert!((column - step.a.column(j)).amax() < 1e-7 * (1.0 + step.a.column(j).amax()), "column {j}");
    }
    for j in 0..6 {
        let mut plus = u;
        plus[j] += e;
        let mut minus = u;
        minus[j] -= e;
        let column = (map.advance(0.0, &start, &plus, h).unwrap() - map.advance(0.0, &start, &minus, h).unwrap()) / (2.0 * e);
        assert!((column - step.b.column(j)).amax() < 1e-7 * (1.0 + step.b.column(j).amax()), "input {j}");
    }
    // The torques held over the step are the only forces: A_dᵀ J A_d = J.
    let mut j = SMatrix::<f64, 12, 12>::zeros();
    for i in 0..6 {
        (j[(i, 6 + i)], j[(6 + i, i)]) = (1.0, -1.0);
    }
    let defect = (step.a.transpose() * j * step.a - j).amax();
    assert!(defect < 1e-10, "symplectic defect {defect:e}");
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
