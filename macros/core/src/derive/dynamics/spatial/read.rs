//! The links read off a model's bodies: each joint's transform from its parent's link, checked
//! against every body's pose by the zero test.

use std::collections::BTreeSet;

use rustc_hash::FxHashSet;
use symbolic::{Arena, AtZero, Expr, Mat3, Vec3};

use crate::derive::dynamics::topology::{path_of, sparse_gradient, tree_of};
use crate::layout::Role;
use crate::model::Model;

use super::passes::add_body;
use super::{Inertia, Joint, Links};

/// The links of `model`'s bodies, or why they do not form a tree of them.
pub fn read(model: &Model, arena: &mut Arena) -> Result<Links, String> {
    let syms = &model.layout;
    let n = model.dof();
    check_bodies(model, arena)?;
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
    let (rows, moved, still) = moved_bodies(model, arena, &poses);
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
    let bodies = Placed { rows: &rows, moved: &moved, own: &own, paths: &paths, at_joint: &at_joint };
    let (frames, origins, transforms) = links(model, arena, &mut at, &bodies, (&parents, &order, &position));
    let (inertias, moments) = bodies_on_links(model, arena, &mut at, &bodies, (&frames, &origins), &parents)?;

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

/// The model's bodies: some, with constant masses and inertias, in a model without orientations
/// or an action, its written Lagrangian free of velocities.
fn check_bodies(model: &Model, arena: &Arena) -> Result<(), String> {
    let syms = &model.layout;
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
    Ok(())
}

/// The coordinates that move each body (its pose a function of them alone), read together: the
/// poses along a chain share their parents' (each body's alone would be quadratic). Returns each
/// moved body's coordinates, the moved bodies and the still ones (no coordinate moves them: no
/// kinetic energy, a constant gravitational term).
fn moved_bodies(model: &Model, arena: &mut Arena, poses: &[Vec<Expr>]) -> (Vec<Vec<usize>>, Vec<usize>, Vec<usize>) {
    let syms = &model.layout;
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
    (rows, moved, still)
}

/// Where the moved bodies sit on the tree: each one's coordinates (`rows`), its index among the
/// model's bodies, its joint, its path's joints; the bodies at each joint.
struct Placed<'a> {
    rows: &'a [Vec<usize>],
    moved: &'a [usize],
    own: &'a [usize],
    paths: &'a [FxHashSet<usize>],
    at_joint: &'a [Vec<usize>],
}

/// Each joint's frame, origin and transform (A_j, ℓ_j) from its parent's, parents first.
#[allow(clippy::type_complexity)]
fn links(
    model: &Model,
    arena: &mut Arena,
    at: &mut AtZero,
    bodies: &Placed<'_>,
    (parents, order, position): (&[Option<usize>], &[usize], &[usize]),
) -> (Vec<Mat3>, Vec<Vec3>, Vec<(Mat3, Vec3)>) {
    let syms = &model.layout;
    let n = model.dof();
    let Placed { rows, moved, paths, at_joint, .. } = *bodies;
    let all = |at: &mut AtZero, arena: &mut Arena, m: &Mat3| m.map(|row| row.map(|e| at.all(arena, e)));
    let identity = arena.identity3();
    let origin = arena.vec_zero();
    let mut frames: Vec<Mat3> = vec![identity; n];
    let mut origins: Vec<Vec3> = vec![origin; n];
    let mut transforms: Vec<(Mat3, Vec3)> = vec![(identity, origin); n];
    for &j in order {
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
        let fpt = all(at, arena, &fp);
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

    (frames, origins, transforms)
}

/// Each body rigidly on its link — R_b = F_j C_b, r_b = o_j + F_j d_b with C_b and d_b constant,
/// proved by one zero test — and each link's spatial inertia and its bodies' masses and offsets.
#[allow(clippy::type_complexity)]
fn bodies_on_links(
    model: &Model,
    arena: &mut Arena,
    at: &mut AtZero,
    bodies: &Placed<'_>,
    (frames, origins): (&[Mat3], &[Vec3]),
    parents: &[Option<usize>],
) -> Result<(Vec<Inertia>, Vec<Vec<(Expr, Vec3)>>), String> {
    let n = model.dof();
    let Placed { moved, own, .. } = *bodies;
    let all = |at: &mut AtZero, arena: &mut Arena, m: &Mat3| m.map(|row| row.map(|e| at.all(arena, e)));
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
        let f0 = all(at, arena, &f);
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
                let r0 = all(at, arena, &rot.matrix);
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
            path_of(parents, j).into_iter().map(name).collect::<Vec<_>>().join(" → ")
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

    Ok((inertias, moments))
}

/// ℓ of a joint that turns about an axis, its link's origin moved onto that axis, where ℓ is
/// constant (S then has no linear part and S' vanishes: the recursion's cheapest joint); `l` itself
/// where the joint does not turn or does not turn about a fixed axis (a screw, a cam).
///
/// With A' = A W (W x = w × x) and the origin moved by δ in the link's axes, ℓ + A δ has the derivative
/// ℓ' + A (w × δ): at q = 0 it vanishes for δ = w × v / |w|², v = A(0)ᵀ ℓ'(0), when v ⊥ w — and
/// whether ℓ + A δ is then constant for every q is checked by the zero test.
pub(super) fn on_axis(arena: &mut Arena, a: &Mat3, l: &Vec3, q: Expr) -> Vec3 {
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
