//! M factored along the links: each joint's U_j = I^A_j S_j, pivot D_j and M's diagonal entry M_jj
//! from the articulated and composite inertias, for the runtime's `LinkFactor`.

use symbolic::{Expr, Mat3, Vec3};

use crate::derive::straight::Builder;

use super::Links;
use super::algebra::halves;
use super::passes::joints;
use super::recursion::{Articulated, articulated};

/// The quantities of M factored along the links, for the runtime's `LinkFactor::from_parts`
/// (straight-line code specialised to the joints, where `LinkFactor::new` does the same in
/// general 6-D arithmetic): per joint, in joint order, A_j (by rows), ℓ_j, S_j, U_j and D_j of
/// the articulated inertias ([`articulated`]) and the diagonal entry M_jj = S_j·I^C_j S_j of the
/// composite rigid body of its subtree — its mass m, first moment h and rotational inertia I_o
/// about the origin, moved to the parent (points r to ℓ + A r) as m, A h + m ℓ and
/// A I_o Aᵀ + (m |ℓ|² + 2 ℓ·g) 1 − m ℓ ℓᵀ − ℓ gᵀ − g ℓᵀ (g = A h), with
/// M_jj = S_ωᵀ I_o S_ω + 2 S_ω·(h × S_v) + m |S_v|² (+ the joint's armature), and the joint's armature
/// (for products M v); then each link's inertia (by rows, for products M v). Without `with_parts`, A_j, ℓ_j and S_j alone per joint, then the inertias: for
/// `LinkFactor::new`, which computes the rest in general 6-D arithmetic (a third of the code for
/// models whose factor is off the hot path).
pub(in crate::derive::dynamics) fn factor(rec: &mut Builder<'_>, links: &Links, with_parts: bool) -> Vec<Expr> {
    let n = links.joints.len();
    let joints = joints(rec, links);
    if !with_parts {
        let mut out = Vec::with_capacity(n * 18 + n * 36);
        for j in &joints {
            out.extend(j.a.as_flattened());
            out.extend(&j.l);
            out.extend(&j.s);
        }
        for i in &links.inertias {
            out.extend(i.as_flattened());
        }
        return out;
    }
    let Articulated { u, d, .. } = articulated(rec, links, &joints);
    // Composite rigid bodies, leaves → root.
    let zero = rec.arena.zero();
    // Each composite's terms: mass, first moment, rotational inertia about the origin (by rows).
    type Terms = (Vec<Expr>, [Vec<Expr>; 3], [Vec<Expr>; 9]);
    let mut terms: Vec<Terms> = (0..n)
        .map(|j| {
            let (m, h) = &links.masses[j];
            let io = &links.inertias[j];
            (vec![*m], h.map(|e| vec![e]), std::array::from_fn(|k| vec![io[k / 3][k % 3]]))
        })
        .collect();
    let mut diagonal = vec![zero; n];
    for &j in links.order.iter().rev() {
        let (m, h, io) = &terms[j];
        let m = rec.arena.add(m);
        let m = rec.bind(m);
        let h: Vec3 = std::array::from_fn(|c| {
            let e = rec.arena.add(&h[c]);
            rec.bind(e)
        });
        let mut i_o: Mat3 = [[zero; 3]; 3];
        for r in 0..3 {
            for c in r..3 {
                let sum: Vec<Expr> = io[3 * r + c].clone();
                let e = rec.arena.add(&sum);
                let e = rec.bind(e);
                i_o[r][c] = e;
                i_o[c][r] = e;
            }
        }
        let (w, v) = halves(&joints[j].s);
        let iw = rec.arena.mat_vec(&i_o, &w);
        let rot = rec.arena.dot3(&w, &iw);
        let hv = rec.arena.cross(&h, &v);
        let cross = rec.arena.dot3(&w, &hv);
        let two = rec.arena.int(2);
        let cross = rec.arena.mul2(two, cross);
        let v2 = rec.arena.dot3(&v, &v);
        let lin = rec.arena.mul2(m, v2);
        let mjj = rec.arena.add(&[rot, cross, lin, links.armature[j]]);
        diagonal[j] = rec.bind(mjj);
        let Some(p) = links.parents[j] else { continue };
        let (a, l) = (joints[j].a, joints[j].l);
        let g = rec.arena.mat_vec(&a, &h);
        let g = g.map(|e| rec.bind(e));
        let ml = rec.arena.vec_scale(m, &l);
        let moved_h = rec.arena.vec_add(&g, &ml);
        let ai = rec.arena.mat_mul(&a, &i_o);
        let ai = ai.map(|row| row.map(|e| rec.bind(e)));
        let at = rec.arena.transpose3(&a);
        let rotated = rec.arena.mat_mul(&ai, &at);
        let ll = rec.arena.dot3(&l, &l);
        let mll = rec.arena.mul2(m, ll);
        let lg = rec.arena.dot3(&l, &g);
        let two_lg = rec.arena.mul2(two, lg);
        let diag = rec.arena.add2(mll, two_lg);
        let (tp, hp, ip) = &mut terms[p];
        tp.push(m);
        for c in 0..3 {
            hp[c].push(moved_h[c]);
        }
        for r in 0..3 {
            for c in r..3 {
                let mut e = rotated[r][c];
                if r == c {
                    e = rec.arena.add2(e, diag);
                }
                let lr_lc = rec.arena.mul(&[m, l[r], l[c]]);
                let lr_gc = rec.arena.mul2(l[r], g[c]);
                let gr_lc = rec.arena.mul2(g[r], l[c]);
                let minus = rec.arena.add(&[lr_lc, lr_gc, gr_lc]);
                let e = rec.arena.sub(e, minus);
                ip[3 * r + c].push(e);
            }
        }
    }
    let mut out = Vec::with_capacity(n * 27 + n * 36);
    for j in 0..n {
        out.extend(joints[j].a.as_flattened());
        out.extend(&joints[j].l);
        out.extend(&joints[j].s);
        out.extend(&u[j]);
        out.push(d[j]);
        out.push(diagonal[j]);
        out.push(links.armature[j]);
    }
    for i in &links.inertias {
        out.extend(i.as_flattened());
    }
    out
}
