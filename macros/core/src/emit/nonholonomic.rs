//! Emission of a nonholonomic reduced system (see [`crate::derive::nonholonomic`]): the reduced
//! type on x = (r, u) with its field (Maggi's equations, solved by the runtime), energy,
//! simulation, relative equilibria and reconstruction, and the full model's reduction of a state.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use crate::derive::nonholonomic::Nonholonomic;
use crate::emit::codegen::{Helpers, allow_generated, field_error, state_type, svector, symmetric_matrix};
use crate::model::View;
use crate::names::snake;
use crate::notation::{doc_block, formula};

/// Everything generated for one nonholonomic reduction of the model `full`.
#[allow(clippy::too_many_lines)]
pub fn emit(full: &View<'_>, red: &Nonholonomic, vis: &syn::Visibility) -> TokenStream {
    let rm = &red.model.view(full.arena);
    let (name, full_name) = (&rm.name, &full.name);
    let (nr, nu, k) = (rm.layout.position_dim(), rm.dof(), red.dropped.len());
    let (dr, d) = (nr + nu, full.layout.state_dim());
    let dz = dr + k;
    let coordinate_names: Vec<String> = rm.coordinates.iter().map(ToString::to_string).collect();
    let velocity_names: Vec<String> = rm.layout.velocity_names.iter().map(ToString::to_string).collect();
    let dropped_names: Vec<String> = rm.layout.dropped.iter().map(ToString::to_string).collect();
    let none = TokenStream::new();
    let mut helpers = Helpers::default();
    let base = snake(&name.to_string());

    // The documentation: the reduced equations and the reconstruction.
    let mut lines: Vec<(String, String)> = Vec::new();
    let rates = &rm.layout.rates;
    for (c, &e) in coordinate_names.iter().zip(rates) {
        lines.push((format!("dot({c})"), formula(rm, e)));
    }
    for i in 0..nu {
        for j in i..nu {
            lines.push((format!("M[{}, {}]", velocity_names[i], velocity_names[j]), formula(rm, red.mass[i][j])));
        }
    }
    let zero = |e: symbolic::Expr| rm.arena.zero_test(e).is_zero();
    for ((u, &e), parts) in velocity_names.iter().zip(&red.forcing).zip(&red.forcing_by_degree) {
        lines.push((format!("f[{u}]"), formula(rm, e)));
        // By degree in the velocities, when more than one part is there.
        if parts.iter().filter(|&&p| !zero(p)).count() > 1 {
            for (k, &p) in parts.iter().enumerate().filter(|(_, p)| !zero(**p)) {
                lines.push((format!("f{}[{u}]", ["₀", "₁", "₂"][k]), formula(rm, p)));
            }
        }
    }
    for (g, &e) in dropped_names.iter().zip(&red.dropped_rates) {
        lines.push((format!("dot({g})"), formula(rm, e)));
    }
    // A quotient map: σ over the full model's coordinates, ι over the reduced ones and g.
    let quotient = full.reductions.iter().find(|r| r.name == *name).and_then(|r| r.quotient.as_ref());
    if let Some(qm) = quotient {
        for (s, &e) in qm.names.iter().zip(&qm.values) {
            lines.push((s.to_string(), formula(full, e)));
        }
        for (_, x, e) in &qm.inverse {
            lines.push((x.to_string(), formula(rm, *e)));
        }
    }
    if let Some(e) = red.energy {
        lines.push(("E".into(), formula(rm, e)));
    }
    if let Some(c) = &red.second_chart {
        // Chart 1's attitude (|q|² is the sum of its squares).
        for &(sym, value) in c.bindings[0].iter().take(4) {
            lines.push((crate::notation::display_name(rm, sym), formula(rm, value)));
        }
    }
    if let Some(ch) = &red.chaplygin {
        let zero = |e: symbolic::Expr| rm.arena.zero_test(e).is_zero();
        for (g, row) in dropped_names.iter().zip(&ch.connection) {
            for (r, &a) in coordinate_names.iter().zip(row).filter(|(_, a)| !zero(**a)) {
                lines.push((format!("A[{g}, {r}]"), formula(rm, a)));
            }
        }
        for (g, b) in dropped_names.iter().zip(&ch.curvature) {
            for al in 0..nr {
                for be in (al + 1)..nr {
                    if !zero(b[al][be]) {
                        let (x, y) = (&coordinate_names[al], &coordinate_names[be]);
                        lines.push((format!("B[{g}]({x}, {y})"), formula(rm, b[al][be])));
                    }
                }
            }
        }
        for (g, &p) in dropped_names.iter().zip(&ch.momenta) {
            lines.push((format!("p[{g}]"), formula(rm, p)));
        }
        for (u, &e) in velocity_names.iter().zip(&ch.gyroscopic) {
            lines.push((format!("G[{u}]"), formula(rm, e)));
        }
    }
    for m in &red.momenta {
        lines.push((format!("J_{}", m.name), formula(rm, m.value)));
        if let Some((e, _)) = m.moving_energy {
            lines.push((format!("E_{}", m.name), formula(rm, e)));
        }
    }
    if let Some(routh) = &red.routh {
        lines.push(("R".into(), formula(rm, routh.routhian)));
        lines.push(("V_μ".into(), formula(rm, routh.amended)));
    }
    let summary = red.routh.as_ref().map_or_else(
        || {
            let mut text = maggi_summary(red, full_name, &velocity_names, &dropped_names, &coordinate_names);
            if let Some(qm) = quotient {
                let invariant: Vec<String> = qm.symmetries.iter().map(|(_, s)| format!("`{s}`")).collect();
                text.push_str(&format!(
                    " The shape coordinates ({}) are the quotient map σ below, the full model's ({}) given back by its \
                     inverse ι(s, g); the derive proved ι(σ(q), g) = q, that σ and ι are of full rank{}, and wrote the \
                     equations in the chart (s, g).",
                    coordinate_names.join(", "),
                    qm.inverse.iter().map(|(_, x, _)| x.to_string()).collect::<Vec<_>>().join(", "),
                    if invariant.is_empty() {
                        String::new()
                    } else {
                        format!(" and that σ and the constraints are invariant under the symmetry {}", invariant.join(", "))
                    }
                ));
            }
            text
        },
        |routh| {
            format!(
                "Routh reduction of [`{full_name}`] by the rotations of `{r}` (non-abelian, SO(3) acting by R ↦ g R): the \
                 motion at a level μ of the spatial angular momentum R Π, in the shape coordinates, the body angular momentum \
                 Π = ∂L/∂ω (which stays on the sphere |Π| = |μ|) and the shape velocities — the state is x = ({}). The \
                 derive proved that the spatial angular momentum is conserved and that nothing here depends on the \
                 attitude. ω = I⁻¹(Π − c) solves Π = ∂L/∂ω; Π̇ = Π × ω; the shape rows M u̇ = f are the full model's with ω̇ \
                 eliminated, i.e. the Euler–Lagrange equations of the Routhian R = [L − Π·ω] (with Π moving), whose part \
                 without velocities is −V_μ, the amended potential. The attitude follows by q̇ = ½ q ⊗ (0, ω) \
                 (`cyclic_velocities`, `simulate_reconstructed`), determined by Π up to the rotations about μ; \
                 `relative_equilibrium` finds steady motions.{}",
                coordinate_names.iter().chain(&velocity_names).cloned().collect::<Vec<_>>().join(", "),
                if red.energy.is_some() {
                    ""
                } else {
                    " The full model's energy depends on the attitude, so there is no `energy`."
                },
                r = routh.orientation,
            )
        },
    );
    let chaplygin_text = red.chaplygin.as_ref().map_or(String::new(), |_| {
        format!(
            " This is a **Chaplygin system**: the dropped coordinates ({}) are cyclic and the constraints a connection \
             on the shape ({}), ġ = −A(r) ṙ (the constraint distribution complementary to the group's orbits, \
             D ⊕ V = TQ), so these are Chaplygin's equations d/dt ∂l_c/∂ṙ − ∂l_c/∂r = G for the constrained reduced \
             Lagrangian l_c, with the gyroscopic force G_α = p_a B^a_αβ ṙ^β of the connection's curvature \
             B^a_αβ = ∂A^a_β/∂r^α − ∂A^a_α/∂r^β (`gyroscopic_force`, `curvature`; p_a = ∂L/∂ġ^a on the distribution).",
            dropped_names.join(", "),
            coordinate_names.join(", ")
        )
    });
    let advected_text = red.second_chart.as_ref().map_or(String::new(), |c| {
        let axis = format!("{}e_{}", if c.axis.1 > 0 { "" } else { "−" }, ["x", "y", "z"][c.axis.0]);
        let gamma: Vec<&String> = coordinate_names.iter().rev().take(3).rev().collect();
        format!(
            " The orientation is reduced by the rotations `{sym}` about a = {axis} alone (**Euler–Poisson**): \
             Γ = Rᵀa ({g}) stays in the state and moves by Γ̇ = Γ × ω. The derive proved the equations invariant under \
             those rotations, so they read the attitude through Γ alone, and evaluates them at an attitude q(Γ) with \
             R(q)ᵀa = Γ: q = p ⊗ s(Γ), p a constant turn taking e_z to a, s = (1 + Γ₃, Γ₂, −Γ₁, 0) where Γ₃ ≥ 0 (the \
             equations below) and s = (Γ₂, 1 − Γ₃, 0, Γ₁) where Γ₃ < 0 (two charts of the sphere: neither alone covers \
             it). Γ must be a unit vector, as Rᵀa is (the flow keeps |Γ|).",
            sym = c.symmetry,
            g = gamma.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", ")
        )
    });
    let summary = format!("{summary}{chaplygin_text}{advected_text}{}", momenta_summary(red));
    let struct_doc = doc_block(&summary, &lines);
    let fields = rm.parameters.iter();
    let field_docs: Vec<String> = rm.parameters.iter().map(|p| format!(" Parameter `{p}` of [`{full_name}`].")).collect();

    // The field, M, f, the exact Jacobian and the energy: in one chart, or in two switched on the
    // sign of Γ₃ (Euler–Poisson).
    let first = Equations {
        rates: &red.model.layout.rates,
        mass: &red.mass,
        forcing: &red.forcing,
        energy: red.energy,
        jacobian: &red.jacobian,
        bindings: red.second_chart.as_ref().map_or(&[][..], |c| &c.bindings[0][..]),
    };
    let one = chart_code(rm, &mut helpers, &base, &first, (nr, nu, dr));
    let code = match &red.second_chart {
        None => one,
        Some(c) => {
            let second = Equations { jacobian: &c.jacobian, bindings: &c.bindings[1], ..first };
            let two = chart_code(rm, &mut helpers, &format!("{base}_chart2"), &second, (nr, nu, dr));
            let switch = c.switch;
            let pick = |a: &TokenStream, b: &TokenStream| quote! { if x[#switch] >= 0.0 { #a } else { #b } };
            ChartCode {
                field: pick(&one.field, &two.field),
                jacobian: pick(&one.jacobian, &two.jacobian),
                mass: pick(&one.mass, &two.mass),
                forcing: pick(&one.forcing, &two.forcing),
                energy: one.energy.zip(two.energy).map(|(a, b)| pick(&a, &b)),
            }
        }
    };
    let ChartCode { field: field_code, jacobian: jacobian_code, mass: mass_code, forcing: forcing_code, energy: energy_code } =
        code;
    let energy = energy_code.map(|body| {
        quote! {
            /// The full model's energy at the reduced state (see the type's documentation).
            #[must_use]
            pub fn energy(&self, t: f64, x: &__routh::State<#dr>) -> f64 {
                #body
            }
        }
    });
    // Reconstruction: the dropped rates, and every rate for the full state.
    let gk = quote! { g: &[f64; #k], };
    let gk_arg = quote! { g, };
    let (w_stmts, w_vals) = helpers.body(rm, &red.dropped_rates, &format!("__routh_{base}_dropped"), &gk, &gk_arg);
    // With a quotient map, the kept positions too: ι(t, s, g).
    let mut v_outputs = red.full_velocities.clone();
    v_outputs.extend(red.kept_positions.iter().flatten().copied());
    let (v_stmts, v_vals) = helpers.body(rm, &v_outputs, &format!("__routh_{base}_rates"), &gk, &gk_arg);
    let (v_vals, kept_vals) = v_vals.split_at(red.full_velocities.len());
    let (np, n) = (full.layout.position_dim(), full.dof());
    let positions: Vec<TokenStream> = (0..np)
        .map(|c| match red.kept.iter().position(|&r| r == c) {
            Some(j) if red.kept_positions.is_some() => kept_vals[j].clone(),
            Some(j) => quote! { x[#j] },
            None => {
                let i = red.dropped.iter().position(|&r| r == c).unwrap_or(0);
                quote! { g[#i] }
            }
        })
        .collect();
    let idx: Vec<usize> = (0..np).collect();
    let vel_idx: Vec<usize> = (0..n).collect();
    let idx_v: Vec<usize> = (np..np + n).collect();
    let (xt, rt, kt) = (state_type(d), state_type(dr), svector(k));
    let fe = field_error();
    let allow = allow_generated();
    let r_idx: Vec<usize> = (0..nr).collect();
    let u_idx: Vec<usize> = (nr..dr).collect();
    // A Routh reduction's Routhian and amended potential.
    let routh_items = red.routh.as_ref().map(|routh| {
        let (r_stmts, r_vals) =
            helpers.body(rm, &[routh.routhian, routh.amended], &format!("__routh_{base}_routhian"), &none, &none);
        let (rv, av) = (&r_vals[0], &r_vals[1]);
        quote! {
            /// The Routhian R = [L − Π·ω] at ω = I⁻¹(Π − c), at the reduced state (see the type's
            /// documentation).
            #allow
            #[must_use]
            pub fn routhian(&self, t: f64, x: &#rt) -> f64 {
                #(#r_stmts)*
                #rv
            }

            /// The amended potential V_μ = −R at zero shape velocity: the potential plus the
            /// rotational energy the momentum Π keeps at this shape.
            #allow
            #[must_use]
            pub fn amended_potential(&self, t: f64, x: &#rt) -> f64 {
                #(#r_stmts)*
                #av
            }
        }
    });
    let momentum_items = momentum_items(rm, red, &mut helpers, &base, dr, full_name);
    let chaplygin_items = red.chaplygin.as_ref().map(|ch| {
        let mut outputs: Vec<symbolic::Expr> = ch.gyroscopic.clone();
        outputs.extend(ch.curvature.iter().flatten().flatten().copied());
        let (stmts, vals) = helpers.body(rm, &outputs, &format!("__routh_{base}_chaplygin"), &none, &none);
        let (gyro, curv) = vals.split_at(nu);
        let matrices: Vec<TokenStream> = curv.chunks(nr * nr).map(|c| crate::emit::codegen::matrix(nr, nr, c)).collect();
        let rt = state_type(dr);
        quote! {
            /// The gyroscopic force G_α = p_a B^a_αβ ṙ^β of the connection's curvature: the part of the
            /// reduced right-hand side the constraints add to the Euler–Lagrange equations of the
            /// constrained reduced Lagrangian (see the type's documentation).
            #allow
            #[must_use]
            pub fn gyroscopic_force(&self, t: f64, x: &#rt) -> __routh::Vector<#nu> {
                #(#stmts)*
                __routh::Vector::<#nu>::from([#(#gyro),*])
            }

            /// The curvature B^a_αβ = ∂A^a_β/∂r^α − ∂A^a_α/∂r^β of the connection ġ = −A(r) ṙ, one
            /// shape × shape matrix per dropped coordinate (see the type's documentation).
            #allow
            #[must_use]
            pub fn curvature(&self, t: f64, x: &#rt) -> [__routh::Matrix<#nr, #nr>; #k] {
                #(#stmts)*
                [#(#matrices),*]
            }
        }
    });
    let run_doc = crate::emit::run::doc(
        "Adaptive integration of the reduced system into a `Trajectory`; `.reconstructed(g0)` runs it with the \
         dropped coordinates from `g0` and returns the full model's trajectory.",
    );
    let (run_items, run_impls) =
        crate::emit::run::items(name, &crate::emit::run::Kind::smooth(dr), &run_doc, Some(quote! { plan.integrate(self) }), None);
    let items = crate::emit::codegen::lazy(quote! {
        #momentum_items

        #chaplygin_items

        /// The kept coordinates, in the order of the state's positions.
        pub const COORDINATES: [&'static str; #nr] = [#(#coordinate_names),*];
        /// The velocities u, in the order of the state's velocities.
        pub const VELOCITIES: [&'static str; #nu] = [#(#velocity_names),*];
        /// The dropped coordinates, in the order of `cyclic_velocities` and `reconstruct`.
        pub const DROPPED: [&'static str; #k] = [#(#dropped_names),*];

        /// The reduced state x = (r, u).
        #[must_use]
        pub fn state(&self, r: [f64; #nr], u: [f64; #nu]) -> #rt {
            let mut x = <#rt>::zeros();
            #( x[#r_idx] = r[#r_idx]; )*
            #( x[#u_idx] = u[#u_idx - #nr]; )*
            x
        }

        /// Sᵀ M S, the reduced equations' matrix (see the type's documentation).
        #allow
        #[must_use]
        pub fn mass(&self, t: f64, x: &#rt) -> __routh::Matrix<#nu, #nu> {
            #mass_code
        }

        /// Sᵀ (f − M a₀), the reduced equations' right-hand side (see the type's documentation).
        #allow
        #[must_use]
        pub fn forcing(&self, t: f64, x: &#rt) -> __routh::Vector<#nu> {
            #forcing_code
        }

        #energy

        #routh_items

        #run_items

        /// The dropped coordinates' rates at the reduced state `x` and the dropped positions `g`
        /// (the reconstruction equations; see the type's documentation).
        #allow
        #[must_use]
        pub fn cyclic_velocities(&self, t: f64, x: &#rt, g: &[f64; #k]) -> #kt {
            #(#w_stmts)*
            <#kt>::from([#(#w_vals),*])
        }

        /// The full model's state from the reduced state `x` and the dropped positions `g`.
        #allow
        #[must_use]
        pub fn reconstruct(&self, t: f64, x: &#rt, g: [f64; #k]) -> #xt {
            let g = &g;
            #(#v_stmts)*
            let v = [#(#v_vals),*];
            let mut full = <#xt>::zeros();
            #( full[#idx] = #positions; )*
            #( full[#idx_v] = v[#vel_idx]; )*
            full
        }

        /// A relative equilibrium — a fixed point of the reduced system, a steady motion of the full
        /// model — from `guess` at time `t`, with the Jacobian's eigenvalues for its stability
        /// ([`fixed_point`](::routh::runtime::equilibrium::fixed_point)).
        ///
        /// # Errors
        /// A failed evaluation, or no convergence (with the last iterate).
        pub fn relative_equilibrium(&self, t: f64, guess: #rt, options: &__routh::equilibrium::FixedPointOptions)
            -> ::core::result::Result<__routh::equilibrium::FixedPoint<#dr>, __routh::equilibrium::FixedPointError>
        {
            __routh::equilibrium::fixed_point(self, t, guess, options)
        }
    });
    let hidden = helpers.into_impl(&TokenStream::new(), &quote!(#name));
    let kind = crate::emit::run::Kind::smooth(dr);
    let reconstructed = crate::emit::run::extra(
        name,
        &kind,
        quote! { __routh::Reconstructed<#k> },
        quote! { __routh::Trajectory<#d> },
        quote! { plan.reconstructed::<Self, #k, #dz, #d>(self, with.0) },
    );
    let run_impls = quote! { #run_impls #reconstructed };

    // The full model's reduction of a state.
    let mut full_helpers = Helpers::default();
    let mut reduce_out: Vec<symbolic::Expr> = red.reduce_positions.clone();
    reduce_out.extend(red.velocities.iter().copied());
    let (r_stmts, r_vals) = full_helpers.body(full, &reduce_out, &format!("__routh_{base}_reduce"), &none, &none);
    let dropped_idx = red.dropped.clone();
    let params = full.parameters.iter();
    let reduce_fn = format_ident!("{}", base);
    let reduce_doc = format!(
        " Reduces a state of this model to [`{name}`]: the reduced system, the reduced state (r, u) and the dropped \
         positions ({}).",
        dropped_names.join(", ")
    );
    let full_items = crate::emit::codegen::lazy(quote! {
        #[doc = #reduce_doc]
        #allow
        #[must_use]
        pub fn #reduce_fn(&self, t: f64, x: &#xt) -> (#name, #rt, [f64; #k]) {
            #(#r_stmts)*
            let reduced = #name { #( #params: self.#params, )* };
            (reduced, <#rt>::from([#(#r_vals),*]), [#( x[#dropped_idx] ),*])
        }
    });
    let hybrid = if full.impacts.is_empty() {
        TokenStream::new()
    } else {
        let momentum = red.routh.as_ref().map_or(&[][..], |r| &r.momentum[..]);
        hybrid(&mut full_helpers, full, momentum, name, &reduce_fn, (dr, k, d), &base)
    };
    let full_hidden = full_helpers.into_impl(&TokenStream::new(), &quote!(#full_name));
    quote! {
        #struct_doc
        #[derive(Debug, Clone, Copy, PartialEq)]
        #vis struct #name {
            #( #[doc = #field_docs] pub #fields: f64, )*
        }

        #hidden

        #[automatically_derived]
        impl #name {
            #items
        }

        #[automatically_derived]
        impl __routh::VectorField<#dr> for #name {
            #allow
            fn field(&self, t: f64, x: &#rt) -> ::core::result::Result<#rt, #fe> {
                #field_code
            }
            #allow
            fn exact_jacobian(&self, t: f64, x: &#rt)
                -> ::core::option::Option<::core::result::Result<__routh::Matrix<#dr, #dr>, #fe>>
            {
                #jacobian_code
            }
        }

        #run_impls

        #[automatically_derived]
        impl __routh::Reconstruction<#dr, #k, #d> for #name {
            fn cyclic_velocities(&self, t: f64, x: &#rt, g: &[f64; #k]) -> #kt {
                #name::cyclic_velocities(self, t, x, g)
            }
            fn reconstruct(&self, t: f64, x: &#rt, g: [f64; #k]) -> #xt {
                #name::reconstruct(self, t, x, g)
            }
        }

        #full_hidden

        #[automatically_derived]
        impl #full_name {
            #full_items
        }

        #hybrid
    }
}

/// A reduction of a model with impacts: the reduced state and the dropped positions between
/// impacts, guards on the reconstructed full state, the full impact law at each impact, and the
/// post-impact state reduced again (the runtime's `simulate_hybrid_reduced`). A Routh reduction
/// by rotations carries its spatial momentum μ = R Π along (constant between impacts) and reports
/// it before and after each impact; a nonholonomic one carries none (`momentum` empty).
fn hybrid(
    helpers: &mut Helpers,
    full: &View<'_>,
    momentum: &[symbolic::Expr],
    name: &syn::Ident,
    reduce_fn: &syn::Ident,
    (dr, k, d): (usize, usize, usize),
    base: &str,
) -> TokenStream {
    let none = TokenStream::new();
    let full_name = &full.name;
    let m = momentum.len();
    let dz = dr + k + m;
    let (m_stmts, m_vals) = helpers.body(full, momentum, &format!("__routh_{base}_spatial_momentum"), &none, &none);
    let params = full.parameters.iter();
    let (xt, rt) = (state_type(d), state_type(dr));
    let maggi_doc = format!(
        " Hybrid reduction of [`{full_name}`] through [`{name}`]: \
         `model.run(x0).span(t0..t1).reduced::<{name}>().go()?` integrates the reduced system between impacts \
         (reconstructing the dropped coordinates alongside), evaluates the guards on the reconstructed state, applies \
         the full impact law at each impact and reduces the post-impact state again; returns the reconstructed \
         trajectory of the full model."
    );
    let doc = format!(
        " Hybrid Routh reduction of [`{full_name}`] by rotations, through [`{name}`]: integrates the reduced system \
         between impacts (reconstructing the attitude alongside), evaluates the guards on the reconstructed state, \
         applies the full impact law at each impact and reduces the post-impact state again (*Hybrid momentum maps*, §4, \
         Ex. 2): `model.run(x0).span(t0..t1).reduced::<{name}>().go()?` returns the reconstructed trajectory of the \
         full model and the spatial angular momentum μ = R Π before and after every impact (unchanged when the guards \
         and the law are invariant: a hybrid momentum map)."
    );
    let allow = allow_generated();
    let items = crate::emit::codegen::lazy(quote! {
        type Reduced = #name;
        fn reduce(&self, t: f64, x: &#xt) -> (#name, #rt, [f64; #k]) {
            self.#reduce_fn(t, x)
        }
        fn reduced_at(&self, _mu: [f64; #m]) -> #name {
            #name { #( #params: self.#params, )* }
        }
        #allow
        fn momenta(&self, t: f64, x: &#xt) -> [f64; #m] {
            #(#m_stmts)*
            [#(#m_vals),*]
        }
    });
    let kind = crate::emit::run::Kind::hybrid(d);
    let with = quote! { __routh::ReducedBy<#name> };
    let run = if m == 0 {
        let run = crate::emit::run::extra(
            full_name,
            &kind,
            with,
            quote! { __routh::HybridTrajectory<#d> },
            quote! { self.check_parameters()?; plan.reduced_without_momenta::<Self, #dr, #k, #dz>(self) },
        );
        quote! { #[doc = #maggi_doc] #run }
    } else {
        let run = crate::emit::run::extra(
            full_name,
            &kind,
            with,
            quote! { (__routh::HybridTrajectory<#d>, ::std::vec::Vec<__routh::MomentumJump<#m>>) },
            quote! { self.check_parameters()?; plan.reduced::<Self, #dr, #k, #m, #dz>(self) },
        );
        quote! { #[doc = #doc] #run }
    };
    quote! {
        #[automatically_derived]
        impl __routh::HybridReduction<#dr, #k, #m, #d> for #full_name {
            #items
        }

        #run
    }
}

/// The first paragraph of a Maggi (nonholonomic, Euler–Poincaré) reduced type's documentation.
fn maggi_summary(
    red: &Nonholonomic,
    full_name: &syn::Ident,
    velocity_names: &[String],
    dropped_names: &[String],
    coordinate_names: &[String],
) -> String {
    // Where the equations are evaluated: at the dropped coordinates' zero, or on a section of the
    // symmetry (Euler–Poisson's attitude bound to Γ), or through the user's quotient map.
    let evaluated = if red.second_chart.is_some() {
        "evaluated on a section of the rotations about the symmetry's axis (the attitude bound to Γ, in two charts; \
         the derive proved the equations invariant under those rotations, so they read the attitude through Γ only)"
    } else if red.kept_positions.is_some() {
        "evaluated in the chart (s, g) of the quotient map, q = ι(t, s, g), where the dropped coordinates g are 0 \
         (the derive proved that nothing here depends on them)"
    } else {
        "evaluated where the dropped coordinates are 0 (the derive proved that nothing here depends on them)"
    };
    format!(
        "Nonholonomic reduction of [`{full_name}`]: the constrained motion in the velocities ({}) with the \
         coordinates ({}) dropped — Maggi's equations M u̇ = f, M = Sᵀ M_full S and f = Sᵀ (f_full − M_full a₀) \
         for q̇ = S u + s, {evaluated}; where f has parts of several degrees in u, they are shown as f₀ (at rest: the potential's forces), f₁ \
         (linear: gyroscopic and damping) and f₂ (the rest: quadratic for mechanical forces, the curvature of the \
         constraints and the metric's terms). The state is x = ({}). The dropped coordinates follow by quadrature of \
         their rates \
         (`cyclic_velocities`, `simulate_reconstructed`); `relative_equilibrium` finds steady motions.{}",
        velocity_names.join(", "),
        dropped_names.join(", "),
        coordinate_names.iter().chain(velocity_names).cloned().collect::<Vec<_>>().join(", "),
        if red.energy.is_some() {
            ""
        } else {
            " The full model's energy depends on the dropped coordinates, so the reduced type has no `energy`."
        }
    )
}

/// What the reduced type says of the full model's momentum maps.
fn momenta_summary(red: &Nonholonomic) -> String {
    let mut text = String::new();
    for m in &red.momenta {
        let status = match (m.conserved, m.horizontal) {
            (true, _) => "conserved (no force along ξ, and ξ lies in the constraint distribution)",
            (false, true) => "ξ lies in the constraint distribution, so only the forces change it",
            (false, false) => "the constraint forces act along ξ: it obeys the nonholonomic momentum equation",
        };
        text.push_str(&format!(
            " The momentum map J_{0} of the symmetry `{0}` is a function of the reduced state (`{0}_momentum`, its rate \
             along the reduced flow `{0}_momentum_rate`): {status}.",
            m.name
        ));
        if m.moving_energy.is_some() {
            text.push_str(&format!(
                " The moving energy E_{0} = E − c J_{0}, conserved where the affine part of the constraints is generated by \
                 `{0}`, is `{0}_moving_energy`.",
                m.name
            ));
        }
    }
    if !red.unreduced_momenta.is_empty() {
        let names: Vec<String> = red.unreduced_momenta.iter().map(|n| format!("`{n}`")).collect();
        text.push_str(&format!(
            " The momentum maps of {} depend on the dropped coordinates: they are not functions of the reduced state.",
            names.join(", ")
        ));
    }
    text
}

/// `<name>_momentum`, `<name>_momentum_rate` and `<name>_moving_energy` of the reduced type.
fn momentum_items(
    rm: &View<'_>,
    red: &Nonholonomic,
    helpers: &mut Helpers,
    base: &str,
    dr: usize,
    full: &syn::Ident,
) -> TokenStream {
    let none = TokenStream::new();
    let rt = state_type(dr);
    let fe = field_error();
    let allow = allow_generated();
    let mut items = TokenStream::new();
    for m in &red.momenta {
        let name = &m.name;
        let (momentum_fn, rate_fn) = (format_ident!("{name}_momentum"), format_ident!("{name}_momentum_rate"));
        let mut outputs = vec![m.value, m.time_derivative];
        outputs.extend(m.gradient.iter().copied());
        let (stmts, vals) = helpers.body(rm, &outputs, &format!("__routh_{base}_{name}_momentum"), &none, &none);
        let (value, dt, gradient) = (&vals[0], &vals[1], &vals[2..]);
        let doc = format!(
            " The momentum map J_{name} = ⟨p, ξ⟩ of [`{full}`]'s symmetry `{name}` at the reduced state (see the type's \
             documentation)."
        );
        let rate_doc = format!(
            " dJ_{name}/dt along the reduced flow, ∂J/∂t + ∂J/∂x · F(t, x): the nonholonomic momentum equation's right-hand \
             side, evaluated."
        );
        items.extend(quote! {
            #[doc = #doc]
            #allow
            #[must_use]
            pub fn #momentum_fn(&self, t: f64, x: &#rt) -> f64 {
                #(#stmts)*
                #value
            }

            #[doc = #rate_doc]
            ///
            /// # Errors
            /// As the field.
            #allow
            pub fn #rate_fn(&self, t: f64, x: &#rt) -> ::core::result::Result<f64, #fe> {
                let f = __routh::VectorField::field(self, t, x)?;
                #(#stmts)*
                let gradient = <#rt>::from([#(#gradient),*]);
                ::core::result::Result::Ok(#dt + gradient.dot(&f))
            }
        });
        if let Some((e, _)) = m.moving_energy {
            let moving_fn = format_ident!("{name}_moving_energy");
            let (stmts, vals) = helpers.body(rm, &[e], &format!("__routh_{base}_{name}_moving"), &none, &none);
            let v = &vals[0];
            let doc = format!(" The moving energy E − c J_{name} at the reduced state (see the type's documentation).");
            items.extend(quote! {
                #[doc = #doc]
                #allow
                #[must_use]
                pub fn #moving_fn(&self, t: f64, x: &#rt) -> f64 {
                    #(#stmts)*
                    #v
                }
            });
        }
    }
    items
}

/// A reduced system's equations in one chart (see [`chart_code`]).
#[derive(Clone, Copy)]
struct Equations<'a> {
    rates: &'a [symbolic::Expr],
    mass: &'a [Vec<symbolic::Expr>],
    forcing: &'a [symbolic::Expr],
    energy: Option<symbolic::Expr>,
    jacobian: &'a crate::derive::nonholonomic::FirstOrderJacobian,
    /// Symbols bound to their values in this chart (Euler–Poisson's quaternion), none otherwise.
    bindings: &'a [(symbolic::Expr, symbolic::Expr)],
}

/// The bodies (blocks over `t` and `x`) of the reduced type's field, exact Jacobian, `mass`,
/// `forcing` and `energy` in one chart.
struct ChartCode {
    field: TokenStream,
    jacobian: TokenStream,
    mass: TokenStream,
    forcing: TokenStream,
    energy: Option<TokenStream>,
}

fn chart_code(
    rm: &View<'_>,
    helpers: &mut Helpers,
    base: &str,
    eq: &Equations<'_>,
    (nr, nu, dr): (usize, usize, usize),
) -> ChartCode {
    let none = TokenStream::new();
    let upper_len = nu * (nu + 1) / 2;
    let mut outputs: Vec<symbolic::Expr> = eq.rates.to_vec();
    for i in 0..nu {
        for j in i..nu {
            outputs.push(eq.mass[i][j]);
        }
    }
    outputs.extend(eq.forcing.iter().copied());
    let (f_stmts, f_vals) = helpers.body_bound(rm, eq.bindings, &outputs, &format!("__routh_{base}_field"), &none, &none);
    let (rates, rest) = f_vals.split_at(nr);
    let (upper, forcing) = rest.split_at(upper_len);
    let mass = symmetric_matrix(nu, upper);
    let (m_stmts, m_vals) =
        helpers.body_bound(rm, eq.bindings, &outputs[nr..nr + upper_len], &format!("__routh_{base}_mass"), &none, &none);
    let mass_only = symmetric_matrix(nu, &m_vals);
    let (fo_stmts, fo_vals) = helpers.body_bound(rm, eq.bindings, eq.forcing, &format!("__routh_{base}_forcing"), &none, &none);
    // The exact Jacobian: ∂ṙ/∂x, M, f, ∂M/∂xₖ and ∂f/∂x, assembled by the runtime.
    let jac = eq.jacobian;
    let mut j_outputs: Vec<symbolic::Expr> = jac.rates.clone();
    j_outputs.extend_from_slice(&outputs[nr..]);
    for dm in &jac.mass {
        j_outputs.extend_from_slice(dm);
    }
    j_outputs.extend_from_slice(&jac.forcing);
    let (j_stmts, j_vals) = helpers.body_bound(rm, eq.bindings, &j_outputs, &format!("__routh_{base}_jacobian"), &none, &none);
    let (j_rates, rest) = j_vals.split_at(nr * dr);
    let (j_mass, rest) = rest.split_at(upper_len);
    let (j_forcing, rest) = rest.split_at(nu);
    let (j_dmass, j_dforcing) = rest.split_at(dr * upper_len);
    let j_rates = crate::emit::codegen::matrix(nr, dr, j_rates);
    let j_mass = symmetric_matrix(nu, j_mass);
    let j_dmass: Vec<TokenStream> = j_dmass.chunks(upper_len.max(1)).take(dr).map(|c| symmetric_matrix(nu, c)).collect();
    let j_dforcing = crate::emit::codegen::matrix(nu, dr, j_dforcing);
    let energy = eq.energy.map(|e| {
        let (stmts, vals) = helpers.body_bound(rm, eq.bindings, &[e], &format!("__routh_{base}_energy"), &none, &none);
        let v = &vals[0];
        quote! { #(#stmts)* #v }
    });
    ChartCode {
        field: quote! {
            #(#f_stmts)*
            let rates = __routh::Vector::<#nr>::from([#(#rates),*]);
            let forcing = __routh::Vector::<#nu>::from([#(#forcing),*]);
            __routh::reduction::nonholonomic_field::<#nr, #nu, #dr>(t, rates, #mass, forcing)
        },
        jacobian: quote! {
            #(#j_stmts)*
            let forcing = __routh::Vector::<#nu>::from([#(#j_forcing),*]);
            ::core::option::Option::Some(__routh::reduction::nonholonomic_jacobian::<#nr, #nu, #dr>(
                t, #j_rates, (#j_mass, forcing), (&[#(#j_dmass),*], #j_dforcing),
            ))
        },
        mass: quote! { #(#m_stmts)* #mass_only },
        forcing: quote! {
            #(#fo_stmts)*
            __routh::Vector::<#nu>::from([#(#fo_vals),*])
        },
        energy,
    }
}
