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
            start: crate::emit::codegen::state_type(d),
            options: quote! { __routh::Options },
            output: quote! { __routh::Trajectory<#d> },
            dim: d,
        }
    }

    /// A model with impacts and one mode: from a state, with `HybridOptions`, into a
    /// `HybridTrajectory`.
    pub fn hybrid(d: usize) -> Kind {
        Kind {
            start: crate::emit::codegen::state_type(d),
            options: quote! { __routh::HybridOptions },
            output: quote! { __routh::HybridTrajectory<#d> },
            dim: d,
        }
    }

    /// A model with modes: from a `ModeState`, with `HybridOptions`, into a `HybridTrajectory`.
    pub fn modes(d: usize) -> Kind {
        Kind {
            start: quote! { __routh::ModeState<#d> },
            options: quote! { __routh::HybridOptions },
            output: quote! { __routh::HybridTrajectory<#d> },
            dim: d,
        }
    }

    /// The `Plan` type a run of this kind hands to the model.
    fn plan(&self) -> TokenStream {
        let (start, options, d) = (&self.start, &self.options, self.dim);
        quote! { __routh::Plan<'_, #start, #options, #d> }
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
        pub fn run(&self, start: #start) -> __routh::Run<'_, Self, #dim> {
            __routh::Run::new(self, start)
        }
    };
    let mut impls = quote! {
        #[automatically_derived]
        impl __routh::Simulate<#dim> for #ty {
            type Start = #start;
            type Options = #options;
        }
    };
    if let Some(body) = plain {
        impls.extend(quote! {
            #[automatically_derived]
            impl __routh::Runs<__routh::Plain, #dim> for #ty {
                type Output = #output;
                #[inline]
                fn run_with(&self, plan: #plan, _: __routh::Plain) -> __routh::RunResult<#output> {
                    #body
                }
            }
        });
    }
    if let Some(Driving { inputs: k, signal, sampled }) = driving {
        let state = crate::emit::codegen::state_type(*dim);
        let input = crate::emit::codegen::svector(k);
        impls.extend(quote! {
            #[automatically_derived]
            impl<G: __routh::InputSignal<#dim, #k>> __routh::Runs<__routh::Inputs<G, #k>, #dim> for #ty {
                type Output = #output;
                #[inline]
                fn run_with(&self, plan: #plan, inputs: __routh::Inputs<G, #k>) -> __routh::RunResult<#output> {
                    let signal = inputs.0;
                    #signal
                }
            }

            #[automatically_derived]
            impl<L: ::core::ops::FnMut(f64, &#state) -> #input> __routh::Runs<__routh::ZeroOrderHold<L, #k>, #dim> for #ty {
                type Output = __routh::Sampled<#output, #k>;
                #[inline]
                fn run_with(&self, plan: #plan, hold: __routh::ZeroOrderHold<L, #k>)
                    -> __routh::RunResult<__routh::Sampled<#output, #k>>
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
        impl __routh::Runs<#with, #dim> for #ty {
            type Output = #output;
            #[inline]
            fn run_with(&self, plan: #plan, with: #with) -> __routh::RunResult<#output> {
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
