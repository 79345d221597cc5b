//! Rough throughput of the integrator on the harmonic oscillator:
//! `cargo run --release -p routh-runtime --example throughput`.

use std::hint::black_box;
use std::time::Instant;

use routh_runtime::nalgebra::Vector2;
use routh_runtime::{Event, FieldError, Options, Output, VectorField};
use routh_runtime::{Flow, Simulate};

struct Oscillator;

impl VectorField<2> for Oscillator {
    #[inline]
    fn field(&self, _t: f64, x: &Vector2<f64>) -> Result<Vector2<f64>, FieldError> {
        Ok(Vector2::new(x[1], -x[0]))
    }
}

fn run(label: &str, opts: &Options, events: &[Event<'_, 2>]) {
    let t_end = 20_000.0;
    let mut best = f64::INFINITY;
    let mut steps = 0;
    for _ in 0..5 {
        let start = Instant::now();
        let traj = Flow(&Oscillator)
            .run(black_box(Vector2::new(1.0, 0.0)))
            .span(0.0..t_end)
            .events(events)
            .options(opts)
            .go()
            .expect("integration failed");
        best = best.min(start.elapsed().as_secs_f64());
        steps = traj.stats.steps;
        black_box(&traj);
    }
    println!(
        "{label:<32} {steps:>8} steps in {:>7.2} ms  → {:>6.2} M steps/s, {:>6.1} ns/step",
        best * 1e3,
        steps as f64 / best / 1e6,
        best / steps as f64 * 1e9
    );
}

fn main() {
    let base = Options::default().rtol(1e-10).atol(1e-12);
    run("steps output", &base, &[]);
    run("no output (empty Times)", &base.clone().output(Output::Times(vec![])), &[]);
    run("Interval(0.1) output", &base.clone().output(Output::Interval(0.1)), &[]);
    let ev = [Event::new("x=0", |_t, x: &Vector2<f64>| x[0])];
    run("steps + 1 event", &base, &ev);
    run("dense kept", &base.clone().dense(true), &[]);
}
