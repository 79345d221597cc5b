//! The state layout: which symbols a model has, what each stands for, and where it sits in the
//! generated state vector.
//!
//! One [`Layout`] per model owns every symbol of its arena that is not an intermediate
//! expression: time `t`, coordinates q, velocities q̇, accelerations q̈ (for the Jacobian),
//! parameters, the differentials dq and dt of one-forms, and symbols that derivations add with a
//! [`Role`] (post-impact velocities q̇⁺, impulse multipliers λ). Symbols are created here and only
//! here ([`Layout::with_orientations`], [`Layout::symbol`]), so their names in the arena — `q:<coord>`,
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
    /// Discrete mechanics with orientations: component i of a step's increment ξ (an ordinary
    /// coordinate's Δ, or an orientation's Cayley vector: q_{k+1} = q_k ⊗ cay(ξ)).
    Increment(usize),
    /// Discrete mechanics: the time step h.
    StepSize,
    /// Discrete mechanics: the time t_k at the start of a step.
    StepTime,
    /// Discrete mechanics of a contact model: the action z_k at the start of a step.
    StepAction,
    /// A velocity expression vₖ = Jₖ(t, q)·q̇ + bₖ(t, q) of the Lagrangian held as a symbol while
    /// the equations of motion are derived through it (see `euler_lagrange`); never emitted.
    Substituted(usize),
    /// |q|² of orientation k's quaternion: a symbol of its own with rate zero (the rates
    /// ½ q ⊗ (0, ω) keep |q| constant, and they, like every generator the derivations use, are
    /// orthogonal to q, so nothing derived depends on ∂|q|²/∂q); emitted as the sum of squares.
    QuaternionNorm(usize),
    /// The rate of a position held as a symbol in the Lagrangian written over its velocities
    /// ([`crate::model::HeldLagrangian`]; `dot(e)` as a symbol of its own), read by the recursive
    /// dynamics; never emitted.
    HeldRate(usize),
    /// A quantity of the recursive dynamics bound to an expression (emitted as a temporary through
    /// `symbolic::emit_bound`, never as a symbol).
    Temporary(usize),
    /// Component i of a tangent direction δx of the state (a generated directional derivative's
    /// seed, read from `dx[i]`).
    Tangent(usize),
    /// Value k of the recursion's quantities that its tangent reads, computed once per state and
    /// passed to the tangent (read from `p[k]`).
    Primal(usize),
    /// Value k that the recursion's loop form carries between its kernels (a link's velocity, a
    /// joint's stored pivot, …: see `derive::dynamics::spatial::looped`), emitted as the place the
    /// loop keeps it in.
    Carried(usize),
    /// A joint's own quantity renamed to a stand-in while the loop form compares joints for their
    /// kind (`derive::dynamics::spatial::looped`); never emitted.
    StandIn(StandIn),
    /// A coordinate a nonholonomic reduction removed (in its reconstruction formulas, read from
    /// the dropped positions `g[i]`).
    Dropped(usize),
    /// The model's energy E in an `output(e = energy())`: replaced by the derived E before
    /// emission (see `derive::mode`); never emitted.
    Energy,
}

/// What a [`Role::StandIn`] stands for: joint j's own q or q̇, or an input u_k by its index
/// relative to the joint's (k − j), so that two joints are of one kind when their expressions are
/// equal with these renamed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StandIn {
    /// The joint's own coordinate q_j.
    Position,
    /// Its rate q̇_j.
    Velocity,
    /// Input u_{j+k} (k may be negative).
    Input(isize),
}

/// The dimension of the first-order state x = (q, q̇) of a model with `dof` coordinates, or
/// x = (q, q̇, z) with an action variable.
pub fn state_dim(dof: usize, action: bool) -> usize {
    2 * dof + usize::from(action)
}

/// A rotation in the state (`orientation(R)`): its unit quaternion (w, x, y, z) sits at
/// `q[q_start..q_start + 4]` and its body angular velocity ω at `qd[v_start..v_start + 3]`.
#[derive(Clone, Debug)]
pub struct Orientation {
    pub name: Ident,
    pub q_start: usize,
    pub v_start: usize,
    /// How many ordinary coordinates are declared before it: its place in a kinematic tree
    /// declared parents first (the coordinates' count where nothing says).
    pub after: usize,
    /// The symbol of |q|² ([`Role::QuaternionNorm`]).
    pub norm2: Expr,
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
    /// q̇ along the motion, as expressions of (q, v): the velocity symbol of an ordinary
    /// coordinate, and ½ q ⊗ (0, ω) for the quaternion components of an orientation (the
    /// velocities are then the body angular velocity, not the quaternion's rate: quasi-velocities).
    pub rates: Vec<Expr>,
    /// The orientations among the coordinates (empty for ordinary models, where q̇ = v).
    pub orientations: Vec<Orientation>,
    /// A nonholonomic reduced system's velocities u, by name (empty otherwise: velocity i is
    /// coordinate i's rate, or an orientation's ω).
    pub velocity_names: Vec<Ident>,
    /// A reduced system's dropped coordinates ([`Role::Dropped`]), by name.
    pub dropped: Vec<Ident>,
    /// Coordinate names (for the names of derived symbols).
    names: Vec<String>,
    /// The coordinates as identifiers (an orientation `R`'s quaternion as `R_w`, ..., spanned
    /// at `R`).
    idents: Vec<Ident>,
    /// The role of every symbol. It only grows: a pass that needs a further symbol (q̇⁺, λ, the
    /// nodes of a discrete step) adds it with [`Layout::symbol`] while the model stays shared and
    /// immutable, so the registry is a `RefCell` (a role, once given, never changes).
    roles: RefCell<FxHashMap<Expr, Role>>,
}

impl Layout {
    /// The substitution that puts the model at rest: every velocity q̇ to zero (f(t, q, 0) for
    /// `static_forces`, an expression's part without velocities).
    pub fn at_rest(&self, arena: &Arena) -> Vec<(Expr, Expr)> {
        self.qd.iter().map(|&v| (v, arena.zero())).collect()
    }

    /// Every symbol of a model with these coordinates, orientations (rotations in the state),
    /// parameters, action variable and inputs. An orientation `R` adds the quaternion components
    /// `R_w, R_x, R_y, R_z` to the coordinates and the body angular velocity (ω₁, ω₂, ω₃) to the
    /// velocities, after the ordinary ones.
    pub fn with_orientations(
        arena: &mut Arena,
        coordinates: &[Ident],
        orientations: &[(Ident, usize)],
        parameters: &[Ident],
        action: Option<&Ident>,
        inputs: &[Ident],
    ) -> Layout {
        let t = arena.symbol("t");
        let mut all: Vec<Ident> = coordinates.to_vec();
        let mut velocity_names: Vec<String> = coordinates.iter().map(ToString::to_string).collect();
        for (r, _) in orientations {
            all.extend(["w", "x", "y", "z"].map(|c| quote::format_ident!("{}_{}", r, c, span = r.span())));
            velocity_names.extend((1..=3).map(|k| format!("{r}_omega{k}")));
        }
        let q = all.iter().map(|c| arena.symbol(&format!("q:{c}"))).collect();
        let qd = velocity_names.iter().map(|c| arena.symbol(&format!("v:{c}"))).collect();
        let qdd = velocity_names.iter().map(|c| arena.symbol(&format!("a:{c}"))).collect();
        let params = parameters.iter().map(|p| Layout::parameter_symbol(arena, p)).collect();
        let mut layout = Layout::from_symbols(arena, &all, t, q, qd, qdd, params);
        layout.rates.truncate(coordinates.len());
        for (k, (r, after)) in orientations.iter().enumerate() {
            let (q_start, v_start) = (coordinates.len() + 4 * k, coordinates.len() + 3 * k);
            let quaternion: [Expr; 4] = std::array::from_fn(|i| layout.q[q_start + i]);
            let omega: [Expr; 3] = std::array::from_fn(|i| layout.qd[v_start + i]);
            let rates = arena.quaternion_rate(&quaternion, &omega);
            layout.rates.extend(rates);
            let norm2 = arena.symbol(&format!("n2:{r}"));
            layout.roles.get_mut().insert(norm2, Role::QuaternionNorm(k));
            let after = (*after).min(coordinates.len());
            layout.orientations.push(Orientation { name: r.clone(), q_start, v_start, after, norm2 });
        }
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
        for (i, &qi) in q.iter().enumerate() {
            roles.insert(qi, Role::Coordinate(i));
        }
        for (i, (&vi, &ai)) in qd.iter().zip(&qdd).enumerate() {
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
        // Ordinary coordinates: q̇ = v (orientations replace their part, see `with_orientations`).
        let rates = qd.clone();
        Layout {
            t,
            q,
            qd,
            qdd,
            params,
            dq,
            dt,
            z: None,
            u: Vec::new(),
            rates,
            orientations: Vec::new(),
            velocity_names: Vec::new(),
            dropped: Vec::new(),
            names,
            idents: coordinates.to_vec(),
            roles: RefCell::new(roles),
        }
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
            Role::Increment(i) => format!("xi:{i}"),
            Role::Multiplier(k) => format!("lambda:{k}"),
            Role::Substituted(k) => format!("w:{k}"),
            Role::HeldRate(k) => format!("v:{k}"),
            Role::Temporary(k) => format!("r:{k}"),
            Role::Tangent(i) => format!("dx:{i}"),
            Role::Primal(k) => format!("p:{k}"),
            Role::Carried(k) => format!("c:{k}"),
            Role::StandIn(s) => format!("kind:{s:?}"),
            Role::Energy => "energy".to_string(),
            other => format!("{other:?}"),
        };
        let s = arena.symbol(&name);
        self.roles.borrow_mut().insert(s, role);
        s
    }

    /// Gives `sym` a role in this layout (a reduced system's view of the full model's symbols).
    pub fn assign(&self, sym: Expr, role: Role) {
        self.roles.borrow_mut().insert(sym, role);
    }

    /// The coordinates in state order, as identifiers.
    pub fn coordinate_idents(&self) -> Vec<Ident> {
        self.idents.clone()
    }

    /// Degrees of freedom n: the number of velocities (the size of the mass matrix).
    pub fn dof(&self) -> usize {
        self.qd.len()
    }

    /// The number of position coordinates: n, or more with orientations (four quaternion
    /// components for three angular velocities each).
    pub fn position_dim(&self) -> usize {
        self.q.len()
    }

    /// Dimension of the generated first-order state.
    pub fn state_dim(&self) -> usize {
        self.position_dim() + self.dof() + usize::from(self.z.is_some())
    }

    /// Index in the state vector of a coordinate, velocity or the action.
    pub fn state_index(&self, role: Role) -> Option<usize> {
        match role {
            Role::Coordinate(i) => Some(i),
            Role::Velocity(i) => Some(self.position_dim() + i),
            Role::Action if self.z.is_some() => Some(self.position_dim() + self.dof()),
            _ => None,
        }
    }

    /// Total time derivatives `d/dt eᵢ = ∂eᵢ/∂t + Σₖ ∂eᵢ/∂qₖ q̇ₖ` along the motion, with q̇ from
    /// [`Layout::rates`] (`with_time`: whether eᵢ may depend on t).
    pub fn total_derivative(&self, arena: &mut Arena, es: &[Expr], with_time: bool) -> Vec<Expr> {
        arena.total_derivative(es, &self.q, &self.rates, with_time.then_some(self.t))
    }

    /// [`Layout::total_derivative`] with time, as a derivative that keeps its memo across calls.
    pub fn total_derivative_kept(&self, arena: &Arena) -> symbolic::Directional {
        let mut seeds: Vec<(Expr, Expr)> = self.q.iter().zip(&self.rates).map(|(&x, &v)| (x, v)).collect();
        seeds.push((self.t, arena.one()));
        symbolic::Directional::new(seeds)
    }

    /// A covector on the coordinates (such as ∂L/∂q) pulled back to the velocities: Kᵀg with
    /// K = ∂q̇/∂v the rates' Jacobian; `g` itself when q̇ = v.
    pub fn pull_back(&self, arena: &mut Arena, g: &[Expr]) -> Vec<Expr> {
        if self.orientations.is_empty() {
            return g.to_vec();
        }
        let k = arena.jacobian(&self.rates, &self.qd);
        (0..self.dof())
            .map(|a| {
                let column: Vec<Expr> = k.iter().map(|row| row[a]).collect();
                arena.dot(&column, g)
            })
            .collect()
    }

    /// `es` with each orientation's |q|² symbol replaced by the sum of the squares of its
    /// quaternion: for derivatives along directions that are not tangent to |q| = const (the
    /// field Jacobian, a guard's gradient over the whole state); `es` itself without orientations.
    pub fn unhold_norms(&self, arena: &mut Arena, es: &[Expr]) -> Vec<Expr> {
        if self.orientations.is_empty() {
            return es.to_vec();
        }
        let map: Vec<(Expr, Expr)> = self
            .orientations
            .iter()
            .map(|o| {
                let squares: Vec<Expr> = (0..4).map(|i| arena.powi(self.q[o.q_start + i], 2)).collect();
                (o.norm2, arena.add(&squares))
            })
            .collect();
        es.iter().map(|&e| arena.subs(e, &map)).collect()
    }

    /// Deterministic sample points for numeric checks: parameters in [0.5, 1.5], coordinates,
    /// velocities, accelerations and the action in [−1.5, 1.5], time in [0, 2], and each
    /// orientation's held |q|² the sum of its sampled quaternion's squares (so that expressions in
    /// R(q/|q|) evaluate as rotations). One value table per point.
    pub fn sample_points(&self, count: usize) -> Vec<FxHashMap<Expr, f64>> {
        let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut next = move || {
            // SplitMix64.
            state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = state;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^= z >> 31;
            (z >> 11) as f64 / (1u64 << 53) as f64
        };
        (0..count)
            .map(|_| {
                let mut values = FxHashMap::default();
                values.insert(self.t, 2.0 * next());
                for &p in &self.params {
                    values.insert(p, 0.5 + next());
                }
                for &s in self.q.iter().chain(&self.qd).chain(&self.qdd).chain(&self.z) {
                    values.insert(s, 3.0 * next() - 1.5);
                }
                for o in &self.orientations {
                    let norm2 = (0..4).map(|i| values[&self.q[o.q_start + i]].powi(2)).sum();
                    values.insert(o.norm2, norm2);
                }
                values
            })
            .collect()
    }

    /// The orientation whose angular velocity is velocity `i`, with the component (0, 1, 2).
    pub fn orientation_of_velocity(&self, i: usize) -> Option<(&Orientation, usize)> {
        self.orientations.iter().find(|o| (o.v_start..o.v_start + 3).contains(&i)).map(|o| (o, i - o.v_start))
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
