//! The dense path of a model that is no tree the recursion reads: the planar chain of point masses
//! in relative angles (`tests/common/relative_chain.rs`). Its M by its entries or by columns (n
//! products M eⱼ of one generated M a = ∂p/∂q̇ along a), its field Jacobian by ∂g/∂x's formulas or by
//! the residual's tangent along each direction of the state — each against the others, against
//! central differences, and against the same chain in absolute angles θₖ = q₁ + … + qₖ along its
//! tree (an independent route: θ̈ₖ = q̈₁ + … + q̈ₖ).

mod common;

use routh::prelude::*;

#[allow(dead_code)]
mod chains {
    use routh::prelude::*;
    include!("common/relative_chain.rs");
}

use chains::{Absolute10, Relative10Columns, Relative10Dense, Relative20};

const M: f64 = 0.7;
const L: f64 = 0.45;
const G: f64 = 9.81;

/// The absolute angles and rates of relative ones: running sums.
fn absolute<const N: usize, const D: usize>(x: &SVector<f64, D>) -> SVector<f64, D> {
    let mut y = *x;
    for k in 1..N {
        y[k] += y[k - 1];
        y[N + k] += y[N + k - 1];
    }
    y
}

#[test]
fn the_chain_in_relative_angles_is_the_chain_in_absolute_angles() {
    let columns = Relative10Columns { m: M, l: L, g: G };
    let dense = Relative10Dense { m: M, l: L, g: G };
    let tree = Absolute10::uniform(M, L, G);
    assert_eq!((Relative10Columns::DYNAMICS, Relative10Dense::DYNAMICS, Absolute10::DYNAMICS), ("columns", "dense", "recursive"));
    let mut rng = common::Rng::new(31);
    for _ in 0..4 {
        let x = rng.vector::<20>(-0.8, 0.8);
        // M from its products is M from its entries (symmetric to rounding).
        let (mc, md) = (columns.mass_matrix(0.0, &x), dense.mass_matrix(0.0, &x));
        assert!(common::rel_err(&mc, &md) < 1e-13, "{}", common::rel_err(&mc, &md));
        assert_eq!(mc, mc.transpose());
        // (M of a chain in relative angles is ill-conditioned — each angle moves every bob after it —
        // so the two forms' rounding of M reaches q̈ at about 1e-11.)
        let (ac, ad) = (columns.accelerations(0.0, &x).unwrap(), dense.accelerations(0.0, &x).unwrap());
        assert!(common::rel_err(&ac, &ad) < 1e-9, "{}", common::rel_err(&ac, &ad));
        // θ̈ₖ = Σ_{j ≤ k} q̈ⱼ from the chain in absolute angles along its tree.
        let y = absolute::<10, 20>(&x);
        let theta = tree.accelerations(0.0, &y).unwrap();
        let mut sum = 0.0;
        for k in 0..10 {
            sum += ac[k];
            assert!((sum - theta[k]).abs() < 1e-10 * (1.0 + theta[k].abs()), "θ̈{k}: {sum} against {}", theta[k]);
        }
        assert!((columns.energy(0.0, &x) - tree.energy(0.0, &y)).abs() < 1e-12 * tree.energy(0.0, &y).abs().max(1.0));
    }
}

#[test]
fn jacobians_by_the_residuals_tangent_are_its_formulas() {
    let columns = Relative10Columns { m: M, l: L, g: G };
    let dense = Relative10Dense { m: M, l: L, g: G };
    let twenty = Relative20 { m: M, l: L, g: G };
    let mut rng = common::Rng::new(32);
    for _ in 0..3 {
        let x = rng.vector::<20>(-0.8, 0.8);
        let (jc, jd) = (columns.jacobian(0.0, &x).unwrap(), dense.jacobian(0.0, &x).unwrap());
        assert!(common::rel_err(&jc, &jd) < 1e-10, "tangents against formulas: {}", common::rel_err(&jc, &jd));
        let fd = common::jacobian_fd(&columns, 0.0, &x, 1e-4).unwrap();
        assert!(common::rel_err(&jc, &fd) < 1e-5, "against central differences: {}", common::rel_err(&jc, &fd));
        // ∂q̈/∂l from the residual with M a, against the formulas with M's entries.
        let (pc, pd) = (columns.parameter_jacobian(0.0, &x).unwrap(), dense.parameter_jacobian(0.0, &x).unwrap());
        assert!(common::rel_err(&pc, &pd) < 1e-10, "∂F/∂l: {}", common::rel_err(&pc, &pd));
        // At 20 links the size takes the tangent (with M's entries). M's condition number there is
        // about 2e5: central differences reach 1e-6 at steps of 1e-4 and lose digits to rounding
        // below (1e-4 at 1e-6).
        let x20 = rng.vector::<40>(-0.5, 0.5);
        let j20 = twenty.jacobian(0.0, &x20).unwrap();
        let fd20 = common::jacobian_fd(&twenty, 0.0, &x20, 1e-4).unwrap();
        assert!(common::rel_err(&j20, &fd20) < 1e-5, "20 links: {}", common::rel_err(&j20, &fd20));
    }
    assert_eq!(Relative20::DYNAMICS, "dense");
}

#[test]
fn a_run_with_m_by_columns_keeps_its_energy_and_follows_the_entries() {
    let columns = Relative10Columns { m: M, l: L, g: G };
    let dense = Relative10Dense { m: M, l: L, g: G };
    let x0 = columns.state([0.6, -0.3, 0.2, 0.1, -0.2, 0.3, 0.0, -0.1, 0.2, 0.1], [0.0; 10]);
    let options = Options::default().rtol(1e-10).atol(1e-12);
    let (run, twin) = (
        columns.run(x0).span(0.0..2.0).options(&options).go().unwrap(),
        dense.run(x0).span(0.0..2.0).options(&options).go().unwrap(),
    );
    let e0 = columns.energy(0.0, &x0);
    let drift = run.iter().map(|(t, x)| (columns.energy(t, x) - e0).abs()).fold(0.0, f64::max);
    assert!(drift < 1e-8 * e0.abs().max(1.0), "energy drift {drift}");
    let (a, b) = (run.states.last().unwrap(), twin.states.last().unwrap());
    assert!(common::rel_err(a, b) < 1e-7, "final states: {}", common::rel_err(a, b));
}

/// The chain in relative angles of 5 links with its tip held on the line x = 1.2 (one holonomic
/// row), with the items of each twin.
macro_rules! held_relative_chain {
    ($name:ident, $dynamics:ident) => {
        #[derive(Mechanics)]
        #[mechanics(
            coordinates(q1, q2, q3, q4, q5),
            define(
                a1 = q1, x1 = l * a1.sin(), y1 = -l * a1.cos(),
                a2 = a1 + q2, x2 = x1 + l * a2.sin(), y2 = y1 - l * a2.cos(),
                a3 = a2 + q3, x3 = x2 + l * a3.sin(), y3 = y2 - l * a3.cos(),
                a4 = a3 + q4, x4 = x3 + l * a4.sin(), y4 = y3 - l * a4.cos(),
                a5 = a4 + q5, x5 = x4 + l * a5.sin(), y5 = y4 - l * a5.cos(),
            ),
            lagrangian = m / 2 * (dot(x1).powi(2) + dot(y1).powi(2) + dot(x2).powi(2) + dot(y2).powi(2)
                + dot(x3).powi(2) + dot(y3).powi(2) + dot(x4).powi(2) + dot(y4).powi(2) + dot(x5).powi(2) + dot(y5).powi(2))
                - m * g * (y1 + y2 + y3 + y4 + y5),
            holonomic(tip = x5 - 1.2),
            jacobian,
            dynamics = $dynamics,
        )]
        pub struct $name {
            pub m: f64,
            pub l: f64,
            pub g: f64,
        }
    };
}

held_relative_chain!(HeldColumns, columns);
held_relative_chain!(HeldEntries, dense);

#[test]
fn a_constrained_model_solves_its_saddle_point_with_m_by_columns() {
    let columns = HeldColumns { m: 0.7, l: 0.45, g: G };
    let entries = HeldEntries { m: 0.7, l: 0.45, g: G };
    assert_eq!(HeldColumns::DYNAMICS, "constrained");
    let mut rng = common::Rng::new(33);
    for _ in 0..3 {
        let x = rng.vector::<10>(-0.6, 0.6);
        let (ac, ae) = (columns.accelerations(0.0, &x).unwrap(), entries.accelerations(0.0, &x).unwrap());
        assert!(common::rel_err(&ac, &ae) < 1e-11, "{}", common::rel_err(&ac, &ae));
        let (jc, je) = (columns.jacobian(0.0, &x).unwrap(), entries.jacobian(0.0, &x).unwrap());
        assert!(common::rel_err(&jc, &je) < 1e-10, "{}", common::rel_err(&jc, &je));
    }
}

/// A 3-link chain in relative angles with a motor torque u at its first joint and damping at the
/// others, with the items of each twin.
// (rustfmt indents this attribute further on every run: left as written.)
#[rustfmt::skip]
macro_rules! driven_relative_chain {
    ($name:ident, $dynamics:ident) => {
        #[derive(Mechanics)]
        #[mechanics(
            coordinates(q1, q2, q3),
            input(u),
            define(
                a1 = q1, x1 = l * a1.sin(), y1 = -l * a1.cos(),
                a2 = a1 + q2, x2 = x1 + l * a2.sin(), y2 = y1 - l * a2.cos(),
                a3 = a2 + q3, x3 = x2 + l * a3.sin(), y3 = y2 - l * a3.cos(),
            ),
            lagrangian = m / 2 * (dot(x1).powi(2) + dot(y1).powi(2)
                + dot(x2).powi(2) + dot(y2).powi(2)
                + dot(x3).powi(2) + dot(y3).powi(2))
                - m * g * (y1 + y2 + y3),
            force(q1 = u, q2 = -c * dot(q2), q3 = -c * dot(q3)),
            sensitivity(m),
            jacobian,
            dynamics = $dynamics,
        )]
        pub struct $name {
            pub m: f64,
            pub l: f64,
            pub g: f64,
            pub c: f64,
        }
    };
}

driven_relative_chain!(DrivenColumns, columns);
driven_relative_chain!(DrivenEntries, dense);

#[test]
fn inputs_and_sensitivities_with_m_by_columns() {
    let columns = DrivenColumns { m: 0.7, l: 0.45, g: G, c: 0.3 };
    let entries = DrivenEntries { m: 0.7, l: 0.45, g: G, c: 0.3 };
    let mut rng = common::Rng::new(34);
    for u in [-1.0, 0.5] {
        let x = rng.vector::<6>(-0.8, 0.8);
        let (dc, de) = (columns.driven([u]), entries.driven([u]));
        let (ac, ae) = (dc.accelerations(0.0, &x).unwrap(), de.accelerations(0.0, &x).unwrap());
        assert!(common::rel_err(&ac, &ae) < 1e-12, "{}", common::rel_err(&ac, &ae));
        let (bc, be) = (dc.input_jacobian(0.0, &x).unwrap(), de.input_jacobian(0.0, &x).unwrap());
        assert!(common::rel_err(&bc, &be) < 1e-12, "∂F/∂u: {}", common::rel_err(&bc, &be));
        let (pc, pe) = (dc.parameter_jacobian(0.0, &x).unwrap(), de.parameter_jacobian(0.0, &x).unwrap());
        assert!(common::rel_err(&pc, &pe) < 1e-11, "∂F/∂m: {}", common::rel_err(&pc, &pe));
        let (jc, je) = (dc.jacobian(0.0, &x).unwrap(), de.jacobian(0.0, &x).unwrap());
        assert!(common::rel_err(&jc, &je) < 1e-11, "∂F/∂x: {}", common::rel_err(&jc, &je));
    }
}
