//! The articulated-body recursion over the links (Featherstone's three passes), and the
//! articulated inertias' pass it shares with the factor of M.

use symbolic::{Arena, Expr};

use crate::derive::dynamics::Recursive;
use crate::derive::straight::Builder;
use crate::model::Model;

use super::algebra::{apply, times, transpose_apply};
use super::passes::{bias_force, ground, joints, products, to_child, to_parent, velocities};
use super::read::read;
use super::{Inertia, Joint, Links, Spatial};

/// The recursion over the spatial links of `model`'s bodies, or why they do not form a tree of
/// them.
pub fn recursion(model: &Model, arena: &mut Arena) -> Result<Recursive, String> {
    let links = read(model, arena)?;
    let looped = super::looped::looped(model, arena, &links);
    let syms = &model.layout;
    let n = model.dof();
    let zero = arena.zero();
    let mut rec = Builder { arena, syms, bindings: Vec::new(), offset: 0 };
    let joints = joints(&mut rec, &links);
    // Root → leaves: V, c and the bias forces p.
    let v_of = velocities(&mut rec, &links, &joints, &syms.qd);
    let c_of = products(&mut rec, &links, &joints, &v_of);
    let mut pa_terms: Vec<Vec<Vec<Expr>>> = vec![vec![Vec::new(); 6]; n];
    for &j in &links.order {
        let bias = bias_force(&mut rec, &links.inertias[j], &v_of[j]);
        for x in 0..6 {
            pa_terms[j][x].push(bias[x]);
        }
    }
    // Leaves → root: the articulated inertias, then the bias forces.
    let eliminated = articulated(&mut rec, &links, &joints);
    let mut uu_of = vec![zero; n];
    for &j in links.order.iter().rev() {
        let up = links.parents[j].is_some();
        let (uu, passed) = bias_step(&mut rec, &joints[j], links.tau[j], &pa_terms[j], &c_of[j], &eliminated[j], up);
        if let (Some(p), Some(passed)) = (links.parents[j], passed) {
            for x in 0..6 {
                pa_terms[p][x].push(passed[x]);
            }
        }
        uu_of[j] = uu;
    }
    // Root → leaves: the accelerations, from the ground's (0, −g).
    let ground = ground(rec.arena, &links);
    let mut acc: Vec<Spatial> = vec![[zero; 6]; n];
    let mut qdd = vec![zero; n];
    for &j in &links.order {
        let from = links.parents[j].map_or(ground, |p| acc[p]);
        let el = &eliminated[j];
        (qdd[j], acc[j]) = accelerate(&mut rec, &joints[j], &from, &c_of[j], (&el.u, uu_of[j], el.d));
    }
    let d_of = eliminated.iter().map(|e| e.d).collect();
    let parents = links.parents.clone();
    Ok(Recursive {
        bindings: rec.bindings,
        accelerations: qdd,
        pivots: d_of,
        parents,
        jacobian: None,
        inverse: None,
        inverse_jacobian: None,
        looped: looped.map(Box::new),
        tree: crate::derive::dynamics::Links::Spatial(Box::new(links)),
    })
}

/// The articulated inertias along the links, leaves → root (they depend on the positions only):
/// each joint's [`Eliminated`], with I^A_p = M_p + Σ_children X_jᵀ I^a_j X_j.
pub(super) fn articulated(rec: &mut Builder<'_>, links: &Links, joints: &[Joint]) -> Vec<Eliminated> {
    let zero = rec.arena.zero();
    // I^A_j's terms, by entry (the upper triangle's): the link's own inertia, then its children's.
    let mut ia_terms: Vec<Vec<Vec<Expr>>> = links.inertias.iter().map(own_terms).collect();
    let mut out: Vec<Eliminated> = (0..joints.len()).map(|_| Eliminated::none(zero)).collect();
    for &j in links.order.iter().rev() {
        let el = eliminate(rec, &joints[j], links.armature[j], &ia_terms[j], links.parents[j].is_some());
        if let (Some(p), Some(moved)) = (links.parents[j], &el.moved) {
            for y in 0..6 {
                for x in 0..=y {
                    ia_terms[p][6 * x + y].push(moved[x][y]);
                }
            }
        }
        out[j] = el;
    }
    out
}

/// A link's own inertia as the first term of each entry of its I^A (by entry, row-major).
pub(super) fn own_terms(i: &Inertia) -> Vec<Vec<Expr>> {
    (0..36).map(|k| vec![i[k / 6][k % 6]]).collect()
}

/// A joint's articulated quantities: U_j = I^A_j S_j and D_j = S_j·U_j + a_j (its armature), and
/// where it has a parent U_j / D_j, I^a_j = I^A_j − U_j U_jᵀ / D_j and X_jᵀ I^a_j X_j (the upper
/// triangle's entries, its parent's terms).
pub(super) struct Eliminated {
    pub(super) u: Spatial,
    pub(super) d: Expr,
    pub(super) scaled: Spatial,
    pub(super) reduced: Inertia,
    pub(super) moved: Option<Inertia>,
}

impl Eliminated {
    fn none(zero: Expr) -> Eliminated {
        Eliminated { u: [zero; 6], d: zero, scaled: [zero; 6], reduced: [[zero; 6]; 6], moved: None }
    }
}

/// One joint's [`Eliminated`] from its I^A's terms by entry (summed and bound here), and with
/// `up` the reduced inertia moved to its parent.
pub(super) fn eliminate(rec: &mut Builder<'_>, joint: &Joint, armature: Expr, terms: &[Vec<Expr>], up: bool) -> Eliminated {
    let zero = rec.arena.zero();
    let mut ia: Inertia = [[zero; 6]; 6];
    for x in 0..6 {
        for y in x..6 {
            let sum = rec.arena.add(&terms[6 * x + y]);
            let e = rec.bind(sum);
            ia[x][y] = e;
            ia[y][x] = e;
        }
    }
    let s = joint.s;
    let u: Spatial = std::array::from_fn(|x| {
        let e = rec.arena.dot(&ia[x], &s);
        rec.bind(e)
    });
    let su = rec.arena.dot(&s, &u);
    let dd = rec.arena.add2(su, armature);
    let dd = rec.bind(dd);
    let mut out = Eliminated { u, d: dd, ..Eliminated::none(zero) };
    if !up {
        return out;
    }
    let inv = rec.arena.powi(dd, -1);
    let inv = rec.bind(inv);
    // A joint along one axis without an armature (S = ±e_k: U = ±I^A e_k, D = S·U): U_k/D
    // = ±1 exactly, and I^a S = U − U (S·U)/D = 0, so that I^a's row and column k are exactly
    // zero — written so, where the algebra would leave U_y − D (U_y / D) with D bound.
    let axis = along_one_axis(rec.arena, &s).filter(|_| armature == zero);
    let scaled: Spatial = std::array::from_fn(|x| {
        if let Some((k, sign)) = axis
            && x == k
        {
            return sign;
        }
        let e = rec.arena.mul2(u[x], inv);
        rec.bind(e)
    });
    let mut art: Inertia = [[zero; 6]; 6];
    for x in 0..6 {
        for y in x..6 {
            if axis.is_some_and(|(k, _)| x == k || y == k) {
                continue;
            }
            let uu_xy = rec.arena.mul2(u[x], scaled[y]);
            let e = rec.arena.sub(ia[x][y], uu_xy);
            let e = rec.bind(e);
            art[x][y] = e;
            art[y][x] = e;
        }
    }
    // Xᵀ I^a X: by the turn, then the constant rest, where the joint has the two.
    out.moved = Some(transformed(rec, joint, &art));
    (out.scaled, out.reduced) = (scaled, art);
    out
}

/// One joint's share of the bias pass, from its p^A's terms (summed and bound here): u_j = τ_j −
/// S_j·p^A_j, and with `up` the force X_jᵀ (p^A_j + I^a_j c_j + U_j u_j / D_j) it passes to its
/// parent.
pub(super) fn bias_step(
    rec: &mut Builder<'_>,
    joint: &Joint,
    tau: Expr,
    terms: &[Vec<Expr>],
    c: &Spatial,
    el: &Eliminated,
    up: bool,
) -> (Expr, Option<Spatial>) {
    let pa: Spatial = std::array::from_fn(|x| {
        let sum = rec.arena.add(&terms[x]);
        rec.bind(sum)
    });
    let sp = rec.arena.dot(&joint.s, &pa);
    let uu = rec.arena.sub(tau, sp);
    let uu = rec.bind(uu);
    if !up {
        return (uu, None);
    }
    let bias: Spatial = std::array::from_fn(|x| {
        let ic = rec.arena.dot(&el.reduced[x], c);
        let su = rec.arena.mul2(el.scaled[x], uu);
        let e = rec.arena.add(&[pa[x], ic, su]);
        rec.bind(e)
    });
    (uu, Some(to_parent(rec, joint, &bias)))
}

/// One joint's acceleration from its parent's (`from`, the ground's at a root): a' = X_j a_p + c_j,
/// q̈_j = (u_j − U_j·a') / D_j, a_j = a' + S_j q̈_j; returns q̈_j and a_j, bound.
pub(super) fn accelerate(
    rec: &mut Builder<'_>,
    joint: &Joint,
    from: &Spatial,
    c: &Spatial,
    (u, uu, d): (&Spatial, Expr, Expr),
) -> (Expr, Spatial) {
    let moved_from = to_child(rec, joint, from);
    let a_prime: Spatial = std::array::from_fn(|x| {
        let e = rec.arena.add2(moved_from[x], c[x]);
        rec.bind(e)
    });
    let ua = rec.arena.dot(u, &a_prime);
    let num = rec.arena.sub(uu, ua);
    let inv = rec.arena.powi(d, -1);
    let e = rec.arena.mul2(num, inv);
    let qdd = rec.bind(e);
    let acc = std::array::from_fn(|x| {
        let sq = rec.arena.mul2(joint.s[x], qdd);
        let e = rec.arena.add2(a_prime[x], sq);
        rec.bind(e)
    });
    (qdd, acc)
}

/// The axis k and sign of a motion subspace S = ±e_k (one entry ±1, the others zero), if it is one.
fn along_one_axis(arena: &mut Arena, s: &Spatial) -> Option<(usize, Expr)> {
    let zero = arena.zero();
    let mut nonzero = s.iter().enumerate().filter(|&(_, &e)| e != zero);
    let (k, &e) = nonzero.next()?;
    if nonzero.next().is_some() {
        return None;
    }
    let (one, minus) = (arena.one(), arena.int(-1));
    (e == one || e == minus).then_some((k, e))
}

/// Xᵀ I X for a symmetric inertia I in the child's axes (its upper triangle; the lower mirrors
/// it), column by column — for a joint with a [`super::Turn`], by the turn first (bound), then by
/// the constant part: A = C R, so X = X_C X_R with X_R turning by R alone and X_C by C with ℓ.
pub(super) fn transformed(rec: &mut Builder<'_>, joint: &Joint, i: &Inertia) -> Inertia {
    match &joint.turn {
        Some(t) => {
            let turned = match DoubleAngle::of(rec, &t.turn) {
                Some(turn) => by_double_angles(rec, &turn, i),
                None => {
                    let zero = rec.arena.zero();
                    let turning = Joint { a: t.turn, l: [zero; 3], ..*joint };
                    by_columns(rec, &turning, i)
                }
            };
            let turned = symmetric(rec, &turned);
            let fixed = Joint { a: t.fixed, ..*joint };
            by_columns(rec, &fixed, &turned)
        }
        None => by_columns(rec, joint, i),
    }
}

/// The axis k of a turn R about ±e_k (R_kk = 1 and the rest of row and column k zero), if it is
/// one: its plane (i, j) = (k + 1, k + 2) mod 3 turns by R_ii = R_jj = c, R_ji = −R_ij = s.
fn turn_axis(arena: &Arena, r: &symbolic::Mat3) -> Option<usize> {
    let (zero, one) = (arena.zero(), arena.one());
    (0..3).find(|&k| r[k][k] == one && (0..3).all(|x| x == k || (r[k][x] == zero && r[x][k] == zero)))
}

/// A turn by θ about the axis e_k, whose plane (i, j) = (k + 1, k + 2) mod 3 turns by
/// R_ii = R_jj = c, R_ji = −R_ij = s, with its double angles bound once: what turns symmetric
/// blocks R B Rᵀ by double angles ([`DoubleAngle::block`]).
pub(super) struct DoubleAngle {
    pub(super) k: usize,
    c: Expr,
    s: Expr,
    half: Expr,
    cos2: Expr,
    sin2: Expr,
    half_cos2: Expr,
    half_sin2: Expr,
}

impl DoubleAngle {
    /// The double angles of the turn `r` (a turn about an axis of its link, [`turn_axis`]).
    pub(super) fn of(rec: &mut Builder<'_>, r: &symbolic::Mat3) -> Option<DoubleAngle> {
        let k = turn_axis(rec.arena, r)?;
        let (i, j) = ((k + 1) % 3, (k + 2) % 3);
        let (c, s) = (r[i][i], r[j][i]);
        let half = rec.arena.num(symbolic::Rational::new(1, 2).expect("1/2"));
        // cos 2θ = c² − s², ½ cos 2θ, ½ sin 2θ = c s, sin 2θ.
        let (c2, s2) = (rec.arena.powi(c, 2), rec.arena.powi(s, 2));
        let cos2 = rec.arena.sub(c2, s2);
        let cos2 = rec.bind(cos2);
        let half_cos2 = rec.arena.mul2(half, cos2);
        let half_cos2 = rec.bind(half_cos2);
        let half_sin2 = rec.arena.mul2(c, s);
        let half_sin2 = rec.bind(half_sin2);
        let two = rec.arena.int(2);
        let sin2 = rec.arena.mul2(two, half_sin2);
        let sin2 = rec.bind(sin2);
        Some(DoubleAngle { k, c, s, half, cos2, sin2, half_cos2, half_sin2 })
    }

    /// The plane's axes (i, j).
    fn plane(&self) -> (usize, usize) {
        ((self.k + 1) % 3, (self.k + 2) % 3)
    }

    /// A vector (x, y) of the plane turned: (c x − s y, s x + c y).
    fn vector(&self, rec: &mut Builder<'_>, x: Expr, y: Expr) -> (Expr, Expr) {
        let (c, s) = (self.c, self.s);
        let (cx, sy, sx, cy) = (rec.arena.mul2(c, x), rec.arena.mul2(s, y), rec.arena.mul2(s, x), rec.arena.mul2(c, y));
        (rec.arena.sub(cx, sy), rec.arena.add2(sx, cy))
    }

    /// G P Gᵀ of the plane's symmetric 2 × 2 P = (a, b; b, d): (a', b', d') =
    /// (½(a + d) + t, ½(a − d) sin 2θ + b cos 2θ, ½(a + d) − t) with t = ½(a − d) cos 2θ − b sin 2θ.
    fn plane_symmetric(&self, rec: &mut Builder<'_>, a: Expr, b: Expr, d: Expr) -> (Expr, Expr, Expr) {
        let sum = rec.arena.add2(a, d);
        let mean = rec.arena.mul2(self.half, sum);
        let mean = rec.bind(mean);
        let diff = rec.arena.sub(a, d);
        let diff = rec.bind(diff);
        let dc = rec.arena.mul2(diff, self.half_cos2);
        let bs = rec.arena.mul2(b, self.sin2);
        let t = rec.arena.sub(dc, bs);
        let t = rec.bind(t);
        let ds = rec.arena.mul2(diff, self.half_sin2);
        let bc = rec.arena.mul2(b, self.cos2);
        (rec.arena.add2(mean, t), rec.arena.add2(ds, bc), rec.arena.sub(mean, t))
    }

    /// R B Rᵀ of a 3 × 3 block B read by `b(x, y)`, written by `put(x, y, e)` (its upper triangle
    /// where B is symmetric): the plane part by double angles (a symmetric part (a, b; b, d) turns
    /// to ½(a + d) ± (½(a − d) cos 2θ − b sin 2θ) on the diagonal and ½(a − d) sin 2θ + b cos 2θ
    /// off it, an antisymmetric part not at all: G commutes with the quarter turn), the plane's
    /// column and row against k as vectors, B_kk as it is — five multiplications for the plane
    /// where turning rows and then columns takes twelve.
    fn block(
        &self,
        rec: &mut Builder<'_>,
        b: impl Fn(usize, usize) -> Expr,
        symmetric: bool,
        mut put: impl FnMut(usize, usize, Expr),
    ) {
        let k = self.k;
        let (i, j) = self.plane();
        put(k, k, b(k, k));
        let (xi, xj) = self.vector(rec, b(i, k), b(j, k));
        put(i, k, xi);
        put(j, k, xj);
        if symmetric {
            let (a2, b2, d2) = self.plane_symmetric(rec, b(i, i), b(i, j), b(j, j));
            put(i, i, a2);
            put(i, j, b2);
            put(j, j, d2);
            return;
        }
        // Row k turns too, and the plane part's antisymmetric half w stays.
        let (yi, yj) = self.vector(rec, b(k, i), b(k, j));
        put(k, i, yi);
        put(k, j, yj);
        let sum = rec.arena.add2(b(i, j), b(j, i));
        let mid = rec.arena.mul2(self.half, sum);
        let mid = rec.bind(mid);
        let gap = rec.arena.sub(b(j, i), b(i, j));
        let w = rec.arena.mul2(self.half, gap);
        let w = rec.bind(w);
        let (a2, m2, d2) = self.plane_symmetric(rec, b(i, i), mid, b(j, j));
        let m2 = rec.bind(m2);
        put(i, i, a2);
        put(j, j, d2);
        put(i, j, rec.arena.sub(m2, w));
        put(j, i, rec.arena.add2(m2, w));
    }

    /// R B Rᵀ of a symmetric 3 × 3 B (whole).
    pub(super) fn symmetric3(&self, rec: &mut Builder<'_>, m: &symbolic::Mat3) -> symbolic::Mat3 {
        let zero = rec.arena.zero();
        let mut out = [[zero; 3]; 3];
        self.block(
            rec,
            |x, y| m[x][y],
            true,
            |x, y, e| {
                out[x][y] = e;
                out[y][x] = e;
            },
        );
        out
    }
}

/// Xᵀ I X for the turn X (ω, v) = (Rᵀ ω, Rᵀ v) about the axis e_k: each 3 × 3 block B of I turns
/// to R B Rᵀ ([`DoubleAngle::block`]). The upper triangle filled, the rest zero.
fn by_double_angles(rec: &mut Builder<'_>, turn: &DoubleAngle, inertia: &Inertia) -> Inertia {
    let zero = rec.arena.zero();
    let mut out = [[zero; 6]; 6];
    // The blocks (row offset, column offset): angular, coupling, linear.
    for (ro, co) in [(0, 0), (0, 3), (3, 3)] {
        turn.block(
            rec,
            |x, y| inertia[ro + x][co + y],
            ro == co,
            |x, y, e| {
                let (row, col) = (ro + x, co + y);
                if row <= col {
                    out[row][col] = e;
                } else {
                    out[col][row] = e;
                }
            },
        );
    }
    out
}

/// The upper triangle bound, mirrored.
fn symmetric(rec: &mut Builder<'_>, i: &Inertia) -> Inertia {
    let mut out = *i;
    for x in 0..6 {
        for y in x..6 {
            let e = rec.bind(i[x][y]);
            out[x][y] = e;
            out[y][x] = e;
        }
    }
    out
}

/// Xᵀ I X column by column, X by the joint's A and ℓ: the upper triangle (x ≤ y) filled, the
/// rest zero.
fn by_columns(rec: &mut Builder<'_>, joint: &Joint, i: &Inertia) -> Inertia {
    let (zero, one) = (rec.arena.zero(), rec.arena.one());
    let mut out = [[zero; 6]; 6];
    for y in 0..6 {
        let mut unit = [zero; 6];
        unit[y] = one;
        let col = apply(rec.arena, joint, &unit);
        let icol = times(rec.arena, i, &col);
        let icol = icol.map(|e| rec.bind(e));
        let back = transpose_apply(rec.arena, joint, &icol);
        for x in 0..=y {
            out[x][y] = back[x];
        }
    }
    out
}
