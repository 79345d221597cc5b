//! Symmetries and momentum maps: compile-time invariance, conservation and balance laws.

mod common;

use common::Rng;
use routh::prelude::*;

/// A particle in a central potential (Kepler), with the three rotation generators of so(3).
#[derive(Mechanics)]
#[mechanics(
    coordinates(x, y, z),
    lagrangian = m / 2 * (dot(x).powi(2) + dot(y).powi(2) + dot(z).powi(2)) + k / (x.powi(2) + y.powi(2) + z.powi(2)).sqrt(),
    symmetry(
        lx = generator(y = -z, z = y),
        ly = generator(z = -x, x = z),
        lz = generator(x = -y, y = x),
    ),
)]
struct Central {
    m: f64,
    k: f64,
}

/// A planar particle with isotropic linear drag: rotations are a symmetry of L but the force
/// pairs with the generator, so the angular momentum obeys dJ/dt = ⟨Q, ξ⟩ = −(c/m) J.
#[derive(Mechanics)]
#[mechanics(
    coordinates(x, y),
    lagrangian = m / 2 * (dot(x).powi(2) + dot(y).powi(2)) - k / 2 * (x.powi(2) + y.powi(2)),
    force(x = -c * dot(x), y = -c * dot(y)),
    symmetry(rotation = generator(x = -y, y = x)),
)]
struct Dragged {
    m: f64,
    k: f64,
    c: f64,
}

/// *Hybrid momentum maps*, Example 1 with its S¹×S¹ symmetry (rotation about the origin and spin), corrected
/// force; the corrected momentum map (erratum H5: J = (m(xẏ − yẋ), m k² φ̇)).
#[derive(Mechanics)]
#[mechanics(
    coordinates(x, y, phi),
    define(ang = x * dot(y) - y * dot(x)),
    lagrangian = m / 2 * (dot(x).powi(2) + dot(y).powi(2) + k.powi(2) * dot(phi).powi(2)),
    force(x = -2 * c * x * ang, y = -2 * c * y * ang),
    symmetry(rotation = generator(x = -y, y = x), cyclic(phi)),
)]
struct Disk {
    m: f64,
    k: f64,
    c: f64,
}

#[test]
fn so3_momenta_are_the_angular_momentum_and_are_conserved() {
    let p = Central { m: 1.3, k: 2.0 };
    assert_eq!(Central::SYMMETRIES, ["lx", "ly", "lz"]);
    let x0 = p.state([1.0, 0.2, -0.3], [0.1, 1.1, 0.4]);
    let l = |x: &SVector<f64, 6>| {
        let (r, v) = (SVector::<f64, 3>::new(x[0], x[1], x[2]), SVector::<f64, 3>::new(x[3], x[4], x[5]));
        p.m * r.cross(&v)
    };
    let sol = p.run(x0).span(0.0..20.0).rtol(1e-11).atol(1e-13).go().unwrap();
    let l0 = l(&x0);
    for (t, x) in sol.iter() {
        let j = SVector::<f64, 3>::new(p.lx_momentum(t, x), p.ly_momentum(t, x), p.lz_momentum(t, x));
        // The generated momentum maps are the components of m r × v …
        assert!((j - l(x)).norm() < 1e-12 * (1.0 + l(x).norm()));
        // … conserved along the motion, with identically zero balance law.
        assert!((j - l0).norm() < 1e-8, "angular momentum drifts at t = {t}");
        assert_eq!(p.lx_momentum_rate(t, x), 0.0);
    }
}

#[test]
fn a_force_that_pairs_with_the_generator_gives_the_balance_law() {
    let p = Dragged { m: 0.7, k: 3.0, c: 0.2 };
    let mut rng = Rng::new(51);
    for _ in 0..20 {
        let x = rng.vector::<4>(-1.0, 1.0);
        let j = p.rotation_momentum(0.0, &x);
        assert!((j - p.m * (x[0] * x[3] - x[1] * x[2])).abs() < 1e-14);
        // dJ/dt along the flow equals the generated balance law ⟨Q, ξ⟩ = −(c/m) J.
        let dx = p.field(0.0, &x).unwrap();
        let h = 1e-6;
        let djdt = (p.rotation_momentum(0.0, &(x + h * dx)) - p.rotation_momentum(0.0, &(x - h * dx))) / (2.0 * h);
        assert!((djdt - p.rotation_momentum_rate(0.0, &x)).abs() < 1e-8);
        assert!((p.rotation_momentum_rate(0.0, &x) + p.c / p.m * j).abs() < 1e-14);
    }
    // Along a solution J decays as e^{−ct/m}.
    let x0 = p.state([1.0, 0.0], [0.0, 1.0]);
    let sol = p.run(x0).span(0.0..5.0).rtol(1e-11).atol(1e-13).go().unwrap();
    let j0 = p.rotation_momentum(0.0, &x0);
    for (t, x) in sol.iter() {
        assert!((p.rotation_momentum(t, x) - j0 * (-p.c / p.m * t).exp()).abs() < 1e-9);
    }
}

#[test]
fn disk_momentum_map_matches_the_corrected_formula_and_is_conserved_in_flight() {
    let d = Disk { m: 1.2, k: 0.07, c: 1.0 };
    let x0 = d.state([0.5, 0.3, 0.0], [0.1, 0.8, 1.0]);
    let sol = d.run(x0).span(0.0..2.0).rtol(1e-11).atol(1e-13).go().unwrap();
    let (j1, j2) = (d.rotation_momentum(0.0, &x0), d.phi_momentum(0.0, &x0));
    assert!((j1 - d.m * (0.5 * 0.8 - 0.3 * 0.1)).abs() < 1e-15);
    assert!((j2 - d.m * d.k * d.k * 1.0).abs() < 1e-15);
    for (t, x) in sol.iter() {
        assert!((d.rotation_momentum(t, x) - j1).abs() < 1e-9 && (d.phi_momentum(t, x) - j2).abs() < 1e-12);
    }
}

/// A true symmetry behind an identity: cos 2φ − cos²φ + sin²φ ≡ 0, so φ is cyclic although it
/// appears in L (the zero test must accept it, in high precision, not just by a float tolerance).
#[derive(Mechanics)]
#[mechanics(
    coordinates(r, phi),
    lagrangian = m / 2 * (dot(r).powi(2) + (r * dot(phi)).powi(2))
        - k * ((2 * phi).cos() - phi.cos().powi(2) + phi.sin().powi(2)) - k * r.powi(2),
    symmetry(cyclic(phi)),
)]
struct IdentityInvariant {
    m: f64,
    k: f64,
}

#[test]
fn a_symmetry_behind_an_identity_is_accepted_and_conserved() {
    let s = IdentityInvariant { m: 1.5, k: 1e12 };
    let x0 = s.state([1.0, 0.3], [0.0, 1.0]);
    let sol = s.run(x0).span(0.0..1e-4).rtol(1e-12).atol(1e-14).go().unwrap();
    let (t, x) = sol.last().unwrap();
    let j0 = s.phi_momentum(0.0, &x0);
    assert!((s.phi_momentum(t, x) - j0).abs() < 1e-9 * j0.abs(), "J drifts");
}

/// A ball rolling on a turntable turning at the rate `om`, its angular velocity in space as
/// `define`s of ZXZ Euler angles: the rolling constraints written with the quasi-velocities (the
/// guide's spelling).
#[derive(Mechanics)]
#[mechanics(
    coordinates(x, y, ph, th, ps),
    define(
        wx = dot(th) * ph.cos() + dot(ps) * th.sin() * ph.sin(),
        wy = dot(th) * ph.sin() - dot(ps) * th.sin() * ph.cos(),
        wz = dot(ph) + dot(ps) * th.cos(),
    ),
    lagrangian = m / 2 * (dot(x).powi(2) + dot(y).powi(2)) + i / 2 * (wx.powi(2) + wy.powi(2) + wz.powi(2)),
    constraint(slip_x = dot(x) - r * wy + om * y, slip_y = dot(y) + r * wx - om * x),
    symmetry(rotation = generator(x = -y, y = x, ph = 1)),
)]
struct Turntable {
    m: f64,
    i: f64,
    r: f64,
    om: f64,
}

/// The same ball with the constraints as one-forms, multiplied out.
#[derive(Mechanics)]
#[mechanics(
    coordinates(x, y, ph, th, ps),
    define(
        wx = dot(th) * ph.cos() + dot(ps) * th.sin() * ph.sin(),
        wy = dot(th) * ph.sin() - dot(ps) * th.sin() * ph.cos(),
        wz = dot(ph) + dot(ps) * th.cos(),
    ),
    lagrangian = m / 2 * (dot(x).powi(2) + dot(y).powi(2)) + i / 2 * (wx.powi(2) + wy.powi(2) + wz.powi(2)),
    constraint(
        slip_x = dx - r * (ph.sin() * dth - th.sin() * ph.cos() * dps) + om * y * dt,
        slip_y = dy + r * (ph.cos() * dth + th.sin() * ph.sin() * dps) - om * x * dt,
    ),
    symmetry(rotation = generator(x = -y, y = x, ph = 1)),
)]
struct TurntableOneForms {
    m: f64,
    i: f64,
    r: f64,
    om: f64,
}

#[test]
fn every_spelling_of_the_turntable_constraints_gets_the_moving_energy() {
    // The quasi-velocity spelling got no rotation_moving_energy: its constant c = ω was a quotient
    // whose coordinates cancel only numerically. Both spellings now have it, agree, and conserve
    // it while the energy changes (the turntable does work).
    let (m, i, r, om) = (1.0, 0.4, 0.5, 0.7);
    let a = Turntable { m, i, r, om };
    let b = TurntableOneForms { m, i, r, om };
    let q = [0.4, -0.2, 0.3, 1.1, 0.2];
    let guess = [0.0, 0.0, 0.5, 0.6, -0.4];
    let known = [false, false, true, true, true];
    let x0 = a.state_with_known_velocities(0.0, q, guess, known).unwrap();
    assert!((a.rotation_moving_energy(0.0, &x0) - b.rotation_moving_energy(0.0, &x0)).abs() < 1e-14);
    let sol = a.run(x0).span(0.0..5.0).rtol(1e-11).atol(1e-12).go().unwrap();
    let (e0, ej0) = (a.energy(0.0, &x0), a.rotation_moving_energy(0.0, &x0));
    let (mut worst, mut energy_change) = (0.0f64, 0.0f64);
    for (t, x) in sol.iter() {
        worst = worst.max((a.rotation_moving_energy(t, x) - ej0).abs());
        energy_change = energy_change.max((a.energy(t, x) - e0).abs());
    }
    assert!(worst < 1e-9 && energy_change > 1e-3, "moving energy drift {worst:e}, energy change {energy_change:e}");
}

/// A free particle in the plane with the translations and the rotation: SE(2).
#[derive(Mechanics)]
#[mechanics(
    coordinates(x, y),
    lagrangian = m / 2 * (dot(x).powi(2) + dot(y).powi(2)),
    symmetry(tx = generator(x = 1), ty = generator(y = 1), rot = generator(x = -y, y = x)),
)]
struct PlanarFree {
    m: f64,
}

/// The same particle with one translation and the rotation only: their bracket is the other
/// translation, which is not declared.
#[derive(Mechanics)]
#[mechanics(
    coordinates(x, y),
    lagrangian = m / 2 * (dot(x).powi(2) + dot(y).powi(2)),
    symmetry(tx = generator(x = 1), rot = generator(x = -y, y = x)),
)]
struct PlanarPartial {
    m: f64,
}

/// [X, Y]ⁱ = Xʲ∂ⱼYⁱ − Yʲ∂ⱼXⁱ by hand: for lx = −z∂_y + y∂_z and ly = z∂_x − x∂_z,
/// [lx, ly] = y∂_x − x∂_y = −lz (a left action reverses the brackets of so(3)); for SE(2),
/// [tx, rot] = ∂_y = ty, [ty, rot] = −∂_x = −tx, [tx, ty] = 0.
#[test]
fn the_declared_generators_brackets_are_found_and_proved() {
    let c = Central::STRUCTURE_CONSTANTS.expect("so(3) closes");
    for (a, b, d) in [(0, 1, 2), (1, 2, 0), (2, 0, 1)] {
        let want: [f64; 3] = std::array::from_fn(|e| if e == d { -1.0 } else { 0.0 });
        assert_eq!((c[a][b], c[b][a]), (want, want.map(|w| -w)), "[{a}, {b}]");
    }
    assert!((0..3).all(|a| c[a][a] == [0.0; 3]));
    let c = PlanarFree::STRUCTURE_CONSTANTS.expect("se(2) closes");
    assert_eq!(c[0][1], [0.0, 0.0, 0.0]);
    assert_eq!(c[0][2], [0.0, 1.0, 0.0]);
    assert_eq!(c[1][2], [-1.0, 0.0, 0.0]);
    assert_eq!(c[2][0], [0.0, -1.0, 0.0]);
    // Commuting generators: the rotation and the disk's spin.
    assert_eq!(Disk::STRUCTURE_CONSTANTS, Some([[[0.0; 2]; 2]; 2]));
    // [tx, rot] = ty is not declared: no algebra.
    assert_eq!(PlanarPartial::STRUCTURE_CONSTANTS, None);
}
