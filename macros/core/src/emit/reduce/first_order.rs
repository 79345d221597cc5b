//! Emission of a nonholonomic reduced system (see [`crate::derive::reduce`]): the reduced
//! type on x = (r, u) with its field (Maggi's equations, solved by the runtime), energy,
//! simulation, relative equilibria and reconstruction, and the full model's reduction of a state.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use crate::derive::reduce::FirstOrder;
use crate::emit::codegen::{Helpers, allow_generated, field_error, state_type, svector, symmetric_matrix};
use crate::model::View;
use crate::names::snake;

/// Everything generated for one nonholonomic reduction of the model `full`.
#[allow(clippy::too_many_lines)]
pub fn emit(full: &View<'_>, red: &FirstOrder, vis: &syn::Visibility) -> TokenStream {
    let rm = &red.model.view(full.arena);
    let (name, full_name) = (&rm.name, &full.name);
    let (nr, nu, k) = (rm.layout.position_dim(), rm.dof(), red.dropped.len());
    let (dr, d) = (nr + nu, full.layout.state_dim());
    let coordinate_names: Vec<String> = rm.coordinates.iter().map(ToString::to_string).collect();
    let velocity_names: Vec<String> = rm.layout.velocity_names.iter().map(ToString::to_string).collect();
    let dropped_names: Vec<String> = rm.layout.dropped.iter().map(ToString::to_string).collect();
    let mut helpers = Helpers::default();
    let base = snake(&name.to_string());

    let struct_doc = super::doc::struct_doc(full, rm, red);
    let fields = rm.parameters.iter();
    let field_docs: Vec<String> = rm.parameters.iter().map(|p| format!(" Parameter `{p}` of [`{full_name}`].")).collect();

    let code = charts(rm, red, &mut helpers, &base);
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
    let reconstruction = reconstruction(full, rm, red, &mut helpers, &base);
    let (xt, rt, kt) = (state_type(d), state_type(dr), svector(k));
    let fe = field_error();
    let allow = allow_generated();
    let r_idx: Vec<usize> = (0..nr).collect();
    let u_idx: Vec<usize> = (nr..dr).collect();
    let super::terms::Items { routh: routh_items, momenta: momentum_items, chaplygin: chaplygin_items } =
        super::terms::items(rm, red, &mut helpers, &base, full_name);
    let (run_items, run_impls) = runs(name, (dr, k, d));
    let check = crate::emit::checks::reduced_check_parameters(rm);
    let items = crate::emit::codegen::lazy(quote! {
        #check

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

        #reconstruction

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

    let on_full = on_full_model(full, rm, red, &base);
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

        #on_full
    }
}

/// The reduced type's `run` and its `Runs` impls: a plain run, and `.reconstructed(g0)`.
fn runs(name: &syn::Ident, (dr, k, d): (usize, usize, usize)) -> (TokenStream, TokenStream) {
    let dz = dr + k;
    let run_doc = crate::emit::run::doc(
        "Adaptive integration of the reduced system into a `Trajectory`; `.reconstructed(g0)` runs it with the \
         dropped coordinates from `g0` and returns the full model's trajectory.",
    );
    let (run_items, run_impls) = crate::emit::run::items(
        name,
        &crate::emit::run::Kind::smooth(dr),
        &run_doc,
        Some(quote! { self.check_parameters()?; plan.integrate(self) }),
        None,
    );
    let kind = crate::emit::run::Kind::smooth(dr);
    let reconstructed = crate::emit::run::extra(
        name,
        &kind,
        quote! { __routh::Reconstructed<#k> },
        quote! { __routh::Trajectory<#d> },
        quote! {
            self.check_parameters()?;
            plan.reconstructed::<Self, #k, #dz, #d>(self, with.0)
        },
    );
    let run_impls = quote! { #run_impls #reconstructed };
    (run_items, run_impls)
}

/// The field, M, f, the exact Jacobian and the energy: in one chart, or in two switched on the
/// sign of Γ₃ (Euler–Poisson).
fn charts(rm: &View<'_>, red: &FirstOrder, helpers: &mut Helpers, base: &str) -> ChartCode {
    let (nr, nu) = (rm.layout.position_dim(), rm.dof());
    let dr = nr + nu;
    let first = Equations {
        rates: &red.model.layout.rates,
        mass: &red.mass,
        forcing: &red.forcing,
        energy: red.energy,
        jacobian: &red.jacobian,
        bindings: red.second_chart().map_or(&[][..], |c| &c.bindings[0][..]),
    };
    let one = chart_code(rm, helpers, base, &first, (nr, nu, dr));
    match red.second_chart() {
        None => one,
        Some(c) => {
            let second = Equations { jacobian: &c.jacobian, bindings: &c.bindings[1], ..first };
            let two = chart_code(rm, helpers, &format!("{base}_chart2"), &second, (nr, nu, dr));
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
    }
}

/// `cyclic_velocities` (the dropped rates) and `reconstruct` (the full state, every rate and,
/// with a quotient map, the kept positions ι(t, s, g)) of the reduced type.
fn reconstruction(full: &View<'_>, rm: &View<'_>, red: &FirstOrder, helpers: &mut Helpers, base: &str) -> TokenStream {
    let (nr, nu, k) = (rm.layout.position_dim(), rm.dof(), red.dropped.len());
    let (dr, d) = (nr + nu, full.layout.state_dim());
    let (xt, rt, kt) = (state_type(d), state_type(dr), svector(k));
    let allow = allow_generated();
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
    quote! {
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
    }
}

/// On the full model: `<reduced>(t, x)`, which reduces a state, and with impacts its hybrid
/// reduction ([`hybrid`]).
fn on_full_model(full: &View<'_>, rm: &View<'_>, red: &FirstOrder, base: &str) -> TokenStream {
    let (name, full_name) = (&rm.name, &full.name);
    let (nr, nu, k) = (rm.layout.position_dim(), rm.dof(), red.dropped.len());
    let (dr, d) = (nr + nu, full.layout.state_dim());
    let (xt, rt) = (state_type(d), state_type(dr));
    let dropped_names: Vec<String> = rm.layout.dropped.iter().map(ToString::to_string).collect();
    let none = TokenStream::new();
    let allow = allow_generated();
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
        let momentum = red.routh().map_or(&[][..], |r| &r.momentum[..]);
        hybrid(&mut full_helpers, full, momentum, name, &reduce_fn, (dr, k, d), base)
    };
    let full_hidden = full_helpers.into_impl(&TokenStream::new(), &quote!(#full_name));
    quote! {
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
/// post-impact state reduced again (a run's `.reduced::<R>()`, the runtime's `Plan::reduced`). A Routh reduction
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

/// A reduced system's equations in one chart (see [`chart_code`]).
#[derive(Clone, Copy)]
struct Equations<'a> {
    rates: &'a [symbolic::Expr],
    mass: &'a [Vec<symbolic::Expr>],
    forcing: &'a [symbolic::Expr],
    energy: Option<symbolic::Expr>,
    jacobian: &'a crate::derive::reduce::first_order::FirstOrderJacobian,
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
