//! The crates as a user receives them: every published crate carries the metadata crates.io and
//! docs.rs show (description, licence, repository, documentation, readme, keywords, categories,
//! rust-version, a package list without tests and fixtures), the crates pin each other's exact
//! version, and nothing a user's build compiles asks for a newer Rust than the declared
//! `rust-version` (the MSRV: the resolver picks dependency versions for it; `clippy` checks our
//! own uses of the standard library against it with `incompatible_msrv`). `cargo publish
//! --workspace --dry-run` (in `.ci/run`) builds each crate from its package.

use std::collections::{BTreeMap, BTreeSet};
use std::process::Command;

use serde_json::Value;

const PUBLISHED: [&str; 5] = ["routh", "routh-macros", "routh-macros-core", "routh-runtime", "routh-symbolic"];

fn metadata() -> Value {
    let out = Command::new(env!("CARGO"))
        .args(["metadata", "--format-version", "1", "--manifest-path", concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml")])
        .output()
        .expect("cargo metadata runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

fn version(v: &str) -> (u64, u64) {
    let mut parts = v.split('.').map(|p| p.parse::<u64>().unwrap());
    (parts.next().unwrap(), parts.next().unwrap_or(0))
}

#[test]
fn published_crates_carry_their_metadata_and_pin_each_other() {
    let meta = metadata();
    let packages: BTreeMap<&str, &Value> = meta["packages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["source"].is_null())
        .map(|p| (p["name"].as_str().unwrap(), p))
        .collect();
    for name in PUBLISHED {
        let p = packages[name];
        for field in ["description", "license", "repository", "documentation", "readme", "rust_version", "homepage"] {
            let value = p[field].as_str().unwrap_or_default();
            assert!(!value.is_empty() && !value.contains("example.invalid"), "{name}: {field} = {value:?}");
        }
        assert_eq!(p["license"], "MIT OR Apache-2.0");
        assert_eq!(p["documentation"].as_str().unwrap(), format!("https://docs.rs/{name}"));
        let keywords = p["keywords"].as_array().unwrap();
        let categories = p["categories"].as_array().unwrap();
        assert!((1..=5).contains(&keywords.len()) && (1..=5).contains(&categories.len()), "{name}");
        assert!(p["publish"].is_null(), "{name} must be publishable");
        // Every path dependency on another of our crates is exact: the generated code and the
        // runtime, the derive and the engine, move together.
        for dep in p["dependencies"].as_array().unwrap() {
            let dep_name = dep["name"].as_str().unwrap();
            if PUBLISHED.contains(&dep_name) && dep["kind"].is_null() {
                assert_eq!(dep["req"], format!("={}", p["version"].as_str().unwrap()), "{name} -> {dep_name}");
            }
        }
    }
    // The examples and benchmarks are workspace members that are never published.
    for name in ["routh-examples", "routh-benches"] {
        assert_eq!(packages[name]["publish"], serde_json::json!([]), "{name}");
    }
}

#[test]
fn nothing_a_user_builds_needs_a_newer_rust_than_the_declared_one() {
    let meta = metadata();
    let msrv = version(
        meta["packages"].as_array().unwrap().iter().find(|p| p["name"] == "routh").unwrap()["rust_version"].as_str().unwrap(),
    );
    let by_id: BTreeMap<&str, &Value> =
        meta["packages"].as_array().unwrap().iter().map(|p| (p["id"].as_str().unwrap(), p)).collect();
    let nodes: BTreeMap<&str, &Value> =
        meta["resolve"]["nodes"].as_array().unwrap().iter().map(|n| (n["id"].as_str().unwrap(), n)).collect();
    // Walk the normal and build dependencies (not the dev ones) of the published crates.
    let mut stack: Vec<&str> =
        by_id.iter().filter(|(_, p)| PUBLISHED.contains(&p["name"].as_str().unwrap())).map(|(id, _)| *id).collect();
    let mut seen = BTreeSet::new();
    while let Some(id) = stack.pop() {
        if !seen.insert(id) {
            continue;
        }
        for dep in nodes[id]["deps"].as_array().unwrap() {
            let user_facing = dep["dep_kinds"].as_array().unwrap().iter().any(|k| k["kind"] != "dev");
            if user_facing {
                stack.push(dep["pkg"].as_str().unwrap());
            }
        }
    }
    assert!(seen.len() > 20, "the walk found the dependency graph ({} packages)", seen.len());
    let too_new: Vec<String> = seen
        .iter()
        .filter_map(|id| {
            let p = by_id[id];
            let rv = p["rust_version"].as_str()?;
            (version(rv) > msrv).then(|| {
                format!("{} {} needs {rv}", p["name"].as_str().unwrap_or_default(), p["version"].as_str().unwrap_or_default())
            })
        })
        .collect();
    assert!(too_new.is_empty(), "declared rust-version {msrv:?}, but: {too_new:?}");
}
