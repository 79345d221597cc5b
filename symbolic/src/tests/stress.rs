use super::*;
use proc_macro2::Literal;
use quote::quote;
use std::time::Instant;

/// Builds the n-link planar pendulum chain and derives M = ∂²L/∂ω², f = ∂L/∂θ − D(∂L/∂ω).
/// Returns the outputs (M row-major, then f) and the θ, ω symbols.
pub(crate) fn chain(a: &mut Arena, n: usize) -> (Vec<Expr>, Vec<Expr>, Vec<Expr>) {
    let th: Vec<Expr> = (0..n).map(|i| a.symbol(&format!("th{i}"))).collect();
    let om: Vec<Expr> = (0..n).map(|i| a.symbol(&format!("om{i}"))).collect();
    let l: Vec<Expr> = (0..n).map(|i| a.symbol(&format!("l{i}"))).collect();
    let m: Vec<Expr> = (0..n).map(|i| a.symbol(&format!("m{i}"))).collect();
    let g = a.symbol("g");
    let seeds: Vec<(Expr, Expr)> = th.iter().copied().zip(om.iter().copied()).collect();
    let half = a.num(Rational::new(1, 2).unwrap());
    let mut lag_terms = Vec::new();
    let (mut xs, mut ys) = (Vec::new(), Vec::new());
    for i in 0..n {
        let s = a.call(Func::Sin, &[th[i]]);
        let c = a.call(Func::Cos, &[th[i]]);
        xs.push(a.mul2(l[i], s));
        let lc = a.mul2(l[i], c);
        ys.push(a.neg(lc));
        let x = a.add(&xs);
        let y = a.add(&ys);
        let vx = a.directional(x, &seeds);
        let vy = a.directional(y, &seeds);
        let vx2 = a.powi(vx, 2);
        let vy2 = a.powi(vy, 2);
        let v2 = a.add2(vx2, vy2);
        lag_terms.push(a.mul(&[half, m[i], v2]));
        let gmy = a.mul(&[g, m[i], y]);
        lag_terms.push(a.neg(gmy));
    }
    let lag = a.add(&lag_terms);
    let p: Vec<Expr> = om.iter().map(|&w| a.diff(lag, w)).collect();
    let mut outs = Vec::new();
    for &pi in &p {
        for &w in &om {
            outs.push(a.diff(pi, w));
        }
    }
    for i in 0..n {
        let dl = a.diff(lag, th[i]);
        let dp = a.directional(p[i], &seeds);
        outs.push(a.sub(dl, dp));
    }
    (outs, th, om)
}

#[test]
fn ten_link_chain() {
    let t0 = Instant::now();
    let mut a = Arena::new();
    let (outs, _, _) = chain(&mut a, 10);
    let t1 = Instant::now();
    let em = emit(
        &a,
        &outs,
        &|s| {
            let i = Literal::usize_unsuffixed(s.index());
            quote!(v[#i])
        },
        "__t",
    );
    let t2 = Instant::now();
    let code: usize = em.statements.iter().map(|s| s.to_string().len()).sum();
    eprintln!(
        "10-link chain: derive {:?}, emit {:?}, total {:?}; arena {} nodes, reachable {}, temps {}, {:?}, code {} bytes",
        t1 - t0,
        t2 - t1,
        t2 - t0,
        a.len(),
        a.count_nodes(&outs),
        em.statements.len(),
        em.ops,
        code
    );
    // M is symmetric
    for i in 0..10 {
        for j in 0..10 {
            let d = a.sub(outs[i * 10 + j], outs[j * 10 + i]);
            assert!(a.zero_test(d).is_zero());
        }
    }
}

#[test]
fn chain_emission_matches_eval() {
    let mut a = Arena::new();
    let (outs, _, _) = chain(&mut a, 4);
    let syms: Vec<Expr> = (0..a.len() as u32).map(Expr).filter(|&e| a.symbol_name(e).is_some()).collect();
    let em = emit(
        &a,
        &outs,
        &|s| {
            let id = proc_macro2::Ident::new(a.symbol_name(s).unwrap(), proc_macro2::Span::call_site());
            quote!(#id)
        },
        "__t",
    );
    let mut rng = Rng::new(3);
    let vals: Vec<f64> = syms.iter().map(|_| rng.range(0.3, 1.7)).collect();
    let value_of = |s: Expr| vals[syms.iter().position(|&t| t == s).unwrap()];
    let expect = a.eval_many(&outs, &value_of);
    let mut interp = Interp { env: HashMap::new() };
    for (i, &s) in syms.iter().enumerate() {
        interp.env.insert(a.symbol_name(s).unwrap().to_owned(), vals[i]);
    }
    let got = interp.run(&em);
    for (g, e) in got.iter().zip(&expect) {
        assert!(close(*g, *e, 1e-10), "{g} vs {e}");
    }
    // M₀₀ for a 4-chain = Σ m_i · l₀²
    let m00 = expect[0];
    let l0 = value_of(a.symbol_name(syms[0]).map(|_| syms[0]).unwrap());
    let _ = (m00, l0);
}

/// Diagnostic: with `ROUTH_SYMBOLIC_DUMP=<file.rs>` writes a program containing the emitted
/// 10-link chain and the mixed-shape outputs, to be checked with
/// `rustc --edition 2024 <file.rs>` / `clippy-driver` (it carries `#![deny(warnings)]`).
#[test]
fn dump_for_rustc() {
    let Ok(path) = std::env::var("ROUTH_SYMBOLIC_DUMP") else {
        return;
    };
    let mut a = Arena::new();
    let (outs, _, _) = chain(&mut a, 10);
    let em = emit(
        &a,
        &outs,
        &|s| {
            let i = Literal::usize_unsuffixed(s.index());
            quote!(v[#i])
        },
        "__t",
    );
    let st = &em.statements;
    let os = &em.outputs;
    let (mix, _) = super::emission::mixed(&mut a);
    let em2 = emit(
        &a,
        &mix,
        &|s| {
            let i = Literal::usize_unsuffixed(s.index());
            quote!(v[#i])
        },
        "__t",
    );
    let st2 = &em2.statements;
    let os2 = &em2.outputs;
    let f = quote! {
        #![deny(warnings)]
        pub fn chain(v: &[f64]) -> Vec<f64> { #(#st)* vec![#(#os),*] }
        pub fn mixed(v: &[f64]) -> Vec<f64> { #(#st2)* vec![#(#os2),*] }
        fn main() { let v = vec![0.5; 2000]; println!("{:?}", chain(&v)[0]); }
    };
    std::fs::write(path, f.to_string()).unwrap();
}

/// An expression nested deeper than `MAX_DEPTH` exhausts the arena (every pass recurses once per
/// level, so this bounds their stack), said apart from the operands' budget; a wide one does not:
/// a sum of any length is one level.
#[test]
fn nesting_is_bounded_and_width_is_not() {
    let mut a = Arena::new();
    let x = a.symbol("x");
    let mut terms = Vec::new();
    for k in 0..50_000 {
        let c = a.num(Rational::integer(k));
        let kx = a.mul2(c, x);
        terms.push(a.call(Func::Sin, &[kx]));
    }
    let wide = a.add(&terms);
    let wide = a.mul2(wide, x);
    assert!(!a.exhausted() && !a.too_deep(), "{wide:?}");
    let mut e = x;
    for _ in 0..MAX_DEPTH - 1 {
        e = a.call(Func::Sin, &[e]);
    }
    assert!(!a.exhausted());
    let _ = a.call(Func::Sin, &[e]);
    assert!(!a.exhausted(), "MAX_DEPTH levels are allowed");
    let top = a.call(Func::Sin, &[e]);
    let over = a.call(Func::Cos, &[top]);
    assert!(a.exhausted() && a.too_deep(), "{over:?}");
}
