//! Emission of the generated Rust items (quote) from the derived equations.
//!
//! Every numeric function is straight-line code produced by [`symbolic::emit`] (common
//! subexpressions always eliminated). States are `x = (q, q̇)` as `SVector<f64, 2n>`; parameters are
//! read from `self`. The generated items:
//!
//! - inherent consts `DOF`, `STATE_DIM`, `COORDINATES`, and methods `state`, `mass_matrix`, `forcing`,
//!   `accelerations`, `lagrangian`, `energy`, `momenta`, `power`, `jacobian`, `simulate`,
//!   `simulate_with_events`, each documented with its derived formula;
//! - `impl routh::runtime::VectorField<2n>` (x' = (q̇, M⁻¹f)) and `impl routh::runtime::Mechanical<n, 2n>`.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use symbolic::Expr;

use crate::euler_lagrange::Equations;
use crate::impact::ImpactEquations;
use crate::model::{Model, Role};

/// Longest formula (in characters) shown in rustdoc before it is elided.
const DOC_FORMULA_LIMIT: usize = 1200;

/// Greek letter names and their symbols, for display.
const GREEK: &[(&str, &str)] = &[
    ("alpha", "α"), ("beta", "β"), ("gamma", "γ"), ("delta", "δ"), ("epsilon", "ε"), ("zeta", "ζ"),
    ("eta", "η"), ("theta", "θ"), ("iota", "ι"), ("kappa", "κ"), ("lambda", "λ"), ("mu", "μ"),
    ("nu", "ν"), ("xi", "ξ"), ("rho", "ρ"), ("sigma", "σ"), ("tau", "τ"), ("phi", "φ"), ("chi", "χ"),
    ("psi", "ψ"), ("omega", "ω"), ("Gamma", "Γ"), ("Delta", "Δ"), ("Theta", "Θ"), ("Lambda", "Λ"),
    ("Phi", "Φ"), ("Psi", "Ψ"), ("Omega", "Ω"),
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

/// Velocity display: a combining dot over a one-letter base (`ẋ₁`, `θ̇₂`), else `dot(th₁)`.
fn pretty_velocity(name: &str) -> String {
    let p = pretty(name);
    let mut chars = p.chars();
    let first = chars.next().unwrap_or('?');
    let rest: String = chars.collect();
    if rest.chars().all(|c| ('\u{2080}'..='\u{2089}').contains(&c)) {
        format!("{first}\u{307}{rest}")
    } else {
        format!("dot({p})")
    }
}

/// Display name of a model symbol.
pub fn display_name(model: &Model, sym: Expr) -> String {
    match model.role(sym) {
        Some(Role::Time) => "t".into(),
        Some(Role::Coordinate(i)) => pretty(&model.coordinates[i].to_string()),
        Some(Role::Velocity(i)) => pretty_velocity(&model.coordinates[i].to_string()),
        Some(Role::Acceleration(i)) => format!("ddot({})", pretty(&model.coordinates[i].to_string())),
        Some(Role::Parameter(i)) => pretty(&model.parameters[i].to_string()),
        Some(Role::Differential(i)) => format!("d{}", pretty(&model.coordinates[i].to_string())),
        Some(Role::TimeDifferential) => "dt".into(),
        Some(Role::PostVelocity(i)) => format!("{}⁺", pretty_velocity(&model.coordinates[i].to_string())),
        Some(Role::Multiplier(k)) => format!("λ{}", pretty(&format!("x{}", k + 1)).trim_start_matches('x')),
        None => model.arena.symbol_name(sym).unwrap_or("?").to_string(),
    }
}

/// A formula for rustdoc, elided when very long. Expressions whose tree form is far longer than
/// the limit are not printed at all (printing a DAG as a tree can take exponential time).
pub(crate) fn formula(model: &Model, e: Expr) -> String {
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

/// Rustdoc lines: a heading paragraph and a `text` block of `lhs = formula` lines.
pub(crate) fn doc_block(heading: &str, lines: &[(String, String)]) -> TokenStream {
    let mut text = format!("{heading}\n\n```text\n");
    for (lhs, rhs) in lines {
        text.push_str(&format!("{lhs} = {rhs}\n"));
    }
    text.push_str("```");
    let docs = text.lines().map(|l| format!(" {l}"));
    quote! { #( #[doc = #docs] )* }
}

/// Tokens for a symbol inside generated functions: `x[i]`, `x[n+i]`, `a[i]`, `self.p`, `t`.
fn symbol_tokens(model: &Model, sym: Expr) -> TokenStream {
    let n = model.dof();
    match model.role(sym) {
        Some(Role::Time) => quote!(t),
        Some(Role::Coordinate(i)) => quote!(x[#i]),
        Some(Role::Velocity(i)) => {
            let k = n + i;
            quote!(x[#k])
        }
        Some(Role::Acceleration(i)) => quote!(a[#i]),
        Some(Role::PostVelocity(i)) => quote!(vp[#i]),
        Some(Role::Multiplier(k)) => quote!(lam[#k]),
        Some(Role::Parameter(i)) => {
            let p = &model.parameters[i];
            let access = &model.owner.access;
            quote!(#access.#p)
        }
        Some(Role::Differential(_) | Role::TimeDifferential) | None => quote!(::core::f64::NAN),
    }
}

/// Above this many temporaries a computation is split into part functions.
const SPLIT_STATEMENTS: usize = 400;
/// Statements per part function.
const PART_STATEMENTS: usize = 250;

/// Code computing `outputs` inside one generated method: helper items for the `impl`, the
/// statements of the method body, and one expression per output.
///
/// Small computations are plain `let` temporaries. Large ones (rustc's compile time grows faster
/// than linearly with function size) keep their temporaries in a scratch array `__w` that a
/// sequence of `#[inline(never)]` part functions fills, each at most [`PART_STATEMENTS`]
/// statements long; common subexpressions are still computed once.
pub(crate) struct Body {
    pub(crate) parts: Vec<TokenStream>,
    pub(crate) statements: Vec<TokenStream>,
    pub(crate) outputs: Vec<TokenStream>,
}

/// `name` names the part functions; `extra_params` / `extra_args` declare and pass inputs beyond
/// `t` and `x` (e.g. the accelerations `a` of the Jacobian).
pub(crate) fn body(model: &Model, outputs: &[Expr], name: &str, extra_params: &TokenStream, extra_args: &TokenStream) -> Body {
    let symbol = |s| symbol_tokens(model, s);
    let slots = symbolic::emit_slots(&model.arena, outputs, &symbol, "__w");
    if slots.statements.len() <= SPLIT_STATEMENTS {
        // Small: plain `let`s read better and optimise at least as well (re-emitting is cheap here).
        let plain = symbolic::emit(&model.arena, outputs, &symbol, "__w");
        return Body { parts: Vec::new(), statements: plain.statements, outputs: plain.outputs };
    }
    let len = slots.statements.len();
    let d = 2 * model.dof();
    let allow = allow_generated();
    let mut parts = Vec::new();
    let mut statements = vec![quote! { let mut __w = [0.0_f64; #len]; }];
    for (k, chunk) in slots.statements.chunks(PART_STATEMENTS).enumerate() {
        let part = format_ident!("{name}_part{k}");
        parts.push(quote! {
            #allow
            #[inline(never)]
            fn #part(&self, t: f64, x: &::routh::nalgebra::SVector<f64, #d>, #extra_params __w: &mut [f64; #len]) {
                #(#chunk)*
            }
        });
        statements.push(quote! { self.#part(t, x, #extra_args &mut __w); });
    }
    Body { parts, statements, outputs: slots.outputs }
}

/// [`body`], appending its part functions to `parts`: returns the statements and output expressions.
pub(crate) fn body_into(
    model: &Model,
    parts: &mut Vec<TokenStream>,
    outputs: &[Expr],
    name: &str,
    extra_params: &TokenStream,
    extra_args: &TokenStream,
) -> (Vec<TokenStream>, Vec<TokenStream>) {
    let b = body(model, outputs, name, extra_params, extra_args);
    parts.extend(b.parts);
    (b.statements, b.outputs)
}

/// Lints silenced on generated numeric code.
fn allow_generated() -> TokenStream {
    quote! { #[allow(unused_variables, clippy::all, clippy::pedantic, non_snake_case)] }
}

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

/// Builds an `SMatrix<f64, n, n>` from the upper triangle expressions `upper` (row-major).
pub(crate) fn symmetric_matrix(n: usize, upper: &[TokenStream]) -> TokenStream {
    let mut k = 0;
    let mut sets = Vec::new();
    for i in 0..n {
        for j in i..n {
            let v = &upper[k];
            k += 1;
            if i == j {
                sets.push(quote! { m[(#i, #j)] = #v; });
            } else {
                sets.push(quote! { let __e = #v; m[(#i, #j)] = __e; m[(#j, #i)] = __e; });
            }
        }
    }
    quote! {{
        let mut m = ::routh::nalgebra::SMatrix::<f64, #n, #n>::zeros();
        #(#sets)*
        m
    }}
}

pub(crate) fn square_matrix(n: usize, entries: &[TokenStream]) -> TokenStream {
    let sets = (0..n).flat_map(|i| (0..n).map(move |j| (i, j))).zip(entries).map(|((i, j), v)| {
        quote! { m[(#i, #j)] = #v; }
    });
    quote! {{
        let mut m = ::routh::nalgebra::SMatrix::<f64, #n, #n>::zeros();
        #(#sets)*
        m
    }}
}

/// The whole expansion for one model.
pub fn emit(
    model: &Model,
    eq: &Equations,
    impacts: &[ImpactEquations],
    symmetries: &[crate::symmetry::SymmetryEquations],
    dims: &[usize],
) -> TokenStream {
    let n = model.dof();
    let d = 2 * n;
    let ty = &model.owner.ty;
    let generics = &model.owner.generics;
    let coord_names: Vec<String> = model.coordinates.iter().map(ToString::to_string).collect();
    let q_disp: Vec<String> = model.syms.q.iter().map(|&s| display_name(model, s)).collect();
    let v_disp: Vec<String> = model.syms.qd.iter().map(|&s| display_name(model, s)).collect();
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

    // Residual Jacobians ∂g/∂q, ∂g/∂q̇ (row-major).
    let mut jac_out: Vec<Expr> = eq.dg_dq.iter().flatten().copied().collect();
    jac_out.extend(eq.dg_dv.iter().flatten().copied());
    let a_param = quote! { a: &::routh::nalgebra::SVector<f64, #n>, };
    let a_arg = quote! { a, };
    let (jac_stmts, jac_vals) = straight_line(&jac_out, "__routh_residual_jacobian", &a_param, &a_arg);
    let gq = square_matrix(n, &jac_vals[..n * n]);
    let gv = square_matrix(n, &jac_vals[n * n..]);

    let symmetry_items = crate::emit_symmetry::methods(model, symmetries, &mut parts);

    // Smooth models simulate with events; models with impacts get guards, resets and the hybrid
    // simulation instead (a smooth `simulate` would silently ignore the impacts).
    let (simulate_items, hybrid_impl) = if model.owner.mode.is_some() {
        // A mode of a multi-mode model: its guards and resets; the model simulates as a whole.
        (crate::emit_impact::methods(model, eq, impacts, dims, &mut parts), TokenStream::new())
    } else if impacts.is_empty() {
        (quote! {
            /// Integrates the equations of motion from `x0` over `span` with adaptive Dormand–Prince 5(4).
            ///
            /// # Errors
            /// A [`SimError`](::routh::runtime::SimError) on step-size underflow, non-finite state, singular
            /// mass matrix, step limit or invalid options.
            pub fn simulate(&self, x0: ::routh::nalgebra::SVector<f64, #d>, span: ::core::ops::Range<f64>, options: &::routh::runtime::Options)
                -> ::core::result::Result<::routh::runtime::Trajectory<#d>, ::routh::runtime::SimError>
            {
                ::routh::runtime::integrate(self, span, x0, &[], options)
            }

            /// Like [`Self::simulate`], locating the zero crossings of `events` on the dense output.
            ///
            /// # Errors
            /// As [`Self::simulate`].
            pub fn simulate_with_events(&self, x0: ::routh::nalgebra::SVector<f64, #d>, span: ::core::ops::Range<f64>,
                events: &[::routh::runtime::Event<'_, #d>], options: &::routh::runtime::Options)
                -> ::core::result::Result<::routh::runtime::Trajectory<#d>, ::routh::runtime::SimError>
            {
                ::routh::runtime::integrate(self, span, x0, events, options)
            }
        }, TokenStream::new())
    } else {
        let impact_methods = crate::emit_impact::methods(model, eq, impacts, dims, &mut parts);
        let (simulate, hybrid) = crate::emit_impact::hybrid_impl(model);
        (quote! { #impact_methods #simulate }, hybrid)
    };

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
    let allow = allow_generated();
    let dyn_fn = format_ident!("__routh_dynamics");
    let jac_fn = format_ident!("__routh_residual_jacobian");

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
                let mut x = ::routh::nalgebra::SVector::<f64, #d>::zeros();
                for i in 0..#n_lit {
                    x[i] = q[i];
                    x[#n_lit + i] = qdot[i];
                }
                x
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

            /// ∂g/∂q and ∂g/∂q̇ for the residual g(t, q, q̇, a) = f − M a (used by [`Self::jacobian`]).
            #allow
            fn #jac_fn(&self, t: f64, x: &::routh::nalgebra::SVector<f64, #d>, a: &::routh::nalgebra::SVector<f64, #n_lit>)
                -> (::routh::nalgebra::SMatrix<f64, #n_lit, #n_lit>, ::routh::nalgebra::SMatrix<f64, #n_lit, #n_lit>)
            {
                #(#jac_stmts)*
                (#gq, #gv)
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

            /// Accelerations q̈ = M⁻¹ f, solved numerically (Cholesky, LU fallback; M is never inverted
            /// symbolically).
            ///
            /// # Errors
            /// [`FieldError::SingularMassMatrix`](::routh::runtime::FieldError) if M is singular at this state.
            #[inline]
            pub fn accelerations(&self, t: f64, x: &::routh::nalgebra::SVector<f64, #d>)
                -> ::core::result::Result<::routh::nalgebra::SVector<f64, #n_lit>, ::routh::runtime::FieldError>
            {
                let (m, f) = self.#dyn_fn(t, x);
                ::routh::runtime::solve_mass(m, f).map_err(|_| ::routh::runtime::FieldError::SingularMassMatrix { t })
            }

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

            /// Jacobian ∂F/∂x of the first-order field x' = F(t, x) = (q̇, M⁻¹f), from symbolic
            /// derivatives: with g = f − M a, ∂q̈/∂x = M⁻¹ ∂g/∂x at a = q̈.
            ///
            /// # Errors
            /// [`FieldError::SingularMassMatrix`](::routh::runtime::FieldError) if M is singular at this state.
            pub fn jacobian(&self, t: f64, x: &::routh::nalgebra::SVector<f64, #d>)
                -> ::core::result::Result<::routh::nalgebra::SMatrix<f64, #d, #d>, ::routh::runtime::FieldError>
            {
                let (m, f) = self.#dyn_fn(t, x);
                let singular = |_| ::routh::runtime::FieldError::SingularMassMatrix { t };
                let a = ::routh::runtime::solve_mass(m, f).map_err(singular)?;
                let (gq, gv) = self.#jac_fn(t, x, &a);
                let dq = ::routh::runtime::solve_mass_columns(m, gq).map_err(singular)?;
                let dv = ::routh::runtime::solve_mass_columns(m, gv).map_err(singular)?;
                let mut j = ::routh::nalgebra::SMatrix::<f64, #d, #d>::zeros();
                for i in 0..#n_lit {
                    j[(i, #n_lit + i)] = 1.0;
                    for k in 0..#n_lit {
                        j[(#n_lit + i, k)] = dq[(i, k)];
                        j[(#n_lit + i, #n_lit + k)] = dv[(i, k)];
                    }
                }
                Ok(j)
            }

            #simulate_items
            #symmetry_items
        }

        #hybrid_impl

        #[automatically_derived]
        impl #generics ::routh::runtime::VectorField<#d> for #ty {
            #[inline]
            fn field(&self, t: f64, x: &::routh::nalgebra::SVector<f64, #d>)
                -> ::core::result::Result<::routh::nalgebra::SVector<f64, #d>, ::routh::runtime::FieldError>
            {
                let a = self.accelerations(t, x)?;
                let mut dx = ::routh::nalgebra::SVector::<f64, #d>::zeros();
                for i in 0..#n_lit {
                    dx[i] = x[#n_lit + i];
                    dx[#n_lit + i] = a[i];
                }
                Ok(dx)
            }
        }
    }
}
