//! A falling chain: 50 point masses on massless links (total mass 1, total length 1), released
//! straight out sideways from its pivot, integrated with the articulated-body recursion the derive
//! generates for kinematic trees (see "Recursive dynamics" in docs/guide/generated.md).
//!
//! Prints which path each model has, the gap between the recursion's q̈ and M⁻¹f of the same model
//! along the run, the energy drift, and the tip's largest speed (the whip); writes
//! `out/chain.svg`: the chain's shape every 0.05 s as it falls and whips, and the tip's speed.
//!
//! Run with `cargo run --release --example chain`.

use plotters::prelude::*;
use routh::nalgebra::{DMatrix, DVector, SVector};
use routh::prelude::*;

#[allow(dead_code)]
mod chains {
    use routh::prelude::*;
    include!("../benches/chain_models.rs");
}

const N: usize = 50;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    use chains::Chain50;
    let (m, l) = (1.0 / N as f64, 1.0 / N as f64);
    let chain = Chain50::uniform(m, l, 9.81);
    println!(
        "50-link chain: accelerations by the `{}` path (Chain50Dense: `{}`)",
        Chain50::DYNAMICS,
        chains::Chain50Dense::DYNAMICS
    );

    // Straight out to the right (angles from the downward vertical), at rest.
    let x0 = chain.state([std::f64::consts::FRAC_PI_2; N], [0.0; N]);
    let span = 0.0..0.8;
    let options = Options::default().rtol(1e-10).atol(1e-10).output(Output::Interval(0.005));
    let run = chain.run(x0).span(span.clone()).options(&options).go()?;
    println!(
        "t ∈ [0, {}], rtol 1e-10: {} steps, {} rejected, {} field evaluations",
        span.end, run.stats.steps, run.stats.rejected, run.stats.evaluations
    );

    // The recursion against M⁻¹f (LU of the generated mass matrix) along the run.
    let mut gap = 0.0f64;
    for (t, x) in run.iter() {
        let a = chain.accelerations(t, x)?;
        let mm = chain.mass_matrix(t, x);
        let f = chain.forcing(t, x);
        let dense = DMatrix::from_column_slice(N, N, mm.as_slice())
            .lu()
            .solve(&DVector::from_column_slice(f.as_slice()))
            .ok_or("singular M")?;
        let scale = 1.0 + dense.amax();
        gap = gap.max(a.iter().zip(dense.iter()).map(|(p, q)| (p - q).abs()).fold(0.0, f64::max) / scale);
    }
    println!("recursion against M⁻¹f along the run: largest relative gap {gap:.1e}");
    let e0 = chain.energy(0.0, &x0);
    let drift = run.iter().map(|(t, x)| (chain.energy(t, x) - e0).abs()).fold(0.0, f64::max);
    println!("energy E0 = {e0:.1e} J (the chain starts level with its pivot), largest drift {drift:.1e} J");

    // Positions of the joints, and the tip's speed.
    let shape = |x: &SVector<f64, { 2 * N }>| -> Vec<(f64, f64)> {
        let mut p = vec![(0.0, 0.0)];
        for k in 0..N {
            let (px, py) = p[k];
            p.push((px + l * x[k].sin(), py - l * x[k].cos()));
        }
        p
    };
    let tip_speed = |x: &SVector<f64, { 2 * N }>| {
        let (vx, vy) = (0..N).fold((0.0, 0.0), |(vx, vy), k| (vx + l * x[k].cos() * x[N + k], vy + l * x[k].sin() * x[N + k]));
        vx.hypot(vy)
    };
    let (t_max, v_max) = run.iter().map(|(t, x)| (t, tip_speed(x))).fold((0.0, 0.0), |b, c| if c.1 > b.1 { c } else { b });
    println!(
        "the tip's largest speed: {v_max:.2} m/s at t = {t_max:.3} s (free fall from rest reaches {:.2} m/s over 1 m)",
        (2.0 * 9.81f64).sqrt()
    );

    std::fs::create_dir_all("out")?;
    let path = "out/chain.svg";
    let root = SVGBackend::new(path, (1100, 520)).into_drawing_area();
    root.fill(&WHITE)?;
    let (left, right) = root.split_horizontally(560);
    let mut shapes = ChartBuilder::on(&left)
        .caption("the chain every 0.05 s", ("sans-serif", 20))
        .margin(10)
        .x_label_area_size(35)
        .y_label_area_size(45)
        .build_cartesian_2d(-1.05..1.05, -1.05..0.1)?;
    shapes.configure_mesh().x_desc("x [m]").y_desc("y [m]").draw()?;
    let frames: Vec<(f64, &SVector<f64, { 2 * N }>)> =
        run.iter().filter(|(t, _)| ((t / 0.05).round() * 0.05 - t).abs() < 1e-9).collect();
    for (i, (_, x)) in frames.iter().enumerate() {
        let color = HSLColor(0.7 * i as f64 / frames.len().max(1) as f64, 0.8, 0.45);
        shapes.draw_series(LineSeries::new(shape(x), color.stroke_width(2)))?;
    }
    let mut speed = ChartBuilder::on(&right)
        .caption("speed of the tip", ("sans-serif", 20))
        .margin(10)
        .x_label_area_size(35)
        .y_label_area_size(45)
        .build_cartesian_2d(0.0..span.end, 0.0..(1.1 * v_max))?;
    speed.configure_mesh().x_desc("t [s]").y_desc("|v| [m/s]").draw()?;
    speed.draw_series(LineSeries::new(run.iter().map(|(t, x)| (t, tip_speed(x))), &BLUE))?;
    root.present()?;
    println!("wrote {path}");
    Ok(())
}
