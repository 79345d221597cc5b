//! Zero testing: randomized identity testing in high precision.
//!
//! First structurally (canonical construction already reduced the expression to the constant 0).
//! Otherwise the expression is evaluated at [`SAMPLES`] deterministic pseudo-random points (each
//! symbol drawn from ±[0.3, 1.7], values exact in binary), together with its *magnitude*: the
//! scale against which rounding is measured — a sum's the sum of its terms' (so `sin²x + cos²x −
//! 1` has magnitude ≈ 3), a product's to first order, each factor's magnitude times the others'
//! values (a running error bound: the product of the factors' magnitudes would square at every
//! level of a DAG that uses a level twice, as a chain of frames does, and overflow where the
//! values are about one), a call's its value's plus its argument's.
//!
//! 1. A screen in `f64`: a sample whose value exceeds `1e-6` of its magnitude is nonzero for sure
//!    (the rounding of an identity stays near `1e-16` of the magnitude); the expression is
//!    nonzero.
//! 2. Otherwise the decision is made in [`PRECISION`]-bit arithmetic at the same points: the
//!    expression is zero only if at every finite sample its value is below `2^-200` of its
//!    magnitude (rounding at 320 bits leaves a true identity near `2^-320`, so 120 bits of margin
//!    remain for cancellation), and at least 3 samples are finite.
//!
//! **Non-smooth expressions.** The argument above is the identity theorem: an analytic expression
//! that vanishes on an open set vanishes on its connected domain. Absolute values, roots, logarithms
//! and `atan2` make expressions only piecewise analytic — `|x − 3| + x − 3` vanishes for x < 3 and
//! nowhere else — so for them the test does more:
//!
//! - every absolute value |u| (also written `sqrt(u²)`, which construction turns into |u|) is split
//!   into its branches: the expression is zero only if it is zero with each |u| replaced by u and
//!   by −u, for every combination of signs (each branch is analytic, so the identity theorem
//!   applies to it). More than [`MAX_ABS_BRANCHES`] absolute values are not split: the test
//!   reports [`ZeroTest::Undecided`] rather than guess;
//! - with any non-smooth node ([`Func::Abs`], a root or other non-integer power, `ln`, `atan2`) the
//!   expression is also sampled at [`WIDE_SAMPLES`] points with every symbol log-uniform in
//!   ±[10⁻³, 10³], both signs, so that a branch cut or the far side of a zero of a root's argument
//!   is visited.
//!
//! [`Arena::zero_test`] reports [`ZeroTest::Branchwise`] when the decision needed the split.
//!
//! **Guarantee.** A true identity is recognised (up to a cancellation of more than 120 bits,
//! i.e. intermediate values 10³⁶ times the result's scale). A nonzero expression is declared zero
//! only if it is below 10⁻⁶⁰ of its own magnitude at all the random points — for an analytic
//! expression, only when a coefficient hidden behind an identity is that small relative to the
//! rest. A float tolerance (the previous test's `1e-10`) let `k (sin 2φ − 2 sin φ cos φ + φ/10¹²)`
//! pass as zero; here it is nonzero by 48 orders of magnitude, and a hidden `10⁻³⁰` by 30.

use astro_float_num::{BigFloat, Consts, RoundingMode};

use crate::arena::{Arena, Expr, Func, Node};
use crate::eval::pow_f64;

/// Outcome of [`Arena::zero_test`].
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum ZeroTest {
    /// The canonical node is the constant 0.
    Structural,
    /// Not structurally 0 but vanishes (to rounding) at every sample point.
    Numerical,
    /// Contains absolute values and vanishes on every branch of them (each |u| replaced by ±u) at
    /// every sample point, near the origin and across scales (see the module documentation).
    Branchwise,
    /// Nonzero at some sample point (or no finite sample was found).
    NonZero,
    /// Not decided: more than [`MAX_ABS_BRANCHES`] absolute values to split. Treated as nonzero
    /// by [`ZeroTest::is_zero`]; a caller that proves something should say it could not decide.
    Undecided,
}

impl ZeroTest {
    /// `Structural` or `Numerical`.
    pub fn is_zero(self) -> bool {
        matches!(self, ZeroTest::Structural | ZeroTest::Numerical | ZeroTest::Branchwise)
    }
}

/// Number of sample points.
pub const SAMPLES: u64 = 12;
/// Additional sample points, across scales, for expressions with non-smooth nodes.
pub const WIDE_SAMPLES: u64 = 24;
/// The most absolute values a zero test splits into branches (2^this evaluations).
pub const MAX_ABS_BRANCHES: usize = 8;
/// A factor's value is taken at least this fraction of its scale in a product's scale (its own
/// rounding in `f64`, with margin).
const FLOOR: f64 = 1e-15;
/// A sample above this fraction of its magnitude is nonzero already in `f64`.
const SCREEN: f64 = 1e-6;
/// Bits of the high-precision stage.
pub const PRECISION: usize = 320;
/// A value below `2^-ZERO_BITS` of its magnitude counts as zero in the high-precision stage.
const ZERO_BITS: i32 = 200;

/// SplitMix64 finaliser: a deterministic hash of `x` with good bit mixing.
fn splitmix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

/// Pseudo-random value for a symbol at a sample: in ±[0.3, 1.7] for the first [`SAMPLES`], then
/// log-uniform in ±[10⁻³, 10³] (the wide samples).
fn sample_value(sym: Expr, sample: u64) -> f64 {
    let h = splitmix(splitmix(sample ^ 0x5EED) ^ u64::from(sym.0));
    let u = (h >> 11) as f64 / (1u64 << 53) as f64;
    let v = if sample < SAMPLES { 0.3 + 1.4 * u } else { 10f64.powf(6.0 * u - 3.0) };
    if h & 1 == 1 { -v } else { v }
}

impl Arena {
    /// Structural or numerical zero test (see the module documentation).
    pub fn zero_test(&self, e: Expr) -> ZeroTest {
        if self.as_num(e).is_some_and(|r| r.is_zero()) {
            return ZeroTest::Structural;
        }
        if self.as_num(e).is_some() {
            return ZeroTest::NonZero;
        }
        let marks = self.reach_marks(&[e]);
        let abs: Vec<usize> =
            (0..marks.len()).filter(|&i| marks[i] && matches!(&self.nodes[i], Node::Call(Func::Abs, _))).collect();
        let non_smooth = (0..marks.len()).any(|i| marks[i] && self.is_non_smooth(i));
        let samples = if non_smooth { SAMPLES + WIDE_SAMPLES } else { SAMPLES };
        if abs.is_empty() {
            return if self.vanishes(e, &marks, &[], samples) { ZeroTest::Numerical } else { ZeroTest::NonZero };
        }
        if abs.len() > MAX_ABS_BRANCHES {
            return ZeroTest::Undecided;
        }
        for pattern in 0u32..(1 << abs.len()) {
            let signs: Vec<(usize, f64)> =
                abs.iter().enumerate().map(|(k, &i)| (i, if pattern >> k & 1 == 1 { -1.0 } else { 1.0 })).collect();
            if !self.vanishes(e, &marks, &signs, samples) {
                return ZeroTest::NonZero;
            }
        }
        ZeroTest::Branchwise
    }

    /// Whether node `i` is only piecewise analytic or has a restricted domain: an absolute value,
    /// a non-integer or symbolic power, `ln`, `atan2`.
    fn is_non_smooth(&self, i: usize) -> bool {
        match &self.nodes[i] {
            Node::Call(f, _) => matches!(f, Func::Abs | Func::Ln | Func::Atan2),
            Node::Pow(_, x) => !self.as_num(*x).is_some_and(|r| r.is_integer()),
            _ => false,
        }
    }

    /// Whether `e` vanishes at the first `samples` points, with the absolute values `signs` (node,
    /// ±1) replaced by their branch ±u (see the module documentation).
    fn vanishes(&self, e: Expr, marks: &[bool], signs: &[(usize, f64)], samples: u64) -> bool {
        let branch = |i: usize| signs.iter().find(|(j, _)| *j == i).map(|&(_, s)| s);
        let mut val = vec![0.0f64; marks.len()];
        let mut mag = vec![0.0f64; marks.len()];
        let mut finite = 0;
        let mut candidates: Vec<(u64, f64)> = Vec::new();
        let mut args = Vec::new();
        for s in 0..samples {
            for i in 0..marks.len() {
                if !marks[i] {
                    continue;
                }
                let (v, m) = match &self.nodes[i] {
                    Node::Num(r) => (r.to_f64(), r.to_f64().abs()),
                    Node::Pi => (std::f64::consts::PI, std::f64::consts::PI),
                    Node::Sym(_) => {
                        let x = sample_value(Expr(i as u32), s);
                        (x, x.abs())
                    }
                    Node::Add(ts) => (ts.iter().map(|t| val[t.index()]).sum(), ts.iter().map(|t| mag[t.index()]).sum()),
                    // A product's rounding, to first order: each factor's scale times the others'
                    // values (each at least its own rounding, `FLOOR` of its scale: a factor that
                    // is a rounded zero still carries the other's scale) — not the product of
                    // the scales, which squares at every level of a deep DAG (a chain of frames
                    // each its parent's times a turn and a transpose of the parent at zero: 10²¹⁹
                    // and then ∞ at the Kinova's sixth link, where the value is 10⁻¹⁶).
                    Node::Mul(fs) => {
                        let v: f64 = fs.iter().map(|f| val[f.index()]).product();
                        let m: f64 = (0..fs.len())
                            .map(|i| {
                                let others: f64 = fs
                                    .iter()
                                    .enumerate()
                                    .filter(|&(j, _)| j != i)
                                    .map(|(_, f)| val[f.index()].abs().max(FLOOR * mag[f.index()]))
                                    .product();
                                mag[fs[i].index()] * others
                            })
                            .sum();
                        (v, m.max(v.abs()))
                    }
                    Node::Pow(b, x) => {
                        let r = self.as_num(*x);
                        let v = pow_f64(val[b.index()], r, val[x.index()]);
                        let m = match r {
                            // u^n, n ≥ 1, to first order: n |u|^(n−1) times u's scale.
                            Some(r) if r.is_integer() && !r.is_negative() && !r.is_zero() => {
                                let n = r.to_f64();
                                let base = val[b.index()].abs().max(FLOOR * mag[b.index()]);
                                (n * base.powf(n - 1.0) * mag[b.index()]).max(v.abs())
                            }
                            Some(r) if !r.is_negative() => pow_f64(mag[b.index()], Some(r), r.to_f64()),
                            _ => v.abs(),
                        };
                        (v, m)
                    }
                    Node::Call(Func::Abs, xs) if let Some(sign) = branch(i) => (sign * val[xs[0].index()], mag[xs[0].index()]),
                    Node::Call(f, xs) => {
                        args.clear();
                        args.extend(xs.iter().map(|x| val[x.index()]));
                        let v = f.eval(&args);
                        // Roughly Lipschitz-1 in the arguments: a cancelling argument should not
                        // make the call look exactly zero-magnitude.
                        let m = v.abs() + xs.iter().map(|x| mag[x.index()]).fold(0.0, f64::max);
                        (v, m)
                    }
                };
                val[i] = v;
                mag[i] = m;
            }
            let (v, m) = (val[e.index()], mag[e.index()]);
            if !v.is_finite() || !m.is_finite() {
                continue;
            }
            if v.abs() > SCREEN * m.max(f64::MIN_POSITIVE) {
                return false;
            }
            candidates.push((s, m));
        }
        // The decision, in high precision at the samples the screen could not decide.
        let Ok(mut cc) = Consts::new() else { return false };
        for &(s, m) in &candidates {
            let Some(v) = self.value_hp(e, marks, signs, s, &mut cc) else { continue };
            finite += 1;
            let below = v.is_zero()
                || v.exponent().is_some_and(|x| {
                    // |v| < 2^x; zero when 2^x ≤ 2^-ZERO_BITS · m.
                    f64::from(x) <= m.max(f64::MIN_POSITIVE).log2() - f64::from(ZERO_BITS)
                });
            if !below {
                return false;
            }
        }
        finite >= 3
    }

    /// The value of `e` at sample `s` in [`PRECISION`]-bit arithmetic (`None` if not finite), with
    /// the absolute values `signs` replaced by their branches.
    fn value_hp(&self, e: Expr, marks: &[bool], signs: &[(usize, f64)], s: u64, cc: &mut Consts) -> Option<BigFloat> {
        let (p, rm) = (PRECISION, RoundingMode::ToEven);
        let mut val: Vec<Option<BigFloat>> = vec![None; marks.len()];
        for i in 0..marks.len() {
            if !marks[i] {
                continue;
            }
            let get =
                |val: &[Option<BigFloat>], x: &Expr| val[x.index()].clone().unwrap_or_else(|| BigFloat::from_f64(f64::NAN, p));
            let v = match &self.nodes[i] {
                Node::Num(r) => BigFloat::from_i128(r.num(), p).div(&BigFloat::from_i128(r.den(), p), p, rm),
                Node::Pi => cc.pi(p, rm),
                Node::Sym(_) => BigFloat::from_f64(sample_value(Expr(i as u32), s), p),
                Node::Add(ts) => ts.iter().fold(BigFloat::from_i64(0, p), |acc, t| acc.add(&get(&val, t), p, rm)),
                Node::Mul(fs) => fs.iter().fold(BigFloat::from_i64(1, p), |acc, f| acc.mul(&get(&val, f), p, rm)),
                Node::Pow(b, x) => {
                    let base = get(&val, b);
                    match self.as_num(*x) {
                        Some(r) if r.is_integer() && r.num().unsigned_abs() <= u128::from(u32::MAX) => {
                            let n = r.num().unsigned_abs() as usize;
                            let pw = base.powi(n, p, rm);
                            if r.is_negative() { BigFloat::from_i64(1, p).div(&pw, p, rm) } else { pw }
                        }
                        Some(r) if r.den() == 2 && r.num() == 1 => base.sqrt(p, rm),
                        Some(r) if r.den() == 2 && r.num() == -1 => BigFloat::from_i64(1, p).div(&base.sqrt(p, rm), p, rm),
                        _ => base.pow(&get(&val, x), p, rm, cc),
                    }
                }
                Node::Call(Func::Abs, xs) if let Some(&(_, sign)) = signs.iter().find(|(j, _)| *j == i) => {
                    let a = get(&val, &xs[0]);
                    if sign < 0.0 { a.neg() } else { a }
                }
                Node::Call(f, xs) => {
                    let a = get(&val, &xs[0]);
                    match f {
                        Func::Sin => a.sin(p, rm, cc),
                        Func::Cos => a.cos(p, rm, cc),
                        Func::Tan => a.tan(p, rm, cc),
                        Func::Exp => a.exp(p, rm, cc),
                        Func::Ln => a.ln(p, rm, cc),
                        Func::Sinh => a.sinh(p, rm, cc),
                        Func::Cosh => a.cosh(p, rm, cc),
                        Func::Tanh => a.tanh(p, rm, cc),
                        Func::Abs => a.abs(),
                        Func::Atan2 => atan2_hp(&a, &get(&val, &xs[1]), p, rm, cc),
                    }
                }
            };
            if v.is_nan() || v.is_inf() {
                return None;
            }
            val[i] = Some(v);
        }
        val[e.index()].take()
    }
}

/// `atan2(y, x)` from `atan`, by quadrant.
fn atan2_hp(y: &BigFloat, x: &BigFloat, p: usize, rm: RoundingMode, cc: &mut Consts) -> BigFloat {
    if x.is_zero() {
        let half_pi = BigFloat::from_i64(1, p).atan(p, rm, cc).mul(&BigFloat::from_i64(2, p), p, rm);
        return if y.is_negative() { half_pi.neg() } else { half_pi };
    }
    let base = y.div(x, p, rm).atan(p, rm, cc);
    if x.is_positive() {
        return base;
    }
    let pi = BigFloat::from_i64(1, p).atan(p, rm, cc).mul(&BigFloat::from_i64(4, p), p, rm);
    if y.is_negative() { base.sub(&pi, p, rm) } else { base.add(&pi, p, rm) }
}
