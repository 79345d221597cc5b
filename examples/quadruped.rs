//! A twelve-joint quadruped read from its URDF file at compile time (`tests/robots/quadruped.urdf`:
//! a trunk on a floating joint, four legs of three hinges, feet on fixed joints), dropped onto a
//! frictionless floor and standing on its four feet under proportional–derivative torques at its
//! joints.
//!
//! Each foot is a unilateral contact (`unilateral(...)`: the foot lands plastically, is held on the
//! floor while its normal force pushes, and lifts off when that force falls through zero), so the
//! run moves through the modes of the feet in contact until all four are held. Everything is
//! generated along the robot's tree — the floating base on the spatial articulated-body recursion,
//! each mode's contacts solved with M factored along the links. The run checks what the physics
//! fixes whatever the controller does: the floor pushes vertically only, so the robot's horizontal
//! momentum stays zero through the impacts and the sliding of its feet; and standing at rest, the
//! four normal forces carry its weight, Σλ = m g.
//!
//! Writes `out/quadruped.svg`: the trunk's and the feet's heights, and the normal forces, against
//! time.
//!
//! Run with `cargo run --release --example quadruped`. Its build takes 20 s and 0.58 GB in release
//! on two cores (2026-12-06): the sixteen modes share M, f, the energies, each foot's row and its
//! parts of the derivatives (generated in the mode that holds that foot alone) and one projection
//! per set of feet held for every landing and settling into it (3.6 MB of generated tokens).

use plotters::prelude::*;
use routh::prelude::*;

/// The quadruped from its description file, its joints held near a crouch by PD torques, each
/// foot a unilateral contact with the floor z = 0.
#[derive(Mechanics)]
#[mechanics(
    urdf = "../tests/robots/quadruped.urdf",
    force(
        fl_haa = -kp * fl_haa - kd * dot(fl_haa),
        fl_hfe = -kp * (fl_hfe - hip) - kd * dot(fl_hfe),
        fl_kfe = -kp * (fl_kfe - knee) - kd * dot(fl_kfe),
        fr_haa = -kp * fr_haa - kd * dot(fr_haa),
        fr_hfe = -kp * (fr_hfe - hip) - kd * dot(fr_hfe),
        fr_kfe = -kp * (fr_kfe - knee) - kd * dot(fr_kfe),
        hl_haa = -kp * hl_haa - kd * dot(hl_haa),
        hl_hfe = -kp * (hl_hfe - hip) - kd * dot(hl_hfe),
        hl_kfe = -kp * (hl_kfe - knee) - kd * dot(hl_kfe),
        hr_haa = -kp * hr_haa - kd * dot(hr_haa),
        hr_hfe = -kp * (hr_hfe - hip) - kd * dot(hr_hfe),
        hr_kfe = -kp * (hr_kfe - knee) - kd * dot(hr_kfe),
    ),
    unilateral(name = fl, guard = fl_foot_origin[2], law = restitution(0)),
    unilateral(name = fr, guard = fr_foot_origin[2], law = restitution(0)),
    unilateral(name = hl, guard = hl_foot_origin[2], law = restitution(0)),
    unilateral(name = hr, guard = hr_foot_origin[2], law = restitution(0)),
    output(trunk = trunk_origin[2], fl = fl_foot_origin[2], fr = fr_foot_origin[2], hl = hl_foot_origin[2], hr = hr_foot_origin[2]),
    gravity = [0, 0, -g],
)]
pub struct Quadruped {
    pub g: f64,
    /// The joints' stiffness [N m/rad] and damping [N m s/rad].
    pub kp: f64,
    pub kd: f64,
    /// The crouch held: the hips' and knees' flexion [rad].
    pub hip: f64,
    pub knee: f64,
}

/// The robot's mass [kg]: the trunk and four legs of hip, thigh, shin and foot.
const MASS: f64 = 2.5 + 4.0 * (0.15 + 0.15 + 0.04 + 0.01);

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let robot = Quadruped { g: 9.81, kp: 20.0, kd: 0.5, hip: 0.8, knee: -1.6 };
    println!(
        "{} joints read from tests/robots/quadruped.urdf, {} velocities, {} modes of the feet in contact",
        QuadrupedFree::COORDINATES.len(),
        QuadrupedFree::DOF,
        Quadruped::MODES.len()
    );
    // In the crouch, the feet 2 to 5 cm above the floor (the trunk's joint origin is 0.3 up, turned
    // by 0.06 rad of roll and 0.1 rad of pitch: the feet land one after another).
    let mut q = [0.0; 19];
    q[2] = -0.04;
    for leg in 0..4 {
        q[4 + 3 * leg] = robot.hip;
        q[5 + 3 * leg] = robot.knee;
    }
    let (roll, pitch) = (0.06f64, 0.1f64);
    let (cr, sr, cp, sp) = ((roll / 2.0).cos(), (roll / 2.0).sin(), (pitch / 2.0).cos(), (pitch / 2.0).sin());
    q[15..19].copy_from_slice(&[cp * cr, cp * sr, sp * cr, -sp * sr]);
    let x0 = robot.free_state(q, [0.0; 18]);
    let span = 0.0..3.0;
    let options = HybridOptions::default().ode(Options::default().rtol(1e-9).atol(1e-10).output(Output::Interval(0.005)));
    let run = match robot.run(x0).span(span.clone()).options(&options).go() {
        Ok(run) => run,
        Err(e) => return Err(format!("the run failed: {e}").into()),
    };
    let names: Vec<&str> = run.mode_sequence().iter().map(|&m| Quadruped::MODES[m]).collect();
    println!("modes: {}", names.join(" → "));
    let standing = *run.mode_sequence().last().expect("a mode");
    assert_eq!(Quadruped::MODES[standing], "fl_fr_hl_hr", "the robot does not end on its four feet");

    // The floor pushes vertically: the horizontal momentum (the trunk translations' momenta, in the
    // world's axes) stays zero.
    // (Every mode has the robot's Lagrangian: its momenta and outputs are any mode's.)
    let free = robot.free();
    let mut drift = 0.0f64;
    for (t, _, x) in run.iter() {
        let p = free.momenta(t, x);
        drift = drift.max(p[0].abs()).max(p[1].abs());
    }
    println!("horizontal momentum through {} landings and the sliding feet: at most {drift:.1e} kg m/s", run.impacts.len());
    assert!(drift < 1e-7);

    // At rest on four feet, the normal forces carry the weight.
    let (t_end, _, x_end) = run.iter().last().expect("a state");
    let stand = robot.fl_fr_hl_hr();
    let forces = stand.constraint_forces(t_end, x_end)?;
    let total: f64 = forces.iter().sum();
    let speed = x_end.fixed_rows::<18>(19).amax();
    println!(
        "at t = {t_end}: fastest rate {speed:.1e}, normal forces {:.3} {:.3} {:.3} {:.3} N, sum {total:.4} N against m g = {:.4} N",
        forces[0],
        forces[1],
        forces[2],
        forces[3],
        MASS * 9.81
    );
    assert!(speed < 1e-3);
    assert!((total - MASS * 9.81).abs() < 1e-3 * MASS * 9.81);

    // Heights along the run, and the normal forces once on four feet.
    let mut heights: Vec<(f64, [f64; 5])> = Vec::new();
    let mut pushes: Vec<(f64, [f64; 4])> = Vec::new();
    for (t, mode, x) in run.iter() {
        let o = free.outputs(t, x);
        heights.push((t, [o[0], o[1], o[2], o[3], o[4]]));
        if mode == standing {
            let f = stand.constraint_forces(t, x)?;
            pushes.push((t, [f[0], f[1], f[2], f[3]]));
        }
    }

    std::fs::create_dir_all("out")?;
    let path = "out/quadruped.svg";
    let root = SVGBackend::new(path, (1100, 480)).into_drawing_area();
    root.fill(&WHITE)?;
    let panels = root.split_evenly((1, 2));
    let colors = [RED, BLUE, GREEN, MAGENTA];
    let mut chart = ChartBuilder::on(&panels[0])
        .caption("heights: the trunk's origin and the four feet", ("sans-serif", 18))
        .margin(10)
        .x_label_area_size(35)
        .y_label_area_size(50)
        .build_cartesian_2d(0.0..span.end, -0.01..0.3)?;
    chart.configure_mesh().x_desc("t [s]").y_desc("z [m]").draw()?;
    chart.draw_series(LineSeries::new(heights.iter().map(|(t, h)| (*t, h[0])), BLACK.stroke_width(2)))?;
    for (leg, color) in colors.iter().enumerate() {
        chart.draw_series(LineSeries::new(heights.iter().map(|(t, h)| (*t, h[1 + leg])), color.stroke_width(1)))?;
    }
    let top = pushes.iter().flat_map(|(_, f)| f.iter().copied()).fold(0.0, f64::max) * 1.1;
    let mut chart = ChartBuilder::on(&panels[1])
        .caption("the feet's normal forces λ (m g / 4 dashed)", ("sans-serif", 18))
        .margin(10)
        .x_label_area_size(35)
        .y_label_area_size(50)
        .build_cartesian_2d(0.0..span.end, 0.0..top.max(MASS * 9.81 / 2.0))?;
    chart.configure_mesh().x_desc("t [s]").y_desc("[N]").draw()?;
    for (leg, color) in colors.iter().enumerate() {
        chart.draw_series(LineSeries::new(pushes.iter().map(|(t, f)| (*t, f[leg])), color.stroke_width(1)))?;
    }
    let quarter = MASS * 9.81 / 4.0;
    chart.draw_series(DashedLineSeries::new([(0.0, quarter), (span.end, quarter)], 6, 4, BLACK.stroke_width(1)))?;
    root.present()?;
    println!("wrote {path}");
    Ok(())
}
