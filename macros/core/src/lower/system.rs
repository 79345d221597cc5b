//! Lowering of the whole derive input: the struct's parameters, the name-level checks, each
//! mode's items (by kind: [`super::impact`], [`super::symmetry`]), into one [`System`].
//!
//! Everything reports into the [`Ctxt`] and goes on where the rest still makes sense: name
//! mistakes do not stop the lowering of expressions, one mode's mistakes do not hide another's.

use symbolic::{Arena, Expr};
use syn::spanned::Spanned;
use syn::{Data, DeriveInput, Fields, Ident, Type};

use super::constraint::lower_constraint;
use super::expr::Lowerer;
use super::impact::{Target, lower_impact};
use super::symmetry::{lower_reduction, lower_symmetry};
use super::unilateral;
use crate::diagnostics::{Ctxt, unknown};
use crate::layout::{Layout, Role};
use crate::model::{Model, System};
use crate::parse::{ImpactDecl, RawModel, parse_attributes};

/// Validates the derive input and lowers every expression: one model, or one per mode. `None`
/// when a mistake leaves nothing to derive (every mistake found is in `cx`).
pub fn system_from_input(input: &DeriveInput, cx: &mut Ctxt) -> Option<System> {
    if !input.generics.params.is_empty() {
        cx.error(
            input.generics.span(),
            "#[derive(Mechanics)] does not support generic structs: parameters are plain `f64` fields",
        );
        return None;
    }
    let parameters = parameters(input, cx)?;
    let raw = cx.ok(parse_attributes(&input.attrs, input.ident.span()))?;
    let described = raw.described.clone();
    let limits = raw.limits_read.clone();
    let mut system = system_of(input, cx, raw, &parameters)?;
    system.described = described;
    system.limits = limits;
    Some(system)
}

/// The system of the parsed items (see [`system_from_input`]).
fn system_of(input: &DeriveInput, cx: &mut Ctxt, raw: RawModel, parameters: &[Ident]) -> Option<System> {
    let raw = unilateral::expand(raw, cx)?;
    let name = &input.ident;
    let action = action(&raw, cx);
    let inputs: Vec<Ident> = raw.inputs.iter().flat_map(|(_, names)| names.iter().cloned()).collect();
    cx.repeats(&inputs, ToString::to_string, |u| syn::Error::new(u.span(), format!("the input `{u}` is declared twice")));
    if let Some((kw, _)) = raw.inputs.first()
        && !raw.reductions.is_empty()
    {
        // Inputs drive models with impacts and modes too (the driven hybrid system takes its
        // guards and resets from the model at any input, each mode's field at the signal's
        // inputs); a reduced system does not carry the input signal.
        cx.error(
            kw.span(),
            "inputs in models with reductions are not supported yet; drive the full model, or write the feedback as a `force`",
        );
    }
    for m in &raw.modes {
        if let Some((kw, _)) = m.items.actions.first() {
            cx.error(
                kw.span(),
                "declare `action(...)` at the top level of #[mechanics(...)]: the action variable is shared by every mode",
            );
        }
    }
    let (transitions, impacts): (Vec<_>, Vec<_>) = raw.impacts.iter().partition(|d| d.keyword == "transition");
    if raw.modes.is_empty() {
        if let Some(t) = transitions.first() {
            cx.error(
                t.keyword.span(),
                "a `transition` joins two modes, but this model has none; declare them with `mode(name, ...)`, or use `impact(...)`",
            );
        }
        let declared = Declared { parameters, action: action.as_ref(), inputs: &inputs };
        return single(cx, input, &raw, declared, impacts);
    }
    check_system_items(cx, &raw, &impacts);
    let mode_names: Vec<String> = raw.modes.iter().map(|m| m.name.to_string()).collect();
    for m in &raw.modes {
        if let Some((kw, _)) = m.items.orientations.first() {
            cx.error(kw.span(), "declare `orientation(...)` at the top level of #[mechanics(...)]: the modes share it");
        }
        if let Some((kw, _)) = m.items.gravity.first() {
            cx.error(kw.span(), "declare `gravity` at the top level of #[mechanics(...)]: the field acts in every mode");
        }
        // A mode's own Lagrangian or bodies replace the top level's together (see `merged` below):
        // a mode with its own coordinates or Lagrangian but no bodies of its own would silently
        // lose the top-level bodies, written in the top-level coordinates.
        let own_lagrangian = !m.items.lagrangians.is_empty() || !m.items.coordinates.is_empty();
        if let (Some(b), true, true) = (raw.bodies.first(), own_lagrangian, m.items.bodies.is_empty()) {
            let mut e = syn::Error::new(
                m.name.span(),
                "this mode has its own coordinates or Lagrangian, so the model's top-level bodies (which make the top-level \
                 Lagrangian) do not carry over to it; declare the bodies it has inside the mode, `mode(name, coordinates(..), \
                 body(..), ..)`",
            );
            e.combine(syn::Error::new(b.keyword.span(), "the first top-level body is declared here"));
            cx.push(e);
        }
        let name = m.name.to_string();
        cx.ok(crate::names::check_reserved(m.name.span(), &format!("mode `{name}`"), &crate::names::mode_items(&name)));
    }
    cx.repeats(
        &raw.modes,
        |m| m.name.to_string(),
        |m| syn::Error::new(m.name.span(), format!("two modes are named `{}`", m.name)),
    );
    // Each mode's description: its own items, falling back to the top level's coordinates,
    // Lagrangian and forces; defines are shared.
    let merged: Vec<RawModel> = raw.modes.iter().map(|m| merged_mode(cx, &raw, m)).collect();
    // Resolve transitions' modes.
    let find = |id: &Ident| -> syn::Result<usize> {
        mode_names.iter().position(|m| id == m).ok_or_else(|| {
            let known = format!("Modes: {}", mode_names.join(", "));
            unknown(id.span(), format_args!("unknown mode `{id}`"), &id.to_string(), &mode_names, known)
        })
    };
    // A mode that declares none of the items the kinetic metric and the rows are lowered from.
    let inherits = |k: usize| {
        let own = &raw.modes[k].items;
        own.coordinates.is_empty()
            && own.coordinates_keyword.is_none()
            && own.lagrangians.is_empty()
            && own.bodies.is_empty()
            && own.defines.is_empty()
    };
    let mut resolved: Vec<(usize, &ImpactDecl, Target)> = Vec::new();
    for t in &transitions {
        let Some((from, to)) = &t.modes else { continue };
        let (from, to_index) = (cx.ok(find(from)), cx.ok(find(to)));
        if let (Some(f), Some(k)) = (from, to_index) {
            let coordinates = merged[k].coordinates.clone();
            resolved.push((
                f,
                t,
                Target {
                    mode: k,
                    name: to.clone(),
                    coordinates,
                    constraints: merged[k].constraints.clone(),
                    contacts: merged[k].contacts.clone(),
                    shared: inherits(f) && inherits(k),
                },
            ));
        }
    }
    if cx.has_errors() {
        return None;
    }
    let mut modes = Vec::new();
    for (k, (m, raw_k)) in raw.modes.iter().zip(&merged).enumerate() {
        let outgoing: Vec<(&ImpactDecl, Target)> = resolved
            .iter()
            .filter(|(f, _, _)| *f == k)
            .map(|(_, decl, t)| {
                let target = Target {
                    mode: t.mode,
                    name: t.name.clone(),
                    coordinates: t.coordinates.clone(),
                    constraints: t.constraints.clone(),
                    contacts: t.contacts.clone(),
                    shared: t.shared,
                };
                (*decl, target)
            })
            .collect();
        let declared = Declared { parameters, action: action.as_ref(), inputs: &inputs };
        if let Some(model) = lower_model(cx, name, Some((k, m.name.clone())), declared, raw_k, &outgoing) {
            modes.push(model);
        }
    }
    // A mode that `project` transitions enter generates their projection once (`__routh_arrival_reset`).
    let arrivals: Vec<usize> = modes
        .iter()
        .flat_map(|m| m.0.impacts.iter().filter(|i| matches!(i.law, crate::model::Law::Project { .. })).filter_map(|i| i.target))
        .collect();
    for k in arrivals {
        if let Some(m) = modes.get_mut(k) {
            m.0.arrival = true;
        }
    }
    // Each constraint's row and parts of the derivatives derived once, in the first mode that
    // holds its declaration, where the modes take everything they are lowered from (the
    // coordinates, bodies, defines) and the dynamics from the top level.
    let eligible = |k: usize| inherits(k) && raw.modes[k].items.dynamics.is_none() && raw.modes[k].items.jacobian.is_none();
    let key = |d: &crate::parse::ConstraintDecl| {
        let value = &d.value;
        format!("{} {} = {}", d.keyword, d.name, quote::quote!(#value))
    };
    let keys: Vec<Vec<String>> = merged.iter().map(|m| m.constraints.iter().map(key).collect()).collect();
    // The projection's parts likewise, among the modes that `project` transitions enter.
    let mut arriving = vec![false; raw.modes.len()];
    for (model, _) in &modes {
        if let Some((k, _)) = model.mode {
            arriving[k] = model.arrival;
        }
    }
    for (model, _) in &mut modes {
        let Some((k, _)) = model.mode else { continue };
        if !eligible(k) {
            continue;
        }
        let owners = |also: &dyn Fn(usize) -> bool| -> Vec<Option<Ident>> {
            keys[k]
                .iter()
                .map(|c| (0..k).find(|&j| eligible(j) && also(j) && keys[j].contains(c)).map(|j| raw.modes[j].name.clone()))
                .collect()
        };
        model.part_owners = owners(&|_| true);
        if model.arrival {
            model.arrival_owners = owners(&|j| arriving[j]);
        }
    }
    let held: Vec<Ident> = modes.iter().flat_map(|m| m.0.constraints.iter().map(|c| c.name.clone())).collect();
    super::output::check_output_multipliers(cx, &raw, &held);
    check_output_columns(cx, &raw, &modes);
    if cx.has_errors() {
        return None;
    }
    Some(System::new(name.clone(), input.vis.clone(), raw.krate.clone(), modes))
}

/// A model without modes: the whole description, its impacts those that are not transitions.
fn single(
    cx: &mut Ctxt,
    input: &DeriveInput,
    raw: &RawModel,
    declared: Declared<'_>,
    impacts: Vec<&ImpactDecl>,
) -> Option<System> {
    let name = &input.ident;
    let raw = RawModel {
        span: raw.span,
        coordinates_keyword: raw.coordinates_keyword.clone(),
        coordinates: raw.coordinates.clone(),
        orientations: raw.orientations.clone(),
        orientation_after: raw.orientation_after.clone(),
        actions: raw.actions.clone(),
        inputs: raw.inputs.clone(),
        sensitivities: raw.sensitivities.clone(),
        jacobian: raw.jacobian.clone(),
        dynamics: raw.dynamics.clone(),
        defines: raw.defines.clone(),
        joints: Vec::new(),
        described: Vec::new(),
        limits_read: Vec::new(),
        bodies: raw.bodies.clone(),
        contacts: raw.contacts.clone(),
        gravity: raw.gravity.clone(),
        lagrangians: raw.lagrangians.clone(),
        forces: raw.forces.clone(),
        constraints: raw.constraints.clone(),
        impacts: impacts.into_iter().cloned().collect(),
        modes: Vec::new(),
        symmetries: raw.symmetries.clone(),
        reductions: raw.reductions.clone(),
        discrete: raw.discrete.clone(),
        outputs: raw.outputs.clone(),
        krate: raw.krate.clone(),
    };
    let model = lower_model(cx, name, None, declared, &raw, &[])?;
    let held: Vec<Ident> = model.0.constraints.iter().map(|c| c.name.clone()).collect();
    super::output::check_output_multipliers(cx, &raw, &held);
    // A mistake anywhere (a non-`f64` field, a stray transition) leaves nothing to derive.
    (!cx.has_errors()).then(|| System::new(name.clone(), input.vis.clone(), raw.krate.clone(), vec![model]))
}

/// In a model with modes: the items that belong in a mode (impacts, constraints, contacts) and
/// those that belong to the whole system (inputs, sensitivities, outputs), each where it must be;
/// what multi-mode models cannot have yet (symmetries, reductions, discrete systems).
fn check_system_items(cx: &mut Ctxt, raw: &RawModel, impacts: &[&ImpactDecl]) {
    if let Some(i) = impacts.first() {
        cx.error(i.keyword.span(), "in a model with modes, declare each `impact(...)` inside its `mode(...)`");
    }
    if let Some(c) = raw.constraints.first() {
        cx.error(c.keyword.span(), "in a model with modes, declare constraints inside the `mode(...)` they hold in");
    }
    if let Some(c) = raw.contacts.first() {
        cx.error(c.keyword.span(), "in a model with modes, declare contacts inside the `mode(...)` they hold in");
    }
    if let Some(s) = raw.symmetries.first() {
        cx.error(s.name.span(), "symmetries of multi-mode models are not supported yet");
    }
    if let Some(r) = raw.reductions.first() {
        cx.error(r.keyword.span(), "reduction of multi-mode models is not supported yet");
    }
    if let Some(d) = raw.discrete.first() {
        cx.error(d.keyword.span(), "discrete (variational) integrators of multi-mode models are not supported yet");
    }
    // Items that belong to the whole system: written in a mode they would be lost.
    for m in &raw.modes {
        if let Some((kw, _)) = m.items.inputs.first() {
            cx.error(
                kw.span(),
                "declare `input(...)` at the top level of #[mechanics(...)]: the inputs are shared by every mode (a mode's \
                 forces may use them or not)",
            );
        }
        if let Some((kw, _)) = m.items.sensitivities.first() {
            cx.error(
                kw.span(),
                "declare `sensitivity(...)` at the top level of #[mechanics(...)]: ∂F/∂p is generated for every mode",
            );
        }
        if let Some(s) = m.items.symmetries.first() {
            cx.error(s.name.span(), "symmetries of multi-mode models are not supported yet");
        }
        if let Some(r) = m.items.reductions.first() {
            cx.error(r.keyword.span(), "reduction of multi-mode models is not supported yet");
        }
        if let Some(d) = m.items.discrete.first() {
            cx.error(d.keyword.span(), "discrete (variational) integrators of multi-mode models are not supported yet");
        }
    }
    for (kw, _) in raw.modes.iter().flat_map(|m| &m.items.outputs) {
        cx.error(
            kw.span(),
            "declare `output(...)` at the top level of #[mechanics(...)]: outputs are evaluated in every mode, each in its \
             own coordinates",
        );
    }
}

/// Mode `m`'s description: its own items, falling back to the top level's coordinates,
/// Lagrangian and forces; defines are shared.
fn merged_mode(cx: &mut Ctxt, raw: &RawModel, m: &crate::parse::ModeDecl) -> RawModel {
    let own = &m.items;
    let inherit_coordinates = own.coordinates.is_empty() && own.coordinates_keyword.is_none();
    // The Lagrangian's items, the written Lagrangian and the bodies, come together: the
    // mode's own if it declares either, the top level's otherwise.
    let own_lagrangian = !own.lagrangians.is_empty() || !own.bodies.is_empty();
    let mut defines = raw.defines.clone();
    defines.extend(own.defines.iter().cloned());
    // Forces are inherited like every omitted item, also by a mode with coordinates of
    // its own; one on a coordinate the mode does not have is an error, not a force
    // silently dropped.
    let forces = if !own.forces.is_empty() {
        own.forces.clone()
    } else if inherit_coordinates {
        raw.forces.clone()
    } else {
        let mut unknown = false;
        for f in raw.forces.iter().filter(|f| !own.coordinates.contains(&f.name)) {
            unknown = true;
            let names: Vec<String> = own.coordinates.iter().map(ToString::to_string).collect();
            cx.error(
                f.name.span(),
                format!(
                    "mode `{mode}` inherits this force (it declares no forces of its own), but `{}` is not one of its \
                     coordinates ({}): give the mode its own forces, `mode({mode}, force(...))`",
                    f.name,
                    names.join(", "),
                    mode = m.name,
                ),
            );
        }
        if unknown { Vec::new() } else { raw.forces.clone() }
    };
    RawModel {
        span: m.name.span(),
        coordinates_keyword: if inherit_coordinates { raw.coordinates_keyword.clone() } else { own.coordinates_keyword.clone() },
        coordinates: if inherit_coordinates { raw.coordinates.clone() } else { own.coordinates.clone() },
        // Every mode has the top level's orientations (a mode's own coordinates are ordinary).
        orientations: raw.orientations.clone(),
        orientation_after: raw.orientation_after.clone(),
        actions: raw.actions.clone(),
        inputs: raw.inputs.clone(),
        sensitivities: raw.sensitivities.clone(),
        jacobian: own.jacobian.clone().or_else(|| raw.jacobian.clone()),
        dynamics: own.dynamics.clone().or_else(|| raw.dynamics.clone()),
        defines,
        joints: Vec::new(),
        described: Vec::new(),
        limits_read: Vec::new(),
        // Bodies belong to the Lagrangian: a mode that inherits it inherits them.
        bodies: match (own_lagrangian, inherit_coordinates) {
            (true, _) => own.bodies.clone(),
            (false, true) => raw.bodies.clone(),
            (false, false) => Vec::new(),
        },
        contacts: own.contacts.clone(),
        gravity: if own.bodies.is_empty() && !(own.lagrangians.is_empty() && inherit_coordinates) {
            Vec::new()
        } else {
            raw.gravity.clone()
        },
        lagrangians: if own_lagrangian { own.lagrangians.clone() } else { raw.lagrangians.clone() },
        forces,
        constraints: own.constraints.clone(),
        impacts: own.impacts.clone(),
        modes: Vec::new(),
        symmetries: Vec::new(),
        reductions: Vec::new(),
        discrete: Vec::new(),
        outputs: raw.outputs.clone(),
        krate: None,
    }
}

/// One set of output columns for the whole run: every mode's, in the same order and shapes.
fn check_output_columns(cx: &mut Ctxt, raw: &RawModel, modes: &[(Model, Arena)]) {
    let columns = |m: &(crate::model::Model, Arena)| m.0.outputs.iter().map(|(n, _)| n.clone()).collect::<Vec<_>>();
    if let (Some((kw, _)), Some(first)) = (raw.outputs.first(), modes.first())
        && let Some(other) = modes.iter().find(|m| columns(m) != columns(first))
    {
        let mode_name = |m: &(crate::model::Model, Arena)| m.0.mode.as_ref().map(|(_, n)| n.to_string()).unwrap_or_default();
        cx.error(
            kw.span(),
            format!(
                "the outputs have different columns in modes `{}` ({:?}) and `{}` ({:?}): an output is a scalar or a \
                 3-vector in every mode",
                mode_name(first),
                columns(first),
                mode_name(other),
                columns(other)
            ),
        );
    }
}

/// The declared action variable: at most one `action(z)` item naming one variable.
fn action(raw: &RawModel, cx: &mut Ctxt) -> Option<Ident> {
    let mut found: Option<Ident> = None;
    for (keyword, names) in &raw.actions {
        match names.as_slice() {
            [] => cx.error(keyword.span(), "`action(...)` needs the name of the action variable, e.g. `action(z)`"),
            [z] => match &found {
                Some(first) => cx.error(
                    z.span(),
                    format!(
                        "the action variable is declared twice (first as `{first}`); a contact Lagrangian has one action variable"
                    ),
                ),
                None => found = Some(z.clone()),
            },
            [z, extra, ..] => {
                cx.error(
                    extra.span(),
                    format!("a contact Lagrangian has one action variable: declare one name, e.g. `action({z})`"),
                );
                // The first name stays the action variable, so that its uses are not reported as unknown.
                if found.is_none() {
                    found = Some(z.clone());
                }
            }
        }
    }
    found
}

/// The names a model declares besides its coordinates: the struct's fields (parameters), the action
/// variable and the inputs.
#[derive(Clone, Copy)]
struct Declared<'a> {
    parameters: &'a [Ident],
    action: Option<&'a Ident>,
    inputs: &'a [Ident],
}

/// Validates and lowers one (merged) model description. `transitions` are the transitions
/// leaving this mode, with their targets. `None` if this model has mistakes (reported in `cx`).
fn lower_model(
    cx: &mut Ctxt,
    name: &Ident,
    mode: Option<(usize, Ident)>,
    declared: Declared<'_>,
    raw: &RawModel,
    transitions: &[(&ImpactDecl, Target)],
) -> Option<(Model, Arena)> {
    let Declared { parameters, action, inputs } = declared;
    let errors_before = cx.count();
    check_names(raw, parameters, cx);
    // An action named like another name is reported once, and then not in scope (so the other
    // name keeps its meaning in the expressions).
    let action = action.filter(|z| check_action_name(z, raw, parameters, cx));
    // Likewise an input named like another name.
    let inputs: Vec<Ident> = inputs.iter().filter(|u| check_input_name(u, raw, parameters, action, cx)).cloned().collect();
    let inputs = inputs.as_slice();
    check_reductions_apply(cx, raw, action);
    // Without coordinates or a Lagrangian there is nothing to lower; other name mistakes do not
    // stop the lowering, so that mistakes inside expressions are reported in the same build.
    let orientations = super::orientation::orientations(raw, parameters, cx);
    if (raw.lagrangians.is_empty() && raw.bodies.is_empty()) || (raw.coordinates.is_empty() && orientations.is_empty()) {
        return None;
    }
    let parameters = parameters.to_vec();

    let mut arena = Arena::new();
    let syms = Layout::with_orientations(&mut arena, &raw.coordinates, &orientations, &parameters, action, inputs);
    // The nodes of a raw discrete system (a `discrete(lagrangian = ...)` in q0(x), q1(x), h, t).
    let nodes = raw.discrete.first().filter(|d| d.rule.is_none()).map(|_| super::expr::Nodes {
        q0: (0..raw.coordinates.len()).map(|i| syms.symbol(&mut arena, Role::NodeStart(i))).collect(),
        q1: (0..raw.coordinates.len()).map(|i| syms.symbol(&mut arena, Role::NodeEnd(i))).collect(),
        h: syms.symbol(&mut arena, Role::StepSize),
        t0: syms.symbol(&mut arena, Role::StepTime),
        z0: action.map(|_| syms.symbol(&mut arena, Role::StepAction)),
    });
    let (dq, dt) = (syms.dq.clone(), syms.dt);

    let mut lower = Lowerer::new(&mut arena, &syms, &raw.coordinates, &parameters, action, inputs, &raw.defines);
    if !check_defines(&mut lower, cx, raw, errors_before) {
        return None;
    }
    super::body::check_frames_and_points(&mut lower, cx, raw);
    let bodies = super::body::lower_bodies(&mut lower, cx, raw);
    let gravity = super::body::lower_gravity(&mut lower, cx, raw);
    if let (Some((kw, _)), true) = (raw.gravity.first(), raw.bodies.is_empty()) {
        cx.error(
            kw.span(),
            "`gravity` acts on bodies and particles, and this model declares none; write the potential in the Lagrangian",
        );
    }
    let written = match raw.lagrangians.first() {
        Some((_, lag_expr)) => cx.ok(lower.lower(lag_expr)),
        None => Some(lower.arena.zero()),
    };
    let of_bodies = super::body::bodies_lagrangian(&mut lower, &bodies, gravity.as_ref());
    let lagrangian = written.map(|l| lower.arena.add2(l, of_bodies));
    let written = written.unwrap_or(lower.arena.zero());
    // The tokens blamed for model-level problems: the written Lagrangian, or the first body.
    let lagrangian_tokens = match (raw.lagrangians.first(), raw.bodies.first()) {
        (Some((kw, e)), _) => quote::quote!(#kw = #e),
        (None, Some(b)) => {
            let kw = &b.keyword;
            quote::quote!(#kw)
        }
        (None, None) => unreachable!("checked above"),
    };
    // Inputs drive the model through its forces only.
    if let Some(l) = lagrangian
        && let Some(k) = lower.syms.u.iter().position(|&u| lower.arena.depends_on(l, u))
    {
        let blamed = raw.lagrangians.first().map_or_else(|| lagrangian_tokens.clone(), |(_, e)| quote::quote!(#e));
        cx.push(syn::Error::new_spanned(
            blamed,
            format!("the input `{}` appears in the Lagrangian; inputs drive the model through `force(...)`", inputs[k]),
        ));
    }
    let force = lower_forces(&mut lower, cx, raw);
    let constraints = lower_constraints(&mut lower, cx, raw, &bodies, (&dq, dt), inputs);
    let impact_names: Vec<Ident> = raw.impacts.iter().filter_map(|d| d.name.clone()).collect();
    let mut impacts = Vec::new();
    for decl in &raw.impacts {
        impacts.extend(cx.ok(lower_impact(&mut lower, decl, &parameters, &dq, dt, None, &impact_names, &constraints, &bodies)));
    }
    for (decl, target) in transitions {
        let lowered = lower_impact(&mut lower, decl, &parameters, &dq, dt, Some(target), &impact_names, &constraints, &bodies);
        impacts.extend(cx.ok(lowered));
    }
    cx.repeats(
        &impacts,
        |i| i.name.to_string(),
        |i| syn::Error::new(i.name.span(), format!("two impacts are named `{}`", i.name)),
    );
    let symmetries = lower_symmetries(&mut lower, cx, raw);
    let reductions: Vec<_> =
        raw.reductions.iter().map(|decl| lower_reduction(&mut lower, cx, decl, &raw.coordinates, &symmetries, name)).collect();
    let sensitivity = sensitivity_parameters(raw, &parameters, cx);
    let discretization = super::discrete::lower_discrete(&mut lower, cx, raw, nodes.as_ref());
    let held: Vec<Ident> = constraints.iter().map(|c| c.name.clone()).collect();
    let outputs = super::output::lower_outputs(&mut lower, cx, raw, &held);
    if exhausted(&lower, cx, raw, (name, errors_before)) || cx.count() > errors_before {
        return None;
    }
    let exact_rates = lower.exact_rates();
    // The Lagrangian over the rates of its positions, for the recursive dynamics: of a written
    // Lagrangian and the bodies, in models without orientations or an action.
    let held = (lower.syms.orientations.is_empty() && action.is_none())
        .then(|| {
            lower.held_lagrangian(raw.lagrangians.first().map(|(_, e)| e), |lower| {
                super::body::held_bodies_lagrangian(lower, &bodies, gravity.as_ref())
            })
        })
        .flatten();
    let zero = lower.arena.zero();
    // Forces act on the ordinary coordinates' velocities, torques on an orientation's ω.
    let force: Vec<Expr> = force.into_iter().map(|f| f.unwrap_or(zero)).collect();
    // The coordinates in state order: the ordinary ones, then each orientation's quaternion.
    let coordinates: Vec<Ident> = lower.syms.coordinate_idents();
    let lagrangian = lagrangian.unwrap_or(zero);
    let requirements = requirements(&mut lower, raw, &bodies);

    let mut model = Model::assemble(name.clone(), mode, coordinates, parameters, syms, lagrangian, lagrangian_tokens, force);
    model.action = action.cloned();
    model.requirements = requirements;
    model.bodies = bodies;
    model.written = written;
    model.gravity = gravity;
    model.exact_rates = exact_rates;
    model.held = held;
    model.dynamics = raw.dynamics.clone();
    model.inputs = inputs.to_vec();
    model.constraints = constraints;
    model.impacts = impacts;
    model.symmetries = symmetries;
    model.reductions = reductions;
    model.discretization = discretization;
    model.outputs = outputs;
    // The field Jacobian is derived when asked for, and where the generated API needs it: the
    // linearisation of a model with inputs and the sensitivities ∂x/∂p (multi-mode models and
    // models with impacts turn it on in `System::new`, for periodic orbits).
    model.field_jacobian = raw.jacobian.is_some() || !inputs.is_empty() || !sensitivity.is_empty();
    model.sensitivity = sensitivity;
    Some((model, arena))
}

/// What reductions cannot do yet: reduce a contact Lagrangian (with an action), or a model with
/// constraints or contacts by Routh's (their forces change the cyclic momenta).
fn check_reductions_apply(cx: &mut Ctxt, raw: &RawModel, action: Option<&Ident>) {
    if let Some(z) = action {
        // Not yet for contact models: the Routhian of a contact Lagrangian needs the Herglotz form
        // (its momenta are dissipated, not conserved).
        if let Some(r) = raw.reductions.iter().find(|r| r.keyword == "nonholonomic") {
            cx.error(
                r.keyword.span(),
                format!(
                    "nonholonomic reduction of contact Lagrangians (with `action({z})`) is not supported yet: the reduced \
                     state would carry the action z with ż = L, and the reduced equations are derived for ordinary Lagrangians; \
                     simulate the full model"
                ),
            );
        }
        if let Some(r) = raw.reductions.iter().find(|r| r.keyword == "routh") {
            cx.push(syn::Error::new(
                r.keyword.span(),
                format!(
                    "Routh reduction of contact Lagrangians (with `action({z})`) is not supported yet: their cyclic momenta are \
                     dissipated, p_c(t) = p_c(t₀)·exp(∫ ∂L/∂{z} dt), not conserved, so the Routhian needs the Herglotz form; \
                     simulate the full model and read the momentum with `symmetry(cyclic(...))` meanwhile"
                ),
            ));
        }
    }
    // Nor for constrained models: reducing by a cyclic coordinate's conserved momentum ignores the
    // constraint forces, which change that momentum (the rolling disk's heading momentum), and
    // nonholonomic reduction needs the momentum equation instead.
    let routh = raw.reductions.iter().find(|r| r.keyword == "routh");
    if let (Some(r), Some(c)) = (routh, raw.contacts.first()) {
        cx.error(
            r.keyword.span(),
            format!(
                "Routh reduction of models with constraints is not supported yet: the contact `{}` constrains the velocities, \
                 and its forces act on the cyclic coordinates' momenta; reduce it with \
                 `reduce(nonholonomic(q, ...), velocities(...))`, or simulate the full model",
                c.name.as_ref().map_or_else(|| c.keyword.to_string(), ToString::to_string)
            ),
        );
    }
    if let (Some(r), Some(first)) = (routh, raw.constraints.first()) {
        let names: Vec<String> = raw.constraints.iter().map(|c| format!("`{}`", c.name)).collect();
        let mut error = syn::Error::new(
            r.keyword.span(),
            format!(
                "Routh reduction of models with constraints is not supported yet: the constraint forces of {} act on the \
                 cyclic coordinates' momenta, so the Routhian of the unconstrained Lagrangian would be a different model; \
                 reduce it with `reduce(nonholonomic(q, ...), velocities(...))`, simulate the full model (its momentum maps give the balance laws with the constraint forces), or write \
                 the model in coordinates that solve holonomic constraints",
                names.join(", ")
            ),
        );
        error.combine(syn::Error::new(first.name.span(), "the first constraint is declared here"));
        cx.push(error);
    }
}

/// The generalized forces (`None` where none is given): on an ordinary coordinate its value, on
/// an orientation a torque, a 3-vector in body components — the generalized force of its body
/// angular velocity ω (the virtual work τ·δθ of a body-frame rotation δθ).
fn lower_forces(lower: &mut Lowerer<'_>, cx: &mut Ctxt, raw: &RawModel) -> Vec<Option<Expr>> {
    let mut force = vec![None; lower.syms.dof()];
    for b in &raw.forces {
        // A torque on an orientation.
        if let Some(o) = lower.syms.orientations.iter().find(|o| o.name == b.name).cloned() {
            if let Some(torque) = cx.ok(lower.vector(&b.value)) {
                for (c, &tc) in torque.iter().enumerate() {
                    force[o.v_start + c] = Some(tc);
                }
            }
            continue;
        }
        // A force on an unknown coordinate is reported by the name checks; its expression is
        // still lowered for mistakes of its own.
        let value = cx.ok(lower.lower(&b.value));
        if let Some(i) = raw.coordinates.iter().position(|c| *c == b.name) {
            force[i] = value;
        }
    }
    force
}

/// Lowers every define, used or not, so that mistakes in them are reported; `false` when one
/// exhausts the workspace — past it every expression is a placeholder, so that is reported alone
/// (the errors since `errors_before` dropped), at that define.
fn check_defines(lower: &mut Lowerer<'_>, cx: &mut Ctxt, raw: &RawModel, errors_before: usize) -> bool {
    for (i, d) in raw.defines.iter().enumerate() {
        cx.ok(lower.check_define(i));
        if lower.arena.exhausted() {
            cx.truncate(errors_before);
            cx.push(crate::diagnostics::budget_exceeded(&d.name, lower.arena, &format!(" at the define `{}`", d.name)));
            return false;
        }
    }
    true
}

/// Whether lowering exhausted the workspace (its budget or depth): then its expressions are
/// placeholders, and the errors found since `errors_before` are replaced by that one, at the
/// Lagrangian (or the model's `name`).
fn exhausted(lower: &Lowerer<'_>, cx: &mut Ctxt, raw: &RawModel, (name, errors_before): (&Ident, usize)) -> bool {
    if !lower.arena.exhausted() {
        return false;
    }
    cx.truncate(errors_before);
    let lagrangian = raw.lagrangians.first().map(|(kw, _)| quote::quote!(#kw)).unwrap_or_else(|| quote::quote!(#name));
    cx.push(crate::diagnostics::budget_exceeded(lagrangian, lower.arena, " while lowering it"));
    true
}

/// What the parameters must satisfy, checked when a run starts: every body's mass positive and its
/// inertia a rigid body's, every rolling radius positive (those that are numbers are checked here).
fn requirements(lower: &mut Lowerer<'_>, raw: &RawModel, bodies: &[crate::model::Body]) -> Vec<crate::model::Requirement> {
    use crate::model::Requirement;
    let numeric = |lower: &Lowerer<'_>, es: &[Expr]| es.iter().all(|&e| lower.arena.as_num(e).is_some());
    let mut out = Vec::new();
    for b in bodies {
        if !numeric(lower, &[b.mass]) {
            out.push(Requirement::Positive { what: format!("the mass of `{}`", b.name), value: b.mass });
        }
        if let Some(i) = &b.inertia
            && !numeric(lower, i.as_flattened())
        {
            out.push(Requirement::Inertia { what: format!("the inertia of `{}`", b.name), tensor: *i });
        }
    }
    for (what, r) in super::contact::radii(lower, raw) {
        if !numeric(lower, &[r]) {
            out.push(Requirement::Positive { what, value: r });
        }
    }
    out
}

/// The declared constraints, then the contacts' rows: none with an input in it (inputs drive the
/// forces, guards and impact laws), none named twice.
fn lower_constraints(
    lower: &mut Lowerer<'_>,
    cx: &mut Ctxt,
    raw: &RawModel,
    bodies: &[crate::model::Body],
    (dq, dt): (&[Expr], Expr),
    inputs: &[Ident],
) -> Vec<crate::model::Constraint> {
    let mut constraints = Vec::new();
    for decl in &raw.constraints {
        constraints.extend(cx.ok(lower_constraint(lower, decl, dq, dt)));
    }
    // The contacts' rows follow the declared constraints.
    constraints.extend(super::contact::lower_contacts(lower, cx, raw, bodies));
    // Inputs drive the forces (and guards and impact laws), not the constraints: a driven run
    // projects onto the constraints of the model at any input, which an input in a row would
    // move (a prescribed motion is a function of t).
    for c in &constraints {
        let uses = |e: Expr| lower.syms.u.iter().position(|&u| lower.arena.depends_on(e, u));
        if let Some(k) = c.position.into_iter().chain(c.a.iter().copied()).chain([c.b]).find_map(uses) {
            cx.error(
                c.name.span(),
                format!(
                    "the input `{}` appears in the constraint `{}`; inputs drive the model through `force(...)` (and guards \
                     and impact laws): prescribe a motion as a function of `t`, or drive it with a force",
                    inputs[k], c.name
                ),
            );
        }
    }
    cx.repeats(
        &constraints,
        |c| c.name.to_string(),
        |c| {
            syn::Error::new(
                c.name.span(),
                format!(
                    "two constraints are named `{}`; rename one (multipliers and guards refer to constraints by name)",
                    c.name
                ),
            )
        },
    );
    constraints
}

/// The declared symmetries, none named twice.
fn lower_symmetries(lower: &mut Lowerer<'_>, cx: &mut Ctxt, raw: &RawModel) -> Vec<crate::model::Symmetry> {
    let mut symmetries = Vec::new();
    for decl in &raw.symmetries {
        symmetries.extend(cx.ok(lower_symmetry(lower, decl, &raw.coordinates)));
    }
    cx.repeats(
        &symmetries,
        |s| s.name.to_string(),
        |s| syn::Error::new(s.name.span(), format!("two symmetries are named `{}`", s.name)),
    );
    symmetries
}

/// What a declared name (the action variable, an input) clashes with: a coordinate, parameter,
/// define, the action variable `action`, `t` or `dot`.
fn name_clash(name: &Ident, raw: &RawModel, parameters: &[Ident], action: Option<&Ident>) -> Option<&'static str> {
    if raw.coordinates.contains(name) {
        Some("a coordinate")
    } else if parameters.contains(name) {
        Some("a parameter (struct field)")
    } else if raw.defines.iter().any(|d| d.name == *name) {
        Some("a `define`")
    } else if action == Some(name) {
        Some("the action variable")
    } else if name == "t" {
        Some("time")
    } else if name == "dot" {
        Some("the time derivative")
    } else {
        None
    }
}

/// The action variable's name must be its own (reported; `false` if it is not).
fn check_action_name(z: &Ident, raw: &RawModel, parameters: &[Ident], cx: &mut Ctxt) -> bool {
    let clash = name_clash(z, raw, parameters, None);
    if let Some(what) = clash {
        cx.push(syn::Error::new(
            z.span(),
            format!(
                "the action variable `{z}` has the name of {what}; it is a variable of its own (the state becomes \
                 (q, q̇, {z}), with d{z}/dt = L): choose another name"
            ),
        ));
    }
    clash.is_none()
}

/// The parameters named by `sensitivity(...)`, as indices (unknown names are reported).
fn sensitivity_parameters(raw: &RawModel, parameters: &[Ident], cx: &mut Ctxt) -> Vec<usize> {
    let mut out = Vec::new();
    for (_, names) in &raw.sensitivities {
        for p in names {
            match parameters.iter().position(|q| q == p) {
                Some(i) if out.contains(&i) => {
                    cx.push(syn::Error::new(p.span(), format!("`{p}` is named twice in `sensitivity(...)`")))
                }
                Some(i) => out.push(i),
                None => {
                    let known: Vec<String> = parameters.iter().map(ToString::to_string).collect();
                    let list = format!("Parameters (struct fields): {}", known.join(", "));
                    cx.push(unknown(
                        p.span(),
                        format_args!("`sensitivity` of unknown parameter `{p}`"),
                        &p.to_string(),
                        &known,
                        list,
                    ));
                }
            }
        }
    }
    out
}

/// An input's name must be its own (reported; `false` if it is not).
fn check_input_name(u: &Ident, raw: &RawModel, parameters: &[Ident], action: Option<&Ident>, cx: &mut Ctxt) -> bool {
    let clash = name_clash(u, raw, parameters, action);
    if let Some(what) = clash {
        cx.push(syn::Error::new(u.span(), format!("the input `{u}` has the name of {what}; choose another name")));
    }
    clash.is_none()
}

/// The struct's fields, which must all be `f64` parameters.
/// (A non-`f64` field is reported and still named, so the rest of the model is checked.)
fn parameters(input: &DeriveInput, cx: &mut Ctxt) -> Option<Vec<Ident>> {
    let data = match &input.data {
        Data::Struct(s) => s,
        _ => {
            cx.error(
                input.ident.span(),
                "#[derive(Mechanics)] applies to a struct whose named `f64` fields are the model's parameters",
            );
            return None;
        }
    };
    let fields = match &data.fields {
        Fields::Named(named) => named.named.iter().collect::<Vec<_>>(),
        Fields::Unit => Vec::new(),
        Fields::Unnamed(u) => {
            cx.error(
                u.span(),
                "tuple structs are not supported: parameters need names, e.g. `struct Pendulum { l: f64, g: f64 }`",
            );
            return None;
        }
    };
    let mut names = Vec::new();
    for f in fields {
        let is_f64 = matches!(&f.ty, Type::Path(p) if p.qself.is_none() && p.path.is_ident("f64"));
        if !is_f64 {
            cx.error(f.ty.span(), "model parameters must be `f64` fields; move other data out of the model struct");
        }
        if let Some(id) = &f.ident {
            names.push(id.clone());
        }
    }
    Some(names)
}

/// Name-level checks: coordinates present and unique, no shadowing, forces name coordinates,
/// exactly one Lagrangian.
fn check_names(raw: &RawModel, parameters: &[Ident], cx: &mut Ctxt) {
    let is_param = |id: &Ident| parameters.iter().any(|p| p == id);
    if raw.coordinates.is_empty() && raw.orientations.is_empty() {
        let span = raw.coordinates_keyword.as_ref().map_or(raw.span, Ident::span);
        cx.push(syn::Error::new(span, "the model has no coordinates; declare them with `coordinates(q1, q2, ...)`"));
    }
    cx.repeats(&raw.coordinates, ToString::to_string, |c| syn::Error::new(c.span(), format!("duplicate coordinate `{c}`")));
    for c in &raw.coordinates {
        if is_param(c) {
            cx.push(syn::Error::new(
                c.span(),
                format!("coordinate `{c}` shadows the parameter (struct field) of the same name; rename one of them"),
            ));
        }
        if c == "t" {
            cx.push(syn::Error::new(c.span(), "`t` is time and cannot be a coordinate"));
        }
        if c == "dot" {
            cx.push(syn::Error::new(c.span(), "`dot` is the time derivative and cannot be a coordinate"));
        }
    }
    // `d<coordinate>` and `dt` are the differentials of one-forms (constraints, impact laws): a
    // coordinate or parameter of that name would silently shadow one of them.
    let differential_of = |name: &Ident| -> Option<String> {
        let s = name.to_string();
        let rest = s.strip_prefix('d')?;
        (rest == "t" || raw.coordinates.iter().any(|c| c == rest)).then(|| rest.to_owned())
    };
    for (what, names) in [("coordinate", &raw.coordinates[..]), ("parameter", parameters)] {
        for name in names {
            if let Some(of) = differential_of(name) {
                let whose = if of == "t" { "time".to_owned() } else { format!("the coordinate `{of}`") };
                cx.push(syn::Error::new(
                    name.span(),
                    format!(
                        "{what} `{name}` is named like the differential of {whose} in one-forms (`{name}` in a \
                         `constraint` or an impact law); rename it"
                    ),
                ));
            }
        }
    }
    for p in parameters {
        if p == "t" {
            cx.push(syn::Error::new(p.span(), "a parameter cannot be named `t`: `t` is time in the model's expressions"));
        }
    }
    for (i, d) in raw.defines.iter().enumerate() {
        let name = &d.name;
        if is_param(name) {
            cx.push(syn::Error::new(
                name.span(),
                format!("`define` of `{name}` shadows the parameter (struct field) of the same name; choose another name"),
            ));
        } else if raw.coordinates.contains(name) {
            cx.push(syn::Error::new(
                name.span(),
                format!("`define` of `{name}` shadows the coordinate of the same name; choose another name"),
            ));
        } else if name == "t" {
            cx.push(syn::Error::new(name.span(), "`t` is time and cannot be redefined"));
        } else if raw.defines[..i].iter().any(|o| o.name == *name) {
            cx.push(syn::Error::new(name.span(), format!("`{name}` is defined twice")));
        }
        for p in &d.params {
            let clash = if is_param(p) {
                Some("a parameter (struct field)")
            } else if raw.coordinates.contains(p) {
                Some("a coordinate")
            } else if raw.defines.iter().any(|o| o.name == *p) {
                Some("a define")
            } else if p == "t" {
                Some("time")
            } else {
                None
            };
            if let Some(what) = clash {
                cx.push(syn::Error::new(
                    p.span(),
                    format!("the argument `{p}` of `{name}` has the name of {what}, which it would hide in the body; rename it"),
                ));
            }
        }
    }
    match raw.lagrangians.len() {
        0 if raw.bodies.is_empty() => cx.push(syn::Error::new(
            raw.span,
            "the model has no Lagrangian; add `lagrangian = <kinetic minus potential energy>` to #[mechanics(...)], or \
             declare its `body(...)`s",
        )),
        0 => {}
        1 => {}
        _ => {
            for (kw, _) in &raw.lagrangians[1..] {
                cx.push(syn::Error::new(kw.span(), "the Lagrangian is given more than once"));
            }
        }
    }
    let orientations: Vec<&Ident> = raw.orientations.iter().flat_map(|(_, names)| names).collect();
    for (i, b) in raw.forces.iter().enumerate() {
        let name = &b.name;
        if !raw.coordinates.contains(name) && !orientations.contains(&name) {
            let coords: Vec<String> =
                raw.coordinates.iter().chain(orientations.iter().copied()).map(ToString::to_string).collect();
            let known = if orientations.is_empty() {
                format!("Coordinates: {}", coords.join(", "))
            } else {
                format!("Coordinates and orientations (a torque in body components): {}", coords.join(", "))
            };
            let what = format_args!("force on unknown coordinate `{name}`");
            cx.push(unknown(name.span(), what, &name.to_string(), &coords, known));
        } else if raw.forces[..i].iter().any(|o| o.name == *name) {
            cx.push(syn::Error::new(name.span(), format!("force on `{name}` is given twice; add the terms in one expression")));
        }
    }
}
