//! `#[mechanics(crate = path)]`: a crate that reaches routh under another name (a renamed
//! dependency, or a re-export from a crate of its own) still derives its models. The generated code
//! names only `path::__private`, so no `::routh` needs to resolve for it.

use routh as mech;

use mech::Mechanics;
use mech::runtime::Options;

/// A Duffing oscillator, derived with routh named `mech`.
#[derive(Mechanics)]
#[mechanics(crate = mech, coordinates(x), lagrangian = m / 2 * dot(x).powi(2) - k / 2 * x.powi(2) - c / 4 * x.powi(4), jacobian)]
struct Renamed {
    m: f64,
    k: f64,
    c: f64,
}

/// The same model at the default path.
#[derive(Mechanics)]
#[mechanics(coordinates(x), lagrangian = m / 2 * dot(x).powi(2) - k / 2 * x.powi(2) - c / 4 * x.powi(4), jacobian)]
struct Plain {
    m: f64,
    k: f64,
    c: f64,
}

#[test]
fn a_model_derived_through_a_renamed_path_is_the_same_model() {
    let (a, b) = (Renamed { m: 1.5, k: 2.0, c: 0.7 }, Plain { m: 1.5, k: 2.0, c: 0.7 });
    let opts = Options::default().rtol(1e-11).atol(1e-12);
    let ra = a.run(a.state([1.2], [0.0])).span(0.0..10.0).options(&opts).go().unwrap();
    let rb = b.run(b.state([1.2], [0.0])).span(0.0..10.0).options(&opts).go().unwrap();
    assert_eq!(ra.states, rb.states, "the same generated code runs");
    // And it is the Duffing oscillator: energy ½ m ẋ² + ½ k x² + ¼ c x⁴ is conserved.
    let (t, x) = ra.last().unwrap();
    let e0 = 0.5 * 2.0 * 1.44 + 0.25 * 0.7 * 1.2f64.powi(4);
    assert!((a.energy(t, x) - e0).abs() < 1e-8, "{} vs {e0}", a.energy(t, x));
    let dxddot_dx = a.jacobian(0.0, &a.state([1.2], [0.0])).unwrap()[(1, 0)];
    assert!((dxddot_dx + (2.0 + 3.0 * 0.7 * 1.44) / 1.5).abs() < 1e-14, "{dxddot_dx}");
}
