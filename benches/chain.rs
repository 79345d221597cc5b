//! Benchmarks on the n-link planar pendulum chain (n = 2, 5, 10, 20, 30, 50):
//!
//! - `rhs/generated/n`: one evaluation of the generated vector field x' = (q̇, q̈) as the chain gets it
//!   by default — the dense M q̈ = f with a Cholesky solve below 12 links, the articulated-body
//!   recursion along its tree from 12 on (`DYNAMICS`) — and `rhs/generated_dense/n`,
//!   `rhs/generated_recursive/n` the other way, asked for with `dynamics = ...`;
//! - `rhs/hand/n`: baseline in the same process — a careful hand-written O(n²) evaluation of the
//!   same field from the closed form Mᵢⱼ = lᵢlⱼ cos(qᵢ−qⱼ) Σ_{k≥max(i,j)} mₖ,
//!   fᵢ = −Σⱼ lᵢlⱼ sin(qᵢ−qⱼ) (Σ_{k≥max(i,j)} mₖ) q̇ⱼ² − g lᵢ sin qᵢ Σ_{k≥i} mₖ, with the same solver;
//! - `rhs/aba/n`: the yardstick of what the field can cost — an O(n) articulated-body
//!   evaluation (Featherstone's ABA) of the same chain, written by hand in planar spatial vectors
//!   and relative angles, checked against the hand-written field;
//! - `expand/n`: the derive's whole expansion (parse, derive, emit) at opt-level 0, the level proc
//!   macros run at by default (see the profile overrides in Cargo.toml); `expand/with_jacobian/n`
//!   the same with the opt-in field Jacobian. Prints the generated tokens' size of both;
//!   `expand/rover/*` and `expand/skater/*` a model with (`reduced`) and without (`full`) its
//!   `reduce(...)` item (the cost of a nonholonomic and of a non-abelian Routh reduced type). The
//!   Whipple bicycle's expansion is in `benches/bicycle.rs`. `expand/sensitivity/*` and
//!   `expand/impact/*`: the 30-link chain with sensitivities to g, m₁ and l₁ (and a force input),
//!   and with an impact, along its tree (`tree`) and with `dynamics = dense` (`dense`), with their
//!   tokens printed. `expand/large/n` (n = 50, 100, 200)
//!   the chains on the recursive path, with their growth from 50 to 200 links printed from
//!   in-process timings (the best of three each) against n log n and n².
//!
//! - `rhs_spatial/recursive/n`, `rhs_spatial/dense/n`, `rhs_spatial/by_hand/n` (n = 6, 12): the
//!   chain of links turning in space by the generated recursion, by the dense M⁻¹f, and by the
//!   articulated-body algorithm written by hand as loops over the links (`tests/common/
//!   spatial_aba.rs`); prints the ratio of the first two and each one's time per joint beside the
//!   hand loops' (straight-line code slows per joint once it outgrows the instruction caches);
//! - `constrained_spatial/links/n`, `constrained_spatial/dense/n` (n = 12, 20): chains of links
//!   turning in space with the tip held in x and y, the saddle point solved along the links (M from
//!   its products at 12, factored densely; M factored along the links, the runtime's `LinkFactor`,
//!   at 20) and with the dense M; `constrained_spatial/jacobian/*/12` their field Jacobians; prints
//!   the ratios;
//! - `constrained_chain/tree/30`, `constrained_chain/dense/30`: the 30-link chain with its tip held
//!   at a point (two holonomic rows), the saddle point solved with M factored along the tree (the
//!   runtime's `TreeFactor`) and with the dense M; prints their ratio; `constrained_chain/jacobian/*/30`
//!   their field Jacobians (along the tree: the inverse dynamics' kinetic part by its tangent);
//! - `jacobian/recursive/30`: the 30-link chain's field Jacobian by the recursion's tangent; prints
//!   it in units of the field and against central differences;
//! - `dense_columns/field/{entries,columns}/30`: the 30-link chain in relative angles — no tree the
//!   recursion reads — on the dense path, M from its entries and by columns from its products M eⱼ;
//!   `dense_columns/jacobian/tangent/30` its field Jacobian by the residual's tangent; prints the
//!   ratios (the Jacobian against central differences of the field from M's entries) and the
//!   expansions' sizes;
//! - `scheme/dopri5`, `scheme/dop853`: the 10-link chain integrated over 2 s at rtol 1e-10 with each
//!   Runge–Kutta pair (`Options::scheme`); prints their evaluations and errors against a reference
//!   run at rtol 1e-13.
//! - `stiff/dopri5/<k>`, `stiff/rodas4/<k>`: a pendulum on a stiff damped rod
//!   (`benches/stiff_models.rs`), the rod's spring k = 10⁶ and 10⁸ times the swing's m g / l,
//!   integrated over 1 s at rtol 1e-6 with DOPRI5 and with the implicit Rodas4 (which uses the
//!   generated Jacobian); prints their evaluations and the gap of their swing angles;
//!   `stiff/dopri5/arm_k1e6`, `stiff/rodas4/arm_k1e6`: a three-link chain whose joints are
//!   critically damped spring–dampers 10⁶ times stiffer than gravity (`FlexibleArm`), likewise.
//!
//! It also prints the operation count of the generated M-and-f code.

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use routh::nalgebra::{SMatrix, SVector};
use routh::runtime::{VectorField, solve_mass};
use std::hint::black_box;

mod measure;
use measure::{model_source, per_call};

#[allow(dead_code)]
mod stiff_models {
    use routh::prelude::*;
    include!("stiff_models.rs");
}

#[allow(dead_code)]
mod dense_models {
    use routh::prelude::*;
    include!("dense_models.rs");
}

#[allow(dead_code)]
mod chains {
    use routh::prelude::*;
    include!("chain_models.rs");
}

#[allow(dead_code)]
mod spatial {
    use routh::prelude::*;
    include!("spatial_models.rs");
}

/// The spatial chain's articulated-body algorithm written by hand as loops over the links (the
/// third route of `tests/spatial.rs`).
mod spatial_by_hand {
    include!("../tests/common/spatial_aba.rs");
}

/// The chain's field written by hand, as a careful engineer would (uniform masses `m`, lengths
/// `l`): sin and cos once per angle, cos(qᵢ−qⱼ) and sin(qᵢ−qⱼ) by the angle-difference identities,
/// O(n²) arithmetic, and the same Cholesky solve as generated code.
fn hand_field<const N: usize, const D: usize>(m: f64, l: f64, g: f64, x: &SVector<f64, D>) -> SVector<f64, D> {
    let s: [f64; N] = std::array::from_fn(|i| x[i].sin());
    let c: [f64; N] = std::array::from_fn(|i| x[i].cos());
    let mut mm = SMatrix::<f64, N, N>::zeros();
    let mut f = SVector::<f64, N>::zeros();
    let ml2 = m * l * l;
    for i in 0..N {
        for j in i..N {
            let tail = ml2 * (N - j) as f64; // Σ_{k ≥ max(i,j)} m lᵢ lⱼ with j ≥ i
            let cd = c[i] * c[j] + s[i] * s[j];
            let sd = s[i] * c[j] - c[i] * s[j];
            mm[(i, j)] = tail * cd;
            mm[(j, i)] = tail * cd;
            f[i] -= tail * sd * x[N + j] * x[N + j];
            if j != i {
                f[j] += tail * sd * x[N + i] * x[N + i];
            }
        }
        f[i] -= g * l * m * (N - i) as f64 * s[i];
    }
    let a = solve_mass(mm, f).expect("regular");
    let mut dx = SVector::<f64, D>::zeros();
    for i in 0..N {
        dx[i] = x[N + i];
        dx[N + i] = a[i];
    }
    dx
}

/// The limit of what the chain's field can cost: an O(n) articulated-body evaluation
/// (Featherstone's ABA in planar spatial vectors (ω, vₓ, v_y) at the world origin) — the
/// yardstick of the scale benchmarks. Links are point masses at the ends of massless rods; the fixture's
/// absolute angles qᵢ become relative joint angles θᵢ = qᵢ − qᵢ₋₁ and back (q̈ᵢ = Σⱼ≤ᵢ θ̈ⱼ).
fn recursive_field<const N: usize, const D: usize>(m: f64, l: f64, g: f64, x: &SVector<f64, D>) -> SVector<f64, D> {
    type V3 = [f64; 3];
    type M3 = [[f64; 3]; 3];
    let dot = |a: &V3, b: &V3| a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
    let mul = |a: &M3, v: &V3| -> V3 { [dot(&a[0], v), dot(&a[1], v), dot(&a[2], v)] };
    // Motion cross product v × w, and the force cross product v ×* f.
    let cross = |v: &V3, w: &V3| -> V3 { [0.0, v[2] * w[0] - v[0] * w[2], v[0] * w[1] - v[1] * w[0]] };
    let cross_force = |v: &V3, f: &V3| -> V3 { [v[1] * f[2] - v[2] * f[1], -v[0] * f[2], v[0] * f[1]] };
    let mut s = [[0.0; 3]; N]; // joint axes
    let mut c = [[0.0; 3]; N]; // velocity-product accelerations
    let mut ia = [[[0.0; 3]; 3]; N]; // articulated inertias
    let mut pa = [[0.0; 3]; N]; // articulated bias forces
    let mut v: V3 = [0.0; 3];
    let (mut px, mut py) = (0.0, 0.0);
    for i in 0..N {
        let rate = x[N + i] - if i > 0 { x[N + i - 1] } else { 0.0 };
        s[i] = [1.0, py, -px];
        let vj = [rate, s[i][1] * rate, s[i][2] * rate];
        v = [v[0] + vj[0], v[1] + vj[1], v[2] + vj[2]];
        c[i] = cross(&v, &vj);
        let (sn, cs) = x[i].sin_cos();
        px += l * sn;
        py -= l * cs;
        // The point mass at (px, py): I = m [[|c|², −c_y, c_x], [−c_y, 1, 0], [c_x, 0, 1]].
        ia[i] = [[m * (px * px + py * py), -m * py, m * px], [-m * py, m, 0.0], [m * px, 0.0, m]];
        pa[i] = cross_force(&v, &mul(&ia[i], &v));
    }
    let mut u = [[0.0; 3]; N];
    let mut dd = [0.0; N];
    let mut uu = [0.0; N];
    for i in (0..N).rev() {
        u[i] = mul(&ia[i], &s[i]);
        dd[i] = dot(&s[i], &u[i]);
        uu[i] = -dot(&s[i], &pa[i]);
        if i > 0 {
            let mut a = ia[i];
            for r in 0..3 {
                for k in 0..3 {
                    a[r][k] -= u[i][r] * u[i][k] / dd[i];
                }
            }
            let ac = mul(&a, &c[i]);
            for r in 0..3 {
                pa[i - 1][r] += pa[i][r] + ac[r] + u[i][r] * uu[i] / dd[i];
                for k in 0..3 {
                    ia[i - 1][r][k] += a[r][k];
                }
            }
        }
    }
    // Gravity as an upward acceleration of the base.
    let mut acc: V3 = [0.0, 0.0, g];
    let mut dx = SVector::<f64, D>::zeros();
    let mut qdd = 0.0;
    for i in 0..N {
        let a = [acc[0] + c[i][0], acc[1] + c[i][1], acc[2] + c[i][2]];
        let tdd = (uu[i] - dot(&u[i], &a)) / dd[i];
        acc = [a[0] + s[i][0] * tdd, a[1] + s[i][1] * tdd, a[2] + s[i][2] * tdd];
        qdd += tdd;
        dx[i] = x[N + i];
        dx[N + i] = qdd;
    }
    dx
}

macro_rules! bench_rhs {
    ($group:expr, $ty:ty, $other:ty, $n:literal, $d:literal) => {{
        let sys = <$ty>::uniform(1.0, 1.0, 9.81);
        let other = <$other>::uniform(1.0, 1.0, 9.81);
        let x = SVector::<f64, $d>::from_fn(|i, _| 0.1 + 0.37 * ((i * 7919) % 13) as f64 / 13.0);
        let generated = sys.field(0.0, &x).unwrap();
        let hand = hand_field::<$n, $d>(1.0, 1.0, 9.81, &x);
        assert!((generated - hand).norm() < 1e-8 * (1.0 + hand.norm()), "generated and hand-written fields differ");
        let alternative = other.field(0.0, &x).unwrap();
        assert!((alternative - generated).norm() < 1e-12 * (1.0 + hand.norm()), "the dense and recursive fields differ");
        let recursive = recursive_field::<$n, $d>(1.0, 1.0, 9.81, &x);
        assert!(
            (recursive - hand).norm() < 1e-9 * (1.0 + hand.norm()),
            "recursive and hand-written fields differ: {}",
            (recursive - hand).norm()
        );
        // Ratios in one process (criterion's own numbers follow).
        let per_call = |f: &dyn Fn() -> SVector<f64, $d>| per_call(200_000 / $n, f);
        let tg = per_call(&|| sys.field(0.0, black_box(&x)).unwrap());
        let th = per_call(&|| hand_field::<$n, $d>(1.0, 1.0, 9.81, black_box(&x)));
        let tr = per_call(&|| recursive_field::<$n, $d>(1.0, 1.0, 9.81, black_box(&x)));
        let to = per_call(&|| other.field(0.0, black_box(&x)).unwrap());
        println!(
            "chain n = {}: generated ({}) {:.0} ns, {:.2}× the hand-written O(n²) field ({:.0} ns), {:.2}× the O(n) \
             articulated-body one ({:.0} ns); {} {:.0} ns ({:.2}× the ABA)",
            $n,
            <$ty>::DYNAMICS,
            1e9 * tg,
            tg / th,
            1e9 * th,
            tg / tr,
            1e9 * tr,
            <$other>::DYNAMICS,
            1e9 * to,
            to / tr
        );
        $group.bench_with_input(BenchmarkId::new("generated", $n), &x, |b, x| b.iter(|| sys.field(0.0, black_box(x)).unwrap()));
        $group.bench_with_input(BenchmarkId::new("hand", $n), &x, |b, x| {
            b.iter(|| hand_field::<$n, $d>(1.0, 1.0, 9.81, black_box(x)))
        });
        $group.bench_with_input(BenchmarkId::new("aba", $n), &x, |b, x| {
            b.iter(|| recursive_field::<$n, $d>(1.0, 1.0, 9.81, black_box(x)))
        });
        $group.bench_with_input(BenchmarkId::new(format!("generated_{}", <$other>::DYNAMICS), $n), &x, |b, x| {
            b.iter(|| other.field(0.0, black_box(x)).unwrap())
        });
    }};
}

fn rhs(c: &mut Criterion) {
    let mut group = c.benchmark_group("rhs");
    bench_rhs!(group, chains::Chain2, chains::Chain2Recursive, 2, 4);
    bench_rhs!(group, chains::Chain5, chains::Chain5Recursive, 5, 10);
    bench_rhs!(group, chains::Chain10, chains::Chain10Recursive, 10, 20);
    bench_rhs!(group, chains::Chain20, chains::Chain20Dense, 20, 40);
    bench_rhs!(group, chains::Chain30, chains::Chain30Dense, 30, 60);
    bench_rhs!(group, chains::Chain50, chains::Chain50Dense, 50, 100);
    group.finish();
}

/// Chains of links turning in space (about z, y and x in turn, relative angles): the spatial
/// recursion against the dense field of the same chain, in one process; q̈ agreeing first.
fn spatial_chains(c: &mut Criterion) {
    macro_rules! pair {
        ($group:ident, $rec:ident, $dense:ident, $n:expr, $d:expr) => {{
            let r = spatial::$rec { m: 1.0, l: 0.5, i: 0.02, j: 0.01, g: 9.81 };
            let d = spatial::$dense { m: 1.0, l: 0.5, i: 0.02, j: 0.01, g: 9.81 };
            let x = SVector::<f64, $d>::from_fn(|i, _| 0.1 + 0.37 * ((i * 7919) % 13) as f64 / 13.0);
            let (a, b) = (r.field(0.0, &x).unwrap(), d.field(0.0, &x).unwrap());
            assert!((a - b).amax() < 1e-10 * (1.0 + b.amax()), "the two paths disagree at n = {}", $n);
            let per_call = |f: &dyn Fn() -> SVector<f64, $d>| per_call(200_000, f);
            let (tr, td) =
                (per_call(&|| r.field(0.0, black_box(&x)).unwrap()), per_call(&|| d.field(0.0, black_box(&x)).unwrap()));
            println!("spatial chain n = {}: recursive {:.0} ns, dense {:.0} ns ({:.2}×)", $n, 1e9 * tr, 1e9 * td, tr / td);
            // The same algorithm as loops written by hand (q̈ agreeing first): its time per joint
            // stays flat where the straight lines' grows once their code outgrows the instruction
            // caches (docs/guide/performance.md).
            let params = (1.0, 0.5, 0.02, 0.01, 9.81);
            let by_hand = spatial_by_hand::articulated_body::<$n>(params, x.as_slice());
            assert!(
                (0..$n).all(|k| (a[$n + k] - by_hand[k]).abs() < 1e-10 * (1.0 + a.amax())),
                "the hand loops disagree at n = {}",
                $n
            );
            let th = measure::per_call(200_000, || {
                spatial_by_hand::articulated_body::<$n>(black_box(params), black_box(x.as_slice()))
            });
            println!(
                "spatial chain n = {}: per joint, generated {:.1} ns, loops by hand {:.1} ns",
                $n,
                1e9 * tr / $n as f64,
                1e9 * th / $n as f64
            );
            $group.bench_with_input(BenchmarkId::new("recursive", $n), &x, |b, x| b.iter(|| r.field(0.0, black_box(x)).unwrap()));
            $group.bench_with_input(BenchmarkId::new("dense", $n), &x, |b, x| b.iter(|| d.field(0.0, black_box(x)).unwrap()));
            $group.bench_with_input(BenchmarkId::new("by_hand", $n), &x, |b, x| {
                b.iter(|| spatial_by_hand::articulated_body::<$n>(params, black_box(x.as_slice())))
            });
        }};
    }
    let mut group = c.benchmark_group("rhs_spatial");
    pair!(group, Spatial6, Spatial6Dense, 6, 12);
    pair!(group, Spatial12, Spatial12Dense, 12, 24);
    group.finish();
}

/// Chains of links turning in space with the tip held in x and y (two holonomic rows): the saddle
/// point solved along the links (M from its products at 12 links, M factored along them by the
/// runtime's `LinkFactor` at 20) against the dense M, in one process, the fields agreeing first; at
/// 12 links their field Jacobians too.
fn constrained_spatial(c: &mut Criterion) {
    let mut group = c.benchmark_group("constrained_spatial");
    macro_rules! held {
        ($rec:ident, $dense:ident, $n:expr, $d:expr, $jacobian:expr) => {{
            let r = spatial::$rec { m: 1.0, l: 0.5, i: 0.02, j: 0.01, g: 9.81 };
            let d = spatial::$dense { m: 1.0, l: 0.5, i: 0.02, j: 0.01, g: 9.81 };
            let x = SVector::<f64, $d>::from_fn(|i, _| 0.1 + 0.37 * ((i * 7919) % 13) as f64 / 13.0);
            let (a, b) = (r.field(0.0, &x).unwrap(), d.field(0.0, &x).unwrap());
            assert!((a - b).amax() < 1e-9 * (1.0 + b.amax()), "the two paths disagree at n = {}", $n);
            let (tr, td) = (
                per_call(100_000, || r.field(0.0, black_box(&x)).unwrap()),
                per_call(100_000, || d.field(0.0, black_box(&x)).unwrap()),
            );
            println!(
                "held spatial chain n = {}: field along the links {:.2} µs, dense {:.2} µs ({:.2}×)",
                $n,
                1e6 * tr,
                1e6 * td,
                tr / td
            );
            group.bench_with_input(BenchmarkId::new("links", $n), &x, |b, x| b.iter(|| r.field(0.0, black_box(x)).unwrap()));
            group.bench_with_input(BenchmarkId::new("dense", $n), &x, |b, x| b.iter(|| d.field(0.0, black_box(x)).unwrap()));
            $jacobian(&r, &d, &x, &mut group);
        }};
    }
    held!(
        Held12,
        Held12Dense,
        12,
        24,
        |r: &spatial::Held12,
         d: &spatial::Held12Dense,
         x: &SVector<f64, 24>,
         group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>| {
            let (jr, jd) = (r.jacobian(0.0, x).unwrap(), d.jacobian(0.0, x).unwrap());
            assert!((jr - jd).amax() < 1e-8 * (1.0 + jd.amax()), "the two Jacobians disagree");
            let (tr, td) = (
                per_call(5_000, || r.jacobian(0.0, black_box(x)).unwrap()),
                per_call(5_000, || d.jacobian(0.0, black_box(x)).unwrap()),
            );
            println!(
                "held spatial chain n = 12: field Jacobian along the links {:.1} µs, dense {:.1} µs ({:.2}×)",
                1e6 * tr,
                1e6 * td,
                tr / td
            );
            group.bench_with_input(BenchmarkId::new("jacobian/links", 12), x, |b, x| {
                b.iter(|| r.jacobian(0.0, black_box(x)).unwrap())
            });
            group.bench_with_input(BenchmarkId::new("jacobian/dense", 12), x, |b, x| {
                b.iter(|| d.jacobian(0.0, black_box(x)).unwrap())
            });
        }
    );
    held!(
        Held20,
        Held20Dense,
        20,
        40,
        |_: &spatial::Held20,
         _: &spatial::Held20Dense,
         _: &SVector<f64, 40>,
         _: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>| {}
    );
    group.finish();
}

/// The 30-link chain with its tip held at a point (two holonomic rows): the constrained field with
/// M factored along the tree (`TreeFactor`: one O(n) solve per right-hand side inside the
/// saddle point) against the same model with the dense M, and the unconstrained O(n) yardstick.
fn constrained(c: &mut Criterion) {
    let tree = chains::Chain30Constrained::uniform(1.0, 1.0, 9.81);
    let dense = chains::Chain30ConstrainedDense::uniform(1.0, 1.0, 9.81);
    let x = SVector::<f64, 60>::from_fn(|i, _| 0.1 + 0.37 * ((i * 7919) % 13) as f64 / 13.0);
    let (a, b) = (tree.field(0.0, &x).unwrap(), dense.field(0.0, &x).unwrap());
    assert!((a - b).norm() < 1e-10 * (1.0 + b.norm()), "the tree's and the dense constrained fields differ");
    let per_field = |f: &dyn Fn() -> SVector<f64, 60>| per_call(20_000, f);
    let tt = per_field(&|| tree.field(0.0, black_box(&x)).unwrap());
    let td = per_field(&|| dense.field(0.0, black_box(&x)).unwrap());
    let ta = per_field(&|| recursive_field::<30, 60>(1.0, 1.0, 9.81, black_box(&x)));
    println!(
        "constrained chain n = 30, 2 rows: along the tree {:.0} ns, dense {:.0} ns ({:.2}× faster); {:.2}× the \
         unconstrained O(n) articulated-body field ({:.0} ns)",
        1e9 * tt,
        1e9 * td,
        td / tt,
        tt / ta,
        1e9 * ta
    );
    // The field Jacobians: the saddle point differentiated with K = M a + … by its tangent along
    // the tree (M never formed), and with the dense M's symbolic derivatives.
    let (jt, jd) = (tree.jacobian(0.0, &x).unwrap(), dense.jacobian(0.0, &x).unwrap());
    assert!((jt - jd).amax() < 1e-9 * (1.0 + jd.amax()), "the tree's and the dense constrained Jacobians differ");
    let per_jacobian = |f: &dyn Fn() -> SMatrix<f64, 60, 60>| per_call(500, f);
    let jtt = per_jacobian(&|| tree.jacobian(0.0, black_box(&x)).unwrap());
    let jtd = per_jacobian(&|| dense.jacobian(0.0, black_box(&x)).unwrap());
    println!(
        "constrained chain n = 30, field Jacobian: along the tree {:.1} µs ({:.0} fields), dense {:.1} µs ({:.2}× faster)",
        1e6 * jtt,
        jtt / tt,
        1e6 * jtd,
        jtd / jtt
    );
    let mut group = c.benchmark_group("constrained_chain");
    group.bench_function("tree/30", |b| b.iter(|| tree.field(0.0, black_box(&x)).unwrap()));
    group.bench_function("dense/30", |b| b.iter(|| dense.field(0.0, black_box(&x)).unwrap()));
    group.bench_function("jacobian/tree/30", |b| b.iter(|| tree.jacobian(0.0, black_box(&x)).unwrap()));
    group.bench_function("jacobian/dense/30", |b| b.iter(|| dense.jacobian(0.0, black_box(&x)).unwrap()));
    group.finish();
}

/// The field Jacobian of the 30-link chain by the recursion's tangent (2n directional derivatives,
/// O(n²)), against the field itself and central differences of it.
fn jacobian(c: &mut Criterion) {
    let chain = chains::Chain30Jacobian::uniform(1.0, 1.0, 9.81);
    let x = SVector::<f64, 60>::from_fn(|i, _| 0.1 + 0.37 * ((i * 7919) % 13) as f64 / 13.0);
    let exact = chain.jacobian(0.0, &x).unwrap();
    let fd = routh::runtime::jacobian_fd(&chain, 0.0, &x, 0.0).unwrap();
    assert!((exact - fd).amax() < 1e-6 * exact.amax(), "the tangent Jacobian and differences differ");
    let per_call = |f: &dyn Fn() -> f64| per_call(2_000, f);
    let tj = per_call(&|| chain.jacobian(0.0, black_box(&x)).unwrap()[(31, 0)]);
    let tf = per_call(&|| chain.field(0.0, black_box(&x)).unwrap()[31]);
    let td = per_call(&|| routh::runtime::jacobian_fd(&chain, 0.0, black_box(&x), 0.0).unwrap()[(31, 0)]);
    println!(
        "chain n = 30 field Jacobian by the recursion's tangent: {:.1} µs = {:.0} fields ({:.2} µs each); central \
         differences {:.1} µs",
        1e6 * tj,
        tj / tf,
        1e6 * tf,
        1e6 * td
    );
    c.bench_function("jacobian/recursive/30", |b| b.iter(|| chain.jacobian(0.0, black_box(&x)).unwrap()));
}

/// The dense path of a model that is no tree: the 30-link chain in relative angles
/// (`benches/dense_models.rs`) with M from its entries (`dynamics = dense`) and by columns from its
/// products (`dynamics = columns`); its field Jacobian by the residual's tangent against central
/// differences of the field from M's entries. Prints the ratios, the expansions' sizes at 30 and
/// 50 links, and their times as the size decides.
fn dense_columns(c: &mut Criterion) {
    let entries = dense_models::Relative30Entries { m: 1.0, l: 0.5, g: 9.81 };
    let columns = dense_models::Relative30Columns { m: 1.0, l: 0.5, g: 9.81 };
    let x = SVector::<f64, 60>::from_fn(|i, _| 0.1 + 0.37 * ((i * 7919) % 13) as f64 / 13.0 - 0.2);
    let (ae, ac) = (entries.accelerations(0.0, &x).unwrap(), columns.accelerations(0.0, &x).unwrap());
    assert!((ae - ac).amax() < 1e-8 * ae.amax(), "the two forms of M give other accelerations");
    let exact = columns.jacobian(0.0, &x).unwrap();
    let fd = routh::runtime::jacobian_fd(&columns, 0.0, &x, 0.0).unwrap();
    assert!((exact - fd).amax() < 1e-4 * exact.amax(), "the tangent Jacobian and differences differ");
    let per_call = |f: &dyn Fn() -> f64| per_call(2_000, f);
    let te = per_call(&|| entries.field(0.0, black_box(&x)).unwrap()[31]);
    let tc = per_call(&|| columns.field(0.0, black_box(&x)).unwrap()[31]);
    let tj = per_call(&|| columns.jacobian(0.0, black_box(&x)).unwrap()[(31, 0)]);
    // Central differences of the faster field (M from its entries): what the Jacobian would cost without.
    let td = per_call(&|| routh::runtime::jacobian_fd(&entries, 0.0, black_box(&x), 0.0).unwrap()[(31, 0)]);
    let size = |n: usize, dynamics: &str| {
        let src = routh_macros_core::fixtures::relative_chain_struct_with("R", n, &format!("dynamics = {dynamics}"));
        routh_macros_core::try_expand(src.parse().unwrap()).unwrap().to_string().len() / 1024
    };
    // The expansion as the model's size decides (at opt-level 0, as proc macros run): entries at 30
    // links, columns at 50.
    let expansion = |n: usize| {
        let src = routh_macros_core::fixtures::relative_chain_struct_with("R", n, "");
        let start = std::time::Instant::now();
        black_box(routh_macros_core::try_expand(src.parse().unwrap()).unwrap());
        start.elapsed().as_secs_f64()
    };
    println!("chain in relative angles: expansion {:.2} s at 30 links, {:.2} s at 50", expansion(30), expansion(50));
    println!(
        "chain in relative angles, n = 30: field with M from its entries {:.2} µs, by columns {:.2} µs ({:.2}x); \
         Jacobian by the residual's tangent {:.1} µs, central differences {:.1} µs ({:.2}x); tokens at 30 links \
         {} KB by entries, {} KB by columns; at 50 links {} and {} KB",
        1e6 * te,
        1e6 * tc,
        tc / te,
        1e6 * tj,
        1e6 * td,
        tj / td,
        size(30, "dense"),
        size(30, "columns"),
        size(50, "dense"),
        size(50, "columns"),
    );
    let mut group = c.benchmark_group("dense_columns");
    group.bench_function("field/entries/30", |b| b.iter(|| entries.field(0.0, black_box(&x)).unwrap()));
    group.bench_function("field/columns/30", |b| b.iter(|| columns.field(0.0, black_box(&x)).unwrap()));
    group.bench_function("jacobian/tangent/30", |b| b.iter(|| columns.jacobian(0.0, black_box(&x)).unwrap()));
    group.finish();
}

fn expand(c: &mut Criterion) {
    let mut group = c.benchmark_group("expand");
    group.sample_size(10);
    for n in [2usize, 5, 10, 20] {
        let src: proc_macro2::TokenStream =
            routh_macros_core::fixtures::pendulum_chain_struct(&format!("Chain{n}"), n).parse().unwrap();
        let ops = routh_macros_core::dynamics_ops(src.clone()).unwrap();
        println!("chain n = {n}: generated M and f use {ops:?}");
        let tokens = routh_macros_core::try_expand(src.clone()).unwrap().to_string().len();
        let with: proc_macro2::TokenStream =
            routh_macros_core::fixtures::pendulum_chain_struct_with(&format!("Chain{n}"), n, "jacobian").parse().unwrap();
        let tokens_with = routh_macros_core::try_expand(with.clone()).unwrap().to_string().len();
        println!("chain n = {n}: {tokens} bytes of generated tokens, {tokens_with} with the field Jacobian");
        group.bench_with_input(BenchmarkId::from_parameter(n), &src, |b, src| {
            b.iter(|| routh_macros_core::try_expand(black_box(src.clone())).unwrap())
        });
        group.bench_with_input(BenchmarkId::new("with_jacobian", n), &with, |b, src| {
            b.iter(|| routh_macros_core::try_expand(black_box(src.clone())).unwrap())
        });
    }
    // Growth from 50 to 200 links: tokens and expansion time against n log n (5.42×) and n² (16×).
    let large: Vec<(usize, proc_macro2::TokenStream)> = [50usize, 100, 200]
        .into_iter()
        .map(|n| (n, routh_macros_core::fixtures::pendulum_chain_struct(&format!("Chain{n}"), n).parse().unwrap()))
        .collect();
    let mut grown = Vec::new();
    for (n, src) in &large {
        let tokens = routh_macros_core::try_expand(src.clone()).unwrap().to_string().len();
        let best = (0..3)
            .map(|_| {
                let start = std::time::Instant::now();
                black_box(routh_macros_core::try_expand(src.clone()).unwrap());
                start.elapsed().as_secs_f64()
            })
            .fold(f64::INFINITY, f64::min);
        println!("chain n = {n}: expansion {:.3} s, {} KB of tokens", best, tokens / 1024);
        grown.push((best, tokens as f64));
    }
    let (first, last) = (grown[0], grown[2]);
    println!(
        "chain 50 -> 200 links: expansion {:.2}x, tokens {:.2}x (n log n: {:.2}x, n^2: 16x)",
        last.0 / first.0,
        last.1 / first.1,
        4.0 * 200f64.ln() / 50f64.ln()
    );
    for (n, src) in &large {
        group.bench_with_input(BenchmarkId::new("large", n), src, |b, src| {
            b.iter(|| routh_macros_core::try_expand(black_box(src.clone())).unwrap())
        });
    }
    // Items that used to send a tree to the dense M, E and p, on the 30-link chain along its tree and
    // with `dynamics = dense`: sensitivities to a mass and a length, an impact.
    for (name, items) in [
        ("sensitivity", "input(u), force(q1 = u), sensitivity(g, m1, l1)"),
        ("impact", "impact(name = wall, guard = q1 + 1, law = restitution(1))"),
    ] {
        let tree: proc_macro2::TokenStream =
            routh_macros_core::fixtures::pendulum_chain_struct_with("Chain30", 30, items).parse().unwrap();
        let dense: proc_macro2::TokenStream =
            routh_macros_core::fixtures::pendulum_chain_struct_with("Chain30", 30, &format!("{items}, dynamics = dense"))
                .parse()
                .unwrap();
        let (t_tree, t_dense) = (
            routh_macros_core::try_expand(tree.clone()).unwrap().to_string().len(),
            routh_macros_core::try_expand(dense.clone()).unwrap().to_string().len(),
        );
        println!("chain n = 30 with {name}: {} KB of tokens along the tree, {} KB dense", t_tree / 1024, t_dense / 1024);
        group.bench_function(BenchmarkId::new(name, "tree"), |b| {
            b.iter(|| routh_macros_core::try_expand(black_box(tree.clone())).unwrap())
        });
        group.bench_function(BenchmarkId::new(name, "dense"), |b| {
            b.iter(|| routh_macros_core::try_expand(black_box(dense.clone())).unwrap())
        });
    }
    // The 12-link chain turning in space along its links and with `dynamics = dense`.
    let spatial = |dynamics: &str| -> proc_macro2::TokenStream {
        routh_macros_core::fixtures::spatial_chain_struct_with("Spatial12", 12, &format!("dynamics = {dynamics}"))
            .parse()
            .unwrap()
    };
    let (links, dense) = (spatial("recursive"), spatial("dense"));
    let (t_links, t_dense) = (
        routh_macros_core::try_expand(links.clone()).unwrap().to_string().len(),
        routh_macros_core::try_expand(dense.clone()).unwrap().to_string().len(),
    );
    println!("spatial chain n = 12: {} KB of tokens along its links, {} KB dense", t_links / 1024, t_dense / 1024);
    // The growth along the links (best of two expansions each, printed), against n log n.
    let mut growth = Vec::new();
    for n in [6, 24, 48, 96, 192] {
        let src: proc_macro2::TokenStream =
            routh_macros_core::fixtures::spatial_chain_struct_with("Spatial", n, "dynamics = recursive").parse().unwrap();
        let mut best = f64::INFINITY;
        let mut tokens = 0;
        for _ in 0..2 {
            let start = std::time::Instant::now();
            let out = routh_macros_core::try_expand(src.clone()).unwrap();
            best = best.min(start.elapsed().as_secs_f64());
            tokens = out.to_string().len();
        }
        println!("spatial chain n = {n}: {} KB of tokens along its links in {best:.3} s", tokens / 1024);
        growth.push((n, best, tokens));
    }
    let (first, last) = (growth[2], growth[4]);
    println!(
        "spatial chain 48 → 192 links: expansion {:.2}×, tokens {:.2}× (n log n: {:.2}×)",
        last.1 / first.1,
        last.2 as f64 / first.2 as f64,
        4.0 * 192f64.ln() / 48f64.ln()
    );
    group.bench_function(BenchmarkId::new("spatial", "links"), |b| {
        b.iter(|| routh_macros_core::try_expand(black_box(links.clone())).unwrap())
    });
    group.bench_function(BenchmarkId::new("spatial", "dense"), |b| {
        b.iter(|| routh_macros_core::try_expand(black_box(dense.clone())).unwrap())
    });
    // What a reduced type costs: each model with and without its `reduce(...)` item.
    for (name, source) in
        [("rover", model_source(include_str!("../examples/models/rover.rs"), "PolarRover")), ("skater", SKATER.to_owned())]
    {
        let with: proc_macro2::TokenStream = source.parse().unwrap();
        let start = source.find("    reduce(").expect("a reduce item");
        let end = start + source[start..].find("),\n").expect("its end") + 3;
        let without: proc_macro2::TokenStream = format!("{}{}", &source[..start], &source[end..]).parse().unwrap();
        let (t_with, t_without) = (
            routh_macros_core::try_expand(with.clone()).unwrap().to_string().len(),
            routh_macros_core::try_expand(without.clone()).unwrap().to_string().len(),
        );
        println!("{name}: {t_with} bytes of generated tokens with its reduction, {t_without} without");
        group.bench_function(BenchmarkId::new(name, "reduced"), |b| {
            b.iter(|| routh_macros_core::try_expand(black_box(with.clone())).unwrap())
        });
        group.bench_function(BenchmarkId::new(name, "full"), |b| {
            b.iter(|| routh_macros_core::try_expand(black_box(without.clone())).unwrap())
        });
    }
    group.finish();
}

/// The skater of `tests/routh_group.rs`: Routh reduction by the rotations of an orientation.
const SKATER: &str = "#[mechanics(
    coordinates(s),
    orientation(r),
    lagrangian = mm * dot(s).powi(2)
        + (a * omega(r)[0].powi(2) + (b + 2 * mm * s.powi(2)) * omega(r)[1].powi(2)
            + (c + 2 * mm * s.powi(2)) * omega(r)[2].powi(2)) / 2
        - k / 2 * (s - s0).powi(2),
    reduce(routh(r), name = SkaterRouth),
)]
pub struct Skater { pub mm: f64, pub a: f64, pub b: f64, pub c: f64, pub k: f64, pub s0: f64 }
";

fn scheme(c: &mut Criterion) {
    use routh::runtime::{Options, Scheme};
    let mut group = c.benchmark_group("scheme");
    group.sample_size(10);
    let sys = chains::Chain10::uniform(1.0, 1.0, 9.81);
    let x0 = SVector::<f64, 20>::from_fn(|i, _| if i < 10 { 0.3 + 0.05 * i as f64 } else { 0.0 });
    let reference = sys.run(x0).span(0.0..2.0).scheme(Scheme::Dop853).rtol(1e-13).atol(1e-15).go().unwrap().end.1;
    for (name, scheme) in [("dopri5", Scheme::Dopri5), ("dop853", Scheme::Dop853)] {
        let opts = Options::default().scheme(scheme).rtol(1e-10).atol(1e-12);
        let run = sys.run(x0).span(0.0..2.0).options(&opts).go().unwrap();
        println!(
            "chain n = 10 over 2 s at rtol 1e-10, {name}: {} evaluations, {} steps, error {:.1e}",
            run.stats.evaluations,
            run.stats.steps,
            (run.end.1 - reference).amax()
        );
        group.bench_function(name, |b| b.iter(|| sys.run(black_box(x0)).span(0.0..2.0).options(&opts).go().unwrap()));
    }
    group.finish();
}

fn stiff(c: &mut Criterion) {
    use routh::runtime::Options;
    let mut group = c.benchmark_group("stiff");
    group.sample_size(10);
    for (label, ratio) in [("k1e6", 1e3), ("k1e8", 1e4)] {
        let p = stiff_models::StiffPendulum::with_ratio(ratio);
        let x0 = p.released(0.5);
        let run = |o: &Options| p.run(black_box(x0)).span(0.0..1.0).options(o).go().unwrap();
        let swing = |d: &routh::runtime::Trajectory<4>, r: &routh::runtime::Trajectory<4>| (d.end.1[1] - r.end.1[1]).abs();
        stiff_pair(&mut group, label, &format!("stiff pendulum {label} (swing angles)"), run, swing);
    }
    // The benchmark: a chain with spring–damper joints, stiffness ratio 10⁶ (joint
    // stiffness over the gravity stiffness m g l), critically damped.
    let arm = stiff_models::FlexibleArm::with_ratio(1e6, 1.0);
    let x0 = arm.released(0.5);
    let run = |o: &Options| arm.run(black_box(x0)).span(0.0..1.0).options(o).go().unwrap();
    let states = |d: &routh::runtime::Trajectory<6>, r: &routh::runtime::Trajectory<6>| (d.end.1 - r.end.1).amax();
    stiff_pair(&mut group, "arm_k1e6", "flexible arm k = 1e6 m g l (states)", run, states);
    group.finish();
}

/// Both schemes on one stiff model over 1 s at rtol 1e-6: their evaluations and `gap` between
/// their results printed, then each timed as `<scheme>/<label>`.
fn stiff_pair<const D: usize>(
    group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    label: &str,
    what: &str,
    run: impl Fn(&routh::runtime::Options) -> routh::runtime::Trajectory<D>,
    gap: impl Fn(&routh::runtime::Trajectory<D>, &routh::runtime::Trajectory<D>) -> f64,
) {
    use routh::runtime::{Options, Scheme};
    let opts = |scheme| Options::default().scheme(scheme).rtol(1e-6).atol(1e-6);
    let (d, r) = (run(&opts(Scheme::Dopri5)), run(&opts(Scheme::Rodas4)));
    println!(
        "{what} over 1 s at rtol 1e-6: DOPRI5 {} evaluations, Rodas4 {} ({:.0}× fewer); they differ by {:.1e}",
        d.stats.evaluations,
        r.stats.evaluations,
        d.stats.evaluations as f64 / r.stats.evaluations as f64,
        gap(&d, &r)
    );
    for (name, scheme) in [("dopri5", Scheme::Dopri5), ("rodas4", Scheme::Rodas4)] {
        let o = opts(scheme);
        group.bench_function(BenchmarkId::new(name, label), |b| b.iter(|| run(&o)));
    }
}

criterion_group!(benches, rhs, spatial_chains, constrained_spatial, constrained, jacobian, dense_columns, expand, scheme, stiff);
criterion_main!(benches);
