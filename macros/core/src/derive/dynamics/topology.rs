//! The kinematic tree read off a model: each velocity as a row over the coordinates' rates, the
//! coordinates' tree (each coordinate below the deepest of those that move a mass with it), and
//! the potential's gradient over terms that each hold few coordinates. Both recursions read their
//! trees here ([`super::directions`], [`super::spatial`]).

use std::collections::BTreeMap;

use rustc_hash::{FxHashMap, FxHashSet};
use symbolic::{Arena, Expr, Node};

use crate::layout::{Layout, Role};
use crate::model::Model;

/// A velocity row: (coordinate, coefficient), by coordinate.
pub(super) type Row = Vec<(usize, Expr)>;

/// The rates of one term of a velocity (see [`velocity_row`]): its coefficient along each
/// velocity it holds, and whether Σⱼ cⱼ q̇ⱼ is the term itself.
pub(super) type TermRow = (Vec<(usize, Expr)>, bool);

/// vₖ as a sparse row over q̇, or why it is not one; with the gap Σⱼ cⱼ q̇ⱼ − vₖ where the row is not
/// vₖ term by term, for the caller to zero-test once the tree's structure is checked (the test
/// evaluates vₖ exactly at sample points: the most expensive check, and a model that is no tree
/// fails a structural one first). `terms` keeps each term's rates: a term shared by several
/// velocities (a chain's link rate, in the rate of every position below it) is read once.
pub(super) fn velocity_row(
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
pub(super) fn term_rates(arena: &mut Arena, syms: &Layout, t: Expr) -> Result<TermRow, String> {
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
pub(super) fn split_terms(arena: &mut Arena, e: Expr, held: &FxHashMap<Expr, usize>) -> Vec<Expr> {
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
pub(super) fn sparse_gradient(arena: &mut Arena, e: Expr, vars: &[Expr]) -> Vec<Expr> {
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

/// The path from the root of `j`'s tree to `j`.
pub(super) fn path_of(parents: &[Option<usize>], j: usize) -> Vec<usize> {
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
pub(super) fn tree_of(model: &Model, rows: &[Vec<usize>]) -> Result<(Vec<Option<usize>>, Vec<usize>), String> {
    let declared: Vec<usize> = (0..model.dof()).collect();
    tree_declared(model.dof(), rows, &declared, &|j| model.coordinates[j].to_string())
}

/// [`tree_of`] for `n` joints declared in the order `declared` (a permutation of 0..n; each row
/// sorted by it, its last joint the one that moves the mass), named by `name`.
pub(super) fn tree_declared(
    n: usize,
    rows: &[Vec<usize>],
    declared: &[usize],
    name: &dyn Fn(usize) -> String,
) -> Result<(Vec<Option<usize>>, Vec<usize>), String> {
    let mut rank = vec![0; n];
    for (k, &j) in declared.iter().enumerate() {
        rank[j] = k;
    }
    // The tree, coordinate by coordinate in declaration order: the coordinates moving a mass together
    // with j (declared before it) must lie on one path; j hangs below the deepest. Where they lie in
    // different trees of the forest so far, those trees are stacked (each root grafted below the
    // deepest such coordinate of the one before): translations commute, so a longer path changes
    // no velocity. (For spatial links the stacking is a guess like any other reading: the bodies'
    // check decides.)
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
    for &j in declared {
        let mut w: Vec<usize> = with[j].iter().copied().collect();
        w.sort_unstable_by_key(|&i| rank[i]);
        // By tree (its root's rank): the members of w, and the nodes of the union of their paths.
        let mut trees: BTreeMap<usize, (usize, Vec<usize>, Vec<usize>)> = BTreeMap::new();
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
                trees.entry(rank[root]).or_insert_with(|| (root, Vec::new(), Vec::new())).2.extend_from_slice(&walked);
            }
            let root = root_of[i];
            trees.entry(rank[root]).or_insert_with(|| (root, Vec::new(), Vec::new())).1.push(i);
        }
        let mut bottom: Option<usize> = None;
        for (root, members, union) in trees.into_values() {
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
                        name(stray),
                        name(deepest),
                        name(j)
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
    for &j in declared {
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
    order.sort_by_key(|&j| (depth[j], rank[j]));
    Ok((parents, order))
}
