//! The Lie group variational integrator of a model with an orientation (`orientation(b)` beside
//! `discrete(rule = midpoint)`; `runtime::discrete::oriented`): an asymmetric heavy top about its
//! tip, its attitude a quaternion stepped by the Cayley map, its momenta in the body's axes.
//!
//! 1. Two hundred seconds of the top's wobble: the variational integrator (fixed step h = 0.005)
//!    keeps the energy error in a band of order (ωh)² that does not widen, and the vertical
//!    spatial momentum e₃·R μ — the ground's rotations about the vertical leave L_d unchanged — to
//!    rounding; adaptive Dormand–Prince (rtol 1e-8) is more accurate over this span but drifts in
//!    both, its energy error growing about linearly with time.
//! 2. A spacecraft turned by body torques: iLQR plans a rest-to-rest 120° slew on the same kind of
//!    integrator (`ilqr_oriented`, the step's Jacobians in the chart (η, δμ)), its plan the
//!    integrator's own rollout.
//!
//! Writes `out/heavy_top_energy.svg`. Run with `cargo run --release --example heavy_top`.

use plotters::prelude::*;
use routh::nalgebra::{Matrix3, SMatrix, SVector, UnitQuaternion, Vector3};
use routh::prelude::*;
use routh::runtime::ilqr::{IlqrProblem, IlqrStatus, ilqr_oriented};
use routh::runtime::step::OrientedMap;

include!("../tests/common/top.rs");

top!(Top, midpoint);

include!("../tests/common/craft.rs");

fn attitude(q: &[f64]) -> UnitQuaternion<f64> {
    UnitQuaternion::from_quaternion(routh::nalgebra::Quaternion::new(q[0], q[1], q[2], q[3]))
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // 1. The top's energy and vertical momentum over 200 s.
    let top = Top { m: 0.8, l: 0.35, a1: 0.021, a2: 0.027, c: 0.034, g: 9.81 };
    let q0 = UnitQuaternion::from_euler_angles(0.6, -0.2, 0.3);
    let x0 = top.state([q0.w, q0.i, q0.j, q0.k], [0.8, -0.5, 6.0]);
    let (h, span) = (0.005, 200.0);
    let steps = (span / h) as usize;
    let vi = top.run_discrete(x0).step(h).steps(steps).go()?;
    // A node's state: ω = M⁻¹ μ at its attitude (M over the body rates depends on the attitude only).
    let state = |q: &SVector<f64, 4>, mu: &SVector<f64, 3>| {
        let at_rest = top.state([q[0], q[1], q[2], q[3]], [0.0; 3]);
        let w = top.mass_matrix(0.0, &at_rest).try_inverse().expect("M is regular") * mu;
        top.state([q[0], q[1], q[2], q[3]], [w.x, w.y, w.z])
    };
    let e0 = top.energy(0.0, &x0);
    let vertical = |q: &[f64], mu: &SVector<f64, 3>| (attitude(q) * mu).z;
    let j0 = vertical(x0.as_slice(), &top.momenta(0.0, &x0));
    let stride = 100;
    let vi_err: Vec<(f64, f64, f64)> = (0..vi.len())
        .step_by(stride)
        .map(|k| {
            let (q, mu) = (&vi.positions[k], &vi.momenta[k]);
            let e = top.energy(vi.times[k], &state(q, mu));
            (vi.times[k], ((e - e0) / e0).abs(), (vertical(q.as_slice(), mu) - j0).abs())
        })
        .collect();
    let opts = Options::default().rtol(1e-8).atol(1e-10).output(Output::Interval(0.5));
    let rk = top.run(x0).span(0.0..span).options(&opts).go()?;
    let rk_err: Vec<(f64, f64, f64)> = rk
        .iter()
        .map(|(t, x)| (t, ((top.energy(t, x) - e0) / e0).abs(), (vertical(x.as_slice(), &top.momenta(t, x)) - j0).abs()))
        .collect();
    let tenth = vi_err.len() / 10;
    let band = |r: &[(f64, f64, f64)]| r.iter().map(|e| e.1).fold(0.0, f64::max);
    let (early, late) = (band(&vi_err[..tenth]), band(&vi_err[vi_err.len() - tenth..]));
    let noether = vi_err.iter().map(|e| e.2).fold(0.0, f64::max);
    let (rk_end, rk_noether) = rk_err.last().map_or((f64::NAN, f64::NAN), |e| (e.1, e.2));
    let rk_at = |t: f64| rk_err.iter().find(|e| e.0 >= t - 1e-9).map_or((f64::NAN, f64::NAN), |e| (e.1, e.2));
    let (rk_early, rk_noether_early) = rk_at(20.0);
    println!("heavy top, {steps} midpoint steps of the Lie group integrator (h = {h}) over {span} s:");
    println!("  |ΔE|/E ≤ {early:.2e} over the first tenth, ≤ {late:.2e} over the last (bounded); e₃·Rμ kept to {noether:.1e}");
    println!(
        "  DOPRI5 (rtol 1e-8): |ΔE|/E = {rk_early:.2e} at 20 s, {rk_end:.2e} at {span} s (drifting, ×{:.1}); \
         e₃·Rμ off by {rk_noether_early:.1e}, then {rk_noether:.1e}",
        rk_end / rk_early
    );
    if late > 2.0 * early || noether > 1e-11 * j0.abs().max(1.0) {
        return Err(format!("the integrator drifted: energy {early:e} → {late:e}, vertical momentum {noether:e}").into());
    }

    // 2. A 120° slew planned by iLQR on the integrator.
    let craft = Craft { m: 3.0, i1: 1.5, i2: 2.5, i3: 4.0 };
    let map = OrientedMap::<_, 4, 3>::new(&craft);
    let (dt, horizon) = (0.05, 60);
    let goal_q = UnitQuaternion::from_scaled_axis(Vector3::new(1.0, 1.0, 0.0).normalize() * 120_f64.to_radians());
    let goal = SVector::<f64, 7>::from([goal_q.w, goal_q.i, goal_q.j, goal_q.k, 0.0, 0.0, 0.0]);
    let start = SVector::<f64, 7>::from([1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]);
    let problem = IlqrProblem::<7, 3, 6>::new(
        (0.0, dt, horizon),
        goal,
        SMatrix::zeros(),
        Matrix3::identity() * 0.3,
        SMatrix::identity() * 1e5,
    )
    .tolerance(1e-12);
    let plan = ilqr_oriented(&map, &problem, &start, &vec![SVector::zeros(); horizon])?;
    let end = plan.states[horizon];
    let miss = (attitude(&goal.as_slice()[..4]).inverse() * attitude(&end.as_slice()[..4])).angle();
    let rest = end.fixed_rows::<3>(4).norm();
    println!(
        "spacecraft slew of 120° about (1, 1, 0)/√2 in {} s by iLQR on the integrator: {:?} after {} iterations, \
         attitude {miss:.1e} rad and body momentum {rest:.1e} from rest at the goal",
        dt * horizon as f64,
        plan.status,
        plan.costs.len() - 1
    );
    if plan.status != IlqrStatus::Converged || miss > 1e-3 {
        return Err(format!("the slew was not planned: {:?}, {miss:e} rad off", plan.status).into());
    }

    std::fs::create_dir_all("out")?;
    let path = "out/heavy_top_energy.svg";
    let root = SVGBackend::new(path, (900, 500)).into_drawing_area();
    root.fill(&WHITE)?;
    let floor = 1e-16;
    let mut chart = ChartBuilder::on(&root)
        .caption("heavy top: energy and vertical momentum over 200 s", ("sans-serif", 20))
        .margin(14)
        .x_label_area_size(45)
        .y_label_area_size(65)
        .build_cartesian_2d((0.5f64..span).log_scale(), (floor..1e-1f64).log_scale())?;
    chart.configure_mesh().x_desc("t (s)").y_desc("|E − E₀| / E₀,  |e₃·Rμ − J₀|").light_line_style(WHITE.mix(0.0)).draw()?;
    let series = [
        (
            vi_err.iter().map(|e| (e.0, e.1)).collect::<Vec<_>>(),
            RGBColor(30, 90, 200),
            1,
            "Lie group VI, h = 0.005: energy (a band, bounded)",
        ),
        (vi_err.iter().map(|e| (e.0, e.2)).collect(), RGBColor(90, 170, 90), 1, "Lie group VI: e₃·Rμ (rounding)"),
        (rk_err.iter().map(|e| (e.0, e.1)).collect(), RGBColor(200, 60, 40), 2, "DOPRI5, rtol 1e-8: energy (drifting)"),
        (rk_err.iter().map(|e| (e.0, e.2)).collect(), RGBColor(220, 150, 30), 2, "DOPRI5: e₃·Rμ (drifting)"),
    ];
    for (points, color, width, label) in series {
        let style = ShapeStyle { color: color.to_rgba(), filled: false, stroke_width: width };
        chart
            .draw_series(LineSeries::new(points.into_iter().filter(|p| p.0 >= 0.5).map(|(t, e)| (t, e.max(floor))), style))?
            .label(label)
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 22, y)], style));
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::LowerRight)
        .background_style(WHITE.mix(0.9))
        .border_style(BLACK)
        .draw()?;
    root.present()?;
    println!("wrote {path}");
    Ok(())
}
