//! The field Jacobian of a tree of rigid links in space by analytic derivatives of the inverse
//! dynamics, O(n²) with small constants: ∂q̈/∂q and ∂q̈/∂q̇ for a model whose joints are
//! screws (each joint's motion subspace S_j constant in its link's axes: revolute, prismatic and
//! helical joints about fixed axes), with q̈ and M computed on the way.
//!
//! **The route.** With K(q, q̇, a) = M(q) a + (velocity products and gravity) the kinetic part of
//! the inverse dynamics and τ(t, q, q̇) the model's other generalized forces, q̈ solves K(q, q̇, q̈)
//! = τ, so that
//!
//! ```text
//! ∂q̈/∂x = M⁻¹ (∂τ/∂x − ∂K/∂x)   at a = q̈,     x = q or q̇
//! ```
//!
//! The derivatives of K are taken in the ground's axes, where a change of q_j turns everything
//! beyond joint j by the joint's twist: every spatial quantity of a link k below j (k ≽ j) moves by
//! S_j ×, every force by S_j ×*. Spatial vectors are Plücker coordinates about the ground's origin,
//! angular part first; m × x and m ×* f are the motion and force cross products, Y_k the link's
//! spatial inertia (rigid: mass, first moment, rotational inertia about the origin), λ(j) the
//! parent of j, and a_0 = (0, −g) the ground's acceleration standing for gravity. Root → leaves:
//!
//! ```text
//! v_j = v_λ + S_j q̇_j,   ψ_j = v_λ × S_j (= Ṡ_j),   a_j = a_λ + S_j q̈_j + ψ_j q̇_j
//! h_j = Y_j v_j,   f_j = Y_j a_j + v_j ×* h_j,   α_j = a_λ × S_j + v_λ × ψ_j
//! B_j x = v_j ×* (Y_j x) − Y_j (v_j × x) + x ×* h_j
//! ```
//!
//! and leaves → root the composites F_j = Σ_{k≽j} f_k, Y^C_j and B^C_j likewise; K_j = S_j·F_j
//! (+ the joint's armature a_j q̈_j). Differentiating (Jacobi's identity cancels the turning of S_i
//! against that of F_i) gives, for i below or at j (i ≽ j) and for i strictly above j (i ≺ j):
//!
//! ```text
//! ∂K_i/∂q_j  = S_i·(Y^C_i α_j + B^C_i ψ_j)          (i ≽ j)
//!            = S_i·(S_j ×* F_j + Y^C_j α_j + B^C_j ψ_j)   (i ≺ j)
//! ∂K_i/∂q̇_j = S_i·(2 Y^C_i ψ_j + B^C_i S_j)         (i ≽ j)
//!            = S_i·(2 Y^C_j ψ_j + B^C_j S_j)         (i ≺ j)
//! M_ij = S_i·Y^C_j S_j   (i ≼ j; + a_j on the diagonal)
//! ```
//!
//! zero where neither joint is above the other. q̈ comes from the same passes: the first at a = 0
//! gives K(q, q̇, 0) and M (composite rigid bodies), M is factored densely (n³/6) and q̈ =
//! M⁻¹ (τ − K(q, q̇, 0)); a second pass adds the accelerations S_j q̈_j to the forces. The per-joint
//! work is a few 6-D products; the pairs cost a 6-D dot product or two each. This is the
//! derivation of Carpentier and Mansard (RSS 2018) for revolute and prismatic joints, written for
//! routh's links (see `tests` below for the checks against finite differences and the link factor).
//!
//! **Orientations.** A floating base or a ball joint is three joints of constant axes s_k in a
//! chain of massless links (its body rates ω_k their velocities), whose positions change along the
//! body rotation vector θ at fixed ω ([`LinkDynamics::with_orientations`]). A change of θ_k turns
//! the body by S_k — the orientation's other axes with it, unlike a chain's joints above — and its
//! axes move with the body's whole rate, so that with λ the orientation's parent link and
//! Ω = v_body − v_λ = Σ S_k ω_k:
//!
//! ```text
//! ψ_k = v_λ × S_k,   α_k = a_λ × S_k + v_λ × ψ_k,   a_body = a_λ + Σ (S_k ω̇_k + ψ_k ω_k)
//! ∂K_i/∂θ_k:  the form of i ≽ k for every pair of the three joints (S_i turns with S_k)
//! ∂K_i/∂ω_k:  2 ψ_k → χ_k = 2 ψ_k + Ω × S_k   (δa below the body is ψ_k + S_k × (v − v_body))
//! ```

use nalgebra::{Matrix3, SMatrix, SVector, Vector3, Vector6};

use super::input::Linearization;
use super::links::{LinkJoint, LinkTopology, Rigid};
use super::{MassFactor, MassOperator, all_finite};
use crate::error::{FieldError, SingularMatrix};

/// q̈ and its derivatives over a tree of links (see the [module docs](self)).
#[derive(Debug, Clone)]
pub struct LinkDerivatives<const N: usize> {
    /// q̈.
    pub accelerations: SVector<f64, N>,
    /// M (with the joints' armatures).
    pub mass: SMatrix<f64, N, N>,
    /// ∂q̈/∂q.
    pub d_positions: SMatrix<f64, N, N>,
    /// ∂q̈/∂q̇.
    pub d_velocities: SMatrix<f64, N, N>,
    /// M factored.
    factor: TreeMassFactor<N>,
}

/// The derivatives of the accelerations v̇ (or of a force) over a model's positions — its ordinary
/// coordinates and each orientation's body rotation vector θ at fixed velocities — over its
/// velocities v, and over `K` other quantities (inputs, parameters).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct VelocityDerivatives<const N: usize, const K: usize> {
    /// Over the positions (N columns: an orientation's three by its θ).
    pub positions: SMatrix<f64, N, N>,
    /// Over the velocities.
    pub velocities: SMatrix<f64, N, N>,
    /// Over the other quantities.
    pub others: SMatrix<f64, N, K>,
}

impl<const N: usize, const K: usize> VelocityDerivatives<N, K> {
    /// The three blocks.
    #[must_use]
    pub const fn new(positions: SMatrix<f64, N, N>, velocities: SMatrix<f64, N, N>, others: SMatrix<f64, N, K>) -> Self {
        VelocityDerivatives { positions, velocities, others }
    }
}

/// An unconstrained model's first-order dynamics over its velocities at one state
/// ([`LinkDynamics::velocity_blocks`]): v̇, M, the derivatives of v̇, and those of the generalized
/// forces' residual M v̇ = τ − K(q, v, v̇) at v̇ (the inverse dynamics' derivatives negated) — what a
/// linearisation in the orientations' tangent chart needs
/// ([`linearize::tangent`](crate::linearize::tangent)), its mechanical form M δq̈ + C δq̇ + K δq
/// = B δu included, without a product by M.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct VelocityBlocks<const N: usize, const K: usize> {
    /// v̇.
    pub accelerations: SVector<f64, N>,
    /// M.
    pub mass: SMatrix<f64, N, N>,
    /// ∂v̇/∂(q, v, w).
    pub solved: VelocityDerivatives<N, K>,
    /// M ∂v̇/∂(q, v, w) = ∂τ/∂(q, v, w) − ∂K/∂(q, v, w) at v̇.
    pub forces: VelocityDerivatives<N, K>,
}

impl<const N: usize, const K: usize> VelocityBlocks<N, K> {
    /// The blocks of a model at a state (`forces` = M `solved`).
    #[must_use]
    pub const fn new(
        accelerations: SVector<f64, N>,
        mass: SMatrix<f64, N, N>,
        solved: VelocityDerivatives<N, K>,
        forces: VelocityDerivatives<N, K>,
    ) -> Self {
        VelocityBlocks { accelerations, mass, solved, forces }
    }
}

/// M of a tree of links factored, densely or along the tree: M = Lᵀ D L with L unit lower
/// triangular in the tree's order and L_ki ≠ 0 only where i is an ancestor of k (the sparsity the
/// branches give M: M_ij = 0 where neither joint is above the other; Featherstone's LTDL, *Rigid
/// Body Dynamics Algorithms* §6.5), so that factoring costs Σ_k depth(k)² and each solve
/// 2 Σ_k depth(k) multiplications where the dense factor takes n³/6 and n². Along the tree where
/// that sum is at most three quarters of n (n + 1) / 2 (a branched tree: a humanoid's limbs, a
/// quadruped's legs), densely otherwise (a chain, where the two are the same work and the dense
/// code is the faster).
#[derive(Debug, Clone, Copy)]
pub struct TreeMassFactor<const N: usize>(TreeFactorKind<N>);

#[derive(Debug, Clone, Copy)]
enum TreeFactorKind<const N: usize> {
    Dense(MassFactor<N>),
    Tree {
        topology: &'static LinkTopology,
        /// D on the diagonal, L_ki at (k, i) for each ancestor i of k.
        ldl: SMatrix<f64, N, N>,
    },
}

impl<const N: usize> TreeMassFactor<N> {
    /// M of the tree `topology` factored (see the type's docs).
    ///
    /// # Errors
    /// [`FieldError::NonFinite`] for a non-finite M, [`FieldError::SingularMassMatrix`] where a
    /// pivot is not safely positive (or the dense factor fails).
    pub fn new(t: f64, topology: &'static LinkTopology, m: SMatrix<f64, N, N>) -> Result<Self, FieldError> {
        // Each joint's depth from its parent's (root first), not by walking up from every joint.
        let mut depth = [0_usize; N];
        for &j in topology.order {
            depth[j] = topology.parent[j].map_or(1, |k| depth[k] + 1);
        }
        if 4 * depth.iter().sum::<usize>() > 3 * (N * (N + 1) / 2) {
            return Ok(TreeMassFactor(TreeFactorKind::Dense(super::factor_mass(t, m)?)));
        }
        if !all_finite(&m) {
            return Err(FieldError::NonFinite { t });
        }
        let mut h = m;
        // Leaves first: each joint's row against its ancestors eliminated, the ancestors listed
        // once per joint (the elimination's steps then independent of the walk up the tree).
        let mut above = [0_usize; N];
        for &k in topology.order.iter().rev() {
            let pivot = h[(k, k)];
            if !(pivot > PIVOT_TOLERANCE * m[(k, k)].abs()) {
                return Err(FieldError::SingularMassMatrix { t });
            }
            let mut count = 0;
            let mut i = topology.parent[k];
            while let Some(a) = i {
                above[count] = a;
                count += 1;
                i = topology.parent[a];
            }
            for (x, &a) in above[..count].iter().enumerate() {
                let l = h[(k, a)] / pivot;
                for &b in &above[x..count] {
                    h[(a, b)] -= h[(k, b)] * l;
                }
                h[(k, a)] = l;
            }
        }
        Ok(TreeMassFactor(TreeFactorKind::Tree { topology, ldl: h }))
    }
}

impl<const N: usize> TreeMassFactor<N> {
    /// M X = B for the derivatives' 2N and more right-hand sides, each block stored transposed
    /// (Bᵀ: row i of B contiguous) and solved in place by one walk of the factor — along the tree
    /// ([`walk`]) or of the dense Cholesky factors ([`dense_walk`]) — whose every step is one row's
    /// multiply-add across all the blocks' columns (in SIMD lanes); by M⁻¹ and its products where
    /// the dense factor is LU's.
    fn solve_rows<const W: usize>(&self, rows: &mut SolvedRows<N, W>) -> Result<(), SingularMatrix> {
        match &self.0 {
            TreeFactorKind::Dense(f) => match f.unit_factors() {
                Some((u, inv_d)) => dense_walk(u, inv_d, rows),
                None => {
                    // Bᵀ M⁻¹ = (M⁻¹ B)ᵀ, M⁻¹ symmetric.
                    let inverse = f.solve(SMatrix::<f64, N, N>::identity())?;
                    rows.by_q *= inverse;
                    rows.by_v *= inverse;
                    rows.sensitivities *= inverse;
                }
            },
            TreeFactorKind::Tree { topology, ldl } => walk(topology, ldl, rows),
        }
        Ok(())
    }
}

/// Right-hand sides that a walk of the tree factor updates row by row ([`walk`]).
trait Rows {
    /// Row a −= l · row i.
    fn sub(&mut self, a: usize, i: usize, l: f64);
    /// Row i ·= s.
    fn scale(&mut self, i: usize, s: f64);
}

/// M X = B by the tree factor M = Lᵀ D L over the rows of `rows`: Lᵀ y = b (leaves first),
/// D z = y, L x = z (root first).
#[inline(always)]
fn walk<const N: usize>(topology: &LinkTopology, ldl: &SMatrix<f64, N, N>, rows: &mut impl Rows) {
    for &i in topology.order.iter().rev() {
        let mut j = topology.parent[i];
        while let Some(a) = j {
            rows.sub(a, i, ldl[(i, a)]);
            j = topology.parent[a];
        }
    }
    for i in 0..N {
        rows.scale(i, 1.0 / ldl[(i, i)]);
    }
    for &i in topology.order {
        let mut j = topology.parent[i];
        while let Some(a) = j {
            rows.sub(i, a, ldl[(i, a)]);
            j = topology.parent[a];
        }
    }
}

/// M X = B by the dense factors M = Uᵀ D U (`u` unit upper triangular above its diagonal, `inv_d`
/// = D⁻¹) over the rows of `rows`, as [`walk`] along a tree: Uᵀ y = b (row i less u_ai times each
/// row a before it), D z = y, U x = z (row i less u_ik times each row k after it) — each step one
/// row's multiply-add across all the blocks' columns (in SIMD lanes), where solving by M⁻¹ (N
/// solves, each a chain of dependent multiply-adds, then three products) took a third more time
/// on the Panda (the solves of its `linearize` 690 → 520 ns; the whole call 0.97 of its time in
/// interleaved runs).
#[inline(always)]
fn dense_walk<const N: usize>(u: &SMatrix<f64, N, N>, inv_d: &[f64; N], rows: &mut impl Rows) {
    // Each finished row subtracted from the rows it reaches, one after another (independent
    // updates, where finishing one row at a time chains its multiply-adds).
    for a in 0..N {
        for i in a + 1..N {
            rows.sub(i, a, u[(a, i)]);
        }
    }
    for (i, &s) in inv_d.iter().enumerate() {
        rows.scale(i, s);
    }
    for k in (1..N).rev() {
        for i in 0..k {
            rows.sub(i, k, u[(i, k)]);
        }
    }
}

/// B stored by columns: row i's entries N apart.
struct Columns<'a, const N: usize, const C: usize>(&'a mut SMatrix<f64, N, C>);

impl<const N: usize, const C: usize> Rows for Columns<'_, N, C> {
    #[inline(always)]
    fn sub(&mut self, a: usize, i: usize, l: f64) {
        let w = self.0.as_mut_slice();
        for c in 0..C {
            w[c * N + a] -= l * w[c * N + i];
        }
    }

    #[inline(always)]
    fn scale(&mut self, i: usize, s: f64) {
        let w = self.0.as_mut_slice();
        for c in 0..C {
            w[c * N + i] *= s;
        }
    }
}

/// Column a −= l · column i of a matrix stored by columns (row a of its transpose, contiguous).
#[inline(always)]
fn sub_column<const C: usize, const N: usize>(m: &mut SMatrix<f64, C, N>, a: usize, i: usize, l: f64) {
    let w = m.as_mut_slice();
    let (to, from) = if a < i {
        let (low, high) = w.split_at_mut(i * C);
        (&mut low[a * C..(a + 1) * C], &high[..C])
    } else {
        let (low, high) = w.split_at_mut(a * C);
        (&mut high[..C], &low[i * C..(i + 1) * C])
    };
    for (x, y) in to.iter_mut().zip(from) {
        *x -= l * y;
    }
}

impl<const N: usize, const W: usize> Rows for SolvedRows<N, W> {
    #[inline(always)]
    fn sub(&mut self, a: usize, i: usize, l: f64) {
        sub_column(&mut self.by_q, a, i, l);
        sub_column(&mut self.by_v, a, i, l);
        sub_column(&mut self.sensitivities, a, i, l);
    }

    #[inline(always)]
    fn scale(&mut self, i: usize, s: f64) {
        self.by_q.column_mut(i).scale_mut(s);
        self.by_v.column_mut(i).scale_mut(s);
        self.sensitivities.column_mut(i).scale_mut(s);
    }
}

/// The smallest pivot of the tree factor, relative to M's own diagonal entry.
const PIVOT_TOLERANCE: f64 = 1e-14;

/// From how many joints [`LinkDynamics::mass_matrix`] computes M's entries by runs of ancestors:
/// on a chain of links turning about z, y and x in turn, the runs took 1.05 times the pairs' time
/// at 9 to 16 links, 0.95–0.98 at 20, 0.89 at 24 and 0.81 at 48 (interleaved in one process,
/// 2026-12-05).
const RUNS_FROM: usize = 20;

impl<const N: usize> MassOperator<N> for TreeMassFactor<N> {
    fn solve<const C: usize>(&self, mut b: SMatrix<f64, N, C>) -> Result<SMatrix<f64, N, C>, SingularMatrix> {
        match &self.0 {
            TreeFactorKind::Dense(f) => return f.solve(b),
            // Row by row of B: each walk up the tree serves every column at once.
            TreeFactorKind::Tree { topology, ldl } => walk(topology, ldl, &mut Columns(&mut b)),
        }
        if all_finite(&b) { Ok(b) } else { Err(SingularMatrix) }
    }

    fn apply(&self, v: &SVector<f64, N>) -> SVector<f64, N> {
        match &self.0 {
            TreeFactorKind::Dense(f) => f.apply(v),
            TreeFactorKind::Tree { topology, ldl } => {
                // M v = Lᵀ D L v.
                let mut w = *v;
                for &i in topology.order.iter().rev() {
                    let mut j = topology.parent[i];
                    let mut x = w[i];
                    while let Some(a) = j {
                        x += ldl[(i, a)] * v[a];
                        j = topology.parent[a];
                    }
                    w[i] = x;
                }
                for i in 0..N {
                    w[i] *= ldl[(i, i)];
                }
                let mut out = w;
                for &i in topology.order.iter().rev() {
                    let wi = w[i];
                    let mut j = topology.parent[i];
                    while let Some(a) = j {
                        out[a] += ldl[(i, a)] * wi;
                        j = topology.parent[a];
                    }
                }
                out
            }
        }
    }
}

/// The generalized forces τ(t, q, q̇) other than the links' (the written forces and potentials, the
/// inputs at their values) and their derivatives, at the state.
#[derive(Debug, Clone, PartialEq)]
pub struct JointForces<const N: usize> {
    /// τ.
    pub value: SVector<f64, N>,
    /// ∂τ/∂q.
    pub d_positions: SMatrix<f64, N, N>,
    /// ∂τ/∂q̇.
    pub d_velocities: SMatrix<f64, N, N>,
}

/// A tree of links at one state, for [`LinkDynamics::derivatives`].
///
/// ```
/// use routh_runtime::mechanics::{JointForces, LinkDynamics, LinkJoint, LinkTopology};
/// use routh_runtime::nalgebra::{SMatrix, SVector};
///
/// // A pendulum: one revolute joint about z, a point mass m at distance l along the link's −y,
/// // gravity along −y: q̈ = −(g / l) sin q, ∂q̈/∂q = −(g / l) cos q, M = m l².
/// static ONE: LinkTopology = LinkTopology { parent: &[None], order: &[0] };
/// let (m, l, g, q) = (2.0, 0.7, 9.81, 0.4_f64);
/// let (c, s) = (q.cos(), q.sin());
/// let joint = LinkJoint::new([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]], [0.0; 3], [0.0, 0.0, 1.0, 0.0, 0.0, 0.0]);
/// // The point mass about the link's origin: I_o = m (|d|² − d dᵀ), first moment h = m d, d = (0, −l, 0).
/// let mut inertia = [[0.0; 6]; 6];
/// (inertia[0][0], inertia[2][2]) = (m * l * l, m * l * l);
/// (inertia[0][5], inertia[5][0], inertia[2][3], inertia[3][2]) = (-m * l, -m * l, m * l, m * l);
/// (inertia[3][3], inertia[4][4], inertia[5][5]) = (m, m, m);
/// let none = JointForces { value: SVector::zeros(), d_positions: SMatrix::zeros(), d_velocities: SMatrix::zeros() };
/// let d = LinkDynamics::<1>::new(&ONE, [joint], [inertia], [0.0, -g, 0.0]).derivatives(0.0, &SVector::from([1.3]), &none)?;
/// assert!((d.accelerations[0] + g / l * s).abs() < 1e-12);
/// assert!((d.d_positions[(0, 0)] + g / l * c).abs() < 1e-12);
/// assert!((d.mass[(0, 0)] - m * l * l).abs() < 1e-12);
/// # Ok::<(), routh_runtime::FieldError>(())
/// ```
#[derive(Debug, Clone, Copy)]
pub struct LinkDynamics<const N: usize> {
    topology: &'static LinkTopology,
    joints: [LinkJoint; N],
    /// Each link's inertia about its origin in its axes, rigid.
    inertia: [Rigid; N],
    armature: [f64; N],
    gravity: Vector3<f64>,
    /// The link whose velocity and acceleration turn each joint's S_j: its parent's, or for an
    /// orientation's joint the parent of the orientation's first ([`Self::with_orientations`]).
    anchor: [Option<usize>; N],
    /// Each joint's orientation (its last joint, the body's), `usize::MAX` for a screw.
    orientation: [usize; N],
    /// Whether each link carries mass: a massless one (an orientation's inner links, a floating
    /// base's translations) adds nothing to the passes' momenta and forces.
    massive: [bool; N],
    /// Whether each joint is a translation with only translations above it (a floating base's):
    /// its columns of ∂K/∂q and ∂K/∂q̇ vanish (see [`Self::kinetic_pairs`]).
    still: [bool; N],
}

/// m × x of two motions.
#[inline]
fn cross_motion(m: &Vector6<f64>, x: &Vector6<f64>) -> Vector6<f64> {
    let (w, v) = (m.fixed_rows::<3>(0), m.fixed_rows::<3>(3));
    let (xw, xv) = (x.fixed_rows::<3>(0), x.fixed_rows::<3>(3));
    let top = w.cross(&xw);
    let bottom = w.cross(&xv) + v.cross(&xw);
    Vector6::new(top[0], top[1], top[2], bottom[0], bottom[1], bottom[2])
}

/// m ×* f of a motion and a force.
#[inline]
fn cross_force(m: &Vector6<f64>, f: &Vector6<f64>) -> Vector6<f64> {
    let (w, v) = (m.fixed_rows::<3>(0), m.fixed_rows::<3>(3));
    let (n, fl) = (f.fixed_rows::<3>(0), f.fixed_rows::<3>(3));
    let top = w.cross(&n) + v.cross(&fl);
    let bottom = w.cross(&fl);
    Vector6::new(top[0], top[1], top[2], bottom[0], bottom[1], bottom[2])
}

/// B x = v ×* (Y x) − Y (v × x) + x ×* h (h = Y v) of a link, summed over a subtree as B^C: by
/// its two parts, B = H − Q, with H x = x ×* h (linear in h, so that the subtree's H is that of
/// its momentum Σ h) and Q = P + Pᵀ, P = Y \[v×\] (Y is symmetric and \[v×*\] = −\[v×\]ᵀ). By 3×3
/// blocks, with W = \[ω×\], U = \[u×\], C = \[c×\] of Y's first moment c, I its rotational inertia
/// and m its mass, P = [I W + C U, C W; m U − C W, m W], so that
///
/// ```text
/// Q = [I W − W I + C U + U C,  [e×];  −[e×],  0],   e = c × ω − m u   ([C, W] = [(c × ω)×])
/// ```
///
/// a symmetric block and a vector: nine numbers to form and to sum where B takes a 6 × 6 matrix
/// with 27 non-zero entries. And Hᵀ = −H, so that Bᵀ = −H − Q: B x and Bᵀ x share their two
/// products.
#[derive(Debug, Clone, Copy, Default)]
struct Variation {
    /// I W − W I + C U + U C (symmetric).
    sym: Matrix3<f64>,
    /// e = c × ω − m u.
    e: Vector3<f64>,
    /// The momentum h = Y v (angular, linear).
    h: Vector6<f64>,
}

impl Variation {
    /// The link with inertia `y` moving with `v` and carrying the momentum `h` = Y v.
    #[inline]
    fn of(y: &Rigid, v: &Vector6<f64>, h: &Vector6<f64>) -> Self {
        let (w, u) = (Vector3::new(v[0], v[1], v[2]), Vector3::new(v[3], v[4], v[5]));
        let c = y.first_moment();
        // I W (I symmetric): column k is I (ω × e_k); then I W − W I = I W + (I W)ᵀ.
        let iw = y.rotational() * w.cross_matrix();
        let cu = c.dot(&u);
        // C U + U C = u cᵀ + c uᵀ − 2 (c·u) 1.
        let sym = Matrix3::from_fn(|r, k| iw[(r, k)] + iw[(k, r)] + u[r] * c[k] + c[r] * u[k]) - Matrix3::identity() * (2.0 * cu);
        Variation { sym, e: c.cross(&w) - u * y.mass(), h: *h }
    }

    #[inline]
    fn add(&mut self, other: &Self) {
        self.sym += other.sym;
        self.e += other.e;
        self.h += other.h;
    }

    /// (H x, Q x).
    #[inline]
    fn parts(&self, x: &Vector6<f64>) -> (Vector6<f64>, Vector6<f64>) {
        let (xw, xv) = (Vector3::new(x[0], x[1], x[2]), Vector3::new(x[3], x[4], x[5]));
        let (hn, hf) = (Vector3::new(self.h[0], self.h[1], self.h[2]), Vector3::new(self.h[3], self.h[4], self.h[5]));
        let top = xw.cross(&hn) + xv.cross(&hf);
        let bottom = xw.cross(&hf);
        let hx = Vector6::new(top[0], top[1], top[2], bottom[0], bottom[1], bottom[2]);
        let top = self.sym * xw + self.e.cross(&xv);
        let bottom = xw.cross(&self.e);
        (hx, Vector6::new(top[0], top[1], top[2], bottom[0], bottom[1], bottom[2]))
    }

    /// B x.
    #[inline]
    fn times(&self, x: &Vector6<f64>) -> Vector6<f64> {
        let (hx, qx) = self.parts(x);
        hx - qx
    }
}

impl<const N: usize> LinkDynamics<N> {
    /// The tree `topology` with its `joints` at the state (each a screw: S_j constant in its link's
    /// axes) and its links' spatial `inertia` about their origins in their axes, under the uniform
    /// gravitational field `gravity`, without armatures.
    #[must_use]
    #[inline]
    pub fn new(topology: &'static LinkTopology, joints: [LinkJoint; N], inertia: [[[f64; 6]; 6]; N], gravity: [f64; 3]) -> Self {
        debug_assert!(topology.parent.len() == N && topology.order.len() == N);
        let inertia: [Rigid; N] = std::array::from_fn(|j| Rigid::of(&inertia[j]));
        let massive = std::array::from_fn(|j| !inertia[j].is_zero());
        let mut anchor = [None; N];
        anchor.copy_from_slice(topology.parent);
        let mut still = [false; N];
        for &j in topology.order {
            let translation = joints[j].s.fixed_rows::<3>(0).iter().all(|&w| w == 0.0);
            still[j] = translation && topology.parent[j].is_none_or(|k| still[k]);
        }
        LinkDynamics {
            topology,
            joints,
            inertia,
            armature: [0.0; N],
            gravity: Vector3::from(gravity),
            anchor,
            orientation: [usize::MAX; N],
            massive,
            still,
        }
    }

    /// The same with orientations among the joints: each `[a, b, c]` an orientation's three joints
    /// (a floating base or a ball joint, its body angular velocities ω₁, ω₂, ω₃ the rates), chained
    /// a → b → c with b's and c's links massless at a's origin (A = 1, ℓ = 0), whose positions
    /// are differentiated along the body rotation vector θ (the link turned to R exp(θ), at
    /// fixed ω). A change of θ_k turns the whole body by S_k — its other axes too — so that every
    /// pair of the three takes the form of a joint below another (their S_i turning with S_j
    /// cancels against their forces', as below a screw), and each S_k moves with the velocity
    /// of the orientation's parent: ψ_k = v_λ × S_k, α_k = a_λ × S_k + v_λ × ψ_k with λ the
    /// parent of a.
    ///
    /// # Panics
    /// In debug builds, where the three joints are not chained a → b → c.
    #[must_use]
    #[inline]
    pub fn with_orientations(mut self, orientations: &[[usize; 3]]) -> Self {
        for &[a, b, c] in orientations {
            debug_assert!(
                self.topology.parent[b] == Some(a) && self.topology.parent[c] == Some(b),
                "an orientation's joints chain"
            );
            for j in [a, b, c] {
                self.anchor[j] = self.topology.parent[a];
                self.orientation[j] = c;
            }
        }
        self
    }

    /// The same with each joint's armature a_j (½ a_j q̇_j² in the kinetic energy).
    #[must_use]
    #[inline]
    pub fn with_armature(mut self, armature: [f64; N]) -> Self {
        self.armature = armature;
        self
    }

    /// q̈, M, ∂q̈/∂q and ∂q̈/∂q̇ at the joint rates `qd` under the other generalized forces
    /// `forces` (see the [module docs](self)).
    ///
    /// # Errors
    /// [`FieldError::SingularMassMatrix`] where M cannot be factored, [`FieldError::NonFinite`]
    /// where an input or a result is not finite.
    pub fn derivatives(&self, t: f64, qd: &SVector<f64, N>, forces: &JointForces<N>) -> Result<LinkDerivatives<N>, FieldError> {
        let mut rows = SolvedRows::<N, 0>::new();
        let Accelerated { mass, factor, accelerations } =
            self.solved_rows(t, qd, forces, |_| SMatrix::zeros(), &mut rows, |_| ())?;
        Ok(LinkDerivatives {
            accelerations,
            mass,
            d_positions: rows.by_q.transpose(),
            d_velocities: rows.by_v.transpose(),
            factor,
        })
    }

    /// The first-order field's Jacobian A = ∂F/∂x of F = (q̇, q̈) over x = (q, q̇) (`D = 2N`) and
    /// its sensitivities ∂F/∂w = (0, M⁻¹ ∂g/∂w) to `W` other quantities (inputs, parameters), whose
    /// generalized forces' derivatives ∂g/∂w `dg_dw` gives at q̈: [`Self::derivatives`] and the
    /// sensitivities in one go, the derivatives' right-hand sides solved together and each result
    /// written once, where it belongs.
    ///
    /// # Errors
    /// As [`Self::derivatives`].
    pub fn linearization<const D: usize, const W: usize>(
        &self,
        t: f64,
        qd: &SVector<f64, N>,
        forces: &JointForces<N>,
        dg_dw: impl FnOnce(&SVector<f64, N>) -> SMatrix<f64, N, W>,
    ) -> Result<Linearization<D, W>, FieldError> {
        const { assert!(D == 2 * N, "the state of a tree of links is (q, q̇)") };
        let mut rows = SolvedRows::<N, W>::new();
        self.solved_rows(t, qd, forces, dg_dw, &mut rows, |_| ())?;
        let mut out = Linearization::<D, W> { a: SMatrix::zeros(), b: SMatrix::zeros() };
        rows.write_into(&mut out);
        Ok(out)
    }

    /// [`Self::linearization`] of a tree with orientations ([`Self::with_orientations`]) at the
    /// state `x` = (q, v) with `P` positions: A's rows of q̇ = K(q) v from the rates' Jacobians
    /// `rates` = (∂q̇/∂q, ∂q̇/∂v), its rows of v̇ over the quaternions' components from the
    /// derivatives along each orientation's body rotation vector
    /// ([`StateLayout::positions_from_chart`](super::StateLayout::positions_from_chart)).
    ///
    /// # Errors
    /// As [`Self::derivatives`].
    pub fn linearization_with_rates<const P: usize, const D: usize, const W: usize>(
        &self,
        t: f64,
        x: &SVector<f64, D>,
        forces: &JointForces<N>,
        dg_dw: impl FnOnce(&SVector<f64, N>) -> SMatrix<f64, N, W>,
        rates: (&SMatrix<f64, P, P>, &SMatrix<f64, P, N>),
    ) -> Result<Linearization<D, W>, FieldError> {
        const { assert!(D == P + N, "the state (q, v) of a tree of links") };
        let qd = x.fixed_rows::<N>(P).into_owned();
        let mut rows = SolvedRows::<N, W>::new();
        self.solved_rows(t, &qd, forces, dg_dw, &mut rows, |_| ())?;
        let mut out = Linearization::<D, W> { a: SMatrix::zeros(), b: SMatrix::zeros() };
        let (by_q, by_v) = (&rows.by_q, &rows.by_v);
        super::StateLayout::<P, N, D>::write_jacobian_from_chart(&mut out.a, x, rates, |r, c| by_q[(c, r)], |r, c| by_v[(c, r)]);
        out.b.fixed_rows_mut::<N>(P).tr_copy_from(&rows.sensitivities);
        Ok(out)
    }

    /// q̈, M, ∂q̈/∂(q, q̇, w) and M ∂q̈/∂(q, q̇, w) at the joint rates `qd` under the other
    /// generalized forces `forces`, whose derivatives ∂g/∂w `dg_dw` gives at q̈ (an orientation's
    /// columns of ∂/∂q along its body rotation vector at fixed rates): the derivatives' right-hand
    /// sides kept as they are before they are solved, for the tangent linearisation and its
    /// mechanical form ([`VelocityBlocks`]).
    ///
    /// # Errors
    /// As [`Self::derivatives`].
    pub fn velocity_blocks<const W: usize>(
        &self,
        t: f64,
        qd: &SVector<f64, N>,
        forces: &JointForces<N>,
        dg_dw: impl FnOnce(&SVector<f64, N>) -> SMatrix<f64, N, W>,
    ) -> Result<VelocityBlocks<N, W>, FieldError> {
        let mut rows = SolvedRows::<N, W>::new();
        // Each block written once, where it belongs (the rows are stored transposed).
        let zeros = || VelocityDerivatives::new(SMatrix::zeros(), SMatrix::zeros(), SMatrix::zeros());
        let mut out =
            VelocityBlocks { accelerations: SVector::zeros(), mass: SMatrix::zeros(), solved: zeros(), forces: zeros() };
        let fill = |d: &mut VelocityDerivatives<N, W>, r: &SolvedRows<N, W>| {
            d.positions.tr_copy_from(&r.by_q);
            d.velocities.tr_copy_from(&r.by_v);
            d.others.tr_copy_from(&r.sensitivities);
        };
        let Accelerated { mass, accelerations, .. } =
            self.solved_rows(t, qd, forces, dg_dw, &mut rows, |r| fill(&mut out.forces, r))?;
        fill(&mut out.solved, &rows);
        (out.accelerations, out.mass) = (accelerations, mass);
        Ok(out)
    }

    /// [`Self::linearization`] in the tangent chart of the orientations
    /// ([`Self::with_orientations`]; `D = 2N`): the state (q, v) with each orientation's position
    /// charted by its body rotation vector θ about the reference motion and its rates by θ̇ = δω −
    /// ω₀ × θ — A and B of [`linearize::tangent`](crate::linearize::tangent), without its names,
    /// embedding and mechanical form, as fixed-size matrices for a controller's design (a free
    /// body's 12 × 12). The links' derivatives are already along θ at fixed ω, so that the chart
    /// is three 3 × 3 corrections per orientation on [`Self::linearization`]'s blocks:
    ///
    /// ```text
    /// ∂/∂θ = ∂/∂θ|_ω + ∂/∂ω [ω₀×],     θ̈ = δω̇ − ω̇₀ × θ − ω₀ × θ̇
    /// ```
    ///
    /// # Errors
    /// As [`Self::derivatives`].
    pub fn tangent_linearization<const D: usize, const W: usize>(
        &self,
        t: f64,
        qd: &SVector<f64, N>,
        forces: &JointForces<N>,
        dg_dw: impl FnOnce(&SVector<f64, N>) -> SMatrix<f64, N, W>,
    ) -> Result<Linearization<D, W>, FieldError> {
        const { assert!(D == 2 * N, "the tangent chart of a tree of links is (θ, θ̇)") };
        let mut rows = SolvedRows::<N, W>::new();
        let Accelerated { accelerations, .. } = self.solved_rows(t, qd, forces, dg_dw, &mut rows, |_| ())?;
        let mut out = Linearization::<D, W> { a: SMatrix::zeros(), b: SMatrix::zeros() };
        rows.write_into(&mut out);
        // Each orientation by its last joint c, chained a → b → c (rates ω₁, ω₂, ω₃).
        for c in (0..N).filter(|&c| self.orientation[c] == c) {
            let Some(b) = self.topology.parent[c] else { continue };
            let Some(a) = self.topology.parent[b] else { continue };
            let at = [a, b, c];
            let cross = |v: &SVector<f64, N>| Vector3::new(v[a], v[b], v[c]).cross_matrix();
            let (w0, dw0) = (cross(qd), cross(&accelerations));
            let by_w = SMatrix::<f64, N, 3>::from_fn(|i, e| out.a[(N + i, N + at[e])]);
            crate::linearize::add_turned(&mut out.a, (N, at), (&by_w, [0, 1, 2]), &w0, 1.0);
            crate::linearize::turn_rates(&mut out.a, N, at, (&w0, &dw0));
        }
        Ok(out)
    }

    /// ∂q̈/∂q, ∂q̈/∂q̇ and M⁻¹ ∂g/∂w at q̈ into `rows` ([`Self::linearization`]), finite: the passes
    /// at a = 0, M and its factor, q̈, the accelerations' share added to the passes, and the
    /// derivatives' right-hand sides ∂τ/∂x − ∂K/∂x at a = q̈ and ∂g/∂w solved together.
    #[inline(always)]
    fn solved_rows<const W: usize>(
        &self,
        t: f64,
        qd: &SVector<f64, N>,
        forces: &JointForces<N>,
        dg_dw: impl FnOnce(&SVector<f64, N>) -> SMatrix<f64, N, W>,
        rows: &mut SolvedRows<N, W>,
        before_solve: impl FnOnce(&SolvedRows<N, W>),
    ) -> Result<Accelerated<N>, FieldError> {
        let mut passes = Passes::new();
        self.passes(qd, None, &mut passes);
        let (mass, bias) = self.mass_and_bias(&passes);
        let factor = TreeMassFactor::new(t, self.topology, mass)?;
        let accelerations = factor.solve(forces.value - bias).map_err(|_| FieldError::SingularMassMatrix { t })?;
        self.add_accelerations(&mut passes, &accelerations);
        rows.by_q.tr_copy_from(&forces.d_positions);
        rows.by_v.tr_copy_from(&forces.d_velocities);
        rows.sensitivities.tr_copy_from(&dg_dw(&accelerations));
        self.kinetic_pairs(&passes, |i, j, kq, kv| {
            rows.by_q[(j, i)] -= kq;
            rows.by_v[(j, i)] -= kv;
        });
        before_solve(rows);
        factor.solve_rows(rows).map_err(|_| FieldError::SingularMassMatrix { t })?;
        if !(all_finite(&accelerations) && all_finite(&rows.by_q) && all_finite(&rows.by_v) && all_finite(&rows.sensitivities)) {
            return Err(FieldError::NonFinite { t });
        }
        Ok(Accelerated { mass, factor, accelerations })
    }

    /// ∂K/∂q and ∂K/∂q̇ of the inverse dynamics' kinetic part K(q, q̇, a) = M a + (velocity products
    /// and gravity) at the joint rates `qd` and accelerations `a` (a constrained tree's saddle
    /// point differentiates its residual with them; see the [module docs](self)).
    #[must_use]
    pub fn kinetic_derivatives(&self, qd: &SVector<f64, N>, a: &SVector<f64, N>) -> (SMatrix<f64, N, N>, SMatrix<f64, N, N>) {
        self.kinetic_derivatives_onto(qd, a, (SMatrix::zeros(), SMatrix::zeros()))
    }

    /// ∂τ/∂q and ∂τ/∂q̇ of the inverse dynamics τ = K(q, q̇, a) − τ_other at the joint rates `qd` and
    /// accelerations `a`: [`Self::kinetic_derivatives`] less the other generalized forces'
    /// derivatives in `forces`, each entry written once.
    #[must_use]
    pub fn inverse_dynamics_derivatives(
        &self,
        qd: &SVector<f64, N>,
        a: &SVector<f64, N>,
        forces: &JointForces<N>,
    ) -> (SMatrix<f64, N, N>, SMatrix<f64, N, N>) {
        // Entry by entry: nalgebra's negation of a whole static matrix goes through its iterators.
        let negated = |m: &SMatrix<f64, N, N>| {
            let mut out = SMatrix::<f64, N, N>::zeros();
            for (o, x) in out.as_mut_slice().iter_mut().zip(m.as_slice()) {
                *o = -x;
            }
            out
        };
        self.kinetic_derivatives_onto(qd, a, (negated(&forces.d_positions), negated(&forces.d_velocities)))
    }

    /// ∂K/∂q and ∂K/∂q̇ at the accelerations `a` (known, in the one pass) added onto `start`.
    #[inline(always)]
    fn kinetic_derivatives_onto(
        &self,
        qd: &SVector<f64, N>,
        a: &SVector<f64, N>,
        (mut dq, mut dv): (SMatrix<f64, N, N>, SMatrix<f64, N, N>),
    ) -> (SMatrix<f64, N, N>, SMatrix<f64, N, N>) {
        let mut passes = Passes::new();
        self.passes(qd, Some(a), &mut passes);
        self.kinetic_pairs(&passes, |i, j, kq, kv| {
            dq[(i, j)] += kq;
            dv[(i, j)] += kv;
        });
        (dq, dv)
    }

    /// K(q, q̇, a) itself (M a plus K(q, q̇, 0) from the same passes), for checks.
    #[cfg(test)]
    fn kinetic(&self, qd: &SVector<f64, N>, a: &SVector<f64, N>) -> SVector<f64, N> {
        let mut passes = Passes::new();
        self.passes(qd, None, &mut passes);
        let (mass, bias) = self.mass_and_bias(&passes);
        mass * a + bias
    }

    /// The ground's acceleration (0, −g).
    fn ground(&self) -> Vector6<f64> {
        Vector6::new(0.0, 0.0, 0.0, -self.gravity[0], -self.gravity[1], -self.gravity[2])
    }

    /// Root → leaves at the accelerations `a` (or a = 0) — poses, S_j, v_j, ψ_j, a_j, the links'
    /// inertias, h_j, f_j, B_j — and leaves → root the composites, into `p`.
    fn passes(&self, qd: &SVector<f64, N>, a: Option<&SVector<f64, N>>, p: &mut Passes<N>) {
        let top = self.topology;
        let zero = Vector6::zeros();
        let ground = self.ground();
        let mut pose = [(Matrix3::<f64>::identity(), Vector3::<f64>::zeros()); N];
        for &j in top.order {
            let (v_p, a_p) = match top.parent[j] {
                Some(k) => (p.v[k], p.acc[k]),
                None => (zero, ground),
            };
            let (r, o) = self.place(j, &mut pose, &mut p.s);
            p.v[j] = v_p + p.s[j] * qd[j];
            let v_anchor = self.anchor[j].map_or(zero, |k| p.v[k]);
            p.psi[j] = cross_motion(&v_anchor, &p.s[j]);
            p.acc[j] = match a {
                Some(a) => a_p + p.psi[j] * qd[j] + p.s[j] * a[j],
                None => a_p + p.psi[j] * qd[j],
            };
            // A massless link's body, force and variation stay zero.
            if self.massive[j] {
                let body = self.inertia[j].placed(&r, &o);
                let h = body.times(&p.v[j]);
                p.force[j] = body.times(&p.acc[j]) + cross_force(&p.v[j], &h);
                p.bc[j] = Variation::of(&body, &p.v[j], &h);
                p.composite[j] = body;
            }
        }
        // Leaves → root: the composites (Y^C_j and B^C_j in place of Y_j and B_j).
        for &j in top.order.iter().rev() {
            if let Some(k) = top.parent[j] {
                let moved = p.composite[j];
                p.composite[k].add(&moved);
                let below = p.bc[j];
                p.bc[k].add(&below);
                let f = p.force[j];
                p.force[k] += f;
            }
        }
        for j in 0..N {
            p.ys[j] = p.composite[j].times(&p.s[j]);
        }
    }

    /// Joint j's link placed in the ground's axes from its parent's pose (root → leaves): its pose
    /// (R_j, o_j) = (R_λ A_j, o_λ + R_λ ℓ_j) into `pose` and S_j = (R_j s_ω, R_j s_v + o_j × R_j s_ω)
    /// into `s`; returns the pose.
    #[inline(always)]
    fn place(
        &self,
        j: usize,
        pose: &mut [(Matrix3<f64>, Vector3<f64>); N],
        s: &mut [Vector6<f64>; N],
    ) -> (Matrix3<f64>, Vector3<f64>) {
        let joint = &self.joints[j];
        let (r, o) = match self.topology.parent[j] {
            Some(k) => (pose[k].0 * joint.a, pose[k].1 + pose[k].0 * joint.l),
            None => (joint.a, joint.l),
        };
        pose[j] = (r, o);
        let sw = r * joint.s.fixed_rows::<3>(0);
        let sv = r * joint.s.fixed_rows::<3>(3) + o.cross(&sw);
        s[j] = Vector6::new(sw[0], sw[1], sw[2], sv[0], sv[1], sv[2]);
        (r, o)
    }

    /// M alone by the composite rigid bodies in the ground's axes, O(n) 6-D work and a dot product
    /// per pair of joints one above the other: the links' poses and S_j root → leaves (no velocity,
    /// no force), their inertias placed and summed leaves → root into the composites Y^C_j, and
    /// M_ij = S_i·Y^C_j S_j for i ≼ j (+ the armature a_j on the diagonal), zero where neither
    /// joint is above the other. A long chain's M where code specialised per pair would grow as
    /// n² (the generated CRBA's limit).
    ///
    /// ```
    /// use routh_runtime::mechanics::{LinkDynamics, LinkJoint, LinkTopology};
    ///
    /// // Two links turning about z, the second a point mass m at (l, 0, 0) beyond the first's
    /// // origin by d along x (the first massless): M = m [l² + d² + 2 l d cos q₂, l² + l d cos q₂; ·, l²].
    /// static TWO: LinkTopology = LinkTopology { parent: &[None, Some(0)], order: &[0, 1] };
    /// let (m, l, d, q2) = (1.5, 0.4, 0.7, 0.3_f64);
    /// let (c, s) = (q2.cos(), q2.sin());
    /// let z = [0.0, 0.0, 1.0, 0.0, 0.0, 0.0];
    /// let first = LinkJoint::new([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]], [0.0; 3], z);
    /// let second = LinkJoint::new([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]], [d, 0.0, 0.0], z);
    /// // The point mass about its link's origin, [I_o, m [r×]; −m [r×], m 1]: I_o = m (|r|² 1 − r rᵀ),
    /// // r = (l, 0, 0).
    /// let mut point = [[0.0; 6]; 6];
    /// (point[1][1], point[2][2]) = (m * l * l, m * l * l);
    /// (point[1][5], point[5][1], point[2][4], point[4][2]) = (-m * l, -m * l, m * l, m * l);
    /// (point[3][3], point[4][4], point[5][5]) = (m, m, m);
    /// let mass = LinkDynamics::<2>::new(&TWO, [first, second], [[[0.0; 6]; 6], point], [0.0; 3]).mass_matrix();
    /// let m01 = m * (l * l + l * d * c);
    /// assert!((mass[(0, 0)] - m * (l * l + d * d + 2.0 * l * d * c)).abs() < 1e-14);
    /// assert!((mass[(0, 1)] - m01).abs() < 1e-14 && (mass[(1, 0)] - m01).abs() < 1e-14);
    /// assert!((mass[(1, 1)] - m * l * l).abs() < 1e-14);
    /// ```
    #[must_use]
    pub fn mass_matrix(&self) -> SMatrix<f64, N, N> {
        let top = self.topology;
        let mut pose = [(Matrix3::<f64>::identity(), Vector3::<f64>::zeros()); N];
        let mut s = [Vector6::zeros(); N];
        let mut composite = [Rigid::default(); N];
        for &j in top.order {
            let (r, o) = self.place(j, &mut pose, &mut s);
            if self.massive[j] {
                composite[j] = self.inertia[j].placed(&r, &o);
            }
        }
        for &j in top.order.iter().rev() {
            if let Some(k) = top.parent[j] {
                let moved = composite[j];
                composite[k].add(&moved);
            }
        }
        let mut ys = [Vector6::zeros(); N];
        for j in 0..N {
            ys[j] = composite[j].times(&s[j]);
        }
        if N >= RUNS_FROM { self.mass_by_runs(&s, &ys) } else { self.mass_by_pairs(&s, &ys) }
    }

    /// M_ij = S_i·(Y^C_j S_j) for i ≼ j from each joint's S_j and Y^C_j S_j (`ys`), mirrored, with
    /// the armatures on the diagonal: one 6-D dot product per pair of joints one above the other,
    /// walked up the parents.
    #[inline(always)]
    fn mass_by_pairs(&self, s: &[Vector6<f64>; N], ys: &[Vector6<f64>; N]) -> SMatrix<f64, N, N> {
        let top = self.topology;
        let mut mass = SMatrix::<f64, N, N>::zeros();
        for j in 0..N {
            let ys = &ys[j];
            mass[(j, j)] = s[j].dot(ys) + self.armature[j];
            let mut i = top.parent[j];
            while let Some(k) = i {
                let e = s[k].dot(ys);
                mass[(k, j)] = e;
                mass[(j, k)] = e;
                i = top.parent[k];
            }
        }
        mass
    }

    /// [`Self::mass_by_pairs`] column by column ([`Self::mass_matrix`] from [`RUNS_FROM`] joints
    /// on): column j's entries over each run of consecutive ancestors (joints i, i + 1, … each the
    /// parent of the next; a chain's are one run) as Σ_c (S_i)_c (Y^C_j S_j)_c across the run, S
    /// stored by components so that the run's entries are contiguous (SIMD lanes), then mirrored.
    #[inline(always)]
    fn mass_by_runs(&self, s: &[Vector6<f64>; N], ys: &[Vector6<f64>; N]) -> SMatrix<f64, N, N> {
        let top = self.topology;
        // S by components: rows[c][i] = (S_i)_c.
        let mut rows = [[0.0_f64; N]; 6];
        for (i, si) in s.iter().enumerate() {
            for c in 0..6 {
                rows[c][i] = si[c];
            }
        }
        let mut mass = SMatrix::<f64, N, N>::zeros();
        for j in 0..N {
            let y = &ys[j];
            let column = &mut mass.as_mut_slice()[j * N..(j + 1) * N];
            column[j] = s[j].dot(y) + self.armature[j];
            let mut next = top.parent[j];
            while let Some(high) = next {
                let mut low = high;
                while low > 0 && top.parent[low] == Some(low - 1) {
                    low -= 1;
                }
                let out = &mut column[low..=high];
                let len = out.len();
                let r: [&[f64]; 6] = std::array::from_fn(|c| &rows[c][low..low + len]);
                for (k, o) in out.iter_mut().enumerate() {
                    *o = r[0][k] * y[0] + r[1][k] * y[1] + r[2][k] * y[2] + r[3][k] * y[3] + r[4][k] * y[4] + r[5][k] * y[5];
                }
                next = top.parent[low];
            }
        }
        // Each pair's entry is in its lower joint's column, above or below the diagonal as the
        // joints are numbered (a parent need not have the lower index), the other slot zero.
        for j in 0..N {
            for i in 0..j {
                let e = mass[(i, j)] + mass[(j, i)];
                mass[(i, j)] = e;
                mass[(j, i)] = e;
            }
        }
        mass
    }

    /// M by the composite rigid bodies and K(q, q̇, 0): M by the pairs at any size, the runs of
    /// [`Self::mass_by_runs`] having measured no faster inside the derivatives (the 29-joint humanoid's
    /// `linearize` 1.02 of its time with them, its branches' runs short).
    fn mass_and_bias(&self, p: &Passes<N>) -> (SMatrix<f64, N, N>, SVector<f64, N>) {
        let bias = SVector::<f64, N>::from_fn(|j, _| p.s[j].dot(&p.force[j]));
        (self.mass_by_pairs(&p.s, &p.ys), bias)
    }

    /// The accelerations' share S_j a_j added to passes made at a = 0: to the links' accelerations
    /// (root → leaves) and to the composite forces, Σ_{k≽j} Y_k Δa_k with Δa_k = Σ_{m≼k} S_m a_m
    /// = Y^C_j Δa_j + Σ_{m≻j} Y^C_m S_m a_m (each link below j sees Δa_j and the joints between),
    /// from the composites and their Y^C_m S_m alone (leaves → root).
    fn add_accelerations(&self, p: &mut Passes<N>, a: &SVector<f64, N>) {
        let top = self.topology;
        let zero = Vector6::zeros();
        let mut added = [zero; N];
        for &j in top.order {
            let from = top.parent[j].map_or(zero, |k| added[k]);
            added[j] = from + p.s[j] * a[j];
            p.acc[j] += added[j];
        }
        let mut below = [zero; N];
        for &j in top.order.iter().rev() {
            if let Some(k) = top.parent[j] {
                let b = below[j] + p.ys[j] * a[j];
                below[k] += b;
            }
        }
        for j in 0..N {
            p.force[j] += p.composite[j].times(&added[j]) + below[j];
        }
    }

    /// ∂K/∂q and ∂K/∂q̇ from passes at the accelerations: α_j = a_λ × S_j + v_λ × ψ_j, and the
    /// pairs.
    /// Each pair's entries (i, j, ∂K_i/∂q_j, ∂K_i/∂q̇_j) given to `set` once, the others zero —
    /// and none of the columns of a still joint c (a translation with only translations above
    /// it, a floating base's): with v_λ and a_λ translations (gravity uniform), ψ_c = α_c = χ_c = 0
    /// and S_c ×* F_c = (s × f, 0) meets only the translations above it, so that ∂K/∂q_c = 0;
    /// and Bᵀ S_j·S_c = −(ω_j × (p + e))·s for the subtree's linear momentum p and its
    /// e = Σ (c × ω − m u) = −p, so that ∂K/∂q̇_c = 0 (the dynamics do not see where the base is
    /// nor how fast it translates: Galilean invariance).
    #[inline(always)]
    fn kinetic_pairs(&self, p: &Passes<N>, mut set: impl FnMut(usize, usize, f64, f64)) {
        let top = self.topology;
        let zero = Vector6::zeros();
        let ground = self.ground();
        // Plain loops into zeroed arrays: `array::from_fn` left its closures out of line here.
        let mut alpha = [zero; N];
        let mut chi = [zero; N];
        let mut bs = [zero; N];
        let mut bcs = [zero; N];
        let (s, psi, bc, composite, force, ys) = (&p.s, &p.psi, &p.bc, &p.composite, &p.force, &p.ys);
        for j in 0..N {
            let (a_p, v_p) = match self.anchor[j] {
                Some(k) => (p.acc[k], p.v[k]),
                None => (ground, zero),
            };
            alpha[j] = cross_motion(&a_p, &s[j]) + cross_motion(&v_p, &psi[j]);
            // χ_j = ∂a_k/∂q̇_j − S_j × v_k below j: 2 ψ_j — but along an orientation's rate ω_j,
            // whose axes keep turning with the body's whole rate Ω (and not with the joints'
            // below j in the chain), 2 ψ_j + Ω × S_j, Ω = v_c − v_λ over the orientation c.
            chi[j] = match self.orientation[j] {
                usize::MAX => psi[j] * 2.0,
                c => psi[j] * 2.0 + cross_motion(&(p.v[c] - v_p), &s[j]),
            };
            // Bᵀ S = −H S − Q S and B S = H S − Q S.
            let (hs, qs) = bc[j].parts(&s[j]);
            bs[j] = -hs - qs;
            bcs[j] = hs - qs;
        }
        for j in 0..N {
            // Row j against itself and the joints above it, up to the still ones.
            let mut k = Some(j);
            while let Some(c) = k
                && !self.still[c]
            {
                set(j, c, ys[j].dot(&alpha[c]) + bs[j].dot(&psi[c]), ys[j].dot(&chi[c]) + bs[j].dot(&s[c]));
                k = top.parent[c];
            }
            if self.still[j] {
                continue;
            }
            // Rows i strictly above j (S_i does not turn with q_j) — but for i of j's orientation,
            // whose axes turn with the body: the form of the rows below.
            let w = cross_force(&s[j], &force[j]) + composite[j].times(&alpha[j]) + bc[j].times(&psi[j]);
            let u = composite[j].times(&chi[j]) + bcs[j];
            let mut up = top.parent[j];
            while let Some(i) = up {
                if self.orientation[i] == self.orientation[j] && self.orientation[j] != usize::MAX {
                    set(i, j, ys[i].dot(&alpha[j]) + bs[i].dot(&psi[j]), ys[i].dot(&chi[j]) + bs[i].dot(&s[j]));
                } else {
                    set(i, j, s[i].dot(&w), s[i].dot(&u));
                }
                up = top.parent[i];
            }
        }
    }
}

impl<const N: usize> Passes<N> {
    /// Zeros, to be filled by [`LinkDynamics::passes`].
    fn new() -> Self {
        let zero = Vector6::zeros();
        Passes {
            s: [zero; N],
            v: [zero; N],
            psi: [zero; N],
            acc: [zero; N],
            composite: [Rigid::default(); N],
            force: [zero; N],
            bc: [Variation::default(); N],
            ys: [zero; N],
        }
    }
}

/// ∂q̈/∂q, ∂q̈/∂q̇ and M⁻¹ ∂g/∂w ([`LinkDynamics::solved_rows`]), each stored transposed: row i
/// of a block is column i here, contiguous, for the tree factor's walk ([`Rows`]).
struct SolvedRows<const N: usize, const W: usize> {
    by_q: SMatrix<f64, N, N>,
    by_v: SMatrix<f64, N, N>,
    sensitivities: SMatrix<f64, W, N>,
}

impl<const N: usize, const W: usize> SolvedRows<N, W> {
    fn new() -> Self {
        SolvedRows { by_q: SMatrix::zeros(), by_v: SMatrix::zeros(), sensitivities: SMatrix::zeros() }
    }

    /// The first-order field's A = [0 1; ∂q̈/∂q ∂q̈/∂q̇] and B = [0; M⁻¹ ∂g/∂w] (`D = 2N`) into `out`
    /// (zero on entry).
    #[inline(always)]
    fn write_into<const D: usize>(&self, out: &mut Linearization<D, W>) {
        for i in 0..N {
            out.a[(i, N + i)] = 1.0;
        }
        out.a.fixed_view_mut::<N, N>(N, 0).tr_copy_from(&self.by_q);
        out.a.fixed_view_mut::<N, N>(N, N).tr_copy_from(&self.by_v);
        out.b.fixed_rows_mut::<N>(N).tr_copy_from(&self.sensitivities);
    }
}

/// M, its factor and q̈ ([`LinkDynamics::solved_rows`]).
struct Accelerated<const N: usize> {
    mass: SMatrix<f64, N, N>,
    factor: TreeMassFactor<N>,
    accelerations: SVector<f64, N>,
}

/// The passes' quantities in the ground's axes, per joint (see the [module docs](self)).
struct Passes<const N: usize> {
    s: [Vector6<f64>; N],
    v: [Vector6<f64>; N],
    psi: [Vector6<f64>; N],
    /// a_j: the velocity products and gravity, with the accelerations' share once they are known.
    acc: [Vector6<f64>; N],
    /// Y^C_j, the composite inertia of the subtree at j.
    composite: [Rigid; N],
    /// F_j (composite), at a = 0 until [`LinkDynamics::add_accelerations`] adds the accelerations
    /// (or with them, from passes made at them).
    force: [Vector6<f64>; N],
    /// B^C_j.
    bc: [Variation; N],
    /// Y^C_j S_j.
    ys: [Vector6<f64>; N],
}

impl<const N: usize> LinkDerivatives<N> {
    /// M factored (for more solves at the same state: ∂q̈/∂u = M⁻¹ ∂τ/∂u).
    #[must_use]
    pub fn mass_factor(&self) -> &TreeMassFactor<N> {
        &self.factor
    }

    /// The first-order field's Jacobian ∂F/∂x of F = (q̇, q̈) over x = (q, q̇) (`D = 2N`).
    #[must_use]
    pub fn field_jacobian<const D: usize>(&self) -> SMatrix<f64, D, D> {
        debug_assert_eq!(D, 2 * N);
        let mut out = SMatrix::<f64, D, D>::zeros();
        for i in 0..N {
            out[(i, N + i)] = 1.0;
            for j in 0..N {
                out[(N + i, j)] = self.d_positions[(i, j)];
                out[(N + i, N + j)] = self.d_velocities[(i, j)];
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mechanics::{LinkFactor, MassOperator};

    /// A branched tree: 0 → 1 → 2, 0 → 3 → 4, 3 → 5.
    static TREE: LinkTopology =
        LinkTopology { parent: &[None, Some(0), Some(1), Some(0), Some(3), Some(3)], order: &[0, 1, 2, 3, 4, 5] };

    /// Rotation about the unit axis `k` by `q` (Rodrigues).
    fn rotation(k: &Vector3<f64>, q: f64) -> Matrix3<f64> {
        let kx = k.cross_matrix();
        Matrix3::identity() + kx * q.sin() + kx * kx * (1.0 - q.cos())
    }

    /// Joint j at q: revolute about a tilted axis (even j) or prismatic along one (odd j), with a
    /// fixed placement A0, ℓ0 below its parent.
    fn joints(q: &SVector<f64, 6>) -> [LinkJoint; 6] {
        joints_of(q, |j| j % 2 == 1)
    }

    /// The same with the joints `prismatic` prismatic, the others revolute.
    fn joints_of(q: &SVector<f64, 6>, prismatic: impl Fn(usize) -> bool) -> [LinkJoint; 6] {
        std::array::from_fn(|j| {
            let f = j as f64;
            let a0 = rotation(&Vector3::new(0.3 * f, 1.0, -0.2).normalize(), 0.4 + 0.3 * f);
            let l0 = Vector3::new(0.1 * f, -0.25, 0.3 - 0.05 * f);
            let k = Vector3::new(0.2, -0.1 * f, 1.0).normalize();
            let rows = |m: Matrix3<f64>| std::array::from_fn(|r| [m[(r, 0)], m[(r, 1)], m[(r, 2)]]);
            if !prismatic(j) {
                LinkJoint::new(rows(a0 * rotation(&k, q[j])), l0.into(), [k[0], k[1], k[2], 0.0, 0.0, 0.0])
            } else {
                LinkJoint::new(rows(a0), (l0 + a0 * k * q[j]).into(), [0.0, 0.0, 0.0, k[0], k[1], k[2]])
            }
        })
    }

    /// A rigid body's spatial inertia about its link's origin (mass m, centre c, inertia J about
    /// the centre), by rows.
    fn inertia(m: f64, c: Vector3<f64>, j: Matrix3<f64>) -> [[f64; 6]; 6] {
        let cx = c.cross_matrix();
        let io = j - cx * cx * m;
        let h = cx * m;
        let mut out = [[0.0; 6]; 6];
        for r in 0..3 {
            for k in 0..3 {
                out[r][k] = io[(r, k)];
                out[r][k + 3] = h[(r, k)];
                out[r + 3][k] = -h[(r, k)];
            }
            out[r + 3][r + 3] = m;
        }
        out
    }

    fn inertias() -> [[[f64; 6]; 6]; 6] {
        std::array::from_fn(|j| {
            let f = j as f64;
            let j_c = Matrix3::new(0.05 + 0.01 * f, 0.002, -0.001, 0.002, 0.04, 0.003, -0.001, 0.003, 0.03 + 0.005 * f);
            inertia(1.0 + 0.3 * f, Vector3::new(0.05, -0.1 * f, 0.12), j_c)
        })
    }

    /// τ = C q̇ + K q, a damper and a spring on each joint pulled one way by the next joint's (so
    /// that ∂τ/∂q and ∂τ/∂q̇ are not symmetric: the derivatives' right-hand sides are stored
    /// transposed), and its derivatives.
    fn forces(q: &SVector<f64, 6>, qd: &SVector<f64, 6>) -> JointForces<6> {
        let coupled = |own: f64, next: f64| {
            SMatrix::<f64, 6, 6>::from_fn(|i, j| {
                if i == j {
                    own
                } else if j == i + 1 {
                    next
                } else {
                    0.0
                }
            })
        };
        let (c, k) = (coupled(-0.3, 0.15), coupled(-2.0, 0.7));
        JointForces { value: c * qd + k * q, d_positions: k, d_velocities: c }
    }

    fn at(q: &SVector<f64, 6>, qd: &SVector<f64, 6>) -> LinkDerivatives<6> {
        LinkDynamics::new(&TREE, joints(q), inertias(), [0.0, 0.0, -9.81])
            .with_armature([0.0, 0.02, 0.0, 0.0, 0.01, 0.0])
            .derivatives(0.0, qd, &forces(q, qd))
            .expect("regular")
    }

    fn state() -> (SVector<f64, 6>, SVector<f64, 6>) {
        (SVector::from_fn(|i, _| 0.3 - 0.17 * i as f64), SVector::from_fn(|i, _| 0.9 - 0.35 * i as f64))
    }

    /// The branched tree's M factored along the tree (its depths sum to 14, below three quarters of
    /// 21): solves and products against the dense factor's, to round-off; and a chain's factor is
    /// the dense one.
    #[test]
    fn a_branched_trees_mass_factors_along_the_tree() {
        let (q, qd) = state();
        let d = at(&q, &qd);
        assert!(matches!(d.factor.0, TreeFactorKind::Tree { .. }));
        let dense = MassFactor::new(d.mass).expect("regular");
        let b = SMatrix::<f64, 6, 3>::from_fn(|i, j| (i as f64 - 2.0 * j as f64).sin() + 0.5);
        let (x, y) = (d.factor.solve(b).expect("solves"), dense.solve(b).expect("solves"));
        assert!((x - y).amax() < 1e-12 * y.amax(), "{}", x - y);
        let v = b.column(0).into_owned();
        assert!((d.factor.apply(&v) - d.mass * v).amax() < 1e-12 * (d.mass * v).amax());
        static CHAIN: LinkTopology = LinkTopology { parent: &[None, Some(0), Some(1)], order: &[0, 1, 2] };
        let m = SMatrix::<f64, 3, 3>::new(3.0, 1.0, 0.5, 1.0, 2.0, 0.25, 0.5, 0.25, 1.0);
        assert!(matches!(TreeMassFactor::new(0.0, &CHAIN, m).expect("regular").0, TreeFactorKind::Dense(_)));
        let singular = SMatrix::<f64, 6, 6>::zeros();
        assert!(matches!(TreeMassFactor::new(0.5, &TREE, singular), Err(FieldError::SingularMassMatrix { t }) if t == 0.5));
    }

    /// The variation's two parts against its definition B x = v ×* (Y x) − Y (v × x) + x ×* h,
    /// summed over two links as a subtree's B^C, and Bᵀ = −H − Q through y·(B x) = (Bᵀ y)·x.
    #[test]
    fn the_variation_is_its_definition() {
        let ys = inertias();
        let vs = [Vector6::new(0.3, -1.2, 0.7, 0.4, 0.9, -0.5), Vector6::new(-0.8, 0.1, 1.1, -0.6, 0.2, 0.35)];
        let (x, y) = (Vector6::new(0.2, 0.5, -0.9, 1.3, -0.4, 0.6), Vector6::new(-0.7, 0.3, 0.8, 0.1, -1.1, 0.45));
        let mut composite = Variation::default();
        let mut bx = Vector6::zeros();
        for (k, v) in vs.iter().enumerate() {
            let rigid = Rigid::of(&ys[k + 2]);
            let h = rigid.times(v);
            bx += cross_force(v, &rigid.times(&x)) - rigid.times(&cross_motion(v, &x)) + cross_force(&x, &h);
            composite.add(&Variation::of(&rigid, v, &h));
        }
        assert!((composite.times(&x) - bx).amax() < 1e-14 * bx.amax(), "B x: {} vs {bx}", composite.times(&x));
        let (hy, qy) = composite.parts(&y);
        let bty = -hy - qy;
        assert!((y.dot(&bx) - bty.dot(&x)).abs() < 1e-14 * bx.amax() * y.amax() * 6.0);
    }

    #[test]
    fn mass_is_the_link_factors() {
        let (q, qd) = state();
        let d = at(&q, &qd);
        let armature = [0.0, 0.02, 0.0, 0.0, 0.01, 0.0];
        let factor = LinkFactor::<6>::new(0.0, &TREE, joints(&q), inertias()).expect("regular").with_armature(armature);
        for j in 0..6 {
            let column = factor.apply(&SVector::<f64, 6>::from_fn(|i, _| f64::from(u8::from(i == j))));
            assert!((d.mass.column(j) - column).norm() < 1e-12, "column {j}");
        }
    }

    /// M alone (no velocity, no force) is the link factor's products M eⱼ along the tree, a
    /// different algorithm in the links' own axes — on the branched tree, where the entries between
    /// branches are zeros, with armatures, and at two states.
    #[test]
    fn mass_alone_is_the_link_factors() {
        let armature = [0.0, 0.02, 0.0, 0.0, 0.01, 0.0];
        for q in [state().0, SVector::<f64, 6>::from_fn(|i, _| 1.1 - 0.45 * i as f64)] {
            let mass =
                LinkDynamics::<6>::new(&TREE, joints(&q), inertias(), [0.0, 0.0, -9.81]).with_armature(armature).mass_matrix();
            let factor = LinkFactor::<6>::new(0.0, &TREE, joints(&q), inertias()).expect("regular").with_armature(armature);
            for j in 0..6 {
                let column = factor.apply(&SVector::<f64, 6>::from_fn(|i, _| f64::from(u8::from(i == j))));
                assert!(
                    (mass.column(j) - column).amax() < 1e-13 * column.amax(),
                    "column {j}: {} against {column}",
                    mass.column(j)
                );
            }
            // Joints 2 and 4 are on different branches.
            assert_eq!((mass[(2, 4)], mass[(4, 2)]), (0.0, 0.0));
        }
    }

    /// M alone of a tree of 24 joints — a trunk of 8, a branch of 8 from its fifth joint and one
    /// of 8 from its last, numbered so that a joint's ancestors fall in up to three runs — by runs
    /// of ancestors ([`RUNS_FROM`]) against the link factor's products M eⱼ in the links' own axes
    /// and against the pairs' route; the entries between branches zero.
    #[test]
    fn a_long_trees_mass_by_runs_is_the_link_factors() {
        static PARENT: [Option<usize>; 24] = {
            let mut p = [None; 24];
            let mut i = 1;
            while i < 24 {
                p[i] = Some(match i {
                    8 => 4,
                    16 => 7,
                    _ => i - 1,
                });
                i += 1;
            }
            p
        };
        static ORDER: [usize; 24] = {
            let mut o = [0; 24];
            let mut i = 0;
            while i < 24 {
                o[i] = i;
                i += 1;
            }
            o
        };
        static LONG: LinkTopology = LinkTopology { parent: &PARENT, order: &ORDER };
        const { assert!(24 >= RUNS_FROM) };
        let q = SVector::<f64, 24>::from_fn(|i, _| 0.7 - 0.23 * i as f64);
        let joints: [LinkJoint; 24] = std::array::from_fn(|j| {
            let f = j as f64;
            let a0 = rotation(&Vector3::new(0.3 * f, 1.0, -0.2).normalize(), 0.4 + 0.3 * f);
            let l0 = Vector3::new(0.1, -0.25 + 0.01 * f, 0.3);
            let k = Vector3::new(0.2, -0.1 * (f % 5.0), 1.0).normalize();
            let rows = |m: Matrix3<f64>| std::array::from_fn(|r| [m[(r, 0)], m[(r, 1)], m[(r, 2)]]);
            if j % 3 == 2 {
                LinkJoint::new(rows(a0), (l0 + a0 * k * q[j]).into(), [0.0, 0.0, 0.0, k[0], k[1], k[2]])
            } else {
                LinkJoint::new(rows(a0 * rotation(&k, q[j])), l0.into(), [k[0], k[1], k[2], 0.0, 0.0, 0.0])
            }
        });
        let inertia: [[[f64; 6]; 6]; 24] = std::array::from_fn(|j| {
            let f = (j % 7) as f64;
            let j_c = Matrix3::new(0.05 + 0.01 * f, 0.002, -0.001, 0.002, 0.04, 0.003, -0.001, 0.003, 0.03 + 0.005 * f);
            inertia(1.0 + 0.3 * f, Vector3::new(0.05, -0.1 * f, 0.12), j_c)
        });
        let armature: [f64; 24] = std::array::from_fn(|j| 0.01 * (j % 4) as f64);
        let links = LinkDynamics::<24>::new(&LONG, joints, inertia, [0.0, 0.0, -9.81]).with_armature(armature);
        let mass = links.mass_matrix();
        let factor = LinkFactor::<24>::new(0.0, &LONG, joints, inertia).expect("regular").with_armature(armature);
        for j in 0..24 {
            let column = factor.apply(&SVector::<f64, 24>::from_fn(|i, _| f64::from(u8::from(i == j))));
            assert!((mass.column(j) - column).amax() < 1e-13 * column.amax(), "column {j}: {} against {column}", mass.column(j));
        }
        // The pairs' route, from the same S_j and Y^C_j S_j.
        let mut pose = [(Matrix3::<f64>::identity(), Vector3::<f64>::zeros()); 24];
        let mut s = [Vector6::zeros(); 24];
        let mut composite = [Rigid::default(); 24];
        for &j in LONG.order {
            let (r, o) = links.place(j, &mut pose, &mut s);
            composite[j] = links.inertia[j].placed(&r, &o);
        }
        for &j in LONG.order.iter().rev() {
            if let Some(k) = LONG.parent[j] {
                let moved = composite[j];
                composite[k].add(&moved);
            }
        }
        let ys: [Vector6<f64>; 24] = std::array::from_fn(|j| composite[j].times(&s[j]));
        assert!((links.mass_by_pairs(&s, &ys) - mass).amax() < 1e-14 * mass.amax());
        // Joint 10 (the first branch) and joint 20 (the second) are on different branches, joint 6
        // (the trunk below the first branch's root) and joint 12 too.
        assert_eq!((mass[(10, 20)], mass[(20, 10)], mass[(6, 12)]), (0.0, 0.0, 0.0));
        assert!(mass[(3, 20)] != 0.0 && mass[(4, 12)] != 0.0 && mass[(7, 17)] != 0.0);
        // The same tree numbered backwards (joint j as 23 − j: every parent has the higher index,
        // as an orientation's joints may), M permuted alike.
        static REVERSED_PARENT: [Option<usize>; 24] = {
            let mut p = [None; 24];
            let mut i = 0;
            while i < 24 {
                p[23 - i] = match PARENT[i] {
                    Some(k) => Some(23 - k),
                    None => None,
                };
                i += 1;
            }
            p
        };
        static REVERSED_ORDER: [usize; 24] = {
            let mut o = [0; 24];
            let mut i = 0;
            while i < 24 {
                o[i] = 23 - i;
                i += 1;
            }
            o
        };
        static REVERSED: LinkTopology = LinkTopology { parent: &REVERSED_PARENT, order: &REVERSED_ORDER };
        let back = |j: usize| 23 - j;
        let reversed = LinkDynamics::<24>::new(
            &REVERSED,
            std::array::from_fn(|j| joints[back(j)]),
            std::array::from_fn(|j| inertia[back(j)]),
            [0.0, 0.0, -9.81],
        )
        .with_armature(std::array::from_fn(|j| armature[back(j)]))
        .mass_matrix();
        let permuted = SMatrix::<f64, 24, 24>::from_fn(|i, j| mass[(back(i), back(j))]);
        assert!((reversed - permuted).amax() < 1e-14 * mass.amax(), "{}", reversed - permuted);
    }

    /// ∂q̈/∂q and ∂q̈/∂q̇ against central differences of q̈ (which the passes compute from M and
    /// K(q, q̇, 0), not from the derivatives' formulas).
    #[test]
    fn derivatives_are_those_of_the_accelerations() {
        let (q, qd) = state();
        let d = at(&q, &qd);
        let h = 1e-6;
        for j in 0..6 {
            let e = SVector::<f64, 6>::from_fn(|i, _| if i == j { h } else { 0.0 });
            let by_q = (at(&(q + e), &qd).accelerations - at(&(q - e), &qd).accelerations) / (2.0 * h);
            let by_qd = (at(&q, &(qd + e)).accelerations - at(&q, &(qd - e)).accelerations) / (2.0 * h);
            assert!(
                (d.d_positions.column(j) - by_q).norm() < 1e-7 * (1.0 + by_q.norm()),
                "∂q̈/∂q_{j}: {by_q} vs {}",
                d.d_positions.column(j)
            );
            assert!((d.d_velocities.column(j) - by_qd).norm() < 1e-7 * (1.0 + by_qd.norm()), "∂q̈/∂q̇_{j}");
        }
    }

    /// ∂K/∂q and ∂K/∂q̇ at given accelerations (a constrained tree's) against central differences
    /// of K = M a + K(q, q̇, 0) from the passes.
    #[test]
    fn kinetic_derivatives_are_those_of_the_kinetic_part() {
        let (q, qd) = state();
        let a = SVector::<f64, 6>::from_fn(|i, _| 0.4 - 0.23 * i as f64);
        let at = |q: &SVector<f64, 6>| {
            LinkDynamics::new(&TREE, joints(q), inertias(), [0.0, 0.0, -9.81]).with_armature([0.0, 0.02, 0.0, 0.0, 0.01, 0.0])
        };
        let (dq, dv) = at(&q).kinetic_derivatives(&qd, &a);
        for j in 0..6 {
            let (by_q, by_qd) = kinetic_differences(&at, (&q, &qd, &a), j);
            assert!((dq.column(j) - by_q).norm() < 1e-7 * (1.0 + by_q.norm()), "∂K/∂q_{j}");
            assert!((dv.column(j) - by_qd).norm() < 1e-7 * (1.0 + by_qd.norm()), "∂K/∂q̇_{j}");
        }
    }

    /// Central differences of K(q, q̇, a) of the trees `at(q)` along q_j and q̇_j (h = 10⁻⁶).
    fn kinetic_differences(
        at: &impl Fn(&SVector<f64, 6>) -> LinkDynamics<6>,
        (q, qd, a): (&SVector<f64, 6>, &SVector<f64, 6>, &SVector<f64, 6>),
        j: usize,
    ) -> (SVector<f64, 6>, SVector<f64, 6>) {
        let h = 1e-6;
        let e = SVector::<f64, 6>::from_fn(|i, _| if i == j { h } else { 0.0 });
        let by_q = (at(&(q + e)).kinetic(qd, a) - at(&(q - e)).kinetic(qd, a)) / (2.0 * h);
        let by_qd = (at(q).kinetic(&(qd + e), a) - at(q).kinetic(&(qd - e), a)) / (2.0 * h);
        (by_q, by_qd)
    }

    /// A tree on translations (a cart on a cart, each with mass, the second carrying a prismatic
    /// joint of its own: 0 → 1 → 2 → 3, 1 → 4 → 5 with 0, 1 and 4 prismatic): the still joints'
    /// columns of ∂K/∂q and ∂K/∂q̇, which the pairs skip, vanish in central differences of K too
    /// (Galilean invariance under uniform gravity), and the other columns agree with them.
    #[test]
    fn translations_above_everything_leave_the_kinetic_part_unchanged() {
        static CARTS: LinkTopology =
            LinkTopology { parent: &[None, Some(0), Some(1), Some(2), Some(1), Some(4)], order: &[0, 1, 2, 3, 4, 5] };
        let prismatic = |j: usize| matches!(j, 0 | 1 | 4);
        let (q, qd) = state();
        let a = SVector::<f64, 6>::from_fn(|i, _| 0.4 - 0.23 * i as f64);
        let at = |q: &SVector<f64, 6>| {
            LinkDynamics::new(&CARTS, joints_of(q, prismatic), inertias(), [0.1, -0.2, -9.81])
                .with_armature([0.0, 0.02, 0.0, 0.0, 0.01, 0.0])
        };
        assert_eq!(at(&q).still, [true, true, false, false, true, false]);
        let (dq, dv) = at(&q).kinetic_derivatives(&qd, &a);
        for j in 0..6 {
            let (by_q, by_qd) = kinetic_differences(&at, (&q, &qd, &a), j);
            if prismatic(j) {
                assert!(by_q.norm() < 1e-8 && by_qd.norm() < 1e-8, "K moves along the translation {j}: {by_q}, {by_qd}");
                assert!(dq.column(j).iter().chain(dv.column(j).iter()).all(|&x| x == 0.0), "a still column is skipped");
            }
            assert!((dq.column(j) - by_q).norm() < 1e-7 * (1.0 + by_q.norm()), "∂K/∂q_{j}");
            assert!((dv.column(j) - by_qd).norm() < 1e-7 * (1.0 + by_qd.norm()), "∂K/∂q̇_{j}");
        }
    }

    /// The inverse dynamics' derivatives, τ = K(q, q̇, a) − τ_other with the coupled springs and
    /// dampers, against central differences of K − τ_other.
    #[test]
    fn inverse_dynamics_derivatives_are_those_of_the_residual() {
        let (q, qd) = state();
        let a = SVector::<f64, 6>::from_fn(|i, _| 0.4 - 0.23 * i as f64);
        let at = |q: &SVector<f64, 6>| {
            LinkDynamics::new(&TREE, joints(q), inertias(), [0.0, 0.0, -9.81]).with_armature([0.0, 0.02, 0.0, 0.0, 0.01, 0.0])
        };
        let tau = |q: &SVector<f64, 6>, qd: &SVector<f64, 6>| at(q).kinetic(qd, &a) - forces(q, qd).value;
        let (dq, dv) = at(&q).inverse_dynamics_derivatives(&qd, &a, &forces(&q, &qd));
        let h = 1e-6;
        for j in 0..6 {
            let e = SVector::<f64, 6>::from_fn(|i, _| if i == j { h } else { 0.0 });
            let by_q = (tau(&(q + e), &qd) - tau(&(q - e), &qd)) / (2.0 * h);
            let by_qd = (tau(&q, &(qd + e)) - tau(&q, &(qd - e))) / (2.0 * h);
            assert!((dq.column(j) - by_q).norm() < 1e-7 * (1.0 + by_q.norm()), "∂τ/∂q_{j}");
            assert!((dv.column(j) - by_qd).norm() < 1e-7 * (1.0 + by_qd.norm()), "∂τ/∂q̇_{j}");
        }
    }

    /// The one-go linearisation: A the derivatives' field Jacobian (the same solves, column by
    /// column), the sensitivities' rows M⁻¹ ∂g/∂w taken at the accelerations (M B = ∂g/∂w),
    /// the positions' rows zero.
    #[test]
    fn the_linearization_is_the_derivatives_with_the_sensitivities() {
        let (q, qd) = state();
        let d = at(&q, &qd);
        let dynamics =
            LinkDynamics::new(&TREE, joints(&q), inertias(), [0.0, 0.0, -9.81]).with_armature([0.0, 0.02, 0.0, 0.0, 0.01, 0.0]);
        let dg = SMatrix::<f64, 6, 2>::from_fn(|i, c| 0.3 * i as f64 - c as f64 + 0.1);
        let mut seen = None;
        let Linearization { a, b } = dynamics
            .linearization::<12, 2>(0.0, &qd, &forces(&q, &qd), |acc| {
                seen = Some(*acc);
                dg
            })
            .expect("regular");
        assert_eq!(seen, Some(d.accelerations));
        assert_eq!(a, d.field_jacobian::<12>());
        assert_eq!(b.fixed_rows::<6>(0), SMatrix::<f64, 6, 2>::zeros());
        let residual = d.mass * b.fixed_rows::<6>(6) - dg;
        assert!(residual.norm() < 1e-12 * dg.norm(), "M B − ∂g/∂w = {residual}");
    }

    /// A ball joint between two revolute joints: joint 0 (root, revolute), the orientation 1 → 2 →
    /// 3 (its link turned by R, the first two links massless), joint 4 (revolute) and 5
    /// (prismatic) below it. Its positions move along the body rotation vector: R to R exp(θ).
    fn ball(q0: f64, r: &Matrix3<f64>, q4: f64, q5: f64) -> [LinkJoint; 6] {
        let rows = |m: Matrix3<f64>| std::array::from_fn(|i| [m[(i, 0)], m[(i, 1)], m[(i, 2)]]);
        let axis = Vector3::new(0.3, -0.4, 1.0).normalize();
        let tilt = rotation(&Vector3::new(1.0, 0.2, 0.0).normalize(), 0.7);
        let e = |k: usize| {
            let mut s = [0.0; 6];
            s[k] = 1.0;
            s
        };
        let k4 = Vector3::new(0.0, 1.0, 0.2).normalize();
        let k5 = Vector3::new(0.6, 0.0, 1.0).normalize();
        [
            LinkJoint::new(rows(rotation(&axis, q0)), [0.0; 3], [axis[0], axis[1], axis[2], 0.0, 0.0, 0.0]),
            LinkJoint::new(rows(*r), [0.1, -0.3, 0.25], e(0)),
            LinkJoint::new(rows(Matrix3::identity()), [0.0; 3], e(1)),
            LinkJoint::new(rows(Matrix3::identity()), [0.0; 3], e(2)),
            LinkJoint::new(rows(tilt * rotation(&k4, q4)), [0.2, 0.1, -0.35], [k4[0], k4[1], k4[2], 0.0, 0.0, 0.0]),
            LinkJoint::new(
                rows(tilt),
                (Vector3::new(0.0, 0.3, 0.1) + tilt * k5 * q5).into(),
                [0.0, 0.0, 0.0, k5[0], k5[1], k5[2]],
            ),
        ]
    }

    static BALL: LinkTopology =
        LinkTopology { parent: &[None, Some(0), Some(1), Some(2), Some(3), Some(4)], order: &[0, 1, 2, 3, 4, 5] };

    fn ball_dynamics(q0: f64, r: &Matrix3<f64>, q4: f64, q5: f64) -> LinkDynamics<6> {
        let mut inertia = inertias();
        (inertia[1], inertia[2]) = ([[0.0; 6]; 6], [[0.0; 6]; 6]);
        LinkDynamics::new(&BALL, ball(q0, r, q4, q5), inertia, [0.0, -9.81, 0.0])
            .with_armature([0.01, 0.0, 0.0, 0.0, 0.02, 0.0])
            .with_orientations(&[[1, 2, 3]])
    }

    /// With a ball joint: ∂K/∂x and ∂q̈/∂x along the body rotation vector (R exp(θ), at fixed
    /// body rates) and along the rates, against central differences of K and of q̈ — every pair
    /// of the orientation's joints in the form of a joint below another, their S_k moving with
    /// the parent link's velocity.
    #[test]
    fn an_orientations_derivatives_are_along_its_body_rotation_vector() {
        let (q0, q4, q5) = (0.4, -0.8, 0.15);
        let r = rotation(&Vector3::new(0.5, 1.0, -0.3).normalize(), 1.1);
        let qd = SVector::<f64, 6>::from_column_slice(&[0.7, -1.1, 0.5, 0.9, -0.6, 0.35]);
        let a = SVector::<f64, 6>::from_fn(|i, _| 0.4 - 0.23 * i as f64);
        let forces = |qd: &SVector<f64, 6>| JointForces {
            value: -qd * 0.3,
            d_positions: SMatrix::zeros(),
            d_velocities: SMatrix::<f64, 6, 6>::identity() * -0.3,
        };
        let (dq, dv) = ball_dynamics(q0, &r, q4, q5).kinetic_derivatives(&qd, &a);
        let d = ball_dynamics(q0, &r, q4, q5).derivatives(0.0, &qd, &forces(&qd)).expect("regular");
        // The state moved along position direction j (θ_k for j = 1, 2, 3) by h.
        let moved = |j: usize, h: f64| {
            let mut e = [0.0; 6];
            e[j] = h;
            let turned =
                if (1..4).contains(&j) { r * rotation(&Vector3::from_fn(|k, _| f64::from(u8::from(k + 1 == j))), h) } else { r };
            ball_dynamics(q0 + e[0], &turned, q4 + e[4], q5 + e[5])
        };
        let h = 1e-6;
        for j in 0..6 {
            let (up, down) = (moved(j, h), moved(j, -h));
            let by_q = (up.kinetic(&qd, &a) - down.kinetic(&qd, &a)) / (2.0 * h);
            assert!((dq.column(j) - by_q).norm() < 1e-7 * (1.0 + by_q.norm()), "∂K/∂q_{j}: {} vs {by_q}", dq.column(j));
            let accelerations = |d: &LinkDynamics<6>| d.derivatives(0.0, &qd, &forces(&qd)).expect("regular").accelerations;
            let by_q = (accelerations(&up) - accelerations(&down)) / (2.0 * h);
            assert!((d.d_positions.column(j) - by_q).norm() < 1e-7 * (1.0 + by_q.norm()), "∂q̈/∂q_{j}");
            let e = SVector::<f64, 6>::from_fn(|i, _| if i == j { h } else { 0.0 });
            let at = ball_dynamics(q0, &r, q4, q5);
            let by_qd = (at.kinetic(&(qd + e), &a) - at.kinetic(&(qd - e), &a)) / (2.0 * h);
            assert!((dv.column(j) - by_qd).norm() < 1e-7 * (1.0 + by_qd.norm()), "∂K/∂q̇_{j}");
        }
    }

    /// The tangent chart's A and B against the velocity blocks by matrix algebra: with W the
    /// N × N matrix of [ω₀×] on the orientation's block (zero elsewhere), the positions' columns
    /// ∂v̇/∂q + ∂v̇/∂v W, the orientation's rows of θ̈ less [ω̇₀×] on θ and W on θ̇ — an orientation
    /// in the middle of the tree (a ball joint between screws), moving and accelerating.
    #[test]
    fn the_tangent_chart_is_the_velocity_blocks_turned() {
        let r = rotation(&Vector3::new(0.5, 1.0, -0.3).normalize(), 1.1);
        let at = ball_dynamics(0.4, &r, -0.8, 0.15);
        let qd = SVector::<f64, 6>::from_column_slice(&[0.7, -1.1, 0.5, 0.9, -0.6, 0.35]);
        let forces = JointForces { value: -qd * 0.3, d_positions: SMatrix::zeros(), d_velocities: SMatrix::identity() * -0.3 };
        let dg_dw = |a: &SVector<f64, 6>| SMatrix::<f64, 6, 2>::from_fn(|i, k| if i == 2 * k + 1 { 1.0 } else { a[i] * 0.1 });
        let lin = at.tangent_linearization::<12, 2>(0.0, &qd, &forces, dg_dw).expect("regular");
        let blocks = at.velocity_blocks::<2>(0.0, &qd, &forces, dg_dw).expect("regular");
        let turn = |v: &SVector<f64, 6>| {
            let mut m = SMatrix::<f64, 6, 6>::zeros();
            m.fixed_view_mut::<3, 3>(1, 1).copy_from(&Vector3::new(v[1], v[2], v[3]).cross_matrix());
            m
        };
        let (w, dw) = (turn(&qd), turn(&blocks.accelerations));
        let solved = &blocks.solved;
        let (by_theta, by_rate) = (solved.positions + solved.velocities * w - dw, solved.velocities - w);
        let close = |a: SMatrix<f64, 6, 6>, b: SMatrix<f64, 6, 6>| (a - b).amax() < 1e-12 * (1.0 + b.amax());
        assert!(close(lin.a.fixed_view::<6, 6>(6, 0).into_owned(), by_theta), "A's positions' columns");
        assert!(close(lin.a.fixed_view::<6, 6>(6, 6).into_owned(), by_rate), "A's velocities' columns");
        assert_eq!(lin.a.fixed_view::<6, 6>(0, 6).into_owned(), SMatrix::<f64, 6, 6>::identity());
        assert_eq!(lin.a.fixed_view::<6, 6>(0, 0).into_owned(), SMatrix::<f64, 6, 6>::zeros());
        assert_eq!(lin.b.fixed_rows::<6>(6).into_owned(), solved.others);
        assert!(w.amax() > 0.5 && dw.amax() > 0.5, "the chart turns");
    }

    #[test]
    fn a_singular_mass_is_an_error() {
        static ONE: LinkTopology = LinkTopology { parent: &[None], order: &[0] };
        let joint = LinkJoint::new([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]], [0.0; 3], [0.0, 0.0, 1.0, 0.0, 0.0, 0.0]);
        let none = JointForces { value: SVector::zeros(), d_positions: SMatrix::zeros(), d_velocities: SMatrix::zeros() };
        let d = LinkDynamics::<1>::new(&ONE, [joint], [[[0.0; 6]; 6]], [0.0, -9.81, 0.0]).derivatives(
            0.5,
            &SVector::from([1.0]),
            &none,
        );
        assert!(matches!(d, Err(FieldError::SingularMassMatrix { t }) if t == 0.5));
    }
}
