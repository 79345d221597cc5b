//! Micro-benchmark of `solve_mass` against nalgebra's Cholesky:
//! `cargo run --release -p routh-runtime --example solve_bench`.

use std::hint::black_box;
use std::time::Instant;

use routh_runtime::nalgebra::{SMatrix, SVector};
use routh_runtime::solve_mass;

fn spd<const N: usize>() -> SMatrix<f64, N, N> {
    let a = SMatrix::<f64, N, N>::from_fn(|i, j| ((i * 7 + j * 3) % 11) as f64 / 11.0 - 0.4);
    a * a.transpose() + SMatrix::<f64, N, N>::identity() * (N as f64)
}

fn bench<const N: usize>() {
    let m = spd::<N>();
    let f = SVector::<f64, N>::from_fn(|i, _| i as f64 + 1.0);
    let iters = 2_000_000 / N;
    let start = Instant::now();
    let mut acc = 0.0;
    for _ in 0..iters {
        acc += solve_mass(black_box(m), black_box(f)).map(|a| a[0]).unwrap_or(0.0);
    }
    let ours = start.elapsed().as_secs_f64() / iters as f64;
    let start = Instant::now();
    for _ in 0..iters {
        acc += black_box(m).cholesky().map(|c| c.solve(&black_box(f))[0]).unwrap_or(0.0);
    }
    let theirs = start.elapsed().as_secs_f64() / iters as f64;
    black_box(acc);
    println!("N = {N:>2}: solve_mass {:>7.1} ns, nalgebra cholesky {:>7.1} ns", ours * 1e9, theirs * 1e9);
}

fn main() {
    bench::<2>();
    bench::<4>();
    bench::<6>();
    bench::<10>();
    bench::<16>();
}
