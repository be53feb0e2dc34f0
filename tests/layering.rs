//! The layering rule of `docs/architecture.md`, checked on the source: a module of the library
//! names only modules of its own layer or below (`crate::...` paths outside `#[cfg(test)]`
//! code). Engines never name the games, the worked problems or the solve layer; the games
//! never name the solve layer. Two documented exceptions: `format::text` (quoting input in
//! messages) is a base utility every layer uses, and `error.rs` is the crate's boundary type,
//! which wraps every room's own error (`bluff::Error`), so it names them all.

use std::path::{Path, PathBuf};

/// Each top-level module of `src/` and its layer, from the bottom up.
const LAYERS: &[(&str, usize)] = &[
    ("error", 0),
    ("fxhash", 0),
    ("prefetch", 0),
    ("scalar", 0),
    ("threads", 0),
    ("curve", 0),
    ("game", 1),
    ("strategy", 1),
    ("lock", 1),
    ("eval", 2),
    ("streaming", 2),
    ("study", 2),
    ("format", 2),
    ("report", 2),
    ("cfr", 2),
    ("lp", 2),
    ("exact", 2),
    ("mccfr", 2),
    ("matrix", 2),
    ("lcp", 2),
    ("holdem", 2),
    ("games", 3),
    ("problems", 3),
    ("solve", 4),
];

fn layer(module: &str) -> Option<usize> {
    LAYERS.iter().find(|(m, _)| *m == module).map(|&(_, l)| l)
}

/// Every `.rs` file under `dir`.
fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The text of a file before its first `#[cfg(test)]` (test modules sit at the end).
fn non_test(text: &str) -> &str {
    text.find("#[cfg(test)]").map_or(text, |i| &text[..i])
}

#[test]
fn no_module_names_a_higher_layer() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&src, &mut files);
    let mut wrong = Vec::new();
    for file in &files {
        let rel = file.strip_prefix(&src).unwrap();
        let top = rel
            .components()
            .next()
            .unwrap()
            .as_os_str()
            .to_str()
            .unwrap()
            .trim_end_matches(".rs");
        // lib.rs declares the modules; a `tests.rs` file is a test module of its folder;
        // error.rs wraps every room's error.
        if top == "lib" || top == "error" || file.file_name().is_some_and(|n| n == "tests.rs") {
            continue;
        }
        let own = layer(top).unwrap_or_else(|| panic!("src/{top} has no layer in LAYERS"));
        let text = std::fs::read_to_string(file).unwrap();
        for (n, line) in non_test(&text).lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            for (i, _) in code.match_indices("crate::") {
                let rest = &code[i + 7..];
                let name: String = rest
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect();
                if rest.starts_with("format::text") {
                    continue;
                }
                if let Some(l) = layer(&name).filter(|&l| l > own) {
                    wrong.push(format!(
                        "src/{}:{}: {top} (layer {own}) names {name} (layer {l})",
                        rel.display(),
                        n + 1
                    ));
                }
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "imports that run up:\n{}",
        wrong.join("\n")
    );
}
