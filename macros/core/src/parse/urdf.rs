//! `urdf = "path"`: a robot read from its URDF file at expansion, into the `joint(...)` items a user
//! would write by hand (and, for `<mimic>`, a `holonomic(...)` constraint).
//!
//! What is read, per `<joint>`: `name` (the coordinate), `type` (`revolute`, `continuous`,
//! `prismatic`, `fixed`, `floating`, and `planar` with its normal along z), `<parent link>`,
//! `<child link>`, `<origin xyz rpy>`, `<axis xyz>` (normalised; URDF's default x), `<dynamics
//! damping>` (a viscous force) and `<mimic joint multiplier offset>` (the constraint q = m q_joint +
//! o; on a fixed joint, which has no coordinate, none); per `<link>`, `<inertial>` with its
//! `<origin xyz rpy>`, `<mass value>` and `<inertia ixx ixy ixz iyy iyz izz>` (about the centre,
//! in the axes `rpy` turns the link's into; a mass whose six inertia entries are zero — or below a
//! nanometre's radius of gyration, a CAD export's noise — is a point mass at the centre; an inertia
//! with a zero mass is that rotational inertia alone, as Pinocchio reads it). The root
//! link (the one no joint moves) is the ground: its name is the identity frame, and its body, which
//! does not move, adds nothing — unless the item asks for `root = floating` (or `planar`): then a
//! joint `root` of that kind moves the root link, with its body, from the ground (a legged robot's
//! trunk, a drone's frame: Pinocchio's `buildModelFromUrdf(path, JointModelFreeFlyer())`).
//!
//! With `urdf(path = "...", limits = e)`, each revolute and prismatic joint's `<limit lower upper>`
//! is two impacts of restitution e at its ends (`joint(..., limits = [lower, upper], restitution =
//! e)`); a joint without them is then an error.
//!
//! Not part of the dynamics: `<limit>` (the position limits unless asked for) and the friction
//! `friction = ignore` leaves out, kept as the model's constants `POSITION_LIMITS`,
//! `EFFORT_LIMITS`, `VELOCITY_LIMITS` and `FRICTION`. Not read, and no part of the model:
//! `<visual>`, `<collision>` (meshes and geometry),
//! `<safety_controller>`, `<calibration>`, `<transmission>`, `<gazebo>`, `<material>` and any other element. Refused with the file,
//! line and element named: a malformed file, a `planar` joint whose normal is not z, a joint with a
//! zero axis, a link moved by two joints or never reached from the root (a loop: close it with a
//! `closure(...)` instead), nonzero Coulomb friction (unless read with `friction = ignore`, which
//! leaves it out of the model) or negative damping, a mass that is negative or
//! an inertia that is no rigid body's (a negative or zero principal moment, or against the triangle
//! inequality of principal moments; all zero is a point mass; with `inertias = balance`, the
//! isotropic inertia of its trace), a `<mimic>` of an undeclared joint, an attribute that is not
//! the numbers it should be.
//!
//! Numbers are read as `f64` (the value a URDF means) and written into the model as their shortest
//! decimal; an angle of `rpy` within 10⁻¹² (relative) of a multiple of π/6 or π/4 — what `${pi/2}`
//! prints as — is that multiple exactly, so that a quarter turn is a permutation with signs; with
//! `urdf(path = ..., round_angles = tol)`, an angle within tol (radians, at most 10⁻⁴) of one too.

use quote::quote_spanned;
use syn::{Ident, LitStr};

use super::description::{Asked, LimitsRead, Locked, Place, drive_joints, number, rotation, vector, with_root};
use super::{Binding, ConstraintDecl, DefineKind, JointDecl, RawModel};

impl RawModel {
    /// Reads the robot of `urdf = "path"` into this model's joints (see the module
    /// documentation).
    pub(super) fn import_urdf(&mut self, path: &LitStr, asked: &Asked) -> syn::Result<()> {
        let start = self.joints.len();
        let limits = asked.limits.as_ref();
        let root = asked.root.as_ref().filter(|k| *k != "fixed");
        let lock = asked.lock.as_slice();
        let robot = |place: &Place<'_>, robot: roxmltree::Node<'_, '_>| self.urdf_robot(place, robot, limits, root, lock);
        let (tracked, ()) = with_root(path, asked, "robot", "a URDF file's root element is `<robot>`", robot)?;
        self.described.push(tracked);
        drive_joints(&mut self.joints[start..], asked);
        Ok(())
    }

    /// The `<robot>`'s joints and links; with `root` (`floating` or `planar`), the root link moved
    /// from the ground by a joint `root` of that kind.
    fn urdf_robot(
        &mut self,
        place: &Place,
        robot: roxmltree::Node,
        limits: Option<&syn::Expr>,
        root_kind: Option<&Ident>,
        lock: &[Locked],
    ) -> syn::Result<()> {
        let span = place.span;
        let links: Vec<roxmltree::Node> = robot.children().filter(|n| n.has_tag_name("link")).collect();
        let joints: Vec<roxmltree::Node> = robot.children().filter(|n| n.has_tag_name("joint")).collect();
        // Links by name, and the links moved by a joint: linear in the file's size.
        let mut by_name: rustc_hash::FxHashMap<&str, roxmltree::Node> = rustc_hash::FxHashMap::default();
        for l in &links {
            by_name.insert(place.required(*l, "name")?, *l);
        }
        let link_of = |name: &str| by_name.get(name).copied();
        // Each link moved by at most one joint; the root, by none.
        let mut moved: rustc_hash::FxHashSet<&str> = rustc_hash::FxHashSet::default();
        for j in &joints {
            let child =
                place.required(place.child(*j, "child").ok_or_else(|| place.error(*j, "no `<child link=...>`"))?, "link")?;
            if !moved.insert(child) {
                return Err(place.error(
                    *j,
                    format!(
                        "the link `{child}` is moved by a second joint: a URDF is a tree; write the tree and close the \
                         loop in the model with a `closure(...)`"
                    ),
                ));
            }
        }
        let roots: Vec<roxmltree::Node> =
            links.iter().copied().filter(|l| !moved.contains(&l.attribute("name").unwrap_or_default())).collect();
        let root = match roots.as_slice() {
            [root] => *root,
            [] if links.is_empty() => return Err(place.error(robot, "the robot has no `<link>`: there is nothing to move")),
            [] => return Err(place.error(robot, "every link is moved by a joint: the joints close a loop")),
            [a, b, ..] => {
                return Err(place.error(
                    *b,
                    format!(
                        "two links are moved by no joint, `{}` and `{}`: a robot is one tree from one root link",
                        a.attribute("name").unwrap_or_default(),
                        b.attribute("name").unwrap_or_default()
                    ),
                ));
            }
        };
        // The links' names as the model's: each joint's name is its coordinate, and a link named
        // as a joint (the SO-100's `gripper`), or as another link once made an identifier, is
        // given `_link` after it.
        let mut names = Vec::with_capacity(joints.len());
        for j in &joints {
            names.push(place.ident(*j, place.required(*j, "name")?)?.to_string());
        }
        let mut taken: rustc_hash::FxHashSet<String> = rustc_hash::FxHashSet::default();
        for (j, name) in joints.iter().zip(&names) {
            if root_kind.is_some() && name == "root" {
                return Err(place.error(
                    *j,
                    "a joint of the file is named `root`, the name of the joint that `root = ...` adds above the root link",
                ));
            }
            taken.insert(name.clone());
        }
        if root_kind.is_some() {
            taken.insert("root".to_owned());
        }
        let mut idents: rustc_hash::FxHashMap<&str, Ident> = rustc_hash::FxHashMap::default();
        for l in &links {
            let name = place.required(*l, "name")?;
            let mut ident = place.ident(*l, name)?.to_string();
            while taken.contains(&ident) {
                ident.push_str("_link");
            }
            taken.insert(ident.clone());
            if idents.insert(name, Ident::new(&ident, span)).is_some() {
                return Err(place.error(*l, format!("a second link is named `{name}`")));
            }
        }
        let ident_of = |name: &str| idents[name].clone();
        let joint_names: rustc_hash::FxHashSet<&str> = joints.iter().filter_map(|j| j.attribute("name")).collect();
        let joint_named = |name: &str| joint_names.contains(name);
        let root_name = root.attribute("name").unwrap_or_default();
        if root_kind.is_none() && joints.iter().all(|j| j.attribute("type") == Some("fixed")) {
            return Err(place.error(
                root,
                "no joint of the file moves: this root link is the ground and every link is fixed to it; read the \
                 file with `urdf(path = ..., root = floating)` to move the root link freely (a drone's frame, a legged \
                 robot's trunk) or `root = planar` to move it in the x–y plane",
            ));
        }
        let root_ident = ident_of(root_name);
        let ground = match root_kind {
            // The root link is the ground: the identity frame, its body adding nothing.
            None => {
                let root_origin = Ident::new(&format!("{root_ident}_origin"), span);
                self.defines.push(Binding {
                    name: root_ident,
                    value: syn::parse2(quote_spanned!(span=> rot_z(0)))?,
                    kind: DefineKind::Frame,
                    params: Vec::new(),
                });
                self.defines.push(Binding {
                    name: root_origin,
                    value: syn::parse2(quote_spanned!(span=> [0, 0, 0]))?,
                    kind: DefineKind::Point,
                    params: Vec::new(),
                });
                Some(root_name)
            }
            // The root link on a joint `root` from the ground, with its body (Pinocchio's
            // `buildModelFromUrdf(path, JointModelFreeFlyer())`).
            Some(kind) => {
                self.joints.push(root_joint(place, root, kind, root_ident, &joints)?);
                None
            }
        };
        // The joints held fixed (`lock`), by the names the model gives them.
        for l in lock {
            if !names.contains(&l.name.to_string()) {
                let what = format!("the file has no joint `{}` to lock", l.name);
                return Err(crate::diagnostics::unknown(l.name.span(), what, &l.name.to_string(), &names, ""));
            }
        }
        // A joint that mimics a held one is held where the `<mimic>` puts it (Romeo's fingers, which
        // follow its hand); one held where its leader does not put it is an error.
        let mut lock = lock.to_vec();
        let mut mimics = Vec::new();
        for (i, j) in joints.iter().enumerate() {
            if let Some(m) = mimic_of(place, *j)? {
                mimics.push((i, place.ident(m.node, m.leader)?.to_string(), m));
            }
        }
        for _ in 0..=mimics.len() {
            let mut added = false;
            for (i, leader, m) in &mimics {
                let name = &names[*i];
                let Some(k) = lock.iter().find(|l| l.name == leader).cloned() else { continue };
                let follows = m.multiplier * k.value + m.offset;
                match lock.iter().find(|l| l.name == name.as_str()) {
                    Some(l) if (l.value - follows).abs() > 1e-12 * (1.0 + follows.abs()) => {
                        return Err(syn::Error::new(
                            l.name.span(),
                            format!(
                                "`{name}` mimics `{leader}` (q = {} · {leader} + {}): held with `{leader}` at {}, it is \
                                 at {follows}; lock it there, or leave it out of `lock`",
                                m.multiplier, m.offset, k.value
                            ),
                        ));
                    }
                    Some(_) => {}
                    None => {
                        lock.push(Locked { name: Ident::new(name, k.name.span()), value: follows });
                        added = true;
                    }
                }
            }
            if !added {
                break;
            }
        }
        // One held whose leader moves would hold the leader too.
        for (i, leader, _) in &mimics {
            let name = &names[*i];
            if let Some(l) = lock.iter().find(|l| l.name == name.as_str())
                && !lock.iter().any(|k| k.name == leader)
            {
                return Err(syn::Error::new(
                    l.name.span(),
                    format!("`{name}` mimics `{leader}`, which moves: lock `{leader}`, and `{name}` is held where it follows"),
                ));
            }
        }
        let locked_at = |name: &str| lock.iter().find(|l| l.name == name);
        for (j, name) in joints.iter().zip(&names) {
            let locked = locked_at(name);
            let mut decl = match locked {
                Some(l) => locked_joint(place, *j, joint_ends(place, *j, ground, &link_of, &ident_of)?, l)?,
                None => self.urdf_joint(place, *j, ground, &link_of, &ident_of, &joint_named)?,
            };
            if let Some(e) = limits.filter(|_| locked.is_none()) {
                joint_limits(place, *j, &mut decl, e)?;
            }
            self.joints.push(decl);
        }
        Ok(())
    }

    /// One `<joint>` as a `joint(...)` item (with its child link's body), and its `<mimic>` as a
    /// constraint; a joint from the link `ground` (the root link, unless it is moved by `root`)
    /// hangs from the ground.
    fn urdf_joint<'a>(
        &mut self,
        place: &Place,
        j: roxmltree::Node<'a, 'a>,
        ground: Option<&str>,
        link_of: &dyn Fn(&str) -> Option<roxmltree::Node<'a, 'a>>,
        ident_of: &dyn Fn(&str) -> Ident,
        joint_named: &dyn Fn(&str) -> bool,
    ) -> syn::Result<JointDecl> {
        let span = place.span;
        let name = place.ident(j, place.required(j, "name")?)?;
        let kind = match place.required(j, "type")? {
            k @ ("revolute" | "continuous" | "prismatic" | "fixed" | "floating" | "planar") => Ident::new(k, span),
            other => return Err(place.error(j, format!("unknown joint type `{other}`"))),
        };
        let (parent, child, child_node) = joint_ends(place, j, ground, link_of, ident_of)?;
        let mut decl = JointDecl {
            name: Some(name.clone()),
            kind: Some(kind.clone()),
            parent,
            child: Some(child),
            ..JointDecl::new(Ident::new("joint", span))
        };
        if let Some(origin) = place.child(j, "origin") {
            let xyz = place.numbers(origin, "xyz", [0.0; 3])?;
            decl.origin = Some(syn::parse2(vector(xyz, span))?);
            decl.rotation = rotation(place.numbers(origin, "rpy", [0.0; 3])?, place).map(syn::parse2).transpose()?;
        }
        let one_coordinate = kind == "revolute" || kind == "continuous" || kind == "prismatic";
        let dynamics = place.child(j, "dynamics");
        let friction = match dynamics {
            Some(d) => {
                let [friction] = place.numbers(d, "friction", [0.0])?;
                place.dry_friction(
                    d,
                    friction,
                    "Coulomb friction is not supported (its force jumps where the joint's velocity changes sign, \
                     which the integrator cannot step across); read the file with `urdf(path = ..., friction = ignore)` \
                     to leave it out of the model (as Pinocchio's dynamics do), or set `friction=\"0\"`, or write the \
                     friction as a force",
                )?
            }
            None => None,
        };
        let limit = place.child(j, "limit");
        if one_coordinate && (limit.is_some() || friction.is_some()) {
            let read = |attr: &str| {
                limit.and_then(|l| l.attribute(attr).map(|_| place.numbers(l, attr, [0.0]).map(|[v]| v))).transpose()
            };
            let (lower, upper) = (read("lower")?, read("upper")?);
            self.limits_read.push(LimitsRead {
                coordinate: name.clone(),
                position: lower.zip(upper).filter(|_| kind != "continuous"),
                effort: read("effort")?,
                velocity: read("velocity")?,
                friction,
            });
        }
        let moving = kind != "fixed";
        if kind == "planar" {
            // The plane's normal: z of the joint frame is the one read (URDF's default is x).
            let axis_node = place.child(j, "axis");
            let axis = axis_node.map(|a| place.numbers(a, "xyz", [1.0, 0.0, 0.0])).transpose()?.unwrap_or([1.0, 0.0, 0.0]);
            if axis != [0.0, 0.0, 1.0] {
                return Err(place.error(
                    axis_node.unwrap_or(j),
                    "a planar joint is read with its normal along z of its frame (`<axis xyz=\"0 0 1\"/>`); turn the \
                     plane with the origin's `rpy`",
                ));
            }
        } else if kind == "floating" {
            // No axis: three translations and a rotation.
        } else if moving {
            decl.axis = Some(syn::parse2(unit_axis(place, j)?)?);
        }
        if let Some(d) = dynamics {
            let [damping] = place.numbers(d, "damping", [0.0])?;
            if damping < 0.0 {
                return Err(place.error(d, "the damping is negative"));
            }
            if damping > 0.0 && (kind == "planar" || kind == "floating") {
                return Err(
                    place.error(d, format!("damping on a `{kind}` joint is not read: write it as a force on its coordinates"))
                );
            }
            if damping > 0.0 && moving {
                decl.damping = Some(syn::parse2(number(damping, span))?);
            }
        }
        // A fixed joint has no coordinate to constrain: its `<mimic>` (left by a file that fixed a
        // finger's joint, Talos's grippers) is no part of the model.
        if let Some(m) = mimic_of(place, j)? {
            if !joint_named(m.leader) {
                return Err(place.error(m.node, format!("the joint `{}` this joint mimics is not declared", m.leader)));
            }
            let leader = place.ident(m.node, m.leader)?;
            let (multiplier, offset) = (number(m.multiplier, span), number(m.offset, span));
            self.constraints.push(ConstraintDecl {
                keyword: Ident::new("holonomic", span),
                name: Ident::new(&format!("{name}_mimic"), span),
                value: syn::parse2(quote_spanned!(span=> #name - (#multiplier * #leader + #offset)))?,
            });
        }
        link_body(place, child_node, &mut decl)?;
        Ok(decl)
    }
}

/// A joint's `<mimic joint multiplier offset>`: q = multiplier · q_leader + offset.
struct Mimic<'a> {
    node: roxmltree::Node<'a, 'a>,
    /// The leader's name in the file.
    leader: &'a str,
    multiplier: f64,
    offset: f64,
}

/// The `<mimic>` of the joint `j`, if it has one that constrains: a fixed joint's (left by a file
/// that fixed a finger's joint, Talos's grippers) has no coordinate to constrain and is none.
fn mimic_of<'a>(place: &Place, j: roxmltree::Node<'a, 'a>) -> syn::Result<Option<Mimic<'a>>> {
    let Some(node) = place.child(j, "mimic").filter(|_| j.attribute("type") != Some("fixed")) else { return Ok(None) };
    let leader = place.required(node, "joint")?;
    let [multiplier] = place.numbers(node, "multiplier", [1.0])?;
    let [offset] = place.numbers(node, "offset", [0.0])?;
    Ok(Some(Mimic { node, leader, multiplier, offset }))
}

/// The `<axis xyz>` of the joint `j` (URDF's default x) as a unit vector: as written along a
/// coordinate axis, otherwise divided by its norm; a zero axis is an error.
fn unit_axis(place: &Place, j: roxmltree::Node) -> syn::Result<proc_macro2::TokenStream> {
    let axis_node = place.child(j, "axis");
    let axis = axis_node.map(|a| place.numbers(a, "xyz", [1.0, 0.0, 0.0])).transpose()?.unwrap_or([1.0, 0.0, 0.0]);
    let norm2: f64 = axis.iter().map(|c| c * c).sum();
    if norm2 == 0.0 {
        return Err(place.error(axis_node.unwrap_or(j), "the joint's axis is zero"));
    }
    let unit = axis.iter().filter(|&&c| c == 0.0).count() == 2 && norm2 == 1.0;
    let a = vector(axis, place.span);
    Ok(if unit { a } else { quote_spanned!(place.span=> (#a / #a.norm())) })
}

/// The `<parent>` and `<child>` links of the joint `j`, each declared: the parent's model name
/// (none where it is the link `ground`, from which the joint hangs), the child's, and its node.
fn joint_ends<'a>(
    place: &Place,
    j: roxmltree::Node<'a, 'a>,
    ground: Option<&str>,
    link_of: &dyn Fn(&str) -> Option<roxmltree::Node<'a, 'a>>,
    ident_of: &dyn Fn(&str) -> Ident,
) -> syn::Result<(Option<Ident>, Ident, roxmltree::Node<'a, 'a>)> {
    let parent_node = place.child(j, "parent").ok_or_else(|| place.error(j, "no `<parent link=...>`"))?;
    let parent = place.required(parent_node, "link")?;
    let child = place.required(place.child(j, "child").expect("checked by import_urdf"), "link")?;
    for link in [parent, child] {
        if link_of(link).is_none() {
            return Err(place.error(j, format!("the link `{link}` is not declared")));
        }
    }
    let child_node = link_of(child).expect("checked above");
    Ok(((Some(parent) != ground).then(|| ident_of(parent)), ident_of(child), child_node))
}

/// A `<joint>` held fixed at `locked.value` (`lock = [...]`) as a fixed `joint(...)` item between
/// its `ends` ([`joint_ends`]) with its child link's body: the joint's turn about its axis
/// (revolute, continuous) or its slide along it (prismatic) at that value folded into the fixed
/// joint's rotation or origin — the same frames as the moving joint's at that value. Its limits,
/// friction, damping and input are no part of the model (it does not move); a value outside its
/// `<limit lower upper>` is an error, and so is a joint of another kind.
fn locked_joint(
    place: &Place,
    j: roxmltree::Node,
    (parent, child, child_node): (Option<Ident>, Ident, roxmltree::Node),
    locked: &Locked,
) -> syn::Result<JointDecl> {
    let span = place.span;
    let (name, v) = (&locked.name, locked.value);
    let kind = place.required(j, "type")?;
    if !matches!(kind, "revolute" | "continuous" | "prismatic") {
        return Err(syn::Error::new(
            name.span(),
            format!(
                "`{name}` is a `{kind}` joint: `lock` holds a revolute, continuous or prismatic joint fixed{}",
                if kind == "fixed" { " (this one is fixed already)" } else { "" }
            ),
        ));
    }
    if kind != "continuous"
        && let Some(l) = place.child(j, "limit")
        && let (Some(_), Some(_)) = (l.attribute("lower"), l.attribute("upper"))
    {
        let ([lower], [upper]) = (place.numbers(l, "lower", [0.0])?, place.numbers(l, "upper", [0.0])?);
        if !(lower..=upper).contains(&v) {
            return Err(syn::Error::new(
                name.span(),
                format!(
                    "`{name}` would be held at {v}, outside its limits [{lower}, {upper}]: lock it at a value within \
                     them, `lock = [{name} = ...]`"
                ),
            ));
        }
    }
    let (xyz, rpy) = match place.child(j, "origin") {
        Some(o) => (place.numbers(o, "xyz", [0.0; 3])?, place.numbers(o, "rpy", [0.0; 3])?),
        None => ([0.0; 3], [0.0; 3]),
    };
    let turn = rotation(rpy, place);
    let mut decl = JointDecl {
        name: Some(name.clone()),
        kind: Some(Ident::new("fixed", span)),
        parent,
        child: Some(child),
        ..JointDecl::new(Ident::new("joint", span))
    };
    let origin = vector(xyz, span);
    decl.origin = Some(syn::parse2(origin.clone())?);
    decl.rotation = turn.clone().map(syn::parse2).transpose()?;
    if v != 0.0 {
        let unit = unit_axis(place, j)?;
        let value = number(v, span);
        if kind == "prismatic" {
            // The child's origin slid along the axis in the joint's axes: p + R (e v).
            let slide = match &turn {
                Some(r) => quote_spanned!(span=> #origin + #r * (#unit * #value)),
                None => quote_spanned!(span=> #origin + #unit * #value),
            };
            decl.origin = Some(syn::parse2(slide)?);
        } else {
            let r = match &turn {
                Some(r) => quote_spanned!(span=> #r * axis_angle(#unit, #value)),
                None => quote_spanned!(span=> axis_angle(#unit, #value)),
            };
            decl.rotation = Some(syn::parse2(r)?);
        }
    }
    link_body(place, child_node, &mut decl)?;
    Ok(decl)
}

/// The joint `root` of `kind` (`floating` or `planar`) moving the root link `link` (whose model
/// name is `ident`) from the ground, with the link's body: refused where the link carries no mass
/// and a joint of the file already moves everything below it so (the file's own floating base
/// from a `world` link: two such joints in a row leave M singular).
fn root_joint(
    place: &Place,
    link: roxmltree::Node,
    kind: &Ident,
    ident: Ident,
    joints: &[roxmltree::Node],
) -> syn::Result<JointDecl> {
    let span = place.span;
    let mut decl = JointDecl {
        name: Some(Ident::new("root", span)),
        kind: Some(Ident::new(&kind.to_string(), span)),
        parent: None,
        child: Some(ident),
        ..JointDecl::new(Ident::new("joint", span))
    };
    let mass = link_body(place, link, &mut decl)?;
    let name = link.attribute("name").unwrap_or_default();
    let from_root = |j: &&roxmltree::Node| place.child(**j, "parent").and_then(|p| p.attribute("link")) == Some(name);
    let free = joints.iter().filter(from_root).find(|j| matches!(j.attribute("type"), Some("floating" | "planar")));
    // A root link with an inertia and no mass counts as massless: the root's translations move nothing of it.
    if let Some(j) = free.filter(|_| mass == 0.0) {
        return Err(place.error(
            *j,
            format!(
                "the root link `{name}` carries no mass and this joint already moves the robot from it: the file \
                 has its own free base; read it without `root = {kind}`"
            ),
        ));
    }
    Ok(decl)
}

/// A revolute or prismatic joint's `<limit lower upper>` as its limits, with the restitution `e`
/// asked for (`urdf(path = ..., limits = e)`); a continuous joint has none.
fn joint_limits(place: &Place, j: roxmltree::Node, decl: &mut JointDecl, e: &syn::Expr) -> syn::Result<()> {
    let span = place.span;
    if !matches!(j.attribute("type"), Some("revolute" | "prismatic")) {
        return Ok(());
    }
    let Some(limit) = place.child(j, "limit") else {
        return Err(place.error(j, "limits were asked for, and this joint has no `<limit lower upper>`"));
    };
    let (Some(_), Some(_)) = (limit.attribute("lower"), limit.attribute("upper")) else {
        return Err(place.error(limit, "limits were asked for, and this `<limit>` has no `lower` and `upper`"));
    };
    let ([lower], [upper]) = (place.numbers(limit, "lower", [0.0])?, place.numbers(limit, "upper", [0.0])?);
    if lower >= upper {
        return Err(place.error(limit, format!("the lower limit {lower} is not below the upper {upper}")));
    }
    let (lower, upper) = (number(lower, span), number(upper, span));
    decl.limits = Some(syn::parse2(quote_spanned!(span=> [#lower, #upper]))?);
    decl.restitution = Some(e.clone());
    Ok(())
}

/// The `<inertial>` of a link into the joint's mass, centre and inertia; its mass (0 without).
fn link_body(place: &Place, link: roxmltree::Node, decl: &mut JointDecl) -> syn::Result<f64> {
    let span = place.span;
    let Some(inertial) = place.child(link, "inertial") else { return Ok(0.0) };
    let [mass] = place.child(inertial, "mass").map(|m| place.numbers(m, "value", [0.0])).transpose()?.unwrap_or([0.0]);
    let inertia_node = place.child(inertial, "inertia");
    let i = match inertia_node {
        Some(n) => {
            let mut i = [0.0; 6];
            for (k, attr) in ["ixx", "ixy", "ixz", "iyy", "iyz", "izz"].into_iter().enumerate() {
                [i[k]] = place.numbers(n, attr, [0.0])?;
            }
            i
        }
        None => [0.0; 6],
    };
    if mass < 0.0 {
        return Err(place.error(inertial, "the mass is negative"));
    }
    if mass == 0.0 && i.iter().all(|&c| c == 0.0) {
        return Ok(0.0);
    }
    let (xyz, rpy) = match place.child(inertial, "origin") {
        Some(o) => (place.numbers(o, "xyz", [0.0; 3])?, place.numbers(o, "rpy", [0.0; 3])?),
        None => ([0.0; 3], [0.0; 3]),
    };
    decl.mass = Some(syn::parse2(number(mass, span))?);
    decl.centre = Some(syn::parse2(vector(xyz, span))?);
    let Some(i) = place.inertia(inertia_node.unwrap_or(inertial), mass, i)? else { return Ok(mass) };
    let [a, b, c, d, e, f] = i.map(|v| number(v, span));
    let matrix = quote_spanned!(span=> [[#a, #b, #c], [#b, #d, #e], [#c, #e, #f]]);
    let inertia = match rotation(rpy, place) {
        Some(r) => quote_spanned!(span=> #r * #matrix * #r.transpose()),
        None => matrix,
    };
    decl.inertia = Some(syn::parse2(inertia)?);
    Ok(mass)
}

#[cfg(test)]
mod tests {
    use super::super::description::{angle, inertia_defect};
    use proc_macro2::Span;

    #[test]
    fn angles_near_multiples_of_a_quarter_or_a_sixth_turn_are_read_as_them_and_others_as_written() {
        // As a file writes them.
        let at = |text: &str| angle(text.parse().unwrap(), 0.0, Span::call_site()).to_string();
        assert_eq!(at("1.5707963267948966"), "(pi * 6.0 / 12)");
        assert_eq!(at("1.570796326794897"), "(pi * 6.0 / 12)");
        assert_eq!(at("-1.5707963267948966"), "(pi * (- 6.0) / 12)");
        assert_eq!(at("-0.7853981633974483"), "(pi * (- 3.0) / 12)");
        assert_eq!(at("3.141592653589793"), "(pi * 12.0 / 12)");
        // Short of π/2 by 4e-6 or 5e-12 is not π/2; a twelfth of a turn has no exact table value.
        assert_eq!(at("1.5708"), "1.5708");
        assert_eq!(at("1.57079632679"), "1.57079632679");
        assert_eq!(at("0.2617993877991494"), "0.2617993877991494");
        assert_eq!(at("0"), "0");
        // Asked to round (`round_angles = tol`): within tol of a multiple of π/4 or π/6, that
        // multiple; beyond it, or near no multiple on the table, as written.
        let near = |text: &str, tol: f64| angle(text.parse().unwrap(), tol, Span::call_site()).to_string();
        assert_eq!(near("1.57079632679", 1e-9), "(pi * 6.0 / 12)");
        assert_eq!(near("-3.14159265359", 1e-9), "(pi * (- 12.0) / 12)");
        assert_eq!(near("0.5235987756", 1e-9), "(pi * 2.0 / 12)");
        assert_eq!(near("1.5708", 1e-9), "1.5708");
        assert_eq!(near("1.5708", 1e-5), "(pi * 6.0 / 12)");
        assert_eq!(near("1.57", 1e-4), "1.57");
        assert_eq!(near("0.2617993878", 1e-9), "0.2617993878");
    }

    #[test]
    fn inertias_of_no_rigid_body_are_found() {
        assert_eq!(inertia_defect([1.0, 0.0, 0.0, 1.0, 0.0, 1.0]), None);
        assert_eq!(inertia_defect([0.70337, -0.000139, 0.006772, 0.70661, 0.019169, 0.009117]), None);
        // A thin rod: the triangle inequality with equality.
        assert_eq!(inertia_defect([1.0, 0.0, 0.0, 1.0, 0.0, 1e-30]), None);
        assert!(inertia_defect([1.0, 0.0, 0.0, 1.0, 0.0, -1.0]).unwrap().contains("positive definite"));
        assert!(inertia_defect([1.0, 2.0, 0.0, 1.0, 0.0, 1.0]).unwrap().contains("positive definite"));
        assert!(inertia_defect([1.0, 0.0, 0.0, 1.0, 0.0, 3.0]).unwrap().contains("triangle"));
    }
}
