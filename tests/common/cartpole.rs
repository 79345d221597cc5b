/// A cart-pole pushed by a force u on the cart (θ from the upward vertical), with its midpoint
/// variational integrator. Shared, by `include!`, by `tests/erased.rs` and
/// `tests/erased_discrete.rs`.
#[derive(Mechanics)]
#[mechanics(
    coordinates(s, th),
    input(u),
    define(px = s + l * th.sin(), py = l * th.cos()),
    lagrangian = mc / 2 * dot(s).powi(2) + mp / 2 * (dot(px).powi(2) + dot(py).powi(2)) - mp * g * py,
    force(s = u),
    discrete(rule = midpoint),
)]
struct CartPole {
    mc: f64,
    mp: f64,
    l: f64,
    g: f64,
}
