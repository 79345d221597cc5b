//! The model behind a pointer: `impl DynModel` (the runtime's `erased` module), whose methods are
//! the typed API's glue on states given as slices — the field, energy, momenta, outputs, mass
//! matrix, inverse dynamics, linearisation and runs of each kind of model (smooth, with impacts, with modes, each with or
//! without inputs) — and `from_parameters`, the model from its parameters' values in declaration
//! order. What bindings to other languages and sweep drivers build on.

use proc_macro2::TokenStream;
use quote::quote;

use crate::model::{System, View};

/// `impl DynModel` for the system whose modes are `views` (with the glue of its variational
/// integrator where `integrator` is given: its items were derived and emitted, with the cyclic
/// coordinates of its discrete reduction, if any).
pub fn items(system: &System, views: &[View<'_>], integrator: Option<&[usize]>) -> TokenStream {
    let Some(first) = views.first() else { return TokenStream::new() };
    let name = &system.name;
    let name_str = name.to_string();
    let multi = !system.is_single();
    let d = views.iter().map(|m| m.layout.state_dim()).max().unwrap_or(0);
    let k = first.inputs.len();
    let params = &first.parameters;
    let np = params.len();
    let param_names: Vec<String> = params.iter().map(ToString::to_string).collect();
    let coordinates: Vec<String> = first.coordinates.iter().map(ToString::to_string).collect();
    let state_names = crate::emit::model::state_names(first);
    let inputs: Vec<String> = first.inputs.iter().map(ToString::to_string).collect();
    let outputs: Vec<&String> = first.outputs.iter().map(|(n, _)| n).collect();
    let modes: Vec<String> =
        if multi { views.iter().filter_map(|m| m.mode.as_ref().map(|(_, id)| id.to_string())).collect() } else { Vec::new() };
    let impacts: Vec<String> = if multi { Vec::new() } else { first.impacts.iter().map(|i| i.name.to_string()).collect() };
    let linearizes = views.iter().all(|m| m.field_jacobian);
    // A robot's limits and friction, the constants `emit::model::limits` writes.
    let limits = if system.limits.is_empty() {
        TokenStream::new()
    } else {
        quote! {
            .limits(__routh::erased::JointLimits::new(
                &#name::POSITION_LIMITS, &#name::EFFORT_LIMITS, &#name::VELOCITY_LIMITS, &#name::FRICTION,
            ))
        }
    };
    // The checked state and inputs of a call in a mode: `(x, u)` (`u` all zeros for the energy and
    // momenta, which no input changes).
    let describe = quote! { <Self as __routh::erased::DynModel>::describe() };
    let arguments = quote! { let (x, u) = __routh::erased::arguments::<#d, #k>(#describe, mode, x, u)?; };
    let at_rest = quote! {
        let (x, _) = __routh::erased::arguments::<#d, 0>(#describe, mode, x, &[])?;
        let u = [0.0; #k];
    };
    let mech = quote! { __routh::mechanics };

    // The model at the inputs `u` (an array), whose views answer for each mode.
    let at_inputs = if k == 0 {
        quote! { self }
    } else {
        quote! { self.driven(::core::array::from_fn(|i| u[i])) }
    };
    // `f(view, x, n)` in each mode: the mode's view, its prefix of the padded state and its number
    // of velocities.
    let per_mode = |f: &dyn Fn(TokenStream, TokenStream, usize) -> TokenStream| -> TokenStream {
        if !multi {
            return f(quote! { (#at_inputs) }, quote! { &x }, first.dof());
        }
        let arms = views.iter().enumerate().map(|(i, m)| {
            let Some((_, mode)) = &m.mode else { return TokenStream::new() };
            let dm = m.layout.state_dim();
            let xm = if dm == d {
                quote! { &x }
            } else {
                quote! { &#mech::take::<#d, #dm>(&x) }
            };
            let body = f(quote! { (#at_inputs).#mode() }, xm, m.dof());
            quote! { #i => #body, }
        });
        quote! {
            match mode {
                #(#arms)*
                _ => unreachable!("the mode was checked"),
            }
        }
    };
    let energy = per_mode(&|v, x, _| quote! { #v.energy(t, #x) });
    // Row by row (nalgebra stores by columns).
    let mass_matrix = per_mode(&|v, x, _| quote! { #v.mass_matrix(t, #x).transpose().as_slice().to_vec() });
    // Each mode's own number of velocities.
    let inverse_dynamics = per_mode(&|v, x, n| {
        quote! {{
            let qdd = __routh::erased::accelerations::<#n>(#describe, qdd)?;
            #v.inverse_dynamics(t, #x, &qdd)?.as_slice().to_vec()
        }}
    });
    let static_forces = per_mode(&|v, x, _| quote! { #v.static_forces(t, #x).as_slice().to_vec() });
    let momenta = per_mode(&|v, x, _| quote! { #v.momenta(t, #x).as_slice().to_vec() });
    // Row by row, as M; an error where the mode generates none.
    let id_jacobian = per_mode(&|v, x, n| {
        quote! {{
            let qdd = __routh::erased::accelerations::<#n>(#describe, qdd)?;
            match #v.__routh_inverse_dynamics_jacobian(t, #x, &qdd) {
                ::core::option::Option::Some(r) => {
                    let (dq, dv) = r?;
                    (dq.transpose().as_slice().to_vec(), dv.transpose().as_slice().to_vec())
                }
                ::core::option::Option::None => return Err(__routh::erased::no_inverse_dynamics_jacobian(#describe)),
            }
        }}
    });
    let tangent = per_mode(&|v, x, _| quote! { #v.__routh_linearize_tangent(t, #x) });
    let outputs_body = if outputs.is_empty() {
        quote! { ::std::vec::Vec::new() }
    } else {
        per_mode(&|v, x, _| quote! { #v.outputs(t, #x).to_vec() })
    };
    // C row by row in each mode, its rows padded to the padded state's width.
    let output_jacobian_body = if outputs.is_empty() {
        quote! { ::core::result::Result::Ok(::std::vec::Vec::new()) }
    } else {
        let widths: Vec<usize> = views.iter().map(|m| m.layout.state_dim()).collect();
        let nw = widths.len();
        let by_mode = per_mode(&|v, x, _| quote! { #v.__routh_output_jacobian_rows(t, #x) });
        quote! {
            const WIDTHS: [usize; #nw] = [#(#widths),*];
            __routh::erased::output_jacobian_rows(#describe, #by_mode, WIDTHS[mode.min(#nw - 1)], #d)
        }
    };
    let field = match (multi, k) {
        (false, 0) => quote! { __routh::VectorField::field(self, t, &x)? },
        (false, _) => quote! { __routh::InputSystem::field_with_input(self, t, &x, &u)? },
        (true, 0) => quote! { __routh::HybridSystem::mode_field(self, mode, t, &x)? },
        (true, _) => quote! { __routh::HybridInputSystem::mode_field_with_input(self, mode, t, &x, &u)? },
    };
    let linearize = match (linearizes, multi, k) {
        (false, _, _) => quote! { Err(__routh::erased::no_jacobian(#describe)) },
        (true, false, 0) => quote! {
            let a = self.jacobian(t, &x)?;
            Ok(__routh::erased::FlatLinearization::new(&a, &__routh::Matrix::<#d, 0>::zeros()))
        },
        (true, false, _) => quote! {
            let l = self.linearize(t, &x, ::core::array::from_fn(|i| u[i]))?;
            Ok(__routh::erased::FlatLinearization::new(&l.a, &l.b))
        },
        (true, true, 0) => quote! {
            let a = __routh::HybridSystem::mode_jacobian(self, mode, t, &x)?;
            Ok(__routh::erased::FlatLinearization::new(&a, &__routh::Matrix::<#d, 0>::zeros()))
        },
        (true, true, _) => quote! {
            let l = self.linearize(mode, t, &x, ::core::array::from_fn(|i| u[i]))?;
            Ok(__routh::erased::FlatLinearization::new(&l.a, &l.b))
        },
    };
    // The step in the orientations' tangent charts where the model generates `rk4_step_tangent`.
    let has_tangent_step = !multi && crate::emit::system::has_tangent_step(first);
    let discrete = discrete_glue(first, integrator.filter(|_| !multi), &describe, &at_inputs);
    let tangent_step = if has_tangent_step {
        let (p, n) = (first.layout.position_dim(), first.dof());
        let c = 2 * n;
        let mut items = quote! {
            fn rk4_step_tangent(&self, mode: usize, t: f64, x: &[f64], u: &[f64], h: f64)
                -> ::core::result::Result<__routh::erased::FlatStep, __routh::SimError>
            {
                #arguments
                let step = self.rk4_step_tangent(t, &x, ::core::array::from_fn(|i| u[i]), h)?;
                Ok(__routh::erased::FlatStep::from_tangent(&step))
            }
        };
        items.extend(ilqr_tangent_item(
            &discrete.ilqr_tangent,
            quote! {
                __routh::erased::ilqr_tangent::<Self, #p, #n, #d, #c, #k>(self, #describe, request)
            },
        ));
        items
    } else if discrete.ilqr_tangent.is_empty() {
        TokenStream::new()
    } else {
        ilqr_tangent_item(
            &discrete.ilqr_tangent,
            quote! {
                let _ = request;
                Err(__routh::erased::no_tangent_step(#describe))
            },
        )
    };
    // RK4's step with its exact Jacobians and iLQR over it, where the model implements
    // `step::InputJacobians`.
    let (rk4_step, ilqr) = if !multi && crate::emit::system::has_step_jacobians(first) {
        (
            quote! {
                let step = __routh::step::rk4_step(self, t, &x, &__routh::Vector::<#k>::from_fn(|i, _| u[i]), h)?;
                Ok(__routh::erased::FlatStep::new(&step))
            },
            if crate::emit::system::is_second_order(first) {
                // RK4 or the semi-implicit Euler step, as the request names.
                quote! { __routh::erased::ilqr_second_order::<Self, #d, #k>(self, #describe, request) }
            } else {
                quote! { __routh::erased::ilqr::<Self, #d, #k>(self, #describe, request) }
            },
        )
    } else {
        (
            quote! {
                let _ = (&x, &u, t, h);
                Err(__routh::erased::no_step_jacobian(#describe))
            },
            quote! {
                let _ = request;
                Err(__routh::erased::no_step_jacobian(#describe))
            },
        )
    };
    let run = if k == 0 {
        quote! {
            let outputs = |mode: usize, t: f64, x: &[f64]| {
                <Self as __routh::erased::DynModel>::outputs(self, mode, t, x, &[])
            };
            __routh::erased::run::<Self, __routh::Plain, #d>(self, request, __routh::Plain, outputs)
        }
    } else {
        quote! {
            let signal = __routh::erased::signal::<#d, #k>(#describe, request)?;
            let outputs = |mode: usize, t: f64, x: &[f64]| {
                <Self as __routh::erased::DynModel>::outputs(self, mode, t, x, &request.inputs_at(t, x))
            };
            __routh::erased::run::<Self, __routh::Inputs<__routh::erased::Signal<#d, #k>, #k>, #d>(
                self, request, __routh::Inputs(signal), outputs,
            )
        }
    };
    let DiscreteGlue { info: discrete_info, methods: discrete_methods, ilqr: ilqr_prefix, .. } = discrete;
    let (modes_len, impacts_len, inputs_len, outputs_len, coords_len, names_len) =
        (modes.len(), impacts.len(), inputs.len(), outputs.len(), coordinates.len(), state_names.len());
    quote! {
        #[automatically_derived]
        impl __routh::erased::DynModel for #name {
            #[inline]
            fn describe() -> &'static __routh::erased::ModelInfo {
                const PARAMETERS: [&str; #np] = [#(#param_names),*];
                const COORDINATES: [&str; #coords_len] = [#(#coordinates),*];
                const STATE_NAMES: [&str; #names_len] = [#(#state_names),*];
                const INPUTS: [&str; #inputs_len] = [#(#inputs),*];
                const OUTPUTS: [&str; #outputs_len] = [#(#outputs),*];
                const MODES: [&str; #modes_len] = [#(#modes),*];
                const IMPACTS: [&str; #impacts_len] = [#(#impacts),*];
                const INFO: __routh::erased::ModelInfo =
                    __routh::erased::ModelInfo::new(#name_str, &PARAMETERS, &COORDINATES, &STATE_NAMES, #d)
                        .inputs(&INPUTS)
                        .outputs(&OUTPUTS)
                        .modes(&MODES)
                        .impacts(&IMPACTS)
                        .linearizes(#linearizes)
                        #limits
                        #discrete_info;
                &INFO
            }

            #[inline]
            fn from_parameters(values: &[f64]) -> ::core::result::Result<Self, __routh::SimError> {
                let [#(#params),*] = __routh::erased::parameters::<#np>(<Self as __routh::erased::DynModel>::describe(), values)?;
                let model = Self { #(#params),* };
                model.check_parameters()?;
                Ok(model)
            }

            #[inline]
            fn info(&self) -> &'static __routh::erased::ModelInfo {
                <Self as __routh::erased::DynModel>::describe()
            }

            #[inline]
            fn parameter_values(&self) -> ::std::vec::Vec<f64> {
                ::std::vec![#(self.#params),*]
            }

            #[inline]
            fn with_parameters(&self, values: &[f64])
                -> ::core::result::Result<::std::boxed::Box<dyn __routh::erased::DynModel>, __routh::SimError>
            {
                Ok(::std::boxed::Box::new(<Self as __routh::erased::DynModel>::from_parameters(values)?))
            }

            #[inline]
            fn field(&self, mode: usize, t: f64, x: &[f64], u: &[f64])
                -> ::core::result::Result<::std::vec::Vec<f64>, __routh::SimError>
            {
                #arguments
                let _ = &u;
                Ok(#field.as_slice().to_vec())
            }

            #[inline]
            fn energy(&self, mode: usize, t: f64, x: &[f64]) -> ::core::result::Result<f64, __routh::SimError> {
                #at_rest
                let _ = &u;
                Ok(#energy)
            }

            #[inline]
            fn momenta(&self, mode: usize, t: f64, x: &[f64])
                -> ::core::result::Result<::std::vec::Vec<f64>, __routh::SimError>
            {
                #at_rest
                let _ = &u;
                Ok(#momenta)
            }

            #[inline]
            fn mass_matrix(&self, mode: usize, t: f64, x: &[f64])
                -> ::core::result::Result<::std::vec::Vec<f64>, __routh::SimError>
            {
                #at_rest
                let _ = &u;
                Ok(#mass_matrix)
            }

            #[inline]
            fn inverse_dynamics(&self, mode: usize, t: f64, x: &[f64], u: &[f64], qdd: &[f64])
                -> ::core::result::Result<::std::vec::Vec<f64>, __routh::SimError>
            {
                #arguments
                let _ = &u;
                Ok(#inverse_dynamics)
            }

            #[inline]
            fn static_forces(&self, mode: usize, t: f64, x: &[f64], u: &[f64])
                -> ::core::result::Result<::std::vec::Vec<f64>, __routh::SimError>
            {
                #arguments
                let _ = &u;
                Ok(#static_forces)
            }

            #[inline]
            fn inverse_dynamics_jacobian(&self, mode: usize, t: f64, x: &[f64], u: &[f64], qdd: &[f64])
                -> ::core::result::Result<(::std::vec::Vec<f64>, ::std::vec::Vec<f64>), __routh::SimError>
            {
                #arguments
                let _ = &u;
                Ok(#id_jacobian)
            }

            #[inline]
            fn outputs(&self, mode: usize, t: f64, x: &[f64], u: &[f64])
                -> ::core::result::Result<::std::vec::Vec<f64>, __routh::SimError>
            {
                #arguments
                let _ = (&x, &u, t);
                Ok(#outputs_body)
            }

            #[inline]
            fn output_jacobian(&self, mode: usize, t: f64, x: &[f64])
                -> ::core::result::Result<::std::vec::Vec<f64>, __routh::SimError>
            {
                #at_rest
                let _ = (&x, &u, t);
                #output_jacobian_body
            }

            #[inline]
            fn linearize(&self, mode: usize, t: f64, x: &[f64], u: &[f64])
                -> ::core::result::Result<__routh::erased::FlatLinearization, __routh::SimError>
            {
                #arguments
                let _ = (&x, &u, t);
                #linearize
            }

            fn linearize_tangent(&self, mode: usize, t: f64, x: &[f64], u: &[f64])
                -> ::core::result::Result<__routh::linearize::ConstrainedLinearization, __routh::SimError>
            {
                #arguments
                let _ = (&x, &u, t);
                match #tangent {
                    ::core::option::Option::Some(lin) => lin.map_err(__routh::erased::tangent_error),
                    ::core::option::Option::None => Err(__routh::erased::no_tangent_linearization(#describe)),
                }
            }

            #[inline]
            fn rk4_step(&self, mode: usize, t: f64, x: &[f64], u: &[f64], h: f64)
                -> ::core::result::Result<__routh::erased::FlatStep, __routh::SimError>
            {
                #arguments
                #rk4_step
            }

            #tangent_step

            fn ilqr(&self, request: &__routh::erased::IlqrRequest)
                -> ::core::result::Result<__routh::erased::FlatIlqr, __routh::SimError>
            {
                #ilqr_prefix
                #ilqr
            }

            #discrete_methods

            #[inline]
            fn run(&self, request: &__routh::erased::RunRequest)
                -> ::core::result::Result<__routh::erased::FlatRun, __routh::RunError<__routh::erased::FlatRun>>
            {
                #run
            }
        }
    }
}

/// `ilqr_tangent` whose body is `prefix` (the variational integrator's plan, where the model has
/// one) then `body`.
fn ilqr_tangent_item(prefix: &TokenStream, body: TokenStream) -> TokenStream {
    quote! {
        fn ilqr_tangent(&self, request: &__routh::erased::IlqrRequest)
            -> ::core::result::Result<__routh::erased::FlatIlqr, __routh::SimError>
        {
            #prefix
            #body
        }
    }
}

/// The variational integrator's part of `impl DynModel` ([`discrete_glue`]; all empty without).
#[derive(Default)]
struct DiscreteGlue {
    /// `.discrete(DiscreteInfo)` on the model's info (empty without an integrator).
    info: TokenStream,
    /// `discrete_state`, `discrete_run`, `discrete_step`.
    methods: TokenStream,
    /// The start of `ilqr`: the plan on the integrator where the request names it.
    ilqr: TokenStream,
    /// The start of `ilqr_tangent` likewise (the Lie group integrator's; empty otherwise).
    ilqr_tangent: TokenStream,
}

/// The glue of a model's variational integrator (`discrete(...)`; a model with one mode): its
/// info, runs from the model's state through the typed `run_discrete` (on the view at the inputs
/// `at_inputs`; reduced by the cyclic coordinates `integrator` names, where there are any), and —
/// with inputs — its step map's Jacobians and iLQR over it
/// (`erased::{variational_step, contact_step, oriented_step}`); none without `integrator`.
fn discrete_glue(
    first: &View<'_>,
    integrator: Option<&[usize]>,
    describe: &TokenStream,
    at_inputs: &TokenStream,
) -> DiscreteGlue {
    let (Some(disc), Some(cyclic)) = (first.discretization.as_ref(), integrator) else { return DiscreteGlue::default() };
    let (p, n, d, k) = (first.layout.position_dim(), first.dof(), first.layout.state_dim(), first.inputs.len());
    let oriented = !first.layout.orientations.is_empty();
    let contact = first.action.is_some();
    let kind = if oriented {
        quote! { Oriented }
    } else if contact {
        quote! { Contact }
    } else {
        quote! { Variational }
    };
    // The discrete state: positions, momenta (p(q) or, for an orientation, mu1(name)...) and z.
    let state_names = crate::emit::model::state_names(first);
    let mut names: Vec<String> = state_names[..p].to_vec();
    names.extend((0..n).map(|i| crate::notation::momentum_name(first, i)));
    names.extend(first.action.iter().map(ToString::to_string));
    let count = names.len();
    let rule = &disc.rule;
    let steps = k > 0;
    // A discrete Routh reduction's cyclic coordinates, by name in the info and by index in the run.
    let cyclic_names: Vec<String> = cyclic.iter().map(|&c| state_names[c].clone()).collect();
    let with_cyclic = (!cyclic.is_empty()).then(|| quote! { .with_cyclic(&[#(#cyclic_names),*]) });
    let info = quote! {
        .discrete({
            const DISCRETE_STATE: [&str; #count] = [#(#names),*];
            __routh::erased::DiscreteInfo::new(__routh::erased::DiscreteKind::#kind, #rule, &DISCRETE_STATE, #steps)#with_cyclic
        })
    };
    // The typed run of the request (its builder, before `.reduced()` and the options).
    let run = quote! { view.run_discrete(x0).start(request.t0).step(request.h).steps(request.steps) };
    let reduced = if cyclic.is_empty() {
        quote! { return Err(__routh::erased::no_reduction(#describe).into()); }
    } else {
        quote! {
            let run = #run.reduced().options(&request.options).go();
            return __routh::erased::flat_reduced(run, &[#(#cyclic),*], request.energies, |nodes| view.discrete_energies(nodes));
        }
    };
    let action = contact.then(|| quote! { state.push(x[#d - 1]); });
    let mut methods = quote! {
        fn discrete_state(&self, t: f64, x: &[f64]) -> ::core::result::Result<::std::vec::Vec<f64>, __routh::SimError> {
            let (x, _) = __routh::erased::arguments::<#d, 0>(#describe, 0, x, &[])?;
            let u = [0.0; #k];
            let _ = &u;
            let mut state = x.as_slice()[..#p].to_vec();
            state.extend_from_slice((#at_inputs).momenta(t, &x).as_slice());
            #action
            Ok(state)
        }

        fn discrete_run(&self, request: &__routh::erased::DiscreteRequest)
            -> ::core::result::Result<__routh::erased::FlatDiscreteRun, __routh::RunError<__routh::erased::FlatDiscreteRun>>
        {
            let (x0, u) = __routh::erased::arguments::<#d, #k>(#describe, 0, &request.x0, &request.inputs)?;
            let _ = &u;
            let view = #at_inputs;
            if request.reduced {
                #reduced
            }
            let run = #run.options(&request.options).go();
            __routh::erased::flat_discrete(run, request.energies, |nodes| view.discrete_energies(nodes))
        }
    };
    if !steps {
        return DiscreteGlue { info, methods, ..DiscreteGlue::default() };
    }
    let variational = quote! { request.scheme == __routh::erased::IlqrScheme::Variational };
    let (step, advance, ilqr, ilqr_tangent) = if oriented {
        let (dd, c) = (p + n, 2 * n);
        (
            quote! { __routh::erased::oriented_step::<Self, #p, #n, #dd, #c, #k>(self, #describe, (t, x, u, h)) },
            quote! { __routh::erased::oriented_advance::<Self, #p, #n, #dd, #k>(self, #describe, (t, x, u, h)) },
            quote! {
                if #variational {
                    return Err(__routh::erased::oriented_in_chart(#describe));
                }
            },
            quote! {
                if #variational {
                    return __routh::erased::ilqr_oriented::<Self, #p, #n, #dd, #c, #k>(self, #describe, request);
                }
            },
        )
    } else {
        // The step with its Jacobians and the step map iLQR plans on.
        let (dd, step, map) = if contact {
            let dd = 2 * n + 1;
            (
                dd,
                quote! { __routh::erased::contact_step::<Self, #n, #dd, #k>(self, #describe, (t, x, u, h)) },
                quote! { __routh::step::ContactMap::<Self, #n>::new(self) },
            )
        } else {
            let dd = 2 * n;
            (
                dd,
                quote! { __routh::erased::variational_step::<Self, #n, #dd, #k>(self, #describe, (t, x, u, h)) },
                quote! { __routh::step::VariationalMap::<Self, #n>::new(self) },
            )
        };
        (
            step,
            quote! { __routh::erased::advance_map::<_, #dd, #k>(&#map, #describe, (t, x, u, h)) },
            quote! {
                if #variational {
                    let map = #map;
                    return __routh::erased::ilqr_variational::<_, #dd, #k>(&map, #describe, request);
                }
            },
            TokenStream::new(),
        )
    };
    methods.extend(quote! {
        fn discrete_step(&self, t: f64, x: &[f64], u: &[f64], h: f64)
            -> ::core::result::Result<__routh::erased::FlatStep, __routh::SimError>
        {
            #step
        }

        fn discrete_advance(&self, t: f64, x: &[f64], u: &[f64], h: f64)
            -> ::core::result::Result<::std::vec::Vec<f64>, __routh::SimError>
        {
            #advance
        }
    });
    DiscreteGlue { info, methods, ilqr, ilqr_tangent }
}
