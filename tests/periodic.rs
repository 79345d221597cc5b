//! Variational equations along hybrid runs (*Hybrid periodic orbits*, digest
//! `../shared/research/seed-004.md` §2.2, §2.4, §4.1): the bouncing ball's saltation matrix,
//! monodromy and Poincaré-map Jacobian against their closed forms, the transition identities of
//! Lemma 2.3, and a smooth flow Jacobian against finite differences of the flow.

mod common;

use common::rel_err;
use routh::nalgebra::{Matrix2, SMatrix, SVector, Vector2};
use routh::prelude::*;
use routh::runtime::{HybridSystem, hybrid_flow_jacobian, poincare_jacobian};

/// The bouncing ball of the paper's §4.1 (elastic, m = g = 1 in the checks).
#[derive(Mechanics)]
#[mechanics(
    coordinates(y),
    lagrangian = m / 2 * dot(y).powi(2) - m * g * y,
    impact(name = floor, guard = y, law = restitution(e)),
)]
struct Ball {
    m: f64,
    g: f64,
    e: f64,
}

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
        let run = ball.simulate(x0, 0.0..period, &tight()).unwrap();
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
    // (The state-based value the digest quotes at H̄ = 1: Φ_T lower-left = 1.414214.)
}

#[test]
fn saltation_maps_the_field_and_the_energy_gradient_across_a_dissipative_impact() {
    // Lemma 2.3 (G3): S f⁻ = f⁺ at any reset; for an elastic reset also dH⁺ S = dH⁻. With e = 0.5
    // the field identity still holds and the energy's does not (the impact is not conservative).
    for e in [1.0, 0.5] {
        let ball = Ball { m: 0.7, g: 9.81, e };
        let run = ball.simulate(ball.state([1.3], [0.4]), 0.0..0.8, &tight()).unwrap();
        let imp = &run.impacts[0];
        let s = routh::runtime::saltation(&ball, 0, 0, 0, imp.t, &imp.pre, &imp.post).unwrap();
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
        let run = p.simulate(*x, 0.0..t_end, &tight()).unwrap();
        (*run.last().unwrap().2, run.impacts.len())
    };
    let run = p.simulate(x0, 0.0..t_end, &tight()).unwrap();
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
    let family = continue_orbits(&ball, &section, &orbit, 0.1, 8, true, &opts).unwrap();
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

/// The rocking block of the paper's §4.2 (Housner): rotation α about a corner, slenderness β,
/// normalized so that p = 3g/(4l) = 3/4 (l = g = m = 1); the impact on the other corner is folded
/// back by symmetry, α̇ → −α̇ at α = 0.
#[derive(Mechanics)]
#[mechanics(
    coordinates(alpha),
    lagrangian = 2 * m * l.powi(2) / 3 * dot(alpha).powi(2) - m * g * l * ((alpha - beta).cos() - beta.cos()),
    impact(name = corner, guard = alpha, law = map(dot(alpha) = -dot(alpha))),
)]
struct RockingBlock {
    m: f64,
    l: f64,
    g: f64,
    beta: f64,
}

#[test]
fn rocking_block_periods_match_the_digest_table() {
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
        assert!((orbit.period - period).abs() < 2e-6, "α₀ = {alpha0}: T = {} against {period}", orbit.period);
        if alpha0 == 0.15 {
            let expected = Matrix2::new(1.0, 0.0, 1.98983, 1.0);
            assert!((orbit.monodromy - expected).amax() < 1e-5, "Φ_T = {}", orbit.monodromy);
        }
    }
    eprintln!("rocking block: largest period error against the digest's table {worst:.1e}");
}

#[test]
fn a_branch_is_data_with_its_indicators() {
    // The ball's branch has no turning point and no bifurcation; as data it round-trips through
    // JSON and writes CSV with one line per point.
    use routh::runtime::periodic::{BranchPoint, Section, ShootingOptions, continue_orbits, find_periodic_orbit, write_branch_csv};
    let ball = Ball { m: 1.0, g: 1.0, e: 1.0 };
    let anchor = |x: &SVector<f64, 2>| x[1];
    let gradient = |_x: &SVector<f64, 2>| Vector2::new(0.0, 1.0);
    let section = Section { anchor: &anchor, gradient: &gradient, mode: 0, resets: 1, max_time: 20.0 };
    let opts = ShootingOptions::default();
    let start = find_periodic_orbit(&ball, &section, &Vector2::new(0.5, 0.0), 0.5, &opts).unwrap();
    let family = continue_orbits(&ball, &section, &start, 0.1, 4, true, &opts).unwrap();
    assert!(family.iter().all(|o| !o.turning_point && !o.bifurcation));
    let points: Vec<BranchPoint> = family.iter().map(BranchPoint::from).collect();
    let json = serde_json::to_string(&points).unwrap();
    let back: Vec<BranchPoint> = serde_json::from_str(&json).unwrap();
    assert_eq!(back, points);
    let mut csv = Vec::new();
    write_branch_csv(&mut csv, &points).unwrap();
    let text = String::from_utf8(csv).unwrap();
    assert_eq!(text.lines().next(), Some("energy,period,xi,x0_1,x0_2,multipliers,turning_point,bifurcation"));
    assert_eq!(text.lines().count(), 1 + points.len());
}
