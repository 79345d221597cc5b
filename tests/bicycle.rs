//! The Whipple bicycle (Meijaard, Papadopoulos, Ruina and Schwab, Proc. R. Soc. A 463, 2007)
//! written with bodies, frames and rolling contacts: four bodies, the front wheel's contact as a
//! holonomic constraint (it fixes the pitch), and no slip at both contacts. Checked against the
//! benchmark's critical speeds and by simulation: self-stable inside the stable speed range,
//! weaving outside it, energy conserved.
//!
//! The model is `examples/models/whipple.rs`, shared with the example that draws the figure.

mod common;

use routh::prelude::*;

#[path = "../examples/models/whipple.rs"]
mod whipple;

use whipple::{Bicycle, benchmark, running, worst_roll};

/// The eigenvalues of the linearised upright motion at speed v that are not zero: those of the
/// Jacobian of the constrained field at upright straight running, by central differences
/// (the cyclic coordinates, the wheel angles and the constraints' own directions give zeros).
fn eigenvalues(b: &Bicycle, v: f64) -> Vec<routh::nalgebra::Complex<f64>> {
    let x = running(b, v, 0.0, 0.0);
    let j = common::jacobian_fd(b, 0.0, &x, 1e-6).unwrap();
    let mut ev: Vec<_> = j.complex_eigenvalues().iter().copied().filter(|l| l.norm() > 3e-4).collect();
    ev.sort_by(|a, b| a.re.total_cmp(&b.re));
    ev
}

/// The largest real part of the complex (weave) pair at speed v.
fn weave_growth(b: &Bicycle, v: f64) -> f64 {
    eigenvalues(b, v).iter().filter(|l| l.im.abs() > 1e-6).map(|l| l.re).fold(f64::MIN, f64::max)
}

/// The capsize eigenvalue at speed v: the real one nearest zero (away from its crossing, where it
/// is above the threshold that separates the structural zeros).
fn capsize_growth(b: &Bicycle, v: f64) -> f64 {
    let ev = eigenvalues(b, v);
    ev.iter().filter(|l| l.im.abs() <= 1e-6).map(|l| l.re).min_by(|a, c| a.abs().total_cmp(&c.abs())).unwrap()
}

/// The zero of a smooth function from four samples around it: v as the cubic through the points
/// (f(vᵢ), vᵢ), evaluated at f = 0 (inverse Lagrange interpolation).
fn inverse_interpolation(f: impl Fn(f64) -> f64, vs: [f64; 4]) -> f64 {
    let fs = vs.map(&f);
    (0..4).map(|i| vs[i] * (0..4).filter(|&j| j != i).map(|j| fs[j] / (fs[j] - fs[i])).product::<f64>()).sum()
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
    // Meijaard et al. 2007, Table 2 (v = 5 m/s): weave −0.775341882 ± 4.464867713i, capsize
    // −0.322866429, castor −14.078389767.
    let at5 = eigenvalues(&b, 5.0);
    assert_eq!(at5.len(), 4, "weave pair, capsize and castor: {at5:?}");
    let expected = [(-14.078389767, 0.0), (-0.775341882, 4.464867713), (-0.775341882, -4.464867713), (-0.322866429, 0.0)];
    for (l, (re, im)) in at5.iter().zip(expected) {
        assert!((l.re - re).abs() < 1e-7 && (l.im.abs() - f64::abs(im)).abs() < 1e-7, "{l} vs {re} ± {im}i");
    }
    // The stable speed range: weave speed 4.29238253634 m/s, capsize speed 6.02426201539 m/s.
    let weave = bisect(|v| weave_growth(&b, v), 4.0, 4.5);
    // Near its crossing the capsize eigenvalue is as small as the Jacobian's structural zeros,
    // so it is interpolated from four speeds around the crossing where it is not.
    let capsize = inverse_interpolation(|v| capsize_growth(&b, v), [6.01, 6.016, 6.032, 6.038]);
    println!("critical speeds: weave {weave:.11} m/s, capsize {capsize:.11} m/s");
    assert!((weave - 4.29238253634).abs() < 1e-7, "weave speed {weave}");
    assert!((capsize - 6.02426201539).abs() < 1e-7, "capsize speed {capsize}");
}

#[test]
fn self_stable_at_five_metres_per_second_and_weaving_at_three() {
    let b = benchmark();
    let opts = Options::default().rtol(1e-9).atol(1e-11).output(Output::Interval(0.05));
    // A roll-rate kick of 0.1 rad/s. At 5 m/s it dies out (weave −0.775 ± 4.46i, capsize −0.323);
    // at 3 m/s the weave grows (the model stops making sense once the bicycle has fallen, so the
    // run is short).
    let stable = b.simulate(running(&b, 5.0, 0.1, 0.0), 0.0..6.0, &opts).unwrap();
    let weaving = b.simulate(running(&b, 3.0, 0.1, 0.0), 0.0..3.0, &opts).unwrap();
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
