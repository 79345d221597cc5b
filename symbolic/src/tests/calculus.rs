use super::*;

/// Checks `diff(e, x)` against a central finite difference at random points.
fn check_derivative(a: &mut Arena, e: Expr, syms: &[Expr], rng: &mut Rng) {
    for &x in syms {
        let d = a.diff(e, x);
        for _ in 0..5 {
            let vals: Vec<(Expr, f64)> = syms.iter().map(|&s| (s, rng.range(0.3, 1.7))).collect();
            let at = |shift: f64| {
                let vals = vals.clone();
                move |s: Expr| vals.iter().find(|v| v.0 == s).unwrap().1 + if s == x { shift } else { 0.0 }
            };
            let h = 1e-6;
            let fd = (a.eval(e, &at(h)) - a.eval(e, &at(-h))) / (2.0 * h);
            let sym = a.eval(d, &at(0.0));
            assert!(
                close(fd, sym, 1e-5),
                "d/d{} of {}: symbolic {sym}, finite difference {fd}",
                a.display_named(x),
                a.display_named(e)
            );
        }
    }
}

#[test]
fn derivatives_match_finite_differences() {
    let mut a = Arena::new();
    let mut rng = Rng::new(7);
    let (x, y) = (a.symbol("x"), a.symbol("y"));
    // inner argument g = x·y + x²/3 − 0.4 y, to exercise chain rule, sums and products
    let xy = a.mul2(x, y);
    let x2 = a.powi(x, 2);
    let third = a.num(Rational::new(1, 3).unwrap());
    let x23 = a.mul2(third, x2);
    let c = a.num(Rational::new(2, 5).unwrap());
    let cy = a.mul2(c, y);
    let g = a.add(&[xy, x23, cy]);
    for f in Func::ALL {
        let e = if f == Func::Atan2 { a.call(f, &[g, x]) } else { a.call(f, &[g]) };
        check_derivative(&mut a, e, &[x, y], &mut rng);
    }
    // powers: integer, negative, rational, symbolic exponent, constant base
    let r = a.sqrt(g);
    let ri = a.powi(g, -3);
    let gx = a.pow(x, y);
    let two = a.int(2);
    let two_x = a.pow(two, xy);
    let q = a.num(Rational::new(-5, 7).unwrap());
    let pq = a.pow(x, q);
    for e in [r, ri, gx, two_x, pq] {
        check_derivative(&mut a, e, &[x, y], &mut rng);
    }
    // a product of many factors and a quotient
    let s = a.call(Func::Sin, &[x]);
    let cy2 = a.call(Func::Cos, &[y]);
    let p = a.mul(&[s, cy2, x, y, r]);
    let qt = a.div(p, g);
    check_derivative(&mut a, qt, &[x, y], &mut rng);
}

#[test]
fn derivative_rules_are_exact() {
    let mut a = Arena::new();
    let x = a.symbol("x");
    let y = a.symbol("y");
    let x3 = a.powi(x, 3);
    let d = a.diff(x3, x);
    let three = a.int(3);
    let x2 = a.powi(x, 2);
    let expect = a.mul2(three, x2);
    assert_eq!(d, expect);
    let s = a.call(Func::Sin, &[x]);
    let c = a.call(Func::Cos, &[x]);
    assert_eq!(a.diff(s, x), c);
    assert_eq!(a.diff(s, y), a.zero());
    assert_eq!(a.diff(x, x), a.one());
}

#[test]
fn directional_is_a_seeded_sum_of_partials() {
    let mut a = Arena::new();
    let (x, y, u, v) = (a.symbol("x"), a.symbol("y"), a.symbol("u"), a.symbol("v"));
    let s = a.call(Func::Sin, &[x]);
    let c = a.call(Func::Cos, &[y]);
    let sc = a.mul(&[s, c, u]);
    let e = a.add2(sc, y);
    let dir = a.directional(e, &[(x, u), (y, v)]);
    let dx = a.diff(e, x);
    let dy = a.diff(e, y);
    let t1 = a.mul2(dx, u);
    let t2 = a.mul2(dy, v);
    let expect = a.add2(t1, t2);
    let diff = a.sub(dir, expect);
    // equal, but only numerically: `expect` keeps ∂e/∂y · v unexpanded (no general simplify)
    assert_eq!(a.zero_test(diff), ZeroTest::Numerical);
}

/// A derivative kept across calls gives what a fresh one gives, for a chain of sums built on each
/// other (x_k = x_{k−1} + l_k sin q_k), in any order of the calls, and the memo grows by what is new.
#[test]
fn a_kept_directional_equals_a_fresh_one_along_a_chain() {
    let mut a = Arena::new();
    let n = 12;
    let q: Vec<Expr> = (0..n).map(|k| a.symbol(&format!("q{k}"))).collect();
    let v: Vec<Expr> = (0..n).map(|k| a.symbol(&format!("v{k}"))).collect();
    let mut x = Vec::new();
    for k in 0..n {
        let l = a.symbol(&format!("l{k}"));
        let s = a.call(Func::Sin, &[q[k]]);
        let term = a.mul2(l, s);
        let prev = if k == 0 { a.zero() } else { x[k - 1] };
        x.push(a.add2(prev, term));
    }
    let seeds: Vec<(Expr, Expr)> = q.iter().copied().zip(v.iter().copied()).collect();
    let mut kept = Directional::new(seeds.clone());
    for &k in &[5, 11, 0, 7, 11, 3] {
        let fresh = a.directional(x[k], &seeds);
        assert_eq!(a.directional_kept(x[k], &mut kept), fresh, "position {k}");
    }
    // Nothing is built for a sum met again.
    a.directional_kept(x[9], &mut kept);
    let known = a.len();
    a.directional_kept(x[9], &mut kept);
    assert_eq!(a.len(), known);
}

/// `holding` marks exactly the nodes of a DAG that hold one of the symbols, as `depends_on` says
/// node by node.
#[test]
fn holding_agrees_with_depends_on() {
    let mut a = Arena::new();
    let (x, y, z) = (a.symbol("x"), a.symbol("y"), a.symbol("z"));
    let s = a.call(Func::Sin, &[x]);
    let yz = a.mul2(y, z);
    let p = a.powi(yz, 3);
    let e1 = a.add(&[s, p, z]);
    let e = a.mul2(e1, y);
    let marks = a.holding(&[x, y], e);
    for node in [x, y, z, s, yz, p, e1, e] {
        let expected = a.depends_on(node, x) || a.depends_on(node, y);
        assert_eq!(marks.holds(node), expected, "node {node:?}");
    }
}

#[test]
fn substitution() {
    let mut a = Arena::new();
    let (x, y, z) = (a.symbol("x"), a.symbol("y"), a.symbol("z"));
    let e = a.sub(x, y);
    assert_eq!(a.subs(e, &[(x, y)]), a.zero());
    let s = a.call(Func::Sin, &[e]);
    let two = a.int(2);
    let sz = a.subs(s, &[(x, z), (y, two)]);
    let z2 = a.sub(z, two);
    let expect = a.call(Func::Sin, &[z2]);
    assert_eq!(sz, expect);
    assert!(a.depends_on(sz, z));
    assert!(!a.depends_on(sz, x));
    assert_eq!(a.free_symbols(s), vec![x, y]);
}

#[test]
fn zero_test() {
    let mut a = Arena::new();
    let (x, y) = (a.symbol("x"), a.symbol("y"));
    let s = a.call(Func::Sin, &[x]);
    let c = a.call(Func::Cos, &[x]);
    let s2 = a.powi(s, 2);
    let c2 = a.powi(c, 2);
    let one = a.one();
    // sin²x + cos²x is folded when the sum is built; sin 2x − 2 sin x cos x is not.
    let pyth = a.add(&[s2, c2]);
    assert_eq!(pyth, one);
    let two = a.int(2);
    let x2 = a.mul2(two, x);
    let s2x = a.call(Func::Sin, &[x2]);
    let twice = a.mul(&[two, s, c]);
    let e = a.sub(s2x, twice);
    assert_ne!(e, a.zero());
    assert_eq!(a.zero_test(e), ZeroTest::Numerical);
    // scaled by a big factor and nested in a product, still zero
    let ye = a.mul(&[y, e, s]);
    assert_eq!(a.zero_test(ye), ZeroTest::Numerical);
    let z = a.sub(x, x);
    assert_eq!(a.zero_test(z), ZeroTest::Structural);
    let nz = a.add2(pyth, one);
    assert_eq!(a.zero_test(nz), ZeroTest::NonZero);
    let tiny = a.num(Rational::new(1, 10_000_000).unwrap());
    let almost = a.add2(e, tiny);
    assert_eq!(a.zero_test(almost), ZeroTest::NonZero);
    let xy = a.sub(x, y);
    assert_eq!(a.zero_test(xy), ZeroTest::NonZero);
    // sin(2x) − 2 sin x cos x
    let two = a.int(2);
    let x2 = a.mul2(two, x);
    let s2x = a.call(Func::Sin, &[x2]);
    let dbl = a.mul(&[two, s, c]);
    let e2 = a.sub(s2x, dbl);
    assert!(a.zero_test(e2).is_zero());
}

#[test]
fn vector_calculus_matches_finite_differences_and_the_chain_rule() {
    let mut a = Arena::new();
    let mut rng = Rng::new(11);
    let (t, x, y) = (a.symbol("t"), a.symbol("x"), a.symbol("y"));
    let (vx, vy) = (a.symbol("vx"), a.symbol("vy"));
    // e₁ = sin(x y) + t x², e₂ = exp(y) cos(t)
    let xy = a.mul2(x, y);
    let s = a.call(Func::Sin, &[xy]);
    let x2 = a.powi(x, 2);
    let tx2 = a.mul2(t, x2);
    let e1 = a.add2(s, tx2);
    let ey = a.call(Func::Exp, &[y]);
    let ct = a.call(Func::Cos, &[t]);
    let e2 = a.mul2(ey, ct);
    let es = [e1, e2];
    let vars = [x, y];
    let jac = a.jacobian(&es, &vars);
    let grad = a.gradient(e1, &vars);
    let [jx, jy] = a.jacobian_blocks(&es, [&[x][..], &[y][..]]);
    let total = a.total_derivative(&es, &vars, &[vx, vy], Some(t));
    for _ in 0..5 {
        let p: Vec<f64> = (0..5).map(|_| rng.range(0.3, 1.7)).collect();
        let syms = [t, x, y, vx, vy];
        let at = |shift: [f64; 3]| {
            let p = p.clone();
            move |s: Expr| {
                let k = syms.iter().position(|&z| z == s).unwrap();
                p[k] + if k < 3 { shift[k] } else { 0.0 }
            }
        };
        let h = 1e-6;
        let fd = |a: &Arena, e: Expr, k: usize| {
            let mut plus = [0.0; 3];
            plus[k] = h;
            let mut minus = [0.0; 3];
            minus[k] = -h;
            (a.eval(e, &at(plus)) - a.eval(e, &at(minus))) / (2.0 * h)
        };
        for (i, &e) in es.iter().enumerate() {
            for (j, k) in [1usize, 2].into_iter().enumerate() {
                let want = fd(&a, e, k);
                assert!(close(a.eval(jac[i][j], &at([0.0; 3])), want, 1e-5), "J[{i}][{j}]");
                let block = if j == 0 { &jx } else { &jy };
                assert_eq!(block[i][0], jac[i][j], "blocks are the same columns");
            }
            // d/dt along (ẋ, ẏ) = ∂/∂t + ∂/∂x ẋ + ∂/∂y ẏ.
            let want = fd(&a, e, 0) + fd(&a, e, 1) * p[3] + fd(&a, e, 2) * p[4];
            assert!(close(a.eval(total[i], &at([0.0; 3])), want, 1e-5), "total derivative of e{i}");
        }
        assert_eq!(grad, jac[0]);
    }
    // Blocks of different lengths (positions and fewer velocities): each block's own columns.
    let [both, only_y] = a.jacobian_blocks(&es, [&[x, y][..], &[y][..]]);
    for i in 0..2 {
        assert_eq!(both[i], jac[i], "the longer block is the whole Jacobian");
        assert_eq!(only_y[i], [jac[i][1]], "the shorter block its own column");
    }
    // Σ aᵢbᵢ.
    let d = a.dot(&[x, y], &[vx, vy]);
    let xvx = a.mul2(x, vx);
    let yvy = a.mul2(y, vy);
    assert_eq!(d, a.add2(xvx, yvy));
}

/// Non-smooth expressions: a kink or branch outside the sampling box near the origin must not
/// make a nonzero expression look zero (a one-sided spring passed a symmetry proof this way).
#[test]
fn zero_test_of_non_smooth_expressions_covers_every_branch() {
    let mut a = Arena::new();
    let x = a.symbol("x");
    let three = a.int(3);
    let u = a.sub(x, three);
    // sqrt((x − 3)²) is |x − 3|; |x − 3| + x − 3 vanishes for x < 3 only.
    let u2 = a.powi(u, 2);
    let root = a.sqrt(u2);
    let abs = a.call(Func::Abs, &[u]);
    assert_eq!(root, abs, "sqrt(u²) is |u|");
    let spring = a.add(&[abs, u]);
    assert_eq!(a.zero_test(spring), ZeroTest::NonZero);
    // An identity with absolute values is recognised on every branch: |u|² − u² and sqrt(u⁴) − u².
    let abs2 = a.powi(abs, 2);
    let id = a.sub(abs2, u2);
    assert!(a.zero_test(id).is_zero(), "{:?}", a.zero_test(id));
    let u4 = a.powi(u, 4);
    let r4 = a.sqrt(u4);
    let id4 = a.sub(r4, u2);
    assert!(a.zero_test(id4).is_zero());
    let product = a.mul(&[abs, abs]);
    let id_branch = a.sub(product, u2);
    assert_eq!(a.zero_test(id_branch), ZeroTest::Branchwise);
    // atan2(sin x, cos x) = x only on (−π, π); the wide samples leave that interval.
    let s = a.call(Func::Sin, &[x]);
    let c = a.call(Func::Cos, &[x]);
    let angle = a.call(Func::Atan2, &[s, c]);
    let wrapped = a.sub(angle, x);
    assert_eq!(a.zero_test(wrapped), ZeroTest::NonZero);
    // sqrt(x² − 1) = x sqrt(1 − 1/x²) for x > 1 only (x < −1 is the other branch of the root).
    let one = a.one();
    let x2 = a.powi(x, 2);
    let r1 = {
        let d = a.sub(x2, one);
        a.sqrt(d)
    };
    let r2 = {
        let inv = a.powi(x, -2);
        let d = a.sub(one, inv);
        let q = a.sqrt(d);
        a.mul2(x, q)
    };
    let branches = a.sub(r1, r2);
    assert_eq!(a.zero_test(branches), ZeroTest::NonZero);
}

/// An identity deep in a DAG whose every level uses the level below twice, as a chain of frames
/// does (each link's frame its parent's times a turn, and the parent's at zero transposed): the
/// scale against which rounding is measured follows a product to first order, so that it stays
/// near the values (here about one) where the product of the factors' scales would square at
/// every level — past 10³⁰⁸ by the tenth, every sample infinite and a true identity taken for
/// nonzero. And a small nonzero term at the bottom is still seen.
#[test]
fn an_identity_deep_in_a_shared_dag_is_recognised() {
    let mut a = Arena::new();
    let x = a.symbol("x");
    let build = |a: &mut Arena, bottom: Expr| {
        // e_{k+1} = (c_k e_k + s_k)(c_k e_k − s_k): the value stays in [−1, 1].
        let mut e = bottom;
        let mut last = (e, a.zero(), a.zero());
        for k in 0..14 {
            let y = a.symbol(&format!("y{k}"));
            let (c, s) = (a.call(Func::Cos, &[y]), a.call(Func::Sin, &[y]));
            let ce = a.mul2(c, e);
            let plus = a.add2(ce, s);
            let minus = a.sub(ce, s);
            last = (e, c, s);
            e = a.mul2(plus, minus);
        }
        (e, last)
    };
    let sx = a.call(Func::Sin, &[x]);
    let (top, (below, c, s)) = build(&mut a, sx);
    // The top's product written out: c² e² − s².
    let (c2, e2, s2) = (a.powi(c, 2), a.powi(below, 2), a.powi(s, 2));
    let c2e2 = a.mul2(c2, e2);
    let expanded = a.sub(c2e2, s2);
    let identity = a.sub(top, expanded);
    assert!(a.zero_test(identity).is_zero(), "{:?}", a.zero_test(identity));
    // 10⁻³⁰ more at the bottom is a different function.
    let tiny = a.num(crate::Rational::new(1, 1_000_000_000_000_000_000_000_000_000_000).unwrap());
    let nudged = a.add2(sx, tiny);
    let (other, _) = build(&mut a, nudged);
    let differs = a.sub(other, top);
    assert_eq!(a.zero_test(differs), ZeroTest::NonZero);
}

/// The bounded evaluation tells a rounding residue of an identically zero expression from a
/// small nonzero value, and refuses a bound for the reciprocal of a residue.
#[test]
fn bounded_evaluation_bounds_cancellation() {
    let mut a = Arena::new();
    let (x, y) = (a.symbol("x"), a.symbol("y"));
    // sin²x + cos²x − 1 ≡ 0 and (x + y)² − x² − 2xy − y² ≡ 0, not structurally zero.
    let (s, c) = (a.call(Func::Sin, &[x]), a.call(Func::Cos, &[x]));
    let (s2, c2) = (a.powi(s, 2), a.powi(c, 2));
    let one = a.one();
    let trig = a.add(&[s2, c2]);
    let trig = a.sub(trig, one);
    let xy = a.add2(x, y);
    let square = a.powi(xy, 2);
    let (x2, y2) = (a.powi(x, 2), a.powi(y, 2));
    let two = a.int(2);
    let cross = a.mul(&[two, x, y]);
    let poly = a.add(&[x2, cross, y2]);
    let poly = a.sub(square, poly);
    // A small nonzero value and the reciprocal of a residue.
    let tiny = a.num(Rational::new(1, 1_000_000).expect("a rational"));
    let small = a.add2(poly, tiny);
    let inverse = a.powi(poly, -1);
    // A fractional power of a value known to its error: (2 + residue)^(−3/2), finite bound.
    let two_more = a.add2(poly, two);
    let exponent = a.num(Rational::new(-3, 2).expect("a rational"));
    let root = a.pow(two_more, exponent);
    let mut rng = Rng::new(5);
    for _ in 0..50 {
        let (vx, vy) = (rng.range(-30.0, 30.0), rng.range(-30.0, 30.0));
        let values = |e: Expr| if e == x { vx } else { vy };
        let out = a.eval_many_bounded(&[trig, poly, small, inverse, root], &values);
        let exact = 2f64.powf(-1.5);
        assert!(out[4].1.is_finite() && (out[4].0 - exact).abs() <= out[4].1 + 1e-16, "{:?} vs {exact}", out[4]);
        assert!(out[0].0.abs() <= out[0].1 && out[0].1 < 1e-13, "{:?}", out[0]);
        assert!(out[1].0.abs() <= out[1].1 && out[1].1 < 1e-11 * (vx.abs() + vy.abs()).powi(2), "{:?}", out[1]);
        assert!(out[2].0.abs() > out[2].1, "1e-6 is certainly nonzero: {:?}", out[2]);
        assert!(out[3].1.is_infinite() || out[3].0.abs() <= out[3].1, "{:?}", out[3]);
        // The values are those of the plain evaluation.
        assert_eq!(out[1].0, a.eval(poly, &values));
    }
}

#[test]
fn the_reverse_gradient_is_the_forward_one() {
    let mut a = Arena::new();
    let mut rng = Rng::new(11);
    let (x, y, z) = (a.symbol("x"), a.symbol("y"), a.symbol("z"));
    let xy = a.mul2(x, y);
    let x2 = a.powi(x, 2);
    let third = a.num(Rational::new(1, 3).unwrap());
    let x23 = a.mul2(third, x2);
    let c = a.num(Rational::new(2, 5).unwrap());
    let cz = a.mul2(c, z);
    let g = a.add(&[xy, x23, cz]);
    let mut cases = Vec::new();
    for f in Func::ALL {
        cases.push(if f == Func::Atan2 { a.call(f, &[g, z]) } else { a.call(f, &[g]) });
    }
    let r = a.sqrt(g);
    let ri = a.powi(g, -3);
    let gx = a.pow(x, y);
    let two = a.int(2);
    let two_x = a.pow(two, xy);
    let s = a.call(Func::Sin, &[x]);
    let cy = a.call(Func::Cos, &[y]);
    // A node reached along several paths (g inside r, inside the product and under the sine), a
    // factor repeated, and a sum of them: each path's contribution summed once.
    let p = a.mul(&[s, cy, x, y, r, g]);
    let qt = a.div(p, g);
    let sg = a.call(Func::Sin, &[g]);
    let nested = a.mul(&[sg, sg, r]);
    cases.extend([r, ri, gx, two_x, p, qt, nested]);
    let all = a.add(&cases.clone());
    cases.push(all);
    let vars = [x, y, z];
    for &e in &cases {
        let forward = a.gradient(e, &vars);
        let reverse = a.gradient_reverse(e, &vars);
        for _ in 0..5 {
            let vals: Vec<(Expr, f64)> = vars.iter().map(|&s| (s, rng.range(0.3, 1.7))).collect();
            let at = |s: Expr| vals.iter().find(|v| v.0 == s).unwrap().1;
            for (k, (&f, &b)) in forward.iter().zip(&reverse).enumerate() {
                let (f, b) = (a.eval(f, &at), a.eval(b, &at));
                assert!(close(f, b, 1e-12), "∂/∂x{k} of {}: forward {f}, reverse {b}", a.display_named(e));
            }
        }
    }
    // Independent of a variable: an exact zero, as the forward pass gives.
    let w = a.symbol("w");
    assert_eq!(a.gradient_reverse(g, &[w, x])[0], a.zero());
}
