//! Multi-mode models: the bouncing rod and the SLIP hopper of *Hybrid periodic orbits*
//! (§4.3–4.4; `docs/references.md`), as modes joined by transitions.

mod common;

use std::f64::consts::PI;

use common::{Rng, rel_err};
use routh::prelude::*;
use routh::runtime::{HybridOptions, HybridStop};

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

/// SLIP-like hopper with a swing leg (*Hybrid periodic orbits*, §4.4). Stance: point mass on a massless spring leg,
/// (α, l) about the foot, mass at (−l sin α, l cos α). Flight: (x, y) of the mass and the leg angle
/// α swinging harmonically with ω; the leg's inertia `eps` → 0 (the paper's massless-leg limit), so
/// it carries no energy. Resets are the chart changes of the paper (x is kept in flight, relative to
/// the last foot position).
#[derive(Mechanics)]
#[mechanics(
    mode(stance,
        coordinates(alpha, l),
        lagrangian = m / 2 * (dot(l).powi(2) + (l * dot(alpha)).powi(2)) - m * g * l * alpha.cos()
            - k / 2 * (l - l0).powi(2),
    ),
    mode(flight,
        coordinates(x, y, alpha),
        lagrangian = m / 2 * (dot(x).powi(2) + dot(y).powi(2)) - m * g * y
            + eps / 2 * (dot(alpha).powi(2) - (w * alpha).powi(2)),
    ),
    transition(stance -> flight, name = liftoff, guard = l0 - l, law = reset(
        x = -l * alpha.sin(),
        y = l * alpha.cos(),
        dot(x) = -dot(l) * alpha.sin() - l * dot(alpha) * alpha.cos(),
        dot(y) = dot(l) * alpha.cos() - l * dot(alpha) * alpha.sin(),
    )),
    transition(flight -> stance, name = touchdown, guard = y - l0 * alpha.cos(), law = reset(
        l = l0,
        dot(alpha) = -(alpha.cos() * dot(x) + alpha.sin() * dot(y)) / l0,
        dot(l) = alpha.cos() * dot(y) - alpha.sin() * dot(x),
    )),
)]
struct Hopper {
    m: f64,
    g: f64,
    k: f64,
    l0: f64,
    w: f64,
    eps: f64,
}

fn tight() -> HybridOptions {
    HybridOptions { ode: Options::default().rtol(1e-12).atol(1e-13), ..HybridOptions::default() }
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
    let sol = rod.simulate(Rod::LEFT, x0, 0.0..3.0, &tight()).unwrap();
    assert!(sol.impacts.len() >= 4, "{} impacts", sol.impacts.len());
    assert!((sol.impacts[0].t - a).abs() < 1e-9, "first contact {} vs {a}", sol.impacts[0].t);
    let e0 = rod.left().energy(0.0, &x0);
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
    let sol = hop.simulate(Hopper::FLIGHT, x0, 0.0..6.0, &tight()).unwrap();
    assert!(sol.impacts.len() >= 6, "{} transitions", sol.impacts.len());
    let e0 = sol.impacts[0].energy_before;
    for (k, imp) in sol.impacts.iter().enumerate() {
        let (from, to, name) =
            if k % 2 == 0 { (Hopper::FLIGHT, Hopper::STANCE, "touchdown") } else { (Hopper::STANCE, Hopper::FLIGHT, "liftoff") };
        assert_eq!((imp.mode_before, imp.mode_after, imp.guard), (from, to, name));
        assert!((imp.energy_after - imp.energy_before).abs() < 1e-10, "energy jump {} at {name}", imp.energy_after - imp.energy_before);
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
    let sol = hop.simulate(Hopper::FLIGHT, hop.flight_state([0.0, y0, 0.0], [0.0, 0.0, 0.0]), 0.0..5.0, &tight()).unwrap();
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
    use routh::runtime::{FD_STEP, HybridSystem, jacobian_fd};
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
