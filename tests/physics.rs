//! Generated equations of motion against closed forms, conservation laws and hand derivations.

mod common;

use std::f64::consts::PI;

use common::{Rng, jacobian_fd, rel_err};
use routh::prelude::*;

/// Harmonic oscillator, L = m ẋ²/2 − k x²/2.
#[derive(Mechanics)]
#[mechanics(coordinates(x), lagrangian = m / 2 * dot(x).powi(2) - k / 2 * x.powi(2))]
struct Oscillator {
    m: f64,
    k: f64,
}

/// Damped oscillator: the same with a viscous force −c ẋ.
#[derive(Mechanics)]
#[mechanics(
    coordinates(x),
    lagrangian = m / 2 * dot(x).powi(2) - k / 2 * x.powi(2),
    force(x = -c * dot(x)),
)]
struct Damped {
    m: f64,
    k: f64,
    c: f64,
}

/// Simple pendulum written with Cartesian positions and `dot`.
#[derive(Mechanics)]
#[mechanics(
    coordinates(theta),
    define(px = l * theta.sin(), py = -l * theta.cos()),
    lagrangian = m / 2 * (dot(px).powi(2) + dot(py).powi(2)) - m * g * py,
)]
struct Pendulum {
    m: f64,
    l: f64,
    g: f64,
}

/// The showcase double pendulum with joint damping.
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
    jacobian,
    output(bob = [x2, y2, 0], speed = (dot(x2).powi(2) + dot(y2).powi(2)).sqrt(), elbow = th2 - th1),
)]
struct DoublePendulum {
    m1: f64,
    m2: f64,
    l1: f64,
    l2: f64,
    g: f64,
    b: f64,
}

/// Kepler problem in polar coordinates (unit mass), L = (ṙ² + r²φ̇²)/2 + μ/r.
#[derive(Mechanics)]
#[mechanics(coordinates(r, phi), lagrangian = (dot(r).powi(2) + (r * dot(phi)).powi(2)) / 2 + mu / r, jacobian)]
struct Kepler {
    mu: f64,
}

/// Pendulum whose support oscillates vertically, y_s = A cos(Ω t): a time-dependent Lagrangian.
#[derive(Mechanics)]
#[mechanics(
    coordinates(theta),
    define(ys = amp * (omega * t).cos(), bx = l * theta.sin(), by = ys - l * theta.cos()),
    lagrangian = m / 2 * (dot(bx).powi(2) + dot(by).powi(2)) - m * g * by,
    jacobian,
)]
struct ShakenPendulum {
    m: f64,
    l: f64,
    g: f64,
    amp: f64,
    omega: f64,
}

fn tight() -> Options {
    Options::default().rtol(1e-11).atol(1e-13)
}

#[test]
fn harmonic_oscillator_matches_closed_form() {
    let sys = Oscillator { m: 2.0, k: 8.0 };
    let w = (sys.k / sys.m).sqrt();
    let (x0, v0) = (0.7, -0.3);
    let sol = sys.run(sys.state([x0], [v0])).span(0.0..10.0).options(tight()).go().unwrap();
    assert!(sol.len() > 10);
    for (t, x) in sol.iter() {
        let exact = x0 * (w * t).cos() + v0 / w * (w * t).sin();
        let exact_v = -x0 * w * (w * t).sin() + v0 * (w * t).cos();
        assert!((x[0] - exact).abs() < 1e-9, "t = {t}: {} vs {exact}", x[0]);
        assert!((x[1] - exact_v).abs() < 1e-8, "t = {t}: {} vs {exact_v}", x[1]);
    }
    // The derived energy is the physical one.
    let x = sys.state([x0], [v0]);
    assert!((sys.energy(0.0, &x) - (0.5 * sys.m * v0 * v0 + 0.5 * sys.k * x0 * x0)).abs() < 1e-15);
}

#[test]
fn damped_oscillator_decays_as_closed_form() {
    let sys = Damped { m: 1.5, k: 6.0, c: 0.9 };
    let gamma = sys.c / (2.0 * sys.m);
    let wd = (sys.k / sys.m - gamma * gamma).sqrt();
    let (x0, v0) = (1.0, 0.5);
    let sol = sys.run(sys.state([x0], [v0])).span(0.0..15.0).options(tight()).go().unwrap();
    for (t, x) in sol.iter() {
        let exact = (-gamma * t).exp() * (x0 * (wd * t).cos() + (v0 + gamma * x0) / wd * (wd * t).sin());
        assert!((x[0] - exact).abs() < 1e-9, "t = {t}: {} vs {exact}", x[0]);
    }
    // Energy balance: dE/dt = Q·q̇ = −c ẋ² at every state.
    let mut rng = Rng::new(3);
    for _ in 0..20 {
        let x = rng.vector::<2>(-2.0, 2.0);
        let dx = sys.field(0.0, &x).unwrap();
        let de_dt = sys.k * x[0] * dx[0] + sys.m * x[1] * dx[1];
        assert!((de_dt - sys.power(0.0, &x)).abs() < 1e-12);
        assert!((sys.power(0.0, &x) + sys.c * x[1] * x[1]).abs() < 1e-14);
    }
    let (t_end, x_end) = sol.last().unwrap();
    assert!(sys.energy(t_end, x_end) < 1e-3 * sys.energy(0.0, &sys.state([x0], [v0])));
}

#[test]
fn pendulum_energy_conserved_over_100_periods() {
    let sys = Pendulum { m: 1.3, l: 0.8, g: 9.81 };
    // Small-amplitude period as a scale; 100 periods of the actual (larger) amplitude motion.
    let period = 2.0 * PI * (sys.l / sys.g).sqrt();
    let x0 = sys.state([1.2], [0.0]);
    let e0 = sys.energy(0.0, &x0);
    let opts = Options::default().rtol(1e-10).atol(1e-12);
    let sol = sys.run(x0).span(0.0..100.0 * period).options(&opts).go().unwrap();
    let worst = sol.iter().map(|(t, x)| ((sys.energy(t, x) - e0) / e0).abs()).fold(0.0, f64::max);
    // DOPRI5 is not symplectic: the energy error grows linearly with time, about 4e-8 here after
    // 100 periods at rtol 1e-10 (an independent DOPRI5, SciPy's RK45, drifts 5e-8 on this problem).
    // A wrong force term or a broken step controller gives orders of magnitude more.
    assert!(worst < 1e-7, "relative energy drift {worst}");
    // The pendulum equation itself: θ̈ = −(g/l) sin θ.
    let mut rng = Rng::new(11);
    for _ in 0..20 {
        let x = rng.vector::<2>(-3.0, 3.0);
        let a = sys.accelerations(0.0, &x).unwrap()[0];
        assert!((a + sys.g / sys.l * x[0].sin()).abs() < 1e-12);
    }
}

#[test]
fn double_pendulum_matches_hand_derived_equations() {
    let p = DoublePendulum { m1: 1.1, m2: 0.7, l1: 0.9, l2: 1.3, g: 9.81, b: 0.25 };
    let mut rng = Rng::new(7);
    for _ in 0..50 {
        let x = rng.vector::<4>(-PI, PI);
        let (t1, t2, w1, w2) = (x[0], x[1], x[2], x[3]);
        let (s, c) = ((t1 - t2).sin(), (t1 - t2).cos());
        let m = p.mass_matrix(0.0, &x);
        let m_hand = SMatrix::<f64, 2, 2>::new(
            (p.m1 + p.m2) * p.l1 * p.l1,
            p.m2 * p.l1 * p.l2 * c,
            p.m2 * p.l1 * p.l2 * c,
            p.m2 * p.l2 * p.l2,
        );
        assert!(rel_err(&m, &m_hand) < 1e-12, "M = {m}, hand {m_hand}");
        let q1 = -p.b * w1;
        let q2 = -p.b * (w2 - w1);
        let f_hand = SVector::<f64, 2>::new(
            -p.m2 * p.l1 * p.l2 * s * w2 * w2 - (p.m1 + p.m2) * p.g * p.l1 * t1.sin() + q1,
            p.m2 * p.l1 * p.l2 * s * w1 * w1 - p.m2 * p.g * p.l2 * t2.sin() + q2,
        );
        let f = p.forcing(0.0, &x);
        assert!(rel_err(&f, &f_hand) < 1e-12, "f = {f}, hand {f_hand}");
        // Momenta p = M q̇ for a Lagrangian quadratic in velocities.
        let mom = p.momenta(0.0, &x);
        let mom_hand = m_hand * SVector::<f64, 2>::new(w1, w2);
        assert!(rel_err(&mom, &mom_hand) < 1e-12);
    }
}

#[test]
fn double_pendulum_energy_balance_with_damping() {
    // dE/dt = Q·q̇ along solutions: integrate the power and compare with the energy change.
    let p = DoublePendulum { m1: 1.0, m2: 1.0, l1: 1.0, l2: 1.0, g: 9.81, b: 0.3 };
    let x0 = p.state([1.0, 0.5], [0.0, 0.0]);
    let sol = p.run(x0).span(0.0..5.0).rtol(1e-11).atol(1e-13).go().unwrap();
    let mut work = 0.0;
    let pts: Vec<(f64, f64)> = sol.iter().map(|(t, x)| (t, p.power(t, x))).collect();
    for w in pts.windows(2) {
        work += 0.5 * (w[0].1 + w[1].1) * (w[1].0 - w[0].0);
    }
    let (t_end, x_end) = sol.last().unwrap();
    let de = p.energy(t_end, x_end) - p.energy(0.0, &x0);
    assert!(de < -0.1, "damping must dissipate energy, ΔE = {de}");
    // Trapezoid rule on adaptive steps: agreement to a fraction of a percent.
    assert!((de - work).abs() < 5e-3 * de.abs(), "ΔE = {de}, ∫Q·q̇ = {work}");
}

#[test]
fn kepler_orbit_period_apsides_and_conservation() {
    let sys = Kepler { mu: 1.5 };
    let (r0, vr0, w0) = (1.0, 0.2, 1.1);
    let x0 = sys.state([r0, 0.0], [vr0, w0]);
    let e = sys.energy(0.0, &x0);
    assert!((e - (0.5 * (vr0 * vr0 + r0 * r0 * w0 * w0) - sys.mu / r0)).abs() < 1e-15);
    let h = sys.momenta(0.0, &x0)[1];
    assert!((h - r0 * r0 * w0).abs() < 1e-15);
    let a = -sys.mu / (2.0 * e);
    let ecc = (1.0 + 2.0 * e * h * h / (sys.mu * sys.mu)).sqrt();
    let period = 2.0 * PI * a.powf(1.5) / sys.mu.sqrt();

    // Apoapsis: ṙ crosses zero from above.
    let apo = Event::new("apoapsis", |_t, x: &SVector<f64, 4>| x[2]).direction(Direction::Falling);
    let peri = Event::new("periapsis", |_t, x: &SVector<f64, 4>| x[2]).direction(Direction::Rising);
    let sol = sys.run(x0).span(0.0..5.5 * period).events(&[apo, peri]).options(tight()).go().unwrap();
    let apo_times: Vec<f64> = sol.events.iter().filter(|ev| ev.name == "apoapsis").map(|ev| ev.t).collect();
    assert!(apo_times.len() >= 5, "{} apoapses", apo_times.len());
    for w in apo_times.windows(2) {
        assert!((w[1] - w[0] - period).abs() < 1e-8 * period, "period {} vs {period}", w[1] - w[0]);
    }
    for ev in &sol.events {
        let expected = if ev.name == "apoapsis" { a * (1.0 + ecc) } else { a * (1.0 - ecc) };
        assert!((ev.state[0] - expected).abs() < 1e-9, "{} r = {} vs {expected}", ev.name, ev.state[0]);
    }
    for (t, x) in sol.iter() {
        assert!((sys.energy(t, x) - e).abs() < 1e-9 * e.abs());
        assert!((sys.momenta(t, x)[1] - h).abs() < 1e-9 * h.abs());
    }
}

#[test]
fn shaken_pendulum_matches_hand_derived_equation() {
    // θ̈ = −(g + ÿ_s) sin θ / l with ÿ_s = −A Ω² cos Ωt.
    let sys = ShakenPendulum { m: 0.8, l: 0.6, g: 9.81, amp: 0.05, omega: 120.0 };
    let hand = |t: f64, th: f64| -(sys.g - sys.amp * sys.omega * sys.omega * (sys.omega * t).cos()) * th.sin() / sys.l;
    let mut rng = Rng::new(5);
    for _ in 0..50 {
        let t = rng.uniform(0.0, 10.0);
        let x = rng.vector::<2>(-3.0, 3.0);
        let a = sys.accelerations(t, &x).unwrap()[0];
        assert!((a - hand(t, x[0])).abs() < 1e-11 * (1.0 + a.abs()), "t = {t}: {a} vs {}", hand(t, x[0]));
    }
    // Kapitza: a fast enough shake stabilises the inverted pendulum (2 g l < A² Ω²).
    assert!(2.0 * sys.g * sys.l < (sys.amp * sys.omega).powi(2));
    let sol = sys.run(sys.state([PI - 0.1], [0.0])).span(0.0..10.0).options(tight()).go().unwrap();
    for (_, x) in sol.iter() {
        assert!((x[0] - PI).abs() < 0.3, "left the inverted position: θ = {}", x[0]);
    }
}

#[test]
fn generated_jacobians_match_finite_differences() {
    let mut rng = Rng::new(13);
    let dp = DoublePendulum { m1: 1.1, m2: 0.7, l1: 0.9, l2: 1.3, g: 9.81, b: 0.25 };
    let shaken = ShakenPendulum { m: 0.8, l: 0.6, g: 9.81, amp: 0.05, omega: 4.0 };
    let kepler = Kepler { mu: 1.5 };
    for _ in 0..20 {
        let t = rng.uniform(0.0, 3.0);
        let x = rng.vector::<4>(-2.0, 2.0);
        let err = rel_err(&dp.jacobian(t, &x).unwrap(), &jacobian_fd(&dp, t, &x, 1e-6).unwrap());
        assert!(err < 1e-7, "double pendulum Jacobian error {err}");
        let x = rng.vector::<2>(-2.0, 2.0);
        let err = rel_err(&shaken.jacobian(t, &x).unwrap(), &jacobian_fd(&shaken, t, &x, 1e-6).unwrap());
        assert!(err < 1e-7, "shaken pendulum Jacobian error {err}");
        let mut x = rng.vector::<4>(-2.0, 2.0);
        x[0] = rng.uniform(0.5, 2.0);
        let err = rel_err(&kepler.jacobian(t, &x).unwrap(), &jacobian_fd(&kepler, t, &x, 1e-6).unwrap());
        assert!(err < 1e-7, "Kepler Jacobian error {err}");
    }
}

#[test]
fn event_time_of_a_known_crossing() {
    // x(t) = cos(ω t) from x = 1 at rest: first falling zero at π/(2ω), then every π/ω.
    let sys = Oscillator { m: 1.0, k: 4.0 };
    let w = 2.0;
    let zero = Event::new("x = 0", |_t, x: &SVector<f64, 2>| x[0]).direction(Direction::Falling);
    let opts = Options::default().rtol(1e-12).atol(1e-14);
    let sol = sys.run(sys.state([1.0], [0.0])).span(0.0..10.0).events(&[zero]).options(&opts).go().unwrap();
    assert_eq!(
        sol.events.len(),
        3,
        "falling crossings in [0, 10] (π/4 + kπ): {:?}",
        sol.events.iter().map(|e| e.t).collect::<Vec<_>>()
    );
    for (k, ev) in sol.events.iter().enumerate() {
        let exact = PI / (2.0 * w) + 2.0 * PI / w * k as f64; // period 2π/ω = π
        assert!((ev.t - exact).abs() < 1e-10, "crossing {k}: {} vs {exact}", ev.t);
        assert!(ev.state[0].abs() < 1e-10);
    }
    // A terminal event stops the run at the crossing.
    let stop = Event::new("stop", |_t, x: &SVector<f64, 2>| x[0]).terminal(true);
    let sol = sys.run(sys.state([1.0], [0.0])).span(0.0..10.0).events(&[stop]).options(&opts).go().unwrap();
    let (t_end, _) = sol.last().unwrap();
    assert!((t_end - PI / (2.0 * w)).abs() < 1e-10);
    assert!(matches!(sol.stop, StopReason::Event { .. }));
}

#[test]
fn singular_mass_matrix_is_a_typed_error() {
    // The Kepler mass matrix diag(1, r²) is singular at r = 0.
    let sys = Kepler { mu: 1.0 };
    let x = SVector::<f64, 4>::new(0.0, 0.0, 1.0, 1.0);
    assert!(matches!(sys.accelerations(0.0, &x), Err(FieldError::SingularMassMatrix { .. })));
    assert!(matches!(sys.jacobian(0.0, &x), Err(FieldError::SingularMassMatrix { .. })));
    // Falling into the centre: the run ends with a typed error, not a panic.
    let x0 = sys.state([1.0, 0.0], [-1.0, 0.0]);
    let result = sys.run(x0).span(0.0..10.0).go();
    assert!(result.is_err(), "radial infall through r = 0 cannot be integrated: {:?}", result.map(|s| s.stop));
}

/// A particle repelled by V = k/√x: the potential is undefined for x < 0, where an overshooting
/// trial step can land. That must be a non-finite evaluation (the step is retried smaller), not a
/// singular mass matrix that ends the run.
#[derive(Mechanics)]
#[mechanics(coordinates(x), lagrangian = m / 2 * dot(x).powi(2) - k / x.sqrt())]
struct RootWall {
    m: f64,
    k: f64,
}

#[test]
fn a_potential_undefined_beyond_a_wall_does_not_end_the_run() {
    let p = RootWall { m: 1.0, k: 0.05 };
    let x0 = p.state([1.0], [-4.0]);
    // Where the field is NaN it says so, and the integrator shrinks the step.
    assert!(matches!(p.accelerations(0.0, &p.state([-0.5], [0.0])), Err(FieldError::NonFinite { .. })));
    let sol = p.run(x0).span(0.0..3.0).options(Options::default().initial_step(0.5)).go().unwrap();
    let e0 = p.energy(0.0, &x0);
    let (t, x) = sol.last().unwrap();
    assert_eq!(t, 3.0);
    assert!(sol.stats.rejected > 0 && sol.states.iter().all(|x| x[0] > 0.0));
    assert!((p.energy(t, x) - e0).abs() < 1e-6 * e0);
}

/// A kinetic term through a 12-fold composition, f = sin(sin(… sin(x))): M = m (1 + f′²) ≥ m is
/// regular, and the derive must not call it singular (a float tolerance on a deep composition's
/// magnitude once did).
#[derive(Mechanics)]
#[mechanics(
    coordinates(x),
    define(f = ((((((((((((x).sin()).sin()).sin()).sin()).sin()).sin()).sin()).sin()).sin()).sin()).sin()).sin()),
    lagrangian = m / 2 * (dot(x).powi(2) + dot(f).powi(2)),
)]
struct DeepKinetic {
    m: f64,
}

#[test]
fn a_deep_composition_in_the_kinetic_energy_is_regular() {
    let d = DeepKinetic { m: 2.0 };
    let x0 = 0.7f64;
    // f′ by the chain rule: the product of cos at every level.
    let (mut u, mut df) = (x0, 1.0);
    for _ in 0..12 {
        df *= u.cos();
        u = u.sin();
    }
    let m = d.mass_matrix(0.0, &d.state([x0], [0.0]))[(0, 0)];
    assert!((m - d.m * (1.0 + df * df)).abs() < 1e-12, "{m}");
}

#[test]
fn a_non_finite_parameter_is_named() {
    let bad = Oscillator { m: 1.0, k: f64::NAN };
    let err = bad.run(bad.state([1.0], [0.0])).span(0.0..1.0).go().unwrap_err();
    assert!(matches!(err.error, SimError::InvalidParameter { name: "k", .. }), "{err:?}");
    assert!(err.to_string().contains("`k`"), "{err}");
}

/// A pendulum of length l written with g / l: l = 0 is named before the run, not found as an
/// infinite field.
#[derive(Mechanics)]
#[mechanics(
    coordinates(th),
    lagrangian = dot(th).powi(2) / 2 + g / l * th.cos(),
)]
struct ReducedPendulum {
    g: f64,
    l: f64,
}

#[test]
fn a_parameter_the_model_divides_by_must_not_be_zero() {
    let bad = ReducedPendulum { g: 9.81, l: 0.0 };
    let err = bad.run(bad.state([0.3], [0.0])).span(0.0..1.0).go().unwrap_err();
    assert_eq!(err, SimError::InvalidParameter { name: "l", value: 0.0, reason: "the model divides by it" });
    // g = 0 is a legitimate model (no gravity): the pendulum turns uniformly.
    let free = ReducedPendulum { g: 0.0, l: 1.0 };
    let sol = free.run(free.state([0.3], [2.0])).span(0.0..1.0).go().unwrap();
    assert!((sol.last().unwrap().1[0] - 2.3).abs() < 1e-9);
    // And small-angle period 2π √(l/g) for a real one.
    let p = ReducedPendulum { g: 9.81, l: 0.5 };
    let period = 2.0 * PI * (p.l / p.g).sqrt();
    let sol = p.run(p.state([1e-4], [0.0])).span(0.0..period).rtol(1e-11).atol(1e-15).go().unwrap();
    assert!((sol.last().unwrap().1[0] - 1e-4).abs() < 1e-11, "{}", sol.last().unwrap().1[0]);
}

/// Physical constants as literals ħ = 1.054571817e-34 and 1e-40 do not fit
/// one 128-bit rational but are kept exactly as a mantissa times powers of ten; 1e40 likewise.
/// A quantum-scale oscillator m ħ ẍ = −1e-40 k x and a term 1e40·c ẋ²/2 in the mass (0e7 is 0).
#[derive(Mechanics)]
#[mechanics(
    coordinates(x),
    lagrangian = (1.054571817e-34 * m + 1e40 * c) / 2 * dot(x).powi(2) - 1e-40 * k / 2 * x.powi(2) + 0e7 * k * x,
)]
struct PhysicalConstants {
    m: f64,
    c: f64,
    k: f64,
}

#[test]
fn physical_constants_are_exact_literals() {
    let p = PhysicalConstants { m: 2.0, c: 3e-74, k: 5.0 };
    let x = p.state([0.3], [0.7]);
    let mass = 1.054571817e-34 * p.m + 1e40 * p.c;
    let a = p.accelerations(0.0, &x).unwrap()[0];
    let expected = -1e-40 * p.k * 0.3 / mass;
    assert!(((a - expected) / expected).abs() < 1e-14, "{a} vs {expected}");
    let e = p.energy(0.0, &x);
    let expected = mass / 2.0 * 0.49 + 1e-40 * p.k / 2.0 * 0.09;
    assert!(((e - expected) / expected).abs() < 1e-14, "{e} vs {expected}");
    // One period of ω = √(1e-40 k / mass): back to the start.
    let w = (1e-40 * p.k / mass).sqrt();
    let period = 2.0 * PI / w;
    let sol = p.run(x).span(0.0..period).rtol(1e-11).atol(1e-13).go().unwrap();
    let (_, end) = sol.last().unwrap();
    assert!((end[0] - 0.3).abs() < 1e-8 && (end[1] - 0.7).abs() < 1e-8, "{end}");
}

/// A damped pendulum with a bias torque τ on its joint.
#[derive(Mechanics)]
#[mechanics(
    coordinates(th),
    lagrangian = m * l.powi(2) / 2 * dot(th).powi(2) + m * g * l * th.cos(),
    force(th = tau - b * dot(th)),
    sensitivity(tau),
)]
struct BiasedPendulum {
    m: f64,
    l: f64,
    g: f64,
    b: f64,
    tau: f64,
}

#[test]
fn equilibria_continued_in_a_parameter_turn_where_the_torque_exceeds_gravity() {
    // Equilibria m g l sin θ = τ: from the hanging one (θ = 0, τ = 0) the branch rises to the fold
    // at τ = m g l, θ = π/2, where the stable equilibrium meets the unstable one and both vanish,
    // and returns along the unstable ones towards the inverted pendulum (θ = π, τ = 0).
    use routh::runtime::continuation::equilibria::split;
    use routh::runtime::continuation::{ContinuationOptions, Special, Start};
    let p = BiasedPendulum { m: 1.5, l: 0.8, g: 9.81, b: 0.3, tau: 0.0 };
    let mgl = p.m * p.g * p.l;
    let options = ContinuationOptions::default().initial_step(0.05).max_step(0.5).max_points(80).progress(false);
    let branch = p.continue_equilibria("tau", &p.state([0.0], [0.0]), Start::Increasing, &options).unwrap();
    let mut passed = 0.0f64;
    for point in &branch.points {
        let (x, tau) = split::<2>(&point.u);
        assert!((mgl * x[0].sin() - tau).abs() < 1e-10 * mgl && x[1].abs() < 1e-12, "θ = {}, τ = {tau}", x[0]);
        // Stable below the fold (both eigenvalues in the left half plane), a saddle above.
        let q = BiasedPendulum { tau, ..p };
        let j = q.jacobian(0.0, &x).unwrap();
        let saddle = j.determinant() < 0.0;
        assert_eq!(saddle, x[0] > std::f64::consts::FRAC_PI_2 + 1e-6, "θ = {}: det J = {}", x[0], j.determinant());
        passed = passed.max(x[0]);
    }
    let folds: Vec<_> = branch.special(Special::TurningPoint).collect();
    assert_eq!(folds.len(), 1, "{:?}", branch.points.iter().map(|p| p.u[2]).collect::<Vec<_>>());
    let (x, tau) = split::<2>(&folds[0].u);
    println!("fold at τ = {tau:.12} (m g l = {mgl:.12}), θ = {:.8}", x[0]);
    // (Located on the curve: the fold's τ was 1e-6 off when the bracket's interpolation was not
    // corrected onto the curve.)
    assert!((tau - mgl).abs() < 1e-12 * mgl && (x[0] - std::f64::consts::FRAC_PI_2).abs() < 1e-6, "τ = {tau}, θ = {}", x[0]);
    assert!(passed > 2.5, "the branch goes on past the fold, towards the inverted pendulum: θ reached {passed}");
    // Only the sensitivity's parameters can be continued.
    assert!(p.continue_equilibria("m", &p.state([0.0], [0.0]), Start::Increasing, &options).is_err());
}

#[test]
fn outputs_are_the_state_functions_they_name_at_every_sample() {
    let p = DoublePendulum { m1: 1.0, m2: 2.0, l1: 1.0, l2: 0.7, g: 9.81, b: 0.0 };
    let sol = p.run(p.state([1.0, 0.5], [0.3, -0.2])).span(0.0..3.0).output(Output::Interval(0.1)).go().unwrap();
    assert_eq!(DoublePendulum::OUTPUTS, ["bob[0]", "bob[1]", "bob[2]", "speed", "elbow"]);
    let obs = p.observe(&sol);
    assert_eq!(obs.times, sol.times);
    let (bx, by, speed, elbow) = (
        obs.column("bob[0]").unwrap(),
        obs.column("bob[1]").unwrap(),
        obs.column("speed").unwrap(),
        obs.column("elbow").unwrap(),
    );
    assert!(obs.column("bob[3]").is_none() && obs.column("x2").is_none());
    for (k, x) in sol.states.iter().enumerate() {
        let (a, b, da, db) = (x[0], x[1], x[2], x[3]);
        let (px, py) = (p.l1 * a.sin() + p.l2 * b.sin(), -p.l1 * a.cos() - p.l2 * b.cos());
        let (vx, vy) = (p.l1 * a.cos() * da + p.l2 * b.cos() * db, p.l1 * a.sin() * da + p.l2 * b.sin() * db);
        assert!((bx[k] - px).abs() < 1e-14 && (by[k] - py).abs() < 1e-14, "bob at {}", sol.times[k]);
        assert!((speed[k] - vx.hypot(vy)).abs() < 1e-13 && (elbow[k] - (b - a)).abs() < 1e-15);
        assert_eq!(obs.values[k][2], 0.0);
    }
    // CSV with the outputs' names as columns.
    let mut csv = Vec::new();
    obs.write_csv(&mut csv).unwrap();
    let text = String::from_utf8(csv).unwrap();
    assert_eq!(text.lines().next(), Some("t,bob[0],bob[1],bob[2],speed,elbow"));
    assert_eq!(text.lines().count(), sol.len() + 1);
    // And serde, both ways.
    let back: routh::runtime::observables::Observables = serde_json::from_str(&serde_json::to_string(&obs).unwrap()).unwrap();
    assert_eq!(back, obs);
}

#[test]
fn generated_models_run_with_the_eighth_order_pair() {
    // Options::scheme(Scheme::Dop853) through the generated `simulate`: the undamped double
    // pendulum keeps its energy to the tolerance with well under half of DOPRI5's evaluations.
    use routh::runtime::Scheme;
    let p = DoublePendulum { m1: 1.0, m2: 2.0, l1: 1.0, l2: 0.7, g: 9.81, b: 0.0 };
    let x0 = p.state([1.0, 0.5], [0.3, -0.2]);
    let e0 = p.energy(0.0, &x0);
    let run = |scheme: Scheme| {
        let sol = p.run(x0).span(0.0..10.0).scheme(scheme).rtol(1e-12).atol(1e-14).go().unwrap();
        let drift = sol.iter().fold(0.0f64, |d, (t, x)| d.max((p.energy(t, x) - e0).abs() / e0.abs()));
        (drift, sol.stats.evaluations)
    };
    let ((d5, n5), (d8, n8)) = (run(Scheme::Dopri5), run(Scheme::Dop853));
    println!("double pendulum, 10 s at rtol 1e-12: DOPRI5 {n5} evaluations (drift {d5:.1e}), DOP853 {n8} ({d8:.1e})");
    assert!(d8 < 1e-10 && d5 < 1e-10, "{d8:e} {d5:e}");
    assert!(2 * n8 < n5, "{n8} against {n5}");
}
