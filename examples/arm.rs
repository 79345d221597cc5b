//! A seven-joint robot arm in space — joints about z, y, z, y, z, y and z in relative angles, each
//! link a rigid body written as a `body` in its `frame` — swinging under gravity from a bent pose at
//! rest. The derive reads the arm's kinematic tree off its bodies and generates the spatial
//! articulated-body recursion (see "Recursive dynamics" in docs/guide/generated.md); the same arm
//! with `dynamics = dense` forms and factors M.
//!
//! Prints which path each model has, the gap between the two models' q̈ along the run, the energy
//! drift, and how far the hand travels; writes `out/arm.svg`: the hand's path seen from above and
//! from the side, with the arm drawn every 0.25 s, and the energy error along the run.
//!
//! Run with `cargo run --release --example arm`.

use plotters::prelude::*;
use routh::nalgebra::{Matrix3, SVector, Vector3};
use routh::prelude::*;

/// The arm, its dynamics asked for by `$dynamics`: link k turns about the axis of its joint at
/// the end of link k − 1; masses, lengths and inertias of a 7-joint collaborative arm, rounded.
macro_rules! arm {
    ($name:ident, $dynamics:ident) => {
        #[derive(Mechanics)]
        #[mechanics(
            coordinates(q1, q2, q3, q4, q5, q6, q7),
            frame(
                b1 = rot_z(q1), b2 = b1 * rot_y(q2), b3 = b2 * rot_z(q3), b4 = b3 * rot_y(q4),
                b5 = b4 * rot_z(q5), b6 = b5 * rot_y(q6), b7 = b6 * rot_z(q7),
            ),
            point(
                j2 = b1 * [0, 0, 0.34], j4 = j2 + b3 * [0, 0, 0.4], j6 = j4 + b5 * [0, 0, 0.4],
            ),
            body(name = l1, mass = 4.0, centre = b1 * [0, -0.03, 0.17], frame = b1, inertia = diag(0.12, 0.12, 0.02)),
            body(name = l2, mass = 4.0, centre = j2 + b2 * [0, 0.04, 0.07], frame = b2, inertia = diag(0.05, 0.03, 0.02)),
            body(name = l3, mass = 3.0, centre = j2 + b3 * [0, 0.03, 0.2], frame = b3, inertia = diag(0.08, 0.08, 0.01)),
            body(name = l4, mass = 2.7, centre = j4 + b4 * [0, -0.03, 0.07], frame = b4, inertia = diag(0.03, 0.02, 0.01)),
            body(name = l5, mass = 1.7, centre = j4 + b5 * [0, 0.02, 0.2], frame = b5, inertia = diag(0.03, 0.03, 0.005)),
            body(name = l6, mass = 1.8, centre = j6 + b6 * [0, 0.02, 0.0], frame = b6, inertia = diag(0.005, 0.004, 0.004)),
            body(name = l7, mass = 0.6, centre = j6 + b7 * [0, 0, 0.12], frame = b7, inertia = diag(0.002, 0.002, 0.001)),
            gravity = [0, 0, -g],
            output(hand = j6 + b7 * [0, 0, 0.13]),
            dynamics = $dynamics,
        )]
        pub struct $name {
            pub g: f64,
        }
    };
}

arm!(Arm, recursive);
arm!(ArmDense, dense);

/// The joints' positions (base, shoulder, elbow, wrist, hand) at the coordinates `q`, written out
/// here independently of the model: each link's frame is its parent's turned about its axis.
fn skeleton(q: &[f64]) -> Vec<Vector3<f64>> {
    let rot = |axis: usize, a: f64| {
        let (s, c) = a.sin_cos();
        match axis {
            2 => Matrix3::new(c, -s, 0.0, s, c, 0.0, 0.0, 0.0, 1.0),
            _ => Matrix3::new(c, 0.0, s, 0.0, 1.0, 0.0, -s, 0.0, c),
        }
    };
    let mut frame = Matrix3::identity();
    let mut frames = Vec::new();
    for (k, &a) in q.iter().enumerate() {
        frame *= rot(if k % 2 == 0 { 2 } else { 1 }, a);
        frames.push(frame);
    }
    let up = |f: &Matrix3<f64>, h: f64| f * Vector3::new(0.0, 0.0, h);
    let j2 = up(&frames[0], 0.34);
    let j4 = j2 + up(&frames[2], 0.4);
    let j6 = j4 + up(&frames[4], 0.4);
    let hand = j6 + up(&frames[6], 0.13);
    vec![Vector3::zeros(), j2, j4, j6, hand]
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let (arm, dense) = (Arm { g: 9.81 }, ArmDense { g: 9.81 });
    println!("7-joint arm: accelerations by the `{}` path (ArmDense: `{}`)", Arm::DYNAMICS, ArmDense::DYNAMICS);

    // Bent, at rest.
    let q0 = [0.3, 0.9, -0.4, -1.2, 0.6, 0.8, 0.0];
    let x0 = arm.state(q0, [0.0; 7]);
    let span = 0.0..3.0;
    let options = Options::default().rtol(1e-10).atol(1e-10).output(Output::Interval(0.01));
    let run = arm.run(x0).span(span.clone()).options(&options).go()?;
    println!(
        "t ∈ [0, {}], rtol 1e-10: {} steps, {} rejected, {} field evaluations",
        span.end, run.stats.steps, run.stats.rejected, run.stats.evaluations
    );

    // The recursion against the dense model (M formed and factored) along the run.
    let mut gap = 0.0f64;
    for (t, x) in run.iter() {
        let (a, b) = (arm.accelerations(t, x)?, dense.accelerations(t, x)?);
        gap = gap.max((a - b).amax() / (1.0 + b.amax()));
    }
    println!("spatial recursion against the dense M⁻¹f along the run: largest relative gap {gap:.1e}");
    let e0 = arm.energy(0.0, &x0);
    let errors: Vec<(f64, f64)> = run.iter().map(|(t, x)| (t, arm.energy(t, x) - e0)).collect();
    let drift = errors.iter().map(|e| e.1.abs()).fold(0.0, f64::max);
    println!("energy E0 = {e0:.3} J, largest drift {drift:.1e} J");

    // The hand: the model's output against the skeleton written out here.
    let hands: Vec<Vector3<f64>> = run
        .iter()
        .map(|(t, x)| {
            let o = arm.outputs(t, x);
            Vector3::new(o[0], o[1], o[2])
        })
        .collect();
    let worst = run.iter().zip(&hands).map(|((_, x), h)| (skeleton(&x.as_slice()[..7])[4] - h).norm()).fold(0.0, f64::max);
    println!("the hand's position: the model's output against the skeleton written out here, largest gap {worst:.1e} m");
    let travel: f64 = hands.windows(2).map(|w| (w[1] - w[0]).norm()).sum();
    println!("the hand travels {travel:.2} m in {} s", span.end);

    std::fs::create_dir_all("out")?;
    let path = "out/arm.svg";
    let root = SVGBackend::new(path, (1500, 500)).into_drawing_area();
    root.fill(&WHITE)?;
    let panels = root.split_evenly((1, 3));
    let frames: Vec<&SVector<f64, 14>> =
        run.iter().filter(|(t, _)| ((t / 0.25).round() * 0.25 - t).abs() < 1e-9).map(|(_, x)| x).collect();
    for (panel, (title, (a, b), (xa, xb))) in
        panels.iter().zip([("seen from above", (0, 1), ("x [m]", "y [m]")), ("seen from the side", (0, 2), ("x [m]", "z [m]"))])
    {
        let mut chart = ChartBuilder::on(panel)
            .caption(format!("the hand's path, {title}"), ("sans-serif", 18))
            .margin(10)
            .x_label_area_size(35)
            .y_label_area_size(45)
            .build_cartesian_2d(-1.2..1.2, -1.2..1.2)?;
        chart.configure_mesh().x_desc(xa).y_desc(xb).draw()?;
        for (i, x) in frames.iter().enumerate() {
            let color = HSLColor(0.7 * i as f64 / frames.len().max(1) as f64, 0.7, 0.55);
            let joints = skeleton(&x.as_slice()[..7]);
            chart.draw_series(LineSeries::new(joints.iter().map(|p| (p[a], p[b])), color.stroke_width(2)))?;
        }
        chart.draw_series(LineSeries::new(hands.iter().map(|p| (p[a], p[b])), BLACK.stroke_width(1)))?;
    }
    let scale = 1.2 * drift.max(1e-16);
    let mut energy = ChartBuilder::on(&panels[2])
        .caption("energy error E − E0", ("sans-serif", 18))
        .margin(10)
        .x_label_area_size(35)
        .y_label_area_size(70)
        .build_cartesian_2d(0.0..span.end, -scale..scale)?;
    energy.configure_mesh().x_desc("t [s]").y_desc("[J]").draw()?;
    energy.draw_series(LineSeries::new(errors, &BLUE))?;
    root.present()?;
    println!("wrote {path}");
    Ok(())
}
