//! What a robot read from its description file costs to build, against the same robot written
//! with `joint(...)` items and written by hand with frames, points and bodies (the seven-joint arm
//! of `tests/joints.rs`, which checks that the three agree to 1e-12):
//!
//! - `robots/expand/{urdf,joints,by_hand}`: the derive's expansion at opt-level 0 (the URDF file
//!   read and parsed included); prints the generated tokens' sizes and the ratios measured in one
//!   process.
//!
//! The release build of a robot's binary, against Pinocchio on the same file, is
//! `scripts/compare_urdf.py`'s (see docs/guide/performance.md).

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};

mod measure;
use measure::{model_source, per_call};

fn robots(c: &mut Criterion) {
    let file = include_str!("../tests/joints.rs");
    // The description file's path is relative to the manifest directory: this crate's is benches/.
    let urdf = model_source(file, "UrdfArm").replace("\"tests/robots/", "\"../tests/robots/");
    let sources: [(&str, proc_macro2::TokenStream); 3] = [
        ("urdf", urdf.parse().unwrap()),
        ("joints", model_source(file, "JointArm").parse().unwrap()),
        ("by_hand", model_source(file, "HandArm").parse().unwrap()),
    ];
    let mut times = Vec::new();
    for (name, src) in &sources {
        let tokens = routh_macros_core::try_expand(src.clone()).unwrap().to_string().len();
        let t = per_call(5, || routh_macros_core::try_expand(black_box(src.clone())).unwrap());
        println!("arm7 {name}: {tokens} bytes of generated tokens, expanded in {:.0} ms", 1e3 * t);
        times.push(t);
    }
    println!("arm7 expansion: from its URDF {:.2}× from joint items, {:.2}× by hand", times[0] / times[1], times[0] / times[2]);
    let mut group = c.benchmark_group("robots");
    group.sample_size(10);
    for (name, src) in &sources {
        group.bench_function(format!("expand/{name}"), |b| {
            b.iter(|| routh_macros_core::try_expand(black_box(src.clone())).unwrap())
        });
    }
    group.finish();
}

criterion_group!(benches, robots);
criterion_main!(benches);
