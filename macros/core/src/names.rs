//! The names of generated items, in one place: emission derives them from the user's names, and
//! lowering checks that the user's names cannot collide with them (a collision would otherwise
//! surface as a raw rustc error pointing at the derive).

use quote::format_ident;
use syn::Ident;

/// Inherent methods and constants generated on a model (or a mode's view, or a reduced type).
pub const RESERVED: &[&str] = &[
    "state",
    "mass_matrix",
    "forcing",
    "accelerations",
    "lagrangian",
    "energy",
    "momenta",
    "power",
    "jacobian",
    "run",
    "run_discrete",
    "check_parameters",
    "reconstruct",
    "cyclic_velocities",
    "constraint_rows",
    "constraint_bias",
    "constraint_forces",
    "constraint_power",
    "constraint_force_rates",
    "velocity_residuals",
    "position_residuals",
    "project_state",
    "state_with_known_velocities",
    "DOF",
    "STATE_DIM",
    "COORDINATES",
    "IMPACTS",
    "MODES",
    "SYMMETRIES",
    "CONSTRAINTS",
    "CONSTRAINT_KINDS",
    "CONSTRAINTS_INTEGRABLE",
    "CYCLIC",
];

/// `SphericalRadial` → `spherical_radial` (the full model's method reducing a state to the type).
pub fn snake(name: &str) -> String {
    let mut s = String::new();
    for (i, c) in name.chars().enumerate() {
        if c.is_uppercase() {
            if i > 0 {
                s.push('_');
            }
            s.extend(c.to_lowercase());
        } else {
            s.push(c);
        }
    }
    s
}

/// The view type of mode `mode` of model `name`: `Hopper` + `flight` → `HopperFlight`.
pub fn mode_type(name: &Ident, mode: &Ident) -> Ident {
    let m = mode.to_string();
    let camel: String = m
        .split('_')
        .filter(|w| !w.is_empty())
        .map(|w| {
            let mut c = w.chars();
            c.next().map(|f| f.to_uppercase().chain(c).collect::<String>()).unwrap_or_default()
        })
        .collect();
    format_ident!("{name}{camel}")
}

/// The generated names a mode `mode` adds to its model: the view accessor, the state constructor
/// and the index constant.
pub fn mode_items(mode: &str) -> [String; 3] {
    [mode.to_owned(), format!("{mode}_state"), mode.to_uppercase()]
}

/// The generated names a reduction to type `ty` adds to the full model.
pub fn reduction_items(ty: &str) -> [String; 1] {
    [snake(ty)]
}

/// An error at `span` if one of `items` (the names a user's name generates) is a generated item's
/// name; `what` describes the user's name, e.g. "mode `run`".
pub fn check_reserved(span: proc_macro2::Span, what: &str, items: &[String]) -> syn::Result<()> {
    match items.iter().find(|i| RESERVED.contains(&i.as_str())) {
        None => Ok(()),
        Some(clash) => Err(syn::Error::new(
            span,
            format!(
                "{what} would generate an item named `{clash}`, which is already generated for every model; choose \
                 another name. Reserved: {}",
                RESERVED.join(", ")
            ),
        )),
    }
}
