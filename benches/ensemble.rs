//! Ensembles on all cores: 1000 pendulum runs (amplitudes 0 … 2.5 rad, 20 s each, rtol
//! 1e-10) on one worker and on every core, in the same process; prints the speed-up.

use criterion::{Criterion, criterion_group, criterion_main};
use routh::nalgebra::SVector;
use routh::prelude::*;
use routh::runtime::ensemble::{EnsembleOptions, ensemble};
use std::hint::black_box;
use std::time::Instant;

#[derive(Mechanics)]
#[mechanics(
    coordinates(th),
    lagrangian = m * l.powi(2) / 2 * dot(th).powi(2) + m * g * l * th.cos(),
)]
struct Pendulum {
    m: f64,
    l: f64,
    g: f64,
}

fn ensembles(c: &mut Criterion) {
    let p = Pendulum { m: 1.0, l: 1.0, g: 9.81 };
    let starts: Vec<_> = (0..1000).map(|k| p.state([0.0025 * f64::from(k)], [0.0])).collect();
    let opts = Options::default().rtol(1e-10).atol(1e-12);
    let one = EnsembleOptions::default().threads(Some(1)).progress(false);
    let all = EnsembleOptions::default().progress(false);
    let one_run = |_, x0: &SVector<f64, 2>| p.run(*x0).span(0.0..20.0).options(&opts).go();
    let run = |e: &EnsembleOptions| ensemble(black_box(&starts), one_run, e).unwrap();
    // A quick ratio in one process before criterion's own measurements.
    let time = |e: &EnsembleOptions| {
        let start = Instant::now();
        for _ in 0..5 {
            black_box(run(e));
        }
        start.elapsed().as_secs_f64() / 5.0
    };
    let (t1, tn) = (time(&one), time(&all));
    println!(
        "1000 pendulum runs: one worker {:.1} ms, {} workers {:.1} ms, speed-up {:.2}×",
        1e3 * t1,
        cores(),
        1e3 * tn,
        t1 / tn
    );
    let mut group = c.benchmark_group("ensemble");
    group.sample_size(10);
    group.bench_function("pendulum_1000_one_worker", |b| b.iter(|| run(&one)));
    group.bench_function("pendulum_1000_all_cores", |b| b.iter(|| run(&all)));
    group.finish();
}

fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, usize::from)
}

criterion_group!(benches, ensembles);
criterion_main!(benches);
