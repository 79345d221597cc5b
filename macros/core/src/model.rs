//! The validated model: names checked, expressions lowered to symbolic form.
//!
//! Symbols in the arena are named `q:<coord>`, `v:<coord>` (velocity q̇), `a:<coord>` (acceleration
//! q̈, used only for the Jacobian), `p:<param>` and `t`; [`Model::role`] maps them back.

use proc_macro2::TokenStream;
use rustc_hash::FxHashMap;
use symbolic::{Arena, Expr};
use syn::spanned::Spanned;
use syn::{Data, DeriveInput, Fields, Ident, Type};

use crate::diagnostics::closest;
use crate::lower::{Lowerer, Symbols};
use crate::parse::{RawModel, parse_attributes};

/// What a symbol of the arena stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    Time,
    Coordinate(usize),
    Velocity(usize),
    Acceleration(usize),
    Parameter(usize),
    /// Differential dqₖ inside a one-form.
    Differential(usize),
    /// dt inside a one-form.
    TimeDifferential,
    /// Post-impact velocity q̇⁺ₖ (impact-law Jacobians).
    PostVelocity(usize),
    /// Impulse multiplier λₖ of an impact law.
    Multiplier(usize),
}

/// An impact law, lowered.
pub enum Law {
    /// Rows of the generalized Newton law A q̇⁺ + b = −E (A q̇⁻ + b): each a one-form in the
    /// differentials (None: the guard's own differential dh) and its coefficient.
    Restitution(Vec<(Option<Expr>, Expr)>),
    /// Explicit post-impact velocities, one per coordinate (unchanged ones are the q̇ symbol).
    Map(Vec<Expr>),
    /// A transition's chart change: the target mode's positions and velocities, as functions of
    /// the source state.
    Chart { positions: Vec<Expr>, velocities: Vec<Expr> },
}

/// A unilateral constraint h(t, q) ≥ 0 with its impact law (for a transition, into another mode).
pub struct Impact {
    pub name: Ident,
    pub guard: Expr,
    pub law: Law,
    /// The mode a transition leads to (None: an impact that stays in its mode).
    pub target: Option<usize>,
    /// Source tokens of the law, for docs and errors.
    pub law_text: String,
}

/// How generated code reaches a model's parameters: a single-mode model is its own struct; a mode
/// of a multi-mode model is a view type `<Model><Mode><'a>(&'a Model)`.
pub struct Owner {
    /// The type in `impl` headers, e.g. `Ball` or `HopperStance<'a>`.
    pub ty: proc_macro2::TokenStream,
    /// Generics of `impl` headers, e.g. `<'a>` (empty for a plain struct).
    pub generics: proc_macro2::TokenStream,
    /// The expression that has the parameters as fields: `self` or `self.0`.
    pub access: proc_macro2::TokenStream,
    /// For a mode: its index and name.
    pub mode: Option<(usize, Ident)>,
}

/// A transition's target: mode index and name, and its coordinates.
pub struct Target {
    pub mode: usize,
    pub name: Ident,
    pub coordinates: Vec<Ident>,
}

/// The derive input: one model, or several modes joined by transitions.
pub enum System {
    Single(Box<Model>),
    Multi { name: Ident, vis: syn::Visibility, modes: Vec<Model> },
}

/// A declared symmetry: an infinitesimal generator ξ_Q(q) on the configuration space.
pub struct Symmetry {
    pub name: Ident,
    /// ξ component per coordinate.
    pub generator: Vec<Expr>,
    /// For `cyclic(q)`: the coordinate's index.
    pub cyclic: Option<usize>,
    /// The symmetry's name as written (the coordinate of `cyclic(q)`), blamed in errors.
    pub tokens: proc_macro2::TokenStream,
}

/// A requested Routh reduction over cyclic coordinates.
pub struct Reduction {
    pub keyword: Ident,
    /// Indices of the cyclic coordinates, with the identifiers as written (for errors).
    pub cyclic: Vec<(usize, Ident)>,
    /// Name of the generated reduced type.
    pub name: Ident,
}

/// A model ready for derivation.
pub struct Model {
    pub name: Ident,
    pub owner: Owner,
    pub parameters: Vec<Ident>,
    pub coordinates: Vec<Ident>,
    pub arena: Arena,
    pub syms: Symbols,
    /// q̈ symbols (only used by the Jacobian derivation).
    pub qdd: Vec<Expr>,
    pub lagrangian: Expr,
    /// The Lagrangian's source tokens, to blame in model-level errors.
    pub lagrangian_tokens: proc_macro2::TokenStream,
    /// Generalized force Qᵢ per coordinate (0 when not given).
    pub force: Vec<Expr>,
    /// Differentials dqₖ and dt (for one-forms).
    pub dq: Vec<Expr>,
    pub dt: Expr,
    pub impacts: Vec<Impact>,
    pub symmetries: Vec<Symmetry>,
    pub reductions: Vec<Reduction>,
    /// Visibility of the model struct (for generated types).
    pub vis: syn::Visibility,
    roles: FxHashMap<Expr, Role>,
}

impl Model {
    /// Degrees of freedom n.
    pub fn dof(&self) -> usize {
        self.coordinates.len()
    }

    /// The role of a symbol.
    pub fn role(&self, sym: Expr) -> Option<Role> {
        self.roles.get(&sym).copied()
    }

    /// A model assembled directly from symbolic pieces (e.g. a Routh-reduced system): `q`, `qd`,
    /// `qdd`, `params` are symbols of `arena` for the coordinates, velocities, accelerations and
    /// parameters (in the order of `coordinates` and `parameters`).
    #[allow(clippy::too_many_arguments, clippy::needless_range_loop)]
    pub fn assemble(
        name: Ident,
        owner: Owner,
        vis: syn::Visibility,
        mut arena: Arena,
        coordinates: Vec<Ident>,
        parameters: Vec<Ident>,
        syms: Symbols,
        qdd: Vec<Expr>,
        lagrangian: Expr,
        lagrangian_tokens: proc_macro2::TokenStream,
        force: Vec<Expr>,
    ) -> Model {
        let mut roles = FxHashMap::default();
        roles.insert(syms.t, Role::Time);
        for i in 0..syms.q.len() {
            roles.insert(syms.q[i], Role::Coordinate(i));
            roles.insert(syms.qd[i], Role::Velocity(i));
            roles.insert(qdd[i], Role::Acceleration(i));
        }
        for (i, &p) in syms.params.iter().enumerate() {
            roles.insert(p, Role::Parameter(i));
        }
        let dq: Vec<Expr> = coordinates.iter().map(|c| arena.symbol(&format!("d:{c}"))).collect();
        let dt = arena.symbol("d:t");
        for (i, &d) in dq.iter().enumerate() {
            roles.insert(d, Role::Differential(i));
        }
        roles.insert(dt, Role::TimeDifferential);
        Model {
            name,
            owner,
            parameters,
            coordinates,
            arena,
            syms,
            qdd,
            lagrangian,
            lagrangian_tokens,
            force,
            dq,
            dt,
            impacts: Vec::new(),
            symmetries: Vec::new(),
            reductions: Vec::new(),
            vis,
            roles,
        }
    }

    /// A read-only stand-in for `model` over another arena that extends its arena (for printing
    /// expressions built in a copy of the arena, e.g. during reduction).
    pub fn assemble_view(model: &Model, arena: &Arena) -> Model {
        let mut view = Model::assemble(
            model.name.clone(),
            Owner { ty: TokenStream::new(), generics: TokenStream::new(), access: quote::quote!(self), mode: None },
            model.vis.clone(),
            arena.clone(),
            model.coordinates.clone(),
            model.parameters.clone(),
            Symbols { t: model.syms.t, q: model.syms.q.clone(), qd: model.syms.qd.clone(), params: model.syms.params.clone() },
            model.qdd.clone(),
            model.lagrangian,
            TokenStream::new(),
            model.force.clone(),
        );
        view.roles.extend(model.roles.iter().map(|(k, v)| (*k, *v)));
        view
    }

    /// The symbol named `name` with `role` (created on first use).
    pub fn symbol(&mut self, name: &str, role: Role) -> Expr {
        let s = self.arena.symbol(name);
        self.roles.insert(s, role);
        s
    }

    /// Validates and lowers one (merged) model description. `transitions` are the transitions
    /// leaving this mode, with their targets.
    fn from_raw(
        name: &Ident,
        vis: &syn::Visibility,
        owner: Owner,
        parameters: &[Ident],
        raw: &RawModel,
        transitions: &[(&crate::parse::ImpactDecl, Target)],
    ) -> syn::Result<Model> {
        let mut errors: Vec<syn::Error> = Vec::new();
        check_names(raw, parameters, &mut errors);
        if let Some(e) = combine(errors) {
            return Err(e);
        }
        let parameters = parameters.to_vec();
        let raw = RawModel {
            span: raw.span,
            coordinates_keyword: raw.coordinates_keyword.clone(),
            coordinates: raw.coordinates.clone(),
            defines: raw.defines.clone(),
            lagrangians: raw.lagrangians.clone(),
            forces: raw.forces.clone(),
            impacts: raw.impacts.clone(),
            modes: Vec::new(),
            symmetries: raw.symmetries.clone(),
            reductions: raw.reductions.clone(),
        };

        let mut arena = Arena::new();
        let t = arena.symbol("t");
        let q: Vec<Expr> = raw.coordinates.iter().map(|c| arena.symbol(&format!("q:{c}"))).collect();
        let qd: Vec<Expr> = raw.coordinates.iter().map(|c| arena.symbol(&format!("v:{c}"))).collect();
        let qdd: Vec<Expr> = raw.coordinates.iter().map(|c| arena.symbol(&format!("a:{c}"))).collect();
        let params: Vec<Expr> = parameters.iter().map(|p| arena.symbol(&format!("p:{p}"))).collect();
        // The differentials dq, dt of one-forms (roles assigned by `assemble`, same hash-consed symbols).
        let dq: Vec<Expr> = raw.coordinates.iter().map(|c| arena.symbol(&format!("d:{c}"))).collect();
        let dt = arena.symbol("d:t");
        let syms = Symbols { t, q, qd, params };

        let (lagrangian, lagrangian_tokens, force, impacts, symmetries, reductions) = {
            let mut lower = Lowerer::new(&mut arena, &syms, &raw.coordinates, &parameters, &raw.defines);
            let mut errors = Vec::new();
            // Lower every define, used or not, so that mistakes in them are reported.
            for (i, d) in raw.defines.iter().enumerate() {
                if let Err(e) = lower.define(i, d.name.span()) {
                    errors.push(e);
                }
            }
            let (lag_kw, lag_expr) = &raw.lagrangians[0];
            let lagrangian = lower.lower(lag_expr).map_err(|e| errors.push(e)).ok();
            let mut force = vec![None; raw.coordinates.len()];
            for b in &raw.forces {
                let i = raw.coordinates.iter().position(|c| *c == b.name).unwrap_or(0);
                match lower.lower(&b.value) {
                    Ok(e) => force[i] = Some(e),
                    Err(e) => errors.push(e),
                }
            }
            let mut impacts = Vec::new();
            for decl in &raw.impacts {
                match lower_impact(&mut lower, decl, &parameters, &dq, dt, None) {
                    Ok(i) => impacts.push(i),
                    Err(e) => errors.push(e),
                }
            }
            for (decl, target) in transitions {
                match lower_impact(&mut lower, decl, &parameters, &dq, dt, Some(target)) {
                    Ok(i) => impacts.push(i),
                    Err(e) => errors.push(e),
                }
            }
            let mut symmetries = Vec::new();
            for decl in &raw.symmetries {
                match lower_symmetry(&mut lower, decl, &raw.coordinates) {
                    Ok(s) => symmetries.push(s),
                    Err(e) => errors.push(e),
                }
            }
            for (i, sym) in symmetries.iter().enumerate() {
                if symmetries[..i].iter().any(|o: &Symmetry| o.name == sym.name) {
                    errors.push(syn::Error::new(sym.name.span(), format!("two symmetries are named `{}`", sym.name)));
                }
            }
            let mut reductions = Vec::new();
            for decl in &raw.reductions {
                let mut cyclic = Vec::new();
                for c in &decl.cyclic {
                    match raw.coordinates.iter().position(|x| x == c) {
                        Some(k) if cyclic.iter().any(|(j, _)| *j == k) => {
                            errors.push(syn::Error::new(c.span(), format!("`{c}` is listed twice")));
                        }
                        Some(k) => cyclic.push((k, c.clone())),
                        None => errors.push(unknown_coordinate(c, &raw.coordinates)),
                    }
                }
                if decl.cyclic.is_empty() {
                    errors.push(syn::Error::new(decl.keyword.span(), "name the cyclic coordinates: `routh(theta, ...)`"));
                }
                let rname = decl.name.clone().unwrap_or_else(|| quote::format_ident!("{}Routh", name));
                reductions.push(Reduction { keyword: decl.keyword.clone(), cyclic, name: rname });
            }
            for (i, imp) in impacts.iter().enumerate() {
                if impacts[..i].iter().any(|o| o.name == imp.name) {
                    errors.push(syn::Error::new(imp.name.span(), format!("two impacts are named `{}`", imp.name)));
                }
            }
            if let Some(e) = combine(errors) {
                return Err(e);
            }
            let zero = lower.arena.zero();
            let force: Vec<Expr> = force.into_iter().map(|f| f.unwrap_or(zero)).collect();
            (lagrangian.unwrap_or(zero), quote::quote!(#lag_kw = #lag_expr), force, impacts, symmetries, reductions)
        };

        let mut model = Model::assemble(
            name.clone(),
            owner,
            vis.clone(),
            arena,
            raw.coordinates,
            parameters,
            syms,
            qdd,
            lagrangian,
            lagrangian_tokens,
            force,
        );
        model.impacts = impacts;
        model.symmetries = symmetries;
        model.reductions = reductions;
        Ok(model)
    }
}

/// Validates the derive input and lowers every expression: one model, or one per mode.
pub fn system_from_input(input: &DeriveInput) -> syn::Result<System> {
    if !input.generics.params.is_empty() {
        return Err(syn::Error::new(
            input.generics.span(),
            "#[derive(Mechanics)] does not support generic structs: parameters are plain `f64` fields",
        ));
    }
    let parameters = parameters(input)?;
    let raw = parse_attributes(&input.attrs, input.ident.span())?;
    let name = &input.ident;
    let (transitions, impacts): (Vec<_>, Vec<_>) = raw.impacts.iter().partition(|d| d.keyword == "transition");
    if raw.modes.is_empty() {
        if let Some(t) = transitions.first() {
            return Err(syn::Error::new(
                t.keyword.span(),
                "a `transition` joins two modes, but this model has none; declare them with `mode(name, ...)`, or use `impact(...)`",
            ));
        }
        let owner = Owner { ty: quote::quote!(#name), generics: quote::quote!(), access: quote::quote!(self), mode: None };
        return Ok(System::Single(Box::new(Model::from_raw(name, &input.vis, owner, &parameters, &raw, &[])?)));
    }
    if let Some(i) = impacts.first() {
        return Err(syn::Error::new(
            i.keyword.span(),
            "in a model with modes, declare each `impact(...)` inside its `mode(...)`",
        ));
    }
    if let Some(s) = raw.symmetries.first() {
        return Err(syn::Error::new(s.name.span(), "symmetries of multi-mode models are not supported yet"));
    }
    if let Some(r) = raw.reductions.first() {
        return Err(syn::Error::new(r.keyword.span(), "reduction of multi-mode models is not supported yet"));
    }
    let mode_names: Vec<String> = raw.modes.iter().map(|m| m.name.to_string()).collect();
    let mut errors = Vec::new();
    for (i, m) in raw.modes.iter().enumerate() {
        if mode_names[..i].contains(&mode_names[i]) {
            errors.push(syn::Error::new(m.name.span(), format!("two modes are named `{}`", m.name)));
        }
    }
    // Each mode's description: its own items, falling back to the top level's coordinates,
    // Lagrangian and forces; defines are shared.
    let merged: Vec<RawModel> = raw
        .modes
        .iter()
        .map(|m| {
            let own = &m.items;
            let inherit_coordinates = own.coordinates.is_empty() && own.coordinates_keyword.is_none();
            let mut defines = raw.defines.clone();
            defines.extend(own.defines.iter().cloned());
            RawModel {
                span: m.name.span(),
                coordinates_keyword: if inherit_coordinates { raw.coordinates_keyword.clone() } else { own.coordinates_keyword.clone() },
                coordinates: if inherit_coordinates { raw.coordinates.clone() } else { own.coordinates.clone() },
                defines,
                lagrangians: if own.lagrangians.is_empty() { raw.lagrangians.clone() } else { own.lagrangians.clone() },
                forces: if own.forces.is_empty() && inherit_coordinates { raw.forces.clone() } else { own.forces.clone() },
                impacts: own.impacts.clone(),
                modes: Vec::new(),
                symmetries: Vec::new(),
                reductions: Vec::new(),
            }
        })
        .collect();
    // Resolve transitions' modes.
    let find = |id: &Ident| -> syn::Result<usize> {
        mode_names.iter().position(|m| id == m).ok_or_else(|| {
            let hint = match closest(&id.to_string(), mode_names.iter().map(String::as_str)) {
                Some(c) => format!("; did you mean `{c}`?"),
                None => String::new(),
            };
            syn::Error::new(id.span(), format!("unknown mode `{id}`{hint} Modes: {}", mode_names.join(", ")))
        })
    };
    let mut resolved: Vec<(usize, &crate::parse::ImpactDecl, Target)> = Vec::new();
    for t in &transitions {
        let Some((from, to)) = &t.modes else { continue };
        match (find(from), find(to)) {
            (Ok(f), Ok(k)) => resolved.push((
                f,
                t,
                Target { mode: k, name: to.clone(), coordinates: merged[k].coordinates.clone() },
            )),
            (a, b) => errors.extend(a.err().into_iter().chain(b.err())),
        }
    }
    if let Some(e) = combine(errors) {
        return Err(e);
    }
    let mut modes = Vec::new();
    let mut errors = Vec::new();
    for (k, (m, raw_k)) in raw.modes.iter().zip(&merged).enumerate() {
        let view = mode_type(name, &m.name);
        let owner = Owner {
            ty: quote::quote!(#view<'a>),
            generics: quote::quote!(<'a>),
            access: quote::quote!(self.0),
            mode: Some((k, m.name.clone())),
        };
        let mut outgoing = Vec::new();
        for (f, decl, target) in &resolved {
            if *f == k {
                outgoing.push((*decl, Target { mode: target.mode, name: target.name.clone(), coordinates: target.coordinates.clone() }));
            }
        }
        match Model::from_raw(name, &input.vis, owner, &parameters, raw_k, &outgoing) {
            Ok(model) => modes.push(model),
            Err(e) => errors.push(e),
        }
    }
    if let Some(e) = combine(errors) {
        return Err(e);
    }
    Ok(System::Multi { name: name.clone(), vis: input.vis.clone(), modes })
}

/// The view type of mode `mode` of model `name`: `Hopper` + `flight` → `HopperFlight`.
pub fn mode_type(name: &Ident, mode: &Ident) -> Ident {
    let m = mode.to_string();
    let camel: String = m
        .split('_')
        .filter(|w| !w.is_empty())
        .map(|w| {
            let mut c = w.chars();
            c.next().map(|f| f.to_uppercase().chain(c).collect::<String>()).unwrap_or_default()
        })
        .collect();
    quote::format_ident!("{name}{camel}")
}

/// Combines several errors into one (each keeps its own span).
pub fn combine(errors: Vec<syn::Error>) -> Option<syn::Error> {
    let mut it = errors.into_iter();
    let mut first = it.next()?;
    for e in it {
        first.combine(e);
    }
    Some(first)
}

/// The struct's fields, which must all be `f64` parameters.
fn parameters(input: &DeriveInput) -> syn::Result<Vec<Ident>> {
    let data = match &input.data {
        Data::Struct(s) => s,
        _ => {
            return Err(syn::Error::new(
                input.ident.span(),
                "#[derive(Mechanics)] applies to a struct whose named `f64` fields are the model's parameters",
            ));
        }
    };
    let fields = match &data.fields {
        Fields::Named(named) => named.named.iter().collect::<Vec<_>>(),
        Fields::Unit => Vec::new(),
        Fields::Unnamed(u) => {
            return Err(syn::Error::new(
                u.span(),
                "tuple structs are not supported: parameters need names, e.g. `struct Pendulum { l: f64, g: f64 }`",
            ));
        }
    };
    let mut errors = Vec::new();
    let mut names = Vec::new();
    for f in fields {
        let is_f64 = matches!(&f.ty, Type::Path(p) if p.qself.is_none() && p.path.is_ident("f64"));
        if !is_f64 {
            errors.push(syn::Error::new(
                f.ty.span(),
                "model parameters must be `f64` fields; move other data out of the model struct",
            ));
        }
        if let Some(id) = &f.ident {
            names.push(id.clone());
        }
    }
    match combine(errors) {
        Some(e) => Err(e),
        None => Ok(names),
    }
}

/// Name-level checks: coordinates present and unique, no shadowing, forces name coordinates,
/// exactly one Lagrangian.
fn check_names(raw: &RawModel, parameters: &[Ident], errors: &mut Vec<syn::Error>) {
    let is_param = |id: &Ident| parameters.iter().any(|p| p == id);
    if raw.coordinates.is_empty() {
        let span = raw.coordinates_keyword.as_ref().map_or(raw.span, Ident::span);
        errors.push(syn::Error::new(
            span,
            "the model has no coordinates; declare them with `coordinates(q1, q2, ...)`",
        ));
    }
    for (i, c) in raw.coordinates.iter().enumerate() {
        if raw.coordinates[..i].contains(c) {
            errors.push(syn::Error::new(c.span(), format!("duplicate coordinate `{c}`")));
        }
        if is_param(c) {
            errors.push(syn::Error::new(
                c.span(),
                format!("coordinate `{c}` shadows the parameter (struct field) of the same name; rename one of them"),
            ));
        }
        if c == "t" {
            errors.push(syn::Error::new(c.span(), "`t` is time and cannot be a coordinate"));
        }
        if c == "dot" {
            errors.push(syn::Error::new(c.span(), "`dot` is the time derivative and cannot be a coordinate"));
        }
    }
    for p in parameters {
        if p == "t" {
            errors.push(syn::Error::new(p.span(), "a parameter cannot be named `t`: `t` is time in the model's expressions"));
        }
    }
    for (i, d) in raw.defines.iter().enumerate() {
        let name = &d.name;
        if is_param(name) {
            errors.push(syn::Error::new(
                name.span(),
                format!("`define` of `{name}` shadows the parameter (struct field) of the same name; choose another name"),
            ));
        } else if raw.coordinates.contains(name) {
            errors.push(syn::Error::new(
                name.span(),
                format!("`define` of `{name}` shadows the coordinate of the same name; choose another name"),
            ));
        } else if name == "t" {
            errors.push(syn::Error::new(name.span(), "`t` is time and cannot be redefined"));
        } else if raw.defines[..i].iter().any(|o| o.name == *name) {
            errors.push(syn::Error::new(name.span(), format!("`{name}` is defined twice")));
        }
    }
    match raw.lagrangians.len() {
        0 => errors.push(syn::Error::new(
            raw.span,
            "the model has no Lagrangian; add `lagrangian = <kinetic minus potential energy>` to #[mechanics(...)]",
        )),
        1 => {}
        _ => {
            for (kw, _) in &raw.lagrangians[1..] {
                errors.push(syn::Error::new(kw.span(), "the Lagrangian is given more than once"));
            }
        }
    }
    for (i, b) in raw.forces.iter().enumerate() {
        let name = &b.name;
        if !raw.coordinates.contains(name) {
            let hint = match closest(&name.to_string(), raw.coordinates.iter().map(|c| c.to_string()).collect::<Vec<_>>().iter().map(String::as_str)) {
                Some(c) => format!("; did you mean `{c}`?"),
                None => String::new(),
            };
            let coords: Vec<String> = raw.coordinates.iter().map(ToString::to_string).collect();
            errors.push(syn::Error::new(
                name.span(),
                format!("force on unknown coordinate `{name}`{hint} Coordinates: {}", coords.join(", ")),
            ));
        } else if raw.forces[..i].iter().any(|o| o.name == *name) {
            errors.push(syn::Error::new(
                name.span(),
                format!("force on `{name}` is given twice; add the terms in one expression"),
            ));
        }
    }
}

/// Validates and lowers one `impact(...)`.
fn lower_impact(
    lower: &mut Lowerer<'_>,
    decl: &crate::parse::ImpactDecl,
    parameters: &[Ident],
    dq: &[Expr],
    dt: Expr,
    target: Option<&Target>,
) -> syn::Result<Impact> {
    use crate::parse::LawDecl;
    let missing = |what: &str, example: &str| {
        syn::Error::new(decl.keyword.span(), format!("this impact has no `{what}`; add `{what} = {example}`"))
    };
    let name = match (&decl.name, &decl.modes) {
        (Some(n), _) => n.clone(),
        (None, Some((from, to))) => quote::format_ident!("{from}_to_{to}", span = decl.keyword.span()),
        (None, None) => return Err(missing("name", "floor")),
    };
    let guard_src = decl.guard.as_ref().ok_or_else(|| missing("guard", "y - r"))?;
    let law_decl = decl.law.as_ref().ok_or_else(|| missing("law", "restitution(e)"))?;
    let guard = lower.lower(guard_src)?;
    if let Some(v) = lower.velocity_in(guard) {
        return Err(syn::Error::new_spanned(
            guard_src,
            format!(
                "a guard must be a function of the coordinates and time (a surface h(t, q) = 0), but this depends \
                 on the velocity `dot({v})`"
            ),
        ));
    }
    let coordinates: Vec<String> = (0..dq.len()).map(|k| lower.coordinate_name(k).to_string()).collect();
    if let Some(target) = target {
        let same = target.coordinates.iter().map(ToString::to_string).collect::<Vec<_>>() == coordinates;
        if !same && !matches!(law_decl, LawDecl::Reset { .. }) {
            return Err(syn::Error::new(
                decl.keyword.span(),
                format!(
                    "mode `{}` has other coordinates than this transition's source, so the law must give the new state \
                     with `law = reset(q = ..., dot(q) = ...)`",
                    target.name
                ),
            ));
        }
    }
    let law = match law_decl {
        LawDecl::Restitution { rows, .. } => {
            let mut lowered = Vec::new();
            let mut normal_rows = 0;
            for (form, coefficient) in rows {
                check_coefficient(coefficient, parameters)?;
                let e = lower.lower(coefficient)?;
                let form = match form {
                    None => {
                        normal_rows += 1;
                        if normal_rows > 1 {
                            return Err(syn::Error::new_spanned(
                                coefficient,
                                "only one row may omit its one-form (it means the guard's own normal dh)",
                            ));
                        }
                        None
                    }
                    Some(f) => {
                        let w = lower.lower_oneform(f, dq, dt)?;
                        if let Some(v) = lower.velocity_in(w) {
                            return Err(syn::Error::new_spanned(
                                f,
                                format!("one-form coefficients must be functions of the coordinates and time, but this depends on `dot({v})`"),
                            ));
                        }
                        check_linear_oneform(lower, w, dq, dt, f)?;
                        Some(w)
                    }
                };
                lowered.push((form, e));
            }
            Law::Restitution(lowered)
        }
        LawDecl::Map { assignments, .. } => {
            let mut velocities: Vec<Option<Expr>> = vec![None; dq.len()];
            for (lhs, rhs) in assignments {
                let k = map_target(lhs, &coordinates)?;
                if velocities[k].is_some() {
                    return Err(syn::Error::new_spanned(lhs, format!("`dot({})` is assigned twice", coordinates[k])));
                }
                velocities[k] = Some(lower.lower(rhs)?);
            }
            Law::Map(velocities.into_iter().enumerate().map(|(k, v)| v.unwrap_or(lower.syms.qd[k])).collect())
        }
        LawDecl::Reset { keyword, assignments } => {
            let Some(target) = target else {
                return Err(syn::Error::new(
                    keyword.span(),
                    "`reset(...)` gives the new state of a `transition` between modes; an impact uses `map(...)` or `restitution(...)`",
                ));
            };
            lower_chart(lower, keyword, assignments, target, &coordinates)?
        }
    };
    let law_text = match law_decl {
        LawDecl::Restitution { keyword, .. } | LawDecl::Map { keyword, .. } | LawDecl::Reset { keyword, .. } => {
            keyword.to_string()
        }
    };
    Ok(Impact { name, guard, law, target: target.map(|t| t.mode), law_text })
}

/// A restitution coefficient is a parameter or a non-negative literal.
fn check_coefficient(e: &syn::Expr, parameters: &[Ident]) -> syn::Result<()> {
    match e {
        syn::Expr::Lit(l) if matches!(l.lit, syn::Lit::Int(_) | syn::Lit::Float(_)) => Ok(()),
        syn::Expr::Path(p) if p.path.get_ident().is_some_and(|i| parameters.contains(i)) => Ok(()),
        _ => Err(syn::Error::new_spanned(
            e,
            "a restitution coefficient must be a parameter (struct field) or a number literal such as `0.8`",
        )),
    }
}

/// The coordinate index of `dot(q)` on the left of a `map` assignment.
fn map_target(lhs: &syn::Expr, coordinates: &[String]) -> syn::Result<usize> {
    let wrong = || syn::Error::new_spanned(lhs, "expected `dot(q)` of a coordinate `q` on the left of `=` in `map(...)`");
    let syn::Expr::Call(call) = lhs else { return Err(wrong()) };
    let is_dot = matches!(&*call.func, syn::Expr::Path(p) if p.path.is_ident("dot"));
    if !is_dot || call.args.len() != 1 {
        return Err(wrong());
    }
    let Some(syn::Expr::Path(p)) = call.args.first() else { return Err(wrong()) };
    let Some(ident) = p.path.get_ident() else { return Err(wrong()) };
    let name = ident.to_string();
    coordinates.iter().position(|c| *c == name).ok_or_else(|| {
        let hint = match closest(&name, coordinates.iter().map(String::as_str)) {
            Some(c) => format!("; did you mean `{c}`?"),
            None => String::new(),
        };
        syn::Error::new(
            ident.span(),
            format!("the reset names unknown coordinate `{name}`{hint} Coordinates: {}", coordinates.join(", ")),
        )
    })
}

/// A one-form must be linear in the differentials, with no part free of them.
fn check_linear_oneform(lower: &mut Lowerer<'_>, w: Expr, dq: &[Expr], dt: Expr, src: &syn::Expr) -> syn::Result<()> {
    let mut rebuilt = Vec::new();
    let mut all: Vec<Expr> = dq.to_vec();
    all.push(dt);
    for &d in &all {
        let c = lower.arena.diff(w, d);
        if all.iter().any(|&d2| lower.arena.depends_on(c, d2)) {
            return Err(syn::Error::new_spanned(src, "a one-form must be linear in the differentials `dq` and `dt`"));
        }
        let term = lower.arena.mul2(c, d);
        rebuilt.push(term);
    }
    let sum = lower.arena.add(&rebuilt);
    let rest = lower.arena.sub(w, sum);
    if !lower.arena.zero_test(rest).is_zero() {
        return Err(syn::Error::new_spanned(
            src,
            "a one-form is a combination of differentials such as `dx - r * dphi`; this has a part without any `d<coordinate>` or `dt`",
        ));
    }
    if rebuilt.iter().all(|&t| lower.arena.zero_test(t).is_zero()) {
        return Err(syn::Error::new_spanned(src, "this one-form is zero"));
    }
    Ok(())
}

/// Lowers `reset(q = ..., dot(q) = ...)`: every coordinate and velocity of the target mode, with
/// same-named source coordinates carried over when not given.
fn lower_chart(
    lower: &mut Lowerer<'_>,
    keyword: &Ident,
    assignments: &[(syn::Expr, syn::Expr)],
    target: &Target,
    source: &[String],
) -> syn::Result<Law> {
    let names: Vec<String> = target.coordinates.iter().map(ToString::to_string).collect();
    let n = names.len();
    let mut positions: Vec<Option<Expr>> = vec![None; n];
    let mut velocities: Vec<Option<Expr>> = vec![None; n];
    for (lhs, rhs) in assignments {
        let (is_velocity, ident) = match lhs {
            syn::Expr::Path(p) if p.path.get_ident().is_some() => (false, p.path.get_ident().cloned()),
            syn::Expr::Call(c) if matches!(&*c.func, syn::Expr::Path(f) if f.path.is_ident("dot")) && c.args.len() == 1 => {
                match c.args.first() {
                    Some(syn::Expr::Path(p)) => (true, p.path.get_ident().cloned()),
                    _ => (true, None),
                }
            }
            _ => (false, None),
        };
        let Some(ident) = ident else {
            return Err(syn::Error::new_spanned(lhs, "expected `q` or `dot(q)` of a coordinate of the target mode"));
        };
        let Some(k) = names.iter().position(|c| ident == c) else {
            let hint = match closest(&ident.to_string(), names.iter().map(String::as_str)) {
                Some(c) => format!("; did you mean `{c}`?"),
                None => String::new(),
            };
            return Err(syn::Error::new(
                ident.span(),
                format!("the reset names unknown coordinate `{ident}` of mode `{}`{hint} Its coordinates: {}", target.name, names.join(", ")),
            ));
        };
        let slot = if is_velocity { &mut velocities[k] } else { &mut positions[k] };
        if slot.is_some() {
            return Err(syn::Error::new_spanned(lhs, "this component of the new state is given twice"));
        }
        *slot = Some(lower.lower(rhs)?);
    }
    let mut missing = Vec::new();
    let mut fill = |v: Vec<Option<Expr>>, velocity: bool, lower: &mut Lowerer<'_>| -> Vec<Expr> {
        v.into_iter()
            .enumerate()
            .map(|(k, e)| {
                e.unwrap_or_else(|| match source.iter().position(|c| *c == names[k]) {
                    Some(j) => {
                        if velocity { lower.syms.qd[j] } else { lower.syms.q[j] }
                    }
                    None => {
                        missing.push(if velocity { format!("dot({})", names[k]) } else { names[k].clone() });
                        lower.arena.zero()
                    }
                })
            })
            .collect()
    };
    let positions = fill(positions, false, lower);
    let velocities = fill(velocities, true, lower);
    if !missing.is_empty() {
        return Err(syn::Error::new(
            keyword.span(),
            format!(
                "this reset gives {} of the {} components of mode `{}`'s state; missing: {} (components of the source \
                 state with the same name carry over)",
                2 * n - missing.len(),
                2 * n,
                target.name,
                missing.join(", ")
            ),
        ));
    }
    Ok(Law::Chart { positions, velocities })
}

/// "unknown coordinate" with the closest coordinate as a hint.
fn unknown_coordinate(c: &Ident, coordinates: &[Ident]) -> syn::Error {
    let names: Vec<String> = coordinates.iter().map(ToString::to_string).collect();
    let hint = match closest(&c.to_string(), names.iter().map(String::as_str)) {
        Some(h) => format!("; did you mean `{h}`?"),
        None => String::new(),
    };
    syn::Error::new(c.span(), format!("unknown coordinate `{c}`{hint} Coordinates: {}", names.join(", ")))
}

/// Lowers a symmetry's generator ξ_Q(q): components must be functions of the coordinates only.
fn lower_symmetry(lower: &mut Lowerer<'_>, decl: &crate::parse::SymmetryDecl, coordinates: &[Ident]) -> syn::Result<Symmetry> {
    let n = coordinates.len();
    let zero = lower.arena.zero();
    let mut generator = vec![zero; n];
    let tokens;
    let mut cyclic = None;
    if let Some(q) = &decl.cyclic {
        let k = coordinates.iter().position(|c| c == q).ok_or_else(|| unknown_coordinate(q, coordinates))?;
        generator[k] = lower.arena.one();
        cyclic = Some(k);
        tokens = quote::quote!(#q);
    } else {
        let name = &decl.name;
        tokens = quote::quote!(#name);
        let mut given = vec![false; n];
        for b in &decl.components {
            let k = coordinates.iter().position(|c| *c == b.name).ok_or_else(|| unknown_coordinate(&b.name, coordinates))?;
            if given[k] {
                return Err(syn::Error::new(b.name.span(), format!("the component along `{}` is given twice", b.name)));
            }
            given[k] = true;
            let e = lower.lower(&b.value)?;
            if let Some(v) = lower.velocity_in(e) {
                return Err(syn::Error::new_spanned(
                    &b.value,
                    format!("a generator ξ_Q(q) is a vector field on configuration space; this depends on `dot({v})`"),
                ));
            }
            if lower.arena.depends_on(e, lower.syms.t) {
                return Err(syn::Error::new_spanned(&b.value, "time-dependent generators are not supported"));
            }
            generator[k] = e;
        }
        if decl.components.is_empty() {
            return Err(syn::Error::new(decl.name.span(), "a generator needs at least one component, e.g. `generator(x = -y, y = x)`"));
        }
    }
    Ok(Symmetry { name: decl.name.clone(), generator, cyclic, tokens })
}
