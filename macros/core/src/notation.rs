//! How derived expressions are shown to users: symbol names (`θ₂`, `dot(x)`, `λ₁`), formulas for
//! rustdoc and compile errors, and rustdoc blocks.

use proc_macro2::TokenStream;
use quote::quote;
use symbolic::Expr;

use crate::model::{Role, View};

/// Longest formula (in characters) shown in rustdoc before it is elided.
const DOC_FORMULA_LIMIT: usize = 1200;
/// Most formula text (in characters) one rustdoc block shows; the entries past it are elided, so
/// that a large model's documentation does not grow like its n² entries times their O(n) length.
const DOC_BLOCK_LIMIT: usize = 24_000;

/// Greek letter names and their symbols, for display.
const GREEK: &[(&str, &str)] = &[
    ("alpha", "α"),
    ("beta", "β"),
    ("gamma", "γ"),
    ("delta", "δ"),
    ("epsilon", "ε"),
    ("zeta", "ζ"),
    ("eta", "η"),
    ("theta", "θ"),
    ("iota", "ι"),
    ("kappa", "κ"),
    ("lambda", "λ"),
    ("mu", "μ"),
    ("nu", "ν"),
    ("xi", "ξ"),
    ("rho", "ρ"),
    ("sigma", "σ"),
    ("tau", "τ"),
    ("phi", "φ"),
    ("chi", "χ"),
    ("psi", "ψ"),
    ("omega", "ω"),
    ("Gamma", "Γ"),
    ("Delta", "Δ"),
    ("Theta", "Θ"),
    ("Lambda", "Λ"),
    ("Phi", "Φ"),
    ("Psi", "Ψ"),
    ("Omega", "Ω"),
];

/// `theta2` → `θ₂`, `l_1` → `l₁`, `m` → `m`.
fn pretty(name: &str) -> String {
    let base = name.trim_end_matches(|c: char| c.is_ascii_digit());
    let digits = &name[base.len()..];
    let base_trim = base.strip_suffix('_').unwrap_or(base);
    let base_pretty = GREEK.iter().find(|(g, _)| *g == base_trim).map_or(base_trim, |(_, s)| s);
    let sub: String = digits.chars().map(|c| char::from_u32(0x2080 + c.to_digit(10).unwrap_or(0)).unwrap_or(c)).collect();
    if digits.is_empty() { base.to_string() } else { format!("{base_pretty}{sub}") }
}

/// Velocity display, the DSL's own spelling: `dot(x)`, `dot(θ₂)` — one notation for every
/// coordinate (a combining dot only fits one-letter names, and mixing `ẋ` with `dot(th)` in one
/// formula reads badly).
fn pretty_velocity(name: &str) -> String {
    format!("dot({})", pretty(name))
}

/// The name of velocity `i`: `dot(q)` of an ordinary coordinate, `omega1(R)` (body angular
/// velocity components) of an orientation `R`.
pub fn velocity_name(model: &View<'_>, i: usize) -> String {
    if let Some(u) = model.layout.velocity_names.get(i) {
        return u.to_string();
    }
    match model.layout.orientation_of_velocity(i) {
        Some((o, c)) => format!("omega{}({})", c + 1, o.name),
        None => format!("dot({})", model.coordinates[i]),
    }
}

/// The name of the discrete momentum conjugate to velocity `i`: `p(q)` of a coordinate's rate (or
/// of a named velocity), `mu1(name)`… of an orientation's body rates (the momenta in its body's
/// axes).
pub fn momentum_name(model: &View<'_>, i: usize) -> String {
    if let Some(u) = model.layout.velocity_names.get(i) {
        return format!("p({u})");
    }
    match model.layout.orientation_of_velocity(i) {
        Some((o, c)) => format!("mu{}({})", c + 1, o.name),
        None => format!("p({})", model.coordinates[i]),
    }
}

/// Display name of a model symbol.
pub fn display_name(model: &View<'_>, sym: Expr) -> String {
    match model.role(sym) {
        Some(Role::Time) => "t".into(),
        Some(Role::Coordinate(i)) => pretty(&model.coordinates[i].to_string()),
        // A reduced system's velocity named like one of its coordinates is that coordinate's rate.
        Some(Role::Velocity(i)) if i < model.layout.velocity_names.len() => {
            let u = &model.layout.velocity_names[i];
            if model.coordinates.contains(u) { pretty_velocity(&u.to_string()) } else { pretty(&u.to_string()) }
        }
        Some(Role::Acceleration(i)) if i < model.layout.velocity_names.len() => {
            let u = &model.layout.velocity_names[i];
            if model.coordinates.contains(u) {
                format!("dot({})", pretty_velocity(&u.to_string()))
            } else {
                format!("dot({})", pretty(&u.to_string()))
            }
        }
        Some(Role::Dropped(i)) => pretty(&model.layout.dropped[i].to_string()),
        Some(Role::Velocity(i)) => match model.layout.orientation_of_velocity(i) {
            Some((o, c)) => format!("ω{}({})", ["₁", "₂", "₃"][c], pretty(&o.name.to_string())),
            None => pretty_velocity(&model.coordinates[i].to_string()),
        },
        Some(Role::Acceleration(i)) => match model.layout.orientation_of_velocity(i) {
            Some((o, c)) => format!("dot(ω{}({}))", ["₁", "₂", "₃"][c], pretty(&o.name.to_string())),
            None => format!("ddot({})", pretty(&model.coordinates[i].to_string())),
        },
        Some(Role::Parameter(i)) => pretty(&model.parameters[i].to_string()),
        Some(Role::Differential(i)) => format!("d{}", pretty(&model.coordinates[i].to_string())),
        Some(Role::TimeDifferential) => "dt".into(),
        Some(Role::Substituted(k)) => format!("w{}", k + 1),
        Some(Role::HeldRate(k)) => format!("v{}", k + 1),
        Some(Role::Energy) => "E".into(),
        Some(Role::Temporary(k)) => format!("r{}", k + 1),
        Some(Role::Tangent(i)) => format!("δx{}", i + 1),
        Some(Role::Primal(k)) => format!("p{}", k + 1),
        Some(Role::Carried(k)) => format!("c{}", k + 1),
        Some(Role::StandIn(s)) => format!("{s:?}"),
        Some(Role::QuaternionNorm(k)) => format!("(|{}|²)", pretty(&model.layout.orientations[k].name.to_string())),
        Some(Role::PostVelocity(i)) => match model.layout.orientation_of_velocity(i) {
            Some((o, c)) => format!("ω{}({})⁺", ["₁", "₂", "₃"][c], pretty(&o.name.to_string())),
            None => format!("{}⁺", pretty_velocity(&model.coordinates[i].to_string())),
        },
        Some(Role::Input(k)) => pretty(&model.inputs[k].to_string()),
        Some(Role::NodeStart(i)) => format!("{}_k", pretty(&model.coordinates[i].to_string())),
        Some(Role::NodeEnd(i)) => format!("{}_k+1", pretty(&model.coordinates[i].to_string())),
        Some(Role::Increment(i)) => format!("ξ{}", pretty(&format!("x{}", i + 1)).trim_start_matches('x')),
        Some(Role::StepSize) => "h".into(),
        Some(Role::StepTime) => "t_k".into(),
        Some(Role::StepAction) => format!("{}_k", model.action.as_ref().map_or_else(|| "z".into(), |z| pretty(&z.to_string()))),
        Some(Role::Action) => model.action.as_ref().map_or_else(|| "z".into(), |z| pretty(&z.to_string())),
        Some(Role::Multiplier(k)) => format!("λ{}", pretty(&format!("x{}", k + 1)).trim_start_matches('x')),
        // A dropped orientation's held |q|² read by a reduced system (bound to its value there).
        None => match model.arena.symbol_name(sym) {
            Some(name) if name.starts_with("n2:") => format!("(|{}|²)", pretty(&name[3..])),
            Some(name) => name.to_string(),
            None => "?".to_string(),
        },
    }
}

/// A formula for rustdoc, elided when very long. Expressions whose tree form is far longer than
/// the limit are not printed at all (printing a DAG as a tree can take exponential time).
pub fn formula(model: &View<'_>, e: Expr) -> String {
    let size = model.arena.tree_size(e);
    if size > DOC_FORMULA_LIMIT as u64 {
        return format!("⟨{size} terms and factors written out — too long to show; see the generated code⟩");
    }
    let s = model.arena.display(e, &|s| display_name(model, s));
    if s.chars().count() > DOC_FORMULA_LIMIT {
        let head: String = s.chars().take(DOC_FORMULA_LIMIT).collect();
        format!("{head} … (elided; {} characters in all)", s.chars().count())
    } else {
        s
    }
}

/// `(lhs, formula)` lines for [`doc_block`], the formulas printed only as far as the block shows
/// them (printing is most of the cost of a large model's documentation); the rest keep their
/// left-hand side, to be counted as elided.
pub(crate) fn formula_lines(model: &View<'_>, entries: Vec<(String, Expr)>) -> Vec<(String, String)> {
    let mut shown = 0;
    entries
        .into_iter()
        .map(|(lhs, e)| {
            if shown > DOC_BLOCK_LIMIT {
                return (lhs, String::new());
            }
            let rhs = formula(model, e);
            shown += rhs.chars().count();
            (lhs, rhs)
        })
        .collect()
}

/// Rustdoc lines: a heading paragraph and a `text` block of `lhs = formula` lines.
/// Rustdoc of a paragraph alone (no formulas).
pub(crate) fn doc_text(text: &str) -> TokenStream {
    let docs = text.lines().map(|l| format!(" {l}"));
    quote! { #( #[doc = #docs] )* }
}

pub(crate) fn doc_block(heading: &str, lines: &[(String, String)]) -> TokenStream {
    let mut text = format!("{heading}\n\n```text\n");
    let mut shown = 0;
    for (k, (lhs, rhs)) in lines.iter().enumerate() {
        if shown > DOC_BLOCK_LIMIT {
            text.push_str(&format!(
                "… {} more entries elided ({} characters shown; see the generated code or evaluate the method)\n",
                lines.len() - k,
                shown
            ));
            break;
        }
        shown += rhs.chars().count();
        text.push_str(&format!("{lhs} = {rhs}\n"));
    }
    text.push_str("```");
    let docs = text.lines().map(|l| format!(" {l}"));
    quote! { #( #[doc = #docs] )* }
}
