//! Floating bases and ball joints on the spatial recursion: an orientation's three body rates as a
//! chain of massless links, the first turning by the whole rotation (see
//! `macros/core/src/derive/dynamics/spatial`). A twelve-joint quadruped from its URDF against the
//! same robot written by hand; a chain with a floating base, a hinge, a ball joint in the middle and a
//! hinge below it against the dense path (Hamel's equations, an independent derivation); the
//! quadruped's linear momentum in flight, which gravity alone changes (ṗ = m g), and the chain's
//! energy along a run; a floating chain long enough for M to be the runtime's (past the generated
//! CRBA's size) against its inverse dynamics and its energy.

#[macro_use]
mod common;

use common::Rng;
use routh::prelude::*;

/// A floating-base quadruped with twelve joints from its URDF (`tests/robots/quadruped.urdf`).
#[derive(Mechanics)]
#[mechanics(urdf = "tests/robots/quadruped.urdf", gravity = [0, 0, -g])]
pub struct Quadruped {
    pub g: f64,
}

/// The same quadruped from its file as legged robots' are written (`quadruped_trunk.urdf`: the
/// trunk the root link, no world link and no floating joint), moved freely when asked.
#[derive(Mechanics)]
#[mechanics(urdf(path = "tests/robots/quadruped_trunk.urdf", root = floating), gravity = [0, 0, -g])]
pub struct TrunkQuadruped {
    pub g: f64,
}

/// A quadrotor's frame from its file of one link and no joint, moved freely when asked: a free
/// body whose centre is off the link's origin, its axes of inertia turned from the link's.
#[derive(Mechanics)]
#[mechanics(urdf(path = "tests/robots/quadrotor.urdf", root = floating), gravity = [0, 0, -g])]
pub struct Quadrotor {
    pub g: f64,
}

/// The same with its field Jacobian (and so `linearize_tangent`), without inputs.
#[derive(Mechanics)]
#[mechanics(urdf = "tests/robots/quadruped.urdf", gravity = [0, 0, -g], jacobian)]
pub struct QuadrupedLinear {
    pub g: f64,
}

/// The same quadruped by hand: the trunk's translation, then its orientation (declared between
/// them, so that the legs hang below it), each link's frame and origin written out.
#[derive(Mechanics)]
#[mechanics(
    coordinates(base_x, base_y, base_z),
    orientation(base_q),
    coordinates(fl_haa, fl_hfe, fl_kfe, fr_haa, fr_hfe, fr_kfe, hl_haa, hl_hfe, hl_kfe, hr_haa, hr_hfe, hr_kfe),
    point(o = [base_x, base_y, base_z + 0.3]),
    body(name = trunk, mass = 2.5, centre = o + base_q * [0.01, 0, 0.005], frame = base_q,
         inertia = [[0.006, 0.0001, 0.0002], [0.0001, 0.02, 0], [0.0002, 0, 0.024]]),
    frame(fl_h = base_q * rot_x(fl_haa), fl_t = fl_h * rot_y(fl_hfe), fl_s = fl_t * rot_y(fl_kfe)),
    point(fl_ho = o + base_q * [0.2, 0.06, 0], fl_to = fl_ho + fl_h * [0, 0.05, 0],
          fl_so = fl_to + fl_t * [0, 0, -0.16]),
    body(name = fl_hip, mass = 0.15, centre = fl_ho + fl_h * [0, 0.02, 0], frame = fl_h,
         inertia = diag(0.00008, 0.00012, 0.0001)),
    body(name = fl_thigh, mass = 0.15, centre = fl_to + fl_t * [0, 0.01, -0.07], frame = fl_t,
         inertia = [[0.0003, 0.000002, -0.000004], [0.000002, 0.0003, 0.000003], [-0.000004, 0.000003, 0.00002]]),
    body(name = fl_shin, mass = 0.04, centre = fl_so + fl_s * [0, 0, -0.08], frame = fl_s,
         inertia = diag(0.0001, 0.0001, 0.000002)),
    body(name = fl_foot, mass = 0.01, centre = fl_so + fl_s * [0, 0, -0.16], frame = fl_s,
         inertia = diag(0.000001, 0.000001, 0.000001)),
    frame(fr_h = base_q * rot_x(fr_haa), fr_t = fr_h * rot_y(fr_hfe), fr_s = fr_t * rot_y(fr_kfe)),
    point(fr_ho = o + base_q * [0.2, -0.06, 0], fr_to = fr_ho + fr_h * [0, -0.05, 0],
          fr_so = fr_to + fr_t * [0, 0, -0.16]),
    body(name = fr_hip, mass = 0.15, centre = fr_ho + fr_h * [0, -0.02, 0], frame = fr_h,
         inertia = diag(0.00008, 0.00012, 0.0001)),
    body(name = fr_thigh, mass = 0.15, centre = fr_to + fr_t * [0, -0.01, -0.07], frame = fr_t,
         inertia = [[0.0003, 0.000002, -0.000004], [0.000002, 0.0003, 0.000003], [-0.000004, 0.000003, 0.00002]]),
    body(name = fr_shin, mass = 0.04, centre = fr_so + fr_s * [0, 0, -0.08], frame = fr_s,
         inertia = diag(0.0001, 0.0001, 0.000002)),
    body(name = fr_foot, mass = 0.01, centre = fr_so + fr_s * [0, 0, -0.16], frame = fr_s,
         inertia = diag(0.000001, 0.000001, 0.000001)),
    frame(hl_h = base_q * rot_z(pi) * rot_x(hl_haa), hl_t = hl_h * rot_y(hl_hfe), hl_s = hl_t * rot_y(hl_kfe)),
    point(hl_ho = o + base_q * [-0.2, 0.06, 0], hl_to = hl_ho + hl_h * [0, -0.05, 0],
          hl_so = hl_to + hl_t * [0, 0, -0.16]),
    body(name = hl_hip, mass = 0.15, centre = hl_ho + hl_h * [0, -0.02, 0], frame = hl_h,
         inertia = diag(0.00008, 0.00012, 0.0001)),
    body(name = hl_thigh, mass = 0.15, centre = hl_to + hl_t * [0, -0.01, -0.07], frame = hl_t,
         inertia = [[0.0003, 0.000002, -0.000004], [0.000002, 0.0003, 0.000003], [-0.000004, 0.000003, 0.00002]]),
    body(name = hl_shin, mass = 0.04, centre = hl_so + hl_s * [0, 0, -0.08], frame = hl_s,
         inertia = diag(0.0001, 0.0001, 0.000002)),
    body(name = hl_foot, mass = 0.01, centre = hl_so + hl_s * [0, 0, -0.16], frame = hl_s,
         inertia = diag(0.000001, 0.000001, 0.000001)),
    frame(hr_h = base_q * rot_z(pi) * rot_x(hr_haa), hr_t = hr_h * rot_y(hr_hfe), hr_s = hr_t * rot_y(hr_kfe)),
    point(hr_ho = o + base_q * [-0.2, -0.06, 0], hr_to = hr_ho + hr_h * [0, 0.05, 0],
          hr_so = hr_to + hr_t * [0, 0, -0.16]),
    body(name = hr_hip, mass = 0.15, centre = hr_ho + hr_h * [0, 0.02, 0], frame = hr_h,
         inertia = diag(0.00008, 0.00012, 0.0001)),
    body(name = hr_thigh, mass = 0.15, centre = hr_to + hr_t * [0, 0.01, -0.07], frame = hr_t,
         inertia = [[0.0003, 0.000002, -0.000004], [0.000002, 0.0003, 0.000003], [-0.000004, 0.000003, 0.00002]]),
    body(name = hr_shin, mass = 0.04, centre = hr_so + hr_s * [0, 0, -0.08], frame = hr_s,
         inertia = diag(0.0001, 0.0001, 0.000002)),
    body(name = hr_foot, mass = 0.01, centre = hr_so + hr_s * [0, 0, -0.16], frame = hr_s,
         inertia = diag(0.000001, 0.000001, 0.000001)),
    force(fl_kfe = -0.01 * dot(fl_kfe), fr_kfe = -0.01 * dot(fr_kfe), hl_kfe = -0.01 * dot(hl_kfe), hr_kfe = -0.01 * dot(hr_kfe)),
    gravity = [0, 0, -g],
)]
pub struct QuadrupedByHand {
    pub g: f64,
}

#[test]
fn a_quadruped_from_its_urdf_is_the_quadruped_written_by_hand() {
    assert_eq!(Quadruped::STATE_NAMES, QuadrupedByHand::STATE_NAMES);
    assert_eq!((Quadruped::DYNAMICS, QuadrupedByHand::DYNAMICS), ("recursive", "recursive"));
    let (file, hand) = (Quadruped { g: 9.81 }, QuadrupedByHand { g: 9.81 });
    let mut rng = Rng::new(41);
    for _ in 0..10 {
        let q = [(); 19].map(|_| rng.uniform(-1.0, 1.0));
        let v = [(); 18].map(|_| rng.uniform(-2.0, 2.0));
        let x = file.state(q, v);
        let (a, b) = (file.accelerations(0.0, &x).unwrap(), hand.accelerations(0.0, &x).unwrap());
        assert!((a - b).amax() < 1e-12 * (1.0 + b.amax()), "{a} against {b}");
        assert_near!(file.mass_matrix(0.0, &x), hand.mass_matrix(0.0, &x), 1e-12);
        let (e, eh) = (file.energy(0.0, &x), hand.energy(0.0, &x));
        assert!((e - eh).abs() < 1e-12 * (1.0 + eh.abs()), "{e} against {eh}");
    }
}

#[test]
fn a_legged_robots_file_without_a_base_joint_floats_when_asked() {
    // `root = floating` adds the joint `root` above the trunk: the file with its own floating
    // joint `base` from a world link, whose origin is 0.3 above the world's, is the same robot with
    // root = base + (0, 0, 0.3).
    let names: Vec<String> = Quadruped::STATE_NAMES.iter().map(|n| n.replacen("base", "root", 1)).collect();
    assert_eq!(TrunkQuadruped::STATE_NAMES, names.as_slice());
    assert_eq!(TrunkQuadruped::DYNAMICS, "recursive");
    let z = Quadruped::STATE_NAMES.iter().position(|n| *n == "base_z").unwrap();
    let (file, trunk) = (Quadruped { g: 9.81 }, TrunkQuadruped { g: 9.81 });
    let mut rng = Rng::new(47);
    for _ in 0..10 {
        let q = [(); 19].map(|_| rng.uniform(-1.0, 1.0));
        let v = [(); 18].map(|_| rng.uniform(-2.0, 2.0));
        let mut lifted = q;
        lifted[z] += 0.3;
        let (x, y) = (file.state(q, v), trunk.state(lifted, v));
        let (a, b) = (trunk.accelerations(0.0, &y).unwrap(), file.accelerations(0.0, &x).unwrap());
        assert!((a - b).amax() < 1e-12 * (1.0 + b.amax()), "{a} against {b}");
        assert_near!(trunk.mass_matrix(0.0, &y), file.mass_matrix(0.0, &x), 1e-12);
        let (e, ef) = (trunk.energy(0.0, &y), file.energy(0.0, &x));
        assert!((e - ef).abs() < 1e-12 * (1.0 + ef.abs()), "{e} against {ef}");
    }
}

#[test]
fn a_single_link_file_floats_as_a_free_body() {
    // Newton and Euler about the centre c (in the link's axes, off its origin o): p = o + R c falls
    // at g, I_c ω̇ + ω × I_c ω = 0 in the link's axes (I_c the file's inertia turned by its
    // inertial rpy), so that ö = g − R (ω̇ × c + ω × (ω × c)).
    use routh::nalgebra::{Matrix3, Quaternion, Rotation3, UnitQuaternion, Vector3};
    assert_eq!(
        Quadrotor::STATE_NAMES,
        [
            "root_x",
            "root_y",
            "root_z",
            "root_q_w",
            "root_q_x",
            "root_q_y",
            "root_q_z",
            "dot(root_x)",
            "dot(root_y)",
            "dot(root_z)",
            "omega1(root_q)",
            "omega2(root_q)",
            "omega3(root_q)"
        ]
    );
    let (m, g) = (1.477, 9.81);
    let c = Vector3::new(0.02, -0.01, 0.03);
    let turn = Rotation3::from_euler_angles(0.1, 0.2, -0.3);
    let i_c = turn * Matrix3::new(0.01152, 0.0004, -0.0002, 0.0004, 0.01252, 0.0001, -0.0002, 0.0001, 0.0218) * turn.transpose();
    let robot = Quadrotor { g };
    let mut rng = Rng::new(53);
    for _ in 0..10 {
        let q: [f64; 7] = std::array::from_fn(|_| rng.uniform(-1.0, 1.0));
        let v: [f64; 6] = std::array::from_fn(|_| rng.uniform(-3.0, 3.0));
        let x = robot.state(q, v);
        let r = UnitQuaternion::from_quaternion(Quaternion::new(q[3], q[4], q[5], q[6]));
        let w = Vector3::new(v[3], v[4], v[5]);
        let dw = i_c.try_inverse().unwrap() * -w.cross(&(i_c * w));
        let ddo = Vector3::new(0.0, 0.0, -g) - r * (dw.cross(&c) + w.cross(&w.cross(&c)));
        let a = robot.accelerations(0.0, &x).unwrap();
        let expected = [ddo[0], ddo[1], ddo[2], dw[0], dw[1], dw[2]];
        for k in 0..6 {
            assert!((a[k] - expected[k]).abs() < 1e-12 * (1.0 + ddo.amax()), "{k}: {a} against {expected:?}");
        }
        // E = ½ m |ṗ|² + ½ ωᵀ I_c ω + m g p_z.
        let p = Vector3::new(q[0], q[1], q[2]) + r * c;
        let dp = Vector3::new(v[0], v[1], v[2]) + r * w.cross(&c);
        let e = 0.5 * m * dp.norm_squared() + 0.5 * w.dot(&(i_c * w)) + m * g * p[2];
        assert!((robot.energy(0.0, &x) - e).abs() < 1e-12 * (1.0 + e.abs()));
    }
}

#[test]
fn a_quadruped_in_flight_changes_its_momentum_by_gravity_alone() {
    // The trunk's translations are in the world's axes: their momenta ∂T/∂ẋ are the robot's linear
    // momentum, which the joints' torques (here the knees' damping) cannot change: p(t) = p(0) + m g t
    // with m = 2.5 + 4 (0.15 + 0.15 + 0.04 + 0.01) = 3.9.
    let robot = Quadruped { g: 9.81 };
    let mut rng = Rng::new(43);
    let q: [f64; 19] = std::array::from_fn(|i| if i < 15 { rng.uniform(-0.5, 0.5) } else { rng.uniform(-1.0, 1.0) });
    let v = [(); 18].map(|_| rng.uniform(-2.0, 2.0));
    let x0 = robot.state(q, v);
    let p0 = robot.momenta(0.0, &x0);
    let options = Options::default().rtol(1e-11).atol(1e-12);
    let run = robot.run(x0).span(0.0..1.0).options(&options).go().unwrap();
    let mass = 3.9;
    assert!(run.states.len() > 10);
    for (t, x) in run.times.iter().zip(&run.states) {
        let p = robot.momenta(*t, x);
        let expected = [p0[0], p0[1], p0[2] - mass * 9.81 * t];
        for k in 0..3 {
            assert!((p[k] - expected[k]).abs() < 1e-8, "p{k}({t}) = {} against {}", p[k], expected[k]);
        }
    }
}

#[test]
fn a_quadruped_at_rest_is_held_up_by_its_weight_alone() {
    // `static_forces` comes from a pass of its own that forms no velocity (gravity compensation's);
    // against the forcing with the velocities zeroed (the full pass), and physically: what holds
    // the robot still is its weight on the trunk's vertical translation, m g with m = 3.9, nothing
    // on its horizontal ones, and about the trunk's centre of mass (the first moment about the
    // world's axes) the joints' gravity torques. The knees' damping is a force of the velocities:
    // `velocity_forces` carries it, `static_forces` + `velocity_forces` is −f.
    let robot = Quadruped { g: 9.81 };
    let mut rng = Rng::new(47);
    for _ in 0..10 {
        let q = [(); 19].map(|_| rng.uniform(-1.0, 1.0));
        let v = [(); 18].map(|_| rng.uniform(-2.0, 2.0));
        let x = robot.state(q, v);
        let still = robot.state(q, [0.0; 18]);
        let held = robot.static_forces(0.0, &x);
        assert_near!(held, -robot.forcing(0.0, &still), 1e-12);
        assert_near!(held + robot.velocity_forces(0.0, &x), -robot.forcing(0.0, &x), 1e-12);
        assert!(held[0].abs() < 1e-12 && held[1].abs() < 1e-12, "{held}");
        assert!((held[2] - 3.9 * 9.81).abs() < 1e-12, "{} against {}", held[2], 3.9 * 9.81);
        // At rest the field's accelerations are M⁻¹ f; the inverse dynamics of zero is −f.
        assert_near!(robot.inverse_dynamics(0.0, &still, &Vector::<18>::zeros()).unwrap(), held, 1e-12);
    }
}

/// A floating trunk, a hinge, a ball joint in the middle of the chain (its centre off the link's
/// origin, its frame turned by `rpy`) and a hinge below it, with an input driving the joints, a
/// potential of both orientations in the written Lagrangian, the trunk's mass as a sensitivity
/// parameter, the toe's tip held in a vertical plane (a holonomic constraint) and striking the
/// floor (an impact): on the spatial recursion and on the dense path (`$items`: the constraint and
/// the impact, or nothing for the chain flying free).
macro_rules! chain {
    ($name:ident, $dynamics:ident, [$($items:tt)*]) => {
        #[derive(Mechanics)]
        #[mechanics(
            joint(name = base, kind = floating, child = trunk, origin = [0, 0, 0.5],
                  mass = m, centre = [0.01, 0, 0], inertia = [[0.1, 0.01, 0], [0.01, 0.2, 0], [0, 0, 0.25]]),
            joint(name = hip, kind = revolute, parent = trunk, child = leg, origin = [0.2, 0, -0.05], axis = [0, 1, 0],
                  mass = 0.5, centre = [0, 0, -0.15], inertia = diag(0.004, 0.004, 0.0005)),
            joint(name = ball, kind = ball, parent = leg, child = foot, origin = [0, 0.1, -0.3], rotation = rpy(0.3, 0, 0),
                  mass = 0.2, centre = [0.05, 0, -0.1], inertia = [[0.002, 0.0001, 0], [0.0001, 0.003, 0], [0, 0, 0.0015]]),
            joint(name = knee, kind = revolute, parent = foot, child = toe, origin = [0, 0, -0.2], axis = [1, 0, 0],
                  mass = 0.1, centre = [0, 0, -0.05], inertia = diag(0.001, 0.001, 0.0002)),
            point(tip = toe_origin + toe * [0, 0, -0.1]),
            input(u),
            force(hip = u, knee = -u, ball_q = [0.1 * u, 0, 0]),
            lagrangian = -0.5 * (ball_q * [1, 0, 0])[1] - 0.3 * (base_q * [0, 1, 0])[2],
            sensitivity(m),
            $($items)*
            gravity = [0, 0, -9.81],
            dynamics = $dynamics,
        )]
        pub struct $name {
            pub m: f64,
        }
    };
}
chain!(Chain, recursive, [holonomic(plane = tip[1] - 0.1), impact(name = floor, guard = tip[2], law = restitution(0.5)),]);
chain!(ChainDense, dense, [holonomic(plane = tip[1] - 0.1), impact(name = floor, guard = tip[2], law = restitution(0.5)),]);
chain!(FreeChain, recursive, []);
chain!(FreeChainDense, dense, []);

/// Central differences (step 10⁻⁶) of the chain's inverse dynamics `tau` at `x` along the positions'
/// rates K(q) e_k (`rates` = ∂q̇/∂v: a quaternion's body rotation vector) and along the velocities.
fn rate_differences(
    tau: impl Fn(&SVector<f64, 24>) -> SVector<f64, 11>,
    x: &SVector<f64, 24>,
    rates: &SMatrix<f64, 13, 11>,
) -> (SMatrix<f64, 11, 11>, SMatrix<f64, 11, 11>) {
    let h = 1e-6;
    let (mut along_q, mut along_v) = (SMatrix::<f64, 11, 11>::zeros(), SMatrix::<f64, 11, 11>::zeros());
    for k in 0..11 {
        let mut dx = SVector::<f64, 24>::zeros();
        dx.fixed_rows_mut::<13>(0).copy_from(&rates.column(k));
        along_q.set_column(k, &((tau(&(x + dx * h)) - tau(&(x - dx * h))) / (2.0 * h)));
        let mut dv = SVector::<f64, 24>::zeros();
        dv[13 + k] = 1.0;
        along_v.set_column(k, &((tau(&(x + dv * h)) - tau(&(x - dv * h))) / (2.0 * h)));
    }
    (along_q, along_v)
}

/// ∂τ/∂q and ∂τ/∂v of the inverse dynamics of the free-flying chain (a floating base and a ball
/// joint: two quaternions), ∂τ/∂q along each position direction's rates (a quaternion's body
/// rotation vector): along the links (the kinetic part's tangent along the rates, less the forces'
/// derivatives) against the dense path's (the residual's symbolic derivatives times K(q)), against
/// central differences of `inverse_dynamics` along the rates' directions, and, at the field's own
/// accelerations, −M⁻¹ ∂τ/∂θ and −M⁻¹ ∂τ/∂v against the field's Jacobian (∂v̇/∂q K(q) and ∂v̇/∂v).
#[test]
fn a_floating_chains_inverse_dynamics_jacobian_is_in_the_tangent_chart() {
    let (rec, dense) = (FreeChain { m: 3.0 }, FreeChainDense { m: 3.0 });
    let mut rng = Rng::new(53);
    for _ in 0..5 {
        let q = [(); 13].map(|_| rng.uniform(-1.0, 1.0));
        let v = [(); 11].map(|_| rng.uniform(-2.0, 2.0));
        let u = [rng.uniform(-1.0, 1.0)];
        let x = rec.state(q, v);
        let qdd = SVector::<f64, 11>::from_fn(|i, _| 0.3 * i as f64 - 1.5);
        let (r, d) = (rec.driven(u), dense.driven(u));
        let (rq, rv) = r.inverse_dynamics_jacobian(0.0, &x, &qdd).unwrap();
        let (dq, dv) = d.inverse_dynamics_jacobian(0.0, &x, &qdd).unwrap();
        assert_near!(rq, dq, 1e-10);
        assert_near!(rv, dv, 1e-10);
        let jac = d.jacobian(0.0, &x).unwrap();
        let rates = jac.fixed_view::<13, 11>(0, 13).into_owned();
        let (fq, fv) = rate_differences(|x| r.inverse_dynamics(0.0, x, &qdd).unwrap(), &x, &rates);
        assert_near!(rq, fq, 1e-6);
        assert_near!(rv, fv, 1e-6);
        let a = r.accelerations(0.0, &x).unwrap();
        let (aq, av) = r.inverse_dynamics_jacobian(0.0, &x, &a).unwrap();
        let m = d.mass_matrix(0.0, &x).lu();
        assert_near!(-m.solve(&aq).unwrap(), jac.fixed_view::<11, 13>(13, 0) * rates, 1e-9);
        assert_near!(-m.solve(&av).unwrap(), jac.fixed_view::<11, 11>(13, 13).into_owned(), 1e-9);
    }
}

/// The free-flying chain's field Jacobian and linearisation along its links — the runtime's
/// analytic derivatives with the floating base and the ball joint differentiated along their body
/// rotation vectors, taken over the quaternions' components through ∂θ/∂q = 2 vec(q* ⊗ ·)/|q|²
/// (quaternions of any norm) — against the dense path's (Hamel's equations differentiated
/// symbolically), and A's columns along the rates K(q) e_k against central differences of the
/// field in the state (both charts meet on the tangent directions; A is exact off them too: the
/// field does not change with a quaternion's norm).
#[test]
fn a_floating_chains_field_jacobian_along_its_links_is_the_dense_paths() {
    let (rec, dense) = (FreeChain { m: 3.0 }, FreeChainDense { m: 3.0 });
    let mut rng = Rng::new(61);
    for _ in 0..5 {
        let q = [(); 13].map(|_| rng.uniform(-1.0, 1.0));
        let v = [(); 11].map(|_| rng.uniform(-2.0, 2.0));
        let u = [rng.uniform(-1.0, 1.0)];
        let x = rec.state(q, v);
        let (r, d) = (rec.driven(u), dense.driven(u));
        let (ja, jb) = (r.jacobian(0.0, &x).unwrap(), d.jacobian(0.0, &x).unwrap());
        assert_near!(ja, jb, 1e-10);
        let (la, lb) = (rec.linearize(0.0, &x, u).unwrap(), dense.linearize(0.0, &x, u).unwrap());
        assert_near!(la.a, lb.a, 1e-10);
        assert_near!(la.b, lb.b, 1e-10);
        assert_near!(r.parameter_jacobian(0.0, &x).unwrap(), d.parameter_jacobian(0.0, &x).unwrap(), 1e-10);
        let h = 1e-6;
        for k in 0..24 {
            let mut dx = SVector::<f64, 24>::zeros();
            dx[k] = h;
            let column = (r.field(0.0, &(x + dx)).unwrap() - r.field(0.0, &(x - dx)).unwrap()) / (2.0 * h);
            assert!((ja.column(k) - column).amax() < 1e-6 * (1.0 + column.amax()), "column {k}");
        }
    }
}

/// The free-flying chain's linearisation in the tangent chart of its two orientations (the
/// floating base and the ball joint): along its links from the runtime's derivatives over the
/// velocities with each orientation's columns already along its body rotation vector
/// (`linearize::tangent`, no field Jacobian in the quaternion state), against the dense path's
/// (Hamel's equations' Jacobian in the quaternion state moved into the chart by E,
/// `constrained_with_orientations`) — A, B, the embedding and the mechanical form M δq̈ + C δq̇ +
/// K δq = B δu, whose C and K the links' route takes from the inverse dynamics' derivatives
/// without a product by M — at random states, quaternions off the unit sphere; and `linearize_chart`'s
/// fixed-size A and B (the runtime's `tangent_linearization`) against the same.
#[test]
fn a_floating_chains_tangent_linearisation_along_its_links_is_the_dense_paths() {
    let (rec, dense) = (FreeChain { m: 3.0 }, FreeChainDense { m: 3.0 });
    let mut rng = Rng::new(67);
    for _ in 0..5 {
        let q = [(); 13].map(|_| rng.uniform(-1.0, 1.0));
        let v = [(); 11].map(|_| rng.uniform(-2.0, 2.0));
        let u = [rng.uniform(-1.0, 1.0)];
        let x = rec.state(q, v);
        let (la, lb) = (rec.driven(u).linearize_tangent(0.0, &x).unwrap(), dense.driven(u).linearize_tangent(0.0, &x).unwrap());
        assert_eq!(la.states, lb.states);
        assert_eq!(la.states.len(), 22);
        let near = |a: &routh::nalgebra::DMatrix<f64>, b: &routh::nalgebra::DMatrix<f64>, what: &str| {
            assert_eq!(a.shape(), b.shape(), "{what}");
            assert!((a - b).amax() < 1e-10 * (1.0 + b.amax()), "{what}: {:e}", (a - b).amax());
        };
        near(&la.a, &lb.a, "A");
        near(&la.b, &lb.b, "B");
        near(&la.embedding, &lb.embedding, "E");
        let (ma, mb) = (la.mechanical.unwrap(), lb.mechanical.unwrap());
        near(&ma.mass, &mb.mass, "M");
        near(&ma.damping, &mb.damping, "C");
        near(&ma.stiffness, &mb.stiffness, "K");
        near(&ma.input, &mb.input, "B of the mechanical form");
        // The same A and B as fixed-size matrices, in one go along the links.
        let chart = rec.driven(u).linearize_chart(0.0, &x).unwrap();
        near(&routh::nalgebra::DMatrix::from_column_slice(22, 22, chart.a.as_slice()), &lb.a, "A of linearize_chart");
        near(&routh::nalgebra::DMatrix::from_column_slice(22, 1, chart.b.as_slice()), &lb.b, "B of linearize_chart");
        // And the dense path's, its quaternion state's J and B moved by the layout's chart.
        let chart = dense.driven(u).linearize_chart(0.0, &x).unwrap();
        near(&routh::nalgebra::DMatrix::from_column_slice(22, 22, chart.a.as_slice()), &la.a, "A of the dense linearize_chart");
        near(&routh::nalgebra::DMatrix::from_column_slice(22, 1, chart.b.as_slice()), &la.b, "B of the dense linearize_chart");
    }
    // Without inputs (the quadruped from its URDF): the links' route against the same linearisation
    // moved from the quaternion state's Jacobian into the chart by the runtime.
    let file = QuadrupedLinear { g: 9.81 };
    let q = [(); 19].map(|_| rng.uniform(-1.0, 1.0));
    let v = [(); 18].map(|_| rng.uniform(-2.0, 2.0));
    let x = file.state(q, v);
    let fast = file.linearize_tangent(0.0, &x).unwrap();
    let jacobian = file.jacobian(0.0, &x).unwrap();
    let mass = routh::nalgebra::DMatrix::from_column_slice(18, 18, file.mass_matrix(0.0, &x).as_slice());
    let field = routh::runtime::VectorField::field(&file, 0.0, &x).unwrap();
    let at = routh::runtime::linearize::Oriented::new(&QuadrupedLinear::COORDINATES, &["base_q"], &x, &field);
    let chart = fast.states[..18].to_vec();
    let selection = routh::runtime::linearize::Selection::new().coordinates(chart.clone()).velocities(chart);
    let none = routh::nalgebra::DMatrix::zeros(0, 37);
    let slow = routh::runtime::linearize::constrained_with_orientations(
        &at,
        (&jacobian, &routh::nalgebra::DMatrix::zeros(37, 0)),
        (&none, &mass),
        &selection,
    )
    .unwrap();
    assert_eq!((fast.states.len(), fast.b.ncols()), (36, 0));
    assert!((&fast.a - &slow.a).amax() < 1e-10 * (1.0 + slow.a.amax()), "{:e}", (&fast.a - &slow.a).amax());
    let chart = routh::nalgebra::DMatrix::from_column_slice(36, 36, file.linearize_chart(0.0, &x).unwrap().a.as_slice());
    assert!((&chart - &slow.a).amax() < 1e-10 * (1.0 + slow.a.amax()), "{:e}", (&chart - &slow.a).amax());
    let (mf, ms) = (fast.mechanical.unwrap(), slow.mechanical.unwrap());
    assert!((&mf.stiffness - &ms.stiffness).amax() < 1e-10 * (1.0 + ms.stiffness.amax()));
    assert!((&mf.damping - &ms.damping).amax() < 1e-10 * (1.0 + ms.damping.amax()));
}

/// The free-flying chain's state moved by ξ in the charts of its two orientations (five ordinary
/// coordinates, then the quaternions at 5 and 9, their body rates at 18 and 21), exactly: an
/// ordinary component added, a quaternion turned to q ⊗ exp(θ/2) and its rate to ω + θ̇ + ω × θ.
fn chart_moved(x: &SVector<f64, 24>, xi: &SVector<f64, 22>) -> SVector<f64, 24> {
    use routh::nalgebra::{Quaternion, Vector3};
    let mut y = *x;
    for i in 0..5 {
        y[i] += xi[i];
        y[13 + i] += xi[11 + i];
    }
    for (qs, vs) in [(5, 5), (9, 8)] {
        let theta = Vector3::new(xi[vs], xi[vs + 1], xi[vs + 2]);
        let q = Quaternion::new(x[qs], x[qs + 1], x[qs + 2], x[qs + 3]) * Quaternion::from_imag(theta * 0.5).exp();
        (y[qs], y[qs + 1], y[qs + 2], y[qs + 3]) = (q.w, q.i, q.j, q.k);
        let w = Vector3::new(x[13 + vs], x[14 + vs], x[15 + vs]);
        let rate = Vector3::new(xi[11 + vs], xi[12 + vs], xi[13 + vs]);
        y.fixed_rows_mut::<3>(13 + vs).copy_from(&(w + rate + w.cross(&theta)));
    }
    y
}

/// The chart coordinates of the state `y` about `x` ([`chart_moved`]'s inverse): θ = 2 log(q̄ ⊗ q_y)
/// (q̄ / |q|²), θ̇ = δω − ω × θ.
fn chart_of(x: &SVector<f64, 24>, y: &SVector<f64, 24>) -> SVector<f64, 22> {
    use routh::nalgebra::{Quaternion, Vector3};
    let mut xi = SVector::<f64, 22>::zeros();
    for i in 0..5 {
        xi[i] = y[i] - x[i];
        xi[11 + i] = y[13 + i] - x[13 + i];
    }
    for (qs, vs) in [(5, 5), (9, 8)] {
        let q = Quaternion::new(x[qs], x[qs + 1], x[qs + 2], x[qs + 3]);
        let r = q.conjugate() * Quaternion::new(y[qs], y[qs + 1], y[qs + 2], y[qs + 3]) / q.norm_squared();
        let v = r.imag();
        let theta = if v.norm() > 0.0 { v * (2.0 * v.norm().atan2(r.w) / v.norm()) } else { v };
        let w = Vector3::new(x[13 + vs], x[14 + vs], x[15 + vs]);
        let dw = Vector3::new(y[13 + vs], y[14 + vs], y[15 + vs]) - w;
        xi.fixed_rows_mut::<3>(vs).copy_from(&theta);
        xi.fixed_rows_mut::<3>(11 + vs).copy_from(&(dw - w.cross(&theta)));
    }
    xi
}

/// The free-flying chain's RK4 step in the tangent charts of its two orientations
/// (`rk4_step_tangent`, `step::rk4_tangent_step`) against central differences of the step itself
/// (`step::rk4`) moved through the charts' exact maps, at random states with quaternions off the
/// unit sphere; the spatial recursion's against the dense path's; and over a short step against
/// the continuous linearisation in the chart (`linearize_chart`).
#[test]
fn a_floating_chains_step_in_its_tangent_charts_is_the_differenced_step() {
    let (rec, dense) = (FreeChain { m: 3.0 }, FreeChainDense { m: 3.0 });
    let mut rng = Rng::new(71);
    let h = 0.02;
    for _ in 0..3 {
        let q = [(); 13].map(|_| rng.uniform(-1.0, 1.0));
        let v = [(); 11].map(|_| rng.uniform(-2.0, 2.0));
        let u = [rng.uniform(-1.0, 1.0)];
        let x = rec.state(q, v);
        let step = rec.rk4_step_tangent(0.0, &x, u, h).unwrap();
        let other = dense.rk4_step_tangent(0.0, &x, u, h).unwrap();
        assert_near!(step.a, other.a, 1e-9);
        assert_near!(step.b, other.b, 1e-9);
        let advance = |y: &SVector<f64, 24>, u: [f64; 1]| routh::runtime::step::rk4(&rec, 0.0, y, &Vector::from(u), h).unwrap();
        assert_eq!(step.next, advance(&x, u));
        let d = 1e-6;
        for j in 0..22 {
            let e = SVector::<f64, 22>::from_fn(|i, _| if i == j { d } else { 0.0 });
            let column = (chart_of(&step.next, &advance(&chart_moved(&x, &e), u))
                - chart_of(&step.next, &advance(&chart_moved(&x, &-e), u)))
                / (2.0 * d);
            assert!((step.a.column(j) - column).amax() < 1e-7 * (1.0 + column.amax()), "A's column {j}");
        }
        let column =
            (chart_of(&step.next, &advance(&x, [u[0] + d])) - chart_of(&step.next, &advance(&x, [u[0] - d]))) / (2.0 * d);
        assert!((step.b.column(0) - column).amax() < 1e-7 * (1.0 + column.amax()), "B");
        // Over a short step the charts' A_d is 1 + h A of the continuous linearisation in the chart
        // about the reference motion (`linearize_chart`, the links' derivatives charted by 3 × 3
        // corrections): the two routes' charts are one.
        let short = 1e-6;
        let chart = rec.driven(u).linearize_chart(0.0, &x).unwrap();
        let step = rec.rk4_step_tangent(0.0, &x, u, short).unwrap();
        let rate = (step.a - SMatrix::<f64, 22, 22>::identity()) / short;
        assert!((rate - chart.a).amax() < 1e-5 * (1.0 + chart.a.amax()), "{:e}", (rate - chart.a).amax());
        assert!((step.b / short - chart.b).amax() < 1e-5 * (1.0 + chart.b.amax()));
    }
}

#[test]
fn orientations_on_the_spatial_recursion_are_the_dense_path() {
    let (rec, dense) = (Chain { m: 3.0 }, ChainDense { m: 3.0 });
    let mut rng = Rng::new(47);
    let mut compared = 0;
    for _ in 0..10 {
        // Quaternions of any norm (the dynamics depend on q/|q| alone), the constraint solved.
        let q = [(); 13].map(|_| rng.uniform(-1.0, 1.0));
        let v = [(); 11].map(|_| rng.uniform(-2.0, 2.0));
        let u = [rng.uniform(-1.0, 1.0)];
        let Ok(x) = dense.driven(u).project_state(0.0, &rec.state(q, v)) else { continue };
        let (r, d) = (rec.driven(u), dense.driven(u));
        let (a, b) = (r.accelerations(0.0, &x).unwrap(), d.accelerations(0.0, &x).unwrap());
        assert!((a - b).amax() < 1e-11 * (1.0 + b.amax()), "{a} against {b}");
        let (ja, jb) = (r.jacobian(0.0, &x).unwrap(), d.jacobian(0.0, &x).unwrap());
        assert!((ja - jb).amax() < 1e-11 * (1.0 + jb.amax()), "{ja} against {jb}");
        let (pa, pb) = (r.parameter_jacobian(0.0, &x).unwrap(), d.parameter_jacobian(0.0, &x).unwrap());
        assert!((pa - pb).amax() < 1e-11 * (1.0 + pb.amax()), "{pa} against {pb}");
        let (la, lb) = (rec.linearize(0.0, &x, u).unwrap(), dense.linearize(0.0, &x, u).unwrap());
        assert!((la.b - lb.b).amax() < 1e-11 * (1.0 + lb.b.amax()));
        assert_near!(r.mass_matrix(0.0, &x), d.mass_matrix(0.0, &x), 1e-12);
        assert_near!(r.momenta(0.0, &x), d.momenta(0.0, &x), 1e-12);
        // τ = M v̇ − f's derivatives with the constraint (the saddle point's rows at λ = 0), ∂τ/∂q
        // along the rates: along the links against the dense path and central differences.
        let qdd = SVector::<f64, 11>::from_fn(|i, _| 0.3 * i as f64 - 1.5);
        let (tq, tv) = r.inverse_dynamics_jacobian(0.0, &x, &qdd).unwrap();
        let (sq, sv) = d.inverse_dynamics_jacobian(0.0, &x, &qdd).unwrap();
        assert_near!(tq, sq, 1e-10);
        assert_near!(tv, sv, 1e-10);
        let rates = jb.fixed_view::<13, 11>(0, 13).into_owned();
        let (fq, fv) = rate_differences(|x| r.inverse_dynamics(0.0, x, &qdd).unwrap(), &x, &rates);
        assert_near!(tq, fq, 1e-6);
        assert_near!(tv, fv, 1e-6);
        let (e, ed) = (r.energy(0.0, &x), d.energy(0.0, &x));
        assert!((e - ed).abs() < 1e-12 * (1.0 + ed.abs()), "{e} against {ed}");
        compared += 1;
    }
    assert!(compared >= 5, "{compared} states projected onto the constraint");
    // A run striking the floor: the same impacts, the tip kept in its plane.
    let x0 = dense
        .driven([0.2])
        .project_state(0.0, &rec.state([0.0, 0.0, 0.3, 0.2, 0.1, 1.0, 0.0, 0.0, 0.0, 1.0, 0.1, 0.0, 0.0], [0.1; 11]))
        .unwrap();
    let options = HybridOptions::default().ode(Options::default().rtol(1e-11).atol(1e-12));
    let runs = [
        rec.run(x0).span(0.0..0.4).inputs([0.2]).options(options.clone()).go().unwrap(),
        dense.run(x0).span(0.0..0.4).inputs([0.2]).options(options).go().unwrap(),
    ];
    assert!(!runs[0].impacts.is_empty());
    assert_eq!(runs[0].impacts.len(), runs[1].impacts.len());
    for (a, b) in runs[0].impacts.iter().zip(&runs[1].impacts) {
        assert!((a.t - b.t).abs() < 1e-9 && (a.post - b.post).amax() < 1e-7, "{} {} against {} {}", a.t, a.post, b.t, b.post);
    }
}

/// A brick landing plastically on a corner and pivoting on it over a frictionless floor
/// (`unilateral`: modes `free` and `floor`), on the spatial recursion and on the dense path.
macro_rules! tipper {
    ($name:ident, $dynamics:ident) => {
        #[derive(Mechanics)]
        #[mechanics(
                            coordinates(x, y, z),
                            orientation(r),
                            point(corner = [x, y, z] + r * [0.12, -0.07, -0.2]),
                            body(name = brick, mass = 0.9, centre = [x, y, z], frame = r, inertia = diag(0.02, 0.035, 0.045)),
                            gravity = [0, 0, -9.81],
                            unilateral(name = floor, guard = corner[2], law = restitution(0)),
                            dynamics = $dynamics,
                        )]
        pub struct $name;
    };
}
tipper!(Tipper, recursive);
tipper!(TipperDense, dense);

#[test]
fn modes_with_an_orientation_on_the_spatial_recursion_are_the_dense_path() {
    let x0 = Tipper.free_state([0.0, 0.0, 0.3, 0.9, 0.1, 0.3, 0.2], [0.3, -0.2, 0.0, 0.5, -1.2, 2.0]);
    let options = HybridOptions::default().ode(Options::default().rtol(1e-11).atol(1e-12));
    let (a, b) = (
        Tipper.run(x0).span(0.0..1.2).options(&options).go().unwrap(),
        TipperDense.run(x0).span(0.0..1.2).options(&options).go().unwrap(),
    );
    assert_eq!(a.mode_sequence(), [Tipper::FREE, Tipper::FLOOR]);
    assert_eq!(a.mode_sequence(), b.mode_sequence());
    for (i, j) in a.impacts.iter().zip(&b.impacts) {
        assert!((i.t - j.t).abs() < 1e-10 && (i.post - j.post).amax() < 1e-10);
    }
    let (xa, xb) = (a.states.last().unwrap(), b.states.last().unwrap());
    assert!((xa - xb).amax() < 1e-9, "{xa} against {xb}");
    // The energy's gradient and Hessian over the whole state, by reverse and forward mode through
    // the recursion's passes (along |q| too: E depends on q/|q|), against the dense formulas.
    let mut rng = Rng::new(53);
    for _ in 0..5 {
        let x = Tipper.free_state([(); 7].map(|_| rng.uniform(-1.0, 1.0)), [(); 6].map(|_| rng.uniform(-2.0, 2.0))).state;
        assert_near!(Tipper.free().energy_gradient(0.0, &x), TipperDense.free().energy_gradient(0.0, &x), 1e-12);
        assert_near!(Tipper.free().energy_hessian(0.0, &x), TipperDense.free().energy_hessian(0.0, &x), 1e-12);
        // On the floor, the field Jacobian: the saddle point's summed from the forces' part, the
        // corner's and (along the links) the kinetic part, against the dense path's and differences.
        let jac = Tipper.floor().jacobian(0.0, &x).unwrap();
        let scale = 1.0 + jac.amax();
        let dense = TipperDense.floor().jacobian(0.0, &x).unwrap();
        assert!((jac - dense).amax() < 1e-11 * scale, "{:e}", (jac - dense).amax());
        let fd = common::jacobian_fd(&Tipper.floor(), 0.0, &x, 1e-6).unwrap();
        assert!((jac - fd).amax() < 1e-7 * scale, "{:e}", (jac - fd).amax());
    }
}

/// A floating trunk carrying a chain of twelve hinges with a ball joint after the sixth: 21
/// velocities and 231 pairs of joints one above the other (the base's six and the ball's three
/// among them), past the generated CRBA's 160 — M is the runtime's composite rigid bodies in the
/// ground's axes, the orientations' joints among them. Against the inverse dynamics' columns
/// (M eₖ = τ(x, eₖ) − τ(x, 0), a generated Newton–Euler pass along the links) and the energy
/// (½ vᵀ M v = E(x) − E at rest, a pass of its own), quaternions off the unit sphere.
#[derive(Mechanics)]
#[mechanics(
    joint(name = base, kind = floating, child = trunk, origin = [0, 0, 0.5],
          mass = 2, centre = [0.01, 0, 0], inertia = [[0.1, 0.01, 0], [0.01, 0.2, 0], [0, 0, 0.25]]),
    joint(name = h1, kind = revolute, parent = trunk, child = l1, origin = [0.2, 0, -0.05], axis = [0, 1, 0],
          mass = 0.5, centre = [0.01, 0, -0.1], inertia = diag(0.004, 0.0035, 0.0008)),
    joint(name = h2, kind = revolute, parent = l1, child = l2, origin = [0, 0.02, -0.2], axis = [1, 0, 0],
          mass = 0.5, centre = [0.01, 0, -0.1], inertia = diag(0.004, 0.0035, 0.0008)),
    joint(name = h3, kind = revolute, parent = l2, child = l3, origin = [0, 0.02, -0.2], axis = [0, 0, 1],
          mass = 0.5, centre = [0.01, 0, -0.1], inertia = diag(0.004, 0.0035, 0.0008)),
    joint(name = h4, kind = revolute, parent = l3, child = l4, origin = [0, 0.02, -0.2], axis = [0, 1, 0],
          mass = 0.5, centre = [0.01, 0, -0.1], inertia = diag(0.004, 0.0035, 0.0008)),
    joint(name = h5, kind = revolute, parent = l4, child = l5, origin = [0, 0.02, -0.2], axis = [1, 0, 0],
          mass = 0.5, centre = [0.01, 0, -0.1], inertia = diag(0.004, 0.0035, 0.0008)),
    joint(name = h6, kind = revolute, parent = l5, child = l6, origin = [0, 0.02, -0.2], axis = [0, 0, 1],
          mass = 0.5, centre = [0.01, 0, -0.1], inertia = diag(0.004, 0.0035, 0.0008)),
    joint(name = ball, kind = ball, parent = l6, child = b, origin = [0, 0.05, -0.2], rotation = rpy(0.3, 0, 0),
          mass = 0.3, centre = [0.02, 0, -0.1], inertia = [[0.002, 0.0001, 0], [0.0001, 0.003, 0], [0, 0, 0.0015]]),
    joint(name = h7, kind = revolute, parent = b, child = l7, origin = [0, 0.02, -0.2], axis = [0, 1, 0],
          mass = 0.5, centre = [0.01, 0, -0.1], inertia = diag(0.004, 0.0035, 0.0008)),
    joint(name = h8, kind = revolute, parent = l7, child = l8, origin = [0, 0.02, -0.2], axis = [1, 0, 0],
          mass = 0.5, centre = [0.01, 0, -0.1], inertia = diag(0.004, 0.0035, 0.0008)),
    joint(name = h9, kind = revolute, parent = l8, child = l9, origin = [0, 0.02, -0.2], axis = [0, 0, 1],
          mass = 0.5, centre = [0.01, 0, -0.1], inertia = diag(0.004, 0.0035, 0.0008)),
    joint(name = h10, kind = revolute, parent = l9, child = l10, origin = [0, 0.02, -0.2], axis = [0, 1, 0],
          mass = 0.5, centre = [0.01, 0, -0.1], inertia = diag(0.004, 0.0035, 0.0008)),
    joint(name = h11, kind = revolute, parent = l10, child = l11, origin = [0, 0.02, -0.2], axis = [1, 0, 0],
          mass = 0.5, centre = [0.01, 0, -0.1], inertia = diag(0.004, 0.0035, 0.0008)),
    joint(name = h12, kind = revolute, parent = l11, child = l12, origin = [0, 0.02, -0.2], axis = [0, 0, 1],
          mass = 0.5, centre = [0.01, 0, -0.1], inertia = diag(0.004, 0.0035, 0.0008)),
    gravity = [0, 0, -9.81],
)]
pub struct LongFloating;

#[test]
fn a_long_floating_chains_mass_matrix_is_its_inverse_dynamics_and_its_energy() {
    assert_eq!(LongFloating::DYNAMICS, "recursive");
    let mut rng = Rng::new(71);
    for _ in 0..3 {
        let q = [(); 23].map(|_| rng.uniform(-1.0, 1.0));
        let v = [(); 21].map(|_| rng.uniform(-1.5, 1.5));
        let x = LongFloating.state(q, v);
        let mass = LongFloating.mass_matrix(0.0, &x);
        let rest = LongFloating.inverse_dynamics(0.0, &x, &SVector::zeros()).unwrap();
        for k in 0..21 {
            let unit = SVector::<f64, 21>::from_fn(|r, _| f64::from(u8::from(r == k)));
            let column = LongFloating.inverse_dynamics(0.0, &x, &unit).unwrap() - rest;
            assert!(
                (mass.column(k) - column).amax() < 1e-12 * (1.0 + column.amax()),
                "column {k}: {} against {column}",
                mass.column(k)
            );
        }
        assert_eq!(mass, mass.transpose());
        let still = LongFloating.state(q, [0.0; 21]);
        let kinetic = LongFloating.energy(0.0, &x) - LongFloating.energy(0.0, &still);
        let vv = SVector::<f64, 21>::from_column_slice(&v);
        let quadratic = 0.5 * vv.dot(&(mass * vv));
        assert!((kinetic - quadratic).abs() < 1e-11 * (1.0 + kinetic.abs()), "T {kinetic} against ½ vᵀMv {quadratic}");
    }
}
