/// Example 3.13: the same particle in polar coordinates on the covering (r, η), midpoint rule with
/// the consistent force, reduced by G = ℝ (the angle η) in `simulate_discrete_reduced` (erratum D3 of `docs/references.md`: the printed force is O(1/h) and makes the
/// momentum flip sign every step; the pullback of f = −κ(ṙ dr + r²η̇ dη) is what is generated).
/// Shared, by `include!`, by `tests/discrete.rs` and `tests/erased_discrete.rs`.
#[derive(Mechanics)]
#[mechanics(
    coordinates(r, eta),
    lagrangian = (dot(r).powi(2) + (r * dot(eta)).powi(2)) / 2 - r.powi(2) * (r.powi(2) - 1).powi(2),
    force(r = -kappa * dot(r), eta = -kappa * r.powi(2) * dot(eta)),
    symmetry(cyclic(eta)),
    reduce(routh(eta)),
    discrete(rule = midpoint),
)]
struct Polar {
    kappa: f64,
}
