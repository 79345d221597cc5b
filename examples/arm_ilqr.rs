//! Iterative LQR on a six-joint arm read from its URDF file (`tests/robots/arm6.urdf`, a UR-type
//! arm): tracking a minimum-jerk path in joint space from rest to rest in 1.2 s, planned over the
//! RK4 step map with its exact Jacobians (`runtime::step::rk4_step`, from the generated model's
//! analytic derivatives of the inverse dynamics along its links) and run back by the adaptive
//! integrator under the plan's feedback policy, sampled and held like a digital controller.
//!
//! The cost is J = Σ ½ |x_k − x*_k|²_Q + ½ |u_k − u*_k|²_R + ½ |x_N − x*_N|²_{Q_f} with x*_k the path
//! and u*_k its inverse dynamics (`inverse_dynamics` at the path's q̈: the torques that would follow
//! it exactly if they could change continuously), which are also the initial guess; held over each
//! step they drift off the path, which iLQR corrects. The example checks that J falls at every
//! iteration and converges, that the plan stays on the path and ends at the goal, and that the
//! adaptive integration of the arm under the policy u = u_k + K_k (x − x_k), held over each step,
//! ends where the plan does (a second route: the model's own field integrated to 1e-10 against the
//! RK4 steps iLQR planned with).
//!
//! Writes `out/arm_ilqr.svg`: J by iteration, the joints' angles (plan and run), the torques.
//!
//! The actuators' effort limits read from the file (`Arm6::EFFORT_LIMITS`) bound the planned torques
//! (`IlqrProblem::limits`, the control-limited iteration).
//!
//! Run with `cargo run --release --example arm_ilqr`.

use plotters::prelude::*;
use routh::prelude::*;
use routh::runtime::ilqr::{IlqrProblem, IlqrStatus, ilqr};

#[path = "models/arm6.rs"]
mod arm6;

use arm6::{Arm6, Arm6Driven, D, GOAL, N, START};

/// Steps and their size [s].
const STEPS: usize = 120;
const H: f64 = 0.01;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let arm = Arm6 { g: 9.81 };
    println!("{N} joints read from tests/robots/arm6.urdf: {:?} ({} dynamics)", Arm6::COORDINATES, Arm6Driven::DYNAMICS);
    let start = arm.state(START, [0.0; N]);
    let goal = arm.state(GOAL, [0.0; N]);
    // The minimum-jerk path and its inverse dynamics.
    let (states, torques) = arm6::transfer(&arm, H * STEPS as f64, H, STEPS)?;
    let peak = torques.iter().map(|u| u.amax()).fold(0.0, f64::max);
    println!("the path's inverse dynamics: torques up to {peak:.1} N m");

    let (q, r, qf) = arm6::weights();
    // The actuators' torque range from the file's `<limit effort=...>`: the control-limited iteration.
    let effort = Vector::<N>::from(Arm6::EFFORT_LIMITS);
    let problem = IlqrProblem::new((0.0, H, STEPS), goal, q, r, qf)
        .path(states.clone(), torques.clone())
        .limits(-effort, effort)
        .tolerance(1e-9);
    let clock = std::time::Instant::now();
    let plan = ilqr(&arm, &problem, &start, &torques)?;
    let seconds = clock.elapsed().as_secs_f64();
    println!("iLQR: {:?} after {} iterations in {:.0} ms", plan.status, plan.costs.len() - 1, 1e3 * seconds);
    for (i, c) in plan.costs.iter().enumerate() {
        println!("  iteration {i:3}: J = {c:.6e}");
    }
    assert_eq!(plan.status, IlqrStatus::Converged);
    assert!(plan.costs.windows(2).all(|w| w[1] < w[0]), "J must fall at every iteration");
    let off = plan.states.iter().zip(&states).map(|(x, r)| (x - r).fixed_rows::<N>(0).amax()).fold(0.0, f64::max);
    let miss = (plan.states[STEPS] - goal).amax();
    println!("the plan stays within {off:.1e} rad of the path and ends {miss:.1e} from the goal (largest |Δq|, |Δq̇|)");
    assert!(off < 1e-2 && miss < 1e-2);
    let used = plan.inputs.iter().map(|u| u.component_div(&effort).amax()).fold(0.0, f64::max);
    println!("the planned torques use at most {:.0} % of the file's effort limits", 100.0 * used);
    assert!(used <= 1.0);

    // The second route: the adaptive integrator under the plan's policy, held over each step.
    let (states, inputs, gains) = (plan.states.clone(), plan.inputs.clone(), plan.gains.clone());
    let policy = move |t: f64, x: &State<D>| {
        let k = ((t / H).round() as usize).min(STEPS - 1);
        inputs[k] + gains[k] * (x - states[k])
    };
    let options = Options::default().rtol(1e-10).atol(1e-10).output(Output::Interval(H));
    let run = arm.run(start).span(0.0..H * STEPS as f64).options(&options).sampled(H, policy).go()?;
    let end = run.trajectory.end.1;
    let gap = (end - plan.states[STEPS]).amax();
    println!(
        "the adaptive run under the policy ends {gap:.1e} from the plan's end (RK4 with h = {H} s against the field to 1e-10)"
    );
    assert!(gap < 1e-4);

    std::fs::create_dir_all("out")?;
    let path = "out/arm_ilqr.svg";
    let root = SVGBackend::new(path, (1500, 450)).into_drawing_area();
    root.fill(&WHITE)?;
    let panels = root.split_evenly((1, 3));
    let iterations = plan.costs.len();
    let (lo, hi) = (plan.cost().log10().floor(), plan.costs[0].log10().ceil());
    let mut costs = ChartBuilder::on(&panels[0])
        .caption("J by iteration (log₁₀)", ("sans-serif", 18))
        .margin(10)
        .x_label_area_size(35)
        .y_label_area_size(45)
        .build_cartesian_2d(0.0..(iterations as f64 - 1.0).max(1.0), lo..hi)?;
    costs.configure_mesh().x_desc("iteration").y_desc("log₁₀ J").draw()?;
    costs
        .draw_series(LineSeries::new(plan.costs.iter().enumerate().map(|(i, c)| (i as f64, c.log10())), BLACK.stroke_width(2)))?;
    let times: Vec<f64> = (0..=STEPS).map(|k| k as f64 * H).collect();
    let mut angles = ChartBuilder::on(&panels[1])
        .caption("joint angles: plan (lines), run (dots)", ("sans-serif", 18))
        .margin(10)
        .x_label_area_size(35)
        .y_label_area_size(45)
        .build_cartesian_2d(0.0..H * STEPS as f64, -1.6..1.8)?;
    angles.configure_mesh().x_desc("t [s]").y_desc("q [rad]").draw()?;
    for j in 0..N {
        let color = Palette99::pick(j);
        angles.draw_series(LineSeries::new(times.iter().zip(&plan.states).map(|(&t, x)| (t, x[j])), color.stroke_width(2)))?;
        angles.draw_series(run.trajectory.iter().step_by(10).map(|(t, x)| Circle::new((t, x[j]), 2, color.filled())))?;
    }
    let top = plan.inputs.iter().map(|u| u.amax()).fold(0.0, f64::max) * 1.1;
    let mut torques = ChartBuilder::on(&panels[2])
        .caption("torques u [N m]", ("sans-serif", 18))
        .margin(10)
        .x_label_area_size(35)
        .y_label_area_size(45)
        .build_cartesian_2d(0.0..H * STEPS as f64, -top..top)?;
    torques.configure_mesh().x_desc("t [s]").y_desc("u [N m]").draw()?;
    for j in 0..N {
        let steps = plan.inputs.iter().enumerate().flat_map(|(k, u)| [(k as f64 * H, u[j]), ((k + 1) as f64 * H, u[j])]);
        torques.draw_series(LineSeries::new(steps, Palette99::pick(j).stroke_width(2)))?;
    }
    root.present()?;
    println!("wrote {path}");
    Ok(())
}
