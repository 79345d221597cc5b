//! An MJCF file's `<equality>` constraints and the joints `lock` holds (`mjcf(path = ..., lock =
//! [...])`), which meet where a held joint is coupled to another.
//!
//! A `<joint joint1="y" joint2="x" polycoef="a₀ a₁ a₂ a₃ a₄">` equality is MuJoCo's
//!
//! ```text
//! y − y₀ = a₀ + a₁ (x − x₀) + a₂ (x − x₀)² + a₃ (x − x₀)³ + a₄ (x − x₀)⁴
//! ```
//!
//! (y₀, x₀ the joints' `ref`, radians for a hinge whatever the file's `angle`, the coefficients
//! applied to those values as written; without `joint2`, y − y₀ = a₀), read as the holonomic
//! constraint `y - (y₀ + a₀ + a₁ (x - x₀) + …)` named by the element's `name` or `<y>_coupling` —
//! an ideal constraint, where MuJoCo's is soft by its `solref` and `solimp`. One whose `active` is
//! `"false"` (off until a program turns it on) is no part of the model. Any other kind of equality
//! (`connect`, `weld`, `tendon`, `flex`) is refused; `equality = ignore` leaves them all out.
//!
//! A joint held by `lock` is held at its value; a joint coupled to a held one (its `joint2`) is
//! held where the polynomial puts it, and the coupling, then satisfied, is no constraint. Refused:
//! a held `joint1` whose `joint2` moves, and one held where its coupling does not put it.

use proc_macro2::{Span, TokenStream};
use quote::quote_spanned;
use syn::Ident;

use super::ConstraintDecl;
use super::description::{Locked, Place, number};
use super::mjcf_defaults::Defaults;

/// A named hinge or slide of the file: its element, its name in the file and in the model, and its
/// `ref` (radians or metres).
pub(super) struct Scalar<'a> {
    pub file_name: &'a str,
    pub ident: Ident,
    pub reference: f64,
}

/// The named hinges and slides under the `<worldbody>` `world`, whose angles are in degrees where
/// `degrees`.
pub(super) fn scalars<'a>(
    place: &Place,
    world: roxmltree::Node<'a, 'a>,
    defaults: &Defaults<'a>,
    degrees: bool,
) -> syn::Result<Vec<Scalar<'a>>> {
    let mut out = Vec::new();
    for j in world.descendants().filter(|n| n.has_tag_name("joint")) {
        let Some(file_name) = j.attribute("name") else { continue };
        let kind = defaults.source(place, j, "joint", "type")?.attribute("type").unwrap_or("hinge");
        if kind != "hinge" && kind != "slide" {
            continue;
        }
        let [reference] = place.numbers(defaults.source(place, j, "joint", "ref")?, "ref", [0.0])?;
        let reference = if kind == "hinge" && degrees { reference.to_radians() } else { reference };
        out.push(Scalar { file_name, ident: place.ident(j, file_name)?, reference });
    }
    Ok(out)
}

/// One `<equality><joint ...>`: y (`joint1`) coupled to x (`joint2`, if any) by the polynomial
/// `coef` (see the module documentation).
pub(super) struct Coupling {
    name: Ident,
    y: usize,
    x: Option<usize>,
    coef: [f64; 5],
}

impl Coupling {
    /// y's value with x at `x` (y₀ + a₀ without x).
    fn follows(&self, scalars: &[Scalar], x: f64) -> f64 {
        let d = self.x.map_or(0.0, |i| x - scalars[i].reference);
        let [a0, a1, a2, a3, a4] = self.coef;
        scalars[self.y].reference + a0 + d * (a1 + d * (a2 + d * (a3 + d * a4)))
    }

    /// The holonomic constraint y − (y₀ + a₀ + a₁ (x − x₀) + …).
    fn constraint(&self, scalars: &[Scalar], span: Span) -> syn::Result<ConstraintDecl> {
        let y = &scalars[self.y].ident;
        let constant = number(scalars[self.y].reference + self.coef[0], span);
        let mut value: TokenStream = quote_spanned!(span=> #constant);
        if let Some(i) = self.x {
            let x = &scalars[i].ident;
            let d = match scalars[i].reference {
                0.0 => quote_spanned!(span=> #x),
                r => {
                    let r = number(r, span);
                    quote_spanned!(span=> (#x - #r))
                }
            };
            for (k, &a) in self.coef.iter().enumerate().skip(1).filter(|(_, a)| **a != 0.0) {
                let a = number(a, span);
                value = if k == 1 {
                    quote_spanned!(span=> #value + #a * #d)
                } else {
                    let k = k as i32;
                    quote_spanned!(span=> #value + #a * #d.powi(#k))
                };
            }
        }
        Ok(ConstraintDecl {
            keyword: Ident::new("holonomic", span),
            name: self.name.clone(),
            value: syn::parse2(quote_spanned!(span=> #y - (#value)))?,
        })
    }
}

/// The file's `<equality>` constraints under the `<mujoco>` element `root` as couplings of its
/// named hinges and slides `scalars` (none where `ignore`); any other kind refused.
pub(super) fn couplings<'a>(
    place: &Place,
    root: roxmltree::Node<'a, 'a>,
    scalars: &[Scalar],
    defaults: &Defaults<'a>,
    ignore: bool,
) -> syn::Result<Vec<Coupling>> {
    let mut out: Vec<Coupling> = Vec::new();
    let elements = root.children().filter(|n| n.has_tag_name("equality")).flat_map(|e| e.children().filter(|n| n.is_element()));
    for e in elements {
        if ignore {
            break;
        }
        let tag = e.tag_name().name();
        if tag != "joint" {
            return Err(place.error(
                e,
                format!(
                    "a `{tag}` equality constraint is not read (the model would be the file's without it): write it in \
                     the model (a `closure(...)` holds a point of one link on a point of another), or read the file \
                     with `mjcf(path = ..., equality = ignore)` to leave all its equality constraints out"
                ),
            ));
        }
        if defaults.source(place, e, "equality", "active")?.attribute("active") == Some("false") {
            continue;
        }
        let find = |attr: &str| -> syn::Result<Option<usize>> {
            let Some(name) = e.attribute(attr) else { return Ok(None) };
            match scalars.iter().position(|s| s.file_name == name) {
                Some(i) => Ok(Some(i)),
                None => Err(place.error(e, format!("`{attr}=\"{name}\"` is not a named hinge or slide of the file"))),
            }
        };
        let Some(y) = find("joint1")? else {
            return Err(place.error(e, "a joint equality names its `joint1`"));
        };
        let x = find("joint2")?;
        if x == Some(y) {
            return Err(place.error(e, "the equality couples a joint to itself"));
        }
        let coef = place.numbers(e, "polycoef", [0.0, 1.0, 0.0, 0.0, 0.0])?;
        let base = match e.attribute("name") {
            Some(n) => place.ident(e, n)?.to_string(),
            None => format!("{}_coupling", scalars[y].ident),
        };
        let mut name = base.clone();
        let mut k = 1;
        while out.iter().any(|c| c.name == name) {
            k += 1;
            name = format!("{base}_{k}");
        }
        out.push(Coupling { name: Ident::new(&name, place.span), y, x, coef });
    }
    Ok(out)
}

/// The joints held: `lock`'s, and each coupled to a held one where its coupling puts it; and the
/// couplings that stay constraints (those with a joint that moves).
pub(super) fn held(lock: &[Locked], scalars: &[Scalar], couplings: &[Coupling]) -> syn::Result<(Vec<Locked>, Vec<bool>)> {
    let mut lock = lock.to_vec();
    let held_at = |lock: &[Locked], i: usize| lock.iter().find(|l| l.name == scalars[i].ident).map(|l| (l.value, l.name.span()));
    for _ in 0..=couplings.len() {
        let mut added = false;
        for c in couplings {
            let Some(x) = c.x else { continue };
            let Some((v, span)) = held_at(&lock, x) else { continue };
            if held_at(&lock, c.y).is_none() {
                lock.push(Locked { name: Ident::new(&scalars[c.y].ident.to_string(), span), value: c.follows(scalars, v) });
                added = true;
            }
        }
        if !added {
            break;
        }
    }
    let mut kept = Vec::with_capacity(couplings.len());
    for c in couplings {
        let y = &scalars[c.y].ident;
        let Some((v, span)) = held_at(&lock, c.y) else {
            kept.push(true);
            continue;
        };
        let x_value = match c.x {
            Some(x) => match held_at(&lock, x) {
                Some((u, _)) => u,
                None => {
                    let x = &scalars[x].ident;
                    return Err(syn::Error::new(
                        span,
                        format!(
                            "`{y}` is coupled to `{x}` by an equality, and `{x}` moves: lock `{x}`, and `{y}` is held \
                             where the coupling puts it"
                        ),
                    ));
                }
            },
            None => 0.0,
        };
        let follows = c.follows(scalars, x_value);
        if (v - follows).abs() > 1e-12 * (1.0 + follows.abs()) {
            return Err(syn::Error::new(
                span,
                format!(
                    "`{y}` would be held at {v}, where its equality `{}` puts it at {follows}: lock it there, or leave \
                     it out of `lock`",
                    c.name
                ),
            ));
        }
        kept.push(false);
    }
    Ok((lock, kept))
}

/// The couplings `kept` as the model's constraints.
pub(super) fn constraints(
    couplings: &[Coupling],
    kept: &[bool],
    scalars: &[Scalar],
    span: Span,
) -> syn::Result<Vec<ConstraintDecl>> {
    couplings.iter().zip(kept).filter(|(_, k)| **k).map(|(c, _)| c.constraint(scalars, span)).collect()
}
