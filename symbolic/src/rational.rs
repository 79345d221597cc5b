//! Exact rational numbers `num/den` over `i128`.
//!
//! Invariants: `den > 0` and `gcd(|num|, den) = 1`, so equal values have equal representations and
//! the derived `Eq`/`Hash` agree with numeric equality. Every operation is checked: overflow yields
//! `None`, never a panic, and callers (the canonicaliser) then leave the expression unfolded.

use std::cmp::Ordering;
use std::fmt;

/// An exact rational number in lowest terms with a positive denominator.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Rational {
    num: i128,
    den: i128,
}

/// Euclid's algorithm on magnitudes (no overflow for any `i128`, including `i128::MIN`).
pub(crate) fn gcd_u(mut a: u128, mut b: u128) -> u128 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// Applies a sign to a magnitude, `None` if the result does not fit in `i128`.
fn signed(mag: u128, negative: bool) -> Option<i128> {
    if negative {
        if mag == 1u128 << 127 { Some(i128::MIN) } else { i128::try_from(mag).ok().map(|v| -v) }
    } else {
        i128::try_from(mag).ok()
    }
}

impl Rational {
    /// `num/den` reduced to lowest terms; `None` if `den == 0` or the reduced value does not fit.
    pub fn new(num: i128, den: i128) -> Option<Rational> {
        if den == 0 {
            return None;
        }
        if num == 0 {
            return Some(Rational::zero());
        }
        let (na, da) = (num.unsigned_abs(), den.unsigned_abs());
        let g = gcd_u(na, da);
        let negative = (num < 0) != (den < 0);
        let num = signed(na / g, negative)?;
        let den = i128::try_from(da / g).ok()?;
        Some(Rational { num, den })
    }

    /// The integer `n`.
    pub fn integer(n: i128) -> Rational {
        Rational { num: n, den: 1 }
    }

    /// 0.
    pub fn zero() -> Rational {
        Rational::integer(0)
    }

    /// 1.
    pub fn one() -> Rational {
        Rational::integer(1)
    }

    /// Numerator (carries the sign).
    pub fn num(&self) -> i128 {
        self.num
    }

    /// Denominator (always positive).
    pub fn den(&self) -> i128 {
        self.den
    }

    /// `self == 0`.
    pub fn is_zero(&self) -> bool {
        self.num == 0
    }

    /// `self == 1`.
    pub fn is_one(&self) -> bool {
        self.num == 1 && self.den == 1
    }

    /// `self == -1`.
    pub fn is_minus_one(&self) -> bool {
        self.num == -1 && self.den == 1
    }

    /// Denominator is 1.
    pub fn is_integer(&self) -> bool {
        self.den == 1
    }

    /// `self < 0`.
    pub fn is_negative(&self) -> bool {
        self.num < 0
    }

    /// Nearest-ish `f64` (exact when numerator and denominator are below 2^53).
    pub fn to_f64(&self) -> f64 {
        self.num as f64 / self.den as f64
    }

    /// The simplest rational within `tol` of `x` whose denominator is at most `max_den` (the
    /// continued-fraction convergents of x), or `None` if there is none or `x` is not finite. To
    /// turn a float that should be a small fraction into one, which a zero test then proves.
    pub fn approximate(x: f64, tol: f64, max_den: i128) -> Option<Rational> {
        if !x.is_finite() || x.abs() > 1e15 {
            return None;
        }
        // Convergents h/k of x: h₋₁ = 1, h₋₂ = 0, k₋₁ = 0, k₋₂ = 1.
        let (mut h, mut h_prev, mut k, mut k_prev) = (1i128, 0i128, 0i128, 1i128);
        let mut rest = x;
        for _ in 0..64 {
            let a = rest.floor();
            #[allow(clippy::cast_possible_truncation)] // |a| ≤ 1e15 (checked above) or a partial quotient
            let ai = a as i128;
            (h, h_prev) = (ai.checked_mul(h)?.checked_add(h_prev)?, h);
            (k, k_prev) = (ai.checked_mul(k)?.checked_add(k_prev)?, k);
            if k > max_den {
                return None;
            }
            #[allow(clippy::cast_precision_loss)] // h, k are small here (k ≤ max_den)
            if (h as f64 / k as f64 - x).abs() <= tol {
                return Rational::new(h, k);
            }
            let frac = rest - a;
            if frac == 0.0 {
                return None;
            }
            rest = 1.0 / frac;
        }
        None
    }

    /// The value as an `i64` if it is an integer that fits.
    pub fn to_i64(&self) -> Option<i64> {
        if self.den == 1 { i64::try_from(self.num).ok() } else { None }
    }

    /// `|self|`, `None` only for `i128::MIN`.
    pub fn checked_abs(&self) -> Option<Rational> {
        Some(Rational { num: self.num.checked_abs()?, den: self.den })
    }

    /// `a/b + c/d = (a·(d/g) + c·(b/g)) / (b/g · d)` with `g = gcd(b, d)`.
    pub fn checked_add(&self, o: &Rational) -> Option<Rational> {
        if self.den == 1 && o.den == 1 {
            return Some(Rational::integer(self.num.checked_add(o.num)?));
        }
        let g = gcd_u(self.den as u128, o.den as u128) as i128;
        let (bg, dg) = (self.den / g, o.den / g);
        let n = self.num.checked_mul(dg)?.checked_add(o.num.checked_mul(bg)?)?;
        Rational::new(n, bg.checked_mul(o.den)?)
    }

    /// `self - o`.
    pub fn checked_sub(&self, o: &Rational) -> Option<Rational> {
        self.checked_add(&o.checked_neg()?)
    }

    /// `-self`.
    pub fn checked_neg(&self) -> Option<Rational> {
        Some(Rational { num: self.num.checked_neg()?, den: self.den })
    }

    /// `(a/b)·(c/d)` with cross-cancellation `gcd(a, d)`, `gcd(c, b)` before multiplying.
    pub fn checked_mul(&self, o: &Rational) -> Option<Rational> {
        if self.num == 0 || o.num == 0 {
            return Some(Rational::zero());
        }
        let g1 = i128::try_from(gcd_u(self.num.unsigned_abs(), o.den as u128)).ok()?;
        let g2 = i128::try_from(gcd_u(o.num.unsigned_abs(), self.den as u128)).ok()?;
        let n = (self.num / g1).checked_mul(o.num / g2)?;
        let d = (self.den / g2).checked_mul(o.den / g1)?;
        Rational::new(n, d)
    }

    /// `1/self`, `None` for zero.
    pub fn checked_recip(&self) -> Option<Rational> {
        Rational::new(self.den, self.num)
    }

    /// `self / o`, `None` if `o == 0`.
    pub fn checked_div(&self, o: &Rational) -> Option<Rational> {
        self.checked_mul(&o.checked_recip()?)
    }

    /// `self^n` by binary exponentiation; negative `n` inverts (`None` for `0^-n`).
    pub fn checked_pow(&self, n: i128) -> Option<Rational> {
        if n < 0 {
            return self.checked_recip()?.checked_pow(n.checked_neg()?);
        }
        let mut result = Rational::one();
        let mut base = *self;
        let mut e = n;
        // Cheap exits so huge exponents of 0, ±1 do not loop.
        if self.is_zero() {
            return Some(if n == 0 { Rational::one() } else { Rational::zero() });
        }
        if self.is_one() {
            return Some(result);
        }
        if self.is_minus_one() {
            return Some(if n % 2 == 0 { result } else { *self });
        }
        while e > 0 {
            if e & 1 == 1 {
                result = result.checked_mul(&base)?;
            }
            e >>= 1;
            if e > 0 {
                base = base.checked_mul(&base)?;
            }
        }
        Some(result)
    }

    /// Exact conversion of a decimal literal: optional sign, digits with an optional fraction,
    /// optional exponent (`e`/`E`), `_` separators allowed, e.g. `"0.5"`, `"2.5e-3"`, `"3"`, `"-1_000.25"`.
    /// Value = mantissa · 10^(exponent − fraction digits). `None` if malformed or out of range
    /// (see [`Rational::parse_decimal_factors`] for literals such as `1.054571817e-34`).
    pub fn parse_decimal(s: &str) -> Option<Rational> {
        let (neg, m, e) = decimal_parts(s)?;
        if m == 0 {
            return Some(Rational::zero());
        }
        if e.unsigned_abs() > 80 {
            return None;
        }
        let p = Rational::integer(10).checked_pow(i128::from(e))?;
        let v = Rational::integer(m).checked_mul(&p)?;
        if neg { v.checked_neg() } else { Some(v) }
    }

    /// A decimal literal as an exact product of rationals that each fit: the signed mantissa
    /// and powers of ten `10^k` with `|k| ≤ 38`, e.g. `1.054571817e-34` = 1054571817 · 10⁻³⁸ ·
    /// 10⁻⁵. Their product is the literal's value exactly, for literals whose single rational
    /// would overflow [`Rational::parse_decimal`]. `None` if malformed, if the mantissa has more
    /// significant digits than an `i128` holds (38), or if `|exponent| > 400` (beyond `f64`).
    pub fn parse_decimal_factors(s: &str) -> Option<Vec<Rational>> {
        let (neg, m, mut e) = decimal_parts(s)?;
        if m == 0 {
            return Some(vec![Rational::zero()]);
        }
        if e.unsigned_abs() > 400 {
            return None;
        }
        let mut factors = vec![Rational::integer(if neg { -m } else { m })];
        while e != 0 {
            let k = e.clamp(-38, 38);
            factors.push(Rational::integer(10).checked_pow(i128::from(k))?);
            e -= k;
        }
        Some(factors)
    }
}

/// Sign, integer mantissa (trailing zeros moved to the exponent) and exponent of a decimal
/// literal; `None` if malformed or if the mantissa does not fit an `i128`.
fn decimal_parts(s: &str) -> Option<(bool, i128, i64)> {
    let s: String = s.chars().filter(|&c| c != '_').collect();
    let (neg, body) = match s.as_bytes().first()? {
        b'-' => (true, &s[1..]),
        b'+' => (false, &s[1..]),
        _ => (false, &s[..]),
    };
    let (mant, exp) = match body.find(['e', 'E']) {
        Some(i) => (&body[..i], Some(&body[i + 1..])),
        None => (body, None),
    };
    let (int_part, frac_part) = match mant.find('.') {
        Some(i) => (&mant[..i], &mant[i + 1..]),
        None => (mant, ""),
    };
    if int_part.is_empty() && frac_part.is_empty() {
        return None;
    }
    let digits: Vec<u8> = int_part.bytes().chain(frac_part.bytes()).collect();
    if !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let mut e: i64 = match exp {
        Some(t) => {
            let t = t.strip_prefix('+').unwrap_or(t);
            if t.is_empty() {
                return None;
            }
            t.parse::<i64>().ok()?
        }
        None => 0,
    };
    e = e.checked_sub(i64::try_from(frac_part.len()).ok()?)?;
    // Trailing zeros of the mantissa go to the exponent (the value is unchanged).
    let significant = digits.iter().rposition(|&c| c != b'0').map_or(0, |i| i + 1);
    e = e.checked_add(i64::try_from(digits.len() - significant).ok()?)?;
    let mut m: i128 = 0;
    for &c in &digits[..significant] {
        m = m.checked_mul(10)?.checked_add(i128::from(c - b'0'))?;
    }
    Some((neg, m, e))
}

/// Exact comparison of `a/b` and `c/d` (`b, d > 0`) without overflow: compare the integer parts
/// (floor division), and if they agree compare the fractional parts `r1/b` vs `r2/d`, which is
/// the reversed comparison of `d/r2` vs `b/r1` (continued-fraction expansion).
fn cmp_frac(a: i128, b: i128, c: i128, d: i128) -> Ordering {
    let (q1, r1) = (a.div_euclid(b), a.rem_euclid(b));
    let (q2, r2) = (c.div_euclid(d), c.rem_euclid(d));
    if q1 != q2 {
        return q1.cmp(&q2);
    }
    match (r1 == 0, r2 == 0) {
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Less,
        (false, true) => Ordering::Greater,
        (false, false) => cmp_frac(d, r2, b, r1),
    }
}

impl Ord for Rational {
    fn cmp(&self, o: &Self) -> Ordering {
        cmp_frac(self.num, self.den, o.num, o.den)
    }
}

impl PartialOrd for Rational {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}

impl fmt::Display for Rational {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.den == 1 { write!(f, "{}", self.num) } else { write!(f, "{}/{}", self.num, self.den) }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn approximate_finds_small_fractions_and_refuses_others() {
        assert_eq!(Rational::approximate(-1.0, 1e-12, 100), Rational::new(-1, 1));
        assert_eq!(Rational::approximate(0.0, 1e-12, 100), Rational::new(0, 1));
        assert_eq!(Rational::approximate(2.0 / 3.0 + 1e-14, 1e-12, 100), Rational::new(2, 3));
        assert_eq!(Rational::approximate(-0.125, 1e-12, 100), Rational::new(-1, 8));
        assert_eq!(Rational::approximate(std::f64::consts::PI, 1e-12, 1000), None);
        assert_eq!(Rational::approximate(f64::NAN, 1e-12, 1000), None);
    }

    use super::*;

    fn r(n: i128, d: i128) -> Rational {
        Rational::new(n, d).unwrap()
    }

    #[test]
    fn arithmetic_is_exact() {
        assert_eq!(r(1, 3).checked_add(&r(1, 6)), Some(r(1, 2)));
        assert_eq!(r(2, -4), r(-1, 2));
        assert_eq!(r(3, 4).checked_mul(&r(4, 3)), Some(Rational::one()));
        assert_eq!(r(1, 2).checked_div(&Rational::zero()), None);
        assert_eq!(Rational::new(1, 0), None);
        assert_eq!(r(2, 3).checked_pow(-2), Some(r(9, 4)));
        assert_eq!(Rational::integer(i128::MAX).checked_add(&Rational::one()), None);
        assert_eq!(Rational::integer(10).checked_pow(100), None);
        assert_eq!(Rational::new(i128::MIN, -1), None);
        assert_eq!(Rational::new(i128::MIN, i128::MIN), Some(Rational::one()));
        assert_eq!(r(-3, 2).to_string(), "-3/2");
        assert_eq!(Rational::integer(-1).to_string(), "-1");
    }

    #[test]
    fn ordering_by_value() {
        assert!(r(1, 3) < r(1, 2));
        assert!(r(-1, 2) < r(-1, 3));
        assert!(r(i128::MAX, i128::MAX - 1) < r(i128::MAX - 1, i128::MAX - 2));
        assert!(r(i128::MAX - 1, i128::MAX) < Rational::one());
        assert_eq!(r(7, 3).cmp(&r(14, 6)), Ordering::Equal);
    }

    #[test]
    fn parse_decimals() {
        assert_eq!(Rational::parse_decimal("0.5"), Some(r(1, 2)));
        assert_eq!(Rational::parse_decimal("2.5e-3"), Some(r(1, 400)));
        assert_eq!(Rational::parse_decimal("3"), Some(Rational::integer(3)));
        assert_eq!(Rational::parse_decimal("-1_000.25"), Some(r(-4001, 4)));
        assert_eq!(Rational::parse_decimal("1E+2"), Some(Rational::integer(100)));
        assert_eq!(Rational::parse_decimal(".25"), Some(r(1, 4)));
        assert_eq!(Rational::parse_decimal("1e400"), None);
        assert_eq!(Rational::parse_decimal("abc"), None);
        assert_eq!(Rational::parse_decimal(""), None);
        assert_eq!(Rational::parse_decimal("1e"), None);
        // Trailing zeros of a long mantissa move to the exponent.
        assert_eq!(Rational::parse_decimal("1000000000000000000000000000000000000000000e-40"), Some(Rational::integer(100)));
    }

    #[test]
    fn decimal_factors_multiply_to_the_literal() {
        let ten = |k: i128| Rational::integer(10).checked_pow(k).unwrap();
        assert_eq!(
            Rational::parse_decimal_factors("1.054571817e-34"),
            Some(vec![Rational::integer(1054571817), ten(-38), ten(-5)])
        );
        assert_eq!(Rational::parse_decimal_factors("-1e40"), Some(vec![Rational::integer(-1), ten(38), ten(2)]));
        assert_eq!(Rational::parse_decimal_factors("0e500"), Some(vec![Rational::zero()]));
        assert_eq!(Rational::parse_decimal_factors("1e401"), None);
        // 42 significant digits do not fit an i128 mantissa.
        assert_eq!(Rational::parse_decimal_factors("3.14159265358979323846264338327950288419716"), None);
        // Where a single rational fits, the factors multiply to it.
        let f = Rational::parse_decimal_factors("2.5e-3").unwrap();
        let prod = f.iter().fold(Rational::one(), |a, b| a.checked_mul(b).unwrap());
        assert_eq!(Some(prod), Rational::parse_decimal("2.5e-3"));
    }
}
