//! The state layout: which symbols a model has, what each stands for, and where it sits in the
//! generated state vector.
//!
//! One [`Layout`] per model owns every symbol of its arena that is not an intermediate
//! expression: time `t`, coordinates q, velocities q̇, accelerations q̈ (for the Jacobian),
//! parameters, the differentials dq and dt of one-forms, and symbols that derivations add with a
//! [`Role`] (post-impact velocities q̇⁺, impulse multipliers λ). Symbols are created here and only
//! here ([`Layout::new`], [`Layout::symbol`]), so their names in the arena — `q:<coord>`,
//! `v:<coord>`, `a:<coord>`, `p:<param>`, `d:<coord>`, `d:t`, `t` — are a private convention of
//! this module, and [`Layout::role`] maps every symbol back to what it stands for.
//!
//! The generated state is x = (q, q̇), or x = (q, q̇, z) for a contact (Herglotz) model with an
//! action variable z (declared `action(z)`), of dimension [`Layout::state_dim`];
//! [`Layout::state_index`] says where a coordinate, velocity or the action sits in it. Every
//! emitter reads the state through these two functions.

use std::cell::RefCell;

use rustc_hash::FxHashMap;
use symbolic::{Arena, Expr};
use syn::Ident;

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
    /// The action variable z of a contact (Herglotz) Lagrangian L(t, q, q̇, z).
    Action,
    /// Control input uₖ (enters through the forces; not part of the state).
    Input(usize),
    /// Discrete mechanics: coordinate i at the start node q_k of a step.
    NodeStart(usize),
    /// Discrete mechanics: coordinate i at the end node q_{k+1} of a step.
    NodeEnd(usize),
    /// Discrete mechanics: the time step h.
    StepSize,
    /// Discrete mechanics: the time t_k at the start of a step.
    StepTime,
    /// Discrete mechanics of a contact model: the action z_k at the start of a step.
    StepAction,
    /// A velocity expression vₖ = Jₖ(t, q)·q̇ + bₖ(t, q) of the Lagrangian held as a symbol while
    /// the equations of motion are derived through it (see `euler_lagrange`); never emitted.
    Substituted(usize),
}

/// The dimension of the first-order state x = (q, q̇) of a model with `dof` coordinates, or
/// x = (q, q̇, z) with an action variable.
pub fn state_dim(dof: usize, action: bool) -> usize {
    2 * dof + usize::from(action)
}

/// The symbols of one model and their roles (see the [module docs](self)).
#[derive(Clone)]
pub struct Layout {
    pub t: Expr,
    pub q: Vec<Expr>,
    pub qd: Vec<Expr>,
    pub qdd: Vec<Expr>,
    pub params: Vec<Expr>,
    /// Differentials dqₖ of one-forms.
    pub dq: Vec<Expr>,
    /// The differential dt of one-forms.
    pub dt: Expr,
    /// The action variable z of a contact model (`None` for an ordinary Lagrangian).
    pub z: Option<Expr>,
    /// Control inputs u (empty without `input(...)`).
    pub u: Vec<Expr>,
    /// Coordinate names (for the names of derived symbols).
    names: Vec<String>,
    /// The role of every symbol. It only grows: a pass that needs a further symbol (q̇⁺, λ, the
    /// nodes of a discrete step) adds it with [`Layout::symbol`] while the model stays shared and
    /// immutable, so the registry is a `RefCell` (a role, once given, never changes).
    roles: RefCell<FxHashMap<Expr, Role>>,
}

impl Layout {
    /// Every symbol of a model with these coordinates and parameters (and action variable and
    /// inputs).
    pub fn new(
        arena: &mut Arena,
        coordinates: &[Ident],
        parameters: &[Ident],
        action: Option<&Ident>,
        inputs: &[Ident],
    ) -> Layout {
        let t = arena.symbol("t");
        let q = coordinates.iter().map(|c| arena.symbol(&format!("q:{c}"))).collect();
        let qd = coordinates.iter().map(|c| arena.symbol(&format!("v:{c}"))).collect();
        let qdd = coordinates.iter().map(|c| arena.symbol(&format!("a:{c}"))).collect();
        let params = parameters.iter().map(|p| Layout::parameter_symbol(arena, p)).collect();
        let mut layout = Layout::from_symbols(arena, coordinates, t, q, qd, qdd, params);
        if let Some(z) = action {
            let s = arena.symbol(&format!("z:{z}"));
            layout.roles.get_mut().insert(s, Role::Action);
            layout.z = Some(s);
        }
        for (k, u) in inputs.iter().enumerate() {
            let s = arena.symbol(&format!("u:{u}"));
            layout.roles.get_mut().insert(s, Role::Input(k));
            layout.u.push(s);
        }
        layout
    }

    /// A layout over existing symbols (e.g. the kept coordinates of a Routh reduction, with the
    /// momenta μ as extra parameters): `q`, `qd`, `qdd` in the order of `coordinates`.
    pub fn from_symbols(
        arena: &mut Arena,
        coordinates: &[Ident],
        t: Expr,
        q: Vec<Expr>,
        qd: Vec<Expr>,
        qdd: Vec<Expr>,
        params: Vec<Expr>,
    ) -> Layout {
        let dq: Vec<Expr> = coordinates.iter().map(|c| arena.symbol(&format!("d:{c}"))).collect();
        let dt = arena.symbol("d:t");
        let mut roles = FxHashMap::default();
        roles.insert(t, Role::Time);
        for (i, ((&qi, &vi), &ai)) in q.iter().zip(&qd).zip(&qdd).enumerate() {
            roles.insert(qi, Role::Coordinate(i));
            roles.insert(vi, Role::Velocity(i));
            roles.insert(ai, Role::Acceleration(i));
        }
        for (i, &p) in params.iter().enumerate() {
            roles.insert(p, Role::Parameter(i));
        }
        for (i, &d) in dq.iter().enumerate() {
            roles.insert(d, Role::Differential(i));
        }
        roles.insert(dt, Role::TimeDifferential);
        let names = coordinates.iter().map(ToString::to_string).collect();
        Layout { t, q, qd, qdd, params, dq, dt, z: None, u: Vec::new(), names, roles: RefCell::new(roles) }
    }

    /// The symbol of a parameter named `name` (a struct field, or a reduced system's μ).
    pub fn parameter_symbol(arena: &mut Arena, name: &Ident) -> Expr {
        arena.symbol(&format!("p:{name}"))
    }

    /// A further symbol with `role` (created on first use), e.g. q̇⁺ᵢ or λₖ of an impact law.
    pub fn symbol(&self, arena: &mut Arena, role: Role) -> Expr {
        let name = match role {
            Role::PostVelocity(i) => format!("v+:{}", self.names[i]),
            Role::NodeStart(i) => format!("q0:{}", self.names[i]),
            Role::NodeEnd(i) => format!("q1:{}", self.names[i]),
            Role::Multiplier(k) => format!("lambda:{k}"),
            Role::Substituted(k) => format!("w:{k}"),
            other => format!("{other:?}"),
        };
        let s = arena.symbol(&name);
        self.roles.borrow_mut().insert(s, role);
        s
    }

    /// Degrees of freedom n.
    pub fn dof(&self) -> usize {
        self.q.len()
    }

    /// Dimension of the generated first-order state.
    pub fn state_dim(&self) -> usize {
        state_dim(self.dof(), self.z.is_some())
    }

    /// Index in the state vector of a coordinate, velocity or the action.
    pub fn state_index(&self, role: Role) -> Option<usize> {
        match role {
            Role::Coordinate(i) => Some(i),
            Role::Velocity(i) => Some(self.dof() + i),
            Role::Action if self.z.is_some() => Some(2 * self.dof()),
            _ => None,
        }
    }

    /// The symbols of the state x in order: q, q̇, then z for a contact model.
    pub fn state_symbols(&self) -> Vec<Expr> {
        self.q.iter().chain(&self.qd).copied().chain(self.z).collect()
    }

    /// The role of a symbol.
    pub fn role(&self, sym: Expr) -> Option<Role> {
        self.roles.borrow().get(&sym).copied()
    }
}
