use super::*;
use proc_macro2::{Ident, Span};
use quote::quote;

fn sym_tokens(a: &Arena) -> impl Fn(Expr) -> TokenStream + '_ {
    move |s| {
        let id = Ident::new(a.symbol_name(s).unwrap(), Span::call_site());
        quote!(#id)
    }
}

/// Emits `outputs`, interprets the code at random points and compares with `Arena::eval_many`.
fn check_emission(a: &Arena, outputs: &[Expr], syms: &[Expr]) -> Emitted {
    let em = emit(a, outputs, &sym_tokens(a), "__t");
    let mut rng = Rng::new(11);
    for _ in 0..5 {
        let vals: Vec<f64> = syms.iter().map(|_| rng.range(0.3, 1.7)).collect();
        let value_of = |s: Expr| vals[syms.iter().position(|&t| t == s).unwrap()];
        let expect = a.eval_many(outputs, &value_of);
        let mut interp = Interp { env: HashMap::new() };
        for (i, &s) in syms.iter().enumerate() {
            interp.env.insert(a.symbol_name(s).unwrap().to_owned(), vals[i]);
        }
        let got = interp.run(&em);
        for (k, (g, e)) in got.iter().zip(&expect).enumerate() {
            assert!(close(*g, *e, 1e-12), "output {k}: emitted {g}, eval {e}\n{}", render(&em));
        }
    }
    em
}

fn render(em: &Emitted) -> String {
    let mut s = String::new();
    for st in &em.statements {
        s += &format!("{st}\n");
    }
    for o in &em.outputs {
        s += &format!("=> {o}\n");
    }
    s
}

/// A mix of every emitted shape; returns outputs and the symbols x, y, z.
pub(crate) fn mixed(a: &mut Arena) -> (Vec<Expr>, [Expr; 3]) {
    let (x, y, z) = (a.symbol("x"), a.symbol("y"), a.symbol("z"));
    let s = a.call(Func::Sin, &[x]);
    let c = a.call(Func::Cos, &[y]);
    let sc = a.mul2(s, c);
    let xy = a.add2(x, y);
    let r = a.sqrt(xy);
    let ri = a.powi(r, -1);
    let half = a.num(Rational::new(1, 2).unwrap());
    let mhalf = a.num(Rational::new(-3, 2).unwrap());
    let t1 = a.mul(&[mhalf, sc, z]);
    let zi = a.powi(z, -2);
    let t2 = a.mul(&[half, sc, ri, zi]);
    let o1 = a.add(&[t1, t2, x]);
    let at = a.call(Func::Atan2, &[xy, z]);
    let x3 = a.powi(xy, 3);
    let zpow = a.pow(z, x);
    let q = a.num(Rational::new(2, 3).unwrap());
    let z23 = a.pow(xy, q);
    let nsc = a.neg(sc);
    let m2 = a.int(-2);
    let negbase = a.powi(m2, 3);
    let o2 = a.add(&[at, x3, zpow, z23, nsc, negbase]);
    let e = a.call(Func::Exp, &[o2]);
    let ln = a.call(Func::Ln, &[xy]);
    let ab = a.call(Func::Abs, &[t1]);
    let o3 = a.mul(&[e, ln, ab]);
    let x2 = a.powi(x, 2);
    let o4 = a.sub(x2, sc); // x * x - …
    let o5 = a.neg(xy);
    let mz = a.neg(z);
    let o6 = a.sqrt(mz);
    let neg_half = a.num(Rational::new(-1, 2).unwrap());
    let o7 = a.pow(xy, neg_half);
    let outputs = [o1, o2, o3, o4, o5, sc, x, half, o7, o1, o6];
    (outputs.to_vec(), [x, y, z])
}

#[test]
fn emitted_code_evaluates_like_the_dag() {
    let mut a = Arena::new();
    let (outputs, [x, y, z]) = mixed(&mut a);
    let (o6, half) = (outputs[10], outputs[7]);
    let _ = half;
    let em = check_emission(&a, &outputs[..10], &[x, y, z]);
    let text = render(&em);
    // sc is shared: one temporary; negative coefficients are subtractions
    assert!(!text.contains("+ -"), "{text}");
    assert!(!text.contains("(-1.0_f64)"), "{text}");
    assert!(text.contains("x * x"), "{text}");
    assert!(text.contains(". atan2 (z)"), "{text}");
    assert!(em.ops.calls > 0 && em.ops.muls > 0 && em.ops.adds > 0 && em.ops.divs > 0);
    // output identical to an input symbol / a constant
    assert_eq!(em.outputs[6].to_string(), "x");
    assert_eq!(em.outputs[7].to_string(), "0.5_f64");
    // repeated output becomes a temporary
    assert_eq!(em.outputs[0].to_string(), em.outputs[9].to_string());
    // determinism
    let em2 = emit(&a, &outputs[..10], &sym_tokens(&a), "__t");
    assert_eq!(render(&em), render(&em2));
    assert_eq!(em.ops, em2.ops);
    // sqrt of a negated symbol needs parentheses around the receiver
    let em = emit(&a, &[o6], &sym_tokens(&a), "__t");
    assert_eq!(em.outputs[0].to_string(), "(- z) . sqrt ()");
}

#[test]
fn simple_shapes() {
    let mut a = Arena::new();
    let (x, y) = (a.symbol("x"), a.symbol("y"));
    let d = a.div(x, y);
    let em = check_emission(&a, &[d], &[x, y]);
    assert_eq!(em.outputs[0].to_string(), "x / y");
    let xy = a.add2(x, y);
    let i = a.powi(xy, -1);
    let em = check_emission(&a, &[i], &[x, y]);
    assert_eq!(em.outputs[0].to_string(), "1.0_f64 / (x + y)");
    let s = a.sub(x, y);
    let em = check_emission(&a, &[s], &[x, y]);
    assert_eq!(em.outputs[0].to_string(), "x - y");
    let n = a.neg(x);
    let m = a.sub(n, y);
    let em = check_emission(&a, &[m], &[x, y]);
    assert_eq!(em.outputs[0].to_string(), "- y - x");
    let yi = a.powi(y, -1);
    let p = a.mul(&[n, yi, xy]);
    let em = check_emission(&a, &[p], &[x, y]);
    assert_eq!(em.ops, OpCount { adds: 2, muls: 1, divs: 1, calls: 0 });
    let s2 = a.powi(xy, 2);
    let em = check_emission(&a, &[s2], &[x, y]);
    assert_eq!(em.outputs[0].to_string(), "(x + y) . powi (2)");
}

#[test]
fn common_factors_are_taken_out_of_sums_and_shared_cofactors_computed_once() {
    // A chain's mass matrix shape: M₀₀ = m₁w + m₂w + m₃w, M₀₁ = m₂v + m₃v, M₁₁ = m₂u + m₃u —
    // expanded, n products per entry; factored, w·(m₁ + m₂ + m₃) and (m₂ + m₃) once for two.
    let mut a = Arena::new();
    let [m1, m2, m3, p, q] = ["m1", "m2", "m3", "p", "q"].map(|n| a.symbol(n));
    let w = a.call(Func::Sin, &[p]);
    let v = a.call(Func::Cos, &[q]);
    let u = a.mul2(p, q);
    let terms = |a: &mut Arena, f: Expr, ms: &[Expr]| {
        let ts: Vec<Expr> = ms.iter().map(|&m| a.mul2(m, f)).collect();
        a.add(&ts)
    };
    let m00 = terms(&mut a, w, &[m1, m2, m3]);
    let m01 = terms(&mut a, v, &[m2, m3]);
    let m11 = terms(&mut a, u, &[m2, m3]);
    let em = check_emission(&a, &[m00, m01, m11], &[m1, m2, m3, p, q]);
    // Expanded: 7 products; factored: 3, and m₂ + m₃ added once for both entries that share it.
    assert_eq!(em.ops.muls, 3 + 1, "{}", render(&em)); // + p·q
    assert_eq!(em.ops.adds, 2 + 1, "{}", render(&em));
    let text = render(&em);
    assert_eq!(text.lines().filter(|l| l.ends_with("= m2 + m3 ;")).count(), 1, "{text}");
    assert!(!text.contains("(m2 + m3)"), "{text}");
}

#[test]
fn a_sum_that_extends_another_by_one_term_reuses_it() {
    // A chain's link velocities vₖ = Σ_{j≤k} cos(qⱼ)·uⱼ: flat in canonical form (O(k) additions
    // each, O(n²) in all), emitted as prefix sums (one addition each).
    let mut a = Arena::new();
    let n = 6;
    let q: Vec<Expr> = (0..n).map(|j| a.symbol(&format!("q{j}"))).collect();
    let u: Vec<Expr> = (0..n).map(|j| a.symbol(&format!("u{j}"))).collect();
    let terms: Vec<Expr> = (0..n)
        .map(|j| {
            let c = a.call(Func::Cos, &[q[j]]);
            a.mul2(c, u[j])
        })
        .collect();
    let sums: Vec<Expr> = (2..=n).map(|k| a.add(&terms[..k])).collect();
    let syms: Vec<Expr> = q.iter().chain(&u).copied().collect();
    let em = check_emission(&a, &sums, &syms);
    assert_eq!(em.ops.adds, n - 1, "{}", render(&em));
    assert_eq!(em.ops.muls, n, "{}", render(&em));
    // An output that only shares some terms with another is emitted whole.
    let mut b = Arena::new();
    let [x, y, z, w] = ["x", "y", "z", "w"].map(|s| b.symbol(s));
    let s1 = b.add(&[x, y, z]);
    let s2 = b.add(&[x, y, w]);
    let em = check_emission(&b, &[s1, s2], &[x, y, z, w]);
    assert_eq!(em.ops.adds, 4, "{}", render(&em));
}

#[test]
fn horner_takes_shared_factors_out_and_keeps_the_value() {
    // f = l·c·(m₁a₁ + m₂a₂) − l·s·(m₁b₁ + m₂b₂ + g) expanded, l·(c·(…) − s·(…)) in Horner form:
    // 7 products.
    let mut a = Arena::new();
    let [l, c, s, m1, m2, a1, a2, b1, b2, g] = ["l", "c", "s", "m1", "m2", "a1", "a2", "b1", "b2", "g"].map(|n| a.symbol(n));
    let terms =
        [a.mul(&[l, c, m1, a1]), a.mul(&[l, c, m2, a2]), a.mul(&[l, s, m1, b1]), a.mul(&[l, s, m2, b2]), a.mul(&[l, s, g])];
    let neg: Vec<Expr> = terms[2..].iter().map(|&t| a.neg(t)).collect();
    let f = a.add(&[terms[0], terms[1], neg[0], neg[1], neg[2]]);
    let h = a.horner(f);
    assert_ne!(h, f);
    let syms = [l, c, s, m1, m2, a1, a2, b1, b2, g];
    let expanded = check_emission(&a, &[f], &syms);
    let grouped = check_emission(&a, &[h], &syms);
    let difference = a.sub(h, f);
    assert!(a.zero_test(difference).is_zero());
    assert!(grouped.ops.muls < expanded.ops.muls, "{} vs {}", render(&grouped), render(&expanded));
    assert_eq!(grouped.ops.muls, 7, "{}", render(&grouped));
    // Deterministic: the same input gives the same node.
    assert_eq!(a.horner(f), h);
}

/// Bindings: a recurrence s₀ = x, sₖ₊₁ = (sₖ + y)·sₖ / (1 + sₖ²) held as symbols is emitted as one
/// temporary per step, in order, and evaluates like the same recurrence substituted into one DAG
/// (whose canonical sums grow with every step); a bound symbol used twice is read, not recomputed.
#[test]
fn bindings_are_temporaries_in_dependency_order() {
    let mut a = Arena::new();
    let (x, y) = (a.symbol("x"), a.symbol("y"));
    let one = a.one();
    let steps = 12;
    let mut bindings = Vec::new();
    let (mut held, mut inline) = (x, x);
    for k in 0..steps {
        let step = |a: &mut Arena, s: Expr| {
            let sy = a.add2(s, y);
            let num = a.mul2(sy, s);
            let s2 = a.powi(s, 2);
            let den = a.add2(one, s2);
            a.div(num, den)
        };
        let value = step(&mut a, held);
        let name = a.symbol(&format!("s{k}"));
        bindings.push((name, value));
        held = name;
        inline = step(&mut a, inline);
    }
    let twice = a.mul2(held, held);
    let out = [held, twice];
    let em = emit_bound(&a, &bindings, &out, &sym_tokens(&a), "__t");
    assert!(em.statements.len() <= 3 * steps, "{} statements for {steps} steps:\n{}", em.statements.len(), render(&em));
    let mut interp = Interp { env: HashMap::new() };
    interp.env.insert("x".into(), 0.7);
    interp.env.insert("y".into(), 1.3);
    let got = interp.run(&em);
    let expect = a.eval(inline, &|s| if s == x { 0.7 } else { 1.3 });
    assert!(close(got[0], expect, 1e-13) && close(got[1], expect * expect, 1e-13), "{got:?} against {expect}\n{}", render(&em));
    // Both outputs read the last binding's temporary.
    let last = em.statements.iter().rev().find(|s| s.to_string().starts_with("let")).unwrap().to_string();
    let name = last.split_whitespace().nth(1).unwrap().to_owned();
    assert_eq!(em.outputs[0].to_string(), name);
}

/// `eval_bound` evaluates through the bindings what the inlined expression gives, also when a bound
/// symbol was created before the expression it stands for (no reliance on node order), and
/// evaluates only what the outputs reach.
#[test]
fn bound_evaluation_follows_the_bindings() {
    let mut a = Arena::new();
    let (x, y) = (a.symbol("x"), a.symbol("y"));
    // Symbols made first, their expressions after them.
    let names: Vec<Expr> = (0..6).map(|k| a.symbol(&format!("r{k}"))).collect();
    let mut bindings = Vec::new();
    let (mut held, mut inline) = (x, x);
    for &name in &names {
        let sq = a.mul2(held, held);
        let value = a.add2(sq, y);
        bindings.push((name, value));
        held = name;
        let sq = a.mul2(inline, inline);
        inline = a.add2(sq, y);
    }
    let s = a.call(crate::Func::Sin, &[held]);
    let unused = a.symbol("unused");
    let with_unused = a.add2(s, unused);
    let value_of = |e: Expr| {
        if e == x {
            0.3
        } else if e == y {
            -0.4
        } else {
            f64::NAN
        }
    };
    let got = a.eval_bound(&bindings, &[held, s], &value_of);
    let inline_sin = a.call(crate::Func::Sin, &[inline]);
    let want = [a.eval(inline, &value_of), a.eval(inline_sin, &value_of)];
    assert!(close(got[0], want[0], 1e-15) && close(got[1], want[1], 1e-15), "{got:?} against {want:?}");
    assert!(a.eval_bound(&bindings, &[with_unused], &value_of)[0].is_nan(), "an unbound symbol is read from value_of");
}

/// Outputs with places of their own are stored there by the statements, and read there by later
/// ones; an output equal to an earlier placed one, a symbol, or one without a place is left to the
/// caller. Every value is the DAG's.
#[test]
fn placed_outputs_are_stored_where_asked_and_read_there() {
    let mut a = Arena::new();
    let (x, y, z) = (a.symbol("x"), a.symbol("y"), a.symbol("z"));
    let s = a.call(Func::Sin, &[x]);
    let sy = a.mul2(s, y);
    let o0 = a.add2(sy, z);
    let c = a.call(Func::Cos, &[y]);
    let o0x = a.mul2(o0, x);
    let o3 = a.add2(o0x, c);
    let cz = a.mul2(c, z);
    let o4 = a.add2(cz, s);
    let outputs = [o0, o0, x, o3, o4];
    let places = [Some(quote!(m[(1, 0)])), Some(quote!(m[(0, 1)])), Some(quote!(m[(2, 2)])), Some(quote!(f[3])), None];
    let em = emit_slots_placed(&a, &[], &outputs, &places, &sym_tokens(&a), "__w");
    assert_eq!(em.placed, [true, false, false, true, false]);
    let text = render(&em);
    assert!(text.contains("m [(1 , 0)] ="), "{text}");
    assert!(text.contains("f [3] ="), "{text}");
    assert!(!text.contains("m [(0 , 1)]") && !text.contains("m [(2 , 2)]"), "{text}");
    // o3 reads o0 where it was placed; o4 (no place) is a slot.
    assert!(text.contains("m [(1 , 0)] * x") || text.contains("x * m [(1 , 0)]"), "{text}");
    let slots = em.statements.len() - em.placed.iter().filter(|&&p| p).count();
    assert!(em.statements.iter().filter(|st| st.to_string().starts_with("__w")).count() == slots, "{text}");
    let (vx, vy, vz) = (0.7, 1.3, -0.4);
    let mut interp = Interp { env: HashMap::new() };
    interp.env.extend([("x".to_owned(), vx), ("y".to_owned(), vy), ("z".to_owned(), vz)]);
    let got = interp.run_places(&em);
    let value_of = |e: Expr| {
        if e == x {
            vx
        } else if e == y {
            vy
        } else {
            vz
        }
    };
    let expect = a.eval_many(&outputs, &value_of);
    for (k, (g, e)) in got.iter().zip(&expect).enumerate() {
        assert!(close(*g, *e, 1e-14), "output {k}: {g} vs {e}\n{text}");
    }
    assert!(close(interp.env["m[(1,0)]"], expect[0], 1e-14) && close(interp.env["f[3]"], expect[3], 1e-14));
}

/// Code emitted after earlier statements reads what their temporaries hold ([`emit_slots_after`],
/// from the first emission's `named`) instead of computing it again: the second's statements
/// hold no sine, no product the first held, and fewer operations than the same outputs emitted
/// alone; run after the first (the two arrays apart), both give the DAG's values.
#[test]
fn code_emitted_after_reads_the_earlier_temporaries() {
    let mut a = Arena::new();
    let (x, y, z) = (a.symbol("x"), a.symbol("y"), a.symbol("z"));
    let s = a.call(Func::Sin, &[x]);
    let sy = a.mul2(s, y);
    let w = a.add2(sy, z);
    let ww = a.mul2(w, w);
    let first = [ww, a.add2(w, x)];
    let wz = a.mul2(w, z);
    let c = a.call(Func::Cos, &[y]);
    // Sums whose rational content the canonical form keeps outside them (x + z/4 is ¼ (4x + z)):
    // one that the first emits times that content in every use (its temporary holds x + z/4, not
    // the node's 4x + z), and one that the first uses under two coefficients (a plain temporary)
    // and the second under one alone (where it would emit its own times that content).
    let quarter = a.num(Rational::parse_decimal("0.25").unwrap());
    let two_ = a.int(2);
    let qz = a.mul2(quarter, z);
    let k = a.add2(x, qz);
    let qy = a.mul2(quarter, y);
    let m = a.sub(x, qy);
    let first = [first[0], first[1], a.mul2(k, y), a.mul2(k, z), a.mul2(m, y), a.mul(&[two_, m, z])];
    let second = [a.add2(wz, c), a.mul2(ww, x), a.mul2(k, c), a.mul2(m, x), a.mul2(m, c), a.mul2(k, x)];
    let one = emit_slots_placed_with(&a, &[], &first, &[], &sym_tokens(&a), "p", &EmitOptions::default());
    assert!(one.named.iter().any(|(e, _)| *e == w) && one.named.iter().any(|(e, _)| *e == ww), "{}", render(&one));
    let two = emit_slots_after(&a, &second, &one.named, &sym_tokens(&a), "q", &EmitOptions::default());
    let alone = emit_slots_placed_with(&a, &[], &second, &[], &sym_tokens(&a), "q", &EmitOptions::default());
    let text = render(&two);
    assert!(!text.contains("sin") && text.contains("p ["), "{text}");
    assert!(render(&one).contains("0.25"), "the first emits x + z/4 as written:\n{}", render(&one));
    assert!(two.ops.total() < alone.ops.total(), "{} against {}", two.ops.total(), alone.ops.total());
    let (vx, vy, vz) = (0.7, 1.3, -0.4);
    let mut interp = Interp { env: HashMap::new() };
    interp.env.extend([("x".to_owned(), vx), ("y".to_owned(), vy), ("z".to_owned(), vz)]);
    let got_first = interp.run_places(&one);
    let got_second = interp.run_places(&two);
    let value_of = |e: Expr| {
        if e == x {
            vx
        } else if e == y {
            vy
        } else {
            vz
        }
    };
    for (got, outputs) in [(got_first, &first[..]), (got_second, &second[..])] {
        for (g, e) in got.iter().zip(a.eval_many(outputs, &value_of)) {
            assert!(close(*g, e, 1e-14), "{g} vs {e}\n{text}");
        }
    }
}

/// A coefficient beside a factor in several products, `0.0825 * c * x` and `0.0825 * c * y`, is
/// multiplied once (`(0.0825 * c) * x`, what `0.0825 * c * x` computes); a sum whose rational content
/// the canonical form keeps outside it (`1e-6 * (1000000 a - 3495 b)` for `a - 0.003495 b`) is
/// emitted as written where every use multiplies it by that content. Values are the DAG's.
#[test]
fn shared_scaled_factors_and_sums_with_their_content_take_fewer_multiplications() {
    let mut a = Arena::new();
    let (x, y, z, q) = (a.symbol("x"), a.symbol("y"), a.symbol("z"), a.symbol("q"));
    let c = a.call(Func::Cos, &[q]);
    let s = a.call(Func::Sin, &[q]);
    let l = a.num(Rational::parse_decimal("0.0825").unwrap());
    let lcx = a.mul(&[l, c, x]);
    let lcy = a.mul(&[l, c, y]);
    let lcz = a.mul(&[l, c, z]);
    let outputs = [a.add2(lcx, y), a.add2(lcy, z), a.sub(lcz, x)];
    let em = check_emission(&a, &outputs, &[x, y, z, q]);
    // 0.0825 * c once, then one product per output.
    assert_eq!(em.ops.muls, 4, "{}", render(&em));
    // The sum x − 0.003495 y + 0.249498 z, held by a binding and used by two products.
    let k1 = a.num(Rational::parse_decimal("-0.003495").unwrap());
    let k2 = a.num(Rational::parse_decimal("0.249498").unwrap());
    let ky = a.mul2(k1, y);
    let kz = a.mul2(k2, z);
    let sum = a.add(&[x, ky, kz]);
    let b = a.symbol("b");
    let bc = a.mul2(b, c);
    let bs = a.mul2(b, s);
    let (one, two) = (a.add2(bc, x), a.add2(bs, y));
    let em = emit_bound(&a, &[(b, sum)], &[one, two], &sym_tokens(&a), "__t");
    let text = render(&em);
    assert!(!text.contains("1000000") && !text.contains("1e-6"), "{text}");
    assert_eq!(em.ops.muls, 4, "{text}");
    let mut interp = Interp { env: HashMap::new() };
    for (name, v) in [("x", 0.7), ("y", -1.3), ("z", 0.4), ("q", 0.9)] {
        interp.env.insert(name.into(), v);
    }
    let got = interp.run(&em);
    let sum_v = 0.7 - 0.003495 * -1.3 + 0.249498 * 0.4;
    let want = [sum_v * 0.9f64.cos() + 0.7, sum_v * 0.9f64.sin() - 1.3];
    assert!(close(got[0], want[0], 1e-15) && close(got[1], want[1], 1e-15), "{got:?} against {want:?}\n{text}");
    // The same sum multiplied in place: the canonical form takes its content out.
    let sc = a.mul2(sum, c);
    let ss = a.mul2(sum, s);
    let (one, two) = (a.add2(sc, x), a.add2(ss, y));
    let em = check_emission(&a, &[one, two], &[x, y, z, q]);
    let text = render(&em);
    assert!(!text.contains("1000000") && !text.contains("1e-6"), "{text}");
    assert_eq!(em.ops.muls, 4, "{text}");
    // A sum with its content outside, a term of another such sum (whose content then multiplies
    // the term's coefficient): the values stay the DAG's.
    let inner = a.add2(x, ky);
    let term = a.mul2(inner, s);
    let k3 = a.num(Rational::parse_decimal("-0.249498").unwrap());
    let k3y = a.mul2(k3, y);
    let outer = a.add(&[term, z, k3y]);
    let outputs = [a.mul2(outer, c), a.mul2(outer, s)];
    check_emission(&a, &outputs, &[x, y, z, q]);
}

/// With `EmitOptions::sin_cos`, the sines and cosines of symbols come from one call for all the
/// angles, first, in `let`s and in a scratch array alike; the values are the DAG's; a sine of a
/// sum stays a method call; one angle alone stays `x.sin()`.
#[test]
fn sines_and_cosines_of_symbols_are_computed_together() {
    let mut a = Arena::new();
    let (x, y, z) = (a.symbol("x"), a.symbol("y"), a.symbol("z"));
    let (sx, cx, cy) = (a.call(Func::Sin, &[x]), a.call(Func::Cos, &[x]), a.call(Func::Cos, &[y]));
    let xz = a.add2(x, z);
    let sxz = a.call(Func::Sin, &[xz]);
    let p = a.mul(&[sx, cy, z]);
    let o1 = a.add(&[p, cx, sxz]);
    let o2 = a.mul2(cx, cy);
    let outputs = [o1, o2, sx];
    let options = EmitOptions { sin_cos: Some(quote!(sin_cos)) };
    let symbol = sym_tokens(&a);
    let vals = [0.4, -1.3, 2.2];
    let value_of = |s: Expr| vals[[x, y, z].iter().position(|&t| t == s).unwrap()];
    let expect = a.eval_many(&outputs, &value_of);
    let fresh = || {
        let mut interp = Interp { env: HashMap::new() };
        for (name, v) in ["x", "y", "z"].into_iter().zip(vals) {
            interp.env.insert(name.to_owned(), v);
        }
        interp
    };
    let plain = emit_bound_with(&a, &[], &outputs, &symbol, "__t", &options);
    let text = render(&plain);
    assert!(
        plain.statements[0]
            .to_string()
            .starts_with("let ([__t0 , _] , [__t1 , __t2]) : ([f64 ; 2usize] , [f64 ; 2usize]) = sin_cos ([x , y])"),
        "{text}"
    );
    assert_eq!(text.matches("sin_cos").count(), 1, "{text}");
    assert!(text.contains("(x + z) . sin ()"), "{text}");
    assert_eq!(plain.temporaries, plain.statements.len() + 2, "{text}");
    for (g, e) in fresh().run(&plain).iter().zip(&expect) {
        assert!(close(*g, *e, 1e-15), "{g} against {e}\n{text}");
    }
    let slots = emit_slots_placed_with(&a, &[], &outputs, &[], &symbol, "w", &options);
    assert!(
        slots.statements[0].to_string().starts_with("([w [0usize] , _] , [w [1usize] , w [2usize]]) = sin_cos ([x , y])"),
        "{}",
        render(&slots)
    );
    for (g, e) in fresh().run_places(&slots).iter().zip(&expect) {
        assert!(close(*g, *e, 1e-15), "{g} against {e}\n{}", render(&slots));
    }
    // One angle: nothing to batch.
    let single = emit_bound_with(&a, &[], &[sx, cx], &symbol, "__t", &options);
    assert!(!render(&single).contains("sin_cos"), "{}", render(&single));
}

/// An angle that is an input symbol plus constants (a joint's q + c) joins the batch where its
/// last block of lanes has room — three symbols leave one: the first such angle takes it, the
/// second stays the standard library's `sin ()` — its addition written in the call's argument;
/// the values are the DAG's.
#[test]
fn an_angle_plus_a_constant_fills_the_last_block_of_the_batch() {
    let mut a = Arena::new();
    let (x, y, z) = (a.symbol("x"), a.symbol("y"), a.symbol("z"));
    let (c1, c2) = (a.num(Rational::new(7, 10).unwrap()), a.num(Rational::new(-5, 4).unwrap()));
    let (y1, x2) = (a.add2(y, c1), a.add2(x, c2));
    let calls = [(Func::Sin, x), (Func::Cos, y), (Func::Sin, z), (Func::Sin, y1), (Func::Cos, y1), (Func::Sin, x2)];
    let terms: Vec<Expr> = calls.iter().map(|&(f, e)| a.call(f, &[e])).collect();
    let product = a.mul(&terms[..3]);
    let sum = a.add(&terms[3..]);
    let outputs = [product, sum];
    let options = EmitOptions { sin_cos: Some(quote!(sin_cos)) };
    let symbol = sym_tokens(&a);
    let vals = [0.4, -1.3, 2.2];
    let value_of = |s: Expr| vals[[x, y, z].iter().position(|&t| t == s).unwrap()];
    let expect = a.eval_many(&outputs, &value_of);
    let plain = emit_bound_with(&a, &[], &outputs, &symbol, "__t", &options);
    let text = render(&plain);
    let first = plain.statements[0].to_string();
    assert!(first.contains("sin_cos ([x , y , z , y + 0.7_f64])"), "{text}");
    assert_eq!(text.matches("sin_cos").count(), 1, "{text}");
    assert_eq!(text.matches(". sin ()").count(), 1, "{text}");
    let mut interp = Interp { env: HashMap::new() };
    for (name, v) in ["x", "y", "z"].into_iter().zip(vals) {
        interp.env.insert(name.to_owned(), v);
    }
    for (g, e) in interp.run(&plain).iter().zip(&expect) {
        assert!(close(*g, *e, 1e-15), "{g} against {e}\n{text}");
    }
}

/// A sum's terms least ready first: the term at the end of the longest chain of dependent
/// operations (through the bindings) is added last, whatever the canonical order; a negative term
/// that is the only one left to lead is negated rather than the late term moved to the front.
#[test]
fn sums_add_their_latest_ready_term_last() {
    let mut a = Arena::new();
    let (x, y, z) = (a.symbol("x"), a.symbol("y"), a.symbol("z"));
    // late = ((x y)² + y)² through two bindings: four operations deep.
    let xy = a.mul2(x, y);
    let b0 = a.symbol("b0");
    let sq = a.powi(b0, 2);
    let v1 = a.add2(sq, y);
    let b1 = a.symbol("b1");
    let late = a.powi(b1, 2);
    let three = a.int(3);
    let sum = a.add(&[late, z, three]);
    let mz = a.neg(z);
    let diff = a.add2(mz, late);
    let bindings = [(b0, xy), (b1, v1)];
    let em = emit_bound(&a, &bindings, &[sum, diff], &sym_tokens(&a), "__t");
    let text = render(&em);
    let out = em.outputs[0].to_string();
    assert!(out.starts_with("z + 3.0_f64 +") || out.starts_with("3.0_f64 + z +"), "{text}");
    assert_eq!(em.outputs[1].to_string().split_whitespace().next(), Some("-"), "{text}");
    let mut interp = Interp { env: HashMap::new() };
    for (name, v) in [("x", 0.7), ("y", -1.1), ("z", 0.4)] {
        interp.env.insert(name.into(), v);
    }
    let got = interp.run(&em);
    let late_value = ((0.7_f64 * -1.1).powi(2) - 1.1).powi(2);
    assert!(close(got[0], late_value + 0.4 + 3.0, 1e-14) && close(got[1], late_value - 0.4, 1e-14), "{got:?}\n{text}");
}

#[test]
fn long_bodies_declare_their_temporaries_in_groups() {
    // A recursion whose every step's value, sine and cosine are each read twice: three
    // temporaries a step, more than a body of plain `let`s keeps (each `let` a lexical scope
    // inside the last).
    let mut a = Arena::new();
    let (x, y) = (a.symbol("x"), a.symbol("y"));
    let mut t = x;
    for _ in 0..240 {
        let s = a.call(Func::Sin, &[t]);
        let c = a.call(Func::Cos, &[t]);
        let sy = a.mul2(s, y);
        let sc = a.mul2(s, c);
        t = a.add(&[sy, c, sc]);
    }
    let em = check_emission(&a, &[t], &[x, y]);
    let lets = em.statements.iter().filter(|s| s.to_string().starts_with("let")).count();
    assert!(em.statements.len() > 600, "{} statements", em.statements.len());
    assert!(lets * 128 <= em.statements.len() + 128, "{lets} lets for {} statements", em.statements.len());
}
