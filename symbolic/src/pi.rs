//! The constant π and the exact values of sine, cosine and tangent at its rational multiples
//! whose denominator divides 12 and whose value is a number, a half or a half square root
//! (multiples of 30° and 45°): sin(π/2) is 1 and cos(π/2) is 0 exactly, so a rotation by a
//! quarter turn written with `pi` is a permutation with signs, not a matrix of rounded sines.

use crate::arena::{Arena, Expr, Func, Node};
use crate::rational::Rational;

impl Arena {
    /// The constant π.
    pub fn pi(&mut self) -> Expr {
        self.intern(Node::Pi)
    }

    /// `c` if `e` is c·π with c rational (π itself is 1·π).
    fn pi_multiple(&self, e: Expr) -> Option<Rational> {
        match self.node(e) {
            Node::Pi => Some(Rational::one()),
            Node::Mul(fs) if fs.len() == 2 && matches!(self.node(fs[1]), Node::Pi) => self.as_num(fs[0]),
            _ => None,
        }
    }

    /// The exact value of `f` (sine, cosine or tangent) at c·π where it is one of the table's
    /// (see the module documentation); `None` otherwise, and for the tangent's poles.
    pub(crate) fn trig_at_pi_multiple(&mut self, f: Func, arg: Expr) -> Option<Expr> {
        let c = self.pi_multiple(arg)?;
        // The angle in twelfths of π (15° steps), reduced to one turn.
        let twelfths = c.checked_mul(&Rational::integer(12))?;
        if !twelfths.is_integer() {
            return None;
        }
        let k = twelfths.num().rem_euclid(24);
        match f {
            Func::Sin => self.sine_in_steps(k),
            Func::Cos => self.sine_in_steps((k + 6) % 24),
            Func::Tan => {
                let (s, c) = (self.sine_in_steps(k)?, self.sine_in_steps((k + 6) % 24)?);
                (c != self.zero).then(|| self.div(s, c))
            }
            _ => None,
        }
    }

    /// sin(k · 15°) for k in 0..24, where it is 0, ±1/2, ±√2/2, ±√3/2 or ±1.
    fn sine_in_steps(&mut self, k: i128) -> Option<Expr> {
        if k >= 12 {
            let s = self.sine_in_steps(k - 12)?;
            return Some(self.neg(s));
        }
        let k = if k > 6 { 12 - k } else { k };
        let half = self.num(Rational::new(1, 2)?);
        Some(match k {
            0 => self.zero,
            2 => half,
            3 | 4 => {
                let root = self.int(if k == 3 { 2 } else { 3 });
                let root = self.sqrt(root);
                self.mul2(half, root)
            }
            6 => self.one,
            _ => return None,
        })
    }
}

#[cfg(test)]
mod tests {
    use crate::{Arena, Func, Rational};

    /// c·π as an expression.
    fn angle(a: &mut Arena, num: i128, den: i128) -> crate::Expr {
        let (pi, c) = (a.pi(), a.num(Rational::new(num, den).unwrap()));
        a.mul2(c, pi)
    }

    #[test]
    fn sines_and_cosines_at_multiples_of_pi_fold_to_their_exact_values() {
        let mut a = Arena::new();
        for den in [1, 2, 3, 4, 6, 12, 5, 7] {
            for num in -30..=30 {
                let x = angle(&mut a, num, den);
                let value = (num as f64 / den as f64) * std::f64::consts::PI;
                for (f, exact) in [(Func::Sin, value.sin()), (Func::Cos, value.cos()), (Func::Tan, value.tan())] {
                    let e = a.call(f, &[x]);
                    let folded = !a.display_named(e).contains(f.name());
                    let got = a.eval(e, &|_| f64::NAN);
                    // Folded or not, the value is the function's.
                    if exact.abs() < 1e12 {
                        assert!((got - exact).abs() <= 1e-12 * (1.0 + exact.abs()), "{f:?}({num}π/{den}): {got} vs {exact}");
                    }
                    // Every multiple of 30° and 45° folds (the tangent but at its poles), and
                    // nothing else does.
                    let twelfths = 12 * num / den;
                    let on_table = (12 * num) % den == 0 && (twelfths % 2 == 0 || twelfths % 3 == 0);
                    let pole = f == Func::Tan && exact.abs() > 1e12;
                    assert_eq!(folded, on_table && !pole, "{f:?}({num}π/{den})");
                }
            }
        }
        // The zeros are structural: a quarter turn's cosine is the constant 0.
        let x = angle(&mut a, 1, 2);
        let c = a.call(Func::Cos, &[x]);
        assert_eq!(c, a.zero());
        let s = a.call(Func::Sin, &[x]);
        assert_eq!(s, a.one());
    }

    #[test]
    fn pi_is_pi_in_evaluation_the_zero_test_and_emitted_code() {
        let mut a = Arena::new();
        let pi = a.pi();
        assert_eq!(a.eval(pi, &|_| f64::NAN), std::f64::consts::PI);
        // sin(π/5)² + cos(π/5)² − 1 = 0 (no table value: the zero test decides), and π − 3.14159
        // is not zero.
        let x = angle(&mut a, 1, 5);
        let (s, c) = (a.call(Func::Sin, &[x]), a.call(Func::Cos, &[x]));
        let (s2, c2) = (a.powi(s, 2), a.powi(c, 2));
        let one = a.one();
        let sum = a.add(&[s2, c2]);
        let id = a.sub(sum, one);
        assert!(a.zero_test(id).is_zero());
        let approx = a.num(Rational::new(314_159, 100_000).unwrap());
        let gap = a.sub(pi, approx);
        assert!(!a.zero_test(gap).is_zero());
        // cos(5π/6) + √3/2 folds to 0 structurally.
        let x = angle(&mut a, 5, 6);
        let c = a.call(Func::Cos, &[x]);
        let three = a.int(3);
        let root = a.sqrt(three);
        let half = a.num(Rational::new(1, 2).unwrap());
        let h = a.mul2(half, root);
        assert_eq!(a.add2(c, h), a.zero());
        let code = crate::emit(&a, &[pi], &|_| unreachable!(), "t").outputs[0].to_string();
        assert!(code.contains(":: core :: f64 :: consts :: PI"), "{code}");
        assert!(a.display_named(gap).contains('π'));
    }
}
