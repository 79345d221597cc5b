//! Values of the expression language beyond scalars: 3-vectors and 3×3 matrices, with the
//! operations of three-dimensional kinematics (see [`crate::lower::expr`] for the language).
//!
//! - `[a, b, c]` is a vector, `[[a, b, c], [d, e, f], [g, h, i]]` a matrix by rows;
//! - `+` and `-` take two values of one shape; `*` multiplies by a scalar (either side), applies
//!   a matrix to a vector and multiplies matrices; `/` divides by a scalar;
//! - `v[i]` and `m[(i, j)]` are components (integer literals, from 0);
//! - `rot_x(q)`, `rot_y(q)`, `rot_z(q)` are the elementary rotations, `rpy(r, p, y)` the
//!   roll–pitch–yaw rotation R_z(y) R_y(p) R_x(r) (URDF's), `axis_angle(a, q)` the rotation about a
//!   constant unit axis (Rodrigues), `diag(a, b, c)` a diagonal matrix;
//! - `m.transpose()`, `a.cross(b)`, `a.dot(b)`, `a.norm()`, `a.norm_squared()`, also as
//!   functions (`cross(a, b)`, `dot(a, b)`: a dot product has two arguments, a time derivative
//!   one);
//! - `omega(R)` is the body angular velocity vee(RᵀṘ) of a rotation R: composed exactly along
//!   products and transposes of elementary rotations (ω(A B) = Bᵀω(A) + ω(B)), otherwise from Ṙ
//!   after R is proved a rotation;
//! - `dot(v)` of a vector or matrix is taken componentwise.
//!
//! Every operand of the wrong shape is an error on that operand.

use proc_macro2::Span;
use symbolic::{Axis, Expr, Mat3, Rotation, Vec3};
use syn::Expr as SynExpr;
use syn::spanned::Spanned;

use super::expr::{Lowerer, check_arity};

/// A lowered expression: a scalar, a 3-vector or a 3×3 matrix.
#[derive(Clone, Copy, Debug)]
pub enum Value {
    Scalar(Expr),
    Vector(Vec3),
    /// A matrix, with its angular velocities when it was built as a rotation (from elementary
    /// rotations, `axis_angle`, products and transposes, or an orientation), which is then a
    /// rotation by construction.
    Matrix(Mat3, Option<Spin>),
    /// The value of an expression whose error was reported: it stands for whatever shape is
    /// needed (a zero scalar or vector, the identity rotation), so that mistakes elsewhere are
    /// still found without repeating this one.
    Failed,
}

/// A rotation's body and spatial angular velocities and its last elementary turn
/// ([`Rotation::rate`], [`Rotation::spatial`], [`Rotation::turned`]).
#[derive(Clone, Copy, Debug)]
pub struct Spin {
    pub body: Vec3,
    pub spatial: Vec3,
    pub turned: Option<symbolic::Turn>,
}

impl Spin {
    /// The angular velocities of `r`.
    pub fn of(r: &Rotation) -> Spin {
        Spin { body: r.rate, spatial: r.spatial, turned: r.turned }
    }

    /// The rotation `matrix` turning at these angular velocities.
    pub fn rotation(self, matrix: Mat3) -> Rotation {
        Rotation { matrix, rate: self.body, spatial: self.spatial, turned: self.turned }
    }
}

impl Value {
    /// A rotation as a value.
    pub fn rotation(r: &Rotation) -> Value {
        Value::Matrix(r.matrix, Some(Spin::of(r)))
    }

    /// The shape, as messages name it.
    pub fn shape(&self) -> &'static str {
        match self {
            Value::Scalar(_) => "a scalar",
            Value::Vector(_) => "a 3-vector",
            Value::Matrix(..) => "a 3×3 matrix",
            Value::Failed => "a value with an error",
        }
    }
}

/// The geometric functions, for hints.
pub const GEOMETRY_FUNCTIONS: &[&str] =
    &["rot_x", "rot_y", "rot_z", "rpy", "axis_angle", "diag", "transpose", "cross", "norm", "norm_squared", "omega"];

/// An error on `e`: it is of shape `found` where `expected` is needed.
fn shape_error(e: &SynExpr, found: &Value, expected: &str, hint: &str) -> syn::Error {
    syn::Error::new_spanned(e, format!("this is {}, but {expected} is needed here{hint}", found.shape()))
}

impl Lowerer<'_> {
    /// Lowers `e`, which must be a scalar.
    pub fn scalar(&mut self, e: &SynExpr) -> syn::Result<Expr> {
        match self.value(e)? {
            Value::Scalar(x) => Ok(x),
            Value::Failed => Ok(self.arena.zero()),
            v => Err(shape_error(
                e,
                &v,
                "a scalar",
                match v {
                    Value::Vector(_) => "; take a component `v[0]`, a dot product `a.dot(b)` or a norm `v.norm()`",
                    _ => "; take a component `m[(0, 1)]`",
                },
            )),
        }
    }

    /// Lowers `e`, which must be a 3-vector.
    pub fn vector(&mut self, e: &SynExpr) -> syn::Result<Vec3> {
        match self.value(e)? {
            Value::Vector(v) => Ok(v),
            Value::Failed => Ok(self.arena.vec_zero()),
            v => Err(shape_error(e, &v, "a 3-vector", "; write a vector as `[x, y, z]`")),
        }
    }

    /// Lowers `e`, which must be a 3×3 matrix.
    pub fn matrix(&mut self, e: &SynExpr) -> syn::Result<(Mat3, Option<Spin>)> {
        match self.value(e)? {
            Value::Matrix(m, spin) => Ok((m, spin)),
            Value::Failed => Ok((self.arena.identity3(), Some(Spin::of(&self.arena.fixed_rotation(self.arena.identity3()))))),
            v => Err(shape_error(e, &v, "a 3×3 matrix", "; write a matrix by rows, `[[a, b, c], [d, e, f], [g, h, i]]`")),
        }
    }

    /// `left op right` for `+` and `-`: both of one shape. A chain `a ± b ± c ± …` (nested to the
    /// left by syn) is lowered as one sum of its scalar operands: adding operator by operator
    /// would collect the growing sum again at each, quadratic in the chain's length (a
    /// Lagrangian's hundreds of terms).
    pub fn sum(&mut self, left: &SynExpr, right: &SynExpr, subtract: bool) -> syn::Result<Value> {
        let mut operands = vec![(right, subtract)];
        let mut head = left;
        while let SynExpr::Binary(b) = head
            && matches!(b.op, syn::BinOp::Add(_) | syn::BinOp::Sub(_))
        {
            operands.push((&*b.right, matches!(b.op, syn::BinOp::Sub(_))));
            head = &b.left;
        }
        operands.reverse();
        // The scalar terms so far (a left side that is a scalar), or the value so far.
        let mut terms: Option<Vec<Expr>> = None;
        let mut acc = self.value(head)?;
        if let Value::Scalar(x) = acc {
            terms = Some(vec![x]);
        }
        for (operand, subtract) in operands {
            let b = self.value(operand)?;
            let arena = &mut *self.arena;
            if let (Some(ts), Value::Scalar(y)) = (&mut terms, &b) {
                ts.push(if subtract { arena.neg(*y) } else { *y });
                continue;
            }
            if let Some(ts) = terms.take() {
                acc = Value::Scalar(arena.add(&ts));
            }
            let op = |arena: &mut symbolic::Arena, x: Expr, y: Expr| if subtract { arena.sub(x, y) } else { arena.add2(x, y) };
            acc = match (acc, b) {
                (Value::Failed, _) | (_, Value::Failed) => Value::Failed,
                (Value::Scalar(x), Value::Scalar(y)) => Value::Scalar(op(arena, x, y)),
                (Value::Vector(x), Value::Vector(y)) => Value::Vector([0, 1, 2].map(|i| op(arena, x[i], y[i]))),
                (Value::Matrix(x, _), Value::Matrix(y, _)) => {
                    Value::Matrix([0, 1, 2].map(|i| [0, 1, 2].map(|j| op(arena, x[i][j], y[i][j]))), None)
                }
                (a, b) => {
                    let sign = if subtract { '-' } else { '+' };
                    return Err(shape_error(operand, &b, a.shape(), &format!(" (the left side of `{sign}` is {})", a.shape())));
                }
            };
        }
        Ok(match terms {
            Some(ts) => Value::Scalar(self.arena.add(&ts)),
            None => acc,
        })
    }

    /// `left * right`.
    pub fn product(&mut self, left: &SynExpr, right: &SynExpr) -> syn::Result<Value> {
        let (a, b) = (self.value(left)?, self.value(right)?);
        let arena = &mut *self.arena;
        Ok(match (a, b) {
            (Value::Failed, _) | (_, Value::Failed) => Value::Failed,
            (Value::Scalar(x), Value::Scalar(y)) => Value::Scalar(arena.mul2(x, y)),
            (Value::Scalar(s), Value::Vector(v)) | (Value::Vector(v), Value::Scalar(s)) => Value::Vector(arena.vec_scale(s, &v)),
            (Value::Scalar(s), Value::Matrix(m, _)) | (Value::Matrix(m, _), Value::Scalar(s)) => {
                Value::Matrix(arena.mat_scale(s, &m), None)
            }
            (Value::Matrix(m, _), Value::Vector(v)) => Value::Vector(arena.mat_vec(&m, &v)),
            (Value::Matrix(x, rx), Value::Matrix(y, ry)) => match (rx, ry) {
                (Some(spin_x), Some(spin_y)) => {
                    Value::rotation(&arena.rotation_product(&spin_x.rotation(x), &spin_y.rotation(y)))
                }
                _ => Value::Matrix(arena.mat_mul(&x, &y), None),
            },
            (Value::Vector(_), b @ (Value::Vector(_) | Value::Matrix(..))) => {
                return Err(shape_error(
                    right,
                    &b,
                    "a scalar",
                    " (the left side of `*` is a 3-vector); for a dot product write `a.dot(b)`, for a cross product \
                     `a.cross(b)`, for a row vector times a matrix `m.transpose() * v`",
                ));
            }
        })
    }

    /// `left / right`: divided by a nonzero scalar.
    pub fn quotient(&mut self, left: &SynExpr, right: &SynExpr) -> syn::Result<Value> {
        let a = self.value(left)?;
        let y = self.scalar(right)?;
        self.nonzero_denominator(y, right, "a division by it")?;
        let inv = self.arena.powi(y, -1);
        Ok(match a {
            Value::Scalar(x) => Value::Scalar(self.arena.mul2(x, inv)),
            Value::Vector(v) => Value::Vector(self.arena.vec_scale(inv, &v)),
            Value::Matrix(m, _) => Value::Matrix(self.arena.mat_scale(inv, &m), None),
            Value::Failed => Value::Failed,
        })
    }

    /// `-e`. The negative of a rotation is not one.
    pub fn negation(&mut self, e: &SynExpr) -> syn::Result<Value> {
        Ok(match self.value(e)? {
            Value::Scalar(x) => Value::Scalar(self.arena.neg(x)),
            Value::Vector(v) => Value::Vector(v.map(|x| self.arena.neg(x))),
            Value::Matrix(m, _) => Value::Matrix(m.map(|row| row.map(|x| self.arena.neg(x))), None),
            Value::Failed => Value::Failed,
        })
    }

    /// `[a, b, c]` (a vector) or `[[..], [..], [..]]` (a matrix by rows).
    pub fn array(&mut self, a: &syn::ExprArray) -> syn::Result<Value> {
        if a.elems.len() != 3 {
            return Err(syn::Error::new_spanned(
                a,
                format!("vectors have 3 components and matrices 3 rows, this has {}", a.elems.len()),
            ));
        }
        let first = self.value(&a.elems[0])?;
        match first {
            Value::Scalar(x) => {
                let y = self.scalar(&a.elems[1])?;
                let z = self.scalar(&a.elems[2])?;
                Ok(Value::Vector([x, y, z]))
            }
            Value::Vector(r0) => {
                let r1 = self.vector(&a.elems[1])?;
                let r2 = self.vector(&a.elems[2])?;
                Ok(Value::Matrix([r0, r1, r2], None))
            }
            m @ Value::Matrix(..) => Err(shape_error(&a.elems[0], &m, "a scalar or a row `[a, b, c]`", "")),
            Value::Failed => Ok(Value::Failed),
        }
    }

    /// `v[i]` or `m[(i, j)]`.
    pub fn index(&mut self, ix: &syn::ExprIndex) -> syn::Result<Value> {
        let index = |e: &SynExpr| -> syn::Result<usize> {
            Lowerer::integer_literal(e).and_then(|i| usize::try_from(i).ok()).filter(|&i| i < 3).ok_or_else(|| {
                syn::Error::new(e.span(), "a component index is an integer literal 0, 1 or 2 (components count from 0)")
            })
        };
        match self.value(&ix.expr)? {
            Value::Vector(v) => Ok(Value::Scalar(v[index(&ix.index)?])),
            Value::Matrix(m, _) => match &*ix.index {
                SynExpr::Tuple(t) if t.elems.len() == 2 => Ok(Value::Scalar(m[index(&t.elems[0])?][index(&t.elems[1])?])),
                other => Err(syn::Error::new(other.span(), "a matrix component is `m[(row, column)]`, counting from 0")),
            },
            Value::Failed => Ok(Value::Failed),
            s @ Value::Scalar(_) => Err(shape_error(&ix.expr, &s, "a 3-vector or a 3×3 matrix", " to take a component of")),
        }
    }

    /// The rate of an angle for the angular velocity of a rotation built from it, if it has one
    /// (an angle of the coordinates and time, outside raw discrete systems).
    fn angle_rate(&mut self, angle: Expr) -> Option<Expr> {
        if self.in_discrete_nodes() {
            return None;
        }
        self.total_derivative(angle, Span::call_site()).ok()
    }

    /// The geometric functions: `Ok(None)` if `name` is none of them.
    pub fn geometry(&mut self, name: &syn::Ident, args: &[&SynExpr], whole: Span) -> syn::Result<Option<Value>> {
        let fname = name.to_string();
        let arity = |n: usize| check_arity(&fname, n, args.len(), whole);
        let value = match fname.as_str() {
            "rot_x" | "rot_y" | "rot_z" => {
                arity(1)?;
                let axis = match fname.as_str() {
                    "rot_x" => Axis::X,
                    "rot_y" => Axis::Y,
                    _ => Axis::Z,
                };
                let angle = self.scalar(args[0])?;
                match self.angle_rate(angle) {
                    Some(rate) => {
                        let r = self.arena.elementary_rotation(axis, angle, rate);
                        Value::rotation(&r)
                    }
                    None => Value::Matrix(self.arena.rotation(axis, angle), None),
                }
            }
            "rpy" => {
                arity(3)?;
                // Roll about x, then pitch about y, then yaw about z, all about the parent's fixed
                // axes (URDF's convention): R = R_z(y) R_y(p) R_x(r).
                let turns = [(Axis::Z, args[2]), (Axis::Y, args[1]), (Axis::X, args[0])];
                let mut rotations = Vec::with_capacity(3);
                let mut spinning = true;
                for (axis, arg) in turns {
                    let angle = self.scalar(arg)?;
                    let rate = self.angle_rate(angle);
                    spinning &= rate.is_some();
                    rotations.push((axis, angle, rate));
                }
                let arena = &mut *self.arena;
                if spinning {
                    let mut r = arena.fixed_rotation(arena.identity3());
                    for (axis, angle, rate) in rotations {
                        let turn = arena.elementary_rotation(axis, angle, rate.unwrap_or(angle));
                        r = arena.rotation_product(&r, &turn);
                    }
                    Value::rotation(&r)
                } else {
                    let mut m = arena.identity3();
                    for (axis, angle, _) in rotations {
                        let turn = arena.rotation(axis, angle);
                        m = arena.mat_mul(&m, &turn);
                    }
                    Value::Matrix(m, None)
                }
            }
            "axis_angle" => {
                arity(2)?;
                let axis = self.vector(args[0])?;
                let angle = self.scalar(args[1])?;
                let n2 = self.arena.norm_squared(&axis);
                let one = self.arena.one();
                let residual = self.arena.sub(n2, one);
                if !self.unknown_arguments() && !self.arena.zero_test(residual).is_zero() {
                    return Err(syn::Error::new_spanned(
                        args[0],
                        "the axis of `axis_angle` must be a unit vector, and this one's norm is not identically 1; \
                         normalise it, `a / a.norm()`",
                    ));
                }
                let constant = axis.iter().all(|&c| {
                    self.arena
                        .free_symbols(c)
                        .iter()
                        .all(|s| matches!(self.syms.role(*s), Some(crate::layout::Role::Parameter(_))))
                });
                match self.angle_rate(angle).filter(|_| constant) {
                    Some(rate) => {
                        let r = self.arena.axis_angle_rotation(&axis, angle, rate);
                        Value::rotation(&r)
                    }
                    None => Value::Matrix(self.arena.axis_angle(&axis, angle), None),
                }
            }
            "diag" => match args {
                [v] => {
                    let v = self.vector(v)?;
                    Value::Matrix(self.arena.diag3(&v), None)
                }
                _ => {
                    arity(3)?;
                    let d = [self.scalar(args[0])?, self.scalar(args[1])?, self.scalar(args[2])?];
                    Value::Matrix(self.arena.diag3(&d), None)
                }
            },
            "transpose" => {
                arity(1)?;
                let (m, spin) = self.matrix(args[0])?;
                match spin {
                    Some(spin) => Value::rotation(&self.arena.rotation_transpose(&spin.rotation(m))),
                    None => Value::Matrix(self.arena.transpose3(&m), None),
                }
            }
            "cross" => {
                arity(2)?;
                let (a, b) = (self.vector(args[0])?, self.vector(args[1])?);
                Value::Vector(self.arena.cross(&a, &b))
            }
            "dot" if args.len() == 2 => {
                let (a, b) = (self.vector(args[0])?, self.vector(args[1])?);
                Value::Scalar(self.arena.dot3(&a, &b))
            }
            "norm" | "norm_squared" => {
                arity(1)?;
                let v = self.vector(args[0])?;
                let n2 = self.arena.norm_squared(&v);
                Value::Scalar(if fname == "norm" { self.arena.sqrt(n2) } else { n2 })
            }
            "omega" => {
                arity(1)?;
                let r = self.rotation(args[0])?;
                Value::Vector(r.rate)
            }
            _ => return Ok(None),
        };
        Ok(Some(value))
    }

    /// Lowers `e`, which must be a rotation, with its body angular velocity: composed exactly if
    /// it was built from rotations, otherwise proved a rotation (RᵀR = I, det R = 1 identically)
    /// and differentiated.
    pub fn rotation(&mut self, e: &SynExpr) -> syn::Result<Rotation> {
        let v = self.value(e)?;
        self.rotation_of(v, e)
    }

    /// The rotation `v`, the value of `src`, as [`Lowerer::rotation`].
    pub fn rotation_of(&mut self, v: Value, src: &SynExpr) -> syn::Result<Rotation> {
        let (m, spin) = match v {
            Value::Matrix(m, spin) => (m, spin),
            Value::Failed => return Ok(self.arena.fixed_rotation(self.arena.identity3())),
            v => {
                return Err(syn::Error::new_spanned(
                    src,
                    format!(
                        "this is {}, but a rotation (a 3×3 matrix such as `rot_z(psi) * rot_x(phi)`) is needed here",
                        v.shape()
                    ),
                ));
            }
        };
        if let Some(spin) = spin {
            return Ok(spin.rotation(m));
        }
        if self.unknown_arguments() {
            return Ok(self.arena.fixed_rotation(m));
        }
        let residuals = self.arena.rotation_residuals(&m);
        const WHAT: [&str; 7] =
            ["(RᵀR)₁₁ = 1", "(RᵀR)₁₂ = 0", "(RᵀR)₁₃ = 0", "(RᵀR)₂₂ = 1", "(RᵀR)₂₃ = 0", "(RᵀR)₃₃ = 1", "det R = 1"];
        for (&r, what) in residuals.iter().zip(WHAT) {
            let test = self.arena.zero_test(r);
            if !test.is_zero() {
                let why = if test == symbolic::ZeroTest::Undecided {
                    "could not be decided (too many absolute values to split)"
                } else {
                    "does not hold identically"
                };
                return Err(syn::Error::new_spanned(
                    src,
                    format!(
                        "this matrix must be a rotation, but {what} {why}; build rotations from `rot_x`, `rot_y`, `rot_z`, \
                         `axis_angle`, their products and transposes"
                    ),
                ));
            }
        }
        let mut d = m;
        for c in d.as_flattened_mut() {
            *c = self.total_derivative(*c, src.span())?;
        }
        let rate = self.arena.body_rate(&m, &d);
        Ok(self.arena.rotation_with_rate(m, rate))
    }

    /// `dot(v)` componentwise (the time derivative of a rotation is not a rotation).
    pub fn value_derivative(&mut self, v: Value, span: Span) -> syn::Result<Value> {
        Ok(match v {
            Value::Scalar(x) => Value::Scalar(self.total_derivative(x, span)?),
            Value::Vector(x) => {
                let mut d = x;
                for c in &mut d {
                    *c = self.total_derivative(*c, span)?;
                }
                Value::Vector(d)
            }
            Value::Matrix(m, _) => {
                let mut d = m;
                for c in d.as_flattened_mut() {
                    *c = self.total_derivative(*c, span)?;
                }
                Value::Matrix(d, None)
            }
            Value::Failed => Value::Failed,
        })
    }
}
