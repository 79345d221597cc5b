//! A seven-joint arm with a hand and two fingers, read from its URDF file at compile time
//! (`tests/robots/arm7.urdf`), tracking a joint-space path under computed-torque control.
//!
//! The controller is the textbook one, built from the generated model: u = M(q) (q̈_r + K_d ė +
//! K_p e) − f(q, q̇) with e = q_r − q, so that the closed loop is ë + K_d ė + K_p e = 0 in every
//! joint. With K_p = ω², K_d = 2ω (critical damping) and the arm started off its path by e₀ at
//! rest relative to it, every joint's error is e₀ (1 + ω t) e^(−ωt): the run checks it against that
//! closed form (a wrong M, f, input map or URDF reading would break it), and checks that the hand
//! ends where the path's end puts it.
//!
//! Writes `out/robot.svg`: the hand's path seen from the side (the reference's and the arm's), the
//! arm drawn every 0.25 s, and the tracking error against its closed form.
//!
//! Run with `cargo run --release --example robot`.

use plotters::prelude::*;
use routh::nalgebra::Vector3;
use routh::prelude::*;

/// The arm from its description file, a torque on every joint (the inputs `u_j1`, …, `u_f2` the
/// reader declares, `inputs = u`), the hand's tool point out.
#[derive(Mechanics)]
#[mechanics(
    urdf(path = "../tests/robots/arm7.urdf", inputs = u),
    output(
        tool = hand_origin + hand * [0, 0, 0.1],
        elbow = link4_origin,
        wrist = link6_origin,
    ),
    gravity = [0, 0, -g],
)]
pub struct Arm7 {
    pub g: f64,
}

const N: usize = 9;
/// The path's duration [s].
const T: f64 = 2.0;
/// The closed loop's natural frequency [rad/s].
const OMEGA: f64 = 8.0;

/// The reference path: from `A` to `B` with zero velocity at both ends, then held at `B`.
const A: [f64; N] = [0.0, -0.4, 0.0, -2.2, 0.0, 1.8, 0.8, 0.01, 0.01];
const B: [f64; N] = [1.2, 0.3, -0.5, -1.4, 0.6, 1.5, -0.4, 0.035, 0.035];

/// q_r, q̇_r and q̈_r at t.
fn reference(t: f64) -> ([f64; N], [f64; N], [f64; N]) {
    let (s, ds, dds) = if t < T {
        let w = std::f64::consts::PI / T;
        (0.5 * (1.0 - (w * t).cos()), 0.5 * w * (w * t).sin(), 0.5 * w * w * (w * t).cos())
    } else {
        (1.0, 0.0, 0.0)
    };
    let mix = |k: usize, f: f64| (B[k] - A[k]) * f;
    (std::array::from_fn(|k| A[k] + mix(k, s)), std::array::from_fn(|k| mix(k, ds)), std::array::from_fn(|k| mix(k, dds)))
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let arm = Arm7 { g: 9.81 };
    println!("{} joints read from tests/robots/arm7.urdf: {:?}", N, Arm7::COORDINATES);
    println!("accelerations by the `{}` path", Arm7Driven::DYNAMICS);
    // The model at zero input: M(q) and f(q, q̇) of M q̈ = f + u.
    let free = arm.driven([0.0; N]);
    let (kp, kd) = (OMEGA * OMEGA, 2.0 * OMEGA);
    let control = |t: f64, x: &State<18>| -> Vector<N> {
        let (qr, vr, ar) = reference(t);
        let (q, v) = (x.fixed_rows::<N>(0), x.fixed_rows::<N>(N));
        let a = Vector::<N>::from_fn(|k, _| ar[k] + kd * (vr[k] - v[k]) + kp * (qr[k] - q[k]));
        free.mass_matrix(t, x) * a - free.forcing(t, x)
    };
    // Started off the path by e₀ (and moving with it).
    let e0: [f64; N] = [0.15, -0.1, 0.1, 0.2, -0.15, 0.1, 0.2, 0.004, -0.004];
    let q0: [f64; N] = std::array::from_fn(|k| A[k] - e0[k]);
    let x0 = arm.state(q0, [0.0; N]);
    let span = 0.0..3.0;
    let options = Options::default().rtol(1e-10).atol(1e-10).output(Output::Interval(0.01));
    let run = arm.run(x0).span(span.clone()).options(&options).inputs(control).go()?;
    println!("t ∈ [0, {}]: {} steps, {} field evaluations", span.end, run.stats.steps, run.stats.evaluations);

    // Every joint's error against e₀ (1 + ωt) e^(−ωt).
    let mut worst = 0.0f64;
    let mut errors = Vec::new();
    for (t, x) in run.iter() {
        let (qr, _, _) = reference(t);
        let closed = (1.0 + OMEGA * t) * (-OMEGA * t).exp();
        let gap = (0..N).map(|k| (qr[k] - x[k] - e0[k] * closed).abs()).fold(0.0, f64::max);
        worst = worst.max(gap);
        let norm = (0..N).map(|k| (qr[k] - x[k]).powi(2)).sum::<f64>().sqrt();
        let e0_norm = e0.iter().map(|e| e * e).sum::<f64>().sqrt();
        errors.push((t, norm, e0_norm * closed));
    }
    println!("tracking error against the closed loop's e₀ (1 + ωt) e^(−ωt): largest gap {worst:.1e} rad");
    assert!(worst < 1e-6, "the closed loop is not the linear one: {worst:.1e}");

    // The hand's tool point along the run and along the reference.
    let tool = |t: f64, x: &State<18>| {
        let o = free.outputs(t, x);
        Vector3::new(o[0], o[1], o[2])
    };
    let hands: Vec<Vector3<f64>> = run.iter().map(|(t, x)| tool(t, x)).collect();
    let wanted: Vec<Vector3<f64>> = run
        .iter()
        .map(|(t, _)| {
            let (qr, vr, _) = reference(t);
            tool(t, &arm.state(qr, vr))
        })
        .collect();
    let (end, goal) = (hands.last().copied().unwrap_or_default(), wanted.last().copied().unwrap_or_default());
    println!(
        "the tool ends {:.1e} m from where the path's end puts it ({:.3}, {:.3}, {:.3}) m",
        (end - goal).norm(),
        goal.x,
        goal.y,
        goal.z
    );
    assert!((end - goal).norm() < 1e-3);

    std::fs::create_dir_all("out")?;
    let path = "out/robot.svg";
    let root = SVGBackend::new(path, (1100, 500)).into_drawing_area();
    root.fill(&WHITE)?;
    let panels = root.split_evenly((1, 2));
    let mut side = ChartBuilder::on(&panels[0])
        .caption("the tool's path seen from the side (x, z)", ("sans-serif", 18))
        .margin(10)
        .x_label_area_size(35)
        .y_label_area_size(45)
        .build_cartesian_2d(-0.4..1.0, -0.1..1.3)?;
    side.configure_mesh().x_desc("x [m]").y_desc("z [m]").draw()?;
    let samples = run.iter().len();
    for (i, (t, x)) in run.iter().enumerate().filter(|(_, (t, _))| ((t / 0.25).round() * 0.25 - t).abs() < 1e-9) {
        let o = free.outputs(t, x);
        let color = HSLColor(0.7 * i as f64 / samples as f64, 0.7, 0.55);
        let skeleton = [(0.0, 0.0), (0.0, 0.333), (o[3], o[5]), (o[6], o[8]), (o[0], o[2])];
        side.draw_series(LineSeries::new(skeleton, color.stroke_width(2)))?;
    }
    side.draw_series(LineSeries::new(wanted.iter().map(|p| (p.x, p.z)), RED.stroke_width(1)))?.label("reference");
    side.draw_series(LineSeries::new(hands.iter().map(|p| (p.x, p.z)), BLACK.stroke_width(1)))?.label("the arm");
    let top = errors.iter().map(|e| e.1).fold(0.0, f64::max) * 1.1;
    let mut chart = ChartBuilder::on(&panels[1])
        .caption("tracking error |q_r − q| and e₀ (1 + ωt) e^(−ωt)", ("sans-serif", 18))
        .margin(10)
        .x_label_area_size(35)
        .y_label_area_size(55)
        .build_cartesian_2d(0.0..span.end, 0.0..top)?;
    chart.configure_mesh().x_desc("t [s]").y_desc("[rad]").draw()?;
    chart.draw_series(LineSeries::new(errors.iter().map(|e| (e.0, e.2)), RED.stroke_width(3)))?;
    chart.draw_series(LineSeries::new(errors.iter().map(|e| (e.0, e.1)), BLACK.stroke_width(1)))?;
    root.present()?;
    println!("wrote {path}");
    Ok(())
}
