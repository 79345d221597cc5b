//! Canonical construction. Every constructor returns a canonical, hash-consed node, so that
//! equal expressions *in canonical form* share one handle. There is no separate `simplify`.
//!
//! Canonical forms:
//! * **Add** — nested sums flattened; each term split as `c·R` (numeric coefficient `c`, *rest*
//!   `R` = the non-numeric factors, empty for a constant); terms with equal rest are collected
//!   (`2x + 3x → 5x`, `x + y − (y + x) → 0`); zero terms dropped; terms sorted by id; one term →
//!   that term; none → 0.
//! * **Mul** — nested products flattened; numeric factors folded into one coefficient (0
//!   annihilates); each factor split as `base^exp` and equal bases collected (`x·x → x²`,
//!   `x^a·x^b → x^(a+b)`); factors sorted by id, coefficient first; a single factor with
//!   coefficient 1 → that factor. A numeric coefficient times a sum is distributed
//!   (`−(a + b) → −a − b`), so negated sums cancel against the originals; a sum that is one of
//!   several factors is made *primitive* — its rational content (sign included) moves into the
//!   coefficient: `½·m·(2a + 2b) → m·(a + b)`, `x·(−a − b) → −x·(a + b)`.
//! * **Pow** — `x^0 → 1`, `x^1 → x`, `1^x → 1`, `0^p → 0` for `p > 0`, `rational^integer` folded
//!   exactly, `(x^a)^n → x^(a·n)` and `(a·b)^n → a^n·b^n` for integer `n`.
//! * **Call** — values at special points (`sin 0 = 0`, `cos 0 = 1`, `exp 0 = 1`, `ln 1 = 0`, …),
//!   `ln(exp u) = u`, and parity: odd `f(−u) = −f(u)`, even `f(−u) = f(u)` where "−u" is decided by
//!   the sign of the term with the smallest rest, so exactly one of `u`, `−u` is rewritten.
//!
//! Rational overflow anywhere leaves the expression unfolded instead of panicking.

use crate::arena::{Arena, Expr, Func, Node};
use crate::rational::Rational;

impl Arena {
    /// Splits a term as `coefficient × rest`, the rest given as the slice of its factors
    /// (empty for a constant, `[t]` for a non-product).
    fn split_term<'a>(&'a self, t: &'a Expr) -> (Rational, &'a [Expr]) {
        match self.node(*t) {
            Node::Num(r) => (*r, &[]),
            Node::Mul(fs) => match self.node(fs[0]) {
                Node::Num(r) => (*r, &fs[1..]),
                _ => (Rational::one(), &fs[..]),
            },
            _ => (Rational::one(), std::slice::from_ref(t)),
        }
    }

    /// `coefficient × rest` as a canonical node (the rest is already canonical and sorted).
    fn build_term(&mut self, c: Rational, rest: &[Expr]) -> Expr {
        if rest.is_empty() || c.is_zero() {
            return self.num(c);
        }
        if c.is_one() {
            return if rest.len() == 1 { rest[0] } else { self.intern(Node::Mul(rest.into())) };
        }
        let mut v = Vec::with_capacity(rest.len() + 1);
        v.push(self.num(c));
        v.extend_from_slice(rest);
        self.intern(Node::Mul(v.into()))
    }

    /// Canonical sum of `terms`.
    pub fn add(&mut self, terms: &[Expr]) -> Expr {
        let mut flat: Vec<Expr> = Vec::with_capacity(terms.len() + 4);
        for &t in terms {
            match self.node(t) {
                Node::Add(ts) => flat.extend_from_slice(ts),
                _ if t == self.zero => {}
                _ => flat.push(t),
            }
        }
        match flat.len() {
            0 => return self.zero,
            1 => return flat[0],
            _ => {}
        }
        // Collect like terms: sort by rest, then sum coefficients of equal rests.
        flat.sort_by(|a, b| self.split_term(a).1.cmp(self.split_term(b).1));
        // (representative term, summed coefficient, number of terms merged)
        let mut groups: Vec<(Expr, Rational, usize)> = Vec::with_capacity(flat.len());
        {
            let mut i = 0;
            while i < flat.len() {
                let (mut c, rest) = self.split_term(&flat[i]);
                let mut j = i + 1;
                while j < flat.len() {
                    let (cj, rj) = self.split_term(&flat[j]);
                    if rj != rest {
                        break;
                    }
                    match c.checked_add(&cj) {
                        Some(s) => c = s,
                        None => break, // overflow: keep the remaining terms as a separate group
                    }
                    j += 1;
                }
                groups.push((flat[i], c, j - i));
                i = j;
            }
        }
        let mut out: Vec<Expr> = Vec::with_capacity(groups.len());
        for (rep, c, count) in groups {
            if c.is_zero() {
                continue;
            }
            if count == 1 {
                out.push(rep);
                continue;
            }
            let rest = self.split_term(&rep).1.to_vec();
            let t = self.build_term(c, &rest);
            out.push(t);
        }
        if out.len() >= 2 && self.pythagoras(&mut out) {
            // A pair merged into one term: collect like terms again (it may meet its like).
            return self.add(&out);
        }
        out.sort_unstable();
        match out.len() {
            0 => self.zero,
            1 => out[0],
            _ => self.intern(Node::Add(out.into())),
        }
    }

    /// sin²u and cos²u with the same cofactor: `c·R·sin²u + c·R·cos²u → c·R` (an exact identity that
    /// only shrinks the sum; terms whose coefficients differ are left alone). Merges one pair and
    /// says so (the caller collects the terms again).
    fn pythagoras(&mut self, out: &mut Vec<Expr>) -> bool {
        // One look at the factors first, building nothing: the arguments of every cosine (in any
        // power: a partner c·R·cos²u holds cos u) and the terms with a square of a sine. Most
        // sums have none of one or the other (a chain's flat sums of link terms would otherwise
        // cost a copy of every term's factors each time they are collected).
        let mut cosines: rustc_hash::FxHashSet<Expr> = rustc_hash::FxHashSet::default();
        let mut sines: Vec<usize> = Vec::new();
        for (i, t) in out.iter().enumerate() {
            let mut sine = false;
            for &f in self.split_term(t).1 {
                let (base, exponent) = match self.node(f) {
                    Node::Pow(b, e) => (*b, self.as_num(*e)),
                    _ => (f, Some(Rational::one())),
                };
                match self.node(base) {
                    Node::Call(Func::Cos, args) => {
                        cosines.insert(args[0]);
                    }
                    Node::Call(Func::Sin, _) if exponent == Some(Rational::integer(2)) => sine = true,
                    _ => {}
                }
            }
            if sine {
                sines.push(i);
            }
        }
        if cosines.is_empty() || sines.is_empty() {
            return false;
        }
        let two = self.int(2);
        for i in sines {
            let (c, rest) = self.split_term(&out[i]);
            let rest = rest.to_vec();
            for (k, &f) in rest.iter().enumerate() {
                let Node::Pow(b, e) = self.node(f) else { continue };
                let (b, e) = (*b, *e);
                if e != two {
                    continue;
                }
                let Node::Call(Func::Sin, args) = self.node(b) else { continue };
                let u = args[0];
                if !cosines.contains(&u) {
                    continue;
                }
                let cos = self.call(Func::Cos, &[u]);
                let cos2 = self.pow(cos, two);
                let mut cofactor: Vec<Expr> = rest.iter().enumerate().filter(|&(j, _)| j != k).map(|(_, &x)| x).collect();
                let coefficient = self.num(c);
                cofactor.push(coefficient);
                let reduced = self.mul(&cofactor);
                let partner = self.mul2(reduced, cos2);
                if let Some(j) = out.iter().position(|&t| t == partner) {
                    out[i] = reduced;
                    out.remove(j);
                    return true;
                }
            }
        }
        false
    }

    /// Folds a numeric factor into `coef`, or records a factor as `(base, exponent, factor)`.
    fn push_factor(&self, f: Expr, coef: &mut Rational, parts: &mut Vec<(Expr, Expr, Expr)>) {
        match self.node(f) {
            Node::Num(r) => match coef.checked_mul(r) {
                Some(c) => *coef = c,
                None => parts.push((f, self.one, f)),
            },
            Node::Pow(b, e) => parts.push((*b, *e, f)),
            _ => parts.push((f, self.one, f)),
        }
    }

    /// Canonical product of `factors`.
    pub fn mul(&mut self, factors: &[Expr]) -> Expr {
        // Fast paths: a single factor, or multiplication by 1.
        if factors.len() == 1 {
            return factors[0];
        }
        let mut coef = Rational::one();
        // (base, exponent, original factor)
        let mut parts: Vec<(Expr, Expr, Expr)> = Vec::with_capacity(factors.len() + 4);
        for &f in factors {
            if let Node::Mul(fs) = self.node(f) {
                for &g in fs.iter() {
                    self.push_factor(g, &mut coef, &mut parts);
                }
            } else {
                self.push_factor(f, &mut coef, &mut parts);
            }
        }
        if coef.is_zero() {
            return self.zero;
        }
        parts.sort_by_key(|p| p.0);
        let mut out: Vec<Expr> = Vec::with_capacity(parts.len());
        let mut reflatten = false;
        let mut i = 0;
        while i < parts.len() {
            let base = parts[i].0;
            let mut j = i + 1;
            while j < parts.len() && parts[j].0 == base {
                j += 1;
            }
            let p = if j == i + 1 {
                parts[i].2
            } else {
                let exps: Vec<Expr> = parts[i..j].iter().map(|p| p.1).collect();
                let e = self.add(&exps);
                self.pow(base, e)
            };
            match self.node(p) {
                Node::Num(r) => match coef.checked_mul(r) {
                    Some(c) => coef = c,
                    None => out.push(p),
                },
                Node::Mul(_) => {
                    reflatten = true;
                    out.push(p);
                }
                _ => out.push(p),
            }
            i = j;
        }
        if coef.is_zero() {
            return self.zero;
        }
        if reflatten {
            let c = self.num(coef);
            out.push(c);
            return self.mul(&out);
        }
        // Sums among several factors are made primitive: c·x·(2a + 4b) → 2c·x·(a + 2b).
        if out.len() > 1 {
            let mut changed = false;
            for f in out.iter_mut() {
                if let Some((g, prim)) = self.primitive_part(*f)
                    && let Some(c) = coef.checked_mul(&g)
                {
                    coef = c;
                    *f = prim;
                    changed = true;
                }
            }
            if changed {
                // A primitive sum may now equal another factor: collect again.
                let c = self.num(coef);
                out.push(c);
                return self.mul(&out);
            }
        }
        out.sort_unstable();
        // c·(a + b + …) → c·a + c·b + … (canonical negation of sums).
        if out.len() == 1
            && !coef.is_one()
            && let Node::Add(ts) = self.node(out[0])
        {
            let ts = ts.to_vec();
            let c = self.num(coef);
            let scaled: Vec<Expr> = ts.into_iter().map(|t| self.mul(&[c, t])).collect();
            return self.add(&scaled);
        }
        self.build_term(coef, &out)
    }

    /// For a sum `s = Σ cᵢ·Rᵢ`, its content `g = ±gcd(numerators)/lcm(denominators)` (sign chosen
    /// so that `s/g` is not in negative form) and the primitive part `s/g`, if `g ≠ 1`.
    fn primitive_part(&mut self, s: Expr) -> Option<(Rational, Expr)> {
        if let Some(&known) = self.primitive.get(&s) {
            return known;
        }
        let found = self.find_primitive_part(s);
        self.primitive.insert(s, found);
        found
    }

    /// [`Arena::primitive_part`], computed.
    fn find_primitive_part(&mut self, s: Expr) -> Option<(Rational, Expr)> {
        let Node::Add(ts) = self.node(s) else {
            return None;
        };
        let mut num_gcd: u128 = 0;
        let mut den_lcm: i128 = 1;
        for t in ts.iter() {
            let c = self.split_term(t).0;
            num_gcd = crate::rational::gcd_u(num_gcd, c.num().unsigned_abs());
            let g = crate::rational::gcd_u(den_lcm as u128, c.den() as u128) as i128;
            den_lcm = (den_lcm / g).checked_mul(c.den())?;
        }
        let mut g = Rational::new(i128::try_from(num_gcd).ok()?, den_lcm)?;
        if self.is_negative_form(s) {
            g = g.checked_neg()?;
        }
        if g.is_one() {
            return None;
        }
        let ts = ts.to_vec();
        let mut out = Vec::with_capacity(ts.len());
        for t in &ts {
            let (c, rest) = self.split_term(t);
            let c = c.checked_div(&g)?;
            let rest = rest.to_vec();
            out.push(self.build_term(c, &rest));
        }
        out.sort_unstable();
        Some((g, self.intern(Node::Add(out.into()))))
    }

    /// `a + b`.
    pub fn add2(&mut self, a: Expr, b: Expr) -> Expr {
        if a == self.zero {
            return b;
        }
        if b == self.zero {
            return a;
        }
        self.add(&[a, b])
    }

    /// `a · b`.
    pub fn mul2(&mut self, a: Expr, b: Expr) -> Expr {
        if a == self.one {
            return b;
        }
        if b == self.one {
            return a;
        }
        self.mul(&[a, b])
    }

    /// `−a`.
    pub fn neg(&mut self, a: Expr) -> Expr {
        let m = self.minus_one;
        self.mul(&[m, a])
    }

    /// `a − b`.
    pub fn sub(&mut self, a: Expr, b: Expr) -> Expr {
        let nb = self.neg(b);
        self.add2(a, nb)
    }

    /// `a / b = a · b^−1`.
    pub fn div(&mut self, a: Expr, b: Expr) -> Expr {
        let m = self.minus_one;
        let inv = self.pow(b, m);
        self.mul2(a, inv)
    }

    /// `base^n`.
    pub fn powi(&mut self, base: Expr, n: i64) -> Expr {
        let e = self.int(n);
        self.pow(base, e)
    }

    /// `√a = a^(1/2)`.
    pub fn sqrt(&mut self, a: Expr) -> Expr {
        let half = self.num(Rational::new(1, 2).expect("1/2"));
        self.pow(a, half)
    }

    /// Canonical power `base^exp`.
    pub fn pow(&mut self, base: Expr, exp: Expr) -> Expr {
        let Some(r) = self.as_num(exp) else {
            if base == self.one {
                return self.one;
            }
            return self.intern(Node::Pow(base, exp));
        };
        if r.is_zero() {
            return self.one;
        }
        if r.is_one() {
            return base;
        }
        match self.node(base) {
            Node::Num(x) => {
                let x = *x;
                if x.is_one() {
                    return self.one;
                }
                if x.is_zero() && !r.is_negative() {
                    return self.zero;
                }
                if r.is_integer()
                    && let Some(v) = x.checked_pow(r.num())
                {
                    return self.num(v);
                }
            }
            Node::Pow(b, a) if r.is_integer() => {
                let (b, a) = (*b, *a);
                let e = self.mul2(a, exp);
                return self.pow(b, e);
            }
            // (u^(2k))^r = |u|^(2k r) for real u: `sqrt(u²)` is |u|, a kink the zero test splits
            // into its branches (an even power of |u| is the power of u itself).
            Node::Pow(b, a) if self.as_num(*a).is_some_and(|n| n.is_integer() && n.num() % 2 == 0 && n.num() != 0) => {
                let (b, a) = (*b, *a);
                if let Some(m) = self.as_num(a).and_then(|n| n.checked_mul(&r)) {
                    if m.is_integer() && m.num() % 2 == 0 {
                        let e = self.num(m);
                        return self.pow(b, e);
                    }
                    let abs = self.call(Func::Abs, &[b]);
                    let e = self.num(m);
                    return self.pow(abs, e);
                }
            }
            Node::Mul(fs) if r.is_integer() => {
                let fs = fs.to_vec();
                let ps: Vec<Expr> = fs.into_iter().map(|f| self.pow(f, exp)).collect();
                return self.mul(&ps);
            }
            _ => {}
        }
        self.intern(Node::Pow(base, exp))
    }

    /// Whether `e` is "negative" for parity purposes: a negative number, a product with negative
    /// coefficient, or a sum whose term with the smallest rest has a negative coefficient.
    /// For `e ≠ 0` exactly one of `e` and `−e` is negative in this sense.
    pub(crate) fn is_negative_form(&self, e: Expr) -> bool {
        match self.node(e) {
            Node::Num(r) => r.is_negative(),
            Node::Mul(_) => self.split_term(&e).0.is_negative(),
            Node::Add(ts) => {
                ts.iter().map(|t| self.split_term(t)).min_by(|a, b| a.1.cmp(b.1)).is_some_and(|(c, _)| c.is_negative())
            }
            _ => false,
        }
    }

    /// `Some(−a)` if `a` is in negative form and `−a` is not (the second check only matters
    /// when rational overflow prevented folding; it guarantees the parity rewrite terminates).
    fn negated_if_negative(&mut self, a: Expr) -> Option<Expr> {
        if !self.is_negative_form(a) {
            return None;
        }
        let na = self.neg(a);
        (!self.is_negative_form(na)).then_some(na)
    }

    /// Canonical function application.
    pub fn call(&mut self, f: Func, args: &[Expr]) -> Expr {
        if args.len() != f.arity() {
            return self.intern(Node::Call(f, args.into()));
        }
        let a = args[0];
        let is_zero = a == self.zero;
        if let Some(exact) = self.trig_at_pi_multiple(f, a) {
            return exact;
        }
        match f {
            Func::Sin | Func::Tan | Func::Sinh | Func::Tanh => {
                if is_zero {
                    return self.zero;
                }
                if let Some(na) = self.negated_if_negative(a) {
                    let v = self.call(f, &[na]);
                    return self.neg(v);
                }
            }
            Func::Cos | Func::Cosh => {
                if is_zero {
                    return self.one;
                }
                if let Some(na) = self.negated_if_negative(a) {
                    return self.call(f, &[na]);
                }
            }
            Func::Abs => {
                if let Some(r) = self.as_num(a)
                    && let Some(v) = r.checked_abs()
                {
                    return self.num(v);
                }
                if let Some(na) = self.negated_if_negative(a) {
                    return self.call(f, &[na]);
                }
            }
            Func::Exp => {
                if is_zero {
                    return self.one;
                }
            }
            Func::Ln => {
                if a == self.one {
                    return self.zero;
                }
                if let Node::Call(Func::Exp, inner) = self.node(a) {
                    return inner[0];
                }
            }
            Func::Atan2 => {
                if is_zero && self.as_num(args[1]).is_some_and(|x| x > Rational::zero()) {
                    return self.zero;
                }
            }
        }
        self.intern(Node::Call(f, args.into()))
    }
}
