//! The items a reduction adds to its first-order reduced type ([`crate::derive::reduce::first_order::Terms`]):
//! a Routhian and amended potential (Routh's by rotations), a Chaplygin system's gyroscopic force
//! and curvature, and the full model's momentum maps that live on the reduced state.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use crate::derive::reduce::FirstOrder;
use crate::emit::codegen::{Helpers, allow_generated, field_error, state_type};
use crate::model::View;

/// The added items of one reduced type, each empty where it does not apply.
pub struct Items {
    pub routh: Option<TokenStream>,
    pub momenta: TokenStream,
    pub chaplygin: Option<TokenStream>,
}

/// What `red` adds to its reduced type `rm` (its part functions into `helpers`, named from `base`).
pub fn items(rm: &View<'_>, red: &FirstOrder, helpers: &mut Helpers, base: &str, full_name: &syn::Ident) -> Items {
    let none = TokenStream::new();
    let (nr, nu, k) = (rm.layout.position_dim(), rm.dof(), red.dropped.len());
    let dr = nr + nu;
    let rt = state_type(dr);
    let allow = allow_generated();
    let routh_items = red.routh().map(|routh| {
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
    let momentum_items = momentum_items(rm, red, helpers, base, dr, full_name);
    let chaplygin_items = red.chaplygin().map(|ch| {
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
    Items { routh: routh_items, momenta: momentum_items, chaplygin: chaplygin_items }
}

/// `<name>_momentum`, `<name>_momentum_rate` and `<name>_moving_energy` of the reduced type.
fn momentum_items(
    rm: &View<'_>,
    red: &FirstOrder,
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
