//! Periodic orbits of the SLIP-like hopper with a swing leg (*Hybrid periodic orbits* §4.4, Figs. 9
//! and 10; reference run R9 of `docs/references.md`): a point mass on a massless spring leg (k = 40 m g/l0) whose leg
//! swings harmonically in flight (ω² = 5 g/l0). Two modes of different dimension (stance (α, l),
//! flight (x, y, α)) joined by the paper's chart-changing resets.
//!
//! From the grazing orbit (vertical oscillation without flight, T_o = 2π/√40) the example branches
//! off by Lyapunov–Schmidt reduction onto hopping in place (t₂ > 0), the harmonic oscillations
//! (t₂ = 0) and the t₂ < 0 family; continues hopping in place to H̄ = 2, finds SB1 (= 1 + π²/40) and
//! SB2 on it, and switches there onto forward and backward hopping. It prints the special points
//! and the three orbits at H̄ = 1.8 against reference run R9, and writes
//!
//! - `out/slip_branches.svg`: T and the flight speed ẋ against H̄ (Fig. 9a), and the stance
//!   durations t₁, t₃ against the flight time t₂ (Fig. 9b);
//! - `out/slip_orbits.svg`: the three physical orbits at H̄ = 1.8 — the mass's path over two
//!   periods with the leg at touchdown and lift-off (Fig. 10a);
//! - `out/slip_<family>.csv`: every branch as data.
//!
//! Run with `cargo run --release --example slip_hopper`.

use std::f64::consts::PI;

use plotters::prelude::*;
use routh::nalgebra::{DVector, SVector};
use routh::prelude::*;
use routh::runtime::HybridOptions;
use routh::runtime::continuation::{
    Branch, ContinuationOptions, Point, Problem, Special, Start, branch_directions, continuation, correct_at_parameter,
};
use routh::runtime::periodic::{Anchor, BranchPoint, MultipleShooting, Phase, write_branch_csv};

/// The hopper. The leg's inertia `eps` → 0 is the paper's massless limit: the flight's
/// α̈ = −ω²α does not depend on it, and the leg's energy (left out of the paper's H_F) is O(eps).
#[derive(Mechanics)]
#[mechanics(
    mode(stance,
        coordinates(alpha, l),
        lagrangian = m / 2 * (dot(l).powi(2) + (l * dot(alpha)).powi(2)) - m * g * l * alpha.cos()
            - k / 2 * (l - l0).powi(2),
    ),
    mode(flight,
        coordinates(x, y, alpha),
        lagrangian = m / 2 * (dot(x).powi(2) + dot(y).powi(2)) - m * g * y
            + eps / 2 * (dot(alpha).powi(2) - (w * alpha).powi(2)),
    ),
    transition(stance -> flight, name = liftoff, guard = l0 - l, law = reset(
        x = -l * alpha.sin(),
        y = l * alpha.cos(),
        dot(x) = -dot(l) * alpha.sin() - l * dot(alpha) * alpha.cos(),
        dot(y) = dot(l) * alpha.cos() - l * dot(alpha) * alpha.sin(),
    )),
    transition(flight -> stance, name = touchdown, guard = y - l0 * alpha.cos(), law = reset(
        l = l0,
        dot(alpha) = -(alpha.cos() * dot(x) + alpha.sin() * dot(y)) / l0,
        dot(l) = alpha.cos() * dot(y) - alpha.sin() * dot(x),
    )),
)]
struct Hopper {
    m: f64,
    g: f64,
    k: f64,
    l0: f64,
    w: f64,
    eps: f64,
}

/// The anchor: the nadir of the stance, a = −l̇ = 0 crossed downward.
fn nadir(x: &SVector<f64, 6>) -> f64 {
    -x[3]
}

fn nadir_gradient(_x: &SVector<f64, 6>) -> SVector<f64, 6> {
    SVector::<f64, 6>::from_fn(|i, _| if i == 3 { -1.0 } else { 0.0 })
}

struct Family {
    name: &'static str,
    /// Each branch's points with the flight speed ẋ.
    branches: Vec<Vec<(BranchPoint, f64)>>,
}

impl Family {
    fn points(&self) -> Vec<BranchPoint> {
        self.branches.iter().flatten().map(|(p, _)| p.clone()).collect()
    }
}

fn family(shooting: &MultipleShooting<'_, Hopper, 6>, name: &'static str, branches: &[&Branch]) -> Family {
    let read = |b: &Branch| {
        b.points
            .iter()
            // The grazing orbit itself has no saltation matrix (its touchdown is grazing).
            .filter_map(|p| Some((shooting.branch_point(p).ok()?, shooting.solution(&p.u).ok()?.phases[1].start[3])))
            .collect()
    };
    Family { name, branches: branches.iter().map(|b| read(b)).collect() }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let hop = Hopper { m: 1.0, g: 1.0, k: 40.0, l0: 1.0, w: 5f64.sqrt(), eps: 1e-12 };
    let phases = [Phase { mode: Hopper::STANCE, guard: 0 }, Phase { mode: Hopper::FLIGHT, guard: 0 }];
    let ode = Options::default().rtol(1e-12).atol(1e-13);
    let shooting = MultipleShooting::new(&hop, &phases, Anchor { value: &nadir, gradient: &nadir_gradient }, &ode)?;
    // The grazing orbit (S1): touchdown at rest, no flight, nadir at l0 − 2mg/k, H̄ = m g l0.
    let t_o = 2.0 * PI * (hop.m / hop.k).sqrt();
    let mut u0 = DVector::zeros(shooting.unknowns());
    u0[shooting.time_index(3)] = 0.5 * t_o;
    u0[shooting.state_index(3, 1)] = hop.l0;
    u0[shooting.state_index(2, 1)] = hop.l0;
    u0[shooting.time_index(1)] = 0.5 * t_o;
    u0[shooting.state_index(1, 1)] = hop.l0 - 2.0 * hop.m * hop.g / hop.k;
    u0[shooting.energy_index()] = hop.m * hop.g * hop.l0;
    let t2 = shooting.time_index(2);
    let [a, b] = branch_directions(&shooting, &u0, 1e-6)?;
    let (hopping, harmonic) = if a[t2].abs() > b[t2].abs() { (a, b) } else { (b, a) };
    println!("grazing orbit T_o = {t_o:.7} (S1: 0.9934588); LS tangents (S2), nonzero entries:");
    for (name, d) in [("hopping", &hopping), ("harmonic", &harmonic)] {
        let entries: Vec<String> =
            d.iter().enumerate().filter(|(_, v)| v.abs() > 1e-9).map(|(i, v)| format!("u[{i}] = {v:+.4}")).collect();
        println!("  {name}: {}", entries.join(", "));
    }
    let opts = ContinuationOptions::default().initial_step(5e-2).max_step(0.5).target(2.0);
    let up = if hopping[t2] > 0.0 { hopping.clone() } else { -hopping.clone() };
    let blue = continuation(&shooting, &u0, Start::Along(up.clone()), &opts)?;
    let negative = continuation(&shooting, &u0, Start::Along(-up), &opts.clone().target(1.3))?;
    let orange = continuation(&shooting, &u0, Start::Along(harmonic), &opts)?;
    let iterations: usize = blue.points.iter().map(|p| p.iterations).sum();
    println!(
        "hopping in place: {} points to H̄ = 2 ({} rejected steps, {:.2} Newton iterations per point)",
        blue.points.len(),
        blue.rejected,
        iterations as f64 / blue.points.len() as f64
    );
    let sbs: Vec<&Point> = blue.special(Special::SimpleBifurcation).collect();
    for (k, sb) in sbs.iter().enumerate() {
        let s = shooting.solution(&sb.u)?;
        println!("  SB{}: H̄ = {:.9}, T = {:.9}, t₂ = {:.9}", k + 1, s.energy, s.period, s.durations()[1]);
    }
    println!(
        "  SB1 closed form: H̄ = 1 + π²/40 = {:.9}, t₂ = π/√5 = {:.9}; SB2 in reference run R9: H̄ ≈ 1.614433, T ≈ 2.758616",
        1.0 + PI * PI / 40.0,
        PI / hop.w
    );
    // Forward and backward hopping from each SB.
    let mut green = Vec::new();
    for sb in &sbs {
        let [a, b] = branch_directions(&shooting, &sb.u, 1e-6)?;
        let new = if a.dot(&sb.direction).abs() < b.dot(&sb.direction).abs() { a } else { b };
        for sign in [1.0, -1.0] {
            green.push(continuation(&shooting, &sb.u, Start::Along(&new * sign), &opts.clone().initial_step(1e-2))?);
        }
    }
    // The three orbits of Fig. 10a at H̄ = 1.8 (S6): hopping in place, and forward hopping from
    // SB1 and SB2.
    let aim = opts.clone().target(1.8);
    let mut orbits = Vec::new();
    let in_place = correct_at_parameter(
        &shooting,
        &blue.points.iter().min_by(|a, b| (a.u[18] - 1.8).abs().total_cmp(&(b.u[18] - 1.8).abs())).unwrap().u,
        1.8,
        &aim,
    )?;
    orbits.push(("hopping in place", in_place.u, (3.065876, 0.0)));
    for (k, expected) in [(0, (1.898895, 1.082959)), (2, (2.750415, 0.620461))] {
        // Of the two half-branches from this SB, the one hopping forward (ẋ > 0).
        let mut found = None;
        for b in &green[k..k + 2] {
            let from = b.points.iter().min_by(|a, b| (a.u[18] - 1.8).abs().total_cmp(&(b.u[18] - 1.8).abs())).unwrap();
            let u = correct_at_parameter(&shooting, &from.u, 1.8, &aim)?.u;
            if shooting.solution(&u)?.phases[1].start[3] > 0.0 {
                found = Some(u);
            }
        }
        let u = found.ok_or("no forward-hopping orbit at H̄ = 1.8")?;
        orbits.push((if k == 0 { "forward, SB1 branch" } else { "forward, SB2 branch" }, u, expected));
    }
    println!("the three orbits at H̄ = 1.8 (S6):");
    for (name, u, (period, speed)) in &orbits {
        let s = shooting.solution(u)?;
        let real = shooting.realizability(u)?;
        println!(
            "  {name}: T = {:.7} ({period}), |ẋ| = {:.7} ({speed}), t = {:.6?}, physical: {}",
            s.period,
            s.phases[1].start[3].abs(),
            s.durations(),
            real.is_physical(1e-8)
        );
    }

    std::fs::create_dir_all("out")?;
    let families = [
        family(&shooting, "hopping_in_place", &[&blue]),
        family(&shooting, "harmonic", &[&orange]),
        family(&shooting, "negative_flight", &[&negative]),
        family(&shooting, "forward_backward_sb1", &[&green[0], &green[1]]),
        family(&shooting, "forward_backward_sb2", &[&green[2], &green[3]]),
    ];
    for f in &families {
        write_branch_csv(std::fs::File::create(format!("out/slip_{}.csv", f.name))?, &f.points())?;
    }
    plot_branches(&families, &blue, &shooting)?;
    plot_orbits(&hop, &shooting, &orbits)?;
    println!("wrote out/slip_branches.svg, out/slip_orbits.svg and out/slip_<family>.csv");
    Ok(())
}

const STYLES: [(RGBColor, &str); 5] = [
    (BLUE, "hopping in place"),
    (RGBColor(255, 140, 0), "harmonic, t₂ = 0 (not physical)"),
    (RGBColor(120, 120, 255), "t₂ < 0 (not physical)"),
    (RGBColor(0, 150, 0), "forward/backward hopping (SB1)"),
    (RGBColor(0, 100, 0), "forward/backward hopping (SB2)"),
];

fn plot_branches(
    families: &[Family],
    blue: &Branch,
    shooting: &MultipleShooting<'_, Hopper, 6>,
) -> Result<(), Box<dyn std::error::Error>> {
    let root = SVGBackend::new("out/slip_branches.svg", (1500, 500)).into_drawing_area();
    root.fill(&WHITE)?;
    let panels = root.split_evenly((1, 3));
    // (a) T against H̄.
    let mut chart = ChartBuilder::on(&panels[0])
        .caption("(a) period against energy", ("sans-serif", 18))
        .margin(12)
        .x_label_area_size(35)
        .y_label_area_size(45)
        .build_cartesian_2d(1.0f64..2.0, 0.0f64..3.5)?;
    chart.configure_mesh().x_desc("H̄").y_desc("T").draw()?;
    for (f, (color, label)) in families.iter().zip(STYLES) {
        for (k, b) in f.branches.iter().enumerate() {
            let drawn = chart.draw_series(LineSeries::new(b.iter().map(|(p, _)| (p.energy, p.period)), color.stroke_width(2)))?;
            if k == 0 {
                drawn.label(label).legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2)));
            }
        }
    }
    let marks: Vec<(f64, f64)> = blue
        .special(Special::SimpleBifurcation)
        .filter_map(|p| shooting.solution(&p.u).ok())
        .map(|s| (s.energy, s.period))
        .collect();
    chart.draw_series(marks.iter().map(|&m| Circle::new(m, 5, BLACK.filled())))?;
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::LowerRight)
        .border_style(BLACK)
        .background_style(WHITE)
        .draw()?;
    // (a') forward speed against H̄.
    let mut chart = ChartBuilder::on(&panels[1])
        .caption("(a) forward speed in flight against energy", ("sans-serif", 18))
        .margin(12)
        .x_label_area_size(35)
        .y_label_area_size(45)
        .build_cartesian_2d(1.0f64..2.0, -1.5f64..1.5)?;
    chart.configure_mesh().x_desc("H̄").y_desc("ẋ").draw()?;
    for (f, (color, _)) in families.iter().zip(STYLES) {
        for b in &f.branches {
            chart.draw_series(LineSeries::new(b.iter().map(|(p, v)| (p.energy, *v)), color.stroke_width(2)))?;
        }
    }
    // (b) t₁ and t₃ against t₂.
    let mut chart = ChartBuilder::on(&panels[2])
        .caption("(b) stance durations against flight time", ("sans-serif", 18))
        .margin(12)
        .x_label_area_size(35)
        .y_label_area_size(45)
        .build_cartesian_2d(-1.5f64..3.0, 0.2f64..0.75)?;
    chart.configure_mesh().x_desc("t₂").y_desc("t₁, t₃").draw()?;
    for (f, (color, _)) in families.iter().zip(STYLES) {
        for b in &f.branches {
            for i in [0, 2] {
                chart.draw_series(LineSeries::new(
                    b.iter().map(|(p, _)| (p.durations[1], p.durations[i])),
                    color.stroke_width(2),
                ))?;
            }
        }
    }
    root.present()?;
    Ok(())
}

/// The mass's path in the plane over two periods from the nadir, with the leg drawn at every
/// touchdown and lift-off; the foot's position is carried across the chart changes.
fn plot_orbits(
    hop: &Hopper,
    shooting: &MultipleShooting<'_, Hopper, 6>,
    orbits: &[(&str, DVector<f64>, (f64, f64))],
) -> Result<(), Box<dyn std::error::Error>> {
    let root = SVGBackend::new("out/slip_orbits.svg", (1500, 500)).into_drawing_area();
    root.fill(&WHITE)?;
    let panels = root.split_evenly((1, orbits.len()));
    for ((name, u, _), panel) in orbits.iter().zip(panels.iter()) {
        let s = shooting.solution(u)?;
        let options = HybridOptions::default().ode(Options::default().rtol(1e-10).atol(1e-12).dense(true));
        let run = hop.run(ModeState::new(Hopper::STANCE, s.phases[0].start)).span(0.0..2.0 * s.period).options(&options).go()?;
        // The foot after each touchdown: flight x is relative to the last foot, and the mass
        // lands l0 sin α behind its new foot.
        let mut feet = vec![(f64::NEG_INFINITY, 0.0)];
        let mut legs = Vec::new();
        for imp in &run.impacts {
            let foot = feet.last().unwrap().1;
            if imp.mode_before == Hopper::FLIGHT {
                let (mx, my, alpha) = (foot + imp.pre[0], imp.pre[1], imp.pre[2]);
                let new_foot = mx + hop.l0 * alpha.sin();
                feet.push((imp.t, new_foot));
                legs.push(((mx, my), (new_foot, 0.0)));
            } else {
                let (alpha, l) = (imp.pre[0], imp.pre[1]);
                legs.push(((foot - l * alpha.sin(), l * alpha.cos()), (foot, 0.0)));
            }
        }
        let samples = 800;
        let path: Vec<(f64, f64)> = (0..=samples)
            .filter_map(|i| {
                let t = 2.0 * s.period * f64::from(i) / f64::from(samples);
                let (mode, x) = run.at(t)?;
                let foot = feet.iter().rev().find(|(at, _)| *at <= t).map_or(0.0, |f| f.1);
                Some(if mode == Hopper::STANCE { (foot - x[1] * x[0].sin(), x[1] * x[0].cos()) } else { (foot + x[0], x[1]) })
            })
            .collect();
        let x_max = path.iter().map(|p| p.0).fold(0.5f64, f64::max) + 0.5;
        let x_min = path.iter().map(|p| p.0).fold(-0.5f64, f64::min) - 0.5;
        let mut chart = ChartBuilder::on(panel)
            .caption(format!("{name}: T = {:.4}", s.period), ("sans-serif", 16))
            .margin(10)
            .x_label_area_size(30)
            .y_label_area_size(35)
            .build_cartesian_2d(x_min..x_max, 0.0f64..1.9)?;
        chart.configure_mesh().x_desc("x").y_desc("y").draw()?;
        chart.draw_series(LineSeries::new(path.iter().copied(), BLUE.stroke_width(2)))?;
        chart.draw_series(LineSeries::new(vec![(x_min, 0.0), (x_max, 0.0)], BLACK))?;
        // The leg at each lift-off and touchdown.
        for (mass, foot) in legs {
            chart.draw_series(LineSeries::new(vec![mass, foot], RGBColor(200, 0, 0).stroke_width(2)))?;
        }
    }
    root.present()?;
    Ok(())
}
