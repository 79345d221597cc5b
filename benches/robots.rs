//! What a robot read from its description file costs to build, against the same robot written
//! with `joint(...)` items and written by hand with frames, points and bodies (the seven-joint arm
//! of `tests/joints.rs`, which checks that the three agree to 1e-12):
//!
//! - `robots/expand/{urdf,joints,by_hand}`: the derive's expansion at opt-level 0 (the URDF file
//!   read and parsed included); prints the generated tokens' sizes and the ratios measured in one
//!   process;
//! - `robots/expand/{quadruped_urdf,quadruped_by_hand}`: the same for the twelve-joint quadruped on
//!   its floating base (`tests/floating.rs`).
//!
//! The release build of a robot's binary, against Pinocchio on the same file, is
//! `scripts/compare_urdf.py`'s (see docs/guide/performance.md).

use criterion::{Criterion, criterion_group, criterion_main};

mod measure;
use measure::{expansions, model_source};

fn robots(c: &mut Criterion) {
    let file = include_str!("../tests/joints.rs");
    // The description file's path is relative to the manifest directory: this crate's is benches/.
    let urdf = model_source(file, "UrdfArm").replace("\"tests/robots/", "\"../tests/robots/");
    let sources: [(&str, proc_macro2::TokenStream); 3] = [
        ("urdf", urdf.parse().unwrap()),
        ("joints", model_source(file, "JointArm").parse().unwrap()),
        ("by_hand", model_source(file, "HandArm").parse().unwrap()),
    ];
    let mut group = c.benchmark_group("robots");
    let times = expansions("arm7", &mut group, &sources);
    println!("arm7 expansion: from its URDF {:.2}× from joint items, {:.2}× by hand", times[0] / times[1], times[0] / times[2]);
    let floating = include_str!("../tests/floating.rs");
    let urdf = model_source(floating, "Quadruped").replace("\"tests/robots/", "\"../tests/robots/");
    let sources: [(&str, proc_macro2::TokenStream); 2] = [
        ("quadruped_urdf", urdf.parse().unwrap()),
        ("quadruped_by_hand", model_source(floating, "QuadrupedByHand").parse().unwrap()),
    ];
    let times = expansions("quadruped", &mut group, &sources);
    println!("quadruped expansion: from its URDF {:.2}× by hand", times[0] / times[1]);
    group.finish();
}

criterion_group!(benches, robots);
criterion_main!(benches);
