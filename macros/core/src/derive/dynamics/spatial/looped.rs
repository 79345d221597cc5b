//! The recursion as loops over a chain's repeated joints: the same three passes as
//! [`mod@super::recursion`], with each pass's code built once per *kind* of block and run for every
//! block of that kind, where the straight-line form writes it out joint by joint.
//!
//! Straight-line code grows with the number of joints, and past some 30 KB (a dozen links in
//! space) it no longer fits the processor's instruction caches and runs about half as fast per
//! operation (`docs/guide/performance.md`). A chain whose joints repeat — the same transform up to
//! the joint's own angle, the same inertia, the same generalized force — runs the code of one
//! block of joints per iteration instead: its size is that of the distinct blocks, whatever the
//! chain's length.
//!
//! **Kinds.** Two joints are of one kind when their transforms, motion subspaces, inertias,
//! armatures and generalized forces τ are the same expressions once each joint's own q and q̇ are
//! renamed to one pair of placeholders, and its inputs by their index relative to the joint's
//! (u_j driving each joint j) (the arena interns expressions, so that this is an equality
//! of ids, exact). Along the chain (one root, each joint with at most one child, joint k at depth
//! k) the joints between the root and the leaf are cut greedily into *segments*: runs of `count`
//! equal blocks of `period` consecutive joints (the longest cover first), or single joints. The
//! root and the leaf are segments of their own, so that their code keeps what is known there (no
//! parent's velocity, the ground's acceleration; no child's inertia).
//!
//! **Kernels.** Each segment's three passes are built over its first block's joints, with
//! placeholders ([`Role::Carried`]) for what the passes carry between blocks — the parent's velocity
//! V and acceleration a going down, the child's share Xᵀ I^a X of the articulated inertia and its
//! share of the bias force going up — and for what one pass stores per joint for the next: c_j, the
//! bias force p_j and the joint's sin q_j and cos q_j (first pass: the others evaluate no sine),
//! U_j, D_j and u_j (second). A stored value the block's code makes a number (a zero of c_j) is
//! used as that number rather than read back, and a carried value that every block handing it on
//! makes exactly zero is a zero in the kernel that reads it (a fixed point where a segment hands
//! itself its values). The emitter runs each kernel in a loop over the segment's blocks, reading
//! the first block's q and q̇ at the block's offset; the pivots D_j go to the runtime's check as in
//! the straight-line form, and the straight-line bindings stay what the compile-time checks and
//! the field Jacobian's tangent read.
//!
//! **The inverse dynamics** ([`looped_inverse`]) loops over the same segments: its pass root →
//! leaves (V_j, a_j with the given accelerations, and each link's force f_j = M_j a_j + V_j ×* M_j V_j,
//! stored) carries the parent's V and a, its pass leaves → root (F_j = f_j + the child's share,
//! τ_j = S_j·F_j + a_j q̈_j − τ_other_j) carries the share X_jᵀ F_j.
//!
//! On the spatial chain (`scripts/compare_pinocchio.py --spatial`, 2026-12-04): the field's code
//! 19–20 KB at 12, 24 and 48 links (36, 76 and 155 KB straight) and 50, 48 and 46 ns per joint
//! (straight 48, 70 and 59 in the same session); a looped block of three joints has 912
//! operations where three joints of the straight line have 879.

use symbolic::{Arena, Expr};

use crate::derive::straight::Builder;
use crate::layout::{Role, StandIn};
use crate::model::Model;

use super::algebra::times;
use super::passes::{bias_force, bound_joint, ground, link_acceleration, to_parent, velocity, velocity_product};
use super::recursion::{accelerate, bias_step, eliminate, own_terms};
use super::{Links, Spatial};

/// The shortest chain worth the loop form: below it the straight-line code fits the caches.
const SHORTEST: usize = 12;

/// The same for the inverse dynamics, whose straight line is smaller per joint: on the spatial
/// chain (2026-12-04, the EPYC, interleaved runs) the loops took 1.3 times the straight line's time
/// at 12 links, 0.95–0.98 at 14, 0.72 at 16 and 20, 0.69 at 24 and 48 (20–21 ns a joint, the
/// straight line's 16 at 12 links and 28–30 from 16 on).
const SHORTEST_INVERSE: usize = 14;

/// The longest block of joints looked for.
const LONGEST_PERIOD: usize = 6;

/// Where the loop form keeps a carried value ([`Role::Carried`]): `i` a joint of the block (its
/// offset from the block's first), `x` a component.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Place {
    /// The parent's velocity V (going down).
    Velocity(usize),
    /// The parent's acceleration a (going down).
    Acceleration(usize),
    /// The child's share of the articulated inertia, entry k of its upper triangle by rows.
    Inertia(usize),
    /// The child's share of the articulated bias force.
    Force(usize),
    /// c_j of joint i.
    Product(usize, usize),
    /// p_j = V_j ×* M_j V_j of joint i.
    Bias(usize, usize),
    /// U_j of joint i.
    Projected(usize, usize),
    /// D_j of joint i (a pivot).
    Pivot(usize),
    /// u_j = τ_j − S_j·p^A_j of joint i.
    JointForce(usize),
    /// q̈_j of joint i.
    JointAcceleration(usize),
    /// sin q_j of joint i (from the first pass, so that the others call no sine).
    Sine(usize),
    /// cos q_j of joint i.
    Cosine(usize),
    /// The inverse dynamics' force f_j = M_j a_j + V_j ×* M_j V_j of joint i's link.
    LinkForce(usize, usize),
    /// The inverse dynamics' τ_j of joint i.
    Torque(usize),
}

/// How many values a pass may carry between blocks ([`Place::carried`]).
const CARRIED: usize = 39;

impl Place {
    /// The index of a value carried between blocks (velocity 0–5, acceleration 6–11, the inertia's
    /// share 12–32 and the force's 33–38), or none for a value stored per joint.
    fn carried(self) -> Option<usize> {
        match self {
            Place::Velocity(x) => Some(x),
            Place::Acceleration(x) => Some(6 + x),
            Place::Inertia(k) => Some(12 + k),
            Place::Force(x) => Some(33 + x),
            _ => None,
        }
    }
}

/// One pass over one block: its bindings and what it stores where.
pub struct Kernel {
    pub bindings: Vec<(Expr, Expr)>,
    pub outputs: Vec<(Expr, Place)>,
}

/// A run of `count` equal blocks of `period` joints from joint `first`, with its passes' kernels:
/// the accelerations' three (root → leaves, leaves → root, root → leaves), the inverse dynamics'
/// two (root → leaves, leaves → root).
pub struct Segment {
    pub first: usize,
    pub period: usize,
    pub count: usize,
    pub passes: Vec<Kernel>,
}

/// The recursion's loop form: the chain's segments, root first, and what each placeholder stands
/// for (by its [`Role::Carried`] index).
pub struct Looped {
    pub segments: Vec<Segment>,
    pub places: Vec<Place>,
}

/// The chain's segments (first joint, period, count) where the model's joints form a chain of at
/// least `shortest` joints repetitive enough for the loop form to pay (see the module's notes);
/// `None` otherwise.
fn cut(model: &Model, arena: &mut Arena, links: &Links, shortest: usize) -> Option<Vec<(usize, usize, usize)>> {
    let n = links.joints.len();
    if n < shortest || !is_chain(links) {
        return None;
    }
    let kinds = kinds(model, arena, links);
    let cuts = segments(&kinds);
    // Worth it where the distinct code is at most half the straight line's.
    let distinct: usize = cuts.iter().map(|&(_, p, _)| p).sum();
    // (Without a repeat the distinct code is the whole chain's.)
    (2 * distinct <= n).then_some(cuts)
}

/// The loop form of the recursion over `links` where the model's joints form a chain long enough
/// and repetitive enough for it to pay (see the module's notes); `None` otherwise.
pub fn looped(model: &Model, arena: &mut Arena, links: &Links) -> Option<Looped> {
    let cuts = cut(model, arena, links, SHORTEST)?;
    let mut places = Vec::new();
    let blocks: Vec<Vec<usize>> = cuts.iter().map(|&(first, period, _)| (first..first + period).collect()).collect();
    let looping: Vec<bool> = cuts.iter().map(|c| c.2 >= 2).collect();
    let m = cuts.len();
    let offset = |k: usize, pass: usize| (3 * k + pass + 1) << 20;
    // Root → leaves: each segment's first pass, from the zeros of the velocity it is handed.
    let mut firsts = Vec::new();
    let mut zeros = vec![false; CARRIED];
    for k in 0..m {
        let build = |arena: &mut Arena, places: &mut Vec<Place>, z: &[bool]| {
            let mut b = Block::new(arena, &model.layout, places, offset(k, 0), z.to_vec());
            let out = first_pass(&mut b, links, &blocks[k], k + 1 == m);
            (b.done(out.0), out.1)
        };
        let ((kernel, stored), out) = fixed_point(arena, &mut places, zeros, looping[k], build, |(kernel, _)| kernel);
        firsts.push((kernel, stored));
        zeros = out;
    }
    // Leaves → root: the second passes, from the zeros of the shares they are handed.
    let mut seconds: Vec<Option<(Kernel, Kept)>> = (0..m).map(|_| None).collect();
    let mut zeros = vec![false; CARRIED];
    for k in (0..m).rev() {
        let stored = &firsts[k].1;
        let build = |arena: &mut Arena, places: &mut Vec<Place>, z: &[bool]| {
            let mut b = Block::new(arena, &model.layout, places, offset(k, 1), z.to_vec());
            let out = second_pass(&mut b, links, &blocks[k], k + 1 == m, stored);
            (b.done(out.0), out.1)
        };
        let (built, out) = fixed_point(arena, &mut places, zeros, looping[k], build, |(kernel, _)| kernel);
        seconds[k] = Some(built);
        zeros = out;
    }
    // Root → leaves: the third passes.
    let mut segments = Vec::new();
    let mut zeros = vec![false; CARRIED];
    let mut seconds = seconds.into_iter();
    for (k, (first_kernel, stored)) in firsts.into_iter().enumerate() {
        let (second_kernel, kept) = seconds.next().flatten().expect("every segment's second pass");
        let build = |arena: &mut Arena, places: &mut Vec<Place>, z: &[bool]| {
            let mut b = Block::new(arena, &model.layout, places, offset(k, 2), z.to_vec());
            let out = third_pass(&mut b, links, &blocks[k], k + 1 == m, (&stored, &kept));
            b.done(out)
        };
        let (third_kernel, out) = fixed_point(arena, &mut places, zeros, looping[k], build, |kernel| kernel);
        zeros = out;
        let (first, period, count) = cuts[k];
        segments.push(Segment { first, period, count, passes: vec![first_kernel, second_kernel, third_kernel] });
    }
    Some(Looped { segments, places })
}

/// The inverse dynamics τ = K(q, q̇, a) − τ_other (one Newton–Euler pass, as
/// [`super::kinetic_part`]) in the loop form, over the same segments as [`looped`]: each segment's
/// pass root → leaves (V_j, a_j and the link's force f_j, carrying the parent's V and a) and its
/// pass leaves → root (F_j = f_j + the child's share, τ_j, carrying the share X_jᵀ F_j); `None`
/// where the chain does not loop or is shorter than [`SHORTEST_INVERSE`]. The accelerations a are
/// the `Role::Acceleration` symbols, read at each block's offset as its q and q̇.
pub fn looped_inverse(model: &Model, arena: &mut Arena, links: &Links) -> Option<Looped> {
    let cuts = cut(model, arena, links, SHORTEST_INVERSE)?;
    let mut places = Vec::new();
    let blocks: Vec<Vec<usize>> = cuts.iter().map(|&(first, period, _)| (first..first + period).collect()).collect();
    let looping: Vec<bool> = cuts.iter().map(|c| c.2 >= 2).collect();
    let m = cuts.len();
    // Temporaries numbered apart from the accelerations' kernels' (and the straight line's).
    let offset = |k: usize, pass: usize| (1 << 40) + ((2 * k + pass + 1) << 20);
    let mut forward = Vec::new();
    let mut zeros = vec![false; CARRIED];
    for k in 0..m {
        let build = |arena: &mut Arena, places: &mut Vec<Place>, z: &[bool]| {
            let mut b = Block::new(arena, &model.layout, places, offset(k, 0), z.to_vec());
            let out = forward_pass(&mut b, links, &blocks[k], k + 1 == m);
            (b.done(out.0), out.1)
        };
        let (built, out) = fixed_point(arena, &mut places, zeros, looping[k], build, |(kernel, _)| kernel);
        forward.push(built);
        zeros = out;
    }
    let mut backward: Vec<Option<Kernel>> = (0..m).map(|_| None).collect();
    let mut zeros = vec![false; CARRIED];
    for k in (0..m).rev() {
        let own = &forward[k].1;
        let build = |arena: &mut Arena, places: &mut Vec<Place>, z: &[bool]| {
            let mut b = Block::new(arena, &model.layout, places, offset(k, 1), z.to_vec());
            let out = backward_pass(&mut b, links, &blocks[k], k + 1 == m, own);
            b.done(out)
        };
        let (kernel, out) = fixed_point(arena, &mut places, zeros, looping[k], build, |kernel| kernel);
        backward[k] = Some(kernel);
        zeros = out;
    }
    let segments = forward
        .into_iter()
        .zip(backward)
        .zip(cuts)
        .map(|(((down, _), up), (first, period, count))| Segment {
            first,
            period,
            count,
            passes: vec![down, up.expect("every segment's pass leaves → root")],
        })
        .collect();
    Some(Looped { segments, places })
}

/// The inverse dynamics root → leaves over `block`: V_j, a_j = X_j a_p + S_j a_j + c_j and the
/// link's force f_j = M_j a_j + V_j ×* M_j V_j (stored), from the parent's V and a (at the root
/// none and the ground's); hands on the last joint's V and a unless it is the chain's leaf.
fn forward_pass(b: &mut Block<'_, '_>, links: &Links, block: &[usize], leaf: bool) -> (Vec<(Expr, Place)>, Vec<Spatial>) {
    let syms = b.rec.syms;
    let root = block[0] == 0;
    let mut parent: Option<Spatial> = (!root).then(|| std::array::from_fn(|x| b.read(Place::Velocity(x))));
    let mut from: Spatial =
        if root { ground(b.rec.arena, links) } else { std::array::from_fn(|x| b.read(Place::Acceleration(x))) };
    let mut outputs = Vec::new();
    let mut own = Vec::new();
    for (i, &j) in block.iter().enumerate() {
        let joint = bound_joint(&mut b.rec, &links.joints[j]);
        let v = velocity(&mut b.rec, &joint, parent.as_ref(), syms.qd[j]);
        let c = velocity_product(&mut b.rec, (&links.joints[j], &joint), parent.as_ref(), &v, syms.qd[j]);
        let a = link_acceleration(&mut b.rec, &joint, &from, syms.qdd[j], Some(&c));
        let ma = times(b.rec.arena, &links.inertias[j], &a);
        let bias = bias_force(&mut b.rec, &links.inertias[j], &v);
        let f: Spatial = std::array::from_fn(|x| {
            let e = b.rec.arena.add2(ma[x], bias[x]);
            b.rec.bind(e)
        });
        outputs.extend((0..6).map(|x| (f[x], Place::LinkForce(i, x))));
        own.push(f);
        parent = Some(v);
        from = a;
    }
    store_trig(b, links, block, &mut outputs);
    if !leaf {
        let v = parent.expect("a block has joints");
        outputs.extend((0..6).map(|x| (v[x], Place::Velocity(x))));
        outputs.extend((0..6).map(|x| (from[x], Place::Acceleration(x))));
    }
    (outputs, own)
}

/// The inverse dynamics leaves → root over `block`: F_j = f_j + the child's share (none at the
/// leaf) and τ_j = S_j·F_j + a_j q̈_j (the armature) − τ_other_j; hands on the first joint's share
/// X_jᵀ F_j unless it is the root.
fn backward_pass(b: &mut Block<'_, '_>, links: &Links, block: &[usize], leaf: bool, own: &[Spatial]) -> Vec<(Expr, Place)> {
    let syms = b.rec.syms;
    let root = block[0] == 0;
    let own: Vec<Spatial> =
        (0..block.len()).map(|i| std::array::from_fn(|x| b.stored(own[i][x], Place::LinkForce(i, x)))).collect();
    let mut child: Option<Spatial> = (!leaf).then(|| std::array::from_fn(|x| b.read(Place::Force(x))));
    let mut outputs = Vec::new();
    for (i, &j) in block.iter().enumerate().rev() {
        let joint = later_joint(b, links, j, i);
        let f: Spatial = std::array::from_fn(|x| {
            let mut terms = vec![own[i][x]];
            terms.extend(child.iter().map(|c| c[x]));
            let e = b.rec.arena.add(&terms);
            b.rec.bind(e)
        });
        let sf = b.rec.arena.dot(&joint.s, &f);
        let armature = b.rec.arena.mul2(links.armature[j], syms.qdd[j]);
        let with = b.rec.arena.add2(sf, armature);
        let tau = b.rec.arena.sub(with, links.tau[j]);
        outputs.push((b.rec.bind(tau), Place::Torque(i)));
        child = (i > 0 || !root).then(|| to_parent(&mut b.rec, &joint, &f));
    }
    if let Some(share) = child {
        outputs.extend((0..6).map(|x| (share[x], Place::Force(x))));
    }
    outputs
}

/// A kernel built for the zeros of the carried values it is handed (`zeros`, by their index in
/// the carried places), and the zeros of those it hands on. A segment that loops hands itself its
/// own outputs too: it is rebuilt with the zeros both give until its own keep them (at most once
/// per carried value).
fn fixed_point<T>(
    arena: &mut Arena,
    places: &mut Vec<Place>,
    mut zeros: Vec<bool>,
    looping: bool,
    build: impl Fn(&mut Arena, &mut Vec<Place>, &[bool]) -> T,
    kernel: impl Fn(&T) -> &Kernel,
) -> (T, Vec<bool>) {
    loop {
        let built = build(arena, places, &zeros);
        let out = handed_on(arena, kernel(&built), zeros.len());
        if !looping || zeros.iter().zip(&out).all(|(&z, &o)| !z || o) {
            return (built, out);
        }
        zeros = zeros.iter().zip(&out).map(|(&z, &o)| z && o).collect();
    }
}

/// Which of the carried values a kernel hands on are exactly zero (all of them where it hands
/// none on: a leaf's or root's end).
fn handed_on(arena: &Arena, kernel: &Kernel, len: usize) -> Vec<bool> {
    let mut zero = vec![true; len];
    for &(e, place) in &kernel.outputs {
        if let Some(k) = place.carried() {
            zero[k] = e == arena.zero();
        }
    }
    zero
}

/// Whether the links are a chain in joint order: joint 0 the root, joint k + 1 the only child of k.
fn is_chain(links: &Links) -> bool {
    let n = links.joints.len();
    links.order.iter().copied().eq(0..n)
        && (0..n).all(|j| links.parents[j] == j.checked_sub(1))
        && links.joints.iter().all(|j| j.spin.is_none())
}

/// Each joint's kind: the ids of its quantities with its own q and q̇ renamed, equal for two joints
/// of one kind.
fn kinds(model: &Model, arena: &mut Arena, links: &Links) -> Vec<Vec<Expr>> {
    let syms = &model.layout;
    let (q, qd) = (syms.symbol(arena, Role::StandIn(StandIn::Position)), syms.symbol(arena, Role::StandIn(StandIn::Velocity)));
    (0..links.joints.len())
        .map(|j| {
            let joint = &links.joints[j];
            let mut es = joint_exprs(joint);
            es.push(arena.int(i64::from(joint.turn.is_some())));
            es.extend(links.inertias[j].as_flattened());
            es.push(links.armature[j]);
            es.push(links.tau[j]);
            let mut renamed = vec![(syms.q[j], q), (syms.qd[j], qd)];
            // An input by its index relative to the joint's (u_j on every joint: one kind).
            for u in arena.free_symbols(links.tau[j]) {
                if let Some(Role::Input(k)) = syms.role(u) {
                    // (Indices are far below isize::MAX: each is a symbol of the model.)
                    let relative = k as isize - j as isize;
                    renamed.push((u, syms.symbol(arena, Role::StandIn(StandIn::Input(relative)))));
                }
            }
            es.into_iter().map(|e| arena.subs(e, &renamed)).collect()
        })
        .collect()
}

/// The chain cut into segments (first joint, period, count): the root alone, then greedily the
/// longest cover of equal blocks (two at least) among the joints before the leaf, then the leaf.
fn segments(kinds: &[Vec<Expr>]) -> Vec<(usize, usize, usize)> {
    let n = kinds.len();
    let mut out = vec![(0, 1, 1)];
    let mut i = 1;
    while i + 1 < n {
        let mut best = (1, 1);
        for period in 1..=LONGEST_PERIOD {
            let mut count = 1;
            while i + (count + 1) * period < n && (0..period).all(|k| kinds[i + k] == kinds[i + count * period + k]) {
                count += 1;
            }
            if count >= 2 && period * count > best.0 * best.1 {
                best = (period, count);
            }
        }
        let (period, count) = if best.1 >= 2 { best } else { (1, 1) };
        out.push((i, period, count));
        i += period * count;
    }
    if n > 1 {
        out.push((n - 1, 1, 1));
    }
    out
}

/// A kernel's builder: its bindings (temporaries numbered from `offset`, apart from the straight
/// line's), the placeholders it reads and which carried values it is handed as exact zeros.
struct Block<'a, 'b> {
    rec: Builder<'a>,
    places: &'b mut Vec<Place>,
    zeros: Vec<bool>,
}

/// A first pass's c_j and p_j for the next passes, by joint of the block.
type Stored = (Vec<Spatial>, Vec<Spatial>);

/// A second pass's U_j, D_j and u_j for the third, by joint of the block.
type Kept = Vec<(Spatial, Expr, Expr)>;

impl<'a, 'b> Block<'a, 'b> {
    fn new(
        arena: &'a mut Arena,
        syms: &'a crate::layout::Layout,
        places: &'b mut Vec<Place>,
        offset: usize,
        zeros: Vec<bool>,
    ) -> Self {
        Block { rec: Builder { arena, syms, bindings: Vec::new(), offset }, places, zeros }
    }

    /// The placeholder of `place` (zero where it is handed a zero).
    fn read(&mut self, place: Place) -> Expr {
        if place.carried().is_some_and(|k| self.zeros[k]) {
            return self.rec.arena.zero();
        }
        let k = self.places.len();
        self.places.push(place);
        self.rec.syms.symbol(self.rec.arena, Role::Carried(k))
    }

    /// A stored value as the next pass reads it: the number the storing pass made it, or its place.
    fn stored(&mut self, value: Expr, place: Place) -> Expr {
        if self.rec.arena.as_num(value).is_some() { value } else { self.read(place) }
    }

    fn done(self, outputs: Vec<(Expr, Place)>) -> Kernel {
        Kernel { bindings: self.rec.bindings, outputs }
    }
}

/// Root → leaves over `block`: V_j, c_j and p_j, from the parent's V (none at the root); hands on
/// the last joint's V unless it is the chain's leaf.
fn first_pass(b: &mut Block<'_, '_>, links: &Links, block: &[usize], leaf: bool) -> (Vec<(Expr, Place)>, Stored) {
    let syms = b.rec.syms;
    let mut parent: Option<Spatial> = (block[0] != 0).then(|| std::array::from_fn(|x| b.read(Place::Velocity(x))));
    let mut stored: Stored = (Vec::new(), Vec::new());
    let mut outputs = Vec::new();
    for (i, &j) in block.iter().enumerate() {
        let joint = bound_joint(&mut b.rec, &links.joints[j]);
        let v = velocity(&mut b.rec, &joint, parent.as_ref(), syms.qd[j]);
        let c = velocity_product(&mut b.rec, (&links.joints[j], &joint), parent.as_ref(), &v, syms.qd[j]);
        let bias = bias_force(&mut b.rec, &links.inertias[j], &v);
        outputs.extend((0..6).map(|x| (c[x], Place::Product(i, x))));
        outputs.extend((0..6).map(|x| (bias[x], Place::Bias(i, x))));
        stored.0.push(c);
        stored.1.push(bias);
        parent = Some(v);
    }
    store_trig(b, links, block, &mut outputs);
    if !leaf {
        let v = parent.expect("a block has joints");
        outputs.extend((0..6).map(|x| (v[x], Place::Velocity(x))));
    }
    (outputs, stored)
}

/// A first pass's stores of each joint's sin q_j and cos q_j (where its quantities use them), for
/// the later passes to read instead of evaluating them again.
fn store_trig(b: &mut Block<'_, '_>, links: &Links, block: &[usize], outputs: &mut Vec<(Expr, Place)>) {
    for (i, &j) in block.iter().enumerate() {
        let ((sin, cos), turns) = trig(b.rec.arena, &links.joints[j], b.rec.syms.q[j]);
        if turns {
            outputs.push((sin, Place::Sine(i)));
            outputs.push((cos, Place::Cosine(i)));
        }
    }
}

/// sin q and cos q of a joint's coordinate q, and whether its quantities use either.
fn trig(arena: &mut Arena, joint: &super::Joint, q: Expr) -> ((Expr, Expr), bool) {
    let (sin, cos) = (arena.call(symbolic::Func::Sin, &[q]), arena.call(symbolic::Func::Cos, &[q]));
    let zero = arena.zero();
    let es = joint_exprs(joint);
    let probed = arena.subs_many(&es, &[(sin, zero), (cos, zero)]);
    ((sin, cos), probed != es)
}

/// A joint's expressions, field by field.
fn joint_exprs(j: &super::Joint) -> Vec<Expr> {
    let mut es: Vec<Expr> = Vec::new();
    j.map(|e| {
        es.push(e);
        e
    });
    es
}

/// Joint `j` (joint `i` of the block) as a later pass binds it: its sine and cosine read from
/// where the first pass stored them.
fn later_joint(b: &mut Block<'_, '_>, links: &Links, j: usize, i: usize) -> super::Joint {
    let q = b.rec.syms.q[j];
    let ((sin, cos), turns) = trig(b.rec.arena, &links.joints[j], q);
    let joint = links.joints[j];
    if !turns {
        return bound_joint(&mut b.rec, &joint);
    }
    let map = [(sin, b.read(Place::Sine(i))), (cos, b.read(Place::Cosine(i)))];
    let read = joint.map(|e| b.rec.arena.subs(e, &map));
    bound_joint(&mut b.rec, &read)
}

/// Leaves → root over `block`: I^A_j, U_j, D_j and u_j, from the child's shares (none at the
/// leaf); hands on the first joint's shares unless it is the root.
fn second_pass(b: &mut Block<'_, '_>, links: &Links, block: &[usize], leaf: bool, stored: &Stored) -> (Vec<(Expr, Place)>, Kept) {
    let p = block.len();
    let root = block[0] == 0;
    let c: Vec<Spatial> = (0..p).map(|i| std::array::from_fn(|x| b.stored(stored.0[i][x], Place::Product(i, x)))).collect();
    let own: Vec<Spatial> = (0..p).map(|i| std::array::from_fn(|x| b.stored(stored.1[i][x], Place::Bias(i, x)))).collect();
    let (mut inertia, mut force): (Option<Vec<Expr>>, Option<Spatial>) = if leaf {
        (None, None)
    } else {
        (Some((0..21).map(|k| b.read(Place::Inertia(k))).collect()), Some(std::array::from_fn(|x| b.read(Place::Force(x)))))
    };
    let mut kept = vec![None; p];
    for (i, &j) in block.iter().enumerate().rev() {
        let joint = later_joint(b, links, j, i);
        let mut terms = own_terms(&links.inertias[j]);
        if let Some(shares) = &inertia {
            for (k, (x, y)) in upper().enumerate() {
                terms[6 * x + y].push(shares[k]);
            }
        }
        let up = i > 0 || !root;
        let el = eliminate(&mut b.rec, &joint, links.armature[j], &terms, up);
        let mut forces: Vec<Vec<Expr>> = own[i].iter().map(|&e| vec![e]).collect();
        if let Some(f) = &force {
            for x in 0..6 {
                forces[x].push(f[x]);
            }
        }
        let (uu, passed) = bias_step(&mut b.rec, &joint, links.tau[j], &forces, &c[i], &el, up);
        inertia = el.moved.map(|m| upper().map(|(x, y)| m[x][y]).collect());
        force = passed;
        kept[i] = Some((el.u, el.d, uu));
    }
    let kept: Kept = kept.into_iter().map(|k| k.expect("every joint of the block")).collect();
    let mut outputs = Vec::new();
    for (i, &(u, d, uu)) in kept.iter().enumerate() {
        outputs.extend((0..6).map(|x| (u[x], Place::Projected(i, x))));
        outputs.push((d, Place::Pivot(i)));
        outputs.push((uu, Place::JointForce(i)));
    }
    if let (Some(shares), Some(f)) = (inertia, force) {
        outputs.extend(shares.into_iter().enumerate().map(|(k, e)| (e, Place::Inertia(k))));
        outputs.extend((0..6).map(|x| (f[x], Place::Force(x))));
    }
    (outputs, kept)
}

/// Root → leaves over `block`: a'_j, q̈_j and a_j, from the parent's a (the ground's at the root);
/// hands on the last joint's a unless it is the chain's leaf.
fn third_pass(
    b: &mut Block<'_, '_>,
    links: &Links,
    block: &[usize],
    leaf: bool,
    (stored, kept): (&Stored, &Kept),
) -> Vec<(Expr, Place)> {
    let mut from: Spatial =
        if block[0] == 0 { ground(b.rec.arena, links) } else { std::array::from_fn(|x| b.read(Place::Acceleration(x))) };
    let mut outputs = Vec::new();
    for (i, &j) in block.iter().enumerate() {
        let joint = later_joint(b, links, j, i);
        let c: Spatial = std::array::from_fn(|x| b.stored(stored.0[i][x], Place::Product(i, x)));
        let (u, d, uu) = kept[i];
        let u: Spatial = std::array::from_fn(|x| b.stored(u[x], Place::Projected(i, x)));
        let d = b.stored(d, Place::Pivot(i));
        let uu = b.stored(uu, Place::JointForce(i));
        let (qdd, a) = accelerate(&mut b.rec, &joint, &from, &c, (&u, uu, d));
        outputs.push((qdd, Place::JointAcceleration(i)));
        from = a;
    }
    if !leaf {
        outputs.extend((0..6).map(|x| (from[x], Place::Acceleration(x))));
    }
    outputs
}

/// The upper triangle's entries (x ≤ y) of a 6 × 6, by rows.
fn upper() -> impl Iterator<Item = (usize, usize)> {
    (0..6).flat_map(|x| (x..6).map(move |y| (x, y)))
}

#[cfg(test)]
mod tests {
    use rustc_hash::FxHashMap;
    use symbolic::Expr;

    use super::{Looped, Place};
    use crate::layout::Role;

    /// Where a place keeps its value for the block at joint `k`: carried values by component,
    /// stored ones by joint and component (what the emitter's arrays index).
    fn key(place: Place, k: usize) -> (u8, usize, usize) {
        match place {
            Place::Velocity(x) => (0, 0, x),
            Place::Acceleration(x) => (1, 0, x),
            Place::Inertia(x) => (2, 0, x),
            Place::Force(x) => (3, 0, x),
            Place::Product(i, x) => (4, k + i, x),
            Place::Bias(i, x) => (5, k + i, x),
            Place::Projected(i, x) => (6, k + i, x),
            Place::Pivot(i) => (7, k + i, 0),
            Place::JointForce(i) => (8, k + i, 0),
            Place::JointAcceleration(i) => (9, k + i, 0),
            Place::Sine(i) => (10, k + i, 0),
            Place::Cosine(i) => (11, k + i, 0),
            Place::LinkForce(i, x) => (12, k + i, x),
            Place::Torque(i) => (13, k + i, 0),
        }
    }

    /// Runs the loop form as the emitter writes it (each segment's kernels over its blocks, in the
    /// passes' orders: the second leaves → root), each kernel evaluated by the arena at the block's
    /// offset: what the passes kept.
    fn run(
        arena: &symbolic::Arena,
        looped: &Looped,
        n: usize,
        role: &dyn Fn(Expr) -> Option<Role>,
        value: &dyn Fn(Expr) -> f64,
        (state, inputs, accelerations): (&[f64], &[f64], &[f64]),
    ) -> FxHashMap<(u8, usize, usize), f64> {
        let mut kept: FxHashMap<(u8, usize, usize), f64> = FxHashMap::default();
        for pass in 0..looped.segments[0].passes.len() {
            let segments: Vec<_> =
                if pass == 1 { looped.segments.iter().rev().collect() } else { looped.segments.iter().collect() };
            for s in segments {
                let blocks: Vec<usize> = if pass == 1 { (0..s.count).rev().collect() } else { (0..s.count).collect() };
                for m in blocks {
                    let k = s.first + m * s.period;
                    let kernel = &s.passes[pass];
                    let read = |e: Expr| match role(e) {
                        Some(Role::Carried(c)) => *kept.get(&key(looped.places[c], k)).expect("written before it is read"),
                        Some(Role::Coordinate(j)) if (s.first..s.first + s.period).contains(&j) => state[j + k - s.first],
                        Some(Role::Velocity(j)) if (s.first..s.first + s.period).contains(&j) => state[n + j + k - s.first],
                        Some(Role::Input(u)) if s.count > 1 => inputs[u + k - s.first],
                        Some(Role::Acceleration(j)) if (s.first..s.first + s.period).contains(&j) => {
                            accelerations[j + k - s.first]
                        }
                        _ => value(e),
                    };
                    let outputs: Vec<Expr> = kernel.outputs.iter().map(|o| o.0).collect();
                    let values = arena.eval_bound(&kernel.bindings, &outputs, &read);
                    for (o, v) in kernel.outputs.iter().zip(values) {
                        kept.insert(key(o.1, k), v);
                    }
                }
            }
        }
        kept
    }

    /// The loop form of `src` (`n` joints) cut as `cuts`, run block by block against the straight
    /// line's q̈ and pivots at one state (`parameters` by name), and the inverse dynamics' loop form
    /// against its straight line at some accelerations: the straight line's recursion.
    fn agrees(
        src: &str,
        n: usize,
        cuts: &[(usize, usize, usize)],
        parameters: &[(&str, f64)],
    ) -> (crate::model::Model, symbolic::Arena, crate::derive::dynamics::Recursive) {
        let (model, mut arena) = crate::fixtures::lowered_model(src);
        let r = super::super::recursion(&model, &mut arena).expect("the recursion");
        let looped = r.looped.as_ref().expect("the loop form");
        let got: Vec<_> = looped.segments.iter().map(|s| (s.first, s.period, s.count)).collect();
        assert_eq!(got, cuts);
        let state: Vec<f64> = (0..2 * n).map(|i| ((i * 37 % 23) as f64 / 23.0 - 0.5) * if i < n { 2.5 } else { 1.5 }).collect();
        let role = |e: Expr| model.role(e);
        let value = |e: Expr| match model.role(e) {
            Some(Role::Coordinate(j)) => state[j],
            Some(Role::Velocity(j)) => state[n + j],
            Some(Role::Parameter(k)) => parameters.iter().find(|p| model.parameters[k] == p.0).expect("a parameter").1,
            Some(Role::Input(k)) => 0.4 - 0.07 * k as f64,
            Some(Role::Acceleration(j)) => 0.9 - 0.13 * (j % 11) as f64,
            other => panic!("no value for {other:?}"),
        };
        let mut outputs = r.accelerations.clone();
        outputs.extend(&r.pivots);
        let straight = arena.eval_bound(&r.bindings, &outputs, &value);
        let inputs: Vec<f64> = (0..n).map(|k| 0.4 - 0.07 * k as f64).collect();
        let accelerations: Vec<f64> = (0..n).map(|j| 0.9 - 0.13 * (j % 11) as f64).collect();
        let kept = run(&arena, looped, n, &role, &value, (&state, &inputs, &accelerations));
        let qdd = (0..n).map(|j| kept[&key(Place::JointAcceleration(0), j)]);
        let pivots = (0..n).map(|j| kept[&key(Place::Pivot(0), j)]);
        let scale = straight.iter().fold(0.0_f64, |m, x| m.max(x.abs()));
        for (a, b) in qdd.chain(pivots).zip(&straight) {
            assert!((a - b).abs() <= 1e-12 * scale, "{a} against {b}");
        }
        // The inverse dynamics, looped over the same cut, against its straight line.
        let k = crate::derive::dynamics::kinetics::kinetics(&model, &mut arena, &r);
        let (inverse, straight) = (k.inverse_looped.expect("the inverse dynamics' loop form"), k.inverse_dynamics.expect("τ"));
        let got: Vec<_> = inverse.segments.iter().map(|s| (s.first, s.period, s.count, s.passes.len())).collect();
        assert_eq!(got, cuts.iter().map(|&(f, p, c)| (f, p, c, 2)).collect::<Vec<_>>());
        let tau = arena.eval_bound(&straight.bindings, &straight.outputs, &value);
        let kept = run(&arena, &inverse, n, &role, &value, (&state, &inputs, &accelerations));
        let scale = tau.iter().fold(0.0_f64, |m, x| m.max(x.abs()));
        for (j, b) in tau.iter().enumerate() {
            let a = kept[&key(Place::Torque(0), j)];
            assert!((a - b).abs() <= 1e-12 * scale, "τ_{j}: {a} against {b}");
        }
        (model, arena, r)
    }

    /// A chain of joint items, a hinge about x behind an offset and a slider along z in turn, with
    /// damping on every joint, armatures on the hinges (no sines in the sliders' kernels) and an
    /// input of its own driving each joint (read at the block's offset): root, six blocks of two,
    /// leaf.
    #[test]
    fn hinges_and_sliders_loop_as_their_straight_line() {
        let joints: Vec<String> = (1..=14)
            .map(|k| {
                let parent = if k == 1 { String::new() } else { format!("parent = l{}, ", k - 1) };
                let kind = if k % 2 == 1 {
                    "kind = revolute, origin = [0.1, 0, -0.2], axis = [1, 0, 0], armature = 0.01"
                } else {
                    "kind = prismatic, origin = [0, 0.05, 0], axis = [0, 0, 1]"
                };
                format!(
                    "joint(name = q{k}, {kind}, {parent}child = l{k}, damping = d, input = u{k}, mass = m, centre = [0, 0, -0.1], \
                     inertia = diag(0.002, 0.003, 0.001))"
                )
            })
            .collect();
        let src = format!(
            "#[mechanics({}, gravity = [0, -g, 0])] pub struct Chain {{ pub m: f64, pub d: f64, pub g: f64 }}",
            joints.join(", ")
        );
        agrees(&src, 14, &[(0, 1, 1), (1, 2, 6), (13, 1, 1)], &[("m", 0.7), ("d", 0.05), ("g", 9.81)]);
    }

    /// A 20-link chain in space (turning about z, y and x in turn): cut into its root, six blocks
    /// of three joints and its leaf; its kernels run block by block give the straight line's q̈
    /// and pivots (the emitter's loops run the same kernels: `tests/spatial.rs` checks them against
    /// the articulated-body algorithm by hand), and a looped joint's code stays within a tenth of
    /// a straight-line joint's operations.
    #[test]
    fn a_long_chains_loops_are_its_straight_line() {
        let n = 20;
        let src = crate::fixtures::spatial_chain_struct_with("Chain", n, "dynamics = recursive");
        let parameters = [("m", 1.3), ("l", 0.45), ("i", 0.021), ("j", 0.013), ("g", 9.81)];
        let (model, arena, r) = agrees(&src, n, &[(0, 1, 1), (1, 3, 6), (19, 1, 1)], &parameters);
        let looped = r.looped.as_ref().expect("the loop form");
        let mut outputs = r.accelerations.clone();
        outputs.extend(&r.pivots);
        // Operations per joint: a looped block's three kernels, against the straight line's
        // marginal joint (its 20 links' operations less its 17's, over three).
        let view = model.view(&arena);
        let ops = |bindings: &[(Expr, Expr)], outputs: &[Expr]| {
            let ops =
                symbolic::emit_bound(&arena, bindings, outputs, &|s| crate::emit::codegen::symbol_tokens(&view, s), "__w").ops;
            ops.adds + ops.muls
        };
        let block: usize =
            looped.segments[1].passes.iter().map(|k| ops(&k.bindings, &k.outputs.iter().map(|o| o.0).collect::<Vec<_>>())).sum();
        let whole = ops(&r.bindings, &outputs);
        let shorter = crate::fixtures::spatial_chain_struct_with("Chain", n - 3, "dynamics = recursive");
        let (short_model, mut short_arena) = crate::fixtures::lowered_model(&shorter);
        let short = super::super::recursion(&short_model, &mut short_arena).expect("the recursion");
        let mut short_outputs = short.accelerations.clone();
        short_outputs.extend(&short.pivots);
        let short_view = short_model.view(&short_arena);
        let fewer = symbolic::emit_bound(
            &short_arena,
            &short.bindings,
            &short_outputs,
            &|s| crate::emit::codegen::symbol_tokens(&short_view, s),
            "__w",
        )
        .ops;
        let marginal = whole - (fewer.adds + fewer.muls);
        // 912 against 879 (the carried values read back where the straight line adds the child's
        // share into its parent's sums).
        assert!(10 * block <= 11 * marginal, "a block of three looped joints {block} operations, three straight ones {marginal}");
    }
}
