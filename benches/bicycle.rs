//! The Whipple bicycle written with bodies, frames and rolling items (`examples/models/whipple.rs`)
//! against the same bicycle derived by hand into 88 scalar defines
//! (`examples/models/whipple_by_hand.rs`; `tests/bicycle.rs` checks that they agree to 1e-14):
//!
//! - `bicycle/field/{bodies,by_hand}`: one evaluation of the constrained field at 4 m/s with roll
//!   and steer rates (the saddle point solved with the generated M, f and rows);
//! - `bicycle/jacobian/{bodies,by_hand}`: its Jacobian (`jacobian`, which `linearize_constrained`
//!   reads);
//! - `bicycle/expand/{bodies,by_hand}`: the derive's expansion at opt-level 0; prints the generated
//!   tokens' sizes.
//!
//! Prints each pair's ratio measured in one process (criterion's own numbers follow).

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use routh::runtime::VectorField;

mod measure;
use measure::{expansions, model_source, per_call};

#[allow(dead_code)]
#[path = "../examples/models/whipple.rs"]
mod whipple;
#[allow(dead_code)]
#[path = "../examples/models/whipple_by_hand.rs"]
mod whipple_by_hand;

fn bicycle(c: &mut Criterion) {
    let bodies = whipple::benchmark();
    let hand = whipple_by_hand::from_bodies(&bodies);
    let x = whipple::running(&bodies, 4.0, 0.3, -0.2);
    let (f1, f2) = (bodies.field(0.0, &x).unwrap(), hand.field(0.0, &x).unwrap());
    assert!((f1 - f2).amax() < 1e-12 * f1.amax(), "the two bicycles differ");
    let (t1, t2) = (
        per_call(200_000, || bodies.field(0.0, black_box(&x)).unwrap()),
        per_call(200_000, || hand.field(0.0, black_box(&x)).unwrap()),
    );
    println!("bicycle field: bodies {:.0} ns, by hand {:.0} ns ({:.2}×)", 1e9 * t1, 1e9 * t2, t1 / t2);
    let (j1, j2) = (
        per_call(20_000, || bodies.jacobian(0.0, black_box(&x)).unwrap()),
        per_call(20_000, || hand.jacobian(0.0, black_box(&x)).unwrap()),
    );
    println!("bicycle Jacobian: bodies {:.1} µs, by hand {:.1} µs ({:.2}×)", 1e6 * j1, 1e6 * j2, j1 / j2);
    let mut group = c.benchmark_group("bicycle");
    group.bench_function("field/bodies", |b| b.iter(|| bodies.field(0.0, black_box(&x)).unwrap()));
    group.bench_function("field/by_hand", |b| b.iter(|| hand.field(0.0, black_box(&x)).unwrap()));
    group.bench_function("jacobian/bodies", |b| b.iter(|| bodies.jacobian(0.0, black_box(&x)).unwrap()));
    group.bench_function("jacobian/by_hand", |b| b.iter(|| hand.jacobian(0.0, black_box(&x)).unwrap()));
    let sources: [(&str, proc_macro2::TokenStream); 2] = [
        ("bodies", model_source(include_str!("../examples/models/whipple.rs"), "Bicycle").parse().unwrap()),
        ("by_hand", model_source(include_str!("../examples/models/whipple_by_hand.rs"), "HandBicycle").parse().unwrap()),
    ];
    let times = expansions("bicycle", &mut group, &sources);
    println!("bicycle expansion: bodies {:.2}× by hand", times[0] / times[1]);
    group.finish();
}

criterion_group!(benches, bicycle);
criterion_main!(benches);
