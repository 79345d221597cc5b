/// A rigid spacecraft with principal moments i1, i2, i3 turned by three body torques (`force(r =
/// τ)`: the torques are the generalized forces of its body rates, held over each step), on its Lie
/// group variational integrator (`discrete(rule = midpoint)`). Shared, by `include!`, by
/// `tests/discrete_oriented.rs`, `benches/control.rs` and `examples/heavy_top.rs`.
#[derive(Mechanics)]
#[mechanics(
    orientation(r),
    input(t1, t2, t3),
    body(name = craft, mass = m, centre = [0, 0, 0], frame = r, inertia = diag(i1, i2, i3)),
    force(r = [t1, t2, t3]),
    discrete(rule = midpoint),
)]
struct Craft {
    m: f64,
    i1: f64,
    i2: f64,
    i3: f64,
}
