// An asymmetric heavy top about its tip on the Lie group integrator of the rule `$rule`, as the
// struct `$name`: shared, by `include!`, by `tests/discrete_oriented.rs` (both rules) and
// `examples/heavy_top.rs`.
macro_rules! top {
    ($name:ident, $rule:ident) => {
        #[derive(Mechanics)]
        #[mechanics(
            orientation(b),
            body(name = top, mass = m, centre = b * [0, 0, l], frame = b, inertia = diag(a1, a2, c)),
            gravity = [0, 0, -g],
            discrete(rule = $rule),
        )]
        struct $name {
            m: f64,
            l: f64,
            a1: f64,
            a2: f64,
            c: f64,
            g: f64,
        }
    };
}
