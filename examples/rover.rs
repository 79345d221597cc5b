//! A two-wheeled rover on a rotating disk (*Affine constraints*, §4; reference run R4 of
//! `docs/references.md`): a differential-drive rover whose wheels roll without slipping on an
//! infinite disk turning at the rate Σ — three affine nonholonomic constraints, written as the
//! paper's one-forms with their `dt` parts.
//!
//! The example checks the full constrained model against the reference table, reports the
//! Frobenius test the derive did at compile time, and shows that the energy H is not conserved
//! (the moving constraints do work on the rover) while the moving energy E_J = H − Σ𝐌₃ — found by
//! the derive because the constraints' affine part is Σ times the rotation generator — is. It
//! writes `out/rover_paths.svg` (the path in the inertial frame and in the disk's frame) and
//! `out/rover_energy.svg` (H, Σ𝐌₃ and E_J over time).
//!
//! Run with `cargo run --release --example rover`.

use plotters::prelude::*;
use routh::nalgebra::SVector;
use routh::prelude::*;

/// q = (x, y, θ, ϑ₁, ϑ₂): axle midpoint C, heading, wheel angles; the centre of mass lies l₀ ahead
/// of C, J_r is the inertia about C and J_w a wheel's about its axle; the wheels are b from C.
#[derive(Mechanics)]
#[mechanics(
    coordinates(x, y, th, v1, v2),
    lagrangian = mass / 2 * (dot(x).powi(2) + dot(y).powi(2))
        + mass * l0 * dot(th) * (dot(y) * th.cos() - dot(x) * th.sin())
        + jr / 2 * dot(th).powi(2) + jw / 2 * (dot(v1).powi(2) + dot(v2).powi(2)),
    constraint(
        lateral = dy * th.cos() - dx * th.sin() - sigma * (x * th.cos() + y * th.sin()) * dt,
        wheel1 = dx * th.cos() + dy * th.sin() - b * dth - rw * dv1 - sigma * (x * th.sin() - y * th.cos() - b) * dt,
        wheel2 = dx * th.cos() + dy * th.sin() + b * dth - rw * dv2 - sigma * (x * th.sin() - y * th.cos() + b) * dt,
    ),
    symmetry(rotation = generator(x = -y, y = x, th = 1)),
)]
struct Rover {
    mass: f64,
    l0: f64,
    jr: f64,
    jw: f64,
    rw: f64,
    b: f64,
    sigma: f64,
}

const T_END: f64 = 20.0;

/// q̇ = C_q ω + Y: the wheel rates ω and the disk's co-rotation Y = Σ(−y, x, 1, 0, 0).
fn start(r: &Rover, q: [f64; 5], w: [f64; 2]) -> SVector<f64, 10> {
    let (x, y, th) = (q[0], q[1], q[2]);
    let v = r.rw * (w[0] + w[1]) / 2.0;
    r.state(q, [v * th.cos() - r.sigma * y, v * th.sin() + r.sigma * x, r.rw * (w[1] - w[0]) / (2.0 * r.b) + r.sigma, w[0], w[1]])
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let r = Rover { mass: 10.0, l0: 0.1, jr: 1.0, jw: 0.01, rw: 0.1, b: 0.25, sigma: 0.5 };
    let x0 = start(&r, [1.0, 0.5, 0.3, 0.0, 0.0], [2.0, 1.0]);
    println!(
        "rover on a disk turning at Σ = {}: M = {}, l₀ = {}, J_r = {}, J_w = {}, r_w = {}, b = {}",
        r.sigma, r.mass, r.l0, r.jr, r.jw, r.rw, r.b
    );
    println!(
        "Frobenius test at compile time: {:?}, the set integrable: {:?}",
        Rover::CONSTRAINT_KINDS,
        Rover::CONSTRAINTS_INTEGRABLE
    );

    let options = Options::default().rtol(1e-12).atol(1e-12);
    let table = [
        [1.0, 0.551118833, 3.35587940, 2.11147357, 4.802604547, 3.251190429, 0.852322913, 1.086656916],
        [5.0, 0.635844545, 50.51129874, 39.69052147, 18.915241901, 16.413512285, -0.811544718, 3.929378036],
        [20.0, 1.208241264, 727.58872863, 682.12993495, 73.538310807, 71.259919265, -14.018716444, 7.490372131],
    ];
    let check = r.simulate(x0, 0.0..T_END, &options.clone().output(Output::Times(vec![1.0, 5.0, 20.0])))?;
    println!("reference table (θ, ϑ₁, ϑ₂, ω₁, ω₂, x, y), largest relative error per row:");
    let mut worst_table: f64 = 0.0;
    for (row, x) in table.iter().zip(&check.states) {
        let got = [x[2], x[3], x[4], x[8], x[9], x[0], x[1]];
        let err = got.iter().zip(&row[1..]).map(|(g, w)| (g - w).abs() / w.abs().max(1.0)).fold(0.0, f64::max);
        worst_table = worst_table.max(err);
        println!("  t = {:>4}: {err:.1e}", row[0]);
    }

    let sol = r.simulate(x0, 0.0..T_END, &options.output(Output::Interval(0.02)))?;
    let ej0 = r.rotation_moving_energy(0.0, &x0);
    let (mut ej_drift, mut h_max): (f64, f64) = (0.0, 0.0);
    for (&t, x) in sol.times.iter().zip(&sol.states) {
        ej_drift = ej_drift.max((r.rotation_moving_energy(t, x) - ej0).abs());
        h_max = h_max.max(r.energy(t, x));
    }
    let (_, x_end) = sol.last().ok_or("empty trajectory")?;
    let report = sol.constraints.ok_or("no constraint report")?;
    println!(
        "H: {:.6} → {:.6} (×{:.2}); Σ𝐌₃: {:.6} → {:.6}; E_J = H − Σ𝐌₃ = {ej0:.10}, drift {ej_drift:.1e}",
        r.energy(0.0, &x0),
        r.energy(T_END, x_end),
        r.energy(T_END, x_end) / r.energy(0.0, &x0),
        r.sigma * r.rotation_momentum(0.0, &x0),
        r.sigma * r.rotation_momentum(T_END, x_end)
    );
    println!(
        "constraint residual ≤ {:.1e} (one-step drift before projection ≤ {:.1e}, {} projections)",
        report.worst.1, report.drift.1, report.projections
    );
    if worst_table > 1e-8 || ej_drift > 1e-10 || report.worst.1 > 1e-10 {
        return Err(format!("check failed: table {worst_table:e}, E_J drift {ej_drift:e}, residual {:e}", report.worst.1).into());
    }

    std::fs::create_dir_all("out")?;
    plot_paths(&r, &sol.times, &sol.states, "out/rover_paths.svg")?;
    plot_energy(&r, &sol.times, &sol.states, h_max, "out/rover_energy.svg")?;
    println!("wrote out/rover_paths.svg and out/rover_energy.svg");
    Ok(())
}

/// The rover's axle midpoint in the inertial frame and in the disk's frame (rotated back by Σt).
fn plot_paths(r: &Rover, times: &[f64], states: &[SVector<f64, 10>], path: &str) -> Result<(), Box<dyn std::error::Error>> {
    let root = SVGBackend::new(path, (1300, 640)).into_drawing_area();
    root.fill(&WHITE)?;
    let root =
        root.titled(&format!("Rover on a disk turning at Σ = {} rad/s, t ∈ [0, {T_END}] s", r.sigma), ("sans-serif", 22))?;
    let (left, right) = root.split_horizontally(650);
    let inertial: Vec<(f64, f64)> = states.iter().map(|x| (x[0], x[1])).collect();
    let disk: Vec<(f64, f64)> = times
        .iter()
        .zip(states)
        .map(|(&t, x)| {
            let (c, s) = ((r.sigma * t).cos(), (r.sigma * t).sin());
            (c * x[0] + s * x[1], -s * x[0] + c * x[1])
        })
        .collect();
    for (area, points, title) in [(left, &inertial, "inertial frame"), (right, &disk, "disk frame (co-rotating)")] {
        let area = area.titled(title, ("sans-serif", 18))?;
        let extent = points.iter().fold(1.0f64, |m, p| m.max(p.0.abs()).max(p.1.abs())) * 1.1;
        let mut chart = ChartBuilder::on(&area)
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(50)
            .build_cartesian_2d(-extent..extent, -extent..extent)?;
        chart
            .configure_mesh()
            .x_desc("x [m]")
            .y_desc("y [m]")
            .axis_desc_style(("sans-serif", 15))
            .label_style(("sans-serif", 12))
            .light_line_style(WHITE.mix(0.0))
            .draw()?;
        let style = ShapeStyle { color: BLUE.to_rgba(), filled: false, stroke_width: 2 };
        chart
            .draw_series(LineSeries::new(points.iter().copied(), style))?
            .label("axle midpoint C")
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 24, y)], style));
        chart
            .draw_series(std::iter::once(Circle::new(points[0], 5, GREEN.filled())))?
            .label("start")
            .legend(|(x, y)| Circle::new((x + 12, y), 5, GREEN.filled()));
        chart
            .draw_series(std::iter::once(Cross::new((0.0, 0.0), 6, BLACK)))?
            .label("disk centre")
            .legend(|(x, y)| Cross::new((x + 12, y), 6, BLACK));
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperLeft)
            .label_font(("sans-serif", 13))
            .background_style(WHITE.mix(0.9))
            .border_style(BLACK)
            .draw()?;
    }
    root.present()?;
    Ok(())
}

/// H, Σ𝐌₃ and E_J = H − Σ𝐌₃ over time.
fn plot_energy(
    r: &Rover,
    times: &[f64],
    states: &[SVector<f64, 10>],
    h_max: f64,
    path: &str,
) -> Result<(), Box<dyn std::error::Error>> {
    let root = SVGBackend::new(path, (1000, 560)).into_drawing_area();
    root.fill(&WHITE)?;
    let series = |f: &dyn Fn(f64, &SVector<f64, 10>) -> f64| -> Vec<(f64, f64)> {
        times.iter().zip(states).map(|(&t, x)| (t, f(t, x))).collect()
    };
    let h = series(&|t, x| r.energy(t, x));
    let sm = series(&|t, x| r.sigma * r.rotation_momentum(t, x));
    let ej = series(&|t, x| r.rotation_moving_energy(t, x));
    let top = h_max.max(sm.iter().fold(0.0, |m, p| m.max(p.1))) * 1.05;
    let mut chart = ChartBuilder::on(&root)
        .caption("Energy H grows, the moving energy E_J = H − Σ𝐌₃ is conserved", ("sans-serif", 20))
        .margin(14)
        .x_label_area_size(45)
        .y_label_area_size(55)
        .build_cartesian_2d(0.0..T_END, -5.0..top)?;
    chart
        .configure_mesh()
        .x_desc("t [s]")
        .y_desc("[J]")
        .axis_desc_style(("sans-serif", 16))
        .label_style(("sans-serif", 13))
        .light_line_style(WHITE.mix(0.0))
        .draw()?;
    let styles = [
        ShapeStyle { color: RGBColor(200, 40, 40).to_rgba(), filled: false, stroke_width: 2 },
        ShapeStyle { color: BLUE.to_rgba(), filled: false, stroke_width: 2 },
        ShapeStyle { color: BLACK.to_rgba(), filled: false, stroke_width: 3 },
    ];
    for ((points, label), style) in [(h, "H (energy)"), (sm, "Σ𝐌₃"), (ej, "E_J = H − Σ𝐌₃")].into_iter().zip(styles)
    {
        chart
            .draw_series(LineSeries::new(points, style))?
            .label(label)
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 24, y)], style));
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .label_font(("sans-serif", 14))
        .background_style(WHITE.mix(0.9))
        .border_style(BLACK)
        .draw()?;
    root.present()?;
    Ok(())
}
