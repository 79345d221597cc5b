//! A bouncing ball: the smallest model with an impact.
//!
//! A ball dropped from h₀ = 1 m onto a floor with restitution e = 0.8. It first lands at
//! t₁ = √(2h₀/g) with speed v₁ = g t₁; each bounce reverses the velocity scaled by e, so the next
//! flight lasts 2eᵏv₁/g and the impacts accumulate at t∞ = t₁(1 + e)/(1 − e) (Zeno). The example
//! prints the impact times against this closed form, the detected Zeno stop, and writes the height
//! over time to `out/bouncing_ball.svg`.
//!
//! Run with `cargo run --release --example bouncing_ball`.

use plotters::prelude::*;
use routh::prelude::*;

/// A ball over the floor y = 0: the guard y ≥ 0, Newton's law with restitution e at the floor.
#[derive(Mechanics)]
#[mechanics(
    coordinates(y),
    lagrangian = m / 2 * dot(y).powi(2) - m * g * y,
    impact(name = floor, guard = y, law = restitution(e)),
)]
struct Ball {
    m: f64,
    g: f64,
    e: f64,
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let (h0, ball) = (1.0, Ball { m: 1.0, g: 9.81, e: 0.8 });
    let options = HybridOptions::default().rtol(1e-12).atol(1e-13).output(Output::Interval(0.002));
    let sol = ball.run(ball.state([h0], [0.0])).span(0.0..10.0).options(&options).go()?;

    let t1 = (2.0 * h0 / ball.g).sqrt();
    let v1 = ball.g * t1;
    println!("ball dropped from {h0} m, e = {}: {} impacts", ball.e, sol.impacts.len());
    println!("  {:>3}  {:>12}  {:>12}  {:>9}  {:>10}  {:>10}", "k", "t_k", "closed form", "error", "ẏ⁻", "ẏ⁺");
    let mut expected = t1;
    let mut worst: f64 = 0.0;
    for (k, imp) in sol.impacts.iter().enumerate() {
        let error = imp.t - expected;
        worst = worst.max(error.abs());
        if k < 10 || k + 3 >= sol.impacts.len() {
            println!(
                "  {:>3}  {:>12.9}  {expected:>12.9}  {error:>+9.1e}  {:>10.6}  {:>10.6}",
                k + 1,
                imp.t,
                imp.pre[1],
                imp.post[1]
            );
        } else if k == 10 {
            println!("  {:>3}", "…");
        }
        // tₖ₊₁ = tₖ + 2eᵏv₁/g (k counted from 1).
        expected += 2.0 * ball.e.powi(k as i32 + 1) * v1 / ball.g;
    }
    println!("  largest deviation from the closed form: {worst:.1e}");

    let zeno = t1 * (1.0 + ball.e) / (1.0 - ball.e);
    let HybridStop::Zeno { t_accumulation, impacts, .. } = sol.stop else {
        return Err(format!("expected Zeno accumulation near t = {zeno}, got {:?}", sol.stop).into());
    };
    println!("stop: Zeno after {impacts} impacts, accumulation time {t_accumulation:.9}");
    println!(
        "  closed form t₁(1 + e)/(1 − e) = {zeno:.9} (difference {:.1e}); the last impact was at {:.9}",
        t_accumulation - zeno,
        sol.impacts.last().map_or(f64::NAN, |i| i.t)
    );
    println!(
        "  energy lost: {:.6} J of {:.6} J",
        -sol.impacts.iter().map(|i| i.energy_jump()).sum::<f64>(),
        ball.m * ball.g * h0
    );

    std::fs::create_dir_all("out")?;
    let path = "out/bouncing_ball.svg";
    let root = SVGBackend::new(path, (900, 480)).into_drawing_area();
    root.fill(&WHITE)?;
    let t_max = (zeno * 2.2).ceil() / 2.0;
    let mut chart = ChartBuilder::on(&root)
        .caption(format!("Bouncing ball: h₀ = {h0} m, e = {}", ball.e), ("sans-serif", 21))
        .margin(14)
        .x_label_area_size(45)
        .y_label_area_size(55)
        .build_cartesian_2d(0.0..t_max, 0.0..1.08 * h0)?;
    chart
        .configure_mesh()
        .x_desc("t [s]")
        .y_desc("height y [m]")
        .axis_desc_style(("sans-serif", 16))
        .label_style(("sans-serif", 13))
        .light_line_style(WHITE.mix(0.0))
        .draw()?;
    let ball_style = ShapeStyle { color: BLUE.to_rgba(), filled: false, stroke_width: 2 };
    chart
        .draw_series(LineSeries::new(sol.iter().map(|(t, _, x)| (t, x[0])), ball_style))?
        .label("y(t)")
        .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 24, y)], ball_style));
    chart
        .draw_series(sol.impacts.iter().take(12).map(|i| Circle::new((i.t, 0.0), 3, BLACK.filled())))?
        .label("impacts")
        .legend(|(x, y)| Circle::new((x + 12, y), 3, BLACK.filled()));
    let zeno_style = ShapeStyle { color: RGBColor(200, 40, 40).to_rgba(), filled: false, stroke_width: 2 };
    chart
        .draw_series(DashedLineSeries::new([(zeno, 0.0), (zeno, 0.75 * h0)], 8, 5, zeno_style))?
        .label(format!("t∞ = t₁(1 + e)/(1 − e) = {zeno:.3} s"))
        .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 8, y)], zeno_style));
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperRight)
        .label_font(("sans-serif", 14))
        .background_style(WHITE.mix(0.9))
        .border_style(BLACK)
        .draw()?;
    root.present()?;
    println!("wrote {path}");
    Ok(())
}
