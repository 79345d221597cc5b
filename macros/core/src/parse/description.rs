//! What the description-file readers share (`urdf = "path"`, `mjcf = "path"`): reading the file,
//! its XML, messages naming the file, line and element, numbers written into the model as tokens,
//! and the rigid-body check of an inertia.

use std::path::PathBuf;

use proc_macro2::{Literal, Span, TokenStream, TokenTree};
use quote::{quote, quote_spanned};
use syn::parse::ParseStream;
use syn::{Expr, Ident, LitStr, Token};

use crate::diagnostics::unknown;

/// `urdf = "path"` or `urdf(path = "path", limits = e)` (and `mjcf` likewise) after the keyword:
/// the path and the restitution of the limits, if asked for.
pub(super) fn parse_item(keyword: &Ident, input: ParseStream) -> syn::Result<(LitStr, Asked)> {
    let urdf = keyword == "urdf";
    let hint = format!(
        "expected `{keyword} = \"path/to/robot.{ext}\"` (relative to the crate's manifest directory), or \
         `{keyword}(path = \"...\", limits = e, inputs = u, round_angles = 1e-9, friction = ignore, inertias = balance\
         {root_key})` for the joints' position limits as impacts of restitution e, an input `u_<joint>` driving each \
         revolute and prismatic joint, the file's angles within 1e-9 rad of a multiple of π/4 or π/6 read as that \
         multiple, the joints' dry (Coulomb) friction left out of the model, each inertia no rigid body has read as \
         the isotropic one of its trace{root_what}",
        ext = if urdf { "urdf" } else { "xml" },
        root_key = if urdf {
            ", root = floating, lock = [joint_a, joint_b = 0.3]"
        } else {
            ", lock = [joint_a, joint_b = 0.3], equality = ignore"
        },
        root_what = if urdf {
            ", the root link moving freely on a joint `root`, and the joints named held fixed (at 0, or at the value \
             given: Pinocchio's `buildReducedModel`)"
        } else {
            ", the joints named held fixed (at 0, or at the value given), and the file's `<equality>` constraints left \
             out of the model"
        },
    );
    let hint = hint.as_str();
    if !input.peek(syn::token::Paren) {
        input.parse::<Token![=]>().map_err(|e| syn::Error::new(e.span(), hint))?;
        return Ok((input.parse().map_err(|e| syn::Error::new(e.span(), hint))?, Asked::default()));
    }
    let content;
    syn::parenthesized!(content in input);
    let mut path = None;
    let mut asked = Asked::default();
    while !content.is_empty() {
        let key: Ident = content.parse()?;
        content.parse::<Token![=]>()?;
        match key.to_string().as_str() {
            "path" if path.is_none() => path = Some(content.parse::<LitStr>()?),
            "limits" if asked.limits.is_none() => asked.limits = Some(content.parse::<Expr>()?),
            "inputs" if asked.inputs.is_none() => asked.inputs = Some(content.parse::<Ident>()?),
            "round_angles" if asked.round_angles.is_none() => asked.round_angles = Some(round_angles(&content)?),
            "friction" if !asked.ignore_friction => {
                asked.ignore_friction = one_value(
                    &content,
                    "ignore",
                    "`friction = ignore` leaves the file's dry (Coulomb) friction out of the model, the one way it is \
                     read; without it, a joint with friction is an error",
                )?;
            }
            "inertias" if !asked.balance_inertias => {
                asked.balance_inertias = one_value(
                    &content,
                    "balance",
                    "`inertias = balance` reads each inertia no rigid body has as the isotropic one of its trace \
                     (MuJoCo's `balanceinertia`), the one way it is changed; without it, such an inertia is an error",
                )?;
            }
            "root" if asked.root.is_none() => {
                let value: Ident = content.parse()?;
                asked.root = match value.to_string().as_str() {
                    "floating" | "planar" | "fixed" => Some(value),
                    _ => {
                        return Err(syn::Error::new(
                            value.span(),
                            "`root = floating` moves the root link freely on a joint `root` (coordinates `root_x`, \
                             `root_y`, `root_z` and the orientation `root_q`), `root = planar` in the world's x–y plane \
                             (`root_x`, `root_y` and the angle `root`); `root = fixed`, as without it, keeps the root \
                             link as the ground",
                        ));
                    }
                };
                if !urdf {
                    return Err(syn::Error::new(
                        key.span(),
                        "`root` is a URDF file's: an MJCF body moves freely with its own `<freejoint/>`",
                    ));
                }
            }
            "equality" if !asked.ignore_equality => {
                asked.ignore_equality = one_value(
                    &content,
                    "ignore",
                    "`equality = ignore` leaves an MJCF file's `<equality>` constraints out of the model, the one way \
                     they are read; without it, a file with them is an error",
                )?;
                if urdf {
                    return Err(syn::Error::new(key.span(), "`equality` is an MJCF file's: a URDF has no `<equality>`"));
                }
            }
            "lock" if asked.lock.is_empty() => asked.lock = lock_list(&content)?,
            "path" | "limits" | "inputs" | "round_angles" | "friction" | "inertias" | "root" | "lock" | "equality" => {
                return Err(syn::Error::new(key.span(), format!("`{key}` is given twice")));
            }
            other => {
                let what = format!("unknown key `{other}` in `{keyword}(...)`");
                let keys = ["path", "limits", "inputs", "round_angles", "friction", "inertias", "root", "lock", "equality"];
                return Err(unknown(key.span(), what, other, &keys, hint));
            }
        }
        if !content.is_empty() {
            content.parse::<Token![,]>()?;
        }
    }
    Ok((path.ok_or_else(|| syn::Error::new(keyword.span(), hint))?, asked))
}

/// A joint held fixed by `lock = [...]`: its name (its coordinate's, as the model names it) and
/// the value it is held at (radians or metres; 0 where none is given).
#[derive(Clone)]
pub struct Locked {
    pub name: Ident,
    pub value: f64,
}

/// `lock = [a, b = 0.3, c = -1]`: joints by name, each with its value or none (0), none twice.
fn lock_list(input: ParseStream) -> syn::Result<Vec<Locked>> {
    let hint = "`lock = [joint_a, joint_b = 0.3]` holds each joint named fixed, at 0 or at the value given (radians or \
                metres): the robot without those joints' coordinates";
    let content;
    syn::bracketed!(content in input);
    let mut out: Vec<Locked> = Vec::new();
    while !content.is_empty() {
        let name: Ident = content.parse().map_err(|e| syn::Error::new(e.span(), hint))?;
        let value = if content.peek(Token![=]) {
            content.parse::<Token![=]>()?;
            let negative = content.peek(Token![-]) && content.parse::<Token![-]>().is_ok();
            let v = literal_number(&content, |span| syn::Error::new(span, hint))?;
            if negative { -v } else { v }
        } else {
            0.0
        };
        if out.iter().any(|l| l.name == name) {
            return Err(syn::Error::new(name.span(), format!("`{name}` is locked twice")));
        }
        out.push(Locked { name, value });
        if !content.is_empty() {
            content.parse::<Token![,]>()?;
        }
    }
    if out.is_empty() {
        return Err(syn::Error::new(content.span(), hint));
    }
    Ok(out)
}

/// The value of a key that takes one: the identifier `value` (then `true`), else the error
/// `message` on what is written.
fn one_value(input: ParseStream, value: &str, message: &str) -> syn::Result<bool> {
    let written: Ident = input.parse()?;
    if written != value {
        return Err(syn::Error::new(written.span(), message));
    }
    Ok(true)
}

/// A literal number (integer or float), unsigned; `error` on the span of anything else.
fn literal_number(input: ParseStream, error: impl Fn(proc_macro2::Span) -> syn::Error) -> syn::Result<f64> {
    let lit: syn::Lit = input.parse().map_err(|e| error(e.span()))?;
    match &lit {
        syn::Lit::Float(f) => f.base10_parse::<f64>(),
        syn::Lit::Int(i) => i.base10_parse::<f64>(),
        _ => Err(error(lit.span())),
    }
}

/// The largest tolerance of `round_angles` (radians): a file's π/2 written to four decimals
/// (1.5708, 3.7·10⁻⁶ from it) is within it, 1.571 and 1.57 (2·10⁻⁴ and 8·10⁻⁴) are not.
pub const MAX_ROUND_ANGLES: f64 = 1e-4;

/// The tolerance of `round_angles = tol`: a literal number in [0, [`MAX_ROUND_ANGLES`]].
fn round_angles(input: ParseStream) -> syn::Result<f64> {
    let not_a_number = |span| syn::Error::new(span, "`round_angles` is a tolerance in radians, a number such as 1e-9");
    let span = input.span();
    let value = literal_number(input, not_a_number)?;
    if !(0.0..=MAX_ROUND_ANGLES).contains(&value) {
        return Err(syn::Error::new(
            span,
            format!(
                "`round_angles = {value}` rounds too far: at most {MAX_ROUND_ANGLES} rad (π/2 printed as 1.5708 is \
                 3.7e-6 from it, printed as 1.57079632679 4.9e-12; an angle further from a multiple of π/4 or π/6 is \
                 meant as written)"
            ),
        ));
    }
    Ok(value)
}

/// A joint's limits as its description file gives them (URDF's `<limit lower upper effort
/// velocity>`, MJCF's `range`) and its dry friction, by its coordinate: for controllers, as
/// constants of the model (position limits become impacts only when asked).
#[derive(Clone)]
pub struct LimitsRead {
    pub coordinate: Ident,
    pub position: Option<(f64, f64)>,
    pub effort: Option<f64>,
    pub velocity: Option<f64>,
    /// The dry (Coulomb) friction force or torque the file gives (URDF's `<dynamics friction>`,
    /// MJCF's `frictionloss`): with `friction = ignore` no part of the model's dynamics.
    pub friction: Option<f64>,
}

/// What a description file's item asks for besides the file: its joints' position limits as
/// impacts of restitution `limits`, an input `<inputs>_<joint>` driving each revolute and
/// prismatic joint (a generalized force on its coordinate), and the tolerance within which an
/// angle of the file is read as the multiple of π/4 or π/6 it is near (`round_angles`).
#[derive(Clone, Default)]
pub struct Asked {
    pub limits: Option<Expr>,
    pub inputs: Option<Ident>,
    pub round_angles: Option<f64>,
    /// `friction = ignore`: the joints' dry (Coulomb) friction left out of the model.
    pub ignore_friction: bool,
    /// `inertias = balance`: each inertia no rigid body has read as the isotropic one of its trace.
    pub balance_inertias: bool,
    /// `root = floating`, `root = planar` (a URDF's): the kind of a joint `root` moving the root
    /// link from the ground, which is otherwise (and with `root = fixed`) the root link itself.
    pub root: Option<Ident>,
    /// `lock = [...]`: joints held fixed, each at its value.
    pub lock: Vec<Locked>,
    /// `equality = ignore` (an MJCF's): its `<equality>` constraints left out of the model.
    pub ignore_equality: bool,
}

/// Each revolute, continuous and prismatic joint of `joints` driven by its input, where inputs are
/// asked for.
pub(super) fn drive_joints(joints: &mut [super::joint::JointDecl], asked: &Asked) {
    for decl in joints {
        let moving = decl.kind.as_ref().is_some_and(|k| k == "revolute" || k == "continuous" || k == "prismatic");
        if let (true, Some(name)) = (moving, &decl.name) {
            decl.input = asked.input(&name.to_string());
        }
    }
}

impl Asked {
    /// The input driving the revolute or prismatic joint `joint`, where inputs are asked for.
    pub(super) fn input(&self, joint: &str) -> Option<Ident> {
        self.inputs.as_ref().map(|u| quote::format_ident!("{}_{}", u, joint, span = u.span()))
    }
}

/// The largest description file read (bytes): expansion stays bounded in memory.
pub const MAX_FILE: u64 = 16 << 20;

/// Where an element is: the file and the line, for messages.
pub(super) struct Place<'a> {
    pub file: &'a str,
    pub doc: &'a roxmltree::Document<'a>,
    pub span: Span,
    /// The tolerance (radians) within which an angle is read as a multiple of π/4 or π/6 beyond
    /// the 10⁻¹² (relative) of a π printed in full: `round_angles`, or 0.
    pub round_angles: f64,
    /// `friction = ignore`: a joint's dry friction is read as none instead of refused.
    pub ignore_friction: bool,
    /// `inertias = balance`: an inertia no rigid body has is balanced instead of refused
    /// ([`Place::inertia`]).
    pub balance_inertias: bool,
}

impl Place<'_> {
    /// An error on the `urdf = ...` literal naming the file, the line and the element.
    pub(super) fn error(&self, node: roxmltree::Node, message: impl std::fmt::Display) -> syn::Error {
        let line = self.doc.text_pos_at(node.range().start).row;
        let tag = node.tag_name().name();
        let element = match node.attribute("name") {
            Some(name) => format!("<{tag} name=\"{name}\">"),
            None => format!("<{tag}>"),
        };
        syn::Error::new(self.span, format!("{}:{line}: {element}: {message}", self.file))
    }

    /// The numbers of attribute `attr` of `node` (`n` of them), `default` when it is absent.
    pub(super) fn numbers<const N: usize>(&self, node: roxmltree::Node, attr: &str, default: [f64; N]) -> syn::Result<[f64; N]> {
        let Some(text) = node.attribute(attr) else { return Ok(default) };
        let parsed: Vec<f64> =
            text.split_whitespace().map(str::parse::<f64>).collect::<Result<_, _>>().map_err(|_| {
                self.error(node, format!("`{attr}=\"{text}\"` is not {N} number{}", if N == 1 { "" } else { "s" }))
            })?;
        let values: [f64; N] =
            parsed.try_into().map_err(|_| self.error(node, format!("`{attr}` needs {N} numbers, found \"{text}\"")))?;
        if values.iter().any(|v| !v.is_finite()) {
            return Err(self.error(node, format!("`{attr}=\"{text}\"` is not finite")));
        }
        Ok(values)
    }

    /// The inertia `[ixx, ixy, ixz, iyy, iyz, izz]` (about its centre) of a link of mass `mass`
    /// as read: `None` for a point mass (every entry zero, or no larger than m · (10⁻⁹ m)² — a
    /// radius of gyration below a nanometre, a CAD export's rounding noise: iCub's
    /// `ixz="2.40741e-35"` and `ixz="1.35525e-20"` beside five zeros, 10⁻¹⁶ of a link's m L² at a
    /// tenth of a metre); as written where a rigid body has it ([`inertia_defect`]); otherwise,
    /// with `inertias = balance`, the isotropic inertia of the same trace, (tr/3) 1 — MuJoCo's
    /// `balanceinertia`, which sets the principal moments to their mean: a rigid body's for any
    /// positive trace (a thin rod's zero moment, a printed tensor against the triangle inequality
    /// or with a negative principal moment), the same in every axes — and an error without it, or
    /// where the trace is not positive. The error is on `node`.
    pub(super) fn inertia(&self, node: roxmltree::Node, mass: f64, i: [f64; 6]) -> syn::Result<Option<[f64; 6]>> {
        if i.iter().all(|c| c.abs() <= mass * 1e-18) {
            return Ok(None);
        }
        let Some(why) = inertia_defect(i) else { return Ok(Some(i)) };
        let trace = i[0] + i[3] + i[5];
        if self.balance_inertias && trace > 0.0 {
            let mean = trace / 3.0;
            return Ok(Some([mean, 0.0, 0.0, mean, 0.0, mean]));
        }
        Err(self.error(
            node,
            format!(
                "{why}; read the file with `inertias = balance` beside its path to take the isotropic inertia of its \
                 trace (MuJoCo's `balanceinertia`)"
            ),
        ))
    }

    /// A joint's dry friction `value` as read: `None` where it is zero, the value where the item
    /// reads the file with `friction = ignore` (a constant of the model, `FRICTION`, no part of
    /// its dynamics), otherwise the error `refusal` on `node`.
    pub(super) fn dry_friction(&self, node: roxmltree::Node, value: f64, refusal: &str) -> syn::Result<Option<f64>> {
        if value == 0.0 {
            return Ok(None);
        }
        if !self.ignore_friction {
            return Err(self.error(node, refusal));
        }
        Ok(Some(value))
    }

    /// The one child element `tag` of `node`, if any.
    pub(super) fn child<'a>(&self, node: roxmltree::Node<'a, 'a>, tag: &str) -> Option<roxmltree::Node<'a, 'a>> {
        node.children().find(|c| c.has_tag_name(tag))
    }

    /// Attribute `attr` of `node`, which must be there.
    pub(super) fn required<'a>(&self, node: roxmltree::Node<'a, 'a>, attr: &str) -> syn::Result<&'a str> {
        node.attribute(attr).ok_or_else(|| self.error(node, format!("the attribute `{attr}` is missing")))
    }

    /// A name of the file as an identifier of the model (characters other than letters, digits
    /// and `_` become `_`; a keyword gets a trailing `_`).
    pub(super) fn ident(&self, node: roxmltree::Node, name: &str) -> syn::Result<Ident> {
        let mut s: String = name.chars().map(|c| if c.is_ascii_alphanumeric() || c == '_' { c } else { '_' }).collect();
        if s.is_empty() || s.starts_with(|c: char| c.is_ascii_digit()) {
            s.insert(0, '_');
        }
        if syn::parse_str::<Ident>(&s).is_err() {
            s.push('_');
        }
        syn::parse_str::<Ident>(&s)
            .map(|i| Ident::new(&i.to_string(), self.span))
            .map_err(|_| self.error(node, format!("the name `{name}` cannot be a name of the model")))
    }
}

/// A number as tokens (a minus sign and an unsuffixed literal).
pub(super) fn number(v: f64, span: Span) -> TokenStream {
    let mut lit = Literal::f64_unsuffixed(v.abs());
    lit.set_span(span);
    let lit = TokenTree::Literal(lit);
    if v < 0.0 { quote_spanned!(span=> (-#lit)) } else { quote!(#lit) }
}

/// An angle as tokens: an exact multiple of π where it is one (see the module documentation), or
/// within `round` (radians, `round_angles`) of one.
pub(super) fn angle(v: f64, round: f64, span: Span) -> TokenStream {
    let step = std::f64::consts::PI / 12.0;
    let k = (v / step).round();
    let on_table = k.abs() < 1e6 && ((k as i64) % 2 == 0 || (k as i64) % 3 == 0);
    if on_table && (v - k * step).abs() <= (1e-12 * v.abs().max(1.0)).max(round) {
        if k == 0.0 {
            return quote_spanned!(span=> 0);
        }
        let k = number(k, span);
        return quote_spanned!(span=> (pi * #k / 12));
    }
    number(v, span)
}

pub(super) fn vector(v: [f64; 3], span: Span) -> TokenStream {
    let [x, y, z] = v.map(|c| number(c, span));
    quote_spanned!(span=> [#x, #y, #z])
}

/// `rpy(r, p, y)`, or `None` for no turn (its angles rounded as `place` asks: [`angle`]).
pub(super) fn rotation(rpy: [f64; 3], place: &Place) -> Option<TokenStream> {
    let span = place.span;
    if rpy.iter().all(|&a| a == 0.0) {
        return None;
    }
    let [r, p, y] = rpy.map(|a| angle(a, place.round_angles, span));
    Some(quote_spanned!(span=> rpy(#r, #p, #y)))
}

/// Why the inertia `[ixx, ixy, ixz, iyy, iyz, izz]` is no rigid body's, if it is not: positive
/// definite, and its principal moments obey the triangle inequality (equivalently, tr(I)/2 − I is
/// positive semidefinite: the body's second moment of mass).
pub(super) fn inertia_defect(i: [f64; 6]) -> Option<&'static str> {
    let [a, b, c, d, e, f] = i;
    let det = |m: [[f64; 3]; 3]| {
        m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
            + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0])
    };
    let m = [[a, b, c], [b, d, e], [c, e, f]];
    if !(a > 0.0 && a * d - b * b > 0.0 && det(m) > 0.0) {
        return Some("the inertia is not positive definite");
    }
    let h = (a + d + f) / 2.0;
    let s = [[h - a, -b, -c], [-b, h - d, -e], [-c, -e, h - f]];
    let tol = 1e-12 * h;
    let minors1 = [s[0][0], s[1][1], s[2][2]];
    let minors2 =
        [s[0][0] * s[1][1] - s[0][1] * s[1][0], s[0][0] * s[2][2] - s[0][2] * s[2][0], s[1][1] * s[2][2] - s[1][2] * s[2][1]];
    if minors1.iter().any(|&x| x < -tol) || minors2.iter().any(|&x| x < -tol * h) || det(s) < -tol * h * h {
        return Some("the principal moments of the inertia break the triangle inequality (no rigid body has them)");
    }
    None
}

/// Reads the description file `path` (relative to the crate's manifest directory, bounded in
/// size): the full path, which the generated code includes so that the compiler tracks it, and
/// the text.
fn read(path: &LitStr) -> syn::Result<(String, String)> {
    let span = path.span();
    let base = std::env::var_os("CARGO_MANIFEST_DIR").map(PathBuf::from).unwrap_or_default();
    // Messages name the file as written; the compiler tracks it by its full path.
    let file = path.value();
    let full = base.join(&file);
    let Some(tracked) = full.to_str().map(str::to_owned) else {
        return Err(syn::Error::new(span, format!("the path {} is not valid UTF-8", full.display())));
    };
    let too_big = std::fs::metadata(&full).map(|m| m.len() > MAX_FILE).unwrap_or(false);
    if too_big {
        return Err(syn::Error::new(span, format!("{file} is larger than {} MiB", MAX_FILE >> 20)));
    }
    let text = std::fs::read_to_string(&full).map_err(|e| {
        syn::Error::new(
            span,
            format!("cannot read {file}: {e} (the path is relative to the crate's manifest directory, where its Cargo.toml is)"),
        )
    })?;
    Ok((tracked, text))
}

/// Reads the description file `path` and hands its root element, which must be `<root>` (else the
/// error `wrong_root`), to `read` with the messages' [`Place`]: the file's full path (which the
/// generated code includes) and what `read` returns.
pub(super) fn with_root<R>(
    path: &LitStr,
    asked: &Asked,
    root: &str,
    wrong_root: &str,
    read_root: impl FnOnce(&Place, roxmltree::Node) -> syn::Result<R>,
) -> syn::Result<(String, R)> {
    let (span, file) = (path.span(), path.value());
    let (tracked, text) = read(path)?;
    let doc = xml(&text, &file, span)?;
    let place = Place {
        file: &file,
        doc: &doc,
        span,
        round_angles: asked.round_angles.unwrap_or(0.0),
        ignore_friction: asked.ignore_friction,
        balance_inertias: asked.balance_inertias,
    };
    let element = doc.root_element();
    if !element.has_tag_name(root) {
        return Err(place.error(element, wrong_root));
    }
    Ok((tracked, read_root(&place, element)?))
}

/// The XML document of `text`, or an error naming the file, line and column.
fn xml<'a>(text: &'a str, file: &str, span: Span) -> syn::Result<roxmltree::Document<'a>> {
    roxmltree::Document::parse(text).map_err(|e| {
        let pos = e.pos();
        let message = e.to_string();
        let message = message.strip_suffix(&format!(" at {pos}")).unwrap_or(&message);
        syn::Error::new(span, format!("{file}:{}:{}: malformed XML: {message}", pos.row, pos.col))
    })
}
