//! Inputs, parameter sensitivities and linearisation: the cart-pole driven by a force on the cart,
//! linearised about its upright equilibrium against the closed form, ∂F/∂u and ∂F/∂p against
//! finite differences, and a state-feedback law designed on (A, B) that balances the nonlinear model.

mod common;

use common::rel_err;
use routh::nalgebra::{Matrix4, SMatrix, SVector, Vector4};
use routh::prelude::*;
use routh::runtime::VectorField;

/// A cart (mass mc) on a line and a pole (a point mass mp at length l, θ from upright) driven by
/// the horizontal force u on the cart.
#[derive(Mechanics)]
#[mechanics(
    coordinates(x, th),
    input(u),
    define(px = x + l * th.sin(), py = l * th.cos()),
    lagrangian = mc / 2 * dot(x).powi(2) + mp / 2 * (dot(px).powi(2) + dot(py).powi(2)) - mp * g * py,
    force(x = u - b * dot(x)),
    sensitivity(mc, mp, l, g, b),
)]
struct CartPole {
    mc: f64,
    mp: f64,
    l: f64,
    g: f64,
    b: f64,
}

fn cart_pole() -> CartPole {
    CartPole { mc: 1.5, mp: 0.4, l: 0.7, g: 9.81, b: 0.0 }
}

#[test]
fn upright_linearisation_matches_the_closed_form() {
    let p = cart_pole();
    assert_eq!(CartPole::INPUTS, ["u"]);
    assert_eq!(CartPole::PARAMETERS, ["mc", "mp", "l", "g", "b"]);
    assert_eq!(CartPole::SENSITIVITY, CartPole::PARAMETERS);
    let lin = p.linearize(0.0, &p.state([0.3, 0.0], [0.0, 0.0]), [0.0]).unwrap();
    // (M + m)ẍ + m l θ̈ = u, ẍ + l θ̈ − g θ = 0 about θ = 0:
    // ẍ = (u − m g θ)/M, θ̈ = ((M + m) g θ − u)/(M l).
    let (mc, mp, l, g) = (p.mc, p.mp, p.l, p.g);
    let a = Matrix4::new(
        0.0,
        0.0,
        1.0,
        0.0, //
        0.0,
        0.0,
        0.0,
        1.0, //
        0.0,
        -mp * g / mc,
        0.0,
        0.0, //
        0.0,
        (mc + mp) * g / (mc * l),
        0.0,
        0.0,
    );
    let b = Vector4::new(0.0, 0.0, 1.0 / mc, -1.0 / (mc * l));
    assert!((lin.a - a).amax() < 1e-13, "A = {}", lin.a);
    assert!((lin.b - b).amax() < 1e-13, "B = {}", lin.b);
}

#[test]
fn input_and_parameter_jacobians_match_finite_differences() {
    let p = CartPole { b: 0.2, ..cart_pole() };
    let mut rng = common::Rng::new(3);
    for _ in 0..10 {
        let x: SVector<f64, 4> = rng.vector(-1.0, 1.0);
        let u = [rng.uniform(-2.0, 2.0)];
        let t = 0.0;
        // ∂F/∂u.
        let h = 1e-6;
        let fd_u = (p.driven([u[0] + h]).field(t, &x).unwrap() - p.driven([u[0] - h]).field(t, &x).unwrap()) / (2.0 * h);
        let b = p.driven(u).input_jacobian(t, &x).unwrap();
        assert!((b.column(0) - fd_u).amax() < 1e-8);
        // ∂F/∂p, column by column, perturbing the struct's fields.
        let exact = p.driven(u).parameter_jacobian(t, &x).unwrap();
        let perturb = |k: usize, d: f64| {
            let mut q = CartPole { ..p };
            match k {
                0 => q.mc += d,
                1 => q.mp += d,
                2 => q.l += d,
                3 => q.g += d,
                _ => q.b += d,
            }
            q.driven(u).field(t, &x).unwrap()
        };
        let fd = SMatrix::<f64, 4, 5>::from_fn(|r, c| (perturb(c, h)[r] - perturb(c, -h)[r]) / (2.0 * h));
        assert!(rel_err(&exact, &fd) < 1e-7, "{exact} against {fd}");
    }
}

#[test]
fn a_feedback_law_designed_on_the_linearisation_balances_the_pole() {
    // Pole placement (Ackermann) on (A, B) at the upright equilibrium: all closed-loop poles at −3.
    let p = cart_pole();
    let lin = p.linearize(0.0, &p.state([0.0, 0.0], [0.0, 0.0]), [0.0]).unwrap();
    let (a, b) = (lin.a, lin.b);
    let ctrb = SMatrix::<f64, 4, 4>::from_columns(&[b.column(0).into_owned(), a * b, a * a * b, a * a * a * b]);
    let s = 3.0;
    let i = Matrix4::identity();
    // p(A) = (A + 3I)⁴.
    let poly = (a + s * i) * (a + s * i) * (a + s * i) * (a + s * i);
    let k: SMatrix<f64, 1, 4> = SMatrix::<f64, 1, 4>::new(0.0, 0.0, 0.0, 1.0) * ctrb.try_inverse().unwrap() * poly;
    // The closed loop A − BK has the characteristic polynomial (λ + 3)⁴: its determinant is 81.
    let closed: Matrix4<f64> = a - b * k;
    assert!((closed.determinant() - 81.0).abs() < 1e-8);
    // The nonlinear model under u = −K x recovers from a 0.2 rad tilt; with u = 0 the pole falls.
    let feedback = move |_t: f64, x: &SVector<f64, 4>| SVector::<f64, 1>::new(-(k * x)[0]);
    let x0 = p.state([0.0, 0.2], [0.0, 0.0]);
    let opts = Options::default().rtol(1e-10).atol(1e-12);
    let balanced = p.run(x0).span(0.0..6.0).inputs(feedback).options(&opts).go().unwrap();
    let (_, xf) = balanced.last().unwrap();
    assert!(xf.amax() < 1e-3, "state after 6 s: {xf}");
    let falling = p.run(x0).span(0.0..1.0).inputs([0.0]).options(&opts).go().unwrap();
    let (_, xf) = falling.last().unwrap();
    assert!(xf[1].abs() > 1.0, "unbalanced θ(1) = {}", xf[1]);
}

/// The linear-quadratic regulator of the upright linearisation (`Linearization::lqr`, the
/// continuous Riccati equation) balances the nonlinear cart-pole, and the cost it predicts,
/// δx₀ᵀXδx₀, is what the linear closed loop spends — integrated here along a run of the
/// linearisation as a model of its own (the running cost as a last state).
#[test]
fn the_lqr_of_the_linearisation_balances_the_pole_at_the_cost_it_predicts() {
    use routh::runtime::{FieldError, Flow};
    let p = cart_pole();
    let lin = p.linearize(0.0, &p.state([0.0, 0.0], [0.0, 0.0]), [0.0]).unwrap();
    let q = SMatrix::<f64, 4, 4>::from_diagonal(&Vector4::new(1.0, 10.0, 0.1, 0.1));
    let r = SMatrix::<f64, 1, 1>::new(0.5);
    let lqr = lin.lqr(&q, &r).unwrap();
    let k = SMatrix::<f64, 1, 4>::from_row_slice(lqr.gain.as_slice());
    assert!(lqr.closed_loop.complex_eigenvalues().iter().all(|l| l.re < 0.0));
    // The linear closed loop with its running cost xᵀ(Q + KᵀRK)x as a fifth state.
    let acl = lin.a - lin.b * k;
    let weight = q + k.transpose() * r * k;
    let field = move |_t: f64, y: &SVector<f64, 5>| -> Result<SVector<f64, 5>, FieldError> {
        let x = y.fixed_rows::<4>(0).into_owned();
        let dx = acl * x;
        Ok(SVector::<f64, 5>::new(dx[0], dx[1], dx[2], dx[3], x.dot(&(weight * x))))
    };
    let x0 = Vector4::new(0.1, 0.15, 0.0, -0.1);
    let opts = Options::default().rtol(1e-12).atol(1e-14);
    let spent =
        Flow(&field).run(SVector::<f64, 5>::new(x0[0], x0[1], x0[2], x0[3], 0.0)).span(0.0..60.0).options(&opts).go().unwrap();
    let predicted = x0.dot(&(SMatrix::<f64, 4, 4>::from_column_slice(lqr.cost.as_slice()) * x0));
    let cost = spent.last().unwrap().1[4];
    assert!((cost - predicted).abs() < 1e-8 * predicted, "spent {cost} against x₀ᵀXx₀ = {predicted}");
    // The nonlinear model under u = −K x recovers from a 0.2 rad tilt.
    let feedback = move |_t: f64, x: &SVector<f64, 4>| SVector::<f64, 1>::new(-(k * x)[0]);
    let balanced = p.run(p.state([0.0, 0.2], [0.0, 0.0])).span(0.0..25.0).inputs(feedback).options(&opts).go().unwrap();
    let (_, xf) = balanced.last().unwrap();
    assert!(xf.amax() < 1e-4, "state after 25 s: {xf}");
}

/// The step map of discrete-time control, one RK4 step with the input held and its
/// exact Jacobians from the generated ∂F/∂x and ∂F/∂u (`runtime::step::rk4_step`), against central
/// differences of the step; the discrete LQR designed on them (`lqr::dare`) balances the nonlinear
/// cart-pole as a digital controller at the same period.
#[test]
fn the_step_jacobians_design_a_digital_controller_that_balances_the_pole() {
    use routh::runtime::lqr::dare;
    use routh::runtime::step::rk4_step;
    let p = CartPole { b: 0.1, ..cart_pole() };
    let h = 0.02;
    // The model's own step map is RK4's (`rk4_step`).
    let step = step_jacobians_match_differences(&p, h, 1e-7);
    assert_eq!(step, rk4_step(&p, 0.0, &STEP_AT.0, &STEP_AT.1, h).unwrap());
    // The discrete regulator at the upright equilibrium, run as a zero-order-hold controller.
    let upright = rk4_step(&p, 0.0, &SVector::zeros(), &SVector::zeros(), h).unwrap();
    let dynamic = |m: &[f64], rows: usize| routh::nalgebra::DMatrix::from_column_slice(rows, m.len() / rows, m);
    let q = Matrix4::from_diagonal(&Vector4::new(1.0, 10.0, 0.1, 0.1)) * h;
    let lqr = dare(
        &dynamic(upright.a.as_slice(), 4),
        &dynamic(upright.b.as_slice(), 4),
        &dynamic(q.as_slice(), 4),
        &dynamic(&[0.5 * h], 1),
    )
    .unwrap();
    assert!(lqr.closed_loop.complex_eigenvalues().iter().all(|l| l.norm() < 1.0));
    let k = SMatrix::<f64, 1, 4>::from_row_slice(lqr.gain.as_slice());
    let law = move |_t: f64, x: &SVector<f64, 4>| SVector::<f64, 1>::new(-(k * x)[0]);
    let run = p.run(p.state([0.0, 0.2], [0.0, 0.0])).span(0.0..25.0).sampled(h, law).rtol(1e-10).atol(1e-12).go().unwrap();
    let end = run.trajectory.end.1;
    assert!(end.amax() < 1e-4, "state after 25 s under the digital LQR: {end}");
}

/// The semi-implicit Euler step map of the generated cart-pole (`step::SemiImplicitEuler`: a model
/// without orientations is `step::SecondOrder`): its step is v₁ = v + h q̈, q₁ = q + h v₁ from the
/// generated field, and its Jacobians from one evaluation of the generated ∂F/∂x and ∂F/∂u are
/// those of the step (central differences).
#[test]
fn the_semi_implicit_euler_map_of_a_generated_model_is_its_definition_with_exact_jacobians() {
    use routh::runtime::step::SemiImplicitEuler;
    let p = CartPole { b: 0.1, ..cart_pole() };
    let h = 0.02;
    let step = step_jacobians_match_differences(&SemiImplicitEuler(&p), h, 1e-8);
    let (x, u) = STEP_AT;
    let f = p.driven([u[0]]).field(0.0, &x).unwrap();
    let v = x.fixed_rows::<2>(2) + f.fixed_rows::<2>(2) * h;
    let q = x.fixed_rows::<2>(0) + v * h;
    assert_eq!(step.next, SVector::<f64, 4>::new(q[0], q[1], v[0], v[1]));
}

/// The cart-pole's state and input at which its step maps are checked.
const STEP_AT: (SVector<f64, 4>, SVector<f64, 1>) = (SVector::<f64, 4>::new(0.2, 0.3, -0.1, 0.4), SVector::<f64, 1>::new(0.8));

/// A step map's step of size `h` at [`STEP_AT`]: its Jacobians A_d and B_d against central
/// differences of the step without them (`advance`), to `tolerance`; the step.
fn step_jacobians_match_differences(
    map: &impl routh::runtime::step::StepMap<4, 1>,
    h: f64,
    tolerance: f64,
) -> routh::runtime::step::StepJacobian<4, 1> {
    let (x, u) = STEP_AT;
    let step = map.step(0.0, &x, &u, h).unwrap();
    let next = |x: SVector<f64, 4>, u: f64| map.advance(0.0, &x, &SVector::<f64, 1>::new(u), h).unwrap();
    let d = 1e-6;
    for c in 0..4 {
        let e = SVector::<f64, 4>::ith(c, d);
        let fd = (next(x + e, u[0]) - next(x - e, u[0])) / (2.0 * d);
        assert!((step.a.column(c) - fd).amax() < tolerance, "A_d column {c}: {} vs {fd}", step.a.column(c));
    }
    let fd = (next(x, u[0] + d) - next(x, u[0] - d)) / (2.0 * d);
    assert!((step.b.column(0) - fd).amax() < tolerance, "B_d: {} vs {fd}", step.b);
    step
}

#[test]
fn trajectories_write_csv_with_the_generated_state_names() {
    let p = cart_pole();
    assert_eq!(CartPole::STATE_NAMES, ["x", "th", "dot(x)", "dot(th)"]);
    let sol = p.run(p.state([0.0, 0.1], [0.0, 0.0])).span(0.0..0.5).inputs([1.0]).output(Output::Interval(0.25)).go().unwrap();
    let mut csv = Vec::new();
    sol.write_csv(&mut csv, &CartPole::STATE_NAMES).unwrap();
    let text = String::from_utf8(csv).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "t,x,th,dot(x),dot(th)");
    assert_eq!(lines.len(), 1 + sol.len());
    // Every value reads back exactly.
    let last: Vec<f64> = lines[lines.len() - 1].split(',').map(|v| v.parse().unwrap()).collect();
    let (t, x) = sol.last().unwrap();
    assert_eq!(last[0], t);
    assert_eq!(&last[1..], x.as_slice());
    // A wrong number of names is an error, not a misaligned file.
    assert!(sol.write_csv(Vec::new(), &["x"]).is_err());
}

/// A mass pushed by the force u: m ẍ = u.
#[derive(Mechanics)]
#[mechanics(coordinates(x), input(u), lagrangian = m / 2 * dot(x).powi(2), force(x = u))]
struct PushedMass {
    m: f64,
}

#[test]
fn sampled_data_control_follows_the_exact_discrete_map() {
    // A PD law u_k = −k_p x_k − k_d v_k held for T: on each interval ẍ = u_k/m exactly, so
    // x_{k+1} = x_k + T v_k + T² u_k/(2m), v_{k+1} = v_k + T u_k/m — the zero-order-hold map.
    let mass = PushedMass { m: 2.0 };
    let (kp, kd, period) = (3.0, 1.5, 0.25);
    let law = |_t: f64, x: &SVector<f64, 2>| SVector::<f64, 1>::new(-kp * x[0] - kd * x[1]);
    let x0 = mass.state([1.0], [0.0]);
    let options = Options::default().rtol(1e-12).atol(1e-13).output(Output::Interval(period));
    let run = mass.run(x0).span(0.0..5.0).sampled(period, law).options(&options).go().unwrap();
    assert_eq!(run.inputs.len(), 20);
    assert_eq!(run.trajectory.times.len(), 21);
    let (mut x, mut v) = (1.0, 0.0);
    for (k, ((t, state), (tk, u))) in run.trajectory.times.iter().zip(&run.trajectory.states).zip(&run.inputs).enumerate() {
        assert!((t - tk).abs() < 1e-15 && (tk - period * k as f64).abs() < 1e-15);
        assert!((state[0] - x).abs() < 1e-12 && (state[1] - v).abs() < 1e-12, "k = {k}: {state:?} vs ({x}, {v})");
        assert!((u[0] - (-kp * x - kd * v)).abs() < 1e-12);
        let uk = u[0];
        x += period * v + period * period * uk / (2.0 * mass.m);
        v += period * uk / mass.m;
    }
    let end = run.trajectory.end.1;
    assert!((end[0] - x).abs() < 1e-12 && (end[1] - v).abs() < 1e-12);
    // The same law applied continuously is a different (here better damped) loop.
    let continuous = mass.run(x0).span(0.0..5.0).inputs(law).rtol(1e-12).atol(1e-13).go().unwrap().end.1;
    assert!((continuous - end).amax() > 1e-3);
    // The run reads back what it wrote: the samples and the inputs chosen, bit for bit.
    let text = serde_json::to_string(&run).unwrap();
    let back: routh::runtime::Sampled<routh::runtime::Trajectory<2>, 1> = serde_json::from_str(&text).unwrap();
    assert_eq!(
        (&back.trajectory.times, &back.trajectory.states, &back.inputs),
        (&run.trajectory.times, &run.trajectory.states, &run.inputs)
    );
    // A non-positive period, or output times outside the span, are errors, not a silent run.
    assert!(mass.run(x0).span(0.0..5.0).sampled(0.0, law).options(&options).go().is_err());
    let outside = Options::default().output(Output::Times(vec![1.0, 6.0]));
    assert!(mass.run(x0).span(0.0..5.0).sampled(period, law).options(&outside).go().is_err());
}

/// The same cart-pole in Cartesian coordinates: the pole's mass at (px, py), held at distance l
/// from the cart by a holonomic constraint, the force u on the cart.
#[derive(Mechanics)]
#[mechanics(
    coordinates(x, px, py),
    input(u),
    lagrangian = mc / 2 * dot(x).powi(2) + mp / 2 * (dot(px).powi(2) + dot(py).powi(2)) - mp * g * py,
    holonomic(rod = (px - x).powi(2) + py.powi(2) - l.powi(2)),
    force(x = u - b * dot(x)),
    jacobian,
)]
struct RailCartPole {
    mc: f64,
    mp: f64,
    l: f64,
    g: f64,
    b: f64,
}

#[test]
fn a_constrained_cart_pole_has_the_coordinate_models_linearisation_and_balances() {
    let p = CartPole { b: 0.2, ..cart_pole() };
    let r = RailCartPole { mc: p.mc, mp: p.mp, l: p.l, g: p.g, b: p.b };
    // At an upright state with the cart moving: (x, θ) = (0.3, 0), (ẋ, θ̇) = (0.2, 0).
    let lin = p.linearize(0.0, &p.state([0.3, 0.0], [0.2, 0.0]), [0.5]).unwrap();
    let xr = r.state([0.3, 0.3, p.l], [0.2, 0.2, 0.0]);
    let selection = routh::runtime::linearize::Selection::new().coordinates(["x", "px"]).velocities(["x", "px"]);
    let cl = r.driven([0.5]).linearize_constrained(0.0, &xr, &selection).unwrap();
    assert_eq!(cl.states, ["x", "px", "dot(x)", "dot(px)"]);
    // (x, px) = T (x, θ) with px = x + l sin θ: T = [[1, 0], [1, l]] at θ = 0, on positions and
    // velocities alike (θ̇ = 0, so the second-order term of px's velocity vanishes).
    let t2 = SMatrix::<f64, 2, 2>::new(1.0, 0.0, 1.0, p.l);
    let mut t = Matrix4::zeros();
    t.fixed_view_mut::<2, 2>(0, 0).copy_from(&t2);
    t.fixed_view_mut::<2, 2>(2, 2).copy_from(&t2);
    let a = t * lin.a * t.try_inverse().unwrap();
    let b = t * lin.b;
    let (ca, cb) = (Matrix4::from_column_slice(cl.a.as_slice()), Vector4::from_column_slice(cl.b.as_slice()));
    println!("rail cart-pole: |A − T A_θ T⁻¹| = {:.1e}, |B − T B_θ| = {:.1e}", (ca - a).amax(), (cb - b).amax());
    assert!((ca - a).amax() < 1e-12 && (cb - b).amax() < 1e-12, "A = {ca}, B = {cb}");
    // The regulators agree through the same change of coordinates: with Q_c = T⁻ᵀ Q T⁻¹ the
    // constrained model's gain (`ConstrainedLinearization::lqr`) is K_θ T⁻¹.
    let q = Matrix4::from_diagonal(&Vector4::new(1.0, 10.0, 0.1, 0.1));
    let weight_u = SMatrix::<f64, 1, 1>::new(0.5);
    let k_theta = lin.lqr(&q, &weight_u).unwrap();
    let t_inv = t.try_inverse().unwrap();
    let q_c = t_inv.transpose() * q * t_inv;
    let dynamic = |m: &[f64], n: usize| routh::nalgebra::DMatrix::from_column_slice(n, m.len() / n, m);
    let k_c = cl.lqr(&dynamic(q_c.as_slice(), 4), &dynamic(weight_u.as_slice(), 1)).unwrap();
    let expected = SMatrix::<f64, 1, 4>::from_row_slice(k_theta.gain.as_slice()) * t_inv;
    let gap = (SMatrix::<f64, 1, 4>::from_row_slice(k_c.gain.as_slice()) - expected).amax();
    assert!(gap < 1e-9 * expected.amax(), "K_c = {} against K_θ T⁻¹ = {expected}", k_c.gain);
    // B through the saddle point against differences of the constrained field.
    let h = 1e-6;
    let fd = (r.driven([0.5 + h]).field(0.0, &xr).unwrap() - r.driven([0.5 - h]).field(0.0, &xr).unwrap()) / (2.0 * h);
    assert!((r.driven([0.5]).input_jacobian(0.0, &xr).unwrap().column(0) - fd).amax() < 1e-8);
    // A feedback law on the cart balances the Cartesian pole, its rod held by the projection.
    let k = [-2.0, -40.0, -3.5, -8.0];
    let law = move |_t: f64, x: &SVector<f64, 6>| {
        let th = (x[1] - x[0]).atan2(x[2]);
        let thd = ((x[4] - x[3]) * x[2] - (x[1] - x[0]) * x[5]) / ((x[1] - x[0]).powi(2) + x[2].powi(2));
        SVector::<f64, 1>::new(-(k[0] * x[0] + k[1] * th + k[2] * x[3] + k[3] * thd))
    };
    let x0 = r.state([0.0, p.l * 0.1f64.sin(), p.l * 0.1f64.cos()], [0.0, 0.0, 0.0]);
    let run = r.run(x0).span(0.0..10.0).inputs(law).rtol(1e-9).atol(1e-11).go().unwrap();
    let (_, end) = run.last().unwrap();
    let report = run.constraints.unwrap();
    println!("rail cart-pole under feedback: end {end:?}, residuals {:?}", report.worst);
    assert!(end.amax() < 1e-2 + p.l && (end[1] - end[0]).abs() < 1e-3 && (end[2] - p.l).abs() < 1e-6);
    assert!(report.worst.0 < 1e-9 && report.projections > 0);
    // Sampled at 20 ms the same law still balances it.
    let sampled = r.run(x0).span(0.0..10.0).sampled(0.02, law).rtol(1e-9).atol(1e-11).go().unwrap();
    let end = sampled.trajectory.end.1;
    assert!((end[1] - end[0]).abs() < 1e-3 && sampled.trajectory.constraints.unwrap().worst.0 < 1e-9);
}

/// A ball over a floor pushed up by the input force u: inputs in a model with impacts.
#[derive(Mechanics)]
#[mechanics(
    coordinates(y),
    input(u),
    lagrangian = m / 2 * dot(y).powi(2) - m * g * y,
    force(y = u),
    impact(name = floor, guard = y, law = restitution(e)),
)]
pub struct Juggled {
    pub m: f64,
    pub g: f64,
    pub e: f64,
}

/// The same ball with a damping force −c ẏ written in the model (no input).
#[derive(Mechanics)]
#[mechanics(
    coordinates(y),
    lagrangian = m / 2 * dot(y).powi(2) - m * g * y,
    force(y = -c * dot(y)),
    impact(name = floor, guard = y, law = restitution(e)),
)]
pub struct DampedBall {
    pub m: f64,
    pub g: f64,
    pub e: f64,
    pub c: f64,
}

#[test]
fn inputs_drive_a_model_with_impacts_held_across_its_resets() {
    let ball = Juggled { m: 2.0, g: 9.81, e: 0.7 };
    let h = 1.0;
    let opts = HybridOptions::default().rtol(1e-12).atol(1e-13);
    // A constant push u lowers gravity to g' = g − u/m: the first impact at √(2h/g'), then the
    // flights 2eᵏv₁/g' with v₁ = √(2g'h) — the input held across every reset.
    let u = 6.0;
    let gp = ball.g - u / ball.m;
    let sol = ball.run(ball.state([h], [0.0])).span(0.0..3.0).inputs([u]).options(&opts).go().unwrap();
    assert!(sol.impacts.len() >= 4, "{} impacts", sol.impacts.len());
    let v1 = (2.0 * gp * h).sqrt();
    let mut t = (2.0 * h / gp).sqrt();
    for (k, imp) in sol.impacts.iter().enumerate() {
        assert!((imp.t - t).abs() < 1e-9, "impact {k} at {} vs {t}", imp.t);
        assert!((imp.post[1] + ball.e * imp.pre[1]).abs() < 1e-12);
        t += 2.0 * ball.e.powi(k as i32 + 1) * v1 / gp;
    }
    // A feedback law u = −c ẏ, read after each reset, is the damped model.
    let c = 0.9;
    let damped = DampedBall { m: ball.m, g: ball.g, e: ball.e, c };
    let law = |_t: f64, x: &SVector<f64, 2>| SVector::<f64, 1>::new(-c * x[1]);
    let span = 0.0..2.5;
    let a = ball.run(ball.state([h], [0.5])).span(span.clone()).inputs(law).options(&opts).go().unwrap();
    let b = damped.run(damped.state([h], [0.5])).span(span).options(&opts).go().unwrap();
    assert!(a.impacts.len() >= 3 && a.impacts.len() == b.impacts.len());
    for (i, j) in a.impacts.iter().zip(&b.impacts) {
        assert!((i.t - j.t).abs() < 1e-10 && (i.post - j.post).amax() < 1e-9);
    }
    assert!((a.end.2 - b.end.2).amax() < 1e-9, "{} vs {}", a.end.2, b.end.2);
    // Sampled-data control across impacts: a law that holds the same push at every sample is the
    // constant input — the impacts fall inside hold intervals and the joined run has them all.
    let sampled = ball
        .run(ball.state([h], [0.0]))
        .span(0.0..3.0)
        .sampled(0.1, |_t, _x| SVector::<f64, 1>::new(u))
        .options(&opts)
        .go()
        .unwrap();
    assert_eq!(sampled.inputs.len(), 30);
    assert_eq!(sampled.trajectory.impacts.len(), sol.impacts.len());
    for (i, j) in sampled.trajectory.impacts.iter().zip(&sol.impacts) {
        assert!((i.t - j.t).abs() < 1e-10 && (i.post - j.post).amax() < 1e-9, "{} vs {}", i.t, j.t);
    }
    assert!(sampled.trajectory.times.windows(2).all(|w| w[0] <= w[1]));
    assert!((sampled.trajectory.end.2 - sol.end.2).amax() < 1e-9);
    // A law that reads the state: a push only while the ball rises, sampled every 50 ms. Each
    // sample reads the state the run is in at t_k (after any impact before it), and the inputs
    // held are the law's values there.
    let mut seen: Vec<(f64, f64)> = Vec::new();
    let kick = ball
        .run(ball.state([h], [0.0]))
        .span(0.0..3.0)
        .sampled(0.05, |t, x| {
            seen.push((t, x[1]));
            SVector::<f64, 1>::new(if x[1] > 0.0 { 8.0 } else { 0.0 })
        })
        .options(&opts)
        .go()
        .unwrap();
    assert_eq!(seen.len(), kick.inputs.len());
    for ((t, v), (tk, uk)) in seen.iter().zip(&kick.inputs) {
        assert_eq!(*t, *tk);
        assert_eq!(uk[0], if *v > 0.0 { 8.0 } else { 0.0 });
        let at = kick.trajectory.times.iter().position(|s| (s - t).abs() < 1e-12);
        if let Some(i) = at {
            assert!((kick.trajectory.states[i][1] - v).abs() < 1e-12, "the law read the run's state at {t}");
        }
    }
    assert!(kick.trajectory.impacts.len() >= 2 && kick.inputs.iter().any(|(_, u)| u[0] > 0.0));
    // The view at fixed inputs is a hybrid system of its own.
    let view = ball.driven([u]);
    let fixed = Hybrid(&view).run(ModeState::new(0, ball.state([h], [0.0]))).span(0.0..3.0).options(&opts).go().unwrap();
    assert_eq!(Juggled::IMPACTS, ["floor"]);
    assert!(fixed.impacts.iter().zip(&sol.impacts).all(|(i, j)| (i.t - j.t).abs() < 1e-12));
}

/// A vertical hopper with modes: flight (the mass under gravity) and stance (a leg spring of
/// stiffness k and rest length l0 below it), joined by touchdown and liftoff at y = l0; the input u
/// is a thrust along the leg, in stance only.
#[derive(Mechanics)]
#[mechanics(
    coordinates(y),
    input(u),
    lagrangian = m / 2 * dot(y).powi(2) - m * g * y,
    mode(flight),
    mode(stance, lagrangian = m / 2 * dot(y).powi(2) - m * g * y - k / 2 * (l0 - y).powi(2), force(y = u)),
    transition(flight -> stance, name = touchdown, guard = y - l0, law = map()),
    transition(stance -> flight, name = liftoff, guard = l0 - y, law = map()),
)]
struct Hopper {
    m: f64,
    g: f64,
    k: f64,
    l0: f64,
}

/// The hopper with the thrust written as the force b ẏ in stance.
#[derive(Mechanics)]
#[mechanics(
    coordinates(y),
    lagrangian = m / 2 * dot(y).powi(2) - m * g * y,
    mode(flight),
    mode(stance, lagrangian = m / 2 * dot(y).powi(2) - m * g * y - k / 2 * (l0 - y).powi(2), force(y = b * dot(y))),
    transition(flight -> stance, name = touchdown, guard = y - l0, law = map()),
    transition(stance -> flight, name = liftoff, guard = l0 - y, law = map()),
)]
struct PumpedHopper {
    m: f64,
    g: f64,
    k: f64,
    l0: f64,
    b: f64,
}

#[test]
fn inputs_drive_a_model_with_modes_mode_by_mode() {
    let hop = Hopper { m: 1.3, g: 9.81, k: 600.0, l0: 1.0 };
    let opts = HybridOptions::default().rtol(1e-12).atol(1e-13);
    let h = 1.4;
    // A constant thrust u in stance: the stance is harmonic about y* = l0 + (u − m g)/k with
    // ω² = k/m, entered and left at y = l0 with the touchdown speed v = √(2 g (h − l0)) (the force
    // is conservative and the spring's and the thrust's potentials agree at y = l0), so it lasts
    // t_s = 2 (π − φ)/ω with φ = atan2(v/ω, (m g − u)/k); the flights 2v/g.
    let omega = (hop.k / hop.m).sqrt();
    let v = (2.0 * hop.g * (h - hop.l0)).sqrt();
    for u in [0.0, 4.0, -3.0] {
        let run = hop.run(hop.flight_state([h], [0.0])).span(0.0..2.5).inputs([u]).options(&opts).go().unwrap();
        let phi = (v / omega).atan2((hop.m * hop.g - u) / hop.k);
        let stance = 2.0 * (std::f64::consts::PI - phi) / omega;
        let mut t = (2.0 * (h - hop.l0) / hop.g).sqrt();
        assert!(run.impacts.len() >= 6, "{} transitions", run.impacts.len());
        for (i, imp) in run.impacts.iter().enumerate() {
            let name = if i % 2 == 0 { "touchdown" } else { "liftoff" };
            assert_eq!(imp.guard, name);
            assert!((imp.t - t).abs() < 1e-9, "u = {u}: {name} {i} at {} vs {t}", imp.t);
            assert!((imp.pre[1].abs() - v).abs() < 1e-9, "u = {u}: speed {} vs {v}", imp.pre[1]);
            t += if i % 2 == 0 { stance } else { 2.0 * v / hop.g };
        }
        // The input enters the stance mode's field only: ∂ÿ/∂u = 1/m there, 0 in flight.
        let x = hop.stance_state([0.95], [-1.0]);
        let b = hop.driven([u]).stance().input_jacobian(0.0, &x.state).unwrap();
        assert!((b[(0, 0)]).abs() < 1e-15 && (b[(1, 0)] - 1.0 / hop.m).abs() < 1e-15, "B = {b}");
        let f = hop.driven([u]).flight().input_jacobian(0.0, &x.state).unwrap();
        assert!(f.amax() < 1e-15, "B in flight = {f}");
        // The mode's linearisation: A = [[0, 1], [−k/m, 0]] in stance, [[0, 1], [0, 0]] in flight.
        let lin = hop.linearize(Hopper::STANCE, 0.0, &x.state, [u]).unwrap();
        let w2 = hop.k / hop.m;
        assert!((lin.a - routh::nalgebra::Matrix2::new(0.0, 1.0, -w2, 0.0)).amax() < 1e-12 && lin.b == b, "{}", lin.a);
        let lin = hop.linearize(Hopper::FLIGHT, 0.0, &x.state, [u]).unwrap();
        assert!((lin.a - routh::nalgebra::Matrix2::new(0.0, 1.0, 0.0, 0.0)).amax() < 1e-12 && lin.b.amax() < 1e-15);
        assert!(matches!(hop.linearize(2, 0.0, &x.state, [u]), Err(FieldError::NonFinite { .. })));
    }
    // A feedback law u = b ẏ (pushing while the leg extends, braking while it shortens) is the
    // model with that force written in its stance mode.
    let b = 0.8;
    let pumped = PumpedHopper { m: hop.m, g: hop.g, k: hop.k, l0: hop.l0, b };
    let law = |_t: f64, x: &SVector<f64, 2>| SVector::<f64, 1>::new(b * x[1]);
    let a = hop.run(hop.flight_state([h], [0.0])).span(0.0..3.0).inputs(law).options(&opts).go().unwrap();
    let c = pumped.run(pumped.flight_state([h], [0.0])).span(0.0..3.0).options(&opts).go().unwrap();
    assert!(a.impacts.len() >= 6 && a.impacts.len() == c.impacts.len());
    for (i, j) in a.impacts.iter().zip(&c.impacts) {
        assert!((i.t - j.t).abs() < 1e-10 && (i.post - j.post).amax() < 1e-9, "{} vs {}", i.t, j.t);
    }
    // The pump adds energy: each liftoff is faster than the touchdown before it.
    for pair in a.impacts.chunks(2).filter(|p| p.len() == 2) {
        assert!(pair[1].pre[1] > -pair[0].pre[1], "liftoff {} after touchdown {}", pair[1].pre[1], pair[0].pre[1]);
    }
    // Sampled-data control across the transitions: the law that holds 4 N at every sample is the
    // constant input, and the run records the modes it went through.
    let constant = hop.run(hop.flight_state([h], [0.0])).span(0.0..2.5).inputs([4.0]).options(&opts).go().unwrap();
    let sampled = hop
        .run(hop.flight_state([h], [0.0]))
        .span(0.0..2.5)
        .sampled(0.1, |_t, _x| SVector::<f64, 1>::new(4.0))
        .options(&opts)
        .go()
        .unwrap();
    assert_eq!(sampled.trajectory.impacts.len(), constant.impacts.len());
    for (i, j) in sampled.trajectory.impacts.iter().zip(&constant.impacts) {
        assert!((i.t - j.t).abs() < 1e-10 && i.mode_after == j.mode_after, "{} vs {}", i.t, j.t);
    }
    assert_eq!(sampled.trajectory.end.1, constant.end.1);
    assert_eq!(Hopper::INPUTS, ["u"]);
}

/// A ball resting on the floor (a held contact in `rest`) pushed up by the input u: it lifts off
/// where the contact force m g − u falls through zero — a guard that depends on the input.
#[derive(Mechanics)]
#[mechanics(
    coordinates(y),
    input(u),
    lagrangian = m / 2 * dot(y).powi(2) - m * g * y,
    force(y = u),
    mode(flight, impact(name = floor, guard = y, law = restitution(e))),
    mode(rest, holonomic(contact = y)),
    transition(flight -> rest, name = settle, zeno = floor, law = project),
    transition(rest -> flight, name = liftoff, guard = multiplier(contact), law = map()),
)]
struct LiftedBall {
    m: f64,
    g: f64,
    e: f64,
}

#[test]
fn a_contact_force_guard_sees_the_inputs() {
    // u = c t: the contact force m g − c t vanishes at t₀ = m g / c, then ÿ = c t / m − g from rest:
    // y(t) = c (t³ − t₀³)/(6m) − c t₀² (t − t₀)/(2m) − g (t − t₀)²/2.
    let ball = LiftedBall { m: 2.0, g: 9.81, e: 0.5 };
    let c = 15.0;
    let opts = HybridOptions::default().rtol(1e-12).atol(1e-13);
    let law = move |t: f64, _x: &SVector<f64, 2>| SVector::<f64, 1>::new(c * t);
    let run = ball.run(ball.rest_state([0.0], [0.0])).span(0.0..2.0).inputs(law).options(&opts).go().unwrap();
    let t0 = ball.m * ball.g / c;
    assert_eq!(run.impacts.len(), 1, "{:?}", run.impacts.iter().map(|i| (i.t, i.guard)).collect::<Vec<_>>());
    assert!((run.impacts[0].t - t0).abs() < 1e-9 && run.impacts[0].guard == "liftoff", "lift-off at {}", run.impacts[0].t);
    let (t, mode, x) = run.end;
    let y =
        c * (t.powi(3) - t0.powi(3)) / (6.0 * ball.m) - c * t0 * t0 * (t - t0) / (2.0 * ball.m) - ball.g * (t - t0).powi(2) / 2.0;
    assert_eq!(mode, LiftedBall::FLIGHT);
    assert!((x[0] - y).abs() < 1e-9, "y = {} vs {y}", x[0]);
    // Dropped from 0.3 m under the same law, the ball bounces, settles (the Zeno completion into
    // `rest`, at any input) and lifts off at the same t₀.
    let drop = ball.run(ball.flight_state([0.3], [0.0])).span(0.0..5.5).inputs(law).options(&opts).go().unwrap();
    let names: Vec<&str> = drop.impacts.iter().map(|i| i.guard).collect();
    let settle = names.iter().position(|n| *n == "settle").expect("the bounces are completed into rest");
    assert!(names[..settle].iter().all(|n| *n == "floor") && names[settle + 1..] == ["liftoff"], "{names:?}");
    let lift = drop.impacts.last().unwrap();
    assert!((lift.t - t0).abs() < 1e-9, "lift-off at {} vs {t0}", lift.t);
    assert_eq!(drop.end.1, LiftedBall::FLIGHT);
    // (Before the guard read the inputs, the contact held the ball down for ever — a silent
    // wrong answer: the driven run took its guards from the model at u = 0.)
    // The contact force a driven run reports (when it gets stuck after a transition) is the one at
    // the signal's inputs, m g − u, not the model's at u = 0.
    use routh::runtime::HybridSystem;
    let geometry = ball.driven([0.0]);
    let looped = routh::runtime::input::DrivenOn::new(&geometry, &ball, SVector::<f64, 1>::new(30.0));
    let reported = looped.constraint_multipliers(LiftedBall::REST, 0.0, &ball.rest_state([0.0], [0.0]).state);
    assert_eq!(reported.len(), 1);
    assert!(reported[0].0 == "contact" && (reported[0].1 - (ball.m * ball.g - 30.0)).abs() < 1e-12, "{reported:?}");
    // B through the saddle point: the held contact takes the push (no acceleration) in `rest`.
    let b = ball.driven([3.0]).rest().input_jacobian(0.0, &ball.rest_state([0.0], [0.0]).state).unwrap();
    assert!(b.amax() < 1e-15, "{b}");
    // The mode's linearisation there: ÿ ≡ 0 in `rest` (A's kinematic row only, B = 0), ÿ = u/m − g
    // in flight (B = (0, 1/m)).
    let lin = ball.linearize(LiftedBall::REST, 0.0, &ball.rest_state([0.0], [0.0]).state, [3.0]).unwrap();
    assert!((lin.a - routh::nalgebra::Matrix2::new(0.0, 1.0, 0.0, 0.0)).amax() < 1e-14 && lin.b.amax() < 1e-15, "{}", lin.a);
    let lin = ball.linearize(LiftedBall::FLIGHT, 0.0, &ball.flight_state([0.5], [0.0]).state, [3.0]).unwrap();
    assert!(lin.a[(1, 0)].abs() < 1e-15 && (lin.b[(1, 0)] - 1.0 / ball.m).abs() < 1e-15, "{}", lin.b);
}

/// A ball struck by a racket whose height r and velocity v are inputs: the guard y − r and the
/// impact law ẏ⁺ = v − e (ẏ⁻ − v) read them.
#[derive(Mechanics)]
#[mechanics(
    coordinates(y),
    input(r, v),
    lagrangian = m / 2 * dot(y).powi(2) - m * g * y,
    impact(name = racket, guard = y - r, law = map(dot(y) = v - e * (dot(y) - v))),
)]
struct Paddled {
    m: f64,
    g: f64,
    e: f64,
}

#[test]
fn a_ball_paddled_by_a_driven_racket_meets_it_where_the_inputs_put_it() {
    let ball = Paddled { m: 0.1, g: 9.81, e: 0.8 };
    let opts = HybridOptions::default().rtol(1e-12).atol(1e-13);
    let h = 1.0;
    // A racket held at r₀ (v = 0): the first impact at t₁ = √(2 (h − r₀)/g), where y = r₀.
    let r0 = 0.4;
    let run = ball.run(ball.state([h], [0.0])).span(0.0..0.4).inputs([r0, 0.0]).options(&opts).go().unwrap();
    let t1 = (2.0 * (h - r0) / ball.g).sqrt();
    let first = &run.impacts[0];
    assert!((first.t - t1).abs() < 1e-9 && (first.pre[0] - r0).abs() < 1e-9, "{} at y = {}", first.t, first.pre[0]);
    // A racket oscillating as r = A sin ωt (v = A ω cos ωt, a signal of time): the first impact
    // where h − g t²/2 = A sin ωt (bisection), and the law's ẏ⁺ = v − e (ẏ⁻ − v) at its velocity.
    let (a, w) = (0.05, 20.0);
    let racket = move |t: f64, _x: &SVector<f64, 2>| SVector::<f64, 2>::new(a * (w * t).sin(), a * w * (w * t).cos());
    let run = ball.run(ball.state([h], [0.0])).span(0.0..0.5).inputs(racket).options(&opts).go().unwrap();
    let gap = |t: f64| h - ball.g * t * t / 2.0 - a * (w * t).sin();
    let (mut lo, mut hi) = (0.3, 0.5);
    assert!(gap(lo) > 0.0 && gap(hi) < 0.0);
    for _ in 0..80 {
        let mid = 0.5 * (lo + hi);
        if gap(mid) > 0.0 { lo = mid } else { hi = mid }
    }
    let imp = &run.impacts[0];
    assert!((imp.t - lo).abs() < 1e-9, "impact at {} vs {lo}", imp.t);
    let v = a * w * (w * lo).cos();
    let post = v - ball.e * (-ball.g * lo - v);
    assert!((imp.post[1] - post).abs() < 1e-8, "ẏ⁺ = {} vs {post}", imp.post[1]);
    // (Before the guards and laws read the inputs, the ball passed the racket and bounced at
    // y = 0 with ẏ⁺ = −e ẏ⁻: the driven run took them from the model at u = 0.)
}

/// A puck pushed by a horizontal thrust u, flying in (x, y) and, after landing, sliding in x alone:
/// modes of different dimensions (4 and 2) sharing the input.
#[derive(Mechanics)]
#[mechanics(
    input(u),
    force(x = u),
    mode(air, coordinates(x, y), lagrangian = m / 2 * (dot(x).powi(2) + dot(y).powi(2)) - m * g * y),
    mode(ground, coordinates(x), lagrangian = m / 2 * dot(x).powi(2)),
    transition(air -> ground, name = land, guard = y, law = reset(x = x, dot(x) = dot(x))),
)]
struct Puck {
    m: f64,
    g: f64,
}

#[test]
fn linearisations_of_modes_of_different_dimensions_are_padded_to_the_shared_state() {
    let p = Puck { m: 0.5, g: 9.81 };
    let air = p.linearize(Puck::AIR, 0.0, &p.air_state([0.0, 1.0], [1.0, 0.0]).state, [2.0]).unwrap();
    let mut a = routh::nalgebra::Matrix4::zeros();
    a[(0, 2)] = 1.0;
    a[(1, 3)] = 1.0;
    assert!((air.a - a).amax() < 1e-15 && (air.b - SVector::<f64, 4>::new(0.0, 0.0, 1.0 / p.m, 0.0)).amax() < 1e-15);
    // The ground mode's state (x, ẋ) is the prefix of the padded one.
    let ground = p.linearize(Puck::GROUND, 0.0, &p.ground_state([0.3], [1.0]).state, [2.0]).unwrap();
    let mut a = routh::nalgebra::Matrix4::zeros();
    a[(0, 1)] = 1.0;
    assert!((ground.a - a).amax() < 1e-15 && (ground.b - SVector::<f64, 4>::new(0.0, 1.0 / p.m, 0.0, 0.0)).amax() < 1e-15);
    // Driven across the landing: x = x₀ + v₀ t + u t²/(2m) throughout (the thrust in both modes).
    let run = p.run(p.air_state([0.0, 1.0], [1.0, 0.0])).span(0.0..1.0).inputs([2.0]).rtol(1e-12).atol(1e-13).go().unwrap();
    assert_eq!(run.impacts.len(), 1);
    let (t, mode, x) = run.end;
    assert_eq!(mode, Puck::GROUND);
    assert!((x[0] - (t + 2.0 * t * t / (2.0 * p.m))).abs() < 1e-9, "x = {}", x[0]);
}

/// A NaN input is the input's fault, named as such — at the start of a plain, a
/// constrained and a hybrid run, and at a sample of a digital controller — not a "non-finite state".
#[test]
fn a_non_finite_input_is_named() {
    let named = |e: &SimError, at: f64| matches!(e, SimError::NonFiniteInput { name: "u", index: 0, t, value } if *t == at && value.is_nan());
    let mass = PushedMass { m: 2.0 };
    let x0 = mass.state([0.0], [1.0]);
    let err = mass.run(x0).span(0.0..1.0).inputs([f64::NAN]).go().unwrap_err().error;
    assert!(named(&err, 0.0), "{err}");
    assert!(err.to_string().contains("input `u` is NaN at t = 0"), "{err}");
    let law = |t: f64, _x: &State<2>| Vector::<1>::new(if t < 0.5 { 1.0 } else { f64::NAN });
    let sampled = mass.run(x0).span(0.0..1.0).sampled(0.25, law).go().unwrap_err();
    assert!(named(&sampled.error, 0.5), "{}", sampled.error);
    // The work before the bad sample is kept: two hold intervals, to t = 0.5.
    assert_eq!(sampled.partial.expect("the intervals before").trajectory.end.0, 0.5);

    let pole = RailCartPole { mc: 1.0, mp: 0.3, l: 0.6, g: 9.81, b: 0.1 };
    let x0 = pole.state([0.0, 0.0, -pole.l], [0.0; 3]);
    let err =
        pole.run(x0).span(0.0..1.0).inputs(|_t: f64, _x: &State<6>| Vector::<1>::new(f64::INFINITY)).go().unwrap_err().error;
    assert!(matches!(err, SimError::NonFiniteInput { name: "u", value, .. } if value == f64::INFINITY), "{err}");

    let ball = Juggled { m: 1.0, g: 9.81, e: 0.5 };
    let err = ball.run(ball.state([1.0], [0.0])).span(0.0..1.0).inputs([f64::NAN]).go().unwrap_err().error;
    assert!(named(&err, 0.0), "{err}");
}
