//! Vector and rotation algebra: the rotation constructors are rotations, and the body and spatial
//! angular velocities composed along products and transposes equal `vee(RᵀṘ)` and `vee(ṘRᵀ)`
//! differentiated directly (and a last elementary turn its rate on its carrier).

use super::*;

/// Symbols θ₁..θ₃ (functions of time) and their rates.
fn angles(a: &mut Arena) -> ([Expr; 3], [Expr; 3]) {
    (["a", "b", "c"].map(|n| a.symbol(n)), ["ad", "bd", "cd"].map(|n| a.symbol(n)))
}

/// The time derivative of every entry of `m` along (θ, θ̇).
fn mat_rate(a: &mut Arena, m: &Mat3, q: &[Expr; 3], qd: &[Expr; 3]) -> Mat3 {
    m.map(|row| {
        let d = a.total_derivative(&row, q, qd, None);
        [d[0], d[1], d[2]]
    })
}

fn all_zero(a: &Arena, es: &[Expr]) -> bool {
    es.iter().all(|&e| a.zero_test(e).is_zero())
}

#[test]
fn constructed_rotations_are_proper_rotations() {
    let mut a = Arena::new();
    let ([x, y, _], _) = angles(&mut a);
    for axis in [Axis::X, Axis::Y, Axis::Z] {
        let r = a.rotation(axis, x);
        let res = a.rotation_residuals(&r);
        assert!(all_zero(&a, &res), "{axis:?}");
    }
    // A unit axis (3/13, 4/13, 12/13): Rodrigues gives a rotation, and it rotates the axis to itself.
    let axis = [3, 4, 12].map(|n| a.num(Rational::new(n, 13).unwrap()));
    let r = a.axis_angle(&axis, y);
    let res = a.rotation_residuals(&r);
    assert!(all_zero(&a, &res));
    let image = a.mat_vec(&r, &axis);
    let diff = a.vec_sub(&image, &axis);
    assert!(all_zero(&a, &diff));
    // Not a unit axis: not a rotation, and the residuals say so.
    let bad = [1, 1, 0].map(|n| a.int(n));
    let r = a.axis_angle(&bad, y);
    let res = a.rotation_residuals(&r);
    assert!(!all_zero(&a, &res));
    // A reflection is orthogonal but not proper: only det − 1 is nonzero.
    let mut m = a.identity3();
    m[2][2] = a.int(-1);
    let res = a.rotation_residuals(&m);
    assert!(all_zero(&a, &res[..6]) && !a.zero_test(res[6]).is_zero());
}

#[test]
fn composed_angular_velocity_is_vee_of_rt_rdot() {
    let mut a = Arena::new();
    let (q, qd) = angles(&mut a);
    let rz = a.elementary_rotation(Axis::Z, q[0], qd[0]);
    let rx = a.elementary_rotation(Axis::X, q[1], qd[1]);
    let axis = [2, -3, 6].map(|n| a.num(Rational::new(n, 7).unwrap()));
    let rn = a.axis_angle_rotation(&axis, q[2], qd[2]);
    let zx = a.rotation_product(&rz, &rx);
    let zxn = a.rotation_product(&zx, &rn);
    let back = a.rotation_transpose(&zxn);
    let mixed = a.rotation_product(&back, &rz);
    // A spin on a composite carrier: (Rz Rx) (Rn Rz) turns last about z on the carrier Rz Rx Rn.
    let nz = a.rotation_product(&rn, &rz);
    let spun = a.rotation_product(&zx, &nz);
    assert!(spun.turned.is_some_and(|t| t.axis == Axis::Z) && zxn.turned.is_none() && back.turned.is_none());
    for r in [rz, rx, rn, zx, zxn, back, mixed, nz, spun] {
        let rdot = mat_rate(&mut a, &r.matrix, &q, &qd);
        let direct = a.body_rate(&r.matrix, &rdot);
        let diff = a.vec_sub(&direct, &r.rate);
        assert!(all_zero(&a, &diff), "ω composed {:?} vs vee(RᵀṘ)", r.rate);
        // The spatial one: vee(ṘRᵀ), composed as Ω(AB) = Ω(A) + A Ω(B).
        let rt = a.transpose3(&r.matrix);
        let spatial = a.mat_mul(&rdot, &rt);
        let spatial = a.vee(&spatial);
        let diff = a.vec_sub(&spatial, &r.spatial);
        assert!(all_zero(&a, &diff), "Ω composed {:?} vs vee(ṘRᵀ)", r.spatial);
        // The last turn: R = C E with E about k, E ω its rate in C's axes (E ω = ω(C) + ė e_k).
        if let Some(turn) = r.turned {
            let e = {
                let ct = a.transpose3(&turn.carrier);
                a.mat_mul(&ct, &r.matrix)
            };
            let k = turn.axis.index();
            let fixed = a.mat_vec(&e, &a.unit(turn.axis));
            let diff = a.vec_sub(&fixed, &a.unit(turn.axis));
            assert!(all_zero(&a, &diff), "Cᵀ R is elementary about e_{k}");
            let ew = a.mat_vec(&e, &r.rate);
            let diff = a.vec_sub(&ew, &turn.rate);
            assert!(all_zero(&a, &diff), "E ω {:?} vs the turn's rate {:?}", ew, turn.rate);
        }
        // RᵀṘ is skew: its symmetric part vanishes.
        let w = a.mat_mul(&rt, &rdot);
        let wt = a.transpose3(&w);
        let sym = a.mat_add(&w, &wt);
        assert!(all_zero(&a, sym.as_flattened()));
    }
}

#[test]
fn hat_vee_cross_and_determinant() {
    let mut a = Arena::new();
    let u = ["u1", "u2", "u3"].map(|n| a.symbol(n));
    let v = ["v1", "v2", "v3"].map(|n| a.symbol(n));
    let h = a.hat(&u);
    let hv = a.mat_vec(&h, &v);
    let c = a.cross(&u, &v);
    assert_eq!(hv, c, "hat(u) v is u × v, canonically");
    assert_eq!(a.vee(&h), u);
    // u · (u × v) = 0 and det [u; v; u×v] = |u×v|².
    let triple = a.dot3(&u, &c);
    assert!(a.zero_test(triple).is_zero());
    let m = [u, v, c];
    let det = a.det3(&m);
    let n2 = a.norm_squared(&c);
    let diff = a.sub(det, n2);
    assert!(a.zero_test(diff).is_zero());
    let d = a.diag3(&u);
    assert_eq!(a.transpose3(&d), d);
    assert_eq!(a.mat_mul(&a.identity3(), &h), h);
}

#[test]
fn quaternion_rotation_is_a_rotation_turning_at_the_body_rate() {
    let mut a = Arena::new();
    let q = ["w", "x", "y", "z"].map(|n| a.symbol(n));
    let omega = ["o1", "o2", "o3"].map(|n| a.symbol(n));
    let squares = q.map(|c| a.powi(c, 2));
    let norm2 = a.add(&squares);
    let r = a.quaternion_rotation(&q, norm2);
    let res = a.rotation_residuals(&r);
    assert!(all_zero(&a, &res), "R(q/|q|) is a rotation for every q ≠ 0");
    // Along q̇ = ½ q ⊗ (0, ω): |q|² is constant and vee(RᵀṘ) = ω.
    let rate = a.quaternion_rate(&q, &omega);
    let n2_rate = a.total_derivative(&[norm2], &q, &rate, None)[0];
    assert!(a.zero_test(n2_rate).is_zero());
    let rdot = r.map(|row| {
        let d = a.total_derivative(&row, &q, &rate, None);
        [d[0], d[1], d[2]]
    });
    let w = a.body_rate(&r, &rdot);
    let diff = a.vec_sub(&w, &omega);
    assert!(all_zero(&a, &diff));
}

#[test]
fn the_spatial_quaternion_rate_turns_r_about_the_spatial_axis() {
    // Along ξ = ½ (0, a) ⊗ q, the derivative of R(q/|q|) is hat(a) R, and |q| does not change.
    let mut a = Arena::new();
    let q = ["w", "x", "y", "z"].map(|n| a.symbol(n));
    let axis = ["a1", "a2", "a3"].map(|n| a.symbol(n));
    let squares = q.map(|c| a.powi(c, 2));
    let norm2 = a.add(&squares);
    let r = a.quaternion_rotation(&q, norm2);
    let xi = a.quaternion_spatial_rate(&q, &axis);
    let seeds: Vec<(Expr, Expr)> = q.iter().copied().zip(xi).collect();
    let n2_rate = a.directional(norm2, &seeds);
    assert!(a.zero_test(n2_rate).is_zero());
    let dr = r.map(|row| row.map(|e| a.directional(e, &seeds)));
    let h = a.hat(&axis);
    let expected = a.mat_mul(&h, &r);
    let diff = a.mat_sub(&dr, &expected);
    assert!(all_zero(&a, diff.as_flattened()));
}

/// Reading the links of a chain of frames F_j = F_{j−1} R(q_j): each F_j with every coordinate
/// but q_j at zero, and with all at zero, equals the substitution's result, and the memoised
/// reading rebuilds a bounded number of nodes per joint (a substitution per frame walks the
/// whole prefix: quadratic along the chain); the coordinates each frame holds, read together,
/// are its free symbols.
#[test]
fn frames_along_a_chain_are_read_in_linear_work() {
    let reading = |n: usize| {
        let mut a = Arena::new();
        let q: Vec<Expr> = (0..n).map(|j| a.symbol(&format!("q{j}"))).collect();
        let axes = [Axis::Z, Axis::Y, Axis::X];
        let mut frames = Vec::with_capacity(n);
        let mut f = a.identity3();
        for j in 0..n {
            let r = a.rotation(axes[j % 3], q[j]);
            f = a.mat_mul(&f, &r);
            frames.push(f);
        }
        let mut at = AtZero::new(&q);
        let zero = a.zero();
        for (j, f) in frames.iter().enumerate() {
            for &e in f.as_flattened() {
                let kept = at.keeping(&mut a, e, j);
                let map: Vec<(Expr, Expr)> = (0..n).filter(|&i| i != j).map(|i| (q[i], zero)).collect();
                assert_eq!(kept, a.subs(e, &map), "F_{j} keeping q_{j}");
                let all = at.all(&mut a, e);
                let map: Vec<(Expr, Expr)> = q.iter().map(|&s| (s, zero)).collect();
                assert_eq!(all, a.subs(e, &map), "F_{j} at zero");
            }
        }
        let roots: Vec<Expr> = frames.iter().flat_map(|f| f.as_flattened().to_vec()).collect();
        let held = a.symbols_held(&roots, &q);
        for (r, h) in roots.iter().zip(&held) {
            let free: Vec<usize> = a.free_symbols(*r).iter().map(|s| q.iter().position(|x| x == s).unwrap()).collect();
            let mut sorted = free.clone();
            sorted.sort_unstable();
            assert_eq!(*h, sorted);
        }
        at.rebuilt()
    };
    let (small, large) = (reading(40), reading(160));
    assert!(large <= 5 * small, "4× the joints rebuilt {large} nodes against {small}: not linear");
}
