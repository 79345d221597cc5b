//! Lowering of `impact(...)` and `transition(...)`: guard, law (restitution one-forms, velocity
//! map, chart-change reset), with their checks.

use symbolic::Expr;
use syn::Ident;

use super::expr::Lowerer;
use super::oneform::check_linear_oneform;
use crate::diagnostics::unknown;
use crate::model::{Impact, Law, LawRow, Trigger};
use crate::parse::{ConstraintDecl, ImpactDecl, LawDecl};

/// A transition's target: mode index and name, and its coordinates.
pub(super) struct Target {
    pub(super) mode: usize,
    pub(super) name: Ident,
    pub(super) coordinates: Vec<Ident>,
    /// The target mode's constraints as written (a `project` law projects onto them).
    pub(super) constraints: Vec<ConstraintDecl>,
    /// The target mode's contacts as written (`project` projects onto their rows too).
    pub(super) contacts: Vec<crate::parse::ContactDecl>,
    /// Whether the source and the target have the same kinetic metric and the same rows for the
    /// target's declarations: both take the top level's coordinates, Lagrangian, bodies and
    /// defines (none of their own). A `project` law is then the target's own projection
    /// ([`Law::Project`]); otherwise the source's restitution law with coefficient 0.
    pub(super) shared: bool,
}

/// Validates and lowers one `impact(...)`.
#[allow(clippy::too_many_arguments)]
pub(super) fn lower_impact(
    lower: &mut Lowerer<'_>,
    decl: &ImpactDecl,
    parameters: &[Ident],
    dq: &[Expr],
    dt: Expr,
    target: Option<&Target>,
    impacts: &[Ident],
    constraints: &[crate::model::Constraint],
    bodies: &[crate::model::Body],
) -> syn::Result<Impact> {
    let missing = |what: &str, example: &str| {
        syn::Error::new(decl.keyword.span(), format!("this impact has no `{what}`; add `{what} = {example}`"))
    };
    let name = match (&decl.name, &decl.modes) {
        (Some(n), _) => n.clone(),
        (None, Some((from, to))) => quote::format_ident!("{from}_to_{to}", span = decl.keyword.span()),
        (None, None) => return Err(missing("name", "floor")),
    };
    let law_decl = decl.law.as_ref().ok_or_else(|| missing("law", "restitution(e)"))?;
    let (guard, trigger) = guard(lower, decl, impacts, constraints)?;
    // The ordinary coordinates (an orientation's quaternion has no name of its own).
    let coordinates: Vec<String> = lower.coordinate_names().to_vec();
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
        LawDecl::Restitution { rows } => restitution(lower, decl, guard, rows, (parameters, dq, dt), target, constraints)?,
        LawDecl::Map { assignments } => {
            // Unassigned velocities (an orientation's ω among them) are kept.
            let mut velocities: Vec<Option<Expr>> = vec![None; lower.syms.dof()];
            for (lhs, rhs) in assignments {
                let k = map_target(lhs, &coordinates)?;
                if velocities[k].is_some() {
                    return Err(syn::Error::new_spanned(lhs, format!("`dot({})` is assigned twice", coordinates[k])));
                }
                velocities[k] = Some(lower.lower(rhs)?);
            }
            Law::Map(velocities.into_iter().enumerate().map(|(k, v)| v.unwrap_or(lower.syms.qd[k])).collect())
        }
        LawDecl::Project { keyword } => {
            let Some(target) = target else {
                return Err(syn::Error::new(
                    keyword.span(),
                    "`project` is the law of a `transition` into a mode with constraints; an impact uses `restitution(...)` \
                     or `map(...)`",
                ));
            };
            if target.constraints.is_empty() && target.contacts.is_empty() {
                return Err(syn::Error::new(
                    keyword.span(),
                    format!(
                        "mode `{}` has no constraints for `project` to project onto; declare them in its `mode(...)`",
                        target.name
                    ),
                ));
            }
            // The target's constraints, lowered here as one-forms Σ aₖ dqₖ + b dt: the restitution law
            // with coefficient 0 on every row is the kinetic-metric projection onto them.
            let mut rows = Vec::new();
            for decl in &target.constraints {
                let c = super::constraint::lower_constraint(lower, decl, dq, dt)?;
                rows.push((c.a, c.b));
            }
            // The target's contacts, on this mode's bodies.
            let declared: Vec<String> = bodies.iter().map(|b| b.name.to_string()).collect();
            for decl in &target.contacts {
                for c in super::contact::lower_contact(lower, decl, &declared, bodies)? {
                    rows.push((c.a, c.b));
                }
            }
            if target.shared {
                Law::Project { rows, mode: target.name.clone() }
            } else {
                let zero = lower.arena.zero();
                Law::Restitution(rows.into_iter().map(|(a, b)| (LawRow::Velocities(a, b), zero)).collect())
            }
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
    Ok(Impact { name, guard, trigger, law, target: target.map(|t| t.mode) })
}

/// What fires an impact: its guard h(t, q) = 0, a constraint's multiplier reaching zero
/// (`guard = multiplier(c)`), or the accumulation of another impact (`zeno = <impact>`).
fn guard(
    lower: &mut Lowerer<'_>,
    decl: &ImpactDecl,
    impacts: &[Ident],
    constraints: &[crate::model::Constraint],
) -> syn::Result<(Expr, Trigger)> {
    let missing = |what: &str, example: &str| {
        syn::Error::new(decl.keyword.span(), format!("this impact has no `{what}`; add `{what} = {example}`"))
    };
    match (&decl.zeno, &decl.guard) {
        (Some(z), None) => {
            if decl.modes.is_none() {
                return Err(syn::Error::new(
                    z.span(),
                    "`zeno = ...` completes an accumulation of impacts with a `transition` into another mode",
                ));
            }
            let k = impacts.iter().position(|i| i == z).ok_or_else(|| {
                let names: Vec<String> = impacts.iter().map(ToString::to_string).collect();
                let known = format!("Impacts of this mode: {}", names.join(", "));
                unknown(z.span(), format_args!("unknown impact `{z}`"), &z.to_string(), &names, known)
            })?;
            Ok((lower.arena.zero(), Trigger::Zeno(k)))
        }
        (Some(z), Some(_)) => Err(syn::Error::new(z.span(), "a transition has either a `guard` or `zeno = <impact>`, not both")),
        (None, None) => Err(missing("guard", "y - r")),
        (None, Some(guard_src)) => match multiplier_guard(guard_src) {
            Some(name) => {
                let k = constraints.iter().position(|c| c.name == name).ok_or_else(|| {
                    let names: Vec<String> = constraints.iter().map(|c| c.name.to_string()).collect();
                    let known =
                        format!("Constraints of this mode: {}", if names.is_empty() { "none".into() } else { names.join(", ") });
                    unknown(
                        name.span(),
                        format_args!("`multiplier({name})` names no constraint of this mode"),
                        &name.to_string(),
                        &names,
                        known,
                    )
                })?;
                Ok((lower.arena.zero(), Trigger::Multiplier(k)))
            }
            None => {
                let guard = lower.lower(guard_src)?;
                if let Some(v) = lower.velocity_in(guard) {
                    return Err(syn::Error::new_spanned(
                        guard_src,
                        format!(
                            "a guard must be a function of the coordinates and time (a surface h(t, q) = 0), but this \
                             depends on the velocity `{v}`"
                        ),
                    ));
                }
                Ok((guard, Trigger::Guard))
            }
        },
    }
}

/// A restitution law: its rows (the guard's normal, or one-forms) with their coefficients, then
/// the constraints that hold after the impact (this mode's, or the target's) with coefficient 0.
#[allow(clippy::type_complexity)]
fn restitution(
    lower: &mut Lowerer<'_>,
    decl: &ImpactDecl,
    guard: Expr,
    rows: &[(Option<syn::Expr>, syn::Expr)],
    (parameters, dq, dt): (&[Ident], &[Expr], Expr),
    target: Option<&Target>,
    constraints: &[crate::model::Constraint],
) -> syn::Result<Law> {
    check_normal_law_without_action(lower, decl, guard, rows)?;
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
                LawRow::Normal
            }
            Some(f) => {
                let w = lower.lower_oneform(f, dq, dt)?;
                if let Some(v) = lower.velocity_in(w) {
                    return Err(syn::Error::new_spanned(
                        f,
                        format!("one-form coefficients must be functions of the coordinates and time, but this depends on `{v}`"),
                    ));
                }
                check_linear_oneform(lower, w, dq, dt, f)?;
                LawRow::Form(w)
            }
        };
        lowered.push((form, e));
    }
    // The constraints that hold after the impact (this mode's, or the target mode's for a
    // transition) are rows with coefficient 0: the post-impact velocity satisfies them.
    let zero = lower.arena.zero();
    let held: Vec<(Vec<Expr>, Expr)> = match target {
        None => constraints.iter().map(|c| (c.a.clone(), c.b)).collect(),
        Some(t) => {
            let mut rows = Vec::new();
            for decl in &t.constraints {
                let c = super::constraint::lower_constraint(lower, decl, dq, dt)?;
                rows.push((c.a, c.b));
            }
            rows
        }
    };
    // (Rows over the velocities: with orientations they are not one-forms in the dq.)
    for (a, b) in held {
        lowered.push((LawRow::Velocities(a, b), zero));
    }
    Ok(Law::Restitution(lowered))
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
        let known = format!("Coordinates: {}", coordinates.join(", "));
        unknown(ident.span(), format_args!("the reset names unknown coordinate `{name}`"), &name, coordinates, known)
    })
}

/// Lowers `reset(q = ..., dot(q) = ..., omega(r) = ...)`: every coordinate and velocity of the
/// target mode, with same-named source coordinates carried over when not given. The modes share
/// their orientations: each quaternion carries over, and its body angular velocity too unless
/// `omega(r) = [...]` gives it.
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
    let orientations = lower.syms.orientations.clone();
    let mut omegas: Vec<Option<[Expr; 3]>> = vec![None; orientations.len()];
    for (lhs, rhs) in assignments {
        if let Some(o) = reset_orientation(lhs, &orientations)? {
            if omegas[o].is_some() {
                return Err(syn::Error::new_spanned(lhs, "this component of the new state is given twice"));
            }
            omegas[o] = Some(lower.vector(rhs)?);
            continue;
        }
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
            let what = format_args!("the reset names unknown coordinate `{ident}` of mode `{}`", target.name);
            let known = format!("Its coordinates: {}", names.join(", "));
            return Err(unknown(ident.span(), what, &ident.to_string(), &names, known));
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
                        if velocity {
                            lower.syms.qd[j]
                        } else {
                            lower.syms.q[j]
                        }
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
    // The shared orientations: each quaternion as it is, ω as given or as it is.
    let (mut positions, mut velocities) = (positions, velocities);
    for (o, omega) in orientations.iter().zip(omegas) {
        positions.extend((0..4).map(|i| lower.syms.q[o.q_start + i]));
        velocities.extend(omega.unwrap_or_else(|| std::array::from_fn(|i| lower.syms.qd[o.v_start + i])));
    }
    Ok(Law::Chart { positions, velocities })
}

/// The orientation whose angular velocity the left side of a reset assignment `omega(r) = ...`
/// gives (`None` for other assignments); an orientation itself on the left is an error: it carries
/// over.
fn reset_orientation(lhs: &syn::Expr, orientations: &[crate::layout::Orientation]) -> syn::Result<Option<usize>> {
    let find = |e: &syn::Expr| match e {
        syn::Expr::Path(p) => p.path.get_ident().and_then(|i| orientations.iter().position(|o| o.name == *i)),
        _ => None,
    };
    if let Some(o) = find(lhs) {
        return Err(syn::Error::new_spanned(
            lhs,
            format!(
                "the orientation `{}` carries over into the target mode (the modes share it); a reset may give its \
                 angular velocity, `omega({0}) = [..]` (body components)",
                orientations[o].name
            ),
        ));
    }
    let syn::Expr::Call(c) = lhs else { return Ok(None) };
    if !matches!(&*c.func, syn::Expr::Path(f) if f.path.is_ident("omega")) || c.args.len() != 1 {
        return Ok(None);
    }
    match c.args.first().and_then(find) {
        Some(o) => Ok(Some(o)),
        None => {
            let names: Vec<String> = orientations.iter().map(|o| o.name.to_string()).collect();
            Err(syn::Error::new_spanned(
                lhs,
                format!(
                    "`omega(r)` on the left of a reset gives the body angular velocity of an orientation `r` of the model \
                     (orientations: {}); an ordinary coordinate's rate is `dot(q)`",
                    if names.is_empty() { "none".to_owned() } else { names.join(", ") }
                ),
            ))
        }
    }
}

/// The constraint named by a guard (or an output) `multiplier(name)`, if it has that form.
pub(super) fn multiplier_guard(e: &syn::Expr) -> Option<Ident> {
    let syn::Expr::Call(call) = e else { return None };
    let syn::Expr::Path(f) = &*call.func else { return None };
    if !f.path.is_ident("multiplier") || call.args.len() != 1 {
        return None;
    }
    match call.args.first() {
        Some(syn::Expr::Path(p)) => p.path.get_ident().cloned(),
        _ => None,
    }
}

/// `restitution(e)` along the guard's own normal is Newton's law for dh/dt only when h is a
/// function of (t, q): it acts on q̇ along ∂h/∂q, and for a guard that depends on the action z of a
/// contact model it would leave out the part ∂h/∂z · ż (ż = L is no impulsive velocity) — a law of
/// something else than the guard's rate, or no law at all when ∂h/∂q ≡ 0. Such a guard needs its
/// one-forms written out, or a velocity map.
fn check_normal_law_without_action(
    lower: &Lowerer<'_>,
    decl: &ImpactDecl,
    guard: Expr,
    rows: &[(Option<syn::Expr>, syn::Expr)],
) -> syn::Result<()> {
    let (Some(z), Some(guard_src)) = (lower.syms.z, &decl.guard) else { return Ok(()) };
    if rows.iter().all(|(form, _)| form.is_some()) || !lower.arena.depends_on(guard, z) {
        return Ok(());
    }
    let action = lower.action_name().unwrap_or("z");
    Err(syn::Error::new_spanned(
        guard_src,
        format!(
            "this guard depends on the action variable `{action}`, so `restitution(e)` along its normal is not Newton's \
             law for its rate: an impact changes only the velocities q̇, while d{action}/dt = L is not an impulsive \
             velocity; give the law's one-forms in the coordinates (`restitution(dx: e)`) or the post-impact \
             velocities (`map(dot(x) = ...)`)"
        ),
    ))
}
