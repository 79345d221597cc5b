//! Parsing of the `#[mechanics(...)]` attribute into a raw, unvalidated syntax tree.
//!
//! Grammar (items separated by commas, in any order, possibly spread over several attributes):
//!
//! ```text
//! item := coordinates( ident, ... )
//!       | action( ident )                          // the action variable z of a contact Lagrangian
//!       | input( ident, ... )                      // control inputs u, usable in forces
//!       | sensitivity( param, ... )                // generate ∂F/∂p for these parameters
//!       | jacobian                                 // generate the field Jacobian ∂F/∂x
//!       | dynamics = recursive | dense | columns   // how the accelerations are computed
//!       | discrete( rule = rule )                  // a variational integrator of the model
//!       | discrete( lagrangian = expr, force_minus( ident = expr, ... ), force_plus( ident = expr, ... ) )
//!                                                  // a raw discrete system in q0(x), q1(x), h, t
//! rule := midpoint | trapezoid | rectangle | alpha( expr )
//!       | define( ident = expr, ... )
//!       | orientation( ident, ... )                // a rotation in the state: unit quaternion, body ω
//!       | frame( ident = expr, ... )               // a rotation: body components to inertial ones
//!       | point( ident = expr, ... )               // a position: a 3-vector
//!       | body( name = ident, mass = expr, centre = expr, frame = expr, inertia = expr )
//!       | particle( name = ident, mass = expr, at = expr )
//!       | joint( name = ident, kind = revolute | continuous | prismatic | fixed, parent = ident,
//!              child = ident, origin = expr, rotation = expr, axis = expr,
//!              mass = expr, centre = expr, inertia = expr, damping = expr )
//!                                                  // a link on a joint: see `joint`
//!       | urdf = "path"                            // a robot's joints from its URDF: see `urdf`
//!       | mjcf = "path"                            // … from its MJCF file: see `mjcf`
//!       | closure( name = ident, a = ident, at = expr, b = ident, to = expr, axes = [x, y, z] )
//!                                                  // a loop closed: two links' points held together
//!       | gravity = expr                           // the gravitational acceleration, a 3-vector
//!       | lagrangian = expr
//!       | force( ident = expr, ... )
//!       | impact( name = ident, guard = expr, law = law )
//!       | symmetry( sym, ... )                      // sym := cyclic(q) | name = generator(q = expr, ...)
//!                                                  //      | name = rotation(R, axis)  (an orientation about a spatial axis)
//!       | reduce( routh(q, ...) [, name = Ident] )  // Routh reduction over cyclic coordinates
//!       | reduce( nonholonomic(g, ...), velocities(u, w = expr, ...) [, shape(s = expr, ...),
//!                 inverse(q = expr, ...), symmetry(name, ...)] [, name = Ident] )
//!       | mode( ident, item, ... )                  // a mode with its own items (multi-mode models)
//!       | transition( ident -> ident, name = ident, guard = expr, law = law )
//! law  := restitution( expr )                       // Newton's law along the guard normal
//!       | restitution( oneform: expr, ... )         // several one-forms, one coefficient each
//!       | map( dot(q) = expr, ... )                 // explicit post-impact velocities
//!       | reset( q = expr, dot(q) = expr, ... )     // transitions: the target mode's state
//! ```
//!
//! Expressions are ordinary Rust expressions parsed by syn; their meaning is given in [`crate::lower`].

/// The largest nesting of an expression the derive reads, in units of one binary operator or
/// punctuation token along the way from the attribute to the innermost token (within one
/// comma-separated expression), with each delimited group counting [`GROUP_WEIGHT`]. syn's
/// expression parser, the drop of its trees, the lowering and the symbolic passes recurse once per
/// level, about 4 kB of stack per operator and 16 kB per parenthesis in a debug build. Every
/// expansion, whoever calls it, runs them on a 1 GiB stack segment (machine-written Lagrangians: a
/// flat sum of 10 000 terms, 2 000 nested parentheses), so the limit, 100 000 (about 400 MB of
/// stack), leaves a margin: beyond it the derive stops with a span instead of crashing the
/// compiler. (rustc's own parser overflows on an expression 3 000 parentheses deep in a plain
/// function, and on the attribute's tokens around 20 000 deep, before the derive runs.)
pub const MAX_NESTING: usize = 100_000;
/// What one delimited group (parentheses, brackets, braces) counts towards [`MAX_NESTING`].
const GROUP_WEIGHT: usize = 4;

/// Rejects input nested beyond [`MAX_NESTING`] before anything parses it recursively. Iterative:
/// it cannot overflow the stack itself.
pub fn check_nesting(input: &proc_macro2::TokenStream) -> syn::Result<()> {
    use proc_macro2::TokenTree;
    // Each entry: the remaining tokens of a group and the weight of the path to it.
    let mut stack: Vec<(proc_macro2::token_stream::IntoIter, usize)> = vec![(input.clone().into_iter(), 0)];
    while let Some((mut tokens, base)) = stack.pop() {
        let mut weight = base;
        while let Some(tree) = tokens.next() {
            match tree {
                TokenTree::Group(g) => {
                    let inner = weight + GROUP_WEIGHT;
                    if inner > MAX_NESTING {
                        return Err(too_deep(g.span()));
                    }
                    stack.push((tokens, weight));
                    stack.push((g.stream().into_iter(), inner));
                    break;
                }
                // A comma or semicolon ends an expression: its operators do not nest into the next.
                TokenTree::Punct(p) if matches!(p.as_char(), ',' | ';') => weight = base,
                TokenTree::Punct(p) => {
                    weight += 1;
                    if weight > MAX_NESTING {
                        return Err(too_deep(p.span()));
                    }
                }
                _ => {}
            }
        }
    }
    Ok(())
}

fn too_deep(span: proc_macro2::Span) -> syn::Error {
    syn::Error::new(
        span,
        format!(
            "this expression is nested too deeply for the derive (more than {MAX_NESTING} operators and parentheses \
             along one path, a group counting {GROUP_WEIGHT}); split it into `define(...)`s"
        ),
    )
}

use proc_macro2::Span;
use syn::parse::{Parse, ParseStream};
use syn::punctuated::Punctuated;
use syn::{Expr, Ident, Token};

use crate::diagnostics::unknown;

mod body;
mod description;
mod discrete;
mod impact;
mod joint;
mod mjcf;
mod mjcf_defaults;
mod mjcf_equality;
mod mjcf_geoms;
mod reduce;
mod urdf;
pub use body::{BodyDecl, ContactDecl};
pub use description::LimitsRead;
pub use impact::{ImpactDecl, LawDecl};
pub use joint::{ClosureDecl, JointDecl};

/// The item keywords the attribute understands.
pub const ITEMS: &[&str] = &[
    "coordinates",
    "action",
    "input",
    "define",
    "orientation",
    "frame",
    "point",
    "body",
    "particle",
    "joint",
    "urdf",
    "mjcf",
    "closure",
    "gravity",
    "rolling",
    "no_slip",
    "lagrangian",
    "force",
    "holonomic",
    "constraint",
    "unilateral",
    "impact",
    "mode",
    "transition",
    "symmetry",
    "reduce",
    "discrete",
    "sensitivity",
    "jacobian",
    "dynamics",
    "output",
];

/// The quadrature rules of `discrete(rule = ...)`.
pub const RULES: &[&str] = &["midpoint", "trapezoid", "rectangle", "alpha"];

/// `discrete(rule = ...)` or a raw `discrete(lagrangian = ..., force_minus(...), force_plus(...))`
/// as written.
#[derive(Clone)]
pub struct DiscreteDecl {
    pub keyword: Ident,
    /// The rule: a name, or `alpha(expr)`.
    pub rule: Option<Expr>,
    /// Raw mode: L_d in the nodes `q0(x)`, `q1(x)`, the step `h` and the time `t` of the first node.
    pub lagrangian: Option<Expr>,
    /// Raw mode: the components of f⁻ and f⁺ per coordinate.
    pub force_minus: Vec<Binding>,
    pub force_plus: Vec<Binding>,
}

/// A constraint as written: `holonomic(name = f(t, q))` or `constraint(name = one-form or
/// velocity expression)`.
#[derive(Clone)]
pub struct ConstraintDecl {
    /// `holonomic` or `constraint`.
    pub keyword: Ident,
    pub name: Ident,
    pub value: Expr,
}

/// A declared symmetry: `cyclic(q)` (generator ∂/∂q) or `name = generator(q = expr, ...)`.
#[derive(Clone)]
pub struct SymmetryDecl {
    pub name: Ident,
    /// `Some(q)` for `cyclic(q)`.
    pub cyclic: Option<Ident>,
    /// Components `q = ξ_q(q)` of a general generator.
    pub components: Vec<Binding>,
    /// `name = rotation(R, axis)`: the rotation of the orientation `R` about a fixed spatial axis.
    pub rotation: Option<(Ident, Expr)>,
}

/// `reduce(routh(q, ...), name = Type)`,
/// `reduce(nonholonomic(g, ...), velocities(u, w = expr, ...), name = Type)` or
/// `reduce(euler_poincare(r, ...), name = Type)` (velocities optional: all of them by default).
#[derive(Clone)]
pub struct ReduceDecl {
    /// `routh`, `nonholonomic` or `euler_poincare`.
    pub keyword: Ident,
    /// The coordinates removed: cyclic ones (Routh) or the dropped coordinates and orientations.
    pub cyclic: Vec<Ident>,
    pub name: Option<Ident>,
    /// `velocities(...)` with its keyword: the reduced velocities of a nonholonomic reduction,
    /// each a coordinate's rate (`u`) or a named expression affine in the velocities (`w = ...`).
    pub velocities: Option<(Ident, Vec<VelocityDecl>)>,
    /// `shape(s = σ(q), ...)` with its keyword: a nonholonomic reduction's quotient map, the shape
    /// coordinates as functions of the model's (invariant under the group whose orbits the dropped
    /// coordinates run along).
    pub shape: Option<(Ident, Vec<Binding>)>,
    /// `inverse(x = ι(s, g), ...)` with its keyword: each kept coordinate of the model in the shape
    /// and the dropped coordinates.
    pub inverse: Option<(Ident, Vec<Binding>)>,
    /// `symmetry(name, ...)`: declared symmetries the shape map must be invariant under.
    pub symmetries: Vec<Ident>,
}

/// One reduced velocity of `velocities(...)`.
#[derive(Clone)]
pub struct VelocityDecl {
    pub name: Ident,
    /// `None`: the rate of the coordinate `name`.
    pub value: Option<Expr>,
}

/// What a `define`d name is declared to be.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DefineKind {
    /// `define(...)`: any value.
    Define,
    /// `frame(...)`: a rotation (proved at compile time).
    Frame,
    /// `point(...)`: a 3-vector.
    Point,
}

/// `name = expr`, as in `define(...)` and `force(...)`.
#[derive(Clone)]
pub struct Binding {
    pub name: Ident,
    pub value: Expr,
    /// For the names of `define`, `frame` and `point`: which of them.
    pub kind: DefineKind,
    /// The parameters of a define that takes arguments, `name(a, b) = expr` (empty otherwise).
    pub params: Vec<Ident>,
}

impl Parse for Binding {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let name: Ident = input.parse()?;
        let mut params = Vec::new();
        if input.peek(syn::token::Paren) {
            let content;
            syn::parenthesized!(content in input);
            params = Punctuated::<Ident, Token![,]>::parse_terminated(&content)?.into_iter().collect();
        }
        input.parse::<Token![=]>().map_err(|e| syn::Error::new(e.span(), format!("expected `{name} = <expression>`")))?;
        let value: Expr = input.parse()?;
        Ok(Binding { name, value, kind: DefineKind::Define, params })
    }
}

/// `mode(name, item, ...)` as written.
pub struct ModeDecl {
    pub name: Ident,
    pub items: RawModel,
}

/// One item of the attribute.
pub enum Item {
    Coordinates {
        keyword: Ident,
        names: Vec<Ident>,
    },
    Define {
        bindings: Vec<Binding>,
    },
    Orientation {
        keyword: Ident,
        names: Vec<Ident>,
    },
    Action {
        keyword: Ident,
        names: Vec<Ident>,
    },
    Input {
        keyword: Ident,
        names: Vec<Ident>,
    },
    Sensitivity {
        keyword: Ident,
        names: Vec<Ident>,
    },
    Jacobian {
        keyword: Ident,
    },
    Lagrangian {
        keyword: Ident,
        value: Expr,
    },
    Force {
        bindings: Vec<Binding>,
    },
    Output {
        keyword: Ident,
        bindings: Vec<Binding>,
    },
    Constraint(Vec<ConstraintDecl>),
    Body(Box<BodyDecl>),
    Joint(Box<JointDecl>),
    /// `closure(...)`: a kinematic loop closed by holonomic constraints.
    Closure(Box<ClosureDecl>),
    /// `urdf = "path"` or `urdf(path = "...", limits = e, inputs = u)`: a robot's joints and
    /// links from its description file (with its joints' position limits as impacts of
    /// restitution e, and inputs driving its joints).
    Urdf {
        path: syn::LitStr,
        asked: description::Asked,
    },
    /// `mjcf = "path"` or `mjcf(path = "...", limits = e, inputs = u)`: the same from an MJCF file.
    Mjcf {
        path: syn::LitStr,
        asked: description::Asked,
    },
    Contact(Box<ContactDecl>),
    Gravity {
        keyword: Ident,
        value: Expr,
    },
    /// `dynamics = recursive | dense | columns`.
    Dynamics {
        keyword: Ident,
        value: Ident,
    },
    Impact(ImpactDecl),
    Mode(Box<ModeDecl>),
    Symmetry(Vec<SymmetryDecl>),
    Reduce(ReduceDecl),
    Discrete(DiscreteDecl),
    /// `crate = path`: where generated code finds routh (a renamed dependency).
    Crate {
        keyword: Token![crate],
        path: syn::Path,
    },
}

impl Parse for Item {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        if input.peek(Token![crate]) {
            let keyword: Token![crate] = input.parse()?;
            input.parse::<Token![=]>().map_err(|e| syn::Error::new(e.span(), "expected `crate = <path to routh>`"))?;
            let path = syn::Path::parse_mod_style(input)?;
            return Ok(Item::Crate { keyword, path });
        }
        let keyword: Ident = input.parse()?;
        let key = keyword.to_string();
        match key.as_str() {
            "coordinates" => {
                let content;
                syn::parenthesized!(content in input);
                let names = Punctuated::<Ident, Token![,]>::parse_terminated(&content)?;
                Ok(Item::Coordinates { keyword, names: names.into_iter().collect() })
            }
            "jacobian" => {
                if !input.is_empty() && !input.peek(Token![,]) {
                    return Err(input.error("`jacobian` takes no arguments: write it alone, e.g. `#[mechanics(..., jacobian)]`"));
                }
                Ok(Item::Jacobian { keyword })
            }
            "orientation" => {
                let content;
                syn::parenthesized!(content in input);
                let names = Punctuated::<Ident, Token![,]>::parse_terminated(&content)?.into_iter().collect();
                Ok(Item::Orientation { keyword, names })
            }
            "action" | "input" | "sensitivity" => {
                let content;
                syn::parenthesized!(content in input);
                let names = Punctuated::<Ident, Token![,]>::parse_terminated(&content)?.into_iter().collect();
                Ok(match key.as_str() {
                    "action" => Item::Action { keyword, names },
                    "input" => Item::Input { keyword, names },
                    _ => Item::Sensitivity { keyword, names },
                })
            }
            "output" => {
                let content;
                syn::parenthesized!(content in input);
                let bindings: Vec<Binding> = Punctuated::<Binding, Token![,]>::parse_terminated(&content)?.into_iter().collect();
                if let Some(p) = bindings.iter().find_map(|b| b.params.first()) {
                    return Err(syn::Error::new(
                        p.span(),
                        "an output is a value of the state, `output(name = expr)`; it takes no arguments",
                    ));
                }
                Ok(Item::Output { keyword, bindings })
            }
            "define" | "force" | "frame" | "point" => {
                let content;
                syn::parenthesized!(content in input);
                let mut bindings: Vec<Binding> =
                    Punctuated::<Binding, Token![,]>::parse_terminated(&content)?.into_iter().collect();
                let kind = match key.as_str() {
                    "frame" => DefineKind::Frame,
                    "point" => DefineKind::Point,
                    _ => DefineKind::Define,
                };
                for b in &mut bindings {
                    b.kind = kind;
                    if let (Some(p), false) = (b.params.first(), key == "define") {
                        return Err(syn::Error::new(
                            p.span(),
                            format!("only a `define` takes arguments, `define(name(a, b) = ...)`; a `{key}` is a value"),
                        ));
                    }
                }
                Ok(if key == "force" { Item::Force { bindings } } else { Item::Define { bindings } })
            }
            "body" | "particle" => {
                let content;
                syn::parenthesized!(content in input);
                Ok(Item::Body(Box::new(BodyDecl::parse_body(keyword, &content)?)))
            }
            "joint" => {
                let content;
                syn::parenthesized!(content in input);
                Ok(Item::Joint(Box::new(JointDecl::parse_body(keyword, &content)?)))
            }
            "closure" => {
                let content;
                syn::parenthesized!(content in input);
                Ok(Item::Closure(Box::new(ClosureDecl::parse_body(keyword, &content)?)))
            }
            "urdf" | "mjcf" => {
                let (path, asked) = description::parse_item(&keyword, input)?;
                Ok(if key == "urdf" { Item::Urdf { path, asked } } else { Item::Mjcf { path, asked } })
            }
            "rolling" | "no_slip" => {
                let content;
                syn::parenthesized!(content in input);
                Ok(Item::Contact(Box::new(ContactDecl::parse_body(keyword, &content)?)))
            }
            "dynamics" => Ok(Item::Dynamics { value: dynamics(input)?, keyword }),
            "gravity" => {
                input.parse::<Token![=]>().map_err(|e| syn::Error::new(e.span(), "expected `gravity = [gx, gy, gz]`"))?;
                Ok(Item::Gravity { keyword, value: input.parse()? })
            }
            "holonomic" | "constraint" => {
                let content;
                syn::parenthesized!(content in input);
                let bindings = Punctuated::<Binding, Token![,]>::parse_terminated(&content)?;
                Ok(Item::Constraint(
                    bindings
                        .into_iter()
                        .map(|b| ConstraintDecl { keyword: keyword.clone(), name: b.name, value: b.value })
                        .collect(),
                ))
            }
            "impact" | "transition" | "unilateral" => {
                let content;
                syn::parenthesized!(content in input);
                Ok(Item::Impact(ImpactDecl::parse_body(keyword, &content)?))
            }
            "symmetry" => {
                let content;
                syn::parenthesized!(content in input);
                Ok(Item::Symmetry(SymmetryDecl::parse_list(&content)?))
            }
            "discrete" => {
                let content;
                syn::parenthesized!(content in input);
                Ok(Item::Discrete(DiscreteDecl::parse_body(keyword, &content)?))
            }
            "reduce" => {
                let content;
                syn::parenthesized!(content in input);
                Ok(Item::Reduce(ReduceDecl::parse_body(&content)?))
            }
            "mode" => {
                let content;
                syn::parenthesized!(content in input);
                Ok(Item::Mode(Box::new(ModeDecl::parse_body(&content)?)))
            }
            "lagrangian" => {
                input.parse::<Token![=]>().map_err(|e| syn::Error::new(e.span(), "expected `lagrangian = <expression>`"))?;
                Ok(Item::Lagrangian { keyword, value: input.parse()? })
            }
            _ => {
                let known = format!("Expected one of: {}", ITEMS.join(", "));
                Err(unknown(keyword.span(), format_args!("unknown item `{key}` in #[mechanics(...)]"), &key, ITEMS, known))
            }
        }
    }
}

impl ModeDecl {
    /// `mode(name, item, ...)`'s body: its items, none of them a mode or `crate = ...`.
    fn parse_body(input: ParseStream) -> syn::Result<ModeDecl> {
        let name: Ident = input.parse()?;
        let mut items = RawModel::empty(name.span());
        if !input.is_empty() {
            input.parse::<Token![,]>()?;
            for item in Punctuated::<Item, Token![,]>::parse_terminated(input)? {
                match item {
                    Item::Mode(m) => {
                        return Err(syn::Error::new(m.name.span(), "modes cannot be nested"));
                    }
                    Item::Crate { keyword, .. } => {
                        return Err(syn::Error::new(
                            keyword.span,
                            "declare `crate = ...` at the top level of #[mechanics(...)]: it is where the whole \
                             model finds routh",
                        ));
                    }
                    other => items.add(other)?,
                }
            }
        }
        items.expand_joints()?;
        Ok(ModeDecl { name, items })
    }
}

/// Everything the attributes said, still unvalidated.
pub struct RawModel {
    /// Span to blame for model-level problems (the first `mechanics` attribute, or the struct name).
    pub span: Span,
    /// The `coordinates` keyword, if present (blamed when the list is empty).
    pub coordinates_keyword: Option<Ident>,
    pub coordinates: Vec<Ident>,
    /// `orientation(R, ...)` items: the keyword and the names (rotations in the state).
    pub orientations: Vec<(Ident, Vec<Ident>)>,
    /// For each `orientation(...)` item, how many coordinates are declared before it (the place
    /// of its rotation in a kinematic tree declared parents first).
    pub orientation_after: Vec<usize>,
    /// `action(z)` items as written: the keyword and its names (one name, one item, when valid).
    pub actions: Vec<(Ident, Vec<Ident>)>,
    /// `input(u1, ...)` items as written: the keyword and its names.
    pub inputs: Vec<(Ident, Vec<Ident>)>,
    /// `sensitivity(p, ...)` items as written: the keyword and the parameters named.
    pub sensitivities: Vec<(Ident, Vec<Ident>)>,
    /// The `jacobian` item, if given: generate the field Jacobian.
    pub jacobian: Option<Ident>,
    /// `dynamics = recursive | dense | columns`, if given: its value.
    pub dynamics: Option<Ident>,
    /// `define`, `frame` and `point` items (one namespace; [`Binding::kind`] says which).
    pub defines: Vec<Binding>,
    /// `body(...)` and `particle(...)` items (and, once expanded, the bodies of joints' links).
    pub bodies: Vec<BodyDecl>,
    /// `joint(...)` items, until [`RawModel::expand_joints`] turns them into coordinates, frames,
    /// points, bodies and forces.
    pub joints: Vec<JointDecl>,
    /// `rolling(...)` and `no_slip(...)` items: contacts of bodies with the ground plane z = 0,
    /// lowered into constraints.
    pub contacts: Vec<ContactDecl>,
    /// `gravity = g` items (one when valid).
    pub gravity: Vec<(Ident, Expr)>,
    pub lagrangians: Vec<(Ident, Expr)>,
    pub forces: Vec<Binding>,
    pub constraints: Vec<ConstraintDecl>,
    pub impacts: Vec<ImpactDecl>,
    pub modes: Vec<ModeDecl>,
    pub symmetries: Vec<SymmetryDecl>,
    pub reductions: Vec<ReduceDecl>,
    pub discrete: Vec<DiscreteDecl>,
    /// `output(name = expr, ...)` items: the keyword and the named values.
    pub outputs: Vec<(Ident, Vec<Binding>)>,
    /// `crate = path`, if given: the path of routh in the user's crate (default `::routh`).
    pub krate: Option<syn::Path>,
    /// The description files read (`urdf = "path"`), by absolute path.
    pub described: Vec<String>,
    /// The joints' limits the description files give.
    pub limits_read: Vec<description::LimitsRead>,
}

impl RawModel {
    /// A model with nothing declared; `span` is blamed for model-level problems.
    pub fn empty(span: Span) -> RawModel {
        RawModel {
            span,
            coordinates_keyword: None,
            coordinates: Vec::new(),
            orientations: Vec::new(),
            orientation_after: Vec::new(),
            actions: Vec::new(),
            inputs: Vec::new(),
            sensitivities: Vec::new(),
            jacobian: None,
            dynamics: None,
            defines: Vec::new(),
            bodies: Vec::new(),
            joints: Vec::new(),
            contacts: Vec::new(),
            gravity: Vec::new(),
            lagrangians: Vec::new(),
            forces: Vec::new(),
            constraints: Vec::new(),
            impacts: Vec::new(),
            modes: Vec::new(),
            symmetries: Vec::new(),
            reductions: Vec::new(),
            discrete: Vec::new(),
            outputs: Vec::new(),
            krate: None,
            described: Vec::new(),
            limits_read: Vec::new(),
        }
    }

    /// Adds one parsed item.
    pub fn add(&mut self, item: Item) -> syn::Result<()> {
        match item {
            Item::Coordinates { keyword, names } => {
                self.coordinates_keyword.get_or_insert(keyword);
                self.coordinates.extend(names);
            }
            Item::Action { keyword, names } => self.actions.push((keyword, names)),
            Item::Orientation { keyword, names } => {
                self.orientation_after.push(self.coordinates.len());
                self.orientations.push((keyword, names));
            }
            Item::Input { keyword, names } => self.inputs.push((keyword, names)),
            Item::Sensitivity { keyword, names } => self.sensitivities.push((keyword, names)),
            Item::Jacobian { keyword } => {
                self.jacobian.get_or_insert(keyword);
            }
            Item::Define { bindings } => self.defines.extend(bindings),
            Item::Lagrangian { keyword, value } => self.lagrangians.push((keyword, value)),
            Item::Force { bindings } => self.forces.extend(bindings),
            Item::Output { keyword, bindings } => self.outputs.push((keyword, bindings)),
            Item::Constraint(c) => self.constraints.extend(c),
            Item::Body(b) => self.bodies.push(*b),
            Item::Joint(j) => self.joints.push(*j),
            Item::Urdf { path, asked } => self.import_urdf(&path, &asked)?,
            Item::Mjcf { path, asked } => self.import_mjcf(&path, &asked)?,
            Item::Closure(c) => self.constraints.extend(c.constraints()?),
            Item::Contact(c) => self.contacts.push(*c),
            Item::Gravity { keyword, value } => self.gravity.push((keyword, value)),
            Item::Dynamics { keyword, value } => {
                if self.dynamics.is_some() {
                    return Err(syn::Error::new(keyword.span(), "`dynamics = ...` is declared twice"));
                }
                self.dynamics = Some(value);
            }
            Item::Impact(decl) => self.impacts.push(decl),
            Item::Mode(m) => self.modes.push(*m),
            Item::Symmetry(s) => self.symmetries.extend(s),
            Item::Reduce(r) => self.reductions.push(r),
            Item::Discrete(d) => self.discrete.push(d),
            Item::Crate { keyword, path } => {
                if self.krate.is_some() {
                    return Err(syn::Error::new(keyword.span, "`crate = ...` is declared twice"));
                }
                self.krate = Some(path);
            }
        }
        Ok(())
    }
}

/// The value of `dynamics = recursive | dense | columns`.
fn dynamics(input: ParseStream) -> syn::Result<Ident> {
    let hint = "expected `dynamics = recursive` (the O(n) articulated-body recursion along the model's kinematic \
                tree), `dynamics = dense` (M q̈ = f, M from its entries, solved by Cholesky) or `dynamics = columns` \
                (M q̈ = f, M column by column from its products M eⱼ)";
    input.parse::<Token![=]>().map_err(|e| syn::Error::new(e.span(), hint))?;
    let value: Ident = input.parse().map_err(|e| syn::Error::new(e.span(), hint))?;
    if value != "recursive" && value != "dense" && value != "columns" {
        return Err(syn::Error::new(value.span(), format!("unknown dynamics `{value}`; {hint}")));
    }
    Ok(value)
}

/// Parses every `#[mechanics(...)]` attribute of the input.
pub fn parse_attributes(attrs: &[syn::Attribute], fallback: Span) -> syn::Result<RawModel> {
    let mut raw = RawModel::empty(fallback);
    let mut first = true;
    for attr in attrs.iter().filter(|a| a.path().is_ident("mechanics")) {
        if first {
            raw.span = attr.path().get_ident().map_or(fallback, Ident::span);
            first = false;
        }
        let items = attr.parse_args_with(Punctuated::<Item, Token![,]>::parse_terminated)?;
        for item in items {
            raw.add(item)?;
        }
    }
    raw.expand_joints()?;
    Ok(raw)
}

#[cfg(test)]
mod tests {
    use proc_macro2::{Delimiter, Group, TokenStream, TokenTree};
    use quote::quote;

    /// `(x + (x + … (x) …))` nested `depth` deep, built without recursion.
    fn nested(depth: usize) -> TokenStream {
        let mut e: TokenStream = quote!(x);
        for _ in 0..depth {
            let inner = TokenTree::Group(Group::new(Delimiter::Parenthesis, e));
            e = quote!(x + #inner);
        }
        quote! { #[mechanics(coordinates(x), lagrangian = dot(x).powi(2) / 2 - k * #e)] struct Deep { k: f64 } }
    }

    #[test]
    fn nesting_beyond_the_limit_is_an_error_and_below_it_is_not() {
        // On a large stack: dropping a deep token tree recurses as well.
        let run = std::thread::Builder::new().stack_size(1 << 28).spawn(|| {
            // 2 000 nested parentheses (the big-model test's depth) pass; 30 000 (weight 150 000) do not.
            assert!(super::check_nesting(&nested(2_000)).is_ok());
            let err = super::check_nesting(&nested(30_000)).unwrap_err();
            assert!(err.to_string().contains("nested too deeply"), "{err}");
            // A long flat sum is one path per operator; many short expressions are not.
            let flat: TokenStream = (0..120_000).map(|_| quote!(x+)).chain([quote!(x)]).collect();
            assert!(
                super::check_nesting(&quote!(
                    #[mechanics(lagrangian = #flat)]
                    struct S;
                ))
                .is_err()
            );
            let many: TokenStream = (0..120_000).map(|_| quote!(a = x + x,)).collect();
            assert!(
                super::check_nesting(&quote!(
                    #[mechanics(define(#many))]
                    struct S;
                ))
                .is_ok()
            );
        });
        run.unwrap().join().unwrap();
    }
}
