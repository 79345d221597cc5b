//! The geometry items as written: `frame(B = R, ...)`, `point(P = r, ...)`,
//! `body(name = b, mass = m, centre = r, frame = R, inertia = I)`,
//! `particle(name = p, mass = m, at = r)` and `gravity = g`.

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
}

impl BodyDecl {
    /// Whether this is a `particle(...)` (a point mass: no frame, no inertia).
    pub fn is_particle(&self) -> bool {
        self.keyword == "particle"
    }

    pub(super) fn parse_body(keyword: Ident, content: ParseStream) -> syn::Result<Self> {
        let mut decl = BodyDecl { keyword, name: None, mass: None, centre: None, frame: None, inertia: None };
        let particle = decl.is_particle();
        let (keys, what) = if particle { (PARTICLE_KEYS, "particle") } else { (BODY_KEYS, "body") };
        while !content.is_empty() {
            let key: Ident = content.parse()?;
            content.parse::<Token![=]>()?;
            let duplicate = syn::Error::new(key.span(), format!("`{key}` is given twice in this {what}"));
            let slot = match (key.to_string().as_str(), particle) {
                ("name", _) => {
                    if decl.name.is_some() {
                        return Err(duplicate);
                    }
                    decl.name = Some(content.parse()?);
                    None
                }
                ("mass", _) => Some(&mut decl.mass),
                ("centre" | "center", false) | ("at", true) => Some(&mut decl.centre),
                ("frame", false) => Some(&mut decl.frame),
                ("inertia", false) => Some(&mut decl.inertia),
                (other, _) => {
                    let hint = if particle {
                        "Expected: name, mass, at (a particle is a point mass; declare a rigid body with `body(...)`)"
                    } else {
                        "Expected: name, mass, centre, frame, inertia"
                    };
                    return Err(unknown(key.span(), format_args!("unknown key `{other}` in `{what}(...)`"), other, keys, hint));
                }
            };
            if let Some(slot) = slot {
                if slot.is_some() {
                    return Err(duplicate);
                }
                *slot = Some(content.parse()?);
            }
            if content.is_empty() {
                break;
            }
            content.parse::<Token![,]>()?;
        }
        Ok(decl)
    }
}
