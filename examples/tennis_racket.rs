//! The tennis-racket (Dzhanibekov) effect: a free rigid body spun near its intermediate principal
//! axis flips over and over. The orientation is a state (`orientation(r)`: a quaternion with the
//! body angular velocity), so the motion runs through every attitude without the singularities of
//! Euler angles. Prints what it checks — the flip period against the closed form 2K(m)/rate
//! (Landau–Lifshitz §37), energy and spatial angular momentum — and writes
//! `out/tennis_racket.svg`: the body angular velocity against time with the Jacobi-elliptic solution.
//!
//! ```sh
//! cargo run --release --example tennis_racket
//! ```

#[path = "models/elliptic.rs"]
mod elliptic;

use elliptic::FreeBodySolution;
use plotters::prelude::*;
use routh::nalgebra::{Matrix3, Quaternion, UnitQuaternion, Vector3};
use routh::prelude::*;

/// A free rigid body with principal moments i1 < i2 < i3.
#[derive(Mechanics)]
#[mechanics(
    orientation(r),
    body(name = racket, mass = m, centre = [0, 0, 0], frame = r, inertia = diag(i1, i2, i3)),
    symmetry(lx = rotation(r, [1, 0, 0]), ly = rotation(r, [0, 1, 0]), lz = rotation(r, [0, 0, 1])),
)]
pub struct Racket {
    pub m: f64,
    pub i1: f64,
    pub i2: f64,
    pub i3: f64,
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let racket = Racket { m: 1.0, i1: 1.0, i2: 2.0, i3: 3.0 };
    let (i1, i2, i3) = (racket.i1, racket.i2, racket.i3);
    // Spun about the intermediate axis, slightly off: ω₂ = 0 at t = 0 on a path near the separatrix.
    let (w1, w3) = (1.0, 0.58);
    let x0 = racket.state([1.0, 0.0, 0.0, 0.0], [w1, 0.0, w3]);
    let energy = 0.5 * (i1 * w1 * w1 + i3 * w3 * w3);
    let closed = FreeBodySolution::new([i1, i2, i3], w1, w3);
    let half_period = closed.flip_period();
    let t_end = 4.5 * half_period;
    let options = Options::default().rtol(1e-12).atol(1e-13).output(Output::Interval(t_end / 2000.0));
    let flips = [Event::new("flip", |_t: f64, x: &SVector<f64, 7>| x[5])];
    let sol = racket.run(x0).span(0.0..t_end).events(&flips).options(&options).go()?;
    println!("free body I = (1, 2, 3) spun near its intermediate axis: ω(0) = ({w1}, 0, {w3}), m = {:.6}", closed.m);
    let mut worst_flip: f64 = 0.0;
    for (j, e) in sol.events.iter().enumerate() {
        let expected = (j + 1) as f64 * half_period;
        worst_flip = worst_flip.max((e.t - expected).abs());
        println!("  flip {}: t = {:.10} s (closed form {expected:.10} s)", j + 1, e.t);
    }
    let inertia = Matrix3::from_diagonal(&Vector3::new(i1, i2, i3));
    let spatial = |x: &SVector<f64, 7>| {
        UnitQuaternion::from_quaternion(Quaternion::new(x[0], x[1], x[2], x[3])) * (inertia * Vector3::new(x[4], x[5], x[6]))
    };
    let (l0, mut dl, mut de, mut dw): (Vector3<f64>, f64, f64, f64) = (spatial(&x0), 0.0, 0.0, 0.0);
    for (t, x) in sol.iter() {
        dw = dw.max((Vector3::new(x[4], x[5], x[6]) - Vector3::from(closed.omega(t))).norm());
        dl = dl.max((spatial(x) - l0).norm() / l0.norm());
        de = de.max((racket.energy(t, x) - energy).abs() / energy);
        let j = Vector3::new(racket.lx_momentum(t, x), racket.ly_momentum(t, x), racket.lz_momentum(t, x));
        dl = dl.max((j - l0).norm() / l0.norm());
    }
    println!(
        "  largest flip-time error {worst_flip:.1e} s; |ω − ω_elliptic| ≤ {dw:.1e}; |ΔL|/|L| ≤ {dl:.1e} (also by the generated momentum maps); |ΔE|/E ≤ {de:.1e}"
    );
    if sol.events.len() != 4 || worst_flip > 1e-8 * t_end || dw > 1e-8 || dl > 1e-10 || de > 1e-10 {
        return Err("the closed forms are not reproduced".into());
    }

    std::fs::create_dir_all("out")?;
    let root = SVGBackend::new("out/tennis_racket.svg", (1000, 480)).into_drawing_area();
    root.fill(&WHITE)?;
    let top = closed.amplitudes.iter().fold(0.0f64, |a, &b| a.max(b)) * 1.15;
    let mut chart = ChartBuilder::on(&root)
        .caption("tennis-racket flips: body angular velocity (lines) and the elliptic solution (dots)", ("sans-serif", 18))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(55)
        .build_cartesian_2d(0.0..t_end, -top..top)?;
    chart.configure_mesh().x_desc("t (s)").y_desc("ω (rad/s)").light_line_style(WHITE.mix(0.0)).draw()?;
    let colours = [RGBColor(30, 90, 200), RGBColor(200, 60, 40), RGBColor(40, 150, 60)];
    for (k, colour) in colours.into_iter().enumerate() {
        let style = ShapeStyle { color: colour.to_rgba(), filled: false, stroke_width: 2 };
        chart
            .draw_series(LineSeries::new(sol.iter().map(|(t, x)| (t, x[4 + k])), style))?
            .label(format!("ω{}", k + 1))
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 22, y)], style));
        chart.draw_series((0..=90).map(|i| {
            let t = t_end * f64::from(i) / 90.0;
            Circle::new((t, closed.omega(t)[k]), 2, colour.filled())
        }))?;
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::LowerRight)
        .background_style(WHITE.mix(0.9))
        .border_style(BLACK)
        .draw()?;
    root.present()?;
    println!("wrote out/tennis_racket.svg");
    Ok(())
}
