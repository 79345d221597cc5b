//! Continuation of periodic orbits by time-based multiple shooting (*Hybrid periodic orbits*
//! §4.3): the bouncing rod (r = 0.01) along its symmetric family, with one evaluation of the
//! residual and its Jacobian (31) in the same process as the unit of cost.
//!
//! - `rod/linearize`: one evaluation of r(u) and dr(u) (three phases with their sensitivities);
//! - `rod/branch`: the symmetric branch from the orbit with impact angle 0.9 (H̄ ≈ 0.53) through
//!   TP1, TP2, the period doubling and the simple bifurcation to H̄ = 0.6 (adaptive steps, every
//!   special point located); prints points, rejected steps and Newton iterations per point.

use criterion::{Criterion, criterion_group, criterion_main};
use routh::nalgebra::{SVector, Vector4};
use routh::prelude::*;
use routh::runtime::continuation::{ContinuationOptions, Problem, Start, continuation, correct_at_parameter};
use routh::runtime::periodic::{Anchor, MultipleShooting, Phase};
use std::hint::black_box;

#[derive(Mechanics)]
#[mechanics(
    coordinates(y, alpha),
    lagrangian = m / 2 * (dot(y).powi(2) + r.powi(2) * dot(alpha).powi(2)) - m * g * y,
    impact(name = left, guard = y - l / 2 * alpha.sin(), law = restitution(e)),
    impact(name = right, guard = y + l / 2 * alpha.sin(), law = restitution(e)),
)]
struct Rod {
    m: f64,
    g: f64,
    l: f64,
    r: f64,
    e: f64,
}

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
    group.bench_function("linearize", |b| b.iter(|| shooting.linearize(black_box(&start)).unwrap()));
    group.bench_function("branch", |b| b.iter(|| continuation(&shooting, black_box(&start), Start::Increasing, &along).unwrap()));
    group.finish();
}

criterion_group!(benches, rod);
criterion_main!(benches);
