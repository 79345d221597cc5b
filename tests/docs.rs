//! The documentation as a user meets it. The DSL has one reference, `docs/dsl.md`, shown as the
//! rustdoc of `routh::Mechanics` and linked from the README: its table of items names every item
//! keyword the parser accepts, and nothing else, so an item added to the parser without its
//! documentation (or documented and then removed) fails here. Every relative link of the README,
//! the changelog and `docs/` points to a file of the repository (and to a heading of it). The
//! `rust` blocks of the README and the guide are compiled as doctests of the facade (`src/lib.rs`).

use std::collections::BTreeSet;

const REFERENCE: &str = include_str!("../docs/dsl.md");

/// The keywords that start the item cells of the reference's table: `` `name(`` , `` `name =``
/// or `` `name` ``, each alternative of a cell separated by a comma.
fn documented() -> BTreeSet<String> {
    let table = REFERENCE.split("## Items").nth(1).unwrap().split("\n## ").next().unwrap();
    let mut names = BTreeSet::new();
    for row in table.lines().filter(|l| l.starts_with("| `")) {
        let cell = row.split(" | ").next().unwrap();
        for code in cell.split('`').skip(1).step_by(2) {
            let name: String = code.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
            names.insert(name);
        }
    }
    names
}

#[test]
fn the_reference_names_every_item_and_only_those() {
    let parsed: BTreeSet<String> = routh_macros_core::ITEMS.iter().map(|s| (*s).to_owned()).chain(["crate".to_owned()]).collect();
    let documented = documented();
    let missing: Vec<_> = parsed.difference(&documented).collect();
    let unknown: Vec<_> = documented.difference(&parsed).collect();
    assert!(missing.is_empty(), "items the parser accepts but docs/dsl.md does not describe: {missing:?}");
    assert!(unknown.is_empty(), "docs/dsl.md describes items the parser does not accept: {unknown:?}");
    assert!(parsed.len() >= 28, "{parsed:?}");
}

#[test]
fn the_derive_shows_the_reference() {
    // The facade attaches the file to the derive's re-export; its first heading is the page's.
    let lib = include_str!("../src/lib.rs");
    assert!(lib.contains("#[doc = include_str!(\"../docs/dsl.md\")]\npub use routh_macros::Mechanics;"));
    let readme = include_str!("../README.md");
    assert!(readme.contains("docs/dsl.md"));
}

/// GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens.
fn anchor(heading: &str) -> String {
    heading
        .trim_start_matches('#')
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || *c == ' ' || *c == '-' || *c == '_')
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

#[test]
fn every_relative_link_of_the_docs_resolves() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files =
        vec![root.join("README.md"), root.join("CHANGELOG.md"), root.join("docs/dsl.md"), root.join("docs/references.md")];
    for entry in std::fs::read_dir(root.join("docs/guide")).unwrap() {
        files.push(entry.unwrap().path());
    }
    let mut checked = 0;
    let mut broken = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        for piece in text.split("](").skip(1) {
            let Some(target) = piece.split(')').next() else { continue };
            if target.contains("://") || target.starts_with("mailto:") || target.contains(' ') {
                continue;
            }
            let (path, fragment) = target.split_once('#').unwrap_or((target, ""));
            let resolved = if path.is_empty() { file.clone() } else { file.parent().unwrap().join(path) };
            checked += 1;
            let Ok(linked) = std::fs::read_to_string(&resolved) else {
                broken.push(format!("{}: {target}", file.display()));
                continue;
            };
            if !fragment.is_empty() && !linked.lines().filter(|l| l.starts_with('#')).any(|l| anchor(l) == fragment) {
                broken.push(format!("{}: {target} (no such heading)", file.display()));
            }
        }
    }
    assert!(checked > 25, "{checked} links");
    assert!(broken.is_empty(), "{broken:#?}");
}

#[test]
fn the_examples_the_readme_names_exist_and_every_example_is_named() {
    let readme = include_str!("../README.md");
    let manifest = include_str!("../examples/Cargo.toml");
    let table = readme.split("## The guide").nth(1).unwrap().split("\n## ").next().unwrap();
    let named: BTreeSet<&str> = table
        .lines()
        .filter(|l| l.starts_with("| ["))
        .flat_map(|row| row.rsplit(" | ").next().unwrap().split('`').skip(1).step_by(2))
        .collect();
    let examples: BTreeSet<&str> = manifest
        .lines()
        .filter_map(|l| l.strip_prefix("name = \""))
        .map(|n| n.trim_end_matches('"'))
        .filter(|n| *n != "routh-examples")
        .collect();
    assert!(named.len() >= 10, "{named:?}");
    assert_eq!(named, examples, "the guide's table and examples/Cargo.toml disagree");
}
