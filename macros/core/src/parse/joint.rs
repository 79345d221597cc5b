//! Joints as written, `joint(name = j, kind = revolute, parent = a, child = b, origin = [x, y, z],
//! rotation = R, axis = [ax, ay, az], mass = m, centre = c, inertia = I, damping = d, limits =
//! [lower, upper], restitution = e)`, and their expansion into the items a user would write by
//! hand: the joint's coordinates (and orientation), the child link's frame and origin point, its
//! body, its damping as a force and its limits as impacts; and `closure(...)`, a loop closed by
//! holonomic constraints.
//!
//! A joint's child link `b` is the frame `b` (its axes, from the parent's: the parent's frame, the
//! joint origin's constant rotation, then the joint's own turn) and the point `b_origin` (its
//! origin, in inertial components):
//!
//! ```text
//! revolute, continuous:  b = a · R · axis_angle(axis, j),   b_origin = a_origin + a · p
//! prismatic:             b = a · R,                         b_origin = a_origin + a · (p + R · axis · j)
//! fixed:                 b = a · R,                         b_origin = a_origin + a · p
//! planar:                b = a · R · rot_z(j),              b_origin = a_origin + a · (p + R · [j_x, j_y, 0])
//! floating:              b = a · R · j_q,                   b_origin = a_origin + a · (p + R · [j_x, j_y, j_z])
//! ball:                  b = a · R · j_q,                   b_origin = a_origin + a · p
//! ```
//!
//! with p = `origin` and R = `rotation` (URDF's joint origin `xyz`, `rpy`), the ground standing
//! for a parent not given (a = 1, a_origin = 0). A revolute joint's R whose last factors turn about
//! its own axis by angles written without `pi` gives them to the joint's angle: R = C R_k(c) with
//! axis ±e_k is written C · axis_angle(axis, j ± c), the same rotation (the UR5's
//! `rpy="0 1.57079632679 0"` before a joint about y: its turn behind a constant part, where the
//! angle printed short would have left a full rotation in every product; see `folded_turn`). A
//! fixed joint has no coordinate: its child's body moves rigidly with the parent's, and the
//! recursive dynamics sums both into one link (a composite inertia). The link's body, where `mass`
//! is given, is `body(name = b, mass = m, centre = b_origin + b · c, frame = b, inertia = I)` with c
//! and I in the link's axes — without `inertia`, a point mass at that centre carried by the frame b
//! (a file's link whose inertia is zero: the body with I = 0); `damping = d` adds the viscous force
//! −d q̇ on the coordinate, `stiffness = k` (with `rest = q_r`) the spring's potential ½ k (q − q_r)²
//! and `armature = a` a rotor's ½ a q̇² in the Lagrangian, and `limits` the impacts `j_lower`, `j_upper` of Newton's law with
//! coefficient `restitution`. A floating or ball
//! joint's `j_q` is an orientation (a unit quaternion in the state). An MJCF joint turns about an
//! axis through its anchor c (its `pos`, in the link's axes): its origin moves by R · (c − T c),
//! T the joint's turn.
//!
//! The joints' coordinates come in the order of a depth-first walk of the tree from the ground,
//! siblings in the order written: each after its parent's, as the recursive dynamics reads a tree
//! (a file that declares a robot's waist after its arms gets the waist's coordinates first).

use proc_macro2::TokenStream;
use quote::{format_ident, quote_spanned};
use syn::parse::ParseStream;
use syn::spanned::Spanned;
use syn::{Expr, Ident};

use super::body::{Slot, parse_keyed};
use super::{Binding, BodyDecl, DefineKind, RawModel};
use crate::diagnostics::unknown;

/// The keys of `joint(...)`.
pub const JOINT_KEYS: &[&str] = &[
    "name",
    "kind",
    "parent",
    "child",
    "origin",
    "rotation",
    "axis",
    "mass",
    "centre",
    "inertia",
    "damping",
    "limits",
    "restitution",
    "input",
    "armature",
    "stiffness",
    "rest",
];

/// The kinds of joint.
pub const JOINT_KINDS: &[&str] = &["revolute", "continuous", "prismatic", "fixed", "planar", "floating", "ball"];

/// A joint as written; its keys are checked when the model's joints are expanded.
#[derive(Clone)]
pub struct JointDecl {
    pub keyword: Ident,
    pub name: Option<Ident>,
    pub kind: Option<Ident>,
    /// The parent link (the child of another joint); the ground when absent.
    pub parent: Option<Ident>,
    pub child: Option<Ident>,
    pub origin: Option<Expr>,
    pub rotation: Option<Expr>,
    pub axis: Option<Expr>,
    pub mass: Option<Expr>,
    pub centre: Option<Expr>,
    pub inertia: Option<Expr>,
    pub damping: Option<Expr>,
    /// `limits = [lower, upper]`: the coordinate's range, kept by impacts.
    pub limits: Option<Expr>,
    /// The coefficient of restitution of the impacts at the limits.
    pub restitution: Option<Expr>,
    /// `input = u`: an input driving the joint (a generalized force u on its coordinate).
    pub input: Option<Ident>,
    /// `armature = a`: a rotor's inertia reflected onto the joint, the kinetic energy ½ a q̇².
    pub armature: Option<Expr>,
    /// `stiffness = k`: a spring on the joint, the potential ½ k (q − q_r)².
    pub stiffness: Option<Expr>,
    /// `rest = q_r`: the coordinate's value where the spring is at rest (0 when absent).
    pub rest: Option<Expr>,
    /// Where a turning joint's axis passes, in the child's axes (the origin when absent): MJCF's
    /// joint `pos`; no key of the DSL's (a joint written by hand puts its origin on its axis).
    pub anchor: Option<Expr>,
}

/// What a joint's coordinate does.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum JointKind {
    /// Turns the child about the axis (`revolute` and `continuous`: limits are not part of the
    /// dynamics).
    Revolute,
    /// Slides the child along the axis.
    Prismatic,
    /// No coordinate: the child moves with the parent.
    Fixed,
    /// Slides the child in its frame's x–y plane and turns it about z: coordinates `<name>_x`,
    /// `<name>_y` and `<name>` (the angle).
    Planar,
    /// Turns the child freely about a point: the orientation `<name>_q` (MJCF's ball joint).
    Ball,
    /// Moves the child freely: coordinates `<name>_x`, `<name>_y`, `<name>_z` for the translation
    /// (in the joint frame) and the orientation `<name>_q` (a unit quaternion in the state, its
    /// components `<name>_q_w`, …, and the body angular velocity among the velocities).
    Floating,
}

impl JointDecl {
    /// A joint with no key given.
    pub(super) fn new(keyword: Ident) -> JointDecl {
        JointDecl {
            keyword,
            name: None,
            kind: None,
            parent: None,
            child: None,
            origin: None,
            rotation: None,
            axis: None,
            mass: None,
            centre: None,
            inertia: None,
            damping: None,
            limits: None,
            restitution: None,
            input: None,
            armature: None,
            stiffness: None,
            rest: None,
            anchor: None,
        }
    }

    pub(super) fn parse_body(keyword: Ident, content: ParseStream) -> syn::Result<Self> {
        let mut decl = JointDecl::new(keyword);
        parse_keyed(content, "joint", &mut decl, JointDecl::slot)?;
        Ok(decl)
    }

    /// Where the value of `key` goes.
    fn slot<'a>(&'a mut self, key: &Ident) -> syn::Result<Slot<'a>> {
        Ok(match key.to_string().as_str() {
            "name" => Slot::Name(&mut self.name),
            "kind" => Slot::Name(&mut self.kind),
            "parent" => Slot::Name(&mut self.parent),
            "child" => Slot::Name(&mut self.child),
            "origin" => Slot::Value(&mut self.origin),
            "rotation" => Slot::Value(&mut self.rotation),
            "axis" => Slot::Value(&mut self.axis),
            "mass" => Slot::Value(&mut self.mass),
            "centre" | "center" => Slot::Value(&mut self.centre),
            "inertia" => Slot::Value(&mut self.inertia),
            "damping" => Slot::Value(&mut self.damping),
            "limits" => Slot::Value(&mut self.limits),
            "restitution" => Slot::Value(&mut self.restitution),
            "input" => Slot::Name(&mut self.input),
            "armature" => Slot::Value(&mut self.armature),
            "stiffness" => Slot::Value(&mut self.stiffness),
            "rest" => Slot::Value(&mut self.rest),
            other => {
                return Err(unknown(
                    key.span(),
                    format_args!("unknown key `{other}` in `joint(...)`"),
                    other,
                    JOINT_KEYS,
                    "Expected: name, kind, parent, child, origin, rotation, axis, and the child link's mass, centre, \
                     inertia; damping; armature; stiffness = k with rest = q_r; limits = [lower, upper] with \
                     restitution = e; input = u",
                ));
            }
        })
    }

    /// The kind, checked.
    fn kind(&self) -> syn::Result<JointKind> {
        let Some(kind) = &self.kind else {
            return Err(syn::Error::new(
                self.keyword.span(),
                "this joint has no `kind`: write `kind = revolute`, `continuous`, `prismatic`, `fixed`, `planar`, `floating` \
                 or `ball`",
            ));
        };
        Ok(match kind.to_string().as_str() {
            "revolute" | "continuous" => JointKind::Revolute,
            "prismatic" => JointKind::Prismatic,
            "fixed" => JointKind::Fixed,
            "planar" => JointKind::Planar,
            "floating" => JointKind::Floating,
            "ball" => JointKind::Ball,
            other => {
                return Err(unknown(
                    kind.span(),
                    format_args!("unknown joint kind `{other}`"),
                    other,
                    JOINT_KINDS,
                    "Expected: revolute, continuous, prismatic, fixed, planar, floating or ball",
                ));
            }
        })
    }
}

/// The joint's axis, checked against its kind: a revolute or prismatic joint needs one; a fixed or
/// floating joint has none; a planar joint moves in its frame's x–y plane (its axis, if given, is
/// `[0, 0, 1]`).
fn joint_axis(j: &JointDecl, kind: JointKind) -> syn::Result<TokenStream> {
    let kind_span = j.kind.as_ref().map_or(j.keyword.span(), Ident::span);
    match (kind, &j.axis) {
        (JointKind::Revolute | JointKind::Prismatic, Some(a)) => Ok(grouped(a)),
        (JointKind::Revolute | JointKind::Prismatic, None) => Err(syn::Error::new(
            kind_span,
            "a revolute or prismatic joint needs its `axis`, a unit vector in the child link's axes: `axis = [0, 0, 1]`",
        )),
        (JointKind::Planar, Some(a)) if quote::quote!(#a).to_string() != "[0 , 0 , 1]" => Err(syn::Error::new_spanned(
            a,
            "a planar joint moves in its frame's x–y plane, about z: leave `axis` out (or write `[0, 0, 1]`) and turn \
             the plane with `rotation`",
        )),
        (JointKind::Planar, _) => Ok(TokenStream::new()),
        (JointKind::Fixed | JointKind::Floating | JointKind::Ball, Some(a)) => {
            Err(syn::Error::new_spanned(a, "a fixed, floating or ball joint has no axis: leave `axis` out"))
        }
        (JointKind::Fixed | JointKind::Floating | JointKind::Ball, None) => Ok(TokenStream::new()),
    }
}

/// A revolute joint's turn with its origin's rotation about the joint's own axis taken into its
/// angle. `rotation` read as a product of factors, the last ones elementary turns — `rot_x(t)`,
/// `rot_y(t)`, `rot_z(t)`, `axis_angle(±e_k, t)` for a literal axis, `rpy(r, p, y)` as
/// R_z(y) R_y(p) R_x(r) (URDF's), products of these (MJCF's Euler angles) — and `axis` a literal
/// ±e_k: turns about one axis add their angles, so that each last factor about e_k moves into the
/// joint's turn, C R_k(t) · axis_angle(±e_k, q) = C · axis_angle(±e_k, q ± t), the same rotation
/// exactly (a last factor of angle 0 is dropped first). Returns the rotation left (`None` for
/// none) and the angle, or `None` where no factor moves. Only an angle written without `pi`
/// moves (the UR5's 1.57079632679, or any other): a multiple of π is a permutation with signs
/// already (see the URDF reader), which the recursive dynamics specialises; with the origin's
/// turn in the angle, its joint's transform is a turn behind a sparse constant part instead of a
/// full rotation.
fn folded_turn(rotation: &Expr, axis: &Expr, q: &Ident) -> Option<(Option<TokenStream>, TokenStream)> {
    let span = q.span();
    let (k, direction) = coordinate_axis(axis)?;
    let mut factors = Vec::new();
    rotation_factors(rotation, &mut factors);
    let mut angle = quote_spanned!(span=> #q);
    let mut moved = false;
    while let Some(Factor::Turn(axis, sign, t)) = factors.last() {
        let (axis, sign, t) = (*axis, *sign, (*t).clone());
        if literal(&t) == Some(0.0) {
            factors.pop();
            continue;
        }
        if axis != k || mentions_pi(&quote::quote!(#t)) {
            break;
        }
        // R_k(s t) · R_k(σ q) = R_k(σ (q + σ s t)).
        angle =
            if sign * direction > 0.0 { quote_spanned!(span=> (#angle + (#t))) } else { quote_spanned!(span=> (#angle - (#t))) };
        moved = true;
        factors.pop();
    }
    if !moved {
        return None;
    }
    let rest = factors
        .iter()
        .map(|f| match f {
            Factor::Turn(axis, sign, t) => {
                let name = proc_macro2::Ident::new(["rot_x", "rot_y", "rot_z"][*axis], span);
                if *sign > 0.0 { quote_spanned!(span=> #name(#t)) } else { quote_spanned!(span=> #name(-(#t))) }
            }
            Factor::Other(e) => quote_spanned!(span=> (#e)),
        })
        .reduce(|a, b| quote_spanned!(span=> #a * #b))
        .map(|r| quote_spanned!(span=> (#r)));
    Some((rest, angle))
}

/// A factor of a rotation as written: an elementary turn (axis k, its sign, the angle) or anything
/// else.
enum Factor {
    Turn(usize, f64, Expr),
    Other(Expr),
}

/// `e`'s factors, left to right, into `out` ([`folded_turn`]).
fn rotation_factors(e: &Expr, out: &mut Vec<Factor>) {
    let e = unwrapped(e);
    match e {
        Expr::Binary(b) if matches!(b.op, syn::BinOp::Mul(_)) => {
            rotation_factors(&b.left, out);
            rotation_factors(&b.right, out);
        }
        Expr::Call(call) => {
            let name = match unwrapped(&call.func) {
                Expr::Path(f) => f.path.get_ident().map(ToString::to_string),
                _ => None,
            };
            let args: Vec<&Expr> = call.args.iter().collect();
            match (name.as_deref(), args.as_slice()) {
                (Some("rot_x"), [t]) => out.push(Factor::Turn(0, 1.0, (*t).clone())),
                (Some("rot_y"), [t]) => out.push(Factor::Turn(1, 1.0, (*t).clone())),
                (Some("rot_z"), [t]) => out.push(Factor::Turn(2, 1.0, (*t).clone())),
                (Some("rpy"), [r, p, y]) => out.extend([
                    Factor::Turn(2, 1.0, (*y).clone()),
                    Factor::Turn(1, 1.0, (*p).clone()),
                    Factor::Turn(0, 1.0, (*r).clone()),
                ]),
                (Some("axis_angle"), [a, t]) => match coordinate_axis(a) {
                    Some((k, direction)) => out.push(Factor::Turn(k, direction, (*t).clone())),
                    None => out.push(Factor::Other(e.clone())),
                },
                _ => out.push(Factor::Other(e.clone())),
            }
        }
        _ => out.push(Factor::Other(e.clone())),
    }
}

/// The axis ±e_k that `e` writes as a literal array (`[0, -1, 0]`): k and the sign.
fn coordinate_axis(e: &Expr) -> Option<(usize, f64)> {
    let Expr::Array(a) = unwrapped(e) else { return None };
    let c: Vec<f64> = a.elems.iter().map(literal).collect::<Option<_>>()?;
    let k = (0..3).find(|&k| c.len() == 3 && c[k].abs() == 1.0 && (0..3).all(|i| i == k || c[i] == 0.0))?;
    Some((k, c[k]))
}

/// `e` without parentheses and invisible groups.
fn unwrapped(e: &Expr) -> &Expr {
    match e {
        Expr::Paren(p) => unwrapped(&p.expr),
        Expr::Group(g) => unwrapped(&g.expr),
        _ => e,
    }
}

/// The value of a literal number `e` (signed, in parentheses or not).
fn literal(e: &Expr) -> Option<f64> {
    match unwrapped(e) {
        Expr::Lit(l) => match &l.lit {
            syn::Lit::Int(i) => i.base10_digits().parse().ok(),
            syn::Lit::Float(f) => f.base10_digits().parse().ok(),
            _ => None,
        },
        Expr::Unary(u) if matches!(u.op, syn::UnOp::Neg(_)) => literal(&u.expr).map(|v| -v),
        _ => None,
    }
}

/// Whether `tokens` name `pi`.
fn mentions_pi(tokens: &TokenStream) -> bool {
    tokens.clone().into_iter().any(|t| match t {
        proc_macro2::TokenTree::Ident(i) => i == "pi",
        proc_macro2::TokenTree::Group(g) => mentions_pi(&g.stream()),
        _ => false,
    })
}

/// `tokens` as an expression.
fn expr(tokens: TokenStream) -> syn::Result<Expr> {
    syn::parse2(tokens)
}

/// The value of `e` in parentheses, spanned on it.
fn grouped(e: &Expr) -> TokenStream {
    quote_spanned!(e.span()=> (#e))
}

impl RawModel {
    /// Expands the joints into coordinates, frames, points, bodies and forces (see the module
    /// documentation), after checking that they form a tree: each link the child of one joint,
    /// each parent a joint's child, no link its own ancestor. Linear in the number of joints.
    pub(super) fn expand_joints(&mut self) -> syn::Result<()> {
        let joints = std::mem::take(&mut self.joints);
        let mut child_of: rustc_hash::FxHashMap<String, usize> = rustc_hash::FxHashMap::default();
        for (k, j) in joints.iter().enumerate() {
            let child = j.child.as_ref().ok_or_else(|| {
                syn::Error::new(j.keyword.span(), "this joint has no `child`: name the link it moves, `child = link`")
            })?;
            if child_of.insert(child.to_string(), k).is_some() {
                return Err(syn::Error::new(
                    child.span(),
                    format!(
                        "the link `{child}` is the child of two joints; a link hangs on one joint — close a loop \
                         with a `closure(...)`"
                    ),
                ));
            }
        }
        // Each joint's parent joint, and the joints below each (siblings in the order written).
        let mut below: Vec<Vec<usize>> = vec![Vec::new(); joints.len()];
        let mut roots = Vec::new();
        for (k, j) in joints.iter().enumerate() {
            match &j.parent {
                None => roots.push(k),
                Some(p) => match child_of.get(&p.to_string()) {
                    Some(&parent) => below[parent].push(k),
                    None => {
                        let links: Vec<String> =
                            joints.iter().filter_map(|j| j.child.as_ref().map(ToString::to_string)).collect();
                        return Err(unknown(
                            p.span(),
                            format_args!("the parent `{p}` is no joint's child link"),
                            &p.to_string(),
                            links.iter(),
                            "a joint's parent is the child of another joint; leave `parent` out for a joint on the ground",
                        ));
                    }
                },
            }
        }
        // Parents before children, depth first from the ground: the recursions read each
        // coordinate's parent as the last of those that move its masses. A joint the walk does not
        // reach hangs on a loop.
        let mut order = Vec::with_capacity(joints.len());
        let mut stack: Vec<usize> = roots.into_iter().rev().collect();
        while let Some(k) = stack.pop() {
            order.push(k);
            stack.extend(below[k].iter().rev());
        }
        if order.len() < joints.len() {
            let mut reached = vec![false; joints.len()];
            order.iter().for_each(|&k| reached[k] = true);
            let k = (0..joints.len()).find(|&k| !reached[k]).expect("a joint not reached");
            let child = joints[k].child.as_ref().expect("checked above");
            return Err(syn::Error::new(
                child.span(),
                format!("the link `{child}` is its own ancestor: joints form a tree; close a loop with a `closure(...)`"),
            ));
        }
        for k in order {
            self.expand_joint(&joints[k])?;
        }
        Ok(())
    }

    /// One joint's items.
    fn expand_joint(&mut self, j: &JointDecl) -> syn::Result<()> {
        let kind = j.kind()?;
        let child = j.child.clone().expect("checked by expand_joints");
        let span = child.span();
        let name = match (kind, &j.name) {
            (JointKind::Fixed, _) => None,
            (_, Some(name)) => Some(name.clone()),
            (_, None) => {
                return Err(syn::Error::new(
                    j.keyword.span(),
                    "this joint has no `name`: a moving joint names its coordinate, `name = q1`",
                ));
            }
        };
        let axis = joint_axis(j, kind)?;
        let origin = j.origin.as_ref().map_or_else(|| quote_spanned!(span=> [0, 0, 0]), grouped);
        let mut rotation = j.rotation.as_ref().map(grouped);
        let turned = rotation.as_ref().map(|r| quote_spanned!(span=> #r *));
        // The joint's own turn of the child's axes and offset of its origin (in the joint frame).
        let coordinate = |suffix: &str| name.as_ref().map(|n| format_ident!("{}_{}", n, suffix, span = n.span()));
        let (turn, offset, coordinates): (Option<TokenStream>, Option<TokenStream>, Vec<Ident>) = match (kind, &name) {
            (JointKind::Revolute, Some(q)) => {
                // The origin's turn about the joint's own axis taken into its angle (no anchor:
                // the origin's offset does not turn).
                let folded = match (&j.rotation, &j.axis, &j.anchor) {
                    (Some(r), Some(a), None) => folded_turn(r, a, q),
                    _ => None,
                };
                let angle = match folded {
                    Some((rest, angle)) => {
                        rotation = rest;
                        angle
                    }
                    None => quote_spanned!(span=> #q),
                };
                let turn = quote_spanned!(span=> axis_angle(#axis, #angle));
                // Turning about an axis through the anchor a: the origin moves by a − turn · a.
                let shift = j.anchor.as_ref().map(grouped).map(|a| quote_spanned!(span=> (#a - #turn * #a)));
                (Some(turn), shift, vec![q.clone()])
            }
            (JointKind::Ball, Some(_)) => {
                let r = coordinate("q").expect("named");
                self.orientation_after.push(self.coordinates.len());
                self.orientations.push((j.keyword.clone(), vec![r.clone()]));
                let shift = j.anchor.as_ref().map(grouped).map(|a| quote_spanned!(span=> (#a - #r * #a)));
                (Some(quote_spanned!(span=> #r)), shift, Vec::new())
            }
            (JointKind::Prismatic, Some(q)) => (None, Some(quote_spanned!(span=> #axis * #q)), vec![q.clone()]),
            (JointKind::Planar, Some(q)) => {
                let (x, y) = (coordinate("x").expect("named"), coordinate("y").expect("named"));
                (Some(quote_spanned!(span=> rot_z(#q))), Some(quote_spanned!(span=> [#x, #y, 0])), vec![x, y, q.clone()])
            }
            (JointKind::Floating, Some(_)) => {
                let [x, y, z, r] = ["x", "y", "z", "q"].map(|c| coordinate(c).expect("named"));
                // The rotation turns the link after its translation (declared after x, y, z).
                self.orientation_after.push(self.coordinates.len() + 3);
                self.orientations.push((j.keyword.clone(), vec![r.clone()]));
                (Some(quote_spanned!(span=> #r)), Some(quote_spanned!(span=> [#x, #y, #z])), vec![x, y, z])
            }
            _ => (None, None, Vec::new()),
        };
        // frame = parent · R · turn, origin = parent_origin + parent · (p + R · offset), each factor
        // and term only where there is one.
        let frame_factors: Vec<TokenStream> =
            [j.parent.as_ref().map(|p| quote_spanned!(p.span()=> #p)), rotation.clone(), turn].into_iter().flatten().collect();
        let frame = frame_factors
            .into_iter()
            .reduce(|a, b| quote_spanned!(span=> #a * #b))
            .unwrap_or_else(|| quote_spanned!(span=> rot_z(0)));
        let local = match offset {
            Some(o) => quote_spanned!(span=> (#origin + #turned #o)),
            None => origin,
        };
        let point = match &j.parent {
            Some(p) => {
                let o = format_ident!("{}_origin", p, span = p.span());
                quote_spanned!(span=> #o + #p * #local)
            }
            None => local,
        };
        let origin_name = format_ident!("{}_origin", child, span = span);
        self.defines.push(Binding { name: child.clone(), value: expr(frame)?, kind: DefineKind::Frame, params: Vec::new() });
        self.defines.push(Binding {
            name: origin_name.clone(),
            value: expr(point)?,
            kind: DefineKind::Point,
            params: Vec::new(),
        });
        if !coordinates.is_empty() {
            self.coordinates_keyword.get_or_insert_with(|| j.keyword.clone());
            self.coordinates.extend(coordinates);
        }
        self.joint_body(j, &child, &origin_name)?;
        self.joint_limits(j, kind, name.as_ref())?;
        self.joint_damping(j, kind, name.as_ref())?;
        self.joint_armature(j, kind, name.as_ref())?;
        self.joint_stiffness(j, kind, name.as_ref())?;
        self.joint_input(j, kind, name.as_ref())
    }

    /// `limits = [lower, upper]` with `restitution = e`: the impacts `<name>_lower` (guard
    /// q − lower ≥ 0) and `<name>_upper` (guard upper − q ≥ 0), each with Newton's law of
    /// coefficient e.
    fn joint_limits(&mut self, j: &JointDecl, kind: JointKind, name: Option<&Ident>) -> syn::Result<()> {
        let (limits, e) = match (&j.limits, &j.restitution) {
            (None, None) => return Ok(()),
            (Some(limits), Some(e)) => (limits, e),
            (Some(limits), None) => {
                return Err(syn::Error::new_spanned(
                    limits,
                    "a joint's limits are impacts: give their law, `restitution = e` (0 plastic, 1 elastic)",
                ));
            }
            (None, Some(e)) => {
                return Err(syn::Error::new_spanned(
                    e,
                    "`restitution` is the law at the joint's `limits = [lower, upper]`: give them",
                ));
            }
        };
        let q = match (kind, name) {
            (JointKind::Revolute | JointKind::Prismatic, Some(q)) => q,
            _ => return Err(syn::Error::new_spanned(limits, "limits bound a revolute or prismatic joint's coordinate")),
        };
        let Expr::Array(bounds) = limits else {
            return Err(syn::Error::new_spanned(limits, "write the limits as `[lower, upper]`"));
        };
        let [lower, upper] = [0, 1].map(|k| bounds.elems.iter().nth(k).cloned());
        let (Some(lower), Some(upper), 2) = (lower, upper, bounds.elems.len()) else {
            return Err(syn::Error::new_spanned(limits, "write the limits as `[lower, upper]`"));
        };
        for (side, guard) in
            [("lower", quote_spanned!(q.span()=> #q - (#lower))), ("upper", quote_spanned!(q.span()=> (#upper) - #q))]
        {
            self.impacts.push(super::ImpactDecl {
                keyword: Ident::new("impact", q.span()),
                name: Some(format_ident!("{}_{}", q, side, span = q.span())),
                guard: Some(expr(guard)?),
                law: Some(super::LawDecl::Restitution { rows: vec![(None, e.clone())] }),
                modes: None,
                zeno: None,
            });
        }
        Ok(())
    }

    /// The viscous force −d q̇ of `damping = d` on a revolute or prismatic joint's coordinate
    /// (added to a force written on it).
    fn joint_damping(&mut self, j: &JointDecl, kind: JointKind, name: Option<&Ident>) -> syn::Result<()> {
        let Some(d) = &j.damping else { return Ok(()) };
        let Some(q) = moving(kind, name) else {
            return Err(syn::Error::new_spanned(
                d,
                "`damping` acts on a revolute or prismatic joint's coordinate; write a force on the others' coordinates",
            ));
        };
        let d = grouped(d);
        self.add_force(q, quote_spanned!(q.span()=> -#d * dot(#q)))
    }

    /// `armature = a`: the kinetic energy ½ a q̇² of a rotor geared to the joint, added to the
    /// written Lagrangian (on the spatial recursion, a_j on the joint's pivot).
    fn joint_armature(&mut self, j: &JointDecl, kind: JointKind, name: Option<&Ident>) -> syn::Result<()> {
        let Some(a) = &j.armature else { return Ok(()) };
        let Some(q) = moving(kind, name) else {
            return Err(syn::Error::new_spanned(a, "`armature` is a revolute or prismatic joint's rotor inertia"));
        };
        let span = q.span();
        let a = grouped(a);
        self.add_lagrangian(span, quote_spanned!(span=> #a / 2 * dot(#q).powi(2)))
    }

    /// `stiffness = k` with `rest = q_r`: the potential ½ k (q − q_r)² of a spring on a revolute or
    /// prismatic joint (MJCF's `stiffness` and `springref`), its −½ k (q − q_r)² added to the
    /// written Lagrangian — in the energy, and on the recursive path among the written potentials.
    fn joint_stiffness(&mut self, j: &JointDecl, kind: JointKind, name: Option<&Ident>) -> syn::Result<()> {
        let Some(k) = &j.stiffness else {
            return match &j.rest {
                Some(r) => Err(syn::Error::new_spanned(
                    r,
                    "`rest` is where the joint's spring is at rest: give the spring's `stiffness = k`",
                )),
                None => Ok(()),
            };
        };
        let Some(q) = moving(kind, name) else {
            return Err(syn::Error::new_spanned(
                k,
                "`stiffness` is a spring on a revolute or prismatic joint's coordinate; write the potential of the \
                 others' springs in the Lagrangian",
            ));
        };
        let span = q.span();
        let k = grouped(k);
        let stretch = match &j.rest {
            Some(r) => {
                let r = grouped(r);
                quote_spanned!(span=> (#q - #r))
            }
            None => quote_spanned!(span=> #q),
        };
        self.add_lagrangian(span, quote_spanned!(span=> -(#k / 2 * #stretch.powi(2))))
    }

    /// Adds `term` to the written Lagrangian (or makes it the Lagrangian).
    fn add_lagrangian(&mut self, span: proc_macro2::Span, term: TokenStream) -> syn::Result<()> {
        match self.lagrangians.first_mut() {
            Some((_, written)) => *written = expr(quote_spanned!(span=> (#written) + #term))?,
            None => self.lagrangians.push((Ident::new("lagrangian", span), expr(term)?)),
        }
        Ok(())
    }

    /// `input = u`: the input u, a generalized force on the joint's coordinate.
    fn joint_input(&mut self, j: &JointDecl, kind: JointKind, name: Option<&Ident>) -> syn::Result<()> {
        let Some(u) = &j.input else { return Ok(()) };
        let Some(q) = moving(kind, name) else {
            return Err(syn::Error::new(
                u.span(),
                "`input` drives a revolute or prismatic joint's coordinate; write a force of an input on the others' \
                 coordinates",
            ));
        };
        self.inputs.push((Ident::new("input", u.span()), vec![u.clone()]));
        self.add_force(q, quote_spanned!(q.span()=> #u))
    }

    /// Adds `force` to the force on coordinate `q` (written, or from another of the joint's keys).
    fn add_force(&mut self, q: &Ident, force: proc_macro2::TokenStream) -> syn::Result<()> {
        let span = q.span();
        match self.forces.iter_mut().find(|f| f.name == *q) {
            Some(f) => {
                let written = &f.value;
                f.value = expr(quote_spanned!(span=> (#written) + #force))?;
            }
            None => {
                self.forces.push(Binding { name: q.clone(), value: expr(force)?, kind: DefineKind::Define, params: Vec::new() })
            }
        }
        Ok(())
    }

    /// The child link's body, where the joint gives its mass.
    fn joint_body(&mut self, j: &JointDecl, child: &Ident, origin: &Ident) -> syn::Result<()> {
        let Some(mass) = &j.mass else {
            if let Some(e) = j.inertia.as_ref().or(j.centre.as_ref()) {
                return Err(syn::Error::new_spanned(
                    e,
                    "a link's centre and inertia need its `mass`; leave all three out for a link without a body",
                ));
            }
            return Ok(());
        };
        let span = child.span();
        let centre = match &j.centre {
            Some(c) => {
                let c = grouped(c);
                quote_spanned!(span=> #origin + #child * #c)
            }
            None => quote_spanned!(span=> #origin),
        };
        // Without an inertia, a point mass carried by the link's frame (which places it on its
        // joint for the recursive dynamics).
        self.bodies.push(BodyDecl {
            keyword: Ident::new("body", span),
            name: Some(child.clone()),
            mass: Some(mass.clone()),
            centre: Some(expr(centre)?),
            frame: Some(expr(quote_spanned!(span=> #child))?),
            inertia: j.inertia.clone(),
            point: j.inertia.is_none(),
        });
        Ok(())
    }
}

/// The coordinate of a revolute or prismatic joint (the one a damping, an armature or an input
/// acts on), none for the other kinds.
fn moving(kind: JointKind, name: Option<&Ident>) -> Option<&Ident> {
    match (kind, name) {
        (JointKind::Revolute | JointKind::Prismatic, Some(q)) => Some(q),
        _ => None,
    }
}

/// The keys of `closure(...)`.
pub const CLOSURE_KEYS: &[&str] = &["name", "a", "at", "b", "to", "axes", "rotations"];

/// A kinematic loop closed as written, `closure(name = k, a = link, at = p, b = link, to = r,
/// axes = [x, z])`: the point `at` of link `a` (in its axes) held on the point `to` of link `b`,
/// along the inertial axes listed (all three when `axes` is left out) — a holonomic constraint
/// per axis, `k_x = (a_origin + a · p − b_origin − b · r)[0]`, and so on; with `rotations = [x, y]`
/// the two links' frames are held aligned too, about the listed axes of `a`'s frame: with
/// C = aᵀ b (the identity when closed), `k_rx = (C₃₂ − C₂₃)/2`, `k_ry = (C₁₃ − C₃₁)/2`,
/// `k_rz = (C₂₁ − C₁₂)/2` — the relative turn's sine along each axis.
#[derive(Clone)]
pub struct ClosureDecl {
    pub keyword: Ident,
    pub name: Option<Ident>,
    pub a: Option<Ident>,
    pub at: Option<Expr>,
    pub b: Option<Ident>,
    pub to: Option<Expr>,
    pub axes: Option<Expr>,
    pub rotations: Option<Expr>,
}

impl ClosureDecl {
    pub(super) fn parse_body(keyword: Ident, content: ParseStream) -> syn::Result<Self> {
        let mut decl = ClosureDecl { keyword, name: None, a: None, at: None, b: None, to: None, axes: None, rotations: None };
        parse_keyed(content, "closure", &mut decl, ClosureDecl::slot)?;
        Ok(decl)
    }

    fn slot<'a>(&'a mut self, key: &Ident) -> syn::Result<Slot<'a>> {
        Ok(match key.to_string().as_str() {
            "name" => Slot::Name(&mut self.name),
            "a" => Slot::Name(&mut self.a),
            "at" => Slot::Value(&mut self.at),
            "b" => Slot::Name(&mut self.b),
            "to" => Slot::Value(&mut self.to),
            "axes" => Slot::Value(&mut self.axes),
            "rotations" => Slot::Value(&mut self.rotations),
            other => {
                return Err(unknown(
                    key.span(),
                    format_args!("unknown key `{other}` in `closure(...)`"),
                    other,
                    CLOSURE_KEYS,
                    "Expected: name, a (a link), at (a point of it, in its axes), b, to, and optionally axes = [x, y, z] \
                     (the inertial axes along which the points are held together) and rotations = [x, y, z] (the axes \
                     of `a` about which the frames are held aligned)",
                ));
            }
        })
    }

    /// The constraints: one `holonomic` row per axis.
    pub(super) fn constraints(&self) -> syn::Result<Vec<super::ConstraintDecl>> {
        let missing = |what: &str| {
            syn::Error::new(
                self.keyword.span(),
                format!("this closure has no `{what}`: write `closure(name = k, a = link, at = [..], b = link, to = [..])`"),
            )
        };
        let name = self.name.as_ref().ok_or_else(|| missing("name"))?;
        let (a, b) = (self.a.as_ref().ok_or_else(|| missing("a"))?, self.b.as_ref().ok_or_else(|| missing("b"))?);
        let span = name.span();
        let point = |link: &Ident, offset: &Option<Expr>| {
            let origin = format_ident!("{}_origin", link, span = link.span());
            match offset {
                Some(p) => {
                    let p = grouped(p);
                    quote_spanned!(link.span()=> (#origin + #link * #p))
                }
                None => quote_spanned!(link.span()=> #origin),
            }
        };
        let (pa, pb) = (point(a, &self.at), point(b, &self.to));
        let listed = |list: &Option<Expr>, key: &str, all: bool| -> syn::Result<Vec<Ident>> {
            match list {
                None if all => Ok(["x", "y", "z"].iter().map(|s| Ident::new(s, span)).collect()),
                None => Ok(Vec::new()),
                Some(Expr::Array(list)) => list
                    .elems
                    .iter()
                    .map(|e| match e {
                        Expr::Path(p) if p.path.get_ident().is_some_and(|i| i == "x" || i == "y" || i == "z") => {
                            Ok(p.path.get_ident().expect("checked").clone())
                        }
                        other => Err(syn::Error::new_spanned(other, "an axis of a closure is `x`, `y` or `z`")),
                    })
                    .collect(),
                Some(other) => Err(syn::Error::new_spanned(other, format!("write the axes as a list, `{key} = [x, z]`"))),
            }
        };
        let axes = listed(&self.axes, "axes", true)?;
        let rotations = listed(&self.rotations, "rotations", false)?;
        let mut rows = Vec::with_capacity(axes.len());
        for axis in &axes {
            if rows.iter().any(|r: &super::ConstraintDecl| r.name == format_ident!("{}_{}", name, axis)) {
                return Err(syn::Error::new(axis.span(), format!("the axis `{axis}` is listed twice")));
            }
            let k = match axis.to_string().as_str() {
                "x" => 0usize,
                "y" => 1,
                _ => 2,
            };
            let k = proc_macro2::Literal::usize_unsuffixed(k);
            rows.push(super::ConstraintDecl {
                keyword: Ident::new("holonomic", span),
                name: format_ident!("{}_{}", name, axis),
                value: expr(quote_spanned!(span=> (#pa - #pb)[#k]))?,
            });
        }
        // C_ij = (a e_i)·(b e_j); about x, (C₃₂ − C₂₃)/2, and cyclically.
        let unit = |i: usize| match i {
            0 => quote_spanned!(span=> [1, 0, 0]),
            1 => quote_spanned!(span=> [0, 1, 0]),
            _ => quote_spanned!(span=> [0, 0, 1]),
        };
        for axis in &rotations {
            let row = format_ident!("{}_r{}", name, axis);
            if rows.iter().any(|r: &super::ConstraintDecl| r.name == row) {
                return Err(syn::Error::new(axis.span(), format!("the rotation axis `{axis}` is listed twice")));
            }
            let (i, j) = match axis.to_string().as_str() {
                "x" => (2, 1),
                "y" => (0, 2),
                _ => (1, 0),
            };
            let (ei, ej) = (unit(i), unit(j));
            let value = quote_spanned!(span=> ((#a * #ei).dot(#b * #ej) - (#a * #ej).dot(#b * #ei)) / 2);
            rows.push(super::ConstraintDecl { keyword: Ident::new("holonomic", span), name: row, value: expr(value)? });
        }
        Ok(rows)
    }
}
