//! The articulated-body recursion of rigid bodies and particles in space (Featherstone's, over
//! 6-D spatial vectors), for models whose bodies hang on a tree of joints of one coordinate each —
//! a robot arm in relative angles, a gimbal, a top in Euler angles, a pendulum on a cart.
//!
//! **Which models.** Every body and particle ([`crate::model::Body`]) has a pose (R_b, r_b) of the
//! coordinates alone, with constant masses and inertias; the written Lagrangian (besides the
//! bodies' energies) is free of velocities, and gravity acts as `gravity = g`. The coordinates that
//! move a body must lie on one path of a tree built as for the translational recursion
//! ([`super::tree_of`]). Each joint j then gets a *link*: a frame F_j and an origin o_j,
//!
//! ```text
//! F_j = F_p A_j(q_j),      o_j = o_p + F_p ℓ_j(q_j)        (F = 1, o = 0 above the roots)
//! ```
//!
//! read off the bodies: F_j from the frame of the first rigid body at j (or, where j moves none,
//! below it) with the coordinates below j at 0, o_j from the first body's centre likewise, and
//! A_j = (F_pᵀ F_j), ℓ_j = F_pᵀ (o_j − o_p) with every coordinate but q_j at 0 — functions of q_j
//! alone by construction; where the joint turns about a fixed axis, o_j is then moved onto it
//! ([`on_axis`]: ℓ_j constant). Bodies that no coordinate moves add a constant to L and E. Each body b at joint j must then sit rigidly on its link:
//! R_b = F_j C_b and r_b = o_j + F_j d_b with C_b and d_b constant, checked for every body by the
//! zero test. Whatever is read, the check makes it exact: the link poses reproduce every body's
//! pose, so the recursion below is the dynamics of the model's Lagrangian. A model that fails a
//! check keeps the dense path (and `dynamics = recursive` on it is a compile error saying which).
//!
//! **The recursion.** Link j moves with the spatial velocity V_j = (ω_j, v_j) in its own axes
//! (ω_j = vee(F_jᵀḞ_j), v_j = F_jᵀ ȯ_j), so that
//!
//! ```text
//! V_j = X_j V_p + S_j q̇_j,     X_j (ω, v) = (A_jᵀ ω, A_jᵀ (v + ω × ℓ_j)),     S_j = (vee(A_jᵀ A_j'), A_jᵀ ℓ_j')
//! ```
//!
//! (′ = d/dq_j), and carries the spatial inertia M_j of its bodies about o_j in its axes (with
//! D_b the cross-product matrix of d_b, D_b x = d_b × x):
//!
//! ```text
//! M_j = Σ_b | C_b I_b C_bᵀ − m_b D_b²   m_b D_b |
//!           | −m_b D_b                  m_b 1   |
//! ```
//!
//! With the velocity-product acceleration c_j = (X_j' V_p + S_j' q̇_j) q̇_j and the bias force
//! p_j = V_j ×* M_j V_j ((ω, v) ×* (n, f) = (ω × n + v × f, ω × f)), Featherstone's three passes:
//!
//! ```text
//! root → leaves:  V_j, c_j, p_j;  I^A_j = M_j, p^A_j = p_j
//! leaves → root:  U_j = I^A_j S_j,  D_j = S_j·U_j,  u_j = τ_j − S_j·p^A_j
//!                 I^A_p += X_jᵀ (I^A_j − U_j U_jᵀ / D_j) X_j
//!                 p^A_p += X_jᵀ (p^A_j + (I^A_j − U_j U_jᵀ / D_j) c_j + U_j u_j / D_j)
//! root → leaves:  a'_j = X_j a_p + c_j,  q̈_j = (u_j − U_j·a'_j) / D_j,  a_j = a'_j + S_j q̈_j
//! ```
//!
//! with the ground's acceleration a = (0, −g) standing for gravity, Xᵀ (n, f) = (A n + ℓ × A f, A f)
//! the force transform, and τ = ∂L_w/∂q + Q from the written Lagrangian L_w and the forces. Every
//! quantity is bound to a temporary of its own, so the code is linear in the number of joints.
//!
//! The recursion gives q̈ (and, by [`super::tangent`], the field Jacobian). The same links give the
//! rest of the model's API as passes along them ([`super::kinetics()`]), by the recursive
//! Newton–Euler algorithm — a_j = X_j a_p + S_j a_j (+ c_j), F_j = M_j a_j (+ p_j) + Σ X_cᵀ F_c,
//! (M a + …)_j = S_j·F_j: f = τ − that pass at q̈ = 0 with the motion and gravity; M a with neither
//! (M column by column, the runtime's `mass_from_products`); T = Σ ½ V_jᵀ M_j V_j; p from the links'
//! momenta M_j V_j; the bodies' gravitational term Σ_j g·(m_j o_j + F_j h_j) (h_j the link's first
//! moment) with the frames and origins along the tree. Its impacts, modes, inputs and sensitivities
//! take the same forms as along a tree of directions (M w by [`product`], K = M a + … by
//! [`kinetic_part`], with gravity in K rather than τ), so that a model without reductions or a
//! discrete system derives nothing dense. The runtime factors M along the same links (its
//! `LinkFactor`: the articulated-body algorithm with no velocity and no gravity, O(n) to factor and
//! per solve, from each joint's A_j, ℓ_j and S_j and the links' inertias evaluated at the state):
//! the model's mass operator, with which a constrained model solves its saddle point (and its
//! linearisation, sensitivities and projections theirs); the saddle point is differentiated along
//! the links (the tangent of K).

use std::collections::BTreeSet;

use rustc_hash::FxHashSet;
use symbolic::{Arena, AtZero, Expr, Mat3, Vec3};

use super::{Builder, Recursive, path_of, sparse_gradient, tree_of};
use crate::layout::Role;
use crate::model::Model;

/// A spatial motion (ω, v) or force (n, f) in a link's axes.
pub type Spatial = [Expr; 6];

/// A symmetric spatial inertia.
pub type Inertia = [[Expr; 6]; 6];

/// A joint's transform from its parent's link: A_j, ℓ_j, their derivatives along q_j, and its
/// motion subspace S_j = (vee(A_jᵀ A_j'), A_jᵀ ℓ_j') with S_j' — as read ([`Links::joints`]), or
/// bound to temporaries in a pass ([`joints`]).
#[derive(Clone, Copy)]
pub struct Joint {
    pub a: Mat3,
    pub l: Vec3,
    pub da: Mat3,
    pub dl: Vec3,
    pub s: Spatial,
    pub ds: Spatial,
}

/// The tree of rigid links read off a model's bodies ([`read`]).
pub struct Links {
    /// The parent of each joint.
    pub parents: Vec<Option<usize>>,
    /// The joints, parents first.
    pub order: Vec<usize>,
    /// Each joint's A_j(q_j) and ℓ_j(q_j) (F_j = F_p A_j, o_j = o_p + F_p ℓ_j), with their
    /// derivatives and S_j, S_j', derived once.
    pub joints: Vec<Joint>,
    /// Each link's spatial inertia about its origin, in its axes (constant).
    pub inertias: Vec<Inertia>,
    /// Each link's mass and first moment Σ m_b d_b about its origin, in its axes.
    pub masses: Vec<(Expr, Vec3)>,
    /// The uniform gravitational field g (the ground's acceleration −g in the recursion).
    pub gravity: Option<Vec3>,
    /// τ = ∂L_w/∂q + Q, from the written Lagrangian and the forces (gravity is not in it).
    pub tau: Vec<Expr>,
    /// The written Lagrangian, a potential −V(t, q), and the gravitational term of the bodies that
    /// do not move (a constant).
    pub rest: Expr,
}

/// The links of `model`'s bodies, or why they do not form a tree of them.
pub fn read(model: &Model, arena: &mut Arena) -> Result<Links, String> {
    let syms = &model.layout;
    let n = model.dof();
    if model.bodies.is_empty() {
        return Err("it has no bodies".into());
    }
    if !syms.orientations.is_empty() || syms.z.is_some() {
        return Err("the model has an orientation or an action variable".into());
    }
    if arena.free_symbols(model.written).iter().any(|&s| matches!(syms.role(s), Some(Role::Velocity(_)))) {
        return Err("its written Lagrangian has velocity terms besides the bodies' energies".into());
    }
    let constant =
        |arena: &Arena, e: Expr| arena.free_symbols(e).iter().all(|&s| matches!(syms.role(s), Some(Role::Parameter(_))));
    for b in &model.bodies {
        let mut kinetic = vec![b.mass];
        if let Some(i) = &b.inertia {
            kinetic.extend(i.as_flattened());
        }
        if !kinetic.iter().all(|&e| constant(arena, e)) {
            return Err(format!("the mass or inertia of `{}` is not constant", b.name));
        }
    }
    let pose = |b: &crate::model::Body| -> Vec<Expr> {
        let mut pose: Vec<Expr> = b.centre.to_vec();
        if let Some(r) = &b.rotation {
            pose.extend(r.matrix.as_flattened());
        }
        pose
    };
    let poses: Vec<Vec<Expr>> = model.bodies.iter().map(pose).collect();
    // Poses of the coordinates and parameters alone (one walk of them all; body by body only to
    // name the first that is not).
    let timed = |arena: &Arena, roots: &[Expr]| {
        arena.free_symbols_of(roots).iter().any(|&s| !matches!(syms.role(s), Some(Role::Coordinate(_) | Role::Parameter(_))))
    };
    if timed(arena, &poses.concat()) {
        let k = (0..poses.len()).find(|&k| timed(arena, &poses[k])).unwrap_or(0);
        return Err(format!("the pose of `{}` depends on time", model.bodies[k].name));
    }
    // The coordinates that move each body (its pose a function of them alone), read together:
    // the poses along a chain share their parents' (each body's alone would be quadratic).
    let roots: Vec<Expr> = poses.concat();
    let held = arena.symbols_held(&roots, &syms.q);
    let mut rows: Vec<Vec<usize>> = Vec::new();
    let mut moved: Vec<usize> = Vec::new();
    // Bodies that no coordinate moves: no kinetic energy, a constant gravitational term.
    let mut still: Vec<usize> = Vec::new();
    let mut next = 0;
    for (k, p) in poses.iter().enumerate() {
        let coordinates: BTreeSet<usize> = held[next..next + p.len()].iter().flatten().copied().collect();
        next += p.len();
        if coordinates.is_empty() {
            still.push(k);
        } else {
            rows.push(coordinates.into_iter().collect());
            moved.push(k);
        }
    }
    let (parents, order) = tree_of(model, &rows)?;
    let own: Vec<usize> = rows.iter().map(|r| *r.last().expect("a row moves a body")).collect();
    let paths: Vec<FxHashSet<usize>> = own.iter().map(|&j| path_of(&parents, j).into_iter().collect()).collect();
    let mut at_joint: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (r, &j) in own.iter().enumerate() {
        at_joint[j].push(r);
    }
    if let Some(j) = (0..n).find(|&j| !paths.iter().any(|p| p.contains(&j))) {
        return Err(format!("`{}` moves no body", model.coordinates[j]));
    }

    // The links, parents first. Values at zero are memoised across the joints (their frames share
    // their parents'), and a joint's own coordinate kept where it occurs (`AtZero`): linear in the
    // tree where each frame is its parent's times a turn (a substitution per joint walked the whole
    // path: quadratic, 2.2 s at 96 links against 0.78 s now, at opt-level 0).
    let ordered: Vec<Expr> = order.iter().map(|&j| syms.q[j]).collect();
    let mut position = vec![0; n];
    for (k, &j) in order.iter().enumerate() {
        position[j] = k;
    }
    let mut at = AtZero::new(&ordered);
    let all = |at: &mut AtZero, arena: &mut Arena, m: &Mat3| m.map(|row| row.map(|e| at.all(arena, e)));
    let identity = arena.identity3();
    let origin = arena.vec_zero();
    let mut frames: Vec<Mat3> = vec![identity; n];
    let mut origins: Vec<Vec3> = vec![origin; n];
    let mut transforms: Vec<(Mat3, Vec3)> = vec![(identity, origin); n];
    for &j in &order {
        let (fp, op) = parents[j].map_or((identity, origin), |p| (frames[p], origins[p]));
        let rigid = |r: usize| model.bodies[moved[r]].rotation.is_some();
        let first = |want: &dyn Fn(usize) -> bool| {
            at_joint[j].iter().copied().find(|&r| want(r)).or_else(|| (0..rows.len()).find(|&r| paths[r].contains(&j) && want(r)))
        };
        let framed = first(&rigid);
        let placed = first(&|_| true).expect("every coordinate moves a body");
        // A_j = F_pᵀ F_j and ℓ_j = F_pᵀ (o_j − o_p) with every coordinate but q_j at 0 (the
        // parent's frame and origin hold none of q_j: their values at 0).
        let k = position[j];
        let fpt = all(&mut at, arena, &fp);
        let fpt = arena.transpose3(&fpt);
        let a = match framed {
            Some(r) => {
                let w = model.bodies[moved[r]].rotation.as_ref().expect("a rigid body").matrix;
                let w = w.map(|row| row.map(|e| at.keeping(arena, e, k)));
                arena.mat_mul(&fpt, &w)
            }
            None => identity,
        };
        let centre = model.bodies[moved[placed]].centre.map(|e| at.keeping(arena, e, k));
        let op0 = op.map(|e| at.all(arena, e));
        let offset = arena.vec_sub(&centre, &op0);
        let l = arena.mat_vec(&fpt, &offset);
        let l = on_axis(arena, &a, &l, syms.q[j]);
        frames[j] = arena.mat_mul(&fp, &a);
        let fl = arena.mat_vec(&fp, &l);
        origins[j] = arena.vec_add(&op, &fl);
        transforms[j] = (a, l);
    }

    // Each body rigidly on its link: R_b = F_j C_b, r_b = o_j + F_j d_b, C_b and d_b constant.
    let zero = arena.zero();
    let mut inertias: Vec<Inertia> = vec![[[zero; 6]; 6]; n];
    let mut terms: Vec<Vec<Vec<Expr>>> = vec![vec![Vec::new(); 36]; n];
    let mut moments: Vec<Vec<(Expr, Vec3)>> = vec![Vec::new(); n];
    let mut gap_of: Vec<Expr> = Vec::with_capacity(moved.len());
    for (r, &k) in moved.iter().enumerate() {
        let b = &model.bodies[k];
        let j = own[r];
        let (f, o) = (frames[j], origins[j]);
        // d_b = F_jᵀ (r_b − o_j) and C_b = F_jᵀ R_b at 0 (constant if the body sits on its link).
        let f0 = all(&mut at, arena, &f);
        let f0t = arena.transpose3(&f0);
        let rel: Vec3 = std::array::from_fn(|c| {
            let (r, o) = (at.all(arena, b.centre[c]), at.all(arena, o[c]));
            arena.sub(r, o)
        });
        let d = arena.mat_vec(&f0t, &rel);
        let fd = arena.mat_vec(&f, &d);
        let back = arena.vec_add(&o, &fd);
        let mut gaps: Vec<Expr> = (0..3).map(|c| arena.sub(back[c], b.centre[c])).collect();
        let turned = match (&b.rotation, &b.inertia) {
            (Some(rot), Some(i)) => {
                let r0 = all(&mut at, arena, &rot.matrix);
                let c = arena.mat_mul(&f0t, &r0);
                let fc = arena.mat_mul(&f, &c);
                for (x, y) in fc.as_flattened().iter().zip(rot.matrix.as_flattened()) {
                    gaps.push(arena.sub(*x, *y));
                }
                let ci = arena.mat_mul(&c, i);
                let ct = arena.transpose3(&c);
                Some(arena.mat_mul(&ci, &ct))
            }
            _ => None,
        };
        // Σ gap² is zero iff every gap is.
        let squares: Vec<Expr> = gaps.iter().map(|&g| arena.powi(g, 2)).collect();
        gap_of.push(arena.add(&squares));
        add_body(arena, &mut terms[j], b.mass, &d, turned.as_ref());
        moments[j].push((b.mass, d));
    }
    // One zero test for all the bodies (their frames share the tree's products: one high-precision
    // evaluation of the whole is linear in the tree, one per body quadratic); body by body only to
    // name the first that fails.
    let all = arena.add(&gap_of);
    if !arena.zero_test(all).is_zero() {
        let r = (0..moved.len()).find(|&r| !arena.zero_test(gap_of[r]).is_zero()).unwrap_or(0);
        let (b, j) = (&model.bodies[moved[r]], own[r]);
        let name = |i: usize| model.coordinates[i].to_string();
        return Err(format!(
            "`{}` does not turn and move rigidly with joint `{}` (on the path {}): a body's frame and centre must be \
             its joint's frame and origin times a fixed rotation and offset, each joint turning or sliding its \
             parent's frame by its own coordinate alone",
            b.name,
            name(j),
            path_of(&parents, j).into_iter().map(name).collect::<Vec<_>>().join(" → ")
        ));
    }
    for j in 0..n {
        for x in 0..6 {
            for y in x..6 {
                let e = arena.add(&terms[j][6 * x + y]);
                inertias[j][x][y] = e;
                inertias[j][y][x] = e;
            }
        }
    }

    // Generalized forces of the written Lagrangian and the forces (gravity is the ground's
    // acceleration below).
    let gradient = sparse_gradient(arena, model.written, &syms.q);
    let tau: Vec<Expr> = (0..n).map(|j| arena.add2(gradient[j], model.force[j])).collect();
    let tau = arena.horner_many(&tau);

    // Each link's mass and first moment Σ m_b d_b (for the gravitational potential).
    let masses = moments
        .iter()
        .map(|ms| {
            let m: Vec<Expr> = ms.iter().map(|&(m, _)| m).collect();
            let first: Vec3 = std::array::from_fn(|c| {
                let terms: Vec<Expr> = ms.iter().map(|&(m, d)| arena.mul2(m, d[c])).collect();
                arena.add(&terms)
            });
            (arena.add(&m), first)
        })
        .collect();
    // The still bodies' gravitational term Σ m g·r, a constant of L and E (not of the motion).
    let still = match &model.gravity {
        Some(g) => {
            let terms: Vec<Expr> = still
                .iter()
                .map(|&k| {
                    let b = &model.bodies[k];
                    let gr = arena.dot3(g, &b.centre);
                    arena.mul2(b.mass, gr)
                })
                .collect();
            arena.add(&terms)
        }
        None => arena.zero(),
    };
    let rest = arena.add2(model.written, still);
    let joints = (0..n).map(|j| Joint::of(arena, transforms[j], syms.q[j])).collect();
    Ok(Links { parents, order, joints, inertias, masses, gravity: model.gravity, tau, rest })
}

/// ℓ of a joint that turns about an axis, its link's origin moved onto that axis, where ℓ is
/// constant (S then has no linear part and S' vanishes: the recursion's cheapest joint); `l` itself
/// where the joint does not turn or does not turn about a fixed axis (a screw, a cam).
///
/// With A' = A W (W x = w × x) and the origin moved by δ in the link's axes, ℓ + A δ has the derivative
/// ℓ' + A (w × δ): at q = 0 it vanishes for δ = w × v / |w|², v = A(0)ᵀ ℓ'(0), when v ⊥ w — and
/// whether ℓ + A δ is then constant for every q is checked by the zero test.
fn on_axis(arena: &mut Arena, a: &Mat3, l: &Vec3, q: Expr) -> Vec3 {
    let zero = arena.zero();
    let at_rest = [(q, zero)];
    let da = a.map(|row| row.map(|e| arena.diff(e, q)));
    let dl = l.map(|e| arena.diff(e, q));
    let [a0, da0] = [a, &da].map(|m| m.map(|row| row.map(|e| arena.subs(e, &at_rest))));
    let a0t = arena.transpose3(&a0);
    let rate = arena.mat_mul(&a0t, &da0);
    let w = arena.vee(&rate);
    if w.iter().all(|&c| c == zero) || dl.iter().all(|&c| c == zero) {
        return *l;
    }
    let dl0 = dl.map(|e| arena.subs(e, &at_rest));
    let v = arena.mat_vec(&a0t, &dl0);
    let w2 = arena.norm_squared(&w);
    let inv = arena.powi(w2, -1);
    let wv = arena.cross(&w, &v);
    let delta = arena.vec_scale(inv, &wv);
    let turned = arena.mat_vec(a, &delta);
    let moved = arena.vec_add(l, &turned);
    let constant = moved.iter().all(|&c| {
        let d = arena.diff(c, q);
        arena.zero_test(d).is_zero()
    });
    if constant { moved.map(|e| arena.subs(e, &at_rest)) } else { *l }
}

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
            let to_parent = transpose_apply(rec.arena, &joints[j], &bias);
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
        let moved_from = apply(rec.arena, &joints[j], &from);
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
        tangent: None,
        inverse: None,
        tree: super::Links::Spatial(Box::new(links)),
    })
}

/// The articulated inertias along the links, leaves → root (they depend on the positions only):
/// per joint U_j = I^A_j S_j, D_j = S_j·U_j, U_j / D_j and I^a_j = I^A_j − U_j U_jᵀ / D_j, with
/// I^A_p = M_p + Σ_children X_jᵀ I^a_j X_j (the last two where j has a parent).
struct Articulated {
    u: Vec<Spatial>,
    d: Vec<Expr>,
    scaled: Vec<Spatial>,
    reduced: Vec<Inertia>,
}

fn articulated(rec: &mut Builder<'_>, links: &Links, joints: &[Joint]) -> Articulated {
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
        let dd = rec.arena.dot(&s, &u);
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
        // Xᵀ I^a X column by column.
        for y in 0..6 {
            let mut unit = [zero; 6];
            unit[y] = one;
            let col = apply(rec.arena, &joints[j], &unit);
            let icol = times(rec.arena, &art, &col);
            let icol = icol.map(|e| rec.bind(e));
            let back = transpose_apply(rec.arena, &joints[j], &icol);
            for x in 0..=y {
                ia_terms[p][6 * x + y].push(back[x]);
            }
        }
        (out.scaled[j], out.reduced[j]) = (scaled, art);
    }
    out
}

/// The quantities of M factored along the links, for the runtime's `LinkFactor::from_parts`
/// (straight-line code specialised to the joints, where `LinkFactor::new` does the same in
/// general 6-D arithmetic): per joint, in joint order, A_j (by rows), ℓ_j, S_j, U_j and D_j of
/// the articulated inertias ([`articulated`]) and the diagonal entry M_jj = S_j·I^C_j S_j of the
/// composite rigid body of its subtree — its mass m, first moment h and rotational inertia I_o
/// about the origin, moved to the parent (points r to ℓ + A r) as m, A h + m ℓ and
/// A I_o Aᵀ + (m |ℓ|² + 2 ℓ·g) 1 − m ℓ ℓᵀ − ℓ gᵀ − g ℓᵀ (g = A h), with
/// M_jj = S_ωᵀ I_o S_ω + 2 S_ω·(h × S_v) + m |S_v|²; then each link's inertia (by rows, for
/// products M v). Without `with_parts`, A_j, ℓ_j and S_j alone per joint, then the inertias: for
/// `LinkFactor::new`, which computes the rest in general 6-D arithmetic (a third of the code for
/// models whose factor is off the hot path).
pub(super) fn factor(rec: &mut Builder<'_>, links: &Links, with_parts: bool) -> Vec<Expr> {
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
        let mjj = rec.arena.add(&[rot, cross, lin]);
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
    let mut out = Vec::with_capacity(n * 26 + n * 36);
    for j in 0..n {
        out.extend(joints[j].a.as_flattened());
        out.extend(&joints[j].l);
        out.extend(&joints[j].s);
        out.extend(&u[j]);
        out.push(d[j]);
        out.push(diagonal[j]);
    }
    for i in &links.inertias {
        out.extend(i.as_flattened());
    }
    out
}

impl Joint {
    /// The joint of transform (A, ℓ) along the coordinate `q` (S_j and S_j' from the unbound
    /// forms, whose derivative sees q).
    fn of(arena: &mut Arena, (a, l): (Mat3, Vec3), q: Expr) -> Joint {
        let da = a.map(|row| row.map(|e| arena.diff(e, q)));
        let dl = l.map(|e| arena.diff(e, q));
        let at = arena.transpose3(&a);
        let ada = arena.mat_mul(&at, &da);
        let w = arena.vee(&ada);
        let v = arena.mat_vec(&at, &dl);
        let s: Spatial = joined(&w, &v);
        let ds = s.map(|e| arena.diff(e, q));
        Joint { a, l, da, dl, s, ds }
    }
}

/// The joints' quantities bound to temporaries of a pass.
fn joints(rec: &mut Builder<'_>, links: &Links) -> Vec<Joint> {
    links
        .joints
        .iter()
        .map(|j| Joint {
            a: j.a.map(|row| row.map(|e| rec.bind(e))),
            l: j.l.map(|e| rec.bind(e)),
            da: j.da.map(|row| row.map(|e| rec.bind(e))),
            dl: j.dl.map(|e| rec.bind(e)),
            s: j.s.map(|e| rec.bind(e)),
            ds: j.ds.map(|e| rec.bind(e)),
        })
        .collect()
}

/// The links' velocities V_j = X_j V_p + S_j r_j for joint rates `r` (q̇ for the motion), bound.
fn velocities(rec: &mut Builder<'_>, links: &Links, joints: &[Joint], r: &[Expr]) -> Vec<Spatial> {
    let zero = rec.arena.zero();
    let mut v: Vec<Spatial> = vec![[zero; 6]; joints.len()];
    for &j in &links.order {
        let from = match links.parents[j] {
            Some(p) => apply(rec.arena, &joints[j], &v[p]),
            None => [zero; 6],
        };
        v[j] = std::array::from_fn(|x| {
            let sq = rec.arena.mul2(joints[j].s[x], r[j]);
            let e = rec.arena.add2(from[x], sq);
            rec.bind(e)
        });
    }
    v
}

/// The velocity-product accelerations c_j = (X_j' V_p + S_j' q̇_j) q̇_j, bound.
fn products(rec: &mut Builder<'_>, links: &Links, joints: &[Joint], v: &[Spatial]) -> Vec<Spatial> {
    let syms = rec.syms;
    let zero = rec.arena.zero();
    let mut c: Vec<Spatial> = vec![[zero; 6]; joints.len()];
    for &j in &links.order {
        let qd = syms.qd[j];
        let qd2 = rec.arena.powi(qd, 2);
        let moving = match links.parents[j] {
            Some(p) => apply_derivative(rec.arena, &joints[j], &v[p]),
            None => [zero; 6],
        };
        c[j] = std::array::from_fn(|x| {
            let m = rec.arena.mul2(moving[x], qd);
            let t = rec.arena.mul2(joints[j].ds[x], qd2);
            let e = rec.arena.add2(m, t);
            rec.bind(e)
        });
    }
    c
}

/// The bias force V ×* (M V) of a link moving at V, bound.
fn bias_force(rec: &mut Builder<'_>, inertia: &Inertia, v: &Spatial) -> Spatial {
    let mv = times(rec.arena, inertia, v);
    let mv = mv.map(|e| rec.bind(e));
    cross_force(rec.arena, v, &mv)
}

/// The ground's acceleration (0, −g) that stands for gravity (zero without it).
fn ground(arena: &mut Arena, links: &Links) -> Spatial {
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
fn link_accelerations(
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
        let moved = apply(rec.arena, &joints[j], &from);
        acc[j] = std::array::from_fn(|x| {
            let sq = rec.arena.mul2(joints[j].s[x], r[j]);
            let mut terms = vec![moved[x], sq];
            if let Some(c) = c {
                terms.push(c[j][x]);
            }
            let e = rec.arena.add(&terms);
            rec.bind(e)
        });
    }
    acc
}

/// S_j · f_j with f_j = own_j + Σ_children X_cᵀ f_c (leaves → root): the generalized forces of
/// forces `own` on the links, bound.
fn generalized(rec: &mut Builder<'_>, links: &Links, joints: &[Joint], own: &[Spatial]) -> Vec<Expr> {
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
            let back = transpose_apply(rec.arena, &joints[j], &f);
            pending[p].push(back);
        }
        let e = rec.arena.dot(&joints[j].s, &f);
        out[j] = rec.bind(e);
    }
    out
}

/// The recursive Newton–Euler pass: M r, with `motion` plus the velocity products and bias
/// forces, with `gravity` less gravity's generalized force (the ground accelerating at −g).
fn newton_euler(rec: &mut Builder<'_>, links: &Links, joints: &[Joint], r: &[Expr], motion: bool, gravity: bool) -> Vec<Expr> {
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
    generalized(rec, links, joints, &own)
}

/// f = τ − (the Newton–Euler pass at q̈ = 0 with the motion and gravity).
pub(super) fn forcing(rec: &mut Builder<'_>, links: &Links) -> Vec<Expr> {
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

/// M a for the accelerations a as [`Role::Acceleration`] symbols (one column of M per basis a).
pub(super) fn mass_product(rec: &mut Builder<'_>, links: &Links) -> Vec<Expr> {
    let syms = rec.syms;
    product(rec, links, &syms.qdd)
}

/// M w for the velocities or accelerations `w` (expressions): one Newton–Euler pass without the
/// motion or gravity.
pub(super) fn product(rec: &mut Builder<'_>, links: &Links, w: &[Expr]) -> Vec<Expr> {
    let joints = joints(rec, links);
    newton_euler(rec, links, &joints, w, false, false)
}

/// K = M a + the velocity products − gravity's generalized force at (x, a), the accelerations a as
/// [`Role::Acceleration`] symbols: g = f − M a = τ − K, as along a tree of directions (whose K
/// has no gravity: there it is in τ).
pub(super) fn kinetic_part(rec: &mut Builder<'_>, links: &Links) -> Vec<Expr> {
    let syms = rec.syms;
    let joints = joints(rec, links);
    newton_euler(rec, links, &joints, &syms.qdd, true, true)
}

/// The links' velocities and T = Σ ½ V_jᵀ M_j V_j.
fn kinetic_energy(rec: &mut Builder<'_>, links: &Links, joints: &[Joint]) -> (Vec<Spatial>, Expr) {
    let syms = rec.syms;
    let v = velocities(rec, links, joints, &syms.qd);
    let half = rec.arena.num(symbolic::Rational::new(1, 2).expect("1/2"));
    let terms: Vec<Expr> = (0..joints.len())
        .map(|j| {
            let mv = times(rec.arena, &links.inertias[j], &v[j]);
            let mv = mv.map(|e| rec.bind(e));
            let vmv = rec.arena.dot(&v[j], &mv);
            rec.arena.mul2(half, vmv)
        })
        .collect();
    let t = rec.arena.add(&terms);
    (v, rec.bind(t))
}

/// The bodies' gravitational term of L, Σ m_b g · r_b = Σ_j g · (m_j o_j + F_j h_j) with the link
/// frames and origins along the tree (F_j = F_p A_j, o_j = o_p + F_p ℓ_j), bound; zero without
/// gravity.
fn gravity_term(rec: &mut Builder<'_>, links: &Links, joints: &[Joint]) -> Expr {
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
pub(super) fn lagrangian(rec: &mut Builder<'_>, links: &Links) -> Vec<Expr> {
    let joints = joints(rec, links);
    let (_, t) = kinetic_energy(rec, links, &joints);
    let u = gravity_term(rec, links, &joints);
    vec![rec.arena.add(&[t, links.rest, u])]
}

/// E = T − L_w − Σ m g · r.
pub(super) fn energy(rec: &mut Builder<'_>, links: &Links) -> Vec<Expr> {
    let joints = joints(rec, links);
    let (_, t) = kinetic_energy(rec, links, &joints);
    let u = gravity_term(rec, links, &joints);
    let v = rec.arena.add2(links.rest, u);
    vec![rec.arena.sub(t, v)]
}

/// p = ∂T/∂q̇: the generalized forces of the links' momenta M_j V_j.
pub(super) fn momenta(rec: &mut Builder<'_>, links: &Links) -> Vec<Expr> {
    let syms = rec.syms;
    let joints = joints(rec, links);
    let v = velocities(rec, links, &joints, &syms.qd);
    let own: Vec<Spatial> = (0..joints.len()).map(|j| times(rec.arena, &links.inertias[j], &v[j])).collect();
    generalized(rec, links, &joints, &own)
}

/// Adds a body's spatial inertia about its link's origin, in the link's axes, to `terms` (by entry
/// 6x + y, x ≤ y): mass m at d, rotational inertia `turned` = C I Cᵀ about its centre (none for a
/// particle): `[[C I Cᵀ + m (|d|² 1 − d dᵀ), m D], [−m D, m 1]]` with D x = d × x.
fn add_body(arena: &mut Arena, terms: &mut [Vec<Expr>], m: Expr, d: &Vec3, turned: Option<&Mat3>) {
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

/// I v for a symmetric spatial inertia.
fn times(arena: &mut Arena, i: &Inertia, v: &Spatial) -> Spatial {
    std::array::from_fn(|x| arena.dot(&i[x], v))
}

/// The two halves of a spatial vector.
fn halves(v: &Spatial) -> (Vec3, Vec3) {
    ([v[0], v[1], v[2]], [v[3], v[4], v[5]])
}

/// A spatial vector from its halves.
fn joined(a: &Vec3, b: &Vec3) -> Spatial {
    [a[0], a[1], a[2], b[0], b[1], b[2]]
}

/// X m = (Aᵀ ω, Aᵀ (v + ω × ℓ)) for a motion m = (ω, v) in the parent's axes.
fn apply(arena: &mut Arena, j: &Joint, m: &Spatial) -> Spatial {
    let (w, v) = halves(m);
    let at = arena.transpose3(&j.a);
    let wl = arena.cross(&w, &j.l);
    let moved = arena.vec_add(&v, &wl);
    let w2 = arena.mat_vec(&at, &w);
    let v2 = arena.mat_vec(&at, &moved);
    joined(&w2, &v2)
}

/// X' m = (A'ᵀ ω, A'ᵀ (v + ω × ℓ) + Aᵀ (ω × ℓ')), the derivative of [`apply`] along q_j.
fn apply_derivative(arena: &mut Arena, j: &Joint, m: &Spatial) -> Spatial {
    let (w, v) = halves(m);
    let (at, dat) = (arena.transpose3(&j.a), arena.transpose3(&j.da));
    let wl = arena.cross(&w, &j.l);
    let moved = arena.vec_add(&v, &wl);
    let w2 = arena.mat_vec(&dat, &w);
    let first = arena.mat_vec(&dat, &moved);
    let wdl = arena.cross(&w, &j.dl);
    let second = arena.mat_vec(&at, &wdl);
    let v2 = arena.vec_add(&first, &second);
    joined(&w2, &v2)
}

/// Xᵀ f = (A n + ℓ × (A f), A f) for a force f = (n, f) in the child's axes: the same force in the
/// parent's.
fn transpose_apply(arena: &mut Arena, j: &Joint, f: &Spatial) -> Spatial {
    let (n, f) = halves(f);
    let af = arena.mat_vec(&j.a, &f);
    let an = arena.mat_vec(&j.a, &n);
    let lf = arena.cross(&j.l, &af);
    let n2 = arena.vec_add(&an, &lf);
    joined(&n2, &af)
}

/// (ω, v) ×* (n, f) = (ω × n + v × f, ω × f).
fn cross_force(arena: &mut Arena, v: &Spatial, h: &Spatial) -> Spatial {
    let (w, u) = halves(v);
    let (n, f) = halves(h);
    let wn = arena.cross(&w, &n);
    let uf = arena.cross(&u, &f);
    let top = arena.vec_add(&wn, &uf);
    let bottom = arena.cross(&w, &f);
    joined(&top, &bottom)
}
