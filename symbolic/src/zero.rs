//! Zero testing. First structurally (canonical construction already reduced the expression to
//! the constant 0), then numerically: the expression is evaluated at several deterministic
//! pseudo-random points (each symbol drawn from ±[0.3, 1.7]) and must vanish at every finite
//! sample relative to its *magnitude*, the value obtained by replacing every sum by the sum of
//! absolute values (so `sin²x + cos²x − 1` has magnitude ≈ 2 and value ≈ 1e−16).
//! This identifies identities the canonical form does not, with a tiny chance of false positives.

use crate::arena::{Arena, Expr, Node};
use crate::eval::pow_f64;

/// Outcome of [`Arena::zero_test`].
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum ZeroTest {
    /// The canonical node is the constant 0.
    Structural,
    /// Not structurally 0 but vanishes (to rounding) at every sample point.
    Numerical,
    /// Nonzero at some sample point (or no finite sample was found).
    NonZero,
}

impl ZeroTest {
    /// `Structural` or `Numerical`.
    pub fn is_zero(self) -> bool {
        !matches!(self, ZeroTest::NonZero)
    }
}

/// Number of sample points.
const SAMPLES: u64 = 12;
/// Relative tolerance against the magnitude.
const REL_TOL: f64 = 1e-10;

/// SplitMix64 finaliser: a deterministic hash of `x` with good bit mixing.
fn splitmix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

/// Pseudo-random value in ±[0.3, 1.7] for a symbol at a sample.
fn sample_value(sym: Expr, sample: u64) -> f64 {
    let h = splitmix(splitmix(sample ^ 0x5EED) ^ u64::from(sym.0));
    let u = (h >> 11) as f64 / (1u64 << 53) as f64;
    let v = 0.3 + 1.4 * u;
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
        let mut val = vec![0.0f64; marks.len()];
        let mut mag = vec![0.0f64; marks.len()];
        let mut finite = 0;
        let mut args = Vec::new();
        for s in 0..SAMPLES {
            for i in 0..marks.len() {
                if !marks[i] {
                    continue;
                }
                let (v, m) = match &self.nodes[i] {
                    Node::Num(r) => (r.to_f64(), r.to_f64().abs()),
                    Node::Sym(_) => {
                        let x = sample_value(Expr(i as u32), s);
                        (x, x.abs())
                    }
                    Node::Add(ts) => (
                        ts.iter().map(|t| val[t.index()]).sum(),
                        ts.iter().map(|t| mag[t.index()]).sum(),
                    ),
                    Node::Mul(fs) => (
                        fs.iter().map(|f| val[f.index()]).product(),
                        fs.iter().map(|f| mag[f.index()]).product(),
                    ),
                    Node::Pow(b, x) => {
                        let r = self.as_num(*x);
                        let v = pow_f64(val[b.index()], r, val[x.index()]);
                        let m = match r {
                            Some(r) if !r.is_negative() => {
                                pow_f64(mag[b.index()], Some(r), r.to_f64())
                            }
                            _ => v.abs(),
                        };
                        (v, m)
                    }
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
            finite += 1;
            if v.abs() > REL_TOL * m.max(f64::MIN_POSITIVE) {
                return ZeroTest::NonZero;
            }
        }
        if finite >= 3 {
            ZeroTest::Numerical
        } else {
            ZeroTest::NonZero
        }
    }
}
