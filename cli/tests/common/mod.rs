//! Helpers shared by the command line's integration tests (each test file uses some of them).
#![allow(dead_code)]

pub mod browser;
pub mod cli;
pub mod pygambit;
pub mod serve;

/// A file of the library's test data (`tests/data/` at the workspace root).
pub fn data(name: &str) -> String {
    format!("{}/../tests/data/{name}", env!("CARGO_MANIFEST_DIR"))
}

/// Writes `contents` to `dir/name` and returns the path.
pub fn write_in(
    dir: &std::path::Path,
    name: &str,
    contents: impl AsRef<[u8]>,
) -> std::path::PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, contents).unwrap();
    p
}

/// The flags every browser test starts Chromium with: headless, no sandbox or GPU, nothing
/// fetched in the background, no first-run pages, no scrollbars in screenshots.
pub const HEADLESS: [&str; 8] = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--hide-scrollbars",
];

/// Debian's `chromium` (or `BLUFF_CHROMIUM=/path`) for the browser tests, if installed.
pub fn chromium() -> Option<std::path::PathBuf> {
    if let Ok(p) = std::env::var("BLUFF_CHROMIUM") {
        return Some(std::path::PathBuf::from(p));
    }
    let path = std::env::var_os("PATH")?;
    for dir in std::env::split_paths(&path) {
        for name in ["chromium", "chromium-browser", "google-chrome"] {
            let p = dir.join(name);
            if p.is_file() {
                return Some(p);
            }
        }
    }
    None
}
