//! The links read off a model's bodies: each joint's transform from its parent's link, checked
//! against every body's pose by the zero test.

use std::collections::BTreeSet;

use rustc_hash::FxHashSet;
use symbolic::{Arena, AtZero, Expr, Mat3, Vec3};

use crate::derive::dynamics::topology::{path_of, sparse_gradient, tree_declared};
use crate::layout::Role;
use crate::model::Model;

use super::passes::add_body;
use super::{Inertia, Joint, Links};

/// The links of `model`'s bodies, or why they do not form a tree of them.
pub fn read(model: &Model, arena: &mut Arena) -> Result<Links, String> {
    let syms = &model.layout;
    let n = model.dof();
    check_bodies(model, arena)?;
    let (armature, potential) = armature(model, arena)?;
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
        arena
            .free_symbols_of(roots)
            .iter()
            .any(|&s| !matches!(syms.role(s), Some(Role::Coordinate(_) | Role::Parameter(_) | Role::QuaternionNorm(_))))
    };
    if timed(arena, &poses.concat()) {
        let k = (0..poses.len()).find(|&k| timed(arena, &poses[k])).unwrap_or(0);
        return Err(format!("the pose of `{}` depends on time", model.bodies[k].name));
    }
    let mut units = Units::of(model, arena);
    units.shift_turns(model, arena, &poses.concat());
    // The poses shifted, with one memo (per pose, each would walk the chain above it again).
    let shifted = arena.subs_many(&poses.concat(), &units.shifted);
    let mut next = shifted.into_iter();
    let placed: Vec<Pose> = model
        .bodies
        .iter()
        .map(|b| {
            let centre: Vec3 = std::array::from_fn(|_| next.next().expect("a centre"));
            let rotation = b
                .rotation
                .as_ref()
                .map(|_| -> Mat3 { std::array::from_fn(|_| std::array::from_fn(|_| next.next().expect("a rotation"))) });
            Pose { centre, rotation }
        })
        .collect();
    let (rows, moved, still) = moved_bodies(arena, &units, &placed);
    let (parents, order) = units.tree(model, &rows)?;
    let own: Vec<usize> = rows.iter().map(|r| units.last_joint(*r.last().expect("a row moves a body"))).collect();
    let paths: Vec<FxHashSet<usize>> = own.iter().map(|&j| path_of(&parents, j).into_iter().collect()).collect();
    let mut at_joint: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (r, &j) in own.iter().enumerate() {
        at_joint[j].push(r);
    }
    if let Some(j) = (0..n).find(|&j| !paths.iter().any(|p| p.contains(&j))) {
        return Err(format!("`{}` moves no body", units.name(model, j)));
    }

    // The links, parents first. Values at zero are memoised across the joints (their frames share
    // their parents'), and a joint's own coordinate kept where it occurs (`AtZero`): linear in the
    // tree where each frame is its parent's times a turn (a substitution per joint walked the whole
    // path: quadratic, 2.2 s at 96 links against 0.78 s now, at opt-level 0). An orientation's
    // shifted components are one group, zero at the identity.
    let mut position = vec![0; n];
    for (k, &j) in order.iter().enumerate() {
        position[j] = k;
    }
    let grouped: Vec<(Expr, usize)> = units.held.iter().zip(&units.joint_of).map(|(&s, &j)| (s, position[j])).collect();
    let mut at = AtZero::grouped(&grouped);
    let bodies = Placed { poses: &placed, rows: &rows, moved: &moved, own: &own, paths: &paths, at_joint: &at_joint };
    let (frames, origins, transforms) = links(model, arena, &mut at, &bodies, &units, (&parents, &order, &position))?;
    let (inertias, moments) = bodies_on_links(model, arena, &mut at, &bodies, (&frames, &origins), (&parents, &units))?;

    // Generalized forces of the written Lagrangian and the forces (gravity is the ground's
    // acceleration below); an orientation's are along its body axes, Gᵀ ∂L/∂q with q̇ = G ω.
    let gradient = sparse_gradient(arena, model.written, &syms.q);
    let mut tau: Vec<Expr> = (0..n).map(|j| if j < units.ordinary { gradient[j] } else { arena.zero() }).collect();
    for o in &syms.orientations {
        for k in 0..3 {
            let terms: Vec<Expr> = (0..4)
                .map(|i| {
                    let g = arena.diff(syms.rates[o.q_start + i], syms.qd[o.v_start + k]);
                    arena.mul2(g, gradient[o.q_start + i])
                })
                .collect();
            tau[o.v_start + k] = arena.add(&terms);
        }
    }
    let tau: Vec<Expr> = (0..n).map(|j| arena.add2(tau[j], model.force[j])).collect();
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
    let rest = arena.add2(potential, still);
    let joints = (0..n)
        .map(|j| match &transforms[j] {
            Transform::Coordinate((a, l)) => {
                // Read in the shifted coordinates, given in the model's.
                let a = a.map(|row| row.map(|e| arena.subs(e, &units.back)));
                let l = l.map(|e| arena.subs(e, &units.back));
                Joint::of(arena, (a, l), syms.q[j])
            }
            Transform::Turn { a, l, axis, spin } => Joint::turning(arena, (*a, *l), axis, *spin),
        })
        .collect();
    Ok(Links { parents, order, joints, inertias, masses, gravity: model.gravity, tau, rest, armature })
}

/// A body's pose with each orientation's components shifted to zero at the identity
/// ([`Units::shifted`]).
struct Pose {
    centre: Vec3,
    rotation: Option<Mat3>,
}

/// The units of the tree: each ordinary coordinate one joint, each orientation three (its body
/// axes' turns, in a chain of massless links: ω₁ turns the link by the whole rotation, ω₂ and ω₃
/// add their axes' rates; see [`Joint::turning`]). Their symbols in the poses: each coordinate, and
/// an orientation's quaternion and |q|² shifted so that the identity is zero (w = 1 + w̃,
/// |q|² = 1 + ñ), for [`AtZero`].
struct Units {
    /// The ordinary coordinates' count (each orientation's velocities follow them).
    ordinary: usize,
    /// The symbols held by the poses: the coordinates, then each orientation's w̃, x, y, z, ñ.
    held: Vec<Expr>,
    /// The (first) joint of each held symbol.
    joint_of: Vec<usize>,
    /// w ↦ 1 + w̃ and |q|² ↦ 1 + ñ.
    shifted: Vec<(Expr, Expr)>,
    /// w̃ ↦ w − 1 and ñ ↦ |q|² − 1.
    back: Vec<(Expr, Expr)>,
    /// The units' first joints in declaration order (an orientation after the coordinates declared
    /// before it).
    declared: Vec<usize>,
}

impl Units {
    fn of(model: &Model, arena: &mut Arena) -> Units {
        let syms = &model.layout;
        let ordinary = syms.dof() - 3 * syms.orientations.len();
        let mut held: Vec<Expr> = syms.q[..ordinary].to_vec();
        let mut joint_of: Vec<usize> = (0..ordinary).collect();
        let (mut shifted, mut back) = (Vec::new(), Vec::new());
        let one = arena.one();
        for o in &syms.orientations {
            let w = syms.q[o.q_start];
            let (wt, nt) = (arena.symbol(&format!("shifted:w:{}", o.name)), arena.symbol(&format!("shifted:n2:{}", o.name)));
            let (w1, n1) = (arena.add2(one, wt), arena.add2(one, nt));
            shifted.extend([(w, w1), (o.norm2, n1)]);
            let (wb, nb) = (arena.sub(w, one), arena.sub(o.norm2, one));
            back.extend([(wt, wb), (nt, nb)]);
            held.extend([wt, syms.q[o.q_start + 1], syms.q[o.q_start + 2], syms.q[o.q_start + 3], nt]);
            joint_of.extend([o.v_start; 5]);
        }
        let mut declared = Vec::with_capacity(ordinary + syms.orientations.len());
        for i in 0..=ordinary {
            declared.extend(syms.orientations.iter().filter(|o| o.after == i).map(|o| o.v_start));
            if i < ordinary {
                declared.push(i);
            }
        }
        Units { ordinary, held, joint_of, shifted, back, declared }
    }

    /// Each ordinary coordinate q_j whose every sine and cosine in `poses` is of one angle
    /// q_j + c_j, c_j a nonzero constant (`joint(...)` writes an origin's turn about the joint's
    /// own axis into its angle, R_y(c) R_y(q) as R_y(q + c)), read as that angle: q_j ↦ q_j − c_j in
    /// the poses and back in the joints. The links' frames at zero are then those of zero turn, so
    /// that each joint's transform A_j = F_pᵀ F_j holds no F_p(0) turned by c (whose cos² c + sin² c
    /// no rule folds where c is no multiple of π: the UR5's 1.57079632679) — exact either way.
    fn shift_turns(&mut self, model: &Model, arena: &mut Arena, poses: &[Expr]) {
        let syms = &model.layout;
        let index: rustc_hash::FxHashMap<Expr, usize> =
            syms.q[..self.ordinary].iter().enumerate().map(|(j, &q)| (q, j)).collect();
        // Per coordinate: unseen, one angle, or several (`None`).
        let mut angle: Vec<Option<Option<Expr>>> = vec![None; self.ordinary];
        for arg in arena.sine_cosine_arguments(poses) {
            let coordinates: Vec<usize> = arena.free_symbols(arg).iter().filter_map(|s| index.get(s).copied()).collect();
            match coordinates.as_slice() {
                [j] => angle[*j] = if angle[*j].is_none() { Some(Some(arg)) } else { Some(None) },
                several => several.iter().for_each(|&j| angle[j] = Some(None)),
            }
        }
        for (j, angle) in angle.into_iter().enumerate() {
            let (Some(Some(phi)), q) = (angle, syms.q[j]) else { continue };
            let c = arena.sub(phi, q);
            let constant = arena.free_symbols(c).iter().all(|s| matches!(syms.role(*s), Some(Role::Parameter(_))));
            if c == arena.zero() || !constant {
                continue;
            }
            let (minus, plus) = (arena.sub(q, c), arena.add2(q, c));
            self.shifted.push((q, minus));
            self.back.push((q, plus));
        }
    }

    /// The orientation whose first joint is `j`.
    fn orientation<'m>(&self, model: &'m Model, j: usize) -> Option<&'m crate::layout::Orientation> {
        model.layout.orientations.iter().find(|o| o.v_start == j)
    }

    /// The last joint of the unit whose first is `j`.
    fn last_joint(&self, j: usize) -> usize {
        if j < self.ordinary { j } else { j + 2 }
    }

    /// A joint's name: its coordinate's, or an orientation's rate about a body axis.
    fn name(&self, model: &Model, j: usize) -> String {
        match model.layout.orientation_of_velocity(j) {
            Some((o, k)) => format!("{}'s rate about its axis {}", o.name, k + 1),
            None => model.coordinates[j].to_string(),
        }
    }

    /// The tree of the joints from the units' rows (each a body's units, by first joint, in
    /// declaration order): the units' tree, each orientation's three joints a chain in it.
    fn tree(&self, model: &Model, rows: &[Vec<usize>]) -> Result<(Vec<Option<usize>>, Vec<usize>), String> {
        let n = model.dof();
        let (parents, order) = tree_declared(n, rows, &self.declared, &|j| self.name(model, j))?;
        if self.ordinary == n {
            return Ok((parents, order));
        }
        let mut joint_parents = vec![None; n];
        let mut joint_order = Vec::with_capacity(n);
        for &u in order.iter().filter(|&&u| u < self.ordinary || self.orientation(model, u).is_some()) {
            let above = parents[u].map(|p| self.last_joint(p));
            joint_parents[u] = above;
            joint_order.push(u);
            if u >= self.ordinary {
                joint_parents[u + 1] = Some(u);
                joint_parents[u + 2] = Some(u + 1);
                joint_order.extend([u + 1, u + 2]);
            }
        }
        Ok((joint_parents, joint_order))
    }
}

/// The model's bodies: some, with constant masses and inertias, in a model without an action (its
/// written Lagrangian's velocity terms are read by [`armature`]).
fn check_bodies(model: &Model, arena: &Arena) -> Result<(), String> {
    let syms = &model.layout;
    if model.bodies.is_empty() {
        return Err("it has no bodies".into());
    }
    if syms.z.is_some() {
        return Err("the model has an action variable".into());
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

/// The written Lagrangian's terms ½ a_j q̇_j² of an ordinary coordinate's rate with a constant
/// a_j (an armature: a rotor's inertia reflected onto its joint), by joint, and the rest, which
/// must be free of velocities.
fn armature(model: &Model, arena: &mut Arena) -> Result<(Vec<Expr>, Expr), String> {
    let syms = &model.layout;
    let n = model.dof();
    let terms: Vec<Expr> = match arena.node(model.written) {
        symbolic::Node::Add(ts) => ts.to_vec(),
        _ => vec![model.written],
    };
    let mut armature: Vec<Vec<Expr>> = vec![Vec::new(); n];
    let mut rest = Vec::with_capacity(terms.len());
    let ordinary = n - 3 * syms.orientations.len();
    let why = "its written Lagrangian has velocity terms besides the bodies' energies and the joints' armatures \
               (½ a q̇² of one coordinate, a constant)";
    for t in terms {
        let free = arena.free_symbols(t);
        let rates: Vec<usize> =
            free.iter().filter_map(|&s| if let Some(Role::Velocity(j)) = syms.role(s) { Some(j) } else { None }).collect();
        match rates.as_slice() {
            [] => rest.push(t),
            &[j] if j < ordinary => {
                let v = syms.qd[j];
                let d2 = arena.diff(t, v);
                let d2 = arena.diff(d2, v);
                let constant = arena.free_symbols(d2).iter().all(|&s| matches!(syms.role(s), Some(Role::Parameter(_))));
                let v2 = arena.powi(v, 2);
                let half = arena.num(symbolic::Rational::new(1, 2).expect("1/2"));
                let back = arena.mul(&[half, d2, v2]);
                let gap = arena.sub(back, t);
                if !constant || !arena.zero_test(gap).is_zero() {
                    return Err(why.into());
                }
                armature[j].push(d2);
            }
            _ => return Err(why.into()),
        }
    }
    let armature = armature.iter().map(|a| arena.add(a)).collect();
    Ok((armature, arena.add(&rest)))
}

/// The units that move each body (its pose a function of them alone), read together: the poses
/// along a chain share their parents' (each body's alone would be quadratic). Returns each moved
/// body's units (by first joint, in declaration order), the moved bodies and the still ones (no
/// coordinate moves them: no kinetic energy, a constant gravitational term).
fn moved_bodies(arena: &mut Arena, units: &Units, poses: &[Pose]) -> (Vec<Vec<usize>>, Vec<usize>, Vec<usize>) {
    let flat =
        |p: &Pose| -> Vec<Expr> { p.centre.iter().chain(p.rotation.iter().flat_map(|r| r.as_flattened())).copied().collect() };
    let flats: Vec<Vec<Expr>> = poses.iter().map(flat).collect();
    let roots: Vec<Expr> = flats.concat();
    let held = arena.symbols_held(&roots, &units.held);
    let mut rank = vec![0; units.joint_of.iter().max().map_or(0, |m| m + 1)];
    for (k, &j) in units.declared.iter().enumerate() {
        rank[j] = k;
    }
    let mut rows: Vec<Vec<usize>> = Vec::new();
    let mut moved: Vec<usize> = Vec::new();
    // Bodies that no coordinate moves: no kinetic energy, a constant gravitational term.
    let mut still: Vec<usize> = Vec::new();
    let mut next = 0;
    for (k, p) in flats.iter().enumerate() {
        let joints: BTreeSet<(usize, usize)> =
            held[next..next + p.len()].iter().flatten().map(|&i| units.joint_of[i]).map(|j| (rank[j], j)).collect();
        next += p.len();
        if joints.is_empty() {
            still.push(k);
        } else {
            rows.push(joints.into_iter().map(|(_, j)| j).collect());
            moved.push(k);
        }
    }
    (rows, moved, still)
}

/// Where the moved bodies sit on the tree: the bodies' poses (shifted), each moved one's units
/// (`rows`), its index among the model's bodies, its joint, its path's joints; the bodies at each
/// joint.
struct Placed<'a> {
    poses: &'a [Pose],
    rows: &'a [Vec<usize>],
    moved: &'a [usize],
    own: &'a [usize],
    paths: &'a [FxHashSet<usize>],
    at_joint: &'a [Vec<usize>],
}

/// A joint's transform from its parent's link as read: a coordinate's (A_j(q_j), ℓ_j(q_j)), or an
/// orientation's (its first joint: A(q) with the axes it turns about and its rate in the link's
/// axes, Ω = Σ s_k ω_k; its second and third: the identity, no offset, their axes).
enum Transform {
    Coordinate((Mat3, Vec3)),
    Turn { a: Mat3, l: Vec3, axis: Vec3, spin: Option<Vec3> },
}

/// Each joint's frame, origin and transform (A_j, ℓ_j) from its parent's, parents first.
#[allow(clippy::type_complexity)]
fn links(
    model: &Model,
    arena: &mut Arena,
    at: &mut AtZero,
    bodies: &Placed<'_>,
    units: &Units,
    (parents, order, position): (&[Option<usize>], &[usize], &[usize]),
) -> Result<(Vec<Mat3>, Vec<Vec3>, Vec<Transform>), String> {
    let syms = &model.layout;
    let n = model.dof();
    let Placed { poses, rows, moved, paths, at_joint, .. } = *bodies;
    let all = |at: &mut AtZero, arena: &mut Arena, m: &Mat3| m.map(|row| row.map(|e| at.all(arena, e)));
    let identity = arena.identity3();
    let origin = arena.vec_zero();
    let mut frames: Vec<Mat3> = vec![identity; n];
    let mut origins: Vec<Vec3> = vec![origin; n];
    let mut transforms: Vec<Option<Transform>> = (0..n).map(|_| None).collect();
    for &j in order {
        let (fp, op) = parents[j].map_or((identity, origin), |p| (frames[p], origins[p]));
        if syms.orientation_of_velocity(j).is_some_and(|(_, k)| k > 0) {
            // An orientation's second and third axes: on its first joint's link (read with it).
            (frames[j], origins[j]) = (fp, op);
            continue;
        }
        let rigid = |r: usize| poses[moved[r]].rotation.is_some();
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
                let w = poses[moved[r]].rotation.expect("a rigid body");
                let w = w.map(|row| row.map(|e| at.keeping(arena, e, k)));
                arena.mat_mul(&fpt, &w)
            }
            None => identity,
        };
        let centre = poses[moved[placed]].centre.map(|e| at.keeping(arena, e, k));
        let op0 = op.map(|e| at.all(arena, e));
        let offset = arena.vec_sub(&centre, &op0);
        let l = arena.mat_vec(&fpt, &offset);
        let (l, transform) = match syms.orientation_of_velocity(j) {
            Some((o, _)) => {
                if framed.is_none() {
                    return Err(format!("the orientation `{}` turns no rigid body", o.name));
                }
                let (l, [first, second, third]) = turning(model, arena, units, o, (&a, &l))?;
                transforms[j + 1] = Some(second);
                transforms[j + 2] = Some(third);
                (l, first)
            }
            None => {
                let l = on_axis(arena, &a, &l, syms.q[j]);
                (l, Transform::Coordinate((a, l)))
            }
        };
        frames[j] = arena.mat_mul(&fp, &a);
        let fl = arena.mat_vec(&fp, &l);
        origins[j] = arena.vec_add(&op, &fl);
        transforms[j] = Some(transform);
    }
    let transforms = transforms.into_iter().map(|t| t.expect("every joint read")).collect();
    Ok((frames, origins, transforms))
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
    (parents, units): (&[Option<usize>], &Units),
) -> Result<(Vec<Inertia>, Vec<Vec<(Expr, Vec3)>>), String> {
    let n = model.dof();
    let Placed { poses, moved, own, .. } = *bodies;
    let all = |at: &mut AtZero, arena: &mut Arena, m: &Mat3| m.map(|row| row.map(|e| at.all(arena, e)));
    let zero = arena.zero();
    let mut inertias: Vec<Inertia> = vec![[[zero; 6]; 6]; n];
    let mut terms: Vec<Vec<Vec<Expr>>> = vec![vec![Vec::new(); 36]; n];
    let mut moments: Vec<Vec<(Expr, Vec3)>> = vec![Vec::new(); n];
    let mut gap_of: Vec<Expr> = Vec::with_capacity(moved.len());
    for (r, &k) in moved.iter().enumerate() {
        let (b, pose) = (&model.bodies[k], &poses[k]);
        let j = own[r];
        let (f, o) = (frames[j], origins[j]);
        // d_b = F_jᵀ (r_b − o_j) and C_b = F_jᵀ R_b at 0 (constant if the body sits on its link).
        let f0 = all(at, arena, &f);
        let f0t = arena.transpose3(&f0);
        let rel: Vec3 = std::array::from_fn(|c| {
            let (r, o) = (at.all(arena, pose.centre[c]), at.all(arena, o[c]));
            arena.sub(r, o)
        });
        let d = arena.mat_vec(&f0t, &rel);
        let fd = arena.mat_vec(&f, &d);
        let back = arena.vec_add(&o, &fd);
        let mut gaps: Vec<Expr> = (0..3).map(|c| arena.sub(back[c], pose.centre[c])).collect();
        let turned = match (&pose.rotation, &b.inertia) {
            (Some(rot), Some(i)) => {
                let r0 = all(at, arena, rot);
                let c = arena.mat_mul(&f0t, &r0);
                let fc = arena.mat_mul(&f, &c);
                for (x, y) in fc.as_flattened().iter().zip(rot.as_flattened()) {
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
        let name = |i: usize| units.name(model, i);
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

/// An orientation's three joints, read off its link's A and ℓ (the orientation alone turning, its
/// components shifted to zero at the identity): the body axes s_k it turns about, in the link's
/// axes, from A(0)ᵀ ∂A/∂x_k = 2 \[s_k\]× at the identity (x_k its quaternion's vector part); and
/// its link's origin moved onto its centre of rotation — with ℓ = c + A u (the body's centre u off
/// it), A(0)ᵀ ∂ℓ/∂x_k = 2 s_k × u there, so u = −¼ Σ s_k × A(0)ᵀ ∂ℓ/∂x_k and ℓ − A u = c. Both
/// are then proved for every q by one zero test: ℓ − A u is constant, and A turns with the body
/// rates, Σᵢ ∂A/∂qᵢ Gᵢₖ = A \[s_k\]× with q̇ = G ω (so that the link's velocity is V = X V_p +
/// Σ (s_k, 0) ω_k). Returns ℓ − A u (shifted) and the three joints' transforms.
fn turning(
    model: &Model,
    arena: &mut Arena,
    units: &Units,
    o: &crate::layout::Orientation,
    (a, l): (&Mat3, &Vec3),
) -> Result<(Vec3, [Transform; 3]), String> {
    let syms = &model.layout;
    let index = syms.orientations.iter().position(|x| x.v_start == o.v_start).expect("an orientation of the layout");
    let base = units.ordinary + 5 * index;
    let shifted: Vec<Expr> = units.held[base..base + 5].to_vec();
    let zero = arena.zero();
    let at_rest: Vec<(Expr, Expr)> = shifted.iter().map(|&s| (s, zero)).collect();
    let a0 = a.map(|row| row.map(|e| arena.subs(e, &at_rest)));
    let a0t = arena.transpose3(&a0);
    let half = arena.num(symbolic::Rational::new(1, 2).expect("1/2"));
    let quarter = arena.num(symbolic::Rational::new(1, 4).expect("1/4"));
    let mut axes: [Vec3; 3] = [[zero; 3]; 3];
    let mut moved: Vec<Expr> = Vec::new();
    for k in 0..3 {
        let x = shifted[1 + k];
        let da = a.map(|row| row.map(|e| arena.diff(e, x)));
        let da0 = da.map(|row| row.map(|e| arena.subs(e, &at_rest)));
        let rate = arena.mat_mul(&a0t, &da0);
        let v = arena.vee(&rate);
        axes[k] = arena.vec_scale(half, &v);
        let dl = l.map(|e| arena.diff(e, x));
        let dl0 = dl.map(|e| arena.subs(e, &at_rest));
        let b = arena.mat_vec(&a0t, &dl0);
        let sb = arena.cross(&axes[k], &b);
        moved.extend(sb);
    }
    let u: Vec3 = std::array::from_fn(|c| {
        let sum = arena.add(&[moved[c], moved[3 + c], moved[6 + c]]);
        let e = arena.mul2(quarter, sum);
        arena.neg(e)
    });
    let au = arena.mat_vec(a, &u);
    let centred = arena.vec_sub(l, &au);
    let c = centred.map(|e| arena.subs(e, &at_rest));
    // The proof, in the quaternion itself (|q|² held: the identities hold for every |q|).
    let a_q = a.map(|row| row.map(|e| arena.subs(e, &units.back)));
    let mut gaps: Vec<Expr> = (0..3).map(|i| arena.sub(centred[i], c[i])).collect();
    let omega: Vec3 = std::array::from_fn(|k| syms.qd[o.v_start + k]);
    for (k, axis) in axes.iter().enumerate() {
        let g: Vec<Expr> = (0..4).map(|i| arena.diff(syms.rates[o.q_start + i], omega[k])).collect();
        let hat = arena.hat(axis);
        let turned = arena.mat_mul(&a_q, &hat);
        for r in 0..3 {
            for col in 0..3 {
                let terms: Vec<Expr> = (0..4)
                    .map(|i| {
                        let d = arena.diff(a_q[r][col], syms.q[o.q_start + i]);
                        arena.mul2(d, g[i])
                    })
                    .collect();
                let rate = arena.add(&terms);
                gaps.push(arena.sub(rate, turned[r][col]));
            }
        }
    }
    let squares: Vec<Expr> = gaps.iter().map(|&g| arena.powi(g, 2)).collect();
    let sum = arena.add(&squares);
    let unit_axes = {
        let m = [axes[0], axes[1], axes[2]];
        let mt = arena.transpose3(&m);
        let p = arena.mat_mul(&m, &mt);
        let i = arena.identity3();
        let d = arena.mat_sub(&p, &i);
        d.as_flattened().iter().map(|&e| arena.powi(e, 2)).collect::<Vec<Expr>>()
    };
    let unit = arena.add(&unit_axes);
    let all = arena.add2(sum, unit);
    if !arena.zero_test(all).is_zero() {
        return Err(format!(
            "the rotation `{}` does not turn its link about a fixed centre in it (the link's frame and origin must be \
             its parent's times `{}` about a fixed point, with fixed rotations and offsets)",
            o.name, o.name
        ));
    }
    let spin: Vec3 = std::array::from_fn(|c| {
        let terms: Vec<Expr> = (0..3).map(|k| arena.mul2(axes[k][c], omega[k])).collect();
        arena.add(&terms)
    });
    let (identity, origin) = (arena.identity3(), arena.vec_zero());
    let first = Transform::Turn { a: a_q, l: c, axis: axes[0], spin: Some(spin) };
    let second = Transform::Turn { a: identity, l: origin, axis: axes[1], spin: None };
    let third = Transform::Turn { a: identity, l: origin, axis: axes[2], spin: None };
    Ok((centred, [first, second, third]))
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
