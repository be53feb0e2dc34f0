//! The examples in `README.md` and `docs/*.md` run as tests, so they cannot drift from what the
//! code prints.
//!
//! The convention (also stated in `docs/architecture.md`):
//! - An example is a fenced block whose info string starts with `console`. Each line starting
//!   with `$ ` is a shell command (bash, with `bluff` on the `PATH` as the binary of this build);
//!   the lines after it, up to the next command, are what it prints, stdout and stderr merged.
//! - In expected output, a line `...` matches any number of lines (none included), and `[..]`
//!   within a line matches any text on that line (timings, rates, thread counts).
//! - A last expected line `[exit N]` says the command exits with status N; otherwise it must exit 0.
//! - The examples of one page run in order in one fresh temporary directory, so a later command
//!   may read the files an earlier one wrote.
//! - A block that cannot run here (it needs the network or a peer) says so in its info string,
//!   `console skip=NAME`; the test skips exactly the names in [`SKIPPED`] and fails on any other.

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The blocks that are not run, by name, each with the reason.
const SKIPPED: &[(&str, &str)] = &[
    (
        "python-install",
        "installs the Python package and OpenSpiel from PyPI (network)",
    ),
    ("serve", "starts a server that runs until it is stopped"),
];

/// One command of an example and what it should print.
struct Example {
    /// `file:line` of the command.
    place: String,
    /// The shell command, without the `$ `.
    command: String,
    /// The expected lines (without a final `[exit N]`).
    expected: Vec<String>,
    /// The expected exit status.
    status: i32,
}

/// The examples of one page, and the names of its skipped blocks.
fn examples(path: &Path) -> (Vec<Example>, Vec<String>) {
    let text = std::fs::read_to_string(path).unwrap();
    let name = path.file_name().unwrap().to_string_lossy().into_owned();
    let mut out: Vec<Example> = Vec::new();
    let mut skipped = Vec::new();
    // None outside a fence; Some(run) inside one (run: whether it is a runnable example).
    let mut fence: Option<bool> = None;
    for (i, line) in text.lines().enumerate() {
        if let Some(info) = line.strip_prefix("```") {
            fence = match fence {
                Some(_) => None,
                None => {
                    let mut words = info.split_whitespace();
                    let console = words.next() == Some("console");
                    let skip = words.find_map(|w| w.strip_prefix("skip="));
                    if let (true, Some(skip)) = (console, skip) {
                        skipped.push(skip.to_string());
                    }
                    Some(console && skip.is_none())
                }
            };
            continue;
        }
        if fence != Some(true) {
            continue;
        }
        if let Some(command) = line.strip_prefix("$ ") {
            out.push(Example {
                place: format!("{name}:{}", i + 1),
                command: command.to_string(),
                expected: Vec::new(),
                status: 0,
            });
        } else {
            let last = out
                .last_mut()
                .unwrap_or_else(|| panic!("{name}:{}: output before any `$ ` command", i + 1));
            last.expected.push(line.trim_end().to_string());
        }
    }
    assert!(fence.is_none(), "{name}: a fence is not closed");
    for e in &mut out {
        let status = e.expected.last().and_then(|l| {
            l.strip_prefix("[exit ")
                .and_then(|r| r.strip_suffix(']'))
                .map(|n| n.parse::<i32>().expect("[exit N] takes a number"))
        });
        if let Some(status) = status {
            e.status = status;
            e.expected.pop();
        }
    }
    (out, skipped)
}

/// Whether one actual line matches one expected line, where `[..]` matches any text.
fn line_matches(expected: &str, actual: &str) -> bool {
    let parts: Vec<&str> = expected.split("[..]").collect();
    if parts.len() == 1 {
        return expected == actual;
    }
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if !actual.starts_with(first) || actual.len() < first.len() + last.len() {
        return false;
    }
    let mut rest = &actual[first.len()..];
    for middle in &parts[1..parts.len() - 1] {
        match rest.find(middle) {
            Some(at) => rest = &rest[at + middle.len()..],
            None => return false,
        }
    }
    rest.ends_with(last)
}

/// Whether the actual lines match the expected ones, where a line `...` matches any lines.
fn lines_match(expected: &[String], actual: &[&str]) -> bool {
    // reach[j]: the first i expected lines can match the first j actual lines.
    let mut reach = vec![false; actual.len() + 1];
    reach[0] = true;
    for e in expected {
        let mut next = vec![false; actual.len() + 1];
        if e == "..." {
            let mut any = false;
            for j in 0..=actual.len() {
                any |= reach[j];
                next[j] = any;
            }
        } else {
            for j in 0..actual.len() {
                next[j + 1] = reach[j] && line_matches(e, actual[j].trim_end());
            }
        }
        reach = next;
    }
    reach[actual.len()]
}

/// The workspace root.
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// README.md and every page of docs/.
fn pages() -> Vec<PathBuf> {
    let mut pages = vec![root().join("README.md")];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root().join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    docs.sort();
    pages.extend(docs);
    pages
}

/// Runs the examples of one page in a fresh directory; returns a description of each mismatch.
fn run_page(page: &Path, bin_dir: &Path) -> Vec<String> {
    let (examples, _) = examples(page);
    let dir = tempfile::tempdir().unwrap();
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut failures = Vec::new();
    for e in &examples {
        let output = Command::new("bash")
            .arg("-c")
            .arg(format!("{{ {}\n}} 2>&1", e.command))
            .current_dir(dir.path())
            .env("PATH", &path)
            .env_remove("RAYON_NUM_THREADS")
            .stdin(Stdio::null())
            .stderr(Stdio::inherit())
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&output.stdout);
        let actual: Vec<&str> = text.lines().collect();
        let status = output.status.code().unwrap_or(-1);
        if status != e.status || !lines_match(&e.expected, &actual) {
            let mut msg = format!(
                "{}: `{}` exited {status} (expected {}); expected:\n",
                e.place, e.command, e.status
            );
            for l in &e.expected {
                let _ = writeln!(msg, "  | {l}");
            }
            msg.push_str("got:\n");
            for l in &actual {
                let _ = writeln!(msg, "  | {l}");
            }
            failures.push(msg);
        }
    }
    failures
}

#[test]
fn docs_examples_print_what_they_show() {
    let bin = PathBuf::from(env!("CARGO_BIN_EXE_bluff"));
    // `bluff` on the PATH as this build's binary.
    let bin_dir = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(&bin, bin_dir.path().join("bluff")).unwrap();
    let pages = pages();
    let mut count = 0;
    let mut skipped = BTreeSet::new();
    for page in &pages {
        let (examples, skips) = examples(page);
        count += examples.len();
        for s in skips {
            assert!(skipped.insert(s.clone()), "skip name {s} is used twice");
        }
    }
    let listed: BTreeSet<String> = SKIPPED.iter().map(|(n, _)| n.to_string()).collect();
    assert_eq!(
        skipped, listed,
        "the skipped blocks in the docs must be exactly those named in SKIPPED"
    );
    assert!(count >= 10, "only {count} examples found");
    let failures: Vec<String> = std::thread::scope(|s| {
        let handles: Vec<_> = pages
            .iter()
            .map(|p| s.spawn(|| run_page(p, bin_dir.path())))
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap())
            .collect()
    });
    assert!(
        failures.is_empty(),
        "{} of {count} doc examples differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn matching_rules() {
    assert!(line_matches(
        "1000 iterations in [..] s ([..] it/s)",
        "1000 iterations in 0.05 s (16915 it/s)"
    ));
    assert!(!line_matches(
        "1000 iterations in [..] s",
        "100 iterations in 0.05 s"
    ));
    assert!(!line_matches("a[..]a", "a"));
    assert!(line_matches("[..]", ""));
    let exp = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    assert!(lines_match(&exp(&["a", "...", "d"]), &["a", "b", "c", "d"]));
    assert!(lines_match(&exp(&["a", "...", "b"]), &["a", "b"]));
    assert!(lines_match(&exp(&["..."]), &[]));
    assert!(!lines_match(&exp(&["a", "...", "d"]), &["a", "b", "c"]));
    assert!(!lines_match(&exp(&["a"]), &["a", "b"]));
    assert!(lines_match(
        &exp(&["...", "x", "..."]),
        &["a", "x", "b", "x"]
    ));
}
