//! The documentation of a first-order reduced type ([`super::first_order`]): the summary of what
//! was reduced and proved — Maggi's equations (with a quotient map, a Chaplygin system,
//! Euler–Poisson's charts) or Routh's by rotations — the momentum maps it keeps, and every
//! equation it evaluates, in the model's notation.

use proc_macro2::TokenStream;

use crate::derive::reduce::FirstOrder;
use crate::model::View;
use crate::notation::{doc_block, formula};

/// The reduced type's rustdoc: its summary, then its equations (rates, M, f by degree, the
/// dropped rates, a quotient map, E, a chart's attitude, a Chaplygin system's connection and
/// curvature, momentum maps, a Routhian).
pub fn struct_doc(full: &View<'_>, rm: &View<'_>, red: &FirstOrder) -> TokenStream {
    let name = &rm.name;
    let (nr, nu) = (rm.layout.position_dim(), rm.dof());
    let coordinate_names: Vec<String> = rm.coordinates.iter().map(ToString::to_string).collect();
    let velocity_names: Vec<String> = rm.layout.velocity_names.iter().map(ToString::to_string).collect();
    let dropped_names: Vec<String> = rm.layout.dropped.iter().map(ToString::to_string).collect();
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
    if let Some(c) = red.second_chart() {
        // Chart 1's attitude (|q|² is the sum of its squares).
        for &(sym, value) in c.bindings[0].iter().take(4) {
            lines.push((crate::notation::display_name(rm, sym), formula(rm, value)));
        }
    }
    if let Some(ch) = red.chaplygin() {
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
    if let Some(routh) = red.routh() {
        lines.push(("R".into(), formula(rm, routh.routhian)));
        lines.push(("V_μ".into(), formula(rm, routh.amended)));
    }
    let summary = summary(full, rm, red);
    doc_block(&summary, &lines)
}

/// The summary paragraph: what was reduced and proved, with a quotient map's, a Chaplygin
/// system's and Euler–Poisson's part, and the momentum maps.
fn summary(full: &View<'_>, rm: &View<'_>, red: &FirstOrder) -> String {
    let (name, full_name) = (&rm.name, &full.name);
    let coordinate_names: Vec<String> = rm.coordinates.iter().map(ToString::to_string).collect();
    let velocity_names: Vec<String> = rm.layout.velocity_names.iter().map(ToString::to_string).collect();
    let dropped_names: Vec<String> = rm.layout.dropped.iter().map(ToString::to_string).collect();
    let quotient = full.reductions.iter().find(|r| r.name == *name).and_then(|r| r.quotient.as_ref());
    let summary = red.routh().map_or_else(
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
                 (`cyclic_velocities`; `.reconstructed(g0)` on a run, g0 the attitude), determined by Π up to the rotations about μ; \
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
    let chaplygin_text = red.chaplygin().map_or(String::new(), |_| {
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
    let advected_text = red.second_chart().map_or(String::new(), |c| {
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
    format!("{summary}{chaplygin_text}{advected_text}{}", momenta_summary(red))
}

/// The first paragraph of a Maggi (nonholonomic, Euler–Poincaré) reduced type's documentation.
fn maggi_summary(
    red: &FirstOrder,
    full_name: &syn::Ident,
    velocity_names: &[String],
    dropped_names: &[String],
    coordinate_names: &[String],
) -> String {
    // Where the equations are evaluated: at the dropped coordinates' zero, or on a section of the
    // symmetry (Euler–Poisson's attitude bound to Γ), or through the user's quotient map.
    let evaluated = if red.second_chart().is_some() {
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
         (`cyclic_velocities`; `.reconstructed(g0)` on a run); `relative_equilibrium` finds steady motions.{}",
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
fn momenta_summary(red: &FirstOrder) -> String {
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
