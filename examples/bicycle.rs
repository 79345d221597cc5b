//! The Whipple bicycle benchmark (Meijaard, Papadopoulos, Ruina and Schwab 2007) written with
//! bodies, frames and rolling contacts (`examples/models/whipple.rs`). A roll-rate kick at 5 m/s,
//! inside the benchmark's stable speed range (4.292–6.024 m/s), dies out; at 3 m/s the weave
//! grows until the bicycle falls. Prints what it checks (the linearised M, C₁, K₀, K₂ on the
//! constraint manifold against the benchmark's, decay, growth, energy and constraints) and writes
//! `out/bicycle.svg`: roll and steer against time at both speeds.
//!
//! ```sh
//! cargo run --release --example bicycle
//! ```

#[path = "models/whipple.rs"]
mod whipple;

use plotters::prelude::*;
use routh::prelude::*;
use whipple::{Bicycle, benchmark, running, worst_roll};

/// The largest relative energy change and constraint residual of a run.
fn drift(b: &Bicycle, sol: &Trajectory<16>) -> (f64, f64) {
    let e0 = b.energy(0.0, &sol.states[0]);
    sol.iter().fold((0.0f64, 0.0f64), |(e, r), (t, x)| {
        let residual = b.velocity_residuals(t, x).amax().max(b.position_residuals(t, x).amax());
        (e.max((b.energy(t, x) - e0).abs() / e0.abs()), r.max(residual))
    })
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let b = benchmark();
    // The linearisation on the constraint manifold, in roll and steer (the speed the third
    // independent velocity; contact point, yaw and wheel angles ignorable), at two speeds: M,
    // C = v C₁ and K = g K₀ + v² K₂. Our steer turns left (z up), the benchmark's right: S X S.
    let selection = routh::runtime::linearize::Selection::new()
        .coordinates(["phi", "delta"])
        .velocities(["phi", "delta", "spin_r"])
        .ignorable(["x", "y", "psi", "spin_r", "spin_f"]);
    let mech = |v: f64| -> Result<_, Box<dyn std::error::Error>> {
        let lin = b.linearize_constrained(0.0, &running(&b, v, 0.0, 0.0), &selection)?;
        lin.mechanical.ok_or_else(|| "no mechanical form".into())
    };
    let (m3, m5) = (mech(3.0)?, mech(5.0)?);
    let published = [
        ("M", [[80.81722, 2.31941332208709], [2.31941332208709, 0.29784188199686]]),
        ("C1", [[0.0, 33.86641391492494], [-0.85035641456978, 1.68540397397560]]),
        ("K0", [[-80.95, -2.59951685249872], [-2.59951685249872, -0.80329488458618]]),
        ("K2", [[0.0, 76.59734589573222], [0.0, 2.65431523794604]]),
    ];
    let mut worst: f64 = 0.0;
    for (name, reference) in published {
        for (i, j) in [(0, 0), (0, 1), (1, 0), (1, 1)] {
            let sign = if i == j { 1.0 } else { -1.0 };
            let k2 = (m5.stiffness[(i, j)] - m3.stiffness[(i, j)]) / 16.0;
            let ours = match name {
                "M" => m5.mass[(i, j)],
                "C1" => m5.damping[(i, j)] / 5.0,
                "K0" => (m3.stiffness[(i, j)] - 9.0 * k2) / b.g,
                _ => k2,
            };
            worst = worst.max((sign * ours - reference[i][j]).abs());
        }
    }
    println!("linearised on the constraint manifold: M, C1, K0, K2 within {worst:.1e} of Meijaard et al. 2007 (eq. 5.4)");
    if worst > 1e-10 {
        return Err("the benchmark's linearised matrices are not reproduced".into());
    }
    let opts = Options::default().rtol(1e-10).atol(1e-12).output(Output::Interval(0.01));
    let kick = 0.1;
    let fast = b.run(running(&b, 5.0, kick, 0.0)).span(0.0..8.0).options(&opts).go()?;
    let slow = b.run(running(&b, 3.0, kick, 0.0)).span(0.0..3.0).options(&opts).go()?;
    let (e5, r5) = drift(&b, &fast);
    let (e3, r3) = drift(&b, &slow);
    println!("Whipple bicycle, benchmark parameters, roll-rate kick {kick} rad/s");
    println!(
        "  5 m/s: largest roll {:.4} rad in the first second, {:.2e} rad in the eighth (self-stable); |ΔE|/E ≤ {e5:.1e}, residuals ≤ {r5:.1e}",
        worst_roll(&fast, 0.0, 1.0),
        worst_roll(&fast, 7.0, 8.0)
    );
    println!(
        "  3 m/s: largest roll {:.4} rad in the first second, {:.4} rad in the third (the weave grows); |ΔE|/E ≤ {e3:.1e}, residuals ≤ {r3:.1e}",
        worst_roll(&slow, 0.0, 1.0),
        worst_roll(&slow, 2.0, 3.0)
    );
    if worst_roll(&fast, 7.0, 8.0) > 0.05 * worst_roll(&fast, 0.0, 1.0)
        || worst_roll(&slow, 2.0, 3.0) < 3.0 * worst_roll(&slow, 0.0, 1.0)
    {
        return Err("the benchmark's stability is not reproduced".into());
    }
    if e5.max(e3) > 1e-9 || r5.max(r3) > 1e-9 {
        return Err("energy or constraints drift".into());
    }

    std::fs::create_dir_all("out")?;
    let root = SVGBackend::new("out/bicycle.svg", (1100, 460)).into_drawing_area();
    root.fill(&WHITE)?;
    let panels = root.split_evenly((1, 2));
    for ((area, sol), (title, t_end)) in
        panels.iter().zip([&fast, &slow]).zip([("5 m/s: self-stable", 8.0), ("3 m/s: weave grows", 3.0)])
    {
        let limit = sol.states.iter().fold(0.0f64, |m, x| m.max(x[3].abs()).max(x[5].abs())) * 1.1;
        let mut chart = ChartBuilder::on(area)
            .caption(title, ("sans-serif", 19))
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(60)
            .build_cartesian_2d(0.0..t_end, -limit..limit)?;
        chart.configure_mesh().x_desc("t (s)").y_desc("angle (rad)").light_line_style(WHITE.mix(0.0)).draw()?;
        for (index, name, colour) in [(3, "roll φ", RGBColor(30, 90, 200)), (5, "steer δ", RGBColor(200, 60, 40))] {
            let style = ShapeStyle { color: colour.to_rgba(), filled: false, stroke_width: 2 };
            chart
                .draw_series(LineSeries::new(sol.iter().map(|(t, x)| (t, x[index])), style))?
                .label(name)
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 22, y)], style));
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperRight)
            .background_style(WHITE.mix(0.9))
            .border_style(BLACK)
            .draw()?;
    }
    root.present()?;
    println!("wrote out/bicycle.svg");
    Ok(())
}
