//! Stiff models with the implicit method (`Options::scheme(Scheme::Rodas4)`), which uses the
//! generated exact Jacobian: a stiff damped oscillator against its closed form, and a pendulum on a
//! stiff damped rod against DOPRI5 (`benches/stiff_models.rs`, shared with the benchmark).

use routh::prelude::*;
use routh::runtime::Scheme;

#[allow(dead_code)]
mod models {
    use routh::prelude::*;
    include!("../benches/stiff_models.rs");
}
use models::StiffPendulum;

/// x'' + (1 + λ) x' + λ x = 0 written as a model: m = 1, stiffness λ, damping 1 + λ.
#[derive(Mechanics)]
#[mechanics(
    coordinates(x),
    lagrangian = dot(x).powi(2) / 2 - lambda / 2 * x.powi(2),
    force(x = -(1 + lambda) * dot(x)),
    jacobian,
)]
struct StiffOscillator {
    lambda: f64,
}

#[test]
fn a_stiff_damped_oscillator_follows_its_closed_form_with_the_exact_jacobian() {
    // x(0) = 2, ẋ(0) = −1 − λ: x = e^{−t} + e^{−λt}.
    let lambda = 1e5;
    let m = StiffOscillator { lambda };
    let x0 = m.state([2.0], [-1.0 - lambda]);
    let times: Vec<f64> = (1..=10).map(f64::from).collect();
    let opts = Options::default().scheme(Scheme::Rodas4).rtol(1e-7).atol(1e-10).output(Output::Times(times));
    let run = m.run(x0).span(0.0..10.0).options(&opts).go().unwrap();
    let worst = run.iter().map(|(t, x)| (x[0] - ((-t).exp() + (-lambda * t).exp())).abs()).fold(0.0, f64::max);
    let attempts = run.stats.steps + run.stats.rejected;
    println!(
        "stiff oscillator λ = 1e5, Rodas4 at rtol 1e-7: error {worst:.1e}, {} evaluations over {attempts} attempts",
        run.stats.evaluations
    );
    assert!(worst < 1e-6, "{worst:e}");
    // Seven evaluations an attempt (five stages, ∂F/∂t, F at the new state): no difference
    // Jacobian, the generated one is used.
    assert!(run.stats.evaluations <= 7 * attempts + 2, "{} evaluations for {attempts} attempts", run.stats.evaluations);
}

#[test]
fn a_pendulum_on_a_stiff_rod_needs_a_fraction_of_dopri5s_evaluations() {
    // The axial mode 10⁴ times faster than the swing: DOPRI5 is held to its stability limit,
    // Rodas4 steps with the swing; both meet the tolerance against a tight reference.
    let p = StiffPendulum::with_ratio(1e4);
    let x0 = p.released(0.5);
    // (The absolute tolerance stays above the rounding of the rod's force k(r − l), about
    // 1e-7 m/s² with r near 1: the stretch rate cannot be resolved below it.)
    let run = |scheme: Scheme, tol: f64| {
        let opts = Options::default().scheme(scheme).rtol(tol).atol(tol);
        p.run(x0).span(0.0..2.0).options(&opts).go().unwrap()
    };
    let (dopri, rodas, reference) = (run(Scheme::Dopri5, 1e-6), run(Scheme::Rodas4, 1e-6), run(Scheme::Rodas4, 1e-10));
    let err = |x: &SVector<f64, 4>| (x[1] - reference.end.1[1]).abs().max((x[3] - reference.end.1[3]).abs());
    let (d_err, r_err) = (err(&dopri.end.1), err(&rodas.end.1));
    let ratio = dopri.stats.evaluations as f64 / rodas.stats.evaluations as f64;
    println!(
        "pendulum on a rod 1e4 times stiffer than its swing, 2 s at rtol 1e-6: DOPRI5 {} evaluations (swing error {d_err:.1e}), \
         Rodas4 {} ({r_err:.1e}): {ratio:.0}× fewer",
        dopri.stats.evaluations, rodas.stats.evaluations
    );
    assert!(d_err < 1e-5 && r_err < 1e-5, "{d_err:e} {r_err:e}");
    assert!(ratio > 100.0, "{ratio}");
    // The energy only decreases (the damper), to the tolerance.
    let e: Vec<f64> = rodas.iter().map(|(t, x)| p.energy(t, x)).collect();
    let rise = e.windows(2).map(|w| w[1] - w[0]).fold(0.0, f64::max);
    assert!(rise < 1e-5 * e[0].abs(), "the energy rose by {rise:e}");
}

#[test]
fn a_flexible_arm_with_stiff_spring_damper_joints_needs_a_fraction_of_dopri5s_evaluations() {
    // Issue's benchmark as a test of the counts (the times are `cargo bench --bench chain --
    // stiff/`): a three-link chain whose joints are spring–dampers of stiffness 10⁶ times the
    // gravity stiffness m g l, critically damped. Over 1 s at rtol 1e-6 both methods meet the
    // tolerance against a tight reference, and DOPRI5, held to its stability limit by the joints'
    // modes, needs more than 100 times Rodas4's evaluations.
    let arm = models::FlexibleArm::with_ratio(1e6, 1.0);
    let x0 = arm.released(0.5);
    let run = |scheme: Scheme, tol: f64| {
        let opts = Options::default().scheme(scheme).rtol(tol).atol(tol);
        arm.run(x0).span(0.0..1.0).options(&opts).go().unwrap()
    };
    let (dopri, rodas, reference) = (run(Scheme::Dopri5, 1e-6), run(Scheme::Rodas4, 1e-6), run(Scheme::Rodas4, 1e-11));
    let (d_err, r_err) = ((dopri.end.1 - reference.end.1).amax(), (rodas.end.1 - reference.end.1).amax());
    let ratio = dopri.stats.evaluations as f64 / rodas.stats.evaluations as f64;
    println!(
        "flexible arm, joints 1e6 times the gravity stiffness, critically damped, 1 s at rtol 1e-6: DOPRI5 {} evaluations \
         (error {d_err:.1e}), Rodas4 {} ({r_err:.1e}): {ratio:.0}× fewer",
        dopri.stats.evaluations, rodas.stats.evaluations
    );
    assert!(d_err < 1e-5 && r_err < 1e-5, "{d_err:e} {r_err:e}");
    assert!(ratio > 100.0, "{ratio}");
    // The joints stay straight to the static bending of the swing: |b − a|, |c − b| ≪ 1.
    assert!(rodas.states.iter().all(|x| (x[1] - x[0]).abs() < 1e-4 && (x[2] - x[1]).abs() < 1e-4));
}
