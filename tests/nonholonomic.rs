//! Nonholonomic reduction (`reduce(nonholonomic(...), velocities(...))`): Maggi's equations on a
//! section, the dropped coordinates proved absent (*Affine constraints reduction*, §2.5 and §3.4).

#[path = "../examples/models/chaplygin.rs"]
#[allow(dead_code)]
mod chaplygin;

use chaplygin::{ChaplyginSleigh as Sleigh, SleighReduced};
use routh::prelude::*;

#[test]
fn the_reduced_sleigh_is_chaplygins_system() {
    let s = Sleigh { m: 2.0, i: 0.3, a: 0.4 };
    let red = SleighReduced { m: s.m, i: s.i, a: s.a };
    for (v, w) in [(1.0, 0.5), (-0.3, 2.0), (0.7, -1.1)] {
        let x = red.state([], [v, w]);
        let f = VectorField::field(&red, 0.0, &x).unwrap();
        let want = [s.a * w * w, -s.m * s.a * v * w / (s.i + s.m * s.a * s.a)];
        assert!((f[0] - want[0]).abs() < 1e-12 && (f[1] - want[1]).abs() < 1e-12, "{f:?} vs {want:?}");
    }
}

#[test]
fn reduced_and_reconstructed_is_the_full_sleigh() {
    let s = Sleigh { m: 2.0, i: 0.3, a: 0.4 };
    let (th, v, w) = (0.3, 1.0, 0.8);
    let x0 = s.state([0.1, -0.2, th], [v * th.cos() - s.a * w * th.sin(), v * th.sin() + s.a * w * th.cos(), w]);
    let (red, xr, g) = s.sleigh_reduced(0.0, &x0);
    assert!((xr[0] - v).abs() < 1e-15 && (xr[1] - w).abs() < 1e-15 && g == [0.1, -0.2, th]);
    let options = Options::default().rtol(1e-12).atol(1e-12).output(Output::Times(vec![2.0, 5.0, 10.0]));
    let full = s.simulate(x0, 0.0..10.0, &options).unwrap();
    let rec = red.simulate_reconstructed(xr, g, 0.0..10.0, &options).unwrap();
    let mut worst = 0.0f64;
    for (a, b) in full.states.iter().zip(&rec.states) {
        worst = worst.max((a - b).amax());
    }
    eprintln!("sleigh: reduced + reconstructed vs full over 10 s: {worst:.1e}");
    assert!(worst < 1e-9, "{worst:e}");
}

/// The README's rolling disk (`tests/ui/reduction_with_constraints.rs` refuses its Routh
/// reduction): reduced nonholonomically, by its rolling and heading rates, with every coordinate
/// dropped.
#[derive(Mechanics)]
#[mechanics(
    coordinates(x, y, th, phi),
    lagrangian = m / 2 * (dot(x).powi(2) + dot(y).powi(2)) + i / 2 * dot(phi).powi(2) + j / 2 * dot(th).powi(2),
    constraint(roll_x = dx - r * th.cos() * dphi, roll_y = dy - r * th.sin() * dphi),
    reduce(nonholonomic(x, y, th, phi), velocities(phi, th), name = DiskReduced),
)]
pub struct RollingDisk {
    pub m: f64,
    pub i: f64,
    pub j: f64,
    pub r: f64,
}

#[test]
fn the_rolling_disk_reduces_to_its_nonholonomic_momenta() {
    let d = RollingDisk { m: 1.0, i: 0.5, j: 0.25, r: 1.0 };
    let x0 = d.state([0.0, 0.0, 0.0, 0.0], [1.0, 0.0, 1.0, 1.0]);
    let (red, xr, g) = d.disk_reduced(0.0, &x0);
    // The nonholonomic momentum equations: (I + m r²) φ̈ = 0 and J θ̈ = 0, so u̇ ≡ 0; the reduced
    // matrix is diag(I + m r², J).
    let m = red.mass(0.0, &xr);
    assert_eq!((m[(0, 0)], m[(0, 1)], m[(1, 1)]), (d.i + d.m * d.r * d.r, 0.0, d.j));
    assert_eq!(VectorField::field(&red, 0.0, &red.state([], [0.7, -1.3])).unwrap().amax(), 0.0);
    let options = Options::default().rtol(1e-12).atol(1e-12).output(Output::Times(vec![1.0, 3.0]));
    let full = d.simulate(x0, 0.0..3.0, &options).unwrap();
    let rec = red.simulate_reconstructed(xr, g, 0.0..3.0, &options).unwrap();
    // After 1 s the disk is at (sin 1, 1 − cos 1) on its circle (the README's (0.8415, 0.4597)).
    let at1 = &rec.states[0];
    assert!((at1[0] - 1f64.sin()).abs() < 1e-10 && (at1[1] - (1.0 - 1f64.cos())).abs() < 1e-10, "{at1:?}");
    for (a, b) in full.states.iter().zip(&rec.states) {
        assert!((a - b).amax() < 1e-10, "{:e}", (a - b).amax());
    }
    // The energy is the reduced one, ½ uᵀ M u.
    let e = red.energy(0.0, &xr);
    assert!((e - d.energy(0.0, &x0)).abs() < 1e-15 && (e - 0.5 * (1.5 + 0.25)).abs() < 1e-15);
}
