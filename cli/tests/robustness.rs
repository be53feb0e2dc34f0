//! Hostile input and careless use (issue 14): no panic, no input overwritten, outputs checked
//! before the work, sizes and digits bounded with messages that name them, exit codes as the
//! README says (1 error, 2 usage, SIGPIPE on a closed pipe).

mod common;

use common::cli::{bluff, stderr_of};
use predicates::prelude::*;
use predicates::str::contains;
use std::io::Read;
use std::path::Path;
use std::process::Stdio;

/// Reads a little of the command's output, closes the pipe, and checks the process ended by
/// SIGPIPE (or cleanly), never by a panic (exit 101).
#[cfg(unix)]
fn closes_pipe_quietly(args: &[&str]) {
    use std::os::unix::process::ExitStatusExt;
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("bluff"))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .stdin(Stdio::null())
        .spawn()
        .unwrap();
    let mut first = [0u8; 16];
    child
        .stdout
        .as_mut()
        .unwrap()
        .read_exact(&mut first)
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    let stderr = stderr_of(&out);
    assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    assert!(
        out.status.signal() == Some(13) || out.status.success(),
        "{args:?}: status {:?}, stderr {stderr}",
        out.status
    );
}

#[cfg(unix)]
#[test]
fn closed_pipes_end_quietly() {
    closes_pipe_quietly(&["solve", "kuhn", "--iterations", "10", "--json"]);
    closes_pipe_quietly(&["normal-form", "kuhn", "--matrix"]);
    closes_pipe_quietly(&[
        "shrek-donkey",
        "--m",
        "1000",
        "--n",
        "1000",
        "--strategy",
        "--max-rows",
        "100000",
    ]);
    closes_pipe_quietly(&["export", "leduc"]);
    closes_pipe_quietly(&["games"]);
}

#[test]
fn usage_errors_exit_2_and_other_errors_exit_1() {
    bluff().args(["solve", "kuhn", "--bogus"]).assert().code(2);
    bluff()
        .args(["solve", "kuhn", "--iterations", "0"])
        .assert()
        .code(1);
}

#[test]
fn normal_form_checks_its_size_before_enumerating() {
    let start = std::time::Instant::now();
    bluff()
        .args([
            "normal-form",
            "leduc",
            "--max-strategies",
            "18446744073709551615",
        ])
        .assert()
        .code(1)
        .stderr(contains("reduced pure strategies").and(contains("e44")));
    // Before the fix this enumerated until memory ran out; the count takes milliseconds.
    assert!(start.elapsed().as_secs() < 20);
    bluff()
        .args(["normal-form", "kuhn", "--max-strategies", "20"])
        .assert()
        .code(1)
        .stderr(contains("P1 has 27 reduced pure strategies"));
}

#[test]
fn digits_and_times_out_of_range_are_refused_not_panics() {
    bluff()
        .args(["one-card-poker", "--n", "3", "--ante", "2", "--bet", "1"])
        .args(["--digits", "65536"])
        .assert()
        .code(2)
        .stderr(contains("65536"));
    let out = bluff()
        .args(["one-card-poker", "--n", "3", "--ante", "2", "--bet", "1"])
        .args(["--digits", "1000"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    bluff()
        .args(["solve", "kuhn", "--time", "1e20"])
        .assert()
        .code(1)
        .stderr(contains("--time"));
    bluff()
        .args(["solve", "kuhn", "--target", "0"])
        .assert()
        .code(1)
        .stderr(contains("--target 0"));
    bluff()
        .args(["solve", "kuhn", "--iterations", "5", "--threads", "10000"])
        .assert()
        .code(1)
        .stderr(contains("--threads 10000: expected at most"));
    bluff()
        .args(["one-card-poker", "--n", "3", "--ante", "2", "--bet", "1"])
        .args(["--method", "cfr", "--iterations", "0"])
        .assert()
        .code(2);
}

fn write(path: &Path, text: &str) {
    std::fs::write(path, text).unwrap();
}

#[test]
fn no_command_writes_over_its_input() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let game = d.join("g.efg");
    bluff()
        .args(["export", "kuhn", "-o"])
        .arg(&game)
        .assert()
        .success();
    let before = std::fs::read(&game).unwrap();
    // The same file under another name (./g.efg, a hard link) is still the input.
    let link = d.join("link.json");
    std::fs::hard_link(&game, &link).unwrap();
    for out in [game.clone(), d.join(".").join("g.efg"), link.clone()] {
        bluff()
            .arg("solve")
            .arg(&game)
            .args(["--iterations", "5", "-o"])
            .arg(&out)
            .assert()
            .code(1)
            .stderr(contains("input file"));
    }
    bluff()
        .arg("export")
        .arg(&game)
        .arg("-o")
        .arg(&game)
        .assert()
        .code(1)
        .stderr(contains("input file"));
    assert_eq!(std::fs::read(&game).unwrap(), before);

    // batch: --zip naming an input, and an input `t.out` inside --out.
    let tests = d.join("tests");
    std::fs::create_dir(&tests).unwrap();
    write(&tests.join("x.in"), "3 2 1\n");
    bluff()
        .args(["one-card-poker", "batch"])
        .arg(tests.join("x.in"))
        .arg("--out")
        .arg(d.join("o"))
        .arg("--zip")
        .arg(tests.join("x.in"))
        .assert()
        .code(1)
        .stderr(contains("input file"));
    assert_eq!(
        std::fs::read_to_string(tests.join("x.in")).unwrap(),
        "3 2 1\n"
    );
    let out_dir = d.join("o2");
    std::fs::create_dir(&out_dir).unwrap();
    write(&out_dir.join("t.out"), "4 2 1\n");
    bluff()
        .args(["one-card-poker", "batch"])
        .arg(out_dir.join("t.out"))
        .arg("--out")
        .arg(&out_dir)
        .assert()
        .code(1)
        .stderr(contains("input file"));
    assert_eq!(
        std::fs::read_to_string(out_dir.join("t.out")).unwrap(),
        "4 2 1\n"
    );
}

#[test]
fn output_locations_are_checked_before_the_work() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let start = std::time::Instant::now();
    bluff()
        .args([
            "solve",
            "leduc",
            "--time",
            "30",
            "-o",
            "/nonexistent/x.json",
        ])
        .assert()
        .code(1)
        .stderr(contains("/nonexistent"));
    assert!(start.elapsed().as_secs() < 20, "solved before checking");
    // A bad --plot leaves -o and --curve unwritten.
    bluff()
        .args(["solve", "kuhn", "--iterations", "10", "-o"])
        .arg(d.join("s.json"))
        .arg("--curve")
        .arg(d.join("c.csv"))
        .args(["--plot", "/nonexistent/p.svg"])
        .assert()
        .code(1);
    assert!(!d.join("s.json").exists() && !d.join("c.csv").exists());
    // A bad --zip leaves the outputs unwritten.
    write(&d.join("a.in"), "3 2 1\n");
    bluff()
        .args(["one-card-poker", "batch"])
        .arg(d.join("a.in"))
        .arg("--out")
        .arg(d.join("out"))
        .args(["--zip", "/nonexistent/o.zip"])
        .assert()
        .code(1)
        .stderr(contains("/nonexistent"));
    assert!(!d.join("out").join("a.out").exists());
}

#[test]
fn repeated_keys_are_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let s = dir.path().join("s.json");
    bluff()
        .args(["solve", "kuhn", "--iterations", "5", "-o"])
        .arg(&s)
        .assert()
        .success();
    let text = std::fs::read_to_string(&s).unwrap();
    // Repeat one information set (with other numbers) and, separately, one action.
    let dup_set = text.replacen(
        "\"J\": {",
        "\"J\": { \"Pass\": 0, \"Bet\": 1 },\n      \"J\": {",
        1,
    );
    assert_ne!(dup_set, text);
    let bad = dir.path().join("bad.json");
    write(&bad, &dup_set);
    bluff()
        .arg("eval")
        .arg("kuhn")
        .arg(&bad)
        .assert()
        .code(1)
        .stderr(contains("\"J\"").and(contains("repeated key")));
    let dup_action = text.replacen("\"Pass\":", "\"Pass\": 0.5, \"Pass\":", 1);
    write(&bad, &dup_action);
    bluff()
        .arg("eval")
        .arg("kuhn")
        .arg(&bad)
        .assert()
        .code(1)
        .stderr(contains("\"Pass\"").and(contains("repeated key")));
    bluff()
        .args(["eval", "one-card-poker(n=5,n=6)"])
        .arg(&s)
        .assert()
        .code(1)
        .stderr(contains("parameter n is given twice"));
}

#[test]
fn quoted_input_is_cut_in_messages() {
    let dir = tempfile::tempdir().unwrap();
    let huge = "7".repeat(100_000);
    // A game spec parameter far out of range: "outside", not "not an integer", and short.
    let out = bluff()
        .args(["normal-form", &format!("kuhn-typo(x={huge})")])
        .output()
        .unwrap();
    assert!(stderr_of(&out).len() < 1000, "{}", stderr_of(&out).len());
    let out = bluff()
        .args(["normal-form", &format!("baby-poker(sides={huge})")])
        .output()
        .unwrap();
    let e = stderr_of(&out);
    assert!(
        e.len() < 1000 && e.contains("outside"),
        "{}",
        &e[..e.len().min(300)]
    );
    // A 2 MB garbage token in a contest file.
    let input = dir.path().join("t.in");
    write(&input, "2 2 1\n");
    let strat = dir.path().join("t.out");
    write(&strat, &format!("1 open: {}\n", "x".repeat(2_000_000)));
    let out = bluff()
        .args(["one-card-poker", "validate", "--input"])
        .arg(&input)
        .arg(&strat)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr_of(&out).len() < 3000, "{}", stderr_of(&out).len());
    // An input N far beyond i64 is out of range, not "not an integer".
    write(&input, &format!("{huge} 2 1\n"));
    bluff()
        .args(["one-card-poker", "validate", "--input"])
        .arg(&input)
        .arg(&strat)
        .assert()
        .code(1)
        .stderr(contains("outside the task's range"));
}

#[test]
fn validate_json_caps_the_listed_problems_and_counts_them_all() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("t.in");
    write(&input, "2 2 1\n");
    let strat = dir.path().join("t.out");
    write(&strat, &"garbage\n".repeat(200_000));
    let out = bluff()
        .args(["one-card-poker", "validate", "--json", "--input"])
        .arg(&input)
        .arg(&strat)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.len() < 20_000, "{} bytes", out.stdout.len());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["error_count"], 200_001); // 200 000 bad lines + the missing lines
    assert_eq!(v["errors"].as_array().unwrap().len(), 20);
}

#[test]
fn numbers_with_too_many_digits_are_refused_quickly() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("t.in");
    write(&input, "2 2 1\n");
    let strat = dir.path().join("t.out");
    let mut text = String::new();
    for c in 1..=2 {
        for (sit, a) in [
            ("open", "bet"),
            ("check", "bet"),
            ("bet", "call"),
            ("check-bet", "call"),
        ] {
            text.push_str(&format!("{c} {sit}: {a} 0.{}\n", "3".repeat(100_000)));
        }
    }
    write(&strat, &text);
    let start = std::time::Instant::now();
    bluff()
        .args(["one-card-poker", "validate", "--input"])
        .arg(&input)
        .arg(&strat)
        .assert()
        .code(1)
        .stderr(contains("100001 digits; at most 1024"));
    assert!(start.elapsed().as_secs() < 20);
    // A strategy JSON probability with 2 million digits.
    let s = dir.path().join("s.json");
    bluff()
        .args(["solve", "kuhn", "--algo", "lp", "-o"])
        .arg(&s)
        .assert()
        .success();
    let text = std::fs::read_to_string(&s).unwrap();
    let big = format!("\"{}/{}\"", "1".repeat(1_000_000), "3".repeat(1_000_000));
    let bad = text.replacen("\"1/3\"", &big, 1);
    assert_ne!(bad, text);
    write(&s, &bad);
    bluff()
        .arg("eval")
        .arg("kuhn")
        .arg(&s)
        .assert()
        .code(1)
        .stderr(contains("2000000 digits; at most 10000"));
}

#[test]
fn small_things() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // `-o -` writes standard output, not a file named `-`.
    let out = bluff()
        .current_dir(d)
        .args(["solve", "kuhn", "--iterations", "5", "-o", "-"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(v["strategy"]["P1"].is_object());
    assert!(!d.join("-").exists());
    // --plot p.png would be SVG text in a .png file.
    bluff()
        .current_dir(d)
        .args(["solve", "kuhn", "--iterations", "5", "--plot", "p.png"])
        .assert()
        .code(1)
        .stderr(contains(".svg"));
    // "wrote 1 file".
    write(&d.join("a.in"), "3 2 1\n");
    bluff()
        .current_dir(d)
        .args(["one-card-poker", "batch", "a.in", "--out", "o"])
        .assert()
        .success()
        .stdout(contains("wrote 1 file to"));
    // --n with `N A B` piped in as well.
    bluff()
        .args(["one-card-poker", "--n", "3", "--ante", "2", "--bet", "1"])
        .write_stdin("5 2 1\n")
        .assert()
        .code(1)
        .stderr(contains("given twice"));
    // A JSON syntax error says its text once.
    write(&d.join("bad.json"), "{ nope");
    let out = bluff()
        .current_dir(d)
        .args(["eval", "kuhn", "bad.json"])
        .output()
        .unwrap();
    let e = stderr_of(&out);
    assert_eq!(e.matches("key must be a string").count(), 1, "{e}");
}
