//! The mass operator of a tree of rigid links in space: M factored along the tree in O(n) by
//! Featherstone's articulated-body algorithm over 6-D spatial vectors and solved with in O(n) per
//! column, never formed — what a model whose bodies hang on a tree of joints (a robot arm, a
//! gimbal, a top in Euler angles) hands the saddle point of its constraints, its impacts and its
//! linearisation in place of the dense [`MassFactor`](super::MassFactor). The planar and
//! translational trees have their own, cheaper, [`TreeFactor`](super::TreeFactor).
//!
//! **The links.** Joint j (one coordinate q_j) carries link j: a frame F_j = F_p A_j and an origin
//! o_j = o_p + F_p ℓ_j below its parent p, and moves it with the spatial velocity
//! V_j = X_j V_p + S_j q̇_j in the link's axes, angular part first:
//!
//! ```text
//! X_j (ω, v) = (A_jᵀ ω, A_jᵀ (v + ω × ℓ_j)),      X_jᵀ (n, f) = (A_j n + ℓ_j × A_j f, A_j f)
//! ```
//!
//! The derive evaluates A_j, ℓ_j and S_j at the state ([`LinkJoint`]) and each link's spatial
//! inertia about its origin (constant); [`LinkTopology`] is the tree, a generated constant. Then
//! ([`LinkFactor::new`]; generated code specialised to the joints may compute U_j, D_j and M_jj
//! itself and hand them to [`LinkFactor::from_parts`])
//!
//! ```text
//! M v:     a_j = X_j a_p + S_j v_j (root → leaves),  F_j = I_j a_j + Σ_children X_cᵀ F_c,  (M v)_j = S_j·F_j
//! factor:  I^A_j = I_j + Σ_children X_cᵀ (I^A_c − U_c U_cᵀ / D_c) X_c,  U_j = I^A_j S_j,  D_j = S_j·U_j
//! M x = b: u_j = b_j − S_j·p^A_j,  p^A_p += X_jᵀ (p^A_j + U_j u_j / D_j)         (leaves → root)
//!          a'_j = X_j a_p,  x_j = (u_j − U_j·a'_j) / D_j,  a_j = a'_j + S_j x_j   (root → leaves)
//! ```
//!
//! — the articulated-body algorithm with no velocity and no gravity, which solves M x = b; the
//! pivots D_j are those of a factorisation of M along the tree (the Schur complement of joint j in
//! its subtree), positive where M is positive definite. A pivot that the elimination cancelled to
//! round-off of its joint's diagonal entry M_jj = S_j·I^C_j S_j (I^C_j the composite inertia of the
//! subtree, carried as a rigid body's mass, first moment and rotational inertia; the same test as
//! the dense Cholesky's) is [`FieldError::SingularMassMatrix`]. The links' inertias must have the
//! form of rigid bodies' (as the derive's do): [I_o, h×; −h×, m 1].

use nalgebra::{Matrix3, Matrix6, SMatrix, SVector, Vector3, Vector6};

use super::linalg::MassOperator;
use super::{all_finite, finite_entries};
use crate::error::{FieldError, SingularMatrix};

/// The structure of a tree of links, one joint (one coordinate) each.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LinkTopology {
    /// Each joint's parent joint, `None` at a root (hung from the ground).
    pub parent: &'static [Option<usize>],
    /// The joints, parents before children.
    pub order: &'static [usize],
}

/// One joint at a state: its link's rotation A and offset ℓ from the parent link's frame
/// (F_j = F_p A, o_j = o_p + F_p ℓ) and its motion subspace S = (angular, linear) in the link's
/// axes (see the [module docs](self)).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LinkJoint {
    pub(super) a: Matrix3<f64>,
    pub(super) l: Vector3<f64>,
    pub(super) s: Vector6<f64>,
}

impl LinkJoint {
    /// The joint with rotation `a` (rows), offset `l` and motion subspace `s` (ω first).
    #[must_use]
    #[inline]
    pub fn new(a: [[f64; 3]; 3], l: [f64; 3], s: [f64; 6]) -> Self {
        LinkJoint { a: Matrix3::from_fn(|i, j| a[i][j]), l: Vector3::from(l), s: Vector6::from(s) }
    }

    /// Whether every entry is finite.
    #[inline]
    fn finite(&self) -> bool {
        all_finite(&self.a) & all_finite(&self.l) & all_finite(&self.s)
    }

    /// X m: the parent link's motion m in this link's axes.
    #[inline]
    fn motion(&self, m: &Vector6<f64>) -> Vector6<f64> {
        let (a, l) = (&self.a, &self.l);
        let w = [m[0], m[1], m[2]];
        // v + ω × ℓ, then Aᵀ of both halves.
        let v = [m[3] + w[1] * l[2] - w[2] * l[1], m[4] + w[2] * l[0] - w[0] * l[2], m[5] + w[0] * l[1] - w[1] * l[0]];
        let at = |x: &[f64; 3], k: usize| a[(0, k)] * x[0] + a[(1, k)] * x[1] + a[(2, k)] * x[2];
        Vector6::new(at(&w, 0), at(&w, 1), at(&w, 2), at(&v, 0), at(&v, 1), at(&v, 2))
    }

    /// Xᵀ f: this link's force f in the parent link's axes.
    #[inline]
    fn force(&self, f: &Vector6<f64>) -> Vector6<f64> {
        let (a, l) = (&self.a, &self.l);
        let by = |x: [f64; 3], k: usize| a[(k, 0)] * x[0] + a[(k, 1)] * x[1] + a[(k, 2)] * x[2];
        let (n, f) = ([f[0], f[1], f[2]], [f[3], f[4], f[5]]);
        let af = [by(f, 0), by(f, 1), by(f, 2)];
        // A n + ℓ × A f.
        Vector6::new(
            by(n, 0) + l[1] * af[2] - l[2] * af[1],
            by(n, 1) + l[2] * af[0] - l[0] * af[2],
            by(n, 2) + l[0] * af[1] - l[1] * af[0],
            af[0],
            af[1],
            af[2],
        )
    }

    /// Xᵀ I X: this link's (symmetric) inertia I in the parent link's axes, by 3×3 blocks —
    /// rotated, J = diag(A, A) I diag(A, A)ᵀ, then moved by ℓ (L x = ℓ × x, so L J_vw = −(J_wv L)ᵀ):
    /// Xᵀ I X = [J_ww − J_wv L + L J_vw − L J_vv L, J_wv + L J_vv; ·, J_vv].
    #[inline]
    fn inertia(&self, i: &Matrix6<f64>) -> Matrix6<f64> {
        let (a, at) = (&self.a, self.a.transpose());
        let block = |r: usize, c: usize| a * (i.fixed_view::<3, 3>(r, c) * at);
        let (ww, wv, vv) = (block(0, 0), block(0, 3), block(3, 3));
        let l = self.l.cross_matrix();
        let (x, y) = (wv * l, l * vv);
        let top_left = ww - x - x.transpose() - y * l;
        let top_right = wv + y;
        let mut out = Matrix6::zeros();
        out.fixed_view_mut::<3, 3>(0, 0).copy_from(&top_left);
        out.fixed_view_mut::<3, 3>(0, 3).copy_from(&top_right);
        out.fixed_view_mut::<3, 3>(3, 0).copy_from(&top_right.transpose());
        out.fixed_view_mut::<3, 3>(3, 3).copy_from(&vv);
        out
    }
}

/// A rigid composite of bodies in a link's axes: its mass m, first moment h = Σ m d about the
/// link's origin and rotational inertia I_o about it — a spatial inertia [I_o, h×; −h×, m 1], the
/// form of every link's own (and of the composite inertia of a subtree, which stays rigid).
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Rigid {
    m: f64,
    h: Vector3<f64>,
    io: Matrix3<f64>,
}

impl Rigid {
    /// Read off a spatial inertia of that form (by rows).
    #[inline]
    pub(super) fn of(i: &[[f64; 6]; 6]) -> Self {
        Rigid { m: i[3][3], h: Vector3::new(i[2][4], i[0][5], i[1][3]), io: Matrix3::from_fn(|r, c| i[r][c]) }
    }

    /// Sᵀ I S = S_ωᵀ I_o S_ω + 2 S_ω·(h × S_v) + m |S_v|².
    #[inline]
    fn diagonal(&self, s: &Vector6<f64>) -> f64 {
        let (w, v) = (s.fixed_rows::<3>(0).into_owned(), s.fixed_rows::<3>(3).into_owned());
        w.dot(&(self.io * w)) + 2.0 * w.dot(&self.h.cross(&v)) + self.m * v.norm_squared()
    }

    /// Xᵀ I X in the parent's axes (see [`Rigid::placed`]).
    #[inline]
    fn moved(&self, joint: &LinkJoint) -> Self {
        self.placed(&joint.a, &joint.l)
    }

    /// The composite in the axes of a frame in which this one's axes are `a` and its origin `l`,
    /// mass points r moved to ℓ + A r: m, h' = A h + m ℓ (g = A h) and
    /// I_o' = A I_o Aᵀ + m (|ℓ|² 1 − ℓ ℓᵀ) + 2 (ℓ·g) 1 − ℓ gᵀ − g ℓᵀ.
    #[inline]
    pub(super) fn placed(&self, a: &Matrix3<f64>, l: &Vector3<f64>) -> Self {
        let g = a * self.h;
        let lg = l * g.transpose();
        let io = a * self.io * a.transpose() + Matrix3::identity() * (self.m * l.norm_squared() + 2.0 * l.dot(&g))
            - l * l.transpose() * self.m
            - lg
            - lg.transpose();
        Rigid { m: self.m, h: g + l * self.m, io }
    }

    /// Whether every entry is zero: a massless link (an orientation's or a base's inner links).
    #[inline]
    pub(super) fn is_zero(&self) -> bool {
        self.m == 0.0 && self.h == Vector3::zeros() && self.io == Matrix3::zeros()
    }

    /// The mass m.
    #[inline]
    pub(super) fn mass(&self) -> f64 {
        self.m
    }

    /// The first moment h about the origin.
    #[inline]
    pub(super) fn first_moment(&self) -> Vector3<f64> {
        self.h
    }

    /// The rotational inertia I_o about the origin.
    #[inline]
    pub(super) fn rotational(&self) -> Matrix3<f64> {
        self.io
    }

    /// I a = (I_o ω + h × v, m v − h × ω) for a = (ω, v).
    #[inline]
    pub(super) fn times(&self, a: &Vector6<f64>) -> Vector6<f64> {
        let (w, v) = (Vector3::new(a[0], a[1], a[2]), Vector3::new(a[3], a[4], a[5]));
        let (n, f) = (self.io * w + self.h.cross(&v), v * self.m - self.h.cross(&w));
        Vector6::new(n[0], n[1], n[2], f[0], f[1], f[2])
    }

    #[inline]
    pub(super) fn add(&mut self, other: &Self) {
        self.m += other.m;
        self.h += other.h;
        self.io += other.io;
    }
}

/// M of a tree of links factored along the tree at one state: a [`MassOperator`] whose solves and
/// products are O(n) per column (`N` joints).
#[derive(Debug, Clone, Copy)]
pub struct LinkFactor<const N: usize> {
    topology: &'static LinkTopology,
    joints: [LinkJoint; N],
    /// Each link's inertia, rigid (for products M v).
    inertia: [Rigid; N],
    /// U_j = I^A_j S_j and the pivots D_j with their inverses.
    u: [Vector6<f64>; N],
    d: [f64; N],
    inv_d: [f64; N],
    /// M's diagonal entries M_jj = S_j·I^C_j S_j.
    diagonal: [f64; N],
    /// Each joint's armature a_j (in M v; already in the pivots and the diagonal).
    armature: [f64; N],
}

impl<const N: usize> LinkFactor<N> {
    /// Factors M of the tree `topology` with its `joints` at the state and its links' spatial
    /// `inertia` about their origins in their axes (ω first, symmetric), at time `t` (for the
    /// error).
    ///
    /// ```
    /// use routh_runtime::mechanics::links::{LinkFactor, LinkJoint, LinkTopology};
    /// use routh_runtime::MassOperator;
    /// use routh_runtime::nalgebra::Vector2;
    ///
    /// // A cart sliding along x (joint 0, no body of its own) and a rod turning about z on it
    /// // (joint 1), its centre of mass h along the rod's −y axis: a pendulum on a cart.
    /// static CART: LinkTopology = LinkTopology { parent: &[None, Some(0)], order: &[0, 1] };
    /// let (mc, mb, h, j, th) = (2.0, 0.5, 0.75, 0.1, 0.3_f64);
    /// let still = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
    /// let (c, s) = (th.cos(), th.sin());
    /// let turned = [[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]];
    /// let joints = [
    ///     LinkJoint::new(still, [0.0; 3], [0.0, 0.0, 0.0, 1.0, 0.0, 0.0]),
    ///     LinkJoint::new(turned, [0.0; 3], [0.0, 0.0, 1.0, 0.0, 0.0, 0.0]),
    /// ];
    /// // The cart: a point mass mc. The rod: mass mb at d = (0, −h, 0), J about its centre;
    /// // I = [J + mb (|d|² − d dᵀ), mb d×; −mb d×, mb].
    /// let mut cart = [[0.0; 6]; 6];
    /// let mut rod = [[0.0; 6]; 6];
    /// for k in 3..6 {
    ///     cart[k][k] = mc;
    ///     rod[k][k] = mb;
    /// }
    /// rod[0][0] = j + mb * h * h;
    /// rod[2][2] = j + mb * h * h;
    /// rod[1][1] = j;
    /// // d× = [[0, 0, −h], [0, 0, 0], [h, 0, 0]] (d × x with d = (0, −h, 0)).
    /// rod[0][5] = -mb * h; rod[2][3] = mb * h;
    /// rod[5][0] = -mb * h; rod[3][2] = mb * h;
    /// let m = LinkFactor::<2>::new(0.0, &CART, joints, [cart, rod])?;
    /// // M = [mc + mb, mb h cos θ; mb h cos θ, J + mb h²].
    /// let v = Vector2::new(0.7, -1.1);
    /// let mv = Vector2::new((mc + mb) * v[0] + mb * h * c * v[1], mb * h * c * v[0] + (j + mb * h * h) * v[1]);
    /// assert!((m.apply(&v) - mv).norm() < 1e-14);
    /// assert!((m.solve(mv)? - v).norm() < 1e-14);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// [`FieldError::SingularMassMatrix`] if a pivot is not safely positive (M singular or
    /// indefinite there), [`FieldError::NonFinite`] for non-finite joints or inertias.
    pub fn new(
        t: f64,
        topology: &'static LinkTopology,
        joints: [LinkJoint; N],
        inertia: [[[f64; 6]; 6]; N],
    ) -> Result<Self, FieldError> {
        debug_assert!(topology.parent.len() == N && topology.order.len() == N);
        // Articulated inertias (general symmetric) and composite ones (rigid: mass, first moment,
        // rotational inertia about the origin), leaves → root. (Non-finite inputs are refused by
        // `from_parts`, before any pivot is read.)
        let mut ia = inertia.map(|i| Matrix6::from_fn(|r, c| i[r][c]));
        let mut ic = inertia.map(|i| Rigid::of(&i));
        let (mut u, mut d, mut diagonal) = ([[0.0; 6]; N], [0.0f64; N], [0.0f64; N]);
        for &j in topology.order.iter().rev() {
            let s = &joints[j].s;
            let uj = ia[j] * s;
            let dj = s.dot(&uj);
            (u[j], d[j], diagonal[j]) = (uj.into(), dj, ic[j].diagonal(s));
            if let Some(p) = topology.parent[j] {
                let reduced = ia[j] - uj * uj.transpose() / dj;
                ia[p] += joints[j].inertia(&reduced);
                let moved = ic[j].moved(&joints[j]);
                ic[p].add(&moved);
            }
        }
        Self::from_parts(t, topology, joints, inertia, (u, d, diagonal))
    }

    /// The factor from its parts computed elsewhere (by generated code specialised to the joints):
    /// the `joints`, the links' `inertia`, and per joint (`factor`) U_j = I^A_j S_j, the pivot
    /// D_j = S_j·U_j and M's diagonal entry M_jj (see the [module docs](self)); the pivots are tested
    /// as in [`LinkFactor::new`].
    ///
    /// # Errors
    /// [`FieldError::SingularMassMatrix`] if a pivot is not safely positive,
    /// [`FieldError::NonFinite`] for non-finite parts.
    pub fn from_parts(
        t: f64,
        topology: &'static LinkTopology,
        joints: [LinkJoint; N],
        inertia: [[[f64; 6]; 6]; N],
        (u, d, diagonal): ([[f64; 6]; N], [f64; N], [f64; N]),
    ) -> Result<Self, FieldError> {
        if !Self::finite(&joints, &inertia) {
            return Err(FieldError::NonFinite { t });
        }
        let tol = super::tree::PIVOT_TOL * N as f64 * f64::EPSILON;
        for j in 0..N {
            if !(d[j] > tol * diagonal[j].abs()) || !d[j].is_finite() {
                return Err(FieldError::SingularMassMatrix { t });
            }
        }
        if !finite_entries(u.as_flattened()) {
            return Err(FieldError::NonFinite { t });
        }
        let u = u.map(Vector6::from);
        let inv_d = d.map(|dj| 1.0 / dj);
        let inertia = inertia.map(|i| Rigid::of(&i));
        Ok(LinkFactor { topology, joints, inertia, u, d, inv_d, diagonal, armature: [0.0; N] })
    }

    /// The factor with each joint's armature a_j (a rotor's inertia reflected onto the joint,
    /// ½ a_j q̇_j² in the kinetic energy), for products M v: M v = (the links' M) v + a ∘ v. The
    /// parts given to [`from_parts`](Self::from_parts) already hold the armatures (in D_j and M_jj).
    #[must_use]
    pub fn with_armature(mut self, armature: [f64; N]) -> Self {
        self.armature = armature;
        self
    }

    /// Whether the joints and inertias are finite.
    fn finite(joints: &[LinkJoint; N], inertia: &[[[f64; 6]; 6]; N]) -> bool {
        joints.iter().fold(true, |ok, j| ok & j.finite()) & finite_entries(inertia.as_flattened().as_flattened())
    }

    /// X = M⁻¹ B, all columns in one traversal of the tree (two passes).
    fn solve_columns<const C: usize>(&self, b: &SMatrix<f64, N, C>) -> SMatrix<f64, N, C> {
        let top = self.topology;
        let mut pa = [[Vector6::<f64>::zeros(); C]; N];
        let mut uu = [[0.0f64; C]; N];
        for &j in top.order.iter().rev() {
            let joint = &self.joints[j];
            for c in 0..C {
                uu[j][c] = b[(j, c)] - joint.s.dot(&pa[j][c]);
            }
            if let Some(p) = top.parent[j] {
                for c in 0..C {
                    let passed = pa[j][c] + self.u[j] * (uu[j][c] * self.inv_d[j]);
                    let moved = joint.force(&passed);
                    pa[p][c] += moved;
                }
            }
        }
        let mut acc = [[Vector6::<f64>::zeros(); C]; N];
        let mut x = SMatrix::<f64, N, C>::zeros();
        for &j in top.order {
            let joint = &self.joints[j];
            for c in 0..C {
                let from = top.parent[j].map_or_else(Vector6::zeros, |p| joint.motion(&acc[p][c]));
                let xj = (uu[j][c] - self.u[j].dot(&from)) * self.inv_d[j];
                x[(j, c)] = xj;
                acc[j][c] = from + joint.s * xj;
            }
        }
        x
    }

    /// The pivots D_j of the factorisation, by joint.
    #[must_use]
    pub fn pivots(&self) -> &[f64; N] {
        &self.d
    }

    /// M's diagonal entries M_jj = S_j·I^C_j S_j, from the subtrees' composite inertias.
    #[must_use]
    pub fn diagonal(&self) -> &[f64; N] {
        &self.diagonal
    }
}

impl<const N: usize> MassOperator<N> for LinkFactor<N> {
    fn solve<const C: usize>(&self, b: SMatrix<f64, N, C>) -> Result<SMatrix<f64, N, C>, SingularMatrix> {
        let out = self.solve_columns(&b);
        if all_finite(&out) { Ok(out) } else { Err(SingularMatrix) }
    }

    /// M v by the Newton–Euler passes with no velocity and no gravity (Kane's form).
    fn apply(&self, v: &SVector<f64, N>) -> SVector<f64, N> {
        let top = self.topology;
        let mut acc = [Vector6::<f64>::zeros(); N];
        let mut force = [Vector6::<f64>::zeros(); N];
        for &j in top.order {
            let joint = &self.joints[j];
            let from = top.parent[j].map_or_else(Vector6::zeros, |p| joint.motion(&acc[p]));
            acc[j] = from + joint.s * v[j];
        }
        let mut out = SVector::<f64, N>::zeros();
        for &j in top.order.iter().rev() {
            force[j] += self.inertia[j].times(&acc[j]);
            out[j] = self.joints[j].s.dot(&force[j]) + self.armature[j] * v[j];
            if let Some(p) = top.parent[j] {
                let passed = self.joints[j].force(&force[j]);
                force[p] += passed;
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mechanics::MassFactor;
    use nalgebra::{Rotation3, Unit};

    /// Two trees hung from the ground: joints 0 → {1, 2 → 3} and a root 4 (a branch, a chain
    /// and a single joint), with general joints (screws: S with angular and linear parts).
    static TREE: LinkTopology = LinkTopology { parent: &[None, Some(0), Some(0), Some(2), None], order: &[0, 4, 2, 1, 3] };

    /// Deterministic "random" numbers in [−1, 1].
    fn numbers(seed: u64, n: usize) -> Vec<f64> {
        let mut x = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (0..n)
            .map(|_| {
                x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                ((x >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
            })
            .collect()
    }

    /// The joints (A, ℓ, S) and the links' spatial inertias (mass, centre d, a rotational inertia
    /// about the centre, positive definite) from a seed.
    fn tree(seed: u64) -> ([LinkJoint; 5], [[[f64; 6]; 6]; 5]) {
        let r = numbers(seed, 5 * 30);
        let joints = std::array::from_fn(|j| {
            let x = &r[30 * j..];
            let axis = Unit::new_normalize(Vector3::new(x[0], x[1], x[2] + 1.5));
            let a = Rotation3::from_axis_angle(&axis, 3.0 * x[3]).into_inner();
            LinkJoint::new(
                std::array::from_fn(|i| std::array::from_fn(|k| a[(i, k)])),
                [x[4], x[5], x[6]],
                [x[7], x[8], x[9], x[10], x[11], x[12]],
            )
        });
        let inertia = std::array::from_fn(|j| {
            let x = &r[30 * j + 13..];
            let m = 1.5 + x[0];
            let d = Vector3::new(x[1], x[2], x[3]);
            let b = Matrix3::new(x[4], x[5], x[6], x[7], x[8], x[9], x[10], x[11], x[12]);
            let ic = b * b.transpose() + Matrix3::identity() * 0.3;
            let dx = d.cross_matrix();
            let mut i = Matrix6::zeros();
            i.fixed_view_mut::<3, 3>(0, 0).copy_from(&(ic - dx * dx * m));
            i.fixed_view_mut::<3, 3>(0, 3).copy_from(&(dx * m));
            i.fixed_view_mut::<3, 3>(3, 0).copy_from(&(-dx * m));
            i.fixed_view_mut::<3, 3>(3, 3).copy_from(&(Matrix3::identity() * m));
            std::array::from_fn(|r| std::array::from_fn(|c| i[(r, c)]))
        });
        (joints, inertia)
    }

    /// M = Σ_j J_jᵀ I_j J_j by another route: each link's frame F_j and origin o_j in the world
    /// (F_j = F_p A_j, o_j = o_p + F_p ℓ_j), joint k moving link j (k on j's path) with the angular
    /// velocity F_k S_ω and its origin o_j with F_k S_v + (F_k S_ω) × (o_j − o_k), in link j's axes.
    fn dense(joints: &[LinkJoint; 5], inertia: &[[[f64; 6]; 6]; 5]) -> SMatrix<f64, 5, 5> {
        let mut frames = [Matrix3::identity(); 5];
        let mut origins = [Vector3::zeros(); 5];
        for &j in TREE.order {
            let (fp, op) = TREE.parent[j].map_or((Matrix3::identity(), Vector3::zeros()), |p| (frames[p], origins[p]));
            frames[j] = fp * joints[j].a;
            origins[j] = op + fp * joints[j].l;
        }
        let mut m = SMatrix::<f64, 5, 5>::zeros();
        for j in 0..5 {
            let mut jac = SMatrix::<f64, 6, 5>::zeros();
            let mut k = Some(j);
            while let Some(kk) = k {
                let s = &joints[kk].s;
                let w = frames[kk] * Vector3::new(s[0], s[1], s[2]);
                let v = frames[kk] * Vector3::new(s[3], s[4], s[5]) + w.cross(&(origins[j] - origins[kk]));
                let (wl, vl) = (frames[j].transpose() * w, frames[j].transpose() * v);
                jac.set_column(kk, &Vector6::new(wl[0], wl[1], wl[2], vl[0], vl[1], vl[2]));
                k = TREE.parent[kk];
            }
            let i = Matrix6::from_fn(|r, c| inertia[j][r][c]);
            m += jac.transpose() * i * jac;
        }
        m
    }

    #[test]
    fn the_product_is_the_kinetic_metric_and_the_solve_inverts_it() {
        for seed in [1, 7, 42] {
            let (joints, inertia) = tree(seed);
            let m = dense(&joints, &inertia);
            let f = LinkFactor::<5>::new(0.0, &TREE, joints, inertia).unwrap();
            let v = SVector::<f64, 5>::new(0.3, -1.0, 0.7, 1.9, -0.4);
            assert!((f.apply(&v) - m * v).amax() < 1e-13 * (m * v).amax(), "M v");
            let b = SMatrix::<f64, 5, 3>::from_fn(|i, c| (i as f64 - 1.5) * (c as f64 + 0.5) + 0.1 * c as f64);
            let x = f.solve(b).unwrap();
            let want = MassFactor::new(m).unwrap().solve(b).unwrap();
            assert!((x - want).amax() < 1e-11 * want.amax(), "{:e}", (x - want).amax());
            // The pivots are those of a factorisation: their product is det M.
            let det: f64 = f.pivots().iter().product();
            assert!((det - m.determinant()).abs() < 1e-11 * det.abs(), "{det} vs {}", m.determinant());
            // The composite inertias give M's diagonal (the scale of the pivot test).
            for j in 0..5 {
                assert!((f.diagonal()[j] - m[(j, j)]).abs() < 1e-13 * m[(j, j)], "M_{j}{j}");
            }
            // The same factor from its parts.
            let u = f.u.map(|v| std::array::from_fn(|k| v[k]));
            let again = LinkFactor::<5>::from_parts(0.0, &TREE, joints, inertia, (u, f.d, f.diagonal)).unwrap();
            assert_eq!(again.solve(b).unwrap(), x);
        }
    }

    #[test]
    fn a_singular_tree_is_a_typed_error() {
        // A joint whose link carries no mass and no child: its pivot is zero.
        static CHAIN: LinkTopology = LinkTopology { parent: &[None, Some(0)], order: &[0, 1] };
        let (joints, inertia) = tree(3);
        let pair = [joints[0], joints[1]];
        let singular = LinkFactor::<2>::new(2.5, &CHAIN, pair, [inertia[0], [[0.0; 6]; 6]]);
        assert_eq!(singular.err(), Some(FieldError::SingularMassMatrix { t: 2.5 }));
        // Two joints with the same motion subspace on one link: M singular.
        let still = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
        let slide = LinkJoint::new(still, [0.0; 3], [0.0, 0.0, 0.0, 1.0, 0.0, 0.0]);
        let twice = LinkFactor::<2>::new(1.0, &CHAIN, [slide, slide], [[[0.0; 6]; 6], inertia[1]]);
        assert_eq!(twice.err(), Some(FieldError::SingularMassMatrix { t: 1.0 }));
        let mut nan = pair;
        nan[1] = LinkJoint::new(still, [f64::NAN, 0.0, 0.0], [0.0; 6]);
        assert_eq!(
            LinkFactor::<2>::new(1.0, &CHAIN, nan, [inertia[0], inertia[1]]).err(),
            Some(FieldError::NonFinite { t: 1.0 })
        );
        let ok = LinkFactor::<2>::new(0.0, &CHAIN, pair, [inertia[0], inertia[1]]).unwrap();
        // From parts: a pivot cancelled to round-off of its diagonal entry.
        let u = ok.u.map(|v| std::array::from_fn(|k| v[k]));
        let cancelled = [ok.d[0], 1e-15 * ok.diagonal[1]];
        let singular = LinkFactor::<2>::from_parts(3.0, &CHAIN, pair, [inertia[0], inertia[1]], (u, cancelled, ok.diagonal));
        assert_eq!(singular.err(), Some(FieldError::SingularMassMatrix { t: 3.0 }));
    }
}
