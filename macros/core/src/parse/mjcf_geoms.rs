//! A body's mass, centre and inertia from its geoms, where it has no `<inertial>` (MuJoCo's
//! `inertiafromgeom="auto"`): each `sphere`, `ellipsoid`, `box`, `cylinder` or `capsule` a solid of
//! its `mass`, or of its `density` (1000 by default) times its volume, placed by its `pos` and
//! orientation or its `fromto` (a capsule's or cylinder's segment), the geoms of the groups
//! `inertiagrouprange` counts (all by default) summed about their common centre.
//!
//! MuJoCo's capsule is a cylinder of half-height h and two hemispheres of radius r:
//!
//! ```text
//! I_zz = m_c r²/2 + 2 m_s r²/5,   I_xx = m_c (3 r² + H²)/12 + m_s (2 r²/5 + H²/4 + 3 H r/8)
//! ```
//!
//! (H = 2h, m_c the cylinder's mass, m_s the full sphere's). Refused: a mesh, height field, plane
//! or SDF geom (its shape is not read), `shellinertia`, a box's or ellipsoid's `fromto`, a negative
//! mass or density.

use std::f64::consts::PI;

use super::description::Place;
use super::mjcf_defaults::Defaults;

/// A body's mass, centre and inertia about the centre, in its axes.
pub(super) struct Solid {
    pub mass: f64,
    pub centre: [f64; 3],
    pub inertia: [[f64; 3]; 3],
}

/// The solid of `body`'s geoms in the groups `groups` (none where they have no mass).
pub(super) fn from_geoms<'a>(
    place: &Place,
    body: roxmltree::Node<'a, 'a>,
    defaults: &Defaults<'a>,
    degrees: bool,
    groups: [f64; 2],
) -> syn::Result<Option<Solid>> {
    let mut parts: Vec<(f64, [f64; 3], [[f64; 3]; 3])> = Vec::new();
    for g in body.children().filter(|n| n.has_tag_name("geom")) {
        let from = |attr: &str| defaults.source(place, g, "geom", attr);
        let [group] = place.numbers(from("group")?, "group", [0.0])?;
        if group < groups[0] || group > groups[1] {
            continue;
        }
        let kind = from("type")?.attribute("type").unwrap_or("sphere");
        if from("shellinertia")?.attribute("shellinertia") == Some("true") {
            return Err(place.error(g, "`shellinertia` (a hollow geom's inertia) is not read: give the body an `<inertial>`"));
        }
        let size = numbers(place, from("size")?, "size")?;
        let fromto = match from("fromto")?.attribute("fromto") {
            Some(_) => Some(place.numbers(from("fromto")?, "fromto", [0.0; 6])?),
            None => None,
        };
        let need = |k: usize| -> syn::Result<&[f64]> {
            size.get(..k).ok_or_else(|| place.error(g, format!("a `{kind}` geom's `size` needs {k} numbers")))
        };
        // The volume, and the principal moments about the centre in the geom's axes for a mass.
        type Moments = Box<dyn Fn(f64) -> [f64; 3]>;
        let (volume, moments): (f64, Moments) = match kind {
            "sphere" => {
                let r = need(1)?[0];
                (4.0 / 3.0 * PI * r.powi(3), Box::new(move |m| [2.0 * m * r * r / 5.0; 3]))
            }
            "ellipsoid" | "box" => {
                if fromto.is_some() {
                    return Err(place.error(g, format!("a `{kind}` geom's `fromto` is not read: give its `pos` and orientation")));
                }
                let [a, b, c] = [need(3)?[0], size[1], size[2]];
                if kind == "box" {
                    (
                        8.0 * a * b * c,
                        Box::new(move |m| [m * (b * b + c * c) / 3.0, m * (a * a + c * c) / 3.0, m * (a * a + b * b) / 3.0]),
                    )
                } else {
                    let moments = move |m: f64| [m * (b * b + c * c) / 5.0, m * (a * a + c * c) / 5.0, m * (a * a + b * b) / 5.0];
                    (4.0 / 3.0 * PI * a * b * c, Box::new(moments))
                }
            }
            "cylinder" | "capsule" => {
                let r = need(1)?[0];
                let h = match fromto {
                    Some(f) => ((f[3] - f[0]).powi(2) + (f[4] - f[1]).powi(2) + (f[5] - f[2]).powi(2)).sqrt() / 2.0,
                    None => need(2)?[1],
                };
                let (height, cylinder) = (2.0 * h, PI * r * r * 2.0 * h);
                if kind == "cylinder" {
                    let moments = move |m: f64| {
                        let side = m * (3.0 * r * r + height * height) / 12.0;
                        [side, side, m * r * r / 2.0]
                    };
                    (cylinder, Box::new(moments))
                } else {
                    let sphere = 4.0 / 3.0 * PI * r.powi(3);
                    let moments = move |m: f64| {
                        // The mass split as the volumes are.
                        let (mc, ms) = (m * cylinder / (cylinder + sphere), m * sphere / (cylinder + sphere));
                        let side = mc * (3.0 * r * r + height * height) / 12.0
                            + ms * (2.0 * r * r / 5.0 + height * height / 4.0 + 3.0 * height * r / 8.0);
                        [side, side, mc * r * r / 2.0 + 2.0 * ms * r * r / 5.0]
                    };
                    (cylinder + sphere, Box::new(moments))
                }
            }
            other => {
                return Err(place.error(
                    g,
                    format!(
                        "this body has no `<inertial>`, and its mass would come from a `{other}` geom, whose shape is not \
                         read: give the body an `<inertial>`"
                    ),
                ));
            }
        };
        let mass = match from("mass")?.attribute("mass") {
            Some(_) => place.numbers(from("mass")?, "mass", [0.0])?[0],
            None => place.numbers(from("density")?, "density", [1000.0])?[0] * volume,
        };
        if mass < 0.0 {
            return Err(place.error(g, "the geom's mass (or density) is negative"));
        }
        if mass == 0.0 {
            continue;
        }
        let (centre, turn) = match fromto {
            Some(f) if kind == "cylinder" || kind == "capsule" => {
                let d = [f[3] - f[0], f[4] - f[1], f[5] - f[2]];
                ([(f[0] + f[3]) / 2.0, (f[1] + f[4]) / 2.0, (f[2] + f[5]) / 2.0], onto_z(d))
            }
            _ => (place.numbers(g, "pos", [0.0; 3])?, super::mjcf::rotation_matrix(place, g, degrees)?),
        };
        let p = moments(mass);
        // R diag(p) Rᵀ.
        let inertia = std::array::from_fn(|i| std::array::from_fn(|j| (0..3).map(|k| turn[i][k] * p[k] * turn[j][k]).sum()));
        parts.push((mass, centre, inertia));
    }
    let mass: f64 = parts.iter().map(|p| p.0).sum();
    if mass == 0.0 {
        return Ok(None);
    }
    let centre: [f64; 3] = std::array::from_fn(|k| parts.iter().map(|p| p.0 * p.1[k]).sum::<f64>() / mass);
    // Each part's inertia moved to the common centre: + m (|d|² 1 − d dᵀ).
    let inertia = std::array::from_fn(|i| {
        std::array::from_fn(|j| {
            parts
                .iter()
                .map(|(m, c, own)| {
                    let d = [c[0] - centre[0], c[1] - centre[1], c[2] - centre[2]];
                    let dd = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
                    own[i][j] + m * (if i == j { dd } else { 0.0 } - d[i] * d[j])
                })
                .sum()
        })
    });
    Ok(Some(Solid { mass, centre, inertia }))
}

/// The rotation whose z axis is along `d` (a segment's; the others any, the geom being symmetric
/// about it).
fn onto_z(d: [f64; 3]) -> [[f64; 3]; 3] {
    let n = (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt();
    if n == 0.0 {
        return [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
    }
    let z = d.map(|c| c / n);
    // Any unit x orthogonal to z, then y = z × x.
    let a = if z[0].abs() < 0.9 { [1.0, 0.0, 0.0] } else { [0.0, 1.0, 0.0] };
    let dot = a[0] * z[0] + a[1] * z[1] + a[2] * z[2];
    let x = [a[0] - dot * z[0], a[1] - dot * z[1], a[2] - dot * z[2]];
    let nx = (x[0] * x[0] + x[1] * x[1] + x[2] * x[2]).sqrt();
    let x = x.map(|c| c / nx);
    let y = [z[1] * x[2] - z[2] * x[1], z[2] * x[0] - z[0] * x[2], z[0] * x[1] - z[1] * x[0]];
    // Columns x, y, z.
    std::array::from_fn(|i| [x[i], y[i], z[i]])
}

/// The numbers of `attr` of `node`, as many as it has.
fn numbers(place: &Place, node: roxmltree::Node, attr: &str) -> syn::Result<Vec<f64>> {
    let Some(text) = node.attribute(attr) else { return Ok(Vec::new()) };
    let values: Vec<f64> = text
        .split_whitespace()
        .map(str::parse::<f64>)
        .collect::<Result<_, _>>()
        .map_err(|_| place.error(node, format!("`{attr}=\"{text}\"` is not a list of numbers")))?;
    if values.iter().any(|v| !v.is_finite() || *v < 0.0) {
        return Err(place.error(node, format!("`{attr}=\"{text}\"` has a negative or infinite size")));
    }
    Ok(values)
}
