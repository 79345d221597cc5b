//! Multi-mode models: the bouncing rod and the SLIP hopper of *Hybrid periodic orbits*
//! (§4.3–4.4; `docs/references.md`), as modes joined by transitions — and the hopper's families of
//! periodic orbits by time-based multiple shooting and continuation (`docs/references.md` §3.4, §4.4: S1–S6).

mod common;

use std::f64::consts::PI;

use common::{Rng, rel_err};
use routh::prelude::*;
use routh::runtime::{HybridOptions, HybridStop};

#[allow(dead_code)]
mod models {
    use routh::prelude::*;
    include!("../benches/periodic_models.rs");
}
use models::Hopper;

/// Rod of length l, mass m, radius of gyration r, in ballistic flight; its ends hit the ground
/// alternately (left end, then right end). Two modes with the same coordinates: which end hits next.
#[derive(Mechanics)]
#[mechanics(
    coordinates(y, alpha),
    lagrangian = m / 2 * (dot(y).powi(2) + (r * dot(alpha)).powi(2)) - m * g * y,
    mode(left),
    mode(right),
    transition(left -> right, guard = y - l / 2 * alpha.sin(), law = restitution(1)),
    transition(right -> left, guard = y + l / 2 * alpha.sin(), law = restitution(1)),
)]
struct Rod {
    m: f64,
    l: f64,
    r: f64,
    g: f64,
}

fn tight() -> HybridOptions {
    HybridOptions::default().ode(Options::default().rtol(1e-12).atol(1e-13))
}

#[test]
fn rod_transition_reset_is_the_papers_elastic_impact_law() {
    // *Hybrid periodic orbits* (41f, g), with erratum P1's sign correction (the standard law
    // q̇⁺ = q̇⁻ − 2M⁻¹Jᵀ(JM⁻¹Jᵀ)⁻¹Jq̇⁻ with M = diag(m, m r²), J = [1, ∓(l/2) cos α]).
    let rod = Rod { m: 1.0, l: 1.0, r: 0.01, g: 1.0 };
    let mut rng = Rng::new(41);
    for _ in 0..20 {
        let x = rng.vector::<4>(-1.0, 1.0);
        let (yd, ad, c) = (x[2], x[3], x[1].cos());
        let s = 4.0 / (rod.l * rod.l * c * c + 4.0 * rod.r * rod.r);
        let r2 = rod.r * rod.r;
        let left = rod.left().left_to_right_reset(0.0, &x).unwrap();
        assert!((left[2] - (yd - s * (2.0 * r2 * yd - rod.l * r2 * c * ad))).abs() < 1e-12);
        assert!((left[3] - (ad - s * (0.5 * rod.l * rod.l * c * c * ad - rod.l * c * yd))).abs() < 1e-10);
        let right = rod.right().right_to_left_reset(0.0, &x).unwrap();
        assert!((right[2] - (yd - s * (2.0 * r2 * yd + rod.l * r2 * c * ad))).abs() < 1e-12);
        assert!((right[3] - (ad - s * (0.5 * rod.l * rod.l * c * c * ad + rod.l * c * yd))).abs() < 1e-10);
        // Elastic: energy is kept exactly.
        let e = |x: &SVector<f64, 4>| rod.left().energy(0.0, x);
        assert!((e(&left) - e(&x)).abs() < 1e-12 * (1.0 + e(&x).abs()));
    }
}

#[test]
fn bouncing_rod_alternates_ends_keeps_energy_and_finds_the_first_contact() {
    // Small radius of gyration (stiff: the rod spins fast while y barely moves). The first contact
    // is found by a fine scan of the closed-form flight, then bisection.
    let rod = Rod { m: 1.0, l: 1.0, r: 0.01, g: 1.0 };
    let (y0, a0, vy, w) = (0.6, 0.2, 0.0, 25.0);
    let x0 = rod.left_state([y0, a0], [vy, w]);
    let h = |t: f64| (y0 + vy * t - 0.5 * rod.g * t * t) - 0.5 * rod.l * (a0 + w * t).sin();
    let mut t_lo = 0.0;
    while h(t_lo + 1e-4) > 0.0 {
        t_lo += 1e-4;
    }
    let (mut a, mut b) = (t_lo, t_lo + 1e-4);
    for _ in 0..60 {
        let mid = 0.5 * (a + b);
        if h(mid) > 0.0 { a = mid } else { b = mid }
    }
    let sol = rod.run(x0).span(0.0..3.0).options(tight()).go().unwrap();
    assert!(sol.impacts.len() >= 4, "{} impacts", sol.impacts.len());
    assert!((sol.impacts[0].t - a).abs() < 1e-9, "first contact {} vs {a}", sol.impacts[0].t);
    let e0 = rod.left().energy(0.0, &x0.state);
    for (k, imp) in sol.impacts.iter().enumerate() {
        assert_eq!(imp.mode_before, k % 2, "modes alternate left → right → left");
        assert_eq!(imp.mode_after, (k + 1) % 2);
        assert!((imp.energy_before - e0).abs() < 1e-10 && (imp.energy_after - e0).abs() < 1e-10);
    }
    // Angular momentum m r² α̇ is a first integral of each flight but not of the resets.
    assert!(sol.impacts.iter().any(|i| (i.post[3] - i.pre[3]).abs() > 1e-3));
    assert!(matches!(sol.stop, HybridStop::Finished));
}

#[test]
fn transition_reset_jacobians_match_finite_differences() {
    let rod = Rod { m: 1.0, l: 1.0, r: 0.05, g: 1.0 };
    let hop = Hopper { m: 1.0, g: 1.0, k: 40.0, l0: 1.0, w: 5f64.sqrt(), eps: 1e-12 };
    let mut rng = Rng::new(43);
    for _ in 0..10 {
        let x = rng.vector::<4>(-1.0, 1.0);
        let j = rod.left().left_to_right_jacobian_fd_check(&x);
        assert!(j < 1e-7, "rod reset Jacobian error {j}");
        let mut xs = rng.vector::<4>(-0.5, 0.5);
        xs[1] = rng.uniform(0.8, 1.1);
        let jac = hop.stance().liftoff_reset_jacobian(0.0, &xs).unwrap();
        let fd = fd_rect::<6, 4>(|x| hop.stance().liftoff_reset(0.0, x).unwrap(), &xs);
        assert!(rel_err(&jac, &fd) < 1e-7);
        let xf = rng.vector::<6>(-0.5, 0.5);
        let jac = hop.flight().touchdown_reset_jacobian(0.0, &xf).unwrap();
        let fd = fd_rect::<4, 6>(|x| hop.flight().touchdown_reset(0.0, x).unwrap(), &xf);
        assert!(rel_err(&jac, &fd) < 1e-7);
    }
}

trait FdCheck {
    fn left_to_right_jacobian_fd_check(&self, x: &SVector<f64, 4>) -> f64;
}

impl FdCheck for RodLeft<'_> {
    fn left_to_right_jacobian_fd_check(&self, x: &SVector<f64, 4>) -> f64 {
        let jac = self.left_to_right_reset_jacobian(0.0, x).unwrap();
        let fd = fd_rect::<4, 4>(|x| self.left_to_right_reset(0.0, x).unwrap(), x);
        rel_err(&jac, &fd)
    }
}

fn fd_rect<const R: usize, const C: usize>(
    f: impl Fn(&SVector<f64, C>) -> SVector<f64, R>,
    x: &SVector<f64, C>,
) -> SMatrix<f64, R, C> {
    let mut j = SMatrix::<f64, R, C>::zeros();
    for k in 0..C {
        let h = 1e-6 * x[k].abs().max(1.0);
        let (mut xp, mut xm) = (*x, *x);
        xp[k] += h;
        xm[k] -= h;
        j.set_column(k, &((f(&xp) - f(&xm)) / (2.0 * h)));
    }
    j
}

#[test]
fn hopper_keeps_energy_across_every_transition_and_alternates_modes() {
    let hop = Hopper { m: 1.0, g: 1.0, k: 40.0, l0: 1.0, w: 5f64.sqrt(), eps: 1e-12 };
    // Apex of a flight with forward speed and the leg swung forward.
    let x0 = hop.flight_state([0.0, 1.15, -0.15], [0.4, 0.0, 0.0]);
    let sol = hop.run(x0).span(0.0..6.0).options(tight()).go().unwrap();
    assert!(sol.impacts.len() >= 6, "{} transitions", sol.impacts.len());
    let e0 = sol.impacts[0].energy_before;
    for (k, imp) in sol.impacts.iter().enumerate() {
        let (from, to, name) =
            if k % 2 == 0 { (Hopper::FLIGHT, Hopper::STANCE, "touchdown") } else { (Hopper::STANCE, Hopper::FLIGHT, "liftoff") };
        assert_eq!((imp.mode_before, imp.mode_after, imp.guard), (from, to, name));
        assert!(
            (imp.energy_after - imp.energy_before).abs() < 1e-10,
            "energy jump {} at {name}",
            imp.energy_after - imp.energy_before
        );
        assert!((imp.energy_before - e0).abs() < 1e-8, "energy drifts: {} vs {e0}", imp.energy_before);
    }
    assert_eq!(sol.modes.first(), Some(&Hopper::FLIGHT));
}

#[test]
fn vertical_hopping_matches_the_closed_form() {
    // α ≡ 0: flight is ballistic, stance a harmonic oscillation of l about l* = l0 − mg/k with
    // ω = √(k/m). Touchdown at speed v = √(2g(y0 − l0)); the stance lasts (2π − 2φ)/ω with
    // φ = atan2(v/ω, mg/k), the next flight 2v/g.
    let hop = Hopper { m: 1.0, g: 1.0, k: 40.0, l0: 1.0, w: 5f64.sqrt(), eps: 1e-12 };
    let y0 = 1.3;
    let sol = hop.run(hop.flight_state([0.0, y0, 0.0], [0.0, 0.0, 0.0])).span(0.0..5.0).options(tight()).go().unwrap();
    let v = (2.0 * hop.g * (y0 - hop.l0)).sqrt();
    let om = (hop.k / hop.m).sqrt();
    let phi = (v / om).atan2(hop.m * hop.g / hop.k);
    let fall = v / hop.g;
    let stance = (2.0 * PI - 2.0 * phi) / om;
    let mut expected = vec![fall];
    while expected.len() < sol.impacts.len() {
        let last = *expected.last().unwrap();
        expected.push(last + if expected.len() % 2 == 1 { stance } else { 2.0 * v / hop.g });
    }
    assert!(sol.impacts.len() >= 5);
    for (imp, t) in sol.impacts.iter().zip(&expected) {
        assert!((imp.t - t).abs() < 1e-9, "{} at {} vs {t}", imp.guard, imp.t);
    }
}

#[test]
fn hybrid_system_jacobians_are_exact_on_the_padded_state() {
    // The runtime's trait gives the continuation code the field Jacobian, guard gradients and
    // reset Jacobians of every mode on the padded state (stance uses 4 of the hopper's 6 state
    // entries). The generated ones are exact; compare them with central differences of the
    // trait's own field, guards and resets.
    use routh::runtime::{FD_STEP, jacobian_fd};
    let hop = Hopper { m: 1.0, g: 1.0, k: 40.0, l0: 1.0, w: 5f64.sqrt(), eps: 0.01 };
    let mut rng = Rng::new(17);
    for mode in [Hopper::STANCE, Hopper::FLIGHT] {
        for _ in 0..5 {
            let mut x = rng.vector::<6>(-0.5, 0.5);
            if mode == Hopper::STANCE {
                x[1] = rng.uniform(0.8, 1.1);
                x[4] = 0.0;
                x[5] = 0.0;
            }
            let t = rng.uniform(0.0, 1.0);
            let field = |t: f64, y: &SVector<f64, 6>| hop.mode_field(mode, t, y);
            let exact = hop.mode_jacobian(mode, t, &x).unwrap();
            let fd = jacobian_fd(&field, t, &x, FD_STEP).unwrap();
            assert!(rel_err(&exact, &fd) < 1e-7, "mode {mode} field Jacobian: {}", rel_err(&exact, &fd));
            for g in 0..hop.guard_count(mode) {
                let grad = hop.guard_gradient(mode, g, t, &x);
                let fd = fd_rect::<1, 6>(|y| SVector::<f64, 1>::new(hop.guard(mode, g, t, y)), &x).transpose();
                assert!(rel_err(&grad, &fd) < 1e-7, "mode {mode} guard {g} gradient");
                let exact = hop.reset_jacobian(mode, g, t, &x).unwrap();
                let fd = fd_rect::<6, 6>(|y| hop.reset(mode, g, t, y).unwrap().1, &x);
                assert!(rel_err(&exact, &fd) < 1e-7, "mode {mode} guard {g} reset Jacobian: {}", rel_err(&exact, &fd));
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The hopper's periodic orbits (*Hybrid periodic orbits* §4.4; reference run R9 of `docs/references.md`), k = 40 m g/l0,
// ω² = 5 g/l0, m = g = l0 = 1. A period is stance (nadir → lift-off), flight (→ touchdown), stance
// (→ nadir, the anchor a = −l̇). Our flight chart keeps x (relative to the last foot), so
// dim u = 4 + 1 + 6 + 1 + 4 + 1 + 2 = 19 where the paper's chart without x has 18 (erratum P5):
// x̄₂'s x is pinned by the lift-off reset and enters nothing after it, so the solutions, the
// kernel at the grazing orbit and every number below are the same. The leg's inertia `eps` is
// the paper's massless limit: its flight dynamics α̈ = −ω²α do not depend on eps, so the orbits at
// ξ = 0 are exactly the paper's; its energy, which the paper leaves out of H_F, is O(eps).

use routh::nalgebra::DVector;
use routh::runtime::HybridSystem;
use routh::runtime::continuation::{
    Branch, BranchStop, ContinuationOptions, Point, Problem, Special, Start, branch_directions, continuation,
    correct_at_parameter,
};
use routh::runtime::periodic::{Anchor, MultipleShooting, PeriodicSolution, Phase};

const SLIP: Hopper = Hopper { m: 1.0, g: 1.0, k: 40.0, l0: 1.0, w: 2.23606797749979, eps: 1e-12 };

fn nadir_value(x: &SVector<f64, 6>) -> f64 {
    -x[3]
}

fn nadir_gradient(_x: &SVector<f64, 6>) -> SVector<f64, 6> {
    SVector::<f64, 6>::from_fn(|i, _| if i == 3 { -1.0 } else { 0.0 })
}

fn slip_shooting() -> MultipleShooting<'static, Hopper, 6> {
    let phases = [Phase { mode: Hopper::STANCE, guard: 0 }, Phase { mode: Hopper::FLIGHT, guard: 0 }];
    let ode = Options::default().rtol(1e-12).atol(1e-13);
    MultipleShooting::new(&SLIP, &phases, Anchor { value: &nadir_value, gradient: &nadir_gradient }, &ode).unwrap()
}

/// S1: the grazing orbit — purely vertical oscillation in l, touchdown at rest, no flight:
/// t₁ = t₃ = T_o/2 with T_o = 2π√(m/k), x̄₁ the nadir (0, l0 − 2mg/k, 0, 0), H̄ = m g l0.
fn grazing_start(shooting: &MultipleShooting<'_, Hopper, 6>) -> DVector<f64> {
    let half = PI * (SLIP.m / SLIP.k).sqrt();
    let mut u = DVector::zeros(shooting.unknowns());
    u[shooting.time_index(3)] = half;
    u[shooting.state_index(3, 1)] = SLIP.l0;
    u[shooting.state_index(2, 1)] = SLIP.l0;
    u[shooting.time_index(1)] = half;
    u[shooting.state_index(1, 1)] = SLIP.l0 - 2.0 * SLIP.m * SLIP.g / SLIP.k;
    u[shooting.energy_index()] = SLIP.m * SLIP.g * SLIP.l0;
    u
}

/// S3: hopping in place in closed form, (t₁ = t₃, t₂, T, nadir l) at H̄; `sign` = −1 gives the
/// t₂ < 0 family (v → −v).
fn hopping_in_place(hbar: f64, sign: f64) -> (f64, f64, f64, f64) {
    let v = sign * (2.0 * (hbar - 1.0)).sqrt();
    let (ws, z0) = (40f64.sqrt(), 1.0 / 40.0);
    let t1 = (PI - (v / ws).atan2(z0)) / ws;
    let t2 = 2.0 * v;
    (t1, t2, 2.0 * t1 + t2, 1.0 - z0 - (z0 * z0 + v * v / (ws * ws)).sqrt())
}

/// The two kernel directions at the grazing orbit: (hopping, harmonic), told apart by t₂.
fn grazing_directions(shooting: &MultipleShooting<'_, Hopper, 6>, u0: &DVector<f64>) -> (DVector<f64>, DVector<f64>) {
    let t2 = shooting.time_index(2);
    let [a, b] = branch_directions(shooting, u0, 1e-6).unwrap();
    if a[t2].abs() > b[t2].abs() { (a, b) } else { (b, a) }
}

/// Hopping in place from the grazing orbit to H̄ = 2 (t₂ > 0), the paper's solid blue branch;
/// computed once for the tests that start from it.
fn hopping_branch(shooting: &MultipleShooting<'_, Hopper, 6>) -> &'static Branch {
    static BRANCH: std::sync::OnceLock<Branch> = std::sync::OnceLock::new();
    BRANCH.get_or_init(|| {
        let u0 = grazing_start(shooting);
        let (hop, _) = grazing_directions(shooting, &u0);
        let along = if hop[shooting.time_index(2)] > 0.0 { hop } else { -hop };
        let opts = ContinuationOptions::default().initial_step(5e-2).max_step(0.5).target(2.0).progress(false);
        continuation(shooting, &u0, Start::Along(along), &opts).unwrap()
    })
}

/// G2/G3 at every reset of a solution: S f⁻ = f⁺, and dH⁺ S = dH⁻ (elastic: H is a hybrid integral).
fn saltation_identities(s: &PeriodicSolution<6>) -> (f64, f64) {
    let (mut field, mut energy): (f64, f64) = (0.0, 0.0);
    for k in 0..2 {
        let (pre, next) = (&s.phases[k], &s.phases[k + 1]);
        let post = SLIP.reset(pre.mode, pre.guard.unwrap(), 0.0, &pre.end).unwrap().1;
        let sal = routh::runtime::saltation(&SLIP, (pre.mode, pre.guard.unwrap(), next.mode), 0.0, (&pre.end, &post)).unwrap();
        let fm = SLIP.mode_field(pre.mode, 0.0, &pre.end).unwrap();
        let fp = SLIP.mode_field(next.mode, 0.0, &post).unwrap();
        field = field.max((sal * fm - fp).amax());
        let (dm, dp) = (SLIP.mode_energy_gradient(pre.mode, 0.0, &pre.end), SLIP.mode_energy_gradient(next.mode, 0.0, &post));
        energy = energy.max((sal.transpose() * dp - dm).amax());
    }
    (field, energy)
}

#[test]
fn slip_hopper_branches_off_the_grazing_orbit_hops_in_place_and_meets_sb1_and_sb2() {
    let shooting = slip_shooting();
    assert_eq!(shooting.unknowns(), 19);
    // S1: the grazing orbit solves r = 0 and is a simple bifurcation (two-dimensional kernel).
    let u0 = grazing_start(&shooting);
    assert!(shooting.linearize(&u0).unwrap().0.amax() < 1e-12);
    // S2: the LS tangents (nonzero entries only; overall signs arbitrary). In our u order
    // [t₃, α₃, l₃, α̇₃, l̇₃, t₂, x₂, y₂, α₂, ẋ₂, ẏ₂, α̇₂, t₁, α₁, l₁, α̇₁, l̇₁, ξ, H̄].
    let (hop, harmonic) = grazing_directions(&shooting, &u0);
    let entries = |pairs: &[(usize, f64)]| {
        let mut v = DVector::zeros(19);
        for &(i, x) in pairs {
            v[i] = x;
        }
        v.normalize()
    };
    let expected_hop = entries(&[(0, -1.0), (4, -1.0), (5, 2.0), (10, 1.0), (12, -1.0)]);
    let expected_harmonic = entries(&[(0, 1.0), (4, 1.0), (10, 1.0), (12, -1.0)]);
    let misalign = |a: &DVector<f64>, b: &DVector<f64>| 1.0 - a.dot(b).abs();
    assert!(misalign(&hop, &expected_hop) < 1e-8, "hopping tangent {}", hop.transpose());
    assert!(misalign(&harmonic, &expected_harmonic) < 1e-8, "harmonic tangent {}", harmonic.transpose());
    // S3 along the branch: every point is the closed form; ξ at round-off (G6); two unit
    // multipliers (G7; a Jordan block, so only to the square root of the monodromy's error).
    let branch = hopping_branch(&shooting);
    assert_eq!(branch.stop, BranchStop::Target);
    let mut worst: f64 = 0.0;
    for p in &branch.points[1..] {
        let s = shooting.solution(&p.u).unwrap();
        let (t1, t2, period, nadir) = hopping_in_place(s.energy, 1.0);
        let t = s.durations();
        worst = worst.max((t[0] - t1).abs()).max((t[2] - t1).abs()).max((t[1] - t2).abs()).max((s.period - period).abs());
        worst = worst.max((s.phases[0].start[1] - nadir).abs());
        assert!(s.xi.abs() < 1e-10, "ξ = {:e}", s.xi);
        let unit = s.multipliers().iter().filter(|(re, im)| (re - 1.0).abs() < 1e-4 && im.abs() < 1e-4).count();
        assert!(unit >= 2, "multipliers {:?}", s.multipliers());
        let (field, energy) = saltation_identities(&s);
        assert!(field < 1e-10 && energy < 1e-10, "S f⁻ − f⁺ {field:e}, dH⁺ S − dH⁻ {energy:e}");
    }
    assert!(worst < 1e-8, "hopping in place against S3: {worst:e}");
    // S3's table by aiming at each H̄ (T, t₁ = t₃, t₂, nadir l; R9's 6 digits).
    let table = [
        (1.1, 1.498622, 0.302098, 0.894427, 0.900000),
        (1.2, 1.839110, 0.287099, 1.264911, 0.871922),
        (1.5, 2.546319, 0.273159, 2.000000, 0.814922),
        (1.8, 3.065876, 0.268027, 2.529822, 0.773444),
        (2.0, 3.360366, 0.265969, 2.828427, 0.750000),
    ];
    let opts = ContinuationOptions::default().progress(false);
    for (hbar, period, t1, t2, nadir) in table {
        let near = branch.points.iter().min_by(|a, b| (a.u[18] - hbar).abs().total_cmp(&(b.u[18] - hbar).abs())).unwrap();
        let at = correct_at_parameter(&shooting, &near.u, hbar, &opts).unwrap();
        let s = shooting.solution(&at.u).unwrap();
        let t = s.durations();
        let got = [s.period, t[0], t[2], t[1], s.phases[0].start[1]];
        for (g, want) in got.iter().zip([period, t1, t1, t2, nadir]) {
            assert!((g - want).abs() < 6e-7, "H̄ = {hbar}: {got:?}");
        }
        assert!(shooting.realizability(&at.u).unwrap().is_physical(1e-8), "H̄ = {hbar}");
    }
    // S5: the two simple bifurcations. SB1 exactly where the flight lasts half a swing period
    // (t₂ = π/ω, H̄ = 1 + π²/40); SB2 has no closed form (reference run R9: 1.614433, T = 2.758616).
    let sbs: Vec<_> = branch.special(Special::SimpleBifurcation).map(|p| shooting.solution(&p.u).unwrap()).collect();
    assert_eq!(sbs.len(), 2, "simple bifurcations");
    assert!(branch.special(Special::TurningPoint).next().is_none());
    let (sb1, sb2) = (&sbs[0], &sbs[1]);
    let half_swing = PI / SLIP.w;
    assert!((sb1.energy - (1.0 + PI * PI / 40.0)).abs() < 1e-8, "SB1 at H̄ = {}", sb1.energy);
    assert!((sb1.durations()[1] - half_swing).abs() < 1e-8 && (sb1.period - 1.971702).abs() < 1e-6, "SB1 {:?}", sb1.durations());
    assert!(
        (sb2.energy - 1.614433).abs() < 1e-6 && (sb2.period - 2.758616).abs() < 1e-6,
        "SB2 at ({}, {})",
        sb2.energy,
        sb2.period
    );
    // Reference run R9's t₂ and nadir at SB2 are read off a coarse bracket: they lie 2e-6 from S3's closed
    // form at its own H̄, where ours agree with it to 1e-8 (above), hence the looser bound.
    assert!((sb2.durations()[1] - 2.217083).abs() < 5e-6 && (sb2.phases[0].start[1] - 0.797950).abs() < 5e-6);
    // Both are simple bifurcations: the kernel of dr is two-dimensional there (LS succeeds).
    // The located point's direction is the branch's tangent, one of the two LS roots.
    for sb in branch.special(Special::SimpleBifurcation) {
        let [a, b] = branch_directions(&shooting, &sb.u, 1e-6).unwrap();
        assert!(1.0 - a.dot(&sb.direction).abs().max(b.dot(&sb.direction).abs()) < 1e-9);
    }
    // A second route to SB2: a Floquet multiplier of the in-place orbit passes +1 there. The
    // monodromy's characteristic polynomial is (λ − 1)²(λ² − sλ + p) (the Jordan pair of the
    // energy and the phase); s and p from its trace and second invariant, and g = 1 − s + p
    // vanishes where the non-trivial multiplier pair contains 1. Its zero by regula falsi
    // (Illinois), which keeps the bracket.
    let g = |hbar: f64| {
        let near = branch.points.iter().min_by(|a, b| (a.u[18] - hbar).abs().total_cmp(&(b.u[18] - hbar).abs())).unwrap();
        let phi = shooting.solution(&correct_at_parameter(&shooting, &near.u, hbar, &opts).unwrap().u).unwrap().monodromy;
        let trace = phi.trace();
        let e2 = 0.5 * (trace * trace - (&phi * &phi).trace());
        let s = trace - 2.0;
        1.0 - s + (e2 - 1.0 - 2.0 * s)
    };
    let (mut a, mut b) = (1.6130, 1.6155);
    let (mut ga, mut gb) = (g(a), g(b));
    assert!(ga * gb < 0.0);
    let mut root = a;
    for _ in 0..30 {
        root = b - gb * (b - a) / (gb - ga);
        let gr = g(root);
        if gr == 0.0 || (b - a).abs() < 1e-12 || (root - a).abs().min((root - b).abs()) < 1e-13 {
            break;
        }
        if gr * gb < 0.0 {
            (a, ga) = (b, gb);
        } else {
            ga *= 0.5;
        }
        (b, gb) = (root, gr);
    }
    let b = root;
    assert!((sb2.energy - b).abs() < 1e-9, "SB2 at H̄ = {} by the augmented determinant, {b} by the multiplier", sb2.energy);
    eprintln!(
        "SLIP hopping in place: {} points to H̄ = 2, S3 error {worst:.1e}; SB1 (H̄, T, t₂) = ({:.9}, {:.9}, {:.9}) against (1 + π²/40, π/√5) errors ({:.1e}, {:.1e}); SB2 = ({:.9}, {:.9}), {:.1e} from the multiplier's +1",
        branch.points.len(),
        sb1.energy,
        sb1.period,
        sb1.durations()[1],
        (sb1.energy - 1.0 - PI * PI / 40.0).abs(),
        (sb1.durations()[1] - half_swing).abs(),
        sb2.energy,
        sb2.period,
        (sb2.energy - b).abs()
    );
    // G1: dH·f ≡ 0 in both modes (the leg's energy is its own integral in flight).
    let mut rng = Rng::new(5);
    for mode in [Hopper::STANCE, Hopper::FLIGHT] {
        let mut x = rng.vector::<6>(-0.5, 0.5);
        x[1] += 1.0;
        if mode == Hopper::STANCE {
            x[4] = 0.0;
            x[5] = 0.0;
        }
        let rate = SLIP.mode_energy_gradient(mode, 0.0, &x).dot(&SLIP.mode_field(mode, 0.0, &x).unwrap());
        assert!(rate.abs() < 1e-13, "mode {mode}: dH·f = {rate:e}");
    }
}

/// The branch that leaves a simple bifurcation in the direction of `sign`, up to `points` points.
fn switch(shooting: &MultipleShooting<'_, Hopper, 6>, sb: &Point, sign: f64, target: f64, points: usize) -> Branch {
    let [a, b] = branch_directions(shooting, &sb.u, 1e-6).unwrap();
    let new = if a.dot(&sb.direction).abs() < b.dot(&sb.direction).abs() { a } else { b };
    let opts = ContinuationOptions::default().initial_step(1e-2).max_step(0.5).target(target).max_points(points).progress(false);
    continuation(shooting, &sb.u, Start::Along(new * sign), &opts).unwrap()
}

#[test]
fn slip_forward_and_backward_hopping_branch_off_sb1_and_sb2_and_give_the_three_orbits_of_fig_10() {
    let shooting = slip_shooting();
    let branch = hopping_branch(&shooting);
    let sbs: Vec<&Point> = branch.special(Special::SimpleBifurcation).collect();
    assert_eq!(sbs.len(), 2);
    // S6 (the reading of Fig. 10a in reference run R9 of `docs/references.md`), forward orbits at H̄ = 1.8:
    // (T, t₁ = t₃, t₂, ẋ in flight, α at touchdown, nadir (l, α̇)).
    let s6 = [
        (1.898895, 0.246966, 1.404963, 1.082959, 0.258167, 0.847509, -1.164992),
        (2.750415, 0.262483, 2.225449, 0.620461, 0.152226, 0.792184, -0.677603),
    ];
    let half_swing = PI / SLIP.w;
    for (k, (sb, row)) in sbs.iter().zip(s6).enumerate() {
        let green = switch(&shooting, sb, 1.0, 1.8, 1000);
        assert_eq!(green.stop, BranchStop::Target);
        for p in &green.points[1..] {
            let s = shooting.solution(&p.u).unwrap();
            let t = s.durations();
            // Symmetric stance: t₁ = t₃ and α = 0 at the nadir; on SB1's branch the flight
            // stays half a swing period while ẋ grows from 0.
            assert!((t[0] - t[2]).abs() < 1e-8 && s.phases[0].start[0].abs() < 1e-8, "{t:?}");
            if k == 0 {
                assert!((t[1] - half_swing).abs() < 1e-8, "t₂ = {} on SB1's branch", t[1]);
            }
            assert!(s.xi.abs() < 1e-10);
        }
        let end = &green.points.last().unwrap().u;
        let s = shooting.solution(end).unwrap();
        let t = s.durations();
        let (x1, flight) = (s.phases[0].start, &s.phases[1]);
        let (xdot, alpha_td) = (flight.start[3], flight.end[2]);
        let got = [s.period, t[0], t[1], xdot.abs(), alpha_td.abs(), x1[1], -x1[2].abs()];
        let want = [row.0, row.1, row.2, row.3, row.4, row.5, row.6];
        for (g, w) in got.iter().zip(want) {
            assert!((g - w).abs() < 1e-6, "branch {k} at H̄ = 1.8: {got:?} against {want:?}");
        }
        // The mass sits at x = −l sin α from the foot: moving forward (ẋ > 0) it lands with the
        // foot ahead of it (α > 0) and the leg sweeps back through the nadir (α̇ < 0).
        assert!(xdot.signum() == alpha_td.signum() && x1[2].signum() == -xdot.signum());
        assert!(shooting.realizability(end).unwrap().is_physical(1e-8));
        if k == 0 {
            // G5: the analytic Jacobian (31) against central differences of r.
            let (_, jac) = shooting.linearize(end).unwrap();
            let mut worst: f64 = 0.0;
            for c in 0..end.len() {
                let h = 1e-6 * end[c].abs().max(1.0);
                let (mut up, mut down) = (end.clone(), end.clone());
                up[c] += h;
                down[c] -= h;
                let column = (shooting.linearize(&up).unwrap().0 - shooting.linearize(&down).unwrap().0) / (2.0 * h);
                worst = worst.max((column - jac.column(c)).amax());
            }
            assert!(worst < 1e-6 * jac.amax(), "G5: {:e} of {:e}", worst, jac.amax());
        }
        let (field, energy) = saltation_identities(&s);
        assert!(field < 1e-10 && energy < 1e-10);
        // Hopping the other way is the mirror image (x, α and their rates change sign, T is
        // the same): the mirrored u solves r = 0 and is physical, and the opposite LS direction
        // leaves the bifurcation with ẋ of the other sign.
        let mut mirror = end.clone();
        for i in [1, 3, 6, 8, 9, 11, 13, 15] {
            mirror[i] = -mirror[i];
        }
        assert!(shooting.linearize(&mirror).unwrap().0.amax() < 1e-9);
        assert!(shooting.realizability(&mirror).unwrap().is_physical(1e-8));
        let back = switch(&shooting, sb, -1.0, 1.8, 4);
        let leaving = back.points.iter().skip(1).take(3).map(|p| shooting.solution(&p.u).unwrap().phases[1].start[3]);
        assert!(leaving.clone().all(|v| v.signum() == -xdot.signum()), "{:?}", leaving.collect::<Vec<_>>());
        eprintln!(
            "SLIP branch from SB{}: at H̄ = 1.8 T = {:.7}, ẋ = ±{:.7}, α at touchdown ±{:.7}",
            k + 1,
            s.period,
            xdot.abs(),
            alpha_td.abs()
        );
    }
}

#[test]
fn slip_harmonic_and_negative_flight_branches_solve_the_equations_but_are_not_physical() {
    let shooting = slip_shooting();
    let u0 = grazing_start(&shooting);
    let (hop, harmonic) = grazing_directions(&shooting, &u0);
    let opts = ContinuationOptions::default().initial_step(5e-2).max_step(0.5).target(2.0).progress(false);
    // S4: the harmonic branch, t₂ = 0 and T ≡ T_o; at H̄ = 2, {t₁, t₃} = {0.265969, 0.727490}.
    let t_o = 2.0 * PI / 40f64.sqrt();
    let orange = continuation(&shooting, &u0, Start::Along(harmonic), &opts).unwrap();
    assert_eq!(orange.stop, BranchStop::Target);
    for p in &orange.points[1..] {
        let s = shooting.solution(&p.u).unwrap();
        assert!((s.period - t_o).abs() < 1e-9 && s.durations()[1].abs() < 1e-12, "{:?}", s.durations());
    }
    let end = orange.points.last().unwrap();
    let mut t = shooting.solution(&end.u).unwrap().durations();
    t.swap(1, 2);
    t[..2].sort_by(f64::total_cmp);
    assert!((t[0] - 0.265969).abs() < 1e-6 && (t[1] - 0.727490).abs() < 1e-6, "{t:?}");
    // As3 fails (no flight): the re-simulation lifts off and flies instead.
    let real = shooting.realizability(&end.u).unwrap();
    assert!(!real.positive_times && !real.same_events && !real.is_physical(1e-3), "{real:?}");
    // S3 with v → −v: the dashed blue branch, t₂ < 0 and T < T_o, in closed form.
    let along = if hop[shooting.time_index(2)] < 0.0 { hop } else { -hop };
    let blue = continuation(&shooting, &u0, Start::Along(along), &opts.clone().target(1.3)).unwrap();
    assert_eq!(blue.stop, BranchStop::Target);
    for p in &blue.points[1..] {
        let s = shooting.solution(&p.u).unwrap();
        let (t1, t2, period, _) = hopping_in_place(s.energy, -1.0);
        let t = s.durations();
        assert!((t[0] - t1).abs() < 1e-8 && (t[1] - t2).abs() < 1e-8 && (s.period - period).abs() < 1e-8, "{t:?}");
        assert!(s.period < t_o);
    }
    for p in [&blue.points[1], &blue.points[blue.points.len() / 2], blue.points.last().unwrap()] {
        let real = shooting.realizability(&p.u).unwrap();
        assert!(!real.positive_times && !real.is_physical(1e-3), "{real:?}");
    }
}

#[test]
fn both_period_doublings_of_hopping_in_place_are_found_with_large_steps() {
    // A multiplier sits at −1 from SB1 (H̄ = 1 + π²/40 = 1.2467401) to H̄ = 1.2828093: a period
    // doubling at both ends, the monitor det(Φ + I) negative between. With the continuation's
    // max step 0.5 a step jumped over both and none was reported; the step is now refined where
    // the monitor heads for zero and turns around.
    let shooting = slip_shooting();
    let branch = hopping_branch(&shooting);
    let pds: Vec<f64> = branch.special(Special::PeriodDoubling).map(|p| p.u[18]).collect();
    let sb1 = 1.0 + std::f64::consts::PI.powi(2) / 40.0;
    assert_eq!(pds.len(), 2, "period doublings at {pds:?}");
    assert!((pds[0] - sb1).abs() < 1e-6 && (pds[1] - 1.2828093).abs() < 1e-6, "{pds:?}");
    // Between them the monitor is negative: a real pair of multipliers beyond −1.
    let inside: Vec<f64> =
        branch.points.iter().filter(|p| p.u[18] > pds[0] + 1e-4 && p.u[18] < pds[1] - 1e-4).filter_map(|p| p.monitor).collect();
    assert!(!inside.is_empty() && inside.iter().all(|&m| m < 0.0), "{inside:?}");
}

/// A rod swinging on a pivot and released at t = `release` to fly: each mode declares its own
/// coordinates and its own body (the same rod, placed by each chart), and the transition's chart
/// change puts the rod's centre where the pivot held it.
#[derive(Mechanics)]
#[mechanics(
    gravity = [0, 0, -g],
    mode(pinned,
        coordinates(th),
        frame(f = rot_y(th)),
        body(name = rod, mass = m, centre = f * [0, 0, -l], frame = f, inertia = diag(j, j, k)),
    ),
    mode(flying,
        coordinates(x, z, th),
        frame(f = rot_y(th)),
        body(name = rod, mass = m, centre = [x, 0, z], frame = f, inertia = diag(j, j, k)),
    ),
    transition(pinned -> flying, name = let_go, guard = release - t, law = reset(
        x = -l * th.sin(),
        z = -l * th.cos(),
        dot(x) = -l * th.cos() * dot(th),
        dot(z) = l * th.sin() * dot(th),
    )),
)]
struct ReleasedRod {
    m: f64,
    l: f64,
    j: f64,
    k: f64,
    g: f64,
    release: f64,
}

#[test]
fn bodies_declared_in_modes_make_each_modes_lagrangian() {
    let rod = ReleasedRod { m: 0.7, l: 0.4, j: 0.02, k: 0.001, g: 9.81, release: 0.37 };
    // Pinned: a physical pendulum, (j + m l²) θ̈ = −m g l sin θ.
    let x0 = rod.pinned_state([0.9], [0.0]);
    let pinned_accel = rod.pinned().accelerations(0.0, &routh::runtime::mechanics::take::<6, 2>(&x0.state)).unwrap()[0];
    assert!((pinned_accel + rod.m * rod.g * rod.l * 0.9f64.sin() / (rod.j + rod.m * rod.l * rod.l)).abs() < 1e-14);
    let opts = tight().ode(Options::default().rtol(1e-12).atol(1e-13).output(Output::Interval(0.05)));
    let sol = rod.run(x0).span(0.0..1.0).options(&opts).go().unwrap();
    assert_eq!(sol.impacts.len(), 1);
    let let_go = &sol.impacts[0];
    assert_eq!((let_go.guard, let_go.mode_after), ("let_go", ReleasedRod::FLYING));
    assert!((let_go.t - rod.release).abs() < 1e-12, "released at {}", let_go.t);
    // The same physical state on both sides: the energy and the spin carry over.
    assert!((let_go.energy_after - let_go.energy_before).abs() < 1e-13 * let_go.energy_before.abs().max(1.0));
    let (th, w) = (let_go.pre[0], let_go.pre[1]);
    let post = let_go.post;
    assert!((post[2] - th).abs() < 1e-15 && (post[5] - w).abs() < 1e-15);
    // Flight: the centre on its parabola, the rod spinning at a constant rate.
    let mut worst = 0.0f64;
    for ((&t, x), &mode) in sol.times.iter().zip(&sol.states).zip(&sol.modes) {
        if mode != ReleasedRod::FLYING {
            continue;
        }
        let tau = t - let_go.t;
        let expected = [
            post[0] + post[3] * tau,
            post[1] + post[4] * tau - rod.g * tau * tau / 2.0,
            th + w * tau,
            post[3],
            post[4] - rod.g * tau,
            w,
        ];
        worst = worst.max((0..6).map(|i| (x[i] - expected[i]).abs()).fold(0.0, f64::max));
    }
    println!(
        "released rod: energy jump {:.1e}, flight against the parabola {worst:.1e}",
        let_go.energy_after - let_go.energy_before
    );
    assert!(worst < 1e-10, "flight: {worst:e}");
}

/// A top-level damping force inherited by a mode with coordinates of its own (it declares no
/// forces): omitted items are inherited, whatever the mode's chart.
#[derive(Mechanics)]
#[mechanics(
    coordinates(y),
    lagrangian = m / 2 * dot(y).powi(2) - m * g * y,
    force(y = -c * dot(y)),
    mode(fall),
    mode(slide, coordinates(x, y), lagrangian = m / 2 * (dot(x).powi(2) + dot(y).powi(2)) - m * g * y),
    transition(fall -> slide, name = spread, guard = y, law = reset(x = 0, y = y, dot(x) = 1, dot(y) = dot(y))),
)]
struct DampedDrop {
    m: f64,
    g: f64,
    c: f64,
}

#[test]
fn a_mode_with_its_own_coordinates_inherits_the_top_level_forces() {
    use routh::runtime::HybridSystem;
    let d = DampedDrop { m: 2.0, g: 9.81, c: 0.8 };
    // ÿ = −g − c ẏ / m in both modes; ẍ = 0 in `slide` (the force has no x component).
    let fall = d.mode_field(DampedDrop::FALL, 0.0, &d.fall_state([1.0], [0.5]).state).unwrap();
    let slide = d.mode_field(DampedDrop::SLIDE, 0.0, &d.slide_state([0.3, 1.0], [0.7, 0.5]).state).unwrap();
    let want = -d.g - d.c * 0.5 / d.m;
    assert!((fall[1] - want).abs() < 1e-14, "fall: {fall}");
    assert!((slide[3] - want).abs() < 1e-14 && slide[2] == 0.0, "slide: {slide}");
}
