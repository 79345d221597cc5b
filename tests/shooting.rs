//! Time-based multiple shooting and continuation of periodic orbits (*Hybrid periodic orbits*
//! §3.3–3.4, §4; digest `docs/references.md`, reference runs R7, R8): the bouncing ball from the
//! resting state by Lyapunov–Schmidt branching (B1, B4), the rocking block's family (K2, K3), and
//! the bouncing rod's symmetric family with its turning points, simple bifurcation, the
//! non-symmetric family and the period-doubling passage (R1, R2, R5), each point checked by
//! event-driven re-simulation (realizability, G7).

mod common;

use routh::nalgebra::{DMatrix, DVector, SVector, Vector2, Vector4};
use routh::prelude::*;
use routh::runtime::continuation::{
    BranchStop, ContinuationOptions, Problem, Special, Start, branch_directions, continuation, correct_at_parameter,
};
use routh::runtime::periodic::{Anchor, MultipleShooting, Phase};

/// The bouncing ball of the paper's §4.1 (m = g = 1 in the checks).
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
    let shooting = MultipleShooting::new(&ball, &[Phase { mode: 0, guard: 0 }], Anchor { value: &value, gradient: &gradient }, &ode()).unwrap();
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
    let branch = continuation(&shooting, &u0, Start::Along(along), &opts).unwrap();
    assert_eq!(branch.stop, BranchStop::Target);
    assert!(branch.special(Special::TurningPoint).next().is_none() && branch.special(Special::SimpleBifurcation).next().is_none());
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
}

/// The bouncing rod of the paper's §4.3: height y of the centre, rotation α, radius of gyration
/// r, length l; elastic impacts of the left (y − (l/2) sin α = 0) and right end.
#[derive(Mechanics)]
#[mechanics(
    coordinates(y, alpha),
    lagrangian = m / 2 * (dot(y).powi(2) + r.powi(2) * dot(alpha).powi(2)) - m * g * y,
    impact(name = left, guard = y - l / 2 * alpha.sin(), law = restitution(e)),
    impact(name = right, guard = y + l / 2 * alpha.sin(), law = restitution(e)),
)]
struct Rod {
    m: f64,
    g: f64,
    l: f64,
    r: f64,
    e: f64,
}

/// The symmetric family in closed form (digest §4.3, m = g = l = 1), by the impact angle θ:
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
    // Closed forms (digest §4.3): the turning points are the extrema of H̄(θ) on the symmetric
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
    for (name, s, closed, digest) in table {
        eprintln!(
            "rod {name}: H̄ = {:.9}, T = {:.9}; closed form ({:.9}, {:.9}); errors {:.1e}, {:.1e}",
            s.energy, s.period, closed.0, closed.1, (s.energy - closed.0).abs(), (s.period - closed.1).abs()
        );
        assert!((s.energy - closed.0).abs() < 1e-7 && (s.period - closed.1).abs() < 1e-6, "{name}");
        assert!((s.energy - digest.0).abs() < 1e-6 && (s.period - digest.1).abs() < 1e-6, "{name} against the digest");
    }
    // R5: a multiplier passes −1 between TP2 and the SB (T ≈ 0.4948, H̄ ≈ 0.515404).
    let pd = &pds[0];
    assert!(pd.period > tps[1].period && pd.period < sb.period && (pd.period - 0.4948).abs() < 1e-4);
    assert!(pd.multipliers().iter().any(|(re, im)| (re + 1.0).abs() < 1e-6 && im.abs() < 1e-6), "{:?}", pd.multipliers());
    eprintln!("rod period doubling: H̄ = {:.9}, T = {:.9}, multipliers {:?}", pd.energy, pd.period, pd.multipliers());
    // Every point: ξ at round-off (G6); the located TP1 and the end are physical (realizability).
    assert!(branch.points.iter().all(|p| p.u[shooting.xi_index()].abs() < 1e-9));
    let end = solution(&branch.points.last().unwrap().u);
    assert!((end.period - 1.783311).abs() < 1e-6, "T(0.6) = {}", end.period);
    for p in [branch.special(Special::TurningPoint).next().unwrap(), branch.points.last().unwrap()] {
        let real = shooting.realizability(&p.u).unwrap();
        assert!(real.is_physical(1e-7), "{real:?}");
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
    let green = continuation(&shooting, &sbs[0].u, Start::Along(new.clone()), &opts.clone().initial_step(1e-3).target(0.5643920)).unwrap();
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
    assert!(shooting.realizability(&last.u).unwrap().is_physical(1e-7));
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

/// The rocking block of the paper's §4.2 (β = 0.3, p = 3g/(4l) = 3/4); the impact on the other
/// corner is folded back by symmetry.
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
fn rocking_block_branches_off_rest_and_meets_the_period_table() {
    // K3: the LS tangent at u₀ = 0 is (1, 0, p sin β, 1, 0, 0, 0, 0)/norm; K2: T(α₀) along the
    // branch to 1e-6; K1: H̄ stays below 1 − cos β.
    let block = RockingBlock { m: 1.0, l: 1.0, g: 1.0, beta: 0.3 };
    let value = |x: &SVector<f64, 2>| x[1];
    let gradient = |_x: &SVector<f64, 2>| Vector2::new(0.0, 1.0);
    let shooting = MultipleShooting::new(&block, &[Phase { mode: 0, guard: 0 }], Anchor { value: &value, gradient: &gradient }, &ode()).unwrap();
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
        assert!((s.period - period).abs() < 2e-6, "α₀ = {alpha0}: T = {} against {period}", s.period);
        assert!(shooting.realizability(&last.u).unwrap().is_physical(1e-7));
        start = last.u.clone();
        leave = Start::Increasing;
    }
    eprintln!("rocking block by multiple shooting: largest period error against K2 {worst:.1e}");
}
