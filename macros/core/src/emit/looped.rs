//! `accelerations` and the inverse dynamics in the recursion's loop form
//! ([`crate::derive::dynamics::spatial::looped`]): each segment's kernels run in a loop over its
//! blocks, `__k` the block's first joint, with the carried values in small arrays (`__v`, `__a`:
//! the parent's velocity and acceleration; `__ia`, `__pa`: the child's shares of the articulated
//! inertia and of the bias force, or of the force in the inverse dynamics) and what one pass stores
//! per joint for the next in arrays over the joints (`__c`, `__b`, `__u`, `__d`, `__e`, `__f`;
//! `__qdd` or `__tau` the result).

use proc_macro2::TokenStream;
use quote::quote;
use symbolic::Expr;

use crate::derive::dynamics::spatial::looped::{Looped, Place, Segment};
use crate::emit::codegen::{emit_options, symbol_tokens};
use crate::layout::Role;
use crate::model::View;

/// The statements that compute q̈ and the pivots into `__qdd` and `__d`.
pub(crate) fn statements(model: &View<'_>, looped: &Looped) -> TokenStream {
    let n = model.dof();
    let segments = &looped.segments;
    let down = |pass: usize| segments.iter().map(move |s| run(model, looped, s, pass, false));
    let first: Vec<TokenStream> = down(0).collect();
    let second: Vec<TokenStream> = segments.iter().rev().map(|s| run(model, looped, s, 1, true)).collect();
    let third: Vec<TokenStream> = down(2).collect();
    quote! {
        let mut __v = [0.0_f64; 6];
        let mut __a = [0.0_f64; 6];
        let mut __ia = [0.0_f64; 21];
        let mut __pa = [0.0_f64; 6];
        let mut __c = [[0.0_f64; 6]; #n];
        let mut __b = [[0.0_f64; 6]; #n];
        let mut __u = [[0.0_f64; 6]; #n];
        let mut __d = [0.0_f64; #n];
        let mut __e = [0.0_f64; #n];
        let mut __qdd = [0.0_f64; #n];
        let mut __sn = [0.0_f64; #n];
        let mut __cs = [0.0_f64; #n];
        #(#first)*
        #(#second)*
        #(#third)*
    }
}

/// The statements that compute the inverse dynamics τ into `__tau`: each segment's pass root →
/// leaves, then each one's pass leaves → root.
pub(crate) fn inverse_statements(model: &View<'_>, looped: &Looped) -> TokenStream {
    let n = model.dof();
    let segments = &looped.segments;
    let down: Vec<TokenStream> = segments.iter().map(|s| run(model, looped, s, 0, false)).collect();
    let up: Vec<TokenStream> = segments.iter().rev().map(|s| run(model, looped, s, 1, true)).collect();
    quote! {
        let mut __v = [0.0_f64; 6];
        let mut __a = [0.0_f64; 6];
        let mut __pa = [0.0_f64; 6];
        let mut __f = [[0.0_f64; 6]; #n];
        let mut __sn = [0.0_f64; #n];
        let mut __cs = [0.0_f64; #n];
        let mut __tau = [0.0_f64; #n];
        #(#down)*
        #(#up)*
    }
}

/// One pass of one segment: its kernel over each block (in reverse order with `back`).
fn run(model: &View<'_>, looped: &Looped, segment: &Segment, pass: usize, back: bool) -> TokenStream {
    let kernel = &segment.passes[pass];
    let (first, period, count) = (segment.first, segment.period, segment.count);
    let symbol = |s: Expr| match model.role(s) {
        Some(Role::Carried(k)) => place(looped.places[k]),
        Some(role @ (Role::Coordinate(j) | Role::Velocity(j))) if (first..first + period).contains(&j) => {
            let at = model.layout.state_index(role).unwrap_or(usize::MAX) - first;
            quote!(x[__k + #at])
        }
        // The inverse dynamics' accelerations a, at the block's offset likewise.
        Some(Role::Acceleration(j)) if (first..first + period).contains(&j) => {
            let at = j - first;
            quote!(a[__k + #at])
        }
        // Inputs by their index relative to the block's (the kinds compare them so).
        Some(Role::Input(k)) if count > 1 => match k.checked_sub(first) {
            Some(at) => quote!(self.1[__k + #at]),
            None => {
                let back = first - k;
                quote!(self.1[__k - #back])
            }
        },
        _ => symbol_tokens(model, s),
    };
    let outputs: Vec<Expr> = kernel.outputs.iter().map(|o| o.0).collect();
    let emitted = symbolic::emit_bound_with(model.arena, &kernel.bindings, &outputs, &symbol, "__t", &emit_options());
    let (statements, values) = (emitted.statements, emitted.outputs);
    let stores = kernel.outputs.iter().enumerate().map(|(k, o)| {
        let target = place(o.1);
        quote!(#target = __o[#k];)
    });
    // Every value first, then the stores: a value may read a place another store writes.
    let body = quote! {
        #(#statements)*
        let __o = [#(#values),*];
        #(#stores)*
    };
    if count == 1 {
        return quote! {{ let __k: usize = #first; #body }};
    }
    let blocks = if back { quote!((0..#count).rev()) } else { quote!(0..#count) };
    quote! {
        for __m in #blocks {
            let __k: usize = #first + __m * #period;
            #body
        }
    }
}

/// The place a carried value is kept in.
fn place(p: Place) -> TokenStream {
    match p {
        Place::Velocity(x) => quote!(__v[#x]),
        Place::Acceleration(x) => quote!(__a[#x]),
        Place::Inertia(k) => quote!(__ia[#k]),
        Place::Force(x) => quote!(__pa[#x]),
        Place::Product(i, x) => quote!(__c[__k + #i][#x]),
        Place::Bias(i, x) => quote!(__b[__k + #i][#x]),
        Place::Projected(i, x) => quote!(__u[__k + #i][#x]),
        Place::Pivot(i) => quote!(__d[__k + #i]),
        Place::JointForce(i) => quote!(__e[__k + #i]),
        Place::JointAcceleration(i) => quote!(__qdd[__k + #i]),
        Place::Sine(i) => quote!(__sn[__k + #i]),
        Place::Cosine(i) => quote!(__cs[__k + #i]),
        Place::LinkForce(i, x) => quote!(__f[__k + #i][#x]),
        Place::Torque(i) => quote!(__tau[__k + #i]),
    }
}
