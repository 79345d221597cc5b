//! Benchmarks on the n-link planar pendulum chain (n = 2, 5, 10, 20):
//!
//! - `rhs/generated/n`: one evaluation of the generated vector field x' = (q̇, M⁻¹f), including the
//!   Cholesky solve;
//! - `rhs/hand/n`: baseline in the same process — a careful hand-written O(n²) evaluation of the
//!   same field from the closed form Mᵢⱼ = lᵢlⱼ cos(qᵢ−qⱼ) Σ_{k≥max(i,j)} mₖ,
//!   fᵢ = −Σⱼ lᵢlⱼ sin(qᵢ−qⱼ) (Σ_{k≥max(i,j)} mₖ) q̇ⱼ² − g lᵢ sin qᵢ Σ_{k≥i} mₖ, with the same solver;
//! - `expand/n`: the derive's whole expansion (parse, derive, emit) at opt-level 0, the level proc
//!   macros run at by default (see the profile overrides in Cargo.toml).
//!
//! It also prints the operation count of the generated M-and-f code.

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use routh::nalgebra::{SMatrix, SVector};
use routh::runtime::{VectorField, solve_mass};
use std::hint::black_box;

#[allow(dead_code)]
mod chains {
    use routh::prelude::*;
    include!("chain_models.rs");
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

macro_rules! bench_rhs {
    ($group:expr, $ty:ty, $n:literal, $d:literal) => {{
        let sys = <$ty>::uniform(1.0, 1.0, 9.81);
        let x = SVector::<f64, $d>::from_fn(|i, _| 0.1 + 0.37 * ((i * 7919) % 13) as f64 / 13.0);
        let generated = sys.field(0.0, &x).unwrap();
        let hand = hand_field::<$n, $d>(1.0, 1.0, 9.81, &x);
        assert!((generated - hand).norm() < 1e-8 * (1.0 + hand.norm()), "generated and hand-written fields differ");
        $group.bench_with_input(BenchmarkId::new("generated", $n), &x, |b, x| {
            b.iter(|| sys.field(0.0, black_box(x)).unwrap())
        });
        $group.bench_with_input(BenchmarkId::new("hand", $n), &x, |b, x| {
            b.iter(|| hand_field::<$n, $d>(1.0, 1.0, 9.81, black_box(x)))
        });
    }};
}

fn rhs(c: &mut Criterion) {
    let mut group = c.benchmark_group("rhs");
    bench_rhs!(group, chains::Chain2, 2, 4);
    bench_rhs!(group, chains::Chain5, 5, 10);
    bench_rhs!(group, chains::Chain10, 10, 20);
    bench_rhs!(group, chains::Chain20, 20, 40);
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
        group.bench_with_input(BenchmarkId::from_parameter(n), &src, |b, src| {
            b.iter(|| routh_macros_core::try_expand(black_box(src.clone())).unwrap())
        });
    }
    group.finish();
}

criterion_group!(benches, rhs, expand);
criterion_main!(benches);
