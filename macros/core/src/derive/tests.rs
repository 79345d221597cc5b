//! Unit tests of the derivation passes that compile no model: each pass runs on a lowered model and
//! its results are compared, by evaluation at sample states, with closed forms written out here.

use symbolic::{Arena, Expr};

use super::constraint::Kind;
use super::impact::Reset;
use super::{Derived, mode};
use crate::fixtures::lowered_model as lowered;
use crate::model::{Model, Role, View};

/// Sample values of the symbols by role: q, q̇ from the slices, parameters from `params`, discrete
/// nodes q_k = `q`, q_{k+1} (or the increment ξ with orientations) = `q1`, step h, time t = 0.3.
struct At<'a> {
    q: &'a [f64],
    v: &'a [f64],
    params: &'a [f64],
    q1: &'a [f64],
    h: f64,
}

impl At<'_> {
    fn eval(&self, model: &View<'_>, e: Expr) -> f64 {
        model.arena.eval(e, &|s| match model.role(s) {
            Some(Role::Time) => 0.3,
            Some(Role::Coordinate(i) | Role::NodeStart(i)) => self.q[i],
            Some(Role::Velocity(i)) => self.v[i],
            Some(Role::Parameter(i)) => self.params[i],
            Some(Role::NodeEnd(i) | Role::Increment(i)) => self.q1[i],
            Some(Role::StepSize) => self.h,
            other => panic!("no sample value for {other:?}"),
        })
    }
}

/// The model of `src`, its arena after every pass, and what the passes derived.
fn derived(src: &str) -> (Model, Arena, Derived) {
    let (model, mut arena) = lowered(src);
    let mut cx = crate::diagnostics::Ctxt::new();
    let d = mode(&model, &mut arena, false, &mut cx);
    cx.check().expect("the passes accept the model");
    (model, arena, d)
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-12 * (1.0 + a.abs().max(b.abs()))
}

/// The Frobenius test α ∧ dα: the rolling disk's rows are nonholonomic, `dx − r dφ` on a line is
/// the differential of x − rφ, and `holonomic(...)` stays holonomic.
#[test]
fn the_frobenius_test_tells_rolling_from_integrable_constraints() {
    let (_, _, d) = derived(
        "#[mechanics(coordinates(x, y, th, phi),
           lagrangian = m / 2 * (dot(x).powi(2) + dot(y).powi(2)) + i / 2 * dot(phi).powi(2) + j / 2 * dot(th).powi(2),
           constraint(roll_x = dx - r * th.cos() * dphi, roll_y = dy - r * th.sin() * dphi))]
         struct Disk { m: f64, i: f64, j: f64, r: f64 }",
    );
    let ce = d.constraints.expect("constraints derived");
    assert_eq!(ce.kinds, [Kind::Nonholonomic, Kind::Nonholonomic]);
    assert_eq!(ce.set_integrable, Some(false));
    let (_, _, d) = derived(
        "#[mechanics(coordinates(x, phi, y), lagrangian = m / 2 * (dot(x).powi(2) + dot(y).powi(2)) + i / 2 * dot(phi).powi(2),
           constraint(roll = dx - r * dphi), holonomic(floor = y - r))]
         struct Line { m: f64, i: f64, r: f64 }",
    );
    let ce = d.constraints.expect("constraints derived");
    assert_eq!(ce.kinds, [Kind::Integrable, Kind::Holonomic]);
    assert_eq!(ce.set_integrable, Some(true));
}

/// Two rows on three coordinates leave a line field, always integrable. The affine part of the
/// first, θ (sin²θ + cos²θ − 1), is identically zero but not structurally, so its derivative
/// evaluates to a rounding residue — the only kind of entry the set's 4-form on (x, y, θ, t) is
/// built on. The numeric pre-check once took that residue for a nonzero value (it was large next to
/// the other entries' rounding) and answered "not integrable"; it now bounds every entry's error.
#[test]
fn the_frobenius_pre_check_does_not_take_a_rounding_residue_for_a_value() {
    let (_, _, d) = derived(
        "#[mechanics(coordinates(x, y, th), lagrangian = (dot(x).powi(2) + dot(y).powi(2) + dot(th).powi(2)) / 2,
           constraint(c1 = dot(x) - th.cos() * dot(th) + th * (th.sin().powi(2) + th.cos().powi(2) - 1)),
           constraint(c2 = dot(y) - th.sin() * dot(th)))]
         struct Line { m: f64 }",
    );
    let ce = d.constraints.expect("constraints derived");
    assert_eq!(ce.kinds, [Kind::Integrable, Kind::Integrable]);
    assert_eq!(ce.set_integrable, Some(true));
}

/// Noether with forces: for the rotation ξ = (−y, x) of a particle in a central potential,
/// J = m (x ẏ − y ẋ) and dJ/dt = ⟨Q, ξ⟩ = −c J/m under linear drag Q = −c q̇ (not conserved);
/// `cyclic(phi)` in polar coordinates gives J = m r² φ̇, conserved.
#[test]
fn momentum_maps_and_their_balance_laws_have_their_closed_forms() {
    let (model, arena, d) = derived(
        "#[mechanics(coordinates(x, y), lagrangian = m / 2 * (dot(x).powi(2) + dot(y).powi(2)) - k * (x.powi(2) + y.powi(2)).sqrt(),
           force(x = -c * dot(x), y = -c * dot(y)), symmetry(rot = generator(x = -y, y = x)))]
         struct Central { m: f64, k: f64, c: f64 }",
    );
    let [s] = d.symmetries.as_slice() else { panic!("one symmetry") };
    assert!(!s.conserved);
    for (q, v) in [([0.7, -1.3], [0.4, 2.1]), ([-2.0, 0.5], [1.5, -0.25])] {
        let (m, c) = (1.7, 0.3);
        let at = At { q: &q, v: &v, params: &[m, 0.9, c], q1: &[], h: 0.0 };
        let j = m * (q[0] * v[1] - q[1] * v[0]);
        assert!(close(at.eval(&model.view(&arena), s.momentum), j));
        assert!(close(at.eval(&model.view(&arena), s.rate), -c * j / m));
    }
    let (model, arena, d) = derived(
        "#[mechanics(coordinates(r, phi), lagrangian = m / 2 * (dot(r).powi(2) + (r * dot(phi)).powi(2)) + k / r, symmetry(cyclic(phi)))]
         struct Kepler { m: f64, k: f64 }",
    );
    let [s] = d.symmetries.as_slice() else { panic!("one symmetry") };
    assert!(s.conserved);
    let at = At { q: &[1.4, 0.2], v: &[0.3, -0.8], params: &[2.5, 1.0], q1: &[], h: 0.0 };
    assert!(close(at.eval(&model.view(&arena), s.momentum), 2.5 * 1.4 * 1.4 * -0.8));
}

/// A restitution law against the wall r sin θ + d ≥ 0 of a particle in polar coordinates: the
/// guard's gradient (sin θ, r cos θ), its rate ṙ sin θ + r θ̇ cos θ, and one row of the
/// saddle-point projection, dh with coefficient e.
#[test]
fn impact_laws_have_the_guards_gradient_and_rate() {
    let (model, arena, d) = derived(
        "#[mechanics(coordinates(r, th), lagrangian = m / 2 * (dot(r).powi(2) + (r * dot(th)).powi(2)) - m * g * r * th.sin(),
           impact(name = wall, guard = r * th.sin() + d, law = restitution(e)))]
         struct Polar { m: f64, g: f64, d: f64, e: f64 }",
    );
    let [imp] = d.impacts.as_slice() else { panic!("one impact") };
    let (q, v) = ([1.3, -0.4], [0.6, 1.1]);
    let at = At { q: &q, v: &v, params: &[1.0, 9.81, 0.5, 0.8], q1: &[], h: 0.0 };
    assert!(close(at.eval(&model.view(&arena), imp.gradient[0]), q[1].sin()));
    assert!(close(at.eval(&model.view(&arena), imp.gradient[1]), q[0] * q[1].cos()));
    assert!(close(at.eval(&model.view(&arena), imp.rate), v[0] * q[1].sin() + q[0] * v[1] * q[1].cos()));
    let Reset::Projection { a, b, e, .. } = &imp.reset else { panic!("a restitution law projects") };
    assert_eq!((a.len(), b.len(), e.len()), (1, 1, 1));
    assert!(close(at.eval(&model.view(&arena), a[0][1]), q[0] * q[1].cos()));
    assert!(close(at.eval(&model.view(&arena), b[0]), 0.0));
    assert!(close(at.eval(&model.view(&arena), e[0]), 0.8));
}

/// The Routhian of the Kepler problem (with erratum H2 of `docs/references.md` for the general
/// form): at μ = m r² φ̇, R^μ = m ṙ²/2 − μ²/(2 m r²) + k/r, and φ̇ = μ/(m r²).
#[test]
fn the_routhian_is_the_amended_lagrangian() {
    let (_, arena, d) = derived(
        "#[mechanics(coordinates(r, phi), lagrangian = m / 2 * (dot(r).powi(2) + (r * dot(phi)).powi(2)) + k / r,
           symmetry(cyclic(phi)), reduce(routh(phi), name = Radial))]
         struct Kepler { m: f64, k: f64 }",
    );
    let [r] = d.reductions.cyclic.as_slice() else { panic!("one reduction") };
    let rm = &r.reduced.model.view(&arena);
    assert_eq!(rm.parameters.iter().map(ToString::to_string).collect::<Vec<_>>(), ["m", "k", "mu_phi"]);
    let (m, k, mu) = (1.5, 0.7, 1.2);
    let (rr, rd) = (0.9, -0.35);
    let at = At { q: &[rr], v: &[rd], params: &[m, k, mu], q1: &[], h: 0.0 };
    let routhian = m * rd * rd / 2.0 - mu * mu / (2.0 * m * rr * rr) + k / rr;
    assert!(close(at.eval(rm, rm.lagrangian), routhian));
    assert!(close(at.eval(rm, r.reduced.cyclic_velocities[0]), mu / (m * rr * rr)));
}

/// The Lie group integrator's maps of a free body J = diag(i₁, i₂, i₃) on the midpoint rule:
/// L_d = ξᵀ J ξ/(2h) whatever the attitude, so μ⁻ = A(ξ) J ξ/h, μ⁺ = A(ξ)ᵀ J ξ/h with
/// A(ξ) = 1 + ½ [ξ×] + ¼ ξ ξᵀ, and ∂μ⁻/∂ξ = (J + ½ ([ξ×] J − [Jξ×]) + ¼ ((ξ·Jξ) 1 + 2 ξ (Jξ)ᵀ))/h.
#[test]
fn the_cayley_maps_of_a_free_body() {
    let (model, arena, d) = derived(
        "#[mechanics(orientation(r), body(name = brick, mass = m, centre = [0, 0, 0], frame = r, inertia = diag(i1, i2, i3)),
           discrete(rule = midpoint))]
         struct Brick { m: f64, i1: f64, i2: f64, i3: f64 }",
    );
    let Some(crate::derive::discrete::Discrete::Oriented(oe)) = d.discrete else { panic!("the Lie group integrator") };
    let (j, xi, h) = ([1.0, 2.0, 3.0], [0.1, -0.2, 0.3], 0.1);
    // A unit quaternion the maps must not depend on.
    let q = [0.5_f64.sqrt(), 0.5, -0.5, 0.0];
    let at = At { q: &q, v: &[], params: &[1.5, j[0], j[1], j[2]], q1: &xi, h };
    let jxi = [j[0] * xi[0], j[1] * xi[1], j[2] * xi[2]];
    let cross = [xi[1] * jxi[2] - xi[2] * jxi[1], xi[2] * jxi[0] - xi[0] * jxi[2], xi[0] * jxi[1] - xi[1] * jxi[0]];
    let along: f64 = (0..3).map(|c| xi[c] * jxi[c]).sum();
    let view = model.view(&arena);
    for c in 0..3 {
        let sym = jxi[c] + 0.25 * xi[c] * along;
        assert!(close(at.eval(&view, oe.maps.left_momentum[c]), (sym + 0.5 * cross[c]) / h), "μ⁻[{c}]");
        assert!(close(at.eval(&view, oe.maps.right_momentum[c]), (sym - 0.5 * cross[c]) / h), "μ⁺[{c}]");
        for k in 0..3 {
            // [ξ×] J − [Jξ×] and ξ (Jξ)ᵀ, entry (c, k).
            let turn = |v: &[f64; 3], w: &[f64; 3]| match (c, k) {
                (0, 1) => -v[2] * w[1],
                (0, 2) => v[1] * w[2],
                (1, 0) => v[2] * w[0],
                (1, 2) => -v[0] * w[2],
                (2, 0) => -v[1] * w[0],
                (2, 1) => v[0] * w[1],
                _ => 0.0,
            };
            let cross_jacobian = turn(&xi, &j) - turn(&jxi, &[1.0; 3]);
            let diagonal = if c == k { j[c] + 0.25 * along } else { 0.0 };
            let expected = (diagonal + 0.5 * cross_jacobian + 0.5 * xi[c] * jxi[k]) / h;
            assert!(close(at.eval(&view, oe.maps.left_jacobian[c][k]), expected), "∂μ⁻/∂ξ ({c}, {k})");
        }
    }
}

/// The discrete Legendre maps of the midpoint rule for the oscillator L = m ẋ²/2 − k x²/2:
/// L_d = h [m/2 ((q₁ − q₀)/h)² − k/2 ((q₀ + q₁)/2)²], so p₀ = −D₁L_d = m (q₁ − q₀)/h + h k (q₀ + q₁)/4
/// and p₁ = D₂L_d = m (q₁ − q₀)/h − h k (q₀ + q₁)/4.
#[test]
fn the_discrete_legendre_maps_of_the_midpoint_rule() {
    let (model, arena, d) = derived(
        "#[mechanics(coordinates(x), lagrangian = m / 2 * dot(x).powi(2) - k / 2 * x.powi(2), discrete(rule = midpoint))]
         struct Oscillator { m: f64, k: f64 }",
    );
    let Some(crate::derive::discrete::Discrete::Euclidean(de)) = d.discrete else { panic!("a discrete system") };
    let (m, k, h, q0, q1) = (1.3, 4.0, 0.05, 0.8, 0.83);
    let at = At { q: &[q0], v: &[], params: &[m, k], q1: &[q1], h };
    let lagrangian = h * (m / 2.0 * ((q1 - q0) / h).powi(2) - k / 2.0 * ((q0 + q1) / 2.0).powi(2));
    assert!(close(at.eval(&model.view(&arena), de.maps.lagrangian), lagrangian));
    assert!(close(at.eval(&model.view(&arena), de.maps.left_momentum[0]), m * (q1 - q0) / h + h * k * (q0 + q1) / 4.0));
    assert!(close(at.eval(&model.view(&arena), de.maps.right_momentum[0]), m * (q1 - q0) / h - h * k * (q0 + q1) / 4.0));
    // ∂p₀/∂q₁ = m/h + h k/4, the Newton matrix of the step.
    assert!(close(at.eval(&model.view(&arena), de.maps.left_jacobian[0][0]), m / h + h * k / 4.0));
}

/// A model of `n` chained rational defines, d_k = d_{k−1}² / (1 + d_{k−1}), its potential k d_n.
fn rational_chain(n: usize) -> String {
    let defs: Vec<String> = std::iter::once("d0 = x".to_owned())
        .chain((1..=n).map(|i| format!("d{i} = d{p} * d{p} / (1 + d{p})", p = i - 1)))
        .collect();
    format!(
        "#[mechanics(coordinates(x), define({}), lagrangian = m / 2 * dot(x).powi(2) - k * d{n})] struct Chain {{ m: f64, k: f64 }}",
        defs.join(", ")
    )
}

/// Chained rational defines, d_k = d_{k−1}² / (1 + d_{k−1}): the equations' derivatives share
/// nothing and swell (300 of them took 17 GB before failing). The workspace's budget stops the
/// derivation in bounded time and memory, flagged for the error the derive reports; a model well
/// inside the budget is untouched.
#[test]
fn a_derivation_that_swells_stops_at_the_workspace_budget() {
    let chain = rational_chain;
    let (model, mut arena) = lowered(&chain(40));
    let mut cx = crate::diagnostics::Ctxt::new();
    let _ = mode(&model, &mut arena, false, &mut cx);
    cx.check().unwrap();
    let used = arena.operands();
    assert!(!arena.exhausted() && used > 10_000, "{used}");
    // The same derivation with a tenth of what it needs: exhausted, and it stops without building more.
    let (model, mut arena) = lowered(&chain(40));
    arena.set_budget(used / 10);
    let mut cx = crate::diagnostics::Ctxt::new();
    let _ = mode(&model, &mut arena, false, &mut cx);
    let _ = cx.check();
    assert!(arena.exhausted() && arena.operands() <= used / 10 + 64, "{} of {}", arena.operands(), used / 10);
}

/// Past the budget the expressions are placeholders, so what the lowering or the
/// derivation says of them is false ("coordinate `x` has no kinetic term"): the budget's error is
/// the only one, at the define where lowering hit it, or at the Lagrangian when the derivation did.
#[test]
fn an_exhausted_budget_is_the_only_error_and_names_where_it_was_hit() {
    let source = rational_chain;
    let errors = |n: usize, budget: usize| {
        let input: proc_macro2::TokenStream = source(n).parse().unwrap();
        let err = symbolic::with_budget(budget, || crate::try_expand(input)).unwrap_err();
        err.into_iter().map(|e| e.to_string()).collect::<Vec<_>>()
    };
    // Lowering hits a budget below what it takes inside the chain of defines.
    let used = lowered(&source(40)).1.operands();
    let lowering = errors(40, used / 2);
    assert_eq!(lowering.len(), 1, "{lowering:?}");
    assert!(lowering[0].contains("expansion budget") && lowering[0].contains("at the define `d"), "{lowering:?}");
    // A budget the lowering fits in and the derivation does not: at the Lagrangian, alone.
    let derivation = errors(40, used + 50);
    assert_eq!(derivation.len(), 1, "{derivation:?}");
    assert!(derivation[0].contains("expansion budget") && !derivation[0].contains("kinetic"), "{derivation:?}");
}

/// Expansion is bounded in recursion depth on any thread. A Lagrangian nested 2 000
/// parentheses deep expands on a test's own thread (2 MB of stack: it overflowed it from 500 when
/// only the proc macro grew its stack); a chain of defines that nests its expression deeper than
/// [`symbolic::MAX_DEPTH`] is a spanned error at the define that crossed it, not a crash.
#[test]
fn expansion_is_bounded_in_depth_on_any_thread() {
    let deep = format!(
        "#[mechanics(coordinates(x), lagrangian = m / 2 * dot(x).powi(2) - k / 2 * {}x{}.powi(2))] struct Deep {{ m: f64, k: f64 }}",
        "(".repeat(2_000),
        ")".repeat(2_000)
    );
    let on_small_stack = std::thread::Builder::new().stack_size(2 << 20);
    let expanded = on_small_stack.spawn(move || crate::try_expand(deep.parse().unwrap()).is_ok()).unwrap().join().unwrap();
    assert!(expanded);
    let n = symbolic::MAX_DEPTH as usize + 5;
    let defines: Vec<String> =
        std::iter::once("d0 = x".to_owned()).chain((1..=n).map(|i| format!("d{i} = d{}.sin()", i - 1))).collect();
    let chain = format!(
        "#[mechanics(coordinates(x), define({}), lagrangian = m / 2 * dot(x).powi(2) - k * d{n})] struct Deep {{ m: f64, k: f64 }}",
        defines.join(", ")
    );
    let errors: Vec<String> = crate::try_expand(chain.parse().unwrap()).unwrap_err().into_iter().map(|e| e.to_string()).collect();
    assert_eq!(errors.len(), 1, "{errors:?}");
    let crossed = format!("at the define `d{}`", symbolic::MAX_DEPTH + 1);
    assert!(errors[0].contains("nest deeper than 10000 levels") && errors[0].contains(&crossed), "{errors:?}");
}

/// Chaplygin's sleigh reduced nonholonomically in its body-frame velocities (v, ω): the reduced
/// equations are exactly m v̇ = m a ω² and (I + m a²) ω̇ = −m a v ω — proved by the zero test of
/// M u̇ − f with the closed-form u̇, an identity in (v, ω) and the parameters — and the dropped
/// heading rate is ω.
#[test]
fn the_nonholonomic_reduction_of_the_sleigh_is_chaplygins_system() {
    let (_, mut arena, d) = derived(
        "#[mechanics(coordinates(x, y, th),
           lagrangian = m / 2 * (dot(x).powi(2) + dot(y).powi(2)) + i / 2 * dot(th).powi(2),
           constraint(blade = dot(y) * th.cos() - dot(x) * th.sin() - a * dot(th)),
           reduce(nonholonomic(x, y, th), velocities(v = th.cos() * dot(x) + th.sin() * dot(y), w = dot(th))))]
         struct Sleigh { m: f64, i: f64, a: f64 }",
    );
    let red = &d.reductions.first_order[0];
    let layout = &red.model.layout;
    let (v, w) = (layout.qd[0], layout.qd[1]);
    let [m, i, a] = [0, 1, 2].map(|k| layout.params[k]);
    let ww = arena.mul2(w, w);
    let vdot = arena.mul2(a, ww);
    let (ma, aa) = (arena.mul2(m, a), arena.mul2(a, a));
    let k = {
        let maa = arena.mul2(m, aa);
        arena.add(&[i, maa])
    };
    let num = arena.mul(&[ma, v, w]);
    let inv_k = arena.powi(k, -1);
    let wdot = {
        let q = arena.mul2(num, inv_k);
        arena.neg(q)
    };
    let udot = [vdot, wdot];
    for r in 0..2 {
        let mu = arena.dot(&red.mass[r], &udot);
        let residual = arena.sub(mu, red.forcing[r]);
        assert!(arena.zero_test(residual).is_zero(), "row {r} of M u̇ = f is not Chaplygin's");
    }
    assert!(red.model.layout.rates.is_empty() && red.dropped == [0, 1, 2]);
    let th_rate = arena.sub(red.full_velocities[2], w);
    assert!(arena.zero_test(th_rate).is_zero());
    // The sleigh's right-hand side is all of degree two in (v, w): the curvature terms.
    for (r, parts) in red.forcing_by_degree.iter().enumerate() {
        assert!(arena.zero_test(parts[0]).is_zero() && arena.zero_test(parts[1]).is_zero(), "row {r}");
        let rest = arena.sub(parts[2], red.forcing[r]);
        assert!(arena.zero_test(rest).is_zero(), "row {r}");
    }
}

/// The split by degree of the rustdoc: a + b·u + c·u² + d·u·v + sin(u)·v at u, v: the part at
/// rest a, the linear part b·u, and the rest — which holds sin(u)·v (not a polynomial).
#[test]
fn forcing_splits_by_degree_in_the_velocities() {
    let mut arena = Arena::new();
    let [a, b, c, d, u, v] = ["a", "b", "c", "d", "u", "v"].map(|n| arena.symbol(n));
    let bu = arena.mul2(b, u);
    let cuu = arena.mul(&[c, u, u]);
    let duv = arena.mul(&[d, u, v]);
    let su = arena.call(symbolic::Func::Sin, &[u]);
    let suv = arena.mul2(su, v);
    let e = arena.add(&[a, bu, cuu, duv, suv]);
    let [f0, f1, f2] = super::reduce::first_order::by_degree(&mut arena, e, &[u, v]);
    let want2 = arena.add(&[cuu, duv, suv]);
    for (k, (got, want)) in [(f0, a), (f1, bu), (f2, want2)].into_iter().enumerate() {
        let r = arena.sub(got, want);
        assert!(arena.zero_test(r).is_zero(), "part {k}: {:?}", arena.zero_test(r));
    }
}

/// The recursion `r` of `model` evaluated binding by binding against M⁻¹f of the same model (the
/// dense route, Gaussian elimination with partial pivoting) at one state: to 1e-12.
fn recursion_is_dense(model: &Model, arena: &mut Arena, r: &super::dynamics::Recursive, src: &str) {
    use rustc_hash::FxHashMap;
    let eq = super::euler_lagrange::derive(model, arena);
    let n = model.dof();
    let (q, v): (Vec<f64>, Vec<f64>) =
        ((0..n).map(|i| 0.3 + 0.4 * i as f64).collect(), (0..n).map(|i| 0.5 - 0.3 * i as f64).collect());
    let params: Vec<f64> = (0..model.parameters.len()).map(|i| 0.7 + 0.2 * i as f64).collect();
    let base = |s: Expr, known: &FxHashMap<Expr, f64>| match model.role(s) {
        Some(Role::Time) => 0.3,
        Some(Role::Coordinate(i)) => q[i],
        Some(Role::Velocity(i)) => v[i],
        Some(Role::Parameter(i)) => params[i],
        _ => known[&s],
    };
    let mut known = FxHashMap::default();
    for &(s, e) in &r.bindings {
        let value = arena.eval(e, &|x| base(x, &known));
        known.insert(s, value);
    }
    let qdd: Vec<f64> = r.accelerations.iter().map(|&e| arena.eval(e, &|x| base(x, &known))).collect();
    // M⁻¹f by Gaussian elimination with partial pivoting.
    let mut a: Vec<Vec<f64>> = (0..n)
        .map(|i| {
            let mut row: Vec<f64> = (0..n).map(|j| arena.eval(eq.mass[i][j], &|x| base(x, &known))).collect();
            row.push(arena.eval(eq.forcing[i], &|x| base(x, &known)));
            row
        })
        .collect();
    for k in 0..n {
        let p = (k..n).max_by(|&i, &j| a[i][k].abs().total_cmp(&a[j][k].abs())).expect("a row");
        a.swap(k, p);
        let pivot = a[k].clone();
        for row in &mut a[k + 1..] {
            let factor = row[k] / pivot[k];
            for (x, p) in row.iter_mut().zip(&pivot).skip(k) {
                *x -= factor * p;
            }
        }
    }
    let mut dense = vec![0.0; n];
    for i in (0..n).rev() {
        let rest: f64 = (i + 1..n).map(|j| a[i][j] * dense[j]).sum();
        dense[i] = (a[i][n] - rest) / a[i][i];
    }
    let scale = dense.iter().fold(1.0f64, |m, x| m.max(x.abs()));
    for i in 0..n {
        assert!((qdd[i] - dense[i]).abs() < 1e-12 * scale, "q̈[{i}] = {} against {}\n{src}", qdd[i], dense[i]);
    }
}

/// The recursion read off each model: its tree (parents), its directions per joint, and its q̈ —
/// evaluated binding by binding — against M⁻¹f of the same model; and the reason each non-tree
/// model gives.
#[test]
fn kinematic_trees_are_read_from_the_lagrangian() {
    use super::dynamics::recursion;
    let check = |src: &str, parents: &[Option<usize>], directions: &[usize]| {
        let (model, mut arena) = lowered(src);
        let r = recursion(&model, &mut arena).unwrap_or_else(|why| panic!("not a tree: {why}\n{src}"));
        assert_eq!(r.parents, parents, "{src}");
        assert_eq!(r.directions().collect::<Vec<_>>(), directions, "{src}");
        assert!(matches!(r.tree, super::dynamics::Links::Directions(_)), "a tree of directions");
        recursion_is_dense(&model, &mut arena, &r, src);
    };
    // The chain: each link below the last, x and y at every joint.
    check(&crate::fixtures::pendulum_chain_struct("Chain4", 4), &[None, Some(0), Some(1), Some(2)], &[2, 2, 2, 2]);
    // A link with its mass at the middle and a pendulum at its end: three directions at `b`.
    check(
        "#[mechanics(coordinates(x, b, c),
           define(xm = x + l / 2 * b.sin(), ym = -l / 2 * b.cos(), xb = x + l * b.sin(), yb = -l * b.cos(),
                  xc = xb + l * c.sin(), yc = yb - l * c.cos()),
           lagrangian = mx / 2 * dot(x).powi(2) + m / 2 * (dot(xm).powi(2) + dot(ym).powi(2) + dot(xc).powi(2) + dot(yc).powi(2))
               - g * m * (ym + yc) - k / 2 * (x - s * (w * t).sin()).powi(2),
           force(b = -d * dot(b)))]
         struct Link { mx: f64, m: f64, l: f64, g: f64, k: f64, s: f64, w: f64, d: f64 }",
        &[None, Some(0), Some(1)],
        &[1, 4, 2],
    );
    // Two roots stacked: the hook swings with the bridge `y` and the load's angle `a`, so `x` (and
    // with it `a`) is grafted below `y`.
    check(
        "#[mechanics(coordinates(y, x, a, b),
           particle(name = trolley, mass = mt, at = [x, y, 0]),
           particle(name = load, mass = ml, at = [x + l * a.sin(), y, -l * a.cos()]),
           particle(name = hook, mass = mh, at = [x + l * a.sin(), y + h * b.sin(), -l * a.cos() - h * b.cos()]),
           gravity = [0, 0, -g])]
         struct Gantry { mt: f64, ml: f64, mh: f64, l: f64, h: f64, g: f64 }",
        &[None, Some(0), Some(1), Some(2)],
        &[1, 2, 3, 2],
    );
    let refused = |src: &str, why: &str| {
        let (model, mut arena) = lowered(src);
        match recursion(&model, &mut arena) {
            Ok(_) => panic!("a tree: {src}"),
            Err(reason) => assert!(reason.contains(why), "{reason}\n{src}"),
        }
    };
    refused(
        "#[mechanics(coordinates(a, b), define(x = l * a.sin() + l * (a + b).sin()),
           lagrangian = m / 2 * (dot(a).powi(2) + dot(x).powi(2)))] struct R { m: f64, l: f64 }",
        "along `dot(a)` depends on `b`",
    );
    refused(
        "#[mechanics(coordinates(a), define(x = s * (w * t).cos() + l * a.sin()),
           lagrangian = m / 2 * dot(x).powi(2) + m / 2 * dot(a).powi(2))] struct S { m: f64, l: f64, s: f64, w: f64 }",
        "moves with time",
    );
    refused(
        "#[mechanics(coordinates(a, b), lagrangian = m / 2 * (dot(a).powi(2) + dot(b).powi(2)) + c * dot(a) * dot(b))]
         struct P { m: f64, c: f64 }",
        "products of different rates",
    );
    refused(
        "#[mechanics(coordinates(a), lagrangian = m / 2 * a.powi(2) * dot(a).powi(2))] struct V { m: f64 }",
        "a mass depends on the state",
    );
    // Constraints do not change the tree (a constrained tree solves its saddle point along it).
    check(
        "#[mechanics(coordinates(x, y), lagrangian = m / 2 * (dot(x).powi(2) + dot(y).powi(2)),
           holonomic(ring = x.powi(2) + y.powi(2) - 1))] struct C { m: f64 }",
        &[None, None],
        &[1, 1],
    );
}

/// The spatial recursion read off the bodies of each model: its tree (parents) and its q̈ against
/// M⁻¹f of the same model — a chain turning about z, y, x in turn, branches on a cart, a gimbal whose
/// first joint moves no body of its own, an angle written absolute (rot_z(a + b) below rot_z(a)),
/// the Whipple bicycle; and the reason each model that is not one gives.
#[test]
fn spatial_trees_are_read_from_the_bodies() {
    use super::dynamics::spatial::recursion;
    let check = |src: &str, parents: &[Option<usize>]| {
        let (model, mut arena) = lowered(src);
        let r = recursion(&model, &mut arena).unwrap_or_else(|why| panic!("not a spatial tree: {why}\n{src}"));
        assert_eq!(r.parents, parents, "{src}");
        assert!(matches!(r.tree, super::dynamics::Links::Spatial(_)), "rigid links");
        recursion_is_dense(&model, &mut arena, &r, src);
    };
    check(&crate::fixtures::spatial_chain_struct_with("S4", 4, ""), &[None, Some(0), Some(1), Some(2)]);
    check(
        "#[mechanics(coordinates(x, a, b, c),
           frame(fa = rot_y(a), fb = rot_x(b) * rot_z(0.4), fc = fa * rot_z(c)),
           particle(name = cart, mass = mc, at = [x, 0.1, 0]),
           body(name = left, mass = m, centre = [x, 0.1, 0] + fa * [0, 0.2, -l], frame = fa, inertia = diag(i, j, k)),
           body(name = right, mass = m, centre = [x, 0.1, 0] + fb * [0, -0.2, -l], frame = fb, inertia = diag(i, i, k)),
           body(name = hand, mass = m / 3, centre = [x, 0.1, 0] + fa * [0, 0.2, -2 * l] + fc * [l / 4, 0, 0],
                frame = fc * rot_x(1), inertia = [[i, p, 0], [p, j, 0], [0, 0, k]]),
           gravity = [0, g / 10, -g],
           lagrangian = -s / 2 * x.powi(2) - s / 3 * (b - a).powi(2),
           force(c = -d * dot(c), x = f * (w * t).cos()))]
         struct Branched { mc: f64, m: f64, l: f64, i: f64, j: f64, k: f64, p: f64, g: f64, s: f64, d: f64, f: f64, w: f64 }",
        &[None, Some(0), Some(0), Some(1)],
    );
    check(
        "#[mechanics(coordinates(p, u), frame(f = rot_z(p) * rot_x(u)),
           body(name = dish, mass = m, centre = f * [0, 0.3, l], frame = f, inertia = diag(i, j, k)),
           gravity = [0, 0, -g])]
         struct Gimbal { m: f64, l: f64, i: f64, j: f64, k: f64, g: f64 }",
        &[None, Some(0)],
    );
    check(
        "#[mechanics(coordinates(a, b), frame(fa = rot_x(1) * rot_z(a), fb = rot_x(1) * rot_z(a + b)),
           body(name = first, mass = m, centre = fa * [l, 0, 0], frame = fa, inertia = diag(i, j, k)),
           body(name = second, mass = m, centre = fa * [2 * l, 0, 0] + fb * [l, 0, 0], frame = fb, inertia = diag(i, j, k)),
           gravity = [0, 0, -g])]
         struct Absolute { m: f64, l: f64, i: f64, j: f64, k: f64, g: f64 }",
        &[None, Some(0)],
    );
    // The Whipple bicycle of `examples/models/whipple.rs` (its unconstrained M⁻¹f: the rolling
    // constraints are the saddle point's): a prismatic root, yaw, roll and pitch, the steer about an
    // axis tilted by a constant rotation, two wheels spinning on their frames.
    let file = include_str!("../../../../examples/models/whipple.rs");
    let struct_at = file.find("pub struct ").expect("the struct");
    let start = file[..struct_at].rfind("#[mechanics(").expect("the model's attribute");
    let end = struct_at + file[struct_at..].find("\n}\n").expect("the struct's end") + 3;
    check(&file[start..end], &[None, Some(0), Some(1), Some(2), Some(3), Some(4), Some(4), Some(5)]);
    let refused = |src: &str, why: &str| {
        let (model, mut arena) = lowered(src);
        match recursion(&model, &mut arena) {
            Ok(_) => panic!("a spatial tree: {src}"),
            Err(reason) => assert!(reason.contains(why), "{reason}\n{src}"),
        }
    };
    refused(
        "#[mechanics(coordinates(p, u), frame(f = rot_z(p) * rot_x(u), e = rot_x(u) * rot_z(p)),
           body(name = top, mass = m, centre = f * [0, 0, l], frame = f, inertia = diag(i, i, k)),
           body(name = vane, mass = m, centre = e * [0, 0, l], frame = e, inertia = diag(i, i, k)))]
         struct Vane { m: f64, l: f64, i: f64, k: f64 }",
        "`vane` does not turn and move rigidly",
    );
    refused(
        "#[mechanics(coordinates(a), frame(f = rot_z(a)),
           body(name = rotor, mass = m, centre = [s * (w * t).sin(), 0, 0], frame = f, inertia = diag(i, i, k)))]
         struct Shaken { m: f64, s: f64, w: f64, i: f64, k: f64 }",
        "depends on time",
    );
    refused(
        "#[mechanics(coordinates(a), frame(f = rot_z(a)),
           body(name = rotor, mass = m, centre = [0, 0, 0], frame = f, inertia = diag(i, i, k)),
           lagrangian = j / 2 * a.cos() * dot(a).powi(2))]
         struct Extra { m: f64, i: f64, k: f64, j: f64 }",
        "velocity terms",
    );
    // A joint's armature, ½ j ȧ² with a constant j, is not refused: it is the joint's.
    let (model, mut arena) = lowered(
        "#[mechanics(coordinates(a), frame(f = rot_z(a)),
           body(name = rotor, mass = m, centre = [0, 0, 0], frame = f, inertia = diag(i, i, k)),
           lagrangian = j / 2 * dot(a).powi(2))]
         struct Rotor { m: f64, i: f64, k: f64, j: f64 }",
    );
    assert!(recursion(&model, &mut arena).is_ok());
}

/// A dense model forms M by columns where its entries outgrow `COLUMNS_MIN_NODES` and
/// `COLUMNS_RATIO` times its product M a: a chain of point masses in relative angles at 50 links
/// (49 303 nodes against 5 598), not at 40 (26 243); a chain in absolute angles never (its entries
/// 1.4 to 1.8 times M a's). M a is exact: Σⱼ Mᵢⱼ aⱼ at sample states.
#[test]
fn m_goes_by_columns_where_its_entries_outgrow_its_product() {
    use super::euler_lagrange::{COLUMNS_MIN_NODES, COLUMNS_RATIO, derive_with};
    for (n, relative, columns) in [(40, true, false), (50, true, true), (50, false, false)] {
        let src = if relative {
            crate::fixtures::relative_chain_struct_with("R", n, "")
        } else {
            crate::fixtures::pendulum_chain_struct_with("C", n, "dynamics = dense")
        };
        let (model, mut arena) = lowered(&src);
        let eq = derive_with(&model, &mut arena, true);
        let upper: Vec<Expr> = (0..n).flat_map(|i| eq.mass[i][i..].to_vec()).collect();
        let entries = arena.count_nodes(&upper);
        assert_eq!(eq.mass_product.is_some(), columns, "{n} links (relative: {relative}): M's entries have {entries} nodes");
        if relative {
            assert_eq!(entries >= COLUMNS_MIN_NODES, columns, "{entries} nodes");
        }
        let Some(product) = &eq.mass_product else { continue };
        assert!(entries >= COLUMNS_RATIO * arena.count_nodes(product));
        let syms = &model.layout;
        for values in super::euler_lagrange::sample_points(&model, 2) {
            let a: Vec<f64> = (0..n).map(|i| ((i * 7 % 5) as f64 - 2.0) / 3.0).collect();
            let lookup =
                |s: Expr| syms.qdd.iter().position(|&x| x == s).map_or_else(|| values.get(&s).copied().unwrap_or(1.0), |i| a[i]);
            let ma = arena.eval_many(product, &lookup);
            for (i, (row, got)) in eq.mass.iter().zip(&ma).enumerate() {
                let row = arena.eval_many(row, &lookup);
                let expected: f64 = row.iter().zip(&a).map(|(m, a)| m * a).sum();
                assert!((got - expected).abs() <= 1e-11 * (1.0 + expected.abs()), "row {i}: {got} against {expected}");
            }
        }
    }
}

/// The outputs' Jacobian C = ∂y/∂x: a two-link arm's tip in closed form (J = ∂p/∂q in the
/// position columns, zero in the velocity columns; its speed's row ∂(|ṗ|²)/∂q̇ = 2 Jᵀṗ), and
/// the documented absences: an output of a multiplier, and the outputs' size bound.
#[test]
fn the_outputs_jacobian_is_their_derivative_or_says_why_not() {
    use super::output::Jacobian;
    let (model, arena, d) = derived(
        "#[mechanics(coordinates(a, b),
           define(x = l1 * a.cos() + l2 * (a + b).cos(), y = l1 * a.sin() + l2 * (a + b).sin()),
           lagrangian = m / 2 * (dot(x).powi(2) + dot(y).powi(2)),
           output(tip_x = x, tip_y = y, speed2 = dot(x).powi(2) + dot(y).powi(2)))]
         struct Arm { m: f64, l1: f64, l2: f64 }",
    );
    let Jacobian::Rows { rows, .. } = &d.outputs.jacobian else { panic!("C derived: {:?}", d.outputs.jacobian) };
    assert_eq!((rows.len(), rows[0].len()), (3, 4));
    let view = model.view(&arena);
    let (q, v, params) = ([0.4, -1.1], [0.7, 0.3], [2.0, 1.3, 0.8]);
    let at = At { q: &q, v: &v, params: &params, q1: &[], h: 0.0 };
    let (l1, l2) = (params[1], params[2]);
    let (s1, c1, s12, c12) = (q[0].sin(), q[0].cos(), (q[0] + q[1]).sin(), (q[0] + q[1]).cos());
    let j = [[-l1 * s1 - l2 * s12, -l2 * s12], [l1 * c1 + l2 * c12, l2 * c12]];
    let pd = [j[0][0] * v[0] + j[0][1] * v[1], j[1][0] * v[0] + j[1][1] * v[1]];
    for r in 0..2 {
        for c in 0..2 {
            assert!(close(at.eval(&view, rows[r][c]), j[r][c]), "∂p{r}/∂q{c}");
            assert_eq!(rows[r][2 + c], arena.zero(), "a position does not read the rates");
        }
    }
    for c in 0..2 {
        let expected = 2.0 * (j[0][c] * pd[0] + j[1][c] * pd[1]);
        assert!(close(at.eval(&view, rows[2][2 + c]), expected), "∂|ṗ|²/∂q̇{c}");
    }
    // The multiplier's derivatives are not derived: said, not guessed.
    let (_, _, d) = derived(
        "#[mechanics(coordinates(x, y),
           lagrangian = m / 2 * (dot(x).powi(2) + dot(y).powi(2)) - m * g * y,
           holonomic(rod = x.powi(2) + y.powi(2) - l.powi(2)),
           output(lam = multiplier(rod), height = y))]
         struct RodPendulum { m: f64, g: f64, l: f64 }",
    );
    assert!(matches!(&d.outputs.jacobian, Jacobian::Absent(why) if why.contains("multiplier")));
    // Past the size bound: absent, naming the bound (an output of 3 × 200 000 nodes, 4 states).
    let (model, mut arena, _) = derived(
        "#[mechanics(coordinates(a, b), lagrangian = m / 2 * (dot(a).powi(2) + dot(b).powi(2)), output(s = a * b))]
         struct Two { m: f64 }",
    );
    let a = model.layout.q[0];
    let terms: Vec<Expr> = (2..200_002)
        .map(|k| {
            let (c, p) = (arena.int(k), arena.powi(a, k));
            arena.mul(&[c, p])
        })
        .collect();
    let big = arena.add(&terms);
    assert!(matches!(super::output::jacobian(&model, &mut arena, &[big]), Jacobian::Absent(why) if why.contains("outgrow")));
}
