//! The damped sphere on a half-rough plane (*Contact impulsive constraints*, Example 3): entering the rough side, rolling, and backspin released (reference run R6).

use super::*;

/// A homogeneous sphere (mass 1, radius r, radius of gyration k) with contact damping −βZ, on a
/// plane that is smooth for x < 0 and absolutely rough for x > 0 (*Contact impulsive constraints*, Example 3;
/// §3.2). Orientation in Euler angles (φ, θ, ψ), away from their singularity sin θ = 0; the
/// space-frame angular velocities are `define`s (erratum E16: the printed θ in ω_x is θ̇). On the
/// rough side the sphere rolls (ϕ¹ = ẋ − r ω_y, ϕ² = ẏ + r ω_x); crossing x = 0 projects onto the
/// rolling constraints (eq. 21), and a sphere that comes back (backspin) is released.
#[derive(Mechanics)]
#[mechanics(
    coordinates(x, y, ph, th, ps),
    action(zeta),
    define(
        wx = dot(th) * ps.cos() + dot(ph) * th.sin() * ps.sin(),
        wy = dot(th) * ps.sin() - dot(ph) * th.sin() * ps.cos(),
        wz = dot(ph) * th.cos() + dot(ps),
    ),
    lagrangian = (dot(x).powi(2) + dot(y).powi(2) + k2 * (wx.powi(2) + wy.powi(2) + wz.powi(2))) / 2 - beta * zeta,
    mode(smooth),
    mode(rough, constraint(roll_x = dot(x) - r * wy, roll_y = dot(y) + r * wx)),
    transition(smooth -> rough, name = enter, guard = -x, law = project),
    transition(rough -> smooth, name = leave, guard = x, law = map()),
)]
struct Sphere {
    r: f64,
    k2: f64,
    beta: f64,
}

/// Space-frame angular velocity of the sphere's state.
fn omega(x: &SVector<f64, 11>) -> [f64; 3] {
    let (th, ps, dph, dth, dps) = (x[3], x[4], x[7], x[8], x[9]);
    [dth * ps.cos() + dph * th.sin() * ps.sin(), dth * ps.sin() - dph * th.sin() * ps.cos(), dph * th.cos() + dps]
}

/// Reference run R6 (`docs/references.md`): r = 1, k² = 2/5, β = 0.5, x₀ = −1, ẋ₀ = 2, ẏ₀ = 0.3,
/// ω₀ = (0.5, −1, 2) (here with ω₀ given), at Euler angles (0, π/2, 0).
fn sphere_start(s: &Sphere, xdot: f64, w: [f64; 3]) -> SVector<f64, 11> {
    let (th, ps) = (std::f64::consts::FRAC_PI_2, 0.0f64);
    let dth = w[0] * ps.cos() + w[1] * ps.sin();
    let dph = (w[0] * ps.sin() - w[1] * ps.cos()) / th.sin();
    let dps = w[2] - dph * th.cos();
    s.smooth_state([-1.0, 0.0, 0.0, th, ps], [xdot, 0.3, dph, dth, dps], 0.0).state
}

#[test]
fn sphere_enters_the_rough_plane_at_the_corrected_time_and_rolls_straight() {
    let s = Sphere { r: 1.0, k2: 0.4, beta: 0.5 };
    let t_bar = 2.0 * (4.0f64 / 3.0).ln();
    let sol = s
        .run(ModeState::new(Sphere::SMOOTH, sphere_start(&s, 2.0, [0.5, -1.0, 2.0])))
        .span(0.0..t_bar + 3.0)
        .options(hybrid_tight())
        .go()
        .unwrap();
    assert_eq!(sol.mode_sequence(), vec![Sphere::SMOOTH, Sphere::ROUGH]);
    let enter = &sol.impacts[0];
    // S1: t̄ = −(1/β) ln(1 + βx₀/ẋ₀) = 2 ln(4/3) (erratum E19: the printed −x₀/ẋ₀ = 0.5 ignores damping).
    assert!((enter.t - t_bar).abs() < 1e-9, "t̄ = {} against {t_bar}", enter.t);
    // S2: every velocity decays by e^{−βt̄} = 3/4 before the impact (erratum E18: e^{−βt}, not
    // e^{−βt/k²}); y₁, Z₋ and E₋ in closed form.
    let pre = &enter.pre;
    let w = omega(pre);
    let expect = [(pre[5], 1.5), (pre[6], 0.225), (w[0], 0.375), (w[1], -0.75), (w[2], 1.5), (pre[1], 0.15), (pre[10], 1.160625)];
    for (k, (got, want)) in expect.into_iter().enumerate() {
        assert!((got - want).abs() < 1e-9, "S2 item {k}: {got} against {want}");
    }
    assert!((enter.energy_before - 2.32125).abs() < 1e-9, "E₋ = {}", enter.energy_before);
    // S3: the projection gives ẋ₊ = ω_y₊ = 6/7, ẏ₊ = −ω_x₊ = 3/56, ω_z₊ = 1.5, residuals zero.
    let post = &enter.post;
    let w = omega(post);
    for (got, want) in [(post[5], 6.0 / 7.0), (w[1], 6.0 / 7.0), (post[6], 3.0 / 56.0), (w[0], -3.0 / 56.0), (w[2], 1.5)] {
        assert!((got - want).abs() < 1e-9, "S3: {got} against {want}");
    }
    let rough = s.rough();
    assert!(rough.velocity_residuals(enter.t, post).amax() < 1e-14);
    assert_eq!(pre[10], post[10], "Z kept");
    // S4: ΔT = −½ k²/(k² + r²) [(ẋ₋ − rω_y₋)² + (ẏ₋ + rω_x₋)²] = −0.7746428571.
    assert!((enter.energy_jump() + 0.7746428571).abs() < 1e-9, "ΔT = {}", enter.energy_jump());
    // S5: on the rough side λ ≡ 0 (uniform contact damping adds no constraint force) and every
    // velocity decays as e^{−β(t − t̄)}.
    let (t, _, x) = sol.last().unwrap();
    let lam = rough.constraint_forces(t, x).unwrap();
    assert!(lam.amax() < 1e-10, "λ = {lam}");
    assert!((x[0] - 12.0 / 7.0 * (1.0 - (-1.5f64).exp())).abs() < 1e-8, "x(t̄ + 3) = {}", x[0]);
    assert!((x[0] - 1.3317768683).abs() < 1e-8);
    assert!((omega(x)[2] - 0.3346952402).abs() < 1e-8, "ω_z(t̄ + 3) = {}", omega(x)[2]);
    let e = rough.energy(t, x);
    assert!((e - 1.5466071429 * (-s.beta * (t - enter.t)).exp()).abs() < 1e-9, "E_L(t̄ + 3) = {e}");
    // S6: the path is two straight segments: ẏ/ẋ constant on each side (G7, dissipated momenta
    // keep their ratios).
    let mut ratios = [Vec::new(), Vec::new()];
    for (_, mode, x) in sol.iter() {
        ratios[mode].push(x[6] / x[5]);
    }
    for side in ratios {
        let (lo, hi) = side.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |a, &r| (a.0.min(r), a.1.max(r)));
        assert!(hi - lo < 1e-9, "ẏ/ẋ varies by {} on one side", hi - lo);
    }
}

#[test]
fn sphere_too_slow_never_arrives_and_backspin_is_released_without_chatter() {
    let s = Sphere { r: 1.0, k2: 0.4, beta: 0.5 };
    // S1: with ẋ₀ ≤ β|x₀| the sphere stops short of x = 0 (x → x₀ + ẋ₀/β).
    let slow = s
        .run(ModeState::new(Sphere::SMOOTH, sphere_start(&s, 0.5, [0.5, -1.0, 2.0])))
        .span(0.0..30.0)
        .options(hybrid_tight())
        .go()
        .unwrap();
    assert!(slow.impacts.is_empty(), "no impact");
    let (_, _, x) = slow.last().unwrap();
    assert!(x[0] < 0.0 && (x[0] - (-1.0 + 0.5 / s.beta)).abs() < 1e-5, "x(30) = {}", x[0]);
    // S7: strong backspin makes ẋ₊ < 0: the sphere enters, is projected, and leaves again at once
    // without an impulse — two transitions at one instant, then the smooth side for good.
    let back = s
        .run(ModeState::new(Sphere::SMOOTH, sphere_start(&s, 2.0, [0.5, -6.0, 2.0])))
        .span(0.0..3.0)
        .options(hybrid_tight())
        .go()
        .unwrap();
    assert_eq!(back.stop, HybridStop::Finished);
    assert_eq!(back.mode_sequence(), vec![Sphere::SMOOTH, Sphere::ROUGH, Sphere::SMOOTH]);
    let (enter, leave) = (&back.impacts[0], &back.impacts[1]);
    assert_eq!((enter.guard, leave.guard), ("enter", "leave"));
    assert_eq!(enter.t, leave.t);
    assert!(enter.post[5] < 0.0, "ẋ₊ = {}", enter.post[5]);
    assert_eq!(leave.post, leave.pre, "released without an impulse");
    let (_, mode, x) = back.last().unwrap();
    assert_eq!(mode, Sphere::SMOOTH);
    assert!(x[0] < 0.0);
}
