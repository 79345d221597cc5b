//! The articulated-body recursion over *directions* of translation (point masses and planar links):
//! q̈ in O(n), derived symbolically and emitted as straight-line code per joint; and its passes
//! along the tree (M a, the velocity products), from which [`super::kinetics()`] builds f, L, E and p.
//!
//! A model whose bodies turn in space with several coordinates takes [`super::spatial`]'s instead.
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
use symbolic::{Arena, Expr};

use crate::layout::Role;
use crate::model::{HeldLagrangian, Model};

use super::topology::{Row, path_of, sparse_gradient, split_terms, tree_of, velocity_row};
use super::{Links, Recursive};
use crate::derive::straight::Builder;

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
    let (rest, masses) = split_masses(model, arena, held)?;
    let comps = components(arena, held, &masses);
    let mut rows = Vec::with_capacity(comps.len());
    let mut gaps = Vec::new();
    let mut terms_read = FxHashMap::default();
    for &(v, _) in &comps {
        let (row, gap) = velocity_row(arena, syms, v, &mut terms_read)?;
        rows.push(row);
        gaps.extend(gap);
    }
    check_coefficients(model, arena, &rows)?;
    let members: Vec<Vec<usize>> = rows.iter().map(|row| row.iter().map(|e| e.0).collect()).collect();
    let (parents, order) = tree_of(model, &members)?;
    let (dirs, at_joint, comp_dir) = directions(arena, n, &rows, &parents);
    if let Some(j) = at_joint.iter().position(Vec::is_empty) {
        return Err(format!("`{}` moves no mass", model.coordinates[j]));
    }
    check_rows(model, arena, held, gaps)?;

    // Generalized forces τ = ∂(L̃ at v = 0)/∂q + Q.
    let gradient = sparse_gradient(arena, rest, &syms.q);
    let tau: Vec<Expr> = (0..n).map(|j| arena.add2(gradient[j], model.force[j])).collect();
    let tau = arena.horner_many(&tau);

    let zero = arena.zero();
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
    let shape = Shape { dirs: &dirs, at_joint: &at_joint, parents: &parents, order: &order, c: &c };
    let comp_masses: Vec<(usize, Expr)> = comps.iter().enumerate().map(|(k, &(_, m))| (comp_dir[k], m)).collect();
    let pivots = articulated(&mut rec, &shape, &comp_masses, &tau);
    let qdd = accelerations(&mut rec, &shape, &pivots);
    let mut masses = vec![zero; dirs.len()];
    for (k, &(_, m)) in comps.iter().enumerate() {
        masses[comp_dir[k]] = rec.arena.add2(masses[comp_dir[k]], m);
    }
    let comps = comp_dir.into_iter().zip(comps.iter().map(|c| c.1)).collect();
    let tree = Links::Directions(Box::new(Tree { dirs, comps, masses, order, at_joint, tau, rest }));
    Ok(Recursive {
        bindings: rec.bindings,
        accelerations: qdd,
        pivots: pivots.d,
        parents,
        jacobian: None,
        inverse: None,
        inverse_jacobian: None,
        looped: None,
        tree,
    })
}

/// L̃ = rest + Σ ½ mₖ vₖ², the masses constant, rest free of velocities — term by term (each
/// term of L̃ is rate-free or ½ Σ m w² over the rates it holds, by a zero test of its own), so
/// that the cost is L̃'s size, not its size times the number of rates. Returns the rest and each
/// held rate's mass.
fn split_masses(model: &Model, arena: &mut Arena, held: &HeldLagrangian) -> Result<(Expr, Vec<Expr>), String> {
    let syms = &model.layout;
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
    Ok((rest, masses))
}

/// The mass components: distinct rates with their summed masses (massless ones left out).
fn components(arena: &mut Arena, held: &HeldLagrangian, masses: &[Expr]) -> Vec<(Expr, Expr)> {
    let mut by_rate: FxHashMap<Expr, usize> = FxHashMap::default();
    let mut comps: Vec<(Expr, Expr)> = Vec::new(); // (rate, mass)
    for (&(_, v), &m) in held.rates.iter().zip(masses) {
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
    comps
}

/// Every coefficient a function of its own coordinate (and the parameters); a coefficient met
/// in several rows (a link's in the rate of every position below it) checked once.
fn check_coefficients(model: &Model, arena: &Arena, rows: &[Row]) -> Result<(), String> {
    let syms = &model.layout;
    let mut checked: FxHashSet<(usize, Expr)> = FxHashSet::default();
    for row in rows {
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
    Ok(())
}

/// The tree's directions (joint, parent direction, S), interned along each row's path; the
/// directions at each joint; each component's direction at its joint.
#[allow(clippy::type_complexity)]
fn directions(
    arena: &mut Arena,
    n: usize,
    rows: &[Row],
    parents: &[Option<usize>],
) -> (Vec<(usize, Option<usize>, Expr)>, Vec<Vec<usize>>, Vec<usize>) {
    let zero = arena.zero();
    let mut dirs: Vec<(usize, Option<usize>, Expr)> = Vec::new();
    let mut intern: FxHashMap<(usize, Option<usize>, Expr), usize> = FxHashMap::default();
    let mut at_joint: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut comp_dir = Vec::with_capacity(rows.len());
    for row in rows {
        let own = row.last().expect("a row has a velocity").0;
        let entries: FxHashMap<usize, Expr> = row.iter().copied().collect();
        let mut dir: Option<usize> = None;
        for i in path_of(parents, own) {
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
    (dirs, at_joint, comp_dir)
}

/// The zero tests last, after the structure's checks: they evaluate their expressions exactly at
/// sample points, which was most of the expansion of a model that the structure then found no
/// tree (a 50-link chain in relative angles: 0.5 of its 0.96 s). Each row is its velocity, and
/// L = L̃ at the rates.
fn check_rows(model: &Model, arena: &mut Arena, held: &HeldLagrangian, gaps: Vec<Expr>) -> Result<(), String> {
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
    Ok(())
}

/// The tree's structure as the recursion's passes read it, with the velocity-product
/// accelerations C of its directions.
struct Shape<'a> {
    dirs: &'a [(usize, Option<usize>, Expr)],
    at_joint: &'a [Vec<usize>],
    parents: &'a [Option<usize>],
    order: &'a [usize],
    c: &'a [Expr],
}

/// What the leaves → root pass leaves at each joint: Uⱼ, the pivot Dⱼ and uⱼ.
struct Pivots {
    u: Vec<Vec<Expr>>,
    d: Vec<Expr>,
    uu: Vec<Expr>,
}

/// Leaves → root: articulated inertias over pairs of directions (a ≤ b) and bias forces, from
/// the components' masses (`comps`: each one's direction and mass) and the forces τ.
fn articulated(rec: &mut Builder<'_>, shape: &Shape<'_>, comps: &[(usize, Expr)], tau: &[Expr]) -> Pivots {
    let Shape { dirs, at_joint, parents, order, c } = *shape;
    let n = at_joint.len();
    let zero = rec.arena.zero();
    let mut inertia: BTreeMap<(usize, usize), Vec<Expr>> = BTreeMap::new();
    let mut bias: BTreeMap<usize, Vec<Expr>> = BTreeMap::new();
    for &(dir, m) in comps {
        inertia.entry((dir, dir)).or_default().push(m);
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
                let e = ia(rec, &mut inertia, a, b);
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
    Pivots { u: u_of, d: d_of, uu: uu_of }
}

/// Root → leaves: a'ⱼ = X a_parent + Cⱼ, q̈ⱼ = (uⱼ − Uⱼ·a'ⱼ) / Dⱼ, aⱼ = a'ⱼ + Sⱼ q̈ⱼ.
fn accelerations(rec: &mut Builder<'_>, shape: &Shape<'_>, pivots: &Pivots) -> Vec<Expr> {
    let Shape { dirs, at_joint, order, c, .. } = *shape;
    let zero = rec.arena.zero();
    let mut acc: Vec<Expr> = vec![zero; dirs.len()];
    let mut qdd = vec![zero; at_joint.len()];
    for &j in order {
        let ds = &at_joint[j];
        let a_prime: Vec<Expr> = ds
            .iter()
            .map(|&a| {
                let from = dirs[a].1.map_or(zero, |p| acc[p]);
                let e = rec.arena.add2(from, c[a]);
                rec.bind(e)
            })
            .collect();
        let ua = rec.arena.dot(&pivots.u[j], &a_prime);
        let num = rec.arena.sub(pivots.uu[j], ua);
        let inv = rec.arena.powi(pivots.d[j], -1);
        let e = rec.arena.mul2(num, inv);
        qdd[j] = rec.bind(e);
        for (x, &a) in ds.iter().enumerate() {
            let sq = rec.arena.mul2(dirs[a].2, qdd[j]);
            let e = rec.arena.add2(a_prime[x], sq);
            acc[a] = rec.bind(e);
        }
    }
    qdd
}

/// The velocity-product accelerations C_d = ∂S_d/∂q_{j(d)} q̇²_{j(d)} of the tree's directions.
pub(super) fn velocity_products(arena: &mut Arena, syms: &crate::layout::Layout, tree: &Tree) -> Vec<Expr> {
    tree.dirs
        .iter()
        .map(|&(j, _, s)| {
            let ds = arena.diff(s, syms.q[j]);
            let v2 = arena.powi(syms.qd[j], 2);
            arena.mul2(ds, v2)
        })
        .collect()
}

/// Per direction: x_d = x_{π(d)} + (extra_d) + S_d r_{j(d)}, bound (`r` per joint; `extra` the
/// velocity products, if any).
pub(super) fn along(b: &mut Builder<'_>, tree: &Tree, r: &[Expr], extra: Option<&[Expr]>) -> Vec<Expr> {
    let mut x: Vec<Expr> = Vec::with_capacity(tree.dirs.len());
    for (d, &(j, parent, s)) in tree.dirs.iter().enumerate() {
        let mut terms = Vec::with_capacity(3);
        if let Some(p) = parent {
            terms.push(x[p]);
        }
        if let Some(c) = extra {
            terms.push(c[d]);
        }
        terms.push(b.arena.mul2(s, r[j]));
        let e = b.arena.add(&terms);
        x.push(b.bind(e));
    }
    x
}

/// Σ_{d at j} S_d F_d with F_d = Σ_{c at d} m_c x_d + Σ_{children} F_e (leaves → root).
pub(super) fn generalized(b: &mut Builder<'_>, tree: &Tree, n: usize, x: &[Expr]) -> Vec<Expr> {
    let k = tree.dirs.len();
    let mut own: Vec<Vec<Expr>> = vec![Vec::new(); k];
    for &(d, m) in &tree.comps {
        own[d].push(m);
    }
    let mut children: Vec<Vec<Expr>> = vec![Vec::new(); k];
    let mut at_joint: Vec<Vec<Expr>> = vec![Vec::new(); n];
    for d in (0..k).rev() {
        let (j, parent, s) = tree.dirs[d];
        let mut terms = std::mem::take(&mut children[d]);
        if !own[d].is_empty() {
            let m = b.arena.add(&own[d]);
            terms.push(b.arena.mul2(m, x[d]));
        }
        let f = b.arena.add(&terms);
        let f = b.bind(f);
        if let Some(p) = parent {
            children[p].push(f);
        }
        at_joint[j].push(b.arena.mul2(s, f));
    }
    at_joint
        .into_iter()
        .map(|terms| {
            let e = b.arena.add(&terms);
            b.bind(e)
        })
        .collect()
}
