//! Discrete mechanics: generated variational integrators (*Forced discrete reduction*, `docs/references.md`), checked on Example 2.3 — a damped particle in the plane in
//! the radial sextic potential V = s(s − 1)², s = ‖q‖², discretized by the midpoint rule. The
//! printed L_d lacks the square on (s_m − 1) (erratum D1 of `docs/references.md`); the generated one has it.

use routh::nalgebra::{Matrix2, SVector, Vector2};
use routh::prelude::*;
use routh::runtime::{DiscreteOptions, SimError};

/// Example 2.3's model with the quadrature rule `$rule`.
// rustfmt re-indents the attribute on every run (not idempotent inside macro_rules).
#[rustfmt::skip]
macro_rules! sextic {
    ($name:ident, $rule:expr) => {
        #[derive(Mechanics)]
        #[mechanics(
            coordinates(x, y),
            define(s = x.powi(2) + y.powi(2)),
            lagrangian = (dot(x).powi(2) + dot(y).powi(2)) / 2 - s * (s - 1).powi(2),
            force(x = -kappa * dot(x), y = -kappa * dot(y)),
            discrete(rule = $rule),
        )]
        struct $name {
            kappa: f64,
        }
    };
}

sextic!(Sextic, midpoint);
sextic!(SexticAlpha, alpha(1 / 2));
sextic!(SexticTrapezoid, trapezoid);
sextic!(SexticRectangle, rectangle);

fn v(q: &Vector2<f64>) -> f64 {
    let s = q.norm_squared();
    s * (s - 1.0).powi(2)
}

fn grad_v(q: &Vector2<f64>) -> Vector2<f64> {
    let s = q.norm_squared();
    q * (2.0 * (s - 1.0) * (3.0 * s - 1.0))
}

/// ξ_Q(q) = Jq, the rotation generator.
fn rot(q: &Vector2<f64>) -> Vector2<f64> {
    Vector2::new(-q[1], q[0])
}

#[test]
fn midpoint_discrete_lagrangian_and_forces_are_the_printed_ones() {
    let p = Sextic { kappa: 0.1 };
    let a = SexticAlpha { kappa: 0.1 };
    assert_eq!(Sextic::DISCRETE_RULE, "midpoint");
    let mut seed = 1u64;
    let mut r = || {
        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (seed >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
    };
    for _ in 0..20 {
        let (q0, q1, h) = (Vector2::new(r(), r()), Vector2::new(r(), r()), 0.1 + r().abs());
        // L_d = ‖q1 − q0‖²/(2h) − h V(q_m) (with the square the paper drops); f± = −(κ/2)(q1 − q0).
        let ld = (q1 - q0).norm_squared() / (2.0 * h) - h * v(&((q0 + q1) / 2.0));
        assert!((p.discrete_lagrangian(0.0, h, &q0, &q1) - ld).abs() < 1e-14 * ld.abs().max(1.0));
        let (fm, fp) = p.discrete_forces(0.0, h, &q0, &q1);
        let expect = -(q1 - q0) * (p.kappa / 2.0);
        assert!((fm - expect).amax() < 1e-15 && (fp - expect).amax() < 1e-15);
        // alpha(1/2) is the midpoint rule.
        assert_eq!(a.discrete_lagrangian(0.0, h, &q0, &q1), p.discrete_lagrangian(0.0, h, &q0, &q1));
    }
}

/// An independent implicit-midpoint solver for q̇ = p, ṗ = −∇V(q) − κp (fixed-point iteration).
fn implicit_midpoint(kappa: f64, h: f64, q: Vector2<f64>, p: Vector2<f64>) -> (Vector2<f64>, Vector2<f64>) {
    let (mut q1, mut p1) = (q + h * p, p);
    for _ in 0..200 {
        let (qm, pm) = ((q + q1) / 2.0, (p + p1) / 2.0);
        let (nq, np) = (q + h * pm, p + h * (-grad_v(&qm) - kappa * pm));
        let done = (nq - q1).amax().max((np - p1).amax()) < 1e-16;
        q1 = nq;
        p1 = np;
        if done {
            break;
        }
    }
    (q1, p1)
}

#[test]
fn the_midpoint_integrator_is_the_implicit_midpoint_rule_and_keeps_the_momentum_books() {
    // Digest §4.1 checks 3 and 4: h = 0.01, κ = 0.1, q₀ = (1.2, 0), p₀ = (0, 0.6), 500 steps.
    let p = Sextic { kappa: 0.1 };
    let h = 0.01;
    let traj = p.run_discrete(p.state([1.2, 0.0], [0.0, 0.6])).step(h).steps(500).go().unwrap();
    assert_eq!(traj.momenta[0], Vector2::new(0.0, 0.6), "p₀ = ∂L/∂q̇");
    let (mut q, mut m) = (Vector2::new(1.2, 0.0), Vector2::new(0.0, 0.6));
    let mut worst: f64 = 0.0;
    let (mut matching, mut balance, mut phi_err): (f64, f64, f64) = (0.0, 0.0, 0.0);
    for k in 0..500 {
        (q, m) = implicit_midpoint(p.kappa, h, q, m);
        worst = worst.max((traj.positions[k + 1] - q).amax()).max((traj.momenta[k + 1] - m).amax());
        // Momentum bookkeeping with ξ = rotation: J⁻(k) = ⟨p_k, ξ(q_k)⟩ from F^{f−}, J⁺(k) from
        // F^{f+}; (a) J⁻(k) = J⁺(k − 1), (b) J⁺(k) − J⁻(k) = Φ_k = f_d(ξ_{Q×Q}) = −κ(x_k y_k+1 − x_k+1 y_k).
        let (q0, q1) = (&traj.positions[k], &traj.positions[k + 1]);
        let (left, right) = p.discrete_momenta(k as f64 * h, h, q0, q1);
        let (fm, fp) = p.discrete_forces(k as f64 * h, h, q0, q1);
        let (jm, jp) = (left.dot(&rot(q0)), right.dot(&rot(q1)));
        let phi = fm.dot(&rot(q0)) + fp.dot(&rot(q1));
        if k > 0 {
            matching = matching.max((jm - traj.momenta[k].dot(&rot(q0))).abs());
        }
        balance = balance.max((jp - jm - phi).abs());
        phi_err = phi_err.max((phi + p.kappa * (q0[0] * q1[1] - q1[0] * q0[1])).abs());
    }
    assert!(worst < 1e-12, "against the implicit midpoint rule: {worst:e} (round-off over 500 steps)");
    assert!(matching < 1e-14 && balance < 1e-14 && phi_err < 1e-16, "(a) {matching:e}, (b) {balance:e}, Φ {phi_err:e}");
    // Newton converges quadratically: a handful of iterations per step.
    assert!(traj.iterations.iter().all(|&i| i <= 4), "iterations {:?}", traj.iterations.iter().max());
}

#[test]
fn unforced_midpoint_conserves_the_discrete_momentum_and_bounds_the_energy() {
    // Digest §4.1 check 5: κ = 0; J_d = ⟨p_k, ξ(q_k)⟩ exactly conserved and H = ½‖p‖² + V bounded
    // (no drift) over 10⁵ steps; the step map is symplectic (det of the step Jacobian 1 in 2 dof
    // would not suffice: checked as MᵀΩM = Ω).
    let p = Sextic { kappa: 0.0 };
    let h = 0.01;
    let steps = 100_000;
    let traj = p.run_discrete(p.state([1.2, 0.0], [0.0, 0.6])).step(h).steps(steps).go().unwrap();
    let j0 = traj.momenta[0].dot(&rot(&traj.positions[0]));
    let h0 = 0.5 * traj.momenta[0].norm_squared() + v(&traj.positions[0]);
    // The generated energies (inverse Legendre transform at the nodes) are H(q_k, p_k) here.
    let energies = p.discrete_energies(&traj).unwrap();
    for k in (0..=steps).step_by(997) {
        let hk = 0.5 * traj.momenta[k].norm_squared() + v(&traj.positions[k]);
        assert!((energies[k] - hk).abs() < 1e-13, "E_k = {} against H = {hk}", energies[k]);
    }
    let (mut jdev, mut early, mut late): (f64, f64, f64) = (0.0, 0.0, 0.0);
    for k in 0..=steps {
        let (q, m) = (&traj.positions[k], &traj.momenta[k]);
        jdev = jdev.max((m.dot(&rot(q)) - j0).abs());
        let dh = (0.5 * m.norm_squared() + v(q) - h0).abs();
        if k < steps / 10 {
            early = early.max(dh);
        } else if k > steps - steps / 10 {
            late = late.max(dh);
        }
    }
    assert!(jdev < 1e-11, "J_d drifts by {jdev:e}");
    assert!(early < 1e-3 && late < 2.0 * early, "energy error early {early:e}, late {late:e}: bounded, no drift");
}

#[test]
fn the_exact_step_jacobian_is_symplectic_to_round_off() {
    // MᵀΩM = Ω for the exact Jacobian of the generated step (implicit function theorem on the
    // Legendre maps, symbolic blocks), unforced, at several states; forced (κ > 0) it is not.
    use routh::runtime::discrete::{discrete_step, step_jacobian};
    let opts = DiscreteOptions::default();
    let (p, damped) = (Sextic { kappa: 0.0 }, Sextic { kappa: 0.5 });
    let h = 0.05;
    let mut worst: f64 = 0.0;
    for (q, m) in [([0.9, 0.3], [-0.2, 0.7]), ([1.2, 0.0], [0.0, 0.6]), ([0.4, -0.8], [0.5, 0.1])] {
        let (q, m) = (Vector2::from(q), Vector2::from(m));
        let s = discrete_step(&p, (0.0, h), (&q, &m), q + h * m, &opts).unwrap();
        let jac = step_jacobian(&p, 0.0, h, &q, &s.position).unwrap().unwrap();
        worst = worst.max(jac.symplecticity_defect());
        let s = discrete_step(&damped, (0.0, h), (&q, &m), q + h * m, &opts).unwrap();
        let jac = step_jacobian(&damped, 0.0, h, &q, &s.position).unwrap().unwrap();
        assert!(jac.symplecticity_defect() > 1e-3, "a damped step contracts the symplectic form");
    }
    eprintln!("symplecticity defect of the exact step Jacobian: {worst:.1e}");
    assert!(worst < 1e-12);
}

#[test]
fn the_step_map_is_symplectic() {
    // MᵀΩM = Ω for the Jacobian M of (q_k, p_k) ↦ (q_k+1, p_k+1), by central differences of the
    // generated step (unforced).
    let p = Sextic { kappa: 0.0 };
    let h = 0.05;
    let opts = DiscreteOptions::default();
    let step = |z: &SVector<f64, 4>| -> SVector<f64, 4> {
        let (q, m) = (Vector2::new(z[0], z[1]), Vector2::new(z[2], z[3]));
        let s = routh::runtime::discrete::discrete_step(&p, (0.0, h), (&q, &m), q + h * m, &opts).unwrap();
        SVector::<f64, 4>::new(s.position[0], s.position[1], s.momentum[0], s.momentum[1])
    };
    let z = SVector::<f64, 4>::new(0.9, 0.3, -0.2, 0.7);
    let mut m = routh::nalgebra::Matrix4::zeros();
    let d = 1e-6;
    for c in 0..4 {
        let (mut zp, mut zm) = (z, z);
        zp[c] += d;
        zm[c] -= d;
        m.set_column(c, &((step(&zp) - step(&zm)) / (2.0 * d)));
    }
    let mut omega = routh::nalgebra::Matrix4::zeros();
    omega.fixed_view_mut::<2, 2>(0, 2).copy_from(&Matrix2::identity());
    omega.fixed_view_mut::<2, 2>(2, 0).copy_from(&(-Matrix2::identity()));
    let err = (m.transpose() * omega * m - omega).amax();
    assert!(err < 1e-8, "MᵀΩM − Ω = {err:e} (finite differences)");
}

/// Global error at t = 1 against a tight adaptive solution of the continuous model.
fn global_error<S: routh::runtime::DiscreteSystem<2>>(sys: &S, h: f64, reference: &SVector<f64, 4>) -> f64 {
    let steps = (1.0 / h).round() as usize;
    let p0 = Vector2::new(0.0, 0.6);
    let start = routh::runtime::run::Node { q: Vector2::new(1.2, 0.0), p: p0, v: p0 };
    let traj = routh::runtime::Variational(sys).run_discrete(start).step(h).steps(steps).go().unwrap();
    (traj.positions[steps] - Vector2::new(reference[0], reference[1])).amax()
}

#[test]
fn orders_of_the_rules_are_measured() {
    // Digest §4.1 check 6: the midpoint (and trapezoid) integrators are of order 2, the rectangle
    // rule of order 1 (measured with h = 0.02, 0.01).
    let kappa = 0.1;
    let cont = Sextic { kappa };
    let opts = Options::default().rtol(1e-13).atol(1e-14);
    let sol = cont.run(cont.state([1.2, 0.0], [0.0, 0.6])).span(0.0..1.0).options(&opts).go().unwrap();
    let (_, reference) = sol.last().unwrap();
    let order = |e1: f64, e2: f64| (e1 / e2).log2();
    let mid = order(global_error(&cont, 0.02, reference), global_error(&cont, 0.01, reference));
    let trap = SexticTrapezoid { kappa };
    let tr = order(global_error(&trap, 0.02, reference), global_error(&trap, 0.01, reference));
    let rect = SexticRectangle { kappa };
    let re = order(global_error(&rect, 0.02, reference), global_error(&rect, 0.01, reference));
    eprintln!("measured orders: midpoint {mid:.3}, trapezoid {tr:.3}, rectangle {re:.3}");
    assert!((1.9..=2.1).contains(&mid), "midpoint order {mid}");
    assert!((1.9..=2.1).contains(&tr), "trapezoid order {tr}");
    assert!((0.9..=1.1).contains(&re), "rectangle order {re}");
}

#[test]
fn a_step_too_large_is_a_typed_error() {
    let p = Sextic { kappa: 0.1 };
    // A Newton iteration that does not converge within its budget is reported, with its last
    // correction (here h = 3, far beyond the motion's time scale, with two iterations allowed).
    let tight = DiscreteOptions::default().max_iterations(2);
    let err = p.run_discrete(p.state([1.2, 0.0], [0.0, 0.6])).step(3.0).steps(50).options(&tight).go().unwrap_err();
    let SimError::NewtonFailed { t, iterations, correction } = err.error else { panic!("{err:?}") };
    assert!(t == 0.0 && iterations == 2 && correction > 1e-6, "{err:?}");
    let err = p.run_discrete(p.state([1.2, 0.0], [0.0, 0.6])).step(-0.1).steps(5).go().unwrap_err();
    assert!(matches!(err.error, SimError::InvalidOptions(_)));
}

#[test]
fn more_steps_than_memory_holds_are_a_typed_error_before_any_work() {
    // usize::MAX steps panicked on the capacity and 1e11 steps aborted on an 800 GB allocation; the
    // nodes' memory is checked against max_output_bytes first, like the ODE side's output grid.
    let p = Sextic { kappa: 0.1 };
    for steps in [usize::MAX, 100_000_000_000] {
        let err = p.run_discrete(p.state([1.2, 0.0], [0.0, 0.6])).step(0.1).steps(steps).go().unwrap_err();
        let SimError::InvalidOptions(why) = &err.error else { panic!("{err:?}") };
        assert!(why.contains("max_output_bytes"), "{why}");
    }
    // Within the budget the run goes ahead: 1000 steps of 2 coordinates need about 56 kB.
    let small = DiscreteOptions::default().max_output_bytes(60_000);
    assert_eq!(p.run_discrete(p.state([1.2, 0.0], [0.0, 0.6])).step(0.01).steps(1000).options(&small).go().unwrap().len(), 1001);
    let tiny = DiscreteOptions::default().max_output_bytes(50_000);
    assert!(p.run_discrete(p.state([1.2, 0.0], [0.0, 0.6])).step(0.01).steps(1000).options(&tiny).go().is_err());
}

/// Example 2.3 with its rotation symmetry declared: the generated discrete momenta and source.
#[derive(Mechanics)]
#[mechanics(
    coordinates(x, y),
    define(s = x.powi(2) + y.powi(2)),
    lagrangian = (dot(x).powi(2) + dot(y).powi(2)) / 2 - s * (s - 1).powi(2),
    force(x = -kappa * dot(x), y = -kappa * dot(y)),
    symmetry(rotation = generator(x = -y, y = x)),
    discrete(rule = midpoint),
)]
struct SexticRotation {
    kappa: f64,
}

/// Example 4.5, the disk with friction, with the consistent scaling (erratum D5 of `docs/references.md`):
/// L = (m r²/4) φ̇², the friction torque −η m g r.
#[derive(Mechanics)]
#[mechanics(
    coordinates(phi),
    lagrangian = m * r.powi(2) / 4 * dot(phi).powi(2),
    force(phi = -eta * m * g * r),
    symmetry(cyclic(phi)),
    reduce(routh(phi)),
    discrete(rule = midpoint),
)]
struct Disk {
    m: f64,
    r: f64,
    eta: f64,
    g: f64,
}

#[test]
fn generated_discrete_momenta_obey_the_corrected_law() {
    use routh::runtime::discrete::MomentumLaw;
    assert_eq!(SexticRotation::ROTATION_DISCRETE_LAW, MomentumLaw::General);
    let p = SexticRotation { kappa: 0.1 };
    let h = 0.01;
    let traj = p.run_discrete(p.state([1.2, 0.0], [0.0, 0.6])).step(h).steps(500).go().unwrap();
    let (mut a, mut b, mut c): (f64, f64, f64) = (0.0, 0.0, 0.0);
    let mut previous_plus = f64::NAN;
    for k in 0..500 {
        let (q0, q1) = (&traj.positions[k], &traj.positions[k + 1]);
        let (jm, jp) = p.rotation_discrete_momentum(k as f64 * h, h, q0, q1);
        let phi = p.rotation_discrete_source(k as f64 * h, h, q0, q1);
        if k > 0 {
            a = a.max((jm - previous_plus).abs()); // (a) J⁻(k) = J⁺(k − 1)
        }
        b = b.max((jp - jm - phi).abs()); // (b) J⁺(k) − J⁻(k) = Φ_k
        c = c.max((phi + p.kappa * (q0[0] * q1[1] - q1[0] * q0[1])).abs()); // Φ_k = −κ ℓ₀₁
        previous_plus = jp;
    }
    eprintln!("Ex. 2.3 bookkeeping: (a) {a:.1e}, (b) {b:.1e}, Φ {c:.1e}");
    assert!(a < 1e-14 && b < 1e-14 && c < 1e-16);
    // Unforced, Φ is not identically zero symbolically (κ is a parameter), but vanishes: J conserved.
    let free = SexticRotation { kappa: 0.0 };
    let traj = free.run_discrete(free.state([1.2, 0.0], [0.0, 0.6])).step(h).steps(2000).go().unwrap();
    let j0 = free.rotation_discrete_momentum(0.0, h, &traj.positions[0], &traj.positions[1]).0;
    let jn = free.rotation_discrete_momentum(0.0, h, &traj.positions[1999], &traj.positions[2000]).1;
    assert!((jn - j0).abs() < 1e-12, "J_d: {j0} → {jn}");
}

#[test]
fn the_disk_with_friction_drifts_linearly_and_is_exact_at_the_nodes() {
    // Digest §4.3: Φ = −η m g r h is a constant (ConstantDrift, proved at compile time), so
    // J_k = J₀ + kΦ exactly; φ_k = ω₀ t_k − (ηg/r) t_k² at the nodes to round-off; det of the
    // (φ, p) step Jacobian is 1 (df_d = 0).
    use routh::runtime::discrete::MomentumLaw;
    assert_eq!(Disk::PHI_DISCRETE_LAW, MomentumLaw::ConstantDrift);
    let d = Disk { m: 2.0, r: 0.3, eta: 0.2, g: 9.81 };
    let (w0, h) = (10.0, 0.01);
    let t_stop = w0 * d.r / (2.0 * d.eta * d.g);
    let steps = (t_stop / h) as usize;
    let traj = d.run_discrete(d.state([0.0], [w0])).step(h).steps(steps).go().unwrap();
    let phi = d.phi_discrete_source(0.0, h, &traj.positions[0], &traj.positions[1]);
    assert!((phi + d.eta * d.m * d.g * d.r * h).abs() < 1e-15);
    let j0 = d.phi_discrete_momentum(0.0, h, &traj.positions[0], &traj.positions[1]).1;
    let (mut node_err, mut drift_err): (f64, f64) = (0.0, 0.0);
    for k in 0..steps {
        let t = traj.times[k];
        node_err = node_err.max((traj.positions[k][0] - (w0 * t - d.eta * d.g / d.r * t * t)).abs());
        let jp = d.phi_discrete_momentum(t, h, &traj.positions[k], &traj.positions[k + 1]).1;
        drift_err = drift_err.max((jp - (j0 + k as f64 * phi)).abs());
    }
    eprintln!("Ex. 4.5: node error {node_err:.1e}, drift error {drift_err:.1e} over {steps} steps");
    assert!(node_err < 1e-11 && drift_err < 1e-11);
    // det ∂(φ_k+1, p_k+1)/∂(φ_k, p_k) = 1 by central differences.
    let opts = DiscreteOptions::default();
    let step = |phi: f64, p: f64| {
        let s = routh::runtime::discrete::discrete_step(
            &d,
            (0.0, h),
            (&SVector::<f64, 1>::new(phi), &SVector::<f64, 1>::new(p)),
            SVector::<f64, 1>::new(phi),
            &opts,
        )
        .unwrap();
        (s.position[0], s.momentum[0])
    };
    let e = 1e-6;
    let (a, b) = (step(0.3 + e, 0.9), step(0.3 - e, 0.9));
    let (c, dd) = (step(0.3, 0.9 + e), step(0.3, 0.9 - e));
    let m = Matrix2::new((a.0 - b.0) / (2.0 * e), (c.0 - dd.0) / (2.0 * e), (a.1 - b.1) / (2.0 * e), (c.1 - dd.1) / (2.0 * e));
    assert!((m.determinant() - 1.0).abs() < 1e-8, "det = {}", m.determinant());
}

include!("common/polar.rs");

#[test]
fn the_polar_momentum_decays_by_the_pade_factor_exactly() {
    // Digest §4.2: p_k/p_{k−1} = (2 − κh)/(2 + κh) (the (1,1)-Padé approximant of e^{−κh}) and
    // p_N/p_0 = 0.13533526068 for h = 0.01, κ = 0.1, N = 2000.
    let p = Polar { kappa: 0.1 };
    let (h, steps) = (0.01, 2000);
    let traj = p.run_discrete(p.state([1.2, 0.0], [0.0, 0.5])).step(h).steps(steps).go().unwrap();
    let factor = (2.0 - p.kappa * h) / (2.0 + p.kappa * h);
    let mut worst: f64 = 0.0;
    for k in 1..=steps {
        worst = worst.max((traj.momenta[k][1] / traj.momenta[k - 1][1] - factor).abs());
    }
    let ratio = traj.momenta[steps][1] / traj.momenta[0][1];
    eprintln!("Ex. 3.13: per-step ratio error {worst:.1e}, p_N/p_0 = {ratio:.11} (error {:.1e})", ratio - 0.13533526068);
    assert!(worst < 1e-12);
    assert!((ratio - 0.13533526068).abs() < 1e-10);
    // Unforced: p_η conserved and the energy bounded over 20000 steps.
    let free = Polar { kappa: 0.0 };
    let traj = free.run_discrete(free.state([1.2, 0.0], [0.0, 0.5])).step(h).steps(20_000).go().unwrap();
    let energy = |k: usize| {
        let (q, m) = (&traj.positions[k], &traj.momenta[k]);
        0.5 * (m[0] * m[0] + m[1] * m[1] / (q[0] * q[0])) + q[0].powi(2) * (q[0].powi(2) - 1.0).powi(2)
    };
    let e0 = energy(0);
    let (mut de, mut dp): (f64, f64) = (0.0, 0.0);
    for k in 0..=20_000 {
        de = de.max((energy(k) - e0).abs());
        dp = dp.max((traj.momenta[k][1] - traj.momenta[0][1]).abs());
    }
    // (p_η to the Newton tolerance, relative to |q|, which grows with η: 1e-14 · 100 / h.)
    assert!(dp < 1e-9 && de < 1e-3, "p_η drifts by {dp:e}, energy by {de:e}");
}

#[test]
fn the_disk_stops_where_its_discrete_momentum_vanishes() {
    // Digest §3.3: the friction model holds while φ̇ > 0; the disk stops at t* = ω₀ r/(2ηg). The
    // discrete momentum falls by the same amount every step, so the crossing located by linear
    // interpolation between nodes is exact.
    let d = Disk { m: 2.0, r: 0.3, eta: 0.2, g: 9.81 };
    let (w0, h) = (10.0, 0.01);
    let t_stop = w0 * d.r / (2.0 * d.eta * d.g);
    let traj = d.run_discrete(d.state([0.0], [w0])).step(h).steps((t_stop / h) as usize + 10).go().unwrap();
    let stops = traj.crossings(|_t, _q, p| p[0]);
    assert_eq!(stops.len(), 1);
    assert!((stops[0] - t_stop).abs() < 1e-12, "stop at {} against ω₀r/(2ηg) = {t_stop}", stops[0]);
}

/// Example 3.13 exactly as printed, in the raw discrete mode: the paper's L_d (whose potential
/// lacks the factor h, erratum D2 of `docs/references.md`) and its force, which is (κ/h)D₁K_d, −(κ/h)D₂K_d
/// of the kinetic part — O(1/h), not the pullback of the continuous force (erratum 2).
#[derive(Mechanics)]
#[mechanics(
    coordinates(r, eta),
    lagrangian = (dot(r).powi(2) + (r * dot(eta)).powi(2)) / 2 - r.powi(2) * (r.powi(2) - 1).powi(2),
    discrete(
        lagrangian = h / 2 * ((q1(r) - q0(r)) / h).powi(2) + h / 2 * ((q1(r) + q0(r)) / 2).powi(2) * ((q1(eta) - q0(eta)) / h).powi(2)
            - ((q1(r) + q0(r)) / 2).powi(2) * (((q1(r) + q0(r)) / 2).powi(2) - 1).powi(2),
        force_minus(
            r = kappa / 2 * (-2 / h.powi(2) * (q1(r) - q0(r)) + (q1(r) + q0(r)) / 2 * ((q1(eta) - q0(eta)) / h).powi(2)),
            eta = -kappa / h.powi(2) * ((q1(r) + q0(r)) / 2).powi(2) * (q1(eta) - q0(eta)),
        ),
        force_plus(
            r = -kappa / 2 * (2 / h.powi(2) * (q1(r) - q0(r)) + (q1(r) + q0(r)) / 2 * ((q1(eta) - q0(eta)) / h).powi(2)),
            eta = -kappa / h.powi(2) * ((q1(r) + q0(r)) / 2).powi(2) * (q1(eta) - q0(eta)),
        ),
    ),
)]
struct PolarAsPrinted {
    kappa: f64,
}

#[test]
fn the_printed_polar_force_flips_the_momentum_every_step() {
    // With the printed force c_η = −(κ/h)p, so p_k = p_{k−1}(h − κ)/(h + κ): for h = 0.01 < κ = 0.1
    // the factor is −0.8181818 and the angular momentum changes sign every step — unphysical, the
    // erratum D3. The consistent force (`Polar` above) gives (2 − κh)/(2 + κh) instead.
    assert_eq!(PolarAsPrinted::DISCRETE_RULE, "raw");
    let p = PolarAsPrinted { kappa: 0.1 };
    let h = 0.01;
    let (q0, q1) = (SVector::<f64, 2>::new(1.1, 0.2), SVector::<f64, 2>::new(1.15, 0.23));
    // The generated raw L_d is the printed one.
    let rm = (q0[0] + q1[0]) / 2.0;
    let ld = h / 2.0 * ((q1[0] - q0[0]) / h).powi(2) + h / 2.0 * rm * rm * ((q1[1] - q0[1]) / h).powi(2)
        - rm * rm * (rm * rm - 1.0).powi(2);
    assert!((p.discrete_lagrangian(0.0, h, &q0, &q1) - ld).abs() < 1e-12 * ld.abs());
    let traj = p.run_discrete(p.state([1.2, 0.0], [0.0, 0.5])).step(h).steps(20).go().unwrap();
    let factor = (h - p.kappa) / (h + p.kappa);
    assert!((factor + 0.8181818).abs() < 1e-7);
    for k in 1..=20 {
        let ratio = traj.momenta[k][1] / traj.momenta[k - 1][1];
        assert!((ratio - factor).abs() < 1e-10, "step {k}: p ratio {ratio} against (h − κ)/(h + κ) = {factor}");
    }
}

#[test]
fn discrete_routh_reduction_and_reconstruction_agree_with_the_full_integrator() {
    // Digest §4.2: full vs reduced + reconstruction over 2000 steps; the reduced Lagrangian
    // ℓ_d(r₀, W, r₁) = L_d((r₀, 0), (r₁, W)) = (r₁ − r₀)²/(2h) + (r₀ + r₁)²W²/(8h) − h V(r_m).
    let p = Polar { kappa: 0.1 };
    let (h, steps) = (0.01, 2000);
    let (r0, r1, w) = (1.1, 1.13, 0.04);
    let rm: f64 = (r0 + r1) / 2.0;
    let ell = (r1 - r0).powi(2) / (2.0 * h) + (r0 + r1).powi(2) * w * w / (8.0 * h) - h * rm.powi(2) * (rm.powi(2) - 1.0).powi(2);
    let ld = p.discrete_reduced_lagrangian(0.0, h, &SVector::<f64, 2>::new(r0, 7.0), &SVector::<f64, 2>::new(r1, w));
    assert!((ld - ell).abs() < 1e-14 * ell.abs());
    // The reduced forces with the consistent force: −(κ/2)(r₁ − r₀) dr₀, same dr₁, and the group
    // components −(κ/2) r_m² W each, i.e. F_ξ = −(κ/4)(r₀ + r₁)² W in total (*Forced discrete reduction*, Ex. 3.13).
    let (fm, fp) = p.discrete_reduced_forces(0.0, h, &SVector::<f64, 2>::new(r0, 7.0), &SVector::<f64, 2>::new(r1, w));
    assert!((fm[0] + 0.05 * (r1 - r0)).abs() < 1e-15 && (fp[0] + 0.05 * (r1 - r0)).abs() < 1e-15);
    assert!((fm[1] + fp[1] + 0.025 * (r0 + r1).powi(2) * w).abs() < 1e-15);
    // (Newton to 1e-15 relative: the full solve's tolerance scales with |q|, which grows with η.)
    let opts = DiscreteOptions::default().tolerance(1e-15);
    let full = p.run_discrete(p.state([1.2, 0.0], [0.0, 0.5])).step(h).steps(steps).options(&opts).go().unwrap();
    let reduced = p.run_discrete(p.state([1.2, 0.0], [0.0, 0.5])).step(h).steps(steps).reduced().options(&opts).go().unwrap();
    let mut worst: f64 = 0.0;
    // Relative to the size of each component (round-off accumulates over the steps; the reduced
    // solve never forms η₁ − η₀ from large η and is the more accurate of the two).
    let rel = |a: f64, b: f64| (a - b).abs() / b.abs().max(1.0);
    for k in 0..=steps {
        for i in 0..2 {
            worst = worst.max(rel(full.positions[k][i], reduced.trajectory.positions[k][i]));
            worst = worst.max(rel(full.momenta[k][i], reduced.trajectory.momenta[k][i]));
        }
    }
    eprintln!("Ex. 3.13: full against reduced + reconstruction, {worst:.1e} (relative) over {steps} steps");
    // (Measured 8.9e-13 from the reference start; from η₀ = 0.3 it is 1.9e-12 — rounding
    // differences of the two solves amplified by the motion, not a modelling difference.)
    assert!(worst < 1e-12);
    // The increments reconstruct η: η_N = η_0 + Σ W_k, and W_k is the reduced group variable.
    let total: f64 = reduced.increments.iter().map(|w| w[1]).sum();
    assert!((reduced.trajectory.positions[steps][1] - total).abs() < 1e-12);
    assert!(reduced.increments.iter().all(|w| w[0] == 0.0));
}

/// The damped oscillator as a contact Lagrangian, integrated by the contact variational integrator
/// (discrete Herglotz principle, Vermeeren–Bravetti–Seri 2019).
#[derive(Mechanics)]
#[mechanics(
    coordinates(x),
    action(z),
    lagrangian = dot(x).powi(2) / 2 - x.powi(2) / 2 - gamma * z,
    discrete(rule = midpoint),
)]
struct ContactOscillator {
    gamma: f64,
}

#[test]
fn the_contact_variational_integrator_is_second_order_and_dissipates_like_the_flow() {
    // ẍ + γẋ + x = 0 from x(0) = 1, ẋ(0) = 0, z(0) = 0; E_L = ½ẋ² + ½x² + γz = E₀ e^{−γt}.
    let p = ContactOscillator { gamma: 0.3 };
    let g = p.gamma;
    let wd = (1.0 - g * g / 4.0).sqrt();
    let exact = |t: f64| (-g * t / 2.0).exp() * ((wd * t).cos() + g / (2.0 * wd) * (wd * t).sin());
    let e0 = 0.5;
    let run = |h: f64| {
        let steps = (5.0 / h).round() as usize;
        let traj = p.run_discrete(p.state([1.0], [0.0], 0.0)).step(h).steps(steps).go().unwrap();
        assert_eq!(traj.actions.len(), steps + 1);
        let x_err = (traj.positions[steps][0] - exact(5.0)).abs();
        // The discrete energy with the discrete momentum as velocity (unit mass): against the law.
        let e = 0.5 * traj.momenta[steps][0].powi(2) + 0.5 * traj.positions[steps][0].powi(2) + g * traj.actions[steps];
        // The generated energies read the action of each node.
        let generated = p.discrete_energies(&traj).unwrap()[steps];
        assert!((generated - e).abs() < 1e-13, "E_L = {generated} against {e}");
        let e_err = (e - e0 * (-g * 5.0f64).exp()).abs();
        (x_err, e_err)
    };
    let (x1, e1) = run(0.02);
    let (x2, e2) = run(0.01);
    let (ox, oe) = ((x1 / x2).log2(), (e1 / e2).log2());
    eprintln!("contact VI: order {ox:.3} in x, {oe:.3} in E_L (errors {x2:.1e}, {e2:.1e} at h = 0.01)");
    assert!((1.9..=2.1).contains(&ox), "order in x {ox}");
    assert!((1.9..=2.1).contains(&oe), "order in E_L {oe}");
}

#[test]
fn a_contact_step_beyond_the_dissipation_time_scale_is_an_error_with_the_nodes_before_it() {
    // h = 1e6 returned x = −1.2e89 without a word. The midpoint step carries the action's
    // variations by ∂z_a/∂z_k = 1 − γh/2 (its predicted action z_a = z_k + h/2 L) and by
    // 1 + D₃L_d = 1 − γh + γ²h²/2 (the flow: e^{−γh} > 0); with a factor at or below zero the step
    // follows no contact flow, and the run stops there with the factor.
    let p = ContactOscillator { gamma: 0.3 };
    for h in [1e6, 10.0] {
        let failure = p.run_discrete(p.state([1.0], [0.0], 0.0)).step(h).steps(10).go().unwrap_err();
        let SimError::ContactStepTooLarge { t, factor, .. } = failure.error else { panic!("h = {h}: {:?}", failure.error) };
        assert!(t == 0.0 && (factor - (1.0 - 0.15 * h)).abs() < 1e-9 * h, "h = {h}: factor {factor}");
        // The start node is kept.
        assert_eq!(failure.partial.map(|t| t.positions.len()), Some(1));
    }
    // Below 2/γ the steps are coarse but legitimate: the energy still decays.
    let coarse = p.run_discrete(p.state([1.0], [0.0], 0.0)).step(3.0).steps(10).go().unwrap();
    let energy = p.discrete_energies(&coarse).unwrap();
    assert!(energy.iter().all(|e| e.is_finite()) && energy[10].abs() < energy[0], "{energy:?}");
}

#[test]
fn the_polar_integrator_is_second_order_against_the_continuous_polar_flow() {
    // Digest §4.2: order 2 against r̈ = rη̇² − V'(r) − κṙ, d/dt(r²η̇) = −κr²η̇ (the same model's
    // continuous equations, integrated tightly).
    let p = Polar { kappa: 0.1 };
    let sol = p.run(p.state([1.2, 0.0], [0.0, 0.5 / 1.44])).span(0.0..1.0).rtol(1e-13).atol(1e-14).go().unwrap();
    let (_, reference) = sol.last().unwrap();
    let err = |h: f64| {
        let steps = (1.0 / h).round() as usize;
        let traj = p.run_discrete(p.state([1.2, 0.0], [0.0, 0.5 / 1.44])).step(h).steps(steps).go().unwrap();
        (traj.positions[steps][0] - reference[0]).abs().max((traj.positions[steps][1] - reference[1]).abs())
    };
    let order = (err(0.02) / err(0.01)).log2();
    assert!((1.9..=2.1).contains(&order), "order {order}");
}

#[test]
fn the_disk_reduced_by_its_rotation_matches_the_full_integrator() {
    // Ex. 4.5's reduction: Q/G is a point, the reduced variable w_k = φ_k+1 − φ_k falls by
    // 2ηg h²/r per step (the consistent scaling), and φ is reconstructed by summing.
    let d = Disk { m: 2.0, r: 0.3, eta: 0.2, g: 9.81 };
    let (w0, h) = (10.0, 0.01);
    let opts = DiscreteOptions::default();
    let red = d.run_discrete(d.state([0.0], [w0])).step(h).steps(60).reduced().options(&opts).go().unwrap();
    let full = d.run_discrete(d.state([0.0], [w0])).step(h).steps(60).options(&opts).go().unwrap();
    for k in 1..60 {
        let dw = red.increments[k][0] - red.increments[k - 1][0];
        assert!((dw + 2.0 * d.eta * d.g * h * h / d.r).abs() < 1e-14, "w_k − w_k−1 = {dw}");
    }
    let worst = (0..=60).map(|k| (red.trajectory.positions[k][0] - full.positions[k][0]).abs()).fold(0.0, f64::max);
    assert!(worst < 1e-13, "{worst:e}");
}

/// An α-rule with α a parameter (checked at run time).
#[derive(Mechanics)]
#[mechanics(coordinates(x), lagrangian = dot(x).powi(2) / 2 - x.powi(2) / 2, discrete(rule = alpha(a)))]
struct AlphaSpring {
    a: f64,
}

#[test]
fn an_alpha_parameter_outside_the_unit_interval_is_refused_and_half_is_the_midpoint() {
    let bad = AlphaSpring { a: 1.5 };
    let err = bad.run_discrete(bad.state([1.0], [0.0])).step(0.1).steps(10).go().unwrap_err();
    assert!(matches!(err.error, SimError::InvalidParameter { name: "a", .. }), "{err:?}");
    // α = ½ conserves the oscillator's quadratic energy exactly (the midpoint rule is linear here).
    let mid = AlphaSpring { a: 0.5 };
    let traj = mid.run_discrete(mid.state([1.0], [0.0])).step(0.1).steps(1000).go().unwrap();
    let e = |k: usize| 0.5 * (traj.momenta[k][0].powi(2) + traj.positions[k][0].powi(2));
    assert!((e(1000) - e(0)).abs() < 1e-12);
}

#[test]
fn two_step_and_position_momentum_forms_agree_and_newton_converges_quadratically() {
    use routh::runtime::discrete::discrete_step;
    let p = Sextic { kappa: 0.1 };
    let h = 0.01;
    let opts = DiscreteOptions::default();
    let pm = p.run_discrete(p.state([1.2, 0.0], [0.0, 0.6])).step(h).steps(300).options(&opts).go().unwrap();
    let ts = routh::runtime::TwoStep(&p)
        .run_discrete([pm.positions[0], pm.positions[1]])
        .step(h)
        .steps(300)
        .options(&opts)
        .go()
        .unwrap();
    let worst = (0..=300)
        .map(|k| (pm.positions[k] - ts.positions[k]).amax().max((pm.momenta[k] - ts.momenta[k]).amax()))
        .fold(0.0, f64::max);
    assert!(worst < 1e-12, "two-step against position–momentum: {worst:e}");
    // Quadratic convergence from a cold start (q₁ guessed as q₀): each correction at most a modest
    // multiple of the square of the one before, until round-off.
    let q = Vector2::new(1.2, 0.0);
    let s = discrete_step(&p, (0.0, 0.05), (&q, &Vector2::new(0.0, 0.6)), q, &opts).unwrap();
    let c = s.corrections;
    eprintln!("Newton corrections from a cold start: {:?}", &c[..s.iterations.min(8)]);
    for k in 1..s.iterations.min(8) {
        if c[k - 1] > 1e-7 {
            assert!(c[k] <= 10.0 * c[k - 1] * c[k - 1] / (1.0 + q.amax()) + 1e-15, "correction {k}: {} after {}", c[k], c[k - 1]);
        }
    }
}

#[test]
fn the_del_residual_is_the_printed_scheme_and_vanishes_on_the_trajectory() {
    // Digest §4.1 check 2: the forced DEL of the midpoint rule is
    // (q_k+1 − 2q_k + q_k−1)/h² + ½[∇V(q_k−½) + ∇V(q_k+½)] + κ(q_k+1 − q_k−1)/(2h) = 0 (times h).
    let p = Sextic { kappa: 0.1 };
    let h = 0.01;
    let (a, b, c) = (Vector2::new(1.1, 0.2), Vector2::new(1.12, 0.25), Vector2::new(1.13, 0.31));
    let residual = routh::runtime::discrete::del_residual(&p, (0.0, h), [&a, &b, &c]).unwrap();
    let scheme = -((c - 2.0 * b + a) / (h * h)
        + (grad_v(&((a + b) / 2.0)) + grad_v(&((b + c) / 2.0))) / 2.0
        + p.kappa * (c - a) / (2.0 * h))
        * h;
    assert!((residual - scheme).amax() < 1e-9 * scheme.amax(), "{residual} against {scheme}");
    let (d1, d2) = p.discrete_lagrangian_gradients(0.0, h, &b, &c);
    let (fm, _) = p.discrete_forces(0.0, h, &b, &c);
    let (left, _) = p.discrete_momenta(0.0, h, &b, &c);
    assert!((left + d1 + fm).amax() < 1e-12 && d2.amax() > 0.0);
    let traj = p.run_discrete(p.state([1.2, 0.0], [0.0, 0.6])).step(h).steps(50).go().unwrap();
    for k in 1..50 {
        let r = routh::runtime::discrete::del_residual(
            &p,
            ((k - 1) as f64 * h, h),
            [&traj.positions[k - 1], &traj.positions[k], &traj.positions[k + 1]],
        )
        .unwrap();
        assert!(r.amax() < 1e-12, "DEL residual at node {k}: {r}");
    }
}

/// A cart (mass mc) and a pole (a point mass mp at length l, θ from upright) pushed by the input u
/// on the cart, through the midpoint rule: the discrete forces f∓ = (h/2)(u − b V_x) carry the
/// input, held over the step.
#[derive(Mechanics)]
#[mechanics(
    coordinates(x, th),
    input(u),
    define(px = x + l * th.sin(), py = l * th.cos()),
    lagrangian = mc / 2 * dot(x).powi(2) + mp / 2 * (dot(px).powi(2) + dot(py).powi(2)) - mp * g * py,
    force(x = u - b * dot(x)),
    discrete(rule = midpoint),
)]
struct DrivenCartPole {
    mc: f64,
    mp: f64,
    l: f64,
    g: f64,
    b: f64,
}

/// The same cart-pole with the push a parameter: the second route to the driven model's step.
#[derive(Mechanics)]
#[mechanics(
    coordinates(x, th),
    define(px = x + l * th.sin(), py = l * th.cos()),
    lagrangian = mc / 2 * dot(x).powi(2) + mp / 2 * (dot(px).powi(2) + dot(py).powi(2)) - mp * g * py,
    force(x = push - b * dot(x)),
    discrete(rule = midpoint),
)]
struct PushedCartPole {
    mc: f64,
    mp: f64,
    l: f64,
    g: f64,
    b: f64,
    push: f64,
}

fn driven_cart_pole(b: f64) -> DrivenCartPole {
    DrivenCartPole { mc: 1.5, mp: 0.4, l: 0.7, g: 9.81, b }
}

#[test]
fn the_driven_variational_step_is_the_pushed_models_and_keeps_its_books() {
    // The view at u = c steps as the model with the constant push c written in its force; with
    // b = 0 the input only shifts the momenta (f∓ = (h/2) c e_x), so the step stays symplectic and
    // the cart's momentum changes by exactly h c per step (the pole's forces are internal in x).
    let (c, h) = (0.7, 0.02);
    let driven = driven_cart_pole(0.0);
    let pushed = PushedCartPole { mc: 1.5, mp: 0.4, l: 0.7, g: 9.81, b: 0.0, push: c };
    let view = driven.driven([c]);
    let start = view.state([0.1, 0.3], [0.2, -0.4]);
    let a = view.run_discrete(start).step(h).steps(200).go().unwrap();
    let b = pushed.run_discrete(start).step(h).steps(200).go().unwrap();
    let gap =
        (0..=200).map(|k| (a.positions[k] - b.positions[k]).amax().max((a.momenta[k] - b.momenta[k]).amax())).fold(0.0, f64::max);
    assert!(gap < 1e-13, "driven against pushed: {gap:e}");
    // p_x is the total horizontal momentum: it grows by h c per step.
    let drift = (0..200).map(|k| (a.momenta[k + 1][0] - a.momenta[k][0] - h * c).abs()).fold(0.0, f64::max);
    assert!(drift < 1e-12, "p_x per step against h u: {drift:e}");
    let q = a.positions[50];
    let j = routh::runtime::discrete::input_step_jacobian(&view, 50.0 * h, h, &q, &a.positions[51]).unwrap().unwrap();
    assert!(j.state.symplecticity_defect() < 1e-12, "{}", j.state.symplecticity_defect());
    // ∂p_x,k+1/∂u = h exactly (the books above), the pole's p_θ not at all through f⁺ directly.
    assert!((j.dp_du[(0, 0)] - h).abs() < 1e-12, "{}", j.dp_du);
}

#[test]
fn the_variational_step_maps_input_jacobian_matches_differences_and_designs_a_balancing_regulator() {
    // (q_k, p_k, u_k) ↦ (q_k+1, p_k+1) of the driven midpoint integrator: its exact Jacobians
    // (implicit function theorem on the Legendre maps, symbolic ∂F^{f∓}/∂u) against central
    // differences of the solved step (1e-7), then the discrete LQR (`lqr::dare`) on them at the
    // upright equilibrium balances the nonlinear pole stepped by the same integrator.
    use routh::runtime::discrete::{discrete_step, input_step_jacobian};
    use routh::runtime::lqr::dare;
    let model = driven_cart_pole(0.1);
    let h = 0.02;
    let opts = DiscreteOptions::default().tolerance(1e-15);
    let step = |z: &SVector<f64, 4>, u: f64| -> SVector<f64, 4> {
        let (q, p) = (Vector2::new(z[0], z[1]), Vector2::new(z[2], z[3]));
        let s = discrete_step(&model.driven([u]), (0.0, h), (&q, &p), q, &opts).unwrap();
        SVector::<f64, 4>::new(s.position[0], s.position[1], s.momentum[0], s.momentum[1])
    };
    let (z, u) = (SVector::<f64, 4>::new(0.2, 0.3, -0.1, 0.4), 0.8);
    let (q, p) = (Vector2::new(z[0], z[1]), Vector2::new(z[2], z[3]));
    let view = model.driven([u]);
    let s = discrete_step(&view, (0.0, h), (&q, &p), q, &opts).unwrap();
    let j = input_step_jacobian(&view, 0.0, h, &q, &s.position).unwrap().unwrap();
    let (a_d, b_d) = (j.state_matrix::<4>(), j.input_matrix::<4>());
    let d = 1e-6;
    for c in 0..4 {
        let e = SVector::<f64, 4>::ith(c, d);
        let fd = (step(&(z + e), u) - step(&(z - e), u)) / (2.0 * d);
        assert!((a_d.column(c) - fd).amax() < 1e-7, "A_d column {c}: {} against {fd}", a_d.column(c));
    }
    let fd = (step(&z, u + d) - step(&z, u - d)) / (2.0 * d);
    assert!((b_d.column(0) - fd).amax() < 1e-7, "B_d: {} against {fd}", b_d);
    // The regulator on (q, p) at the upright equilibrium.
    let rest = Vector2::zeros();
    let upright = input_step_jacobian(&model.driven([0.0]), 0.0, h, &rest, &rest).unwrap().unwrap();
    let dynamic = |m: &[f64], rows: usize| routh::nalgebra::DMatrix::from_column_slice(rows, m.len() / rows, m);
    let weights = routh::nalgebra::Matrix4::from_diagonal(&routh::nalgebra::Vector4::new(1.0, 10.0, 0.1, 0.1)) * h;
    let lqr = dare(
        &dynamic(upright.state_matrix::<4>().as_slice(), 4),
        &dynamic(upright.input_matrix::<4>().as_slice(), 4),
        &dynamic(weights.as_slice(), 4),
        &dynamic(&[0.5 * h], 1),
    )
    .unwrap();
    assert!(lqr.closed_loop.complex_eigenvalues().iter().all(|l| l.norm() < 1.0));
    let k = routh::nalgebra::SMatrix::<f64, 1, 4>::from_row_slice(lqr.gain.as_slice());
    // From a 0.2 rad tilt at rest, u_k = −K (q_k, p_k) held over each step.
    let mut z = SVector::<f64, 4>::new(0.0, 0.2, 0.0, 0.0);
    let p0 = model.driven([0.0]).momenta(0.0, &model.driven([0.0]).state([0.0, 0.2], [0.0, 0.0]));
    (z[2], z[3]) = (p0[0], p0[1]);
    for _ in 0..1250 {
        z = step(&z, -(k * z)[0]);
    }
    assert!(z.amax() < 1e-4, "(q, p) after 25 s under the discrete LQR: {z}");
}

include!("common/contact_oscillator.rs");

/// The same with the push a parameter.
#[derive(Mechanics)]
#[mechanics(
    coordinates(x),
    action(z),
    lagrangian = dot(x).powi(2) / 2 - x.powi(2) / 2 - gamma * z,
    force(x = push),
    discrete(rule = midpoint),
)]
struct PushedContactOscillator {
    gamma: f64,
    push: f64,
}

/// The same with the push as the potential −u x written in L.
#[derive(Mechanics)]
#[mechanics(
    coordinates(x),
    action(z),
    lagrangian = dot(x).powi(2) / 2 - x.powi(2) / 2 + push * x - gamma * z,
    discrete(rule = midpoint),
)]
struct PotentialContactOscillator {
    gamma: f64,
    push: f64,
}

#[test]
fn the_driven_contact_integrator_steps_as_its_push_written_as_a_potential_and_keeps_its_order() {
    // ẍ + γẋ + x = u, the push a force (the input, or a parameter) or the potential −u x in L: the
    // discrete forces carried through the predicted action as L's positions are, the three step
    // alike (x; the actions differ by the potential's own share), the oscillator settles at
    // x = u exactly, and the rule stays second order against the flow. (With the forces not
    // carried, the order fell to one and x settled γh/2 · u off.)
    let (gamma, c) = (0.5, 0.5);
    let driven = DrivenContactOscillator { gamma };
    let view = driven.driven([c]);
    let pushed = PushedContactOscillator { gamma, push: c };
    let potential = PotentialContactOscillator { gamma, push: c };
    let h = 0.01;
    let a = view.run_discrete(view.state([1.0], [0.0], 0.0)).step(h).steps(4000).go().unwrap();
    let b = pushed.run_discrete(pushed.state([1.0], [0.0], 0.0)).step(h).steps(4000).go().unwrap();
    let p = potential.run_discrete(potential.state([1.0], [0.0], 0.0)).step(h).steps(4000).go().unwrap();
    let gap =
        (0..=4000).map(|k| (a.positions[k] - b.positions[k]).amax().max((a.actions[k] - b.actions[k]).abs())).fold(0.0, f64::max);
    assert!(gap < 1e-13, "driven against pushed: {gap:e}");
    let gap = (0..=4000)
        .map(|k| (a.positions[k] - p.positions[k]).amax().max((a.momenta[k] - p.momenta[k]).amax()))
        .fold(0.0, f64::max);
    assert!(gap < 1e-12, "the push as a force against the push as a potential: {gap:e}");
    // The transient decays as e^{−γt/2}: 2e-5 of the start's 0.5 at t = 40.
    let settled = (a.positions[4000][0] - c).abs();
    assert!(settled < 1e-4, "x(40) − u = {settled:e}");
    // Order two against the flow at t = 5.
    let flow = driven.run(view.state([1.0], [0.0], 0.0)).span(0.0..5.0).inputs([c]).rtol(1e-12).atol(1e-13).go().unwrap();
    let exact = flow.last().unwrap().1[0];
    let error = |h: f64| {
        let steps = (5.0 / h).round() as usize;
        let t = view.run_discrete(view.state([1.0], [0.0], 0.0)).step(h).steps(steps).go().unwrap();
        (t.positions[steps][0] - exact).abs()
    };
    let order = (error(0.02) / error(0.01)).log2();
    eprintln!("driven contact integrator: order {order:.2}");
    assert!((order - 2.0).abs() < 0.15, "order {order}");
}

/// A cart-pole whose pole is damped through the action (a Herglotz Lagrangian with a damping that
/// depends on the angle), pushed by the input u on the cart.
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

/// One solved contact step from (q, p, z) under the inputs `u`, as a vector (q₁, p₁, z₁).
fn contact_step_of(model: &ContactCartPole, h: f64, x: &SVector<f64, 5>, u: f64) -> SVector<f64, 5> {
    use routh::runtime::discrete::contact_discrete_step;
    let view = model.driven([u]);
    let (q, p) = (Vector2::new(x[0], x[1]), Vector2::new(x[2], x[3]));
    let (step, z) = contact_discrete_step(&view, (0.0, h), (&q, &p, x[4]), q, &DiscreteOptions::default()).unwrap();
    SVector::<f64, 5>::from_iterator(step.position.iter().chain(step.momentum.iter()).copied().chain([z]))
}

#[test]
fn the_contact_steps_jacobians_are_its_differences_and_unforced_it_is_a_contact_map() {
    // The contact integrator's step over (q, p, z) and its inputs, differentiated by the implicit
    // function theorem on the generated maps (`contact_input_step_jacobian`), against central
    // differences of the solved step (1e-7). Unforced, the step is a contact transformation:
    // dz₁ − p₁·dq₁ = σ (dz₀ − p₀·dq₀) with σ = 1 + D₃L_d (the discrete e^{∫∂L/∂z}), which the
    // pulled-back contact form shows to round-off; with the push it is not (the forces break it as
    // they break a variational step's symplecticity).
    use routh::runtime::discrete::{contact_discrete_step, contact_input_step_jacobian};
    let model = ContactCartPole { mc: 1.0, m: 0.3, l: 0.6, g: 9.81, gamma: 0.4 };
    let h = 0.05;
    for (k, &(q, v, z, u)) in [([0.1, 0.4], [0.3, -0.7], 0.2, 1.5), ([-0.4, 2.0], [1.1, 0.5], -0.3, 0.0)].iter().enumerate() {
        let view = model.driven([u]);
        let x0 = view.state(q, v, z);
        let p0 = view.momenta(0.0, &x0);
        let q0 = Vector2::from(q);
        let (step, z1) = contact_discrete_step(&view, (0.0, h), (&q0, &p0, z), q0, &DiscreteOptions::default()).unwrap();
        let jac = contact_input_step_jacobian::<_, 2, 1>(&view, 0.0, h, &q0, &step.position, z).unwrap().unwrap();
        let (a, b) = (jac.state_matrix::<5>(), jac.input_matrix::<5>());
        let x = SVector::<f64, 5>::new(q[0], q[1], p0[0], p0[1], z);
        let eps = 1e-6;
        let mut worst: f64 = 0.0;
        for c in 0..5 {
            let mut dx = SVector::<f64, 5>::zeros();
            dx[c] = eps;
            let fd = (contact_step_of(&model, h, &(x + dx), u) - contact_step_of(&model, h, &(x - dx), u)) / (2.0 * eps);
            worst = worst.max((fd - a.column(c)).amax());
        }
        let fd = (contact_step_of(&model, h, &x, u + eps) - contact_step_of(&model, h, &x, u - eps)) / (2.0 * eps);
        worst = worst.max((fd - b.column(0)).amax());
        eprintln!("contact step {k}: Jacobians against differences {worst:.1e}");
        assert!(worst < 1e-7, "{worst:e}");
        // The step's own result is the runtime's integrator's.
        let run = view.run_discrete(x0).step(h).steps(1).go().unwrap();
        assert!((run.positions[1] - step.position).amax() < 1e-14 && (run.actions[1] - z1).abs() < 1e-14);
        let (sigma, defect) = jac.state.contact_defect(&p0, &step.momentum);
        if u == 0.0 {
            // σ = 1 + D₃L_d: L_d's derivative along z₀ by differences.
            let l = |z| view.discrete_lagrangian(0.0, h, &q0, &step.position, z);
            let d3 = (l(z + eps) - l(z - eps)) / (2.0 * eps);
            assert!((sigma - 1.0 - d3).abs() < 1e-9, "σ = {sigma}, 1 + D₃L_d = {}", 1.0 + d3);
            assert!(defect < 1e-13, "unforced contact defect {defect:e}");
        } else {
            assert!(defect > 1e-6, "the push breaks the contact form, yet the defect is {defect:e}");
        }
    }
}

#[test]
fn a_discrete_regulator_designed_on_the_contact_map_balances_the_damped_cart_pole() {
    // The contact integrator as a step map over (q, p, z) (`step::ContactMap`): upright (θ = π) at
    // rest with the action at z* = −m g l / (γ (1 − 1/4)), where L = 0, is a fixed point of the map;
    // the discrete LQR designed on its exact Jacobians there (the action unweighted: its own mode,
    // σ = 1 + D₃L_d < 1, is stable) brings the pole up from 0.2 rad, stepped by the same map.
    use routh::runtime::lqr::dare;
    use routh::runtime::step::{ContactMap, StepMap};
    let model = ContactCartPole { mc: 1.0, m: 0.3, l: 0.6, g: 9.81, gamma: 0.4 };
    let map = ContactMap::<_, 2>::new(&model);
    let h = 0.02;
    let z_star = -model.m * model.g * model.l / (model.gamma * 0.75);
    let rest = SVector::<f64, 5>::new(0.0, std::f64::consts::PI, 0.0, 0.0, z_star);
    let zero = SVector::<f64, 1>::zeros();
    let at_rest = map.step(0.0, &rest, &zero, h).unwrap();
    assert!((at_rest.next - rest).amax() < 1e-12, "the upright is no fixed point: {}", at_rest.next - rest);
    // Its action mode: σ = 1 + D₃L_d = 1 − γ' h + (γ' h)²/2 with γ' = 3γ/4.
    let gh = 0.75 * model.gamma * h;
    assert!((at_rest.a[(4, 4)] - (1.0 - gh + gh * gh / 2.0)).abs() < 1e-12, "∂z₁/∂z₀ = {}", at_rest.a[(4, 4)]);
    let dynamic = |m: &[f64], rows: usize| routh::nalgebra::DMatrix::from_column_slice(rows, m.len() / rows, m);
    let weights = routh::nalgebra::SMatrix::<f64, 5, 5>::from_diagonal(&SVector::<f64, 5>::new(1.0, 10.0, 0.1, 0.1, 0.0)) * h;
    let lqr = dare(
        &dynamic(at_rest.a.as_slice(), 5),
        &dynamic(at_rest.b.as_slice(), 5),
        &dynamic(weights.as_slice(), 5),
        &dynamic(&[0.5 * h], 1),
    )
    .unwrap();
    assert!(lqr.closed_loop.complex_eigenvalues().iter().all(|l| l.norm() < 1.0));
    let k = routh::nalgebra::SMatrix::<f64, 1, 5>::from_row_slice(lqr.gain.as_slice());
    // From 0.2 rad off the upright at rest, u_k = −K (x_k − x*) held over each step.
    let view = model.driven([0.0]);
    let x0 = view.state([0.0, std::f64::consts::PI - 0.2], [0.0, 0.0], z_star);
    let p0 = view.momenta(0.0, &x0);
    let mut x = SVector::<f64, 5>::new(0.0, std::f64::consts::PI - 0.2, p0[0], p0[1], z_star);
    for k_step in 0..1500 {
        let u = -(k * (x - rest))[0];
        x = map.advance(k_step as f64 * h, &x, &SVector::<f64, 1>::new(u), h).unwrap();
    }
    let off = (x - rest).fixed_rows::<4>(0).amax();
    assert!(off < 1e-4, "(q, p) after 30 s under the discrete LQR: {}", x - rest);
}

#[test]
fn ilqr_plans_on_the_contact_integrator_to_a_stationary_point_of_its_cost() {
    // The damped cart-pole's pole brought up from 0.3 rad off the upright in 2 s over its contact
    // integrator (`step::ContactMap`, the state (q, p, z)), iLQR started from the rollout of the
    // discrete LQR designed on the map at the upright fixed point: it converges with J falling at
    // every iteration and its plan is a stationary point of J through the map's own rollouts.
    use routh::runtime::ilqr::{IlqrProblem, IlqrStatus, ilqr};
    use routh::runtime::lqr::dare;
    use routh::runtime::step::{ContactMap, StepMap};
    let model = ContactCartPole { mc: 1.0, m: 0.3, l: 0.6, g: 9.81, gamma: 0.4 };
    let map = ContactMap::<_, 2>::new(&model);
    let (h, n) = (0.02, 100);
    let z_star = -model.m * model.g * model.l / (model.gamma * 0.75);
    let goal = SVector::<f64, 5>::new(0.0, std::f64::consts::PI, 0.0, 0.0, z_star);
    let weights = routh::nalgebra::SMatrix::<f64, 5, 5>::from_diagonal(&SVector::<f64, 5>::new(10.0, 10.0, 0.1, 0.1, 0.0)) * h;
    let (r, qf) = (0.5 * h, weights * 100.0);
    let upright = map.step(0.0, &goal, &SVector::<f64, 1>::zeros(), h).unwrap();
    let dynamic = |m: &[f64], rows: usize| routh::nalgebra::DMatrix::from_column_slice(rows, m.len() / rows, m);
    let lqr = dare(
        &dynamic(upright.a.as_slice(), 5),
        &dynamic(upright.b.as_slice(), 5),
        &dynamic(weights.as_slice(), 5),
        &dynamic(&[r], 1),
    )
    .unwrap();
    let gain = routh::nalgebra::SMatrix::<f64, 1, 5>::from_row_slice(lqr.gain.as_slice());
    let x0 = SVector::<f64, 5>::new(0.0, std::f64::consts::PI - 0.3, 0.0, 0.0, z_star);
    let (mut x, mut guess) = (x0, Vec::with_capacity(n));
    for k in 0..n {
        let u = -(gain * (x - goal));
        guess.push(u);
        x = map.advance(k as f64 * h, &x, &u, h).unwrap();
    }
    let problem = IlqrProblem::new((0.0, h, n), goal, weights, SVector::<f64, 1>::new(r), qf).tolerance(1e-15);
    let plan = ilqr(&map, &problem, &x0, &guess).unwrap();
    eprintln!(
        "iLQR on the contact integrator from the discrete LQR's rollout: {:?} after {} iterations, J {:.6} → {:.6}, θ_N − π {:.1e}",
        plan.status,
        plan.costs.len() - 1,
        plan.costs[0],
        plan.cost(),
        plan.states[n][1] - std::f64::consts::PI
    );
    assert_eq!(plan.status, IlqrStatus::Converged, "{:?}", plan.costs);
    assert!(plan.costs.windows(2).all(|w| w[1] < w[0]) && plan.cost() < plan.costs[0]);
    assert!((plan.states[n][1] - std::f64::consts::PI).abs() < 0.05, "{}", plan.states[n]);
    let cost = |us: &[SVector<f64, 1>]| {
        let mut x = x0;
        let mut j = 0.0;
        for (k, u) in us.iter().enumerate() {
            let e = x - goal;
            j += 0.5 * e.dot(&(weights * e)) + 0.5 * r * u[0] * u[0];
            x = map.advance(k as f64 * h, &x, u, h).unwrap();
        }
        let e = x - goal;
        j + 0.5 * e.dot(&(qf * e))
    };
    assert!((cost(&plan.inputs) - plan.cost()).abs() < 1e-12 * plan.cost());
    assert_stationary(&cost, &plan.inputs, r, &[0, 33, 99]);
}

#[test]
fn the_damped_oscillators_contact_step_contracts_by_the_midpoint_factor() {
    // ẍ + γẋ + x = 0 in L = ½ẋ² − ½x² − γz: the midpoint contact step carries the contact form by
    // σ = 1 + D₃L_d = 1 − γh + (γh)²/2 at every state (its action predicted half a step in, z_a =
    // z_k + (h/2) L: D₃L_d = −γh ∂z_a/∂z_k), within (γh)³/6 of the flow's e^{−γh}; its (x, p)
    // block alone has determinant σ, as a conformally symplectic map's.
    use routh::runtime::discrete::{contact_discrete_step, contact_step_jacobian};
    let model = ContactOscillator { gamma: 0.3 };
    for &(h, x, p, z) in &[(0.1, 1.0, 0.0, 0.0), (0.4, -0.3, 2.0, 1.7), (1.0, 0.5, -0.5, -2.0)] {
        let (q0, p0) = (SVector::<f64, 1>::new(x), SVector::<f64, 1>::new(p));
        let (step, _) = contact_discrete_step(&model, (0.0, h), (&q0, &p0, z), q0, &DiscreteOptions::default()).unwrap();
        let jac = contact_step_jacobian(&model, 0.0, h, &q0, &step.position, z).unwrap().unwrap();
        let (sigma, defect) = jac.contact_defect(&p0, &step.momentum);
        let gh = model.gamma * h;
        let closed = 1.0 - gh + gh * gh / 2.0;
        assert!((sigma - closed).abs() < 1e-14 && defect < 1e-14, "h = {h}: σ = {sigma} against {closed}, defect {defect:e}");
        assert!((closed - (-gh).exp()).abs() <= gh.powi(3) / 6.0);
        // The (x, p) block: det = σ (a linear damping contracts the phase area by σ per step).
        let s = &jac.state;
        let det = s.dq_dq[0] * s.dp_dp[0] - s.dq_dp[0] * s.dp_dq[0];
        assert!((det - sigma).abs() < 1e-14, "h = {h}: det {det} against σ = {sigma}");
    }
}

/// A plan of single inputs is a stationary point of its cost J (through the integrator's own
/// rollouts): central differences of J in the inputs `at`, against the scale of the inputs' cost
/// (weight `r`).
fn assert_stationary(cost: &dyn Fn(&[SVector<f64, 1>]) -> f64, inputs: &[SVector<f64, 1>], r: f64, at: &[usize]) {
    let scale = inputs.iter().map(|u| u[0].abs()).fold(0.0, f64::max) * r;
    for &k in at {
        let (mut up, mut down) = (inputs.to_vec(), inputs.to_vec());
        up[k][0] += 1e-6;
        down[k][0] -= 1e-6;
        let gradient = (cost(&up) - cost(&down)) / 2e-6;
        assert!(gradient.abs() < 1e-6 * scale.max(1e-3), "∂J/∂u_{k} = {gradient}");
    }
}

#[test]
fn ilqr_plans_on_the_variational_integrator_to_a_stationary_point_of_its_cost() {
    // The pole tilted 0.3 rad, brought upright in 2 s over the driven cart-pole's midpoint
    // integrator (`step::VariationalMap`: the state (q, p), the step's exact Jacobians by the
    // implicit function theorem): the discrete LQR on the map's linearisation at the upright
    // (`lqr::dare`) gives the first guess by its rollout, iLQR then converges with J falling at
    // every iteration, ends at the goal, and its plan is a stationary point of J through the
    // integrator's own rollouts (central differences in single inputs), below the guess's J.
    use routh::runtime::ilqr::{IlqrProblem, IlqrStatus, ilqr};
    use routh::runtime::lqr::dare;
    use routh::runtime::step::{StepMap, VariationalMap};
    let model = driven_cart_pole(0.1);
    let map = VariationalMap::<_, 2>::new(&model);
    let (h, n) = (0.02, 100);
    let weights = routh::nalgebra::Matrix4::from_diagonal(&routh::nalgebra::Vector4::new(10.0, 10.0, 0.1, 0.1)) * h;
    let (r, qf) = (0.5 * h, weights * 100.0);
    let upright = map.step(0.0, &SVector::<f64, 4>::zeros(), &SVector::<f64, 1>::zeros(), h).unwrap();
    let dynamic = |m: &[f64], rows: usize| routh::nalgebra::DMatrix::from_column_slice(rows, m.len() / rows, m);
    let lqr = dare(
        &dynamic(upright.a.as_slice(), 4),
        &dynamic(upright.b.as_slice(), 4),
        &dynamic(weights.as_slice(), 4),
        &dynamic(&[r], 1),
    )
    .unwrap();
    let gain = routh::nalgebra::SMatrix::<f64, 1, 4>::from_row_slice(lqr.gain.as_slice());
    let x0 = SVector::<f64, 4>::new(0.0, 0.3, 0.0, 0.0);
    let (mut x, mut guess) = (x0, Vec::with_capacity(n));
    for k in 0..n {
        let u = -(gain * x);
        guess.push(u);
        x = map.advance(k as f64 * h, &x, &u, h).unwrap();
    }
    let problem =
        IlqrProblem::new((0.0, h, n), SVector::<f64, 4>::zeros(), weights, SVector::<f64, 1>::new(r), qf).tolerance(1e-12);
    let plan = ilqr(&map, &problem, &x0, &guess).unwrap();
    eprintln!(
        "iLQR on the variational integrator from the discrete LQR's rollout: {:?} after {} iterations, J {:.6} → {:.6}, θ_N {:.1e}",
        plan.status,
        plan.costs.len() - 1,
        plan.costs[0],
        plan.cost(),
        plan.states[n][1]
    );
    assert_eq!(plan.status, IlqrStatus::Converged, "{:?}", plan.costs);
    assert!(plan.costs.windows(2).all(|w| w[1] < w[0]) && plan.cost() < plan.costs[0]);
    // The pole upright at the end (the cart's drift is what the weights leave to it).
    assert!(plan.states[n][1].abs() < 0.05, "{}", plan.states[n]);
    let cost = |us: &[SVector<f64, 1>]| {
        let mut x = x0;
        let mut j = 0.0;
        for (k, u) in us.iter().enumerate() {
            j += 0.5 * x.dot(&(weights * x)) + 0.5 * r * u[0] * u[0];
            x = map.advance(k as f64 * h, &x, u, h).unwrap();
        }
        j + 0.5 * x.dot(&(qf * x))
    };
    assert!((cost(&plan.inputs) - plan.cost()).abs() < 1e-12 * plan.cost());
    assert_stationary(&cost, &plan.inputs, r, &[0, 17, 50, 99]);
}
