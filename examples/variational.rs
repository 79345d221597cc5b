//! Variational integrators generated from the model (*Forced discrete reduction*;
//! `docs/references.md`).
//!
//! 1. A pendulum over 10⁴ periods: the midpoint variational integrator (fixed step, symplectic)
//!    keeps the energy error bounded, while adaptive Dormand–Prince drifts without bound.
//! 2. Example 3.13: a damped particle in the sextic potential in polar coordinates; the discrete
//!    angular momentum decays by exactly (2 − κh)/(2 + κh) per step (the (1,1)-Padé approximant of
//!    e^{−κh}), so p_k/p₀ follows e^{−κt} to O(h²) over the whole run.
//!
//! Writes `out/variational_energy.svg` and `out/variational_momentum.svg`.
//!
//! Run with `cargo run --release --example variational`.

use plotters::prelude::*;
use routh::prelude::*;

/// A pendulum (unit mass): L = ½ l² θ̇² + g l cos θ.
#[derive(Mechanics)]
#[mechanics(
    coordinates(th),
    lagrangian = l.powi(2) / 2 * dot(th).powi(2) + g * l * th.cos(),
    discrete(rule = midpoint),
)]
struct Pendulum {
    l: f64,
    g: f64,
}

/// Example 3.13 with the consistent midpoint force (erratum D3 of `docs/references.md`).
#[derive(Mechanics)]
#[mechanics(
    coordinates(r, eta),
    lagrangian = (dot(r).powi(2) + (r * dot(eta)).powi(2)) / 2 - r.powi(2) * (r.powi(2) - 1).powi(2),
    force(r = -kappa * dot(r), eta = -kappa * r.powi(2) * dot(eta)),
    symmetry(cyclic(eta)),
    discrete(rule = midpoint),
)]
struct Polar {
    kappa: f64,
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // 1. Energy over 10⁴ periods.
    let p = Pendulum { l: 1.0, g: 9.81 };
    let period = 2.0 * std::f64::consts::PI * (p.l / p.g).sqrt();
    let periods = 10_000.0;
    let t_end = periods * period;
    let theta0 = 1.0;
    let e0 = -p.g * p.l * f64::cos(theta0);
    let h = period / 200.0;
    let steps = (t_end / h) as usize;
    let vi = p.run_discrete(p.state([theta0], [0.0])).step(h).steps(steps).go()?;
    let energy = |th: f64, p_th: f64| p_th * p_th / (2.0 * p.l * p.l) - p.g * p.l * th.cos();
    let stride = 200;
    let vi_err: Vec<(f64, f64)> = (0..vi.len())
        .step_by(stride)
        .map(|k| (vi.times[k] / period, (energy(vi.positions[k][0], vi.momenta[k][0]) - e0).abs()))
        .collect();
    let opts = Options::default().output(Output::Interval(period));
    let rk = p.run(p.state([theta0], [0.0])).span(0.0..t_end).options(&opts).go()?;
    let rk_err: Vec<(f64, f64)> = rk.iter().map(|(t, x)| (t / period, (p.energy(t, x) - e0).abs())).collect();
    let tenth = vi_err.len() / 10;
    let early = vi_err[..tenth].iter().map(|e| e.1).fold(0.0, f64::max);
    let late = vi_err[vi_err.len() - tenth..].iter().map(|e| e.1).fold(0.0, f64::max);
    let rk_100 = rk_err.iter().find(|e| e.0 >= 100.0 - 1e-9).map_or(f64::NAN, |e| e.1);
    let rk_end = rk_err.last().map_or(f64::NAN, |e| e.1);
    println!("pendulum, θ₀ = 1, {periods} periods ({steps} midpoint steps of h = T/200):");
    println!("  midpoint VI: |ΔE| ≤ {early:.2e} over the first tenth, ≤ {late:.2e} over the last (bounded)");
    println!("  DOPRI5 (rtol 1e-8): |ΔE| = {rk_100:.2e} after 100 periods, {rk_end:.2e} after {periods} (drifting)");
    if late > 2.0 * early {
        return Err(format!("the variational integrator's energy error grew: {early:e} → {late:e}").into());
    }

    // 2. Example 3.13: the momentum decay.
    let pol = Polar { kappa: 0.1 };
    let (hp, np) = (0.01, 2000);
    let traj = pol.run_discrete(pol.state([1.2, 0.0], [0.0, 0.5])).step(hp).steps(np).go()?;
    let factor = (2.0 - pol.kappa * hp) / (2.0 + pol.kappa * hp);
    let worst = (1..=np).map(|k| (traj.momenta[k][1] / traj.momenta[k - 1][1] - factor).abs()).fold(0.0, f64::max);
    let ratio = traj.momenta[np][1] / traj.momenta[0][1];
    println!(
        "Ex. 3.13 (h = {hp}, κ = {}): p_k/p_(k−1) = (2 − κh)/(2 + κh) to {worst:.1e}; p_N/p_0 = {ratio:.11} (reference run R10: 0.13533526068)",
        pol.kappa
    );
    println!(
        "  against e^(−κt) at t = {}: {:.3e} (O(h²): the Padé factor's error is (κh)³/12 per step)",
        np as f64 * hp,
        ratio - (-pol.kappa * np as f64 * hp).exp()
    );
    println!("  the law of its discrete momentum, decided at compile time: {:?}", Polar::ETA_DISCRETE_LAW);

    std::fs::create_dir_all("out")?;
    let path = "out/variational_energy.svg";
    let root = SVGBackend::new(path, (900, 500)).into_drawing_area();
    root.fill(&WHITE)?;
    let floor = 1e-16;
    let mut chart = ChartBuilder::on(&root)
        .caption("pendulum energy error over 10⁴ periods", ("sans-serif", 20))
        .margin(14)
        .x_label_area_size(45)
        .y_label_area_size(65)
        .build_cartesian_2d((1.0f64..periods).log_scale(), (floor..1e-2f64).log_scale())?;
    chart.configure_mesh().x_desc("t / T").y_desc("|E − E₀|").light_line_style(WHITE.mix(0.0)).draw()?;
    let vi_style = ShapeStyle { color: RGBColor(30, 90, 200).to_rgba(), filled: false, stroke_width: 1 };
    let rk_style = ShapeStyle { color: RGBColor(200, 60, 40).to_rgba(), filled: false, stroke_width: 2 };
    chart
        .draw_series(LineSeries::new(vi_err.iter().filter(|e| e.0 >= 1.0).map(|&(t, e)| (t, e.max(floor))), vi_style))?
        .label(format!("midpoint variational integrator, h = T/200 (bounded, ≤ {late:.1e})"))
        .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 22, y)], vi_style));
    chart
        .draw_series(LineSeries::new(rk_err.iter().filter(|e| e.0 >= 1.0).map(|&(t, e)| (t, e.max(floor))), rk_style))?
        .label("adaptive Dormand–Prince 5(4), rtol 1e-8 (drifting)")
        .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 22, y)], rk_style));
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::LowerRight)
        .background_style(WHITE.mix(0.9))
        .border_style(BLACK)
        .draw()?;
    root.present()?;
    println!("wrote {path}");

    let path = "out/variational_momentum.svg";
    let root = SVGBackend::new(path, (900, 500)).into_drawing_area();
    root.fill(&WHITE)?;
    let mut chart = ChartBuilder::on(&root)
        .caption("Ex. 3.13: discrete angular momentum against e^(−κt)", ("sans-serif", 20))
        .margin(14)
        .x_label_area_size(45)
        .y_label_area_size(60)
        .build_cartesian_2d(0.0..np as f64 * hp, 0.0..1.05)?;
    chart.configure_mesh().x_desc("t").y_desc("p_η(t) / p_η(0)").light_line_style(WHITE.mix(0.0)).draw()?;
    let p_style = ShapeStyle { color: RGBColor(30, 90, 200).to_rgba(), filled: false, stroke_width: 3 };
    let e_style = ShapeStyle { color: BLACK.to_rgba(), filled: false, stroke_width: 1 };
    chart
        .draw_series(LineSeries::new(
            (0..=np).step_by(10).map(|k| (traj.times[k], traj.momenta[k][1] / traj.momenta[0][1])),
            p_style,
        ))?
        .label("midpoint VI: factor (2 − κh)/(2 + κh) per step")
        .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 22, y)], p_style));
    chart
        .draw_series(DashedLineSeries::new(
            (0..=200).map(|k| {
                let t = k as f64 / 200.0 * np as f64 * hp;
                (t, (-pol.kappa * t).exp())
            }),
            8,
            5,
            e_style,
        ))?
        .label("e^(−κt), the continuous law")
        .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 22, y)], e_style));
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperRight)
        .background_style(WHITE.mix(0.9))
        .border_style(BLACK)
        .draw()?;
    root.present()?;
    println!("wrote {path}");
    Ok(())
}
