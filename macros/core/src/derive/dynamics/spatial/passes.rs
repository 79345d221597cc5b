//! Passes along the links by the recursive Newton–Euler algorithm: each joint's transform bound
//! once per pass, the links' velocities and bias forces, and from them f, M a, M w, K = M a + …,
//! L, E and p.

use symbolic::{Arena, Expr, Mat3, Vec3};

use crate::derive::straight::Builder;

use super::algebra::{apply, cross_force, cross_motion, times, transpose_apply};
use super::{Inertia, Joint, Links, Spatial};

/// The joints' quantities bound to temporaries of a pass.
pub(super) fn joints(rec: &mut Builder<'_>, links: &Links) -> Vec<Joint> {
    links.joints.iter().map(|j| bound_joint(rec, j)).collect()
}

/// One joint's quantities bound to temporaries.
pub(super) fn bound_joint(rec: &mut Builder<'_>, j: &Joint) -> Joint {
    j.map(|e| rec.bind(e))
}

/// X_j m for a motion m in the parent's axes; for a joint with a [`super::Turn`] in two steps, the
/// constant part's bound (X_j = X_R X_C: the turn then mixes two of its components, where the
/// whole A_jᵀ would multiply every sine and cosine into ℓ's terms).
pub(super) fn to_child(rec: &mut Builder<'_>, joint: &Joint, m: &Spatial) -> Spatial {
    match &joint.turn {
        Some(t) => {
            let zero = rec.arena.zero();
            let fixed = Joint { a: t.fixed, ..*joint };
            let first = apply(rec.arena, &fixed, m).map(|e| rec.bind(e));
            let turning = Joint { a: t.turn, l: [zero; 3], ..*joint };
            apply(rec.arena, &turning, &first)
        }
        None => apply(rec.arena, joint, m),
    }
}

/// X_jᵀ f for a force f in the child's axes, in two steps as [`to_child`].
pub(super) fn to_parent(rec: &mut Builder<'_>, joint: &Joint, f: &Spatial) -> Spatial {
    match &joint.turn {
        Some(t) => {
            let zero = rec.arena.zero();
            let turning = Joint { a: t.turn, l: [zero; 3], ..*joint };
            let first = transpose_apply(rec.arena, &turning, f).map(|e| rec.bind(e));
            let fixed = Joint { a: t.fixed, ..*joint };
            transpose_apply(rec.arena, &fixed, &first)
        }
        None => transpose_apply(rec.arena, joint, f),
    }
}

/// The links' velocities V_j = X_j V_p + S_j r_j for joint rates `r` (q̇ for the motion), bound.
pub(super) fn velocities(rec: &mut Builder<'_>, links: &Links, joints: &[Joint], r: &[Expr]) -> Vec<Spatial> {
    let zero = rec.arena.zero();
    let mut v: Vec<Spatial> = vec![[zero; 6]; joints.len()];
    for &j in &links.order {
        let parent = links.parents[j].map(|p| v[p]);
        v[j] = velocity(rec, &joints[j], parent.as_ref(), r[j]);
    }
    v
}

/// One link's velocity X_j V_p + S_j r_j (S_j r_j at a root), bound.
pub(super) fn velocity(rec: &mut Builder<'_>, joint: &Joint, parent: Option<&Spatial>, r: Expr) -> Spatial {
    let zero = rec.arena.zero();
    let from = match parent {
        Some(v) => to_child(rec, joint, v),
        None => [zero; 6],
    };
    std::array::from_fn(|x| {
        let sq = rec.arena.mul2(joint.s[x], r);
        let e = rec.arena.add2(from[x], sq);
        rec.bind(e)
    })
}

/// The velocity-product accelerations c_j = (X_j' V_p + S_j' q̇_j) q̇_j, bound, computed as
/// c_j = (V_j × S_j) q̇_j + S_j' q̇_j² (X_j' = −(S_j ×) X_j for every joint: with
/// W = A_jᵀ A_j' = \[s_ω\]× and s_v = A_jᵀ ℓ_j', A_j'ᵀ = −\[s_ω\]× A_jᵀ and A_jᵀ \[ℓ_j'\]× = \[s_v\]× A_jᵀ,
/// so X_j' V_p = (X_j V_p) × S_j = V_j × S_j): from the link's bound velocity and its sparse S_j,
/// where X_j' V_p would multiply the parent's velocity out again; zero at a root and for a
/// transform constant in q_j. An orientation's first joint's c = (X V_p) × (Ω, 0) (see [`Joint`]).
pub(super) fn products(rec: &mut Builder<'_>, links: &Links, joints: &[Joint], v: &[Spatial]) -> Vec<Spatial> {
    let zero = rec.arena.zero();
    let mut c: Vec<Spatial> = vec![[zero; 6]; joints.len()];
    for &j in &links.order {
        let parent = links.parents[j].map(|p| v[p]);
        c[j] = velocity_product(rec, (&links.joints[j], &joints[j]), parent.as_ref(), &v[j], rec.syms.qd[j]);
    }
    c
}

/// One joint's velocity product c_j (see [`products`]) from its joint as read and bound, its
/// parent's velocity (none at a root), its own and its rate q̇_j, bound.
pub(super) fn velocity_product(
    rec: &mut Builder<'_>,
    (read, joint): (&Joint, &Joint),
    parent: Option<&Spatial>,
    v: &Spatial,
    qd: Expr,
) -> Spatial {
    let zero = rec.arena.zero();
    if let Some(spin) = &joint.spin {
        let Some(vp) = parent else { return [zero; 6] };
        let moved = apply(rec.arena, joint, vp);
        let (w, u) = (moved[..3].try_into().expect("3"), moved[3..].try_into().expect("3"));
        let top = rec.arena.cross(&w, spin);
        let bottom = rec.arena.cross(&u, spin);
        return std::array::from_fn(|x| {
            let e = if x < 3 { top[x] } else { bottom[x - 3] };
            rec.bind(e)
        });
    }
    let qd2 = rec.arena.powi(qd, 2);
    // X_j' = 0 for a transform that does not move with q_j (an orientation's second and
    // third joints, whose S_j is no derivative of theirs): no product then.
    let fixed = read.da.iter().flatten().chain(&read.dl).all(|&e| e == zero);
    let moving = match parent {
        Some(_) if !fixed => cross_motion(rec.arena, v, &joint.s),
        _ => [zero; 6],
    };
    std::array::from_fn(|x| {
        let m = rec.arena.mul2(moving[x], qd);
        let t = rec.arena.mul2(joint.ds[x], qd2);
        let e = rec.arena.add2(m, t);
        rec.bind(e)
    })
}

/// The bias force V ×* (M V) of a link moving at V, bound.
pub(super) fn bias_force(rec: &mut Builder<'_>, inertia: &Inertia, v: &Spatial) -> Spatial {
    let mv = times(rec.arena, inertia, v);
    let mv = mv.map(|e| rec.bind(e));
    cross_force(rec.arena, v, &mv)
}

/// The ground's acceleration (0, −g) that stands for gravity (zero without it).
pub(super) fn ground(arena: &mut Arena, links: &Links) -> Spatial {
    let zero = arena.zero();
    match &links.gravity {
        Some(g) => {
            let minus = g.map(|e| arena.neg(e));
            [zero, zero, zero, minus[0], minus[1], minus[2]]
        }
        None => [zero; 6],
    }
}

/// The link accelerations a_j = X_j a_p + S_j r_j (+ c_j) from the ground's `base`, bound.
pub(super) fn link_accelerations(
    rec: &mut Builder<'_>,
    links: &Links,
    joints: &[Joint],
    r: &[Expr],
    c: Option<&[Spatial]>,
    base: Spatial,
) -> Vec<Spatial> {
    let zero = rec.arena.zero();
    let mut acc: Vec<Spatial> = vec![[zero; 6]; joints.len()];
    for &j in &links.order {
        let from = links.parents[j].map_or(base, |p| acc[p]);
        acc[j] = link_acceleration(rec, &joints[j], &from, r[j], c.map(|c| &c[j]));
    }
    acc
}

/// One link's acceleration X_j a_p + S_j r_j (+ c_j) from its parent's (or the ground's) `from`,
/// bound.
pub(super) fn link_acceleration(rec: &mut Builder<'_>, joint: &Joint, from: &Spatial, r: Expr, c: Option<&Spatial>) -> Spatial {
    let moved = to_child(rec, joint, from);
    std::array::from_fn(|x| {
        let sq = rec.arena.mul2(joint.s[x], r);
        let mut terms = vec![moved[x], sq];
        if let Some(c) = c {
            terms.push(c[x]);
        }
        let e = rec.arena.add(&terms);
        rec.bind(e)
    })
}

/// S_j · f_j with f_j = own_j + Σ_children X_cᵀ f_c (leaves → root): the generalized forces of
/// forces `own` on the links, bound.
pub(super) fn generalized(rec: &mut Builder<'_>, links: &Links, joints: &[Joint], own: &[Spatial]) -> Vec<Expr> {
    let zero = rec.arena.zero();
    let mut pending: Vec<Vec<Spatial>> = vec![Vec::new(); joints.len()];
    let mut out = vec![zero; joints.len()];
    for &j in links.order.iter().rev() {
        let children = std::mem::take(&mut pending[j]);
        let f: Spatial = std::array::from_fn(|x| {
            let mut terms = vec![own[j][x]];
            terms.extend(children.iter().map(|c| c[x]));
            let e = rec.arena.add(&terms);
            rec.bind(e)
        });
        if let Some(p) = links.parents[j] {
            let back = to_parent(rec, &joints[j], &f);
            pending[p].push(back);
        }
        let e = rec.arena.dot(&joints[j].s, &f);
        out[j] = rec.bind(e);
    }
    out
}

/// The recursive Newton–Euler pass: M r, with `motion` plus the velocity products and bias
/// forces, with `gravity` less gravity's generalized force (the ground accelerating at −g).
pub(super) fn newton_euler(
    rec: &mut Builder<'_>,
    links: &Links,
    joints: &[Joint],
    r: &[Expr],
    motion: bool,
    gravity: bool,
) -> Vec<Expr> {
    let syms = rec.syms;
    let zero = rec.arena.zero();
    let (v, c) = if motion {
        let v = velocities(rec, links, joints, &syms.qd);
        let c = products(rec, links, joints, &v);
        (Some(v), Some(c))
    } else {
        (None, None)
    };
    let base = if gravity { ground(rec.arena, links) } else { [zero; 6] };
    let acc = link_accelerations(rec, links, joints, r, c.as_deref(), base);
    let own: Vec<Spatial> = (0..joints.len())
        .map(|j| {
            let ma = times(rec.arena, &links.inertias[j], &acc[j]);
            match &v {
                Some(v) => {
                    let bias = bias_force(rec, &links.inertias[j], &v[j]);
                    std::array::from_fn(|x| rec.arena.add2(ma[x], bias[x]))
                }
                None => ma,
            }
        })
        .collect();
    let out = generalized(rec, links, joints, &own);
    with_armature(rec, links, out, r)
}

/// `out` plus each joint's armature times its rate `r_j` (a_j q̈_j in M q̈, a_j q̇_j in p).
fn with_armature(rec: &mut Builder<'_>, links: &Links, mut out: Vec<Expr>, r: &[Expr]) -> Vec<Expr> {
    for (j, o) in out.iter_mut().enumerate() {
        if links.armature[j] != rec.arena.zero() {
            let ar = rec.arena.mul2(links.armature[j], r[j]);
            *o = rec.arena.add2(*o, ar);
        }
    }
    out
}

/// f = τ − (the Newton–Euler pass at q̈ = 0 with the motion and gravity).
pub(in crate::derive::dynamics) fn forcing(rec: &mut Builder<'_>, links: &Links) -> Vec<Expr> {
    let n = links.parents.len();
    let joints = joints(rec, links);
    let zeros = vec![rec.arena.zero(); n];
    let inertial = newton_euler(rec, links, &joints, &zeros, true, true);
    (0..n)
        .map(|j| {
            let e = rec.arena.sub(links.tau[j], inertial[j]);
            rec.bind(e)
        })
        .collect()
}

/// f(t, q, 0) = τ at rest − (the Newton–Euler pass with gravity alone): the links do not move, so
/// that no velocity, velocity product or bias force is formed (gravity compensation's pass).
pub(in crate::derive::dynamics) fn static_forcing(rec: &mut Builder<'_>, links: &Links) -> Vec<Expr> {
    let n = links.parents.len();
    let joints = joints(rec, links);
    let zero = rec.arena.zero();
    let zeros = vec![zero; n];
    let inertial = newton_euler(rec, links, &joints, &zeros, false, true);
    let rest = rec.syms.at_rest(rec.arena);
    let tau = rec.arena.subs_many(&links.tau, &rest);
    (0..n)
        .map(|j| {
            let e = rec.arena.sub(tau[j], inertial[j]);
            rec.bind(e)
        })
        .collect()
}

/// M w for the velocities or accelerations `w` (expressions): one Newton–Euler pass without the
/// motion or gravity.
pub(in crate::derive::dynamics) fn product(rec: &mut Builder<'_>, links: &Links, w: &[Expr]) -> Vec<Expr> {
    let joints = joints(rec, links);
    newton_euler(rec, links, &joints, w, false, false)
}

/// K = M a + the velocity products − gravity's generalized force at (x, a), the accelerations a as
/// [`crate::layout::Role::Acceleration`] symbols: g = f − M a = τ − K, as along a tree of directions (whose K
/// has no gravity: there it is in τ).
pub(in crate::derive::dynamics) fn kinetic_part(rec: &mut Builder<'_>, links: &Links) -> Vec<Expr> {
    let syms = rec.syms;
    let joints = joints(rec, links);
    newton_euler(rec, links, &joints, &syms.qdd, true, true)
}

/// The links' velocities and T = Σ ½ V_jᵀ M_j V_j (+ ½ a_j q̇_j² of the armatures).
pub(super) fn kinetic_energy(rec: &mut Builder<'_>, links: &Links, joints: &[Joint]) -> (Vec<Spatial>, Expr) {
    let syms = rec.syms;
    let v = velocities(rec, links, joints, &syms.qd);
    let half = rec.arena.num(symbolic::Rational::new(1, 2).expect("1/2"));
    let terms: Vec<Expr> = (0..joints.len())
        .map(|j| {
            let mv = times(rec.arena, &links.inertias[j], &v[j]);
            let mv = mv.map(|e| rec.bind(e));
            let vmv = rec.arena.dot(&v[j], &mv);
            // The armature's ½ a_j q̇_j².
            let qd2 = rec.arena.powi(syms.qd[j], 2);
            let rotor = rec.arena.mul2(links.armature[j], qd2);
            let both = rec.arena.add2(vmv, rotor);
            rec.arena.mul2(half, both)
        })
        .collect();
    let t = rec.arena.add(&terms);
    (v, rec.bind(t))
}

/// The bodies' gravitational term of L, Σ m_b g · r_b = Σ_j g · (m_j o_j + F_j h_j) with the link
/// frames and origins along the tree (F_j = F_p A_j, o_j = o_p + F_p ℓ_j), bound; zero without
/// gravity.
pub(super) fn gravity_term(rec: &mut Builder<'_>, links: &Links, joints: &[Joint]) -> Expr {
    let Some(g) = links.gravity else { return rec.arena.zero() };
    let n = joints.len();
    let identity = rec.arena.identity3();
    let origin = rec.arena.vec_zero();
    let mut frames = vec![identity; n];
    let mut origins = vec![origin; n];
    let mut terms = Vec::with_capacity(n);
    for &j in &links.order {
        let (fp, op) = links.parents[j].map_or((identity, origin), |p| (frames[p], origins[p]));
        let f = rec.arena.mat_mul(&fp, &joints[j].a);
        frames[j] = f.map(|row| row.map(|e| rec.bind(e)));
        let fl = rec.arena.mat_vec(&fp, &joints[j].l);
        let o = rec.arena.vec_add(&op, &fl);
        origins[j] = o.map(|e| rec.bind(e));
        let (m, h) = links.masses[j];
        let mo = rec.arena.vec_scale(m, &origins[j]);
        let fh = rec.arena.mat_vec(&frames[j], &h);
        let r = rec.arena.vec_add(&mo, &fh);
        terms.push(rec.arena.dot3(&g, &r));
    }
    let e = rec.arena.add(&terms);
    rec.bind(e)
}

/// L = T + L_w + Σ m g · r.
pub(in crate::derive::dynamics) fn lagrangian(rec: &mut Builder<'_>, links: &Links) -> Vec<Expr> {
    let joints = joints(rec, links);
    let (_, t) = kinetic_energy(rec, links, &joints);
    let u = gravity_term(rec, links, &joints);
    vec![rec.arena.add(&[t, links.rest, u])]
}

/// E = T − L_w − Σ m g · r.
pub(in crate::derive::dynamics) fn energy(rec: &mut Builder<'_>, links: &Links) -> Vec<Expr> {
    let joints = joints(rec, links);
    let (_, t) = kinetic_energy(rec, links, &joints);
    let u = gravity_term(rec, links, &joints);
    let v = rec.arena.add2(links.rest, u);
    vec![rec.arena.sub(t, v)]
}

/// p = ∂T/∂q̇: the generalized forces of the links' momenta M_j V_j.
pub(in crate::derive::dynamics) fn momenta(rec: &mut Builder<'_>, links: &Links) -> Vec<Expr> {
    let syms = rec.syms;
    let joints = joints(rec, links);
    let v = velocities(rec, links, &joints, &syms.qd);
    let own: Vec<Spatial> = (0..joints.len()).map(|j| times(rec.arena, &links.inertias[j], &v[j])).collect();
    let out = generalized(rec, links, &joints, &own);
    with_armature(rec, links, out, &syms.qd)
}

/// Adds a body's spatial inertia about its link's origin, in the link's axes, to `terms` (by entry
/// 6x + y, x ≤ y): mass m at d, rotational inertia `turned` = C I Cᵀ about its centre (none for a
/// particle): `[[C I Cᵀ + m (|d|² 1 − d dᵀ), m D], [−m D, m 1]]` with D x = d × x.
pub(super) fn add_body(arena: &mut Arena, terms: &mut [Vec<Expr>], m: Expr, d: &Vec3, turned: Option<&Mat3>) {
    let d2 = arena.norm_squared(d);
    let hat = arena.hat(d);
    for x in 0..3 {
        for y in x..3 {
            let outer = arena.mul2(d[x], d[y]);
            let diagonal = if x == y { arena.sub(d2, outer) } else { arena.neg(outer) };
            terms[6 * x + y].push(arena.mul2(m, diagonal));
            if let Some(i) = turned {
                terms[6 * x + y].push(i[x][y]);
            }
        }
        for y in 0..3 {
            // The upper right block m [d]×: row x (angular), column 3 + y (linear).
            terms[6 * x + 3 + y].push(arena.mul2(m, hat[x][y]));
        }
        terms[6 * (3 + x) + 3 + x].push(m);
    }
}
