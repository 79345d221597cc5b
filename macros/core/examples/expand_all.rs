//! Expands every `#[derive(Mechanics)]` model of the repository and writes each expansion to a
//! file of its own, so that a refactoring can be checked to leave every expansion byte-identical:
//!
//! ```sh
//! cargo run -p routh-macros-core --example expand_all -- /tmp/before
//! # … change …
//! cargo run -p routh-macros-core --example expand_all -- /tmp/after
//! diff -r /tmp/before /tmp/after
//! ```
//!
//! Models are found in every `.rs` file (items at any depth, in functions and modules too, and in
//! the code blocks of doc comments) and in the ```` ```rust ```` blocks of every `.md` file below
//! the repository root, skipping `target/`. Each expansion is written as `to_string()` of the
//! token stream, errors (UI cases) as their messages. A second argument keeps only the files whose
//! path contains it.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use syn::visit::Visit;

fn main() {
    // Large models recurse deeply in the symbolic engine, as inside rustc (whose threads have a
    // large stack too).
    std::thread::Builder::new().stack_size(1 << 30).spawn(run).expect("thread").join().expect("expansion");
}

fn run() {
    let out = PathBuf::from(std::env::args().nth(1).expect("usage: expand_all OUT_DIR [PATH_SUBSTRING]"));
    // Optionally only the files whose path contains this (e.g. `benches/chain_models` to time the
    // large models alone).
    let only = std::env::args().nth(2);
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let root = root.canonicalize().expect("repository root");
    std::fs::create_dir_all(&out).expect("output directory");
    let mut files = Vec::new();
    collect(&root, &mut files);
    files.sort();
    let (mut models, mut failed) = (0, 0);
    for file in files.into_iter().filter(|f| only.as_ref().is_none_or(|o| f.to_string_lossy().contains(o.as_str()))) {
        let text = std::fs::read_to_string(&file).expect("readable source");
        let rel = file.strip_prefix(&root).unwrap().to_string_lossy().replace('/', "__");
        let mut sources: Vec<String> = Vec::new();
        if file.extension().is_some_and(|e| e == "rs") {
            sources.push(text.clone());
        }
        sources.extend(code_blocks(&text, file.extension().is_some_and(|e| e == "md")));
        let mut found = Vec::new();
        for src in &sources {
            let Some(ast) = parse(src) else { continue };
            let mut finder = Finder(Vec::new());
            finder.visit_file(&ast);
            found.extend(finder.0);
        }
        for (k, item) in found.into_iter().enumerate() {
            let name = item.ident.to_string();
            let tokens = quote::ToTokens::to_token_stream(&item);
            let text = match routh_macros_core::try_expand(tokens) {
                Ok(t) => t.to_string(),
                Err(e) => {
                    failed += 1;
                    let mut s = String::from("ERROR\n");
                    for e in e {
                        let _ = writeln!(s, "{e}");
                    }
                    s
                }
            };
            std::fs::write(out.join(format!("{rel}__{k:02}_{name}.txt")), text).expect("written");
            models += 1;
        }
    }
    println!("{models} models expanded ({failed} with errors) into {}", out.display());
}

fn collect(dir: &Path, files: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("readable directory") {
        let path = entry.expect("entry").path();
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        if path.is_dir() {
            if name != "target" && !name.starts_with('.') {
                collect(&path, files);
            }
        } else if name.ends_with(".rs") || name.ends_with(".md") {
            files.push(path);
        }
    }
}

/// The Rust code blocks of a Markdown file or of a source file's doc comments (hidden `# ` lines
/// included).
fn code_blocks(text: &str, markdown: bool) -> Vec<String> {
    let mut blocks = Vec::new();
    // Inside a fence: Some(block) for a Rust block, None for another language.
    let mut fence: Option<Option<String>> = None;
    for line in text.lines() {
        let line = if markdown {
            Some(line)
        } else {
            let t = line.trim_start();
            t.strip_prefix("//!").or_else(|| t.strip_prefix("///")).map(|l| l.strip_prefix(' ').unwrap_or(l))
        };
        let Some(line) = line else {
            continue;
        };
        let is_fence = line.trim_start().starts_with("```");
        match (&mut fence, is_fence) {
            (None, true) => {
                let lang = line.trim_start().trim_start_matches('`').trim();
                let rust =
                    lang.is_empty() || lang.starts_with("rust") || lang.starts_with("no_run") || lang.starts_with("ignore");
                fence = Some(rust.then(String::new));
            }
            (Some(block), true) => {
                blocks.extend(block.take());
                fence = None;
            }
            (Some(Some(b)), false) => {
                let l = line.trim_start();
                let l = if l == "#" { "" } else { l.strip_prefix("# ").unwrap_or(line) };
                b.push_str(l);
                b.push('\n');
            }
            _ => {}
        }
    }
    blocks
}

fn parse(src: &str) -> Option<syn::File> {
    syn::parse_file(src).ok().or_else(|| syn::parse_file(&format!("fn __block() {{ {src} }}")).ok())
}

struct Finder(Vec<syn::DeriveInput>);

impl<'ast> Visit<'ast> for Finder {
    fn visit_item_struct(&mut self, s: &'ast syn::ItemStruct) {
        let derives_mechanics = s.attrs.iter().any(|a| {
            a.path().is_ident("derive") && a.meta.require_list().is_ok_and(|l| l.tokens.to_string().contains("Mechanics"))
        });
        if derives_mechanics {
            let tokens = quote::ToTokens::to_token_stream(s);
            self.0.push(syn::parse2(tokens).expect("a struct is a derive input"));
        }
        syn::visit::visit_item_struct(self, s);
    }
}
