//! What a run of a generated model checks before it starts: `check_parameters` (every parameter
//! finite, restitution coefficients ≥ 0, divisors nonzero, and the model's [`Requirement`]s —
//! masses and rolling radii positive, inertia tensors a rigid body's — evaluated from the
//! parameters), and with orientations the start's quaternions scaled to unit length
//! ([`start`]). Emitted for models, their modes and their first-order reduced types.

use proc_macro2::TokenStream;
use quote::quote;

use crate::layout::Role;
use crate::model::{Law, Requirement, View};

/// `check_parameters`: every parameter finite, every restitution coefficient ≥ 0, every parameter
/// the model divides by nonzero, checked when a simulation starts (a typed error naming the
/// parameter instead of a run that fails later, or a negative coefficient that ends as a stuck
/// contact).
pub(super) fn check_parameters(models: &[View<'_>]) -> TokenStream {
    let Some(first) = models.first() else { return TokenStream::new() };
    let params = &first.parameters;
    let names: Vec<String> = params.iter().map(ToString::to_string).collect();
    let mut coefficients: Vec<&syn::Ident> = Vec::new();
    for m in models {
        for imp in &m.impacts {
            if let Law::Restitution(rows) = &imp.law {
                for (_, e) in rows {
                    if let Some(Role::Parameter(i)) = m.role(*e)
                        && !coefficients.contains(&&m.parameters[i])
                    {
                        coefficients.push(&m.parameters[i]);
                    }
                }
            }
        }
    }
    let coefficient_names: Vec<String> = coefficients.iter().map(ToString::to_string).collect();
    // The α of `discrete(rule = alpha(a))` given by a parameter must lie in [0, 1].
    let mut alphas: Vec<&syn::Ident> = Vec::new();
    for m in models {
        if let Some(crate::model::Discretization { quadrature: crate::model::Quadrature::Alpha(a), .. }) = &m.discretization
            && let Some(Role::Parameter(i)) = m.role(*a)
            && !alphas.contains(&&m.parameters[i])
        {
            alphas.push(&m.parameters[i]);
        }
    }
    let alpha_names: Vec<String> = alphas.iter().map(ToString::to_string).collect();
    // Parameters the model divides by (`k / l`): 0 would make the field infinite.
    let mut divisors: Vec<&syn::Ident> = Vec::new();
    for m in models {
        let mut roots = vec![m.lagrangian];
        roots.extend(&m.force);
        for c in &m.constraints {
            roots.extend(c.position);
            roots.extend(&c.a);
            roots.push(c.b);
        }
        roots.extend(m.impacts.iter().map(|i| i.guard));
        for s in m.arena.divisor_symbols(&roots) {
            if let Some(Role::Parameter(i)) = m.role(s)
                && !divisors.contains(&&m.parameters[i])
            {
                divisors.push(&m.parameters[i]);
            }
        }
    }
    let divisor_names: Vec<String> = divisors.iter().map(ToString::to_string).collect();
    let requirements = requirement_checks(models);
    let finite = finite_checks(params);
    let count = names.len();
    let model_name = first.name.to_string();
    let chosen: Vec<String> = first.sensitivity.iter().map(|&i| names[i].clone()).collect();
    let nchosen = chosen.len();
    quote! {
        /// Names of the parameters (the struct's fields), in declaration order.
        pub const PARAMETERS: [&'static str; #count] = [#(#names),*];

        /// Where a run of this model with `options` comes from: routh's version, the model's
        /// name, its parameters ([`Self::PARAMETERS`] with their values) and the options; with the
        /// `serde` feature it serializes beside a result (see [`Self::record`]).
        pub fn provenance<O>(&self, options: O) -> __routh::Provenance<O> {
            __routh::Provenance::new(#model_name, &Self::PARAMETERS, &[#(self.#params),*], options)
        }

        /// `result` with its [`provenance`](Self::provenance) under `options`: what to serialize so
        /// that the file says how to reproduce it.
        pub fn record<R, O>(&self, result: R, options: O) -> __routh::Record<R, O> {
            __routh::Record::new(self.provenance(options), result)
        }
        /// The parameters of `sensitivity(...)`: the columns of `parameter_jacobian` (∂F/∂p).
        pub const SENSITIVITY: [&'static str; #nchosen] = [#(#chosen),*];

        /// Checks the parameters a simulation starts with: every one finite, every restitution
        /// coefficient `≥ 0` (`e > 1` is allowed: a superelastic impact that adds energy),
        /// every parameter the model divides by nonzero, and what the bodies built from them
        /// must be: masses and rolling radii positive, inertia tensors positive definite with
        /// the triangle inequalities (`I₁ ≤ I₂ + I₃`).
        ///
        /// # Errors
        /// [`SimError::InvalidParameter`](::routh::runtime::SimError) naming the first bad parameter.
        pub fn check_parameters(&self) -> ::core::result::Result<(), __routh::SimError> {
            #finite
            #(
                if !(self.#coefficients >= 0.0) {
                    return Err(__routh::SimError::InvalidParameter {
                        name: #coefficient_names,
                        value: self.#coefficients,
                        reason: "a restitution coefficient must be >= 0",
                    });
                }
            )*
            #(
                if !(0.0..=1.0).contains(&self.#alphas) {
                    return Err(__routh::SimError::InvalidParameter {
                        name: #alpha_names,
                        value: self.#alphas,
                        reason: "the α of the discrete rule must lie in [0, 1]",
                    });
                }
            )*
            #(
                if self.#divisors == 0.0 {
                    return Err(__routh::SimError::InvalidParameter {
                        name: #divisor_names,
                        value: self.#divisors,
                        reason: "the model divides by it",
                    });
                }
            )*
            #requirements
            Ok(())
        }
    }
}

/// The checks that every parameter is finite, in declaration order.
fn finite_checks(params: &[syn::Ident]) -> TokenStream {
    let names: Vec<String> = params.iter().map(ToString::to_string).collect();
    quote! {
        #(
            if !self.#params.is_finite() {
                return Err(__routh::SimError::InvalidParameter { name: #names, value: self.#params, reason: "it is not finite" });
            }
        )*
    }
}

/// `check_parameters` of a first-order reduced type (`model`, whose parameters are its full
/// model's): every parameter finite, and what the bodies built from them must be (the full
/// model's [`Requirement`]s).
pub(crate) fn reduced_check_parameters(model: &View<'_>) -> TokenStream {
    let finite = finite_checks(&model.parameters);
    let requirements = requirement_checks(std::slice::from_ref(model));
    quote! {
        /// Checks the parameters a run starts with: every one finite, and what the bodies built
        /// from them must be (masses and rolling radii positive, inertia tensors a rigid body's).
        ///
        /// # Errors
        /// [`SimError::InvalidParameter`](::routh::runtime::SimError) naming the first bad parameter.
        pub fn check_parameters(&self) -> ::core::result::Result<(), __routh::SimError> {
            #finite
            #requirements
            Ok(())
        }
    }
}

/// What every run of the model does before it starts: [`check_parameters`], and with orientations
/// the start's quaternions scaled to unit length (a zero one refused), at their positions in the
/// state of each of the `modes` (a mode's index is its place here).
pub(super) fn start<'m>(modes: impl IntoIterator<Item = &'m crate::model::Model>) -> TokenStream {
    let starts: Vec<Vec<usize>> = modes.into_iter().map(|m| m.layout.orientations.iter().map(|o| o.q_start).collect()).collect();
    if starts.iter().all(Vec::is_empty) {
        return quote! { self.check_parameters()?; };
    }
    let per_mode = starts.iter().map(|s| quote! { &[#(#s),*] });
    quote! {
        self.check_parameters()?;
        let plan = plan.unit_quaternions(&[#(#per_mode),*])?;
    }
}

/// The checks of the modes' [`Requirement`]s (masses and rolling radii positive, inertia tensors
/// a rigid body's), each computed from the parameters inside `check_parameters` (on the struct:
/// parameters are `self.p`), once per description.
fn requirement_checks(models: &[View<'_>]) -> TokenStream {
    let mut seen: Vec<&str> = Vec::new();
    let mut checks = Vec::new();
    for m in models {
        let symbol = |s| match m.role(s) {
            Some(Role::Parameter(i)) => {
                let p = &m.parameters[i];
                quote!(self.#p)
            }
            _ => quote!(::core::f64::NAN),
        };
        for r in &m.requirements {
            let (what, values) = match r {
                Requirement::Positive { what, value } => (what, vec![*value]),
                Requirement::Inertia { what, tensor } => (what, tensor.as_flattened().to_vec()),
            };
            if seen.contains(&what.as_str()) {
                continue;
            }
            seen.push(what);
            let code = symbolic::emit(m.arena, &values, &symbol, "__c");
            let statements = &code.statements;
            let out = &code.outputs;
            let test = match r {
                Requirement::Positive { .. } => quote! {
                    let __v = #(#out)*;
                    if !(__v > 0.0) {
                        return Err(__routh::SimError::InvalidParameter { name: #what, value: __v, reason: "it must be positive" });
                    }
                },
                Requirement::Inertia { .. } => quote! {
                    let __i = __routh::Matrix::<3, 3>::new(#(#out),*);
                    if let Some((value, reason)) = __routh::mechanics::inertia_defect(&__i) {
                        return Err(__routh::SimError::InvalidParameter { name: #what, value, reason });
                    }
                },
            };
            checks.push(quote! { { #(#statements)* #test } });
        }
    }
    quote! { #(#checks)* }
}
