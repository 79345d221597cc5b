//! A rolling eccentric cylinder on a spring-supported plane: a contact (Herglotz) Lagrangian with
//! impulsive constraints (*Contact impulsive constraints*, §3.1 and Example 2; reference run R5 of `docs/references.md`).
//!
//! q = (x, y, φ, h): the cylinder's centre of mass, its angle, and the plane's displacement; the
//! external force linear in the velocities is the paper's +βz in the Lagrangian, so that the
//! Herglotz equations read M q̈ = … + β p and the energy obeys dE_L/dt = β E_L (β > 0 feeds energy
//! in — erratum C6 (E13) of `docs/references.md`: the paper calls it dissipation; β < 0 damps). In flight the
//! cylinder falls freely; at touchdown (Ψ = y − h − γ cos φ − r = 0, erratum E5) its velocity is
//! projected with the kinetic metric onto the rolling constraints (eq. 21); in stance it rolls on
//! the moving plane, and it lifts off when the normal multiplier μ₂ falls through zero.
//!
//! The example checks reference run R5 of `docs/references.md` (touchdown, projection, Carnot loss, stance
//! energies and multipliers), locates a liftoff, and writes `out/cylinder_trajectory.svg` (the
//! centre of mass's path, and the heights of a bouncing run) and `out/cylinder_energy.svg` (E_L
//! with its exponential envelopes).
//!
//! Run with `cargo run --release --example cylinder`.

use plotters::prelude::*;
use routh::prelude::*;

#[derive(Mechanics)]
#[mechanics(
    coordinates(x, y, phi, h),
    action(z),
    lagrangian = m / 2 * (dot(x).powi(2) + dot(y).powi(2)) + mp / 2 * dot(h).powi(2) + i / 2 * dot(phi).powi(2)
        - k / 2 * h.powi(2) - m * g * y - mp * g * h + beta * z,
    mode(aerial),
    mode(stance, constraint(roll = dx - (r + gamma * phi.cos()) * dphi, normal = dy - dh + gamma * phi.sin() * dphi)),
    transition(aerial -> stance, name = touchdown, guard = y - h - gamma * phi.cos() - r, law = project),
    transition(stance -> aerial, name = liftoff, guard = multiplier(normal), law = map()),
)]
struct Cylinder {
    m: f64,
    mp: f64,
    i: f64,
    r: f64,
    gamma: f64,
    k: f64,
    g: f64,
    beta: f64,
}

/// The same cylinder with the frictionless Newton impact of §3.2 on Ψ (eq. 13, restitution α).
#[derive(Mechanics)]
#[mechanics(
    coordinates(x, y, phi, h),
    action(z),
    lagrangian = m / 2 * (dot(x).powi(2) + dot(y).powi(2)) + mp / 2 * dot(h).powi(2) + i / 2 * dot(phi).powi(2)
        - k / 2 * h.powi(2) - m * g * y - mp * g * h + beta * z,
    impact(name = ground, guard = y - h - gamma * phi.cos() - r, law = restitution(alpha)),
)]
struct NewtonCylinder {
    m: f64,
    mp: f64,
    i: f64,
    r: f64,
    gamma: f64,
    k: f64,
    g: f64,
    beta: f64,
    alpha: f64,
}

/// The parameters of reference run R5 (`docs/references.md`; the paper gives none).
fn cylinder(beta: f64) -> Cylinder {
    Cylinder { m: 1.0, mp: 5.0, i: 0.1, r: 0.5, gamma: 0.1, k: 100.0, g: 9.81, beta }
}

/// The initial state of reference run R5: the plane at rest in equilibrium, the cylinder 0.5 above it.
fn start(c: &Cylinder) -> ModeState<9> {
    let h0 = -c.mp * c.g / c.k;
    let phi0: f64 = 0.3;
    c.aerial_state([0.0, h0 + c.r + c.gamma * phi0.cos() + 0.5, phi0, h0], [0.5, 0.0, 2.0, 0.0], 0.0)
}

const T_END: f64 = 3.0;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let options = HybridOptions::default().rtol(1e-12).atol(1e-13);
    println!("rolling eccentric cylinder on a springy plane: m = 1, M = 5, I = 0.1, r = 0.5, γ = 0.1, k = 100, g = 9.81");
    println!("z decouples (L = T − V + βz): {}", CylinderAerial::ACTION_DECOUPLED);

    // Reference run R5's table and the stance values (erratum C4).
    let table = [
        (
            0.05,
            0.3304925264,
            0.9664765248,
            -5.8652571871,
            [0.5083309566, -3.2690673543, 2.0333238262, 0.0],
            -3.1017474184,
            [0.0, -2.8459196649, -3.7945595532],
            [0.9517900152, -0.6620603220, 1.7093308273, -0.5214014065],
            -4.1814679413,
        ),
        (
            -0.05,
            0.3321273431,
            0.9587696617,
            -5.6741191691,
            [0.4917653792, -3.2312651904, 1.9670615169, 0.0],
            -3.0702640919,
            [0.0, -2.7900303179, -3.7200404239],
            [0.9255312363, -0.6517875396, 1.6602864496, -0.5158955302],
            -4.0910049271,
        ),
    ];
    let mut worst: f64 = 0.0;
    for (beta, t1, phi1, e_pre, v_pre, dpsi, newton, v_post, dt_kin) in table {
        let c = cylinder(beta);
        let sol = c.run(start(&c)).span(0.0..t1 + 0.5).options(&options).go()?;
        let td = &sol.impacts[0];
        let dv = (0..4).map(|j| (td.post[4 + j] - v_post[j]).abs()).fold(0.0, f64::max);
        let dv_pre = (0..4).map(|j| (td.pre[4 + j] - v_pre[j]).abs()).fold(0.0, f64::max);
        let d_psi = td.pre[5] - td.pre[7] + c.gamma * td.pre[2].sin() * td.pre[6];
        println!("β = {beta:+}: touchdown t₁ = {:.10} (reference {t1}, error {:.1e})", td.t, td.t - t1);
        println!(
            "  φ(t₁) error {:.1e}, E_L(t₁⁻) error {:.1e}, q̇⁻ largest error {dv_pre:.1e}, dΨ(q̇⁻) = {d_psi:.10} (error {:.1e})",
            td.pre[2] - phi1,
            td.energy_before - e_pre,
            d_psi - dpsi
        );
        worst = worst.max((td.pre[2] - phi1).abs()).max((td.energy_before - e_pre).abs()).max(dv_pre).max((d_psi - dpsi).abs());
        let mut losses = Vec::new();
        for (alpha, loss) in [1.0, 0.5, 0.0].into_iter().zip(newton) {
            let n = NewtonCylinder { m: c.m, mp: c.mp, i: c.i, r: c.r, gamma: c.gamma, k: c.k, g: c.g, beta, alpha };
            let x0 = start(&c).state;
            let run = n
                .run(n.state([x0[0], x0[1], x0[2], x0[3]], [x0[4], x0[5], x0[6], x0[7]], 0.0))
                .span(0.0..t1 + 1e-3)
                .options(&options)
                .go()?;
            let jump = run.impacts.first().ok_or("no Newton impact")?.energy_jump();
            losses.push(format!("α = {alpha}: {jump:.10} (error {:.1e})", jump - loss));
            worst = worst.max((jump - loss).abs());
        }
        println!("  Newton's law on Ψ (eq. 13), ΔE_L: {}", losses.join(", "));
        println!(
            "  projected q̇⁺ = ({:.10}, {:.10}, {:.10}, {:.10}), largest error {dv:.1e}",
            td.post[4], td.post[5], td.post[6], td.post[7]
        );
        println!(
            "  ΔE_L = ΔT = {:.10} (reference {dt_kin}, error {:.1e}); z kept: {}",
            td.energy_jump(),
            td.energy_jump() - dt_kin,
            td.pre[8] == td.post[8]
        );
        worst = worst.max((td.t - t1).abs()).max(dv).max((td.energy_jump() - dt_kin).abs());
        if beta > 0.0 {
            let mu = c.stance().constraint_forces(td.t, &td.post)?;
            let (t, _, x) = sol.last().expect("samples");
            let e = c.stance().energy(t, x);
            println!(
                "  stance: E_L(t₁⁺) = {:.10} (reference −10.0467251288), E_L(t₁ + 0.5) = {e:.10} (reference −10.3010591863)",
                td.energy_after
            );
            println!("  multipliers just after touchdown μ = ({:.7}, {:.7}) (reference 0.8247466, 7.9054716)", mu[0], mu[1]);
            worst = worst.max((td.energy_after + 10.0467251288).abs()).max((e + 10.3010591863).abs());
            worst = worst.max((mu[0] - 0.8247466).abs().max((mu[1] - 7.9054716).abs()) - 5e-8);
        }
    }
    println!("largest deviation from reference run R5: {worst:.1e}");
    if worst > 1e-7 {
        return Err(format!("the reference values are not reproduced (deviation {worst:.1e})").into());
    }

    // Long runs from the reference start, damped and anti-damped: E_L on each arc follows
    // E_L(t_a) e^{β (t − t_a)} (G1), and drops by ΔT at touchdown.
    let dense = options.clone().output(Output::Interval(0.002));
    let mut runs = Vec::new();
    for beta in [-0.05, 0.05] {
        let c = cylinder(beta);
        let sol = c.run(start(&c)).span(0.0..T_END).options(&dense).go()?;
        let mut law: f64 = 0.0;
        let mut arc_start = (0.0, c.aerial().energy(0.0, &sol.states[0]));
        let mut series = Vec::new();
        for (k, (t, mode, x)) in sol.iter().enumerate() {
            let e = if mode == Cylinder::AERIAL { c.aerial().energy(t, x) } else { c.stance().energy(t, x) };
            if k > 0 && sol.times[k - 1] == t {
                arc_start = (t, e); // the post-impact sample opens the next arc
            }
            law = law.max((e - arc_start.1 * (beta * (t - arc_start.0)).exp()).abs());
            series.push((t, x[0], x[1], e, arc_start));
        }
        println!(
            "β = {beta:+}: modes {:?}, energy law E_L(t_a)e^(β(t − t_a)) held to {law:.1e} over {T_END} s",
            sol.mode_sequence()
        );
        runs.push((beta, series));
    }

    // A bouncing run: the plane starts compressed and throws the cylinder, which lifts off when
    // μ₂ falls through zero and lands again. The cylinder is concentric here (γ = 0): for γ ≠ 0
    // the rolling constraint's tangential force μ₁ does not vanish with μ₂, so a real eccentric
    // cylinder slips before it lifts off (the friction cone |μ₁| ≤ c μ₂ fails first; the paper's
    // stance set requires only μ₁, μ₂ > 0, erratum E24) and a release of both constraints at
    // μ₂ = 0 would drive the rim into the plane.
    let c = Cylinder { gamma: 0.0, ..cylinder(0.0) };
    let h0 = -(c.m + c.mp) * c.g / c.k - 0.8;
    let phi0: f64 = 0.0;
    let (s, co) = phi0.sin_cos();
    let dphi = 1.0;
    let x0 = c.stance_state(
        [0.0, h0 + c.r + c.gamma * co, phi0, h0],
        [(c.r + c.gamma * co) * dphi, -c.gamma * s * dphi, dphi, 0.0],
        0.0,
    );
    let bounce = c.run(x0).span(0.0..T_END).options(&dense).go()?;
    println!("bouncing run (γ = 0, β = 0, plane compressed by 0.8 from equilibrium): {:?}", bounce.stop);
    for imp in &bounce.impacts {
        let note = if imp.guard == "liftoff" {
            let mu = c.stance().constraint_forces(imp.t, &imp.pre)?;
            format!("μ₂ = {:.1e}", mu[1])
        } else {
            format!("ΔE_L = {:.4}", imp.energy_jump())
        };
        println!("  {:>9} at t = {:.6}  ({note})", imp.guard, imp.t);
    }

    std::fs::create_dir_all("out")?;
    let path = "out/cylinder_trajectory.svg";
    let root = SVGBackend::new(path, (1100, 460)).into_drawing_area();
    root.fill(&WHITE)?;
    let (left, right) = root.split_horizontally(560);
    let colours = [RGBColor(30, 90, 200), RGBColor(200, 60, 40)];
    let (xmax, ymin, ymax) = runs
        .iter()
        .flat_map(|(_, s)| s.iter())
        .fold((0.0f64, f64::INFINITY, f64::NEG_INFINITY), |a, p| (a.0.max(p.1), a.1.min(p.2), a.2.max(p.2)));
    let mut chart = ChartBuilder::on(&left)
        .caption("centre of mass (x, y)", ("sans-serif", 19))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(55)
        .build_cartesian_2d(-0.05..xmax * 1.05, ymin - 0.05..ymax + 0.05)?;
    chart.configure_mesh().x_desc("x").y_desc("y").light_line_style(WHITE.mix(0.0)).draw()?;
    for ((beta, series), colour) in runs.iter().zip(colours) {
        let style = ShapeStyle { color: colour.to_rgba(), filled: false, stroke_width: 2 };
        chart
            .draw_series(LineSeries::new(series.iter().map(|p| (p.1, p.2)), style))?
            .label(format!("β = {beta:+}"))
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 22, y)], style));
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperRight)
        .background_style(WHITE.mix(0.9))
        .border_style(BLACK)
        .draw()?;
    let (lo, hi) = bounce.states.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |a, x| (a.0.min(x[3]), a.1.max(x[1])));
    let mut chart = ChartBuilder::on(&right)
        .caption("bouncing run: cylinder y and plane h", ("sans-serif", 19))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(55)
        .build_cartesian_2d(0.0..T_END, lo - 0.05..hi + 0.05)?;
    chart.configure_mesh().x_desc("t").y_desc("height").light_line_style(WHITE.mix(0.0)).draw()?;
    let y_style = ShapeStyle { color: colours[0].to_rgba(), filled: false, stroke_width: 2 };
    let h_style = ShapeStyle { color: colours[1].to_rgba(), filled: false, stroke_width: 2 };
    chart
        .draw_series(LineSeries::new(bounce.iter().map(|(t, _, x)| (t, x[1])), y_style))?
        .label("y (centre of mass)")
        .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 22, y)], y_style));
    chart
        .draw_series(LineSeries::new(bounce.iter().map(|(t, _, x)| (t, x[3])), h_style))?
        .label("h (plane)")
        .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 22, y)], h_style));
    chart
        .draw_series(bounce.impacts.iter().map(|i| {
            let style = if i.guard == "liftoff" { BLACK.filled() } else { RGBColor(120, 120, 120).filled() };
            Circle::new((i.t, i.pre[1]), 4, style)
        }))?
        .label("liftoff (μ₂ = 0) / touchdown")
        .legend(|(x, y)| Circle::new((x + 11, y), 4, BLACK.filled()));
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::LowerRight)
        .background_style(WHITE.mix(0.9))
        .border_style(BLACK)
        .draw()?;
    root.present()?;
    println!("wrote {path}");

    let path = "out/cylinder_energy.svg";
    let root = SVGBackend::new(path, (900, 480)).into_drawing_area();
    root.fill(&WHITE)?;
    let (emin, emax) =
        runs.iter().flat_map(|(_, s)| s.iter()).fold((f64::INFINITY, f64::NEG_INFINITY), |a, p| (a.0.min(p.3), a.1.max(p.3)));
    let mut chart = ChartBuilder::on(&root)
        .caption("contact energy E_L and its envelopes E_L(tₐ)·e^(β(t − tₐ))", ("sans-serif", 20))
        .margin(14)
        .x_label_area_size(45)
        .y_label_area_size(60)
        .build_cartesian_2d(0.0..T_END, emin - 0.5..emax + 0.5)?;
    chart.configure_mesh().x_desc("t").y_desc("E_L").light_line_style(WHITE.mix(0.0)).draw()?;
    for ((beta, series), colour) in runs.iter().zip(colours) {
        let style = ShapeStyle { color: colour.to_rgba(), filled: false, stroke_width: 2 };
        chart
            .draw_series(LineSeries::new(series.iter().map(|p| (p.0, p.3)), style))?
            .label(format!("E_L, β = {beta:+}"))
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 22, y)], style));
        // The envelope of the arc in progress, continued over the whole run from its start.
        let dashed = ShapeStyle { color: colour.mix(0.6), filled: false, stroke_width: 1 };
        let mut starts: Vec<(f64, f64)> = series.iter().map(|p| p.4).collect();
        starts.dedup();
        for (ta, ea) in starts {
            let b = *beta;
            chart.draw_series(DashedLineSeries::new(
                (0..=100).map(|k| {
                    let t = k as f64 / 100.0 * T_END;
                    (t, ea * (b * (t - ta)).exp())
                }),
                6,
                4,
                dashed,
            ))?;
        }
    }
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
