//! Continuation of periodic orbits by time-based multiple shooting (*Hybrid periodic orbits*
//! §4.3): the bouncing rod (r = 0.01) along its symmetric family, with one evaluation of the
//! residual and its Jacobian (31) in the same process as the unit of cost.
//!
//! - `rod/linearize`: one evaluation of r(u) and dr(u) (three phases with their sensitivities; two
//!   points in turn, since the problem reuses its last evaluation at the same u);
//! - `rod/branch`: the symmetric branch from the orbit with impact angle 0.9 (H̄ ≈ 0.53) through
//!   TP1, TP2, the period doubling and the simple bifurcation to H̄ = 0.6 (adaptive steps, every
//!   special point located); prints points, rejected steps and Newton iterations per point.
//! - `slip/linearize`, `slip/branch`: the SLIP hopper of §4.4 (two modes of dimension 4 and 6),
//!   hopping in place from the grazing orbit (H̄ = 1, left by Lyapunov–Schmidt) to H̄ = 2 with its
//!   two simple bifurcations located — the benchmark; prints Newton iterations per point.

use criterion::{Criterion, criterion_group, criterion_main};
use routh::nalgebra::{DVector, SVector, Vector4};
use routh::prelude::*;
use routh::runtime::continuation::{ContinuationOptions, Problem, Start, branch_directions, continuation, correct_at_parameter};
use routh::runtime::periodic::{Anchor, MultipleShooting, Phase};
use std::hint::black_box;

#[allow(dead_code)]
mod models {
    use routh::prelude::*;
    include!("periodic_models.rs");
}
use models::{Hopper, Rod};

fn rod(c: &mut Criterion) {
    let rod = Rod { m: 1.0, g: 1.0, l: 1.0, r: 0.01, e: 1.0 };
    let value = |x: &SVector<f64, 4>| x[2];
    let gradient = |_x: &SVector<f64, 4>| Vector4::new(0.0, 0.0, 1.0, 0.0);
    let phases = [Phase { mode: 0, guard: 0 }, Phase { mode: 0, guard: 1 }];
    let ode = Options::default().rtol(1e-12).atol(1e-13);
    let shooting = MultipleShooting::new(&rod, &phases, Anchor { value: &value, gradient: &gradient }, &ode).unwrap();
    let theta: f64 = 0.9;
    let t1 = (2.0 * rod.r * rod.r * theta / theta.cos()).sqrt();
    let x0 = Vector4::new(0.5 * t1 * t1 + 0.5 * theta.sin(), 0.0, 0.0, theta / t1);
    let opts = ContinuationOptions::default().initial_step(0.05).max_step(2.0).max_points(400);
    let guess = shooting.guess(&x0, 0.0, 10.0).unwrap();
    let start = correct_at_parameter(&shooting, &guess, rod.energy(0.0, &x0), &opts).unwrap().u;
    let along = opts.clone().target(0.6);
    let branch = continuation(&shooting, &start, Start::Increasing, &along).unwrap();
    let iterations: usize = branch.points.iter().map(|p| p.iterations).sum();
    println!(
        "rod branch from H̄ = {:.4}: {} points, {} rejected steps, {:.2} Newton iterations per point, {:?}",
        start[16],
        branch.points.len(),
        branch.rejected,
        iterations as f64 / branch.points.len() as f64,
        branch.stop
    );
    let mut group = c.benchmark_group("rod");
    group.sample_size(10);
    // Two points in turn: the problem keeps its last evaluation, so one point would be a cache hit.
    let pair = [start.clone(), branch.points[1].u.clone()];
    let mut turn = 0;
    group.bench_function("linearize", |b| {
        b.iter(|| {
            turn ^= 1;
            shooting.linearize(black_box(&pair[turn])).unwrap()
        })
    });
    group.bench_function("branch", |b| b.iter(|| continuation(&shooting, black_box(&start), Start::Increasing, &along).unwrap()));
    group.finish();
}

fn slip(c: &mut Criterion) {
    let hop = Hopper { m: 1.0, g: 1.0, k: 40.0, l0: 1.0, w: 5f64.sqrt(), eps: 1e-12 };
    let value = |x: &SVector<f64, 6>| -x[3];
    let gradient = |_x: &SVector<f64, 6>| SVector::<f64, 6>::from_fn(|i, _| if i == 3 { -1.0 } else { 0.0 });
    let phases = [Phase { mode: Hopper::STANCE, guard: 0 }, Phase { mode: Hopper::FLIGHT, guard: 0 }];
    let ode = Options::default().rtol(1e-12).atol(1e-13);
    let shooting = MultipleShooting::new(&hop, &phases, Anchor { value: &value, gradient: &gradient }, &ode).unwrap();
    let half = std::f64::consts::PI / 40f64.sqrt();
    let mut u0 = DVector::zeros(shooting.unknowns());
    u0[shooting.time_index(3)] = half;
    u0[shooting.state_index(3, 1)] = 1.0;
    u0[shooting.state_index(2, 1)] = 1.0;
    u0[shooting.time_index(1)] = half;
    u0[shooting.state_index(1, 1)] = 0.95;
    u0[shooting.energy_index()] = 1.0;
    let t2 = shooting.time_index(2);
    let [a, b] = branch_directions(&shooting, &u0, 1e-6).unwrap();
    let hopping = if a[t2].abs() > b[t2].abs() { a } else { b };
    let along = if hopping[t2] > 0.0 { hopping } else { -hopping };
    let opts = ContinuationOptions::default().initial_step(5e-2).max_step(0.5).target(2.0).progress(false);
    let branch = continuation(&shooting, &u0, Start::Along(along.clone()), &opts).unwrap();
    let iterations: usize = branch.points.iter().map(|p| p.iterations).sum();
    println!(
        "SLIP hopping in place H̄ = 1 → 2: {} points ({} special), {} rejected steps, {:.2} Newton iterations per point, {:?}",
        branch.points.len(),
        branch.points.iter().filter(|p| p.special.is_some()).count(),
        branch.rejected,
        iterations as f64 / branch.points.len() as f64,
        branch.stop
    );
    let mid = branch.points[branch.points.len() / 2].u.clone();
    let mut group = c.benchmark_group("slip");
    group.sample_size(10);
    // Two points in turn: the problem keeps its last evaluation, so one point would be a cache hit.
    let pair = [mid, branch.points[branch.points.len() / 2 + 1].u.clone()];
    let mut turn = 0;
    group.bench_function("linearize", |b| {
        b.iter(|| {
            turn ^= 1;
            shooting.linearize(black_box(&pair[turn])).unwrap()
        })
    });
    group.bench_function("branch", |b| {
        b.iter(|| continuation(&shooting, black_box(&u0), Start::Along(along.clone()), &opts).unwrap())
    });
    group.finish();
}

criterion_group!(benches, rod, slip);
criterion_main!(benches);
