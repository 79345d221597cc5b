//! Attitude control of a satellite in the tangent space of SO(3): a rigid body turned by three
//! reaction-wheel torques, its attitude a quaternion in the state. A digital LQR is designed on
//! the RK4 step's Jacobians in the orientation's tangent chart (`rk4_step_tangent`: the body
//! rotation vector θ, its rate θ̇ = δω − ω × θ) about rest at the target attitude (its `.lqr`,
//! the discrete Riccati equation); the same design on the step in the quaternion state
//! (`rk4_step`) has no stabilising solution, since the
//! quaternion's scale is a direction of the state that no torque moves. Prints what it checks —
//! that refusal, the chart's closed-loop spectral radius, a small slew whose deviation from the
//! linear closed loop's prediction is of second order in its size, and a slew of 150° out of a
//! tumble brought to rest. Then the same slew planned by iLQR in the chart (`ilqr_tangent`: the
//! cost's attitude error and the policy's deviations in θ and θ̇ too) with the wheels' torques
//! limited, and flown by the full dynamics under the plan's own feedback. Writes
//! `out/satellite.svg`: the attitude error of both slews, the LQR slew's body rates and the
//! planned torques against time.
//!
//! ```sh
//! cargo run --release --example satellite
//! ```

use plotters::prelude::*;
use routh::nalgebra::{SMatrix, SVector, UnitQuaternion, Vector3};
use routh::prelude::*;
use routh::runtime::ilqr::{IlqrProblem, IlqrStatus};
use routh::runtime::mechanics::StateLayout;
use routh::runtime::step::rk4_step;

/// A rigid satellite with principal moments i1, i2, i3, torqued about its body axes by its wheels.
#[derive(Mechanics)]
#[mechanics(
    orientation(r),
    body(name = bus, mass = m, centre = [0, 0, 0], frame = r, inertia = diag(i1, i2, i3)),
    input(u1, u2, u3),
    force(r = [u1, u2, u3]),
    jacobian,
)]
pub struct Satellite {
    pub m: f64,
    pub i1: f64,
    pub i2: f64,
    pub i3: f64,
}

/// The controller's sample period, s.
const PERIOD: f64 = 0.1;
/// The planned slew's horizon, s, and the wheels' torque limit, N m.
const HORIZON: f64 = 30.0;
const LIMIT: f64 = 0.5;

/// The satellite's state layout: a quaternion, three body rates.
type Rest = StateLayout<4, 3, 7>;

/// The state's coordinates in the chart about rest at the identity, x ⊖ rest: θ = 2 log(±q)
/// (the shorter way round) and θ̇ = ω.
fn chart(x: &State<7>) -> SVector<f64, 6> {
    Rest::chart_difference(x, &State::<7>::from([1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]))
}

/// The state at rest-chart coordinates ξ: q = exp(θ/2), ω = θ̇.
fn from_chart(xi: &SVector<f64, 6>) -> State<7> {
    let q = UnitQuaternion::from_scaled_axis(Vector3::new(xi[0], xi[1], xi[2]));
    State::<7>::from([q.w, q.i, q.j, q.k, xi[3], xi[4], xi[5]])
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let sat = Satellite { m: 50.0, i1: 4.0, i2: 6.0, i3: 8.0 };
    let rest = sat.state([1.0, 0.0, 0.0, 0.0], [0.0; 3]);
    println!("satellite I = diag(4, 6, 8) kg m², wheels' torques held for {PERIOD} s by a digital LQR");

    // In the quaternion state the design is refused: the quaternion's scale moves with nothing.
    let plain = rk4_step(&sat, 0.0, &rest, &SVector::zeros(), PERIOD)?;
    let refused = plain.lqr(&SMatrix::identity(), &SMatrix::identity());
    println!(
        "DARE on the step in the quaternion state (7 × 7): {}",
        refused.as_ref().map_or_else(ToString::to_string, |_| "solved".into())
    );
    assert!(refused.is_err());

    // In the tangent chart it is an ordinary discrete LQR.
    let step = sat.rk4_step_tangent(0.0, &rest, [0.0; 3], PERIOD)?;
    let q = SMatrix::<f64, 6, 6>::from_diagonal(&SVector::<f64, 6>::from([1.0, 1.0, 1.0, 4.0, 4.0, 4.0]));
    let lqr = step.lqr(&q, &(SMatrix::identity() * 0.1))?;
    let gain = SMatrix::<f64, 3, 6>::from_column_slice(lqr.gain.as_slice());
    let closed = step.a - step.b * gain;
    let radius = closed.complex_eigenvalues().iter().map(|l| l.norm()).fold(0.0, f64::max);
    println!("DARE on the step in the tangent chart (6 × 6): closed-loop spectral radius {radius:.4}");
    assert!(radius < 1.0);
    let law = move |_t: f64, x: &State<7>| -(gain * chart(x));
    let options = Options::default().rtol(1e-11).atol(1e-12);

    // A small slew follows the linear closed loop, ξ_k ≈ (A − B K)^k ξ₀, to second order in its size.
    let deviation = |size: f64| -> Result<f64, Box<dyn std::error::Error>> {
        let xi0 = SVector::<f64, 6>::from([1.0, -2.0, 0.5, 0.3, 0.0, -0.4]) * size;
        let dense = options.clone().dense(true);
        let run = sat.run(from_chart(&xi0)).span(0.0..20.0 * PERIOD).options(&dense).sampled(PERIOD, law).go()?;
        let mut predicted = xi0;
        let mut worst: f64 = 0.0;
        for k in 0..=20 {
            let x = run.trajectory.at(k as f64 * PERIOD).ok_or("a sample inside the run")?;
            worst = worst.max((chart(&x) - predicted).amax());
            predicted = closed * predicted;
        }
        Ok(worst / xi0.amax())
    };
    let (small, smaller) = (deviation(2e-3)?, deviation(1e-3)?);
    println!(
        "small slews (|ξ₀| = 4e-3 and 2e-3): the run's largest deviation from the linear closed loop, relative, {small:.2e} \
         and {smaller:.2e}: ratio {:.2} (a deviation of second order halves with the size: 2)",
        small / smaller
    );
    assert!((small / smaller - 2.0).abs() < 0.2);

    // A slew of 150° out of a tumble.
    let axis = Vector3::new(1.0, 1.0, 0.0).normalize();
    let start = UnitQuaternion::from_scaled_axis(axis * 150f64.to_radians());
    let x0 = sat.state([start.w, start.i, start.j, start.k], [0.2, -0.15, 0.1]);
    let t_end = 60.0;
    let run = sat.run(x0).span(0.0..t_end).options(options.clone().output(Output::Interval(0.05))).sampled(PERIOD, law).go()?;
    let end = run.trajectory.end.1;
    let (angle, rates) = (chart(&end).fixed_rows::<3>(0).norm(), chart(&end).fixed_rows::<3>(3).norm());
    println!(
        "slew of 150° from ω = (0.2, −0.15, 0.1) rad/s: after {t_end} s the attitude error is {angle:.1e} rad, |ω| = {rates:.1e} rad/s"
    );
    assert!(angle < 1e-6 && rates < 1e-6);
    let peak = run.inputs.iter().map(|(_, u)| u.amax()).fold(0.0, f64::max);
    println!("largest wheel torque {peak:.2} N m");

    // The same slew planned: iLQR in the tangent chart (the step's Jacobians, the cost's attitude
    // error and the policy's all in θ and θ̇), the wheels limited to ±LIMIT, rest at the target
    // within HORIZON; then flown by the full dynamics under the plan's own policy
    // u_k + K_k (x ⊖ x̄_k), sampled every PERIOD.
    let steps = (HORIZON / PERIOD).round() as usize;
    let running = SMatrix::<f64, 6, 6>::from_diagonal(&SVector::<f64, 6>::from([0.02, 0.02, 0.02, 0.2, 0.2, 0.2]));
    let problem = IlqrProblem::new((0.0, PERIOD, steps), rest, running, SMatrix::identity() * 0.1, SMatrix::identity() * 1e4)
        .limits(SVector::repeat(-LIMIT), SVector::repeat(LIMIT));
    // The guess: the LQR's law saturated at the limits, rolled out by the step. iLQR is local: from
    // zero torques the guess tumbles on through more than a turn, and the plan it improves
    // keeps winding (a stationary point of another class of paths on SO(3)).
    let mut guess = Vec::with_capacity(steps);
    let mut x = x0;
    for k in 0..steps {
        let u = law(k as f64 * PERIOD, &x).map(|v| v.clamp(-LIMIT, LIMIT));
        x = rk4_step(&sat, k as f64 * PERIOD, &x, &u, PERIOD)?.next;
        guess.push(u);
    }
    let plan = sat.ilqr_tangent(&problem, &x0, &guess)?;
    let planned_end = chart(&plan.states[steps]);
    println!(
        "planned slew (iLQR in the chart, |u| ≤ {LIMIT} N m, {HORIZON} s): {:?} after {} iterations, J {:.4e} → {:.4e}, \
         the plan's end {:.1e} rad from the target, {:.1e} rad/s",
        plan.status,
        plan.costs.len() - 1,
        plan.costs[0],
        plan.cost(),
        planned_end.fixed_rows::<3>(0).norm(),
        planned_end.fixed_rows::<3>(3).norm()
    );
    assert_eq!(plan.status, IlqrStatus::Converged);
    let clamped = plan.inputs.iter().flat_map(|u| u.iter()).filter(|u| u.abs() >= LIMIT * (1.0 - 1e-12)).count();
    println!("{clamped} of the plan's {} torques at their limit", 3 * steps);
    let policy = plan.clone();
    let flown = move |t: f64, x: &State<7>| {
        let k = ((t / PERIOD).round() as usize).min(steps - 1);
        let u = policy.inputs[k] + policy.gains[k] * Rest::chart_difference::<6>(x, &policy.states[k]);
        u.map(|v| v.clamp(-LIMIT, LIMIT))
    };
    let flight =
        sat.run(x0).span(0.0..HORIZON).options(options.dense(true).output(Output::Interval(0.05))).sampled(PERIOD, flown).go()?;
    let flown_end = chart(&flight.trajectory.end.1);
    let apart = (0..=steps)
        .filter_map(|k| flight.trajectory.at(k as f64 * PERIOD).map(|x| Rest::chart_difference::<6>(&x, &plan.states[k]).amax()))
        .fold(0.0, f64::max);
    println!(
        "flown by the full dynamics under the plan's policy: {:.1e} rad from the target after {HORIZON} s, at most {apart:.1e} \
         from the plan (RK4's error over a {PERIOD} s step)",
        flown_end.fixed_rows::<3>(0).norm()
    );
    assert!(flown_end.fixed_rows::<3>(0).norm() < 1e-2 && apart < 1e-4);

    std::fs::create_dir_all("out")?;
    let path = "out/satellite.svg";
    let root = SVGBackend::new(path, (1500, 420)).into_drawing_area();
    root.fill(&WHITE)?;
    let panels = root.split_evenly((1, 3));
    let samples: Vec<(f64, SVector<f64, 6>)> = run.trajectory.iter().map(|(t, x)| (t, chart(x))).collect();
    let mut attitude = ChartBuilder::on(&panels[0])
        .caption("attitude error |θ| (degrees)", ("sans-serif", 18))
        .margin(10)
        .x_label_area_size(35)
        .y_label_area_size(45)
        .build_cartesian_2d(0.0..t_end, 0.0..160.0)?;
    attitude.configure_mesh().x_desc("t (s)").draw()?;
    attitude
        .draw_series(LineSeries::new(
            samples.iter().map(|(t, xi)| (*t, xi.fixed_rows::<3>(0).norm().to_degrees())),
            BLACK.stroke_width(2),
        ))?
        .label("LQR")
        .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], BLACK.stroke_width(2)));
    attitude
        .draw_series(LineSeries::new(
            flight.trajectory.iter().map(|(t, x)| (t, chart(x).fixed_rows::<3>(0).norm().to_degrees())),
            BLUE.stroke_width(2),
        ))?
        .label(format!("iLQR plan flown, |u| ≤ {LIMIT} N m"))
        .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], BLUE.stroke_width(2)));
    attitude.configure_series_labels().border_style(BLACK).background_style(WHITE).draw()?;
    let top = 1.1 * samples.iter().map(|(_, xi)| xi.fixed_rows::<3>(3).amax()).fold(0.0, f64::max);
    let mut body = ChartBuilder::on(&panels[1])
        .caption("LQR slew: body rates ω₁, ω₂, ω₃ (rad/s)", ("sans-serif", 18))
        .margin(10)
        .x_label_area_size(35)
        .y_label_area_size(45)
        .build_cartesian_2d(0.0..t_end, -top..top)?;
    body.configure_mesh().x_desc("t (s)").draw()?;
    for (k, colour) in [(3, RED), (4, BLUE), (5, GREEN)] {
        body.draw_series(LineSeries::new(samples.iter().map(|(t, xi)| (*t, xi[k])), colour.stroke_width(2)))?;
    }
    let mut torques = ChartBuilder::on(&panels[2])
        .caption("planned wheel torques (N m)", ("sans-serif", 18))
        .margin(10)
        .x_label_area_size(35)
        .y_label_area_size(45)
        .build_cartesian_2d(0.0..HORIZON, -1.2 * LIMIT..1.2 * LIMIT)?;
    torques.configure_mesh().x_desc("t (s)").draw()?;
    for (k, colour) in [(0, RED), (1, BLUE), (2, GREEN)] {
        torques.draw_series(LineSeries::new(
            plan.inputs.iter().enumerate().flat_map(|(j, u)| [(j as f64 * PERIOD, u[k]), ((j + 1) as f64 * PERIOD, u[k])]),
            colour.stroke_width(2),
        ))?;
    }
    root.present()?;
    println!("wrote {path}");
    Ok(())
}
