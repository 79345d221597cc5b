//! The spatial articulated-body recursion (`derive::dynamics::spatial`): rigid bodies and particles
//! turning in space on a tree of joints — an arm in relative angles on a cart, a top in Euler
//! angles (joints without a body of their own) — against the same models on the dense route
//! q̈ = M⁻¹ f (two independent routes: the recursion never forms M; the dense route differentiates
//! the Lagrangian), their field Jacobians against each other and central differences, and a run's
//! energy; and a chain of twenty links against the articulated-body algorithm written out by hand
//! in the links' axes (a third route, with its own rotation matrices and parallel-axis inertias).

#[macro_use]
mod common;

use common::{Rng, jacobian_fd};
use routh::prelude::*;

/// A three-link arm on a cart (with the items and extra parameters of each test): the cart slides along x on a spring (a particle), the first link
/// turns about the vertical, the second about its y axis at the end of the first, the third about
/// its x axis at the end of the second — relative angles, offsets off the joint axes, a body turned
/// by a constant rotation on its link, products of inertia, a damper on the second joint, gravity;
/// a motor on the first link and a tool on the third beside their links' own bodies (masses off
/// the links' origins, whose bias forces v × f do not vanish), and a pedestal that does not move
/// (its gravitational term a constant of L and E on both routes).
macro_rules! arm {
    ($name:ident, $dynamics:ident, [$($items:tt)*], [$($field:ident),*]) => {
        #[derive(Mechanics)]
        #[mechanics(
            coordinates(x, q1, q2, q3),
            frame(b1 = rot_z(q1), b2 = b1 * rot_y(q2), b3 = b2 * rot_x(q3)),
            point(base = [x, 0, 0], elbow = base + b1 * [0.1, 0, l], wrist = elbow + b2 * [0, 0.05, l]),
            particle(name = cart, mass = mc, at = base),
            body(name = upper, mass = m, centre = base + b1 * [0.05, 0, l / 2], frame = b1,
                 inertia = [[ia, ip, 0], [ip, ib, 0], [0, 0, ic]]),
            body(name = fore, mass = m, centre = elbow + b2 * [0, 0, l / 2], frame = b2 * rot_z(0.3),
                 inertia = diag(ia, ia, ic)),
            body(name = hand, mass = m / 2, centre = wrist + b3 * [0, 0.1, l / 3], frame = b3,
                 inertia = [[ia, 0, ip], [0, ib, 0], [ip, 0, ic]]),
            particle(name = tool, mass = m / 4, at = wrist + b3 * [0.2, 0, 0.1]),
            body(name = motor, mass = m, centre = elbow + b1 * [0, 0.1, 0], frame = b1 * rot_x(0.5),
                 inertia = diag(ic, ib, ia)),
            body(name = pedestal, mass = mc, centre = [0, 0, -0.3], frame = rot_x(0.1), inertia = diag(ia, ia, ic)),
            gravity = [0, 0, -g],
            lagrangian = -k / 2 * x.powi(2),
            $($items)*
            dynamics = $dynamics,
        )]
        pub struct $name {
            pub mc: f64,
            pub m: f64,
            pub l: f64,
            pub ia: f64,
            pub ib: f64,
            pub ic: f64,
            pub ip: f64,
            pub g: f64,
            pub k: f64,
            pub c: f64,
            $(pub $field: f64,)*
        }
    };
}

twins_of!(arm, Arm, ArmDense, [force(q2 = -c * dot(q2)), jacobian,], []);

fn arms() -> (Arm, ArmDense) {
    let (mc, m, l, ia, ib, ic, ip, g, k, c) = (2.0, 0.7, 0.5, 0.03, 0.04, 0.02, 0.004, 9.81, 3.0, 0.1);
    (Arm { mc, m, l, ia, ib, ic, ip, g, k, c }, ArmDense { mc, m, l, ia, ib, ic, ip, g, k, c })
}

#[test]
fn an_arm_in_relative_angles_takes_the_spatial_recursion() {
    assert_eq!((Arm::DYNAMICS, ArmDense::DYNAMICS), ("recursive", "dense"));
    let (r, d) = arms();
    let mut rng = Rng::new(71);
    for _ in 0..20 {
        let x: SVector<f64, 8> = rng.vector(-2.0, 2.0);
        assert_near!(r.accelerations(0.0, &x).unwrap(), d.accelerations(0.0, &x).unwrap(), 1e-12);
        // The same M, f, L, E and p: along the links (Newton–Euler passes; M by the composite rigid
        // bodies) against the expanded ∂²L/∂q̇², f, L, E and ∂L/∂q̇.
        assert_near!(r.mass_matrix(0.0, &x), d.mass_matrix(0.0, &x), 1e-12);
        assert_near!(r.forcing(0.0, &x), d.forcing(0.0, &x), 1e-12);
        assert_near!(r.momenta(0.0, &x), d.momenta(0.0, &x), 1e-12);
        for (a, b) in [(r.energy(0.0, &x), d.energy(0.0, &x)), (r.lagrangian(0.0, &x), d.lagrangian(0.0, &x))] {
            assert!((a - b).abs() < 1e-12 * (1.0 + b.abs()), "{a} against {b}");
        }
        // The field Jacobian: the runtime's analytic derivatives along the links (every joint a
        // screw) against the dense derivatives and central differences.
        let jr = r.jacobian(0.0, &x).unwrap();
        assert_near!(jr, d.jacobian(0.0, &x).unwrap(), 1e-10);
        assert_near!(jr, jacobian_fd(&r, 0.0, &x, 1e-6).unwrap(), 1e-6);
    }
}

#[test]
fn the_arms_inverse_dynamics_along_the_links_is_the_dense_one_and_inverts_the_field() {
    // τ = M q̈ − f: M q̈ along the links (the factor's product, M never formed) against M's
    // expanded entries; τ at the field's own accelerations vanishes, and τ is the input that
    // produces q̈ (M q̈ = f + τ solved back); the static and velocity parts add up.
    let (r, d) = arms();
    let mut rng = Rng::new(72);
    for _ in 0..20 {
        let x: SVector<f64, 8> = rng.vector(-2.0, 2.0);
        let qdd: SVector<f64, 4> = rng.vector(-3.0, 3.0);
        let (tr, td) = (r.inverse_dynamics(0.0, &x, &qdd).unwrap(), d.inverse_dynamics(0.0, &x, &qdd).unwrap());
        assert_near!(tr, td, 1e-11);
        assert_near!(r.inverse_dynamics(0.0, &x, &r.accelerations(0.0, &x).unwrap()).unwrap(), SVector::<f64, 4>::zeros(), 1e-11);
        let back = d.mass_matrix(0.0, &x).lu().solve(&(d.forcing(0.0, &x) + tr)).unwrap();
        assert_near!(back, qdd, 1e-10);
        let parts = d.mass_matrix(0.0, &x) * qdd + r.static_forces(0.0, &x) + r.velocity_forces(0.0, &x);
        assert_near!(parts, tr, 1e-11);
        assert_near!(r.static_forces(0.0, &x), d.static_forces(0.0, &x), 1e-12);
        assert_near!(r.velocity_forces(0.0, &x), d.velocity_forces(0.0, &x), 1e-12);
    }
}

/// ∂τ/∂q and ∂τ/∂q̇ of the inverse dynamics at accelerations that are not the field's: along the
/// links (the runtime's analytic ∂K/∂x less the damper's ∂τ/∂q̇) against the dense twin's (the
/// residual's symbolic derivatives) and central differences of `inverse_dynamics`; at the field's
/// own accelerations, −M⁻¹ ∂τ/∂x is the field's Jacobian.
#[test]
fn the_arms_inverse_dynamics_jacobian_is_the_dense_one_and_its_differences() {
    let (r, d) = arms();
    let mut rng = Rng::new(73);
    for _ in 0..10 {
        let x: SVector<f64, 8> = rng.vector(-2.0, 2.0);
        let qdd: SVector<f64, 4> = rng.vector(-3.0, 3.0);
        check_inverse_dynamics_jacobian!(r, d, x, qdd, 4, field);
    }
}

#[test]
fn the_arms_energy_changes_only_by_its_damper() {
    // Without the damper, E is conserved along a run of the recursive model.
    let (r, _) = arms();
    let r = Arm { c: 0.0, ..r };
    let x0 = r.state([0.1, 0.3, 0.8, -0.5], [0.0, 1.0, -0.5, 2.0]);
    let opts = Options::default().rtol(1e-11).atol(1e-12);
    let run = r.run(x0).span(0.0..3.0).options(&opts).go().unwrap();
    let e0 = r.energy(0.0, &x0);
    let worst = run.states.iter().map(|x| (r.energy(0.0, x) - e0).abs()).fold(0.0, f64::max);
    assert!(worst < 1e-8 * (1.0 + e0.abs()), "energy drift {worst}");
}

/// A heavy symmetric top in z-x-z Euler angles, its tip on a pivot: one body, moved by all three
/// coordinates — the recursion reads the precession and nutation joints' links off the body with
/// the joints below them at zero.
macro_rules! top {
    ($name:ident, $dynamics:ident, [$($items:tt)*], [$($field:ident),*]) => {
        #[derive(Mechanics)]
        #[mechanics(
            coordinates(phi, theta, psi),
            frame(b = rot_z(phi) * rot_x(theta) * rot_z(psi)),
            body(name = top, mass = m, centre = b * [0, 0, l], frame = b, inertia = diag(a, a, c)),
            gravity = [0, 0, -g],
            $($items)*
            dynamics = $dynamics,
        )]
        pub struct $name {
            pub m: f64,
            pub l: f64,
            pub a: f64,
            pub c: f64,
            pub g: f64,
            $(pub $field: f64,)*
        }
    };
}

twins_of!(top, Top, TopDense, [jacobian,], []);

#[test]
fn a_top_in_euler_angles_takes_the_spatial_recursion() {
    assert_eq!(Top::DYNAMICS, "recursive");
    let (r, d) = (Top { m: 1.0, l: 0.3, a: 0.05, c: 0.02, g: 9.81 }, TopDense { m: 1.0, l: 0.3, a: 0.05, c: 0.02, g: 9.81 });
    let mut rng = Rng::new(5);
    for _ in 0..20 {
        // θ away from 0 and π, where Euler angles are singular.
        let q = [rng.uniform(-3.0, 3.0), rng.uniform(0.3, 2.8), rng.uniform(-3.0, 3.0)];
        let x = r.state(q, rng.vector::<3>(-3.0, 3.0).into());
        assert_near!(r.accelerations(0.0, &x).unwrap(), d.accelerations(0.0, &x).unwrap(), 1e-12);
        assert_near!(r.jacobian(0.0, &x).unwrap(), d.jacobian(0.0, &x).unwrap(), 1e-10);
    }
    // At θ = 0 the Euler angles are singular: a typed error, not a NaN.
    let x = r.state([0.0, 0.0, 0.0], [1.0, 0.0, 1.0]);
    assert!(r.accelerations(0.0, &x).is_err());
}

// Joint torques as inputs and sensitivities to gravity, the links' mass and length (parameters of
// the links: ∂K/∂p by forward mode through the Newton–Euler pass) and the spring (of the forces):
// the arm on its links derives nothing dense, and its linearisation, input and parameter Jacobians
// are its dense twin's.
twins_of!(arm, DrivenArm, DrivenArmDense, [input(u1, u2), force(q1 = u1, q2 = u2 - c * dot(q2)), sensitivity(g, m, l, k),], []);

#[test]
fn inputs_and_sensitivities_of_an_arm_along_its_links() {
    let (mc, m, l, ia, ib, ic, ip, g, k, c) = (2.0, 0.7, 0.5, 0.03, 0.04, 0.02, 0.004, 9.81, 3.0, 0.1);
    let r = DrivenArm { mc, m, l, ia, ib, ic, ip, g, k, c };
    let d = DrivenArmDense { mc, m, l, ia, ib, ic, ip, g, k, c };
    assert_eq!((DrivenArmDriven::DYNAMICS, DrivenArmDenseDriven::DYNAMICS), ("recursive", "dense"));
    let mut rng = Rng::new(17);
    for _ in 0..10 {
        let x: SVector<f64, 8> = rng.vector(-1.5, 1.5);
        let u = [rng.uniform(-2.0, 2.0), rng.uniform(-2.0, 2.0)];
        let (lr, ld) = (r.linearize(0.0, &x, u).unwrap(), d.linearize(0.0, &x, u).unwrap());
        assert_near!(lr.a, ld.a, 1e-10);
        assert_near!(lr.b, ld.b, 1e-12);
        let pr = r.driven(u).parameter_jacobian(0.0, &x).unwrap();
        assert_near!(pr, d.driven(u).parameter_jacobian(0.0, &x).unwrap(), 1e-11);
        // ∂F/∂m (a parameter of the links) against a central difference of the field.
        let h = 1e-6;
        let (up, down) = (DrivenArm { m: m + h, ..r }, DrivenArm { m: m - h, ..r });
        let fd = (up.driven(u).field(0.0, &x).unwrap() - down.driven(u).field(0.0, &x).unwrap()) / (2.0 * h);
        assert_near!(pr.column(1), fd, 1e-7);
    }
}

// A joint limit: the elbow strikes its stop at q2 = 1.2 with restitution e. The reset solves the
// law with M from its products along the links and its Jacobian takes ∂(M (q̇⁺ − q̇⁻))/∂x from the
// product's tangent; ∇E and ∇²E (for periodic orbits) come by reverse and forward mode through E's
// pass along the links. Each matches the dense twin's, and a run the same impacts.
twins_of!(arm, StruckArm, StruckArmDense, [impact(name = stop, guard = 1.2 - q2, law = restitution(e)),], [e]);

#[test]
fn a_joint_limit_of_an_arm_along_its_links() {
    let (mc, m, l, ia, ib, ic, ip, g, k, c, e) = (2.0, 0.7, 0.5, 0.03, 0.04, 0.02, 0.004, 9.81, 3.0, 0.0, 0.7);
    let r = StruckArm { mc, m, l, ia, ib, ic, ip, g, k, c, e };
    let d = StruckArmDense { mc, m, l, ia, ib, ic, ip, g, k, c, e };
    assert_eq!((StruckArm::DYNAMICS, StruckArmDense::DYNAMICS), ("recursive", "dense"));
    let mut rng = Rng::new(19);
    for _ in 0..10 {
        let x: SVector<f64, 8> = rng.vector(-1.5, 1.5);
        let pr = r.stop_reset(0.0, &x).unwrap();
        assert_near!(pr, d.stop_reset(0.0, &x).unwrap(), 1e-12);
        // The elbow's rate reverses, scaled by e (the law's row is dq2 with the kinetic metric).
        assert!((pr[6] + e * x[6]).abs() < 1e-12 * (1.0 + x[6].abs()), "{pr}");
        assert_near!(r.stop_reset_jacobian(0.0, &x).unwrap(), d.stop_reset_jacobian(0.0, &x).unwrap(), 1e-10);
        assert_near!(r.energy_gradient(0.0, &x), d.energy_gradient(0.0, &x), 1e-12);
        assert_near!(r.energy_hessian(0.0, &x), d.energy_hessian(0.0, &x), 1e-10);
    }
    let x0 = r.state([0.0, 0.3, 0.6, -0.4], [0.2, 1.0, 2.5, 0.0]);
    let opts = HybridOptions::default().ode(Options::default().rtol(1e-11).atol(1e-12));
    let (sr, sd) = (r.run(x0).span(0.0..2.0).options(&opts).go().unwrap(), d.run(x0).span(0.0..2.0).options(&opts).go().unwrap());
    common::same_impacts(&sr, &sd, 1);
}

// Modes of a spatial tree: the arm's elbow between two stops, a mode per stop it last struck
// (transitions with restitution e); each mode derives nothing dense, and the run's transitions are
// the dense twin's.
twins_of!(
    arm,
    Elbow,
    ElbowDense,
    [
        mode(low),
        mode(high),
        transition(low -> high, guard = 1.2 - q2, law = restitution(e)),
        transition(high -> low, guard = q2 + 1.2, law = restitution(e)),
    ],
    [e]
);

#[test]
fn modes_of_an_arm_along_its_links() {
    let (mc, m, l, ia, ib, ic, ip, g, k, c, e) = (2.0, 0.7, 0.5, 0.03, 0.04, 0.02, 0.004, 9.81, 3.0, 0.0, 0.8);
    let r = Elbow { mc, m, l, ia, ib, ic, ip, g, k, c, e };
    let d = ElbowDense { mc, m, l, ia, ib, ic, ip, g, k, c, e };
    let x = r.low().state([0.1, 0.3, 0.2, -0.4], [0.3, 0.5, 3.0, 0.2]);
    assert_near!(r.high().energy_hessian(0.0, &x), d.high().energy_hessian(0.0, &x), 1e-10);
    assert_near!(
        r.low().low_to_high_reset_jacobian(0.0, &x).unwrap(),
        d.low().low_to_high_reset_jacobian(0.0, &x).unwrap(),
        1e-10
    );
    assert_near!(
        r.high().high_to_low_reset_jacobian(0.0, &x).unwrap(),
        d.high().high_to_low_reset_jacobian(0.0, &x).unwrap(),
        1e-10
    );
    let opts = HybridOptions::default().ode(Options::default().rtol(1e-11).atol(1e-12));
    let (sr, sd) = (
        r.run(ModeState::new(Elbow::LOW, x)).span(0.0..4.0).options(&opts).go().unwrap(),
        d.run(ModeState::new(ElbowDense::LOW, x)).span(0.0..4.0).options(&opts).go().unwrap(),
    );
    common::same_impacts(&sr, &sd, 1);
}

// A constrained spatial tree: the arm's wrist held at the height h of a table (holonomic) and its
// cart rolling without slipping against the first joint (a velocity row): the saddle point solved
// with M along the links and f along them (nothing dense derived), its Jacobian
// with the kinetic part K = M a + … differentiated along the links — against the dense twin, and a
// run that keeps both constraints.
twins_of!(
    arm,
    TableArm,
    TableArmDense,
    [holonomic(table = wrist[2] - h), constraint(roll = dot(x) - r * dot(q1)), jacobian,],
    [h, r]
);

#[test]
fn a_constrained_arm_along_its_links() {
    let (mc, m, l, ia, ib, ic, ip, g, k, c, h, r) = (2.0, 0.7, 0.5, 0.03, 0.04, 0.02, 0.004, 9.81, 3.0, 0.0, 0.6, 0.2);
    let s = TableArm { mc, m, l, ia, ib, ic, ip, g, k, c, h, r };
    let d = TableArmDense { mc, m, l, ia, ib, ic, ip, g, k, c, h, r };
    assert_eq!((TableArm::DYNAMICS, TableArmDense::DYNAMICS), ("constrained", "constrained"));
    let mut rng = Rng::new(23);
    for _ in 0..10 {
        let x: SVector<f64, 8> = rng.vector(-1.5, 1.5);
        assert_near!(s.accelerations(0.0, &x).unwrap(), d.accelerations(0.0, &x).unwrap(), 1e-11);
        assert_near!(s.constraint_forces(0.0, &x).unwrap(), d.constraint_forces(0.0, &x).unwrap(), 1e-11);
        assert_near!(s.jacobian(0.0, &x).unwrap(), d.jacobian(0.0, &x).unwrap(), 1e-9);
        // τ = M q̈ − f's derivatives at accelerations off the constraints (the saddle point's
        // residual at λ = 0: the links' analytic ∂K/∂x against the dense twin's symbolic rows, and
        // central differences of `inverse_dynamics`).
        let qdd: SVector<f64, 4> = rng.vector(-3.0, 3.0);
        check_inverse_dynamics_jacobian!(s, d, x, qdd, 4);
    }
    let x0 = s.state([0.1, 0.2, 0.9, 0.3], [0.0, 0.5, 0.0, 1.0]);
    let x0 = s.project_state(0.0, &x0).unwrap();
    let opts = Options::default().rtol(1e-10).atol(1e-11).output(Output::Times(vec![0.5, 1.0]));
    let (rs, rd) = (s.run(x0).span(0.0..1.0).options(&opts).go().unwrap(), d.run(x0).span(0.0..1.0).options(&opts).go().unwrap());
    for (p, q) in rs.states.iter().zip(&rd.states) {
        assert!((p - q).amax() < 1e-7, "{:e}", (p - q).amax());
        assert!(s.position_residuals(0.0, p).amax() < 1e-8 && s.velocity_residuals(0.0, p).amax() < 1e-8);
    }
}

// Symmetries along the links: the symmetric top's precession and spin are cyclic, their momenta
// (the vertical and the axial angular momentum) read p from its pass along the links; they equal
// the dense twin's and are conserved along a run.
twins_of!(top, SymmetricTop, SymmetricTopDense, [symmetry(cyclic(phi), cyclic(psi)),], []);

#[test]
fn momentum_maps_of_a_top_along_its_links() {
    let (r, d) = (
        SymmetricTop { m: 1.0, l: 0.3, a: 0.05, c: 0.02, g: 9.81 },
        SymmetricTopDense { m: 1.0, l: 0.3, a: 0.05, c: 0.02, g: 9.81 },
    );
    assert_eq!(SymmetricTop::DYNAMICS, "recursive");
    let mut rng = Rng::new(29);
    for _ in 0..10 {
        let q = [rng.uniform(-3.0, 3.0), rng.uniform(0.3, 2.8), rng.uniform(-3.0, 3.0)];
        let x = r.state(q, rng.vector::<3>(-3.0, 3.0).into());
        for (a, b) in [(r.phi_momentum(0.0, &x), d.phi_momentum(0.0, &x)), (r.psi_momentum(0.0, &x), d.psi_momentum(0.0, &x))] {
            assert!((a - b).abs() < 1e-12 * (1.0 + b.abs()), "{a} against {b}");
        }
    }
    let x0 = r.state([0.0, 0.7, 0.0], [0.4, 0.0, 40.0]);
    let run = r.run(x0).span(0.0..2.0).rtol(1e-11).atol(1e-12).go().unwrap();
    let (j0, k0) = (r.phi_momentum(0.0, &x0), r.psi_momentum(0.0, &x0));
    for x in &run.states {
        assert!((r.phi_momentum(0.0, x) - j0).abs() < 1e-8 && (r.psi_momentum(0.0, x) - k0).abs() < 1e-8);
    }
}

#[allow(dead_code)]
mod held {
    use routh::prelude::*;
    include!("common/held_chain.rs");
}

/// A chain of 20 links turning in space with its tip held in x and y: its saddle point is solved
/// with M factored along the links (the runtime's `LinkFactor`, O(n) per solve; the type says so).
/// Against M by the composite rigid bodies in the ground's axes (the runtime's
/// `LinkDynamics::mass_matrix`, not the factor's algorithm) and f from its own pass: M q̈ = f + Aᵀλ and A q̈ + c = 0; the
/// factor's products, solves and pivots are those of that M; a run keeps the constraint and the
/// energy. The same chain free: its factor (from the joints alone, by the runtime) is its M too,
/// and solves M q̈ = f as the recursion does.
#[test]
fn a_long_held_chain_solves_its_saddle_point_along_its_links() {
    use routh::runtime::MassOperator;
    let chain = held::Held20 { m: 1.0, l: 0.5, i: 0.02, j: 0.01, g: 9.81 };
    assert_eq!(held::Held20::DYNAMICS, "constrained");
    let mut rng = Rng::new(31);
    for _ in 0..5 {
        let x: SVector<f64, 40> = rng.vector(-1.2, 1.2);
        let factor: routh::runtime::mechanics::LinkFactor<20> = routh::runtime::MechanicalSystem::mass(&chain, 0.0, &x).unwrap();
        let (m, f) = (chain.mass_matrix(0.0, &x), chain.forcing(0.0, &x));
        let v: SVector<f64, 20> = rng.vector(-1.0, 1.0);
        assert_near!(factor.apply(&v), m * v, 1e-11);
        assert_near!(factor.solve(m * v).unwrap(), v, 1e-9);
        let det: f64 = factor.pivots().iter().product();
        assert!((det - m.determinant()).abs() < 1e-9 * det.abs(), "{det} against {}", m.determinant());
        let (a, lambda) = (chain.accelerations(0.0, &x).unwrap(), chain.constraint_forces(0.0, &x).unwrap());
        let (rows, _) = chain.constraint_rows(0.0, &x);
        let scale = 1.0 + f.amax() + (m * a).amax();
        assert!((m * a - f - rows.transpose() * lambda).amax() < 1e-10 * scale, "M q̈ = f + Aᵀλ");
        assert!((rows * a + chain.constraint_bias(0.0, &x)).amax() < 1e-10 * scale, "A q̈ + c = 0");
    }
    // The free chain's mass operator: M factored along the links by the runtime from the joints.
    let free = held::Free20 { m: 1.0, l: 0.5, i: 0.02, j: 0.01, g: 9.81 };
    assert_eq!(held::Free20::DYNAMICS, "recursive");
    for _ in 0..3 {
        let x: SVector<f64, 40> = rng.vector(-1.2, 1.2);
        let factor: routh::runtime::mechanics::LinkFactor<20> = routh::runtime::MechanicalSystem::mass(&free, 0.0, &x).unwrap();
        let (m, v) = (free.mass_matrix(0.0, &x), rng.vector::<20>(-1.0, 1.0));
        assert_near!(factor.apply(&v), m * v, 1e-11);
        assert_near!(factor.solve(m * v).unwrap(), v, 1e-9);
        assert_near!(factor.solve(free.forcing(0.0, &x)).unwrap(), free.accelerations(0.0, &x).unwrap(), 1e-9);
    }
    let x0 = chain.project_state(0.0, &chain.state(std::array::from_fn(|k| 0.1 * (k as f64 + 1.0).sin()), [0.0; 20])).unwrap();
    let run = chain.run(x0).span(0.0..0.5).rtol(1e-10).atol(1e-11).go().unwrap();
    let e0 = chain.energy(0.0, &x0);
    for x in &run.states {
        assert!(chain.position_residuals(0.0, x).amax() < 1e-8 && chain.velocity_residuals(0.0, x).amax() < 1e-8);
        assert!((chain.energy(0.0, x) - e0).abs() < 1e-7 * (1.0 + e0.abs()), "energy");
    }
}

/// M of the free 20-link chain (210 pairs of joints one above the other, past the generated
/// CRBA's 160: the runtime's composite rigid bodies in the ground's axes from the joints'
/// transforms and the links' inertias) against the generated Newton–Euler pass in the links' own
/// axes, column by column (M eₖ = τ(x, eₖ) − τ(x, 0)), and against the articulated-body algorithm
/// by hand: M q̈ = f at its q̈. Symmetric, positive definite.
#[test]
fn a_long_chains_mass_matrix_is_its_inverse_dynamics_columns() {
    const N: usize = 20;
    let (m, l, i, j, g) = (1.0, 0.5, 0.02, 0.01, 9.81);
    let chain = held::Free20 { m, l, i, j, g };
    let mut rng = Rng::new(53);
    for _ in 0..3 {
        let x: SVector<f64, 40> = rng.vector(-1.2, 1.2);
        let mass = chain.mass_matrix(0.0, &x);
        let rest = chain.inverse_dynamics(0.0, &x, &SVector::zeros()).unwrap();
        for k in 0..N {
            let column =
                chain.inverse_dynamics(0.0, &x, &SVector::<f64, N>::from_fn(|r, _| f64::from(u8::from(r == k)))).unwrap() - rest;
            assert!(
                (mass.column(k) - column).amax() < 1e-12 * (1.0 + column.amax()),
                "column {k}: {} against {column}",
                mass.column(k)
            );
        }
        assert_eq!(mass, mass.transpose());
        assert!(mass.cholesky().is_some(), "positive definite");
        let by_hand = SVector::<f64, N>::from_column_slice(&hand::articulated_body::<N>((m, l, i, j, g), x.as_slice()));
        let f = chain.forcing(0.0, &x);
        assert!((mass * by_hand - f).amax() < 1e-10 * (1.0 + f.amax()), "M q̈ = f");
    }
}

/// The free 20-link chain against Featherstone's articulated-body algorithm written here by hand
/// in the links' own axes (a third route, independent of the derive's reading of frames and
/// bodies: the rotations about z, y and x written out as matrices, the link's inertia about its
/// joint by the parallel-axis theorem): link k turns by R_k = rot(q_k) from its parent's axes
/// about the joint at the parent's end (0, 0, −l) (at the ground's origin for the first), its body
/// of mass m centred at (0, 0, −l/2) with the inertia diag(i, i, j) there.
#[test]
fn a_chain_in_space_is_the_articulated_body_algorithm_by_hand() {
    const N: usize = 20;
    let (m, l, i, j, g) = (1.0, 0.5, 0.02, 0.01, 9.81);
    let chain = held::Free20 { m, l, i, j, g };
    let mut rng = Rng::new(47);
    for _ in 0..4 {
        let x: SVector<f64, 40> = rng.vector(-1.2, 1.2);
        let field = chain.field(0.0, &x).unwrap();
        let by_hand = hand::articulated_body::<N>((m, l, i, j, g), x.as_slice());
        let scale = 1.0 + by_hand.iter().fold(0.0_f64, |a, b| a.max(b.abs()));
        for k in 0..N {
            assert!((field[N + k] - by_hand[k]).abs() < 1e-11 * scale, "q̈_{k}: {} against {}", field[N + k], by_hand[k]);
        }
    }
}

/// The articulated-body algorithm of the chain in space, by hand (see the test above).
mod hand {
    include!("common/spatial_aba.rs");
}

/// Two links on joints whose axes are tilted by an angle that is no multiple of π/12 (1.5708, as a
/// URDF file writes π/2 to four places): their motion subspaces come out of the algebra as
/// functions of the joint angles (cos² + sin² of 1.5708 folds by no rule), the zero test proves
/// them constant, and the joints are screws for the analytic derivatives. The recursion, M, τ and
/// the field Jacobian against the dense twin and central differences.
macro_rules! tilted {
    ($name:ident, $dynamics:ident, [$($items:tt)*], [$($field:ident),*]) => {
        #[derive(Mechanics)]
        #[mechanics(
            coordinates(q1, q2),
            frame(b1 = rot_x(1.5708) * rot_z(q1), b2 = b1 * rot_y(0.7) * rot_x(1.5708) * rot_z(q2)),
            body(name = upper, mass = m, centre = b1 * [0.1, 0, l / 2], frame = b1, inertia = diag(ia, ib, ic)),
            body(name = fore, mass = m, centre = b1 * [0, 0, l] + b2 * [0.05, 0.02, l / 2], frame = b2,
                 inertia = [[ia, ip, 0], [ip, ib, 0], [0, 0, ic]]),
            gravity = [0, 0, -g],
            force(q2 = -c * dot(q2)),
            jacobian,
            $($items)*
            dynamics = $dynamics,
        )]
        pub struct $name {
            pub m: f64,
            pub l: f64,
            pub ia: f64,
            pub ib: f64,
            pub ic: f64,
            pub ip: f64,
            pub g: f64,
            pub c: f64,
            $(pub $field: f64,)*
        }
    };
}

twins_of!(tilted, Tilted, TiltedDense, [], []);

#[test]
fn joints_tilted_by_a_decimal_angle_are_screws_along_the_links() {
    let (m, l, ia, ib, ic, ip, g, c) = (0.9, 0.4, 0.02, 0.03, 0.015, 0.003, 9.81, 0.2);
    let (r, d) = (Tilted { m, l, ia, ib, ic, ip, g, c }, TiltedDense { m, l, ia, ib, ic, ip, g, c });
    assert_eq!((Tilted::DYNAMICS, TiltedDense::DYNAMICS), ("recursive", "dense"));
    let mut rng = Rng::new(5);
    for _ in 0..10 {
        let x: SVector<f64, 4> = rng.vector(-2.0, 2.0);
        assert_near!(r.accelerations(0.0, &x).unwrap(), d.accelerations(0.0, &x).unwrap(), 1e-12);
        assert_near!(r.mass_matrix(0.0, &x), d.mass_matrix(0.0, &x), 1e-12);
        let qdd = SVector::<f64, 2>::new(rng.uniform(-1.0, 1.0), rng.uniform(-1.0, 1.0));
        assert_near!(r.inverse_dynamics(0.0, &x, &qdd).unwrap(), d.inverse_dynamics(0.0, &x, &qdd).unwrap(), 1e-12);
        let jr = r.jacobian(0.0, &x).unwrap();
        assert_near!(jr, d.jacobian(0.0, &x).unwrap(), 1e-10);
        assert_near!(jr, jacobian_fd(&r, 0.0, &x, 1e-6).unwrap(), 1e-6);
    }
}
