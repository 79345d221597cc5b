//! Joints as items: a seven-joint arm with the kinematics of a widely used collaborative arm (joint
//! origins turned by quarter turns written with `rpy` and `pi`, products of inertia, a fixed
//! flange and hand, two prismatic fingers, a damped first joint), written with `joint(...)`, against
//! the same arm written by hand with frames, points and bodies (the quarter turns as literal
//! permutation matrices, the hand's eighth turn with √2/2): q̈, M, f and E at random states; and
//! the same arm read from its URDF file (`tests/robots/arm7.urdf`: angles as the decimals `${pi/2}`
//! prints, the hand's axes of inertia turned by its inertial `rpy`, meshes, limits and a material
//! that are not part of the dynamics).

#[macro_use]
mod common;

use common::Rng;
use routh::prelude::*;

/// The arm from its joints (the recursive path).
#[derive(Mechanics)]
#[mechanics(
    joint(name = j1, kind = revolute, child = link1, origin = [0, 0, 0.333], axis = [0, 0, 1], mass = 4.970684, centre = [0.003875, 0.002081, -0.04762], inertia = [[0.70337, -0.000139, 0.006772], [-0.000139, 0.70661, 0.019169], [0.006772, 0.019169, 0.009117]], damping = 0.1),
    joint(name = j2, kind = revolute, parent = link1, child = link2, rotation = rpy(-pi / 2, 0, 0), axis = [0, 0, 1], mass = 0.646926, centre = [-0.003141, -0.02872, 0.003495], inertia = [[0.007962, -0.003925, 0.010254], [-0.003925, 0.02811, 0.000704], [0.010254, 0.000704, 0.025995]]),
    joint(name = j3, kind = revolute, parent = link2, child = link3, origin = [0, -0.316, 0], rotation = rpy(pi / 2, 0, 0), axis = [0, 0, 1], mass = 3.228604, centre = [0.027518, 0.039252, -0.066502], inertia = [[0.037242, -0.004761, -0.011396], [-0.004761, 0.036155, -0.012805], [-0.011396, -0.012805, 0.01083]]),
    joint(name = j4, kind = revolute, parent = link3, child = link4, origin = [0.0825, 0, 0], rotation = rpy(pi / 2, 0, 0), axis = [0, 0, 1], mass = 3.587895, centre = [-0.05317, 0.104419, 0.027454], inertia = [[0.025853, 0.007796, -0.001332], [0.007796, 0.019552, 0.008641], [-0.001332, 0.008641, 0.028323]]),
    joint(name = j5, kind = revolute, parent = link4, child = link5, origin = [-0.0825, 0.384, 0], rotation = rpy(-pi / 2, 0, 0), axis = [0, 0, 1], mass = 1.225946, centre = [-0.011953, 0.041065, -0.038437], inertia = [[0.035549, -0.002117, -0.004037], [-0.002117, 0.029474, 0.000229], [-0.004037, 0.000229, 0.008627]]),
    joint(name = j6, kind = revolute, parent = link5, child = link6, rotation = rpy(pi / 2, 0, 0), axis = [0, 0, 1], mass = 1.666555, centre = [0.060149, -0.014117, -0.010517], inertia = [[0.001964, 0.000109, -0.001158], [0.000109, 0.004354, 0.000341], [-0.001158, 0.000341, 0.005433]]),
    joint(name = j7, kind = revolute, parent = link6, child = link7, origin = [0.088, 0, 0], rotation = rpy(pi / 2, 0, 0), axis = [0, 0, 1], mass = 0.735522, centre = [0.010517, -0.004252, 0.061597], inertia = [[0.012516, -0.000428, -0.001196], [-0.000428, 0.010027, -0.000741], [-0.001196, -0.000741, 0.004815]]),
    joint(name = j8, kind = fixed, parent = link7, child = flange, origin = [0, 0, 0.107]),
    joint(name = hand_joint, kind = fixed, parent = flange, child = hand, rotation = rpy(0, 0, -pi / 4), mass = 0.73, centre = [-0.01, 0.0, 0.03], inertia = [[0.001, 0, 0], [0, 0.0025, 0], [0, 0, 0.0017]]),
    joint(name = f1, kind = prismatic, parent = hand, child = finger_left, origin = [0, 0, 0.0584], axis = [0, 1, 0], mass = 0.015, centre = [0.0, 0.01, 0.02], inertia = [[2.375e-06, 0, 0], [0, 2.375e-06, 0], [0, 0, 7.5e-07]]),
    joint(name = f2, kind = prismatic, parent = hand, child = finger_right, origin = [0, 0, 0.0584], axis = [0, -1, 0], mass = 0.015, centre = [0.0, -0.01, 0.02], inertia = [[2.375e-06, 0, 0], [0, 2.375e-06, 0], [0, 0, 7.5e-07]]),
    gravity = [0, 0, -g],
)]
pub struct JointArm {
    pub g: f64,
}

/// The arm from its URDF file.
#[derive(Mechanics)]
#[mechanics(urdf = "tests/robots/arm7.urdf", gravity = [0, 0, -g])]
pub struct UrdfArm {
    pub g: f64,
}

/// The same arm by hand: frames, points and bodies (the dense path).
#[derive(Mechanics)]
#[mechanics(
    coordinates(j1, j2, j3, j4, j5, j6, j7, f1, f2),
    define(s = sqrt(2) / 2),
    frame(
        b1 = rot_z(j1),
        b2 = b1 * [[1, 0, 0], [0, 0, 1], [0, -1, 0]] * rot_z(j2),
        b3 = b2 * [[1, 0, 0], [0, 0, -1], [0, 1, 0]] * rot_z(j3),
        b4 = b3 * [[1, 0, 0], [0, 0, -1], [0, 1, 0]] * rot_z(j4),
        b5 = b4 * [[1, 0, 0], [0, 0, 1], [0, -1, 0]] * rot_z(j5),
        b6 = b5 * [[1, 0, 0], [0, 0, -1], [0, 1, 0]] * rot_z(j6),
        b7 = b6 * [[1, 0, 0], [0, 0, -1], [0, 1, 0]] * rot_z(j7),
        bh = b7 * [[s, s, 0], [-s, s, 0], [0, 0, 1]],
    ),
    point(
        o1 = [0, 0, 0.333],
        o3 = o1 + b2 * [0, -0.316, 0],
        o4 = o3 + b3 * [0.0825, 0, 0],
        o5 = o4 + b4 * [-0.0825, 0.384, 0],
        o7 = o5 + b6 * [0.088, 0, 0],
        oh = o7 + b7 * [0, 0, 0.107],
    ),
    body(name = link1, frame = b1, mass = 4.970684, centre = o1 + b1 * [0.003875, 0.002081, -0.04762], inertia = [[0.70337, -0.000139, 0.006772], [-0.000139, 0.70661, 0.019169], [0.006772, 0.019169, 0.009117]]),
    body(name = link2, frame = b2, mass = 0.646926, centre = o1 + b2 * [-0.003141, -0.02872, 0.003495], inertia = [[0.007962, -0.003925, 0.010254], [-0.003925, 0.02811, 0.000704], [0.010254, 0.000704, 0.025995]]),
    body(name = link3, frame = b3, mass = 3.228604, centre = o3 + b3 * [0.027518, 0.039252, -0.066502], inertia = [[0.037242, -0.004761, -0.011396], [-0.004761, 0.036155, -0.012805], [-0.011396, -0.012805, 0.01083]]),
    body(name = link4, frame = b4, mass = 3.587895, centre = o4 + b4 * [-0.05317, 0.104419, 0.027454], inertia = [[0.025853, 0.007796, -0.001332], [0.007796, 0.019552, 0.008641], [-0.001332, 0.008641, 0.028323]]),
    body(name = link5, frame = b5, mass = 1.225946, centre = o5 + b5 * [-0.011953, 0.041065, -0.038437], inertia = [[0.035549, -0.002117, -0.004037], [-0.002117, 0.029474, 0.000229], [-0.004037, 0.000229, 0.008627]]),
    body(name = link6, frame = b6, mass = 1.666555, centre = o5 + b6 * [0.060149, -0.014117, -0.010517], inertia = [[0.001964, 0.000109, -0.001158], [0.000109, 0.004354, 0.000341], [-0.001158, 0.000341, 0.005433]]),
    body(name = link7, frame = b7, mass = 0.735522, centre = o7 + b7 * [0.010517, -0.004252, 0.061597], inertia = [[0.012516, -0.000428, -0.001196], [-0.000428, 0.010027, -0.000741], [-0.001196, -0.000741, 0.004815]]),
    body(name = hand, frame = bh, mass = 0.73, centre = oh + bh * [-0.01, 0.0, 0.03], inertia = [[0.001, 0, 0], [0, 0.0025, 0], [0, 0, 0.0017]]),
    body(name = finger_left, frame = bh, mass = 0.015, centre = oh + bh * [0, f1, 0.0584] + bh * [0.0, 0.01, 0.02], inertia = [[2.375e-06, 0, 0], [0, 2.375e-06, 0], [0, 0, 7.5e-07]]),
    body(name = finger_right, frame = bh, mass = 0.015, centre = oh + bh * [0, -f2, 0.0584] + bh * [0.0, -0.01, 0.02], inertia = [[2.375e-06, 0, 0], [0, 2.375e-06, 0], [0, 0, 7.5e-07]]),
    force(j1 = -0.1 * dot(j1)),
    gravity = [0, 0, -g],
    dynamics = dense,
)]
pub struct HandArm {
    pub g: f64,
}

#[test]
fn an_arm_from_its_joints_is_the_arm_written_by_hand() {
    // The file's limits, constants of the model (not part of the dynamics).
    assert_eq!(UrdfArm::EFFORT_LIMITS, [87.0, 87.0, 87.0, 87.0, 87.0, 87.0, 87.0, 20.0, 20.0]);
    assert_eq!(UrdfArm::VELOCITY_LIMITS, [2.2, 2.2, 2.2, 2.2, 2.2, 2.2, 2.2, 0.2, 0.2]);
    assert_eq!(UrdfArm::POSITION_LIMITS[0], [-2.9, 2.9]);
    assert_eq!(UrdfArm::POSITION_LIMITS[8], [0.0, 0.04]);
    let (joints, hand, urdf) = (JointArm { g: 9.81 }, HandArm { g: 9.81 }, UrdfArm { g: 9.81 });
    // Coordinates named after the moving joints, in order; the fixed joints add none.
    assert_eq!(JointArm::COORDINATES, ["j1", "j2", "j3", "j4", "j5", "j6", "j7", "f1", "f2"]);
    assert_eq!(JointArm::DYNAMICS, "recursive");
    assert_eq!(UrdfArm::COORDINATES, JointArm::COORDINATES);
    assert_eq!(UrdfArm::DYNAMICS, "recursive");
    let mut rng = Rng::new(7);
    for _ in 0..20 {
        let x = rng.vector::<18>(-1.5, 1.5);
        let (mj, mh) = (joints.mass_matrix(0.0, &x), hand.mass_matrix(0.0, &x));
        assert_near!(mj, mh, 1e-12);
        assert_near!(joints.forcing(0.0, &x), hand.forcing(0.0, &x), 1e-12);
        let (aj, ah) = (joints.accelerations(0.0, &x).unwrap(), hand.accelerations(0.0, &x).unwrap());
        assert_near!(aj, ah, 1e-12);
        let (ej, eh) = (joints.energy(0.0, &x), hand.energy(0.0, &x));
        assert!((ej - eh).abs() <= 1e-12 * (1.0 + eh.abs()), "energy {ej} vs {eh}");
        assert_near!(urdf.mass_matrix(0.0, &x), mh, 1e-12);
        assert_near!(urdf.accelerations(0.0, &x).unwrap(), ah, 1e-12);
        assert!((urdf.energy(0.0, &x) - eh).abs() <= 1e-12 * (1.0 + eh.abs()));
    }
}

/// A carriage on a rail tilted by a roll of 0.3 (gravity pulls the fingers along it), with two
/// fingers, the right one mimicking the left at twice its opening plus 1 cm: a constrained model.
#[derive(Mechanics)]
#[mechanics(urdf = "tests/robots/gripper.urdf", gravity = [0, 0, -g])]
pub struct Gripper {
    pub g: f64,
}

/// The same gripper in the coordinates that solve the mimic constraint: the right finger's slide
/// written as 2 open + 0.01 (the tilted rail as rot_x(0.3)).
#[derive(Mechanics)]
#[mechanics(
    coordinates(slide, open),
    frame(c = rot_x(0.3)),
    point(o = [0, 0, 0.3] + c * [slide, 0, 0]),
    body(name = carriage, mass = 2.0, centre = o + c * [0, 0, 0.05], frame = c, inertia = diag(0.01, 0.02, 0.02)),
    body(name = left, mass = 0.3, centre = o + c * [0, open + 0.01, 0.12], frame = c, inertia = diag(0.001, 0.001, 0.0005)),
    body(name = right, mass = 0.2, centre = o + c * [0, -(2 * open + 0.01) - 0.01, 0.12], frame = c,
         inertia = diag(0.001, 0.001, 0.0005)),
    force(slide = -0.5 * dot(slide)),
    gravity = [0, 0, -g],
)]
pub struct GripperSolved {
    pub g: f64,
}

#[test]
fn a_mimic_joint_is_a_constraint_equal_to_the_coordinates_that_solve_it() {
    let (mimic, solved) = (Gripper { g: 9.81 }, GripperSolved { g: 9.81 });
    assert_eq!(Gripper::COORDINATES, ["slide", "open", "mirror"]);
    assert_eq!(Gripper::CONSTRAINTS, ["mirror_mimic"]);
    let mut rng = Rng::new(3);
    for _ in 0..10 {
        let [s, o, sd, od] = [rng.uniform(-1.0, 1.0), rng.uniform(0.0, 0.04), rng.uniform(-1.0, 1.0), rng.uniform(-0.1, 0.1)];
        let x = mimic.state([s, o, 2.0 * o + 0.01], [sd, od, 2.0 * od]);
        let xs = solved.state([s, o], [sd, od]);
        let (a, b) = (mimic.accelerations(0.0, &x).unwrap(), solved.accelerations(0.0, &xs).unwrap());
        assert!((a[0] - b[0]).abs() < 1e-12 && (a[1] - b[1]).abs() < 1e-12, "{a} against {b}");
        assert!((a[2] - 2.0 * a[1]).abs() < 1e-12, "the mimic's acceleration: {a}");
        assert!((mimic.energy(0.0, &x) - solved.energy(0.0, &xs)).abs() < 1e-12);
    }
}

/// A parallelogram four-bar hanging from the pivots (0, 0, 0) and (d, 0, 0) in the x–z plane: two
/// equal cranks of length a on hinges about y, a coupler of length d on the first crank's tip, its
/// far end closed on the second crank's tip along x and z (the y row holds identically: a planar
/// loop closes in two rows).
#[derive(Mechanics)]
#[mechanics(
    joint(name = q1, kind = revolute, child = left, axis = [0, 1, 0],
          mass = m, centre = [0, 0, -a / 2], inertia = diag(m * a * a / 12, m * a * a / 12, 0.0001)),
    joint(name = q2, kind = revolute, parent = left, child = coupler, origin = [0, 0, -a], axis = [0, 1, 0],
          mass = mc, centre = [d / 2, 0, 0], inertia = diag(0.0001, mc * d * d / 12, mc * d * d / 12)),
    joint(name = q3, kind = revolute, child = right, origin = [d, 0, 0], axis = [0, 1, 0],
          mass = m, centre = [0, 0, -a / 2], inertia = diag(m * a * a / 12, m * a * a / 12, 0.0001)),
    closure(name = close, a = coupler, at = [d, 0, 0], b = right, to = [0, 0, -a], axes = [x, z]),
    gravity = [0, 0, -g],
)]
pub struct FourBar {
    pub m: f64,
    pub mc: f64,
    pub a: f64,
    pub d: f64,
    pub g: f64,
}

#[test]
fn a_parallelogram_four_bar_closed_by_a_closure_swings_as_its_one_degree_of_freedom() {
    let bar = FourBar { m: 1.5, mc: 0.8, a: 0.6, d: 0.9, g: 9.81 };
    assert_eq!(FourBar::CONSTRAINTS, ["close_x", "close_z"]);
    // The coupler translates: q3 = q1, q2 = −q1. With θ = q1, T = ½ (2 m a²/3 + m_c a²) θ̇² and
    // V = −(m a + m_c a) g cos θ: θ̈ = −(m + m_c) g a sin θ / (2 m a²/3 + m_c a²).
    let closed = |theta: f64| -(1.5 + 0.8) * 9.81 * 0.6 * theta.sin() / (2.0 * 1.5 * 0.36 / 3.0 + 0.8 * 0.36);
    for (theta, rate) in [(0.3, 0.0), (-0.8, 1.2), (1.1, -0.5)] {
        let x = bar.state([theta, -theta, theta], [rate, -rate, rate]);
        assert!(bar.position_residuals(0.0, &x).amax() < 1e-15);
        let qdd = bar.accelerations(0.0, &x).unwrap();
        assert!((qdd[0] - closed(theta)).abs() < 1e-12, "{qdd} against θ̈ = {}", closed(theta));
        assert!((qdd[2] - qdd[0]).abs() < 1e-12 && (qdd[1] + qdd[0]).abs() < 1e-12, "{qdd}");
    }
    // A run keeps the loop closed and the energy.
    let x0 = bar.state([0.9, -0.9, 0.9], [0.0; 3]);
    let run = bar.run(x0).span(0.0..3.0).go().unwrap();
    let e0 = bar.energy(0.0, &x0);
    for x in &run.states {
        assert!(bar.position_residuals(0.0, x).amax() < 1e-8);
        assert!((bar.energy(0.0, x) - e0).abs() < 1e-7 * e0.abs());
    }
}

/// A six-joint arm from its URDF (`tests/robots/arm6.urdf`: quarter turns about y between joints
/// about y and z, a forearm whose axes of inertia its inertial `rpy` turns, a tool on a fixed joint
/// turned a quarter turn about z), driven by a torque on each joint: the inputs `u_<joint>` the
/// reader declares when asked (`inputs = u`).
#[derive(Mechanics)]
#[mechanics(urdf(path = "tests/robots/arm6.urdf", inputs = u), gravity = [0, 0, -g])]
pub struct Arm6 {
    pub g: f64,
}

/// The same arm by hand: the quarter turns as literal matrices, the forearm's inertia turned into
/// the link's axes numerically (outside routh).
#[derive(Mechanics)]
#[mechanics(
    coordinates(shoulder_pan, shoulder_lift, elbow, wrist_1, wrist_2, wrist_3),
    input(u1, u2, u3, u4, u5, u6),
    force(shoulder_pan = u1, shoulder_lift = u2, elbow = u3, wrist_1 = u4, wrist_2 = u5, wrist_3 = u6),
    frame(
        b1 = rot_z(shoulder_pan),
        b2 = b1 * [[0, 0, 1], [0, 1, 0], [-1, 0, 0]] * rot_y(shoulder_lift),
        b3 = b2 * rot_y(elbow),
        b4 = b3 * [[0, 0, 1], [0, 1, 0], [-1, 0, 0]] * rot_y(wrist_1),
        b5 = b4 * rot_z(wrist_2),
        b6 = b5 * rot_y(wrist_3),
        be = b6 * [[0, -1, 0], [1, 0, 0], [0, 0, 1]],
    ),
    point(
        o1 = [0, 0, 0.089159],
        o2 = o1 + b1 * [0, 0.13585, 0],
        o3 = o2 + b2 * [0, -0.1197, 0.425],
        o4 = o3 + b3 * [0, 0, 0.39225],
        o5 = o4 + b4 * [0, 0.093, 0],
        o6 = o5 + b5 * [0, 0, 0.09465],
        oe = o6 + b6 * [0, 0.0823, 0],
    ),
    body(name = shoulder, mass = 3.7, centre = o1 + b1 * [0, 0, 0], frame = b1,
         inertia = [[0.010267, 0.0, 0.0], [0.0, 0.010267, 0.0], [0.0, 0.0, 0.00666]]),
    body(name = upper_arm, mass = 8.393, centre = o2 + b2 * [0, 0, 0.28], frame = b2,
         inertia = [[0.22689, 0.0, 0.0], [0.0, 0.22689, 0.0], [0.0, 0.0, 0.0151074]]),
    body(name = forearm, mass = 2.275, centre = o3 + b3 * [0, 0.01, 0.25], frame = b3,
         inertia = [[0.0448615530117275, 0.0004412386369825103, -0.013710572618159675], [0.0004412386369825103, 0.049443, 7.285921516058538e-05], [-0.013710572618159675, 7.285921516058538e-05, 0.008676446988272492]]),
    body(name = wrist_1_link, mass = 1.219, centre = o4 + b4 * [0, 0, 0], frame = b4,
         inertia = [[0.111172755531, 0.0, 0.0], [0.0, 0.111172755531, 0.0], [0.0, 0.0, 0.21942]]),
    body(name = wrist_2_link, mass = 1.219, centre = o5 + b5 * [0, 0, 0], frame = b5,
         inertia = [[0.111172755531, 0.0, 0.0], [0.0, 0.111172755531, 0.0], [0.0, 0.0, 0.21942]]),
    body(name = wrist_3_link, mass = 0.1879, centre = o6 + b6 * [0, 0, 0], frame = b6,
         inertia = [[0.0171364731454, 0.0, 0.0], [0.0, 0.0171364731454, 0.0], [0.0, 0.0, 0.033822]]),
    body(name = tool, mass = 0.2, centre = oe + be * [0.01, 0, 0.02], frame = be,
         inertia = [[0.0004, 0.0, 0.0], [0.0, 0.0003, 0.0], [0.0, 0.0, 0.0002]]),
    gravity = [0, 0, -g],
    dynamics = dense,
)]
pub struct Arm6ByHand {
    pub g: f64,
}

#[test]
fn a_six_joint_arm_from_its_urdf_is_the_arm_written_by_hand_under_torques() {
    let (urdf, hand) = (Arm6 { g: 9.81 }, Arm6ByHand { g: 9.81 });
    assert_eq!(Arm6Driven::DYNAMICS, "recursive");
    assert_eq!(Arm6::INPUTS, ["u_shoulder_pan", "u_shoulder_lift", "u_elbow", "u_wrist_1", "u_wrist_2", "u_wrist_3"]);
    let mut rng = Rng::new(11);
    for _ in 0..20 {
        let x = rng.vector::<12>(-2.0, 2.0);
        let u = [(); 6].map(|_| rng.uniform(-5.0, 5.0));
        let (du, dh) = (urdf.driven(u), hand.driven(u));
        assert_near!(du.mass_matrix(0.0, &x), dh.mass_matrix(0.0, &x), 1e-12);
        let (eu, eh) = (du.energy(0.0, &x), dh.energy(0.0, &x));
        assert!((eu - eh).abs() <= 1e-12 * (1.0 + eh.abs()), "energy {eu} vs {eh}");
        assert_near!(du.field(0.0, &x).unwrap(), dh.field(0.0, &x).unwrap(), 1e-12);
        // B = ∂F/∂u: M⁻¹ on the velocities' rows.
        let (lu, lh) = (urdf.linearize(0.0, &x, u).unwrap(), hand.linearize(0.0, &x, u).unwrap());
        assert_near!(lu.b, lh.b, 1e-12);
        assert_near!(lu.a, lh.a, 1e-9);
    }
}

/// A branched tree with its joints written leaves first: a torso on a hinge, an arm of two links
/// and a head on it.
#[derive(Mechanics)]
#[mechanics(
    joint(name = wrist, kind = revolute, parent = upper, child = fore, origin = [0, 0, 0.3], axis = [1, 0, 0],
          mass = 0.5, centre = [0, 0, 0.15], inertia = diag(0.004, 0.004, 0.001)),
    joint(name = shoulder, kind = revolute, parent = torso, child = upper, origin = [0.2, 0, 0.5], axis = [0, 1, 0],
          mass = 1, centre = [0, 0, 0.15], inertia = diag(0.008, 0.008, 0.002)),
    joint(name = waist, kind = revolute, child = torso, axis = [0, 0, 1],
          mass = 5, centre = [0, 0, 0.3], inertia = diag(0.2, 0.15, 0.1)),
    joint(name = neck, kind = prismatic, parent = torso, child = head, origin = [0, 0, 0.6], axis = [0, 0, 1],
          mass = 2, centre = [0, 0, 0.1], inertia = diag(0.01, 0.01, 0.01)),
    gravity = [0, 0, -9.81],
    dynamics = recursive,
)]
pub struct LeavesFirst;

/// The same tree written root first.
#[derive(Mechanics)]
#[mechanics(
    joint(name = waist, kind = revolute, child = torso, axis = [0, 0, 1],
          mass = 5, centre = [0, 0, 0.3], inertia = diag(0.2, 0.15, 0.1)),
    joint(name = shoulder, kind = revolute, parent = torso, child = upper, origin = [0.2, 0, 0.5], axis = [0, 1, 0],
          mass = 1, centre = [0, 0, 0.15], inertia = diag(0.008, 0.008, 0.002)),
    joint(name = wrist, kind = revolute, parent = upper, child = fore, origin = [0, 0, 0.3], axis = [1, 0, 0],
          mass = 0.5, centre = [0, 0, 0.15], inertia = diag(0.004, 0.004, 0.001)),
    joint(name = neck, kind = prismatic, parent = torso, child = head, origin = [0, 0, 0.6], axis = [0, 0, 1],
          mass = 2, centre = [0, 0, 0.1], inertia = diag(0.01, 0.01, 0.01)),
    gravity = [0, 0, -9.81],
    dynamics = dense,
)]
pub struct RootFirst;

#[test]
fn joints_written_in_any_order_take_the_recursion_parents_first() {
    // Depth first from the ground, siblings as written: the shoulder's branch before the neck.
    assert_eq!(LeavesFirst::COORDINATES, ["waist", "shoulder", "wrist", "neck"]);
    assert_eq!(RootFirst::COORDINATES, LeavesFirst::COORDINATES);
    let mut rng = Rng::new(5);
    for _ in 0..10 {
        let x = rng.vector::<8>(-1.5, 1.5);
        assert_near!(LeavesFirst.accelerations(0.0, &x).unwrap(), RootFirst.accelerations(0.0, &x).unwrap(), 1e-12);
    }
}

/// A floating base (a trunk free in space: three translations and an orientation) with a leg on a
/// hinge.
#[derive(Mechanics)]
#[mechanics(
    joint(name = base, kind = floating, child = trunk, origin = [0, 0, 0.5],
          mass = 3, centre = [0.01, 0, 0], inertia = [[0.1, 0.01, 0], [0.01, 0.2, 0], [0, 0, 0.25]]),
    joint(name = hip, kind = revolute, parent = trunk, child = leg, origin = [0.2, 0, -0.05], axis = [0, 1, 0],
          mass = 0.5, centre = [0, 0, -0.15], inertia = diag(0.004, 0.004, 0.0005), damping = 0.2),
    gravity = [0, 0, -9.81],
)]
pub struct FloatingLeg;

/// The same by hand: the trunk's orientation and position, the leg's frame and centre.
#[derive(Mechanics)]
#[mechanics(
    coordinates(base_x, base_y, base_z, hip),
    orientation(base_q),
    point(o = [base_x, base_y, base_z + 0.5]),
    body(name = trunk, mass = 3, centre = o + base_q * [0.01, 0, 0], frame = base_q,
         inertia = [[0.1, 0.01, 0], [0.01, 0.2, 0], [0, 0, 0.25]]),
    body(name = leg, mass = 0.5, centre = o + base_q * [0.2, 0, -0.05] + base_q * rot_y(hip) * [0, 0, -0.15],
         frame = base_q * rot_y(hip), inertia = diag(0.004, 0.004, 0.0005)),
    force(hip = -0.2 * dot(hip)),
    gravity = [0, 0, -9.81],
)]
pub struct FloatingLegByHand;

/// A puck sliding and turning in a vertical plane (the joint frame's x–y plane turned a quarter
/// turn about x: its y axis points up), with a pendulum about the plane's normal.
#[derive(Mechanics)]
#[mechanics(
    joint(name = puck, kind = planar, child = disc, rotation = rpy(pi / 2, 0, 0),
          mass = 2, centre = [0.05, 0, 0], inertia = diag(0.01, 0.01, 0.02)),
    joint(name = swing, kind = revolute, parent = disc, child = bob, axis = [0, 0, 1],
          mass = 0.3, centre = [0, -0.4, 0], inertia = diag(0.002, 0.0001, 0.002)),
    gravity = [0, 0, -9.81],
)]
pub struct PlanarPuck;

/// The same by hand.
#[derive(Mechanics)]
#[mechanics(
    coordinates(puck_x, puck_y, puck, swing),
    frame(d = [[1, 0, 0], [0, 0, -1], [0, 1, 0]] * rot_z(puck), b = d * rot_z(swing)),
    point(o = [[1, 0, 0], [0, 0, -1], [0, 1, 0]] * [puck_x, puck_y, 0]),
    body(name = disc, mass = 2, centre = o + d * [0.05, 0, 0], frame = d, inertia = diag(0.01, 0.01, 0.02)),
    body(name = bob, mass = 0.3, centre = o + b * [0, -0.4, 0], frame = b, inertia = diag(0.002, 0.0001, 0.002)),
    gravity = [0, 0, -9.81],
    dynamics = dense,
)]
pub struct PlanarPuckByHand;

#[test]
fn floating_and_planar_joints_are_their_coordinates_written_by_hand() {
    assert_eq!(FloatingLeg::COORDINATES, FloatingLegByHand::COORDINATES);
    assert_eq!(FloatingLeg::STATE_NAMES, FloatingLegByHand::STATE_NAMES);
    // Every component of the state named once (the quaternion's are `base_q_w`, …).
    let mut names = FloatingLeg::STATE_NAMES.to_vec();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), FloatingLeg::STATE_NAMES.len(), "{:?}", FloatingLeg::STATE_NAMES);
    let mut rng = Rng::new(23);
    for _ in 0..10 {
        // Positions (three translations, the hinge, a quaternion), velocities (three, the hinge, ω).
        let q = [(); 8].map(|_| rng.uniform(-1.0, 1.0));
        let v = [(); 7].map(|_| rng.uniform(-1.0, 1.0));
        let x = FloatingLeg.state(q, v);
        assert_near!(FloatingLeg.field(0.0, &x).unwrap(), FloatingLegByHand.field(0.0, &x).unwrap(), 1e-12);
        let (e, eh) = (FloatingLeg.energy(0.0, &x), FloatingLegByHand.energy(0.0, &x));
        assert!((e - eh).abs() < 1e-12 * (1.0 + eh.abs()));
    }
    assert_eq!(PlanarPuck::COORDINATES, ["puck_x", "puck_y", "puck", "swing"]);
    for _ in 0..10 {
        let x = rng.vector::<8>(-1.5, 1.5);
        assert_near!(PlanarPuck.accelerations(0.0, &x).unwrap(), PlanarPuckByHand.accelerations(0.0, &x).unwrap(), 1e-12);
        assert_near!(PlanarPuck.mass_matrix(0.0, &x), PlanarPuckByHand.mass_matrix(0.0, &x), 1e-12);
    }
    // Alone on the plane, the puck's centre falls at g along the plane's y axis (up).
    let x = PlanarPuck.state([0.0, 0.0, 0.3, 0.0], [0.0; 4]);
    let m = PlanarPuck.mass_matrix(0.0, &x);
    let qdd = PlanarPuck.accelerations(0.0, &x).unwrap();
    // Total vertical force balance: the generalized force on puck_y is −(m_disc + m_bob) g.
    let f_y = (m * qdd)[1];
    assert!((f_y + 2.3 * 9.81).abs() < 1e-12, "{f_y}");
}

/// A puck with a pendulum from its file (`tests/robots/puck.urdf`: the puck the root link, no joint
/// moving it), slid and turned in the x–y plane when asked, gravity along −y.
#[derive(Mechanics)]
#[mechanics(urdf(path = "tests/robots/puck.urdf", root = planar), gravity = [0, -g, 0])]
pub struct FilePuck {
    pub g: f64,
}

/// The same by hand.
#[derive(Mechanics)]
#[mechanics(
    coordinates(root_x, root_y, root, swing),
    frame(d = rot_z(root), b = d * rot_z(swing)),
    point(o = [root_x, root_y, 0]),
    body(name = disc, mass = 2, centre = o + d * [0.05, 0, 0], frame = d, inertia = diag(0.01, 0.01, 0.02)),
    body(name = bob, mass = 0.3, centre = o + d * [0.1, 0, 0] + b * [0, -0.4, 0], frame = b, inertia = diag(0.002, 0.0001, 0.002)),
    gravity = [0, -g, 0],
    dynamics = dense,
)]
pub struct PuckByHand {
    pub g: f64,
}

#[test]
fn a_planar_robots_file_slides_and_turns_in_the_plane_when_asked() {
    assert_eq!(FilePuck::COORDINATES, PuckByHand::COORDINATES);
    let (file, hand) = (FilePuck { g: 9.81 }, PuckByHand { g: 9.81 });
    let mut rng = Rng::new(29);
    for _ in 0..10 {
        let x = rng.vector::<8>(-1.5, 1.5);
        assert_near!(file.accelerations(0.0, &x).unwrap(), hand.accelerations(0.0, &x).unwrap(), 1e-12);
        assert_near!(file.mass_matrix(0.0, &x), hand.mass_matrix(0.0, &x), 1e-12);
        let (e, eh) = (file.energy(0.0, &x), hand.energy(0.0, &x));
        assert!((e - eh).abs() < 1e-12 * (1.0 + eh.abs()), "{e} against {eh}");
    }
}

/// A pendulum carrying a rotor whose link has an inertia and no mass, from its file
/// (`tests/robots/rotor.urdf`), by each dynamics.
#[derive(Mechanics)]
#[mechanics(urdf = "tests/robots/rotor.urdf", gravity = [0, 0, -g])]
pub struct FileRotor {
    pub g: f64,
}

#[derive(Mechanics)]
#[mechanics(urdf = "tests/robots/rotor.urdf", gravity = [0, 0, -g], dynamics = dense)]
pub struct FileRotorDense {
    pub g: f64,
}

/// The same by hand: the point mass's ½ m l² θ̇² and −m g l (1 − cos θ), and the rotor's
/// rotational energy alone, ½ ωᵀ J ω, with its body angular velocity ω = R_z(φ)ᵀ θ̇ e_y + φ̇ e_z
/// and J = R_x(a) diag(j₁, j₂, j₃) R_x(a)ᵀ written out — no term of its offset centre.
#[derive(Mechanics)]
#[mechanics(
    coordinates(swing, spin),
    define(
        w1 = dot(swing) * spin.sin(), w2 = dot(swing) * spin.cos(), w3 = dot(spin),
        c = a.cos(), s = a.sin(),
        j22 = c * c * 0.02 + s * s * 0.025, j33 = s * s * 0.02 + c * c * 0.025, j23 = c * s * (0.02 - 0.025),
    ),
    lagrangian = 2 / 2 * 0.25 * dot(swing).powi(2)
               + (0.01 * w1 * w1 + j22 * w2 * w2 + j33 * w3 * w3 + 2 * j23 * w2 * w3) / 2
               + 2 * g * 0.5 * swing.cos(),
)]
pub struct RotorByHand {
    pub a: f64,
    pub g: f64,
}

#[test]
fn a_massless_links_inertia_is_its_rotational_energy_alone() {
    let (file, dense, hand) = (FileRotor { g: 9.81 }, FileRotorDense { g: 9.81 }, RotorByHand { a: 0.3, g: 9.81 });
    let mut rng = Rng::new(53);
    for _ in 0..10 {
        let x = rng.vector::<4>(-3.0, 3.0);
        let want = hand.accelerations(0.0, &x).unwrap();
        assert_near!(file.accelerations(0.0, &x).unwrap(), want, 1e-12);
        assert_near!(dense.accelerations(0.0, &x).unwrap(), want, 1e-12);
        assert_near!(file.mass_matrix(0.0, &x), hand.mass_matrix(0.0, &x), 1e-12);
        // Energies differ by the constant of the potential's zero: compare their differences.
        let x0 = Vector::<4>::zeros();
        let (e, eh) = (file.energy(0.0, &x) - file.energy(0.0, &x0), hand.energy(0.0, &x) - hand.energy(0.0, &x0));
        assert!((e - eh).abs() < 1e-12 * (1.0 + eh.abs()), "{e} against {eh}");
    }
    // The rotor's own axis: M_φφ = J₃₃ = sin²a j₂ + cos²a j₃ whatever the state.
    let m = file.mass_matrix(0.0, &Vector::<4>::new(0.7, -1.2, 0.3, 2.0));
    let (c, s) = (0.3_f64.cos(), 0.3_f64.sin());
    assert!((m[(1, 1)] - (s * s * 0.02 + c * c * 0.025)).abs() < 1e-15, "{m}");
}

/// The six-joint arm without inputs, as its file gives it and with its elbow and second wrist
/// joint held fixed (`lock`, Pinocchio's `buildReducedModel`).
#[derive(Mechanics)]
#[mechanics(urdf = "tests/robots/arm6.urdf", gravity = [0, 0, -g])]
pub struct Arm6Free {
    pub g: f64,
}

#[derive(Mechanics)]
#[mechanics(urdf(path = "tests/robots/arm6.urdf", lock = [elbow = 0.7, wrist_2 = -0.4]), gravity = [0, 0, -g])]
pub struct Arm6Locked {
    pub g: f64,
}

#[test]
fn a_locked_joint_is_the_robot_held_at_its_value() {
    assert_eq!(Arm6Locked::COORDINATES, ["shoulder_pan", "shoulder_lift", "wrist_1", "wrist_3"]);
    let (free, locked) = (Arm6Free { g: 9.81 }, Arm6Locked { g: 9.81 });
    let kept = [0, 1, 3, 5];
    let mut rng = Rng::new(61);
    for _ in 0..10 {
        // The arm at a state with the two joints at their values and still, and at rest there:
        // its inverse dynamics at accelerations that leave them still is the locked arm's, on the
        // joints that move; M is the free arm's without their rows and columns.
        let (q, qd, qdd) = (rng.vector::<4>(-2.0, 2.0), rng.vector::<4>(-2.0, 2.0), rng.vector::<4>(-3.0, 3.0));
        let full = |v: &Vector<4>, held: [f64; 2]| Vector::<6>::from([v[0], v[1], held[0], v[2], held[1], v[3]]);
        let x = State::<12>::from_iterator(full(&q, [0.7, -0.4]).iter().chain(full(&qd, [0.0; 2]).iter()).copied());
        let xl = State::<8>::from_iterator(q.iter().chain(qd.iter()).copied());
        let tau = free.inverse_dynamics(0.0, &x, &full(&qdd, [0.0; 2])).unwrap();
        let tau_locked = locked.inverse_dynamics(0.0, &xl, &qdd).unwrap();
        let (m, ml) = (free.mass_matrix(0.0, &x), locked.mass_matrix(0.0, &xl));
        for (r, &i) in kept.iter().enumerate() {
            assert!((tau_locked[r] - tau[i]).abs() < 1e-12 * (1.0 + tau[i].abs()), "{tau_locked} against {tau}");
            for (c, &k) in kept.iter().enumerate() {
                assert!((ml[(r, c)] - m[(i, k)]).abs() < 1e-12, "{ml} against {m}");
            }
        }
        let (e, el) = (free.energy(0.0, &x), locked.energy(0.0, &xl));
        assert!((e - el).abs() < 1e-12 * (1.0 + e.abs()), "{e} against {el}");
    }
}

/// The gripper with its left finger held 2 cm open: the right one, which mimics it, held where
/// the mimic puts it (2 · 0.02 + 0.01), the carriage alone moving.
#[derive(Mechanics)]
#[mechanics(urdf(path = "tests/robots/gripper.urdf", lock = [open = 0.02]), gravity = [0, 0, -g])]
pub struct GripperHeld {
    pub g: f64,
}

#[test]
fn a_joint_that_mimics_a_locked_one_is_held_where_it_follows() {
    assert_eq!(GripperHeld::COORDINATES, ["slide"]);
    let (held, solved) = (GripperHeld { g: 9.81 }, GripperSolved { g: 9.81 });
    for (s, sd) in [(0.1, 0.4), (-0.3, -1.0)] {
        let (x, xs) = (State::<2>::from([s, sd]), State::<4>::from([s, 0.02, sd, 0.0]));
        // The fingers' heights on the tilted carriage are in the potential.
        let (e, es) = (held.energy(0.0, &x), solved.energy(0.0, &xs));
        assert!((e - es).abs() < 1e-12, "{e} against {es}");
        let tau = held.inverse_dynamics(0.0, &x, &Vector::<1>::from([0.6])).unwrap();
        let tau_solved = solved.inverse_dynamics(0.0, &xs, &Vector::<2>::from([0.6, 0.0])).unwrap();
        assert!((tau[0] - tau_solved[0]).abs() < 1e-12, "{tau} against {tau_solved}");
    }
}

/// A pendulum on a carriage whose rail is pitched (`tests/robots/slider.urdf`), moving and with the
/// carriage held 0.3 along the rail.
#[derive(Mechanics)]
#[mechanics(urdf = "tests/robots/slider.urdf", gravity = [0, 0, -g])]
pub struct Slider {
    pub g: f64,
}

#[derive(Mechanics)]
#[mechanics(urdf(path = "tests/robots/slider.urdf", lock = [lift = 0.3]), gravity = [0, 0, -g])]
pub struct SliderLocked {
    pub g: f64,
}

#[test]
fn a_locked_slide_holds_its_link_along_the_turned_axis() {
    let (free, locked) = (Slider { g: 9.81 }, SliderLocked { g: 9.81 });
    for (q, qd) in [(0.4, 1.2), (-2.0, 0.3), (3.0, -2.0)] {
        let (x, xl) = (State::<4>::from([0.3, q, 0.0, qd]), State::<2>::from([q, qd]));
        // The energy to its constant: the pivot's height along the pitched rail, sin(0.5) · 0.3
        // above the joint's origin, in the potential of both links.
        let (e, el) = (free.energy(0.0, &x), locked.energy(0.0, &xl));
        assert!((e - el).abs() < 1e-12, "{e} against {el}");
        // The torque on the pendulum that gives it q̈ with the carriage held still.
        let tau = free.inverse_dynamics(0.0, &x, &Vector::<2>::from([0.0, 0.7])).unwrap();
        let tau_locked = locked.inverse_dynamics(0.0, &xl, &Vector::<1>::from([0.7])).unwrap();
        assert!((tau[1] - tau_locked[0]).abs() < 1e-12, "{tau} against {tau_locked}");
    }
    // And against the closed form at q = 0: the carriage's 1 kg at the pivot, the bob's 0.5 kg 0.4
    // m down the carriage's pitched z axis from it (0.4 cos 0.5 below).
    let (s, c) = 0.5_f64.sin_cos();
    let pivot = 0.2 + s * 0.3;
    let e = locked.energy(0.0, &State::<2>::from([0.0, 0.0]));
    assert!((e - 9.81 * (pivot + 0.5 * (pivot - 0.4 * c))).abs() < 1e-12, "{e}");
}

/// A rod on a hinge between stops at ±0.5 rad, from its URDF with the limits asked for.
#[derive(Mechanics)]
#[mechanics(urdf(path = "tests/robots/hinge.urdf", limits = e), gravity = [0, 0, -g])]
pub struct StoppedHinge {
    pub e: f64,
    pub g: f64,
}

/// The same with `joint(...)`.
#[derive(Mechanics)]
#[mechanics(
    joint(name = swing, kind = revolute, child = rod, axis = [0, 1, 0], limits = [-0.5, 0.5], restitution = e,
          mass = 1, centre = [0, 0, -0.25], inertia = diag(0.0052, 0.0052, 0.0001)),
    gravity = [0, 0, -g],
)]
pub struct StoppedJoint {
    pub e: f64,
    pub g: f64,
}

#[test]
fn joint_limits_asked_for_are_impacts_at_the_stops() {
    // Without gravity the rod turns at a constant rate between the stops: from 0 at 2 rad/s it
    // strikes 0.5 at t = 0.25 and leaves at −1 rad/s, strikes −0.5 at 1.25 and leaves at 0.5 rad/s,
    // strikes 0.5 at 3.25.
    let options = HybridOptions::default().ode(Options::default().rtol(1e-12).atol(1e-13));
    let expected = [(0.25, "swing_upper", -1.0), (1.25, "swing_lower", 0.5), (3.25, "swing_upper", -0.25)];
    let urdf = StoppedHinge { e: 0.5, g: 0.0 };
    let joint = StoppedJoint { e: 0.5, g: 0.0 };
    let runs = [
        urdf.run(urdf.state([0.0], [2.0])).span(0.0..4.0).options(options.clone()).go().unwrap(),
        joint.run(joint.state([0.0], [2.0])).span(0.0..4.0).options(options).go().unwrap(),
    ];
    for run in &runs {
        assert_eq!(run.impacts.len(), 3);
        for (imp, (t, guard, rate)) in run.impacts.iter().zip(expected) {
            assert_eq!(imp.guard, guard);
            assert!((imp.t - t).abs() < 1e-9, "{} against {t}", imp.t);
            assert!((imp.post[1] - rate).abs() < 1e-9, "{} against {rate}", imp.post[1]);
        }
    }
    assert_eq!(StoppedHinge::IMPACTS, ["swing_lower", "swing_upper"]);
}

/// The six-joint arm with its quarter turns printed to eleven decimals (`tests/robots/arm6_printed.urdf`,
/// 1.57079632679 as some robots' files print π/2): read as written, each a turn 4.9·10⁻¹² rad short
/// of a quarter turn, and with `round_angles = 1e-9`, each the quarter turn itself.
#[derive(Mechanics)]
#[mechanics(urdf(path = "tests/robots/arm6_printed.urdf", inputs = u), gravity = [0, 0, -g])]
pub struct Arm6Printed {
    pub g: f64,
}

#[derive(Mechanics)]
#[mechanics(urdf(path = "tests/robots/arm6_printed.urdf", inputs = u, round_angles = 1e-9), gravity = [0, 0, -g])]
pub struct Arm6Rounded {
    pub g: f64,
}

#[test]
fn angles_printed_near_a_quarter_turn_are_read_as_written_or_rounded_when_asked() {
    let (exact, printed, rounded) = (Arm6 { g: 9.81 }, Arm6Printed { g: 9.81 }, Arm6Rounded { g: 9.81 });
    assert_eq!(Arm6PrintedDriven::DYNAMICS, "recursive");
    let mut rng = Rng::new(31);
    let mut largest = 0.0_f64;
    for _ in 0..20 {
        let x = rng.vector::<12>(-2.0, 2.0);
        let u = [(); 6].map(|_| rng.uniform(-5.0, 5.0));
        let (e, p, r) = (exact.driven(u), printed.driven(u), rounded.driven(u));
        // Rounded: the file with π/2 in full, the same model and the same code, to the bit.
        assert_eq!(r.field(0.0, &x).unwrap(), e.field(0.0, &x).unwrap());
        assert_eq!(r.mass_matrix(0.0, &x), e.mass_matrix(0.0, &x));
        // As written: a different model by the turns' 4.9e-12 rad, no more.
        let (fp, fe) = (p.field(0.0, &x).unwrap(), e.field(0.0, &x).unwrap());
        let relative = (fp - fe).amax() / fe.amax();
        assert!(relative < 1e-9, "{relative}");
        largest = largest.max(relative);
    }
    assert!(largest > 1e-14, "the turns as written are no quarter turns: {largest}");
}

/// Joints whose origins turn about the joints' own axes by angles that are no multiple of π — about
/// z, about −y behind a yaw, about x behind a pitch and a yaw, about −z — and one that turns about
/// another axis first (a roll before a pitch joint): `joint(...)` takes each turn about the joint's
/// own axis into its angle, R_z(0.7) R_z(q) as R_z(q + 0.7), and the recursion reads its joints in
/// those angles (each a turn behind a sparse constant part).
#[derive(Mechanics)]
#[mechanics(
    joint(name = j1, kind = revolute, child = l1, origin = [0, 0, 0.3], rotation = rpy(0, 0, 0.7), axis = [0, 0, 1],
          input = u1, mass = 2, centre = [0.05, 0, 0.1], inertia = [[0.03, 0.002, 0.001], [0.002, 0.04, -0.003], [0.001, -0.003, 0.02]]),
    joint(name = j2, kind = revolute, parent = l1, child = l2, origin = [0.1, 0, 0.2], rotation = rpy(0, 1.1, 0.4), axis = [0, -1, 0],
          input = u2, mass = 1.5, centre = [0, 0.02, 0.15], inertia = [[0.02, 0.001, 0.0], [0.001, 0.025, 0.002], [0.0, 0.002, 0.01]]),
    joint(name = j3, kind = revolute, parent = l2, child = l3, origin = [0, 0.2, 0.25], rotation = rpy(0.9, -0.5, 0.3), axis = [1, 0, 0],
          input = u3, mass = 1.2, centre = [0.03, 0.1, 0], inertia = [[0.01, 0.0, 0.001], [0.0, 0.012, 0.0], [0.001, 0.0, 0.008]]),
    joint(name = j4, kind = revolute, parent = l3, child = l4, origin = [0, 0, 0.2], rotation = rpy(0.6, 0.8, 0), axis = [0, 1, 0],
          input = u4, mass = 0.8, centre = [0, 0, 0.1], inertia = [[0.006, 0.0, 0.0], [0.0, 0.007, 0.001], [0.0, 0.001, 0.004]]),
    joint(name = j5, kind = revolute, parent = l4, child = l5, origin = [0.1, 0, 0], rotation = rpy(0, 0, -2.2), axis = [0, 0, -1],
          input = u5, mass = 0.5, centre = [0.04, 0.01, 0.02], inertia = [[0.002, 0.0, 0.0], [0.0, 0.003, 0.0], [0.0, 0.0, 0.0025]]),
    gravity = [0, 0, -9.81],
    dynamics = recursive,
)]
pub struct TurnedOrigins;

/// The same arm by hand: its frames the origins' rotations times the joints' turns, as written
/// (no angle taken in), its dynamics from the Lagrangian (`dense`).
#[derive(Mechanics)]
#[mechanics(
    coordinates(j1, j2, j3, j4, j5),
    input(u1, u2, u3, u4, u5),
    force(j1 = u1, j2 = u2, j3 = u3, j4 = u4, j5 = u5),
    frame(
        l1 = rpy(0, 0, 0.7) * axis_angle([0, 0, 1], j1),
        l2 = l1 * rpy(0, 1.1, 0.4) * axis_angle([0, -1, 0], j2),
        l3 = l2 * rpy(0.9, -0.5, 0.3) * axis_angle([1, 0, 0], j3),
        l4 = l3 * rpy(0.6, 0.8, 0) * axis_angle([0, 1, 0], j4),
        l5 = l4 * rpy(0, 0, -2.2) * axis_angle([0, 0, -1], j5),
    ),
    point(o1 = [0, 0, 0.3], o2 = o1 + l1 * [0.1, 0, 0.2], o3 = o2 + l2 * [0, 0.2, 0.25], o4 = o3 + l3 * [0, 0, 0.2], o5 = o4 + l4 * [0.1, 0, 0]),
    body(name = b1, mass = 2, centre = o1 + l1 * [0.05, 0, 0.1], frame = l1,
         inertia = [[0.03, 0.002, 0.001], [0.002, 0.04, -0.003], [0.001, -0.003, 0.02]]),
    body(name = b2, mass = 1.5, centre = o2 + l2 * [0, 0.02, 0.15], frame = l2,
         inertia = [[0.02, 0.001, 0.0], [0.001, 0.025, 0.002], [0.0, 0.002, 0.01]]),
    body(name = b3, mass = 1.2, centre = o3 + l3 * [0.03, 0.1, 0], frame = l3,
         inertia = [[0.01, 0.0, 0.001], [0.0, 0.012, 0.0], [0.001, 0.0, 0.008]]),
    body(name = b4, mass = 0.8, centre = o4 + l4 * [0, 0, 0.1], frame = l4,
         inertia = [[0.006, 0.0, 0.0], [0.0, 0.007, 0.001], [0.0, 0.001, 0.004]]),
    body(name = b5, mass = 0.5, centre = o5 + l5 * [0.04, 0.01, 0.02], frame = l5,
         inertia = [[0.002, 0.0, 0.0], [0.0, 0.003, 0.0], [0.0, 0.0, 0.0025]]),
    gravity = [0, 0, -9.81],
    dynamics = dense,
)]
pub struct TurnedOriginsByHand;

#[test]
fn an_origin_turned_about_its_joints_axis_is_the_same_arm_with_the_turn_in_the_angle() {
    assert_eq!(TurnedOriginsDriven::DYNAMICS, "recursive");
    let mut rng = Rng::new(43);
    for _ in 0..20 {
        let x = rng.vector::<10>(-2.5, 2.5);
        let u = [(); 5].map(|_| rng.uniform(-3.0, 3.0));
        let (j, h) = (TurnedOrigins.driven(u), TurnedOriginsByHand.driven(u));
        assert_near!(j.mass_matrix(0.0, &x), h.mass_matrix(0.0, &x), 1e-12);
        let (ej, eh) = (j.energy(0.0, &x), h.energy(0.0, &x));
        assert!((ej - eh).abs() <= 1e-12 * (1.0 + eh.abs()), "energy {ej} vs {eh}");
        let (fj, fh) = (j.field(0.0, &x).unwrap(), h.field(0.0, &x).unwrap());
        assert_near!(fj, fh, 1e-11);
        let qdd = Vector::<5>::from_fn(|i, _| fh[5 + i]);
        // τ(q, q̇, q̈) at the hand's q̈ is the torque that drives it: u.
        let tau = TurnedOrigins.driven([0.0; 5]).inverse_dynamics(0.0, &x, &qdd).unwrap();
        assert_near!(tau, Vector::<5>::from_fn(|i, _| u[i]), 1e-10);
        let (lj, lh) = (TurnedOrigins.linearize(0.0, &x, u).unwrap(), TurnedOriginsByHand.linearize(0.0, &x, u).unwrap());
        assert_near!(lj.b, lh.b, 1e-11);
        assert_near!(lj.a, lh.a, 1e-9);
    }
}

/// The six-joint arm with dry friction on each joint (`tests/robots/arm6_friction.urdf`), read with
/// `friction = ignore`: the friction left out, the model is the file without it.
#[derive(Mechanics)]
#[mechanics(urdf(path = "tests/robots/arm6_friction.urdf", inputs = u, friction = ignore), gravity = [0, 0, -g])]
pub struct Arm6Friction {
    pub g: f64,
}

#[test]
fn a_files_dry_friction_is_left_out_when_asked() {
    let (frictionless, ignored) = (Arm6 { g: 9.81 }, Arm6Friction { g: 9.81 });
    let mut rng = Rng::new(47);
    for _ in 0..20 {
        let x = rng.vector::<12>(-2.0, 2.0);
        let u = [(); 6].map(|_| rng.uniform(-5.0, 5.0));
        let (a, b) = (frictionless.driven(u), ignored.driven(u));
        // The same model and the same code, to the bit.
        assert_eq!(b.field(0.0, &x).unwrap(), a.field(0.0, &x).unwrap());
        assert_eq!(b.mass_matrix(0.0, &x), a.mass_matrix(0.0, &x));
    }
    // Kept as constants for a controller's compensation, by joint as the file gives them; the
    // file's limits beside them as in the frictionless file.
    assert_eq!(Arm6Friction::FRICTION, [0.1, 0.2, 0.3, 0.4, 0.5, 0.6]);
    assert_eq!(Arm6Friction::EFFORT_LIMITS, Arm6::EFFORT_LIMITS);
    assert_eq!(Arm6::FRICTION, [0.0; 6]);
    // The same constants behind a pointer (what the Python module's classes read), and none for a
    // model written by hand.
    use routh::runtime::DynModel;
    let limits = Arm6Friction::describe().limits.expect("a file's limits");
    assert_eq!(limits.friction, Arm6Friction::FRICTION);
    assert_eq!(limits.position, Arm6Friction::POSITION_LIMITS);
    assert_eq!(limits.effort, Arm6Friction::EFFORT_LIMITS);
    assert_eq!(limits.velocity, Arm6Friction::VELOCITY_LIMITS);
    assert!(Arm6ByHand::describe().limits.is_none());
}

/// A double pendulum of point masses from its URDF (`tests/robots/point_masses.urdf`): links whose
/// inertias are zero (one but for 3·10⁻³⁵ of noise) are point masses, and its second link, named
/// as its first joint (`upper`), is the frame `upper_link`.
#[derive(Mechanics)]
#[mechanics(urdf = "tests/robots/point_masses.urdf", gravity = [0, 0, -g], dynamics = recursive)]
pub struct PointMasses {
    pub g: f64,
}

/// The same by hand: two particles, their dynamics from the Lagrangian.
#[derive(Mechanics)]
#[mechanics(
    coordinates(upper, lower),
    particle(name = first, mass = 1.5, at = [-0.6 * sin(upper), 0, -0.6 * cos(upper)]),
    particle(name = second, mass = 0.8,
             at = [-0.6 * sin(upper) - 0.4 * sin(upper + lower), 0, -0.6 * cos(upper) - 0.4 * cos(upper + lower)]),
    gravity = [0, 0, -g],
    dynamics = dense,
)]
pub struct PointMassesByHand {
    pub g: f64,
}

#[test]
fn a_files_links_without_inertia_are_point_masses() {
    assert_eq!(PointMasses::COORDINATES, ["upper", "lower"]);
    let (file, hand) = (PointMasses { g: 9.81 }, PointMassesByHand { g: 9.81 });
    let mut rng = Rng::new(53);
    for _ in 0..20 {
        let x = rng.vector::<4>(-3.0, 3.0);
        // M = [m₁ l₁² + m₂ (l₁² + l₂² + 2 l₁ l₂ cos q₂), m₂ (l₂² + l₁ l₂ cos q₂); ·, m₂ l₂²].
        let c = x[1].cos();
        let m01 = 0.8 * (0.16 + 0.24 * c);
        let closed = Matrix::<2, 2>::new(1.5 * 0.36 + 0.8 * (0.36 + 0.16 + 0.48 * c), m01, m01, 0.8 * 0.16);
        assert_near!(file.mass_matrix(0.0, &x), closed, 1e-13);
        assert_near!(file.field(0.0, &x).unwrap(), hand.field(0.0, &x).unwrap(), 1e-12);
        let (ef, eh) = (file.energy(0.0, &x), hand.energy(0.0, &x));
        assert!((ef - eh).abs() <= 1e-12 * (1.0 + eh.abs()), "energy {ef} vs {eh}");
    }
}

/// A six-joint arm after the Kinova Jaco's file (`tests/robots/rolls.urdf`): each joint behind a
/// quarter roll printed short and a half turn of yaw, on a mount turned by a quarter turn printed
/// short — turns about other axes than the joints', which stay in the frames. The proof that each
/// body rides on its link (a zero test over products of the frames) now holds where its rounding
/// scale had overflowed; the recursion is the dense path's model.
#[derive(Mechanics)]
#[mechanics(urdf = "tests/robots/rolls.urdf", gravity = [0, 0, -g], dynamics = recursive)]
pub struct Rolls {
    pub g: f64,
}

/// The same file, its dynamics from the Lagrangian.
#[derive(Mechanics)]
#[mechanics(urdf = "tests/robots/rolls.urdf", gravity = [0, 0, -g], dynamics = dense)]
pub struct RollsDense {
    pub g: f64,
}

#[test]
fn frames_turned_by_angles_printed_short_take_the_recursion() {
    let (recursive, dense) = (Rolls { g: 9.81 }, RollsDense { g: 9.81 });
    assert_eq!(Rolls::DYNAMICS, "recursive");
    let mut rng = Rng::new(59);
    for _ in 0..20 {
        let x = rng.vector::<12>(-2.5, 2.5);
        assert_near!(recursive.mass_matrix(0.0, &x), dense.mass_matrix(0.0, &x), 1e-12);
        assert_near!(recursive.field(0.0, &x).unwrap(), dense.field(0.0, &x).unwrap(), 1e-10);
        let (er, ed) = (recursive.energy(0.0, &x), dense.energy(0.0, &x));
        assert!((er - ed).abs() <= 1e-12 * (1.0 + ed.abs()), "energy {er} vs {ed}");
    }
}

/// An arm whose links' inertias no rigid body has (`tests/robots/unbalanced.urdf`: one against the
/// triangle inequality, a rod with no moment about its axis, one with a negative principal moment),
/// read with `inertias = balance`: each is the isotropic inertia of its trace (MuJoCo's
/// `balanceinertia`), whatever the axes its `rpy` names.
#[derive(Mechanics)]
#[mechanics(urdf(path = "tests/robots/unbalanced.urdf", inertias = balance), gravity = [0, 0, -g], dynamics = recursive)]
pub struct Balanced {
    pub g: f64,
}

/// The same arm with those inertias written by hand: tr/3 on the diagonal.
#[derive(Mechanics)]
#[mechanics(
    joint(name = shoulder, kind = revolute, child = upper, axis = [0, 0, 1],
          mass = 1.2, centre = [0, 0, 0.2], inertia = diag(0.004, 0.004, 0.004)),
    joint(name = elbow, kind = revolute, parent = upper, child = rod, origin = [0, 0, 0.4], axis = [0, 1, 0],
          mass = 0.5, centre = [0, -0.009, -0.089], inertia = diag(0.00008, 0.00008, 0.00008)),
    joint(name = wrist, kind = revolute, parent = rod, child = tip, origin = [0, 0, -0.18], axis = [1, 0, 0],
          mass = 0.3, centre = [0.05, 0, 0], inertia = diag(0.0003017666666666667, 0.0003017666666666667, 0.0003017666666666667)),
    gravity = [0, 0, -g],
    dynamics = dense,
)]
pub struct BalancedByHand {
    pub g: f64,
}

#[test]
fn inertias_no_rigid_body_has_are_balanced_when_asked() {
    let (file, hand) = (Balanced { g: 9.81 }, BalancedByHand { g: 9.81 });
    let mut rng = Rng::new(61);
    for _ in 0..20 {
        let x = rng.vector::<6>(-2.5, 2.5);
        assert_near!(file.mass_matrix(0.0, &x), hand.mass_matrix(0.0, &x), 1e-14);
        assert_near!(file.field(0.0, &x).unwrap(), hand.field(0.0, &x).unwrap(), 1e-11);
    }
}

/// The six-joint arm from its MJCF file (`tests/robots/arm6.xml`: degrees, a quaternion, Euler
/// angles and an axis-angle, the forearm's hinge through a joint `pos` 0.3 above its body's origin,
/// full inertia with turned axes), driven as the URDF's.
#[derive(Mechanics)]
#[mechanics(mjcf(path = "tests/robots/arm6.xml", inputs = u), gravity = [0, 0, -g])]
pub struct Arm6Mjcf {
    pub g: f64,
}

#[test]
fn a_six_joint_arm_from_its_mjcf_is_the_arm_from_its_urdf() {
    let (mjcf, urdf) = (Arm6Mjcf { g: 9.81 }, Arm6 { g: 9.81 });
    // The shoulder's `range="-180 180"` in degrees, a constant of the model; no effort in MJCF's joints.
    let [lower, upper] = Arm6Mjcf::POSITION_LIMITS[0];
    assert!((lower + std::f64::consts::PI).abs() < 1e-15 && (upper - std::f64::consts::PI).abs() < 1e-15);
    assert_eq!(Arm6Mjcf::POSITION_LIMITS[1], [f64::NEG_INFINITY, f64::INFINITY]);
    assert_eq!(Arm6Mjcf::EFFORT_LIMITS, [f64::INFINITY; 6]);
    assert_eq!(Arm6Mjcf::COORDINATES, Arm6::COORDINATES);
    assert_eq!(Arm6MjcfDriven::DYNAMICS, "recursive");
    let mut rng = Rng::new(29);
    for _ in 0..20 {
        let x = rng.vector::<12>(-2.0, 2.0);
        let u = [(); 6].map(|_| rng.uniform(-5.0, 5.0));
        let (dm, du) = (mjcf.driven(u), urdf.driven(u));
        assert_near!(dm.mass_matrix(0.0, &x), du.mass_matrix(0.0, &x), 1e-12);
        assert_near!(dm.field(0.0, &x).unwrap(), du.field(0.0, &x).unwrap(), 1e-12);
        let (em, eu) = (dm.energy(0.0, &x), du.energy(0.0, &x));
        assert!((em - eu).abs() < 1e-12 * (1.0 + eu.abs()), "energy {em} vs {eu}");
    }
}

/// The MJCF arm with dry friction on three joints (`tests/robots/arm6_friction.xml`), read with
/// `friction = ignore`.
#[derive(Mechanics)]
#[mechanics(mjcf(path = "tests/robots/arm6_friction.xml", inputs = u, friction = ignore), gravity = [0, 0, -g])]
pub struct Arm6MjcfFriction {
    pub g: f64,
}

#[test]
fn an_mjcf_files_dry_friction_is_left_out_when_asked_and_kept_as_constants() {
    let (frictionless, ignored) = (Arm6Mjcf { g: 9.81 }, Arm6MjcfFriction { g: 9.81 });
    let mut rng = Rng::new(31);
    for _ in 0..10 {
        let x = rng.vector::<12>(-2.0, 2.0);
        let u = [(); 6].map(|_| rng.uniform(-5.0, 5.0));
        let (a, b) = (frictionless.driven(u), ignored.driven(u));
        assert_eq!(b.field(0.0, &x).unwrap(), a.field(0.0, &x).unwrap());
        assert_eq!(b.mass_matrix(0.0, &x), a.mass_matrix(0.0, &x));
    }
    // A joint with friction and no range, as one with both.
    assert_eq!(Arm6MjcfFriction::FRICTION, [0.7, 0.0, 0.25, 0.0, 0.0, 0.05]);
    assert_eq!(Arm6MjcfFriction::POSITION_LIMITS, Arm6Mjcf::POSITION_LIMITS);
    assert_eq!(Arm6Mjcf::FRICTION, [0.0; 6]);
}

/// A double pendulum whose elbow an `<equality>` couples to its shoulder, each hinge with a
/// reference value (`tests/robots/coupled.xml`): read with the coupling, and with it left out when
/// asked.
#[derive(Mechanics)]
#[mechanics(mjcf = "tests/robots/coupled.xml", gravity = [0, 0, -g])]
pub struct Coupled {
    pub g: f64,
}

#[derive(Mechanics)]
#[mechanics(mjcf(path = "tests/robots/coupled.xml", equality = ignore), gravity = [0, 0, -g])]
pub struct CoupledLeftOut {
    pub g: f64,
}

/// The two hinges by hand, free, each angle from the arm hanging as written (the file's less its
/// `ref`).
#[derive(Mechanics)]
#[mechanics(
    joint(name = shoulder, kind = revolute, child = upper, axis = [0, 1, 0],
          mass = 1, centre = [0, 0, -0.25], inertia = diag(0.006, 0.006, 0.0005)),
    joint(name = elbow, kind = revolute, parent = upper, child = lower, origin = [0, 0, -0.5], axis = [0, 1, 0],
          mass = 0.5, centre = [0, 0, -0.2], inertia = diag(0.002, 0.002, 0.0002)),
    gravity = [0, 0, -g],
)]
pub struct TwoHinges {
    pub g: f64,
}

/// The coupled pendulum by its Lagrangian in the one angle th = shoulder − s₀ from the vertical:
/// the lower rod at ψ = th + φ(th), φ = 0.1 + 2 th + 0.5 th² (the coupling's elbow − e₀), its
/// centre at −(0.5 sin th + 0.2 sin ψ, 0.5 cos th + 0.2 cos ψ) in the plane (x, z), the hinges
/// about y.
#[derive(Mechanics)]
#[mechanics(
    coordinates(th),
    lagrangian = (0.006 + 0.0625) / 2 * dot(th).powi(2)
        + 0.5 / 2 * ((0.5 * cos(th) * dot(th) + 0.2 * cos(th + 0.1 + 2 * th + 0.5 * th.powi(2)) * (3 + th) * dot(th)).powi(2)
            + (0.5 * sin(th) * dot(th) + 0.2 * sin(th + 0.1 + 2 * th + 0.5 * th.powi(2)) * (3 + th) * dot(th)).powi(2))
        + 0.002 / 2 * ((3 + th) * dot(th)).powi(2)
        + g * (0.25 * cos(th) + 0.5 * (0.5 * cos(th) + 0.2 * cos(th + 0.1 + 2 * th + 0.5 * th.powi(2)))),
)]
pub struct CoupledByHand {
    pub g: f64,
}

#[test]
fn an_mjcf_files_joint_coupling_is_its_constraint_with_the_joints_refs() {
    // MuJoCo's joint equality: elbow − e₀ = a₀ + a₁ (shoulder − s₀) + a₂ (shoulder − s₀)², the
    // refs s₀ = 0.3, e₀ = −0.2 (tests/robots/coupled.xml).
    assert_eq!(Coupled::CONSTRAINTS, ["elbow_coupling"]);
    let (file, hand) = (Coupled { g: 9.81 }, CoupledByHand { g: 9.81 });
    let mut rng = Rng::new(67);
    for _ in 0..10 {
        let (th, thd) = (rng.uniform(-1.0, 1.0), rng.uniform(-2.0, 2.0));
        let (phi, dphi) = (0.1 + 2.0 * th + 0.5 * th * th, 2.0 + th);
        let x = State::<4>::from([0.3 + th, -0.2 + phi, thd, dphi * thd]);
        assert!(file.position_residuals(0.0, &x)[0].abs() < 1e-15);
        let a = file.accelerations(0.0, &x).unwrap();
        let ah = hand.accelerations(0.0, &State::<2>::from([th, thd])).unwrap()[0];
        assert!((a[0] - ah).abs() < 1e-11 * (1.0 + ah.abs()), "{a} against {ah}");
        // The elbow follows: ë = φ′ θ̈ + φ″ θ̇².
        assert!((a[1] - (dphi * ah + thd * thd)).abs() < 1e-11 * (1.0 + ah.abs()), "{a}");
        let (e, eh) = (file.energy(0.0, &x), hand.energy(0.0, &State::<2>::from([th, thd])));
        assert!((e - eh).abs() < 1e-12 * (1.0 + e.abs()), "{e} against {eh}");
    }
}

#[test]
fn an_mjcf_files_equality_constraints_are_left_out_only_when_asked() {
    // With the coupling left out, the two hinges free, each at its value less its `ref`.
    let (file, hand) = (CoupledLeftOut { g: 9.81 }, TwoHinges { g: 9.81 });
    const { assert!(Coupled::DOF == 2 && CoupledLeftOut::DOF == 2) };
    let mut rng = Rng::new(68);
    for _ in 0..10 {
        let x = rng.vector::<4>(-2.0, 2.0);
        let shifted = State::<4>::from([x[0] - 0.3, x[1] + 0.2, x[2], x[3]]);
        assert_near!(file.accelerations(0.0, &x).unwrap(), hand.accelerations(0.0, &shifted).unwrap(), 1e-12);
    }
}

/// A carriage on a rail carrying a rod on two hinges, each joint with a `ref`, the second coupled
/// to the first (`tests/robots/reference.xml`, angles in degrees): the joints free (the coupling
/// left out), and by hand, each coordinate the file's less its `ref` (each hinge's frame on its
/// axis' point, `pos`, the next joint's origin and the centre from it).
#[derive(Mechanics)]
#[mechanics(mjcf(path = "tests/robots/reference.xml", equality = ignore), gravity = [0, 0, -g])]
pub struct Referenced {
    pub g: f64,
}

#[derive(Mechanics)]
#[mechanics(
    joint(name = rail, kind = prismatic, child = carriage, origin = [0, 0, 0.1], axis = [1, 0, 0],
          mass = 2, inertia = diag(0.01, 0.01, 0.01)),
    joint(name = swing, kind = revolute, parent = carriage, child = rod_swing, origin = [0.1, 0, 0.05],
          rotation = rot_z(pi / 2), axis = [0, 1, 0]),
    joint(name = twist, kind = revolute, parent = rod_swing, child = rod, origin = [0.05, 0, -0.05], axis = [0, 0, 1],
          mass = 1, centre = [-0.03, 0, -0.25], inertia = diag(0.006, 0.0065, 0.0008)),
    gravity = [0, 0, -g],
)]
pub struct ReferencedByHand {
    pub g: f64,
}

/// The same file with the swing held at 0.5 rad (the twist then held where its coupling puts it),
/// and with the rail held at −0.1 and the coupling left out.
#[derive(Mechanics)]
#[mechanics(mjcf(path = "tests/robots/reference.xml", lock = [swing = 0.5]), gravity = [0, 0, -g])]
pub struct SwingHeld {
    pub g: f64,
}

#[derive(Mechanics)]
#[mechanics(mjcf(path = "tests/robots/reference.xml", lock = [rail = -0.1], equality = ignore), gravity = [0, 0, -g])]
pub struct RailHeld {
    pub g: f64,
}

/// The file's refs: rail 0.2, swing 30°, twist −45°.
const REFS: [f64; 3] = [0.2, std::f64::consts::FRAC_PI_6, -std::f64::consts::FRAC_PI_4];

#[test]
fn an_mjcf_joints_ref_is_its_value_at_the_pose_written() {
    let (file, hand) = (Referenced { g: 9.81 }, ReferencedByHand { g: 9.81 });
    // The range as written, in radians: MuJoCo's joint values.
    assert_eq!(Referenced::POSITION_LIMITS[0], [-0.5, 0.8]);
    assert!((Referenced::POSITION_LIMITS[1][0] + 60_f64.to_radians()).abs() < 1e-15);
    assert!((Referenced::POSITION_LIMITS[1][1] - 90_f64.to_radians()).abs() < 1e-15);
    // At q = ref, still, the bodies stand as written: the carriage's centre at z = 0.1, the rod's
    // at 0.1 + (R_z(90°) (0.02, 0, −0.25))_z = −0.15.
    let at_ref = State::<6>::from([REFS[0], REFS[1], REFS[2], 0.0, 0.0, 0.0]);
    let written = 9.81 * (2.0 * 0.1 + 1.0 * (-0.15));
    assert!((file.energy(0.0, &at_ref) - written).abs() < 1e-14, "{}", file.energy(0.0, &at_ref));
    let mut rng = Rng::new(69);
    for _ in 0..10 {
        let x = rng.vector::<6>(-2.0, 2.0);
        let mut shifted = x;
        for (k, r) in REFS.iter().enumerate() {
            shifted[k] -= r;
        }
        assert_near!(file.mass_matrix(0.0, &x), hand.mass_matrix(0.0, &shifted), 1e-12);
        assert_near!(file.accelerations(0.0, &x).unwrap(), hand.accelerations(0.0, &shifted).unwrap(), 1e-12);
        assert!((file.energy(0.0, &x) - hand.energy(0.0, &shifted)).abs() < 1e-12);
    }
}

#[test]
fn an_mjcf_joint_held_is_the_robot_there_with_its_coupled_joint_where_it_follows() {
    assert_eq!(SwingHeld::COORDINATES, ["rail"]);
    assert_eq!(RailHeld::COORDINATES, ["swing", "twist"]);
    let (free, swing, rail) = (Referenced { g: 9.81 }, SwingHeld { g: 9.81 }, RailHeld { g: 9.81 });
    // The twist where the coupling puts it: twist − t₀ = 0.1 − 1.5 d + 0.3 d², d = 0.5 − s₀.
    let d = 0.5 - REFS[1];
    let twist = REFS[2] + 0.1 - 1.5 * d + 0.3 * d * d;
    let mut rng = Rng::new(70);
    for _ in 0..10 {
        let (q, qd, qdd) = (rng.vector::<2>(-2.0, 2.0), rng.vector::<2>(-2.0, 2.0), rng.vector::<2>(-3.0, 3.0));
        // The swing held: the rail alone moves.
        let x = State::<6>::from([q[0], 0.5, twist, qd[0], 0.0, 0.0]);
        let xs = State::<2>::from([q[0], qd[0]]);
        let tau = free.inverse_dynamics(0.0, &x, &Vector::<3>::from([qdd[0], 0.0, 0.0])).unwrap();
        let tau_s = swing.inverse_dynamics(0.0, &xs, &Vector::<1>::from([qdd[0]])).unwrap();
        assert!((tau_s[0] - tau[0]).abs() < 1e-12 * (1.0 + tau[0].abs()), "{tau_s} against {tau}");
        assert!((swing.energy(0.0, &xs) - free.energy(0.0, &x)).abs() < 1e-12);
        // The rail held: the two hinges move.
        let x = State::<6>::from([-0.1, q[0], q[1], 0.0, qd[0], qd[1]]);
        let xr = State::<4>::from([q[0], q[1], qd[0], qd[1]]);
        let tau = free.inverse_dynamics(0.0, &x, &Vector::<3>::from([0.0, qdd[0], qdd[1]])).unwrap();
        let tau_r = rail.inverse_dynamics(0.0, &xr, &qdd).unwrap();
        let (m, mr) = (free.mass_matrix(0.0, &x), rail.mass_matrix(0.0, &xr));
        for r in 0..2 {
            assert!((tau_r[r] - tau[r + 1]).abs() < 1e-12 * (1.0 + tau[r + 1].abs()), "{tau_r} against {tau}");
            for c in 0..2 {
                assert!((mr[(r, c)] - m[(r + 1, c + 1)]).abs() < 1e-12, "{mr} against {m}");
            }
        }
        assert!((rail.energy(0.0, &xr) - free.energy(0.0, &x)).abs() < 1e-12);
    }
}

/// The double pendulum with its bodies placed through `<frame>`s (`tests/robots/framed.xml`: the
/// upper arm's frame lifted 1 and turned 90° about z, the lower arm's two nested frames putting it
/// 0.5 below the upper's origin, unturned), and by hand.
#[derive(Mechanics)]
#[mechanics(mjcf = "tests/robots/framed.xml", gravity = [0, 0, -g])]
pub struct Framed {
    pub g: f64,
}

#[derive(Mechanics)]
#[mechanics(
    joint(name = shoulder, kind = revolute, child = upper, origin = [0, 0, 1], rotation = rot_z(pi / 2), axis = [0, 1, 0],
          mass = 1, centre = [0, 0, -0.25], inertia = diag(0.006, 0.006, 0.0005)),
    joint(name = elbow, kind = revolute, parent = upper, child = lower, origin = [0, 0, -0.5], axis = [0, 1, 0],
          mass = 0.5, centre = [0, 0, -0.2], inertia = diag(0.002, 0.002, 0.0002)),
    gravity = [0, 0, -g],
)]
pub struct FramedByHand {
    pub g: f64,
}

#[test]
fn an_mjcf_bodys_frames_place_it() {
    let (file, hand) = (Framed { g: 9.81 }, FramedByHand { g: 9.81 });
    let mut rng = Rng::new(72);
    for _ in 0..10 {
        let x = rng.vector::<4>(-2.0, 2.0);
        assert_near!(file.mass_matrix(0.0, &x), hand.mass_matrix(0.0, &x), 1e-12);
        assert_near!(file.accelerations(0.0, &x).unwrap(), hand.accelerations(0.0, &x).unwrap(), 1e-12);
        assert!((file.energy(0.0, &x) - hand.energy(0.0, &x)).abs() < 1e-12);
    }
}

/// A three-joint arm whose joints take their attributes from default classes
/// (`tests/robots/classes.xml`: the main class, nested classes, a body's `childclass`, a joint's
/// `class`, a joint's own attribute over its class's), and the same with every attribute spelled
/// on its joint (`tests/robots/classes_spelled.xml`; MuJoCo compiles the two to the same joints).
#[derive(Mechanics)]
#[mechanics(mjcf = "tests/robots/classes.xml", gravity = [0, 0, -g])]
pub struct Classes {
    pub g: f64,
}

#[derive(Mechanics)]
#[mechanics(mjcf = "tests/robots/classes_spelled.xml", gravity = [0, 0, -g])]
pub struct ClassesSpelled {
    pub g: f64,
}

#[test]
fn an_mjcf_joint_takes_what_it_does_not_give_from_its_default_class() {
    assert_eq!(Classes::POSITION_LIMITS, ClassesSpelled::POSITION_LIMITS);
    assert_eq!(Classes::POSITION_LIMITS[2], [f64::NEG_INFINITY, f64::INFINITY]);
    let (classes, spelled) = (Classes { g: 9.81 }, ClassesSpelled { g: 9.81 });
    let mut rng = Rng::new(73);
    for _ in 0..10 {
        let x = rng.vector::<6>(-2.0, 2.0);
        assert_eq!(classes.mass_matrix(0.0, &x), spelled.mass_matrix(0.0, &x));
        assert_eq!(classes.field(0.0, &x).unwrap(), spelled.field(0.0, &x).unwrap());
        assert_eq!(classes.energy(0.0, &x), spelled.energy(0.0, &x));
    }
}

/// An arm whose bodies are turned by `xyaxes` and `zaxis` (`tests/robots/axes.xml`), and the same
/// with the quaternions MuJoCo compiles them to (`tests/robots/axes_quat.xml`).
#[derive(Mechanics)]
#[mechanics(mjcf = "tests/robots/axes.xml", gravity = [0, 0, -g])]
pub struct Axes {
    pub g: f64,
}

#[derive(Mechanics)]
#[mechanics(mjcf = "tests/robots/axes_quat.xml", gravity = [0, 0, -g])]
pub struct AxesQuat {
    pub g: f64,
}

#[test]
fn an_mjcf_bodys_xyaxes_and_zaxis_turn_it_as_mujoco_does() {
    let (axes, quat) = (Axes { g: 9.81 }, AxesQuat { g: 9.81 });
    let mut rng = Rng::new(74);
    for _ in 0..10 {
        let x = rng.vector::<6>(-2.0, 2.0);
        assert_near!(axes.mass_matrix(0.0, &x), quat.mass_matrix(0.0, &x), 1e-14);
        assert_near!(axes.accelerations(0.0, &x).unwrap(), quat.accelerations(0.0, &x).unwrap(), 1e-12);
        assert!((axes.energy(0.0, &x) - quat.energy(0.0, &x)).abs() < 1e-13);
    }
}

/// A two-link arm whose bodies take their masses from their geoms (`tests/robots/geoms.xml`: a
/// sphere, a turned box, a capsule and a cylinder along segments, a turned ellipsoid, a cylinder of
/// given mass, a massless visual geom and one in a group left out), and the same with the
/// `<inertial>`s MuJoCo computes from them (`tests/robots/geoms_inertial.xml`).
#[derive(Mechanics)]
#[mechanics(mjcf = "tests/robots/geoms.xml", gravity = [0, 0, -g])]
pub struct Geoms {
    pub g: f64,
}

#[derive(Mechanics)]
#[mechanics(mjcf = "tests/robots/geoms_inertial.xml", gravity = [0, 0, -g])]
pub struct GeomsInertial {
    pub g: f64,
}

/// The same arm with `inertiafromgeom="true"`: a body's `<inertial>` ignored
/// (`tests/robots/geoms_forced.xml`).
#[derive(Mechanics)]
#[mechanics(mjcf = "tests/robots/geoms_forced.xml", gravity = [0, 0, -g])]
pub struct GeomsForced {
    pub g: f64,
}

#[test]
fn an_mjcf_bodys_mass_comes_from_its_geoms_as_mujoco_computes_it() {
    let (geoms, inertial, forced) = (Geoms { g: 9.81 }, GeomsInertial { g: 9.81 }, GeomsForced { g: 9.81 });
    let mut rng = Rng::new(75);
    for _ in 0..10 {
        let x = rng.vector::<4>(-2.0, 2.0);
        assert_eq!(forced.mass_matrix(0.0, &x), geoms.mass_matrix(0.0, &x));
        assert_near!(geoms.mass_matrix(0.0, &x), inertial.mass_matrix(0.0, &x), 1e-14);
        assert_near!(geoms.accelerations(0.0, &x).unwrap(), inertial.accelerations(0.0, &x).unwrap(), 1e-12);
        assert!((geoms.energy(0.0, &x) - inertial.energy(0.0, &x)).abs() < 1e-13);
    }
}

/// A pendulum and a slider, each on a joint with a spring (`stiffness`, `springref`) and a `ref`
/// (`tests/robots/springs.xml`, angles in degrees): on the dense path (two coordinates) and on the
/// recursion, the springs' potentials among the written ones.
#[derive(Mechanics)]
#[mechanics(mjcf = "tests/robots/springs.xml", gravity = [0, 0, -g])]
pub struct Springs {
    pub g: f64,
}

#[derive(Mechanics)]
#[mechanics(mjcf = "tests/robots/springs.xml", gravity = [0, 0, -g], dynamics = recursive)]
pub struct SpringsRecursive {
    pub g: f64,
}

#[test]
fn an_mjcf_joints_spring_pulls_it_to_its_springref() {
    assert_eq!((Springs::DYNAMICS, SpringsRecursive::DYNAMICS), ("dense", "recursive"));
    let (dense, recursive) = (Springs { g: 9.81 }, SpringsRecursive { g: 9.81 });
    let (deg, g) = (std::f64::consts::PI / 180.0, 9.81);
    // The pendulum about its pivot: J = I_yy + m c², hanging at θ = ref; its spring −3 (θ − 10°).
    // The slider: m s̈ = −m g − 40 (s − 0.1) − 0.2 ṡ.
    let (j, c, k, k2) = (0.006 + 0.25_f64.powi(2), 0.25, 3.0, 40.0);
    let mut rng = Rng::new(71);
    for _ in 0..10 {
        let x = rng.vector::<4>(-2.0, 2.0);
        let (th, s, thd, sd) = (x[0], x[1], x[2], x[3]);
        let phi = th - 20.0 * deg;
        let swing = (-g * c * phi.sin() - k * (th - 10.0 * deg)) / j;
        let lift = -g - (k2 * (s - 0.1) + 0.2 * sd) / 0.5;
        // E with the springs' potentials: the bodies at z = 1 − c cos φ and 0.2 + (s − 0.3).
        let e = j / 2.0 * thd * thd
            + 0.25 * sd * sd
            + g * (1.0 - c * phi.cos())
            + 0.5 * g * (0.2 + s - 0.3)
            + k / 2.0 * (th - 10.0 * deg).powi(2)
            + k2 / 2.0 * (s - 0.1).powi(2);
        for (a, energy) in [
            (dense.accelerations(0.0, &x).unwrap(), dense.energy(0.0, &x)),
            (recursive.accelerations(0.0, &x).unwrap(), recursive.energy(0.0, &x)),
        ] {
            assert!((a[0] - swing).abs() < 1e-12 * (1.0 + swing.abs()), "{a} against {swing}");
            assert!((a[1] - lift).abs() < 1e-12 * (1.0 + lift.abs()), "{a} against {lift}");
            assert!((energy - e).abs() < 1e-12 * (1.0 + e.abs()), "{energy} against {e}");
        }
    }
}

/// The MJCF arm with its quarter turns printed short (`tests/robots/arm6_printed.xml`: a quaternion,
/// Euler angles and an axis-angle 1.4·10⁻⁸, 1.7·10⁻¹¹ and 1.7·10⁻⁹ rad from them), as written and
/// rounded (`round_angles = 1e-7`).
#[derive(Mechanics)]
#[mechanics(mjcf(path = "tests/robots/arm6_printed.xml", inputs = u), gravity = [0, 0, -g])]
pub struct Arm6MjcfPrinted {
    pub g: f64,
}

#[derive(Mechanics)]
#[mechanics(mjcf(path = "tests/robots/arm6_printed.xml", inputs = u, round_angles = 1e-7), gravity = [0, 0, -g])]
pub struct Arm6MjcfRounded {
    pub g: f64,
}

#[test]
fn an_mjcf_files_angles_printed_short_are_rounded_when_asked() {
    let (exact, printed, rounded) = (Arm6Mjcf { g: 9.81 }, Arm6MjcfPrinted { g: 9.81 }, Arm6MjcfRounded { g: 9.81 });
    let mut rng = Rng::new(37);
    let mut largest = 0.0_f64;
    for _ in 0..20 {
        let x = rng.vector::<12>(-2.0, 2.0);
        let u = [(); 6].map(|_| rng.uniform(-5.0, 5.0));
        let (e, p, r) = (exact.driven(u), printed.driven(u), rounded.driven(u));
        let fe = e.field(0.0, &x).unwrap();
        // Rounded: the file with its quarter turns in full, to round-off.
        assert_near!(r.field(0.0, &x).unwrap(), fe, 1e-12);
        assert_near!(r.mass_matrix(0.0, &x), e.mass_matrix(0.0, &x), 1e-12);
        // As written: a different model by the turns' 1.4e-8 rad at most.
        let relative = (p.field(0.0, &x).unwrap() - fe).amax() / fe.amax();
        assert!(relative < 1e-6, "{relative}");
        largest = largest.max(relative);
    }
    assert!(largest > 1e-11, "the turns as written are no quarter turns: {largest}");
}

/// A spherical pendulum on a ball joint whose centre is 0.2 above the link's origin (MJCF's joint
/// `pos`), from its MJCF file.
#[derive(Mechanics)]
#[mechanics(mjcf = "tests/robots/ball.xml", gravity = [0, 0, -g])]
pub struct BallPendulum {
    pub g: f64,
}

/// The same by hand: the bob turns about the ball's centre c = (0, 0, 1.2).
#[derive(Mechanics)]
#[mechanics(
    orientation(hang_q),
    point(c = [0, 0, 1.2]),
    body(name = bob, mass = 2, centre = c + hang_q * [0.1, 0, -0.7], frame = hang_q, inertia = diag(0.02, 0.03, 0.01)),
    gravity = [0, 0, -g],
)]
pub struct BallPendulumByHand {
    pub g: f64,
}

#[test]
fn a_ball_joint_turns_its_link_about_its_centre() {
    let (file, hand) = (BallPendulum { g: 9.81 }, BallPendulumByHand { g: 9.81 });
    assert_eq!(BallPendulum::STATE_NAMES, BallPendulumByHand::STATE_NAMES);
    let mut rng = Rng::new(31);
    for _ in 0..10 {
        let q = [(); 4].map(|_| rng.uniform(-1.0, 1.0));
        let v = [(); 3].map(|_| rng.uniform(-2.0, 2.0));
        let (x, xh) = (file.state(q, v), hand.state(q, v));
        assert_near!(file.field(0.0, &x).unwrap(), hand.field(0.0, &xh).unwrap(), 1e-12);
        assert!((file.energy(0.0, &x) - hand.energy(0.0, &xh)).abs() < 1e-12);
    }
}

/// A three-joint arm with geared motors from its MJCF file (`tests/robots/rotors.xml`: each
/// joint's `armature`, a rotor's inertia reflected onto it), on the spatial recursion.
#[derive(Mechanics)]
#[mechanics(mjcf = "tests/robots/rotors.xml", gravity = [0, 0, -9.81], jacobian, dynamics = recursive)]
pub struct RotorArm;

/// The same arm from `joint(...)` items with `armature = a`, on the dense path (Euler–Lagrange
/// on L = T + Σ ½ a_j q̇_j² − V).
#[derive(Mechanics)]
#[mechanics(
    joint(name = q1, kind = revolute, child = upper, origin = [0, 0, 1], axis = [0, 0, 1], damping = 0.1, armature = 0.05,
          mass = 2, centre = [0.2, 0, 0], inertia = diag(0.01, 0.03, 0.03)),
    joint(name = q2, kind = revolute, parent = upper, child = fore, origin = [0.4, 0, 0], axis = [0, 1, 0], armature = 0.02,
          mass = 1, centre = [0.15, 0, 0], inertia = [[0.004, 0.0002, 0], [0.0002, 0.01, 0], [0, 0, 0.01]]),
    joint(name = q3, kind = prismatic, parent = fore, child = hand, origin = [0.3, 0, 0], axis = [1, 0, 0], armature = 0.3,
          mass = 0.5, centre = [0.05, 0, 0], inertia = diag(0.001, 0.001, 0.001)),
    gravity = [0, 0, -9.81],
    jacobian,
    dynamics = dense,
)]
pub struct RotorArmDense;

#[test]
fn a_joints_armature_is_its_rotors_inertia_on_the_recursion_and_the_dense_path() {
    assert_eq!(RotorArm::DYNAMICS, "recursive");
    let mut rng = Rng::new(59);
    for _ in 0..10 {
        let x = rng.vector::<6>(-2.0, 2.0);
        let (a, b) = (RotorArm.accelerations(0.0, &x).unwrap(), RotorArmDense.accelerations(0.0, &x).unwrap());
        assert!((a - b).amax() < 1e-12 * (1.0 + b.amax()), "{a} against {b}");
        let m = RotorArm.mass_matrix(0.0, &x);
        assert_near!(m, RotorArmDense.mass_matrix(0.0, &x), 1e-12);
        // The slide at the end moves the hand alone: M₃₃ = m_hand + a₃ = 0.5 + 0.3.
        assert!((m[(2, 2)] - 0.8).abs() < 1e-14, "{}", m[(2, 2)]);
        assert_near!(RotorArm.momenta(0.0, &x), RotorArmDense.momenta(0.0, &x), 1e-12);
        assert_near!(RotorArm.jacobian(0.0, &x).unwrap(), RotorArmDense.jacobian(0.0, &x).unwrap(), 1e-11);
        let (e, ed) = (RotorArm.energy(0.0, &x), RotorArmDense.energy(0.0, &x));
        assert!((e - ed).abs() < 1e-12 * (1.0 + ed.abs()), "{e} against {ed}");
    }
}

/// A chain of twenty links turning about z, y and x in turn, each joint with an armature and the
/// last driven: from 20 joints its mass operator is M factored along the links (the runtime's
/// `LinkFactor`, with the armatures in its pivots and diagonal).
#[derive(Mechanics)]
#[mechanics(
    joint(name = q1, kind = revolute, child = l1, origin = [0, 0, 0], axis = [0, 0, 1], armature = 0.01,
          mass = 0.2, centre = [0, 0, -0.05], inertia = diag(0.0002, 0.0002, 0.00005)),
    joint(name = q2, kind = revolute, parent = l1, child = l2, origin = [0, 0, -0.1], axis = [0, 1, 0], armature = 0.01,
          mass = 0.2, centre = [0, 0, -0.05], inertia = diag(0.0002, 0.0002, 0.00005)),
    joint(name = q3, kind = revolute, parent = l2, child = l3, origin = [0, 0, -0.1], axis = [1, 0, 0], armature = 0.01,
          mass = 0.2, centre = [0, 0, -0.05], inertia = diag(0.0002, 0.0002, 0.00005)),
    joint(name = q4, kind = revolute, parent = l3, child = l4, origin = [0, 0, -0.1], axis = [0, 0, 1], armature = 0.01,
          mass = 0.2, centre = [0, 0, -0.05], inertia = diag(0.0002, 0.0002, 0.00005)),
    joint(name = q5, kind = revolute, parent = l4, child = l5, origin = [0, 0, -0.1], axis = [0, 1, 0], armature = 0.01,
          mass = 0.2, centre = [0, 0, -0.05], inertia = diag(0.0002, 0.0002, 0.00005)),
    joint(name = q6, kind = revolute, parent = l5, child = l6, origin = [0, 0, -0.1], axis = [1, 0, 0], armature = 0.01,
          mass = 0.2, centre = [0, 0, -0.05], inertia = diag(0.0002, 0.0002, 0.00005)),
    joint(name = q7, kind = revolute, parent = l6, child = l7, origin = [0, 0, -0.1], axis = [0, 0, 1], armature = 0.01,
          mass = 0.2, centre = [0, 0, -0.05], inertia = diag(0.0002, 0.0002, 0.00005)),
    joint(name = q8, kind = revolute, parent = l7, child = l8, origin = [0, 0, -0.1], axis = [0, 1, 0], armature = 0.01,
          mass = 0.2, centre = [0, 0, -0.05], inertia = diag(0.0002, 0.0002, 0.00005)),
    joint(name = q9, kind = revolute, parent = l8, child = l9, origin = [0, 0, -0.1], axis = [1, 0, 0], armature = 0.01,
          mass = 0.2, centre = [0, 0, -0.05], inertia = diag(0.0002, 0.0002, 0.00005)),
    joint(name = q10, kind = revolute, parent = l9, child = l10, origin = [0, 0, -0.1], axis = [0, 0, 1], armature = 0.01,
          mass = 0.2, centre = [0, 0, -0.05], inertia = diag(0.0002, 0.0002, 0.00005)),
    joint(name = q11, kind = revolute, parent = l10, child = l11, origin = [0, 0, -0.1], axis = [0, 1, 0], armature = 0.01,
          mass = 0.2, centre = [0, 0, -0.05], inertia = diag(0.0002, 0.0002, 0.00005)),
    joint(name = q12, kind = revolute, parent = l11, child = l12, origin = [0, 0, -0.1], axis = [1, 0, 0], armature = 0.01,
          mass = 0.2, centre = [0, 0, -0.05], inertia = diag(0.0002, 0.0002, 0.00005)),
    joint(name = q13, kind = revolute, parent = l12, child = l13, origin = [0, 0, -0.1], axis = [0, 0, 1], armature = 0.01,
          mass = 0.2, centre = [0, 0, -0.05], inertia = diag(0.0002, 0.0002, 0.00005)),
    joint(name = q14, kind = revolute, parent = l13, child = l14, origin = [0, 0, -0.1], axis = [0, 1, 0], armature = 0.01,
          mass = 0.2, centre = [0, 0, -0.05], inertia = diag(0.0002, 0.0002, 0.00005)),
    joint(name = q15, kind = revolute, parent = l14, child = l15, origin = [0, 0, -0.1], axis = [1, 0, 0], armature = 0.01,
          mass = 0.2, centre = [0, 0, -0.05], inertia = diag(0.0002, 0.0002, 0.00005)),
    joint(name = q16, kind = revolute, parent = l15, child = l16, origin = [0, 0, -0.1], axis = [0, 0, 1], armature = 0.01,
          mass = 0.2, centre = [0, 0, -0.05], inertia = diag(0.0002, 0.0002, 0.00005)),
    joint(name = q17, kind = revolute, parent = l16, child = l17, origin = [0, 0, -0.1], axis = [0, 1, 0], armature = 0.01,
          mass = 0.2, centre = [0, 0, -0.05], inertia = diag(0.0002, 0.0002, 0.00005)),
    joint(name = q18, kind = revolute, parent = l17, child = l18, origin = [0, 0, -0.1], axis = [1, 0, 0], armature = 0.01,
          mass = 0.2, centre = [0, 0, -0.05], inertia = diag(0.0002, 0.0002, 0.00005)),
    joint(name = q19, kind = revolute, parent = l18, child = l19, origin = [0, 0, -0.1], axis = [0, 0, 1], armature = 0.01,
          mass = 0.2, centre = [0, 0, -0.05], inertia = diag(0.0002, 0.0002, 0.00005)),
    joint(name = q20, kind = revolute, parent = l19, child = l20, origin = [0, 0, -0.1], axis = [0, 1, 0], armature = 0.01, input = u,
          mass = 0.2, centre = [0, 0, -0.05], inertia = diag(0.0002, 0.0002, 0.00005)),
    gravity = [0, 0, -9.81],
)]
pub struct RotorChain;

#[test]
fn a_long_chain_with_armatures_solves_with_m_factored_along_its_links() {
    assert_eq!(RotorChainDriven::DYNAMICS, "recursive");
    let mut rng = Rng::new(61);
    for _ in 0..5 {
        let x = rng.vector::<40>(-1.0, 1.0);
        let driven = RotorChain.driven([0.3]);
        // B's velocity rows are M⁻¹ e₂₀, solved with the factor; M (the runtime's composite rigid
        // bodies past the generated CRBA's size), inverted.
        let b = RotorChain.linearize(0.0, &x, [0.3]).unwrap().b;
        let m = driven.mass_matrix(0.0, &x);
        let column = m.try_inverse().unwrap().column(19).into_owned();
        let solved = b.fixed_view::<20, 1>(20, 0).into_owned();
        let gap = (solved - column).amax();
        assert!(gap < 1e-10 * column.amax(), "{gap:e} against {column}");
        // Each armature on M's diagonal: the last joint's entry is its link's inertia about its axis plus a.
        assert!((m[(19, 19)] - (0.0002 + 0.2 * 0.05 * 0.05 + 0.01)).abs() < 1e-14, "{}", m[(19, 19)]);
        // Inverse dynamics (one Newton–Euler pass, as loops over the chain's kinds of joint) against
        // that M; at the field's accelerations (input 0.3 on the first joint) τ is the input's
        // column.
        let qdd = rng.vector::<20>(-2.0, 2.0);
        let tau = driven.inverse_dynamics(0.0, &x, &qdd).unwrap();
        let dense = m * qdd - driven.forcing(0.0, &x);
        assert!((tau - dense).amax() < 1e-10 * dense.amax(), "{tau} against {dense}");
        let own = driven.inverse_dynamics(0.0, &x, &driven.accelerations(0.0, &x).unwrap()).unwrap();
        assert!(own.amax() < 1e-10, "{own}");
    }
}

/// Fourteen joints, a hinge about x behind an offset and a slider along z in turn, each damped and
/// driven by an input of its own: long and repetitive enough for the loop form of the recursion
/// and of the inverse dynamics (root, six blocks of two joints, leaf;
/// `derive::dynamics::spatial::looped`), whose kernels read each block's inputs at its offset.
#[derive(Mechanics)]
#[mechanics(
    joint(name = q1, kind = revolute, origin = [0.1, 0, -0.2], axis = [1, 0, 0], armature = 0.01, child = l1, damping = 0.05, input = u1,
          mass = 0.7, centre = [0, 0, -0.1], inertia = diag(0.002, 0.003, 0.001)),
    joint(name = q2, kind = prismatic, origin = [0, 0.05, 0], axis = [0, 0, 1], parent = l1, child = l2, damping = 0.05, input = u2,
          mass = 0.7, centre = [0, 0, -0.1], inertia = diag(0.002, 0.003, 0.001)),
    joint(name = q3, kind = revolute, origin = [0.1, 0, -0.2], axis = [1, 0, 0], armature = 0.01, parent = l2, child = l3, damping = 0.05, input = u3,
          mass = 0.7, centre = [0, 0, -0.1], inertia = diag(0.002, 0.003, 0.001)),
    joint(name = q4, kind = prismatic, origin = [0, 0.05, 0], axis = [0, 0, 1], parent = l3, child = l4, damping = 0.05, input = u4,
          mass = 0.7, centre = [0, 0, -0.1], inertia = diag(0.002, 0.003, 0.001)),
    joint(name = q5, kind = revolute, origin = [0.1, 0, -0.2], axis = [1, 0, 0], armature = 0.01, parent = l4, child = l5, damping = 0.05, input = u5,
          mass = 0.7, centre = [0, 0, -0.1], inertia = diag(0.002, 0.003, 0.001)),
    joint(name = q6, kind = prismatic, origin = [0, 0.05, 0], axis = [0, 0, 1], parent = l5, child = l6, damping = 0.05, input = u6,
          mass = 0.7, centre = [0, 0, -0.1], inertia = diag(0.002, 0.003, 0.001)),
    joint(name = q7, kind = revolute, origin = [0.1, 0, -0.2], axis = [1, 0, 0], armature = 0.01, parent = l6, child = l7, damping = 0.05, input = u7,
          mass = 0.7, centre = [0, 0, -0.1], inertia = diag(0.002, 0.003, 0.001)),
    joint(name = q8, kind = prismatic, origin = [0, 0.05, 0], axis = [0, 0, 1], parent = l7, child = l8, damping = 0.05, input = u8,
          mass = 0.7, centre = [0, 0, -0.1], inertia = diag(0.002, 0.003, 0.001)),
    joint(name = q9, kind = revolute, origin = [0.1, 0, -0.2], axis = [1, 0, 0], armature = 0.01, parent = l8, child = l9, damping = 0.05, input = u9,
          mass = 0.7, centre = [0, 0, -0.1], inertia = diag(0.002, 0.003, 0.001)),
    joint(name = q10, kind = prismatic, origin = [0, 0.05, 0], axis = [0, 0, 1], parent = l9, child = l10, damping = 0.05, input = u10,
          mass = 0.7, centre = [0, 0, -0.1], inertia = diag(0.002, 0.003, 0.001)),
    joint(name = q11, kind = revolute, origin = [0.1, 0, -0.2], axis = [1, 0, 0], armature = 0.01, parent = l10, child = l11, damping = 0.05, input = u11,
          mass = 0.7, centre = [0, 0, -0.1], inertia = diag(0.002, 0.003, 0.001)),
    joint(name = q12, kind = prismatic, origin = [0, 0.05, 0], axis = [0, 0, 1], parent = l11, child = l12, damping = 0.05, input = u12,
          mass = 0.7, centre = [0, 0, -0.1], inertia = diag(0.002, 0.003, 0.001)),
    joint(name = q13, kind = revolute, origin = [0.1, 0, -0.2], axis = [1, 0, 0], armature = 0.01, parent = l12, child = l13, damping = 0.05, input = u13,
          mass = 0.7, centre = [0, 0, -0.1], inertia = diag(0.002, 0.003, 0.001)),
    joint(name = q14, kind = prismatic, origin = [0, 0.05, 0], axis = [0, 0, 1], parent = l13, child = l14, damping = 0.05, input = u14,
          mass = 0.7, centre = [0, 0, -0.1], inertia = diag(0.002, 0.003, 0.001)),
    gravity = [0, -9.81, 0],
)]
pub struct SliderChain;

#[test]
fn a_driven_chain_in_loops_is_its_inverse_dynamics() {
    assert_eq!(SliderChainDriven::DYNAMICS, "recursive");
    let mut rng = Rng::new(67);
    for _ in 0..5 {
        let x = rng.vector::<28>(-1.0, 1.0);
        let u: [f64; 14] = std::array::from_fn(|_| rng.uniform(-2.0, 2.0));
        let driven = SliderChain.driven(u);
        // q̈ by the recursion's loops, against the inverse dynamics' (a Newton–Euler pass, in loops
        // too): τ(q, q̇, q̈) less every force (the inputs among them) vanishes; each input's share
        // is its own joint's (u_k on coordinate k, read at the block's offset), and M (the
        // composite rigid bodies, straight-line) inverted gives an input's column.
        let qdd = driven.accelerations(0.0, &x).unwrap();
        let own = driven.inverse_dynamics(0.0, &x, &qdd).unwrap();
        assert!(own.amax() < 1e-10 * (1.0 + qdd.amax()), "{own}");
        let mut nudged = u;
        nudged[7] += 1.0;
        let moved = SliderChain.driven(nudged).accelerations(0.0, &x).unwrap() - qdd;
        let m = driven.mass_matrix(0.0, &x);
        let column = m.try_inverse().unwrap().column(7).into_owned();
        assert!((moved - column).amax() < 1e-9 * column.amax(), "{moved} against {column}");
    }
}

/// Two rods hanging from one pivot on their own hinges about y, their frames welded together by a
/// closure of rotations alone (`rotations = [y]`, `axes = []`: the pivots coincide already).
#[derive(Mechanics)]
#[mechanics(
    joint(name = q1, kind = revolute, child = a, axis = [0, 1, 0],
          mass = 1, centre = [0, 0, -0.3], inertia = diag(0.03, 0.03, 0.001)),
    joint(name = q2, kind = revolute, child = b, axis = [0, 1, 0],
          mass = 0.5, centre = [0.1, 0, -0.2], inertia = diag(0.01, 0.02, 0.01)),
    closure(name = weld, a = a, b = b, axes = [], rotations = [y]),
    gravity = [0, 0, -9.81],
)]
pub struct Welded;

#[test]
fn a_closure_of_rotations_welds_two_links_into_one_compound_pendulum() {
    assert_eq!(Welded::CONSTRAINTS, ["weld_ry"]);
    // One compound pendulum: I = 0.03 + 1 · 0.3² + 0.02 + 0.5 · (0.1² + 0.2²) = 0.165 about the
    // pivot, θ̈ = g (Σ m c_x cos θ + Σ m c_z sin θ) / I with Σ m c_x = 0.05, Σ m c_z = −0.4.
    let closed = |theta: f64| 9.81 * (0.05 * theta.cos() - 0.4 * theta.sin()) / 0.165;
    for (theta, rate) in [(0.3, 0.0), (-1.1, 0.7), (2.0, -1.5)] {
        let x = Welded.state([theta, theta], [rate, rate]);
        assert!(Welded.position_residuals(0.0, &x).amax() < 1e-15);
        let qdd = Welded.accelerations(0.0, &x).unwrap();
        assert!(
            (qdd[0] - closed(theta)).abs() < 1e-12 && (qdd[1] - closed(theta)).abs() < 1e-12,
            "{qdd} against {}",
            closed(theta)
        );
    }
    // Off the closure by 0.2 rad the row is sin(q₂ − q₁).
    let x = Welded.state([0.1, 0.3], [0.0, 0.0]);
    assert!((Welded.position_residuals(0.0, &x)[0] - 0.2f64.sin()).abs() < 1e-15);
}
