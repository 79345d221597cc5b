//! Emission of momentum maps and their balance laws (see [`crate::derive::symmetry`]).

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use crate::derive::symmetry::{Algebra, Bracket, SymmetryEquations};
use crate::emit::codegen::Helpers;
use crate::model::View;
use crate::notation::{doc_block, formula};

/// Methods `<name>_momentum` and `<name>_momentum_rate` for every symmetry, and `SYMMETRIES`.
pub fn methods(
    model: &View<'_>,
    symmetries: &[SymmetryEquations],
    algebra: Option<&Algebra>,
    helpers: &mut Helpers,
) -> TokenStream {
    if symmetries.is_empty() {
        return TokenStream::new();
    }
    let names: Vec<String> = symmetries.iter().map(|se| se.name.to_string()).collect();
    let items: Vec<TokenStream> = symmetries.iter().map(|se| symmetry_items(model, se, helpers)).collect();
    let count = names.len();
    let algebra = algebra.map(|a| algebra_item(a, &names));
    quote! {
        /// Names of the declared symmetries, in declaration order.
        pub const SYMMETRIES: [&'static str; #count] = [#(#names),*];
        #algebra
        #(#items)*
    }
}

/// `STRUCTURE_CONSTANTS`: the declared generators' brackets, with the relations in its rustdoc.
fn algebra_item(algebra: &Algebra, names: &[String]) -> TokenStream {
    let k = names.len();
    let mut lines: Vec<String> = Vec::new();
    for (a, b, bracket) in &algebra.brackets {
        let lhs = format!("[{}, {}]", names[*a], names[*b]);
        lines.push(match bracket {
            Bracket::Combination(c) => {
                let mut terms: Vec<String> = Vec::new();
                for (r, name) in c.iter().zip(names) {
                    if r.is_zero() {
                        continue;
                    }
                    let sign = if r.is_negative() { "−" } else { "+" };
                    let magnitude = r
                        .checked_abs()
                        .map_or_else(|| r.to_string(), |m| if m.is_one() { String::new() } else { format!("{m}·") });
                    terms.push(format!("{sign} {magnitude}{name}"));
                }
                let rhs = if terms.is_empty() {
                    "0".to_string()
                } else {
                    let joined = terms.join(" ");
                    joined.strip_prefix("+ ").map_or_else(|| joined.replacen("− ", "−", 1), ToString::to_string)
                };
                format!("{lhs} = {rhs}")
            }
            Bracket::Outside => {
                format!("{lhs} is not a combination of the declared generators (it generates a further symmetry)")
            }
            Bracket::Undecided => format!("{lhs}: not decided (its coefficients are not rational constants)"),
        });
    }
    let doc = format!(
        " The brackets of the declared symmetries' generators as vector fields on Q, [ξ_a, ξ_b]ⁱ = ξ_aʲ ∂ξ_bⁱ/∂qʲ − \
         ξ_bʲ ∂ξ_aⁱ/∂qʲ = Σ_c `c[a][b][c]` ξ_c, proved at compile time; `None` when one is not a constant combination. For \
         a left action ξ ↦ ξ_Q reverses brackets, so these are the negatives of the Lie algebra's structure constants \
         (the spatial rotations' vector fields satisfy [ξ_x, ξ_y] = −ξ_z).\n\n```text\n{}\n```",
        lines.join("\n")
    );
    let value = match algebra.constants(k) {
        Some(c) => {
            let rows = c.iter().map(|plane| {
                let inner = plane.iter().map(|row| quote! { [#(#row),*] });
                quote! { [#(#inner),*] }
            });
            quote! { ::core::option::Option::Some([#(#rows),*]) }
        }
        None => quote! { ::core::option::Option::None },
    };
    quote! {
        #[doc = #doc]
        pub const STRUCTURE_CONSTANTS: ::core::option::Option<[[[f64; #k]; #k]; #k]> = #value;
    }
}

/// The momentum map of one symmetry, its balance law and, for a moving symmetry of affine
/// constraints, its conserved moving energy.
fn symmetry_items(model: &View<'_>, se: &SymmetryEquations, helpers: &mut Helpers) -> TokenStream {
    let state = crate::emit::codegen::state_type(model.layout.state_dim());
    let none = TokenStream::new();
    let name = se.name.to_string();
    let j_fn = format_ident!("{name}_momentum");
    let (j_stmts, j_vals) =
        helpers.body_bound(model, &se.momentum_bindings, &[se.momentum], &format!("__routh_{name}_momentum"), &none, &none);
    let rate_item = rate_item(model, se, helpers);
    let moving_item = moving_item(model, se, helpers);
    let doc = momentum_doc(model, se);
    quote! {
        #doc
        #[allow(unused_variables, clippy::all, clippy::pedantic, non_snake_case)]
        #[must_use]
        pub fn #j_fn(&self, t: f64, x: &#state) -> f64 {
            #(#j_stmts)*
            #(#j_vals)*
        }

        #rate_item
        #moving_item
    }
}

/// The rustdoc of a momentum map: its generator, how invariance was proved, the forces and the
/// impacts' effect on it, and J itself.
fn momentum_doc(model: &View<'_>, se: &SymmetryEquations) -> TokenStream {
    let name = se.name.to_string();
    let generator: Vec<String> = model
        .coordinates
        .iter()
        .zip(&se.generator)
        .filter(|(_, g)| !model.arena.zero_test(**g).is_zero())
        .map(|(c, &g)| format!("({})·∂/∂{c}", formula(model, g)))
        .collect();
    let status = status(model, se);
    let algebra = if se.in_forced_algebra {
        "ξ belongs to g_F (the forced system is invariant: ⟨Q, ξ⟩ ≡ 0 and L_ξᶜQ ≡ 0)"
    } else {
        "ξ is not in g_F (the forced system is not invariant)"
    };
    let proof = match se.proof {
        symbolic::ZeroTest::Structural => "structurally: its canonical form is 0",
        symbolic::ZeroTest::Branchwise => {
            "on every sign branch of its absolute values, each by randomized identity testing in 320-bit arithmetic: \
             zero below 2⁻²⁰⁰ of its magnitude at 36 random points, 24 of them across scales 10⁻³ to 10³"
        }
        _ => {
            "by randomized identity testing in 320-bit arithmetic: zero below 2⁻²⁰⁰ of its magnitude at 12 random \
             points (36, across scales 10⁻³ to 10³, when roots, logarithms or atan2 appear)"
        }
    };
    let rotation = model.symmetries.iter().any(|s| s.name == se.name && s.velocity_generator.is_some());
    let definition = if rotation {
        "the rotation of an orientation R about a fixed spatial axis a, R ↦ exp(ε â) R (the body angular velocity \
         unchanged): J = ∂L/∂ω · Rᵀa = a · (R ∂L/∂ω), the spatial angular momentum along a; on the quaternion"
    } else {
        "J = ∂L/∂q̇ · ξ_Q, with"
    };
    let mut heading = format!(
        "Momentum map of symmetry `{name}`, {definition} generator ξ_Q = {}. Invariance ξᶜ(L) ≡ 0 \
         was verified at compile time ({proof}). Forces: {status}; {algebra}.",
        generator.join(" + ")
    );
    for is in &se.impacts {
        let guard = if is.guard_invariant { "its guard is invariant" } else { "its guard is not invariant" };
        let reset = match is.preserves {
            Some(true) => "its reset preserves J (hybrid momentum map)",
            Some(false) => "its reset changes J (μ⁺ = J(Δ(x)), evaluated at run time)",
            None => "it changes chart",
        };
        heading.push_str(&format!(" Impact `{}`: {guard}; {reset}.", is.impact));
    }
    let j = if se.momentum_bindings.is_empty() {
        formula(model, se.momentum)
    } else {
        // p along the kinematic tree: J over the generator, not the tree's quantities.
        let xi: Vec<String> = se.generator.iter().map(|&g| formula(model, g)).collect();
        format!("Σᵢ pᵢ ξᵢ, p along the kinematic tree (see `momenta`), ξ = ({})", xi.join(", "))
    };
    doc_block(&heading, &[("J".into(), j)])
}

/// `<name>_momentum_rate`: the balance law dJ/dt, with the constraint forces' share under
/// constraints.
fn rate_item(model: &View<'_>, se: &SymmetryEquations, helpers: &mut Helpers) -> TokenStream {
    let state = crate::emit::codegen::state_type(model.layout.state_dim());
    let none = TokenStream::new();
    let name = se.name.to_string();
    let r_fn = format_ident!("{name}_momentum_rate");
    let (r_stmts, r_vals) = helpers.body(model, &[se.rate], &format!("__routh_{name}_rate"), &none, &none);
    if se.constraint_action.is_empty() {
        let rate_doc = if model.action.is_some() {
            format!(" Balance law of the momentum map of `{name}` (Herglotz): dJ/dt = ∂L/∂z · J + ⟨Q, ξ_Q⟩.")
        } else {
            format!(" Balance law of the momentum map of `{name}`: dJ/dt = ⟨Q, ξ_Q⟩ (identically zero when J is conserved).")
        };
        return quote! {
            #[doc = #rate_doc]
            #[allow(unused_variables, clippy::all, clippy::pedantic, non_snake_case)]
            #[must_use]
            pub fn #r_fn(&self, t: f64, x: &#state) -> f64 {
                #(#r_stmts)*
                #(#r_vals)*
            }
        };
    }
    let (a_stmts, a_vals) =
        helpers.body(model, &se.constraint_action, &format!("__routh_{name}_constraint_action"), &none, &none);
    let m = se.constraint_action.len();
    let lines: Vec<(String, String)> =
        se.constraint_action.iter().enumerate().map(|(i, &e)| (format!("(Aξ)[{}]", i + 1), formula(model, e))).collect();
    let why_no_moving_energy = if se.moving_energy.is_some() {
        ""
    } else {
        " No `_moving_energy` is generated for it: that needs a constant c with A(cξ) + b ≡ 0 (the affine part of \
         the constraints generated by this symmetry), no force along ξ and ∂L/∂t ≡ 0, and one of them fails here."
    };
    let rate_doc = doc_block(
        &format!(
            "Balance law of the momentum map of `{name}` under the constraints: dJ/dt = ⟨Q, ξ_Q⟩ + λ·(Aξ), with \
             the multipliers λ of [`Self::constraint_forces`].{why_no_moving_energy}"
        ),
        &lines,
    );
    quote! {
        #rate_doc
        ///
        /// # Errors
        /// As [`Self::constraint_forces`].
        #[allow(unused_variables, clippy::all, clippy::pedantic, non_snake_case)]
        pub fn #r_fn(&self, t: f64, x: &#state) -> ::core::result::Result<f64, __routh::FieldError> {
            let lam = self.constraint_forces(t, x)?;
            let forced = { #(#r_stmts)* #(#r_vals)* };
            #(#a_stmts)*
            let a_xi = __routh::Vector::<#m>::from([#(#a_vals),*]);
            Ok(forced + lam.dot(&a_xi))
        }
    }
}

/// `<name>_moving_energy` E_J = E − c·J, where the symmetry moves the affine constraints (`None`
/// otherwise: no item).
fn moving_item(model: &View<'_>, se: &SymmetryEquations, helpers: &mut Helpers) -> TokenStream {
    let Some((c, ej)) = se.moving_energy else { return TokenStream::new() };
    let state = crate::emit::codegen::state_type(model.layout.state_dim());
    let none = TokenStream::new();
    let name = se.name.to_string();
    let e_fn = format_ident!("{name}_moving_energy");
    let (e_stmts, e_vals) =
        helpers.body_bound(model, &se.moving_bindings, &[ej], &format!("__routh_{name}_moving_energy"), &none, &none);
    // Along a kinematic tree E and J are passes along it, not formulas worth printing.
    let shown = if se.moving_bindings.is_empty() {
        formula(model, ej)
    } else {
        "E − c·J, E and J computed along the kinematic tree".to_string()
    };
    let doc = doc_block(
        &format!(
            "The moving energy of `{name}`: the affine part of the constraints is c·ξ (A(cξ) + b ≡ 0, proved \
             at compile time), no force acts along ξ and ∂L/∂t ≡ 0, so dE/dt = −λ·b = c·λ·(Aξ) = c·dJ/dt and \
             E_J = E − c·J is **conserved** although E is not."
        ),
        &[("c".into(), formula(model, c)), ("E_J".into(), shown)],
    );
    quote! {
        #doc
        #[allow(unused_variables, clippy::all, clippy::pedantic, non_snake_case)]
        #[must_use]
        pub fn #e_fn(&self, t: f64, x: &#state) -> f64 {
            #(#e_stmts)*
            #(#e_vals)*
        }
    }
}

/// What the momentum map of `se` does along solutions, for its rustdoc: conserved, dissipated
/// (contact Lagrangians), or its balance law.
fn status(model: &View<'_>, se: &SymmetryEquations) -> String {
    let constrained = !se.constraint_action.is_empty();
    let acted = se.constraint_action.iter().any(|&e| !model.arena.zero_test(e).is_zero());
    let z = model.action.as_ref().map(ToString::to_string).unwrap_or_default();
    if se.dissipated {
        format!(
            "no force acts along ξ, but the Lagrangian is a contact Lagrangian: J is not conserved but **dissipated** \
             (the contact analogue of a momentum map), dJ/dt = ∂L/∂{z} · J, so J(t) = J(t₀)·exp(∫ ∂L/∂{z} dt) and \
             the ratio of two dissipated momenta is conserved"
        )
    } else if se.conserved {
        if constrained {
            "⟨Q, ξ⟩ ≡ 0 and Aξ ≡ 0 (the constraint forces do no work along ξ): J is **conserved** along solutions".to_string()
        } else {
            "⟨Q, ξ⟩ ≡ 0: J is **conserved** along solutions".to_string()
        }
    } else if acted {
        format!(
            "the constraint forces act along ξ (Aξ ≢ 0): J obeys the nonholonomic momentum equation \
             dJ/dt = ⟨Q, ξ⟩ + λ·(Aξ), with ⟨Q, ξ⟩ = {}",
            formula(model, se.rate)
        )
    } else if model.action.is_some() {
        format!("the forces break this symmetry: J obeys dJ/dt = ∂L/∂{z} · J + ⟨Q, ξ⟩ = {}", formula(model, se.rate))
    } else {
        format!("the forces break this symmetry: J obeys the balance law dJ/dt = ⟨Q, ξ⟩ = {}", formula(model, se.rate))
    }
}
