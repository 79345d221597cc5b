//! The form of a mode's dynamics — how q̈, and with it M, f, L, E and p, is computed — chosen once
//! per mode ([`form`]) and asked by every later pass and emitter ([`Form`]):
//!
//! - **dense entries**: M q̈ = f with M's n(n + 1)/2 entries as formulas, factored densely
//!   ([`crate::derive::euler_lagrange`]);
//! - **dense columns**: the same with M column by column from its products M a = ∂p/∂q̇ along a,
//!   where the entries outgrow their budget ([`crate::derive::euler_lagrange::Columns`]);
//! - **a tree of directions**: the articulated-body recursion over directions of translation (point
//!   masses, planar links), [`directions`];
//! - **spatial links**: the same over 6-D spatial vectors for rigid bodies turning in space,
//!   [`spatial`] (its algebra, the links read off the bodies, the recursion, the Newton–Euler
//!   passes, M factored along the links).
//!
//! Both recursions read their tree off the model in [`topology`]; their passes give M a, f, L, E
//! and p ([`mod@kinetics`]) where the model's other items need nothing dense, and their derivatives —
//! the recursion's tangent, the kinetic part K and its tangent, M w, ∇E, ∂K/∂p — are taken by forward
//! and reverse mode through their quantities ([`derivatives`]), so that M is never formed — but for
//! the field Jacobian along spatial links of screw joints and orientations, the runtime's analytic
//! derivatives of the inverse dynamics ([`RecursiveJacobian::Links`]).

pub mod derivatives;
pub mod directions;
pub mod kinetics;
pub mod spatial;
pub mod topology;

use rustc_hash::FxHashSet;
use symbolic::{Arena, Expr};

pub use crate::derive::straight::{Bindings, Bound, Tangent};
use crate::layout::Role;
use crate::model::Model;
pub use derivatives::{
    EnergyAlongTree, check_pivots, energy_derivatives, energy_gradient, inverse, metric_product, parameter_derivatives, tangent,
};
pub use directions::{Tree, recursion};
pub use kinetics::{Kinetics, kinetics};

/// The recursive evaluation of q̈ of one model.
pub struct Recursive {
    /// `s = e` in dependency order: the recursion's quantities.
    pub bindings: Bindings,
    /// q̈ⱼ.
    pub accelerations: Vec<Expr>,
    /// The pivots Dⱼ (zero where M is singular).
    pub pivots: Vec<Expr>,
    /// The parent of each coordinate in the tree.
    pub parents: Vec<Option<usize>>,
    /// With the field Jacobian (and no constraints): how it is computed.
    pub jacobian: Option<RecursiveJacobian>,
    /// With constraints and the field Jacobian: the inverse dynamics' kinetic part and its
    /// directional derivative ([`inverse`]), for the saddle point's Jacobian.
    pub inverse: Option<Box<KineticJacobian>>,
    /// Along the recursion's tangent (a tree of directions; links with a floating base or a ball
    /// joint) with inputs (no constraints, no action variable), with the field Jacobian: ∂τ/∂x of
    /// the inverse dynamics ([`InverseJacobian`]).
    pub inverse_jacobian: Option<Box<InverseJacobian>>,
    /// The tree's directions and masses, or its rigid links in space, from which [`kinetics()`]
    /// builds M a, f, E, L and p.
    pub tree: Links,
    /// The same q̈ and pivots as loops over a long chain's repeated joints, where that form pays
    /// ([`spatial::looped`]): what `accelerations` runs.
    pub looped: Option<Box<spatial::looped::Looped>>,
}

/// How the field Jacobian of an unconstrained recursive model is computed (a constrained tree's is
/// its saddle point's, [`Recursive::inverse`]).
pub enum RecursiveJacobian {
    /// Forward mode through the recursion: the directional derivative along a tangent δx of the
    /// state ([`tangent`]), called by the runtime for the 2n basis directions (any joint).
    Tangent(Tangent),
    /// Analytic derivatives of the inverse dynamics along spatial links whose joints are screws or
    /// orientations' (the runtime's `LinkDynamics`, from the joints' quantities at the state, τ and its
    /// derivatives: [`spatial::LinkJacobian`]).
    Links(Box<spatial::LinkJacobian>),
}

impl RecursiveJacobian {
    /// The number of temporaries its quantities bind.
    pub fn bindings(&self) -> usize {
        match self {
            RecursiveJacobian::Tangent(t) => t.bound.bindings.len(),
            RecursiveJacobian::Links(l) => l.quantities.bindings.len(),
        }
    }
}

/// How a constrained tree's saddle point differentiates the kinetic part K of its residual
/// ([`Recursive::inverse`]).
pub enum KineticJacobian {
    /// K's tangent along the tree (any tree): [`Inverse`].
    Tangent(Inverse),
    /// The runtime's analytic ∂K/∂q and ∂K/∂q̇ along links of screw joints
    /// (`LinkDynamics::kinetic_derivatives`), from the links' quantities at the state
    /// ([`spatial::LinkJacobian`] without the forces).
    Links(spatial::LinkJacobian),
}

impl KineticJacobian {
    /// The number of temporaries its quantities bind.
    pub fn bindings(&self) -> usize {
        match self {
            KineticJacobian::Tangent(i) => i.bindings.len() + i.tangent.bound.bindings.len(),
            KineticJacobian::Links(l) => l.quantities.bindings.len(),
        }
    }
}

/// The kinetic part K(q, q̇, a) = M(q) a − f(q, q̇) − τ(q, q̇, t) of the inverse dynamics along the
/// tree (Kane's form, with the accelerations a as inputs: K = M a + the velocity products), and its
/// directional derivative along a tangent δx of the state at fixed a. The saddle point's residual
/// R = (M a − Aᵀλ − f, A a + c) of a constrained tree is K − τ − Aᵀλ in its first rows: the
/// derive differentiates τ and the rows symbolically (few terms) and K by this tangent (O(n) code,
/// called for the 2n basis directions), so that its Jacobian never forms M.
pub struct Inverse {
    /// K's quantities at (x, a), which its derivative reads ([`Tangent::primal`]).
    pub bindings: Bindings,
    /// δK = (∂K/∂x) δx.
    pub tangent: Tangent,
}

/// The derivatives of the inverse dynamics τ_id = M a − f = K − τ along a tree at any
/// accelerations a (`inverse_dynamics_jacobian`): the kinetic part K = M a + the velocity products
/// and its tangent along δx at fixed a ([`inverse`]; O(n) code, called for 2n directions), and the
/// generalized forces' ∂τ/∂q (over the positions: P columns) and ∂τ/∂q̇ (symbolic; few terms).
pub struct InverseJacobian {
    /// K and its tangent.
    pub kinetic: Inverse,
    /// ∂τᵢ/∂qⱼ over the positions (a quaternion's four entries unheld), row by row.
    pub forces_dq: Vec<Vec<Expr>>,
    /// ∂τᵢ/∂q̇ⱼ, row by row.
    pub forces_dv: Vec<Vec<Expr>>,
}

/// What a recursion runs over.
pub enum Links {
    /// Directions of translation (this module's recursion).
    Directions(Box<Tree>),
    /// Rigid links in space ([`spatial`]).
    Spatial(Box<spatial::Links>),
}

impl Recursive {
    /// Whether the parameter `p` enters the tree's directions or masses (the kinetic part of the
    /// dynamics), not only its generalized forces.
    pub fn reads_parameter(&self, arena: &Arena, p: Expr) -> bool {
        let kinetic: Vec<Expr> = match &self.tree {
            Links::Directions(tree) => tree.dirs.iter().map(|d| d.2).chain(tree.comps.iter().map(|c| c.1)).collect(),
            Links::Spatial(links) => {
                let transforms = links.joints.iter().flat_map(|j| j.a.as_flattened().iter().chain(&j.l).copied());
                let inertias = links.inertias.iter().flat_map(|i| i.as_flattened().iter().copied());
                let armature = links.armature.iter().copied();
                transforms.chain(inertias).chain(armature).chain(links.gravity.iter().flatten().copied()).collect()
            }
        };
        kinetic.into_iter().any(|e| arena.depends_on(e, p))
    }

    /// The generalized forces τ of the tree's recursion (with spatial links, without gravity, which
    /// acts through the ground's acceleration: see [`spatial`]).
    pub fn tau(&self) -> &[Expr] {
        match &self.tree {
            Links::Directions(tree) => &tree.tau,
            Links::Spatial(links) => &links.tau,
        }
    }

    /// An estimate of the translational recursion's arithmetic, Σⱼ (3 dⱼ² + 8 dⱼ) for dⱼ
    /// directions at joint j, to compare with the dense path's n³/3 + the forming of M (`None` for
    /// the spatial recursion, which [`choose`] takes by size alone).
    pub fn cost(&self) -> Option<usize> {
        matches!(self.tree, Links::Directions(_)).then(|| self.directions().map(|d| 3 * d * d + 8 * d).sum())
    }

    /// The number of directions at each joint (none for the spatial recursion).
    pub fn directions(&self) -> impl Iterator<Item = usize> + '_ {
        let tree = match &self.tree {
            Links::Directions(t) => Some(t),
            Links::Spatial(_) => None,
        };
        tree.into_iter().flat_map(|t| t.at_joint.iter().map(Vec::len))
    }
}

/// How a mode's dynamics is computed: the one answer to "dense or along a tree, and which", chosen
/// once by [`form`] (see the [module docs](self)).
pub enum Form {
    /// M q̈ = f, M formed from its entries and factored (Cholesky, LU fallback); the reason no
    /// recursion was taken, for rustdoc.
    Entries(String),
    /// M q̈ = f, M formed column by column from its products M a (the entries outgrew their
    /// budget, or `dynamics = columns`: [`crate::derive::euler_lagrange::Equations::mass_product`]);
    /// the reason no recursion was taken.
    Columns(String),
    /// q̈ by the articulated-body recursion along the model's tree (of directions, or of spatial
    /// links); with its [`Kinetics`] — M a, f, L, E and p along the tree — where no item of the
    /// model reads the dense M, f, p or E (nothing dense is derived then).
    Recursive {
        /// The recursion.
        recursion: Box<Recursive>,
        /// The passes along its tree, where the model needs nothing dense.
        kinetics: Option<Box<Kinetics>>,
    },
}

impl Form {
    /// The recursion, if the form is one.
    pub fn recursion(&self) -> Option<&Recursive> {
        match self {
            Form::Recursive { recursion, .. } => Some(recursion),
            _ => None,
        }
    }

    /// The passes along the tree, where the model derives nothing dense.
    pub fn kinetics(&self) -> Option<&Kinetics> {
        match self {
            Form::Recursive { kinetics, .. } => kinetics.as_deref(),
            _ => None,
        }
    }

    /// The recursion with its passes: a model whose M, f, L, E and p all follow its tree.
    pub fn along_tree(&self) -> Option<(&Recursive, &Kinetics)> {
        match self {
            Form::Recursive { recursion, kinetics: Some(k) } => Some((recursion, k)),
            _ => None,
        }
    }

    /// Whether q̈ comes from a recursion.
    pub fn is_recursive(&self) -> bool {
        matches!(self, Form::Recursive { .. })
    }

    /// The dense form with M by columns where `columns` (the equations' M a is there), else as it is.
    #[must_use]
    pub fn by_columns(self, columns: bool) -> Form {
        match self {
            Form::Entries(why) if columns => Form::Columns(why),
            other => other,
        }
    }

    /// The name the generated `DYNAMICS` constant gives it: `"constrained"` for a model with
    /// constraints (their saddle point, whatever factors M), else `"recursive"`, `"columns"` or
    /// `"dense"`.
    pub fn name(&self, constrained: bool) -> &'static str {
        match self {
            _ if constrained => "constrained",
            Form::Recursive { .. } => "recursive",
            Form::Columns(_) => "columns",
            Form::Entries(_) => "dense",
        }
    }
}

/// The most directions of mass one joint may move in a constrained tree model (the runtime's
/// `mechanics::tree::MAX_DIRECTIONS`, checked by a test of the facade).
pub const MAX_DIRECTIONS: usize = 4;

/// The dense path is kept below this many coordinates unless asked otherwise: small models' M is
/// cheap to form and factor (`cargo bench --bench chain -- rhs/`: the two paths of the chain are
/// level at 10 links, the recursion 1.8 times faster at 20).
pub const AUTO_MIN_DOF: usize = 12;

/// The same for the spatial recursion (bodies turning in space): a chain of links turning about z,
/// y and x in turn is level with the dense field at 3 links (59 against 60 ns), takes 0.6–0.9 of its
/// time at 6 and 0.33 at 12 (`cargo bench --bench chain -- rhs_spatial`), and expands into less
/// code from 6 links on (87 against 126 KB; 194 against 599 KB at 12).
pub const SPATIAL_MIN_DOF: usize = 6;

/// The same for the spatial recursion with constraints: a chain of links turning in space with its
/// tip held in x and y takes 0.70–0.80 of the dense field's time at 12 links (its Jacobian 0.28–0.29 by K's tangent, 0.17 with the links' analytic ∂K/∂x on 2026-12-02)
/// and 0.53–0.55 at 20 (three runs of `cargo bench --bench chain -- constrained_spatial`, 2026-11-27); in a one-off
/// harness the same day 1.1 at 6 (its Jacobian 0.87), 0.67 at 16 and 0.36 at 24; the Whipple
/// bicycle (8 coordinates, rolling constraints) 1.1–1.2, its Jacobian 1.3–1.4.
pub const SPATIAL_CONSTRAINED_MIN_DOF: usize = 12;

/// Spatial links give the model's mass operator as M factored along them (the runtime's
/// `LinkFactor`, O(n) per solve) from this many coordinates on; below, M along the links (by the
/// composite rigid bodies: straight-line code specialised to its joints up to [`CRBA_MAX_PAIRS`],
/// the runtime's in the ground's axes above), factored densely, is cheaper. With constraints (the factor on the hot path of the saddle point) the factor's parts
/// are generated specialised to the joints: the held chain's field with them takes 1.3 times its
/// time with M from products at 12 links, 1.0–1.1 at 16, 0.89 at 20, 0.56 at 24 and 0.45 at 32 (in
/// general 6-D arithmetic, `LinkFactor::new`: 1.6, 1.2, 1.0, 0.62, 0.50; a one-off harness,
/// 2026-11-27); without, the runtime computes them from the joints (a third of the code).
pub const LINK_FACTOR_MIN_DOF: usize = 20;

/// Spatial links give M by the composite rigid bodies (straight-line code, one force transform per
/// pair of joints one above the other) where the tree has at most this many such pairs (counting
/// each joint with itself: Σ_j depth(j)); above, by the runtime from the joints' transforms and
/// the links' inertias (`LinkDynamics::mass_matrix`, the composite rigid bodies in the ground's
/// axes: O(n) code, one 6-D dot product per such pair; until 2026-12-04 n products M eⱼ of a
/// generated Newton–Euler pass, 6.4 and 5.1 times its time at 24 and 48 links — see
/// `docs/guide/performance.md`).
/// The arms are below it (the Panda 44 pairs, the UR5 21: M in 0.30–0.32 of Pinocchio's CRBA time,
/// against 1.2–1.8 by products), and so are a quadruped on its floating base (117) and the 29-joint
/// humanoid of `scripts/compare_urdf.py` (146: M in 575 ns against 4.2 µs by products and
/// Pinocchio's 1.33 µs; its release build the same 1.45 s, 2026-12-03 — but 10.5 s against 3.4 s
/// with debug information, which the many temporaries of one long function cost); a chain's from
/// 18 links on are above, whose code stays O(n log n).
pub const CRBA_MAX_PAIRS: usize = 160;

/// The pairs of joints one above the other in a tree, each joint with itself included:
/// Σ_j depth(j) (the CRBA's force transforms, [`CRBA_MAX_PAIRS`]).
pub fn crba_pairs(parents: &[Option<usize>]) -> usize {
    (0..parents.len()).map(|j| std::iter::successors(Some(j), |&k| parents[k]).count()).sum()
}

/// The form of `model`'s dynamics (see the [module docs](self)): the recursion or the dense path as
/// asked or by size; for a recursion, its passes along the tree where no item of the model reads
/// the dense M, f, p or E ([`dense_item`]); and the dense path for a constrained tree that such an
/// item, or a joint moving more directions than the runtime's tree factor takes, keeps from its
/// tree (an error if `dynamics = recursive` asked otherwise). A dense form is `Entries` here;
/// [`Form::by_columns`] settles it once the equations are derived. Mistakes go to `cx`.
pub fn form(model: &Model, arena: &mut Arena, hybrid: bool, cx: &mut crate::diagnostics::Ctxt) -> Form {
    let form = cx.ok(derive(model, arena)).unwrap_or_else(|| Form::Entries(String::new()));
    // A tree model whose items all have their form along the tree derives nothing dense: its
    // expansion and code stay linear in the tree's size. A constrained tree must be such a model:
    // its saddle point is solved with M factored along the tree (the runtime's `TreeFactor`, or
    // `LinkFactor` along spatial links), or with the dense M as any other model.
    let dense_item = dense_item(model, hybrid, form.is_recursive());
    let Form::Recursive { recursion, .. } = form else { return form };
    if !model.constraints.is_empty() {
        let why = dense_item.map(|item| format!("{item} reads the dense M")).or_else(|| {
            recursion
                .directions()
                .any(|d| d > MAX_DIRECTIONS)
                .then(|| format!("a joint moves more than {MAX_DIRECTIONS} directions of mass (the tree factor's limit)"))
        });
        if let Some(why) = why {
            let why = format!("the model has constraints and {why}, so their saddle point is solved with the dense M");
            if let Some(kw) = &model.dynamics {
                cx.error(kw.span(), format!("`dynamics = recursive` cannot be followed: {why}. Remove `dynamics = recursive`"));
            }
            return Form::Entries(why);
        }
    }
    let kinetics = dense_item.is_none().then(|| Box::new(kinetics(model, arena, &recursion)));
    Form::Recursive { recursion, kinetics }
}

/// The first item of `model` that reads the dense M, f, p or E (so that a tree model derives them
/// too), if any: reductions and discrete systems (p and M); impacts, modes, inputs and
/// sensitivities unless the model is a tree (their laws, energy derivatives and ∂g/∂w read M, E
/// and f; along a tree they do not). Along a tree, g = f − M a = τ − K with
/// K = M a + (velocity products): ∂g/∂w = ∂τ/∂w for an input or a parameter of the forces (or of
/// the constraints), less ∂K/∂p, differentiated along the tree ([`parameter_derivatives`]),
/// for a parameter of its masses or directions; q̈'s
/// sensitivity is M⁻¹ ∂g/∂w solved along the tree (with constraints, the saddle point's
/// ∂R/∂w = (−∂g/∂w − ∂(Aᵀλ)/∂w, ∂(A a + c)/∂w), solved with the tree factor inside it). The
/// field Jacobian of a constrained tree differentiates its saddle point along the tree
/// ([`Inverse`]).
fn dense_item(model: &Model, hybrid: bool, tree: bool) -> Option<&'static str> {
    // A tree (or a mode that is one) with impacts or transitions: its restitution laws take
    // M (q̇⁺ − q̇⁻) along the tree (`dynamics::metric_product`), its map laws and chart changes read no
    // M (a symmetry's momentum jump under a map law is proved on J written out), and E's
    // derivatives are passes along it (`dynamics::energy_derivatives`).
    if (hybrid || !model.impacts.is_empty()) && !tree {
        Some("its impacts (or modes)")
    } else if !model.reductions.is_empty() {
        Some("its reductions")
    } else if model.discretization.is_some() {
        Some("its discrete system")
    } else if (!model.inputs.is_empty() || !model.sensitivity.is_empty()) && !tree {
        Some("its inputs or sensitivities")
    } else {
        None
    }
}

/// The model's dynamics: as asked by `dynamics = ...`, or chosen by size (the recursion for a tree
/// of at least [`AUTO_MIN_DOF`] coordinates whose recursion is cheaper than the dense path, the
/// spatial recursion from [`SPATIAL_MIN_DOF`] coordinates on, from [`SPATIAL_CONSTRAINED_MIN_DOF`]
/// with constraints). An
/// explicit `dynamics = recursive` on a model that is not a tree is an error (the reason).
fn derive(model: &Model, arena: &mut Arena) -> Result<Form, syn::Error> {
    let chosen = choose(model, arena)?;
    Ok(match chosen {
        // A constrained tree solves its saddle point with M factored along the tree; its field
        // Jacobian is the saddle point's (not the unconstrained recursion's tangent).
        Form::Recursive { mut recursion, kinetics } if model.field_jacobian && model.constraints.is_empty() => {
            // Along links of screw joints and orientations, the runtime's analytic derivatives of
            // the inverse dynamics (O(n²) in 6-D arithmetic); the recursion's tangent otherwise.
            let along_links = match &recursion.tree {
                Links::Spatial(links) => spatial::link_jacobian(model, arena, links, recursion.bindings.len(), true),
                Links::Directions(_) => None,
            };
            recursion.jacobian = Some(match along_links {
                Some(l) => RecursiveJacobian::Links(Box::new(l)),
                None => RecursiveJacobian::Tangent(tangent(model, arena, &recursion)),
            });
            // The inverse dynamics' derivatives along the tree's tangent (a tree of directions, or
            // links whose joints turn with their own coordinates) for the models that control it
            // (its inputs), where τ is free of an action variable; along links of screw joints and
            // orientations they are the runtime's. τ's derivatives over the positions as they are (quaternions unheld:
            // the generated code takes them along each orientation's rates).
            if matches!(recursion.jacobian, Some(RecursiveJacobian::Tangent(_)))
                && !model.inputs.is_empty()
                && model.layout.z.is_none()
            {
                let tau = model.layout.unhold_norms(arena, recursion.tau());
                let [forces_dq, forces_dv] = arena.jacobian_blocks(&tau, [&model.layout.q, &model.layout.qd]);
                let kinetic = inverse(model, arena, &recursion);
                recursion.inverse_jacobian = Some(Box::new(InverseJacobian { kinetic, forces_dq, forces_dv }));
            }
            Form::Recursive { recursion, kinetics }
        }
        Form::Recursive { mut recursion, kinetics } if model.field_jacobian => {
            // Along links of screw joints, the runtime's analytic ∂K/∂x; K's tangent otherwise.
            let along_links = match &recursion.tree {
                Links::Spatial(links) => spatial::link_jacobian(model, arena, links, recursion.bindings.len(), false),
                Links::Directions(_) => None,
            };
            recursion.inverse = Some(Box::new(match along_links {
                Some(l) => KineticJacobian::Links(l),
                None => KineticJacobian::Tangent(inverse(model, arena, &recursion)),
            }));
            Form::Recursive { recursion, kinetics }
        }
        other => other,
    })
}

/// The recursion or the dense path, as asked or by size.
fn choose(model: &Model, arena: &mut Arena) -> Result<Form, syn::Error> {
    let asked = model.dynamics.as_ref();
    if asked.is_some_and(|d| d == "dense") {
        return Ok(Form::Entries("asked for with `dynamics = dense`".into()));
    }
    if let Some(kw) = asked.filter(|d| *d == "columns") {
        if !model.layout.orientations.is_empty() || model.layout.z.is_some() {
            return Err(syn::Error::new(
                kw.span(),
                "`dynamics = columns` (M column by column from its products M a = ∂p/∂q̇ along a) is generated for \
                 Lagrangians L(t, q, q̇) only: a model with orientations (Hamel's equations in body angular \
                 velocities) or an action variable keeps M's entries. Write `dynamics = dense`, or remove the item",
            ));
        }
        return Ok(Form::Entries("asked for with `dynamics = columns`".into()));
    }

    let n = model.dof();
    // The translational recursion, else (with bodies) the spatial one — the spatial one first where
    // a body's frame turns with several coordinates, which the translational one cannot follow.
    // Where neither applies, the spatial one's reason for a model with rigid bodies, the other's
    // otherwise.
    let rigid = model.bodies.iter().any(|b| b.rotation.is_some());
    let turning = model.bodies.iter().any(|b| {
        b.rotation.is_some_and(|r| {
            let moved: FxHashSet<usize> = r
                .matrix
                .as_flattened()
                .iter()
                .flat_map(|&e| arena.free_symbols(e))
                .filter_map(|s| match model.layout.role(s) {
                    Some(Role::Coordinate(i)) => Some(i),
                    _ => None,
                })
                .collect();
            moved.len() > 1
        })
    });
    // Bodies turning in space below SPATIAL_MIN_DOF coordinates, or with constraints below
    // SPATIAL_CONSTRAINED_MIN_DOF, take the dense path whatever their kinematics (neither recursion
    // is taken by itself there): the tree is not read, which saves its expansion time.
    // (Action variables are refused at once by both, with their own reason.) An orientation counts
    // as one joint: a free body's six velocities are one link.
    let plain = model.layout.z.is_none();
    let joints = n - 2 * model.layout.orientations.len();
    if asked.is_none()
        && plain
        && turning
        && (joints < SPATIAL_MIN_DOF || !model.constraints.is_empty() && joints < SPATIAL_CONSTRAINED_MIN_DOF)
    {
        let why = if joints < SPATIAL_MIN_DOF {
            let unit = match (joints == n, joints == 1) {
                (true, _) => "coordinates",
                (false, true) => "joint (an orientation counted as one)",
                (false, false) => "joints (an orientation counted as one)",
            };
            format!("its bodies turn in space with {joints} {unit}, where the dense path is as fast")
        } else {
            "its bodies turn in space and it has constraints, whose saddle point the dense M solves faster at this size".into()
        };
        return Ok(Form::Entries(format!(
            "{why} (`dynamics = recursive` takes the spatial recursion if the model is a tree of them)"
        )));
    }
    let found = if turning {
        spatial::recursion(model, arena).or_else(|why| recursion(model, arena).map_err(|_| why))
    } else {
        recursion(model, arena).or_else(|why| {
            if model.bodies.is_empty() {
                return Err(why);
            }
            spatial::recursion(model, arena).map_err(|spatial_why| if rigid { spatial_why } else { why })
        })
    };
    match (found, asked) {
        (Ok(r), Some(_)) => Ok(Form::Recursive { recursion: Box::new(r), kinetics: None }),
        (Err(why), Some(kw)) => Err(syn::Error::new(
            kw.span(),
            format!(
                "`dynamics = recursive` needs kinematics the recursion can follow, and {why}. Remove \
                 `dynamics = recursive` to solve M q̈ = f instead"
            ),
        )),
        (Ok(r), None) => {
            // The spatial recursion from SPATIAL_MIN_DOF on (SPATIAL_CONSTRAINED_MIN_DOF with
            // constraints), by size alone (its dense M is costlier per entry than a planar chain's).
            let dense = n * n * n / 3 + 4 * n * n;
            let chosen = match r.cost() {
                Some(cost) => n >= AUTO_MIN_DOF && cost < dense,
                None if model.constraints.is_empty() => joints >= SPATIAL_MIN_DOF,
                None => joints >= SPATIAL_CONSTRAINED_MIN_DOF,
            };
            if chosen {
                Ok(Form::Recursive { recursion: Box::new(r), kinetics: None })
            } else {
                Ok(Form::Entries(format!(
                    "the model is a kinematic tree, but with {n} coordinate{} the dense path is as fast \
                     (`dynamics = recursive` takes the recursion)",
                    if n == 1 { "" } else { "s" }
                )))
            }
        }
        (Err(why), None) => Ok(Form::Entries(why)),
    }
}
