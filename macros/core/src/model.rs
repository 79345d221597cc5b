//! The validated model: names checked, expressions lowered to symbolic form (lowering itself is
//! in [`crate::lower`], one module per item kind).
//! Its symbols and their roles are the model's [`Layout`].

use proc_macro2::TokenStream;
use symbolic::{Arena, Expr};
use syn::Ident;

pub use crate::layout::{Layout, Role};

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
    /// The model's symbols and their roles.
    pub layout: Layout,
    pub lagrangian: Expr,
    /// The Lagrangian's source tokens, to blame in model-level errors.
    pub lagrangian_tokens: proc_macro2::TokenStream,
    /// Generalized force Qᵢ per coordinate (0 when not given).
    pub force: Vec<Expr>,
    pub impacts: Vec<Impact>,
    pub symmetries: Vec<Symmetry>,
    pub reductions: Vec<Reduction>,
    /// Visibility of the model struct (for generated types).
    pub vis: syn::Visibility,
}

impl Model {
    /// Degrees of freedom n.
    pub fn dof(&self) -> usize {
        self.coordinates.len()
    }

    /// The role of a symbol.
    pub fn role(&self, sym: Expr) -> Option<Role> {
        self.layout.role(sym)
    }

    /// A model assembled directly from symbolic pieces (e.g. a Routh-reduced system): `layout`
    /// holds the symbols of `arena` for the coordinates and parameters (in the order of
    /// `coordinates` and `parameters`).
    #[allow(clippy::too_many_arguments)]
    pub fn assemble(
        name: Ident,
        owner: Owner,
        vis: syn::Visibility,
        arena: Arena,
        coordinates: Vec<Ident>,
        parameters: Vec<Ident>,
        layout: Layout,
        lagrangian: Expr,
        lagrangian_tokens: proc_macro2::TokenStream,
        force: Vec<Expr>,
    ) -> Model {
        Model {
            name,
            owner,
            parameters,
            coordinates,
            arena,
            layout,
            lagrangian,
            lagrangian_tokens,
            force,
            impacts: Vec::new(),
            symmetries: Vec::new(),
            reductions: Vec::new(),
            vis,
        }
    }

    /// A read-only stand-in for `model` over another arena that extends its arena (for printing
    /// expressions built in a copy of the arena, e.g. during reduction).
    pub fn assemble_view(model: &Model, arena: &Arena) -> Model {
        Model::assemble(
            model.name.clone(),
            Owner { ty: TokenStream::new(), generics: TokenStream::new(), access: quote::quote!(self), mode: None },
            model.vis.clone(),
            arena.clone(),
            model.coordinates.clone(),
            model.parameters.clone(),
            model.layout.clone(),
            model.lagrangian,
            TokenStream::new(),
            model.force.clone(),
        )
    }

    /// A further symbol with `role` (see [`Layout::symbol`]).
    pub fn symbol(&mut self, role: Role) -> Expr {
        self.layout.symbol(&mut self.arena, role)
    }
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
