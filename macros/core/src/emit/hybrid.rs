//! `impl HybridSystem` from a table of modes — the one generator for every model with impacts
//! (a single-mode model is a table with one row) — including the exact Jacobians the runtime's
//! variational equations and saltation matrices use (`mode_jacobian`, `guard_gradient`,
//! `reset_jacobian`).
//!
//! The implementing type has a padded state of dimension [`ModeTable::dim`]; a mode with a
//! smaller state uses a prefix of it (`routh::runtime::mechanics::take` and `pad`). Each mode
//! is reached through an expression (`self` for a single-mode model, the mode's view
//! `self.stance()` otherwise) that has the mode's generated methods: `field`, `jacobian`,
//! `energy`, `energy_gradient`, `energy_hessian`, and per guard `<g>_guard`, `<g>_guard_rate`, `<g>_guard_gradient`, `<g>_reset`,
//! `<g>_reset_jacobian`.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

/// One guard of a mode: its name, the mode its reset leads to, and that mode's state dimension.
pub struct GuardRow {
    pub name: String,
    pub target: usize,
    pub target_dim: usize,
    /// Whether `<name>_guard_gradient` is already the full-state gradient (a multiplier guard)
    /// rather than ∂h/∂q.
    pub full_gradient: bool,
    /// Whether the guard depends on the inputs of a driven model: written with one, or a
    /// multiplier guard (a contact force depends on every force).
    pub forced: bool,
    /// Whether the impact law (its reset) is written with an input.
    pub law_reads_inputs: bool,
}

/// A transition that completes the accumulation of a guard's impacts (Zeno).
pub struct ZenoRow {
    /// Index of the accumulating guard in the mode's guard list.
    pub guard: usize,
    /// The transition's name (its reset is `<name>_reset`).
    pub name: String,
    pub target: usize,
    pub target_dim: usize,
}

/// One mode: its name, the expression reaching its methods, its state dimension and number of
/// positions (the length of a guard's ∂h/∂q), and its guards.
pub struct ModeRow {
    pub name: String,
    pub access: TokenStream,
    pub dim: usize,
    pub positions: usize,
    pub guards: Vec<GuardRow>,
    pub zeno: Vec<ZenoRow>,
    /// The names of the mode's constraints (with any, the mode has `project_state` and
    /// `constraint_forces`).
    pub constraints: Vec<String>,
}

/// The table: the implementing type (with its `impl` generics) and the padded dimension.
pub struct ModeTable {
    pub generics: TokenStream,
    pub ty: TokenStream,
    pub dim: usize,
    pub modes: Vec<ModeRow>,
    /// Whether no mode's equations, guards or laws depend on time (`is_autonomous`).
    pub autonomous: bool,
}

/// `impl __routh::HybridSystem<dim> for ty`.
pub fn hybrid_system_impl(table: &ModeTable) -> TokenStream {
    let d = table.dim;
    let state = crate::emit::codegen::state_type(d);
    let fe = crate::emit::codegen::field_error();
    let count = table.modes.len();
    let autonomous = table.autonomous;
    let ModeArms { names, field, jacobian, energy, energy_gradient, energy_hessian, project, residuals, multipliers } =
        mode_arms(table);
    let GuardArms { guard_count, guard_name, guard, rate, gradient, zeno, reset, reset_jacobian } = guard_arms(table);
    let (generics, ty) = (&table.generics, &table.ty);
    let dims: Vec<usize> = table.modes.iter().map(|m| m.dim).collect();
    let items = crate::emit::codegen::lazy(quote! {
        fn mode_count(&self) -> usize { #count }
        fn is_autonomous(&self) -> ::core::option::Option<bool> { ::core::option::Option::Some(#autonomous) }
        fn mode_name(&self, mode: usize) -> &'static str { [#(#names),*].get(mode).copied().unwrap_or("") }
        fn mode_field(&self, mode: usize, t: f64, x: &#state) -> ::core::result::Result<#state, #fe> {
            match mode { #(#field)* _ => Err(#fe::NonFinite { t }) }
        }
        fn guard_count(&self, mode: usize) -> usize { match mode { #(#guard_count)* _ => 0 } }
        fn guard_name(&self, mode: usize, guard: usize) -> &'static str { match mode { #(#guard_name)* _ => "" } }
        fn guard(&self, mode: usize, guard: usize, t: f64, x: &#state) -> f64 { match mode { #(#guard)* _ => f64::NAN } }
        fn guard_rate(&self, mode: usize, guard: usize, t: f64, x: &#state) -> f64 { match mode { #(#rate)* _ => f64::NAN } }
        fn reset(&self, mode: usize, guard: usize, t: f64, x: &#state)
            -> ::core::result::Result<(usize, #state), #fe>
        {
            match mode { #(#reset)* _ => Err(#fe::NonFinite { t }) }
        }
        fn mode_energy(&self, mode: usize, t: f64, x: &#state) -> f64 { match mode { #(#energy)* _ => f64::NAN } }
        fn mode_dimension(&self, mode: usize) -> usize { [#(#dims),*].get(mode).copied().unwrap_or(#d) }
        fn mode_energy_gradient(&self, mode: usize, t: f64, x: &#state) -> #state {
            match mode { #(#energy_gradient)* _ => <#state>::from_element(f64::NAN) }
        }
        fn mode_energy_hessian(&self, mode: usize, t: f64, x: &#state) -> __routh::Matrix<#d, #d> {
            match mode { #(#energy_hessian)* _ => __routh::Matrix::<#d, #d>::from_element(f64::NAN) }
        }
        fn mode_jacobian(&self, mode: usize, t: f64, x: &#state)
            -> ::core::result::Result<__routh::Matrix<#d, #d>, #fe>
        {
            match mode { #(#jacobian)* _ => Err(#fe::NonFinite { t }) }
        }
        fn guard_gradient(&self, mode: usize, guard: usize, t: f64, x: &#state) -> #state {
            match mode { #(#gradient)* _ => <#state>::from_element(f64::NAN) }
        }
        fn reset_jacobian(&self, mode: usize, guard: usize, t: f64, x: &#state)
            -> ::core::result::Result<__routh::Matrix<#d, #d>, #fe>
        {
            match mode { #(#reset_jacobian)* _ => Err(#fe::NonFinite { t }) }
        }
        fn project(&self, mode: usize, t: f64, x: &#state) -> ::core::option::Option<::core::result::Result<#state, #fe>> {
            match mode { #(#project)* _ => ::core::option::Option::None }
        }
        fn constraint_residuals(&self, mode: usize, t: f64, x: &#state) -> ::core::option::Option<(f64, f64)> {
            match mode { #(#residuals)* _ => ::core::option::Option::None }
        }
        fn constraint_multipliers(&self, mode: usize, t: f64, x: &#state) -> ::std::vec::Vec<(&'static str, f64)> {
            match mode { #(#multipliers)* _ => ::std::vec::Vec::new() }
        }
        fn zeno_completion(&self, mode: usize, guard: usize, t: f64, x: &#state)
            -> ::core::option::Option<::core::result::Result<__routh::Completion<#d>, #fe>>
        {
            match mode { #(#zeno)* _ => ::core::option::Option::None }
        }
    });
    quote! {
        #[automatically_derived]
        #[allow(unused_variables)]
        impl #generics __routh::HybridSystem<#d> for #ty {
            #items
        }
    }
}

/// Per mode, the match arms of the mode's own methods: its field, Jacobian, energy and its
/// derivatives, projection.
struct ModeArms {
    names: Vec<String>,
    field: Vec<TokenStream>,
    jacobian: Vec<TokenStream>,
    energy: Vec<TokenStream>,
    energy_gradient: Vec<TokenStream>,
    energy_hessian: Vec<TokenStream>,
    project: Vec<TokenStream>,
    residuals: Vec<TokenStream>,
    multipliers: Vec<TokenStream>,
}

fn mode_arms(table: &ModeTable) -> ModeArms {
    let d = table.dim;
    let mech = quote! { __routh::mechanics };
    let mut names = Vec::new();
    let mut field = Vec::new();
    let mut jacobian = Vec::new();
    let mut energy = Vec::new();
    let mut energy_gradient = Vec::new();
    let mut energy_hessian = Vec::new();
    let mut project = Vec::new();
    let mut residuals = Vec::new();
    let mut multipliers = Vec::new();
    for (k, mode) in table.modes.iter().enumerate() {
        let access = &mode.access;
        let dm = mode.dim;
        names.push(mode.name.clone());
        // The mode's own state: the padded state itself, or its prefix.
        let xm = if dm == d {
            quote! { x }
        } else {
            quote! { &#mech::take::<#d, #dm>(x) }
        };
        let padded = |v: TokenStream| {
            if dm == d {
                v
            } else {
                quote! { #mech::pad::<#dm, #d>(&#v) }
            }
        };
        let f = padded(quote! { __routh::VectorField::field(&#access, t, #xm)? });
        field.push(quote! { #k => Ok(#f), });
        let j = if dm == d {
            quote! { #access.jacobian(t, #xm) }
        } else {
            quote! { Ok(#mech::pad_matrix(&#access.jacobian(t, #xm)?)) }
        };
        jacobian.push(quote! { #k => #j, });
        energy.push(quote! { #k => #access.energy(t, #xm), });
        let g = padded(quote! { #access.energy_gradient(t, #xm) });
        energy_gradient.push(quote! { #k => #g, });
        let h = if dm == d {
            quote! { #access.energy_hessian(t, #xm) }
        } else {
            quote! { #mech::pad_matrix(&#access.energy_hessian(t, #xm)) }
        };
        energy_hessian.push(quote! { #k => #h, });
        if !mode.constraints.is_empty() {
            let p = padded(quote! { p });
            let (names, rows) = (&mode.constraints, 0..mode.constraints.len());
            multipliers.push(quote! {
                #k => match #access.constraint_forces(t, #xm) {
                    Ok(mu) => ::std::vec![#( (#names, mu[#rows]) ),*],
                    Err(_) => ::std::vec::Vec::new(),
                },
            });
            project.push(quote! { #k => ::core::option::Option::Some(#access.project_state(t, #xm).map(|p| #p)), });
            residuals.push(quote! {
                #k => ::core::option::Option::Some((#access.position_residuals(t, #xm).amax(), #access.velocity_residuals(t, #xm).amax())),
            });
        }
    }
    ModeArms { names, field, jacobian, energy, energy_gradient, energy_hessian, project, residuals, multipliers }
}

/// Per mode, the match arms of its guards: names, values, rates, gradients, resets and their
/// Jacobians, and Zeno completions.
struct GuardArms {
    guard_count: Vec<TokenStream>,
    guard_name: Vec<TokenStream>,
    guard: Vec<TokenStream>,
    rate: Vec<TokenStream>,
    gradient: Vec<TokenStream>,
    zeno: Vec<TokenStream>,
    reset: Vec<TokenStream>,
    reset_jacobian: Vec<TokenStream>,
}

fn guard_arms(table: &ModeTable) -> GuardArms {
    let d = table.dim;
    let state = crate::emit::codegen::state_type(d);
    let fe = crate::emit::codegen::field_error();
    let mech = quote! { __routh::mechanics };
    let mut guard_count = Vec::new();
    let mut guard_name = Vec::new();
    let mut guard = Vec::new();
    let mut rate = Vec::new();
    let mut gradient = Vec::new();
    let mut zeno = Vec::new();
    let mut reset = Vec::new();
    let mut reset_jacobian = Vec::new();
    for (k, mode) in table.modes.iter().enumerate() {
        let access = &mode.access;
        let dm = mode.dim;
        let n = mode.positions;
        // The mode's own state: the padded state itself, or its prefix.
        let xm = if dm == d {
            quote! { x }
        } else {
            quote! { &#mech::take::<#d, #dm>(x) }
        };
        let gcount = mode.guards.len();
        guard_count.push(quote! { #k => #gcount, });
        let gnames: Vec<&String> = mode.guards.iter().map(|g| &g.name).collect();
        guard_name.push(quote! { #k => [#(#gnames),*].get(guard).copied().unwrap_or(""), });
        let idx: Vec<usize> = (0..gcount).collect();
        let call = |suffix: &str| -> Vec<proc_macro2::Ident> {
            mode.guards.iter().map(|g| format_ident!("{}{suffix}", g.name)).collect()
        };
        let (h, r, grad, reset_fn, jac_fn) =
            (call("_guard"), call("_guard_rate"), call("_guard_gradient"), call("_reset"), call("_reset_jacobian"));
        guard.push(quote! { #k => match guard { #(#idx => #access.#h(t, #xm),)* _ => f64::NAN }, });
        rate.push(quote! { #k => match guard { #(#idx => #access.#r(t, #xm),)* _ => f64::NAN }, });
        let grads: Vec<TokenStream> = mode
            .guards
            .iter()
            .zip(&grad)
            .map(|(g, f)| {
                let from = if g.full_gradient { dm } else { n };
                quote! { #mech::pad::<#from, #d>(&#access.#f(t, #xm)) }
            })
            .collect();
        gradient.push(quote! {
            #k => match guard {
                #(#idx => #grads,)*
                _ => <#state>::from_element(f64::NAN),
            },
        });
        let zeno_arms: Vec<TokenStream> = mode
            .zeno
            .iter()
            .map(|z| {
                let (g, name, target) = (z.guard, &z.name, z.target);
                let reset = format_ident!("{}_reset", z.name);
                let post = if z.target_dim == d {
                    quote! { #access.#reset(t, #xm) }
                } else {
                    let td = z.target_dim;
                    quote! { #access.#reset(t, #xm).map(|p| #mech::pad::<#td, #d>(&p)) }
                };
                quote! { #g => ::core::option::Option::Some(#post.map(|post| __routh::Completion::new(#name, #target, post))), }
            })
            .collect();
        zeno.push(quote! { #k => match guard { #(#zeno_arms)* _ => ::core::option::Option::None }, });
        let targets: Vec<usize> = mode.guards.iter().map(|g| g.target).collect();
        let resets: Vec<TokenStream> = mode
            .guards
            .iter()
            .zip(&reset_fn)
            .map(|(g, f)| {
                let post = quote! { #access.#f(t, #xm)? };
                if g.target_dim == d {
                    post
                } else {
                    let td = g.target_dim;
                    quote! { #mech::pad::<#td, #d>(&#post) }
                }
            })
            .collect();
        reset.push(quote! {
            #k => match guard {
                #(#idx => Ok((#targets, #resets)),)*
                _ => Err(#fe::NonFinite { t }),
            },
        });
        let jacs: Vec<TokenStream> = mode
            .guards
            .iter()
            .zip(&jac_fn)
            .map(|(g, f)| {
                if g.target_dim == d && dm == d {
                    quote! { #access.#f(t, #xm) }
                } else {
                    quote! { Ok(#mech::pad_matrix(&#access.#f(t, #xm)?)) }
                }
            })
            .collect();
        reset_jacobian.push(quote! {
            #k => match guard {
                #(#idx => #jacs,)*
                _ => Err(#fe::NonFinite { t }),
            },
        });
    }
    GuardArms { guard_count, guard_name, guard, rate, gradient, zeno, reset, reset_jacobian }
}

/// `impl ParametricModel` and `family("p")` for a model with impacts and `sensitivity(...)`
/// parameters (the struct `name` with its parameter fields; `chosen` the sensitivity parameters in
/// their column order): the model as a one-parameter family whose modes' ∂F/∂p are their generated
/// `parameter_jacobian` columns (every model with `sensitivity(...)` has one, constrained or not;
/// see `routh::runtime::periodic::HybridFamily`).
pub fn parametric_model_impl(table: &ModeTable, name: &syn::Ident, fields: &[syn::Ident], chosen: &[&syn::Ident]) -> TokenStream {
    if chosen.is_empty() {
        return TokenStream::new();
    }
    let d = table.dim;
    let np = chosen.len();
    let state = crate::emit::codegen::state_type(d);
    let fe = crate::emit::codegen::field_error();
    let mech = quote! { __routh::mechanics };
    let rebuild = crate::emit::codegen::with_parameter(fields, chosen);
    let arms = table.modes.iter().enumerate().map(|(k, mode)| {
        let (access, dm) = (&mode.access, mode.dim);
        let column = quote! { j.column(k).into_owned() };
        let (xm, column) = if dm == d {
            (quote! { x }, column)
        } else {
            (quote! { &#mech::take::<#d, #dm>(x) }, quote! { #mech::pad::<#dm, #d>(&#column) })
        };
        quote! { #k => ::core::option::Option::Some(#access.parameter_jacobian(t, #xm).map(|j| #column)), }
    });
    quote! {
        #[automatically_derived]
        impl __routh::periodic::ParametricModel<#d> for #name {
            fn with_parameter(&self, k: usize, value: f64) -> Self {
                #rebuild
            }
            #[allow(unused_variables)]
            fn mode_parameter_derivative(&self, k: usize, mode: usize, t: f64, x: &#state)
                -> ::core::option::Option<::core::result::Result<#state, #fe>>
            {
                if k >= #np {
                    return ::core::option::Option::None;
                }
                match mode { #(#arms)* _ => ::core::option::Option::None }
            }
        }

        #[automatically_derived]
        impl #name {
            /// The model as a one-parameter family in `parameter` (one of [`Self::SENSITIVITY`]) at the values
            /// of `self`: periodic orbits of every member ([`find_orbit_at`](::routh::runtime::periodic::find_orbit_at))
            /// continued in the parameter ([`continue_orbits_in`](::routh::runtime::periodic::continue_orbits_in)), with
            /// each mode's exact ∂F/∂p (its `parameter_jacobian`); the guards' and resets' ∂/∂p by central
            /// differences at a state.
            ///
            /// # Errors
            /// [`SimError::InvalidArgument`](::routh::runtime::SimError) for a parameter not in `SENSITIVITY`.
            pub fn family(&self, parameter: &str)
                -> ::core::result::Result<__routh::periodic::ModelFamily<Self>, __routh::SimError>
            {
                let Some(k) = Self::SENSITIVITY.iter().position(|p| *p == parameter) else {
                    return Err(__routh::SimError::InvalidArgument(::std::format!(
                        "`{parameter}` is not a parameter of `sensitivity(...)`: {:?}", Self::SENSITIVITY
                    )));
                };
                let value = [#( self.#chosen ),*][k];
                let model = <Self as __routh::periodic::ParametricModel<#d>>::with_parameter(self, k, value);
                Ok(__routh::periodic::ModelFamily::new(model, k, Self::SENSITIVITY[k], value))
            }
        }
    }
}
