//! Variational integrators behind a pointer (`DynModel::discrete_*`): a discrete run, a step with
//! its Jacobians and iLQR over the step map through slices are the typed ones to the bit — on
//! coordinates, with an action (contact) and on orientations (the Lie group integrator, its
//! Jacobians in the chart) — and what a model does not have is a typed error saying why.

use routh::nalgebra::{DMatrix, SMatrix, SVector};
use routh::prelude::*;
use routh::runtime::discrete::DiscreteOptions;
use routh::runtime::erased::{DiscreteKind, DiscreteRequest, DynModel, IlqrRequest, IlqrScheme};
use routh::runtime::ilqr::{IlqrProblem, IlqrStatus, ilqr, ilqr_oriented};
use routh::runtime::step::{ContactMap, OrientedMap, StepMap, VariationalMap};

include!("common/cartpole.rs");
include!("common/contact_oscillator.rs");

/// A pendulum on the trapezoid rule, without inputs.
#[derive(Mechanics)]
#[mechanics(coordinates(th), lagrangian = m * l.powi(2) / 2 * dot(th).powi(2) + m * g * l * th.cos(), discrete(rule = trapezoid))]
struct Pendulum {
    m: f64,
    l: f64,
    g: f64,
}

/// The same pendulum without an integrator.
#[derive(Mechanics)]
#[mechanics(coordinates(th), lagrangian = m * l.powi(2) / 2 * dot(th).powi(2) + m * g * l * th.cos())]
struct Continuous {
    m: f64,
    l: f64,
    g: f64,
}

include!("common/craft.rs");
include!("common/polar.rs");

fn bits(v: &[f64]) -> Vec<u64> {
    v.iter().map(|x| x.to_bits()).collect()
}

/// The request's weights as dense matrices.
fn dense<const C: usize, const K: usize>(
    q: &SMatrix<f64, C, C>,
    r: &SMatrix<f64, K, K>,
    qf: &SMatrix<f64, C, C>,
) -> (DMatrix<f64>, DMatrix<f64>, DMatrix<f64>) {
    (
        DMatrix::from_column_slice(C, C, q.as_slice()),
        DMatrix::from_column_slice(K, K, r.as_slice()),
        DMatrix::from_column_slice(C, C, qf.as_slice()),
    )
}

/// The cart-pole's run from its state, its step and iLQR over its step map through the pointer:
/// the typed `driven(u).run_discrete`, `VariationalMap::step` and `ilqr` over the map to the bit;
/// the discrete state (q, p) with p = ∂L/∂q̇ and its names.
#[test]
fn a_variational_integrator_runs_steps_and_plans_as_its_typed_self() {
    let typed = CartPole { mc: 1.0, mp: 0.3, l: 0.8, g: 9.81 };
    let model: Box<dyn DynModel> = Box::new(CartPole::from_parameters(&[1.0, 0.3, 0.8, 9.81]).unwrap());
    let info = model.info().discrete.expect("an integrator");
    assert_eq!((info.kind, info.rule, info.steps), (DiscreteKind::Variational, "midpoint", true));
    assert_eq!(info.state_names, ["s", "th", "p(s)", "p(th)"]);
    let x = typed.state([0.1, 0.2], [0.3, -0.4]);
    let start = model.discrete_state(0.5, x.as_slice()).unwrap();
    let p = typed.driven([0.0]).momenta(0.5, &x);
    assert_eq!(bits(&start), bits(&[0.1, 0.2, p[0], p[1]]));

    let (h, steps) = (0.01, 150);
    let mut request = DiscreteRequest::new(x.as_slice().to_vec(), h, steps);
    (request.t0, request.inputs) = (0.5, vec![0.7]);
    let flat = model.discrete_run(&request).unwrap();
    let expected = typed.driven([0.7]).run_discrete(x).start(0.5).step(h).steps(steps).go().unwrap();
    assert_eq!((flat.times.len(), bits(&flat.times)), (steps + 1, bits(&expected.times)));
    assert_eq!(flat.iterations, expected.iterations);
    for (k, row) in flat.states.iter().enumerate() {
        let (q, p) = (expected.positions[k], expected.momenta[k]);
        assert_eq!(bits(row), bits(&[q[0], q[1], p[0], p[1]]), "node {k}");
    }
    assert_eq!(bits(&flat.states[0]), bits(&start));
    assert!(flat.energies.is_empty(), "energies only when asked for");
    request.energies = true;
    let with = model.discrete_run(&request).unwrap();
    assert_eq!(bits(&with.energies), bits(&typed.driven([0.7]).discrete_energies(&expected).unwrap()));
    assert_eq!(bits(&with.states[steps]), bits(&flat.states[steps]));

    let step = model.discrete_step(0.5, &start, &[0.7], h).unwrap();
    assert_eq!(bits(&model.discrete_advance(0.5, &start, &[0.7], h).unwrap()), bits(&step.next));
    let typed_step = VariationalMap::<_, 2>::new(&typed)
        .step(0.5, &SVector::<f64, 4>::from_column_slice(&start), &SVector::from([0.7]), h)
        .unwrap();
    assert_eq!(bits(&step.next), bits(typed_step.next.as_slice()));
    assert_eq!((step.a.shape(), step.b.shape()), ((4, 4), (4, 1)));
    assert_eq!(
        (bits(step.a.as_slice()), bits(step.b.as_slice())),
        (bits(typed_step.a.as_slice()), bits(typed_step.b.as_slice()))
    );
    // The step's first node is the run's second (the run steps by the same map).
    assert_eq!(bits(&step.next), bits(&flat.states[1]));

    // iLQR over the integrator: the pole up from 0.3 rad, the typed plan over the map to the bit.
    let (n, dt) = (60, 0.025);
    let q = SMatrix::<f64, 4, 4>::from_diagonal(&SVector::from([1.0, 10.0, 0.1, 0.1]));
    let (r, qf) = (SMatrix::<f64, 1, 1>::new(0.1), q * 100.0);
    let x0 =
        SVector::<f64, 4>::from_column_slice(&model.discrete_state(0.0, typed.state([0.0, 0.3], [0.0, 0.0]).as_slice()).unwrap());
    let problem = IlqrProblem::new((0.0, dt, n), SVector::zeros(), q, r, qf).limits(SVector::from([-8.0]), SVector::from([8.0]));
    let expected = ilqr(&VariationalMap::<_, 2>::new(&typed), &problem, &x0, &vec![SVector::zeros(); n]).unwrap();
    let mut plan = IlqrRequest::new(x0.as_slice().to_vec(), vec![vec![0.0]; n], dt, vec![0.0; 4], dense(&q, &r, &qf));
    (plan.limits, plan.scheme) = (Some((vec![-8.0], vec![8.0])), IlqrScheme::Variational);
    let flat = model.ilqr(&plan).unwrap();
    assert_eq!((flat.status, bits(&flat.costs)), (expected.status, bits(&expected.costs)));
    assert_eq!(expected.status, IlqrStatus::Converged);
    for (a, b) in flat.states.iter().zip(&expected.states) {
        assert_eq!(bits(a), bits(b.as_slice()));
    }
    for (a, b) in flat.gains.iter().zip(&expected.gains) {
        assert_eq!((a.shape(), bits(a.as_slice())), ((1, 4), bits(b.as_slice())));
    }
    assert!(flat.states[n][1].abs() < 0.05, "{:?}", flat.states[n]);
    // The request's scheme is read: on RK4 the plan is RK4's.
    plan.scheme = IlqrScheme::Rk4;
    let rk4 = model.ilqr(&plan).unwrap();
    let expected = ilqr(&typed, &problem, &typed.state([0.0, 0.3], [0.0, 0.0]), &vec![SVector::zeros(); n]);
    assert!(rk4.costs[0] != flat.costs[0] && expected.is_ok());
}

/// The contact integrator through the pointer: the discrete state (q, p, z), its run with the
/// actions, its step over (q, p, z) and iLQR over it, each the typed one's to the bit.
#[test]
fn a_contact_integrator_carries_its_action_through_the_pointer() {
    let typed = DrivenContactOscillator { gamma: 0.3 };
    let model: Box<dyn DynModel> = Box::new(DrivenContactOscillator::from_parameters(&[0.3]).unwrap());
    let info = model.info().discrete.expect("an integrator");
    assert_eq!((info.kind, info.state_names), (DiscreteKind::Contact, &["x", "p(x)", "z"][..]));
    let x = typed.state([1.0], [0.5], 0.2);
    let start = model.discrete_state(0.0, x.as_slice()).unwrap();
    assert_eq!(bits(&start), bits(&[1.0, typed.driven([0.0]).momenta(0.0, &x)[0], 0.2]));
    let mut request = DiscreteRequest::new(x.as_slice().to_vec(), 0.05, 100);
    (request.inputs, request.energies) = (vec![0.4], true);
    let flat = model.discrete_run(&request).unwrap();
    let expected = typed.driven([0.4]).run_discrete(x).step(0.05).steps(100).go().unwrap();
    assert_eq!(bits(&flat.energies), bits(&typed.driven([0.4]).discrete_energies(&expected).unwrap()));
    for (k, row) in flat.states.iter().enumerate() {
        assert_eq!(bits(row), bits(&[expected.positions[k][0], expected.momenta[k][0], expected.actions[k]]), "node {k}");
    }
    let step = model.discrete_step(0.0, &start, &[0.4], 0.05).unwrap();
    assert_eq!(bits(&model.discrete_advance(0.0, &start, &[0.4], 0.05).unwrap()), bits(&step.next));
    let typed_step = ContactMap::<_, 1>::new(&typed)
        .step(0.0, &SVector::<f64, 3>::from_column_slice(&start), &SVector::from([0.4]), 0.05)
        .unwrap();
    assert_eq!((step.a.shape(), step.b.shape()), ((3, 3), (3, 1)));
    assert_eq!((bits(&step.next), bits(step.a.as_slice())), (bits(typed_step.next.as_slice()), bits(typed_step.a.as_slice())));
    assert_eq!(bits(&step.next), bits(&flat.states[1]));
    // iLQR to rest at the origin (the action unweighted).
    let q = SMatrix::<f64, 3, 3>::from_diagonal(&SVector::from([10.0, 1.0, 0.0]));
    let (r, qf) = (SMatrix::<f64, 1, 1>::new(0.01), q * 10.0);
    let x0 = SVector::<f64, 3>::from_column_slice(&start);
    let problem = IlqrProblem::new((0.0, 0.05, 40), SVector::zeros(), q, r, qf);
    let expected = ilqr(&ContactMap::<_, 1>::new(&typed), &problem, &x0, &vec![SVector::zeros(); 40]).unwrap();
    let mut plan = IlqrRequest::new(start.clone(), vec![vec![0.0]; 40], 0.05, vec![0.0; 3], dense(&q, &r, &qf));
    plan.scheme = IlqrScheme::Variational;
    let flat = model.ilqr(&plan).unwrap();
    assert_eq!((flat.status, bits(&flat.costs)), (expected.status, bits(&expected.costs)));
    assert_eq!(expected.status, IlqrStatus::Converged);
    assert!(
        flat.costs.windows(2).all(|c| c[1] <= c[0]) && flat.costs[flat.costs.len() - 1] < 0.5 * flat.costs[0],
        "{:?}",
        flat.costs
    );
}

/// The Lie group integrator through the pointer: the discrete state (q, μ) of the spacecraft
/// (its quaternion, its body momenta), its run, its step with A_d and B_d in the 6-dimensional
/// chart of its 7-dimensional state and iLQR in that chart (`ilqr_tangent`) — the typed
/// `OrientedMap` and `ilqr_oriented` to the bit; iLQR asked for over the state is refused.
#[test]
fn the_lie_group_integrator_steps_and_plans_in_its_chart_through_the_pointer() {
    let typed = Craft { m: 1.0, i1: 1.0, i2: 2.0, i3: 3.0 };
    let model: Box<dyn DynModel> = Box::new(Craft::from_parameters(&[1.0, 1.0, 2.0, 3.0]).unwrap());
    let info = model.info().discrete.expect("an integrator");
    assert_eq!((info.kind, info.state_names.len()), (DiscreteKind::Oriented, 7));
    assert_eq!(&info.state_names[4..], ["mu1(r)", "mu2(r)", "mu3(r)"]);
    let turned = routh::nalgebra::UnitQuaternion::from_scaled_axis(routh::nalgebra::Vector3::new(0.3, -0.2, 0.5));
    let x = typed.state([turned.w, turned.i, turned.j, turned.k], [0.2, -0.1, 0.3]);
    let start = model.discrete_state(0.0, x.as_slice()).unwrap();
    // μ = J ω for the principal moments (1, 2, 3).
    assert!((start[4] - 0.2).abs() < 1e-15 && (start[5] + 0.2).abs() < 1e-15 && (start[6] - 0.9).abs() < 1e-15, "{start:?}");
    let mut request = DiscreteRequest::new(x.as_slice().to_vec(), 0.05, 40);
    (request.inputs, request.energies) = (vec![0.1, 0.0, -0.2], true);
    let flat = model.discrete_run(&request).unwrap();
    let expected = typed.driven([0.1, 0.0, -0.2]).run_discrete(x).step(0.05).steps(40).go().unwrap();
    // The energy at the nodes: ½ μᵀ J⁻¹ μ of the body momenta, by the inverse Legendre transform.
    assert_eq!(bits(&flat.energies), bits(&typed.driven([0.1, 0.0, -0.2]).discrete_energies(&expected).unwrap()));
    for (e, mu) in flat.energies.iter().zip(&expected.momenta) {
        let kinetic = 0.5 * (mu[0] * mu[0] / 1.0 + mu[1] * mu[1] / 2.0 + mu[2] * mu[2] / 3.0);
        assert!((e - kinetic).abs() < 1e-14 * (1.0 + kinetic), "{e} against {kinetic}");
    }
    for (k, row) in flat.states.iter().enumerate() {
        let mut node = expected.positions[k].as_slice().to_vec();
        node.extend_from_slice(expected.momenta[k].as_slice());
        assert_eq!(bits(row), bits(&node), "node {k}");
    }
    let u = SVector::from([0.1, 0.0, -0.2]);
    let step = model.discrete_step(0.0, &start, u.as_slice(), 0.05).unwrap();
    assert_eq!(bits(&model.discrete_advance(0.0, &start, u.as_slice(), 0.05).unwrap()), bits(&step.next));
    let map = OrientedMap::<_, 4, 3>::new(&typed);
    let typed_step = map.step::<7, 6, 3>(0.0, &SVector::from_column_slice(&start), &u, 0.05).unwrap();
    assert_eq!((step.a.shape(), step.b.shape()), ((6, 6), (6, 3)));
    assert_eq!((bits(&step.next), bits(step.a.as_slice())), (bits(typed_step.next.as_slice()), bits(typed_step.a.as_slice())));
    assert_eq!(bits(step.b.as_slice()), bits(typed_step.b.as_slice()));
    // A 90° turn about z from rest, planned in the chart.
    let x0 = SVector::<f64, 7>::from([1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]);
    let half = std::f64::consts::FRAC_PI_4;
    let goal = SVector::<f64, 7>::from([half.cos(), 0.0, 0.0, half.sin(), 0.0, 0.0, 0.0]);
    let q = SMatrix::<f64, 6, 6>::zeros();
    let (r, qf) = (SMatrix::<f64, 3, 3>::identity() * 0.3, SMatrix::<f64, 6, 6>::identity() * 1e5);
    let problem = IlqrProblem::new((0.0, 0.05, 40), goal, q, r, qf).tolerance(1e-12);
    let expected = ilqr_oriented(&map, &problem, &x0, &vec![SVector::zeros(); 40]).unwrap();
    let mut plan =
        IlqrRequest::new(x0.as_slice().to_vec(), vec![vec![0.0; 3]; 40], 0.05, goal.as_slice().to_vec(), dense(&q, &r, &qf));
    (plan.scheme, plan.tolerance) = (IlqrScheme::Variational, 1e-12);
    let flat = model.ilqr_tangent(&plan).unwrap();
    assert_eq!((flat.status, bits(&flat.costs)), (expected.status, bits(&expected.costs)));
    for (a, b) in flat.gains.iter().zip(&expected.gains) {
        assert_eq!((a.shape(), bits(a.as_slice())), ((3, 6), bits(b.as_slice())));
    }
    let end = SVector::<f64, 7>::from_column_slice(&flat.states[40]);
    assert_eq!(expected.status, IlqrStatus::Converged);
    // Within a thousandth of the turn (the terminal weight is finite: 10⁵ against the torques' 0.3).
    assert!(OrientedMap::<Craft, 4, 3>::difference::<7, 6>(&end, &goal).norm() < 2e-3, "{end}");
    assert!(matches!(model.ilqr(&plan), Err(SimError::InvalidArgument(e)) if e.contains("ilqr_tangent")));
}

/// What a model does not have: no integrator (every discrete call), no inputs (the step map and
/// iLQR over it), wrong sizes; and a failed run keeps its nodes.
#[test]
fn what_a_model_has_not_is_a_typed_error_and_a_failed_run_keeps_its_nodes() {
    let continuous: Box<dyn DynModel> = Box::new(Continuous::from_parameters(&[1.0, 1.0, 9.81]).unwrap());
    assert!(continuous.info().discrete.is_none());
    let no_rule = |e: &SimError| matches!(e, SimError::InvalidArgument(m) if m.contains("no variational integrator"));
    assert!(no_rule(&continuous.discrete_state(0.0, &[0.1, 0.0]).unwrap_err()));
    assert!(no_rule(&continuous.discrete_run(&DiscreteRequest::new(vec![0.1, 0.0], 0.01, 10)).unwrap_err().error));
    let refused = continuous.discrete_step(0.0, &[0.1, 0.0], &[], 0.01).unwrap_err();
    assert!(matches!(&refused, SimError::InvalidArgument(m) if m.contains("no `discrete(rule = ...)`")), "{refused}");

    let typed = Pendulum { m: 1.0, l: 1.0, g: 9.81 };
    let model: Box<dyn DynModel> = Box::new(Pendulum::from_parameters(&[1.0, 1.0, 9.81]).unwrap());
    let info = model.info().discrete.expect("an integrator");
    assert_eq!((info.rule, info.steps), ("trapezoid", false));
    let x = typed.state([2.0], [0.0]);
    let flat = model.discrete_run(&DiscreteRequest::new(x.as_slice().to_vec(), 0.1, 20)).unwrap();
    let expected = typed.run_discrete(x).step(0.1).steps(20).go().unwrap();
    assert_eq!(bits(&flat.states[20]), bits(&[expected.positions[20][0], expected.momenta[20][0]]));
    let refused = model.discrete_step(0.0, &flat.states[0], &[], 0.1).unwrap_err();
    assert!(matches!(&refused, SimError::InvalidArgument(m) if m.contains("it has no inputs")), "{refused}");
    let refused = model.discrete_advance(0.0, &flat.states[0], &[], 0.1).unwrap_err();
    assert!(matches!(&refused, SimError::InvalidArgument(m) if m.contains("it has no inputs")), "{refused}");
    // Sizes: the model's state for a run, the discrete state for a step.
    assert!(
        matches!(model.discrete_run(&DiscreteRequest::new(vec![2.0], 0.1, 20)), Err(e) if matches!(e.error, SimError::InvalidArgument(_)))
    );
    let cart: Box<dyn DynModel> = Box::new(CartPole::from_parameters(&[1.0, 0.3, 0.8, 9.81]).unwrap());
    assert!(matches!(cart.discrete_step(0.0, &[0.0; 3], &[0.0], 0.01), Err(SimError::InvalidArgument(_))));
    assert!(matches!(cart.discrete_step(0.0, &[0.0; 4], &[], 0.01), Err(SimError::InvalidArgument(_))));
    assert!(matches!(cart.discrete_advance(0.0, &[0.0; 4], &[0.0], f64::NAN), Err(SimError::InvalidArgument(_))));
    // One Newton iteration a step cannot converge: the run fails on its first step, the start kept.
    let mut request = DiscreteRequest::new(x.as_slice().to_vec(), 0.1, 20);
    request.options = DiscreteOptions::default().max_iterations(1);
    let failed = model.discrete_run(&request).unwrap_err();
    assert!(matches!(failed.error, SimError::NewtonFailed { .. }), "{}", failed.error);
    let partial = failed.partial.expect("the nodes before the failure");
    assert_eq!((partial.times.len(), bits(&partial.states[0])), (1, bits(&flat.states[0])));
}

#[test]
fn a_discrete_routh_reduction_runs_through_the_pointer() {
    // Example 3.13 (erratum D3): the particle on the covering (r, η), reduced by η. The flat
    // reduced run is the typed `.reduced()` to the bit, its increments the reconstruction's; the
    // angular momentum decays by the Padé factor (2 − κh)/(2 + κh) each step, as in the full run.
    let typed = Polar { kappa: 0.1 };
    let model: Box<dyn DynModel> = Box::new(Polar::from_parameters(&[0.1]).unwrap());
    let info = model.info().discrete.expect("an integrator");
    assert_eq!(info.cyclic, ["eta"]);
    let x = typed.state([1.2, 0.0], [0.0, 0.5]);
    let (h, steps) = (0.01, 400);
    let mut request = DiscreteRequest::new(x.as_slice().to_vec(), h, steps);
    request.reduced = true;
    let flat = model.discrete_run(&request).unwrap();
    let expected = typed.run_discrete(x).step(h).steps(steps).reduced().go().unwrap();
    assert_eq!(flat.increments.len(), steps);
    for k in 0..steps {
        assert_eq!(flat.increments[k][0].to_bits(), expected.increments[k][1].to_bits(), "step {k}");
    }
    for (k, row) in flat.states.iter().enumerate() {
        let (q, p) = (expected.trajectory.positions[k], expected.trajectory.momenta[k]);
        assert_eq!(bits(row), bits(&[q[0], q[1], p[0], p[1]]), "node {k}");
    }
    let factor = (2.0 - 0.1 * h) / (2.0 + 0.1 * h);
    for k in 1..=steps {
        let ratio = flat.states[k][3] / flat.states[k - 1][3];
        assert!((ratio - factor).abs() < 1e-12, "step {k}: {ratio} against {factor}");
    }
    // Not reduced: the full run, no increments, the same nodes to rounding.
    request.reduced = false;
    let full = model.discrete_run(&request).unwrap();
    assert!(full.increments.is_empty());
    let gap =
        full.states.iter().zip(&flat.states).flat_map(|(a, b)| a.iter().zip(b).map(|(x, y)| (x - y).abs() / y.abs().max(1.0)));
    assert!(gap.fold(0.0, f64::max) < 1e-12);
    // A model without a discrete reduction says so.
    let cart: Box<dyn DynModel> = Box::new(CartPole::from_parameters(&[1.0, 0.3, 0.8, 9.81]).unwrap());
    assert!(cart.info().discrete.expect("an integrator").cyclic.is_empty());
    let mut request = DiscreteRequest::new(vec![0.0; 4], 0.01, 10);
    (request.inputs, request.reduced) = (vec![0.0], true);
    let refused = cart.discrete_run(&request).unwrap_err().error;
    assert!(matches!(&refused, SimError::InvalidArgument(m) if m.contains("no discrete reduction")), "{refused}");
}
