//! Lowering of `symmetry(...)` generators and `reduce(routh(...))` requests.

use symbolic::Expr;
use syn::Ident;

use super::expr::Lowerer;
use crate::diagnostics::{Ctxt, unknown};
use crate::model::{ReducedVelocity, Reduction, ReductionMethod, Symmetry};
use crate::parse::{ReduceDecl, SymmetryDecl};

/// "unknown coordinate" with the closest coordinate as a hint.
fn unknown_coordinate(c: &Ident, coordinates: &[Ident]) -> syn::Error {
    not_a_coordinate(c, format_args!("unknown coordinate `{c}`"), coordinates)
}

/// The error `what` on the name `c`, with the closest coordinate as a hint and the coordinates listed.
fn not_a_coordinate(c: &Ident, what: impl std::fmt::Display, coordinates: &[Ident]) -> syn::Error {
    let names: Vec<String> = coordinates.iter().map(ToString::to_string).collect();
    let known = format!("Coordinates: {}", names.join(", "));
    unknown(c.span(), what, &c.to_string(), &names, known)
}

/// Lowers `reduce(routh(theta, ...), name = T)`: the cyclic coordinates by index, or the
/// orientation whose rotations it reduces by (non-abelian; the type is `<Model>Routh` unless
/// named); and `reduce(nonholonomic(g, ...), velocities(...), name = T)` or
/// `reduce(euler_poincare(r, ...), name = T)` (`<Model>Reduced` unless named), which may drop
/// orientations too, its velocities lowered in the full model's symbols.
pub(super) fn lower_reduction(
    lower: &mut Lowerer<'_>,
    cx: &mut Ctxt,
    decl: &ReduceDecl,
    coordinates: &[Ident],
    symmetries: &[Symmetry],
    model: &Ident,
) -> Reduction {
    let routh = decl.keyword == "routh";
    let orientations: Vec<Ident> = lower.syms.orientations.iter().map(|o| o.name.clone()).collect();
    let mut cyclic: Vec<(usize, Ident)> = Vec::new();
    let mut dropped_orientations: Vec<(usize, Ident)> = Vec::new();
    for c in &decl.cyclic {
        let orientation = orientations.iter().position(|o| o == c);
        match (coordinates.iter().position(|x| x == c), orientation) {
            (Some(k), _) if cyclic.iter().any(|(j, _)| *j == k) => cx.error(c.span(), format!("`{c}` is listed twice")),
            (Some(k), _) => cyclic.push((k, c.clone())),
            (None, Some(o)) if dropped_orientations.iter().any(|(j, _)| *j == o) => {
                cx.error(c.span(), format!("`{c}` is listed twice"));
            }
            (None, Some(o)) => dropped_orientations.push((o, c.clone())),
            (None, None) => {
                let mut known = coordinates.to_vec();
                known.extend(orientations.iter().cloned());
                cx.push(unknown_coordinate(c, &known));
            }
        }
    }
    // Euler–Poincaré reduces by an orientation's rotations: naming coordinates alone is another
    // reduction under the wrong name (a coordinate's shift is `routh(x)` or `nonholonomic(x)`).
    if decl.keyword == "euler_poincare"
        && dropped_orientations.is_empty()
        && let Some((_, c)) = cyclic.first()
    {
        cx.error(
            c.span(),
            format!(
                "`euler_poincare(...)` reduces by the rotations of an orientation, and `{c}` is a coordinate{}: drop a cyclic \
                 coordinate with `routh({c})`, or with `nonholonomic({c}, ...)` in a model with constraints",
                if orientations.is_empty() {
                    " (this model declares no `orientation(...)`)".to_owned()
                } else {
                    format!(
                        " (the orientations are {})",
                        orientations.iter().map(ToString::to_string).collect::<Vec<_>>().join(", ")
                    )
                }
            ),
        );
    }
    if decl.cyclic.is_empty() {
        let msg = match decl.keyword.to_string().as_str() {
            "nonholonomic" => "name the coordinates to drop: `nonholonomic(x, y, ...)`",
            "euler_poincare" => "name the orientation (and coordinates) to drop: `euler_poincare(r, ...)`",
            _ => "name the cyclic coordinates: `routh(theta, ...)`",
        };
        cx.error(decl.keyword.span(), msg);
    }
    let suffix = if routh { "Routh" } else { "Reduced" };
    let name = decl.name.clone().unwrap_or_else(|| quote::format_ident!("{}{}", model, suffix));
    if name == *model {
        cx.error(name.span(), format!("the reduced type cannot be named like the model `{model}` itself; choose another name"));
    } else {
        let what = format!("the reduced type `{name}`");
        cx.ok(crate::names::check_reserved(name.span(), &what, &crate::names::reduction_items(&name.to_string())));
    }
    let velocities = (!routh).then(|| lower_velocities(lower, cx, decl, coordinates));
    let advected = (decl.keyword == "euler_poincare" && decl.shape.is_none() && !decl.symmetries.is_empty())
        .then(|| lower_advected(lower, cx, decl, symmetries, &dropped_orientations))
        .flatten();
    let quotient = if decl.keyword == "euler_poincare" && decl.shape.is_none() {
        None
    } else {
        super::quotient::lower_quotient(lower, cx, decl, coordinates, symmetries, &cyclic)
    };
    let method = match (routh, dropped_orientations.is_empty()) {
        (false, _) => ReductionMethod::Maggi,
        (true, true) => ReductionMethod::Cyclic,
        (true, false) => ReductionMethod::Rotations,
    };
    Reduction { keyword: decl.keyword.clone(), method, cyclic, name, velocities, dropped_orientations, quotient, advected }
}

/// `euler_poincare(r)` with `symmetry(s)`: `s` must be `rotation(r, a)` of the dropped orientation
/// `r` about a coordinate axis ±e_k (numbers), the only symmetry named and the only orientation
/// dropped (mistakes reported into `cx`).
fn lower_advected(
    lower: &Lowerer<'_>,
    cx: &mut Ctxt,
    decl: &ReduceDecl,
    symmetries: &[Symmetry],
    dropped: &[(usize, Ident)],
) -> Option<crate::model::Advected> {
    let named = &decl.symmetries[0];
    if let Some(extra) = decl.symmetries.get(1) {
        cx.error(extra.span(), "`euler_poincare(r)` reduces by the rotations about one axis: name one rotation symmetry");
        return None;
    }
    let Some((index, sym)) = symmetries.iter().enumerate().find(|(_, s)| s.name == *named) else {
        let names: Vec<String> = symmetries.iter().map(|s| s.name.to_string()).collect();
        let known = format!("Symmetries: {}", if names.is_empty() { "none".to_string() } else { names.join(", ") });
        cx.push(unknown(named.span(), format_args!("unknown symmetry `{named}`"), &named.to_string(), &names, known));
        return None;
    };
    let Some((orientation, axis)) = &sym.rotation else {
        cx.error(named.span(), format!("`{named}` is not a rotation of an orientation: name a `rotation(r, axis)` symmetry"));
        return None;
    };
    if dropped.len() != 1 || dropped[0].0 != *orientation {
        cx.error(
            named.span(),
            format!(
                "`{named}` turns `{}`: drop that orientation alone, `euler_poincare({})`",
                lower.syms.orientations[*orientation].name, lower.syms.orientations[*orientation].name
            ),
        );
        return None;
    }
    // ±e_k in numbers.
    let values: Vec<Option<f64>> =
        axis.iter().map(|&c| lower.arena.free_symbols(c).is_empty().then(|| lower.arena.eval(c, &|_| f64::NAN))).collect();
    let unit = values.iter().enumerate().find_map(|(k, v)| match v {
        Some(x) if *x == 1.0 || *x == -1.0 => {
            let rest_zero = values.iter().enumerate().all(|(j, w)| j == k || *w == Some(0.0));
            rest_zero.then_some((k, if *x > 0.0 { 1i8 } else { -1i8 }))
        }
        _ => None,
    });
    let Some(axis) = unit else {
        cx.error(
            named.span(),
            format!("the axis of `{named}` must be a coordinate axis such as `[0, 0, 1]` for this reduction (its two charts of the sphere are written for them)"),
        );
        return None;
    };
    Some(crate::model::Advected { symmetry: index, name: named.clone(), orientation: *orientation, axis })
}

/// The velocities ω₁, ω₂, ω₃ of orientation `o`, named `<r>_omega1` ….
fn orientation_velocities(lower: &Lowerer<'_>, o: usize) -> Vec<ReducedVelocity> {
    let or = &lower.syms.orientations[o];
    (0..3)
        .map(|i| ReducedVelocity {
            name: quote::format_ident!("{}_omega{}", or.name, i + 1, span = or.name.span()),
            value: lower.syms.qd[or.v_start + i],
            rate_of: Some(or.v_start + i),
        })
        .collect()
}

/// The velocities of `nonholonomic(...)`: a coordinate's rate, an orientation's three ω components
/// (`r`), or `w = expr` affine in the velocities (checked: no second derivative in them) with a
/// name of its own. For `euler_poincare(...)` they default to all of the model's velocities.
fn lower_velocities(lower: &mut Lowerer<'_>, cx: &mut Ctxt, decl: &ReduceDecl, coordinates: &[Ident]) -> Vec<ReducedVelocity> {
    let Some((kw, decls)) = &decl.velocities else {
        if decl.keyword == "euler_poincare" {
            let mut all: Vec<ReducedVelocity> = coordinates
                .iter()
                .enumerate()
                .map(|(k, c)| ReducedVelocity { name: c.clone(), value: lower.syms.qd[k], rate_of: Some(k) })
                .collect();
            for o in 0..lower.syms.orientations.len() {
                all.extend(orientation_velocities(lower, o));
            }
            return all;
        }
        cx.error(
            decl.keyword.span(),
            "name the reduced system's velocities: `velocities(q, w = expr, ...)` — a coordinate's rate, or an expression \
             affine in the velocities — as many as the constraints leave free",
        );
        return Vec::new();
    };
    if decls.is_empty() {
        cx.error(kw.span(), "name at least one velocity: `velocities(q, w = expr, ...)`");
    }
    let mut out: Vec<ReducedVelocity> = Vec::new();
    for v in decls {
        if out.iter().any(|u| u.name == v.name) {
            cx.error(v.name.span(), format!("the velocity `{}` is named twice", v.name));
            continue;
        }
        let Some(value) = &v.value else {
            if let Some(o) = lower.syms.orientations.iter().position(|o| o.name == v.name) {
                out.extend(orientation_velocities(lower, o));
                continue;
            }
            match coordinates.iter().position(|c| *c == v.name) {
                Some(k) => out.push(ReducedVelocity { name: v.name.clone(), value: lower.syms.qd[k], rate_of: Some(k) }),
                None => cx.push(not_a_coordinate(
                    &v.name,
                    format_args!(
                        "`{}` is not a coordinate: name a coordinate's rate, or define the velocity as `{} = expr`",
                        v.name, v.name
                    ),
                    coordinates,
                )),
            }
            continue;
        };
        let omega_names: Vec<String> =
            lower.syms.orientations.iter().flat_map(|o| (1..=3).map(move |k| format!("{}_omega{k}", o.name))).collect();
        if omega_names.contains(&v.name.to_string()) {
            cx.error(
                v.name.span(),
                format!("`{}` names an orientation's angular velocity component; choose another name", v.name),
            );
            continue;
        }
        if coordinates.contains(&v.name) {
            cx.error(
                v.name.span(),
                format!(
                    "`{}` is a coordinate; name this velocity otherwise (a bare `{}` already means its rate)",
                    v.name, v.name
                ),
            );
            continue;
        }
        let Some(e) = cx.ok(lower.lower(value)) else { continue };
        if !lower.syms.u.is_empty() && lower.syms.u.iter().any(|&u| lower.arena.depends_on(e, u))
            || lower.syms.z.is_some_and(|z| lower.arena.depends_on(e, z))
        {
            cx.push(syn::Error::new_spanned(value, "a reduced velocity is a function of (t, q, q̇) only"));
            continue;
        }
        let qd = lower.syms.qd.clone();
        if !qd.iter().any(|&s| lower.arena.depends_on(e, s)) {
            cx.push(syn::Error::new_spanned(
                value,
                "a reduced velocity depends on the velocities: this is a function of the positions",
            ));
            continue;
        }
        let affine = qd.iter().all(|&a| {
            let da = lower.arena.diff(e, a);
            qd.iter().all(|&b| {
                let dab = lower.arena.diff(da, b);
                lower.arena.zero_test(dab).is_zero()
            })
        });
        if !affine {
            cx.push(syn::Error::new_spanned(value, "a reduced velocity must be affine in the velocities, a(t, q)·q̇ + b(t, q)"));
            continue;
        }
        out.push(ReducedVelocity { name: v.name.clone(), value: e, rate_of: None });
    }
    out
}

/// Lowers a symmetry's generator ξ_Q(q): components must be functions of the coordinates only.
pub(super) fn lower_symmetry(lower: &mut Lowerer<'_>, decl: &SymmetryDecl, coordinates: &[Ident]) -> syn::Result<Symmetry> {
    if let Some((r, axis)) = &decl.rotation {
        return lower_rotation(lower, decl, r, axis);
    }
    let n = coordinates.len();
    let zero = lower.arena.zero();
    // Over every coordinate (an orientation's quaternion components last, untouched).
    let mut generator = vec![zero; lower.syms.position_dim()];
    let tokens;
    if let Some(q) = &decl.cyclic {
        let k = coordinates.iter().position(|c| c == q).ok_or_else(|| unknown_coordinate(q, coordinates))?;
        generator[k] = lower.arena.one();
        tokens = quote::quote!(#q);
    } else {
        let name = &decl.name;
        tokens = quote::quote!(#name);
        let mut given = vec![false; n];
        for b in &decl.components {
            let k = coordinates.iter().position(|c| *c == b.name).ok_or_else(|| unknown_coordinate(&b.name, coordinates))?;
            if given[k] {
                return Err(syn::Error::new(b.name.span(), format!("the component along `{}` is given twice", b.name)));
            }
            given[k] = true;
            let e = lower.lower(&b.value)?;
            if let Some(v) = lower.velocity_in(e) {
                return Err(syn::Error::new_spanned(
                    &b.value,
                    format!("a generator ξ_Q(q) is a vector field on configuration space; this depends on `{v}`"),
                ));
            }
            if lower.arena.depends_on(e, lower.syms.t) {
                return Err(syn::Error::new_spanned(&b.value, "time-dependent generators are not supported"));
            }
            generator[k] = e;
        }
        if decl.components.is_empty() {
            return Err(syn::Error::new(
                decl.name.span(),
                "a generator needs at least one component, e.g. `generator(x = -y, y = x)`",
            ));
        }
        // ξ ≡ 0 moves nothing: every Lagrangian is "invariant" and its momentum is 0.
        if generator.iter().all(|&g| lower.arena.zero_test(g).is_zero()) {
            return Err(syn::Error::new(
                decl.name.span(),
                format!(
                    "the generator of `{}` is identically zero: it moves nothing, so its invariance says nothing and its \
                     momentum is 0; give a nonzero vector field, e.g. `generator(x = -y, y = x)`",
                    decl.name
                ),
            ));
        }
    }
    Ok(Symmetry { name: decl.name.clone(), generator, velocity_generator: None, tokens, rotation: None })
}

/// `name = rotation(R, a)`: the orientation R turned about the constant spatial axis a,
/// R ↦ exp(ε â) R. On its quaternion ξ = ½ (0, a) ⊗ q; the body angular velocity does not change
/// (lift 0), and in the velocities the generator is Rᵀa, so J = ∂L/∂ω · Rᵀa = a · (R ∂L/∂ω): the
/// spatial angular momentum along a.
fn lower_rotation(lower: &mut Lowerer<'_>, decl: &SymmetryDecl, r: &Ident, axis: &syn::Expr) -> syn::Result<Symmetry> {
    let Some(index) = lower.syms.orientations.iter().position(|o| o.name == *r) else {
        let known: Vec<String> = lower.syms.orientations.iter().map(|o| o.name.to_string()).collect();
        return Err(syn::Error::new(
            r.span(),
            if known.is_empty() {
                format!(
                    "`rotation({r}, ...)` turns an orientation, and this model declares none; declare it with `orientation({r})`"
                )
            } else {
                format!("unknown orientation `{r}`; the orientations are {}", known.join(", "))
            },
        ));
    };
    let o = lower.syms.orientations[index].clone();
    let a = lower.vector(axis)?;
    if super::body::moving_symbol(lower, &a, false).is_some() {
        return Err(syn::Error::new_spanned(
            axis,
            "the axis of a rotation symmetry is a constant vector (numbers and parameters)",
        ));
    }
    let norm2 = lower.arena.norm_squared(&a);
    if lower.arena.zero_test(norm2).is_zero() {
        return Err(syn::Error::new_spanned(
            axis,
            "the axis of a rotation symmetry is a nonzero vector: a zero axis turns nothing (its momentum is identically \
             0); give the spatial axis, e.g. `[0, 0, 1]`",
        ));
    }
    let zero = lower.arena.zero();
    let q: [Expr; 4] = std::array::from_fn(|i| lower.syms.q[o.q_start + i]);
    let spatial = lower.arena.quaternion_spatial_rate(&q, &a);
    let mut generator = vec![zero; lower.syms.position_dim()];
    generator[o.q_start..o.q_start + 4].copy_from_slice(&spatial);
    let rotation = lower.arena.quaternion_rotation(&q, o.norm2);
    let rt = lower.arena.transpose3(&rotation);
    let body_axis = lower.arena.mat_vec(&rt, &a);
    let mut in_velocities = vec![zero; lower.syms.dof()];
    in_velocities[o.v_start..o.v_start + 3].copy_from_slice(&body_axis);
    let lift = vec![zero; lower.syms.dof()];
    let name = &decl.name;
    Ok(Symmetry {
        name: name.clone(),
        generator,
        velocity_generator: Some((in_velocities, lift)),
        tokens: quote::quote!(#name),
        rotation: Some((index, a)),
    })
}
