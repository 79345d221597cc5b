//! Shared by the hybrid runtime tests: a particle on a line with one guard and a velocity reset.
#![allow(dead_code)]

use routh_runtime::nalgebra::Vector2;
use routh_runtime::{FieldError, HybridOptions, HybridSystem};

// ---------------------------------------------------------------------------------------------
// A particle on a line, x = (position, velocity), with acceleration a₀ − k·position, one guard
// sign·(position − at) ≥ 0 and a reset that multiplies the velocity by `factor`: the bouncing ball,
// an oscillator against a stop, a grazing approach, and a reset that does nothing.

pub struct Bounce {
    pub a0: f64,
    pub k: f64,
    pub sign: f64,
    pub at: f64,
    pub factor: f64,
    pub guard: &'static str,
}

/// Bouncing ball: floor y ≥ 0, gravity g, restitution e.
pub fn ball(g: f64, e: f64) -> Bounce {
    Bounce { a0: -g, k: 0.0, sign: 1.0, at: 0.0, factor: -e, guard: "floor" }
}

impl HybridSystem<2> for Bounce {
    fn mode_name(&self, _mode: usize) -> &'static str {
        "line"
    }
    fn mode_field(&self, _m: usize, _t: f64, x: &Vector2<f64>) -> Result<Vector2<f64>, FieldError> {
        Ok(Vector2::new(x[1], self.a0 - self.k * x[0]))
    }
    fn guard_count(&self, _mode: usize) -> usize {
        1
    }
    fn guard_name(&self, _mode: usize, _guard: usize) -> &'static str {
        self.guard
    }
    fn guard(&self, _m: usize, _g: usize, _t: f64, x: &Vector2<f64>) -> f64 {
        self.sign * (x[0] - self.at)
    }
    fn guard_rate(&self, _m: usize, _g: usize, _t: f64, x: &Vector2<f64>) -> f64 {
        self.sign * x[1]
    }
    fn reset(&self, m: usize, _g: usize, _t: f64, x: &Vector2<f64>) -> Result<(usize, Vector2<f64>), FieldError> {
        Ok((m, Vector2::new(x[0], self.factor * x[1])))
    }
    fn mode_energy(&self, _m: usize, _t: f64, x: &Vector2<f64>) -> f64 {
        0.5 * x[1] * x[1] - self.a0 * x[0] + 0.5 * self.k * x[0] * x[0]
    }
}

pub fn tight() -> HybridOptions {
    HybridOptions::default().rtol(1e-12).atol(1e-14)
}

/// Impact times of a ball dropped from rest at height h0: t1 = √(2h0/g), then intervals
/// 2 eᵏ v1/g = 2 eᵏ t1.
pub fn ball_impacts(h0: f64, g: f64, e: f64, n: usize) -> Vec<f64> {
    let t1 = (2.0 * h0 / g).sqrt();
    let mut out = vec![t1];
    for k in 1..n {
        out.push(out[k - 1] + 2.0 * e.powi(k as i32) * t1);
    }
    out
}

/// Harmonic oscillator ẍ = −ω² x against an elastic stop at x = −s.
pub fn stop(w: f64, s: f64) -> Bounce {
    Bounce { a0: 0.0, k: w * w, sign: 1.0, at: -s, factor: -1.0, guard: "stop" }
}
