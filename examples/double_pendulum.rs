//! The showcase: a planar double pendulum derived from its Lagrangian at compile time.
//!
//! Prints the energy drift of an undamped run, the dissipated energy of a damped one, and writes
//! `out/double_pendulum.svg`: joint angles over time and the path of the lower bob (the model's
//! `output(bob_x, bob_y)`), and `out/double_pendulum_bob.csv`.
//!
//! Run with `cargo run --release --example double_pendulum`.

use plotters::prelude::*;
use routh::prelude::*;

/// Planar double pendulum with viscous joint damping.
#[derive(Mechanics)]
#[mechanics(
    coordinates(th1, th2),
    define(
        x1 = l1 * th1.sin(),           y1 = -l1 * th1.cos(),
        x2 = x1 + l2 * th2.sin(),      y2 = y1 - l2 * th2.cos(),
    ),
    lagrangian = m1 / 2 * (dot(x1).powi(2) + dot(y1).powi(2))
               + m2 / 2 * (dot(x2).powi(2) + dot(y2).powi(2))
               - g * (m1 * y1 + m2 * y2),
    force(th1 = -b * dot(th1), th2 = -b * (dot(th2) - dot(th1))),
    output(bob_x = x2, bob_y = y2),
)]
pub struct DoublePendulum {
    pub m1: f64,
    pub m2: f64,
    pub l1: f64,
    pub l2: f64,
    pub g: f64,
    pub b: f64,
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let p = DoublePendulum { m1: 1.0, m2: 1.0, l1: 1.0, l2: 1.0, g: 9.81, b: 0.0 };
    let x0 = p.state([1.0, 0.5], [0.0, 0.0]);
    let options = Options::default().rtol(1e-10).atol(1e-12);
    let sol = p.run(x0).span(0.0..20.0).options(&options).go()?;

    let e0 = p.energy(0.0, &x0);
    let drift = sol.iter().map(|(t, x)| (p.energy(t, x) - e0).abs() / e0.abs()).fold(0.0, f64::max);
    println!("undamped double pendulum, t ∈ [0, 20], rtol 1e-10:");
    println!(
        "  {} accepted steps, {} rejected, {} field evaluations",
        sol.stats.steps, sol.stats.rejected, sol.stats.evaluations
    );
    println!("  energy E0 = {e0:.12}, max relative drift = {drift:.3e}");

    let damped = DoublePendulum { b: 0.2, ..p };
    let sol_d = damped.run(x0).span(0.0..20.0).options(&options).go()?;
    let (t_end, x_end) = sol_d.last().ok_or("empty trajectory")?;
    println!("damped (b = 0.2): energy {e0:.6} → {:.6} at t = {t_end}", damped.energy(t_end, x_end));

    std::fs::create_dir_all("out")?;
    let path = "out/double_pendulum.svg";
    let root = SVGBackend::new(path, (1100, 500)).into_drawing_area();
    root.fill(&WHITE)?;
    let (left, right) = root.split_horizontally(600);

    let mut angles = ChartBuilder::on(&left)
        .caption("joint angles (undamped)", ("sans-serif", 20))
        .margin(10)
        .x_label_area_size(35)
        .y_label_area_size(45)
        .build_cartesian_2d(0.0..20.0, -4.0..4.0)?;
    angles.configure_mesh().x_desc("t").y_desc("angle [rad]").draw()?;
    let wrap = |a: f64| (a + std::f64::consts::PI).rem_euclid(2.0 * std::f64::consts::PI) - std::f64::consts::PI;
    for (k, color, label) in [(0, &BLUE, "θ₁"), (1, &RED, "θ₂")] {
        angles
            .draw_series(LineSeries::new(sol.iter().map(|(t, x)| (t, wrap(x[k]))), color))?
            .label(label)
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], color));
    }
    angles.configure_series_labels().background_style(WHITE.mix(0.8)).border_style(BLACK).draw()?;

    let mut path_chart = ChartBuilder::on(&right)
        .caption("path of the lower bob", ("sans-serif", 20))
        .margin(10)
        .x_label_area_size(35)
        .y_label_area_size(45)
        .build_cartesian_2d(-2.1..2.1, -2.1..2.1)?;
    path_chart.configure_mesh().x_desc("x").y_desc("y").draw()?;
    // The bob's path from the model's outputs, evaluated along the run.
    let bob = p.observe(&sol);
    let (bx, by) = (bob.column("bob_x").ok_or("no bob_x")?, bob.column("bob_y").ok_or("no bob_y")?);
    path_chart.draw_series(LineSeries::new(bx.iter().copied().zip(by.iter().copied()), &BLUE.mix(0.7)))?;
    root.present()?;
    println!("wrote {path}");
    let csv = "out/double_pendulum_bob.csv";
    bob.write_csv(std::fs::File::create(csv)?)?;
    println!("wrote {csv} (columns t, bob_x, bob_y)");
    Ok(())
}
