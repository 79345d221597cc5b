//! Periodic orbits continued in a parameter of the model: the rimless wheel rolling down a slope
//! (McGeer, *Passive dynamic walking*, Int. J. Robot. Res. 9(2), 1990; not one of the five papers —
//! its closed forms are derived below from energy and angular-momentum balance, no erratum
//! involved). Its gait is isolated (the impacts dissipate what the slope feeds in), so it is the
//! fixed point of the return map in (x₀, p) — `routh::runtime::periodic::continue_orbits_in` — and
//! everything about it has a closed form:
//!
//! - a point mass m on massless spokes of length l, 2α apart, on a slope γ; θ is the stance
//!   spoke's angle from the slope's normal, V = m g l cos(θ + γ);
//! - a step runs from θ = −α to θ = α, where the next spoke lands: θ ↦ θ − 2α and, by the
//!   angular momentum about the new contact, θ̇ ↦ cos(2α) θ̇;
//! - energy over a step: θ̇(α)² = θ̇(−α)² + 4 (g/l) sin α sin γ, so the gait's post-impact rate
//!   is ω² = 4 (g/l) sin α sin γ cot²(2α), and on the section θ = 0, θ̇₀² = ω² + 2 (g/l)(cos(γ − α)
//!   − cos γ);
//! - the step-to-step map of θ̇₀² is affine with slope cos²(2α): the nontrivial multiplier;
//! - the gait exists while ω carries the mass over the top (θ = −γ): ω² > 2 (g/l)(1 − cos(α − γ)).

mod common;

use routh::nalgebra::Vector2;
use routh::prelude::*;
use routh::runtime::continuation::{BranchStop, ContinuationOptions, Start};
use routh::runtime::periodic::{HybridFamily, Section, continue_orbits_in, find_orbit_at};

#[derive(Mechanics)]
#[mechanics(
    mode(stance, coordinates(th)),
    lagrangian = m / 2 * (l * dot(th)).powi(2) - m * g * l * (th + gamma).cos(),
    transition(stance -> stance, name = heel_strike, guard = alpha - th,
        law = reset(th = th - 2 * alpha, dot(th) = (2 * alpha).cos() * dot(th))),
    sensitivity(gamma, alpha),
)]
struct Rimless {
    m: f64,
    l: f64,
    g: f64,
    alpha: f64,
    gamma: f64,
}

impl Rimless {
    /// ω², the gait's post-impact rate squared (see the module docs).
    fn omega2(&self) -> f64 {
        let cot = 1.0 / (2.0 * self.alpha).tan();
        4.0 * self.g / self.l * self.alpha.sin() * self.gamma.sin() * cot * cot
    }
    /// θ̇₀ of the gait on the section θ = 0.
    fn rate_at_section(&self) -> f64 {
        (self.omega2() + 2.0 * self.g / self.l * ((self.gamma - self.alpha).cos() - self.gamma.cos())).sqrt()
    }
    /// The period ∫ dθ/θ̇ over θ ∈ [−α, α] (composite Gauss–Legendre, 5 points on 200 panels:
    /// θ̇ stays away from zero on a gait, so this is exact to round-off).
    fn period(&self) -> f64 {
        let (x, w) = (
            [-0.906_179_845_938_664, -0.538_469_310_105_683, 0.0, 0.538_469_310_105_683, 0.906_179_845_938_664],
            [0.236_926_885_056_189, 0.478_628_670_499_366, 0.568_888_888_888_889, 0.478_628_670_499_366, 0.236_926_885_056_189],
        );
        let energy = self.omega2() + 2.0 * self.g / self.l * (self.gamma - self.alpha).cos();
        let rate = |th: f64| (energy - 2.0 * self.g / self.l * (th + self.gamma).cos()).sqrt();
        let panels = 200;
        let h = 2.0 * self.alpha / f64::from(panels);
        (0..panels)
            .map(|k| {
                let mid = -self.alpha + (f64::from(k) + 0.5) * h;
                x.iter().zip(w).map(|(xi, wi)| wi * h / 2.0 / rate(mid + xi * h / 2.0)).sum::<f64>()
            })
            .sum()
    }
}

fn wheel(gamma: f64) -> Rimless {
    Rimless { m: 2.0, l: 1.2, g: 9.81, alpha: 0.3, gamma }
}

fn options() -> HybridOptions {
    HybridOptions::default().rtol(1e-12).atol(1e-13)
}

/// The section θ = 0 crossed forwards (a = −θ falling), after the step's one impact.
fn with_section<R>(run: impl FnOnce(&Section<'_, 2>) -> R) -> R {
    let anchor = |x: &Vector2<f64>| -x[0];
    let gradient = |_: &Vector2<f64>| Vector2::new(-1.0, 0.0);
    run(&Section { anchor: &anchor, gradient: &gradient, mode: Rimless::STANCE, resets: 1, max_time: 20.0 })
}

fn newton() -> ContinuationOptions {
    ContinuationOptions::default().tolerance(1e-12).progress(false)
}

#[test]
fn the_rimless_wheels_gait_matches_mcgeers_closed_form() {
    let w = wheel(0.08);
    let family = w.family("gamma").unwrap();
    assert_eq!((family.parameter(), family.value()), ("gamma", 0.08));
    let orbit = with_section(|s| find_orbit_at(&family, s, (&Vector2::new(0.0, 1.0), 0.08), &newton(), &options())).unwrap();
    let exact = w.rate_at_section();
    eprintln!(
        "rimless wheel at γ = 0.08: θ̇₀ error {:.1e}, period error {:.1e}, {} Newton iterations",
        (orbit.state[1] - exact).abs(),
        (orbit.period - w.period()).abs(),
        orbit.iterations
    );
    assert!(orbit.state[0].abs() < 1e-12 && (orbit.state[1] - exact).abs() < 1e-10, "{} vs {exact}", orbit.state);
    assert!((orbit.period - w.period()).abs() < 1e-10, "T = {} vs {}", orbit.period, w.period());
    // Multipliers of the monodromy: 1 (along the flow) and cos²(2α); dP has 0 and cos²(2α).
    let c2 = (2.0 * w.alpha).cos().powi(2);
    let mut mult: Vec<f64> = orbit.multipliers().iter().map(|m| m.0).collect();
    mult.sort_by(f64::total_cmp);
    assert!((mult[0] - c2).abs() < 1e-9 && (mult[1] - 1.0).abs() < 1e-9, "{mult:?} vs {c2}");
    assert!(orbit.is_stable());
    // The unconstrained gait is the wheel's own: a run from x₀ repeats it step after step.
    let run = w.run(ModeState::new(Rimless::STANCE, orbit.state)).span(0.0..10.0 * orbit.period).options(options()).go().unwrap();
    assert_eq!(run.impacts.len(), 10);
    let (_, _, x_end) = run.last().unwrap();
    assert!((x_end - orbit.state).amax() < 1e-8, "after ten steps {x_end} vs {}", orbit.state);
}

#[test]
fn the_gait_continued_in_the_slope_follows_the_closed_form_until_the_wheel_stops() {
    let w = wheel(0.08);
    let family = w.family("gamma").unwrap();
    with_section(|s| {
        let start = find_orbit_at(&family, s, (&Vector2::new(0.0, 1.0), 0.08), &newton(), &options()).unwrap();
        // Down the slope's range: the gait vanishes where ω² = 2 (g/l)(1 − cos(α − γ)), the wheel
        // then rocks back before the top and never reaches the section.
        let cont =
            ContinuationOptions::default().tolerance(1e-12).initial_step(0.01).max_step(0.05).max_points(200).progress(false);
        let branch = continue_orbits_in(&family, s, (&start, Start::Decreasing), &cont, &options()).unwrap();
        let lowest = branch.orbits.iter().map(|o| o.parameter).fold(f64::INFINITY, f64::min);
        // γ* where the gait stops passing over the top (bisection on the closed form).
        let (mut lo, mut hi) = (1e-4, 0.08);
        for _ in 0..60 {
            let mid = 0.5 * (lo + hi);
            let m = wheel(mid);
            if m.omega2() > 2.0 * m.g / m.l * (1.0 - (m.alpha - mid).cos()) { hi = mid } else { lo = mid }
        }
        assert!(branch.orbits.len() > 5, "{} points", branch.orbits.len());
        assert!(lowest > hi && lowest < hi + 1e-6, "continued down to γ = {lowest}, the gait exists above γ* = {hi}");
        assert!(branch.orbits.last().unwrap().period > 5.0, "the last gait creeps over the top");
        assert!(matches!(branch.stop, BranchStop::Failed { .. } | BranchStop::StepTooSmall { .. }), "{:?}", branch.stop);
        let worst = branch.orbits.iter().map(|o| (o.state[1] - wheel(o.parameter).rate_at_section()).abs()).fold(0.0, f64::max);
        eprintln!(
            "rimless wheel down the slope: {} gaits from γ = 0.08 to {lowest:.9} (γ* = {hi:.9}), worst |θ̇₀ − closed form| {worst:.1e}",
            branch.orbits.len()
        );
        for o in &branch.orbits {
            let m = wheel(o.parameter);
            // (Long creeping steps near γ* amplify the integration error: the bound grows with T.)
            assert!(
                (o.state[1] - m.rate_at_section()).abs() < 1e-10 * o.period.max(1.0),
                "γ = {}: {} vs {}",
                o.parameter,
                o.state[1],
                m.rate_at_section()
            );
            // Near γ* the mass creeps over the top (T → ∞) and the quadrature loses its accuracy.
            if o.period < 2.0 {
                assert!((o.period - m.period()).abs() < 1e-9, "γ = {}: T = {} vs {}", o.parameter, o.period, m.period());
            }
        }
        // Up the slope to a target.
        let up = ContinuationOptions::default().tolerance(1e-12).max_step(0.05).target(0.2).progress(false);
        let branch = continue_orbits_in(&family, s, (&start, Start::Increasing), &up, &options()).unwrap();
        assert_eq!(branch.stop, BranchStop::Target);
        let last = branch.orbits.last().unwrap();
        assert!((last.parameter - 0.2).abs() < 1e-12);
        assert!((last.state[1] - wheel(0.2).rate_at_section()).abs() < 1e-10);
    });
}

#[test]
fn the_parameter_derivative_of_the_return_map_gives_the_closed_forms_slope_in_gamma_and_in_alpha() {
    // ∂P/∂p through the flow (γ enters V) and through the guard and the reset (α): the gait's
    // slope dx₀/dp = −(dP − I)⁻¹ ∂P/∂p against central differences of the closed form.
    let w = wheel(0.1);
    let closed = |gamma: f64, alpha: f64| Rimless { alpha, ..wheel(gamma) }.rate_at_section();
    let h = 1e-5;
    for (name, exact) in [
        ("gamma", (closed(0.1 + h, 0.3) - closed(0.1 - h, 0.3)) / (2.0 * h)),
        ("alpha", (closed(0.1, 0.3 + h) - closed(0.1, 0.3 - h)) / (2.0 * h)),
    ] {
        let family = w.family(name).unwrap();
        let p = family.value();
        let orbit = with_section(|s| find_orbit_at(&family, s, (&Vector2::new(0.0, 1.0), p), &newton(), &options())).unwrap();
        let a = orbit.return_jacobian - routh::nalgebra::Matrix2::identity();
        let slope = -a.try_inverse().unwrap() * orbit.parameter_derivative;
        eprintln!("rimless wheel: dθ̇₀/d{name} = {:.12} vs the closed form's {exact:.12}", slope[1]);
        assert!(slope[0].abs() < 1e-9, "{name}: the section's θ stays 0: {slope}");
        assert!((slope[1] - exact).abs() < 1e-7 * exact.abs().max(1.0), "{name}: dθ̇₀/dp = {} vs {exact}", slope[1]);
    }
    assert!(matches!(w.family("m"), Err(SimError::InvalidArgument(_))));
}

#[test]
fn a_closure_family_with_differences_between_members_finds_the_same_gaits() {
    // The generated family (exact ∂F/∂p) and a closure p ↦ model (all parameter derivatives by
    // central differences between members) are two routes to the same branch in α.
    let w = wheel(0.1);
    let generated = w.family("alpha").unwrap();
    let closure = |alpha: f64| Rimless { alpha, ..wheel(0.1) };
    let cont = ContinuationOptions::default().tolerance(1e-12).max_step(0.02).target(0.36).progress(false);
    with_section(|s| {
        let a = find_orbit_at(&generated, s, (&Vector2::new(0.0, 1.0), 0.3), &newton(), &options()).unwrap();
        let b = find_orbit_at(&closure, s, (&Vector2::new(0.0, 1.0), 0.3), &newton(), &options()).unwrap();
        assert!((a.state - b.state).amax() < 1e-12);
        assert!((a.parameter_derivative - b.parameter_derivative).amax() < 1e-7);
        let fa = generated.field_derivative(0.3, 0, 0.0, &a.state).unwrap();
        let fb = HybridFamily::<2>::field_derivative(&closure, 0.3, 0, 0.0, &a.state).unwrap();
        assert!((fa - fb).amax() < 1e-9, "∂f/∂α: {fa} vs {fb}");
        let ba = continue_orbits_in(&generated, s, (&a, Start::Increasing), &cont, &options()).unwrap();
        let bb = continue_orbits_in(&closure, s, (&b, Start::Increasing), &cont, &options()).unwrap();
        assert_eq!((&ba.stop, &bb.stop), (&BranchStop::Target, &BranchStop::Target));
        for o in ba.orbits.iter().chain(&bb.orbits) {
            let exact = Rimless { alpha: o.parameter, ..wheel(0.1) }.rate_at_section();
            assert!((o.state[1] - exact).abs() < 1e-10, "α = {}: {} vs {exact}", o.parameter, o.state[1]);
            let c2 = (2.0 * o.parameter).cos().powi(2);
            let eig = o.return_jacobian.trace(); // 0 + cos²(2α)
            assert!((eig - c2).abs() < 1e-9, "α = {}: tr dP = {eig} vs {c2}", o.parameter);
        }
    });
}

/// The same wheel with the hip in Cartesian coordinates (x along the slope, downhill; y along its
/// normal) held on the spoke by a holonomic constraint.
#[derive(Mechanics)]
#[mechanics(
    mode(stance, coordinates(x, y), holonomic(spoke = x.powi(2) + y.powi(2) - l.powi(2))),
    lagrangian = m / 2 * (dot(x).powi(2) + dot(y).powi(2)) - m * g * (y * gamma.cos() - x * gamma.sin()),
    transition(stance -> stance, name = heel_strike, guard = l * alpha.sin() - x,
        law = reset(
            x = x - 2 * l * alpha.sin(),
            y = y,
            dot(x) = (2 * alpha).cos() * (dot(x) * alpha.cos() - dot(y) * alpha.sin()) * alpha.cos(),
            dot(y) = (2 * alpha).cos() * (dot(x) * alpha.cos() - dot(y) * alpha.sin()) * alpha.sin(),
        )),
    sensitivity(gamma),
)]
struct CartesianRimless {
    m: f64,
    l: f64,
    g: f64,
    alpha: f64,
    gamma: f64,
}

#[test]
fn the_wheel_held_on_its_spoke_by_a_constraint_has_the_same_gait_and_branch() {
    // Constrained vs coordinates that solve the constraint: the gait on the section x = 0 is
    // (0, l, l θ̇₀, 0) with the closed form's θ̇₀, and so along the branch in γ (the constrained
    // model's ∂F/∂p through its saddle point).
    let w = CartesianRimless { m: 2.0, l: 1.2, g: 9.81, alpha: 0.3, gamma: 0.08 };
    let family = w.family("gamma").unwrap();
    type V4 = routh::nalgebra::Vector4<f64>;
    let anchor = |x: &V4| -x[0];
    let gradient = |_: &V4| V4::new(-1.0, 0.0, 0.0, 0.0);
    let s = Section { anchor: &anchor, gradient: &gradient, mode: CartesianRimless::STANCE, resets: 1, max_time: 20.0 };
    // (The constrained runs' return is noisier — projections after every step — so the corrector
    // gets more room.)
    let loose = ContinuationOptions::default().tolerance(1e-11).max_iterations(20).progress(false);
    let start = find_orbit_at(&family, &s, (&V4::new(0.0, 1.2, 1.0, 0.0), 0.08), &loose, &options()).unwrap();
    let up = loose.max_step(0.05).target(0.14);
    let branch = continue_orbits_in(&family, &s, (&start, Start::Increasing), &up, &options()).unwrap();
    assert_eq!(branch.stop, BranchStop::Target);
    assert!(branch.orbits.len() >= 3);
    let worst =
        branch.orbits.iter().map(|o| (o.state[2] - o.state[1] * wheel(o.parameter).rate_at_section()).abs()).fold(0.0, f64::max);
    eprintln!("Cartesian rimless wheel: {} gaits up to γ = 0.14, worst |ẋ₀ − l θ̇₀| {worst:.1e}", branch.orbits.len());
    for o in &branch.orbits {
        let polar = wheel(o.parameter);
        let exact = V4::new(0.0, polar.l, polar.l * polar.rate_at_section(), 0.0);
        assert!((o.state - exact).amax() < 1e-9, "γ = {}: {} vs {exact}", o.parameter, o.state);
        assert!((o.period - polar.period()).abs() < 1e-9, "γ = {}: T = {} vs {}", o.parameter, o.period, polar.period());
        // The runs project onto the constraint after every step, and so does dP: its multipliers
        // are the gait's cos²(2α) and zeros (along the flow, and off the constraint manifold —
        // the unprojected drift has multipliers of its own, 1.19 here, that are not the gait's).
        let c2 = (2.0 * polar.alpha).cos().powi(2);
        let dp = routh::nalgebra::DMatrix::from_iterator(4, 4, o.return_jacobian.iter().copied());
        let mut moduli: Vec<f64> = dp.complex_eigenvalues().iter().map(|e| e.norm()).collect();
        moduli.sort_by(f64::total_cmp);
        assert!(moduli[..3].iter().all(|m| *m < 1e-6) && (moduli[3] - c2).abs() < 1e-7, "{moduli:?} vs {c2}");
        assert!(o.is_stable());
        let mut floquet: Vec<f64> = o.multipliers().iter().map(|m| m.0.hypot(m.1)).collect();
        floquet.sort_by(f64::total_cmp);
        assert!((floquet[2] - c2).abs() < 1e-7 && (floquet[3] - 1.0).abs() < 1e-7, "{floquet:?}");
    }
}
