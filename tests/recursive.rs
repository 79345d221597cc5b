//! Recursive dynamics (`derive::dynamics`): q̈ by the articulated-body recursion along a model's
//! kinematic tree against the dense route q̈ = M⁻¹f of the same model (two independent routes: the
//! recursion never forms M), on chains, PyDy's pendulum on a cart, a branched tree with a link's mass
//! at its middle and its joint at its end, particles in space, time-dependent potentials and forces,
//! impacts; and which models keep the dense path.

#[macro_use]
mod common;

use common::Rng;
use routh::nalgebra::{DMatrix, DVector};
use routh::prelude::*;

#[allow(dead_code)]
mod chains {
    use routh::prelude::*;
    include!("../benches/chain_models.rs");
}

/// The largest relative gap between the model's q̈ and M⁻¹f (LU, independent of the generated
/// solver) over random states.
fn worst_gap<const N: usize, const D: usize>(
    accelerations: impl Fn(&SVector<f64, D>) -> SVector<f64, N>,
    dense: impl Fn(&SVector<f64, D>) -> (SMatrix<f64, N, N>, SVector<f64, N>),
    seed: u64,
) -> f64 {
    let mut rng = Rng::new(seed);
    let mut worst = 0.0f64;
    for _ in 0..20 {
        let x: SVector<f64, D> = rng.vector(-2.0, 2.0);
        let a = accelerations(&x);
        let (m, f) = dense(&x);
        let (m, f) = (DMatrix::from_column_slice(N, N, m.as_slice()), DVector::from_column_slice(f.as_slice()));
        let b = m.lu().solve(&f).expect("a regular M");
        let gap = a.iter().zip(b.iter()).map(|(p, q)| (p - q).abs()).fold(0.0, f64::max);
        worst = worst.max(gap / (1.0 + b.amax()));
    }
    worst
}

/// The n-link chains take the recursion from 12 links on (and when asked), and it is M⁻¹f to
/// round-off at every size, with unequal masses and lengths.
#[test]
fn chains_recursive_and_dense_agree() {
    assert_eq!(
        (chains::Chain10::DYNAMICS, chains::Chain20::DYNAMICS, chains::Chain50::DYNAMICS),
        ("dense", "recursive", "recursive")
    );
    assert_eq!((chains::Chain5Recursive::DYNAMICS, chains::Chain20Dense::DYNAMICS), ("recursive", "dense"));
    let c5 = chains::Chain5Recursive {
        m1: 1.0,
        l1: 1.0,
        m2: 0.5,
        l2: 0.8,
        m3: 0.7,
        l3: 0.6,
        m4: 0.4,
        l4: 0.9,
        m5: 0.3,
        l5: 0.5,
        g: 9.81,
    };
    let gap = worst_gap(|x| c5.accelerations(0.0, x).unwrap(), |x| (c5.mass_matrix(0.0, x), c5.forcing(0.0, x)), 1);
    assert!(gap < 1e-13, "5 links: {gap:e}");
    let mut c30 = chains::Chain30::uniform(1.0, 1.0, 9.81);
    c30.m7 = 0.2;
    c30.l12 = 2.5;
    c30.m30 = 3.0;
    let gap = worst_gap(|x| c30.accelerations(0.0, x).unwrap(), |x| (c30.mass_matrix(0.0, x), c30.forcing(0.0, x)), 2);
    assert!(gap < 1e-10, "30 links: {gap:e}");
}

/// A tree model's M, f, L, E, p (along its tree, never expanded: `derive::tree::kinetics`) and
/// Q·q̇, as one vector: M by columns, then f, p, L, E, Q·q̇.
macro_rules! quantities {
    ($m:expr, $t:expr, $x:expr) => {{
        let mut v: Vec<f64> = $m.mass_matrix($t, $x).as_slice().to_vec();
        v.extend($m.forcing($t, $x).iter());
        v.extend($m.momenta($t, $x).iter());
        v.extend([$m.lagrangian($t, $x), $m.energy($t, $x), $m.power($t, $x)]);
        v
    }};
}

/// The same quantities of two models at (t, x), to 1e-12 relative.
fn same_quantities<const D: usize>(
    t: f64,
    x: &SVector<f64, D>,
    tree: impl Fn(f64, &SVector<f64, D>) -> Vec<f64>,
    dense: impl Fn(f64, &SVector<f64, D>) -> Vec<f64>,
) {
    let (a, b) = (tree(t, x), dense(t, x));
    let scale = b.iter().fold(1.0f64, |m, v| m.max(v.abs()));
    let gap = a.iter().zip(&b).map(|(p, q)| (p - q).abs()).fold(0.0, f64::max);
    assert!(gap < 1e-12 * scale, "gap {gap:e} (scale {scale:e}): {a:?} against {b:?}");
}

/// The 30-link chain's M, f, L, E and p along its tree (O(n) code each) are the dense model's
/// expanded ∂²L/∂q̇², f, L, E and p (the Euler–Lagrange derivation, `dynamics = dense`) at random
/// states, unequal masses and lengths.
#[test]
fn quantities_along_the_tree_are_the_expanded_ones() {
    let mut tree = chains::Chain30::uniform(1.0, 1.0, 9.81);
    let mut dense = chains::Chain30Dense::uniform(1.0, 1.0, 9.81);
    for (k, (m, l)) in [(0.2, 2.5), (3.0, 0.4), (0.7, 1.3)].into_iter().enumerate() {
        (tree.m7, tree.l12, tree.m30) = (m, l, 1.0 + k as f64);
        (dense.m7, dense.l12, dense.m30) = (m, l, 1.0 + k as f64);
        let mut rng = Rng::new(10 + k as u64);
        for _ in 0..5 {
            let x: SVector<f64, 60> = rng.vector(-2.0, 2.0);
            same_quantities(0.0, &x, |t, x| quantities!(tree, t, x), |t, x| quantities!(dense, t, x));
            let (a, b) = (tree.accelerations(0.0, &x).unwrap(), dense.accelerations(0.0, &x).unwrap());
            assert!((a - b).amax() < 1e-10 * (1.0 + b.amax()), "{a} against {b}");
        }
    }
}

/// PyDy's benchmark model, `pydy.models.n_link_pendulum_on_cart` (as `scripts/compare_pydy.py`
/// writes it): the cart's coordinate is the root of the tree and its velocity moves every bob.
#[derive(Mechanics)]
#[mechanics(
    coordinates(q0, q1, q2, q3, q4),
    define(
        x1 = q0 + l0 * q1.cos(), y1 = l0 * q1.sin(),
        x2 = x1 + l1 * q2.cos(), y2 = y1 + l1 * q2.sin(),
        x3 = x2 + l2 * q3.cos(), y3 = y2 + l2 * q3.sin(),
        x4 = x3 + l3 * q4.cos(), y4 = y3 + l3 * q4.sin(),
    ),
    lagrangian = m0 / 2 * dot(q0).powi(2) + m1 / 2 * (dot(x1).powi(2) + dot(y1).powi(2))
        + m2 / 2 * (dot(x2).powi(2) + dot(y2).powi(2)) + m3 / 2 * (dot(x3).powi(2) + dot(y3).powi(2))
        + m4 / 2 * (dot(x4).powi(2) + dot(y4).powi(2)) - g * (m1 * y1 + m2 * y2 + m3 * y3 + m4 * y4),
    force(q0 = f),
    dynamics = recursive,
)]
pub struct Cart {
    pub m0: f64,
    pub m1: f64,
    pub m2: f64,
    pub m3: f64,
    pub m4: f64,
    pub l0: f64,
    pub l1: f64,
    pub l2: f64,
    pub l3: f64,
    pub g: f64,
    pub f: f64,
}

#[test]
fn a_pendulum_on_a_cart_at_rest_is_held_by_gravity_and_the_cart_force() {
    // `static_forces` along the tree of directions is τ at rest (the velocity products vanish):
    // the cart needs −f against the written force, and link j, at angle q_j from the horizontal,
    // g l_{j−1} cos q_j times the mass of itself and the links below it (V = g Σ m_k y_k).
    let cart = Cart { m0: 2.0, m1: 0.5, m2: 0.4, m3: 0.3, m4: 0.2, l0: 1.0, l1: 0.8, l2: 0.6, l3: 0.5, g: 9.81, f: 0.7 };
    let (m, l) = ([cart.m1, cart.m2, cart.m3, cart.m4], [cart.l0, cart.l1, cart.l2, cart.l3]);
    let mut rng = Rng::new(17);
    for _ in 0..10 {
        let q = [(); 5].map(|_| rng.uniform(-2.0, 2.0));
        let v = [(); 5].map(|_| rng.uniform(-2.0, 2.0));
        let x = cart.state(q, v);
        let held = cart.static_forces(0.0, &x);
        assert!((held[0] + cart.f).abs() < 1e-12, "{held}");
        for j in 1..5 {
            let below: f64 = m[j - 1..].iter().sum();
            let expected = cart.g * l[j - 1] * q[j].cos() * below;
            assert!((held[j] - expected).abs() < 1e-12, "q{j}: {} against {expected}", held[j]);
        }
        assert!((held + cart.velocity_forces(0.0, &x) + cart.forcing(0.0, &x)).amax() < 1e-12);
    }
}

#[test]
fn pendulum_on_a_cart_matches_the_dense_route() {
    let cart = Cart { m0: 2.0, m1: 0.5, m2: 0.4, m3: 0.3, m4: 0.2, l0: 1.0, l1: 0.8, l2: 0.6, l3: 0.5, g: 9.81, f: 0.7 };
    assert_eq!(Cart::DYNAMICS, "recursive");
    let gap = worst_gap(|x| cart.accelerations(0.0, x).unwrap(), |x| (cart.mass_matrix(0.0, x), cart.forcing(0.0, x)), 3);
    assert!(gap < 1e-13, "{gap:e}");
    // Momentum balance: d/dt (Σ mₖ ẋₖ) = f, the cart force the only horizontal one.
    let x0 = cart.state([0.0, -1.2, -1.4, -1.0, -1.8], [0.3, 0.0, 0.5, -0.2, 0.1]);
    let run = cart.run(x0).span(0.0..2.0).rtol(1e-11).atol(1e-12).go().unwrap();
    let p0 = cart.momenta(0.0, &x0)[0];
    let (t, x) = run.end;
    assert!((cart.momenta(t, &x)[0] - p0 - cart.f * t).abs() < 1e-8, "{} against {}", cart.momenta(t, &x)[0], p0 + cart.f * t);
}

/// A branched tree: a cart `x` on a spring carrying a pendulum `a` and a link `b` whose mass sits at
/// its middle and whose far end carries a second pendulum `c` (the end point is no mass of the
/// Lagrangian: the recursion makes it a direction of its own); a potential couples `a` and `c`
/// (potentials need not follow the tree), the cart is driven and damped, `a` damped.
macro_rules! branched {
    ($name:ident, $dynamics:ident) => {
        #[derive(Mechanics)]
        #[mechanics(
                    coordinates(x, a, b, c),
                    define(
                        xa = x + la * a.sin(), ya = -la * a.cos(),
                        xm = x + lb / 2 * b.sin(), ym = -lb / 2 * b.cos(),
                        xb = x + lb * b.sin(), yb = -lb * b.cos(),
                        xc = xb + lc * c.sin(), yc = yb - lc * c.cos(),
                    ),
                    lagrangian = mx / 2 * dot(x).powi(2) + ma / 2 * (dot(xa).powi(2) + dot(ya).powi(2))
                        + mb / 2 * (dot(xm).powi(2) + dot(ym).powi(2)) + mc / 2 * (dot(xc).powi(2) + dot(yc).powi(2))
                        - g * (ma * ya + mb * ym + mc * yc) - k / 2 * (x - s * (w * t).sin()).powi(2) - kac / 2 * (a - c).powi(2),
                    force(x = -d * dot(x) + f0 * (w * t).cos(), a = -ca * dot(a)),
                    dynamics = $dynamics,
                    jacobian,
                )]
        pub struct $name {
            pub mx: f64,
            pub ma: f64,
            pub mb: f64,
            pub mc: f64,
            pub la: f64,
            pub lb: f64,
            pub lc: f64,
            pub g: f64,
            pub k: f64,
            pub s: f64,
            pub w: f64,
            pub kac: f64,
            pub d: f64,
            pub f0: f64,
            pub ca: f64,
        }
    };
}
branched!(Branched, recursive);
branched!(BranchedDense, dense);

macro_rules! branched_values {
    ($name:ident) => {
        $name {
            mx: 1.5,
            ma: 0.6,
            mb: 0.9,
            mc: 0.4,
            la: 0.7,
            lb: 1.1,
            lc: 0.5,
            g: 9.81,
            k: 3.0,
            s: 0.2,
            w: 1.7,
            kac: 0.8,
            d: 0.3,
            f0: 0.5,
            ca: 0.1,
        }
    };
}

#[test]
fn branched_tree_matches_the_dense_model() {
    let (rec, dense) = (branched_values!(Branched), branched_values!(BranchedDense));
    assert_eq!((Branched::DYNAMICS, BranchedDense::DYNAMICS), ("recursive", "dense"));
    let mut rng = Rng::new(4);
    for _ in 0..20 {
        let x: SVector<f64, 8> = rng.vector(-2.0, 2.0);
        let t = rng.uniform(0.0, 5.0);
        let (a, b) = (rec.accelerations(t, &x).unwrap(), dense.accelerations(t, &x).unwrap());
        assert!((a - b).amax() < 1e-12 * (1.0 + b.amax()), "t = {t}: {a} against {b}");
        same_quantities(t, &x, |t, x| quantities!(rec, t, x), |t, x| quantities!(dense, t, x));
    }
    // The field Jacobian: the recursion differentiated along each direction of the state against the
    // dense model's (M⁻¹ ∂(f − M a)/∂x) and against central differences of the recursive field.
    for _ in 0..5 {
        let x: SVector<f64, 8> = rng.vector(-2.0, 2.0);
        let t = rng.uniform(0.0, 5.0);
        let (jr, jd) = (rec.jacobian(t, &x).unwrap(), dense.jacobian(t, &x).unwrap());
        assert!((jr - jd).amax() < 1e-11 * (1.0 + jd.amax()), "t = {t}: {jr} against {jd}");
        let fd = common::jacobian_fd(&rec, t, &x, 1e-6).unwrap();
        assert!((jr - fd).amax() < 1e-6 * (1.0 + jd.amax()), "against differences: {jr} {fd}");
    }
    // The same motion over 10 s of the driven, damped system.
    let x0 = rec.state([0.1, 0.8, -0.5, 1.2], [0.0, 0.3, -0.2, 0.0]);
    let opts = Options::default().rtol(1e-11).atol(1e-12);
    let (r, d) =
        (rec.run(x0).span(0.0..10.0).options(&opts).go().unwrap(), dense.run(x0).span(0.0..10.0).options(&opts).go().unwrap());
    assert!((r.end.1 - d.end.1).amax() < 1e-8, "{} against {}", r.end.1, d.end.1);
}

/// Particles in space with gravity, no written Lagrangian: a trolley `x` and a bridge `y` (a
/// gantry crane) carrying a load that swings in the x–z plane and a hook below it that swings in the
/// y–z plane. Without forces the energy is kept, and the recursion is the dense route.
#[derive(Mechanics)]
#[mechanics(
    coordinates(y, x, a, b),
    point(load = [x + l * a.sin(), y, -l * a.cos()]),
    particle(name = bridge, mass = mb, at = [0, y, 0]),
    particle(name = trolley, mass = mt, at = [x, y, 0]),
    particle(name = weight, mass = ml, at = load),
    particle(name = hook, mass = mh, at = load + [0, h * b.sin(), -h * b.cos()]),
    gravity = [0, 0, -g],
    dynamics = recursive,
)]
pub struct Gantry {
    pub mb: f64,
    pub mt: f64,
    pub ml: f64,
    pub mh: f64,
    pub l: f64,
    pub h: f64,
    pub g: f64,
}

#[test]
fn particles_in_space_form_a_tree() {
    let crane = Gantry { mb: 3.0, mt: 1.0, ml: 0.8, mh: 0.3, l: 1.2, h: 0.4, g: 9.81 };
    let gap = worst_gap(|x| crane.accelerations(0.0, x).unwrap(), |x| (crane.mass_matrix(0.0, x), crane.forcing(0.0, x)), 5);
    assert!(gap < 1e-13, "{gap:e}");
    let x0 = crane.state([0.0, 0.0, 0.9, -0.6], [0.4, -0.3, 0.0, 1.0]);
    let run = crane.run(x0).span(0.0..10.0).rtol(1e-11).atol(1e-12).go().unwrap();
    let e0 = crane.energy(0.0, &x0);
    let drift = run.iter().map(|(t, x)| (crane.energy(t, x) - e0).abs()).fold(0.0, f64::max);
    assert!(drift < 1e-8, "energy drift {drift:e}");
}

/// Impacts: a cart with a double pendulum, pulled by a spring against a wall, keeps the recursion in flight; impact times and
/// post-impact states are those of the dense model.
macro_rules! walled {
    ($name:ident, $dynamics:ident) => {
        #[derive(Mechanics)]
        #[mechanics(
            coordinates(x, a, b),
            define(xa = x + l * a.sin(), ya = -l * a.cos(), xb = xa + l * b.sin(), yb = ya - l * b.cos()),
            lagrangian = mx / 2 * dot(x).powi(2) + m / 2 * (dot(xa).powi(2) + dot(ya).powi(2) + dot(xb).powi(2) + dot(yb).powi(2))
                - m * g * (ya + yb) - k / 2 * (x - 2).powi(2),
            impact(name = wall, guard = 1 - x, law = restitution(e)),
            dynamics = $dynamics,
        )]
        pub struct $name {
            pub mx: f64,
            pub m: f64,
            pub l: f64,
            pub g: f64,
            pub e: f64,
            pub k: f64,
        }
    };
}
walled!(Walled, recursive);
walled!(WalledDense, dense);

#[test]
fn impacts_with_the_recursion() {
    let rec = Walled { mx: 1.0, m: 0.5, l: 0.8, g: 9.81, e: 0.7, k: 4.0 };
    let dense = WalledDense { mx: 1.0, m: 0.5, l: 0.8, g: 9.81, e: 0.7, k: 4.0 };
    let x0 = rec.state([0.0, 1.0, -0.3], [1.5, 0.0, 0.0]);
    let opts = HybridOptions::default();
    let (r, d) =
        (rec.run(x0).span(0.0..4.0).options(&opts).go().unwrap(), dense.run(x0).span(0.0..4.0).options(&opts).go().unwrap());
    assert!(r.impacts.len() >= 2 && r.impacts.len() == d.impacts.len(), "{} and {} impacts", r.impacts.len(), d.impacts.len());
    for (i, j) in r.impacts.iter().zip(&d.impacts) {
        assert!((i.t - j.t).abs() < 1e-9 && (i.post - j.post).amax() < 1e-8, "impact at {} against {}", i.t, j.t);
    }
    // A hybrid model has the field Jacobian (for its periodic orbits): here from the recursion.
    let x = rec.state([0.2, 0.7, -0.4], [0.3, -0.5, 0.8]);
    let (jr, jd) = (rec.jacobian(0.0, &x).unwrap(), dense.jacobian(0.0, &x).unwrap());
    assert!((jr - jd).amax() < 1e-11 * (1.0 + jd.amax()), "{jr} against {jd}");
}

/// A massless last link makes M singular: both routes say so (a zero pivot of the recursion).
#[test]
fn a_singular_mass_matrix_is_an_error_on_both_routes() {
    let mut c = chains::Chain5Recursive {
        m1: 1.0,
        l1: 1.0,
        m2: 0.5,
        l2: 0.8,
        m3: 0.7,
        l3: 0.6,
        m4: 0.4,
        l4: 0.9,
        m5: 0.0,
        l5: 0.5,
        g: 9.81,
    };
    let x = c.state([0.1, 0.2, 0.3, 0.4, 0.5], [0.0; 5]);
    assert_eq!(c.accelerations(0.7, &x), Err(FieldError::SingularMassMatrix { t: 0.7 }));
    c.m5 = 0.3;
    assert!(c.accelerations(0.7, &x).is_ok());
    let mut d = chains::Chain20Dense::uniform(1.0, 1.0, 9.81);
    d.m20 = 0.0;
    let x = SVector::<f64, 40>::from_fn(|i, _| 0.1 * i as f64);
    assert_eq!(d.accelerations(0.7, &x), Err(FieldError::SingularMassMatrix { t: 0.7 }));
}

/// What keeps the dense path: relative angles (a link's position depends on its parent's angle),
/// a rigid body, constraints — and small models, where forming M is as cheap.
#[test]
fn models_that_are_not_trees_keep_the_dense_path() {
    #[derive(Mechanics)]
    #[mechanics(
        coordinates(q1, q2, q3, q4, q5, q6, q7, q8, q9, q10, q11, q12),
        define(
            x1 = l * q1.sin(), y1 = -l * q1.cos(),
            x2 = x1 + l * (q1 + q2).sin(), y2 = y1 - l * (q1 + q2).cos(),
            x3 = x2 + l * (q1 + q2 + q3).sin(), y3 = y2 - l * (q1 + q2 + q3).cos(),
            x4 = x3 + l * (q1 + q2 + q3 + q4).sin(), y4 = y3 - l * (q1 + q2 + q3 + q4).cos(),
        ),
        lagrangian = m / 2 * (dot(x1).powi(2) + dot(y1).powi(2) + dot(x2).powi(2) + dot(y2).powi(2)
            + dot(x3).powi(2) + dot(y3).powi(2) + dot(x4).powi(2) + dot(y4).powi(2))
            + j / 2 * (dot(q5).powi(2) + dot(q6).powi(2) + dot(q7).powi(2) + dot(q8).powi(2) + dot(q9).powi(2)
                + dot(q10).powi(2) + dot(q11).powi(2) + dot(q12).powi(2))
            - m * g * (y1 + y2 + y3 + y4),
    )]
    struct Relative {
        m: f64,
        l: f64,
        j: f64,
        g: f64,
    }
    assert_eq!(Relative::DYNAMICS, "dense");
    let r = Relative { m: 1.0, l: 1.0, j: 1.0, g: 9.81 };
    assert!(r.accelerations(0.0, &SVector::<f64, 24>::zeros()).is_ok());
}

/// A cart (mass mx) under a double pendulum (two bobs m on links l), with the items and the extra
/// parameters of each test below.
macro_rules! cart_double_pendulum {
    ($name:ident, $dynamics:ident, [$($items:tt)*], [$($field:ident),*]) => {
        #[derive(Mechanics)]
        #[mechanics(
            coordinates(x, a, b),
            define(xa = x + l * a.sin(), ya = -l * a.cos(), xb = xa + l * b.sin(), yb = ya - l * b.cos()),
            lagrangian = mx / 2 * dot(x).powi(2) + m / 2 * (dot(xa).powi(2) + dot(ya).powi(2) + dot(xb).powi(2) + dot(yb).powi(2))
                - m * g * (ya + yb),
            $($items)*
            dynamics = $dynamics,
        )]
        pub struct $name {
            pub mx: f64,
            pub m: f64,
            pub l: f64,
            pub g: f64,
            $(pub $field: f64,)*
        }
    };
}

// Impacts along the tree: the cart with a double pendulum strikes a wall at x = −w with restitution
// e. Its reset solves the law with the tree's factor, and its Jacobian takes ∂(M (q̇⁺ − q̇⁻))/∂x
// from that product's tangent along the tree; the system's ∇E and ∇²E (for periodic orbits) come by
// reverse mode through E's pass along the tree and forward mode through that. No dense M or E is
// derived; each matches the dense twin's, the derivatives central differences, and a run through
// several impacts the dense twin's.
twins_of!(cart_double_pendulum, Struck, StruckDense, [impact(name = wall, guard = x + w, law = restitution(e)),], [w, e]);

#[test]
fn impacts_of_a_tree_are_solved_along_the_tree() {
    let r = Struck { mx: 2.0, m: 0.5, l: 0.6, g: 9.81, w: 0.4, e: 0.6 };
    let d = StruckDense { mx: 2.0, m: 0.5, l: 0.6, g: 9.81, w: 0.4, e: 0.6 };
    assert_eq!((Struck::DYNAMICS, StruckDense::DYNAMICS), ("recursive", "dense"));
    let mut rng = Rng::new(43);
    let h = 1e-6;
    for _ in 0..10 {
        let x: SVector<f64, 6> = rng.vector(-1.5, 1.5);
        // Only the tree's factor has pivots: the tree model's mass operator is the tree's.
        assert!(routh::runtime::MechanicalSystem::mass(&r, 0.0, &x).unwrap().pivots().iter().all(|&p| p > 0.0));
        let (pr, pd) = (r.wall_reset(0.0, &x).unwrap(), d.wall_reset(0.0, &x).unwrap());
        assert!((pr - pd).amax() < 1e-12 * (1.0 + pd.amax()), "{pr} against {pd}");
        // The cart's velocity reverses, scaled by e.
        assert!((pr[3] + 0.6 * x[3]).abs() < 1e-12, "{pr}");
        let (jr, jd) = (r.wall_reset_jacobian(0.0, &x).unwrap(), d.wall_reset_jacobian(0.0, &x).unwrap());
        assert!((jr - jd).amax() < 1e-11 * (1.0 + jd.amax()), "{jr} against {jd}");
        let (gr, gd) = (r.energy_gradient(0.0, &x), d.energy_gradient(0.0, &x));
        assert!((gr - gd).amax() < 1e-12 * (1.0 + gd.amax()), "{gr} against {gd}");
        let (hr, hd) = (r.energy_hessian(0.0, &x), d.energy_hessian(0.0, &x));
        assert!((hr - hd).amax() < 1e-11 * (1.0 + hd.amax()), "{hr} against {hd}");
        for c in 0..6 {
            let (mut up, mut down) = (x, x);
            up[c] += h;
            down[c] -= h;
            let fd = (r.wall_reset(0.0, &up).unwrap() - r.wall_reset(0.0, &down).unwrap()) / (2.0 * h);
            assert!((jr.column(c) - fd).amax() < 1e-7 * (1.0 + fd.amax()), "column {c}: {} against {fd}", jr.column(c));
            let fe = (r.energy(0.0, &up) - r.energy(0.0, &down)) / (2.0 * h);
            assert!((gr[c] - fe).abs() < 1e-7 * (1.0 + fe.abs()), "∂E/∂x{c}: {} against {fe}", gr[c]);
            let fg = (r.energy_gradient(0.0, &up) - r.energy_gradient(0.0, &down)) / (2.0 * h);
            assert!((hr.column(c) - fg).amax() < 1e-7 * (1.0 + fg.amax()), "column {c}: {} against {fg}", hr.column(c));
        }
    }
    let x0 = r.state([0.0, 0.8, -0.3], [-1.0, 0.0, 0.5]);
    let opts = HybridOptions::default().ode(Options::default().rtol(1e-11).atol(1e-12));
    let (sr, sd) = (r.run(x0).span(0.0..3.0).options(&opts).go().unwrap(), d.run(x0).span(0.0..3.0).options(&opts).go().unwrap());
    common::same_impacts(&sr, &sd, 2);
    let (xr, xd) = (sr.states.last().unwrap(), sd.states.last().unwrap());
    assert!((xr - xd).amax() < 1e-6, "{xr} against {xd}");
}

// Modes of a tree: the cart with a double pendulum between two walls, a mode per wall it last
// struck (transitions with restitution e); each mode is a tree and derives nothing dense (its
// energy's derivatives along the tree), and the run's transitions are the dense twin's.
twins_of!(
    cart_double_pendulum,
    Shuttle,
    ShuttleDense,
    [
        mode(left),
        mode(right),
        transition(left -> right, guard = w - x, law = restitution(e)),
        transition(right -> left, guard = x + w, law = restitution(e)),
    ],
    [w, e]
);

#[test]
fn modes_of_a_tree_take_the_tree() {
    let r = Shuttle { mx: 2.0, m: 0.5, l: 0.6, g: 9.81, w: 0.3, e: 0.8 };
    let d = ShuttleDense { mx: 2.0, m: 0.5, l: 0.6, g: 9.81, w: 0.3, e: 0.8 };
    let x = r.left().state([0.1, 0.7, -0.4], [0.9, 0.3, -0.2]);
    // Only the tree's factor has pivots: each mode's mass operator is the tree's.
    assert!(routh::runtime::MechanicalSystem::mass(&r.left(), 0.0, &x).unwrap().pivots().iter().all(|&p| p > 0.0));
    let (hr, hd) = (r.right().energy_hessian(0.0, &x), d.right().energy_hessian(0.0, &x));
    assert!((hr - hd).amax() < 1e-11 * (1.0 + hd.amax()), "{hr} against {hd}");
    let (jr, jd) =
        (r.left().left_to_right_reset_jacobian(0.0, &x).unwrap(), d.left().left_to_right_reset_jacobian(0.0, &x).unwrap());
    assert!((jr - jd).amax() < 1e-11 * (1.0 + jd.amax()), "{jr} against {jd}");
    let opts = HybridOptions::default().ode(Options::default().rtol(1e-11).atol(1e-12));
    let (sr, sd) = (
        r.run(ModeState::new(Shuttle::LEFT, x)).span(0.0..3.0).options(&opts).go().unwrap(),
        d.run(ModeState::new(ShuttleDense::LEFT, x)).span(0.0..3.0).options(&opts).go().unwrap(),
    );
    common::same_impacts(&sr, &sd, 2);
}

// Impacts of a constrained tree: the cart with a double pendulum whose second bob is held on the
// line x = x₀ strikes a wall; the law, its Jacobian, ∇E and ∇²E along the tree match the dense
// twin's, and so do the impacts of a run.
twins_of!(
    cart_double_pendulum,
    StruckOnALine,
    StruckOnALineDense,
    [holonomic(line = xb - x0), impact(name = wall, guard = x + w, law = restitution(e)),],
    [x0, w, e]
);

#[test]
fn impacts_of_a_constrained_tree_are_solved_along_the_tree() {
    let r = StruckOnALine { mx: 2.0, m: 0.5, l: 0.6, g: 9.81, x0: 0.3, w: 0.25, e: 0.6 };
    let d = StruckOnALineDense { mx: 2.0, m: 0.5, l: 0.6, g: 9.81, x0: 0.3, w: 0.25, e: 0.6 };
    let mut rng = Rng::new(47);
    for _ in 0..10 {
        let x: SVector<f64, 6> = rng.vector(-1.0, 1.0);
        assert!(routh::runtime::MechanicalSystem::mass(&r, 0.0, &x).unwrap().pivots().iter().all(|&p| p > 0.0));
        let (pr, pd) = (r.wall_reset(0.0, &x).unwrap(), d.wall_reset(0.0, &x).unwrap());
        assert!((pr - pd).amax() < 1e-12 * (1.0 + pd.amax()), "{pr} against {pd}");
        let (jr, jd) = (r.wall_reset_jacobian(0.0, &x).unwrap(), d.wall_reset_jacobian(0.0, &x).unwrap());
        assert!((jr - jd).amax() < 1e-11 * (1.0 + jd.amax()), "{jr} against {jd}");
        let (hr, hd) = (r.energy_hessian(0.0, &x), d.energy_hessian(0.0, &x));
        assert!((hr - hd).amax() < 1e-11 * (1.0 + hd.amax()), "{hr} against {hd}");
    }
    // On the constraint: the second bob on x = x₀.
    let (a, b): (f64, f64) = (0.9, 0.0);
    let xc = 0.3 - 0.6 * a.sin() - 0.6 * b.sin();
    // Moving toward the wall: ẋ + l cos a ȧ + l cos b ḃ = 0 with ȧ = 0.
    let x0 = r.state([xc, a, b], [-1.0, 0.0, 1.0 / (0.6 * b.cos())]);
    let opts = HybridOptions::default().ode(Options::default().rtol(1e-11).atol(1e-12));
    let (sr, sd) = (r.run(x0).span(0.0..3.0).options(&opts).go().unwrap(), d.run(x0).span(0.0..3.0).options(&opts).go().unwrap());
    let xmin = sr.states.iter().map(|x| x[0]).fold(f64::INFINITY, f64::min);
    assert!(
        !sr.impacts.is_empty() && sr.impacts.len() == sd.impacts.len(),
        "{} and {} impacts, min x {xmin}",
        sr.impacts.len(),
        sd.impacts.len()
    );
    for (p, q) in sr.impacts.iter().zip(&sd.impacts) {
        assert!((p.t - q.t).abs() < 1e-8 && (p.post - q.post).amax() < 1e-7, "{} vs {}", p.t, q.t);
        // The post-impact velocities keep the bob on its line, and the cart leaves the wall.
        let v = &p.post;
        assert!((v[3] + 0.6 * v[1].cos() * v[4] + 0.6 * v[2].cos() * v[5]).abs() < 1e-9, "{v}");
        assert!(v[3] > 0.0, "{v}");
    }
}

// Two plastic unilateral contacts of a tree: the cart's wall at x = −w and a floor under the second
// bob at y = −h. In the mode that holds both, a settling (a `project` transition) projects onto
// both rows along the tree; its Jacobian is the sum of the metric's part (from its tangent along
// the tree) and one part per contact, each generated once, in the mode that holds its contact alone
// (and called from the mode that holds both): the same as the dense twin's (its metric's part
// M (q̇⁺ − q̇⁻) differentiated symbolically) and as central differences of the reset.
twins_of!(
    cart_double_pendulum,
    Landing,
    LandingDense,
    [
        unilateral(name = wall, guard = x + w, law = restitution(0)),
        unilateral(name = floor, guard = yb + h, law = restitution(0)),
    ],
    [w, h]
);

#[test]
fn a_projection_onto_two_contacts_of_a_tree_sums_each_contacts_part() {
    let r = Landing { mx: 2.0, m: 0.5, l: 0.6, g: 9.81, w: 0.4, h: 0.9 };
    let d = LandingDense { mx: 2.0, m: 0.5, l: 0.6, g: 9.81, w: 0.4, h: 0.9 };
    assert_eq!((LandingFree::DYNAMICS, LandingDenseFree::DYNAMICS), ("recursive", "dense"));
    let mut rng = Rng::new(53);
    let step = 1e-6;
    let mut worst = (0.0f64, 0.0f64);
    for _ in 0..10 {
        let x: SVector<f64, 6> = rng.vector(-1.0, 1.0);
        // Into the mode that holds both: from the wall (the floor settles) and from the floor.
        for (from_wall, (jr, jd)) in [
            (
                true,
                (r.wall().settle_floor_reset_jacobian(0.0, &x).unwrap(), d.wall().settle_floor_reset_jacobian(0.0, &x).unwrap()),
            ),
            (
                false,
                (r.floor().settle_wall_reset_jacobian(0.0, &x).unwrap(), d.floor().settle_wall_reset_jacobian(0.0, &x).unwrap()),
            ),
        ] {
            worst.0 = worst.0.max((jr - jd).amax() / (1.0 + jd.amax()));
            let reset = |x: &SVector<f64, 6>| {
                if from_wall {
                    r.wall().settle_floor_reset(0.0, x).unwrap()
                } else {
                    r.floor().settle_wall_reset(0.0, x).unwrap()
                }
            };
            for c in 0..6 {
                let (mut up, mut down) = (x, x);
                up[c] += step;
                down[c] -= step;
                let fd = (reset(&up) - reset(&down)) / (2.0 * step);
                worst.1 = worst.1.max((jr.column(c) - fd).amax() / (1.0 + fd.amax()));
            }
        }
        // The projection itself: both rows hold after it.
        let post = r.wall().settle_floor_reset(0.0, &x).unwrap();
        assert!((post - d.wall().settle_floor_reset(0.0, &x).unwrap()).amax() < 1e-12 * (1.0 + post.amax()));
        assert!(r.wall_floor().velocity_residuals(0.0, &post).amax() < 1e-12, "{post}");
    }
    eprintln!(
        "settling into both contacts, Jacobian by parts: {:.1e} against the dense twin's, {:.1e} against differences",
        worst.0, worst.1
    );
    assert!(worst.0 < 1e-11, "{worst:?}");
    assert!(worst.1 < 1e-7, "{worst:?}");
}

// Sensitivities to parameters of the tree's masses and directions — the cart's mass, the bobs'
// mass, the length — and to g: ∂q̈/∂p = M⁻¹ (∂τ/∂p − ∂K/∂p) at a = q̈, with ∂K/∂p a forward pass
// along the tree (K = M a + the velocity products), so the tree model still derives nothing dense
// (its mass operator is the tree's: only the tree factor has pivots).
twins_of!(cart_double_pendulum, Weighed, WeighedDense, [force(x = -c * dot(x)), sensitivity(mx, m, l, g),], [c]);

#[test]
fn sensitivities_to_masses_and_lengths_along_the_tree() {
    let r = Weighed { mx: 2.0, m: 0.5, l: 0.6, g: 9.81, c: 0.2 };
    let d = WeighedDense { mx: 2.0, m: 0.5, l: 0.6, g: 9.81, c: 0.2 };
    assert_eq!((Weighed::DYNAMICS, WeighedDense::DYNAMICS), ("recursive", "dense"));
    assert_eq!(Weighed::SENSITIVITY, ["mx", "m", "l", "g"]);
    let mut rng = Rng::new(41);
    for _ in 0..10 {
        let x: SVector<f64, 6> = rng.vector(-1.5, 1.5);
        let factor = routh::runtime::MechanicalSystem::mass(&r, 0.0, &x).unwrap();
        assert!(factor.pivots().iter().all(|&p| p > 0.0));
        let (pr, pd) = (r.parameter_jacobian(0.0, &x).unwrap(), d.parameter_jacobian(0.0, &x).unwrap());
        assert!((pr - pd).amax() < 1e-12 * (1.0 + pd.amax()), "{pr} against {pd}");
        // Each column against a central difference of the field in its parameter.
        let h = 1e-6;
        let nudged = |k: usize, e: f64| {
            let p = match k {
                0 => Weighed { mx: r.mx + e, ..r },
                1 => Weighed { m: r.m + e, ..r },
                2 => Weighed { l: r.l + e, ..r },
                _ => Weighed { g: r.g + e, ..r },
            };
            p.field(0.0, &x).unwrap()
        };
        for k in 0..4 {
            let fd = (nudged(k, h) - nudged(k, -h)) / (2.0 * h);
            assert!((pr.column(k) - fd).amax() < 1e-7 * (1.0 + fd.amax()), "column {k}: {} against {fd}", pr.column(k));
        }
    }
}

// Inputs: a cart driven by a force `u` under a double pendulum, linearised about the hanging rest
// with each path: the same (A, B) (the recursion's A from its tangent, B from ∂Q/∂u), and the same
// sensitivities to g and c, which enter the generalized forces only: the tree model derives nothing
// dense for them (∂q̈/∂w = M⁻¹ ∂τ/∂w solved along the tree; its mass operator is the tree's).
twins_of!(cart_double_pendulum, Driven, DrivenDense, [input(u), force(x = u - c * dot(x)), sensitivity(g, c),], [c]);

#[test]
fn inputs_and_linearisation_with_the_recursion() {
    let (r, d) = (Driven { mx: 2.0, m: 0.5, l: 0.6, g: 9.81, c: 0.2 }, DrivenDense { mx: 2.0, m: 0.5, l: 0.6, g: 9.81, c: 0.2 });
    assert_eq!((DrivenDriven::DYNAMICS, DrivenDenseDriven::DYNAMICS), ("recursive", "dense"));
    let x = r.state([0.0, 0.1, -0.2], [0.3, 0.0, 0.4]);
    let (lr, ld) = (r.linearize(0.0, &x, [0.7]).unwrap(), d.linearize(0.0, &x, [0.7]).unwrap());
    assert!((lr.a - ld.a).amax() < 1e-11 * (1.0 + ld.a.amax()), "{} against {}", lr.a, ld.a);
    assert!((lr.b - ld.b).amax() < 1e-12, "{} against {}", lr.b, ld.b);
    let (fr, fd) = (r.driven([0.7]).field(0.0, &x).unwrap(), d.driven([0.7]).field(0.0, &x).unwrap());
    assert!((fr - fd).amax() < 1e-12 * (1.0 + fd.amax()), "{fr} against {fd}");
    // Only the tree's factor has pivots: the tree model's mass operator is the tree's.
    let factor = routh::runtime::MechanicalSystem::mass(&r.driven([0.7]), 0.0, &x).unwrap();
    assert!(factor.pivots().iter().all(|&p| p > 0.0));
    let mut rng = Rng::new(23);
    for _ in 0..10 {
        let x: SVector<f64, 6> = rng.vector(-1.5, 1.5);
        let u = [rng.uniform(-2.0, 2.0)];
        let (pr, pd) = (r.driven(u).parameter_jacobian(0.0, &x).unwrap(), d.driven(u).parameter_jacobian(0.0, &x).unwrap());
        assert!((pr - pd).amax() < 1e-12 * (1.0 + pd.amax()), "{pr} against {pd}");
        let (br, bd) = (r.driven(u).input_jacobian(0.0, &x).unwrap(), d.driven(u).input_jacobian(0.0, &x).unwrap());
        assert!((br - bd).amax() < 1e-12 * (1.0 + bd.amax()), "{br} against {bd}");
        // ∂F/∂g against a central difference of the field.
        let h = 1e-6;
        let (up, down) = (Driven { g: 9.81 + h, ..r }, Driven { g: 9.81 - h, ..r });
        let fd_g = (up.driven(u).field(0.0, &x).unwrap() - down.driven(u).field(0.0, &x).unwrap()) / (2.0 * h);
        assert!((pr.column(0) - fd_g).amax() < 1e-8, "{} against {fd_g}", pr.column(0));
    }
}

// Inputs with a constraint: the driven cart above with the end of its second pendulum held on the
// vertical line x = x₀ (x₀ a sensitivity parameter of the constraint, g one of the forces, m and l
// of the tree's masses and directions — l of the constraint too). The tree model solves its saddle
// point, its input and parameter Jacobians with the tree factor (∂R/∂w = ∂K/∂w − ∂τ/∂w −
// ∂(Aᵀλ)/∂w, ∂K/∂p a pass along the tree for m and l, zero for the rest) and matches its dense twin.
twins_of!(
    cart_double_pendulum,
    DrivenOnALine,
    DrivenOnALineDense,
    [input(u), force(x = u - c * dot(x)), holonomic(line = xb - x0), sensitivity(g, x0, m, l),],
    [c, x0]
);

#[test]
fn inputs_of_a_constrained_tree_are_solved_along_the_tree() {
    let r = DrivenOnALine { mx: 2.0, m: 0.5, l: 0.6, g: 9.81, c: 0.2, x0: 0.3 };
    let d = DrivenOnALineDense { mx: 2.0, m: 0.5, l: 0.6, g: 9.81, c: 0.2, x0: 0.3 };
    let mut rng = Rng::new(29);
    for _ in 0..10 {
        let x: SVector<f64, 6> = rng.vector(-1.0, 1.0);
        let u = [rng.uniform(-2.0, 2.0)];
        // Only the tree's factor has pivots: the saddle point is solved along the tree.
        let factor = routh::runtime::MechanicalSystem::mass(&r.driven(u), 0.0, &x).unwrap();
        assert!(factor.pivots().iter().all(|&p| p > 0.0));
        let (fr, fd) = (r.driven(u).field(0.0, &x).unwrap(), d.driven(u).field(0.0, &x).unwrap());
        assert!((fr - fd).amax() < 1e-12 * (1.0 + fd.amax()), "{fr} against {fd}");
        let (br, bd) = (r.driven(u).input_jacobian(0.0, &x).unwrap(), d.driven(u).input_jacobian(0.0, &x).unwrap());
        assert!((br - bd).amax() < 1e-12 * (1.0 + bd.amax()), "{br} against {bd}");
        let (pr, pd) = (r.driven(u).parameter_jacobian(0.0, &x).unwrap(), d.driven(u).parameter_jacobian(0.0, &x).unwrap());
        assert!((pr - pd).amax() < 1e-11 * (1.0 + pd.amax()), "{pr} against {pd}");
        let (jr, jd) = (r.driven(u).jacobian(0.0, &x).unwrap(), d.driven(u).jacobian(0.0, &x).unwrap());
        assert!((jr - jd).amax() < 1e-11 * (1.0 + jd.amax()), "{jr} against {jd}");
        // ∂F/∂x₀ (the constraint's parameter), ∂F/∂m and ∂F/∂l (the tree's mass and length) against
        // central differences of the field.
        let h = 1e-6;
        let nudged = |k: usize, e: f64| {
            let p = match k {
                1 => DrivenOnALine { x0: r.x0 + e, ..r },
                2 => DrivenOnALine { m: r.m + e, ..r },
                _ => DrivenOnALine { l: r.l + e, ..r },
            };
            p.driven(u).field(0.0, &x).unwrap()
        };
        for k in 1..4 {
            let fd = (nudged(k, h) - nudged(k, -h)) / (2.0 * h);
            assert!((pr.column(k) - fd).amax() < 1e-7 * (1.0 + fd.amax()), "column {k}: {} against {fd}", pr.column(k));
        }
    }
}

// A symmetry of a constrained tree: a cart carried along at the prescribed speed v (the affine
// row ẋ − v = 0) under a double pendulum. The translation ξ = ∂/∂x is a symmetry, the row is
// A ξ = 1 with b = −v, so E − v·J is conserved although E and J are not; along the tree E and J are
// passes along it (nothing dense derived), and they equal the dense twin's.
twins_of!(cart_double_pendulum, Carried, CarriedDense, [constraint(carry = dot(x) - v), symmetry(cyclic(x)),], [v]);

#[test]
fn a_constrained_trees_moving_energy_is_computed_along_the_tree() {
    let r = Carried { mx: 2.0, m: 0.5, l: 0.6, g: 9.81, v: 0.8 };
    let d = CarriedDense { mx: 2.0, m: 0.5, l: 0.6, g: 9.81, v: 0.8 };
    let x0 = r.state([0.0, 0.9, -0.4], [0.8, 0.0, 0.3]);
    // Only the tree's factor has pivots: the saddle point is solved along the tree.
    assert!(routh::runtime::MechanicalSystem::mass(&r, 0.0, &x0).unwrap().pivots().iter().all(|&p| p > 0.0));
    let mut rng = Rng::new(31);
    for _ in 0..10 {
        let x: SVector<f64, 6> = rng.vector(-1.5, 1.5);
        let (e, f) = (r.x_moving_energy(0.0, &x), d.x_moving_energy(0.0, &x));
        assert!((e - f).abs() < 1e-12 * (1.0 + f.abs()), "{e} against {f}");
        assert!((e - (r.energy(0.0, &x) - r.v * r.x_momentum(0.0, &x))).abs() < 1e-12 * (1.0 + e.abs()));
    }
    let opts = Options::default().rtol(1e-11).atol(1e-12).output(Output::Times(vec![1.0, 2.0, 3.0]));
    let run = r.run(x0).span(0.0..3.0).options(&opts).go().unwrap();
    let (e0, j0) = (r.x_moving_energy(0.0, &x0), r.x_momentum(0.0, &x0));
    let mut worst = 0.0f64;
    for (t, x) in run.iter() {
        worst = worst.max((r.x_moving_energy(t, x) - e0).abs());
        // The carriage does work: J and E change, E − v J does not.
        assert!(t == 0.0 || (r.x_momentum(t, x) - j0).abs() > 1e-3);
    }
    eprintln!("carried double pendulum: moving energy kept to {worst:.1e} over 3 s");
    assert!(worst < 1e-8, "{worst:e}");
}

/// Rigid links: three rods (mass m, length l, inertia m l²/12 about their middles) in absolute
/// angles, written with `body` items turning with `rot_z` (ω = (0, 0, q̇): a rate of its own) and
/// again by hand; both take the recursion and agree with the dense route.
#[derive(Mechanics)]
#[mechanics(
    coordinates(a, b, c),
    point(j1 = [l * a.sin(), -l * a.cos(), 0], j2 = j1 + [l * b.sin(), -l * b.cos(), 0]),
    body(name = r1, mass = m, centre = j1 / 2, frame = rot_z(a), inertia = diag(i, i, i)),
    body(name = r2, mass = m, centre = j1 + [l / 2 * b.sin(), -l / 2 * b.cos(), 0], frame = rot_z(b), inertia = diag(i, i, i)),
    body(name = r3, mass = m, centre = j2 + [l / 2 * c.sin(), -l / 2 * c.cos(), 0], frame = rot_z(c), inertia = diag(i, i, i)),
    gravity = [0, -g, 0],
    dynamics = recursive,
)]
pub struct Rods {
    pub m: f64,
    pub l: f64,
    pub i: f64,
    pub g: f64,
}

#[derive(Mechanics)]
#[mechanics(
    coordinates(a, b, c),
    define(
        x1 = l / 2 * a.sin(), y1 = -l / 2 * a.cos(),
        x2 = 2 * x1 + l / 2 * b.sin(), y2 = 2 * y1 - l / 2 * b.cos(),
        x3 = 2 * x1 + l * b.sin() + l / 2 * c.sin(), y3 = 2 * y1 - l * b.cos() - l / 2 * c.cos(),
    ),
    lagrangian = m / 2 * (dot(x1).powi(2) + dot(y1).powi(2) + dot(x2).powi(2) + dot(y2).powi(2) + dot(x3).powi(2) + dot(y3).powi(2))
        + i / 2 * (dot(a).powi(2) + dot(b).powi(2) + dot(c).powi(2)) - m * g * (y1 + y2 + y3),
    dynamics = dense,
)]
pub struct RodsByHand {
    pub m: f64,
    pub l: f64,
    pub i: f64,
    pub g: f64,
}

#[test]
fn rigid_links_turning_with_one_angle_take_the_recursion() {
    let (m, l) = (0.8, 0.9);
    let rods = Rods { m, l, i: m * l * l / 12.0, g: 9.81 };
    let hand = RodsByHand { m, l, i: m * l * l / 12.0, g: 9.81 };
    let mut rng = Rng::new(6);
    for _ in 0..20 {
        let x: SVector<f64, 6> = rng.vector(-2.0, 2.0);
        let (a, b) = (rods.accelerations(0.0, &x).unwrap(), hand.accelerations(0.0, &x).unwrap());
        assert!((a - b).amax() < 1e-12 * (1.0 + b.amax()), "{a} against {b}");
    }
}

/// A constrained tree: the branched tree above with the end of its second pendulum held on the
/// vertical line x = X₀ (holonomic) and the first pendulum's bob rolling like a skate, its velocity
/// along the link zero (a velocity row, nonholonomic): the saddle point solved with M factored
/// along the tree (the runtime's `TreeFactor`, M never formed) against the same model on the dense
/// path — q̈, the multipliers and the outputs (a multiplier, the energy), and a run that keeps both
/// constraints.
macro_rules! constrained_tree {
    ($name:ident, $dynamics:ident) => {
        #[derive(Mechanics)]
        #[mechanics(
                            coordinates(x, a, b, c, e1, e2, e3, e4, e5, e6, e7, e8),
                            define(
                                xa = x + la * a.sin(), ya = -la * a.cos(),
                                xm = x + lb / 2 * b.sin(), ym = -lb / 2 * b.cos(),
                                xb = x + lb * b.sin(), yb = -lb * b.cos(),
                                xc = xb + lc * c.sin(), yc = yb - lc * c.cos(),
                                x1 = xc + le * e1.sin(), y1 = yc - le * e1.cos(),
                                x2 = x1 + le * e2.sin(), y2 = y1 - le * e2.cos(),
                                x3 = x2 + le * e3.sin(), y3 = y2 - le * e3.cos(),
                                x4 = x3 + le * e4.sin(), y4 = y3 - le * e4.cos(),
                                x5 = x4 + le * e5.sin(), y5 = y4 - le * e5.cos(),
                                x6 = x5 + le * e6.sin(), y6 = y5 - le * e6.cos(),
                                x7 = x6 + le * e7.sin(), y7 = y6 - le * e7.cos(),
                                x8 = x7 + le * e8.sin(), y8 = y7 - le * e8.cos(),
                            ),
                            lagrangian = mx / 2 * dot(x).powi(2) + ma / 2 * (dot(xa).powi(2) + dot(ya).powi(2))
                                + mb / 2 * (dot(xm).powi(2) + dot(ym).powi(2)) + mc / 2 * (dot(xc).powi(2) + dot(yc).powi(2))
                                + me / 2 * (dot(x1).powi(2) + dot(y1).powi(2) + dot(x2).powi(2) + dot(y2).powi(2)
                                    + dot(x3).powi(2) + dot(y3).powi(2) + dot(x4).powi(2) + dot(y4).powi(2)
                                    + dot(x5).powi(2) + dot(y5).powi(2) + dot(x6).powi(2) + dot(y6).powi(2)
                                    + dot(x7).powi(2) + dot(y7).powi(2) + dot(x8).powi(2) + dot(y8).powi(2))
                                - g * (ma * ya + mb * ym + mc * yc + me * (y1 + y2 + y3 + y4 + y5 + y6 + y7 + y8))
                                - k / 2 * x.powi(2),
                            force(x = -d * dot(x)),
                            holonomic(line = xc - x0),
                            constraint(skate = a.cos() * dot(xa) + a.sin() * dot(ya) - 0.1 * dot(x)),
                            output(pull = multiplier(line), e = energy()),
                            dynamics = $dynamics,
                            jacobian,
                        )]
        pub struct $name {
            pub mx: f64,
            pub ma: f64,
            pub mb: f64,
            pub mc: f64,
            pub me: f64,
            pub la: f64,
            pub lb: f64,
            pub lc: f64,
            pub le: f64,
            pub g: f64,
            pub k: f64,
            pub d: f64,
            pub x0: f64,
        }
    };
}
constrained_tree!(ConstrainedTree, recursive);
constrained_tree!(ConstrainedTreeDense, dense);

macro_rules! constrained_values {
    ($name:ident) => {
        $name {
            mx: 1.5,
            ma: 0.6,
            mb: 0.9,
            mc: 0.4,
            me: 0.3,
            la: 0.7,
            lb: 1.1,
            lc: 0.5,
            le: 0.35,
            g: 9.81,
            k: 3.0,
            d: 0.3,
            x0: 0.4,
        }
    };
}

#[test]
fn a_constrained_tree_solves_its_saddle_point_along_the_tree() {
    use routh::runtime::MassOperator;
    // The derive's limit on directions per joint is the runtime factor's.
    assert_eq!(routh_macros_core::fixtures::TREE_MAX_DIRECTIONS, routh::runtime::mechanics::tree::MAX_DIRECTIONS);
    let (tree, dense) = (constrained_values!(ConstrainedTree), constrained_values!(ConstrainedTreeDense));
    assert_eq!((ConstrainedTree::DYNAMICS, ConstrainedTreeDense::DYNAMICS), ("constrained", "constrained"));
    // M a along the tree (the factor's product) and the factor's solve against the dense M.
    let mut rng = Rng::new(41);
    let (mut worst_a, mut worst_l) = (0.0f64, 0.0f64);
    for _ in 0..20 {
        let x: SVector<f64, 24> = rng.vector(-1.5, 1.5);
        let m = dense.mass_matrix(0.0, &x);
        let factor = routh::runtime::MechanicalSystem::mass(&tree, 0.0, &x).unwrap();
        let v: SVector<f64, 12> = rng.vector(-1.0, 1.0);
        assert!((factor.apply(&v) - m * v).amax() < 1e-12 * (m * v).amax());
        assert!((factor.solve(m * v).unwrap() - v).amax() < 1e-10, "{:e}", (factor.solve(m * v).unwrap() - v).amax());
        // The tree's factor (the dense one has no pivots by joint): their product is det M.
        let det: f64 = factor.pivots().iter().product();
        assert!((det - m.determinant()).abs() < 1e-9 * det.abs(), "{det} vs {}", m.determinant());
        let (a, b) = (tree.accelerations(0.0, &x).unwrap(), dense.accelerations(0.0, &x).unwrap());
        worst_a = worst_a.max((a - b).amax() / (1.0 + b.amax()));
        let (la, lb) = (tree.constraint_forces(0.0, &x).unwrap(), dense.constraint_forces(0.0, &x).unwrap());
        worst_l = worst_l.max((la - lb).amax() / (1.0 + lb.amax()));
        // Outputs through the tree path: a multiplier from its saddle point, E along the tree.
        let (o, p) = (tree.outputs(0.0, &x), dense.outputs(0.0, &x));
        assert!((o[0] - la[0]).abs() < 1e-14 * (1.0 + la[0].abs()) && (o[0] - p[0]).abs() < 1e-11 * (1.0 + p[0].abs()));
        assert!((o[1] - p[1]).abs() < 1e-12 * (1.0 + p[1].abs()), "{o:?} vs {p:?}");
    }
    eprintln!("constrained tree vs dense: q̈ {worst_a:.1e}, λ {worst_l:.1e}");
    assert!(worst_a < 1e-11 && worst_l < 1e-11, "q̈ {worst_a:e}, λ {worst_l:e}");
    // A consistent start (the line through the pendulum's end, the skate's row satisfied), then a
    // run on each path: the same motion, both constraints kept.
    let q0 = [0.1, 0.3, 0.2, 0.0, 0.1, -0.1, 0.2, 0.0, -0.2, 0.1, 0.05, 0.0];
    let x0 = tree.state(q0, [0.0; 12]);
    let x0 = tree.project_state(0.0, &x0).unwrap();
    let opts = Options::default().rtol(1e-10).atol(1e-11).output(Output::Times(vec![0.5, 1.0, 2.0]));
    let (rt, rd) =
        (tree.run(x0).span(0.0..2.0).options(&opts).go().unwrap(), dense.run(x0).span(0.0..2.0).options(&opts).go().unwrap());
    for (p, q) in rt.states.iter().zip(&rd.states) {
        assert!((p - q).amax() < 1e-7, "{:e}", (p - q).amax());
        assert!(tree.position_residuals(0.0, p).amax() < 1e-8 && tree.velocity_residuals(0.0, p).amax() < 1e-8);
    }
}

/// The field Jacobian of the constrained tree: its saddle point differentiated with M a − f's
/// kinetic part by its tangent along the tree (M never formed) equals the dense twin's, which
/// differentiates the dense M symbolically, and central differences of the field; the multipliers'
/// rates likewise; the tree model still takes its tree path (its pivots).
#[test]
fn a_constrained_trees_field_jacobian_is_the_dense_ones() {
    let (tree, dense) = (constrained_values!(ConstrainedTree), constrained_values!(ConstrainedTreeDense));
    let mut rng = Rng::new(43);
    let (mut worst, mut worst_fd, mut worst_rates) = (0.0f64, 0.0f64, 0.0f64);
    for _ in 0..12 {
        let x: SVector<f64, 24> = rng.vector(-1.2, 1.2);
        let t = rng.uniform(0.0, 2.0);
        // Only the tree's factor has pivots (the type says the tree path is taken).
        assert!(routh::runtime::MechanicalSystem::mass(&tree, t, &x).unwrap().pivots().iter().all(|&d| d > 0.0));
        let (jt, jd) = (tree.jacobian(t, &x).unwrap(), dense.jacobian(t, &x).unwrap());
        let scale = 1.0 + jd.amax();
        worst = worst.max((jt - jd).amax() / scale);
        let fd = common::jacobian_fd(&tree, t, &x, 1e-6).unwrap();
        worst_fd = worst_fd.max((jt - fd).amax() / scale);
        let ((gt, rt), (gd, rd)) = (tree.constraint_force_rates(t, &x).unwrap(), dense.constraint_force_rates(t, &x).unwrap());
        worst_rates = worst_rates.max((gt - gd).amax() / (1.0 + gd.amax())).max((rt - rd).amax() / (1.0 + rd.amax()));
    }
    eprintln!(
        "constrained tree's Jacobian vs dense: {worst:.1e}, vs central differences {worst_fd:.1e}, multiplier rates {worst_rates:.1e}"
    );
    assert!(worst < 1e-11, "{worst:e}");
    assert!(worst_fd < 1e-6, "{worst_fd:e}");
    assert!(worst_rates < 1e-10, "{worst_rates:e}");
}

/// A symmetry and outputs of a tree model that derives nothing dense: a cart (translation-invariant,
/// driven by u₀ cos ωt) carrying a double pendulum whose first joint is damped. The momentum map
/// J = p_x is computed along the tree (no dense p): it equals the dense twin's at random states, its
/// balance law is dJ/dt = u₀ cos ωt, and along a run J(t) = J(0) + (u₀/ω) sin ωt; the outputs (the
/// energy along the tree among them) equal the dense twin's.
macro_rules! symmetric_cart {
    ($name:ident, $dynamics:ident) => {
        #[derive(Mechanics)]
        #[mechanics(
            coordinates(x, a, b),
            define(xa = x + l * a.sin(), ya = -l * a.cos(), xb = xa + l * b.sin(), yb = ya - l * b.cos()),
            lagrangian = mx / 2 * dot(x).powi(2) + m / 2 * (dot(xa).powi(2) + dot(ya).powi(2) + dot(xb).powi(2) + dot(yb).powi(2))
                - m * g * (ya + yb),
            force(x = u0 * (w * t).cos(), a = -c * dot(a)),
            symmetry(cyclic(x)),
            output(e = energy(), tip = xb, lift = yb - ya),
            dynamics = $dynamics,
        )]
        pub struct $name {
            pub mx: f64,
            pub m: f64,
            pub l: f64,
            pub g: f64,
            pub c: f64,
            pub u0: f64,
            pub w: f64,
        }
    };
}
symmetric_cart!(SymmetricCart, recursive);
symmetric_cart!(SymmetricCartDense, dense);

#[test]
fn a_tree_models_momentum_map_is_computed_along_the_tree() {
    let tree = SymmetricCart { mx: 2.0, m: 0.5, l: 0.8, g: 9.81, c: 0.2, u0: 0.7, w: 1.3 };
    let dense = SymmetricCartDense { mx: 2.0, m: 0.5, l: 0.8, g: 9.81, c: 0.2, u0: 0.7, w: 1.3 };
    // The tree's mass operator (only the tree path has pivots): nothing dense was derived.
    let x0 = tree.state([0.0, 0.4, -0.3], [0.2, 0.0, 0.5]);
    let factor = routh::runtime::MechanicalSystem::mass(&tree, 0.0, &x0).unwrap();
    assert!(factor.pivots().iter().all(|&d| d > 0.0));
    let mut rng = Rng::new(17);
    for _ in 0..20 {
        let x: SVector<f64, 6> = rng.vector(-2.0, 2.0);
        let t = rng.uniform(0.0, 5.0);
        let (j, k) = (tree.x_momentum(t, &x), dense.x_momentum(t, &x));
        assert!((j - k).abs() < 1e-12 * (1.0 + k.abs()), "{j} vs {k}");
        assert!((tree.x_momentum_rate(t, &x) - tree.u0 * (tree.w * t).cos()).abs() < 1e-14);
        let (o, p) = (tree.outputs(t, &x), dense.outputs(t, &x));
        assert!(o.iter().zip(&p).all(|(a, b)| (a - b).abs() < 1e-12 * (1.0 + b.abs())), "{o:?} vs {p:?}");
        assert!((o[0] - dense.energy(t, &x)).abs() < 1e-12 * (1.0 + o[0].abs()));
        // C: E's row by reverse mode through its pass along the tree, against the dense twin's
        // symbolic derivatives of E written out.
        let (c, d) = (tree.output_jacobian(t, &x), dense.output_jacobian(t, &x));
        assert!((c - d).amax() < 1e-12 * (1.0 + d.amax()), "{c} vs {d}");
    }
    let opts = Options::default().rtol(1e-11).atol(1e-12).output(Output::Times(vec![1.0, 2.5, 4.0]));
    let run = tree.run(x0).span(0.0..4.0).options(&opts).go().unwrap();
    let j0 = tree.x_momentum(0.0, &x0);
    for (t, x) in run.iter() {
        let want = j0 + tree.u0 / tree.w * (tree.w * t).sin();
        assert!((tree.x_momentum(t, x) - want).abs() < 1e-8, "t = {t}: {} vs {want}", tree.x_momentum(t, x));
    }
}

/// ∂τ/∂q and ∂τ/∂q̇ of the inverse dynamics τ = M q̈ − f of a constrained tree (the saddle point's
/// residual derivatives at λ = 0: its symbolic rows and the kinetic part's tangent along the tree)
/// against the dense twin's (all symbolic) and central differences of `inverse_dynamics`, at
/// accelerations that are not the field's.
#[test]
fn a_constrained_trees_inverse_dynamics_jacobian_is_the_dense_one_and_its_differences() {
    let (tree, dense) = (constrained_values!(ConstrainedTree), constrained_values!(ConstrainedTreeDense));
    let mut rng = Rng::new(57);
    for _ in 0..5 {
        let x: SVector<f64, 24> = rng.vector(-1.5, 1.5);
        let qdd: SVector<f64, 12> = rng.vector(-3.0, 3.0);
        check_inverse_dynamics_jacobian!(tree, dense, x, qdd, 12);
        let (rq, rv) = tree.inverse_dynamics_jacobian(0.0, &x, &qdd).unwrap();
        assert!(rq.amax() > 1.0 && rv.amax() > 0.1, "a Jacobian with something in it");
    }
}
