//! M factored along the links: each joint's U_j = I^A_j S_j, pivot D_j and M's diagonal entry M_jj
//! from the articulated and composite inertias, for the runtime's `LinkFactor`.

use symbolic::{Expr, Mat3, Vec3};

use crate::derive::straight::Builder;

use super::algebra::{halves, joined};
use super::passes::joints;
use super::recursion::articulated;
use super::{Links, Spatial};

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
    let eliminated = articulated(rec, links, &joints);
    let composite = composites(rec, links, &joints);
    let diagonal: Vec<Expr> = (0..n).map(|j| composite_force(rec, links, &joints, &composite, j).1).collect();
    let mut out = Vec::with_capacity(n * 27 + n * 36);
    for j in 0..n {
        out.extend(joints[j].a.as_flattened());
        out.extend(&joints[j].l);
        out.extend(&joints[j].s);
        out.extend(&eliminated[j].u);
        out.push(eliminated[j].d);
        out.push(diagonal[j]);
        out.push(links.armature[j]);
    }
    for i in &links.inertias {
        out.extend(i.as_flattened());
    }
    out
}

/// A composite rigid body in a link's axes: mass m, first moment h and rotational inertia I_o about
/// the link's origin, bound.
pub(super) type Composite = (Expr, Vec3, Mat3);

/// The composite rigid body of each joint's subtree (leaves → root): its links' masses, first moments
/// and rotational inertias, each child's moved into its parent's axes (points r to ℓ + A r): m,
/// A h + m ℓ and A I_o Aᵀ + (m |ℓ|² + 2 ℓ·g) 1 − m ℓ ℓᵀ − ℓ gᵀ − g ℓᵀ (g = A h), A I_o Aᵀ of a
/// joint with a [`super::Turn`] by its turn's double angles.
pub(super) fn composites(rec: &mut Builder<'_>, links: &Links, joints: &[super::Joint]) -> Vec<Composite> {
    let n = links.joints.len();
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
    let mut out: Vec<Composite> = vec![(zero, [zero; 3], [[zero; 3]; 3]); n];
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
        out[j] = (m, h, i_o);
        let Some(p) = links.parents[j] else { continue };
        let (a, l) = (joints[j].a, joints[j].l);
        let g = rec.arena.mat_vec(&a, &h);
        let g = g.map(|e| rec.bind(e));
        let ml = rec.arena.vec_scale(m, &l);
        let moved_h = rec.arena.vec_add(&g, &ml);
        // A I_o Aᵀ: for a joint turning behind a constant part (A = C R), R I_o Rᵀ by double
        // angles and then C's permutation; the whole A otherwise.
        let turned = joints[j].turn.and_then(|t| Some((t.fixed, super::recursion::DoubleAngle::of(rec, &t.turn)?)));
        let rotated = match turned {
            Some((fixed, turn)) => {
                let inner = turn.symmetric3(rec, &i_o);
                let inner = inner.map(|row| row.map(|e| rec.bind(e)));
                let ci = rec.arena.mat_mul(&fixed, &inner);
                let ft = rec.arena.transpose3(&fixed);
                rec.arena.mat_mul(&ci, &ft)
            }
            None => {
                let ai = rec.arena.mat_mul(&a, &i_o);
                let ai = ai.map(|row| row.map(|e| rec.bind(e)));
                let at = rec.arena.transpose3(&a);
                rec.arena.mat_mul(&ai, &at)
            }
        };
        let ll = rec.arena.dot3(&l, &l);
        let mll = rec.arena.mul2(m, ll);
        let lg = rec.arena.dot3(&l, &g);
        let two = rec.arena.int(2);
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
    out
}

/// I S of a composite for a motion S = (ω, v): (I_o ω + h × v, m v − h × ω), bound.
fn composite_times(rec: &mut Builder<'_>, (m, h, io): &Composite, s: &Spatial) -> Spatial {
    let (w, v) = halves(s);
    let iw = rec.arena.mat_vec(io, &w);
    let hv = rec.arena.cross(h, &v);
    let top = rec.arena.vec_add(&iw, &hv);
    let mv = rec.arena.vec_scale(*m, &v);
    let hw = rec.arena.cross(h, &w);
    let bottom = rec.arena.vec_sub(&mv, &hw);
    joined(&top, &bottom).map(|e| rec.bind(e))
}

/// The force F = I^C_j S_j of joint j's composite moving along its S_j, and M_jj = S_j·F + a_j
/// (its armature), bound.
fn composite_force(
    rec: &mut Builder<'_>,
    links: &Links,
    joints: &[super::Joint],
    composite: &[Composite],
    j: usize,
) -> (Spatial, Expr) {
    let f = composite_times(rec, &composite[j], &joints[j].s);
    let e = rec.arena.dot(&joints[j].s, &f);
    let e = rec.arena.add2(e, links.armature[j]);
    (f, rec.bind(e))
}

/// M by the composite rigid bodies (the CRBA along the links, each entry straight-line code
/// specialised to the joints): M_jj = S_j·I^C_j S_j (+ the armature) and, walking up from j with
/// the force F = I^C_j S_j carried into each ancestor's axes (F ← X_kᵀ F, through a joint's turn
/// and then its constant part, [`super::passes::to_parent`]: the Panda's M 1185 → 1061
/// operations), M_ij = S_i·F; zero where neither joint is above the other. The upper triangle by
/// rows.
pub(in crate::derive::dynamics) fn mass_entries(rec: &mut Builder<'_>, links: &Links) -> Vec<Expr> {
    let n = links.joints.len();
    let joints = joints(rec, links);
    let composite = composites(rec, links, &joints);
    let zero = rec.arena.zero();
    // Column j: M_jj, then M_pj for each joint p above j.
    let columns: Vec<Vec<(usize, Expr)>> = (0..n)
        .map(|j| {
            let (mut f, diagonal) = composite_force(rec, links, &joints, &composite, j);
            let mut column = vec![(j, diagonal)];
            let mut k = j;
            while let Some(p) = links.parents[k] {
                f = super::passes::to_parent(rec, &joints[k], &f).map(|e| rec.bind(e));
                let e = rec.arena.dot(&joints[p].s, &f);
                column.push((p, rec.bind(e)));
                k = p;
            }
            column
        })
        .collect();
    let mut m = vec![vec![zero; n]; n];
    for (j, column) in columns.into_iter().enumerate() {
        for (i, e) in column {
            m[i][j] = e;
            m[j][i] = e;
        }
    }
    (0..n).flat_map(|i| (i..n).map(move |j| (i, j))).map(|(i, j)| m[i][j]).collect()
}
