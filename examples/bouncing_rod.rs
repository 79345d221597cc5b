//! Periodic orbits of the bouncing rod (*Hybrid periodic orbits* §4.3; reference run R8 of
//! `docs/references.md`): time-based multiple shooting from a closed-form symmetric orbit,
//! continuation of the symmetric family through two turning points, a period doubling and a
//! simple bifurcation, and the switch onto the non-symmetric family there.
//!
//! Prints each special point against its closed form and writes the bifurcation diagram
//! `out/bouncing_rod_branches.svg` (T against H̄, the paper's Fig. 6c/7) and the branches as
//! `out/bouncing_rod_symmetric.csv` and `out/bouncing_rod_nonsymmetric.csv`, and the orbits at
//! H̄ = 0.6 (y(t) and α(t) over one period) as `out/bouncing_rod_orbits.svg`.
//!
//! Run with `cargo run --release --example bouncing_rod`.

use plotters::prelude::*;
use routh::nalgebra::{DVector, SVector, Vector4};
use routh::prelude::*;
use routh::runtime::continuation::{
    Branch, ContinuationOptions, Special, Start, branch_directions, continuation, correct_at_parameter,
};
use routh::runtime::periodic::{Anchor, BranchPoint, MultipleShooting, Phase, write_branch_csv};

/// The rod: height y of the centre, rotation α, radius of gyration r, length l; elastic impacts
/// of the left and the right end (erratum P1: the standard elastic law).
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

fn points<S: routh::runtime::HybridSystem<4>>(shooting: &MultipleShooting<'_, S, 4>, branch: &Branch) -> Vec<BranchPoint> {
    branch.points.iter().map(|p| shooting.branch_point(p).expect("a branch point reads out")).collect()
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let rod = Rod { m: 1.0, g: 1.0, l: 1.0, r: 0.01, e: 1.0 };
    let value = |x: &SVector<f64, 4>| x[2];
    let gradient = |_x: &SVector<f64, 4>| Vector4::new(0.0, 0.0, 1.0, 0.0);
    let phases = [Phase { mode: 0, guard: 0 }, Phase { mode: 0, guard: 1 }];
    let ode = Options::default().rtol(1e-12).atol(1e-13);
    let shooting = MultipleShooting::new(&rod, &phases, Anchor { value: &value, gradient: &gradient }, &ode)?;
    // A symmetric orbit in closed form: impact angle θ = 0.6, apex (y, 0, 0, ω).
    let theta: f64 = 0.6;
    let t1 = (2.0 * rod.r * rod.r * theta / theta.cos()).sqrt();
    let x0 = Vector4::new(0.5 * t1 * t1 + 0.5 * theta.sin(), 0.0, 0.0, theta / t1);
    let opts = ContinuationOptions::default().initial_step(0.05).max_step(2.0).target(0.6).max_points(2000);
    let guess = shooting.guess(&x0, 0.0, 10.0)?;
    let start = correct_at_parameter(&shooting, &guess, rod.energy(0.0, &x0), &opts)?;
    let symmetric = continuation(&shooting, &start.u, Start::Increasing, &opts)?;
    println!(
        "symmetric family: {} points ({} steps rejected), ended by {:?}",
        symmetric.points.len(),
        symmetric.rejected,
        symmetric.stop
    );
    let theta_star = (2.0 * rod.r).acos();
    for p in symmetric.points.iter().filter(|p| p.special.is_some()) {
        let s = shooting.solution(&p.u)?;
        println!("  {:?}: H̄ = {:.9}, T = {:.9}, multipliers {:?}", p.special.unwrap(), s.energy, s.period, s.multipliers());
    }
    println!(
        "  closed form of the simple bifurcation: H̄ = {:.9}, T = {:.9}",
        rod.r * theta_star + 0.5 * (1.0 - 4.0 * rod.r * rod.r).sqrt(),
        4.0 * (rod.r * theta_star).sqrt()
    );
    let sb = symmetric.special(Special::SimpleBifurcation).next().ok_or("no simple bifurcation found")?;
    let dirs = branch_directions(&shooting, &sb.u, 1e-6)?;
    let new = if dirs[0].dot(&sb.direction).abs() < dirs[1].dot(&sb.direction).abs() { &dirs[0] } else { &dirs[1] };
    let mut green = Vec::new();
    for sign in [1.0, -1.0] {
        let along: DVector<f64> = new * sign;
        green.push(continuation(&shooting, &sb.u, Start::Along(along), &opts.clone().initial_step(1e-3).target(0.6))?);
    }
    for (k, b) in green.iter().enumerate() {
        let last = shooting.solution(&b.points.last().unwrap().u)?;
        let real = shooting.realizability(&b.points.last().unwrap().u)?;
        println!(
            "non-symmetric half-branch {}: {} points to H̄ = {:.6}, T = {:.7}, durations {:.6?}, physical: {} ({real:?})",
            k + 1,
            b.points.len(),
            last.energy,
            last.period,
            last.durations(),
            real.is_physical(1e-6)
        );
    }
    std::fs::create_dir_all("out")?;
    let sym = points(&shooting, &symmetric);
    write_branch_csv(std::fs::File::create("out/bouncing_rod_symmetric.csv")?, &sym)?;
    let nonsym: Vec<BranchPoint> = green.iter().flat_map(|b| points(&shooting, b)).collect();
    write_branch_csv(std::fs::File::create("out/bouncing_rod_nonsymmetric.csv")?, &nonsym)?;

    let root = SVGBackend::new("out/bouncing_rod_branches.svg", (900, 600)).into_drawing_area();
    root.fill(&WHITE)?;
    let mut chart = ChartBuilder::on(&root)
        .caption("Bouncing rod (r = 0.01): period against energy", ("sans-serif", 20))
        .margin(15)
        .x_label_area_size(40)
        .y_label_area_size(55)
        .build_cartesian_2d(0.40f64..0.61, 0.0f64..2.0)?;
    chart.configure_mesh().x_desc("H̄").y_desc("T").draw()?;
    chart
        .draw_series(LineSeries::new(sym.iter().map(|p| (p.energy, p.period)), BLUE.stroke_width(2)))?
        .label("symmetric orbits")
        .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], BLUE));
    for (k, b) in green.iter().enumerate() {
        let series = LineSeries::new(points(&shooting, b).into_iter().map(|p| (p.energy, p.period)), GREEN.stroke_width(2));
        let drawn = chart.draw_series(series)?;
        if k == 0 {
            drawn.label("non-symmetric orbits").legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], GREEN));
        }
    }
    let marks: Vec<(f64, f64, Special)> = symmetric
        .points
        .iter()
        .filter_map(|p| p.special.map(|k| (shooting.solution(&p.u).map(|s| (s.energy, s.period)), k)))
        .filter_map(|(s, k)| s.ok().map(|(h, t)| (h, t, k)))
        .collect();
    chart.draw_series(marks.iter().map(|&(h, t, k)| {
        let color = match k {
            Special::TurningPoint => RED,
            Special::SimpleBifurcation => BLACK,
            Special::PeriodDoubling => MAGENTA,
        };
        Circle::new((h, t), 5, color.filled())
    }))?;
    chart.configure_series_labels().border_style(BLACK).background_style(WHITE).draw()?;
    root.present()?;

    // Orbit plots: the symmetric orbit and both non-symmetric ones at H̄ = 0.6, re-simulated by
    // the event engine from x̄₁ over one period — the centre height y(t) and the angle α(t).
    let orbits = [
        ("symmetric", symmetric.points.last().ok_or("empty branch")?.u.clone(), BLUE),
        ("non-symmetric 1", green[0].points.last().ok_or("empty branch")?.u.clone(), GREEN),
        ("non-symmetric 2", green[1].points.last().ok_or("empty branch")?.u.clone(), RGBColor(0, 100, 0)),
    ];
    let root = SVGBackend::new("out/bouncing_rod_orbits.svg", (1100, 450)).into_drawing_area();
    root.fill(&WHITE)?;
    let (left, right) = root.split_horizontally(550);
    let mut runs = Vec::new();
    for (name, u, color) in &orbits {
        let s = shooting.solution(u)?;
        let opts = routh::runtime::HybridOptions::default().rtol(1e-11).atol(1e-12).output(Output::Interval(s.period / 1000.0));
        runs.push((*name, s.period, rod.run(s.phases[0].start).span(0.0..s.period).options(&opts).go()?, *color));
    }
    let t_max = runs.iter().map(|r| r.1).fold(0.0, f64::max);
    for (area, (component, label, range)) in [left, right].iter().zip([(0usize, "y", (0.45, 0.65)), (1, "α", (-1.6, 1.6))]) {
        let mut chart = ChartBuilder::on(area)
            .caption(format!("Bouncing rod at H̄ = 0.6: {label}(t) over one period"), ("sans-serif", 18))
            .margin(12)
            .x_label_area_size(35)
            .y_label_area_size(45)
            .build_cartesian_2d(0.0..t_max, range.0..range.1)?;
        chart.configure_mesh().x_desc("t").y_desc(label).draw()?;
        for (name, period, run, color) in &runs {
            chart
                .draw_series(LineSeries::new(
                    run.times.iter().zip(&run.states).map(|(t, x)| (*t, x[component])),
                    color.stroke_width(2),
                ))?
                .label(format!("{name}, T = {period:.4}"))
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2)));
        }
        chart
            .configure_series_labels()
            .border_style(BLACK)
            .background_style(WHITE)
            .position(SeriesLabelPosition::LowerRight)
            .draw()?;
    }
    root.present()?;
    println!(
        "wrote out/bouncing_rod_branches.svg, out/bouncing_rod_orbits.svg, out/bouncing_rod_symmetric.csv, out/bouncing_rod_nonsymmetric.csv"
    );
    Ok(())
}
