//! Observables (`output(...)`): named functions of the state evaluated along a run after it —
//! by name, as CSV with named columns, and through serde. (The double pendulum's outputs are
//! tested with the model in `tests/physics.rs`; those of a multi-mode model in
//! `tests/completion.rs`.)

use routh::prelude::*;

/// A ball over the floor: the outputs of a model with impacts, along a hybrid run.
#[derive(Mechanics)]
#[mechanics(
    coordinates(y),
    lagrangian = m / 2 * dot(y).powi(2) - m * g * y,
    impact(name = floor, guard = y, law = restitution(e)),
    output(energy = m / 2 * dot(y).powi(2) + m * g * y),
)]
struct Ball {
    m: f64,
    g: f64,
    e: f64,
}

#[test]
fn outputs_follow_a_hybrid_run_across_its_impacts() {
    // The energy output keeps its value between impacts and drops by the factor e² at each.
    let ball = Ball { m: 2.0, g: 9.81, e: 0.8 };
    let opts = HybridOptions::default().rtol(1e-11).atol(1e-12);
    let sol = ball.run(ball.state([1.0], [0.0])).span(0.0..1.5).options(&opts).go().unwrap();
    assert!(sol.impacts.len() >= 2);
    let energy = ball.observe(&sol).column("energy").unwrap();
    let e0 = ball.m * ball.g;
    for ((t, _, _), e) in sol.iter().zip(&energy) {
        let bounces = sol.impacts.iter().filter(|i| i.t <= t).count() as i32;
        let expected = e0 * ball.e.powi(2 * bounces);
        // (At an impact's time both its samples are there: before and after.)
        let before = e0 * ball.e.powi(2 * (bounces - 1).max(0));
        assert!((e - expected).abs() < 1e-8 * e0 || (e - before).abs() < 1e-8 * e0, "t = {t}: {e} vs {expected}");
    }
}

/// A pendulum in Cartesian coordinates with its rod as a holonomic constraint: the rod's
/// multiplier and the energy as outputs.
#[derive(Mechanics)]
#[mechanics(
    coordinates(x, y),
    lagrangian = m / 2 * (dot(x).powi(2) + dot(y).powi(2)) - m * g * y,
    holonomic(rod = x.powi(2) + y.powi(2) - l.powi(2)),
    output(lam = multiplier(rod), e = energy()),
)]
struct RodPendulum {
    m: f64,
    g: f64,
    l: f64,
}

/// The guide's pushed ball on a unilateral floor: the floor's normal force as an output, in the
/// mode where the floor holds and (0) in flight.
#[derive(Mechanics)]
#[mechanics(
    coordinates(y),
    lagrangian = m / 2 * dot(y).powi(2) - m * g * y,
    force(y = c * t),
    unilateral(name = floor, guard = y, law = restitution(0)),
    output(normal = multiplier(floor), e = energy()),
)]
struct PushedBall {
    m: f64,
    g: f64,
    c: f64,
}

#[test]
fn constraint_forces_and_the_energy_are_outputs() {
    // The rod's multiplier is the tension T = m (g cos θ + l θ̇²) through Aᵀλ = 2λ(x, y) = −T(x, y)/l
    // (θ from the downward vertical), and E = ½ m |v|² + m g y is constant.
    let p = RodPendulum { m: 1.3, g: 9.81, l: 0.7 };
    let (th0, w0): (f64, f64) = (1.1, 0.4);
    let x0 = p.state([p.l * th0.sin(), -p.l * th0.cos()], [p.l * w0 * th0.cos(), p.l * w0 * th0.sin()]);
    let sol = p.run(x0).span(0.0..3.0).rtol(1e-12).atol(1e-13).output(Output::Interval(0.1)).go().unwrap();
    let obs = p.observe(&sol);
    let (lam, e) = (obs.column("lam").unwrap(), obs.column("e").unwrap());
    let e0 = p.energy(0.0, &x0);
    for ((x, l), e) in sol.states.iter().zip(lam).zip(e) {
        let th = x[0].atan2(-x[1]);
        let w = (x[0] * x[3] - x[1] * x[2]) / (p.l * p.l);
        let tension = p.m * (p.g * th.cos() + p.l * w * w);
        assert!((l + tension / (2.0 * p.l)).abs() < 1e-9 * tension.abs().max(1.0), "λ = {l}, T = {tension}");
        assert!((e - e0).abs() < 1e-9 * e0.abs(), "E = {e} vs {e0}");
    }
    // Resting on the floor the normal force is m g − c t until the push lifts the ball at
    // t* = m g / c; in flight the floor does not push (0).
    let b = PushedBall { m: 2.0, g: 9.81, c: 4.0 };
    let opts = HybridOptions::default().ode(Options::default().rtol(1e-12).atol(1e-13).output(Output::Interval(0.25)));
    let sol = b.run(b.floor_state([0.0], [0.0])).span(0.0..6.0).options(&opts).go().unwrap();
    assert_eq!(sol.mode_sequence(), vec![PushedBall::FLOOR, PushedBall::FREE]);
    let obs = b.observe(&sol);
    let (normal, e) = (obs.column("normal").unwrap(), obs.column("e").unwrap());
    let t_star = b.m * b.g / b.c;
    for (((t, mode, x), n), e) in sol.iter().zip(normal).zip(e) {
        let want = if mode == PushedBall::FLOOR { b.m * b.g - b.c * t } else { 0.0 };
        assert!((n - want).abs() < 1e-9, "t = {t}: normal {n} vs {want}");
        assert!((e - (0.5 * b.m * x[1] * x[1] + b.m * b.g * x[0])).abs() < 1e-12);
        assert!(mode == PushedBall::FLOOR || t >= t_star - 1e-9);
    }
}

/// The six-joint arm of `tests/robots/arm6.urdf` (the spatial recursion) with its tool's tip and,
/// for the geometric check, each joint's axis and origin in the world.
#[derive(Mechanics)]
#[mechanics(
    urdf = "tests/robots/arm6.urdf",
    output(
        tip = tool_origin + tool * [0, 0, 0.05],
        a1 = shoulder * [0, 0, 1], o1 = shoulder_origin,
        a2 = upper_arm * [0, 1, 0], o2 = upper_arm_origin,
        a3 = forearm * [0, 1, 0], o3 = forearm_origin,
        a4 = wrist_1_link * [0, 1, 0], o4 = wrist_1_link_origin,
        a5 = wrist_2_link * [0, 0, 1], o5 = wrist_2_link_origin,
        a6 = wrist_3_link * [0, 1, 0], o6 = wrist_3_link_origin,
    ),
    gravity = [0, 0, -g],
)]
struct ArmTip {
    g: f64,
}

/// The quadruped of `tests/robots/quadruped.urdf` on its floating base (a quaternion in the
/// state): a foot's position, the trunk's height, and E (computed along the tree: its row ∇E by
/// reverse mode through that pass).
#[derive(Mechanics)]
#[mechanics(
    urdf = "tests/robots/quadruped.urdf",
    output(foot = fr_foot_origin, height = trunk_origin[2], e = energy()),
    gravity = [0, 0, -g],
)]
struct QuadrupedFoot {
    g: f64,
}

/// C = ∂y/∂x against central differences of `outputs` along every component of the state
/// (h = 10⁻⁶, relative to C's largest entry).
fn check_against_differences<const D: usize, const K: usize>(
    c: &routh::nalgebra::SMatrix<f64, K, D>,
    outputs: impl Fn(&State<D>) -> [f64; K],
    x: &State<D>,
) {
    let h = 1e-6;
    let scale = c.amax().max(1.0);
    for j in 0..D {
        let (mut up, mut down) = (*x, *x);
        up[j] += h;
        down[j] -= h;
        let (yu, yd) = (outputs(&up), outputs(&down));
        for i in 0..K {
            let fd = (yu[i] - yd[i]) / (2.0 * h);
            assert!((c[(i, j)] - fd).abs() < 1e-7 * scale, "C[{i}][{j}] = {} against {fd}", c[(i, j)]);
        }
    }
}

#[test]
fn the_outputs_jacobian_is_their_derivative_and_a_tips_the_joints_screws() {
    let arm = ArmTip { g: 9.81 };
    let x = arm.state([0.3, -1.2, 1.0, -0.5, 0.7, 0.2], [0.4, -0.3, 0.9, 0.1, -0.6, 0.5]);
    let c = arm.output_jacobian(0.0, &x);
    check_against_differences(&c, |x| arm.outputs(0.0, x), &x);
    // The tip's rows: column i is the joint's axis a_i crossed with the tip's offset from the
    // joint's origin o_i (a revolute joint turns the tip about its axis), and a position does not
    // read the rates.
    let y = arm.outputs(0.0, &x);
    let v3 = |k: usize| routh::nalgebra::Vector3::new(y[k], y[k + 1], y[k + 2]);
    let tip = v3(0);
    for i in 0..6 {
        let (a, o) = (v3(3 + 6 * i), v3(6 + 6 * i));
        let screw = a.cross(&(tip - o));
        for r in 0..3 {
            assert!((c[(r, i)] - screw[r]).abs() < 1e-12, "joint {i}, row {r}: {} against {}", c[(r, i)], screw[r]);
            assert_eq!(c[(r, 6 + i)], 0.0);
        }
    }
    // On a floating base, along the quaternion's components too (the outputs read R(q/|q|)): a
    // quaternion off the unit sphere, where the normalisation's derivative shows.
    let quad = QuadrupedFoot { g: 9.81 };
    let mut x = State::<37>::from_fn(|i, _| 0.2 + 0.1 * ((i * 7) % 5) as f64 - 0.15 * (i % 3) as f64);
    for (k, v) in [1.1, 0.2, -0.3, 0.25].into_iter().enumerate() {
        x[3 + k] = v;
    }
    let c = quad.output_jacobian(0.0, &x);
    check_against_differences(&c, |x| quad.outputs(0.0, x), &x);
    // Moving the base along x, y, z moves the foot along them and the trunk's height with z.
    for r in 0..3 {
        for k in 0..3 {
            assert!((c[(r, k)] - if r == k { 1.0 } else { 0.0 }).abs() < 1e-14);
        }
    }
    assert_eq!(QuadrupedFoot::OUTPUTS, ["foot[0]", "foot[1]", "foot[2]", "height", "e"]);
    assert!((c[(3, 2)] - 1.0).abs() < 1e-14);
    // E's row: its height's column is the weight m g (M's first entry the whole mass m; z enters E
    // only through the potential), and its rows of the rates are the momenta ∂E/∂v = M v (in the
    // chart, v = (ẋ, ω, q̇ of the legs)).
    let mass = quad.mass_matrix(0.0, &x);
    let momenta = mass * x.fixed_rows::<18>(19);
    let weight = quad.g * mass[(0, 0)];
    assert!((c[(4, 2)] - weight).abs() < 1e-10 * weight, "∂E/∂z = {} against m g = {weight}", c[(4, 2)]);
    for k in 0..18 {
        assert!((c[(4, 19 + k)] - momenta[k]).abs() < 1e-10 * (1.0 + momenta.amax()), "∂E/∂v{k}");
    }
}
