//! Recursive dynamics along a kinematic tree: q̈ in O(n) by the articulated-body recursion, derived
//! symbolically and emitted as straight-line code per joint; and ([`kinetics()`]) M a, f, L, E and p
//! along the same tree, for models that need nothing dense.
//!
//! Two recursions: this module's over *directions* of translation (point masses and planar links,
//! below), and [`spatial`]'s over 6-D spatial vectors for rigid bodies turning in space on a tree of
//! joints in relative angles (an arm, a gimbal, a top in Euler angles). A model takes the first
//! that follows it — the spatial one first where a body's frame turns with several coordinates.
//!
//! **Which models.** The Lagrangian over the rates of its positions ([`crate::model::HeldLagrangian`]) must be
//!
//! ```text
//! L = Σₖ ½ mₖ vₖ² − V(t, q),      vₖ = ẋₖ = Σ_{j ∈ Dₖ} sₖⱼ(qⱼ) q̇ⱼ
//! ```
//!
//! — point masses (particles, or `m / 2 * (dot(x).powi(2) + …)` written by hand) with constant
//! masses, and bodies whose angular velocity components are such rates too (a planar link turning
//! with one absolute angle, ω = (0, 0, q̇), with a diagonal inertia), every velocity coefficient sₖⱼ a function of its own coordinate qⱼ alone (a position is
//! its parent's plus terms of one coordinate, as in a chain in absolute angles or a pendulum on a
//! cart), no explicit time in the positions — and the coordinates must form a tree. It is built in
//! declaration order: the coordinates that move a mass together with j, declared before it, must lie
//! on one path, and j hangs below the deepest; where they lie in different trees of the forest so
//! far, those trees are stacked (a root grafted below the deepest such coordinate of the tree
//! before: translations commute, so a longer path changes no velocity). Each condition is checked
//! exactly (the decomposition of L by the zero test, the coefficients by their symbols, the rows
//! by rebuilding the rates); a model that fails one keeps the dense path, and `dynamics =
//! recursive` on it is a compile error saying which.
//!
//! **Directions.** Along the tree every mass moves with a velocity row Σ sⱼ q̇ⱼ over the path to
//! its joint. Its truncations to the paths of the ancestors are the *directions* of those joints: a
//! direction d at joint j is its parent's direction (or none) plus Sⱼ(d) q̇ⱼ. All motion is
//! translation, so the spatial algebra of Featherstone's algorithm reduces to the identity
//! transport between a direction and its parent; rotations enter only through the coefficients
//! sⱼ(qⱼ). A chain in the plane has two directions per joint (x and y), a link with its mass at the
//! middle and its joint at the end three.
//!
//! **The recursion** (Featherstone's articulated-body algorithm over directions; τ = −∂V/∂q + Q):
//!
//! ```text
//! Cⱼ[d]  = (∂S_j[d]/∂qⱼ) q̇ⱼ²                                   (velocity-product acceleration)
//! leaves → root:  Uⱼ = I^Aⱼ Sⱼ,  Dⱼ = Sⱼ·Uⱼ,  uⱼ = τⱼ − Sⱼ·p^Aⱼ
//!                 I^A_parent += Xᵀ (I^Aⱼ − Uⱼ Uⱼᵀ / Dⱼ) X
//!                 p^A_parent += Xᵀ (p^Aⱼ + (I^Aⱼ − Uⱼ Uⱼᵀ/Dⱼ) Cⱼ + Uⱼ uⱼ / Dⱼ)
//! root → leaves:  a'ⱼ = X a_parent + Cⱼ,  q̈ⱼ = (uⱼ − Uⱼ·a'ⱼ) / Dⱼ,  aⱼ = a'ⱼ + Sⱼ q̈ⱼ
//! ```
//!
//! with I^Aⱼ starting as the diagonal of the masses at joint j and X the map of each direction to
//! its parent's. The pivots Dⱼ are those of a factorisation of M along the tree: positive where M
//! is, and returned with q̈ so that the runtime reports a singular M. Every quantity is bound to a
//! symbol of its own ([`Role::Temporary`], emitted with `symbolic::emit_bound`), so the code is
//! linear in the number of directions.

use std::collections::BTreeMap;

use rustc_hash::{FxHashMap, FxHashSet};
use symbolic::{Arena, Expr, Node};

pub use super::straight::{Bindings, Bound, Tangent};
use super::straight::{Builder, forward, reverse, tangent_of};
use crate::layout::{Layout, Role};
use crate::model::Model;

pub mod kinetics;
pub mod spatial;
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
    /// With the field Jacobian: the directional derivative along a tangent δx of the state
    /// ([`tangent`]).
    pub tangent: Option<Tangent>,
    /// With constraints and the field Jacobian: the inverse dynamics' kinetic part and its
    /// directional derivative ([`inverse`]), for the saddle point's Jacobian.
    pub inverse: Option<Box<Inverse>>,
    /// The tree's directions and masses, or its rigid links in space, from which [`kinetics()`]
    /// builds M a, f, E, L and p.
    pub tree: Links,
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

/// What a recursion runs over.
pub enum Links {
    /// Directions of translation (this module's recursion).
    Directions(Box<Tree>),
    /// Rigid links in space ([`spatial`]).
    Spatial(Box<spatial::Links>),
}

/// The structure the translational recursion runs over.
pub struct Tree {
    /// Each direction of motion: its joint, its parent direction, its coefficient Sⱼ(qⱼ). A
    /// parent's index is below its children's.
    pub dirs: Vec<(usize, Option<usize>, Expr)>,
    /// Each mass component (a rate of the Lagrangian with its summed mass): its direction, its mass.
    pub comps: Vec<(usize, Expr)>,
    /// The mass at each direction (its components' summed).
    pub masses: Vec<Expr>,
    /// The joints, parents before children (the order of the recursion's passes).
    pub order: Vec<usize>,
    /// The directions at each joint, in index order.
    pub at_joint: Vec<Vec<usize>>,
    /// The generalized forces τ = ∂(L̃ at v = 0)/∂q + Q.
    pub tau: Vec<Expr>,
    /// L̃ at v = 0: the Lagrangian's part free of velocities (−V).
    pub rest: Expr,
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
                transforms.chain(inertias).chain(links.gravity.iter().flatten().copied()).collect()
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

/// How the model's accelerations are computed.
pub enum Dynamics {
    /// M q̈ = f, M formed and factored (Cholesky, LU fallback). The reason the recursion was not
    /// taken, for rustdoc.
    Dense(String),
    /// The articulated-body recursion.
    Recursive(Recursive),
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
/// tip held in x and y takes 0.70–0.80 of the dense field's time at 12 links (its Jacobian 0.28–0.29)
/// and 0.53–0.55 at 20 (three runs of `cargo bench --bench chain -- constrained_spatial`, 2026-11-27); in a one-off
/// harness the same day 1.1 at 6 (its Jacobian 0.87), 0.67 at 16 and 0.36 at 24; the Whipple
/// bicycle (8 coordinates, rolling constraints) 1.1–1.2, its Jacobian 1.3–1.4.
pub const SPATIAL_CONSTRAINED_MIN_DOF: usize = 12;

/// Spatial links give the model's mass operator as M factored along them (the runtime's
/// `LinkFactor`, O(n) per solve) from this many coordinates on; below, M from its n products along
/// the links (O(n²), each product straight-line code specialised to its joints), factored densely,
/// is cheaper. With constraints (the factor on the hot path of the saddle point) the factor's parts
/// are generated specialised to the joints: the held chain's field with them takes 1.3 times its
/// time with M from products at 12 links, 1.0–1.1 at 16, 0.89 at 20, 0.56 at 24 and 0.45 at 32 (in
/// general 6-D arithmetic, `LinkFactor::new`: 1.6, 1.2, 1.0, 0.62, 0.50; a one-off harness,
/// 2026-11-27); without, the runtime computes them from the joints (a third of the code).
pub const LINK_FACTOR_MIN_DOF: usize = 20;

/// The model's dynamics: as asked by `dynamics = ...`, or chosen by size (the recursion for a tree
/// of at least [`AUTO_MIN_DOF`] coordinates whose recursion is cheaper than the dense path, the
/// spatial recursion from [`SPATIAL_MIN_DOF`] coordinates on, from [`SPATIAL_CONSTRAINED_MIN_DOF`]
/// with constraints). An
/// explicit `dynamics = recursive` on a model that is not a tree is an error (the reason).
pub fn derive(model: &Model, arena: &mut Arena) -> Result<Dynamics, syn::Error> {
    let chosen = choose(model, arena)?;
    Ok(match chosen {
        // A constrained tree solves its saddle point with M factored along the tree; its field
        // Jacobian is the saddle point's (not the unconstrained recursion's tangent).
        Dynamics::Recursive(mut r) if model.field_jacobian && model.constraints.is_empty() => {
            r.tangent = Some(tangent(model, arena, &r));
            Dynamics::Recursive(r)
        }
        Dynamics::Recursive(mut r) if model.field_jacobian => {
            r.inverse = Some(Box::new(inverse(model, arena, &r)));
            Dynamics::Recursive(r)
        }
        other => other,
    })
}

/// The recursion or the dense path, as asked or by size.
fn choose(model: &Model, arena: &mut Arena) -> Result<Dynamics, syn::Error> {
    let asked = model.dynamics.as_ref();
    if asked.is_some_and(|d| d == "dense") {
        return Ok(Dynamics::Dense("asked for with `dynamics = dense`".into()));
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
        return Ok(Dynamics::Dense("asked for with `dynamics = columns`".into()));
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
    // (Orientations and action variables are refused at once by both, with their own reason.)
    let plain = model.layout.orientations.is_empty() && model.layout.z.is_none();
    if asked.is_none()
        && plain
        && turning
        && (n < SPATIAL_MIN_DOF || !model.constraints.is_empty() && n < SPATIAL_CONSTRAINED_MIN_DOF)
    {
        let why = if n < SPATIAL_MIN_DOF {
            format!("its bodies turn in space with {n} coordinates, where the dense path is as fast")
        } else {
            "its bodies turn in space and it has constraints, whose saddle point the dense M solves faster at this size".into()
        };
        return Ok(Dynamics::Dense(format!(
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
        (Ok(r), Some(_)) => Ok(Dynamics::Recursive(r)),
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
                None if model.constraints.is_empty() => n >= SPATIAL_MIN_DOF,
                None => n >= SPATIAL_CONSTRAINED_MIN_DOF,
            };
            if chosen {
                Ok(Dynamics::Recursive(r))
            } else {
                Ok(Dynamics::Dense(format!(
                    "the model is a kinematic tree, but with {n} coordinate{} the dense path is as fast \
                     (`dynamics = recursive` takes the recursion)",
                    if n == 1 { "" } else { "s" }
                )))
            }
        }
        (Err(why), None) => Ok(Dynamics::Dense(why)),
    }
}

/// A velocity row: (coordinate, coefficient), by coordinate.
type Row = Vec<(usize, Expr)>;

/// The rates of one term of a velocity (see [`velocity_row`]): its coefficient along each
/// velocity it holds, and whether Σⱼ cⱼ q̇ⱼ is the term itself.
type TermRow = (Vec<(usize, Expr)>, bool);

/// vₖ as a sparse row over q̇, or why it is not one; with the gap Σⱼ cⱼ q̇ⱼ − vₖ where the row is not
/// vₖ term by term, for the caller to zero-test once the tree's structure is checked (the test
/// evaluates vₖ exactly at sample points: the most expensive check, and a model that is no tree
/// fails a structural one first). `terms` keeps each term's rates: a term shared by several
/// velocities (a chain's link rate, in the rate of every position below it) is read once.
fn velocity_row(
    arena: &mut Arena,
    syms: &Layout,
    v: Expr,
    terms_read: &mut FxHashMap<Expr, TermRow>,
) -> Result<(Row, Option<Expr>), String> {
    let terms: Vec<Expr> = match arena.node(v) {
        Node::Add(ts) => ts.to_vec(),
        _ => vec![v],
    };
    let mut row: BTreeMap<usize, Vec<Expr>> = BTreeMap::new();
    let mut every_term_exact = true;
    for t in terms {
        if let std::collections::hash_map::Entry::Vacant(e) = terms_read.entry(t) {
            e.insert(term_rates(arena, syms, t)?);
        }
        let (parts, exact) = &terms_read[&t];
        every_term_exact &= *exact;
        for &(j, c) in parts {
            row.entry(j).or_default().push(c);
        }
    }
    let row: Row = row.into_iter().map(|(j, cs)| (j, arena.add(&cs))).collect();
    if every_term_exact {
        // Each term is Σⱼ cⱼ q̇ⱼ: so is their sum.
        return Ok((row, None));
    }
    let terms: Vec<Expr> = row.iter().map(|&(j, c)| arena.mul2(c, syms.qd[j])).collect();
    let back = arena.add(&terms);
    let gap = (back != v).then(|| arena.sub(back, v));
    Ok((row, gap))
}

/// One term's coefficients along the velocities it holds (see [`velocity_row`]).
fn term_rates(arena: &mut Arena, syms: &Layout, t: Expr) -> Result<TermRow, String> {
    let mut rates = Vec::new();
    for s in arena.free_symbols(t) {
        match syms.role(s) {
            Some(Role::Velocity(j)) => rates.push(j),
            Some(Role::Time) => return Err("a position moves with time (its rate depends on t)".into()),
            _ => {}
        }
    }
    if rates.is_empty() {
        return Err("a position moves with time (its rate has a term without a velocity)".into());
    }
    let mut parts = Vec::with_capacity(rates.len());
    for j in rates {
        let c = arena.diff(t, syms.qd[j]);
        if arena.free_symbols(c).into_iter().any(|s| matches!(syms.role(s), Some(Role::Velocity(_)))) {
            return Err("a kinetic term is not quadratic in the velocities".into());
        }
        parts.push((j, c));
    }
    let products: Vec<Expr> = parts.iter().map(|&(j, c)| arena.mul2(c, syms.qd[j])).collect();
    let exact = arena.add(&products) == t;
    Ok((parts, exact))
}

/// The terms of `e` to be read one by one: its sum's terms, a product with one sum that holds
/// symbols of `held` (`m/2·(ẋ² + ẏ²)`, ½·Σ mₖ vₖ², g·Σ mₖ yₖ) distributed over that sum's terms,
/// recursively — so that each term holds few of those symbols (the sum is the same).
fn split_terms(arena: &mut Arena, e: Expr, held: &FxHashMap<Expr, usize>) -> Vec<Expr> {
    let mut out = Vec::new();
    let mut stack = vec![e];
    while let Some(t) = stack.pop() {
        match arena.node(t).clone() {
            Node::Add(ts) => stack.extend(ts.iter().copied()),
            Node::Mul(fs) => {
                let holds = |arena: &Arena, f: Expr| arena.free_symbols(f).iter().any(|s| held.contains_key(s));
                let with: Vec<usize> = (0..fs.len()).filter(|&i| holds(arena, fs[i])).collect();
                match with.as_slice() {
                    [i] if matches!(arena.node(fs[*i]), Node::Add(_)) => {
                        let Node::Add(inner) = arena.node(fs[*i]).clone() else { unreachable!("matched") };
                        let others: Vec<Expr> = fs.iter().enumerate().filter(|&(k, _)| k != *i).map(|(_, &f)| f).collect();
                        for u in inner.iter() {
                            let mut factors = others.clone();
                            factors.push(*u);
                            stack.push(arena.mul(&factors));
                        }
                    }
                    _ => out.push(t),
                }
            }
            _ => out.push(t),
        }
    }
    out
}

/// ∇e over `vars` for a sum whose terms each involve few of them (a tree's potential: each term a
/// mass times one link's height): each term differentiated only along the variables it holds, so
/// the cost is the sum's size times the variables per term, not times all of them. A product of
/// factors free of `vars` with one sum that holds them is not multiplied out: its terms are read
/// with the product of the other factors as their weight, and a term met under several weights
/// (a link's height in the height of every link below it) is differentiated once, with the sum
/// of its weights.
fn sparse_gradient(arena: &mut Arena, e: Expr, vars: &[Expr]) -> Vec<Expr> {
    let index: FxHashMap<Expr, usize> = vars.iter().enumerate().map(|(i, &v)| (v, i)).collect();
    let holding = arena.holding(vars, e);
    // (weight, term) with e = Σ weight · term, the weights free of `vars`.
    let one = arena.one();
    let mut weights: FxHashMap<Expr, Vec<Expr>> = FxHashMap::default();
    let mut terms = Vec::new();
    let mut stack = vec![(one, e)];
    while let Some((w, t)) = stack.pop() {
        if !holding.holds(t) {
            continue;
        }
        match arena.node(t).clone() {
            Node::Add(ts) => stack.extend(ts.iter().map(|&u| (w, u))),
            Node::Mul(fs) => {
                let with: Vec<usize> = (0..fs.len()).filter(|&i| holding.holds(fs[i])).collect();
                match with.as_slice() {
                    [i] if matches!(arena.node(fs[*i]), Node::Add(_)) => {
                        let Node::Add(inner) = arena.node(fs[*i]).clone() else { unreachable!("matched") };
                        let mut factors: Vec<Expr> = fs.iter().enumerate().filter(|&(k, _)| k != *i).map(|(_, &f)| f).collect();
                        factors.push(w);
                        let weight = arena.mul(&factors);
                        stack.extend(inner.iter().map(|&u| (weight, u)));
                    }
                    _ => {
                        let seen = weights.entry(t).or_default();
                        if seen.is_empty() {
                            terms.push(t);
                        }
                        seen.push(w);
                    }
                }
            }
            _ => {
                let seen = weights.entry(t).or_default();
                if seen.is_empty() {
                    terms.push(t);
                }
                seen.push(w);
            }
        }
    }
    let mut parts: Vec<Vec<Expr>> = vec![Vec::new(); vars.len()];
    for t in terms {
        let weight = arena.add(&weights[&t]);
        for s in arena.free_symbols(t) {
            if let Some(&i) = index.get(&s) {
                let d = arena.diff(t, s);
                parts[i].push(arena.mul2(weight, d));
            }
        }
    }
    parts.iter().map(|p| arena.add(p)).collect()
}

/// The recursion of `model`, or why its kinematics are not a tree it can follow.
pub fn recursion(model: &Model, arena: &mut Arena) -> Result<Recursive, String> {
    let syms = &model.layout;
    let n = model.dof();
    if !syms.orientations.is_empty() || syms.z.is_some() {
        return Err("the model has an orientation or an action variable".into());
    }
    let Some(held) = &model.held else {
        return Err("its Lagrangian could not be written over the rates of its positions".into());
    };
    // L̃ = rest + Σ ½ mₖ vₖ², the masses constant, rest free of velocities — term by term (each
    // term of L̃ is rate-free or ½ Σ m w² over the rates it holds, by a zero test of its own), so
    // that the cost is L̃'s size, not its size times the number of rates.
    let lt = held.lagrangian;
    let index: FxHashMap<Expr, usize> = held.rates.iter().enumerate().map(|(k, &(w, _))| (w, k)).collect();
    let terms = split_terms(arena, lt, &index);
    let half = arena.num(symbolic::Rational::new(1, 2).expect("1/2"));
    let mut rest_terms = Vec::new();
    let mut mass_parts: Vec<Vec<Expr>> = vec![Vec::new(); held.rates.len()];
    for t in terms {
        let symbols = arena.free_symbols(t);
        let held_here: Vec<usize> = symbols.iter().filter_map(|s| index.get(s).copied()).collect();
        if symbols.iter().any(|&s| matches!(syms.role(s), Some(Role::Velocity(_)))) {
            return Err("the Lagrangian has velocity terms other than ½ m ẋ² of positions (a velocity written bare \
                        outside `dot(..)` squared, or products of rates)"
                .into());
        }
        if held_here.is_empty() {
            rest_terms.push(t);
            continue;
        }
        let mut rebuilt = Vec::with_capacity(held_here.len());
        for k in held_here {
            let w = held.rates[k].0;
            let p = arena.diff(t, w);
            let m = arena.diff(p, w);
            if arena.free_symbols(m).iter().any(|&s| !matches!(syms.role(s), Some(Role::Parameter(_)))) {
                return Err("a mass depends on the state (or the kinetic energy is not a sum of squares of rates)".into());
            }
            let w2 = arena.powi(w, 2);
            rebuilt.push(arena.mul(&[half, m, w2]));
            mass_parts[k].push(m);
        }
        let rebuilt = arena.add(&rebuilt);
        if rebuilt != t {
            let gap = arena.sub(t, rebuilt);
            if !arena.zero_test(gap).is_zero() {
                return Err("the kinetic energy is not Σ ½ m ẋ² over positions (it has products of different rates, or \
                            rates times positions)"
                    .into());
            }
        }
    }
    let rest = arena.add(&rest_terms);
    let masses: Vec<Expr> = mass_parts.iter().map(|p| arena.add(p)).collect();

    // Components: distinct rates with their summed masses, and their rows.
    let mut by_rate: FxHashMap<Expr, usize> = FxHashMap::default();
    let mut comps: Vec<(Expr, Expr)> = Vec::new(); // (rate, mass)
    for (&(_, v), &m) in held.rates.iter().zip(&masses) {
        if arena.as_num(m).is_some_and(|r| r.is_zero()) {
            continue;
        }
        match by_rate.get(&v) {
            Some(&k) => comps[k].1 = arena.add2(comps[k].1, m),
            None => {
                by_rate.insert(v, comps.len());
                comps.push((v, m));
            }
        }
    }
    let mut rows = Vec::with_capacity(comps.len());
    let mut gaps = Vec::new();
    let mut terms_read = FxHashMap::default();
    for &(v, _) in &comps {
        let (row, gap) = velocity_row(arena, syms, v, &mut terms_read)?;
        rows.push(row);
        gaps.extend(gap);
    }
    // Every coefficient a function of its own coordinate (and the parameters); a coefficient met
    // in several rows (a link's in the rate of every position below it) checked once.
    let mut checked: FxHashSet<(usize, Expr)> = FxHashSet::default();
    for row in &rows {
        for &(j, c) in row {
            if !checked.insert((j, c)) {
                continue;
            }
            let foreign = arena.free_symbols(c).into_iter().find(|&s| match syms.role(s) {
                Some(Role::Coordinate(i)) => i != j,
                Some(Role::Parameter(_)) => false,
                _ => true,
            });
            if let Some(s) = foreign {
                let name = |s: Expr| match syms.role(s) {
                    Some(Role::Coordinate(i)) => format!("`{}`", model.coordinates[i]),
                    _ => "the state".to_string(),
                };
                return Err(format!(
                    "a velocity of its kinetic energy (of a position, or an angular velocity) along `dot({})` depends on \
                     {}: a position must be its parent's plus terms of one coordinate, and a body must turn with one angle \
                     (absolute angles, not relative ones — or links written as `body` items in `frame`s, which the \
                     spatial recursion follows in relative angles)",
                    model.coordinates[j],
                    name(s)
                ));
            }
        }
    }

    let members: Vec<Vec<usize>> = rows.iter().map(|row| row.iter().map(|e| e.0).collect()).collect();
    let (parents, order) = tree_of(model, &members)?;
    let on_path = |j: usize| path_of(&parents, j);

    // Directions: (joint, parent direction, S) interned; each component's direction at its joint.
    let zero = arena.zero();
    let mut dirs: Vec<(usize, Option<usize>, Expr)> = Vec::new();
    let mut intern: FxHashMap<(usize, Option<usize>, Expr), usize> = FxHashMap::default();
    let mut at_joint: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut comp_dir = Vec::with_capacity(rows.len());
    for row in &rows {
        let own = row.last().expect("a row has a velocity").0;
        let entries: FxHashMap<usize, Expr> = row.iter().copied().collect();
        let mut dir: Option<usize> = None;
        for i in on_path(own) {
            let s = entries.get(&i).copied().unwrap_or(zero);
            if dir.is_none() && s == zero {
                continue;
            }
            let key = (i, dir, s);
            let id = *intern.entry(key).or_insert_with(|| {
                dirs.push(key);
                at_joint[i].push(dirs.len() - 1);
                dirs.len() - 1
            });
            dir = Some(id);
        }
        comp_dir.push(dir.expect("a nonzero row has a direction"));
    }
    if let Some(j) = at_joint.iter().position(Vec::is_empty) {
        return Err(format!("`{}` moves no mass", model.coordinates[j]));
    }
    // The zero tests last, after the structure's checks: they evaluate their expressions exactly at
    // sample points, which was most of the expansion of a model that the structure then found no
    // tree (a 50-link chain in relative angles: 0.5 of its 0.96 s). Each row is its velocity, and
    // L = L̃ at the rates.
    for gap in gaps {
        if !arena.zero_test(gap).is_zero() {
            return Err("a position moves with time (its rate is not linear in the velocities)".into());
        }
    }
    let back = arena.subs(held.lagrangian, &held.rates);
    if back != model.lagrangian {
        let d = arena.sub(back, model.lagrangian);
        if !arena.zero_test(d).is_zero() {
            return Err("its Lagrangian could not be read over the rates of its positions".into());
        }
    }

    // Generalized forces τ = ∂(L̃ at v = 0)/∂q + Q.
    let gradient = sparse_gradient(arena, rest, &syms.q);
    let tau: Vec<Expr> = (0..n).map(|j| arena.add2(gradient[j], model.force[j])).collect();
    let tau = arena.horner_many(&tau);

    let mut rec = Builder { arena, syms, bindings: Vec::new(), offset: 0 };
    // Velocity-product accelerations C[d] = ∂S/∂qⱼ q̇ⱼ².
    let c: Vec<Expr> = dirs
        .iter()
        .map(|&(j, _, s)| {
            let ds = rec.arena.diff(s, syms.q[j]);
            let v2 = rec.arena.powi(syms.qd[j], 2);
            let cd = rec.arena.mul2(ds, v2);
            rec.bind(cd)
        })
        .collect();
    // Leaves → root. Articulated inertias over pairs of directions (a ≤ b), bias forces.
    let mut inertia: BTreeMap<(usize, usize), Vec<Expr>> = BTreeMap::new();
    let mut bias: BTreeMap<usize, Vec<Expr>> = BTreeMap::new();
    for (k, &(_, m)) in comps.iter().enumerate() {
        inertia.entry((comp_dir[k], comp_dir[k])).or_default().push(m);
    }
    let mut u_of = vec![Vec::new(); n];
    let mut d_of = vec![zero; n];
    let mut uu_of = vec![zero; n];
    for &j in order.iter().rev() {
        let ds = &at_joint[j];
        let ia = |rec: &mut Builder<'_>, inertia: &mut BTreeMap<(usize, usize), Vec<Expr>>, a: usize, b: usize| {
            let key = (a.min(b), a.max(b));
            match inertia.get(&key) {
                Some(terms) if terms.len() == 1 => terms[0],
                Some(terms) => {
                    let sum = rec.arena.add(terms);
                    let bound = rec.bind(sum);
                    inertia.insert(key, vec![bound]);
                    bound
                }
                None => rec.arena.zero(),
            }
        };
        let mut ia_j = vec![vec![zero; ds.len()]; ds.len()];
        for (x, &a) in ds.iter().enumerate() {
            for (y, &b) in ds.iter().enumerate().skip(x) {
                let e = ia(&mut rec, &mut inertia, a, b);
                ia_j[x][y] = e;
                ia_j[y][x] = e;
            }
        }
        let pa_j: Vec<Expr> = ds
            .iter()
            .map(|a| {
                let terms = bias.get(a).cloned().unwrap_or_default();
                let sum = rec.arena.add(&terms);
                rec.bind(sum)
            })
            .collect();
        let s_j: Vec<Expr> = ds.iter().map(|&a| dirs[a].2).collect();
        let u: Vec<Expr> = ia_j
            .iter()
            .map(|row| {
                let e = rec.arena.dot(row, &s_j);
                rec.bind(e)
            })
            .collect();
        let dd = rec.arena.dot(&s_j, &u);
        let dd = rec.bind(dd);
        let sp = rec.arena.dot(&s_j, &pa_j);
        let uu = rec.arena.sub(tau[j], sp);
        let uu = rec.bind(uu);
        if parents[j].is_some() {
            // I^a = I^A − U Uᵀ / D, p^a = p^A + I^a C + U u / D, handed to the parent directions.
            let inv = rec.arena.powi(dd, -1);
            let inv = rec.bind(inv);
            let scaled: Vec<Expr> = u
                .iter()
                .map(|&ux| {
                    let e = rec.arena.mul2(ux, inv);
                    rec.bind(e)
                })
                .collect();
            let mut ia_a = vec![vec![zero; ds.len()]; ds.len()];
            for x in 0..ds.len() {
                for y in x..ds.len() {
                    let uu_xy = rec.arena.mul2(u[x], scaled[y]);
                    let e = rec.arena.sub(ia_j[x][y], uu_xy);
                    let e = rec.bind(e);
                    ia_a[x][y] = e;
                    ia_a[y][x] = e;
                }
            }
            for (x, &a) in ds.iter().enumerate() {
                let Some(pa) = dirs[a].1 else { continue };
                let cj: Vec<Expr> = ds.iter().map(|&b| c[b]).collect();
                let ic = rec.arena.dot(&ia_a[x], &cj);
                let uu_term = rec.arena.mul2(scaled[x], uu);
                let e = rec.arena.add(&[pa_j[x], ic, uu_term]);
                bias.entry(pa).or_default().push(e);
                for (y, &b) in ds.iter().enumerate() {
                    let Some(pb) = dirs[b].1 else { continue };
                    // Each unordered pair once: (x, y) with x ≤ y, doubled off the diagonal when
                    // both map to one parent direction.
                    if y < x {
                        continue;
                    }
                    let e = ia_a[x][y];
                    let e = if x != y && pa == pb {
                        let two = rec.arena.int(2);
                        rec.arena.mul2(two, e)
                    } else {
                        e
                    };
                    inertia.entry((pa.min(pb), pa.max(pb))).or_default().push(e);
                }
            }
        }
        u_of[j] = u;
        d_of[j] = dd;
        uu_of[j] = uu;
    }
    // Root → leaves.
    let mut acc: Vec<Expr> = vec![zero; dirs.len()];
    let mut qdd = vec![zero; n];
    for &j in &order {
        let ds = &at_joint[j];
        let a_prime: Vec<Expr> = ds
            .iter()
            .map(|&a| {
                let from = dirs[a].1.map_or(zero, |p| acc[p]);
                let e = rec.arena.add2(from, c[a]);
                rec.bind(e)
            })
            .collect();
        let ua = rec.arena.dot(&u_of[j], &a_prime);
        let num = rec.arena.sub(uu_of[j], ua);
        let inv = rec.arena.powi(d_of[j], -1);
        let e = rec.arena.mul2(num, inv);
        qdd[j] = rec.bind(e);
        for (x, &a) in ds.iter().enumerate() {
            let sq = rec.arena.mul2(dirs[a].2, qdd[j]);
            let e = rec.arena.add2(a_prime[x], sq);
            acc[a] = rec.bind(e);
        }
    }
    let mut masses = vec![zero; dirs.len()];
    for (k, &(_, m)) in comps.iter().enumerate() {
        masses[comp_dir[k]] = rec.arena.add2(masses[comp_dir[k]], m);
    }
    let comps = comp_dir.into_iter().zip(comps.iter().map(|c| c.1)).collect();
    let tree = Links::Directions(Box::new(Tree { dirs, comps, masses, order, at_joint, tau, rest }));
    Ok(Recursive { bindings: rec.bindings, accelerations: qdd, pivots: d_of, parents, tangent: None, inverse: None, tree })
}

/// The path from the root of `j`'s tree to `j`.
fn path_of(parents: &[Option<usize>], j: usize) -> Vec<usize> {
    let mut path = vec![j];
    let mut p = parents[j];
    while let Some(i) = p {
        path.push(i);
        p = parents[i];
    }
    path.reverse();
    path
}

/// The kinematic tree of the coordinates from the coordinates that move each mass together
/// (`rows`, each sorted by declaration), and its joints parents first; or why they form none.
fn tree_of(model: &Model, rows: &[Vec<usize>]) -> Result<(Vec<Option<usize>>, Vec<usize>), String> {
    // The tree, coordinate by coordinate in declaration order: the coordinates moving a mass together
    // with j (declared before it) must lie on one path; j hangs below the deepest. Where they lie in
    // different trees of the forest so far, those trees are stacked (each root grafted below the
    // deepest such coordinate of the one before): translations commute, so a longer path changes
    // no velocity. (For spatial links the stacking is a guess like any other reading: the bodies'
    // check decides.)
    let n = model.dof();
    let mut with: Vec<FxHashSet<usize>> = vec![FxHashSet::default(); n];
    for row in rows {
        let own = *row.last().expect("a row moves a mass");
        for &i in &row[..row.len() - 1] {
            with[own].insert(i);
        }
    }
    let mut parents: Vec<Option<usize>> = vec![None; n];
    // The union of the members' paths to their roots, walked once per coordinate (a chain's
    // coordinate shares masses with all its ancestors: a walk per member would be quadratic in
    // the depth): for the nodes of the union (seen_in = j), the root and how many of their
    // children the union holds.
    let mut seen_in = vec![usize::MAX; n];
    let mut root_of = vec![0; n];
    let mut below = vec![0_u32; n];
    for j in 0..n {
        let mut w: Vec<usize> = with[j].iter().copied().collect();
        w.sort_unstable();
        // By tree (its root): the members of w, and the nodes of the union of their paths.
        let mut trees: BTreeMap<usize, (Vec<usize>, Vec<usize>)> = BTreeMap::new();
        let mut walked = Vec::new();
        for &i in &w {
            if seen_in[i] != j {
                seen_in[i] = j;
                below[i] = 0;
                walked.clear();
                walked.push(i);
                let mut x = i;
                let root = loop {
                    match parents[x] {
                        None => break x,
                        Some(p) if seen_in[p] == j => {
                            below[p] += 1;
                            break root_of[p];
                        }
                        Some(p) => {
                            seen_in[p] = j;
                            below[p] = 1;
                            walked.push(p);
                            x = p;
                        }
                    }
                };
                for &y in &walked {
                    root_of[y] = root;
                }
                trees.entry(root).or_default().1.extend_from_slice(&walked);
            }
            trees.entry(root_of[i]).or_default().0.push(i);
        }
        let mut bottom: Option<usize> = None;
        for (root, (members, union)) in trees {
            // One path iff no node of the union has two of its children in it; the deepest
            // member is then its one leaf.
            let leaves: Vec<usize> = union.iter().copied().filter(|&x| below[x] == 0).collect();
            let deepest = match (leaves.as_slice(), union.iter().all(|&x| below[x] <= 1)) {
                ([leaf], true) => *leaf,
                _ => {
                    let deepest = *members.iter().max_by_key(|&&i| path_of(&parents, i).len()).expect("a member");
                    let path = path_of(&parents, deepest);
                    let stray = *members.iter().find(|i| !path.contains(i)).expect("members off one path");
                    return Err(format!(
                        "`{}` and `{}` both move masses with `{}`, but neither is an ancestor of the other: the \
                         coordinates do not form a tree (declare each coordinate after the ones it is attached to)",
                        model.coordinates[stray], model.coordinates[deepest], model.coordinates[j]
                    ));
                }
            };
            if let Some(b) = bottom {
                parents[root] = Some(b);
            }
            bottom = Some(deepest);
        }
        parents[j] = bottom;
    }
    // Parents before children.
    let mut depth: Vec<Option<usize>> = vec![None; n];
    for j in 0..n {
        let mut up = vec![j];
        while let Some(p) = parents[*up.last().expect("nonempty")].filter(|&p| depth[p].is_none()) {
            up.push(p);
        }
        let top = *up.last().expect("nonempty");
        let first = parents[top].map_or(0, |p| depth[p].expect("known") + 1);
        for (d, &x) in (first..).zip(up.iter().rev()) {
            if depth[x].is_none() {
                depth[x] = Some(d);
            }
        }
    }
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by_key(|&j| (depth[j], j));
    Ok((parents, order))
}

/// That M is not singular everywhere, from the recursion's pivots at sample states (for a model
/// whose M is never formed; the dense path's `check_regular` tests M itself): a pivot at or below
/// 1e-10 of the largest at every sampled state is an error.
pub fn check_pivots(model: &crate::model::View<'_>, r: &Recursive) -> syn::Result<()> {
    let how = " (a pivot of its factorisation along the kinematic tree vanishes)";
    crate::derive::euler_lagrange::require_regular(model, how, |values| {
        let lookup = |s: Expr| values.get(&s).copied().unwrap_or(1.0);
        let d = model.arena.eval_bound(&r.bindings, &r.pivots, &lookup);
        let largest = d.iter().fold(0.0_f64, |m, x| m.max(x.abs()));
        let smallest = d.iter().fold(f64::INFINITY, |m, &x| m.min(x));
        d.iter().all(|x| x.is_finite()).then(|| if largest > 0.0 { smallest / largest } else { 0.0 })
    })
}

/// The recursion's directional derivative along a tangent δx of the state: δq̈ and its bindings
/// (each quantity's derivative a temporary of its own, by forward mode through the recursion:
/// δsₖ = Σ ∂eₖ/∂σ δσ over the symbols σ of its expression). δx is read from [`Role::Tangent`]
/// symbols and the recursion's quantities from [`Role::Primal`] ones, so that the recursion runs
/// once per state and only the derivatives once per direction; the code is linear in the
/// recursion's, and the runtime builds the field Jacobian from 2n such directions (O(n²), no M).
pub fn tangent(model: &Model, arena: &mut Arena, r: &Recursive) -> Tangent {
    tangent_of(model, arena, &r.bindings, &r.accelerations, r.bindings.len())
}

/// [`Recursive::inverse`]: K = M a + the velocity products along the tree (the accelerations a
/// as [`Role::Acceleration`] symbols), its temporaries numbered after the recursion's, and its
/// tangent after those.
pub fn inverse(model: &Model, arena: &mut Arena, r: &Recursive) -> Inverse {
    let (bindings, k) = kinetic_part(model, arena, r);
    let tangent = tangent_of(model, arena, &bindings, &k, r.bindings.len() + bindings.len());
    Inverse { bindings, tangent }
}

/// M w along the tree for the velocities `w` (expressions: an impact's q̇⁺ − q̇⁻, the post-impact
/// velocities as [`Role::PostVelocity`] symbols), as [`Inverse`] holds K: its bindings, numbered
/// from `offset`, and its tangent along δx of the state (q̇⁺ fixed: through w, δq̇ gives −M δq̇),
/// so that a restitution law's reset Jacobian never forms M.
pub fn metric_product(model: &Model, arena: &mut Arena, r: &Recursive, w: &[Expr], offset: usize) -> Inverse {
    let syms = &model.layout;
    let mut b = Builder { arena: &mut *arena, syms, bindings: Vec::new(), offset };
    let mw = match &r.tree {
        Links::Directions(tree) => {
            let x = kinetics::along(&mut b, tree, w, None);
            kinetics::generalized(&mut b, tree, model.dof(), &x)
        }
        Links::Spatial(links) => spatial::product(&mut b, links, w),
    };
    let bindings = b.bindings;
    let tangent = tangent_of(model, arena, &bindings, &mw, offset + bindings.len());
    Inverse { bindings, tangent }
}

/// ∇E and ∇²E over the state of a tree model whose E is a pass along its tree (a hybrid system's
/// first integral, for periodic-orbit continuation), never expanded: the gradient by reverse mode
/// through E's quantities (O(n) code), the Hessian's columns by forward mode through that
/// gradient (O(n) code, called for the 2n basis directions).
pub struct EnergyAlongTree {
    /// E's quantities and their adjoints; outputs ∂E/∂xᵢ.
    pub gradient: Bound,
    /// δ(∇E) along δx, from the quantities of `gradient` that it reads.
    pub hessian: Tangent,
}

/// [`EnergyAlongTree`] of E's quantities `energy` (one output), temporaries numbered from `offset`.
pub fn energy_derivatives(model: &Model, arena: &mut Arena, energy: &Bound, offset: usize) -> EnergyAlongTree {
    let syms = &model.layout;
    let state = syms.state_symbols();
    let mut rec = Builder { arena: &mut *arena, syms, bindings: Vec::new(), offset };
    let gradient = reverse(&mut rec, &energy.bindings, energy.outputs[0], &state);
    let mut bindings = energy.bindings.clone();
    bindings.extend(rec.bindings);
    let end = offset + bindings.len() - energy.bindings.len();
    let hessian = tangent_of(model, arena, &bindings, &gradient, end);
    EnergyAlongTree { gradient: Bound { bindings, outputs: gradient }, hessian }
}

/// K = M a + the velocity products along the tree at (x, a) (the accelerations a as
/// [`Role::Acceleration`] symbols): its bindings, numbered after the recursion's, and K.
fn kinetic_part(model: &Model, arena: &mut Arena, r: &Recursive) -> (Bindings, Vec<Expr>) {
    let syms = &model.layout;
    let mut b = Builder { arena, syms, bindings: Vec::new(), offset: r.bindings.len() };
    let k = match &r.tree {
        Links::Directions(tree) => {
            let c = kinetics::velocity_products(b.arena, syms, tree);
            let acc = kinetics::along(&mut b, tree, &syms.qdd, Some(&c));
            kinetics::generalized(&mut b, tree, model.dof(), &acc)
        }
        Links::Spatial(links) => spatial::kinetic_part(&mut b, links),
    };
    (b.bindings, k)
}

/// ∂K/∂p for parameters `params` of the tree's directions or masses (a mass, a length), K = M a +
/// the velocity products along the tree at (x, a) as in [`inverse`]: K's quantities, then their
/// derivatives along each p by forward mode through them (O(n) code per parameter; M is never
/// formed). Outputs row by row (coordinate i, then parameter j). With g = f − M a = τ − K, the
/// sensitivity of the accelerations is ∂q̈/∂p = M⁻¹ (∂τ/∂p − ∂K/∂p) at a = q̈.
pub fn parameter_derivatives(model: &Model, arena: &mut Arena, r: &Recursive, params: &[Expr]) -> Bound {
    let syms = &model.layout;
    let n = model.dof();
    let offset = r.bindings.len();
    let (kinetic, k) = kinetic_part(model, arena, r);
    let mut bindings = kinetic.clone();
    let mut columns = Vec::with_capacity(params.len());
    for &p in params {
        let one = arena.one();
        let dot: FxHashMap<Expr, Expr> = [(p, one)].into_iter().collect();
        let mut rec = Builder { arena: &mut *arena, syms, bindings: Vec::new(), offset: offset + bindings.len() };
        columns.push(forward(&mut rec, &kinetic, &k, dot));
        bindings.extend(rec.bindings);
    }
    let outputs = (0..n).flat_map(|i| columns.iter().map(move |col| col[i])).collect();
    Bound { bindings, outputs }
}
