//! The articulated-body recursion of rigid bodies and particles in space (Featherstone's, over
//! 6-D spatial vectors), for models whose bodies hang on a tree of joints of one coordinate each —
//! a robot arm in relative angles, a gimbal, a top in Euler angles, a pendulum on a cart — or of an
//! orientation (a floating base, a ball joint: three joints of one body rate each, see [`Joint`]).
//!
//! **Which models.** Every body and particle ([`crate::model::Body`]) has a pose (R_b, r_b) of the
//! coordinates alone, with constant masses and inertias; the written Lagrangian (besides the
//! bodies' energies) is free of velocities, and gravity acts as `gravity = g`. The coordinates that
//! move a body must lie on one path of a tree built as for the translational recursion
//! ([`super::topology::tree_of`]). Each joint j then gets a *link*: a frame F_j and an origin o_j,
//!
//! ```text
//! F_j = F_p A_j(q_j),      o_j = o_p + F_p ℓ_j(q_j)        (F = 1, o = 0 above the roots)
//! ```
//!
//! read off the bodies: F_j from the frame of the first rigid body at j (or, where j moves none,
//! below it) with the coordinates below j at 0, o_j from the first body's centre likewise, and
//! A_j = (F_pᵀ F_j), ℓ_j = F_pᵀ (o_j − o_p) with every coordinate but q_j at 0 — functions of q_j
//! alone by construction; where the joint turns about a fixed axis, o_j is then moved onto it
//! ([`read::on_axis`]: ℓ_j constant). An orientation's link is read the same way with its quaternion
//! alone turning (its components shifted so that the identity is zero), its origin moved onto its
//! centre of rotation and its body axes read off A at the identity, both proved for every
//! quaternion (`read::turning`); its place in the tree is where it is declared among the
//! coordinates. Bodies that no coordinate moves add a constant to L and E. Each body b at joint j must then sit rigidly on its link:
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
//! Two forms make the code shorter than the formulas as written. The velocity product is
//! c_j = (V_j × S_j) q̇_j + S_j' q̇_j², from the link's own velocity: X_j' = −(S_j ×) X_j for every
//! joint read this way (with A_jᵀ A_j' = \[s_ω\]× and s_v = A_jᵀ ℓ_j'), so X_j' V_p = V_j × S_j — a
//! revolute joint's c_j then has four entries, each one product. And a joint that turns about an
//! axis ±e_k of its link, at a constant ℓ_j, behind a constant A_j(0) with six zeros (a permutation
//! with signs: the quarter turns of most robots' files) is two transforms ([`Turn`]):
//! X_j = X_R X_C, X_C by A_j(0) and ℓ_j (constants, mostly zero), X_R by the turn alone (cos q_j
//! and sin q_j mixing two axes) — the articulated inertia X_jᵀ I^a_j X_j and the motions and forces
//! between the links are moved through both, bound in between, where the whole X_j would multiply
//! every sine and cosine into ℓ_j's terms.
//!
//! The recursion gives q̈ (and, by [`super::tangent`], the field Jacobian — or, where every joint
//! is a screw or an orientation's, by the runtime's analytic derivatives of the inverse dynamics:
//! [`link_jacobian`]). The same links give the
//! rest of the model's API as passes along them ([`super::kinetics()`]), by the recursive
//! Newton–Euler algorithm — a_j = X_j a_p + S_j a_j (+ c_j), F_j = M_j a_j (+ p_j) + Σ X_cᵀ F_c,
//! (M a + …)_j = S_j·F_j: f = τ − that pass at q̈ = 0 with the motion and gravity; M by the
//! composite rigid bodies (generated up to [`super::CRBA_MAX_PAIRS`] pairs of joints one above the
//! other, the runtime's `LinkDynamics::mass_matrix` from the joints and inertias above); T = Σ ½ V_jᵀ M_j V_j; p from the links'
//! momenta M_j V_j; the bodies' gravitational term Σ_j g·(m_j o_j + F_j h_j) (h_j the link's first
//! moment) with the frames and origins along the tree. Its impacts, modes, inputs and sensitivities
//! take the same forms as along a tree of directions (M w by [`product`], K = M a + … by
//! [`kinetic_part`], with gravity in K rather than τ), so that a model without reductions or a
//! discrete system derives nothing dense. The runtime factors M along the same links (its
//! `LinkFactor`: the articulated-body algorithm with no velocity and no gravity, O(n) to factor and
//! per solve, from each joint's A_j, ℓ_j and S_j and the links' inertias evaluated at the state):
//! the model's mass operator, with which a constrained model solves its saddle point (and its
//! linearisation, sensitivities and projections theirs); the saddle point is differentiated along
//! the links (the runtime's analytic ∂K/∂x where every joint is a screw, [`link_jacobian`]; the
//! tangent of K otherwise).

mod algebra;
mod factor;
mod jacobian;
pub mod looped;
mod passes;
mod read;
mod recursion;

use symbolic::{Arena, Expr, Mat3, Vec3};

pub(super) use factor::{factor, mass_entries};
pub use jacobian::{LinkJacobian, link_jacobian};
pub(super) use passes::{energy, forcing, kinetic_part, lagrangian, momenta, product, static_forcing};
pub use recursion::recursion;

use algebra::joined;

/// A spatial motion (ω, v) or force (n, f) in a link's axes.
pub type Spatial = [Expr; 6];

/// A symmetric spatial inertia.
pub type Inertia = [[Expr; 6]; 6];

/// A joint's transform from its parent's link: A_j, ℓ_j, their derivatives along q_j, and its
/// motion subspace S_j = (vee(A_jᵀ A_j'), A_jᵀ ℓ_j') with S_j' — as read ([`Links::joints`]), or
/// bound to temporaries in a pass ([`passes::joints`]).
///
/// An orientation's three joints (its body angular velocities ω_k as their rates, a ball or
/// floating joint) are a chain of massless links: the first turns by the whole rotation A(q)
/// about its link's origin (ℓ constant) with S = (s_1, 0), the second and third add (s_2, 0) and
/// (s_3, 0) with A = 1 and ℓ = 0 (s_k the body axes in the link's). The first carries the
/// link's rate of turning Ω = Σ s_k ω_k (`spin`), with which its velocity product is
/// c = (X V_p) × (Ω, 0) — Ȧ = A \[Ω\]× — and the others' vanish: the three joints' velocities and
/// accelerations then reach the last link exactly (the massless links in between carry no force of
/// their own, so that the recursion's elimination is the rigid body's).
#[derive(Clone, Copy)]
pub struct Joint {
    pub a: Mat3,
    pub l: Vec3,
    pub da: Mat3,
    pub dl: Vec3,
    pub s: Spatial,
    pub ds: Spatial,
    pub spin: Option<Vec3>,
    /// A_j = C_j R_j(q_j) for a joint turning about an axis of its link's frame (S_j = (±e_k, 0),
    /// ℓ_j constant): the constant C_j and the turn R_j (see [`Turn`]).
    pub turn: Option<Turn>,
}

/// A revolute joint's transform in two factors, A_j = C R(q_j): the constant C = A_j(0) and the
/// turn R = exp(q_j \[s_ω\]×) about its axis s_ω = ±e_k, whose entries are cos q_j, ±sin q_j, zero
/// and one. Transforming an inertia by the turn first and then by the constant part (a permutation
/// with signs for most robots' files, and ℓ_j) takes a fraction of the multiplications the whole
/// X_jᵀ I X_j does: the turn mixes two axes, the constant part multiplies by constants, most of
/// them zero.
#[derive(Clone, Copy)]
pub struct Turn {
    pub fixed: Mat3,
    pub turn: Mat3,
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
    /// The written Lagrangian's potential −V(t, q) and the gravitational term of the bodies that do
    /// not move (a constant).
    pub rest: Expr,
    /// Each joint's armature a_j: the written Lagrangian's terms ½ a_j q̇_j² (a rotor's inertia
    /// reflected onto its joint, constant), zero for most. It adds a_j to the joint's pivot D_j
    /// and to M_jj, a_j q̈_j to its generalized force, ½ a_j q̇_j² to T and a_j q̇_j to p_j.
    pub armature: Vec<Expr>,
}

impl Links {
    /// Whether a joint has an armature.
    pub fn has_armature(&self, arena: &Arena) -> bool {
        self.armature.iter().any(|&a| a != arena.zero())
    }
}

impl Joint {
    /// The joint with `f` applied to each of its expressions, field by field in declaration order
    /// (A, ℓ, A', ℓ', S, S', the spin, the turn's factors).
    pub(super) fn map(&self, mut f: impl FnMut(Expr) -> Expr) -> Joint {
        Joint {
            a: self.a.map(|row| row.map(&mut f)),
            l: self.l.map(&mut f),
            da: self.da.map(|row| row.map(&mut f)),
            dl: self.dl.map(&mut f),
            s: self.s.map(&mut f),
            ds: self.ds.map(&mut f),
            spin: self.spin.map(|w| w.map(&mut f)),
            turn: self.turn.map(|t| Turn { fixed: t.fixed.map(|row| row.map(&mut f)), turn: t.turn.map(|row| row.map(&mut f)) }),
        }
    }

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
        // A screw whose S_j the algebra leaves as a function of q_j (rotations by an angle that
        // is not a multiple of π/12 written in the file: cos² + sin² that no rule folds): S_j' is
        // zero by the zero test, and S_j its value at q_j = 0 — the recursion's velocity product
        // loses its S_j' term, S_j is a constant, and the joint is a screw for the links' analytic
        // derivatives.
        let zero = arena.zero();
        let turning = s.iter().any(|&e| arena.free_symbols(e).contains(&q));
        if turning && ds.iter().all(|&e| e == zero || arena.zero_test(e).is_zero()) {
            let at_rest = [(q, zero)];
            let s = s.map(|e| arena.subs(e, &at_rest));
            let turn = Turn::of(arena, &a, &l, &s, q);
            return Joint { a, l, da, dl, s, ds: [zero; 6], spin: None, turn };
        }
        let turn = if ds.iter().all(|&e| e == zero) { Turn::of(arena, &a, &l, &s, q) } else { None };
        Joint { a, l, da, dl, s, ds, spin: None, turn }
    }

    /// One of an orientation's joints (see [`Joint`]): transform (A, ℓ), constant axis `axis`, and
    /// the first's rate of turning.
    fn turning(arena: &mut Arena, (a, l): (Mat3, Vec3), axis: &Vec3, spin: Option<Vec3>) -> Joint {
        let zero = arena.zero();
        let s: Spatial = [axis[0], axis[1], axis[2], zero, zero, zero];
        Joint { a, l, da: [[zero; 3]; 3], dl: [zero; 3], s, ds: [zero; 6], spin, turn: None }
    }
}

/// The zeros a joint's constant part C = A_j(0) needs for its [`Turn`] to pay: six, a permutation
/// with signs (a file's quarter turns). A C with fewer (the UR5's 1.570796325, a rotation 2·10⁻⁹ off
/// a quarter turn) makes the second transform a full one, more than the whole X_j costs.
const ZEROS: usize = 6;

/// The one argument of the sines and cosines in `a` that hold `q` (`q` itself where none do).
fn turn_angle(arena: &Arena, a: &Mat3, q: Expr) -> Option<Expr> {
    let args = arena.sine_cosine_arguments(a.as_flattened());
    match args.iter().filter(|&&x| arena.free_symbols(x).contains(&q)).collect::<Vec<_>>()[..] {
        [] => Some(q),
        [&angle] => Some(angle),
        _ => None,
    }
}

impl Turn {
    /// The factors of A (along `q`, with ℓ and a constant S) where S = (±e_k, 0), ℓ is constant
    /// and A = A(0) exp(q \[s_ω\]×) holds by the zero test (it does for every such screw: A' = A \[s_ω\]×).
    fn of(arena: &mut Arena, a: &Mat3, l: &Vec3, s: &Spatial, q: Expr) -> Option<Turn> {
        let zero = arena.zero();
        let (w, v) = algebra::halves(s);
        if v.iter().any(|&e| e != zero) || l.iter().any(|&e| arena.free_symbols(e).contains(&q)) {
            return None;
        }
        // The axis's components as 0 or ±1, by the zero test where the algebra left them
        // constants of another form (the UR5's cos² + sin² of 1.570796325).
        let mut axis = [zero; 3];
        for (k, &e) in w.iter().enumerate() {
            if e == zero {
                continue;
            }
            if !arena.free_symbols(e).is_empty() {
                return None;
            }
            let one = arena.one();
            let (less, more) = (arena.sub(e, one), arena.add2(e, one));
            axis[k] = if arena.zero_test(e).is_zero() {
                zero
            } else if arena.zero_test(less).is_zero() {
                one
            } else if arena.zero_test(more).is_zero() {
                arena.int(-1)
            } else {
                return None;
            };
        }
        if axis.iter().filter(|&&e| e != zero).count() != 1 {
            return None;
        }
        let w = axis;
        // The turn's angle φ = q + c: q, or with the joint origin's own turn c about the axis
        // taken into it (`joint(...)` writes R_y(c) R_y(q) as R_y(q + c)), C = A at φ = 0.
        let phi = turn_angle(arena, a, q)?;
        let c = arena.sub(phi, q);
        if arena.free_symbols(c).contains(&q) {
            return None;
        }
        // R = 1 + sin φ [s]× + (1 − cos φ) [s]×².
        let (sin, cos) = (arena.call(symbolic::Func::Sin, &[phi]), arena.call(symbolic::Func::Cos, &[phi]));
        let hat = arena.hat(&w);
        let hat2 = arena.mat_mul(&hat, &hat);
        let one_minus = arena.sub(arena.one(), cos);
        let first = arena.mat_scale(sin, &hat);
        let second = arena.mat_scale(one_minus, &hat2);
        let identity = arena.identity3();
        let sum = arena.mat_add(&identity, &first);
        let turn = arena.mat_add(&sum, &second);
        let at_rest = [(q, arena.neg(c))];
        let fixed = a.map(|row| row.map(|e| arena.subs(e, &at_rest)));
        // Worth it where C is sparse (its zeros are what the second factor saves).
        if fixed.iter().flatten().filter(|&&e| e == zero).count() < ZEROS {
            return None;
        }
        let product = arena.mat_mul(&fixed, &turn);
        for x in 0..3 {
            for y in 0..3 {
                let d = arena.sub(a[x][y], product[x][y]);
                if d != zero && !arena.zero_test(d).is_zero() {
                    return None;
                }
            }
        }
        Some(Turn { fixed, turn })
    }
}
