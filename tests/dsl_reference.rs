//! The DSL has one reference, `docs/dsl.md`, shown as the rustdoc of `routh::Mechanics` and linked
//! from the README: its table of items names every item keyword the parser accepts, and nothing
//! else, so an item added to the parser without its documentation (or documented and then
//! removed) fails here.

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
