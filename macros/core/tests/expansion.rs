//! Golden expansions of representative models, one per capability, and the rule that generated
//! code reaches routh only through its one door, `::routh::__private`.
//!
//! Each snapshot is the pretty-printed expansion in `tests/snapshots/<name>.expanded`. A change of
//! the emitted code shows as a diff of these files; when it is intended, bless it:
//!
//! ```sh
//! ROUTH_BLESS=1 cargo test -p routh-macros-core --test expansion
//! ```

use std::path::PathBuf;

use proc_macro2::{TokenStream, TokenTree};

/// The representative models: (snapshot name, derive input).
const MODELS: &[(&str, &str)] = &[
    (
        "quaternion_body",
        "#[mechanics(
            orientation(r),
            body(name = brick, mass = m, centre = r * [0, 0, l], frame = r, inertia = diag(i1, i2, i3)),
            gravity = [0, 0, -g],
        )]
        struct Brick { m: f64, l: f64, i1: f64, i2: f64, i3: f64, g: f64 }",
    ),
    (
        "quaternion_impact",
        "#[mechanics(
            coordinates(x1, x2),
            orientation(r),
            body(name = rotor, mass = m, centre = [x1, x2, 0], frame = r, inertia = diag(i1, i2, i3)),
            impact(name = wall, guard = w - x2 - (r * [0, l, 0])[1], law = restitution(e)),
        )]
        struct Rotor { m: f64, l: f64, i1: f64, i2: f64, i3: f64, w: f64, e: f64 }",
    ),
    (
        "body_top",
        "#[mechanics(
            coordinates(phi, theta, psi),
            frame(b = rot_z(phi) * rot_x(theta) * rot_z(psi)),
            body(name = top, mass = m, centre = b * [0, 0, l], frame = b, inertia = diag(a, a, c)),
            gravity = [0, 0, -g],
        )]
        struct Top { m: f64, l: f64, a: f64, c: f64, g: f64 }",
    ),
    (
        "double_pendulum",
        "#[mechanics(
            coordinates(th1, th2),
            define(x1 = l1 * th1.sin(), y1 = -l1 * th1.cos(), x2 = x1 + l2 * th2.sin(), y2 = y1 - l2 * th2.cos()),
            lagrangian = m1 / 2 * (dot(x1).powi(2) + dot(y1).powi(2)) + m2 / 2 * (dot(x2).powi(2) + dot(y2).powi(2))
                - g * (m1 * y1 + m2 * y2),
            force(th1 = -b * dot(th1), th2 = -b * (dot(th2) - dot(th1))),
            output(tip_x = x2, tip_y = y2),
        )]
        pub struct DoublePendulum { pub m1: f64, pub m2: f64, pub l1: f64, pub l2: f64, pub g: f64, pub b: f64 }",
    ),
    (
        "recursive_cart",
        "#[mechanics(
            coordinates(x, a, b),
            define(xa = x + l * a.sin(), ya = -l * a.cos(), xb = xa + l * b.sin(), yb = ya - l * b.cos()),
            lagrangian = mc / 2 * dot(x).powi(2) + m / 2 * (dot(xa).powi(2) + dot(ya).powi(2) + dot(xb).powi(2) + dot(yb).powi(2))
                - m * g * (ya + yb),
            force(x = u),
            dynamics = recursive,
        )]
        pub struct CartDoublePendulum { pub mc: f64, pub m: f64, pub l: f64, pub g: f64, pub u: f64 }",
    ),
    (
        "spatial_chain",
        "#[mechanics(
            coordinates(q1, q2, q3, q4),
            frame(b1 = rot_z(q1), b2 = b1 * rot_y(q2), b3 = b2 * rot_x(q3), b4 = b3 * rot_z(q4)),
            point(e1 = b1 * [0, 0, -l], e2 = e1 + b2 * [0, 0, -l], e3 = e2 + b3 * [0, 0, -l]),
            body(name = r1, mass = m, centre = b1 * [0, 0, -l / 2], frame = b1, inertia = diag(i, i, j)),
            body(name = r2, mass = m, centre = e1 + b2 * [0, 0, -l / 2], frame = b2, inertia = diag(i, i, j)),
            body(name = r3, mass = m, centre = e2 + b3 * [0, 0, -l / 2], frame = b3, inertia = diag(i, i, j)),
            body(name = r4, mass = m, centre = e3 + b4 * [0, 0, -l / 2], frame = b4, inertia = diag(i, i, j)),
            gravity = [0, 0, -g],
            dynamics = recursive,
        )]
        pub struct SpatialChain { pub m: f64, pub l: f64, pub i: f64, pub j: f64, pub g: f64 }",
    ),
    (
        "forced_oscillator",
        "#[mechanics(coordinates(x), lagrangian = m / 2 * dot(x).powi(2) - k / 2 * x.powi(2), force(x = a * (w * t).cos()))]
        struct Forced { m: f64, k: f64, a: f64, w: f64 }",
    ),
    (
        "holonomic_pendulum",
        "#[mechanics(
            coordinates(x, y),
            lagrangian = m / 2 * (dot(x).powi(2) + dot(y).powi(2)) - m * g * y,
            holonomic(rod = x.powi(2) + y.powi(2) - l.powi(2)),
        )]
        struct Pendulum { m: f64, g: f64, l: f64 }",
    ),
    (
        "rolling_disk",
        "#[mechanics(
            coordinates(x, y, th, phi),
            lagrangian = m / 2 * (dot(x).powi(2) + dot(y).powi(2)) + i / 2 * dot(phi).powi(2) + j / 2 * dot(th).powi(2),
            constraint(roll_x = dx - r * th.cos() * dphi, roll_y = dy - r * th.sin() * dphi),
        )]
        struct RollingDisk { m: f64, i: f64, j: f64, r: f64 }",
    ),
    (
        "nonholonomic_sleigh",
        "#[mechanics(
            coordinates(x, y, th),
            lagrangian = m / 2 * (dot(x).powi(2) + dot(y).powi(2)) + i / 2 * dot(th).powi(2),
            constraint(blade = dot(y) * th.cos() - dot(x) * th.sin() - a * dot(th)),
            reduce(nonholonomic(x, y, th), velocities(v = th.cos() * dot(x) + th.sin() * dot(y), w = dot(th))),
        )]
        struct Sleigh { m: f64, i: f64, a: f64 }",
    ),
    (
        "routh_rotations",
        "#[mechanics(
            coordinates(x1, x2),
            orientation(r),
            body(name = rotor, mass = m, centre = [x1, x2, 0], frame = r, inertia = diag(i1, i2, i3)),
            impact(name = wall, guard = w - x2, law = restitution(e)),
            reduce(routh(r), name = WongRouth),
        )]
        struct Wong { m: f64, i1: f64, i2: f64, i3: f64, w: f64, e: f64 }",
    ),
    (
        "spinning_rod",
        "#[mechanics(
            coordinates(r, th),
            lagrangian = m / 2 * (dot(r).powi(2) + (r * dot(th)).powi(2)),
            constraint(spin = dth - w * dt),
        )]
        struct Bead { m: f64, w: f64 }",
    ),
    (
        "bouncing_ball",
        "#[mechanics(coordinates(y), lagrangian = m / 2 * dot(y).powi(2) - m * g * y, impact(name = floor, guard = y, law = restitution(e)))]
        struct Ball { m: f64, g: f64, e: f64 }",
    ),
    (
        "rod_modes",
        "#[mechanics(
            coordinates(y, alpha),
            lagrangian = m / 2 * (dot(y).powi(2) + (r * dot(alpha)).powi(2)) - m * g * y,
            mode(left),
            mode(right),
            transition(left -> right, guard = y - l / 2 * alpha.sin(), law = restitution(1)),
            transition(right -> left, guard = y + l / 2 * alpha.sin(), law = restitution(1)),
        )]
        struct Rod { m: f64, l: f64, r: f64, g: f64 }",
    ),
    (
        "unilateral_ball",
        "#[mechanics(coordinates(y), lagrangian = m / 2 * dot(y).powi(2) - m * g * y, unilateral(name = floor, guard = y, law = restitution(e)))]
        struct Resting { m: f64, g: f64, e: f64 }",
    ),
    (
        "kepler_routh",
        "#[mechanics(
            coordinates(r, phi),
            lagrangian = m / 2 * (dot(r).powi(2) + (r * dot(phi)).powi(2)) + k / r,
            symmetry(cyclic(phi)),
            reduce(routh(phi), name = Radial),
        )]
        struct Kepler { m: f64, k: f64 }",
    ),
    (
        "discrete_sextic",
        "#[mechanics(
            coordinates(x, y),
            define(s = x.powi(2) + y.powi(2)),
            lagrangian = (dot(x).powi(2) + dot(y).powi(2)) / 2 - s * (s - 1).powi(2),
            force(x = -kappa * dot(x), y = -kappa * dot(y)),
            discrete(rule = midpoint),
        )]
        struct Sextic { kappa: f64 }",
    ),
    (
        "contact_damped",
        "#[mechanics(coordinates(x), action(z), lagrangian = m / 2 * dot(x).powi(2) - k / 2 * x.powi(2) - gamma * z)]
        struct Damped { m: f64, k: f64, gamma: f64 }",
    ),
    (
        "input_and_sensitivity",
        "#[mechanics(coordinates(x), input(u), sensitivity(k), lagrangian = m / 2 * dot(x).powi(2) - k / 2 * x.powi(2), force(x = u))]
        struct Pushed { m: f64, k: f64 }",
    ),
    (
        "renamed_crate",
        "#[mechanics(crate = ::my::routh, coordinates(x), lagrangian = m / 2 * dot(x).powi(2) - k / 2 * x.powi(2), jacobian)]
        struct Spring { m: f64, k: f64 }",
    ),
];

fn expand(src: &str) -> TokenStream {
    routh_macros_core::try_expand(src.parse().expect("model tokens")).unwrap_or_else(|e| panic!("{e}"))
}

/// Every path through `routh` in `tokens`, as the two segments after it (`__private`, `FieldError`).
fn routh_paths(tokens: TokenStream, out: &mut Vec<String>) {
    let trees: Vec<TokenTree> = tokens.into_iter().collect();
    for (i, tree) in trees.iter().enumerate() {
        match tree {
            TokenTree::Group(g) => routh_paths(g.stream(), out),
            TokenTree::Ident(id) if id == "routh" => {
                let next: String = trees[i + 1..].iter().take(3).map(ToString::to_string).collect();
                out.push(next);
            }
            _ => {}
        }
    }
}

#[test]
fn generated_code_reaches_routh_only_through_its_door() {
    for (name, src) in MODELS.iter().filter(|(n, _)| *n != "renamed_crate") {
        let out = expand(src);
        let mut paths = Vec::new();
        routh_paths(out.clone(), &mut paths);
        let other: Vec<&String> = paths.iter().filter(|p| !p.starts_with("::__private")).collect();
        assert!(other.is_empty(), "{name}: generated code names routh paths other than `::routh::__private`: {other:?}");
        // The door is named once, where the impls' constant imports it; elsewhere only the fields
        // of the types the derive declares (an input vector of a driven view) spell it out.
        let text = out.to_string();
        assert_eq!(text.matches("use :: routh :: __private as __routh ;").count(), 1, "{name}: the door is imported once");
        let fields = text.matches("pub :: routh :: __private :: Vector <").count();
        assert_eq!(paths.len(), 1 + fields, "{name}: routh is named only by the door's import and the declared types' fields");
    }
}

#[test]
fn a_renamed_crate_is_named_by_its_path_and_routh_never() {
    let (_, src) = MODELS.iter().find(|(n, _)| *n == "renamed_crate").unwrap();
    let out = expand(src);
    let mut paths = Vec::new();
    routh_paths(out.clone(), &mut paths);
    // `::my::routh::__private`: the user's path (whose last segment is `routh` here) and the door.
    assert!(paths.iter().all(|p| p.starts_with("::__private")), "{paths:?}");
    let text = out.to_string();
    assert!(text.contains("use :: my :: routh :: __private as __routh ;"), "the user's path is used");
    assert!(!text.contains("& :: routh ::") && !text.contains("< :: routh ::"), "no path from the default root");
    // The same model at the default path differs only by the root.
    let default = expand(&src.replace("crate = ::my::routh, ", "")).to_string();
    assert_eq!(text.replace(":: my :: routh ::", ":: routh ::"), default);
}

#[test]
fn expansions_match_their_snapshots() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/snapshots");
    let bless = std::env::var_os("ROUTH_BLESS").is_some();
    let mut stale = Vec::new();
    for (name, src) in MODELS {
        let file: syn2::File = syn2::parse2(expand(src)).expect("the expansion is Rust items");
        let text = prettyplease::unparse(&file);
        let path = dir.join(format!("{name}.expanded"));
        if bless {
            std::fs::write(&path, &text).expect("snapshot written");
        } else if std::fs::read_to_string(&path).ok().as_deref() != Some(text.as_str()) {
            std::fs::write(dir.join(format!("{name}.expanded.new")), &text).expect("new expansion written");
            stale.push(*name);
        }
    }
    assert!(
        stale.is_empty(),
        "the expansions of {stale:?} differ from tests/snapshots/<name>.expanded (the new ones are beside them as \
         .expanded.new: diff them; if the change is intended, bless it with ROUTH_BLESS=1)"
    );
}
