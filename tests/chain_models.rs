//! The benchmark's chain models (`benches/chain_models.rs`) are written by
//! `routh_macros_core::fixtures::pendulum_chain`; this test keeps the file in step with the generator
//! (run with `ROUTH_BLESS=1` to rewrite it) and checks the 5-link chain's physics.

mod common;

use routh::prelude::*;

#[allow(dead_code)]
mod chains {
    use routh::prelude::*;
    include!("../benches/chain_models.rs");
}

const SIZES: [usize; 6] = [2, 5, 10, 20, 30, 50];
const DENSE: [usize; 3] = [20, 30, 50];
const RECURSIVE: [usize; 3] = [2, 5, 10];

fn expected_file() -> String {
    let mut s = String::from("// Written by routh_macros_core::fixtures::pendulum_chain; see tests/chain_models.rs.\n\n");
    for n in SIZES {
        s.push_str(&routh_macros_core::fixtures::pendulum_chain(&format!("Chain{n}"), n));
        s.push('\n');
    }
    // The field Jacobian is opt-in: chains that ask for it (the 30-link one by the recursion's tangent).
    s.push_str(&routh_macros_core::fixtures::pendulum_chain_with("Chain10Jacobian", 10, "jacobian"));
    s.push('\n');
    s.push_str(&routh_macros_core::fixtures::pendulum_chain_with("Chain30Jacobian", 30, "jacobian"));
    s.push('\n');
    // Each way of computing q̈, asked for (the chains above take the recursion from 12 links on).
    for n in DENSE {
        s.push_str(&routh_macros_core::fixtures::pendulum_chain_with(&format!("Chain{n}Dense"), n, "dynamics = dense"));
        s.push('\n');
    }
    for n in RECURSIVE {
        s.push_str(&routh_macros_core::fixtures::pendulum_chain_with(&format!("Chain{n}Recursive"), n, "dynamics = recursive"));
        s.push('\n');
    }
    // The 30-link chain with its tip held at a point (two holonomic rows): the saddle point with M
    // factored along the tree, and with the dense M; each with its field Jacobian (along the tree:
    // the kinetic part of the inverse dynamics by its tangent).
    let tip = "holonomic(tip_x = x30 - 3, tip_y = y30 + 20), jacobian";
    s.push_str(&routh_macros_core::fixtures::pendulum_chain_with("Chain30Constrained", 30, tip));
    s.push('\n');
    s.push_str(&routh_macros_core::fixtures::pendulum_chain_with(
        "Chain30ConstrainedDense",
        30,
        &format!("{tip}, dynamics = dense"),
    ));
    s.push('\n');
    s
}

/// The spatial chains of the benchmark (`benches/spatial_models.rs`, compiled by the benchmark
/// only): each way of computing q̈ at 6 and 12 links, and with the tip held in x and y (the
/// saddle point with M along the links by the composite rigid bodies at 12 links, with the field Jacobian, and
/// M factored along them at 20; each against the dense M).
fn spatial_file() -> String {
    let mut s =
        String::from("// Written by routh_macros_core::fixtures::spatial_chain_struct_with; see tests/chain_models.rs.\n\n");
    for n in [6, 12] {
        for (name, dynamics) in [("", "recursive"), ("Dense", "dense")] {
            let items = format!("dynamics = {dynamics}");
            s.push_str(&routh_macros_core::fixtures::spatial_chain_struct_with(&format!("Spatial{n}{name}"), n, &items));
            s.push('\n');
        }
    }
    for (n, jacobian) in [(12, "jacobian, "), (20, "")] {
        for (name, dynamics) in [("", "recursive"), ("Dense", "dense")] {
            let items = format!("holonomic(tip_x = e{n}[0] - 0.3, tip_y = e{n}[1] - 0.2), {jacobian}dynamics = {dynamics}");
            s.push_str(&routh_macros_core::fixtures::spatial_chain_struct_with(&format!("Held{n}{name}"), n, &items));
            s.push('\n');
        }
    }
    s
}

/// The 20-link chain turning in space with its tip held in x and y (`tests/common/held_chain.rs`,
/// compiled by `tests/spatial.rs`): its saddle point solved with M factored along its links; and
/// the same chain free.
fn held_chain_file() -> String {
    let mut s =
        String::from("// Written by routh_macros_core::fixtures::spatial_chain_struct_with; see tests/chain_models.rs.\n\n");
    let items = "holonomic(tip_x = e20[0] - 0.3, tip_y = e20[1] - 0.2)";
    s.push_str(&routh_macros_core::fixtures::spatial_chain_struct_with("Held20", 20, items));
    s.push('\n');
    // The same chain free: its mass operator M factored along the links from the joints alone.
    s.push_str(&routh_macros_core::fixtures::spatial_chain_struct_with("Free20", 20, ""));
    s
}

/// The planar chain in relative angles (`tests/common/relative_chain.rs`, compiled by
/// `tests/dense.rs`): no tree the recursion reads, so the dense path's — at 10 links with M by
/// columns and the Jacobian by the residual's tangent, as asked, and with M's entries and ∂g/∂x's
/// formulas; at 20 links as its size decides (M's entries, the Jacobian by tangents); and the chain
/// in absolute angles along its tree, the independent route.
fn relative_chain_file() -> String {
    let mut s = String::from(
        "// Written by routh_macros_core::fixtures::{relative_chain_struct_with, pendulum_chain_with}; see tests/chain_models.rs.\n\n",
    );
    for (name, dynamics) in [("Relative10Columns", "columns"), ("Relative10Dense", "dense")] {
        let items = format!("jacobian, sensitivity(l), dynamics = {dynamics}");
        s.push_str(&routh_macros_core::fixtures::relative_chain_struct_with(name, 10, &items));
        s.push('\n');
    }
    s.push_str(&routh_macros_core::fixtures::relative_chain_struct_with("Relative20", 20, "jacobian"));
    s.push('\n');
    s.push_str(&routh_macros_core::fixtures::pendulum_chain_with("Absolute10", 10, "dynamics = recursive"));
    s
}

/// The dense-path models of the benchmark (`benches/dense_models.rs`, compiled by the benchmark
/// only): the 30-link chain in relative angles with M from its entries and by columns (with its
/// field Jacobian by the residual's tangent).
fn dense_models_file() -> String {
    let mut s =
        String::from("// Written by routh_macros_core::fixtures::relative_chain_struct_with; see tests/chain_models.rs.\n\n");
    s.push_str(&routh_macros_core::fixtures::relative_chain_struct_with("Relative30Entries", 30, "dynamics = dense"));
    s.push('\n');
    s.push_str(&routh_macros_core::fixtures::relative_chain_struct_with("Relative30Columns", 30, "jacobian, dynamics = columns"));
    s
}

/// The file at `path` (from the crate's root) is `want`, or is rewritten to it with
/// `ROUTH_BLESS=1`.
fn assert_current(path: &str, want: &str) {
    let full = format!("{}/{path}", env!("CARGO_MANIFEST_DIR"));
    if std::env::var_os("ROUTH_BLESS").is_some() {
        std::fs::write(&full, want).unwrap();
    }
    let have = std::fs::read_to_string(&full).unwrap();
    assert!(have == want, "{path} is stale: rerun this test with ROUTH_BLESS=1");
}

#[test]
fn dense_models_file_is_current() {
    assert_current("benches/dense_models.rs", &dense_models_file());
}

#[test]
fn relative_chain_file_is_current() {
    assert_current("tests/common/relative_chain.rs", &relative_chain_file());
}

#[test]
fn held_chain_file_is_current() {
    assert_current("tests/common/held_chain.rs", &held_chain_file());
}

#[test]
fn spatial_models_file_is_current() {
    assert_current("benches/spatial_models.rs", &spatial_file());
}

#[test]
fn chain_models_file_is_current() {
    assert_current("benches/chain_models.rs", &expected_file());
}

#[test]
fn five_link_chain_conserves_energy_and_has_rod_mass_matrix() {
    let c = chains::Chain5 { m1: 1.0, l1: 1.0, m2: 0.5, l2: 0.8, m3: 0.7, l3: 0.6, m4: 0.4, l4: 0.9, m5: 0.3, l5: 0.5, g: 9.81 };
    let m = [c.m1, c.m2, c.m3, c.m4, c.m5];
    let l = [c.l1, c.l2, c.l3, c.l4, c.l5];
    let x0 = c.state([0.3, -0.2, 0.5, 0.1, -0.4], [0.0, 0.2, -0.1, 0.3, 0.0]);
    // Mᵢⱼ = lᵢ lⱼ cos(qᵢ − qⱼ) Σ_{k ≥ max(i,j)} mₖ for the chain of point masses.
    let mm = c.mass_matrix(0.0, &x0);
    for i in 0..5 {
        for j in 0..5 {
            let tail: f64 = m[i.max(j)..].iter().sum();
            let hand = l[i] * l[j] * (x0[i] - x0[j]).cos() * tail;
            assert!((mm[(i, j)] - hand).abs() < 1e-12, "M[{i},{j}] = {} vs {hand}", mm[(i, j)]);
        }
    }
    let sol = c.run(x0).span(0.0..5.0).rtol(1e-10).atol(1e-12).go().unwrap();
    let e0 = c.energy(0.0, &x0);
    for (t, x) in sol.iter() {
        assert!((c.energy(t, x) - e0).abs() < 1e-7 * e0.abs().max(1.0));
    }
}

/// Closed-form chain equations for uniform links: Mᵢⱼ = m l² cos(qᵢ−qⱼ) (n − max(i,j)),
/// fᵢ = −Σⱼ m l² sin(qᵢ−qⱼ) (n − max(i,j)) q̇ⱼ² − g m l sin qᵢ (n − i) (0-based i, j).
fn chain_closed_form<const N: usize, const D: usize>(
    m: f64,
    l: f64,
    g: f64,
    x: &SVector<f64, D>,
) -> (SMatrix<f64, N, N>, SVector<f64, N>) {
    let mut mm = SMatrix::<f64, N, N>::zeros();
    let mut f = SVector::<f64, N>::zeros();
    for i in 0..N {
        for j in 0..N {
            let tail = m * l * l * (N - i.max(j)) as f64;
            mm[(i, j)] = tail * (x[i] - x[j]).cos();
            f[i] -= tail * (x[i] - x[j]).sin() * x[N + j] * x[N + j];
        }
        f[i] -= g * m * l * (N - i) as f64 * x[i].sin();
    }
    (mm, f)
}

#[test]
fn twenty_link_chain_split_code_matches_closed_form() {
    // n = 20 is large enough that the generated M-and-f code is cut into several part functions
    // sharing a scratch array; the result must not change.
    let (m, l, g) = (0.6, 0.4, 9.81);
    let c = chains::Chain20::uniform(m, l, g);
    let mut rng = common::Rng::new(20);
    for _ in 0..5 {
        let x = rng.vector::<40>(-1.5, 1.5);
        let (mm, f) = chain_closed_form::<20, 40>(m, l, g, &x);
        assert!(common::rel_err(&c.mass_matrix(0.0, &x), &mm) < 1e-12);
        assert!(common::rel_err(&c.forcing(0.0, &x), &f) < 1e-11, "{}", common::rel_err(&c.forcing(0.0, &x), &f));
        let a = routh::runtime::solve_mass(mm, f).unwrap();
        let dx = c.field(0.0, &x).unwrap();
        for i in 0..20 {
            assert!((dx[20 + i] - a[i]).abs() < 1e-8 * (1.0 + a[i].abs()));
        }
    }
}

#[test]
fn ten_link_chain_split_jacobian_matches_finite_differences() {
    // The 10-link residual Jacobian is emitted as several part functions.
    let c = chains::Chain10Jacobian::uniform(0.8, 0.5, 9.81);
    let mut rng = common::Rng::new(10);
    for _ in 0..5 {
        let x = rng.vector::<20>(-1.0, 1.0);
        let j = c.jacobian(0.0, &x).unwrap();
        let fd = common::jacobian_fd(&c, 0.0, &x, 1e-6).unwrap();
        let err = common::rel_err(&j, &fd);
        assert!(err < 1e-6, "Jacobian vs finite differences: {err}");
    }
}
