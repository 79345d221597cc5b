//! The Jacobi elliptic functions and the complete elliptic integral of the first kind, for the
//! closed forms of the free rigid body (Landau–Lifshitz §37), shared by `examples/tennis_racket.rs`
//! and the tests. Hand-written: no maintained crate offers them.

/// The Jacobi elliptic functions (sn, cn, dn)(u | m), 0 ≤ m < 1, by the arithmetic-geometric
/// mean (Abramowitz & Stegun 16.4): a₀ = 1, b₀ = √(1 − m), c₀ = √m, then
/// φ_N = 2^N a_N u and φ_{n−1} = (φ_n + asin(c_n sin φ_n / a_n))/2; sn = sin φ₀, cn = cos φ₀,
/// dn = √(1 − m sn²).
pub fn jacobi_elliptic(u: f64, m: f64) -> (f64, f64, f64) {
    let (mut a, mut b) = (1.0f64, (1.0 - m).sqrt());
    let mut cs = vec![m.sqrt()];
    let mut as_ = vec![a];
    while cs.last().unwrap().abs() > 1e-16 && cs.len() < 40 {
        let (an, bn, cn) = ((a + b) / 2.0, (a * b).sqrt(), (a - b) / 2.0);
        (a, b) = (an, bn);
        as_.push(a);
        cs.push(cn);
    }
    let n = cs.len() - 1;
    let mut phi = (1u64 << n) as f64 * a * u;
    for k in (1..=n).rev() {
        phi = (phi + (cs[k] / as_[k] * phi.sin()).asin()) / 2.0;
    }
    // dn = √(1 − m sn²) > 0 (A&S's cos φ₀ / cos(φ₁ − φ₀) loses its sign where cn = 0).
    let (sn, cn) = (phi.sin(), phi.cos());
    (sn, cn, (1.0 - m * sn * sn).sqrt())
}

/// The complete elliptic integral of the first kind K(m) = π / (2 AGM(1, √(1 − m))).
pub fn complete_elliptic_k(m: f64) -> f64 {
    let (mut a, mut b) = (1.0f64, (1.0 - m).sqrt());
    while (a - b).abs() > 1e-16 * a {
        (a, b) = ((a + b) / 2.0, (a * b).sqrt());
    }
    std::f64::consts::PI / (2.0 * a)
}

/// The body angular velocity of a free rigid body with principal moments I₁ < I₂ < I₃ started at
/// ω(0) = (ω₁, 0, ω₃), ω₁, ω₃ > 0, with L² > 2E I₂ (Landau–Lifshitz §37):
/// ω = (A cn τ, B sn τ, C dn τ), τ = rate · t.
pub struct FreeBodySolution {
    /// (A, B, C).
    pub amplitudes: [f64; 3],
    pub rate: f64,
    /// The parameter m of the elliptic functions.
    pub m: f64,
}

impl FreeBodySolution {
    pub fn new([i1, i2, i3]: [f64; 3], w1: f64, w3: f64) -> FreeBodySolution {
        let energy = 0.5 * (i1 * w1 * w1 + i3 * w3 * w3);
        let l2 = (i1 * w1).powi(2) + (i3 * w3).powi(2);
        assert!(i1 < i2 && i2 < i3 && l2 > 2.0 * energy * i2, "the case of the closed form");
        FreeBodySolution {
            amplitudes: [
                ((2.0 * energy * i3 - l2) / (i1 * (i3 - i1))).sqrt(),
                ((2.0 * energy * i3 - l2) / (i2 * (i3 - i2))).sqrt(),
                ((l2 - 2.0 * energy * i1) / (i3 * (i3 - i1))).sqrt(),
            ],
            rate: ((i3 - i2) * (l2 - 2.0 * energy * i1) / (i1 * i2 * i3)).sqrt(),
            m: (i2 - i1) * (2.0 * energy * i3 - l2) / ((i3 - i2) * (l2 - 2.0 * energy * i1)),
        }
    }

    /// ω(t), body components.
    pub fn omega(&self, t: f64) -> [f64; 3] {
        let (sn, cn, dn) = jacobi_elliptic(self.rate * t, self.m);
        let [a, b, c] = self.amplitudes;
        [a * cn, b * sn, c * dn]
    }

    /// The time between sign changes of ω₂ (the tennis-racket flips): 2K(m)/rate.
    pub fn flip_period(&self) -> f64 {
        2.0 * complete_elliptic_k(self.m) / self.rate
    }
}
