/// The damped oscillator of the contact integrator pushed by the input u: ẍ + γẋ + x = u.
/// Shared, by `include!`, by `tests/discrete.rs` and `tests/erased_discrete.rs`.
#[derive(Mechanics)]
#[mechanics(
    coordinates(x),
    action(z),
    input(u),
    lagrangian = dot(x).powi(2) / 2 - x.powi(2) / 2 - gamma * z,
    force(x = u),
    discrete(rule = midpoint),
)]
struct DrivenContactOscillator {
    gamma: f64,
}
