//! Each form's M and f and the mass operator the runtime solves with (the dynamics contract's
//! first half; [`crate::emit::dynamics`] builds the accelerations and the field Jacobian on it).
//! [`of`] reads the mode's [`Form`] once and returns the hidden functions that compute M and f, the
//! bodies of `mass_matrix` and `forcing`, and the [`MassOperator`]: M factored densely (from M's
//! entries, or its columns M eⱼ), or along the model's tree (the runtime's `TreeFactor` over
//! directions, `LinkFactor` over spatial links) — what every other emitter asks instead of a flag.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use symbolic::Expr;

use crate::derive::Derived;
use crate::derive::dynamics::kinetics::{FactorAlongLinks, Forcing};
use crate::derive::dynamics::spatial::Links;
use crate::derive::dynamics::spatial::looped::Looped;
use crate::derive::dynamics::{Bound, Form, Tree};
use crate::derive::euler_lagrange::Equations;
use crate::emit::codegen::{Helpers, allow_generated, body_placed, lazy, symbol_tokens, symmetric_matrix};
use crate::model::View;

/// How the runtime holds a model's M to solve with it (its `MechanicalSystem::Mass`).
pub enum MassOperator {
    /// `MassFactor`: M from `mass_matrix` (its entries, or its columns), factored densely.
    Dense,
    /// M factored along the model's tree: the factor's type (`TreeFactor<n, k>` over directions,
    /// `LinkFactor<n>` over spatial links), built by the model's `__routh_tree_factor(t, x)`.
    AlongTree(TokenStream),
}

impl MassOperator {
    /// Whether M is factored along the tree (never formed).
    pub fn along_tree(&self) -> bool {
        matches!(self, MassOperator::AlongTree(_))
    }

    /// The statement binding the model's mass operator `mass` and forcing `f` at `(t, x)`: from the
    /// one M-and-f function, or M factored along the kinematic tree with f along it; `?` on a
    /// singular or non-finite M (the enclosing function returns a `Result<_, FieldError>`).
    pub fn bind_with_forcing(&self, model: &View<'_>) -> TokenStream {
        if self.along_tree() {
            let both = format_ident!("{}_and_forcing", tree_factor_name());
            return quote! { let (mass, f) = self.#both(t, x)?; };
        }
        let call = call_dynamics(model.dof());
        quote! {
            let (mass, f) = {
                #call
                (__routh::mechanics::factor_mass(t, m)?, f)
            };
        }
    }

    /// The operator's type and the expression that builds it at `(t, x)`.
    fn built(&self, n: usize) -> (TokenStream, TokenStream) {
        match self {
            MassOperator::AlongTree(ty) => {
                let factor = tree_factor_name();
                (ty.clone(), quote! { self.#factor(t, x) })
            }
            MassOperator::Dense => (quote! { __routh::MassFactor<#n> }, dense_factor()),
        }
    }
}

/// M factored densely at `(t, x)` from `mass_matrix`, an expression of type
/// `Result<MassFactor, FieldError>` (impacts' restitution laws on the dense path, a discrete
/// trajectory's inverse Legendre transform).
pub fn dense_factor() -> TokenStream {
    quote! { __routh::mechanics::factor_mass(t, self.mass_matrix(t, x)) }
}

/// What a form gives the model: the hidden functions computing M and f, the bodies of
/// `mass_matrix` and `forcing`, and the mass operator.
pub struct MassAndForcing {
    /// The hidden functions (the M-and-f function, the tree's factor, M a, and f at rest,
    /// `__routh_static_forcing(t, x)`: along a tree a pass that forms no velocity, elsewhere f's
    /// expressions at q̇ = 0).
    pub items: TokenStream,
    /// The body of `mass_matrix`.
    pub mass_matrix: TokenStream,
    /// The body of `forcing`.
    pub forcing: TokenStream,
    /// How the runtime solves with M.
    pub operator: MassOperator,
    /// The body of `inverse_dynamics` (`t`, `x` and `qdd` in scope; a `Result<Vector<n>, FieldError>`):
    /// one generated Newton–Euler pass along spatial links, else M q̈ − f with M q̈ from the generated
    /// product M a (columns), the factor's product along a tree of directions, or M's entries.
    pub inverse_dynamics: TokenStream,
}

/// M and f of `model` in its form (`derived.form`), with `m_doc` the rustdoc of M.
pub fn of(model: &View<'_>, derived: &Derived, helpers: &mut Helpers, m_doc: &TokenStream) -> MassAndForcing {
    let eq = &derived.equations;
    let constrained = derived.constraints.is_some();
    let n = model.dof();
    match (&derived.form, derived.form.along_tree()) {
        (_, Some((r, k))) => match &r.tree {
            crate::derive::dynamics::Links::Spatial(links) => {
                let mass = match (&k.mass_entries, &k.mass_links) {
                    (Some(entries), _) => Assembled::Entries(entries),
                    (None, Some(quantities)) => Assembled::Links { quantities, links },
                    (None, None) => unreachable!("kinetics along spatial links carry M's entries or the links' quantities"),
                };
                let (mass_matrix, forcing) = assembled_mass_and_forcing(model, &k.forcing, mass, helpers, m_doc);
                let static_item = static_forcing_item(model, &k.static_forcing, helpers);
                let dynamics_item = products_as_dynamics(model);
                let Some(inverse) = &k.inverse_dynamics else { unreachable!("kinetics along spatial links carry τ(q, q̇, a)") };
                let inverse_item = inverse_dynamics_item(model, inverse, k.inverse_looped.as_deref(), helpers);
                let dynamics_item = quote! { #dynamics_item #inverse_item #static_item };
                let inverse_dynamics = quote! { ::core::result::Result::Ok(self.__routh_inverse_dynamics(t, x, qdd)) };
                // M factored along the links where the derive gave its quantities (from
                // LINK_FACTOR_MIN_DOF coordinates on); below, the dense factor of M from its
                // products is cheaper.
                match &k.link_factor {
                    Some(link_factor) => {
                        let factor = link_factor_item(model, links, link_factor, constrained, helpers);
                        let operator = MassOperator::AlongTree(quote! { __routh::mechanics::LinkFactor<#n> });
                        MassAndForcing {
                            items: quote! { #factor #dynamics_item },
                            mass_matrix,
                            forcing,
                            operator,
                            inverse_dynamics,
                        }
                    }
                    None => MassAndForcing {
                        items: dynamics_item,
                        mass_matrix,
                        forcing,
                        operator: MassOperator::Dense,
                        inverse_dynamics,
                    },
                }
            }
            crate::derive::dynamics::Links::Directions(tree) => {
                let (mass_matrix, forcing) =
                    assembled_mass_and_forcing(model, &k.forcing, Assembled::Tree(tree.dirs.len()), helpers, m_doc);
                let Forcing::Bound(f) = &k.forcing else { unreachable!("a tree of directions' f is a pass of its own") };
                let with_forcing = constrained.then_some(f);
                let static_item = static_forcing_item(model, &k.static_forcing, helpers);
                let items = tree_factor_item(model, tree, with_forcing, helpers);
                let items = quote! { #items #static_item };
                let k = tree.dirs.len();
                let operator = MassOperator::AlongTree(quote! { __routh::mechanics::TreeFactor<#n, #k> });
                let (_, factor) = operator.built(n);
                let inverse_dynamics = quote! { Ok(__routh::MassOperator::apply(&#factor?, qdd) - self.forcing(t, x)) };
                MassAndForcing { items, mass_matrix, forcing, operator, inverse_dynamics }
            }
        },
        // M by columns: from its products M a (∂p/∂q̇ along a), f its own function.
        (Form::Columns(_), None) => {
            let product = Bound { bindings: Vec::new(), outputs: eq.mass_product.clone().unwrap_or_default() };
            let forcing = Bound { bindings: Vec::new(), outputs: eq.forcing.clone() };
            let products = Assembled::Products {
                product: &product,
                doc: " M a = Σⱼ ∂p/∂q̇ⱼ aⱼ (M column by column from it: `mass_matrix`).",
                f_doc: " The forcing f of M q̈ = f.",
            };
            let (mass_matrix, forcing) = assembled_mass_and_forcing(model, &Forcing::Bound(forcing), products, helpers, m_doc);
            let static_item = dense_static_forcing(model, eq, helpers);
            let dynamics = products_as_dynamics(model);
            MassAndForcing {
                items: quote! { #dynamics #static_item },
                mass_matrix,
                forcing,
                operator: MassOperator::Dense,
                inverse_dynamics: quote! { Ok(self.__routh_mass_product(t, x, qdd) - self.forcing(t, x)) },
            }
        }
        // M from its entries (also a recursion's model whose other items read the dense M).
        _ => {
            let call = call_dynamics(n);
            let static_item = dense_static_forcing(model, eq, helpers);
            let dynamics = mass_and_forcing(model, eq, helpers);
            MassAndForcing {
                items: quote! { #dynamics #static_item },
                mass_matrix: mass_matrix_item(model, eq, helpers, m_doc),
                forcing: quote! {{ #call f }},
                operator: MassOperator::Dense,
                inverse_dynamics: quote! { Ok(self.mass_matrix(t, x) * qdd - self.forcing(t, x)) },
            }
        }
    }
}

/// `__routh_static_forcing(t, x)`: f at rest, `rest` (the kinetics' pass at rest along a tree,
/// the equations' f at q̇ = 0 elsewhere), which `static_forces` and `velocity_forces` read.
fn static_forcing_item(model: &View<'_>, rest: &Bound, helpers: &mut Helpers) -> TokenStream {
    let (n, d) = (model.dof(), model.layout.state_dim());
    let none = TokenStream::new();
    let (stmts, vals) = helpers.body_bound(model, &rest.bindings, &rest.outputs, "__routh_static_forcing", &none, &none);
    let allow = allow_generated();
    quote! {
        /// f(t, q, 0): the forcing at rest (gravity and the forces of the positions), derived with
        /// the velocities zero, so that no velocity term is computed.
        #allow
        fn __routh_static_forcing(&self, t: f64, x: &__routh::State<#d>) -> __routh::Vector<#n> {
            #(#stmts)*
            __routh::Vector::<#n>::from([#(#vals),*])
        }
    }
}

/// [`static_forcing_item`] of the dense equations' f at q̇ = 0 (every model off a tree's passes
/// has it: `euler_lagrange::derive_with`).
fn dense_static_forcing(model: &View<'_>, eq: &Equations, helpers: &mut Helpers) -> TokenStream {
    debug_assert_eq!(eq.static_forcing.len(), model.dof(), "the dense equations' f at rest");
    let rest = Bound { bindings: Vec::new(), outputs: eq.static_forcing.clone() };
    static_forcing_item(model, &rest, helpers)
}

/// The name of the generated M-and-f function.
pub(crate) fn function_name() -> syn::Ident {
    format_ident!("__routh_dynamics")
}

/// `__routh_dynamics(t, x, m, f)`: M and f in one straight-line function, the hot path of the
/// vector field; its part functions, if any, join `helpers`. It writes M's diagonal and lower
/// triangle (the strict upper triangle is left as the caller had it), which is all that the
/// runtime's dense factor reads (`mechanics::accelerations_in_place`, `mechanics::factor_mass`),
/// and f, into storage the caller owns ([`call_dynamics`]); a long computation stores each entry
/// where it belongs (`codegen::body_placed`), so nothing is copied.
pub(crate) fn mass_and_forcing(model: &View<'_>, eq: &Equations, helpers: &mut Helpers) -> TokenStream {
    let n = model.dof();
    let d = model.layout.state_dim();
    let outputs = outputs(eq);
    // The outputs are M's upper triangle row by row (Mᵢⱼ, j ≥ i), then f: Mᵢⱼ goes to (j, i).
    let entries: Vec<(usize, usize)> = (0..n).flat_map(|i| (i..n).map(move |j| (j, i))).collect();
    let mut places: Vec<Option<TokenStream>> = entries.iter().map(|&(r, c)| Some(quote! { __m[(#r, #c)] })).collect();
    places.extend((0..n).map(|i| Some(quote! { __f[#i] })));
    let (matrix, vector) = (matrix_type(n), vector_type(n));
    let params = quote! { __m: &mut #matrix, __f: &mut #vector, };
    let args = quote! { __m, __f, };
    let (body, placed) = body_placed(model, &outputs, &places, "__routh_dynamics", &params, &args);
    let (stmts, vals) = helpers.add(body);
    let rest = places.iter().zip(&vals).zip(&placed).filter(|(_, p)| !**p).map(|((place, v), _)| quote! { #place = #v; });
    let (dyn_fn, allow) = (function_name(), allow_generated());
    quote! {
        /// M (its diagonal and lower triangle) and f together, into `__m` and `__f` (the hot path of
        /// the vector field).
        #allow
        #[inline]
        fn #dyn_fn(&self, t: f64, x: &__routh::State<#d>, __m: &mut #matrix, __f: &mut #vector) {
            #(#stmts)*
            #(#rest)*
        }
    }
}

fn matrix_type(n: usize) -> TokenStream {
    quote! { __routh::Matrix<#n, #n> }
}

fn vector_type(n: usize) -> TokenStream {
    quote! { __routh::Vector<#n> }
}

/// Statements binding `m` (M's diagonal and lower triangle, zero above) and `f` at `(t, x)` from
/// the M-and-f function ([`mass_and_forcing`]) of a model with `n` coordinates.
pub(crate) fn call_dynamics(n: usize) -> TokenStream {
    let (matrix, vector, dyn_fn) = (matrix_type(n), vector_type(n), function_name());
    quote! {
        let mut m = <#matrix>::zeros();
        let mut f = <#vector>::zeros();
        self.#dyn_fn(t, x, &mut m, &mut f);
    }
}

/// `__routh_dynamics(t, x, m, f)` of a model whose M comes from `mass_matrix` along its links and f
/// from a pass along them (the spatial recursion's kinetics): the M-and-f function that the
/// sensitivities and the dense Jacobians call ([`call_dynamics`]), here a call of the two.
pub(crate) fn products_as_dynamics(model: &View<'_>) -> TokenStream {
    let n = model.dof();
    let (matrix, vector, dyn_fn, allow) = (matrix_type(n), vector_type(n), function_name(), allow_generated());
    let d = model.layout.state_dim();
    quote! {
        /// M (`mass_matrix`, along the links) and f (along them), into `__m` and `__f`.
        #allow
        #[inline]
        fn #dyn_fn(&self, t: f64, x: &__routh::State<#d>, __m: &mut #matrix, __f: &mut #vector) {
            *__m = self.mass_matrix(t, x);
            *__f = self.__routh_forcing(t, x);
        }
    }
}

/// The name of a tree model's factor function ([`tree_factor_item`]).
pub(crate) fn tree_factor_name() -> syn::Ident {
    format_ident!("__routh_tree_factor")
}

/// The functions of a model whose M is the runtime's along its kinematic tree of directions `tree`:
/// `__routh_tree()` (the tree's structure, a static), `__routh_tree_coefficients(t, x)` (the
/// directions' coefficients S_d and masses), `__routh_tree_factor(t, x)` (M factored along the
/// tree, the runtime's `TreeFactor`: O(n) to factor and per solve; the model's
/// `MechanicalSystem::Mass`) and, with `forcing` (f along the tree), `__routh_tree_factor_and_forcing`
/// — the two from one body (the coordinates' sines and cosines once), for the saddle point of its
/// constraints.
pub(crate) fn tree_factor_item(model: &View<'_>, tree: &Tree, forcing: Option<&Bound>, helpers: &mut Helpers) -> TokenStream {
    let (n, d) = (model.dof(), model.layout.state_dim());
    let k = tree.dirs.len();
    let mut outputs: Vec<Expr> = tree.dirs.iter().map(|&(_, _, s)| s).collect();
    outputs.extend(&tree.masses);
    let none = TokenStream::new();
    let (stmts, vals) = helpers.body(model, &outputs, "__routh_tree_coefficients", &none, &none);
    let (s_vals, m_vals) = vals.split_at(k);
    let name = tree_factor_name();
    let both = forcing.map(|f| {
        let mut all = outputs.clone();
        all.extend(&f.outputs);
        let both = format_ident!("{name}_and_forcing");
        let (stmts, vals) = helpers.body_bound(model, &f.bindings, &all, &both.to_string(), &none, &none);
        let (s_vals, rest) = vals.split_at(k);
        let (m_vals, f_vals) = rest.split_at(k);
        (both, stmts, s_vals.to_vec(), m_vals.to_vec(), f_vals.to_vec())
    });
    // The structure: joints, parents, slots (a direction's place at its joint), directions by joint,
    // joints parents first.
    let mut slot = vec![0usize; k];
    for dirs in &tree.at_joint {
        for (place, &dir) in dirs.iter().enumerate() {
            slot[dir] = place;
        }
    }
    let order = &tree.order;
    let joint = tree.dirs.iter().map(|&(j, _, _)| j);
    let parent = parents_tokens(tree.dirs.iter().map(|&(_, p, _)| p));
    let at_joint = tree.at_joint.iter().map(|dirs| quote! { &[#(#dirs),*] });
    let allow = allow_generated();
    let sv = quote! { __routh::Vector };
    let factor_ty = quote! { __routh::mechanics::TreeFactor<#n, #k> };
    let topology_ty = quote! { __routh::mechanics::TreeTopology };
    let fe = quote! { __routh::FieldError };
    let both = both.map(|(both, b_stmts, b_s, b_m, b_f)| {
        quote! {
            /// M factored along the kinematic tree and f along it, at (t, x) (one body: the
            /// coordinates' sines and cosines once).
            #allow
            fn #both(&self, t: f64, x: &#sv<#d>) -> ::core::result::Result<(#factor_ty, #sv<#n>), #fe> {
                #(#b_stmts)*
                let factor = __routh::mechanics::TreeFactor::new(t, Self::__routh_tree(), [#(#b_s),*], [#(#b_m),*])?;
                ::core::result::Result::Ok((factor, #sv::<#n>::from([#(#b_f),*])))
            }
        }
    });
    quote! {
        /// The structure of the model's kinematic tree: its directions of motion (a static: `'static`
        /// in generic impls too).
        fn __routh_tree() -> &'static #topology_ty {
            static TREE: #topology_ty = __routh::mechanics::TreeTopology {
                joint: &[#(#joint),*],
                parent: &[#(#parent),*],
                slot: &[#(#slot),*],
                at_joint: &[#(#at_joint),*],
                order: &[#(#order),*],
            };
            &TREE
        }

        /// The coefficients S_d and the masses of the tree's directions at (t, x).
        #allow
        fn __routh_tree_coefficients(&self, t: f64, x: &#sv<#d>) -> ([f64; #k], [f64; #k]) {
            #(#stmts)*
            ([#(#s_vals),*], [#(#m_vals),*])
        }

        /// M factored along the kinematic tree at (t, x) (O(n); M never formed).
        #allow
        fn #name(&self, t: f64, x: &#sv<#d>) -> ::core::result::Result<#factor_ty, #fe> {
            let (s, m) = self.__routh_tree_coefficients(t, x);
            __routh::mechanics::TreeFactor::new(t, Self::__routh_tree(), s, m)
        }

        #both
    }
}

/// `__routh_inverse_dynamics(t, x, a)`: τ = M a − f along spatial links in one Newton–Euler pass,
/// straight-line or (`looped`) as loops over a long chain's repeated joints.
fn inverse_dynamics_item(model: &View<'_>, inverse: &Bound, looped: Option<&Looped>, helpers: &mut Helpers) -> TokenStream {
    let (n, d) = (model.dof(), model.layout.state_dim());
    let sv = quote! { __routh::Vector };
    let allow = allow_generated();
    let (body, how) = match looped {
        Some(looped) => {
            let statements = crate::emit::looped::inverse_statements(model, looped);
            (quote! { #statements #sv::<#n>::from(__tau) }, " Run as loops over the chain's repeated joints.")
        }
        None => {
            let (a_param, a_arg) = (quote! { a: &#sv<#n>, }, quote! { a, });
            let (stmts, vals) =
                helpers.body_bound(model, &inverse.bindings, &inverse.outputs, "__routh_inverse_dynamics", &a_param, &a_arg);
            (quote! { #(#stmts)* #sv::<#n>::from([#(#vals),*]) }, "")
        }
    };
    let doc = format!(
        " τ = M a − f at (t, x) for the accelerations `a`: one Newton–Euler pass along the links with the motion and \
         gravity (O(n)), less the other generalized forces.{how}"
    );
    quote! {
        #[doc = #doc]
        #allow
        fn __routh_inverse_dynamics(&self, t: f64, x: &#sv<#d>, a: &#sv<#n>) -> #sv<#n> {
            #body
        }
    }
}

/// The functions of a model whose M is the runtime's along its tree of rigid links `links` (the
/// spatial recursion's): `__routh_links()` (the tree's structure, a static), `__routh_tree_factor(t, x)`
/// (the quantities of M factored along the links, `link_factor`: each joint's A_j, ℓ_j, S_j and
/// the links' inertias, and with its parts U_j, D_j and M_jj, straight-line code; the runtime's
/// `LinkFactor` from them, O(n) per solve; the model's `MechanicalSystem::Mass`) and, `with_forcing`,
/// `__routh_tree_factor_and_forcing` — the factor and f by their own functions, for the saddle
/// point of its constraints. The same names as a tree of directions' ([`tree_factor_item`]), so that every caller
/// of the factor serves both.
pub(crate) fn link_factor_item(
    model: &View<'_>,
    links: &Links,
    link_factor: &FactorAlongLinks,
    with_forcing: bool,
    helpers: &mut Helpers,
) -> TokenStream {
    let (n, d) = (model.dof(), model.layout.state_dim());
    let factor = &link_factor.quantities;
    // Per joint: A (9, by rows), ℓ (3), S (6), and with the parts U (6), D, M_jj and the armature;
    // then the links' inertias (36 each).
    let per_joint = if link_factor.parts { 27 } else { 18 };
    debug_assert_eq!(factor.outputs.len(), n * (per_joint + 36));
    let name = tree_factor_name();
    let sv = quote! { __routh::Vector };
    let factor_ty = quote! { __routh::mechanics::LinkFactor<#n> };
    let fe = quote! { __routh::FieldError };
    let allow = allow_generated();
    // The factor from the values of the outputs.
    let make = |vals: &[TokenStream]| {
        let (joint_vals, inertia_vals) = vals.split_at(n * per_joint);
        let (joints, inertias) = link_joints_and_inertias(joint_vals, per_joint, inertia_vals);
        if !link_factor.parts {
            return quote! {
                __routh::mechanics::LinkFactor::new(t, Self::__routh_links(), [#(#joints),*], [#(#inertias),*])
            };
        }
        let u = joint_vals.chunks(per_joint).map(|v| {
            let u = &v[18..24];
            quote! { [#(#u),*] }
        });
        let pivots = joint_vals.chunks(per_joint).map(|v| &v[24]);
        let diagonal = joint_vals.chunks(per_joint).map(|v| &v[25]);
        let armature: Vec<&TokenStream> = joint_vals.chunks(per_joint).map(|v| &v[26]).collect();
        // With the joints' armatures, for products M v.
        quote! {
            __routh::mechanics::LinkFactor::from_parts(t, Self::__routh_links(), [#(#joints),*], [#(#inertias),*], ([#(#u),*], [#(#pivots),*], [#(#diagonal),*]))
                .map(|f| f.with_armature([#(#armature),*]))
        }
    };
    let none = TokenStream::new();
    let (stmts, vals) = helpers.body_bound(model, &factor.bindings, &factor.outputs, "__routh_link_factor", &none, &none);
    let made = make(&vals);
    // With constraints: the factor and f by their own functions (one body for both would repeat
    // the factor's code, the larger part, for the joints' sines and cosines once).
    let both = with_forcing.then(|| {
        let both = format_ident!("{name}_and_forcing");
        quote! {
            /// M factored along the links and f along them, at (t, x).
            #allow
            fn #both(&self, t: f64, x: &#sv<#d>) -> ::core::result::Result<(#factor_ty, #sv<#n>), #fe> {
                ::core::result::Result::Ok((self.#name(t, x)?, self.forcing(t, x)))
            }
        }
    });
    let topology_ty = quote! { __routh::mechanics::LinkTopology };
    let links_static = links_static(links);
    quote! {
        /// The structure of the model's tree of links (a static: `'static` in generic impls too).
        fn __routh_links() -> &'static #topology_ty {
            #links_static
            &LINKS
        }

        /// M factored along the links at (t, x): each joint's A_j, ℓ_j and S_j, the articulated
        /// inertias' U_j and pivots D_j, M's diagonal from the composite inertias, and the links'
        /// inertias (O(n); M never formed).
        #allow
        fn #name(&self, t: f64, x: &#sv<#d>) -> ::core::result::Result<#factor_ty, #fe> {
            #(#stmts)*
            #made
        }

        #both
    }
}

/// The runtime's `LinkJoint`s from the values of each joint's A (9, by rows), ℓ (3) and S (6) at
/// the head of its `per_joint` values, and the links' inertias (36 values each, by rows) as arrays.
pub(crate) fn link_joints_and_inertias(
    joint_vals: &[TokenStream],
    per_joint: usize,
    inertia_vals: &[TokenStream],
) -> (Vec<TokenStream>, Vec<TokenStream>) {
    let joints = joint_vals.chunks(per_joint).map(|v| {
        let rows = v[..9].chunks(3).map(|r| quote! { [#(#r),*] });
        let (l, s) = (&v[9..12], &v[12..18]);
        quote! { __routh::mechanics::LinkJoint::new([#(#rows),*], [#(#l),*], [#(#s),*]) }
    });
    let inertias = inertia_vals.chunks(36).map(|v| {
        let rows = v.chunks(6).map(|r| quote! { [#(#r),*] });
        quote! { [#(#rows),*] }
    });
    (joints.collect(), inertias.collect())
}

/// `static LINKS: LinkTopology`, the structure of a tree of links (its parents and its order), for
/// the runtime's functions along it.
pub(crate) fn links_static(links: &Links) -> TokenStream {
    let parent = parents_tokens(links.parents.iter().copied());
    let order = &links.order;
    let mech = quote! { __routh::mechanics };
    quote! {
        static LINKS: #mech::LinkTopology = #mech::LinkTopology { parent: &[#(#parent),*], order: &[#(#order),*] };
    }
}

/// A tree's parents as `Option<usize>` literals (of its directions, or of its links).
pub(crate) fn parents_tokens(parents: impl Iterator<Item = Option<usize>>) -> impl Iterator<Item = TokenStream> {
    parents.map(|p| match p {
        Some(p) => quote! { ::core::option::Option::Some(#p) },
        None => quote! { ::core::option::Option::None },
    })
}

/// `impl MechanicalSystem<N, D>`: the runtime's central trait — the mass operator (dense, or the
/// type `factor` of `__routh_tree_factor`: along a kinematic tree of directions or of links) and
/// the energy.
pub(crate) fn mechanical_system_impl(model: &View<'_>, operator: &MassOperator) -> TokenStream {
    let (n, d) = (model.dof(), model.layout.state_dim());
    let owner = crate::emit::codegen::Owner::of(model);
    let (ty, generics) = (&owner.ty, &owner.generics);
    let state = crate::emit::codegen::state_type(d);
    let fe = crate::emit::codegen::field_error();
    let (mass_ty, mass) = operator.built(n);
    let p = model.layout.position_dim();
    let positions = if p == n {
        TokenStream::new()
    } else {
        quote! { const POSITIONS: usize = #p; }
    };
    let items = lazy(quote! {
        type Mass = #mass_ty;
        #positions
        fn mass(&self, t: f64, x: &#state) -> ::core::result::Result<Self::Mass, #fe> {
            #mass
        }
        fn energy(&self, t: f64, x: &#state) -> f64 {
            Self::energy(self, t, x)
        }
    });
    quote! {
        #[automatically_derived]
        impl #generics __routh::MechanicalSystem<#n, #d> for #ty {
            #items
        }
    }
}

/// `mass_matrix`: M alone, its own straight-line function (from its upper triangle).
fn mass_matrix_item(model: &View<'_>, eq: &Equations, helpers: &mut Helpers, m_doc: &TokenStream) -> TokenStream {
    let (n, d) = (model.dof(), model.layout.state_dim());
    let none = TokenStream::new();
    let m_out: Vec<Expr> = outputs(eq)[..n * (n + 1) / 2].to_vec();
    let (m_stmts, m_vals) = helpers.body(model, &m_out, "__routh_mass_matrix", &none, &none);
    let m_only = symmetric_matrix(n, &m_vals);
    let allow = allow_generated();
    quote! {
        #m_doc
        #allow
        #[must_use]
        pub fn mass_matrix(&self, t: f64, x: &__routh::State<#d>) -> __routh::Matrix<#n, #n> {
            #(#m_stmts)*
            #m_only
        }
    }
}

/// `mass_matrix` and the body of `forcing` of a model whose M is assembled by the runtime: f its
/// own function; M from a tree of directions' coefficients and masses (`Assembled::Tree`:
/// `mechanics::tree::mass_matrix`, n products M eⱼ), from spatial links' quantities
/// (`Assembled::Links`: `LinkDynamics::mass_matrix`, the composite rigid bodies in the ground's
/// axes), or from generated products M a (`Assembled::Products`: a dense model's ∂p/∂q̇ along a;
/// `mechanics::mass_from_products`).
fn assembled_mass_and_forcing(
    model: &View<'_>,
    forcing: &Forcing,
    mass: Assembled<'_>,
    helpers: &mut Helpers,
    m_doc: &TokenStream,
) -> (TokenStream, TokenStream) {
    let (n, d) = (model.dof(), model.layout.state_dim());
    let none = TokenStream::new();
    let sv = quote! { __routh::Vector };
    let f_body = match forcing {
        Forcing::Bound(forcing) => {
            let (f_stmts, f_vals) =
                helpers.body_bound(model, &forcing.bindings, &forcing.outputs, "__routh_forcing", &none, &none);
            quote! {
                #(#f_stmts)*
                #sv::<#n>::from([#(#f_vals),*])
            }
        }
        Forcing::ByInverse => quote! { -self.__routh_inverse_dynamics(t, x, &#sv::<#n>::zeros()) },
    };
    let allow = allow_generated();
    let (f_doc, product, assemble) = match mass {
        Assembled::Tree(tree_k) => (
            " The forcing f along the kinematic tree (O(n)).",
            TokenStream::new(),
            quote! {
                let (s, m) = self.__routh_tree_coefficients(t, x);
                __routh::mechanics::tree::mass_matrix::<#n, #tree_k>(Self::__routh_tree(), &s, &m)
            },
        ),
        Assembled::Entries(entries) => {
            let (m_stmts, m_vals) =
                helpers.body_bound(model, &entries.bindings, &entries.outputs, "__routh_mass_matrix", &none, &none);
            let m = symmetric_matrix(n, &m_vals);
            (" The forcing f along the kinematic tree (O(n)).", TokenStream::new(), quote! { #(#m_stmts)* #m })
        }
        Assembled::Links { quantities, links } => {
            let (m_stmts, m_vals) =
                helpers.body_bound(model, &quantities.bindings, &quantities.outputs, "__routh_mass_links", &none, &none);
            let (joint_vals, rest) = m_vals.split_at(n * 18);
            let (inertia_vals, armature) = rest.split_at(n * 36);
            let (joints, inertias) = link_joints_and_inertias(joint_vals, 18, inertia_vals);
            let links_static = links_static(links);
            (
                " The forcing f along the kinematic tree (O(n)).",
                TokenStream::new(),
                quote! {
                    #links_static
                    #(#m_stmts)*
                    __routh::mechanics::LinkDynamics::<#n>::new(&LINKS, [#(#joints),*], [#(#inertias),*], [0.0; 3])
                        .with_armature([#(#armature),*])
                        .mass_matrix()
                },
            )
        }
        Assembled::Products { product, doc, f_doc } => {
            let a_param = quote! { a: &#sv<#n>, };
            let a_arg = quote! { a, };
            let (m_stmts, m_vals) =
                helpers.body_bound(model, &product.bindings, &product.outputs, "__routh_mass_product", &a_param, &a_arg);
            let function = quote! {
                #[doc = #doc]
                #allow
                fn __routh_mass_product(&self, t: f64, x: &#sv<#d>, a: &#sv<#n>) -> #sv<#n> {
                    #(#m_stmts)*
                    #sv::<#n>::from([#(#m_vals),*])
                }
            };
            (f_doc, function, quote! { __routh::mechanics::mass_from_products::<#n>(|a| self.__routh_mass_product(t, x, a)) })
        }
    };
    let mass_matrix = quote! {
        #[doc = #f_doc]
        #allow
        fn __routh_forcing(&self, t: f64, x: &#sv<#d>) -> #sv<#n> {
            #f_body
        }

        #product

        #m_doc
        #allow
        #[must_use]
        pub fn mass_matrix(&self, t: f64, x: &#sv<#d>) -> __routh::Matrix<#n, #n> {
            #assemble
        }
    };
    (mass_matrix, quote! { self.__routh_forcing(t, x) })
}

/// Where M comes from ([`assembled_mass_and_forcing`]).
enum Assembled<'a> {
    /// Its entries along spatial links (the composite rigid bodies), upper triangle by rows.
    Entries(&'a Bound),
    /// A tree of this many directions (its coefficients and masses).
    Tree(usize),
    /// Spatial links past the CRBA's size: each joint's A_j, ℓ_j and S_j (18 values), the links'
    /// inertias (36 each) and the joints' armatures, for the runtime's M in the ground's axes.
    Links { quantities: &'a Bound, links: &'a Links },
    /// Generated products M a, with the rustdoc of their function and of f's.
    Products { product: &'a Bound, doc: &'static str, f_doc: &'static str },
}

/// Operation counts of the hot path (M and f together), for benchmarks and docs.
pub fn dynamics_ops(model: &View<'_>, eq: &Equations) -> symbolic::OpCount {
    let outputs = outputs(eq);
    symbolic::emit(model.arena, &outputs, &|s| symbol_tokens(model, s), "__w").ops
}

/// Upper triangle of M (row-major), then f.
fn outputs(eq: &Equations) -> Vec<Expr> {
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
