//! The validated model: names checked, expressions lowered to symbolic form.
//!
//! Symbols in the arena are named `q:<coord>`, `v:<coord>` (velocity q̇), `a:<coord>` (acceleration
//! q̈, used only for the Jacobian), `p:<param>` and `t`; [`Model::role`] maps them back.

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
}

/// A model ready for derivation.
pub struct Model {
    pub name: Ident,
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

    /// Validates the derive input and lowers every expression.
    pub fn from_input(input: &DeriveInput) -> syn::Result<Model> {
        if !input.generics.params.is_empty() {
            return Err(syn::Error::new(
                input.generics.span(),
                "#[derive(Mechanics)] does not support generic structs: parameters are plain `f64` fields",
            ));
        }
        let parameters = parameters(input)?;
        let raw = parse_attributes(&input.attrs, input.ident.span())?;
        let mut errors: Vec<syn::Error> = Vec::new();
        check_names(&raw, &parameters, &mut errors);
        if let Some(e) = combine(errors) {
            return Err(e);
        }

        let mut arena = Arena::new();
        let t = arena.symbol("t");
        let q: Vec<Expr> = raw.coordinates.iter().map(|c| arena.symbol(&format!("q:{c}"))).collect();
        let qd: Vec<Expr> = raw.coordinates.iter().map(|c| arena.symbol(&format!("v:{c}"))).collect();
        let qdd: Vec<Expr> = raw.coordinates.iter().map(|c| arena.symbol(&format!("a:{c}"))).collect();
        let params: Vec<Expr> = parameters.iter().map(|p| arena.symbol(&format!("p:{p}"))).collect();
        let mut roles = FxHashMap::default();
        roles.insert(t, Role::Time);
        for i in 0..q.len() {
            roles.insert(q[i], Role::Coordinate(i));
            roles.insert(qd[i], Role::Velocity(i));
            roles.insert(qdd[i], Role::Acceleration(i));
        }
        for (i, &p) in params.iter().enumerate() {
            roles.insert(p, Role::Parameter(i));
        }
        let syms = Symbols { t, q, qd, params };

        let (lagrangian, lagrangian_tokens, force) = {
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
            if let Some(e) = combine(errors) {
                return Err(e);
            }
            let zero = lower.arena.zero();
            let force: Vec<Expr> = force.into_iter().map(|f| f.unwrap_or(zero)).collect();
            (lagrangian.unwrap_or(zero), quote::quote!(#lag_kw = #lag_expr), force)
        };

        Ok(Model {
            name: input.ident.clone(),
            parameters,
            coordinates: raw.coordinates,
            arena,
            syms,
            qdd,
            lagrangian,
            lagrangian_tokens,
            force,
            roles,
        })
    }
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
