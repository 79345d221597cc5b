//! The Whipple bicycle (Meijaard, Papadopoulos, Ruina and Schwab, Proc. R. Soc. A 463, 2007)
//! written with bodies, frames and rolling contacts: four bodies, the front wheel's contact as a
//! holonomic constraint (it fixes the pitch), and no slip at both contacts. Checked against the
//! benchmark's critical speeds and by simulation: self-stable inside the stable speed range,
//! weaving outside it, energy conserved.
//!
//! The model is `examples/models/whipple.rs`, shared with the example that draws the figure.

mod common;

use routh::prelude::*;
use routh::runtime::linearize::Selection;

#[path = "../examples/models/whipple.rs"]
mod whipple;

use whipple::{Bicycle, benchmark, running, worst_roll};

#[path = "../examples/models/whipple_by_hand.rs"]
mod whipple_by_hand;

/// The roll–steer selection of the benchmark: roll and steer independent, the rear wheel's rate
/// the third independent velocity (the speed), the contact point, yaw and wheel angles ignorable
/// (proved so by the linearisation), the pitch dependent through the front contact.
fn roll_and_steer() -> Selection {
    Selection::new()
        .coordinates(["phi", "delta"])
        .velocities(["phi", "delta", "spin_r"])
        .ignorable(["x", "y", "psi", "spin_r", "spin_f"])
}

/// The eigenvalues of the linearised upright motion at speed v on the constraint manifold: of its
/// roll–steer block, the speed decoupled (exact Jacobians: no structural zeros of the constraints'
/// or the ignorable coordinates' directions to filter out).
fn eigenvalues(b: &Bicycle, v: f64) -> Vec<routh::nalgebra::Complex<f64>> {
    let lin = b.linearize_constrained(0.0, &running(b, v, 0.0, 0.0), &roll_and_steer()).unwrap();
    // The speed's row and column: it neither drives nor follows roll and steer at linear order.
    assert!(lin.a.row(4).amax() < 1e-12 && lin.a.column(4).amax() < 1e-12, "{}", lin.a);
    let block = lin.a.view((0, 0), (4, 4)).into_owned();
    let mut ev: Vec<_> = block.complex_eigenvalues().iter().copied().collect();
    ev.sort_by(|a, b| a.re.total_cmp(&b.re));
    ev
}

/// The largest real part of the complex (weave) pair at speed v.
fn weave_growth(b: &Bicycle, v: f64) -> f64 {
    eigenvalues(b, v).iter().filter(|l| l.im.abs() > 1e-6).map(|l| l.re).fold(f64::MIN, f64::max)
}

/// The capsize eigenvalue at speed v: the real one nearest zero.
fn capsize_growth(b: &Bicycle, v: f64) -> f64 {
    let ev = eigenvalues(b, v);
    ev.iter().filter(|l| l.im.abs() <= 1e-6).map(|l| l.re).min_by(|a, c| a.abs().total_cmp(&c.abs())).unwrap()
}

/// The zero of a function with a sign change on [lo, hi], by bisection to 1e-10.
fn bisect(f: impl Fn(f64) -> f64, mut lo: f64, mut hi: f64) -> f64 {
    let flo = f(lo);
    assert!(flo * f(hi) < 0.0, "no sign change on [{lo}, {hi}]");
    while hi - lo > 1e-10 {
        let mid = 0.5 * (lo + hi);
        if f(mid) * flo > 0.0 { lo = mid } else { hi = mid }
    }
    0.5 * (lo + hi)
}

#[test]
fn benchmark_eigenvalues_and_critical_speeds() {
    let b = benchmark();
    // Meijaard et al. 2007, Table 2 (v = 5 m/s, 14 digits): weave −0.77534188219585 ±
    // 4.46486771378823i, capsize −0.32286642900409, castor −14.07838969279822 (the castor value
    // quoted here before, −14.078389767, was 7e-8 off; finite differences could not tell).
    let at5 = eigenvalues(&b, 5.0);
    assert_eq!(at5.len(), 4, "weave pair, capsize and castor: {at5:?}");
    let expected = [
        (-14.07838969279822, 0.0),
        (-0.77534188219585, 4.46486771378823),
        (-0.77534188219585, -4.46486771378823),
        (-0.32286642900409, 0.0),
    ];
    for (l, (re, im)) in at5.iter().zip(expected) {
        assert!((l.re - re).abs() < 1e-11 && (l.im.abs() - f64::abs(im)).abs() < 1e-11, "{l} vs {re} ± {im}i");
    }
    // The stable speed range: weave speed 4.29238253634 m/s, capsize speed 6.02426201539 m/s (to
    // the benchmark's 11 digits).
    let weave = bisect(|v| weave_growth(&b, v), 4.0, 4.5);
    let capsize = bisect(|v| capsize_growth(&b, v), 5.5, 6.5);
    println!("critical speeds: weave {weave:.11} m/s, capsize {capsize:.11} m/s");
    assert!((weave - 4.29238253634).abs() < 2e-10, "weave speed {weave}");
    assert!((capsize - 6.02426201539).abs() < 2e-10, "capsize speed {capsize}");
}

#[test]
fn self_stable_at_five_metres_per_second_and_weaving_at_three() {
    let b = benchmark();
    let opts = Options::default().rtol(1e-9).atol(1e-11).output(Output::Interval(0.05));
    // A roll-rate kick of 0.1 rad/s. At 5 m/s it dies out (weave −0.775 ± 4.46i, capsize −0.323);
    // at 3 m/s the weave grows (the model stops making sense once the bicycle has fallen, so the
    // run is short).
    let stable = b.run(running(&b, 5.0, 0.1, 0.0)).span(0.0..6.0).options(&opts).go().unwrap();
    let weaving = b.run(running(&b, 3.0, 0.1, 0.0)).span(0.0..3.0).options(&opts).go().unwrap();
    let (early, late) = (worst_roll(&stable, 0.0, 1.0), worst_roll(&stable, 5.0, 6.0));
    let (early3, late3) = (worst_roll(&weaving, 0.0, 1.0), worst_roll(&weaving, 2.0, 3.0));
    println!(
        "roll after a kick (max over the first and last second): at 5 m/s {early:.4} → {late:.2e} rad; at 3 m/s {early3:.4} → {late3:.4} rad"
    );
    assert!(late < 0.05 * early, "the kick decays at 5 m/s");
    assert!(late3 > 3.0 * early3, "the weave grows at 3 m/s");
    // No dissipation: energy and the constraints are kept.
    for sol in [&stable, &weaving] {
        let e0 = b.energy(0.0, &sol.states[0]);
        for (t, x) in sol.iter() {
            assert!((b.energy(t, x) - e0).abs() < 1e-9 * e0.abs(), "energy at t = {t}");
            assert!(b.velocity_residuals(t, x).norm() < 1e-9 && b.position_residuals(t, x).norm() < 1e-9);
        }
    }
}

#[test]
fn linearised_matrices_are_the_benchmarks() {
    // Meijaard et al. 2007, eq. (5.4) (to 1e-14): M q̈ + v C₁ q̇ + (g K₀ + v² K₂) q = 0 in q = (φ, δ).
    // From the generated linearisation on the constraint manifold (exact field and constraint
    // Jacobians, the implicit function theorem): roll and steer independent, the rear wheel's rate
    // the third independent velocity (the speed), the contact point, yaw and wheel angles ignorable
    // (proved), the pitch dependent through the front contact. Our steer turns left for δ > 0 (z
    // up), the benchmark's right (z down): its matrices are S X S here, S = diag(1, −1).
    let m_ref = [[80.81722, 2.31941332208709], [2.31941332208709, 0.29784188199686]];
    let c1_ref = [[0.0, 33.86641391492494], [-0.85035641456978, 1.68540397397560]];
    let k0_ref = [[-80.95, -2.59951685249872], [-2.59951685249872, -0.80329488458618]];
    let k2_ref = [[0.0, 76.59734589573222], [0.0, 2.65431523794604]];
    let b = benchmark();
    let selection = roll_and_steer();
    let at = |v: f64| {
        let lin = b.linearize_constrained(0.0, &running(&b, v, 0.0, 0.0), &selection).unwrap();
        assert_eq!(lin.states, ["phi", "delta", "dot(phi)", "dot(delta)", "dot(spin_r)"]);
        lin.mechanical.expect("roll and steer rates are independent")
    };
    let (v1, v2) = (3.0, 5.0);
    let (lo, hi) = (at(v1), at(v2));
    let mut worst: f64 = 0.0;
    for i in 0..2 {
        for j in 0..2 {
            let sign = if i == j { 1.0 } else { -1.0 };
            let (m_ref, c1_ref, k0_ref, k2_ref) =
                (sign * m_ref[i][j], sign * c1_ref[i][j], sign * k0_ref[i][j], sign * k2_ref[i][j]);
            let k2 = (hi.stiffness[(i, j)] - lo.stiffness[(i, j)]) / (v2 * v2 - v1 * v1);
            let k0 = (lo.stiffness[(i, j)] - v1 * v1 * k2) / b.g;
            let errors = [
                hi.mass[(i, j)] - m_ref,
                lo.mass[(i, j)] - m_ref,
                hi.damping[(i, j)] / v2 - c1_ref,
                lo.damping[(i, j)] / v1 - c1_ref,
                k0 - k0_ref,
                k2 - k2_ref,
            ];
            worst = errors.iter().fold(worst, |w, e| w.max(e.abs()));
        }
    }
    println!("M, C₁, K₀, K₂ against the benchmark: worst difference {worst:.1e}");
    assert!(worst < 1e-10, "worst difference {worst:e}: M = {}, C = {}, K = {}", hi.mass, hi.damping, hi.stiffness);
    // The speed decouples at upright running: no coupling of roll and steer to the wheel's rate.
    assert!(hi.mass[(0, 2)].abs() < 1e-12 && hi.mass[(1, 2)].abs() < 1e-12, "{}", hi.mass);
}

#[test]
fn the_model_with_bodies_is_the_model_derived_by_hand() {
    // The bicycle written with bodies, frames and rolling items against the same bicycle with every
    // rotation, angular velocity, contact point and no-slip row derived by hand into 88 scalar
    // defines: the same M and f at random states, the same constraints (the same residuals of the
    // front contact's height, and no-slip rows spanning the same space), the same accelerations on
    // the constraints and the same linearisation at 5 m/s.
    let b = benchmark();
    let h = whipple_by_hand::from_bodies(&b);
    let mut rng = common::Rng::new(2007);
    let mut worst: f64 = 0.0;
    for _ in 0..20 {
        let mut x = rng.vector::<16>(-1.0, 1.0);
        x[3] *= 0.5; // |φ| < π/2: the rear wheel's chart
        let (m1, m2) = (b.mass_matrix(0.0, &x), h.mass_matrix(0.0, &x));
        let (f1, f2) = (b.forcing(0.0, &x), h.forcing(0.0, &x));
        worst = worst.max((m1 - m2).amax() / m1.amax()).max((f1 - f2).amax() / f1.amax().max(1.0));
        let (r1, r2) = (b.position_residuals(0.0, &x), h.position_residuals(0.0, &x));
        worst = worst.max((r1 - r2).amax());
        // Row spaces: each model's rows are combinations of the other's (the stacked rank is 5).
        let (a1, _) = b.constraint_rows(0.0, &x);
        let (a2, _) = h.constraint_rows(0.0, &x);
        let stacked = routh::nalgebra::DMatrix::from_fn(10, 8, |i, j| if i < 5 { a1[(i, j)] } else { a2[(i - 5, j)] });
        let sv = stacked.singular_values();
        assert!(sv[5] < 1e-12 * sv[0], "rows of different spaces: {sv}");
    }
    let x = running(&b, 4.0, 0.3, -0.2);
    let (q1, q2) = (b.accelerations(0.0, &x).unwrap(), h.accelerations(0.0, &x).unwrap());
    worst = worst.max((q1 - q2).amax() / q1.amax());
    let selection = roll_and_steer();
    let (l1, l2) = (
        b.linearize_constrained(0.0, &running(&b, 5.0, 0.0, 0.0), &selection).unwrap(),
        h.linearize_constrained(0.0, &running(&b, 5.0, 0.0, 0.0), &selection).unwrap(),
    );
    worst = worst.max((&l1.a - &l2.a).amax() / l1.a.amax());
    println!("bodies against the hand-derived model: M, f, residuals, accelerations, A within {worst:.1e} (relative)");
    assert!(worst < 1e-12, "{worst:e}");
}
