//! The mass operator of a kinematic tree: M factored along the tree in O(n) and solved with in O(n)
//! per column, never formed — what a constrained tree model hands the saddle-point solve
//! ([`solve_constrained`](super::solve_constrained)) in place of the dense [`MassFactor`](super::MassFactor).
//!
//! **The tree.** The derive finds, for models whose kinetic energy is Σ ½ mₖ |vₖ|² over point
//! masses moving along a kinematic tree, the tree's *directions*: a direction d at joint j(d) is its
//! parent direction (at the parent joint) plus S_d q̇ⱼ, every mass component sits at one direction,
//! and all transport between a direction and its parent is the identity ([`TreeTopology`] is that
//! structure, a generated constant; S and the masses are evaluated per state). Then
//!
//! ```text
//! M v:     acc_d = acc_parent(d) + S_d v_j(d)  (root → leaves),   F_d = m_d acc_d + Σ_children F_c,
//!          (M v)ⱼ = Σ_(d at j) S_d F_d                              (leaves → root)
//! factor:  I^Aⱼ = diag(m at j) + Σ_children Xᵀ I^a X,  Uⱼ = I^Aⱼ Sⱼ,  Dⱼ = Sⱼ·Uⱼ,
//!          I^aⱼ = I^Aⱼ − Uⱼ Uⱼᵀ / Dⱼ                                (leaves → root)
//! M x = b: uⱼ = bⱼ − Sⱼ·p^Aⱼ,  p^A_parent += p^Aⱼ + Uⱼ uⱼ / Dⱼ       (leaves → root)
//!          a'ⱼ = X a_parent,  xⱼ = (uⱼ − Uⱼ·a'ⱼ) / Dⱼ,  aⱼ = a'ⱼ + Sⱼ xⱼ   (root → leaves)
//! ```
//!
//! — Featherstone's articulated-body algorithm with no velocity and no gravity, which solves
//! M x = b; the pivots Dⱼ are those of a factorisation of M along the tree (each the Schur
//! complement of joint j in its subtree), positive where M is positive definite. A pivot that the
//! elimination cancelled to round-off of its joint's diagonal entry M_jj (the same test as the
//! dense Cholesky's, [`MassFactor`](super::MassFactor)) is [`FieldError::SingularMassMatrix`].

use nalgebra::{SMatrix, SVector};

use super::linalg::MassOperator;
use crate::error::{FieldError, SingularMatrix};

/// The most directions one joint may carry (a planar link: two, three with a mass at its middle;
/// the derive keeps the dense path for a tree with more).
pub const MAX_DIRECTIONS: usize = 4;

/// The structure of a kinematic tree of translational directions (see the [module docs](self)).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TreeTopology {
    /// Each direction's joint (coordinate index).
    pub joint: &'static [usize],
    /// Each direction's parent direction (at its joint's parent), `None` at the top of its path;
    /// a parent's index is below its children's.
    pub parent: &'static [Option<usize>],
    /// Each direction's place among its joint's directions (below [`MAX_DIRECTIONS`]).
    pub slot: &'static [usize],
    /// The directions at each joint, in slot order.
    pub at_joint: &'static [&'static [usize]],
    /// The joints, parents before children.
    pub order: &'static [usize],
}

/// M of a kinematic tree factored along the tree at one state: a [`MassOperator`] whose solves and
/// products are O(n) per column (`N` joints, `K` directions).
#[derive(Debug, Clone, Copy)]
pub struct TreeFactor<const N: usize, const K: usize> {
    topology: &'static TreeTopology,
    /// S_d and the mass at each direction.
    s: [f64; K],
    mass: [f64; K],
    /// Uⱼ = I^Aⱼ Sⱼ, by direction, and Uⱼ / Dⱼ.
    u: [f64; K],
    coef: [f64; K],
    /// The pivots Dⱼ, by joint, and their inverses.
    d: [f64; N],
    inv_d: [f64; N],
}

/// A relative pivot below this many n·ε of its joint's diagonal entry is round-off (as in the dense
/// factorisation).
pub(crate) const PIVOT_TOL: f64 = 16.0;

impl<const N: usize, const K: usize> TreeFactor<N, K> {
    /// Factors M of the tree `topology` with the coefficients `s` and the masses `mass` of its
    /// directions, at time `t` (for the error).
    ///
    /// ```
    /// use routh_runtime::mechanics::tree::{TreeFactor, TreeTopology};
    /// use routh_runtime::MassOperator;
    /// use routh_runtime::nalgebra::Vector2;
    ///
    /// // A pendulum on a cart: the cart x (direction 0), the bob along x (1, below 0) and y (2).
    /// static CART: TreeTopology = TreeTopology {
    ///     joint: &[0, 1, 1],
    ///     parent: &[None, Some(0), None],
    ///     slot: &[0, 0, 1],
    ///     at_joint: &[&[0], &[1, 2]],
    ///     order: &[0, 1],
    /// };
    /// let (mc, mb, l, th) = (2.0, 0.5, 1.5, 0.3_f64);
    /// let m = TreeFactor::<2, 3>::new(0.0, &CART, [1.0, l * th.cos(), l * th.sin()], [mc, mb, mb])?;
    /// // M = [mc + mb, mb l cos θ; mb l cos θ, mb l²].
    /// let v = Vector2::new(0.7, -1.1);
    /// let mv = Vector2::new((mc + mb) * v[0] + mb * l * th.cos() * v[1], mb * l * th.cos() * v[0] + mb * l * l * v[1]);
    /// assert!((m.apply(&v) - mv).norm() < 1e-14);
    /// assert!((m.solve(mv)? - v).norm() < 1e-14);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// [`FieldError::SingularMassMatrix`] if a pivot is not safely positive (M singular or
    /// indefinite there), [`FieldError::NonFinite`] for non-finite coefficients or masses.
    pub fn new(t: f64, topology: &'static TreeTopology, s: [f64; K], mass: [f64; K]) -> Result<Self, FieldError> {
        debug_assert!(topology.joint.len() == K && topology.at_joint.len() == N && topology.order.len() == N);
        if !(s.iter().chain(&mass).all(|v| v.is_finite())) {
            return Err(FieldError::NonFinite { t });
        }
        let tol = PIVOT_TOL * N as f64 * f64::EPSILON;
        // Articulated inertias: row d over the slots of d's joint. The composite ones (the mass
        // moving with each direction) are diagonal — a mass reaches one direction per joint on its
        // path — and give M_jj = Σ_(d at j) S_d² m_d for the pivot test.
        let mut ia = [[0.0f64; MAX_DIRECTIONS]; K];
        for k in 0..K {
            ia[k][topology.slot[k]] = mass[k];
        }
        let mut composite = mass;
        let (mut u, mut d) = ([0.0f64; K], [0.0f64; N]);
        for &j in topology.order.iter().rev() {
            let ds = topology.at_joint[j];
            let (mut dj, mut mjj) = (0.0, 0.0);
            for &a in ds {
                u[a] = ds.iter().enumerate().map(|(y, &b)| ia[a][y] * s[b]).sum();
                dj += s[a] * u[a];
                mjj += s[a] * s[a] * composite[a];
            }
            if !(dj > tol * mjj.abs()) || !dj.is_finite() {
                return Err(FieldError::SingularMassMatrix { t });
            }
            d[j] = dj;
            let inv = 1.0 / dj;
            // I^a = I^A − U Uᵀ / D (and the composite mass unchanged) to the parent directions.
            for &a in ds {
                let Some(pa) = topology.parent[a] else { continue };
                composite[pa] += composite[a];
                let ua = u[a] * inv;
                for (y, &b) in ds.iter().enumerate() {
                    let Some(pb) = topology.parent[b] else { continue };
                    ia[pa][topology.slot[pb]] += ia[a][y] - ua * u[b];
                }
            }
        }
        let inv_d = d.map(|dj| 1.0 / dj);
        let coef = std::array::from_fn(|a| u[a] * inv_d[topology.joint[a]]);
        Ok(TreeFactor { topology, s, mass, u, coef, d, inv_d })
    }

    /// X = M⁻¹ B, all columns in one traversal of the tree.
    fn solve_columns<const C: usize>(&self, b: &SMatrix<f64, N, C>) -> SMatrix<f64, N, C> {
        let top = self.topology;
        // Bias forces p^A by direction, leaves → root, and uⱼ = bⱼ − Sⱼ·p^Aⱼ.
        let mut pa = [[0.0f64; C]; K];
        let mut uu = [[0.0f64; C]; N];
        for &j in top.order.iter().rev() {
            let ds = top.at_joint[j];
            let mut uj = [0.0f64; C];
            for (c, u) in uj.iter_mut().enumerate() {
                *u = b[(j, c)] - ds.iter().map(|&a| self.s[a] * pa[a][c]).sum::<f64>();
            }
            uu[j] = uj;
            for &a in ds {
                if let Some(p) = top.parent[a] {
                    let (k, from) = (self.coef[a], pa[a]);
                    for c in 0..C {
                        pa[p][c] += from[c] + k * uj[c];
                    }
                }
            }
        }
        // Accelerations, root → leaves.
        let mut acc = [[0.0f64; C]; K];
        let mut x = SMatrix::<f64, N, C>::zeros();
        for &j in top.order {
            let ds = top.at_joint[j];
            let mut xj = uu[j];
            for &a in ds {
                if let Some(p) = top.parent[a] {
                    for c in 0..C {
                        xj[c] -= self.u[a] * acc[p][c];
                    }
                }
            }
            for (c, v) in xj.iter_mut().enumerate() {
                *v *= self.inv_d[j];
                x[(j, c)] = *v;
            }
            for &a in ds {
                let from = top.parent[a].map_or([0.0; C], |p| acc[p]);
                for c in 0..C {
                    acc[a][c] = from[c] + self.s[a] * xj[c];
                }
            }
        }
        x
    }

    /// The pivots Dⱼ of the factorisation, by joint.
    #[must_use]
    pub fn pivots(&self) -> &[f64; N] {
        &self.d
    }
}

impl<const N: usize, const K: usize> MassOperator<N> for TreeFactor<N, K> {
    fn solve<const C: usize>(&self, b: SMatrix<f64, N, C>) -> Result<SMatrix<f64, N, C>, SingularMatrix> {
        let out = self.solve_columns(&b);
        if super::all_finite(&out) { Ok(out) } else { Err(SingularMatrix) }
    }

    fn apply(&self, v: &SVector<f64, N>) -> SVector<f64, N> {
        product(self.topology, &self.s, &self.mass, v)
    }
}

/// M v of the tree `topology` with the coefficients `s` and masses `mass` of its directions, O(n)
/// (Kane's form, see the [module docs](self)).
#[must_use]
pub fn product<const N: usize, const K: usize>(
    topology: &TreeTopology,
    s: &[f64; K],
    mass: &[f64; K],
    v: &SVector<f64, N>,
) -> SVector<f64, N> {
    // Velocities of the directions, root → leaves (parents have lower indices).
    let mut acc = [0.0f64; K];
    for k in 0..K {
        acc[k] = topology.parent[k].map_or(0.0, |p| acc[p]) + s[k] * v[topology.joint[k]];
    }
    // Forces, leaves → root.
    let mut force = [0.0f64; K];
    let mut out = SVector::<f64, N>::zeros();
    for k in (0..K).rev() {
        force[k] += mass[k] * acc[k];
        out[topology.joint[k]] += s[k] * force[k];
        if let Some(p) = topology.parent[k] {
            force[p] += force[k];
        }
    }
    out
}

/// M of the tree from its n products M eⱼ ([`product`]: O(n²) in all, symmetrised as
/// [`mass_from_products`](super::mass_from_products) does).
#[must_use]
pub fn mass_matrix<const N: usize, const K: usize>(topology: &TreeTopology, s: &[f64; K], mass: &[f64; K]) -> SMatrix<f64, N, N> {
    super::mass_from_products::<N>(|e| product(topology, s, mass, e))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mechanics::MassFactor;

    /// A branched planar tree: a cart (x) carrying two pendulums (joints 1 and 2, each with x and y
    /// directions below the cart's), the second carrying a third (joint 3), and a mass at the middle
    /// of link 3 (a third direction of joint 3 with its own coefficient).
    static TREE: TreeTopology = TreeTopology {
        joint: &[0, 1, 1, 2, 2, 3, 3, 3],
        parent: &[None, Some(0), None, Some(0), None, Some(3), Some(4), Some(3)],
        slot: &[0, 0, 1, 0, 1, 0, 1, 2],
        at_joint: &[&[0], &[1, 2], &[3, 4], &[5, 6, 7]],
        order: &[0, 1, 2, 3],
    };

    fn factor(q: [f64; 4], masses: [f64; 4]) -> TreeFactor<4, 8> {
        let (c1, s1, c2, s2, c3, s3) = (q[1].cos(), q[1].sin(), q[2].cos(), q[2].sin(), q[3].cos(), q[3].sin());
        let s = [1.0, 1.2 * c1, 1.2 * s1, 0.8 * c2, 0.8 * s2, 0.9 * c3, 0.9 * s3, 0.45 * c3];
        let m = [masses[0], masses[1], masses[1], masses[2], masses[2], masses[3], masses[3], 0.7];
        TreeFactor::new(0.0, &TREE, s, m).unwrap()
    }

    /// M from the products M eⱼ.
    fn dense(f: &TreeFactor<4, 8>) -> SMatrix<f64, 4, 4> {
        SMatrix::from_fn(|i, j| f.apply(&SVector::from_fn(|k, _| if k == j { 1.0 } else { 0.0 }))[i])
    }

    #[test]
    fn the_product_is_the_kinetic_metric_and_the_solve_inverts_it() {
        for (k, q) in [[0.1, 0.4, -1.2, 2.0], [0.0, 1.5, 0.3, -0.7], [2.0, -2.9, 1.1, 0.05]].into_iter().enumerate() {
            let f = factor(q, [3.0, 1.0 + k as f64, 0.5, 2.0]);
            let m = dense(&f);
            // Symmetric, and ½ vᵀ M v the kinetic energy Σ ½ m |velocity|² of the point masses.
            assert!((m - m.transpose()).amax() < 1e-14);
            assert!((mass_matrix::<4, 8>(&TREE, &f.s, &f.mass) - m).amax() < 1e-14);
            let v = SVector::<f64, 4>::new(0.3, -1.0, 0.7, 1.9);
            let (c1, s1, c2, s2, c3, s3) = (q[1].cos(), q[1].sin(), q[2].cos(), q[2].sin(), q[3].cos(), q[3].sin());
            let bob1 = [v[0] + 1.2 * c1 * v[1], 1.2 * s1 * v[1]];
            let bob2 = [v[0] + 0.8 * c2 * v[2], 0.8 * s2 * v[2]];
            let bob3 = [bob2[0] + 0.9 * c3 * v[3], bob2[1] + 0.9 * s3 * v[3]];
            let mid3 = bob2[0] + 0.45 * c3 * v[3];
            let sq = |a: [f64; 2]| a[0] * a[0] + a[1] * a[1];
            let masses = [3.0, 1.0 + k as f64, 0.5, 2.0];
            let t = 0.5 * (masses[0] * v[0] * v[0] + masses[1] * sq(bob1) + masses[2] * sq(bob2) + masses[3] * sq(bob3))
                + 0.5 * 0.7 * mid3 * mid3;
            assert!((0.5 * v.dot(&(m * v)) - t).abs() < 1e-13 * t, "kinetic energy");
            // The tree's solve against the dense factorisation, for several columns at once.
            let b = SMatrix::<f64, 4, 3>::from_fn(|i, c| (i as f64 - 1.5) * (c as f64 + 0.5) + 0.1 * c as f64);
            let x = f.solve(b).unwrap();
            let want = MassFactor::new(m).unwrap().solve(b).unwrap();
            assert!((x - want).amax() < 1e-12 * want.amax(), "{:e}", (x - want).amax());
            assert!((m * x - b).amax() < 1e-12 * b.amax());
            // The pivots are those of a factorisation: their product is det M.
            let det: f64 = f.pivots().iter().product();
            assert!((det - m.determinant()).abs() < 1e-11 * det.abs(), "{det} vs {}", m.determinant());
        }
    }

    #[test]
    fn a_singular_tree_is_a_typed_error() {
        // Joint 1's link along the cart's axis with no vertical part (θ₁ = 0 and S_y = 0): its
        // direction x is the cart's, so M is singular (the bob's mass moves only with the cart).
        static CHAIN: TreeTopology =
            TreeTopology { joint: &[0, 1], parent: &[None, Some(0)], slot: &[0, 0], at_joint: &[&[0], &[1]], order: &[0, 1] };
        let singular = TreeFactor::<2, 2>::new(2.5, &CHAIN, [1.0, 1.0], [0.0, 1.0]);
        assert_eq!(singular.err(), Some(FieldError::SingularMassMatrix { t: 2.5 }));
        let nan = TreeFactor::<2, 2>::new(1.0, &CHAIN, [1.0, f64::NAN], [1.0, 1.0]);
        assert_eq!(nan.err(), Some(FieldError::NonFinite { t: 1.0 }));
        assert!(TreeFactor::<2, 2>::new(0.0, &CHAIN, [1.0, 1.0], [1.0, 1.0]).is_ok());
    }
}
