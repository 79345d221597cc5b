//! Emission of the generated Rust items (quote) from the derived equations.
//!
//! Every numeric function is straight-line code produced by [`symbolic::emit`] (common
//! subexpressions always eliminated). States are `x = (q, q̇)` as `SVector<f64, 2n>`; parameters are
//! read from `self`. The generated items:
//!
//! - inherent consts `DOF`, `STATE_DIM`, `COORDINATES`, and methods `state`, `mass_matrix`, `forcing`,
//!   `accelerations`, `lagrangian`, `energy`, `momenta`, `power`, `jacobian`, `simulate`,
//!   `simulate_with_events`, each documented with its derived formula;
//! - `impl routh::runtime::VectorField<2n>` (x' = (q̇, M⁻¹f)) and, with impacts,
//!   `impl routh::runtime::HybridSystem<2n>` ([`crate::emit_impact`]).

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use symbolic::Expr;

use crate::codegen::{Owner, allow_generated, body_into, square_matrix, symbol_tokens, symmetric_matrix};
use crate::euler_lagrange::Equations;
use crate::impact::ImpactEquations;
use crate::model::Model;
use crate::notation::{display_name, doc_block, formula};

/// Operation counts of the hot path (M and f together), for benchmarks and docs.
pub fn dynamics_ops(model: &Model, eq: &Equations) -> symbolic::OpCount {
    let outputs = dynamics_outputs(eq);
    symbolic::emit(&model.arena, &outputs, &|s| symbol_tokens(model, s), "__w").ops
}

/// Upper triangle of M (row-major), then f.
fn dynamics_outputs(eq: &Equations) -> Vec<Expr> {
    let n = eq.forcing.len();
    let mut out = Vec::with_capacity(n * (n + 1) / 2 + n);
    for i in 0..n {
        for j in i..n {
            out.push(eq.mass[i][j]);
        }
    }
    out.extend(&eq.forcing);
    out
}

/// The whole expansion for one model.
pub fn emit(
    model: &Model,
    eq: &Equations,
    impacts: &[ImpactEquations],
    symmetries: &[crate::symmetry::SymmetryEquations],
    constraints: Option<&crate::constraints::ConstraintEquations>,
    dims: &[usize],
) -> TokenStream {
    let n = model.dof();
    let d = model.layout.state_dim();
    let owner = Owner::of(model);
    let (ty, generics) = (&owner.ty, &owner.generics);
    let coord_names: Vec<String> = model.coordinates.iter().map(ToString::to_string).collect();
    let q_disp: Vec<String> = model.layout.q.iter().map(|&s| display_name(model, s)).collect();
    let v_disp: Vec<String> = model.layout.qd.iter().map(|&s| display_name(model, s)).collect();
    let coords_list = q_disp.join(", ");

    let none = TokenStream::new();
    let mut parts: Vec<TokenStream> = Vec::new();
    let mut straight_line =
        |outputs: &[Expr], name: &str, params: &TokenStream, args: &TokenStream| body_into(model, &mut parts, outputs, name, params, args);

    // Dynamics: M (upper) and f, in one straight-line function.
    let dyn_out = dynamics_outputs(eq);
    let (dyn_stmts, dyn_vals) = straight_line(&dyn_out, "__routh_dynamics", &none, &none);
    let m_upper = &dyn_vals[..n * (n + 1) / 2];
    let f_vals = &dyn_vals[n * (n + 1) / 2..];
    let dyn_m = symmetric_matrix(n, m_upper);

    // Mass matrix alone.
    let m_out: Vec<Expr> = dyn_out[..n * (n + 1) / 2].to_vec();
    let (m_stmts, m_vals) = straight_line(&m_out, "__routh_mass_matrix", &none, &none);
    let m_only = symmetric_matrix(n, &m_vals);

    // Scalars and momenta.
    let (l_stmts, l_vals) = straight_line(&[model.lagrangian], "__routh_lagrangian", &none, &none);
    let (e_stmts, e_vals) = straight_line(&[eq.energy], "__routh_energy", &none, &none);
    let (pw_stmts, pw_vals) = straight_line(&[eq.power], "__routh_power", &none, &none);
    let (p_stmts, p_vals) = straight_line(&eq.momenta, "__routh_momenta", &none, &none);

    let dyn_fn = format_ident!("__routh_dynamics");
    let jac_fn = format_ident!("__routh_residual_jacobian");
    let allow = allow_generated();
    // Accelerations and the field Jacobian: of the unconstrained system (M q̈ = f), or of the
    // constrained one (the saddle-point system of `emit_constraint`).
    let (acc_method, jac_method, constraint_items, constraint_impl) = match constraints {
        Some(ce) => {
            let items = crate::emit_constraint::emit(model, ce, &mut parts, &dyn_fn);
            (items.accelerations, items.jacobian, items.methods, items.trait_impl)
        }
        None => {
            // Residual Jacobians ∂g/∂q, ∂g/∂q̇ (row-major).
            let mut jac_out: Vec<Expr> = eq.dg_dq.iter().flatten().copied().collect();
            jac_out.extend(eq.dg_dv.iter().flatten().copied());
            let a_param = quote! { a: &::routh::nalgebra::SVector<f64, #n>, };
            let a_arg = quote! { a, };
            let (jac_stmts, jac_vals) = body_into(model, &mut parts, &jac_out, "__routh_residual_jacobian", &a_param, &a_arg);
            let gq = square_matrix(n, &jac_vals[..n * n]);
            let gv = square_matrix(n, &jac_vals[n * n..]);
            let acc = quote! {
                /// Accelerations q̈ = M⁻¹ f, solved numerically (Cholesky, LU fallback; M is never inverted
                /// symbolically).
                ///
                /// # Errors
                /// [`FieldError::SingularMassMatrix`](::routh::runtime::FieldError) if M is singular at this state,
                /// [`FieldError::NonFinite`](::routh::runtime::FieldError) if M or f is not finite (the integrator
                /// then retries with a smaller step).
                #[inline]
                pub fn accelerations(&self, t: f64, x: &::routh::nalgebra::SVector<f64, #d>)
                    -> ::core::result::Result<::routh::nalgebra::SVector<f64, #n>, ::routh::runtime::FieldError>
                {
                    let (m, f) = self.#dyn_fn(t, x);
                    ::routh::runtime::mechanics::accelerations(t, m, f)
                }
            };
            let jac = quote! {
                /// ∂g/∂q and ∂g/∂q̇ for the residual g(t, q, q̇, a) = f − M a (used by [`Self::jacobian`]).
                #allow
                fn #jac_fn(&self, t: f64, x: &::routh::nalgebra::SVector<f64, #d>, a: &::routh::nalgebra::SVector<f64, #n>)
                    -> (::routh::nalgebra::SMatrix<f64, #n, #n>, ::routh::nalgebra::SMatrix<f64, #n, #n>)
                {
                    #(#jac_stmts)*
                    (#gq, #gv)
                }

                /// Jacobian ∂F/∂x of the first-order field x' = F(t, x) = (q̇, M⁻¹f), from symbolic
                /// derivatives: with g = f − M a, ∂q̈/∂x = M⁻¹ ∂g/∂x at a = q̈ (M factored once, see
                /// [`routh::runtime::mechanics`](::routh::runtime::mechanics)).
                ///
                /// # Errors
                /// [`FieldError::SingularMassMatrix`](::routh::runtime::FieldError) if M is singular at this state.
                pub fn jacobian(&self, t: f64, x: &::routh::nalgebra::SVector<f64, #d>)
                    -> ::core::result::Result<::routh::nalgebra::SMatrix<f64, #d, #d>, ::routh::runtime::FieldError>
                {
                    let (m, f) = self.#dyn_fn(t, x);
                    let factor = ::routh::runtime::mechanics::factor_mass(t, m)?;
                    let a = factor.solve(f).map_err(|_| ::routh::runtime::FieldError::NonFinite { t })?;
                    let (gq, gv) = self.#jac_fn(t, x, &a);
                    ::routh::runtime::mechanics::first_order_jacobian(t, &factor, gq, gv)
                }
            };
            (acc, jac, TokenStream::new(), TokenStream::new())
        }
    };

    let symmetry_items = crate::emit_symmetry::methods(model, symmetries, &mut parts);

    // Guards and resets of the impacts (how the model simulates as a whole is emitted per system,
    // see `emit_system`).
    let simulate_items = crate::emit_impact::methods(model, eq, impacts, dims, &mut parts);

    // Documentation.
    let mut m_lines = Vec::new();
    for i in 0..n {
        for j in i..n {
            m_lines.push((format!("M[{},{}]", i + 1, j + 1), formula(model, eq.mass[i][j])));
        }
    }
    let m_doc = doc_block(
        &format!(
            "Mass matrix M(t, q, q̇) = ∂²L/∂q̇², symmetric, in the coordinates q = ({coords_list}) (indices from 1; \
             the lower triangle mirrors the upper)."
        ),
        &m_lines,
    );
    let f_lines: Vec<(String, String)> =
        (0..n).map(|i| (format!("f[{}]", i + 1), formula(model, eq.forcing[i]))).collect();
    let f_doc = doc_block(
        "Right-hand side f of the equations of motion M q̈ = f, where fᵢ = ∂L/∂qᵢ − Σⱼ ∂²L/∂q̇ᵢ∂qⱼ q̇ⱼ − ∂²L/∂q̇ᵢ∂t + Qᵢ \
         (Q is the generalized force).",
        &f_lines,
    );
    let l_doc = doc_block("The Lagrangian L(t, q, q̇).", &[("L".into(), formula(model, model.lagrangian))]);
    let e_doc = doc_block(
        "Energy E = q̇·∂L/∂q̇ − L. Along solutions dE/dt = Q·q̇ − ∂L/∂t (see [`Self::power`]).",
        &[("E".into(), formula(model, eq.energy)), ("∂L/∂t".into(), formula(model, eq.dl_dt))],
    );
    let p_lines: Vec<(String, String)> =
        (0..n).map(|i| (format!("p[{}] (conjugate to {})", i + 1, q_disp[i]), formula(model, eq.momenta[i]))).collect();
    let p_doc = doc_block("Generalized momenta p = ∂L/∂q̇.", &p_lines);
    let pw_doc = doc_block(
        "Power of the generalized forces, Q·q̇. With ∂L/∂t = 0 it equals dE/dt along solutions.",
        &[("Q·q̇".into(), formula(model, eq.power))],
    );
    let q_lines: Vec<(String, String)> = (0..n).map(|i| (format!("Q[{}]", i + 1), formula(model, model.force[i]))).collect();
    let q_doc = doc_block("Generalized force one-form Q = Σ Qᵢ dqᵢ, as declared.", &q_lines);
    let state_doc = format!(
        " The state x = (q, q̇) = ({coords_list}, {}) from positions and velocities.",
        v_disp.join(", ")
    );

    let n_lit = n;
    let coord_lits = coord_names.iter();

    quote! {
        #[automatically_derived]
        #[doc(hidden)]
        impl #generics #ty {
            #(#parts)*
        }

        #[automatically_derived]
        impl #generics #ty {
            /// Number of degrees of freedom n (generalized coordinates).
            pub const DOF: usize = #n_lit;
            /// Dimension of the first-order state x = (q, q̇), 2n.
            pub const STATE_DIM: usize = #d;
            /// Names of the generalized coordinates, in state order.
            pub const COORDINATES: [&'static str; #n_lit] = [#(#coord_lits),*];

            #[doc = #state_doc]
            #[must_use]
            pub fn state(&self, q: [f64; #n_lit], qdot: [f64; #n_lit]) -> ::routh::nalgebra::SVector<f64, #d> {
                ::routh::runtime::mechanics::state(q, qdot)
            }

            /// M and f together (the hot path of the vector field).
            #allow
            #[inline]
            fn #dyn_fn(&self, t: f64, x: &::routh::nalgebra::SVector<f64, #d>)
                -> (::routh::nalgebra::SMatrix<f64, #n_lit, #n_lit>, ::routh::nalgebra::SVector<f64, #n_lit>)
            {
                #(#dyn_stmts)*
                let m = #dyn_m;
                let f = ::routh::nalgebra::SVector::<f64, #n_lit>::from([#(#f_vals),*]);
                (m, f)
            }

            #m_doc
            #allow
            #[must_use]
            pub fn mass_matrix(&self, t: f64, x: &::routh::nalgebra::SVector<f64, #d>) -> ::routh::nalgebra::SMatrix<f64, #n_lit, #n_lit> {
                #(#m_stmts)*
                #m_only
            }

            #f_doc
            #[must_use]
            pub fn forcing(&self, t: f64, x: &::routh::nalgebra::SVector<f64, #d>) -> ::routh::nalgebra::SVector<f64, #n_lit> {
                self.#dyn_fn(t, x).1
            }

            #acc_method

            #l_doc
            #allow
            #[must_use]
            pub fn lagrangian(&self, t: f64, x: &::routh::nalgebra::SVector<f64, #d>) -> f64 {
                #(#l_stmts)*
                #(#l_vals)*
            }

            #e_doc
            #allow
            #[must_use]
            pub fn energy(&self, t: f64, x: &::routh::nalgebra::SVector<f64, #d>) -> f64 {
                #(#e_stmts)*
                #(#e_vals)*
            }

            #p_doc
            #allow
            #[must_use]
            pub fn momenta(&self, t: f64, x: &::routh::nalgebra::SVector<f64, #d>) -> ::routh::nalgebra::SVector<f64, #n_lit> {
                #(#p_stmts)*
                ::routh::nalgebra::SVector::<f64, #n_lit>::from([#(#p_vals),*])
            }

            #pw_doc
            ///
            #q_doc
            #allow
            #[must_use]
            pub fn power(&self, t: f64, x: &::routh::nalgebra::SVector<f64, #d>) -> f64 {
                #(#pw_stmts)*
                #(#pw_vals)*
            }

            #jac_method

            #constraint_items

            #simulate_items
            #symmetry_items
        }

        #constraint_impl

        #[automatically_derived]
        impl #generics ::routh::runtime::VectorField<#d> for #ty {
            #[inline]
            fn field(&self, t: f64, x: &::routh::nalgebra::SVector<f64, #d>)
                -> ::core::result::Result<::routh::nalgebra::SVector<f64, #d>, ::routh::runtime::FieldError>
            {
                let a = self.accelerations(t, x)?;
                Ok(::routh::runtime::mechanics::first_order_field(x, &a))
            }
        }
    }
}
