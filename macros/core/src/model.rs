//! The validated model: names checked, expressions lowered to symbolic form (lowering itself is
//! in [`crate::lower`], one module per item kind).
//! Its symbols and their roles are the model's [`Layout`].

use symbolic::{Arena, Expr, Mat3, Rotation, Vec3};
use syn::Ident;

pub use crate::layout::{Layout, Role};

/// A lowered rigid body or particle.
pub struct Body {
    pub name: Ident,
    pub mass: Expr,
    /// The mass centre, inertial components.
    pub centre: Vec3,
    /// Its velocity ṙ.
    pub velocity: Vec3,
    /// |ṙ|² without the frame's entries where the centre turns with a frame about a fixed point,
    /// r = R d with d constant: |ṙ|² = |R (ω × d)|² = |ω × d|² (`None`: |ṙ|² from ṙ).
    pub speed2: Option<Expr>,
    /// The body frame and its angular velocity (`None` for a particle).
    pub rotation: Option<Rotation>,
    /// The inertia tensor about the mass centre, body components (`None` for a particle).
    pub inertia: Option<Mat3>,
}

/// The Lagrangian written over the rates of its positions: L̃(t, q, v) with each rate `dot(x)` a
/// symbol vₖ of its own ([`crate::layout::Role::HeldRate`]), so that L = L̃ at vₖ = ẋₖ. Where L̃ is
/// Σₖ ½ mₖ vₖ² − V(t, q) and the positions form a tree, the recursive dynamics
/// ([`crate::derive::dynamics`]) reads its structure from it.
pub struct HeldLagrangian {
    pub lagrangian: Expr,
    /// Each held symbol and the rate it stands for.
    pub rates: Vec<(Expr, Expr)>,
}

/// A row of a restitution law.
pub enum LawRow {
    /// The guard's own normal dh.
    Normal,
    /// A one-form Σₖ aₖ dqₖ + b dt in the differentials (pulled back to the velocities when the
    /// law is derived).
    Form(Expr),
    /// A row a·v + b already over the velocities: a constraint held after the impact.
    Velocities(Vec<Expr>, Expr),
}

/// An impact law, lowered.
pub enum Law {
    /// Rows of the generalized Newton law A q̇⁺ + b = −E (A q̇⁻ + b), each with its coefficient.
    Restitution(Vec<(LawRow, Expr)>),
    /// Explicit post-impact velocities, one per coordinate (unchanged ones are the q̇ symbol).
    Map(Vec<Expr>),
    /// A transition's chart change: the target mode's positions and velocities, as functions of
    /// the source state.
    Chart { positions: Vec<Expr>, velocities: Vec<Expr> },
    /// A transition's `project`: the kinetic-metric projection of the velocities onto the target
    /// mode's constraints and contacts — their rows over the velocities and affine parts, lowered
    /// here from the target's declarations in its order, so the target's own rows (the modes share
    /// the coordinates, orientations and bodies). The target generates it once as its
    /// `__routh_arrival_reset` ([`Model::arrival`]); `mode` names it.
    Project { rows: Vec<(Vec<Expr>, Expr)>, mode: Ident },
}

/// A bilateral constraint, lowered to velocity level: the row `Σ aₖ q̇ₖ + b = 0` (the one-form
/// `Σ aₖ dqₖ + b dt` annihilates the motion), with `a`, `b` functions of (t, q).
pub struct Constraint {
    pub name: Ident,
    /// For `holonomic(name = f)`: f(t, q) (then a = ∇f, b = ∂f/∂t).
    pub position: Option<Expr>,
    pub a: Vec<Expr>,
    pub b: Expr,
}

/// What triggers an impact or transition.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Trigger {
    /// The guard h(t, q) crossing zero downward.
    Guard,
    /// The multiplier λₖ of the mode's constraint k falling through zero (a release, e.g. liftoff).
    Multiplier(usize),
    /// The accumulation (Zeno) of the impacts of the mode's impact k: the transition completes it.
    Zeno(usize),
}

/// A unilateral constraint h(t, q) ≥ 0 with its impact law (for a transition, into another mode).
pub struct Impact {
    pub name: Ident,
    /// h(t, q) for [`Trigger::Guard`] (0 otherwise).
    pub guard: Expr,
    pub trigger: Trigger,
    pub law: Law,
    /// The mode a transition leads to (None: an impact that stays in its mode).
    pub target: Option<usize>,
}

/// The derive input: its modes joined by transitions. A model without `mode(...)` items is a
/// system with one mode (whose [`Model::mode`] is `None`: the struct itself carries its API).
pub struct System {
    /// The struct's name.
    pub name: Ident,
    /// The struct's visibility (of the generated types: mode views, reduced systems).
    pub vis: syn::Visibility,
    /// `crate = path`: where generated code finds routh, if not at `::routh`.
    pub krate: Option<syn::Path>,
    pub modes: Vec<Model>,
    /// The workspace of each mode: the arena its expressions live in, which the passes extend
    /// (the models themselves do not change after lowering).
    pub arenas: Vec<Arena>,
    /// Whether the system has modes or impacts (see [`System::new`]).
    pub hybrid: bool,
    /// The description files the model was read from (absolute paths), which the generated code
    /// includes so that editing one rebuilds the model.
    pub described: Vec<String>,
    /// The joints' limits the description files give (constants of the model).
    pub limits: Vec<crate::parse::LimitsRead>,
}

impl System {
    /// The system of these modes. A hybrid system (modes, or impacts) implements `HybridSystem`,
    /// whose periodic orbits integrate the variational equations: every mode of it gets the field
    /// Jacobian (decided here, once, from the input).
    pub fn new(name: Ident, vis: syn::Visibility, krate: Option<syn::Path>, lowered: Vec<(Model, Arena)>) -> System {
        let (mut modes, arenas): (Vec<Model>, Vec<Arena>) = lowered.into_iter().unzip();
        let hybrid = !matches!(modes.as_slice(), [m] if m.mode.is_none()) || modes.iter().any(|m| !m.impacts.is_empty());
        for m in &mut modes {
            m.field_jacobian |= hybrid;
        }
        System { name, vis, krate, modes, arenas, hybrid, described: Vec::new(), limits: Vec::new() }
    }

    /// Every mode over its arena.
    pub fn views(&self) -> Vec<View<'_>> {
        self.modes.iter().zip(&self.arenas).map(|(m, a)| m.view(a)).collect()
    }

    /// The state dimension of each mode (positions, velocities and the action).
    pub fn mode_state_dims(&self) -> Vec<usize> {
        self.modes.iter().map(|m| m.layout.state_dim()).collect()
    }

    /// Whether this is a model without modes.
    pub fn is_single(&self) -> bool {
        matches!(self.modes.as_slice(), [m] if m.mode.is_none())
    }
}

/// A declared symmetry: an infinitesimal generator ξ_Q(q) on the configuration space.
pub struct Symmetry {
    pub name: Ident,
    /// ξ component per coordinate.
    pub generator: Vec<Expr>,
    /// For a rotation of an orientation: the generator in the velocities (the body components
    /// Rᵀa of the spatial axis a on the orientation's ω), and its lift on them (zero: a spatial
    /// rotation leaves the body angular velocity unchanged). `None`: the velocities are the
    /// coordinates' rates, ξ_V = ξ and η = ∂ξ/∂q q̇.
    pub velocity_generator: Option<(Vec<Expr>, Vec<Expr>)>,
    /// The symmetry's name as written (the coordinate of `cyclic(q)`), blamed in errors.
    pub tokens: proc_macro2::TokenStream,
    /// For `rotation(r, a)`: the orientation's index and the constant spatial axis a.
    pub rotation: Option<(usize, symbolic::Vec3)>,
}

/// A requested reduction: Routh's over cyclic coordinates, or a nonholonomic one.
pub struct Reduction {
    /// `routh`, `nonholonomic` or `euler_poincare`.
    pub keyword: Ident,
    /// Which reduction it asks for.
    pub method: ReductionMethod,
    /// Indices of the removed coordinates (cyclic, or dropped), with the identifiers as written
    /// (for errors).
    pub cyclic: Vec<(usize, Ident)>,
    /// Name of the generated reduced type.
    pub name: Ident,
    /// For a nonholonomic (or Euler–Poincaré) reduction, its velocities u (`None`: Routh
    /// reduction).
    pub velocities: Option<Vec<ReducedVelocity>>,
    /// The orientations a nonholonomic reduction drops (their indices in the layout), as written.
    pub dropped_orientations: Vec<(usize, Ident)>,
    /// A nonholonomic reduction's quotient map onto shape coordinates of the user's (`None`: the
    /// kept coordinates are the shape coordinates).
    pub quotient: Option<QuotientMap>,
    /// `euler_poincare(r)` by the rotations about one axis only: the advected vector Γ = Rᵀa.
    pub advected: Option<Advected>,
}

/// Which reduction a `reduce(...)` asks for, decided once in lowering; [`crate::derive::reduce`]
/// dispatches on it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReductionMethod {
    /// `routh(θ, ...)`: Routh reduction over cyclic coordinates, a reduced model of second order
    /// ([`crate::derive::reduce::cyclic`]).
    Cyclic,
    /// `routh(r)`: Routh reduction by the rotations of an orientation, in first-order form
    /// ([`crate::derive::reduce::rotations`]).
    Rotations,
    /// `nonholonomic(...)` or `euler_poincare(...)`: Maggi's equations on a section, in
    /// first-order form ([`crate::derive::reduce::maggi`]).
    Maggi,
}

/// `reduce(euler_poincare(r), symmetry(s), ...)` with `s = rotation(r, a)`: the orientation is
/// reduced by the rotations about a alone (a heavy top about the vertical), keeping Γ = Rᵀa in the
/// state (the Euler–Poisson equations, [`crate::derive::reduce::maggi`]).
pub struct Advected {
    /// The symmetry's index among the model's, and its name as written.
    pub symmetry: usize,
    pub name: Ident,
    /// The orientation's index, and a as a signed coordinate axis: (k, ±1) for ±e_k.
    pub orientation: usize,
    pub axis: (usize, i8),
}

/// `shape(s = σ(t, q), ...)` with `inverse(x = ι(t, s, g), ...)`: the shape coordinates s of a
/// nonholonomic reduction as functions of the model's coordinates, and the model's kept
/// coordinates back in s and the dropped coordinates g. The reduced system lives in the chart
/// (s, g); the derive proves ι(σ(q), g) = q, the ranks and the invariance under `symmetries`
/// ([`crate::derive::reduce::quotient`]).
pub struct QuotientMap {
    /// The `shape` and `inverse` keywords, blamed for whole-map errors.
    pub keyword: Ident,
    pub inverse_keyword: Ident,
    /// The shape coordinates' names and symbols (new symbols of the arena) and σ in the model's
    /// symbols.
    pub names: Vec<Ident>,
    pub symbols: Vec<Expr>,
    pub values: Vec<Expr>,
    /// For each kept ordinary coordinate (index among the coordinates, in state order): ι in the
    /// shape symbols, the dropped coordinates' symbols, t and the parameters, with its name as
    /// written in `inverse(...)`.
    pub inverse: Vec<(usize, Ident, Expr)>,
    /// The declared symmetries σ must be invariant under (indices into the model's symmetries),
    /// as written.
    pub symmetries: Vec<(usize, Ident)>,
}

/// A velocity of a nonholonomic reduction, u = a(t, q)·v + b(t, q) over the model's velocities v.
pub struct ReducedVelocity {
    pub name: Ident,
    /// u in the full model's symbols.
    pub value: Expr,
    /// For one of the model's own velocities (`velocities(q)`, or an orientation's ω components):
    /// its index among the velocities.
    pub rate_of: Option<usize>,
}

/// A model ready for derivation.
pub struct Model {
    /// The struct's name (for a reduced system: the generated type's).
    pub name: Ident,
    /// For a mode of a multi-mode system: its index and name.
    pub mode: Option<(usize, Ident)>,
    pub parameters: Vec<Ident>,
    pub coordinates: Vec<Ident>,
    /// The action variable z of a contact (Herglotz) Lagrangian (its symbol is `layout.z`).
    pub action: Option<Ident>,
    /// Control inputs (their symbols are `layout.u`).
    pub inputs: Vec<Ident>,
    /// The model's symbols and their roles (in the arena of its workspace).
    pub layout: Layout,
    pub lagrangian: Expr,
    /// The rigid bodies and particles whose energies are part of the Lagrangian (their
    /// kinematics are documented with it).
    pub bodies: Vec<Body>,
    /// The written Lagrangian, without the bodies' energies (their sum with it is `lagrangian`).
    pub written: Expr,
    /// The uniform field `gravity = g` acting on the bodies (their potential −m g·r is in
    /// `lagrangian`, not in `written`).
    pub gravity: Option<Vec3>,
    /// Expressions made as total time derivatives d/dt f(t, q) while lowering (`dot`): as
    /// velocity expressions of L their Hamel terms vanish identically, without a zero test.
    pub exact_rates: rustc_hash::FxHashSet<Expr>,
    /// The Lagrangian over the rates of its positions (and of its bodies' angular velocities),
    /// where it could be written so (not with orientations or an action).
    pub held: Option<HeldLagrangian>,
    /// `dynamics = recursive | dense` as written (`None`: chosen by the model's size).
    pub dynamics: Option<Ident>,
    /// The Lagrangian's source tokens, to blame in model-level errors.
    pub lagrangian_tokens: proc_macro2::TokenStream,
    /// Generalized force Qᵢ per coordinate (0 when not given).
    pub force: Vec<Expr>,
    pub constraints: Vec<Constraint>,
    pub impacts: Vec<Impact>,
    pub symmetries: Vec<Symmetry>,
    pub reductions: Vec<Reduction>,
    /// `discrete(rule = ...)`: the variational integrator to generate.
    pub discretization: Option<Discretization>,
    /// `sensitivity(p, ...)`: the parameters (indices) of the generated ∂F/∂p, in its column order.
    pub sensitivity: Vec<usize>,
    /// `output(...)`: the observables, one (column name, expression of the state) per column.
    pub outputs: Vec<(String, Expr)>,
    /// Whether the field Jacobian ∂F/∂x (`jacobian`) is derived and emitted: the `jacobian` item,
    /// inputs, sensitivities, modes or impacts ask for it.
    pub field_jacobian: bool,
    /// Whether a `project` transition enters this mode ([`Law::Project`]): it generates the
    /// projection onto its constraints, `__routh_arrival_reset`, which those transitions call.
    pub arrival: bool,
    /// For a mode of a multi-mode system, per constraint: the earlier mode that holds the same
    /// declaration in the same model (both modes take the top level's coordinates, Lagrangian,
    /// bodies, defines and dynamics, none of their own — `unilateral`'s modes), whose row of A, b
    /// and c, part of the saddle-point residual's Jacobian
    /// ([`crate::derive::constraint::SaddleJacobian::ByConstraint`]) and rows of
    /// `constraint_jacobian` for it are this mode's too: they are derived and emitted there once
    /// and called here. Empty, or `None` for a constraint, where this mode derives them itself.
    pub part_owners: Vec<Option<Ident>>,
    /// Likewise for the part of the projection's Jacobian that a `project` transition into this
    /// mode solves (`__routh_arrival_reset_jacobian`, [`crate::derive::impact::arrival`]): the
    /// earlier mode entered the same way that holds the same declaration. Empty where the mode
    /// derives the projection's Jacobian whole.
    pub arrival_owners: Vec<Option<Ident>>,
    /// What the parameters must satisfy for the model to be physical, checked when a run starts
    /// (`check_parameters`); where the values are numbers the lowering has checked them already.
    pub requirements: Vec<Requirement>,
}

/// A condition on a model's parameters that only their values decide.
#[derive(Clone)]
pub enum Requirement {
    /// `value > 0`: a mass, a rolling radius; `what` says which ("the mass of body `b`").
    Positive { what: String, value: Expr },
    /// A body's inertia tensor about its mass centre: positive definite, its principal moments
    /// satisfying the triangle inequalities.
    Inertia { what: String, tensor: Mat3 },
}

/// The quadrature of a discrete Lagrangian L_d = h L∘Δ_h⁻¹ (and of its forces).
pub enum Quadrature {
    /// The α-rule: L and F at q_α = (1 − α) q_k + α q_{k+1}, time t_k + αh; midpoint α = ½,
    /// rectangle α = 0.
    Alpha(Expr),
    /// The trapezoid: the average of the rectangle rules at both nodes.
    Trapezoid,
    /// Written by the user: L_d and f∓ in the nodes (symbols of roles `NodeStart`, `NodeEnd`,
    /// `StepSize`, `StepTime`).
    Raw { lagrangian: Expr, minus: Vec<Expr>, plus: Vec<Expr> },
}

/// A requested discretization.
pub struct Discretization {
    /// The rule's name as written (`midpoint`, `alpha`, ...).
    pub rule: String,
    pub quadrature: Quadrature,
}

impl Model {
    /// Degrees of freedom n.
    pub fn dof(&self) -> usize {
        self.layout.dof()
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
        mode: Option<(usize, Ident)>,
        coordinates: Vec<Ident>,
        parameters: Vec<Ident>,
        layout: Layout,
        lagrangian: Expr,
        lagrangian_tokens: proc_macro2::TokenStream,
        force: Vec<Expr>,
    ) -> Model {
        Model {
            name,
            mode,
            parameters,
            coordinates,
            action: None,
            inputs: Vec::new(),
            layout,
            lagrangian,
            bodies: Vec::new(),
            written: lagrangian,
            gravity: None,
            exact_rates: rustc_hash::FxHashSet::default(),
            held: None,
            dynamics: None,
            lagrangian_tokens,
            force,
            constraints: Vec::new(),
            impacts: Vec::new(),
            symmetries: Vec::new(),
            reductions: Vec::new(),
            discretization: None,
            sensitivity: Vec::new(),
            outputs: Vec::new(),
            field_jacobian: false,
            arrival: false,
            part_owners: Vec::new(),
            arrival_owners: Vec::new(),
            requirements: Vec::new(),
        }
    }

    /// The earlier mode whose part for constraint `k` is this mode's ([`Self::part_owners`]).
    pub fn part_owner(&self, k: usize) -> Option<&Ident> {
        self.part_owners.get(k).and_then(Option::as_ref)
    }

    /// The earlier mode whose part of the arrival projection for constraint `k` is this mode's
    /// ([`Self::arrival_owners`]).
    pub fn arrival_owner(&self, k: usize) -> Option<&Ident> {
        self.arrival_owners.get(k).and_then(Option::as_ref)
    }

    /// A further symbol with `role` (see [`Layout::symbol`]).
    pub fn symbol(&self, arena: &mut Arena, role: Role) -> Expr {
        self.layout.symbol(arena, role)
    }

    /// The model over the arena of its workspace, as emission and notation read it.
    pub fn view<'a>(&'a self, arena: &'a Arena) -> View<'a> {
        View { model: self, arena }
    }
}

/// A model together with the arena its expressions live in (read-only): what emission and the
/// notation read. It dereferences to the [`Model`].
#[derive(Clone, Copy)]
pub struct View<'a> {
    pub model: &'a Model,
    pub arena: &'a Arena,
}

impl std::ops::Deref for View<'_> {
    type Target = Model;
    fn deref(&self) -> &Model {
        self.model
    }
}
