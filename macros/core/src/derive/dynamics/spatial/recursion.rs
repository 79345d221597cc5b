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
    let Articulated { u: u_of, d: d_of, scaled, reduced } = articulated(&mut rec, &links, &joints);
    let mut uu_of = vec![zero; n];
    for &j in links.order.iter().rev() {
        let pa: Spatial = std::array::from_fn(|x| {
            let sum = rec.arena.add(&pa_terms[j][x]);
            rec.bind(sum)
        });
        let sp = rec.arena.dot(&joints[j].s, &pa);
        let uu = rec.arena.sub(links.tau[j], sp);
        let uu = rec.bind(uu);
        if let Some(p) = links.parents[j] {
            let c = c_of[j];
            let bias: Spatial = std::array::from_fn(|x| {
                let ic = rec.arena.dot(&reduced[j][x], &c);
                let su = rec.arena.mul2(scaled[j][x], uu);
                let e = rec.arena.add(&[pa[x], ic, su]);
                rec.bind(e)
            });
            let to_parent = to_parent(&mut rec, &joints[j], &bias);
            for x in 0..6 {
                pa_terms[p][x].push(to_parent[x]);
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
        let moved_from = to_child(&mut rec, &joints[j], &from);
        let a_prime: Spatial = std::array::from_fn(|x| {
            let e = rec.arena.add2(moved_from[x], c_of[j][x]);
            rec.bind(e)
        });
        let ua = rec.arena.dot(&u_of[j], &a_prime);
        let num = rec.arena.sub(uu_of[j], ua);
        let inv = rec.arena.powi(d_of[j], -1);
        let e = rec.arena.mul2(num, inv);
        qdd[j] = rec.bind(e);
        acc[j] = std::array::from_fn(|x| {
            let sq = rec.arena.mul2(joints[j].s[x], qdd[j]);
            let e = rec.arena.add2(a_prime[x], sq);
            rec.bind(e)
        });
    }
    let parents = links.parents.clone();
    Ok(Recursive {
        bindings: rec.bindings,
        accelerations: qdd,
        pivots: d_of,
        parents,
        jacobian: None,
        inverse: None,
        tree: crate::derive::dynamics::Links::Spatial(Box::new(links)),
    })
}

/// The articulated inertias along the links, leaves → root (they depend on the positions only):
/// per joint U_j = I^A_j S_j, D_j = S_j·U_j + a_j (its armature), U_j / D_j and
/// I^a_j = I^A_j − U_j U_jᵀ / D_j, with
/// I^A_p = M_p + Σ_children X_jᵀ I^a_j X_j (the last two where j has a parent).
pub(super) struct Articulated {
    pub(super) u: Vec<Spatial>,
    pub(super) d: Vec<Expr>,
    pub(super) scaled: Vec<Spatial>,
    pub(super) reduced: Vec<Inertia>,
}

pub(super) fn articulated(rec: &mut Builder<'_>, links: &Links, joints: &[Joint]) -> Articulated {
    let n = joints.len();
    let (zero, one) = (rec.arena.zero(), rec.arena.one());
    // I^A_j's terms, by entry (the upper triangle's): the link's own inertia, then its children's.
    let mut ia_terms: Vec<Vec<Vec<Expr>>> =
        links.inertias.iter().map(|i| (0..36).map(|k| vec![i[k / 6][k % 6]]).collect()).collect();
    let mut out =
        Articulated { u: vec![[zero; 6]; n], d: vec![zero; n], scaled: vec![[zero; 6]; n], reduced: vec![[[zero; 6]; 6]; n] };
    for &j in links.order.iter().rev() {
        let mut ia: Inertia = [[zero; 6]; 6];
        for x in 0..6 {
            for y in x..6 {
                let sum = rec.arena.add(&ia_terms[j][6 * x + y]);
                let e = rec.bind(sum);
                ia[x][y] = e;
                ia[y][x] = e;
            }
        }
        let s = joints[j].s;
        let u: Spatial = std::array::from_fn(|x| {
            let e = rec.arena.dot(&ia[x], &s);
            rec.bind(e)
        });
        let su = rec.arena.dot(&s, &u);
        let dd = rec.arena.add2(su, links.armature[j]);
        let dd = rec.bind(dd);
        (out.u[j], out.d[j]) = (u, dd);
        let Some(p) = links.parents[j] else { continue };
        let inv = rec.arena.powi(dd, -1);
        let inv = rec.bind(inv);
        // U/D, with the entry U_k/D of a joint along one axis (S = e_k: U = I^A e_k, D = U_k)
        // exactly 1, so that I^a's row and column k are exactly zero.
        let scaled: Spatial = std::array::from_fn(|x| {
            if u[x] == dd {
                return one;
            }
            let e = rec.arena.mul2(u[x], inv);
            rec.bind(e)
        });
        let mut art: Inertia = [[zero; 6]; 6];
        for x in 0..6 {
            for y in x..6 {
                let uu_xy = rec.arena.mul2(u[x], scaled[y]);
                let e = rec.arena.sub(ia[x][y], uu_xy);
                let e = rec.bind(e);
                art[x][y] = e;
                art[y][x] = e;
            }
        }
        // Xᵀ I^a X: by the turn, then the constant rest, where the joint has the two.
        let moved = transformed(rec, &joints[j], &art);
        for y in 0..6 {
            for x in 0..=y {
                ia_terms[p][6 * x + y].push(moved[x][y]);
            }
        }
        (out.scaled[j], out.reduced[j]) = (scaled, art);
    }
    out
}

/// Xᵀ I X for a symmetric inertia I in the child's axes (its upper triangle; the lower mirrors
/// it), column by column — for a joint with a [`super::Turn`], by the turn first (bound), then by
/// the constant part: A = C R, so X = X_C X_R with X_R turning by R alone and X_C by C with ℓ.
pub(super) fn transformed(rec: &mut Builder<'_>, joint: &Joint, i: &Inertia) -> Inertia {
    match &joint.turn {
        Some(t) => {
            let zero = rec.arena.zero();
            let turning = Joint { a: t.turn, l: [zero; 3], ..*joint };
            let turned = by_columns(rec, &turning, i);
            let turned = symmetric(rec, &turned);
            let fixed = Joint { a: t.fixed, ..*joint };
            by_columns(rec, &fixed, &turned)
        }
        None => by_columns(rec, joint, i),
    }
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
