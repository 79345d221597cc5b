//! Families of periodic orbits of the bouncing ball and the rocking block (*Hybrid periodic
//! orbits* §4.1–4.2; reference run R7 and the block's table in `docs/references.md`), both
//! started from rest — the degenerate orbit with zero phase durations — by Lyapunov–Schmidt
//! branching, then continued in the energy by time-based multiple shooting.
//!
//! Prints the branching tangents and the largest errors against the closed form T = √(8H̄) (ball)
//! and the reference periods (block), and writes `out/periodic_ball_block.svg` (T against H̄,
//! the paper's Fig. 6a/6b), `out/periodic_ball_block_orbits.svg` (phase portraits of orbits along
//! both branches, re-simulated by the event engine) and both branches as CSV.
//!
//! Run with `cargo run --release --example bouncing_ball_orbits`.

use plotters::prelude::*;
use routh::nalgebra::{DVector, SVector, Vector2};
use routh::prelude::*;
use routh::runtime::HybridSystem;
use routh::runtime::continuation::{Branch, ContinuationOptions, Start, branch_directions, continuation};
use routh::runtime::periodic::{Anchor, BranchPoint, MultipleShooting, Phase, write_branch_csv};

/// The bouncing ball (m = g = 1): elastic floor at y = 0.
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

/// The rocking block (β = 0.3, p = 3g/(4l) = 3/4); the impact on the other corner folded back.
#[derive(Mechanics)]
#[mechanics(
    coordinates(alpha),
    lagrangian = 2 * m * l.powi(2) / 3 * dot(alpha).powi(2) - m * g * l * ((alpha - beta).cos() - beta.cos()),
    impact(name = corner, guard = alpha, law = map(dot(alpha) = -dot(alpha))),
)]
struct RockingBlock {
    m: f64,
    l: f64,
    g: f64,
    beta: f64,
}

/// The branch from rest: the LS direction with a positive first duration, continued to `target`.
fn from_rest<S: HybridSystem<2>>(
    sys: &S,
    target: f64,
    max_step: f64,
) -> Result<(Vec<BranchPoint>, DVector<f64>), Box<dyn std::error::Error>> {
    let value = |x: &SVector<f64, 2>| x[1];
    let gradient = |_x: &SVector<f64, 2>| Vector2::new(0.0, 1.0);
    let ode = Options::default().rtol(1e-12).atol(1e-13);
    let shooting =
        MultipleShooting::new(sys, &[Phase { mode: 0, guard: 0 }], Anchor { value: &value, gradient: &gradient }, &ode)?;
    let u0 = DVector::zeros(8);
    let dirs = branch_directions(&shooting, &u0, 1e-6)?;
    let dir = if dirs[0][0].abs() > dirs[1][0].abs() { dirs[0].clone() } else { dirs[1].clone() };
    let dir = if dir[0] > 0.0 { dir } else { -dir };
    let opts = ContinuationOptions::default().initial_step(1e-2).max_step(max_step).target(target).max_points(5000);
    let branch: Branch = continuation(&shooting, &u0, Start::Along(dir.clone()), &opts)?;
    let points = branch.points[1..].iter().map(|p| shooting.branch_point(p)).collect::<Result<Vec<_>, _>>()?;
    Ok((points, dir))
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let ball = Ball { m: 1.0, g: 1.0, e: 1.0 };
    let (ball_points, ball_dir) = from_rest(&ball, 2.0, 0.3)?;
    let worst = ball_points.iter().map(|p| (p.period - (8.0 * p.energy).sqrt()).abs()).fold(0.0, f64::max);
    println!("ball: LS tangent at rest {:.6?} (expected (1, 0, 1, 1, 0, 0, 0, 0)/√3)", ball_dir.as_slice());
    println!(
        "ball: {} orbits to H̄ = 2, largest |T − √(8H̄)| = {worst:.1e}, largest |ξ| = {:.1e}",
        ball_points.len(),
        ball_points.iter().map(|p| p.xi.abs()).fold(0.0, f64::max)
    );

    let block = RockingBlock { m: 1.0, l: 1.0, g: 1.0, beta: 0.3 };
    let hmax = 1.0 - 0.3f64.cos();
    let (block_points, block_dir) = from_rest(&block, (0.29f64 - 0.3).cos() - 0.3f64.cos(), 0.5)?;
    println!("block: LS tangent at rest {:.5?} (expected (0.69858, 0, 0.15483, 0.69858, 0, …))", block_dir.as_slice());
    let last = block_points.last().ok_or("empty branch")?;
    println!(
        "block: {} orbits to α₀ = 0.29, T = {:.6} (reference 9.459235, error {:.1e}); H̄ stays below H̄max = {hmax:.7}",
        block_points.len(),
        last.period,
        (last.period - 9.459235).abs()
    );

    std::fs::create_dir_all("out")?;
    write_branch_csv(std::fs::File::create("out/periodic_ball.csv")?, &ball_points)?;
    write_branch_csv(std::fs::File::create("out/periodic_block.csv")?, &block_points)?;
    let root = SVGBackend::new("out/periodic_ball_block.svg", (1100, 450)).into_drawing_area();
    root.fill(&WHITE)?;
    let (left, right) = root.split_horizontally(550);
    let mut chart = ChartBuilder::on(&left)
        .caption("Bouncing ball: T against H̄", ("sans-serif", 18))
        .margin(12)
        .x_label_area_size(35)
        .y_label_area_size(45)
        .build_cartesian_2d(0.0f64..2.05, 0.0f64..4.2)?;
    chart.configure_mesh().x_desc("H̄").y_desc("T").draw()?;
    chart
        .draw_series(LineSeries::new((0..=200).map(|k| k as f64 * 0.01).map(|h| (h, (8.0 * h).sqrt())), BLACK.stroke_width(1)))?
        .label("√(8H̄)")
        .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], BLACK));
    chart
        .draw_series(ball_points.iter().map(|p| Circle::new((p.energy, p.period), 3, BLUE.filled())))?
        .label("continuation")
        .legend(|(x, y)| Circle::new((x + 10, y), 3, BLUE.filled()));
    chart.configure_series_labels().border_style(BLACK).background_style(WHITE).draw()?;
    let mut chart = ChartBuilder::on(&right)
        .caption("Rocking block (β = 0.3): T against H̄", ("sans-serif", 18))
        .margin(12)
        .x_label_area_size(35)
        .y_label_area_size(45)
        .build_cartesian_2d(0.0f64..0.046, 0.0f64..10.0)?;
    chart.configure_mesh().x_desc("H̄").y_desc("T").draw()?;
    chart.draw_series(LineSeries::new(block_points.iter().map(|p| (p.energy, p.period)), BLUE.stroke_width(2)))?;
    chart
        .draw_series(DashedLineSeries::new([(hmax, 0.0), (hmax, 10.0)], 5, 5, RED.stroke_width(1)))?
        .label("H̄max = 1 − cos β (homoclinic)")
        .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], RED));
    chart
        .configure_series_labels()
        .border_style(BLACK)
        .background_style(WHITE)
        .position(SeriesLabelPosition::UpperLeft)
        .draw()?;
    root.present()?;

    // Orbit plots: the phase portraits of a few orbits of each family, re-simulated by the event
    // engine from their start state x̄₁ over one period.
    let root = SVGBackend::new("out/periodic_ball_block_orbits.svg", (1100, 450)).into_drawing_area();
    root.fill(&WHITE)?;
    let (left, right) = root.split_horizontally(550);
    let pick = |points: &[BranchPoint], count: usize| -> Vec<BranchPoint> {
        (1..=count).map(|k| points[(k * (points.len() - 1)) / count].clone()).collect()
    };
    let panels = [
        ("Bouncing ball: orbits in (y, ẏ)", "y", "ẏ", pick(&ball_points, 4), (0.0, 2.1), (-2.1, 2.1)),
        ("Rocking block: orbits in (α, α̇)", "α", "α̇", pick(&block_points, 4), (0.0, 0.3), (-0.3, 0.3)),
    ];
    for (k, (area, (title, xd, yd, orbits, xr, yr))) in [left, right].iter().zip(panels).enumerate() {
        let mut chart = ChartBuilder::on(area)
            .caption(title, ("sans-serif", 18))
            .margin(12)
            .x_label_area_size(35)
            .y_label_area_size(45)
            .build_cartesian_2d(xr.0..xr.1, yr.0..yr.1)?;
        chart.configure_mesh().x_desc(xd).y_desc(yd).draw()?;
        for (j, p) in orbits.iter().enumerate() {
            let x0 = Vector2::new(p.state[0], p.state[1]);
            let opts = HybridOptions::default().rtol(1e-10).atol(1e-12).output(Output::Interval(p.period / 400.0));
            let run = if k == 0 {
                ball.run(x0).span(0.0..p.period).options(&opts).go()?
            } else {
                block.run(x0).span(0.0..p.period).options(&opts).go()?
            };
            let color = Palette99::pick(j).to_rgba();
            chart
                .draw_series(LineSeries::new(run.states.iter().map(|x| (x[0], x[1])), color.stroke_width(2)))?
                .label(format!("H̄ = {:.4}, T = {:.3}", p.energy, p.period))
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2)));
        }
        chart
            .configure_series_labels()
            .border_style(BLACK)
            .background_style(WHITE)
            .position(SeriesLabelPosition::UpperRight)
            .draw()?;
    }
    root.present()?;
    println!(
        "wrote out/periodic_ball_block.svg, out/periodic_ball_block_orbits.svg, out/periodic_ball.csv, out/periodic_block.csv"
    );
    Ok(())
}
