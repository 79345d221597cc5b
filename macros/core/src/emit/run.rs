//! How a model runs: its `run(x0)` and the runtime's `Simulate` and `Runs` implementations that
//! say what a run starts from, which options it takes, what it returns and which of the runtime's
//! drivers integrates it (the `Plan`'s methods). One function per kind of model; the bodies are
//! glue — the parameters checked, one call into the runtime.

use proc_macro2::TokenStream;
use quote::quote;

/// What every run of a model shares: its start (a state, or a mode and a state), its options
/// (`Options` or `HybridOptions`), its result and the state's dimension.
pub struct Kind {
    pub start: TokenStream,
    pub options: TokenStream,
    pub output: TokenStream,
    pub dim: usize,
}

impl Kind {
    /// A smooth model: from a state, with `Options`, into a `Trajectory`.
    pub fn smooth(d: usize) -> Kind {
        Kind {
            start: crate::emit::codegen::svector(d),
            options: quote! { ::routh::__private::Options },
            output: quote! { ::routh::__private::Trajectory<#d> },
            dim: d,
        }
    }

    /// A model with impacts and one mode: from a state, with `HybridOptions`, into a
    /// `HybridTrajectory`.
    pub fn hybrid(d: usize) -> Kind {
        Kind {
            start: crate::emit::codegen::svector(d),
            options: quote! { ::routh::__private::HybridOptions },
            output: quote! { ::routh::__private::HybridTrajectory<#d> },
            dim: d,
        }
    }

    /// A model with modes: from a `ModeState`, with `HybridOptions`, into a `HybridTrajectory`.
    pub fn modes(d: usize) -> Kind {
        Kind {
            start: quote! { ::routh::__private::ModeState<#d> },
            options: quote! { ::routh::__private::HybridOptions },
            output: quote! { ::routh::__private::HybridTrajectory<#d> },
            dim: d,
        }
    }

    /// The `Plan` type a run of this kind hands to the model.
    fn plan(&self) -> TokenStream {
        let (start, options, d) = (&self.start, &self.options, self.dim);
        quote! { ::routh::__private::Plan<'_, #start, #options, #d> }
    }
}

/// How the model's inputs drive it: `K` inputs, the run with a signal (`plan` and `signal` in
/// scope) and the sampled run (`plan` and `hold` in scope).
pub struct Driving {
    pub inputs: usize,
    pub signal: TokenStream,
    pub sampled: TokenStream,
}

/// `run(x0)` on `ty`, documented by `doc`, and `impl Simulate` with `Runs<Plain>` (the run
/// `plain`, with `plan` in scope; each body checks the parameters first where the model has them) or, for a model with inputs, `Runs<Inputs<G, K>>` and
/// `Runs<ZeroOrderHold<L, K>>`. Returns the inherent items and the trait implementations.
pub fn items(
    ty: &syn::Ident,
    kind: &Kind,
    doc: &str,
    plain: Option<TokenStream>,
    driving: Option<Driving>,
) -> (TokenStream, TokenStream) {
    let Kind { start, options, output, dim } = kind;
    let plan = kind.plan();
    let inherent = quote! {
        #[doc = #doc]
        #[inline]
        pub fn run(&self, start: #start) -> ::routh::__private::Run<'_, Self, #dim> {
            ::routh::__private::Run::new(self, start)
        }
    };
    let mut impls = quote! {
        #[automatically_derived]
        impl ::routh::__private::Simulate<#dim> for #ty {
            type Start = #start;
            type Options = #options;
        }
    };
    if let Some(body) = plain {
        impls.extend(quote! {
            #[automatically_derived]
            impl ::routh::__private::Runs<::routh::__private::Plain, #dim> for #ty {
                type Output = #output;
                #[inline]
                fn run_with(&self, plan: #plan, _: ::routh::__private::Plain) -> ::routh::__private::RunResult<#output> {
                    #body
                }
            }
        });
    }
    if let Some(Driving { inputs: k, signal, sampled }) = driving {
        let state = crate::emit::codegen::svector(*dim);
        let input = crate::emit::codegen::svector(k);
        impls.extend(quote! {
            #[automatically_derived]
            impl<G: ::routh::__private::InputSignal<#dim, #k>> ::routh::__private::Runs<::routh::__private::Inputs<G, #k>, #dim> for #ty {
                type Output = #output;
                #[inline]
                fn run_with(&self, plan: #plan, inputs: ::routh::__private::Inputs<G, #k>) -> ::routh::__private::RunResult<#output> {
                    let signal = inputs.0;
                    #signal
                }
            }

            #[automatically_derived]
            impl<L: ::core::ops::FnMut(f64, &#state) -> #input> ::routh::__private::Runs<::routh::__private::ZeroOrderHold<L, #k>, #dim> for #ty {
                type Output = ::routh::__private::Sampled<#output, #k>;
                #[inline]
                fn run_with(&self, plan: #plan, hold: ::routh::__private::ZeroOrderHold<L, #k>)
                    -> ::routh::__private::RunResult<::routh::__private::Sampled<#output, #k>>
                {
                    #sampled
                }
            }
        });
    }
    (inherent, impls)
}

/// `Runs<W>` for one more way `ty` runs, beside those of [`items`]: `W` driven, `output` returned,
/// `body` with `plan` and `with` in scope (the reconstruction of a reduced system, a reduction
/// across impacts). A `#[doc]` before the returned tokens documents the implementation.
pub fn extra(ty: &syn::Ident, kind: &Kind, with: TokenStream, output: TokenStream, body: TokenStream) -> TokenStream {
    let (plan, dim) = (kind.plan(), kind.dim);
    quote! {
        #[automatically_derived]
        impl ::routh::__private::Runs<#with, #dim> for #ty {
            type Output = #output;
            #[inline]
            fn run_with(&self, plan: #plan, with: #with) -> ::routh::__private::RunResult<#output> {
                let _ = &with;
                #body
            }
        }
    }
}

/// The rustdoc of `run` for a model of `kind` ("smooth", …), with what it returns.
pub fn doc(what: &str) -> String {
    format!(
        " A run of this model from `start`: give it its span and go, `model.run(x0).span(t0..t1).go()?` \
         ([`Run`](::routh::runtime::Run): options, events, inputs). {what}"
    )
}
