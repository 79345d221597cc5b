//! Generated Lie group variational integrators: `discrete(rule = ...)` beside `orientation(...)`
//! (`runtime::discrete::oriented`). The generated L_d against h·L of the generated Lagrangian at
//! the rule's node, the generated momenta against central differences of the generated L_d along
//! the nodes' charts (the next node read back by quaternion products alone), the heavy top's
//! vertical spatial momentum to rounding and second order against the model's own continuous run,
//! and the step Jacobian against differences of the solved step.

use routh::nalgebra::{Quaternion, SVector, UnitQuaternion, Vector3};
use routh::prelude::*;
use routh::runtime::discrete::{DiscreteOptions, compose, oriented_step, oriented_step_jacobian, oriented_symplecticity_defect};

include!("common/top.rs");

top!(MidpointTop, midpoint);
top!(TrapezoidTop, trapezoid);

/// A top riding a cart along x, held by a damped spring: an ordinary coordinate, a force (with
/// a velocity-dependent part) and the coupling of the two.
#[derive(Mechanics)]
#[mechanics(
    coordinates(x),
    orientation(b),
    body(name = top, mass = m, centre = [x, 0, 0] + b * [0, 0, l], frame = b, inertia = diag(a1, a2, c)),
    gravity = [0, 0, -g],
    force(x = -k * x - d * dot(x)),
    discrete(rule = midpoint),
)]
struct CartTop {
    m: f64,
    l: f64,
    a1: f64,
    a2: f64,
    c: f64,
    g: f64,
    k: f64,
    d: f64,
}

const TOP: (f64, f64, f64, f64, f64, f64) = (0.8, 0.35, 0.021, 0.027, 0.034, 9.81);

fn midpoint_top() -> MidpointTop {
    let (m, l, a1, a2, c, g) = TOP;
    MidpointTop { m, l, a1, a2, c, g }
}

fn cart_top() -> CartTop {
    let (m, l, a1, a2, c, g) = TOP;
    CartTop { m, l, a1, a2, c, g, k: 3.0, d: 0.4 }
}

fn unit(q: &[f64]) -> UnitQuaternion<f64> {
    UnitQuaternion::from_quaternion(Quaternion::new(q[0], q[1], q[2], q[3]))
}

/// A tilted top spinning about its figure axis, wobbling.
fn top_start() -> ([f64; 4], [f64; 3]) {
    let q = UnitQuaternion::from_euler_angles(0.6, -0.2, 0.3);
    ([q.w, q.i, q.j, q.k], [0.8, -0.5, 6.0])
}

/// The cart-top's start node, increment and step.
fn cart_step() -> (SVector<f64, 5>, SVector<f64, 4>, f64) {
    let (q, _) = top_start();
    (SVector::from([0.2, q[0], q[1], q[2], q[3]]), SVector::from([0.03, 0.05, -0.08, 0.9]), 0.04)
}

/// The node moved along its chart: x + δx, Q ⊗ exp(η/2).
fn moved(q: &SVector<f64, 5>, d: &SVector<f64, 4>) -> SVector<f64, 5> {
    let r = unit(&[q[1], q[2], q[3], q[4]]) * UnitQuaternion::from_scaled_axis(Vector3::new(d[1], d[2], d[3]));
    SVector::from([q[0] + d[0], r.w, r.i, r.j, r.k])
}

/// The increment from q₀ to q₁: (Δ, ξ = 2 v / w of Q₀⁻¹ Q₁).
fn increment(q0: &SVector<f64, 5>, q1: &SVector<f64, 5>) -> SVector<f64, 4> {
    let r = Quaternion::new(q0[1], q0[2], q0[3], q0[4]).conjugate() * Quaternion::new(q1[1], q1[2], q1[3], q1[4]);
    SVector::from([q1[0] - q0[0], 2.0 * r.i / r.w, 2.0 * r.j / r.w, 2.0 * r.k / r.w])
}

/// L_d is h·L of the model's own Lagrangian at the midpoint node (x + Δ/2, Q ⊗ (1, ξ/4)) with the
/// velocities (Δ, ξ)/h, at t_k + h/2.
#[test]
fn the_discrete_lagrangian_is_h_l_at_the_midpoint_node() {
    let model = cart_top();
    let (q0, xi, h) = cart_step();
    let half = Quaternion::new(q0[1], q0[2], q0[3], q0[4]) * Quaternion::new(1.0, xi[1] / 4.0, xi[2] / 4.0, xi[3] / 4.0);
    let x = model.state([q0[0] + xi[0] / 2.0, half.w, half.i, half.j, half.k], [xi[0] / h, xi[1] / h, xi[2] / h, xi[3] / h]);
    let (t0, ld) = (0.7, model.discrete_lagrangian(0.7, h, &q0, &xi));
    let expected = h * model.lagrangian(t0 + h / 2.0, &x);
    assert!((ld - expected).abs() < 1e-14 * expected.abs().max(1.0), "{ld} against {expected}");
    assert_eq!(CartTop::DISCRETE_RULE, "midpoint");
}

/// μ⁻ = −∂L_d/∂(δx₀, η₀) − f⁻ and μ⁺ = ∂L_d/∂(δx₁, η₁) + f⁺ with the other node fixed: central
/// differences of the generated L_d, the increment read back from the moved node.
#[test]
fn the_momenta_are_the_derivatives_of_the_discrete_lagrangian() {
    let model = cart_top();
    let (q0, xi, h) = cart_step();
    let q1 = compose(&q0, &xi);
    let (left, right) = model.discrete_momenta(0.0, h, &q0, &xi);
    let (fm, fp) = model.discrete_forces(0.0, h, &q0, &xi);
    let ld = |a: &SVector<f64, 5>, b: &SVector<f64, 5>| model.discrete_lagrangian(0.0, h, a, &increment(a, b));
    let eps = 1e-6;
    for i in 0..4 {
        let e = SVector::<f64, 4>::from_fn(|r, _| if r == i { eps } else { 0.0 });
        let d0 = (ld(&moved(&q0, &e), &q1) - ld(&moved(&q0, &-e), &q1)) / (2.0 * eps);
        let d1 = (ld(&q0, &moved(&q1, &e)) - ld(&q0, &moved(&q1, &-e))) / (2.0 * eps);
        // (The forces f∓ are the rule's weights of F at the midpoint, checked by their own values.)
        assert!((left[i] - (-d0 - fm[i])).abs() < 1e-7 * (1.0 + left[i].abs()), "μ⁻[{i}] {} against {}", left[i], -d0 - fm[i]);
        assert!((right[i] - (d1 + fp[i])).abs() < 1e-7 * (1.0 + right[i].abs()), "μ⁺[{i}] {} against {}", right[i], d1 + fp[i]);
    }
    // f∓ = (h/2) F at the midpoint: the spring and damper on x, nothing on the rotation.
    let x_mid = q0[0] + xi[0] / 2.0;
    let force = -model.k * x_mid - model.d * xi[0] / h;
    assert!((fm[0] - h / 2.0 * force).abs() < 1e-15 && (fp[0] - h / 2.0 * force).abs() < 1e-15);
    assert!(fm.iter().skip(1).chain(fp.iter().skip(1)).all(|&f| f == 0.0));
}

/// The error at the end of a run of `steps` steps over [0, 2] against the model's continuous run,
/// and the largest change of the vertical spatial momentum e₃·R μ along it.
fn top_errors<S>(
    model: &S,
    x0: &State<7>,
    steps: usize,
    exact: &State<7>,
    momenta: impl Fn(&State<7>) -> SVector<f64, 3>,
) -> (f64, f64)
where
    S: routh::runtime::RunsDiscrete<routh::runtime::run::Plain, Output = routh::runtime::DiscreteTrajectory<3, 4>>
        + routh::runtime::SimulateDiscrete<Start = State<7>>,
{
    let traj = model.run_discrete(*x0).step(2.0 / steps as f64).steps(steps).go().unwrap();
    let vertical = |k: usize| (unit(traj.positions[k].as_slice()) * traj.momenta[k]).z;
    let drift = (0..traj.len()).fold(0.0_f64, |m, k| m.max((vertical(k) - vertical(0)).abs()));
    let end = &traj.positions[steps];
    let angle = (unit(end.as_slice()).inverse() * unit(&exact.as_slice()[..4])).angle();
    let mu = momenta(exact);
    (angle + (traj.momenta[steps] - mu).amax() / mu.amax(), drift)
}

/// Both rules on the heavy top: second order against the model's continuous run (DOP853, tight),
/// the error at h/2 a quarter of that at h; e₃·R μ kept to rounding (the ground's rotations about
/// the vertical leave L_d unchanged: discrete Noether), with the momenta the model's own ∂L/∂v.
#[test]
fn the_heavy_top_converges_at_second_order_and_keeps_its_vertical_momentum() {
    let model = midpoint_top();
    let (m, l, a1, a2, c, g) = TOP;
    let trapezoid = TrapezoidTop { m, l, a1, a2, c, g };
    let (q, w) = top_start();
    let x0 = model.state(q, w);
    let options = Options::default().rtol(1e-13).atol(1e-14).scheme(routh::runtime::Scheme::Dop853);
    let exact = *model.run(x0).span(0.0..2.0).options(&options).go().unwrap().last().unwrap().1;
    let scale = model.momenta(0.0, &x0).norm();
    for (name, coarse, fine) in [
        (
            "midpoint",
            top_errors(&model, &x0, 400, &exact, |x| model.momenta(2.0, x)),
            top_errors(&model, &x0, 800, &exact, |x| model.momenta(2.0, x)),
        ),
        (
            "trapezoid",
            top_errors(&trapezoid, &x0, 400, &exact, |x| trapezoid.momenta(2.0, x)),
            top_errors(&trapezoid, &x0, 800, &exact, |x| trapezoid.momenta(2.0, x)),
        ),
    ] {
        let ratio = coarse.0 / fine.0;
        assert!(coarse.0 < 0.05, "{name}: error {:e} at h = 0.005", coarse.0);
        assert!((3.6..4.4).contains(&ratio), "{name}: error ratio {ratio} ({:e} → {:e})", coarse.0, fine.0);
        assert!(coarse.1.max(fine.1) < 1e-12 * scale, "{name}: e₃·R μ drifts by {:e}", coarse.1.max(fine.1));
    }
}

/// `discrete_energies` of the Lie group integrator (the body rates from the momenta by the
/// inverse Legendre transform) against the energy of the state whose rates ω = M⁻¹ μ nalgebra
/// solves at each node's attitude; over 20 s at h = 0.005 the midpoint top's energy stays in a band
/// that does not widen.
#[test]
fn the_energies_at_the_nodes_are_those_of_the_recovered_rates() {
    let model = midpoint_top();
    let (q, w) = top_start();
    let run = model.run_discrete(model.state(q, w)).step(0.005).steps(4000).go().unwrap();
    let energies = model.discrete_energies(&run).unwrap();
    assert_eq!(energies.len(), 4001);
    for k in (0..=4000).step_by(250) {
        let (q, mu) = (run.positions[k], run.momenta[k]);
        let still = model.state([q[0], q[1], q[2], q[3]], [0.0; 3]);
        let rates = model.mass_matrix(0.0, &still).lu().solve(&mu).unwrap();
        let e = model.energy(run.times[k], &model.state([q[0], q[1], q[2], q[3]], [rates[0], rates[1], rates[2]]));
        assert!((energies[k] - e).abs() < 1e-13 * e.abs().max(1.0), "node {k}: {} against {e}", energies[k]);
    }
    let band = |e: &[f64]| e.iter().fold(f64::NEG_INFINITY, |a, &b| a.max(b)) - e.iter().fold(f64::INFINITY, |a, &b| a.min(b));
    let (first, last) = (band(&energies[..1000]), band(&energies[3000..]));
    assert!(first < 1e-2 * energies[0].abs() && last < 1.5 * first, "energy bands {first:e}, {last:e}");
}

/// The step's Jacobian in the chart (δx, η, δμ) from the generated blocks against central
/// differences of the solved step, and the cotangent bundle's form kept — without the damper
/// (with it the map contracts and the form is not kept: its defect is not small).
#[test]
fn the_step_jacobian_is_that_of_the_step() {
    let options = DiscreteOptions::default();
    let (q0, xi, h) = cart_step();
    for damper in [0.0, 0.4] {
        let model = CartTop { d: damper, ..cart_top() };
        let (mu0, _) = model.discrete_momenta(0.0, h, &q0, &xi);
        let step = |q: &SVector<f64, 5>, mu: &SVector<f64, 4>| oriented_step(&model, (0.0, h), (q, mu), xi, &options).unwrap();
        let base = step(&q0, &mu0);
        assert!((base.increment - xi).amax() < 1e-12, "the step from μ⁻(q₀, ξ) is ξ");
        let jac = oriented_step_jacobian(&model, 0.0, h, &q0, &base.increment).unwrap().unwrap();
        let eps = 1e-6;
        let chart = |to: &SVector<f64, 5>| {
            let eta = (unit(&base.position.as_slice()[1..]).inverse() * unit(&to.as_slice()[1..])).scaled_axis();
            SVector::<f64, 4>::from([to[0] - base.position[0], eta.x, eta.y, eta.z])
        };
        for i in 0..8 {
            let e = SVector::<f64, 4>::from_fn(|r, _| if r == i % 4 { eps } else { 0.0 });
            let (up, down) = if i < 4 {
                (step(&moved(&q0, &e), &mu0), step(&moved(&q0, &-e), &mu0))
            } else {
                (step(&q0, &(mu0 + e)), step(&q0, &(mu0 - e)))
            };
            let dq = (chart(&up.position) - chart(&down.position)) / (2.0 * eps);
            let dmu = (up.momentum - down.momentum) / (2.0 * eps);
            let (exact_q, exact_mu) = if i < 4 {
                (jac.dq_dq.column(i), jac.dp_dq.column(i))
            } else {
                (jac.dq_dp.column(i - 4), jac.dp_dp.column(i - 4))
            };
            assert!(
                (exact_q - dq).amax() < 1e-6 * (1.0 + dq.amax()),
                "d = {damper}: ∂q₁ column {i}: {:e}",
                (exact_q - dq).amax()
            );
            assert!(
                (exact_mu - dmu).amax() < 1e-6 * (1.0 + dmu.amax()),
                "d = {damper}: ∂μ₁ column {i}: {:e}",
                (exact_mu - dmu).amax()
            );
        }
        let defect = oriented_symplecticity_defect::<5, 4>(&jac, &mu0, &base.momentum);
        if damper == 0.0 {
            assert!(defect < 1e-10, "symplectic defect {defect:e}");
        } else {
            assert!(defect > 1e-4, "the damped map keeps the form: {defect:e}");
        }
    }
}

include!("common/craft.rs");

const CRAFT: Craft = Craft { m: 3.0, i1: 1.5, i2: 2.5, i3: 4.0 };

/// The state (q, μ) of the map.
fn craft_state(q: UnitQuaternion<f64>, mu: [f64; 3]) -> SVector<f64, 7> {
    SVector::from([q.w, q.i, q.j, q.k, mu[0], mu[1], mu[2]])
}

/// The step map's A_d and B_d in the chart (η, δμ) against central differences of the step, the
/// state moved along its chart and the inputs one by one.
#[test]
fn the_crafts_step_map_has_the_differenced_jacobians() {
    use routh::runtime::step::OrientedMap;
    let map = OrientedMap::<_, 4, 3>::new(&CRAFT);
    let x = craft_state(UnitQuaternion::from_euler_angles(0.3, -0.5, 1.1), [0.4, -0.7, 1.3]);
    let (u, h) = (SVector::<f64, 3>::new(0.2, -0.1, 0.35), 0.05);
    let step = map.step::<7, 6, 3>(0.0, &x, &u, h).unwrap();
    assert_eq!(step.next, map.advance(0.0, &x, &u, h).unwrap(), "step's x_{{k+1}} is advance's to the bit");
    let eps = 1e-6;
    let diff = |a: &SVector<f64, 7>, b: &SVector<f64, 7>| OrientedMap::<Craft, 4, 3>::difference::<7, 6>(a, b);
    for i in 0..6 {
        let e = SVector::<f64, 6>::from_fn(|r, _| if r == i { eps } else { 0.0 });
        let moved = |s: f64| {
            let turn = unit(&x.as_slice()[..4]) * UnitQuaternion::from_scaled_axis(Vector3::new(e[0], e[1], e[2]) * s);
            craft_state(turn, [x[4] + s * e[3], x[5] + s * e[4], x[6] + s * e[5]])
        };
        let (up, down) = (map.advance(0.0, &moved(1.0), &u, h).unwrap(), map.advance(0.0, &moved(-1.0), &u, h).unwrap());
        let column = (diff(&up, &step.next) - diff(&down, &step.next)) / (2.0 * eps);
        assert!((step.a.column(i) - column).amax() < 1e-7 * (1.0 + column.amax()), "A_d column {i}");
    }
    for c in 0..3 {
        let e = SVector::<f64, 3>::from_fn(|r, _| if r == c { eps } else { 0.0 });
        let (up, down) = (map.advance(0.0, &x, &(u + e), h).unwrap(), map.advance(0.0, &x, &(u - e), h).unwrap());
        let column = (diff(&up, &step.next) - diff(&down, &step.next)) / (2.0 * eps);
        assert!((step.b.column(c) - column).amax() < 1e-7 * (1.0 + column.amax()), "B_d column {c}");
    }
}

/// The discrete LQR designed on the integrator's step at rest (12 × 12 would be the free body's
/// with a translation; here the attitude and body momenta, 6 × 6) brings the craft back from a
/// 0.8 rad tumble — run on the same integrator, u_k = −K (x_k ⊖ x*).
#[test]
fn a_discrete_lqr_on_the_integrator_holds_the_attitude() {
    use routh::nalgebra::SMatrix;
    use routh::runtime::step::OrientedMap;
    let map = OrientedMap::<_, 4, 3>::new(&CRAFT);
    let (rest, h) = (craft_state(UnitQuaternion::identity(), [0.0; 3]), 0.05);
    let step = map.step::<7, 6, 3>(0.0, &rest, &SVector::zeros(), h).unwrap();
    assert!((step.next - rest).amax() < 1e-15, "rest is a fixed point");
    let q = SMatrix::<f64, 6, 6>::from_diagonal(&SVector::from([10.0, 10.0, 10.0, 1.0, 1.0, 1.0]));
    let lqr = step.lqr(&q, &SMatrix::<f64, 3, 3>::identity()).unwrap();
    let mut x = craft_state(UnitQuaternion::from_scaled_axis(Vector3::new(0.5, -0.4, 0.45)), [0.3, -0.2, 0.5]);
    let start = OrientedMap::<Craft, 4, 3>::difference::<7, 6>(&x, &rest).norm();
    for k in 0..400 {
        let e = OrientedMap::<Craft, 4, 3>::difference::<7, 6>(&x, &rest);
        let u = -&lqr.gain * e;
        x = map.advance(k as f64 * h, &x, &SVector::<f64, 3>::from_fn(|i, _| u[i]), h).unwrap();
    }
    let end = OrientedMap::<Craft, 4, 3>::difference::<7, 6>(&x, &rest).norm();
    assert!(end < 1e-6 * start, "the chart error {start:.3} → {end:e}");
}

/// iLQR on the integrator (`ilqr_oriented`) plans a rest-to-rest 120° slew about the first axis:
/// converged, the plan's states the integrator's own rollout of its inputs to the bit, within 10⁻³
/// of the goal (the terminal weight 10⁵ against the torques' 0.3), the off-axis torques negligible.
#[test]
fn ilqr_on_the_integrator_plans_a_slew() {
    use routh::nalgebra::{Matrix3, SMatrix};
    use routh::runtime::ilqr::{IlqrProblem, IlqrStatus, ilqr_oriented};
    use routh::runtime::step::OrientedMap;
    let map = OrientedMap::<_, 4, 3>::new(&CRAFT);
    let (h, steps) = (0.05, 60);
    let goal = craft_state(UnitQuaternion::from_scaled_axis(Vector3::x() * 120_f64.to_radians()), [0.0; 3]);
    let q = SMatrix::<f64, 6, 6>::zeros();
    let problem = IlqrProblem::<7, 3, 6>::new((0.0, h, steps), goal, q, Matrix3::identity() * 0.3, SMatrix::identity() * 1e5)
        .tolerance(1e-12);
    let start = craft_state(UnitQuaternion::identity(), [0.0; 3]);
    let plan = ilqr_oriented(&map, &problem, &start, &vec![SVector::zeros(); steps]).unwrap();
    assert_eq!(plan.status, IlqrStatus::Converged);
    let mut x = start;
    for (k, u) in plan.inputs.iter().enumerate() {
        x = map.advance(k as f64 * h, &x, u, h).unwrap();
        assert_eq!(x, plan.states[k + 1], "node {}", k + 1);
    }
    let miss = OrientedMap::<Craft, 4, 3>::difference::<7, 6>(&x, &goal).amax();
    assert!(miss < 1e-3, "the slew ends {miss:e} from the goal");
    let off = plan.inputs.iter().map(|u| u[1].abs().max(u[2].abs())).fold(0.0, f64::max);
    let peak = plan.inputs.iter().map(|u| u[0].abs()).fold(0.0, f64::max);
    assert!(off < 1e-9 * peak, "off-axis torques {off:e} against {peak:.3}");
}

/// The symmetric heavy top with its vertical rotations declared (`symmetry(vertical = rotation(b,
/// [0, 0, 1]))`): the derive proves L_d invariant and generates the discrete momentum maps.
#[derive(Mechanics)]
#[mechanics(
    orientation(b),
    body(name = top, mass = m, centre = b * [0, 0, l], frame = b, inertia = diag(a, a, c)),
    gravity = [0, 0, -g],
    symmetry(vertical = rotation(b, [0, 0, 1])),
    discrete(rule = trapezoid),
)]
struct SymmetricTop {
    m: f64,
    l: f64,
    a: f64,
    c: f64,
    g: f64,
}

/// The generated discrete momentum of `vertical`: conserved by the law decided at compile time,
/// J⁻ of each step the J⁺ of the step before (momentum matching) and both e₃·R μ of the nodes.
#[test]
fn the_vertical_discrete_momentum_is_conserved_and_is_e3_r_mu() {
    let top = SymmetricTop { m: 0.8, l: 0.35, a: 0.021, c: 0.034, g: 9.81 };
    assert_eq!(SymmetricTop::VERTICAL_DISCRETE_LAW, routh::runtime::discrete::MomentumLaw::Conserved);
    let (q, w) = top_start();
    let h = 0.01;
    let traj = top.run_discrete(top.state(q, w)).step(h).steps(300).go().unwrap();
    let increment = |k: usize| {
        let (a, b) = (unit(traj.positions[k].as_slice()), unit(traj.positions[k + 1].as_slice()));
        let r = (a.inverse() * b).into_inner();
        SVector::<f64, 3>::new(2.0 * r.i / r.w, 2.0 * r.j / r.w, 2.0 * r.k / r.w)
    };
    let j0 = (unit(traj.positions[0].as_slice()) * traj.momenta[0]).z;
    let mut before: Option<f64> = None;
    for k in 0..300 {
        let (jm, jp) = top.vertical_discrete_momentum(k as f64 * h, h, &traj.positions[k], &increment(k));
        let spatial = |i: usize| (unit(traj.positions[i].as_slice()) * traj.momenta[i]).z;
        assert!((jm - spatial(k)).abs() < 1e-12 && (jp - spatial(k + 1)).abs() < 1e-12, "J∓ are e₃·Rμ at step {k}");
        assert!((jm - j0).abs() < 1e-12 && (jp - jm).abs() < 1e-12, "conserved at step {k}");
        if let Some(previous) = before {
            assert!((jm - previous).abs() < 1e-13, "J⁻(k) = J⁺(k − 1) at step {k}");
        }
        before = Some(jp);
        assert!(top.vertical_discrete_source(k as f64 * h, h, &traj.positions[k], &increment(k)).abs() < 1e-15);
    }
}

/// MPC on the integrator (`Mpc::control_oriented`): each tick plans 20 steps ahead by iLQR on the
/// Lie group integrator from the state met and applies the first torque — the first tick's input
/// the one-shot plan's to the bit — and brings the craft from a tumble to rest at the goal.
#[test]
fn mpc_on_the_integrator_brings_the_craft_to_rest_at_the_goal() {
    use routh::nalgebra::{Matrix3, SMatrix};
    use routh::runtime::ilqr::{IlqrProblem, ilqr_oriented};
    use routh::runtime::mpc::Mpc;
    use routh::runtime::step::OrientedMap;
    let map = OrientedMap::<_, 4, 3>::new(&CRAFT);
    let (h, horizon) = (0.05, 20);
    let goal = craft_state(UnitQuaternion::from_scaled_axis(Vector3::new(0.0, 0.0, 0.6)), [0.0; 3]);
    let weights = SMatrix::<f64, 6, 6>::from_diagonal(&SVector::from([100.0, 100.0, 100.0, 0.1, 0.1, 0.1]));
    let problem = IlqrProblem::<7, 3, 6>::new((0.0, h, horizon), goal, weights, Matrix3::identity() * 0.1, weights * 10.0)
        .max_iterations(5);
    let mut x = craft_state(UnitQuaternion::from_scaled_axis(Vector3::new(0.4, -0.3, -0.2)), [0.5, -0.4, 0.3]);
    let one_shot = ilqr_oriented(&map, &problem, &x, &vec![SVector::zeros(); horizon]).unwrap();
    let mut mpc = Mpc::new(problem);
    let start = OrientedMap::<Craft, 4, 3>::difference::<7, 6>(&x, &goal).norm();
    for k in 0..200 {
        let u = mpc.control_oriented(&map, k as f64 * h, &x).unwrap();
        if k == 0 {
            assert_eq!(u, one_shot.inputs[0], "the first tick is the one-shot plan's first input");
        }
        x = map.advance(k as f64 * h, &x, &u, h).unwrap();
    }
    let end = OrientedMap::<Craft, 4, 3>::difference::<7, 6>(&x, &goal).norm();
    assert!(end < 1e-6 * start, "the chart error {start:.3} → {end:e}");
}
