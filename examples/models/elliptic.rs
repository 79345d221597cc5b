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
