//! Model sources used by benchmarks and tests: the n-link planar pendulum chain, the same in
//! relative angles ([`relative_chain_struct_with`]), and a chain of links turning in space
//! ([`spatial_chain_struct_with`]).
//!
//! Link k (1-based) has mass `mk` at the end of a massless rod of length `lk`, angle `qk` from the
//! downward vertical; the bob positions are xₖ = Σ_{j≤k} lⱼ sin qⱼ, yₖ = −Σ_{j≤k} lⱼ cos qⱼ and
//! L = Σₖ mₖ (ẋₖ² + ẏₖ²)/2 − g Σₖ mₖ yₖ.

/// Rust source of the n-link chain: the `#[derive(Mechanics)]` struct named `name` (see
/// [`pendulum_chain_struct`]) and an `impl` with a `uniform(m, l, g)` constructor.
#[must_use]
pub fn pendulum_chain(name: &str, n: usize) -> String {
    pendulum_chain_with(name, n, "")
}

/// [`pendulum_chain`] with extra attribute items (e.g. `"jacobian"`).
#[must_use]
pub fn pendulum_chain_with(name: &str, n: usize, items: &str) -> String {
    let inits: String = (1..=n).map(|k| format!("m{k}: m, l{k}: l, ")).collect();
    format!(
        "{}\nimpl {name} {{\n    /// All links with mass `m` and length `l`.\n    pub fn uniform(m: f64, l: f64, g: f64) -> Self {{\n        \
         {name} {{ {inits}g }}\n    }}\n}}\n",
        pendulum_chain_struct_with(name, n, items)
    )
}

/// Rust source of `#[derive(Mechanics)]` for the n-link chain, as a struct named `name` (the derive
/// macro's whole input).
#[must_use]
pub fn pendulum_chain_struct(name: &str, n: usize) -> String {
    pendulum_chain_struct_with(name, n, "")
}

/// [`pendulum_chain_struct`] with extra attribute items after the Lagrangian (e.g. `"jacobian"`).
#[must_use]
pub fn pendulum_chain_struct_with(name: &str, n: usize, items: &str) -> String {
    let coords: Vec<String> = (1..=n).map(|k| format!("q{k}")).collect();
    let mut defines = Vec::new();
    for k in 1..=n {
        if k == 1 {
            defines.push("x1 = l1 * q1.sin(), y1 = -l1 * q1.cos()".to_string());
        } else {
            let j = k - 1;
            defines.push(format!("x{k} = x{j} + l{k} * q{k}.sin(), y{k} = y{j} - l{k} * q{k}.cos()"));
        }
    }
    let kinetic: Vec<String> = (1..=n).map(|k| format!("m{k} / 2 * (dot(x{k}).powi(2) + dot(y{k}).powi(2))")).collect();
    let potential: Vec<String> = (1..=n).map(|k| format!("m{k} * y{k}")).collect();
    let fields: Vec<String> = (1..=n).map(|k| format!("    pub m{k}: f64,\n    pub l{k}: f64,\n")).collect();
    format!(
        "/// Planar pendulum chain with {n} links.\n\
         #[derive(Mechanics)]\n\
         #[mechanics(\n    coordinates({}),\n    define(\n        {},\n    ),\n    lagrangian = {}\n        - g * ({}),\n{})]\n\
         pub struct {name} {{\n{}    pub g: f64,\n}}\n",
        coords.join(", "),
        defines.join(",\n        "),
        kinetic.join("\n        + "),
        potential.join(" + "),
        if items.is_empty() { String::new() } else { format!("    {items},\n") },
        fields.concat(),
    )
}

/// Rust source of `#[derive(Mechanics)]` for the n-link planar chain in *relative* angles, as a struct
/// named `name` (fields `m`, `l`, `g`) with extra attribute items `items`: bob k of mass `m` at the
/// end of rod k (length `l`), turned by qₖ from rod k − 1 (aₖ = aₖ₋₁ + qₖ the absolute angle from the
/// downward vertical), so that every bob moves with all the angles before it. Not a tree the
/// recursion reads (a position is its parent's plus terms of several coordinates): the dense path's
/// test case, its M's entries growing as n³ and its product M a as n².
#[must_use]
pub fn relative_chain_struct_with(name: &str, n: usize, items: &str) -> String {
    let coords: Vec<String> = (1..=n).map(|k| format!("q{k}")).collect();
    let defines: Vec<String> = (1..=n)
        .map(|k| {
            if k == 1 {
                "a1 = q1, x1 = l * a1.sin(), y1 = -l * a1.cos()".to_string()
            } else {
                let j = k - 1;
                format!("a{k} = a{j} + q{k}, x{k} = x{j} + l * a{k}.sin(), y{k} = y{j} - l * a{k}.cos()")
            }
        })
        .collect();
    let kinetic: Vec<String> = (1..=n).map(|k| format!("dot(x{k}).powi(2) + dot(y{k}).powi(2)")).collect();
    let potential: Vec<String> = (1..=n).map(|k| format!("y{k}")).collect();
    format!(
        "/// Planar chain of {n} links in relative angles.\n\
         #[derive(Mechanics)]\n\
         #[mechanics(\n    coordinates({}),\n    define(\n        {},\n    ),\n    lagrangian = m / 2 * ({})\n        - m * g * ({}),\n{})]\n\
         pub struct {name} {{\n    pub m: f64,\n    pub l: f64,\n    pub g: f64,\n}}\n",
        coords.join(", "),
        defines.join(",\n        "),
        kinetic.join("\n        + "),
        potential.join(" + "),
        if items.is_empty() { String::new() } else { format!("    {items},\n") },
    )
}

/// Rust source of `#[derive(Mechanics)]` for the n-link chain in space, as a struct named `name`
/// with extra attribute items `items`: link k a rigid rod (mass `m`, inertia `diag(i, i, j)` about
/// its middle) hanging from the end of link k − 1, turning about its z, y and x axis in turn, in
/// relative angles (frame bₖ = bₖ₋₁ · rot(qₖ)), under gravity `g`.
#[must_use]
pub fn spatial_chain_struct_with(name: &str, n: usize, items: &str) -> String {
    let coords: Vec<String> = (1..=n).map(|k| format!("q{k}")).collect();
    let axis = |k: usize| ["z", "y", "x"][(k - 1) % 3];
    let frames: Vec<String> = (1..=n)
        .map(|k| if k == 1 { "b1 = rot_z(q1)".to_string() } else { format!("b{k} = b{} * rot_{}(q{k})", k - 1, axis(k)) })
        .collect();
    let joint = |k: usize| if k == 1 { String::new() } else { format!("e{} + ", k - 1) };
    let ends: Vec<String> = (1..=n).map(|k| format!("e{k} = {}b{k} * [0, 0, -l]", joint(k))).collect();
    let bodies: Vec<String> = (1..=n)
        .map(|k| {
            format!(
                "body(name = r{k}, mass = m, centre = {}b{k} * [0, 0, -l / 2], frame = b{k}, inertia = diag(i, i, j))",
                joint(k)
            )
        })
        .collect();
    format!(
        "/// Chain of {n} rigid links in space.\n\
         #[derive(Mechanics)]\n\
         #[mechanics(\n    coordinates({}),\n    frame({}),\n    point({}),\n    {},\n    gravity = [0, 0, -g],\n{})]\n\
         pub struct {name} {{\n    pub m: f64,\n    pub l: f64,\n    pub i: f64,\n    pub j: f64,\n    pub g: f64,\n}}\n",
        coords.join(", "),
        frames.join(", "),
        ends.join(", "),
        bodies.join(",\n    "),
        if items.is_empty() { String::new() } else { format!("    {items},\n") },
    )
}

/// The validated model of a single-mode derive input and its arena (for the unit tests of the
/// passes).
///
/// # Panics
/// If the source does not lower without errors.
#[cfg(test)]
pub(crate) fn lowered_model(src: &str) -> (crate::model::Model, symbolic::Arena) {
    let input: syn::DeriveInput = syn::parse_str(src).expect("model source");
    let mut cx = crate::diagnostics::Ctxt::new();
    let system = crate::lower::system_from_input(&input, &mut cx);
    cx.check().expect("a valid model");
    let system = system.expect("lowered");
    system.modes.into_iter().zip(system.arenas).next().expect("one mode")
}

/// The most directions of mass one joint of a constrained tree model may move (the derive's limit,
/// which must be the runtime tree factor's `mechanics::tree::MAX_DIRECTIONS`: checked by the
/// facade's tests, which see both crates).
pub const TREE_MAX_DIRECTIONS: usize = crate::derive::dynamics::MAX_DIRECTIONS;

#[cfg(test)]
mod tests {
    #[test]
    fn chain_source_expands() {
        let src = super::pendulum_chain_struct("Chain3", 3);
        let tokens: proc_macro2::TokenStream = src.parse().unwrap();
        let out = crate::try_expand(tokens).unwrap().to_string();
        assert!(out.contains("DOF : usize = 3usize"), "{}", &out[..300.min(out.len())]);
    }
}
