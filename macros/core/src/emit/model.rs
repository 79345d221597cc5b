//! Emission of the generated Rust items (quote) from the derived equations.
//!
//! Every numeric function is straight-line code produced by [`symbolic::emit`] (common
//! subexpressions always eliminated). States are `x = (q, q̇)` as `SVector<f64, 2n>`; parameters are
//! read from `self`. The generated items:
//!
//! - inherent consts `DOF`, `STATE_DIM`, `COORDINATES`, and methods `state`, `mass_matrix`, `forcing`,
//!   `accelerations`, `lagrangian`, `energy`, `momenta`, `power`, `jacobian`, and `run` (see
//!   [`crate::emit::run`]), each documented with its derived formula;
//! - `impl routh::runtime::VectorField<2n>` (x' = (q̇, M⁻¹f)) and, with impacts,
//!   `impl routh::runtime::HybridSystem<2n>` ([`crate::emit::impact`]).

use proc_macro2::TokenStream;
use quote::quote;
use symbolic::Expr;

use crate::derive::Derived;
use crate::derive::euler_lagrange::Equations;
use crate::emit::codegen::{Helpers, Owner, allow_generated, square_matrix, state_arguments};
use crate::emit::dynamics;
use crate::model::View;
use crate::notation::{display_name, doc_block, doc_text, formula, formula_lines};

/// The whole expansion for one model.
/// `dims[k]` is the state dimension of mode k of the system (a transition's target state).
pub fn emit(model: &View<'_>, derived: &Derived, dims: &[usize]) -> TokenStream {
    let Derived { equations: eq, impacts, symmetries, constraints, discrete, .. } = derived;
    let n = model.dof();
    let d = model.layout.state_dim();

    let mut helpers = Helpers::default();
    // The dynamics contract: M and f, the accelerations, the field Jacobian (see `emit::dynamics`).
    let Docs { m_doc, f_doc, l_doc, e_doc, p_doc, pw_doc, q_doc, state_doc, dim_doc } = docs(model, eq, derived.form.kinetics());
    // M and f in the mode's form, and the mass operator the runtime solves with.
    let crate::emit::form::MassAndForcing { items: dyn_item, mass_matrix, forcing, operator, inverse_dynamics } =
        crate::emit::form::of(model, derived, &mut helpers, &m_doc);
    // Scalars and momenta: L, E, p, Q·q̇.
    let quantities = quantities(model, eq, derived.form.kinetics(), &[l_doc, e_doc, p_doc, pw_doc, q_doc], &mut helpers);

    let dynamics::Dynamics {
        accelerations: acc_method,
        jacobian: jac_method,
        methods: constraint_items,
        impls: constraint_impl,
        inverse_dynamics_jacobian: has_id_jacobian,
        tangent: has_tangent,
    } = dynamics::accelerations_and_jacobian(model, (eq, constraints.as_ref()), (&derived.form, &operator), &mut helpers);

    let symmetry_items = crate::emit::symmetry::methods(model, symmetries, derived.algebra.as_ref(), &mut helpers);
    let (discrete_items, discrete_impl) = match discrete {
        Some(crate::derive::discrete::Discrete::Euclidean(de)) => crate::emit::discrete::emit(model, de, &mut helpers),
        Some(crate::derive::discrete::Discrete::Oriented(oe)) => crate::emit::discrete::oriented::emit(model, oe, &mut helpers),
        None => (TokenStream::new(), TokenStream::new()),
    };

    // Guards and resets of the impacts (how the model simulates as a whole is emitted per system,
    // see `emit::system`).
    let mut simulate_items = crate::emit::impact::methods(model, impacts, dims, &mut helpers);
    simulate_items.extend(crate::emit::impact::arrival(model, derived.arrival.as_ref(), &mut helpers));

    // `inverse_dynamics_jacobian` where the model has it, for `DynModel` (which asks every model).
    let erased_id_jacobian = {
        let body = if has_id_jacobian {
            quote! { ::core::option::Option::Some(self.inverse_dynamics_jacobian(t, x, qdd)) }
        } else {
            quote! {{
                let _ = (t, x, qdd);
                ::core::option::Option::None
            }}
        };
        quote! {
            /// `inverse_dynamics_jacobian`, or `None` where the model does not generate it.
            #[allow(clippy::type_complexity)]
            fn __routh_inverse_dynamics_jacobian(&self, t: f64, x: &__routh::State<#d>, qdd: &__routh::Vector<#n>)
                -> ::core::option::Option<::core::result::Result<(__routh::Matrix<#n, #n>, __routh::Matrix<#n, #n>), __routh::FieldError>>
            {
                #body
            }
        }
    };
    // `linearize_tangent` where the model has it, for `DynModel` likewise.
    let erased_tangent = {
        let body = if has_tangent {
            quote! { ::core::option::Option::Some(self.linearize_tangent(t, x)) }
        } else {
            quote! {{
                let _ = (t, x);
                ::core::option::Option::None
            }}
        };
        quote! {
            /// `linearize_tangent`, or `None` where the model does not generate it.
            fn __routh_linearize_tangent(&self, t: f64, x: &__routh::State<#d>)
                -> ::core::option::Option<::core::result::Result<__routh::linearize::ConstrainedLinearization, __routh::linearize::LinearizeError>>
            {
                #body
            }
        }
    };
    let mechanical_impl = crate::emit::form::mechanical_system_impl(model, &operator);
    let (field_from, contact_items) = contact_items(model, eq, &mut helpers);
    let dynamics_name = derived.form.name(constraints.is_some());
    let constants = constants_and_state(model, &state_doc, dim_doc, dynamics_name);
    let outputs = outputs_items(model, &derived.outputs, &mut helpers);
    let n_lit = n;

    let items = crate::emit::codegen::lazy(quote! {
        #constants

        /// The first-order field F(t, x) from the accelerations `a` at `x`.
        #[inline]
        fn __routh_field_from(&self, t: f64, x: &__routh::State<#d>, a: &__routh::Vector<#n_lit>)
            -> __routh::State<#d>
        {
            #field_from
        }

        #contact_items

        #dyn_item

        #mass_matrix

        #f_doc
        #[must_use]
        pub fn forcing(&self, t: f64, x: &__routh::State<#d>) -> __routh::Vector<#n_lit> {
            #forcing
        }

        /// Inverse dynamics: the generalized forces τ = M(t, q) q̈ − f(t, q, q̇) that, added to the
        /// model's own, give the accelerations `qdd` at the state `x` (the rates of the velocities;
        /// constraints not included: the unconstrained model's). One Newton–Euler pass along spatial
        /// links (O(n)); else M q̈ from the generated product M a (M by columns), along the tree of a
        /// recursive planar model, or from M's entries.
        ///
        /// # Errors
        /// [`FieldError::NonFinite`](::routh::runtime::FieldError) where M cannot be evaluated.
        pub fn inverse_dynamics(&self, t: f64, x: &__routh::State<#d>, qdd: &__routh::Vector<#n_lit>)
            -> ::core::result::Result<__routh::Vector<#n_lit>, __routh::FieldError>
        {
            #inverse_dynamics
        }

        /// The static generalized forces −f(t, q, 0): what holds the model still at its positions
        /// (gravity, springs, forces of the positions): the inverse dynamics at zero velocity and
        /// acceleration. From a function of its own derived at rest, which computes no velocity
        /// term (along a tree, gravity compensation's pass).
        #[must_use]
        pub fn static_forces(&self, t: f64, x: &__routh::State<#d>) -> __routh::Vector<#n_lit> {
            -self.__routh_static_forcing(t, x)
        }

        /// The velocity-dependent generalized forces f(t, q, 0) − f(t, q, q̇): Coriolis and
        /// centrifugal forces C(q, q̇) q̇ and the forces that depend on the velocities (damping):
        /// `inverse_dynamics` = M q̈ + `static_forces` + `velocity_forces`.
        #[must_use]
        pub fn velocity_forces(&self, t: f64, x: &__routh::State<#d>) -> __routh::Vector<#n_lit> {
            self.__routh_static_forcing(t, x) - self.forcing(t, x)
        }

        #acc_method

        #erased_id_jacobian

        #erased_tangent

        #quantities

        #jac_method

        #constraint_items

        #simulate_items
        #symmetry_items
        #discrete_items
        #outputs
    });
    let vector_field = vector_field_impl(model);
    let own = with_helpers(model, helpers, &items);
    quote! {
        #own

        #constraint_impl
        #discrete_impl
        #mechanical_impl

        #vector_field
    }
}

/// The constants `DOF`, `STATE_DIM`, `COORDINATES`, `STATE_NAMES` and the `state` constructor.
fn constants_and_state(model: &View<'_>, state_doc: &str, dim_doc: &str, dynamics: &str) -> TokenStream {
    let (n, d, nq) = (model.dof(), model.layout.state_dim(), model.layout.position_dim());
    let coord_names: Vec<String> = model.coordinates.iter().map(ToString::to_string).collect();
    let state_names = state_names(model);
    let (state_params, state_new) = state_arguments(model);
    quote! {
        /// Number of degrees of freedom n (velocities; the generalized coordinates but for an
        /// orientation, whose quaternion's four components have three angular velocities).
        pub const DOF: usize = #n;
        /// How [`Self::accelerations`] are computed: `"recursive"` (the articulated-body recursion
        /// along the model's kinematic tree, O(n)), `"dense"` (M q̈ = f, M formed from its entries and
        /// factored), `"columns"` (the same, M formed column by column from its products M eⱼ) or
        /// `"constrained"` (the saddle-point system of the constraints).
        pub const DYNAMICS: &'static str = #dynamics;
        #[doc = #dim_doc]
        pub const STATE_DIM: usize = #d;
        /// Names of the generalized coordinates, in state order.
        pub const COORDINATES: [&'static str; #nq] = [#(#coord_names),*];
        /// Names of the state's components, in order: the coordinates, their velocities `dot(q)`
        /// (and the action variable): CSV headers and plot labels
        /// (`Trajectory::write_csv`).
        pub const STATE_NAMES: [&'static str; #d] = [#(#state_names),*];

        #[doc = #state_doc]
        #[must_use]
        pub fn state(&self, #state_params) -> __routh::State<#d> {
            #state_new
        }
    }
}

/// `OUTPUTS`, `outputs`, `observe` and, where it is derived, `output_jacobian` of a model with
/// `output(...)` (nothing otherwise).
fn outputs_items(model: &View<'_>, derived: &crate::derive::output::Outputs, helpers: &mut Helpers) -> TokenStream {
    if model.outputs.is_empty() {
        return TokenStream::new();
    }
    let (exprs, bindings) = (&derived.values, &derived.bindings);
    let (d, k) = (model.layout.state_dim(), model.outputs.len());
    let names: Vec<&String> = model.outputs.iter().map(|(n, _)| n).collect();
    // Outputs of `multiplier(c)` read the constraint forces λ of the saddle-point solve at x.
    let with_multipliers = exprs.iter().any(|&e| {
        model.arena.free_symbols(e).into_iter().any(|s| matches!(model.role(s), Some(crate::layout::Role::Multiplier(_))))
    });
    let (lam, lam_doc) = if with_multipliers {
        let m = model.constraints.len();
        (
            quote! {
                let lam = self.constraint_forces(t, x)
                    .unwrap_or_else(|_| __routh::Vector::<#m>::repeat(f64::NAN));
            },
            " λ are the constraint forces (`constraint_forces`); where they cannot be solved for, those outputs are NaN.",
        )
    } else {
        (TokenStream::new(), "")
    };
    let none = TokenStream::new();
    let (stmts, vals) = helpers.body_bound(model, bindings, exprs, "__routh_outputs", &none, &none);
    // With E along the kinematic tree (`bindings`), the outputs as written (E named, not expanded).
    let shown: Vec<Expr> = if bindings.is_empty() { exprs.to_vec() } else { model.outputs.iter().map(|(_, e)| *e).collect() };
    let lines = formula_lines(model, model.outputs.iter().zip(&shown).map(|((n, _), e)| (n.clone(), *e)).collect());
    let jacobian = output_jacobian_item(model, &derived.jacobian, helpers);
    // C row by row for the erased model, or why it is absent (and the outputs' rustdoc says so).
    let (rows, absent) = match &derived.jacobian {
        crate::derive::output::Jacobian::Rows { .. } => {
            (quote! { ::core::result::Result::Ok(self.output_jacobian(t, x).transpose().as_slice().to_vec()) }, String::new())
        }
        crate::derive::output::Jacobian::Absent(why) => (
            quote! { { let _ = (t, x); ::core::result::Result::Err(#why) } },
            format!(" Their Jacobian `output_jacobian` is not generated: {why}."),
        ),
    };
    let doc = doc_block(&format!(" The outputs at the state `x` (in the order of [`Self::OUTPUTS`]).{lam_doc}{absent}"), &lines);
    let allow = allow_generated();
    quote! {
        /// Names of the outputs (`output(...)`; a vector `p` gives `p[0]`, `p[1]`, `p[2]`): the columns of
        /// [`Self::observe`].
        pub const OUTPUTS: [&'static str; #k] = [#(#names),*];

        #doc
        #allow
        #[must_use]
        pub fn outputs(&self, t: f64, x: &__routh::State<#d>) -> [f64; #k] {
            #lam
            #(#stmts)*
            [#(#vals),*]
        }

        /// The outputs at every sample of a run (a `Trajectory`, a `HybridTrajectory`, a sampled run:
        /// `model.observe(&traj)`): columns by name, CSV with named columns, serde
        /// ([`Observables`](::routh::runtime::observables::Observables)).
        #[must_use]
        pub fn observe(&self, run: &impl __routh::observables::Samples<#d>) -> __routh::observables::Observables {
            __routh::observables::Observables::evaluate(&Self::OUTPUTS, run.times(), run.states(), |t, x| self.outputs(t, x).to_vec())
        }

        #jacobian

        /// C row by row (`output_jacobian`), or why it is not generated (the erased model's glue).
        #[allow(dead_code)]
        fn __routh_output_jacobian_rows(&self, t: f64, x: &__routh::State<#d>)
            -> ::core::result::Result<::std::vec::Vec<f64>, &'static str>
        {
            #rows
        }
    }
}

/// `output_jacobian`: C = ∂y/∂x, its non-zero entries from their formulas (nothing where C is
/// not derived; the outputs' rustdoc says why).
fn output_jacobian_item(model: &View<'_>, jacobian: &crate::derive::output::Jacobian, helpers: &mut Helpers) -> TokenStream {
    let crate::derive::output::Jacobian::Rows { bindings, rows, shown } = jacobian else {
        return TokenStream::new();
    };
    let (d, k) = (model.layout.state_dim(), model.outputs.len());
    let zero = model.arena.zero();
    let states = model.layout.state_symbols();
    let entries: Vec<(usize, usize, Expr)> = rows
        .iter()
        .enumerate()
        .flat_map(|(i, row)| row.iter().enumerate().filter(|&(_, &e)| e != zero).map(move |(j, &e)| (i, j, e)))
        .collect();
    let exprs: Vec<Expr> = entries.iter().map(|&(_, _, e)| e).collect();
    let none = TokenStream::new();
    let (stmts, vals) = helpers.body_bound(model, bindings, &exprs, "__routh_output_jacobian", &none, &none);
    let sets = entries.iter().zip(&vals).map(|(&(i, j, _), v)| quote! { c[(#i, #j)] = #v; });
    let lines = formula_lines(
        model,
        entries
            .iter()
            .map(|&(i, j, _)| {
                let name = &model.outputs[i].0;
                (format!("∂{name}/∂{}", crate::notation::display_name(model, states[j])), shown[i][j])
            })
            .collect(),
    );
    let along_tree = if bindings.is_empty() {
        ""
    } else {
        " E is computed along the kinematic tree, and ∂E/∂xⱼ (its gradient) by reverse mode through that pass."
    };
    let doc = doc_block(
        &format!(
            " The outputs' Jacobian C = ∂y/∂x at the state `x` (row i: output i of [`Self::OUTPUTS`]; column j: \
          component j of the state), from symbolic derivatives — with the linearisation's A and B the linear \
          model δẋ = A δx + B δu, δy = C δx (the outputs never read the inputs: ∂y/∂u = 0); for a point of \
          the model, its Jacobian ∂p/∂q in the first columns. Over an orientation's quaternion components, \
          the derivatives of the outputs in R(q/|q|).{along_tree} Its non-zero entries:"
        ),
        &lines,
    );
    let allow = allow_generated();
    quote! {
        #doc
        #allow
        #[must_use]
        pub fn output_jacobian(&self, t: f64, x: &__routh::State<#d>) -> __routh::Matrix<#k, #d> {
            #(#stmts)*
            let mut c = __routh::Matrix::<#k, #d>::zeros();
            #(#sets)*
            c
        }
    }
}

/// `impl VectorField`: x' = F(t, x) from the accelerations.
fn vector_field_impl(model: &View<'_>) -> TokenStream {
    let d = model.layout.state_dim();
    let owner = Owner::of(model);
    let (ty, generics) = (&owner.ty, &owner.generics);
    let field_items = crate::emit::codegen::lazy(quote! {
        #[inline]
        fn field(&self, t: f64, x: &__routh::State<#d>)
            -> ::core::result::Result<__routh::State<#d>, __routh::FieldError>
        {
            let a = self.accelerations(t, x)?;
            Ok(self.__routh_field_from(t, x, &a))
        }
    });
    // The implicit method uses the generated Jacobian instead of differences.
    let jacobian_item = model.field_jacobian.then(|| {
        quote! {
            #[inline]
            fn exact_jacobian(&self, t: f64, x: &__routh::State<#d>)
                -> ::core::option::Option<::core::result::Result<__routh::Matrix<#d, #d>, __routh::FieldError>>
            {
                ::core::option::Option::Some(self.jacobian(t, x))
            }
        }
    });
    quote! {
        #[automatically_derived]
        impl #generics __routh::VectorField<#d> for #ty {
            #field_items
            #jacobian_item
        }
    }
}

/// `lagrangian`, `energy`, `momenta` and `power`, with their rustdoc `docs` (L, E, p, Q·q̇, and the
/// force one-form shown with the power).
fn quantities(
    model: &View<'_>,
    eq: &Equations,
    kinetics: Option<&crate::derive::dynamics::Kinetics>,
    docs: &[TokenStream; 5],
    helpers: &mut Helpers,
) -> TokenStream {
    let (d, n_lit) = (model.layout.state_dim(), model.dof());
    let none = TokenStream::new();
    let mut straight_line = |bindings: &[(Expr, Expr)], outputs: &[Expr], name: &str| {
        helpers.body_bound(model, bindings, outputs, name, &none, &none)
    };
    let ((l_stmts, l_vals), (e_stmts, e_vals), (p_stmts, p_vals)) = match kinetics {
        None => (
            straight_line(&[], &[model.lagrangian], "__routh_lagrangian"),
            straight_line(&[], &[eq.energy], "__routh_energy"),
            straight_line(&[], &eq.momenta, "__routh_momenta"),
        ),
        Some(k) => (
            straight_line(&k.lagrangian.bindings, &k.lagrangian.outputs, "__routh_lagrangian"),
            straight_line(&k.energy.bindings, &k.energy.outputs, "__routh_energy"),
            straight_line(&k.momenta.bindings, &k.momenta.outputs, "__routh_momenta"),
        ),
    };
    let (pw_stmts, pw_vals) = straight_line(&[], &[eq.power], "__routh_power");
    let [l_doc, e_doc, p_doc, pw_doc, q_doc] = docs;
    let allow = allow_generated();
    quote! {
    #l_doc
    #allow
    #[must_use]
    pub fn lagrangian(&self, t: f64, x: &__routh::State<#d>) -> f64 {
        #(#l_stmts)*
        #(#l_vals)*
    }

    #e_doc
    #allow
    #[must_use]
    pub fn energy(&self, t: f64, x: &__routh::State<#d>) -> f64 {
        #(#e_stmts)*
        #(#e_vals)*
    }

    #p_doc
    #allow
    #[must_use]
    pub fn momenta(&self, t: f64, x: &__routh::State<#d>) -> __routh::Vector<#n_lit> {
        #(#p_stmts)*
        __routh::Vector::<#n_lit>::from([#(#p_vals),*])
    }

    #pw_doc
    ///
    #q_doc
    #allow
    #[must_use]
    pub fn power(&self, t: f64, x: &__routh::State<#d>) -> f64 {
        #(#pw_stmts)*
        #(#pw_vals)*
    }
    }
}

/// The Lagrangian of a model with bodies, with each body's kinematics: the mass centre r, its
/// velocity ṙ and the body angular velocity ω (body components).
fn body_lagrangian_doc(model: &View<'_>) -> TokenStream {
    let mut lines = Vec::new();
    for b in &model.bodies {
        let name = &b.name;
        let vec = |v: &symbolic::Vec3| format!("({})", v.iter().map(|&c| formula(model, c)).collect::<Vec<_>>().join(", "));
        lines.push((format!("r_{name}"), vec(&b.centre)));
        lines.push((format!("ṙ_{name}"), vec(&b.velocity)));
        if let Some(r) = &b.rotation {
            lines.push((format!("ω_{name}"), vec(&r.rate)));
        }
    }
    lines.push(("L".into(), formula(model, model.lagrangian)));
    doc_block(
        "The Lagrangian L(t, q, q̇): the bodies' energies Σ ½ m |ṙ|² + ½ ωᵀ I ω + m g·r (r: mass centre, inertial \
         components; ω = vee(RᵀṘ): body angular velocity, body components; I: inertia about the mass centre) plus the \
         Lagrangian as written.",
        &lines,
    )
}

/// The rustdoc of a model's own items, each with its derived formulas.
/// Fields named as the templates use them: M, f, L, E, p, Q·q̇, Q, the state constructor and the
/// state dimension.
struct Docs {
    m_doc: TokenStream,
    f_doc: TokenStream,
    l_doc: TokenStream,
    e_doc: TokenStream,
    p_doc: TokenStream,
    pw_doc: TokenStream,
    q_doc: TokenStream,
    state_doc: String,
    dim_doc: &'static str,
}

fn docs(model: &View<'_>, eq: &Equations, kinetics: Option<&crate::derive::dynamics::Kinetics>) -> Docs {
    let n = model.dof();
    let q_disp: Vec<String> = model.layout.q.iter().map(|&s| display_name(model, s)).collect();
    let v_disp: Vec<String> = model.layout.qd.iter().map(|&s| display_name(model, s)).collect();
    let coords_list = q_disp.join(", ");
    let [m_doc, f_doc, l_doc, e_doc, p_doc] = match kinetics {
        None => dense_docs(model, eq, &q_disp, &v_disp),
        Some(k) if k.mass_entries.is_some() || k.mass_links.is_some() => {
            spatial_docs(model, eq, &coords_list, k.mass_entries.is_some())
        }
        Some(_) => tree_docs(model, eq, &coords_list),
    };
    let pw_doc = doc_block(
        "Power of the generalized forces, Q·q̇. With ∂L/∂t = 0 it equals dE/dt along solutions.",
        &[("Q·q̇".into(), formula(model, eq.power))],
    );
    let q_lines: Vec<(String, String)> = (0..n).map(|i| (format!("Q[{}]", i + 1), formula(model, model.force[i]))).collect();
    let q_doc = doc_block("Generalized force one-form Q = Σ Qᵢ dqᵢ, as declared.", &q_lines);
    let state_doc = match &model.action {
        None if !model.layout.orientations.is_empty() => format!(
            " The state x = (q, v) = ({coords_list}, {}) from the coordinates (each orientation's quaternion (w, x, y, z), \
             any norm: only q/|q| matters) and the velocities (each orientation's body angular velocity).",
            v_disp.join(", ")
        ),
        None => format!(" The state x = (q, q̇) = ({coords_list}, {}) from positions and velocities.", v_disp.join(", ")),
        Some(z) => format!(
            " The state x = (q, q̇, {z}) = ({coords_list}, {}, {z}) from positions, velocities and the action `{z}`.",
            v_disp.join(", ")
        ),
    };
    let dim_doc = if !model.layout.orientations.is_empty() {
        " Dimension of the first-order state x = (q, v): the coordinates (four quaternion components per \
         orientation) and the n velocities (three body angular velocities per orientation)."
    } else if model.action.is_some() {
        " Dimension of the first-order state x = (q, q̇, z), 2n + 1."
    } else {
        " Dimension of the first-order state x = (q, q̇), 2n."
    };
    Docs { m_doc, f_doc, l_doc, e_doc, p_doc, pw_doc, q_doc, state_doc, dim_doc }
}

/// The rustdoc of M, f, L, E and p with their derived formulas.
fn dense_docs(model: &View<'_>, eq: &Equations, q_disp: &[String], v_disp: &[String]) -> [TokenStream; 5] {
    let n = model.dof();
    let coords_list = q_disp.join(", ");
    let m_entries =
        (0..n).flat_map(|i| (i..n).map(move |j| (i, j))).map(|(i, j)| (format!("M[{},{}]", i + 1, j + 1), eq.mass[i][j]));
    let m_lines = formula_lines(model, m_entries.collect());
    let m_doc = doc_block(
        &if model.layout.orientations.is_empty() {
            let formed = if eq.mass_product.is_some() {
                " It is formed column by column from n products M eⱼ of M a = Σⱼ ∂p/∂q̇ⱼ aⱼ, not from these formulas \
                 (see [`Self::accelerations`] for why)."
            } else {
                ""
            };
            format!(
                "Mass matrix M(t, q, q̇) = ∂²L/∂q̇², symmetric, in the coordinates q = ({coords_list}) (indices from 1; \
                 the lower triangle mirrors the upper).{formed}"
            )
        } else {
            format!(
                "Mass matrix M(t, q, v) = ∂²L/∂v², symmetric, in the velocities v = ({}) (indices from 1; the lower \
                 triangle mirrors the upper). The equations of motion are Hamel's, M v̇ = f.",
                v_disp.join(", ")
            )
        },
        &m_lines,
    );
    let f_lines = formula_lines(model, (0..n).map(|i| (format!("f[{}]", i + 1), eq.forcing[i])).collect());
    let z_name = model.action.as_ref().map(ToString::to_string).unwrap_or_default();
    let f_doc = match &eq.contact {
        None => doc_block(
            "Right-hand side f of the equations of motion M q̈ = f, where fᵢ = ∂L/∂qᵢ − Σⱼ ∂²L/∂q̇ᵢ∂qⱼ q̇ⱼ − ∂²L/∂q̇ᵢ∂t + Qᵢ \
             (Q is the generalized force).",
            &f_lines,
        ),
        Some(c) => {
            let coupling = if c.decoupled {
                format!(
                    "Here ∂f/∂{z_name} = ∂M/∂{z_name} = 0: **`{z_name}` decouples** — (q, q̇) evolve without it and `{z_name}` is \
                     the quadrature of L along them."
                )
            } else {
                format!("Here the equations of (q, q̇) depend on `{z_name}`.")
            };
            doc_block(
                &format!(
                    "Right-hand side f of the Herglotz equations M q̈ = f of the contact Lagrangian L(t, q, q̇, {z_name}): \
                     d/dt ∂L/∂q̇ − ∂L/∂q = ∂L/∂{z_name} · ∂L/∂q̇ + Q with d{z_name}/dt = L, so (full z-dependence) \
                     fᵢ = ∂L/∂qᵢ − Σⱼ ∂²L/∂q̇ᵢ∂qⱼ q̇ⱼ − ∂²L/∂q̇ᵢ∂t − ∂²L/∂q̇ᵢ∂{z_name} · L + ∂L/∂q̇ᵢ · ∂L/∂{z_name} + Qᵢ. {coupling}"
                ),
                &f_lines,
            )
        }
    };
    let l_doc = match &model.action {
        None if !model.bodies.is_empty() => body_lagrangian_doc(model),
        None => doc_block("The Lagrangian L(t, q, q̇).", &[("L".into(), formula(model, model.lagrangian))]),
        Some(z) => doc_block(
            &format!("The contact Lagrangian L(t, q, q̇, {z}); it is also the rate of the action, d{z}/dt = L."),
            &[("L".into(), formula(model, model.lagrangian))],
        ),
    };
    let e_doc = match &eq.contact {
        None => doc_block(
            "Energy E = q̇·∂L/∂q̇ − L. Along solutions dE/dt = Q·q̇ − ∂L/∂t (see [`Self::power`]).",
            &[("E".into(), formula(model, eq.energy)), ("∂L/∂t".into(), formula(model, eq.dl_dt))],
        ),
        Some(c) => {
            let closed = if c.constant_rate {
                format!(
                    " ∂L/∂{z_name} = c is constant, so without forces E(t) = E(t₀)·e^(c (t − t₀)): c < 0 dissipates, c > 0 \
                     feeds energy in."
                )
            } else {
                String::new()
            };
            doc_block(
                &format!(
                    "Energy E_L = q̇·∂L/∂q̇ − L of the contact Lagrangian. It is not conserved: along solutions \
                     dE/dt = ∂L/∂{z_name} · E + Q·q̇ − ∂L/∂t (see [`Self::energy_rate`]), so without forces \
                     E(t) = E(t₀)·exp(∫ ∂L/∂{z_name} dt) and E never changes sign.{closed} Impacts keep q and {z_name}: only the \
                     kinetic part jumps."
                ),
                &[("E".into(), formula(model, eq.energy)), ("∂L/∂t".into(), formula(model, eq.dl_dt))],
            )
        }
    };
    let p_lines =
        formula_lines(model, (0..n).map(|i| (format!("p[{}] (conjugate to {})", i + 1, q_disp[i]), eq.momenta[i])).collect());
    let p_doc = doc_block("Generalized momenta p = ∂L/∂q̇.", &p_lines);
    [m_doc, f_doc, l_doc, e_doc, p_doc]
}

/// The rustdoc of M, f, L, E and p of a model whose M, f, E and p follow its kinematic tree: what
/// they are and how they are computed (their expanded formulas would grow as n³).
fn tree_docs(model: &View<'_>, eq: &Equations, coords_list: &str) -> [TokenStream; 5] {
    let along = "with the tree's directions d (each a joint j(d) with its coefficient S_d(q_j)) and the masses m moving \
                 along them";
    let m_doc = doc_text(&format!(
        "Mass matrix M(q) = ∂²L/∂q̇², symmetric, in the coordinates q = ({coords_list}): assembled column by column \
             from the products M eⱼ, each one pass along the model's kinematic tree ({along}: acc_d = acc_parent + S_d aⱼ, \
             F_d = m acc_d + Σ F_children, (M a)ⱼ = Σ_(d at j) S_d F_d). M is never formed symbolically for this model: O(n) \
             code, O(n²) time."
    ));
    let f_doc = doc_text(&format!(
        "Right-hand side f of the equations of motion M q̈ = f, one pass along the kinematic tree ({along}): \
             fⱼ = τⱼ − Σ_(d at j) S_d F_d at q̈ = 0, where the accelerations are the velocity products \
             acc_d = acc_parent + ∂S_d/∂qⱼ q̇ⱼ², and τ = ∂L/∂q at q̇ = 0 plus the generalized force Q."
    ));
    let l_lines = held_lines(model).unwrap_or_else(|| vec![("L".to_string(), formula(model, model.lagrangian))]);
    let l_doc = doc_block(
        "The Lagrangian L(t, q, q̇), over the rates vₖ of its positions (the `dot(..)` of the Lagrangian as written, in \
         order), each a sum along the kinematic tree.",
        &l_lines,
    );
    let e_doc = doc_block(
        "Energy E = q̇·∂L/∂q̇ − L = T + V, with T = Σ ½ m v² along the kinematic tree and V = −L at q̇ = 0. Along solutions \
         dE/dt = Q·q̇ − ∂L/∂t (see [`Self::power`]).",
        &[("∂L/∂t".into(), formula(model, eq.dl_dt))],
    );
    let p_doc = doc_text(&format!(
        "Generalized momenta p = ∂L/∂q̇, one pass along the kinematic tree ({along}): vel_d = vel_parent + S_d q̇ⱼ, \
             P_d = m vel_d + Σ P_children, pⱼ = Σ_(d at j) S_d P_d."
    ));
    [m_doc, f_doc, l_doc, e_doc, p_doc]
}

/// L over the rates of its positions held as symbols, and the rates while they are short to show
/// (each is a sum along its path: all of them grow as n²); `None` where the Lagrangian holds none.
fn held_lines(model: &View<'_>) -> Option<Vec<(String, String)>> {
    let h = model.held.as_ref()?;
    let mut lines = vec![("L".to_string(), formula(model, h.lagrangian))];
    let mut shown = 0;
    for (k, &(w, rate)) in h.rates.iter().enumerate() {
        if shown > 2_000 {
            lines.push((format!("… {} more rates", h.rates.len() - k), "(each its parent's plus a term)".into()));
            break;
        }
        let line = formula(model, rate);
        shown += line.len();
        lines.push((display_name(model, w), line));
    }
    Some(lines)
}

/// The rustdoc of M, f, L, E and p of a model whose kinetics follow its spatial links
/// (`derive::dynamics::spatial`).
fn spatial_docs(model: &View<'_>, eq: &Equations, coords_list: &str, crba: bool) -> [TokenStream; 5] {
    let along = "with each link's velocity V = (ω, v) in its own axes, V_j = X_j V_parent + S_j q̇ⱼ, and its spatial inertia \
                 M_j about its origin";
    let m_doc = doc_text(&if crba {
        format!(
            "Mass matrix M(q) = ∂²L/∂q̇², symmetric, in the coordinates q = ({coords_list}): by the composite rigid \
             bodies along the model's rigid links (each subtree's I^C_j = M_j + Σ X_cᵀ I^C_c X_c over its children, \
             M_ij = S_i·F with F = I^C_j S_j carried up from joint j to joint i by the transforms between), \
             straight-line code specialised to the joints."
        )
    } else {
        format!(
            "Mass matrix M(q) = ∂²L/∂q̇², symmetric, in the coordinates q = ({coords_list}): by the runtime \
             (`LinkDynamics::mass_matrix`) from each joint's transform and motion subspace and the links' inertias, by \
             the composite rigid bodies in the ground's axes — each link placed there, I^C_j summed over joint j's \
             subtree, M_ij = S_i·I^C_j S_j for joint i at or above joint j, zero between branches. M is never formed \
             symbolically for this model: O(n) code, O(n²) time."
        )
    });
    let f_doc = doc_text(&format!(
        "Right-hand side f of the equations of motion M q̈ = f, one Newton–Euler pass along the rigid links ({along}): \
             fⱼ = τⱼ − S_j·F_j at q̈ = 0, with the velocity products in the accelerations, the bias forces V ×* M V in \
             F and the ground accelerating at −g for gravity; τ = ∂L_w/∂q + Q from the written Lagrangian L_w."
    ));
    // The formula over the rates where the Lagrangian holds them (the same function, written out).
    let mut l_lines = held_lines(model).unwrap_or_default();
    l_lines.push(("L_w".into(), formula(model, model.model.written)));
    let l_doc = doc_block(
        "The Lagrangian L(t, q, q̇) = Σ_j ½ V_jᵀ M_j V_j + Σ_b m_b g·r_b + L_w along the rigid links (the bodies' kinetic \
         energies, their gravitational term and the written Lagrangian L_w); over the rates vₖ of its positions where \
         it holds them.",
        &l_lines,
    );
    let e_doc = doc_block(
        "Energy E = q̇·∂L/∂q̇ − L = Σ_j ½ V_jᵀ M_j V_j − Σ_b m_b g·r_b − L_w along the rigid links. Along solutions \
         dE/dt = Q·q̇ − ∂L/∂t (see [`Self::power`]).",
        &[("∂L/∂t".into(), formula(model, eq.dl_dt))],
    );
    let p_doc = doc_text(&format!(
        "Generalized momenta p = ∂L/∂q̇, one pass along the rigid links ({along}): P_j = M_j V_j + Σ X_cᵀ P_children, \
             pⱼ = S_j·P_j."
    ));
    [m_doc, f_doc, l_doc, e_doc, p_doc]
}

/// For a contact model: how the field is built from the accelerations (ż = L), and the items of
/// the action variable (∂L/∂z, the energy law, ∂L/∂x for the Jacobian, whether z decouples).
fn contact_items(model: &View<'_>, eq: &Equations, helpers: &mut Helpers) -> (TokenStream, TokenStream) {
    let d = model.layout.state_dim();
    let Some(c) = &eq.contact else {
        if !model.layout.orientations.is_empty() {
            // q̇ = K(q) v: the quaternions' rates from the body angular velocities.
            let layout = crate::emit::codegen::state_layout(model);
            let none = TokenStream::new();
            let (stmts, vals) = helpers.body(model, &model.layout.rates, "__routh_rates", &none, &none);
            let field = quote! {
                #(#stmts)*
                #layout::field(x, ::core::option::Option::Some([#(#vals),*]), a, ::core::option::Option::None)
            };
            return (field, TokenStream::new());
        }
        let layout = crate::emit::codegen::state_layout(model);
        return (quote! { #layout::field(x, ::core::option::Option::None, a, ::core::option::Option::None) }, TokenStream::new());
    };
    let none = TokenStream::new();
    let allow = allow_generated();
    let z = model.action.as_ref().map(ToString::to_string).unwrap_or_default();
    let (dz_stmts, dz_vals) = helpers.body(model, &[c.dl_dz], "__routh_lagrangian_dz", &none, &none);
    let (er_stmts, er_vals) = helpers.body(model, &[c.energy_rate], "__routh_energy_rate", &none, &none);
    let (g_stmts, g_vals) = helpers.body(model, &c.dl_dx, "__routh_lagrangian_gradient", &none, &none);
    let dz_doc = doc_block(
        &format!(
            "∂L/∂{z}, the rate of the contact energy law dE/dt = ∂L/∂{z} · E + Q·q̇ − ∂L/∂t (−R_L(E_L) in the notation of \
             contact geometry). For a cyclic coordinate q_c (∂L/∂q_c = 0, no force along it) the momentum is not conserved \
             but *dissipated*: p_c(t) = p_c(t₀)·exp(∫ ∂L/∂{z} dt), so ratios of such momenta are conserved."
        ),
        &[(format!("∂L/∂{z}"), formula(model, c.dl_dz))],
    );
    let er_doc = doc_block(
        &format!(
            "The rate of the energy along the unconstrained motion, dE/dt = ∂L/∂{z} · E + Q·q̇ − ∂L/∂t (Herglotz). Ideal \
             linear constraints add nothing; affine ones add their power (`constraint_power`)."
        ),
        &[("dE/dt".into(), formula(model, c.energy_rate))],
    );
    let decoupled_doc = format!(
        " Whether the action `{z}` decouples: the equations of (q, q̇) do not involve it (∂f/∂{z} = ∂M/∂{z} = 0, e.g. \
         L = T − V + c {z} with c constant), so `{z}` is the quadrature of L along them. Decided symbolically at compile \
         time: {}.",
        if c.decoupled { "it does" } else { "it does not" }
    );
    let decoupled = c.decoupled;
    let action_doc = format!(" Name of the action variable; it sits last in the state, at index {}.", d - 1);
    let layout = crate::emit::codegen::state_layout(model);
    let field = if model.layout.orientations.is_empty() {
        quote! { #layout::field(x, ::core::option::Option::None, a, ::core::option::Option::Some(self.lagrangian(t, x))) }
    } else {
        // q̇ = K(q) v, v̇ = a, ż = L.
        let (stmts, vals) = helpers.body(model, &model.layout.rates, "__routh_rates", &none, &none);
        quote! {
            #(#stmts)*
            #layout::field(x, ::core::option::Option::Some([#(#vals),*]), a, ::core::option::Option::Some(self.lagrangian(t, x)))
        }
    };
    let items = quote! {
        #[doc = #action_doc]
        pub const ACTION: &'static str = #z;
        #[doc = #decoupled_doc]
        pub const ACTION_DECOUPLED: bool = #decoupled;

        #dz_doc
        #allow
        #[must_use]
        pub fn lagrangian_dz(&self, t: f64, x: &__routh::State<#d>) -> f64 {
            #(#dz_stmts)*
            #(#dz_vals)*
        }

        #er_doc
        #allow
        #[must_use]
        pub fn energy_rate(&self, t: f64, x: &__routh::State<#d>) -> f64 {
            #(#er_stmts)*
            #(#er_vals)*
        }

        /// ∂L/∂x over x = (q, q̇, z): the row of ż = L in the field Jacobian.
        #allow
        fn __routh_lagrangian_gradient(&self, t: f64, x: &__routh::State<#d>) -> __routh::State<#d> {
            #(#g_stmts)*
            __routh::State::<#d>::from([#(#g_vals),*])
        }
    };
    (field, items)
}

/// The names of a model's state components: coordinates, `dot(q)`, then the action variable.
pub(crate) fn state_names(model: &View<'_>) -> Vec<String> {
    let mut names: Vec<String> = model.coordinates.iter().map(ToString::to_string).collect();
    names.extend((0..model.dof()).map(|i| crate::notation::velocity_name(model, i)));
    names.extend(model.action.iter().map(ToString::to_string));
    names
}

/// `items` in the model's own `impl`, after the hidden `impl` of the `helpers` they call.
fn with_helpers(model: &View<'_>, helpers: Helpers, items: &TokenStream) -> TokenStream {
    let owner = Owner::of(model);
    let (ty, generics) = (&owner.ty, &owner.generics);
    let hidden = helpers.into_impl(generics, ty);
    quote! {
        #hidden

        #[automatically_derived]
        impl #generics #ty {
            #items
        }
    }
}

/// [`energy_derivatives`] of a tree model whose E is a pass along its tree: ∇E by reverse mode
/// through E's quantities, ∇²E column by column from that gradient's tangent (O(n) code each; the
/// runtime calls the tangent for the 2n basis directions).
pub fn energy_derivatives_along_tree(model: &View<'_>, energy: &crate::derive::dynamics::EnergyAlongTree) -> TokenStream {
    let d = model.layout.state_dim();
    let none = TokenStream::new();
    let mut helpers = Helpers::default();
    let sv = quote! { __routh::State<#d> };
    let (g_stmts, g_vals) =
        helpers.body_bound(model, &energy.gradient.bindings, &energy.gradient.outputs, "__routh_energy_gradient", &none, &none);
    let tangent = crate::emit::codegen::TangentFunctions {
        name: "__routh_energy",
        bindings: &energy.gradient.bindings,
        tangent: &energy.hessian,
        extra: (TokenStream::new(), TokenStream::new()),
        what: "∇E",
        along: "δ(∇E)",
    };
    let (functions, add_columns) = (tangent.items(model, &mut helpers), tangent.add_columns(model, d));
    let allow = allow_generated();
    let items = crate::emit::codegen::lazy(quote! {
        /// The gradient ∇E of [`Self::energy`] over the state, by reverse mode through E's pass
        /// along the kinematic tree, for the dissipative embedding f̃ = f + ξ∇E of periodic-orbit
        /// continuation.
        #allow
        #[must_use]
        pub fn energy_gradient(&self, t: f64, x: &#sv) -> #sv {
            #(#g_stmts)*
            <#sv>::from([#(#g_vals),*])
        }

        /// The Hessian ∇²E of [`Self::energy`] over the state, column by column from the
        /// gradient's derivative along each basis direction (forward mode, exact), for the
        /// variational equations of the embedding.
        #allow
        #[must_use]
        pub fn energy_hessian(&self, t: f64, x: &#sv) -> __routh::Matrix<#d, #d> {
            let mut dr = __routh::Matrix::<#d, #d>::zeros();
            #add_columns
            dr
        }

        #functions
    });
    with_helpers(model, helpers, &items)
}

/// `energy_gradient` and `energy_hessian` of a model that is (a mode of) a hybrid system: ∇E and
/// ∇²E over the state, the first integral's derivatives that periodic-orbit continuation uses
/// (`HybridSystem::mode_energy_gradient`, `mode_energy_hessian`).
pub fn energy_derivatives(model: &View<'_>, energy: &crate::derive::euler_lagrange::EnergyDerivatives) -> TokenStream {
    let d = model.layout.state_dim();
    let none = TokenStream::new();
    let mut helpers = Helpers::default();
    let (g_stmts, g_vals) = helpers.body(model, &energy.gradient, "__routh_energy_gradient", &none, &none);
    let flat: Vec<Expr> = energy.hessian.iter().flatten().copied().collect();
    let (h_stmts, h_vals) = helpers.body(model, &flat, "__routh_energy_hessian", &none, &none);
    let hessian = square_matrix(d, &h_vals);
    let allow = allow_generated();
    let items = crate::emit::codegen::lazy(quote! {
        /// The gradient ∇E of [`Self::energy`] over the state (symbolic), for the dissipative
        /// embedding f̃ = f + ξ∇E of periodic-orbit continuation.
        #allow
        #[must_use]
        pub fn energy_gradient(&self, t: f64, x: &__routh::State<#d>) -> __routh::State<#d> {
            #(#g_stmts)*
            __routh::State::<#d>::from([#(#g_vals),*])
        }

        /// The Hessian ∇²E of [`Self::energy`] over the state (symbolic), for the variational
        /// equations of the embedding.
        #allow
        #[must_use]
        pub fn energy_hessian(&self, t: f64, x: &__routh::State<#d>) -> __routh::Matrix<#d, #d> {
            #(#h_stmts)*
            #hessian
        }
    });
    with_helpers(model, helpers, &items)
}

/// The joints' limits a description file gives, as constants of the model indexed by velocity
/// (an ordinary coordinate's velocity has its index): `POSITION_LIMITS` ([lower, upper]),
/// `EFFORT_LIMITS` and `VELOCITY_LIMITS`, unbounded where the file gives none, and `FRICTION`, its
/// dry friction (zero where none); nothing for a model whose files give no limits and no friction.
pub fn limits(name: &syn::Ident, model: &View<'_>, limits: &[crate::parse::LimitsRead]) -> TokenStream {
    if limits.is_empty() {
        return TokenStream::new();
    }
    let n = model.dof();
    let (mut position, mut effort, mut velocity) = (vec![None; n], vec![None; n], vec![None; n]);
    let mut friction = vec![0.0_f64; n];
    for l in limits {
        let Some(i) = model.coordinates.iter().position(|c| *c == l.coordinate).filter(|&i| i < n) else { continue };
        (position[i], effort[i], velocity[i]) = (l.position, l.effort, l.velocity);
        friction[i] = l.friction.unwrap_or(0.0);
    }
    let bound = |v: Option<f64>| v.map_or_else(|| quote!(f64::INFINITY), |v| quote!(#v));
    let position = position.iter().map(|p| match p {
        Some((lo, hi)) => quote!([#lo, #hi]),
        None => quote!([f64::NEG_INFINITY, f64::INFINITY]),
    });
    let (effort, velocity) = (effort.into_iter().map(bound), velocity.into_iter().map(bound));
    quote! {
        impl #name {
            /// Each joint's position limits [lower, upper] as its description file gives them, by
            /// velocity (an ordinary coordinate's velocity has its index; unbounded where the file
            /// gives none). Not part of the dynamics (`limits = e` makes them impacts).
            pub const POSITION_LIMITS: [[f64; 2]; #n] = [#(#position),*];
            /// Each joint's effort limit (the largest |torque| or |force| of its actuator) as its
            /// description file gives it, by velocity; `f64::INFINITY` where none. Not applied.
            pub const EFFORT_LIMITS: [f64; #n] = [#(#effort),*];
            /// Each joint's velocity limit as its description file gives it, by velocity;
            /// `f64::INFINITY` where none. Not applied.
            pub const VELOCITY_LIMITS: [f64; #n] = [#(#velocity),*];
            /// Each joint's dry (Coulomb) friction as its description file gives it (URDF's
            /// `<dynamics friction>`, MJCF's `frictionloss`), by velocity; 0 where none. Not part
            /// of the dynamics (a file with friction is read only with `friction = ignore`): for
            /// a controller's compensation, τ_f = FRICTION · sign(q̇) smoothed as it sees fit.
            pub const FRICTION: [f64; #n] = [#(#friction),*];
        }
    }
}
