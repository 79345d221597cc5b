//! Periodic orbits of hybrid systems. Variational equations along hybrid runs (*Hybrid periodic orbits*, `docs/references.md` §2.2, §2.4, §4.1): the bouncing ball's saltation matrix,
//! monodromy and Poincaré-map Jacobian against their closed forms, the transition identities of
//! Lemma 2.3, and a smooth flow Jacobian against finite differences of the flow.

mod common;

use common::rel_err;
use routh::nalgebra::{Matrix2, SMatrix, SVector, Vector2};
use routh::prelude::*;
use routh::runtime::{HybridSystem, hybrid_flow_jacobian, poincare_jacobian};

#[allow(dead_code)]
mod models {
    use routh::prelude::*;
    include!("../benches/periodic_models.rs");
}
use models::{Ball, RockingBlock, Rod};

fn tight() -> HybridOptions {
    HybridOptions::default().rtol(1e-12).atol(1e-13)
}

#[test]
fn bouncing_ball_monodromy_and_poincare_jacobian_match_the_closed_forms() {
    // B1, B3: from the apex [H̄, 0] the period is T = √(8H̄) (m = g = 1); Φ_T = [[1, 0], [√(2/H̄), 1]]
    // (a Jordan block: eigenvalues 1, 1), the impact's saltation S = [[−1, 0], [2g/v, −1]] with
    // v = √(2gH̄), and on the apex anchor a = ẏ, dP = [[1, 0], [0, 0]].
    let ball = Ball { m: 1.0, g: 1.0, e: 1.0 };
    for hbar in [0.5f64, 1.0, 2.0] {
        let period = (8.0 * hbar).sqrt();
        let x0 = ball.state([hbar], [0.0]);
        let run = ball.run(x0).span(0.0..period).options(tight()).go().unwrap();
        assert_eq!(run.impacts.len(), 1);
        let flow = hybrid_flow_jacobian(&ball, &run, &tight().ode).unwrap();
        let v = (2.0 * hbar).sqrt();
        let s = Matrix2::new(-1.0, 0.0, 2.0 / v, -1.0);
        assert!((flow.saltations[0] - s).amax() < 1e-9, "S = {}", flow.saltations[0]);
        let monodromy = Matrix2::new(1.0, 0.0, (2.0 / hbar).sqrt(), 1.0);
        assert!((flow.matrix - monodromy).amax() < 1e-8, "H̄ = {hbar}: Φ_T = {}", flow.matrix);
        // G4: Φ_T f(x₀) = f(x₀) and dH Φ_T = dH (two eigenvalues 1).
        let f0 = ball.mode_field(0, 0.0, &x0).unwrap();
        assert!((flow.matrix * f0 - f0).amax() < 1e-8);
        let dh = Vector2::new(ball.m * ball.g, 0.0); // dH at the apex: (m g, m ẏ) = (1, 0)
        assert!((flow.matrix.transpose() * dh - dh).amax() < 1e-8);
        // The Poincaré map on the apex: dP = [[1, 0], [0, 0]], eigenvalues {1, 0} (a normal orbit).
        let f_end = ball.mode_field(0, period, &flow.end).unwrap();
        let dp = poincare_jacobian(&flow.matrix, &f_end, &Vector2::new(0.0, 1.0));
        assert!((dp - Matrix2::new(1.0, 0.0, 0.0, 0.0)).amax() < 1e-8, "dP = {dp}");
        assert!((dp * f0).amax() < 1e-8, "dP f = 0");
    }
    // (The state-based value of the reference derivation at H̄ = 1: Φ_T lower-left = 1.414214.)
}

#[test]
fn saltation_maps_the_field_and_the_energy_gradient_across_a_dissipative_impact() {
    // Lemma 2.3 (G3): S f⁻ = f⁺ at any reset; for an elastic reset also dH⁺ S = dH⁻. With e = 0.5
    // the field identity still holds and the energy's does not (the impact is not conservative).
    for e in [1.0, 0.5] {
        let ball = Ball { m: 0.7, g: 9.81, e };
        let run = ball.run(ball.state([1.3], [0.4])).span(0.0..0.8).options(tight()).go().unwrap();
        let imp = &run.impacts[0];
        let s = routh::runtime::saltation(&ball, (0, 0, 0), imp.t, (&imp.pre, &imp.post)).unwrap();
        let (fm, fp) = (ball.mode_field(0, imp.t, &imp.pre).unwrap(), ball.mode_field(0, imp.t, &imp.post).unwrap());
        assert!((s * fm - fp).amax() < 1e-12, "S f⁻ = f⁺ (e = {e})");
        let dh = |x: &SVector<f64, 2>| Vector2::new(ball.m * ball.g, ball.m * x[1]);
        let defect = (s.transpose() * dh(&imp.post) - dh(&imp.pre)).amax();
        if e == 1.0 {
            assert!(defect < 1e-12, "dH⁺ S = dH⁻: {defect:e}");
        } else {
            assert!(defect > 1e-2, "a dissipative reset breaks dH⁺ S = dH⁻");
        }
    }
}

/// A pendulum with a wall: the flow Jacobian through several impacts against finite differences of
/// the hybrid flow itself.
#[derive(Mechanics)]
#[mechanics(
    coordinates(th),
    lagrangian = l.powi(2) / 2 * dot(th).powi(2) + g * l * th.cos(),
    impact(name = wall, guard = wall - th, law = restitution(e)),
)]
struct WallPendulum {
    l: f64,
    g: f64,
    e: f64,
    wall: f64,
}

#[test]
fn hybrid_flow_jacobian_matches_finite_differences_of_the_flow() {
    let p = WallPendulum { l: 1.0, g: 9.81, e: 0.8, wall: 0.3 };
    let x0 = p.state([-0.6], [0.5]);
    let t_end = 3.0;
    let end = |x: &SVector<f64, 2>| {
        let run = p.run(*x).span(0.0..t_end).options(tight()).go().unwrap();
        (*run.last().unwrap().2, run.impacts.len())
    };
    let run = p.run(x0).span(0.0..t_end).options(tight()).go().unwrap();
    assert!(run.impacts.len() >= 2, "{} impacts", run.impacts.len());
    let flow = hybrid_flow_jacobian(&p, &run, &tight().ode).unwrap();
    assert!((flow.end - run.last().unwrap().2).amax() < 1e-8);
    let h = 1e-6;
    let mut fd = SMatrix::<f64, 2, 2>::zeros();
    for c in 0..2 {
        let (mut xp, mut xm) = (x0, x0);
        xp[c] += h;
        xm[c] -= h;
        let ((ep, np), (em, nm)) = (end(&xp), end(&xm));
        assert_eq!((np, nm), (run.impacts.len(), run.impacts.len()), "same impact sequence");
        fd.set_column(c, &((ep - em) / (2.0 * h)));
    }
    assert!(rel_err(&flow.matrix, &fd) < 1e-5, "{} against {fd}", flow.matrix);
}

#[test]
fn single_shooting_finds_the_bouncing_ball_orbits_and_continues_them_in_energy() {
    // B1: on the family of elastic bouncing orbits T = √(8H̄) (m = g = 1), the apex state is (H̄, 0)
    // and ξ = 0 (Thm 3.1); the monodromy has the double multiplier 1 (G4).
    use routh::runtime::periodic::{Section, ShootingOptions, continue_orbits, find_periodic_orbit};
    let ball = Ball { m: 1.0, g: 1.0, e: 1.0 };
    let anchor = |x: &SVector<f64, 2>| x[1];
    let gradient = |_x: &SVector<f64, 2>| Vector2::new(0.0, 1.0);
    let section = Section { anchor: &anchor, gradient: &gradient, mode: 0, resets: 1, max_time: 20.0 };
    let opts = ShootingOptions::default();
    let orbit = find_periodic_orbit(&ball, &section, &Vector2::new(1.2, 0.1), 1.0, &opts).unwrap();
    assert!((orbit.state - Vector2::new(1.0, 0.0)).amax() < 1e-8, "apex {}", orbit.state);
    assert!((orbit.period - 8f64.sqrt()).abs() < 1e-8, "T = {}", orbit.period);
    assert!(orbit.xi.abs() < 1e-10, "ξ = {}", orbit.xi);
    for (re, im) in orbit.multipliers() {
        assert!((re - 1.0).abs() < 1e-6 && im.abs() < 1e-6, "multiplier {re} + {im}i");
    }
    let family = continue_orbits(&ball, &section, &orbit, (0.1, 8, true), &opts).unwrap();
    assert_eq!(family.len(), 9);
    let mut last = 1.0;
    for o in &family {
        assert!((o.period - (8.0 * o.energy).sqrt()).abs() < 1e-7, "H̄ = {}: T = {} against √(8H̄)", o.energy, o.period);
        assert!(o.xi.abs() < 1e-9, "ξ = {}", o.xi);
        assert!(o.energy >= last - 1e-12, "energy increases along the branch");
        last = o.energy;
    }
    eprintln!("bouncing ball branch: H̄ from 1 to {:.4}, T = {:.6} (√(8H̄) = {:.6})", last, family[8].period, (8.0 * last).sqrt());
    assert!(last > 1.3);
}

#[test]
fn a_dissipative_ball_has_no_periodic_orbit_and_says_so() {
    // With e = 0.5 every bounce loses energy: shooting converges only with the embedding's ξ far
    // from zero (an orbit of f + ξ∇H, not of the model), which is an error, not an orbit.
    use routh::runtime::periodic::{Section, ShootingOptions, find_periodic_orbit};
    let ball = Ball { m: 1.0, g: 1.0, e: 0.5 };
    let anchor = |x: &SVector<f64, 2>| x[1];
    let gradient = |_x: &SVector<f64, 2>| Vector2::new(0.0, 1.0);
    let section = Section { anchor: &anchor, gradient: &gradient, mode: 0, resets: 1, max_time: 20.0 };
    let opts = ShootingOptions::default();
    match find_periodic_orbit(&ball, &section, &Vector2::new(1.2, 0.1), 1.0, &opts) {
        Err(SimError::NotPeriodic { energy, xi, tolerance }) => {
            assert!((energy - 1.0).abs() < 1e-12 && xi.abs() > 0.1 && tolerance == opts.xi_tolerance, "ξ = {xi}");
        }
        other => panic!("a dissipative ball has no periodic orbit, got {other:?}"),
    }
    // The elastic ball at the same energy still has its orbit, with ξ at round-off.
    let elastic = Ball { m: 1.0, g: 1.0, e: 1.0 };
    let orbit = find_periodic_orbit(&elastic, &section, &Vector2::new(1.2, 0.1), 1.0, &opts).unwrap();
    assert!(orbit.xi.abs() < 1e-10);
    // Errors in the terms of shooting: a NaN target energy is an invalid argument (it was reported
    // as a failed "discrete step"), and a continuation step that leaves the family is a stopped
    // continuation whose message says to take a smaller step (it said "no return to the Poincaré
    // section (Finished)").
    match find_periodic_orbit(&elastic, &section, &Vector2::new(1.2, 0.1), f64::NAN, &opts) {
        Err(SimError::InvalidArgument(msg)) => assert!(msg.contains("energy"), "{msg}"),
        other => panic!("{other:?}"),
    }
    match routh::runtime::periodic::continue_orbits(&elastic, &section, &orbit, (50.0, 3, false), &opts).map_err(SimError::from) {
        Err(e @ SimError::ContinuationStopped { parameter, .. }) => {
            assert!(e.to_string().contains("smaller step") && parameter.is_finite(), "{e}");
        }
        other => panic!("{other:?}"),
    }
    // A family continued down to H̄ = 0, where the orbits shrink to the ball at rest on the floor,
    // cannot go on; the orbits found before are kept with the error (they were discarded), each
    // still T = √(8H̄).
    let failure = routh::runtime::periodic::continue_orbits(&elastic, &section, &orbit, (0.3, 10, false), &opts).unwrap_err();
    let kept = failure.partial.expect("the orbits before the failure");
    assert!(kept.len() >= 4 && kept.len() < 11, "{} orbits: {:?}", kept.len(), failure.error);
    for o in kept.iter() {
        assert!(o.energy > 0.0 && (o.period - (8.0 * o.energy).sqrt()).abs() < 1e-7, "H̄ = {}: T = {}", o.energy, o.period);
    }
    assert!(kept.last().is_some_and(|o| o.energy < 0.2), "{:?}", kept.iter().map(|o| o.energy).collect::<Vec<_>>());
}

#[test]
fn rocking_block_periods_match_the_reference_table() {
    // K2: T(α₀) on the section [α₀, 0] with H̄ = cos(α₀ − β) − cos β, to 1e-6; K4: Φ_T at α₀ = 0.15.
    use routh::runtime::periodic::{Section, ShootingOptions, find_periodic_orbit};
    let block = RockingBlock { m: 1.0, l: 1.0, g: 1.0, beta: 0.3 };
    let anchor = |x: &SVector<f64, 2>| x[1];
    let gradient = |_x: &SVector<f64, 2>| Vector2::new(0.0, 1.0);
    let section = Section { anchor: &anchor, gradient: &gradient, mode: 0, resets: 1, max_time: 60.0 };
    let opts = ShootingOptions::default();
    let table = [
        (0.010, 0.0029074, 0.609064),
        (0.050, 0.0135759, 1.445333),
        (0.100, 0.0247301, 2.231438),
        (0.150, 0.0334346, 3.049431),
        (0.200, 0.0396677, 4.077528),
        (0.250, 0.0434138, 5.727610),
        (0.280, 0.0444635, 7.856681),
        (0.290, 0.0446135, 9.459235),
        (0.299, 0.0446630, 14.777407),
    ];
    let mut worst: f64 = 0.0;
    for (alpha0, hbar, period) in table {
        let energy = (alpha0 - block.beta).cos() - block.beta.cos();
        assert!((energy - hbar).abs() < 1e-7, "H̄({alpha0}) = {energy}");
        let orbit = find_periodic_orbit(&block, &section, &Vector2::new(alpha0 * 0.98, 0.0), energy, &opts).unwrap();
        assert!((orbit.state[0] - alpha0).abs() < 1e-8 && orbit.xi.abs() < 1e-10);
        worst = worst.max((orbit.period - period).abs());
        assert!((orbit.period - period).abs() < 1e-6, "α₀ = {alpha0}: T = {} against {period}", orbit.period);
        if alpha0 == 0.15 {
            let expected = Matrix2::new(1.0, 0.0, 1.98983, 1.0);
            assert!((orbit.monodromy - expected).amax() < 1e-5, "Φ_T = {}", orbit.monodromy);
        }
    }
    eprintln!("rocking block: largest period error against reference run R11 {worst:.1e}");
}

#[test]
fn a_branch_is_data_with_its_indicators() {
    // The ball's branch has no turning point and no bifurcation; as data it round-trips through
    // JSON and writes CSV with one line per point.
    use routh::runtime::periodic::{
        BranchPoint, Section, ShootingOptions, continue_orbits, find_periodic_orbit, write_branch_csv,
    };
    let ball = Ball { m: 1.0, g: 1.0, e: 1.0 };
    let anchor = |x: &SVector<f64, 2>| x[1];
    let gradient = |_x: &SVector<f64, 2>| Vector2::new(0.0, 1.0);
    let section = Section { anchor: &anchor, gradient: &gradient, mode: 0, resets: 1, max_time: 20.0 };
    let opts = ShootingOptions::default();
    let start = find_periodic_orbit(&ball, &section, &Vector2::new(0.5, 0.0), 0.5, &opts).unwrap();
    let family = continue_orbits(&ball, &section, &start, (0.1, 4, true), &opts).unwrap();
    assert!(family.iter().all(|o| !o.turning_point && !o.bifurcation));
    let points: Vec<BranchPoint> = family.iter().map(BranchPoint::from).collect();
    let json = serde_json::to_string(&points).unwrap();
    let back: Vec<BranchPoint> = serde_json::from_str(&json).unwrap();
    assert_eq!(back, points);
    let mut csv = Vec::new();
    write_branch_csv(&mut csv, &points).unwrap();
    let text = String::from_utf8(csv).unwrap();
    assert_eq!(
        text.lines().next(),
        Some("energy,period,xi,x0_1,x0_2,multipliers,turning_point,bifurcation,period_doubling,durations")
    );
    assert_eq!(text.lines().count(), 1 + points.len());
}

// Time-based multiple shooting and continuation (*Hybrid periodic orbits* §3.3–3.4, §4;
// reference runs R7, R8 of `docs/references.md`): the bouncing ball from the resting state by
// Lyapunov–Schmidt branching (B1, B4), the rocking block's family (K2, K3), and the bouncing
// rod's symmetric family with its turning points, simple bifurcation, period doubling and the
// non-symmetric family (R1, R2, R5), orbits checked by event-driven re-simulation (G7).

use routh::nalgebra::{DMatrix, DVector, Vector4};
use routh::runtime::continuation::{
    BranchStop, ContinuationOptions, Problem, Special, Start, branch_directions, continuation, correct_at_parameter,
};
use routh::runtime::periodic::{Anchor, MultipleShooting, Phase};

fn ode() -> Options {
    Options::default().rtol(1e-12).atol(1e-13)
}

/// Central differences of r against the analytic Jacobian (31) (G5).
fn check_jacobian<P: Problem>(problem: &P, u: &DVector<f64>) -> f64 {
    let (_, j) = problem.linearize(u).unwrap();
    let mut fd = DMatrix::zeros(j.nrows(), j.ncols());
    for c in 0..u.len() {
        let h = 1e-6 * u[c].abs().max(1.0);
        let (mut up, mut um) = (u.clone(), u.clone());
        up[c] += h;
        um[c] -= h;
        let col = (problem.linearize(&up).unwrap().0 - problem.linearize(&um).unwrap().0) / (2.0 * h);
        fd.set_column(c, &col);
    }
    (&j - &fd).amax() / j.amax()
}

#[test]
fn bouncing_ball_branches_off_the_resting_state_and_follows_t_equals_root_8h() {
    let ball = Ball { m: 1.0, g: 1.0, e: 1.0 };
    let value = |x: &SVector<f64, 2>| x[1];
    let gradient = |_x: &SVector<f64, 2>| Vector2::new(0.0, 1.0);
    let shooting =
        MultipleShooting::new(&ball, &[Phase { mode: 0, guard: 0 }], Anchor { value: &value, gradient: &gradient }, &ode())
            .unwrap();
    // G8: dim u = 8, N = 7; u = [t₂, y₂, ẏ₂, t₁, y₁, ẏ₁, ξ, H̄].
    assert_eq!(shooting.unknowns(), 8);
    // The resting ball with zero durations solves r = 0 (B4) and is a simple bifurcation point:
    // the LS tangents are e_ξ (the spurious ξ-line) and (1, 0, g, 1, 0, 0, 0, 0)/√(2 + g²).
    let u0 = DVector::zeros(8);
    let (r, _) = shooting.linearize(&u0).unwrap();
    assert_eq!(r.amax(), 0.0);
    let dirs = branch_directions(&shooting, &u0, 1e-6).unwrap();
    let expected = DVector::from_vec(vec![1.0, 0.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0]) / 3f64.sqrt();
    let mut xi_line = DVector::zeros(8);
    xi_line[6] = 1.0;
    let align = |a: &DVector<f64>, b: &DVector<f64>| 1.0 - a.dot(b).abs();
    let (orbit_dir, other) = if dirs[0][0].abs() > dirs[1][0].abs() { (&dirs[0], &dirs[1]) } else { (&dirs[1], &dirs[0]) };
    assert!(align(orbit_dir, &expected) < 1e-8, "τ₂ = {orbit_dir}");
    assert!(align(other, &xi_line) < 1e-8, "τ₁ = {other}");
    eprintln!("ball LS tangents at u₀ = 0: τ₂ = {:.6}, τ₁ = {:.6}", orbit_dir.transpose(), other.transpose());
    // Branch off towards t₂ > 0 and continue to H̄ = 2 (B1: T = √(8H̄), ξ = 0, apex (H̄, 0)).
    let along = if orbit_dir[0] > 0.0 { orbit_dir.clone() } else { -orbit_dir };
    let opts = ContinuationOptions::default().initial_step(1e-2).max_step(0.3).target(2.0);
    let branch = continuation(&shooting, &u0, Start::Along(along.clone()), &opts).unwrap();
    assert_eq!(branch.stop, BranchStop::Target);
    assert!(
        branch.special(Special::TurningPoint).next().is_none() && branch.special(Special::SimpleBifurcation).next().is_none()
    );
    let mut worst: f64 = 0.0;
    for p in &branch.points[1..] {
        let s = shooting.solution(&p.u).unwrap();
        let hbar = s.energy;
        worst = worst.max((s.period - (8.0 * hbar).sqrt()).abs());
        assert!(s.xi.abs() < 1e-10, "ξ = {}", s.xi);
        assert!((s.phases[0].start - Vector2::new(hbar, 0.0)).amax() < 1e-8, "apex {}", s.phases[0].start);
        assert!(shooting.realizability(&p.u).unwrap().is_physical(1e-8), "H̄ = {hbar}");
    }
    assert!(worst < 1e-8, "T against √(8H̄): {worst:e}");
    let last = branch.points.last().unwrap();
    assert!((last.u[7] - 2.0).abs() < 1e-12);
    let s = shooting.solution(&last.u).unwrap();
    assert!((s.period - 4.0).abs() < 1e-9, "T(2) = {}", s.period);
    // B3 by multiple shooting: Φ_T = [[1, 0], [√(2/H̄), 1]].
    assert!((s.monodromy[(1, 0)] - 1.0).abs() < 1e-8 && (s.monodromy[(0, 0)] - 1.0).abs() < 1e-8, "Φ_T = {}", s.monodromy);
    eprintln!("ball: {} points to H̄ = 2 ({} rejected), T − √(8H̄) at most {worst:.1e}", branch.points.len(), branch.rejected);
    assert!(check_jacobian(&shooting, &last.u) < 1e-6);
    // B5: the repository's fixed-step run — a branch step of 1e-2 from u₀, then 300 steps of 1e-2
    // in arclength — ends near (H̄, T) ≈ (1.0498, 2.8980), with no special point and ξ at round-off.
    let fixed = ContinuationOptions::default().initial_step(1e-2).min_step(1e-2).max_step(1e-2).max_points(301).progress(false);
    let run = continuation(&shooting, &u0, Start::Along(along), &fixed).unwrap();
    assert_eq!((run.points.len(), run.rejected), (302, 0), "u₀ and 301 steps");
    let end = shooting.solution(&run.points.last().unwrap().u).unwrap();
    assert!((end.energy - 1.0498).abs() < 1e-4 && (end.period - 2.8980).abs() < 1e-4, "B5 end ({}, {})", end.energy, end.period);
    assert!(run.points.iter().all(|p| p.special.is_none() && p.u[6].abs() < 1e-12));
    eprintln!("ball B5: fixed steps end at H̄ = {:.6}, T = {:.6}", end.energy, end.period);
}

/// The symmetric family in closed form (reference run R8, m = g = l = 1), by the impact angle θ:
/// (H̄, T, apex state).
fn symmetric(r: f64, theta: f64) -> (f64, f64, Vector4<f64>) {
    let t1 = (2.0 * r * r * theta / theta.cos()).sqrt();
    let omega = theta / t1;
    let hbar = r * r * theta / theta.cos() + 0.5 * theta.sin() + 0.25 * theta * theta.cos();
    (hbar, 4.0 * t1, Vector4::new(0.5 * t1 * t1 + 0.5 * theta.sin(), 0.0, 0.0, omega))
}

#[test]
fn bouncing_rod_turning_points_bifurcation_and_the_non_symmetric_family() {
    let rod = Rod { m: 1.0, g: 1.0, l: 1.0, r: 0.01, e: 1.0 };
    let value = |x: &SVector<f64, 4>| x[2];
    let gradient = |_x: &SVector<f64, 4>| Vector4::new(0.0, 0.0, 1.0, 0.0);
    let phases = [Phase { mode: 0, guard: 0 }, Phase { mode: 0, guard: 1 }];
    let shooting = MultipleShooting::new(&rod, &phases, Anchor { value: &value, gradient: &gradient }, &ode()).unwrap();
    assert_eq!(shooting.unknowns(), 17, "erratum S1: dim u = 17, N = 16");
    let (h0, _, x0) = symmetric(rod.r, 0.6);
    let guess = shooting.guess(&x0, 0.0, 10.0).unwrap();
    let opts = ContinuationOptions::default().initial_step(0.05).max_step(2.0).target(0.6).max_points(2000);
    let start = correct_at_parameter(&shooting, &guess, h0, &opts).unwrap();
    let branch = continuation(&shooting, &start.u, Start::Increasing, &opts).unwrap();
    assert_eq!(branch.stop, BranchStop::Target);
    let solution = |u: &DVector<f64>| shooting.solution(u).unwrap();
    // R1: H̄ rises to TP1, falls to TP2, then the period doubling (R5) and the SB, then rises.
    let tps: Vec<_> = branch.special(Special::TurningPoint).map(|p| solution(&p.u)).collect();
    let sbs: Vec<_> = branch.special(Special::SimpleBifurcation).collect();
    let pds: Vec<_> = branch.special(Special::PeriodDoubling).map(|p| solution(&p.u)).collect();
    assert_eq!((tps.len(), sbs.len(), pds.len()), (2, 1, 1), "special points");
    let sb = solution(&sbs[0].u);
    // Closed forms (reference run R8): the turning points are the extrema of H̄(θ) on the symmetric
    // family; the SB lies where the impact angle is θ* = arccos(2r/l).
    let dh = |th: f64| (symmetric(rod.r, th + 1e-7).0 - symmetric(rod.r, th - 1e-7).0) / 2e-7;
    let root = |mut a: f64, mut b: f64| {
        for _ in 0..80 {
            let c = 0.5 * (a + b);
            if dh(a) * dh(c) <= 0.0 { b = c } else { a = c }
        }
        0.5 * (a + b)
    };
    let (tp1, tp2) = (symmetric(rod.r, root(1.0, 1.4)), symmetric(rod.r, root(1.5, 1.5507)));
    let theta_star = (2.0 * rod.r).acos();
    let sb_closed = (rod.r * theta_star + 0.5 * (1.0 - 4.0 * rod.r * rod.r).sqrt(), 4.0 * (rod.r * theta_star).sqrt());
    let table = [
        ("TP1", &tps[0], (tp1.0, tp1.1), (0.5750798, 0.1018184)),
        ("TP2", &tps[1], (tp2.0, tp2.1), (0.5154026, 0.4913890)),
        ("SB", &sb, sb_closed, (0.5154079, 0.4981237)),
    ];
    for (name, s, closed, reference) in table {
        eprintln!(
            "rod {name}: H̄ = {:.9}, T = {:.9}; closed form ({:.9}, {:.9}); errors {:.1e}, {:.1e}",
            s.energy,
            s.period,
            closed.0,
            closed.1,
            (s.energy - closed.0).abs(),
            (s.period - closed.1).abs()
        );
        assert!((s.energy - closed.0).abs() < 1e-7 && (s.period - closed.1).abs() < 1e-6, "{name}");
        assert!((s.energy - reference.0).abs() < 1e-6 && (s.period - reference.1).abs() < 1e-6, "{name} against R8");
    }
    // R5: a multiplier passes −1 between TP2 and the SB (T ≈ 0.4948, H̄ ≈ 0.515404).
    let pd = &pds[0];
    assert!(pd.period > tps[1].period && pd.period < sb.period && (pd.period - 0.4948).abs() < 1e-4);
    assert!(pd.multipliers().iter().any(|(re, im)| (re + 1.0).abs() < 1e-6 && im.abs() < 1e-6), "{:?}", pd.multipliers());
    eprintln!("rod period doubling: H̄ = {:.9}, T = {:.9}, multipliers {:?}", pd.energy, pd.period, pd.multipliers());
    // As data: the located point carries its flag and durations, and round-trips through JSON.
    let data = shooting.branch_point(branch.special(Special::PeriodDoubling).next().unwrap()).unwrap();
    assert!(data.period_doubling && !data.bifurcation && data.durations.len() == 3);
    assert!((data.durations.iter().sum::<f64>() - pd.period).abs() < 1e-15);
    let back: routh::runtime::periodic::BranchPoint = serde_json::from_str(&serde_json::to_string(&data).unwrap()).unwrap();
    assert_eq!(back, data);
    // Every point: ξ at round-off (G6); the located TP1 and the end are physical (realizability).
    assert!(branch.points.iter().all(|p| p.u[shooting.xi_index()].abs() < 1e-9));
    let end = solution(&branch.points.last().unwrap().u);
    assert!((end.period - 1.783311).abs() < 1e-6, "T(0.6) = {}", end.period);
    for p in [branch.special(Special::TurningPoint).next().unwrap(), branch.points.last().unwrap()] {
        // The re-simulation's event times agree to 1e-7; its return to x̄₁ only to the event
        // location error (~1e-12 in t, times a spin near 47) amplified by a monodromy with
        // entries up to 1e5, hence the looser bound on the whole test.
        let real = shooting.realizability(&p.u).unwrap();
        assert!(real.time_error < 1e-7 && real.is_physical(1e-4), "{real:?}");
    }
    // R2: the symmetric orbit of period 0.8 at H̄ = 0.5230384 (after the SB).
    let after = branch.points.iter().position(|p| p.special == Some(Special::SimpleBifurcation)).unwrap();
    let near = branch.points[after..].iter().find(|p| p.u[16] > 0.5230384).unwrap();
    let at = correct_at_parameter(&shooting, &near.u, 0.5230384, &opts).unwrap();
    assert!((solution(&at.u).period - 0.8).abs() < 1e-6, "T = {}", solution(&at.u).period);
    // Branch switching at the SB onto the non-symmetric family: every impact at θ* (cos θ* = 2r),
    // t₁ = t₃, t₂ = 2rθ*/t₁, H̄ = t₁²/2 + ½ sin θ* + r²θ*²/(2t₁²); at T = 0.8, H̄ = 0.5643920.
    let dirs = branch_directions(&shooting, &sbs[0].u, 1e-6).unwrap();
    let new = if dirs[0].dot(&sbs[0].direction).abs() < dirs[1].dot(&sbs[0].direction).abs() { &dirs[0] } else { &dirs[1] };
    // The located point's direction is its branch's tangent: one of the two LS roots.
    let along_old = dirs[0].dot(&sbs[0].direction).abs().max(dirs[1].dot(&sbs[0].direction).abs());
    assert!(1.0 - along_old < 1e-9, "the SB's direction against the LS roots: {along_old}");
    let green = continuation(&shooting, &sbs[0].u, Start::Along(new.clone()), &opts.clone().initial_step(1e-3).target(0.5643920))
        .unwrap();
    assert_eq!(green.stop, BranchStop::Target);
    for p in &green.points[1..] {
        let s = solution(&p.u);
        let t = s.durations();
        assert!((t[0] - t[2]).abs() < 1e-7 && (t[1] - 2.0 * rod.r * theta_star / t[0]).abs() < 1e-7, "durations {t:?}");
        let closed = 0.5 * t[0] * t[0] + 0.5 * theta_star.sin() + (rod.r * theta_star).powi(2) / (2.0 * t[0] * t[0]);
        assert!((s.energy - closed).abs() < 1e-8, "H̄ = {} against {closed}", s.energy);
        assert!((s.phases[0].end[1].abs() - theta_star).abs() < 1e-7, "impact angle {}", s.phases[0].end[1]);
    }
    let last = green.points.last().unwrap();
    let s = solution(&last.u);
    assert!((s.period - 0.8).abs() < 1e-6, "non-symmetric T = {}", s.period);
    // Realizable to the round-off of one impact law amplified by the monodromy (entries up to
    // 1e5): solving the laws' saddle points by the Schur complement of M or by LU of the whole
    // matrix agrees to 1e-13 at every impact of this test, yet moves the re-simulated event times
    // from 7e-11 to 1.4e-7 off the shooting durations.
    let real = shooting.realizability(&last.u).unwrap();
    assert!(real.is_physical(1e-6), "{real:?}");
    eprintln!(
        "rod: symmetric branch {} points ({} rejected) to H̄ = 0.6 (T = {:.7}); non-symmetric branch {} points to T = {:.7}, t = {:?}",
        branch.points.len(),
        branch.rejected,
        end.period,
        green.points.len(),
        s.period,
        s.durations()
    );
}

#[test]
fn rocking_block_branches_off_rest_and_meets_the_period_table() {
    // K3: the LS tangent at u₀ = 0 is (1, 0, p sin β, 1, 0, 0, 0, 0)/norm; K2: T(α₀) along the
    // branch to 1e-6; K1: H̄ stays below 1 − cos β.
    let block = RockingBlock { m: 1.0, l: 1.0, g: 1.0, beta: 0.3 };
    let value = |x: &SVector<f64, 2>| x[1];
    let gradient = |_x: &SVector<f64, 2>| Vector2::new(0.0, 1.0);
    let shooting =
        MultipleShooting::new(&block, &[Phase { mode: 0, guard: 0 }], Anchor { value: &value, gradient: &gradient }, &ode())
            .unwrap();
    let u0 = DVector::zeros(8);
    let dirs = branch_directions(&shooting, &u0, 1e-6).unwrap();
    let ps = 0.75 * 0.3f64.sin();
    let expected = DVector::from_vec(vec![1.0, 0.0, ps, 1.0, 0.0, 0.0, 0.0, 0.0]).normalize();
    let orbit_dir = if dirs[0][0].abs() > dirs[1][0].abs() { &dirs[0] } else { &dirs[1] };
    assert!(1.0 - orbit_dir.dot(&expected).abs() < 1e-8, "τ = {orbit_dir}");
    let along = if orbit_dir[0] > 0.0 { orbit_dir.clone() } else { -orbit_dir };
    let hmax = 1.0 - 0.3f64.cos();
    let table = [(0.05, 1.445333), (0.10, 2.231438), (0.15, 3.049431), (0.20, 4.077528), (0.25, 5.727610), (0.28, 7.856681)];
    let mut start = u0;
    let mut leave = Start::Along(along);
    let mut worst: f64 = 0.0;
    for (alpha0, period) in table {
        let hbar = (alpha0 - 0.3f64).cos() - 0.3f64.cos();
        let opts = ContinuationOptions::default().initial_step(1e-2).max_step(0.5).target(hbar);
        let branch = continuation(&shooting, &start, leave, &opts).unwrap();
        assert_eq!(branch.stop, BranchStop::Target);
        for p in &branch.points {
            assert!(p.u[7] < hmax && p.u[6].abs() < 1e-9, "H̄ = {}, ξ = {:e}", p.u[7], p.u[6]);
        }
        let last = branch.points.last().unwrap();
        let s = shooting.solution(&last.u).unwrap();
        assert!((s.phases[0].start[0] - alpha0).abs() < 1e-9, "apex α₀ = {}", s.phases[0].start[0]);
        worst = worst.max((s.period - period).abs());
        assert!((s.period - period).abs() < 1e-6, "α₀ = {alpha0}: T = {} against {period}", s.period);
        assert!(shooting.realizability(&last.u).unwrap().is_physical(1e-7));
        start = last.u.clone();
        leave = Start::Increasing;
    }
    eprintln!("rocking block by multiple shooting: largest period error against K2 {worst:.1e}");
}

#[test]
fn the_energy_gradient_and_hessian_of_the_embedding_are_generated_exactly() {
    // E = m/2 (ẏ² + r² α̇²) + m g y: ∇E = (m g, 0, m ẏ, m r² α̇), ∇²E = diag(0, 0, m, m r²), exactly
    // (the embedding f̃ = f + ξ∇E and its variational equations use them).
    use routh::runtime::HybridSystem;
    let rod = Rod { m: 1.3, g: 9.81, l: 1.0, r: 0.2, e: 1.0 };
    let x = Vector4::new(0.7, 0.4, -1.1, 3.0);
    let grad = rod.mode_energy_gradient(0, 0.0, &x);
    assert_eq!(grad, Vector4::new(1.3 * 9.81, 0.0, -1.3 * 1.1, 1.3 * 0.04 * 3.0));
    let hess = rod.mode_energy_hessian(0, 0.0, &x);
    assert_eq!(hess, routh::nalgebra::Matrix4::from_diagonal(&Vector4::new(0.0, 0.0, 1.3, 1.3 * 0.04)));
    assert_eq!(rod.mode_dimension(0), 4);
}

/// A pendulum in Cartesian coordinates, its rod a holonomic constraint, bouncing elastically off a
/// wall through its pivot (x = 0): a conservative hybrid system with a constrained mode.
#[derive(Mechanics)]
#[mechanics(
    coordinates(x, y),
    lagrangian = m / 2 * (dot(x).powi(2) + dot(y).powi(2)) - m * g * y,
    holonomic(rod = x.powi(2) + y.powi(2) - l.powi(2)),
    impact(name = wall, guard = x, law = restitution(1)),
)]
struct CartesianWallPendulum {
    m: f64,
    g: f64,
    l: f64,
}

#[test]
fn a_constrained_pendulum_bouncing_off_a_wall_has_the_multipliers_of_its_manifold() {
    use routh::runtime::periodic::{Section, ShootingOptions, find_periodic_orbit};
    let p = CartesianWallPendulum { m: 1.0, g: 9.81, l: 1.0 };
    let anchor = |x: &SVector<f64, 4>| x[2];
    let gradient = |_x: &SVector<f64, 4>| SVector::<f64, 4>::new(0.0, 0.0, 1.0, 0.0);
    let section = Section { anchor: &anchor, gradient: &gradient, mode: 0, resets: 1, max_time: 20.0 };
    let th0: f64 = 0.6;
    let x0 = p.state([p.l * th0.sin(), -p.l * th0.cos()], [0.0, 0.0]);
    let energy = p.energy(0.0, &x0);
    let opts = ShootingOptions::default();
    let orbit = find_periodic_orbit(&p, &section, &x0, energy, &opts).unwrap();
    // Constrained vs coordinates that solve the constraint: half the pendulum's period at the
    // amplitude θ₀, T = 2 √(l/g) K(sin(θ₀/2)) (K by the arithmetic–geometric mean), the apex on
    // the rod, and the angle model's orbit with its wall at the pivot.
    let k = (th0 / 2.0).sin();
    let (mut a, mut b) = (1.0f64, (1.0 - k * k).sqrt());
    while (a - b).abs() > 1e-16 {
        (a, b) = ((a + b) / 2.0, (a * b).sqrt());
    }
    let period = 2.0 * (p.l / p.g).sqrt() * std::f64::consts::PI / (2.0 * a);
    assert!((orbit.period - period).abs() < 1e-8, "T = {} vs {period}", orbit.period);
    assert!((orbit.state - x0).amax() < 1e-8, "apex {} vs {x0}", orbit.state);
    let polar = WallPendulum { l: p.l, g: p.g, e: 1.0, wall: 0.0 };
    let polar_anchor = |x: &SVector<f64, 2>| -x[1];
    let polar_gradient = |_x: &SVector<f64, 2>| Vector2::new(0.0, -1.0);
    let polar_section = Section { anchor: &polar_anchor, gradient: &polar_gradient, mode: 0, resets: 1, max_time: 20.0 };
    let polar_x0 = polar.state([-th0], [0.0]);
    let polar_orbit = find_periodic_orbit(&polar, &polar_section, &polar_x0, polar.energy(0.0, &polar_x0), &opts).unwrap();
    assert!((orbit.period - polar_orbit.period).abs() < 1e-9, "{} vs {}", orbit.period, polar_orbit.period);
    // The multipliers are the manifold's — the conservative orbit's double 1, as the angle model's
    // — and zeros off the rod: the runs project onto it after every step, and so does the map.
    // (Without the projection's factor the unprojected drift brought multipliers of its own.)
    let mut moduli: Vec<f64> = orbit.multipliers().iter().map(|(re, im)| re.hypot(*im)).collect();
    moduli.sort_by(f64::total_cmp);
    assert!(moduli[0] < 1e-8 && moduli[1] < 1e-8, "{moduli:?}");
    assert!((moduli[2] - 1.0).abs() < 1e-5 && (moduli[3] - 1.0).abs() < 1e-5, "{moduli:?}");
    for (re, im) in polar_orbit.multipliers() {
        assert!((re - 1.0).abs() < 1e-5 && im.abs() < 1e-5, "angle model: {re} + {im}i");
    }
    // Multiple shooting integrates its phases unprojected: refused for a constrained mode.
    use routh::runtime::periodic::{Anchor, MultipleShooting, Phase};
    let anchor = Anchor { value: &anchor, gradient: &gradient };
    let refused = MultipleShooting::new(&p, &[Phase { mode: 0, guard: 0 }], anchor, &tight().ode);
    assert!(matches!(refused, Err(SimError::InvalidArgument(why)) if why.contains("constraints")));
}

/// A ball on a floor shaken by a harmonic force: a non-autonomous hybrid system.
#[derive(Mechanics)]
#[mechanics(
    coordinates(y),
    lagrangian = m / 2 * dot(y).powi(2) - m * g * y,
    force(y = f0 * (w * t).cos()),
    impact(name = floor, guard = y, law = restitution(e)),
)]
struct ShakenBall {
    m: f64,
    g: f64,
    e: f64,
    f0: f64,
    w: f64,
}

#[test]
fn periodic_orbit_problems_refuse_a_system_that_depends_on_time() {
    // A return to a section from t = 0 is not a period of a forced system: the shooting problems
    // say so instead of returning a fixed point that is no orbit.
    use routh::runtime::periodic::{
        Anchor, MultipleShooting, Phase, Section, ShootingOptions, find_orbit_at, find_periodic_orbit,
    };
    let shaken = ShakenBall { m: 1.0, g: 1.0, e: 1.0, f0: 0.2, w: 3.0 };
    assert_eq!((shaken.is_autonomous(), Ball { m: 1.0, g: 1.0, e: 1.0 }.is_autonomous()), (Some(false), Some(true)));
    let anchor = |x: &SVector<f64, 2>| x[1];
    let gradient = |_x: &SVector<f64, 2>| Vector2::new(0.0, 1.0);
    let section = Section { anchor: &anchor, gradient: &gradient, mode: 0, resets: 1, max_time: 20.0 };
    let time = |r: Result<_, SimError>| matches!(r, Err(SimError::InvalidArgument(why)) if why.contains("depends on time"));
    assert!(time(find_periodic_orbit(&shaken, &section, &Vector2::new(1.2, 0.1), 1.0, &ShootingOptions::default()).map(|_| ())));
    let family = |f0: f64| ShakenBall { f0, ..shaken };
    let newton = routh::runtime::continuation::ContinuationOptions::default().progress(false);
    assert!(time(find_orbit_at(&family, &section, (&Vector2::new(1.2, 0.1), 0.2), &newton, &tight()).map(|_| ())));
    let anchor = Anchor { value: &anchor, gradient: &gradient };
    assert!(time(MultipleShooting::new(&shaken, &[Phase { mode: 0, guard: 0 }], anchor, &tight().ode).map(|_| ())));
}
