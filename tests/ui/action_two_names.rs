use routh::prelude::*;

/// Two names in one `action(...)`: one error, and `z` stays the action variable (no cascade of
/// "unknown name `z`").
#[derive(Mechanics)]
#[mechanics(
    coordinates(x),
    action(z, w),
    lagrangian = dot(x).powi(2) / 2 - x.powi(2) / 2 - g * z,
)]
struct Two {
    g: f64,
}

fn main() {}
