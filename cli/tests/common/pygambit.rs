//! Finding a Python that imports pygambit, for the Gambit conformance tests.

use std::path::PathBuf;
use std::process::Command;

/// The Python in `BLUFF_PYGAMBIT_PYTHON`, else `bench/.venv/bin/python`, if it imports
/// pygambit. Otherwise `None` (the test then skips, saying why), unless
/// `BLUFF_REQUIRE_PYGAMBIT` is set (as `.ci/run` does), in which case that is a failure.
/// `scripts/install-pygambit.sh` makes the venv.
pub fn python() -> Option<PathBuf> {
    let py = match std::env::var_os("BLUFF_PYGAMBIT_PYTHON") {
        Some(p) => PathBuf::from(p),
        None => PathBuf::from(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../bench/.venv/bin/python"
        )),
    };
    let ok = Command::new(&py)
        .args(["-c", "import pygambit"])
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false);
    if ok {
        return Some(py);
    }
    assert!(
        std::env::var_os("BLUFF_REQUIRE_PYGAMBIT").is_none(),
        "BLUFF_REQUIRE_PYGAMBIT is set but {} cannot import pygambit",
        py.display()
    );
    println!(
        "skipping pygambit conformance: {} cannot import pygambit (run scripts/install-pygambit.sh or set BLUFF_PYGAMBIT_PYTHON)",
        py.display()
    );
    None
}
