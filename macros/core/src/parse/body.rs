//! The geometry items as written: `frame(B = R, ...)`, `point(P = r, ...)`,
//! `body(name = b, mass = m, centre = r, frame = R, inertia = I)`,
//! `particle(name = p, mass = m, at = r)`, `gravity = g`, and the contacts of bodies with the
//! ground: `rolling(name = c, body = b, disk = r, axis = a)`, `rolling(name = c, body = b,
//! sphere = r)` and `no_slip(name = c, body = b, at = p, along = d)`.

use syn::parse::ParseStream;
use syn::{Expr, Ident, Token};

use crate::diagnostics::unknown;

/// The keys of `body(...)`.
pub const BODY_KEYS: &[&str] = &["name", "mass", "centre", "frame", "inertia"];
/// The keys of `particle(...)`.
pub const PARTICLE_KEYS: &[&str] = &["name", "mass", "at"];

/// A rigid body or a particle as written. Which keys are missing is checked in lowering, where a
/// body without inertia or frame is an error with a hint.
#[derive(Clone)]
pub struct BodyDecl {
    /// `body` or `particle`.
    pub keyword: Ident,
    pub name: Option<Ident>,
    pub mass: Option<Expr>,
    /// The mass centre (`centre` of a body, `at` of a particle): a 3-vector.
    pub centre: Option<Expr>,
    /// The body frame: a rotation.
    pub frame: Option<Expr>,
    /// The inertia tensor about the mass centre, in body components.
    pub inertia: Option<Expr>,
    /// A point mass carried by its frame (no inertia): a `joint(...)`'s link given a mass and no
    /// inertia (a description file's link whose inertia is zero), which the recursive dynamics
    /// places on its joint by the frame. Not written by hand (a point mass is a `particle`).
    pub point: bool,
}

impl BodyDecl {
    /// Whether this is a `particle(...)` (a point mass: no frame, no inertia).
    pub fn is_particle(&self) -> bool {
        self.keyword == "particle"
    }

    pub(super) fn parse_body(keyword: Ident, content: ParseStream) -> syn::Result<Self> {
        let mut decl = BodyDecl { keyword, name: None, mass: None, centre: None, frame: None, inertia: None, point: false };
        let what = if decl.is_particle() { "particle" } else { "body" };
        parse_keyed(content, what, &mut decl, BodyDecl::slot)?;
        Ok(decl)
    }

    /// Where the value of `key` goes.
    fn slot<'a>(&'a mut self, key: &Ident) -> syn::Result<Slot<'a>> {
        let particle = self.is_particle();
        Ok(match (key.to_string().as_str(), particle) {
            ("name", _) => Slot::Name(&mut self.name),
            ("mass", _) => Slot::Value(&mut self.mass),
            ("centre" | "center", false) | ("at", true) => Slot::Value(&mut self.centre),
            ("frame", false) => Slot::Value(&mut self.frame),
            ("inertia", false) => Slot::Value(&mut self.inertia),
            (other, _) => {
                let (keys, what, hint) = if particle {
                    (
                        PARTICLE_KEYS,
                        "particle",
                        "Expected: name, mass, at (a particle is a point mass; declare a rigid body with `body(...)`)",
                    )
                } else {
                    (BODY_KEYS, "body", "Expected: name, mass, centre, frame, inertia")
                };
                return Err(unknown(key.span(), format_args!("unknown key `{other}` in `{what}(...)`"), other, keys, hint));
            }
        })
    }
}

/// Where a key's value goes: an identifier (`name`, `body`) or an expression.
pub(super) enum Slot<'a> {
    Name(&'a mut Option<Ident>),
    Value(&'a mut Option<Expr>),
}

/// Parses `key = value, ...` into the slots `slot` gives for each key (an error for an unknown
/// one); a key given twice is an error on its second occurrence.
pub(super) fn parse_keyed<D>(
    content: ParseStream,
    what: &str,
    decl: &mut D,
    slot: for<'a> fn(&'a mut D, &Ident) -> syn::Result<Slot<'a>>,
) -> syn::Result<()> {
    while !content.is_empty() {
        let key: Ident = content.parse()?;
        content.parse::<Token![=]>()?;
        let duplicate = || syn::Error::new(key.span(), format!("`{key}` is given twice in this {what}"));
        match slot(decl, &key)? {
            Slot::Name(s) if s.is_some() => return Err(duplicate()),
            Slot::Value(s) if s.is_some() => return Err(duplicate()),
            Slot::Name(s) => *s = Some(content.parse()?),
            Slot::Value(s) => *s = Some(content.parse()?),
        }
        if content.is_empty() {
            break;
        }
        content.parse::<Token![,]>()?;
    }
    Ok(())
}

/// The keys of `rolling(...)`.
pub const ROLLING_KEYS: &[&str] = &["name", "body", "disk", "axis", "sphere", "ground"];
/// The keys of `no_slip(...)`.
pub const NO_SLIP_KEYS: &[&str] = &["name", "body", "at", "along"];

/// A contact of a body with a ground plane as written: `rolling` (a disk of radius `disk` about its
/// body-frame `axis`, or a sphere of radius `sphere`, rolling without slipping on the plane through
/// the origin with unit normal `ground`, z = 0 by default) or
/// `no_slip` (the body's material point `at` does not slide along the direction `along`: a knife
/// edge, a skate). Which keys are missing or clash is checked in lowering.
#[derive(Clone)]
pub struct ContactDecl {
    /// `rolling` or `no_slip`.
    pub keyword: Ident,
    pub name: Option<Ident>,
    pub body: Option<Ident>,
    pub disk: Option<Expr>,
    pub axis: Option<Expr>,
    pub sphere: Option<Expr>,
    /// The ground plane's unit normal (a plane through the origin; `[0, 0, 1]` when absent).
    pub ground: Option<Expr>,
    pub at: Option<Expr>,
    pub along: Option<Expr>,
}

impl ContactDecl {
    /// Whether this is a `rolling(...)` (else `no_slip(...)`).
    pub fn is_rolling(&self) -> bool {
        self.keyword == "rolling"
    }

    pub(super) fn parse_body(keyword: Ident, content: ParseStream) -> syn::Result<Self> {
        let mut decl = ContactDecl {
            keyword,
            name: None,
            body: None,
            disk: None,
            axis: None,
            sphere: None,
            ground: None,
            at: None,
            along: None,
        };
        parse_keyed(content, "contact", &mut decl, ContactDecl::slot)?;
        Ok(decl)
    }

    /// Where the value of `key` goes.
    fn slot<'a>(&'a mut self, key: &Ident) -> syn::Result<Slot<'a>> {
        let rolling = self.is_rolling();
        Ok(match (key.to_string().as_str(), rolling) {
            ("name", _) => Slot::Name(&mut self.name),
            ("body", _) => Slot::Name(&mut self.body),
            ("disk", true) => Slot::Value(&mut self.disk),
            ("axis", true) => Slot::Value(&mut self.axis),
            ("sphere", true) => Slot::Value(&mut self.sphere),
            ("ground", true) => Slot::Value(&mut self.ground),
            ("at", false) => Slot::Value(&mut self.at),
            ("along", false) => Slot::Value(&mut self.along),
            (other, _) => {
                let (keys, what, hint) = if rolling {
                    (
                        ROLLING_KEYS,
                        "rolling",
                        "Expected: name, body, `disk = r, axis = [ax, ay, az]` (a thin disk about its body-frame axis) or \
                         `sphere = r`, and optionally `ground = [nx, ny, nz]` (the plane's unit normal; z = 0 by default)",
                    )
                } else {
                    (
                        NO_SLIP_KEYS,
                        "no_slip",
                        "Expected: name, body, at (a point of the body), along (the direction it does not slide in)",
                    )
                };
                return Err(unknown(key.span(), format_args!("unknown key `{other}` in `{what}(...)`"), other, keys, hint));
            }
        })
    }
}
