//! A harmonically forced, undamped oscillator — a time-dependent force — against its closed form.
//!
//! m ẍ + k x = F₀ cos(w t), x(0) = x₀, ẋ(0) = v₀ has, for w ≠ ω₀ = √(k/m),
//! x(t) = (x₀ − C) cos ω₀t + (v₀/ω₀) sin ω₀t + C cos wt with C = F₀ / (m (ω₀² − w²)).
//!
//! Run with `cargo run --release --example forced_oscillator`.

use routh::prelude::*;

/// Mass on a spring driven by a harmonic force.
#[derive(Mechanics)]
#[mechanics(
    coordinates(x),
    lagrangian = m / 2 * dot(x).powi(2) - k / 2 * x.powi(2),
    force(x = f0 * (w * t).cos()),
)]
pub struct ForcedOscillator {
    pub m: f64,
    pub k: f64,
    pub f0: f64,
    pub w: f64,
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let sys = ForcedOscillator { m: 1.0, k: 4.0, f0: 0.5, w: 1.3 };
    let (x0, v0) = (0.2, 0.0);
    let w0 = (sys.k / sys.m).sqrt();
    let c = sys.f0 / (sys.m * (w0 * w0 - sys.w * sys.w));
    let exact = |t: f64| (x0 - c) * (w0 * t).cos() + v0 / w0 * (w0 * t).sin() + c * (sys.w * t).cos();

    let times: Vec<f64> = (0..=40).map(|k| 0.5 * f64::from(k)).collect();
    let options = Options::default().rtol(1e-10).atol(1e-12).output(Output::Times(times));
    let sol = sys.run(sys.state([x0], [v0])).span(0.0..20.0).options(&options).go()?;

    let mut worst: f64 = 0.0;
    println!("{:>6} {:>14} {:>14} {:>10}", "t", "x (routh)", "x (exact)", "error");
    for (t, x) in sol.iter() {
        let err = (x[0] - exact(t)).abs();
        worst = worst.max(err);
        if (t * 2.0).round() as i64 % 8 == 0 {
            println!("{t:>6.2} {:>14.10} {:>14.10} {err:>10.2e}", x[0], exact(t));
        }
    }
    println!("max |error| over {} output times: {worst:.2e}", sol.len());
    if worst > 1e-7 {
        return Err(format!("forced oscillator deviates from the closed form by {worst:e}").into());
    }
    Ok(())
}
