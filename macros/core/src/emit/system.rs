//! System-level items: how the model simulates as a whole. A model without modes gets its
//! `run` (smooth with events, or hybrid with `IMPACTS`); a multi-mode model gets its mode
//! views, mode constants, per-mode state constructors (each a `ModeState`) and `run(start)`. Every model with
//! impacts or transitions implements `HybridSystem` through the one table of
//! [`crate::emit::hybrid`].

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use crate::emit::checks::{check_parameters, start};
use crate::emit::codegen::mode_type;
use crate::emit::door::Door;
use crate::emit::hybrid::{GuardRow, ModeRow, ModeTable, ZenoRow, hybrid_system_impl, parametric_model_impl};
use crate::layout::Role;
use crate::model::{Law, System, Trigger, View};

/// The system-level items of `system`, whose modes over their arenas are `views`.
/// The generated types' fields that name routh take the `door`'s path (they stand outside the
/// impls' constant, see [`crate::emit::door`]).
pub fn items(system: &System, views: &[View<'_>], door: &Door) -> TokenStream {
    match views {
        [m] if system.is_single() && !m.inputs.is_empty() => driven(m, &system.vis, door),
        [m] if system.is_single() => single(m),
        _ => multi(system, views, door),
    }
}

/// A model with inputs: its API at fixed input values lives on the view `<Model>Driven`
/// (emitted per model); the struct gets the constants, the state constructor, the view, the
/// linearisation, `impl InputSystem` and `simulate` driven by an input signal.
fn driven(model: &View<'_>, vis: &syn::Visibility, door: &Door) -> TokenStream {
    let check = check_parameters(std::slice::from_ref(model));
    let (n, d, k) = (model.dof(), model.layout.state_dim(), model.inputs.len());
    let name = &model.name;
    let view = crate::emit::codegen::driven_type(name);
    let state = crate::emit::codegen::state_type(d);
    let inputs: Vec<String> = model.inputs.iter().map(ToString::to_string).collect();
    let coords: Vec<String> = model.coordinates.iter().map(ToString::to_string).collect();
    let nc = coords.len();
    let (state_params, state_new) = crate::emit::codegen::state_arguments(model);
    let state_names = crate::emit::model::state_names(model);
    // Driven by the signal on the geometry of the view at any input: its impacts, or its
    // constraints projected (inputs enter the forces only).
    let m = model.constraints.len();
    let hybrid = !model.impacts.is_empty();
    let geometry = quote! { &self.driven([0.0; #k]) };
    let begin = start([model.model]);
    let (kind, signal, sampled, what) = if hybrid {
        (
            crate::emit::run::Kind::hybrid(d),
            quote! { #begin plan.hybrid_driven(#geometry, self, signal) },
            quote! { #begin plan.sampled_hybrid(#geometry, self, hold) },
            "Every impact located and its law applied at the inputs of its instant (a `HybridTrajectory`).",
        )
    } else if m == 0 {
        (
            crate::emit::run::Kind::smooth(d),
            quote! { #begin plan.driven(self, signal) },
            quote! { #begin plan.sampled(self, hold) },
            "Adaptive integration into a `Trajectory`.",
        )
    } else {
        (
            crate::emit::run::Kind::smooth(d),
            quote! { #begin plan.driven_constrained::<_, _, _, #n, #m, #k>(#geometry, self, signal) },
            quote! { #begin plan.sampled_constrained::<_, _, _, #n, #m, #k>(#geometry, self, hold) },
            "Adaptive integration into a `Trajectory`, projected onto the constraints after every step.",
        )
    };
    let doc = crate::emit::run::doc(&format!(
        "The model has inputs: drive it with `.inputs(u)` — constant values (`[f64; {k}]`) or a feedback law, \
         any closure of (t, x) returning them — or with `.sampled(period, law)`, a digital controller with a \
         zero-order hold (the run then returns the inputs chosen too). {what}"
    ));
    let driving = crate::emit::run::Driving { inputs: k, signal, sampled };
    let (run_items, run_impls) = crate::emit::run::items(name, &kind, &doc, None, Some(driving));
    let (impacts_const, hybrid_impl) = if hybrid {
        (impacts_const(model), hybrid_system_impl(&single_table(model, quote! { <'a> }, quote! { #view<'a> })))
    } else {
        (TokenStream::new(), TokenStream::new())
    };
    let view_doc = format!(
        " [`{name}`] at fixed values of its inputs ({}): the full single-model API (mass matrix, forcing, \
         accelerations, Jacobians, energy, …) and `VectorField`{}.",
        inputs.join(", "),
        if hybrid { ", and `HybridSystem` (its impacts at these inputs: periodic orbits, continuation)" } else { "" }
    );
    let items = crate::emit::codegen::lazy(quote! {
        #check

        /// Number of degrees of freedom n.
        pub const DOF: usize = #n;
        /// Dimension of the first-order state.
        pub const STATE_DIM: usize = #d;
        /// Names of the generalized coordinates, in state order (an orientation's quaternion
        /// components among them).
        pub const COORDINATES: [&'static str; #nc] = [#(#coords),*];
        /// Names of the inputs, in the order of u.
        pub const INPUTS: [&'static str; #k] = [#(#inputs),*];
        /// Names of the state's components, in order (CSV headers, plot labels).
        pub const STATE_NAMES: [&'static str; #d] = [#(#state_names),*];

        /// The state vector from positions and velocities (and the action of a contact model).
        #[must_use]
        pub fn state(&self, #state_params) -> #state {
            #state_new
        }

        /// The model at the input values `u`: the view with its whole API.
        #[must_use]
        pub fn driven(&self, u: [f64; #k]) -> #view<'_> {
            #view(self, __routh::Vector::from(u))
        }

        /// The linearisation x' ≈ F(t, x, u) + A δx + B δu about the state `x` and inputs `u`:
        /// A = ∂F/∂x and B = ∂F/∂u from symbolic derivatives.
        ///
        /// # Errors
        /// [`FieldError::SingularMassMatrix`](::routh::runtime::FieldError) if M is singular at `x`.
        pub fn linearize(&self, t: f64, x: &#state, u: [f64; #k])
            -> ::core::result::Result<__routh::Linearization<#d, #k>, __routh::FieldError>
        {
            self.driven(u).__routh_linearization(t, x)
        }

        #run_items

        #impacts_const
    });
    let hybrid_inputs = if hybrid {
        let guards =
            crate::emit::codegen::lazy(guards_with_input(&view, &single_table(model, quote! { <'a> }, quote! { #view<'a> }), k));
        quote! {
            #[automatically_derived]
            impl __routh::HybridInputSystem<#d, #k> for #name {
                #guards
            }
        }
    } else {
        TokenStream::new()
    };
    let step_jacobians = step_jacobians(model);
    let input_items = crate::emit::codegen::lazy(quote! {
        #[inline]
        fn field_with_input(&self, t: f64, x: &#state, u: &__routh::Vector<#k>)
            -> ::core::result::Result<#state, __routh::FieldError>
        {
            __routh::VectorField::field(&#view(self, *u), t, x)
        }

        fn input_names(&self) -> &'static [&'static str] {
            &Self::INPUTS
        }
    });
    quote! {
        #[doc = #view_doc]
        #[derive(Clone, Copy)]
        #vis struct #view<'a>(pub &'a #name, pub #door::Vector<#k>);

        #[automatically_derived]
        impl #name {
            #items
        }

        #[automatically_derived]
        impl __routh::InputSystem<#d, #k> for #name {
            #input_items
        }

        #step_jacobians

        #hybrid_inputs

        #run_impls

        #hybrid_impl
    }
}

/// Whether a single model implements `step::InputJacobians` ([`step_jacobians`]): inputs and the
/// field's Jacobians, a step of the field alone (no projection, no resets).
pub(crate) fn has_step_jacobians(model: &View<'_>) -> bool {
    !model.inputs.is_empty() && model.field_jacobian && model.constraints.is_empty() && model.impacts.is_empty()
}

/// Whether a model with step Jacobians is `step::SecondOrder` ([`step_jacobians`]): x = (q, v) with
/// q̇ = v — no orientations (q̇ = K(q) v), no reduced velocities, no action variable.
pub(crate) fn is_second_order(model: &View<'_>) -> bool {
    let layout = &model.layout;
    has_step_jacobians(model) && layout.orientations.is_empty() && layout.velocity_names.is_empty() && layout.z.is_none()
}

/// Whether a single model has `rk4_step_tangent` ([`step_jacobians`]): the step's Jacobians,
/// orientations and no action (the layout's chart is (δq, δv)).
pub(crate) fn has_tangent_step(model: &View<'_>) -> bool {
    has_step_jacobians(model) && !model.layout.orientations.is_empty() && model.layout.z.is_none()
}

/// `impl step::InputJacobians` of a model with inputs: the Jacobians a discrete-time step map
/// needs (`runtime::step`), where the field's are generated and the step is of the field alone
/// (no projection, no resets).
fn step_jacobians(model: &View<'_>) -> TokenStream {
    if !has_step_jacobians(model) {
        return TokenStream::new();
    }
    let (d, k, name) = (model.layout.state_dim(), model.inputs.len(), &model.name);
    let state = crate::emit::codegen::state_type(d);
    // With orientations (no action): the step in their tangent charts.
    let tangent = if !has_tangent_step(model) {
        TokenStream::new()
    } else {
        let (p, n) = (model.layout.position_dim(), model.dof());
        let c = 2 * n;
        let doc = format!(
            " One classical Runge–Kutta step of size `h` from (t, x) with the inputs `u` held, and its exact Jacobians \
              in the orientations' tangent charts about x and about the step's end ({c} × {c} and {c} × {k}: each \
              orientation charted by its body rotation vector θ and θ̇ = δω − ω × θ, the state of \
              `linearize_tangent`) — the error-state model of a discrete LQR (`lqr::dare`) or MPC, where \
              [`rk4_step`](::routh::runtime::step::rk4_step)'s Jacobians in the quaternion state carry each \
              quaternion's scale ([`rk4_tangent_step`](::routh::runtime::step::rk4_tangent_step))."
        );
        let ilqr_doc = format!(
            " Iterative LQR over `rk4_step_tangent`: its Jacobians, the cost's deviations from the references and the \
              policy's from the plan in the orientations' tangent charts ({c} × {c} weights over each orientation's \
              body rotation vector and its rate), where `ilqr` in the quaternion state weighs the quaternions' \
              components ([`ilqr_tangent`](::routh::runtime::ilqr::ilqr_tangent))."
        );
        quote! {
            #[automatically_derived]
            impl #name {
                #[doc = #doc]
                ///
                /// # Errors
                /// [`FieldError`](::routh::runtime::FieldError): the field's errors at a stage, a non-finite step.
                pub fn rk4_step_tangent(&self, t: f64, x: &#state, u: [f64; #k], h: f64)
                    -> ::core::result::Result<__routh::step::TangentStep<#d, #c, #k>, __routh::FieldError>
                {
                    __routh::step::rk4_tangent_step::<Self, #p, #n, #d, #c, #k>(self, t, x, &__routh::Vector::from(u), h)
                }

                #[doc = #ilqr_doc]
                ///
                /// # Errors
                /// [`IlqrError`](::routh::runtime::ilqr::IlqrError): a malformed problem, a failed rollout of the guess.
                pub fn ilqr_tangent(
                    &self,
                    problem: &__routh::ilqr::IlqrProblem<#d, #k, #c>,
                    x0: &#state,
                    guess: &[__routh::Vector<#k>],
                ) -> ::core::result::Result<__routh::ilqr::IlqrSolution<#d, #k, #c>, __routh::ilqr::IlqrError> {
                    __routh::ilqr::ilqr_tangent::<Self, #p, #n, #d, #c, #k>(self, problem, x0, guess)
                }
            }
        }
    };
    let second_order = is_second_order(model).then(|| {
        quote! {
            /// x = (q, v) with q̇ = v: the semi-implicit Euler step map
            /// ([`SemiImplicitEuler`](::routh::runtime::step::SemiImplicitEuler)) applies.
            #[automatically_derived]
            impl __routh::step::SecondOrder for #name {}
        }
    });
    quote! {
        #tangent

        #second_order

        #[automatically_derived]
        impl __routh::step::InputJacobians<#d, #k> for #name {
            fn state_jacobian(&self, t: f64, x: &#state, u: &__routh::Vector<#k>)
                -> ::core::result::Result<__routh::Matrix<#d, #d>, __routh::FieldError>
            {
                self.driven(::core::array::from_fn(|i| u[i])).jacobian(t, x)
            }

            fn input_jacobian(&self, t: f64, x: &#state, u: &__routh::Vector<#k>)
                -> ::core::result::Result<__routh::Matrix<#d, #k>, __routh::FieldError>
            {
                self.driven(::core::array::from_fn(|i| u[i])).input_jacobian(t, x)
            }

            fn jacobians(&self, t: f64, x: &#state, u: &__routh::Vector<#k>)
                -> ::core::result::Result<(__routh::Matrix<#d, #d>, __routh::Matrix<#d, #k>), __routh::FieldError>
            {
                self.driven(::core::array::from_fn(|i| u[i])).__routh_linearization(t, x).map(|l| (l.a, l.b))
            }
        }
    }
}

/// Whether nothing of the model depends on time: its Lagrangian (bodies included), forces,
/// constraint rows, guards and impact laws are free of `t`.
fn autonomous(m: &View<'_>) -> bool {
    let t = m.layout.t;
    let free = |e: symbolic::Expr| !m.arena.depends_on(e, t);
    free(m.lagrangian)
        && m.force.iter().all(|&e| free(e))
        && m.constraints.iter().all(|c| c.position.is_none_or(free) && c.a.iter().all(|&e| free(e)) && free(c.b))
        && m.impacts.iter().all(|i| free(i.guard) && law_expressions(&i.law).into_iter().all(free))
}

/// Every expression an impact law is written with: its coefficients and rows, its post-impact
/// velocities, or its chart change.
fn law_expressions(law: &Law) -> Vec<symbolic::Expr> {
    match law {
        Law::Restitution(rows) => rows
            .iter()
            .flat_map(|(row, e)| {
                let mut out = vec![*e];
                match row {
                    crate::model::LawRow::Normal => {}
                    crate::model::LawRow::Form(f) => out.push(*f),
                    crate::model::LawRow::Velocities(a, b) => out.extend(a.iter().copied().chain([*b])),
                }
                out
            })
            .collect(),
        Law::Project { rows, .. } => rows.iter().flat_map(|(a, b)| a.iter().copied().chain([*b])).collect(),
        Law::Map(v) => v.clone(),
        Law::Chart { positions, velocities } => positions.iter().chain(velocities).copied().collect(),
    }
}

/// Whether a guard depends on the inputs: written with one, or a contact force's multiplier
/// (which every force moves).
fn guard_reads_inputs(m: &View<'_>, i: &crate::model::Impact) -> bool {
    matches!(i.trigger, Trigger::Multiplier(_)) || reads_inputs(m, i.guard)
}

/// Whether an impact law is written with an input.
fn law_reads_inputs(m: &View<'_>, law: &Law) -> bool {
    law_expressions(law).into_iter().any(|e| reads_inputs(m, e))
}

/// Whether `e` contains an input symbol.
fn reads_inputs(m: &View<'_>, e: symbolic::Expr) -> bool {
    m.arena.free_symbols(e).into_iter().any(|s| matches!(m.role(s), Some(Role::Input(_))))
}

/// `InputSystem::mode_guard_with_input` and `mode_reset_with_input` of a driven hybrid model: the
/// guards that the inputs move (written with one, or a contact force's multiplier) and the impact
/// laws written with one, through the view `view(self, u)` at the inputs; `None` for those of the
/// state alone (neither method for a model without them). And `mode_multipliers_with_input`, the
/// constraint forces at the inputs.
fn guards_with_input(view: &syn::Ident, table: &ModeTable, k: usize) -> TokenStream {
    let select = |keep: fn(&crate::emit::hybrid::GuardRow) -> bool| -> (Vec<usize>, Vec<usize>) {
        table
            .modes
            .iter()
            .enumerate()
            .flat_map(|(m, row)| row.guards.iter().enumerate().filter(move |(_, g)| keep(g)).map(move |(g, _)| (m, g)))
            .unzip()
    };
    let state = crate::emit::codegen::state_type(table.dim);
    let input = quote! { __routh::Vector<#k> };
    let (modes, guards) = select(|g| g.forced);
    let guard_item = (!modes.is_empty()).then(|| {
        quote! {
            fn mode_guard_with_input(&self, mode: usize, guard: usize, t: f64, x: &#state, u: &#input) -> ::core::option::Option<f64> {
                match (mode, guard) {
                    #( (#modes, #guards) )|* => {
                        ::core::option::Option::Some(__routh::HybridSystem::guard(&#view(self, *u), mode, guard, t, x))
                    }
                    _ => ::core::option::Option::None,
                }
            }
        }
    });
    let (modes, guards) = select(|g| g.law_reads_inputs);
    let reset_item = (!modes.is_empty()).then(|| {
        let fe = crate::emit::codegen::field_error();
        quote! {
            fn mode_reset_with_input(&self, mode: usize, guard: usize, t: f64, x: &#state, u: &#input)
                -> ::core::option::Option<::core::result::Result<(usize, #state), #fe>>
            {
                match (mode, guard) {
                    #( (#modes, #guards) )|* => {
                        ::core::option::Option::Some(__routh::HybridSystem::reset(&#view(self, *u), mode, guard, t, x))
                    }
                    _ => ::core::option::Option::None,
                }
            }
        }
    });
    quote! {
        #guard_item
        #reset_item

        fn mode_multipliers_with_input(&self, mode: usize, t: f64, x: &#state, u: &#input) -> ::std::vec::Vec<(&'static str, f64)> {
            __routh::HybridSystem::constraint_multipliers(&#view(self, *u), mode, t, x)
        }
    }
}

/// The system-level items of a model simulated on its own (e.g. a Routh-reduced system).
pub fn standalone(model: &View<'_>) -> TokenStream {
    single(model)
}

/// A model without modes: `simulate` (smooth, with events) or, with impacts, `IMPACTS`, the
/// hybrid `simulate` and `impl HybridSystem`.
fn single(model: &View<'_>) -> TokenStream {
    let check = check_parameters(std::slice::from_ref(model));
    let name = &model.name;
    if model.impacts.is_empty() {
        let (items, impls) = smooth_run(model, &check);
        let items = crate::emit::codegen::lazy(items);
        return quote! {
            #[automatically_derived]
            impl #name {
                #items
            }

            #impls
        };
    }
    let table = single_table(model, TokenStream::new(), quote! { #name });
    let family = parametric_model_impl(&table, name, &model.parameters, &sensitivity_fields(model));
    let hybrid = hybrid_system_impl(&table);
    let (run, run_impls) = hybrid_run(model);
    let items = crate::emit::codegen::lazy(quote! {
        #check

        #run
    });
    quote! {
        #[automatically_derived]
        impl #name {
            #items
        }

        #run_impls

        #hybrid

        #family
    }
}

/// The one-mode table of a single model with impacts, implemented on `ty` (the model, or the view
/// of a model with inputs).
fn single_table(model: &View<'_>, generics: TokenStream, ty: TokenStream) -> ModeTable {
    let d = model.layout.state_dim();
    ModeTable {
        generics,
        ty,
        dim: d,
        autonomous: autonomous(model),
        modes: vec![ModeRow {
            name: String::new(),
            access: quote! { (*self) },
            dim: d,
            positions: model.layout.position_dim(),
            guards: model
                .impacts
                .iter()
                .map(|i| GuardRow {
                    name: i.name.to_string(),
                    target: 0,
                    target_dim: d,
                    full_gradient: matches!(i.trigger, Trigger::Multiplier(_)) || model.layout.z.is_some(),
                    forced: guard_reads_inputs(model, i),
                    law_reads_inputs: law_reads_inputs(model, &i.law),
                })
                .collect(),
            zeno: Vec::new(),
            constraints: model.constraints.iter().map(|c| c.name.to_string()).collect(),
        }],
    }
}

/// `check_parameters` and the run of a single model without impacts: plain integration, or with
/// the constraints projected after every step. Returns the inherent items and the trait impls.
fn smooth_run(model: &View<'_>, check: &TokenStream) -> (TokenStream, TokenStream) {
    let (n, d, m) = (model.dof(), model.layout.state_dim(), model.constraints.len());
    let begin = start([model.model]);
    let (body, what) = if m == 0 {
        (quote! { #begin plan.integrate(self) }, "Adaptive integration into a `Trajectory`.")
    } else {
        (
            quote! { #begin plan.integrate_constrained::<Self, #n, #m>(self) },
            "Adaptive integration into a `Trajectory`, the state projected onto the constraints after every step \
             unless `Options::projection` is off (`Trajectory::constraints` reports the residuals).",
        )
    };
    let doc = crate::emit::run::doc(what);
    let (items, impls) = crate::emit::run::items(&model.name, &crate::emit::run::Kind::smooth(d), &doc, Some(body), None);
    (quote! { #check #items }, impls)
}

/// `IMPACTS` and the run of a single model with impacts (a one-mode hybrid system).
fn hybrid_run(model: &View<'_>) -> (TokenStream, TokenStream) {
    let d = model.layout.state_dim();
    let impacts = impacts_const(model);
    let doc = crate::emit::run::doc(
        "Every impact located on the dense output and its law applied: a `HybridTrajectory` recording each impact \
         (time, guard, pre- and post-state, energy jump), stopped early on Zeno accumulation, a stuck contact or the \
         impact limit (`HybridStop`).",
    );
    let (items, impls) = crate::emit::run::items(
        &model.name,
        &crate::emit::run::Kind::hybrid(d),
        &doc,
        Some({
            let begin = start([model.model]);
            quote! { #begin plan.hybrid(self) }
        }),
        None,
    );
    (quote! { #impacts #items }, impls)
}

/// Top-level items of a multi-mode model: mode views, per-mode state constructors, `simulate`,
/// and `impl HybridSystem` on the padded state (dimension = the largest mode's 2n; a mode uses a
/// prefix, the rest is zero).
fn multi(system: &System, modes: &[View<'_>], door: &Door) -> TokenStream {
    let name = &system.name;
    let check = check_parameters(modes);
    let dims: Vec<usize> = modes.iter().map(|m| m.layout.state_dim()).collect();
    let dmax = dims.iter().copied().max().unwrap_or(0);
    let count = modes.len();
    let mut mode_names = Vec::new();
    let mut consts = Vec::new();
    let mut accessors = Vec::new();
    let mut states = Vec::new();
    let mut views = Vec::new();
    let mut rows = Vec::new();
    for (k, m) in modes.iter().enumerate() {
        let Some((_, mode_ident)) = &m.mode else { continue };
        mode_names.push(mode_ident.to_string());
        let items = mode_items(system, m, (k, dmax), mode_ident, door);
        consts.push(items.constant);
        accessors.push(items.accessor);
        states.push(items.state);
        views.push(items.view);
        rows.push(mode_row(m, k, &dims));
    }
    let outputs = multi_mode_outputs(modes, &rows, dmax);
    let autonomous_all = modes.iter().all(autonomous);
    if let Some(first) = modes.first().filter(|m| !m.inputs.is_empty()) {
        let head = quote! {
            #check
            /// Names of the modes, in declaration order (their indices are the mode constants).
            pub const MODES: [&'static str; #count] = [#(#mode_names),*];
            /// Dimension of the padded state shared by all modes (the largest mode's 2n).
            pub const STATE_DIM: usize = #dmax;
            #(#consts)*
            #(#states)*
        };
        let parts = (head, quote! { #(#accessors)* #outputs }, quote! { #(#views)* });
        return multi_driven(system, first, (rows, autonomous_all), (dmax, door), parts);
    }
    let table =
        ModeTable { generics: TokenStream::new(), ty: quote! { #name }, dim: dmax, modes: rows, autonomous: autonomous_all };
    let hybrid = hybrid_system_impl(&table);
    let doc = crate::emit::run::doc(&modes_run_doc(&mode_names));
    let kind = crate::emit::run::Kind::modes(dmax);
    let (run_items, run_impls) = crate::emit::run::items(
        name,
        &kind,
        &doc,
        Some({
            let begin = start(&system.modes);
            quote! { #begin plan.hybrid(self) }
        }),
        None,
    );
    let family = match modes.first() {
        Some(first) => parametric_model_impl(&table, name, &first.parameters, &sensitivity_fields(first)),
        None => TokenStream::new(),
    };
    let items = crate::emit::codegen::lazy(quote! {
        #outputs
        #check
        /// Names of the modes, in declaration order (their indices are the mode constants).
        pub const MODES: [&'static str; #count] = [#(#mode_names),*];
        /// Dimension of the padded state shared by all modes (the largest mode's 2n).
        pub const STATE_DIM: usize = #dmax;
        #(#consts)*
        #(#accessors)*
        #(#states)*

        #run_items
    });
    quote! {
        #(#views)*

        #[automatically_derived]
        impl #name {
            #items
        }

        #run_impls

        #hybrid

        #family
    }
}

/// What a run of a model with modes does, for the rustdoc of its `run`.
fn modes_run_doc(modes: &[String]) -> String {
    let example = modes.first().map(|m| format!("`model.{m}_state(q, qdot)`")).unwrap_or_default();
    format!(
        "It starts in a mode: a `ModeState`, the mode and the state, built by each mode's `<mode>_state` (e.g. \
         {example}). Each mode's equations between events, each impact or transition located on the dense output and \
         its law applied (possibly changing mode): a `HybridTrajectory` recording every impact (time, guard, modes, \
         pre- and post-state, energy jump) and the mode of every sample."
    )
}

/// A system with modes and inputs: the struct gets its constants, state constructors, `driven(u)`,
/// its runs with `.inputs(signal)` (each mode's field at the signal's inputs, the guards and
/// resets of the system at any input: inputs enter the forces only) and `.sampled(law)`, and
/// `impl InputSystem` (mode by mode); the driven view `<Model>Driven` has the
/// mode views at fixed inputs, the outputs and `impl HybridSystem` (periodic orbits at fixed inputs).
fn multi_driven(
    system: &System,
    first: &View<'_>,
    (rows, autonomous_all): (Vec<ModeRow>, bool),
    (dmax, door): (usize, &Door),
    (head, driven_items, views): (TokenStream, TokenStream, TokenStream),
) -> TokenStream {
    let (name, vis) = (&system.name, &system.vis);
    let k = first.inputs.len();
    let driven = crate::emit::codegen::driven_type(name);
    let state = crate::emit::codegen::state_type(dmax);
    let inputs: Vec<String> = first.inputs.iter().map(ToString::to_string).collect();
    let table =
        ModeTable { generics: quote! { <'a> }, ty: quote! { #driven<'a> }, dim: dmax, modes: rows, autonomous: autonomous_all };
    let guards = guards_with_input(&driven, &table, k);
    let hybrid = hybrid_system_impl(&table);
    let modes: Vec<String> = table.modes.iter().map(|m| m.name.clone()).collect();
    let doc = crate::emit::run::doc(&format!(
        "{} The model has inputs: drive it with `.inputs(u)` — constant values (`[f64; {k}]`) or a feedback law, \
         any closure of (t, x) returning them — or `.sampled(period, law)`, a digital controller with a zero-order \
         hold; each mode's field at the signal's inputs, every impact and transition at any input (inputs enter the \
         forces only), so constant inputs are held across resets and a feedback law reads the state after each.",
        modes_run_doc(&modes)
    ));
    let begin = start(&system.modes);
    let driving = crate::emit::run::Driving {
        inputs: k,
        signal: quote! { #begin plan.hybrid_driven(&self.driven([0.0; #k]), self, signal) },
        sampled: quote! { #begin plan.sampled_hybrid(&self.driven([0.0; #k]), self, hold) },
    };
    let (run_items, run_impls) = crate::emit::run::items(name, &crate::emit::run::Kind::modes(dmax), &doc, None, Some(driving));
    // The linearisation in each mode, padded: the mode's A = ∂F/∂x and B = ∂F/∂u in the top rows
    // (and columns) of its prefix of the state.
    let mech = quote! { __routh::mechanics };
    let lin_arms = table.modes.iter().enumerate().map(|(i, row)| {
        let (accessor, dm) = (format_ident!("{}", row.name), row.dim);
        let xm = if dm == dmax {
            quote! { x }
        } else {
            quote! { &#mech::take::<#dmax, #dm>(x) }
        };
        quote! {
            #i => {
                let mode = v.#accessor();
                let (a, b) = (mode.jacobian(t, #xm)?, mode.input_jacobian(t, #xm)?);
                Ok(__routh::Linearization {
                    a: #mech::pad_matrix(&a),
                    b: __routh::Matrix::from_fn(|r, c| if r < #dm { b[(r, c)] } else { 0.0 }),
                })
            }
        }
    });
    let driven_doc = format!(
        " [`{name}`] at fixed values of its inputs ({}): the mode views with their whole API (mass matrix, forcing, \
          Jacobians with `input_jacobian` = ∂F/∂u, guards, resets, …), the outputs, and `HybridSystem` at these inputs \
          (periodic orbits, continuation).",
        inputs.join(", ")
    );
    let items = crate::emit::codegen::lazy(quote! {
        #head
        /// Names of the inputs, in the order of u.
        pub const INPUTS: [&'static str; #k] = [#(#inputs),*];

        /// The model at the input values `u`: the mode views and `HybridSystem`.
        #[must_use]
        pub fn driven(&self, u: [f64; #k]) -> #driven<'_> {
            #driven(self, __routh::Vector::from(u))
        }

        #run_items

        /// The linearisation x' ≈ F(t, x, u) + A δx + B δu in `mode` about the (padded) state `x` and inputs
        /// `u`: the mode's A = ∂F/∂x and B = ∂F/∂u from symbolic derivatives, in the rows and columns of its
        /// prefix of the state (zero elsewhere).
        ///
        /// # Errors
        /// [`FieldError::SingularMassMatrix`](::routh::runtime::FieldError) if M is singular at `x`;
        /// [`FieldError::NonFinite`](::routh::runtime::FieldError) for a mode out of range.
        pub fn linearize(&self, mode: usize, t: f64, x: &#state, u: [f64; #k])
            -> ::core::result::Result<__routh::Linearization<#dmax, #k>, __routh::FieldError>
        {
            let v = self.driven(u);
            match mode {
                #(#lin_arms)*
                _ => Err(__routh::FieldError::NonFinite { t }),
            }
        }
    });
    quote! {
        #views

        #[doc = #driven_doc]
        #[derive(Clone, Copy)]
        #vis struct #driven<'a>(pub &'a #name, pub #door::Vector<#k>);

        #[automatically_derived]
        impl<'a> #driven<'a> {
            #driven_items
        }

        #[automatically_derived]
        impl #name {
            #items
        }

        #[automatically_derived]
        impl __routh::InputSystem<#dmax, #k> for #name {
            /// The first mode's field (a system with modes is driven mode by mode:
            /// [`mode_field_with_input`](::routh::runtime::HybridInputSystem::mode_field_with_input)).
            fn field_with_input(&self, t: f64, x: &#state, u: &__routh::Vector<#k>)
                -> ::core::result::Result<#state, __routh::FieldError>
            {
                __routh::HybridSystem::mode_field(&#driven(self, *u), 0, t, x)
            }

            fn input_names(&self) -> &'static [&'static str] {
                &Self::INPUTS
            }
        }

        #[automatically_derived]
        impl __routh::HybridInputSystem<#dmax, #k> for #name {
            fn mode_field_with_input(&self, mode: usize, t: f64, x: &#state, u: &__routh::Vector<#k>)
                -> ::core::result::Result<#state, __routh::FieldError>
            {
                __routh::HybridSystem::mode_field(&#driven(self, *u), mode, t, x)
            }

            #guards
        }

        #run_impls

        #hybrid
    }
}

/// The items of one mode of a system with modes: its index constant, its view type, the accessor
/// of the view (on the system, or on its driven view with inputs) and the constructor of a padded
/// state of the mode.
struct ModeItems {
    constant: TokenStream,
    accessor: TokenStream,
    state: TokenStream,
    view: TokenStream,
}

fn mode_items(system: &System, m: &View<'_>, (k, dmax): (usize, usize), mode_ident: &syn::Ident, door: &Door) -> ModeItems {
    let state = &crate::emit::codegen::state_type(dmax);
    let (name, vis) = (&system.name, &system.vis);
    let mode_str = mode_ident.to_string();
    let view = mode_type(name, mode_ident);
    let (n, p) = (m.dof(), m.layout.position_dim());
    let upper = format_ident!("{}", mode_str.to_uppercase());
    let state_fn = format_ident!("{mode_str}_state");
    let coords: Vec<String> = m.coordinates.iter().map(ToString::to_string).collect();
    let list = coords.join(", ");
    let view_doc = format!(
        " Mode `{mode_str}` of [`{name}`], coordinates ({list}): the full single-mode API (mass matrix, \
         energy, Jacobian, guards and resets of the transitions leaving this mode)."
    );
    let const_doc = format!(" Index of mode `{mode_str}`.");
    let (state_params, _) = crate::emit::codegen::state_arguments(m);
    let action_set = if m.layout.z.is_some() {
        quote! { x[#p + #n] = z; }
    } else {
        TokenStream::new()
    };
    let state_doc = match &m.action {
        Some(z) => {
            format!(
                " The start of a run in mode `{mode_str}` ([`Self::{upper}`]) from its positions and velocities ({list}) and \
                 the action `{z}`: the mode and the padded state."
            )
        }
        None => format!(
            " The start of a run in mode `{mode_str}` ([`Self::{upper}`]) from its positions and velocities ({list}): the mode \
             and the padded state."
        ),
    };
    let inputs = m.inputs.len();
    let (accessor, view_fields) = if inputs == 0 {
        let accessor_doc = format!(" View of this model in mode `{mode_str}`.");
        (
            quote! {
                #[doc = #accessor_doc]
                #[must_use]
                pub fn #mode_ident(&self) -> #view<'_> { #view(self) }
            },
            quote! { pub &'a #name },
        )
    } else {
        let accessor_doc = format!(" View of this model in mode `{mode_str}` at these input values.");
        (
            quote! {
                #[doc = #accessor_doc]
                #[must_use]
                pub fn #mode_ident(&self) -> #view<'a> { #view(self.0, self.1) }
            },
            quote! { pub &'a #name, pub #door::Vector<#inputs> },
        )
    };
    ModeItems {
        constant: quote! { #[doc = #const_doc] pub const #upper: usize = #k; },
        accessor,
        state: quote! {
            #[doc = #state_doc]
            #[must_use]
            pub fn #state_fn(&self, #state_params) -> __routh::ModeState<#dmax> {
                let mut x = <#state>::zeros();
                for i in 0..#p {
                    x[i] = q[i];
                }
                for i in 0..#n {
                    x[#p + i] = qdot[i];
                }
                #action_set
                __routh::ModeState::new(Self::#upper, x)
            }
        },
        view: quote! {
            #[doc = #view_doc]
            #[derive(Clone, Copy)]
            #vis struct #view<'a>(#view_fields);
        },
    }
}

/// `OUTPUTS` and `observe` of a multi-mode model with `output(...)`: each sample's outputs from its
/// mode's view (whose `outputs` take the mode's prefix of the padded state).
fn multi_mode_outputs(modes: &[View<'_>], rows: &[ModeRow], dmax: usize) -> TokenStream {
    let Some(first) = modes.first().filter(|m| !m.outputs.is_empty()) else { return TokenStream::new() };
    let names: Vec<&String> = first.outputs.iter().map(|(n, _)| n).collect();
    let k = names.len();
    let sv = crate::emit::codegen::state_type(dmax);
    let arms = rows.iter().enumerate().map(|(i, row)| {
        let (access, dm) = (&row.access, row.dim);
        let x = if dm == dmax {
            quote! { x }
        } else {
            quote! { &__routh::mechanics::take::<#dmax, #dm>(x) }
        };
        quote! { #i => #access.outputs(t, #x).to_vec(), }
    });
    quote! {
        /// Names of the outputs (`output(...)`, the same columns in every mode): the columns of
        /// [`Self::observe`].
        pub const OUTPUTS: [&'static str; #k] = [#(#names),*];

        /// The outputs at every sample of a hybrid run (a `HybridTrajectory`, or a sampled run's:
        /// `model.observe(&traj)`), each in its sample's mode
        /// ([`Observables`](::routh::runtime::observables::Observables)); NaN for a mode index out of range.
        #[must_use]
        pub fn observe(&self, run: &impl __routh::observables::ModeSamples<#dmax>) -> __routh::observables::Observables {
            let samples: ::std::vec::Vec<(usize, #sv)> = run.modes().iter().copied().zip(run.states().iter().copied()).collect();
            __routh::observables::Observables::evaluate(&Self::OUTPUTS, run.times(), &samples, |t, (mode, x)| match *mode {
                #(#arms)*
                _ => ::std::vec![f64::NAN; #k],
            })
        }
    }
}

/// The row of mode `k` (`m`) in the `HybridSystem` table: its guards with their targets, its Zeno
/// completions, whether it is constrained. `dims` are the modes' state dimensions.
fn mode_row(m: &View<'_>, k: usize, dims: &[usize]) -> ModeRow {
    let Some((_, mode_ident)) = &m.mode else { unreachable!("a mode of a system with modes") };
    ModeRow {
        name: mode_ident.to_string(),
        access: quote! { self.#mode_ident() },
        dim: m.layout.state_dim(),
        positions: m.layout.position_dim(),
        guards: m
            .impacts
            .iter()
            .filter(|i| !matches!(i.trigger, Trigger::Zeno(_)))
            .map(|i| {
                let target = i.target.unwrap_or(k);
                let full_gradient = matches!(i.trigger, Trigger::Multiplier(_)) || m.layout.z.is_some();
                GuardRow {
                    name: i.name.to_string(),
                    target,
                    target_dim: dims[target],
                    full_gradient,
                    forced: guard_reads_inputs(m, i),
                    law_reads_inputs: law_reads_inputs(m, &i.law),
                }
            })
            .collect(),
        zeno: m
            .impacts
            .iter()
            .filter_map(|i| match i.trigger {
                Trigger::Zeno(accumulating) => {
                    // The guard list is the mode's impacts without the Zeno transitions.
                    let guard = m.impacts[..accumulating].iter().filter(|j| !matches!(j.trigger, Trigger::Zeno(_))).count();
                    let target = i.target.unwrap_or(k);
                    Some(ZenoRow { guard, name: i.name.to_string(), target, target_dim: dims[target] })
                }
                _ => None,
            })
            .collect(),
        constraints: m.constraints.iter().map(|c| c.name.to_string()).collect(),
    }
}

/// The `sensitivity(...)` parameters' fields, in their column order.
fn sensitivity_fields<'m>(m: &'m View<'_>) -> Vec<&'m syn::Ident> {
    m.sensitivity.iter().map(|&i| &m.parameters[i]).collect()
}

/// `IMPACTS`: the names of a single model's impacts (guards), in declaration order.
fn impacts_const(model: &View<'_>) -> TokenStream {
    let count = model.impacts.len();
    let names: Vec<String> = model.impacts.iter().map(|i| i.name.to_string()).collect();
    quote! {
        /// Names of the impacts (guards), in declaration order.
        pub const IMPACTS: [&'static str; #count] = [#(#names),*];
    }
}
