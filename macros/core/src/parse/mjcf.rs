//! `mjcf = "path"`: a robot read from its MJCF (MuJoCo) file at expansion, into `joint(...)` items
//! — the kinematic core: the `<worldbody>`'s tree of `<body>` elements, their joints and inertials.
//!
//! What is read: `<compiler angle eulerseq>` (degrees by default, as MuJoCo; Euler angles in the
//! sequence `xyz` only); per `<body>`, `name`, `pos` and its orientation (`quat`, `axisangle`,
//! `euler`, `xyaxes` or `zaxis`, as MuJoCo turns them), its `<inertial pos quat|axisangle|euler mass diaginertia|fullinertia>`, and its joints:
//! `<joint type="hinge|slide|ball|free" name pos axis ref damping armature stiffness springref
//! range>` and `<freejoint>` (a hinge's or slide's `armature` a, a rotor's inertia, is its kinetic
//! energy ½ a q̇²; its `stiffness` k a spring's potential ½ k (q − `springref`)²). A hinge's
//! or slide's coordinate is MuJoCo's joint value (`qpos`): it turns or slides by q − `ref` from the
//! pose written, where the body is at q = `ref` (MuJoCo's `qpos0`), and its `range` is as written.
//! A body's
//! joints act in the order written, each about an axis through its `pos` (a hinge or a ball) in
//! the body's axes: the body on joints j₁, …, j_k is a chain of links `<body>_<j₁>`, … ending in
//! `<body>` itself. A joint's attributes it does not give are its default class's (`<default>`,
//! `class`, `childclass`: [`mjcf_defaults`](super::mjcf_defaults)). A body within `<frame pos quat|axisangle|euler>` elements is placed on their
//! poses (nested frames composed, MuJoCo's). A body without `<inertial>` takes its mass, centre and
//! inertia from its primitive geoms as MuJoCo does ([`mjcf_geoms`](super::mjcf_geoms); none with
//! `inertiafromgeom="false"`, every body with `"true"`). A body without joints is welded to its parent. A `free` joint is a floating
//! joint (coordinates `<name>_x`, `_y`, `_z` from the body's own pose, and the orientation
//! `<name>_q`), a `ball` joint an orientation `<name>_q` about its `pos`. `range` becomes limits
//! only when asked, `mjcf(path = "...", limits = e)`: impacts of restitution e (for joints that
//! are limited: `limited="true"`, or a range given and `limited` not `"false"`). Angles (Euler,
//! axis-angle, a quaternion's turn) are read as the URDF reader's: a multiple of π/6 or π/4 exactly
//! where they are one to 10⁻¹², or to `round_angles = tol` where asked. `<equality>` couplings of
//! joints are constraints, and `mjcf(path = ..., lock = [a, b = 0.3])` holds hinges and slides
//! fixed at their values (radians or metres, whatever the file's `angle`), each folded with its
//! `ref` into a fixed joint ([`mjcf_equality`](super::mjcf_equality)).
//!
//! Not read, and no part of the model: `<geom>` (shapes, and their contacts), `<site>`,
//! `<camera>`, `<light>`, `<option>` (gravity is the model's `gravity = ...`; fluid forces are no
//! part of the model), `<actuator>`,
//! `<sensor>`, `<tendon>`, `<contact>`, `<asset>`, `<visual>`, `<keyframe>` (a state's zeros are
//! the joints' zeros, not `qpos0`); `<equality>` constraints with `mjcf(path = ..., equality =
//! ignore)`, which leaves them all out. Refused with the file, line and element: `<include>`
//! (expansion reads the one file named), `<replicate>`, `<attach>`, `<composite>` and `<flexcomp>`
//! (which make bodies of their own), an equality constraint other than a joint coupling
//! (unless left out when asked), a class a joint names that the file does not define, a body whose
//! mass would come from a geom whose shape is not read (a mesh), the compiler's `settotalmass`,
//! `boundmass` and `boundinertia`, a body's `gravcomp`, a joint's `springdamper`, a negative `stiffness` or one on a ball or free joint, `frictionloss` other than 0
//! (unless read with `mjcf(path = ..., friction = ignore)`, which leaves it out of the model), an
//! armature on a ball or free joint, an orientation given twice, a zero quaternion, Euler angles in another sequence, a zero
//! axis, and what the URDF reader refuses of masses and inertias (with `inertias = balance`, as it
//! reads them).

use std::f64::consts::PI;

use proc_macro2::{Span, TokenStream};
use quote::quote_spanned;
use syn::{Ident, LitStr};

use super::description::{Asked, LimitsRead, Locked, Place, angle, drive_joints, number, vector, with_root};
use super::mjcf_defaults::Defaults;
use super::mjcf_equality as equality;
use super::mjcf_geoms as geoms;
use super::{JointDecl, RawModel};

/// Degrees or radians, and how to read an orientation.
#[derive(Clone, Copy)]
struct Units {
    degrees: bool,
}

impl Units {
    /// An angle of the file in radians.
    fn angle(self, v: f64) -> f64 {
        if self.degrees { v.to_radians() } else { v }
    }
}

/// An element's orientation as numbers: a turn about an axis, or intrinsic x, y, z Euler angles
/// (MuJoCo's default sequence), in radians.
enum Turn {
    About([f64; 3], f64),
    Euler([f64; 3]),
}

/// The orientation `node` gives by its `quat`, `axisangle`, `euler`, `xyaxes` or `zaxis`, as
/// MuJoCo turns them (`None` for none, or a turn by nothing); given twice is an error.
fn turn_of(place: &Place, node: roxmltree::Node, units: Units) -> syn::Result<Option<Turn>> {
    // A quaternion (w, x, y, z) as its axis and turn.
    let turned = |[w, x, y, z]: [f64; 4]| {
        let v = (x * x + y * y + z * z).sqrt();
        (v != 0.0).then(|| Turn::About([x, y, z], 2.0 * v.atan2(w)))
    };
    let given = ["quat", "axisangle", "euler", "xyaxes", "zaxis"].into_iter().filter(|a| node.attribute(*a).is_some());
    if given.count() > 1 {
        return Err(place.error(node, "the orientation is given twice (one of `quat`, `axisangle`, `euler`, `xyaxes`, `zaxis`)"));
    }
    if node.attribute("quat").is_some() {
        return Ok(turned(quaternion(place, node)?));
    }
    if node.attribute("xyaxes").is_some() {
        // The frame's x and y axes (y made orthogonal to x), z = x × y: MuJoCo's.
        let [a, b, c, d, e, f] = place.numbers(node, "xyaxes", [1.0, 0.0, 0.0, 0.0, 1.0, 0.0])?;
        let Some(q) = frame_quaternion([a, b, c], [d, e, f]) else {
            return Err(place.error(node, "`xyaxes` gives no frame (a zero axis, or y along x)"));
        };
        return Ok(turned(q));
    }
    if node.attribute("zaxis").is_some() {
        // The least turn taking the z axis onto the one given (about x where it is −z): MuJoCo's.
        let [x, y, z] = place.numbers(node, "zaxis", [0.0, 0.0, 1.0])?;
        let n = (x * x + y * y + z * z).sqrt();
        if n == 0.0 {
            return Err(place.error(node, "`zaxis` is zero"));
        }
        let (x, y, z) = (x / n, y / n, z / n);
        return Ok(match (x == 0.0 && y == 0.0, z > 0.0) {
            (true, true) => None,
            (true, false) => Some(Turn::About([1.0, 0.0, 0.0], PI)),
            // Axis e_z × v, angle acos(v_z) (by atan2, exact at the quarter turns).
            (false, _) => Some(Turn::About([-y, x, 0.0], (x * x + y * y).sqrt().atan2(z))),
        });
    }
    if node.attribute("axisangle").is_some() {
        let [x, y, z, a] = place.numbers(node, "axisangle", [0.0; 4])?;
        if [x, y, z] == [0.0; 3] {
            return Err(place.error(node, "the rotation's axis is zero"));
        }
        return Ok((a != 0.0).then(|| Turn::About([x, y, z], units.angle(a))));
    }
    if node.attribute("euler").is_some() {
        return Ok(Some(Turn::Euler(place.numbers(node, "euler", [0.0; 3])?.map(|v| units.angle(v)))));
    }
    Ok(None)
}

/// The rotation an element's orientation gives ([`turn_of`]), as tokens (`None` for none): an
/// angle near a table multiple of π rounded as the file's other angles are.
fn orientation(place: &Place, node: roxmltree::Node, units: Units) -> syn::Result<Option<TokenStream>> {
    let span = place.span;
    Ok(match turn_of(place, node, units)? {
        None => None,
        Some(Turn::About(axis, turn)) => {
            let (axis, turn) = (unit(axis, span), angle(turn, place.round_angles, span));
            Some(quote_spanned!(span=> axis_angle(#axis, #turn)))
        }
        Some(Turn::Euler(angles)) => {
            // R = R_x(a) R_y(b) R_z(c).
            let [a, b, c] = angles.map(|v| angle(v, place.round_angles, span));
            Some(quote_spanned!(span=> (rot_x(#a) * rot_y(#b) * rot_z(#c))))
        }
    })
}

/// The rotation an element's orientation gives ([`turn_of`]), as numbers (the identity for none),
/// for a geom's inertia.
pub(super) fn rotation_matrix(place: &Place, node: roxmltree::Node, degrees: bool) -> syn::Result<[[f64; 3]; 3]> {
    let about = |axis: [f64; 3], turn: f64| -> [[f64; 3]; 3] {
        let n = (axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2]).sqrt();
        let (s, c) = (turn / 2.0).sin_cos();
        let [w, x, y, z] = [c, s * axis[0] / n, s * axis[1] / n, s * axis[2] / n];
        [
            [1.0 - 2.0 * (y * y + z * z), 2.0 * (x * y - w * z), 2.0 * (x * z + w * y)],
            [2.0 * (x * y + w * z), 1.0 - 2.0 * (x * x + z * z), 2.0 * (y * z - w * x)],
            [2.0 * (x * z - w * y), 2.0 * (y * z + w * x), 1.0 - 2.0 * (x * x + y * y)],
        ]
    };
    let product = |a: [[f64; 3]; 3], b: [[f64; 3]; 3]| -> [[f64; 3]; 3] {
        std::array::from_fn(|i| std::array::from_fn(|j| (0..3).map(|k| a[i][k] * b[k][j]).sum()))
    };
    Ok(match turn_of(place, node, Units { degrees })? {
        None => about([0.0, 0.0, 1.0], 0.0),
        Some(Turn::About(axis, turn)) => about(axis, turn),
        Some(Turn::Euler([a, b, c])) => {
            product(product(about([1.0, 0.0, 0.0], a), about([0.0, 1.0, 0.0], b)), about([0.0, 0.0, 1.0], c))
        }
    })
}

/// An element's `quat` (w, x, y, z), of any norm but zero (MuJoCo refuses a zero one).
fn quaternion(place: &Place, node: roxmltree::Node) -> syn::Result<[f64; 4]> {
    let q = place.numbers(node, "quat", [1.0, 0.0, 0.0, 0.0])?;
    if q == [0.0; 4] {
        return Err(place.error(node, "the quaternion is zero"));
    }
    Ok(q)
}

/// The unit quaternion (w, x, y, z) of the frame whose x axis is along `x` and whose y axis is
/// `y` made orthogonal to it (z = x × y); none where they give no frame.
fn frame_quaternion(x: [f64; 3], y: [f64; 3]) -> Option<[f64; 4]> {
    let norm = |v: [f64; 3]| (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
    let nx = norm(x);
    if nx == 0.0 {
        return None;
    }
    let x = x.map(|c| c / nx);
    let d = x[0] * y[0] + x[1] * y[1] + x[2] * y[2];
    let y = [y[0] - d * x[0], y[1] - d * x[1], y[2] - d * x[2]];
    let ny = norm(y);
    if ny <= 1e-12 * nx.max(1.0) {
        return None;
    }
    let y = y.map(|c| c / ny);
    let z = [x[1] * y[2] - x[2] * y[1], x[2] * y[0] - x[0] * y[2], x[0] * y[1] - x[1] * y[0]];
    // R = [x y z] by columns; its quaternion by the largest of the four candidates (Shepperd).
    let r = |i: usize, j: usize| [x, y, z][j][i];
    let trace = r(0, 0) + r(1, 1) + r(2, 2);
    let q = if trace > r(0, 0).max(r(1, 1)).max(r(2, 2)) {
        let w = (1.0 + trace).sqrt() / 2.0;
        [w, (r(2, 1) - r(1, 2)) / (4.0 * w), (r(0, 2) - r(2, 0)) / (4.0 * w), (r(1, 0) - r(0, 1)) / (4.0 * w)]
    } else if r(0, 0) >= r(1, 1) && r(0, 0) >= r(2, 2) {
        let a = (1.0 + r(0, 0) - r(1, 1) - r(2, 2)).sqrt() / 2.0;
        [(r(2, 1) - r(1, 2)) / (4.0 * a), a, (r(0, 1) + r(1, 0)) / (4.0 * a), (r(0, 2) + r(2, 0)) / (4.0 * a)]
    } else if r(1, 1) >= r(2, 2) {
        let b = (1.0 - r(0, 0) + r(1, 1) - r(2, 2)).sqrt() / 2.0;
        [(r(0, 2) - r(2, 0)) / (4.0 * b), (r(0, 1) + r(1, 0)) / (4.0 * b), b, (r(1, 2) + r(2, 1)) / (4.0 * b)]
    } else {
        let c = (1.0 - r(0, 0) - r(1, 1) + r(2, 2)).sqrt() / 2.0;
        [(r(1, 0) - r(0, 1)) / (4.0 * c), (r(0, 2) + r(2, 0)) / (4.0 * c), (r(1, 2) + r(2, 1)) / (4.0 * c), c]
    };
    Some(q)
}

/// A direction as a unit vector's tokens: ±e_k exactly along a coordinate axis (a quaternion's
/// (0, 0.70710677, 0)), normalised in the model otherwise.
fn unit(a: [f64; 3], span: Span) -> TokenStream {
    if a.iter().filter(|&&c| c == 0.0).count() == 2 {
        return vector(a.map(|c| if c == 0.0 { 0.0 } else { c.signum() }), span);
    }
    let v = vector(a, span);
    quote_spanned!(span=> (#v / #v.norm()))
}

/// `<include>` is refused: expansion reads the one file named.
fn check_include(place: &Place, root: roxmltree::Node) -> syn::Result<()> {
    if let Some(i) = root.descendants().find(|n| n.has_tag_name("include")) {
        return Err(place.error(i, "`<include>` is not read: the model reads the one file it names; merge the files"));
    }
    Ok(())
}

impl RawModel {
    /// Reads the robot of `mjcf = "path"` into this model's joints (see the module
    /// documentation).
    pub(super) fn import_mjcf(&mut self, path: &LitStr, asked: &Asked) -> syn::Result<()> {
        let start = self.joints.len();
        let model = |place: &Place<'_>, root: roxmltree::Node<'_, '_>| self.mjcf_model(place, root, asked);
        let (tracked, ()) = with_root(path, asked, "mujoco", "an MJCF file's root element is `<mujoco>`", model)?;
        self.described.push(tracked);
        drive_joints(&mut self.joints[start..], asked);
        Ok(())
    }

    /// The `<mujoco>` model's tree of bodies, its joints held (`lock`) and its equality
    /// constraints.
    fn mjcf_model(&mut self, place: &Place, root: roxmltree::Node, asked: &Asked) -> syn::Result<()> {
        let span = place.span;
        check_include(place, root)?;
        let compiler = root.children().find(|n| n.has_tag_name("compiler"));
        let degrees = match compiler.and_then(|c| c.attribute("angle")) {
            None | Some("degree") => true,
            Some("radian") => false,
            Some(other) => return Err(place.error(compiler.expect("read"), format!("unknown angle unit `{other}`"))),
        };
        if let Some(seq) = compiler.and_then(|c| c.attribute("eulerseq"))
            && seq != "xyz"
        {
            return Err(
                place.error(compiler.expect("read"), format!("Euler angles in the sequence `{seq}` are not read (only `xyz`)"))
            );
        }
        // What would change the bodies' masses and inertias from the file's `<inertial>`s.
        if let Some(c) = compiler {
            for (attr, what) in [
                ("settotalmass", "scales every mass to a total"),
                ("boundmass", "raises the masses below a bound"),
                ("boundinertia", "raises the inertias below a bound"),
            ] {
                let [v] = place.numbers(c, attr, [-1.0])?;
                if v > 0.0 {
                    return Err(place.error(c, format!("`{attr}` ({what}) is not read: write the masses it makes")));
                }
            }
        }
        let units = Units { degrees };
        let Some(world) = root.children().find(|n| n.has_tag_name("worldbody")) else {
            return Err(place.error(root, "no `<worldbody>`"));
        };
        let defaults = Defaults::read(place, root)?;
        let scalars = equality::scalars(place, world, &defaults, degrees)?;
        let couplings = equality::couplings(place, root, &scalars, &defaults, asked.ignore_equality)?;
        let (lock, kept) = equality::held(&asked.lock, &scalars, &couplings)?;
        // `inertiafromgeom`: `auto` (a body without `<inertial>` from its geoms), `true` (every
        // body from its geoms, its `<inertial>` ignored) or `false` (none).
        let from_geoms = match compiler.and_then(|c| c.attribute("inertiafromgeom")) {
            None | Some("auto") => Geoms::Auto,
            Some("true") => Geoms::Always,
            Some("false") => Geoms::Never,
            Some(other) => {
                return Err(place.error(compiler.expect("read"), format!("unknown `inertiafromgeom=\"{other}\"`")));
            }
        };
        let groups = match compiler {
            Some(c) => place.numbers(c, "inertiagrouprange", [0.0, 5.0])?,
            None => [0.0, 5.0],
        };
        let read = Read { units, limits: asked.limits.as_ref(), lock: &lock, defaults: &defaults, from_geoms, groups };
        // Depth first, parents before children, without recursion: (body, the frames it is in,
        // its parent link).
        let mut stack: Vec<(roxmltree::Node, Option<Pose>, Option<Ident>)> =
            bodies_in(place, world, None, units)?.into_iter().map(|(b, f)| (b, f, None)).rev().collect();
        let mut count = 0usize;
        let mut names = Vec::new();
        while let Some((body, frame, parent)) = stack.pop() {
            count += 1;
            let name = match body.attribute("name") {
                Some(n) => place.ident(body, n)?,
                None => Ident::new(&format!("body{count}"), span),
            };
            names.extend(self.mjcf_body(place, body, frame, &name, parent, &read)?);
            let children = bodies_in(place, body, None, units)?;
            stack.extend(children.into_iter().map(|(b, f)| (b, f, Some(name.clone()))).rev());
        }
        if count == 0 {
            return Err(place.error(world, "the `<worldbody>` has no `<body>`"));
        }
        for l in &asked.lock {
            if !names.contains(&l.name.to_string()) {
                let what = format!("the file has no joint `{}` to lock", l.name);
                return Err(crate::diagnostics::unknown(l.name.span(), what, &l.name.to_string(), &names, ""));
            }
        }
        self.constraints.extend(equality::constraints(&couplings, &kept, &scalars, span)?);
        Ok(())
    }

    /// One body: its joints as a chain of links ending in the body, its inertial on the last; the
    /// names of its joints.
    fn mjcf_body(
        &mut self,
        place: &Place,
        body: roxmltree::Node,
        frame: Option<Pose>,
        name: &Ident,
        parent: Option<Ident>,
        read: &Read,
    ) -> syn::Result<Vec<String>> {
        let span = place.span;
        let joints: Vec<roxmltree::Node> =
            body.children().filter(|n| n.has_tag_name("joint") || n.has_tag_name("freejoint")).collect();
        let [gravcomp] = place.numbers(body, "gravcomp", [0.0])?;
        if gravcomp != 0.0 {
            return Err(place.error(
                body,
                "gravity compensation (`gravcomp`, an upward force on the body's centre) is not read: write it as a force \
                 in the model",
            ));
        }
        let pos = place.numbers(body, "pos", [0.0; 3])?;
        let turn = orientation(place, body, read.units)?;
        // Within `<frame>`s, the body's pose on theirs.
        let (at, turn) = match frame {
            Some(f) => f.then(Some(vector(pos, span)), turn, span),
            None => (vector(pos, span), turn),
        };
        let mut decls = Vec::with_capacity(joints.len().max(1));
        let mut folds = Vec::with_capacity(joints.len());
        if joints.is_empty() {
            decls.push(JointDecl {
                kind: Some(Ident::new("fixed", span)),
                child: Some(name.clone()),
                ..JointDecl::new(Ident::new("joint", span))
            });
            folds.push(None);
        }
        let mut names = Vec::with_capacity(joints.len());
        for (k, j) in joints.iter().enumerate() {
            let jname = match j.attribute("name") {
                Some(n) => place.ident(*j, n)?,
                None => Ident::new(&format!("{name}_joint{}", k + 1), span),
            };
            names.push(jname.to_string());
            let child = if k + 1 == joints.len() { name.clone() } else { Ident::new(&format!("{name}_{jname}"), span) };
            let (decl, fold) = self.mjcf_joint(place, *j, jname, child, read)?;
            decls.push(decl);
            folds.push(fold);
        }
        // The first joint carries the body's pose on its parent; each next one hangs on the last;
        // each hinge's or slide's motion by its fold (its `ref`, or where it is held) before it.
        for (k, fold) in folds.iter().enumerate() {
            decls[k].parent = if k == 0 { parent.clone() } else { decls[k - 1].child.clone() };
            let (origin, rotation) = if k == 0 { (Some(at.clone()), turn.clone()) } else { (None, None) };
            let (origin, rotation) = match fold {
                Some(f) => {
                    let (o, r) = f.after(origin.unwrap_or_else(|| vector([0.0; 3], span)), rotation, place);
                    (Some(o), r)
                }
                None => (origin, rotation),
            };
            decls[k].origin = origin.map(syn::parse2).transpose()?;
            decls[k].rotation = rotation.map(syn::parse2).transpose()?;
        }
        let last = decls.len() - 1;
        mjcf_inertial(place, body, &mut decls[last], read)?;
        self.joints.extend(decls);
        Ok(names)
    }

    /// One `<joint>` or `<freejoint>` (a fixed joint where it is held), and the constant motion
    /// folded before it: a hinge's or slide's by −`ref` (MuJoCo's value of the joint at the pose
    /// written, where routh's coordinate would be 0), or to its held value.
    fn mjcf_joint(
        &mut self,
        place: &Place,
        j: roxmltree::Node,
        name: Ident,
        child: Ident,
        read: &Read,
    ) -> syn::Result<(JointDecl, Option<Fold>)> {
        let (span, units) = (place.span, read.units);
        // Each attribute the joint's or its default class's (`<default>`).
        let from = |attr: &str| read.defaults.source(place, j, "joint", attr);
        // An error on the element that gives `attr` (a class's default names the joint it is for).
        let joint_name = name.to_string();
        let error = |attr: &str, message: String| -> syn::Result<syn::Error> {
            let at = from(attr)?;
            Ok(if at == j {
                place.error(j, message)
            } else {
                place.error(at, format!("{message} (the joint `{joint_name}`'s class)"))
            })
        };
        let kind = if j.has_tag_name("freejoint") { "free" } else { from("type")?.attribute("type").unwrap_or("hinge") };
        let file_kind = kind;
        let kind = match kind {
            "hinge" => "revolute",
            "slide" => "prismatic",
            "ball" => "ball",
            "free" => "floating",
            other => return Err(error("type", format!("unknown joint type `{other}`"))?),
        };
        let one_coordinate = kind == "revolute" || kind == "prismatic";
        let held = read.lock.iter().find(|l| l.name == name);
        if let Some(l) = held
            && !one_coordinate
        {
            return Err(syn::Error::new(
                l.name.span(),
                format!("`{name}` is a `{file_kind}` joint: `lock` holds a hinge or a slide fixed"),
            ));
        }
        // MuJoCo's q = ref is where the file puts the body (its `qpos0`): the joint turns or
        // slides by q − ref, folded as a constant motion by −ref before the joint's own.
        let [reference] = place.numbers(from("ref")?, "ref", [0.0])?;
        let reference = if kind == "revolute" { units.angle(reference) } else { reference };
        let axis = place.numbers(from("axis")?, "axis", [0.0, 0.0, 1.0])?;
        if one_coordinate && axis.iter().all(|&c| c == 0.0) {
            return Err(error("axis", "the joint's axis is zero".into())?);
        }
        let at = place.numbers(from("pos")?, "pos", [0.0; 3])?;
        let fold = |by: f64| {
            (one_coordinate && by != 0.0).then(|| Fold {
                slide: kind == "prismatic",
                unit: unit(axis, span),
                anchor: if kind == "revolute" { at } else { [0.0; 3] },
                by,
            })
        };
        let mut decl = JointDecl {
            name: Some(name),
            kind: Some(Ident::new(kind, span)),
            child: Some(child),
            ..JointDecl::new(Ident::new("joint", span))
        };
        let limited = match from("limited")?.attribute("limited") {
            Some("true") => true,
            Some("false") => false,
            _ => from("range")?.attribute("range").is_some(),
        };
        let range = if limited && one_coordinate {
            let [lower, upper] = place.numbers(from("range")?, "range", [0.0; 2])?;
            let [lower, upper] = if kind == "revolute" { [lower, upper].map(|v| units.angle(v)) } else { [lower, upper] };
            if lower >= upper {
                return Err(error("range", format!("the range's lower end {lower} is not below its upper {upper}"))?);
            }
            Some((lower, upper))
        } else {
            None
        };
        if let Some(l) = held {
            // Held: a fixed joint at its value, its limits, friction, damping and input dropped.
            if let Some((lower, upper)) = range
                && !(lower..=upper).contains(&l.value)
            {
                let n = &l.name;
                return Err(syn::Error::new(
                    n.span(),
                    format!(
                        "`{n}` would be held at {}, outside its range [{lower}, {upper}]: lock it at a value within \
                         it, `lock = [{n} = ...]`",
                        l.value
                    ),
                ));
            }
            decl.kind = Some(Ident::new("fixed", span));
            return Ok((decl, fold(l.value - reference)));
        }
        // A hinge's or slide's spring, −k (q − springref) (MuJoCo's `qpos_spring`, the angle in
        // the file's unit): `stiffness = k, rest = springref`.
        if place.numbers(from("springdamper")?, "springdamper", [0.0; 2])? != [0.0; 2] {
            return Err(error(
                "springdamper",
                "`springdamper` (a spring and a damper from a time constant and a damping ratio, scaled by the \
                 joint's inertia) is not read: give the joint's `stiffness` and `damping`"
                    .into(),
            )?);
        }
        let [stiffness] = place.numbers(from("stiffness")?, "stiffness", [0.0])?;
        if stiffness < 0.0 {
            return Err(error("stiffness", "the stiffness is negative".into())?);
        }
        if stiffness > 0.0 {
            if !one_coordinate {
                return Err(place.error(
                    j,
                    format!("a spring (`stiffness`) on a `{file_kind}` joint is not read: write its potential in the model"),
                ));
            }
            decl.stiffness = Some(syn::parse2(number(stiffness, span))?);
            let [rest] = place.numbers(from("springref")?, "springref", [0.0])?;
            let rest = if kind == "revolute" { units.angle(rest) } else { rest };
            if rest != 0.0 {
                decl.rest = Some(syn::parse2(number(rest, span))?);
            }
        }
        let [friction] = place.numbers(from("frictionloss")?, "frictionloss", [0.0])?;
        let friction = place.dry_friction(
            from("frictionloss")?,
            friction,
            "dry friction (`frictionloss`) is not read: read the file with `mjcf(path = ..., friction = ignore)` to \
             leave it out of the model, or set it to 0, or write it in the model",
        )?;
        if one_coordinate {
            decl.axis = Some(syn::parse2(unit(axis, span))?);
        }
        if (kind == "revolute" || kind == "ball") && at != [0.0; 3] {
            decl.anchor = Some(syn::parse2(vector(at, span))?);
        }
        // The damping, and a rotor's inertia reflected onto the joint (MuJoCo adds it to M's
        // diagonal: ½ a q̇²), of a hinge or a slide.
        for (attr, what) in [("damping", "damping"), ("armature", "an armature")] {
            let [value] = place.numbers(from(attr)?, attr, [0.0])?;
            if value < 0.0 {
                return Err(error(attr, format!("the {attr} is negative"))?);
            }
            if value > 0.0 && !one_coordinate {
                return Err(place.error(j, format!("{what} on a `{kind}` joint is not read: write it in the model")));
            }
            if value > 0.0 {
                let value = Some(syn::parse2(number(value, span))?);
                if attr == "damping" { decl.damping = value } else { decl.armature = value }
            }
        }
        if let (Some((lower, upper)), Some(e)) = (range, read.limits) {
            let (lower, upper) = (number(lower, span), number(upper, span));
            decl.limits = Some(syn::parse2(quote_spanned!(span=> [#lower, #upper]))?);
            decl.restitution = Some(e.clone());
        }
        let friction = friction.filter(|_| one_coordinate);
        if range.is_some() || friction.is_some() {
            let coordinate = decl.name.clone().expect("named above");
            self.limits_read.push(LimitsRead { coordinate, position: range, effort: None, velocity: None, friction });
        }
        Ok((decl, fold(-reference)))
    }
}

/// Which bodies take their masses from their geoms (`<compiler inertiafromgeom>`).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Geoms {
    /// Those without `<inertial>` (MuJoCo's default, `auto`).
    Auto,
    /// Every body, its `<inertial>` ignored (`true`).
    Always,
    /// None (`false`).
    Never,
}

/// A pose as tokens: an origin and a rotation (none for none), the frames' a body is in.
#[derive(Clone)]
struct Pose {
    origin: TokenStream,
    rotation: Option<TokenStream>,
}

impl Pose {
    /// The pose (`origin`, `rotation`) given in this one's axes, on the ground's: (p + R o, R A)
    /// (an origin `None` for none).
    fn then(&self, origin: Option<TokenStream>, rotation: Option<TokenStream>, span: Span) -> (TokenStream, Option<TokenStream>) {
        let p = &self.origin;
        let origin = match (origin, &self.rotation) {
            (None, _) => p.clone(),
            (Some(o), Some(r)) => quote_spanned!(span=> #p + #r * #o),
            (Some(o), None) => quote_spanned!(span=> #p + #o),
        };
        let rotation = match (&self.rotation, rotation) {
            (Some(r), Some(a)) => Some(quote_spanned!(span=> #r * #a)),
            (r, a) => r.clone().or(a),
        };
        (origin, rotation)
    }
}

/// The `<body>` children of `node` (the `<worldbody>` or a body), and those within its `<frame>`
/// children, each with the pose of the frames it is in (MuJoCo's `<frame pos quat|axisangle|euler>`,
/// nested frames composed); an element that would make bodies of its own (`<replicate>`,
/// `<attach>`, `<composite>`, `<flexcomp>`) is refused.
fn bodies_in<'a>(
    place: &Place,
    node: roxmltree::Node<'a, 'a>,
    frame: Option<Pose>,
    units: Units,
) -> syn::Result<Vec<(roxmltree::Node<'a, 'a>, Option<Pose>)>> {
    let span = place.span;
    let mut out = Vec::new();
    for child in node.children().filter(roxmltree::Node::is_element) {
        match child.tag_name().name() {
            "body" => out.push((child, frame.clone())),
            "frame" => {
                let pos = vector(place.numbers(child, "pos", [0.0; 3])?, span);
                let turn = orientation(place, child, units)?;
                let (origin, rotation) = match &frame {
                    Some(f) => f.then(Some(pos), turn, span),
                    None => (pos, turn),
                };
                out.extend(bodies_in(place, child, Some(Pose { origin, rotation }), units)?);
            }
            tag @ ("replicate" | "attach" | "composite" | "flexcomp") => {
                return Err(place.error(
                    child,
                    format!("`<{tag}>` is not read (it makes bodies of its own): write the bodies it makes in the file"),
                ));
            }
            _ => {}
        }
    }
    Ok(out)
}

/// What every body reads alike: the file's angle unit, the limits' restitution where asked, and
/// the joints held.
struct Read<'r, 'a> {
    units: Units,
    limits: Option<&'r syn::Expr>,
    lock: &'r [Locked],
    defaults: &'r Defaults<'a>,
    /// Which bodies take their masses from their geoms (the compiler's `inertiafromgeom`), and the
    /// geoms' groups that count (`inertiagrouprange`).
    from_geoms: Geoms,
    groups: [f64; 2],
}

/// A hinge's turn about its axis `unit` through `anchor`, or a slide's along `unit`, by `by`
/// (radians or metres): the constant motion J(by) a joint's `ref` or its held value puts before
/// its own (the two commute: the same axis through the same point).
struct Fold {
    slide: bool,
    unit: TokenStream,
    anchor: [f64; 3],
    by: f64,
}

impl Fold {
    /// The pose (`origin`, `rotation`) followed by this motion: (p + R t, R A) for J = (t, A),
    /// A = the turn, t = a − A a about the anchor a (a slide's t = e·by, A = 1).
    fn after(&self, origin: TokenStream, rotation: Option<TokenStream>, place: &Place) -> (TokenStream, Option<TokenStream>) {
        let span = place.span;
        let unit = &self.unit;
        let (shift, turn) = if self.slide {
            let by = number(self.by, span);
            (Some(quote_spanned!(span=> (#unit * #by))), None)
        } else {
            let by = angle(self.by, place.round_angles, span);
            let turn = quote_spanned!(span=> axis_angle(#unit, #by));
            let shift = (self.anchor != [0.0; 3]).then(|| {
                let a = vector(self.anchor, span);
                quote_spanned!(span=> (#a - #turn * #a))
            });
            (shift, Some(turn))
        };
        Pose { origin, rotation }.then(shift, turn, span)
    }
}

/// The body's `<inertial>` into the joint's mass, centre and inertia; a body with geoms and no
/// inertial is refused (MuJoCo would infer it from them), one with neither has no mass.
fn mjcf_inertial<'a>(place: &Place, body: roxmltree::Node<'a, 'a>, decl: &mut JointDecl, read: &Read<'_, 'a>) -> syn::Result<()> {
    let (span, units) = (place.span, read.units);
    let inertial = body.children().find(|n| n.has_tag_name("inertial")).filter(|_| read.from_geoms != Geoms::Always);
    let Some(inertial) = inertial else {
        // MuJoCo's `inertiafromgeom`: the body's mass from its geoms (none with "false").
        if read.from_geoms == Geoms::Never {
            return Ok(());
        }
        let Some(solid) = geoms::from_geoms(place, body, read.defaults, units.degrees, read.groups)? else { return Ok(()) };
        decl.mass = Some(syn::parse2(number(solid.mass, span))?);
        decl.centre = Some(syn::parse2(vector(solid.centre, span))?);
        let i = solid.inertia;
        let node = body.children().find(|n| n.has_tag_name("geom")).unwrap_or(body);
        let Some(i) = place.inertia(node, solid.mass, [i[0][0], i[0][1], i[0][2], i[1][1], i[1][2], i[2][2]])? else {
            return Ok(());
        };
        let [a, b, c, d, e, f] = i.map(|v| number(v, span));
        decl.inertia = Some(syn::parse2(quote_spanned!(span=> [[#a, #b, #c], [#b, #d, #e], [#c, #e, #f]]))?);
        return Ok(());
    };
    let [mass] = place.numbers(inertial, "mass", [0.0])?;
    let full = inertial.attribute("fullinertia").is_some();
    if full && ["quat", "axisangle", "euler", "xyaxes", "zaxis"].iter().any(|a| inertial.attribute(*a).is_some()) {
        return Err(place.error(
            inertial,
            "a `fullinertia` is in the body's axes, with no orientation (MuJoCo's schema): give the inertia turned into \
             them, or its principal moments as `diaginertia` with the orientation of its axes",
        ));
    }
    let i = if full {
        let [xx, yy, zz, xy, xz, yz] = place.numbers(inertial, "fullinertia", [0.0; 6])?;
        [xx, xy, xz, yy, yz, zz]
    } else {
        let [a, b, c] = place.numbers(inertial, "diaginertia", [0.0; 3])?;
        [a, 0.0, 0.0, b, 0.0, c]
    };
    if mass <= 0.0 {
        return Err(place.error(inertial, "the mass is not positive"));
    }
    decl.mass = Some(syn::parse2(number(mass, span))?);
    decl.centre = Some(syn::parse2(vector(place.numbers(inertial, "pos", [0.0; 3])?, span))?);
    let Some(i) = place.inertia(inertial, mass, i)? else { return Ok(()) };
    let [a, b, c, d, e, f] = i.map(|v| number(v, span));
    let matrix = quote_spanned!(span=> [[#a, #b, #c], [#b, #d, #e], [#c, #e, #f]]);
    let inertia = match orientation(place, inertial, units)? {
        Some(r) => quote_spanned!(span=> #r * #matrix * #r.transpose()),
        None => matrix,
    };
    decl.inertia = Some(syn::parse2(inertia)?);
    Ok(())
}
