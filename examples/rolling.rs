//! Two nonholonomic classics written with contact items: Chaplygin's sleigh (`no_slip`: a knife
//! edge behind the mass centre) and Chaplygin's ball (`rolling(sphere = a)`: a ball of any
//! inertia, its orientation a quaternion state). Prints what it checks — the sleigh against its
//! closed form u = V tanh(λt + τ₀), ω = ω₀ cosh τ₀ sech(λt + τ₀), the ball's energy and its angular
//! momentum about the contact point, the rolling constraints — and writes `out/rolling.svg`: the
//! sleigh's path straightening out and the ball's contact path.
//!
//! ```sh
//! cargo run --release --example rolling
//! ```

#[path = "models/chaplygin.rs"]
mod chaplygin;

use chaplygin::{ChaplyginBall, ChaplyginSleigh};
use plotters::prelude::*;
use routh::nalgebra::{Matrix3, Quaternion, UnitQuaternion, Vector3};
use routh::prelude::*;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let options = Options::default().rtol(1e-12).atol(1e-13);
    // The sleigh, started turning: it straightens out and runs on at V.
    let sleigh = ChaplyginSleigh { m: 2.0, i: 0.3, a: 0.4 };
    let th0: f64 = 0.3;
    let x0 = sleigh.state_with_known_velocities(
        0.0,
        [0.0, 0.0, th0],
        [0.5 * th0.cos(), 0.5 * th0.sin(), 2.0],
        [false, false, true],
    )?;
    let k = sleigh.i + sleigh.m * sleigh.a * sleigh.a;
    let forward = |x: &SVector<f64, 6>| x[3] * x[2].cos() + x[4] * x[2].sin();
    let (u0, w0) = (forward(&x0), x0[5]);
    let v = (u0 * u0 + k * w0 * w0 / sleigh.m).sqrt();
    let (lambda, tau0) = (sleigh.a * sleigh.m * v / k, (u0 / v).atanh());
    let path = sleigh.run(x0).span(0.0..12.0).options(options.clone().output(Output::Interval(0.02))).go()?;
    let mut sleigh_error = 0.0f64;
    for (t, x) in path.iter() {
        let tau = lambda * t + tau0;
        sleigh_error = sleigh_error.max((forward(x) - v * tau.tanh()).abs()).max((x[5] - w0 * tau0.cosh() / tau.cosh()).abs());
    }
    println!("Chaplygin's sleigh (m = 2, I = 0.3, a = 0.4) from u = {u0:.3}, ω = {w0:.3}: terminal speed V = {v:.6}");
    println!("  u and ω against V tanh(λt + τ₀), ω₀ cosh τ₀ sech(λt + τ₀) over 12 s: {sleigh_error:.1e}");

    // The ball, rolling and spinning: energy and the contact-point angular momentum are kept.
    let ball = ChaplyginBall { m: 1.0, a: 0.5, i1: 0.06, i2: 0.09, i3: 0.11, g: 9.81 };
    let inertia = Matrix3::from_diagonal(&Vector3::new(ball.i1, ball.i2, ball.i3));
    let q0 = UnitQuaternion::from_euler_angles(0.4, -0.6, 1.0);
    let w = Vector3::new(3.0, -1.0, 4.0);
    let spin = q0 * w;
    let b0 = ball.state([0.0, 0.0, q0.w, q0.i, q0.j, q0.k], [ball.a * spin.y, -ball.a * spin.x, w.x, w.y, w.z]);
    let contact_momentum = |x: &SVector<f64, 11>| {
        let q = UnitQuaternion::from_quaternion(Quaternion::new(x[2], x[3], x[4], x[5]));
        let w = Vector3::new(x[8], x[9], x[10]);
        let spin = q * w;
        q * (inertia * w) + ball.m * ball.a * ball.a * Vector3::new(spin.x, spin.y, 0.0)
    };
    let (k0, e0) = (contact_momentum(&b0), ball.energy(0.0, &b0));
    let roll = ball.run(b0).span(0.0..20.0).options(options.output(Output::Interval(0.01))).go()?;
    let (mut dk, mut de) = (0.0f64, 0.0f64);
    for (t, x) in roll.iter() {
        dk = dk.max((contact_momentum(x) - k0).norm() / k0.norm());
        de = de.max((ball.energy(t, x) - e0).abs() / e0);
    }
    let report = roll.constraints.ok_or("a constrained run reports its constraints")?;
    println!(
        "Chaplygin's ball (I = 0.06, 0.09, 0.11), 20 s: |ΔK|/|K| ≤ {dk:.1e}, |ΔE|/E ≤ {de:.1e}, rolling rows ≤ {:.1e}",
        report.worst.1
    );
    if sleigh_error > 1e-9 || dk > 1e-10 || de > 1e-10 || report.worst.1 > 1e-10 {
        return Err("the closed forms or the integrals are not reproduced".into());
    }

    std::fs::create_dir_all("out")?;
    let root = SVGBackend::new("out/rolling.svg", (1100, 480)).into_drawing_area();
    root.fill(&WHITE)?;
    let (left, right) = root.split_horizontally(550);
    let bounds = |points: &[(f64, f64)]| {
        let (mut lo, mut hi) = ((f64::MAX, f64::MAX), (f64::MIN, f64::MIN));
        for &(x, y) in points {
            lo = (lo.0.min(x), lo.1.min(y));
            hi = (hi.0.max(x), hi.1.max(y));
        }
        let pad = 0.05 * (hi.0 - lo.0).max(hi.1 - lo.1);
        (lo.0 - pad..hi.0 + pad, lo.1 - pad..hi.1 + pad)
    };
    let sleigh_path: Vec<(f64, f64)> = path.iter().map(|(_, x)| (x[0], x[1])).collect();
    let ball_path: Vec<(f64, f64)> = roll.iter().map(|(_, x)| (x[0], x[1])).collect();
    let panels = [
        (&left, "Chaplygin's sleigh: the mass centre's path", sleigh_path, RGBColor(30, 90, 200)),
        (&right, "Chaplygin's ball: the contact point's path", ball_path, RGBColor(200, 60, 40)),
    ];
    for (area, caption, points, colour) in panels {
        let (xs, ys) = bounds(&points);
        let mut chart = ChartBuilder::on(area)
            .caption(caption, ("sans-serif", 17))
            .margin(12)
            .x_label_area_size(36)
            .y_label_area_size(48)
            .build_cartesian_2d(xs, ys)?;
        chart.configure_mesh().x_desc("x (m)").y_desc("y (m)").light_line_style(WHITE.mix(0.0)).draw()?;
        chart.draw_series(LineSeries::new(points, ShapeStyle { color: colour.to_rgba(), filled: false, stroke_width: 2 }))?;
    }
    root.present()?;
    println!("wrote out/rolling.svg");
    Ok(())
}
