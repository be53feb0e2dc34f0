//! `bluff one-card-poker batch` against hostile or careless folders and inputs: every input is
//! checked before anything is written, no input is overwritten, two inputs never write one
//! output, and outputs go through the safe-write rules (links kept, modes kept, devices in
//! place).

mod common;

use common::cli::{bluff, stderr_of};
use common::write_in as write;
use std::path::Path;

/// Runs `batch INPUTS --out OUT EXTRA...`; returns the output.
fn batch(inputs: &[&Path], out: &Path, extra: &[&str]) -> std::process::Output {
    bluff()
        .args(["one-card-poker", "batch"])
        .args(inputs)
        .arg("--out")
        .arg(out)
        .args(extra)
        .output()
        .unwrap()
}

fn assert_refused(out: &std::process::Output, needle: &str) {
    common::cli::assert_refused(out, "batch", needle);
}

#[test]
fn an_invalid_input_stops_the_batch_before_anything_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let good = write(dir.path(), "01.in", "2 2 1\n");
    let bad = write(dir.path(), "02.in", "1 2 1\n");
    let out = dir.path().join("out");
    let res = batch(&[&good, &bad], &out, &[]);
    assert_refused(&res, "N = 1 is outside the task's range 2..=50");
    assert!(
        !out.exists(),
        "the output folder was made for a failed batch"
    );
}

#[test]
fn two_inputs_with_one_name_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    for sub in ["a", "b"] {
        std::fs::create_dir(dir.path().join(sub)).unwrap();
        write(&dir.path().join(sub), "01.in", "2 2 1\n");
    }
    let (a, b) = (dir.path().join("a/01.in"), dir.path().join("b/01.in"));
    let res = batch(&[&a, &b], &dir.path().join("out"), &[]);
    assert_refused(&res, "would both write 01.out");
}

#[test]
fn an_out_folder_that_is_a_file_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let input = write(dir.path(), "01.in", "2 2 1\n");
    let file = write(dir.path(), "plain", "keep me");
    assert_refused(
        &batch(&[&input], &file, &[]),
        "is a file, expected a folder",
    );
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "keep me");
}

#[test]
fn an_input_inside_out_that_an_output_would_replace_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    // The input 01.out would be written for 01.in.
    let input = write(dir.path(), "01.in", "2 2 1\n");
    let victim = write(dir.path(), "01.out", "1 open: check\n");
    let res = batch(&[&input, &victim], dir.path(), &[]);
    assert_eq!(res.status.code(), Some(1), "{}", stderr_of(&res));
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "1 open: check\n");
}

#[test]
fn a_zip_onto_an_input_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let input = write(dir.path(), "01.in", "2 2 1\n");
    let input_text = input.to_str().unwrap();
    let res = batch(&[&input], &dir.path().join("out"), &["--zip", input_text]);
    assert_refused(&res, "that is an input file of this command");
    assert_eq!(std::fs::read_to_string(&input).unwrap(), "2 2 1\n");
}

#[test]
fn a_folder_given_as_an_input_is_an_error_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let sub = dir.path().join("cases");
    std::fs::create_dir(&sub).unwrap();
    let res = batch(&[&sub], &dir.path().join("out"), &[]);
    assert_refused(&res, "cases");
}

#[test]
fn no_inputs_is_a_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    let res = bluff()
        .args(["one-card-poker", "batch", "--out"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(res.status.code(), Some(2));
}

#[test]
fn a_huge_garbage_input_gets_a_short_message() {
    let dir = tempfile::tempdir().unwrap();
    let input = write(
        dir.path(),
        "01.in",
        format!("2 2 \u{1b}[2J{}\n", "9".repeat(3_000_000)),
    );
    let res = batch(&[&input], &dir.path().join("out"), &[]);
    let e = stderr_of(&res);
    assert_eq!(res.status.code(), Some(1), "{e}");
    assert!(e.len() < 1000, "{} bytes", e.len());
    assert!(!e.contains('\u{1b}'), "{e}");
}

#[test]
fn windows_line_endings_and_other_suffixes_are_read() {
    let dir = tempfile::tempdir().unwrap();
    let crlf = write(dir.path(), "crlf.in", "3 2 1\r\n");
    let txt = write(dir.path(), "t.txt", "2 2 1\n");
    let out = dir.path().join("out");
    let res = batch(&[&crlf, &txt], &out, &[]);
    assert!(res.status.success(), "{}", stderr_of(&res));
    // 4N lines each, each file scored (re-read, exactly) within 1e-9 of A/2: the printed
    // decimals of the exact equilibrium.
    let table = String::from_utf8_lossy(&res.stdout);
    let gaps: Vec<f64> = table
        .lines()
        .filter(|l| l.starts_with("crlf ") || l.starts_with("t "))
        .map(|l| l.split_whitespace().nth(5).unwrap().parse().unwrap())
        .collect();
    assert!(gaps.len() == 2 && gaps.iter().all(|g| *g < 1e-9), "{table}");
    assert_eq!(
        std::fs::read_to_string(out.join("crlf.out"))
            .unwrap()
            .lines()
            .count(),
        12
    );
    assert_eq!(
        std::fs::read_to_string(out.join("t.out"))
            .unwrap()
            .lines()
            .count(),
        8
    );
}

#[cfg(unix)]
#[test]
fn outputs_keep_links_and_modes_and_a_zip_may_go_to_a_device() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let input = write(dir.path(), "01.in", "2 2 1\n");
    let out = dir.path().join("out");
    std::fs::create_dir(&out).unwrap();
    // 01.out is a link to a file elsewhere, of mode 600.
    let elsewhere = write(dir.path(), "kept.out", "old");
    std::fs::set_permissions(&elsewhere, std::fs::Permissions::from_mode(0o600)).unwrap();
    std::os::unix::fs::symlink(&elsewhere, out.join("01.out")).unwrap();
    let res = batch(&[&input], &out, &["--zip", "/dev/null"]);
    assert!(res.status.success(), "{}", stderr_of(&res));
    assert!(std::fs::symlink_metadata(out.join("01.out"))
        .unwrap()
        .file_type()
        .is_symlink());
    let text = std::fs::read_to_string(&elsewhere).unwrap();
    assert!(text.starts_with("1 open:"), "{text}");
    let mode = std::fs::metadata(&elsewhere).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);
    assert_eq!(std::fs::read_dir(&out).unwrap().count(), 1);
}
