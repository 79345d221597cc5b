//! A sweep in shards, as on a cluster: the double pendulum's flip map. For a grid of initial
//! angles (θ₁, θ₂) released from rest, the time until the lower pendulum first flips over
//! (|θ₂| reaches π) within 10 s; each member also runs a twin started 1e-8 away in a direction drawn
//! from its seed, and says whether the twin flips at the same time (to 1e-3 s): where it does not,
//! the map is chaotic at that resolution.
//!
//! With no arguments it runs the whole cycle in one process and checks it: writes the job
//! (`out/sweep/job.json`), runs it as 4 shards (one of them interrupted and resumed), merges them,
//! compares the merged outcomes with the same job run through `ensemble` bit for bit, and draws
//! `out/sweep_flip.svg` (also `out/sweep/flip.csv`).
//!
//! On a cluster the same binary does each step (`scripts/sweep.slurm` is a Slurm array job):
//!
//! ```text
//! sweep plan  out/sweep/job.json 64                 # a 64 × 64 grid
//! sweep run   out/sweep/job.json 3/16 out/sweep/shard-3.jsonl    # one array task; resumable
//! sweep merge out/sweep/job.json out/sweep/flip.csv out/sweep/shard-*.jsonl
//! ```
//!
//! Run with `cargo run --release --example sweep`.

use std::path::{Path, PathBuf};

use plotters::prelude::*;
use routh::prelude::*;
use routh::runtime::ensemble::EnsembleOptions;
use routh::runtime::sweep::{Job, Outcome, Shard, merge};

/// The undamped double pendulum of the showcase (unit masses and lengths).
#[derive(Mechanics)]
#[mechanics(
    coordinates(th1, th2),
    define(
        x1 = l1 * th1.sin(),           y1 = -l1 * th1.cos(),
        x2 = x1 + l2 * th2.sin(),      y2 = y1 - l2 * th2.cos(),
    ),
    lagrangian = m1 / 2 * (dot(x1).powi(2) + dot(y1).powi(2))
               + m2 / 2 * (dot(x2).powi(2) + dot(y2).powi(2))
               - g * (m1 * y1 + m2 * y2),
)]
pub struct DoublePendulum {
    pub m1: f64,
    pub m2: f64,
    pub l1: f64,
    pub l2: f64,
    pub g: f64,
}

const PENDULUM: DoublePendulum = DoublePendulum { m1: 1.0, m2: 1.0, l1: 1.0, l2: 1.0, g: 9.81 };
const HORIZON: f64 = 10.0;

/// A member: the initial angles. Its result: the flip time (`HORIZON` if none), the twin's, and
/// the energy error of the run.
type Spec = [f64; 2];
type Flip = [f64; 3];

/// The time the lower pendulum first reaches |θ₂| = π from `th`, at rest (HORIZON if it does not).
fn flip_time(th: Spec, options: &Options) -> Result<(f64, f64), SimError> {
    let p = &PENDULUM;
    let x0 = p.state(th, [0.0, 0.0]);
    let events = [
        Event::new("over", |_, x: &SVector<f64, 4>| x[1] - std::f64::consts::PI).terminal(true),
        Event::new("under", |_, x: &SVector<f64, 4>| x[1] + std::f64::consts::PI).terminal(true),
    ];
    let run = p.run(x0).span(0.0..HORIZON).events(&events).options(options).go()?;
    if let StopReason::Failed(e) = run.stop {
        return Err(e);
    }
    let (t, x) = run.end;
    Ok((t.min(HORIZON), (p.energy(t, &x) - p.energy(0.0, &x0)).abs()))
}

/// One member of the job: the flip time from `th`, and from `th` moved 1e-8 along a direction
/// drawn from `seed`.
fn member(th: &Spec, options: &Options, seed: u64) -> Result<Flip, SimError> {
    let angle = (seed >> 11) as f64 / (1u64 << 53) as f64 * std::f64::consts::TAU;
    let (t, drift) = flip_time(*th, options)?;
    let (twin, _) = flip_time([th[0] + 1e-8 * angle.cos(), th[1] + 1e-8 * angle.sin()], options)?;
    Ok([t, twin, drift])
}

/// The job: an n × n grid of (θ₁, θ₂) in [−3, 3]², seeded with `seed`.
fn plan(n: usize, seed: u64) -> Job<Spec, Options> {
    let at = |k: usize| -3.0 + 6.0 * (k as f64 + 0.5) / n as f64;
    let grid = (0..n * n).map(|k| [at(k % n), at(k / n)]);
    Job::new("double pendulum flip map", Options::default().rtol(1e-9).atol(1e-11), grid, seed)
}

fn run_shard(job: &Path, shard: &str, out: &Path) -> Result<(), Box<dyn std::error::Error>> {
    let job: Job<Spec, Options> = Job::load(job)?;
    let shard = Shard::parse(shard)?;
    let report = job.run_shard(shard, out, member, &EnsembleOptions::default())?;
    println!(
        "shard {}/{}: {} members run ({} failed), {} already in {}",
        shard.index,
        shard.count,
        report.written,
        report.failed,
        report.skipped,
        out.display()
    );
    Ok(())
}

fn write_outputs(job: &Job<Spec, Options>, outcomes: &[Outcome<Flip>], csv: &Path) -> Result<(), Box<dyn std::error::Error>> {
    let mut text = String::from("th1,th2,flip_time,twin_flip_time,energy_error,error\n");
    for (m, o) in job.members.iter().zip(outcomes) {
        match &o.result {
            Ok([t, twin, drift]) => text += &format!("{},{},{t},{twin},{drift},\n", m.spec[0], m.spec[1]),
            Err(e) => text += &format!("{},{},,,,{e}\n", m.spec[0], m.spec[1]),
        }
    }
    std::fs::write(csv, text)?;
    let n = (job.members.len() as f64).sqrt().round() as usize;
    let svg = Path::new("out/sweep_flip.svg");
    let root = SVGBackend::new(svg, (640, 600)).into_drawing_area();
    root.fill(&WHITE)?;
    let mut chart = ChartBuilder::on(&root)
        .caption("Double pendulum: time to the first flip (darker: sooner; red: the twin 1e-8 away differs)", ("sans-serif", 14))
        .margin(10)
        .x_label_area_size(35)
        .y_label_area_size(45)
        .build_cartesian_2d(-3.0..3.0, -3.0..3.0)?;
    chart.configure_mesh().x_desc("θ₁(0)").y_desc("θ₂(0)").disable_mesh().draw()?;
    let half = 3.0 / n as f64;
    chart.draw_series(job.members.iter().zip(outcomes).map(|(m, o)| {
        let colour = match o.result {
            Ok([t, twin, _]) if (t - twin).abs() > 1e-3 => RGBColor(200, 30, 30),
            Ok([t, ..]) if t >= HORIZON => RGBColor(250, 250, 250),
            Ok([t, ..]) => {
                let shade = (40.0 + 200.0 * (t / HORIZON).sqrt()) as u8;
                RGBColor(shade, shade, 255)
            }
            Err(_) => RGBColor(0, 0, 0),
        };
        Rectangle::new([(m.spec[0] - half, m.spec[1] - half), (m.spec[0] + half, m.spec[1] + half)], colour.filled())
    }))?;
    root.present()?;
    println!("wrote {} and {}", csv.display(), svg.display());
    Ok(())
}

fn demo() -> Result<(), Box<dyn std::error::Error>> {
    let dir = PathBuf::from("out/sweep");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir)?;
    let job_file = dir.join("job.json");
    plan(48, 2026).save(&job_file)?;
    let job: Job<Spec, Options> = Job::load(&job_file)?;
    println!("{} members in 4 shards", job.members.len());
    let shards: Vec<PathBuf> = (0..4).map(|i| dir.join(format!("shard-{i}.jsonl"))).collect();
    for (i, file) in shards.iter().enumerate() {
        run_shard(&job_file, &format!("{i}/4"), file)?;
    }
    // Shard 2 "crashes": its last 100 members are lost and the line being written is cut short.
    let text = std::fs::read_to_string(&shards[2])?;
    let lines: Vec<&str> = text.lines().collect();
    let cut = lines.len() - 100;
    std::fs::write(&shards[2], lines[..cut].join("\n") + "\n" + &lines[cut][..lines[cut].len() / 2])?;
    run_shard(&job_file, "2/4", &shards[2])?;
    let merged: Vec<Outcome<Flip>> = merge(&shards)?;
    let whole = job.run_in_process(member, &EnsembleOptions::default())?;
    let bits = |o: &[Outcome<Flip>]| -> Vec<Option<[u64; 3]>> {
        o.iter().map(|o| o.result.as_ref().ok().map(|r| r.map(f64::to_bits))).collect()
    };
    assert!(bits(&merged) == bits(&whole), "the shards disagree with the in-process run");
    let flipped = merged.iter().filter(|o| matches!(o.result, Ok([t, ..]) if t < HORIZON)).count();
    let chaotic = merged.iter().filter(|o| matches!(o.result, Ok([t, twin, _]) if (t - twin).abs() > 1e-3)).count();
    let drift = merged.iter().filter_map(|o| o.result.as_ref().ok().map(|r| r[2])).fold(0.0, f64::max);
    let failed = merged.iter().filter(|o| o.result.is_err()).count();
    println!("merged shards = in-process ensemble, bit for bit ({} members)", merged.len());
    println!("{flipped} flip within {HORIZON} s; {chaotic} whose twin 1e-8 away flips at another time; {failed} failed");
    println!("largest energy error {drift:.1e} (rtol 1e-9)");
    // Released from rest, the lower pendulum flips only with the energy to get over the top:
    // E = −g (2 cos θ₁ + cos θ₂) must reach min over θ₁ of V(θ₁, π) = −g, i.e. 2 cos θ₁ + cos θ₂ ≤ 1.
    let mut inside = 0;
    for (m, o) in job.members.iter().zip(&merged) {
        let can = 2.0 * m.spec[0].cos() + m.spec[1].cos() <= 1.0;
        inside += usize::from(can);
        if let Ok([t, ..]) = o.result {
            assert!(can || t >= HORIZON, "{:?} flips without the energy to", m.spec);
        }
    }
    println!(
        "no member flips without the energy to get over the top: {flipped} flips among the {inside} with 2 cos θ₁ + cos θ₂ ≤ 1"
    );
    write_outputs(&job, &merged, &dir.join("flip.csv"))
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: sweep [plan JOB N | run JOB i/N SHARD_FILE | merge JOB CSV SHARD_FILE...]";
    match args.iter().map(String::as_str).collect::<Vec<_>>().as_slice() {
        [] => demo(),
        ["plan", job, n] => {
            let job_plan = plan(n.parse()?, 2026);
            job_plan.save(Path::new(job))?;
            println!("{job}: {} members", job_plan.members.len());
            Ok(())
        }
        ["run", job, shard, out] => run_shard(Path::new(job), shard, Path::new(out)),
        ["merge", job, csv, shards @ ..] if !shards.is_empty() => {
            let job: Job<Spec, Options> = Job::load(Path::new(job))?;
            let merged: Vec<Outcome<Flip>> = merge(shards)?;
            std::fs::create_dir_all("out")?;
            write_outputs(&job, &merged, Path::new(csv))
        }
        _ => Err(usage.into()),
    }
}
