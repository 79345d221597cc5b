//! The constrained saddle point through the dynamics contract: the rolling disk (4 coordinates, 2
//! nonholonomic rows) and a 3-link pendulum chain in Cartesian coordinates (6 coordinates, 3
//! holonomic rows) solve [M −Aᵀ; A 0] [q̈; λ] = [f; −c] with the model's mass operator, by the
//! Schur complement of M (`solve_constrained`). Baseline in the same process: the whole
//! saddle-point matrix, fixed-size, factored by the runtime's LU with partial pivoting — the solve
//! the contract replaced. Both from the same M, f, A and c (read from the generated functions),
//! agreeing to 1e-12 before timing; `disk/field` is the whole generated field for scale.
//!
//! `cargo bench --bench constrained` prints the ratio (Schur / LU) per model.

use criterion::{Criterion, criterion_group, criterion_main};
use routh::nalgebra::{SMatrix, SVector};
use routh::prelude::*;
use routh::runtime::LuFactor;
use routh::runtime::mechanics::{factor_mass, solve_constrained};
use std::hint::black_box;

#[derive(Mechanics)]
#[mechanics(
    coordinates(x, y, th, phi),
    lagrangian = m / 2 * (dot(x).powi(2) + dot(y).powi(2)) + i / 2 * dot(phi).powi(2) + j / 2 * dot(th).powi(2),
    constraint(roll_x = dx - r * th.cos() * dphi, roll_y = dy - r * th.sin() * dphi),
)]
struct RollingDisk {
    m: f64,
    i: f64,
    j: f64,
    r: f64,
}

#[derive(Mechanics)]
#[mechanics(
    coordinates(x1, y1, x2, y2, x3, y3),
    lagrangian = m / 2 * (dot(x1).powi(2) + dot(y1).powi(2) + dot(x2).powi(2) + dot(y2).powi(2) + dot(x3).powi(2) + dot(y3).powi(2))
        - m * g * (y1 + y2 + y3),
    holonomic(
        rod1 = x1.powi(2) + y1.powi(2) - l.powi(2),
        rod2 = (x2 - x1).powi(2) + (y2 - y1).powi(2) - l.powi(2),
        rod3 = (x3 - x2).powi(2) + (y3 - y2).powi(2) - l.powi(2),
    ),
)]
struct CartesianChain {
    m: f64,
    g: f64,
    l: f64,
}

/// The accelerations from the whole saddle-point matrix, fixed-size and factored by the runtime's
/// LU with partial pivoting (the solve before the contract, the baseline).
fn kkt<const N: usize, const K: usize, const NK: usize>(
    m: SMatrix<f64, N, N>,
    f: SVector<f64, N>,
    a: SMatrix<f64, K, N>,
    c: SVector<f64, K>,
) -> SVector<f64, N> {
    let mut k = SMatrix::<f64, NK, NK>::zeros();
    let mut rhs = SVector::<f64, NK>::zeros();
    for i in 0..N {
        for j in 0..N {
            k[(i, j)] = m[(i, j)];
        }
        for r in 0..K {
            k[(i, N + r)] = -a[(r, i)];
            k[(N + r, i)] = a[(r, i)];
        }
        rhs[i] = f[i];
    }
    for r in 0..K {
        rhs[N + r] = -c[r];
    }
    let sol = LuFactor::new(k).and_then(|lu| lu.solve(rhs)).expect("regular saddle point");
    SVector::from_fn(|i, _| sol[i])
}

/// The Schur-complement solve of the contract from the same M, f, A and c.
fn schur<const N: usize, const K: usize, const NK: usize>(
    m: SMatrix<f64, N, N>,
    f: SVector<f64, N>,
    a: SMatrix<f64, K, N>,
    c: SVector<f64, K>,
) -> SVector<f64, N> {
    let mass = factor_mass(0.0, m).expect("regular M");
    solve_constrained::<N, K, NK, _>(0.0, mass, (a, c), f, &["row"]).expect("regular saddle point").accelerations
}

fn bench(c: &mut Criterion) {
    let disk = RollingDisk { m: 1.5, i: 0.4, j: 0.2, r: 0.3 };
    let xd = disk.state([0.1, -0.2, 0.7, 1.1], [0.3, -0.39, 1.7, 2.2]);
    let chain = CartesianChain { m: 1.0, g: 9.81, l: 1.0 };
    let (a1, a2, a3) = (0.3f64, 0.5f64, 0.2f64);
    let q = [
        a1.sin(),
        -a1.cos(),
        a1.sin() + a2.sin(),
        -a1.cos() - a2.cos(),
        a1.sin() + a2.sin() + a3.sin(),
        -a1.cos() - a2.cos() - a3.cos(),
    ];
    let xc = chain.project_state(0.0, &chain.state(q, [0.1, 0.2, -0.1, 0.3, 0.2, -0.2])).unwrap();
    // The saddle points' data, evaluated once: only the solves are compared.
    let (ad, _) = disk.constraint_rows(0.0, &xd);
    let disk_data = (disk.mass_matrix(0.0, &xd), disk.forcing(0.0, &xd), ad, disk.constraint_bias(0.0, &xd));
    let (ac, _) = chain.constraint_rows(0.0, &xc);
    let chain_data = (chain.mass_matrix(0.0, &xc), chain.forcing(0.0, &xc), ac, chain.constraint_bias(0.0, &xc));
    let (m, f, a, cc) = disk_data;
    assert!((schur::<4, 2, 6>(m, f, a, cc) - kkt::<4, 2, 6>(m, f, a, cc)).amax() < 1e-12);
    assert!((schur::<4, 2, 6>(m, f, a, cc) - disk.accelerations(0.0, &xd).unwrap()).amax() < 1e-12);
    let (m, f, a, cc) = chain_data;
    assert!((schur::<6, 3, 9>(m, f, a, cc) - kkt::<6, 3, 9>(m, f, a, cc)).amax() < 1e-12);

    let time = |f: &dyn Fn()| {
        let start = std::time::Instant::now();
        for _ in 0..400_000 {
            f();
        }
        start.elapsed().as_secs_f64() / 400_000.0
    };
    let report = |name: &str, g: f64, b: f64| {
        println!(
            "{name}: Schur solve {:.0} ns, {:.2}× the LU of the whole saddle-point matrix ({:.0} ns)",
            1e9 * g,
            g / b,
            1e9 * b
        );
    };
    let d = disk_data;
    let (g, b) = (
        time(&|| {
            black_box(schur::<4, 2, 6>(d.0, d.1, d.2, d.3));
        }),
        time(&|| {
            black_box(kkt::<4, 2, 6>(d.0, d.1, d.2, d.3));
        }),
    );
    report("rolling disk (4 coordinates, 2 rows)", g, b);
    let h = chain_data;
    let (g, b) = (
        time(&|| {
            black_box(schur::<6, 3, 9>(h.0, h.1, h.2, h.3));
        }),
        time(&|| {
            black_box(kkt::<6, 3, 9>(h.0, h.1, h.2, h.3));
        }),
    );
    report("cartesian 3-chain (6 coordinates, 3 rows)", g, b);

    let mut group = c.benchmark_group("constrained");
    group.bench_function("disk/schur", |bch| bch.iter(|| schur::<4, 2, 6>(d.0, d.1, d.2, black_box(d.3))));
    group.bench_function("disk/saddle_lu", |bch| bch.iter(|| kkt::<4, 2, 6>(d.0, d.1, d.2, black_box(d.3))));
    group.bench_function("chain3/schur", |bch| bch.iter(|| schur::<6, 3, 9>(h.0, h.1, h.2, black_box(h.3))));
    group.bench_function("chain3/saddle_lu", |bch| bch.iter(|| kkt::<6, 3, 9>(h.0, h.1, h.2, black_box(h.3))));
    group.bench_function("disk/field", |bch| bch.iter(|| disk.field(0.0, black_box(&xd))));
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
