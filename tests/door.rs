//! The door between generated code and the runtime (`routh::__private`) holds what generated code
//! names and nothing else: every item it re-exports is named by an emitter of the derive, so the
//! runtime's public API stays free to change behind it.

use std::path::Path;

/// The items of `pub mod __private { ... }` in the facade's `src/lib.rs`: (submodule or "", name).
fn door_items() -> Vec<(String, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let lib = std::fs::read_to_string(root.join("src/lib.rs")).unwrap();
    let start = lib.find("pub mod __private {").expect("the door");
    let body = &lib[start..];
    let end = body.find("\n}\n").expect("the door's end");
    let body = &body[..end];
    let mut items = Vec::new();
    let mut module = String::new();
    for statement in body.split(';') {
        // A submodule opens with `pub mod name {` and closes with `}` before the next one.
        if let Some(open) = statement.rfind("pub mod ") {
            let rest = &statement[open + 8..];
            module = rest.split_whitespace().next().unwrap_or("").to_owned();
            if module == "__private" {
                module.clear();
            }
        }
        let Some(at) = statement.find("pub use ") else { continue };
        let path = statement[at + 8..].replace('\n', " ");
        let names: Vec<&str> = match (path.find('{'), path.rfind('}')) {
            (Some(a), Some(b)) => path[a + 1..b].split(',').map(str::trim).filter(|n| !n.is_empty()).collect(),
            _ => vec![path.rsplit("::").next().unwrap().trim()],
        };
        for name in names {
            // `Reduced as DiscreteReduced`: the name generated code uses.
            let name = name.rsplit(" as ").next().unwrap().trim().to_owned();
            items.push((module.clone(), name));
        }
    }
    items
}

/// The emitters' sources (every file under `emit/`, its subdirectories too), concatenated.
fn emitters() -> String {
    fn read(dir: &Path, text: &mut String) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                read(&path, text);
            } else {
                text.push_str(&std::fs::read_to_string(path).unwrap());
            }
        }
    }
    let mut text = String::new();
    read(&Path::new(env!("CARGO_MANIFEST_DIR")).join("macros/core/src/emit"), &mut text);
    text
}

#[test]
fn every_item_of_the_door_is_named_by_generated_code() {
    let items = door_items();
    assert!(items.len() > 40, "the door was read: {items:?}");
    let code = emitters();
    let unused: Vec<String> = items
        .iter()
        .filter(|(module, name)| {
            // Modules are named through a local binding at times (`#mech::take`): there, the item's
            // name after a path separator.
            let prefix = if module.is_empty() { format!("__routh::{name}") } else { format!("::{name}") };
            !names(&code, &prefix)
        })
        .map(|(module, name)| if module.is_empty() { name.clone() } else { format!("{module}::{name}") })
        .collect();
    assert!(unused.is_empty(), "the door re-exports items no generated code names: {unused:?}");
}

/// Whether `code` holds `path` as a whole path segment (not a prefix of a longer name).
fn names(code: &str, path: &str) -> bool {
    code.match_indices(path).any(|(at, _)| !code[at + path.len()..].starts_with(|c: char| c.is_alphanumeric() || c == '_'))
}
