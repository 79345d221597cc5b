//! Models behind a pointer (`DynModel`): every kind of generated model — smooth, constrained, with
//! inputs, impacts, modes, outputs — run and evaluated through slices gives the typed API's numbers
//! to the bit, and wrong sizes, modes and parameters are typed errors.

use routh::prelude::*;
use routh::runtime::erased::{DynModel, InputLaw, LinearEvent, RunRequest};

/// The README's double pendulum.
#[derive(Mechanics)]
#[mechanics(
    coordinates(th1, th2),
    define(
        x1 = l1 * th1.sin(),           y1 = -l1 * th1.cos(),
        x2 = x1 + l2 * th2.sin(),      y2 = y1 - l2 * th2.cos(),
    ),
    lagrangian = m1 / 2 * (dot(x1).powi(2) + dot(y1).powi(2))
               + m2 / 2 * (dot(x2).powi(2) + dot(y2).powi(2))
               - g * (m1 * y1 + m2 * y2),
    force(th1 = -b * dot(th1), th2 = -b * (dot(th2) - dot(th1))),
    output(tip_y = y2),
)]
struct DoublePendulum {
    m1: f64,
    m2: f64,
    l1: f64,
    l2: f64,
    g: f64,
    b: f64,
}

include!("common/cartpole.rs");

/// A ball bouncing on the floor.
#[derive(Mechanics)]
#[mechanics(
    coordinates(y),
    lagrangian = m / 2 * dot(y).powi(2) - m * g * y,
    impact(name = floor, guard = y, law = restitution(e)),
)]
struct Ball {
    m: f64,
    g: f64,
    e: f64,
}

/// The bouncing rod of *Hybrid periodic orbits* §4.3: two modes, which end hits next.
#[derive(Mechanics)]
#[mechanics(
    coordinates(y, alpha),
    lagrangian = m / 2 * (dot(y).powi(2) + (r * dot(alpha)).powi(2)) - m * g * y,
    mode(left),
    mode(right),
    transition(left -> right, guard = y - l / 2 * alpha.sin(), law = restitution(1)),
    transition(right -> left, guard = y + l / 2 * alpha.sin(), law = restitution(1)),
)]
struct Rod {
    m: f64,
    l: f64,
    r: f64,
    g: f64,
}

/// A pendulum in Cartesian coordinates on its rod.
#[derive(Mechanics)]
#[mechanics(
    coordinates(x, y),
    lagrangian = m / 2 * (dot(x).powi(2) + dot(y).powi(2)) - m * g * y,
    holonomic(rod = x.powi(2) + y.powi(2) - l.powi(2)),
    output(tension = multiplier(rod), height = y),
)]
struct Pendulum {
    m: f64,
    g: f64,
    l: f64,
}

fn bits(v: &[f64]) -> Vec<u64> {
    v.iter().map(|x| x.to_bits()).collect()
}

#[test]
fn a_smooth_model_runs_and_evaluates_as_its_typed_self() {
    let p = DoublePendulum::from_parameters(&[1.0, 2.0, 1.0, 0.5, 9.81, 0.1]).unwrap();
    let typed = DoublePendulum { m1: 1.0, m2: 2.0, l1: 1.0, l2: 0.5, g: 9.81, b: 0.1 };
    let info = p.info();
    assert_eq!(info.name, "DoublePendulum");
    assert_eq!(info.parameters, ["m1", "m2", "l1", "l2", "g", "b"]);
    assert_eq!(info.coordinates, ["th1", "th2"]);
    assert_eq!(info.state_names, DoublePendulum::STATE_NAMES);
    assert_eq!((info.state_dim, info.outputs), (4, &["tip_y"][..]));
    assert_eq!(p.parameter_values(), [1.0, 2.0, 1.0, 0.5, 9.81, 0.1]);
    let x0 = typed.state([1.0, 0.5], [0.2, -0.3]);
    let sol = typed.run(x0).span(0.0..5.0).rtol(1e-10).atol(1e-12).go().unwrap();
    let model: &dyn DynModel = &p;
    let flat = model.run(&RunRequest::new(x0.as_slice().to_vec(), 0.0..5.0).rtol(1e-10).atol(1e-12)).unwrap();
    assert!(flat.finished && flat.len() == sol.len() && flat.len() > 20);
    assert_eq!(bits(&flat.times), bits(&sol.times));
    let states: Vec<f64> = sol.states.iter().flat_map(|x| x.iter().copied()).collect();
    assert_eq!(bits(&flat.states), bits(&states));
    // The outputs at each sample are the typed `observe`'s.
    let observed: Vec<f64> = typed.observe(&sol).values.concat();
    assert_eq!(bits(&flat.outputs), bits(&observed));
    // Field, energy, momenta.
    let x = sol.states[7];
    assert_eq!(
        bits(&model.field(0, 0.3, x.as_slice(), &[]).unwrap()),
        bits(VectorField::field(&typed, 0.3, &x).unwrap().as_slice())
    );
    assert_eq!(model.energy(0, 0.3, x.as_slice()).unwrap().to_bits(), typed.energy(0.3, &x).to_bits());
    assert_eq!(bits(&model.momenta(0, 0.3, x.as_slice()).unwrap()), bits(typed.momenta(0.3, &x).as_slice()));
    // C row by row (one output: its gradient over the state).
    assert_eq!(bits(&model.output_jacobian(0, 0.3, x.as_slice()).unwrap()), bits(typed.output_jacobian(0.3, &x).as_slice()));
    // M row by row and the inverse dynamics, as the typed ones; τ at the field's own accelerations
    // vanishes, and M is symmetric.
    let m = model.mass_matrix(0, 0.3, x.as_slice()).unwrap();
    assert_eq!(bits(&m), bits(typed.mass_matrix(0.3, &x).transpose().as_slice()));
    assert_eq!(m[1].to_bits(), m[2].to_bits());
    let qdd = [0.4, -1.1];
    let tau = model.inverse_dynamics(0, 0.3, x.as_slice(), &[], &qdd).unwrap();
    let typed_tau = typed.inverse_dynamics(0.3, &x, &qdd.into()).unwrap();
    assert_eq!(bits(&tau), bits(typed_tau.as_slice()));
    let own = typed.accelerations(0.3, &x).unwrap();
    let rest = model.inverse_dynamics(0, 0.3, x.as_slice(), &[], own.as_slice()).unwrap();
    assert!(rest.iter().all(|t| t.abs() < 1e-12), "{rest:?}");
    assert!(
        matches!(model.inverse_dynamics(0, 0.3, x.as_slice(), &[], &[1.0]), Err(SimError::InvalidArgument(m)) if m.contains("2 accelerations"))
    );
    assert!(matches!(model.mass_matrix(0, 0.3, &[1.0]), Err(SimError::InvalidArgument(_))));
    // No Jacobian was asked for: linearize says so, and so does inverse_dynamics_jacobian; wrong
    // sizes and modes are typed errors.
    assert!(matches!(model.linearize(0, 0.0, x.as_slice(), &[]), Err(SimError::InvalidArgument(m)) if m.contains("jacobian")));
    assert!(matches!(
        model.inverse_dynamics_jacobian(0, 0.0, x.as_slice(), &[], &qdd),
        Err(SimError::InvalidArgument(m)) if m.contains("inverse_dynamics_jacobian")
    ));
    assert!(matches!(model.field(0, 0.0, &[1.0, 2.0], &[]), Err(SimError::InvalidArgument(_))));
    assert!(matches!(model.field(0, 0.0, x.as_slice(), &[1.0]), Err(SimError::InvalidArgument(_))));
    assert!(matches!(model.energy(1, 0.0, x.as_slice()), Err(SimError::InvalidMode { mode: 1, modes: 1 })));
    assert!(matches!(model.run(&RunRequest::new(vec![0.0; 3], 0.0..1.0)), Err(e) if e.partial.is_none()));
    // Parameters: the wrong number, or one the model cannot take.
    assert!(matches!(DoublePendulum::from_parameters(&[1.0; 5]), Err(SimError::InvalidArgument(m)) if m.contains("m1, m2")));
    assert!(matches!(
        model.with_parameters(&[1.0, 2.0, 1.0, f64::NAN, 9.81, 0.1]),
        Err(SimError::InvalidParameter { name: "l2", .. })
    ));
    let heavier = model.with_parameters(&[1.0, 3.0, 1.0, 0.5, 9.81, 0.1]).unwrap();
    assert_eq!(heavier.parameter_values()[1], 3.0);
    assert_ne!(heavier.energy(0, 0.0, x.as_slice()).unwrap(), model.energy(0, 0.0, x.as_slice()).unwrap());
}

#[test]
fn linear_events_are_located_as_the_typed_runs_events() {
    // The lower link passing th2 = 0.2 rising (recorded) and th1 = -0.5 falling (terminal).
    let typed = DoublePendulum { m1: 1.0, m2: 1.0, l1: 1.0, l2: 1.0, g: 9.81, b: 0.0 };
    let x0 = typed.state([1.0, 0.0], [0.0, 0.0]);
    let events = [
        Event::new("up", |_t, x: &State<4>| x[1] - 0.2).direction(Direction::Rising),
        Event::new("down", |_t, x: &State<4>| x[0] + 0.5).direction(Direction::Falling).terminal(true),
    ];
    let sol = typed.run(x0).span(0.0..10.0).rtol(1e-10).atol(1e-12).events(&events).go().unwrap();
    let request = RunRequest::new(x0.as_slice().to_vec(), 0.0..10.0).rtol(1e-10).atol(1e-12).events(vec![
        LinearEvent::component("up", 4, 1, 0.2).direction(Direction::Rising),
        LinearEvent::new("down", vec![1.0, 0.0, 0.0, 0.0], 0.5).direction(Direction::Falling).terminal(true),
    ]);
    let flat = DynModel::run(&typed, &request).unwrap();
    assert!(!flat.finished && flat.stop.contains("down"));
    assert_eq!(flat.events.len(), sol.events.len());
    assert!(sol.events.len() >= 2);
    for (a, b) in flat.events.iter().zip(&sol.events) {
        assert_eq!((a.name.as_str(), a.t.to_bits(), bits(&a.state)), (b.name.as_str(), b.t.to_bits(), bits(b.state.as_slice())));
    }
    let last = flat.events.last().unwrap();
    assert!(last.name == "down" && (last.state[0] + 0.5).abs() < 1e-10);
    assert_eq!(flat.times.last().copied(), Some(last.t));
    let wrong = request.clone().events(vec![LinearEvent::new("bad", vec![1.0], 0.0)]);
    assert!(matches!(DynModel::run(&typed, &wrong), Err(e) if matches!(e.error, SimError::InvalidArgument(_))));
}

#[test]
fn a_driven_model_linearizes_and_runs_at_constant_inputs() {
    let typed = CartPole { mc: 1.0, mp: 0.3, l: 0.8, g: 9.81 };
    let model: Box<dyn DynModel> = Box::new(CartPole::from_parameters(&[1.0, 0.3, 0.8, 9.81]).unwrap());
    assert_eq!(model.info().inputs, ["u"]);
    assert!(model.info().linearizes);
    let x = typed.state([0.1, 0.2], [0.3, -0.4]);
    let lin = model.linearize(0, 0.0, x.as_slice(), &[0.7]).unwrap();
    let expected = typed.linearize(0.0, &x, [0.7]).unwrap();
    assert_eq!(bits(lin.a.as_slice()), bits(expected.a.as_slice()));
    assert_eq!(bits(lin.b.as_slice()), bits(expected.b.as_slice()));
    // The inverse dynamics at the inputs: τ = 0 at the accelerations the push itself gives; the
    // force that gives those accelerations without the push is the push (on the cart).
    let pushed = VectorField::field(&typed.driven([0.7]), 0.0, &x).unwrap();
    let qdd = [pushed[2], pushed[3]];
    let none = model.inverse_dynamics(0, 0.0, x.as_slice(), &[0.7], &qdd).unwrap();
    let push = model.inverse_dynamics(0, 0.0, x.as_slice(), &[0.0], &qdd).unwrap();
    assert!(none.iter().all(|t| t.abs() < 1e-12) && (push[0] - 0.7).abs() < 1e-12 && push[1].abs() < 1e-12, "{none:?} {push:?}");
    // The static forces at the inputs, the typed method's to the bit; the inverse dynamics at
    // rest with no acceleration (the push held against: −u on the cart).
    let held = model.static_forces(0, 0.0, x.as_slice(), &[0.7]).unwrap();
    assert_eq!(bits(&held), bits(typed.driven([0.7]).static_forces(0.0, &x).as_slice()));
    let mut still = x;
    still[2] = 0.0;
    still[3] = 0.0;
    let at_rest = model.inverse_dynamics(0, 0.0, still.as_slice(), &[0.7], &[0.0, 0.0]).unwrap();
    assert!(held.iter().zip(&at_rest).all(|(a, b)| (a - b).abs() < 1e-12), "{held:?} {at_rest:?}");
    assert!(matches!(model.static_forces(0, 0.0, &[1.0], &[0.7]), Err(SimError::InvalidArgument(_))));
    // ∂τ/∂q and ∂τ/∂q̇ by rows, the typed method's to the bit; −M⁻¹ ∂τ/∂x at the field's own
    // accelerations is the field's Jacobian (A's lower half).
    let (dq, dv) = model.inverse_dynamics_jacobian(0, 0.0, x.as_slice(), &[0.7], &qdd).unwrap();
    let (tq, tv) = typed.driven([0.7]).inverse_dynamics_jacobian(0.0, &x, &qdd.into()).unwrap();
    assert_eq!((bits(&dq), bits(&dv)), (bits(tq.transpose().as_slice()), bits(tv.transpose().as_slice())));
    let m = typed.driven([0.7]).mass_matrix(0.0, &x);
    let minv = m.try_inverse().unwrap();
    let (aq, av) = (-minv * tq, -minv * tv);
    for i in 0..2 {
        for j in 0..2 {
            assert!((aq[(i, j)] - lin.a[(2 + i, j)]).abs() < 1e-12 && (av[(i, j)] - lin.a[(2 + i, 2 + j)]).abs() < 1e-12);
        }
    }
    assert!(matches!(model.inverse_dynamics_jacobian(0, 0.0, x.as_slice(), &[0.7], &[1.0]), Err(SimError::InvalidArgument(_))));
    // B = ∂F/∂u: the cart's acceleration per unit force at θ = 0 is 1/mc.
    let upright = model.linearize(0, 0.0, &[0.0; 4], &[0.0]).unwrap();
    assert!((upright.b[(2, 0)] - 1.0 / typed.mc).abs() < 1e-15);
    assert_eq!(
        bits(&model.field(0, 0.0, x.as_slice(), &[0.7]).unwrap()),
        bits(VectorField::field(&typed.driven([0.7]), 0.0, &x).unwrap().as_slice())
    );
    let sol = typed.run(x).span(0.0..2.0).inputs([0.7]).go().unwrap();
    let flat = model.run(&RunRequest::new(x.as_slice().to_vec(), 0.0..2.0).inputs(vec![0.7])).unwrap();
    assert_eq!(bits(&flat.times), bits(&sol.times));
    assert_eq!(bits(flat.state(flat.len() - 1)), bits(sol.states.last().unwrap().as_slice()));
    assert!(
        matches!(model.run(&RunRequest::new(x.as_slice().to_vec(), 0.0..2.0)), Err(e) if matches!(e.error, SimError::InvalidArgument(_)))
    );
}

/// The classical Runge–Kutta step with its exact Jacobians through the pointer: the typed
/// `step::rk4_step`'s to the bit; a model without inputs, or with impacts, has none (a typed
/// error, as a state of the wrong size).
#[test]
fn a_driven_model_steps_with_its_jacobians_as_the_typed_step() {
    let typed = CartPole { mc: 1.0, mp: 0.3, l: 0.8, g: 9.81 };
    let model: Box<dyn DynModel> = Box::new(CartPole::from_parameters(&[1.0, 0.3, 0.8, 9.81]).unwrap());
    let x = typed.state([0.1, 0.2], [0.3, -0.4]);
    let step = model.rk4_step(0, 0.5, x.as_slice(), &[0.7], 0.01).unwrap();
    let expected = routh::runtime::step::rk4_step(&typed, 0.5, &x, &routh::nalgebra::SVector::from([0.7]), 0.01).unwrap();
    assert_eq!(bits(&step.next), bits(expected.next.as_slice()));
    assert_eq!((bits(step.a.as_slice()), bits(step.b.as_slice())), (bits(expected.a.as_slice()), bits(expected.b.as_slice())));
    assert_eq!((step.a.shape(), step.b.shape()), ((4, 4), (4, 1)));
    assert!(matches!(model.rk4_step(0, 0.0, &[0.0; 3], &[0.7], 0.01), Err(SimError::InvalidArgument(_))));
    let unforced: Box<dyn DynModel> = Box::new(DoublePendulum::from_parameters(&[1.0, 1.0, 1.0, 1.0, 9.81, 0.1]).unwrap());
    let ball: Box<dyn DynModel> = Box::new(Ball::from_parameters(&[1.0, 9.81, 0.8]).unwrap());
    for (m, x) in [(&unforced, vec![0.1; 4]), (&ball, vec![1.0, 0.0])] {
        assert!(
            matches!(m.rk4_step(0, 0.0, &x, &[], 0.01), Err(SimError::InvalidArgument(e)) if e.contains("no step Jacobians")),
            "{}",
            m.info().name
        );
    }

    // The step alone, for any model: the typed `step::rk4` and the step's `next` to the bit, a
    // hundred steps of a plant's loop as the typed ones.
    let advanced = model.rk4_advance(0, 0.5, x.as_slice(), &[0.7], 0.01).unwrap();
    assert_eq!(bits(&advanced), bits(&step.next));
    let (mut flat, mut typed_x) = (x.as_slice().to_vec(), x);
    for k in 0..100 {
        let (t, u) = (0.5 + 0.01 * k as f64, [(0.1 * k as f64).sin()]);
        flat = model.rk4_advance(0, t, &flat, &u, 0.01).unwrap();
        typed_x = routh::runtime::step::rk4(&typed, t, &typed_x, &routh::nalgebra::SVector::from(u), 0.01).unwrap();
    }
    assert_eq!(bits(&flat), bits(typed_x.as_slice()));
    let pendulum = DoublePendulum { m1: 1.0, m2: 1.0, l1: 1.0, l2: 1.0, g: 9.81, b: 0.1 };
    let x = pendulum.state([0.3, -0.2], [0.1, 0.4]);
    // A model without inputs: RK4's stages by its typed field, in `step::rk4`'s order.
    let (h, f) = (0.01, |t: f64, x: &State<4>| routh::runtime::VectorField::field(&pendulum, t, x).unwrap());
    let k1 = f(0.0, &x);
    let k2 = f(h / 2.0, &(x + k1 * (h / 2.0)));
    let k3 = f(h / 2.0, &(x + k2 * (h / 2.0)));
    let k4 = f(h, &(x + k3 * h));
    let expected = x + (k1 + (k2 + k3) * 2.0 + k4) * (h / 6.0);
    assert_eq!(bits(&unforced.rk4_advance(0, 0.0, x.as_slice(), &[], h).unwrap()), bits(expected.as_slice()));
    assert!(matches!(model.rk4_advance(0, 0.0, &[0.0; 3], &[0.7], 0.01), Err(SimError::InvalidArgument(_))));
    assert!(
        matches!(model.rk4_advance(0, 0.0, &[0.0; 4], &[0.7], f64::NAN), Err(SimError::InvalidArgument(e)) if e.contains("finite"))
    );
}

/// iLQR through the pointer on flat data: the typed `ilqr::ilqr` over the RK4 step map to the
/// bit (states, inputs, gains, costs, status), bringing the cart-pole's pole up from 0.3 rad;
/// sizes checked, and a model without the step's Jacobians refused.
#[test]
fn ilqr_on_flat_data_is_the_typed_ilqr() {
    use routh::nalgebra::{DMatrix, SMatrix, SVector};
    use routh::runtime::erased::IlqrRequest;
    use routh::runtime::ilqr::{IlqrProblem, IlqrStatus, ilqr};
    let typed = CartPole { mc: 1.0, mp: 0.3, l: 0.8, g: 9.81 };
    let model: Box<dyn DynModel> = Box::new(CartPole::from_parameters(&[1.0, 0.3, 0.8, 9.81]).unwrap());
    let (steps, h) = (60, 0.025);
    let q = SMatrix::<f64, 4, 4>::from_diagonal(&SVector::from([1.0, 10.0, 0.1, 0.1]));
    let (r, qf) = (SMatrix::<f64, 1, 1>::new(0.1), q * 100.0);
    let x0 = typed.state([0.0, 0.3], [0.0, 0.0]);
    let problem =
        IlqrProblem::new((0.0, h, steps), SVector::zeros(), q, r, qf).limits(SVector::from([-8.0]), SVector::from([8.0]));
    let expected = ilqr(&typed, &problem, &x0, &vec![SVector::zeros(); steps]).unwrap();
    let dense = |m: &dyn Fn(usize, usize) -> f64, n: usize| DMatrix::from_fn(n, n, m);
    let mut request = IlqrRequest::new(
        x0.as_slice().to_vec(),
        vec![vec![0.0]; steps],
        h,
        vec![0.0; 4],
        (dense(&|i, j| q[(i, j)], 4), dense(&|_, _| r[(0, 0)], 1), dense(&|i, j| qf[(i, j)], 4)),
    );
    request.limits = Some((vec![-8.0], vec![8.0]));
    let flat = model.ilqr(&request).unwrap();
    assert_eq!(flat.status, expected.status);
    assert_eq!(expected.status, IlqrStatus::Converged);
    assert_eq!(bits(&flat.costs), bits(&expected.costs));
    for (a, b) in flat.states.iter().zip(&expected.states) {
        assert_eq!(bits(a), bits(b.as_slice()));
    }
    for (a, b) in flat.inputs.iter().zip(&expected.inputs) {
        assert_eq!(bits(a), bits(b.as_slice()));
        assert!(a[0].abs() <= 8.0);
    }
    for (a, b) in flat.gains.iter().zip(&expected.gains) {
        assert_eq!((a.shape(), bits(a.as_slice())), ((1, 4), bits(b.as_slice())));
    }
    assert!(flat.states[steps][1].abs() < 0.05 && flat.costs.windows(2).all(|c| c[1] <= c[0]), "{:?}", flat.states[steps]);
    // Wrong sizes: a guessed input of two components, a 3 × 3 Q.
    let mut wrong = request.clone();
    wrong.guess[3] = vec![0.0, 1.0];
    assert!(matches!(model.ilqr(&wrong), Err(SimError::InvalidArgument(_))));
    let mut wrong = request.clone();
    wrong.q = DMatrix::identity(3, 3);
    assert!(matches!(model.ilqr(&wrong), Err(SimError::InvalidArgument(e)) if e.contains("Q of CartPole must be 4 × 4")));
    let unforced: Box<dyn DynModel> = Box::new(DoublePendulum::from_parameters(&[1.0, 1.0, 1.0, 1.0, 9.81, 0.1]).unwrap());
    assert!(matches!(unforced.ilqr(&request), Err(SimError::InvalidArgument(e)) if e.contains("no step Jacobians")));
    // On the semi-implicit Euler step (`scheme`): the typed plan over `step::SemiImplicitEuler`.
    let mut euler = request.clone();
    euler.scheme = routh::runtime::erased::IlqrScheme::SemiImplicitEuler;
    let flat = model.ilqr(&euler).unwrap();
    let expected = ilqr(&routh::runtime::step::SemiImplicitEuler(&typed), &problem, &x0, &vec![SVector::zeros(); steps]).unwrap();
    assert_eq!((flat.status, bits(&flat.costs)), (expected.status, bits(&expected.costs)));
    for (a, b) in flat.inputs.iter().zip(&expected.inputs) {
        assert_eq!(bits(a), bits(b.as_slice()));
    }
}

#[test]
fn a_feedback_law_drives_the_run_as_the_typed_closure_does() {
    // LQR about the upright cart-pole: u = −K x from the linearisation, the same law as a typed
    // closure and as the request's linear law; the pendulum comes back upright.
    let typed = CartPole { mc: 1.0, mp: 0.3, l: 0.8, g: 9.81 };
    let up = State::<4>::zeros();
    let lin = typed.linearize(0.0, &up, [0.0]).unwrap();
    let gain = lin.lqr(&Matrix::<4, 4>::identity(), &Matrix::<1, 1>::identity()).unwrap().gain;
    let k = Matrix::<1, 4>::from_fn(|i, j| gain[(i, j)]);
    let x0 = typed.state([0.0, 0.1], [0.0, 0.0]);
    let law = move |_t: f64, x: &State<4>| -> Vector<1> { Vector::<1>::zeros() - k * (x - up) };
    let sol = typed.run(x0).span(0.0..10.0).inputs(law).go().unwrap();
    let rows: Vec<f64> = (0..4).map(|j| gain[(0, j)]).collect();
    let request = RunRequest::new(x0.as_slice().to_vec(), 0.0..10.0)
        .inputs(vec![0.0])
        .law(InputLaw::Linear { gain: rows.clone(), at: vec![0.0; 4] });
    let flat = DynModel::run(&typed, &request).unwrap();
    assert_eq!(bits(&flat.times), bits(&sol.times));
    assert_eq!(bits(flat.state(flat.len() - 1)), bits(sol.states.last().unwrap().as_slice()));
    let end = flat.state(flat.len() - 1);
    assert!(end[1].abs() < 1e-3 && end[0].abs() < 1e-2, "not back upright: {end:?}");
    // The same law as a function of (t, x).
    let function =
        InputLaw::Function(std::sync::Arc::new(move |_t, x: &[f64]| vec![-(0..4).map(|j| rows[j] * x[j]).sum::<f64>()]));
    let by_function = DynModel::run(&typed, &request.clone().law(function)).unwrap();
    let end_f = by_function.state(by_function.len() - 1);
    assert!(end_f.iter().zip(end).all(|(a, b)| (a - b).abs() < 1e-9));
    // A gain of the wrong size is a typed error.
    let wrong = request.law(InputLaw::Linear { gain: vec![1.0; 3], at: vec![0.0; 4] });
    assert!(matches!(DynModel::run(&typed, &wrong), Err(e) if matches!(e.error, SimError::InvalidArgument(_))));
}

#[test]
fn impacts_and_modes_come_out_flat_with_their_records() {
    let typed = Ball { m: 1.0, g: 9.81, e: 0.8 };
    let model: &dyn DynModel = &Ball::from_parameters(&[1.0, 9.81, 0.8]).unwrap();
    assert_eq!(model.info().impacts, ["floor"]);
    let x0 = typed.state([1.0], [0.0]);
    let sol = typed.run(x0).span(0.0..3.0).go().unwrap();
    let flat = model.run(&RunRequest::new(vec![1.0, 0.0], 0.0..3.0)).unwrap();
    assert_eq!(bits(&flat.times), bits(&sol.times));
    assert_eq!(flat.impacts.len(), sol.impacts.len());
    assert!(flat.impacts.len() >= 3);
    for (a, b) in flat.impacts.iter().zip(&sol.impacts) {
        assert_eq!((a.t.to_bits(), a.guard, bits(&a.post)), (b.t.to_bits(), b.guard, bits(b.post.as_slice())));
        // Restitution: the speed after is e times the speed before.
        assert!((a.post[1] + 0.8 * a.pre[1]).abs() < 1e-12);
    }
    assert!(matches!(Ball::from_parameters(&[1.0, 9.81, -0.5]), Err(SimError::InvalidParameter { name: "e", .. })));

    // Two modes: the run from the second one, mode by mode.
    let rod = Rod { m: 1.0, l: 1.0, r: 0.01, g: 1.0 };
    let model: &dyn DynModel = &Rod::from_parameters(&[1.0, 1.0, 0.01, 1.0]).unwrap();
    assert_eq!(model.info().modes, ["left", "right"]);
    let start = rod.right_state([0.6, 0.2], [0.0, -25.0]);
    let sol = rod.run(start).span(0.0..1.0).go().unwrap();
    let flat = model.run(&RunRequest::new(start.state.as_slice().to_vec(), 0.0..1.0).mode(Rod::RIGHT)).unwrap();
    assert_eq!(bits(&flat.times), bits(&sol.times));
    assert_eq!(flat.modes, sol.modes);
    assert!(flat.modes.contains(&0) && flat.modes.contains(&1));
    let x = sol.states[3];
    assert_eq!(model.energy(1, 0.0, x.as_slice()).unwrap().to_bits(), rod.right().energy(0.0, &x).to_bits());
    assert_eq!(bits(&model.momenta(0, 0.0, x.as_slice()).unwrap()), bits(rod.left().momenta(0.0, &x).as_slice()));
    assert_eq!(
        bits(&model.mass_matrix(1, 0.0, x.as_slice()).unwrap()),
        bits(rod.right().mass_matrix(0.0, &x).transpose().as_slice())
    );
    let qdd = [0.3, -0.2];
    assert_eq!(
        bits(&model.inverse_dynamics(1, 0.0, x.as_slice(), &[], &qdd).unwrap()),
        bits(rod.right().inverse_dynamics(0.0, &x, &qdd.into()).unwrap().as_slice())
    );
    // A model with modes generates its Jacobians (periodic orbits need them).
    let lin = model.linearize(1, 0.0, x.as_slice(), &[]).unwrap();
    assert_eq!(bits(lin.a.as_slice()), bits(rod.right().jacobian(0.0, &x).unwrap().as_slice()));
    assert_eq!(lin.b.ncols(), 0);
    assert!(
        matches!(model.run(&RunRequest::new(vec![0.0; 4], 0.0..1.0).mode(2)), Err(e) if matches!(e.error, SimError::InvalidMode { mode: 2, modes: 2 }))
    );
}

#[test]
fn a_constrained_run_is_projected_as_the_typed_one() {
    let typed = Pendulum { m: 1.0, g: 9.81, l: 1.0 };
    let model: &dyn DynModel = &Pendulum::from_parameters(&[1.0, 9.81, 1.0]).unwrap();
    let x0 = typed.state([0.6, -0.8], [0.0, 0.0]);
    let sol = typed.run(x0).span(0.0..3.0).go().unwrap();
    let flat = model.run(&RunRequest::new(x0.as_slice().to_vec(), 0.0..3.0)).unwrap();
    assert_eq!(bits(&flat.states), bits(&sol.states.iter().flat_map(|x| x.iter().copied()).collect::<Vec<_>>()));
    let end = flat.state(flat.len() - 1);
    assert!((end[0].hypot(end[1]) - 1.0).abs() < 1e-10, "on the rod: {end:?}");
    // An output of the rod's multiplier has no Jacobian generated: said, with the reason.
    assert!(
        matches!(model.output_jacobian(0, 0.0, x0.as_slice()), Err(SimError::InvalidArgument(why)) if why.contains("no output_jacobian") && why.contains("multiplier"))
    );
}
