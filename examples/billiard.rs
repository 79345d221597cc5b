//! A billiard with dissipation in a shrinking disc (*Hybrid momentum maps*, Example 3; `docs/references.md`): a particle of mass m in
//! x² + y² ≤ f(t) = 2 − e^{t/10}, with Caldirola–Kanai damping L = (m/2) e^{ct/m} |v|², the corrected
//! cubic force F = 2c e^{ct/m}(xẏ − yẋ)(x dx + y dy) acting against the motion, and an elastic impact
//! law at the moving wall.
//!
//! Simulates t ∈ [0, 5] from the paper's rounded polar initial conditions for c = 0.005 and
//! c = 0.10, prints the impacts against reference run R3 of `docs/references.md` (counts, first impact times),
//! checks that μ = m e^{ct/m}(xẏ − yẋ) is a hybrid momentum map (conserved in flight, unchanged by
//! every impact) and that the moving wall gives kinetic energy at each impact, and writes the
//! paper's two panels, reduced trajectory r(t) and reconstructed planar path, to
//! `out/billiard_c<c>.svg`. The figure comes from the hybrid Routh reduction of the polar model
//! (θ cyclic; the reduced system integrates r at fixed μ, θ is reconstructed alongside, the full
//! impact law is applied at each impact), checked against the full Cartesian simulation.
//!
//! Run with `cargo run --release --example billiard`.

use plotters::prelude::*;
use routh::prelude::*;

/// *Hybrid momentum maps*, Example 3: billiard in the shrinking disc x² + y² ≤ f(t) = 2 − e^{t/10}, with
/// Caldirola–Kanai damping and the corrected cubic force (errata H11–H13 of `docs/references.md`), elastic moving wall.
#[derive(Mechanics)]
#[mechanics(
    coordinates(x, y),
    define(decay = (c / m * t).exp(), ang = x * dot(y) - y * dot(x), f = 2 - (t / 10).exp()),
    lagrangian = m / 2 * decay * (dot(x).powi(2) + dot(y).powi(2)),
    force(x = -2 * c * decay * ang * x, y = -2 * c * decay * ang * y),
    impact(name = wall, guard = f - x.powi(2) - y.powi(2), law = restitution(1)),
)]
struct Billiard {
    m: f64,
    c: f64,
}

/// The same system in polar coordinates (x, y) = r (cos θ, sin θ), reduced over the cyclic θ
/// (*Hybrid momentum maps*, §5: the time-dependent Routhian R = (m/2) e^{ct/m} ṙ² − μ² e^{−ct/m}/(2 m r²)).
#[derive(Mechanics)]
#[mechanics(
    coordinates(r, th),
    define(decay = (c / m * t).exp()),
    lagrangian = m / 2 * decay * (dot(r).powi(2) + (r * dot(th)).powi(2)),
    force(r = -2 * c * decay * r.powi(3) * dot(th)),
    impact(name = wall, guard = 2 - (t / 10).exp() - r.powi(2), law = restitution(1)),
    symmetry(cyclic(th)),
    reduce(routh(th), name = BilliardRadial),
)]
struct PolarBilliard {
    m: f64,
    c: f64,
}

const T_END: f64 = 5.0;

/// Cartesian state from a polar one.
fn cartesian(p: &SVector<f64, 4>) -> SVector<f64, 4> {
    let (r, th, rd, thd) = (p[0], p[1], p[2], p[3]);
    let (s, c) = th.sin_cos();
    SVector::<f64, 4>::new(r * c, r * s, rd * c - r * thd * s, rd * s + r * thd * c)
}

/// Runs the hybrid Routh reduction and returns its reconstruction as a Cartesian trajectory,
/// after checking it against the full Cartesian run `full` (impacts and final state).
fn reduced_run(
    c: f64,
    full: &HybridTrajectory<4>,
    options: &HybridOptions,
) -> Result<HybridTrajectory<4>, Box<dyn std::error::Error>> {
    let p = PolarBilliard { m: 1.0, c };
    let (r, rd, th, thd) = (0.5590, 2.8621, 1.1071, -3.0400);
    let (reduced, jumps) =
        p.run(p.state([r, th], [rd, thd])).span(0.0..T_END).reduced::<BilliardRadial>().options(options).go()?;
    let mut traj = reduced;
    traj.states = traj.states.iter().map(cartesian).collect();
    for i in &mut traj.impacts {
        i.pre = cartesian(&i.pre);
        i.post = cartesian(&i.post);
    }
    let mut worst: f64 = 0.0;
    for (a, b) in traj.impacts.iter().zip(&full.impacts) {
        worst = worst.max((a.t - b.t).abs()).max((a.post - b.post).norm());
    }
    let (_, _, xa) = traj.last().ok_or("empty reduced run")?;
    let (_, _, xb) = full.last().ok_or("empty full run")?;
    worst = worst.max((xa - xb).norm());
    let mu_change = jumps.iter().map(|j| (j.after[0] - j.before[0]).abs()).fold(0.0, f64::max);
    println!(
        "  hybrid Routh reduction over θ: {} impacts, μ = {:.7} kept at every impact (max change {mu_change:.1e}), \
         reduced + reconstruction vs full run: max difference {worst:.1e}",
        jumps.len(),
        jumps.first().map_or(f64::NAN, |j| j.before[0])
    );
    if traj.impacts.len() != full.impacts.len() || worst > 1e-8 {
        return Err(format!("c = {c}: reduced and full runs differ ({worst:e})").into());
    }
    Ok(traj)
}

/// The wall x² + y² = f(t) and its rate ḟ.
fn f(t: f64) -> f64 {
    2.0 - (t / 10.0).exp()
}
fn f_rate(t: f64) -> f64 {
    -(t / 10.0).exp() / 10.0
}

/// Reference run R3 of `docs/references.md` (Example 3, DOP853 at rtol = atol = 1e-12, rounded initial data).
struct Reference {
    /// c as written in the file name and title.
    label: &'static str,
    c: f64,
    impacts: usize,
    first: [f64; 8],
    /// r, ṙ, unwrapped θ at t = 5.
    end: (f64, f64, f64),
    min_r: f64,
    /// Physical angular momentum m r² θ̇ = μ e^{−ct/m} at t = 5.
    ang_end: f64,
}

const REFERENCES: [Reference; 2] = [
    Reference {
        label: "0.005",
        c: 0.005,
        impacts: 14,
        first: [0.141320, 0.689973, 1.207288, 1.693309, 2.148309, 2.572782, 2.967425, 3.333120],
        end: (0.516461, -5.339872, -32.547255),
        min_r: 0.1726,
        ang_end: -0.926488,
    },
    Reference {
        label: "0.10",
        c: 0.10,
        impacts: 10,
        first: [0.141872, 0.711817, 1.276603, 1.831475, 2.371242, 2.890492, 3.383876, 3.846452],
        end: (0.549320, 3.145740, -24.743868),
        min_r: 0.1740,
        ang_end: -0.576169,
    },
];

/// The paper's rounded polar initial conditions (r, ṙ, θ, θ̇) as a Cartesian state.
fn start(b: &Billiard) -> SVector<f64, 4> {
    let (r, rd, th, thd): (f64, f64, f64, f64) = (0.5590, 2.8621, 1.1071, -3.0400);
    let (s, c) = (th.sin(), th.cos());
    b.state([r * c, r * s], [rd * c - r * thd * s, rd * s + r * thd * c])
}

/// μ = m e^{ct/m}(xẏ − yẋ).
fn momentum_map(b: &Billiard, t: f64, x: &SVector<f64, 4>) -> f64 {
    b.m * (b.c * t / b.m).exp() * (x[0] * x[3] - x[1] * x[2])
}

/// Kinetic energy K = (m/2)|v|² (the generated `energy` is the Caldirola–Kanai E = e^{ct/m} K).
fn kinetic(b: &Billiard, x: &SVector<f64, 4>) -> f64 {
    0.5 * b.m * (x[2] * x[2] + x[3] * x[3])
}

/// Polar (r, ṙ) of a state.
fn polar(x: &SVector<f64, 4>) -> (f64, f64) {
    let r = x[0].hypot(x[1]);
    (r, (x[0] * x[2] + x[1] * x[3]) / r)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    std::fs::create_dir_all("out")?;
    let options = HybridOptions::default().rtol(1e-12).atol(1e-13).output(Output::Interval(0.002));
    let mut mismatches = Vec::new();
    for reference in &REFERENCES {
        let b = Billiard { m: 1.0, c: reference.c };
        let sol = b.run(start(&b)).span(0.0..T_END).options(&options).go()?;
        report(&b, &sol, reference)?;
        let reconstructed = reduced_run(reference.c, &sol, &options)?;
        let path = format!("out/billiard_c{}.svg", reference.label);
        plot(&b, &reconstructed, reference.label, &path)?;
        println!("  wrote {path}\n");
        if sol.impacts.len() != reference.impacts {
            mismatches.push(format!(
                "c = {}: {} impacts in [0, 5], reference {}",
                reference.c,
                sol.impacts.len(),
                reference.impacts
            ));
        }
    }
    kinetic_energy_cross_check(&options)?;
    if mismatches.is_empty() { Ok(()) } else { Err(mismatches.join("; ").into()) }
}

/// Prints the impacts and the state at t = 5 against the reference.
fn report(b: &Billiard, sol: &HybridTrajectory<4>, reference: &Reference) -> Result<(), Box<dyn std::error::Error>> {
    let x0 = sol.states[0];
    println!(
        "c = {}: {} impacts in [0, {T_END}] (reference {}), stop: {:?}",
        reference.label,
        sol.impacts.len(),
        reference.impacts,
        sol.stop
    );
    println!("  μ(0) = {:.7} (reference: −0.9499422)", momentum_map(b, 0.0, &x0));
    println!("  μ = m e^(ct/m)(xẏ − yẋ); K = (m/2)|v|²; every impact checked: ṙ⁺ = ḟ/r − ṙ⁻ (reflection in the");
    println!("  frame of the moving wall); ΔK err = ΔK − (m/2)(ḟ/r)(ḟ/r − 2ṙ⁻).");
    println!(
        "  {:>2}  {:>9}  {:>9}  {:>8}  {:>9}  {:>9}  {:>10}  {:>10}  {:>8}  {:>8}  {:>8}  {:>8}",
        "k", "t", "t − t_ref", "r", "ṙ⁻", "ṙ⁺", "μ⁻", "μ⁺ − μ⁻", "K⁻", "K⁺", "ΔK", "ΔK err"
    );
    for (k, imp) in sol.impacts.iter().enumerate() {
        let t = imp.t;
        let (r, rd_pre) = polar(&imp.pre);
        let (_, rd_post) = polar(&imp.post);
        let (mu_pre, mu_post) = (momentum_map(b, t, &imp.pre), momentum_map(b, t, &imp.post));
        let (k_pre, k_post) = (kinetic(b, &imp.pre), kinetic(b, &imp.post));
        // Reflection in the frame of the wall, ṙ⁺ = ḟ/r − ṙ⁻, gives ΔK = (m/2)(ḟ/r)(ḟ/r − 2ṙ⁻).
        let w = f_rate(t) / r;
        let dk_expected = 0.5 * b.m * w * (w - 2.0 * rd_pre);
        let reference_dt = reference.first.get(k).map_or("".to_owned(), |tr| format!("{:+.1e}", t - tr));
        println!(
            "  {:>2}  {t:>9.6}  {reference_dt:>9}  {r:>8.6}  {rd_pre:>9.5}  {rd_post:>9.5}  {mu_pre:>10.7}  {:>+10.1e}  {k_pre:>8.5}  {k_post:>8.5}  {:>+8.5}  {:>+8.1e}",
            k + 1,
            mu_post - mu_pre,
            k_post - k_pre,
            (k_post - k_pre) - dk_expected,
        );
        if (rd_post - (w - rd_pre)).abs() > 1e-9 {
            return Err(format!("impact {} at t = {t}: ṙ⁺ = {rd_post} is not ḟ/r − ṙ⁻ = {}", k + 1, w - rd_pre).into());
        }
    }
    // μ between impacts: conserved by the flow.
    let drift = sol.iter().map(|(t, _, x)| (momentum_map(b, t, x) - momentum_map(b, 0.0, &x0)).abs()).fold(0.0, f64::max);
    println!("  max |μ(t) − μ(0)| over all {} samples: {drift:.1e}", sol.len());

    // The state at t = 5 (θ unwrapped along the samples) and the smallest radius reached.
    let (t_end, _, x_end) = sol.last().ok_or("empty trajectory")?;
    let mut theta = x0[1].atan2(x0[0]);
    for w in sol.states.windows(2) {
        let step = w[1][1].atan2(w[1][0]) - w[0][1].atan2(w[0][0]);
        theta += (step + std::f64::consts::PI).rem_euclid(2.0 * std::f64::consts::PI) - std::f64::consts::PI;
    }
    let (r_end, rd_end) = polar(x_end);
    let (rr, rdr, thr) = reference.end;
    println!(
        "  at t = {t_end}: r = {r_end:.6} (reference {rr:.6}), ṙ = {rd_end:.6} ({rdr:.6}), θ = {theta:.6} ({thr:.6}, unwrapped)"
    );
    let ang = b.m * (x_end[0] * x_end[3] - x_end[1] * x_end[2]);
    println!("  physical angular momentum m r²θ̇ = μ e^(−ct/m) at t = {t_end}: {ang:.6} (reference {:.6})", reference.ang_end);
    println!("  min r over [0, {T_END}]: {:.4} (reference {:.4})", min_radius(sol), reference.min_r);
    if sol.stop != HybridStop::Finished {
        return Err(format!("c = {}: the simulation stopped early: {:?}", b.c, sol.stop).into());
    }
    Ok(())
}

/// The smallest r on the dense samples, refined by a parabola through each discrete minimum.
fn min_radius(sol: &HybridTrajectory<4>) -> f64 {
    let r: Vec<f64> = sol.states.iter().map(|x| polar(x).0).collect();
    let mut best = r.iter().copied().fold(f64::INFINITY, f64::min);
    for (k, w) in r.windows(3).enumerate() {
        let (h0, h1) = (sol.times[k + 1] - sol.times[k], sol.times[k + 2] - sol.times[k + 1]);
        if w[1] <= w[0] && w[1] <= w[2] && (h0 - h1).abs() < 1e-12 && h0 > 0.0 {
            let curvature = w[0] - 2.0 * w[1] + w[2];
            if curvature > 0.0 {
                best = best.min(w[1] - (w[2] - w[0]).powi(2) / (8.0 * curvature));
            }
        }
    }
    best
}

/// The reference kinetic energies at the first two impacts, from the exact Cartesian start
/// (x, y, ẋ, ẏ) = (0.25, 0.5, 2.8, 1.8) with c = 0.005.
fn kinetic_energy_cross_check(options: &HybridOptions) -> Result<(), Box<dyn std::error::Error>> {
    let b = Billiard { m: 1.0, c: 0.005 };
    let sol = b.run(b.state([0.25, 0.5], [2.8, 1.8])).span(0.0..0.8).options(options).go()?;
    print!("exact Cartesian start, c = 0.005: K at the first impacts");
    for (imp, (pre, post)) in sol.impacts.iter().zip([(5.53537, 5.86614), (5.83378, 6.20371)]) {
        print!("; t = {:.6}: {:.5} → {:.5} (reference {pre} → {post})", imp.t, kinetic(&b, &imp.pre), kinetic(&b, &imp.post));
    }
    println!();
    Ok(())
}

/// Two panels as the paper's Figures 2–3: reduced trajectory r(t) with the wall √f(t), and the
/// planar path inside the wall.
fn plot(b: &Billiard, sol: &HybridTrajectory<4>, c_label: &str, path: &str) -> Result<(), Box<dyn std::error::Error>> {
    let root = SVGBackend::new(path, (1400, 620)).into_drawing_area();
    root.fill(&WHITE)?;
    let root = root.titled(
        &format!("Billiard in the shrinking disc x² + y² ≤ 2 − exp(t/10), c = {c_label}, m = {}", b.m),
        ("sans-serif", 22),
    )?;
    let (left, right) = root.split_horizontally(640);
    let (margin, x_area, y_area) = (12, 45, 55);
    let axis_label = ("sans-serif", 16);
    let tick_label = ("sans-serif", 13);
    let tick = |v: &f64| format!("{:.1}", if v.abs() < 1e-9 { 0.0 } else { *v });
    let impacts: Vec<(f64, f64)> = sol.impacts.iter().map(|i| (i.t, polar(&i.pre).0)).collect();

    let left = left.titled("reduced trajectory r(t)", ("sans-serif", 19))?;
    let mut reduced = ChartBuilder::on(&left)
        .margin(margin)
        .x_label_area_size(x_area)
        .y_label_area_size(y_area)
        .build_cartesian_2d(0.0..T_END, 0.0..1.05)?;
    reduced
        .configure_mesh()
        .x_desc("t")
        .y_desc("r = √(x² + y²)")
        .axis_desc_style(axis_label)
        .label_style(tick_label)
        .y_label_formatter(&tick)
        .light_line_style(WHITE.mix(0.0))
        .draw()?;
    let wall_style = ShapeStyle { color: RGBColor(200, 40, 40).to_rgba(), filled: false, stroke_width: 2 };
    reduced
        .draw_series(LineSeries::new(
            (0..=500).map(|k| {
                let t = T_END * f64::from(k) / 500.0;
                (t, f(t).sqrt())
            }),
            wall_style,
        ))?
        .label("wall √f(t)")
        .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 24, y)], wall_style));
    let orbit_style = ShapeStyle { color: BLUE.to_rgba(), filled: false, stroke_width: 1 };
    reduced
        .draw_series(LineSeries::new(sol.iter().map(|(t, _, x)| (t, polar(x).0)), orbit_style))?
        .label("r(t)")
        .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 24, y)], orbit_style));
    reduced
        .draw_series(impacts.iter().map(|&p| Circle::new(p, 3, BLACK.filled())))?
        .label(format!("impacts ({})", impacts.len()))
        .legend(|(x, y)| Circle::new((x + 12, y), 3, BLACK.filled()));
    reduced
        .configure_series_labels()
        .position(SeriesLabelPosition::LowerLeft)
        .label_font(tick_label)
        .background_style(WHITE.mix(0.9))
        .border_style(BLACK)
        .draw()?;

    // Equal scales on both axes: y spans [−1.1, 1.1], x as far right as the panel reaches (the
    // legend goes there, clear of the path).
    let right = right.titled("reconstructed path (x, y)", ("sans-serif", 19))?;
    let (width, height) = right.dim_in_pixel();
    let scale = f64::from(height - 2 * margin - x_area) / 2.2;
    let x_max = -1.1 + f64::from(width - 2 * margin - y_area) / scale;
    let mut planar = ChartBuilder::on(&right)
        .margin(margin)
        .x_label_area_size(x_area)
        .y_label_area_size(y_area)
        .build_cartesian_2d(-1.1..x_max, -1.1..1.1)?;
    planar
        .configure_mesh()
        .x_desc("x")
        .y_desc("y")
        .axis_desc_style(axis_label)
        .label_style(tick_label)
        .x_labels(16)
        .x_label_formatter(&tick)
        .y_label_formatter(&tick)
        .light_line_style(WHITE.mix(0.0))
        .draw()?;
    let circle = |radius: f64| {
        (0..=360).map(move |k| {
            let a = std::f64::consts::TAU * f64::from(k) / 360.0;
            (radius * a.cos(), radius * a.sin())
        })
    };
    planar
        .draw_series(LineSeries::new(circle(f(0.0).sqrt()), wall_style))?
        .label(format!("wall at t = 0 (radius {:.3})", f(0.0).sqrt()))
        .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 24, y)], wall_style));
    let final_wall = ShapeStyle { color: RGBColor(200, 40, 40).to_rgba(), filled: false, stroke_width: 2 };
    planar
        .draw_series(DashedLineSeries::new(circle(f(T_END).sqrt()), 8, 5, final_wall))?
        .label(format!("wall at t = {T_END} (radius {:.3})", f(T_END).sqrt()))
        .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 8, y)], final_wall));
    planar
        .draw_series(LineSeries::new(sol.states.iter().map(|x| (x[0], x[1])), orbit_style))?
        .label("path")
        .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 24, y)], orbit_style));
    planar
        .draw_series(sol.impacts.iter().map(|i| Circle::new((i.pre[0], i.pre[1]), 3, BLACK.filled())))?
        .label("impacts")
        .legend(|(x, y)| Circle::new((x + 12, y), 3, BLACK.filled()));
    let x0 = sol.states[0];
    let green = RGBColor(0, 150, 0);
    planar
        .draw_series(std::iter::once(Circle::new((x0[0], x0[1]), 5, green.filled())))?
        .label("start (t = 0)")
        .legend(move |(x, y)| Circle::new((x + 12, y), 5, green.filled()));
    let (_, _, x_end) = sol.last().ok_or("empty trajectory")?;
    planar
        .draw_series(std::iter::once(Circle::new((x_end[0], x_end[1]), 5, green.stroke_width(2))))?
        .label(format!("end (t = {T_END})"))
        .legend(move |(x, y)| Circle::new((x + 12, y), 5, green.stroke_width(2)));
    planar
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperRight)
        .label_font(tick_label)
        .background_style(WHITE.mix(0.9))
        .border_style(BLACK)
        .draw()?;
    root.present()?;
    Ok(())
}
