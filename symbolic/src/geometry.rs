//! Vector and rotation algebra in three dimensions, componentwise over the arena: 3-vectors and
//! 3×3 matrices of expressions, their products, cross and dot products, the elementary rotations
//! and Rodrigues' formula, the hat map and its inverse, and the body angular velocity of a
//! rotation.
//!
//! Conventions. A rotation `R` maps components in a rotated (body) frame to components in its
//! parent: `v_parent = R v_body`. The elementary rotations are the active ones,
//!
//! ```text
//! Rx(θ) = [1 0 0; 0 c −s; 0 s c],  Ry(θ) = [c 0 s; 0 1 0; −s 0 c],  Rz(θ) = [c −s 0; s c 0; 0 0 1],
//! ```
//!
//! and the **body angular velocity** is `ω = vee(RᵀṘ)`, with `hat(ω) v = ω × v`. Along products
//! and transposes it composes without trigonometric simplification (the product rule and
//! `Rᵀ hat(w) R = hat(Rᵀ w)`):
//!
//! ```text
//! ω(A B) = Bᵀ ω(A) + ω(B),    ω(Aᵀ) = −A ω(A),    ω(Rx(θ)) = θ̇ e_x,   ω(exp(θ hat(a))) = θ̇ a (|a| = 1, ȧ = 0).
//! ```
//!
//! [`Arena::body_rate`] computes `vee(RᵀṘ)` from a matrix and its derivative for the matrices
//! that are not built that way.

use crate::arena::{Arena, Expr};

/// A 3-vector of expressions.
pub type Vec3 = [Expr; 3];
/// A 3×3 matrix of expressions, by rows.
pub type Mat3 = [[Expr; 3]; 3];

/// A rotation matrix with its body and spatial angular velocities `vee(RᵀṘ)` and `vee(ṘRᵀ)`, all
/// as expressions: built from [`Arena::elementary_rotation`] and the like, composed by
/// [`Arena::rotation_product`] and [`Arena::rotation_transpose`] (orthonormal by construction, and
/// the angular velocities without differentiating a matrix). Both are composed along the product —
/// Ω(AB) = Ω(A) + A Ω(B) as ω(AB) = Bᵀω(A) + ω(B) — so neither is R times the other multiplied
/// out: the spatial one of a chain of joints is the sum of each joint's axis in space times its
/// rate, as one would write it by hand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rotation {
    /// The matrix R (body components to parent components).
    pub matrix: Mat3,
    /// The body angular velocity ω = vee(RᵀṘ).
    pub rate: Vec3,
    /// The spatial angular velocity Ω = vee(ṘRᵀ) = R ω (parent components).
    pub spatial: Vec3,
    /// For R = C E with E elementary about an axis (see [`Turn`]): the spin on its carrier.
    pub turned: Option<Turn>,
}

/// A rotation R = C E whose last factor E is elementary about axis k (a wheel's spin on its
/// carrier, a top's spin on its precessing and nodding frame): k, the carrier C and
/// E ω = ω(C) + ė e_k, the angular velocity in the carrier's axes — of the same norm as ω and the
/// same k-component, without the spin angle: a body symmetric about k has
/// ωᵀIω = a|Eω|² + (b − a)(Eω)_k².
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Turn {
    /// The axis k of E.
    pub axis: Axis,
    /// The carrier C.
    pub carrier: Mat3,
    /// E ω = ω(C) + ė e_k.
    pub rate: Vec3,
}

/// The axis of an elementary rotation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Axis {
    /// The first axis, e_x.
    X,
    /// The second axis, e_y.
    Y,
    /// The third axis, e_z.
    Z,
}

impl Axis {
    /// The axis' index (0, 1, 2).
    pub fn index(self) -> usize {
        match self {
            Axis::X => 0,
            Axis::Y => 1,
            Axis::Z => 2,
        }
    }
}

impl Arena {
    /// The zero vector.
    pub fn vec_zero(&self) -> Vec3 {
        [self.zero(); 3]
    }

    /// The unit vector along `axis`.
    pub fn unit(&self, axis: Axis) -> Vec3 {
        let mut v = self.vec_zero();
        v[axis.index()] = self.one();
        v
    }

    /// `a + b`.
    pub fn vec_add(&mut self, a: &Vec3, b: &Vec3) -> Vec3 {
        [0, 1, 2].map(|i| self.add2(a[i], b[i]))
    }

    /// `a − b`.
    pub fn vec_sub(&mut self, a: &Vec3, b: &Vec3) -> Vec3 {
        [0, 1, 2].map(|i| self.sub(a[i], b[i]))
    }

    /// `s a`.
    pub fn vec_scale(&mut self, s: Expr, a: &Vec3) -> Vec3 {
        [0, 1, 2].map(|i| self.mul2(s, a[i]))
    }

    /// `a × b`.
    pub fn cross(&mut self, a: &Vec3, b: &Vec3) -> Vec3 {
        [0, 1, 2].map(|i| {
            let (j, k) = ((i + 1) % 3, (i + 2) % 3);
            let p = self.mul2(a[j], b[k]);
            let m = self.mul2(a[k], b[j]);
            self.sub(p, m)
        })
    }

    /// `a · b` of two 3-vectors.
    pub fn dot3(&mut self, a: &Vec3, b: &Vec3) -> Expr {
        self.dot(a, b)
    }

    /// `|a|² = a · a`.
    pub fn norm_squared(&mut self, a: &Vec3) -> Expr {
        self.dot(a, a)
    }

    /// The identity matrix.
    pub fn identity3(&self) -> Mat3 {
        let (z, o) = (self.zero(), self.one());
        [[o, z, z], [z, o, z], [z, z, o]]
    }

    /// The diagonal matrix `diag(d)`.
    pub fn diag3(&self, d: &Vec3) -> Mat3 {
        let z = self.zero();
        [[d[0], z, z], [z, d[1], z], [z, z, d[2]]]
    }

    /// `Aᵀ`.
    pub fn transpose3(&self, a: &Mat3) -> Mat3 {
        [0, 1, 2].map(|i| [0, 1, 2].map(|j| a[j][i]))
    }

    /// `A + B`.
    pub fn mat_add(&mut self, a: &Mat3, b: &Mat3) -> Mat3 {
        [0, 1, 2].map(|i| self.vec_add(&a[i], &b[i]))
    }

    /// `A − B`.
    pub fn mat_sub(&mut self, a: &Mat3, b: &Mat3) -> Mat3 {
        [0, 1, 2].map(|i| self.vec_sub(&a[i], &b[i]))
    }

    /// `s A`.
    pub fn mat_scale(&mut self, s: Expr, a: &Mat3) -> Mat3 {
        [0, 1, 2].map(|i| self.vec_scale(s, &a[i]))
    }

    /// `A v`.
    pub fn mat_vec(&mut self, a: &Mat3, v: &Vec3) -> Vec3 {
        [0, 1, 2].map(|i| self.dot(&a[i], v))
    }

    /// `A B`.
    pub fn mat_mul(&mut self, a: &Mat3, b: &Mat3) -> Mat3 {
        let bt = self.transpose3(b);
        [0, 1, 2].map(|i| [0, 1, 2].map(|j| self.dot(&a[i], &bt[j])))
    }

    /// `det A` (cofactor expansion along the first row).
    pub fn det3(&mut self, a: &Mat3) -> Expr {
        let c = self.cross(&a[1], &a[2]);
        self.dot(&a[0], &c)
    }

    /// `hat(w)`, the matrix of `v ↦ w × v`.
    pub fn hat(&mut self, w: &Vec3) -> Mat3 {
        let z = self.zero();
        let n = w.map(|x| self.neg(x));
        [[z, n[2], w[1]], [w[2], z, n[0]], [n[1], w[0], z]]
    }

    /// `vee(A)` of the skew-symmetric part of `A`: `(A₃₂ − A₂₃, A₁₃ − A₃₁, A₂₁ − A₁₂)/2`, the inverse
    /// of [`Arena::hat`] on skew matrices.
    pub fn vee(&mut self, a: &Mat3) -> Vec3 {
        let half = self.num(crate::Rational::new(1, 2).expect("1/2"));
        [(2, 1), (0, 2), (1, 0)].map(|(i, j)| {
            let d = self.sub(a[i][j], a[j][i]);
            self.mul2(half, d)
        })
    }

    /// The elementary rotation by `angle` about `axis` (active: it maps body components to parent
    /// components).
    pub fn rotation(&mut self, axis: Axis, angle: Expr) -> Mat3 {
        let c = self.call(crate::Func::Cos, &[angle]);
        let s = self.call(crate::Func::Sin, &[angle]);
        let ns = self.neg(s);
        let (z, o) = (self.zero(), self.one());
        match axis {
            Axis::X => [[o, z, z], [z, c, ns], [z, s, c]],
            Axis::Y => [[c, z, s], [z, o, z], [ns, z, c]],
            Axis::Z => [[c, ns, z], [s, c, z], [z, z, o]],
        }
    }

    /// Rodrigues' formula: the rotation by `angle` about the unit `axis`,
    /// `I + sin θ hat(a) + (1 − cos θ) hat(a)²`. The axis must be a unit vector (the caller proves
    /// it); otherwise the result is not a rotation.
    pub fn axis_angle(&mut self, axis: &Vec3, angle: Expr) -> Mat3 {
        let c = self.call(crate::Func::Cos, &[angle]);
        let s = self.call(crate::Func::Sin, &[angle]);
        let one = self.one();
        let one_minus_c = self.sub(one, c);
        let k = self.hat(axis);
        let k2 = self.mat_mul(&k, &k);
        let sk = self.mat_scale(s, &k);
        let ck2 = self.mat_scale(one_minus_c, &k2);
        let i = self.identity3();
        let partial = self.mat_add(&i, &sk);
        self.mat_add(&partial, &ck2)
    }

    /// The body angular velocity `vee(RᵀṘ)` of a rotation `R` with time derivative `rdot`
    /// (the skew part is taken, so rounding-free for any rotation).
    pub fn body_rate(&mut self, r: &Mat3, rdot: &Mat3) -> Vec3 {
        let rt = self.transpose3(r);
        let w = self.mat_mul(&rt, rdot);
        self.vee(&w)
    }

    /// The elementary rotation by `angle` about `axis`, whose angle changes at `angle_rate`:
    /// body angular velocity `angle_rate · e_axis`.
    pub fn elementary_rotation(&mut self, axis: Axis, angle: Expr, angle_rate: Expr) -> Rotation {
        let matrix = self.rotation(axis, angle);
        let rate = self.unit(axis).map(|e| self.mul2(e, angle_rate));
        let carrier = self.identity3();
        Rotation { matrix, rate, spatial: rate, turned: Some(Turn { axis, carrier, rate }) }
    }

    /// The rotation by `angle` about a constant unit `axis`, whose angle changes at `angle_rate`:
    /// body and spatial angular velocity `angle_rate · axis` (the axis is fixed by the rotation).
    pub fn axis_angle_rotation(&mut self, axis: &Vec3, angle: Expr, angle_rate: Expr) -> Rotation {
        let matrix = self.axis_angle(axis, angle);
        let rate = self.vec_scale(angle_rate, axis);
        Rotation { matrix, rate, spatial: rate, turned: None }
    }

    /// A constant rotation (no angular velocity).
    pub fn fixed_rotation(&self, matrix: Mat3) -> Rotation {
        Rotation { matrix, rate: self.vec_zero(), spatial: self.vec_zero(), turned: None }
    }

    /// `A B`, with `ω(A B) = Bᵀ ω(A) + ω(B)` and `Ω(A B) = Ω(A) + A Ω(B)`.
    pub fn rotation_product(&mut self, a: &Rotation, b: &Rotation) -> Rotation {
        let matrix = self.mat_mul(&a.matrix, &b.matrix);
        let bt = self.transpose3(&b.matrix);
        let carried = self.mat_vec(&bt, &a.rate);
        let rate = self.vec_add(&carried, &b.rate);
        let carried_spatial = self.mat_vec(&a.matrix, &b.spatial);
        let spatial = self.vec_add(&a.spatial, &carried_spatial);
        // B = C E: A B = (A C) E, with ω(A C) + ė e_k = Cᵀ ω(A) + (ω(C) + ė e_k).
        let turned = b.turned.map(|t| {
            let ct = self.transpose3(&t.carrier);
            let carried = self.mat_vec(&ct, &a.rate);
            Turn { axis: t.axis, carrier: self.mat_mul(&a.matrix, &t.carrier), rate: self.vec_add(&carried, &t.rate) }
        });
        Rotation { matrix, rate, spatial, turned }
    }

    /// `Aᵀ = A⁻¹`, with `ω(Aᵀ) = −Ω(A)` and `Ω(Aᵀ) = −ω(A)`.
    pub fn rotation_transpose(&mut self, a: &Rotation) -> Rotation {
        let matrix = self.transpose3(&a.matrix);
        let rate = a.spatial.map(|x| self.neg(x));
        let spatial = a.rate.map(|x| self.neg(x));
        Rotation { matrix, rate, spatial, turned: None }
    }

    /// A rotation `matrix` with body angular velocity `rate` (a quaternion's ω, or `vee(RᵀṘ)`):
    /// its spatial one `R ω`.
    pub fn rotation_with_rate(&mut self, matrix: Mat3, rate: Vec3) -> Rotation {
        let spatial = self.mat_vec(&matrix, &rate);
        Rotation { matrix, rate, spatial, turned: None }
    }

    /// The quaternion product a ⊗ b of (w, x, y, z) quaternions:
    /// (a_w b_w − a⃗·b⃗, a_w b⃗ + b_w a⃗ + a⃗ × b⃗).
    pub fn quaternion_product(&mut self, a: &[Expr; 4], b: &[Expr; 4]) -> [Expr; 4] {
        let (va, vb) = ([a[1], a[2], a[3]], [b[1], b[2], b[3]]);
        let ww = self.mul2(a[0], b[0]);
        let dot = self.dot3(&va, &vb);
        let w = self.sub(ww, dot);
        let scaled: [[Expr; 2]; 3] = std::array::from_fn(|i| [self.mul2(a[0], vb[i]), self.mul2(b[0], va[i])]);
        let x = self.cross(&va, &vb);
        let v: [Expr; 3] = std::array::from_fn(|i| self.add(&[scaled[i][0], scaled[i][1], x[i]]));
        [w, v[0], v[1], v[2]]
    }

    /// The rate `q̇ = ½ q ⊗ (0, ω)` of a quaternion q = (w, x, y, z) turning at the body angular
    /// velocity ω (it keeps |q| constant).
    pub fn quaternion_rate(&mut self, q: &[Expr; 4], omega: &Vec3) -> [Expr; 4] {
        let half = self.num(crate::Rational::new(1, 2).expect("1/2"));
        let pure = [self.zero(), omega[0], omega[1], omega[2]];
        self.quaternion_product(q, &pure).map(|e| self.mul2(half, e))
    }

    /// The rate `½ (0, a) ⊗ q` of a quaternion q = (w, x, y, z) under the rotation about the
    /// spatial axis `a`, R ↦ exp(ε â) R (left multiplication; it keeps |q| constant).
    pub fn quaternion_spatial_rate(&mut self, q: &[Expr; 4], a: &Vec3) -> [Expr; 4] {
        let half = self.num(crate::Rational::new(1, 2).expect("1/2"));
        let pure = [self.zero(), a[0], a[1], a[2]];
        self.quaternion_product(&pure, q).map(|e| self.mul2(half, e))
    }

    /// The rotation of the quaternion q = (w, x, y, z) normalised, R(q/|q|): entries quadratic in
    /// q over `norm2` = |q|² (given, e.g. as a symbol of its own), so it is a rotation for every
    /// q ≠ 0 and does not change along |q|.
    pub fn quaternion_rotation(&mut self, q: &[Expr; 4], norm2: Expr) -> Mat3 {
        let [w, x, y, z] = *q;
        let sq = q.map(|c| self.powi(c, 2));
        let inv = self.powi(norm2, -1);
        let two = self.int(2);
        let prod = |a: Expr, b: Expr, this: &mut Arena| {
            let p = this.mul(&[two, a, b]);
            this.mul2(p, inv)
        };
        let (xy, wz, xz, wy, yz, wx) =
            (prod(x, y, self), prod(w, z, self), prod(x, z, self), prod(w, y, self), prod(y, z, self), prod(w, x, self));
        let diag = |this: &mut Arena, plus: [Expr; 2], minus: [Expr; 2]| {
            let p = this.add(&plus);
            let m = this.add(&minus);
            let d = this.sub(p, m);
            this.mul2(d, inv)
        };
        let r00 = diag(self, [sq[0], sq[1]], [sq[2], sq[3]]);
        let r11 = diag(self, [sq[0], sq[2]], [sq[1], sq[3]]);
        let r22 = diag(self, [sq[0], sq[3]], [sq[1], sq[2]]);
        [
            [r00, self.sub(xy, wz), self.add2(xz, wy)],
            [self.add2(xy, wz), r11, self.sub(yz, wx)],
            [self.sub(xz, wy), self.add2(yz, wx), r22],
        ]
    }

    /// The expressions that vanish exactly when `R` is a proper rotation: the upper triangle of
    /// `RᵀR − I` (six entries) and `det R − 1`.
    pub fn rotation_residuals(&mut self, r: &Mat3) -> Vec<Expr> {
        let rt = self.transpose3(r);
        let g = self.mat_mul(&rt, r);
        let one = self.one();
        let mut out = Vec::with_capacity(7);
        for (i, j) in [(0, 0), (0, 1), (0, 2), (1, 1), (1, 2), (2, 2)] {
            out.push(if i == j { self.sub(g[i][j], one) } else { g[i][j] });
        }
        let det = self.det3(r);
        out.push(self.sub(det, one));
        out
    }
}
