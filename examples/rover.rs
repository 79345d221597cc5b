//! A two-wheeled rover on a rotating disk (*Affine constraints*, §4; reference run R4 of
//! `docs/references.md`): a differential-drive rover whose wheels roll without slipping on an
//! infinite disk turning at the rate Σ — three affine nonholonomic constraints, written as the
//! paper's one-forms with their `dt` parts (`examples/models/rover.rs`).
//!
//! The example checks the full constrained model against the reference table, reports the
//! Frobenius test the derive did at compile time, and shows that the energy H is not conserved
//! (the moving constraints do work on the rover) while the moving energy E_J = H − Σ𝐌₃ — found by
//! the derive because the constraints' affine part is Σ times the rotation generator — is. Then it
//! runs the **reduced** rover (`reduce(nonholonomic(th, v1, v2), ...)` of the polar model: state
//! (σ, ψ, ω₁, ω₂)), checks reduced + reconstruction against the full run (and the same through the
//! Cartesian model's quotient map, `RoverShape`), and locates the relative
//! equilibria (a), (b), (c) of the digest as fixed points of the reduced system, with their
//! eigenvalues. It writes `out/rover_paths.svg` (the path in the inertial frame and in the disk's
//! frame), `out/rover_energy.svg` (H, Σ𝐌₃ and E_J over time) and `out/rover_reduced.svg` (the
//! reduced phase portrait in (σ cos ψ, σ sin ψ) with the relative equilibria marked).
//!
//! Run with `cargo run --release --example rover`.

use plotters::prelude::*;
use routh::nalgebra::SVector;
use routh::prelude::*;
use routh::runtime::equilibrium::FixedPointOptions;

#[path = "models/rover.rs"]
mod rover;

use rover::{PolarRover, Rover, RoverReduced, cartesian, polar, reduced, start};

const T_END: f64 = 20.0;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let r = rover::nominal(0.5);
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
    let check = r.run(x0).span(0.0..T_END).options(options.clone().output(Output::Times(vec![1.0, 5.0, 20.0]))).go()?;
    println!("reference table (θ, ϑ₁, ϑ₂, ω₁, ω₂, x, y), largest relative error per row:");
    let mut worst_table: f64 = 0.0;
    for (row, x) in table.iter().zip(&check.states) {
        let got = [x[2], x[3], x[4], x[8], x[9], x[0], x[1]];
        let err = got.iter().zip(&row[1..]).map(|(g, w)| (g - w).abs() / w.abs().max(1.0)).fold(0.0, f64::max);
        worst_table = worst_table.max(err);
        println!("  t = {:>4}: {err:.1e}", row[0]);
    }

    let sol = r.run(x0).span(0.0..T_END).options(options.output(Output::Interval(0.02))).go()?;
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
    reduced_rover(&r, &sol.times, &sol.states)
}

/// The reduced rover: reduced + reconstruction against the full run, the relative equilibria, and
/// the phase portrait.
fn reduced_rover(r: &Rover, times: &[f64], full: &[SVector<f64, 10>]) -> Result<(), Box<dyn std::error::Error>> {
    let red = reduced(r);
    let polar_model = PolarRover { mass: r.mass, l0: r.l0, jr: r.jr, jw: r.jw, rw: r.rw, b: r.b, sigma: r.sigma };
    let (sigma0, psi0) = polar(&full[0]);
    let x0 = red.state([sigma0, psi0], [2.0, 1.0]);
    let g0 = [full[0][2], 0.0, 0.0];
    let (_, back, _) = polar_model.rover_reduced(0.0, &red.reconstruct(0.0, &x0, g0));
    let options = Options::default().rtol(1e-12).atol(1e-12).output(Output::Times(times.to_vec()));
    let rec = red.run(x0).span(0.0..T_END).reconstructed(g0).options(&options).go()?;
    let gap = rec.states.iter().zip(full).map(|(p, f)| (cartesian(r, p) - f).amax() / f.amax()).fold(0.0, f64::max);
    println!(
        "reduced rover (σ, ψ, ω₁, ω₂) from ({sigma0:.9}, {psi0:.9}, 2, 1) (round trip {:.1e}): reduced + reconstruction vs \
         full over {T_END} s, largest relative gap {gap:.1e}",
        (back - x0).amax()
    );
    // The same reduction of the Cartesian model through its quotient map (`RoverShape`): the full
    // state reduced by σ, the run reconstructed by ι.
    let (shape, xs, gs) = r.rover_shape(0.0, &full[0]);
    let through_shape = shape.run(xs).span(0.0..T_END).reconstructed(gs).options(&options).go()?;
    let shape_gap = through_shape.states.iter().zip(full).map(|(p, f)| (p - f).amax() / f.amax()).fold(0.0, f64::max);
    println!(
        "the Cartesian rover reduced through its quotient map (ρ, ψ) = (|(x, y)|, atan2(y, x) − θ): reduced state \
         {:.1e} from the polar one, reduced + reconstruction vs full over {T_END} s {shape_gap:.1e}",
        (xs - x0).amax()
    );
    let pi = std::f64::consts::PI;
    let found = [
        ("(a) centre of mass at the disk's centre", red, red.state([0.13, 3.0], [0.05, -0.04]), vec![]),
        ("(b) inertially stationary at σ = 1", red, red.state([1.0, 1.4], [6.25, 4.0]), vec![0, 2]),
        (
            "(c) l₀ = 0, concentric circle at σ = 1",
            RoverReduced { l0: 0.0, ..red },
            red.state([1.0, 1.5], [1.0, 0.5]),
            vec![0, 2],
        ),
    ];
    let mut equilibria = Vec::new();
    for (label, model, guess, fixed) in found {
        let p = model.relative_equilibrium(0.0, guess, &FixedPointOptions::default().fixed(fixed))?;
        let eig: Vec<String> = p.eigenvalues().iter().map(|(re, im)| format!("{re:.4}{im:+.4}i")).collect();
        println!(
            "  {label}: σ = {:.10}, ψ = {:.10}, ω = ({:.10}, {:.10}), residual {:.0e}; eigenvalues {}",
            p.state[0],
            p.state[1],
            p.state[2],
            p.state[3],
            p.residual,
            eig.join(", ")
        );
        equilibria.push((label, p.state));
    }
    let a = equilibria[0].1;
    if gap > 1e-9 || shape_gap > 1e-9 || (xs - x0).amax() > 1e-14 || (a[0] - r.l0).abs() > 1e-10 || (a[1] - pi).abs() > 1e-10 {
        return Err(
            format!("reduced rover check failed: gap {gap:e}, through the quotient map {shape_gap:e}, (a) at {a:?}").into()
        );
    }
    plot_reduced(r, &red, &equilibria, "out/rover_reduced.svg")?;
    println!("wrote out/rover_reduced.svg");
    Ok(())
}

/// The reduced phase portrait: trajectories of the reduced rover in (σ cos ψ, σ sin ψ) — the
/// disk's centre seen from the rover, along and across its heading — with the relative equilibria.
fn plot_reduced(
    r: &Rover,
    red: &RoverReduced,
    equilibria: &[(&str, SVector<f64, 4>)],
    path: &str,
) -> Result<(), Box<dyn std::error::Error>> {
    let root = SVGBackend::new(path, (900, 760)).into_drawing_area();
    root.fill(&WHITE)?;
    let extent = 2.5;
    let mut chart = ChartBuilder::on(&root)
        .caption(format!("Reduced rover (σ, ψ, ω₁, ω₂), Σ = {} rad/s: 6 s from rest on the disk", r.sigma), ("sans-serif", 20))
        .margin(14)
        .x_label_area_size(45)
        .y_label_area_size(55)
        .build_cartesian_2d(-extent..extent, -extent..extent)?;
    chart
        .configure_mesh()
        .x_desc("σ cos ψ [m] (along the heading)")
        .y_desc("σ sin ψ [m] (across it)")
        .axis_desc_style(("sans-serif", 15))
        .label_style(("sans-serif", 12))
        .light_line_style(WHITE.mix(0.0))
        .draw()?;
    let options = Options::default().rtol(1e-9).atol(1e-9).output(Output::Interval(0.02));
    let style = ShapeStyle { color: BLUE.mix(0.6), filled: false, stroke_width: 1 };
    for k in 0..12 {
        let psi = f64::from(k) * std::f64::consts::TAU / 12.0;
        // At rest relative to the disk (ω = 0: carried by it with the wheels still), σ = 1.
        let Ok(traj) = red.run(red.state([1.0, psi], [0.0, 0.0])).span(0.0..6.0).options(&options).go() else { continue };
        let points: Vec<(f64, f64)> = traj
            .states
            .iter()
            .map(|x| (x[0] * x[1].cos(), x[0] * x[1].sin()))
            .take_while(|p| p.0.abs() < extent && p.1.abs() < extent)
            .collect();
        chart.draw_series(LineSeries::new(points, style))?;
    }
    chart
        .draw_series(LineSeries::new(
            [(0.0, 0.0), (0.0, extent)],
            ShapeStyle { color: RED.to_rgba(), filled: false, stroke_width: 3 },
        ))?
        .label("(b) inertially stationary: ψ = π/2, any σ")
        .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 24, y)], RED.stroke_width(3)));
    // (c) belongs to the rover with l₀ = 0: an open ring around (b)'s point.
    let markers = [(BLACK.filled(), 6), (RED.filled(), 6), (GREEN.stroke_width(3), 11)];
    for ((label, x), (style, size)) in equilibria.iter().zip(markers) {
        chart
            .draw_series(std::iter::once(Circle::new((x[0] * x[1].cos(), x[0] * x[1].sin()), size, style)))?
            .label(*label)
            .legend(move |(x, y)| Circle::new((x + 12, y), 6, style));
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::LowerLeft)
        .label_font(("sans-serif", 13))
        .background_style(WHITE.mix(0.9))
        .border_style(BLACK)
        .draw()?;
    root.present()?;
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
