//! Discrete-time control products on the cart-pole (4 states, 1 input; a generated model with its
//! symbolic ∂F/∂x and ∂F/∂u): one RK4 step with its exact Jacobians A_d, B_d
//! (`runtime::step::rk4_step`) against the baseline a user would otherwise run in the same process —
//! forward differences of the step, D + K + 1 = 6 RK4 steps — and against the D + K + 1 field
//! evaluations the issue measures it by. The two agree to 1e-6 before timing. The continuous and
//! discrete Riccati solves (`lqr::care`, `lqr::dare`) of its 4 × 4 linearisation are timed for scale.
//!
//! The six-joint arm of `tests/robots/arm6.urdf` read with a torque on each joint (spatial links of
//! revolute joints): its linearisation (A and B, the runtime's analytic derivatives of the inverse
//! dynamics sharing one factorisation of M) against forward differences of its field, D + K + 1 = 19
//! field evaluations, after checking that the two agree to 1e-5; and one RK4 step with its exact
//! A_d and B_d.
//!
//! The same cart-pole through its midpoint variational integrator with the input in its discrete
//! forces: one step (Newton on the discrete Legendre map) with its exact Jacobians over (q, p) and u
//! (`runtime::discrete::input_step_jacobian`, the implicit function theorem on the symbolic blocks)
//! against forward differences of the solved step, 2N + K + 1 = 6 steps, after checking that the
//! two agree to 1e-6.
//!
//! A cart-pole whose pole is damped through an action variable (a Herglotz Lagrangian) through its
//! contact integrator as a step map over (q, p, z) (`runtime::step::ContactMap`): one step with its
//! exact Jacobians over (q, p, z) and u (`runtime::discrete::contact_input_step_jacobian`) against
//! forward differences of the solved step, 2N + 1 + K + 1 = 7 steps, after checking that the two
//! agree to 1e-6.
//!
//! The quadruped of `tests/robots/quadruped.urdf` (a floating base, twelve leg joints, a torque on
//! each) linearised in the tangent chart of its base's orientation (`linearize_tangent`: the links'
//! derivatives over the velocities charted directly, `runtime::linearize::tangent`) against the
//! route through the quaternion state a model without links takes (`jacobian`, M, B and the field,
//! moved into the chart by `linearize::constrained_with_orientations`), and `linearize_chart` (the
//! same A and B as fixed-size matrices, without names, embedding or mechanical form), after
//! checking that the three agree to 1e-10.
//!
//! One iLQR iteration of the arm over 30 RK4 steps of 10 ms (a model-predictive controller's
//! real-time iteration: the rollout with its 30 step linearisations, the backward pass, the line
//! search, the linearisations about the accepted trajectory and the final gains): one step after
//! another, with the linearisations shared among the cores (`IlqrProblem::parallel`, the same plan
//! to the bit, checked first), without the gains about the final trajectory
//! (`IlqrProblem::final_gains(false)`: the same plan, no gains, checked first), and on the
//! semi-implicit Euler map.
//!
//! A spacecraft turned by body torques on its Lie group variational integrator
//! (`runtime::step::OrientedMap`): one step with its exact A_d, B_d in the chart (η, δμ)
//! (`runtime::discrete::oriented_input_step_jacobian`) against forward differences of the solved
//! step in the same chart, 2N + K + 1 = 10 steps, after checking that the two agree to 1e-6.
//!
//! `cargo bench --bench control` prints the ratios.

use criterion::{Criterion, criterion_group, criterion_main};
use routh::nalgebra::{DMatrix, SMatrix, SVector};
use routh::prelude::*;
use routh::runtime::lqr::{care, dare};
use routh::runtime::step::rk4_step;
use routh::runtime::{InputSystem, VectorField};
use std::hint::black_box;

#[derive(Mechanics)]
#[mechanics(
    coordinates(x, th),
    input(u),
    define(px = x + l * th.sin(), py = l * th.cos()),
    lagrangian = mc / 2 * dot(x).powi(2) + mp / 2 * (dot(px).powi(2) + dot(py).powi(2)) - mp * g * py,
    force(x = u - b * dot(x)),
    jacobian,
    discrete(rule = midpoint),
)]
struct CartPole {
    mc: f64,
    mp: f64,
    l: f64,
    g: f64,
    b: f64,
}

#[derive(Mechanics)]
#[mechanics(urdf(path = "../tests/robots/arm6.urdf", inputs = u), gravity = [0, 0, -g])]
struct Arm6 {
    g: f64,
}

#[derive(Mechanics)]
#[mechanics(urdf(path = "../tests/robots/quadruped.urdf", inputs = u), gravity = [0, 0, -g])]
struct Quadruped {
    g: f64,
}

#[derive(Mechanics)]
#[mechanics(
    coordinates(x, th),
    action(z),
    input(u),
    lagrangian = (mc + m) / 2 * dot(x).powi(2) + m * l * cos(th) * dot(x) * dot(th) + m * l.powi(2) / 2 * dot(th).powi(2)
        + m * g * l * cos(th) - gamma * (1 + cos(th) / 4) * z,
    force(x = u),
    discrete(rule = midpoint),
)]
struct ContactCartPole {
    mc: f64,
    m: f64,
    l: f64,
    g: f64,
    gamma: f64,
}

/// A and B of the arm by forward differences of its field: D + K + 1 evaluations.
fn arm_differenced(p: &Arm6, x: &SVector<f64, 12>, u: &SVector<f64, 6>) -> (SMatrix<f64, 12, 12>, SMatrix<f64, 12, 6>) {
    let f = |y: &SVector<f64, 12>, v: &SVector<f64, 6>| p.field_with_input(0.0, y, v).unwrap();
    let base = f(x, u);
    let d = 1e-7;
    let mut a = SMatrix::<f64, 12, 12>::zeros();
    for c in 0..12 {
        a.set_column(c, &((f(&(x + SVector::<f64, 12>::ith(c, d)), u) - base) / d));
    }
    let mut b = SMatrix::<f64, 12, 6>::zeros();
    for c in 0..6 {
        b.set_column(c, &((f(x, &(u + SVector::<f64, 6>::ith(c, d))) - base) / d));
    }
    (a, b)
}

/// The arm's linearisation against forward differences of its field, printed as ratios.
fn arm(c: &mut Criterion) {
    let p = Arm6 { g: 9.81 };
    let x = SVector::<f64, 12>::from_fn(|i, _| 0.3 - 0.11 * i as f64);
    let u = SVector::<f64, 6>::from_fn(|i, _| 0.5 - 0.2 * i as f64);
    let uu: [f64; 6] = u.into();
    let exact = p.linearize(0.0, &x, uu).unwrap();
    let (a, b) = arm_differenced(&p, &x, &u);
    let scale = exact.a.amax().max(exact.b.amax());
    assert!((exact.a - a).amax() < 1e-5 * scale && (exact.b - b).amax() < 1e-5 * scale, "{} {}", exact.a - a, exact.b - b);
    let time = |f: &dyn Fn()| per_call(100_000, f);
    let driven = p.driven(uu);
    let (t_lin, t_fd, t_field, t_step) = (
        time(&|| {
            black_box(p.linearize(0.0, black_box(&x), uu).unwrap());
        }),
        time(&|| {
            black_box(arm_differenced(&p, black_box(&x), &u));
        }),
        time(&|| {
            black_box(driven.field(0.0, black_box(&x)).unwrap());
        }),
        time(&|| {
            black_box(rk4_step(&p, 0.0, black_box(&x), &u, 0.01).unwrap());
        }),
    );
    println!(
        "arm6 linearize (A, B analytic along the links): {:.0} ns = {:.2}× forward differences of the field ({:.0} ns, \
         19 evaluations) = {:.1} field evaluations ({:.0} ns each); RK4 step with exact A_d, B_d {:.0} ns = {:.1} field evaluations",
        1e9 * t_lin,
        t_lin / t_fd,
        1e9 * t_fd,
        t_lin / t_field,
        1e9 * t_field,
        1e9 * t_step,
        t_step / t_field
    );
    let mut group = c.benchmark_group("control");
    group.bench_function("arm6/linearize", |bch| bch.iter(|| p.linearize(0.0, black_box(&x), uu)));
    group.bench_function("arm6/differences", |bch| bch.iter(|| arm_differenced(&p, black_box(&x), &u)));
    group.finish();
}

/// One iLQR iteration of the arm over 30 RK4 steps, one step after another and on all cores, and
/// on the semi-implicit Euler map, printed as ratios.
fn arm_plans(c: &mut Criterion) {
    use routh::runtime::ilqr::{IlqrProblem, ilqr};
    use routh::runtime::step::SemiImplicitEuler;
    let p = Arm6 { g: 9.81 };
    let start = SVector::<f64, 12>::from_fn(|i, _| if i < 6 { 0.4 - 0.3 * i as f64 } else { 0.0 });
    let goal = SVector::<f64, 12>::from_fn(|i, _| if i < 6 { 0.1 * i as f64 - 0.2 } else { 0.0 });
    let q = SMatrix::<f64, 12, 12>::from_diagonal(&SVector::from_fn(|i, _| if i < 6 { 100.0 } else { 1.0 }));
    let problem = IlqrProblem::new((0.0, 0.01, 30), goal, q, SMatrix::<f64, 6, 6>::identity() * 1e-3, q * 10.0).max_iterations(1);
    let shared = problem.clone().parallel(true);
    let bare = problem.clone().final_gains(false);
    let guess = vec![SVector::<f64, 6>::zeros(); 30];
    let (one, many) = (ilqr(&p, &problem, &start, &guess).unwrap(), ilqr(&p, &shared, &start, &guess).unwrap());
    assert!(one.inputs == many.inputs && one.gains == many.gains && one.costs.len() == 2, "{:?}", one.costs);
    let without = ilqr(&p, &bare, &start, &guess).unwrap();
    assert!(one.inputs == without.inputs && one.costs == without.costs && without.gains.is_empty());
    let euler = SemiImplicitEuler(&p);
    // Each timed after 50 calls of its own: rayon's threads started and awake.
    let time = |f: &dyn Fn()| {
        per_call(50, f);
        per_call(500, f)
    };
    let (t_one, t_many, t_bare, t_euler) = (
        time(&|| {
            black_box(ilqr(&p, &problem, black_box(&start), &guess).unwrap());
        }),
        time(&|| {
            black_box(ilqr(&p, &shared, black_box(&start), &guess).unwrap());
        }),
        time(&|| {
            black_box(ilqr(&p, &bare, black_box(&start), &guess).unwrap());
        }),
        time(&|| {
            black_box(ilqr(&euler, &problem, black_box(&start), &guess).unwrap());
        }),
    );
    println!(
        "arm6 one iLQR iteration over 30 RK4 steps: {:.0} µs; linearised on {} threads {:.0} µs ({:.2}×); without \
         final gains {:.0} µs ({:.2}×); on the semi-implicit Euler map {:.0} µs ({:.2}×)",
        1e6 * t_one,
        rayon_threads(),
        1e6 * t_many,
        t_many / t_one,
        1e6 * t_bare,
        t_bare / t_one,
        1e6 * t_euler,
        t_euler / t_one
    );
    let mut group = c.benchmark_group("control");
    group.bench_function("arm6/ilqr_iteration", |bch| bch.iter(|| ilqr(&p, &problem, black_box(&start), &guess)));
    group.bench_function("arm6/ilqr_iteration_parallel", |bch| bch.iter(|| ilqr(&p, &shared, black_box(&start), &guess)));
    group
        .bench_function("arm6/ilqr_iteration_without_final_gains", |bch| bch.iter(|| ilqr(&p, &bare, black_box(&start), &guess)));
    group.bench_function("arm6/ilqr_iteration_euler", |bch| bch.iter(|| ilqr(&euler, &problem, black_box(&start), &guess)));
    group.finish();
}

/// The cores rayon's global pool would use (its `RAYON_NUM_THREADS`, else the machine's).
fn rayon_threads() -> usize {
    std::env::var("RAYON_NUM_THREADS")
        .ok()
        .and_then(|n| n.parse().ok())
        .filter(|&n| n > 0)
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, std::num::NonZero::get))
}

/// The quadruped's tangent linearisation through its quaternion state: the field's Jacobian, M,
/// B and the field moved into the chart by the runtime.
fn quadruped_through_quaternions(
    view: &QuadrupedDriven,
    x: &SVector<f64, 37>,
) -> routh::runtime::linearize::ConstrainedLinearization {
    use routh::runtime::linearize::{Oriented, Selection, constrained_with_orientations};
    let jacobian = view.jacobian(0.0, x).unwrap();
    let mass = DMatrix::from_column_slice(18, 18, view.mass_matrix(0.0, x).as_slice());
    let inputs = DMatrix::from_column_slice(37, 12, view.input_jacobian(0.0, x).unwrap().as_slice());
    let field = view.field(0.0, x).unwrap();
    let at = Oriented::new(&Quadruped::COORDINATES, &["base_q"], x, &field);
    // The chart: the ordinary coordinates, then the base's body rotation vector (its quaternion is last).
    let mut chart: Vec<String> = Quadruped::COORDINATES[..15].iter().map(ToString::to_string).collect();
    chart.extend((1..=3).map(|a| format!("theta{a}(base_q)")));
    let selection = Selection::new().coordinates(chart.clone()).velocities(chart);
    constrained_with_orientations(&at, (&jacobian, &inputs), (&DMatrix::zeros(0, 37), &mass), &selection).unwrap()
}

fn quadruped(c: &mut Criterion) {
    let p = Quadruped { g: 9.81 };
    let view = p.driven([0.1; 12]);
    let x = SVector::<f64, 37>::from_fn(|i, _| 0.1 + 0.37 * ((i * 7919) % 13) as f64 / 13.0 - 0.2 * (i % 2) as f64);
    let (fast, slow) = (view.linearize_tangent(0.0, &x).unwrap(), quadruped_through_quaternions(&view, &x));
    assert_eq!(fast.states, slow.states);
    let scale = slow.a.amax().max(slow.b.amax());
    assert!((&fast.a - &slow.a).amax() < 1e-10 * scale && (&fast.b - &slow.b).amax() < 1e-10 * scale);
    // linearize_chart: the same A and B as fixed-size matrices.
    let chart = view.linearize_chart(0.0, &x).unwrap();
    let (chart_a, chart_b) =
        (DMatrix::from_column_slice(36, 36, chart.a.as_slice()), DMatrix::from_column_slice(36, 12, chart.b.as_slice()));
    assert!((&chart_a - &slow.a).amax() < 1e-10 * scale && (&chart_b - &slow.b).amax() < 1e-10 * scale);
    let time = |f: &dyn Fn()| per_call(20_000, f);
    let (t_fast, t_chart, t_slow) = (
        time(&|| {
            black_box(view.linearize_tangent(0.0, black_box(&x)).unwrap());
        }),
        time(&|| {
            black_box(view.linearize_chart(0.0, black_box(&x)).unwrap());
        }),
        time(&|| {
            black_box(quadruped_through_quaternions(&view, black_box(&x)));
        }),
    );
    println!(
        "quadruped linearize_tangent (the links' derivatives in the chart): {:.0} ns = {:.2}× the route through the \
         quaternion state ({:.0} ns); linearize_chart (A and B alone, fixed-size) {:.0} ns = {:.2}×",
        1e9 * t_fast,
        t_fast / t_slow,
        1e9 * t_slow,
        1e9 * t_chart,
        t_chart / t_slow
    );
    let mut group = c.benchmark_group("control");
    group.bench_function("quadruped/linearize_tangent", |bch| bch.iter(|| view.linearize_tangent(0.0, black_box(&x))));
    group.bench_function("quadruped/linearize_chart", |bch| bch.iter(|| view.linearize_chart(0.0, black_box(&x))));
    group.bench_function("quadruped/through_quaternions", |bch| bch.iter(|| quadruped_through_quaternions(&view, black_box(&x))));
    group.finish();
}

/// One RK4 step of `p` with the input held, without Jacobians.
fn plain_step(p: &CartPole, x: &SVector<f64, 4>, u: &SVector<f64, 1>, h: f64) -> SVector<f64, 4> {
    let f = |y: &SVector<f64, 4>| p.field_with_input(0.0, y, u).unwrap();
    let k1 = f(x);
    let k2 = f(&(x + k1 * (h / 2.0)));
    let k3 = f(&(x + k2 * (h / 2.0)));
    let k4 = f(&(x + k3 * h));
    x + (k1 + (k2 + k3) * 2.0 + k4) * (h / 6.0)
}

/// A_d and B_d by forward differences of the step: D + K + 1 steps.
fn differenced(p: &CartPole, x: &SVector<f64, 4>, u: &SVector<f64, 1>, h: f64) -> (SMatrix<f64, 4, 4>, SMatrix<f64, 4, 1>) {
    let base = plain_step(p, x, u, h);
    let d = 1e-7;
    let a = SMatrix::<f64, 4, 4>::from_fn(|r, c| (plain_step(p, &(x + SVector::<f64, 4>::ith(c, d)), u, h)[r] - base[r]) / d);
    let shifted = plain_step(p, x, &(u + SVector::<f64, 1>::new(d)), h);
    (a, (shifted - base) / d)
}

type Pair = SVector<f64, 2>;

/// Seconds per call of `f` over `calls` calls (the printed ratios' timing, one process).
fn per_call(calls: u32, f: &dyn Fn()) -> f64 {
    let start = std::time::Instant::now();
    for _ in 0..calls {
        f();
    }
    start.elapsed().as_secs_f64() / f64::from(calls)
}

/// One variational step of the cart-pole from (q, p) with the input held: (q_k+1, p_k+1).
fn variational_step(p: &CartPole, z: &SVector<f64, 4>, u: f64, h: f64) -> SVector<f64, 4> {
    let (q, m) = (Pair::new(z[0], z[1]), Pair::new(z[2], z[3]));
    let options = DiscreteOptions::default();
    let s = routh::runtime::discrete::discrete_step(&p.driven([u]), (0.0, h), (&q, &m), q, &options).unwrap();
    SVector::<f64, 4>::new(s.position[0], s.position[1], s.momentum[0], s.momentum[1])
}

/// The step and its exact Jacobians A_d, B_d over (q, p) and u.
fn variational_jacobians(p: &CartPole, z: &SVector<f64, 4>, u: f64, h: f64) -> (SMatrix<f64, 4, 4>, SMatrix<f64, 4, 1>) {
    let (q, m) = (Pair::new(z[0], z[1]), Pair::new(z[2], z[3]));
    let view = p.driven([u]);
    let s = routh::runtime::discrete::discrete_step(&view, (0.0, h), (&q, &m), q, &DiscreteOptions::default()).unwrap();
    let j = routh::runtime::discrete::input_step_jacobian(&view, 0.0, h, &q, &s.position).unwrap().unwrap();
    (j.state_matrix::<4>(), j.input_matrix::<4>())
}

/// A_d and B_d of the variational step by forward differences: 2N + K + 1 steps.
fn variational_differenced(p: &CartPole, z: &SVector<f64, 4>, u: f64, h: f64) -> (SMatrix<f64, 4, 4>, SMatrix<f64, 4, 1>) {
    let base = variational_step(p, z, u, h);
    let d = 1e-7;
    let a =
        SMatrix::<f64, 4, 4>::from_fn(|r, c| (variational_step(p, &(z + SVector::<f64, 4>::ith(c, d)), u, h)[r] - base[r]) / d);
    (a, (variational_step(p, z, u + d, h) - base) / d)
}

fn variational(c: &mut Criterion) {
    let p = CartPole { mc: 1.5, mp: 0.4, l: 0.7, g: 9.81, b: 0.1 };
    let (z, u, h) = (SVector::<f64, 4>::new(0.2, 0.3, -0.1, 0.4), 0.8, 0.02);
    let (a, b) = variational_jacobians(&p, &z, u, h);
    let (fa, fb) = variational_differenced(&p, &z, u, h);
    assert!((a - fa).amax() < 1e-6 && (b - fb).amax() < 1e-6, "{} {}", a - fa, b - fb);
    let time = |f: &dyn Fn()| per_call(100_000, f);
    let (t_exact, t_fd) = (
        time(&|| {
            black_box(variational_jacobians(&p, black_box(&z), u, h));
        }),
        time(&|| {
            black_box(variational_differenced(&p, black_box(&z), u, h));
        }),
    );
    println!(
        "cart-pole variational (midpoint) step with exact A_d, B_d: {:.0} ns = {:.2}× forward differences of the step ({:.0} ns, \
         6 steps)",
        1e9 * t_exact,
        t_exact / t_fd,
        1e9 * t_fd
    );
    let mut group = c.benchmark_group("control");
    group
        .bench_function("cartpole/variational_step_jacobians", |bch| bch.iter(|| variational_jacobians(&p, black_box(&z), u, h)));
    group.bench_function("cartpole/variational_step_differences", |bch| {
        bch.iter(|| variational_differenced(&p, black_box(&z), u, h))
    });
    group.finish();
}

fn bench(c: &mut Criterion) {
    let p = CartPole { mc: 1.5, mp: 0.4, l: 0.7, g: 9.81, b: 0.1 };
    let (x, u, h) = (SVector::<f64, 4>::new(0.2, 0.3, -0.1, 0.4), SVector::<f64, 1>::new(0.8), 0.02);
    let exact = rk4_step(&p, 0.0, &x, &u, h).unwrap();
    let (a, b) = differenced(&p, &x, &u, h);
    assert!((exact.a - a).amax() < 1e-6 && (exact.b - b).amax() < 1e-6, "{} {}", exact.a - a, exact.b - b);
    assert!((exact.next - plain_step(&p, &x, &u, h)).amax() < 1e-15);

    let time = |f: &dyn Fn()| per_call(200_000, f);
    let driven = p.driven([u[0]]);
    let (t_exact, t_fd, t_fields) = (
        time(&|| {
            black_box(rk4_step(&p, 0.0, black_box(&x), &u, h).unwrap());
        }),
        time(&|| {
            black_box(differenced(&p, black_box(&x), &u, h));
        }),
        time(&|| {
            for _ in 0..6 {
                black_box(driven.field(0.0, black_box(&x)).unwrap());
            }
        }),
    );
    println!(
        "cart-pole RK4 step with exact A_d, B_d: {:.0} ns = {:.2}× forward differences of the step ({:.0} ns, 6 steps), \
         {:.2}× D + K + 1 = 6 field evaluations ({:.0} ns)",
        1e9 * t_exact,
        t_exact / t_fd,
        1e9 * t_fd,
        t_exact / t_fields,
        1e9 * t_fields
    );

    let lin = p.linearize(0.0, &p.state([0.0, 0.0], [0.0, 0.0]), [0.0]).unwrap();
    let dynamic = |m: &[f64], rows: usize| DMatrix::from_column_slice(rows, m.len() / rows, m);
    let (ac, bc) = (dynamic(lin.a.as_slice(), 4), dynamic(lin.b.as_slice(), 4));
    let step = rk4_step(&p, 0.0, &SVector::zeros(), &SVector::zeros(), h).unwrap();
    let (ad, bd) = (dynamic(step.a.as_slice(), 4), dynamic(step.b.as_slice(), 4));
    let q = DMatrix::from_diagonal(&routh::nalgebra::DVector::from_vec(vec![1.0, 10.0, 0.1, 0.1]));
    let r = DMatrix::from_element(1, 1, 0.5);

    let mut group = c.benchmark_group("control");
    group.bench_function("cartpole/rk4_step_jacobians", |bch| bch.iter(|| rk4_step(&p, 0.0, black_box(&x), &u, h)));
    group.bench_function("cartpole/step_differences", |bch| bch.iter(|| differenced(&p, black_box(&x), &u, h)));
    group.bench_function("cartpole/care", |bch| bch.iter(|| care(black_box(&ac), &bc, &q, &r)));
    group.bench_function("cartpole/dare", |bch| bch.iter(|| dare(black_box(&ad), &bd, &q, &r)));
    group.finish();
}

/// The contact cart-pole's step map with its exact A_d, B_d against forward differences of its step.
fn contact(c: &mut Criterion) {
    use routh::runtime::step::{ContactMap, StepMap};
    let p = ContactCartPole { mc: 1.0, m: 0.3, l: 0.6, g: 9.81, gamma: 0.4 };
    let map = ContactMap::<_, 2>::new(&p);
    let (x, u, h) = (SVector::<f64, 5>::new(0.2, 0.3, -0.1, 0.4, 0.5), SVector::<f64, 1>::new(0.8), 0.02);
    let exact = || map.step(0.0, &x, &u, h).unwrap();
    let differenced = || {
        let base = map.advance(0.0, &x, &u, h).unwrap();
        let d = 1e-7;
        let a = SMatrix::<f64, 5, 5>::from_fn(|r, c| {
            (map.advance(0.0, &(x + SVector::<f64, 5>::ith(c, d)), &u, h).unwrap()[r] - base[r]) / d
        });
        let b = (map.advance(0.0, &x, &(u + SVector::<f64, 1>::new(d)), h).unwrap() - base) / d;
        (a, b)
    };
    let (j, (fa, fb)) = (exact(), differenced());
    assert!((j.a - fa).amax() < 1e-6 && (j.b - fb).amax() < 1e-6, "{} {}", j.a - fa, j.b - fb);
    let time = |f: &dyn Fn()| per_call(100_000, f);
    let (t_exact, t_fd) = (
        time(&|| {
            black_box(exact());
        }),
        time(&|| {
            black_box(differenced());
        }),
    );
    println!(
        "contact cart-pole (midpoint) step with exact A_d, B_d over (q, p, z): {:.0} ns = {:.2}× forward differences of the \
         step ({:.0} ns, 7 steps)",
        1e9 * t_exact,
        t_exact / t_fd,
        1e9 * t_fd
    );
    let mut group = c.benchmark_group("control");
    group.bench_function("contact_cartpole/step_jacobians", |bch| bch.iter(|| black_box(exact())));
    group.bench_function("contact_cartpole/step_differences", |bch| bch.iter(|| black_box(differenced())));
    group.finish();
}

include!("../tests/common/craft.rs");

type Craft7 = SVector<f64, 7>;

/// The craft's state moved along the chart (η, δμ) by `d`.
fn craft_moved(x: &Craft7, d: &SVector<f64, 6>) -> Craft7 {
    let q = routh::nalgebra::UnitQuaternion::from_quaternion(routh::nalgebra::Quaternion::new(x[0], x[1], x[2], x[3]))
        * routh::nalgebra::UnitQuaternion::from_scaled_axis(routh::nalgebra::Vector3::new(d[0], d[1], d[2]));
    Craft7::from([q.w, q.i, q.j, q.k, x[4] + d[3], x[5] + d[4], x[6] + d[5]])
}

/// A_d and B_d of the craft's step in the chart by forward differences: 2N + K + 1 = 10 steps.
fn oriented_differenced(
    map: &routh::runtime::step::OrientedMap<'_, Craft, 4, 3>,
    x: &Craft7,
    u: &SVector<f64, 3>,
    h: f64,
) -> (SMatrix<f64, 6, 6>, SMatrix<f64, 6, 3>) {
    type Map<'a> = routh::runtime::step::OrientedMap<'a, Craft, 4, 3>;
    let base = map.advance(0.0, x, u, h).unwrap();
    let d = 1e-7;
    let mut a = SMatrix::<f64, 6, 6>::zeros();
    for c in 0..6 {
        let next = map.advance(0.0, &craft_moved(x, &SVector::<f64, 6>::ith(c, d)), u, h).unwrap();
        a.set_column(c, &(Map::difference::<7, 6>(&next, &base) / d));
    }
    let mut b = SMatrix::<f64, 6, 3>::zeros();
    for c in 0..3 {
        let next = map.advance(0.0, x, &(u + SVector::<f64, 3>::ith(c, d)), h).unwrap();
        b.set_column(c, &(Map::difference::<7, 6>(&next, &base) / d));
    }
    (a, b)
}

fn oriented(c: &mut Criterion) {
    use routh::runtime::step::OrientedMap;
    let craft = Craft { m: 3.0, i1: 1.5, i2: 2.5, i3: 4.0 };
    let map = OrientedMap::<_, 4, 3>::new(&craft);
    let q = routh::nalgebra::UnitQuaternion::from_euler_angles(0.3, -0.5, 1.1);
    let (x, u, h) = (Craft7::from([q.w, q.i, q.j, q.k, 0.4, -0.7, 1.3]), SVector::<f64, 3>::new(0.2, -0.1, 0.35), 0.05);
    let step = map.step::<7, 6, 3>(0.0, &x, &u, h).unwrap();
    let (fa, fb) = oriented_differenced(&map, &x, &u, h);
    assert!((step.a - fa).amax() < 1e-6 && (step.b - fb).amax() < 1e-6, "{} {}", step.a - fa, step.b - fb);
    let time = |f: &dyn Fn()| per_call(100_000, f);
    let (t_exact, t_fd) = (
        time(&|| {
            black_box(map.step::<7, 6, 3>(0.0, black_box(&x), &u, h).unwrap());
        }),
        time(&|| {
            black_box(oriented_differenced(&map, black_box(&x), &u, h));
        }),
    );
    println!(
        "spacecraft Lie group variational (midpoint) step with exact A_d, B_d in the chart: {:.0} ns = {:.2}× forward \
         differences of the step ({:.0} ns, 10 steps)",
        1e9 * t_exact,
        t_exact / t_fd,
        1e9 * t_fd
    );
    let mut group = c.benchmark_group("control");
    group.bench_function("craft/oriented_step_jacobians", |bch| bch.iter(|| map.step::<7, 6, 3>(0.0, black_box(&x), &u, h)));
    group.bench_function("craft/oriented_step_differences", |bch| bch.iter(|| oriented_differenced(&map, black_box(&x), &u, h)));
    group.finish();
}

criterion_group!(benches, bench, arm, arm_plans, quadruped, variational, contact, oriented);
criterion_main!(benches);
